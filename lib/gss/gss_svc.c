/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS on the service core (RFC 2203 section 5): the hook the core
 * calls for a call with flavour RPCSEC_GSS.  Control procedures (INIT,
 * CONTINUE_INIT, DESTROY) are answered here; a data call's header
 * checksum, sequence number and (krb5i, krb5p) arguments are checked and
 * unwrapped before its procedure runs, and its reply is sealed afterwards
 * (rpcrdma__gss_seal).  What each failure gets is listed in gss.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gss/gss_int.h"
#include "util/byteorder.h"

struct rpcrdma__gss_call {
	struct rpcrdma__gss_ctx *ctx; /* referenced; NULL before one is found */
	uint32_t xid;                 /* network order */
	uint32_t seq, service, proc;
	struct iovec aiov;            /* krb5i / krb5p: the arguments */
	bool has_aiov;
	uint8_t *lin;                 /* the arguments made contiguous, or NULL */
	gss_buffer_desc plain;        /* krb5p: the unwrapped arguments */
	uint8_t *scratch;             /* the plain reply */
	uint8_t *reply;               /* a control procedure's reply */
	size_t reply_len;
	uint32_t reply_stat;          /* ... its accept_stat */
};

#define W(x) RPCRDMA__BE32(x)

void rpcrdma__gss_call_free(struct rpcrdma__gss_call *g)
{
	OM_uint32 min;
	if (!g)
		return;
	rpcrdma__gss_ctx_put(g->ctx);
	gss_release_buffer(&min, &g->plain);
	free(g->lin);
	free(g->scratch);
	free(g->reply);
	free(g);
}

/* The arguments (after hdr_len bytes of iov) in one piece, at most max
 * bytes: 0 or -EMSGSIZE / -ENOMEM. */
static int linearize(struct rpcrdma__gss_call *g, const struct iovec *iov, unsigned niov,
		     size_t hdr_len, size_t max, const uint8_t **p, size_t *len)
{
	size_t total = 0;
	for (unsigned i = 0; i < niov; i++)
		total += iov[i].iov_len;
	total -= hdr_len;
	if (total > max)
		return -EMSGSIZE;
	*len = total;
	if (niov == 1) {
		*p = (const uint8_t *)iov[0].iov_base + hdr_len;
		return 0;
	}
	if (!(g->lin = malloc(total ? total : 1)))
		return -ENOMEM;
	size_t off = 0, skip = hdr_len;
	for (unsigned i = 0; i < niov; i++) {
		size_t n = iov[i].iov_len;
		if (skip >= n) {
			skip -= n;
			continue;
		}
		memcpy(g->lin + off, (const uint8_t *)iov[i].iov_base + skip, n - skip);
		off += n - skip;
		skip = 0;
	}
	*p = g->lin;
	return 0;
}

/* The checksum of a 4-byte number (ctx->lock held). */
static int mic_u32(struct rpcrdma__gss_ctx *ctx, uint32_t v, gss_buffer_desc *mic)
{
	uint8_t b[4];
	gss_buffer_desc in = {.length = 4, .value = b};
	OM_uint32 maj, min;

	rpcrdma__put_be32(b, v);
	maj = gss_get_mic(&min, ctx->gctx, GSS_C_QOP_DEFAULT, &in, mic);
	if (GSS_ERROR(maj) || mic->length > RPCRDMA__GSS_MIC_MAX) {
		gss_release_buffer(&min, mic);
		return -EACCES;
	}
	return 0;
}

/* xid, REPLY, MSG_ACCEPTED, the verifier, accept_stat. */
static uint8_t *put_accepted(uint8_t *p, uint32_t xid, uint32_t vflavor,
			     const gss_buffer_desc *verf, uint32_t stat)
{
	p = rpcrdma__put_raw32(p, xid);
	p = rpcrdma__put_raw32(p, W(1));
	p = rpcrdma__put_raw32(p, W(0));
	p = rpcrdma__put_be32(p, vflavor);
	p = rpcrdma__gss_put_opaque(p, verf ? verf->value : NULL,
				    verf ? (uint32_t)verf->length : 0);
	return rpcrdma__put_be32(p, stat);
}

