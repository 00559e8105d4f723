/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP transport, the bottom of it: a connection's memory accounting, its
 * calls' release, its last reference, and the epoll watch its state asks
 * for.  The rules are at the top of svc_tcp.c; the order of the TCP files
 * is in svc_tcp_int.h.  This file calls no other TCP file.
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "svc_tcp_int.h"

/* Memory accounting (see the top of svc_tcp.c). */
void rpcrdma__tcp_charge(struct rpcrdma_svc *svc, size_t n)
{
	atomic_fetch_add(&svc->tcp_bytes, n);
}

void rpcrdma__tcp_uncharge(struct rpcrdma_svc *svc, size_t n)
{
	if (!n)
		return;
	atomic_fetch_sub(&svc->tcp_bytes, n);
	if (atomic_load(&svc->tcp_mem_waiters)) {
		uint64_t one = 1;
		if (write(svc->loops[0].wake.fd, &one, sizeof(one)) < 0) {
			/* the counter is far from overflowing; ignore */
		}
	}
}

/* Whether the record buffer of c, rec_cap bytes now, may grow by add. */
bool rpcrdma__tcp_mem_fits(const struct rpcrdma__svc_tcp_conn *c, size_t rec_cap, size_t add)
{
	const struct rpcrdma_svc_opts *o = &c->svc->opts;
	size_t held = atomic_load(&c->held);
	if (held && (rec_cap + held > o->max_conn_bytes ||
		     add > o->max_conn_bytes - rec_cap - held))
		return false;
	size_t all = atomic_load(&c->svc->tcp_bytes);
	return all <= o->max_svc_bytes && add <= o->max_svc_bytes - all;
}

static void call_uncharge(struct tcp_call *tc)
{
	size_t n = tc->req_charge + tc->rep_charge;
	tc->req_charge = tc->rep_charge = 0;
	if (!n)
		return;
	atomic_fetch_sub(&tc->conn->held, n);
	rpcrdma__tcp_uncharge(tc->conn->svc, n);
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
	rpcrdma__svc_bc_release(&c->bc);
	free(c->rec);
	rpcrdma__tcp_uncharge(svc, c->rec_cap);
	free(c->stash);
	rpcrdma__tcp_uncharge(svc, c->in_held);
	pthread_mutex_destroy(&c->lock);
	struct rpcrdma__svc_xprt *x = c->xprt;
	free(c);
	rpcrdma__svc_xprt_destroy(x); /* last touch of svc */
}

void rpcrdma__tcp_conn_put(struct rpcrdma__svc_tcp_conn *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		conn_free(c);
}

void rpcrdma__tcp_call_free(struct tcp_call *tc)
{
	call_uncharge(tc);
	free(tc->iov.iov_base);
	free(tc->base);
	free(tc);
}

/* Under conn->lock: whether a stopped connection may read again. */
static bool may_read(const struct rpcrdma__svc_tcp_conn *c)
{
	return !rpcrdma__svc_xprt_busy(c->xprt) &&
	       (!c->want || rpcrdma__tcp_mem_fits(c, c->want_cap, c->want));
}

/* Under conn->lock: leaves the service's list of parked connections. */
void rpcrdma__tcp_mem_wait_end(struct rpcrdma__svc_tcp_conn *c)
{
	c->want = 0;
	if (c->mem_wait) {
		c->mem_wait = false;
		atomic_fetch_sub(&c->svc->tcp_mem_waiters, 1);
	}
}

/* Under conn->lock: watch what the state asks for. */
void rpcrdma__tcp_update_watch(struct rpcrdma__svc_tcp_conn *c)
{
	if (c->dead)
		return;
	if (!c->reading && may_read(c)) {
		c->reading = true;
		rpcrdma__tcp_mem_wait_end(c);
	}
	bool out = (c->sq_head && !c->in_pass) || (c->reading && c->kick);
	uint32_t ev = (c->reading ? EPOLLIN : 0) | (out ? EPOLLOUT : 0);
	if (ev != c->armed && rpcrdma__svc_loop_rewatch(c->loop, &c->src, ev) == 0)
		c->armed = ev;
}
