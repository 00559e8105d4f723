/* SPDX-License-Identifier: BSD-2-Clause */
/* The service object: creation, the epoll event loop, counters, shutdown. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "svc_backward.h"
#include "svc_int.h"
#include "gss/gss_int.h"

void rpcrdma__svc_free_programs(struct rpcrdma_svc *svc);

/* The eventfd: a stop request, or TCP memory released for parked
 * connections. */
static void wake_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma_svc *svc = (struct rpcrdma_svc *)((char *)src -
		offsetof(struct rpcrdma_svc, wake));
	uint64_t v;
	(void)events;
	if (read(src->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: someone else drained it; nothing to do. */
	}
	rpcrdma__svc_tcp_unpark(svc);
}

void rpcrdma_svc_opts_init(struct rpcrdma_svc_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

/* Whether this thread said it switches its credentials
 * (RPCRDMA_SVC_HANDLERS_TELL_CREDS): per thread, as the switch is. */
static _Thread_local bool thread_switching;

void rpcrdma_svc_creds_switching(void)
{
	thread_switching = true;
}

bool rpcrdma__svc_thread_switching(void)
{
	return thread_switching;
}

int rpcrdma_svc_create(const struct rpcrdma_svc_opts *opts, struct rpcrdma_svc **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	struct rpcrdma_svc_opts o = {0};
	if (!out)
		return -EINVAL;
	if (opts) {
		if (opts->size < sizeof(size_t))
			return -EINVAL;
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	}
	o.size = sizeof(o);
	if (o.max_calls == 0)
		o.max_calls = 64;
	if (o.max_record == 0)
		o.max_record = (1u << 20) + 4096;
	if (o.max_datagram == 0)
		o.max_datagram = 65536;
	if (o.idle_timeout_ms == 0)
		o.idle_timeout_ms = RPCRDMA_SVC_DEFAULT_IDLE_MS;
	if (o.max_conns == 0)
		o.max_conns = RPCRDMA_SVC_DEFAULT_MAX_CONNS;
	if (o.max_record < 32 || o.max_record > 0x7fffffffu || o.max_datagram < 32 ||
	    o.max_datagram > 65536 || o.max_calls > 1u << 20 ||
	    (o.flags & ~(RPCRDMA_SVC_HANDLERS_SWITCH_CREDS | RPCRDMA_SVC_HANDLERS_BLOCK |
			 RPCRDMA_SVC_HANDLERS_TELL_CREDS)))
		return -EINVAL;
	if ((o.flags & RPCRDMA_SVC_HANDLERS_TELL_CREDS) &&
	    !(o.flags & RPCRDMA_SVC_HANDLERS_SWITCH_CREDS))
		return -EINVAL;
	if (o.max_conn_bytes == 0)
		o.max_conn_bytes = o.max_record > SIZE_MAX / 4 ? SIZE_MAX : 4 * o.max_record;
	if (o.max_svc_bytes == 0)
		o.max_svc_bytes = o.max_conn_bytes > RPCRDMA_SVC_DEFAULT_SVC_BYTES ?
				  o.max_conn_bytes : RPCRDMA_SVC_DEFAULT_SVC_BYTES;
	if (o.max_svc_bytes < o.max_record)
		return -EINVAL;

	struct rpcrdma_svc *svc = calloc(1, sizeof(*svc));
	if (!svc)
		return -ENOMEM;
	svc->opts = o;
	svc->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (svc->epfd < 0) {
		int rc = -errno;
		free(svc);
		return rc;
	}
	svc->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (svc->wake.fd < 0) {
		int rc = -errno;
		close(svc->epfd);
		free(svc);
		return rc;
	}
	svc->wake.handle = wake_handle;
	int rc = rpcrdma__svc_watch(svc, &svc->wake, EPOLLIN);
	if (rc) {
		close(svc->wake.fd);
		close(svc->epfd);
		free(svc);
		return rc;
	}
	svc->idle.fd = -1;
	if (o.idle_timeout_ms != RPCRDMA_SVC_UNLIMITED) {
		unsigned tick = o.idle_timeout_ms / 4 < 50 ? 50 : o.idle_timeout_ms / 4;
		struct itimerspec its = {
			.it_interval = { tick / 1000, (long)(tick % 1000) * 1000000 },
			.it_value = { tick / 1000, (long)(tick % 1000) * 1000000 },
		};
		svc->idle.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		svc->idle.handle = rpcrdma__svc_tcp_sweep;
		if (svc->idle.fd < 0 || timerfd_settime(svc->idle.fd, 0, &its, NULL) ||
		    rpcrdma__svc_watch(svc, &svc->idle, EPOLLIN)) {
			rc = svc->idle.fd < 0 ? -errno : -EIO;
			if (svc->idle.fd >= 0)
				close(svc->idle.fd);
			close(svc->wake.fd);
			close(svc->epfd);
			free(svc);
			return rc;
		}
	}
	pthread_rwlock_init(&svc->progs_lock, NULL);
	pthread_mutex_init(&svc->loop_lock, NULL);
	pthread_mutex_init(&svc->run_lock, NULL);
	atomic_init(&svc->own_loop, false);
	pthread_mutex_init(&svc->lock, NULL);
	pthread_cond_init(&svc->xprts_gone, NULL);
	atomic_init(&svc->stop, false);
	atomic_init(&svc->tcp_bytes, 0);
	atomic_init(&svc->tcp_mem_waiters, 0);
	*out = svc;
	return 0;
}

int rpcrdma__svc_watch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src,
		       uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };
	return epoll_ctl(svc->epfd, EPOLL_CTL_ADD, src->fd, &ev) ? -errno : 0;
}

