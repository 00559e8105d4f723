/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's own thread: an epoll loop over an eventfd (new calls,
 * deferred work, output queued by other threads, the end) and the
 * transport's socket, with the calls' deadlines (and UDP's
 * retransmissions) as its timeout.  Every callback of a call (encode,
 * decode, done) runs here, except RDMA replies (on the poller).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "clnt_int.h"

struct deferred {
	struct rpcrdma__clnt_work w;
	void (*fn)(void *);
	void *arg;
};

struct rpcrdma__clnt_loop {
	const struct rpcrdma__clnt_loop_ops *ops;
	int ep, evfd;
	pthread_t thread;
	pthread_mutex_t lock;           /* submitted, deferred, stop */
	struct rpcrdma__list submitted;
	struct rpcrdma__list deferred;
	bool stop;
	struct rpcrdma__list pending;   /* loop thread only */
	/* loop thread only: a call was submitted from the loop thread (a
	 * done callback) without a wake-up; the next round must not sleep. */
	bool self_submitted;
};

int64_t rpcrdma__clnt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rpcrdma__clnt_loop_wake(struct rpcrdma_clnt *c)
{
	uint64_t one = 1;

	if (write(c->loop->evfd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: the loop wakes anyway */
	}
}

int rpcrdma__clnt_loop_submit(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	struct rpcrdma__clnt_loop *l = c->loop;

	pthread_mutex_lock(&l->lock);
	if (l->stop) {
		pthread_mutex_unlock(&l->lock);
		return -ECANCELED;
	}
	rpcrdma__list_add_tail(&l->submitted, &r->node);
	pthread_mutex_unlock(&l->lock);
	/* From the loop's own thread (a done callback queueing the next call)
	 * no wake-up: the loop takes the call before it sleeps again, and its
	 * write leaves with the others of the round (one system call, not
	 * an eventfd write per call). */
	if (pthread_equal(pthread_self(), l->thread))
		l->self_submitted = true;
	else
		rpcrdma__clnt_loop_wake(c);
	return 0;
}

void rpcrdma__clnt_loop_queue(struct rpcrdma_clnt *c, struct rpcrdma__clnt_work *w)
{
	struct rpcrdma__clnt_loop *l = c->loop;

	pthread_mutex_lock(&l->lock);
	rpcrdma__list_add_tail(&l->deferred, &w->node);
	pthread_mutex_unlock(&l->lock);
	rpcrdma__clnt_loop_wake(c);
}

static void deferred_run(struct rpcrdma_clnt *c, struct rpcrdma__clnt_work *w)
{
	struct deferred *d = rpcrdma__container_of(w, struct deferred, w);

	(void)c;
	d->fn(d->arg);
	free(d);
}

int rpcrdma__clnt_loop_defer(struct rpcrdma_clnt *c, void (*fn)(void *), void *arg)
{
	struct deferred *d = malloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->w.fn = deferred_run;
	d->fn = fn;
	d->arg = arg;
	rpcrdma__clnt_loop_queue(c, &d->w);
	return 0;
}

int rpcrdma__clnt_loop_watch(struct rpcrdma_clnt *c, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(c->loop->ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int rpcrdma__clnt_loop_rewatch(struct rpcrdma_clnt *c, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(c->loop->ep, EPOLL_CTL_MOD, fd, &ev) ? -errno : 0;
}

void rpcrdma__clnt_loop_unwatch(struct rpcrdma_clnt *c, int fd)
{
	epoll_ctl(c->loop->ep, EPOLL_CTL_DEL, fd, NULL);
}

void rpcrdma__clnt_pending_add(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	rpcrdma__list_add_tail(&c->loop->pending, &r->node);
}

struct rpcrdma__creq *rpcrdma__clnt_pending_take(struct rpcrdma_clnt *c, uint32_t xid)
{
	struct rpcrdma__list *h = &c->loop->pending;

	for (struct rpcrdma__list *n = h->next; n != h; n = n->next) {
		struct rpcrdma__creq *r = rpcrdma__container_of(n, struct rpcrdma__creq, node);

		if (r->xid == xid) {
			rpcrdma__list_del(n);
			return r;
		}
	}
	return NULL;
}

void rpcrdma__clnt_pending_fail(struct rpcrdma_clnt *c, int status)
{
	struct rpcrdma__list *n;

	while ((n = rpcrdma__list_pop(&c->loop->pending)))
		rpcrdma__clnt_complete(c, rpcrdma__container_of(n, struct rpcrdma__creq, node),
				       status);
}

size_t rpcrdma__clnt_pending_max(struct rpcrdma_clnt *c)
{
	struct rpcrdma__list *h = &c->loop->pending;
	size_t max = RPCRDMA__CLNT_MIN_RECORD;

	for (struct rpcrdma__list *n = h->next; n != h; n = n->next) {
		struct rpcrdma__creq *r = rpcrdma__container_of(n, struct rpcrdma__creq, node);
		size_t m = r->req->res_max + r->req->res_bulk_len +
			   (r->gss ? RPCRDMA__CLNT_GSS_SLACK : 0);

		if (m > max)
			max = m;
	}
	return max;
}

/* Encodes and starts the calls submitted since the last round, each with
 * its deadline from one clock read (*now, read here if still -1). */
static void loop_start(struct rpcrdma_clnt *c, struct rpcrdma__list *batch, int64_t *now)
{
	struct rpcrdma__list *n;

	while ((n = rpcrdma__list_pop(batch))) {
		struct rpcrdma__creq *r = rpcrdma__container_of(n, struct rpcrdma__creq, node);
		int err;

		if (*now < 0)
			*now = rpcrdma__clnt_now_ms();
		r->deadline_ms = *now + r->timeout_ms;
		err = rpcrdma__clnt_encode(c, r);
		if (!err)
			err = c->loop->ops->start(c, r);
		if (err)
			rpcrdma__clnt_complete(c, r, err);
	}
}

/* Expires deadlines and resends; returns the epoll timeout to the next.
 * now: the round's clock read, or -1 to read it. */
static int loop_timers(struct rpcrdma_clnt *c, int64_t now)
{
	struct rpcrdma__list *h = &c->loop->pending, *n, *next;
	int64_t first = INT64_MAX;

	if (now < 0)
		now = rpcrdma__clnt_now_ms();

	for (n = h->next; n != h; n = next) {
		struct rpcrdma__creq *r = rpcrdma__container_of(n, struct rpcrdma__creq, node);

		next = n->next;
		if (r->deadline_ms <= now) {
			rpcrdma__list_del(n);
			if (c->loop->ops->expire(c, r) == 0)
				rpcrdma__clnt_complete(c, r, -ETIMEDOUT);
			/* a done may have started calls: walk again */
			return 0;
		}
		if (r->resend_ms && r->resend_ms <= now) {
			c->loop->ops->resend(c, r);
			now = rpcrdma__clnt_now_ms();
		}
		if (r->deadline_ms < first)
			first = r->deadline_ms;
		if (r->resend_ms && r->resend_ms < first)
			first = r->resend_ms;
	}
	if (first == INT64_MAX)
		return -1;
	return first - now > 60000 ? 60000 : (int)(first - now);
}

/* Takes the submitted calls and deferred work; false when stopping. */
static bool loop_take(struct rpcrdma__clnt_loop *l, struct rpcrdma__list *calls,
		      struct rpcrdma__list *work)
{
	bool stop;

	pthread_mutex_lock(&l->lock);
	stop = l->stop;
	if (!stop) {   /* else left to rpcrdma__clnt_loop_destroy */
		rpcrdma__list_splice_tail(calls, &l->submitted);
		rpcrdma__list_splice_tail(work, &l->deferred);
	}
	pthread_mutex_unlock(&l->lock);
	return !stop;
}

static void loop_run_deferred(struct rpcrdma_clnt *c, struct rpcrdma__list *work)
{
	struct rpcrdma__list *n;

	while ((n = rpcrdma__list_pop(work))) {
		struct rpcrdma__clnt_work *w = rpcrdma__container_of(n, struct rpcrdma__clnt_work,
								     node);

		w->fn(c, w);
	}
}

static void *loop_main(void *arg)
{
	struct rpcrdma_clnt *c = arg;
	struct rpcrdma__clnt_loop *l = c->loop;
	struct rpcrdma__list calls, work;
	struct epoll_event ev[16];
	int timeout = -1;

	rpcrdma__list_init(&calls);
	rpcrdma__list_init(&work);
	for (;;) {
		int n = epoll_wait(l->ep, ev, 16, timeout);

		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == l->evfd) {
				uint64_t v;

				if (read(l->evfd, &v, sizeof(v)) < 0) {
					/* EAGAIN: another round drained it */
				}
			} else if (l->ops->input) {
				l->ops->input(c, ev[i].events);
			}
		}
		l->self_submitted = false;
		if (!loop_take(l, &calls, &work))
			break;
		int64_t now = -1;

		loop_run_deferred(c, &work);
		loop_start(c, &calls, &now);
		if (l->ops->flush)
			l->ops->flush(c);
		/* The start's clock read serves the first walk (a round takes
		 * no time a millisecond deadline can see); a walk again after
		 * an expiry reads the clock anew. */
		for (timeout = loop_timers(c, now); timeout == 0; timeout = loop_timers(c, -1))
			;
		if (l->self_submitted)
			timeout = 0;   /* submitted after the take: round again */
	}
	return NULL;
}

int rpcrdma__clnt_loop_create(struct rpcrdma_clnt *c, const struct rpcrdma__clnt_loop_ops *ops)
{
	struct rpcrdma__clnt_loop *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return -ENOMEM;
	l->ops = ops;
	pthread_mutex_init(&l->lock, NULL);
	rpcrdma__list_init(&l->submitted);
	rpcrdma__list_init(&l->deferred);
	rpcrdma__list_init(&l->pending);
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	l->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->ep < 0 || l->evfd < 0) {
		err = -errno;
		goto fail;
	}
	c->loop = l;
	err = rpcrdma__clnt_loop_watch(c, l->evfd, EPOLLIN);
	if (err)
		goto fail;
	err = -pthread_create(&l->thread, NULL, loop_main, c);
	if (err)
		goto fail;
	return 0;
fail:
	if (l->ep >= 0)
		close(l->ep);
	if (l->evfd >= 0)
		close(l->evfd);
	pthread_mutex_destroy(&l->lock);
	free(l);
	c->loop = NULL;
	return err;
}

void rpcrdma__clnt_loop_stop(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_loop *l = c->loop;

	if (!l || l->stop)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_mutex_unlock(&l->lock);
	rpcrdma__clnt_loop_wake(c);
	pthread_join(l->thread, NULL);
}

void rpcrdma__clnt_loop_destroy(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_loop *l = c->loop;
	struct rpcrdma__list *n;

	if (!l)
		return;
	rpcrdma__clnt_loop_stop(c);
	loop_run_deferred(c, &l->deferred);
	while ((n = rpcrdma__list_pop(&l->submitted)))
		rpcrdma__clnt_complete(c, rpcrdma__container_of(n, struct rpcrdma__creq, node),
				       -ECANCELED);
	rpcrdma__clnt_pending_fail(c, -ECANCELED);
	close(l->ep);
	close(l->evfd);
	pthread_mutex_destroy(&l->lock);
	free(l);
	c->loop = NULL;
}
