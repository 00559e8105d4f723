/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client over TCP: record marking (RFC 5531 section 11), one
 * connection, reconnect with backoff.  Runs on the client's loop; only
 * rpcrdma__clnt_send_record comes from other threads (the output queue is
 * under the lock).
 *
 * A reconnect never waits on the loop: the connect is started, the calls
 * queue behind it, and the loop finishes it when the socket turns
 * writable, so every call's timeout holds whatever the connection does
 * (a server that drops SYNs, one that answers late).
 *
 * Records are assembled as their bytes arrive (the buffer doubles, never to
 * the size a fragment header announces); a record longer than the largest
 * reply a pending call allows (at least 1 MiB) breaks the connection.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clnt_int.h"
#include "util/diag_int.h"
#include "util/byteorder.h"

struct outrec {
	struct rpcrdma__list node;
	uint8_t *buf;
	size_t len, off;
};

struct rpcrdma__clnt_sock {
	int fd;                         /* -1: no connection */
	pthread_mutex_t lock;           /* fd and out, for send_record */
	struct rpcrdma__list out;
	bool out_watched;
	/* the record being received */
	uint8_t mark[4];
	size_t mark_got;
	uint32_t frag_left;
	bool last;
	uint8_t *rbuf;
	size_t rlen, rcap;
	uint8_t stage[65536];
	/* a reconnect in progress: fd is set and watched for EPOLLOUT */
	bool connecting;
	int64_t connect_started;
	/* reconnect backoff */
	int backoff_ms;
	int64_t backoff_until;
	int last_err;
};

/* A non-blocking socket of type connected, or connecting (*inprogress)
 * to the client's address; 0 or a negative errno. */
static int sock_start(struct rpcrdma_clnt *c, int type, int *out, bool *inprogress)
{
	int fd, err, one = 1;

	*inprogress = false;
	fd = socket(c->addr.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (type == SOCK_STREAM)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&c->addr, c->addrlen) == 0)
		goto done;
	if (errno != EINPROGRESS) {
		err = -errno;
		close(fd);
		return err;
	}
	*inprogress = true;
done:
	*out = fd;
	return 0;
}

/* The outcome of a finished non-blocking connect: 0 or a negative errno. */
static int sock_error(int fd)
{
	socklen_t sl = sizeof(int);
	int err;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl))
		return -errno;
	return -err;
}

int rpcrdma__clnt_sock_connect(struct rpcrdma_clnt *c, int type, int *out)
{
	struct pollfd p;
	bool inprogress;
	int fd, err;

	err = sock_start(c, type, &fd, &inprogress);
	if (err || !inprogress)
		goto done;
	p.fd = fd;
	p.events = POLLOUT;
	do {
		err = poll(&p, 1, c->opts.connect_timeout_ms);
	} while (err < 0 && errno == EINTR);
	if (err == 0)
		err = -ETIMEDOUT;
	else if (err < 0)
		err = -errno;
	else
		err = sock_error(fd);
	if (err) {
		close(fd);
		return err;
	}
done:
	if (!err)
		*out = fd;
	return err;
}

static void out_free(struct rpcrdma__list *h)
{
	struct rpcrdma__list *n;

	while ((n = rpcrdma__list_pop(h))) {
		struct outrec *o = rpcrdma__container_of(n, struct outrec, node);

		free(o->buf);
		free(o);
	}
}

static void recv_reset(struct rpcrdma__clnt_sock *s)
{
	s->mark_got = 0;
	s->frag_left = 0;
	s->last = false;
	s->rlen = 0;
	if (s->rcap > sizeof(s->stage)) {
		free(s->rbuf);
		s->rbuf = NULL;
		s->rcap = 0;
	}
}

/* Takes the socket away (connected or connecting) and drops the records
 * not yet written; false when there was none. */
static bool sock_drop(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = c->sock;
	struct rpcrdma__list dead;
	int fd;

	rpcrdma__list_init(&dead);
	pthread_mutex_lock(&s->lock);
	fd = s->fd;
	s->fd = -1;
	s->connecting = false;
	s->out_watched = false;
	rpcrdma__list_splice_tail(&dead, &s->out);
	pthread_mutex_unlock(&s->lock);
	if (fd < 0)
		return false;
	rpcrdma__clnt_loop_unwatch(c, fd);
	close(fd);
	out_free(&dead);
	return true;
}

