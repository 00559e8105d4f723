/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the backward-direction tests (header-only, test code):
 * a server program whose CALLBACK procedure sends backward calls to the
 * client on the connection the call came in on, and records how they end.
 *
 * Fore program BC_PROG v1:
 *   proc 0 NULL;
 *   proc 1 CALLBACK(n, value, timeout_ms, cbprog): sends n backward calls
 *     CB_PROG v1 proc 1 (or cbprog when not 0) with argument value + i,
 *     then replies the number sent (their results land in the state).
 * Callback program CB_PROG v1: proc 0 NULL, proc 1 INC(u32) -> u32 + 1.
 */
#ifndef RPCRDMA_TEST_BC_UTIL_H
#define RPCRDMA_TEST_BC_UTIL_H

#include <errno.h>
#include <pthread.h>
#include <sys/fsuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/svc.h>

#define BC_PROG 0x2000009au
#define CB_PROG 0x40000099u
#define BC_MAX 4096u

struct bc_call {
	struct rpcrdma_clnt_req req;
	uint32_t arg, res;
	int status;      /* 1: not done yet */
	int done_count;
};

struct bc_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rpcrdma_svc_conn *conn; /* the last CALLBACK's connection */
	struct bc_call calls[BC_MAX];
	unsigned sent;                 /* calls[0..sent-1] were accepted */
	int last_err;                  /* first error of call_async */
	unsigned ndone;
	uint32_t cbprog;               /* 0: CB_PROG */
	bool switch_creds;             /* the handler changes its thread's
					* credentials first, as NFS servers do */
};

static inline void bc_state_init(struct bc_state *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
}

static inline void bc_state_fini(struct bc_state *st)
{
	rpcrdma_svc_conn_put(st->conn);
	st->conn = NULL;
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->cond);
}

static int bc_enc_u32(struct rpcrdma_xdr_enc *e, const void *a)
{
	return rpcrdma_xdr_put_u32(e, *(const uint32_t *)a);
}

static int bc_dec_u32(struct rpcrdma_xdr_dec *d, void *r)
{
	return rpcrdma_xdr_get_u32(d, r);
}

static void bc_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct bc_state *st = arg;
	struct bc_call *c = (struct bc_call *)req;
	pthread_mutex_lock(&st->lock);
	c->status = status;
	c->done_count++;
	st->ndone++;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

/* Sends calls[first .. first+n-1] on conn; returns how many went. */
static inline unsigned bc_send(struct bc_state *st, struct rpcrdma_svc_conn *conn,
			       unsigned n, uint32_t value, int timeout_ms)
{
	unsigned i;
	for (i = 0; i < n && st->sent < BC_MAX; i++) {
		struct bc_call *c = &st->calls[st->sent];
		memset(c, 0, sizeof(*c));
		c->req.size = sizeof(c->req);
		c->req.proc = 1;
		c->arg = value + i;
		c->req.encode = bc_enc_u32;
		c->req.args = &c->arg;
		c->req.args_max = 4;
		c->req.decode = bc_dec_u32;
		c->req.res = &c->res;
		c->req.res_max = 64;
		c->req.timeout_ms = timeout_ms;
		c->status = 1;
		int rc = rpcrdma_svc_conn_call_async(conn, st->cbprog ? st->cbprog : CB_PROG, 1,
						     NULL, &c->req, bc_done, st);
		if (rc) {
			if (!st->last_err)
				st->last_err = rc;
			break;
		}
		st->sent++;
	}
	return i;
}

struct bc_cb_args {
	uint32_t n, value, timeout_ms, cbprog;
};

static int bc_dec_args(struct rpcrdma_xdr_dec *d, void *a)
{
	struct bc_cb_args *x = a;
	return rpcrdma_xdr_get_u32(d, &x->n) || rpcrdma_xdr_get_u32(d, &x->value) ||
	       rpcrdma_xdr_get_u32(d, &x->timeout_ms) || rpcrdma_xdr_get_u32(d, &x->cbprog);
}

static size_t bc_est_u32(const struct rpcrdma_svc_call *call, const void *a)
{
	(void)call;
	(void)a;
	return 4;
}

