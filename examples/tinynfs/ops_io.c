/* SPDX-License-Identifier: BSD-2-Clause */
/* Open files and their data: OPEN, CLOSE, OPEN_DOWNGRADE, READ, WRITE,
 * COMMIT, SETATTR, SEEK. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "attrs.h"
#include "ops.h"
#include "ops_deleg.h"
#include "state.h"

static uint32_t file_key(const struct tnfs_node *n, struct tnfs_file_key *k,
			 struct stat *st)
{
	uint32_t s = tnfs_fs_stat(n, st);
	if (s != NFS4_OK)
		return s;
	if (S_ISDIR(st->st_mode))
		return NFS4ERR_ISDIR;
	if (S_ISLNK(st->st_mode))
		return NFS4ERR_SYMLINK;
	if (!S_ISREG(st->st_mode))
		return NFS4ERR_WRONG_TYPE;
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	return NFS4_OK;
}

static uint32_t open_for(const struct tnfs_node *n, uint32_t access, int *fd)
{
	if (access == OPEN4_SHARE_ACCESS_READ)
		return tnfs_fs_open(n, O_RDONLY, fd);
	uint32_t s = tnfs_fs_open(n, O_RDWR, fd);
	if (s == NFS4ERR_ACCESS && access == OPEN4_SHARE_ACCESS_WRITE)
		s = tnfs_fs_open(n, O_WRONLY, fd);
	return s;
}

/* EXCLUSIVE4 keeps the verifier in the times, like Linux nfsd. */
static void verf_times(const uint8_t v[8], struct timespec *at, struct timespec *mt)
{
	uint32_t w0 = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
	uint32_t w1 = (uint32_t)v[4] << 24 | (uint32_t)v[5] << 16 | (uint32_t)v[6] << 8 | v[7];
	mt->tv_sec = (time_t)(w0 & 0x7fffffff);
	mt->tv_nsec = 0;
	at->tv_sec = (time_t)(w1 & 0x7fffffff);
	at->tv_nsec = 0;
}

/* The claim of an OPEN (RFC 8881 18.16.3) into *claim as the rest of
 * OPEN sees it: a delegation's claim as the plain one it stands for. */
static uint32_t open_claim(struct tnfs_ctx *c, const union nfs4_args *a, bool create,
			   uint32_t *claim)
{
	*claim = a->open.claim;
	switch (*claim) {
	case CLAIM_NULL:
		return NFS4_OK;
	case CLAIM_FH:
	case CLAIM_PREVIOUS: /* a reclaim after a restart: of the current fh */
		return create ? NFS4ERR_INVAL : NFS4_OK;
	case CLAIM_DELEGATE_CUR: /* an open the client made under its delegation */
	case CLAIM_DELEG_CUR_FH:
		if (create)
			return NFS4ERR_INVAL;
		if (tnfs_deleg_claim(c, &a->open.deleg_stateid) != NFS4_OK)
			return tnfs_deleg_claim(c, &a->open.deleg_stateid);
		*claim = *claim == CLAIM_DELEGATE_CUR ? CLAIM_NULL : CLAIM_FH;
		return NFS4_OK;
	default:
		return NFS4ERR_NOTSUPP;
	}
}

/* Opens the regular file n for access into *fd, once no other client's
 * delegation conflicts. */
static uint32_t open_existing(struct tnfs_ctx *c, const struct tnfs_node *n, uint32_t access,
			      int *fd)
{
	struct stat st;
	struct tnfs_file_key k;
	uint32_t s;
	if ((s = file_key(n, &k, &st)) != NFS4_OK ||
	    (s = tnfs_deleg_open_conflict(c, k, access)) != NFS4_OK)
		return s;
	return open_for(n, access, fd);
}

/* An exclusive create found `name`: a retransmission when the file's
 * times hold the verifier's, then opened into *n and *fd; else
 * NFS4ERR_EXIST. */
