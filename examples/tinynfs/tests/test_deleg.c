/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Callbacks and delegations of the tinynfs program (argv[1]) on loopback
 * TCP.  Client A creates its session with CREATE_SESSION4_FLAG_CONN_BACK_CHAN
 * and serves the callback program on its connection with the small
 * handler below (CB_NULL; CB_COMPOUND of CB_SEQUENCE + CB_RECALL, whose
 * session, sequence ids, program and credential it records); client B has
 * no back channel.  Checked: the read delegation on OPEN; its recall by
 * B's OPEN for writing, REMOVE, RENAME and SETATTR of the size (B gets
 * NFS4ERR_DELAY until A's DELEGRETURN); by a local open(O_WRONLY) of the
 * file in a child process, which stays blocked until the DELEGRETURN;
 * revocation of an unreturned delegation (--recall-timeout 1):
 * DELEG_REVOKED, SEQ4_STATUS_RECALLABLE_STATE_REVOKED until FREE_STATEID;
 * BIND_CONN_TO_SESSION of another connection for both directions,
 * BACKCHANNEL_CTL (the next callback's program and AUTH_SYS), the path
 * going down with that connection (SEQ4_STATUS_CB_PATH_DOWN and
 * _SESSION, no delegation granted) and up again by binding the back
 * channel; forged delegation stateids and a garbage answer to CB_RECALL;
 * DESTROY_CLIENTID dropping the client's delegation; a client that never
 * answers CB_NULL (no delegation, the path down after the timeout);
 * --no-delegations; the counters of --stats.
 */
#include "nfstest.h"
#include "tnfsproc.h"

#include <errno.h>
#include <fcntl.h>

#define CB_PROG 0x40000000u

static const char *tinynfs_path;

struct cl {
	struct fx *f;
	struct tnfsconn c;
	unsigned nnull, nrecall;
	struct nfs4_stateid recalled;
	struct fh recalled_fh;
	uint8_t cb_sid[16];
	uint32_t cb_seq, cb_prog, cb_flavor;
	bool garbage; /* answer CB_COMPOUND with a truncated result */
	bool silent;  /* answer no callback at all */
};

struct env {
	struct tnfsproc p;
	struct cl a, b;
	bool stopped;
};

/* Answers the callback in c->rec (a CALL record). */
static void cl_callback(struct cl *cl)
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

static bool is_call(const struct tnfsconn *c)
{
	return c->rec_len >= 8 && c->rec[4] == 0 && c->rec[5] == 0 && c->rec[6] == 0 &&
	       c->rec[7] == 0;
}

/* fx->call: the COMPOUND, answering callbacks until its reply. */
static void cl_fx_call(struct fx *f)
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
static void cl_wait(struct cl *cl, const unsigned *count, unsigned want)
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

static void cl_open(struct cl *cl, const struct tnfsproc *p, const char *dir)
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
static void cl_mount(struct cl *cl, const char *owner, bool back)
{
	struct fx *f = cl->f;
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, owner, 0x1122334455667788ull);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), NFS4_OK);
	f->clientid = xdr_get_u64(&f->rp.x);
	uint32_t seq = xdr_get_u32(&f->rp.x);
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

static void start(struct env *e, const char *const *more)
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

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	start(e, NULL);
	*state = e;
	return 0;
}

static int setup_revoke(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	static const char *const more[] = { "--recall-timeout", "1", NULL };
	start(e, more);
	*state = e;
	return 0;
}

static int setup_silent(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	e->a.silent = true;
	start(e, NULL);
	*state = e;
	return 0;
}

static int setup_nodeleg(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	static const char *const more[] = { "--no-delegations", NULL };
	start(e, more);
	*state = e;
	return 0;
}

/* Stops the server (once); its --stats lines stay in e->p.log. */
static void stop(struct env *e)
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

static void cl_free(struct cl *cl)
{
	free(cl->f->rq.buf);
	free(cl->f->rp.buf);
	free(cl->f);
}

