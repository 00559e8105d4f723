/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * No reply is lost for want of a send context (issue 23 item 14), driven
 * without a device: a connection of the server transport built by hand
 * around a fake queue pair whose verbs ops (post_send, post_recv) record
 * what the library posts, and receive and send completions handed to the
 * library's own completion handlers (rpcrdma__recv_done,
 * rpcrdma__send_done) as the poller would.  The handler answers every call
 * at once; the Sends' completions are held back, as when the poller is
 * slow to reach them or the client slow to acknowledge: calls beyond the
 * free send contexts must wait and be answered when a Send completes, each
 * exactly once, and none dropped.  The verbs paths themselves are proven
 * over soft-RoCE (tests/vm/payloads/rdma-flood).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "rdma/rdma_internal.h"

#define GRANT 4u
#define NCALLS 200u
#define MAXPOSTED 512u

struct fake {
	struct ibv_device device;       /* transport_type IB: posts go straight */
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct rpcrdma_listener l;
	struct rpcrdma__dev dev;
	struct rpcrdma__conn conn;
	struct rpcrdma__pool recv_pool;   /* the calls, buffers set by hand */
	uint8_t *bufs;
	/* Sends posted, in order: context, signaled, the reply's xid. */
	struct {
		struct rpcrdma__ctxt *c;
		bool signaled;
		uint32_t xid;
	} posted[MAXPOSTED];
	unsigned nposted, ncompleted;     /* Sends given back so far: [0, ncompleted) */
	unsigned recv_posts, handled;
	unsigned answered[NCALLS];        /* per call index: replies posted */
};

static struct fake *F;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	(void)bad;
	for (; wr; wr = wr->next) {
		uint32_t xid;

		assert_int_equal(wr->opcode, IBV_WR_SEND);
		assert_true(F->nposted < MAXPOSTED);
		memcpy(&xid, (const void *)(uintptr_t)wr->sg_list[0].addr, 4);
		F->posted[F->nposted].c = (struct rpcrdma__ctxt *)(uintptr_t)wr->wr_id;
		F->posted[F->nposted].signaled = wr->send_flags & IBV_SEND_SIGNALED;
		F->posted[F->nposted].xid = ntohl(xid);
		F->nposted++;
		if (ntohl(xid) < NCALLS)
			F->answered[ntohl(xid)]++;
	}
	return 0;
}

/* A receive posted again is at once free for the client's next call. */
static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	F->recv_posts++;
	rpcrdma__pool_put((struct rpcrdma__ctxt *)(uintptr_t)wr->wr_id);
	return 0;
}

/* Echo: the reply is the call's xid and five words of an accepted reply. */
static void handler(struct rpcrdma_call *call, void *arg)
{
	unsigned n;
	const struct iovec *iov = rpcrdma_call_payload(call, &n);
	uint32_t w[6] = { 0, htonl(1), 0, 0, 0, 0 };
	struct iovec out = { w, sizeof(w) };
	struct rpcrdma_reply r = { .size = sizeof(r), .iov = &out, .iovcnt = 1 };

	(void)arg;
	assert_true(n == 1 && iov[0].iov_len >= 4);
	memcpy(&w[0], iov[0].iov_base, 4);
	F->handled++;
	assert_int_equal(rpcrdma_call_reply(call, &r), 0);
}