/* A control procedure's reply: accept_stat, a verifier, maybe an
 * rpc_gss_init_res. */
static enum rpcrdma__gss_verdict control_reply(struct rpcrdma__gss_call *g, uint32_t stat,
					       const gss_buffer_desc *mic,
					       const struct rpcrdma__gss_init_res *res)
{
	uint32_t vlen = mic ? (uint32_t)mic->length : 0;
	size_t n = 20 + rpcrdma__gss_opaque_len(vlen) + (res ? rpcrdma__gss_init_res_len(res) : 0);

	if (!(g->reply = malloc(n)))
		return RPCRDMA__GSS_V_DROP;
	uint8_t *p = put_accepted(g->reply, g->xid, mic ? RPCRDMA__AUTH_GSS : RPCRDMA_AUTH_NONE,
				  mic, stat);
	if (res && rpcrdma__gss_init_res_encode(p, n - (size_t)(p - g->reply), res) < 0)
		return RPCRDMA__GSS_V_DROP;
	g->reply_len = n;
	g->reply_stat = stat;
	return RPCRDMA__GSS_V_REPLY;
}

/* INIT, CONTINUE_INIT after a good token decode: one accept step. */
static enum rpcrdma__gss_verdict init_step(struct rpcrdma__gss_svc *gs,
					   struct rpcrdma__gss_call *g,
					   const uint8_t *tok, uint32_t tok_len)
{
	struct rpcrdma__gss_ctx *ctx = g->ctx;
	gss_buffer_desc in = {.length = tok_len, .value = (void *)tok};
	gss_buffer_desc out = GSS_C_EMPTY_BUFFER, mic = GSS_C_EMPTY_BUFFER;
	gss_name_t src = GSS_C_NO_NAME;
	gss_OID mech = GSS_C_NO_OID;
	OM_uint32 maj, min, time_rec = 0;
	struct rpcrdma__gss_init_res res = {0};
	bool have_mic = false;

	pthread_mutex_lock(&ctx->lock);
	maj = gss_accept_sec_context(&min, &ctx->gctx, gs->acceptor, &in,
				     GSS_C_NO_CHANNEL_BINDINGS, &src, &mech, &out, NULL,
				     &time_rec, NULL);
	if (maj == GSS_S_COMPLETE && rpcrdma__gss_ctx_map(ctx, src, mech) < 0)
		maj = GSS_S_FAILURE, min = 0;
	if (maj == GSS_S_COMPLETE) {
		rpcrdma__gss_seqwin_init(&ctx->win, gs->opts.window);
		res.window = ctx->win.size;
		if (mic_u32(ctx, res.window, &mic) == 0)
			have_mic = true;
		else
			maj = GSS_S_FAILURE, min = 0;
	}
	pthread_mutex_unlock(&ctx->lock);
	res.major = maj;
	res.minor = min;
	res.token = out.value;
	res.token_len = (uint32_t)out.length;
	if (maj == GSS_S_COMPLETE || maj == GSS_S_CONTINUE_NEEDED) {
		res.handle = ctx->handle;
		res.handle_len = RPCRDMA__GSS_HANDLE_LEN;
	}
	if (maj == GSS_S_COMPLETE)
		rpcrdma__gss_ctx_complete(ctx, time_rec);
	else if (maj != GSS_S_CONTINUE_NEEDED)
		rpcrdma__gss_ctx_unlink(ctx);
	enum rpcrdma__gss_verdict v =
		control_reply(g, RPCRDMA_SVC_SUCCESS, have_mic ? &mic : NULL, &res);
	gss_release_buffer(&min, &out);
	gss_release_buffer(&min, &mic);
	gss_release_name(&min, &src);
	return v;
}

