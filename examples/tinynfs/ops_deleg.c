/* SPDX-License-Identifier: BSD-2-Clause */
/* Delegations in the operations: DELEGRETURN, and the grant, claim and
 * recall hooks of OPEN, REMOVE, RENAME, SETATTR and I/O (deleg.h). */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "ops.h"
#include "ops_deleg.h"

static bool key_of(const struct stat *st, struct tnfs_file_key *k)
{
	if (!S_ISREG(st->st_mode))
		return false;
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	return true;
}

uint32_t tnfs_op_delegreturn(struct tnfs_ctx *c, const union nfs4_args *a,
			     union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	struct nfs4_stateid sid;
	struct stat st;
	struct tnfs_file_key k;
	uint32_t s = tnfs_ctx_stateid(c, &a->free_stateid.stateid, &sid);
	if (s != NFS4_OK)
		return s;
	if ((s = tnfs_fs_stat(&c->cfh, &st)) != NFS4_OK)
		return s;
	if (!key_of(&st, &k) || !tnfs_deleg_is_sid(&sid))
		return NFS4ERR_BAD_STATEID;
	return tnfs_deleg_return(c->srv->deleg, c->clientid, &sid, k);
}

uint32_t tnfs_deleg_claim(struct tnfs_ctx *c, const struct nfs4_stateid *sid)
{
	if (!tnfs_deleg_is_sid(sid))
		return NFS4ERR_BAD_STATEID;
	return tnfs_deleg_check(c->srv->deleg, c->clientid, sid, NULL);
}

uint32_t tnfs_deleg_open_conflict(struct tnfs_ctx *c, struct tnfs_file_key k, uint32_t access)
{
	/* reading conflicts with nothing; writing with every read
	 * delegation, the opener's own too (it cannot write under one) */
	if (!(access & OPEN4_SHARE_ACCESS_WRITE))
		return NFS4_OK;
	return tnfs_deleg_break(c->srv->deleg, c->clientid, k, true);
}

void tnfs_deleg_open_grant(struct tnfs_ctx *c, const struct tnfs_node *n, struct tnfs_file_key k,
			   uint32_t share_access, uint32_t claim, union nfs4_res *r)
{
	r->open.deleg = OPEN_DELEGATE_NONE;
	uint32_t want = share_access & OPEN4_SHARE_ACCESS_WANT_MASK;
	if ((share_access & 3) != OPEN4_SHARE_ACCESS_READ ||
	    want == OPEN4_SHARE_ACCESS_WANT_NO_DELEG ||
	    (claim != CLAIM_NULL && claim != CLAIM_FH) || n->fd < 0)
		return;
	struct tnfs_fh fh;
	if (tnfs_fs_to_fh(c->exp, n, &fh) != NFS4_OK)
		return;
	if (tnfs_deleg_grant(c->srv->deleg, c->clientid, k, n->fd, fh.data, fh.len,
			     &r->open.deleg_sid))
		r->open.deleg = OPEN_DELEGATE_READ;
}

uint32_t tnfs_deleg_name_conflict(struct tnfs_ctx *c, const struct tnfs_node *dir,
				  const char *name)
{
	struct stat st;
	struct tnfs_file_key k;
	/* No other client holds one (REMOVE of a client's own files, the
	 * common case): no stat, a system call less (vm-nfs-trace). */
	if (!tnfs_deleg_others_hold(c->srv->deleg, c->clientid))
		return NFS4_OK;
	if (dir->fd < 0 || fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !key_of(&st, &k))
		return NFS4_OK; /* the operation reports what is wrong */
	return tnfs_deleg_break(c->srv->deleg, c->clientid, k, false);
}

uint32_t tnfs_deleg_node_conflict(struct tnfs_ctx *c, const struct tnfs_node *n)
{
	struct stat st;
	struct tnfs_file_key k;
	if (!tnfs_deleg_others_hold(c->srv->deleg, c->clientid))
		return NFS4_OK;
	if (tnfs_fs_stat(n, &st) != NFS4_OK || !key_of(&st, &k))
		return NFS4_OK;
	return tnfs_deleg_break(c->srv->deleg, c->clientid, k, false);
}
