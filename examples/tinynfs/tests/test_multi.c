/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several exports served under the pseudo file system (server.h): the walk
 * from PUTROOTFH to each export, pseudo-node attributes and READDIR, the
 * junctions (export roots with their own fsid), LOOKUPP back out, the
 * refusals on pseudo nodes, NFS4ERR_XDEV across exports, per-export
 * read-only and squashing, handles that survive a restart with the
 * exports file reordered, and nested exports refused.  The op hook checks
 * every result against its estimate.
 */
#include "nfstest.h"

#include <errno.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

/* Exports <dir>/a (rw, no_root_squash) and <dir>/b (ro, all_squash), in
 * that order or the other. */
static int start(struct fx *f, bool b_first)
{
	char a[160], b[160], text[400];
	snprintf(a, sizeof(a), "%s/a rw,no_root_squash\n", f->dir);
	snprintf(b, sizeof(b), "%s/b ro,all_squash,anonuid=4242,anongid=4243\n", f->dir);
	snprintf(text, sizeof(text), "%s%s", b_first ? b : a, b_first ? a : b);
	char err[128];
	tnfs_exports_free(&f->exports);
	if (tnfs_exports_parse("test", text, strlen(text), &f->exports, err, sizeof(err)) != 0)
		return -1;
	static const uint8_t boot[8] = { 1, 2, 3, 4, 5, 6, 7, 9 };
	struct tnfs_server_opts o = {
		.size = sizeof(o),
		.exports = &f->exports,
		.boot_verifier = boot,
		.op_hook = fx_op_hook,
		.hook_arg = &f->est,
	};
	return tnfs_server_new(&o, &f->srv);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	strcpy(f->dir, "/tmp/tinynfs-multi-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(chmod(f->dir, 0755), 0);
	char p[160];
	snprintf(p, sizeof(p), "%s/a", f->dir);
	assert_int_equal(mkdir(p, 0777), 0);
	assert_int_equal(chmod(p, 0777), 0);
	snprintf(p, sizeof(p), "%s/b", f->dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/b/hello", f->dir);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fputs("hello\n", fp);
	fclose(fp);
	assert_int_equal(start(f, false), 0);
	f->rp.buf = malloc(BUFSZ);
	assert_non_null(f->rp.buf);
	f->minor = 1;
	*state = f;
	return 0;
}

/* The components of f->dir ("tmp", "tinynfs-multi-XXXXXX"). */
static void put_lookups(struct fx *f)
{
	char d[64];
	strcpy(d, f->dir);
	for (char *s = strtok(d, "/"); s; s = strtok(NULL, "/")) {
		req_op(&f->rq, OP_LOOKUP);
		put_str(&f->rq.x, s);
	}
}

static void skip_lookups(struct fx *f)
{
	for (int i = 0; i < 2; i++)
		assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
}

struct attrs {
	uint32_t type, mode;
	uint64_t fsid_major, fsid_minor, fileid, mounted_on;
};

#define MASK0 (W0(FATTR4_TYPE) | W0(FATTR4_FSID) | W0(FATTR4_FILEID))
#define MASK1 (W1(FATTR4_MODE) | W1(FATTR4_MOUNTED_ON_FILEID))

static void get_attrs(struct xdr_in *x, struct attrs *a)
{
	assert_int_equal(xdr_get_u32(x), 2);
	assert_int_equal(xdr_get_u32(x), MASK0);
	assert_int_equal(xdr_get_u32(x), MASK1);
	assert_int_equal(xdr_get_u32(x), 4 + 16 + 8 + 4 + 8);
	a->type = xdr_get_u32(x);
	a->fsid_major = xdr_get_u64(x);
	a->fsid_minor = xdr_get_u64(x);
	a->fileid = xdr_get_u64(x);
	a->mode = xdr_get_u32(x);
	a->mounted_on = xdr_get_u64(x);
	assert_false(x->bad);
}

static void req_getattr(struct fx *f)
{
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, MASK0, MASK1, 0);
}

/* GETFH + GETATTR results. */
static void fh_attrs(struct fx *f, struct fh *h, struct attrs *a)
{
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, h);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	get_attrs(&f->rp.x, a);
}

