/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The service core's transport plug (not installed): how the TCP, UDP and
 * RDMA transports hand calls to the core.  Internal to lib/; the white-box
 * tests reach it through the uninstalled static archive.
 */
#ifndef RPCRDMA_SVC_XPRT_H
#define RPCRDMA_SVC_XPRT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rpcrdma/svc.h>

struct rpcrdma__svc_xprt;
struct rpcrdma__svc_loop;   /* svc_int.h */
struct rpcrdma__svc_bc_slot; /* svc_backward.h */

/* The transport's per-call context (RDMA: the chunk lists of the call). */
void *rpcrdma__svc_call_xprt_ctx(const struct rpcrdma_svc_call *call);

/*
 * The transport contract (TCP and UDP here; RDMA plugs in the same way).
 *
 * A transport creates a struct rpcrdma__svc_xprt per connection (or per
 * socket for datagrams) and hands each received call to
 * rpcrdma__svc_xprt_recv() with its own per-call context.  For that call the
 * core then calls, in order, on any thread:
 *   ops->reply_buf(priv, call_ctx, max)  once, unless the call is dropped
 *       before a reply is possible: returns a buffer of at least max bytes
 *       (the RPC reply header plus the procedure's estimate) into which the
 *       core will encode the reply, or NULL (the call is then dropped).
 *       The RDMA transport decides here between an inline reply (max fits
 *       its inline threshold) and a reply chunk.
 *   ops->done(priv, call_ctx, buf, len)  exactly once: the core has
 *       finished with the call; if len > 0, buf[0..len-1] is the encoded
 *       reply (len <= max) to send; if len == 0, nothing is sent.  The
 *       transport owns buf and call_ctx from here on (buf may be NULL when
 *       reply_buf was not called or failed).  The core touches neither the
 *       call nor the xprt after done() returns.
 * The call occupies one of the xprt's slots (opts.max_calls) from the
 * successful rpcrdma__svc_xprt_recv() until the transport calls
 * rpcrdma__svc_xprt_complete() -- at the earliest inside done(), or later
 * once the reply has left (TCP: fully written; RDMA: send completed).
 *
 * The RDMA transport, in these terms: after checking the transport header
 * (and pulling any position-zero read chunk into a buffer, so the RPC header
 * is contiguous), it calls rpcrdma__svc_xprt_recv() with the RPC message as
 * iov[] and its receive context -- holding the parsed read list, write list
 * and reply chunk -- as call_ctx.  reply_buf(max) tells it the reply bound
 * before the handler runs: if max fits its inline threshold it returns a
 * send buffer, otherwise a buffer it will RDMA Write into the client's reply
 * chunk (or refuses with NULL when the client gave none).  done() hands
 * back the encoded reply to send.  Procedures that move bulk data through
 * write or read chunks (NFS READ/WRITE) reach the chunk lists from their
 * handler with rpcrdma__svc_call_xprt_ctx() and the RDMA transport's API.
 * The slot count for an RDMA connection is its credit grant
 * (info.max_calls), so the core never has more calls in progress than the
 * client may send.
 */
struct rpcrdma__svc_xprt_ops {
	void *(*reply_buf)(void *priv, void *call_ctx, size_t max);
	void (*done)(void *priv, void *call_ctx, void *buf, size_t len);
	/* Optional: called just before done(), when the handler marked a bulk
	 * item (rpcrdma_svc_call_set_bulk) and the reply is SUCCESS, with the
	 * item's data range as offsets into the reply buffer. */
	void (*bulk)(void *priv, void *call_ctx, size_t offset, size_t len);
	/* Optional: the backward-direction slot of the connection the call
	 * came in on (svc_backward.h), any thread while the call is in
	 * progress; NULL: none (UDP). */
	struct rpcrdma__svc_bc_slot *(*backward)(void *priv, void *call_ctx);
};

/*
 * A kind of transport (TCP, UDP, RDMA, the backward direction) as the
 * service's loop and rpcrdma_svc_destroy see it, after Linux's struct
 * svc_xprt_class and the xpo_detach / xpo_free of its ops: the generic
 * code never names a transport.  Each kind defines one beside its code;
 * svc_classes.c lists them in the order they shut down.  Every hook is
 * optional.
 */
