/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal: the delegation hooks of the operations (ops_deleg.c, on
 * deleg.h).  The *_conflict ones recall what conflicts and return
 * NFS4ERR_DELAY while it is held (the operation then does nothing).
 */
#ifndef TINYNFS_OPS_DELEG_H
#define TINYNFS_OPS_DELEG_H

#include "ops.h"

struct tnfs_attrs_in;

/* OPEN CLAIM_DELEGATE_CUR / CLAIM_DELEG_CUR_FH: sid must be a delegation
 * of this client (being recalled or not). */
uint32_t tnfs_deleg_claim(struct tnfs_ctx *c, const struct nfs4_stateid *sid);
/* OPEN with `access` of file k. */
uint32_t tnfs_deleg_open_conflict(struct tnfs_ctx *c, struct tnfs_file_key k, uint32_t access);
/* After a successful OPEN of n (file k, attributes st): r->open.deleg,
 * deleg_sid and why.  wfd: -1, or for an OPEN for writing a dup of its
 * descriptor when that is open for reading and writing, which a write
 * delegation may take (closed here in any case). */
void tnfs_deleg_open_grant(struct tnfs_ctx *c, const struct tnfs_node *n, struct tnfs_file_key k,
			   const struct stat *st, uint32_t share_access, uint32_t claim, int wfd,
			   union nfs4_res *r);
/* WANT_OPEN_XOR_DELEGATION (RFC 9754, minor version 2): after
 * tnfs_deleg_open_grant, when a delegation was granted and the OPEN made
 * a new open stateid (not an upgrade of the owner's), that stateid goes
 * at once (closed: no CLOSE or OPEN_DOWNGRADE knows it), r->open.stateid
 * is the anonymous one and r->open.rflags has
 * OPEN4_RESULT_NO_OPEN_STATEID; the client does its I/O, and ends it,
 * with the delegation stateid (as nfsd). */
void tnfs_deleg_open_xor(struct tnfs_ctx *c, struct tnfs_file_key k, uint32_t share_access,
			 union nfs4_res *r);
/* REMOVE or RENAME of dir/name (source or target) by another client. */
uint32_t tnfs_deleg_name_conflict(struct tnfs_ctx *c, const struct tnfs_node *dir,
				  const char *name);
/* GETATTR (and VERIFY, NVERIFY) of the current file asking for its size
 * or change attribute, of which another client holds a write delegation:
 * asked of the holder with CB_GETATTR (tnfs_deleg_getattr, RFC 8881
 * 10.4.3): NFS4ERR_DELAY until it answered, then NFS4_OK, *set and *st
 * (the file's, stat'ed) with the holder's size and a change attribute
 * above the file's if it wrote.  With delegated timestamps (RFC 9754,
 * minor version 2) the access and modify times as well, and asking for
 * only those asks the holder too. */
uint32_t tnfs_deleg_getattr_conflict(struct tnfs_ctx *c, const struct nfs4_bitmap *mask,
				     struct stat *st, bool *set);
/* SETATTR of time_deleg_access or time_deleg_modify (RFC 9754) in ai
 * with stateid: the holder's own delegation with delegated timestamps
 * only (tnfs_deleg_times: NFS4ERR_BAD_STATEID otherwise); both ways of
 * setting one time at once: NFS4ERR_INVAL.  The vetted times go into
 * ai->sa (as SET_TO_CLIENT_TIME4); an ignored one is left out. */
uint32_t tnfs_deleg_setattr_times(struct tnfs_ctx *c, const struct nfs4_stateid *stateid,
				  struct tnfs_attrs_in *ai);
/* SETATTR (of attributes other than the size, which goes as WRITE does)
 * of n by another client: its delegations are recalled, as the kernel's
 * notify_change breaks nfsd's. */
uint32_t tnfs_deleg_node_conflict(struct tnfs_ctx *c, const struct tnfs_node *n);

#endif
