/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC client (include/rpcrdma/clnt.h): the client from a netid and an
 * address, its transport reached through c->ops, credentials, synchronous
 * calls over the asynchronous path, the backchannel hook and counters.
 * rpcrdma_clnt_create (rpcbind for a port of 0) is in clnt_host.c, the
 * messages in clnt_msg.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <rpcrdma/config.h>
#include <rpcrdma/svc.h> /* the credential flavors and limits */

#include "clnt_int.h"
#include "gss/gss_int.h"
#include "util/byteorder.h"

void rpcrdma_clnt_opts_init(struct rpcrdma_clnt_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->timeout_ms = 25000;
	o->retrans_ms = 1000;
	o->connect_timeout_ms = 5000;
	o->reconnect_min_ms = 100;
	o->reconnect_max_ms = 2000;
	o->max_credits = 32;
	o->inline_size = 4096;
}

#ifdef RPCRDMA_HAVE_RDMA
#define RDMA_OPS (&rpcrdma__clnt_rdma_ops)
#else
#define RDMA_OPS NULL /* the rdma netids: -EPROTONOSUPPORT */
#endif

static const struct {
	const char *name;
	enum rpcrdma__clnt_kind kind;
	int family;
	const struct rpcrdma__clnt_xprt_ops *ops;
} netids[] = {
	{ "tcp", RPCRDMA__CLNT_TCP, AF_INET, &rpcrdma__clnt_tcp_ops },
	{ "tcp6", RPCRDMA__CLNT_TCP, AF_INET6, &rpcrdma__clnt_tcp_ops },
	{ "udp", RPCRDMA__CLNT_UDP, AF_INET, &rpcrdma__clnt_udp_ops },
	{ "udp6", RPCRDMA__CLNT_UDP, AF_INET6, &rpcrdma__clnt_udp_ops },
	{ "rdma", RPCRDMA__CLNT_RDMA, AF_INET, RDMA_OPS },
	{ "rdma6", RPCRDMA__CLNT_RDMA, AF_INET6, RDMA_OPS },
};

int rpcrdma_clnt_parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	const char *port = NULL, *end;
	size_t n;

	if (!text || !ss || !len)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (text[0] == '[') {
		end = strchr(text, ']');
		if (!end || (end[1] && end[1] != ':'))
			return -EINVAL;
		n = (size_t)(end - text - 1);
		text++;
		port = end[1] ? end + 2 : NULL;
	} else if (strchr(text, ':') && strchr(text, ':') == strrchr(text, ':')) {
		/* one colon: IPv4 HOST:PORT */
		end = strchr(text, ':');
		n = (size_t)(end - text);
		port = end + 1;
	} else if (strchr(text, '%') && strchr(strchr(text, '%'), ':')) {
		/* V6%IFNAME:PORT (an interface name has no colon) */
		end = strrchr(text, ':');
		n = (size_t)(end - text);
		port = end + 1;
	} else {
		n = strlen(text);
	}
	if (n == 0 || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, n);
	host[n] = 0;

	unsigned long p = 0;
	if (port) {
		char *e;

		if (!*port || *port == '-' || *port == '+')
			return -EINVAL;
		errno = 0;
		p = strtoul(port, &e, 10);
		if (*e || errno || p > 65535)
			return -EINVAL;
	}
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)p);
		*len = sizeof(*a4);
		return 0;
	}
	char *pct = strchr(host, '%');
	if (pct) {
		*pct++ = 0;
		a6->sin6_scope_id = if_nametoindex(pct);
		if (!a6->sin6_scope_id) {
			char *e;

			errno = 0;
			unsigned long idx = strtoul(pct, &e, 10);
			if (!*pct || *e || errno || idx == 0 || idx > UINT32_MAX)
				return -EINVAL;
			a6->sin6_scope_id = (uint32_t)idx;
		}
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1) {
		memset(ss, 0, sizeof(*ss));
		return -EINVAL;
	}
	a6->sin6_family = AF_INET6;
	a6->sin6_port = htons((uint16_t)p);
	*len = sizeof(*a6);
	return 0;
}

