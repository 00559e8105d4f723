/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The harness of the callback and delegation tests (test_deleg.c,
 * test_deleg_bc.c): the tinynfs program (argv[1]) on loopback TCP,
 * client A with a back channel serving the callback program (the small
 * handler below: CB_NULL; CB_COMPOUND of CB_SEQUENCE + CB_RECALL, whose
 * session, sequence ids, program and credential it records), client B
 * without one, and the operations the tests share; deleg_run, their
 * main().
 */
#ifndef TNFS_TEST_DELEG_ENV_H
#define TNFS_TEST_DELEG_ENV_H
#include "nfstest.h"
#include "tnfsproc.h"

#include <errno.h>
#include <fcntl.h>

#define CB_PROG 0x40000000u

static const char *tinynfs_path;

/* main()'s arguments: the tinynfs program; false (a usage line on
 * stderr) without it. */
static inline bool deleg_args(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TINYNFS\n", argv[0]);
		return false;
	}
	tinynfs_path = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return true;
}

/* main()'s body: runs the array `tests` with the tinynfs program of
 * argv[1]; 2 without it. */
#define deleg_run(argc, argv, tests) \
	(deleg_args(argc, argv) ? cmocka_run_group_tests(tests, NULL, NULL) : 2)

struct cl {
	struct fx *f;
	struct tnfsconn c;
	unsigned nnull, nrecall;
	struct nfs4_stateid recalled;
	struct fh recalled_fh;
	uint8_t cb_sid[16];
	uint32_t cb_seq, cb_prog, cb_flavor;
	bool garbage; /* answer CB_COMPOUND with a truncated result */
	unsigned ngetattr;	     /* CB_GETATTRs answered */
	uint64_t ga_change, ga_size; /* what CB_GETATTR answers */
	uint32_t ga_status;	     /* its status (NFS4_OK) */
	bool ga_asked_times;	     /* the last CB_GETATTR asked for the delegated times */
	bool ga_times;		     /* answer them (RFC 9754) when asked: */
	int64_t ga_atime, ga_mtime;  /* seconds (nseconds 0) */
	bool silent;  /* answer no callback at all */
	uint32_t rflags; /* of the last OPEN (open_file_why) */
};

struct env {
	struct tnfsproc p;
	struct cl a, b;
	bool stopped;
};

/* CB_GETATTR next in x: answered (change and size) after CB_SEQUENCE's
 * result; true if it was one. */
static inline bool cl_getattr(struct cl *cl, struct xdr_in *x, struct xdr_out *o)
{
	struct xdr_in peek = *x;
	if (xdr_get_u32(&peek) != OP_CB_GETATTR)
		return false;
	*x = peek;
	struct fh fh;
	get_fh(x, &fh);
	uint32_t nw = xdr_get_u32(x);
	assert_true(nw == 1 || nw == 3);
	assert_int_equal(xdr_get_u32(x), W0(FATTR4_CHANGE) | W0(FATTR4_SIZE));
	cl->ga_asked_times = nw == 3;
	if (nw == 3) { /* and time_deleg_access, time_deleg_modify */
		assert_int_equal(xdr_get_u32(x), 0);
		assert_int_equal(xdr_get_u32(x), W2(FATTR4_TIME_DELEG_ACCESS) | W2(FATTR4_TIME_DELEG_MODIFY));
	}
	assert_false(x->bad);
	bool times = cl->ga_asked_times && cl->ga_times;
	cl->ngetattr++;
	xdr_put_u32(o, cl->ga_status);
	xdr_put_u32(o, 0); /* tag */
	xdr_put_u32(o, 2);
	xdr_put_u32(o, OP_CB_SEQUENCE);
	xdr_put_u32(o, NFS4_OK);
	xdr_put_fixed(o, cl->cb_sid, 16);
	xdr_put_u32(o, cl->cb_seq);
	xdr_put_u32(o, 0);
	xdr_put_u32(o, 0);
	xdr_put_u32(o, 0);
	xdr_put_u32(o, OP_CB_GETATTR);
	xdr_put_u32(o, cl->ga_status);
	if (cl->ga_status == NFS4_OK) {
		xdr_put_u32(o, times ? 3 : 1);
		xdr_put_u32(o, W0(FATTR4_CHANGE) | W0(FATTR4_SIZE));
		if (times) {
			xdr_put_u32(o, 0);
			xdr_put_u32(o, W2(FATTR4_TIME_DELEG_ACCESS) | W2(FATTR4_TIME_DELEG_MODIFY));
		}
		xdr_put_u32(o, times ? 40 : 16);
		xdr_put_u64(o, cl->ga_change);
		xdr_put_u64(o, cl->ga_size);
		if (times) {
			xdr_put_u64(o, (uint64_t)cl->ga_atime);
			xdr_put_u32(o, 0);
			xdr_put_u64(o, (uint64_t)cl->ga_mtime);
			xdr_put_u32(o, 0);
		}
	}
	return true;
}

