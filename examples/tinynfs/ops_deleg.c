/* SPDX-License-Identifier: BSD-2-Clause */
/* Delegations in the operations: DELEGRETURN, and the grant, claim and
 * recall hooks of OPEN, REMOVE, RENAME, SETATTR and I/O (deleg.h). */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrs.h"
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

/* The current file's key and the delegation stateid that stateid names
 * (NFS4ERR_BAD_STATEID when it names no delegation or the file is not a
 * regular one). */
static uint32_t deleg_of_cfh(struct tnfs_ctx *c, const struct nfs4_stateid *stateid,
			     struct nfs4_stateid *sid, struct tnfs_file_key *k)
{
	struct stat st;
	uint32_t s = tnfs_ctx_stateid(c, stateid, sid);
	if (s != NFS4_OK)
		return s;
	if ((s = tnfs_fs_stat(&c->cfh, &st)) != NFS4_OK)
		return s;
	if (!key_of(&st, k) || !tnfs_deleg_is_sid(sid))
		return NFS4ERR_BAD_STATEID;
	return NFS4_OK;
}

uint32_t tnfs_op_delegreturn(struct tnfs_ctx *c, const union nfs4_args *a,
			     union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	struct nfs4_stateid sid;
	struct tnfs_file_key k;
	uint32_t s = deleg_of_cfh(c, &a->free_stateid.stateid, &sid, &k);
	if (s != NFS4_OK)
		return s;
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
	/* reading conflicts with other clients' write delegations; writing
	 * with all theirs.  The opener's own never conflicts (RFC 8881
	 * 10.4, as in nfsd): its lease goes, the delegation stays (deleg.h) */
	bool w = access & OPEN4_SHARE_ACCESS_WRITE;
	uint32_t s = w ? tnfs_deleg_break(c->srv->deleg, c->clientid, k, false) :
			 tnfs_deleg_break_writes(c->srv->deleg, c->clientid, k);
	if (s == NFS4_OK)
		tnfs_deleg_own_open(c->srv->deleg, c->clientid, k, w);
	return s;
}

/* No delegation for an OPEN that asked for one (want, RFC 8881 18.16.3):
 * OPEN_DELEGATE_NONE_EXT and why, as nfsd answers. */
static void none_ext(union nfs4_res *r, uint32_t why)
{
	r->open.deleg = OPEN_DELEGATE_NONE_EXT;
	r->open.why = why;
}

/* The delegation of an OPEN (RFC 8881 18.16.3), from what it asks for
 * in share_access's OPEN4_SHARE_ACCESS_WANT_* bits:
 *  - WANT_NO_DELEG: none, OPEN_DELEGATE_NONE_EXT with WND4_NOT_WANTED;
 *    WANT_CANCEL: WND4_CANCELLED (nothing to cancel: no push or signal
 *    is ever promised);
 *  - NO_PREFERENCE (0), WANT_ANY_DELEG: a read delegation for an OPEN
 *    for reading only, a write one for an OPEN for writing or both (wfd:
 *    a dup of its descriptor, owned here), as nfsd grants them.  For
 *    writing only, only when the caller may read the file too (wfd is
 *    then open O_RDWR: tnfs_op_open opens write-only opens so unless
 *    permissions forbid), else none (WND4_RESOURCE): the holder of a
 *    write delegation handles the file's other opens, for reading as
 *    well, locally (RFC 8881 10.4) -- the server never sees them to
 *    check the mode -- and reads through the delegation stateid;
 *    nfsd's rule too (nfsd4_add_rdaccess_to_wrdeleg: no read access, no
 *    delegation);
 *  - WANT_DELEG_TIMESTAMPS (RFC 9754, minor version 2) with a write
 *    delegation granted: OPEN_DELEGATE_WRITE_ATTRS_DELEG, the holder
 *    owning the file's access and modify times (tnfs_deleg_times); with
 *    a read one OPEN_DELEGATE_READ_ATTRS_DELEG, the holder owning the
 *    access time only (as nfsd; the file cannot be modified under it);
 *  - WANT_READ_DELEG on an OPEN for writing: WND4_NOT_SUPP_DOWNGRADE,
 *    WANT_WRITE_DELEG on one for reading: WND4_NOT_SUPP_UPGRADE (nfsd's
 *    answers, nfsd4_deleg_xgrade_none_ext);
 *  - a wanted delegation not granted is OPEN_DELEGATE_NONE_EXT and why:
 *    WND4_CONTENTION (the file is open elsewhere, or recalled),
 *    WND4_RESOURCE (callback path down, limits, other claims);
 *    without a want, or when the client holds one already (as nfsd),
 *    plain OPEN_DELEGATE_NONE. */
