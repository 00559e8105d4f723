/* SPDX-License-Identifier: BSD-2-Clause */
/* fattr4 encoding and decoding; see attrs.h. */
#include "attrs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "state.h"

#define B(n) (1u << ((n) % 32))

static const uint32_t supp_w0 =
	B(FATTR4_SUPPORTED_ATTRS) | B(FATTR4_TYPE) | B(FATTR4_FH_EXPIRE_TYPE) |
	B(FATTR4_CHANGE) | B(FATTR4_SIZE) | B(FATTR4_LINK_SUPPORT) |
	B(FATTR4_SYMLINK_SUPPORT) | B(FATTR4_NAMED_ATTR) | B(FATTR4_FSID) |
	B(FATTR4_UNIQUE_HANDLES) | B(FATTR4_LEASE_TIME) | B(FATTR4_RDATTR_ERROR) |
	B(FATTR4_CANSETTIME) | B(FATTR4_CASE_INSENSITIVE) |
	B(FATTR4_CASE_PRESERVING) | B(FATTR4_CHOWN_RESTRICTED) |
	B(FATTR4_FILEHANDLE) | B(FATTR4_FILEID) | B(FATTR4_FILES_AVAIL) |
	B(FATTR4_FILES_FREE) | B(FATTR4_FILES_TOTAL) | B(FATTR4_MAXFILESIZE) |
	B(FATTR4_MAXLINK) | B(FATTR4_MAXNAME) | B(FATTR4_MAXREAD) |
	B(FATTR4_MAXWRITE);
static const uint32_t supp_w1 =
	B(FATTR4_MODE) | B(FATTR4_NO_TRUNC) | B(FATTR4_NUMLINKS) |
	B(FATTR4_OWNER) | B(FATTR4_OWNER_GROUP) | B(FATTR4_RAWDEV) |
	B(FATTR4_SPACE_AVAIL) | B(FATTR4_SPACE_FREE) | B(FATTR4_SPACE_TOTAL) |
	B(FATTR4_SPACE_USED) | B(FATTR4_TIME_ACCESS) | B(FATTR4_TIME_ACCESS_SET) |
	B(FATTR4_TIME_DELTA) | B(FATTR4_TIME_METADATA) | B(FATTR4_TIME_MODIFY) |
	B(FATTR4_TIME_MODIFY_SET) | B(FATTR4_MOUNTED_ON_FILEID);
static const uint32_t supp_w2 = B(FATTR4_SUPPATTR_EXCLCREAT);

/* Settable attributes (word 0: size; word 1: mode, owners, times). */
static const uint32_t set_w0 = B(FATTR4_SIZE);
static const uint32_t set_w1 = B(FATTR4_MODE) | B(FATTR4_OWNER) |
			       B(FATTR4_OWNER_GROUP) | B(FATTR4_TIME_ACCESS_SET) |
			       B(FATTR4_TIME_MODIFY_SET);
static const uint32_t wronly_w1 = B(FATTR4_TIME_ACCESS_SET) | B(FATTR4_TIME_MODIFY_SET);
/* RFC 9754, minor version 2: the delegated times, set by the holder of a
 * delegation with them, never read back (GETATTR: NFS4ERR_INVAL, as
 * nfsd); open_arguments, read-only */
static const uint32_t deleg_times_w2 = B(FATTR4_TIME_DELEG_ACCESS) | B(FATTR4_TIME_DELEG_MODIFY);
static const uint32_t v42_w2 = B(FATTR4_TIME_DELEG_ACCESS) | B(FATTR4_TIME_DELEG_MODIFY) |
			       B(FATTR4_OPEN_ARGUMENTS);

/* open_arguments4 (RFC 9754): what tnfs_op_open accepts.  Share access
 * READ, WRITE, BOTH; every deny; the wants ANY_DELEG, NO_DELEG, CANCEL
 * DELEG_TIMESTAMPS and OPEN_XOR_DELEGATION (minor version 2);
 * claims NULL, PREVIOUS, DELEGATE_CUR, FH, DELEG_CUR_FH (not the
 * DELEGATE_PREV ones: NFS4ERR_NOTSUPP); all four create modes. */
#define OA_ACCESS (1u << OPEN4_SHARE_ACCESS_READ | 1u << OPEN4_SHARE_ACCESS_WRITE | \
		   1u << OPEN4_SHARE_ACCESS_BOTH)
