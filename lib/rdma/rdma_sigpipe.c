/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Soft-iWARP's SIGPIPE.  siw (drivers/infiniband/sw/siw) carries iWARP on
 * a kernel TCP socket and sends on it inside some verbs calls, on the
 * calling thread: ibv_post_send (siw_post_send pushes the send queue in
 * the syscall, siw_qp_sq_process), a move of the QP from RTS to ERR or
 * rdma_disconnect (siw_qp_cm_drop's TERMINATE), rdma_accept, rdma_reject
 * and rdma_connect (the MPA request or reply, siw_send_mpareqrep).  None
 * passes MSG_NOSIGNAL, so once the peer's TCP end is gone (a client
 * killed, a server stopped) tcp_sendmsg's EPIPE sends SIGPIPE to the
 * calling thread, whose default action ends the whole process: the
 * rdma-faults payload's echo server died so (exit status 141) after a
 * client was killed under load, and the next client's connect was then
 * refused.  Over TCP the library passes MSG_NOSIGNAL; here the same
 * promise is kept by blocking SIGPIPE in the calling thread around such a
 * call and taking back a SIGPIPE the call raised (the thread's mask is
 * restored; one that was pending before is left alone).  Only iWARP
 * devices pay for it: three syscalls (rt_sigprocmask twice,
 * rt_sigpending) beside the call's own.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "rdma_internal.h"

void rpcrdma__nosig_enter(struct rpcrdma__nosig *g, const struct ibv_context *verbs)
{
	sigset_t pipe, pend;

	g->on = verbs && verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	if (!g->on)
		return;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &g->old);
	/* Unblocked before: none was pending (it would have been delivered). */
	g->had = false;
	if (sigismember(&g->old, SIGPIPE) && sigpending(&pend) == 0)
		g->had = sigismember(&pend, SIGPIPE) == 1;
}

void rpcrdma__nosig_leave(struct rpcrdma__nosig *g)
{
	static const struct timespec zero = { 0, 0 };
	sigset_t pipe, pend;
	int saved = errno;      /* the call's, for a caller that reads it */

	if (!g->on)
		return;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	if (!g->had && sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE) == 1)
		while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	errno = saved;
}

int rpcrdma__post_send_iwarp(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct rpcrdma__nosig g;
	int rc;

	rpcrdma__nosig_enter(&g, qp->context);
	rc = ibv_post_send(qp, wr, bad);
	rpcrdma__nosig_leave(&g);
	return rc;
}

int rpcrdma__qp_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct rpcrdma__nosig g;
	int rc;

	rpcrdma__nosig_enter(&g, qp->context);
	rc = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	rpcrdma__nosig_leave(&g);
	return rc ? -rc : 0;
}

int rpcrdma__disconnect(struct rdma_cm_id *id)
{
	struct rpcrdma__nosig g;
	int rc;

	rpcrdma__nosig_enter(&g, id->verbs);
	rc = rdma_disconnect(id) ? -errno : 0;
	rpcrdma__nosig_leave(&g);
	return rc;
}

int rpcrdma__accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct rpcrdma__nosig g;
	int rc;

	rpcrdma__nosig_enter(&g, id->verbs);   /* siw sends the MPA reply */
	rc = rdma_accept(id, param) ? -errno : 0;
	rpcrdma__nosig_leave(&g);
	return rc;
}

int rpcrdma__reject(struct rdma_cm_id *id)
{
	struct rpcrdma__nosig g;
	int rc;

	rpcrdma__nosig_enter(&g, id->verbs);   /* siw sends an MPA reply */
	rc = rdma_reject(id, NULL, 0) ? -errno : 0;
	rpcrdma__nosig_leave(&g);
	return rc;
}

int rpcrdma__connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct rpcrdma__nosig g;
	int rc;

	rpcrdma__nosig_enter(&g, id->verbs);   /* siw sends the MPA request */
	rc = rdma_connect(id, param) ? -errno : 0;
	rpcrdma__nosig_leave(&g);
	return rc;
}
