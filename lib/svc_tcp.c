/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP transport: listeners, connections, record marking (RFC 5531 section
 * 11).  Non-blocking sockets on the service's epoll set.
 *
 * A connection reads one fragment header, then exactly that fragment, so it
 * never holds bytes of a following record: when all its slots are taken it
 * simply stops watching EPOLLIN and the kernel's socket buffer (and TCP flow
 * control) holds the rest.  A record longer than max_record closes the
 * connection (counted in record_too_big).  A reply is queued whole and
 * written as far as the socket takes it; the call's slot is released once
 * its last byte is written, so unread replies also stop the reading.
 *
 * Threads: the read state is touched only by the loop thread.  The send
 * queue, the watch state and `dead` are guarded by conn->lock, since replies
 * may come from any thread.  Only the loop thread (or destroy, with the loop
 * stopped) closes the fd; a writer that hits an error shuts the socket down
 * so the loop thread sees it and closes.  A connection is freed when its
 * loop reference and every call's reference are gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <time.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "svc_int.h"

struct rpcrdma__svc_tcp_listener {
	struct rpcrdma__svc_source src;
	struct rpcrdma_svc *svc;
	struct rpcrdma__svc_tcp_listener *next;
	struct sockaddr_storage local;
	socklen_t local_len;
	char netid[8];
	int spare_fd; /* given up to accept-and-close when out of fds */
};

struct tcp_call;

struct rpcrdma__svc_tcp_conn {
	struct rpcrdma__svc_source src;
	struct rpcrdma_svc *svc;
	struct rpcrdma_svc_xprt *xprt;
	struct rpcrdma__svc_tcp_conn *next, **pprev; /* svc->conns, svc->lock */
	struct rpcrdma__svc_tcp_conn *kill_next;     /* destroy's / sweep's list */
	atomic_int refs;
	struct sockaddr_storage peer;
	socklen_t peer_len;

	/* loop thread only */
	uint64_t last_active; /* ms, CLOCK_MONOTONIC: last event */
	uint8_t hdr[4];
	size_t hdr_got;
	uint32_t frag_len, frag_got;
	bool last;
	uint8_t *rec;
	size_t rec_len, rec_cap;

	/* conn->lock */
	pthread_mutex_t lock;
	bool dead;
	bool reading;
	uint32_t armed;
	struct tcp_call *sq_head, **sq_tail;
	size_t sq_off;
};

/* The transport's per-call context. */
struct tcp_call {
	struct tcp_call *next;
	struct rpcrdma__svc_tcp_conn *conn;
	struct iovec iov; /* the record */
	uint8_t *base;    /* record mark + reply */
	size_t len;
};

static const struct rpcrdma_svc_xprt_ops tcp_ops;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void conn_free(struct rpcrdma__svc_tcp_conn *c)
{
	struct rpcrdma_svc *svc = c->svc;
	pthread_mutex_lock(&svc->lock);
	if (c->pprev) {
		*c->pprev = c->next;
		if (c->next)
			c->next->pprev = c->pprev;
		svc->nconns--;
	}
	pthread_mutex_unlock(&svc->lock);
	free(c->rec);
	pthread_mutex_destroy(&c->lock);
	struct rpcrdma_svc_xprt *x = c->xprt;
	free(c);
	rpcrdma_svc_xprt_destroy(x); /* last touch of svc */
}

static void conn_put(struct rpcrdma__svc_tcp_conn *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		conn_free(c);
}

static void call_free(struct tcp_call *tc)
{
	free(tc->iov.iov_base);
	free(tc->base);
	free(tc);
}

/* Under conn->lock: watch what the state asks for. */
static void update_watch(struct rpcrdma__svc_tcp_conn *c)
{
	if (c->dead)
		return;
	if (!c->reading && !rpcrdma_svc_xprt_busy(c->xprt))
		c->reading = true;
	uint32_t ev = (c->reading ? EPOLLIN : 0) | (c->sq_head ? EPOLLOUT : 0);
	if (ev != c->armed && rpcrdma__svc_rewatch(c->svc, &c->src, ev) == 0)
		c->armed = ev;
}

