/* SPDX-License-Identifier: BSD-2-Clause */
/* XDR of COMPOUND and of each implemented operation; see nfs4_xdr.h. */
#include "nfs4_xdr.h"

#define TAG_MAX 1024
#define BITMAP_WORDS_MAX 8

bool nfs4_dec_compound_hdr(struct xdr_in *x, struct xdr_opaque *tag,
			   uint32_t *minor, uint32_t *numops)
{
	*tag = xdr_get_opaque(x, TAG_MAX);
	*minor = xdr_get_u32(x);
	*numops = xdr_get_u32(x);
	return !x->bad;
}

void nfs4_enc_compound_hdr(struct xdr_out *x, const struct xdr_opaque *tag,
			   uint8_t **status_at, uint8_t **count_at)
{
	*status_at = xdr_reserve(x, 4);
	xdr_put_opaque(x, tag->data, tag->len);
	*count_at = xdr_reserve(x, 4);
}

void nfs4_patch_u32(uint8_t *at, uint32_t v)
{
	if (at)
		xdr_wr32(at, v);
}

void nfs4_dec_stateid(struct xdr_in *x, struct nfs4_stateid *s)
{
	s->seqid = xdr_get_u32(x);
	xdr_get_fixed(x, s->other, NFS4_OTHER_SIZE);
}

void nfs4_enc_stateid(struct xdr_out *x, const struct nfs4_stateid *s)
{
	xdr_put_u32(x, s->seqid);
	xdr_put_fixed(x, s->other, NFS4_OTHER_SIZE);
}

void nfs4_dec_bitmap(struct xdr_in *x, struct nfs4_bitmap *b)
{
	memset(b, 0, sizeof(*b));
	uint32_t n = xdr_get_count(x, BITMAP_WORDS_MAX, 4);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = xdr_get_u32(x);
		if (i < FATTR4_WORDS)
			b->w[i] = w;
		else if (w)
			b->extra = true;
	}
}

static uint32_t bitmap_words(const struct nfs4_bitmap *b)
{
	uint32_t n = FATTR4_WORDS;
	while (n > 0 && b->w[n - 1] == 0)
		n--;
	return n;
}

void nfs4_enc_bitmap(struct xdr_out *x, const struct nfs4_bitmap *b)
{
	uint32_t n = bitmap_words(b);
	xdr_put_u32(x, n);
	for (uint32_t i = 0; i < n; i++)
		xdr_put_u32(x, b->w[i]);
}

size_t nfs4_bitmap_xdr_size(const struct nfs4_bitmap *b)
{
	return 4 + 4 * (size_t)bitmap_words(b);
}

void nfs4_enc_change_info(struct xdr_out *x, const struct nfs4_change_info *c)
{
	xdr_put_bool(x, c->atomic);
	xdr_put_u64(x, c->before);
	xdr_put_u64(x, c->after);
}

static void dec_fattr(struct xdr_in *x, struct nfs4_fattr_in *f)
{
	nfs4_dec_bitmap(x, &f->mask);
	f->vals = xdr_get_opaque(x, UINT32_MAX);
}

/* component4 has no bound in the protocol: a name longer than
 * NFS4_MAXNAMLEN decodes, and the operation answers NFS4ERR_NAMETOOLONG
 * (tnfs_fs_check_name()).  The bound here only keeps the length word far
 * from 2^32; no call the library takes is longer. */
#define COMPONENT_WIRE_MAX (1u << 24)

static struct xdr_opaque dec_component(struct xdr_in *x)
{
	return xdr_get_opaque(x, COMPONENT_WIRE_MAX);
}

static void dec_owner(struct xdr_in *x, struct nfs4_owner *o)
{
	o->clientid = xdr_get_u64(x);
	o->owner = xdr_get_opaque(x, NFS4_OPAQUE_LIMIT);
}

/* --- decoders ---------------------------------------------------------- */

static void dec_access(struct xdr_in *x, union nfs4_args *a)
{
	a->access.access = xdr_get_u32(x);
}

static void dec_close(struct xdr_in *x, union nfs4_args *a)
{
	a->close.seqid = xdr_get_u32(x);
	nfs4_dec_stateid(x, &a->close.stateid);
}

static void dec_commit(struct xdr_in *x, union nfs4_args *a)
{
	a->commit.offset = xdr_get_u64(x);
	a->commit.count = xdr_get_u32(x);
}

