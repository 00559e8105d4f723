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
 *   handler: maps the call's credential to the caller's ids
 *     (tnfs_rpc_cred) and runs
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

/*
 * The caller of a call as tinynfs acts for it (before the export's
 * squashing, tnfs_export_squash): in is rpcrdma_svc_call_cred(call),
 * gss_service rpcrdma_svc_call_gss_service(call) and principal
 * rpcrdma_svc_call_principal(call).
 *   AUTH_SYS: its uid, gid and (at most 16) gids; no principal.
 *   RPCSEC_GSS: the ids the context was mapped to (tnfs_rpc_gss_map), the
 *     service (krb5 / krb5i / krb5p: tnfs_cred_sec() then names the
 *     flavour that the export's sec= list is checked against, and
 *     SP4_MACH_CRED's tnfs_machine_cred() the integrity) and the
 *     principal's name ("alice@REALM", "nfs/host@REALM").
 *   anything else (AUTH_NONE): anonymous.
 * Returns 0, or -EACCES for an RPCSEC_GSS call without a principal, with
 * an unknown service or a principal of TNFS_PRINCIPAL_MAX bytes or more
 * (which tnfs_rpc_gss_map refuses at context creation): *out is then
 * anonymous and the call must not run (truncated names could match).
 */
int tnfs_rpc_cred(const struct rpcrdma_svc_cred *in, int gss_service, const char *principal,
		  struct tnfs_cred *out);

/*
 * tinynfs's rpcrdma_gss_map_fn, as rpc.svcgssd and gssproxy map for
 * Linux nfsd: the local user named by the krb5 auth_to_local rules
 * (localname: "alice@REALM" -> "alice") through the name service
 * (getpwnam_r, getgrouplist: its uid, primary gid and up to 16 groups).
 * A principal without a local user (a host or nfs/ service principal,
 * another realm's user) maps to uid and gid (uint32_t)-1, which
 * tnfs_export_squash turns into the export's anonuid and anongid.  A
 * principal of TNFS_PRINCIPAL_MAX bytes or more: -ENAMETOOLONG (the
 * context is refused).  arg is unused.
 */
int tnfs_rpc_gss_map(void *arg, const char *principal, const char *localname,
		     struct rpcrdma_svc_cred *cred);

/* Serves RPCSEC_GSS (Kerberos 5) on svc with the keys of keytab (NULL:
 * KRB5_KTNAME or the system's) and tnfs_rpc_gss_map; before the service
 * starts.  rpcrdma_svc_set_gss's result (-ENOKEY: no usable key,
 * -ENOTSUP: librpcrdma built without GSS-API). */
int tnfs_rpc_set_gss(struct rpcrdma_svc *svc, const char *keytab);

/* Registers program 100003 version 4 for srv.  0 or -errno
 * (rpcrdma_svc_register). */
int tnfs_rpc_register(struct rpcrdma_svc *svc, struct tnfs_server *srv);

#endif
