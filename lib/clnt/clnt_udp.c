/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client over UDP: one connected datagram socket; a call is sent again
 * after retrans_ms, then after twice that, and so on, while its timeout
 * allows (as libtirpc's clnt_dg and the kernel's xprtsock do).  Replies
 * are matched by xid: the first completes the call, later copies (the
 * answers to retransmissions, or a server's duplicates) match nothing and
 * are dropped (counted in err_dropped).  An ICMP port unreachable
 * (ECONNREFUSED on the connected socket) fails the calls waiting then with
 * -ECONNREFUSED, as libtirpc's clnt_dg does: nothing listens there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clnt_int.h"

struct udp_sock {
	int fd;
	uint8_t buf[65536];
};

#define UDP_MAX_PAYLOAD 65507u

static void udp_send(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	/* Errors (a full socket buffer, a refused port) are left to the
	 * retransmissions. */
	if (send(((struct udp_sock *)c->sock)->fd, r->msg + 4, r->len, MSG_NOSIGNAL) >= 0)
		rpcrdma__clnt_count(c, RPCRDMA_STAT_BYTES_SENT, r->len);
}

static void udp_arm(struct rpcrdma__creq *r, int64_t now)
{
	r->resend_ms = now + r->resend_gap;
	if (r->resend_ms >= r->deadline_ms)
		r->resend_ms = 0;
}

static int udp_start(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	if (r->len > UDP_MAX_PAYLOAD)
		return -EMSGSIZE;
	udp_send(c, r);
	r->resend_gap = c->opts.retrans_ms;
	udp_arm(r, rpcrdma__clnt_now_ms());
	rpcrdma__clnt_pending_add(c, r);
	rpcrdma__clnt_count(c, RPCRDMA_STAT_CALLS, 1);
	return 0;
}

static void udp_resend(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	udp_send(c, r);
	if (r->resend_gap < INT32_MAX)
		r->resend_gap *= 2;
	udp_arm(r, rpcrdma__clnt_now_ms());
}

static void udp_input(struct rpcrdma_clnt *c, uint32_t events)
{
	struct udp_sock *s = c->sock;

	(void)events;
	for (int i = 0; i < 64; i++) {
		ssize_t n = recv(s->fd, s->buf, sizeof(s->buf), MSG_TRUNC);
		struct rpcrdma__creq *r;
		uint32_t xid, type;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECONNREFUSED) {
				rpcrdma__clnt_pending_fail(c, -ECONNREFUSED);
				continue;
			}
			return;   /* EAGAIN, or an error the next call meets */
		}
		rpcrdma__clnt_count(c, RPCRDMA_STAT_BYTES_RECV, (uint64_t)n);
		if ((size_t)n > sizeof(s->buf) ||
		    !rpcrdma__clnt_msg_xid(s->buf, (size_t)n, &xid, &type)) {
			rpcrdma__clnt_count(c, RPCRDMA_STAT_ERR_SHORT, 1);
			continue;
		}
		r = type == 1 ? rpcrdma__clnt_pending_take(c, xid) : NULL;
		if (!r) {
			rpcrdma__clnt_count(c, RPCRDMA_STAT_ERR_DROPPED, 1);
			continue;
		}
		rpcrdma__clnt_complete_reply(c, r, s->buf, (size_t)n, NULL, 0);
	}
}

static int udp_expire(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	(void)c;
	(void)r;
	return 0;
}

static const struct rpcrdma__clnt_loop_ops udp_ops = {
	.start = udp_start,
	.input = udp_input,
	.expire = udp_expire,
	.resend = udp_resend,
};

static void udp_destroy(struct rpcrdma_clnt *c);

static int udp_create(struct rpcrdma_clnt *c)
{
	struct udp_sock *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	c->sock = s;
	err = rpcrdma__clnt_sock_connect(c, SOCK_DGRAM, &s->fd);
	if (err)
		goto fail_free;
	err = rpcrdma__clnt_loop_create(c, &udp_ops);
	if (err)
		goto fail;
	err = rpcrdma__clnt_loop_watch(c, s->fd, EPOLLIN);
	if (err) {
		udp_destroy(c);
		return err;
	}
	return 0;
fail:
	close(s->fd);
fail_free:
	free(s);
	c->sock = NULL;
	return err;
}

static void udp_destroy(struct rpcrdma_clnt *c)
{
	rpcrdma__clnt_loop_stop(c);
	close(((struct udp_sock *)c->sock)->fd);
	rpcrdma__clnt_loop_destroy(c);
	free(c->sock);
	c->sock = NULL;
}

const struct rpcrdma__clnt_xprt_ops rpcrdma__clnt_udp_ops = {
	.create = udp_create,
	.destroy = udp_destroy,
};
