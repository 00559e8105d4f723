/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-badhdr ADDR PORT: a raw rdma_cm/verbs client that sends malformed
 * RPC-over-RDMA headers to an echo server and checks each answer:
 *   wrong version        -> RDMA_ERROR / ERR_VERS (low = high = 1), same xid
 *   RDMA_MSGP, type 7,
 *   bad discriminator,
 *   huge segment count,
 *   truncated read list,
 *   16-byte header,
 *   20-byte RDMA_ERROR   -> RDMA_ERROR / ERR_CHUNK, same xid
 *   4 bytes, RDMA_DONE,
 *   RDMA_ERROR (28 B)    -> nothing (the next reply is for the next call)
 * and that a valid NULL call after each one is answered normally.  Then a
 * second connection sends garbage until the server disconnects it by
 * policy, while the first connection keeps being served.
 * Prints "PASS" when everything matched.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rpcrdma/cm_private.h>
#include <rpcrdma/proto.h>

#define NRECV 8
#define BUFSZ 4096

struct conn {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;            /* NRECV receive buffers, then one send buffer */
	struct ibv_wc stash[NRECV];  /* receives polled while waiting for a send */
	int nstash;
};

static int failures;

#define CHECK(cond, ...)                                      \
	do {                                                  \
		if (!(cond)) {                                \
			fprintf(stderr, "FAILED: " __VA_ARGS__); \
			fprintf(stderr, "\n");                \
			failures++;                           \
		}                                             \
	} while (0)

