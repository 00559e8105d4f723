/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-bc-hostile ADDR: the service's backward direction against a raw
 * rdma_cm/verbs client that misbehaves, in one process: the service (the
 * CALLBACK program of tests/unit/bc_util.h) listens on ADDR, the raw
 * client connects and
 *   1. asks for one backward call and checks it on the wire: RDMA_MSG,
 *      transport xid = RPC xid, rdma_credit 2, no chunks, RPC CALL of the
 *      callback program;
 *   2. answers it with garbage (reply_stat 7) granting 0xffffffff credits:
 *      the call fails -EBADMSG, the grant is capped at 2;
 *   3. sends 50 replies nobody asked for (wrong xids, a verifier length
 *      of 0xfffffffc, 4 KiB ones): dropped, the connection stays;
 *   4. asks for 3 calls at once: 2 go (the cap), the third -EAGAIN;
 *      answers the first properly and never the second: 0 and -ETIMEDOUT;
 *   5. a NULL call is still answered; no credit overrun was counted.
 * Prints each step and "PASS"; exit 0 on PASS.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/poller.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/svc.h>
#include <rpcrdma/xprt.h>

#include "../../unit/bc_util.h"
#include "vm_check.h"
#include "rdma_conn.h"

#define NRECV 8
#define BUFSZ 4096

static struct bc_state st;

struct raw {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;                   /* NRECV receive buffers, then the send one */
	struct ibv_wc stash[NRECV];
	int nstash;
};

static void post_recv(struct raw *c, int i)
{
	struct ibv_sge sge = { (uintptr_t)(c->buf + i * BUFSZ), BUFSZ, c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;
	CHECK(ibv_post_recv(c->id->qp, &wr, &bad) == 0, "post_recv");
}

static void raw_open(struct raw *c, struct sockaddr *dst)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 16, .max_recv_wr = NRECV,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct rdma_conn_param p = { 0 };
	struct rpcrdma_cm_private priv = { false, BUFSZ, BUFSZ };

	memset(c, 0, sizeof(*c));
	CHECK(rc_resolve(&c->ech, &c->id, dst) == 0, "resolve");
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, 64, NULL, NULL, 0);
	c->buf = calloc(NRECV + 1, BUFSZ);
	CHECK(c->pd && c->cq && c->buf, "verbs objects");
	c->mr = ibv_reg_mr(c->pd, c->buf, (NRECV + 1) * BUFSZ, IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = qa.recv_cq = c->cq;
	CHECK(c->mr && rdma_create_qp(c->id, c->pd, &qa) == 0, "qp");
	for (int i = 0; i < NRECV; i++)
		post_recv(c, i);
	p.initiator_depth = p.responder_resources = 1;
	CHECK(rc_connect(c->ech, c->id, &p, &priv) == 0, "connect");
}

static void raw_close(struct raw *c)
{
	rc_disconnect(c->id);
	ibv_dereg_mr(c->mr);
	rc_release(c->ech, c->id, c->pd, c->cq);
	free(c->buf);
}

static void send_raw(struct raw *c, const void *msg, size_t len)
{
	uint8_t *sbuf = c->buf + NRECV * BUFSZ;
	struct ibv_sge sge = { (uintptr_t)sbuf, (uint32_t)len, c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1000, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	memcpy(sbuf, msg, len);
	CHECK(ibv_post_send(c->id->qp, &wr, &bad) == 0, "post_send");
	for (long spins = 0; spins < 2000000000L; spins++) {
		int n = ibv_poll_cq(c->cq, 1, &wc);
		CHECK(n >= 0, "poll");
		if (n == 0)
			continue;
		if (wc.wr_id == 1000) {
			CHECK(wc.status == IBV_WC_SUCCESS, "send status %d", wc.status);
			return;
		}
		CHECK(c->nstash < NRECV, "stash full");
		c->stash[c->nstash++] = wc;
	}
	CHECK(0, "no send completion");
}

/* One received message (bounded wait): its length, its buffer in *idx. */
static int recv_one(struct raw *c, int *idx)
{
	struct ibv_wc wc;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n;
		if (c->nstash) {
			wc = c->stash[0];
			memmove(c->stash, c->stash + 1, (size_t)--c->nstash * sizeof(wc));
			n = 1;
		} else {
			n = ibv_poll_cq(c->cq, 1, &wc);
		}
		CHECK(n >= 0, "poll");
		if (n == 1) {
			CHECK(wc.status == IBV_WC_SUCCESS, "recv status %d", wc.status);
			*idx = (int)wc.wr_id;
			return (int)wc.byte_len;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		CHECK(t.tv_sec - t0.tv_sec < 60, "nothing received in 60 s");
	}
}

static uint32_t get(const uint8_t *b, int word)
{
	uint32_t v;
	memcpy(&v, b + 4 * word, 4);
	return ntohl(v);
}

static size_t put_words(uint8_t *b, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = htonl(w[i]);
		memcpy(b + 4 * i, &v, 4);
	}
	return 4 * n;
}

