/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions with chosen channel attributes, for the tests of what
 * CREATE_SESSION negotiates and SEQUENCE enforces (test_clients.c,
 * test_sessize.c): a channel's attributes on the wire, CREATE_SESSION
 * with both channels, and a request whose tag has a chosen length.
 */
#ifndef TNFS_TEST_SESSION_UTIL_H
#define TNFS_TEST_SESSION_UTIL_H
#include "nfstest.h"

/* channel_attrs4 (RFC 8881 18.36) without RDMA: headerpadsize 0, no
 * rdma_ird. */
struct chan {
	uint32_t maxreq, maxresp, cached, maxops, maxreqs;
};

/* The back channel every test asks for. */
static const struct chan BACK = { 4096, 4096, 0, 2, 1 };

static inline void put_chan_attrs(struct xdr_out *x, const struct chan *c)
{
	xdr_put_u32(x, 0);
	xdr_put_u32(x, c->maxreq);
	xdr_put_u32(x, c->maxresp);
	xdr_put_u32(x, c->cached);
	xdr_put_u32(x, c->maxops);
	xdr_put_u32(x, c->maxreqs);
	xdr_put_u32(x, 0);
}

static inline void get_chan_attrs(struct xdr_in *x, struct chan *c)
{
	(void)xdr_get_u32(x); /* headerpadsize */
	c->maxreq = xdr_get_u32(x);
	c->maxresp = xdr_get_u32(x);
	c->cached = xdr_get_u32(x);
	c->maxops = xdr_get_u32(x);
	c->maxreqs = xdr_get_u32(x);
	assert_int_equal(xdr_get_u32(x), 0); /* no rdma_ird */
}

/* CREATE_SESSION alone (callback program 0x40000000, AUTH_NONE); on
 * NFS4_OK the session id and both channels granted (got may be NULL). */
static inline uint32_t create_session(struct fx *f, uint64_t clientid, uint32_t seq,
				      uint32_t flags, const struct chan *fore,
				      const struct chan *back, uint8_t sid[16], struct chan got[2])
{
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	xdr_put_u64(&f->rq.x, clientid);
	xdr_put_u32(&f->rq.x, seq);
	xdr_put_u32(&f->rq.x, flags);
	put_chan_attrs(&f->rq.x, fore);
	put_chan_attrs(&f->rq.x, back);
	xdr_put_u32(&f->rq.x, 0x40000000);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, AUTH_NONE);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), st);
	if (st != NFS4_OK)
		return st;
	xdr_get_fixed(&f->rp.x, sid, 16);
	assert_int_equal(xdr_get_u32(&f->rp.x), seq);
	(void)xdr_get_u32(&f->rp.x); /* flags */
	struct chan dummy[2];
	if (!got)
		got = dummy;
	get_chan_attrs(&f->rp.x, &got[0]);
	get_chan_attrs(&f->rp.x, &got[1]);
	assert_false(f->rp.x.bad);
	return st;
}

/* Starts a request whose tag has `tag` bytes (at most 1024; the reply
 * echoes it), with SEQUENCE on sid, slot 0, sequence id seqid. */
static inline void seq_tagged(struct fx *f, const uint8_t sid[16], uint32_t seqid, uint32_t tag,
			      bool cachethis)
{
	static char t[1024];
	memset(t, 'x', sizeof(t));
	struct req *r = &f->rq;
	fx_begin(f);
	xdr_out_init(&r->x, r->buf, BUFSZ);
	xdr_put_opaque(&r->x, t, tag);
	xdr_put_u32(&r->x, f->minor);
	r->nops_at = xdr_reserve(&r->x, 4);
	xdr_wr32(r->nops_at, 0);
	r->nops = 0;
	req_op(r, OP_SEQUENCE);
	xdr_put_fixed(&r->x, sid, 16);
	xdr_put_u32(&r->x, seqid);
	xdr_put_u32(&r->x, 0);
	xdr_put_u32(&r->x, 0);
	xdr_put_bool(&r->x, cachethis);
}

#endif /* TNFS_TEST_SESSION_UTIL_H */
