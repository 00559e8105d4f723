/* SPDX-License-Identifier: BSD-2-Clause */
/* File-handle and lookup operations: PUTROOTFH, PUTFH, GETFH, SAVEFH,
 * RESTOREFH, LOOKUP, LOOKUPP, ACCESS, GETATTR, VERIFY, NVERIFY, READLINK,
 * SECINFO, SECINFO_NO_NAME. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attrs.h"
#include "ops.h"
#include "ops_deleg.h"

/* RFC 8881 2.6.3.1.1: an operation that made the current file handle
 * one of an export (PUTFH, PUTROOTFH, RESTOREFH, LOOKUP, LOOKUPP) fails
 * with NFS4ERR_WRONGSEC when the export does not take the call's flavour
 * (tnfs_export_sec_ok) -- unless nothing uses that handle next: no
 * operation follows (2.6.3.1.1.6), or SECINFO, SECINFO_NO_NAME
 * (2.6.3.1.1.5), another put-filehandle operation (2.6.3.1.1.2), LOOKUP
 * or LOOKUPP (2.6.3.1.1.3-4: they answer for where they land), or the
 * client's machine credential sends an operation of its spo_must_allow
 * (tnfs_ctx_mach_allowed, as nfsd).  Pseudo nodes take every flavour. */
static uint32_t landed(const struct tnfs_ctx *c, uint32_t s)
{
	if (s != NFS4_OK || c->cpseudo != TNFS_NOT_PSEUDO || tnfs_export_sec_ok(c->exp, c->rpc_cred))
		return s;
	switch (c->next_op) {
	case UINT32_MAX:
	case OP_SECINFO:
	case OP_SECINFO_NO_NAME:
	case OP_PUTFH:
	case OP_PUTPUBFH:
	case OP_PUTROOTFH:
	case OP_RESTOREFH:
	case OP_LOOKUP:
	case OP_LOOKUPP:
		return NFS4_OK;
	default:
		return tnfs_ctx_mach_allowed(c) ? NFS4_OK : NFS4ERR_WRONGSEC;
	}
}

static uint32_t putrootfh(struct tnfs_ctx *c)
{
	if (c->srv->pseudo) {
		tnfs_ctx_set_pseudo(c, 0);
		return NFS4_OK;
	}
	struct tnfs_node n;
	uint32_t s = tnfs_fs_root(c->srv->exp, &n);
	if (s == NFS4_OK)
		tnfs_ctx_set_cfh_in(c, c->srv->exp, &n, NULL);
	return s;
}

uint32_t tnfs_op_putrootfh(struct tnfs_ctx *c, const union nfs4_args *a,
			   union nfs4_res *r, struct xdr_out *x)
{
	(void)a, (void)r, (void)x;
	return landed(c, putrootfh(c));
}

/* A pseudo-node handle: the node, or the export root of a junction. */
static uint32_t putfh_pseudo(struct tnfs_ctx *c, const uint8_t *fh, uint32_t len)
{
	const struct tnfs_pseudo *p = c->srv->pseudo;
	if (!p) /* the exports file lost all but one export */
		return len == TNFS_PSEUDO_FH_LEN ? NFS4ERR_STALE : NFS4ERR_BADHANDLE;
	uint32_t node;
	uint32_t s = tnfs_pseudo_from_fh(p, fh, len, &node);
	return s == NFS4_OK ? tnfs_pseudo_enter(c, node) : s;
}

