/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kinds of transport the service has (struct rpcrdma__svc_xprt_class,
 * svc_xprt.h), in the order rpcrdma_svc_destroy takes them: the backward
 * direction first (its pending calls fail before anything closes), then
 * TCP, UDP and RDMA.  The one place that names them: svc_loop.c walks
 * this list.
 */
#include <stddef.h>

#include "svc_int.h"

const struct rpcrdma__svc_xprt_class *const rpcrdma__svc_xprt_classes[] = {
	&rpcrdma__svc_bc_class,
	&rpcrdma__svc_tcp_class,
	&rpcrdma__svc_udp_class,
#ifdef RPCRDMA_HAVE_RDMA
	&rpcrdma__svc_rdma_class,
#endif
	NULL,
};
