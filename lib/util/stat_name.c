/* SPDX-License-Identifier: BSD-2-Clause */
/* Counter names (<rpcrdma/stats.h>): every build has them, the RPC client
 * reports its counters with or without RDMA. */
#include <rpcrdma/stats.h>

static const char *const stat_names[RPCRDMA_STAT_COUNT] = {
	[RPCRDMA_STAT_CALLS] = "calls",
	[RPCRDMA_STAT_REPLIES] = "replies",
	[RPCRDMA_STAT_REPLIES_INLINE] = "replies_inline",
	[RPCRDMA_STAT_REPLIES_WRITE] = "replies_write_chunk",
	[RPCRDMA_STAT_REPLIES_RCHUNK] = "replies_reply_chunk",
	[RPCRDMA_STAT_CALLS_READ] = "calls_read_chunk",
	[RPCRDMA_STAT_ERR_SHORT] = "err_short",
	[RPCRDMA_STAT_ERR_VERS] = "err_vers",
	[RPCRDMA_STAT_ERR_CHUNK] = "err_chunk",
	[RPCRDMA_STAT_ERR_DROPPED] = "err_dropped",
	[RPCRDMA_STAT_ERR_REPLY] = "err_reply_too_large",
	[RPCRDMA_STAT_ERR_CREDIT] = "err_credit_overrun",
	[RPCRDMA_STAT_ERR_WC] = "err_completion",
	[RPCRDMA_STAT_FLUSHED] = "flushed",
	[RPCRDMA_STAT_BYTES_READ] = "bytes_rdma_read",
	[RPCRDMA_STAT_BYTES_WRITTEN] = "bytes_rdma_write",
	[RPCRDMA_STAT_BYTES_RECV] = "bytes_recv",
	[RPCRDMA_STAT_BYTES_SENT] = "bytes_sent",
	[RPCRDMA_STAT_RQ_STARVED] = "rq_starved",
	[RPCRDMA_STAT_SQ_STARVED] = "sq_starved",
	[RPCRDMA_STAT_CONNECTS] = "connects",
	[RPCRDMA_STAT_DISCONNECTS] = "disconnects",
	[RPCRDMA_STAT_REJECTS] = "rejects",
	[RPCRDMA_STAT_POLICY_CLOSE] = "policy_closes",
	[RPCRDMA_STAT_TIMEOUTS] = "timeouts",
	[RPCRDMA_STAT_RECONNECTS] = "reconnects",
	[RPCRDMA_STAT_CTXT_LOST] = "contexts_lost",
	[RPCRDMA_STAT_RESCG_DENIED] = "rescg_denied",
	[RPCRDMA_STAT_DEVICE_REMOVALS] = "device_removals",
	[RPCRDMA_STAT_CONNECT_FAILS] = "connect_fails",
	[RPCRDMA_STAT_WRITES_UNCOPIED] = "writes_uncopied",
	[RPCRDMA_STAT_SENDS_INLINE] = "sends_inline",
	[RPCRDMA_STAT_SENDS_UNSIGNALED] = "sends_unsignaled",
	[RPCRDMA_STAT_WRITES_REGION] = "writes_region",
	[RPCRDMA_STAT_IDLE_CLOSES] = "idle_closes",
	[RPCRDMA_STAT_CAP_CLOSES] = "cap_closes",
	[RPCRDMA_STAT_SEND_WAITED] = "send_waited",
	[RPCRDMA_STAT_SEND_DROPPED] = "send_dropped",
	[RPCRDMA_STAT_READ_WAITS] = "read_waits",
	[RPCRDMA_STAT_READ_BYTES_PEAK] = "read_bytes_peak",
	[RPCRDMA_STAT_SENDS_BATCHED] = "sends_batched",
	[RPCRDMA_STAT_SENDS_BATCH_LOST] = "sends_batch_lost",
};

const char *rpcrdma_stat_name(enum rpcrdma_stat s)
{
	if ((unsigned)s >= RPCRDMA_STAT_COUNT || !stat_names[s])
		return "?";
	return stat_names[s];
}
