/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue #25: the current stateid (RFC 8881 16.2.3.1.2) and VERIFY /
 * NVERIFY (18.31, 18.15).
 *
 * Current stateid: every operation that changes the current file handle
 * (PUTFH, PUTROOTFH, PUTPUBFH, LOOKUP, CREATE, SECINFO consuming it)
 * clears it, so CLOSE with the special current stateid after it is
 * NFS4ERR_BAD_STATEID, even when the new handle is the same file; OPEN
 * sets it, SAVEFH/RESTOREFH carry it.
 *
 * VERIFY/NVERIFY: the file's whole fattr4 for every attribute GETATTR
 * supports compares equal byte for byte; any one value changed is not the
 * same; an unsupported attribute is NFS4ERR_ATTRNOTSUPP, rdattr_error or
 * a write-only one NFS4ERR_INVAL.
 */
#include "nfstest.h"

static const struct nfs4_stateid cur_sid = { 1, { 0 } };

static int setup(void **state)
{
	struct fx *f = fx_new("*(rw,no_root_squash)");
	*state = f;
	fx_mount(f);
	return 0;
}

static void mkfile(struct fx *f, const char *name, const char *data)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(data, fp);
	fclose(fp);
}

/* PUTROOTFH, OPEN name (read, no create): the open stateid. */
static void open_file(struct fx *f, const char *name, struct nfs4_stateid *sid)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_READ, false, 0, name);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_OPEN), NFS4_OK);
	get_stateid(&f->rp.x, sid);
}

static void put_close(struct fx *f, const struct nfs4_stateid *sid)
{
	req_op(&f->rq, OP_CLOSE);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, sid);
}

/* The file handle changers, each followed by what makes the current file
 * handle "a" again where it can.  (LOOKUPP clears it too, but only runs
 * from a directory, which no stateid-setting operation leaves current.) */
enum changer { PUTROOTFH_LOOKUP, PUTPUBFH_LOOKUP, PUTFH_SAME, SECINFO_PUTFH, CREATE_PUTFH,
	       N_CHANGERS };

static void test_fh_change_clears_current_stateid(void **state)
{
	struct fx *f = *state;
	mkfile(f, "a", "hello\n");
	/* a's handle */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "a");
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	struct fh fa;
	get_fh(&f->rp.x, &fa);

	for (int k = 0; k < N_CHANGERS; k++) {
		struct nfs4_stateid sid;
		open_file(f, "a", &sid);
		/* OPEN a (sets the current stateid), change the file handle
		 * back to a, CLOSE(current) */
		fx_seq(f);
		req_op(&f->rq, OP_PUTROOTFH);
		req_op(&f->rq, OP_OPEN);
		put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_READ, false, 0, "a");
		uint32_t nops = 3;
		switch (k) {
		case PUTROOTFH_LOOKUP:
			req_op(&f->rq, OP_PUTROOTFH);
			req_op(&f->rq, OP_LOOKUP);
			put_str(&f->rq.x, "a");
			nops += 2;
			break;
		case PUTPUBFH_LOOKUP: /* the public handle is the root */
			req_op(&f->rq, OP_PUTPUBFH);
			req_op(&f->rq, OP_LOOKUP);
			put_str(&f->rq.x, "a");
			nops += 2;
			break;
		case PUTFH_SAME:
			req_op(&f->rq, OP_PUTFH);
			put_fh(&f->rq.x, &fa);
			nops += 1;
			break;
		case SECINFO_PUTFH:
			req_op(&f->rq, OP_PUTROOTFH);
			req_op(&f->rq, OP_SECINFO);
			put_str(&f->rq.x, "a");
			req_op(&f->rq, OP_PUTFH);
			put_fh(&f->rq.x, &fa);
			nops += 3;
			break;
		case CREATE_PUTFH:
			req_op(&f->rq, OP_PUTROOTFH);
			req_op(&f->rq, OP_CREATE);
			xdr_put_u32(&f->rq.x, NF4DIR);
			put_str(&f->rq.x, "newdir");
			put_bitmap(&f->rq.x, 0, 0, 0);
			xdr_put_u32(&f->rq.x, 0);
			req_op(&f->rq, OP_PUTFH);
			put_fh(&f->rq.x, &fa);
			nops += 3;
			break;
		}
		put_close(f, &cur_sid);
		nops++;
		assert_int_equal(fx_call(f), NFS4ERR_BAD_STATEID);
		assert_int_equal(f->rp.n, nops);
		/* the open is still there: CLOSE with its own stateid works
		 * (seqid 0: whatever the second OPEN made it) */
		sid.seqid = 0;
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, &fa);
		put_close(f, &sid);
		assert_int_equal(fx_call(f), NFS4_OK);
		char path[160];
		snprintf(path, sizeof(path), "%s/newdir", f->dir);
		rmdir(path);
	}
}