/* Answers the callback in c->rec (a CALL record): CB_RECALL, or
 * CB_GETATTR (cl_getattr). */
static inline void cl_callback(struct cl *cl)
{
	struct tnfsconn *c = &cl->c;
	struct xdr_in x;
	xdr_in_init(&x, c->rec, c->rec_len);
	uint32_t xid = xdr_get_u32(&x);
	assert_int_equal(xdr_get_u32(&x), 0); /* CALL */
	assert_int_equal(xdr_get_u32(&x), 2);
	cl->cb_prog = xdr_get_u32(&x);
	assert_int_equal(xdr_get_u32(&x), 1); /* NFS_CB version 1 */
	uint32_t proc = xdr_get_u32(&x);
	cl->cb_flavor = xdr_get_u32(&x);
	(void)xdr_get_opaque(&x, 400); /* credential body */
	(void)xdr_get_u32(&x);	       /* verifier */
	(void)xdr_get_opaque(&x, 400);
	assert_false(x.bad);
	uint8_t rep[512];
	struct xdr_out o;
	xdr_out_init(&o, rep, sizeof(rep));
	xdr_put_u32(&o, xid);
	xdr_put_u32(&o, 1); /* REPLY */
	xdr_put_u32(&o, 0); /* MSG_ACCEPTED */
	xdr_put_u32(&o, 0); /* verifier AUTH_NONE */
	xdr_put_u32(&o, 0);
	xdr_put_u32(&o, 0); /* SUCCESS */
	if (proc == 0) {
		cl->nnull++;
		if (cl->silent)
			return;
	} else {
		assert_int_equal(proc, 1);
		(void)xdr_get_opaque(&x, 64); /* tag */
		(void)xdr_get_u32(&x);	      /* minor version */
		(void)xdr_get_u32(&x);	      /* callback_ident */
		assert_int_equal(xdr_get_u32(&x), 2);
		assert_int_equal(xdr_get_u32(&x), OP_CB_SEQUENCE);
		xdr_get_fixed(&x, cl->cb_sid, 16);
		cl->cb_seq = xdr_get_u32(&x);
		assert_int_equal(xdr_get_u32(&x), 0); /* slot */
		assert_int_equal(xdr_get_u32(&x), 0); /* highest slot */
		(void)xdr_get_u32(&x);		      /* cachethis */
		assert_int_equal(xdr_get_u32(&x), 0); /* referring call lists */
		if (cl_getattr(cl, &x, &o)) {
			tnfsconn_send_record(c, rep, (size_t)(o.p - rep));
			return;
		}
		assert_int_equal(xdr_get_u32(&x), OP_CB_RECALL);
		get_stateid(&x, &cl->recalled);
		assert_int_equal(xdr_get_u32(&x), 0); /* truncate */
		get_fh(&x, &cl->recalled_fh);
		assert_false(x.bad);
		cl->nrecall++;
		if (cl->garbage) { /* a status, a tag length near 2^32, nothing more */
			xdr_put_u32(&o, NFS4_OK);
			xdr_put_u32(&o, 0xfffffffcu);
			tnfsconn_send_record(c, rep, (size_t)(o.p - rep));
			return;
		}
		xdr_put_u32(&o, NFS4_OK);
		xdr_put_u32(&o, 0); /* tag */
		xdr_put_u32(&o, 2);
		xdr_put_u32(&o, OP_CB_SEQUENCE);
		xdr_put_u32(&o, NFS4_OK);
		xdr_put_fixed(&o, cl->cb_sid, 16);
		xdr_put_u32(&o, cl->cb_seq);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, OP_CB_RECALL);
		xdr_put_u32(&o, NFS4_OK);
	}
	tnfsconn_send_record(c, rep, (size_t)(o.p - rep));
}

