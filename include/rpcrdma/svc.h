/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC service core (ONC RPC version 2, RFC 5531): program registry, call
 * decoding, authentication (AUTH_NONE, AUTH_SYS), dispatch to handlers, reply
 * encoding, TCP, UDP and RPC-over-RDMA transports on an epoll event loop, and
 * registration with the system's rpcbind (RFC 1833).
 *
 * Overview
 *   struct rpcrdma_svc *svc;
 *   rpcrdma_svc_create(NULL, &svc);
 *   rpcrdma_svc_register(svc, &my_program);       // tables of procedures
 *   rpcrdma_svc_listen_tcp(svc, addr, len, NULL, NULL);  // and/or _udp,
 *   rpcrdma_svc_listen_rdma(svc, poller, addr, NULL, NULL, NULL, NULL);
 *   rpcrdma_svc_rpcbind_set(svc, NULL);           // optional
 *   rpcrdma_svc_start(svc);                        // own thread, or drive
 *                                                  // rpcrdma_svc_fd()/_poll()
 *   ...
 *   rpcrdma_svc_destroy(svc);                      // unsets rpcbind, frees all
 *
 * Threads (docs/threading.md).  The event loop runs on one thread at a
 * time: the service's own thread (rpcrdma_svc_start) or whichever thread
 * calls rpcrdma_svc_poll (concurrent callers are serialised); a service
 * may run several loops instead (rpcrdma_svc_opts.loops, "Several loops":
 * handlers then run at once and must be thread-safe).  Handlers
 * run one at a time: on that thread, or -- RDMA calls of a service
 * running its own thread (rpcrdma_svc_start), on a workqueue or busy
 * poller -- on the poller thread that received the call, which runs the
 * handler and posts the reply itself, with no hand-off (see
 * rpcrdma_svc_listen_rdma for when a call still goes to the loop
 * thread).  So a handler may touch what other handlers touch without a
 * lock, but must not assume which library thread it is on.  A handler
 * that must not block returns RPCRDMA_SVC_ASYNC and completes the call
 * later, from any thread, with rpcrdma_svc_reply().  Registration may
 * happen at any time; programs stay registered until the service is
 * destroyed.
 *
 * Call processing order (each step's failure gives the reply named):
 *   1. fewer than 3 words, or a message type other than CALL: dropped, no
 *      reply (there is nobody to answer).
 *   2. rpcvers != 2: MSG_DENIED RPC_MISMATCH, low = high = 2.
 *   3. header (prog, vers, proc, credential, verifier) cut short by the end
 *      of the message -- a word missing, or a credential or verifier body
 *      (length <= 400) running past the end: GARBAGE_ARGS, as Linux's
 *      svc_authenticate answers SVC_GARBAGE (it closes a TCP connection
 *      whose prog/vers/proc are missing; this core answers that too, so a
 *      caller never waits for a reply that will not come).
 *   4. credential and verifier checked (see "Authentication"): MSG_DENIED
 *      AUTH_ERROR with the auth_stat given there.  This comes before the
 *      program and version checks, as in Linux's svc_process_common (RFC
 *      5531 leaves the order open): a well-formed credential never turns a
 *      version refusal into an authentication error (rpcinfo's AUTH_NONE
 *      NULL call to NFSv4 over UDP gets PROG_MISMATCH 4..4).
 *   5. program not registered: PROG_UNAVAIL.
 *   6. version not registered, or registered as needing congestion control
 *      while the transport has none: PROG_MISMATCH with the lowest and
 *      highest versions the transport may use (if it may use none, e.g.
 *      NFSv4 alone over UDP: the lowest and highest registered, as Linux
 *      answers).
 *   7. procedure number beyond the table or without a handler: PROC_UNAVAIL.
 *   8. version requires AUTH_SYS and the call has AUTH_NONE, or requires
 *      RPCSEC_GSS and the call has another flavour (procedure 0
 *      excepted): AUTH_ERROR AUTH_TOOWEAK.
 *   9. argument decoder fails: GARBAGE_ARGS.
 *  10. the estimator's size is reserved from the transport (an estimate
 *      over 2 GiB: SYSTEM_ERR; the transport refusing the buffer: dropped,
 *      counted); the handler runs; its status is sent.  A result
 *      encoder that fails (it ran past the estimate, or reported an error)
 *      turns the reply into SYSTEM_ERR and is counted in
 *      estimate_exceeded / encode_errors.
 * Every reply carries an AUTH_NONE verifier, but those to RPCSEC_GSS calls
 * (<rpcrdma/gss.h>, which also says how those are checked before step 5).
 *
 * Authentication.  The credential and verifier bodies are at most 400 bytes
 * (RFC 5531 MAX_AUTH_BYTES); a longer one is AUTH_BADCRED (credential) or
 * AUTH_BADVERF (verifier), whatever the message holds (so a length near
 * 2^32 is AUTH_BADCRED / AUTH_BADVERF); one of at most 400 bytes running
 * past the end of the message is a truncated header (step 3: GARBAGE_ARGS).
 *   AUTH_NONE: body length 0, else AUTH_BADCRED.
 *   AUTH_SYS: stamp, machinename<255>, uid, gid, gids<16>, exactly filling
 *     the body; anything else (longer name, more gids, bytes left over) is
 *     AUTH_BADCRED.
 *   AUTH_SHORT: this server never issues short-hand credentials, so
 *     AUTH_REJECTEDCRED (the client starts again with AUTH_SYS).
 *   RPCSEC_GSS (6): see <rpcrdma/gss.h>; a credential that does not decode
 *     as version 1 is AUTH_BADCRED.
 *   any other flavour: AUTH_BADCRED.
 *   The verifier of AUTH_NONE and AUTH_SYS calls must be AUTH_NONE with an
 *   empty body, else AUTH_BADVERF.
 */