static int opts_copy(struct rpcrdma_clnt_opts *o, const struct rpcrdma_clnt_opts *u)
{
	rpcrdma_clnt_opts_init(o);
	if (!u)
		return 0;
	if (u->size < sizeof(u->size))
		return -EINVAL;
	memcpy(o, u, u->size < sizeof(*o) ? u->size : sizeof(*o));
	o->size = sizeof(*o);
	if (o->timeout_ms <= 0 || o->retrans_ms <= 0 || o->connect_timeout_ms <= 0 ||
	    o->reconnect_min_ms < 0 || o->reconnect_max_ms < o->reconnect_min_ms ||
	    o->reconnect_max_ms > 600000)
		return -EINVAL;
	return 0;
}

static int clnt_new(const char *netid, const struct sockaddr *addr, socklen_t addrlen,
		    struct rpcrdma_clnt **out)
{
	struct rpcrdma_clnt *c;
	size_t i;

	if (!netid || !addr || !out)
		return -EINVAL;
	for (i = 0; i < sizeof(netids) / sizeof(netids[0]); i++)
		if (!strcmp(netid, netids[i].name))
			break;
	if (i == sizeof(netids) / sizeof(netids[0]) || addr->sa_family != netids[i].family)
		return -EINVAL;
	if (addrlen < (addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
						  : sizeof(struct sockaddr_in6)) ||
	    addrlen > sizeof(struct sockaddr_storage))
		return -EINVAL;
	if (!netids[i].ops)
		return -EPROTONOSUPPORT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->kind = netids[i].kind;
	c->ops = netids[i].ops;
	c->netid = netids[i].name;
	memcpy(&c->addr, addr, addrlen);
	c->addrlen = addrlen;
	*out = c;
	return 0;
}

int rpcrdma__clnt_new(const char *netid, const struct sockaddr *addr, socklen_t addrlen,
		      uint32_t prog, uint32_t vers, const struct rpcrdma_clnt_opts *opts,
		      struct rpcrdma_clnt **out)
{
	struct rpcrdma_clnt *c;
	uint32_t seed;
	int err;

	if (!out)
		return -EINVAL;
	err = clnt_new(netid, addr, addrlen, &c);
	if (err)
		return err;
	err = opts_copy(&c->opts, opts);
	if (err) {
		free(c);
		return err;
	}
	c->prog = prog;
	c->vers = vers;
	pthread_mutex_init(&c->auth_lock, NULL);
	pthread_mutex_init(&c->bc_lock, NULL);
	rpcrdma_clnt_set_auth_none(c);
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint32_t)rpcrdma__clnt_now_ms() ^ (uint32_t)getpid() << 16;
	atomic_init(&c->xid, seed);
	*out = c;
	return 0;
}

void rpcrdma__clnt_free(struct rpcrdma_clnt *c)
{
	pthread_mutex_destroy(&c->bc_lock);
	pthread_mutex_destroy(&c->auth_lock);
	free(c);
}

int rpcrdma__clnt_start(struct rpcrdma_clnt *c)
{
	int err = c->ops->create(c);

	if (err)
		rpcrdma__clnt_free(c);
	return err;
}

void rpcrdma_clnt_destroy(struct rpcrdma_clnt *c)
{
	if (!c)
		return;
	rpcrdma__clnt_bc_set(c, NULL); /* no backward reply from here on */
	c->ops->destroy(c);
	rpcrdma__gss_clnt_free(c->gss);
	rpcrdma__clnt_free(c);
}

int rpcrdma_clnt_set_auth_none(struct rpcrdma_clnt *c)
{
	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->auth_lock);
	memset(c->cred, 0, 8);
	c->cred_len = 8;
	pthread_mutex_unlock(&c->auth_lock);
	return 0;
}

