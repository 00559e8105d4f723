/* SPDX-License-Identifier: BSD-2-Clause */
/* OPEN's delegation result (RFC 8881 18.16.2, open_delegation4). */
#include "nfs4_xdr.h"

/* An nfsace4 that says nothing (as nfsd): type ALLOWED, no flag, no
 * mask, an empty principal. */
static void empty_ace(struct xdr_out *x)
{
	xdr_put_u32(x, ACE4_ACCESS_ALLOWED_ACE_TYPE);
	xdr_put_u32(x, 0);
	xdr_put_u32(x, 0);
	xdr_put_u32(x, 0);
}

void nfs4_enc_open_deleg(struct xdr_out *x, const union nfs4_res *r)
{
	xdr_put_u32(x, r->open.deleg);
	switch (r->open.deleg) {
	case OPEN_DELEGATE_READ: /* open_read_delegation4: stateid, recall, ace */
	case OPEN_DELEGATE_READ_ATTRS_DELEG: /* RFC 9754: the same arm */
		nfs4_enc_stateid(x, &r->open.deleg_sid);
		xdr_put_u32(x, 0);
		empty_ace(x);
		break;
	case OPEN_DELEGATE_WRITE:
	case OPEN_DELEGATE_WRITE_ATTRS_DELEG: /* RFC 9754: the same arm */
		/* open_write_delegation4: stateid, recall, a space limit
		 * that says none (NFS_LIMIT_SIZE of ~0, as nfsd), ace */
		nfs4_enc_stateid(x, &r->open.deleg_sid);
		xdr_put_u32(x, 0);
		xdr_put_u32(x, 1); /* NFS_LIMIT_SIZE */
		xdr_put_u32(x, UINT32_MAX);
		xdr_put_u32(x, UINT32_MAX);
		empty_ace(x);
		break;
	case OPEN_DELEGATE_NONE_EXT:
		/* open_none_delegation4: why, and for contention or
		 * resources whether the server will push or signal (no) */
		xdr_put_u32(x, r->open.why);
		if (r->open.why == WND4_CONTENTION || r->open.why == WND4_RESOURCE)
			xdr_put_u32(x, 0);
		break;
	default:
		break;
	}
}
