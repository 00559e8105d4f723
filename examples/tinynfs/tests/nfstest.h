/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test helpers: a tiny NFSv4.1 client-side encoder for COMPOUND requests,
 * a reply walker, and a fixture that serves a fresh temporary directory.
 * Header-only; each test program includes it once.
 */
#ifndef TINYNFS_TEST_H
#define TINYNFS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compound.h"
#include "nfs4/nfs4.h"
#include "server.h"
#include "xdr.h"

#define BUFSZ (1u << 21)

/* --- request builder ---------------------------------------------------- */

struct req {
	uint8_t *buf;
	struct xdr_out x;
	uint8_t *nops_at;
	uint32_t nops;
};

static inline void req_begin(struct req *r, uint32_t minor)
{
	if (!r->buf)
		r->buf = malloc(BUFSZ);
	assert_non_null(r->buf);
	xdr_out_init(&r->x, r->buf, BUFSZ);
	xdr_put_opaque(&r->x, "t", 1);
	xdr_put_u32(&r->x, minor);
	r->nops_at = xdr_reserve(&r->x, 4);
	xdr_wr32(r->nops_at, 0);
	r->nops = 0;
}

static inline void req_op(struct req *r, uint32_t op)
{
	xdr_put_u32(&r->x, op);
	r->nops++;
	xdr_wr32(r->nops_at, r->nops);
}

static inline size_t req_len(const struct req *r)
{
	return (size_t)(r->x.p - r->buf);
}

static inline void put_str(struct xdr_out *x, const char *s)
{
	xdr_put_opaque(x, s, (uint32_t)strlen(s));
}

static inline void put_bitmap(struct xdr_out *x, uint32_t w0, uint32_t w1, uint32_t w2)
{
	uint32_t n = w2 ? 3 : w1 ? 2 : 1;
	xdr_put_u32(x, n);
	xdr_put_u32(x, w0);
	if (n > 1)
		xdr_put_u32(x, w1);
	if (n > 2)
		xdr_put_u32(x, w2);
}

static inline void put_stateid(struct xdr_out *x, const struct nfs4_stateid *s)
{
	xdr_put_u32(x, s->seqid);
	xdr_put_fixed(x, s->other, 12);
}

#define W0(a) (1u << (a))
#define W1(a) (1u << ((a) - 32))
#define W2(a) (1u << ((a) - 64))

/* --- reply walker ---------------------------------------------------------- */

struct rep {
	uint8_t *buf;
	size_t len;
	struct xdr_in x;
	uint32_t status, n;
};

/* Starts walking; returns the COMPOUND status. */
static inline uint32_t rep_begin(struct rep *p)
{
	xdr_in_init(&p->x, p->buf, p->len);
	p->status = xdr_get_u32(&p->x);
	(void)xdr_get_opaque(&p->x, 1024);
	p->n = xdr_get_u32(&p->x);
	assert_false(p->x.bad);
	return p->status;
}

/* Next result: checks its resop, returns its status. */
static inline uint32_t rep_op(struct rep *p, uint32_t op)
{
	uint32_t resop = xdr_get_u32(&p->x);
	uint32_t st = xdr_get_u32(&p->x);
	assert_false(p->x.bad);
	assert_int_equal(resop, op);
	return st;
}

static inline void get_stateid(struct xdr_in *x, struct nfs4_stateid *s)
{
	s->seqid = xdr_get_u32(x);
	xdr_get_fixed(x, s->other, 12);
}

/* --- fixture ---------------------------------------------------------------- */

struct est_rec {
	unsigned checked, violations;
	uint32_t bad_op;
	size_t bad_est, bad_act;
	unsigned setattr_steps[3];
	struct tnfs_sattr step2;
};

struct fx {
	char dir[64];
	struct tnfs_exports exports;
	struct tnfs_server *srv;
	struct est_rec est;
	struct req rq;
	struct rep rp;
	struct tnfs_cred cred;
	uint64_t clientid;
	uint8_t sessionid[16];
	uint32_t slot_seq;
	uint32_t minor;
	bool inode_handles;
	/* NULL: calls go to f->srv in-process; else this sends the built
	 * request (f->rq) and fills f->rp.buf/len (test_server.c: over TCP to
	 * a tinynfs process) */
	void (*call)(struct fx *f);
	void *call_arg;
	/* the READ data range tnfs_compound() reported for the last in-process
	 * call (0, 0 when none, and always with f->call) */
	size_t bulk_off, bulk_len;
	/* in-process calls: the RPC header bytes around the COMPOUND, as
	 * tnfs_compound_rpc() takes them (0, 0: the COMPOUND alone) */
	size_t rpc_req_hdr, rpc_rep_hdr;
};

