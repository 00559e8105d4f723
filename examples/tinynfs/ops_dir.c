/* SPDX-License-Identifier: BSD-2-Clause */
/* Directory operations: READDIR, CREATE, REMOVE, RENAME, LINK. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "attrs.h"
#include "ops.h"
#include "ops_deleg.h"

#define DENTS_BUF 32768

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * change_info4 (see ops.h): `before` is read just before the change and
 * `after` just after it.  It is reported atomic when both reads worked.
 * tinynfs runs one COMPOUND at a time, so none of its own changes can come
 * between the two reads.  A local process that changes the same directory in those few microseconds is not locked out: the
 * kernel's nfsd holds the directory's inode lock for that, and userspace
 * has no such lock.  A non-atomic change_info makes the Linux client drop
 * the directory's access and lookup caches.  It would then send an ACCESS
 * after every create and a LOOKUP before every remove (seen in the VM's
 * mountstats).
 */
bool tnfs_dir_change(const struct tnfs_node *dir, uint64_t *v)
{
	struct stat st;
	bool ok = tnfs_fs_stat(dir, &st) == NFS4_OK;
	*v = ok ? tnfs_change_of(&st) : 0;
	return ok;
}

/* tnfs_dir_change() of the current file handle, from PUTFH's stat when
 * this operation follows it (tnfs_ctx_cfh_stat): a "before" half. */
static bool cfh_change(struct tnfs_ctx *c, uint64_t *v)
{
	struct stat st;
	bool ok = tnfs_ctx_cfh_stat(c, &st) == NFS4_OK;
	*v = ok ? tnfs_change_of(&st) : 0;
	return ok;
}

uint32_t tnfs_dirlist_begin(struct tnfs_dirlist *d, const union nfs4_args *a,
			    const struct xdr_out *x)
{
	size_t budget = a->readdir.maxcount;
	if (budget > (size_t)(x->end - x->p))
		budget = (size_t)(x->end - x->p);
	if (budget < NFS4_VERIFIER_SIZE + 8)
		return NFS4ERR_TOOSMALL;
	d->w = *x;
	d->w.end = x->p + budget - 8; /* keep room for the list end and eof */
	d->dircount = a->readdir.dircount;
	d->names = 0;
	d->entries = 0;
	static const uint8_t zero_verf[NFS4_VERIFIER_SIZE];
	xdr_put_fixed(&d->w, zero_verf, NFS4_VERIFIER_SIZE);
	return NFS4_OK;
}

/* dircount counts what the entries would take as entry4 without
 * attributes: value follows, cookie, name. */
static size_t dir_bytes(uint32_t nlen)
{
	return 12 + 4 + xdr_pad(nlen);
}

bool tnfs_dirlist_add(struct tnfs_dirlist *d, uint64_t cookie, const char *name, uint32_t nlen)
{
	if (d->dircount && d->entries && d->names + dir_bytes(nlen) > d->dircount)
		return false;
	d->undo = d->w.p;
	d->nlen = nlen;
	xdr_put_u32(&d->w, 1); /* value follows */
	xdr_put_u64(&d->w, cookie);
	xdr_put_opaque(&d->w, name, nlen);
	return true;
}

bool tnfs_dirlist_keep(struct tnfs_dirlist *d, uint32_t attrs_status)
{
	if (d->w.bad || attrs_status != NFS4_OK) {
		d->w.bad = false;
		d->w.p = d->undo;
		return false;
	}
	d->entries++;
	d->names += dir_bytes(d->nlen);
	return true;
}

uint32_t tnfs_dirlist_end(struct tnfs_dirlist *d, struct xdr_out *x, bool eof)
{
	if (d->entries == 0 && !eof)
		return NFS4ERR_TOOSMALL;
	x->p = d->w.p;
	xdr_put_u32(x, 0); /* no more entries */
	xdr_put_bool(x, eof);
	return NFS4_OK;
}

