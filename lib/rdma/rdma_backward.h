/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server's backward direction over RPC-over-RDMA, RFC 8167
 * (rdma_backward.c; the rules are at its top): what the listener,
 * connection and receive code call.  Not installed.
 *
 * A connection of the service keeps RPCRDMA__BC_RECVS receives beyond its
 * grant for the replies to its backward calls, and so has at most that
 * many in flight (Linux's nfsd keeps 2 as well): the directions never take
 * each other's receives.
 */
#ifndef RPCRDMA_RDMA_BACKWARD_H
#define RPCRDMA_RDMA_BACKWARD_H

#include "rdma_internal.h"

/* rpcrdma_listener_create with bc_recvs receives kept per connection for
 * backward replies (rpcrdma_svc_listen_rdma: RPCRDMA__BC_RECVS), and the
 * connections' queue pairs spread over spread[0, nspread) (at most
 * RPCRDMA__SPREAD_MAX pollers, each outliving the listener; nspread 0:
 * poller's CQs): each new connection takes the CQ of the poller with the
 * fewest connections, ties in turn, and keeps it, so its completions (and
 * calls) are handled by whoever polls that poller.  poller keeps the
 * listener's own sources (connection events, timers, budget, backward
 * posts).  rpcrdma__listener_spread_conns: a spread poller's connections
 * now (any thread). */
int rpcrdma__listener_create(struct rpcrdma_poller *poller, const struct sockaddr *addr,
			     const struct rpcrdma_listener_opts *uopts, rpcrdma_call_handler handler,
			     void *handler_arg, unsigned bc_recvs,
			     struct rpcrdma_poller *const *spread, unsigned nspread,
			     struct rpcrdma_listener **out);
unsigned rpcrdma__listener_spread_conns(struct rpcrdma_listener *l, unsigned i);
/* Listener create / destroy (after shutdown): the poster source. */
int rpcrdma__bc_listener_start(struct rpcrdma_listener *l);
void rpcrdma__bc_listener_stop(struct rpcrdma_listener *l);
/* Receive completion (poller thread): true when the message was the reply
 * to a backward call (RDMA_MSG, RPC REPLY), handled and its receive
 * reposted; false: a call, as before. */
bool rpcrdma__bc_recv(struct rpcrdma_call *call);
/* What the layer above does with a connection's backward direction
 * (svc_rdma_backward.c); upper is what its make returned.  reply: a
 * received RPC REPLY (msg lives until it returns), poller thread; down:
 * the connection closes, no lock held; release: it is freed. */
struct rpcrdma__bc_upcalls {
	void (*reply)(void *upper, const uint8_t *msg, size_t len);
	void (*down)(void *upper, int err);
	void (*release)(void *upper);
};
/* The backward state of conn, made on first use with make(b, down, arg)
 * (conn->lock held; down: the connection is closing already) and kept
 * until the connection is freed: what make returned, or NULL for a
 * listener without bc_recvs, out of memory, or make's NULL. */
void *rpcrdma__bc_attach(struct rpcrdma__conn *conn, const struct rpcrdma__bc_upcalls *up,
			 void *(*make)(struct rpcrdma__rdma_bc *b, bool down, void *arg), void *arg);
/* Sends one backward RPC call on b's connection (priv: b), any thread:
 * block[RPCRDMA_HDRLEN_MIN ..] holds the len bytes of the message; block
 * is the caller's malloc()ed and freed here, also on failure.  0, or
 * -EMSGSIZE (larger than inline), -EAGAIN (no backward credit). */
int rpcrdma__bc_send(void *priv, uint8_t *block, size_t len);
/* The connection closes (no lock held) / is freed. */
void rpcrdma__bc_conn_close(struct rpcrdma__conn *conn);
void rpcrdma__bc_conn_free(struct rpcrdma__conn *conn);
/* Receives of conn: its grant and its backward ones. */
static inline uint32_t rpcrdma__conn_recvs(const struct rpcrdma__conn *conn, uint32_t grant)
{
	return grant + conn->bc_recvs;
}

#endif /* RPCRDMA_RDMA_BACKWARD_H */
