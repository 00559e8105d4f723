/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-paths (issue 27), continued: errors, flushes, credit overrun,
 * send-queue waits, a disconnect at each step and the idle sweep beside
 * accepts (see test_rdma_paths.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "rdma_paths.h"

/* ---- errors, flushes, credits, send-queue waits ---- */

/*
 * A Send that completes in error (not a flush) closes the connection:
 * counted in err_completion, rdma_disconnect called, the drain posted,
 * everything still posted flushed and counted, and the connection freed
 * (its QP destroyed) while the listener lives on.
 */
void test_send_error_closes(void **state)
{
	uint8_t pay[8] = { 0 };
	struct ibv_qp *qp;

	(void)state;
	start(false);
	qp = connect_one();
	for (uint32_t x = 0; x < 3; x++) {
		inline_call(qp, x);
	}
	pump();
	assert_int_equal(T.ncalls, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(reply_iov(i, pay, sizeof(pay), 0, 0), 0);
	assert_int_equal(fv_sq_outstanding(qp), 3);
	fv_complete(qp, 1, IBV_WC_REM_ACCESS_ERR);
	pump();
	assert_int_equal(counter(RPCRDMA_STAT_ERR_WC), 1);
	assert_int_equal(FV->disconnects, 1);
	/* Two Sends, eight receives and the drain flushed. */
	assert_int_equal(counter(RPCRDMA_STAT_FLUSHED), 2 + 8);
	assert_int_equal(counter(RPCRDMA_STAT_DISCONNECTS), 1);
	assert_int_equal(FV->qps, 0);
	assert_int_equal(counter(RPCRDMA_STAT_CTXT_LOST), 0);
	/* The listener still accepts. */
	connect_one();
	stop();
}

/*
 * An RDMA Read that fails (the client's rkey is not valid: its first,
 * unsignaled Read completes with a remote access error) closes the
 * connection; the call is never handed up, and the last Read flushes.
 */
void test_read_error(void **state)
{
	uint8_t data[64];
	struct msg m;
	struct ibv_qp *qp;
	uint32_t rkey;

	(void)state;
	start(true);
	qp = connect_one();
	rkey = fv_remote(data, sizeof(data));
	hdr(&m, 50, RPCRDMA_NOMSG);
	put(&m, 1);
	put(&m, 0);
	put_seg(&m, rkey + 1000, 32, data);   /* a handle the client never gave */
	put(&m, 1);
	put(&m, 0);
	put_seg(&m, rkey, 32, data + 32);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	pump();
	assert_int_equal(fv_sq_outstanding(qp), 2);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	assert_int_equal(T.ncalls, 0);
	assert_int_equal(counter(RPCRDMA_STAT_ERR_WC), 1);
	assert_true(counter(RPCRDMA_STAT_FLUSHED) >= 1);
	assert_int_equal(counter(RPCRDMA_STAT_CALLS_READ), 0);
	assert_int_equal(FV->qps, 0);
	stop();
}

/* A receive that completes in error closes the connection too. */
void test_recv_error(void **state)
{
	struct ibv_qp *qp;

	(void)state;
	start(false);
	qp = connect_one();
	for (unsigned i = 0; i < FV->nrecvs; i++) {
		struct fv_recv *r = &FV->recvs[i];

		if (r->qp == qp && !r->used) {
			struct ibv_wc wc = { 0 };

			r->used = true;
			/* Queued by hand: a receive's local error. */
			wc.wr_id = r->wr_id;
			wc.status = IBV_WC_LOC_PROT_ERR;
			wc.opcode = IBV_WC_RECV;
			wc.qp_num = qp->qp_num;
			FV->cqe[FV->cq_tail++ % FV_MAX_WC] = wc;
			break;
		}
	}
	pump();
	assert_int_equal(counter(RPCRDMA_STAT_ERR_WC), 1);
	/* the idle connection's other receives (RPCRDMA__IDLE_RECVS) */
	assert_int_equal(counter(RPCRDMA_STAT_FLUSHED), 3);
	assert_int_equal(FV->qps, 0);
	stop();
}

/*
 * Credit overrun: a client sending beyond its grant (8) and the early
 * slack (8 on an SRQ) while no call is answered is closed for it
 * (err_credit, policy_close), and its calls are released with it.
 */
void test_credit_overrun(void **state)
{
	uint8_t pay[8] = { 0 };
	struct ibv_qp *qp;
	unsigned n = 0;

	(void)state;
	start(true);
	qp = connect_one();
	while (FV->disconnects == 0 && n < 40) {
		inline_call(qp, n++);
		pump();
	}
	assert_int_equal(n, 8 + 8 + 1);
	assert_int_equal(T.ncalls, 16);
	assert_int_equal(counter(RPCRDMA_STAT_ERR_CREDIT), 1);
	assert_int_equal(counter(RPCRDMA_STAT_POLICY_CLOSE), 1);
	/* The held calls end after the close: their replies go nowhere. */
	assert_int_equal(reply_iov(0, pay, sizeof(pay), 0, 0), -ENOTCONN);
	stop();
}

/*
 * Send-queue waits: with a grant of 2 the send queue holds 2 * 2 + 8 + 16
 * + 1 = 29 WRs (28 for chains: one is the drain's; a queue this small
 * signals every Send).  Calls whose read chunks take 20 Reads each
 * (20 segments of 4 bytes) cannot all be posted: the second waits
 * (sq_starved) until the first's Reads complete, then goes; both calls
 * arrive whole.
 */
void test_sq_wait(void **state)
{
	struct rpcrdma_listener_opts o;
	uint8_t data[2][80];
	struct msg m;
	struct ibv_qp *qp;
	uint32_t rkey[2];

	(void)state;
	rpcrdma_listener_opts_init(&o);
	o.max_credits = 2;
	o.use_srq = 0;
	start_opts(&o);
	qp = connect_one();
	for (unsigned c = 0; c < 2; c++) {
		fill(data[c], 80, (uint8_t)(c * 40));
		rkey[c] = fv_remote(data[c], 80);
		hdr(&m, 60 + c, RPCRDMA_NOMSG);
		for (unsigned i = 0; i < 20; i++) {
			put(&m, 1);
			put(&m, 0);
			put_seg(&m, rkey[c], 4, data[c] + 4 * i);
		}
		put(&m, 0);
		put(&m, 0);
		put(&m, 0);
		assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	}
	pump();
	/* grant * 2 + 8 + sig_every + the drain (no backward receives) */
	assert_int_equal(((struct fv_qp *)(void *)qp)->init.cap.max_send_wr, 2 * 2 + 8 + 16 + 1);
	assert_int_equal(fv_sq_outstanding(qp), 20);
	assert_int_equal(counter(RPCRDMA_STAT_SQ_STARVED), 1);
	fv_complete(qp, 20, IBV_WC_SUCCESS);
	pump();
	assert_int_equal(T.ncalls, 1);
	assert_int_equal(fv_sq_outstanding(qp), 20);   /* the second chain went */
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	assert_int_equal(T.ncalls, 2);
	for (unsigned c = 0; c < 2; c++) {
		assert_int_equal(T.payload_len[c], 80);
		assert_memory_equal(T.payload[c], data[c], 80);
	}
	stop();
}

/*
 * An SRQ whose receives take more than half a CQ (40008 of the fake's
 * 65536): every CQ of the device holds them all, and a connection on a
 * CQ that holds them already needs room for its own entries alone.
 * Three connections share one CQ (each used to be given a CQ of its own,
 * and the 65th was refused); their calls complete there.
 */
void test_deep_srq_one_cq(void **state)
{
	struct rpcrdma_listener_opts o;
	struct ibv_qp *qp[3];

	(void)state;
	rpcrdma_listener_opts_init(&o);
	o.max_credits = 8;
	o.srq_depth = 40000;
	start_opts(&o);
	for (unsigned i = 0; i < 3; i++)
		qp[i] = connect_one();
	assert_int_equal(FV->cqs, 1);
	assert_ptr_equal(qp[0]->send_cq, qp[2]->send_cq);
	for (unsigned i = 0; i < 3; i++) {
		assert_non_null(qp[i]->srq);
		inline_call(qp[i], i);
	}
	pump();
	assert_int_equal(T.ncalls, 3);
	stop();
}

/* ---- a disconnect at each step ---- */

enum step {
	AT_ACCEPT,       /* rejected by the device: the QP cannot be made */
	AT_ACCEPT_CM,    /* rdma_accept fails after everything was made */
	AT_ACCEPT_MR,    /* the first registration fails (the SRQ's, or a pool's) */
	AT_ACCEPTING,    /* before ESTABLISHED */
	AT_IDLE,
	AT_NO_SEND_POOL, /* the first call cannot register the send buffers */
	AT_NO_RECV_MORE, /* nor the grant's receives beyond the idle ones */
	AT_HELD,         /* the upper layer holds a call */
	AT_READING,      /* RDMA Reads outstanding */
	AT_SQ_WAIT,      /* a chain of Reads waits for send-queue room */
	AT_SQ_WAIT_SEND, /* a reply's Send waits for send-queue room */
	AT_SENDING,      /* a reply's Writes and Send outstanding */
	AT_SEND_WAIT,    /* calls wait for a send context */
	AT_LISTENER,     /* the listener is destroyed under live connections */
};

static void disconnect_at(enum step step, bool srq)
{
	struct rpcrdma_listener_opts o;
	static uint8_t data[2][80], wmem[4096];
	uint8_t rep[1024] = { 0 };
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	uint32_t rkey, wkey = 0, unused = 0;

	rpcrdma_listener_opts_init(&o);
	o.max_credits = step == AT_NO_RECV_MORE ? 8 : 2;  /* 2: all posted at accept */
	o.use_srq = srq;
	o.srq_depth = 64;
	start_opts(&o);
	if (step <= AT_ACCEPT_MR) {
		if (step == AT_ACCEPT)
			FV->fail_create_qp = 2;   /* with and without inline data */
		else if (step == AT_ACCEPT_CM)
			FV->fail_accept = 1;
		else
			FV->fail_reg_mr = 1;
		request();
		cm_run();
		assert_int_equal(FV->rejects, 1);
		assert_int_equal(counter(RPCRDMA_STAT_REJECTS), 1);
		assert_int_equal(FV->qps, 0);
		connect_one();       /* the next is served */
		stop();
		return;
	}
	id = request();
	cm_run();
	qp = id->qp;
	if (step != AT_ACCEPTING) {
		fv_cm_event(id, RDMA_CM_EVENT_ESTABLISHED);
		cm_run();
	}
	switch (step) {
	case AT_NO_SEND_POOL:
		FV->fail_reg_mr = 1;
		inline_call(qp, 1);
		pump();
		assert_int_equal(FV->disconnects, 1);
		assert_int_equal(counter(RPCRDMA_STAT_ERR_DROPPED), 1);
		assert_int_equal(T.ncalls, 0);
		assert_int_equal(FV->qps, 0);
		break;
	case AT_NO_RECV_MORE:
		/* The send buffers register, the receives the first call adds
		 * (own receive queue) do not: closed as above.  With the SRQ
		 * there are none to add: the call is served. */
		FV->fail_reg_mr_skip = 1;
		FV->fail_reg_mr = 1;
		inline_call(qp, 1);
		pump();
		if (srq) {
			assert_int_equal(T.ncalls, 1);
			assert_int_equal(reply_iov(0, rep, 8, 0, 0), 0);
			free(T.payload[0]);
			T.ncalls = 0;
			FV->fail_reg_mr = 0;
			break;
		}
		assert_int_equal(FV->disconnects, 1);
		assert_int_equal(counter(RPCRDMA_STAT_ERR_DROPPED), 1);
		assert_int_equal(T.ncalls, 0);
		assert_int_equal(FV->qps, 0);
		break;
	case AT_HELD:
		inline_call(qp, 1);
		pump();
		assert_int_equal(T.ncalls, 1);
		break;
	case AT_READING:
		rkey = fv_remote(data[0], 80);
		read_call(qp, 1, data[0], rkey, 3);
		pump();
		assert_int_equal(fv_sq_outstanding(qp), 3);
		break;
	case AT_SQ_WAIT:
		/* A Read chain waits for room. */
		rkey = fv_remote(data[0], 80);
		read_call(qp, 1, data[0], rkey, 20);
		read_call(qp, 2, data[0], rkey, 20);
		pump();
		assert_int_equal(counter(RPCRDMA_STAT_SQ_STARVED), 1);
		assert_int_equal(fv_sq_outstanding(qp), 20);
		break;
	case AT_SQ_WAIT_SEND:
		/* 28 Reads fill the send queue (grant 2: 29 WRs, one the
		 * drain's); a reply's Send waits for room. */
		inline_call(qp, 3);
		rkey = fv_remote(wmem, sizeof(wmem));
		read_call(qp, 1, wmem, rkey, 28);
		pump();
		assert_int_equal(reply_iov(0, rep, 8, 0, 0), 0);
		assert_int_equal(counter(RPCRDMA_STAT_SQ_STARVED), 1);
		assert_int_equal(fv_sq_outstanding(qp), 28);
		break;
	case AT_SENDING:
		chunky_call(qp, 1, wmem, 2048, 2048, NULL, 0, &wkey, &unused);
		assert_int_equal(reply_iov(0, rep, sizeof(rep), 0, 1000), 0);
		assert_int_equal(fv_sq_outstanding(qp), 2);
		break;
	case AT_SEND_WAIT:
		/* Send contexts: grant + 8 + sig_every (1 on this small
		 * queue): 11; every call answered, no Send completed, until
		 * calls wait. */
		for (uint32_t x = 0; counter(RPCRDMA_STAT_SEND_WAITED) == 0 && x < 40; x++) {
			inline_call(qp, x);
			pump();
			if (T.ncalls) {
				assert_int_equal(reply_iov(0, rep, 8, 0, 0), 0);
				free(T.payload[0]);
			}
			T.ncalls = 0;
		}
		assert_int_equal(counter(RPCRDMA_STAT_SEND_WAITED), 1);
		break;
	default:
		break;
	}
	if (step == AT_LISTENER) {
		stop();
		return;
	}
	if (step != AT_NO_SEND_POOL && (step != AT_NO_RECV_MORE || srq)) {   /* gone already */
		fv_cm_event(id, RDMA_CM_EVENT_DISCONNECTED);
		cm_run();
	}
	pump();
	if (step != AT_HELD)
		assert_int_equal(FV->qps, 0);
	assert_int_equal(held(), step == AT_HELD ? 1 : 0);
	if (step == AT_HELD)
		assert_int_equal(reply_iov(0, rep, 8, 0, 0), -ENOTCONN);
	pump();
	assert_int_equal(FV->qps, 0);
	assert_int_equal(counter(RPCRDMA_STAT_DISCONNECTS), 1);
	assert_int_equal(counter(RPCRDMA_STAT_CTXT_LOST), 0);
	stop();
}

void test_disconnect_each_step(void **state)
{
	(void)state;
	for (int srq = 0; srq < 2; srq++)
		for (enum step s = AT_ACCEPT; s <= AT_LISTENER; s++) {
			print_message("disconnect at step %d, srq %d\n", (int)s, srq);
			disconnect_at(s, srq);
		}
}

/* ---- the idle sweep beside accepts ---- */

static unsigned sweeps;

/* The idle timeout's sweep, as its timer runs it: in a workqueue poller
 * (the echo server's: two threads) on another thread than the CM events'
 * that accept. */
static void idle_sweep(void)
{
	sweeps++;
	T.l->idle_src.handle(&T.l->idle_src, 16);
}

/* A sweep with every connection on the listener's list idle for ages. */
static void sweep_old(void)
{
	pthread_mutex_lock(&T.l->lock);
	for (struct rpcrdma__list *n = T.l->conns.next; n != &T.l->conns; n = n->next)
		atomic_store(&rpcrdma__container_of(n, struct rpcrdma__conn, lnode)->last_ns, 0);
	pthread_mutex_unlock(&T.l->lock);
	idle_sweep();
}

/* A server without the SRQ, idle timeout a minute (start_opts has none). */
static void start_idle(void)
{
	start(false);
	T.l->opts.idle_timeout_ms = 60000;
	assert_int_equal(rpcrdma__idle_start(T.l), 0);
	sweeps = 0;
}

/* An accepted and established connection; its id. */
static struct rdma_cm_id *established(void)
{
	struct rdma_cm_id *id = request();

	cm_run();
	assert_non_null(id->qp);
	fv_cm_event(id, RDMA_CM_EVENT_ESTABLISHED);
	cm_run();
	return id;
}

/*
 * A connection is on the listener's list from conn_admit on, before its
 * reference, CQ and QP exist.  A sweep that took it for idle then (as
 * the wrapped clock of test_idle_sweep_fresh made a just-admitted one
 * look) closed it and dropped the accept's reference: conn_free ran
 * under the accept, in rpcrdma__poller_cq_put with conn->cq NULL (the
 * echo server's segfault near connection 603 of rdma-scale without the
 * SRQ).  Here the sweep runs while the accept creates the connection's
 * CQ, every listed connection made old: the one being accepted is left
 * alone, and once accepted it is the sweep's like any other.
 */
void test_idle_sweep_during_accept(void **state)
{
	struct rdma_cm_id *id;

	(void)state;
	start_idle();
	FV->on_create_cq = sweep_old;
	id = request();
	cm_run();
	FV->on_create_cq = NULL;
	assert_int_equal(sweeps, 1);
	assert_int_equal(FV->accepts, 1);
	assert_int_equal(counter(RPCRDMA_STAT_REJECTS), 0);
	assert_int_equal(counter(RPCRDMA_STAT_IDLE_CLOSES), 0);
	assert_int_equal(FV->disconnects, 0);
	assert_non_null(id->qp);
	fv_cm_event(id, RDMA_CM_EVENT_ESTABLISHED);
	cm_run();
	sweep_old();
	assert_int_equal(counter(RPCRDMA_STAT_IDLE_CLOSES), 1);
	assert_int_equal(FV->disconnects, 1);
	pump();
	assert_int_equal(FV->qps, 0);
	assert_int_equal(counter(RPCRDMA_STAT_DISCONNECTS), 1);
	stop();
}

/*
 * The sweep reads the clock once, then closes idle connections one at a
 * time against it; a connection accepted (or active) on another thread
 * meanwhile has a later last_ns, and now - last_ns wrapped to "idle for
 * ages": closed as idle the moment it was accepted.  With one old and
 * one newer than the sweep's clock, only the old one goes.
 */
void test_idle_sweep_fresh(void **state)
{
	struct rdma_cm_id *old, *fresh;
	struct rpcrdma__conn *oc, *fc;

	(void)state;
	start_idle();
	old = established();
	fresh = established();
	oc = old->context;
	fc = fresh->context;
	atomic_store(&oc->last_ns, 0);
	/* Accepted a second after the sweep read its clock. */
	atomic_store(&fc->last_ns, rpcrdma__coarse_ns() + 1000000000u);
	idle_sweep();
	assert_int_equal(counter(RPCRDMA_STAT_IDLE_CLOSES), 1);
	assert_int_equal(FV->disconnects, 1);
	assert_true(oc->closing_started);
	assert_false(fc->closing_started);
	pump();
	assert_int_equal(FV->qps, 1);
	assert_int_equal(counter(RPCRDMA_STAT_DISCONNECTS), 1);
	stop();
}

/*
 * iWARP (soft-iWARP's rings, fake_verbs.h): the peer goes, and the kernel
 * moves the QP to the error state before the server hears of it.  What the
 * server posts after that never completes: the RDMA Reads of a call that
 * arrived just before, a reply's Send, a receive posted again.  At the
 * close (the DISCONNECTED event) they are given back once the QP is
 * destroyed and the CQ polled past it: the connection is freed, nothing
 * lost, and the listener's shutdown does not wait.  Before, their
 * references never came back (rdma-faults over siw hung in the shutdown).
 */
void test_iwarp_close_gives_back(void **state)
{
	uint8_t pay[8] = { 0 }, data[16];
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	unsigned sends;

	(void)state;
	start(false);
	FV->iwarp = true;
	FV->device.transport_type = IBV_TRANSPORT_IWARP;
	id = request();
	cm_run();
	fv_cm_event(id, RDMA_CM_EVENT_ESTABLISHED);
	cm_run();
	qp = id->qp;
	inline_call(qp, 1);
	inline_call(qp, 2);
	pump();
	assert_int_equal(T.ncalls, 2);
	read_call(qp, 3, data, fv_remote(data, sizeof(data)), 2);   /* received, not polled */
	fv_qp_fail(qp);
	pump();                                 /* its Reads go into the ring */
	assert_int_equal(fv_sq_outstanding(qp), 2);
	sends = FV->nwrs;
	assert_int_equal(reply_iov(0, pay, sizeof(pay), 0, 0), 0);
	assert_int_equal(FV->nwrs, sends + 1);  /* posted: the QP took it */
	rpcrdma_call_drop(T.calls[1]);          /* its receive is posted again */
	T.calls[1] = NULL;
	pump();
	assert_int_equal(fv_sq_outstanding(qp), 3);
	assert_true(fv_rq_posted(qp) >= 1);
	assert_int_equal(FV->qps, 1);
	fv_cm_event(id, RDMA_CM_EVENT_DISCONNECTED);
	cm_run();
	pump();
	assert_int_equal(FV->qps, 0);
	assert_int_equal(counter(RPCRDMA_STAT_DISCONNECTS), 1);
	assert_int_equal(counter(RPCRDMA_STAT_CTXT_LOST), 0);
	/* never completed, never flushed */
	assert_int_equal(fv_sq_outstanding(qp), 3);
	assert_int_equal(T.ncalls, 2);
	stop();
}

/*
 * Soft-iWARP raises SIGPIPE in the thread that posts, accepts or closes
 * once the peer's TCP end is gone (rdma_sigpipe.c): the server takes each
 * back and goes on.  SIGPIPE keeps its default action here, so without
 * that this test process dies (as the echo server did over siw).
 */
void test_iwarp_sigpipe(void **state)
{
	uint8_t pay[8] = { 0 };
	struct rdma_cm_id *id;
	sigset_t pend;

	(void)state;
	signal(SIGPIPE, SIG_DFL);
	start(false);
	FV->iwarp = true;
	FV->device.transport_type = IBV_TRANSPORT_IWARP;
	FV->sigpipe = true;
	id = request();
	cm_run();                               /* rdma_accept: the MPA reply */
	assert_int_equal(FV->sigpipes, 1);
	fv_cm_event(id, RDMA_CM_EVENT_ESTABLISHED);
	cm_run();
	inline_call(id->qp, 1);
	pump();
	assert_int_equal(T.ncalls, 1);
	assert_int_equal(reply_iov(0, pay, sizeof(pay), 0, 0), 0);  /* the Send */
	assert_int_equal(FV->sigpipes, 2);
	fv_cm_event(id, RDMA_CM_EVENT_DISCONNECTED);
	cm_run();                               /* rdma_disconnect, the move to ERR */
	pump();
	assert_int_equal(FV->sigpipes, 4);
	assert_int_equal(counter(RPCRDMA_STAT_DISCONNECTS), 1);
	assert_int_equal(sigpending(&pend), 0);
	assert_int_equal(sigismember(&pend, SIGPIPE), 0);
	stop();
}

/*
 * The guard alone: a SIGPIPE the thread had pending (blocked) before is
 * left pending, the mask comes back as it was; on a RoCE device nothing
 * is touched.
 */
void test_nosig_guard(void **state)
{
	struct rpcrdma__nosig g;
	sigset_t pipe, old, now, pend;
	struct timespec zero = { 0, 0 };

	(void)state;
	fv_init();
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	FV->device.transport_type = IBV_TRANSPORT_IB;
	rpcrdma__nosig_enter(&g, &FV->ctx);
	assert_false(g.on);
	rpcrdma__nosig_leave(&g);
	FV->device.transport_type = IBV_TRANSPORT_IWARP;
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	pthread_kill(pthread_self(), SIGPIPE);  /* pending before */
	rpcrdma__nosig_enter(&g, &FV->ctx);
	assert_true(g.on && g.had);
	pthread_kill(pthread_self(), SIGPIPE);
	errno = EPIPE;
	rpcrdma__nosig_leave(&g);
	assert_int_equal(errno, EPIPE);         /* the call's errno kept */
	sigpending(&pend);
	assert_int_equal(sigismember(&pend, SIGPIPE), 1);
	assert_int_equal(sigtimedwait(&pipe, NULL, &zero), SIGPIPE);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Unblocked before: blocked inside, unblocked after, none pending. */
	rpcrdma__nosig_enter(&g, &FV->ctx);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	assert_int_equal(sigismember(&now, SIGPIPE), 1);
	pthread_kill(pthread_self(), SIGPIPE);
	rpcrdma__nosig_leave(&g);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	assert_int_equal(sigismember(&now, SIGPIPE), sigismember(&old, SIGPIPE));
	sigpending(&pend);
	assert_int_equal(sigismember(&pend, SIGPIPE), 0);
	fv_fini();
}
