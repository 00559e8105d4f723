// SPDX-License-Identifier: BSD-2-Clause
/* p4_decode() on rpcrdma-xdrgen's generated decoder: see nfs4_gen.h. */
#include "nfs4_prot.h" /* first: nfs4_xdr.h then leaves out nfs4/nfs4.h */

#include "nfs4_gen.h"
#include "nfs4_xdr.h"

#include <errno.h>
#include <string.h>

#define TRY(x)                          \
	do {                            \
		int try_rc_ = (x);      \
		if (try_rc_ != 0)       \
			return try_rc_; \
	} while (0)

/* The hand-written decoder's bounds (nfs4_xdr.c). */
#define BITMAP_MAX 64u
#define ATTRLIST_MAX (1u << 20)

static int check_bitmap(const bitmap4 *b)
{
	return b->len <= BITMAP_MAX ? 0 : -EBADMSG;
}

static int check_opaque(const struct xdrgen_opaque *o, uint32_t max)
{
	return o->len <= max ? 0 : -EBADMSG;
}

static void put_stateid(struct p4_stateid *dst, const stateid4 *s)
{
	dst->seqid = s->seqid;
	memcpy(dst->other, s->other, sizeof(dst->other));
}

static void put_chan(struct p4_chan *ch, const channel_attrs4 *a)
{
	ch->headerpad = a->ca_headerpadsize;
	ch->maxreq = a->ca_maxrequestsize;
	ch->maxresp = a->ca_maxresponsesize;
	ch->maxresp_cached = a->ca_maxresponsesize_cached;
	ch->maxops = a->ca_maxoperations;
	ch->maxreqs = a->ca_maxrequests;
}

static int fill_exid(const EXCHANGE_ID4resok *ok, struct p4_res *r)
{
	const state_protect4_r *sp = &ok->eir_state_protect;

	if (sp->spr_how == SP4_MACH_CRED) {
		TRY(check_bitmap(&sp->u.spr_mach_ops.spo_must_enforce));
		TRY(check_bitmap(&sp->u.spr_mach_ops.spo_must_allow));
	}
	if (ok->eir_server_impl_id.len == 1) {
		const nfs_impl_id4 *id = &ok->eir_server_impl_id.val[0];

		TRY(check_opaque(&id->nii_domain, NFS4_OPAQUE_LIMIT));
		TRY(check_opaque(&id->nii_name, NFS4_OPAQUE_LIMIT));
	}
	r->clientid = ok->eir_clientid;
	r->exid_seqid = ok->eir_sequenceid;
	r->exid_flags = ok->eir_flags;
	return 0;
}

static int fill_deleg(const open_delegation4 *d, struct p4_res *r)
{
	const nfsace4 *ace;

	r->deleg_type = d->delegation_type;
	switch (d->delegation_type) {
	case OPEN_DELEGATE_READ:
		put_stateid(&r->deleg, &d->u.read.stateid);
		ace = &d->u.read.permissions;
		break;
	case OPEN_DELEGATE_WRITE:
		put_stateid(&r->deleg, &d->u.write.stateid);
		ace = &d->u.write.permissions;
		break;
	case OPEN_DELEGATE_NONE_EXT:
		r->deleg_type = OPEN_DELEGATE_NONE;
		return 0;
	default:
		return 0;
	}
	return check_opaque(&ace->who, NFS4_OPAQUE_LIMIT);
}

static int fill_open(const OPEN4resok *ok, struct p4_res *r)
{
	TRY(check_bitmap(&ok->attrset));
	put_stateid(&r->stateid, &ok->stateid);
	r->open_rflags = ok->rflags;
	return fill_deleg(&ok->delegation, r);
}

static int fill_read(const READ4resok *ok, struct p4_res *r)
{
	if (ok->data.len > r->read_max)
		return -EBADMSG;
	if (ok->data.len > 0 && ok->data.data != r->read_buf)
		memcpy(r->read_buf, ok->data.data, ok->data.len);
	r->read_eof = ok->eof;
	r->read_len = ok->data.len;
	return 0;
}

