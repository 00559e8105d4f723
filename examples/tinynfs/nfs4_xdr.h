/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * XDR of NFSv4.1/4.2 COMPOUND (RFC 8881 section 16.2, RFC 7862): the
 * COMPOUND4args/COMPOUND4res headers, and for each operation this server
 * implements a decoder of its arguments and an encoder of its result.
 *
 * Decoders read from a bounded cursor (xdr.h) and never past its end; a
 * malformed or truncated argument leaves the cursor `bad` (the operation is
 * answered NFS4ERR_BADXDR).  Length limits enforced while decoding:
 * component names none but the request's (longer than NFS4_MAXNAMLEN is
 * the operation's NFS4ERR_NAMETOOLONG, not bad), owners and client ids
 * <= NFS4_OPAQUE_LIMIT, file handles <= NFS4_FHSIZE, link text <=
 * NFS4_MAXPATHLEN, WRITE data <= what the buffer holds, attribute bitmaps
 * <= 8 words (bits beyond FATTR4_WORDS words are recorded in `extra`),
 * netloc4 lists (COPY, COPY_NOTIFY) <= 16 entries of <= NFS4_OPAQUE_LIMIT
 * bytes each.
 * Decoded opaques point into the request buffer and live as long as it.
 *
 * Encoders write a result's body (after the resop and status words, which
 * compound.c writes); results whose body is streamed by the operation
 * itself (GETATTR, READ, READ_PLUS, READDIR, READLINK, GETFH, TEST_STATEID,
 * SECINFO, SECINFO_NO_NAME) have no encoder here but use the helpers below.
 */
#ifndef TINYNFS_NFS4_XDR_H
#define TINYNFS_NFS4_XDR_H

#include "nfs4/nfs4.h"
#include "xdr.h"

struct nfs4_stateid {
	uint32_t seqid;
	uint8_t other[NFS4_OTHER_SIZE];
};

struct nfs4_bitmap {
	uint32_t w[FATTR4_WORDS];
	bool extra; /* a bit set beyond FATTR4_WORDS words */
};

static inline bool nfs4_bm_isset(const struct nfs4_bitmap *b, unsigned bit)
{
	return bit / 32 < FATTR4_WORDS && (b->w[bit / 32] >> (bit % 32) & 1);
}

static inline void nfs4_bm_set(struct nfs4_bitmap *b, unsigned bit)
{
	if (bit / 32 < FATTR4_WORDS)
		b->w[bit / 32] |= 1u << (bit % 32);
}

/* fattr4 as received: the mask and the raw attribute values (attrs.c). */
struct nfs4_fattr_in {
	struct nfs4_bitmap mask;
	struct xdr_opaque vals;
};

struct nfs4_change_info {
	bool atomic;
	uint64_t before, after;
};

struct nfs4_owner {
	uint64_t clientid;
	struct xdr_opaque owner;
};

struct nfs4_channel_attrs {
	uint32_t headerpadsize, maxreq, maxresp, maxresp_cached, maxops, maxreqs;
	uint32_t nird, ird;
};

/* callback_sec_parms4: the first usable one of the list (AUTH_NONE or
 * AUTH_SYS); flavor UINT32_MAX when the list has none. */
struct nfs4_cb_sec {
	uint32_t flavor;
	uint32_t stamp, uid, gid, ngids, gids[16];
	struct xdr_opaque machine;
};

