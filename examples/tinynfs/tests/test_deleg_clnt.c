/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The library's own RPC client plays the NFS client of the tinynfs
 * program (argv[1]) over loopback TCP: rpcrdma_clnt_create("tcp") carries
 * the COMPOUNDs (built and read with nfstest.h's helpers), and
 * rpcrdma_clnt_set_backchannel serves the callback program through a
 * service of the test's that listens nowhere (CB_NULL; CB_COMPOUND of
 * CB_SEQUENCE + CB_RECALL).  The session is made with
 * CREATE_SESSION4_FLAG_CONN_BACK_CHAN; the CB_NULL probe arrives; a read
 * OPEN gets a delegation; another client's write OPEN gets NFS4ERR_DELAY
 * and the CB_RECALL reaches the callback program with the delegation's
 * stateid and handle on the session's back channel (slot 0, sequence 1);
 * DELEGRETURN through the library's client, and the write OPEN goes in.
 * Waits are bounded (liveness only).
 */
#include "nfstest.h"
#include "tnfsproc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/svc.h>

#define CB_PROG 0x40000000u
#define CB_MAX 2048u

static const char *tinynfs_path;

/* What the callback program saw (its handlers run on the client's thread). */
struct cbseen {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned nnull, nrecall;
	uint8_t sid[16];
	uint32_t seq, slot;
	struct nfs4_stateid recalled;
	struct fh fh;
};

struct raw {
	size_t len;
	uint8_t b[CB_MAX];
};

static int cb_dec_raw(struct rpcrdma_xdr_dec *d, void *args)
{
	struct raw *r = args;
	r->len = rpcrdma_xdr_dec_left(d);
	if (r->len > CB_MAX)
		return -EBADMSG;
	return rpcrdma_xdr_get_fixed(d, r->b, r->len);
}

static size_t cb_est(const struct rpcrdma_svc_call *call, const void *args)
{
	(void)call, (void)args;
	return 128;
}

static int cb_enc_raw(struct rpcrdma_xdr_enc *e, const void *res)
{
	const struct raw *r = res;
	return rpcrdma_xdr_put_fixed(e, r->b, r->len);
}

static int cb_null(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)args, (void)res;
	struct cbseen *s = rpcrdma_svc_call_program_ctx(call);
	pthread_mutex_lock(&s->mu);
	s->nnull++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return RPCRDMA_SVC_SUCCESS;
}

static int cb_compound(struct rpcrdma_svc_call *call, void *args, void *res)
{
	struct cbseen *s = rpcrdma_svc_call_program_ctx(call);
	const struct raw *a = args;
	struct raw *r = res;
	struct xdr_in x;
	xdr_in_init(&x, a->b, a->len);
	(void)xdr_get_opaque(&x, 64); /* tag */
	(void)xdr_get_u32(&x);	      /* minor */
	(void)xdr_get_u32(&x);	      /* callback_ident */
	uint32_t n = xdr_get_u32(&x);
	pthread_mutex_lock(&s->mu);
	bool ok = n == 2 && xdr_get_u32(&x) == OP_CB_SEQUENCE;
	if (ok) {
		xdr_get_fixed(&x, s->sid, 16);
		s->seq = xdr_get_u32(&x);
		s->slot = xdr_get_u32(&x);
		(void)xdr_get_u32(&x); /* highest slot */
		(void)xdr_get_u32(&x); /* cachethis */
		ok = xdr_get_u32(&x) == 0 && xdr_get_u32(&x) == OP_CB_RECALL;
	}
	if (ok) {
		get_stateid(&x, &s->recalled);
		(void)xdr_get_u32(&x); /* truncate */
		struct xdr_opaque fh = xdr_get_opaque(&x, 128);
		s->fh.len = fh.len;
		memcpy(s->fh.d, fh.data, fh.len);
		ok = !x.bad;
	}
	struct xdr_out o;
	xdr_out_init(&o, r->b, sizeof(r->b));
	xdr_put_u32(&o, ok ? NFS4_OK : NFS4ERR_BADXDR);
	xdr_put_u32(&o, 0); /* tag */
	if (ok) {
		xdr_put_u32(&o, 2);
		xdr_put_u32(&o, OP_CB_SEQUENCE);
		xdr_put_u32(&o, NFS4_OK);
		xdr_put_fixed(&o, s->sid, 16);
		xdr_put_u32(&o, s->seq);
		xdr_put_u32(&o, s->slot);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, 0);
		xdr_put_u32(&o, OP_CB_RECALL);
		xdr_put_u32(&o, NFS4_OK);
		s->nrecall++;
	} else {
		xdr_put_u32(&o, 0);
	}
	r->len = (size_t)(o.p - r->b);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc cb_procs[] = {
	{ .name = "CB_NULL", .handler = cb_null },
	{ .name = "CB_COMPOUND", .args_size = sizeof(struct raw), .res_size = sizeof(struct raw),
	  .decode_args = cb_dec_raw, .estimate = cb_est, .handler = cb_compound,
	  .encode_res = cb_enc_raw },
};
static const struct rpcrdma_svc_version cb_vers[] = { { .vers = 1, .nprocs = 2,
							 .procs = cb_procs } };

