/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS on the RPC client (RFC 2203 section 5), the GSS-API steps:
 * context creation's tokens and control credentials (lib/clnt/clnt_gss.c
 * makes the INIT / CONTINUE_INIT calls to procedure 0 of its program),
 * then for every call a credential with the next sequence number and a
 * verifier that checksums the header, krb5i / krb5p arguments framed, and
 * the reply's verifier (a checksum of the sequence number) and results
 * checked or decrypted before the caller's decoder runs.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#include "gss/gss_int.h"
#include "util/byteorder.h"

struct rpcrdma__gss_clnt {
	gss_ctx_id_t gctx;
	pthread_mutex_t lock;       /* gctx */
	uint8_t handle[RPCRDMA__GSS_HANDLE_MAX];
	uint32_t handle_len;
	uint32_t service;
	_Atomic uint32_t seq;       /* the last one used */
	gss_cred_id_t icred;        /* until the context is made */
	gss_name_t target;          /* the same */
};

static void release_init(struct rpcrdma__gss_clnt *g)
{
	OM_uint32 min;

	gss_release_name(&min, &g->target);
	gss_release_cred(&min, &g->icred);
}

void rpcrdma__gss_clnt_free(struct rpcrdma__gss_clnt *g)
{
	OM_uint32 min;
	if (!g)
		return;
	if (g->gctx != GSS_C_NO_CONTEXT)
		gss_delete_sec_context(&min, &g->gctx, GSS_C_NO_BUFFER);
	release_init(g);
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

/* The initiator's credentials: of ccache, or got with the keys of a client
 * keytab (into ccache, else a memory cache named after g), or (neither)
 * GSS-API's default. */
static int acquire_init(struct rpcrdma__gss_clnt *g, const char *ccache, const char *keytab)
{
	char mem[64];
	gss_key_value_element_desc el[2];
	gss_key_value_set_desc store = {.count = 0, .elements = el};
	gss_OID_set_desc mechs = {.count = 1, .elements = (gss_OID)gss_mech_krb5};
	OM_uint32 maj, min;

	g->icred = GSS_C_NO_CREDENTIAL;
	if (!ccache && !keytab)
		return 0;
	if (keytab && !ccache) {
		snprintf(mem, sizeof(mem), "MEMORY:rpcrdma-gss-%p", (void *)g);
		ccache = mem;
	}
	el[store.count++] = (gss_key_value_element_desc){.key = "ccache", .value = ccache};
	if (keytab)
		el[store.count++] = (gss_key_value_element_desc){.key = "client_keytab",
								 .value = keytab};
	maj = gss_acquire_cred_from(&min, GSS_C_NO_NAME, GSS_C_INDEFINITE, &mechs,
				    GSS_C_INITIATE, &store, &g->icred, NULL, NULL);
	return GSS_ERROR(maj) ? -ENOKEY : 0;
}

int rpcrdma__gss_clnt_new(const char *target, const char *ccache, const char *keytab,
			  uint32_t service, struct rpcrdma__gss_clnt **out)
{
	OM_uint32 min;
	int rc;

	*out = NULL;
	struct rpcrdma__gss_clnt *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	pthread_mutex_init(&g->lock, NULL);
	g->gctx = GSS_C_NO_CONTEXT;
	g->icred = GSS_C_NO_CREDENTIAL;
	g->target = GSS_C_NO_NAME;
	g->service = service;
	gss_buffer_desc nb = {.length = strlen(target), .value = (void *)target};
	rc = acquire_init(g, ccache, keytab);
	if (!rc && GSS_ERROR(gss_import_name(&min, &nb, GSS_C_NT_HOSTBASED_SERVICE, &g->target)))
		rc = -EINVAL;
	if (rc) {
		rpcrdma__gss_clnt_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int rpcrdma__gss_clnt_step(struct rpcrdma__gss_clnt *g, const uint8_t *in, size_t in_len,
			   uint8_t **out, size_t *out_len)
{
	gss_buffer_desc itok = {.length = in_len, .value = (void *)in};
	gss_buffer_desc otok = GSS_C_EMPTY_BUFFER;
	OM_uint32 maj, min;

	*out = NULL;
	*out_len = 0;
	/* RFC 2203 5.2.2: replay_det_req_flag and sequence_req_flag off --
	 * RPCSEC_GSS has its own window, and an acceptor that checks token
	 * order (libtirpc's svc_auth_gss wants GSS_S_COMPLETE exactly) would
	 * refuse a call after a token it never verified (GSS_S_GAP_TOKEN). */
	maj = gss_init_sec_context(&min, g->icred, &g->gctx, g->target, (gss_OID)gss_mech_krb5,
				   GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG | GSS_C_CONF_FLAG, 0,
				   GSS_C_NO_CHANNEL_BINDINGS, &itok, NULL, &otok, NULL, NULL);
	if (GSS_ERROR(maj))
		return -EACCES;
	if (otok.length && !(*out = malloc(otok.length))) {
		gss_release_buffer(&min, &otok);
		return -ENOMEM;
	}
	if (otok.length)
		memcpy(*out, otok.value, otok.length);
	*out_len = otok.length;
	gss_release_buffer(&min, &otok);
	if (maj != GSS_S_COMPLETE)
		return 1;
	release_init(g);
	return 0;
}

int rpcrdma__gss_clnt_ctl_cred(const struct rpcrdma__gss_clnt *g, bool first, uint8_t *p,
			       size_t room)
{
	struct rpcrdma__gss_cred gc = {.proc = first ? RPCRDMA__GSS_INIT
						     : RPCRDMA__GSS_CONTINUE_INIT,
				       .service = g->service, .handle = g->handle,
				       .handle_len = first ? 0 : g->handle_len};
	size_t clen = rpcrdma__gss_cred_len(gc.handle_len);

	if (room < 8 + clen)
		return -EMSGSIZE;
	uint8_t *q = rpcrdma__put_be32(p, RPCRDMA__AUTH_GSS);
	q = rpcrdma__put_be32(q, (uint32_t)clen);
	rpcrdma__gss_cred_encode(q, clen, &gc);
	return (int)(8 + clen);
}

int rpcrdma__gss_clnt_set_handle(struct rpcrdma__gss_clnt *g, const uint8_t *handle,
				 uint32_t len)
{
	if (!len || len > RPCRDMA__GSS_HANDLE_MAX)
		return -EBADMSG;
	memcpy(g->handle, handle, len);
	g->handle_len = len;
	return 0;
}

int rpcrdma__gss_clnt_init_verf(struct rpcrdma__gss_clnt *g, uint32_t window, uint32_t flavor,
				const uint8_t *verf, uint32_t verf_len)
{
	uint8_t b[4];
	OM_uint32 maj, min;

	if (flavor != RPCRDMA__AUTH_GSS || !verf_len || verf_len > RPCRDMA__GSS_MIC_MAX ||
	    g->gctx == GSS_C_NO_CONTEXT)
		return -EBADMSG;
	rpcrdma__put_be32(b, window);
	gss_buffer_desc in = {.length = 4, .value = b};
	gss_buffer_desc tok = {.length = verf_len, .value = (void *)verf};
	pthread_mutex_lock(&g->lock);
	maj = gss_verify_mic(&min, g->gctx, &in, &tok, NULL);
	pthread_mutex_unlock(&g->lock);
	return GSS_ERROR(maj) ? -EBADMSG : 0;
}
