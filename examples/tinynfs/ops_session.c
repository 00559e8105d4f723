/* SPDX-License-Identifier: BSD-2-Clause */
/* Session operations: EXCHANGE_ID, CREATE_SESSION, SEQUENCE,
 * DESTROY_SESSION, DESTROY_CLIENTID, RECLAIM_COMPLETE,
 * BIND_CONN_TO_SESSION, BACKCHANNEL_CTL. */
#include <string.h>

#include "ops.h"
#include "state.h"

static struct xdr_opaque str(const char *s)
{
	return (struct xdr_opaque){ (const uint8_t *)s, (uint32_t)strlen(s) };
}

#define BIT(op) (1u << ((op) % 32))

/* SP4_MACH_CRED's lists (RFC 8881 18.35.3, 2.10.8.3), as nfsd answers
 * them: the machine credential is enforced for the operations that
 * manage the client ID and its sessions (whatever the client's
 * spo_must_enforce asks, as in nfsd), and allowed, of what the client
 * asks, for the ones that release state. */
static void mach_ops(const union nfs4_args *a, union nfs4_res *r)
{
	struct nfs4_bitmap *e = &r->exchange_id.must_enforce, *w = &r->exchange_id.must_allow;
	memset(e, 0, sizeof(*e));
	e->w[1] = BIT(OP_BIND_CONN_TO_SESSION) | BIT(OP_EXCHANGE_ID) | BIT(OP_CREATE_SESSION) |
		  BIT(OP_DESTROY_SESSION) | BIT(OP_DESTROY_CLIENTID);
	*w = a->exchange_id.must_allow;
	w->extra = false;
	w->w[0] &= BIT(OP_CLOSE) | BIT(OP_OPEN_DOWNGRADE) | BIT(OP_LOCKU) | BIT(OP_DELEGRETURN);
	w->w[1] &= BIT(OP_TEST_STATEID) | BIT(OP_FREE_STATEID);
	for (unsigned i = 2; i < FATTR4_WORDS; i++)
		w->w[i] = 0;
}

uint32_t tnfs_op_exchange_id(struct tnfs_ctx *c, const union nfs4_args *a,
			     union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	r->exchange_id.sp_how = a->exchange_id.sp_how;
	uint32_t s = tnfs_state_exchange_id(c->srv->state, c->rpc_cred, a->exchange_id.verf,
					    a->exchange_id.ownerid.data,
					    a->exchange_id.ownerid.len,
					    a->exchange_id.flags, &r->exchange_id.sp_how,
					    &r->exchange_id.clientid,
					    &r->exchange_id.seqid, &r->exchange_id.flags);
	if (s != NFS4_OK)
		return s;
	if (r->exchange_id.sp_how == SP4_MACH_CRED) {
		mach_ops(a, r);
		tnfs_state_set_mach_allow(c->srv->state, r->exchange_id.clientid,
					  r->exchange_id.must_allow.w);
	}
	r->exchange_id.minor_id = 0;
	r->exchange_id.major_id = str(c->srv->owner);
	r->exchange_id.scope = str(c->srv->owner);
	r->exchange_id.impl_domain = str(TNFS_IMPL_DOMAIN);
	r->exchange_id.impl_name = str(TNFS_IMPL_NAME);
	return NFS4_OK;
}

uint32_t tnfs_op_create_session(struct tnfs_ctx *c, const union nfs4_args *a,
				union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	uint32_t s = tnfs_state_create_session(c->srv->state, c->rpc_cred,
					       a->create_session.clientid,
					       a->create_session.seqid, a->create_session.flags,
					       &a->create_session.fore,
					       &a->create_session.back, r);
	/* The connection becomes the back channel (RFC 8881 18.36.3): a
	 * replay binds it again, as the client may have lost the reply on
	 * another connection. */
	if (s == NFS4_OK && (a->create_session.flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN) &&
	    tnfs_cb_bind(c->srv->cb, a->create_session.clientid, r->create_session.sessionid,
			 c->call, c->minor, true, &a->create_session.cb_program,
			 &a->create_session.sec))
		r->create_session.flags |= CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	return s;
}

uint32_t tnfs_op_backchannel_ctl(struct tnfs_ctx *c, const union nfs4_args *a,
				 union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	return tnfs_cb_ctl(c->srv->cb, c->clientid, c->sessionid, a->backchannel_ctl.cb_program,
			   &a->backchannel_ctl.sec);
}

void tnfs_sequence_undo(struct tnfs_ctx *c)
{
	tnfs_state_slot_undo(c->srv->state, c->sessionid, c->slotid);
	c->have_session = false;
	c->cachethis = false;
}

