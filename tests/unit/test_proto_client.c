/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of the client side: the call encoder (byte-exact), the
 * reply checker (accept/reject), and a round-trip property test: random
 * valid calls built by the client encoder are accepted by the server's call
 * checker with the same view, and random replies built by the server's
 * encoder from that view are accepted by the reply checker.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "wire_util.h"
#include "wire/xdr.h"

static uint32_t out[4096];
static struct wbuf b;

static void test_encode_call_vector(void **state)
{
	(void)state;
	const struct rpcrdma_read_segment reads[] = {
		{ 0, { 0x01020304, 0x100, 0x1122334455667788ull } },
		{ 256, { 0x0a, 0x20, 0x10 } },
	};
	const struct rpcrdma_segment writes[] = { { 0xb1, 0x1000, 0xb000 }, { 0xb2, 0x10, 0xc000 } };
	const uint32_t wsegs[] = { 2 };
	const struct rpcrdma_segment reply[] = { { 0xc1, 0x400, 0xd000 } };
	struct rpcrdma_call_desc d = {
		.xid = __builtin_bswap32(0xdeadbeef), .credits = 32, .type = RPCRDMA_NOMSG,
		.reads = reads, .nreads = 2,
		.writes = writes, .nwrites = 2, .write_chunk_segs = wsegs, .write_chunks = 1,
		.has_reply = true, .reply = reply, .nreply = 1,
	};
	const char *want =
		"deadbeef 00000001 00000020 00000001"
		"00000001 00000000 01020304 00000100 11223344 55667788"
		"00000001 00000100 0000000a 00000020 00000000 00000010"
		"00000000"
		"00000001 00000002"
		"000000b1 00001000 00000000 0000b000"
		"000000b2 00000010 00000000 0000c000"
		"00000000"
		"00000001 00000001 000000c1 00000400 00000000 0000d000";
	size_t sz = rpcrdma_call_hdr_size(&d);
	assert_int_equal(sz, 4 * 34);
	assert_int_equal(rpcrdma_encode_call(out, sizeof(out), &d), (int)sz);
	assert_bytes(out, sz, want);
	for (size_t len = 0; len < sz; len++)
		assert_int_equal(rpcrdma_encode_call(out, len, &d), -EMSGSIZE);

	/* no chunks */
	struct rpcrdma_call_desc e = { .xid = __builtin_bswap32(7), .credits = 1, .type = RPCRDMA_MSG };
	assert_int_equal(rpcrdma_encode_call(out, sizeof(out), &e), 28);
	assert_bytes(out, 28, "00000007 00000001 00000001 00000000 00000000 00000000 00000000");
	/* its short path refuses what the general one refuses */
	for (size_t len = 0; len < 28; len++)
		assert_int_equal(rpcrdma_encode_call(out, len, &e), -EMSGSIZE);
	assert_int_equal(rpcrdma_encode_call((char *)out + 2, sizeof(out) - 4, &e), -EINVAL);
	e.nreply = 1;   /* reply NULL: inconsistent, has_reply or not */
	assert_int_equal(rpcrdma_encode_call(out, sizeof(out), &e), -EINVAL);
	e.nreply = 0;
	e.nwrites = 1;  /* segments no chunk holds */
	assert_int_equal(rpcrdma_encode_call(out, sizeof(out), &e), -EINVAL);
	e.nwrites = 0;

	/* inconsistent descriptions */
	e.type = RPCRDMA_DONE;
	assert_int_equal(rpcrdma_encode_call(out, sizeof(out), &e), -EINVAL);
	d.nwrites = 3;
	assert_int_equal(rpcrdma_encode_call(out, sizeof(out), &d), -EINVAL);
	d.nwrites = 2;
	d.reads = NULL;
	assert_int_equal(rpcrdma_encode_call(out, sizeof(out), &d), -EINVAL);
	assert_int_equal(rpcrdma_call_hdr_size(NULL), 0);
}

