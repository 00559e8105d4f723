/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC-over-RDMA client transport (requester side of RFC 8166).
 *
 * A client connects to one server with librdmacm, exchanging RFC 8797
 * private data, and sends RPC calls:
 *  - inline (RDMA_MSG) when the call fits the server's receive size;
 *  - else with the marked bulk data item in a read chunk at its XDR
 *    position (the server pulls it by RDMA Read);
 *  - else as RDMA_NOMSG with the call in a position-zero read chunk (and
 *    the marked data item, if any, still in its own read chunk).
 * For the reply it offers a write chunk over `reply_bulk` (when given) and
 * a reply chunk over `reply_buf` when that buffer is larger than what fits
 * inline.
 *
 * Credits: the client starts with one call in flight and follows the grant
 * of every reply (clamped to 1..max_credits); calls beyond the grant wait in
 * order.  Where RFC 8166 leaves room it behaves as the Linux kernel's
 * client does: it never has more calls in flight than the server granted,
 * and a grant of 0 is taken as 1 (the client could never send again
 * otherwise).  Replies are matched to calls by xid.  A call that times out
 * disconnects the connection (its credit is lost otherwise).  When a
 * connection ends (timeout, peer disconnect, error), the calls in flight and
 * those queued behind the grant fail with -ECONNRESET (the timed-out one
 * with -ETIMEDOUT); the next call reconnects.
 *
 * Reconnect backoff: when such a reconnect fails, the calls of the next
 * reconnect_min_ms fail at once with the same error, without a new try;
 * each further failed try doubles that wait, up to reconnect_max_ms, and a
 * connection that comes up resets it.  A program that keeps calling a
 * server that is down (or whose device was removed) then makes a few tries
 * a second at most, not one per call (RPCRDMA_STAT_CONNECT_FAILS counts
 * the tries that failed).  The connect of rpcrdma_client_create() is always
 * tried.
 *
 * Threads: every function is thread-safe.  Completions run on the poller;
 * the synchronous rpcrdma_client_call() needs a poller in WORKQUEUE or BUSY
 * mode (or another thread driving a DIRECT poller).
 */
#ifndef RPCRDMA_CLIENT_H
#define RPCRDMA_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rpcrdma/api.h>
#include <rpcrdma/diag.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/stats.h>

RPCRDMA_BEGIN_DECLS

struct rpcrdma_client;

struct rpcrdma_client_opts {
	size_t size;              /* sizeof(struct rpcrdma_client_opts) */
	uint32_t max_credits;     /* calls in flight at most, 1..1024 (32) */
	uint32_t recv_inline;     /* our receive buffer size, 1024..65536 (4096) */
	uint32_t send_inline;     /* largest Send we make, 1024..65536 (4096) */
	int connect_timeout_ms;   /* address/route resolution and connect (5000) */
	/* Reconnect backoff (see above), 0..600000 each, min <= max; min 0
	 * turns it off.  Defaults 100 and 2000. */
	int reconnect_min_ms;
	int reconnect_max_ms;
	/* Log hook (<rpcrdma/diag.h>; NULL: silent): every connection the
	 * client closes or loses, with the reason (lost, a call timed out,
	 * device removed, client destroyed); called on the poller's thread
	 * or in rpcrdma_client_destroy(). */
	rpcrdma_log_fn log_fn;
	void *log_arg;
};

RPCRDMA_API void rpcrdma_client_opts_init(struct rpcrdma_client_opts *opts);

/*
 * Creates a client and connects to dst (IPv4 or IPv6 sockaddr with port).
 * The poller must outlive the client.  Returns 0 and *out or a negative
 * errno (-ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH, -ENOMEM, -EINVAL).
 */
RPCRDMA_API int rpcrdma_client_create(struct rpcrdma_poller *poller, const struct sockaddr *dst,
				      const struct rpcrdma_client_opts *opts,
				      struct rpcrdma_client **out);

/* Fails the calls in flight (-ECANCELED), disconnects, frees.  NULL is a
 * no-op. */
RPCRDMA_API void rpcrdma_client_destroy(struct rpcrdma_client *c);

