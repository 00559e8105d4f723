/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC-over-RDMA server transport (RFC 8166, RFC 8797).
 *
 * A listener accepts RDMA connections with librdmacm and hands every valid
 * RPC call to one handler.  The handler (or any other thread, later) answers
 * with rpcrdma_call_reply() or discards with rpcrdma_call_drop().
 *
 * What the transport does for the upper layer:
 *  - Every received message is checked with rpcrdma_check_call().  Version
 *    mismatches are answered with RDMA_ERROR/ERR_VERS, malformed headers and
 *    RDMA_MSGP with RDMA_ERROR/ERR_CHUNK, RDMA_DONE and RDMA_ERROR messages
 *    are dropped, whatever their length from 16 bytes up (an RDMA_ERROR is
 *    never answered); none of them reaches the handler.  A connection that sends
 *    `garbage_limit` malformed messages, or more calls than its grant (see
 *    CREDIT OVERRUN), is disconnected (policy); other connections are
 *    unaffected.
 *  - Read chunks are pulled with RDMA Read and spliced into the call: the
 *    handler always sees the complete RPC call message (a chunk's data is
 *    inserted at its XDR position, followed by zero XDR roundup).
 *  - Replies go inline when they fit the peer's receive size; otherwise the
 *    bulk range the upper layer marks goes into the call's first write chunk
 *    (RDMA Write), and what remains goes inline or, when still too large,
 *    into the reply chunk (RDMA_NOMSG).  A reply that fits none of these is
 *    replaced by RDMA_ERROR/ERR_CHUNK.  When the client announced (RFC 8797)
 *    that it accepts remote invalidation, the Send carries an Invalidate of
 *    the first handle the call advertised.
 *  - The credit grant of a connection is fixed at accept: the smallest of
 *    max_credits, what the device's work-request limits allow, and the
 *    receive buffers actually posted (with an SRQ: not yet promised to other
 *    connections).  It is never 0; a request that cannot get at least one
 *    credit is rejected.
 *
 * NO REPLY IS LOST FOR WANT OF SEND RESOURCES.  Every received message
 * reserves a send context for its reply (or its RDMA_ERROR) before it is
 * checked or handed up.  One that finds none waits, holding its receive
 * buffer, and is handed up (on the poller thread, in arrival order) by the
 * send completion that gives a context back: RPCRDMA_STAT_SEND_WAITED
 * counts it.  A reply whose work requests find the send queue full waits
 * too, and a completion posts it: RPCRDMA_STAT_SQ_STARVED.  No thread
 * blocks for either.  RPCRDMA_STAT_SEND_DROPPED counts replies dropped for
 * want of a send context or send-queue room: it reads 0.  Send contexts
 * per connection: grant + 24, each of send_inline bytes.
 *
 * CREDIT OVERRUN.  A call counts from its arrival until the upper layer
 * ends it (reply or drop).  A connection with more counted calls than its
 * grant plus the early-reply slack (8 with an SRQ, else 0: an inline reply
 * may go out just before its call is ended, so a compliant client may be
 * that far ahead) is closed at once (RPCRDMA_STAT_ERR_CREDIT and
 * RPCRDMA_STAT_POLICY_CLOSE); the calls it still holds end as on any
 * closed connection.  Linux's svcrdma queues such calls instead; here they
 * would hold receive buffers that an SRQ promised to other connections'
 * grants, and send contexts sized to the grant, and RFC 8166 section 3.3.1
 * forbids them: a compliant requester never gets there.  So every call
 * received is either answered or its connection is closed.
 *
 * READ BUDGET.  A call's read chunks are pulled (RDMA Read) into registered
 * memory the listener allocates: the reassembled call rounded up to its
 * buffer size class (a power of two from 4 KiB), held until the call is
 * ended.  The calls of one listener hold at most read_budget_bytes of it at
 * once, those of one connection at most read_conn_bytes.  A call that does
 * not fit is not lost and blocks no thread: it waits in its receive buffer
 * (holding its credit, so the grant bounds how many wait per connection)
 * and its reads start, on a poller thread, when released calls make room.
 * Connections whose next call fits their share are served round robin, and
 * in order: a call waiting for the listener's room is not overtaken by
 * later, smaller ones.  Calls still waiting when their connection closes
 * are released unanswered, as every call a closing connection holds.
 * Registered memory for pulled calls is thus bounded by read_budget_bytes
 * plus bulk_cache_bytes per device (released buffers kept for reuse).
 * RPCRDMA_STAT_READ_WAITS counts the calls that waited,
 * RPCRDMA_STAT_READ_BYTES_PEAK the most held at once.
 *
 * RESOURCE ACCOUNTING.  A listener given a resource_group (<rpcrdma/rescg.h>)
 * charges that group, on the device by its verbs name ("rxe0"), before it
 * creates each verbs object, creates nothing a charge was refused for, and
 * returns every charge to the same group when the object is destroyed:
 *  - per device the listener uses, from its first connection on that device
 *    until rpcrdma_listener_destroy(): 1 hca_handle (the device context it
 *    holds) and as hca_object 1 PD, 1 CQ, 1 completion channel (none with a
 *    RPCRDMA_POLLER_BUSY poller) and, with an SRQ, 1 SRQ and 1 MR (its
 *    receive buffers): 5 with the defaults, 3 without an SRQ.  (The
 *    poller's CQ pool makes more CQs for a device once one is full, near
 *    90 connections over soft-RoCE: those are not charged.)  The CQ and
 *    the channel are the poller's, shared by every listener on it: each
 *    listener is charged for them as if it had its own, so one group's
 *    usage never depends on which group came first;
 *  - per connection, from accept until it is freed: as hca_object 1 QP, 1 MR
 *    (send buffers, registered at its first call: charged from accept
 *    all the same) and, without the SRQ (none, or its buffers all
 *    promised at accept), 2 MRs (receive buffers: those posted at accept,
 *    and the rest of the grant's, made by its first call and charged
 *    from accept): 2 with an SRQ, 4 without;
 *  - per registered buffer of the bulk cache (bulk_cache_bytes; RDMA Read
 *    sinks and Write sources, cached ones included): 1 hca_object, from its
 *    registration until it is deregistered;
 *  - per region of rpcrdma_listener_register() and device: 1 hca_object (its
 *    MR), until rpcrdma_listener_destroy() (a refusal on a device that
 *    comes later only makes replies there copy).
 * A connection request whose device or connection charges are refused
 * (-EAGAIN: over the group's limit) is rejected with rdma_reject (the client
 * sees RDMA_CM_EVENT_REJECTED) and counted in both RPCRDMA_STAT_REJECTS and
 * RPCRDMA_STAT_RESCG_DENIED; nothing stays charged or allocated for it, and
 * the group's other connections are untouched.  A bulk buffer whose charge
 * is refused makes that call fail as on memory exhaustion (a call needing
 * RDMA Reads is dropped, rpcrdma_call_reply() returns -EAGAIN), counted in
 * RPCRDMA_STAT_RESCG_DENIED.  Lowering a limit below usage only refuses new
 * charges: no connection is closed for it.
 */
