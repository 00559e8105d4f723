/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers of the RPC client's tests (header-only, test code): the client
 * test program served by the library's service on loopback, and clients
 * made to it.
 */
#ifndef CLNT_UTIL_H
#define CLNT_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <cmocka.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/svc.h>

#include "clnt_testprog.h"

struct ct_server {
	struct rpcrdma_svc *svc;
	uint16_t tcp_port, udp_port;
	uint16_t tcp6_port, udp6_port;   /* 0 when ::1 is not there */
};

static inline void ct_server_start(struct ct_server *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_storage b;

	memset(s, 0, sizeof(*s));
	assert_int_equal(rpcrdma_svc_create(NULL, &s->svc), 0);
	assert_int_equal(rpcrdma_svc_register(s->svc, &ct_program), 0);
	assert_int_equal(rpcrdma_svc_listen_tcp(s->svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	s->tcp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	assert_int_equal(rpcrdma_svc_listen_udp(s->svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	s->udp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	if (rpcrdma_svc_listen_tcp(s->svc, (struct sockaddr *)&a6, sizeof(a6), &b, NULL) == 0)
		s->tcp6_port = ntohs(((struct sockaddr_in6 *)&b)->sin6_port);
	if (rpcrdma_svc_listen_udp(s->svc, (struct sockaddr *)&a6, sizeof(a6), &b, NULL) == 0)
		s->udp6_port = ntohs(((struct sockaddr_in6 *)&b)->sin6_port);
	assert_int_equal(rpcrdma_svc_start(s->svc), 0);
}

static inline void ct_server_stop(struct ct_server *s)
{
	rpcrdma_svc_destroy(s->svc);
}

/* A client of netid to 127.0.0.1 (or ::1 for the *6 netids) port. */
static inline int ct_client(const char *netid, uint16_t port, uint32_t prog, uint32_t vers,
			    const struct rpcrdma_clnt_opts *o, struct rpcrdma_clnt **c)
{
	char text[64];
	struct sockaddr_storage ss;
	socklen_t len;

	if (strchr(netid, '6'))
		snprintf(text, sizeof(text), "[::1]:%u", port);
	else
		snprintf(text, sizeof(text), "127.0.0.1:%u", port);
	assert_int_equal(rpcrdma_clnt_parse_addr(text, &ss, &len), 0);
	return rpcrdma_clnt_create(netid, (struct sockaddr *)&ss, len, prog, vers, o, c);
}

/* Results of a BULK call. */
struct ct_bulk_res {
	const void *p;
	uint32_t len;
	uint32_t sum;          /* ct_sum of the data */
	uint8_t copy[8192];
};

static inline uint32_t ct_sum(const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static inline int ct_enc_bulk_arg(struct rpcrdma_xdr_enc *e, const void *a)
{
	const struct ct_blob *b = (const struct ct_blob *)a;

	return rpcrdma_clnt_put_bulk(e, b->p, b->len);
}

static inline int ct_dec_bulk_res(struct rpcrdma_xdr_dec *d, void *r)
{
	struct ct_bulk_res *res = (struct ct_bulk_res *)r;
	int err = rpcrdma_clnt_get_bulk(d, &res->p, &res->len, CT_BULK_MAX);

	if (!err && res->len && res->len <= sizeof(res->copy))
		memcpy(res->copy, res->p, res->len);
	if (!err)
		res->sum = ct_sum(res->p, res->len);
	return err;
}

static inline int ct_dec_who(struct rpcrdma_xdr_dec *d, void *r)
{
	struct ct_who *w = (struct ct_who *)r;

	return rpcrdma_xdr_get_u32(d, &w->flavor) || rpcrdma_xdr_get_u32(d, &w->uid) ||
	       rpcrdma_xdr_get_u32(d, &w->gid) || rpcrdma_xdr_get_u32(d, &w->ngids) ||
	       rpcrdma_xdr_get_string(d, w->name, sizeof(w->name), 255);
}

static inline void ct_req(struct rpcrdma_clnt_req *r, uint32_t proc)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->proc = proc;
	r->res_max = 4096;
}

/* Counts completions of asynchronous calls. */
struct ct_waiter {
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned done, ok;
	int last;
};

static inline void ct_waiter_init(struct ct_waiter *w)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->m, NULL);
	pthread_cond_init(&w->cv, NULL);
}

static inline void ct_waiter_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct ct_waiter *w = (struct ct_waiter *)arg;

	(void)req;
	pthread_mutex_lock(&w->m);
	w->done++;
	w->ok += status == 0;
	w->last = status;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->m);
}

static inline void ct_waiter_wait(struct ct_waiter *w, unsigned n)
{
	pthread_mutex_lock(&w->m);
	while (w->done < n)
		pthread_cond_wait(&w->cv, &w->m);
	pthread_mutex_unlock(&w->m);
}

static inline uint64_t ct_stat(struct rpcrdma_clnt *c, enum rpcrdma_stat s)
{
	struct rpcrdma_stats st;

	rpcrdma_clnt_stats(c, &st);
	return st.v[s];
}

#endif