#ifndef RPCRDMA_SVC_H
#define RPCRDMA_SVC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rpcrdma/api.h>
#include <rpcrdma/config.h>
#include <rpcrdma/clnt.h>
#include <rpcrdma/diag.h>
#include <rpcrdma/xdr.h>

RPCRDMA_BEGIN_DECLS

struct rpcrdma_svc;
struct rpcrdma_svc_call;
struct rpcrdma_poller;         /* <rpcrdma/poller.h> */
struct rpcrdma_listener;       /* <rpcrdma/xprt.h> */
struct rpcrdma_listener_opts;  /* <rpcrdma/xprt.h> */

/* accept_stat (RFC 5531), the values a handler returns, plus two more. */
enum rpcrdma_svc_status {
	RPCRDMA_SVC_SUCCESS = 0,
	RPCRDMA_SVC_PROG_UNAVAIL = 1,
	RPCRDMA_SVC_PROG_MISMATCH = 2,
	RPCRDMA_SVC_PROC_UNAVAIL = 3,
	RPCRDMA_SVC_GARBAGE_ARGS = 4,
	RPCRDMA_SVC_SYSTEM_ERR = 5,
	/* Handler only: no reply is sent (e.g. a duplicate request). */
	RPCRDMA_SVC_DROP = 0x100,
	/* Handler only: the handler will call rpcrdma_svc_reply() later. */
	RPCRDMA_SVC_ASYNC = 0x101,
};

/* The status's name ("SUCCESS", "GARBAGE_ARGS", "DROP", ...) or "unknown";
 * a static string. */
RPCRDMA_API const char *rpcrdma_svc_status_str(int status);

/* auth_stat (RFC 5531). */
enum rpcrdma_svc_auth_stat {
	RPCRDMA_AUTH_OK = 0,
	RPCRDMA_AUTH_BADCRED = 1,
	RPCRDMA_AUTH_REJECTEDCRED = 2,
	RPCRDMA_AUTH_BADVERF = 3,
	RPCRDMA_AUTH_REJECTEDVERF = 4,
	RPCRDMA_AUTH_TOOWEAK = 5,
};

/* The auth_stat's name ("AUTH_BADCRED", ...) or "unknown"; static. */
RPCRDMA_API const char *rpcrdma_svc_auth_stat_str(int stat);

/* Authentication flavours. */
#define RPCRDMA_AUTH_NONE 0u
#define RPCRDMA_AUTH_SYS 1u
#define RPCRDMA_AUTH_SHORT 2u

#define RPCRDMA_AUTH_SYS_MAX_MACHINENAME 255
#define RPCRDMA_AUTH_SYS_MAX_GIDS 16

/* The caller's identity, decoded from the credential. */
struct rpcrdma_svc_cred {
	uint32_t flavor; /* RPCRDMA_AUTH_NONE, RPCRDMA_AUTH_SYS or
			  * RPCRDMA_AUTH_RPCSEC_GSS (<rpcrdma/gss.h>) */
	/* AUTH_SYS (and the ids RPCSEC_GSS maps to); zero for AUTH_NONE: */
	uint32_t stamp;
	uint32_t uid;
	uint32_t gid;
	uint32_t ngids;
	uint32_t gids[RPCRDMA_AUTH_SYS_MAX_GIDS];
	char machinename[RPCRDMA_AUTH_SYS_MAX_MACHINENAME + 1];
};

/*
 * One procedure.  A procedure with a NULL handler is a hole in the table
 * (PROC_UNAVAIL).
 *
 * args_size / res_size: bytes the core allocates (zeroed, aligned for any
 *   type) for the decoded arguments and the results; 0 for none.
 * decode_args(dec, args): decodes the arguments; non-zero = GARBAGE_ARGS.
 *   NULL: the procedure takes no arguments (trailing bytes are ignored).
 *   A decoder may keep pointers into the received message (see
 *   rpcrdma_xdr_get_opaque_ref): it stays valid until the call completes.
 * estimate(call, args): the largest number of bytes encode_res can write for
 *   these arguments (the reply body, without the RPC reply header).  The
 *   core reserves the reply header plus this before running the handler;
 *   the RDMA transport uses it to choose an inline reply or a reply chunk.
 *   It must be a true upper bound: the encoder gets exactly that room.
 *   NULL: 0 bytes, for a procedure whose results are void.
 * handler(call, args, res): does the work; returns an rpcrdma_svc_status:
 *   SUCCESS (results encoded), PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR, DROP,
 *   or ASYNC (see rpcrdma_svc_reply).  Any other value is sent as SYSTEM_ERR.
 * encode_res(enc, res): encodes the results after SUCCESS; non-zero =
 *   SYSTEM_ERR.  NULL: no results (void).
 * release(args, res): optional; called exactly once for every call that
 *   reached step 9 (decoded successfully or not), after its reply is
 *   encoded or dropped, to free what the decoder or handler allocated.
 */