static uint32_t open_why(uint32_t share_access, uint32_t claim, const struct tnfs_node *n)
{
	uint32_t want = share_access & OPEN4_SHARE_ACCESS_WANT_MASK, access = share_access & 3;
	if (want == OPEN4_SHARE_ACCESS_WANT_NO_DELEG)
		return WND4_NOT_WANTED;
	if (want == OPEN4_SHARE_ACCESS_WANT_CANCEL)
		return WND4_CANCELLED;
	if ((access & OPEN4_SHARE_ACCESS_WRITE) && want == OPEN4_SHARE_ACCESS_WANT_READ_DELEG)
		return WND4_NOT_SUPP_DOWNGRADE;
	if (access == OPEN4_SHARE_ACCESS_READ && want == OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG)
		return WND4_NOT_SUPP_UPGRADE;
	if ((claim != CLAIM_NULL && claim != CLAIM_FH) || n->fd < 0)
		return WND4_RESOURCE;
	return UINT32_MAX; /* may be granted */
}

void tnfs_deleg_open_grant(struct tnfs_ctx *c, const struct tnfs_node *n, struct tnfs_file_key k,
			   const struct stat *st, uint32_t share_access, uint32_t claim, int wfd,
			   union nfs4_res *r)
{
	r->open.deleg = OPEN_DELEGATE_NONE;
	uint32_t why = open_why(share_access, claim, n);
	bool write = share_access & OPEN4_SHARE_ACCESS_WRITE;
	bool times = c->minor >= 2 && (share_access & OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS);
	struct tnfs_fh fh;
	if (why == UINT32_MAX && tnfs_fs_to_fh(c->exp, n, &fh) != NFS4_OK)
		why = WND4_RESOURCE;
	if (why == UINT32_MAX && write && wfd >= 0) {
		struct tnfs_deleg *d = c->srv->deleg;
		bool ok = times ? tnfs_deleg_grant_write_attrs(d, c->clientid, k, wfd, fh.data,
							       fh.len, st, &r->open.deleg_sid, &why) :
				  tnfs_deleg_grant_write(d, c->clientid, k, wfd, fh.data, fh.len,
							 &r->open.deleg_sid, &why);
		wfd = -1;
		if (ok) {
			r->open.deleg = times ? OPEN_DELEGATE_WRITE_ATTRS_DELEG : OPEN_DELEGATE_WRITE;
			return;
		}
	} else if (why == UINT32_MAX && !write &&
		   tnfs_deleg_grant_read_attrs(c->srv->deleg, c->clientid, k, n->fd, fh.data,
					       fh.len, times ? st : NULL, &r->open.deleg_sid,
					       &why)) {
		r->open.deleg = times ? OPEN_DELEGATE_READ_ATTRS_DELEG : OPEN_DELEGATE_READ;
	}
	if (wfd >= 0)
		close(wfd);
	if (why == UINT32_MAX)
		why = WND4_RESOURCE;
	uint32_t want = share_access & OPEN4_SHARE_ACCESS_WANT_MASK;
	if (r->open.deleg == OPEN_DELEGATE_NONE && want != OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE &&
	    why != TNFS_WND_HELD)
		none_ext(r, why);
}