/*
 * Under conn->lock: releases the slot of each finished reply and moves it to
 * *done for the caller to free (with a conn_put each) after unlocking.
 */
static void sq_pop(struct rpcrdma__svc_tcp_conn *c, struct tcp_call **done)
{
	struct tcp_call *tc = c->sq_head;
	c->sq_head = tc->next;
	if (!c->sq_head)
		c->sq_tail = &c->sq_head;
	c->sq_off = 0;
	rpcrdma_svc_xprt_complete(c->xprt);
	tc->next = *done;
	*done = tc;
}

static void flush(struct rpcrdma__svc_tcp_conn *c, struct tcp_call **done)
{
	while (c->sq_head && !c->dead) {
		struct tcp_call *tc = c->sq_head;
		ssize_t n = send(c->src.fd, tc->base + c->sq_off, tc->len - c->sq_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				RPCRDMA__STAT_INC(c->svc, send_waits);
				return;
			}
			/* Broken: drop the queue; the loop thread sees the shutdown. */
			shutdown(c->src.fd, SHUT_RDWR);
			while (c->sq_head)
				sq_pop(c, done);
			return;
		}
		c->sq_off += (size_t)n;
		if (c->sq_off == tc->len)
			sq_pop(c, done);
	}
}

static void finish_done(struct tcp_call *done)
{
	while (done) {
		struct tcp_call *tc = done;
		struct rpcrdma__svc_tcp_conn *c = tc->conn;
		done = tc->next;
		call_free(tc);
		conn_put(c);
	}
}

/* Closes the connection (loop thread or destroy).  Idempotent. */
static void conn_kill(struct rpcrdma__svc_tcp_conn *c)
{
	struct tcp_call *done = NULL;
	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	while (c->sq_head)
		sq_pop(c, &done);
	c->dead = true;
	rpcrdma__svc_unwatch(c->svc, &c->src);
	close(c->src.fd);
	c->src.fd = -1;
	pthread_mutex_unlock(&c->lock);
	RPCRDMA__STAT_INC(c->svc, conns_closed);
	finish_done(done);
	conn_put(c); /* the loop's reference */
}

/* ops->reply_buf: room for the record mark in front. */
static void *tcp_reply_buf(void *priv, void *ctx, size_t max)
{
	struct tcp_call *tc = ctx;
	(void)priv;
	if (max > 0x7fffffffu - 4)
		return NULL;
	free(tc->base);
	tc->base = malloc(4 + max);
	return tc->base ? tc->base + 4 : NULL;
}

/* ops->done: queue the reply (or drop it) and try to write it now. */
static void tcp_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct rpcrdma__svc_tcp_conn *c = priv;
	struct tcp_call *tc = ctx, *done = NULL;

	free(tc->iov.iov_base);
	tc->iov.iov_base = NULL;
	pthread_mutex_lock(&c->lock);
	if (len == 0 || !buf || c->dead) {
		rpcrdma_svc_xprt_complete(c->xprt);
		update_watch(c);
		pthread_mutex_unlock(&c->lock);
		call_free(tc);
		conn_put(c);
		return;
	}
	rpcrdma__put_be32(tc->base, 0x80000000u | (uint32_t)len);
	tc->len = 4 + len;
	tc->next = NULL;
	*c->sq_tail = tc;
	c->sq_tail = &tc->next;
	if (c->sq_head == tc)
		flush(c, &done);
	update_watch(c);
	pthread_mutex_unlock(&c->lock);
	finish_done(done);
}

static const struct rpcrdma_svc_xprt_ops tcp_ops = {
	.reply_buf = tcp_reply_buf,
	.done = tcp_done,
};

/*
 * Reads on until a record is complete (1), the socket is drained (0), or
 * the connection must close (-1: end of file, error, record too big).
 */
