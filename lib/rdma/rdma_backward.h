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
 * backward replies (rpcrdma_svc_listen_rdma: RPCRDMA__BC_RECVS). */
int rpcrdma__listener_create(struct rpcrdma_poller *poller, const struct sockaddr *addr,
			     const struct rpcrdma_listener_opts *uopts, rpcrdma_call_handler handler,
			     void *handler_arg, unsigned bc_recvs, struct rpcrdma_listener **out);
/* Listener create / destroy (after shutdown): the poster source. */
int rpcrdma__bc_listener_start(struct rpcrdma_listener *l);
void rpcrdma__bc_listener_stop(struct rpcrdma_listener *l);
/* Receive completion (poller thread): true when the message was the reply
 * to a backward call (RDMA_MSG, RPC REPLY), handled and its receive
 * reposted; false: a call, as before. */
bool rpcrdma__bc_recv(struct rpcrdma_call *call);
/* The service's backward slot of conn (svc_backward.h), made on first
 * use; NULL for a listener without bc_recvs, or out of memory. */
struct rpcrdma_svc;
struct rpcrdma__svc_bc_slot;
struct rpcrdma__svc_bc_slot *rpcrdma__bc_slot(struct rpcrdma__conn *conn,
					      struct rpcrdma_svc *svc, const char *netid);
/* The connection closes (no lock held) / is freed. */
void rpcrdma__bc_conn_close(struct rpcrdma__conn *conn);
void rpcrdma__bc_conn_free(struct rpcrdma__conn *conn);
/* Receives of conn: its grant and its backward ones. */
static inline uint32_t rpcrdma__conn_recvs(const struct rpcrdma__conn *conn, uint32_t grant)
{
	return grant + conn->bc_recvs;
}

#endif /* RPCRDMA_RDMA_BACKWARD_H */
