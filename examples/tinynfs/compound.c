/* SPDX-License-Identifier: BSD-2-Clause */
/* COMPOUND processing; see compound.h. */
#include "compound.h"

#include <errno.h>
#include <stdlib.h>

#include "ops.h"
#include "state.h"

#define REPLY_HDR_MIN 12 /* status, empty tag, count */

static bool op_in_minor(uint32_t op, uint32_t minor)
{
	uint32_t max = minor >= 2 ? NFS4_OP_MAX_42 : NFS4_OP_MAX_41;
	return op >= NFS4_OP_MIN && op <= max;
}

/* RFC 8881 16.2.3.1.2: an operation that changes the current file handle
 * clears the current stateid (PUTFH, PUTPUBFH, PUTROOTFH, LOOKUP, LOOKUPP,
 * CREATE, SECINFO's consuming of it); OPEN then sets its own and
 * RESTOREFH restores the saved one.  A later use of the special current
 * stateid is NFS4ERR_BAD_STATEID, never the stateid of another file. */
void tnfs_ctx_clear_stateid(struct tnfs_ctx *c)
{
	c->have_cur_sid = false;
	memset(&c->cur_sid, 0, sizeof(c->cur_sid));
}

void tnfs_ctx_set_cfh(struct tnfs_ctx *c, struct tnfs_node *n, const struct tnfs_fh *fh)
{
	tnfs_ctx_clear_stateid(c);
	tnfs_node_put(&c->cfh);
	c->cfh_st_ok = false;
	c->cfh = *n;
	*n = TNFS_NODE_NONE;
	c->cpseudo = TNFS_NOT_PSEUDO;
	if (fh)
		c->cfh_fh = *fh;
	else
		c->cfh_fh.len = 0;
}

void tnfs_ctx_set_cfh_in(struct tnfs_ctx *c, const struct tnfs_export *x, struct tnfs_node *n,
			 const struct tnfs_fh *fh)
{
	c->exp = x;
	tnfs_ctx_set_cfh(c, n, fh);
}

void tnfs_ctx_set_pseudo(struct tnfs_ctx *c, uint32_t node)
{
	tnfs_ctx_clear_stateid(c);
	tnfs_node_put(&c->cfh);
	c->cfh_st_ok = false;
	c->exp = &c->srv->pseudo_exp;
	c->cpseudo = node;
	tnfs_pseudo_to_fh(c->srv->pseudo, node, &c->cfh_fh);
}

uint32_t tnfs_ctx_cfh_stat(struct tnfs_ctx *c, struct stat *st)
{
	bool fresh = c->cfh_st_ok && c->cfh_st_op == c->opindex;
	c->cfh_st_ok = false;
	if (!fresh)
		return tnfs_fs_stat(&c->cfh, st);
	*st = c->cfh_st;
	return NFS4_OK;
}

/* Before an operation runs on export x: the caller's credentials squashed
 * as x says, and this thread's file-system ids switched to them (pseudo
 * nodes touch no file: whatever is in place stays). */
static uint32_t ctx_enter(struct tnfs_ctx *c, const struct tnfs_export *x)
{
	if (x == c->cred_exp || x == &c->srv->pseudo_exp)
		return NFS4_OK;
	tnfs_fs_unbecome(&c->become);
	tnfs_export_squash(x, c->rpc_cred, &c->cred);
	c->cred_exp = x;
	return tnfs_fs_become(&c->cred, &c->srv->self, &c->become);
}

/* The number of the operation that `in` is at, UINT32_MAX if cut short
 * (WRONGSEC looks at what follows an operation: ops_fh.c). */
static uint32_t peek_op(struct xdr_in in)
{
	uint32_t op = xdr_get_u32(&in);
	return in.bad ? UINT32_MAX : op;
}

uint32_t tnfs_ctx_stateid(const struct tnfs_ctx *c, const struct nfs4_stateid *in,
			  struct nfs4_stateid *out)
{
	static const uint8_t zeros[NFS4_OTHER_SIZE];
	if (in->seqid == 1 && memcmp(in->other, zeros, NFS4_OTHER_SIZE) == 0) {
		if (!c->have_cur_sid)
			return NFS4ERR_BAD_STATEID;
		*out = c->cur_sid;
		return NFS4_OK;
	}
	*out = *in;
	return NFS4_OK;
}