/*
 * One call.  The caller owns every buffer and must keep them (and this
 * structure) unchanged and alive until the call completes.
 *  - iov/iovcnt: the RPC call message; its first 4 bytes are the xid, which
 *    must be unique among the client's calls not yet completed (else
 *    call_async fails with -EEXIST).  Calls are kept by xid in a hash table
 *    from call_async until done: a reply is matched to the
 *    call with its xid sent on the connection it arrived on, so a late
 *    reply from a broken connection matches nothing.
 *  - [bulk_offset, bulk_offset + bulk_length): a data item the transport
 *    may move to a read chunk (its XDR pad after it is left out with it);
 *    bulk_offset is an XDR position: a multiple of 4, past the xid (else
 *    -EINVAL).  A call too long to send inline goes as RDMA_MSG with the
 *    data item in a read chunk when the rest fits inline, else as
 *    RDMA_NOMSG with the rest in a position-zero read chunk and the data
 *    item still in its own read chunk (whole call by position zero when
 *    there is no data item).
 *  - reply_buf/reply_len: receives the reply (without the part that came
 *    through the write chunk).  reply_bulk/reply_bulk_len: when non-NULL, a
 *    write chunk is offered over it.
 * On completion: reply_got is the reply's length (more than reply_len means
 * it was truncated: status -EMSGSIZE), bulk_got the bytes the server wrote
 * to reply_bulk.
 */
struct rpcrdma_client_call {
	size_t size;              /* sizeof(struct rpcrdma_client_call) */
	const struct iovec *iov;
	unsigned iovcnt;
	size_t bulk_offset, bulk_length;
	void *reply_buf;
	size_t reply_len;
	void *reply_bulk;
	size_t reply_bulk_len;
	/* results */
	size_t reply_got;
	size_t bulk_got;
};

/*
 * Called once per call accepted by rpcrdma_client_call_async(), on a poller
 * thread (or in rpcrdma_client_destroy()), with 0 or a negative errno:
 * -EPROTONOSUPPORT (RDMA_ERROR/ERR_VERS), -EREMOTEIO (ERR_CHUNK),
 * -EMSGSIZE (reply truncated), -ECONNRESET, -ECANCELED.  The client sends
 * nothing but calls: a received RDMA_ERROR (of any code, or malformed),
 * RDMA_DONE or malformed reply is never answered, only counted (err_dropped)
 * or reported to its call.
 */
typedef void (*rpcrdma_client_done)(struct rpcrdma_client_call *call, int status, void *arg);

/*
 * Queues a call, reconnecting first when the client has no connection.
 * May be called from a done callback.  Returns 0 (done will be called) or a
 * negative errno (done is never called): -EINVAL, -ENOMEM, the connect
 * error (-ECONNREFUSED, -EHOSTUNREACH, ..., also while the reconnect
 * backoff holds the next try back), -ENOTCONN (the connection
 * broke between connecting and queueing), -EEXIST (a call with the same
 * xid is in flight), or what sending it at once failed with (-EMSGSIZE:
 * the call does not fit; -ENOMEM/-EIO: registering its buffers failed).
 * done is never called from inside this function, so the caller may hold
 * a lock that its done callback takes; it may run on a poller thread
 * before this function returns.
 */
RPCRDMA_API int rpcrdma_client_call_async(struct rpcrdma_client *c,
					  struct rpcrdma_client_call *call,
					  rpcrdma_client_done done, void *arg);

/*
 * Sends a call and waits for its reply up to timeout_ms (<= 0: forever).
 * Returns the completion status, or -ETIMEDOUT (the connection is then
 * dropped, see above).
 */
RPCRDMA_API int rpcrdma_client_call(struct rpcrdma_client *c, struct rpcrdma_client_call *call,
				    int timeout_ms);

/* The grant currently followed (1 before the first reply). */
RPCRDMA_API uint32_t rpcrdma_client_credits(const struct rpcrdma_client *c);

/* The largest number of calls that were ever in flight at once. */
RPCRDMA_API uint32_t rpcrdma_client_max_inflight(const struct rpcrdma_client *c);

/* The reconnect backoff's current wait in ms: 0 while connected or after
 * a successful reconnect, else the wait the last failed try set. */
RPCRDMA_API int rpcrdma_client_backoff_ms(const struct rpcrdma_client *c);

RPCRDMA_API void rpcrdma_client_stats(const struct rpcrdma_client *c, struct rpcrdma_stats *out);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_CLIENT_H */
