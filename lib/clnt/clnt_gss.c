/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS on the RPC client (rpcrdma_gss(3)): rpcrdma_clnt_set_auth_gss
 * makes the context with the client's own calls, INIT then CONTINUE_INIT
 * to procedure 0 of its program (RFC 2203 section 5.2.2), each token
 * from lib/gss's GSS-API steps.  Every later call is framed by lib/gss
 * (clnt_msg.c).  A build without GSS-API refuses with -ENOTSUP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/gss.h>

#include "clnt_int.h"
#include "gss/gss_int.h"

void rpcrdma_clnt_gss_opts_init(struct rpcrdma_clnt_gss_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

#if RPCRDMA_HAVE_GSS
struct init_io {
	struct rpcrdma__gss_init_res res; /* points into copy */
	uint8_t *copy;
	uint32_t verf_flavor, verf_len;   /* the reply's verifier */
	uint8_t verf[RPCRDMA__CLNT_MAX_AUTH];
};

struct init_tok {
	const uint8_t *p;
	size_t len;
};

static int enc_token(struct rpcrdma_xdr_enc *e, const void *args)
{
	const struct init_tok *t = args;
	return rpcrdma_xdr_put_opaque(e, t->p, t->len);
}

static int dec_init_res(struct rpcrdma_xdr_dec *d, void *res)
{
	struct init_io *io = res;
	const struct rpcrdma__clnt_dec *cd = (const struct rpcrdma__clnt_dec *)d;
	size_t n = rpcrdma_xdr_dec_left(d);

	if (cd->magic != RPCRDMA__CLNT_DEC_MAGIC || cd->verf_len > sizeof(io->verf))
		return -EBADMSG;
	io->verf_flavor = cd->verf_flavor;
	io->verf_len = cd->verf_len;
	memcpy(io->verf, cd->verf, cd->verf_len);
	if (n > RPCRDMA__GSS_TOKEN_MAX + 1024 || n % 4 || !(io->copy = malloc(n ? n : 4)) ||
	    rpcrdma_xdr_get_fixed(d, io->copy, n))
		return -EBADMSG;
	return rpcrdma__gss_init_res_decode(io->copy, n, &io->res);
}

/* One INIT or CONTINUE_INIT call carrying tok; the server's answer in io
 * (c->cred holds the control credential meanwhile). */
static int init_call(struct rpcrdma_clnt *c, struct rpcrdma__gss_clnt *g, bool first,
		     const struct init_tok *tok, struct init_io *io)
{
	struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = 0, .encode = enc_token,
				       .args = tok, .decode = dec_init_res, .res = io};

	if (tok->len > RPCRDMA__GSS_TOKEN_MAX)
		return -EMSGSIZE;
	req.args_max = rpcrdma__gss_opaque_len((uint32_t)tok->len);
	req.res_max = RPCRDMA__CLNT_HDR_MAX + RPCRDMA__GSS_TOKEN_MAX + 1024;
	pthread_mutex_lock(&c->auth_lock);
	int n = rpcrdma__gss_clnt_ctl_cred(g, first, c->cred, sizeof(c->cred));
	if (n > 0)
		c->cred_len = (size_t)n;
	pthread_mutex_unlock(&c->auth_lock);
	if (n < 0)
		return n;
	free(io->copy);
	memset(io, 0, sizeof(*io));
	int rc = rpcrdma_clnt_call(c, &req);
	if (rc)
		return rc;
	if (io->res.major != RPCRDMA__GSS_S_COMPLETE &&
	    io->res.major != RPCRDMA__GSS_S_CONTINUE_NEEDED)
		return -EACCES;
	return rpcrdma__gss_clnt_set_handle(g, io->res.handle, io->res.handle_len);
}

/* gss_init_sec_context rounds (lib/gss) until both sides are done. */
static int establish(struct rpcrdma_clnt *c, struct rpcrdma__gss_clnt *g)
{
	struct init_tok in = {0}, out;
	struct init_io io = {0};
	int rc = -EACCES;

	for (int round = 0; round < 8; round++) {
		uint8_t *buf;
		int more = rpcrdma__gss_clnt_step(g, in.p, in.len, &buf, &out.len);
		if (more < 0)
			break;
		if (buf) {
			out.p = buf;
			rc = init_call(c, g, round == 0, &out, &io);
			free(buf);
			if (rc)
				break;
			rc = -EACCES;
		}
		if (!more) {
			/* RFC 2203 section 5.2.3.1: the verifier of the final
			 * INIT reply is the server's MIC of the window, made
			 * with the context both sides now hold. */
			if (io.res.major == RPCRDMA__GSS_S_COMPLETE)
				rc = rpcrdma__gss_clnt_init_verf(g, io.res.window, io.verf_flavor,
								 io.verf, io.verf_len)
					     ? -EACCES : 0;
			break;
		}
		in.p = io.res.token;
		in.len = io.res.token_len;
	}
	free(io.copy);
	return rc;
}
#endif

int rpcrdma_clnt_set_auth_gss(struct rpcrdma_clnt *c, const struct rpcrdma_clnt_gss_opts *opts)
{
#if RPCRDMA_HAVE_GSS
	struct rpcrdma_clnt_gss_opts o;
	struct rpcrdma__gss_clnt *g;
	int rc;

	if (!c || !opts || opts->size < sizeof(opts->size))
		return -EINVAL;
	rpcrdma_clnt_gss_opts_init(&o);
	memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (!o.target || o.service < 0 || o.service > RPCRDMA_GSS_SVC_PRIVACY ||
	    strcmp(c->netid, "udp") == 0 || strcmp(c->netid, "udp6") == 0)
		return -EINVAL;
	rc = rpcrdma__gss_clnt_new(o.target, o.ccache, o.keytab,
				   o.service ? (uint32_t)o.service : RPCRDMA_GSS_SVC_NONE, &g);
	if (rc)
		return rc;
	uint8_t saved[sizeof(c->cred)];
	pthread_mutex_lock(&c->auth_lock);
	size_t saved_len = c->cred_len;
	memcpy(saved, c->cred, saved_len);
	struct rpcrdma__gss_clnt *old = c->gss; /* the INIT calls go without it */
	c->gss = NULL;
	pthread_mutex_unlock(&c->auth_lock);
	rc = establish(c, g);
	pthread_mutex_lock(&c->auth_lock);
	memcpy(c->cred, saved, saved_len); /* the control credential goes */
	c->cred_len = saved_len;
	c->gss = rc ? old : g;
	if (!rc)
		g = old;
	pthread_mutex_unlock(&c->auth_lock);
	rpcrdma__gss_clnt_free(g);
	return rc;
#else
	(void)c, (void)opts;
	return -ENOTSUP;
#endif
}
