/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The READ data range tnfs_compound() reports for the transport's write
 * chunk (RFC 8267 section 4.4: the first write chunk is the first READ's):
 * it points exactly at the file's bytes in the reply, its length is the
 * READ's count, and it is 0/0 for a READ at EOF, a COMPOUND without READ,
 * a failing READ and a reply from the slot cache; of two READs only the
 * first is reported.  The estimate's bulk part agrees.
 */
#include "nfstest.h"

#include <errno.h>

#define DATA_LEN 5001u /* not a multiple of 4: the last READ has a pad */

static uint8_t content[DATA_LEN];

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int setup(void **state)
{
	struct fx *f = fx_new("*(rw,no_root_squash)");
	for (size_t i = 0; i < DATA_LEN; i++)
		content[i] = (uint8_t)(i * 7 + i / 251);
	char path[128];
	snprintf(path, sizeof(path), "%s/data", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, DATA_LEN), (ssize_t)DATA_LEN);
	close(fd);
	fx_mount(f);
	*state = f;
	return 0;
}

/* SEQUENCE, PUTROOTFH, LOOKUP data: the READs follow. */
static void begin_on_data(struct fx *f)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "data");
}

static void put_read(struct fx *f, uint64_t offset, uint32_t count)
{
	static const struct nfs4_stateid anon = { 0, { 0 } };
	req_op(&f->rq, OP_READ);
	put_stateid(&f->rq.x, &anon);
	xdr_put_u64(&f->rq.x, offset);
	xdr_put_u32(&f->rq.x, count);
}

static void skip_to_reads(struct fx *f)
{
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
}

/* Walks a READ result; returns its data (pointing into the reply). */
static struct xdr_opaque get_read(struct fx *f, bool *eof)
{
	assert_int_equal(rep_op(&f->rp, OP_READ), NFS4_OK);
	*eof = xdr_get_bool(&f->rp.x);
	struct xdr_opaque d = xdr_get_opaque(&f->rp.x, UINT32_MAX);
	assert_false(f->rp.x.bad);
	return d;
}

/* The estimate of the request just sent: its bulk part covers the
 * reported data with its pad, and lies within the total. */
static void check_estimate(struct fx *f)
{
	size_t total = 0, bulk = 0;
	assert_int_equal(tnfs_compound_estimate(f->srv, f->rq.buf, req_len(&f->rq), &total, &bulk),
			 0);
	assert_true(bulk <= total);
	assert_true(f->rp.len <= total);
	assert_true(xdr_pad((uint32_t)f->bulk_len) <= bulk);
}

static void test_read_marks_its_data(void **state)
{
	struct fx *f = *state;
	static const struct { uint64_t off; uint32_t count; } cases[] = {
		{ 0, 1000 }, { 3, 1 }, { 17, 4096 }, { DATA_LEN - 7, 4096 }, { 0, 65536 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		begin_on_data(f);
		put_read(f, cases[i].off, cases[i].count);
		assert_int_equal(fx_call(f), NFS4_OK);
		skip_to_reads(f);
		bool eof;
		struct xdr_opaque d = get_read(f, &eof);
		uint64_t left = DATA_LEN - cases[i].off;
		uint32_t want = left < cases[i].count ? (uint32_t)left : cases[i].count;
		assert_int_equal(d.len, want);
		assert_int_equal(eof, cases[i].off + want >= DATA_LEN);
		/* the range is exactly the READ's data<> body */
		assert_int_equal(f->bulk_len, d.len);
		assert_int_equal(f->bulk_off, (size_t)(d.data - f->rp.buf));
		assert_true(f->bulk_off >= 4 && f->bulk_off % 4 == 0);
		assert_true(f->bulk_off + xdr_pad((uint32_t)f->bulk_len) == f->rp.len);
		assert_memory_equal(f->rp.buf + f->bulk_off, content + cases[i].off, f->bulk_len);
		assert_int_equal(rd32(f->rp.buf + f->bulk_off - 4), f->bulk_len);
		check_estimate(f);
	}
}

static void test_read_at_eof_marks_nothing(void **state)
{
	struct fx *f = *state;
	static const uint64_t offs[] = { DATA_LEN, DATA_LEN + 100, 1ull << 40 };
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		begin_on_data(f);
		put_read(f, offs[i], 4096);
		assert_int_equal(fx_call(f), NFS4_OK);
		skip_to_reads(f);
		bool eof;
		struct xdr_opaque d = get_read(f, &eof);
		assert_int_equal(d.len, 0);
		assert_true(eof);
		assert_int_equal(f->bulk_off, 0);
		assert_int_equal(f->bulk_len, 0);
	}
	/* count 0 inside the file: no data either */
	begin_on_data(f);
	put_read(f, 10, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->bulk_off, 0);
	assert_int_equal(f->bulk_len, 0);
}

