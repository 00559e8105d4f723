/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * COMPOUND processing (RFC 8881 section 16.2 and 2.10.6): request body in,
 * reply body out.
 *
 *  - A header that does not decode (tag longer than 1024 bytes, truncated)
 *    returns -EBADMSG: the RPC layer answers GARBAGE_ARGS.
 *  - A minor version that is not enabled gives NFS4ERR_MINOR_VERS_MISMATCH
 *    with no results.
 *  - Operations run in order and stop at the first that fails; an
 *    operation number outside the minor version's range gives
 *    OP_ILLEGAL/NFS4ERR_OP_ILLEGAL, a known but unimplemented one
 *    NFS4ERR_NOTSUPP, undecodable arguments NFS4ERR_BADXDR.
 *  - The first operation must be SEQUENCE, or one of EXCHANGE_ID,
 *    CREATE_SESSION, DESTROY_SESSION, DESTROY_CLIENTID,
 *    BIND_CONN_TO_SESSION alone (else NFS4ERR_NOT_ONLY_OP); anything else
 *    first is NFS4ERR_OP_NOT_IN_SESSION; SEQUENCE later is
 *    NFS4ERR_SEQUENCE_POS.  More operations than the session allows is
 *    NFS4ERR_TOO_MANY_OPS, a request above its maximum NFS4ERR_REQ_TOO_BIG.
 *  - Before an operation runs, its reply-size estimate is reserved; if it
 *    does not fit in the reply space (the buffer, or the session's maximum
 *    response size) the operation gets NFS4ERR_REP_TOO_BIG, or
 *    NFS4ERR_REP_TOO_BIG_TO_CACHE when the client asked for caching and
 *    it would exceed the cached size.
 *  - A retransmission on a session slot gets the cached reply bytes, if
 *    the request had sa_cachethis set (or was a lone SEQUENCE); otherwise
 *    NFS4ERR_RETRY_UNCACHED_REP (RFC 8881 2.10.6.1.3).
 *
 * Every operation of the table has an estimator (tnfs_optable_check()
 * proves it at server creation).
 */
#ifndef TINYNFS_COMPOUND_H
#define TINYNFS_COMPOUND_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"
#include "nfs4_xdr.h"

struct tnfs_server;

/* Processes one COMPOUND for a caller with credentials `cred` (AUTH_SYS;
 * squashing is applied here).  Writes at most `cap` bytes to `rep`.
 * Returns 0 and *replen, -EBADMSG (garbage arguments) or -ENOSPC (cap
 * cannot hold even the reply header).
 *
 * Bulk data (RFC 8267 section 4.4: the first write chunk belongs to the
 * first READ of the COMPOUND): when the first READ operation run succeeds
 * with data, *bulk_off is where that data starts in `rep` (after its
 * length word) and *bulk_len its length without the XDR pad; else both
 * are 0 (no READ, the first READ returned 0 bytes or failed, an error
 * return, a reply from the session's reply cache).  Later READs are never
 * reported.  bulk_off and bulk_len may be NULL.
 *
 * Call it from a thread whose file-system ids are those of the thread that
 * created `srv` (see tnfs_fs_become()). */
int tnfs_compound(struct tnfs_server *srv, const struct tnfs_cred *cred,
		  const void *req, size_t reqlen, void *rep, size_t cap,
		  size_t *replen, size_t *bulk_off, size_t *bulk_len);

/* tnfs_compound() for a COMPOUND that came in an RPC call of req_hdr
 * header bytes and whose reply gets rep_hdr header bytes: the session's
 * ca_maxrequestsize, ca_maxresponsesize and ca_maxresponsesize_cached
 * then bound the whole RPC messages, as RFC 8881 18.36.3 counts them
 * (tnfs_compound: 0 and 0, the COMPOUND alone). */
int tnfs_compound_rpc(struct tnfs_server *srv, const struct tnfs_cred *cred,
		      const void *req, size_t reqlen, size_t req_hdr, size_t rep_hdr,
		      void *rep, size_t cap, size_t *replen, size_t *bulk_off,
		      size_t *bulk_len);
/* The same for the RPC call `call`, whose connection may become the
 * client's back channel (callback.h). */
struct rpcrdma_svc_call;
int tnfs_compound_call(struct tnfs_server *srv, const struct tnfs_cred *cred,
		       const struct rpcrdma_svc_call *call, const void *req, size_t reqlen,
		       size_t req_hdr, size_t rep_hdr, void *rep, size_t cap, size_t *replen,
		       size_t *bulk_off, size_t *bulk_len);

/* Upper bound of the reply of this COMPOUND, from decoding its arguments
 * only (current file handle sizes taken at their maximum).  For the
 * transport: inline reply or reply chunk.  *bulk receives the part of it
 * that is the first READ's payload, XDR pad included (which the reply's
 * write chunk can carry instead; the data of later READs stays inline,
 * as tnfs_compound() reports only the first READ's).  Returns
 * 0, or -EBADMSG if the header does not decode (the undecodable rest is
 * bounded by one error result). */
int tnfs_compound_estimate(const struct tnfs_server *srv, const void *req,
			   size_t reqlen, size_t *total, size_t *bulk);

/* Estimator context: what is known before an operation runs. */
struct tnfs_est {
	const struct tnfs_server *srv;
	uint32_t minor;
	uint32_t fh_len; /* current file handle's size; NFS4_FHSIZE if unknown */
	uint32_t max_owner_len;
	size_t maxresp;
	/* reply bytes still free for this operation's result: READ and
	 * READDIR shrink to it (a short read, fewer entries), so their
	 * estimate is clamped to it */
	size_t room;
};

/* One operation's reply-size bound, resop and status words included;
 * 0 if the table has no entry (or no estimator) for op. */
size_t tnfs_op_estimate(uint32_t op, const struct tnfs_est *e, const union nfs4_args *a);

/* 0 if every operation with a codec has a table entry with an estimator
 * and a handler, and the reverse; -ENOSYS otherwise (*missing = the op). */
int tnfs_optable_check(uint32_t *missing);

#endif
