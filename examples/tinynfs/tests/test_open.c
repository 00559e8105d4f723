/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * OPEN variants and the operations around open state: exclusive creates
 * and their retransmission, GUARDED4, CLAIM_FH, CLAIM_PREVIOUS, share
 * reservations, OPEN_DOWNGRADE, OPENMODE checks, special stateids, SEEK
 * (4.2), COMMIT on a directory, and I/O as a squashed user.  The op hook
 * checks every result against its estimate.
 */
#include "nfstest.h"

#include <errno.h>
#include <pthread.h>

static int setup(void **state)
{
	*state = fx_new("*(rw,no_root_squash)");
	return 0;
}

struct open_args {
	const char *owner, *name;
	uint32_t access, deny;
	uint32_t opentype, createmode, claim;
	const char *verf; /* 8 bytes */
	bool with_mode;
	uint32_t mode;
};

/* SEQUENCE, PUTROOTFH (or the given fh), OPEN, GETFH; returns the OPEN
 * status and, on success, its stateid, attrset word 1 and the handle. */
static uint32_t open_x(struct fx *f, const struct fh *start, const struct open_args *o,
		       struct nfs4_stateid *sid, uint32_t *attrset1, struct fh *h)
{
	fx_seq(f);
	if (start) {
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, start);
	} else {
		req_op(&f->rq, OP_PUTROOTFH);
	}
	req_op(&f->rq, OP_OPEN);
	struct xdr_out *x = &f->rq.x;
	xdr_put_u32(x, 0);
	xdr_put_u32(x, o->access);
	xdr_put_u32(x, o->deny);
	xdr_put_u64(x, f->clientid);
	put_str(x, o->owner);
	xdr_put_u32(x, o->opentype);
	if (o->opentype == OPEN4_CREATE) {
		xdr_put_u32(x, o->createmode);
		if (o->createmode == EXCLUSIVE4 || o->createmode == EXCLUSIVE4_1)
			xdr_put_fixed(x, o->verf, 8);
		if (o->createmode != EXCLUSIVE4) {
			if (o->with_mode) {
				put_bitmap(x, 0, W1(FATTR4_MODE), 0);
				xdr_put_u32(x, 4);
				xdr_put_u32(x, o->mode);
			} else {
				put_bitmap(x, 0, 0, 0);
				xdr_put_u32(x, 0);
			}
		}
	}
	xdr_put_u32(x, o->claim);
	if (o->claim == CLAIM_NULL)
		put_str(x, o->name);
	if (o->claim == CLAIM_PREVIOUS)
		xdr_put_u32(x, 0);
	req_op(&f->rq, OP_GETFH);
	fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, start ? OP_PUTFH : OP_PUTROOTFH), NFS4_OK);
	uint32_t st = rep_op(&f->rp, OP_OPEN);
	if (st != NFS4_OK)
		return st;
	get_stateid(&f->rp.x, sid);
	for (int i = 0; i < 5; i++)
		(void)xdr_get_u32(&f->rp.x); /* cinfo */
	(void)xdr_get_u32(&f->rp.x);	     /* rflags */
	uint32_t n = xdr_get_u32(&f->rp.x), w[3] = { 0 };
	for (uint32_t i = 0; i < n; i++)
		w[i < 3 ? i : 2] = xdr_get_u32(&f->rp.x);
	if (attrset1)
		*attrset1 = w[1];
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, h);
	return NFS4_OK;
}

static uint32_t io(struct fx *f, const struct fh *fh, uint32_t op,
		   const struct nfs4_stateid *sid, uint64_t off, const char *data)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, op);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, off);
	if (op == OP_WRITE) {
		xdr_put_u32(&f->rq.x, FILE_SYNC4);
		put_str(&f->rq.x, data);
	} else {
		xdr_put_u32(&f->rq.x, 64);
	}
	return fx_call(f);
}

