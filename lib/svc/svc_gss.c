/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS's service API (rpcrdma_gss(3)): the service core's side,
 * calling down into lib/gss for the contexts.  A build without GSS-API
 * gets lib/gss's inline stubs: rpcrdma_svc_set_gss refuses with -ENOTSUP
 * and no call has a principal.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/gss.h>

#include "gss/gss_int.h"
#include "svc_int.h"

void rpcrdma_svc_gss_opts_init(struct rpcrdma_svc_gss_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

int rpcrdma_svc_set_gss(struct rpcrdma_svc *svc, const struct rpcrdma_svc_gss_opts *opts)
{
	struct rpcrdma_svc_gss_opts o;
	struct rpcrdma__gss_svc *gs;
	int rc;

	rc = rpcrdma__gss_svc_opts(opts, &o);
	if (rc)
		return rc;
	if (svc->gss)
		return -EALREADY;
	rc = rpcrdma__gss_svc_new(&o, &gs);
	if (rc)
		return rc;
	svc->gss = gs;
	return 0;
}

const char *rpcrdma_svc_call_principal(const struct rpcrdma_svc_call *call)
{
	return rpcrdma__gss_call_principal(rpcrdma__svc_call_gss(call));
}

int rpcrdma_svc_call_gss_service(const struct rpcrdma_svc_call *call)
{
	return rpcrdma__gss_call_service(rpcrdma__svc_call_gss(call));
}

void rpcrdma_svc_gss_stats(struct rpcrdma_svc *svc, struct rpcrdma_svc_gss_stats *st,
			   size_t size)
{
	struct rpcrdma_svc_gss_stats s;

	rpcrdma__gss_svc_stats(svc ? svc->gss : NULL, &s);
	memcpy(st, &s, size < sizeof(s) ? size : sizeof(s));
}
