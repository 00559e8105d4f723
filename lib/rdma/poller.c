/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The completion-queue poller: workqueue, busy and direct modes over one
 * epoll set holding the completion channels and CM event channels.
 *
 * Every source is registered EPOLLONESHOT: the thread that receives its
 * event owns it until it re-arms it, so one completion queue is polled by
 * one thread at a time.  A CQ whose budget ran out is put on the pending
 * list instead of being re-armed, and the next round (any worker) goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "poller_int.h"

#define WC_BATCH_MAX 256

void rpcrdma_poller_opts_init(struct rpcrdma_poller_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->mode = RPCRDMA_POLLER_WORKQUEUE;
	opts->threads = 2;
	opts->batch = 32;
	opts->budget = 256;
	opts->cq_entries = 4096;
}

/* The completion's context handles it (poller_int.h, struct rpcrdma__cqe). */
static inline void dispatch(const struct ibv_wc *wc)
{
	struct rpcrdma__cqe *cqe = (struct rpcrdma__cqe *)(uintptr_t)wc->wr_id;

	cqe->done(cqe, wc);
}

/* The thread's batch (poller_int.h): receives' items, then the others'. */
static _Thread_local struct {
	unsigned depth;
	struct rpcrdma__batch_item *first, *head;
} batch;

void rpcrdma__batch_begin(void)
{
	batch.depth++;
}

bool rpcrdma__batch_open(void)
{
	return batch.depth != 0;
}

void rpcrdma__batch_add(struct rpcrdma__batch_item *it)
{
	it->next = batch.head;
	batch.head = it;
}

void rpcrdma__batch_add_first(struct rpcrdma__batch_item *it)
{
	it->next = batch.first;
	batch.first = it;
}

void rpcrdma__batch_flush(void)
{
	/* A flush may queue more (a completion it runs replies): that is
	 * taken too, or posted at once at the batch's end (depth 0). */
	for (;;) {
		struct rpcrdma__batch_item *it = batch.first;

		if (it) {
			batch.first = it->next;
		} else if ((it = batch.head) != NULL) {
			batch.head = it->next;
		} else {
			return;
		}
		it->flush(it);
	}
}

void rpcrdma__batch_end(void)
{
	if (--batch.depth == 0)
		rpcrdma__batch_flush();
}

/* Polls up to budget completions in batches; returns how many.  What the
 * handlers of one poll post goes out at its end (rpcrdma__batch_end). */
static unsigned poll_some(struct rpcrdma_poller *p, struct ibv_cq *cq, unsigned budget,
			  bool *more)
{
	struct ibv_wc wc[WC_BATCH_MAX];
	unsigned n = 0;

	*more = false;
	while (n < budget) {
		unsigned want = budget - n < p->opts.batch ? budget - n : p->opts.batch;
		int k = ibv_poll_cq(cq, (int)want, wc);

		if (k <= 0)
			return n;
		rpcrdma__batch_begin();
		for (int i = 0; i < k; i++)
			dispatch(&wc[i]);
		rpcrdma__batch_end();
		n += (unsigned)k;
		if ((unsigned)k < want)
			return n;
	}
	*more = true;
	return n;
}

/* The steps queued by rpcrdma__cq_after (poller_cq.c), taken before a
 * poll and run after one that found the queue empty (poller_int.h). */
bool rpcrdma__cq_waits_take(struct rpcrdma__cq *cq, struct rpcrdma__list *out)
{
	struct rpcrdma_poller *p = cq->src.poller;

	rpcrdma__list_init(out);
	if (rpcrdma__likely(atomic_load_explicit(&cq->nwaits, memory_order_acquire) == 0))
		return false;
	pthread_mutex_lock(&p->lock);
	rpcrdma__list_splice_tail(out, &cq->waits);
	atomic_store(&cq->nwaits, 0);
	pthread_mutex_unlock(&p->lock);
	return !rpcrdma__list_empty(out);
}