static inline bool is_call(const struct tnfsconn *c)
{
	return c->rec_len >= 8 && c->rec[4] == 0 && c->rec[5] == 0 && c->rec[6] == 0 &&
	       c->rec[7] == 0;
}

/* fx->call: the COMPOUND, answering callbacks until its reply. */
static inline void cl_fx_call(struct fx *f)
{
	struct cl *cl = f->call_arg;
	tnfsconn_send(&cl->c, 1, f->rq.buf, req_len(&f->rq));
	for (;;) {
		tnfsconn_recv_record(&cl->c);
		if (!is_call(&cl->c))
			break;
		cl_callback(cl);
	}
	struct xdr_in x;
	uint32_t lo, hi;
	assert_int_equal(tnfsconn_reply_hdr(&cl->c, &x, &lo, &hi), 0);
	size_t off = xdr_in_pos(&x);
	f->rp.len = cl->c.rec_len - off;
	memcpy(f->rp.buf, cl->c.rec + off, f->rp.len);
}

/* Serves callbacks until `count` reaches `want` (a liveness bound only). */
static inline void cl_wait(struct cl *cl, const unsigned *count, unsigned want)
{
	for (int i = 0; *count < want; i++) {
		assert_true(i < 64);
		struct pollfd p = { .fd = cl->c.fd, .events = POLLIN };
		if (poll(&p, 1, TNFSPROC_WAIT_S * 1000) != 1)
			fail_msg("no callback within %d s", TNFSPROC_WAIT_S);
		tnfsconn_recv_record(&cl->c);
		assert_true(is_call(&cl->c));
		cl_callback(cl);
	}
}

static inline void cl_open(struct cl *cl, const struct tnfsproc *p, const char *dir)
{
	memset(cl, 0, sizeof(*cl));
	cl->f = tnfsproc_fx_new("/tmp/tinynfs-dlg-XXXXXX");
	assert_int_equal(rmdir(cl->f->dir), 0);
	snprintf(cl->f->dir, sizeof(cl->f->dir), "%s", dir); /* the export */
	cl->f->call = cl_fx_call;
	cl->f->call_arg = cl;
	tnfsconn_open(&cl->c, p, 0, 0);
}

/* EXCHANGE_ID, CREATE_SESSION (with a back channel if back), and
 * RECLAIM_COMPLETE; with a back channel, the CB_NULL probe answered. */
static inline void cl_mount(struct cl *cl, const char *owner, bool back)
{
	struct fx *f = cl->f;
	uint32_t seq = fx_exchange_id(f, owner, 0x1122334455667788ull);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	xdr_put_u64(&f->rq.x, f->clientid);
	xdr_put_u32(&f->rq.x, seq);
	xdr_put_u32(&f->rq.x, back ? CREATE_SESSION4_FLAG_CONN_BACK_CHAN : 0);
	put_chan(&f->rq.x, 16);
	put_chan(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, CB_PROG);
	xdr_put_u32(&f->rq.x, 2); /* sec parms: RPCSEC_GSS (unusable), AUTH_NONE */
	xdr_put_u32(&f->rq.x, RPCSEC_GSS);
	xdr_put_u32(&f->rq.x, 1);
	put_str(&f->rq.x, "h");
	put_str(&f->rq.x, "h");
	xdr_put_u32(&f->rq.x, AUTH_NONE);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), NFS4_OK);
	xdr_get_fixed(&f->rp.x, f->sessionid, 16);
	assert_int_equal(xdr_get_u32(&f->rp.x), seq);
	assert_int_equal(xdr_get_u32(&f->rp.x), back ? CREATE_SESSION4_FLAG_CONN_BACK_CHAN : 0);
	f->slot_seq = 0;
	fx_seq(f);
	req_op(&f->rq, OP_RECLAIM_COMPLETE);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4_OK);
	if (back)
		cl_wait(cl, &cl->nnull, 1);
}

static inline void start(struct env *e, const char *const *more)
{
	char dir[] = "/tmp/tinynfs-dlg-XXXXXX";
	assert_non_null(mkdtemp(dir));
	tnfsproc_start_args(&e->p, tinynfs_path, dir, "rw,no_root_squash", more);
	bool silent = e->a.silent;
	cl_open(&e->a, &e->p, dir);
	cl_open(&e->b, &e->p, dir);
	e->a.silent = silent;
	cl_mount(&e->a, "client A", true);
	cl_mount(&e->b, "client B", false);
}