struct rpcrdma_svc_proc {
	const char *name;
	size_t args_size;
	size_t res_size;
	int (*decode_args)(struct rpcrdma_xdr_dec *dec, void *args);
	size_t (*estimate)(const struct rpcrdma_svc_call *call, const void *args);
	int (*handler)(struct rpcrdma_svc_call *call, void *args, void *res);
	int (*encode_res)(struct rpcrdma_xdr_enc *enc, const void *res);
	void (*release)(void *args, void *res);
};

/* Version flags. */
/* Needs a transport with congestion control (NFSv4: RFC 7530 section 3.1):
 * refused over UDP (PROG_MISMATCH) and not registered with rpcbind for
 * udp/udp6. */
#define RPCRDMA_SVC_VERS_NEEDS_CC 0x1u
/* Calls other than procedure 0 must carry AUTH_SYS or RPCSEC_GSS (else
 * AUTH_TOOWEAK). */
#define RPCRDMA_SVC_VERS_AUTH_SYS 0x2u
/* Calls other than procedure 0 must carry RPCSEC_GSS (else AUTH_TOOWEAK;
 * <rpcrdma/gss.h>). */
#define RPCRDMA_SVC_VERS_AUTH_GSS 0x4u

struct rpcrdma_svc_version {
	uint32_t vers;
	uint32_t flags;      /* RPCRDMA_SVC_VERS_* */
	uint32_t nprocs;     /* procs[0..nprocs-1], indexed by procedure number */
	const struct rpcrdma_svc_proc *procs;
};

/*
 * A program.  The core copies this structure and the version array at
 * registration; the procedure tables and names are NOT copied and must stay
 * valid until the service is destroyed (normally they are static const).
 */
struct rpcrdma_svc_program {
	uint32_t prog;
	const char *name;
	uint32_t nvers;
	const struct rpcrdma_svc_version *vers;
	void *ctx;           /* returned by rpcrdma_svc_call_program_ctx() */
};

/*
 * Registers a program.  The program and version structs are copied; the
 * name and the procedure tables are borrowed and must stay valid while the
 * service lives (static tables).  -EINVAL: no versions, duplicate version
 * numbers, nprocs with a NULL table, a procedure with args_size but no
 * decoder or res_size but no encoder; -EEXIST: the program number is already registered; -ENOMEM.
 */
RPCRDMA_API int rpcrdma_svc_register(struct rpcrdma_svc *svc,
				     const struct rpcrdma_svc_program *prog);

/* ---------------------------------------------------------------- calls */

/*
 * Completes a call whose handler returned RPCRDMA_SVC_ASYNC, from any
 * thread, exactly once.  status as a handler's return value (not ASYNC).
 * The results are encoded from the res pointer the handler got.  After this
 * returns the call, its args and res are freed: do not touch them.
 */
RPCRDMA_API void rpcrdma_svc_reply(struct rpcrdma_svc_call *call, int status);

/* Accessors, valid while the call is in progress. */
RPCRDMA_API uint32_t rpcrdma_svc_call_xid(const struct rpcrdma_svc_call *call);
RPCRDMA_API uint32_t rpcrdma_svc_call_prog(const struct rpcrdma_svc_call *call);
RPCRDMA_API uint32_t rpcrdma_svc_call_vers(const struct rpcrdma_svc_call *call);
RPCRDMA_API uint32_t rpcrdma_svc_call_proc(const struct rpcrdma_svc_call *call);
RPCRDMA_API const struct rpcrdma_svc_cred *
rpcrdma_svc_call_cred(const struct rpcrdma_svc_call *call);
/* Peer address (may have length 0 when the transport has none). */
RPCRDMA_API const struct sockaddr *
rpcrdma_svc_call_peer(const struct rpcrdma_svc_call *call, socklen_t *len);
RPCRDMA_API const char *rpcrdma_svc_call_netid(const struct rpcrdma_svc_call *call);
RPCRDMA_API void *rpcrdma_svc_call_program_ctx(const struct rpcrdma_svc_call *call);
/* Reply bytes reserved: RPC reply header + the estimate. */
RPCRDMA_API size_t rpcrdma_svc_call_reply_max(const struct rpcrdma_svc_call *call);
/* The RPC headers around the arguments and the results, for limits that
 * count whole RPC messages (NFSv4.1's ca_maxrequestsize counts "the RPC
 * headers, including security flavor credentials and verifiers"):
 * header_len is the call's bytes from its xid through its verifier (what
 * precedes the arguments, transport framing excluded); a successful reply
 * puts RPCRDMA_SVC_REPLY_HDR_LEN bytes (xid through accept_stat, with the
 * AUTH_NONE verifier the service sends) before the results.  Any thread
 * while the call is in progress. */
#define RPCRDMA_SVC_REPLY_HDR_LEN 24u
RPCRDMA_API size_t rpcrdma_svc_call_header_len(const struct rpcrdma_svc_call *call);

/*
 * Marks one XDR opaque data item of the results as bulk data (NFS READ
 * data): `offset` is where the item's data starts (after its length word),
 * counted from the first byte of the results (what encode_res writes, or
 * the results built in place), and `len` its length in
 * bytes, without the XDR pad.  Call it from the handler (or before
 * rpcrdma_svc_reply() for an asynchronous call), at most once per call;
 * the core checks the range against what encode_res wrote and passes it to
 * the transport, which may move those bytes by RDMA Write into the
 * client's write chunk (RFC 8166 section 3.4.5, RFC 8267).  Transports
 * without bulk data movement (TCP, UDP) send the reply unchanged.  A range
 * outside the encoded results is ignored (counted in encode_errors).
 * -EINVAL: len is 0 or a range was already marked.
 */
