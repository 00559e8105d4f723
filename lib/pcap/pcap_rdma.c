/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wire capture's hooks: connections (addresses, QP numbers, PSNs) and
 * work requests turned into the writer's frames (pcap.c).
 */
#include <arpa/inet.h>
#include <sched.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "pcap_int.h"

#define SGE_MAX 16

static void copy_addr(struct sockaddr_storage *dst, const struct sockaddr *sa)
{
	memset(dst, 0, sizeof(*dst));
	if (!sa)
		return;
	if (sa->sa_family == AF_INET)
		memcpy(dst, sa, sizeof(struct sockaddr_in));
	else if (sa->sa_family == AF_INET6)
		memcpy(dst, sa, sizeof(struct sockaddr_in6));
}

/*
 * The connection's addresses, QP numbers and PSNs, learnt once (the first
 * record of a connection asks the QP for its peer's number and its PSNs).
 * A hook that finds another thread filling them waits for it.
 */
static uint16_t port_of(const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

static void flow_in(const struct rpcrdma__pcap_ep *ep, struct rpcrdma__pcap_flow *f)
{
	f->src = ep->out.dst;
	f->dst = ep->out.src;
	f->sqpn = ep->out.dqpn;
	f->dqpn = ep->out.sqpn;
}

/* The connection's CM exchange, as the client sent it. */
static void ep_connect(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep, bool server)
{
	struct rpcrdma__pcap_flow in;

	if (!server) {
		rpcrdma__pcap_connect(p, &ep->out, atomic_load(&ep->psn_out),
				      atomic_load(&ep->psn_in), port_of(&ep->out.dst));
		return;
	}
	flow_in(ep, &in);
	rpcrdma__pcap_connect(p, &in, atomic_load(&ep->psn_in), atomic_load(&ep->psn_out),
			      port_of(&ep->out.src));
}

static void ep_fill(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep, struct rdma_cm_id *id,
		    bool server)
{
	int st = 0;

	if (atomic_load_explicit(&ep->state, memory_order_acquire) == 2)
		return;
	if (!atomic_compare_exchange_strong(&ep->state, &st, 1)) {
		while (atomic_load_explicit(&ep->state, memory_order_acquire) != 2)
			sched_yield();
		return;
	}
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	memset(&attr, 0, sizeof(attr));
	copy_addr(&ep->out.src, rdma_get_local_addr(id));
	copy_addr(&ep->out.dst, rdma_get_peer_addr(id));
	ep->out.sqpn = id->qp ? id->qp->qp_num : 0;
	if (id->qp && ibv_query_qp(id->qp, &attr, IBV_QP_DEST_QPN | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN,
				   &init) == 0) {
		ep->out.dqpn = attr.dest_qp_num;
		atomic_store(&ep->psn_out, attr.sq_psn);
		atomic_store(&ep->psn_in, attr.rq_psn);
	}
	ep_connect(p, ep, server);
	atomic_store_explicit(&ep->state, 2, memory_order_release);
}

/* The WR's SGEs as iovecs (our memory: the lkey's addresses). */
static unsigned wr_iov(const struct ibv_send_wr *wr, struct iovec *iov)
{
	unsigned n = wr->num_sge > 0 ? (unsigned)wr->num_sge : 0;

	if (n > SGE_MAX)
		n = SGE_MAX;
	for (unsigned i = 0; i < n; i++) {
		iov[i].iov_base = (void *)(uintptr_t)wr->sg_list[i].addr;
		iov[i].iov_len = wr->sg_list[i].length;
	}
	return n;
}

void rpcrdma__pcap_post(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep,
			struct rdma_cm_id *id, bool server, const struct ibv_send_wr *wr)
{
	struct iovec iov[SGE_MAX];

	ep_fill(p, ep, id, server);
	for (; wr; wr = wr->next) {
		unsigned n = wr_iov(wr, iov);

		switch (wr->opcode) {
		case IBV_WR_SEND:
			rpcrdma__pcap_send(p, &ep->out, &ep->psn_out, iov, n, false, 0);
			break;
		case IBV_WR_SEND_WITH_INV:
			rpcrdma__pcap_send(p, &ep->out, &ep->psn_out, iov, n, true,
					   wr->invalidate_rkey);
			break;
		case IBV_WR_RDMA_WRITE:
			rpcrdma__pcap_write(p, &ep->out, &ep->psn_out, wr->wr.rdma.remote_addr,
					    wr->wr.rdma.rkey, iov, n);
			break;
		default:
			break;  /* RDMA Reads: rpcrdma__pcap_reads, once done */
		}
	}
}

void rpcrdma__pcap_reads(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep,
			 struct rdma_cm_id *id, bool server, const struct ibv_send_wr *wr)
{
	ep_fill(p, ep, id, server);
	for (; wr; wr = wr->next) {
		if (wr->opcode != IBV_WR_RDMA_READ || wr->num_sge != 1)
			continue;
		rpcrdma__pcap_read(p, &ep->out, &ep->psn_out, wr->wr.rdma.remote_addr,
				   wr->wr.rdma.rkey, (const void *)(uintptr_t)wr->sg_list[0].addr,
				   wr->sg_list[0].length);
	}
}

void rpcrdma__pcap_recv(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep,
			struct rdma_cm_id *id, bool server, const void *buf, uint32_t len)
{
	struct rpcrdma__pcap_flow in;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf, .iov_len = len };

	ep_fill(p, ep, id, server);
	flow_in(ep, &in);
	rpcrdma__pcap_send(p, &in, &ep->psn_in, &iov, 1, false, 0);
}