static void test_exclusive(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct nfs4_stateid sid, sid2;
	struct fh fh, fh2;
	uint32_t as1;
	struct open_args o = { "own", "ex", OPEN4_SHARE_ACCESS_BOTH, 0, OPEN4_CREATE,
			       EXCLUSIVE4_1, CLAIM_NULL, "verf0001", true, 0600 };
	assert_int_equal(open_x(f, NULL, &o, &sid, &as1, &fh), NFS4_OK);
	/* the verifier lives in the times: the client must set them */
	assert_int_equal(as1, W1(FATTR4_MODE) | W1(FATTR4_TIME_ACCESS) | W1(FATTR4_TIME_MODIFY));
	char path[160];
	snprintf(path, sizeof(path), "%s/ex", f->dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* retransmission with the same verifier: success, same file */
	assert_int_equal(open_x(f, NULL, &o, &sid2, NULL, &fh2), NFS4_OK);
	assert_int_equal(fh2.len, fh.len);
	assert_memory_equal(fh2.d, fh.d, fh.len);
	assert_int_equal(sid2.seqid, 2); /* same open, upgraded */
	assert_memory_equal(sid2.other, sid.other, 12);
	/* another verifier: EXIST */
	o.verf = "verf0002";
	assert_int_equal(open_x(f, NULL, &o, &sid2, NULL, &fh2), NFS4ERR_EXIST);
	/* EXCLUSIVE4 (4.0 style, no attributes) works too */
	o.createmode = EXCLUSIVE4;
	o.name = "ex4";
	assert_int_equal(open_x(f, NULL, &o, &sid2, NULL, &fh2), NFS4_OK);
	/* GUARDED4 on an existing name: EXIST */
	o.createmode = GUARDED4;
	assert_int_equal(open_x(f, NULL, &o, &sid2, NULL, &fh2), NFS4ERR_EXIST);
	/* EXCLUSIVE4_1 with a time attribute is not allowed */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 3);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, f->clientid);
	put_str(&f->rq.x, "own");
	xdr_put_u32(&f->rq.x, OPEN4_CREATE);
	xdr_put_u32(&f->rq.x, EXCLUSIVE4_1);
	xdr_put_fixed(&f->rq.x, "verf0003", 8);
	put_bitmap(&f->rq.x, 0, W1(FATTR4_TIME_MODIFY_SET), 0);
	xdr_put_u32(&f->rq.x, 4);
	xdr_put_u32(&f->rq.x, SET_TO_SERVER_TIME4);
	xdr_put_u32(&f->rq.x, CLAIM_NULL);
	put_str(&f->rq.x, "ex5");
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
}

static void test_claims_and_types(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	char path[160];
	snprintf(path, sizeof(path), "%s/dir", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sl", f->dir);
	assert_int_equal(symlink("dir", path), 0);
	snprintf(path, sizeof(path), "%s/ff", f->dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	struct nfs4_stateid sid;
	struct fh fh;
	struct open_args o = { "own", "dir", OPEN4_SHARE_ACCESS_READ, 0, OPEN4_NOCREATE,
			       0, CLAIM_NULL, NULL, false, 0 };
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4ERR_ISDIR);
	o.name = "sl";
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4ERR_SYMLINK);
	o.name = "ff";
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4ERR_WRONG_TYPE);
	o.name = "missing";
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4ERR_NOENT);
	/* a create through a symlinked name does not follow it */
	o.opentype = OPEN4_CREATE;
	o.createmode = UNCHECKED4;
	o.name = "sl";
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4ERR_SYMLINK);
	/* reclaims: no grace period, ever */
	o.opentype = OPEN4_NOCREATE;
	o.claim = CLAIM_PREVIOUS;
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4ERR_NO_GRACE);
	/* CLAIM_FH opens the current file handle */
	o.claim = CLAIM_NULL;
	o.opentype = OPEN4_CREATE;
	o.name = "plain";
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4_OK);
	struct open_args byfh = { "other", NULL, OPEN4_SHARE_ACCESS_READ, 0, OPEN4_NOCREATE,
				  0, CLAIM_FH, NULL, false, 0 };
	struct nfs4_stateid sid2;
	struct fh fh2;
	assert_int_equal(open_x(f, &fh, &byfh, &sid2, NULL, &fh2), NFS4_OK);
	assert_memory_not_equal(sid2.other, sid.other, 12);
	/* bad share values */
	o.access = 0;
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh2), NFS4ERR_INVAL);
	o.access = 1;
	o.deny = 4;
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh2), NFS4ERR_INVAL);
}

