/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal structures of the RDMA transport, shared by ctxt.c,
 * rdma_conn.c, rdma_dev.c, rdma_devrm.c, rdma_listener.c, rdma_recv.c,
 * rdma_send.c, rdma_rw.c, rdma_client.c, stats.c; the listener side's own
 * functions are in rdma_server.h.
 *
 * Locking: a connection's lock protects its send-queue accounting, its
 * waiting list and its state.  Each completion queue is polled by one thread
 * at a time (the poller guarantees it), so completion handlers of one CQ are
 * serialized; replies may be sent from any thread and take the connection
 * lock.  A connection is freed when its reference count drops to zero: one
 * reference is held while it is connected, one per outstanding call handle
 * and one per posted work-request chain.
 *
 * The internal header of lib/rdma (with its parts poller_int.h and
 * rdma_server.h, which it includes, and rdma_backward.h).  Who may include
 * it: lib/rdma, lib/rdma/client, and the transport plugs above them
 * (lib/svc/svc_rdma*.c, lib/clnt/clnt_rdma.c through rdma_client_int.h).
 * Never lib/util, lib/wire or lib/pcap.  lib/rdma includes only util,
 * wire and pcap (tests/include-layers.sh checks it).  Not installed.
 *
 * The files of lib/rdma call each other in layers, from the bottom (a
 * file calls only files on its own line's left or on lines above;
 * tests/call-layers.sh checks that no new circle forms):
 *   ctxt.c, stats.c, rdma_qpmap.c, poller.c
 *   poller_cq.c
 *   the connection core: rdma_conn.c, rdma_recv.c, rdma_send.c, rdma_rw.c,
 *     rdma_budget.c, rdma_backward.c -- still one circle: a connection's
 *     close and free call each part's teardown, and the parts' completions
 *     call the connection's put, post and close (call-layers.sh's
 *     KNOWN_CIRCLES)
 *   rdma_dev.c
 *   rdma_devrm.c, rdma_conn_limits.c, rdma_accept.c
 *   rdma_listener.c
 * client/ is the folder above.
 */
#ifndef RPCRDMA_RDMA_INTERNAL_H
#define RPCRDMA_RDMA_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rpcrdma/client.h>
#include <rpcrdma/cm_private.h>
#include <rpcrdma/credits.h>
#include <rpcrdma/idr.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/proto.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/xprt.h>

#include "util/bcache.h"
#include "util/list.h"
#include "pcap/pcap_int.h"
#include "util/rescg_ledger.h"

#include "poller_int.h"

/* ---- typed work-request contexts (ctxt.c) ---- */

/*
 * The first member of every context: a work request's wr_id is the
 * context's address, which is its cqe's, and the poller calls cqe.done
 * with the completion.  Pools set done where they make the contexts
 * (rpcrdma__pool_init); a context made alone sets it where it is made.
 */
struct rpcrdma__ctxt {
	struct rpcrdma__cqe cqe;
	struct rpcrdma__list node;   /* free list, wait list or in-flight: one at a time */
	struct rpcrdma__pool *pool;  /* owner */
	uint8_t *buf;                /* registered buffer of pool->buf_size bytes */
	uint32_t lkey;
};
_Static_assert(offsetof(struct rpcrdma__ctxt, cqe) == 0, "wr_id: a context is its cqe");

/* A completion handler (struct rpcrdma__cqe's done). */
typedef void rpcrdma__done_fn(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc);

/*
 * A pool of contexts allocated and registered once: `count` contexts of
 * ctxt_size bytes (each starting with struct rpcrdma__ctxt) and `count`
 * buffers of buf_size bytes in one memory region.
 */
struct rpcrdma__pool {
	pthread_mutex_t lock;
	struct rpcrdma__list free;
	unsigned nfree, count;
	size_t ctxt_size, buf_size;
	uint8_t *ctxts;
	uint8_t *bufs;
	struct ibv_mr *mr;
};

/* Makes count contexts whose completions go to done. */
int rpcrdma__pool_init(struct rpcrdma__pool *pool, struct ibv_pd *pd, rpcrdma__done_fn *done,
		       unsigned count, size_t ctxt_size, size_t buf_size, int access);
void rpcrdma__pool_fini(struct rpcrdma__pool *pool);
struct rpcrdma__ctxt *rpcrdma__pool_get(struct rpcrdma__pool *pool);
void rpcrdma__pool_put(struct rpcrdma__ctxt *c);
/* Returns the n contexts of list (all pool's) to pool; list ends empty. */
void rpcrdma__pool_put_list(struct rpcrdma__pool *pool, struct rpcrdma__list *list, unsigned n);
/* The same without the pool's lock, for a pool whose every get and put
 * its owner serializes (the client's send pool: the client lock). */
struct rpcrdma__ctxt *rpcrdma__pool_get_owned(struct rpcrdma__pool *pool);
void rpcrdma__pool_put_owned(struct rpcrdma__ctxt *c);

/* A buffer registered for one operation (read sinks, write sources, client
 * chunks).  Registered with `access`; freed with rpcrdma__mrbuf_free. */
struct rpcrdma__mrbuf {
	uint8_t *addr;
	size_t len;          /* what the user of the buffer asked for */
	size_t cap;          /* allocated and registered (cache size class) */
	bool own;            /* addr was allocated here */
	struct ibv_mr *mr;
	struct rpcrdma__list node;  /* a cache's free list */
};