static void test_open_restorefh_keep_current_stateid(void **state)
{
	struct fx *f = *state;
	mkfile(f, "a", "hello\n");
	/* OPEN, CLOSE(current): the open's own stateid */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_READ, false, 0, "a");
	put_close(f, &cur_sid);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* OPEN, SAVEFH, PUTROOTFH, RESTOREFH, CLOSE(current): restored */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_READ, false, 0, "a");
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_RESTOREFH);
	put_close(f, &cur_sid);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* PUTROOTFH, SAVEFH, OPEN, RESTOREFH: the saved (none) again */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_READ, false, 0, "a");
	req_op(&f->rq, OP_RESTOREFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "a");
	put_close(f, &cur_sid);
	assert_int_equal(fx_call(f), NFS4ERR_BAD_STATEID);
}

/* --- VERIFY / NVERIFY ------------------------------------------------------ */

struct attrs {
	uint32_t w[3];
	uint32_t len;
	uint8_t v[4096];
};

/* GETATTR of `name` (NULL: the root) for mask w. */
static void getattr(struct fx *f, const char *name, const uint32_t w[3], struct attrs *out)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	if (name) {
		req_op(&f->rq, OP_LOOKUP);
		put_str(&f->rq.x, name);
	}
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, w[0], w[1], w[2]);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	if (name)
		assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	struct xdr_opaque o = get_fattr(&f->rp.x, out->w);
	assert_false(f->rp.x.bad);
	assert_true(o.len <= sizeof(out->v));
	out->len = o.len;
	memcpy(out->v, o.data, o.len);
}

/* op (VERIFY or NVERIFY) of `name` with fattr4 (w, vals); the status. */
static uint32_t verify(struct fx *f, uint32_t op, const char *name, const uint32_t w[3],
		       const uint8_t *vals, uint32_t len)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	if (name) {
		req_op(&f->rq, OP_LOOKUP);
		put_str(&f->rq.x, name);
	}
	req_op(&f->rq, op);
	xdr_put_u32(&f->rq.x, 3);
	for (int i = 0; i < 3; i++)
		xdr_put_u32(&f->rq.x, w[i]);
	xdr_put_opaque(&f->rq.x, vals, len);
	req_op(&f->rq, OP_GETFH); /* runs only if op succeeded */
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	if (name)
		assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	assert_int_equal(f->rp.n, (name ? 4u : 3u) + (st == NFS4_OK));
	return st;
}

/* Attributes whose value may change between two calls without anything
 * done to the file (the file system's free counts). */
static const unsigned volatile_attrs[] = {
	FATTR4_FILES_AVAIL, FATTR4_FILES_FREE, FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE,
	FATTR4_TIME_ACCESS,
};

static void supported(struct fx *f, uint32_t w[3])
{
	struct attrs sa;
	uint32_t m[3] = { W0(FATTR4_SUPPORTED_ATTRS), 0, 0 };
	getattr(f, NULL, m, &sa);
	struct xdr_in in;
	xdr_in_init(&in, sa.v, sa.len);
	uint32_t n = xdr_get_u32(&in);
	w[0] = w[1] = w[2] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = xdr_get_u32(&in);
		if (i < 3)
			w[i] = v;
	}
	assert_false(in.bad);
}

static void test_verify_every_attribute(void **state)
{
	struct fx *f = *state;
	mkfile(f, "a", "some data\n");
	uint32_t w[3];
	supported(f, w);
	/* everything GETATTR answers but the write-only attributes,
	 * rdattr_error (READDIR's) and what moves by itself */
	w[0] &= ~W0(FATTR4_RDATTR_ERROR);
	w[1] &= ~(W1(FATTR4_TIME_ACCESS_SET) | W1(FATTR4_TIME_MODIFY_SET));
	for (size_t i = 0; i < sizeof(volatile_attrs) / sizeof(volatile_attrs[0]); i++)
		w[volatile_attrs[i] / 32] &= ~(1u << (volatile_attrs[i] % 32));
	const char *names[] = { "a", NULL };
	for (int k = 0; k < 2; k++) {
		struct attrs at;
		getattr(f, names[k], w, &at);
		assert_memory_equal(at.w, w, sizeof(at.w)); /* all of them answered */
		assert_int_equal(verify(f, OP_VERIFY, names[k], w, at.v, at.len), NFS4_OK);
		assert_int_equal(verify(f, OP_NVERIFY, names[k], w, at.v, at.len), NFS4ERR_SAME);
		/* any byte changed: not the same */
		for (uint32_t b = 0; b < at.len; b += 3) {
			at.v[b] ^= 0x40;
			assert_int_equal(verify(f, OP_VERIFY, names[k], w, at.v, at.len),
					 NFS4ERR_NOT_SAME);
			assert_int_equal(verify(f, OP_NVERIFY, names[k], w, at.v, at.len), NFS4_OK);
			at.v[b] ^= 0x40;
		}
		/* one value too few or one word too many: not the same */
		assert_int_equal(verify(f, OP_VERIFY, names[k], w, at.v, at.len - 4),
				 NFS4ERR_NOT_SAME);
		memset(at.v + at.len, 0, 4);
		assert_int_equal(verify(f, OP_VERIFY, names[k], w, at.v, at.len + 4),
				 NFS4ERR_NOT_SAME);
	}
	/* each attribute alone, against its GETATTR value */
	for (unsigned bit = 0; bit < 96; bit++) {
		uint32_t one[3] = { 0, 0, 0 };
		one[bit / 32] = 1u << (bit % 32);
		if (!(w[bit / 32] & one[bit / 32]))
			continue;
		struct attrs at;
		getattr(f, "a", one, &at);
		assert_int_equal(verify(f, OP_VERIFY, "a", one, at.v, at.len), NFS4_OK);
		assert_int_equal(verify(f, OP_NVERIFY, "a", one, at.v, at.len), NFS4ERR_SAME);
	}
}

