/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The poller's completion dispatch, built from lib/rdma/poller.c and
 * lib/rdma/poller_cq.c alone (no transport linked: the poller knows only
 * struct rpcrdma__cqe).  Completion queues are fakes: an ibv_cq whose
 * context's poll_cq hands out the completions a test queued, each wr_id
 * the address of a test context whose done function records what it got.
 * DIRECT and BUSY pollers poll their CQs without completion channels, so
 * nothing here needs a device.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdma/poller_int.h"

#define QMAX 1024

/* A fake CQ: a ring of queued completions. */
struct fake_cq {
	struct ibv_context ctx;
	struct ibv_cq cq;
	pthread_mutex_t lock;
	struct ibv_wc q[QMAX];
	unsigned head, tail;    /* q[head, tail) queued */
	int max_asked;          /* largest num_entries of a poll */
	unsigned polls;
	struct rpcrdma__cq pcq; /* what the poller holds */
};

/* A test context: records its completions. */
struct rec {
	struct rpcrdma__cqe cqe;
	unsigned id;
};

struct log {
	pthread_mutex_t lock;
	unsigned n;
	unsigned ids[QMAX];
	struct ibv_wc wcs[QMAX];
	pthread_t thread[QMAX];
};

static struct log LOG = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake_cq *f = rpcrdma__container_of(cq, struct fake_cq, cq);
	int k = 0;

	pthread_mutex_lock(&f->lock);
	if (n > f->max_asked)
		f->max_asked = n;
	f->polls++;
	while (k < n && f->head != f->tail)
		wc[k++] = f->q[f->head++ % QMAX];
	pthread_mutex_unlock(&f->lock);
	return k;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return 0;
}

static void fake_init(struct fake_cq *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->ctx.ops.poll_cq = fake_poll_cq;
	f->ctx.ops.req_notify_cq = fake_req_notify_cq;
	f->cq.context = &f->ctx;
	f->pcq.cq = &f->cq;
	f->pcq.src.fd = -1;
	f->pcq.src.is_cq = true;
}

static void fake_push(struct fake_cq *f, struct rpcrdma__cqe *cqe, enum ibv_wc_status st,
		      enum ibv_wc_opcode op, uint32_t len)
{
	pthread_mutex_lock(&f->lock);
	assert_true(f->tail - f->head < QMAX);
	f->q[f->tail % QMAX] = (struct ibv_wc){ .wr_id = (uintptr_t)cqe, .status = st,
						.opcode = op, .byte_len = len };
	f->tail++;
	pthread_mutex_unlock(&f->lock);
}

static void rec_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct rec *r = rpcrdma__container_of(cqe, struct rec, cqe);

	pthread_mutex_lock(&LOG.lock);
	assert_true(LOG.n < QMAX);
	LOG.ids[LOG.n] = r->id;
	LOG.wcs[LOG.n] = *wc;
	LOG.thread[LOG.n] = pthread_self();
	LOG.n++;
	pthread_mutex_unlock(&LOG.lock);
}

/* A second kind of context, with its own done and layout (the cqe not
 * first), as a transport's contexts differ. */
struct other {
	uint64_t pad[3];
	struct rpcrdma__cqe cqe;
	unsigned hits;
};

static void other_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct other *o = rpcrdma__container_of(cqe, struct other, cqe);

	(void)wc;
	o->hits++;
}

static unsigned log_n(void)
{
	pthread_mutex_lock(&LOG.lock);
	unsigned n = LOG.n;

	pthread_mutex_unlock(&LOG.lock);
	return n;
}

static void log_reset(void)
{
	pthread_mutex_lock(&LOG.lock);
	LOG.n = 0;
	pthread_mutex_unlock(&LOG.lock);
}

static struct rpcrdma_poller *poller_with(enum rpcrdma_poller_mode mode, unsigned batch,
					  unsigned budget, struct fake_cq *f)
{
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;

	rpcrdma_poller_opts_init(&o);
	o.mode = mode;
	o.batch = batch;
	o.budget = budget;
	assert_int_equal(rpcrdma_poller_create(&o, &p), 0);
	/* As rpcrdma__poller_cq_get would place a CQ (poller_cq.c). */
	pthread_mutex_lock(&p->lock);
	f->pcq.src.poller = p;
	p->cqs[0] = &f->pcq;
	atomic_store(&p->ncqs, 1);
	pthread_mutex_unlock(&p->lock);
	return p;
}

static void poller_done(struct rpcrdma_poller *p)
{
	/* The fake is no verbs CQ: take it out before the poller destroys
	 * its CQs. */
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->ncqs, 0);
	pthread_mutex_unlock(&p->lock);
	rpcrdma_poller_destroy(p);
}

/* Each completion reaches its own context's done, in queue order, with
 * its work completion as polled; contexts of different kinds mix. */
