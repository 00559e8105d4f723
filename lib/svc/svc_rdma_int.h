/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The service's RDMA transport, shared by svc_rdma.c (the listener, its
 * calls and replies) and svc_rdma_drive.c (the DIRECT poller the service
 * drives).
 */
#ifndef RPCRDMA_SVC_RDMA_INT_H
#define RPCRDMA_SVC_RDMA_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "rdma/rdma_internal.h"
#include "svc_int.h"
#include "util/bcache.h"

struct rdma_req;
struct rpcrdma_call;
struct rpcrdma_poller;
struct rdma_event_channel;

struct rpcrdma__svc_rdma {
	struct rpcrdma__svc_source src; /* eventfd: calls queued / slots freed */
	struct rpcrdma_svc *svc;
	struct rpcrdma__svc_xprt *xprt;
	struct rpcrdma_listener *listener;
	struct rpcrdma__svc_rdma *next; /* svc->rdmas, svc->lock */

	pthread_mutex_t lock;           /* guards the queue and the flags */
	struct rdma_req *head, **tail;
	bool closing;                   /* new calls are dropped */
	bool stalled;                   /* the loop waits for a free slot */
	bool kicked;                    /* the eventfd has been written */
	unsigned live;                  /* requests not yet freed */
	atomic_size_t pre_bytes;        /* reply buffers registered at arrival */
	pthread_cond_t gone;            /* live reached 0 */
	struct rpcrdma__bcache reqs;    /* the pool of requests (lock) */
	size_t own_cap;                 /* each one's reply buffer */
	/* Reply buffers larger than own_cap (replies by reply chunk) kept
	 * for reuse, at most SVC_RDMA_BIG_KEEP_BYTES of them (lock). */
	struct rpcrdma__bcache bigs;
	size_t big_bytes;
	bool switch_creds;              /* RPCRDMA_SVC_HANDLERS_SWITCH_CREDS */

	/* Replies waiting for the sender thread (see rdma_done). */
	struct rdma_req *out_head, **out_tail;
	pthread_cond_t out_cond;
	bool sender_stop;
	bool sender_started;
	pthread_t sender;

};

/* The DIRECT poller a service drives (see the top of svc_rdma.c). */
struct rpcrdma__svc_rdrive {
	struct rpcrdma__svc_source src; /* the poller's fd, while the loop polls */
	struct rpcrdma_svc *svc;
	struct rpcrdma_poller *poller;
	/* An rdma_cm file of its own, opened with the credentials the
	 * listeners' files were: a write of no bytes to it asks the kernel
	 * whether this thread may still give RDMA commands (see on_poller). */
	struct rdma_event_channel *probe;
	struct rpcrdma__svc_loop *loop; /* whose epoll set and thread poll it */
	/* Calls its loop thread reaped in the poll under way (on_call, told
	 * by rpcrdma__svc_rdrive_current), run by run right after it: only
	 * that thread touches them, no lock. */
	struct rdma_req *head, **tail;
	/* The transport's (svc_rdma.c), given to rpcrdma__svc_rdrive_get:
	 * hands a call of this queue to the core, on the loop thread. */
	void (*run)(struct rdma_req *q);

	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool handed;                    /* the driver thread polls */
	bool stop;
	int stop_fd;                    /* eventfd: the driver thread stops */
	bool started;                   /* thread runs */
	pthread_t thread;
};

/*
 * A call in the service, from on_call to its reply's post.  Requests come
 * from the listener's pool (struct rpcrdma__svc_rdma.free), made with a
 * reply buffer of own_cap bytes (the listener's send_inline: whatever goes
 * inline fits), as many as one connection's grant at listen time and more
 * when more calls are in progress (the sum of the connections' grants
 * bounds them), kept up to SVC_RDMA_KEEP grants' worth.  A reply larger
 * than own_cap (a reply chunk's) takes a buffer from the listener's cache
 * of large buffers (a block cache, util/bcache.h), or a new one that goes
 * back to it, up to SVC_RDMA_BIG_KEEP_BYTES.
 */
struct rdma_req {
	struct rdma_req *next;
	struct rpcrdma__svc_rdma *r;    /* its listener's transport */
	struct rpcrdma_call *call;
	size_t bulk_off, bulk_len;
	void *buf;                      /* the encoded reply, for the sender */
	size_t len;
	void *pre;                      /* the call's reply buffer, or NULL */
	size_t pre_len;
	bool registered;                /* buf is pre (the call's, gone with it) */
	void *own;                      /* the request's reply buffer, own_cap bytes */
	size_t big_cap;                 /* buf is a large buffer of this size */
};

/* Write chunks from which a reply buffer is registered at arrival (smaller
 * bulk items are copied, cheaply), the largest such buffer, and the most
 * the listener holds at once: the size is the client's offer, so without a
 * budget clients could pin memory by offering large chunks; beyond it
 * replies are copied as before. */