/* Closes the connection; the calls in flight fail -ECONNRESET. */
static void tcp_break(struct rpcrdma_clnt *c, const char *why, int err)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	if (!sock_drop(c))
		return;
	recv_reset(s);
	rpcrdma__clnt_count(c, RPCRDMA_STAT_DISCONNECTS, 1);
	rpcrdma__log(c->opts.log_fn, c->opts.log_arg, RPCRDMA_LOG_CONN_CLOSED, c->netid,
		     (struct sockaddr *)&c->addr, c->addrlen, why, err);
	rpcrdma__clnt_pending_fail(c, -ECONNRESET);
}

/* A connect that failed: the next try waits for the backoff. */
static int connect_failed(struct rpcrdma_clnt *c, int err)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	s->backoff_ms = s->backoff_ms ? 2 * s->backoff_ms : c->opts.reconnect_min_ms;
	if (s->backoff_ms > c->opts.reconnect_max_ms)
		s->backoff_ms = c->opts.reconnect_max_ms;
	s->backoff_until = rpcrdma__clnt_now_ms() + s->backoff_ms;
	s->last_err = err;
	rpcrdma__clnt_count(c, RPCRDMA_STAT_CONNECT_FAILS, 1);
	return err;
}

static void connected(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	s->backoff_ms = 0;
	rpcrdma__clnt_count(c, RPCRDMA_STAT_CONNECTS, 1);
	rpcrdma__clnt_count(c, RPCRDMA_STAT_RECONNECTS, 1);
}

/* Starts a connect, unless the backoff of a failed try holds it back; the
 * loop finishes it (tcp_connect_done).  The socket is watched for EPOLLOUT
 * from the start: writable is connected, or failed. */
static int tcp_reconnect(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = c->sock;
	bool inprogress;
	int fd, err;

	if (s->backoff_ms && rpcrdma__clnt_now_ms() < s->backoff_until)
		return s->last_err;
	err = sock_start(c, SOCK_STREAM, &fd, &inprogress);
	if (err)
		return connect_failed(c, err);
	err = rpcrdma__clnt_loop_watch(c, fd, EPOLLIN | EPOLLOUT);
	if (err) {
		close(fd);
		return err;
	}
	pthread_mutex_lock(&s->lock);
	s->fd = fd;
	s->connecting = inprogress;
	s->out_watched = true;
	pthread_mutex_unlock(&s->lock);
	s->connect_started = rpcrdma__clnt_now_ms();
	if (!inprogress)
		connected(c);
	return 0;
}

/* Ends a reconnect that failed (err) or took longer than
 * connect_timeout_ms: the calls queued behind it fail with err. */
static void connect_abandon(struct rpcrdma_clnt *c, int err)
{
	sock_drop(c);
	connect_failed(c, err);
	rpcrdma__clnt_pending_fail(c, err);
}

/* The socket of a reconnect turned writable (or failed). */
static void tcp_connect_done(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = c->sock;
	int err = sock_error(s->fd);

	if (err) {
		connect_abandon(c, err);
		return;
	}
	pthread_mutex_lock(&s->lock);
	s->connecting = false;
	pthread_mutex_unlock(&s->lock);
	connected(c);
}

/* A reconnect past connect_timeout_ms is given up: its calls fail. */
static void tcp_connect_check(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	if (s->connecting &&
	    rpcrdma__clnt_now_ms() - s->connect_started >= c->opts.connect_timeout_ms)
		connect_abandon(c, -ETIMEDOUT);
}