/* A forward call of BC_PROG (proc 1: CALLBACK n value timeout; proc 0). */
static void fore_call(struct raw *c, uint32_t xid, uint32_t proc, uint32_t n, uint32_t value,
		      uint32_t timeout_ms)
{
	uint8_t m[128];
	uint32_t w[] = { xid, 1, 8, 0, 0, 0, 0,
			 xid, 0, 2, BC_PROG, 1, proc, 0, 0, 0, 0, n, value, timeout_ms, 0 };
	send_raw(c, m, put_words(m, w, proc ? 21 : 17));
}

struct msg {
	uint32_t xid, type, credits, w[10];
};

/* The next message: a forward reply (type 1) or a backward call (0). */
static struct msg next_msg(struct raw *c)
{
	int idx, n = recv_one(c, &idx);
	const uint8_t *b = c->buf + idx * BUFSZ;
	struct msg m = { 0 };
	CHECK(n >= 28 + 8, "short message %d", n);
	CHECK(get(b, 1) == 1 && get(b, 3) == 0 && !get(b, 4) && !get(b, 5) && !get(b, 6),
	      "not RDMA_MSG without chunks");
	m.xid = get(b, 7);
	CHECK(get(b, 0) == m.xid, "transport xid %08x != RPC xid %08x", get(b, 0), m.xid);
	m.type = get(b, 8);
	m.credits = get(b, 2);
	for (int i = 0; i < 10 && 36 + 4 * i + 4 <= n; i++)
		m.w[i] = get(b, 9 + i);
	post_recv(c, idx);
	return m;
}