static enum rpcrdma__gss_verdict do_init(struct rpcrdma__gss_svc *gs,
					 struct rpcrdma__gss_call *g,
					 const struct rpcrdma__gss_cred *gc,
					 const struct iovec *iov, unsigned niov,
					 struct rpcrdma__gss_hdr *h, const struct sockaddr *peer,
					 socklen_t peer_len)
{
	const uint8_t *args, *tok;
	size_t alen;
	uint32_t tok_len;

	if (linearize(g, iov, niov, h->len, RPCRDMA__GSS_TOKEN_MAX + 4, &args, &alen) ||
	    rpcrdma__gss_init_arg_decode(args, alen, &tok, &tok_len))
		return control_reply(g, RPCRDMA_SVC_GARBAGE_ARGS, NULL, NULL);
	if (gc->proc == RPCRDMA__GSS_INIT) {
		g->ctx = rpcrdma__gss_ctx_new(gs, peer, peer_len);
		if (!g->ctx)
			return control_reply(g, RPCRDMA_SVC_SYSTEM_ERR, NULL, NULL);
	} else {
		g->ctx = rpcrdma__gss_ctx_find(gs, gc->handle, gc->handle_len, false);
		if (!g->ctx)
			goto out_credproblem;
	}
	return init_step(gs, g, tok, tok_len);
out_credproblem:
	h->auth_stat = RPCRDMA__AUTH_GSS_CREDPROBLEM;
	return RPCRDMA__GSS_V_AUTH;
}

/* krb5i: rpc_gss_integ_data, its checksum and sequence number. */
static enum rpcrdma__gss_verdict unwrap_integ(struct rpcrdma__gss_call *g, const uint8_t *a,
					      size_t alen)
{
	const uint8_t *body, *mic;
	uint32_t blen, mlen, seq;
	OM_uint32 maj, min;

	if (rpcrdma__gss_integ_decode(a, alen, &body, &blen, &mic, &mlen))
		return RPCRDMA__GSS_V_GARBAGE;
	gss_buffer_desc b = {.length = blen, .value = (void *)body};
	gss_buffer_desc m = {.length = mlen, .value = (void *)mic};
	pthread_mutex_lock(&g->ctx->lock);
	maj = gss_verify_mic(&min, g->ctx->gctx, &b, &m, NULL);
	pthread_mutex_unlock(&g->ctx->lock);
	if (GSS_ERROR(maj) || rpcrdma__gss_body_seq(body, blen, &seq) || seq != g->seq)
		return RPCRDMA__GSS_V_GARBAGE;
	g->aiov.iov_base = (void *)(body + 4);
	g->aiov.iov_len = blen - 4;
	g->has_aiov = true;
	return RPCRDMA__GSS_V_DATA;
}

/* krb5p: rpc_gss_priv_data, unwrapped (it must have been encrypted). */
static enum rpcrdma__gss_verdict unwrap_priv(struct rpcrdma__gss_call *g, const uint8_t *a,
					     size_t alen)
{
	const uint8_t *tok;
	uint32_t tlen, seq;
	OM_uint32 maj, min;
	int conf = 0;

	if (rpcrdma__gss_priv_decode(a, alen, &tok, &tlen))
		return RPCRDMA__GSS_V_GARBAGE;
	gss_buffer_desc in = {.length = tlen, .value = (void *)tok};
	pthread_mutex_lock(&g->ctx->lock);
	maj = gss_unwrap(&min, g->ctx->gctx, &in, &g->plain, &conf, NULL);
	pthread_mutex_unlock(&g->ctx->lock);
	if (GSS_ERROR(maj) || !conf ||
	    rpcrdma__gss_body_seq(g->plain.value, g->plain.length, &seq) || seq != g->seq)
		return RPCRDMA__GSS_V_GARBAGE;
	g->aiov.iov_base = (uint8_t *)g->plain.value + 4;
	g->aiov.iov_len = g->plain.length - 4;
	g->has_aiov = true;
	return RPCRDMA__GSS_V_DATA;
}

/* DESTROY, verified: a SUCCESS reply with void results, then the context
 * goes. */
static enum rpcrdma__gss_verdict destroy(struct rpcrdma__gss_call *g)
{
	gss_buffer_desc mic = GSS_C_EMPTY_BUFFER;
	OM_uint32 min;

