/* SPDX-License-Identifier: BSD-2-Clause */
/* The service object: creation, the epoll event loop, counters, shutdown. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "svc_backward.h"
#include "svc_int.h"
#include "gss/gss_int.h"
#ifdef RPCRDMA_HAVE_RDMA
#include "rdma/rdma_internal.h" /* rpcrdma__batch_open */
#endif

void rpcrdma__svc_free_programs(struct rpcrdma_svc *svc);

/* A loop's eventfd: a stop request, TCP memory released for parked
 * connections, a connection of the loop evicted (reaped after the batch). */
static void wake_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_loop *l = (struct rpcrdma__svc_loop *)((char *)src -
		offsetof(struct rpcrdma__svc_loop, wake));
	uint64_t v;
	(void)events;
	if (read(src->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: someone else drained it; nothing to do. */
	}
	for (const struct rpcrdma__svc_xprt_class *const *k = rpcrdma__svc_xprt_classes; *k; k++)
		if ((*k)->wake)
			(*k)->wake(l);
}

/* A loop's idle timer: each kind of transport closes what of the loop has
 * been idle. */
static void idle_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_loop *l = (struct rpcrdma__svc_loop *)((char *)src -
		offsetof(struct rpcrdma__svc_loop, idle));
	uint64_t ticks;
	(void)events;
	if (read(src->fd, &ticks, sizeof(ticks)) < 0)
		return;
	for (const struct rpcrdma__svc_xprt_class *const *k = rpcrdma__svc_xprt_classes; *k; k++)
		if ((*k)->idle)
			(*k)->idle(l);
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
#ifdef RPCRDMA_HAVE_RDMA
	/* What this thread's open batch holds is posted now, while the
	 * kernel still takes its posts (svc_rdma_drive.c's on_poller). */
	if (!thread_switching && rpcrdma__batch_open())
		rpcrdma__batch_flush();
#endif
	thread_switching = true;
}

bool rpcrdma__svc_thread_switching(void)
{
	return thread_switching;
}

/* Takes the defaults; -EINVAL for values out of range. */
static int opts_check(const struct rpcrdma_svc_opts *opts, struct rpcrdma_svc_opts *o)
{
	if (opts) {
		if (opts->size < sizeof(size_t))
			return -EINVAL;
		memcpy(o, opts, opts->size < sizeof(*o) ? opts->size : sizeof(*o));
	}
	o->size = sizeof(*o);
	if (o->max_calls == 0)
		o->max_calls = 64;
	if (o->max_record == 0)
		o->max_record = (1u << 20) + 4096;
	if (o->max_datagram == 0)
		o->max_datagram = 65536;
	if (o->idle_timeout_ms == 0)
		o->idle_timeout_ms = RPCRDMA_SVC_DEFAULT_IDLE_MS;
	if (o->max_conns == 0)
		o->max_conns = RPCRDMA_SVC_DEFAULT_MAX_CONNS;
	if (o->loops == 0)
		o->loops = 1;
	if (o->max_record < 32 || o->max_record > 0x7fffffffu || o->max_datagram < 32 ||
	    o->max_datagram > 65536 || o->max_calls > 1u << 20 ||
	    o->loops > RPCRDMA_SVC_MAX_LOOPS ||
	    (o->flags & ~(RPCRDMA_SVC_HANDLERS_SWITCH_CREDS | RPCRDMA_SVC_HANDLERS_BLOCK |
			  RPCRDMA_SVC_HANDLERS_TELL_CREDS)))
		return -EINVAL;
	if ((o->flags & RPCRDMA_SVC_HANDLERS_TELL_CREDS) &&
	    !(o->flags & RPCRDMA_SVC_HANDLERS_SWITCH_CREDS))
		return -EINVAL;
	if (o->max_conn_bytes == 0)
		o->max_conn_bytes = o->max_record > SIZE_MAX / 4 ? SIZE_MAX : 4 * o->max_record;
	if (o->max_svc_bytes == 0)
		o->max_svc_bytes = o->max_conn_bytes > RPCRDMA_SVC_DEFAULT_SVC_BYTES ?
				   o->max_conn_bytes : RPCRDMA_SVC_DEFAULT_SVC_BYTES;
	if (o->max_svc_bytes < o->max_record)
		return -EINVAL;
	return 0;
}

static void loop_fini(struct rpcrdma__svc_loop *l)
{
	if (l->idle.fd >= 0)
		close(l->idle.fd);
	if (l->wake.fd >= 0)
		close(l->wake.fd);
	if (l->epfd >= 0)
		close(l->epfd);
	pthread_mutex_destroy(&l->run_lock);
	pthread_mutex_destroy(&l->loop_lock);
}

/* The loop's epoll set, eventfd and idle timer (-errno; loop_fini undoes
 * what was done either way). */