static int teardown(void **state)
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
static long counter(const struct env *e, const char *name)
{
	char key[64];
	snprintf(key, sizeof(key), "%s ", name);
	const char *p = strstr(e->p.log, key);
	return p ? atol(p + strlen(key)) : -1;
}

static void mkfile(const struct cl *cl, const char *name)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", cl->f->dir, name);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello", 5), 5);
	close(fd);
}

/* OPEN name (no create) with access; returns the status, and on NFS4_OK
 * the open stateid, the delegation type and stateid, the file handle. */
static uint32_t open_file(struct cl *cl, const char *owner, const char *name, uint32_t access,
			  struct nfs4_stateid *osid, uint32_t *dtype, struct nfs4_stateid *dsid,
			  struct fh *fh)
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
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x); /* cinfo, rflags */
	for (uint32_t n = xdr_get_u32(&f->rp.x); n > 0; n--)
		(void)xdr_get_u32(&f->rp.x); /* attrset */
	*dtype = xdr_get_u32(&f->rp.x);
	if (*dtype == OPEN_DELEGATE_READ) {
		get_stateid(&f->rp.x, dsid);
		assert_int_equal(xdr_get_u32(&f->rp.x), 0); /* recall */
		for (int i = 0; i < 3; i++)
			(void)xdr_get_u32(&f->rp.x); /* nfsace4 type, flag, mask */
		(void)xdr_get_opaque(&f->rp.x, 64);
	}
	fx_getfh_after(f, fh);
	return st;
}