static void test_verify_size_changes(void **state)
{
	struct fx *f = *state;
	mkfile(f, "a", "12345678");
	uint32_t w[3] = { W0(FATTR4_TYPE) | W0(FATTR4_SIZE), W1(FATTR4_MODE), 0 };
	uint8_t v[20];
	struct xdr_out x;
	xdr_out_init(&x, v, sizeof(v));
	xdr_put_u32(&x, NF4REG);
	xdr_put_u64(&x, 8);
	xdr_put_u32(&x, 0644);
	char path[160];
	snprintf(path, sizeof(path), "%s/a", f->dir);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(verify(f, OP_VERIFY, "a", w, v, 16), NFS4_OK);
	assert_int_equal(verify(f, OP_NVERIFY, "a", w, v, 16), NFS4ERR_SAME);
	assert_int_equal(truncate(path, 9), 0);
	assert_int_equal(verify(f, OP_VERIFY, "a", w, v, 16), NFS4ERR_NOT_SAME);
	assert_int_equal(verify(f, OP_NVERIFY, "a", w, v, 16), NFS4_OK);
	/* the empty set of attributes is the same */
	uint32_t none[3] = { 0, 0, 0 };
	assert_int_equal(verify(f, OP_VERIFY, "a", none, v, 0), NFS4_OK);
}

static void test_verify_refusals(void **state)
{
	struct fx *f = *state;
	mkfile(f, "a", "x");
	uint32_t w[3];
	supported(f, w);
	uint8_t v[64];
	memset(v, 0, sizeof(v));
	/* every attribute number the server does not support */
	for (unsigned bit = 0; bit < 96; bit++) {
		uint32_t one[3] = { 0, 0, 0 };
		one[bit / 32] = 1u << (bit % 32);
		if (w[bit / 32] & one[bit / 32])
			continue;
		assert_int_equal(verify(f, OP_VERIFY, "a", one, v, 8), NFS4ERR_ATTRNOTSUPP);
		assert_int_equal(verify(f, OP_NVERIFY, "a", one, v, 8), NFS4ERR_ATTRNOTSUPP);
	}
	/* rdattr_error and the write-only attributes */
	const unsigned inval[] = { FATTR4_RDATTR_ERROR, FATTR4_TIME_ACCESS_SET,
				   FATTR4_TIME_MODIFY_SET };
	for (size_t i = 0; i < 3; i++) {
		uint32_t one[3] = { 0, 0, 0 };
		one[inval[i] / 32] = 1u << (inval[i] % 32);
		assert_true(w[inval[i] / 32] & one[inval[i] / 32]);
		assert_int_equal(verify(f, OP_VERIFY, "a", one, v, 4), NFS4ERR_INVAL);
		assert_int_equal(verify(f, OP_NVERIFY, "a", one, v, 4), NFS4ERR_INVAL);
	}
	/* a bit past the third word */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_VERIFY);
	xdr_put_u32(&f->rq.x, 4);
	for (int i = 0; i < 3; i++)
		xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_opaque(&f->rq.x, v, 4);
	assert_int_equal(fx_call(f), NFS4ERR_ATTRNOTSUPP);
	/* without a file handle */
	fx_seq(f);
	req_op(&f->rq, OP_NVERIFY);
	put_bitmap(&f->rq.x, 0, 0, 0);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4ERR_NOFILEHANDLE);
}

/* The results the op hook checked against their estimates. */
static void test_estimates_checked(void **state)
{
	(void)state;
	assert_true(ops_checked_ok[OP_VERIFY]);
	assert_true(ops_checked_ok[OP_NVERIFY]);
	assert_true(ops_checked_ok[OP_PUTPUBFH]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fh_change_clears_current_stateid, setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_open_restorefh_keep_current_stateid, setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_verify_every_attribute, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_verify_size_changes, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_verify_refusals, setup, fx_teardown),
		cmocka_unit_test(test_estimates_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