	pthread_mutex_lock(&g->ctx->lock);
	int rc = mic_u32(g->ctx, g->seq, &mic);
	pthread_mutex_unlock(&g->ctx->lock);
	enum rpcrdma__gss_verdict v = rc ? RPCRDMA__GSS_V_DROP
					 : control_reply(g, RPCRDMA_SVC_SUCCESS, &mic, NULL);
	gss_release_buffer(&min, &mic);
	rpcrdma__gss_ctx_unlink(g->ctx);
	pthread_mutex_lock(&g->ctx->gs->lock);
	g->ctx->gs->n_destroyed++;
	pthread_mutex_unlock(&g->ctx->gs->lock);
	return v;
}

static enum rpcrdma__gss_verdict do_data(struct rpcrdma__gss_svc *gs,
					 struct rpcrdma__gss_call *g,
					 const struct rpcrdma__gss_cred *gc,
					 const struct iovec *iov, unsigned niov,
					 struct rpcrdma__gss_hdr *h)
{
	OM_uint32 maj, min;
	const uint8_t *a;
	size_t alen;

	if (gc->service < RPCRDMA__GSS_SVC_NONE || gc->service > RPCRDMA__GSS_SVC_PRIVACY)
		goto out_badcred;
	if (h->vflavor != RPCRDMA__AUTH_GSS)
		goto out_badverf;
	g->ctx = rpcrdma__gss_ctx_find(gs, gc->handle, gc->handle_len, true);
	if (!g->ctx)
		goto out_credproblem;
	gss_buffer_desc hdr = {.length = h->cred_end, .value = iov[0].iov_base};
	gss_buffer_desc verf = {.length = h->vlen, .value = (void *)h->verf};
	pthread_mutex_lock(&g->ctx->lock);
	maj = gss_verify_mic(&min, g->ctx->gctx, &hdr, &verf, NULL);
	enum rpcrdma__gss_seq_verdict sv = RPCRDMA__GSS_SEQ_DROP;
	if (!GSS_ERROR(maj))
		sv = rpcrdma__gss_seqwin_check(&g->ctx->win, gc->seq);
	pthread_mutex_unlock(&g->ctx->lock);
	if (GSS_ERROR(maj))
		goto out_credproblem;
	if (sv == RPCRDMA__GSS_SEQ_DROP) {
		pthread_mutex_lock(&gs->lock);
		gs->n_replays++;
		pthread_mutex_unlock(&gs->lock);
		return RPCRDMA__GSS_V_DROP;
	}
	if (sv == RPCRDMA__GSS_SEQ_CTXPROBLEM)
		goto out_ctxproblem;
	h->cred = g->ctx->cred;
	if (gc->proc == RPCRDMA__GSS_DESTROY)
		return destroy(g);
	if (gc->service == RPCRDMA__GSS_SVC_NONE)
		return RPCRDMA__GSS_V_DATA;
	if (linearize(g, iov, niov, h->len, SIZE_MAX, &a, &alen))
		return RPCRDMA__GSS_V_GARBAGE;
	return gc->service == RPCRDMA__GSS_SVC_INTEGRITY ? unwrap_integ(g, a, alen)
							 : unwrap_priv(g, a, alen);
out_badcred:
	h->auth_stat = RPCRDMA_AUTH_BADCRED;
	return RPCRDMA__GSS_V_AUTH;
out_badverf:
	h->auth_stat = RPCRDMA_AUTH_BADVERF;
	return RPCRDMA__GSS_V_AUTH;
out_credproblem:
	h->auth_stat = RPCRDMA__AUTH_GSS_CREDPROBLEM;
	return RPCRDMA__GSS_V_AUTH;
out_ctxproblem:
	h->auth_stat = RPCRDMA__AUTH_GSS_CTXPROBLEM;
	return RPCRDMA__GSS_V_AUTH;
}

/* The verdict's counters (CREDPROBLEM, CTXPROBLEM, GARBAGE_ARGS sent). */
static void count(struct rpcrdma__gss_svc *gs, enum rpcrdma__gss_verdict v, uint32_t auth_stat)
{
	uint64_t *n = NULL;

	if (v == RPCRDMA__GSS_V_GARBAGE)
		n = &gs->n_garbage;
	else if (v == RPCRDMA__GSS_V_AUTH && auth_stat == RPCRDMA__AUTH_GSS_CREDPROBLEM)
		n = &gs->n_credproblem;
	else if (v == RPCRDMA__GSS_V_AUTH && auth_stat == RPCRDMA__AUTH_GSS_CTXPROBLEM)
		n = &gs->n_ctxproblem;
	if (!n)
		return;
	pthread_mutex_lock(&gs->lock);
	(*n)++;
	pthread_mutex_unlock(&gs->lock);
}

