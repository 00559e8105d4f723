/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS on the RPC client (RFC 2203 section 5): context creation
 * with the client's own calls (INIT / CONTINUE_INIT to procedure 0 of its
 * program), then for every call a credential with the next sequence
 * number and a verifier that checksums the header, krb5i / krb5p
 * arguments framed, and the reply's verifier (a checksum of the sequence
 * number) and results checked or decrypted before the caller's decoder
 * runs.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#include "clnt/clnt_int.h"
#include "gss/gss_int.h"
#include "svc/svc_int.h"

struct rpcrdma__gss_clnt {
	gss_ctx_id_t gctx;
	pthread_mutex_t lock;       /* gctx */
	uint8_t handle[RPCRDMA__GSS_HANDLE_MAX];
	uint32_t handle_len;
	uint32_t service;
	_Atomic uint32_t seq;       /* the last one used */
};

void rpcrdma__gss_clnt_free(struct rpcrdma__gss_clnt *g)
{
	OM_uint32 min;
	if (!g)
		return;
	if (g->gctx != GSS_C_NO_CONTEXT)
		gss_delete_sec_context(&min, &g->gctx, GSS_C_NO_BUFFER);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

int rpcrdma__gss_clnt_cred(struct rpcrdma__gss_clnt *g, const uint8_t *hdr, uint8_t *q,
			   size_t room, uint32_t *seq)
{
	struct rpcrdma__gss_cred gc = {.proc = RPCRDMA__GSS_DATA, .service = g->service,
				       .handle = g->handle, .handle_len = g->handle_len};
	gss_buffer_desc in, mic = GSS_C_EMPTY_BUFFER;
	OM_uint32 maj, min;
	size_t clen = rpcrdma__gss_cred_len(g->handle_len);

	gc.seq = atomic_fetch_add(&g->seq, 1) + 1;
	if (gc.seq >= RPCRDMA__GSS_MAXSEQ)
		return -EKEYEXPIRED; /* a new context is needed */
	if (room < 8 + clen)
		return -EMSGSIZE;
	uint8_t *p = rpcrdma__put_be32(q, RPCRDMA__AUTH_GSS);
	p = rpcrdma__put_be32(p, (uint32_t)clen);
	p += rpcrdma__gss_cred_encode(p, clen, &gc);
	in.length = (size_t)(p - hdr);
	in.value = (void *)hdr;
	pthread_mutex_lock(&g->lock);
	maj = gss_get_mic(&min, g->gctx, GSS_C_QOP_DEFAULT, &in, &mic);
	pthread_mutex_unlock(&g->lock);
	if (GSS_ERROR(maj) || mic.length > RPCRDMA__GSS_MIC_MAX ||
	    (size_t)(q + room - p) < 4 + rpcrdma__gss_opaque_len((uint32_t)mic.length)) {
		gss_release_buffer(&min, &mic);
		return GSS_ERROR(maj) ? -EKEYREJECTED : -EMSGSIZE;
	}
	p = rpcrdma__put_be32(p, RPCRDMA__AUTH_GSS);
	p = rpcrdma__gss_put_opaque(p, mic.value, (uint32_t)mic.length);
	gss_release_buffer(&min, &mic);
	*seq = gc.seq;
	return (int)(p - q);
}

bool rpcrdma__gss_clnt_wraps(const struct rpcrdma__gss_clnt *g)
{
	return g && g->service != RPCRDMA__GSS_SVC_NONE;
}

int rpcrdma__gss_clnt_wrap(struct rpcrdma__gss_clnt *g, uint32_t seq, const uint8_t *args,
			   size_t len, uint8_t **out, size_t *out_len)
{
	gss_buffer_desc in, tok = GSS_C_EMPTY_BUFFER;
	OM_uint32 maj, min;
	int conf = 0, rc = -EKEYREJECTED;

	if (len > UINT32_MAX - 1024)
		return -EMSGSIZE;
	uint8_t *body = malloc(4 + len);
	if (!body)
		return -ENOMEM;
	rpcrdma__put_be32(body, seq);
	if (len)
		memcpy(body + 4, args, len);
	in.length = 4 + len;
	in.value = body;
	pthread_mutex_lock(&g->lock);
	if (g->service == RPCRDMA__GSS_SVC_INTEGRITY)
		maj = gss_get_mic(&min, g->gctx, GSS_C_QOP_DEFAULT, &in, &tok);
	else
		maj = gss_wrap(&min, g->gctx, 1, GSS_C_QOP_DEFAULT, &in, &conf, &tok);
	pthread_mutex_unlock(&g->lock);
	if (GSS_ERROR(maj) || tok.length > RPCRDMA__GSS_TOKEN_MAX * 64 ||
	    (g->service == RPCRDMA__GSS_SVC_PRIVACY && !conf))
		goto out;
	size_t n = g->service == RPCRDMA__GSS_SVC_INTEGRITY
			   ? rpcrdma__gss_opaque_len((uint32_t)in.length) +
				     rpcrdma__gss_opaque_len((uint32_t)tok.length)
			   : rpcrdma__gss_opaque_len((uint32_t)tok.length);
	rc = -ENOMEM;
	if (!(*out = malloc(n)))
		goto out;
	if (g->service == RPCRDMA__GSS_SVC_INTEGRITY) {
		uint8_t *p = rpcrdma__gss_put_opaque(*out, body, (uint32_t)in.length);
		rpcrdma__gss_put_opaque(p, tok.value, (uint32_t)tok.length);
	} else {
		rpcrdma__gss_put_opaque(*out, tok.value, (uint32_t)tok.length);
	}
	*out_len = n;
	rc = 0;
out:
	gss_release_buffer(&min, &tok);
	free(body);
	return rc;
}

/* The reply's verifier: RPCSEC_GSS, a MIC of seq (g->lock held). */
static int check_verf(struct rpcrdma__gss_clnt *g, uint32_t seq, const uint8_t *buf,
		      size_t len)
{
	const uint8_t *v;
	uint32_t vlen;
	uint8_t b[4];
	OM_uint32 min;

	if (len < 20 || rpcrdma__get_be32(buf + 12) != RPCRDMA__AUTH_GSS ||
	    !rpcrdma__gss_get_opaque(buf + 16, buf + len, RPCRDMA__GSS_MIC_MAX, &v, &vlen))
		return -EBADMSG;
	rpcrdma__put_be32(b, seq);
	gss_buffer_desc in = {.length = 4, .value = b}, tok = {.length = vlen, .value = (void *)v};
	return GSS_ERROR(gss_verify_mic(&min, g->gctx, &in, &tok, NULL)) ? -EBADMSG : 0;
}

int rpcrdma__gss_clnt_reply(struct rpcrdma__gss_clnt *g, uint32_t seq, const uint8_t *buf,
			    size_t len, size_t body, bool success, const uint8_t **res,
			    size_t *res_len, void **owned)
{
	gss_buffer_desc in, plain = GSS_C_EMPTY_BUFFER, tok;
	const uint8_t *b, *m;
	uint32_t blen, mlen, s;
	OM_uint32 maj, min;
	int conf = 0, rc = -EBADMSG;

	*owned = NULL;
	*res = buf + body;
	*res_len = len - body;
	pthread_mutex_lock(&g->lock);
	rc = check_verf(g, seq, buf, len);
	if (rc || !success || g->service == RPCRDMA__GSS_SVC_NONE)
		goto out;
	rc = -EBADMSG;
	if (g->service == RPCRDMA__GSS_SVC_INTEGRITY) {
		if (rpcrdma__gss_integ_decode(*res, *res_len, &b, &blen, &m, &mlen))
			goto out;
		in.length = blen, in.value = (void *)b;
		tok.length = mlen, tok.value = (void *)m;
		maj = gss_verify_mic(&min, g->gctx, &in, &tok, NULL);
		if (GSS_ERROR(maj) || rpcrdma__gss_body_seq(b, blen, &s) || s != seq)
			goto out;
		*res = b + 4;
		*res_len = blen - 4;
		rc = 0;
		goto out;
	}
	if (rpcrdma__gss_priv_decode(*res, *res_len, &b, &blen))
		goto out;
	in.length = blen, in.value = (void *)b;
	maj = gss_unwrap(&min, g->gctx, &in, &plain, &conf, NULL);
	if (GSS_ERROR(maj) || !conf || rpcrdma__gss_body_seq(plain.value, plain.length, &s) ||
	    s != seq || !(*owned = malloc(plain.length)))
		goto out;
	memcpy(*owned, plain.value, plain.length);
	*res = (const uint8_t *)*owned + 4;
	*res_len = plain.length - 4;
	rc = 0;
out:
	pthread_mutex_unlock(&g->lock);
	gss_release_buffer(&min, &plain);
	return rc;
}

/* ------------------------------------------------- context creation */

struct init_io {
	struct rpcrdma__gss_init_res res; /* points into copy */
	uint8_t *copy;
};

static int enc_token(struct rpcrdma_xdr_enc *e, const void *args)
{
	const gss_buffer_desc *t = args;
	return rpcrdma_xdr_put_opaque(e, t->value, t->length);
}

static int dec_init_res(struct rpcrdma_xdr_dec *d, void *res)
{
	struct init_io *io = res;
	size_t n = rpcrdma_xdr_dec_left(d);

	if (n > RPCRDMA__GSS_TOKEN_MAX + 1024 || n % 4 || !(io->copy = malloc(n ? n : 4)) ||
	    rpcrdma_xdr_get_fixed(d, io->copy, n))
		return -EBADMSG;
	return rpcrdma__gss_init_res_decode(io->copy, n, &io->res);
}

/* One INIT or CONTINUE_INIT call carrying tok; the server's answer in io
 * (c->cred holds the control credential meanwhile). */
static int init_call(struct rpcrdma_clnt *c, struct rpcrdma__gss_clnt *g, bool first,
		     const gss_buffer_desc *tok, struct init_io *io)
{
	struct rpcrdma__gss_cred gc = {.proc = first ? RPCRDMA__GSS_INIT
						     : RPCRDMA__GSS_CONTINUE_INIT,
				       .service = g->service, .handle = g->handle,
				       .handle_len = first ? 0 : g->handle_len};
	struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = 0, .encode = enc_token,
				       .args = tok, .decode = dec_init_res, .res = io};
	size_t clen = rpcrdma__gss_cred_len(gc.handle_len);

	if (tok->length > RPCRDMA__GSS_TOKEN_MAX)
		return -EMSGSIZE;
	req.args_max = rpcrdma__gss_opaque_len((uint32_t)tok->length);
	req.res_max = RPCRDMA__CLNT_HDR_MAX + RPCRDMA__GSS_TOKEN_MAX + 1024;
	pthread_mutex_lock(&c->auth_lock);
	uint8_t *p = rpcrdma__put_be32(c->cred, RPCRDMA__AUTH_GSS);
	p = rpcrdma__put_be32(p, (uint32_t)clen);
	rpcrdma__gss_cred_encode(p, clen, &gc);
	c->cred_len = 8 + clen;
	pthread_mutex_unlock(&c->auth_lock);
	free(io->copy);
	memset(io, 0, sizeof(*io));
	int rc = rpcrdma_clnt_call(c, &req);
	if (rc)
		return rc;
	if (io->res.major != GSS_S_COMPLETE && io->res.major != GSS_S_CONTINUE_NEEDED)
		return -EACCES;
	if (!io->res.handle_len)
		return -EBADMSG;
	memcpy(g->handle, io->res.handle, io->res.handle_len);
	g->handle_len = io->res.handle_len;
	return 0;
}

