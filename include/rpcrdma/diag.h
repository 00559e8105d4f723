/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma diagnostics: error strings and the log hook.
 *
 * The log hook is per object, not a process global (the library keeps no
 * global mutable state): a service takes it in rpcrdma_svc_opts, an RDMA
 * listener in rpcrdma_listener_opts (rpcrdma_svc_listen_rdma passes the
 * service's hook to its listener unless the listener's opts name one), an
 * RDMA client in rpcrdma_client_opts.
 * Without a hook (the default) nothing is reported.
 *
 * The hook is called synchronously, on the thread that noticed the event:
 * a service's loop thread (whoever drives rpcrdma_svc_poll or the thread
 * of rpcrdma_svc_start), the thread that completes an asynchronous call,
 * or an RDMA poller's thread; so possibly from several threads at once.
 * It must be quick, must not block, and must not call back into the object
 * that reports (no destroy, stop or listen from inside the hook).  The
 * record and everything it points to are valid only during the call.
 */
#ifndef RPCRDMA_DIAG_H
#define RPCRDMA_DIAG_H

#include <sys/socket.h>

#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

/*
 * A message for a negative errno returned by this library: where the code
 * has a meaning of its own here (-EBADMSG: malformed XDR; -EPROTONOSUPPORT:
 * an RPC-over-RDMA version other than 1; -EXDEV: data spans two segments;
 * ...) that meaning, else the C library's description; "unknown error"
 * only for a number that is no errno.  err may be given with either
 * sign.  A static string, never NULL; thread-safe.
 */
RPCRDMA_API const char *rpcrdma_strerror(int err);

/* What a log record reports. */
enum rpcrdma_log_event {
	RPCRDMA_LOG_CALL_DROPPED = 1,  /* a call (or message) dropped, no reply */
	RPCRDMA_LOG_CONN_REFUSED = 2,  /* a connection refused or shed at once */
	RPCRDMA_LOG_CONN_CLOSED = 3,   /* an established connection closed */
};

struct rpcrdma_log_record {
	enum rpcrdma_log_event event;
	const char *netid;            /* "tcp", "udp6", "rdma", ...; never NULL */
	const struct sockaddr *peer;  /* the peer, or NULL when unknown */
	socklen_t peer_len;           /* 0 when peer is NULL */
	const char *reason;           /* why, e.g. "idle timeout"; never NULL */
	int err;                      /* a negative errno when one applies, else 0 */
};

/* The hook: arg is the one given with it. */
typedef void (*rpcrdma_log_fn)(void *arg, const struct rpcrdma_log_record *rec);

/* The name of an event ("call dropped", ...), or "unknown". */
RPCRDMA_API const char *rpcrdma_log_event_str(enum rpcrdma_log_event event);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_DIAG_H */
