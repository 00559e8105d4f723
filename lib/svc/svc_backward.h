/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Backward direction (calls from the service to a client on the connection
 * one of its calls came in on; svc.h, "calls to the client").  Not
 * installed.
 *
 * Pieces:
 *  - a transport that can carry calls backward keeps a slot per connection
 *    (rpcrdma__svc_bc_slot_init) and names it for a call through its xprt
 *    ops' backward();
 *  - rpcrdma_svc_call_conn() makes (once per slot) a counted handle
 *    struct rpcrdma_svc_conn that points at the slot while it is up;
 *  - pending calls live in the service's hub (created with the first
 *    handle): a table by xid, a timerfd for their timeouts and an eventfd
 *    that wakes the loop for completions found on other threads;
 *  - the transport hands every received REPLY message to
 *    rpcrdma__svc_bc_reply() and tells rpcrdma__svc_bc_down() when
 *    the connection closes.
 *
 * Locks, outermost first: svc->lock (the slots), the handle's lock
 * (held while the transport's send runs), the hub's lock.  Completions
 * (done) run with none held, on the loop thread (or in destroy).
 */
#ifndef RPCRDMA_SVC_BACKWARD_H
#define RPCRDMA_SVC_BACKWARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/svc.h>

struct rpcrdma__svc_xprt;

struct rpcrdma__svc_bc_ops {
	/* Bytes the transport wants in front of the message (TCP: the record
	 * mark; RDMA: its transport header). */
	size_t headroom;
	/*
	 * Sends one RPC call: block[headroom .. headroom+len-1] is the message
	 * (block is malloc()ed; the transport owns it from here on and frees
	 * it, also on failure).  Called with the handle's lock held, any
	 * thread.  0, or -ENOTCONN, -EMSGSIZE (RDMA: larger than inline),
	 * -EAGAIN (RDMA: no backward credit), -ENOMEM.
	 */
	int (*send)(void *priv, uint8_t *block, size_t len);
};

/* A connection's backward state, in the transport's connection object
 * (fields under svc->lock). */
struct rpcrdma__svc_bc_slot {
	struct rpcrdma_svc *svc;
	const struct rpcrdma__svc_bc_ops *ops;
	void *priv;
	const char *netid;                     /* for the log, static */
	struct rpcrdma_svc_conn *conn;         /* the handle, once made */
	bool down;
};

/* svc.c: the slot of the connection a call came in on (the xprt ops'
 * backward()), or NULL when its transport has none (UDP). */
struct rpcrdma__svc_bc_slot *rpcrdma__svc_call_bc_slot(const struct rpcrdma_svc_call *call);

/* Transport, with its connection: backward calls may be sent on it
 * through ops/priv, which stay valid until rpcrdma__svc_bc_release(). */
void rpcrdma__svc_bc_slot_init(struct rpcrdma__svc_bc_slot *s, struct rpcrdma_svc *svc,
			       const char *netid, const struct rpcrdma__svc_bc_ops *ops,
			       void *priv);

/*
 * Transport: the connection closed.  Later calls fail with -ENOTCONN;
 * pending ones complete with err.  on_loop: the caller is the loop thread
 * (or destroy), so done may run right here; else the loop is woken to run
 * them.  Waits for a send in progress on the slot.  Idempotent; no
 * transport lock held.
 */
void rpcrdma__svc_bc_down(struct rpcrdma__svc_bc_slot *s, int err, bool on_loop);

/* Transport, before the slot's memory goes (and before its xprt is
 * destroyed: this touches the service): down (-ENOTCONN), and the
 * slot's reference to the handle dropped.  No transport lock held. */
void rpcrdma__svc_bc_release(struct rpcrdma__svc_bc_slot *s);

/*
 * Transport: a received RPC message whose msg_type is REPLY (msg[4..7] ==
 * 1).  Matched by xid to a pending call sent on s, its results decoded in
 * place (msg need only live until this returns), done run here (on_loop)
 * or on the loop.  An unmatched reply is dropped (counted in dropped).
 */
void rpcrdma__svc_bc_reply(struct rpcrdma__svc_bc_slot *s, const uint8_t *msg, size_t len,
			   bool on_loop);

/* Whether msg (len bytes) is an RPC REPLY. */
static inline bool rpcrdma__rpc_is_reply(const uint8_t *msg, size_t len)
{
	return len >= 8 && msg[4] == 0 && msg[5] == 0 && msg[6] == 0 && msg[7] == 1;
}

/* rpcrdma_svc_destroy reaches the hub through rpcrdma__svc_bc_class
 * (svc_int.h): cancel fails every pending call, free frees the hub. */

/* svc_backward_msg.c: the call and reply messages. */
/* Bytes of the call header through the verifier for cred (NULL: AUTH_NONE),
 * or 0 when cred is invalid. */
size_t rpcrdma__bc_call_hdr_len(const struct rpcrdma_svc_cred *cred);
/* Writes the call (header, then req->encode within req->args_max) into
 * buf (room: rpcrdma__bc_call_hdr_len + args_max).  Its length, or
 * -EMSGSIZE / the encoder's error. */
long rpcrdma__bc_call_encode(uint8_t *buf, size_t room, uint32_t xid, uint32_t prog,
			     uint32_t vers, const struct rpcrdma_svc_cred *cred,
			     struct rpcrdma_clnt_req *req);
/* Decodes a reply for req (fills its reply_stat, accept_stat, auth_stat,
 * runs decode on SUCCESS): the call's status as rpcrdma_clnt_done. */
int rpcrdma__bc_reply_decode(const uint8_t *msg, size_t len, struct rpcrdma_clnt_req *req);

#endif /* RPCRDMA_SVC_BACKWARD_H */