static int fill_readdir(const READDIR4resok *ok, struct p4_res *r)
{
	char name[P4_NAME_MAX + 1];

	memcpy(r->cookieverf, ok->cookieverf, sizeof(r->cookieverf));
	for (const entry4 *e = ok->reply.entries; e != NULL; e = e->nextentry) {
		if (e->name.len > P4_NAME_MAX || memchr(e->name.data, 0, e->name.len))
			return -EBADMSG;
		TRY(check_bitmap(&e->attrs.attrmask));
		TRY(check_opaque(&e->attrs.attr_vals, ATTRLIST_MAX));
		memcpy(name, e->name.data, e->name.len);
		name[e->name.len] = '\0';
		r->dir_entries++;
		r->dir_last_cookie = e->cookie;
		if (r->dirent)
			TRY(r->dirent(r->dirent_arg, name, e->cookie));
	}
	r->dir_eof = ok->reply.eof;
	return 0;
}

/* The result body of an operation whose status was NFS4_OK. */
static int fill_resok(const nfs_resop4 *o, struct p4_res *r)
{
	switch (o->resop) {
	case OP_SEQUENCE: {
		const SEQUENCE4resok *ok = &o->u.opsequence.u.sr_resok4;

		r->seq_highest = ok->sr_highest_slotid;
		r->seq_target = ok->sr_target_highest_slotid;
		r->seq_flags = ok->sr_status_flags;
		return 0;
	}
	case OP_EXCHANGE_ID:
		return fill_exid(&o->u.opexchange_id.u.eir_resok4, r);
	case OP_CREATE_SESSION: {
		const CREATE_SESSION4resok *ok = &o->u.opcreate_session.u.csr_resok4;

		memcpy(r->sessionid, ok->csr_sessionid, sizeof(r->sessionid));
		r->cs_seqid = ok->csr_sequence;
		r->cs_flags = ok->csr_flags;
		put_chan(&r->fore, &ok->csr_fore_chan_attrs);
		put_chan(&r->back, &ok->csr_back_chan_attrs);
		return 0;
	}
	case OP_DESTROY_SESSION: case OP_DESTROY_CLIENTID: case OP_RECLAIM_COMPLETE:
	case OP_PUTROOTFH: case OP_PUTFH: case OP_LOOKUP: case OP_DELEGRETURN:
	case OP_REMOVE:
		return 0;
	case OP_GETFH: {
		const nfs_fh4 *fh = &o->u.opgetfh.u.resok4.object;

		r->fh.len = fh->len;
		memcpy(r->fh.data, fh->data, fh->len);
		return 0;
	}
	case OP_CREATE:
		return check_bitmap(&o->u.opcreate.u.resok4.attrset);
	case OP_OPEN:
		return fill_open(&o->u.opopen.u.resok4, r);
	case OP_CLOSE:
		put_stateid(&r->stateid, &o->u.opclose.u.open_stateid);
		return 0;
	case OP_WRITE: {
		const WRITE4resok *ok = &o->u.opwrite.u.resok4;

		r->write_count = ok->count;
		r->write_committed = ok->committed;
		memcpy(r->write_verf, ok->writeverf, sizeof(r->write_verf));
		return 0;
	}
	case OP_COMMIT:
		memcpy(r->commit_verf, o->u.opcommit.u.resok4.writeverf, sizeof(r->commit_verf));
		return 0;
	case OP_READ:
		return fill_read(&o->u.opread.u.resok4, r);
	case OP_READDIR:
		return fill_readdir(&o->u.opreaddir.u.resok4, r);
	default: /* GETATTR, ILLEGAL: struct p4_res has no room for them */
		return -EBADMSG;
	}
}

/* Every result type of nfs4_prot.x starts with its nfsstat4. */
static uint32_t op_status(const nfs_resop4 *o)
{
	uint32_t st;

	memcpy(&st, &o->u, sizeof(st));
	return st;
}

/* Result i of n: < 0 refused, 1 the last (a failed operation), 0 go on. */
static int fill_one(const nfs_resop4 *o, uint32_t i, uint32_t n, struct p4_res *r)
{
	uint32_t st = op_status(o);

	r->nres++;
	r->last_op = o->resop;
	r->last_status = st;
	if (o->resop == OP_SEQUENCE)
		r->seq_status = st;
	if (st != NFS4_OK) /* a failed op ends the compound, its status */
		return (i + 1 == n && st == r->status) ? 1 : -EBADMSG;
	return fill_resok(o, r);
}

