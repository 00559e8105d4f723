/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Conformance found under attack (issue #23, item 5).
 *
 * Names: a component longer than 255 bytes is NFS4ERR_NAMETOOLONG, for
 * every operation that takes one (LOOKUP, CREATE, OPEN, REMOVE, RENAME's
 * two names, LINK, SECINFO), not a decoding error; lengths 256 to 64 KiB.
 * SECINFO itself: the flavours of a name that exists, consuming the
 * current file handle.
 *
 * Handles: the export reports unique_handles, so a handle is accepted in
 * exactly one byte form.  Variants of real handles (of a file, of the
 * root, of a directory the handle cache holds; for both handle layouts):
 * trailing bytes, one byte short, padded to NFS4_FHSIZE, another handle
 * type, another layout byte, another export id, are each refused with
 * NFS4ERR_BADHANDLE or NFS4ERR_STALE; the canonical form still works.
 */
#include "nfstest.h"

/* An empty file `name` in the export, made directly (kept if there). */
static void touch(struct fx *f, const char *name)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
}

/* A mounted fixture of rw,no_root_squash whose export holds "file". */
static struct fx *fx_with_file(bool inode_handles)
{
	struct fx *f = fx_new_opts("*(rw,no_root_squash)", inode_handles);
	fx_mount(f);
	touch(f, "file");
	return f;
}

/* --- names ------------------------------------------------------------------ */

static uint8_t *long_name(uint32_t len)
{
	uint8_t *n = malloc(len);
	assert_non_null(n);
	memset(n, 'n', len);
	return n;
}

/* SEQUENCE, PUTROOTFH, then the op with its name(s) of len bytes;
 * returns the op's status. */
static uint32_t named_op(struct fx *f, uint32_t op, uint32_t len, int which)
{
	uint8_t *name = long_name(len);
	struct xdr_out *x = &f->rq.x;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	if (op == OP_LINK) {
		req_op(&f->rq, OP_LOOKUP);
		put_str(x, "file");
		req_op(&f->rq, OP_SAVEFH);
		req_op(&f->rq, OP_PUTROOTFH);
	}
	if (op == OP_RENAME)
		req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, op);
	switch (op) {
	case OP_CREATE:
		xdr_put_u32(x, NF4DIR);
		xdr_put_opaque(x, name, len);
		put_bitmap(x, 0, 0, 0);
		xdr_put_u32(x, 0);
		break;
	case OP_OPEN:
		xdr_put_u32(x, 0);
		xdr_put_u32(x, OPEN4_SHARE_ACCESS_BOTH);
		xdr_put_u32(x, OPEN4_SHARE_DENY_NONE);
		xdr_put_u64(x, f->clientid);
		put_str(x, "owner");
		if (which) {
			xdr_put_u32(x, OPEN4_CREATE);
			xdr_put_u32(x, UNCHECKED4);
			put_bitmap(x, 0, 0, 0);
			xdr_put_u32(x, 0);
		} else {
			xdr_put_u32(x, OPEN4_NOCREATE);
		}
		xdr_put_u32(x, CLAIM_NULL);
		xdr_put_opaque(x, name, len);
		break;
	case OP_RENAME:
		if (which)
			put_str(x, "file");
		else
			xdr_put_opaque(x, name, len);
		if (which)
			xdr_put_opaque(x, name, len);
		else
			put_str(x, "other");
		break;
	default: /* LOOKUP, REMOVE, LINK, SECINFO */
		xdr_put_opaque(x, name, len);
		break;
	}
	free(name);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	if (op == OP_LINK) {
		assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
		assert_int_equal(rep_op(&f->rp, OP_SAVEFH), NFS4_OK);
		assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	}
	if (op == OP_RENAME)
		assert_int_equal(rep_op(&f->rp, OP_SAVEFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	return st;
}

static void test_long_names(void **state)
{
	(void)state;
	struct fx *f = fx_with_file(false);
	static const uint32_t lens[] = { 256, 257, 300, 1024, 4096, 65536 };
	static const struct {
		uint32_t op;
		int which;
	} ops[] = {
		{ OP_LOOKUP, 0 }, { OP_CREATE, 0 }, { OP_OPEN, 0 }, { OP_OPEN, 1 },
		{ OP_REMOVE, 0 }, { OP_RENAME, 0 }, { OP_RENAME, 1 }, { OP_LINK, 0 },
		{ OP_SECINFO, 0 },
	};
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		/* "file" for LINK and RENAME (a 255-byte RENAME moves it) */
		touch(f, "file");
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			uint32_t st = named_op(f, ops[o].op, lens[l], ops[o].which);
			if (st != NFS4ERR_NAMETOOLONG)
				print_error("op %u (%d), name of %u bytes: status %u\n", ops[o].op,
					    ops[o].which, lens[l], st);
			assert_int_equal(st, NFS4ERR_NAMETOOLONG);
		}
		/* 255 bytes is a name: decoded and looked at */
		assert_int_not_equal(named_op(f, ops[o].op, 255, ops[o].which), NFS4ERR_NAMETOOLONG);
	}
	fx_teardown((void **)&f);
}

/* SECINFO: AUTH_SYS for a name that exists, the current fh consumed;
 * NOENT for one that does not, NOTDIR from a file. */
static void test_secinfo(void **state)
{
	(void)state;
	struct fx *f = fx_with_file(false);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SECINFO);
	put_str(&f->rq.x, "file");
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4ERR_NOFILEHANDLE);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SECINFO), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), AUTH_SYS);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4ERR_NOFILEHANDLE);
	assert_int_equal(named_op(f, OP_SECINFO, 7, 0), NFS4ERR_NOENT);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "file");
	req_op(&f->rq, OP_SECINFO);
	put_str(&f->rq.x, "x");
	assert_int_equal(fx_call(f), NFS4ERR_NOTDIR);
	fx_teardown((void **)&f);
}