uint32_t tnfs_op_readdir(struct tnfs_ctx *c, const union nfs4_args *a,
			 union nfs4_res *r, struct xdr_out *x)
{
	(void)r;
	uint64_t cookie = a->readdir.cookie;
	if (cookie == 1 || cookie == 2)
		return NFS4ERR_BAD_COOKIE;
	if (a->readdir.mask.w[1] & ((1u << (FATTR4_TIME_ACCESS_SET - 32)) |
				    (1u << (FATTR4_TIME_MODIFY_SET - 32))))
		return NFS4ERR_INVAL;
	if (c->cpseudo != TNFS_NOT_PSEUDO)
		return tnfs_pseudo_op_readdir(c, a, x);
	struct stat st;
	uint32_t s = tnfs_ctx_cfh_stat(c, &st);
	if (s != NFS4_OK)
		return s;
	if (!S_ISDIR(st.st_mode))
		return NFS4ERR_NOTDIR;
	int fd;
	s = tnfs_fs_open(&c->cfh, O_RDONLY | O_DIRECTORY, &fd);
	if (s != NFS4_OK)
		return s;
	if (cookie && lseek(fd, (off_t)cookie, SEEK_SET) < 0) {
		close(fd);
		return NFS4ERR_BAD_COOKIE;
	}
	struct tnfs_dirlist dl;
	s = tnfs_dirlist_begin(&dl, a, x);
	char *buf = s == NFS4_OK ? malloc(DENTS_BUF) : NULL;
	if (!buf) {
		close(fd);
		return s != NFS4_OK ? s : NFS4ERR_DELAY;
	}
	bool eof = false, full = false;
	while (!full) {
		long n = syscall(SYS_getdents64, fd, buf, DENTS_BUF);
		if (n < 0) {
			s = tnfs_errno_to_nfs(errno);
			break;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			const char *nm = d->d_name;
			if (!strcmp(nm, ".") || !strcmp(nm, ".."))
				continue;
			struct stat est;
			uint32_t err = NFS4_OK;
			if (fstatat(fd, nm, &est, AT_SYMLINK_NOFOLLOW) != 0) {
				if (errno == ENOENT)
					continue; /* removed meanwhile */
				err = tnfs_errno_to_nfs(errno);
				memset(&est, 0, sizeof(est));
			}
			if (!tnfs_dirlist_add(&dl, (uint64_t)d->d_off, nm, (uint32_t)strlen(nm))) {
				full = true;
				break;
			}
			struct tnfs_attr_src src = {
				.exp = c->exp, .minor = c->minor, .st = &est, .fd = -1,
				.dirfd = fd, .name = nm, .rdattr_error = err,
				.maxread = c->srv->maxread, .maxwrite = c->srv->maxwrite,
			};
			struct nfs4_bitmap mask = a->readdir.mask;
			if (err != NFS4_OK) {
				if (!nfs4_bm_isset(&mask, FATTR4_RDATTR_ERROR)) {
					s = err;
					full = true;
					break;
				}
				memset(&mask, 0, sizeof(mask));
				nfs4_bm_set(&mask, FATTR4_RDATTR_ERROR);
			}
			if (!tnfs_dirlist_keep(&dl, tnfs_attrs_encode(&dl.w, &mask, &src))) {
				full = true;
				break;
			}
		}
	}
	free(buf);
	close(fd);
	return s != NFS4_OK ? s : tnfs_dirlist_end(&dl, x, eof);
}

static uint32_t apply_create_attrs(struct tnfs_ctx *c, const struct tnfs_node *n,
				   const struct tnfs_attrs_in *ai, bool mode_done)
{
	struct tnfs_sattr sa = ai->sa;
	sa.set_size = false;
	if (mode_done)
		sa.set_mode = false;
	uint32_t s = tnfs_fs_setattr(n, &sa, -1, NULL, NULL);
	if (s == NFS4_OK && ai->set_label)
		s = tnfs_fs_set_label(n, ai->label.data, ai->label.len);
	(void)c;
	return s;
}