union nfs4_args {
	struct { uint32_t access; } access;
	struct { uint32_t seqid; struct nfs4_stateid stateid; } close;
	struct { uint64_t offset; uint32_t count; } commit;
	struct {
		uint32_t type;
		struct xdr_opaque linkdata;
		uint32_t spec1, spec2;
		struct xdr_opaque name;
		struct nfs4_fattr_in attrs;
	} create;
	struct { struct nfs4_bitmap mask; } getattr;
	struct { struct xdr_opaque name; } name; /* LINK, LOOKUP, REMOVE */
	struct {
		uint32_t type;
		bool reclaim;
		uint64_t offset, length;
		bool new_owner;
		uint32_t open_seqid; /* new_owner only */
		struct nfs4_stateid stateid; /* open (new) or lock stateid */
		uint32_t lock_seqid;
		struct nfs4_owner owner; /* new_owner only */
	} lock;
	struct {
		uint32_t type;
		uint64_t offset, length;
		struct nfs4_owner owner;
	} lockt;
	struct {
		uint32_t type, seqid;
		struct nfs4_stateid stateid;
		uint64_t offset, length;
	} locku;
	struct {
		uint32_t seqid, share_access, share_deny;
		struct nfs4_owner owner;
		uint32_t opentype, createmode;
		struct nfs4_fattr_in attrs; /* UNCHECKED4, GUARDED4, EXCLUSIVE4_1 */
		uint8_t verf[NFS4_VERIFIER_SIZE]; /* EXCLUSIVE4, EXCLUSIVE4_1 */
		uint32_t claim;
		struct xdr_opaque name; /* CLAIM_NULL, CLAIM_DELEGATE_CUR/PREV */
		uint32_t deleg_type; /* CLAIM_PREVIOUS */
		struct nfs4_stateid deleg_stateid; /* CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH */
	} open;
	struct {
		struct nfs4_stateid stateid;
		uint32_t seqid, share_access, share_deny;
	} open_downgrade;
	struct { struct xdr_opaque fh; } putfh;
	struct { struct nfs4_stateid stateid; uint64_t offset; uint32_t count; } read; /* READ_PLUS too */
	struct {
		uint64_t cookie;
		uint8_t verf[NFS4_VERIFIER_SIZE];
		uint32_t dircount, maxcount;
		struct nfs4_bitmap mask;
	} readdir;
	struct { struct xdr_opaque oldname, newname; } rename;
	struct { struct nfs4_stateid stateid; struct nfs4_fattr_in attrs; } setattr;
	struct {
		struct nfs4_stateid stateid;
		uint64_t offset;
		uint32_t stable;
		struct xdr_opaque data;
	} write;
	struct { uint8_t sessionid[NFS4_SESSIONID_SIZE]; uint32_t dir; bool rdma_mode; } bind_conn;
	struct {
		uint8_t verf[NFS4_VERIFIER_SIZE];
		struct xdr_opaque ownerid;
		uint32_t flags, sp_how;
		/* SP4_MACH_CRED's state_protect_ops4 */
		struct nfs4_bitmap must_enforce, must_allow;
	} exchange_id;
	struct {
		uint64_t clientid;
		uint32_t seqid, flags;
		struct nfs4_channel_attrs fore, back;
		uint32_t cb_program;
		struct nfs4_cb_sec sec;
	} create_session;
	struct { uint32_t cb_program; struct nfs4_cb_sec sec; } backchannel_ctl;
	struct { uint8_t sessionid[NFS4_SESSIONID_SIZE]; } destroy_session;
	struct { struct nfs4_stateid stateid; } free_stateid; /* DELEGRETURN too */
	struct { uint32_t style; } secinfo_no_name;
	struct {
		uint8_t sessionid[NFS4_SESSIONID_SIZE];
		uint32_t seqid, slotid, highest_slotid;
		bool cachethis;
	} sequence;
	struct { uint32_t n; const uint8_t *ids; /* n * 16 raw bytes */ } test_stateid;
	struct { uint64_t clientid; } destroy_clientid;
	struct { bool one_fs; } reclaim_complete;
	struct { struct nfs4_stateid stateid; uint64_t offset; uint32_t what; } seek;
	struct { struct nfs4_fattr_in attrs; } verify; /* VERIFY, NVERIFY */
	/* ALLOCATE, DEALLOCATE (RFC 7862 15.1, 15.4) */
	struct { struct nfs4_stateid stateid; uint64_t offset, length; } allocate;
	/* COPY and CLONE (RFC 7862 15.2, 15.13); CLONE has no flags and no
	 * source servers */
	struct {
		struct nfs4_stateid src, dst;
		uint64_t src_offset, dst_offset, count;
		bool consecutive, synchronous;
		uint32_t nsource; /* ca_source_server<>: decoded, not kept */
	} copy;
	/* COPY_NOTIFY (its netloc4 decoded, not kept), OFFLOAD_CANCEL,
	 * OFFLOAD_STATUS */
	struct { struct nfs4_stateid stateid; } offload;
};

struct nfs4_lock_denied {
	uint64_t offset, length;
	uint32_t type;
	uint64_t clientid;
	uint32_t owner_len;
	uint8_t owner[NFS4_OPAQUE_LIMIT];
};