/* Waits until *count >= want (20 s at most: liveness). */
static void cb_wait(struct cbseen *s, const unsigned *count, unsigned want)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += TNFSPROC_WAIT_S;
	pthread_mutex_lock(&s->mu);
	int rc = 0;
	while (*count < want && rc == 0)
		rc = pthread_cond_timedwait(&s->cv, &s->mu, &dl);
	bool ok = *count >= want;
	pthread_mutex_unlock(&s->mu);
	if (!ok)
		fail_msg("no callback within %d s", TNFSPROC_WAIT_S);
}

/* fx->call through the library's client. */
static int enc_compound(struct rpcrdma_xdr_enc *e, const void *args)
{
	const struct fx *f = args;
	return rpcrdma_xdr_put_fixed(e, f->rq.buf, req_len(&f->rq));
}

static int dec_compound(struct rpcrdma_xdr_dec *d, void *res)
{
	struct fx *f = res;
	f->rp.len = rpcrdma_xdr_dec_left(d);
	if (f->rp.len > BUFSZ)
		return -EBADMSG;
	return rpcrdma_xdr_get_fixed(d, f->rp.buf, f->rp.len);
}

static void clnt_fx_call(struct fx *f)
{
	struct rpcrdma_clnt_req req = {
		.size = sizeof(req), .proc = 1, .encode = enc_compound, .args = f,
		.args_max = req_len(&f->rq), .decode = dec_compound, .res = f,
		.res_max = BUFSZ, .timeout_ms = TNFSPROC_WAIT_S * 1000,
	};
	assert_int_equal(rpcrdma_clnt_call(f->call_arg, &req), 0);
}

/* OPEN name with access; the status, and on NFS4_OK the delegation. */
static uint32_t open_file(struct fx *f, const char *name, uint32_t access, uint32_t *dtype,
			  struct nfs4_stateid *dsid, struct fh *fh)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", access, false, 0, name);
	req_op(&f->rq, OP_GETFH);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	if (rep_op(&f->rp, OP_OPEN) != NFS4_OK)
		return st;
	struct nfs4_stateid osid;
	get_stateid(&f->rp.x, &osid);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x);
	for (uint32_t n = xdr_get_u32(&f->rp.x); n > 0; n--)
		(void)xdr_get_u32(&f->rp.x);
	*dtype = xdr_get_u32(&f->rp.x);
	if (*dtype == OPEN_DELEGATE_READ) {
		get_stateid(&f->rp.x, dsid);
		for (int i = 0; i < 4; i++)
			(void)xdr_get_u32(&f->rp.x);
		(void)xdr_get_opaque(&f->rp.x, 64);
	}
	fx_getfh_after(f, fh);
	return st;
}