/*
 * Registered buffers kept for reuse, so the data path does not register
 * memory per call.  Only for buffers with local access (server read sinks
 * and write sources): a buffer the peer can reach by rkey must be
 * deregistered after its call, or the peer would keep access to it.
 * Buffers come in power-of-two classes from 4 KiB; at most max_bytes stay.
 */
struct rpcrdma__counters;

struct rpcrdma__mrcache {
	pthread_mutex_t lock;
	struct rpcrdma__list free;
	size_t bytes, max_bytes;
	struct ibv_pd *pd;
	struct rpcrdma__rescg_ledger led;  /* 1 hca_object per registered buffer (lock) */
	struct rpcrdma__counters *stats;   /* RPCRDMA_STAT_RESCG_DENIED goes here */
};

/* Binds the cache's charges to grp (may be NULL) on device.  Returns 0 or the
 * ledger's error (the cache is then unusable and fini a no-op). */
int rpcrdma__mrcache_init(struct rpcrdma__mrcache *mc, struct ibv_pd *pd, size_t max_bytes,
			  struct rpcrdma_rescg_group *grp, const char *device,
			  struct rpcrdma__counters *stats);
void rpcrdma__mrcache_fini(struct rpcrdma__mrcache *mc);
/* A buffer of at least len bytes registered with IBV_ACCESS_LOCAL_WRITE;
 * -EAGAIN when a new registration is refused by the resource group. */
int rpcrdma__mrcache_get(struct rpcrdma__mrcache *mc, struct rpcrdma__mrbuf *b, size_t len);
/* Returns b (or frees it when the cache is full); b is zeroed.  NULL-safe
 * for a buffer never filled (b->mr == NULL). */
void rpcrdma__mrcache_put(struct rpcrdma__mrcache *mc, struct rpcrdma__mrbuf *b);

int rpcrdma__mrbuf_alloc(struct rpcrdma__mrbuf *b, struct ibv_pd *pd, size_t len, int access);
int rpcrdma__mrbuf_reg(struct rpcrdma__mrbuf *b, struct ibv_pd *pd, void *addr, size_t len,
		       int access);
void rpcrdma__mrbuf_free(struct rpcrdma__mrbuf *b);

/* ---- a message as iovecs (the client's calls, the server's replies) ---- */