int rpcrdma__svc_rewatch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src,
			 uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };
	return epoll_ctl(svc->epfd, EPOLL_CTL_MOD, src->fd, &ev) ? -errno : 0;
}

void rpcrdma__svc_unwatch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src)
{
	epoll_ctl(svc->epfd, EPOLL_CTL_DEL, src->fd, NULL);
}

int rpcrdma_svc_fd(const struct rpcrdma_svc *svc)
{
	return svc->epfd;
}

int rpcrdma_svc_poll(struct rpcrdma_svc *svc, int timeout_ms)
{
	struct epoll_event evs[32];
	pthread_mutex_lock(&svc->loop_lock);
	int n = epoll_wait(svc->epfd, evs, 32, timeout_ms);
	if (n < 0) {
		n = errno == EINTR ? 0 : -errno;
	} else {
		pthread_mutex_lock(&svc->run_lock);
		/* The idle sweep closes and may free other connections, some
		 * of which may have an event later in this batch: it runs
		 * after every other handler of the batch (a connection that
		 * had an event there is not idle any more). */
		uint32_t idle_events = 0;
		for (int i = 0; i < n; i++) {
			struct rpcrdma__svc_source *src = evs[i].data.ptr;
			if (src == &svc->idle)
				idle_events = evs[i].events;
			else
				src->handle(src, evs[i].events);
		}
		if (idle_events)
			svc->idle.handle(&svc->idle, idle_events);
		for (const struct rpcrdma__svc_xprt_class *const *k = rpcrdma__svc_xprt_classes;
		     *k; k++)
			if ((*k)->reap)
				(*k)->reap(svc);
		pthread_mutex_unlock(&svc->run_lock);
	}
	pthread_mutex_unlock(&svc->loop_lock);
	return n;
}

static void *loop_thread(void *arg)
{
	struct rpcrdma_svc *svc = arg;
	while (!atomic_load(&svc->stop)) {
		if (rpcrdma_svc_poll(svc, -1) < 0)
			break;
	}
	return NULL;
}

int rpcrdma_svc_start(struct rpcrdma_svc *svc)
{
	if (svc->thread_running)
		return -EALREADY;
	atomic_store(&svc->stop, false);
	atomic_store(&svc->own_loop, true);
	int rc = pthread_create(&svc->thread, NULL, loop_thread, svc);
	if (rc) {
		atomic_store(&svc->own_loop, false);
		return -rc;
	}
	svc->thread_running = true;
	return 0;
}

