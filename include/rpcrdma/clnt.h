/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One ONC RPC client (RFC 5531) over TCP, UDP and RPC-over-RDMA.
 *
 * A client is made from a netid ("tcp", "tcp6", "udp", "udp6", "rdma",
 * "rdma6") and an address.  Without a port (0), it asks the host's rpcbind
 * at port 111, as libtirpc's clnt_create() does: RFC 1833 version 4
 * GETADDR over the netid's own transport (rpcbind answers GETADDR for the
 * transport the query came on); for rdma/rdma6, which rpcbind does not
 * serve, DUMP over TCP and the entry for that netid.  Calls carry their
 * arguments and results through the library's XDR (<rpcrdma/xdr.h>) by
 * callbacks, with AUTH_NONE or AUTH_SYS, synchronously or asynchronously,
 * each with a timeout.
 *
 *  - TCP: record marking; a broken connection fails the calls in flight
 *    (-ECONNRESET) and the next call reconnects, with the reconnect backoff
 *    of <rpcrdma/client.h>.  The reconnect never blocks: calls queue behind
 *    it and keep their own timeouts; one that takes connect_timeout_ms is
 *    given up and its calls fail -ETIMEDOUT.
 *  - UDP: a call is sent again every retrans_ms (doubling, up to the call's
 *    timeout); replies are matched by xid and duplicates dropped.
 *  - RDMA: the RPC-over-RDMA client of <rpcrdma/client.h> (never more calls
 *    in flight than the server granted; a grant of 0 is taken as 1).  Inline, read
 *    chunk, write chunk or reply chunk is chosen from the sizes the request
 *    declares; the encoder and decoder may mark one bulk argument and one
 *    bulk result (RFC 8267's DDP-eligible items) with
 *    rpcrdma_clnt_put_bulk() and rpcrdma_clnt_get_bulk().
 *
 * Threads: every function is thread-safe.  Callbacks (encode, decode, done)
 * run on a thread of the client's own (or of the poller given in the
 * options, for RDMA), never inside rpcrdma_clnt_call_async().
 */
#ifndef RPCRDMA_CLNT_H
#define RPCRDMA_CLNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rpcrdma/api.h>
#include <rpcrdma/diag.h>
#include <rpcrdma/xdr.h>

RPCRDMA_BEGIN_DECLS

struct rpcrdma_clnt;
struct rpcrdma_poller;  /* <rpcrdma/poller.h> */
struct rpcrdma_svc;     /* <rpcrdma/svc.h> */
struct rpcrdma_stats;   /* <rpcrdma/stats.h> (RDMA builds) */

struct rpcrdma_clnt_opts {
	size_t size;              /* sizeof(struct rpcrdma_clnt_opts) */
	int timeout_ms;           /* default per-call timeout (25000) */
	int retrans_ms;           /* UDP first retransmission (1000) */
	int connect_timeout_ms;   /* connect, rpcbind query included (5000) */
	int reconnect_min_ms;     /* as in <rpcrdma/client.h> (100) */
	int reconnect_max_ms;     /* (2000) */
	uint32_t max_credits;     /* RDMA: calls in flight at most (32) */
	uint32_t inline_size;     /* RDMA: inline send and receive (4096) */
	/* RDMA: the poller to run on (must outlive the client); NULL: the
	 * client makes its own WORKQUEUE poller. */
	struct rpcrdma_poller *poller;
	rpcrdma_log_fn log_fn;    /* NULL: silent */
	void *log_arg;
};

RPCRDMA_API void rpcrdma_clnt_opts_init(struct rpcrdma_clnt_opts *opts);

/*
 * Creates a client for program prog, version vers at addr over netid.  A
 * port of 0 asks rpcbind at addr's host.  Connection-oriented transports
 * connect here.  Returns 0 and *out, or -EINVAL (unknown netid, or one
 * that does not match addr's family), -EPROTONOSUPPORT (rdma in a build
 * without RDMA), -ENOENT (rpcbind has no such program/version/netid),
 * -ETIMEDOUT, -ECONNREFUSED, -ENOMEM, ...
 */
RPCRDMA_API int rpcrdma_clnt_create(const char *netid, const struct sockaddr *addr,
				    socklen_t addrlen, uint32_t prog, uint32_t vers,
				    const struct rpcrdma_clnt_opts *opts,
				    struct rpcrdma_clnt **out);

/*
 * Parses "HOST", "HOST:PORT", "[V6]:PORT", "V6%IFNAME" or
 * "V6%IFNAME:PORT" (numeric addresses only, no name lookup; IFNAME may be
 * an interface index) into *ss with port 0 when none is given.
 * Returns 0 or -EINVAL.
 */
