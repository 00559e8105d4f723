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

/* Loop thread: stops polling; the driver thread takes over, for good. */
static void rdrive_hand_over(struct rpcrdma__svc_rdrive *d)
{
	rpcrdma__svc_unwatch(d->svc, &d->src);
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
	 * credentials: each of their replies asks first (may_post_here). */
	bool batch = !d->probe;

	if (batch)
		rpcrdma__batch_begin();
	d->loop_tid = pthread_self();
	atomic_store_explicit(&d->loop_polling, true, memory_order_release);
	(void)rpcrdma_poller_poll(d->poller, 0);
	atomic_store_explicit(&d->loop_polling, false, memory_order_release);
	/* Then the calls that poll queued, with no wake-up in between. */
	while (d->pending) {
		struct rpcrdma__svc_rdma *r = d->pending;
		d->pending = r->pending_next;
		r->pending = false;
		d->drain(r);
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
	rpcrdma__svc_unwatch(d->svc, &d->src);
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

/* The service's driver for DIRECT poller p, made on first use (svc->lock
 * held): the poller's fd on the loop's epoll set and, with
 * RPCRDMA_SVC_HANDLERS_SWITCH_CREDS, its probe file and its thread (idle
 * until handed the poller).  -EINVAL: the service already
 * drives another poller. */
int rpcrdma__svc_rdrive_get(struct rpcrdma_svc *svc, struct rpcrdma_poller *p,
			    void (*drain)(struct rpcrdma__svc_rdma *r),
			    struct rpcrdma__svc_rdrive **out)
{
	struct rpcrdma__svc_rdrive *d = svc->rdrive;
	int rc;

	if (d) {
		if (d->poller != p)
			return -EINVAL;
		*out = d;
		return 0;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->svc = svc;
	d->poller = p;
	d->drain = drain;
	d->src.fd = rpcrdma_poller_fd(p);
	d->src.handle = on_poller;
	atomic_init(&d->loop_polling, false);
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->stop_fd = -1;
	/* Handlers that never switch credentials: the loop polls for good. */
	if (!(svc->opts.flags & RPCRDMA_SVC_HANDLERS_SWITCH_CREDS))
		rc = rpcrdma__svc_watch(svc, &d->src, EPOLLIN);
	else if (!(d->probe = rdma_create_event_channel()))
		rc = errno ? -errno : -ENOMEM;
	else if ((d->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		rc = -errno;
	else if ((rc = -pthread_create(&d->thread, NULL, rdrive_main, d)) == 0) {
		d->started = true;
		rc = rpcrdma__svc_watch(svc, &d->src, EPOLLIN);
	}
	if (rc) {
		rpcrdma__svc_rdrive_free(d);
		return rc;
	}
	svc->rdrive = d;
	*out = d;
	return 0;
}
