/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-bc ADDR: the backward direction over RPC-over-RDMA (RFC 8167), both
 * ends ours, in one process: a service listening on ADDR (port 0) whose
 * CALLBACK procedure sends calls back on the connection, and a client made
 * with rpcrdma_clnt_create("rdma"/"rdma6") serving the callback program
 * through rpcrdma_clnt_set_backchannel.  Steps (each prints a line):
 *   roundtrip   one backward call answered, result checked;
 *   sequential  200 calls one after the other (the backward credits come
 *               back with each reply);
 *   burst       4 calls at once: those past the client's backward grant
 *               are refused with -EAGAIN, the others answered;
 *   shared      2000 forward calls in flight (at the client's credits)
 *               while 100 backward calls go: the two directions share the
 *               receives, nothing starves, no credit overrun;
 *   timeout     with no backchannel set the call times out; set again,
 *               20 more are answered;
 *   close       the client goes away with a call pending: -ECONNRESET.
 * Then the listener's counters (err_credit_overrun and rq_starved must be
 * 0) and "PASS".  With "direct": the service's poller is a DIRECT one that
 * its loop polls, and every handler switches its thread's credentials
 * (setfsuid) before it calls back, as NFS servers do (the Sends must then
 * be posted by another thread).  Exit 0 on PASS, 1 otherwise.  Waits are bounded.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/svc.h>
#include <rpcrdma/xprt.h>

#include "../../unit/bc_util.h"
#include "vm_check.h"

static struct bc_state st;

static int enc_args(struct rpcrdma_xdr_enc *e, const void *p)
{
	const struct bc_cb_args *a = p;
	return rpcrdma_xdr_put_u32(e, a->n) || rpcrdma_xdr_put_u32(e, a->value) ||
	       rpcrdma_xdr_put_u32(e, a->timeout_ms) || rpcrdma_xdr_put_u32(e, a->cbprog);
}

/* The server sends n backward calls; returns how many it sent. */
static uint32_t ask(struct rpcrdma_clnt *c, uint32_t n, uint32_t value, uint32_t timeout_ms)
{
	struct bc_cb_args a = { n, value, timeout_ms, 0 };
	uint32_t sent = UINT32_MAX;
	struct rpcrdma_clnt_req req = {
		.size = sizeof(req), .proc = 1, .encode = enc_args, .args = &a, .args_max = 16,
		.decode = bc_dec_u32, .res = &sent, .res_max = 64, .timeout_ms = 60000,
	};
	int rc = rpcrdma_clnt_call(c, &req);
	CHECK(rc == 0, "CALLBACK call: %d", rc);
	return sent;
}

/* One backward call, waited for; its status. */
static int one(struct rpcrdma_clnt *c, uint32_t value, uint32_t timeout_ms)
{
	unsigned i = st.sent;
	CHECK(ask(c, 1, value, timeout_ms) == 1, "not sent: %d", st.last_err);
	CHECK(bc_wait_done(&st, i + 1), "no completion");
	int s = bc_status(&st, i);
	if (s == 0)
		CHECK(st.calls[i].res == value + 1, "result %u for %u", st.calls[i].res, value);
	return s;
}

struct fore {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned done, ok;
};

