/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The DIRECT poller a service drives (svc_rdma.c, at the top, tells why):
 * its fd on the loop's epoll set, polled by the loop thread; with
 * RPCRDMA_SVC_HANDLERS_SWITCH_CREDS, the probe of the loop thread's
 * credentials before each poll and the driver thread that takes the
 * poller over for good once the kernel refuses them.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rpcrdma/poller.h>

#include "svc_int.h"
#include "svc_rdma_int.h" /* rdma/rdma_internal.h: rpcrdma__batch_begin */

/*
 * Whether this thread was refused by the kernel: kept per thread, as the
 * refusal is for good (a thread's switched credentials are new ones, even
 * when set back), so a refused thread asks no more.
 */
static _Thread_local bool thread_refused;
bool rpcrdma__svc_rdma_may(const struct rpcrdma_svc *svc, const struct rpcrdma_call *call, int fd)
{
	int rc;

	/* Told, and this thread never switched: nothing to ask. */
	if ((svc->opts.flags & RPCRDMA_SVC_HANDLERS_TELL_CREDS) &&
	    !rpcrdma__svc_thread_switching())
		return true;
	if (thread_refused)
		return false;
	rc = call ? rpcrdma__call_may_post(call) : rpcrdma__may_command(fd);
	if (rc == -EACCES || rc == -ENOTSUP)
		thread_refused = true;
	return rc == 0;
}

/* The driver whose poll this thread is inside (on_poller). */
static _Thread_local struct rpcrdma__svc_rdrive *cur_drive;
struct rpcrdma__svc_rdrive *rpcrdma__svc_rdrive_current(void)
{
	return cur_drive;
}

void rpcrdma__svc_rdrive_queue(struct rpcrdma__svc_rdrive *d, struct rdma_req *q)
{
	q->next = NULL;
	*d->tail = q;
	d->tail = &q->next;
	atomic_fetch_add_explicit(&d->loop->rdma_calls, 1, memory_order_relaxed);
}

/* Loop thread: stops polling; the driver thread takes over, for good. */
static void rdrive_hand_over(struct rpcrdma__svc_rdrive *d)
{
	rpcrdma__svc_loop_unwatch(d->loop, &d->src);
	pthread_mutex_lock(&d->lock);
	d->handed = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/* Loop thread: the poller's fd is readable. */
static void on_poller(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_rdrive *d = (struct rpcrdma__svc_rdrive *)src;
	(void)events;

	/* Every rdma_cm and uverbs file was opened with the same credentials
	 * (by threads that never switched), so this one answers for all. */
	if (d->probe && !rpcrdma__svc_rdma_may(d->svc, NULL, d->probe->fd)) {
		rdrive_hand_over(d);
		return;
	}
	/* The replies of this round go out together, one post per
	 * connection (poller_int.h), but for handlers that switch
	 * credentials: each of their replies asks first (may_post_here).
	 * Handlers that tell (RPCRDMA_SVC_HANDLERS_TELL_CREDS) batch too
	 * on a thread that never switched: its first switch posts the
	 * batch first (rpcrdma_svc_creds_switching). */
	bool told = d->svc->opts.flags & RPCRDMA_SVC_HANDLERS_TELL_CREDS;
	bool batch = !d->probe || (told && !rpcrdma__svc_thread_switching());

	if (batch)
		rpcrdma__batch_begin();
	cur_drive = d;
	(void)rpcrdma_poller_poll(d->poller, 0);
	cur_drive = NULL;
	/* Then the calls that poll queued, with no wake-up in between. */
	while (d->head) {
		struct rdma_req *q = d->head;
		d->head = q->next;
		if (!d->head)
			d->tail = &d->head;
		d->run(q);
	}
	if (batch)
		rpcrdma__batch_end();
}

/* Idle until the loop hands the poller over, then polls it until stopped.
 * Started by the thread that called rpcrdma_svc_listen_rdma, whose
 * credentials it keeps. */
static void *rdrive_main(void *arg)
{
	struct rpcrdma__svc_rdrive *d = arg;

	pthread_mutex_lock(&d->lock);
	while (!d->handed && !d->stop)
		pthread_cond_wait(&d->cond, &d->lock);
	bool stop = d->stop;
	pthread_mutex_unlock(&d->lock);
	if (stop)
		return NULL;
	struct pollfd pf[2] = {
		{ .fd = rpcrdma_poller_fd(d->poller), .events = POLLIN },
		{ .fd = d->stop_fd, .events = POLLIN },
	};
	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents)
			break;
		if (pf[0].revents)
			(void)rpcrdma_poller_poll(d->poller, 0);
	}
	return NULL;
}

