/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's Sends batched per completion round (issue 35): the calls a
 * round's done callbacks make go out in one ibv_post_send at the round's
 * end (a call made outside a round at once), one Send in sig_every still
 * signaled; a connection that breaks in the round gives every queued Send
 * back, never posted (by the drain on RoCE, at the flush on iWARP), and a
 * post of the batch that fails breaks the connection and loses no buffer.
 *
 * White-box over the fake device (fake_verbs.c): a client and a connected
 * connection built as rdma_client_connect.c builds them (the fake has no
 * address resolution), its completions handed to their handlers as the
 * poller does, inside a batch (rpcrdma__batch_begin/end: poll_some).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fake_verbs.h"
#include "rdma/client/rdma_client_int.h"

#define DEPTH 16u

static struct {
	struct rpcrdma_poller *p;
	struct rpcrdma_client *c;
	struct cconn *cc;
	struct ibv_cq *cq;
	struct rpcrdma_client_call calls[DEPTH];
	struct iovec iov[DEPTH];
	uint8_t msg[DEPTH][8];
	uint8_t reply[DEPTH][64];
	unsigned done;
	int last_status;
} T;

static void on_done(struct rpcrdma_client_call *call, int status, void *arg)
{
	(void)call;
	(void)arg;
	T.done++;
	T.last_status = status;
}

/* A client as rpcrdma_client_create makes it, without connecting. */
static struct rpcrdma_client *client_new(void)
{
	struct rpcrdma_client *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	rpcrdma_client_opts_init(&c->opts);
	c->recv_done = rpcrdma__client_recv_done;
	c->send_done = rpcrdma__client_send_done;
	c->poller = T.p;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->connect_lock, NULL);
	pthread_cond_init(&c->reap_cv, NULL);
	rpcrdma__list_init(&c->waiting);
	rpcrdma__list_init(&c->sent);
	rpcrdma__list_init(&c->graveyard);
	rpcrdma__bcache_init(&c->creq_cache, 2 * c->opts.max_credits);
	rpcrdma_client_credits_init(&c->credits, c->opts.max_credits);
	rpcrdma_client_credits_update(&c->credits, c->opts.max_credits);
	c->reap_src.fd = -1;
	c->xmask = 255;
	c->xbuckets = calloc(c->xmask + 1u, sizeof(*c->xbuckets));
	assert_non_null(c->xbuckets);
	return c;
}

/* A connected connection on the fake device (rdma_client_connect.c's
 * cconn_alloc, cconn_qp_setup, cconn_send_setup), current and ready. */
static void connect_fake(bool iwarp)
{
	struct cconn *cc = calloc(1, sizeof(*cc));
	struct rpcrdma_client *c = T.c;

	assert_non_null(cc);
	cc->c = c;
	atomic_init(&cc->refs, 1);
	pthread_mutex_init(&cc->buf_lock, NULL);
	rpcrdma__list_init(&cc->rbufs);
	rpcrdma__list_init(&cc->wbufs);
	rpcrdma__list_init(&cc->posted);
	cc->ech = rdma_create_event_channel();
	assert_int_equal(rdma_create_id(cc->ech, &cc->id, NULL, RDMA_PS_TCP), 0);
	cc->id->verbs = &FV->ctx;
	cc->pd = ibv_alloc_pd(&FV->ctx);
	T.cq = ibv_create_cq(&FV->ctx, 256, NULL, NULL, 0);
	struct ibv_qp_init_attr qa = {
		.send_cq = T.cq, .recv_cq = T.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH + 1, .max_recv_wr = DEPTH, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	assert_int_equal(rdma_create_qp(cc->id, cc->pd, &qa), 0);
	cc->qp = cc->id->qp;
	cc->sq_depth = DEPTH;
	cc->no_drain = iwarp;
	cc->sig_every = iwarp ? 1 : 4;
	cc->send_max = c->opts.send_inline;
	assert_int_equal(rpcrdma__pool_init(&cc->send_pool, cc->pd, c->send_done, DEPTH,
					    sizeof(struct csend), c->opts.send_inline,
					    IBV_ACCESS_LOCAL_WRITE), 0);
	cc->drain = calloc(1, sizeof(*cc->drain));
	assert_non_null(cc->drain);
	cc->drain->c.cqe.done = c->send_done;
	cc->drain->cc = cc;
	c->cc = cc;
	atomic_store(&c->ready, true);
	T.cc = cc;
}

static void setup(bool iwarp)
{
	struct rpcrdma_poller_opts po;

	fv_init();
	FV->iwarp = iwarp;
	memset(&T, 0, sizeof(T));
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&po, &T.p), 0);
	T.c = client_new();
	connect_fake(iwarp);
}