static uint32_t putfh(struct tnfs_ctx *c, const union nfs4_args *a)
{
	const uint8_t *d = a->putfh.fh.data;
	uint32_t len = a->putfh.fh.len;
	if (len && d[0] == TNFS_PSEUDO_FH_LAYOUT)
		return putfh_pseudo(c, d, len);
	const struct tnfs_export *ex;
	uint32_t s = tnfs_server_fh_export(c->srv, d, len, &ex);
	if (s != NFS4_OK)
		return s;
	struct tnfs_node n;
	struct stat st;
	/* the ids ctx_enter left on this thread: the caller's, or the
	 * server's own when it switched nothing */
	int64_t fsuid = c->become.switched ? (int64_t)c->cred.uid : (int64_t)c->srv->self.uid;
	s = tnfs_fs_from_fh(ex, d, len, &n, &st, fsuid);
	if (s != NFS4_OK)
		return s;
	struct tnfs_fh fh;
	fh.len = len;
	memcpy(fh.data, d, len);
	tnfs_ctx_set_cfh_in(c, ex, &n, &fh);
	/* for the next operation (tnfs_ctx_cfh_stat) */
	c->cfh_st = st;
	c->cfh_st_op = c->opindex + 1;
	c->cfh_st_ok = true;
	return NFS4_OK;
}

uint32_t tnfs_op_putfh(struct tnfs_ctx *c, const union nfs4_args *a,
		       union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	return landed(c, putfh(c, a));
}

uint32_t tnfs_op_getfh(struct tnfs_ctx *c, const union nfs4_args *a,
		       union nfs4_res *r, struct xdr_out *x)
{
	(void)a, (void)r;
	if (!c->cfh_fh.len) {
		uint32_t s = tnfs_fs_to_fh(c->exp, &c->cfh, &c->cfh_fh);
		if (s != NFS4_OK) {
			c->cfh_fh.len = 0;
			return s;
		}
	}
	xdr_put_opaque(x, c->cfh_fh.data, c->cfh_fh.len);
	return NFS4_OK;
}

uint32_t tnfs_op_savefh(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)a, (void)r, (void)x;
	struct tnfs_node n = TNFS_NODE_NONE;
	if (c->cpseudo == TNFS_NOT_PSEUDO) {
		uint32_t s = tnfs_node_dup(&c->cfh, &n);
		if (s != NFS4_OK)
			return s;
	}
	tnfs_node_put(&c->sfh);
	c->sfh = n;
	c->sexp = c->exp;
	c->spseudo = c->cpseudo;
	c->saved_sid = c->cur_sid;
	c->have_saved_sid = c->have_cur_sid;
	return NFS4_OK;
}

uint32_t tnfs_op_restorefh(struct tnfs_ctx *c, const union nfs4_args *a,
			   union nfs4_res *r, struct xdr_out *x)
{
	(void)a, (void)r, (void)x;
	if (c->spseudo != TNFS_NOT_PSEUDO) {
		tnfs_ctx_set_pseudo(c, c->spseudo);
	} else {
		if (c->sfh.fd < 0)
			return NFS4ERR_RESTOREFH;
		struct tnfs_node n;
		uint32_t s = tnfs_node_dup(&c->sfh, &n);
		if (s != NFS4_OK)
			return s;
		tnfs_ctx_set_cfh_in(c, c->sexp, &n, NULL);
	}
	c->cur_sid = c->saved_sid;
	c->have_cur_sid = c->have_saved_sid;
	return landed(c, NFS4_OK);
}

uint32_t tnfs_op_lookup(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	if (c->cpseudo != TNFS_NOT_PSEUDO)
		return landed(c, tnfs_pseudo_op_lookup(c, a->name.name.data, a->name.name.len));
	char name[256];
	uint32_t s = tnfs_fs_check_name(a->name.name.data, a->name.name.len, name);
	if (s != NFS4_OK)
		return s;
	struct tnfs_node n;
	s = tnfs_fs_lookup(c->exp, &c->cfh, name, &n);
	if (s == NFS4_OK)
		tnfs_ctx_set_cfh(c, &n, NULL);
	return landed(c, s);
}

