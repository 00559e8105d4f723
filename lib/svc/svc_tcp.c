/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP transport: connections, record marking (RFC 5531 section 11), their
 * memory.  Non-blocking sockets on the service's epoll set.  Listeners and
 * the connection limits: svc_tcp_listen.c; the reading: svc_tcp_read.c; a
 * connection's memory accounting, release and watch: svc_tcp_conn.c.
 *
 * Batching.  A read takes up to IN_MAX bytes into its loop's buffer
 * (loop->tcp_in) and every complete record in them is delivered, so 32
 * calls in flight cost one read, not two a call; a short read means the
 * socket is drained.  Only a fragment of IN_MAX bytes or more still to come
 * is read straight into the record buffer.  The bytes a pass cannot take (all
 * slots taken, the pass's budget spent, parked for memory) are stashed on
 * the connection (at most one read's worth, charged), which then stops
 * watching EPOLLIN when it may not read, and watches EPOLLOUT (c->kick) to
 * come back to them when it may.  The replies of the calls a pass runs
 * (c->in_pass) wait for its end and leave in one sendmsg per connection; a
 * reply finished outside a pass is written at once.  A record longer than
 * max_record closes the connection (counted in record_too_big).  A reply
 * is queued whole and written as far as the socket takes it; the call's
 * slot is released once its last byte is written, so unread replies also
 * stop the reading.
 *
 * Memory (svc.h, max_conn_bytes / max_svc_bytes).  The record buffer grows
 * with the bytes that arrive -- never to a fragment header's word alone:
 * doubled when full, up to what the fragment still needs -- so it holds at
 * most twice the bytes received plus RECV_MIN.  Every buffer a connection
 * holds is charged to it and to the service: the record being read
 * (rec_cap), the records of calls in progress (until done()), the replies
 * queued (until written).  The loop thread grows a record buffer only when
 * the charge fits both caps (a connection holding nothing but its record
 * is never stopped by its own cap); otherwise the connection parks: it
 * stops watching EPOLLIN (counted in mem_pauses) until memory is released.
 * Its own calls finishing re-arm it (rpcrdma__tcp_update_watch); another
 * connection's release wakes the loop (svc->wake), whose TCP class's
 * wake (svc_tcp_listen.c) re-arms every parked connection.  Replies are
 * charged but never refused.  A parked connection with no call in progress is idle:
 * the idle timeout frees what it holds.
 *
 * The bytes a read takes are charged while they are parsed (c->in_held), and
 * what is stashed stays charged: a read takes no more than the caps leave.
 *
 * Fairness.  One pass of the loop reads at most READ_BUDGET times and
 * delivers at most RECORD_BUDGET records per connection; a record of more than
 * MAX_FRAGS fragments, or with a run of more than MAX_EMPTY_RUN empty
 * fragments, closes the connection (protocol_errors).
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

#include "svc_tcp_int.h"

#define RECORD_BUDGET 64    /* records delivered per connection per pass */
#define FLUSH_IOV 64        /* replies gathered into one sendmsg */

static const struct rpcrdma__svc_xprt_ops tcp_ops;

/* The coarse clock: it only times idle connections (a tick's precision is
 * plenty) and reads no clock device, where CLOCK_MONOTONIC is a system
 * call on a machine whose clocksource the vDSO cannot read (the HPET of
 * the TCG guest: one more system call per pass). */
uint64_t rpcrdma__tcp_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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
	if (!tc->backward)
		rpcrdma__svc_xprt_complete(c->xprt);
	tc->next = *done;
	*done = tc;
}

/* Under conn->lock: n bytes of the queue's head have been written. */
static void sq_advance(struct rpcrdma__svc_tcp_conn *c, size_t n, struct tcp_call **done)
{
	while (n) {
		size_t rest = c->sq_head->len - c->sq_off;
		if (n < rest) {
			c->sq_off += n;
			return;
		}
		n -= rest;
		sq_pop(c, done);
	}
}

/* Under conn->lock: writes the queued replies, up to FLUSH_IOV a sendmsg,
 * until the queue is empty or the socket takes less than offered (then
 * EPOLLOUT, update_watch, says when to go on). */
static void flush(struct rpcrdma__svc_tcp_conn *c, struct tcp_call **done)
{
	while (c->sq_head && !c->dead) {
		struct iovec iov[FLUSH_IOV];
		struct msghdr mh = { .msg_iov = iov };
		size_t off = c->sq_off, want = 0;
		for (struct tcp_call *tc = c->sq_head; tc && mh.msg_iovlen < FLUSH_IOV;
		     tc = tc->next, off = 0) {
			iov[mh.msg_iovlen].iov_base = tc->base + off;
			iov[mh.msg_iovlen++].iov_len = tc->len - off;
			want += tc->len - off;
		}
		ssize_t n = sendmsg(c->src.fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
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
		sq_advance(c, (size_t)n, done);
		if ((size_t)n < want) {
			RPCRDMA__STAT_INC(c->svc, send_waits);
			return;
		}
	}
}

static void finish_done(struct tcp_call *done)
{
	while (done) {
		struct tcp_call *tc = done;
		struct rpcrdma__svc_tcp_conn *c = tc->conn;
		done = tc->next;
		rpcrdma__tcp_call_free(tc);
		rpcrdma__tcp_conn_put(c);
	}
}

/* c->lock held: queues tc behind the replies waiting to be written,
 * writes what it can now (unless its loop's pass will, at its end), then
 * drops c->lock and frees what was sent. */
static void enqueue_unlock(struct rpcrdma__svc_tcp_conn *c, struct tcp_call *tc)
{
	struct tcp_call *done = NULL;

	*c->sq_tail = tc;
	c->sq_tail = &tc->next;
	if (c->sq_head == tc && !c->in_pass)
		flush(c, &done);
	rpcrdma__tcp_update_watch(c);
	pthread_mutex_unlock(&c->lock);
	finish_done(done);
}

/* Closes the connection (loop thread or destroy).  Idempotent. */
/* Closes the connection but keeps the loop's reference; false if it was
 * closed already.  why (NULL: c->why, else "closed") goes to the log. */
bool rpcrdma__tcp_conn_close(struct rpcrdma__svc_tcp_conn *c, const char *why)
{
	struct tcp_call *done = NULL;
	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	while (c->sq_head)
		sq_pop(c, &done);
	rpcrdma__tcp_mem_wait_end(c);
	c->dead = true;
	rpcrdma__svc_loop_unwatch(c->loop, &c->src);
	close(c->src.fd);
	c->src.fd = -1;
	pthread_mutex_unlock(&c->lock);
	atomic_fetch_sub(&c->loop->nconns, 1);
	RPCRDMA__STAT_INC(c->svc, conns_closed);
	rpcrdma__svc_log(c->svc, RPCRDMA_LOG_CONN_CLOSED, rpcrdma__svc_xprt_netid(c->xprt),
			 (const struct sockaddr *)&c->peer, c->peer_len,
			 why ? why : c->why ? c->why : "closed", why ? 0 : c->why_err);
	finish_done(done);
	rpcrdma__svc_bc_down(&c->bc, -ECONNRESET, true);
	return true;
}

void rpcrdma__tcp_conn_kill(struct rpcrdma__svc_tcp_conn *c, const char *why)
{
	if (rpcrdma__tcp_conn_close(c, why))
		rpcrdma__tcp_conn_put(c); /* the loop's reference */
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
	if (!tc->base)
		return NULL;
	/* charged, never refused: the call already holds a slot */
	tc->rep_charge += 4 + max;
	atomic_fetch_add(&tc->conn->held, 4 + max);
	rpcrdma__tcp_charge(tc->conn->svc, 4 + max);
	return tc->base + 4;
}

/* ops->done: queue the reply (or drop it) and try to write it now. */
static void tcp_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct rpcrdma__svc_tcp_conn *c = priv;
	struct tcp_call *tc = ctx;

	free(tc->iov.iov_base);
	tc->iov.iov_base = NULL;
	if (tc->req_charge) {
		atomic_fetch_sub(&c->held, tc->req_charge);
		rpcrdma__tcp_uncharge(c->svc, tc->req_charge);
		tc->req_charge = 0;
	}
	pthread_mutex_lock(&c->lock);
	if (len == 0 || !buf || c->dead) {
		rpcrdma__svc_xprt_complete(c->xprt);
		rpcrdma__tcp_update_watch(c);
		pthread_mutex_unlock(&c->lock);
		rpcrdma__tcp_call_free(tc);
		rpcrdma__tcp_conn_put(c);
		return;
	}
	rpcrdma__put_be32(tc->base, 0x80000000u | (uint32_t)len);
	tc->len = 4 + len;
	tc->next = NULL;
	enqueue_unlock(c, tc);
}

static struct rpcrdma__svc_bc_slot *tcp_backward(void *priv, void *ctx)
{
	(void)ctx;
	return &((struct rpcrdma__svc_tcp_conn *)priv)->bc;
}

static const struct rpcrdma__svc_xprt_ops tcp_ops = {
	.reply_buf = tcp_reply_buf,
	.done = tcp_done,
	.backward = tcp_backward,
};

/* Backward call (svc_backward.h, any thread): queued like a reply, but
 * holding no slot; charged as replies are.  Refused (-EAGAIN) while the
 * connection already holds max_conn_bytes: a client that does not read
 * must not make the service queue calls without bound. */
static int tcp_bc_send(void *priv, uint8_t *block, size_t len)
{
	struct rpcrdma__svc_tcp_conn *c = priv;
	if (atomic_load(&c->held) > c->svc->opts.max_conn_bytes) {
		free(block);
		return -EAGAIN;
	}
	struct tcp_call *tc = calloc(1, sizeof(*tc));
	if (!tc || len > 0x7fffffffu) {
		free(tc);
		free(block);
		return tc ? -EMSGSIZE : -ENOMEM;
	}
	tc->conn = c;
	tc->backward = true;
	tc->base = block;
	tc->len = 4 + len;
	rpcrdma__put_be32(block, 0x80000000u | (uint32_t)len);
	tc->rep_charge = tc->len;
	atomic_fetch_add(&c->held, tc->len);
	rpcrdma__tcp_charge(c->svc, tc->len);
	atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		pthread_mutex_unlock(&c->lock);
		rpcrdma__tcp_call_free(tc);
		rpcrdma__tcp_conn_put(c);
		return -ENOTCONN;
	}
	enqueue_unlock(c, tc);
	return 0;
}