static uint32_t open_excl_again(struct tnfs_ctx *c, const char *name, uint32_t access,
				const struct timespec *vat, const struct timespec *vmt,
				struct tnfs_node *n, int *fd)
{
	struct tnfs_node e;
	struct stat st;
	if (tnfs_fs_lookup(c->exp, &c->cfh, name, &e) != NFS4_OK)
		return NFS4ERR_EXIST;
	bool same = tnfs_fs_stat(&e, &st) == NFS4_OK && S_ISREG(st.st_mode) &&
		    st.st_mtim.tv_sec == vmt->tv_sec && st.st_atim.tv_sec == vat->tv_sec;
	if (!same) {
		tnfs_node_put(&e);
		return NFS4ERR_EXIST;
	}
	*n = e;
	return open_for(n, access, fd);
}

/* The attributes of the file OPEN just created (n, open on fd with acc,
 * mode m): those of the request the creation did not set, an exclusive
 * create's verifier in the times; r->open.attrset says which. */
static uint32_t open_created_attrs(const struct tnfs_node *n, int fd, int acc, mode_t m,
				   const struct tnfs_attrs_in *ai, bool excl,
				   const struct timespec *vat, const struct timespec *vmt,
				   union nfs4_res *r)
{
	struct tnfs_sattr sa = ai->sa;
	struct stat st;
	if (tnfs_fs_stat(n, &st) == NFS4_OK && (st.st_mode & 07777) == m)
		sa.set_mode = false;
	if (sa.set_size && sa.size == 0)
		sa.set_size = false;
	if (excl) {
		sa.atime_how = 2;
		sa.atime = *vat;
		sa.mtime_how = 2;
		sa.mtime = *vmt;
	}
	uint32_t s = tnfs_fs_setattr(n, &sa, acc == O_RDWR ? fd : -1, NULL, NULL);
	if (s == NFS4_OK && ai->set_label)
		s = tnfs_fs_set_label(n, ai->label.data, ai->label.len);
	if (s != NFS4_OK)
		return s;
	r->open.attrset = ai->set;
	if (excl) {
		nfs4_bm_set(&r->open.attrset, FATTR4_TIME_ACCESS);
		nfs4_bm_set(&r->open.attrset, FATTR4_TIME_MODIFY);
	}
	return NFS4_OK;
}

/* OPEN4_CREATE of `name` in the current directory (UNCHECKED4, GUARDED4,
 * EXCLUSIVE4, EXCLUSIVE4_1): the file in *n, open on *fd.  On failure *n
 * and *fd hold what the caller closes (or nothing). */
static uint32_t open_create(struct tnfs_ctx *c, const union nfs4_args *a, uint32_t access,
			    const char *name, struct tnfs_node *n, int *fd, union nfs4_res *r)
{
	struct tnfs_attrs_in ai;
	memset(&ai, 0, sizeof(ai));
	uint32_t s, mode = a->open.createmode;
	bool excl = mode == EXCLUSIVE4 || mode == EXCLUSIVE4_1;
	if (mode != EXCLUSIVE4 &&
	    (s = tnfs_attrs_decode(c->exp, c->minor, &a->open.attrs, &ai)) != NFS4_OK)
		return s;
	if (mode == EXCLUSIVE4_1 && (ai.sa.atime_how || ai.sa.mtime_how))
		return NFS4ERR_INVAL; /* not in suppattr_exclcreat */
	int acc = access == OPEN4_SHARE_ACCESS_READ ? O_RDONLY : O_RDWR;
	bool created;
	mode_t m = ai.sa.set_mode ? ai.sa.mode : 0644;
	s = tnfs_fs_create_file(&c->cfh, name, acc, m, mode != UNCHECKED4, n, fd, &created);
	struct timespec vat, vmt;
	verf_times(a->open.verf, &vat, &vmt);
	if (s == NFS4ERR_EXIST && excl) {
		/* a retransmission if the verifier matches */
		if ((s = open_excl_again(c, name, access, &vat, &vmt, n, fd)) != NFS4_OK)
			return s;
		created = false;
	} else if (s != NFS4_OK) {
		return s;
	}
	if (created)
		return open_created_attrs(n, *fd, acc, m, &ai, excl, &vat, &vmt, r);
	if (ai.sa.set_size && ai.sa.size == 0) {
		/* UNCHECKED4 on an existing file: only size 0 applies */
		if (ftruncate(*fd, 0) != 0)
			return tnfs_errno_to_nfs(errno);
		nfs4_bm_set(&r->open.attrset, FATTR4_SIZE);
	}
	return NFS4_OK;
}