/* PUTFH h + one more operation (arguments by the caller): its status. */
static uint32_t on(struct fx *f, const struct fh *h, uint32_t op, void (*args)(struct fx *))
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, h);
	req_op(&f->rq, op);
	if (args)
		args(f);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	if (st == NFS4ERR_BADHANDLE || st == NFS4ERR_STALE) {
		assert_int_equal(rep_op(&f->rp, OP_PUTFH), st);
		return st;
	}
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	return st;
}

static void args_mkdir(struct fx *f)
{
	xdr_put_u32(&f->rq.x, NF4DIR);
	put_str(&f->rq.x, "made");
	put_bitmap(&f->rq.x, 0, 0, 0);
	xdr_put_u32(&f->rq.x, 0);
}

static void args_remove(struct fx *f)
{
	put_str(&f->rq.x, "a");
}

static void args_access(struct fx *f)
{
	xdr_put_u32(&f->rq.x, ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_DELETE);
}

static void args_secinfo_parent(struct fx *f)
{
	xdr_put_u32(&f->rq.x, SECINFO_STYLE4_PARENT);
}

static void args_read(struct fx *f)
{
	struct nfs4_stateid z = { 0 };
	put_stateid(&f->rq.x, &z);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 100);
}

static void args_range(struct fx *f)
{
	struct nfs4_stateid z = { 0 };
	put_stateid(&f->rq.x, &z);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 4096);
}

static void args_clone(struct fx *f)
{
	struct nfs4_stateid z = { 0 };
	put_stateid(&f->rq.x, &z);
	put_stateid(&f->rq.x, &z);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 10);
}

static void args_copy(struct fx *f)
{
	args_clone(f);
	xdr_put_bool(&f->rq.x, true);
	xdr_put_bool(&f->rq.x, true);
	xdr_put_u32(&f->rq.x, 0);
}

/* fattr4 { type = NF4DIR } */
static void args_type_dir(struct fx *f)
{
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE), 0, 0);
	xdr_put_u32(&f->rq.x, 4);
	xdr_put_u32(&f->rq.x, NF4DIR);
}

/* The walk: PUTROOTFH, a pseudo root; LOOKUP to <dir>, a pseudo
 * directory whose READDIR lists the two junctions; LOOKUP a and b give
 * the export roots, with the exports' fsid; LOOKUPP gets back out. */