void tnfs_ctx_set_stateid(struct tnfs_ctx *c, const struct nfs4_stateid *s)
{
	c->cur_sid = *s;
	c->have_cur_sid = true;
}

/* An operation of the rest of c's COMPOUND in allow (operations 0 to
 * 63)?  Decodes ahead on a copy of the stream; asked only on the way to
 * WRONGSEC. */
static bool rest_in(const struct tnfs_ctx *c, const uint32_t allow[2])
{
	struct xdr_in in = c->rest;
	for (uint32_t i = c->opindex + 1; i < c->numops; i++) {
		uint32_t op = xdr_get_u32(&in);
		if (in.bad)
			return false;
		if (op < 64 && (allow[op / 32] >> (op % 32)) & 1u)
			return true;
		const struct nfs4_codec *cd = op_in_minor(op, c->minor) ? nfs4_codec(op) : NULL;
		if (!cd)
			return false;
		union nfs4_args a;
		if (cd->dec)
			cd->dec(&in, &a);
		if (in.bad)
			return false;
	}
	return false;
}

bool tnfs_ctx_mach_allowed(const struct tnfs_ctx *c)
{
	uint32_t allow[2];
	return c->have_session && tnfs_state_mach_allow(c->srv->state, c->clientid, c->rpc_cred, allow) &&
	       rest_in(c, allow);
}

bool tnfs_ctx_readonly(const struct tnfs_ctx *c)
{
	return !(c->exp->flags & TNFS_EXP_RW);
}

static void est_init(struct tnfs_est *e, const struct tnfs_server *srv,
		     uint32_t minor, size_t maxresp)
{
	e->srv = srv;
	e->minor = minor;
	e->fh_len = NFS4_FHSIZE;
	e->max_owner_len = tnfs_state_max_owner_len(srv->state);
	e->maxresp = maxresp;
	e->room = maxresp;
}

/* Ordering rules of RFC 8881 2.10.6 for operation i. */
static uint32_t check_order(const struct tnfs_ctx *c, uint32_t op, const struct tnfs_op *o)
{
	if (c->opindex == 0) {
		if (op == OP_SEQUENCE)
			return NFS4_OK;
		if (!(o->flags & OPF_FIRST))
			return NFS4ERR_OP_NOT_IN_SESSION;
		return c->numops > 1 ? NFS4ERR_NOT_ONLY_OP : NFS4_OK;
	}
	if (op == OP_SEQUENCE)
		return NFS4ERR_SEQUENCE_POS;
	if (c->opindex >= c->maxops)
		return NFS4ERR_TOO_MANY_OPS;
	if ((o->flags & OPF_SESSION) && !c->have_session)
		return NFS4ERR_OP_NOT_IN_SESSION;
	if (!(o->flags & OPF_CFH))
		return NFS4_OK;
	if (c->cpseudo != TNFS_NOT_PSEUDO)
		return (o->flags & OPF_PSEUDO) ? NFS4_OK : tnfs_pseudo_refusal(op);
	if (c->cfh.fd < 0)
		return NFS4ERR_NOFILEHANDLE;
	return NFS4_OK;
}

/* The bytes the error result of the operation after the current one
 * takes, 0 for the last one. */
static size_t next_room(const struct tnfs_ctx *c)
{
	return c->opindex + 1 < c->numops ? 8 : 0;
}

/* May the reply grow to `len` bytes?  NFS4ERR_REP_TOO_BIG_TO_CACHE above
 * the session's ca_maxresponsesize_cached with sa_cachethis,
 * NFS4ERR_REP_TOO_BIG above its ca_maxresponsesize (RFC 8881 18.46.3). */
static uint32_t reply_room(const struct tnfs_ctx *c, size_t len)
{
	if (c->cachethis && len > c->maxresp_cached)
		return NFS4ERR_REP_TOO_BIG_TO_CACHE;
	return len > c->limit ? NFS4ERR_REP_TOO_BIG : NFS4_OK;
}

int tnfs_compound(struct tnfs_server *srv, const struct tnfs_cred *cred,
		  const void *req, size_t reqlen, void *rep, size_t cap,
		  size_t *replen, size_t *bulk_off, size_t *bulk_len)
{
	return tnfs_compound_rpc(srv, cred, req, reqlen, 0, 0, rep, cap, replen, bulk_off,
				 bulk_len);
}

