/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NFS RPC program (100003) on the librpcrdma service core: version 4
 * with procedures NULL (0) and COMPOUND (1), flagged as needing congestion
 * control, so the core answers NFSv4 calls over UDP with PROG_MISMATCH and
 * never registers version 4 with rpcbind for udp/udp6.  It is independent of
 * the transport: every transport the service has (TCP, UDP, RDMA) delivers
 * calls to the same procedures.
 *
 * COMPOUND:
 *   decode_args: the COMPOUND4args body is copied out of the message as
 *     raw bytes (the core's decode stream may span several buffers: an
 *     RDMA read chunk, for instance); more than TNFS_RPC_MAX_ARGS bytes is
 *     GARBAGE_ARGS.
 *   estimate: tnfs_compound_estimate() of those bytes (a header that does
 *     not decode is bounded by a tiny reply: the handler then answers
 *     GARBAGE_ARGS without results).
 *   handler: maps the call's credential to the caller's ids (AUTH_SYS:
 *     uid, gid, gids; AUTH_NONE: the export's anonymous ids) and runs
 *     tnfs_compound() into a buffer of exactly the estimate; -EBADMSG
 *     (header garbage) is GARBAGE_ARGS, anything else unexpected
 *     SYSTEM_ERR.
 *   encode_res: copies the reply body.
 *   release: frees both buffers.
 * The program's context is the struct tnfs_server; it must outlive the
 * service.
 */
#ifndef TINYNFS_RPC_H
#define TINYNFS_RPC_H

#include <rpcrdma/svc.h>

#include "server.h"

#define TNFS_RPC_PROG 100003u
#define TNFS_RPC_VERS 4u
#define TNFS_RPC_NULL 0u
#define TNFS_RPC_COMPOUND 1u

/* Largest COMPOUND body accepted: the session's largest request. */
#define TNFS_RPC_MAX_ARGS ((size_t)TNFS_MAX_REQ)

/* Registers program 100003 version 4 for srv.  0 or -errno
 * (rpcrdma_svc_register). */
int tnfs_rpc_register(struct rpcrdma_svc *svc, struct tnfs_server *srv);

#endif