static void dec_create(struct xdr_in *x, union nfs4_args *a)
{
	a->create.type = xdr_get_u32(x);
	switch (a->create.type) {
	case NF4LNK:
		a->create.linkdata = xdr_get_opaque(x, NFS4_MAXPATHLEN);
		break;
	case NF4BLK:
	case NF4CHR:
		a->create.spec1 = xdr_get_u32(x);
		a->create.spec2 = xdr_get_u32(x);
		break;
	default: /* NF4SOCK, NF4FIFO, NF4DIR and the rest carry nothing */
		break;
	}
	a->create.name = dec_component(x);
	dec_fattr(x, &a->create.attrs);
}

static void dec_getattr(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_bitmap(x, &a->getattr.mask);
}

static void dec_name(struct xdr_in *x, union nfs4_args *a)
{
	a->name.name = dec_component(x);
}

static void dec_lock(struct xdr_in *x, union nfs4_args *a)
{
	a->lock.type = xdr_get_u32(x);
	a->lock.reclaim = xdr_get_bool(x);
	a->lock.offset = xdr_get_u64(x);
	a->lock.length = xdr_get_u64(x);
	a->lock.new_owner = xdr_get_bool(x);
	if (a->lock.new_owner) {
		a->lock.open_seqid = xdr_get_u32(x);
		nfs4_dec_stateid(x, &a->lock.stateid);
		a->lock.lock_seqid = xdr_get_u32(x);
		dec_owner(x, &a->lock.owner);
	} else {
		nfs4_dec_stateid(x, &a->lock.stateid);
		a->lock.lock_seqid = xdr_get_u32(x);
	}
}

static void dec_lockt(struct xdr_in *x, union nfs4_args *a)
{
	a->lockt.type = xdr_get_u32(x);
	a->lockt.offset = xdr_get_u64(x);
	a->lockt.length = xdr_get_u64(x);
	dec_owner(x, &a->lockt.owner);
}

static void dec_locku(struct xdr_in *x, union nfs4_args *a)
{
	a->locku.type = xdr_get_u32(x);
	a->locku.seqid = xdr_get_u32(x);
	nfs4_dec_stateid(x, &a->locku.stateid);
	a->locku.offset = xdr_get_u64(x);
	a->locku.length = xdr_get_u64(x);
}

static void dec_open(struct xdr_in *x, union nfs4_args *a)
{
	a->open.seqid = xdr_get_u32(x);
	a->open.share_access = xdr_get_u32(x);
	a->open.share_deny = xdr_get_u32(x);
	dec_owner(x, &a->open.owner);
	a->open.opentype = xdr_get_u32(x);
	if (a->open.opentype == OPEN4_CREATE) {
		a->open.createmode = xdr_get_u32(x);
		switch (a->open.createmode) {
		case UNCHECKED4:
		case GUARDED4:
			dec_fattr(x, &a->open.attrs);
			break;
		case EXCLUSIVE4:
			xdr_get_fixed(x, a->open.verf, NFS4_VERIFIER_SIZE);
			break;
		case EXCLUSIVE4_1:
			xdr_get_fixed(x, a->open.verf, NFS4_VERIFIER_SIZE);
			dec_fattr(x, &a->open.attrs);
			break;
		default:
			xdr_fail(x);
		}
	} else if (a->open.opentype != OPEN4_NOCREATE) {
		xdr_fail(x);
	}
	a->open.claim = xdr_get_u32(x);
	switch (a->open.claim) {
	case CLAIM_NULL:
	case CLAIM_DELEGATE_PREV:
		a->open.name = dec_component(x);
		break;
	case CLAIM_PREVIOUS:
		a->open.deleg_type = xdr_get_u32(x);
		break;
	case CLAIM_DELEGATE_CUR:
		nfs4_dec_stateid(x, &a->open.deleg_stateid);
		a->open.name = dec_component(x);
		break;
	case CLAIM_FH:
	case CLAIM_DELEG_PREV_FH:
		break;
	case CLAIM_DELEG_CUR_FH:
		nfs4_dec_stateid(x, &a->open.deleg_stateid);
		break;
	default:
		xdr_fail(x);
	}
}

static void dec_open_downgrade(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->open_downgrade.stateid);
	a->open_downgrade.seqid = xdr_get_u32(x);
	a->open_downgrade.share_access = xdr_get_u32(x);
	a->open_downgrade.share_deny = xdr_get_u32(x);
}