#define OA_DENY 0xfu
#define OA_WANT (1u << OPEN_ARGS_SHARE_ACCESS_WANT_ANY_DELEG | \
		 1u << OPEN_ARGS_SHARE_ACCESS_WANT_NO_DELEG | \
		 1u << OPEN_ARGS_SHARE_ACCESS_WANT_CANCEL | \
		 1u << OPEN_ARGS_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS | \
		 1u << OPEN_ARGS_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION)
#define OA_CLAIM (1u << CLAIM_NULL | 1u << CLAIM_PREVIOUS | 1u << CLAIM_DELEGATE_CUR | \
		  1u << CLAIM_FH | 1u << CLAIM_DELEG_CUR_FH)
#define OA_CREATE (1u << UNCHECKED4 | 1u << GUARDED4 | 1u << EXCLUSIVE4 | 1u << EXCLUSIVE4_1)
#define OA_SIZE (5 * 8)

void tnfs_attrs_open_arguments(uint32_t out[5])
{
	out[0] = OA_ACCESS;
	out[1] = OA_DENY;
	out[2] = OA_WANT;
	out[3] = OA_CLAIM;
	out[4] = OA_CREATE;
}

static bool label_on(const struct tnfs_export *x, uint32_t minor)
{
	return minor >= 2 && (x->flags & TNFS_EXP_SECURITY_LABEL);
}

void tnfs_attrs_supported(const struct tnfs_export *x, uint32_t minor,
			  struct nfs4_bitmap *out)
{
	memset(out, 0, sizeof(*out));
	out->w[0] = supp_w0;
	out->w[1] = supp_w1;
	out->w[2] = supp_w2;
	if (label_on(x, minor))
		out->w[2] |= B(FATTR4_SEC_LABEL);
	if (minor >= 2)
		out->w[2] |= v42_w2;
}

/* attributes settable at EXCLUSIVE4_1 creation: all settable but times */
static void exclcreat(const struct tnfs_export *x, uint32_t minor, struct nfs4_bitmap *b)
{
	memset(b, 0, sizeof(*b));
	b->w[0] = set_w0;
	b->w[1] = set_w1 & ~wronly_w1;
	if (label_on(x, minor))
		b->w[2] = B(FATTR4_SEC_LABEL);
}

uint64_t tnfs_change_of(const struct stat *st)
{
	return (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
}

static void put_open_arguments(struct xdr_out *x)
{
	uint32_t oa[5];
	tnfs_attrs_open_arguments(oa);
	for (int i = 0; i < 5; i++) {
		xdr_put_u32(x, 1); /* a bitmap4 of one word */
		xdr_put_u32(x, oa[i]);
	}
}

static uint32_t ftype(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return NF4REG;
	case S_IFDIR: return NF4DIR;
	case S_IFBLK: return NF4BLK;
	case S_IFCHR: return NF4CHR;
	case S_IFLNK: return NF4LNK;
	case S_IFSOCK: return NF4SOCK;
	default: return NF4FIFO;
	}
}

static void put_time(struct xdr_out *x, const struct timespec *t)
{
	xdr_put_u64(x, (uint64_t)(int64_t)t->tv_sec);
	xdr_put_u32(x, (uint32_t)t->tv_nsec);
}

/* An owner or group as its decimal id (no snprintf: two per GETATTR). */
static void put_id(struct xdr_out *x, uint32_t id)
{
	char b[10];
	unsigned n = sizeof(b);
	do {
		b[--n] = (char)('0' + id % 10);
		id /= 10;
	} while (id);
	xdr_put_opaque(x, b + n, (uint32_t)(sizeof(b) - n));
}

/* The next set bit of b at or after *bit, false if none: walks the
 * requested attributes without testing all 32 * FATTR4_WORDS bits. */
static bool next_bit(const struct nfs4_bitmap *b, unsigned *bit)
{
	for (unsigned w = *bit / 32; w < FATTR4_WORDS; w++) {
		uint32_t v = *bit / 32 == w ? b->w[w] & (UINT32_MAX << (*bit % 32)) : b->w[w];
		if (v) {
			*bit = 32 * w + (unsigned)__builtin_ctz(v);
			return true;
		}
	}
	return false;
}

