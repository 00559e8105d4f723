/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The service core over the fake device (fake_verbs.c): the two rare ways
 * an RDMA call reaches the core other than from its own completion, each
 * with its counter (rpcrdma_svc_stats, docs/threading.md "RDMA over K
 * loops"):
 *   rdma_queued_slots  a call the loop's thread reaped that the core
 *                      refused for want of slots: it waits on the
 *                      transport's queue for loop 0;
 *   rdma_budget_calls  a call that waited for the read budget, handed to
 *                      the core by the thread that released the budget
 *                      (its read chunks held nothing to pull; a call with
 *                      RDMA Reads is handed over by their completion).
 * The service runs its loop on this thread (rpcrdma_svc_poll) and drives
 * the program's DIRECT poller itself; the fake channels are readable for
 * good (FV->readable), so every poll of the loop polls the device.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include <rpcrdma/svc.h>

#include "rdma_paths.h"
#include "svc/svc_rdma_int.h"
#include "svc/svc_xprt.h"

#define PROG 0x20000777u

static struct {
	struct rpcrdma_svc_call *held[8];
	unsigned nheld, calls;
} H;

static int h_null(struct rpcrdma_svc_call *call, void *a, void *r)
{
	(void)call, (void)a, (void)r;
	H.calls++;
	return RPCRDMA_SVC_SUCCESS;
}

/* Holds its call (and its slot) until the test replies. */
static int h_hold(struct rpcrdma_svc_call *call, void *a, void *r)
{
	(void)a, (void)r;
	H.calls++;
	assert_true(H.nheld < 8);
	H.held[H.nheld++] = call;
	return RPCRDMA_SVC_ASYNC;
}

static const struct rpcrdma_svc_proc procs[] = {
	{ .name = "NULL", .handler = h_null },
	{ .name = "HOLD", .handler = h_hold },
};
static const struct rpcrdma_svc_version vers[] = { { .vers = 1, .nprocs = 2, .procs = procs } };
static const struct rpcrdma_svc_program prog = { .prog = PROG, .name = "fake", .nvers = 1,
						  .vers = vers };

struct fix {
	struct rpcrdma_svc *svc;
	struct rpcrdma_poller *p;
	struct rpcrdma_listener *l;
	struct rpcrdma__svc_rdma *r;
};

static uint64_t counter_of(struct rpcrdma_listener *l, enum rpcrdma_stat s)
{
	struct rpcrdma_stats st;
	rpcrdma_listener_stats(l, &st);
	return st.v[s];
}

static void spin(struct fix *f)
{
	for (int i = 0; i < 64; i++)
		assert_true(rpcrdma_svc_poll(f->svc, 0) >= 0);
}

static struct rpcrdma_svc_stats stats(struct fix *f)
{
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(f->svc, &st, sizeof(st));
	return st;
}

static void fix_start(struct fix *f, const struct rpcrdma_listener_opts *lo)
{
	struct rpcrdma_poller_opts po;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };

	memset(&H, 0, sizeof(H));
	memset(f, 0, sizeof(*f));
	fv_init();
	FV->readable = true;
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&po, &f->p), 0);
	assert_int_equal(rpcrdma_svc_create(NULL, &f->svc), 0);
	assert_int_equal(rpcrdma_svc_register(f->svc, &prog), 0);
	assert_int_equal(rpcrdma_svc_listen_rdma(f->svc, f->p, (struct sockaddr *)&a, lo, NULL,
						 NULL, &f->l), 0);
	f->r = f->l->handler_arg;
	assert_true(f->r->listener == f->l);
}

static void fix_stop(struct fix *f)
{
	rpcrdma_svc_destroy(f->svc);
	rpcrdma_poller_destroy(f->p);
	assert_int_equal(FV->qps, 0);
	assert_int_equal(FV->mrs, 0);
	assert_int_equal(FV->ids, 0);
	fv_fini();
}

/* An established connection: the service's loop accepts it. */
static struct ibv_qp *svc_connect(struct fix *f)
{
	struct rdma_cm_id *id = request();
	spin(f);
	assert_non_null(id->qp);
	fv_cm_event(id, RDMA_CM_EVENT_ESTABLISHED);
	spin(f);
	return id->qp;
}

/* The 10 words of an RPC call of proc with AUTH_NONE, in wire order. */
static void rpc_call(uint32_t *w, uint32_t xid, uint32_t proc)
{
	const uint32_t v[10] = { xid, 0, 2, PROG, 1, proc, 0, 0, 0, 0 };
	for (int i = 0; i < 10; i++)
		w[i] = htonl(v[i]);
}

/* An RDMA_MSG carrying an RPC call of proc inline. */
static void svc_call(struct ibv_qp *qp, uint32_t xid, uint32_t proc)
{
	struct msg m;
	uint32_t w[10];

	hdr(&m, xid, RPCRDMA_MSG);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	rpc_call(w, xid, proc);
	body(&m, (const uint8_t *)w, sizeof(w));
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
}

/* The RPC replies (RDMA_MSG Sends) posted on qp from WR index from on. */
static unsigned replies(struct ibv_qp *qp, unsigned from)
{
	struct fv_wr *w[64];
	return wrs_of(qp, from, IBV_WR_SEND, w, 64);
}

