/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transport counters.  Every listener keeps a set over all its connections
 * (the "global" counters of that endpoint), every connection its own, every
 * client its own.  Counters only grow; they are read with relaxed atomics,
 * so a snapshot taken while traffic flows is consistent per counter, not
 * across counters.
 */
#ifndef RPCRDMA_STATS_H
#define RPCRDMA_STATS_H

#include <stdint.h>
#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

enum rpcrdma_stat {
	RPCRDMA_STAT_CALLS = 0,        /* calls handed to the upper layer / sent (client) */
	RPCRDMA_STAT_REPLIES,          /* replies sent / received (client) */
	RPCRDMA_STAT_REPLIES_INLINE,   /* replies sent / received (client) inline (RDMA_MSG,
					* no chunk) */
	RPCRDMA_STAT_REPLIES_WRITE,    /* replies whose bulk went / came (client) by write chunk */
	RPCRDMA_STAT_REPLIES_RCHUNK,   /* replies sent / received (client) through the reply
					* chunk */
	RPCRDMA_STAT_CALLS_READ,       /* calls with read chunks pulled / pushed (client) */
	RPCRDMA_STAT_ERR_SHORT,        /* malformed: too short or truncated list */
	RPCRDMA_STAT_ERR_VERS,         /* wrong version (answered ERR_VERS) */
	RPCRDMA_STAT_ERR_CHUNK,        /* bad chunks or type (answered ERR_CHUNK) */
	RPCRDMA_STAT_ERR_DROPPED,      /* RDMA_DONE / RDMA_ERROR / unparseable, dropped */
	RPCRDMA_STAT_ERR_REPLY,        /* reply too large for the chunks offered */
	RPCRDMA_STAT_ERR_CREDIT,       /* calls beyond the credit grant */
	RPCRDMA_STAT_ERR_WC,           /* work completions with an error status */
	RPCRDMA_STAT_FLUSHED,          /* work completions flushed at disconnect */
	RPCRDMA_STAT_BYTES_READ,       /* bytes of calls reassembled from read
					 * chunks, inline part included */
	RPCRDMA_STAT_BYTES_WRITTEN,    /* bytes pushed by RDMA Write */
	RPCRDMA_STAT_BYTES_RECV,       /* bytes received by Send */
	RPCRDMA_STAT_BYTES_SENT,       /* bytes sent by Send */
	RPCRDMA_STAT_RQ_STARVED,       /* receive buffers missing when reposting */
	RPCRDMA_STAT_SQ_STARVED,       /* work-request chains that waited for send-queue room
					* (queued, posted by a completion: none lost) */
	RPCRDMA_STAT_CONNECTS,         /* connections established */
	RPCRDMA_STAT_DISCONNECTS,      /* connections closed */
	RPCRDMA_STAT_REJECTS,          /* connection requests refused */
	RPCRDMA_STAT_POLICY_CLOSE,     /* connections closed for garbage / credit overrun */
	RPCRDMA_STAT_TIMEOUTS,         /* client calls timed out */
	RPCRDMA_STAT_RECONNECTS,       /* client reconnections */
	RPCRDMA_STAT_CTXT_LOST,        /* contexts missing from their pool at teardown (a bug) */
	RPCRDMA_STAT_RESCG_DENIED,     /* charges the resource group refused (see xprt.h) */
	RPCRDMA_STAT_DEVICE_REMOVALS,  /* RDMA devices removed under a listener or client (xprt.h) */
	RPCRDMA_STAT_CONNECT_FAILS,    /* client connection attempts that failed (each is a try
					* the reconnect backoff let through) */
	RPCRDMA_STAT_WRITES_UNCOPIED,  /* replies whose bulk was written from the call's own
					* registered memory, uncopied (rpcrdma_call_reply_buffer) */
	RPCRDMA_STAT_SENDS_INLINE,     /* Sends posted IBV_SEND_INLINE: short enough (256 bytes)
					* for the provider to copy them into the work request */
	RPCRDMA_STAT_SENDS_UNSIGNALED, /* Sends posted without asking for a completion: a later
					* Send's completion gives them back (one in 16 asks) */
	RPCRDMA_STAT_WRITES_REGION,    /* replies whose bulk was written, uncopied, from a region
					* of rpcrdma_listener_register() (also in writes_uncopied) */
	RPCRDMA_STAT_IDLE_CLOSES,      /* connections closed by the listener's idle_timeout_ms */
	RPCRDMA_STAT_CAP_CLOSES,       /* connections closed to make room under max_conns */
	RPCRDMA_STAT_SEND_WAITED,      /* calls that waited for a send context before being
					* handled (queued, resumed by a send completion; xprt.h);
					* on a client, each time a call found none to be sent */
	RPCRDMA_STAT_SEND_DROPPED,     /* replies or RDMA_ERRORs dropped for want of a send
					* context or send-queue room: always 0 (xprt.h) */
	RPCRDMA_STAT_READ_WAITS,       /* calls that waited for the read budget before their
					* read chunks were pulled (xprt.h, READ BUDGET) */
	RPCRDMA_STAT_READ_BYTES_PEAK,  /* the most bytes of the read budget held at once: by
					* the connection's calls, or the listener's (not a sum) */
	RPCRDMA_STAT_SENDS_BATCHED,    /* replies posted behind another in one ibv_post_send:
					* finished in one poll round (a doorbell saved each) */
	RPCRDMA_STAT_SENDS_BATCH_LOST, /* posts of a batch of replies that failed: the
					* connection was closed (its Sends given back) */
	RPCRDMA_STAT_COUNT
};

struct rpcrdma_stats {
	uint64_t v[RPCRDMA_STAT_COUNT];
};

/* A static name for a counter ("calls", "err_vers", ...), or "?" */
RPCRDMA_API const char *rpcrdma_stat_name(enum rpcrdma_stat s);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_STATS_H */
