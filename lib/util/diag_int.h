/* SPDX-License-Identifier: BSD-2-Clause */
/* The log hook, for the transports (not installed). */
#ifndef RPCRDMA_DIAG_INT_H
#define RPCRDMA_DIAG_INT_H

#include <rpcrdma/diag.h>

/* Calls fn (if not NULL) with a record of these fields.  peer may be NULL. */
void rpcrdma__log(rpcrdma_log_fn fn, void *arg, enum rpcrdma_log_event event,
		  const char *netid, const struct sockaddr *peer, socklen_t peer_len,
		  const char *reason, int err);

/* A client's connection to dst closed with status (a negative errno). */
void rpcrdma__client_log(rpcrdma_log_fn fn, void *arg, const struct sockaddr *dst, int status);

#endif /* RPCRDMA_DIAG_INT_H */