struct rpcrdma__svc_xprt_class {
	const char *name;
	/* After each epoll batch, on the thread of loop l, its loop_lock
	 * held: frees what was closed for it (TCP: the connections evicted). */
	void (*reap)(struct rpcrdma__svc_loop *l);
	/* Loop l's wake-up (its eventfd), on l's thread: takes up what waited
	 * for it (TCP: connections parked for memory that fit now). */
	void (*wake)(struct rpcrdma__svc_loop *l);
	/* Loop l's idle timer's tick (opts.idle_timeout_ms / 4, at least 50
	 * ms), on l's thread after every other event of its batch: closes
	 * what of l has been idle for opts.idle_timeout_ms (TCP:
	 * connections). */
	void (*idle)(struct rpcrdma__svc_loop *l);
	/* The connections of this kind whose work loop l's thread does now
	 * (rpcrdma_svc_get_loop_stats; any thread; NULL: none counted so,
	 * TCP counts in l->nconns). */
	unsigned (*loop_conns)(struct rpcrdma__svc_loop *l);
	/* rpcrdma_svc_destroy, the loop stopped, in four steps, each run over
	 * every kind before the next:
	 *   cancel   -- before rpcbind is told: fails what waits on a peer
	 *               and refuses new calls (the backward direction);
	 *   shutdown -- loops[0]'s loop_lock held, every loop stopped:
	 *               closes listeners and connections;
	 *   drain    -- loop_lock not held: drops queued calls and waits for
	 *               those in progress (RDMA);
	 *   free     -- every transport instance gone: frees what the kind
	 *               kept for the service. */
	void (*cancel)(struct rpcrdma_svc *svc);
	void (*shutdown)(struct rpcrdma_svc *svc);
	void (*drain)(struct rpcrdma_svc *svc);
	void (*free)(struct rpcrdma_svc *svc);
};

/* Transport flags. */
#define RPCRDMA__SVC_XPRT_CONGESTION_CONTROL 0x1u /* TCP, RDMA: yes; UDP: no */

struct rpcrdma__svc_xprt_info {
	size_t size;        /* sizeof(struct rpcrdma__svc_xprt_info) */
	const char *netid;  /* "tcp", "udp", "tcp6", "udp6", "rdma", "rdma6"; copied */
	uint32_t flags;     /* RPCRDMA__SVC_XPRT_* */
	const struct sockaddr *local; /* local address, may be NULL; copied */
	socklen_t local_len;
	unsigned max_calls; /* slots; 0: the service's opts.max_calls (RDMA: its
			     * credit grant) */
};

/*
 * Creates a transport instance.  ops and priv must stay valid until
 * rpcrdma__svc_xprt_destroy().  -EINVAL (bad info), -ENOMEM.
 */
int rpcrdma__svc_xprt_create(struct rpcrdma_svc *svc, const struct rpcrdma__svc_xprt_ops *ops,
			     void *priv, const struct rpcrdma__svc_xprt_info *info,
			     struct rpcrdma__svc_xprt **out);
/* Destroys it; no call of it may be in progress (-EBUSY otherwise). */
int rpcrdma__svc_xprt_destroy(struct rpcrdma__svc_xprt *xprt);

/*
 * Hands a received message to the core.  The RPC call header (up to the
 * arguments) must lie in iov[0]; arguments may continue in further
 * segments.  The iovec array and buffers must stay valid until done().
 * peer may be NULL.  Returns:
 *   0: the core took the call; done() will be called exactly once (maybe
 *      before this returns, maybe later from another thread).
 *   -EBUSY: all slots are taken; nothing was done (TCP stops reading, UDP
 *      drops the datagram, RDMA waits for a completion).
 */
int rpcrdma__svc_xprt_recv(struct rpcrdma__svc_xprt *xprt, const struct iovec *iov,
			   unsigned niov, const struct sockaddr *peer, socklen_t peer_len,
			   void *call_ctx);
/* The netid given at creation. */
const char *rpcrdma__svc_xprt_netid(const struct rpcrdma__svc_xprt *xprt);
/* Releases the slot of a call whose done() has been called. */
void rpcrdma__svc_xprt_complete(struct rpcrdma__svc_xprt *xprt);
/* Calls in progress (holding slots) / whether a new call would be -EBUSY. */
unsigned rpcrdma__svc_xprt_in_progress(const struct rpcrdma__svc_xprt *xprt);
int rpcrdma__svc_xprt_busy(const struct rpcrdma__svc_xprt *xprt);
/* Sets xprt's slots (white-box tests: the RDMA transport's are far above
 * any sum of credit grants, so a test reaches its refusals this way). */
void rpcrdma__svc_xprt_set_max_calls(struct rpcrdma__svc_xprt *xprt, unsigned n);

/*
 * Adds an endpoint that rpcrdma_svc_rpcbind_set() registers (TCP and UDP
 * listeners add theirs; an RDMA listener calls this with "rdma"/"rdma6").
 * has_cc: the transport has congestion control.  -EINVAL, -ENOMEM.
 */
int rpcrdma__svc_add_endpoint(struct rpcrdma_svc *svc, const char *netid,
			      const struct sockaddr *addr, socklen_t len, int has_cc);

#endif /* RPCRDMA_SVC_XPRT_H */