/* Operations whose estimate was checked against a real result, per test
 * program (status OK, or DENIED whose LOCK4denied body is the largest).
 * A program of several files defines TNFS_OPS_CHECKED_EXTERN in each and
 * the array in one. */
#ifdef TNFS_OPS_CHECKED_EXTERN
extern bool ops_checked_ok[NFS4_OP_MAX_42 + 1];
#else
static bool ops_checked_ok[NFS4_OP_MAX_42 + 1];
#endif

static inline void fx_op_hook(void *arg, uint32_t op, uint32_t status, size_t est, size_t act)
{
	if ((status == NFS4_OK || status == NFS4ERR_DENIED) && op <= NFS4_OP_MAX_42)
		ops_checked_ok[op] = true;
	struct est_rec *e = arg;
	e->checked++;
	if (act > est) {
		e->violations++;
		e->bad_op = op;
		e->bad_est = est;
		e->bad_act = act;
	}
}

static inline void fx_setattr_hook(void *arg, int step, const struct tnfs_sattr *what)
{
	struct est_rec *e = arg;
	e->setattr_steps[step]++;
	if (step == 2)
		e->step2 = *what;
}

static inline int rm_cb(const char *p, const struct stat *sb, int f, struct FTW *w)
{
	(void)sb, (void)f, (void)w;
	return remove(p);
}

static inline void fx_rmtree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static inline int fx_start_opts(struct fx *f, const char *options, const uint8_t boot[8])
{
	char text[256];
	snprintf(text, sizeof(text), "%s %s\n", f->dir, options);
	char err[128];
	if (tnfs_exports_parse("test", text, strlen(text), &f->exports, err, sizeof(err)) != 0)
		return -1;
	struct tnfs_server_opts o = {
		.size = sizeof(o),
		.exports = &f->exports,
		.boot_verifier = boot,
		.setattr_hook = fx_setattr_hook,
		.op_hook = fx_op_hook,
		.hook_arg = &f->est,
		.inode_handles = f->inode_handles,
	};
	return tnfs_server_new(&o, &f->srv);
}

static inline struct fx *fx_new_opts(const char *options, bool inode_handles)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->inode_handles = inode_handles;
	assert_non_null(f);
	strcpy(f->dir, "/tmp/tinynfs-test-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(chmod(f->dir, 0755), 0);
	static const uint8_t boot[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	assert_int_equal(fx_start_opts(f, options, boot), 0);
	f->rp.buf = malloc(BUFSZ);
	assert_non_null(f->rp.buf);
	f->minor = 1;
	return f;
}

static inline struct fx *fx_new(const char *options)
{
	return fx_new_opts(options, false);
}

static inline void fx_free(struct fx *f)
{
	tnfs_server_free(f->srv);
	tnfs_exports_free(&f->exports);
	fx_rmtree(f->dir);
	free(f->rq.buf);
	free(f->rp.buf);
	free(f);
}

/* cmocka teardown for fixtures made by fx_new() (or set up alike): no
 * result exceeded its estimate, and at least one was checked. */
static inline int fx_teardown(void **state)
{
	struct fx *f = *state;
	if (f->est.violations)
		print_error("op %u: estimate %zu < reply %zu\n", f->est.bad_op,
			    f->est.bad_est, f->est.bad_act);
	assert_int_equal(f->est.violations, 0);
	assert_true(f->est.checked > 0);
	fx_free(f);
	return 0;
}

/* Sends the built request; returns the COMPOUND status (walker ready). */
static inline uint32_t fx_call(struct fx *f)
{
	f->bulk_off = f->bulk_len = 0;
	if (f->call) {
		f->call(f);
		return rep_begin(&f->rp);
	}
	int rc = tnfs_compound_rpc(f->srv, &f->cred, f->rq.buf, req_len(&f->rq), f->rpc_req_hdr,
				   f->rpc_rep_hdr, f->rp.buf, BUFSZ, &f->rp.len, &f->bulk_off,
				   &f->bulk_len);
	assert_int_equal(rc, 0);
	return rep_begin(&f->rp);
}

static inline void fx_begin(struct fx *f)
{
	req_begin(&f->rq, f->minor);
}

/* Starts a request with SEQUENCE on slot 0, sa_cachethis as given (the
 * reply is then kept in the slot cache); fx_seq_ok() skips its result. */
static inline void fx_seq_cache(struct fx *f, bool cachethis)
{
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	xdr_put_u32(&f->rq.x, ++f->slot_seq);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_bool(&f->rq.x, cachethis);
}

/* The same without sa_cachethis. */
static inline void fx_seq(struct fx *f)
{
	fx_seq_cache(f, false);
}

static inline void fx_seq_ok(struct fx *f)
{
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4_OK);
	uint8_t sid[16];
	xdr_get_fixed(&f->rp.x, sid, 16);
	assert_memory_equal(sid, f->sessionid, 16);
	assert_int_equal(xdr_get_u32(&f->rp.x), f->slot_seq);
	for (int i = 0; i < 4; i++)
		(void)xdr_get_u32(&f->rp.x);
}