static void test_share_and_downgrade(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct nfs4_stateid a, b;
	struct fh fh, fh2;
	struct open_args o = { "A", "sh", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_BOTH & 2,
			       OPEN4_CREATE, UNCHECKED4, CLAIM_NULL, NULL, false, 0 };
	assert_int_equal(open_x(f, NULL, &o, &a, NULL, &fh), NFS4_OK);
	/* A denies writers: B may read but not write */
	struct open_args ob = { "B", "sh", OPEN4_SHARE_ACCESS_WRITE, 0, OPEN4_NOCREATE,
				0, CLAIM_NULL, NULL, false, 0 };
	assert_int_equal(open_x(f, NULL, &ob, &b, NULL, &fh2), NFS4ERR_SHARE_DENIED);
	ob.access = OPEN4_SHARE_ACCESS_READ;
	assert_int_equal(open_x(f, NULL, &ob, &b, NULL, &fh2), NFS4_OK);
	/* B's open is read-only: WRITE through it is OPENMODE */
	assert_int_equal(io(f, &fh, OP_WRITE, &b, 0, "x"), NFS4ERR_OPENMODE);
	assert_int_equal(io(f, &fh, OP_WRITE, &a, 0, "data"), NFS4_OK);
	assert_int_equal(io(f, &fh, OP_READ, &b, 0, NULL), NFS4_OK);
	/* A downgrades to read, deny none; then B can open for write */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_OPEN_DOWNGRADE);
	put_stateid(&f->rq.x, &a);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, OPEN4_SHARE_ACCESS_READ);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_OPEN_DOWNGRADE), NFS4_OK);
	struct nfs4_stateid a2;
	get_stateid(&f->rp.x, &a2);
	assert_int_equal(a2.seqid, a.seqid + 1);
	/* the old seqid is now OLD_STATEID; a wider "downgrade" is INVAL */
	assert_int_equal(io(f, &fh, OP_READ, &a, 0, NULL), NFS4ERR_OLD_STATEID);
	assert_int_equal(io(f, &fh, OP_WRITE, &a2, 0, "x"), NFS4ERR_OPENMODE);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_OPEN_DOWNGRADE);
	put_stateid(&f->rq.x, &a2);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, OPEN4_SHARE_ACCESS_BOTH);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
	ob.access = OPEN4_SHARE_ACCESS_WRITE;
	assert_int_equal(open_x(f, NULL, &ob, &b, NULL, &fh2), NFS4_OK);
	/* a stateid used on another file: BAD_STATEID */
	struct open_args oc = { "A", "other", OPEN4_SHARE_ACCESS_BOTH, 0, OPEN4_CREATE,
				UNCHECKED4, CLAIM_NULL, NULL, false, 0 };
	struct nfs4_stateid c;
	struct fh fhc;
	assert_int_equal(open_x(f, NULL, &oc, &c, NULL, &fhc), NFS4_OK);
	assert_int_equal(io(f, &fhc, OP_READ, &a2, 0, NULL), NFS4ERR_BAD_STATEID);
	/* the anonymous stateid reads and writes as the caller */
	struct nfs4_stateid zero = { 0, { 0 } };
	assert_int_equal(io(f, &fhc, OP_WRITE, &zero, 3, "anon"), NFS4_OK);
	assert_int_equal(io(f, &fhc, OP_READ, &zero, 0, NULL), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READ), NFS4_OK);
	assert_true(xdr_get_bool(&f->rp.x));
	struct xdr_opaque d = xdr_get_opaque(&f->rp.x, 64);
	assert_int_equal(d.len, 7);
	assert_memory_equal(d.data, "\0\0\0anon", 7);
	/* READ/WRITE of a directory */
	struct fh root;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETFH);
	fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, &root);
	assert_int_equal(io(f, &root, OP_READ, &zero, 0, NULL), NFS4ERR_ISDIR);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_COMMIT);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4ERR_ISDIR);
}

