/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The poller's completion dispatch on synthetic completions: a DIRECT
 * poller whose one completion queue is a fake (an ibv_cq whose context's
 * poll_cq hands out successful completions), each naming the same
 * unsignaled-Write context, whose done function returns at once on
 * success.  What is left is the poller's own work per completion: the
 * poll loop, the load of the context's done function and the call.
 *
 *   bench-poller [N]     polls N completions (default 1000000), prints
 *                        how many and ns per completion (indicative only)
 *
 * tests/bench/callgrind-poller.sh counts the instructions per completion
 * inside rpcrdma_poller_poll under callgrind.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rdma_internal.h"

struct fake {
	struct ibv_context ctx;
	struct ibv_cq cq;
	uint64_t left;          /* completions still to hand out */
	uint64_t wr_id;
};

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake *f = rpcrdma__container_of(cq, struct fake, cq);
	int k = f->left < (uint64_t)n ? (int)f->left : n;

	for (int i = 0; i < k; i++) {
		wc[i].wr_id = f->wr_id;
		wc[i].status = IBV_WC_SUCCESS;
		wc[i].opcode = IBV_WC_RDMA_WRITE;
	}
	f->left -= (uint64_t)k;
	return k;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000, done = 0;
	struct rpcrdma_poller_opts o;
	struct rpcrdma_poller *p;
	struct rpcrdma__send s;
	struct rpcrdma__cq cq;
	struct fake *f = calloc(1, sizeof(*f));
	uint64_t t0, t1;

	if (!f || n == 0)
		return 2;
	rpcrdma_poller_opts_init(&o);
	o.mode = RPCRDMA_POLLER_DIRECT;
	if (rpcrdma_poller_create(&o, &p))
		return 1;
	f->ctx.ops.poll_cq = fake_poll_cq;
	f->ctx.ops.req_notify_cq = fake_req_notify_cq;
	f->cq.context = &f->ctx;
	f->left = n;
	memset(&s, 0, sizeof(s));
	s.quiet.c.cqe.done = rpcrdma__write_quiet_done;
	s.quiet.owner = &s.c;
	f->wr_id = (uintptr_t)&s.quiet.c.cqe;
	memset(&cq, 0, sizeof(cq));
	cq.cq = &f->cq;
	cq.src.fd = -1;
	p->cqs[0] = &cq;
	atomic_store(&p->ncqs, 1);

	t0 = rpcrdma__now_ns();
	while (done < n) {
		int k = rpcrdma_poller_poll(p, 0);

		if (k <= 0)
			return 1;
		done += (uint64_t)k;
	}
	t1 = rpcrdma__now_ns();
	/* The fake is no verbs CQ: the poller must not destroy it. */
	atomic_store(&p->ncqs, 0);
	rpcrdma_poller_destroy(p);
	free(f);
	printf("%" PRIu64 " completions, %.1f ns each\n", done, (double)(t1 - t0) / (double)done);
	return done == n ? 0 : 1;
}
