/* SPDX-License-Identifier: BSD-2-Clause */
/* Transport counters: names and snapshots. */
#include "rdma_internal.h"

void rpcrdma__counters_read(const struct rpcrdma__counters *c, struct rpcrdma_stats *out)
{
	for (unsigned i = 0; i < RPCRDMA_STAT_COUNT; i++)
		out->v[i] = atomic_load_explicit(&c->v[i], memory_order_relaxed);
}