uint32_t tnfs_op_create(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	if (a->create.type == NF4REG)
		return NFS4ERR_BADTYPE;
	char name[256];
	uint32_t s = tnfs_fs_check_name(a->create.name.data, a->create.name.len, name);
	if (s != NFS4_OK)
		return s;
	struct tnfs_attrs_in ai;
	s = tnfs_attrs_decode(c->exp, c->minor, &a->create.attrs, &ai);
	if (s != NFS4_OK)
		return s;
	if (ai.sa.set_size)
		return NFS4ERR_INVAL;
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	char target[NFS4_MAXPATHLEN + 1];
	if (a->create.type == NF4LNK) {
		if (a->create.linkdata.len == 0 ||
		    memchr(a->create.linkdata.data, 0, a->create.linkdata.len))
			return NFS4ERR_INVAL;
		memcpy(target, a->create.linkdata.data, a->create.linkdata.len);
		target[a->create.linkdata.len] = 0;
	}
	mode_t mode = ai.sa.set_mode ? ai.sa.mode : a->create.type == NF4DIR ? 0755 : 0644;
	struct tnfs_change_info_pair { uint64_t b, a; } ci;
	bool atomic = cfh_change(c, &ci.b);
	struct tnfs_node n;
	s = tnfs_fs_mkobj(&c->cfh, name, a->create.type, mode, target,
			  makedev(a->create.spec1, a->create.spec2), &n);
	if (s != NFS4_OK)
		return s;
	atomic = tnfs_dir_change(&c->cfh, &ci.a) && atomic;
	struct stat st;
	bool mode_ok = tnfs_fs_stat(&n, &st) == NFS4_OK && (st.st_mode & 07777) == mode;
	s = apply_create_attrs(c, &n, &ai, mode_ok || a->create.type == NF4LNK);
	if (s != NFS4_OK) {
		tnfs_node_put(&n);
		return s;
	}
	tnfs_ctx_set_cfh(c, &n, NULL);
	r->create.cinfo = (struct nfs4_change_info){ atomic, ci.b, ci.a };
	r->create.attrset = ai.set;
	return NFS4_OK;
}

uint32_t tnfs_op_remove(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	char name[256];
	uint32_t s = tnfs_fs_check_name(a->name.name.data, a->name.name.len, name);
	if (s != NFS4_OK)
		return s;
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	if ((s = tnfs_deleg_name_conflict(c, &c->cfh, name)) != NFS4_OK)
		return s;
	bool atomic = cfh_change(c, &r->cinfo.before);
	s = tnfs_fs_remove(&c->cfh, name);
	r->cinfo.atomic = tnfs_dir_change(&c->cfh, &r->cinfo.after) && atomic;
	return s;
}

uint32_t tnfs_op_rename(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	if (c->spseudo != TNFS_NOT_PSEUDO || (c->sfh.fd >= 0 && c->sexp != c->exp))
		return NFS4ERR_XDEV; /* RFC 8881 18.9.3, 18.26.3 */
	if (c->sfh.fd < 0)
		return NFS4ERR_NOFILEHANDLE;
	char from[256], to[256];
	uint32_t s = tnfs_fs_check_name(a->rename.oldname.data, a->rename.oldname.len, from);
	if (s == NFS4_OK)
		s = tnfs_fs_check_name(a->rename.newname.data, a->rename.newname.len, to);
	if (s != NFS4_OK)
		return s;
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	/* the file renamed, and the one the new name replaces */
	if ((s = tnfs_deleg_name_conflict(c, &c->sfh, from)) != NFS4_OK ||
	    (s = tnfs_deleg_name_conflict(c, &c->cfh, to)) != NFS4_OK)
		return s;
	bool sb = tnfs_dir_change(&c->sfh, &r->rename.src.before);
	bool db = cfh_change(c, &r->rename.dst.before);
	s = tnfs_fs_rename(c->exp, &c->sfh, from, &c->cfh, to);
	r->rename.src.atomic = tnfs_dir_change(&c->sfh, &r->rename.src.after) && sb;
	r->rename.dst.atomic = tnfs_dir_change(&c->cfh, &r->rename.dst.after) && db;
	return s;
}

uint32_t tnfs_op_link(struct tnfs_ctx *c, const union nfs4_args *a,
		      union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	if (c->spseudo != TNFS_NOT_PSEUDO || (c->sfh.fd >= 0 && c->sexp != c->exp))
		return NFS4ERR_XDEV; /* RFC 8881 18.9.3, 18.26.3 */
	if (c->sfh.fd < 0)
		return NFS4ERR_NOFILEHANDLE;
	char name[256];
	uint32_t s = tnfs_fs_check_name(a->name.name.data, a->name.name.len, name);
	if (s != NFS4_OK)
		return s;
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	bool atomic = cfh_change(c, &r->cinfo.before);
	s = tnfs_fs_link(&c->sfh, &c->cfh, name);
	r->cinfo.atomic = tnfs_dir_change(&c->cfh, &r->cinfo.after) && atomic;
	return s;
}