static int wait_ev(struct conn *c, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ok;

	if (rdma_get_cm_event(c->ech, &ev))
		return -1;
	ok = ev->event == want;
	if (!ok)
		fprintf(stderr, "cm event %s, wanted %s\n", rdma_event_str(ev->event),
			rdma_event_str(want));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static int post_recv(struct conn *c, int i)
{
	struct ibv_sge sge = { (uintptr_t)(c->buf + i * BUFSZ), BUFSZ, c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int conn_open(struct conn *c, struct sockaddr *dst)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 16, .max_recv_wr = NRECV,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct rdma_conn_param p = { 0 };
	struct rpcrdma_cm_private priv = { false, 4096, 4096 };
	uint8_t pd[8];

	memset(c, 0, sizeof(*c));
	c->ech = rdma_create_event_channel();
	if (!c->ech || rdma_create_id(c->ech, &c->id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c->id, NULL, dst, 5000) || wait_ev(c, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(c->id, 5000) || wait_ev(c, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return -1;
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, 64, NULL, NULL, 0);
	c->buf = calloc(NRECV + 1, BUFSZ);
	if (!c->pd || !c->cq || !c->buf)
		return -1;
	c->mr = ibv_reg_mr(c->pd, c->buf, (NRECV + 1) * BUFSZ, IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = qa.recv_cq = c->cq;
	if (!c->mr || rdma_create_qp(c->id, c->pd, &qa))
		return -1;
	for (int i = 0; i < NRECV; i++)
		if (post_recv(c, i))
			return -1;
	rpcrdma_cm_private_encode(pd, sizeof(pd), &priv);
	p.private_data = pd;
	p.private_data_len = sizeof(pd);
	p.initiator_depth = p.responder_resources = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect(c->id, &p) || wait_ev(c, RDMA_CM_EVENT_ESTABLISHED))
		return -1;
	return 0;
}

static void conn_close(struct conn *c)
{
	if (c->id) {
		rdma_disconnect(c->id);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
	}
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ech)
		rdma_destroy_event_channel(c->ech);
	free(c->buf);
}

static int send_raw(struct conn *c, const void *msg, size_t len)
{
	uint8_t *sbuf = c->buf + NRECV * BUFSZ;
	struct ibv_sge sge = { (uintptr_t)sbuf, (uint32_t)len, c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1000, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int n, spins = 0;

	memcpy(sbuf, msg, len);
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -1;
	/* Wait for the send completion (receives may complete meanwhile: keep
	 * them for recv_one by re-checking the CQ there). */
	for (;;) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n == 1) {
			if (wc.wr_id == 1000)
				return wc.status == IBV_WC_SUCCESS ? 0 : -1;
			/* A receive that overtook our send completion. */
			if (c->nstash == NRECV)
				return -1;
			c->stash[c->nstash++] = wc;
		}
		if (++spins > 200000000)
			return -1;
	}
}

/* Waits up to ms for one received message; returns its length and buffer
 * index, -2 on timeout, -1 on error. */
static int recv_one(struct conn *c, int ms, int *idx)
{
	struct ibv_wc wc;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n;

		if (c->nstash) {
			wc = c->stash[0];
			memmove(c->stash, c->stash + 1, (size_t)--c->nstash * sizeof(wc));
			n = 1;
		} else {
			n = ibv_poll_cq(c->cq, 1, &wc);
		}

		if (n < 0)
			return -1;
		if (n == 1) {
			if (wc.status != IBV_WC_SUCCESS)
				return -1;
			*idx = (int)wc.wr_id;
			return (int)wc.byte_len;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			return -2;
	}
}

static void put32(uint32_t *w, int i, uint32_t v)
{
	w[i] = htonl(v);
}

/* A valid NULL call of the echo program, xid x. */
static size_t null_call(uint32_t *w, uint32_t x)
{
	int i = 0;

	put32(w, i++, x); put32(w, i++, 1); put32(w, i++, 8); put32(w, i++, 0);
	put32(w, i++, 0); put32(w, i++, 0); put32(w, i++, 0);
	/* RPC: xid CALL 2 prog vers proc cred verf */
	put32(w, i++, x); put32(w, i++, 0); put32(w, i++, 2); put32(w, i++, 0x20049001u);
	put32(w, i++, 1); put32(w, i++, 0); put32(w, i++, 0); put32(w, i++, 0);
	put32(w, i++, 0); put32(w, i++, 0);
	return (size_t)i * 4;
}

/* Sends a valid NULL call and checks its RDMA_MSG reply. */
static void expect_null_reply(struct conn *c, uint32_t x, const char *after)
{
	uint32_t w[32];
	struct rpcrdma_hdr h;
	int idx, len;

	if (send_raw(c, w, null_call(w, x))) {
		CHECK(0, "after %s: send of NULL call failed", after);
		return;
	}
	len = recv_one(c, 5000, &idx);
	CHECK(len > 0, "after %s: no reply to the NULL call", after);
	if (len <= 0)
		return;
	CHECK(rpcrdma_check_reply(c->buf + idx * BUFSZ, (size_t)len, &h) > 0 &&
	      h.type == RPCRDMA_MSG && h.xid == htonl(x) && h.credits >= 1,
	      "after %s: reply is not an RDMA_MSG for xid %u", after, x);
	post_recv(c, idx);
}

/* Sends msg (words), expects RDMA_ERROR with code err (0: no answer). */
static void probe(struct conn *c, const char *name, const uint32_t *msg, size_t len, uint32_t err,
		  uint32_t *xid)
{
	int idx, n;

	if (send_raw(c, msg, len)) {
		CHECK(0, "%s: send failed", name);
		return;
	}
	if (err) {
		n = recv_one(c, 5000, &idx);
		CHECK(n > 0, "%s: no RDMA_ERROR", name);
		if (n > 0) {
			const uint32_t *r = (const uint32_t *)(c->buf + idx * BUFSZ);

			/* Read the words directly: an ERR_VERS answer echoes the
			 * call's version, which a reply checker would refuse. */
			CHECK(n >= 20 && r[0] == msg[0] && ntohl(r[2]) >= 1 &&
			      ntohl(r[3]) == RPCRDMA_ERROR && ntohl(r[4]) == err,
			      "%s: wanted RDMA_ERROR code %u, got %d bytes type %u err %u", name, err,
			      n, ntohl(r[3]), ntohl(r[4]));
			if (err == RPCRDMA_ERR_VERS)
				CHECK(n == 28 && ntohl(r[5]) == 1 && ntohl(r[6]) == 1,
				      "%s: ERR_VERS range %u..%u", name, ntohl(r[5]), ntohl(r[6]));
			else
				CHECK(n == 20, "%s: ERR_CHUNK of %d bytes", name, n);
			post_recv(c, idx);
		}
		printf("%s: answered RDMA_ERROR %s\n", name, err == 1 ? "ERR_VERS" : "ERR_CHUNK");
	} else {
		printf("%s: expecting no answer\n", name);
	}
	/* Either way the connection keeps serving, and a dropped message left
	 * nothing behind: the next reply is the NULL call's. */
	expect_null_reply(c, ++*xid, name);
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *ai;
	struct conn a, b;
	uint32_t w[64], xid = 100;
	int i;

	if (argc != 3 || getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	if (conn_open(&a, ai->ai_addr)) {
		fprintf(stderr, "connect failed\n");
		return 1;
	}
	expect_null_reply(&a, ++xid, "connect");

	/* version 2 */
	null_call(w, ++xid);
	put32(w, 1, 2);
	probe(&a, "version 2", w, 68, RPCRDMA_ERR_VERS, &xid);
	/* RDMA_MSGP */
	null_call(w, ++xid);
	put32(w, 3, RPCRDMA_MSGP);
	probe(&a, "RDMA_MSGP", w, 68, RPCRDMA_ERR_CHUNK, &xid);
	/* unknown type */
	null_call(w, ++xid);
	put32(w, 3, 7);
	probe(&a, "type 7", w, 68, RPCRDMA_ERR_CHUNK, &xid);
	/* read list discriminator 5 */
	null_call(w, ++xid);
	put32(w, 4, 5);
	probe(&a, "discriminator 5", w, 68, RPCRDMA_ERR_CHUNK, &xid);
	/* write list with 0xffffffff segments */
	i = 0;
	put32(w, i++, ++xid); put32(w, i++, 1); put32(w, i++, 8); put32(w, i++, RPCRDMA_MSG);
	put32(w, i++, 0); put32(w, i++, 1); put32(w, i++, 0xffffffffu);
	for (; i < 16; i++)
		put32(w, i, 0);
	probe(&a, "huge segment count", w, 64, RPCRDMA_ERR_CHUNK, &xid);
	/* read list entry cut short by the end of the message */
	i = 0;
	put32(w, i++, ++xid); put32(w, i++, 1); put32(w, i++, 8); put32(w, i++, RPCRDMA_MSG);
	put32(w, i++, 1); put32(w, i++, 0); put32(w, i++, 0x1234);
	probe(&a, "truncated read list", w, (size_t)i * 4, RPCRDMA_ERR_CHUNK, &xid);
	/* RDMA_NOMSG with a data chunk at a position past the end of the call
	 * its position-zero chunk carries (64 bytes): the checker cannot know,
	 * the transport refuses it before reading anything */
	i = 0;
	put32(w, i++, ++xid); put32(w, i++, 1); put32(w, i++, 8); put32(w, i++, RPCRDMA_NOMSG);
	put32(w, i++, 1); put32(w, i++, 0);
	put32(w, i++, 0x51); put32(w, i++, 64); put32(w, i++, 0); put32(w, i++, 0x1000);
	put32(w, i++, 1); put32(w, i++, 128);
	put32(w, i++, 0x52); put32(w, i++, 8); put32(w, i++, 0); put32(w, i++, 0x2000);
	put32(w, i++, 0); put32(w, i++, 0); put32(w, i++, 0);
	probe(&a, "data chunk past the position-zero call", w, (size_t)i * 4, RPCRDMA_ERR_CHUNK,
	      &xid);
	/* 16 bytes: fixed part only */
	null_call(w, ++xid);
	probe(&a, "16-byte header", w, 16, RPCRDMA_ERR_CHUNK, &xid);
	/* 4 bytes */
	put32(w, 0, ++xid);
	probe(&a, "4 bytes", w, 4, 0, &xid);
	/* RDMA_DONE */
	null_call(w, ++xid);
	put32(w, 3, RPCRDMA_DONE);
	probe(&a, "RDMA_DONE", w, 28, 0, &xid);
	/* RDMA_ERROR from a client */
	i = 0;
	put32(w, i++, ++xid); put32(w, i++, 1); put32(w, i++, 8); put32(w, i++, RPCRDMA_ERROR);
	put32(w, i++, RPCRDMA_ERR_VERS); put32(w, i++, 1); put32(w, i++, 1);
	probe(&a, "RDMA_ERROR", w, (size_t)i * 4, 0, &xid);
	/* 20 bytes or less is too short whatever the type (RFC 8166 checker) */
	i = 0;
	put32(w, i++, ++xid); put32(w, i++, 1); put32(w, i++, 8); put32(w, i++, RPCRDMA_ERROR);
	put32(w, i++, RPCRDMA_ERR_CHUNK);
	probe(&a, "20-byte RDMA_ERROR", w, (size_t)i * 4, RPCRDMA_ERR_CHUNK, &xid);

	/* Policy: connection b sends garbage until the server drops it. */
	if (conn_open(&b, ai->ai_addr)) {
		CHECK(0, "second connection failed");
	} else {
		int sent = 0, answered = 0, gone = 0;

		for (sent = 0; sent < 40 && !gone; sent++) {
			int idx, n;

			null_call(w, 5000 + (uint32_t)sent);
			put32(w, 3, 7);
			if (send_raw(&b, w, 68)) {
				gone = 1;
				break;
			}
			n = recv_one(&b, 3000, &idx);
			if (n > 0) {
				answered++;
				post_recv(&b, idx);
			} else {
				gone = 1;
			}
		}
		printf("garbage connection: %d sent, %d answered, %s\n", sent, answered,
		       gone ? "disconnected by the server" : "still connected");
		CHECK(gone, "server never disconnected the garbage connection");
		conn_close(&b);
	}
	/* The well-behaved connection is still served. */
	expect_null_reply(&a, ++xid, "the other connection's policy disconnect");
	conn_close(&a);
	freeaddrinfo(ai);
	printf("%s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