static void dec_putfh(struct xdr_in *x, union nfs4_args *a)
{
	a->putfh.fh = xdr_get_opaque(x, NFS4_FHSIZE);
}

static void dec_read(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->read.stateid);
	a->read.offset = xdr_get_u64(x);
	a->read.count = xdr_get_u32(x);
}

static void dec_readdir(struct xdr_in *x, union nfs4_args *a)
{
	a->readdir.cookie = xdr_get_u64(x);
	xdr_get_fixed(x, a->readdir.verf, NFS4_VERIFIER_SIZE);
	a->readdir.dircount = xdr_get_u32(x);
	a->readdir.maxcount = xdr_get_u32(x);
	nfs4_dec_bitmap(x, &a->readdir.mask);
}

static void dec_rename(struct xdr_in *x, union nfs4_args *a)
{
	a->rename.oldname = dec_component(x);
	a->rename.newname = dec_component(x);
}

static void dec_setattr(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->setattr.stateid);
	dec_fattr(x, &a->setattr.attrs);
}

static void dec_write(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->write.stateid);
	a->write.offset = xdr_get_u64(x);
	a->write.stable = xdr_get_u32(x);
	a->write.data = xdr_get_opaque(x, UINT32_MAX);
}

static void dec_bind_conn(struct xdr_in *x, union nfs4_args *a)
{
	xdr_get_fixed(x, a->bind_conn.sessionid, NFS4_SESSIONID_SIZE);
	a->bind_conn.dir = xdr_get_u32(x);
	a->bind_conn.rdma_mode = xdr_get_bool(x);
}

static void skip_impl_id(struct xdr_in *x)
{
	uint32_t n = xdr_get_count(x, 1, 20);
	if (n) {
		(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT); /* nii_domain */
		(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT); /* nii_name */
		(void)xdr_get_u64(x);			    /* nii_date.seconds */
		(void)xdr_get_u32(x);			    /* nii_date.nseconds */
	}
}

static void skip_sp_ops(struct xdr_in *x)
{
	struct nfs4_bitmap b;
	nfs4_dec_bitmap(x, &b); /* spo_must_enforce */
	nfs4_dec_bitmap(x, &b); /* spo_must_allow */
}

static void skip_oids(struct xdr_in *x)
{
	uint32_t n = xdr_get_count(x, 64, 4);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT);
}

static void dec_exchange_id(struct xdr_in *x, union nfs4_args *a)
{
	xdr_get_fixed(x, a->exchange_id.verf, NFS4_VERIFIER_SIZE);
	a->exchange_id.ownerid = xdr_get_opaque(x, NFS4_OPAQUE_LIMIT);
	a->exchange_id.flags = xdr_get_u32(x);
	a->exchange_id.sp_how = xdr_get_u32(x);
	switch (a->exchange_id.sp_how) {
	case SP4_NONE:
		break;
	case SP4_MACH_CRED:
		nfs4_dec_bitmap(x, &a->exchange_id.must_enforce);
		nfs4_dec_bitmap(x, &a->exchange_id.must_allow);
		break;
	case SP4_SSV:
		skip_sp_ops(x);
		skip_oids(x); /* ssp_hash_algs */
		skip_oids(x); /* ssp_encr_algs */
		(void)xdr_get_u32(x); /* ssp_window */
		(void)xdr_get_u32(x); /* ssp_num_gss_handles */
		break;
	default:
		xdr_fail(x);
	}
	skip_impl_id(x);
}

static void dec_channel_attrs(struct xdr_in *x, struct nfs4_channel_attrs *c)
{
	c->headerpadsize = xdr_get_u32(x);
	c->maxreq = xdr_get_u32(x);
	c->maxresp = xdr_get_u32(x);
	c->maxresp_cached = xdr_get_u32(x);
	c->maxops = xdr_get_u32(x);
	c->maxreqs = xdr_get_u32(x);
	c->nird = xdr_get_count(x, 1, 4);
	c->ird = c->nird ? xdr_get_u32(x) : 0;
}