static inline void put_exchange_id(struct xdr_out *x, const char *owner, uint64_t verf)
{
	xdr_put_u64(x, verf);
	put_str(x, owner);
	xdr_put_u32(x, 0);	  /* flags */
	xdr_put_u32(x, SP4_NONE); /* state protection */
	xdr_put_u32(x, 0);	  /* no impl id */
}

static inline void put_chan(struct xdr_out *x, uint32_t maxreqs)
{
	xdr_put_u32(x, 0);	   /* headerpadsize */
	xdr_put_u32(x, 1049620);   /* maxrequestsize */
	xdr_put_u32(x, 1049480);   /* maxresponsesize */
	xdr_put_u32(x, 7584);	   /* maxresponsesize_cached */
	xdr_put_u32(x, 16);	   /* maxoperations */
	xdr_put_u32(x, maxreqs);   /* maxrequests */
	xdr_put_u32(x, 0);	   /* rdma_ird<> */
}

static inline void put_create_session(struct xdr_out *x, uint64_t clientid, uint32_t seq)
{
	xdr_put_u64(x, clientid);
	xdr_put_u32(x, seq);
	/* no back channel: over TCP the server would call back on the
	 * connection (callback.h), and these clients serve no callbacks */
	xdr_put_u32(x, 0);
	put_chan(x, 64);
	put_chan(x, 16);
	xdr_put_u32(x, 0x40000000); /* cb_program */
	xdr_put_u32(x, 1);	    /* one callback sec parm: AUTH_NONE */
	xdr_put_u32(x, AUTH_NONE);
}

/* EXCHANGE_ID as client `owner` with verifier verf, checked: sets
 * f->clientid and returns the sequence id; the rest of the result (from
 * eir_flags on) is next in f->rp.x. */
static inline uint32_t fx_exchange_id(struct fx *f, const char *owner, uint64_t verf)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, owner, verf);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), NFS4_OK);
	f->clientid = xdr_get_u64(&f->rp.x);
	return xdr_get_u32(&f->rp.x);
}

/* EXCHANGE_ID + CREATE_SESSION + RECLAIM_COMPLETE as client `owner`,
 * checked; the fixture then speaks for that client. */
static inline void fx_mount_as(struct fx *f, const char *owner)
{
	uint32_t seq = fx_exchange_id(f, owner, 0x1122334455667788ull);
	uint32_t flags = xdr_get_u32(&f->rp.x);
	assert_int_equal(flags & EXCHGID4_FLAG_CONFIRMED_R, 0);
	assert_int_equal(flags & EXCHGID4_FLAG_USE_NON_PNFS, EXCHGID4_FLAG_USE_NON_PNFS);
	assert_int_equal(xdr_get_u32(&f->rp.x), SP4_NONE);

	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, f->clientid, seq);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), NFS4_OK);
	xdr_get_fixed(&f->rp.x, f->sessionid, 16);
	assert_int_equal(xdr_get_u32(&f->rp.x), seq);
	assert_int_equal(xdr_get_u32(&f->rp.x), 0); /* no back channel, no persist, no rdma */
	f->slot_seq = 0;

	fx_seq(f);
	req_op(&f->rq, OP_RECLAIM_COMPLETE);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_RECLAIM_COMPLETE), NFS4_OK);
}