RPCRDMA_API int rpcrdma_clnt_parse_addr(const char *text, struct sockaddr_storage *ss,
					socklen_t *len);


/*
 * rpcrdma_clnt_create() from a host name or a numeric address (IPv6 with or
 * without brackets, with a %scope), as libtirpc's clnt_create() takes one:
 * resolved by getaddrinfo() in the netid's family (tcp, udp, rdma: IPv4;
 * tcp6, udp6, rdma6: IPv6), each address tried in turn until one gives a
 * client.  port 0 asks the host's rpcbind.  Returns 0, the last address's
 * error, -ENXIO when the name does not resolve in that family,
 * -EAFNOSUPPORT for a numeric address of the other family, -EAGAIN when the
 * resolver cannot answer now, or -EINVAL.  Blocks while resolving and
 * connecting; thread-safe.
 */
RPCRDMA_API int rpcrdma_clnt_create_host(const char *netid, const char *host, uint16_t port,
					 uint32_t prog, uint32_t vers,
					 const struct rpcrdma_clnt_opts *opts,
					 struct rpcrdma_clnt **out);

/* Fails the calls in flight (-ECANCELED, done called), disconnects and
 * frees.  Not from a callback of this client.  NULL is a no-op. */
RPCRDMA_API void rpcrdma_clnt_destroy(struct rpcrdma_clnt *c);

/* Credentials for later calls: AUTH_NONE (the default), or AUTH_SYS with
 * at most 16 gids and a machine name of at most 255 bytes (-EINVAL). */
RPCRDMA_API int rpcrdma_clnt_set_auth_none(struct rpcrdma_clnt *c);
RPCRDMA_API int rpcrdma_clnt_set_auth_sys(struct rpcrdma_clnt *c, const char *machinename,
					  uint32_t uid, uint32_t gid, uint32_t ngids,
					  const uint32_t *gids);

/*
 * One call.  The caller fills the fields before rpcrdma_clnt_call*() and
 * keeps the structure (and args, res, res_bulk) alive and unchanged until
 * the call completes.
 *  - encode(enc, args): writes the arguments, at most args_max bytes (the
 *    encoder gets exactly that room; running out is -EMSGSIZE).  NULL: none.
 *  - decode(dec, res): reads the results of a MSG_ACCEPTED SUCCESS reply;
 *    non-zero makes the call fail with -EBADMSG.  NULL: results ignored.
 *  - res_max: the largest reply (results plus RPC header) the caller
 *    expects; over RDMA, a larger one comes by reply chunk.
 *  - res_bulk/res_bulk_len: where a bulk result (rpcrdma_clnt_get_bulk)
 *    lands; over RDMA a write chunk is offered over it.  NULL: none.
 *  - timeout_ms: <= 0: the client's default.
 * Results: status of the call (see rpcrdma_clnt_done), reply_stat
 * accept_stat and auth_stat as received (for -EACCES and -EREMOTEIO), and
 * for PROG_MISMATCH or RPC_MISMATCH the versions the server supports
 * (vers_low, vers_high; written only when size covers them, so a caller
 * built before they existed keeps working).
 */
struct rpcrdma_clnt_req {
	size_t size;              /* sizeof(struct rpcrdma_clnt_req) */
	uint32_t proc;
	int (*encode)(struct rpcrdma_xdr_enc *enc, const void *args);
	const void *args;
	size_t args_max;
	int (*decode)(struct rpcrdma_xdr_dec *dec, void *res);
	void *res;
	size_t res_max;
	void *res_bulk;
	size_t res_bulk_len;
	int timeout_ms;
	/* results */
	uint32_t reply_stat;      /* 0 MSG_ACCEPTED, 1 MSG_DENIED */
	uint32_t accept_stat;     /* RFC 5531 accept_stat, or reject_stat */
	uint32_t auth_stat;       /* when denied for AUTH_ERROR */
	uint32_t xid;
	uint32_t vers_low;        /* PROG_MISMATCH / RPC_MISMATCH: lowest supported */
	uint32_t vers_high;       /* and highest */
};

/*
 * In an encode callback, on the encoder it was given (no other stream):
 * appends one XDR opaque (length, bytes, pad) that
 * the RDMA transport may send by read chunk (the other transports send it
 * inline).  At most one per call (-EINVAL), len up to 2^31; -EMSGSIZE when
 * it does not fit args_max.  The bytes are copied.
 */