static void setup_fake(void)
{
	struct rpcrdma__conn *conn;

	F = calloc(1, sizeof(*F));
	assert_non_null(F);
	F->device.transport_type = IBV_TRANSPORT_IB;
	F->ctx.device = &F->device;
	F->ctx.ops.post_send = fake_post_send;
	F->ctx.ops.post_recv = fake_post_recv;
	F->qp.context = &F->ctx;
	rpcrdma_listener_opts_init(&F->l.opts);
	F->l.handler = handler;
	F->dev.l = &F->l;

	conn = &F->conn;
	conn->l = &F->l;
	conn->dev = &F->dev;
	conn->qp = &F->qp;
	atomic_init(&conn->refs, 1000000);   /* never freed here */
	pthread_mutex_init(&conn->lock, NULL);
	pthread_mutex_init(&conn->read_lock, NULL);
	rpcrdma__list_init(&conn->sq_wait);
	rpcrdma__list_init(&conn->send_wait);
	rpcrdma__list_init(&conn->sends);
	conn->state = RPCRDMA__CONN_CONNECTED;
	assert_int_equal(rpcrdma_credits_init(&conn->credits, GRANT, GRANT), 0);
	assert_int_equal(rpcrdma_credits_grant(&conn->credits), GRANT);
	conn->peer_recv_inline = conn->peer_send_inline = 1024;
	conn->send_inline = 1024;
	conn->sig_every = RPCRDMA__SIG_EVERY;
	conn->sq_depth = GRANT * 2 + 8 + conn->sig_every + 1;  /* as conn_setup */
	conn->sq_avail = conn->sq_depth - 1;

	/* The pools as rpcrdma__conn_accept sizes them, their buffers by hand
	 * (no protection domain to register them with). */
	unsigned nsend = GRANT + 8 + conn->sig_every;

	assert_int_equal(rpcrdma__pool_init(&conn->send_pool, NULL, rpcrdma__send_done, nsend,
					    sizeof(struct rpcrdma__send), 0, 0), 0);
	assert_int_equal(rpcrdma__pool_init(&F->recv_pool, NULL, rpcrdma__recv_done, GRANT,
					    sizeof(struct rpcrdma_call), 0, 0), 0);
	F->bufs = calloc(nsend + GRANT, 1024);
	assert_non_null(F->bufs);
	conn->send_pool.buf_size = 1024;
	for (unsigned i = 0; i < nsend; i++)
		((struct rpcrdma__ctxt *)(void *)(conn->send_pool.ctxts +
			i * conn->send_pool.ctxt_size))->buf = F->bufs + i * 1024;
	F->recv_pool.buf_size = 1024;
	for (unsigned i = 0; i < GRANT; i++)
		((struct rpcrdma__ctxt *)(void *)(F->recv_pool.ctxts +
			i * F->recv_pool.ctxt_size))->buf = F->bufs + (nsend + i) * 1024;
}

static void teardown_fake(void)
{
	rpcrdma__pool_fini(&F->conn.send_pool);
	rpcrdma__pool_fini(&F->recv_pool);
	free(F->bufs);
	free(F);
	F = NULL;
}

/* A message of len bytes arrives in a receive buffer of the connection's. */
static void arrive_msg(const uint32_t *w, uint32_t len)
{
	struct rpcrdma_call *call = (struct rpcrdma_call *)rpcrdma__pool_get(&F->recv_pool);
	struct ibv_wc wc = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV, .byte_len = len };

	/* A compliant client: never more calls out than receives posted. */
	assert_non_null(call);
	memcpy(call->c.buf, w, len);
	call->conn = &F->conn;
	call->dev = &F->dev;
	rpcrdma__conn_get(&F->conn);   /* the posted receive's reference */
	wc.wr_id = (uintptr_t)&call->c;
	call->c.cqe.done(&call->c.cqe, &wc);   /* as the poller does */
}

/* A NULL call of xid x. */
static void arrive(uint32_t x)
{
	uint32_t w[17] = { htonl(x), htonl(1), htonl(GRANT), htonl(RPCRDMA_MSG), 0, 0, 0,
			   htonl(x), 0, htonl(2), htonl(0x20049001u), htonl(1), 0, 0, 0, 0, 0 };

	arrive_msg(w, sizeof(w));
}

/* The completion of the newest signaled Send not yet given back (the
 * silent ones before it go back with it); false if there is none. */
static bool complete_one(void)
{
	for (unsigned i = F->nposted; i-- > F->ncompleted;) {
		if (!F->posted[i].signaled)
			continue;
		struct ibv_wc wc = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND,
				     .wr_id = (uintptr_t)F->posted[i].c };

		F->ncompleted = i + 1;
		F->posted[i].c->cqe.done(&F->posted[i].c->cqe, &wc);
		return true;
	}
	return false;
}

/* What the drain's completion does: every Send still posted comes back
 * (the silent ones after the last signaled Send too). */