/* The pseudo tree's LOOKUP and SECINFO check names the same way: a
 * server of two exports, a/ and b/ under the fixture's directory. */
static void test_long_names_pseudo(void **state)
{
	(void)state;
	struct fx *f = fx_new("*(rw,no_root_squash)");
	tnfs_server_free(f->srv);
	tnfs_exports_free(&f->exports);
	char text[400], err[128];
	snprintf(text, sizeof(text), "%s/a rw\n%s/b rw\n", f->dir, f->dir);
	for (int i = 0; i < 2; i++) {
		char p[160];
		snprintf(p, sizeof(p), "%s/%c", f->dir, "ab"[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	assert_int_equal(tnfs_exports_parse("test", text, strlen(text), &f->exports, err,
					    sizeof(err)), 0);
	static const uint8_t boot[8] = { 1, 2, 3, 4, 5, 6, 7, 10 };
	struct tnfs_server_opts o = {
		.size = sizeof(o), .exports = &f->exports, .boot_verifier = boot,
		.op_hook = fx_op_hook, .hook_arg = &f->est,
	};
	assert_int_equal(tnfs_server_new(&o, &f->srv), 0);
	fx_mount(f);
	for (uint32_t len = 256; len <= 4096; len *= 4) {
		assert_int_equal(named_op(f, OP_LOOKUP, len, 0), NFS4ERR_NAMETOOLONG);
		assert_int_equal(named_op(f, OP_SECINFO, len, 0), NFS4ERR_NAMETOOLONG);
	}
	assert_int_equal(named_op(f, OP_LOOKUP, 255, 0), NFS4ERR_NOENT);
	assert_int_equal(named_op(f, OP_SECINFO, 255, 0), NFS4ERR_NOENT);
	fx_teardown((void **)&f);
}

/* --- handles -------------------------------------------------------------- */

/* PUTFH h, GETATTR type; returns PUTFH's status (GETATTR must work when
 * PUTFH did). */
static uint32_t putfh_status(struct fx *f, const struct fh *h)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, h);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE), 0, 0);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	uint32_t ps = rep_op(&f->rp, OP_PUTFH);
	if (ps == NFS4_OK)
		assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	else
		assert_int_equal(ps, st);
	return ps;
}

/* Every variant of h is refused; h itself is accepted. */
static void refuse_variants(struct fx *f, const struct fh *h, const char *what)
{
	assert_int_equal(putfh_status(f, h), NFS4_OK);
	struct fh v;
	unsigned tried = 0;
	for (int kind = 0; kind < 9; kind++) {
		v = *h;
		switch (kind) {
		case 0: case 1: case 2: case 3: /* 1, 2, 4, 8 trailing zero bytes */
			v.len += 1u << kind;
			memset(v.d + h->len, 0, 1u << kind);
			break;
		case 4: /* 4 trailing bytes of noise */
			v.len += 4;
			memcpy(v.d + h->len, "\x5a\xa5\x0f\xf0", 4);
			break;
		case 5: /* padded to NFS4_FHSIZE */
			v.len = NFS4_FHSIZE;
			memset(v.d + h->len, 0, NFS4_FHSIZE - h->len);
			break;
		case 6: /* one byte short */
			v.len--;
			break;
		case 7: /* another layout byte */
			v.d[0] ^= 0x80;
			break;
		case 8: /* another export id */
			v.d[3] ^= 1;
			break;
		}
		if (v.len > NFS4_FHSIZE)
			continue;
		uint32_t st = putfh_status(f, &v);
		if (st != NFS4ERR_BADHANDLE && st != NFS4ERR_STALE)
			print_error("%s, variant %d (%u bytes of %u): status %u\n", what, kind,
				    v.len, h->len, st);
		assert_true(st == NFS4ERR_BADHANDLE || st == NFS4ERR_STALE);
		tried++;
	}
	assert_true(tried >= 7);
	/* the canonical form still works, the cache unharmed */
	assert_int_equal(putfh_status(f, h), NFS4_OK);
}

static void handles_of(bool inode_handles)
{
	struct fx *f = fx_with_file(inode_handles);
	char path[160];
	snprintf(path, sizeof(path), "%s/sub", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	struct fh root, file, sub;
	fx_fh_of(f, NULL, &root);
	fx_fh_of(f, "file", &file);
	fx_fh_of(f, "sub", &sub);
	refuse_variants(f, &file, "file");
	refuse_variants(f, &root, "root");
	/* the directory is in the handle cache now (PUTFH of it worked) */
	assert_int_equal(putfh_status(f, &sub), NFS4_OK);
	refuse_variants(f, &sub, "cached directory");
	/* a handle type other than the file system's */
	if (!inode_handles) {
		struct fh v = file;
		v.d[7] ^= 0x40;
		uint32_t st = putfh_status(f, &v);
		assert_true(st == NFS4ERR_BADHANDLE || st == NFS4ERR_STALE);
	}
	fx_teardown((void **)&f);
}

static void test_handle_forms(void **state)
{
	(void)state;
	if (geteuid() != 0)
		print_message("not root: open_by_handle_at needs CAP_DAC_READ_SEARCH, "
			      "both runs use inode handles\n");
	handles_of(false);
}

static void test_handle_forms_inode(void **state)
{
	(void)state;
	handles_of(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_secinfo),
		cmocka_unit_test(test_long_names_pseudo),
		cmocka_unit_test(test_handle_forms),
		cmocka_unit_test(test_handle_forms_inode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