/* Largest size of each attribute value (0: not supported / none). */
static size_t attr_max(unsigned bit)
{
	switch (bit) {
	case FATTR4_SUPPORTED_ATTRS: case FATTR4_SUPPATTR_EXCLCREAT:
		return 4 + 4 * FATTR4_WORDS;
	case FATTR4_TYPE: case FATTR4_FH_EXPIRE_TYPE: case FATTR4_LINK_SUPPORT:
	case FATTR4_SYMLINK_SUPPORT: case FATTR4_NAMED_ATTR:
	case FATTR4_UNIQUE_HANDLES: case FATTR4_LEASE_TIME:
	case FATTR4_RDATTR_ERROR: case FATTR4_CANSETTIME:
	case FATTR4_CASE_INSENSITIVE: case FATTR4_CASE_PRESERVING:
	case FATTR4_CHOWN_RESTRICTED: case FATTR4_MAXLINK: case FATTR4_MAXNAME:
	case FATTR4_MODE: case FATTR4_NO_TRUNC: case FATTR4_NUMLINKS:
		return 4;
	case FATTR4_CHANGE: case FATTR4_SIZE: case FATTR4_FILEID:
	case FATTR4_FILES_AVAIL: case FATTR4_FILES_FREE: case FATTR4_FILES_TOTAL:
	case FATTR4_MAXFILESIZE: case FATTR4_MAXREAD: case FATTR4_MAXWRITE:
	case FATTR4_RAWDEV: case FATTR4_SPACE_AVAIL: case FATTR4_SPACE_FREE:
	case FATTR4_SPACE_TOTAL: case FATTR4_SPACE_USED:
	case FATTR4_MOUNTED_ON_FILEID:
		return 8;
	case FATTR4_FSID:
		return 16;
	case FATTR4_FILEHANDLE:
		return 4 + NFS4_FHSIZE;
	case FATTR4_OWNER: case FATTR4_OWNER_GROUP:
		return 4 + 12; /* up to 10 decimal digits */
	case FATTR4_TIME_ACCESS: case FATTR4_TIME_DELTA:
	case FATTR4_TIME_METADATA: case FATTR4_TIME_MODIFY:
		return 12;
	case FATTR4_SEC_LABEL:
		return 12 + TNFS_LABEL_MAX;
	case FATTR4_OPEN_ARGUMENTS:
		return OA_SIZE;
	default:
		return 0;
	}
}

size_t tnfs_attrs_estimate(const struct tnfs_export *x, uint32_t minor,
			   const struct nfs4_bitmap *req, uint32_t fh_len)
{
	struct nfs4_bitmap supp;
	tnfs_attrs_supported(x, minor, &supp);
	struct nfs4_bitmap both;
	memset(&both, 0, sizeof(both));
	for (int i = 0; i < FATTR4_WORDS; i++)
		both.w[i] = req->w[i] & supp.w[i];
	size_t n = 4 + 4 * FATTR4_WORDS + 4; /* bitmap + attrlist length */
	for (unsigned bit = 0; next_bit(&both, &bit); bit++)
		n += bit == FATTR4_FILEHANDLE ? 4 + xdr_pad(fh_len) : attr_max(bit);
	return n;
}

