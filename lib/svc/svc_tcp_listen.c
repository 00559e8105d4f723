/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP transport: listeners, adopted sockets, and the connection limits
 * (svc.h, "Limits of the TCP transport"): the connection cap that closes
 * the oldest idle connection, the idle sweep, re-arming connections parked
 * for memory.  Loop thread unless said otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "svc_tcp_int.h"

struct rpcrdma__svc_tcp_listener {
	struct rpcrdma__svc_source src;
	struct rpcrdma_svc *svc;
	struct rpcrdma__svc_tcp_listener *next;
	struct sockaddr_storage local;
	socklen_t local_len;
	char netid[8];
	int spare_fd; /* given up to accept-and-close when out of fds */
};

/* When c had its last event (ms, CLOCK_MONOTONIC). */
static uint64_t active_ms(struct rpcrdma__svc_tcp_conn *c)
{
	return atomic_load_explicit(&c->last_active, memory_order_relaxed);
}

/* Under svc->lock and c->lock: nothing in progress, nothing to send. */
static bool conn_idle(struct rpcrdma__svc_tcp_conn *c)
{
	return !c->dead && !c->evicted && !c->sq_head &&
	       rpcrdma__svc_xprt_in_progress(c->xprt) == 0;
}

/*
 * loops[0], before a new connection is added: at max_conns, evicts the
 * idle connection (conn_idle; a partial record does not count) whose last
 * event is the oldest, as Linux's svc_check_conn_limits closes its oldest
 * (counted in conns_evicted).  false: at the limit with none idle.
 *
 * The connection is closed by its own loop, after that loop's current
 * epoll batch (tcp_reap): only the thread of a connection's loop reads
 * its socket and closes it, so no read can meet a closed (or reused)
 * descriptor.  Until then it counts no more (evicted).
 */
static bool make_room(struct rpcrdma_svc *svc)
{
	struct rpcrdma__svc_tcp_conn *oldest = NULL;
	if (svc->opts.max_conns == RPCRDMA_SVC_UNLIMITED)
		return true;
	pthread_mutex_lock(&svc->lock);
	if (svc->nconns < svc->opts.max_conns) { /* nconns counts the dead too */
		pthread_mutex_unlock(&svc->lock);
		return true;
	}
	unsigned live = 0;
	for (struct rpcrdma__svc_tcp_conn *c = svc->conns; c; c = c->next) {
		pthread_mutex_lock(&c->lock);
		live += !c->dead && !c->evicted;
		if (conn_idle(c) && (!oldest || active_ms(c) < active_ms(oldest)))
			oldest = c;
		pthread_mutex_unlock(&c->lock);
	}
	if (live < svc->opts.max_conns || !oldest) {
		pthread_mutex_unlock(&svc->lock);
		return live < svc->opts.max_conns;
	}
	/* Still linked (so not freed) and, under its lock, live: the
	 * reference taken here keeps it for the reap list. */
	pthread_mutex_lock(&oldest->lock);
	bool take = !oldest->dead;
	if (take) {
		oldest->evicted = true;
		atomic_fetch_add(&oldest->refs, 1);
	}
	pthread_mutex_unlock(&oldest->lock);
	pthread_mutex_unlock(&svc->lock);
	if (!take)
		return true; /* its loop closed it just now: room made */
	RPCRDMA__STAT_INC(svc, conns_evicted);
	struct rpcrdma__svc_loop *owner = oldest->loop;
	oldest->kill_next = atomic_load(&owner->tcp_reap);
	while (!atomic_compare_exchange_weak(&owner->tcp_reap, &oldest->kill_next, oldest))
		;
	if (owner != &svc->loops[0])
		eventfd_write(owner->wake.fd, 1);
	return true;
}

