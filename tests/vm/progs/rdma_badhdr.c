/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-badhdr ADDR PORT: a raw rdma_cm/verbs client that sends malformed
 * RPC-over-RDMA headers to an echo server and checks each answer:
 *   wrong version        -> RDMA_ERROR / ERR_VERS (low = high = 1), same xid
 *   RDMA_MSGP, type 7,
 *   bad discriminator,
 *   huge segment count,
 *   truncated read list,
 *   16-byte header       -> RDMA_ERROR / ERR_CHUNK, same xid
 *   4 bytes, RDMA_DONE,
 *   RDMA_ERROR (28 B),
 *   RDMA_DONE and RDMA_ERROR of 16 and 20 bytes (never_answered())
 *                        -> nothing (the next reply is for the next call)
 * and that a valid NULL call after each one is answered normally.  Then a
 * second connection sends garbage until the server disconnects it by
 * policy, while the first connection keeps being served.
 * Prints "PASS" when everything matched.
 *
 * rdma-badhdr ADDR PORT flood [N]: N (1024) NULL calls back to back on one
 * connection, whatever the grant; every call must be answered, or the
 * connection closed by the server (see flood()).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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

#include "rdma_conn.h"

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

	memset(c, 0, sizeof(*c));
	if (rc_resolve(&c->ech, &c->id, dst))
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
	p.initiator_depth = p.responder_resources = 1;
	if (rc_connect(c->ech, c->id, &p, &priv))
		return -1;
	return 0;
}

static void conn_close(struct conn *c)
{
	rc_disconnect(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	rc_release(c->ech, c->id, c->pd, c->cq);
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

/* ---- issue 23 item 13: RDMA_DONE and RDMA_ERROR are never answered ---- */

/*
 * RDMA_DONE and RDMA_ERROR at the lengths that were answered with ERR_CHUNK
 * (20 bytes or less), with each error code: no answer, and the connection
 * keeps serving (probe() checks that the next reply is the NULL call's).
 */
static void never_answered(struct conn *c, uint32_t *xid)
{
	static const struct {
		const char *name;
		uint32_t type, words, err;
	} m[] = {
		{ "16-byte RDMA_DONE", RPCRDMA_DONE, 4, 0 },
		{ "20-byte RDMA_DONE", RPCRDMA_DONE, 5, 0 },
		{ "16-byte RDMA_ERROR", RPCRDMA_ERROR, 4, 0 },
		{ "20-byte RDMA_ERROR/ERR_CHUNK", RPCRDMA_ERROR, 5, RPCRDMA_ERR_CHUNK },
		{ "20-byte RDMA_ERROR/ERR_VERS", RPCRDMA_ERROR, 5, RPCRDMA_ERR_VERS },
		{ "20-byte RDMA_ERROR/code 9", RPCRDMA_ERROR, 5, 9 },
	};
	uint32_t w[8];

	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		put32(w, 0, ++*xid); put32(w, 1, 1); put32(w, 2, 8); put32(w, 3, m[k].type);
		put32(w, 4, m[k].err);
		probe(c, m[k].name, w, m[k].words * 4, 0, xid);
	}
}

/* ---- issue 23 item 14: no reply lost for want of send resources ---- */

#define FLOOD_BUF 1024
#define FLOOD_SQ 64

struct flood {
	struct conn c;           /* ech, id, pd, cq, mr, buf (nrecv receives, then sends) */
	int nrecv;
	bool closed;             /* the server disconnected us */
};

static int flood_open(struct flood *f, struct sockaddr *dst, int n)
{
	struct conn *c = &f->c;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = FLOOD_SQ, .max_recv_wr = 0,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct rdma_conn_param p = { 0 };
	struct rpcrdma_cm_private priv = { false, FLOOD_BUF, FLOOD_BUF };
	size_t len;

	memset(f, 0, sizeof(*f));
	f->nrecv = n + 16;   /* every reply finds a receive: no RNR on our side */
	len = (size_t)(f->nrecv + n + 1) * FLOOD_BUF;
	qa.cap.max_recv_wr = (uint32_t)f->nrecv;
	if (rc_resolve(&c->ech, &c->id, dst))
		return -1;
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, f->nrecv + FLOOD_SQ + 16, NULL, NULL, 0);
	c->buf = calloc(1, len);
	if (!c->pd || !c->cq || !c->buf)
		return -1;
	c->mr = ibv_reg_mr(c->pd, c->buf, len, IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = qa.recv_cq = c->cq;
	if (!c->mr || rdma_create_qp(c->id, c->pd, &qa))
		return -1;
	for (int i = 0; i < f->nrecv; i++) {
		struct ibv_sge sge = { (uintptr_t)(c->buf + (size_t)i * FLOOD_BUF), FLOOD_BUF,
				       c->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(c->id->qp, &wr, &bad))
			return -1;
	}
	p.initiator_depth = p.responder_resources = 1;
	if (rc_connect(c->ech, c->id, &p, &priv))
		return -1;
	/* From now on the CM channel is only read for a disconnect. */
	return fcntl(c->ech->fd, F_SETFL, fcntl(c->ech->fd, F_GETFL) | O_NONBLOCK);
}

/* Whether the server disconnected (a CM event, or a completion in error). */
static void flood_cm(struct flood *f)
{
	struct rdma_cm_event *ev;

	while (rdma_get_cm_event(f->c.ech, &ev) == 0) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			f->closed = true;
		rdma_ack_cm_event(ev);
	}
}

