/* SPDX-License-Identifier: BSD-2-Clause */
/* Error and status strings, and the per-object log hook (see diag.h). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>

#include <rpcrdma/diag.h>
#include <rpcrdma/svc.h>

#include "diag_int.h"

struct errmsg {
	int err;
	const char *msg;
};

/* The meanings this library gives, then the usual ones it returns. */
static const struct errmsg errmsgs[] = {
	{ EBADMSG, "malformed or truncated message (XDR or transport header)" },
	{ EMSGSIZE, "does not fit: no room in the buffer, or a reply truncated" },
	{ EPROTONOSUPPORT, "RPC-over-RDMA version not supported (only version 1)" },
	{ EPROTO, "protocol error: the peer sent a malformed reply" },
	{ EXDEV, "data spans two buffer segments (use the copying form)" },
	{ ENOSPC, "no free id or no room left" },
	{ EBUSY, "busy: every call slot is taken, or calls are in progress" },
	{ EEXIST, "already exists (program, group, or call xid)" },
	{ ENOENT, "not found (for a client: program not registered with rpcbind)" },
	{ ECANCELED, "call cancelled: the client was destroyed" },
	{ ETIMEDOUT, "timed out" },
	{ ECONNREFUSED, "connection refused" },
	{ ECONNRESET, "connection reset by the peer" },
	{ ENOTCONN, "not connected" },
	{ EHOSTUNREACH, "host unreachable" },
	{ ENETUNREACH, "network unreachable" },
	{ EADDRINUSE, "address already in use" },
	{ EADDRNOTAVAIL, "address not available" },
	{ EAFNOSUPPORT, "address family not supported" },
	{ EALREADY, "already running" },
	{ EAGAIN, "resource temporarily unavailable (limit reached)" },
	{ EACCES, "permission denied (or refused by rpcbind)" },
	{ EPERM, "operation not permitted" },
	{ EINVAL, "invalid argument" },
	{ ENOMEM, "out of memory" },
	{ EIO, "input/output error" },
	{ ENODEV, "no such device" },
	{ ENOSYS, "not implemented" },
	{ EOPNOTSUPP, "operation not supported" },
	{ EMFILE, "too many open files" },
	{ ENFILE, "too many open files in the system" },
	{ EINTR, "interrupted" },
	{ EPIPE, "broken pipe" },
	{ ERANGE, "out of range" },
	{ E2BIG, "too big" },
	{ ENOBUFS, "no buffer space available" },
	{ ESHUTDOWN, "shut down" },
	{ EREMOTEIO, "the server accepted the call but did not run it (accept_stat not SUCCESS), "
		     "or the RPC-over-RDMA peer refused its chunks (ERR_CHUNK)" },
	{ ECONNABORTED, "connection aborted" },
	{ ENXIO, "unknown host: the name does not resolve (in the netid's address family)" },
	{ EPROTOTYPE, "wrong transport for this call" },
};

const char *rpcrdma_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	for (size_t i = 0; i < sizeof(errmsgs) / sizeof(errmsgs[0]); i++)
		if (errmsgs[i].err == err)
			return errmsgs[i].msg;
	/* glibc's own description: a static string, unlike strerror()'s
	 * buffer, so thread-safe; NULL for a code it does not know. */
	const char *desc = strerrordesc_np(err);
	return desc ? desc : "unknown error";
}

const char *rpcrdma_log_event_str(enum rpcrdma_log_event event)
{
	switch (event) {
	case RPCRDMA_LOG_CALL_DROPPED:
		return "call dropped";
	case RPCRDMA_LOG_CONN_REFUSED:
		return "connection refused";
	case RPCRDMA_LOG_CONN_CLOSED:
		return "connection closed";
	}
	return "unknown";
}

const char *rpcrdma_svc_status_str(int status)
{
	switch (status) {
	case RPCRDMA_SVC_SUCCESS:
		return "SUCCESS";
	case RPCRDMA_SVC_PROG_UNAVAIL:
		return "PROG_UNAVAIL";
	case RPCRDMA_SVC_PROG_MISMATCH:
		return "PROG_MISMATCH";
	case RPCRDMA_SVC_PROC_UNAVAIL:
		return "PROC_UNAVAIL";
	case RPCRDMA_SVC_GARBAGE_ARGS:
		return "GARBAGE_ARGS";
	case RPCRDMA_SVC_SYSTEM_ERR:
		return "SYSTEM_ERR";
	case RPCRDMA_SVC_DROP:
		return "DROP";
	case RPCRDMA_SVC_ASYNC:
		return "ASYNC";
	}
	return "unknown";
}

const char *rpcrdma_svc_auth_stat_str(int stat)
{
	switch (stat) {
	case RPCRDMA_AUTH_OK:
		return "AUTH_OK";
	case RPCRDMA_AUTH_BADCRED:
		return "AUTH_BADCRED";
	case RPCRDMA_AUTH_REJECTEDCRED:
		return "AUTH_REJECTEDCRED";
	case RPCRDMA_AUTH_BADVERF:
		return "AUTH_BADVERF";
	case RPCRDMA_AUTH_REJECTEDVERF:
		return "AUTH_REJECTEDVERF";
	case RPCRDMA_AUTH_TOOWEAK:
		return "AUTH_TOOWEAK";
	}
	return "unknown";
}

void rpcrdma__log(rpcrdma_log_fn fn, void *arg, enum rpcrdma_log_event event,
		  const char *netid, const struct sockaddr *peer, socklen_t peer_len,
		  const char *reason, int err)
{
	if (!fn)
		return;
	struct rpcrdma_log_record rec = {
		.event = event,
		.netid = netid ? netid : "",
		.peer = peer_len ? peer : NULL,
		.peer_len = peer ? peer_len : 0,
		.reason = reason ? reason : "",
		.err = err,
	};
	fn(arg, &rec);
}

void rpcrdma__client_log(rpcrdma_log_fn fn, void *arg, const struct sockaddr *dst, int status)
{
	if (!fn)
		return;
	const char *why = status == -ENODEV	? "device removed"
			  : status == -ETIMEDOUT  ? "a call timed out"
			  : status == -ECANCELED  ? "client destroyed"
			  : status == -ECONNRESET ? "connection lost (a work request failed, "
						    "or the server disconnected)"
						  : rpcrdma_strerror(status);
	bool v6 = dst->sa_family == AF_INET6;
	/* a client destroyed is a normal close: no error, whatever its calls */
	rpcrdma__log(fn, arg, RPCRDMA_LOG_CONN_CLOSED, v6 ? "rdma6" : "rdma", dst,
		     v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in), why,
		     status == -ECANCELED ? 0 : status);
}
