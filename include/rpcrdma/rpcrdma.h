/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma umbrella header: includes every public header this build
 * installed (the transport's only with RPCRDMA_HAVE_RDMA, see config.h).
 * Programs may include the individual headers instead.
 */
#ifndef RPCRDMA_RPCRDMA_H
#define RPCRDMA_RPCRDMA_H

#include <rpcrdma/config.h>
#include <rpcrdma/api.h>
#include <rpcrdma/version.h>
#include <rpcrdma/diag.h>
/* wire format */
#include <rpcrdma/proto.h>
#include <rpcrdma/credits.h>
#include <rpcrdma/cm_private.h>
/* transport */
#ifdef RPCRDMA_HAVE_RDMA
#include <rpcrdma/poller.h>
#include <rpcrdma/xprt.h>
#include <rpcrdma/client.h>
#include <rpcrdma/stats.h>
#endif
/* service core */
#include <rpcrdma/xdr.h>
#include <rpcrdma/svc.h>
#include <rpcrdma/gss.h>
#include <rpcrdma/clnt.h>
/* id allocator */
#include <rpcrdma/idr.h>
/* resource controller */
#include <rpcrdma/rescg.h>

#endif /* RPCRDMA_RPCRDMA_H */
