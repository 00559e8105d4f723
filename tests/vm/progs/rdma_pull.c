/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-pull ADDR PORT [--conns N] [--calls N] [--size BYTES] [--abort]
 *           [--expect-err-chunk]
 *
 * A raw rdma_cm/verbs client that makes an echo server pull as much as it
 * can: on each of N connections (1) it sends CALLS (48) SINK calls back to
 * back, as many at once as the server's grant allows, each with a read
 * chunk of SIZE bytes (15 MiB) that all point at the same registered
 * buffer of this client, so the client pays for SIZE bytes once and the
 * server, without a bound, for CALLS x N x SIZE.  It then checks that every
 * call is answered with a SINK reply (RDMA_MSG, same xid, accepted,
 * SUCCESS), and prints "PASS".
 *
 * --abort: sends one grant's worth of calls on each connection, waits for
 * the first reply (the server is pulling) and disconnects with the rest
 * still queued or being pulled: the server must release them (the payload
 * checks the server's exit and, in a sanitizer build, LeakSanitizer).
 *
 * --expect-err-chunk: every SINK call must be answered RDMA_ERROR/ERR_CHUNK
 * instead (a call above the server's max_call_bytes, RFC 8166 section 4.5).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rpcrdma/cm_private.h>
#include <rpcrdma/proto.h>

#include "rdma_conn.h"

#define BUFSZ 4096
#define ECHO_PROG 0x20049001u
#define SINK 2u
#define SEND_ID (1ull << 32)

struct conn {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;              /* receive and send buffers */
	struct ibv_mr *data_mr;         /* the SIZE bytes every call points at */
	uint8_t *buf;                   /* nbuf receive buffers, then nbuf send buffers */
	unsigned nbuf;
	unsigned grant;                 /* the server's, from the first reply */
	unsigned sent, answered, inflight;
	bool *pending;                  /* by call index: sent, not answered */
};

static uint8_t *data;
static size_t size = 15u << 20;
static unsigned ncalls = 48;
static bool expect_err;

static int post_recv(struct conn *c, unsigned i)
{
	struct ibv_sge sge = { (uintptr_t)(c->buf + (size_t)i * BUFSZ), BUFSZ, c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int conn_open(struct conn *c, struct sockaddr *dst)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC };
	struct rdma_conn_param p = { 0 };
	struct rpcrdma_cm_private priv = { false, BUFSZ, BUFSZ };
	struct ibv_device_attr da;

	memset(c, 0, sizeof(*c));
	c->nbuf = ncalls + 2;
	if (rc_resolve(&c->ech, &c->id, dst))
		return -1;
	if (ibv_query_device(c->id->verbs, &da))
		return -1;
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, (int)(2 * c->nbuf + 4), NULL, NULL, 0);
	c->buf = calloc(2 * (size_t)c->nbuf, BUFSZ);
	c->pending = calloc(ncalls + 1, sizeof(*c->pending));
	if (!c->pd || !c->cq || !c->buf || !c->pending)
		return -1;
	c->mr = ibv_reg_mr(c->pd, c->buf, 2 * (size_t)c->nbuf * BUFSZ, IBV_ACCESS_LOCAL_WRITE);
	c->data_mr = ibv_reg_mr(c->pd, data, size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	qa.send_cq = qa.recv_cq = c->cq;
	qa.cap.max_send_wr = c->nbuf;
	qa.cap.max_recv_wr = c->nbuf;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (!c->mr || !c->data_mr || rdma_create_qp(c->id, c->pd, &qa))
		return -1;
	for (unsigned i = 0; i < c->nbuf; i++)
		if (post_recv(c, i))
			return -1;
	/* The server reads from us: let it have several Reads out at once. */
	p.responder_resources = (uint8_t)(da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16);
	p.initiator_depth = 1;
	if (rc_connect(c->ech, c->id, &p, &priv))
		return -1;
	return 0;
}

static void conn_close(struct conn *c)
{
	rc_disconnect(c->id);
	if (c->data_mr)
		ibv_dereg_mr(c->data_mr);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	rc_release(c->ech, c->id, c->pd, c->cq);
	free(c->buf);
	free(c->pending);
}

static void put32(uint8_t *p, unsigned i, uint32_t v)
{
	v = htonl(v);
	memcpy(p + 4 * i, &v, 4);
}

/* Call k (0: a NULL call, else SINK call k with its data by read chunk)
 * into send buffer k; returns its length. */
static size_t build_call(struct conn *c, unsigned k, uint32_t xid)
{
	uint8_t *m = c->buf + ((size_t)c->nbuf + k) * BUFSZ;
	uint64_t addr = (uintptr_t)data;
	unsigned i = 0;

	put32(m, i++, xid); put32(m, i++, 1); put32(m, i++, 64); put32(m, i++, RPCRDMA_MSG);
	if (k) {
		/* one read chunk: the opaque's bytes, after its length word */
		put32(m, i++, 1); put32(m, i++, 44); put32(m, i++, c->data_mr->rkey);
		put32(m, i++, (uint32_t)size); put32(m, i++, (uint32_t)(addr >> 32));
		put32(m, i++, (uint32_t)addr);
	}
	put32(m, i++, 0); put32(m, i++, 0); put32(m, i++, 0);
	/* RPC: xid CALL 2 prog 1 proc cred verf [length of the opaque] */
	put32(m, i++, xid); put32(m, i++, 0); put32(m, i++, 2); put32(m, i++, ECHO_PROG);
	put32(m, i++, 1); put32(m, i++, k ? SINK : 0);
	put32(m, i++, 0); put32(m, i++, 0); put32(m, i++, 0); put32(m, i++, 0);
	if (k)
		put32(m, i++, (uint32_t)size);
	return (size_t)i * 4;
}

static int send_call(struct conn *c, unsigned k, uint32_t xid)
{
	size_t len = build_call(c, k, xid);
	struct ibv_sge sge = { (uintptr_t)(c->buf + ((size_t)c->nbuf + k) * BUFSZ), (uint32_t)len,
			       c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = SEND_ID | k, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(c->id->qp, &wr, &bad);
}

static uint32_t get32(const uint8_t *p, unsigned i)
{
	uint32_t v;

	memcpy(&v, p + 4 * i, 4);
	return ntohl(v);
}

/*
 * Handles one completion of c: a reply is checked against the calls
 * pending (xid = base + k) and its receive posted again.  Returns 1 for a
 * reply, 0 for a send, -1 on an error (message printed).
 */
static int complete(struct conn *c, const struct ibv_wc *wc, uint32_t base, int who)
{
	struct rpcrdma_hdr h;
	const uint8_t *m;
	int ret;
	unsigned k;

	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "conn %d: completion %s (wr_id %llx)\n", who,
			ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id);
		return -1;
	}
	if (wc->wr_id & SEND_ID)
		return 0;
	m = c->buf + wc->wr_id * BUFSZ;
	k = get32(m, 0) - base;
	if (expect_err && k >= 1 && k <= ncalls && c->pending[k]) {
		/* Read the words: a reply checker takes no RDMA_ERROR. */
		if (wc->byte_len != 20 || get32(m, 1) != 1 || get32(m, 3) != RPCRDMA_ERROR ||
		    get32(m, 4) != RPCRDMA_ERR_CHUNK) {
			fprintf(stderr, "conn %d: call %u: %u bytes, type %u, not ERR_CHUNK\n", who, k,
				wc->byte_len, get32(m, 3));
			return -1;
		}
		c->pending[k] = false;
		return post_recv(c, (unsigned)wc->wr_id) ? -1 : 1;
	}
	ret = rpcrdma_check_reply(m, wc->byte_len, &h);
	if (ret <= 0 || h.type != RPCRDMA_MSG) {
		fprintf(stderr, "conn %d: %u-byte answer is not an RDMA_MSG reply (type %u, "
			"word 4 %u)\n", who, wc->byte_len, get32(m, 3), get32(m, 4));
		return -1;
	}
	k = ntohl(h.xid) - base;
	if (k > ncalls || !c->pending[k] || wc->byte_len < (unsigned)ret + 24 ||
	    get32(m + ret, 0) != base + k || get32(m + ret, 1) != 1 || get32(m + ret, 2) != 0 ||
	    get32(m + ret, 5) != 0) {
		fprintf(stderr, "conn %d: reply for xid %u is not the SINK reply expected\n", who,
			ntohl(h.xid));
		return -1;
	}
	c->pending[k] = false;
	c->grant = h.credits ? h.credits : 1;
	if (post_recv(c, (unsigned)wc->wr_id))
		return -1;
	return 1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *ai;
	unsigned nconns = 1, done = 0, total;
	bool abort_early = false;
	struct conn *cs;
	double t0, last;
	int failures = 0;

	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--conns") && i + 1 < argc)
			nconns = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			ncalls = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = strtoull(argv[++i], NULL, 0) & ~(size_t)3;
		else if (!strcmp(argv[i], "--abort"))
			abort_early = true;
		else if (!strcmp(argv[i], "--expect-err-chunk"))
			expect_err = true;
		else
			argc = 0;
	}
	if (argc < 3 || nconns == 0 || ncalls == 0 || size == 0 || size > UINT32_MAX ||
	    getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "usage: %s ADDR PORT [--conns N] [--calls N] [--size BYTES] "
			"[--abort] [--expect-err-chunk]\n", argv[0]);
		return 2;
	}
	data = calloc(1, size);
	cs = calloc(nconns, sizeof(*cs));
	if (!data || !cs)
		return 1;
	/* Connect, and learn each grant from a NULL call. */
	for (unsigned i = 0; i < nconns; i++) {
		struct ibv_wc wc;
		int n, r = 0;

		if (conn_open(&cs[i], ai->ai_addr)) {
			fprintf(stderr, "connection %u failed\n", i);
			return 1;
		}
		cs[i].pending[0] = true;
		if (send_call(&cs[i], 0, 1000u * (i + 1)))
			return 1;
		t0 = now_s();
		while (r < 1 && now_s() - t0 < 30) {
			n = ibv_poll_cq(cs[i].cq, 1, &wc);
			if (n < 0 || (n == 1 && (r = complete(&cs[i], &wc, 1000u * (i + 1), (int)i)) < 0))
				return 1;
		}
		if (r < 1) {
			fprintf(stderr, "connection %u: no reply to the NULL call\n", i);
			return 1;
		}
	}
	printf("%u connections, grant %u: %u SINK calls of %zu bytes each\n", nconns, cs[0].grant,
	       ncalls, size);
	fflush(stdout);
	/* Every call as soon as the grant allows, every connection in turn. */
	total = nconns * ncalls;
	t0 = last = now_s();
	while (done < total) {
		bool progress = false;

		for (unsigned i = 0; i < nconns; i++) {
			struct conn *c = &cs[i];
			struct ibv_wc wc[16];
			int n;

			while (c->sent < ncalls && c->inflight < c->grant &&
			       !(abort_early && c->sent >= c->grant)) {
				unsigned k = ++c->sent;

				c->pending[k] = true;
				if (send_call(c, k, 1000u * (i + 1) + k)) {
					fprintf(stderr, "conn %u: send %u failed\n", i, k);
					return 1;
				}
				c->inflight++;
				progress = true;
			}
			n = ibv_poll_cq(c->cq, 16, wc);
			if (n < 0)
				return 1;
			for (int j = 0; j < n; j++) {
				int r = complete(c, &wc[j], 1000u * (i + 1), (int)i);

				if (r < 0) {
					failures++;
					done = total;   /* stop: the payload prints the server's side */
					break;
				}
				if (r == 1) {
					c->inflight--;
					c->answered++;
					done++;
					progress = true;
				}
			}
		}
		if (abort_early && done > 0)
			break;
		if (progress)
			last = now_s();
		else if (now_s() - last > 120) {
			/* Liveness only: nothing at all for two minutes. */
			fprintf(stderr, "no reply for 120 s: %u of %u answered\n", done, total);
			failures++;
			break;
		}
	}
	for (unsigned i = 0; i < nconns; i++) {
		printf("conn %u: %u sent, %u answered\n", i, cs[i].sent, cs[i].answered);
		if (!abort_early && cs[i].answered != ncalls)
			failures++;
		conn_close(&cs[i]);
	}
	if (expect_err)
		printf("%u calls answered RDMA_ERROR/ERR_CHUNK\n", done);
	else if (!abort_early)
		printf("%u calls, %.1f MiB pulled in %.1f s\n", done,
		       (double)done * (double)size / (1 << 20), now_s() - t0);
	freeaddrinfo(ai);
	free(cs);
	free(data);
	printf("%s%s (%d failures)\n", failures ? "FAIL" : "PASS", abort_early ? " (aborted)" : "",
	       failures);
	return failures ? 1 : 0;
}