#ifndef RPCRDMA_XPRT_H
#define RPCRDMA_XPRT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rpcrdma/api.h>
#include <rpcrdma/diag.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/stats.h>

RPCRDMA_BEGIN_DECLS

struct rpcrdma_listener;
struct rpcrdma_call;
struct rpcrdma_rescg_group;  /* <rpcrdma/rescg.h> */

/*
 * Called once per valid call, on a poller thread.  From this moment the
 * upper layer owns `call` and must end it exactly once with
 * rpcrdma_call_reply() or rpcrdma_call_drop(), from any thread, now or
 * later.  The handler must not block for long: it holds up its poller.
 */
typedef void (*rpcrdma_call_handler)(struct rpcrdma_call *call, void *arg);

struct rpcrdma_listener_opts {
	size_t size;             /* sizeof(struct rpcrdma_listener_opts) */
	uint32_t max_credits;    /* grant upper bound, 1..65535 (default 64) */
	uint32_t recv_inline;    /* our receive buffer size, 1024..65536 (4096) */
	uint32_t send_inline;    /* largest Send we make, 1024..65536 (4096) */
	/* Receive buffers per device with an SRQ (2048).  Grants on the SRQ
	 * never sum to more than this: with the defaults 32 connections get
	 * 64 credits each, the next one what is left, and a request finding
	 * none gets a receive queue of its own (as with use_srq 0), with a
	 * full grant.  Eight more are posted, promised to no grant: they let
	 * an inline reply go out before its call's buffer is posted again. */
	uint32_t srq_depth;
	int use_srq;             /* 1: SRQ when the device has one (default); 0: never */
	/* Largest call pulled by RDMA Read: the reassembled call, its read
	 * chunks and their XDR roundup (RPCRDMA_MAX_CALL_BYTES_DEFAULT: 1 MiB
	 * of data, as Linux caps an NFS call, and its headers).  A call above
	 * it is answered RDMA_ERROR/ERR_CHUNK (RFC 8166 section 4.5: the
	 * responder cannot process its chunks; Linux's svcrdma does the same)
	 * and counts as garbage.  Write
	 * and reply chunks are accepted up to the larger of this and 16 MiB. */
	uint32_t max_call_bytes;
	uint32_t garbage_limit;  /* malformed messages before disconnect; 0 = never (16) */
	int backlog;             /* rdma_listen backlog (64) */
	/* Registered memory kept per device for reuse by RDMA Read sinks and
	 * Write sources (only local access: the client never gets an rkey to
	 * it); 0 registers per call (64 MiB). */
	size_t bulk_cache_bytes;
	/* The resource-controller group charged for this listener's verbs
	 * objects (see RESOURCE ACCOUNTING above); NULL: none.  Borrowed: it
	 * must not be destroyed (nor its controller) before the listener is. */
	struct rpcrdma_rescg_group *resource_group;
	/* CONNECTION LIMITS (as Linux's svc does for its transports).  A
	 * connection is idle when it has no call in progress (every call
	 * handle ended) and received nothing for idle_timeout_ms; it is then
	 * closed (RPCRDMA_STAT_IDLE_CLOSES), checked every quarter of the
	 * timeout (at least 100 ms, at most 10 s).  0: never (default
	 * 360000, Linux's 6 minutes).  A request accepted while max_conns
	 * connections are open (not closing) closes the least recently
	 * active one without a call in progress -- or, when every one has a
	 * call in progress, the least recently active -- and is accepted
	 * (RPCRDMA_STAT_CAP_CLOSES).  0: no limit (default 256).  An idle
	 * connection that never called costs the server about 0.2 MB over
	 * soft-RoCE with the default credits and inline sizes (its queue
	 * pair's rings and its share of a CQ; not on the SRQ, 6 receive
	 * buffers); its first call adds its send buffers (grant + 24 of
	 * send_inline bytes: 352 KiB) and, not on the SRQ, the rest of the
	 * grant's receive buffers (60 of recv_inline bytes: 240 KiB),
	 * measured in tests/vm/payloads/rdma-scale.  The client
	 * of a closed connection sees a disconnect and reconnects when it
	 * calls again. */
	uint32_t idle_timeout_ms;
	uint32_t max_conns;
	/* READ BUDGET (see above): registered bytes calls' read chunks are
	 * pulled into, at most read_budget_bytes at once over the listener
	 * (64 MiB) and read_conn_bytes of it for one connection (16 MiB).
	 * Each is raised to one call of max_call_bytes when smaller. */
	size_t read_budget_bytes;
	size_t read_conn_bytes;
	/* Log hook (<rpcrdma/diag.h>; NULL: silent): every connection
	 * request refused and every connection closed, with its reason;
	 * called on the poller's thread. */
	rpcrdma_log_fn log_fn;
	void *log_arg;
	/* WIRE CAPTURE: a pcap file to which the listener appends every
	 * RPC-over-RDMA message it sends or receives and every RDMA Read and
	 * Write it performs, as RoCEv2 frames Wireshark dissects (Ethernet,
	 * IP, UDP 4791, InfiniBand BTH/RETH/AETH, payload, ICRC; each
	 * connection starts with its CM REQ/REP/RTU so replies pair with
	 * calls; read with `tshark -2` or Wireshark).  NULL (default): the
	 * environment variable RPCRDMA_PCAP names the file when set and not
	 * empty (ignored in set-user-id programs); "": no capture even then.
	 * Read by rpcrdma_listener_create() only (the file is opened there:
	 * it fails with open()'s error).  Several listeners and clients, in
	 * one process or several, may share a file: its header is written
	 * when it is empty, and each message's frames with one write() in
	 * append mode.  Off, the capture costs one predictable branch per
	 * message; on, a system call per message, from the thread that sends
	 * or receives it.  Captured data includes every byte of the calls
	 * and replies (file contents, credentials): the file gets mode 0644
	 * minus the umask. */
	const char *pcap_path;
};