int rpcrdma_clnt_set_auth_sys(struct rpcrdma_clnt *c, const char *machinename, uint32_t uid,
			      uint32_t gid, uint32_t ngids, const uint32_t *gids)
{
	uint8_t body[RPCRDMA__CLNT_MAX_AUTH];
	struct rpcrdma_xdr_enc x;
	size_t n;

	if (!c || !machinename || ngids > RPCRDMA_AUTH_SYS_MAX_GIDS || (ngids && !gids))
		return -EINVAL;
	n = strlen(machinename);
	if (n > RPCRDMA_AUTH_SYS_MAX_MACHINENAME)
		return -EINVAL;
	rpcrdma_xdr_enc_init(&x, body, sizeof(body));
	/* 4 + 260 + 4 + 4 + 4 + 64 = 340 <= 400: every put fits */
	rpcrdma_xdr_put_u32(&x, (uint32_t)time(NULL));
	rpcrdma_xdr_put_opaque(&x, machinename, n);
	rpcrdma_xdr_put_u32(&x, uid);
	rpcrdma_xdr_put_u32(&x, gid);
	rpcrdma_xdr_put_u32(&x, ngids);
	for (uint32_t i = 0; i < ngids; i++)
		rpcrdma_xdr_put_u32(&x, gids[i]);
	n = rpcrdma_xdr_enc_len(&x);
	pthread_mutex_lock(&c->auth_lock);
	rpcrdma__put_be32(c->cred, RPCRDMA_AUTH_SYS);
	rpcrdma__put_be32(c->cred + 4, (uint32_t)n);
	memcpy(c->cred + 8, body, n);
	c->cred_len = 8 + n;
	pthread_mutex_unlock(&c->auth_lock);
	return 0;
}

int rpcrdma_clnt_call_async(struct rpcrdma_clnt *c, struct rpcrdma_clnt_req *req,
			    rpcrdma_clnt_done done, void *arg)
{
	struct rpcrdma__creq *r;
	int timeout, err;

	if (!c || !req || !done || req->size < offsetof(struct rpcrdma_clnt_req, vers_low) ||
	    (req->res_bulk_len && !req->res_bulk))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	rpcrdma__list_init(&r->node);
	r->req = req;
	r->done = done;
	r->arg = arg;
	r->xid = atomic_fetch_add_explicit(&c->xid, 1, memory_order_relaxed);
	req->xid = r->xid;
	req->reply_stat = req->accept_stat = req->auth_stat = 0;
	timeout = req->timeout_ms > 0 ? req->timeout_ms : c->opts.timeout_ms;
	r->timeout_ms = timeout;   /* the loop sets the deadline: one clock read a round */
	err = rpcrdma__clnt_loop_submit(c, r);
	if (err)
		free(r);
	return err;
}

struct sync_wait {
	pthread_mutex_t m;
	pthread_cond_t cv;
	bool done;
	int status;
};

static void sync_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct sync_wait *w = arg;

	(void)req;
	pthread_mutex_lock(&w->m);
	w->done = true;
	w->status = status;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->m);
}

int rpcrdma_clnt_call(struct rpcrdma_clnt *c, struct rpcrdma_clnt_req *req)
{
	struct sync_wait w = { .done = false };
	int err;

	pthread_mutex_init(&w.m, NULL);
	pthread_cond_init(&w.cv, NULL);
	err = rpcrdma_clnt_call_async(c, req, sync_done, &w);
	if (!err) {
		/* The loop always completes the call: by its reply, its
		 * deadline, a broken connection or the client's end. */
		pthread_mutex_lock(&w.m);
		while (!w.done)
			pthread_cond_wait(&w.cv, &w.m);
		err = w.status;
		pthread_mutex_unlock(&w.m);
	}
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.m);
	return err;
}

int rpcrdma_clnt_set_backchannel(struct rpcrdma_clnt *c, struct rpcrdma_svc *svc)
{
	if (!c)
		return -EINVAL;
	if (!c->ops->bc_reply)
		return -EOPNOTSUPP;
	return rpcrdma__clnt_bc_set(c, svc);
}

const char *rpcrdma_clnt_netid(const struct rpcrdma_clnt *c)
{
	return c ? c->netid : "";
}

void rpcrdma_clnt_stats(const struct rpcrdma_clnt *c, struct rpcrdma_stats *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	if (c->ops->stats) {
		c->ops->stats(c, out);
		return;
	}
	for (unsigned i = 0; i < RPCRDMA_STAT_COUNT; i++)
		out->v[i] = atomic_load_explicit(&c->stats[i], memory_order_relaxed);
}
