/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ONC RPC call-header decoding and reply-header encoding (RFC 5531 section
 * 9).  A walk over big-endian words bounded by `end`; constants compared
 * pre-swapped.
 */
#include "svc_int.h"
#include "gss/gss_int.h"

#define W_CALL RPCRDMA__BE32(RPCRDMA__RPC_CALL)
#define W_REPLY RPCRDMA__BE32(RPCRDMA__RPC_REPLY)
#define W_MSG_ACCEPTED RPCRDMA__BE32(RPCRDMA__MSG_ACCEPTED)
#define W_MSG_DENIED RPCRDMA__BE32(RPCRDMA__MSG_DENIED)
#define W_RPC_MISMATCH RPCRDMA__BE32(RPCRDMA__RPC_MISMATCH)
#define W_AUTH_ERROR RPCRDMA__BE32(RPCRDMA__AUTH_ERROR)
#define W_RPCVERS RPCRDMA__BE32(RPCRDMA__RPC_VERSION)
#define W_AUTH_NONE RPCRDMA__BE32(RPCRDMA_AUTH_NONE)
#define W_ZERO RPCRDMA__BE32(0)

/*
 * Reads an opaque_auth: flavour, length (<= 400), body inside [p, end).
 * NULL: it runs past the end.  *bad: its length is over 400 (checked
 * first, so a length near 2^32 is "bad", never "past the end").
 */
static const uint8_t *decode_opaque_auth(const uint8_t *p, const uint8_t *end,
					 uint32_t *flavor, uint32_t *len,
					 const uint8_t **body, bool *bad)
{
	if (__builtin_expect(end - p < 8, 0))
		return NULL;
	*flavor = rpcrdma__get_be32(p);
	*len = rpcrdma__get_be32(p + 4);
	p += 8;
	if (__builtin_expect(*len > RPCRDMA__MAX_AUTH_BYTES, 0)) {
		*bad = true;
		return p;
	}
	size_t padded = ((size_t)*len + 3) & ~(size_t)3;
	if (__builtin_expect((size_t)(end - p) < padded, 0))
		return NULL;
	*body = p;
	return p + padded;
}

enum rpcrdma__call_verdict rpcrdma__svc_call_decode(const uint8_t *buf, size_t len,
						     struct rpcrdma__call_hdr *h)
{
	const uint8_t *p = buf, *end;
	uint32_t cflavor, clen, vflavor, vlen;
	const uint8_t *cbody = NULL, *vbody = NULL;
	bool bad = false;

	memset(&h->cred, 0, sizeof(h->cred));
	h->auth_stat = RPCRDMA_AUTH_OK;
	h->len = 0;
	if (__builtin_expect(len < 12, 0))
		goto out_drop;
	end = buf + len;
	h->xid = rpcrdma__get_raw32(p);
	if (__builtin_expect(rpcrdma__get_raw32(p + 4) != W_CALL, 0))
		goto out_drop;
	if (__builtin_expect(rpcrdma__get_raw32(p + 8) != W_RPCVERS, 0))
		goto out_rpcvers;
	p += 12;
	if (__builtin_expect(end - p < 12, 0))
		goto out_garbage;
	h->prog = rpcrdma__get_be32(p);
	h->vers = rpcrdma__get_be32(p + 4);
	h->proc = rpcrdma__get_be32(p + 8);
	p += 12;

	p = decode_opaque_auth(p, end, &cflavor, &clen, &cbody, &bad);
	if (!p)
		goto out_garbage;
	if (bad) {
		h->auth_stat = RPCRDMA_AUTH_BADCRED;
		goto out_auth;
	}
	p = decode_opaque_auth(p, end, &vflavor, &vlen, &vbody, &bad);
	if (!p)
		goto out_garbage;
	if (bad) {
		h->auth_stat = RPCRDMA_AUTH_BADVERF;
		goto out_auth;
	}
	h->len = (size_t)(p - buf);
	h->auth_stat = rpcrdma__svc_auth_check(cflavor, cbody, clen, vflavor, vlen, &h->cred);
	if (h->auth_stat != RPCRDMA_AUTH_OK)
		goto out_auth;
	if (h->cred.flavor == RPCRDMA__AUTH_GSS) {
		h->gss_cred = cbody;
		h->gss_clen = clen;
		h->gss_cred_end = (size_t)(cbody - buf) + (((size_t)clen + 3) & ~(size_t)3);
		h->gss_verf = vbody;
		h->gss_vlen = vlen;
		h->gss_vflavor = vflavor;
	}
	return RPCRDMA__CALL_OK;

out_drop:
	return RPCRDMA__CALL_DROP;
out_rpcvers:
	return RPCRDMA__CALL_RPC_MISMATCH;
out_garbage:
	return RPCRDMA__CALL_GARBAGE;
out_auth:
	return RPCRDMA__CALL_AUTH_ERROR;
}

/* xid, REPLY: the first two words of every reply. */
static uint8_t *reply_start(uint8_t *p, uint32_t xid)
{
	p = rpcrdma__put_raw32(p, xid);
	return rpcrdma__put_raw32(p, W_REPLY);
}

size_t rpcrdma__svc_reply_accepted(uint8_t *buf, uint32_t xid, uint32_t stat,
				   uint32_t low, uint32_t high)
{
	uint8_t *p = reply_start(buf, xid);
	p = rpcrdma__put_raw32(p, W_MSG_ACCEPTED);
	p = rpcrdma__put_raw32(p, W_AUTH_NONE); /* verifier: AUTH_NONE, */
	p = rpcrdma__put_raw32(p, W_ZERO);      /* empty body */
	p = rpcrdma__put_be32(p, stat);
	if (stat == RPCRDMA_SVC_PROG_MISMATCH) {
		p = rpcrdma__put_be32(p, low);
		p = rpcrdma__put_be32(p, high);
	}
	return (size_t)(p - buf);
}

size_t rpcrdma__svc_reply_rpc_mismatch(uint8_t *buf, uint32_t xid)
{
	uint8_t *p = reply_start(buf, xid);
	p = rpcrdma__put_raw32(p, W_MSG_DENIED);
	p = rpcrdma__put_raw32(p, W_RPC_MISMATCH);
	p = rpcrdma__put_raw32(p, W_RPCVERS); /* low */
	p = rpcrdma__put_raw32(p, W_RPCVERS); /* high */
	return (size_t)(p - buf);
}

size_t rpcrdma__svc_reply_auth_error(uint8_t *buf, uint32_t xid, uint32_t auth_stat)
{
	uint8_t *p = reply_start(buf, xid);
	p = rpcrdma__put_raw32(p, W_MSG_DENIED);
	p = rpcrdma__put_raw32(p, W_AUTH_ERROR);
	p = rpcrdma__put_be32(p, auth_stat);
	return (size_t)(p - buf);
}
