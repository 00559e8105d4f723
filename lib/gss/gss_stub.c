/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPCSEC_GSS API of a library built without GSS-API (-Dgssapi=disabled
 * or no krb5-gssapi): the same exported functions, refusing.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/gss.h>

void rpcrdma_svc_gss_opts_init(struct rpcrdma_svc_gss_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

int rpcrdma_svc_set_gss(struct rpcrdma_svc *svc, const struct rpcrdma_svc_gss_opts *opts)
{
	(void)svc, (void)opts;
	return -ENOTSUP;
}

const char *rpcrdma_svc_call_principal(const struct rpcrdma_svc_call *call)
{
	(void)call;
	return NULL;
}

int rpcrdma_svc_call_gss_service(const struct rpcrdma_svc_call *call)
{
	(void)call;
	return 0;
}

void rpcrdma_clnt_gss_opts_init(struct rpcrdma_clnt_gss_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

int rpcrdma_clnt_set_auth_gss(struct rpcrdma_clnt *c, const struct rpcrdma_clnt_gss_opts *opts)
{
	(void)c, (void)opts;
	return -ENOTSUP;
}
