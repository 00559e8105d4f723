/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rdma-paths test's server, client messages and records
 * (rdma_paths_util.c), shared by test_rdma_paths.c (calls by chunk shape,
 * replies by path) and test_rdma_paths_close.c (errors, flushes, credits,
 * send-queue waits, a disconnect at each step).
 */
#ifndef RPCRDMA_TEST_RDMA_PATHS_H
#define RPCRDMA_TEST_RDMA_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fake_verbs.h"
#include "rdma/rdma_internal.h"

#define MAX_HELD 64

/* The server: a DIRECT poller, a listener, and the calls its handler got
 * (held until the test ends them: reply_iov, or stop). */
struct paths_state {
	struct rpcrdma_poller *p;
	struct rpcrdma_listener *l;
	struct rpcrdma_call *calls[MAX_HELD];
	uint8_t *payload[MAX_HELD];
	size_t payload_len[MAX_HELD];
	unsigned ncalls;
};

extern struct paths_state T;

/* A client message being built, in wire order. */
struct msg {
	uint32_t w[1024];
	size_t n;   /* words */
};

/* Helpers (rdma_paths_util.c, each described there). */
void handler(struct rpcrdma_call *call, void *arg);
unsigned held(void);
void pump(void);
void cm_run(void);
void start_opts(struct rpcrdma_listener_opts *o);
void start(bool srq);
uint64_t counter(enum rpcrdma_stat s);
void stop(void);
struct rdma_cm_id *request(void);
struct ibv_qp *connect_one(void);
void put(struct msg *m, uint32_t v);
void put_seg(struct msg *m, uint32_t rkey, uint32_t len, const void *addr);
void hdr(struct msg *m, uint32_t xid, uint32_t type);
void body(struct msg *m, const uint8_t *p, size_t nbytes);
void fill(uint8_t *p, size_t n, uint8_t seed);
uint32_t word(const uint8_t *msg, unsigned i);
unsigned wrs_of(struct ibv_qp *qp, unsigned from, enum ibv_wr_opcode op, struct fv_wr **out,
		unsigned max);
struct fv_wr *last_send(struct ibv_qp *qp);
int reply_iov(unsigned i, const void *p, size_t len, size_t bulk_off, size_t bulk_len);
void chunky_call(struct ibv_qp *qp, uint32_t xid, uint8_t *wmem, uint32_t seg1, uint32_t seg2,
		 uint8_t *rmem, uint32_t rc, uint32_t *wkey, uint32_t *rkey);
void read_call(struct ibv_qp *qp, uint32_t xid, uint8_t *data, uint32_t rkey, unsigned nseg);
void inline_msg(struct ibv_qp *qp, uint32_t xid, const uint8_t *pay, size_t len);
void inline_call(struct ibv_qp *qp, uint32_t xid);

/* The cases of test_rdma_paths_close.c. */
void test_send_error_closes(void **state);
void test_read_error(void **state);
void test_recv_error(void **state);
void test_credit_overrun(void **state);
void test_sq_wait(void **state);
void test_deep_srq_one_cq(void **state);
void test_disconnect_each_step(void **state);
void test_idle_sweep_during_accept(void **state);
void test_idle_sweep_fresh(void **state);
void test_iwarp_close_gives_back(void **state);
void test_iwarp_sigpipe(void **state);
void test_nosig_guard(void **state);

#endif /* RPCRDMA_TEST_RDMA_PATHS_H */
