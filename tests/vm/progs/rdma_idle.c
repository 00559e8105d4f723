/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-idle ADDR PORT MAX HOLD_S: opens up to MAX RDMA connections to a
 * server one after the other (raw rdma_cm, one shared PD and CQ, one
 * receive posted each, nothing ever sent), stops at the first that fails,
 * prints "held N" and the reason of the failure, "opened N in MS ms" (the
 * wall time from the first request to the last ESTABLISHED), then
 * "ready", and keeps
 * them open and idle for HOLD_S seconds (or until SIGTERM), noting each one
 * the server disconnects.  At the end it prints
 *   "closed K first F last L" (K connections disconnected by the server,
 *   F and L the lowest and highest index, 0 = opened first; -1 when none)
 * and exits 0 (1 when not even one connection opened).
 *
 * Attacks issue 23 item 16: a few hundred idle connections must not lock
 * out the next client, and a connection cap closes the oldest idle one.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rpcrdma/cm_private.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

struct holder {
	struct rdma_event_channel *ech;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char buf[64];
	int max;
	int nclosed, first, last;
	char *closed;
};

/* Notes an event of an earlier connection (context: its index + 1). */
static void note(struct holder *h, struct rdma_cm_event *ev)
{
	intptr_t i = (intptr_t)ev->id->context - 1;

	if (i < 0 || i >= h->max || h->closed[i])
		return;
	if (ev->event != RDMA_CM_EVENT_DISCONNECTED && ev->event != RDMA_CM_EVENT_TIMEWAIT_EXIT)
		return;
	h->closed[i] = 1;
	h->nclosed++;
	printf("disconnected %d\n", h->nclosed);
	fflush(stdout);
	if (h->first < 0 || i < h->first)
		h->first = (int)i;
	if (i > h->last)
		h->last = (int)i;
}

/* The next event of id (others' are noted); NULL on error or timeout. */
static struct rdma_cm_event *next_ev(struct holder *h, struct rdma_cm_id *id)
{
	for (int tries = 0; tries < 300 && !stop; tries++) {
		struct pollfd pfd = { h->ech->fd, POLLIN, 0 };
		struct rdma_cm_event *ev;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (rdma_get_cm_event(h->ech, &ev))
			return NULL;
		if (ev->id == id)
			return ev;
		note(h, ev);
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

static int expect(struct holder *h, struct rdma_cm_id *id, enum rdma_cm_event_type want,
		  const char **why)
{
	struct rdma_cm_event *ev = next_ev(h, id);
	static char msg[96];
	int ok;

	if (!ev) {
		*why = "no cm event in 30 s";
		return -1;
	}
	ok = ev->event == want;
	if (!ok) {
		snprintf(msg, sizeof(msg), "%s (status %d)", rdma_event_str(ev->event), ev->status);
		*why = msg;
	}
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static int open_one(struct holder *h, struct sockaddr *dst, int i, const char **why)
{
	struct rpcrdma_cm_private priv = { false, 4096, 4096 };
	struct rdma_conn_param p = { 0 };
	struct rdma_cm_id *id;
	uint8_t pd[8];

	*why = "rdma_create_id";
	if (rdma_create_id(h->ech, &id, (void *)(intptr_t)(i + 1), RDMA_PS_TCP))
		return -1;
	*why = "resolve";
	if (rdma_resolve_addr(id, NULL, dst, 5000) ||
	    expect(h, id, RDMA_CM_EVENT_ADDR_RESOLVED, why) || rdma_resolve_route(id, 5000) ||
	    expect(h, id, RDMA_CM_EVENT_ROUTE_RESOLVED, why))
		return -1;
	if (!h->pd) {
		h->pd = ibv_alloc_pd(id->verbs);
		h->cq = ibv_create_cq(id->verbs, 4 * h->max + 16, NULL, NULL, 0);
		h->mr = h->pd ? ibv_reg_mr(h->pd, h->buf, sizeof(h->buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
		if (!h->cq || !h->mr) {
			*why = "pd/cq/mr";
			return -1;
		}
	}
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .send_cq = h->cq, .recv_cq = h->cq,
				       .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_sge sge = { (uintptr_t)h->buf, sizeof(h->buf), 0 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	sge.lkey = h->mr->lkey;
	*why = "create qp";
	if (rdma_create_qp(id, h->pd, &qa) || ibv_post_recv(id->qp, &wr, &bad))
		return -1;
	rpcrdma_cm_private_encode(pd, sizeof(pd), &priv);
	p.private_data = pd;
	p.private_data_len = sizeof(pd);
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	*why = "rdma_connect";
	if (rdma_connect(id, &p))
		return -1;
	return expect(h, id, RDMA_CM_EVENT_ESTABLISHED, why);
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	struct holder h = { .first = -1, .last = -1 };
	const char *why = "max reached";
	time_t end;
	int n = 0;

	if (argc != 5 || getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "usage: %s ADDR PORT MAX HOLD_S\n", argv[0]);
		return 2;
	}
	h.max = atoi(argv[3]);
	h.closed = calloc((size_t)h.max + 1, 1);
	h.ech = rdma_create_event_channel();
	if (!h.closed || !h.ech)
		return 1;
	signal(SIGTERM, on_term);
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (n < h.max && !stop) {
		if (open_one(&h, ai->ai_addr, n, &why))
			break;
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("held %d (stopped: %s)\n", n, n < h.max ? why : "max reached");
	printf("opened %d in %lld ms\nready\n", n,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	fflush(stdout);
	end = time(NULL) + atoi(argv[4]);
	while (!stop && time(NULL) < end) {
		struct rdma_cm_event *ev = next_ev(&h, NULL);

		if (ev) {
			note(&h, ev);
			rdma_ack_cm_event(ev);
		}
	}
	printf("closed %d first %d last %d\n", h.nclosed, h.first, h.last);
	fflush(stdout);
	/* Exit without tearing down: the kernel closes everything at once. */
	return n > 0 ? 0 : 1;
}