static inline size_t rpcrdma__iov_total(const struct iovec *iov, unsigned n)
{
	size_t t = 0;

	for (unsigned i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

/* Copies len bytes from offset off of the iovecs to dst. */
static inline void rpcrdma__iov_copy(uint8_t *dst, const struct iovec *iov, unsigned iovcnt,
				     size_t off, size_t len)
{
	for (unsigned i = 0; i < iovcnt && len; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		size_t n = iov[i].iov_len - off;

		if (n > len)
			n = len;
		memcpy(dst, (const uint8_t *)iov[i].iov_base + off, n);
		dst += n;
		len -= n;
		off = 0;
	}
}

/* Copies the total bytes of the iovecs to dst, without [cut, cut + cutlen)
 * (the data item that goes by chunk). */
static inline void rpcrdma__iov_copy_without(uint8_t *dst, const struct iovec *iov,
					     unsigned iovcnt, size_t total, size_t cut,
					     size_t cutlen)
{
	if (!cutlen) {
		rpcrdma__iov_copy(dst, iov, iovcnt, 0, total);
		return;
	}
	rpcrdma__iov_copy(dst, iov, iovcnt, 0, cut);
	rpcrdma__iov_copy(dst + cut, iov, iovcnt, cut + cutlen, total - cut - cutlen);
}

/* Completion handlers, set as their contexts' cqe.done. */
rpcrdma__done_fn rpcrdma__recv_done;     /* server receive (struct rpcrdma_call) */
rpcrdma__done_fn rpcrdma__send_done;     /* server reply's Send (struct rpcrdma__send) */
rpcrdma__done_fn rpcrdma__read_done;     /* a call's last RDMA Read (struct rpcrdma__read) */
rpcrdma__done_fn rpcrdma__read_quiet_done;  /* its other Reads (rpcrdma__read.quiet) */
rpcrdma__done_fn rpcrdma__write_quiet_done; /* a reply's RDMA Writes (rpcrdma__send.quiet) */

/* ---- counters (stats.c) ---- */

struct rpcrdma__counters {
	atomic_uint_fast64_t v[RPCRDMA_STAT_COUNT];
};

static inline void rpcrdma__count(struct rpcrdma__counters *a, struct rpcrdma__counters *b,
				  enum rpcrdma_stat s, uint64_t n)
{
	atomic_fetch_add_explicit(&a->v[s], n, memory_order_relaxed);
	if (b)
		atomic_fetch_add_explicit(&b->v[s], n, memory_order_relaxed);
}

void rpcrdma__counters_read(const struct rpcrdma__counters *c, struct rpcrdma_stats *out);

/* ---- the read budget (rdma_budget.c; xprt.h, READ BUDGET) ---- */

/*
 * Registered bytes that calls' read chunks are pulled into, bounded per
 * listener (limit) and per connection (conn_limit).  A call that does not
 * fit waits on its connection's FIFO; a connection whose first waiting call
 * fits its own share is on the budget's ready list, served round robin, and
 * the ready list is served in order: a call that does not fit the listener's
 * room holds up the calls behind it (a large call is never starved by small
 * ones), never those of a connection that only waits for its own share.
 * Nothing here blocks: the caller starts what was admitted.  The lock is a
 * leaf: nothing is called with it held.
 */
struct rpcrdma__rb_wait {
	struct rpcrdma__list node;      /* its connection's waiting list */
	size_t bytes;                   /* asked for; held once admitted */
	bool held;                      /* admitted: bytes are charged */
};

struct rpcrdma__rb_conn {
	size_t used;                    /* held by this connection's calls */
	struct rpcrdma__list waiting;   /* rpcrdma__rb_wait, oldest first */
	struct rpcrdma__list rnode;     /* on the budget's ready list */
	bool ready;                     /* rnode is on the list */
	bool dead;                      /* drained: takes nothing more */
	struct rpcrdma__counters *stats; /* peak and waits go here (may be NULL) */
};

struct rpcrdma__rb {
	pthread_mutex_t lock;
	size_t limit, conn_limit, used;
	struct rpcrdma__list ready;     /* rpcrdma__rb_conn by rnode */
	unsigned nwaiting;
	struct rpcrdma__counters *stats; /* the listener's (may be NULL) */
};

void rpcrdma__rb_init(struct rpcrdma__rb *b, size_t limit, size_t conn_limit,
		      struct rpcrdma__counters *stats);
void rpcrdma__rb_fini(struct rpcrdma__rb *b);
void rpcrdma__rb_conn_init(struct rpcrdma__rb_conn *c, struct rpcrdma__counters *stats);
/* Asks bytes for w on c: 1 admitted (charged), 0 queued, 2 queued while
 * something can be admitted now (the caller runs rpcrdma__rb_next, or has a
 * poller thread run it), -ENOTCONN c is drained (nothing done). */
int rpcrdma__rb_take(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c,
		     struct rpcrdma__rb_wait *w, size_t bytes);
/* Gives back what w holds (nothing if it holds nothing).  Returns whether a
 * waiting call can be admitted now. */
bool rpcrdma__rb_put(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c,
		     struct rpcrdma__rb_wait *w);
/* The next waiting call that fits, admitted (charged) and off its list, or
 * NULL; *conn is set to its connection. */
struct rpcrdma__rb_wait *rpcrdma__rb_next(struct rpcrdma__rb *b, struct rpcrdma__rb_conn **conn);
/* Marks c drained and moves its waiting calls (none charged) to *out. */
void rpcrdma__rb_conn_drain(struct rpcrdma__rb *b, struct rpcrdma__rb_conn *c,
			    struct rpcrdma__list *out);

/* ---- server (rdma_conn.c, rdma_recv.c, rdma_send.c, rdma_rw.c) ---- */

/*
 * What the resource controller is charged (xprt.h, RESOURCE ACCOUNTING), in
 * hca_object units: a listener's per-device objects (PD, its share of the
 * poller's CQ and completion channel, SRQ and the SRQ's receive-buffer MR)
 * and a connection's (QP, send-buffer MR; without the SRQ, the MRs of the
 * receives posted at accept and of those its first call adds).
 * The device context is 1 hca_handle per listener and device.
 */
static inline uint32_t rpcrdma__rescg_dev_objects(bool srq, bool channel)
{
	return 2u + (channel ? 1u : 0u) + (srq ? 2u : 0u);
}

static inline uint32_t rpcrdma__rescg_conn_objects(bool srq)
{
	return srq ? 2u : 4u;
}

/* The most pollers a listener spreads its connections over (the service's
 * RPCRDMA_SVC_MAX_LOOPS), and the CQs a device's connections may be given
 * (a poller's pool, and one more per poller of a spread). */
#define RPCRDMA__SPREAD_MAX 256u
#define RPCRDMA__DEV_CQS (RPCRDMA__MAX_CQS + RPCRDMA__SPREAD_MAX)

/* Per-device resources of a listener. */
struct rpcrdma__dev {
	struct rpcrdma__list node;
	struct rpcrdma_listener *l;
	struct rpcrdma__rescg_ledger led; /* hca_handle + per-device objects */
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	/* The CQs the device's connections were given (listener lock); with
	 * an SRQ each holds srq_posted entries for the SRQ's receives, which
	 * complete on the CQ of whichever queue pair takes them. */
	struct rpcrdma__cq *cqs[RPCRDMA__DEV_CQS];
	unsigned ncqs;
	struct ibv_srq *srq;            /* NULL: per-connection receive queues */
	struct rpcrdma__pool srq_pool;  /* receive contexts posted to the SRQ */
	unsigned srq_posted;
	unsigned srq_unpromised;        /* posted buffers no grant covers yet */
	/* Replies sent before their call's receive went back to the SRQ
	 * (rpcrdma_call_reply), at most early_slack at once: that many
	 * buffers are posted beyond every grant, so a client answered early
	 * that sends again at once still finds a receive. */
	unsigned early_slack;
	atomic_uint early_open;
	/* Teardown (rpcrdma__recv_srq_quiesce): receives in the SRQ, reposts
	 * under way, and no more reposts once dying. */
	atomic_uint srq_in, srq_posting;
	atomic_bool srq_dying;
	uint32_t max_qp_wr, max_sge, max_qp_rd_atom, max_qp_init_rd_atom;
	struct rpcrdma__mrcache mrcache; /* read sinks, write sources */
	/* The listener's regions registered here (NULL: not registered on
	 * this device); entry i is set before l->nregions covers it. */
	struct ibv_mr *region_mr[RPCRDMA_LISTENER_REGIONS_MAX];
	unsigned nconns;                /* connections not yet freed (listener lock) */
	bool removed;                   /* DEVICE_REMOVAL seen: reap when nconns is 0 */
	/* Connections with a QP by QP number, for the SRQ's completions
	 * (rdma_qpmap.c; listener lock). */
	struct rpcrdma__conn **qp_hash;
	unsigned qp_hmask, qp_hcount;
	struct rpcrdma__conn *qp_hash0[64];
};

enum rpcrdma__conn_state {
	RPCRDMA__CONN_ACCEPTING,
	RPCRDMA__CONN_CONNECTED,
	RPCRDMA__CONN_CLOSING,
};

struct rpcrdma__conn {
	struct rpcrdma_listener *l;
	/* Read contexts kept for reuse (rdma_rw.c), at most
	 * RPCRDMA__READ_CACHE, under read_lock. */
	pthread_mutex_t read_lock;
	struct rpcrdma__bcache read_cache;
	struct rpcrdma__pcap_ep pcap;   /* the wire capture's (l->pcap) */
	struct rpcrdma__dev *dev;
	struct rpcrdma__cq *cq;         /* its share of the poller's pool */
	/* Its poller among the listener's spread (rpcrdma__listener_create;
	 * 0 without one), fixed at admission: its CQ is that poller's. */
	unsigned spread_idx;
	/* Receives from the device's SRQ; false: its own receive queue (no
	 * SRQ, or the SRQ's buffers were all promised at accept). */
	bool on_srq;
	/* When the last message arrived (or accept), coarse clock: the idle
	 * timeout and the connection cap (rdma_conn_limits.c). */
	_Atomic uint64_t last_ns;
	/* Counted as connected (rpcrdma__conn_established), once. */
	atomic_bool established;
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	uint32_t qp_num;
	uint32_t max_send_sge;           /* the QP's, as created */
	uint32_t max_inline;             /* Sends this short go IBV_SEND_INLINE */
	uint64_t conn_id;               /* for logs and counters */
	atomic_int refs;
	/* wr_id of the Send posted after the QP went to the error state: it
	 * completes (flushed) after every completion the QP raised before,
	 * so once it is handled none of them (a receive of the shared
	 * queue's, above all) is still waiting in the CQ for freed memory.
	 * It holds a reference. */
	struct rpcrdma__ctxt drain;
	pthread_mutex_t lock;
	enum rpcrdma__conn_state state;
	bool closing_started;
	bool freeing;                   /* rdma_destroy_id in progress (listener lock) */
	/* rpcrdma__conn_accept done (listener lock).  Listed from conn_admit
	 * on, half made until then: the idle sweep (another poller thread)
	 * and the cap act on accepted ones only. */
	bool accepted;

	/* The grant, fixed at accept: host order and cached wire order. */
	struct rpcrdma_credits credits;
	atomic_uint outstanding;        /* calls received, not yet released (no lock) */
	unsigned garbage;               /* malformed messages received */
	unsigned max_reads;             /* RDMA Reads we may have outstanding (0: none) */

	/* Peer's RFC 8797 parameters (defaults 1024 when absent). */
	uint32_t peer_recv_inline, peer_send_inline;
	bool peer_rinv;
	uint32_t send_inline;           /* bytes we may Send: min(ours, peer's) */

	/*
	 * Send-queue room (conn->lock).  sq_depth is the QP's; one WR of it is
	 * the drain's, so sq_avail starts at sq_depth - 1.  Every posted WR
	 * counts until its completion, or a later Send's, gives it back.
	 */
	unsigned sq_depth, sq_avail;
	struct rpcrdma__list sq_wait;   /* chains waiting for send-queue room */
	/*
	 * Sends posted, oldest first, through the context's node as sq_wait
	 * (conn->lock).  An inline reply's Send asks for a completion only
	 * once in sig_every; a send queue completes in order, so a Send's
	 * completion (or its flush, or the drain's) gives back every Send
	 * posted before it.  A chain may take at most sq_depth - sig_every
	 * WRs: then a chain that waits for room while nothing signaled is
	 * outstanding (at most sig_every - 1 silent Sends) always fits.
	 */
	struct rpcrdma__list sends;
	unsigned unsignaled, sig_every; /* Sends since the last signaled one */
	/*
	 * The device is iWARP.  Soft-iWARP never completes a WR its user
	 * posts once the QP left RTS (the WQE stays in the ring it shares
	 * with the kernel, which flushes that ring only at the move to
	 * ERROR), so no drain can be posted at close: every Send asks for a
	 * completion (sig_every 1), replies are not batched (a batch that
	 * finds the connection closing has its chains given back only by a
	 * drain), and each chain's own completion or flush gives it back.
	 * What never completes is given back at close instead (gone).
	 */
	bool no_drain;
	/*
	 * iWARP's close (rdma_conn.c, conn_quiet): the step run once the
	 * poller has handled every completion the QP raised before the
	 * close's move to ERR; it destroys the QP and queues the next, run
	 * once the completions raised until the destroy are handled too,
	 * which gives back what is still posted and the "connected"
	 * reference.
	 */
	struct rpcrdma__cq_wait gone;
	/* Read chains posted, oldest first, through the context's node as
	 * sq_wait (conn->lock): given back by their last Read's completion,
	 * or at an iWARP close. */
	struct rpcrdma__list reads;
	/*
	 * Replies queued by a thread's batch (poller_int.h), posted as one
	 * list at its end (conn->lock): the first WR of the first chain, the
	 * Send ending the last, the item on the batch's list (bq_listed: on
	 * one, holding a reference).  Already counted as posted (sq_avail,
	 * sends); any other post on the connection goes behind them.
	 */
	struct ibv_send_wr *bq_head, *bq_tail;
	struct rpcrdma__batch_item bq;
	bool bq_listed;
	/*
	 * Send contexts: grant + 8 + sig_every, made at the first call
	 * (send_pool.ctxts NULL until then).  Each received call reserves
	 * one (struct rpcrdma_call.send) before anything else; a call that
	 * finds none waits, holding its receive, on send_wait (conn->lock),
	 * and a send completion hands it the contexts it gives back
	 * (rpcrdma__recv_resume).  Calls hold at most grant + early_slack
	 * (<= 8) contexts (a connection with more calls is closed), so when
	 * one waits, at least sig_every are in Sends posted or queued for
	 * room: one of them is signaled, and its completion comes.
	 */
	struct rpcrdma__list send_wait;
	struct rpcrdma__pool send_pool;
	/*
	 * Without the SRQ: the receives posted at accept (recv_pool: the
	 * backward ones and RPCRDMA__IDLE_RECVS of the grant), and the rest
	 * of the grant's (recv_more, recv_more_n of them), made and posted
	 * by the first call (conn->lock) before its reply tells the client
	 * the grant (until then a client has one credit: credits.h; one that
	 * sends more finds no receive and retries: RNR).
	 */
	bool have_recv_pool, have_recv_more;
	struct rpcrdma__pool recv_pool;
	struct rpcrdma__pool recv_more;
	unsigned recv_more_n;

	struct rpcrdma__counters stats;
	/* The backward direction (rdma_backward.c): receives kept for its
	 * replies (the listener's bc_recvs, fixed at accept), and its state,
	 * made on first use (conn->lock). */
	unsigned bc_recvs;
	struct rpcrdma__rdma_bc *bc;
	struct rpcrdma__list lnode;     /* listener's connections */
	struct rpcrdma__conn *qp_hnext; /* dev->qp_hash chain (listener lock) */
	struct rpcrdma__rescg_ledger led; /* QP and its pools' MRs */
	struct rpcrdma__rb_conn rb;       /* its share of the read budget */
};

/* A received call: the receive context and what the call handle needs. */
struct rpcrdma_call {
	struct rpcrdma__ctxt c;
	bool posted;                    /* on its connection's own receive queue */
	struct rpcrdma__conn *conn;     /* NULL while posted to an SRQ */
	struct rpcrdma__dev *dev;
	struct ibv_recv_wr wr;
	struct ibv_sge sge;
	uint32_t byte_len;
	struct rpcrdma_hdr hdr;         /* view into c.buf */
	struct rpcrdma__mrbuf pulled;   /* call assembled from read chunks */
	struct rpcrdma__mrbuf rbuf;     /* rpcrdma_call_reply_buffer() */
	struct iovec iov;               /* the RPC call handed up */
	/* The send context reserved for the call's reply (or RDMA_ERROR)
	 * before it is checked or handed up, so that no reply ever finds
	 * none; a call that finds none waits on conn->send_wait (c.node). */
	struct rpcrdma__send *send;
	struct rpcrdma__rb_wait rbw;    /* read budget: asked or held */
	uint64_t pull_len;              /* the reassembled call's length */
};

/*
 * The wr_id of the WRs of a chain that are posted unsignaled: the RDMA
 * Writes before a reply's Send, every RDMA Read of a call but its last.
 * Only the chain's last WR is signaled, and its completion releases the
 * chain: one send queue completes in order, so it stands for all before
 * it.  An unsignaled WR still completes when it fails (a flush once the
 * QP is in error, or the error that put it there); that completion comes
 * here, before the last WR's own (a flush then), and only counts.
 */
struct rpcrdma__quiet {
	struct rpcrdma__ctxt c;         /* done: rpcrdma__{read,write}_quiet_done */
	struct rpcrdma__ctxt *owner;    /* the rpcrdma__read or rpcrdma__send */
};

/* The longest chain of a reply: RDMA Writes into one write chunk and the
 * reply chunk (the checker's segments per chunk each), and the Send. */
#define RPCRDMA__CHAIN_MAX (2 * RPCRDMA_DEFAULT_MAX_SEGMENTS + 1)

struct rpcrdma__chain {
	struct ibv_send_wr wr[RPCRDMA__CHAIN_MAX];
	struct ibv_sge sge[RPCRDMA__CHAIN_MAX];
};

/* A server Send, with the RDMA Writes chained before it. */
struct rpcrdma__send {
	struct rpcrdma__ctxt c;
	struct rpcrdma__conn *conn;
	struct ibv_send_wr *wrs;        /* nwr WRs; last is the Send */
	struct ibv_sge *sges;
	unsigned nwr;                   /* WRs in the chain, last one signaled */
	bool failed;
	struct rpcrdma__chain *chain;   /* wrs and sges of a reply by chunk (kept) */
	struct ibv_send_wr send_wr;     /* used when there are no writes */
	struct ibv_sge send_sge;
	struct rpcrdma__mrbuf bulk;     /* source of the RDMA Writes */
	bool bulk_region;               /* bulk is a listener region's: not ours to free */
	struct rpcrdma__quiet quiet;    /* the RDMA Writes' wr_id */
};

/* RDMA Reads pulling one call's read chunks. */
struct rpcrdma__read {
	struct rpcrdma__ctxt c;         /* no pool: the connection's cache */
	unsigned cap;                   /* WRs and SGEs that follow it */
	struct rpcrdma__conn *conn;
	struct rpcrdma_call *call;
	struct ibv_send_wr *wrs;
	struct ibv_sge *sges;
	unsigned nwr;                   /* WRs in the chain, last one signaled */
	bool failed;
	struct rpcrdma__quiet quiet;    /* wr_id of every Read but the last */
	struct ibv_mr *sink_mr;         /* iWARP: the sink's own MR (NULL: none) */
};

/* Access an RDMA Read's sink needs on a device of transport t: local
 * write, and on iWARP remote write too (rdma_rw.c). */
int rpcrdma__read_sink_access(enum ibv_transport_type t);

/* The connection is up: at its ESTABLISHED event or its first receive,
 * whichever the poller sees first (a receive can complete before the CM
 * event is read); counted in connects once.  Any thread. */
void rpcrdma__conn_established(struct rpcrdma__conn *conn);

#define RPCRDMA__READ_CACHE 8u
/* The connection's cache of read contexts: set up (conn_setup), and
 * freed with what it holds (conn_free). */
void rpcrdma__read_cache_init(struct rpcrdma__conn *conn);
void rpcrdma__read_cache_fini(struct rpcrdma__conn *conn);

struct rpcrdma_listener {
	struct rpcrdma_listener_opts opts;
	struct rpcrdma__pcap *pcap;     /* the wire capture; NULL: off */
	struct rpcrdma_poller *poller;
	/* The pollers whose CQs the connections' queue pairs are spread over
	 * (nspread 0: l->poller's): a connection takes the one with the
	 * fewest connections at admission, ties in turn, and keeps it
	 * (rdma_accept.c).  Connections on each (lock). */
	struct rpcrdma_poller *spread[RPCRDMA__SPREAD_MAX];
	unsigned spread_conns[RPCRDMA__SPREAD_MAX];
	unsigned nspread, spread_next;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;          /* NULL after a device removal until listening again */
	struct sockaddr_storage addr;   /* what was bound, for listening again */
	int port;                       /* bound port (host order) */
	struct rpcrdma__source cm_src;
	struct rpcrdma__source timer_src; /* reaps removed devices, listens again */
	struct rpcrdma__source idle_src;  /* idle timeout sweep (fd -1: none) */
	bool timer_armed;               /* (lock) */
	bool relisten;                  /* the listening id was lost (lock) */
	rpcrdma_call_handler handler;
	void *handler_arg;
	pthread_mutex_t lock;           /* devs, conns */
	pthread_cond_t conns_cond;      /* a connection was freed */
	bool closing;
	struct rpcrdma__list devs;
	struct rpcrdma__list conns;
	unsigned nconns;                /* accepted and not yet entirely freed */
	struct rpcrdma_idr *conn_ids;   /* conn_id -> conn, cyclic (lock) */
	struct rpcrdma__counters stats;
	/* rpcrdma_listener_register(): written under lock, entry i before
	 * nregions covers it (release); read without the lock. */
	struct { const void *addr; size_t len; } regions[RPCRDMA_LISTENER_REGIONS_MAX];
	atomic_uint nregions;
	/* The read budget, and the eventfd source on which a poller thread
	 * starts the calls it admits after a release (rdma_budget.c). */
	struct rpcrdma__rb rb;
	struct rpcrdma__source rb_src;
	/* Receives each connection keeps beyond its grant for the replies
	 * to calls the server sends back (0: none, a plain listener; the
	 * service's: RPCRDMA__BC_RECVS), and the eventfd source on which a
	 * poller thread posts those calls (rdma_backward.c). */
	unsigned bc_recvs;
	struct rpcrdma__source bc_src;
	pthread_mutex_t bc_lock;
	struct rpcrdma__list bc_queue;  /* Sends to post (bc_lock) */
};

/* Whether l's poller or one of its spread is DIRECT (no thread handles
 * its completions); rpcrdma__listener_poll polls each DIRECT one once and
 * flushes the batch: a listener's shutdown, waiting for its connections,
 * and a device's, for its SRQ's receives (rdma_dev.c). */
bool rpcrdma__listener_direct(const struct rpcrdma_listener *l);
void rpcrdma__listener_poll(struct rpcrdma_listener *l);

/* Whether a receive context is one of its device's SRQ buffers (else a
 * connection's own). */
static inline bool rpcrdma__call_on_srq(const struct rpcrdma_call *call)
{
	return call->c.pool == &call->dev->srq_pool;
}

/* A reference on conn (taken where one is held already, or under the
 * listener lock while conn is not freeing); rpcrdma__conn_put drops it,
 * and the last one frees conn (rdma_conn.c). */
static inline void rpcrdma__conn_get(struct rpcrdma__conn *conn)
{
	atomic_fetch_add_explicit(&conn->refs, 1, memory_order_relaxed);
}
void rpcrdma__conn_put(struct rpcrdma__conn *conn);
/* Starts closing (disconnect + flush); idempotent, any thread. */
void rpcrdma__conn_close(struct rpcrdma__conn *conn, const char *why);
/* Reports a connection event (peer from id, may be NULL) to l's log hook. */
void rpcrdma__conn_log(const struct rpcrdma_listener *l, enum rpcrdma_log_event ev,
		       struct rdma_cm_id *id, const char *why, int err);
/* The drain Send's completion (conn->drain): drops its reference. */
rpcrdma__done_fn rpcrdma__conn_drain_done;
/* Posts a receive back (SRQ or the connection's RQ); frees it when the
 * connection is closing and has its own RQ. */
void rpcrdma__recv_repost(struct rpcrdma_call *call);
/* Before a device's SRQ is destroyed (every connection on it freed): stops
 * reposting and waits until no repost is under way, so that no poller
 * thread posts to the destroyed SRQ.  With wait_all (an application thread)
 * it also waits, at most 2 s, until every SRQ receive context is back in its
 * pool or still in the SRQ: no completion of one is handled after
 * (rdma_dev.c, a step of rpcrdma__dev_destroy). */
void rpcrdma__recv_srq_quiesce(struct rpcrdma__dev *dev, bool wait_all);
/* Posts every free receive of pool, one of conn's (taking a reference
 * each).  0 or a negative errno (the rest left in the pool). */
int rpcrdma__recv_post_pool(struct rpcrdma__conn *conn, struct rpcrdma__pool *pool);

/* Bytes of a Send asked to go inline (IBV_SEND_INLINE: the provider
 * copies them into the work request, so the device reads no registered
 * memory for them); a QP that cannot is created without. */
#define RPCRDMA__INLINE_SEND 256
/* Lone Sends (a server's inline replies, a client's calls) ask for one
 * completion in this many at most (struct rpcrdma__conn.sig_every, struct
 * cconn.sig_every). */
#define RPCRDMA__SIG_EVERY 16u
/* The longest write or reply chunk a call may offer when max_call_bytes
 * is smaller (rdma_recv.c): the limit before max_call_bytes came down. */
#define RPCRDMA__MAX_WRITE_CHUNK (16u << 20)
/* Receives an SRQ holds beyond the grants' sum (struct rpcrdma__dev
 * early_slack): an inline reply goes out before its receive is reposted
 * while fewer than this many others do. */
#define RPCRDMA__EARLY_SLACK 8u
/* Receives of the grant a connection without the SRQ posts at accept; the
 * rest wait for its first call (struct rpcrdma__conn.recv_more): 4 KiB
 * each, an idle connection's largest cost after the rings. */
#define RPCRDMA__IDLE_RECVS 4u

/* Receives a connection of the service keeps for the replies to its
 * backward calls (RFC 8167; rdma_backward.h). */
#define RPCRDMA__BC_RECVS 2u
struct rpcrdma__rdma_bc;
/* Opens an early window (a reply sent, or its callback run, before its
 * receive is posted again) when fewer than slack are open in *open; the
 * caller closes it with rpcrdma__early_leave after the repost. */
static inline bool rpcrdma__early_enter(atomic_uint *open, unsigned slack)
{
	if (!slack)
		return false;
	if (atomic_fetch_add_explicit(open, 1, memory_order_relaxed) < slack)
		return true;
	atomic_fetch_sub_explicit(open, 1, memory_order_relaxed);
	return false;
}

static inline void rpcrdma__early_leave(atomic_uint *open)
{
	atomic_fetch_sub_explicit(open, 1, memory_order_relaxed);
}
/*
 * Soft-iWARP sends on a kernel TCP socket inside verbs calls, without
 * MSG_NOSIGNAL: a peer gone raises SIGPIPE in the calling thread
 * (rdma_sigpipe.c).  rpcrdma__nosig_enter .. _leave around such a call on
 * verbs' device blocks SIGPIPE in the thread and takes back the one the
 * call raised; nothing on other transports.  _leave keeps errno.
 */
struct rpcrdma__nosig {
	sigset_t old;
	bool on, had;
};
void rpcrdma__nosig_enter(struct rpcrdma__nosig *g, const struct ibv_context *verbs);
void rpcrdma__nosig_leave(struct rpcrdma__nosig *g);
int rpcrdma__post_send_iwarp(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
/* ibv_post_send (its positive errno), SIGPIPE-safe on iWARP. */
static inline int rpcrdma__post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
				     struct ibv_send_wr **bad)
{
	if (rpcrdma__likely(qp->context->device->transport_type != IBV_TRANSPORT_IWARP))
		return ibv_post_send(qp, wr, bad);
	return rpcrdma__post_send_iwarp(qp, wr, bad);
}
/* The QP to IBV_QPS_ERR, rdma_disconnect, rdma_accept, rdma_reject (no
 * private data) and rdma_connect: 0 or -errno, SIGPIPE-safe. */
int rpcrdma__qp_error(struct ibv_qp *qp);
int rpcrdma__disconnect(struct rdma_cm_id *id);
int rpcrdma__accept(struct rdma_cm_id *id, struct rdma_conn_param *param);
int rpcrdma__reject(struct rdma_cm_id *id);
int rpcrdma__connect(struct rdma_cm_id *id, struct rdma_conn_param *param);
/* rdma_create_qp, asking for RPCRDMA__INLINE_SEND bytes of inline data
 * first and none when the device refuses; returns 0 or -errno. */
int rpcrdma__create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qa);

/* Posts a chain of n send-queue WRs under the connection lock, or queues it
 * on node until the send queue has room.  Takes a connection reference. */
int rpcrdma__conn_post(struct rpcrdma__conn *conn, struct ibv_send_wr *first, unsigned n,
		       struct rpcrdma__list *node);
/* The same for a reply's chain (a Send last, contiguous WRs): inside a
 * thread's batch (poller_int.h) queued, posted at the batch's end with the
 * other replies it finished. */
int rpcrdma__conn_post_reply(struct rpcrdma__conn *conn, struct ibv_send_wr *first, unsigned n,
			     struct rpcrdma__list *node);
/* A Read chain's completion: takes node (the chain's) off conn->reads,
 * returns its n send-queue slots and posts waiting chains. */
void rpcrdma__conn_reads_done(struct rpcrdma__conn *conn, struct rpcrdma__list *node, unsigned n);
/* A Send's completion: moves the Send at node and every Send posted before
 * it (node NULL: every Send) from conn->sends to *done, gives back their
 * send-queue room and posts the chains it lets go. */
void rpcrdma__conn_sends_done(struct rpcrdma__conn *conn, struct rpcrdma__list *node,
			      struct rpcrdma__list *done);

/* Release a chain that was never posted (connection closed meanwhile). */
void rpcrdma__send_abort(struct rpcrdma__send *s);
void rpcrdma__read_abort(struct rpcrdma__read *r);
/* Releases the Sends of a list from rpcrdma__conn_sends_done (one
 * connection's), each with the reference its post took. */
void rpcrdma__sends_release(struct rpcrdma__list *done);
/* Hands a checked call (payload ready) to the upper layer. */
void rpcrdma__call_deliver(struct rpcrdma_call *call);
/* Sends RDMA_ERROR (ERR_VERS when vers, else ERR_CHUNK) for call and
 * releases it. */
void rpcrdma__send_error(struct rpcrdma_call *call, bool vers);
/* Releases a call without reply (drop), and its reserved send context. */
void rpcrdma__call_release(struct rpcrdma_call *call);
/* conn->lock held, the first call of conn: allocates and registers its
 * send pool (grant + 8 + sig_every buffers of send_inline bytes), which
 * an idle connection that never called does without; its charge (xprt.h,
 * RESOURCE ACCOUNTING) was made at accept.  0 or a negative errno, the
 * pool then untouched (rdma_conn.c). */
int rpcrdma__conn_send_pool(struct rpcrdma__conn *conn);
/* conn->lock held, the first call of conn, without the SRQ: makes and
 * posts the receives of its grant beyond those posted at accept
 * (recv_more).  0 (also when there are none) or a negative errno: the
 * caller closes the connection (rdma_conn.c). */
int rpcrdma__conn_recv_more(struct rpcrdma__conn *conn);
/* A send context of conn's pool, cleared, or NULL (rdma_send.c). */
struct rpcrdma__send *rpcrdma__send_get(struct rpcrdma__conn *conn);
/* Gives back a send context that was never posted. */
void rpcrdma__send_put(struct rpcrdma__send *s);
/* rpcrdma__pool_fini for a connection's send pool: frees the contexts'
 * chain arrays too. */
void rpcrdma__send_pool_fini(struct rpcrdma__pool *pool);
/* On a poller thread, after send contexts went back to conn's pool: hands
 * them to the calls waiting on conn->send_wait and handles those calls;
 * on a closing connection releases them instead (any thread then). */
void rpcrdma__recv_resume(struct rpcrdma__conn *conn);
/* Checks the call's read chunks and sets call->pull_len, the length of the
 * reassembled call: 0, -EINVAL (a chunk out of place) or -EMSGSIZE (above
 * max_call_bytes, or nothing) (rdma_rw.c). */
int rpcrdma__read_size(struct rpcrdma_call *call);
/* Starts RDMA Reads for the call's read chunks (call->pull_len from
 * rpcrdma__read_size); the call is delivered when they complete.  Returns
 * 0, or a negative errno with the call untouched (rdma_rw.c). */
int rpcrdma__read_chunks(struct rpcrdma_call *call);
/* Pulls the call's read chunks within the read budget: starts now, or
 * queues it until a release makes room (rdma_budget.c).  Returns 0 (the
 * call is owned by the transport: delivered, or released with its
 * connection) or what rpcrdma__read_size/read_chunks returned. */
int rpcrdma__budget_pull(struct rpcrdma_call *call);
/* A failed pull of call (err from rpcrdma__budget_pull, or from a start
 * after waiting): ERR_CHUNK for -EINVAL and -EMSGSIZE, else dropped
 * (rdma_recv.c). */
void rpcrdma__recv_pull_failed(struct rpcrdma_call *call, int err);
/* Whether this thread is delivering a call the read budget admitted after
 * it waited (on the thread that released the budget, not from the call's
 * own completion queue: its read chunks held nothing to pull). */
bool rpcrdma__budget_starting(void);
/* Gives back the budget the call holds (rpcrdma__call_release). */
void rpcrdma__budget_release(struct rpcrdma_call *call);
/* Releases the calls still waiting on conn (rpcrdma__conn_close). */
void rpcrdma__budget_conn_close(struct rpcrdma__conn *conn);
/* Listener options: defaults, checks, the effective read budget. */
int rpcrdma__listener_opts_get(const struct rpcrdma_listener_opts *uopts,
			       struct rpcrdma_listener_opts *out);
/* The budget and its source on l->poller; 0 or -errno (nothing kept). */
int rpcrdma__budget_start(struct rpcrdma_listener *l);
/* Removes the source (shutdown); frees everything (destroy). */
void rpcrdma__budget_stop(struct rpcrdma_listener *l);
void rpcrdma__budget_free(struct rpcrdma_listener *l);
/* The registered size class mrcache_get would use for len (ctxt.c). */
size_t rpcrdma__mrcache_class(size_t len);
/* Builds RDMA Writes of src[0, len) into chunk ch; appends WRs,
 * unsignaled, with wr_id (a struct rpcrdma__quiet: the Send after them
 * is signaled). */
unsigned rpcrdma__build_writes(struct ibv_send_wr *wrs, struct ibv_sge *sges,
			       const struct rpcrdma_chunk *chunk, const struct rpcrdma__mrbuf *src,
			       size_t src_off, size_t len, uint64_t wr_id, uint32_t max_sge_len);
/* A work request of conn completed with wc's error: a flush (the QP is
 * in error) is counted, any other error is counted and closes conn (what:
 * for the log).  Nothing for a success (rdma_conn.c). */
void rpcrdma__conn_wc_failed(struct rpcrdma__conn *conn, const struct ibv_wc *wc,
			     const char *what);

#include "rdma_server.h"

#endif /* RPCRDMA_RDMA_INTERNAL_H */