RPCRDMA_API int rpcrdma_clnt_put_bulk(struct rpcrdma_xdr_enc *enc, const void *data,
				      uint32_t len);

/*
 * In a decode callback, on the decoder it was given (no other stream):
 * reads one XDR opaque of at most max bytes that the
 * server may have sent by write chunk into the request's res_bulk.  *data
 * points into res_bulk or into the received reply, valid until done
 * returns.  Returns 0, or -EBADMSG (malformed, or longer than max).
 */
RPCRDMA_API int rpcrdma_clnt_get_bulk(struct rpcrdma_xdr_dec *dec, const void **data,
				      uint32_t *len, uint32_t max);

/*
 * Called once per call accepted by rpcrdma_clnt_call_async, with 0
 * (MSG_ACCEPTED SUCCESS, decoded) or a negative errno: -ETIMEDOUT,
 * -ECONNRESET, -ECANCELED (client destroyed), -EBADMSG (reply or results
 * malformed), -EACCES (MSG_DENIED), -EREMOTEIO (accepted but not SUCCESS:
 * see req->accept_stat), -EMSGSIZE, or what stopped it from being sent:
 * the reconnect's error over TCP and RDMA (-ECONNREFUSED, ..., also while
 * the backoff holds the next try back), an ICMP port unreachable over UDP
 * (-ECONNREFUSED, as libtirpc's clnt_dg reports it).
 */
typedef void (*rpcrdma_clnt_done)(struct rpcrdma_clnt_req *req, int status, void *arg);

/* Queues a call.  0: done will be called; else a negative errno and done
 * is never called. */
RPCRDMA_API int rpcrdma_clnt_call_async(struct rpcrdma_clnt *c, struct rpcrdma_clnt_req *req,
					rpcrdma_clnt_done done, void *arg);

/* Sends a call and waits for it; returns its status.  Not from a callback
 * of this client. */
RPCRDMA_API int rpcrdma_clnt_call(struct rpcrdma_clnt *c, struct rpcrdma_clnt_req *req);

/*
 * Why a call ended, as one line in libtirpc's clnt_sperror() style:
 * "PREFIX: RPC: Program/version mismatch; low version = 2, high version =
 * 3", "...: RPC: Authentication error; why = Client credential too weak",
 * "...: RPC: Unable to send; errno = connection refused", "...: RPC: Timed
 * out".  status is what the call returned (or done was given); req, the
 * finished call, may be NULL (then only status is used).  prefix may be
 * NULL.  Writes at most len bytes into buf, always terminated; returns buf.
 * Thread-safe.
 */
RPCRDMA_API char *rpcrdma_clnt_sperror(const struct rpcrdma_clnt_req *req, int status,
				       const char *prefix, char *buf, size_t len);

/* The same line, with a newline, to standard error. */
RPCRDMA_API void rpcrdma_clnt_perror(const struct rpcrdma_clnt_req *req, int status,
				     const char *prefix);

/*
 * Serves calls the server sends back on this client's connection (NFSv4.1
 * backchannel; over RDMA, RFC 8167) through svc, a service on which the
 * callback program is registered (it need not listen anywhere): each
 * backward call is dispatched as if svc had received it, and its reply goes
 * back on the connection.  svc must outlive the client.  NULL stops it
 * (backward calls are then dropped).  Returns 0, or -EOPNOTSUPP for UDP,
 * -ENOMEM.
 * Threads: svc's loop need not run: a backward call's handler runs on the
 * client's thread (TCP) or the poller's (RDMA), one call at a time, so it
 * must not wait for a call of this client (rpcrdma_clnt_call) nor call
 * rpcrdma_clnt_set_backchannel; a handler that answers later
 * (RPCRDMA_SVC_ASYNC) may answer from any thread.  The calls count
 * against svc's max_calls (beyond it they are dropped) and its counters.
 * After set_backchannel returns, no reply of the previous service's goes
 * out; rpcrdma_svc_destroy(svc) waits until no client uses it.
 */
RPCRDMA_API int rpcrdma_clnt_set_backchannel(struct rpcrdma_clnt *c, struct rpcrdma_svc *svc);

/* The netid the client was made with ("tcp", ..., "rdma6"), static. */
RPCRDMA_API const char *rpcrdma_clnt_netid(const struct rpcrdma_clnt *c);

/* The transport's counters (over RDMA those of <rpcrdma/client.h>); out
 * is a struct rpcrdma_stats, zeroed first. */
RPCRDMA_API void rpcrdma_clnt_stats(const struct rpcrdma_clnt *c, struct rpcrdma_stats *out);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_CLNT_H */