uint32_t tnfs_op_lookupp(struct tnfs_ctx *c, const union nfs4_args *a,
			 union nfs4_res *r, struct xdr_out *x)
{
	(void)a, (void)r, (void)x;
	if (c->cpseudo != TNFS_NOT_PSEUDO)
		return landed(c, tnfs_pseudo_op_lookupp(c));
	struct stat st;
	if (c->srv->pseudo && tnfs_fs_stat(&c->cfh, &st) == NFS4_OK &&
	    tnfs_fs_is_root(c->exp, &st))
		return tnfs_pseudo_op_leave(c);
	struct tnfs_node n;
	uint32_t s = tnfs_fs_lookupp(c->exp, &c->cfh, &n);
	if (s == NFS4_OK)
		tnfs_ctx_set_cfh(c, &n, NULL);
	return landed(c, s);
}

/* Asks the kernel, as the caller (fsuid and groups are set), about the
 * O_PATH descriptor itself (AT_EMPTY_PATH, Linux 5.8): no path walk. */
static bool may(int fd, int mode)
{
	return syscall(SYS_faccessat2, fd, "", mode, AT_EACCESS | AT_EMPTY_PATH) == 0;
}

uint32_t tnfs_op_access(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	if (c->cpseudo != TNFS_NOT_PSEUDO)
		return tnfs_pseudo_op_access(c, a, r);
	struct stat st;
	uint32_t s = tnfs_ctx_cfh_stat(c, &st);
	if (s != NFS4_OK)
		return s;
	uint32_t want = a->access.access;
	uint32_t meaningful = S_ISDIR(st.st_mode) ?
		ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_DELETE :
		ACCESS4_READ | ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_EXECUTE;
	uint32_t supp = want & meaningful, got = 0;
	bool lnk = S_ISLNK(st.st_mode);
	if ((supp & ACCESS4_READ) && (lnk || may(c->cfh.fd, R_OK)))
		got |= ACCESS4_READ;
	if ((supp & (ACCESS4_LOOKUP | ACCESS4_EXECUTE)) && !lnk && may(c->cfh.fd, X_OK))
		got |= supp & (ACCESS4_LOOKUP | ACCESS4_EXECUTE);
	if ((supp & (ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_DELETE)) && !lnk &&
	    !tnfs_ctx_readonly(c) && may(c->cfh.fd, W_OK))
		got |= supp & (ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_DELETE);
	r->access.supported = supp;
	r->access.access = got;
	return NFS4_OK;
}

/* The fattr4 of the current file handle for `mask`, as GETATTR encodes it. */
/* stat: the file's attributes (stat'ed by the caller), or NULL. */
static uint32_t cfh_attrs(struct tnfs_ctx *c, const struct nfs4_bitmap *mask, struct xdr_out *x,
			  const struct stat *stat)
{
	if (c->cpseudo != TNFS_NOT_PSEUDO) {
		union nfs4_args ga;
		memset(&ga, 0, sizeof(ga));
		ga.getattr.mask = *mask;
		return tnfs_pseudo_op_getattr(c, &ga, x);
	}
	struct stat st;
	uint32_t s = NFS4_OK;
	if (stat)
		st = *stat;
	else
		s = tnfs_ctx_cfh_stat(c, &st);
	if (s != NFS4_OK)
		return s;
	struct tnfs_attr_src src = {
		.exp = c->exp, .minor = c->minor, .st = &st, .fd = c->cfh.fd,
		.dirfd = -1, .maxread = c->srv->maxread, .maxwrite = c->srv->maxwrite,
		.mounted_on = c->srv->pseudo && tnfs_fs_is_root(c->exp, &st) ?
			      tnfs_pseudo_mounted_on(c, c->exp) : 0,
	};
	return tnfs_attrs_encode(x, mask, &src);
}

uint32_t tnfs_op_getattr(struct tnfs_ctx *c, const union nfs4_args *a,
			 union nfs4_res *r, struct xdr_out *x)
{
	(void)r;
	struct stat st;
	bool set;
	uint32_t s = tnfs_deleg_getattr_conflict(c, &a->getattr.mask, &st, &set);
	return s == NFS4_OK ? cfh_attrs(c, &a->getattr.mask, x, set ? &st : NULL) : s;
}

