/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The completion-queue poller: drives the completion queues and the
 * connection-manager event channels of every RDMA listener and client
 * attached to it.
 *
 * Modes:
 *  - RPCRDMA_POLLER_WORKQUEUE: `threads` worker threads sleep on the poller's
 *    event fd; a completion-channel event wakes one of them, which polls its
 *    completion queue in batches of `batch` entries up to `budget` entries,
 *    re-arms notification (ibv_req_notify_cq) and polls once more to close
 *    the race with completions that arrived before the re-arm.  A queue left
 *    non-empty when the budget ran out is handed to the next wake-up.  With
 *    `spin_us`, a worker that found completions polls on for that long
 *    before it re-arms (adaptive polling: busy while traffic flows, asleep
 *    when it stops).
 *  - RPCRDMA_POLLER_BUSY: one dedicated thread polls the completion queues
 *    without notification, and the event channels without sleeping.
 *  - RPCRDMA_POLLER_DIRECT: no thread; the embedding program watches
 *    rpcrdma_poller_fd() (readable when there is work) in its own epoll or
 *    libuv loop and calls rpcrdma_poller_poll().  With `direct_spin` the
 *    program instead calls rpcrdma_poller_poll() continually (spins, as
 *    perftest does), and the completion queues are never armed.
 *
 * Completion handlers (and so the upper layer's call handlers) run on the
 * thread that polls: a worker, the busy thread, or the caller of
 * rpcrdma_poller_poll().  Each completion queue and each event channel is
 * handled by one thread at a time.
 *
 * Lifetime: the poller must outlive every listener and client attached to it;
 * destroy them first.  rpcrdma_poller_destroy() stops and joins the threads.
 */
#ifndef RPCRDMA_POLLER_H
#define RPCRDMA_POLLER_H

#include <stddef.h>
#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

struct rpcrdma_poller;

enum rpcrdma_poller_mode {
	RPCRDMA_POLLER_WORKQUEUE = 0,
	RPCRDMA_POLLER_BUSY = 1,
	RPCRDMA_POLLER_DIRECT = 2,
};

struct rpcrdma_poller_opts {
	size_t size;                   /* sizeof(struct rpcrdma_poller_opts) */
	enum rpcrdma_poller_mode mode;
	unsigned threads;              /* workqueue workers, 1..64 (default 2) */
	unsigned batch;                /* completions per ibv_poll_cq, 1..256 (32) */
	unsigned budget;               /* completions per wake-up, >= batch (256) */
	int cq_entries;                /* completion queue size per device (4096) */
	/* Workqueue mode: after a poll that found completions, the worker
	 * keeps polling that queue, yielding the CPU between empty polls,
	 * until spin_us microseconds pass without a completion; only then
	 * does it re-arm and sleep.  A ping-pong peer's next message then
	 * costs no completion event, wake-up or re-arm.  0 (the default)
	 * turns this off; at most 100000.  Ignored in the other modes. */
	unsigned spin_us;
	/* DIRECT mode: nonzero when the program calls rpcrdma_poller_poll()
	 * continually rather than when rpcrdma_poller_fd() is readable.  The
	 * completion queues are then never armed, as in BUSY mode: a
	 * completion raises no event and costs no system call, read or
	 * re-arm; rpcrdma_poller_poll() finds it by polling the queue, with
	 * no system call either, and looks at the event channels (connection
	 * events, timers) on every 64th call that found no completion.  The
	 * fd then becomes readable for those events only, never for
	 * completions.  0 (the default) in the other modes. */
	unsigned direct_spin;
	/* Completion queues a device's queue pairs are spread over before
	 * any two share one: each new connection gets a CQ of its own until
	 * a device has `cqs`, then the least loaded (as before).  A CQ is
	 * handled by one thread at a time, so with connections on different
	 * CQs the workqueue's threads reap (and, with a service of several
	 * loops, run the calls of) as many connections at once.  0 or 1
	 * (the default): one CQ per device, grown as needed.  At most 64. */
	unsigned cqs;
};

/* Fills *opts with the defaults and sets size. */
RPCRDMA_API void rpcrdma_poller_opts_init(struct rpcrdma_poller_opts *opts);

/*
 * Creates a poller.  opts may be NULL (defaults).  Returns 0 and *out, or
 * -EINVAL (bad options), -ENOMEM, or the negative errno of a failed system
 * call.  Worker threads (workqueue, busy) start here.
 */
RPCRDMA_API int rpcrdma_poller_create(const struct rpcrdma_poller_opts *opts,
				      struct rpcrdma_poller **out);

/* Stops the threads and frees the poller.  NULL is accepted. */
RPCRDMA_API void rpcrdma_poller_destroy(struct rpcrdma_poller *p);

/*
 * A file descriptor (an epoll fd) that becomes readable when the poller has
 * work: completions or connection-manager events.  Owned by the poller; do
 * not close it.  Meant for DIRECT mode.
 */
RPCRDMA_API int rpcrdma_poller_fd(const struct rpcrdma_poller *p);

/*
 * DIRECT mode: handles ready work without sleeping, at most `budget`
 * completions (0 = the poller's budget).  Returns the number of completions
 * and events handled (0 when nothing was ready) or -EINVAL when the poller
 * is not in DIRECT mode.  Completions are polled first, straight from the
 * queues; only a call that found none looks at the event channels (with
 * `direct_spin`, every 64th such call).
 */
RPCRDMA_API int rpcrdma_poller_poll(struct rpcrdma_poller *p, unsigned budget);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_POLLER_H */