static void test_no_read_marks_nothing(void **state)
{
	struct fx *f = *state;
	/* no READ at all */
	begin_on_data(f);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE) | W0(FATTR4_SIZE), 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->bulk_off, 0);
	assert_int_equal(f->bulk_len, 0);
	/* a failing READ (on a directory) */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	put_read(f, 0, 100);
	assert_int_equal(fx_call(f), NFS4ERR_ISDIR);
	assert_int_equal(f->bulk_off, 0);
	assert_int_equal(f->bulk_len, 0);
	/* where the READ result starts (resop, status, eof, length) */
	begin_on_data(f);
	put_read(f, 0, 100);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->bulk_len, 100);
	size_t head = f->bulk_off - 16;
	/* reply space for 8 bytes of data: a short READ, its 8 bytes marked */
	begin_on_data(f);
	put_read(f, 0, 100);
	size_t len = 0, off = 1, blen = 1;
	assert_int_equal(tnfs_compound(f->srv, &f->cred, f->rq.buf, req_len(&f->rq), f->rp.buf,
				       head + 16 + 8, &len, &off, &blen),
			 0);
	f->rp.len = len;
	assert_int_equal(rep_begin(&f->rp), NFS4_OK);
	assert_int_equal(off, head + 16);
	assert_int_equal(blen, 8);
	assert_memory_equal(f->rp.buf + off, content, 8);
	/* no space for any data: the READ is not run (REP_TOO_BIG) */
	begin_on_data(f);
	put_read(f, 0, 100);
	off = blen = 1;
	assert_int_equal(tnfs_compound(f->srv, &f->cred, f->rq.buf, req_len(&f->rq), f->rp.buf,
				       head + 12, &len, &off, &blen),
			 0);
	f->rp.len = len;
	assert_int_equal(rep_begin(&f->rp), NFS4ERR_REP_TOO_BIG);
	assert_int_equal(off, 0);
	assert_int_equal(blen, 0);
	/* garbage: -EBADMSG, nothing */
	static const uint8_t garbage[6] = { 0, 0, 0, 9, 'x', 'y' };
	off = blen = 1;
	assert_int_equal(tnfs_compound(f->srv, &f->cred, garbage, sizeof(garbage), f->rp.buf,
				       BUFSZ, &len, &off, &blen),
			 -EBADMSG);
	assert_int_equal(off, 0);
	assert_int_equal(blen, 0);
}

static void test_two_reads_mark_the_first(void **state)
{
	struct fx *f = *state;
	begin_on_data(f);
	put_read(f, 0, 100);
	put_read(f, 200, 300);
	assert_int_equal(fx_call(f), NFS4_OK);
	skip_to_reads(f);
	bool eof;
	struct xdr_opaque d1 = get_read(f, &eof);
	struct xdr_opaque d2 = get_read(f, &eof);
	assert_int_equal(d1.len, 100);
	assert_int_equal(d2.len, 300);
	assert_memory_equal(d2.data, content + 200, 300);
	assert_int_equal(f->bulk_len, 100);
	assert_int_equal(f->bulk_off, (size_t)(d1.data - f->rp.buf));
	assert_memory_equal(f->rp.buf + f->bulk_off, content, 100);
	check_estimate(f);
	/* the estimate's bulk part is the first READ's only */
	size_t total = 0, bulk = 0;
	assert_int_equal(tnfs_compound_estimate(f->srv, f->rq.buf, req_len(&f->rq), &total, &bulk),
			 0);
	assert_int_equal(bulk, 100);

	/* the first READ at EOF: the write chunk was its, the second's data
	 * stays inline */
	begin_on_data(f);
	put_read(f, DATA_LEN, 100);
	put_read(f, 0, 100);
	assert_int_equal(fx_call(f), NFS4_OK);
	skip_to_reads(f);
	assert_int_equal(get_read(f, &eof).len, 0);
	assert_int_equal(get_read(f, &eof).len, 100);
	assert_int_equal(f->bulk_off, 0);
	assert_int_equal(f->bulk_len, 0);

	/* a READ before a failing operation: its result stays, so does its
	 * range */
	begin_on_data(f);
	put_read(f, 40, 60);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "no-such-name");
	assert_int_equal(fx_call(f), NFS4ERR_NOTDIR);
	skip_to_reads(f);
	d1 = get_read(f, &eof);
	assert_int_equal(f->bulk_len, 60);
	assert_int_equal(f->bulk_off, (size_t)(d1.data - f->rp.buf));
	assert_memory_equal(f->rp.buf + f->bulk_off, content + 40, 60);
}

static void test_replay_marks_nothing(void **state)
{
	struct fx *f = *state;
	/* cachethis: the slot cache answers a retransmission with the same
	 * bytes, with the data inline (no range is kept with the cache) */
	fx_seq_cache(f, true);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "data");
	put_read(f, 0, 64);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->bulk_len, 64);
	uint8_t first[1024];
	size_t first_len = f->rp.len;
	assert_true(first_len <= sizeof(first));
	memcpy(first, f->rp.buf, first_len);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->rp.len, first_len);
	assert_memory_equal(f->rp.buf, first, first_len);
	assert_int_equal(f->bulk_off, 0);
	assert_int_equal(f->bulk_len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_marks_its_data, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_read_at_eof_marks_nothing, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_no_read_marks_nothing, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_two_reads_mark_the_first, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_replay_marks_nothing, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