static int read_record(struct rpcrdma__svc_tcp_conn *c)
{
	ssize_t n;
	for (;;) {
		if (c->hdr_got < 4) {
			n = read(c->src.fd, c->hdr + c->hdr_got, 4 - c->hdr_got);
			if (n <= 0)
				goto out_read;
			c->hdr_got += (size_t)n;
			if (c->hdr_got < 4)
				continue;
			uint32_t w = rpcrdma__get_be32(c->hdr);
			c->last = w >> 31;
			c->frag_len = w & 0x7fffffffu;
			c->frag_got = 0;
			if (c->frag_len > c->svc->opts.max_record - c->rec_len)
				goto out_too_big;
			size_t need = c->rec_len + c->frag_len;
			if (need > c->rec_cap) {
				uint8_t *r = realloc(c->rec, need);
				if (!r)
					return -1;
				c->rec = r;
				c->rec_cap = need;
			}
		}
		while (c->frag_got < c->frag_len) {
			n = read(c->src.fd, c->rec + c->rec_len, c->frag_len - c->frag_got);
			if (n <= 0)
				goto out_read;
			c->frag_got += (uint32_t)n;
			c->rec_len += (size_t)n;
		}
		c->hdr_got = 0;
		if (c->last)
			return 1;
	}
out_read:
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	return -1;
out_too_big:
	RPCRDMA__STAT_INC(c->svc, record_too_big);
	return -1;
}

/* Hands the record just read to the core.  false: close the connection. */
static bool deliver(struct rpcrdma__svc_tcp_conn *c)
{
	struct tcp_call *tc = calloc(1, sizeof(*tc));
	if (!tc)
		return false;
	tc->conn = c;
	tc->iov.iov_base = c->rec;
	tc->iov.iov_len = c->rec_len;
	c->rec = NULL;
	c->rec_len = c->rec_cap = 0;
	atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	if (rpcrdma_svc_xprt_recv(c->xprt, &tc->iov, 1, (struct sockaddr *)&c->peer,
				  c->peer_len, tc) != 0) {
		call_free(tc);
		conn_put(c);
	}
	return true;
}

static void conn_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_tcp_conn *c = (struct rpcrdma__svc_tcp_conn *)src;
	struct tcp_call *done = NULL;

	if (c->svc->opts.idle_timeout_ms)
		c->last_active = now_ms();
	if (events & EPOLLOUT) {
		pthread_mutex_lock(&c->lock);
		flush(c, &done);
		update_watch(c);
		pthread_mutex_unlock(&c->lock);
		finish_done(done);
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	for (int budget = 16; budget > 0; budget--) {
		pthread_mutex_lock(&c->lock);
		if (rpcrdma_svc_xprt_busy(c->xprt) && !c->dead) {
			if (c->reading)
				RPCRDMA__STAT_INC(c->svc, read_pauses);
			c->reading = false;
			update_watch(c);
			pthread_mutex_unlock(&c->lock);
			/* Not reading: a hang-up would fire forever; close now. */
			if (events & (EPOLLHUP | EPOLLERR))
				conn_kill(c);
			return;
		}
		pthread_mutex_unlock(&c->lock);
		int r = read_record(c);
		if (r == 0)
			return;
		if (r < 0 || !deliver(c)) {
			conn_kill(c);
			return;
		}
	}
}

/* Puts a connected, non-blocking stream socket on the loop.  On failure
 * the fd is left open for the caller. */