uint32_t tnfs_attrs_encode(struct xdr_out *x, const struct nfs4_bitmap *req,
			   const struct tnfs_attr_src *src)
{
	const struct tnfs_export *ex = src->exp;
	const struct stat *st = src->st;
	struct nfs4_bitmap supp, ret;
	tnfs_attrs_supported(ex, src->minor, &supp);
	if ((req->w[1] & wronly_w1) || (req->w[2] & supp.w[2] & deleg_times_w2))
		return NFS4ERR_INVAL;
	memset(&ret, 0, sizeof(ret));
	for (int i = 0; i < FATTR4_WORDS; i++)
		ret.w[i] = req->w[i] & supp.w[i];
	if (!nfs4_bm_isset(req, FATTR4_RDATTR_ERROR) || src->fd >= 0)
		ret.w[0] &= ~B(FATTR4_RDATTR_ERROR);

	struct tnfs_fh fh;
	if (src->fh) {
		fh = *src->fh;
	} else if (nfs4_bm_isset(&ret, FATTR4_FILEHANDLE)) {
		uint32_t s = src->fd >= 0 ? tnfs_fs_to_fh(ex, &(struct tnfs_node){ .fd = src->fd }, &fh)
					  : tnfs_fs_name_to_fh(ex, src->dirfd, src->name, &fh);
		if (s != NFS4_OK)
			ret.w[0] &= ~B(FATTR4_FILEHANDLE);
	}
	struct statvfs vfs;
	bool want_vfs = (ret.w[0] & (B(FATTR4_FILES_AVAIL) | B(FATTR4_FILES_FREE) |
				     B(FATTR4_FILES_TOTAL))) ||
			(ret.w[1] & (B(FATTR4_SPACE_AVAIL) | B(FATTR4_SPACE_FREE) |
				     B(FATTR4_SPACE_TOTAL)));
	if (want_vfs && src->empty_fs) {
		memset(&vfs, 0, sizeof(vfs));
	} else if (want_vfs && fstatvfs(src->fd >= 0 ? src->fd : src->dirfd, &vfs) != 0) {
		ret.w[0] &= ~(B(FATTR4_FILES_AVAIL) | B(FATTR4_FILES_FREE) | B(FATTR4_FILES_TOTAL));
		ret.w[1] &= ~(B(FATTR4_SPACE_AVAIL) | B(FATTR4_SPACE_FREE) | B(FATTR4_SPACE_TOTAL));
	}
	char label[TNFS_LABEL_MAX];
	size_t label_len = 0;
	if (nfs4_bm_isset(&ret, FATTR4_SEC_LABEL)) {
		struct tnfs_node n = { .fd = src->fd };
		if (src->fd < 0 || tnfs_fs_get_label(&n, label, sizeof(label), &label_len) != NFS4_OK)
			ret.w[2] &= ~B(FATTR4_SEC_LABEL);
	}

	nfs4_enc_bitmap(x, &ret);
	uint8_t *lenp = xdr_reserve(x, 4);
	uint8_t *start = x->p;
	for (unsigned bit = 0; next_bit(&ret, &bit); bit++) {
		switch (bit) {
		case FATTR4_SUPPORTED_ATTRS: nfs4_enc_bitmap(x, &supp); break;
		case FATTR4_TYPE: xdr_put_u32(x, ftype(st->st_mode)); break;
		case FATTR4_FH_EXPIRE_TYPE: xdr_put_u32(x, 0); break; /* FH4_PERSISTENT */
		case FATTR4_CHANGE: xdr_put_u64(x, tnfs_change_of(st)); break;
		case FATTR4_SIZE: xdr_put_u64(x, (uint64_t)st->st_size); break;
		case FATTR4_LINK_SUPPORT: xdr_put_bool(x, true); break;
		case FATTR4_SYMLINK_SUPPORT: xdr_put_bool(x, true); break;
		case FATTR4_NAMED_ATTR: xdr_put_bool(x, false); break;
		case FATTR4_FSID:
			xdr_put_u64(x, ex->fsid_major);
			xdr_put_u64(x, ex->fsid_minor);
			break;
		case FATTR4_UNIQUE_HANDLES: xdr_put_bool(x, true); break;
		case FATTR4_LEASE_TIME: xdr_put_u32(x, TNFS_LEASE_TIME); break;
		case FATTR4_RDATTR_ERROR: xdr_put_u32(x, src->rdattr_error); break;
		case FATTR4_CANSETTIME: xdr_put_bool(x, true); break;
		case FATTR4_CASE_INSENSITIVE: xdr_put_bool(x, false); break;
		case FATTR4_CASE_PRESERVING: xdr_put_bool(x, true); break;
		case FATTR4_CHOWN_RESTRICTED: xdr_put_bool(x, true); break;
		case FATTR4_FILEHANDLE: xdr_put_opaque(x, fh.data, fh.len); break;
		case FATTR4_FILEID: xdr_put_u64(x, (uint64_t)st->st_ino); break;
		case FATTR4_FILES_AVAIL: xdr_put_u64(x, vfs.f_favail); break;
		case FATTR4_FILES_FREE: xdr_put_u64(x, vfs.f_ffree); break;
		case FATTR4_FILES_TOTAL: xdr_put_u64(x, vfs.f_files); break;
		case FATTR4_MAXFILESIZE: xdr_put_u64(x, (uint64_t)INT64_MAX); break;
		case FATTR4_MAXLINK: xdr_put_u32(x, 65000); break;
		case FATTR4_MAXNAME: xdr_put_u32(x, NFS4_MAXNAMLEN); break;
		case FATTR4_MAXREAD: xdr_put_u64(x, src->maxread); break;
		case FATTR4_MAXWRITE: xdr_put_u64(x, src->maxwrite); break;
		case FATTR4_MODE: xdr_put_u32(x, st->st_mode & 07777); break;
		case FATTR4_NO_TRUNC: xdr_put_bool(x, true); break;
		case FATTR4_NUMLINKS: xdr_put_u32(x, (uint32_t)st->st_nlink); break;
		case FATTR4_OWNER: put_id(x, st->st_uid); break;
		case FATTR4_OWNER_GROUP: put_id(x, st->st_gid); break;
		case FATTR4_RAWDEV:
			xdr_put_u32(x, major(st->st_rdev));
			xdr_put_u32(x, minor(st->st_rdev));
			break;
		case FATTR4_SPACE_AVAIL: xdr_put_u64(x, (uint64_t)vfs.f_bavail * vfs.f_frsize); break;
		case FATTR4_SPACE_FREE: xdr_put_u64(x, (uint64_t)vfs.f_bfree * vfs.f_frsize); break;
		case FATTR4_SPACE_TOTAL: xdr_put_u64(x, (uint64_t)vfs.f_blocks * vfs.f_frsize); break;
		case FATTR4_SPACE_USED: xdr_put_u64(x, (uint64_t)st->st_blocks * 512); break;
		case FATTR4_TIME_ACCESS: put_time(x, &st->st_atim); break;
		case FATTR4_TIME_DELTA: put_time(x, &(struct timespec){ 0, 1 }); break;
		case FATTR4_TIME_METADATA: put_time(x, &st->st_ctim); break;
		case FATTR4_TIME_MODIFY: put_time(x, &st->st_mtim); break;
		case FATTR4_MOUNTED_ON_FILEID:
			xdr_put_u64(x, src->mounted_on ? src->mounted_on : (uint64_t)st->st_ino);
			break;
		case FATTR4_SUPPATTR_EXCLCREAT: {
			struct nfs4_bitmap e;
			exclcreat(ex, src->minor, &e);
			nfs4_enc_bitmap(x, &e);
			break;
		}
		case FATTR4_SEC_LABEL:
			xdr_put_u32(x, 0); /* lfs_lfs */
			xdr_put_u32(x, 0); /* lfs_pi */
			xdr_put_opaque(x, label, (uint32_t)label_len);
			break;
		case FATTR4_OPEN_ARGUMENTS: put_open_arguments(x); break;
		default:
			break;
		}
	}
	if (x->bad)
		return NFS4ERR_RESOURCE;
	xdr_wr32(lenp, (uint32_t)(x->p - start));
	return NFS4_OK;
}

