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
	struct rdma_req *free;          /* the pool of requests (lock) */
	unsigned nfree, nkeep;          /* on it; the most it keeps */
	size_t own_cap;                 /* each one's reply buffer */
	/* Reply buffers larger than own_cap (replies by reply chunk) kept
	 * for reuse, at most SVC_RDMA_BIG_KEEP_BYTES of them (lock). */
	struct rpcrdma__svc_big *bigs;
	size_t big_bytes;
	bool switch_creds;              /* RPCRDMA_SVC_HANDLERS_SWITCH_CREDS */

	/* Replies waiting for the sender thread (see rdma_done). */
	struct rdma_req *out_head, **out_tail;
	pthread_cond_t out_cond;
	bool sender_stop;
	bool sender_started;
	pthread_t sender;

	/* With a DIRECT poller the service drives; the fields below are only
	 * touched by the loop thread while it polls (see on_poller). */
	struct rpcrdma__svc_rdrive *drive;
	struct rpcrdma__svc_rdma *pending_next;
	bool pending;                   /* on drive->pending */
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
	/* The loop thread while it is inside rpcrdma_poller_poll: on_call
	 * then queues without a wake-up and notes the listener here. */
	atomic_bool loop_polling;
	pthread_t loop_tid;
	struct rpcrdma__svc_rdma *pending;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool handed;                    /* the driver thread polls */
	bool stop;
	int stop_fd;                    /* eventfd: the driver thread stops */
	bool started;                   /* thread runs */
	pthread_t thread;
};

/* Loop thread: hands r's queued calls to the core while it has slots
 * (svc_rdma.c). */
void rpcrdma__svc_rdma_drain(struct rpcrdma__svc_rdma *r);
/* Whether the calling thread may give RDMA commands: asks the kernel (for
 * call with rpcrdma__call_may_post, else with a write of no bytes to fd)
 * until its first refusal, which is kept for the thread
 * (svc_rdma_drive.c). */
bool rpcrdma__svc_rdma_may(const struct rpcrdma_call *call, int fd);
/* The service's driver for DIRECT poller p, made on first use (svc->lock
 * held); -EINVAL when the service already drives another poller.  Freed
 * with rpcrdma__svc_rdrive_free (NULL: nothing), which stops its thread. */
int rpcrdma__svc_rdrive_get(struct rpcrdma_svc *svc, struct rpcrdma_poller *p,
			    struct rpcrdma__svc_rdrive **out);
void rpcrdma__svc_rdrive_free(struct rpcrdma__svc_rdrive *d);

struct rpcrdma__conn;
struct rpcrdma__svc_bc_slot;
/* The service's backward slot of conn (svc_backward.h), made on first use;
 * NULL for a listener without backward receives, or out of memory
 * (svc_rdma_backward.c). */
struct rpcrdma__svc_bc_slot *rpcrdma__bc_slot(struct rpcrdma__conn *conn,
					      struct rpcrdma_svc *svc, const char *netid);

#endif /* RPCRDMA_SVC_RDMA_INT_H */