RPCRDMA_API int rpcrdma_svc_call_set_bulk(struct rpcrdma_svc_call *call, size_t offset,
					  size_t len);

/*
 * Results built in place, for a handler that encodes its own results
 * instead of handing them to encode_res: the results area of the reply
 * buffer (right after the RPC reply header), *room bytes (the estimate,
 * rounded up to 4).  The buffer is the transport's: over RDMA it is
 * registered memory, so a bulk item read straight into it (NFS READ data,
 * then marked with rpcrdma_svc_call_set_bulk) reaches the client's write
 * chunk without being copied.  Valid until rpcrdma_svc_reply().
 */
RPCRDMA_API void *rpcrdma_svc_call_results(struct rpcrdma_svc_call *call, size_t *room);

/*
 * Declares that the handler wrote `len` bytes of results in place
 * (rpcrdma_svc_call_results); a SUCCESS reply then carries those bytes and
 * encode_res is not called.  -EINVAL: len is not a multiple of 4 or above
 * the room.
 */
RPCRDMA_API int rpcrdma_svc_call_set_results_len(struct rpcrdma_svc_call *call, size_t len);

/* --------------------------------------------------------------- service */

/*
 * Limits of the TCP transport (stream sockets; UDP and RDMA have their own).
 *
 * Connections.  At max_conns live connections, a new one makes room by
 * closing the idle connection (no call in progress, no reply queued; a
 * partial record does not count) whose last event is the oldest, as Linux's
 * svc_check_conn_limits does (counted in conns_evicted); when none is idle
 * the new connection is accepted and closed at once (conns_shed).  A
 * connection idle for idle_timeout_ms is closed (conns_idle); the check runs
 * every quarter of the timeout.  Adopted sockets count but never trigger
 * the eviction.
 *
 * Record memory.  A record's buffer grows with the bytes received (doubled
 * as it fills, from 4 KiB or less), never to the size a fragment header
 * announces, so a partial record costs at most about twice what arrived.
 * Buffered bytes -- the record being read, the records of calls in
 * progress, the replies not yet written -- are counted per connection and
 * for the service (tcp_buffered).  A connection whose record buffer must
 * grow beyond max_conn_bytes (unless that record is all it holds) or beyond
 * max_svc_bytes stops reading (mem_pauses; the kernel's socket buffer and
 * TCP flow control hold the rest) until memory is released; it is not
 * closed.  Replies are counted but never refused.  A connection stopped
 * with no call in progress is idle: the idle timeout frees what it holds.
 *
 * Fairness.  One pass of the loop gives a connection at most 32 read()s and
 * 16 records.  A record of more than 1024 fragments, or with more than 16
 * empty non-last fragments in a row, is a protocol error that closes the
 * connection (protocol_errors).
 */
#define RPCRDMA_SVC_UNLIMITED 0xffffffffu       /* idle_timeout_ms, max_conns */
#define RPCRDMA_SVC_DEFAULT_IDLE_MS 360000u     /* 6 minutes, as Linux */
#define RPCRDMA_SVC_DEFAULT_MAX_CONNS 1024u
#define RPCRDMA_SVC_DEFAULT_SVC_BYTES ((size_t)256 << 20)

struct rpcrdma_svc_opts {
	size_t size;              /* sizeof(struct rpcrdma_svc_opts) */
	unsigned max_calls;       /* calls in progress per transport instance
				   * (TCP connection, UDP socket); 0: 64 */
	size_t max_record;        /* TCP record limit, bytes; 0: 1 MiB + 4 KiB */
	size_t max_datagram;      /* UDP receive size; 0: 65536 */
	unsigned idle_timeout_ms; /* close TCP connections idle this long;
				   * 0: RPCRDMA_SVC_DEFAULT_IDLE_MS;
				   * RPCRDMA_SVC_UNLIMITED: never */
	unsigned max_conns;       /* TCP connections at once (see above);
				   * 0: RPCRDMA_SVC_DEFAULT_MAX_CONNS;
				   * RPCRDMA_SVC_UNLIMITED: no limit */
	size_t max_conn_bytes;    /* bytes buffered per TCP connection;
				   * 0: 4 * max_record */
	size_t max_svc_bytes;     /* bytes buffered by all TCP connections;
				   * 0: the larger of max_conn_bytes and
				   * RPCRDMA_SVC_DEFAULT_SVC_BYTES (256 MiB) */
	/* Log hook (<rpcrdma/diag.h>; NULL: silent): every call dropped
	 * without a reply, TCP connection shed and TCP connection closed,
	 * with its reason; also given to the listeners of
	 * rpcrdma_svc_listen_rdma whose opts name none. */
	rpcrdma_log_fn log_fn;
	void *log_arg;
	unsigned flags;           /* RPCRDMA_SVC_HANDLERS_SWITCH_CREDS,
				   * RPCRDMA_SVC_HANDLERS_BLOCK; 0: none */
	unsigned loops;           /* event loops (see "Several loops" below);
				   * 0 or 1: one, as before; at most
				   * RPCRDMA_SVC_MAX_LOOPS */
};