/* callback_sec_parms4<>: keeps the first AUTH_NONE or AUTH_SYS one. */
static void dec_cb_sec(struct xdr_in *x, struct nfs4_cb_sec *sec)
{
	memset(sec, 0, sizeof(*sec));
	sec->flavor = UINT32_MAX;
	uint32_t n = xdr_get_count(x, 16, 4);
	for (uint32_t i = 0; i < n && !x->bad; i++) {
		struct nfs4_cb_sec one = { .flavor = xdr_get_u32(x) };
		switch (one.flavor) {
		case AUTH_NONE:
			break;
		case AUTH_SYS:
			one.stamp = xdr_get_u32(x);
			one.machine = xdr_get_opaque(x, 255);
			one.uid = xdr_get_u32(x);
			one.gid = xdr_get_u32(x);
			one.ngids = xdr_get_count(x, 16, 4);
			for (uint32_t g = 0; g < one.ngids && !x->bad; g++)
				one.gids[g] = xdr_get_u32(x);
			break;
		case RPCSEC_GSS:
			(void)xdr_get_u32(x); /* gcbp_service */
			(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT);
			(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT);
			continue;
		default:
			xdr_fail(x);
			continue;
		}
		if (sec->flavor == UINT32_MAX && !x->bad)
			*sec = one;
	}
}

static void dec_backchannel_ctl(struct xdr_in *x, union nfs4_args *a)
{
	a->backchannel_ctl.cb_program = xdr_get_u32(x);
	dec_cb_sec(x, &a->backchannel_ctl.sec);
}

static void dec_create_session(struct xdr_in *x, union nfs4_args *a)
{
	a->create_session.clientid = xdr_get_u64(x);
	a->create_session.seqid = xdr_get_u32(x);
	a->create_session.flags = xdr_get_u32(x);
	dec_channel_attrs(x, &a->create_session.fore);
	dec_channel_attrs(x, &a->create_session.back);
	a->create_session.cb_program = xdr_get_u32(x);
	dec_cb_sec(x, &a->create_session.sec);
}

static void dec_destroy_session(struct xdr_in *x, union nfs4_args *a)
{
	xdr_get_fixed(x, a->destroy_session.sessionid, NFS4_SESSIONID_SIZE);
}

static void dec_free_stateid(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->free_stateid.stateid);
}

static void dec_secinfo_no_name(struct xdr_in *x, union nfs4_args *a)
{
	a->secinfo_no_name.style = xdr_get_u32(x);
}

static void dec_sequence(struct xdr_in *x, union nfs4_args *a)
{
	xdr_get_fixed(x, a->sequence.sessionid, NFS4_SESSIONID_SIZE);
	a->sequence.seqid = xdr_get_u32(x);
	a->sequence.slotid = xdr_get_u32(x);
	a->sequence.highest_slotid = xdr_get_u32(x);
	a->sequence.cachethis = xdr_get_bool(x);
}

static void dec_test_stateid(struct xdr_in *x, union nfs4_args *a)
{
	a->test_stateid.n = xdr_get_count(x, 1024, 16);
	a->test_stateid.ids = xdr_get_fixed_ref(x, (size_t)a->test_stateid.n * 16);
}

static void dec_destroy_clientid(struct xdr_in *x, union nfs4_args *a)
{
	a->destroy_clientid.clientid = xdr_get_u64(x);
}

static void dec_reclaim_complete(struct xdr_in *x, union nfs4_args *a)
{
	a->reclaim_complete.one_fs = xdr_get_bool(x);
}

static void dec_seek(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->seek.stateid);
	a->seek.offset = xdr_get_u64(x);
	a->seek.what = xdr_get_u32(x);
}

static void dec_verify(struct xdr_in *x, union nfs4_args *a)
{
	dec_fattr(x, &a->verify.attrs);
}

static void dec_allocate(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->allocate.stateid);
	a->allocate.offset = xdr_get_u64(x);
	a->allocate.length = xdr_get_u64(x);
}

/* netloc4 (RFC 7862 section 3.3): its contents are not used. */
enum { NL4_NAME = 1, NL4_URL = 2, NL4_NETADDR = 3 };
#define NETLOC_MAX 16

static void skip_netloc(struct xdr_in *x)
{
	switch (xdr_get_u32(x)) {
	case NL4_NAME:
	case NL4_URL:
		(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT);
		break;
	case NL4_NETADDR:
		(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT); /* na_r_netid */
		(void)xdr_get_opaque(x, NFS4_OPAQUE_LIMIT); /* na_r_addr */
		break;
	default:
		xdr_fail(x);
	}
}