void tnfs_deleg_open_xor(struct tnfs_ctx *c, struct tnfs_file_key k, uint32_t share_access,
			 union nfs4_res *r)
{
	uint32_t t = r->open.deleg;
	bool granted = t == OPEN_DELEGATE_READ || t == OPEN_DELEGATE_WRITE ||
		       t == OPEN_DELEGATE_READ_ATTRS_DELEG || t == OPEN_DELEGATE_WRITE_ATTRS_DELEG;
	/* a new open stateid starts at seqid 1, an upgrade goes past it */
	if (c->minor < 2 || !(share_access & OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION) ||
	    !granted || r->open.stateid.seqid != 1)
		return;
	struct nfs4_stateid gone;
	if (tnfs_state_close(c->srv->state, c->clientid, &r->open.stateid, k, &gone) != NFS4_OK)
		return; /* (cannot fail: just made) the open stateid stays */
	memset(&r->open.stateid, 0, sizeof(r->open.stateid));
	r->open.rflags |= OPEN4_RESULT_NO_OPEN_STATEID;
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

uint32_t tnfs_deleg_getattr_conflict(struct tnfs_ctx *c, const struct nfs4_bitmap *mask,
				     struct stat *st, bool *set)
{
	struct tnfs_file_key k;
	*set = false;
	bool sizes = nfs4_bm_isset(mask, FATTR4_SIZE) || nfs4_bm_isset(mask, FATTR4_CHANGE);
	/* the times, from the holder with delegated timestamps (RFC 9754) */
	bool times = c->minor >= 2 &&
		     (nfs4_bm_isset(mask, FATTR4_TIME_ACCESS) || nfs4_bm_isset(mask, FATTR4_TIME_MODIFY));
	if ((!sizes && !times) || !tnfs_deleg_writes_ever(c->srv->deleg) ||
	    c->cpseudo != TNFS_NOT_PSEUDO || c->cfh.fd < 0 || tnfs_fs_stat(&c->cfh, st) != NFS4_OK ||
	    !key_of(st, &k))
		return NFS4_OK;
	struct tnfs_deleg_ga ga;
	uint32_t s = tnfs_deleg_getattr(c->srv->deleg, c->clientid, k, tnfs_change_of(st), !sizes,
					set, &ga);
	if (s == NFS4_OK && *set) {
		st->st_size = (off_t)ga.size;
		/* the change attribute is ctime in nanoseconds (attrs.c) */
		uint64_t ns = (uint64_t)st->st_ctim.tv_nsec + ga.bump;
		st->st_ctim.tv_sec += (time_t)(ns / 1000000000u);
		st->st_ctim.tv_nsec = (long)(ns % 1000000000u);
		if (ga.atime_set)
			st->st_atim = ga.atime;
		if (ga.mtime_set)
			st->st_mtim = ga.mtime;
	}
	return s;
}

uint32_t tnfs_deleg_setattr_times(struct tnfs_ctx *c, const struct nfs4_stateid *stateid,
				  struct tnfs_attrs_in *ai)
{
	if (!ai->set_deleg_atime && !ai->set_deleg_mtime)
		return NFS4_OK;
	/* one way to set each time in one SETATTR */
	if ((ai->set_deleg_atime && ai->sa.atime_how) || (ai->set_deleg_mtime && ai->sa.mtime_how))
		return NFS4ERR_INVAL;
	struct nfs4_stateid sid;
	struct tnfs_file_key k;
	uint32_t s = deleg_of_cfh(c, stateid, &sid, &k);
	if (s != NFS4_OK)
		return s;
	bool at = ai->set_deleg_atime, mt = ai->set_deleg_mtime;
	s = tnfs_deleg_times(c->srv->deleg, c->clientid, &sid, k, &ai->deleg_atime, &at,
			     &ai->deleg_mtime, &mt);
	if (s != NFS4_OK)
		return s;
	if (at) {
		ai->sa.atime_how = 2;
		ai->sa.atime = ai->deleg_atime;
	}
	if (mt) {
		ai->sa.mtime_how = 2;
		ai->sa.mtime = ai->deleg_mtime;
	}
	return NFS4_OK;
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
