/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the client transport's files share: the client, its connections,
 * calls and contexts, and the helpers on the call and reply paths
 * (static inline here, so that they inline as they did in one file).
 * Names: the RDMA transport client is `client` (rpcrdma_client_* in
 * <rpcrdma/client.h>, rpcrdma__client_* inside); cconn, creq, crecv and
 * csend are its connection, call, receive and send contexts.  The RPC
 * client above it is `clnt` (lib/clnt).
 *
 * From the top down (a file calls only files below it):
 *   rdma_client.c          options, create and destroy, synchronous calls,
 *                          abort
 *   rdma_client_reply.c    receive completions: a reply decoded and matched
 *   rdma_client_backward.c calls from the server (RFC 8167)
 *   rdma_client_send.c     calls: chunk choice, the Send, the pump, send
 *                          completions
 *   rdma_client_connect.c  connect, reconnect backoff (the completion
 *                          handlers it sets come from the client)
 *   rdma_client_conn.c     Sends given back, break, drain, reap
 *   rdma_client_bufs.c     registered bounce buffers
 *
 * The internal header of lib/rdma/client, the RDMA transport's client
 * side.  Who may include it: lib/rdma/client and lib/clnt/clnt_rdma.c
 * (the RPC client's RDMA plug).  Never lib/rdma's server files, lib/svc
 * or anything below.  lib/rdma/client includes util, wire, pcap and
 * lib/rdma (tests/include-layers.sh checks it).  Not installed.
 */
#ifndef RPCRDMA_RDMA_CLIENT_INT_H
#define RPCRDMA_RDMA_CLIENT_INT_H

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rdma_internal.h"

/*
 * The backward direction (RFC 8167): receives each connection keeps for
 * calls from the server beyond its credits, granted to the server in our
 * backward replies.  The hook gets each such call, msg[0..len-1] the RPC
 * message, on a poller thread (valid during the call); the reply goes back
 * with rpcrdma__client_backward_reply (any thread): 0, -ENOTCONN,
 * -EMSGSIZE (larger than inline), -ENOBUFS.  Set the hook once, before
 * calls may come (clnt_rdma.c, at create); fn and arg outlive the client.
 */
#define RPCRDMA__CLIENT_BC_RECVS 2u
typedef void (*rpcrdma__client_bc_fn)(void *arg, const void *msg, size_t len);
void rpcrdma__client_set_backward(struct rpcrdma_client *c, rpcrdma__client_bc_fn fn, void *arg);
int rpcrdma__client_backward_reply(struct rpcrdma_client *c, const void *msg, size_t len);

/* One connection; replaced on reconnect, freed once its WRs flushed. */
struct cconn {
	struct rpcrdma_client *c;
	struct rpcrdma__pcap_ep pcap;   /* the wire capture's (c->pcap) */
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct rpcrdma__source cm_src;
	bool cm_added;
	atomic_bool dev_removed;        /* DEVICE_REMOVAL: drop the device's CQ at free */
	struct ibv_pd *pd;
	struct rpcrdma__cq *cq;
	int cq_entries;
	struct ibv_qp *qp;
	struct rpcrdma__pool recv_pool, send_pool;
	/* Registered bounce buffers kept for the next calls (see bufs_get). */
	pthread_mutex_t buf_lock;
	struct rpcrdma__list rbufs, wbufs;  /* peer may read / may write */
	size_t buf_bytes;
	atomic_int refs;                /* 0: every WR completed, can be freed */
	atomic_bool dead;               /* set under the client lock */
	struct rpcrdma__list gnode;     /* client's graveyard once dead */
	uint32_t send_max;              /* call bytes we may Send */
	uint32_t sq_depth;
	uint32_t max_inline;            /* Sends this short go IBV_SEND_INLINE */
	/*
	 * Sends posted and not yet given back to send_pool, oldest first
	 * (client lock; through the context's pool node).  Only one Send in
	 * sig_every asks for a completion: a send queue completes in order,
	 * so a completion, or the flush of any Send, gives back every Send up
	 * to it (rpcrdma__client_send_release).  sig_every is at most a quarter
	 * of the pool, so an empty pool always holds a signaled Send.
	 */
	struct rpcrdma__list posted;
	uint32_t unsignaled, sig_every; /* Sends since the last signaled one */
	struct csend *drain;            /* posted at break: flushes the rest */
	/*
	 * Sends queued by a thread's batch (poller_int.h: the poller opens
	 * one around each poll of a CQ), posted as one list at its end
	 * (client lock): the first WR, the last, the item on the batch's
	 * list (bq_listed: on one, holding a reference).  Already counted
	 * as posted (posted, unsignaled, refs); any other post on the
	 * connection goes behind them (rpcrdma__client_post).  Given back
	 * at the flush when the connection is dead, or by the drain, which
	 * empties the queue as it goes behind it.  bq_lost: a post that
	 * went behind them failed with some of them: the flush breaks the
	 * connection.
	 */
	struct ibv_send_wr *bq_head, *bq_tail;
	struct rpcrdma__batch_item bq;
	bool bq_listed, bq_lost;
	/* iWARP: soft-iWARP never completes a WR posted once the QP left
	 * RTS, so no drain is posted at break; every Send asks for a
	 * completion instead (sig_every 1), and each one's own completion
	 * or flush gives it back. */
	bool no_drain;
	/* Replies whose done callback ran before their receive was posted
	 * again, at most RPCRDMA__EARLY_SLACK at once: the receive queue
	 * holds that many (early_slack) beyond the credits we ask for. */
	atomic_uint early_open;
	uint32_t early_slack;
};

struct crecv {
	struct rpcrdma__ctxt c;
	struct cconn *cc;
	struct ibv_recv_wr wr;
	struct ibv_sge sge;
};

struct csend {
	struct rpcrdma__ctxt c;
	struct cconn *cc;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
};

struct creq {
	struct rpcrdma__list node;      /* wait list or in-flight list; the
					 * cache's link while cached */
	struct rpcrdma_client_call *call;
	rpcrdma_client_done done;
	void *arg;
	uint32_t xid;
	struct creq *xnext;             /* next call in its xid bucket */
	struct rpcrdma__mrbuf rd, pz, wr, rp;  /* data item, position zero, write, reply */
	struct cconn *cc;               /* set once sent */
};

RPCRDMA__BCACHE_TYPED(creq_block, struct creq)

struct rpcrdma_client {
	struct rpcrdma_client_opts opts;
	struct rpcrdma__pcap *pcap;     /* the wire capture; NULL: off */
	struct rpcrdma_poller *poller;
	struct sockaddr_storage dst;
	pthread_mutex_t lock;
	pthread_mutex_t connect_lock;
	pthread_cond_t reap_cv;         /* a dead connection's last WR completed */
	struct cconn *cc;               /* current connection or NULL */
	/* cc is live and the graveyard empty: client_connected has nothing
	 * to do (set under the client lock by client_ready_update, read without) */
	atomic_bool ready;
	struct rpcrdma_client_credits credits;
	unsigned inflight, max_inflight;
	bool connected_once;
	/* reconnect backoff (connect_lock; backoff_ms also read unlocked) */
	_Atomic int backoff_ms;         /* 0: the next reconnect is tried */
	uint64_t retry_at_ns;           /* rpcrdma__now_ns(): no try before */
	int backoff_err;                /* what the last failed try returned */
	struct rpcrdma__list waiting, sent;
	/* Finished calls' creqs kept for the next calls (client lock): a
	 * call then costs no calloc and free. */
	struct rpcrdma__bcache creq_cache;  /* at most twice the credits */
	/* Every call from call_async until it completes, by xid: a chain
	 * (creq.xnext) per bucket, the bucket the xid's host-order value's
	 * low bits.  A client numbers its calls consecutively, so the calls
	 * in flight (at most the grant) fall one a bucket while there are
	 * more buckets than credits.  Client lock. */
	struct creq **xbuckets;
	uint32_t xmask;                 /* buckets - 1 */
	struct rpcrdma__list graveyard; /* dead connections still flushing */
	/* timerfd: after a device removal, reaps the graveyard on a poller
	 * thread, so that an idle client does not hold the device (the
	 * kernel's delete waits for it) until its next call or destroy */
	struct rpcrdma__source reap_src;
	bool reap_added;                /* on the poller (set at create) */
	bool reap_armed;                /* client lock */
	struct rpcrdma__counters stats;
	/* The completion handlers of a connection's receives and Sends
	 * (reply.c, send.c), set at create for connect.c, which sits below
	 * them. */
	rpcrdma__done_fn *recv_done, *send_done;
	/* Calls from the server (rdma_client_backward.c): the hook, set once,
	 * read by poller threads. */
	_Atomic(rpcrdma__client_bc_fn) bc_fn;
	void *bc_arg;
};

/* ---- registered bounce buffers ---- */

/*
 * The data a call moves by chunk goes through bounce buffers registered
 * once per connection and reused (registering per call costs a kernel
 * round trip and page pinning each time; the data is copied into or out of
 * the caller's buffers instead).  The rule that remotely reachable memory
 * is deregistered after its call does not apply to them: each connection
 * has its own protection domain, so the only peer that can ever reach one
 * of its buffers is that connection's server, and the buffers only ever
 * hold data exchanged with that server; the caller's own memory is never
 * registered.  Read sources (IBV_ACCESS_REMOTE_READ) and write targets
 * (IBV_ACCESS_REMOTE_WRITE) are kept apart, in power-of-two classes from
 * 4 KiB; at most BUF_CACHE_MAX bytes stay per connection.
 */
#define BUF_CACHE_MAX ((size_t)64 << 20)
#define BUF_READ (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ)
#define BUF_WRITE (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

/* ---- shared between the files (each defined where its name says) ---- */

/* rdma_client.c: a call of rpcrdma_clnt (clnt_rdma.c) timed out.  True
 * when it still waited for the grant and is taken back (its done is never
 * called); else its connection is broken and done comes (-ECONNRESET). */
bool rpcrdma__client_abort(struct rpcrdma_client *c, struct rpcrdma_client_call *call);

/* rdma_client_backward.c: a receive completion that carries a call from
 * the server: handed to the hook, its receive posted again; false when
 * it is not one (or no hook is set). */
bool rpcrdma__client_bc_recv(struct rpcrdma_client *c, struct cconn *cc, struct crecv *rv,
			     uint32_t len);

/* rdma_client_bufs.c: a buffer of at least len bytes with `access`
 * (b->len = len): 0 or -ENOMEM (never -ENOBUFS, which means "wait for a
 * send buffer" to req_send's callers). */
/* The send contexts (and send queue WRs, the drain's apart) of a
 * connection asking for credits, within max_wr; *sig_every: one Send in
 * that many is signaled (rdma_client_connect.c). */
uint32_t rpcrdma__client_send_depth(uint32_t credits, uint32_t max_wr, uint32_t *sig_every);
int rpcrdma__client_bufs_get(struct cconn *cc, struct rpcrdma__mrbuf *b, size_t len, int access);
/* Gives r's bounce buffers back to cc's cache. */
void rpcrdma__client_req_release(struct cconn *cc, struct creq *r);
void rpcrdma__client_bufs_fini(struct cconn *cc);

/* rdma_client_conn.c */
void rpcrdma__client_reap(struct rpcrdma_client *c, bool wait);
void rpcrdma__client_break(struct rpcrdma_client *c, struct cconn *cc, int status);
int rpcrdma__client_reaper_handle(struct rpcrdma__source *s, unsigned budget);
/* A connection's CM source (cc->cm_src): disconnects, device removal. */
int rpcrdma__client_cm_handle(struct rpcrdma__source *s, unsigned budget);
bool rpcrdma__client_send_release(struct rpcrdma_client *c, struct cconn *cc, struct csend *s);

/* rdma_client_send.c */
/* Client lock held, cc live: posts s's Send (its WR set), or inside a
 * thread's batch queues it for the batch's end, and counts it as posted
 * (cc->posted, unsignaled, a reference).  0, or the provider's -errno
 * with nothing counted. */
int rpcrdma__client_post(struct rpcrdma_client *c, struct cconn *cc, struct csend *s, bool sig);
/* Sends what the grant and the send buffers allow; fails what cannot be
 * sent. */
void rpcrdma__client_pump(struct rpcrdma_client *c);
rpcrdma__done_fn rpcrdma__client_send_done; /* a call's Send, and the drain */

/* rdma_client_reply.c */
rpcrdma__done_fn rpcrdma__client_recv_done; /* a receive: a reply, or a backward call */

/* rdma_client_connect.c: connects when there is no connection (unless
 * the reconnect backoff holds the try back: its error then). */
int rpcrdma__client_connect(struct rpcrdma_client *c);

/*
 * Dropping the last reference only marks the connection flushed: it is
 * freed by rpcrdma__client_reap() on an application thread (connect,
 * destroy), never on a poller thread, because freeing removes its CM
 * source from the poller.
 */
static inline void cconn_put(struct cconn *cc)
{
	struct rpcrdma_client *c = cc->c;

	if (atomic_fetch_sub_explicit(&cc->refs, 1, memory_order_acq_rel) == 1) {
		pthread_mutex_lock(&c->lock);
		pthread_cond_broadcast(&c->reap_cv);
		pthread_mutex_unlock(&c->lock);
	}
}

/* Client lock held: after a change of cc, cc->dead or the graveyard. */
static inline void client_ready_update(struct rpcrdma_client *c)
{
	atomic_store_explicit(&c->ready,
			      c->cc && !c->cc->dead && rpcrdma__list_empty(&c->graveyard),
			      memory_order_release);
}

/* ---- the table of calls by xid (client lock held) ---- */

static inline struct creq **xid_bucket(struct rpcrdma_client *c, uint32_t xid)
{
	return &c->xbuckets[ntohl(xid) & c->xmask];
}

/* Enters r: 0, or -EEXIST (a call with its xid is there). */
static inline int xid_add(struct rpcrdma_client *c, struct creq *r)
{
	struct creq **b = xid_bucket(c, r->xid);

	for (struct creq *q = *b; q; q = q->xnext)
		if (q->xid == r->xid)
			return -EEXIST;
	r->xnext = *b;
	*b = r;
	return 0;
}

static inline void xid_del(struct rpcrdma_client *c, struct creq *r)
{
	for (struct creq **pp = xid_bucket(c, r->xid); *pp; pp = &(*pp)->xnext) {
		if (*pp == r) {
			*pp = r->xnext;
			break;
		}
	}
	r->xnext = NULL;
}

/* The call sent on cc that a reply with this xid answers, or NULL. */
static inline struct creq *xid_find(struct rpcrdma_client *c, uint32_t xid, const struct cconn *cc)
{
	for (struct creq *q = *xid_bucket(c, xid); q; q = q->xnext)
		if (q->xid == xid && q->cc == cc)
			return q;
	return NULL;
}

static inline int post_recv(struct cconn *cc, struct crecv *rv)
{
	struct ibv_recv_wr *bad;

	rv->cc = cc;
	rv->sge.addr = (uintptr_t)rv->c.buf;
	rv->sge.length = (uint32_t)rv->c.pool->buf_size;
	rv->sge.lkey = rv->c.lkey;
	rv->wr.wr_id = (uintptr_t)&rv->c;
	rv->wr.next = NULL;
	rv->wr.sg_list = &rv->sge;
	rv->wr.num_sge = 1;
	atomic_fetch_add(&cc->refs, 1);
	if (ibv_post_recv(cc->qp, &rv->wr, &bad)) {
		atomic_fetch_sub(&cc->refs, 1);
		rpcrdma__pool_put(&rv->c);
		return -EIO;
	}
	return 0;
}

/* Client lock held: a creq from the cache or calloc'd, its buffers empty
 * and cc NULL; the caller sets call, done, arg and xid. */
static inline struct creq *creq_get(struct rpcrdma_client *c)
{
	size_t cap;
	struct creq *r = creq_block_get(&c->creq_cache, 0, &cap);

	if (!r)
		return calloc(1, sizeof(struct creq));
	r->cc = NULL;
	return r;
}

/* Client lock held: keeps r for a later call, up to twice the credits.
 * r's four buffers must be empty (given back by rpcrdma__client_req_release,
 * or moved out as the reply path does), which spares creq_get a memset. */
static inline void creq_put(struct rpcrdma_client *c, struct creq *r)
{
	if (!creq_block_put(&c->creq_cache, r, 0))
		free(r);
}

#endif