static void test_dispatch_to_context(void **state)
{
	struct fake_cq *f = malloc(sizeof(*f));
	struct rec recs[4];
	struct other oth = { .hits = 0 };
	struct rpcrdma_poller *p;

	(void)state;
	log_reset();
	fake_init(f);
	oth.cqe.done = other_done;
	for (unsigned i = 0; i < 4; i++)
		recs[i] = (struct rec){ .cqe.done = rec_done, .id = 100 + i };
	p = poller_with(RPCRDMA_POLLER_DIRECT, 32, 256, f);
	fake_push(f, &recs[2].cqe, IBV_WC_SUCCESS, IBV_WC_RECV, 77);
	fake_push(f, &oth.cqe, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	fake_push(f, &recs[0].cqe, IBV_WC_WR_FLUSH_ERR, IBV_WC_RDMA_READ, 0);
	fake_push(f, &recs[3].cqe, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE, 5);
	fake_push(f, &oth.cqe, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	fake_push(f, &recs[2].cqe, IBV_WC_SUCCESS, IBV_WC_RECV, 4096);

	assert_int_equal(rpcrdma_poller_poll(p, 0), 6);
	assert_int_equal(oth.hits, 2);
	assert_int_equal(log_n(), 4);
	static const unsigned want_id[] = { 102, 100, 103, 102 };
	static const enum ibv_wc_status want_st[] = { IBV_WC_SUCCESS, IBV_WC_WR_FLUSH_ERR,
						      IBV_WC_REM_ACCESS_ERR, IBV_WC_SUCCESS };
	static const uint32_t want_len[] = { 77, 0, 5, 4096 };

	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(LOG.ids[i], want_id[i]);
		assert_int_equal(LOG.wcs[i].status, want_st[i]);
		assert_int_equal(LOG.wcs[i].byte_len, want_len[i]);
		assert_int_equal(LOG.wcs[i].wr_id, (uintptr_t)&recs[want_id[i] - 100].cqe);
	}
	/* Nothing queued: nothing dispatched. */
	assert_int_equal(rpcrdma_poller_poll(p, 0), 0);
	assert_int_equal(log_n(), 4);
	poller_done(p);
	free(f);
}

/* The poll's budget bounds the completions handled, batches bound each
 * poll of the CQ, and what is left is handled by the next poll, in order. */
static void test_budget_and_batch(void **state)
{
	struct fake_cq *f = malloc(sizeof(*f));
	struct rec *recs = calloc(100, sizeof(*recs));
	struct rpcrdma_poller *p;
	unsigned got = 0;
	int k;

	(void)state;
	log_reset();
	fake_init(f);
	p = poller_with(RPCRDMA_POLLER_DIRECT, 8, 64, f);
	for (unsigned i = 0; i < 100; i++) {
		recs[i] = (struct rec){ .cqe.done = rec_done, .id = i };
		fake_push(f, &recs[i].cqe, IBV_WC_SUCCESS, IBV_WC_SEND, i);
	}
	assert_int_equal(rpcrdma_poller_poll(p, 30), 30);
	assert_int_equal(log_n(), 30);
	assert_true(f->max_asked <= 8);
	/* 0: the poller's own budget (64). */
	assert_int_equal(rpcrdma_poller_poll(p, 0), 64);
	k = rpcrdma_poller_poll(p, 0);
	assert_int_equal(k, 6);
	assert_int_equal(log_n(), 100);
	for (unsigned i = 0; i < 100; i++)
		got += LOG.ids[i] == i;
	assert_int_equal(got, 100);
	poller_done(p);
	free(recs);
	free(f);
}

/* A done function may queue more work on its own CQ (a receive reposted,
 * a chain's next step): the same poll goes on with it, within budget. */
struct chain {
	struct rpcrdma__cqe cqe;
	struct fake_cq *f;
	unsigned left;
	unsigned runs;
};

static void chain_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct chain *c = rpcrdma__container_of(cqe, struct chain, cqe);

	(void)wc;
	c->runs++;
	if (c->left) {
		c->left--;
		fake_push(c->f, &c->cqe, IBV_WC_SUCCESS, IBV_WC_RECV, 0);
	}
}

static void test_done_requeues(void **state)
{
	struct fake_cq *f = malloc(sizeof(*f));
	struct chain c = { .cqe.done = chain_done, .left = 20 };
	struct rpcrdma_poller *p;

	(void)state;
	fake_init(f);
	c.f = f;
	p = poller_with(RPCRDMA_POLLER_DIRECT, 4, 16, f);
	fake_push(f, &c.cqe, IBV_WC_SUCCESS, IBV_WC_RECV, 0);
	/* A batch that came back short ends the poll: one each. */
	for (unsigned i = 0; i < 21; i++) {
		assert_int_equal(rpcrdma_poller_poll(p, 0), 1);
		assert_int_equal(c.runs, i + 1);
	}
	assert_int_equal(rpcrdma_poller_poll(p, 0), 0);
	/* Four chains at once: full batches go on polling. */
	c.left = 4 * 6;
	for (unsigned i = 0; i < 4; i++)
		fake_push(f, &c.cqe, IBV_WC_SUCCESS, IBV_WC_RECV, 0);
	assert_int_equal(rpcrdma_poller_poll(p, 0), 16);
	assert_int_equal(c.runs, 21 + 16);
	poller_done(p);
	free(f);
}

/* A BUSY poller's thread dispatches completions as they are queued. */
static void test_busy_thread_dispatches(void **state)
{
	struct fake_cq *f = malloc(sizeof(*f));
	struct rec recs[50];
	struct rpcrdma_poller *p;

	(void)state;
	log_reset();
	fake_init(f);
	p = poller_with(RPCRDMA_POLLER_BUSY, 32, 256, f);
	for (unsigned i = 0; i < 50; i++) {
		recs[i] = (struct rec){ .cqe.done = rec_done, .id = i };
		fake_push(f, &recs[i].cqe, IBV_WC_SUCCESS, IBV_WC_RECV, i);
		if (i % 10 == 9)
			usleep(1000);
	}
	/* Liveness only: generous. */
	for (int i = 0; i < 10000 && log_n() < 50; i++)
		usleep(1000);
	assert_int_equal(log_n(), 50);
	for (unsigned i = 0; i < 50; i++) {
		assert_int_equal(LOG.ids[i], i);
		assert_false(pthread_equal(LOG.thread[i], pthread_self()));
	}
	poller_done(p);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dispatch_to_context),
		cmocka_unit_test(test_budget_and_batch),
		cmocka_unit_test(test_done_requeues),
		cmocka_unit_test(test_busy_thread_dispatches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