static void test_seek(void **state)
{
	struct fx *f = *state;
	f->minor = 2;
	fx_mount(f);
	char path[160];
	snprintf(path, sizeof(path), "%s/sparse", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "x", 1, 1 << 20), 1); /* hole, then data */
	close(fd);
	struct nfs4_stateid zero = { 0, { 0 } };
	uint64_t found[2];
	for (uint32_t what = 0; what < 2; what++) {
		fx_seq(f);
		req_op(&f->rq, OP_PUTROOTFH);
		req_op(&f->rq, OP_LOOKUP);
		put_str(&f->rq.x, "sparse");
		req_op(&f->rq, OP_SEEK);
		put_stateid(&f->rq.x, &zero);
		xdr_put_u64(&f->rq.x, 0);
		xdr_put_u32(&f->rq.x, what);
		assert_int_equal(fx_call(f), NFS4_OK);
		fx_seq_ok(f);
		assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
		assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
		assert_int_equal(rep_op(&f->rp, OP_SEEK), NFS4_OK);
		assert_false(xdr_get_bool(&f->rp.x));
		found[what] = xdr_get_u64(&f->rp.x);
	}
	/* data starts in the last block; a hole at 0 (if the file system
	 * keeps holes, else both are 0 and the data one is too) */
	assert_true(found[NFS4_CONTENT_DATA] <= (1 << 20));
	assert_int_equal(found[NFS4_CONTENT_HOLE], 0);
	/* past the end: NXIO */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "sparse");
	req_op(&f->rq, OP_SEEK);
	put_stateid(&f->rq.x, &zero);
	xdr_put_u64(&f->rq.x, 10 << 20);
	xdr_put_u32(&f->rq.x, NFS4_CONTENT_DATA);
	assert_int_equal(fx_call(f), NFS4ERR_NXIO);
}

static void test_squashed_io(void **state)
{
	(void)state;
	struct fx *f = fx_new("*(rw,all_squash,anonuid=4242,anongid=4343)");
	fx_mount(f);
	char path[160];
	snprintf(path, sizeof(path), "%s/u", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chown(path, 4242, 4343), 0);
	snprintf(path, sizeof(path), "%s/secret", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	struct nfs4_stateid sid;
	struct fh fh, dir;
	struct open_args o = { "o", "secret", OPEN4_SHARE_ACCESS_READ, 0, OPEN4_NOCREATE,
			       0, CLAIM_NULL, NULL, false, 0 };
	/* root's 0600 file: the squashed user may not open it */
	assert_int_equal(open_x(f, NULL, &o, &sid, NULL, &fh), NFS4ERR_ACCESS);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "u");
	req_op(&f->rq, OP_GETFH);
	fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, &dir);
	o.name = "mine";
	o.opentype = OPEN4_CREATE;
	o.createmode = UNCHECKED4;
	o.access = OPEN4_SHARE_ACCESS_BOTH;
	assert_int_equal(open_x(f, &dir, &o, &sid, NULL, &fh), NFS4_OK);
	assert_int_equal(io(f, &fh, OP_WRITE, &sid, 0, "squashed"), NFS4_OK);
	struct nfs4_stateid zero = { 0, { 0 } };
	assert_int_equal(io(f, &fh, OP_READ, &zero, 0, NULL), NFS4_OK);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_COMMIT);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	snprintf(path, sizeof(path), "%s/u/mine", f->dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 4242);
	assert_int_equal(st.st_gid, 4343);
	assert_int_equal(st.st_size, 8);
	/* chown to root is refused to the squashed user */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_SETATTR);
	put_stateid(&f->rq.x, &zero);
	put_bitmap(&f->rq.x, 0, W1(FATTR4_OWNER), 0);
	xdr_put_u32(&f->rq.x, 8);
	put_str(&f->rq.x, "0");
	assert_int_equal(fx_call(f), NFS4ERR_PERM);
	/* a non-numeric owner: BADOWNER */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_SETATTR);
	put_stateid(&f->rq.x, &zero);
	put_bitmap(&f->rq.x, 0, W1(FATTR4_OWNER), 0);
	xdr_put_u32(&f->rq.x, 12);
	put_str(&f->rq.x, "bob@x");
	assert_int_equal(fx_call(f), NFS4ERR_BADOWNER);
	assert_int_equal(f->est.violations, 0);
	fx_free(f);
}

