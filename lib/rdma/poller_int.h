/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The completion-queue poller's internals (poller.c, poller_cq.c): its
 * sources, its pool of completion queues, and what a completion's wr_id
 * points to.  The poller knows no transport: every work request's wr_id is
 * the address of a struct rpcrdma__cqe whose done function handles its
 * completion (Linux's struct ib_cqe), set where the context is made.
 * poller_cq.c (the pool, rpcrdma__cq_after) calls poller.c (sources,
 * batches, the rounds that run the queued steps), never the reverse.
 */
#ifndef RPCRDMA_POLLER_INT_H
#define RPCRDMA_POLLER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <infiniband/verbs.h>

#include <rpcrdma/poller.h>

#include "util/byteorder.h" /* rpcrdma__likely */
#include "util/list.h"

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t rpcrdma__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The coarse clock (a jiffy's resolution, no system call), ns. */
static inline uint64_t rpcrdma__coarse_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * What a work request's wr_id points to: its context's completion entry,
 * whose done function the poller calls with the completion (on the thread
 * polling the CQ, one at a time per CQ).  A flushed or failed work request
 * completes here too (wc->status).  done must not be NULL.
 */
struct rpcrdma__cqe {
	void (*done)(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc);
};

/*
 * A thread's batch of posts (SPDK's and eRPC's one doorbell per poll
 * round).  Between rpcrdma__batch_begin and rpcrdma__batch_end (nested:
 * the outermost end counts), the transport queues work requests on an
 * item (a connection's replies) instead of posting them, puts the item on
 * the thread's list once (rpcrdma__batch_add), and the outermost end calls
 * each item's flush, which posts what it queued as one list.  The poller
 * opens a batch around each poll of a completion queue, so the replies its
 * handlers finish go out together; a caller that goes on handling those
 * calls (the service core's loop) opens one around its own work.  A
 * thread must not wait for the completion of what it queued inside its
 * batch; nothing is posted from a batch that was never opened.
 */
struct rpcrdma__batch_item {
	struct rpcrdma__batch_item *next;
	void (*flush)(struct rpcrdma__batch_item *it);
};

void rpcrdma__batch_begin(void);
void rpcrdma__batch_end(void);
/* Posts what this thread's batch queued so far, the batch staying open:
 * before a wait for completions inside a batch (a listener's shutdown). */
void rpcrdma__batch_flush(void);
/* Whether this thread is inside a batch. */
bool rpcrdma__batch_open(void);
/* Puts it on this thread's batch (the caller keeps it alive until its
 * flush and adds it once until then).  Only inside a batch. */
void rpcrdma__batch_add(struct rpcrdma__batch_item *it);
/* The same for an item flushed before every item of rpcrdma__batch_add:
 * receives go back before the replies that let the client send again. */
void rpcrdma__batch_add_first(struct rpcrdma__batch_item *it);

struct rpcrdma__source {
	int fd;
	/* Handles ready work, at most budget completions; returns how many. */
	int (*handle)(struct rpcrdma__source *s, unsigned budget);
	struct rpcrdma_poller *poller;
	bool is_cq;
	/* Being handled: taken with an atomic exchange (a DIRECT caller
	 * without the lock, source_run under it), given back with a store;
	 * whoever waits for it counts itself in the poller's busy_waiters. */
	atomic_bool busy;
	atomic_bool dead;          /* removed; do not re-arm (set under the lock) */
	bool on_pending;           /* on the poller's pending list */
	struct rpcrdma__list pnode; /* poller's pending list */
};

/*
 * A step to take once the poller has handled every completion a CQ held
 * when the step was queued (rpcrdma__cq_after): after a queue pair can
 * raise no more completions, the point from which none of its completions
 * is still waiting in the CQ.  fn runs on the thread polling the CQ
 * (a poller thread; a DIRECT poller's caller), in a batch, without locks.
 */
struct rpcrdma__cq_wait {
	struct rpcrdma__list node;
	void (*fn)(struct rpcrdma__cq_wait *w);
};

/* A completion queue of the poller's pool (poller_cq.c): one of the CQs of
 * its device, shared by the queue pairs that reserved entries on it. */
struct rpcrdma__cq {
	struct rpcrdma__source src; /* the completion channel's fd */
	struct ibv_context *verbs;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	int capacity;               /* entries */
	int max_cqe;                /* device limit */
	int reserved;               /* entries promised to queue pairs */
	bool pending;               /* budget ran out with the queue non-empty */
	/* Steps waiting for the queue to be polled empty (the poller's lock;
	 * nwaits read without it). */
	struct rpcrdma__list waits;
	atomic_uint nwaits;
	struct rpcrdma__cq *spare_next; /* dropped: on the poller's spare list */
};

#define RPCRDMA__MAX_CQS 64

struct rpcrdma_poller {
	struct rpcrdma_poller_opts opts;
	int epfd;
	int kickfd;                 /* eventfd: wakes every worker while readable */
	pthread_mutex_t lock;
	pthread_cond_t cond;        /* a source went idle, a worker finished a round */
	struct rpcrdma__list pending; /* CQs whose budget ran out, or with steps (waits) */
	struct rpcrdma__source wake_src; /* eventfd: a round runs the pending list */
	atomic_uint kick_hold;      /* barriers in progress (changed under the lock) */
	atomic_uint busy_waiters;   /* threads waiting for a source's busy to clear */
	/* Read without the lock (atomic slots); changed under it. */
	struct rpcrdma__cq *_Atomic cqs[RPCRDMA__MAX_CQS];
	atomic_uint ncqs;
	atomic_uint cq_next;        /* DIRECT: where the next poll starts in cqs[] */
	/* Dropped CQs (their verbs objects destroyed): a DIRECT caller may
	 * still hold one's address from cqs[], so the structs are freed with
	 * the poller, not at the drop (the lock). */
	struct rpcrdma__cq *spare;
	atomic_bool stop;
	atomic_uint idle;           /* direct_spin: polls that found nothing */
	unsigned nthreads;
	pthread_t *threads;
	/* Per thread: rounds completed.  Bumped without the lock; a thread
	 * ending a round takes the lock to wake the waiters only while a
	 * barrier is in progress (kick_hold). */
	_Atomic uint64_t *seq;
};

/* Reserves entries on a CQ of the pool for verbs (poller_cq.c): the
 * least-loaded one that can hold them (resizing it up to max_cqe), else a
 * new one.  0 and *out; -ENOSPC when entries exceed max_cqe or the pool is
 * full (RPCRDMA__MAX_CQS), -ENOMEM, -EIO.  CQs live as long as the poller
 * (or until rpcrdma__poller_cq_drop). */
int rpcrdma__poller_cq_get(struct rpcrdma_poller *p, struct ibv_context *verbs, int entries,
			   struct rpcrdma__cq **out);
/* The same, first among known[0, nknown) (CQs of the pool that already
 * hold extra entries for the caller: a device's, holding its SRQ's
 * receives) for entries alone; else any CQ, as rpcrdma__poller_cq_get, for
 * entries + extra (*took_extra: which of the two was reserved). */
int rpcrdma__poller_cq_get_among(struct rpcrdma_poller *p, struct ibv_context *verbs,
				 int entries, int extra, struct rpcrdma__cq *const *known,
				 unsigned nknown, struct rpcrdma__cq **out, bool *took_extra);
void rpcrdma__poller_cq_put(struct rpcrdma__cq *cq, int entries);
/* Queues w: w->fn runs once every completion cq holds now has been handled
 * (the next poll of cq that finds it empty; in WORKQUEUE mode a worker
 * is woken for it).  Any thread, no lock held; w stays the caller's until
 * fn runs.  The CQ must stay reserved (rpcrdma__poller_cq_put) until then. */
void rpcrdma__cq_after(struct rpcrdma__cq *cq, struct rpcrdma__cq_wait *w);
/* The poller's side of it (poller.c): takes the steps queued so far
 * before a poll (true if any), and runs them after one that found the
 * queue empty (drained), else puts them back; returns how many ran (a
 * poll counts them as work done). */
bool rpcrdma__cq_waits_take(struct rpcrdma__cq *cq, struct rpcrdma__list *out);
unsigned rpcrdma__cq_waits_end(struct rpcrdma__cq *cq, struct rpcrdma__list *taken,
			       bool drained);
/* The pool's choice among cqs[0, ncq): the index of the least-loaded CQ of
 * verbs that can hold entries more without exceeding max_cqe, or -1. */
int rpcrdma__cq_pick(struct rpcrdma__cq *const *cqs, unsigned ncq,
		     const struct ibv_context *verbs, int entries);
/* A CQ source's handler (poller.c). */
int rpcrdma__cq_handle(struct rpcrdma__source *s, unsigned budget);
/* Destroys cq's verbs objects (the CQ and its completion channel) when
 * nothing reserves entries on it any more: after its device was removed, so
 * the kernel can release the device.  The struct itself (about 100 bytes)
 * stays on the poller's spare list until rpcrdma_poller_destroy, for DIRECT
 * callers that read its address before it left cqs[].  Caller: no queue
 * pair uses cq; not from cq's own handler. */
void rpcrdma__poller_cq_drop(struct rpcrdma_poller *p, struct rpcrdma__cq *cq);
int rpcrdma__poller_add(struct rpcrdma_poller *p, struct rpcrdma__source *s);
/* Whether p's completion queues have completion channels and are armed:
 * not in BUSY mode, nor with a spinning DIRECT caller (direct_spin). */
static inline bool rpcrdma__poller_notifies(const struct rpcrdma_poller *p)
{
	return p->opts.mode != RPCRDMA_POLLER_BUSY && !p->opts.direct_spin;
}
/* Removes a source, waiting until no thread handles it or still holds its
 * event.  Must not be called from that source's own handler; other poller
 * threads may call it. */
void rpcrdma__poller_del(struct rpcrdma_poller *p, struct rpcrdma__source *s);

/*
 * Timer sources (a timerfd): the listener's sweep after a device removal,
 * the client's reaper.  timer_open sets s->fd (0 or -errno); timer_arm
 * starts the timer (first expiry after first_ms, then every period_ms) or
 * stops it, keeping *armed in step, and does nothing without an fd or when
 * *armed is already `on`; timer_ack, in the handler, consumes the
 * expirations.
 */
int rpcrdma__timer_open(struct rpcrdma__source *s);
void rpcrdma__timer_arm(struct rpcrdma__source *s, bool *armed, bool on, unsigned first_ms,
			unsigned period_ms);
void rpcrdma__timer_ack(struct rpcrdma__source *s);

/* Whether p is a DIRECT poller. */
bool rpcrdma__poller_is_direct(const struct rpcrdma_poller *p);
/* A DIRECT poller whose caller spins (opts.direct_spin): its fd does not
 * signal completions, so no loop can wait on it. */
bool rpcrdma__poller_direct_spin(const struct rpcrdma_poller *p);

#endif
