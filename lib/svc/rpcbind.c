/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Registration with the system's rpcbind (RFC 1833): RPCBPROC_SET / UNSET of
 * rpcbind version 4 (falling back to 3) for every (program, version,
 * endpoint), over rpcbind's local socket or TCP 127.0.0.1:111.  A small
 * blocking RPC client with a timeout; it runs on the caller's thread.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "svc_int.h"

#define RPCB_PROG 100000u
#define RPCBPROC_SET 1u
#define RPCBPROC_UNSET 2u

struct rpcrdma__rpcb_entry {
	struct rpcrdma__rpcb_entry *next;
	uint32_t prog, vers;
	char netid[16];
	char uaddr[64];
};

void rpcrdma__svc_each_version(struct rpcrdma_svc *svc,
			       void (*fn)(void *arg, uint32_t prog, uint32_t vers, uint32_t flags),
			       void *arg);

/* ----------------------------------------------------------- endpoints */

int rpcrdma_uaddr_format(const struct sockaddr *sa, socklen_t len, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN];
	unsigned port;
	if (!sa || !buf)
		return -EINVAL;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
	} else {
		return -EINVAL;
	}
	int n = snprintf(buf, size, "%s.%u.%u", host, port >> 8, port & 0xff);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

int rpcrdma__svc_add_endpoint(struct rpcrdma_svc *svc, const char *netid,
			     const struct sockaddr *addr, socklen_t len, int has_cc)
{
	if (!svc || !netid || strlen(netid) >= sizeof(svc->endpoints->netid))
		return -EINVAL;
	struct rpcrdma__svc_endpoint *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	int rc = rpcrdma_uaddr_format(addr, len, e->uaddr, sizeof(e->uaddr));
	if (rc < 0) {
		free(e);
		return rc;
	}
	strcpy(e->netid, netid);
	e->has_cc = has_cc != 0;
	pthread_mutex_lock(&svc->lock);
	struct rpcrdma__svc_endpoint **pp = &svc->endpoints;
	while (*pp)
		pp = &(*pp)->next;
	*pp = e;
	pthread_mutex_unlock(&svc->lock);
	return 0;
}

int rpcrdma__svc_add_endpoint_sa(struct rpcrdma_svc *svc, bool udp,
				 const struct sockaddr_storage *ss)
{
	bool v6 = ss->ss_family == AF_INET6;
	const char *netid = udp ? (v6 ? "udp6" : "udp") : (v6 ? "tcp6" : "tcp");
	return rpcrdma__svc_add_endpoint(svc, netid, (const struct sockaddr *)ss,
					sizeof(*ss), !udp);
}

/* ------------------------------------------------------------- client */

struct rpcb_client {
	int fd;
	int timeout_ms;
	uint32_t xid;
	uint32_t vers; /* 4, or 3 after a PROG_MISMATCH */
	const char *owner;
};

static int connect_rpcbind(const struct rpcrdma_rpcbind_opts *o)
{
	const char *path = o->sock_path ? o->sock_path : "/run/rpcbind.sock";
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int rc = -ENOENT;
	if (strlen(path) < sizeof(un.sun_path)) {
		strcpy(un.sun_path, path);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&un, sizeof(un)) == 0)
			return fd;
		rc = -errno;
		close(fd);
	}
	if (o->no_tcp_fallback)
		return rc;
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(111),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&in, sizeof(in)) == 0)
		return fd;
	rc = -errno;
	close(fd);
	return rc;
}