static uint32_t get_id(struct xdr_in *x, uint32_t *id)
{
	struct xdr_opaque s = xdr_get_opaque(x, NFS4_OPAQUE_LIMIT);
	if (x->bad)
		return NFS4ERR_BADXDR;
	if (s.len == 0 || s.len > 10)
		return NFS4ERR_BADOWNER;
	uint64_t v = 0;
	for (uint32_t i = 0; i < s.len; i++) {
		if (s.data[i] < '0' || s.data[i] > '9')
			return NFS4ERR_BADOWNER;
		v = v * 10 + (uint64_t)(s.data[i] - '0');
	}
	if (v > UINT32_MAX)
		return NFS4ERR_BADOWNER;
	*id = (uint32_t)v;
	return NFS4_OK;
}

/* An nfstime4: NFS4ERR_BADXDR short, NFS4ERR_INVAL nseconds >= 10^9. */
static uint32_t get_time(struct xdr_in *x, struct timespec *t)
{
	int64_t sec = (int64_t)xdr_get_u64(x);
	uint32_t nsec = xdr_get_u32(x);
	if (x->bad)
		return NFS4ERR_BADXDR;
	if (nsec >= 1000000000u)
		return NFS4ERR_INVAL;
	t->tv_sec = (time_t)sec;
	t->tv_nsec = (long)nsec;
	return NFS4_OK;
}

static uint32_t get_settime(struct xdr_in *x, int *how, struct timespec *t)
{
	uint32_t h = xdr_get_u32(x);
	if (h == SET_TO_SERVER_TIME4) {
		*how = 1;
		return NFS4_OK;
	}
	if (h != SET_TO_CLIENT_TIME4)
		return x->bad ? NFS4ERR_BADXDR : NFS4ERR_INVAL;
	uint32_t s = get_time(x, t);
	if (s == NFS4_OK)
		*how = 2;
	return s;
}