/* The default max_call_bytes: 1 MiB of data and 12 KiB of headers, as
 * Linux's svcrdma takes (RPCSVC_MAXPAGES). */
#define RPCRDMA_MAX_CALL_BYTES_DEFAULT ((1u << 20) + (12u << 10))

RPCRDMA_API void rpcrdma_listener_opts_init(struct rpcrdma_listener_opts *opts);

/*
 * Binds to addr (IPv4 or IPv6, port 0 picks one) and listens.  Connection
 * events and completions are handled by `poller`, which must outlive the
 * listener.  opts may be NULL.  Returns 0 and *out, -EINVAL, -ENOMEM,
 * -EADDRINUSE, or another negative errno from librdmacm.
 */
RPCRDMA_API int rpcrdma_listener_create(struct rpcrdma_poller *poller,
					const struct sockaddr *addr,
					const struct rpcrdma_listener_opts *opts,
					rpcrdma_call_handler handler, void *handler_arg,
					struct rpcrdma_listener **out);

/*
 * DEVICE REMOVAL.  On RDMA_CM_EVENT_DEVICE_REMOVAL (on the listening id or
 * on any connection) the listener closes and flushes every connection on
 * that device and counts the removal once (RPCRDMA_STAT_DEVICE_REMOVALS).
 * A 100 ms timer (a poller source of the listener) then frees the device's
 * objects once its last connection is freed (the upper layer must end its
 * call handles on them; replies return -ENOTCONN): SRQ, receive pool and its
 * MR, bulk buffer cache, PD, the poller's CQ and completion channel for the
 * device when nothing else uses them, and their resource-group charges;
 * then it destroys the listening id when it was on that device and binds
 * and listens again on the same address and port every 100 ms until that
 * succeeds (after the device is back).  The listener itself stays usable.
 * A client's calls in flight on a removed device fail with -ENODEV; its
 * connection's objects are freed by a 20 ms timer of the client (a poller
 * source) as soon as their work requests have flushed, so an idle client
 * lets go of the device without a call (rdma-devrm checks one).
 * The listener then asks librdmacm for its device list, which makes it
 * close the removed device's context: soft-RoCE has no
 * disassociate_ucontext, so the kernel's delete waits for that, and for
 * every client process on the device too.  A client whose calls failed
 * with -ENODEV should stop calling and destroy the client (or exit).  In
 * tests/vm/payloads/rdma-devrm an echo client that kept calling (then one
 * reconnect try per call, about 40 ms each under the VM's emulation; now
 * the client's reconnect backoff spaces them, see client.h) held the
 * delete for as long as it ran; it now stops at its first failed call and
 * exits, and the delete returns within a few seconds.
 */

