/* SPDX-License-Identifier: BSD-2-Clause */
/* Byte-range locks and stateid maintenance: LOCK, LOCKT, LOCKU,
 * TEST_STATEID, FREE_STATEID. */
#include <string.h>

#include "ops.h"
#include "state.h"

static uint32_t lock_key(struct tnfs_ctx *c, struct tnfs_file_key *k)
{
	struct stat st;
	uint32_t s = tnfs_fs_stat(&c->cfh, &st);
	if (s != NFS4_OK)
		return s;
	if (S_ISDIR(st.st_mode))
		return NFS4ERR_ISDIR;
	if (!S_ISREG(st.st_mode))
		return NFS4ERR_INVAL;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	return NFS4_OK;
}

uint32_t tnfs_op_lock(struct tnfs_ctx *c, const union nfs4_args *a,
		      union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	struct tnfs_file_key k;
	uint32_t s = lock_key(c, &k);
	if (s != NFS4_OK)
		return s;
	union nfs4_args b = *a;
	if ((s = tnfs_ctx_stateid(c, &a->lock.stateid, &b.lock.stateid)) != NFS4_OK)
		return s;
	s = tnfs_state_lock(c->srv->state, c->clientid, k, &b, r);
	if (s == NFS4_OK)
		tnfs_ctx_set_stateid(c, &r->lock.stateid);
	return s;
}

uint32_t tnfs_op_lockt(struct tnfs_ctx *c, const union nfs4_args *a,
		       union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	struct tnfs_file_key k;
	uint32_t s = lock_key(c, &k);
	if (s != NFS4_OK)
		return s;
	return tnfs_state_lockt(c->srv->state, c->clientid, k, a, r);
}

uint32_t tnfs_op_locku(struct tnfs_ctx *c, const union nfs4_args *a,
		       union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	struct tnfs_file_key k;
	uint32_t s = lock_key(c, &k);
	if (s != NFS4_OK)
		return s;
	union nfs4_args b = *a;
	if ((s = tnfs_ctx_stateid(c, &a->locku.stateid, &b.locku.stateid)) != NFS4_OK)
		return s;
	s = tnfs_state_locku(c->srv->state, c->clientid, k, &b, r);
	if (s == NFS4_OK)
		tnfs_ctx_set_stateid(c, &r->stateid);
	return s;
}

uint32_t tnfs_op_test_stateid(struct tnfs_ctx *c, const union nfs4_args *a,
			      union nfs4_res *r, struct xdr_out *x)
{
	(void)r;
	struct xdr_in in;
	xdr_in_init(&in, a->test_stateid.ids, (size_t)a->test_stateid.n * 16);
	xdr_put_u32(x, a->test_stateid.n);
	for (uint32_t i = 0; i < a->test_stateid.n; i++) {
		struct nfs4_stateid sid;
		nfs4_dec_stateid(&in, &sid);
		xdr_put_u32(x, tnfs_deleg_is_sid(&sid) ?
			       tnfs_deleg_check(c->srv->deleg, c->clientid, &sid, NULL) :
			       tnfs_state_test_stateid(c->srv->state, c->clientid, &sid));
	}
	return NFS4_OK;
}

uint32_t tnfs_op_free_stateid(struct tnfs_ctx *c, const union nfs4_args *a,
			      union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	struct nfs4_stateid sid;
	uint32_t s = tnfs_ctx_stateid(c, &a->free_stateid.stateid, &sid);
	if (s == NFS4_OK && tnfs_deleg_is_sid(&sid))
		s = tnfs_deleg_free_stateid(c->srv->deleg, c->clientid, &sid);
	else if (s == NFS4_OK)
		s = tnfs_state_free_stateid(c->srv->state, c->clientid, &sid);
	return s;
}
