/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Service-core benchmark: calls through the core (decode, auth, dispatch,
 * estimate, handler, reply encoding) over an in-memory transport, no I/O.
 * Prints ns per call for several call shapes side by side, and the ratio
 * of each to the NULL call.  Public API only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/svc.h>
#include "svc/svc_int.h" /* the transport plug */
#include "../svc/testprog.h"

struct sink {
	struct rpcrdma__svc_xprt *x;
	uint8_t buf[8192];
	size_t len;
};

static void *s_buf(void *priv, void *ctx, size_t max)
{
	struct sink *s = priv;
	(void)ctx;
	return max <= sizeof(s->buf) ? s->buf : NULL;
}

static void s_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct sink *s = priv;
	(void)ctx;
	(void)buf;
	s->len = len;
	rpcrdma__svc_xprt_complete(s->x);
}

static const struct rpcrdma__svc_xprt_ops ops = { s_buf, s_done, NULL, NULL };

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static size_t mk(uint8_t *b, uint32_t proc, int sys, uint32_t arg, size_t alen)
{
	size_t n = 0;
	uint32_t h[] = { 1, 0, 2, TESTPROG_PROG, 1, proc };
	for (unsigned i = 0; i < 6; i++, n += 4)
		put32(b + n, h[i]);
	if (sys) { /* AUTH_SYS "bench", uid 1000, 4 gids */
		uint32_t c[] = { 1, 44, 0, 5, 0x62656e63, 0x68000000, 1000, 1000, 4, 1, 2, 3, 4 };
		for (unsigned i = 0; i < 13; i++, n += 4)
			put32(b + n, c[i]);
	} else {
		put32(b + n, 0);
		put32(b + n + 4, 0);
		n += 8;
	}
	put32(b + n, 0);
	put32(b + n + 4, 0);
	n += 8;
	if (proc != TP_NULL) {
		put32(b + n, arg);
		n += 4;
		memset(b + n, 'x', alen);
		n += (alen + 3) & ~(size_t)3;
	}
	return n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	struct sink s;
	if (rpcrdma_svc_create(NULL, &svc) || testprog_create(&tp) ||
	    rpcrdma_svc_register(svc, testprog_program(tp)))
		return 1;
	struct rpcrdma__svc_xprt_info info = { .size = sizeof(info), .netid = "tcp",
		.flags = RPCRDMA__SVC_XPRT_CONGESTION_CONTROL };
	if (rpcrdma__svc_xprt_create(svc, &ops, &s, &info, &s.x))
		return 1;
	struct {
		const char *name;
		uint32_t proc, arg;
		size_t alen;
		int sys, split;
	} cases[] = {
		{ "NULL, AUTH_NONE", TP_NULL, 0, 0, 0, 0 },
		{ "NULL, AUTH_SYS", TP_NULL, 0, 0, 1, 0 },
		{ "ADD", TP_ADD, 1, 4, 0, 0 },
		{ "ECHO 1 KiB, one segment", TP_ECHO, 1024, 1024, 0, 0 },
		{ "ECHO 1 KiB, 2 segments", TP_ECHO, 1024, 1024, 0, 1 },
		{ "SQUARES 256", TP_SQUARES, 256, 0, 0, 0 },
	};
	const int iters = 200000;
	double base = 0;
	static uint8_t msg[2048];
	printf("%-28s %10s %12s %8s\n", "call", "ns/call", "calls/s", "x NULL");
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = mk(msg, cases[c].proc, cases[c].sys, cases[c].arg, cases[c].alen);
		size_t cut = cases[c].split ? n - 512 : n;
		struct iovec iov[2] = { { msg, cut }, { msg + cut, n - cut } };
		double t0 = now();
		for (int i = 0; i < iters; i++)
			rpcrdma__svc_xprt_recv(s.x, iov, 2, NULL, 0, NULL);
		double ns = (now() - t0) / iters * 1e9;
		if (c == 0)
			base = ns;
		if (s.len < 24 || s.buf[23] != 0) {
			fprintf(stderr, "%s: unexpected reply\n", cases[c].name);
			return 1;
		}
		printf("%-28s %10.1f %12.0f %8.2f\n", cases[c].name, ns, 1e9 / ns, ns / base);
	}
	rpcrdma__svc_xprt_destroy(s.x);
	rpcrdma_svc_destroy(svc);
	testprog_destroy(tp);
	return 0;
}