/* Threads share one server and one session (a slot each), each acting as
 * another user: the per-thread credentials must never leak across. */
enum { THREADS = 4, ROUNDS = 60 };

struct worker {
	struct fx *f;
	int id;
	uint32_t failures;
	uint8_t *rep;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct tnfs_cred cred = { .uid = 1000 + (uint32_t)w->id, .gid = 2000 + (uint32_t)w->id };
	uint32_t seq = 0;
	struct req rq = { 0 };
	for (int r = 0; r < ROUNDS; r++) {
		req_begin(&rq, 1);
		struct xdr_out *x = &rq.x;
		req_op(&rq, OP_SEQUENCE);
		xdr_put_fixed(x, w->f->sessionid, 16);
		xdr_put_u32(x, ++seq);
		xdr_put_u32(x, 1 + (uint32_t)w->id);
		xdr_put_u32(x, THREADS);
		xdr_put_bool(x, false);
		req_op(&rq, OP_PUTROOTFH);
		req_op(&rq, OP_OPEN);
		xdr_put_u32(x, 0);
		xdr_put_u32(x, OPEN4_SHARE_ACCESS_BOTH);
		xdr_put_u32(x, 0);
		xdr_put_u64(x, w->f->clientid);
		char owner[16], name[32];
		snprintf(owner, sizeof(owner), "t%d", w->id);
		snprintf(name, sizeof(name), "t%d-r%d", w->id, r);
		put_str(x, owner);
		xdr_put_u32(x, OPEN4_CREATE);
		xdr_put_u32(x, GUARDED4);
		put_bitmap(x, 0, 0, 0);
		xdr_put_u32(x, 0);
		xdr_put_u32(x, CLAIM_NULL);
		put_str(x, name);
		static const uint8_t zero12[12];
		req_op(&rq, OP_WRITE);
		xdr_put_u32(x, 1); /* the current stateid */
		xdr_put_fixed(x, zero12, 12);
		xdr_put_u64(x, 0);
		xdr_put_u32(x, UNSTABLE4);
		put_str(x, name);
		req_op(&rq, OP_CLOSE);
		xdr_put_u32(x, 0);
		xdr_put_u32(x, 1);
		xdr_put_fixed(x, zero12, 12);
		size_t len;
		if (tnfs_compound(w->f->srv, &cred, rq.buf, req_len(&rq), w->rep,
				  65536, &len, NULL, NULL) != 0 || len < 4 || w->rep[0] | w->rep[1] | w->rep[2] | w->rep[3])
			w->failures++;
	}
	free(rq.buf);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	struct fx *f = fx_new("*(rw,no_root_squash)");
	assert_int_equal(chmod(f->dir, 0777), 0);
	fx_mount(f);
	struct worker w[THREADS];
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ f, i, 0, malloc(65536) };
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].failures, 0);
		free(w[i].rep);
	}
	for (int i = 0; i < THREADS; i++)
		for (int r = 0; r < ROUNDS; r++) {
			char path[160];
			snprintf(path, sizeof(path), "%s/t%d-r%d", f->dir, i, r);
			struct stat st;
			assert_int_equal(stat(path, &st), 0);
			assert_int_equal(st.st_uid, 1000 + (unsigned)i);
			assert_int_equal(st.st_gid, 2000 + (unsigned)i);
			assert_int_equal(st.st_size, (off_t)strlen(path + strlen(f->dir) + 1));
		}
	assert_int_equal(f->est.violations, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exclusive, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_claims_and_types, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_share_and_downgrade, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_seek, setup, fx_teardown),
		cmocka_unit_test(test_squashed_io),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