/* A backward reply for xid: granting credits, with reply_stat etc. in w. */
static void reply(struct raw *c, uint32_t xid, uint32_t credits, const uint32_t *w, size_t nw,
		  size_t pad_to)
{
	static uint8_t m[BUFSZ];
	uint32_t h[] = { xid, 1, credits, 0, 0, 0, 0, xid, 1 };
	size_t len = put_words(m, h, 9);
	len += put_words(m + len, w, nw);
	if (pad_to > len) {
		memset(m + len, 0xa5, pad_to - len);
		len = pad_to;
	}
	send_raw(c, m, len);
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE }, *ai;
	struct rpcrdma_poller *poller;
	struct rpcrdma_poller_opts po;
	struct rpcrdma_svc *svc;
	struct rpcrdma_listener *listener;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	struct raw c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(argc == 2 && getaddrinfo(argv[1], "0", &hints, &ai) == 0, "usage: rdma-bc-hostile ADDR");
	bc_state_init(&st);
	rpcrdma_poller_opts_init(&po);
	CHECK(rpcrdma_poller_create(&po, &poller) == 0, "poller");
	CHECK(rpcrdma_svc_create(NULL, &svc) == 0, "svc");
	struct rpcrdma_svc_program p = bc_program(&st);
	CHECK(rpcrdma_svc_register(svc, &p) == 0, "register");
	int rc = rpcrdma_svc_listen_rdma(svc, poller, ai->ai_addr, NULL, &bound, &blen, &listener);
	CHECK(rc == 0, "listen_rdma: %d", rc);
	freeaddrinfo(ai);
	CHECK(rpcrdma_svc_start(svc) == 0, "start");
	raw_open(&c, (struct sockaddr *)&bound);

	/* 1 */
	fore_call(&c, 100, 1, 1, 5, 600000);
	struct msg a = next_msg(&c), b = next_msg(&c);
	struct msg call = a.type == 0 ? a : b, rep = a.type == 0 ? b : a;
	CHECK(rep.type == 1 && rep.xid == 100 && rep.w[3] == 0 && rep.w[4] == 1,
	      "forward reply: type %u xid %u stat %u sent %u", rep.type, rep.xid, rep.w[3],
	      rep.w[4]);
	CHECK(call.type == 0 && call.w[0] == 2 && call.w[1] == CB_PROG && call.w[2] == 1 &&
	      call.w[3] == 1 && call.credits == 2,
	      "backward call: rpcvers %u prog %08x vers %u proc %u credits %u", call.w[0],
	      call.w[1], call.w[2], call.w[3], call.credits);
	printf("wire: RDMA_MSG, xid %08x in both headers, rdma_credit %u, CB_PROG v1 proc 1\n",
	       call.xid, call.credits);

	/* 2 */
	uint32_t garbage[] = { 7, 0 };
	reply(&c, call.xid, 0xffffffffu, garbage, 2, 0);
	CHECK(bc_wait_done(&st, 1), "no completion");
	CHECK(bc_status(&st, 0) == -EBADMSG, "garbage reply: %d", bc_status(&st, 0));
	printf("garbage reply: -EBADMSG\n");

	/* 3 */
	struct rpcrdma_svc_stats s0, s1;
	rpcrdma_svc_get_stats(svc, &s0, sizeof(s0));
	for (uint32_t i = 0; i < 50; i++) {
		uint32_t bad_verf[] = { 0, 0, 0xfffffffcu, 0 };
		uint32_t ok[] = { 0, 0, 0, 0, 42 };
		if (i % 3 == 0)
			reply(&c, 0xdead0000u + i, 1, bad_verf, 4, 0);
		else
			reply(&c, call.xid + 1000 + i, 0, ok, 5, i % 3 == 1 ? BUFSZ : 0);
	}
	fore_call(&c, 101, 0, 0, 0, 0);
	struct msg n0 = next_msg(&c);
	CHECK(n0.type == 1 && n0.xid == 101, "NULL after unsolicited replies");
	rpcrdma_svc_get_stats(svc, &s1, sizeof(s1));
	printf("unsolicited: 50 replies dropped (svc dropped +%llu), NULL call answered\n",
	       (unsigned long long)(s1.dropped - s0.dropped));
	CHECK(s1.dropped - s0.dropped == 50, "dropped %llu",
	      (unsigned long long)(s1.dropped - s0.dropped));

	/* 4 */
	st.last_err = 0;
	fore_call(&c, 102, 1, 3, 10, 500);
	struct msg m[3];
	for (int i = 0; i < 3; i++)
		m[i] = next_msg(&c);
	int calls[2], nc = 0, fore = -1;
	for (int i = 0; i < 3; i++) {
		if (m[i].type == 0 && nc < 2)
			calls[nc++] = i;
		else
			fore = i;
	}
	CHECK(nc == 2 && fore >= 0 && m[fore].xid == 102 && m[fore].w[4] == 2,
	      "burst: %d calls, forward sent %u", nc, fore >= 0 ? m[fore].w[4] : 0);
	CHECK(st.last_err == -EAGAIN, "third call: %d", st.last_err);
	uint32_t inc[] = { 0, 0, 0, 0, m[calls[0]].w[8] + 1 };
	reply(&c, m[calls[0]].xid, 2, inc, 5, 0);
	CHECK(bc_wait_done(&st, 3), "burst completions");
	unsigned first = m[calls[0]].w[8] == 10 ? 1 : 2;
	CHECK(bc_status(&st, first) == 0 && bc_status(&st, 3 - first) == -ETIMEDOUT,
	      "answered %d, unanswered %d", bc_status(&st, first), bc_status(&st, 3 - first));
	printf("burst: 2 sent, the third -EAGAIN; answered 0, unanswered -ETIMEDOUT\n");

	/* 5 */
	fore_call(&c, 103, 0, 0, 0, 0);
	struct msg n1 = next_msg(&c);
	CHECK(n1.type == 1 && n1.xid == 103, "final NULL");
	struct rpcrdma_stats ls;
	rpcrdma_listener_stats(listener, &ls);
	printf("listener: err_credit_overrun %llu rq_starved %llu policy_closes %llu\n",
	       (unsigned long long)ls.v[RPCRDMA_STAT_ERR_CREDIT],
	       (unsigned long long)ls.v[RPCRDMA_STAT_RQ_STARVED],
	       (unsigned long long)ls.v[RPCRDMA_STAT_POLICY_CLOSE]);
	CHECK(ls.v[RPCRDMA_STAT_ERR_CREDIT] == 0 && ls.v[RPCRDMA_STAT_POLICY_CLOSE] == 0,
	      "the connection was policed");
	raw_close(&c);
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(poller);
	bc_state_fini(&st);
	printf("PASS\n");
	return 0;
}