/* Stops the driver thread and frees d, however far rpcrdma__svc_rdrive_get got. */
void rpcrdma__svc_rdrive_free(struct rpcrdma__svc_rdrive *d)
{
	if (!d)
		return;
	/* Off the loop's epoll set (already, once handed over: harmless). */
	rpcrdma__svc_loop_unwatch(d->loop, &d->src);
	if (d->started) {
		pthread_mutex_lock(&d->lock);
		d->stop = true;
		pthread_cond_signal(&d->cond);
		pthread_mutex_unlock(&d->lock);
		(void)eventfd_write(d->stop_fd, 1);
		pthread_join(d->thread, NULL);
	}
	if (d->stop_fd >= 0)
		close(d->stop_fd);
	if (d->probe)
		rdma_destroy_event_channel(d->probe);
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

/* A driver for DIRECT poller p on loop l (see rpcrdma__svc_rdrive_get). */
static int rdrive_new(struct rpcrdma__svc_loop *l, struct rpcrdma_poller *p,
		      void (*run)(struct rdma_req *q), struct rpcrdma__svc_rdrive **out)
{
	struct rpcrdma_svc *svc = l->svc;
	struct rpcrdma__svc_rdrive *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return -ENOMEM;
	d->svc = svc;
	d->loop = l;
	d->poller = p;
	d->run = run;
	d->tail = &d->head;
	d->src.fd = rpcrdma_poller_fd(p);
	d->src.handle = on_poller;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->stop_fd = -1;
	/* Handlers that never switch credentials: the loop polls for good. */
	if (!(svc->opts.flags & RPCRDMA_SVC_HANDLERS_SWITCH_CREDS))
		rc = rpcrdma__svc_loop_watch(l, &d->src, EPOLLIN);
	else if (!(d->probe = rdma_create_event_channel()))
		rc = errno ? -errno : -ENOMEM;
	else if ((d->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		rc = -errno;
	else if ((rc = -pthread_create(&d->thread, NULL, rdrive_main, d)) == 0) {
		d->started = true;
		rc = rpcrdma__svc_loop_watch(l, &d->src, EPOLLIN);
	}
	if (rc) {
		rpcrdma__svc_rdrive_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int rpcrdma__svc_rdrive_get(struct rpcrdma_svc *svc, struct rpcrdma_poller *p,
			    void (*run)(struct rdma_req *q), struct rpcrdma__svc_rdrive **out)
{
	struct rpcrdma__svc_rdrive *d = svc->rdrive;
	int rc;

	if (d) {
		if (d->poller != p)
			return -EINVAL;
		*out = d;
		return 0;
	}
	rc = rdrive_new(&svc->loops[0], p, run, &d);
	if (rc)
		return rc;
	svc->rdrive = d;
	*out = d;
	return 0;
}

/* Loop k's DIRECT poller and its driver, made like given (see
 * rpcrdma__svc_spread_get). */
static int spread_loop(struct rpcrdma_svc *svc, unsigned k, struct rpcrdma_poller *given,
		       void (*run)(struct rdma_req *q))
{
	struct rpcrdma__svc_loop *l = &svc->loops[k];
	struct rpcrdma_poller_opts po;

	if (k == 0 && svc->rdrive && svc->rdrive->poller == given) {
		l->rpoller = given;      /* driven by svc->rdrive already */
		return 0;
	}
	po = given->opts;
	po.size = sizeof(po);
	po.mode = RPCRDMA_POLLER_DIRECT;
	po.direct_spin = 0;
	po.spin_us = 0;
	po.cqs = 1;                      /* one thread polls them all anyway */
	int rc = rpcrdma_poller_create(&po, &l->rpoller);
	if (rc)
		return rc;
	l->rpoller_own = true;
	return rdrive_new(l, l->rpoller, run, &l->rdrive);
}

int rpcrdma__svc_spread_get(struct rpcrdma_svc *svc, struct rpcrdma_poller *given,
			    void (*run)(struct rdma_req *q), struct rpcrdma_poller **spread,
			    unsigned *n)
{
	unsigned k = svc->opts.loops > 1 ? svc->opts.loops : 1;

	*n = 0;
	if (k == 1 || (svc->opts.flags & RPCRDMA_SVC_HANDLERS_SWITCH_CREDS))
		return 0;
	for (unsigned i = 0; i < k; i++) {
		struct rpcrdma__svc_loop *l = &svc->loops[i];
		if (!l->rpoller) {
			int rc = spread_loop(svc, i, given, run);
			if (rc)
				return rc;
		}
		spread[i] = l->rpoller;
	}
	*n = k;
	return 0;
}

void rpcrdma__svc_spread_free(struct rpcrdma_svc *svc)
{
	unsigned k = svc->opts.loops > 1 ? svc->opts.loops : 1;

	for (unsigned i = 0; i < k; i++) {
		struct rpcrdma__svc_loop *l = &svc->loops[i];
		rpcrdma__svc_rdrive_free(l->rdrive);
		l->rdrive = NULL;
		if (l->rpoller_own)
			rpcrdma_poller_destroy(l->rpoller);
		l->rpoller = NULL;
		l->rpoller_own = false;
	}
}