/*
 * Several loops (rpcrdma_svc_opts.loops = K > 1), so a server can use the
 * cores it has (docs/threading.md).  Each loop has its own epoll set and
 * its own thread, started by rpcrdma_svc_start (rpcrdma_svc_poll then
 * returns -EOPNOTSUPP: K loops need K threads of the service).  A TCP
 * connection, accepted or adopted, joins the loop with the fewest TCP
 * connections (ties in turn) and stays there: its records are read, its
 * handlers run and its replies are written on that loop's thread, and its
 * idle timeout is checked there.  An RDMA connection is spread the same
 * way at accept, unless the handlers switch credentials: each loop polls a
 * DIRECT poller of its own (the program's for loop 0 when it is DIRECT,
 * else one the service makes with the program's poller's options), whose
 * completion queue the connection's queue pair is given, so its
 * completions, handlers and replies run on its loop's thread for good,
 * whatever the program's poller mode (that poller then handles only the
 * listeners' connection events).  Loop 0 also keeps the listeners, the UDP
 * sockets, the program's DIRECT RDMA poller and the backward direction.  K > 1
 * declares the handlers thread-safe: handlers of one loop run one at a
 * time, but handlers of different loops run at once, and so do RDMA calls
 * run by the threads of a workqueue or busy poller (each thread runs the
 * calls of the completion queues it reaps; none waits for a loop).  With
 * K = 1 nothing changes: one handler of the service at a time.  The
 * counters of each loop: rpcrdma_svc_get_loop_stats.
 */
#define RPCRDMA_SVC_MAX_LOOPS 256u

/*
 * rpcrdma_svc_opts.flags: procedure handlers switch their thread's
 * credentials (setfsuid, setfsgid, setgroups), as an NFS server's do.  The
 * kernel then refuses that thread's RDMA commands for good, so with this
 * flag an RDMA reply is posted by the thread that finished it only after
 * the kernel said it may (one system call per reply until the thread's
 * first refusal, which is kept), else by a sender thread the service
 * starts; the loop thread polls a DIRECT poller only while the kernel takes
 * its commands, then hands it to a thread of the service for good.
 * Without it (the handlers never switch) replies are posted by the thread
 * that finished them and the loop thread polls a DIRECT poller, with no
 * system call asked first and no extra thread.
 */
#define RPCRDMA_SVC_HANDLERS_SWITCH_CREDS 0x1u
/*
 * rpcrdma_svc_opts.flags, only with RPCRDMA_SVC_HANDLERS_SWITCH_CREDS:
 * the handlers tell the core when they switch, calling
 * rpcrdma_svc_creds_switching() on their thread before its first switch.
 * The core then asks the kernel nothing for a thread that never called it
 * (no system call before a poll or a reply's post: one to three a call
 * fewer), and asks as with RPCRDMA_SVC_HANDLERS_SWITCH_CREDS alone for one
 * that did.  A handler that switches without telling gets its thread's
 * replies refused by the kernel (soft-RoCE), and their connections closed.
 */
#define RPCRDMA_SVC_HANDLERS_TELL_CREDS 0x4u
/*
 * rpcrdma_svc_opts.flags: procedure handlers may block until RDMA traffic
 * of the poller their calls arrive on is handled (a synchronous RPC over
 * RDMA on that same poller, waiting for another RDMA call of this
 * service).  A poller thread never runs such handlers, which could wait
 * for the very thread they block: every RDMA call is handed to the loop
 * thread (counted in rpcrdma_svc_stats.rdma_queued_block).  Handlers that
 * only block on disks, locks or other services do not need it.
 */
#define RPCRDMA_SVC_HANDLERS_BLOCK 0x2u

/* Fills *opts with the defaults (every field 0) and sets size. */
RPCRDMA_API void rpcrdma_svc_opts_init(struct rpcrdma_svc_opts *opts);

/*
 * Tells the service core that the calling thread is about to switch its
 * credentials (setfsuid, setfsgid, setgroups and the like), for the rest of
 * the thread's life: see RPCRDMA_SVC_HANDLERS_TELL_CREDS.  Any thread, any
 * time, as often as it likes; no effect on services without that flag.
 */
RPCRDMA_API void rpcrdma_svc_creds_switching(void);

/*
 * Creates a service.  opts may be NULL (defaults); opts->size must cover at
 * least the size field, and fields beyond it take their defaults.  -EINVAL
 * when max_calls > 2^20, max_record is outside 32 .. 2^31 - 1,
 * max_datagram outside 32 .. 65536, max_svc_bytes below max_record, an
 * unknown flag or loops above RPCRDMA_SVC_MAX_LOOPS;
 * -ENOMEM; -errno from epoll, eventfd or timerfd.
 */
RPCRDMA_API int rpcrdma_svc_create(const struct rpcrdma_svc_opts *opts,
				   struct rpcrdma_svc **out);
/*
 * Stops the loop thread (no rpcrdma_svc_poll() may be running or called
 * again), unsets what rpcrdma_svc_rpcbind_set() registered,
 * closes every socket, waits until every asynchronous call has been
 * completed with rpcrdma_svc_reply(), and frees everything.  NULL is a no-op.
 */
RPCRDMA_API void rpcrdma_svc_destroy(struct rpcrdma_svc *svc);

/*
 * Listens on a TCP or UDP socket bound to addr (port 0: any; the bound
 * address is stored in *bound and its length in *bound_len, each if not
 * NULL).  Non-blocking, on the service's epoll set.  Netid tcp/tcp6 or
 * udp/udp6 by address family.  -errno.
 */