static void test_reply_checker(void **state)
{
	(void)state;
	struct rpcrdma_hdr h;
	/* RDMA_MSG reply without chunks */
	put_fixed(&b, 1, 40, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_reply_copy(b.w, 28, &h), 28);
	assert_int_equal(h.credits, 40);
	for (size_t len = 0; len < 28; len++) {
		assert_int_equal(check_reply_copy(b.w, len, &h), -EINVAL);
		assert_int_equal(h.reason, RPCRDMA_CHECK_SHORT);
	}
	/* a read list in a reply */
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put_read(&b, 0, 1, 1, 1);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_reply_copy(b.w, b.n * 4, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_REPLY_READS);
	/* RDMA_MSG with a reply chunk, RDMA_NOMSG without one */
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 1);
	put(&b, 1);
	put_seg(&b, 1, 100, 0);
	assert_int_equal(check_reply_copy(b.w, b.n * 4, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_REPLY_CHUNK);
	b.w[3] = RPCRDMA_XDR_NOMSG;
	assert_int_equal(check_reply_copy(b.w, b.n * 4, &h), (int)(b.n * 4));
	assert_int_equal(h.reply_segments, 1);
	for (size_t len = 0; len < b.n * 4; len++)
		assert_int_equal(check_reply_copy(b.w, len, &h), -EINVAL);
	put_fixed(&b, 1, 1, RPCRDMA_NOMSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_reply_copy(b.w, 28, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_NOMSG);
	/* an unused write chunk returned with zero segments is accepted */
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 1);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_reply_copy(b.w, b.n * 4, &h), (int)(b.n * 4));
	assert_int_equal(h.write_chunks, 1);
	/* huge segment count */
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 1);
	put(&b, 0xffffffffu);
	put_seg(&b, 1, 1, 1);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_reply_copy(b.w, b.n * 4, &h), -EINVAL);
	/* types */
	put_fixed(&b, 1, 1, RPCRDMA_DONE);
	assert_int_equal(check_reply_copy(b.w, 16, &h), 0);
	assert_int_equal(h.reason, RPCRDMA_CHECK_DROP);
	put_fixed(&b, 1, 1, RPCRDMA_MSGP);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_reply_copy(b.w, 28, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_PROC);
	put_fixed(&b, 3, 1, RPCRDMA_MSG);
	assert_int_equal(check_reply_copy(b.w, 16, &h), -EPROTONOSUPPORT);
	assert_memory_equal(&h.xid, "\x11\x22\x33\x44", 4);
	/* RDMA_ERROR */
	put_fixed(&b, 1, 1, RPCRDMA_ERROR);
	put(&b, RPCRDMA_ERR_VERS);
	put(&b, 1);
	put(&b, 2);
	assert_int_equal(check_reply_copy(b.w, 28, &h), 28);
	assert_int_equal(h.vers_low, 1);
	assert_int_equal(h.vers_high, 2);
	assert_int_equal(check_reply_copy(b.w, 24, &h), -EINVAL);
	assert_int_equal(check_reply_copy(b.w, 19, &h), -EINVAL);
	b.w[4] = __builtin_bswap32(9);
	assert_int_equal(check_reply_copy(b.w, 28, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_ERRCODE);
	/* limits apply to replies */
	struct rpcrdma_limits lim = { .size = sizeof(lim), .max_segments = 1 };
	put_fixed(&b, 1, 1, RPCRDMA_NOMSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 1);
	put(&b, 2);
	put_seg(&b, 1, 1, 1);
	put_seg(&b, 1, 1, 1);
	assert_int_equal(rpcrdma_check_reply_ex(b.w, b.n * 4, &h, &lim), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_TOO_MANY_SEGMENTS);
	assert_int_equal(rpcrdma_check_reply_ex(b.w, b.n * 4, &h, NULL), (int)(b.n * 4));
}

/*
 * An RDMA_NOMSG reply carries the RPC reply in its reply chunk (RFC 8166
 * section 3.5.3, Long Reply), so a reply chunk returned with no segment or
 * with 0 bytes leaves it without a reply: rejected [NOMSG], byte-exact.
 */