int tnfs_compound_rpc(struct tnfs_server *srv, const struct tnfs_cred *cred,
		      const void *req, size_t reqlen, size_t req_hdr, size_t rep_hdr,
		      void *rep, size_t cap, size_t *replen, size_t *bulk_off,
		      size_t *bulk_len)
{
	return tnfs_compound_call(srv, cred, NULL, req, reqlen, req_hdr, rep_hdr, rep, cap,
				  replen, bulk_off, bulk_len);
}

/* One operation of a COMPOUND: what it decoded, its estimate, its status. */
struct op_step {
	uint32_t op, resop, status;
	size_t need; /* the estimate of its result, 8 bytes of header included */
	const struct tnfs_op *o;
	const struct nfs4_codec *codec;
	union nfs4_args a;
	union nfs4_res r;
};

/* Decodes operation c->opindex's number and arguments and checks its
 * place in the COMPOUND (RFC 8881 2.10.6): s->status. */
static void step_decode(const struct tnfs_ctx *c, struct xdr_in *in, struct op_step *s)
{
	memset(s, 0, sizeof(*s));
	s->op = s->resop = xdr_get_u32(in);
	s->need = 8;
	if (in->bad) {
		s->resop = OP_ILLEGAL;
		s->status = NFS4ERR_BADXDR;
	} else if (!op_in_minor(s->op, c->minor)) {
		s->resop = OP_ILLEGAL;
		s->status = NFS4ERR_OP_ILLEGAL;
	} else if (!(s->codec = nfs4_codec(s->op)) || !(s->o = tnfs_op_get(s->op))) {
		s->status = NFS4ERR_NOTSUPP;
	} else {
		if (s->codec->dec)
			s->codec->dec(in, &s->a);
		s->status = in->bad ? NFS4ERR_BADXDR : check_order(c, s->op, s->o);
	}
}

/* s's estimate (s->need), and whether the reply written up to out->p has
 * room for it: s->status. */
static void step_estimate(const struct tnfs_ctx *c, const struct xdr_out *out,
			  const void *rep, struct op_step *s)
{
	struct tnfs_est e;
	est_init(&e, c->srv, c->minor, c->limit);
	if (c->cfh_fh.len)
		e.fh_len = c->cfh_fh.len;
	/* an operation that is not the last leaves room for the next one's
	 * error result: the reply stays in the limit */
	size_t used = (size_t)(out->p - (const uint8_t *)rep) + next_room(c);
	size_t lim = c->limit;
	if (c->cachethis && c->maxresp_cached < lim)
		lim = c->maxresp_cached;
	e.room = lim > used ? lim - used : 0;
	s->need = s->o->estimate(&e, &s->a);
	s->status = reply_room(c, used + s->need);
}

/* Runs s's handler, bounded by its estimate, and encodes its result at
 * mark (out->p, after its result header): s->status.  False when the
 * operation found a reply to replay (c->replay): the COMPOUND ends. */
static bool step_run(struct tnfs_ctx *c, struct xdr_out *out, uint8_t *mark, struct op_step *s)
{
	if (s->status == NFS4_OK && (s->o->flags & OPF_CFH))
		s->status = ctx_enter(c, c->exp);
	if (s->status != NFS4_OK)
		return true;
	/* the estimate bounds what the handler may write */
	struct xdr_out lim = *out;
	size_t room = (size_t)(out->end - out->p);
	if (s->need - 8 < room)
		lim.end = out->p + (s->need - 8);
	s->status = s->o->run(c, &s->a, &s->r, &lim);
	if (c->replay)
		return false;
	if (lim.bad && s->status == NFS4_OK)
		s->status = NFS4ERR_SERVERFAULT;
	out->p = s->status == NFS4_OK ? lim.p : mark;
	if (s->codec->enc)
		s->codec->enc(out, s->status, &s->r);
	if (out->bad) {
		out->bad = false;
		out->p = mark;
		s->status = NFS4ERR_SERVERFAULT;
	}
	return true;
}

/* A context for one COMPOUND of `numops` operations, minor version
 * `minor`, with a reply of at most cap bytes. */