static void listener_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_tcp_listener *l = (struct rpcrdma__svc_tcp_listener *)src;
	(void)events;

	for (int budget = 32; budget > 0; budget--) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = accept4(src->fd, (struct sockaddr *)&peer, &plen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && l->spare_fd >= 0) {
			/* Out of fds: a level-triggered listener would spin.  Shed
			 * the connection with the spare fd, then take it back. */
			close(l->spare_fd);
			fd = accept4(src->fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				close(fd);
				RPCRDMA__STAT_INC(l->svc, conns_shed);
				rpcrdma__svc_log(l->svc, RPCRDMA_LOG_CONN_REFUSED, l->netid, NULL, 0,
						 "out of file descriptors", -EMFILE);
			}
			l->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return;
			continue;
		}
		if (fd < 0)
			return; /* EAGAIN (or ECONNABORTED...): the next event retries */
		if (!make_room(l->svc)) {
			close(fd);
			RPCRDMA__STAT_INC(l->svc, conns_shed);
			rpcrdma__svc_log(l->svc, RPCRDMA_LOG_CONN_REFUSED, l->netid,
					 (const struct sockaddr *)&peer, plen,
					 "max_conns reached and none idle", 0);
			continue;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (rpcrdma__tcp_conn_add(l->svc, fd, l->netid, &l->local, l->local_len, &peer, plen))
			close(fd);
	}
}

int rpcrdma_svc_adopt_stream(struct rpcrdma_svc *svc, int fd)
{
	struct sockaddr_storage local, peer;
	socklen_t llen = sizeof(local), plen = sizeof(peer);
	int type = 0;
	socklen_t tlen = sizeof(type);
	if (!svc || fd < 0)
		return -EINVAL;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen))
		return -errno;
	if (type != SOCK_STREAM)
		return -EINVAL;
	if (getsockname(fd, (struct sockaddr *)&local, &llen) ||
	    getpeername(fd, (struct sockaddr *)&peer, &plen))
		return -errno;
	const char *netid = local.ss_family == AF_INET ? "tcp" :
			    local.ss_family == AF_INET6 ? "tcp6" :
			    local.ss_family == AF_UNIX ? "local" : NULL;
	if (!netid)
		return -EINVAL;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return rpcrdma__tcp_conn_add(svc, fd, netid, &local, llen, &peer, plen);
}