static void test_slots(void **state)
{
	struct fix f;
	struct rpcrdma_listener_opts lo;
	(void)state;

	rpcrdma_listener_opts_init(&lo);
	lo.use_srq = 0;
	lo.max_credits = 8;
	lo.idle_timeout_ms = 0;
	fix_start(&f, &lo);
	/* One slot: the RDMA transport's (SVC_RDMA_SLOTS) are far above any
	 * sum of credit grants, so a test sets them (white box). */
	rpcrdma__svc_xprt_set_max_calls(f.r->xprt, 1);
	struct ibv_qp *qp = svc_connect(&f);
	unsigned from = FV->nwrs;

	svc_call(qp, 1, 1); /* held: takes the one slot */
	spin(&f);
	assert_int_equal(H.nheld, 1);
	assert_int_equal(stats(&f).rdma_queued_slots, 0);
	/* Refused by the core: waits on the transport's queue for loop 0. */
	svc_call(qp, 2, 0);
	svc_call(qp, 3, 0);
	spin(&f);
	struct rpcrdma_svc_stats st = stats(&f);
	assert_int_equal(H.calls, 1);
	assert_int_equal(st.rdma_loop_calls, 3);
	assert_int_equal(st.rdma_queued_slots, 2);
	assert_true(st.busy >= 1);
	assert_int_equal(replies(qp, from), 0);
	/* The slot freed: both run, in order, and all three are answered. */
	rpcrdma_svc_reply(H.held[0], RPCRDMA_SVC_SUCCESS);
	spin(&f);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	spin(&f);
	st = stats(&f);
	assert_int_equal(H.calls, 3);
	assert_int_equal(st.calls, 3);
	assert_int_equal(st.rdma_queued_slots, 2);
	assert_int_equal(st.rdma_budget_calls, 0);
	assert_int_equal(st.calls_async, 1);
	assert_int_equal(replies(qp, from), 3);
	assert_int_equal(word(last_send(qp)->msg, 0), 3);
	fix_stop(&f);
}

/* A call whose position-zero read chunk (10 segments of 4 bytes) is the
 * RPC call in client memory. */
static void nomsg_call(struct ibv_qp *qp, uint32_t xid, uint32_t proc, uint32_t *mem)
{
	rpc_call(mem, xid, proc);
	read_call(qp, xid, (uint8_t *)mem, fv_remote((uint8_t *)mem, 40), 10);
}

/* An RPC call inline with a read chunk of one empty segment at its end:
 * nothing to pull, but a share of the read budget to wait for. */
static void empty_chunk_call(struct ibv_qp *qp, uint32_t xid, uint32_t proc)
{
	struct msg m;
	uint32_t w[10];
	static uint8_t none[4];

	hdr(&m, xid, RPCRDMA_MSG);
	put(&m, 1);
	put(&m, 40);
	put_seg(&m, fv_remote(none, sizeof(none)), 0, none);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	rpc_call(w, xid, proc);
	body(&m, (const uint8_t *)w, sizeof(w));
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
}

static void test_budget(void **state)
{
	struct fix f;
	struct rpcrdma_listener_opts lo;
	uint32_t mem_a[10], mem_c[10];
	(void)state;

	rpcrdma_listener_opts_init(&lo);
	lo.use_srq = 0;
	lo.max_credits = 8;
	lo.idle_timeout_ms = 0;
	/* A budget of one call: 4 KiB (the smallest class). */
	lo.max_call_bytes = 4096;
	lo.read_budget_bytes = 4096;
	lo.read_conn_bytes = 4096;
	fix_start(&f, &lo);
	struct ibv_qp *qp = svc_connect(&f);
	unsigned from = FV->nwrs;

	/* A's Reads hold the whole budget until A is answered. */
	nomsg_call(qp, 1, 1, mem_a);
	spin(&f);
	assert_int_equal(H.calls, 0);
	/* B (nothing to pull) and C (Reads) wait behind it. */
	empty_chunk_call(qp, 2, 0);
	nomsg_call(qp, 3, 0, mem_c);
	spin(&f);
	assert_int_equal(H.calls, 0);
	assert_int_equal(counter_of(f.l, RPCRDMA_STAT_READ_WAITS), 2);
	/* A's Reads complete: A reaches the core from its own queue. */
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	spin(&f);
	assert_int_equal(H.nheld, 1);
	assert_int_equal(stats(&f).rdma_budget_calls, 0);
	/* A answered, its budget released: B is handed to the core by the
	 * thread that released it, C's Reads start there. */
	rpcrdma_svc_reply(H.held[0], RPCRDMA_SVC_SUCCESS);
	spin(&f);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	spin(&f);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	spin(&f);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	spin(&f);
	struct rpcrdma_svc_stats st = stats(&f);
	assert_int_equal(H.calls, 3);
	assert_int_equal(st.calls, 3);
	assert_int_equal(st.rdma_budget_calls, 1);
	assert_int_equal(st.rdma_queued_slots, 0);
	assert_int_equal(replies(qp, from), 3);
	fix_stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