static int fill(const COMPOUND4res *res, struct p4_res *r)
{
	uint32_t n = res->resarray.len;

	r->status = res->status;
	if (res->tag.len > NFS4_OPAQUE_LIMIT || n > P4_MAX_OPS)
		return -EBADMSG;
	r->nres = 0;
	for (uint32_t i = 0; i < n; i++) {
		int rc = fill_one(&res->resarray.val[i], i, n, r);
		if (rc != 0)
			return rc > 0 ? 0 : rc;
	}
	return (n == 0 || r->status == NFS4_OK) ? 0 : -EBADMSG;
}

/* What a decode allocates comes from the stack (xdrgen_dctx_arena) when
 * it fits, which saves a malloc and a free per list entry and array; a
 * result that does not fit is decoded again onto the heap. */
#ifndef ARENA_BYTES
#define ARENA_BYTES 16384 /* -DARENA_BYTES=256 tests the heap fallback */
#endif

int p4g_decode(struct rpcrdma_xdr_dec *dec, struct p4_res *r)
{
	_Alignas(16) uint8_t arena[ARENA_BYTES];
	unsigned flags = r->get_bulk ? XDRGEN_CLNT : 0;
	struct rpcrdma_xdr_dec save = *dec;
	struct xdrgen_dctx cx;
	COMPOUND4res res;
	int rc;

	r->seq_status = UINT32_MAX;
	xdrgen_dctx_arena(&cx, flags, arena, sizeof(arena));
	rc = xdrgen_dec_COMPOUND4res(dec, &res, &cx);
	if (rc == 0)
		return fill(&res, r);
	if (rc != -ENOMEM || cx.bulk_done)
		return rc;
	*dec = save; /* too big for the arena */
	rc = xdrgen_decode_COMPOUND4res(dec, &res, flags);
	if (rc != 0)
		return rc;
	rc = fill(&res, r);
	xdrgen_free_COMPOUND4res(&res);
	return rc;
}

/* One nfs_resop4 into o: 1 when it is on the heap (free it), 0 in the
 * arena, < 0 refused. */
static int decode_op(struct rpcrdma_xdr_dec *dec, nfs_resop4 *o, unsigned flags,
		     void *arena, size_t size)
{
	struct rpcrdma_xdr_dec save = *dec;
	struct xdrgen_dctx cx;
	int rc;

	xdrgen_dctx_arena(&cx, flags, arena, size);
	rc = xdrgen_dec_nfs_resop4(dec, o, &cx);
	if (rc != -ENOMEM || cx.bulk_done)
		return rc;
	*dec = save;
	rc = xdrgen_decode_nfs_resop4(dec, o, flags);
	return rc == 0 ? 1 : rc;
}

int p4g_decode_ops(struct rpcrdma_xdr_dec *dec, struct p4_res *r)
{
	_Alignas(16) uint8_t arena[ARENA_BYTES];
	unsigned flags = r->get_bulk ? XDRGEN_CLNT : 0;
	nfsstat4 status;
	utf8str_cs tag;
	uint32_t n;

	r->seq_status = UINT32_MAX;
	TRY(xdrgen_decode_nfsstat4(dec, &status, flags));
	r->status = status;
	TRY(xdrgen_decode_utf8str_cs(dec, &tag, flags));
	n = tag.len;
	xdrgen_free_utf8str_cs(&tag); /* a copy only when it spans two buffers */
	if (n > NFS4_OPAQUE_LIMIT)
		return -EBADMSG;
	TRY(rpcrdma_xdr_get_count(dec, P4_MAX_OPS, 8, &n));
	r->nres = 0;
	for (uint32_t i = 0; i < n; i++) {
		nfs_resop4 o;
		int heap = decode_op(dec, &o, flags, arena, sizeof(arena));

		if (heap < 0)
			return heap;
		int rc = fill_one(&o, i, n, r);
		if (heap)
			xdrgen_free_nfs_resop4(&o);
		if (rc != 0)
			return rc > 0 ? 0 : rc;
	}
	return (n == 0 || r->status == NFS4_OK) ? 0 : -EBADMSG;
}