int rpcrdma_svc_listen_tcp(struct rpcrdma_svc *svc, const struct sockaddr *addr,
			   socklen_t len, struct sockaddr_storage *bound, socklen_t *bound_len)
{
	if (!svc || !addr || (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return -EINVAL;
	struct rpcrdma__svc_tcp_listener *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->spare_fd = -1;
	int rc, one = 1;
	int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		free(l);
		return rc;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	l->local_len = sizeof(l->local);
	if (bind(fd, addr, len) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&l->local, &l->local_len)) {
		rc = -errno;
		goto out_close;
	}
	strcpy(l->netid, addr->sa_family == AF_INET ? "tcp" : "tcp6");
	l->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	l->svc = svc;
	l->src.fd = fd;
	l->src.handle = listener_handle;
	rc = rpcrdma__svc_watch(svc, &l->src, EPOLLIN);
	if (rc)
		goto out_close;
	rc = rpcrdma__svc_add_endpoint_sa(svc, false, &l->local);
	if (rc) {
		rpcrdma__svc_unwatch(svc, &l->src);
		goto out_close;
	}
	pthread_mutex_lock(&svc->lock);
	l->next = svc->listeners;
	svc->listeners = l;
	pthread_mutex_unlock(&svc->lock);
	if (bound)
		*bound = l->local;
	if (bound_len)
		*bound_len = l->local_len;
	return 0;
out_close:
	if (l->spare_fd >= 0)
		close(l->spare_fd);
	close(fd);
	free(l);
	return rc;
}

/*
 * Closes every live connection (l NULL) or, with idle, those of loop l
 * with nothing in progress or queued and no event for
 * opts.idle_timeout_ms before now (counted in conns_idle).  Only on l's
 * thread, or with every loop stopped: no one else drops a connection's
 * loop reference, so one collected live here is still there when
 * conn_kill runs (make_room may close it first: conn_kill then does
 * nothing).
 */
static void kill_conns(struct rpcrdma_svc *svc, const struct rpcrdma__svc_loop *l,
		       bool idle, uint64_t now)
{
	struct rpcrdma__svc_tcp_conn *kill = NULL;

	pthread_mutex_lock(&svc->lock);
	for (struct rpcrdma__svc_tcp_conn *c = svc->conns; c; c = c->next) {
		if (l && c->loop != l)
			continue;
		pthread_mutex_lock(&c->lock);
		if (!c->dead &&
		    (!idle || (conn_idle(c) &&
			       now - active_ms(c) >= svc->opts.idle_timeout_ms))) {
			c->kill_next = kill;
			kill = c;
		}
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&svc->lock);
	while (kill) {
		struct rpcrdma__svc_tcp_conn *c = kill;
		kill = c->kill_next;
		if (idle)
			RPCRDMA__STAT_INC(svc, conns_idle);
		rpcrdma__tcp_conn_kill(c, idle ? "idle timeout" : "service shutting down");
	}
}

/* After each epoll batch of loop l (the class's reap; on l's thread), and
 * at shutdown: closes its connections evicted since (make_room) and drops
 * the reference the list held. */
static void tcp_reap(struct rpcrdma__svc_loop *l)
{
	struct rpcrdma__svc_tcp_conn *list = atomic_exchange(&l->tcp_reap, NULL);
	while (list) {
		struct rpcrdma__svc_tcp_conn *c = list;
		list = c->kill_next;
		rpcrdma__tcp_conn_kill(c, "evicted: the oldest idle connection, at max_conns");
		rpcrdma__tcp_conn_put(c);
	}
}

/* rpcrdma_svc_destroy (the class's shutdown): closes the listeners, then
 * every connection; the loop is stopped. */
static void tcp_shutdown(struct rpcrdma_svc *svc)
{
	pthread_mutex_lock(&svc->lock);
	while (svc->listeners) {
		struct rpcrdma__svc_tcp_listener *l = svc->listeners;
		svc->listeners = l->next;
		rpcrdma__svc_unwatch(svc, &l->src);
		close(l->src.fd);
		if (l->spare_fd >= 0)
			close(l->spare_fd);
		free(l);
	}
	pthread_mutex_unlock(&svc->lock);
	kill_conns(svc, NULL, false, 0); /* the loops are stopped */
	for (unsigned i = 0; i < svc->opts.loops; i++)
		tcp_reap(&svc->loops[i]); /* evicted after their loop's last batch */
}

/* Loop l's idle timer (the class's idle): closes l's idle connections;
 * on l's thread. */
static void tcp_idle(struct rpcrdma__svc_loop *l)
{
	kill_conns(l->svc, l, true, rpcrdma__tcp_now_ms());
}

/* A loop's wake-up (the class's wake): re-arms the connections parked for
 * memory that fit now; on that loop's thread. */
static void tcp_wake(struct rpcrdma__svc_loop *l)
{
	struct rpcrdma_svc *svc = l->svc;

	if (!atomic_load(&svc->tcp_mem_waiters))
		return;
	pthread_mutex_lock(&svc->lock);
	for (struct rpcrdma__svc_tcp_conn *c = svc->conns; c; c = c->next) {
		pthread_mutex_lock(&c->lock);
		if (c->mem_wait)
			rpcrdma__tcp_update_watch(c);
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&svc->lock);
}

/* rpcrdma_svc_destroy, every connection gone (the class's free): the
 * loops' read buffers (svc_tcp_read.c). */
static void tcp_free(struct rpcrdma_svc *svc)
{
	for (unsigned i = 0; i < svc->opts.loops; i++) {
		free(svc->loops[i].tcp_in);
		svc->loops[i].tcp_in = NULL;
	}
}

const struct rpcrdma__svc_xprt_class rpcrdma__svc_tcp_class = {
	.name = "tcp",
	.reap = tcp_reap,
	.wake = tcp_wake,
	.idle = tcp_idle,
	.shutdown = tcp_shutdown,
	.free = tcp_free,
};