/* Moves len bytes in or out, each wait bounded by the timeout. */
static int xfer(struct rpcb_client *c, uint8_t *buf, size_t len, bool out)
{
	while (len) {
		struct pollfd pfd = { .fd = c->fd, .events = out ? POLLOUT : POLLIN };
		int r = poll(&pfd, 1, c->timeout_ms);
		if (r == 0)
			return -ETIMEDOUT;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		ssize_t n = out ? send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT)
				: recv(c->fd, buf, len, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One SET or UNSET; *result gets the returned bool.  -EPROTONOSUPPORT:
 * rpcbind does not speak c->vers. */
static int rpcb_call(struct rpcb_client *c, uint32_t proc,
		     const struct rpcrdma__rpcb_entry *e, int *result)
{
	uint8_t msg[512], rep[512];
	struct rpcrdma_xdr_enc enc;
	uint32_t xid = ++c->xid;
	rpcrdma_xdr_enc_init(&enc, msg, sizeof(msg));
	int rc = rpcrdma_xdr_put_u32(&enc, 0); /* record mark, filled below */
	rc |= rpcrdma_xdr_put_u32(&enc, xid);
	rc |= rpcrdma_xdr_put_u32(&enc, 0); /* CALL */
	rc |= rpcrdma_xdr_put_u32(&enc, RPCRDMA__RPC_VERSION);
	rc |= rpcrdma_xdr_put_u32(&enc, RPCB_PROG);
	rc |= rpcrdma_xdr_put_u32(&enc, c->vers);
	rc |= rpcrdma_xdr_put_u32(&enc, proc);
	rc |= rpcrdma_xdr_put_u64(&enc, 0); /* cred AUTH_NONE */
	rc |= rpcrdma_xdr_put_u64(&enc, 0); /* verf AUTH_NONE */
	rc |= rpcrdma_xdr_put_u32(&enc, e->prog);
	rc |= rpcrdma_xdr_put_u32(&enc, e->vers);
	rc |= rpcrdma_xdr_put_string(&enc, e->netid);
	rc |= rpcrdma_xdr_put_string(&enc, proc == RPCBPROC_SET ? e->uaddr : "");
	rc |= rpcrdma_xdr_put_string(&enc, c->owner);
	if (rc)
		return -EINVAL;
	size_t len = rpcrdma_xdr_enc_len(&enc);
	rpcrdma__put_be32(msg, 0x80000000u | (uint32_t)(len - 4));
	rc = xfer(c, msg, len, true);
	if (rc)
		return rc;

	/* The reply: one fragment of at most sizeof(rep) bytes. */
	uint8_t mark[4];
	rc = xfer(c, mark, 4, false);
	if (rc)
		return rc;
	uint32_t w = rpcrdma__get_be32(mark);
	size_t rlen = w & 0x7fffffffu;
	if (!(w >> 31) || rlen > sizeof(rep))
		return -EPROTO;
	rc = xfer(c, rep, rlen, false);
	if (rc)
		return rc;

	struct iovec iov = { rep, rlen };
	struct rpcrdma_xdr_dec d;
	uint32_t rxid, mtype, stat, vflavor, vlen, acc, res;
	rpcrdma_xdr_dec_init(&d, &iov, 1);
	if (rpcrdma_xdr_get_u32(&d, &rxid) || rxid != xid ||
	    rpcrdma_xdr_get_u32(&d, &mtype) || mtype != 1 ||
	    rpcrdma_xdr_get_u32(&d, &stat))
		return -EPROTO;
	if (stat != 0) /* MSG_DENIED */
		return -EACCES;
	if (rpcrdma_xdr_get_u32(&d, &vflavor) || rpcrdma_xdr_get_u32(&d, &vlen) ||
	    rpcrdma_xdr_skip(&d, vlen) || rpcrdma_xdr_get_u32(&d, &acc))
		return -EPROTO;
	if (acc == RPCRDMA_SVC_PROG_MISMATCH)
		return -EPROTONOSUPPORT;
	if (acc != RPCRDMA_SVC_SUCCESS || rpcrdma_xdr_get_u32(&d, &res) || res > 1)
		return -EPROTO;
	*result = (int)res;
	return 0;
}

/* Calls with version 4, falling back to 3 once if rpcbind lacks 4. */
static int rpcb_call_any(struct rpcb_client *c, uint32_t proc,
			 const struct rpcrdma__rpcb_entry *e, int *result)
{
	int rc = rpcb_call(c, proc, e, result);
	if (rc == -EPROTONOSUPPORT && c->vers == 4) {
		c->vers = 3;
		rc = rpcb_call(c, proc, e, result);
	}
	return rc;
}

static int client_open(struct rpcb_client *c, const struct rpcrdma_rpcbind_opts *o,
		       char *owner, size_t owner_size)
{
	c->fd = connect_rpcbind(o);
	if (c->fd < 0)
		return c->fd;
	c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 2000;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c->xid = (uint32_t)ts.tv_nsec ^ (uint32_t)getpid() << 16;
	c->vers = 4;
	if (o->owner) {
		c->owner = o->owner;
	} else {
		snprintf(owner, owner_size, "%u", (unsigned)getuid());
		c->owner = owner;
	}
	return 0;
}

/* ------------------------------------------------------------- set/unset */

struct vlist {
	struct { uint32_t prog, vers, flags; } *v;
	size_t n, cap;
	bool oom;
};

static void collect(void *arg, uint32_t prog, uint32_t vers, uint32_t flags)
{
	struct vlist *l = arg;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		void *p = realloc(l->v, cap * sizeof(l->v[0]));
		if (!p) {
			l->oom = true;
			return;
		}
		l->v = p;
		l->cap = cap;
	}
	l->v[l->n].prog = prog;
	l->v[l->n].vers = vers;
	l->v[l->n].flags = flags;
	l->n++;
}

void rpcrdma_rpcbind_opts_init(struct rpcrdma_rpcbind_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

int rpcrdma_svc_rpcbind_set(struct rpcrdma_svc *svc, const struct rpcrdma_rpcbind_opts *opts)
{
	struct rpcrdma_rpcbind_opts o = {0};
	struct rpcb_client c;
	struct vlist l = {0};
	char owner[16];
	int rc;

	if (!svc || (opts && opts->size < sizeof(size_t)))
		return -EINVAL;
	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	rpcrdma__svc_each_version(svc, collect, &l);
	if (l.oom) {
		free(l.v);
		return -ENOMEM;
	}
	if (o.sock_path && strlen(o.sock_path) >= sizeof(svc->rpcb_path)) {
		free(l.v);
		return -EINVAL;
	}
	rc = client_open(&c, &o, owner, sizeof(owner));
	if (rc) {
		free(l.v);
		return rc;
	}
	pthread_mutex_lock(&svc->lock);
	strcpy(svc->rpcb_path, o.sock_path ? o.sock_path : "");
	svc->rpcb_no_tcp = o.no_tcp_fallback != 0;
	svc->rpcb_timeout_ms = o.timeout_ms;
	pthread_mutex_unlock(&svc->lock);
	/* Endpoints are only ever appended, so walking them unlocked is safe
	 * once the head is read. */
	pthread_mutex_lock(&svc->lock);
	struct rpcrdma__svc_endpoint *eps = svc->endpoints;
	pthread_mutex_unlock(&svc->lock);
	for (struct rpcrdma__svc_endpoint *ep = eps; ep && !rc; ep = ep->next) {
		for (size_t i = 0; i < l.n && !rc; i++) {
			if ((l.v[i].flags & RPCRDMA_SVC_VERS_NEEDS_CC) && !ep->has_cc)
				continue;
			struct rpcrdma__rpcb_entry *e = calloc(1, sizeof(*e));
			if (!e) {
				rc = -ENOMEM;
				break;
			}
			e->prog = l.v[i].prog;
			e->vers = l.v[i].vers;
			strcpy(e->netid, ep->netid);
			strcpy(e->uaddr, ep->uaddr);
			int ok = 0;
			rc = rpcb_call_any(&c, RPCBPROC_UNSET, e, &ok); /* stale entry */
			if (!rc)
				rc = rpcb_call_any(&c, RPCBPROC_SET, e, &ok);
			if (!rc && !ok)
				rc = -EACCES;
			if (rc) {
				free(e);
				break;
			}
			pthread_mutex_lock(&svc->lock);
			e->next = svc->rpcb;
			svc->rpcb = e;
			pthread_mutex_unlock(&svc->lock);
		}
	}
	close(c.fd);
	free(l.v);
	return rc;
}

int rpcrdma__rpcbind_unset_all(struct rpcrdma_svc *svc)
{
	struct rpcrdma_rpcbind_opts o = { .size = sizeof(o) };
	struct rpcb_client c;
	char owner[16];

	pthread_mutex_lock(&svc->lock);
	struct rpcrdma__rpcb_entry *list = svc->rpcb;
	svc->rpcb = NULL;
	o.sock_path = svc->rpcb_path[0] ? svc->rpcb_path : NULL;
	o.no_tcp_fallback = svc->rpcb_no_tcp;
	o.timeout_ms = svc->rpcb_timeout_ms;
	pthread_mutex_unlock(&svc->lock);
	if (!list)
		return 0;
	int rc = client_open(&c, &o, owner, sizeof(owner));
	while (list) {
		struct rpcrdma__rpcb_entry *e = list;
		int ok;
		list = e->next;
		if (rc == 0) {
			rc = rpcb_call_any(&c, RPCBPROC_UNSET, e, &ok);
		}
		free(e);
	}
	if (c.fd >= 0)
		close(c.fd);
	return rc;
}

int rpcrdma_svc_rpcbind_unset(struct rpcrdma_svc *svc)
{
	if (!svc)
		return -EINVAL;
	return rpcrdma__rpcbind_unset_all(svc);
}
