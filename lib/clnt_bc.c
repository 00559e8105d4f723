/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Backward calls on a client's connection (the NFSv4.1 backchannel): the
 * hook of the TCP receive path.  The dispatch through the service set by
 * rpcrdma_clnt_set_backchannel is the backchannel's (issue #29); until
 * then every backward call is dropped and counted.
 */
#include "clnt_int.h"

void rpcrdma__clnt_backward_call(struct rpcrdma_clnt *c, const void *msg, size_t len)
{
	(void)msg;
	(void)len;
	/* No service set (or no dispatch yet): nobody to answer. */
	rpcrdma__clnt_count(c, RPCRDMA_STAT_ERR_DROPPED, 1);
}
