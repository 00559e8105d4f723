/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fake RDMA device for path tests (test_rdma_paths.c), after SPDK's
 * rdma_ut.c: the program that includes fake_verbs.c defines the verbs and
 * rdma_cm entry points the server transport calls (ibv_alloc_pd,
 * ibv_reg_mr, rdma_create_qp, rdma_accept, rdma_get_cm_event, ...), so
 * the library's objects, linked statically, call these instead of
 * libibverbs and librdmacm.  The data path needs no such trick:
 * ibv_post_send, ibv_post_recv, ibv_post_srq_recv and ibv_poll_cq are
 * inline functions of <infiniband/verbs.h> (rdma-core 44) that call through
 * qp->context->ops, and the fake context's ops record every work request.
 *
 * The "client" is the test: it owns remote memory (fv_remote) that RDMA
 * Reads copy from and RDMA Writes copy into, puts messages into posted
 * receives (fv_deliver) and decides when send-queue work completes
 * (fv_complete).  A queue pair moved to the error state flushes all its
 * outstanding work, in order, when the poller next polls, as a device does.
 * Single-threaded: the poller is DIRECT and only the test calls it.
 */
#ifndef RPCRDMA_TEST_FAKE_VERBS_H
#define RPCRDMA_TEST_FAKE_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define FV_MAX_SGE 4
#define FV_MAX_QPS 16
#define FV_MAX_WRS 4096
#define FV_MAX_RECV 65536
#define FV_MAX_REMOTE 16
#define FV_MAX_WC 8192
#define FV_MAX_EVENTS 16
#define FV_MSG_MAX 8192
#define FV_MAX_KEYS 8192

/* A send-queue work request as posted (copied at the post). */
struct fv_wr {
	struct ibv_qp *qp;
	uint64_t wr_id;
	enum ibv_wr_opcode opcode;
	unsigned send_flags;
	int num_sge;
	struct ibv_sge sge[FV_MAX_SGE];
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t invalidate_rkey;
	unsigned seq;            /* global order of posts (send and receive) */
	bool done;               /* completed (or flushed) */
	/* A Send's bytes, gathered from its SGEs at the post. */
	uint32_t len;
	uint8_t *msg;            /* FV_MSG_MAX bytes for Sends, else NULL */
};

/* A receive posted (to a QP's own queue or to the SRQ), not yet used. */
struct fv_recv {
	struct ibv_qp *qp;       /* NULL: the SRQ's */
	uint64_t wr_id;
	uint64_t addr;
	uint32_t length;
	unsigned seq;
	bool used;
};

struct fv_qp {
	struct ibv_qp qp;
	struct ibv_qp_init_attr init;
	bool err;                /* moved to IBV_QPS_ERR: everything flushes */
	unsigned err_seq;        /* FV->seq at that move (iwarp: flushes only before) */
	bool destroyed;
};

/* Client memory that the server reaches by rkey. */
struct fv_remote {
	uint32_t rkey;
	uint8_t *mem;
	size_t len;
};

struct fv {
	struct ibv_device device;
	struct ibv_context ctx;
	/* What was made and destroyed. */
	int pds, mrs, srqs, cqs, channels, qps, ids, echs;
	size_t mr_bytes;         /* bytes registered now */
	unsigned next_key, next_qpn;
	/* Failure injection: the next n calls fail (0: none). */
	unsigned fail_create_qp, fail_accept, fail_reg_mr;
	unsigned fail_reg_mr_skip;  /* registrations that pass before fail_reg_mr's */
	/* ibv_post_send refuses the WR it is given as the fail_wr-th since
	 * this was set (1: the next; 0: none), and the rest of its list. */
	unsigned fail_wr;
	/* Soft-iWARP's rings (set with device.transport_type IWARP): a QP
	 * in the error state flushes what was posted before its move there,
	 * never what is posted after (the WQE stays in the ring). */
	bool iwarp;
	/* Channels (completion and CM) made from now on are readable for
	 * good, so a program that waits on their fds -- the service's loop,
	 * driving its DIRECT poller -- always polls (false: never readable,
	 * the test polls itself). */
	bool readable;
	/* siw's TCP end gone: each ibv_post_send, move to ERR, rdma_accept
	 * and rdma_disconnect raises SIGPIPE in the calling thread, as
	 * tcp_sendmsg's EPIPE does there (no MSG_NOSIGNAL); counted. */
	bool sigpipe;
	unsigned sigpipes;
	/* Run as a CQ is being created (NULL: nothing): what another thread
	 * could do meanwhile, e.g. the listener's idle sweep during an accept. */
	void (*on_create_cq)(void);
	/* Records. */
	struct fv_qp *qps_made[FV_MAX_QPS];
	unsigned nqps_made;
	struct fv_wr wrs[FV_MAX_WRS];
	unsigned nwrs;
	unsigned posts;          /* ibv_post_send calls (doorbells) */
	struct fv_recv recvs[FV_MAX_RECV];
	unsigned nrecvs;
	unsigned seq;
	struct fv_remote remote[FV_MAX_REMOTE];
	unsigned nremote;
	struct ibv_wc cqe[FV_MAX_WC];
	unsigned cq_head, cq_tail;
	struct rdma_cm_event *events[FV_MAX_EVENTS];
	unsigned nevents;
	unsigned accepts, rejects, disconnects;
	struct rdma_conn_param accept_param;
	uint8_t accept_pdata[64];
	/* The access flags each key was registered with (by key - 0x1000),
	 * and whether its MR is registered now. */
	unsigned mr_access[FV_MAX_KEYS];
	bool mr_live[FV_MAX_KEYS];
};

extern struct fv *FV;

void fv_init(void);
/* Every verbs object and id destroyed: checked by the caller. */
void fv_fini(void);
/* Client memory of len bytes reachable by a new rkey; returns the rkey. */
uint32_t fv_remote(uint8_t *mem, size_t len);
/* Puts len bytes from msg into the oldest unused receive of qp (its own
 * queue, else the SRQ's) and queues its completion.  Returns false when
 * no receive is posted. */
bool fv_deliver(struct ibv_qp *qp, const void *msg, uint32_t len);
/* Completes the send-queue WRs of qp not done yet, oldest first, at most
 * n (0: all): RDMA Reads and Writes move their bytes (one whose rkey or
 * range the client does not have fails with IBV_WC_REM_ACCESS_ERR), and
 * the signaled ones queue a completion.  With status other than success
 * the first WR completes with it, signaled or not, and the QP goes to the
 * error state (the rest flush), as on a device.  Returns how many
 * completed. */
unsigned fv_complete(struct ibv_qp *qp, unsigned n, enum ibv_wc_status status);
/* Moves qp to the error state as the kernel does when the peer goes
 * (before the server hears of it). */
void fv_qp_fail(struct ibv_qp *qp);
/* Queues a CM event of type for id (a connect request: a new id). */
struct rdma_cm_id *fv_connect_request(const void *pdata, uint8_t len, uint8_t initiator_depth);
void fv_cm_event(struct rdma_cm_id *id, enum rdma_cm_event_type type);
/* Outstanding (not done) send-queue WRs of qp; unused receives of qp. */
unsigned fv_sq_outstanding(const struct ibv_qp *qp);
/* The access flags key was registered with; *live: its MR is registered
 * now.  Fails the test for a key never made. */
unsigned fv_mr_access(uint32_t key, bool *live);
unsigned fv_rq_posted(const struct ibv_qp *qp);

#endif /* RPCRDMA_TEST_FAKE_VERBS_H */