static void fore_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct fore *f = arg;
	(void)req;
	pthread_mutex_lock(&f->lock);
	f->done++;
	f->ok += status == 0;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void step_shared(struct rpcrdma_clnt *c)
{
	enum { NFORE = 2000 };
	static struct rpcrdma_clnt_req reqs[NFORE];
	struct fore f = { .done = 0 };
	pthread_mutex_init(&f.lock, NULL);
	pthread_cond_init(&f.cond, NULL);
	for (unsigned i = 0; i < NFORE; i++) {
		reqs[i] = (struct rpcrdma_clnt_req){ .size = sizeof(reqs[i]), .proc = 0,
						     .timeout_ms = 120000 };
		CHECK(rpcrdma_clnt_call_async(c, &reqs[i], fore_done, &f) == 0, "fore %u", i);
	}
	for (uint32_t k = 0; k < 100; k++)
		CHECK(one(c, 5000 + k, 0) == 0, "backward %u under load", k);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 300;
	pthread_mutex_lock(&f.lock);
	while (f.done < NFORE && pthread_cond_timedwait(&f.cond, &f.lock, &ts) == 0)
		;
	unsigned done = f.done, ok = f.ok;
	pthread_mutex_unlock(&f.lock);
	CHECK(done == NFORE && ok == NFORE, "fore calls: %u done, %u ok", done, ok);
	printf("shared: %u forward calls and 100 backward calls, all answered\n", ok);
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE }, *ai;
	struct rpcrdma_poller *poller;
	struct rpcrdma_poller_opts po;
	struct rpcrdma_svc *svc, *cbsvc;
	struct rpcrdma_listener *listener;
	struct rpcrdma_clnt *c;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);

	setvbuf(stdout, NULL, _IOLBF, 0);
	bool direct = argc == 3 && strcmp(argv[2], "direct") == 0;
	CHECK((argc == 2 || direct) && getaddrinfo(argv[1], "0", &hints, &ai) == 0,
	      "usage: rdma-bc ADDR [direct]");
	bc_state_init(&st);
	rpcrdma_poller_opts_init(&po);
	if (direct) {
		/* The service's loop polls the poller itself, until a handler
		 * switches the loop thread's credentials (every one here does):
		 * then the driver thread does. */
		po.mode = RPCRDMA_POLLER_DIRECT;
		st.switch_creds = true;
	}
	CHECK(rpcrdma_poller_create(&po, &poller) == 0, "poller");
	struct rpcrdma_svc_opts so;
	rpcrdma_svc_opts_init(&so);
	if (direct)
		so.flags = RPCRDMA_SVC_HANDLERS_SWITCH_CREDS;
	CHECK(rpcrdma_svc_create(&so, &svc) == 0, "svc");
	struct rpcrdma_svc_program p = bc_program(&st);
	CHECK(rpcrdma_svc_register(svc, &p) == 0, "register");
	int rc = rpcrdma_svc_listen_rdma(svc, poller, ai->ai_addr, NULL, &bound, &blen, &listener);
	CHECK(rc == 0, "listen_rdma: %d", rc);
	freeaddrinfo(ai);
	CHECK(rpcrdma_svc_start(svc) == 0, "start");
	CHECK(rpcrdma_svc_create(NULL, &cbsvc) == 0, "cbsvc");
	CHECK(rpcrdma_svc_register(cbsvc, &cb_program) == 0, "cb register");

	const char *netid = bound.ss_family == AF_INET6 ? "rdma6" : "rdma";
	rc = rpcrdma_clnt_create(netid, (struct sockaddr *)&bound, blen, BC_PROG, 1, NULL, &c);
	CHECK(rc == 0, "clnt_create %s: %d", netid, rc);
	CHECK(rpcrdma_clnt_set_backchannel(c, cbsvc) == 0, "set_backchannel");

	CHECK(one(c, 41, 0) == 0, "roundtrip");
	printf("roundtrip: 41 -> %u\n", st.calls[0].res);

	for (uint32_t k = 0; k < 200; k++)
		CHECK(one(c, 1000 + k, 0) == 0, "sequential %u", k);
	printf("sequential: 200 answered\n");

	unsigned first = st.sent;
	st.last_err = 0;
	uint32_t sent = ask(c, 4, 100, 0);
	CHECK(sent >= 1 && sent <= 4, "burst sent %u", sent);
	CHECK(sent == 4 || st.last_err == -EAGAIN, "burst refused with %d", st.last_err);
	CHECK(bc_wait_done(&st, first + sent), "burst completions");
	for (unsigned i = first; i < first + sent; i++)
		CHECK(bc_status(&st, i) == 0, "burst call %u: %d", i - first, bc_status(&st, i));
	printf("burst: %u of 4 sent (the rest -EAGAIN: %d), all answered\n", sent, st.last_err);

	step_shared(c);

	CHECK(rpcrdma_clnt_set_backchannel(c, NULL) == 0, "clear");
	rc = one(c, 7, 300);
	CHECK(rc == -ETIMEDOUT, "no backchannel: %d", rc);
	CHECK(rpcrdma_clnt_set_backchannel(c, cbsvc) == 0, "set again");
	for (uint32_t k = 0; k < 20; k++)
		CHECK(one(c, 9000 + k, 0) == 0, "after the timeout %u", k);
	printf("timeout: -ETIMEDOUT without a backchannel, then 20 answered\n");

	CHECK(rpcrdma_clnt_set_backchannel(c, NULL) == 0, "clear");
	unsigned i = st.sent;
	CHECK(ask(c, 1, 1, 600000) == 1, "pending call: %d", st.last_err);
	rpcrdma_clnt_destroy(c);
	CHECK(bc_wait_done(&st, i + 1), "no completion after close");
	rc = bc_status(&st, i);
	CHECK(rc == -ECONNRESET, "after close: %d", rc);
	CHECK(rpcrdma_svc_conn_connected(st.conn) == 0, "still connected");
	printf("close: -ECONNRESET, handle disconnected\n");

	struct rpcrdma_stats ls;
	rpcrdma_listener_stats(listener, &ls);
	printf("listener: calls %llu err_credit_overrun %llu rq_starved %llu\n",
	       (unsigned long long)ls.v[RPCRDMA_STAT_CALLS],
	       (unsigned long long)ls.v[RPCRDMA_STAT_ERR_CREDIT],
	       (unsigned long long)ls.v[RPCRDMA_STAT_RQ_STARVED]);
	CHECK(ls.v[RPCRDMA_STAT_ERR_CREDIT] == 0 && ls.v[RPCRDMA_STAT_RQ_STARVED] == 0,
	      "credit overrun or starved receives");
	rpcrdma_svc_destroy(svc);
	rpcrdma_svc_destroy(cbsvc);
	rpcrdma_poller_destroy(poller);
	bc_state_fini(&st);
	printf("PASS\n");
	return 0;
}