RPCRDMA_API int rpcrdma_svc_listen_tcp(struct rpcrdma_svc *svc, const struct sockaddr *addr,
				       socklen_t len, struct sockaddr_storage *bound,
				       socklen_t *bound_len);
/*
 * Serves RPC-over-RDMA (RFC 8166) on addr: creates a listener
 * (rpcrdma_listener_create with poller and opts, which may be NULL) whose
 * calls run through this service like TCP calls: netid "rdma" or "rdma6",
 * with congestion control, the endpoint added for rpcrdma_svc_rpcbind_set.
 * No call changes threads but by a counted exception.  With a workqueue
 * or busy poller, the poller thread that receives a call runs its handler
 * and posts its reply (rdma_poller_calls), one handler at a time for the
 * service (a lock shared with the loop; with several loops, see "Several
 * loops", at once), while the service runs its own
 * thread (rpcrdma_svc_start); it hands the call to the loop thread instead
 * (rdma_queued_*) when handlers switch credentials or may block on the
 * poller (the flags), when the program runs the loop (rpcrdma_svc_poll:
 * handlers stay on its thread), or when the loop or another poller thread
 * is running a handler at that moment.  A DIRECT poller is driven by the service: its fd joins the
 * loop's epoll set and the loop thread polls it itself, so a call reaches
 * its handler with no hand-off between threads (counted in
 * rpcrdma_svc_stats.rdma_loop_calls); no other thread need poll it.  With
 * RPCRDMA_SVC_HANDLERS_SWITCH_CREDS that lasts while the kernel accepts the
 * loop thread's RDMA commands: once a handler has switched the thread's
 * credentials (setfsuid and the like), the poller is handed for good to a
 * thread the service started here, and calls are queued to the loop as
 * with a workqueue poller.  So call this from a thread whose credentials
 * never changed.  A service drives one
 * DIRECT poller (-EINVAL for a second one, and for one with
 * direct_spin, whose fd does not signal completions).  The reply
 * buffer the core reserves (header + estimate) is sent by
 * rpcrdma_call_reply(): inline when it fits, the item marked with
 * rpcrdma_svc_call_set_bulk by RDMA Write into the call's write chunk
 * (for a call with a write chunk of 8 KiB or more the reply buffer is
 * registered memory and the item is written from it, uncopied),
 * the rest by the reply chunk when still too large; what fits none of the
 * client's chunks is answered RDMA_ERROR/ERR_CHUNK.  Port 0 picks one;
 * *bound and *bound_len (each if not NULL) get the bound address and its
 * length.  *listener (if not NULL)
 * gets the listener, borrowed, for rpcrdma_listener_stats and
 * rpcrdma_listener_foreach_conn; rpcrdma_svc_destroy destroys it (the
 * poller must outlive the service).  -EINVAL, -ENOMEM, or the listener's
 * errors.
 */
#ifdef RPCRDMA_HAVE_RDMA /* only in a library built with RDMA */
RPCRDMA_API int rpcrdma_svc_listen_rdma(struct rpcrdma_svc *svc,
					struct rpcrdma_poller *poller,
					const struct sockaddr *addr,
					const struct rpcrdma_listener_opts *opts,
					struct sockaddr_storage *bound, socklen_t *bound_len,
					struct rpcrdma_listener **listener);
#endif
RPCRDMA_API int rpcrdma_svc_listen_udp(struct rpcrdma_svc *svc, const struct sockaddr *addr,
				       socklen_t len, struct sockaddr_storage *bound,
				       socklen_t *bound_len);

/*
 * Serves an already connected stream socket (TCP, or AF_UNIX with netid
 * "local"), e.g. one passed by a socket-activation manager: record marking,
 * congestion control, like an accepted TCP connection.  The fd is made
 * non-blocking.  On success the service owns the fd (closes it at the end);
 * on failure (-EINVAL: not a connected stream socket, -ENOMEM, -errno) the
 * caller keeps it.
 */
RPCRDMA_API int rpcrdma_svc_adopt_stream(struct rpcrdma_svc *svc, int fd);

/* Event loop, embedded: an fd that is readable when rpcrdma_svc_poll() has
 * work (an epoll fd; add it to your own poll/epoll set). */
RPCRDMA_API int rpcrdma_svc_fd(const struct rpcrdma_svc *svc);
/* One loop step: waits up to timeout_ms (-1: forever) and handles what is
 * ready.  Returns the number of events handled, or -errno (-EOPNOTSUPP:
 * the service has several loops, which only rpcrdma_svc_start runs). */
RPCRDMA_API int rpcrdma_svc_poll(struct rpcrdma_svc *svc, int timeout_ms);
/*
 * Event loop, own thread (one per loop, rpcrdma_svc_opts.loops).  start:
 * -EALREADY if running; -errno if a thread could not be started (none
 * is left running).  stop: joins them.
 * The thread inherits the caller's signal mask: a program that handles
 * signals on one thread of its own (sigwait, signalfd) blocks them with
 * pthread_sigmask() before rpcrdma_svc_start(), or a signal may be
 * delivered on the loop thread and interrupt its handlers.
 */
RPCRDMA_API int rpcrdma_svc_start(struct rpcrdma_svc *svc);
RPCRDMA_API void rpcrdma_svc_stop(struct rpcrdma_svc *svc);