/* The bound port (host order). */
RPCRDMA_API int rpcrdma_listener_port(const struct rpcrdma_listener *l);

/* How many regions rpcrdma_listener_register() keeps. */
#define RPCRDMA_LISTENER_REGIONS_MAX 8

/*
 * Registers [addr, addr + len) for replies' bulk data, on every device of
 * the listener, now and as connections arrive on others: a reply whose
 * bulk item (struct rpcrdma_reply bulk_offset/bulk_length) lies in one
 * iovec inside it goes by RDMA Write straight from there, uncopied
 * (RPCRDMA_STAT_WRITES_UNCOPIED and RPCRDMA_STAT_WRITES_REGION count it),
 * as from rpcrdma_call_reply_buffer()'s buffers: for data an application
 * keeps in memory anyway (a file server's cache, a fixed pattern).  The
 * device reads the memory until the reply's Send completes, at some time
 * after rpcrdma_call_reply() returns, so it must not change while replies
 * may use it, and must stay valid until rpcrdma_listener_destroy().  Each
 * region costs one memory region per device (one hca_object of the
 * resource group); a device that cannot register it copies instead.
 * Returns 0, -EINVAL, -ENOSPC (RPCRDMA_LISTENER_REGIONS_MAX regions
 * already), -EAGAIN (the resource group refused), or what the registration
 * on a device already in use returned (nothing is kept then).  Thread-safe.
 */