static void dec_copy_common(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->copy.src);
	nfs4_dec_stateid(x, &a->copy.dst);
	a->copy.src_offset = xdr_get_u64(x);
	a->copy.dst_offset = xdr_get_u64(x);
	a->copy.count = xdr_get_u64(x);
}

static void dec_copy(struct xdr_in *x, union nfs4_args *a)
{
	dec_copy_common(x, a);
	a->copy.consecutive = xdr_get_bool(x);
	a->copy.synchronous = xdr_get_bool(x);
	a->copy.nsource = xdr_get_count(x, NETLOC_MAX, 8);
	for (uint32_t i = 0; i < a->copy.nsource && !x->bad; i++)
		skip_netloc(x);
}

static void dec_copy_notify(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->offload.stateid);
	skip_netloc(x);
}

static void dec_offload(struct xdr_in *x, union nfs4_args *a)
{
	nfs4_dec_stateid(x, &a->offload.stateid);
}

/* --- encoders ---------------------------------------------------------- */

static void enc_access(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK) {
		xdr_put_u32(x, r->access.supported);
		xdr_put_u32(x, r->access.access);
	}
}

static void enc_stateid(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK)
		nfs4_enc_stateid(x, &r->stateid);
}

static void enc_commit(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK)
		xdr_put_fixed(x, r->commit.verf, NFS4_VERIFIER_SIZE);
}

static void enc_create(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK) {
		nfs4_enc_change_info(x, &r->create.cinfo);
		nfs4_enc_bitmap(x, &r->create.attrset);
	}
}

static void enc_cinfo(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK)
		nfs4_enc_change_info(x, &r->cinfo);
}

static void enc_rename(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK) {
		nfs4_enc_change_info(x, &r->rename.src);
		nfs4_enc_change_info(x, &r->rename.dst);
	}
}

static void enc_denied(struct xdr_out *x, const struct nfs4_lock_denied *d)
{
	xdr_put_u64(x, d->offset);
	xdr_put_u64(x, d->length);
	xdr_put_u32(x, d->type);
	xdr_put_u64(x, d->clientid);
	xdr_put_opaque(x, d->owner, d->owner_len);
}

static void enc_lock(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK)
		nfs4_enc_stateid(x, &r->lock.stateid);
	else if (st == NFS4ERR_DENIED)
		enc_denied(x, &r->lock.denied);
}

static void enc_lockt(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4ERR_DENIED)
		enc_denied(x, &r->lock.denied);
}

static void enc_open(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st != NFS4_OK)
		return;
	nfs4_enc_stateid(x, &r->open.stateid);
	nfs4_enc_change_info(x, &r->open.cinfo);
	xdr_put_u32(x, r->open.rflags);
	nfs4_enc_bitmap(x, &r->open.attrset);
	nfs4_enc_open_deleg(x, r);
}

static void enc_setattr(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	(void)st; /* attrsset is present whatever the status */
	nfs4_enc_bitmap(x, &r->setattr.attrset);
}

static void enc_write(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK) {
		xdr_put_u32(x, r->write.count);
		xdr_put_u32(x, r->write.committed);
		xdr_put_fixed(x, r->write.verf, NFS4_VERIFIER_SIZE);
	}
}

static void enc_bind_conn(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK) {
		xdr_put_fixed(x, r->bind_conn.sessionid, NFS4_SESSIONID_SIZE);
		xdr_put_u32(x, r->bind_conn.dir);
		xdr_put_bool(x, r->bind_conn.rdma_mode);
	}
}

static void enc_exchange_id(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st != NFS4_OK)
		return;
	xdr_put_u64(x, r->exchange_id.clientid);
	xdr_put_u32(x, r->exchange_id.seqid);
	xdr_put_u32(x, r->exchange_id.flags);
	xdr_put_u32(x, r->exchange_id.sp_how);
	if (r->exchange_id.sp_how == SP4_MACH_CRED) {
		nfs4_enc_bitmap(x, &r->exchange_id.must_enforce);
		nfs4_enc_bitmap(x, &r->exchange_id.must_allow);
	}
	xdr_put_u64(x, r->exchange_id.minor_id);
	xdr_put_opaque(x, r->exchange_id.major_id.data, r->exchange_id.major_id.len);
	xdr_put_opaque(x, r->exchange_id.scope.data, r->exchange_id.scope.len);
	xdr_put_u32(x, 1); /* one nfs_impl_id4 */
	xdr_put_opaque(x, r->exchange_id.impl_domain.data, r->exchange_id.impl_domain.len);
	xdr_put_opaque(x, r->exchange_id.impl_name.data, r->exchange_id.impl_name.len);
	xdr_put_u64(x, (uint64_t)r->exchange_id.impl_sec);
	xdr_put_u32(x, r->exchange_id.impl_nsec);
}