static void complete_all(void)
{
	struct rpcrdma__list done;

	while (complete_one())
		;
	rpcrdma__list_init(&done);
	rpcrdma__conn_sends_done(&F->conn, NULL, &done);
	rpcrdma__sends_release(&done);
	F->ncompleted = F->nposted;
}

static uint64_t stat(enum rpcrdma_stat s)
{
	return atomic_load(&F->conn.stats.v[s]);
}

/*
 * Calls arrive as fast as receives are posted again, while no Send
 * completes: the first grant + 24 are answered at once, the next wait
 * holding their receives (so the compliant client stops: it has no
 * credit left), and each Send completion lets the waiting ones through.
 * Every call is answered exactly once, in order, none dropped.
 */
static void test_calls_wait_for_send_contexts(void **state)
{
	uint32_t next = 0;
	unsigned rounds = 0;

	(void)state;
	setup_fake();
	while (next < NCALLS && rounds++ < 10 * NCALLS) {
		/* As many calls as there are receives (the client's credits). */
		while (next < NCALLS && F->recv_pool.nfree > 0)
			arrive(next++);
		/* Then one Send completion, when the client is stuck. */
		if (F->recv_pool.nfree == 0)
			assert_true(complete_one());
	}
	complete_all();
	assert_int_equal(next, NCALLS);
	assert_int_equal(F->handled, NCALLS);
	for (unsigned i = 0; i < NCALLS; i++)
		assert_int_equal(F->answered[i], 1);
	for (unsigned i = 1; i < F->nposted; i++)
		assert_true(F->posted[i].xid == F->posted[i - 1].xid + 1);  /* in order */
	assert_true(stat(RPCRDMA_STAT_SEND_WAITED) > 0);
	assert_int_equal(stat(RPCRDMA_STAT_SEND_DROPPED), 0);
	assert_int_equal(stat(RPCRDMA_STAT_REPLIES), NCALLS);
	assert_int_equal(stat(RPCRDMA_STAT_ERR_CREDIT), 0);
	assert_int_equal(atomic_load(&F->conn.outstanding), 0);
	assert_true(rpcrdma__list_empty(&F->conn.send_wait));
	/* Every context back: none held by a call or a Send. */
	assert_int_equal(F->conn.send_pool.nfree, F->conn.send_pool.count);
	assert_int_equal(F->recv_pool.nfree, GRANT);
	teardown_fake();
}

/*
 * An RDMA_ERROR the server owes (a malformed call) finds its context the
 * same way: malformed calls that arrive while every context is in a Send
 * wait, and are answered with ERR_CHUNK once a Send completes.
 */
static void test_errors_wait_too(void **state)
{
	uint32_t x = 0;
	unsigned errs = 0;

	(void)state;
	setup_fake();
	while (F->conn.send_pool.nfree > 0)
		arrive(x++);
	assert_int_equal(stat(RPCRDMA_STAT_SEND_WAITED), 0);
	assert_int_equal(F->nposted, x);
	for (uint32_t i = 0; i < GRANT; i++) {
		uint32_t w[7] = { htonl(5000 + i), htonl(1), htonl(1), htonl(7), 0, 0, 0 };

		arrive_msg(w, sizeof(w));
	}
	assert_int_equal(stat(RPCRDMA_STAT_SEND_WAITED), GRANT);
	assert_int_equal(F->nposted, x);       /* nothing answered yet */
	assert_int_equal(F->recv_pool.nfree, 0);
	while (complete_one())
		;
	for (unsigned i = x; i < F->nposted; i++) {
		assert_int_equal(F->posted[i].xid, 5000 + i - x);
		errs++;
	}
	assert_int_equal(errs, GRANT);
	assert_int_equal(stat(RPCRDMA_STAT_ERR_CHUNK), GRANT);
	assert_int_equal(stat(RPCRDMA_STAT_SEND_DROPPED), 0);
	assert_int_equal(atomic_load(&F->conn.outstanding), 0);
	complete_all();
	assert_int_equal(F->conn.send_pool.nfree, F->conn.send_pool.count);
	teardown_fake();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_wait_for_send_contexts),
		cmocka_unit_test(test_errors_wait_too),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