RPCRDMA_API int rpcrdma_listener_register(struct rpcrdma_listener *l, const void *addr,
					  size_t len);

/*
 * Stops accepting, disconnects every connection and waits until their work
 * requests are flushed (with a shared receive queue, until a Send posted
 * after the disconnect has completed: every receive that completed before
 * it has been handled by then) and the upper layer has ended every call handle it
 * still owns (replies on a closed connection return -ENOTCONN): end them
 * from other threads, or before.  The counters stay readable afterwards.
 * Idempotent.  Must not be called from a handler or a poller thread.
 */
RPCRDMA_API void rpcrdma_listener_shutdown(struct rpcrdma_listener *l);

/* rpcrdma_listener_shutdown(), then frees everything.  NULL is accepted. */
RPCRDMA_API void rpcrdma_listener_destroy(struct rpcrdma_listener *l);

/* Counters summed over every connection the listener has had. */
RPCRDMA_API void rpcrdma_listener_stats(const struct rpcrdma_listener *l,
					struct rpcrdma_stats *out);

/*
 * Calls fn for every live connection with its id, its credit grant and its
 * counters, in increasing order of id, under the listener's lock (fn must
 * not call back into it).  Returns the number of connections.
 */
RPCRDMA_API int rpcrdma_listener_foreach_conn(struct rpcrdma_listener *l,
					      void (*fn)(uint64_t conn_id, uint32_t credits,
							 const struct rpcrdma_stats *st, void *arg),
					      void *arg);

/* ---- call handles ---- */

/*
 * The RPC call message (starting with its xid), as iovecs owned by the
 * transport and valid until the call is ended.  Sets *iovcnt.
 */
RPCRDMA_API const struct iovec *rpcrdma_call_payload(const struct rpcrdma_call *call,
						     unsigned *iovcnt);

/*
 * The connection the call came on (see rpcrdma_listener_foreach_conn).
 * Connection ids are 1 .. INT_MAX, handed out cyclically per listener: an id
 * is reused only after every other id was handed out since.
 */
RPCRDMA_API uint64_t rpcrdma_call_conn_id(const struct rpcrdma_call *call);

/* The client's address (rdma_get_peer_addr); sets *len. */
RPCRDMA_API const struct sockaddr *rpcrdma_call_peer(const struct rpcrdma_call *call,
						     socklen_t *len);

