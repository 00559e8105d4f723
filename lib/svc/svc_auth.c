/* SPDX-License-Identifier: BSD-2-Clause */
/* AUTH_NONE and AUTH_SYS credentials (RFC 5531 section 8 and appendix A);
 * RPCSEC_GSS's are decoded here and checked by lib/gss. */
#include "svc_int.h"
#include "gss/gss_int.h"

/*
 * authsys_parms: stamp, machinename<255>, uid, gid, gids<16>.  It must fill
 * the body exactly.
 */
static uint32_t auth_sys(const uint8_t *p, uint32_t len, struct rpcrdma_svc_cred *c)
{
	const uint8_t *end;
	uint32_t n;

	if (len < 8)
		goto out_bad;
	end = p + len;
	c->stamp = rpcrdma__get_be32(p);
	n = rpcrdma__get_be32(p + 4);
	p += 8;
	if (n > RPCRDMA_AUTH_SYS_MAX_MACHINENAME)
		goto out_bad;
	size_t padded = ((size_t)n + 3) & ~(size_t)3;
	if ((size_t)(end - p) < padded)
		goto out_bad;
	if (memchr(p, 0, n))
		goto out_bad;
	memcpy(c->machinename, p, n);
	c->machinename[n] = '\0';
	p += padded;
	if (end - p < 12)
		goto out_bad;
	c->uid = rpcrdma__get_be32(p);
	c->gid = rpcrdma__get_be32(p + 4);
	n = rpcrdma__get_be32(p + 8);
	p += 12;
	if (n > RPCRDMA_AUTH_SYS_MAX_GIDS || (size_t)(end - p) != (size_t)n * 4)
		goto out_bad;
	for (uint32_t i = 0; i < n; i++)
		c->gids[i] = rpcrdma__get_be32(p + 4 * i);
	c->ngids = n;
	c->flavor = RPCRDMA_AUTH_SYS;
	return RPCRDMA_AUTH_OK;
out_bad:
	memset(c, 0, sizeof(*c));
	return RPCRDMA_AUTH_BADCRED;
}

uint32_t rpcrdma__svc_auth_check(uint32_t cflavor, const uint8_t *cbody, uint32_t clen,
				 uint32_t vflavor, uint32_t vlen,
				 struct rpcrdma_svc_cred *cred)
{
	uint32_t st;

	switch (cflavor) {
	case RPCRDMA_AUTH_NONE:
		if (clen != 0)
			return RPCRDMA_AUTH_BADCRED;
		cred->flavor = RPCRDMA_AUTH_NONE;
		st = RPCRDMA_AUTH_OK;
		break;
	case RPCRDMA_AUTH_SYS:
		st = auth_sys(cbody, clen, cred);
		break;
	case RPCRDMA_AUTH_SHORT:
		return RPCRDMA_AUTH_REJECTEDCRED;
	case RPCRDMA__AUTH_GSS: {
		/* RPCSEC_GSS: the credential must decode here; its context,
		 * the verifier and the rest are the service's (lib/gss). */
		struct rpcrdma__gss_cred gc;
		if (rpcrdma__gss_cred_decode(cbody, clen, &gc))
			return RPCRDMA_AUTH_BADCRED;
		cred->flavor = RPCRDMA__AUTH_GSS;
		return RPCRDMA_AUTH_OK;
	}
	default:
		return RPCRDMA_AUTH_BADCRED;
	}
	if (st != RPCRDMA_AUTH_OK)
		return st;
	if (vflavor != RPCRDMA_AUTH_NONE || vlen != 0) {
		memset(cred, 0, sizeof(*cred));
		return RPCRDMA_AUTH_BADVERF;
	}
	return RPCRDMA_AUTH_OK;
}
