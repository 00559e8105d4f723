/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * UDP transport: one datagram is one call, one reply one datagram.  No
 * congestion control, so versions that need it are refused here.  When all
 * slots are taken, datagrams are read and dropped (counted in busy): the
 * client retransmits.  Replies are sent with a non-blocking sendto from
 * whichever thread completes the call; one that does not fit in the socket
 * buffer is dropped like a lost datagram.
 *
 * The socket is freed (and its fd closed) when the loop's reference and the
 * reference of every call in progress are gone, so a late reply never
 * writes to a closed or reused fd.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdalign.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "svc_int.h"

struct rpcrdma__svc_udp {
	struct rpcrdma__svc_source src;
	struct rpcrdma_svc *svc;
	struct rpcrdma__svc_xprt *xprt;
	struct rpcrdma__svc_udp *next, **pprev; /* svc->udps, svc->lock */
	atomic_int refs;
	bool dead;     /* loop thread / destroy */
	uint8_t *buf;  /* max_datagram + 1 bytes, loop thread only */
};

struct udp_call {
	struct iovec iov;
	uint8_t *reply;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	alignas(4) uint8_t data[];
};

static void udp_put(struct rpcrdma__svc_udp *u)
{
	if (atomic_fetch_sub_explicit(&u->refs, 1, memory_order_acq_rel) != 1)
		return;
	struct rpcrdma_svc *svc = u->svc;
	pthread_mutex_lock(&svc->lock);
	if (u->pprev) {
		*u->pprev = u->next;
		if (u->next)
			u->next->pprev = u->pprev;
	}
	pthread_mutex_unlock(&svc->lock);
	close(u->src.fd);
	free(u->buf);
	struct rpcrdma__svc_xprt *x = u->xprt;
	free(u);
	rpcrdma__svc_xprt_destroy(x); /* last touch of svc */
}

static void *udp_reply_buf(void *priv, void *ctx, size_t max)
{
	struct udp_call *uc = ctx;
	(void)priv;
	free(uc->reply);
	uc->reply = malloc(max);
	return uc->reply;
}

static void udp_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct rpcrdma__svc_udp *u = priv;
	struct udp_call *uc = ctx;
	if (len && buf) {
		ssize_t n;
		do {
			n = sendto(u->src.fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
				   (struct sockaddr *)&uc->peer, uc->peer_len);
		} while (n < 0 && errno == EINTR);
		/* Any other failure is a lost datagram: the client retransmits. */
	}
	free(uc->reply);
	free(uc);
	rpcrdma__svc_xprt_complete(u->xprt);
	udp_put(u);
}

static const struct rpcrdma__svc_xprt_ops udp_ops = {
	.reply_buf = udp_reply_buf,
	.done = udp_done,
};

static void udp_handle(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_udp *u = (struct rpcrdma__svc_udp *)src;
	size_t max = u->svc->opts.max_datagram;
	(void)events;

	for (int budget = 32; budget > 0; budget--) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(src->fd, u->buf, max + 1, MSG_DONTWAIT,
				     (struct sockaddr *)&peer, &plen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if ((size_t)n > max || plen > sizeof(peer)) {
			RPCRDMA__STAT_INC(u->svc, dropped);
			rpcrdma__svc_log(u->svc, RPCRDMA_LOG_CALL_DROPPED, rpcrdma__svc_xprt_netid(u->xprt),
					 plen > sizeof(peer) ? NULL : (struct sockaddr *)&peer,
					 plen, "datagram larger than max_datagram", 0);
			continue;
		}
		if (rpcrdma__svc_xprt_busy(u->xprt)) {
			RPCRDMA__STAT_INC(u->svc, busy);
			continue;
		}
		struct udp_call *uc = malloc(sizeof(*uc) + (size_t)n);
		if (!uc) {
			RPCRDMA__STAT_INC(u->svc, dropped);
			rpcrdma__svc_log(u->svc, RPCRDMA_LOG_CALL_DROPPED, rpcrdma__svc_xprt_netid(u->xprt),
					 (struct sockaddr *)&peer, plen, "out of memory", -ENOMEM);
			continue;
		}
		memcpy(uc->data, u->buf, (size_t)n);
		uc->iov.iov_base = uc->data;
		uc->iov.iov_len = (size_t)n;
		uc->reply = NULL;
		uc->peer = peer;
		uc->peer_len = plen;
		atomic_fetch_add_explicit(&u->refs, 1, memory_order_relaxed);
		if (rpcrdma__svc_xprt_recv(u->xprt, &uc->iov, 1, (struct sockaddr *)&peer,
					  plen, uc) != 0) {
			free(uc);
			udp_put(u);
		}
	}
}