/* The largest reply the client's chunks and inline size can carry. */
RPCRDMA_API size_t rpcrdma_call_max_reply(const struct rpcrdma_call *call);

/* What the call's first write chunk can take, in bytes (0: it has none):
 * the largest bulk item a reply can send by RDMA Write. */
RPCRDMA_API size_t rpcrdma_call_write_room(const struct rpcrdma_call *call);

/*
 * A reply: the RPC reply message as iovecs, in order.  [bulk_offset,
 * bulk_offset + bulk_length) is the content of one XDR opaque data item
 * (for NFS: READ data) that may travel by RDMA Write in a write chunk; its
 * XDR roundup (the pad after it, inside the iovecs) is then left out too, as
 * RFC 8166 section 3.4.5 says.  bulk_length 0: no such item.
 */
struct rpcrdma_reply {
	size_t size;             /* sizeof(struct rpcrdma_reply) */
	const struct iovec *iov;
	unsigned iovcnt;
	size_t bulk_offset;
	size_t bulk_length;
};

/*
 * Registered memory for building the reply of `call` in place: at least
 * `len` bytes, owned by the call and valid until the call is ended (by
 * rpcrdma_call_reply or rpcrdma_call_drop, after which it must not be
 * touched).  When the reply's bulk item lies in one iovec inside this
 * buffer (or inside the call's own payload, when it was pulled by RDMA
 * Read), its RDMA Writes go straight from there: the data is not copied,
 * and RPCRDMA_STAT_WRITES_UNCOPIED counts it.  A reply that goes inline or
 * by the reply chunk is copied as any other.  One buffer per call.  Returns
 * 0 and sets *buf, -EINVAL, -EBUSY (the call has one already), -EMSGSIZE
 * (len above rpcrdma_call_max_reply: no reply that large could be sent),
 * -ENOMEM, or -EAGAIN (the resource group refused the registration).
 * Thread-safe for distinct calls.
 */
RPCRDMA_API int rpcrdma_call_reply_buffer(struct rpcrdma_call *call, size_t len, void **buf);

/*
 * Sends the reply and ends the call (whatever the result).  The reply bytes
 * are copied before this returns (except a bulk item written from the
 * call's reply buffer, see above); the caller keeps its buffers.  Returns 0,
 * -EINVAL (bad reply description: the call is dropped), -EMSGSIZE (too large
 * for the client's chunks: RDMA_ERROR/ERR_CHUNK was sent instead),
 * -ENOTCONN (connection gone), -ENOMEM, -EAGAIN (the resource group refused
 * the buffer for the bulk data: the call is dropped).  Thread-safe, with
 * one rule from the kernel: uverbs refuses commands (soft-RoCE's Send
 * doorbell is one) from a thread whose credentials changed after the device
 * was opened -- setfsuid/setfsgid/setgroups give a thread new credentials
 * for good, even when set back.  Reply from threads that never switch
 * credentials (rpcrdma_svc_listen_rdma's option for handlers that do:
 * RPCRDMA_SVC_HANDLERS_SWITCH_CREDS in <rpcrdma/svc.h>).
 * From a handler, on its poller thread, the reply is posted when the
 * poller's round ends, with the other replies of that round in one
 * ibv_post_send per connection (RPCRDMA_STAT_SENDS_BATCHED), after their
 * calls' receive buffers went back: a handler that replies and then
 * blocks delays its reply.  From any other thread it is posted at once.
 */
RPCRDMA_API int rpcrdma_call_reply(struct rpcrdma_call *call, const struct rpcrdma_reply *reply);

/* Ends the call without a reply (the client will time out).  Same thread
 * rule as rpcrdma_call_reply(): returning the receive buffer may release
 * registered memory. */
RPCRDMA_API void rpcrdma_call_drop(struct rpcrdma_call *call);


RPCRDMA_END_DECLS

#endif /* RPCRDMA_XPRT_H */