static int bc_handler(struct rpcrdma_svc_call *call, void *args, void *res)
{
	struct bc_state *st = rpcrdma_svc_call_program_ctx(call);
	struct bc_cb_args *a = args;
	struct rpcrdma_svc_conn *conn;
	if (st->switch_creds) {
		/* New credentials for this thread, for good (the kernel then
		 * refuses its uverbs commands: see svc_rdma.c). */
		setfsuid(65534);
		setfsuid(0);
	}
	int rc = rpcrdma_svc_call_conn(call, &conn);
	pthread_mutex_lock(&st->lock);
	if (rc) {
		st->last_err = rc;
		*(uint32_t *)res = 0;
	} else {
		rpcrdma_svc_conn_put(st->conn);
		st->conn = conn;
		st->cbprog = a->cbprog;
		*(uint32_t *)res = bc_send(st, conn, a->n, a->value, (int)a->timeout_ms);
	}
	pthread_mutex_unlock(&st->lock);
	return RPCRDMA_SVC_SUCCESS;
}

static int bc_null(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call;
	(void)args;
	(void)res;
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc bc_procs[] = {
	{ .handler = bc_null },
	{ .args_size = sizeof(struct bc_cb_args), .decode_args = bc_dec_args,
	  .res_size = 4, .encode_res = bc_enc_u32, .estimate = bc_est_u32,
	  .handler = bc_handler },
};
static const struct rpcrdma_svc_version bc_vers[] = {
	{ .vers = 1, .nprocs = 2, .procs = bc_procs },
};

static inline struct rpcrdma_svc_program bc_program(struct bc_state *st)
{
	struct rpcrdma_svc_program p = { .prog = BC_PROG, .nvers = 1, .vers = bc_vers, .ctx = st };
	return p;
}

/* Waits (bounded: liveness only) until ndone >= n. */
static inline bool bc_wait_done(struct bc_state *st, unsigned n)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	bool ok = true;
	pthread_mutex_lock(&st->lock);
	while (st->ndone < n && ok)
		ok = pthread_cond_timedwait(&st->cond, &st->lock, &ts) == 0;
	ok = st->ndone >= n;
	pthread_mutex_unlock(&st->lock);
	return ok;
}

/* The status of calls[i], read under the lock (1: not done yet). */
static inline int bc_status(struct bc_state *st, unsigned i)
{
	pthread_mutex_lock(&st->lock);
	int s = st->calls[i].status;
	pthread_mutex_unlock(&st->lock);
	return s;
}

/* True when a call on conn (closed) fails at once: none sent, -ENOTCONN
 * (the first error st has seen), its done never called. */
static inline bool bc_refused(struct bc_state *st, struct rpcrdma_svc_conn *conn)
{
	pthread_mutex_lock(&st->lock);
	unsigned sent = bc_send(st, conn, 1, 0, 0);
	bool ok = sent == 0 && st->last_err == -ENOTCONN;
	pthread_mutex_unlock(&st->lock);
	return ok;
}

/* After the connection went away with the first n calls pending: true when
 * all n ended -ECONNRESET, the handle says it is down, and a call on it is
 * refused (bc_refused). */
static inline bool bc_all_reset(struct bc_state *st, unsigned n)
{
	bool ok = bc_wait_done(st, n);
	for (unsigned i = 0; i < n; i++)
		ok = ok && st->calls[i].status == -ECONNRESET;
	ok = ok && rpcrdma_svc_conn_connected(st->conn) == 0;
	return bc_refused(st, st->conn) && ok;
}

/* The callback program the clients serve: INC returns its argument + 1. */
static int cb_inc(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call;
	*(uint32_t *)res = *(uint32_t *)args + 1;
	return RPCRDMA_SVC_SUCCESS;
}

static int cb_null(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call;
	(void)args;
	(void)res;
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc cb_procs[] = {
	{ .handler = cb_null },
	{ .args_size = 4, .decode_args = bc_dec_u32, .res_size = 4, .encode_res = bc_enc_u32,
	  .estimate = bc_est_u32, .handler = cb_inc },
};
static const struct rpcrdma_svc_version cb_vers[] = {
	{ .vers = 1, .nprocs = 2, .procs = cb_procs },
};
static const struct rpcrdma_svc_program cb_program = {
	.prog = CB_PROG, .nvers = 1, .vers = cb_vers,
};

#endif