static void test_reply_nomsg_empty_chunk(void **state)
{
	(void)state;
	static uint32_t raw[32];
	struct rpcrdma_hdr h;
	size_t n;

	n = hex("11223344 00000001 00000020 00000001 00000000 00000000"
		"00000001 00000000", (uint8_t *)raw);  /* reply chunk, 0 segments */
	assert_int_equal(n, 32);
	assert_int_equal(check_reply_copy(raw, n, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_NOMSG);

	n = hex("11223344 00000001 00000020 00000001 00000000 00000000"
		"00000001 00000001 00000009 00000000 00000000 00001000", (uint8_t *)raw);
	assert_int_equal(n, 48);  /* one segment, 0 bytes written */
	assert_int_equal(check_reply_copy(raw, n, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_NOMSG);

	raw[9] = __builtin_bswap32(0x64);  /* 100 bytes written: a reply */
	assert_int_equal(check_reply_copy(raw, n, &h), 48);
	assert_int_equal(h.type, RPCRDMA_NOMSG);
	assert_int_equal(h.reply_segments, 1);

	/* a two-segment chunk with bytes in its second segment only is fine */
	n = hex("11223344 00000001 00000020 00000001 00000000 00000000"
		"00000001 00000002 00000009 00000000 00000000 00001000"
		"0000000a 00000008 00000000 00002000", (uint8_t *)raw);
	assert_int_equal(check_reply_copy(raw, n, &h), (int)n);

	/* with RDMA_MSG a reply chunk, even an empty one, is still refused */
	n = hex("11223344 00000001 00000020 00000000 00000000 00000000"
		"00000001 00000000", (uint8_t *)raw);
	assert_int_equal(check_reply_copy(raw, n, &h), -EINVAL);
	assert_int_equal(h.reason, RPCRDMA_CHECK_REPLY_CHUNK);
}

/* ------------------------------------------------------------------------
 * Round trip.
 */

struct model {
	struct rpcrdma_read_segment reads[24];
	uint32_t nreads;
	struct rpcrdma_segment writes[64];
	uint32_t wsegs[4];
	uint32_t nwrites, wchunks;
	struct rpcrdma_segment reply[16];
	uint32_t nreply;
	bool has_reply;
	uint32_t type;
};

static struct rpcrdma_segment rnd_seg(uint64_t *s)
{
	struct rpcrdma_segment g = { (uint32_t)rnd(s), rnd_below(s, 1u << 20), rnd(s) };
	return g;
}

static void rnd_model(uint64_t *s, struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->type = rnd_below(s, 2) ? RPCRDMA_NOMSG : RPCRDMA_MSG;
	uint32_t nchunks = rnd_below(s, 4) + (m->type == RPCRDMA_NOMSG);
	uint64_t pos = m->type == RPCRDMA_NOMSG ? 0 : 4 * (1 + rnd_below(s, 64));
	for (uint32_t c = 0; c < nchunks; c++) {
		uint32_t n = 1 + rnd_below(s, 4);
		uint64_t len = 0;
		for (uint32_t i = 0; i < n; i++) {
			struct rpcrdma_read_segment *r = &m->reads[m->nreads++];
			r->position = (uint32_t)pos;
			r->seg = rnd_seg(s);
			len += r->seg.length;
		}
		pos += ((len + 3) & ~3ull) + 4 * rnd_below(s, 16);
	}
	m->wchunks = rnd_below(s, 5);
	for (uint32_t c = 0; c < m->wchunks; c++) {
		m->wsegs[c] = 1 + rnd_below(s, 16);
		for (uint32_t i = 0; i < m->wsegs[c]; i++)
			m->writes[m->nwrites++] = rnd_seg(s);
	}
	m->has_reply = rnd_below(s, 2);
	if (m->has_reply) {
		m->nreply = 1 + rnd_below(s, 16);
		for (uint32_t i = 0; i < m->nreply; i++)
			m->reply[i] = rnd_seg(s);
	}
}

static void assert_seg_equal(const struct rpcrdma_segment *a, const struct rpcrdma_segment *b2)
{
	assert_int_equal(a->handle, b2->handle);
	assert_int_equal(a->length, b2->length);
	assert_int_equal(a->offset, b2->offset);
}

static void test_round_trip(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned with_reads = 0, with_writes = 0, with_reply = 0;
	for (int iter = 0; iter < 5000; iter++) {
		struct model m;
		rnd_model(&seed, &m);
		struct rpcrdma_call_desc d = {
			.xid = (uint32_t)rnd(&seed), .credits = rnd_below(&seed, 256), .type = m.type,
			.reads = m.reads, .nreads = m.nreads,
			.writes = m.writes, .nwrites = m.nwrites, .write_chunk_segs = m.wsegs,
			.write_chunks = m.wchunks, .has_reply = m.has_reply, .reply = m.reply,
			.nreply = m.nreply,
		};
		int n = rpcrdma_encode_call(out, sizeof(out), &d);
		assert_true(n > 0);
		size_t payload = 4 * rnd_below(&seed, 8);
		memset((char *)out + n, 0xee, payload);

		struct rpcrdma_hdr h;
		int rc = rpcrdma_check_call(out, (size_t)n + payload, &h);
		if (rc != n)
			fprintf(stderr, "iter %d: rc %d want %d reason %s\n", iter, rc, n,
				rpcrdma_check_reason_str(h.reason));
		assert_int_equal(rc, n);
		assert_int_equal(h.xid, d.xid);
		assert_int_equal(h.credits, d.credits);
		assert_int_equal(h.type, d.type);
		assert_int_equal(h.read_segments, m.nreads);
		assert_int_equal(h.write_chunks, m.wchunks);
		assert_int_equal(h.write_segments, m.nwrites);
		assert_int_equal(h.reply_segments, m.nreply);
		assert_int_equal(h.reply_chunk != NULL, m.has_reply);
		/* the general path (no fast paths) gives the same view */
		struct rpcrdma_hdr g;
		assert_int_equal(rpcrdma__check_call_general(out, (size_t)n + payload, &g), n);
		assert_ptr_equal(g.reply_chunk, h.reply_chunk);
		assert_int_equal(g.read_chunks, h.read_chunks);
		assert_int_equal(g.read_segments, h.read_segments);
		assert_int_equal(g.write_chunks, h.write_chunks);
		assert_int_equal(g.write_segments, h.write_segments);
		assert_int_equal(g.hdrlen, h.hdrlen);
		with_reads += m.nreads > 0;
		with_writes += m.wchunks > 0;
		with_reply += m.has_reply;

		/* the iterators give back every segment, chunk by chunk */
		struct rpcrdma_chunk_iter it;
		struct rpcrdma_chunk ch;
		struct rpcrdma_segment seg;
		uint32_t k = 0, chunks = 0;
		rpcrdma_read_chunks(&h, &it);
		while (rpcrdma_next_chunk(&it, &ch)) {
			chunks++;
			uint64_t len = 0;
			while (rpcrdma_next_segment(&ch, &seg)) {
				assert_int_equal(ch.position, m.reads[k].position);
				assert_seg_equal(&seg, &m.reads[k].seg);
				len += seg.length;
				k++;
			}
			assert_int_equal(len, ch.length);
		}
		assert_int_equal(k, m.nreads);
		assert_int_equal(chunks, h.read_chunks);
		k = 0;
		uint32_t c = 0;
		rpcrdma_write_chunks(&h, &it);
		while (rpcrdma_next_chunk(&it, &ch)) {
			assert_int_equal(ch.nsegs, m.wsegs[c]);
			while (rpcrdma_next_segment(&ch, &seg))
				assert_seg_equal(&seg, &m.writes[k++]);
			c++;
		}
		assert_int_equal(c, m.wchunks);
		assert_int_equal(rpcrdma_reply_chunk(&h, &ch), m.has_reply);
		if (m.has_reply) {
			k = 0;
			while (rpcrdma_next_segment(&ch, &seg))
				assert_seg_equal(&seg, &m.reply[k++]);
			assert_int_equal(k, m.nreply);
		}

		/* server reply from this view, checked by the client */
		uint32_t written[4];
		uint64_t wlen[4] = { 0 };
		rpcrdma_write_chunks(&h, &it);
		for (c = 0; rpcrdma_next_chunk(&it, &ch); c++) {
			written[c] = (uint32_t)(rnd(&seed) % (ch.length + 1));
			wlen[c] = ch.length;
		}
		bool nomsg = m.has_reply && rnd_below(&seed, 2);
		uint32_t reply_written = 0;
		if (nomsg) {
			/* an RDMA_NOMSG reply carries 1 byte or more */
			rpcrdma_reply_chunk(&h, &ch);
			nomsg = ch.length > 0;
			if (nomsg)
				reply_written = 1 + (uint32_t)(rnd(&seed) % ch.length);
		}
		static uint32_t rep[2048];
		int rn = rpcrdma_encode_reply(rep, sizeof(rep), &h, __builtin_bswap32(17), written,
					      m.wchunks, nomsg, reply_written);
		assert_true(rn > 0);
		struct rpcrdma_hdr r;
		assert_int_equal(rpcrdma_check_reply(rep, (size_t)rn, &r), rn);
		assert_int_equal(r.xid, d.xid);
		assert_int_equal(r.credits, 17);
		assert_int_equal(r.type, nomsg ? RPCRDMA_NOMSG : RPCRDMA_MSG);
		assert_int_equal(r.write_chunks, m.wchunks);
		assert_int_equal(r.write_segments, m.nwrites);
		rpcrdma_write_chunks(&r, &it);
		for (c = 0; rpcrdma_next_chunk(&it, &ch); c++) {
			assert_int_equal(ch.length, written[c]);
			assert_true(ch.length <= wlen[c]);
		}
		if (nomsg) {
			assert_true(rpcrdma_reply_chunk(&r, &ch));
			assert_int_equal(ch.length, reply_written);
			assert_int_equal(ch.nsegs, m.nreply);
		} else {
			assert_null(r.reply_chunk);
		}
	}
	/* the generator exercised every list */
	assert_true(with_reads > 1000 && with_writes > 1000 && with_reply > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_call_vector),
		cmocka_unit_test(test_reply_checker),
		cmocka_unit_test(test_reply_nomsg_empty_chunk),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