/* The completions the fake queued, to their handlers, in one round as
 * the poller's poll_some runs them; how many. */
static unsigned poll_round(void)
{
	struct ibv_wc wc[64];
	int k = ibv_poll_cq(T.cq, 64, wc);

	rpcrdma__batch_begin();
	for (int i = 0; i < k; i++) {
		struct rpcrdma__cqe *cqe = (struct rpcrdma__cqe *)(uintptr_t)wc[i].wr_id;

		cqe->done(cqe, &wc[i]);
	}
	rpcrdma__batch_end();
	return k > 0 ? (unsigned)k : 0;
}

static void teardown(void)
{
	if (T.c->cc)
		rpcrdma__client_break(T.c, T.c->cc, -ECANCELED);
	while (poll_round())
		;
	/* Every Send given back: the pool full, no reference left. */
	assert_int_equal(T.cc->send_pool.nfree, T.cc->send_pool.count);
	assert_int_equal(atomic_load(&T.cc->refs), 0);
	rpcrdma_client_destroy(T.c);
	ibv_destroy_cq(T.cq);
	rpcrdma_poller_destroy(T.p);
	fv_fini();
}

static int call(unsigned i)
{
	uint32_t xid = htonl(0x1000 + i);

	memcpy(T.msg[i], &xid, 4);
	memset(T.msg[i] + 4, 0, 4);
	T.iov[i].iov_base = T.msg[i];
	T.iov[i].iov_len = sizeof(T.msg[i]);
	memset(&T.calls[i], 0, sizeof(T.calls[i]));
	T.calls[i].size = sizeof(T.calls[i]);
	T.calls[i].iov = &T.iov[i];
	T.calls[i].iovcnt = 1;
	T.calls[i].reply_buf = T.reply[i];
	T.calls[i].reply_len = sizeof(T.reply[i]);
	return rpcrdma_client_call_async(T.c, &T.calls[i], on_done, NULL);
}

static uint64_t stat(enum rpcrdma_stat s)
{
	struct rpcrdma_stats st;

	rpcrdma_client_stats(T.c, &st);
	return st.v[s];
}

/* Eight calls made in one round: one post at its end, eight Sends, one in
 * four signaled; a call outside a round posts at once. */
static void test_round_one_post(void **state)
{
	(void)state;
	setup(false);
	rpcrdma__batch_begin();
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(call(i), 0);
	assert_int_equal(FV->posts, 0);         /* nothing before the round ends */
	rpcrdma__batch_end();
	assert_int_equal(FV->posts, 1);
	assert_int_equal(FV->nwrs, 8);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(FV->wrs[i].opcode, IBV_WR_SEND);
		assert_int_equal(!!(FV->wrs[i].send_flags & IBV_SEND_SIGNALED), i % 4 == 3);
		assert_int_equal(FV->wrs[i].len, RPCRDMA_HDRLEN_MIN + 8);
	}
	assert_int_equal(stat(RPCRDMA_STAT_SENDS_BATCHED), 7);
	assert_int_equal(atomic_load(&T.cc->refs), 1 + 8);  /* the batch's went */
	assert_int_equal(call(8), 0);
	assert_int_equal(FV->posts, 2);
	assert_int_equal(FV->nwrs, 9);
	teardown();
	assert_int_equal(T.done, 9);
}