void rpcrdma_svc_stop(struct rpcrdma_svc *svc)
{
	if (!svc->thread_running)
		return;
	/* No poller thread runs a handler once stop returns: one that took
	 * run_lock before the store has let it go when we get it. */
	atomic_store(&svc->own_loop, false);
	pthread_mutex_lock(&svc->run_lock);
	pthread_mutex_unlock(&svc->run_lock);
	atomic_store(&svc->stop, true);
	uint64_t one = 1;
	if (write(svc->wake.fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow here; ignore. */
	}
	pthread_join(svc->thread, NULL);
	svc->thread_running = false;
}

void rpcrdma_svc_get_stats(const struct rpcrdma_svc *svc, struct rpcrdma_svc_stats *st,
			   size_t size)
{
	struct rpcrdma_svc_stats s;
	const struct rpcrdma__svc_counters *c = &svc->st;
	s.calls = atomic_load(&c->calls);
	for (int i = 0; i < 6; i++)
		s.replies[i] = atomic_load(&c->replies[i]);
	s.rpc_mismatch = atomic_load(&c->rpc_mismatch);
	s.auth_errors = atomic_load(&c->auth_errors);
	s.dropped = atomic_load(&c->dropped);
	s.estimate_exceeded = atomic_load(&c->estimate_exceeded);
	s.encode_errors = atomic_load(&c->encode_errors);
	s.busy = atomic_load(&c->busy);
	s.record_too_big = atomic_load(&c->record_too_big);
	s.conns_accepted = atomic_load(&c->conns_accepted);
	s.conns_closed = atomic_load(&c->conns_closed);
	s.conns_idle = atomic_load(&c->conns_idle);
	s.send_waits = atomic_load(&c->send_waits);
	s.read_pauses = atomic_load(&c->read_pauses);
	s.conns_shed = atomic_load(&c->conns_shed);
	s.rdma_direct = atomic_load(&c->rdma_direct);
	s.rdma_handed = atomic_load(&c->rdma_handed);
	s.rdma_loop_calls = atomic_load(&c->rdma_loop_calls);
	s.conns_evicted = atomic_load(&c->conns_evicted);
	s.protocol_errors = atomic_load(&c->protocol_errors);
	s.mem_pauses = atomic_load(&c->mem_pauses);
	s.tcp_buffered = atomic_load(&svc->tcp_bytes);
	s.rdma_poller_calls = atomic_load(&c->rdma_poller_calls);
	s.rdma_queued_creds = atomic_load(&c->rdma_queued_creds);
	s.rdma_queued_block = atomic_load(&c->rdma_queued_block);
	s.rdma_queued_embedded = atomic_load(&c->rdma_queued_embedded);
	s.rdma_queued_busy = atomic_load(&c->rdma_queued_busy);
	memcpy(st, &s, size < sizeof(s) ? size : sizeof(s));
}

void rpcrdma_svc_destroy(struct rpcrdma_svc *svc)
{
	if (!svc)
		return;
	rpcrdma_svc_stop(svc);
	/* Each kind of transport (svc_classes.c), step by step (svc_xprt.h). */
	const struct rpcrdma__svc_xprt_class *const *k, *const *all = rpcrdma__svc_xprt_classes;
	for (k = all; *k; k++)
		if ((*k)->cancel)
			(*k)->cancel(svc);
	rpcrdma__rpcbind_unset_all(svc);
	pthread_mutex_lock(&svc->loop_lock);
	pthread_mutex_lock(&svc->run_lock);
	for (k = all; *k; k++)
		if ((*k)->shutdown)
			(*k)->shutdown(svc);
	pthread_mutex_unlock(&svc->run_lock);
	pthread_mutex_unlock(&svc->loop_lock);
	for (k = all; *k; k++)
		if ((*k)->drain)
			(*k)->drain(svc);
	/* Transports whose calls are still out go when their last call ends. */
	pthread_mutex_lock(&svc->lock);
	while (svc->nxprts)
		pthread_cond_wait(&svc->xprts_gone, &svc->lock);
	pthread_mutex_unlock(&svc->lock);

	for (k = all; *k; k++)
		if ((*k)->free)
			(*k)->free(svc);
	while (svc->endpoints) {
		struct rpcrdma__svc_endpoint *e = svc->endpoints;
		svc->endpoints = e->next;
		free(e);
	}
	rpcrdma__svc_free_programs(svc);
	rpcrdma__gss_svc_free(svc->gss);
	close(svc->wake.fd);
	if (svc->idle.fd >= 0)
		close(svc->idle.fd);
	close(svc->epfd);
	pthread_cond_destroy(&svc->xprts_gone);
	pthread_mutex_destroy(&svc->lock);
	pthread_mutex_destroy(&svc->run_lock);
	pthread_mutex_destroy(&svc->loop_lock);
	pthread_rwlock_destroy(&svc->progs_lock);
	free(svc);
}
