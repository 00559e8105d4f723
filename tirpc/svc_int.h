/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server side of the bridge, shared by svc.c (the rendezvous
 * transport, the two modes) and svc_conn.c (a connection's transport).
 * Included by those two only.
 */
#ifndef RPCRDMA_TIRPC_SVC_INT_H
#define RPCRDMA_TIRPC_SVC_INT_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rpc/rpc.h>

#include <rpcrdma/poller.h>
#include <rpcrdma/xprt.h>

#include "internal.h"

struct tcall {
	struct tcall *next;
	struct rpcrdma_call *call;
	uint64_t conn;
};

struct tsvc {
	SVCXPRT *xprt;                  /* the rendezvous transport */
	struct rpcrdma_poller *poller;
	struct rpcrdma_listener *listener;
	u_int sendsz;
	struct sockaddr_storage local;
	socklen_t local_len;

	bool direct;                    /* DIRECT mode (else THREAD) */
	int again_fd;                   /* DIRECT: the eventfd rv_recv writes to come back */
	bool again_set;                 /* svc_run thread only */
	struct rpcrdma_call *hand;      /* DIRECT: the call cn_recv takes, for hand_conn */
	struct tconn *hand_conn;
	_Atomic uint64_t n_direct, n_handed, n_dropped;

	pthread_mutex_t lock;
	bool closing;                   /* on_call drops */
	struct tcall *pend, **pend_tail;
	struct tconn *conns;
	struct tgrave *graves;          /* svc_run thread only */
};

/*
 * libtirpc's svc_auth_gss keeps each transport's RPCSEC_GSS context in a
 * cache keyed by the SVCXPRT's address, and forgets it on
 * RPCSEC_GSS_DESTROY or once unused for 300 s.  A transport allocated
 * later at the address of one whose client left without DESTROY would
 * take that context over (and refuse its own client's RPCSEC_GSS_INIT
 * with CTXPROBLEM).  So the SVCXPRT of a connection that carried
 * RPCSEC_GSS calls is kept, its fd closed, for GSS_XPRT_KEEP seconds.
 */
#define GSS_XPRT_KEEP 310
struct tgrave {
	struct tgrave *next;
	SVCXPRT *xprt;
	time_t until;
};

struct tconn {
	struct tconn *next;             /* svc->conns, svc->lock */
	struct tsvc *svc;
	SVCXPRT *xprt;
	uint64_t id;
	struct tcall *head, **tail;     /* svc->lock */
	/* svc_run thread only */
	struct rpcrdma_call *cur;       /* between xp_recv and its reply */
	uint32_t xid;
	enum rpcrdma__tx_auth auth;     /* what cur's credential does to the body */
	bool gss;                       /* it carried RPCSEC_GSS calls */
	XDR xdr;
	struct rpcrdma__tx_dec dec;
	struct sockaddr_storage peer;
};


/* A transport over fd (taken, closed on failure; -1: errno says why it
 * could not be made), not registered yet; xp_ltaddr and xp_port from s. */
SVCXPRT *rpcrdma__tx_xprt_new(const struct xp_ops *ops, void *p1, int fd, const struct tsvc *s);
/* Closes its fd and frees it (NULL: nothing). */
void rpcrdma__tx_xprt_free(SVCXPRT *x);
/* End calls undispatched, counted in n_dropped. */
void rpcrdma__tx_drop_call(struct tsvc *s, struct rpcrdma_call *call);
void rpcrdma__tx_drop_list(struct tsvc *s, struct tcall *q);
/* A connection's transport for id, whose first call is call (its peer's
 * address), registered with xprt_register(); NULL: no memory or fd. */
struct tconn *rpcrdma__tx_conn_new(struct tsvc *s, struct rpcrdma_call *call, uint64_t id);
/* Unregistered and unlinked: ends its calls and frees it (the SVCXPRT
 * of an RPCSEC_GSS connection later: see struct tgrave). */
void rpcrdma__tx_conn_free(struct tconn *c);
/* Frees the kept transports whose time is up (all: every one). */
void rpcrdma__tx_graves_sweep(struct tsvc *s, bool all);

#endif /* RPCRDMA_TIRPC_SVC_INT_H */
