/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal functions of the listener side, shared by rdma_accept.c,
 * rdma_conn.c, rdma_dev.c, rdma_devrm.c, rdma_listener.c,
 * rdma_conn_limits.c and rdma_qpmap.c (and rpcrdma__dev_find_conn, in
 * rdma_qpmap.c, by rdma_recv.c).  Included by
 * rdma_internal.h (after its structures); include that one.
 */
#ifndef RPCRDMA_RDMA_SERVER_H
#define RPCRDMA_RDMA_SERVER_H

#include "rdma_internal.h"

/* ---- per-device resources (rdma_dev.c) ---- */

/* Listener lock held: the device of l for verbs, made on first use (PD,
 * bulk cache, registered regions, SRQ and its posted receives, charged to
 * the device's ledger).  0 or a negative errno (-EAGAIN: over the
 * resource group's limit). */
int rpcrdma__dev_get(struct rpcrdma_listener *l, struct ibv_context *verbs,
		     struct rpcrdma__dev **out);
/* Frees a device no connection uses any more.  app_thread: called from an
 * application thread (listener destroy), which may wait for the poller to
 * hand back the SRQ's receives; drop: the device was removed, destroy its
 * CQs (rpcrdma__dev_cqs_put). */
void rpcrdma__dev_destroy(struct rpcrdma__dev *dev, bool app_thread, bool drop);
/* Charges l's resource group through led; counts a refusal
 * (RPCRDMA_STAT_RESCG_DENIED).  0 or a negative errno (-EAGAIN). */
int rpcrdma__listener_charge(struct rpcrdma_listener *l, struct rpcrdma__rescg_ledger *led,
			     enum rpcrdma_rescg_resource res, uint32_t n);

/* ---- the listening id and device removal (rdma_devrm.c) ---- */

/* Creates, binds and listens l->id on l->addr.  0 or -errno. */
int rpcrdma__listen_on(struct rpcrdma_listener *l);

/* Closes every connection of l (on device verbs only, unless NULL) that is
 * not closing yet, one at a time; listener lock not held. */
void rpcrdma__listener_close_conns(struct rpcrdma_listener *l, struct ibv_context *verbs,
				   const char *why);
/* DEVICE_REMOVAL on an id of verbs (listen_id: the listening id): closes
 * the device's connections, marks it removed and arms l's timer. */
void rpcrdma__dev_remove(struct rpcrdma_listener *l, struct ibv_context *verbs, bool listen_id);
/* l's timer source (l->timer_src): frees the removed devices with no
 * connection left, then listens again when the listening id was removed. */
int rpcrdma__devrm_handle(struct rpcrdma__source *s, unsigned budget);

/* ---- accept (rdma_accept.c) ---- */

/* A CONNECT_REQUEST (ev, not acked yet): sets up the connection and
 * accepts it.  0, or a negative errno (-EAGAIN: over the resource group's
 * limit) with nothing left of it: the caller rejects and destroys the id. */
int rpcrdma__conn_accept(struct rpcrdma_listener *l, struct rdma_cm_event *ev);

/* ---- connections by QP number ---- */

/* The device's connections by QP number (rdma_qpmap.c), listener lock
 * held.  add: conn->qp and qp_num set; del: a no-op for a connection
 * without a QP (never added); find: the connection, no reference taken. */
void rpcrdma__qpmap_init(struct rpcrdma__dev *dev);
void rpcrdma__qpmap_fini(struct rpcrdma__dev *dev);
void rpcrdma__qpmap_add(struct rpcrdma__dev *dev, struct rpcrdma__conn *conn);
void rpcrdma__qpmap_del(struct rpcrdma__dev *dev, struct rpcrdma__conn *conn);
struct rpcrdma__conn *rpcrdma__qpmap_find(const struct rpcrdma__dev *dev, uint32_t qp_num);
/* The connection of dev whose QP is qp_num, with a reference; NULL if none. */
struct rpcrdma__conn *rpcrdma__dev_find_conn(struct rpcrdma__dev *dev, uint32_t qp_num);

/* ---- the device's CQs (rdma_dev.c) ---- */

/* Reserves entries for conn on a CQ of the pool (sets conn->cq) and, the
 * first time the device uses that CQ, the SRQ's share on it.  0 or the
 * pool's error.  Listener lock not held. */
int rpcrdma__conn_cq_get(struct rpcrdma__conn *conn, int entries);
/* Gives the device's SRQ shares back (rpcrdma__dev_destroy); with drop,
 * destroys the CQs nothing else uses (after a device removal). */
void rpcrdma__dev_cqs_put(struct rpcrdma__dev *dev, bool drop);

/* ---- connection limits (rdma_conn_limits.c) ---- */

/* A connection request: when max_conns connections are open (not
 * closing), closes the least recently active one with no call in progress
 * (or, every one busy, the least recently active), counted in
 * RPCRDMA_STAT_CAP_CLOSES.  Listener lock not held. */
void rpcrdma__conn_cap(struct rpcrdma_listener *l);
/* The idle sweep's timer source: started at listener create (when
 * idle_timeout_ms), stopped at shutdown, closed at destroy. */
int rpcrdma__idle_start(struct rpcrdma_listener *l);
void rpcrdma__idle_stop(struct rpcrdma_listener *l);

/* ---- the thread rule of rpcrdma_call_reply (rdma_send.c) ---- */

/* 0 when the kernel takes rdma_cm or uverbs commands on fd from the
 * calling thread, -EACCES when it refuses them: the thread's credentials
 * are not the ones fd was opened with. */
int rpcrdma__may_command(int fd);
/*
 * Whether the calling thread may end `call` itself (the thread rule of
 * rpcrdma_call_reply): 0 if it may, -EACCES if the kernel refuses this
 * thread's verbs commands because its credentials changed, -EINVAL
 * (connection gone) or -ENOTSUP (cannot tell: treat as refused).  Asks the
 * kernel with a write of no bytes to the device's uverbs file, which it
 * refuses from such a thread and otherwise answers EINVAL, doing nothing:
 * one system call.  Only when refused does it ask the provider too, with a
 * post it must refuse (a WR with more SGEs than the queue pair takes;
 * nothing is queued): providers that post without a command answer 0.  A
 * thread that got -EACCES gets it for good.
 */
int rpcrdma__call_may_post(const struct rpcrdma_call *call);

#endif /* RPCRDMA_RDMA_SERVER_H */