unsigned rpcrdma__cq_waits_end(struct rpcrdma__cq *cq, struct rpcrdma__list *taken, bool drained)
{
	struct rpcrdma_poller *p = cq->src.poller;
	struct rpcrdma__list *n;
	unsigned k = 0;

	if (!drained) {
		/* Back in front of any queued meanwhile (those wait longer). */
		pthread_mutex_lock(&p->lock);
		rpcrdma__list_splice_tail(taken, &cq->waits);
		rpcrdma__list_splice_tail(&cq->waits, taken);
		for (n = cq->waits.next; n != &cq->waits; n = n->next)
			k++;
		atomic_store(&cq->nwaits, k);
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	while ((n = rpcrdma__list_pop(taken)) != NULL) {
		struct rpcrdma__cq_wait *w = rpcrdma__container_of(n, struct rpcrdma__cq_wait, node);

		rpcrdma__batch_begin();
		w->fn(w);
		rpcrdma__batch_end();
		k++;
	}
	return k;
}

/* poll_some on cq, and the steps queued on cq before it (rpcrdma__cq_after)
 * once it found the queue empty. */
static unsigned poll_batches(struct rpcrdma_poller *p, struct rpcrdma__cq *cq, unsigned budget,
			     bool *more)
{
	struct rpcrdma__list waits;
	bool w = rpcrdma__cq_waits_take(cq, &waits);
	unsigned n = poll_some(p, cq->cq, budget, more);

	if (rpcrdma__unlikely(w))
		n += rpcrdma__cq_waits_end(cq, &waits, !*more);
	return n;
}

/*
 * Adaptive polling (opts.spin_us): polls cq until spin_us pass without a
 * completion, the budget is spent (*more or n reaching budget), or the
 * poller stops.  Empty polls yield the CPU: the peer, the upper layer's
 * threads and soft-RoCE's own work share it.  Returns the completions
 * handled.
 */
static unsigned spin_poll(struct rpcrdma_poller *p, struct rpcrdma__cq *cq, unsigned budget,
			  bool *more)
{
	uint64_t span = (uint64_t)p->opts.spin_us * 1000u;
	uint64_t until = rpcrdma__now_ns() + span;
	unsigned n = 0;

	*more = false;
	while (n < budget && !atomic_load(&p->stop)) {
		unsigned k = poll_batches(p, cq, budget - n, more);
		uint64_t t;

		n += k;
		if (*more)
			break;
		t = rpcrdma__now_ns();
		if (k)
			until = t + span;
		else if (t >= until)
			break;
		else
			sched_yield();
	}
	return n;
}

int rpcrdma__cq_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct rpcrdma__cq *cq = rpcrdma__container_of(s, struct rpcrdma__cq, src);
	struct rpcrdma_poller *p = s->poller;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	unsigned n = 0;
	bool more;

	/* One read: the CQ is armed at most once per run of this handler
	 * (the loop below re-arms only after a poll that left budget), so at
	 * most one event waits.  One raised while this run goes on keeps the
	 * channel readable for the next run.  (Reading until EAGAIN cost a
	 * second read, and system call, on nearly every wake-up.) */
	if (ibv_get_cq_event(cq->channel, &ev_cq, &ev_ctx) == 0)
		ibv_ack_cq_events(cq->cq, 1);
	cq->pending = false;
	for (;;) {
		n += poll_batches(p, cq, budget - n, &more);
		if (n && !more && n < budget && p->opts.spin_us)
			n += spin_poll(p, cq, budget - n, &more);
		/* n == budget: the re-arming poll below found a full budget's
		 * worth; the queue may hold more, and an armed CQ raises no
		 * event for completions already in it. */
		if (more || n >= budget) {
			cq->pending = true;  /* budget spent, queue not empty */
			return (int)n;
		}
		/* Re-arm, then poll once more: a completion that arrived after
		 * the last poll but before the re-arm raises no event. */
		ibv_req_notify_cq(cq->cq, 0);
		n += poll_batches(p, cq, budget - n, &more);
		if (!more)
			return (int)n;
	}
}

int rpcrdma__poller_add(struct rpcrdma_poller *p, struct rpcrdma__source *s)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT, .data.ptr = s };

	s->poller = p;
	atomic_store(&s->busy, false);
	atomic_store(&s->dead, false);
	s->on_pending = false;
	rpcrdma__list_init(&s->pnode);
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, s->fd, &ev))
		return -errno;
	return 0;
}

int rpcrdma__timer_open(struct rpcrdma__source *s)
{
	s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	return s->fd < 0 ? -errno : 0;
}