/* A's read delegation of name (which it opens for reading). */
static void deleg_of(struct env *e, const char *name, struct nfs4_stateid *dsid, struct fh *fh)
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
static void deleg_of_soon(struct env *e, const char *name, struct nfs4_stateid *dsid,
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
static uint32_t sid_op(struct cl *cl, const struct fh *fh, uint32_t op,
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
static void recall_and_return(struct env *e, unsigned n, const struct nfs4_stateid *dsid,
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

static void test_open_recall(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype = 99;
	deleg_of(e, "f", &dsid, &fh);
	/* READ with the delegation stateid */
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	/* A again: it has one already */
	assert_int_equal(open_file(&e->a, "a-owner2", "f", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	/* B reading: no conflict, and B has no back channel: none for B */
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	assert_int_equal(e->a.nrecall, 0);
	/* B writing: NFS4ERR_DELAY and a recall to A, until A returns it */
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	recall_and_return(e, 1, &dsid, &fh);
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	/* returned: gone */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4ERR_BAD_STATEID);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4ERR_BAD_STATEID);
	/* another client's delegation stateid is not B's */
	assert_int_equal(sid_op(&e->b, &fh, OP_DELEGRETURN, &dsid), NFS4ERR_BAD_STATEID);
	/* while B has it open for writing, A gets no delegation */
	assert_int_equal(open_file(&e->a, "a-owner", "f", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 1);
	assert_int_equal(counter(e, "cb_recall"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

static void test_remove_rename_setattr(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid;
	struct fh fh, root;
	struct fx *b = e->b.f;
	fx_fh_of(b, NULL, &root);
	for (unsigned k = 1; k <= 3; k++) {
		deleg_of(e, "g", &dsid, &fh);
		for (int again = 0; again < 2; again++) {
			fx_seq(b);
			req_op(&b->rq, OP_PUTROOTFH);
			if (k == 1) {
				req_op(&b->rq, OP_REMOVE);
				put_str(&b->rq.x, "g");
			} else if (k == 2) {
				req_op(&b->rq, OP_SAVEFH);
				req_op(&b->rq, OP_RENAME);
				put_str(&b->rq.x, "g");
				put_str(&b->rq.x, "g2");
			} else {
				req_op(&b->rq, OP_PUTFH);
				put_fh(&b->rq.x, &fh);
				req_op(&b->rq, OP_SETATTR);
				static const struct nfs4_stateid anon;
				put_stateid(&b->rq.x, &anon);
				put_bitmap(&b->rq.x, W0(FATTR4_SIZE), 0, 0);
				xdr_put_u32(&b->rq.x, 8);
				xdr_put_u64(&b->rq.x, 0);
			}
			uint32_t want = again ? NFS4_OK : NFS4ERR_DELAY;
			assert_int_equal(fx_call(b), want);
			if (!again)
				recall_and_return(e, k, &dsid, &fh);
		}
	}
	/* The holder removes its own file: no conflict, no recall (no
	 * other client holds a delegation: the name is not even looked at). */
	struct fx *a = e->a.f;
	deleg_of(e, "h", &dsid, &fh);
	fx_seq(a);
	req_op(&a->rq, OP_PUTROOTFH);
	req_op(&a->rq, OP_REMOVE);
	put_str(&a->rq.x, "h");
	assert_int_equal(fx_call(a), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 4);
	assert_int_equal(counter(e, "cb_recall"), 3);
	assert_int_equal(counter(e, "deleg_returned"), 3);
}

static void test_local_writer(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid;
	struct fh fh;
	deleg_of(e, "h", &dsid, &fh);
	char path[160];
	snprintf(path, sizeof(path), "%s/h", e->a.f->dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* a local writer: blocks until the lease is released */
		int fd = open(path, O_WRONLY);
		_exit(fd >= 0 && write(fd, "local", 5) == 5 ? 0 : 1);
	}
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_memory_equal(e->a.recalled.other, dsid.other, 12);
	int st;
	/* still blocked: only the return releases it (or the kernel's
	 * lease-break-time, 45 s by default, far beyond this test) */
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	stop(e);
	assert_true(counter(e, "lease_breaks") >= 1);
	assert_int_equal(counter(e, "cb_recall"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

/* SEQUENCE alone: its sr_status_flags. */
static uint32_t seq_flags(struct cl *cl)
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

static void test_revoke(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "r", &dsid, &fh);
	assert_int_equal(seq_flags(&e->a), 0);
	/* B's write open recalls; A answers the callback but never returns
	 * the delegation: after --recall-timeout 1 it is revoked and B gets
	 * in (the loop bounds the wait: liveness only) */
	uint32_t s = NFS4ERR_DELAY;
	for (int i = 0; s == NFS4ERR_DELAY && i < 120; i++) {
		s = open_file(&e->b, "b-owner", "r", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype, &bsid,
			      &bfh);
		if (s == NFS4ERR_DELAY)
			usleep(250 * 1000);
	}
	assert_int_equal(s, NFS4_OK);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_int_equal(seq_flags(&e->a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED,
			 SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4ERR_DELEG_REVOKED);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4ERR_DELEG_REVOKED);
	/* TEST_STATEID says so too */
	struct fx *f = e->a.f;
	fx_seq(f);
	req_op(&f->rq, OP_TEST_STATEID);
	xdr_put_u32(&f->rq.x, 1);
	put_stateid(&f->rq.x, &dsid);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_TEST_STATEID), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), NFS4ERR_DELEG_REVOKED);
	/* FREE_STATEID clears it */
	fx_seq(f);
	req_op(&f->rq, OP_FREE_STATEID);
	put_stateid(&f->rq.x, &dsid);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(seq_flags(&e->a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED, 0);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4ERR_BAD_STATEID);
	stop(e);
	assert_int_equal(counter(e, "deleg_revoked"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 0);
}

/* BIND_CONN_TO_SESSION of A's session with dir on cl's connection; the
 * direction granted. */
static uint32_t bind_conn(struct cl *cl, const uint8_t sid[16], uint32_t dir)
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

static void test_bind_and_path(void **state)
{
	struct env *e = *state;
	/* a second connection of A's, bound for both directions */
	struct cl a2;
	cl_open(&a2, &e->p, e->a.f->dir);
	assert_int_equal(bind_conn(&a2, e->a.f->sessionid, CDFC4_BACK_OR_BOTH), CDFS4_BOTH);
	cl_wait(&a2, &a2.nnull, 1);
	/* BACKCHANNEL_CTL: another program, AUTH_SYS */
	struct fx *f = e->a.f;
	fx_seq(f);
	req_op(&f->rq, OP_BACKCHANNEL_CTL);
	xdr_put_u32(&f->rq.x, CB_PROG + 1);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, AUTH_SYS);
	xdr_put_u32(&f->rq.x, 7);
	put_str(&f->rq.x, "cbhost");
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* the recall comes on the bound connection, with the new program */
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of_soon(e, "p", &dsid, &fh);
	assert_int_equal(open_file(&e->b, "b-owner", "p", OPEN4_SHARE_ACCESS_WRITE, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	cl_wait(&a2, &a2.nrecall, 1);
	assert_int_equal(a2.cb_prog, CB_PROG + 1);
	assert_int_equal(a2.cb_flavor, AUTH_SYS);
	assert_int_equal(a2.cb_seq, 1);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(seq_flags(&e->a), 0);
	/* the back channel's connection closes: the path is down */
	tnfsconn_close(&a2.c);
	uint32_t fl = 0;
	for (int i = 0; !(fl & SEQ4_STATUS_CB_PATH_DOWN) && i < 120; i++) {
		fl = seq_flags(&e->a);
		if (!(fl & SEQ4_STATUS_CB_PATH_DOWN))
			usleep(100 * 1000);
	}
	assert_int_equal(fl, SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION);
	/* no delegation without a path */
	mkfile(&e->a, "q");
	assert_int_equal(open_file(&e->a, "a-owner", "q", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	/* the back channel alone on A's first connection: up again */
	unsigned before = e->a.nnull;
	assert_int_equal(bind_conn(&e->a, e->a.f->sessionid, CDFC4_BACK), CDFS4_BACK);
	cl_wait(&e->a, &e->a.nnull, before + 1);
	assert_int_equal(seq_flags(&e->a), 0);
	mkfile(&e->a, "q2");
	assert_int_equal(open_file(&e->a, "a-owner", "q2", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_READ);
	/* the fore channel alone on a new connection leaves the path be */
	struct cl a3;
	cl_open(&a3, &e->p, e->a.f->dir);
	assert_int_equal(bind_conn(&a3, e->a.f->sessionid, CDFC4_FORE), CDFS4_FORE);
	tnfsconn_close(&a3.c);
	assert_int_equal(seq_flags(&e->a), 0);
	cl_free(&a2);
	cl_free(&a3);
}

/* Another principal (uid 1000, its own connection) that knows A's
 * session ID asks BIND_CONN_TO_SESSION for the back channel of A's
 * session: NFS4ERR_WRONG_CRED (README, "NFSv4.1 state protection"), and
 * the CB_RECALL of A's delegation still reaches A, which returns it. */
static void test_bind_hostile(void **state)
{
	struct env *e = *state;
	struct cl m;
	cl_open(&m, &e->p, e->a.f->dir);
	m.c.uid = m.c.gid = 1000;
	struct fx *f = m.f;
	fx_begin(f);
	req_op(&f->rq, OP_BIND_CONN_TO_SESSION);
	xdr_put_fixed(&f->rq.x, e->a.f->sessionid, 16);
	xdr_put_u32(&f->rq.x, CDFC4_BACK);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4ERR_WRONG_CRED);
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "v", &dsid, &fh);
	assert_int_equal(open_file(&e->b, "b-owner", "v", OPEN4_SHARE_ACCESS_WRITE, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_int_equal(m.nrecall, 0);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	tnfsconn_close(&m.c);
	cl_free(&m);
}

/* Forged delegation stateids, and a client answering CB_RECALL with
 * garbage: refused, counted, and the delegation still returnable. */
static void test_hostile(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid, forged;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "x", &dsid, &fh);
	static const uint8_t ids[][4] = { { 0x80, 0, 0, 7 }, { 0xff, 0xff, 0xff, 0xfe },
					  { 0x80, 0, 0xff, 0xff } };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		forged = dsid;
		memcpy(forged.other, ids[i], 4);
		assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
		assert_int_equal(sid_op(&e->a, &fh, OP_READ, &forged), NFS4ERR_BAD_STATEID);
	}
	forged = dsid;
	forged.other[7] ^= 1; /* another generation */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
	forged = dsid;
	forged.other[11] ^= 1; /* another boot */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
	forged = dsid;
	forged.seqid = 2; /* a newer seqid than any given */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
	/* the delegation of another file */
	struct fh root;
	fx_fh_of(e->a.f, NULL, &root);
	assert_int_equal(sid_op(&e->a, &root, OP_DELEGRETURN, &dsid), NFS4ERR_BAD_STATEID);
	/* live: FREE_STATEID refuses it */
	struct fx *f = e->a.f;
	fx_seq(f);
	req_op(&f->rq, OP_FREE_STATEID);
	put_stateid(&f->rq.x, &dsid);
	assert_int_equal(fx_call(f), NFS4ERR_LOCKS_HELD);
	/* garbage for an answer to the recall */
	e->a.garbage = true;
	assert_int_equal(open_file(&e->b, "b-owner", "x", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(open_file(&e->b, "b-owner", "x", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "cb_errors"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

/* A client record that goes takes its delegations with it. */
static void test_client_gone(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "y", &dsid, &fh);
	struct fx *f = e->a.f;
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* the open and the delegation are held: RFC 8881 18.50.3 */
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4ERR_CLIENTID_BUSY);
	/* the client restarts: its new incarnation, once confirmed, ends
	 * the old one's record (18.35.5 case 5) */
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, "client A", 0x99);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), NFS4_OK);
	uint64_t cid = xdr_get_u64(&f->rp.x);
	uint32_t seq = xdr_get_u32(&f->rp.x);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, cid, seq);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* no recall, no delay: the delegation (and its lease) is gone */
	assert_int_equal(open_file(&e->b, "b-owner", "y", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 1);
	assert_int_equal(counter(e, "cb_recall"), 0);
	assert_int_equal(counter(e, "deleg_held"), 0);
}

/* A client that never answers CB_NULL: no delegation while the probe is
 * out; when it times out (TNFS_CB_TIMEOUT_MS) the path is down
 * (SEQ4_STATUS_CB_PATH_DOWN), still no delegation, and nothing waits on
 * it.  The 1 s polls up to 90 s are a liveness bound only. */
static void test_cb_null_unanswered(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid, bsid;
	struct fh fh, bfh;
	uint32_t dtype = 99;
	mkfile(&e->a, "s");
	assert_int_equal(open_file(&e->a, "a-owner", "s", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &dsid, &fh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	uint32_t fl = 0;
	for (int i = 0; i < 90 && !(fl & SEQ4_STATUS_CB_PATH_DOWN); i++) {
		sleep(1);
		fl = seq_flags(&e->a);
	}
	assert_int_equal(fl & (SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION),
			 SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION);
	dtype = 99;
	assert_int_equal(open_file(&e->a, "a-owner2", "s", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &dsid, &fh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	assert_int_equal(open_file(&e->b, "b-owner", "s", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 0);
	assert_int_equal(counter(e, "cb_null"), 1);
	assert_int_equal(counter(e, "cb_null_ok"), 0);
	assert_int_equal(counter(e, "cb_errors"), 1);
}

static void test_no_delegations(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid;
	struct fh fh;
	uint32_t dtype = 99;
	mkfile(&e->a, "n");
	assert_int_equal(open_file(&e->a, "a-owner", "n", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &dsid, &fh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	assert_int_equal(seq_flags(&e->a), 0); /* the path itself is up */
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 0);
	assert_int_equal(counter(e, "cb_null_ok"), 1);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TINYNFS\n", argv[0]);
		return 2;
	}
	tinynfs_path = argv[1];
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_recall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_rename_setattr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revoke, setup_revoke, teardown),
		cmocka_unit_test_setup_teardown(test_bind_and_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_delegations, setup_nodeleg, teardown),
		cmocka_unit_test_setup_teardown(test_cb_null_unanswered, setup_silent, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