enum rpcrdma__gss_verdict rpcrdma__gss_svc_accept(struct rpcrdma__gss_svc *gs,
						  const struct iovec *iov, unsigned niov,
						  struct rpcrdma__gss_hdr *h,
						  const struct sockaddr *peer, socklen_t peer_len,
						  struct rpcrdma__gss_call **out)
{
	struct rpcrdma__gss_cred gc;
	enum rpcrdma__gss_verdict v;

	*out = NULL;
	if (rpcrdma__gss_cred_decode(h->cred_body, h->cred_len, &gc)) {
		h->auth_stat = RPCRDMA_AUTH_BADCRED; /* svc_auth.c checked it already */
		return RPCRDMA__GSS_V_AUTH;
	}
	struct rpcrdma__gss_call *g = calloc(1, sizeof(*g));
	if (!g)
		return RPCRDMA__GSS_V_DROP;
	g->xid = h->xid;
	g->seq = gc.seq;
	g->service = gc.service;
	g->proc = gc.proc;
	switch (gc.proc) {
	case RPCRDMA__GSS_INIT:
	case RPCRDMA__GSS_CONTINUE_INIT:
		v = do_init(gs, g, &gc, iov, niov, h, peer, peer_len);
		break;
	case RPCRDMA__GSS_DATA:
	case RPCRDMA__GSS_DESTROY:
		v = do_data(gs, g, &gc, iov, niov, h);
		break;
	default:
		h->auth_stat = RPCRDMA_AUTH_BADCRED;
		v = RPCRDMA__GSS_V_AUTH;
		break;
	}
	count(gs, v, h->auth_stat);
	if (v == RPCRDMA__GSS_V_AUTH || v == RPCRDMA__GSS_V_DROP)
		rpcrdma__gss_call_free(g);
	else
		*out = g;
	return v;
}

void rpcrdma__gss_svc_stats(struct rpcrdma__gss_svc *gs, struct rpcrdma_svc_gss_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!gs)
		return;
	pthread_mutex_lock(&gs->lock);
	st->contexts_created = gs->n_created;
	st->contexts_destroyed = gs->n_destroyed;
	st->contexts_evicted = gs->n_evicted;
	st->contexts_expired = gs->n_expired;
	st->contexts_now = gs->nctx;
	st->credproblem_sent = gs->n_credproblem;
	st->ctxproblem_sent = gs->n_ctxproblem;
	st->replays_dropped = gs->n_replays;
	st->garbage_args = gs->n_garbage;
	pthread_mutex_unlock(&gs->lock);
}

void rpcrdma__gss_call_args(const struct rpcrdma__gss_call *g, const struct iovec *iov,
			    unsigned niov, size_t hdr_len, const struct iovec **aiov,
			    unsigned *aniov, size_t *skip)
{
	if (g && g->has_aiov) {
		*aiov = &g->aiov;
		*aniov = 1;
		*skip = 0;
	} else {
		*aiov = iov;
		*aniov = niov;
		*skip = hdr_len;
	}
}

const uint8_t *rpcrdma__gss_call_reply(const struct rpcrdma__gss_call *g, size_t *len,
				       uint32_t *stat)
{
	*len = g->reply_len;
	*stat = g->reply_stat;
	return g->reply;
}

uint8_t *rpcrdma__gss_call_scratch(struct rpcrdma__gss_call *g, size_t len)
{
	free(g->scratch);
	g->scratch = malloc(len ? len : 1);
	return g->scratch;
}

bool rpcrdma__gss_call_bulk_ok(const struct rpcrdma__gss_call *g)
{
	return !g || g->service == RPCRDMA__GSS_SVC_NONE;
}

/* ------------------------------------------------------------ replies */

/* SUCCESS results, framed for the service at p (room bytes): body is the
 * sequence number followed by the results (blen bytes).  Returns the
 * framed length, 0 when it does not fit or GSS-API fails (ctx->lock
 * held). */