static void ctx_init(struct tnfs_ctx *c, struct tnfs_server *srv, const struct tnfs_cred *cred,
		     const struct rpcrdma_svc_call *call, uint32_t minor, uint32_t numops,
		     size_t reqlen, size_t cap, size_t req_hdr, size_t rep_hdr)
{
	memset(c, 0, sizeof(*c));
	c->srv = srv;
	c->call = call;
	c->exp = c->sexp = srv->exp;
	c->cpseudo = c->spseudo = TNFS_NOT_PSEUDO;
	c->minor = minor;
	c->cfh = TNFS_NODE_NONE;
	c->sfh = TNFS_NODE_NONE;
	c->numops = numops;
	c->maxops = TNFS_MAX_OPS;
	c->reqlen = reqlen;
	c->limit = cap;
	c->rpc_req_hdr = req_hdr;
	c->rpc_rep_hdr = rep_hdr;
	c->rpc_cred = cred;
}

/* The operations of c's COMPOUND, from `in` into `out` after the reply's
 * header: the status of the last one run; *count of them have a result;
 * *boff, *blen: the first READ's data, once it succeeded.  On a replay
 * (c->replay) the results are to be dropped. */
static uint32_t compound_ops(struct tnfs_ctx *c, struct xdr_in *in, struct xdr_out *out,
			     void *rep, size_t cap, uint32_t *count, size_t *boff, size_t *blen)
{
	uint32_t status = NFS4_OK;
	struct op_step s;

	for (c->opindex = 0; c->opindex < c->numops; c->opindex++) {
		step_decode(c, in, &s);
		c->next_op = c->opindex + 1 < c->numops ? peek_op(*in) : UINT32_MAX;
		c->rest = *in;
		if (s.status == NFS4_OK)
			step_estimate(c, out, rep, &s);
		uint8_t *head = xdr_reserve(out, 8);
		if (!head) /* cannot happen: an 8-byte result always fits below */
			return NFS4ERR_SERVERFAULT;
		uint8_t *mark = out->p;
		if (!step_run(c, out, mark, &s))
			return s.status;
		if (s.status == NFS4_OK && s.op == OP_SEQUENCE) {
			/* the session's limits are known now: SEQUENCE's result
			 * must fit them (RFC 8881 18.46.3: above
			 * ca_maxresponsesize_cached with sa_cachethis
			 * NFS4ERR_REP_TOO_BIG_TO_CACHE, a lone SEQUENCE too,
			 * however small that was negotiated; above
			 * ca_maxresponsesize NFS4ERR_REP_TOO_BIG), leaving
			 * room for the next operation's error.  SEQUENCE then
			 * fails: its slot stays as it was (as in Linux's nfsd,
			 * which checks before taking it) */
			s.status = reply_room(c, (size_t)(out->p - (uint8_t *)rep) + next_room(c));
			if (s.status != NFS4_OK) {
				out->p = mark; /* an error SEQUENCE has no body */
				tnfs_sequence_undo(c);
			}
		}
		xdr_wr32(head, s.resop);
		xdr_wr32(head + 4, s.status);
		(*count)++;
		if (c->srv->op_hook)
			c->srv->op_hook(c->srv->hook_arg, s.resop, s.status, s.need,
					(size_t)(out->p - head));
		out->end = (uint8_t *)rep + (c->limit < cap ? c->limit : cap);
		status = s.status;
		if (status != NFS4_OK)
			break;
		if (c->read_data) {
			/* the READ that just succeeded; its result stays in the
			 * reply whatever the later operations do */
			*boff = (size_t)(c->read_data - (const uint8_t *)rep);
			*blen = c->read_len;
			c->read_data = NULL;
		}
	}
	return status;
}

/* The reply found in the session's slot, in place of the one built. */
static int compound_replay(struct tnfs_ctx *c, void *rep, size_t cap, size_t *replen)
{
	int rc = 0;
	if (c->replay_len > cap) {
		rc = -ENOSPC;
	} else {
		memcpy(rep, c->replay, c->replay_len);
		*replen = c->replay_len;
	}
	free(c->replay);
	return rc;
}