static inline int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	start(e, NULL);
	*state = e;
	return 0;
}

static inline int setup_revoke(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	static const char *const more[] = { "--recall-timeout", "1", NULL };
	start(e, more);
	*state = e;
	return 0;
}

static inline int setup_silent(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	e->a.silent = true;
	start(e, NULL);
	*state = e;
	return 0;
}

static inline int setup_nodeleg(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	static const char *const more[] = { "--no-delegations", NULL };
	start(e, more);
	*state = e;
	return 0;
}

/* Stops the server (once); its --stats lines stay in e->p.log. */
static inline void stop(struct env *e)
{
	if (e->stopped)
		return;
	e->stopped = true;
	tnfsconn_close(&e->a.c);
	tnfsconn_close(&e->b.c);
	tnfsproc_stop(&e->p);
	assert_non_null(strstr(e->p.log, "system_err 0,"));
	const char *l = strstr(e->p.log, "tinynfs: deleg_granted");
	assert_non_null(l);
	print_message("%.*s", (int)(strchr(l, '\n') - l + 1), l);
}

static inline void cl_free(struct cl *cl)
{
	free(cl->f->rq.buf);
	free(cl->f->rp.buf);
	free(cl->f);
}

static inline int teardown(void **state)
{
	struct env *e = *state;
	stop(e);
	fx_rmtree(e->a.f->dir);
	cl_free(&e->a);
	cl_free(&e->b);
	free(e);
	return 0;
}

/* The log's counter `name` (the --stats line at exit). */
static inline long counter(const struct env *e, const char *name)
{
	char key[64];
	snprintf(key, sizeof(key), "%s ", name);
	const char *p = strstr(e->p.log, key);
	return p ? atol(p + strlen(key)) : -1;
}

static inline void mkfile(const struct cl *cl, const char *name)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", cl->f->dir, name);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello", 5), 5);
	close(fd);
}

/* OPEN name (no create) with access (and want bits); returns the status,
 * and on NFS4_OK the open stateid, the delegation type (RFC 9754's too)
 * and its stateid or why none, the file handle. */
static inline uint32_t open_file_why(struct cl *cl, const char *owner, const char *name,
				     uint32_t access, struct nfs4_stateid *osid, uint32_t *dtype,
				     struct nfs4_stateid *dsid, struct fh *fh, uint32_t *why)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, owner, access, false, 0, name);
	req_op(&f->rq, OP_GETFH);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	if (rep_op(&f->rp, OP_OPEN) != NFS4_OK)
		return st;
	get_stateid(&f->rp.x, osid);
	for (int i = 0; i < 5; i++)
		(void)xdr_get_u32(&f->rp.x); /* cinfo */
	cl->rflags = xdr_get_u32(&f->rp.x);
	for (uint32_t n = xdr_get_u32(&f->rp.x); n > 0; n--)
		(void)xdr_get_u32(&f->rp.x); /* attrset */
	*dtype = xdr_get_u32(&f->rp.x);
	*why = UINT32_MAX;
	if (*dtype == OPEN_DELEGATE_NONE_EXT) {
		*why = xdr_get_u32(&f->rp.x);
		if (*why == WND4_CONTENTION || *why == WND4_RESOURCE)
			assert_int_equal(xdr_get_u32(&f->rp.x), 0); /* no push, no signal */
	}
	bool w = *dtype == OPEN_DELEGATE_WRITE || *dtype == OPEN_DELEGATE_WRITE_ATTRS_DELEG;
	if (w || *dtype == OPEN_DELEGATE_READ || *dtype == OPEN_DELEGATE_READ_ATTRS_DELEG) {
		get_stateid(&f->rp.x, dsid);
		assert_int_equal(xdr_get_u32(&f->rp.x), 0); /* recall */
		if (w) { /* space limit: none */
			assert_int_equal(xdr_get_u32(&f->rp.x), 1); /* NFS_LIMIT_SIZE */
			assert_int_equal(xdr_get_u64(&f->rp.x), UINT64_MAX);
		}
		for (int i = 0; i < 3; i++)
			(void)xdr_get_u32(&f->rp.x); /* nfsace4 type, flag, mask */
		(void)xdr_get_opaque(&f->rp.x, 64);
	}
	fx_getfh_after(f, fh);
	return st;
}