/* Posts send i (the NULL call of xid base + i, built in send buffer i). */
static int flood_send(struct flood *f, int i, uint32_t base)
{
	struct conn *c = &f->c;
	uint8_t *b = c->buf + (size_t)(f->nrecv + i) * FLOOD_BUF;
	struct ibv_sge sge = { (uintptr_t)b, 0, c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = (uint64_t)(1u << 30) + (uint64_t)i, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	sge.length = (uint32_t)null_call((uint32_t *)b, base + (uint32_t)i);
	return ibv_post_send(c->id->qp, &wr, &bad);
}

/* Polls once: counts send completions into *acked, replies into got[]. */
static void flood_poll(struct flood *f, int n, uint32_t base, int *acked, bool *got, int *answered)
{
	struct ibv_wc wc[32];
	int k = ibv_poll_cq(f->c.cq, 32, wc);

	for (int j = 0; j < k; j++) {
		struct rpcrdma_hdr h;

		if (wc[j].status != IBV_WC_SUCCESS) {
			f->closed = true;
			continue;
		}
		if (wc[j].wr_id >= (1u << 30)) {
			(*acked)++;
			continue;
		}
		const uint8_t *r = f->c.buf + wc[j].wr_id * FLOOD_BUF;
		uint32_t x;

		if (rpcrdma_check_reply(r, wc[j].byte_len, &h) <= 0 || h.type != RPCRDMA_MSG) {
			CHECK(0, "flood: reply %d bytes is not an RDMA_MSG", (int)wc[j].byte_len);
			continue;
		}
		x = ntohl(h.xid) - base;
		if (x < (uint32_t)n + 1 && !got[x]) {
			got[x] = true;
			(*answered)++;
		} else {
			CHECK(0, "flood: unexpected or repeated xid %u", ntohl(h.xid));
		}
	}
	flood_cm(f);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * n NULL calls back to back, whatever the server granted, up to FLOOD_SQ
 * posted at once.  Then wait until every call is answered or the server has closed
 * the connection (liveness: 30 s without progress).  If neither, one more
 * call tells whether the connection is still up: answered, then the
 * missing replies were lost while it kept serving (the bug of issue 23
 * item 14: 642 of 1024 answered).  Prints the figures.
 */
static int flood(struct sockaddr *dst, int n)
{
	const uint32_t base = 0x10000;
	struct flood f;
	bool *got = calloc((size_t)n + 1, 1);
	int sent = 0, acked = 0, answered = 0;
	double last = now_s();

	if (n < 1 || !got || flood_open(&f, dst, n)) {
		fprintf(stderr, "flood: connect failed\n");
		return 1;
	}
	while (!f.closed && (sent < n || answered < n)) {
		int before = answered + acked;

		while (!f.closed && sent < n && sent - acked < FLOOD_SQ) {
			if (flood_send(&f, sent, base)) {
				f.closed = true;
				break;
			}
			sent++;
		}
		flood_poll(&f, n, base, &acked, got, &answered);
		if (answered + acked != before)
			last = now_s();
		else if (now_s() - last > 30)
			break;
	}
	printf("flood: %d calls sent, %d answered, connection %s\n", sent, answered,
	       f.closed ? "closed by the server" : "up");
	if (!f.closed && answered < n) {
		/* Still up?  One more call: an answer proves the others lost. */
		if (flood_send(&f, n, base) == 0) {
			last = now_s();
			while (!f.closed && !got[n] && now_s() - last < 30)
				flood_poll(&f, n, base, &acked, got, &answered);
		}
		CHECK(f.closed, "flood: %d of %d calls never answered on a connection still up%s",
		      n - answered + (got[n] ? 1 : 0), n,
		      got[n] ? " (a later call was answered)" : "");
	}
	conn_close(&f.c);
	free(got);
	printf("%s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *ai;
	struct conn a, b;
	uint32_t w[64], xid = 100;
	int i;

	if (argc < 3 || getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "usage: %s ADDR PORT [flood [N]]\n", argv[0]);
		return 2;
	}
	if (argc >= 4 && strcmp(argv[3], "flood") == 0)
		return flood(ai->ai_addr, argc >= 5 ? atoi(argv[4]) : 1024);
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
	never_answered(&a, &xid);

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