void rpcrdma__timer_arm(struct rpcrdma__source *s, bool *armed, bool on, unsigned first_ms,
			unsigned period_ms)
{
	struct itimerspec its = { 0 };

	if (s->fd < 0 || *armed == on)
		return;
	if (on) {
		its.it_value.tv_sec = first_ms / 1000;
		its.it_value.tv_nsec = (long)(first_ms % 1000) * 1000000;
		its.it_interval.tv_sec = period_ms / 1000;
		its.it_interval.tv_nsec = (long)(period_ms % 1000) * 1000000;
	}
	if (timerfd_settime(s->fd, 0, &its, NULL) == 0)
		*armed = on;
}

void rpcrdma__timer_ack(struct rpcrdma__source *s)
{
	uint64_t ticks;

	if (read(s->fd, &ticks, sizeof(ticks)) < 0) {
		/* not expired yet (woken by another event of the round) */
	}
}

/* The wake-up of rpcrdma__cq_after: the round that handles it runs the
 * pending list after it. */
static int wake_handle(struct rpcrdma__source *s, unsigned budget)
{
	uint64_t v;

	(void)budget;
	if (read(s->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: another round took it */
	}
	return 0;
}

/* Waits until every thread has finished the round it is in. */
static void barrier_locked(struct rpcrdma_poller *p)
{
	uint64_t snap[64];
	uint64_t one = 1;
	unsigned n = p->nthreads;

	if (n == 0)
		return;
	for (unsigned i = 0; i < n; i++)
		snap[i] = p->seq[i];
	p->kick_hold++;
	if (write(p->kickfd, &one, sizeof(one)) < 0) {
		/* eventfd writes only fail on overflow; it is readable anyway */
	}
	for (;;) {
		bool all = true;

		/* A poller thread removing a source (a completion handler
		 * freeing a client connection) does not wait for itself. */
		for (unsigned i = 0; i < n; i++)
			if (p->seq[i] == snap[i] && !pthread_equal(p->threads[i], pthread_self()))
				all = false;
		if (all || atomic_load(&p->stop))
			break;
		pthread_cond_wait(&p->cond, &p->lock);
	}
	if (--p->kick_hold == 0 && !atomic_load(&p->stop)) {
		uint64_t v;

		if (read(p->kickfd, &v, sizeof(v)) < 0) {
			/* already drained */
		}
	}
}

/* Waits (holding the lock) until no thread handles s.  The store of dead or
 * the removal that preceded it keeps new claims away: a claim is an exchange
 * of busy followed by a load of dead, the reverse order of ours, so one of
 * the two sees the other (sequentially consistent atomics). */
static void busy_wait_locked(struct rpcrdma_poller *p, struct rpcrdma__source *s)
{
	atomic_fetch_add(&p->busy_waiters, 1);
	while (atomic_load(&s->busy))
		pthread_cond_wait(&p->cond, &p->lock);
	atomic_fetch_sub(&p->busy_waiters, 1);
}

/* Gives back a source claimed without the lock; wakes a thread waiting for
 * it (busy_wait_locked counts itself in busy_waiters before it looks). */
static void busy_release(struct rpcrdma_poller *p, struct rpcrdma__source *s)
{
	atomic_store(&s->busy, false);
	if (rpcrdma__unlikely(atomic_load(&p->busy_waiters))) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
}

void rpcrdma__poller_del(struct rpcrdma_poller *p, struct rpcrdma__source *s)
{
	pthread_mutex_lock(&p->lock);
	atomic_store(&s->dead, true);
	epoll_ctl(p->epfd, EPOLL_CTL_DEL, s->fd, NULL);
	if (s->on_pending) {
		rpcrdma__list_del(&s->pnode);
		s->on_pending = false;
	}
	busy_wait_locked(p, s);
	/* A worker may hold the event of s from epoll_wait already. */
	barrier_locked(p);
	pthread_mutex_unlock(&p->lock);
}

static void source_run(struct rpcrdma_poller *p, struct rpcrdma__source *s, unsigned budget,
		       unsigned *done)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT, .data.ptr = s };
	int n;

	pthread_mutex_lock(&p->lock);
	if (atomic_load(&s->dead)) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	if (atomic_exchange(&s->busy, true)) {
		/* A DIRECT caller is polling this CQ.  Its event stays unread
		 * in the channel: re-arm, so it comes round again rather than
		 * being lost with the one-shot registration. */
		epoll_ctl(p->epfd, EPOLL_CTL_MOD, s->fd, &ev);
		pthread_mutex_unlock(&p->lock);
		return;
	}
	pthread_mutex_unlock(&p->lock);

	n = s->handle(s, budget);
	if (n > 0)
		*done += (unsigned)n;

	pthread_mutex_lock(&p->lock);
	atomic_store(&s->busy, false);
	if (!atomic_load(&s->dead)) {
		struct rpcrdma__cq *cq = s->is_cq ? rpcrdma__container_of(s, struct rpcrdma__cq, src) :
						    NULL;

		/* Steps queued while it ran (rpcrdma__cq_after) need a poll. */
		if (cq && (cq->pending || !rpcrdma__list_empty(&cq->waits))) {
			if (!s->on_pending) {
				rpcrdma__list_add_tail(&p->pending, &s->pnode);
				s->on_pending = true;
			}
		} else {
			epoll_ctl(p->epfd, EPOLL_CTL_MOD, s->fd, &ev);
		}
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static bool run_pending(struct rpcrdma_poller *p, unsigned budget, unsigned *done)
{
	struct rpcrdma__list *n;

	pthread_mutex_lock(&p->lock);
	n = rpcrdma__list_pop(&p->pending);
	if (n)
		rpcrdma__container_of(n, struct rpcrdma__source, pnode)->on_pending = false;
	pthread_mutex_unlock(&p->lock);
	if (!n)
		return false;
	source_run(p, rpcrdma__container_of(n, struct rpcrdma__source, pnode), budget, done);
	return true;
}

/* One round: wait up to timeout ms, handle what is ready. */
static unsigned round_once(struct rpcrdma_poller *p, int timeout, unsigned budget)
{
	struct epoll_event evs[8];
	unsigned done = 0;
	int n;

	pthread_mutex_lock(&p->lock);
	if (!rpcrdma__list_empty(&p->pending))
		timeout = 0;
	pthread_mutex_unlock(&p->lock);

	n = epoll_wait(p->epfd, evs, 8, timeout);
	for (int i = 0; i < n; i++) {
		if (evs[i].data.ptr == NULL)
			continue;       /* the kick eventfd */
		source_run(p, evs[i].data.ptr, budget, &done);
	}
	run_pending(p, budget, &done);
	return done;
}

/* A spinning thread ends a round on every pass: without a barrier waiting
 * (kick_hold 0), that is one atomic increment.  The increment comes before
 * the load of kick_hold, a barrier's increment of kick_hold before its
 * snapshot of seq: either the barrier's snapshot holds this round's end,
 * or this thread sees kick_hold and wakes it. */
static void round_end(struct rpcrdma_poller *p, unsigned idx)
{
	atomic_fetch_add(&p->seq[idx], 1);
	if (rpcrdma__unlikely(atomic_load(&p->kick_hold))) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
}

struct worker_arg {
	struct rpcrdma_poller *p;
	unsigned idx;
};

static void *worker_main(void *arg)
{
	struct rpcrdma_poller *p = ((struct worker_arg *)arg)->p;
	unsigned idx = ((struct worker_arg *)arg)->idx;

	free(arg);
	while (!atomic_load(&p->stop)) {
		round_once(p, -1, p->opts.budget);
		round_end(p, idx);
	}
	return NULL;
}

static void *busy_main(void *arg)
{
	struct rpcrdma_poller *p = ((struct worker_arg *)arg)->p;
	unsigned idx = ((struct worker_arg *)arg)->idx;
	unsigned spins = 0;
	uint64_t last = 0;

	free(arg);
	while (!atomic_load(&p->stop)) {
		unsigned ncq = atomic_load(&p->ncqs);
		bool more;

		for (unsigned i = 0; i < ncq; i++)
			poll_batches(p, p->cqs[i], p->opts.budget, &more);
		/* The event channels (connections, timers, kicks) once a tick
		 * of the coarse clock (1-10 ms) rather than every 64 polls: an
		 * epoll_wait is a system call, and every 64 polls came to three
		 * or four a NULL call. */
		if (ncq == 0 || ++spins % 16 == 0) {
			uint64_t now = rpcrdma__coarse_ns();

			if (ncq == 0 || now != last) {
				last = now;
				round_once(p, 0, p->opts.budget);
			}
		}
		round_end(p, idx);
	}
	return NULL;
}

int rpcrdma_poller_poll(struct rpcrdma_poller *p, unsigned budget)
{
	unsigned ncq, done = 0;

	if (!p || p->opts.mode != RPCRDMA_POLLER_DIRECT)
		return -EINVAL;
	if (!budget)
		budget = p->opts.budget;
	/*
	 * Completions first, straight from the queues: a caller that polls in
	 * a loop (spinning, as perftest does) then pays no system call per
	 * completion.  The channel event such completions raised is consumed
	 * by the round below, which also re-arms.  A CQ another caller is
	 * handling is skipped (one thread per queue).  The claim takes no
	 * lock: an exchange of busy, then a look at dead (busy_wait_locked
	 * has the other half); a CQ dropped meanwhile is still readable
	 * memory (the poller's spare list).
	 */
	ncq = atomic_load(&p->ncqs);
	/* A call whose budget ran out starts the next one after the CQ it
	 * stopped at: with the pool's several CQs per device, a busy first
	 * CQ must not starve the others. */
	unsigned start = ncq > 1 ? atomic_load_explicit(&p->cq_next, memory_order_relaxed) % ncq : 0;

	for (unsigned k = 0; k < ncq && done < budget; k++) {
		unsigned i = start + k < ncq ? start + k : start + k - ncq;
		struct rpcrdma__cq *cq = p->cqs[i];
		bool more;

		if (atomic_exchange_explicit(&cq->src.busy, true, memory_order_seq_cst))
			continue;
		if (!atomic_load(&cq->src.dead))
			done += poll_batches(p, cq, budget - done, &more);
		busy_release(p, &cq->src);
		if (done >= budget && ncq > 1)
			atomic_store_explicit(&p->cq_next, i + 1, memory_order_relaxed);
	}
	if (done)
		return (int)done;
	/* A spinning caller would pay an epoll_wait per empty poll; its
	 * queues raise no events, so the channels only carry connection
	 * events and timers, which can wait 64 polls (while there is no
	 * queue yet, connecting, every poll looks). */
	if (p->opts.direct_spin && ncq && atomic_fetch_add(&p->idle, 1) % 64 != 63)
		return 0;
	return (int)round_once(p, 0, budget);
}

int rpcrdma_poller_fd(const struct rpcrdma_poller *p)
{
	return p ? p->epfd : -EINVAL;
}

bool rpcrdma__poller_is_direct(const struct rpcrdma_poller *p)
{
	return p->opts.mode == RPCRDMA_POLLER_DIRECT;
}

bool rpcrdma__poller_direct_spin(const struct rpcrdma_poller *p)
{
	return p->opts.direct_spin != 0;
}

int rpcrdma_poller_create(const struct rpcrdma_poller_opts *uopts, struct rpcrdma_poller **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	struct rpcrdma_poller_opts opts;
	struct rpcrdma_poller *p;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	int err;

	rpcrdma_poller_opts_init(&opts);
	if (uopts) {
		if (uopts->size < sizeof(size_t) || uopts->size > sizeof(opts))
			return -EINVAL;
		memcpy(&opts, uopts, uopts->size);
		opts.size = sizeof(opts);
	}
	if (opts.mode > RPCRDMA_POLLER_DIRECT || opts.batch == 0 || opts.batch > WC_BATCH_MAX ||
	    opts.budget < opts.batch || opts.cq_entries < 16 || opts.spin_us > 100000 ||
	    opts.cqs > RPCRDMA__MAX_CQS ||
	    (opts.mode == RPCRDMA_POLLER_WORKQUEUE && (opts.threads == 0 || opts.threads > 64)))
		return -EINVAL;
	if (opts.mode != RPCRDMA_POLLER_WORKQUEUE)
		opts.spin_us = 0;       /* workqueue mode only (poller.h) */
	if (opts.mode != RPCRDMA_POLLER_DIRECT)
		opts.direct_spin = 0;   /* direct mode only */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->opts = opts;
	rpcrdma__list_init(&p->pending);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	p->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->wake_src.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->wake_src.handle = wake_handle;
	if (p->epfd < 0 || p->kickfd < 0 || p->wake_src.fd < 0 ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->kickfd, &ev)) {
		err = -errno;
		goto fail;
	}
	err = rpcrdma__poller_add(p, &p->wake_src);
	if (err)
		goto fail;
	p->nthreads = opts.mode == RPCRDMA_POLLER_WORKQUEUE ? opts.threads :
		      opts.mode == RPCRDMA_POLLER_BUSY ? 1 : 0;
	if (p->nthreads) {
		unsigned started = 0;

		p->threads = calloc(p->nthreads, sizeof(*p->threads));
		p->seq = calloc(p->nthreads, sizeof(*p->seq));
		if (!p->threads || !p->seq) {
			err = -ENOMEM;
			goto fail;
		}
		for (; started < p->nthreads; started++) {
			struct worker_arg *a = malloc(sizeof(*a));

			if (!a) {
				err = -ENOMEM;
				break;
			}
			a->p = p;
			a->idx = started;
			err = -pthread_create(&p->threads[started], NULL,
					      opts.mode == RPCRDMA_POLLER_BUSY ? busy_main : worker_main, a);
			if (err) {
				free(a);
				break;
			}
		}
		if (started < p->nthreads) {
			p->nthreads = started;
			rpcrdma_poller_destroy(p);
			return err;
		}
	}
	*out = p;
	return 0;
fail:
	free(p->threads);
	free(p->seq);
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->kickfd >= 0)
		close(p->kickfd);
	if (p->wake_src.fd >= 0)
		close(p->wake_src.fd);
	free(p);
	return err;
}