static int loop_init(struct rpcrdma_svc *svc, struct rpcrdma__svc_loop *l, unsigned index)
{
	unsigned ms = svc->opts.idle_timeout_ms;

	l->svc = svc;
	l->index = index;
	l->wake.fd = l->idle.fd = -1;
	pthread_mutex_init(&l->loop_lock, NULL);
	pthread_mutex_init(&l->run_lock, NULL);
	atomic_init(&l->nconns, 0);
	atomic_init(&l->conns_accepted, 0);
	atomic_init(&l->calls, 0);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return -errno;
	l->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->wake.fd < 0)
		return -errno;
	l->wake.handle = wake_handle;
	int rc = rpcrdma__svc_loop_watch(l, &l->wake, EPOLLIN);
	if (rc || ms == RPCRDMA_SVC_UNLIMITED)
		return rc;
	unsigned tick = ms / 4 < 50 ? 50 : ms / 4;
	struct itimerspec its = {
		.it_interval = { tick / 1000, (long)(tick % 1000) * 1000000 },
		.it_value = { tick / 1000, (long)(tick % 1000) * 1000000 },
	};
	l->idle.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	l->idle.handle = idle_handle;
	if (l->idle.fd < 0)
		return -errno;
	if (timerfd_settime(l->idle.fd, 0, &its, NULL) ||
	    rpcrdma__svc_loop_watch(l, &l->idle, EPOLLIN))
		return -EIO;
	return 0;
}

int rpcrdma_svc_create(const struct rpcrdma_svc_opts *opts, struct rpcrdma_svc **out)
{
	struct rpcrdma_svc_opts o = {0};
	unsigned i = 0;
	int rc;

	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	if (!out)
		return -EINVAL;
	rc = opts_check(opts, &o);
	if (rc)
		return rc;
	struct rpcrdma_svc *svc = calloc(1, sizeof(*svc));
	if (!svc)
		return -ENOMEM;
	svc->opts = o;
	svc->loops = calloc(o.loops, sizeof(svc->loops[0]));
	if (!svc->loops) {
		rc = -ENOMEM;
		goto out_free;
	}
	for (; i < o.loops; i++) {
		rc = loop_init(svc, &svc->loops[i], i);
		if (rc) {
			loop_fini(&svc->loops[i]);
			goto out_loops;
		}
	}
	atomic_init(&svc->next_loop, 0);
	pthread_rwlock_init(&svc->gate, NULL);
	pthread_rwlock_init(&svc->progs_lock, NULL);
	atomic_init(&svc->own_loop, false);
	pthread_mutex_init(&svc->lock, NULL);
	pthread_cond_init(&svc->xprts_gone, NULL);
	atomic_init(&svc->stop, false);
	atomic_init(&svc->tcp_bytes, 0);
	atomic_init(&svc->tcp_mem_waiters, 0);
	*out = svc;
	return 0;
out_loops:
	while (i--)
		loop_fini(&svc->loops[i]);
	free(svc->loops);
out_free:
	free(svc);
	return rc;
}

int rpcrdma__svc_loop_watch(struct rpcrdma__svc_loop *l, struct rpcrdma__svc_source *src,
			    uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };
	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, src->fd, &ev) ? -errno : 0;
}

int rpcrdma__svc_loop_rewatch(struct rpcrdma__svc_loop *l, struct rpcrdma__svc_source *src,
			      uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };
	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, src->fd, &ev) ? -errno : 0;
}

void rpcrdma__svc_loop_unwatch(struct rpcrdma__svc_loop *l, struct rpcrdma__svc_source *src)
{
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, src->fd, NULL);
}

int rpcrdma__svc_watch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src,
		       uint32_t events)
{
	return rpcrdma__svc_loop_watch(&svc->loops[0], src, events);
}

int rpcrdma__svc_rewatch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src,
			 uint32_t events)
{
	return rpcrdma__svc_loop_rewatch(&svc->loops[0], src, events);
}

void rpcrdma__svc_unwatch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src)
{
	rpcrdma__svc_loop_unwatch(&svc->loops[0], src);
}

struct rpcrdma__svc_loop *rpcrdma__svc_pick_loop(struct rpcrdma_svc *svc)
{
	unsigned k = svc->opts.loops, start, best, least = UINT_MAX;

	if (k == 1)
		return &svc->loops[0];
	start = atomic_fetch_add_explicit(&svc->next_loop, 1, memory_order_relaxed) % k;
	best = start;
	for (unsigned i = 0; i < k; i++) {
		unsigned j = (start + i) % k;
		unsigned n = atomic_load_explicit(&svc->loops[j].nconns, memory_order_relaxed);
		if (n < least) {
			least = n;
			best = j;
		}
	}
	return &svc->loops[best];
}

int rpcrdma_svc_fd(const struct rpcrdma_svc *svc)
{
	return svc->loops[0].epfd;
}

