/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP transport, the reading side: record marking (RFC 5531 section 11)
 * parsed from the bytes one read takes, the record buffer and its memory,
 * the bytes stashed between passes, each record handed to the core.  The
 * rules are at the top of svc_tcp.c; everything here runs on the
 * connection's loop thread.  It calls svc_tcp_conn.c, never svc_tcp.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "svc_tcp_int.h"

#define RECV_MIN 4096u      /* first record buffer, unless less is needed */
#define IN_MAX 65536u       /* bytes one read takes into the loop's buffer */
#define READ_BUDGET 16      /* read() calls per connection per loop pass */
#define MAX_FRAGS 1024u     /* fragments in one record */
#define MAX_EMPTY_RUN 16u   /* empty non-last fragments in a row */

/*
 * Loop thread: makes room in the record buffer for more of the fragment,
 * doubling it (RECV_MIN at first) up to what the fragment still needs.
 * 1: grown; 0: the caps say no, the connection is parked (see the top);
 * -1: out of memory (the connection closes).
 */
static int rec_grow(struct rpcrdma__svc_tcp_conn *c)
{
	size_t need = c->rec_len + (c->frag_len - c->frag_got);
	size_t cap = c->rec_cap ? 2 * c->rec_cap : RECV_MIN;
	if (cap > need)
		cap = need;
	size_t add = cap - c->rec_cap;
	if (!rpcrdma__tcp_mem_fits(c, c->rec_cap + c->in_held, add))
		goto out_park;
	uint8_t *r = realloc(c->rec, cap);
	if (!r) {
		c->why = "out of memory";
		c->why_err = -ENOMEM;
		return -1;
	}
	rpcrdma__tcp_charge(c->svc, add);
	c->rec = r;
	c->rec_cap = cap;
	return 1;
out_park:
	pthread_mutex_lock(&c->lock);
	RPCRDMA__STAT_INC(c->svc, mem_pauses);
	c->reading = false;
	c->want = add;
	c->want_cap = c->rec_cap;
	/* Counted before update_watch checks again: a release from then on
	 * sees the waiter and wakes the loop. */
	c->mem_wait = true;
	atomic_fetch_add(&c->svc->tcp_mem_waiters, 1);
	rpcrdma__tcp_update_watch(c);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* A fragment header has arrived: checks it against the record's limits.
 * false: the connection must close. */
static bool frag_start(struct rpcrdma__svc_tcp_conn *c)
{
	uint32_t w = rpcrdma__get_be32(c->hdr);
	c->last = w >> 31;
	c->frag_len = w & 0x7fffffffu;
	c->frag_got = 0;
	if (c->frag_len > c->svc->opts.max_record - c->rec_len) {
		RPCRDMA__STAT_INC(c->svc, record_too_big);
		c->why = "record larger than max_record";
		return false;
	}
	c->empty_run = c->frag_len || c->last ? 0 : c->empty_run + 1;
	if (++c->nfrags > MAX_FRAGS || c->empty_run > MAX_EMPTY_RUN) {
		RPCRDMA__STAT_INC(c->svc, protocol_errors);
		c->why = "record breaks the fragment rules";
		return false;
	}
	return true;
}

/*
 * Under conn->lock: false when the connection may not read now (all slots
 * taken, or parked for memory); then it stops watching EPOLLIN.
 */
static bool reading_allowed(struct rpcrdma__svc_tcp_conn *c)
{
	if (c->dead || (c->reading && !rpcrdma__svc_xprt_busy(c->xprt)))
		return true;
	if (c->reading)
		RPCRDMA__STAT_INC(c->svc, read_pauses);
	c->reading = false;
	rpcrdma__tcp_update_watch(c);
	return false;
}

/* Loop thread: whether a new record may start now: 1 yes; 0 the pass's
 * budget is spent; -1 the connection may not read (reading_allowed). */
static int may_start(struct rpcrdma__svc_tcp_conn *c, const int *records)
{
	if (*records <= 0)
		return 0;
	pthread_mutex_lock(&c->lock);
	bool ok = reading_allowed(c);
	pthread_mutex_unlock(&c->lock);
	c->not_reading = !ok;
	return ok ? 1 : -1;
}

/* Hands the record just read to the core.  false: close the connection. */
bool rpcrdma__tcp_deliver(struct rpcrdma__svc_tcp_conn *c)
{
	if (rpcrdma__rpc_is_reply(c->rec, c->rec_len)) {
		/* the reply to a backward call: decoded here, on the loop */
		rpcrdma__svc_bc_reply(&c->bc, c->rec, c->rec_len, true);
		free(c->rec);
		rpcrdma__tcp_uncharge(c->svc, c->rec_cap);
		c->rec = NULL;
		c->rec_len = c->rec_cap = 0;
		return true;
	}
	struct tcp_call *tc = calloc(1, sizeof(*tc));
	if (!tc) {
		c->why = "out of memory";
		c->why_err = -ENOMEM;
		return false;
	}
	tc->conn = c;
	tc->iov.iov_base = c->rec;
	tc->iov.iov_len = c->rec_len;
	/* the record's charge moves from the read state to the call */
	tc->req_charge = c->rec_cap;
	atomic_fetch_add(&c->held, c->rec_cap);
	c->rec = NULL;
	c->rec_len = c->rec_cap = 0;
	atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	/* Counted before: the reply may reach the client before recv returns. */
	atomic_fetch_add_explicit(&c->loop->calls, 1, memory_order_relaxed);
	if (rpcrdma__svc_xprt_recv(c->xprt, &tc->iov, 1, (struct sockaddr *)&c->peer,
				  c->peer_len, tc) != 0) {
		atomic_fetch_sub_explicit(&c->loop->calls, 1, memory_order_relaxed);
		rpcrdma__tcp_call_free(tc);
		rpcrdma__tcp_conn_put(c);
	}
	return true;
}

/*
 * Loop thread: takes the bytes p[0..n) into the record being read and
 * delivers each record as it completes (n may be 0: a fragment read
 * straight into the record buffer may have completed one).  Returns the
 * bytes taken -- fewer than n when a record may not start now or the
 * connection parks for memory -- or -1: the connection must close.
 */
static ssize_t consume(struct rpcrdma__svc_tcp_conn *c, const uint8_t *p, size_t n,
		       int *records)
{
	size_t used = 0, k;
	for (;;) {
		if (c->hdr_got < 4) {
			if (used == n ||
			    (c->hdr_got == 0 && c->nfrags == 0 && may_start(c, records) <= 0))
				return (ssize_t)used;
			k = 4 - c->hdr_got < n - used ? 4 - c->hdr_got : n - used;
			memcpy(c->hdr + c->hdr_got, p + used, k);
			c->hdr_got += k;
			used += k;
			if (c->hdr_got < 4)
				return (ssize_t)used;
			if (!frag_start(c))
				return -1;
		}
		while (c->frag_got < c->frag_len) {
			if (used == n)
				return (ssize_t)used;
			int g = c->rec_len == c->rec_cap ? rec_grow(c) : 1;
			if (g <= 0)
				return g < 0 ? -1 : (ssize_t)used;
			k = c->rec_cap - c->rec_len;
			if (k > c->frag_len - c->frag_got)
				k = c->frag_len - c->frag_got;
			if (k > n - used)
				k = n - used;
			memcpy(c->rec + c->rec_len, p + used, k);
			c->frag_got += (uint32_t)k;
			c->rec_len += k;
			used += k;
		}
		c->hdr_got = 0;
		if (c->last) {
			c->nfrags = c->empty_run = 0;
			(*records)--;
			if (!rpcrdma__tcp_deliver(c))
				return -1;
		}
	}
}

/* Loop thread: how many bytes the next read may take: IN_MAX, or what the
 * memory caps leave counting all of it as held (a connection holding
 * nothing but its record may read RECV_MIN past its own cap, as rec_grow
 * lets its record grow); 0: none, the connection parks. */
static size_t read_room(struct rpcrdma__svc_tcp_conn *c)
{
	const struct rpcrdma_svc_opts *o = &c->svc->opts;
	size_t room = IN_MAX, held = atomic_load(&c->held);
	size_t all = atomic_load(&c->svc->tcp_bytes), own = c->rec_cap + c->in_held + held;
	if (own >= o->max_conn_bytes)
		room = held ? 0 : RECV_MIN;
	else if (o->max_conn_bytes - own < room)
		room = o->max_conn_bytes - own;
	if (all >= o->max_svc_bytes)
		room = 0;
	else if (o->max_svc_bytes - all < room)
		room = o->max_svc_bytes - all;
	if (room)
		return room;
	pthread_mutex_lock(&c->lock);
	RPCRDMA__STAT_INC(c->svc, mem_pauses);
	c->reading = false;
	c->want = 1;
	c->want_cap = c->rec_cap + c->in_held;
	c->mem_wait = true;
	atomic_fetch_add(&c->svc->tcp_mem_waiters, 1);
	rpcrdma__tcp_update_watch(c);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* Loop thread: n bytes read into buf (the loop's buffer, charged as
 * c->in_held) are parsed; what is left is stashed.  false: close. */
static bool take_input(struct rpcrdma__svc_tcp_conn *c, const uint8_t *buf, size_t n,
		       int *records)
{
	ssize_t k = consume(c, buf, n, records);
	size_t left = k < 0 ? 0 : n - (size_t)k;
	if (left) {
		c->stash = malloc(left);
		if (!c->stash) {
			k = -1;
			c->why = "out of memory";
			c->why_err = -ENOMEM;
			left = 0;
		} else {
			memcpy(c->stash, buf + k, left);
			c->stash_off = 0;
			c->stash_len = left;
		}
	}
	rpcrdma__tcp_uncharge(c->svc, c->in_held - left);
	c->in_held = left;
	return k >= 0;
}

/* Loop thread: the stashed bytes first.  false: close. */
static bool take_stash(struct rpcrdma__svc_tcp_conn *c, int *records)
{
	ssize_t k = consume(c, c->stash + c->stash_off, c->stash_len, records);
	if (k < 0)
		return false;
	c->stash_off += (size_t)k;
	c->stash_len -= (size_t)k;
	if (c->stash_len)
		return true;
	free(c->stash);
	c->stash = NULL;
	c->stash_off = 0;
	rpcrdma__tcp_uncharge(c->svc, c->in_held);
	c->in_held = 0;
	return true;
}

/* Loop thread: reads a fragment of IN_MAX bytes or more still to come
 * straight into the record buffer.  1: read all it asked; 0: stop; -1:
 * close; -2: the read's result in *n says why to stop or close. */
static int read_direct(struct rpcrdma__svc_tcp_conn *c, int *records, ssize_t *n)
{
	int g = c->rec_len == c->rec_cap ? rec_grow(c) : 1;
	if (g <= 0)
		return g;
	size_t room = c->rec_cap - c->rec_len, left = c->frag_len - c->frag_got;
	if (room > left)
		room = left;
	*n = read(c->src.fd, c->rec + c->rec_len, room);
	if (*n <= 0)
		return -2;
	c->frag_got += (uint32_t)*n;
	c->rec_len += (size_t)*n;
	if (consume(c, NULL, 0, records) < 0)
		return -1;
	return (size_t)*n == room;
}

/*
 * Loop thread: one pass's input: the stash, then reads while the socket
 * gives a full read's worth.  false: the connection must close (c->why).
 */
bool rpcrdma__tcp_conn_input(struct rpcrdma__svc_tcp_conn *c, uint32_t events, int *records)
{
	bool hup = events & (EPOLLHUP | EPOLLERR);
	ssize_t n;
	if (c->stash_len && (!take_stash(c, records) || c->stash_len))
		goto out_stopped;
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return true;
	for (int reads = READ_BUDGET; reads > 0; reads--) {
		if (c->hdr_got == 0 && c->nfrags == 0 && may_start(c, records) <= 0)
			goto out_stopped;
		if (c->hdr_got == 4 && c->frag_len - c->frag_got >= IN_MAX) {
			int r = read_direct(c, records, &n);
			if (r == -2)
				goto out_read;
			if (r <= 0)
				return r == 0;
			continue;
		}
		size_t room = read_room(c);
		if (!room)
			return true;
		if (!c->loop->tcp_in && !(c->loop->tcp_in = malloc(IN_MAX)))
			goto out_nomem;
		n = read(c->src.fd, c->loop->tcp_in, room);
		if (n <= 0)
			goto out_read;
		c->in_held = (size_t)n;
		rpcrdma__tcp_charge(c->svc, (size_t)n);
		if (!take_input(c, c->loop->tcp_in, (size_t)n, records))
			return false;
		if (c->stash_len)
			goto out_stopped;
		if ((size_t)n < room)
			return true; /* drained */
	}
	return true;
out_stopped:
	if (c->why)
		return false;
	/* Not reading: a hang-up would fire forever; close now. */
	if (hup && c->not_reading) {
		c->why = "hang-up while not reading";
		return false;
	}
	return true;
out_nomem:
	c->why = "out of memory";
	c->why_err = -ENOMEM;
	return false;
out_read:
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return true;
	c->why = n == 0 ? "end of file from the peer" : "read error";
	c->why_err = n == 0 ? 0 : -errno;
	return false;
}
