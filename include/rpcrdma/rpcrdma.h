/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma umbrella header: includes every public header.
 * Programs may include the individual headers instead.
 */
#ifndef RPCRDMA_RPCRDMA_H
#define RPCRDMA_RPCRDMA_H

#include <rpcrdma/api.h>
#include <rpcrdma/version.h>
/* wire format */
#include <rpcrdma/proto.h>
#include <rpcrdma/credits.h>
#include <rpcrdma/cm_private.h>
/* transport */
#include <rpcrdma/poller.h>
#include <rpcrdma/xprt.h>
#include <rpcrdma/client.h>
#include <rpcrdma/stats.h>
/* service core */
#include <rpcrdma/xdr.h>
#include <rpcrdma/svc.h>
/* id allocator */
#include <rpcrdma/idr.h>
/* resource controller */
#include <rpcrdma/rescg.h>

#endif /* RPCRDMA_RPCRDMA_H */