int tnfs_compound_call(struct tnfs_server *srv, const struct tnfs_cred *cred,
		       const struct rpcrdma_svc_call *call, const void *req, size_t reqlen,
		       size_t req_hdr, size_t rep_hdr, void *rep, size_t cap, size_t *replen,
		       size_t *bulk_off, size_t *bulk_len)
{
	size_t boff_dummy, blen_dummy;
	if (!bulk_off)
		bulk_off = &boff_dummy;
	if (!bulk_len)
		bulk_len = &blen_dummy;
	*bulk_off = *bulk_len = 0;
	struct xdr_in in;
	struct xdr_opaque tag;
	uint32_t minor, numops;
	xdr_in_init(&in, req, reqlen);
	if (!nfs4_dec_compound_hdr(&in, &tag, &minor, &numops))
		return -EBADMSG;
	if (cap < REPLY_HDR_MIN + xdr_pad(tag.len))
		return -ENOSPC;

	struct xdr_out out;
	xdr_out_init(&out, rep, cap);
	uint8_t *status_at, *count_at;
	nfs4_enc_compound_hdr(&out, &tag, &status_at, &count_at);
	uint32_t status = NFS4_OK, count = 0;
	if (!tnfs_versions_minor_ok(&srv->versions, minor)) {
		status = NFS4ERR_MINOR_VERS_MISMATCH;
		goto done_nostate;
	}

	struct tnfs_ctx c;
	ctx_init(&c, srv, cred, call, minor, numops, reqlen, cap, req_hdr, rep_hdr);
	size_t boff = 0, blen = 0; /* the first READ's data, once it succeeded */
	uint32_t cs = ctx_enter(&c, srv->exp);
	if (cs != NFS4_OK) {
		status = cs;
		goto done_nostate;
	}
	status = compound_ops(&c, &in, &out, rep, cap, &count, &boff, &blen);
	tnfs_fs_unbecome(&c.become);
	tnfs_node_put(&c.cfh);
	tnfs_node_put(&c.sfh);
	if (c.replay)
		return compound_replay(&c, rep, cap, replen);
	nfs4_patch_u32(status_at, status);
	nfs4_patch_u32(count_at, count);
	*replen = (size_t)(out.p - (uint8_t *)rep);
	if (c.have_session)
		/* RFC 8881 2.10.6.1.3: the whole reply when the client asked for
		 * it (a lone SEQUENCE is small and always kept, as Linux does);
		 * otherwise the slot keeps its sequence id only, and a retry
		 * gets NFS4ERR_RETRY_UNCACHED_REP */
		tnfs_state_slot_done(srv->state, c.sessionid, c.slotid, rep, *replen,
				     c.cachethis || numops == 1);
	if (blen) {
		*bulk_off = boff;
		*bulk_len = blen;
	}
	return 0;

done_nostate:
	nfs4_patch_u32(status_at, status);
	nfs4_patch_u32(count_at, count);
	*replen = (size_t)(out.p - (uint8_t *)rep);
	return 0;
}

int tnfs_compound_estimate(const struct tnfs_server *srv, const void *req,
			   size_t reqlen, size_t *total, size_t *bulk)
{
	struct xdr_in in;
	struct xdr_opaque tag;
	uint32_t minor, numops;
	xdr_in_init(&in, req, reqlen);
	*total = 0;
	*bulk = 0;
	if (!nfs4_dec_compound_hdr(&in, &tag, &minor, &numops))
		return -EBADMSG;
	size_t sum = REPLY_HDR_MIN + xdr_pad(tag.len);
	struct tnfs_est e;
	est_init(&e, srv, minor, TNFS_MAX_REQ);
	bool seen_bulk = false;
	for (uint32_t i = 0; i < numops; i++) {
		uint32_t op = xdr_get_u32(&in);
		const struct nfs4_codec *codec = nfs4_codec(op);
		const struct tnfs_op *o = tnfs_op_get(op);
		union nfs4_args a;
		memset(&a, 0, sizeof(a));
		if (in.bad || !op_in_minor(op, minor) || !codec || !o) {
			sum += 8; /* the error result that ends the COMPOUND */
			break;
		}
		if (codec->dec)
			codec->dec(&in, &a);
		if (in.bad) {
			sum += 8;
			break;
		}
		e.room = TNFS_MAX_REQ > sum ? TNFS_MAX_REQ - sum : 0;
		sum += o->estimate(&e, &a);
		/* the one write chunk of a reply carries the first READ's
		 * data only (RFC 8267 section 4.4): later READs stay inline */
		if (o->bulk && !seen_bulk) {
			*bulk = o->bulk(&e, &a);
			seen_bulk = true;
		}
	}
	*total = sum;
	return 0;
}