static int conn_add(struct rpcrdma_svc *svc, int fd, const char *netid,
		    const struct sockaddr_storage *local, socklen_t local_len,
		    const struct sockaddr_storage *peer, socklen_t plen)
{
	struct rpcrdma__svc_tcp_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	struct rpcrdma_svc_xprt_info info = {
		.size = sizeof(info),
		.netid = netid,
		.flags = RPCRDMA_SVC_XPRT_CONGESTION_CONTROL,
		.local = (const struct sockaddr *)local,
		.local_len = local_len,
	};
	int rc = rpcrdma_svc_xprt_create(svc, &tcp_ops, c, &info, &c->xprt);
	if (rc) {
		free(c);
		return rc;
	}
	c->src.fd = fd;
	c->src.handle = conn_handle;
	c->svc = svc;
	c->peer = *peer;
	c->peer_len = plen;
	atomic_init(&c->refs, 1);
	pthread_mutex_init(&c->lock, NULL);
	c->sq_tail = &c->sq_head;
	c->reading = true;
	c->armed = EPOLLIN;
	c->last_active = now_ms();
	/* Linked before it is watched: once watched, the loop may close and
	 * free it at any moment (adopt runs on any thread). */
	pthread_mutex_lock(&svc->lock);
	c->next = svc->conns;
	if (c->next)
		c->next->pprev = &c->next;
	c->pprev = &svc->conns;
	svc->conns = c;
	svc->nconns++;
	pthread_mutex_unlock(&svc->lock);
	rc = rpcrdma__svc_watch(svc, &c->src, EPOLLIN);
	if (rc) {
		c->dead = true;
		conn_put(c); /* unlinks and frees; the fd stays open */
		return rc;
	}
	RPCRDMA__STAT_INC(svc, conns_accepted);
	return 0;
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
			}
			l->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return;
			continue;
		}
		if (fd < 0)
			return; /* EAGAIN (or ECONNABORTED...): the next event retries */
		if (l->svc->opts.max_conns) {
			pthread_mutex_lock(&l->svc->lock);
			bool full = l->svc->nconns >= l->svc->opts.max_conns;
			pthread_mutex_unlock(&l->svc->lock);
			if (full) {
				close(fd);
				RPCRDMA__STAT_INC(l->svc, conns_shed);
				continue;
			}
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (conn_add(l->svc, fd, l->netid, &l->local, l->local_len, &peer, plen))
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
	return conn_add(svc, fd, netid, &local, llen, &peer, plen);
}

int rpcrdma_svc_listen_tcp(struct rpcrdma_svc *svc, const struct sockaddr *addr,
			   socklen_t len, struct sockaddr_storage *bound)
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
	return 0;
out_close:
	if (l->spare_fd >= 0)
		close(l->spare_fd);
	close(fd);
	free(l);
	return rc;
}

void rpcrdma__svc_tcp_shutdown(struct rpcrdma_svc *svc)
{
	struct rpcrdma__svc_tcp_conn *kill = NULL;

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
	/* A live connection holds its loop reference, so it cannot go away
	 * before conn_kill below (the loop is stopped). */
	for (struct rpcrdma__svc_tcp_conn *c = svc->conns; c; c = c->next) {
		pthread_mutex_lock(&c->lock);
		if (!c->dead) {
			c->kill_next = kill;
			kill = c;
		}
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&svc->lock);
	while (kill) {
		struct rpcrdma__svc_tcp_conn *c = kill;
		kill = c->kill_next;
		conn_kill(c);
	}
}

void rpcrdma__svc_tcp_sweep(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma_svc *svc = (struct rpcrdma_svc *)((char *)src -
		offsetof(struct rpcrdma_svc, idle));
	struct rpcrdma__svc_tcp_conn *kill = NULL;
	uint64_t ticks, now = now_ms();
	(void)events;

	if (read(src->fd, &ticks, sizeof(ticks)) < 0)
		return;
	/* On the loop thread, the only one that kills: a live connection
	 * collected here is still live when conn_kill runs. */
	pthread_mutex_lock(&svc->lock);
	for (struct rpcrdma__svc_tcp_conn *c = svc->conns; c; c = c->next) {
		pthread_mutex_lock(&c->lock);
		if (!c->dead && !c->sq_head && rpcrdma_svc_xprt_in_progress(c->xprt) == 0 &&
		    now - c->last_active >= svc->opts.idle_timeout_ms) {
			c->kill_next = kill;
			kill = c;
		}
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&svc->lock);
	while (kill) {
		struct rpcrdma__svc_tcp_conn *c = kill;
		kill = c->kill_next;
		RPCRDMA__STAT_INC(svc, conns_idle);
		conn_kill(c);
	}
}
