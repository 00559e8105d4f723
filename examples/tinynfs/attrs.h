/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fattr4: which attributes the server supports, their encoding for GETATTR
 * and READDIR, their size bounds (for reply estimates) and the decoding of
 * settable attributes for SETATTR, OPEN and CREATE.
 *
 * Supported: the REQUIRED attributes of RFC 8881 (0-11, 19, 75) and the
 * RECOMMENDED ones a POSIX file system answers (see supported_attrs() in
 * attrs.c).  sec_label (80) only for minor version >= 2 on an export with
 * TNFS_EXP_SECURITY_LABEL.  RFC 9754's time_deleg_access (84),
 * time_deleg_modify (85) and open_arguments (86) only for minor version
 * 2, as the RFC extends NFSv4.2 alone: the delegated times are settable
 * (by the holder of a delegation with delegated timestamps, checked by
 * SETATTR) and write-only (GETATTR of them: NFS4ERR_INVAL, as nfsd);
 * open_arguments is read-only.
 *
 * GETATTR rules (RFC 8881 18.7.3): a requested attribute the server does
 * not support is simply left out of the reply bitmap; a write-only one
 * (time_access_set, time_modify_set) makes the request NFS4ERR_INVAL.
 * Settable-attribute rules (18.30.3): an unsupported attribute ->
 * NFS4ERR_ATTRNOTSUPP, a read-only one -> NFS4ERR_INVAL, values that do
 * not exactly fill the attribute list -> NFS4ERR_BADXDR, an owner that is
 * not a decimal id -> NFS4ERR_BADOWNER, nseconds >= 10^9 -> NFS4ERR_INVAL,
 * mode bits above 07777 -> NFS4ERR_INVAL.
 */
#ifndef TINYNFS_ATTRS_H
#define TINYNFS_ATTRS_H

#include "fs.h"
#include "nfs4_xdr.h"

#define TNFS_LABEL_MAX 2048

void tnfs_attrs_supported(const struct tnfs_export *x, uint32_t minor,
			  struct nfs4_bitmap *out);

/* What one object's attributes are made from. */
struct tnfs_attr_src {
	const struct tnfs_export *exp;
	uint32_t minor;
	const struct stat *st;
	int fd;			 /* O_PATH fd of the object, or -1 (READDIR) */
	int dirfd;		 /* with name, when fd is -1 */
	const char *name;
	uint32_t rdattr_error;	 /* READDIR: error getting this entry */
	uint32_t maxread, maxwrite;
	const struct tnfs_fh *fh; /* the handle, if known (pseudo nodes) */
	uint64_t mounted_on;	  /* mounted_on_fileid; 0: st_ino */
	bool empty_fs;		  /* files_* and space_*: 0 (the pseudo fs holds nothing) */
};

/* Encodes fattr4 (bitmap + attrlist) for `req`.  Returns NFS4_OK,
 * NFS4ERR_INVAL (write-only attribute requested) or, if the reply buffer
 * is full, NFS4ERR_RESOURCE (the cursor is then bad). */
uint32_t tnfs_attrs_encode(struct xdr_out *x, const struct nfs4_bitmap *req,
			   const struct tnfs_attr_src *src);

/* Largest fattr4 encoding the request can produce, for an object whose
 * file handle is at most fh_len bytes. */
size_t tnfs_attrs_estimate(const struct tnfs_export *x, uint32_t minor,
			   const struct nfs4_bitmap *req, uint32_t fh_len);

/* Decoded settable attributes. */
struct tnfs_attrs_in {
	struct tnfs_sattr sa;
	bool set_label;
	struct xdr_opaque label;
	struct nfs4_bitmap set; /* the bits present */
	/* RFC 9754's time_deleg_access, time_deleg_modify (minor 2): the
	 * holder's times, vetted by SETATTR (ops_deleg.h) */
	bool set_deleg_atime, set_deleg_mtime;
	struct timespec deleg_atime, deleg_mtime;
};

/* OPEN's and CREATE's: the delegated times are NFS4ERR_INVAL there. */
uint32_t tnfs_attrs_decode(const struct tnfs_export *x, uint32_t minor,
			   const struct nfs4_fattr_in *in, struct tnfs_attrs_in *out);
/* SETATTR's: with the delegated times (minor 2). */
uint32_t tnfs_attrs_decode_setattr(const struct tnfs_export *x, uint32_t minor,
				   const struct nfs4_fattr_in *in, struct tnfs_attrs_in *out);

/* open_arguments4 (RFC 9754) as GETATTR gives it: the share access,
 * deny, want, claim and create-mode bitmaps, one word each. */
void tnfs_attrs_open_arguments(uint32_t out[5]);

/* change attribute from ctime */
uint64_t tnfs_change_of(const struct stat *st);

#endif