/* OPEN of the name in the request (CLAIM_NULL), in the current directory,
 * made if create: the file in *n, open on *fd, the directory's change
 * info in r.  On failure *n and *fd hold what the caller closes. */
static uint32_t open_by_name(struct tnfs_ctx *c, const union nfs4_args *a, uint32_t access,
			     bool create, struct tnfs_node *n, int *fd, union nfs4_res *r)
{
	char name[256];
	uint32_t s = tnfs_fs_check_name(a->open.name.data, a->open.name.len, name);
	if (s != NFS4_OK)
		return s;
	struct stat dst;
	if ((s = tnfs_ctx_cfh_stat(c, &dst)) != NFS4_OK)
		return s;
	if (!S_ISDIR(dst.st_mode))
		return S_ISLNK(dst.st_mode) ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
	r->open.cinfo.before = tnfs_change_of(&dst);
	if (create)
		s = open_create(c, a, access, name, n, fd, r);
	else if ((s = tnfs_fs_lookup(c->exp, &c->cfh, name, n)) == NFS4_OK)
		s = open_existing(c, n, access, fd);
	if (s != NFS4_OK)
		return s;
	/* `before` came from dst, whose stat worked */
	r->open.cinfo.atomic = tnfs_dir_change(&c->cfh, &r->open.cinfo.after);
	return NFS4_OK;
}

