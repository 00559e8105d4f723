/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Backward direction: the RPC call the service sends and the reply it
 * receives (RFC 5531 section 9).  Bounded walks; nothing read or written
 * outside the buffers given.
 */
#include <errno.h>

#include "svc_backward.h"
#include "svc_int.h"

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static size_t auth_sys_body_len(const struct rpcrdma_svc_cred *c)
{
	size_t mlen = strnlen(c->machinename, sizeof(c->machinename));
	return 4 + 4 + pad4(mlen) + 4 + 4 + 4 + 4 * (size_t)c->ngids;
}

size_t rpcrdma__bc_call_hdr_len(const struct rpcrdma_svc_cred *cred)
{
	size_t fixed = 6 * 4 + 8 + 8; /* xid..proc, cred head, verifier */
	if (!cred || cred->flavor == RPCRDMA_AUTH_NONE)
		return fixed;
	if (cred->flavor != RPCRDMA_AUTH_SYS || cred->ngids > RPCRDMA_AUTH_SYS_MAX_GIDS ||
	    strnlen(cred->machinename, sizeof(cred->machinename)) > RPCRDMA_AUTH_SYS_MAX_MACHINENAME)
		return 0;
	return fixed + auth_sys_body_len(cred);
}

static uint8_t *put_auth_sys(uint8_t *p, const struct rpcrdma_svc_cred *c)
{
	size_t mlen = strnlen(c->machinename, sizeof(c->machinename));
	p = rpcrdma__put_be32(p, RPCRDMA_AUTH_SYS);
	p = rpcrdma__put_be32(p, (uint32_t)auth_sys_body_len(c));
	p = rpcrdma__put_be32(p, c->stamp);
	p = rpcrdma__put_be32(p, (uint32_t)mlen);
	memcpy(p, c->machinename, mlen);
	memset(p + mlen, 0, pad4(mlen) - mlen);
	p += pad4(mlen);
	p = rpcrdma__put_be32(p, c->uid);
	p = rpcrdma__put_be32(p, c->gid);
	p = rpcrdma__put_be32(p, c->ngids);
	for (uint32_t i = 0; i < c->ngids; i++)
		p = rpcrdma__put_be32(p, c->gids[i]);
	return p;
}

long rpcrdma__bc_call_encode(uint8_t *buf, size_t room, uint32_t xid, uint32_t prog,
			     uint32_t vers, const struct rpcrdma_svc_cred *cred,
			     struct rpcrdma_clnt_req *req)
{
	size_t hlen = rpcrdma__bc_call_hdr_len(cred);
	if (!hlen)
		return -EINVAL;
	if (room < hlen || room - hlen < req->args_max)
		return -EMSGSIZE;
	uint8_t *p = buf;
	p = rpcrdma__put_be32(p, xid);
	p = rpcrdma__put_be32(p, RPCRDMA__RPC_CALL);
	p = rpcrdma__put_be32(p, RPCRDMA__RPC_VERSION);
	p = rpcrdma__put_be32(p, prog);
	p = rpcrdma__put_be32(p, vers);
	p = rpcrdma__put_be32(p, req->proc);
	if (cred && cred->flavor == RPCRDMA_AUTH_SYS) {
		p = put_auth_sys(p, cred);
	} else {
		p = rpcrdma__put_be32(p, RPCRDMA_AUTH_NONE);
		p = rpcrdma__put_be32(p, 0);
	}
	p = rpcrdma__put_be32(p, RPCRDMA_AUTH_NONE); /* verifier */
	p = rpcrdma__put_be32(p, 0);
	if (!req->encode)
		return (long)hlen;
	struct rpcrdma_xdr_enc enc;
	rpcrdma_xdr_enc_init(&enc, p, req->args_max);
	int rc = req->encode(&enc, req->args);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	return (long)(hlen + rpcrdma_xdr_enc_len(&enc));
}

/* The accepted part: verifier, accept_stat, results. */
static int decode_accepted(struct rpcrdma_xdr_dec *d, struct rpcrdma_clnt_req *req)
{
	uint32_t flavor, vlen;
	if (rpcrdma_xdr_get_u32(d, &flavor) || rpcrdma_xdr_get_u32(d, &vlen) ||
	    vlen > RPCRDMA__MAX_AUTH_BYTES || rpcrdma_xdr_skip(d, pad4(vlen)) ||
	    rpcrdma_xdr_get_u32(d, &req->accept_stat))
		return -EBADMSG;
	if (req->accept_stat != RPCRDMA_SVC_SUCCESS)
		return -EREMOTEIO;
	if (req->decode && req->decode(d, req->res))
		return -EBADMSG;
	return 0;
}

int rpcrdma__bc_reply_decode(const uint8_t *msg, size_t len, struct rpcrdma_clnt_req *req)
{
	struct rpcrdma_xdr_dec d;
	uint32_t xid, type, stat, v;
	rpcrdma_xdr_dec_init_buf(&d, msg, len);
	if (rpcrdma_xdr_get_u32(&d, &xid) || rpcrdma_xdr_get_u32(&d, &type) || type != 1 ||
	    rpcrdma_xdr_get_u32(&d, &stat))
		return -EBADMSG;
	req->reply_stat = stat;
	if (stat == 0)
		return decode_accepted(&d, req);
	if (stat != 1 || rpcrdma_xdr_get_u32(&d, &req->accept_stat))
		return -EBADMSG;
	/* MSG_DENIED: RPC_MISMATCH (low, high) or AUTH_ERROR (auth_stat) */
	if (req->accept_stat == 1 && rpcrdma_xdr_get_u32(&d, &req->auth_stat))
		return -EBADMSG;
	if (req->accept_stat == 0 && (rpcrdma_xdr_get_u32(&d, &v) || rpcrdma_xdr_get_u32(&d, &v)))
		return -EBADMSG;
	if (req->accept_stat > 1)
		return -EBADMSG;
	return -EACCES;
}