static void walk(struct fx *f, struct fh *root, struct fh *dir, struct fh *ra, struct fh *rb)
{
	struct attrs at;
	struct stat st;
	assert_int_equal(stat(f->dir, &st), 0);

	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETFH);
	req_getattr(f);
	put_lookups(f);
	req_op(&f->rq, OP_GETFH);
	req_getattr(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	fh_attrs(f, root, &at);
	assert_int_equal(root->len, TNFS_PSEUDO_FH_LEN);
	assert_int_equal(root->d[0], TNFS_PSEUDO_FH_LAYOUT);
	assert_int_equal(at.type, NF4DIR);
	assert_int_equal(at.mode, 0555);
	assert_true(at.fsid_major == TNFS_PSEUDO_FSID_MAJOR);
	assert_true(at.fsid_minor == 0);
	uint64_t root_id = at.fileid;
	skip_lookups(f);
	fh_attrs(f, dir, &at);
	assert_int_equal(dir->d[0], TNFS_PSEUDO_FH_LAYOUT);
	assert_true(at.fsid_major == TNFS_PSEUDO_FSID_MAJOR);
	assert_true(at.fileid != root_id);
	uint64_t dir_id = at.fileid;

	/* READDIR of <dir>: a and b, with the export roots' attributes */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, dir);
	req_op(&f->rq, OP_READDIR);
	put_readdir(&f->rq.x, 0, 4096, 8192, MASK0, MASK1, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READDIR), NFS4_OK);
	uint8_t verf[8];
	xdr_get_fixed(&f->rp.x, verf, 8);
	const char *names[2] = { "a", "b" };
	uint64_t mounted[2];
	for (int i = 0; i < 2; i++) {
		assert_true(xdr_get_bool(&f->rp.x));
		assert_true(xdr_get_u64(&f->rp.x) == (uint64_t)i + 3);
		struct xdr_opaque nm = xdr_get_opaque(&f->rp.x, 255);
		assert_int_equal(nm.len, 1);
		assert_memory_equal(nm.data, names[i], 1);
		get_attrs(&f->rp.x, &at);
		char p[160];
		snprintf(p, sizeof(p), "%s/%s", f->dir, names[i]);
		assert_int_equal(stat(p, &st), 0);
		assert_true(at.fsid_major == major(st.st_dev));
		assert_true(at.fsid_minor == minor(st.st_dev));
		assert_true(at.fileid == (uint64_t)st.st_ino);
		assert_true(at.mounted_on != at.fileid);
		mounted[i] = at.mounted_on;
	}
	assert_false(xdr_get_bool(&f->rp.x));
	assert_true(xdr_get_bool(&f->rp.x)); /* eof */

	/* a READDIR from the last cookie: nothing, eof; a later one: bad */
	for (uint64_t ck = 4; ck <= 5; ck++) {
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, dir);
		req_op(&f->rq, OP_READDIR);
		put_readdir(&f->rq.x, ck, 4096, 8192, MASK0, 0, 0);
		assert_int_equal(fx_call(f), ck == 4 ? NFS4_OK : NFS4ERR_BAD_COOKIE);
	}

	/* into each export and back out with LOOKUPP */
	struct fh *roots[2] = { ra, rb };
	for (int i = 0; i < 2; i++) {
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, dir);
		req_op(&f->rq, OP_LOOKUP);
		put_str(&f->rq.x, names[i]);
		req_op(&f->rq, OP_GETFH);
		req_getattr(f);
		req_op(&f->rq, OP_LOOKUPP);
		req_op(&f->rq, OP_GETFH);
		req_getattr(f);
		assert_int_equal(fx_call(f), NFS4_OK);
		fx_seq_ok(f);
		assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
		assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
		fh_attrs(f, roots[i], &at);
		assert_int_equal(roots[i]->d[0], 1);
		assert_true(at.fsid_major != TNFS_PSEUDO_FSID_MAJOR);
		assert_true(at.mounted_on == mounted[i]);
		assert_int_equal(rep_op(&f->rp, OP_LOOKUPP), NFS4_OK);
		struct fh back;
		fh_attrs(f, &back, &at);
		assert_int_equal(back.len, dir->len);
		assert_memory_equal(back.d, dir->d, dir->len);
		assert_true(at.fileid == dir_id);
	}
	/* LOOKUPP of the pseudo root: NOENT */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUPP);
	assert_int_equal(fx_call(f), NFS4ERR_NOENT);
	/* LOOKUP of a name the tree lacks: NOENT */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "nosuch");
	assert_int_equal(fx_call(f), NFS4ERR_NOENT);
}

#define SPACE0 (W0(FATTR4_FILES_AVAIL) | W0(FATTR4_FILES_FREE) | W0(FATTR4_FILES_TOTAL))
#define SPACE1 (W1(FATTR4_SPACE_AVAIL) | W1(FATTR4_SPACE_FREE) | W1(FATTR4_SPACE_TOTAL))

static void args_space(struct fx *f)
{
	put_bitmap(&f->rq.x, SPACE0, SPACE1, 0);
}

/* files_avail, files_free, files_total, space_avail, space_free,
 * space_total of h; all six must be returned. */
static void space_of(struct fx *f, const struct fh *h, uint64_t v[6])
{
	assert_int_equal(on(f, h, OP_GETATTR, args_space), NFS4_OK);
	uint32_t w[3];
	struct xdr_opaque al = get_fattr(&f->rp.x, w);
	assert_int_equal(w[0], SPACE0);
	assert_int_equal(w[1], SPACE1);
	assert_int_equal(al.len, 6 * 8);
	struct xdr_in av;
	xdr_in_init(&av, al.data, al.len);
	for (int i = 0; i < 6; i++)
		v[i] = xdr_get_u64(&av);
	assert_false(av.bad);
}