uint32_t tnfs_op_open(struct tnfs_ctx *c, const union nfs4_args *a,
		      union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	/* RFC 9754's WANT_DELEG_TIMESTAMPS and WANT_OPEN_XOR_DELEGATION
	 * from minor version 2 on (before: invalid) */
	uint32_t access = a->open.share_access & ~(uint32_t)(OPEN4_SHARE_ACCESS_WANT_MASK |
		OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL |
		OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED |
		(c->minor >= 2 ? OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS |
				 OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION : 0));
	uint32_t deny = a->open.share_deny;
	/* a want outside RFC 8881 18.16.3's list: invalid (nfsd: BADXDR) */
	if (access < OPEN4_SHARE_ACCESS_READ || access > OPEN4_SHARE_ACCESS_BOTH ||
	    deny > OPEN4_SHARE_DENY_BOTH ||
	    (a->open.share_access & OPEN4_SHARE_ACCESS_WANT_MASK) > OPEN4_SHARE_ACCESS_WANT_CANCEL)
		return NFS4ERR_INVAL;
	bool create = a->open.opentype == OPEN4_CREATE;
	uint32_t claim;
	uint32_t s = open_claim(c, a, create, &claim);
	if (s != NFS4_OK)
		return s;
	bool by_fh = claim == CLAIM_FH || claim == CLAIM_PREVIOUS;
	s = tnfs_state_may_open(c->srv->state, c->clientid, a->open.claim == CLAIM_PREVIOUS);
	if (s != NFS4_OK)
		return s; /* grace and reclaim rules (state.h) */
	if ((create || (access & OPEN4_SHARE_ACCESS_WRITE)) && tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;

	struct tnfs_node n = TNFS_NODE_NONE;
	int fd = -1;
	memset(&r->open, 0, sizeof(r->open));
	if (by_fh) {
		s = tnfs_node_dup(&c->cfh, &n);
		if (s != NFS4_OK)
			return s;
		s = open_existing(c, &n, access, &fd);
	} else {
		s = open_by_name(c, a, access, create, &n, &fd, r);
	}
	if (s != NFS4_OK)
		goto fail;
	struct stat st;
	struct tnfs_file_key k;
	if ((s = file_key(&n, &k, &st)) != NFS4_OK)
		goto fail;
	/* an OPEN for writing may get a write delegation on its own open,
	 * if that is open for reading too (tnfs_deleg_open_grant) */
	int wfd = -1;
	if ((access & OPEN4_SHARE_ACCESS_WRITE) && fd >= 0 &&
	    (access == OPEN4_SHARE_ACCESS_BOTH || (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR) &&
	    tnfs_deleg_write_on(c->srv->deleg))
		wfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	s = tnfs_state_open(c->srv->state, c->clientid, a->open.owner.owner.data,
			    a->open.owner.owner.len, k, access, deny, fd, &r->open.stateid);
	fd = -1; /* the state owns it now */
	if (s != NFS4_OK) {
		if (wfd >= 0)
			close(wfd);
		goto fail;
	}
	r->open.rflags = OPEN4_RESULT_LOCKTYPE_POSIX;
	tnfs_deleg_open_grant(c, &n, k, &st, a->open.share_access, claim, wfd, r);
	tnfs_deleg_open_xor(c, k, a->open.share_access, r);
	tnfs_ctx_set_cfh(c, &n, NULL);
	tnfs_ctx_set_stateid(c, &r->open.stateid);
	return NFS4_OK;
fail:
	if (fd >= 0)
		close(fd);
	tnfs_node_put(&n);
	return s;
}

uint32_t tnfs_op_close(struct tnfs_ctx *c, const union nfs4_args *a,
		       union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	struct nfs4_stateid sid;
	struct stat st;
	struct tnfs_file_key k;
	uint32_t s = tnfs_ctx_stateid(c, &a->close.stateid, &sid);
	if (s == NFS4_OK)
		s = file_key(&c->cfh, &k, &st);
	if (s == NFS4_OK)
		s = tnfs_state_close(c->srv->state, c->clientid, &sid, k, &r->stateid);
	/* The stateid is gone: RFC 8881 18.2.4 has the server return the
	 * invalid special stateid (seqid all ones, other zero), as nfsd does. */
	if (s == NFS4_OK) {
		memset(&r->stateid, 0, sizeof(r->stateid));
		r->stateid.seqid = UINT32_MAX;
	}
	return s;
}

uint32_t tnfs_op_open_downgrade(struct tnfs_ctx *c, const union nfs4_args *a,
				union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	struct nfs4_stateid sid;
	struct stat st;
	struct tnfs_file_key k;
	uint32_t access = a->open_downgrade.share_access & 3;
	uint32_t s = tnfs_ctx_stateid(c, &a->open_downgrade.stateid, &sid);
	if (s == NFS4_OK)
		s = file_key(&c->cfh, &k, &st);
	if (s == NFS4_OK)
		s = tnfs_state_downgrade(c->srv->state, c->clientid, &sid, k, access,
					 a->open_downgrade.share_deny, &r->stateid);
	if (s == NFS4_OK)
		tnfs_ctx_set_stateid(c, &r->stateid);
	return s;
}

/*
 * The descriptor to do I/O with for a stateid (caller closes).  The
 * caller's rights are checked each time, as Linux nfsd does: an open
 * stateid is a descriptor some user of the client opened, and lends no
 * right to another (tnfs_fs_may_io()).
 */
uint32_t tnfs_io_fd(struct tnfs_ctx *c, const struct tnfs_node *n,
		    const struct nfs4_stateid *sid, bool write, int *fd, struct stat *st)
{
	*fd = -1;
	struct tnfs_file_key k;
	uint32_t s = file_key(n, &k, st);
	if (s == NFS4_OK && tnfs_deleg_is_sid(sid)) {
		/* a write delegation: its descriptor; a read one: read as
		 * with a special stateid */
		s = tnfs_deleg_io(c->srv->deleg, c->clientid, sid, k, write, fd);
	} else if (s == NFS4_OK) {
		s = tnfs_state_io_fd(c->srv->state, c->clientid, sid, k, write, fd);
	}
	/* WRITE, SETATTR of the size: other clients' delegations go; READ:
	 * their write delegations */
	if (s == NFS4_OK)
		s = write ? tnfs_deleg_break(c->srv->deleg, c->clientid, k, false) :
			    tnfs_deleg_break_writes(c->srv->deleg, c->clientid, k);
	if (s == NFS4_OK)
		s = tnfs_fs_may_io(n, st, c->cred.uid, write);
	if (s == NFS4_OK && *fd < 0) /* special stateid: no open state */
		s = tnfs_fs_open_checked(n, write ? O_WRONLY : O_RDONLY, fd);
	if (s != NFS4_OK && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	if (s == NFS4ERR_ISDIR || s == NFS4ERR_SYMLINK || s == NFS4ERR_WRONG_TYPE)
		s = s == NFS4ERR_ISDIR ? NFS4ERR_ISDIR : NFS4ERR_INVAL;
	return s;
}

/* The same for the current file handle and a stateid as sent. */
static uint32_t io_fd(struct tnfs_ctx *c, const struct nfs4_stateid *in,
		      bool write, int *fd, struct stat *st)
{
	*fd = -1;
	struct nfs4_stateid sid;
	uint32_t s = tnfs_ctx_stateid(c, in, &sid);
	return s == NFS4_OK ? tnfs_io_fd(c, &c->cfh, &sid, write, fd, st) : s;
}

uint32_t tnfs_op_read(struct tnfs_ctx *c, const union nfs4_args *a,
		      union nfs4_res *r, struct xdr_out *x)
{
	(void)r;
	int fd;
	struct stat st;
	uint32_t s = io_fd(c, &a->read.stateid, false, &fd, &st);
	if (s != NFS4_OK)
		return s;
	uint32_t count = a->read.count;
	if (count > c->srv->maxread)
		count = c->srv->maxread;
	size_t room = xdr_out_left(x);
	if (room < 8) {
		close(fd);
		return NFS4ERR_REP_TOO_BIG;
	}
	if (count > ((room - 8) & ~(size_t)3))
		count = (uint32_t)((room - 8) & ~(size_t)3);
	uint8_t *hdr = xdr_reserve(x, 8);
	uint8_t *data = x->p;
	size_t got = 0;
	while (got < count) {
		if (a->read.offset > (uint64_t)INT64_MAX - got)
			break;
		ssize_t n = pread(fd, data + got, count - got, (off_t)(a->read.offset + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			s = errno == EBADF ? NFS4ERR_OPENMODE : tnfs_errno_to_nfs(errno);
			close(fd);
			return s;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	struct stat now;
	bool eof = tnfs_fstat(fd, &now) == 0 ? a->read.offset + got >= (uint64_t)now.st_size : got < count;
	close(fd);
	xdr_wr32(hdr, eof);
	xdr_wr32(hdr + 4, (uint32_t)got);
	memset(data + got, 0, xdr_pad((uint32_t)got) - got);
	x->p = data + xdr_pad((uint32_t)got);
	if (!c->read_seen) { /* the write chunk is the first READ's */
		c->read_seen = true;
		c->read_data = data;
		c->read_len = (uint32_t)got;
	}
	return NFS4_OK;
}

uint32_t tnfs_op_write(struct tnfs_ctx *c, const union nfs4_args *a,
		       union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	if (a->write.stable > FILE_SYNC4)
		return NFS4ERR_INVAL;
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	uint32_t len = a->write.data.len;
	if (len > c->srv->maxwrite)
		return NFS4ERR_INVAL;
	if (a->write.offset > (uint64_t)INT64_MAX - len)
		return NFS4ERR_FBIG;
	int fd;
	struct stat st;
	uint32_t s = io_fd(c, &a->write.stateid, true, &fd, &st);
	if (s != NFS4_OK)
		return s;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(fd, a->write.data.data + done, len - done,
				   (off_t)(a->write.offset + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			s = errno == EBADF ? NFS4ERR_OPENMODE : tnfs_errno_to_nfs(errno);
			break;
		}
		done += (size_t)n;
	}
	if (s == NFS4_OK && a->write.stable != UNSTABLE4)
		s = tnfs_server_sync(c->srv, fd, a->write.stable == DATA_SYNC4);
	close(fd);
	if (s != NFS4_OK)
		return s;
	r->write.count = (uint32_t)done;
	r->write.committed = a->write.stable;
	memcpy(r->write.verf, c->srv->write_verf, NFS4_VERIFIER_SIZE);
	return NFS4_OK;
}

uint32_t tnfs_op_commit(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)a, (void)x;
	struct stat st;
	struct tnfs_file_key k;
	uint32_t s = file_key(&c->cfh, &k, &st);
	if (s != NFS4_OK)
		return s == NFS4ERR_WRONG_TYPE || s == NFS4ERR_SYMLINK ? NFS4ERR_INVAL : s;
	/* under the client's own write delegation, its descriptor (an open
	 * would break the lease); another client's write delegation goes */
	int fd = tnfs_deleg_own_fd(c->srv->deleg, c->clientid, k);
	if (fd < 0 && (s = tnfs_deleg_break_writes(c->srv->deleg, c->clientid, k)) != NFS4_OK)
		return s;
	if (fd < 0 && (s = tnfs_fs_open(&c->cfh, O_RDONLY, &fd)) != NFS4_OK)
		s = tnfs_fs_open(&c->cfh, O_WRONLY, &fd);
	if (s != NFS4_OK)
		return s;
	/* fsync reaches stable storage before the reply goes out */
	s = tnfs_server_sync(c->srv, fd, false);
	close(fd);
	if (s == NFS4_OK)
		memcpy(r->commit.verf, c->srv->write_verf, NFS4_VERIFIER_SIZE);
	return s;
}

uint32_t tnfs_op_setattr(struct tnfs_ctx *c, const union nfs4_args *a,
			 union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	memset(&r->setattr.attrset, 0, sizeof(r->setattr.attrset));
	struct tnfs_attrs_in ai;
	uint32_t s = tnfs_attrs_decode_setattr(c->exp, c->minor, &a->setattr.attrs, &ai);
	if (s != NFS4_OK)
		return s;
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	/* the delegated times: the holder's, vetted (RFC 9754) */
	if ((s = tnfs_deleg_setattr_times(c, &a->setattr.stateid, &ai)) != NFS4_OK)
		return s;
	int fd = -1;
	if (ai.sa.set_size) {
		/* the stateid must allow writing (unless special), and the
		 * caller may write: the size changes through its descriptor */
		struct stat st;
		s = io_fd(c, &a->setattr.stateid, true, &fd, &st);
		if (s != NFS4_OK)
			return s;
	} else if ((s = tnfs_deleg_node_conflict(c, &c->cfh)) != NFS4_OK) {
		return s; /* any other attribute: other clients' delegations go */
	}
	s = tnfs_fs_setattr(&c->cfh, &ai.sa, fd, c->srv->setattr_hook, c->srv->hook_arg);
	if (fd >= 0)
		close(fd);
	if (s == NFS4_OK && ai.set_label)
		s = tnfs_fs_set_label(&c->cfh, ai.label.data, ai.label.len);
	if (s == NFS4_OK)
		r->setattr.attrset = ai.set;
	return s;
}

uint32_t tnfs_op_seek(struct tnfs_ctx *c, const union nfs4_args *a,
		      union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	if (a->seek.what > NFS4_CONTENT_HOLE)
		return NFS4ERR_UNION_NOTSUPP;
	int fd;
	struct stat st;
	uint32_t s = io_fd(c, &a->seek.stateid, false, &fd, &st);
	if (s != NFS4_OK)
		return s;
	if (a->seek.offset > (uint64_t)INT64_MAX) {
		close(fd);
		return NFS4ERR_NXIO;
	}
	off_t pos = lseek(fd, (off_t)a->seek.offset,
			  a->seek.what == NFS4_CONTENT_DATA ? SEEK_DATA : SEEK_HOLE);
	int err = errno;
	struct stat now;
	bool have = tnfs_fstat(fd, &now) == 0;
	close(fd);
	if (pos < 0)
		return tnfs_errno_to_nfs(err);
	r->seek.offset = (uint64_t)pos;
	r->seek.eof = have && pos >= now.st_size;
	return NFS4_OK;
}