static uint32_t decode(const struct tnfs_export *x, uint32_t minor,
		       const struct nfs4_fattr_in *in, struct tnfs_attrs_in *out, bool deleg_times)
{
	memset(out, 0, sizeof(*out));
	if (in->mask.extra)
		return NFS4ERR_ATTRNOTSUPP;
	struct nfs4_bitmap supp;
	tnfs_attrs_supported(x, minor, &supp);
	const uint32_t setw[FATTR4_WORDS] = {
		set_w0, set_w1, (label_on(x, minor) ? B(FATTR4_SEC_LABEL) : 0) |
				(minor >= 2 && deleg_times ? deleg_times_w2 : 0) };
	for (int i = 0; i < FATTR4_WORDS; i++) {
		if (in->mask.w[i] & ~supp.w[i])
			return NFS4ERR_ATTRNOTSUPP;
		if (in->mask.w[i] & ~setw[i])
			return NFS4ERR_INVAL;
	}
	out->set = in->mask;
	struct xdr_in v;
	xdr_in_init(&v, in->vals.data, in->vals.len);
	uint32_t s = NFS4_OK;
	struct tnfs_sattr *sa = &out->sa;
	if (nfs4_bm_isset(&in->mask, FATTR4_SIZE)) {
		sa->set_size = true;
		sa->size = xdr_get_u64(&v);
	}
	if (nfs4_bm_isset(&in->mask, FATTR4_MODE)) {
		sa->set_mode = true;
		sa->mode = xdr_get_u32(&v);
		if (!v.bad && sa->mode > 07777)
			return NFS4ERR_INVAL;
	}
	if (nfs4_bm_isset(&in->mask, FATTR4_OWNER)) {
		sa->set_uid = true;
		if ((s = get_id(&v, &sa->uid)) != NFS4_OK)
			return s;
	}
	if (nfs4_bm_isset(&in->mask, FATTR4_OWNER_GROUP)) {
		sa->set_gid = true;
		if ((s = get_id(&v, &sa->gid)) != NFS4_OK)
			return s;
	}
	if (nfs4_bm_isset(&in->mask, FATTR4_TIME_ACCESS_SET) &&
	    (s = get_settime(&v, &sa->atime_how, &sa->atime)) != NFS4_OK)
		return s;
	if (nfs4_bm_isset(&in->mask, FATTR4_TIME_MODIFY_SET) &&
	    (s = get_settime(&v, &sa->mtime_how, &sa->mtime)) != NFS4_OK)
		return s;
	if (nfs4_bm_isset(&in->mask, FATTR4_SEC_LABEL)) {
		(void)xdr_get_u32(&v); /* lfs_lfs */
		(void)xdr_get_u32(&v); /* lfs_pi */
		out->label = xdr_get_opaque(&v, TNFS_LABEL_MAX);
		out->set_label = true;
	}
	if (nfs4_bm_isset(&in->mask, FATTR4_TIME_DELEG_ACCESS) &&
	    (s = get_time(&v, &out->deleg_atime)) != NFS4_OK)
		return s;
	if (nfs4_bm_isset(&in->mask, FATTR4_TIME_DELEG_MODIFY) &&
	    (s = get_time(&v, &out->deleg_mtime)) != NFS4_OK)
		return s;
	out->set_deleg_atime = nfs4_bm_isset(&in->mask, FATTR4_TIME_DELEG_ACCESS);
	out->set_deleg_mtime = nfs4_bm_isset(&in->mask, FATTR4_TIME_DELEG_MODIFY);
	if (v.bad || xdr_in_left(&v) != 0)
		return NFS4ERR_BADXDR;
	return NFS4_OK;
}

uint32_t tnfs_attrs_decode(const struct tnfs_export *x, uint32_t minor,
			   const struct nfs4_fattr_in *in, struct tnfs_attrs_in *out)
{
	return decode(x, minor, in, out, false);
}

uint32_t tnfs_attrs_decode_setattr(const struct tnfs_export *x, uint32_t minor,
				   const struct nfs4_fattr_in *in, struct tnfs_attrs_in *out)
{
	return decode(x, minor, in, out, true);
}