static int tcp_start(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	struct rpcrdma__clnt_sock *s = c->sock;
	struct outrec *o;
	int err;

	if (r->len > 0x7fffffff)
		return -EMSGSIZE;
	tcp_connect_check(c);
	if (s->fd < 0) {
		err = tcp_reconnect(c);
		if (err)
			return err;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	rpcrdma__put_be32(r->msg, 0x80000000u | (uint32_t)r->len);
	o->buf = r->msg;
	o->len = r->len + 4;
	r->msg = NULL;
	pthread_mutex_lock(&s->lock);
	rpcrdma__list_add_tail(&s->out, &o->node);
	pthread_mutex_unlock(&s->lock);
	rpcrdma__clnt_pending_add(c, r);
	rpcrdma__clnt_count(c, RPCRDMA_STAT_CALLS, 1);
	rpcrdma__clnt_count(c, RPCRDMA_STAT_BYTES_SENT, o->len);
	return 0;
}

#define OUT_IOV 64   /* queued records gathered into one sendmsg */

/* Drops the first n bytes of the output queue (written). */
static void out_advance(struct rpcrdma__clnt_sock *s, size_t n)
{
	while (n) {
		struct rpcrdma__list *node = s->out.next;
		struct outrec *o = rpcrdma__container_of(node, struct outrec, node);
		size_t rest = o->len - o->off;

		if (n < rest) {
			o->off += n;
			return;
		}
		n -= rest;
		rpcrdma__list_del(node);
		free(o->buf);
		free(o);
	}
}

/* Writes what the socket takes, up to OUT_IOV records a sendmsg (the calls
 * queued since the last write leave together); 0, or the error that broke
 * it. */
static int tcp_write(struct rpcrdma__clnt_sock *s, bool *want_out)
{
	*want_out = false;
	while (s->out.next != &s->out) {
		struct iovec iov[OUT_IOV];
		struct msghdr mh = { .msg_iov = iov };
		size_t want = 0;

		for (struct rpcrdma__list *n = s->out.next; n != &s->out && mh.msg_iovlen < OUT_IOV;
		     n = n->next) {
			struct outrec *o = rpcrdma__container_of(n, struct outrec, node);

			iov[mh.msg_iovlen].iov_base = o->buf + o->off;
			iov[mh.msg_iovlen++].iov_len = o->len - o->off;
			want += o->len - o->off;
		}
		ssize_t k = sendmsg(s->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				*want_out = true;
				return 0;
			}
			return -errno;
		}
		out_advance(s, (size_t)k);
		if ((size_t)k < want) {   /* the socket is full: on at EPOLLOUT */
			*want_out = true;
			return 0;
		}
	}
	return 0;
}

static void tcp_flush(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = c->sock;
	bool want_out = false, change;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	if (s->fd < 0 || s->connecting) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	err = tcp_write(s, &want_out);
	change = !err && want_out != s->out_watched;
	if (change) {
		s->out_watched = want_out;
		rpcrdma__clnt_loop_rewatch(c, s->fd, EPOLLIN | (want_out ? EPOLLOUT : 0));
	}
	pthread_mutex_unlock(&s->lock);
	if (err)
		tcp_break(c, "send failed", err);
}

static void tcp_record(struct rpcrdma_clnt *c, const uint8_t *buf, size_t len)
{
	struct rpcrdma__creq *r;
	uint32_t xid, type;

	if (!rpcrdma__clnt_msg_xid(buf, len, &xid, &type)) {
		rpcrdma__clnt_count(c, RPCRDMA_STAT_ERR_SHORT, 1);
		return;
	}
	if (type == 0) {
		rpcrdma__clnt_backward_call(c, buf, len);
		return;
	}
	r = type == 1 ? rpcrdma__clnt_pending_take(c, xid) : NULL;
	if (!r) {
		rpcrdma__clnt_count(c, RPCRDMA_STAT_ERR_DROPPED, 1);
		return;
	}
	rpcrdma__clnt_complete_reply(c, r, buf, len, NULL, 0);
}

/* Appends k bytes of a fragment; -EMSGSIZE past the record limit. */
static int tcp_append(struct rpcrdma_clnt *c, const uint8_t *p, size_t k)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	if (s->rlen + k > s->rcap) {
		size_t cap = s->rcap ? s->rcap : 4096;
		uint8_t *nb;

		while (cap < s->rlen + k)
			cap *= 2;
		nb = realloc(s->rbuf, cap);
		if (!nb)
			return -ENOMEM;
		s->rbuf = nb;
		s->rcap = cap;
	}
	memcpy(s->rbuf + s->rlen, p, k);
	s->rlen += k;
	return 0;
}

/* Consumes received bytes; 0 or the error that must break the connection. */
static int tcp_bytes(struct rpcrdma_clnt *c, const uint8_t *p, size_t len)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	while (len) {
		if (s->mark_got < 4) {
			size_t k = 4 - s->mark_got < len ? 4 - s->mark_got : len;
			uint32_t w;

			memcpy(s->mark + s->mark_got, p, k);
			s->mark_got += k;
			p += k;
			len -= k;
			if (s->mark_got < 4)
				break;
			w = rpcrdma__get_be32(s->mark);
			s->last = w >> 31;
			s->frag_left = w & 0x7fffffffu;
			if (s->rlen + s->frag_left > rpcrdma__clnt_pending_max(c) + 4096)
				return -EMSGSIZE;
		}
		size_t k = s->frag_left < len ? s->frag_left : len;
		if (k && tcp_append(c, p, k))
			return -ENOMEM;
		p += k;
		len -= k;
		s->frag_left -= (uint32_t)k;
		if (s->frag_left)
			break;
		s->mark_got = 0;
		if (s->last) {
			tcp_record(c, s->rbuf, s->rlen);
			s->rlen = 0;
			if (s->fd < 0)   /* a done callback's call broke it */
				return 0;
		}
	}
	return 0;
}