int rpcrdma_svc_listen_udp(struct rpcrdma_svc *svc, const struct sockaddr *addr,
			   socklen_t len, struct sockaddr_storage *bound, socklen_t *bound_len)
{
	if (!svc || !addr || (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return -EINVAL;
	struct rpcrdma__svc_udp *u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	int rc, one = 1;
	struct sockaddr_storage local;
	socklen_t local_len = sizeof(local);
	u->buf = malloc(svc->opts.max_datagram + 1);
	int fd = socket(addr->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || !u->buf) {
		rc = fd < 0 ? -errno : -ENOMEM;
		goto out_free;
	}
	if (addr->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, addr, len) || getsockname(fd, (struct sockaddr *)&local, &local_len)) {
		rc = -errno;
		goto out_free;
	}
	struct rpcrdma__svc_xprt_info info = {
		.size = sizeof(info),
		.netid = addr->sa_family == AF_INET ? "udp" : "udp6",
		.flags = 0, /* no congestion control */
		.local = (struct sockaddr *)&local,
		.local_len = local_len,
	};
	rc = rpcrdma__svc_xprt_create(svc, &udp_ops, u, &info, &u->xprt);
	if (rc)
		goto out_free;
	u->svc = svc;
	u->src.fd = fd;
	u->src.handle = udp_handle;
	atomic_init(&u->refs, 1);
	rc = rpcrdma__svc_watch(svc, &u->src, EPOLLIN);
	if (rc == 0) {
		rc = rpcrdma__svc_add_endpoint_sa(svc, true, &local);
		if (rc)
			rpcrdma__svc_unwatch(svc, &u->src);
	}
	if (rc) {
		rpcrdma__svc_xprt_destroy(u->xprt);
		goto out_free;
	}
	pthread_mutex_lock(&svc->lock);
	u->next = svc->udps;
	if (u->next)
		u->next->pprev = &u->next;
	u->pprev = &svc->udps;
	svc->udps = u;
	pthread_mutex_unlock(&svc->lock);
	if (bound)
		*bound = local;
	if (bound_len)
		*bound_len = local_len;
	return 0;
out_free:
	if (fd >= 0)
		close(fd);
	free(u->buf);
	free(u);
	return rc;
}

/* rpcrdma_svc_destroy (the class's shutdown): closes every socket. */
static void udp_shutdown(struct rpcrdma_svc *svc)
{
	struct rpcrdma__svc_udp *list[64];
	unsigned n;
	do {
		n = 0;
		pthread_mutex_lock(&svc->lock);
		for (struct rpcrdma__svc_udp *u = svc->udps; u && n < 64; u = u->next) {
			if (!u->dead) {
				u->dead = true;
				list[n++] = u;
			}
		}
		pthread_mutex_unlock(&svc->lock);
		for (unsigned i = 0; i < n; i++) {
			rpcrdma__svc_unwatch(svc, &list[i]->src);
			udp_put(list[i]);
		}
	} while (n);
}

const struct rpcrdma__svc_xprt_class rpcrdma__svc_udp_class = {
	.name = "udp",
	.shutdown = udp_shutdown,
};