static void enc_channel_attrs(struct xdr_out *x, const struct nfs4_channel_attrs *c)
{
	xdr_put_u32(x, c->headerpadsize);
	xdr_put_u32(x, c->maxreq);
	xdr_put_u32(x, c->maxresp);
	xdr_put_u32(x, c->maxresp_cached);
	xdr_put_u32(x, c->maxops);
	xdr_put_u32(x, c->maxreqs);
	xdr_put_u32(x, c->nird);
	if (c->nird)
		xdr_put_u32(x, c->ird);
}

static void enc_create_session(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st != NFS4_OK)
		return;
	xdr_put_fixed(x, r->create_session.sessionid, NFS4_SESSIONID_SIZE);
	xdr_put_u32(x, r->create_session.seqid);
	xdr_put_u32(x, r->create_session.flags);
	enc_channel_attrs(x, &r->create_session.fore);
	enc_channel_attrs(x, &r->create_session.back);
}

static void enc_sequence(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st != NFS4_OK)
		return;
	xdr_put_fixed(x, r->sequence.sessionid, NFS4_SESSIONID_SIZE);
	xdr_put_u32(x, r->sequence.seqid);
	xdr_put_u32(x, r->sequence.slotid);
	xdr_put_u32(x, r->sequence.highest_slotid);
	xdr_put_u32(x, r->sequence.target_highest_slotid);
	xdr_put_u32(x, r->sequence.status_flags);
}

static void enc_seek(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK) {
		xdr_put_bool(x, r->seek.eof);
		xdr_put_u64(x, r->seek.offset);
	}
}

static void enc_copy(struct xdr_out *x, uint32_t st, const union nfs4_res *r)
{
	if (st == NFS4_OK) {
		xdr_put_u32(x, 0); /* wr_callback_id<1>: none, the copy is done */
		xdr_put_u64(x, r->copy.count);
		xdr_put_u32(x, r->copy.committed);
		xdr_put_fixed(x, r->copy.verf, NFS4_VERIFIER_SIZE);
	}
	if (st == NFS4_OK || st == NFS4ERR_OFFLOAD_NO_REQS) {
		xdr_put_bool(x, r->copy.consecutive);
		xdr_put_bool(x, r->copy.synchronous);
	}
}

/* Operations without arguments or result body have an all-NULL entry but
 * must still be listed as decodable: `none` marks them. */
static const struct nfs4_codec none = { NULL, NULL };