static void tcp_input(struct rpcrdma_clnt *c, uint32_t events)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	if (s->connecting) {
		tcp_connect_done(c);
		if (s->fd < 0)
			return;
	}
	if (events & EPOLLOUT)
		tcp_flush(c);
	for (int i = 0; i < 16 && s->fd >= 0; i++) {
		ssize_t n = recv(s->fd, s->stage, sizeof(s->stage), 0);
		int err;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			tcp_break(c, n == 0 ? "closed by the server" : "receive failed",
				  n == 0 ? -ECONNRESET : -errno);
			return;
		}
		rpcrdma__clnt_count(c, RPCRDMA_STAT_BYTES_RECV, (uint64_t)n);
		err = tcp_bytes(c, s->stage, (size_t)n);
		if (err) {
			rpcrdma__clnt_count(c, RPCRDMA_STAT_POLICY_CLOSE, 1);
			tcp_break(c, err == -EMSGSIZE ? "record too long" : "out of memory", err);
			return;
		}
		/* A short read drained the socket: no read just to hear EAGAIN
		 * (epoll says when more comes). */
		if ((size_t)n < sizeof(s->stage))
			return;
	}
}

static int tcp_expire(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	(void)r;
	tcp_connect_check(c);
	return 0;   /* a late reply matches no call and is dropped */
}

static const struct rpcrdma__clnt_loop_ops tcp_ops = {
	.start = tcp_start,
	.input = tcp_input,
	.expire = tcp_expire,
	.flush = tcp_flush,
};

int rpcrdma__clnt_send_record(struct rpcrdma_clnt *c, const struct iovec *iov, int n)
{
	struct rpcrdma__clnt_sock *s;
	struct outrec *o;
	size_t len = 0, off = 4;
	int err = 0;

	if (!c || c->kind != RPCRDMA__CLNT_TCP)
		return -EOPNOTSUPP;
	s = c->sock;
	for (int i = 0; i < n; i++) {
		if (iov[i].iov_len > 0x7fffffffu - len)
			return -EMSGSIZE;
		len += iov[i].iov_len;
	}
	o = calloc(1, sizeof(*o));
	if (!o || !(o->buf = malloc(len + 4))) {
		free(o);
		return -ENOMEM;
	}
	rpcrdma__put_be32(o->buf, 0x80000000u | (uint32_t)len);
	for (int i = 0; i < n; i++) {
		if (iov[i].iov_len)
			memcpy(o->buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	o->len = len + 4;
	pthread_mutex_lock(&s->lock);
	if (s->fd < 0 || s->connecting)
		err = -ENOTCONN;
	else
		rpcrdma__list_add_tail(&s->out, &o->node);
	pthread_mutex_unlock(&s->lock);
	if (err) {
		free(o->buf);
		free(o);
		return err;
	}
	rpcrdma__clnt_count(c, RPCRDMA_STAT_BYTES_SENT, o->len);
	rpcrdma__clnt_loop_wake(c);
	return 0;
}

static void tcp_destroy(struct rpcrdma_clnt *c);

static int tcp_create(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	rpcrdma__list_init(&s->out);
	s->fd = -1;
	c->sock = s;
	err = rpcrdma__clnt_sock_connect(c, SOCK_STREAM, &s->fd);
	if (err)
		goto fail;
	err = rpcrdma__clnt_loop_create(c, &tcp_ops);
	if (err)
		goto fail;
	err = rpcrdma__clnt_loop_watch(c, s->fd, EPOLLIN);
	if (err) {
		tcp_destroy(c);
		return err;
	}
	rpcrdma__clnt_count(c, RPCRDMA_STAT_CONNECTS, 1);
	return 0;
fail:
	if (s->fd >= 0)
		close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
	c->sock = NULL;
	return err;
}

static void tcp_destroy(struct rpcrdma_clnt *c)
{
	struct rpcrdma__clnt_sock *s = c->sock;

	rpcrdma__clnt_loop_stop(c);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	out_free(&s->out);
	rpcrdma__clnt_loop_destroy(c);
	free(s->rbuf);
	pthread_mutex_destroy(&s->lock);
	free(s);
	c->sock = NULL;
}

static int tcp_bc_reply(struct rpcrdma_clnt *c, const void *msg, size_t len)
{
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };

	return rpcrdma__clnt_send_record(c, &iov, 1);
}

const struct rpcrdma__clnt_xprt_ops rpcrdma__clnt_tcp_ops = {
	.create = tcp_create,
	.destroy = tcp_destroy,
	.bc_reply = tcp_bc_reply,
};