uint32_t tnfs_op_sequence(struct tnfs_ctx *c, const union nfs4_args *a,
			  union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	struct tnfs_seq q;
	uint32_t s = tnfs_state_sequence(c->srv->state, a->sequence.sessionid,
					 a->sequence.seqid, a->sequence.slotid, &q);
	if (s != NFS4_OK)
		return s;
	if (q.replay) {
		c->replay = q.reply;
		c->replay_len = q.reply_len;
		return NFS4_OK;
	}
	c->have_session = true;
	memcpy(c->sessionid, a->sequence.sessionid, NFS4_SESSIONID_SIZE);
	c->slotid = a->sequence.slotid;
	c->clientid = q.clientid;
	c->cachethis = a->sequence.cachethis;
	c->maxops = q.maxops;
	c->maxreq = q.maxreq;
	/* ca_maxrequestsize and ca_maxresponsesize(_cached) count the RPC
	 * headers too (RFC 8881 18.36.3) */
	c->maxresp_cached = q.maxresp_cached > c->rpc_rep_hdr ?
			    q.maxresp_cached - (uint32_t)c->rpc_rep_hdr : 0;
	size_t maxresp = q.maxresp > c->rpc_rep_hdr ? q.maxresp - c->rpc_rep_hdr : 0;
	if (maxresp < c->limit)
		c->limit = maxresp;
	/* the session's bounds (RFC 8881 18.46.3, 2.10.6.4): more operations
	 * than ca_maxoperations is NFS4ERR_TOO_MANY_OPS, a request above
	 * ca_maxrequestsize NFS4ERR_REQ_TOO_BIG; the slot stays as it was
	 * (tnfs_sequence_undo) */
	uint32_t bound = c->numops > q.maxops ? NFS4ERR_TOO_MANY_OPS :
			 c->reqlen + c->rpc_req_hdr > q.maxreq ? NFS4ERR_REQ_TOO_BIG : NFS4_OK;
	if (bound != NFS4_OK) {
		tnfs_sequence_undo(c);
		return bound;
	}
	memcpy(r->sequence.sessionid, a->sequence.sessionid, NFS4_SESSIONID_SIZE);
	r->sequence.seqid = a->sequence.seqid;
	r->sequence.slotid = a->sequence.slotid;
	r->sequence.highest_slotid = q.nslots - 1;
	r->sequence.target_highest_slotid = q.nslots - 1;
	r->sequence.status_flags = tnfs_cb_seq_flags(c->srv->cb, q.clientid, a->sequence.sessionid) |
				   tnfs_deleg_seq_flags(c->srv->deleg, q.clientid);
	return NFS4_OK;
}

uint32_t tnfs_op_destroy_session(struct tnfs_ctx *c, const union nfs4_args *a,
				 union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	uint32_t s = tnfs_state_destroy_session(c->srv->state, c->rpc_cred,
						a->destroy_session.sessionid);
	if (s == NFS4_OK)
		tnfs_cb_session_gone(c->srv->cb, a->destroy_session.sessionid);
	return s;
}

uint32_t tnfs_op_destroy_clientid(struct tnfs_ctx *c, const union nfs4_args *a,
				  union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	/* the client's delegations and back channel go with the record
	 * (tnfs_state_set_client_gone) */
	uint64_t id = a->destroy_clientid.clientid;
	bool delegs = c->srv->deleg && tnfs_deleg_held_by(c->srv->deleg, id) > 0;
	return tnfs_state_destroy_clientid(c->srv->state, c->rpc_cred, id, delegs);
}

uint32_t tnfs_op_reclaim_complete(struct tnfs_ctx *c, const union nfs4_args *a,
				  union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	return tnfs_state_reclaim_complete(c->srv->state, c->clientid,
					   a->reclaim_complete.one_fs);
}

uint32_t tnfs_op_bind_conn(struct tnfs_ctx *c, const union nfs4_args *a,
			   union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	uint32_t dir = a->bind_conn.dir;
	if (dir != CDFC4_FORE && dir != CDFC4_BACK && dir != CDFC4_FORE_OR_BOTH &&
	    dir != CDFC4_BACK_OR_BOTH)
		return NFS4ERR_INVAL;
	uint64_t clientid;
	uint32_t s = tnfs_state_bind_conn(c->srv->state, c->rpc_cred, a->bind_conn.sessionid,
					  &clientid);
	if (s != NFS4_OK)
		return s;
	/* the back channel goes on this connection when asked (BACK), or
	 * offered (the _OR_BOTH ones): then it carries both directions */
	bool back = dir != CDFC4_FORE &&
		    tnfs_cb_bind(c->srv->cb, clientid, a->bind_conn.sessionid, c->call, c->minor,
				 false, NULL, NULL);
	if (dir == CDFC4_BACK && !back)
		return NFS4ERR_INVAL; /* no connection to call back on */
	memcpy(r->bind_conn.sessionid, a->bind_conn.sessionid, NFS4_SESSIONID_SIZE);
	r->bind_conn.dir = dir == CDFC4_BACK ? CDFS4_BACK : back ? CDFS4_BOTH : CDFS4_FORE;
	r->bind_conn.rdma_mode = false;
	return NFS4_OK;
}