static void test_clnt_recall(void **state)
{
	(void)state;
	struct tnfsproc p;
	char dir[] = "/tmp/tinynfs-dlc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	tnfsproc_start(&p, tinynfs_path, dir, "rw,no_root_squash");
	char path[160];
	snprintf(path, sizeof(path), "%s/f", dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);

	struct cbseen seen = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	const struct rpcrdma_svc_program cbp = { .prog = CB_PROG, .name = "nfs_cb", .nvers = 1,
						 .vers = cb_vers, .ctx = &seen };
	struct rpcrdma_svc *cbsvc = NULL;
	assert_int_equal(rpcrdma_svc_create(NULL, &cbsvc), 0);
	assert_int_equal(rpcrdma_svc_register(cbsvc, &cbp), 0);
	char text[64];
	struct sockaddr_storage ss;
	socklen_t len;
	snprintf(text, sizeof(text), "127.0.0.1:%u", p.tcp_port);
	assert_int_equal(rpcrdma_clnt_parse_addr(text, &ss, &len), 0);
	struct rpcrdma_clnt *clnt = NULL;
	assert_int_equal(rpcrdma_clnt_create("tcp", (struct sockaddr *)&ss, len, 100003, 4, NULL,
					     &clnt), 0);
	assert_int_equal(rpcrdma_clnt_set_auth_sys(clnt, "dlc", 0, 0, 0, NULL), 0);
	assert_int_equal(rpcrdma_clnt_set_backchannel(clnt, cbsvc), 0);

	/* A: the library's client, with a back channel */
	struct fx *a = tnfsproc_fx_new("/tmp/tinynfs-dlc-XXXXXX");
	a->call = clnt_fx_call;
	a->call_arg = clnt;
	uint32_t seq = fx_exchange_id(a, "library client", 1);
	fx_begin(a);
	req_op(&a->rq, OP_CREATE_SESSION);
	xdr_put_u64(&a->rq.x, a->clientid);
	xdr_put_u32(&a->rq.x, seq);
	xdr_put_u32(&a->rq.x, CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
	put_chan(&a->rq.x, 16);
	put_chan(&a->rq.x, 1);
	xdr_put_u32(&a->rq.x, CB_PROG);
	xdr_put_u32(&a->rq.x, 1);
	xdr_put_u32(&a->rq.x, AUTH_NONE);
	assert_int_equal(fx_call(a), NFS4_OK);
	assert_int_equal(rep_op(&a->rp, OP_CREATE_SESSION), NFS4_OK);
	xdr_get_fixed(&a->rp.x, a->sessionid, 16);
	(void)xdr_get_u32(&a->rp.x);
	assert_int_equal(xdr_get_u32(&a->rp.x), CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
	fx_seq(a);
	req_op(&a->rq, OP_RECLAIM_COMPLETE);
	xdr_put_bool(&a->rq.x, false);
	assert_int_equal(fx_call(a), NFS4_OK);
	cb_wait(&seen, &seen.nnull, 1);

	/* the probe's reply and the OPEN travel one connection, but the
	 * callback program counts the probe before its reply is sent: the
	 * OPEN is tried until it grants (liveness bound) */
	uint32_t dtype = OPEN_DELEGATE_NONE;
	struct nfs4_stateid dsid;
	struct fh fh;
	for (int i = 0; dtype == OPEN_DELEGATE_NONE && i < 100; i++) {
		if (i)
			usleep(100 * 1000);
		assert_int_equal(open_file(a, "f", OPEN4_SHARE_ACCESS_READ, &dtype, &dsid, &fh),
				 NFS4_OK);
	}
	assert_int_equal(dtype, OPEN_DELEGATE_READ);

	/* B: a raw client without a back channel */
	struct tnfsconn bc;
	tnfsconn_open(&bc, &p, 0, 0);
	struct fx *b = tnfsproc_fx_new("/tmp/tinynfs-dlc-XXXXXX");
	b->call = tnfsconn_fx_call;
	b->call_arg = &bc;
	fx_mount_as(b, "raw client");
	struct nfs4_stateid bsid;
	struct fh bfh;
	assert_int_equal(open_file(b, "f", OPEN4_SHARE_ACCESS_BOTH, &dtype, &bsid, &bfh),
			 NFS4ERR_DELAY);
	cb_wait(&seen, &seen.nrecall, 1);
	assert_memory_equal(seen.recalled.other, dsid.other, 12);
	assert_memory_equal(seen.sid, a->sessionid, 16);
	assert_int_equal(seen.seq, 1);
	assert_int_equal(seen.slot, 0);
	assert_int_equal(seen.fh.len, fh.len);
	assert_memory_equal(seen.fh.d, fh.d, fh.len);
	fx_seq(a);
	req_op(&a->rq, OP_PUTFH);
	put_fh(&a->rq.x, &fh);
	req_op(&a->rq, OP_DELEGRETURN);
	put_stateid(&a->rq.x, &dsid);
	assert_int_equal(fx_call(a), NFS4_OK);
	assert_int_equal(open_file(b, "f", OPEN4_SHARE_ACCESS_BOTH, &dtype, &bsid, &bfh), NFS4_OK);

	tnfsconn_close(&bc);
	rpcrdma_clnt_destroy(clnt);
	rpcrdma_svc_destroy(cbsvc);
	tnfsproc_stop(&p);
	assert_non_null(strstr(p.log, "deleg_granted 1, cb_recall 1, deleg_returned 1,"));
	fx_free(b);
	fx_free(a);
	fx_rmtree(dir);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TINYNFS\n", argv[0]);
		return 2;
	}
	tinynfs_path = argv[1];
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_clnt_recall) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