/* Pseudo directories are a file system that holds nothing (df of the
 * pseudo root shows zeros); an export root has its file system's. */
static void test_pseudo_space(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root, dir, ra, rb;
	walk(f, &root, &dir, &ra, &rb);
	uint64_t v[6];
	space_of(f, &root, v);
	for (int i = 0; i < 6; i++)
		assert_true(v[i] == 0);
	space_of(f, &dir, v);
	for (int i = 0; i < 6; i++)
		assert_true(v[i] == 0);
	space_of(f, &ra, v);
	struct statvfs vfs;
	char p[160];
	snprintf(p, sizeof(p), "%s/a", f->dir);
	assert_int_equal(statvfs(p, &vfs), 0);
	assert_true(v[2] == vfs.f_files);
	assert_true(v[5] == (uint64_t)vfs.f_blocks * vfs.f_frsize);
	assert_true(v[5] > 0);
}

static void test_walk_and_refusals(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root, dir, ra, rb;
	walk(f, &root, &dir, &ra, &rb);

	/* pseudo nodes are read-only directories */
	assert_int_equal(on(f, &dir, OP_CREATE, args_mkdir), NFS4ERR_ROFS);
	assert_int_equal(on(f, &dir, OP_REMOVE, args_remove), NFS4ERR_ROFS);
	assert_int_equal(on(f, &dir, OP_READLINK, NULL), NFS4ERR_INVAL);
	assert_int_equal(on(f, &dir, OP_READ, args_read), NFS4ERR_ISDIR);
	/* the 4.2 operations that write are read-only there too (NOTSUPP
	 * would make the Linux client give them up for the whole server);
	 * VERIFY compares the pseudo node's attributes */
	f->minor = 2;
	assert_int_equal(on(f, &dir, OP_ALLOCATE, args_range), NFS4ERR_ROFS);
	assert_int_equal(on(f, &dir, OP_DEALLOCATE, args_range), NFS4ERR_ROFS);
	assert_int_equal(on(f, &dir, OP_COPY, args_copy), NFS4ERR_ROFS);
	assert_int_equal(on(f, &dir, OP_CLONE, args_clone), NFS4ERR_ROFS);
	f->minor = 1;
	assert_int_equal(on(f, &dir, OP_VERIFY, args_type_dir), NFS4_OK);
	assert_int_equal(on(f, &dir, OP_NVERIFY, args_type_dir), NFS4ERR_SAME);
	assert_int_equal(on(f, &dir, OP_ACCESS, args_access), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x),
			 ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_DELETE);
	assert_int_equal(xdr_get_u32(&f->rp.x), ACCESS4_READ | ACCESS4_LOOKUP);
	/* SECINFO_NO_NAME parent: the pseudo root has none, an export root has */
	assert_int_equal(on(f, &root, OP_SECINFO_NO_NAME, args_secinfo_parent), NFS4ERR_NOENT);
	assert_int_equal(on(f, &ra, OP_SECINFO_NO_NAME, args_secinfo_parent), NFS4_OK);

	/* each export as its options say: a is rw, b ro */
	assert_int_equal(on(f, &ra, OP_CREATE, args_mkdir), NFS4_OK);
	char p[160];
	struct stat st;
	snprintf(p, sizeof(p), "%s/a/made", f->dir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 0); /* no_root_squash */
	assert_int_equal(on(f, &rb, OP_CREATE, args_mkdir), NFS4ERR_ROFS);
	/* b squashes everyone to 4242: ACCESS asks the kernel as that user
	 * (b is 0755 root: no MODIFY even if b were rw) */
	assert_int_equal(on(f, &rb, OP_ACCESS, args_access), NFS4_OK);
	(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), ACCESS4_READ | ACCESS4_LOOKUP);

	/* and reading in b works as the squashed user */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &rb);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_READ, false, 0, "hello");
	req_op(&f->rq, OP_ACCESS);
	xdr_put_u32(&f->rq.x, ACCESS4_READ | ACCESS4_MODIFY);
	req_op(&f->rq, OP_READ);
	put_stateid(&f->rq.x, &(struct nfs4_stateid){ .seqid = 1 });
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 100);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_OPEN), NFS4_OK);
	struct nfs4_stateid osid;
	get_stateid(&f->rp.x, &osid);
	for (int i = 0; i < 6; i++) /* cinfo, rflags */
		(void)xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0, n = xdr_get_u32(&f->rp.x); i < n; i++) /* attrset */
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	assert_int_equal(rep_op(&f->rp, OP_ACCESS), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), ACCESS4_READ | ACCESS4_MODIFY);
	assert_int_equal(xdr_get_u32(&f->rp.x), ACCESS4_READ); /* ro: no MODIFY */

	/* RENAME and LINK across exports, or from a pseudo node: XDEV */
	for (int from_pseudo = 0; from_pseudo < 2; from_pseudo++) {
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, from_pseudo ? &dir : &rb);
		req_op(&f->rq, OP_SAVEFH);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, &ra);
		req_op(&f->rq, OP_RENAME);
		put_str(&f->rq.x, from_pseudo ? "a" : "hello");
		put_str(&f->rq.x, "moved");
		assert_int_equal(fx_call(f), NFS4ERR_XDEV);
	}
	/* SAVEFH of a pseudo node and RESTOREFH give it back */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &dir);
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &ra);
	req_op(&f->rq, OP_RESTOREFH);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
		if (i == 0)
			assert_int_equal(rep_op(&f->rp, OP_SAVEFH), NFS4_OK);
	}
	assert_int_equal(rep_op(&f->rp, OP_RESTOREFH), NFS4_OK);
	struct fh back;
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, &back);
	assert_memory_equal(back.d, dir.d, dir.len);

	/* handles of no node or export: STALE; of no layout: BADHANDLE */
	struct fh bad = dir;
	bad.d[11] ^= 1;
	assert_int_equal(on(f, &bad, OP_GETATTR, NULL), NFS4ERR_STALE);
	bad = ra;
	bad.d[3] ^= 1;
	assert_int_equal(on(f, &bad, OP_GETATTR, NULL), NFS4ERR_STALE);
	bad.d[0] = 9;
	assert_int_equal(on(f, &bad, OP_GETATTR, NULL), NFS4ERR_BADHANDLE);
}