/*
 * VERIFY and NVERIFY (RFC 8881 18.31, 18.15), as Linux nfsd does them: an
 * attribute the server does not support is NFS4ERR_ATTRNOTSUPP; then
 * rdattr_error or a write-only attribute is NFS4ERR_INVAL; otherwise the
 * file's attributes for the client's mask, encoded by GETATTR's encoder,
 * are compared byte for byte with the client's fattr4: NFS4ERR_SAME or
 * NFS4ERR_NOT_SAME.  An attribute GETATTR cannot produce for this file
 * (it leaves it out of its bitmap) or values of another length are not
 * the same.  The size and change attribute (and delegated times) of a
 * file another client holds a write delegation of are the holder's, as
 * GETATTR gives them (CB_GETATTR, RFC 8881 10.4.3): NFS4ERR_DELAY until
 * it answered.
 */
static uint32_t attrs_compare(struct tnfs_ctx *c, const struct nfs4_fattr_in *in)
{
	struct nfs4_bitmap supp;
	tnfs_attrs_supported(c->exp, c->minor, &supp);
	if (in->mask.extra)
		return NFS4ERR_ATTRNOTSUPP;
	for (int i = 0; i < FATTR4_WORDS; i++)
		if (in->mask.w[i] & ~supp.w[i])
			return NFS4ERR_ATTRNOTSUPP;
	if (nfs4_bm_isset(&in->mask, FATTR4_RDATTR_ERROR) ||
	    nfs4_bm_isset(&in->mask, FATTR4_TIME_ACCESS_SET) ||
	    nfs4_bm_isset(&in->mask, FATTR4_TIME_MODIFY_SET))
		return NFS4ERR_INVAL;
	/* room for the same bitmap and as many value bytes, one word more:
	 * a longer encoding runs out of it (NFS4ERR_RESOURCE), not the same */
	size_t cap = 4 + 4 * FATTR4_WORDS + 4 + (size_t)in->vals.len + 4;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return NFS4ERR_DELAY;
	struct xdr_out w;
	xdr_out_init(&w, buf, cap);
	struct stat st;
	bool set;
	uint32_t s = tnfs_deleg_getattr_conflict(c, &in->mask, &st, &set);
	if (s == NFS4_OK)
		s = cfh_attrs(c, &in->mask, &w, set ? &st : NULL);
	if (s == NFS4ERR_RESOURCE || (s == NFS4_OK && w.bad)) {
		s = NFS4ERR_NOT_SAME;
	} else if (s == NFS4_OK) {
		struct xdr_in r;
		struct nfs4_bitmap got;
		xdr_in_init(&r, buf, (size_t)(w.p - buf));
		nfs4_dec_bitmap(&r, &got);
		struct xdr_opaque vals = xdr_get_opaque(&r, UINT32_MAX);
		bool same = !r.bad && memcmp(got.w, in->mask.w, sizeof(got.w)) == 0 &&
			    vals.len == in->vals.len &&
			    (vals.len == 0 || memcmp(vals.data, in->vals.data, vals.len) == 0);
		s = same ? NFS4ERR_SAME : NFS4ERR_NOT_SAME;
	}
	free(buf);
	return s;
}

uint32_t tnfs_op_verify(struct tnfs_ctx *c, const union nfs4_args *a,
			union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	uint32_t s = attrs_compare(c, &a->verify.attrs);
	return s == NFS4ERR_SAME ? NFS4_OK : s;
}

uint32_t tnfs_op_nverify(struct tnfs_ctx *c, const union nfs4_args *a,
			 union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	uint32_t s = attrs_compare(c, &a->verify.attrs);
	return s == NFS4ERR_NOT_SAME ? NFS4_OK : s;
}

uint32_t tnfs_op_readlink(struct tnfs_ctx *c, const union nfs4_args *a,
			  union nfs4_res *r, struct xdr_out *x)
{
	(void)a, (void)r;
	char buf[NFS4_MAXPATHLEN + 1];
	size_t len;
	uint32_t s = tnfs_fs_readlink(&c->cfh, buf, sizeof(buf), &len);
	if (s == NFS4_OK)
		xdr_put_opaque(x, buf, (uint32_t)len);
	return s;
}