static inline void fx_mount(struct fx *f)
{
	fx_mount_as(f, "Linux NFSv4.1 testclient");
}

/* Who the fixture speaks for (to switch between clients). */
struct fx_client {
	uint64_t clientid;
	uint8_t sessionid[16];
	uint32_t slot_seq;
};

static inline void fx_save(const struct fx *f, struct fx_client *c)
{
	c->clientid = f->clientid;
	memcpy(c->sessionid, f->sessionid, 16);
	c->slot_seq = f->slot_seq;
}

static inline void fx_use(struct fx *f, const struct fx_client *c)
{
	f->clientid = c->clientid;
	memcpy(f->sessionid, c->sessionid, 16);
	f->slot_seq = c->slot_seq;
}

/* Encoded file handle from a GETFH result. */
struct fh {
	uint32_t len;
	uint8_t d[128];
};

static inline void get_fh(struct xdr_in *x, struct fh *h)
{
	struct xdr_opaque o = xdr_get_opaque(x, 128);
	assert_false(x->bad);
	h->len = o.len;
	memcpy(h->d, o.data, o.len);
}

static inline void put_fh(struct xdr_out *x, const struct fh *h)
{
	xdr_put_opaque(x, h->d, h->len);
}

/* OPEN4args: seqid 0, DENY_NONE, CLAIM_NULL of `name`; with `create`,
 * UNCHECKED4 with the given mode. */
static inline void put_open(struct xdr_out *x, const char *owner, uint32_t access,
			    bool create, uint32_t mode, const char *name)
{
	xdr_put_u32(x, 0); /* seqid */
	xdr_put_u32(x, access);
	xdr_put_u32(x, OPEN4_SHARE_DENY_NONE);
	xdr_put_u64(x, 0); /* clientid (ignored in 4.1) */
	put_str(x, owner);
	if (create) {
		xdr_put_u32(x, OPEN4_CREATE);
		xdr_put_u32(x, UNCHECKED4);
		put_bitmap(x, 0, W1(FATTR4_MODE), 0);
		xdr_put_u32(x, 4);
		xdr_put_u32(x, mode);
	} else {
		xdr_put_u32(x, OPEN4_NOCREATE);
	}
	xdr_put_u32(x, CLAIM_NULL);
	put_str(x, name);
}

/* After OPEN's NFS4_OK: the OPEN4resok up to its delegation, which must
 * be none; the stateid to *sid (cinfo, rflags and attrset skipped). */
static inline void get_open_resok(struct xdr_in *x, struct nfs4_stateid *sid)
{
	get_stateid(x, sid);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(x); /* cinfo, rflags */
	uint32_t n = xdr_get_u32(x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(x); /* attrset */
	assert_int_equal(xdr_get_u32(x), OPEN_DELEGATE_NONE);
}

/* GETFH's result, which must be NFS4_OK, to *h. */
static inline void fx_getfh_after(struct fx *f, struct fh *h)
{
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, h);
}

/* SEQUENCE, PUTROOTFH, (LOOKUP name unless NULL), GETFH: all must work. */
static inline void fx_fh_of(struct fx *f, const char *name, struct fh *h)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	if (name) {
		req_op(&f->rq, OP_LOOKUP);
		put_str(&f->rq.x, name);
	}
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	if (name)
		assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	fx_getfh_after(f, h);
}

/* SEQUENCE, PUTROOTFH, OPEN (put_open's arguments), GETFH.  Returns
 * OPEN's status (the COMPOUND's too), and on NFS4_OK *sid and *h.
 * PUTROOTFH must succeed; unless root_st: then its status goes there,
 * and is returned when it failed. */