/* open_file_why without the reason. */
static inline uint32_t open_file(struct cl *cl, const char *owner, const char *name,
				 uint32_t access, struct nfs4_stateid *osid, uint32_t *dtype,
				 struct nfs4_stateid *dsid, struct fh *fh)
{
	uint32_t why;
	return open_file_why(cl, owner, name, access, osid, dtype, dsid, fh, &why);
}

/* A's read delegation of name (which it opens for reading). */
static inline void deleg_of(struct env *e, const char *name, struct nfs4_stateid *dsid,
			    struct fh *fh)
{
	struct nfs4_stateid osid;
	uint32_t dtype = 99;
	mkfile(&e->a, name);
	assert_int_equal(open_file(&e->a, "a-owner", name, OPEN4_SHARE_ACCESS_READ, &osid,
				   &dtype, dsid, fh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_READ);
}

/* The same when the path has just come up on another connection than
 * the OPEN's: the server may take the OPEN before the probe's reply
 * (two connections, no order), so OPEN is tried until it grants (a
 * liveness bound). */
static inline void deleg_of_soon(struct env *e, const char *name, struct nfs4_stateid *dsid,
				 struct fh *fh)
{
	struct nfs4_stateid osid;
	uint32_t dtype = OPEN_DELEGATE_NONE;
	mkfile(&e->a, name);
	for (int i = 0; dtype == OPEN_DELEGATE_NONE && i < 100; i++) {
		if (i)
			usleep(100 * 1000);
		assert_int_equal(open_file(&e->a, "a-owner", name, OPEN4_SHARE_ACCESS_READ, &osid,
					   &dtype, dsid, fh), NFS4_OK);
	}
	assert_int_equal(dtype, OPEN_DELEGATE_READ);
}

/* SEQUENCE, PUTFH fh, op with a stateid argument; the op's status. */
static inline uint32_t sid_op(struct cl *cl, const struct fh *fh, uint32_t op,
			      const struct nfs4_stateid *sid)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, op);
	put_stateid(&f->rq.x, sid);
	if (op == OP_READ) {
		xdr_put_u64(&f->rq.x, 0);
		xdr_put_u32(&f->rq.x, 5);
	}
	return fx_call(f);
}

/* A answers the recall of dsid on fh, then returns it. */
static inline void recall_and_return(struct env *e, unsigned n, const struct nfs4_stateid *dsid,
				     const struct fh *fh)
{
	cl_wait(&e->a, &e->a.nrecall, n);
	assert_memory_equal(e->a.recalled.other, dsid->other, 12);
	assert_int_equal(e->a.recalled_fh.len, fh->len);
	assert_memory_equal(e->a.recalled_fh.d, fh->d, fh->len);
	assert_memory_equal(e->a.cb_sid, e->a.f->sessionid, 16);
	assert_int_equal(e->a.cb_seq, n); /* one slot, sequence 1, 2, ... */
	assert_int_equal(sid_op(&e->a, fh, OP_DELEGRETURN, dsid), NFS4_OK);
}

/* CLOSE of osid (seqid 0) on fh by cl. */
static inline uint32_t close_file(struct cl *cl, const struct fh *fh,
				  const struct nfs4_stateid *osid)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_CLOSE);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, osid);
	return fx_call(f);
}

/* SEQUENCE alone: its sr_status_flags. */
static inline uint32_t seq_flags(struct cl *cl)
{
	struct fx *f = cl->f;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4_OK);
	uint8_t sid[16];
	xdr_get_fixed(&f->rp.x, sid, 16);
	for (int i = 0; i < 4; i++)
		(void)xdr_get_u32(&f->rp.x);
	return xdr_get_u32(&f->rp.x);
}

/* BIND_CONN_TO_SESSION of A's session with dir on cl's connection; the
 * direction granted. */
static inline uint32_t bind_conn(struct cl *cl, const uint8_t sid[16], uint32_t dir)
{
	struct fx *f = cl->f;
	fx_begin(f);
	req_op(&f->rq, OP_BIND_CONN_TO_SESSION);
	xdr_put_fixed(&f->rq.x, sid, 16);
	xdr_put_u32(&f->rq.x, dir);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_BIND_CONN_TO_SESSION), NFS4_OK);
	uint8_t got[16];
	xdr_get_fixed(&f->rp.x, got, 16);
	assert_memory_equal(got, sid, 16);
	return xdr_get_u32(&f->rp.x);
}

#endif /* TNFS_TEST_DELEG_ENV_H */