/* The flavours of the current file handle's export, in its sec= order
 * (RFC 8881 18.29.2: secinfo4; RPCSEC_GSS with the Kerberos V5 OID
 * 1.2.840.113554.1.2.2, QOP 0 and the service); AUTH_SYS for a pseudo
 * node or an export without sec=.  2.6.3.1.1.8: SECINFO and
 * SECINFO_NO_NAME consume the current fh. */
static uint32_t secinfo_reply(struct tnfs_ctx *c, struct xdr_out *x)
{
	static const uint8_t krb5_oid[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02 };
	static const uint8_t sys[] = { TNFS_SEC_SYS };
	bool pseudo = c->cpseudo != TNFS_NOT_PSEUDO || c->exp->nsec == 0;
	const uint8_t *sec = pseudo ? sys : c->exp->sec;
	uint32_t n = pseudo ? 1 : c->exp->nsec;
	xdr_put_u32(x, n);
	for (uint32_t i = 0; i < n; i++) {
		if (sec[i] < TNFS_SEC_KRB5) {
			xdr_put_u32(x, sec[i] == TNFS_SEC_SYS ? AUTH_SYS : AUTH_NONE);
			continue;
		}
		xdr_put_u32(x, RPCSEC_GSS);
		xdr_put_opaque(x, krb5_oid, sizeof(krb5_oid));
		xdr_put_u32(x, 0); /* QOP */
		xdr_put_u32(x, sec[i] - TNFS_SEC_KRB5 + TNFS_GSS_SVC_NONE);
	}
	tnfs_node_put(&c->cfh);
	c->cfh_fh.len = 0;
	c->cpseudo = TNFS_NOT_PSEUDO;
	tnfs_ctx_clear_stateid(c);
	return NFS4_OK;
}

uint32_t tnfs_op_secinfo_no_name(struct tnfs_ctx *c, const union nfs4_args *a,
				 union nfs4_res *r, struct xdr_out *x)
{
	(void)r;
	if (a->secinfo_no_name.style > SECINFO_STYLE4_PARENT)
		return NFS4ERR_INVAL;
	bool parent = a->secinfo_no_name.style == SECINFO_STYLE4_PARENT;
	if (c->cpseudo != TNFS_NOT_PSEUDO) {
		if (parent && c->cpseudo == 0)
			return NFS4ERR_NOENT;
	} else {
		struct stat st;
		uint32_t s = tnfs_fs_stat(&c->cfh, &st);
		if (s != NFS4_OK)
			return s;
		if (parent) {
			if (!S_ISDIR(st.st_mode))
				return NFS4ERR_NOTDIR;
			/* an export's root has a parent in the pseudo tree */
			if (tnfs_fs_is_root(c->exp, &st) && !c->srv->pseudo)
				return NFS4ERR_NOENT;
		}
	}
	return secinfo_reply(c, x);
}

/* SECINFO: the flavours of the object named in the current directory,
 * which must exist; its name is checked like LOOKUP's. */
uint32_t tnfs_op_secinfo(struct tnfs_ctx *c, const union nfs4_args *a,
			 union nfs4_res *r, struct xdr_out *x)
{
	(void)r;
	const struct xdr_opaque *nm = &a->name.name;
	if (c->cpseudo != TNFS_NOT_PSEUDO) {
		/* moves the current fh, which the reply consumes anyway */
		uint32_t s = tnfs_pseudo_op_lookup(c, nm->data, nm->len);
		return s == NFS4_OK ? secinfo_reply(c, x) : s;
	}
	char name[256];
	uint32_t s = tnfs_fs_check_name(nm->data, nm->len, name);
	struct tnfs_node n;
	if (s == NFS4_OK)
		s = tnfs_fs_lookup(c->exp, &c->cfh, name, &n);
	if (s != NFS4_OK)
		return s;
	tnfs_node_put(&n);
	return secinfo_reply(c, x);
}