/* gss_init_sec_context rounds until both sides are done. */
static int establish(struct rpcrdma_clnt *c, struct rpcrdma__gss_clnt *g, gss_cred_id_t cred,
		     gss_name_t name)
{
	gss_buffer_desc in = GSS_C_EMPTY_BUFFER, out = GSS_C_EMPTY_BUFFER;
	struct init_io io = {0};
	OM_uint32 maj, min;
	int rc = -EACCES;

	for (int round = 0; round < 8; round++) {
		maj = gss_init_sec_context(&min, cred, &g->gctx, name, (gss_OID)gss_mech_krb5,
					   GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG |
						   GSS_C_CONF_FLAG | GSS_C_SEQUENCE_FLAG,
					   0, GSS_C_NO_CHANNEL_BINDINGS, &in, NULL, &out, NULL,
					   NULL);
		if (GSS_ERROR(maj))
			break;
		if (out.length) {
			rc = init_call(c, g, round == 0, &out, &io);
			gss_release_buffer(&min, &out);
			if (rc)
				break;
			rc = -EACCES;
		}
		if (maj == GSS_S_COMPLETE) {
			if (io.res.major == GSS_S_COMPLETE)
				rc = 0;
			break;
		}
		in.length = io.res.token_len;
		in.value = (void *)io.res.token;
	}
	free(io.copy);
	return rc;
}