static const struct nfs4_codec codecs[] = {
	[OP_ACCESS] = { dec_access, enc_access },
	[OP_CLOSE] = { dec_close, enc_stateid },
	[OP_COMMIT] = { dec_commit, enc_commit },
	[OP_CREATE] = { dec_create, enc_create },
	[OP_GETATTR] = { dec_getattr, NULL },
	[OP_GETFH] = { NULL, NULL },
	[OP_LINK] = { dec_name, enc_cinfo },
	[OP_LOCK] = { dec_lock, enc_lock },
	[OP_LOCKT] = { dec_lockt, enc_lockt },
	[OP_LOCKU] = { dec_locku, enc_stateid },
	[OP_LOOKUP] = { dec_name, NULL },
	[OP_LOOKUPP] = { NULL, NULL },
	[OP_OPEN] = { dec_open, enc_open },
	[OP_OPEN_DOWNGRADE] = { dec_open_downgrade, enc_stateid },
	[OP_PUTFH] = { dec_putfh, NULL },
	[OP_PUTPUBFH] = { NULL, NULL },
	[OP_PUTROOTFH] = { NULL, NULL },
	[OP_READ] = { dec_read, NULL },
	[OP_READDIR] = { dec_readdir, NULL },
	[OP_READLINK] = { NULL, NULL },
	[OP_REMOVE] = { dec_name, enc_cinfo },
	[OP_RENAME] = { dec_rename, enc_rename },
	[OP_RESTOREFH] = { NULL, NULL },
	[OP_SAVEFH] = { NULL, NULL },
	[OP_SECINFO] = { dec_name, NULL },
	[OP_SETATTR] = { dec_setattr, enc_setattr },
	[OP_WRITE] = { dec_write, enc_write },
	[OP_DELEGRETURN] = { dec_free_stateid, NULL },
	[OP_BACKCHANNEL_CTL] = { dec_backchannel_ctl, NULL },
	[OP_BIND_CONN_TO_SESSION] = { dec_bind_conn, enc_bind_conn },
	[OP_EXCHANGE_ID] = { dec_exchange_id, enc_exchange_id },
	[OP_CREATE_SESSION] = { dec_create_session, enc_create_session },
	[OP_DESTROY_SESSION] = { dec_destroy_session, NULL },
	[OP_FREE_STATEID] = { dec_free_stateid, NULL },
	[OP_SECINFO_NO_NAME] = { dec_secinfo_no_name, NULL },
	[OP_SEQUENCE] = { dec_sequence, enc_sequence },
	[OP_TEST_STATEID] = { dec_test_stateid, NULL },
	[OP_DESTROY_CLIENTID] = { dec_destroy_clientid, NULL },
	[OP_RECLAIM_COMPLETE] = { dec_reclaim_complete, NULL },
	[OP_SEEK] = { dec_seek, enc_seek },
	[OP_VERIFY] = { dec_verify, NULL },
	[OP_NVERIFY] = { dec_verify, NULL },
	[OP_ALLOCATE] = { dec_allocate, NULL },
	[OP_DEALLOCATE] = { dec_allocate, NULL },
	[OP_COPY] = { dec_copy, enc_copy },
	[OP_CLONE] = { dec_copy_common, NULL },
	[OP_READ_PLUS] = { dec_read, NULL },
	[OP_COPY_NOTIFY] = { dec_copy_notify, NULL },
	[OP_OFFLOAD_CANCEL] = { dec_offload, NULL },
	[OP_OFFLOAD_STATUS] = { dec_offload, NULL },
};

/* Which slots of codecs[] are implemented (an all-NULL entry is valid). */
static const uint8_t implemented[] = {
	[OP_ACCESS] = 1, [OP_CLOSE] = 1, [OP_COMMIT] = 1, [OP_CREATE] = 1,
	[OP_GETATTR] = 1, [OP_GETFH] = 1, [OP_LINK] = 1, [OP_LOCK] = 1,
	[OP_LOCKT] = 1, [OP_LOCKU] = 1, [OP_LOOKUP] = 1, [OP_LOOKUPP] = 1,
	[OP_OPEN] = 1, [OP_OPEN_DOWNGRADE] = 1, [OP_PUTFH] = 1,
	[OP_PUTPUBFH] = 1, [OP_PUTROOTFH] = 1, [OP_READ] = 1, [OP_READDIR] = 1,
	[OP_READLINK] = 1, [OP_REMOVE] = 1, [OP_RENAME] = 1,
	[OP_RESTOREFH] = 1, [OP_SAVEFH] = 1, [OP_SECINFO] = 1, [OP_SETATTR] = 1,
	[OP_WRITE] = 1, [OP_DELEGRETURN] = 1, [OP_BACKCHANNEL_CTL] = 1,
	[OP_BIND_CONN_TO_SESSION] = 1, [OP_EXCHANGE_ID] = 1,
	[OP_CREATE_SESSION] = 1, [OP_DESTROY_SESSION] = 1,
	[OP_FREE_STATEID] = 1, [OP_SECINFO_NO_NAME] = 1, [OP_SEQUENCE] = 1,
	[OP_TEST_STATEID] = 1, [OP_DESTROY_CLIENTID] = 1,
	[OP_RECLAIM_COMPLETE] = 1, [OP_SEEK] = 1,
	[OP_VERIFY] = 1, [OP_NVERIFY] = 1, [OP_ALLOCATE] = 1, [OP_DEALLOCATE] = 1,
	[OP_COPY] = 1, [OP_CLONE] = 1, [OP_READ_PLUS] = 1, [OP_COPY_NOTIFY] = 1,
	[OP_OFFLOAD_CANCEL] = 1, [OP_OFFLOAD_STATUS] = 1,
};

const struct nfs4_codec *nfs4_codec(uint32_t op)
{
	if (op >= sizeof(implemented) || !implemented[op])
		return NULL;
	if (codecs[op].dec == NULL && codecs[op].enc == NULL)
		return &none;
	return &codecs[op];
}