struct rpcrdma_svc_stats {
	uint64_t calls;             /* calls dispatched to a handler */
	uint64_t replies[6];        /* accepted replies by accept_stat */
	uint64_t rpc_mismatch;      /* MSG_DENIED RPC_MISMATCH */
	uint64_t auth_errors;       /* MSG_DENIED AUTH_ERROR */
	uint64_t dropped;           /* messages dropped without a reply */
	uint64_t estimate_exceeded; /* result encoder ran past the estimate */
	uint64_t encode_errors;     /* result encoder failed otherwise */
	uint64_t busy;              /* calls refused: all slots taken (UDP drops) */
	uint64_t record_too_big;    /* TCP connections closed: record > max_record */
	uint64_t conns_accepted;    /* TCP connections accepted */
	uint64_t conns_closed;      /* TCP connections closed (all causes) */
	uint64_t conns_idle;        /* ... of which closed for being idle */
	uint64_t send_waits;        /* TCP writes cut short by a full socket buffer */
	uint64_t read_pauses;       /* TCP connections that stopped reading: all
				     * their slots were taken */
	uint64_t conns_shed;        /* TCP connections accepted and closed at
				     * once: max_conns reached with none idle,
				     * or out of fds */
	uint64_t rdma_direct;       /* RDMA replies posted by the thread that
				     * finished them */
	uint64_t rdma_handed;       /* ... handed to the sender thread instead:
				     * that thread had switched credentials
				     * (RPCRDMA_SVC_HANDLERS_SWITCH_CREDS) */
	uint64_t rdma_loop_calls;   /* RDMA calls the loop thread received
				     * itself, polling a DIRECT poller (see
				     * rpcrdma_svc_listen_rdma) */
	uint64_t conns_evicted;     /* idle TCP connections closed to make room
				     * at max_conns */
	uint64_t protocol_errors;   /* TCP connections closed for breaking the
				     * fragment rules (see rpcrdma_svc_opts) */
	uint64_t mem_pauses;        /* TCP connections that stopped reading:
				     * a memory cap was reached */
	uint64_t tcp_buffered;      /* bytes TCP connections buffer now */
	/* RDMA calls by the thread that ran their handler (docs/threading.md);
	 * with rdma_loop_calls they add up to the RDMA calls received. */
	uint64_t rdma_poller_calls; /* run by the workqueue or busy poller
				     * thread that received them: no hand-off */
	/* ... handed by a poller thread to the loop thread instead, as: */
	uint64_t rdma_queued_creds; /* handlers switch credentials
				     * (RPCRDMA_SVC_HANDLERS_SWITCH_CREDS): a
				     * poller thread must keep its own */
	uint64_t rdma_queued_block; /* handlers may block on the poller
				     * (RPCRDMA_SVC_HANDLERS_BLOCK) */
	uint64_t rdma_queued_embedded; /* the loop runs on the program's thread
				     * (rpcrdma_svc_poll), not the service's:
				     * handlers stay on it */
	uint64_t rdma_queued_busy;  /* another thread was running handlers
				     * (the loop, another poller thread), or
				     * every slot was taken */
	/* Two rare ways an RDMA call may leave the loop that owns its
	 * connection (with several loops; docs/threading.md): */
	uint64_t rdma_queued_slots; /* of rdma_loop_calls: refused by the
				     * core for want of slots (the RDMA
				     * transport's 2^20), they wait on its
				     * queue and run on loop 0 */
	uint64_t rdma_budget_calls; /* handed to the core by the thread
				     * that released the read budget they
				     * waited for (the listener's: loop 0
				     * or a poller thread), as their read
				     * chunks held nothing to pull; calls
				     * with RDMA Reads reach the core from
				     * their own completion queue */
	uint64_t calls_async;       /* calls whose handler returned
				     * RPCRDMA_SVC_ASYNC (any transport): the
				     * thread calling rpcrdma_svc_reply
				     * finishes them and, over RDMA, posts
				     * their replies, while the handler's
				     * thread goes on with other calls */
};
/* Copies the counters (at most size bytes of them). */
RPCRDMA_API void rpcrdma_svc_get_stats(const struct rpcrdma_svc *svc,
				       struct rpcrdma_svc_stats *st, size_t size);

/* The counters of one event loop (rpcrdma_svc_opts.loops). */
struct rpcrdma_svc_loop_stats {
	uint64_t conns;          /* TCP connections on the loop now */
	uint64_t conns_accepted; /* TCP connections it was given (accepted,
				  * adopted) */
	uint64_t calls;          /* TCP calls its connections handed to the
				  * core (each ran its handler on that loop's
				  * thread unless the handler made it ASYNC) */
	/* RDMA, with K > 1 loops (spread at accept like TCP, see "Several
	 * loops"): */
	uint64_t rdma_conns;     /* RDMA connections whose completion queue
				  * this loop's thread polls now */
	uint64_t rdma_calls;     /* RDMA calls this loop's thread reaped from
				  * its own poller and handed to the core */
};
/*
 * Copies the counters of loop `loop` (0 .. loops - 1; at most size bytes
 * of them).  Any thread, at any time; each counter is read on its own, so
 * a loop busy at that moment may be ahead in one of them.  Returns 0, or
 * -EINVAL: svc or st is NULL, or there is no such loop.
 */
RPCRDMA_API int rpcrdma_svc_get_loop_stats(const struct rpcrdma_svc *svc, unsigned loop,
					   struct rpcrdma_svc_loop_stats *st, size_t size);

/* --------------------------------------------------------------- rpcbind */