static size_t frame_results(struct rpcrdma__gss_call *g, uint8_t *body, size_t blen,
			    uint8_t *p, size_t room)
{
	gss_buffer_desc in = {.length = blen, .value = body}, tok = GSS_C_EMPTY_BUFFER;
	OM_uint32 maj, min;
	size_t n = 0;
	int conf = 0;

	if (g->service == RPCRDMA__GSS_SVC_NONE) {
		if (blen - 4 <= room) {
			memcpy(p, body + 4, blen - 4);
			n = blen - 4;
		}
		return n;
	}
	if (blen > UINT32_MAX - 8)
		return 0;
	if (g->service == RPCRDMA__GSS_SVC_INTEGRITY) {
		maj = gss_get_mic(&min, g->ctx->gctx, GSS_C_QOP_DEFAULT, &in, &tok);
		if (GSS_ERROR(maj) || room < 4 + blen)
			goto out;
		memcpy(p + 4, body, blen);
		int r = rpcrdma__gss_integ_frame(p, room, (uint32_t)blen, tok.value,
						 (uint32_t)tok.length);
		n = r < 0 ? 0 : (size_t)r;
	} else {
		maj = gss_wrap(&min, g->ctx->gctx, 1, GSS_C_QOP_DEFAULT, &in, &conf, &tok);
		if (GSS_ERROR(maj) || !conf || tok.length > UINT32_MAX - 8 ||
		    rpcrdma__gss_opaque_len((uint32_t)tok.length) > room)
			goto out;
		rpcrdma__gss_put_opaque(p, tok.value, (uint32_t)tok.length);
		n = rpcrdma__gss_opaque_len((uint32_t)tok.length);
	}
out:
	gss_release_buffer(&min, &tok);
	return n;
}

size_t rpcrdma__gss_seal(struct rpcrdma__gss_call *g, uint8_t *plain, size_t plain_len,
			 uint8_t *out, size_t room)
{
	gss_buffer_desc mic = GSS_C_EMPTY_BUFFER;
	OM_uint32 min;
	size_t n = 0;

	if (plain_len < RPCRDMA_SVC_REPLY_HDR_LEN || !g->ctx)
		return 0;
	uint32_t stat = rpcrdma__get_be32(plain + 20);
	pthread_mutex_lock(&g->ctx->lock);
	if (mic_u32(g->ctx, g->seq, &mic))
		goto out;
	size_t hlen = 20 + rpcrdma__gss_opaque_len((uint32_t)mic.length);
	if (room < hlen)
		goto out;
	uint8_t *p = put_accepted(out, g->xid, RPCRDMA__AUTH_GSS, &mic, stat);
	n = hlen;
	if (stat == RPCRDMA_SVC_SUCCESS) {
		/* the sequence number goes where accept_stat was, right
		 * before the results: one piece to checksum or wrap */
		rpcrdma__put_be32(plain + 20, g->seq);
		size_t r = frame_results(g, plain + 20, plain_len - 20, p, room - hlen);
		if (r == 0 && !(g->service == RPCRDMA__GSS_SVC_NONE && plain_len == 24))
			n = 0;
		else
			n += r;
	} else if (plain_len - RPCRDMA_SVC_REPLY_HDR_LEN <= room - hlen) {
		/* PROG_MISMATCH's low and high */
		memcpy(p, plain + RPCRDMA_SVC_REPLY_HDR_LEN,
		       plain_len - RPCRDMA_SVC_REPLY_HDR_LEN);
		n += plain_len - RPCRDMA_SVC_REPLY_HDR_LEN;
	} else {
		n = 0;
	}
out:
	pthread_mutex_unlock(&g->ctx->lock);
	gss_release_buffer(&min, &mic);
	return n;
}

/* ------------------------------------------ for the service's API */

const char *rpcrdma__gss_call_principal(const struct rpcrdma__gss_call *g)
{
	return g && g->ctx ? g->ctx->principal : NULL;
}

int rpcrdma__gss_call_service(const struct rpcrdma__gss_call *g)
{
	return g ? (int)g->service : 0;
}