/* One step of loop l: its events, then what they closed. */
static int loop_step(struct rpcrdma__svc_loop *l, int timeout_ms)
{
	struct epoll_event evs[32];
	pthread_mutex_lock(&l->loop_lock);
	int n = epoll_wait(l->epfd, evs, 32, timeout_ms);
	if (n < 0) {
		n = errno == EINTR ? 0 : -errno;
	} else {
		pthread_mutex_lock(&l->run_lock);
		/* The idle sweep closes and may free other connections, some
		 * of which may have an event later in this batch: it runs
		 * after every other handler of the batch (a connection that
		 * had an event there is not idle any more). */
		uint32_t idle_events = 0;
		for (int i = 0; i < n; i++) {
			struct rpcrdma__svc_source *src = evs[i].data.ptr;
			if (src == &l->idle)
				idle_events = evs[i].events;
			else
				src->handle(src, evs[i].events);
		}
		if (idle_events)
			l->idle.handle(&l->idle, idle_events);
		for (const struct rpcrdma__svc_xprt_class *const *k = rpcrdma__svc_xprt_classes;
		     *k; k++)
			if ((*k)->reap)
				(*k)->reap(l);
		pthread_mutex_unlock(&l->run_lock);
	}
	pthread_mutex_unlock(&l->loop_lock);
	return n;
}

int rpcrdma_svc_poll(struct rpcrdma_svc *svc, int timeout_ms)
{
	if (svc->opts.loops > 1)
		return -EOPNOTSUPP;
	return loop_step(&svc->loops[0], timeout_ms);
}

static void *loop_thread(void *arg)
{
	struct rpcrdma__svc_loop *l = arg;
	while (!atomic_load(&l->svc->stop)) {
		if (loop_step(l, -1) < 0)
			break;
	}
	return NULL;
}

/* Stops and joins the threads of loops[0 .. n-1]. */
static void stop_threads(struct rpcrdma_svc *svc, unsigned n)
{
	uint64_t one = 1;

	atomic_store(&svc->stop, true);
	for (unsigned i = 0; i < n; i++)
		if (write(svc->loops[i].wake.fd, &one, sizeof(one)) < 0) {
			/* The counter cannot overflow here; ignore. */
		}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(svc->loops[i].thread, NULL);
		svc->loops[i].thread_running = false;
	}
}

int rpcrdma_svc_start(struct rpcrdma_svc *svc)
{
	if (svc->loops[0].thread_running)
		return -EALREADY;
	atomic_store(&svc->stop, false);
	atomic_store(&svc->own_loop, true);
	for (unsigned i = 0; i < svc->opts.loops; i++) {
		struct rpcrdma__svc_loop *l = &svc->loops[i];
		int rc = pthread_create(&l->thread, NULL, loop_thread, l);
		if (rc) {
			atomic_store(&svc->own_loop, false);
			stop_threads(svc, i);
			return -rc;
		}
		l->thread_running = true;
	}
	return 0;
}

void rpcrdma_svc_stop(struct rpcrdma_svc *svc)
{
	if (!svc->loops[0].thread_running)
		return;
	/* No poller thread runs a handler once stop returns: one that took
	 * run_lock (or the gate) before the store has let it go when we get
	 * it. */
	atomic_store(&svc->own_loop, false);
	pthread_mutex_lock(&svc->loops[0].run_lock);
	pthread_mutex_unlock(&svc->loops[0].run_lock);
	pthread_rwlock_wrlock(&svc->gate);
	pthread_rwlock_unlock(&svc->gate);
	stop_threads(svc, svc->opts.loops);
}

int rpcrdma_svc_get_loop_stats(const struct rpcrdma_svc *svc, unsigned loop,
			       struct rpcrdma_svc_loop_stats *st, size_t size)
{
	if (!svc || !st || loop >= svc->opts.loops)
		return -EINVAL;
	const struct rpcrdma__svc_loop *l = &svc->loops[loop];
	struct rpcrdma_svc_loop_stats s = {
		.conns = atomic_load(&l->nconns),
		.conns_accepted = atomic_load(&l->conns_accepted),
		.calls = atomic_load(&l->calls),
		.rdma_calls = atomic_load(&l->rdma_calls),
	};
	for (const struct rpcrdma__svc_xprt_class *const *c = rpcrdma__svc_xprt_classes; *c; c++)
		if ((*c)->loop_conns)
			s.rdma_conns += (*c)->loop_conns((struct rpcrdma__svc_loop *)l);
	memcpy(st, &s, size < sizeof(s) ? size : sizeof(s));
	return 0;
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
	s.rdma_queued_slots = atomic_load(&c->rdma_queued_slots);
	s.rdma_budget_calls = atomic_load(&c->rdma_budget_calls);
	s.calls_async = atomic_load(&c->calls_async);
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
	pthread_mutex_lock(&svc->loops[0].loop_lock);
	pthread_mutex_lock(&svc->loops[0].run_lock);
	for (k = all; *k; k++)
		if ((*k)->shutdown)
			(*k)->shutdown(svc);
	pthread_mutex_unlock(&svc->loops[0].run_lock);
	pthread_mutex_unlock(&svc->loops[0].loop_lock);
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
	for (unsigned i = 0; i < svc->opts.loops; i++)
		loop_fini(&svc->loops[i]);
	free(svc->loops);
	pthread_cond_destroy(&svc->xprts_gone);
	pthread_mutex_destroy(&svc->lock);
	pthread_rwlock_destroy(&svc->gate);
	pthread_rwlock_destroy(&svc->progs_lock);
	free(svc);
}