void rpcrdma_clnt_gss_opts_init(struct rpcrdma_clnt_gss_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

static int acquire_init(const char *ccache, gss_cred_id_t *cred)
{
	gss_key_value_element_desc el = {.key = "ccache", .value = ccache};
	gss_key_value_set_desc store = {.count = 1, .elements = &el};
	gss_OID_set_desc mechs = {.count = 1, .elements = (gss_OID)gss_mech_krb5};
	OM_uint32 maj, min;

	*cred = GSS_C_NO_CREDENTIAL;
	if (!ccache)
		return 0;
	maj = gss_acquire_cred_from(&min, GSS_C_NO_NAME, GSS_C_INDEFINITE, &mechs,
				    GSS_C_INITIATE, &store, cred, NULL, NULL);
	return GSS_ERROR(maj) ? -ENOKEY : 0;
}

int rpcrdma_clnt_set_auth_gss(struct rpcrdma_clnt *c, const struct rpcrdma_clnt_gss_opts *opts)
{
	struct rpcrdma_clnt_gss_opts o;
	gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
	gss_name_t name = GSS_C_NO_NAME;
	OM_uint32 min;
	int rc;

	if (!c || !opts || opts->size < sizeof(opts->size))
		return -EINVAL;
	rpcrdma_clnt_gss_opts_init(&o);
	memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (!o.target || o.service < 0 || o.service > RPCRDMA_GSS_SVC_PRIVACY ||
	    strcmp(c->netid, "udp") == 0 || strcmp(c->netid, "udp6") == 0)
		return -EINVAL;
	struct rpcrdma__gss_clnt *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	uint8_t saved[sizeof(c->cred)];
	pthread_mutex_lock(&c->auth_lock);
	size_t saved_len = c->cred_len;
	memcpy(saved, c->cred, saved_len);
	struct rpcrdma__gss_clnt *old = c->gss; /* the INIT calls go without it */
	c->gss = NULL;
	pthread_mutex_unlock(&c->auth_lock);
	pthread_mutex_init(&g->lock, NULL);
	g->gctx = GSS_C_NO_CONTEXT;
	g->service = o.service ? (uint32_t)o.service : RPCRDMA_GSS_SVC_NONE;
	gss_buffer_desc nb = {.length = strlen(o.target), .value = (void *)o.target};
	rc = acquire_init(o.ccache, &cred);
	if (!rc && GSS_ERROR(gss_import_name(&min, &nb, GSS_C_NT_HOSTBASED_SERVICE, &name)))
		rc = -EINVAL;
	if (!rc)
		rc = establish(c, g, cred, name);
	gss_release_name(&min, &name);
	gss_release_cred(&min, &cred);
	pthread_mutex_lock(&c->auth_lock);
	memcpy(c->cred, saved, saved_len); /* the control credential goes */
	c->cred_len = saved_len;
	c->gss = rc ? old : g;
	if (!rc)
		g = old;
	pthread_mutex_unlock(&c->auth_lock);
	rpcrdma__gss_clnt_free(g);
	return rc;
}