/* Handles carry ids of the paths, not positions in the exports file. */
static void test_restart_reordered(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root, dir, ra, rb;
	walk(f, &root, &dir, &ra, &rb);
	tnfs_server_free(f->srv);
	f->srv = NULL;
	assert_int_equal(start(f, true), 0);
	fx_mount(f);
	struct fh r2, d2, a2, b2;
	walk(f, &r2, &d2, &a2, &b2);
	assert_memory_equal(root.d, r2.d, root.len);
	assert_memory_equal(dir.d, d2.d, dir.len);
	assert_int_equal(ra.len, a2.len);
	assert_memory_equal(ra.d, a2.d, ra.len);
	assert_memory_equal(rb.d, b2.d, rb.len);
	assert_int_equal(on(f, &ra, OP_CREATE, args_mkdir), NFS4_OK);
}

/* Exports one inside another cannot make a tree: the server refuses. */
static void test_nested_refused(void **state)
{
	struct fx *f = *state;
	char text[400];
	snprintf(text, sizeof(text), "%s/a rw\n%s/a/in rw\n", f->dir, f->dir);
	char p[160];
	snprintf(p, sizeof(p), "%s/a/in", f->dir);
	assert_int_equal(mkdir(p, 0755), 0);
	struct tnfs_exports ex = { 0 };
	char err[128];
	assert_int_equal(tnfs_exports_parse("t", text, strlen(text), &ex, err, sizeof(err)), 0);
	struct tnfs_server_opts o = { .size = sizeof(o), .exports = &ex };
	struct tnfs_server *s = NULL;
	assert_int_equal(tnfs_server_new(&o, &s), -EINVAL);
	assert_null(s);
	tnfs_exports_free(&ex);
	/* the fixture's own server still answers (teardown wants a checked op) */
	fx_mount(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk_and_refusals, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_pseudo_space, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_restart_reordered, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_nested_refused, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