static inline uint32_t fx_open_root(struct fx *f, const char *owner, uint32_t access,
				    bool create, uint32_t mode, const char *name,
				    struct nfs4_stateid *sid, struct fh *h, uint32_t *root_st)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, owner, access, create, mode, name);
	req_op(&f->rq, OP_GETFH);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	uint32_t rs = rep_op(&f->rp, OP_PUTROOTFH);
	if (root_st)
		*root_st = rs;
	if (root_st && rs != NFS4_OK)
		return rs;
	assert_int_equal(rs, NFS4_OK);
	uint32_t os = rep_op(&f->rp, OP_OPEN);
	assert_int_equal(os, st);
	if (os != NFS4_OK)
		return os;
	get_open_resok(&f->rp.x, sid);
	fx_getfh_after(f, h);
	return NFS4_OK;
}

/* The fixture's client OPENs files "flood-0", "flood-1", ... through
 * open_fn until one is refused, which must come before `max`; returns how
 * many it opened, the refusal's status in *st. */
static inline unsigned fx_open_flood(struct fx *f,
				     uint32_t (*open_fn)(struct fx *, const char *,
							 struct nfs4_stateid *, struct fh *),
				     unsigned max, uint32_t *st)
{
	struct nfs4_stateid sid;
	struct fh fh;
	char name[32];
	unsigned n = 0;
	for (;; n++) {
		assert_true(n < max);
		snprintf(name, sizeof(name), "flood-%u", n);
		*st = open_fn(f, name, &sid, &fh);
		if (*st != NFS4_OK)
			return n;
	}
}

/* SEQUENCE, PUTFH fh, LOCK (reclaim false) of type over [off, off + len);
 * with new_owner, open_to_lock_owner from the open stateid sid (seqids 0,
 * lock owner `owner` of the fixture's client), else exist_lock_owner with
 * the lock stateid sid (seqid 0).  Returns LOCK's status, *out on NFS4_OK. */
static inline uint32_t fx_lock(struct fx *f, const struct fh *fh, uint32_t type, uint64_t off,
			       uint64_t len, bool new_owner, const struct nfs4_stateid *sid,
			       const char *owner, struct nfs4_stateid *out)
{
	struct xdr_out *x = &f->rq.x;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(x, fh);
	req_op(&f->rq, OP_LOCK);
	xdr_put_u32(x, type);
	xdr_put_bool(x, false);
	xdr_put_u64(x, off);
	xdr_put_u64(x, len);
	xdr_put_bool(x, new_owner);
	if (new_owner) {
		xdr_put_u32(x, 0);
		put_stateid(x, sid);
		xdr_put_u32(x, 0);
		xdr_put_u64(x, f->clientid);
		put_str(x, owner);
	} else {
		put_stateid(x, sid);
		xdr_put_u32(x, 0);
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOCK), st);
	if (st == NFS4_OK)
		get_stateid(&f->rp.x, out);
	return st;
}

/* Starts a request of SEQUENCE, PUTFH fh, LOCKU of type over [off, off +
 * len) with the lock stateid sid (seqid 0); the caller may add operations
 * before fx_call. */
static inline void fx_locku_req(struct fx *f, const struct fh *fh, uint32_t type,
				const struct nfs4_stateid *sid, uint64_t off, uint64_t len)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_LOCKU);
	xdr_put_u32(&f->rq.x, type);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, off);
	xdr_put_u64(&f->rq.x, len);
}

/* SEQUENCE, PUTFH fh, CLOSE (seqid 0) of sid; returns the COMPOUND's
 * status, the reply not yet read. */
static inline uint32_t fx_close(struct fx *f, const struct fh *fh, const struct nfs4_stateid *sid)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_CLOSE);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, sid);
	return fx_call(f);
}

/* READDIR4args from `cookie` with a zero cookieverf. */
static inline void put_readdir(struct xdr_out *x, uint64_t cookie, uint32_t dircount,
			       uint32_t maxcount, uint32_t w0, uint32_t w1, uint32_t w2)
{
	xdr_put_u64(x, cookie);
	xdr_put_u64(x, 0);
	xdr_put_u32(x, dircount);
	xdr_put_u32(x, maxcount);
	put_bitmap(x, w0, w1, w2);
}

/* Skips a fattr4 and returns the attrlist (pointer into the reply). */
static inline struct xdr_opaque get_fattr(struct xdr_in *x, uint32_t w[3])
{
	w[0] = w[1] = w[2] = 0;
	uint32_t n = xdr_get_u32(x);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = xdr_get_u32(x);
		if (i < 3)
			w[i] = v;
	}
	return xdr_get_opaque(x, UINT32_MAX);
}

#endif