/* Calls queued in a round whose connection then breaks (a flushed
 * receive handled later in the same poll): none of their Sends is posted,
 * the drain gives them back with the rest. */
static void test_round_break_drain(void **state)
{
	(void)state;
	setup(false);
	assert_int_equal(call(0), 0);           /* posted at once */
	rpcrdma__batch_begin();
	for (unsigned i = 1; i < 5; i++)
		assert_int_equal(call(i), 0);
	rpcrdma__client_break(T.c, T.cc, -ECONNRESET);
	assert_int_equal(T.done, 5);
	assert_int_equal(T.last_status, -ECONNRESET);
	rpcrdma__batch_end();
	/* The first call's Send and the drain, no more. */
	assert_int_equal(FV->posts, 2);
	assert_int_equal(FV->nwrs, 2);
	assert_int_equal(FV->wrs[1].wr_id, (uintptr_t)&T.cc->drain->c);
	teardown();
}

/* The same on iWARP (no drain: a WR posted after the QP left RTS never
 * completes): the flush gives the queued Sends back at once. */
static void test_round_break_iwarp(void **state)
{
	(void)state;
	setup(true);
	rpcrdma__batch_begin();
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(call(i), 0);
	rpcrdma__client_break(T.c, T.cc, -ECONNRESET);
	rpcrdma__batch_end();
	assert_int_equal(FV->nwrs, 0);
	assert_int_equal(T.done, 4);
	assert_int_equal(T.cc->send_pool.nfree, T.cc->send_pool.count);
	assert_int_equal(atomic_load(&T.cc->refs), 0);
	teardown();
}

/* The batch's post fails at its third Send (the provider's bad_wr): the
 * two before it went out, the rest go back, the connection breaks. */
static void test_round_post_fails(void **state)
{
	(void)state;
	setup(false);
	rpcrdma__batch_begin();
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(call(i), 0);
	FV->fail_wr = 3;                        /* the fake refuses the third */
	rpcrdma__batch_end();
	assert_int_equal(FV->posts, 2);         /* the batch's, the drain's */
	assert_int_equal(FV->nwrs, 3);          /* two Sends and the drain */
	assert_int_equal(FV->wrs[2].wr_id, (uintptr_t)&T.cc->drain->c);
	assert_int_equal(stat(RPCRDMA_STAT_SENDS_BATCH_LOST), 1);
	assert_int_equal(T.done, 5);
	assert_int_equal(T.last_status, -ECONNRESET);
	assert_null(T.c->cc);
	teardown();
}

static void *call_two(void *arg)
{
	(void)arg;
	assert_false(rpcrdma__batch_open());
	assert_int_equal(call(2), 0);
	return NULL;
}

/* A call made on another thread, outside any round, while this thread's
 * batch holds Sends for the connection: posted at once, behind them, in
 * the same list (the send queue's order is cc->posted's). */
static void test_direct_behind_queue(void **state)
{
	pthread_t t;

	(void)state;
	setup(false);
	rpcrdma__batch_begin();
	assert_int_equal(call(0), 0);
	assert_int_equal(call(1), 0);
	assert_int_equal(pthread_create(&t, NULL, call_two, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(FV->posts, 1);
	assert_int_equal(FV->nwrs, 3);
	for (unsigned i = 0; i < 3; i++) {       /* in order: the header's xid first */
		uint32_t xid;

		memcpy(&xid, FV->wrs[i].msg, 4);
		assert_int_equal(ntohl(xid), 0x1000 + i);
	}
	rpcrdma__batch_end();                   /* nothing left to post */
	assert_int_equal(FV->posts, 1);
	teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_one_post),
		cmocka_unit_test(test_round_break_drain),
		cmocka_unit_test(test_round_break_iwarp),
		cmocka_unit_test(test_round_post_fails),
		cmocka_unit_test(test_direct_behind_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