void rpcrdma_poller_destroy(struct rpcrdma_poller *p)
{
	uint64_t one = 1;

	if (!p)
		return;
	atomic_store(&p->stop, true);
	if (write(p->kickfd, &one, sizeof(one)) < 0) {
		/* readable already */
	}
	pthread_mutex_lock(&p->lock);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	for (unsigned i = 0; i < atomic_load(&p->ncqs); i++) {
		struct rpcrdma__cq *cq = p->cqs[i];

		ibv_destroy_cq(cq->cq);
		if (cq->channel)
			ibv_destroy_comp_channel(cq->channel);
		free(cq);
	}
	while (p->spare) {
		struct rpcrdma__cq *cq = p->spare;

		p->spare = cq->spare_next;
		free(cq);
	}
	close(p->kickfd);
	close(p->wake_src.fd);
	close(p->epfd);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->threads);
	free(p->seq);
	free(p);
}

void rpcrdma__poller_cq_drop(struct rpcrdma_poller *p, struct rpcrdma__cq *cq)
{
	unsigned ncq, i;

	pthread_mutex_lock(&p->lock);
	if (cq->reserved > 0) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	ncq = atomic_load(&p->ncqs);
	for (i = 0; i < ncq && p->cqs[i] != cq; i++)
		;
	if (i == ncq) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	/* Threads reading the array without the lock see cq or the last
	 * entry at i; the barrier below outlasts every such reader. */
	p->cqs[i] = p->cqs[ncq - 1];
	atomic_store(&p->ncqs, ncq - 1);
	pthread_mutex_unlock(&p->lock);
	if (cq->channel)
		rpcrdma__poller_del(p, &cq->src);
	pthread_mutex_lock(&p->lock);
	barrier_locked(p);
	/* DIRECT callers claim the CQ (busy) while they poll it; dead turns
	 * away those that found it in cqs[] before the removal. */
	atomic_store(&cq->src.dead, true);
	busy_wait_locked(p, &cq->src);
	pthread_mutex_unlock(&p->lock);
	ibv_destroy_cq(cq->cq);
	if (cq->channel)
		ibv_destroy_comp_channel(cq->channel);
	cq->cq = NULL;
	cq->channel = NULL;
	pthread_mutex_lock(&p->lock);
	cq->spare_next = p->spare;
	p->spare = cq;
	pthread_mutex_unlock(&p->lock);
}