struct rpcrdma_rpcbind_opts {
	size_t size;             /* sizeof(struct rpcrdma_rpcbind_opts) */
	const char *sock_path;   /* NULL: "/run/rpcbind.sock" */
	int no_tcp_fallback;     /* don't try TCP 127.0.0.1:111 */
	int timeout_ms;          /* per exchange; 0: 2000 */
	const char *owner;       /* NULL: the uid as a decimal string */
};

/* Fills *opts with the defaults (every field 0 or NULL) and sets size. */
RPCRDMA_API void rpcrdma_rpcbind_opts_init(struct rpcrdma_rpcbind_opts *opts);

/*
 * Registers every (program, version) with rpcbind (version 4 SET, falling
 * back to version 3) for every endpoint (netid + universal address), except
 * versions needing congestion control on endpoints without it.  Stale
 * entries are UNSET first.  Reaches rpcbind over its local socket, else TCP
 * 127.0.0.1:111.  Registered entries are UNSET again by
 * rpcrdma_svc_rpcbind_unset() or rpcrdma_svc_destroy().
 * Returns 0, -ECONNREFUSED / -ENOENT (no rpcbind), -ETIMEDOUT, -EPROTO (a
 * bad reply), -EACCES (rpcbind refused a SET), -ENOMEM.
 */
RPCRDMA_API int rpcrdma_svc_rpcbind_set(struct rpcrdma_svc *svc,
					const struct rpcrdma_rpcbind_opts *opts);
/* Unsets what rpcrdma_svc_rpcbind_set() registered.  0 or -errno. */
RPCRDMA_API int rpcrdma_svc_rpcbind_unset(struct rpcrdma_svc *svc);

/*
 * Writes the universal address (RFC 5665) of an IPv4 or IPv6 socket address,
 * e.g. "127.0.0.1.8.1".  Returns its length or -EINVAL / -ENOSPC.
 */
RPCRDMA_API int rpcrdma_uaddr_format(const struct sockaddr *sa, socklen_t len,
				     char *buf, size_t size);

/* ------------------------------------------------- calls to the client */

/*
 * Backward direction (NFSv4.1 backchannel): a server program may send calls
 * to a client on the connection one of its calls came in on -- a TCP
 * connection (accepted or adopted) or an RPC-over-RDMA connection (RFC
 * 8167: inline only, within the backward credits the client reserved).
 *
 * Ownership and threads: the handle is counted (one reference per
 * rpcrdma_svc_call_conn, dropped by rpcrdma_svc_conn_put), usable from any
 * thread, and may outlive the connection and the service (put is then all
 * it is good for).  The request (and its args and res) belongs to the
 * library from a successful call_async until done runs; done may call
 * call_async and conn_put again but not rpcrdma_svc_destroy.  The
 * connection reads replies with its calls: over TCP a connection whose
 * slots (max_calls) are all taken reads nothing, so a handler should not
 * hold its call open (RPCRDMA_SVC_ASYNC) waiting for a backward reply on
 * the same connection when that could take every slot.
 */
struct rpcrdma_svc_conn;

/*
 * A counted reference to the connection the call came in on.  Any thread
 * while the call is in progress.  Returns 0 and *out, or -EOPNOTSUPP (UDP).
 * The reference keeps the handle, not the connection: once the connection
 * closes, calls on it fail with -ENOTCONN.  Release with
 * rpcrdma_svc_conn_put().
 */
RPCRDMA_API int rpcrdma_svc_call_conn(const struct rpcrdma_svc_call *call,
				      struct rpcrdma_svc_conn **out);

/* Drops a reference (any thread).  NULL is a no-op. */
RPCRDMA_API void rpcrdma_svc_conn_put(struct rpcrdma_svc_conn *conn);

/* 1 while the connection is up, else 0 (any thread). */
RPCRDMA_API int rpcrdma_svc_conn_connected(const struct rpcrdma_svc_conn *conn);

/*
 * Sends a call for prog/vers (req as in <rpcrdma/clnt.h>; res_bulk unused)
 * with cred (NULL: AUTH_NONE; else AUTH_SYS with its fields) on conn,
 * and matches the reply by xid.  Any thread.  0: done will be called
 * exactly once, on the service's loop thread (or in rpcrdma_svc_destroy
 * with -ECANCELED): 0, -ETIMEDOUT (req->timeout_ms, <= 0: 10 s),
 * -ENOTCONN / -ECONNRESET (the connection closed), -EACCES, -EREMOTEIO,
 * -EBADMSG as for rpcrdma_clnt_done.  req->decode runs before done, on
 * the loop thread (TCP) or a poller thread (RDMA).  Else a negative errno
 * and done is never called: -ENOTCONN, -EMSGSIZE (the call does not fit
 * inline over RDMA), -EAGAIN (over RDMA, every backward credit is in use:
 * at most min(2, the client's grant; 1 before its first reply) calls are
 * in flight, each until a reply arrives -- a timeout does not give it
 * back; over TCP, the connection already buffers max_conn_bytes: the
 * client does not read), -ENOMEM.
 */
RPCRDMA_API int rpcrdma_svc_conn_call_async(struct rpcrdma_svc_conn *conn, uint32_t prog,
					    uint32_t vers, const struct rpcrdma_svc_cred *cred,
					    struct rpcrdma_clnt_req *req,
					    rpcrdma_clnt_done done, void *arg);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_SVC_H */