static const struct rpcrdma__svc_bc_ops tcp_bc_ops = {
	.headroom = 4,
	.send = tcp_bc_send,
};


/* A pass over one connection: its input, then its replies in one write. */
static void conn_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_tcp_conn *c = (struct rpcrdma__svc_tcp_conn *)src;
	struct tcp_call *done = NULL;
	int records = RECORD_BUDGET;

	if (c->dead) /* closed earlier in this batch (only its loop closes it) */
		return;
	atomic_store_explicit(&c->last_active, rpcrdma__tcp_now_ms(), memory_order_relaxed);
	pthread_mutex_lock(&c->lock);
	c->in_pass = true;
	pthread_mutex_unlock(&c->lock);
	bool ok = rpcrdma__tcp_conn_input(c, events, &records);
	pthread_mutex_lock(&c->lock);
	c->in_pass = false;
	c->kick = c->stash_len != 0;
	flush(c, &done);
	rpcrdma__tcp_update_watch(c);
	pthread_mutex_unlock(&c->lock);
	finish_done(done);
	if (!ok)
		rpcrdma__tcp_conn_kill(c, NULL);
}

/* Puts a connected, non-blocking stream socket on the loop.  On failure
 * the fd is left open for the caller. */
int rpcrdma__tcp_conn_add(struct rpcrdma_svc *svc, int fd, const char *netid,
		    const struct sockaddr_storage *local, socklen_t local_len,
		    const struct sockaddr_storage *peer, socklen_t plen)
{
	struct rpcrdma__svc_tcp_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	struct rpcrdma__svc_xprt_info info = {
		.size = sizeof(info),
		.netid = netid,
		.flags = RPCRDMA__SVC_XPRT_CONGESTION_CONTROL,
		.local = (const struct sockaddr *)local,
		.local_len = local_len,
	};
	int rc = rpcrdma__svc_xprt_create(svc, &tcp_ops, c, &info, &c->xprt);
	if (rc) {
		free(c);
		return rc;
	}
	rpcrdma__svc_bc_slot_init(&c->bc, svc, rpcrdma__svc_xprt_netid(c->xprt), &tcp_bc_ops, c);
	c->src.fd = fd;
	c->src.handle = conn_handle;
	c->svc = svc;
	c->loop = rpcrdma__svc_pick_loop(svc);
	c->peer = *peer;
	c->peer_len = plen;
	atomic_init(&c->refs, 1);
	pthread_mutex_init(&c->lock, NULL);
	c->sq_tail = &c->sq_head;
	c->reading = true;
	c->armed = EPOLLIN;
	atomic_store_explicit(&c->last_active, rpcrdma__tcp_now_ms(), memory_order_relaxed);
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
	/* Counted before it is watched: its loop may serve it at once. */
	atomic_fetch_add(&c->loop->nconns, 1);
	atomic_fetch_add(&c->loop->conns_accepted, 1);
	rc = rpcrdma__svc_loop_watch(c->loop, &c->src, EPOLLIN);
	if (rc) {
		atomic_fetch_sub(&c->loop->nconns, 1);
		atomic_fetch_sub(&c->loop->conns_accepted, 1);
		c->dead = true;
		rpcrdma__tcp_conn_put(c); /* unlinks and frees; the fd stays open */
		return rc;
	}
	RPCRDMA__STAT_INC(svc, conns_accepted);
	return 0;
}