union nfs4_res {
	struct { uint32_t supported, access; } access;
	struct nfs4_stateid stateid; /* CLOSE, LOCKU, OPEN_DOWNGRADE */
	struct { uint8_t verf[NFS4_VERIFIER_SIZE]; } commit;
	struct { struct nfs4_change_info cinfo; struct nfs4_bitmap attrset; } create;
	struct nfs4_change_info cinfo; /* LINK, REMOVE */
	struct { struct nfs4_change_info src, dst; } rename;
	struct { struct nfs4_stateid stateid; struct nfs4_lock_denied denied; } lock; /* LOCK, LOCKT */
	struct {
		struct nfs4_stateid stateid;
		struct nfs4_change_info cinfo;
		uint32_t rflags;
		struct nfs4_bitmap attrset;
		uint32_t deleg; /* OPEN_DELEGATE_* */
		uint32_t why;	/* OPEN_DELEGATE_NONE_EXT: WND4_* */
		struct nfs4_stateid deleg_sid;
	} open;
	struct { struct nfs4_bitmap attrset; } setattr;
	struct { uint32_t count, committed; uint8_t verf[NFS4_VERIFIER_SIZE]; } write;
	struct { uint8_t sessionid[NFS4_SESSIONID_SIZE]; uint32_t dir; bool rdma_mode; } bind_conn;
	struct {
		uint64_t clientid;
		uint32_t seqid, flags;
		uint32_t sp_how; /* with SP4_MACH_CRED its two lists */
		struct nfs4_bitmap must_enforce, must_allow;
		uint64_t minor_id;
		struct xdr_opaque major_id, scope, impl_domain, impl_name;
		int64_t impl_sec;
		uint32_t impl_nsec;
	} exchange_id;
	struct {
		uint8_t sessionid[NFS4_SESSIONID_SIZE];
		uint32_t seqid, flags;
		struct nfs4_channel_attrs fore, back;
	} create_session;
	struct {
		uint8_t sessionid[NFS4_SESSIONID_SIZE];
		uint32_t seqid, slotid, highest_slotid, target_highest_slotid, status_flags;
	} sequence;
	struct { bool eof; uint64_t offset; } seek;
	/* COPY4resok without callback id (synchronous), or the
	 * copy_requirements4 of NFS4ERR_OFFLOAD_NO_REQS */
	struct {
		uint64_t count;
		uint32_t committed;
		uint8_t verf[NFS4_VERIFIER_SIZE];
		bool consecutive, synchronous;
	} copy;
};

/* COMPOUND4args header: tag (utf8str_cs, <= 1024 bytes here), minorversion,
 * operation count (<= max_ops is not checked here).  Returns false if the
 * header is malformed. */
bool nfs4_dec_compound_hdr(struct xdr_in *x, struct xdr_opaque *tag,
			   uint32_t *minor, uint32_t *numops);

/* COMPOUND4res header; *status_at and *count_at receive where the status
 * and the result count go, to be patched with nfs4_patch_u32(). */
void nfs4_enc_compound_hdr(struct xdr_out *x, const struct xdr_opaque *tag,
			   uint8_t **status_at, uint8_t **count_at);
void nfs4_patch_u32(uint8_t *at, uint32_t v);

/* Shared items. */
void nfs4_dec_stateid(struct xdr_in *x, struct nfs4_stateid *s);
void nfs4_enc_stateid(struct xdr_out *x, const struct nfs4_stateid *s);
/* OPEN4resok's open_delegation4 (nfs4_xdr_open.c). */
void nfs4_enc_open_deleg(struct xdr_out *x, const union nfs4_res *r);
void nfs4_dec_bitmap(struct xdr_in *x, struct nfs4_bitmap *b);
/* Encodes the bitmap with trailing zero words trimmed. */
void nfs4_enc_bitmap(struct xdr_out *x, const struct nfs4_bitmap *b);
size_t nfs4_bitmap_xdr_size(const struct nfs4_bitmap *b);
void nfs4_enc_change_info(struct xdr_out *x, const struct nfs4_change_info *c);

/* Per-operation codecs, looked up by operation number.  dec is NULL for
 * operations without arguments; enc is NULL for results that have no body
 * beyond the status or whose body the operation streams.  Both NULL for
 * operations this server does not implement. */
typedef void nfs4_dec_fn(struct xdr_in *x, union nfs4_args *a);
typedef void nfs4_enc_fn(struct xdr_out *x, uint32_t status, const union nfs4_res *r);

struct nfs4_codec {
	nfs4_dec_fn *dec;
	nfs4_enc_fn *enc;
};

/* The codec of `op`, or NULL if op is not an operation this server
 * decodes.  */
const struct nfs4_codec *nfs4_codec(uint32_t op);

#endif
