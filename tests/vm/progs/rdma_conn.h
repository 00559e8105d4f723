/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Connection setup and teardown shared by the raw rdma_cm/verbs clients of
 * the VM tests (rdma_badhdr.c, rdma_pull.c); header-only, test code.  Each
 * client keeps its own struct conn and buffers; these helpers do the
 * rdma_cm steps that do not depend on them.
 */
#ifndef RPCRDMA_VM_RDMA_CONN_H
#define RPCRDMA_VM_RDMA_CONN_H

#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rpcrdma/cm_private.h>

/* Reads the next CM event of ech; 0 if it is want, else -1 (said on stderr). */
static inline int rc_wait_ev(struct rdma_event_channel *ech, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ok;

	if (rdma_get_cm_event(ech, &ev))
		return -1;
	ok = ev->event == want;
	if (!ok)
		fprintf(stderr, "cm event %s, wanted %s\n", rdma_event_str(ev->event),
			rdma_event_str(want));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/* A new event channel and id (*ech, *id, left set for the caller to free
 * even on failure) resolved to dst, address and route; 0 or -1. */
static inline int rc_resolve(struct rdma_event_channel **ech, struct rdma_cm_id **id,
			     struct sockaddr *dst)
{
	*ech = rdma_create_event_channel();
	if (!*ech || rdma_create_id(*ech, id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(*id, NULL, dst, 5000) ||
	    rc_wait_ev(*ech, RDMA_CM_EVENT_ADDR_RESOLVED) || rdma_resolve_route(*id, 5000) ||
	    rc_wait_ev(*ech, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return -1;
	return 0;
}

/* Connects id (its QP created, receives posted) with priv as the private
 * data and the caller's read depths in p, retries 7; waits until
 * established; 0 or -1. */
static inline int rc_connect(struct rdma_event_channel *ech, struct rdma_cm_id *id,
			     struct rdma_conn_param *p, const struct rpcrdma_cm_private *priv)
{
	uint8_t pd[8];

	rpcrdma_cm_private_encode(pd, sizeof(pd), priv);
	p->private_data = pd;
	p->private_data_len = sizeof(pd);
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	if (rdma_connect(id, p) || rc_wait_ev(ech, RDMA_CM_EVENT_ESTABLISHED))
		return -1;
	return 0;
}

/* First half of a close: disconnect and destroy the QP (id may be NULL). */
static inline void rc_disconnect(struct rdma_cm_id *id)
{
	if (id) {
		rdma_disconnect(id);
		if (id->qp)
			rdma_destroy_qp(id);
	}
}

/* Second half, once the caller deregistered its memory: CQ, PD, id and
 * channel, each only if set. */
static inline void rc_release(struct rdma_event_channel *ech, struct rdma_cm_id *id,
			      struct ibv_pd *pd, struct ibv_cq *cq)
{
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (id)
		rdma_destroy_id(id);
	if (ech)
		rdma_destroy_event_channel(ech);
}

#endif
