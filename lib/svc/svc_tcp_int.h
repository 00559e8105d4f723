/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP transport internals shared by svc_tcp.c (connections, record
 * marking, memory) and svc_tcp_listen.c (listeners and the connection
 * limits).  Not installed.  The rules are at the top of svc_tcp.c.
 *
 * The files, in layers from the bottom; each calls only the files below
 * it, never up (tests/call-layers.sh checks there is no circle):
 *   svc_tcp_conn.c    a connection's memory, its calls' release, its last
 *                     reference, its epoll watch
 *   svc_tcp_read.c    record marking read and delivered to the core
 *   svc_tcp.c         the replies' queue, close, the ops, a loop's pass
 *                     over a connection, adding one
 *   svc_tcp_listen.c  listeners, the connection limits, the class
 */
#ifndef RPCRDMA_SVC_TCP_INT_H
#define RPCRDMA_SVC_TCP_INT_H

#include <sys/socket.h>

#include "svc_backward.h"
#include "svc_int.h"

/* The transport's per-call context (a call or a backward call). */
struct tcp_call {
	struct tcp_call *next;
	struct rpcrdma__svc_tcp_conn *conn;
	struct iovec iov; /* the record */
	uint8_t *base;    /* record mark + reply */
	size_t len;
	size_t req_charge, rep_charge; /* in conn->held and svc->tcp_bytes */
	bool backward;    /* a call to the client (svc_backward.c): no slot */
};

struct rpcrdma__svc_tcp_conn {
	struct rpcrdma__svc_source src;
	struct rpcrdma_svc *svc;
	struct rpcrdma__svc_loop *loop; /* the loop it joined at accept, for good */
	struct rpcrdma__svc_xprt *xprt;
	struct rpcrdma__svc_tcp_conn *next, **pprev; /* svc->conns, svc->lock */
	struct rpcrdma__svc_tcp_conn *kill_next;     /* destroy's / sweep's / reap list */
	atomic_int refs;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	struct rpcrdma__svc_bc_slot bc; /* calls to the client (svc_backward.c) */
	const char *why;            /* loop thread: why it must close (log) */
	int why_err;                /* ... and the errno, negative, or 0 */

	/* loop thread only */

	uint8_t hdr[4];
	size_t hdr_got;
	uint32_t frag_len, frag_got;
	uint32_t nfrags, empty_run; /* of the record being read */
	bool last;
	uint8_t *rec;
	size_t rec_len, rec_cap;    /* rec_cap is charged */
	/* Bytes read past the records a pass could take (svc_tcp.c, "Batching"):
	 * stash[stash_off..+stash_len); in_held bytes of input charged. */
	uint8_t *stash;
	size_t stash_off, stash_len, in_held;
	bool not_reading;           /* the last record start was refused */

	/* ms, CLOCK_MONOTONIC: last event; written by its loop, read by
	 * loops[0] too (make_room) */
	_Atomic uint64_t last_active;

	/* bytes charged for calls in progress and queued replies */
	atomic_size_t held;

	/* conn->lock */
	pthread_mutex_t lock;
	bool dead;
	bool evicted;               /* on its loop's reap list (make_room) */
	bool reading;
	bool mem_wait;              /* counted in svc->tcp_mem_waiters */
	size_t want, want_cap;      /* parked: growth wanted, rec_cap then */
	bool in_pass;               /* its loop is serving it: replies wait for the pass's end */
	bool kick;                  /* bytes stashed: watch EPOLLOUT to come back */
	uint32_t armed;
	struct tcp_call *sq_head, **sq_tail;
	size_t sq_off;
};

/* ms, CLOCK_MONOTONIC */
uint64_t rpcrdma__tcp_now_ms(void);
/* Puts a connected, non-blocking stream socket on the loop.  On failure
 * the fd is left open for the caller.  0 or -errno. */
int rpcrdma__tcp_conn_add(struct rpcrdma_svc *svc, int fd, const char *netid,
			  const struct sockaddr_storage *local, socklen_t local_len,
			  const struct sockaddr_storage *peer, socklen_t plen);
/* Its loop's thread (or destroy): closes c but keeps the loop's reference;
 * false if it was closed already. */
bool rpcrdma__tcp_conn_close(struct rpcrdma__svc_tcp_conn *c, const char *why);
/* Closes c and drops the loop's reference.  Idempotent. */
void rpcrdma__tcp_conn_kill(struct rpcrdma__svc_tcp_conn *c, const char *why);
/* Drops a reference; the last frees c (svc_tcp_conn.c). */
void rpcrdma__tcp_conn_put(struct rpcrdma__svc_tcp_conn *c);
/* Releases tc's charges and frees it (not its connection's reference). */
void rpcrdma__tcp_call_free(struct tcp_call *tc);
/* Under c->lock: re-arms epoll for what the state asks for. */
void rpcrdma__tcp_update_watch(struct rpcrdma__svc_tcp_conn *c);
/* Under c->lock: c leaves the service's connections parked for memory. */
void rpcrdma__tcp_mem_wait_end(struct rpcrdma__svc_tcp_conn *c);
/* Memory accounting (svc_tcp_conn.c): charges / releases n bytes of the
 * service's TCP buffers (a release wakes connections parked for memory);
 * whether c's own buffers, own bytes now, may grow by add under the caps. */
void rpcrdma__tcp_charge(struct rpcrdma_svc *svc, size_t n);
void rpcrdma__tcp_uncharge(struct rpcrdma_svc *svc, size_t n);
bool rpcrdma__tcp_mem_fits(const struct rpcrdma__svc_tcp_conn *c, size_t own, size_t add);
/* Loop thread (svc_tcp_read.c): hands the record just read to the core;
 * false: close. */
bool rpcrdma__tcp_deliver(struct rpcrdma__svc_tcp_conn *c);
/* Loop thread (svc_tcp_read.c): one pass's input -- the stashed bytes,
 * then reads -- delivering at most *records records.  false: the
 * connection must close (c->why says why). */
bool rpcrdma__tcp_conn_input(struct rpcrdma__svc_tcp_conn *c, uint32_t events, int *records);

#endif /* RPCRDMA_SVC_TCP_INT_H */