#define SVC_RDMA_PRE_MIN 8192u
#define SVC_RDMA_PRE_MAX ((size_t)16 << 20)
#define SVC_RDMA_PRE_BUDGET ((size_t)64 << 20)

/* svc_rdma_req.c: the listener's requests and reply buffers. */
/* A buffer of at least len bytes (its size in *cap), NULL: out of memory. */
void *rpcrdma__svc_big_get(struct rpcrdma__svc_rdma *r, size_t len, size_t *cap);
/* Takes len bytes of the budget; false when they would exceed it. */
bool rpcrdma__svc_pre_take(struct rpcrdma__svc_rdma *r, size_t len);
/* A request from the pool, cleared; NULL when out of memory. */
struct rdma_req *rpcrdma__svc_req_get(struct rpcrdma__svc_rdma *r);
/* r->lock held: q back to the pool, else q (the caller frees it). */
struct rdma_req *rpcrdma__svc_req_put_locked(struct rpcrdma__svc_rdma *r, struct rdma_req *q);
/* Gives back q's share of the budget and the reply buffer it may own. */
void rpcrdma__svc_req_clear(struct rpcrdma__svc_rdma *r, struct rdma_req *q);
/* Clears q and returns it to the pool. */
void rpcrdma__svc_req_free(struct rpcrdma__svc_rdma *r, struct rdma_req *q);
/* The pool at listen time: grant requests of own_cap bytes of reply. */
int rpcrdma__svc_req_pool_init(struct rpcrdma__svc_rdma *r, unsigned grant, size_t own_cap);
void rpcrdma__svc_req_pool_fini(struct rpcrdma__svc_rdma *r);

/* Whether the calling thread may give RDMA commands: with
 * RPCRDMA_SVC_HANDLERS_TELL_CREDS, yes without asking while the thread
 * never said it switches (rpcrdma_svc_creds_switching); else asks the
 * kernel (for call with rpcrdma__call_may_post, else with a write of no
 * bytes to fd) until its first refusal, which is kept for the thread
 * (svc_rdma_drive.c). */
bool rpcrdma__svc_rdma_may(const struct rpcrdma_svc *svc, const struct rpcrdma_call *call, int fd);
/* The service's driver for DIRECT poller p, made on first use (svc->lock
 * held), on loops[0]; -EINVAL when the service already drives another
 * poller.  run: the transport's (see struct rpcrdma__svc_rdrive), the
 * same at each call.  Freed with rpcrdma__svc_rdrive_free (NULL: nothing),
 * which stops its thread.  The driver sits below the transport: it names
 * none of its functions, it calls run. */
int rpcrdma__svc_rdrive_get(struct rpcrdma_svc *svc, struct rpcrdma_poller *p,
			    void (*run)(struct rdma_req *q), struct rpcrdma__svc_rdrive **out);
void rpcrdma__svc_rdrive_free(struct rpcrdma__svc_rdrive *d);
/* The driver whose poll this thread is inside (on_poller), or NULL: a call
 * reaped there goes on its queue (rpcrdma__svc_rdrive_queue) and runs on
 * this thread right after the poll. */
struct rpcrdma__svc_rdrive *rpcrdma__svc_rdrive_current(void);
void rpcrdma__svc_rdrive_queue(struct rpcrdma__svc_rdrive *d, struct rdma_req *q);
/*
 * Several loops over RDMA (docs/threading.md): with opts.loops = K > 1 and
 * handlers that do not switch credentials, the service polls one DIRECT
 * poller per loop, each on its loop's epoll set, made on the first RDMA
 * listener (svc->lock held; loops[0]'s is given, when it is DIRECT and
 * already driven as svc->rdrive, else made like the others: given's
 * options, DIRECT, one CQ per device).  Fills spread[0, K) with them and
 * *n with K; *n 0 (nothing made) for a service of one loop or with
 * RPCRDMA_SVC_HANDLERS_SWITCH_CREDS.  -errno, what was made kept for
 * rpcrdma__svc_spread_free (the class's drain, after every listener).
 */
int rpcrdma__svc_spread_get(struct rpcrdma_svc *svc, struct rpcrdma_poller *given,
			    void (*run)(struct rdma_req *q), struct rpcrdma_poller **spread,
			    unsigned *n);
void rpcrdma__svc_spread_free(struct rpcrdma_svc *svc);

struct rpcrdma__conn;
struct rpcrdma__svc_bc_slot;
/* The service's backward slot of conn (svc_backward.h), made on first use;
 * NULL for a listener without backward receives, or out of memory
 * (svc_rdma_backward.c). */
struct rpcrdma__svc_bc_slot *rpcrdma__bc_slot(struct rpcrdma__conn *conn,
					      struct rpcrdma_svc *svc, const char *netid);

#endif /* RPCRDMA_SVC_RDMA_INT_H */
