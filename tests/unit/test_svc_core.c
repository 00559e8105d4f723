/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Service core, white-box: call-header decoder and reply encoders with
 * byte-exact vectors, then the whole core (dispatch, every reply status,
 * authentication, congestion-control rule, slots, asynchronous replies,
 * estimates) through an in-memory transport written against the public
 * transport contract of svc.h -- the same contract the RDMA transport uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>

#include "svc/svc_int.h"
#include "../svc/testprog.h"

/* ---------------------------------------------------------- builders */

struct msg {
	uint8_t b[8192];
	size_t n;
};

static void w32(struct msg *m, uint32_t v)
{
	rpcrdma__put_be32(m->b + m->n, v);
	m->n += 4;
}

static void wbytes(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n += n;
	while (m->n & 3)
		m->b[m->n++] = 0;
}

/* A call header with AUTH_NONE credential and verifier. */
static void call_none(struct msg *m, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc)
{
	m->n = 0;
	w32(m, xid);
	w32(m, 0);
	w32(m, 2);
	w32(m, prog);
	w32(m, vers);
	w32(m, proc);
	w32(m, 0);
	w32(m, 0);
	w32(m, 0);
	w32(m, 0);
}

/* A call header with AUTH_SYS (name, ngids gids 100+i). */
static void call_sys(struct msg *m, uint32_t xid, uint32_t prog, uint32_t vers,
		     uint32_t proc, const char *name, uint32_t ngids)
{
	m->n = 0;
	w32(m, xid);
	w32(m, 0);
	w32(m, 2);
	w32(m, prog);
	w32(m, vers);
	w32(m, proc);
	w32(m, 1);
	size_t nl = strlen(name);
	w32(m, (uint32_t)(4 + 4 + ((nl + 3) & ~3u) + 12 + 4 * ngids));
	w32(m, 0x11223344);
	w32(m, (uint32_t)nl);
	wbytes(m, name, nl);
	w32(m, 1000);
	w32(m, 100);
	w32(m, ngids);
	for (uint32_t i = 0; i < ngids; i++)
		w32(m, 100 + i);
	w32(m, 0);
	w32(m, 0);
}

/* Expected reply from words. */
static size_t words(uint8_t *out, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rpcrdma__put_be32(out + 4 * i, w[i]);
	return 4 * n;
}

/* ---------------------------------------------------------- decoder */

static void test_decode_auth_sys_bytes(void **state)
{
	(void)state;
	/* Byte-exact call: xid 0x01020304, prog 100003 v3 proc 1, AUTH_SYS
	 * stamp 0x5f, "host", uid 0, gid 0, gids {10, 20}; AUTH_NONE verf;
	 * then 4 argument bytes. */
	static const uint8_t call[] = {
		0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0, 0, 0, 0, 2,
		0x00, 0x01, 0x86, 0xa3, 0, 0, 0, 3, 0, 0, 0, 1,
		0, 0, 0, 1, 0, 0, 0, 32,
		0, 0, 0, 0x5f, 0, 0, 0, 4, 'h', 'o', 's', 't',
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 10, 0, 0, 0, 20,
		0, 0, 0, 0, 0, 0, 0, 0,
		0xde, 0xad, 0xbe, 0xef,
	};
	struct rpcrdma__call_hdr h;
	assert_int_equal(rpcrdma__svc_call_decode(call, sizeof(call), &h), RPCRDMA__CALL_OK);
	assert_int_equal(RPCRDMA__BE32(h.xid), 0x01020304);
	assert_int_equal(h.prog, 100003);
	assert_int_equal(h.vers, 3);
	assert_int_equal(h.proc, 1);
	assert_int_equal(h.len, sizeof(call) - 4);
	assert_int_equal(h.cred.flavor, RPCRDMA_AUTH_SYS);
	assert_int_equal(h.cred.stamp, 0x5f);
	assert_string_equal(h.cred.machinename, "host");
	assert_int_equal(h.cred.ngids, 2);
	assert_int_equal(h.cred.gids[0], 10);
	assert_int_equal(h.cred.gids[1], 20);
	/* Every truncation of the header after rpcvers is GARBAGE_ARGS (svc.h
	 * step 3), before it dropped; none reads past the end (ASan checks the
	 * last point: each copy is exactly sized). */
	for (size_t n = 0; n < sizeof(call) - 4; n++) {
		uint8_t *cut = malloc(n ? n : 1);
		memcpy(cut, call, n);
		enum rpcrdma__call_verdict v = rpcrdma__svc_call_decode(cut, n, &h);
		if (n < 12)
			assert_int_equal(v, RPCRDMA__CALL_DROP);
		else
			assert_int_equal(v, RPCRDMA__CALL_GARBAGE);
		free(cut);
	}
}

static void test_decode_rejects(void **state)
{
	(void)state;
	struct msg m;
	struct rpcrdma__call_hdr h;

	call_none(&m, 1, 7, 1, 0);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_OK);
	assert_int_equal(h.cred.flavor, RPCRDMA_AUTH_NONE);
	assert_int_equal(h.len, 40);

	/* A REPLY is not for us. */
	rpcrdma__put_be32(m.b + 4, 1);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_DROP);
	/* rpcvers 3 -> RPC_MISMATCH even with nothing after it. */
	call_none(&m, 1, 7, 1, 0);
	rpcrdma__put_be32(m.b + 8, 3);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, 12, &h), RPCRDMA__CALL_RPC_MISMATCH);
	/* AUTH_NONE with a body */
	call_none(&m, 1, 7, 1, 0);
	rpcrdma__put_be32(m.b + 28, 4);
	m.n += 4;
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);
	/* credential length > 400 */
	call_none(&m, 1, 7, 1, 0);
	rpcrdma__put_be32(m.b + 28, 404);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);
	/* verifier length > 400 */
	call_none(&m, 1, 7, 1, 0);
	rpcrdma__put_be32(m.b + 36, 0x7fffffff);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADVERF);
	/* verifier flavour AUTH_SYS */
	call_none(&m, 1, 7, 1, 0);
	rpcrdma__put_be32(m.b + 32, 1);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADVERF);
	/* AUTH_SHORT, RPCSEC_GSS */
	call_none(&m, 1, 7, 1, 0);
	rpcrdma__put_be32(m.b + 24, 2);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_REJECTEDCRED);
	rpcrdma__put_be32(m.b + 24, 6);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);

	/* AUTH_SYS bounds: 255-byte name and 16 gids pass, 256 / 17 do not. */
	char name[257];
	memset(name, 'a', 256);
	name[255] = '\0';
	call_sys(&m, 1, 7, 1, 0, name, 16);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_OK);
	assert_int_equal(strlen(h.cred.machinename), 255);
	assert_int_equal(h.cred.ngids, 16);
	assert_int_equal(h.cred.gids[15], 115);
	name[255] = 'a';
	name[256] = '\0';
	call_sys(&m, 1, 7, 1, 0, name, 0);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);
	call_sys(&m, 1, 7, 1, 0, "h", 17);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);
	/* body length one word more than the parameters fill */
	call_sys(&m, 1, 7, 1, 0, "h", 1);
	rpcrdma__put_be32(m.b + 28, rpcrdma__get_be32(m.b + 28) + 4);
	w32(&m, 0);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);
	/* gid count claims more than the body holds */
	call_sys(&m, 1, 7, 1, 0, "h", 2);
	rpcrdma__put_be32(m.b + 28 + 4 + 8 + 4 + 8, 3);
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);
	/* name with a NUL byte */
	call_sys(&m, 1, 7, 1, 0, "abcd", 0);
	m.b[41] = 0;
	assert_int_equal(rpcrdma__svc_call_decode(m.b, m.n, &h), RPCRDMA__CALL_AUTH_ERROR);
	assert_int_equal(h.auth_stat, RPCRDMA_AUTH_BADCRED);
}

static void test_reply_encoders(void **state)
{
	(void)state;
	uint8_t b[RPCRDMA__REPLY_HDR_MAX];
	uint32_t xid = RPCRDMA__BE32(0xcafef00d);
	static const uint8_t success[] = {
		0xca, 0xfe, 0xf0, 0x0d, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	assert_int_equal(rpcrdma__svc_reply_accepted(b, xid, 0, 0, 0), sizeof(success));
	assert_memory_equal(b, success, sizeof(success));
	static const uint8_t mismatch[] = {
		0xca, 0xfe, 0xf0, 0x0d, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4,
	};
	assert_int_equal(rpcrdma__svc_reply_accepted(b, xid, 2, 1, 4), sizeof(mismatch));
	assert_memory_equal(b, mismatch, sizeof(mismatch));
	static const uint8_t rpcmis[] = {
		0xca, 0xfe, 0xf0, 0x0d, 0, 0, 0, 1, 0, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2,
	};
	assert_int_equal(rpcrdma__svc_reply_rpc_mismatch(b, xid), sizeof(rpcmis));
	assert_memory_equal(b, rpcmis, sizeof(rpcmis));
	static const uint8_t autherr[] = {
		0xca, 0xfe, 0xf0, 0x0d, 0, 0, 0, 1, 0, 0, 0, 1,
		0, 0, 0, 1, 0, 0, 0, 5,
	};
	assert_int_equal(rpcrdma__svc_reply_auth_error(b, xid, 5), sizeof(autherr));
	assert_memory_equal(b, autherr, sizeof(autherr));
}

/* ------------------------------------------------ in-memory transport */

struct memx {
	struct rpcrdma__svc_xprt *xprt;
	uint8_t reply[16384];
	size_t len;        /* last reply length (0: dropped) */
	size_t max;        /* last reply_buf size */
	unsigned done;     /* done() calls */
	unsigned bufs;     /* reply_buf() calls */
	unsigned bulks;    /* bulk() calls */
	size_t bulk_off, bulk_len;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *mem_reply_buf(void *priv, void *ctx, size_t max)
{
	struct memx *m = priv;
	(void)ctx;
	m->max = max;
	m->bufs++;
	return malloc(max);
}

static void mem_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct memx *m = priv;
	(void)ctx;
	pthread_mutex_lock(&m->lock);
	assert_true(len <= m->max || len == 0);
	assert_true(len <= sizeof(m->reply));
	if (len)
		memcpy(m->reply, buf, len);
	m->len = len;
	m->done++;
	free(buf);
	rpcrdma__svc_xprt_complete(m->xprt);
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static void mem_bulk(void *priv, void *ctx, size_t off, size_t len)
{
	struct memx *m = priv;
	(void)ctx;
	m->bulks++;
	m->bulk_off = off;
	m->bulk_len = len;
}

static const struct rpcrdma__svc_xprt_ops mem_ops = { mem_reply_buf, mem_done, mem_bulk, NULL };

struct fixture {
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	struct memx cc, nocc; /* "tcp"-like and "udp"-like */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_calls = 4 };
	if (rpcrdma_svc_create(&o, &f->svc) || testprog_create(&f->tp) ||
	    rpcrdma_svc_register(f->svc, testprog_program(f->tp)))
		return -1;
	struct rpcrdma__svc_xprt_info i1 = { .size = sizeof(i1), .netid = "tcp",
		.flags = RPCRDMA__SVC_XPRT_CONGESTION_CONTROL };
	struct rpcrdma__svc_xprt_info i2 = { .size = sizeof(i2), .netid = "udp" };
	for (int k = 0; k < 2; k++) {
		struct memx *m = k ? &f->nocc : &f->cc;
		pthread_mutex_init(&m->lock, NULL);
		pthread_cond_init(&m->cond, NULL);
		if (rpcrdma__svc_xprt_create(f->svc, &mem_ops, m, k ? &i2 : &i1, &m->xprt))
			return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	for (int k = 0; k < 2; k++) {
		struct memx *m = k ? &f->nocc : &f->cc;
		assert_int_equal(rpcrdma__svc_xprt_destroy(m->xprt), 0);
		pthread_cond_destroy(&m->cond);
		pthread_mutex_destroy(&m->lock);
	}
	rpcrdma_svc_destroy(f->svc);
	testprog_destroy(f->tp);
	free(f);
	return 0;
}

/* Sends m over x (one segment) and waits for done(). */
static void roundtrip(struct memx *x, const struct msg *m)
{
	struct iovec iov = { (void *)m->b, m->n };
	pthread_mutex_lock(&x->lock);
	unsigned before = x->done;
	pthread_mutex_unlock(&x->lock);
	assert_int_equal(rpcrdma__svc_xprt_recv(x->xprt, &iov, 1, NULL, 0, NULL), 0);
	pthread_mutex_lock(&x->lock);
	while (x->done == before)
		pthread_cond_wait(&x->cond, &x->lock);
	pthread_mutex_unlock(&x->lock);
}

static void expect(struct memx *x, const uint32_t *w, size_t n)
{
	uint8_t exp[256];
	size_t len = words(exp, w, n);
	assert_int_equal(x->len, len);
	assert_memory_equal(x->reply, exp, len);
}

#define EXPECT(x, ...) do { \
	const uint32_t w_[] = { __VA_ARGS__ }; \
	expect((x), w_, sizeof(w_) / 4); \
} while (0)

static size_t cc_null_estimate(const struct rpcrdma_svc_call *call, const void *args)
{
	(void)call, (void)args;
	return 0;
}

static int cc_null_handler(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call, (void)args, (void)res;
	return RPCRDMA_SVC_SUCCESS;
}

static void test_reply_statuses(void **state)
{
	struct fixture *f = *state;
	struct msg m;
	const uint32_t P = TESTPROG_PROG;

	/* SUCCESS: NULL and ADD, exact bytes */
	call_none(&m, 0x10, P, 1, TP_NULL);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x10, 1, 0, 0, 0, 0);
	call_none(&m, 0x11, P, 1, TP_ADD);
	w32(&m, 40);
	w32(&m, 2);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x11, 1, 0, 0, 0, 0, 42);
	assert_int_equal(f->nocc.max, 24 + 4);
	/* ECHO: the estimate is exactly the padded opaque */
	call_none(&m, 0x12, P, 1, TP_ECHO);
	w32(&m, 3);
	wbytes(&m, "abc", 3);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x12, 1, 0, 0, 0, 0, 3, 0x61626300);
	assert_int_equal(f->cc.max, 24 + 8);
	/* PROG_UNAVAIL */
	call_none(&m, 0x13, 0x20000098, 1, 0);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x13, 1, 0, 0, 0, 1);
	/* PROG_MISMATCH: v3 over a CC transport -> 1..2; over UDP -> 1..1 */
	call_none(&m, 0x14, P, 3, 0);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x14, 1, 0, 0, 0, 2, 1, 2);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x14, 1, 0, 0, 0, 2, 1, 1);
	/* v2 needs congestion control: refused over UDP, fine over TCP */
	call_none(&m, 0x15, P, 2, TP_NULL);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x15, 1, 0, 0, 0, 2, 1, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x15, 1, 0, 0, 0, 0);
	/* a program whose only version needs congestion control (NFSv4):
	 * over UDP still PROG_MISMATCH, with its registered range 4..4 */
	static const struct rpcrdma_svc_proc cc_procs[] = {
		{ .name = "NULL", .estimate = cc_null_estimate, .handler = cc_null_handler },
	};
	const struct rpcrdma_svc_version cc_vers[] = {
		{ .vers = 4, .flags = RPCRDMA_SVC_VERS_NEEDS_CC, .nprocs = 1, .procs = cc_procs },
	};
	const struct rpcrdma_svc_program cc_prog = {
		.prog = 0x20000097, .name = "cc-only", .nvers = 1, .vers = cc_vers,
	};
	assert_int_equal(rpcrdma_svc_register(f->svc, &cc_prog), 0);
	call_none(&m, 0x1b, 0x20000097, 4, 0);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x1b, 1, 0, 0, 0, 2, 4, 4);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x1b, 1, 0, 0, 0, 0);
	call_none(&m, 0x1c, 0x20000097, 3, 0);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x1c, 1, 0, 0, 0, 2, 4, 4);
	/* PROC_UNAVAIL: a hole, and beyond the table */
	call_none(&m, 0x16, P, 1, TP_HOLE);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x16, 1, 0, 0, 0, 3);
	call_none(&m, 0x17, P, 2, 2);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x17, 1, 0, 0, 0, 3);
	/* GARBAGE_ARGS: ECHO too long, ADD short, SQUARES over its bound */
	call_none(&m, 0x18, P, 1, TP_ECHO);
	w32(&m, TESTPROG_ECHO_MAX + 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x18, 1, 0, 0, 0, 4);
	call_none(&m, 0x19, P, 1, TP_ADD);
	w32(&m, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x19, 1, 0, 0, 0, 4);
	call_none(&m, 0x1a, P, 1, TP_SQUARES);
	w32(&m, TESTPROG_SQUARES_MAX + 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x1a, 1, 0, 0, 0, 4);
	/* SYSTEM_ERR from the handler */
	call_none(&m, 0x1b, P, 1, TP_SYSERR);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x1b, 1, 0, 0, 0, 5);
	/* RPC_MISMATCH */
	call_none(&m, 0x1c, P, 1, 0);
	rpcrdma__put_be32(m.b + 8, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x1c, 1, 1, 0, 2, 2);
	/* AUTH_ERROR: bad credential, short-hand credential, bad verifier */
	call_sys(&m, 0x1d, P, 1, 0, "h", 17);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x1d, 1, 1, 1, 1);
	call_none(&m, 0x1e, P, 1, 0);
	rpcrdma__put_be32(m.b + 24, 2);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x1e, 1, 1, 1, 2);
	call_none(&m, 0x1f, P, 1, 0);
	rpcrdma__put_be32(m.b + 32, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x1f, 1, 1, 1, 3);
	/* AUTH_SYS call succeeds */
	call_sys(&m, 0x20, P, 1, TP_ADD, "client.example", 3);
	w32(&m, 1);
	w32(&m, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x20, 1, 0, 0, 0, 0, 2);
	/* Dropped: a REPLY, a short message; no reply buffer was asked for */
	unsigned bufs = f->cc.bufs;
	call_none(&m, 0x21, P, 1, 0);
	rpcrdma__put_be32(m.b + 4, 1);
	roundtrip(&f->cc, &m);
	assert_int_equal(f->cc.len, 0);
	m.n = 8;
	roundtrip(&f->cc, &m);
	assert_int_equal(f->cc.len, 0);
	assert_int_equal(f->cc.bufs, bufs);

	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(f->svc, &st, sizeof(st));
	assert_int_equal(st.replies[RPCRDMA_SVC_PROG_MISMATCH], 5);
	assert_int_equal(st.replies[RPCRDMA_SVC_GARBAGE_ARGS], 3);
	assert_int_equal(st.rpc_mismatch, 1);
	assert_int_equal(st.auth_errors, 3);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.estimate_exceeded, 0);
}

/*
 * Step order, pinned: credentials are checked before the program and the
 * version (as Linux's svc_process_common does, "to get a decent auth
 * verifier"; RFC 5531 leaves the order open).  A well-formed credential
 * (AUTH_NONE as rpcinfo sends, AUTH_SYS as the kernel client sends) to
 * NFSv4-like version 4 needing congestion control over UDP therefore gets
 * PROG_MISMATCH 4..4, never an authentication error; only a malformed
 * credential gets AUTH_ERROR, whatever the program or version.
 */
static void test_step_order(void **state)
{
	struct fixture *f = *state;
	struct msg m;
	static const struct rpcrdma_svc_proc procs[] = {
		{ .name = "NULL", .estimate = cc_null_estimate, .handler = cc_null_handler },
	};
	const struct rpcrdma_svc_version vers[] = {
		{ .vers = 4, .flags = RPCRDMA_SVC_VERS_NEEDS_CC | RPCRDMA_SVC_VERS_AUTH_SYS,
		  .nprocs = 1, .procs = procs },
	};
	const struct rpcrdma_svc_program prog = {
		.prog = 100003, .name = "nfs", .nvers = 1, .vers = vers,
	};
	assert_int_equal(rpcrdma_svc_register(f->svc, &prog), 0);
	/* rpcinfo -T udp HOST 100003 4: NULL, AUTH_NONE */
	call_none(&m, 0x70, 100003, 4, 0);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x70, 1, 0, 0, 0, 2, 4, 4);
	/* the kernel client's AUTH_SYS, a COMPOUND-numbered procedure */
	call_sys(&m, 0x71, 100003, 4, 1, "vm", 2);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x71, 1, 0, 0, 0, 2, 4, 4);
	/* version 3 over UDP: the same range */
	call_none(&m, 0x72, 100003, 3, 0);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x72, 1, 0, 0, 0, 2, 4, 4);
	/* malformed credential (17 gids): AUTH_ERROR BADCRED before versions,
	 * before the program, before the procedure */
	call_sys(&m, 0x73, 100003, 4, 0, "vm", 17);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x73, 1, 1, 1, 1);
	call_sys(&m, 0x74, 0x20000090, 9, 77, "vm", 17);
	roundtrip(&f->nocc, &m);
	EXPECT(&f->nocc, 0x74, 1, 1, 1, 1);
	/* AUTH_NONE to a procedure beyond the table over TCP: the version
	 * needs AUTH_SYS, but that is step 8, after PROC_UNAVAIL (step 7) */
	call_none(&m, 0x75, 100003, 4, 5);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x75, 1, 0, 0, 0, 3);
}

/* Arguments split over several segments are decoded the same. */
static void test_iovec_args(void **state)
{
	struct fixture *f = *state;
	struct msg m;
	call_none(&m, 0x30, TESTPROG_PROG, 1, TP_ECHO);
	w32(&m, 10);
	wbytes(&m, "0123456789", 10);
	size_t cuts[] = { 41, 44, 47, 50 };
	struct iovec iov[5];
	size_t prev = 0;
	for (int i = 0; i < 4; i++) {
		iov[i].iov_base = m.b + prev;
		iov[i].iov_len = cuts[i] - prev;
		prev = cuts[i];
	}
	iov[4].iov_base = m.b + prev;
	iov[4].iov_len = m.n - prev;
	/* the header must be in iov[0]: give it 40 + 1 bytes */
	assert_int_equal(rpcrdma__svc_xprt_recv(f->cc.xprt, iov, 5, NULL, 0, NULL), 0);
	EXPECT(&f->cc, 0x30, 1, 0, 0, 0, 0, 10, 0x30313233, 0x34353637, 0x38390000);
}

/* Asynchronous completion from the worker thread. */
static void test_async(void **state)
{
	struct fixture *f = *state;
	struct msg m;
	for (uint32_t i = 0; i < 50; i++) {
		call_none(&m, 0x400 + i, TESTPROG_PROG, 1, TP_ASYNC_ECHO);
		w32(&m, 1);
		wbytes(&m, "z", 1);
		roundtrip(&f->cc, &m);
		EXPECT(&f->cc, 0x400 + i, 1, 0, 0, 0, 0, 1, 0x7a000000);
	}
	assert_int_equal(rpcrdma__svc_xprt_in_progress(f->cc.xprt), 0);
}

/* A transport that keeps the slot after done() until it says otherwise. */
static unsigned deferred;
static void defer_done(void *priv, void *ctx, void *buf, size_t len)
{
	(void)priv;
	(void)ctx;
	(void)len;
	free(buf);
	deferred++;
}

static void test_slots(void **state)
{
	struct fixture *f = *state;
	static const struct rpcrdma__svc_xprt_ops ops = { mem_reply_buf, defer_done, NULL, NULL };
	struct rpcrdma__svc_xprt_info info = { .size = sizeof(info), .netid = "rdma",
		.flags = RPCRDMA__SVC_XPRT_CONGESTION_CONTROL, .max_calls = 3 };
	struct rpcrdma__svc_xprt *x;
	struct msg m;
	assert_int_equal(rpcrdma__svc_xprt_create(f->svc, &ops, &f->cc, &info, &x), 0);
	call_none(&m, 0x50, TESTPROG_PROG, 1, TP_NULL);
	struct iovec iov = { m.b, m.n };
	deferred = 0;
	/* this transport asked for 3 slots (the service default is 4) */
	for (int i = 0; i < 3; i++)
		assert_int_equal(rpcrdma__svc_xprt_recv(x, &iov, 1, NULL, 0, NULL), 0);
	assert_int_equal(deferred, 3);
	assert_int_equal(rpcrdma__svc_xprt_in_progress(x), 3);
	assert_true(rpcrdma__svc_xprt_busy(x));
	assert_int_equal(rpcrdma__svc_xprt_recv(x, &iov, 1, NULL, 0, NULL), -EBUSY);
	assert_int_equal(deferred, 3);
	assert_int_equal(rpcrdma__svc_xprt_destroy(x), -EBUSY);
	rpcrdma__svc_xprt_complete(x);
	assert_false(rpcrdma__svc_xprt_busy(x));
	assert_int_equal(rpcrdma__svc_xprt_recv(x, &iov, 1, NULL, 0, NULL), 0);
	assert_int_equal(deferred, 4);
	for (int i = 0; i < 3; i++)
		rpcrdma__svc_xprt_complete(x);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(f->svc, &st, sizeof(st));
	assert_int_equal(st.busy, 1);
	assert_int_equal(rpcrdma__svc_xprt_destroy(x), 0);
}

static size_t est_none(const struct rpcrdma_svc_call *c, const void *a)
{
	(void)c;
	(void)a;
	return 0;
}

static int h_ok(struct rpcrdma_svc_call *c, void *a, void *r)
{
	(void)c;
	(void)a;
	*(uint32_t *)r = 7;
	return RPCRDMA_SVC_SUCCESS;
}

static int h_void(struct rpcrdma_svc_call *c, void *a, void *r)
{
	(void)c;
	(void)a;
	(void)r;
	return RPCRDMA_SVC_SUCCESS;
}

static int enc_one(struct rpcrdma_xdr_enc *e, const void *r)
{
	return rpcrdma_xdr_put_u32(e, *(const uint32_t *)r);
}

static int enc_fail(struct rpcrdma_xdr_enc *e, const void *r)
{
	(void)e;
	(void)r;
	return -EIO;
}

static void test_register_rules(void **state)
{
	struct fixture *f = *state;
	/* A NULL estimator means a 0-byte result: a void procedure needs no
	 * dummy estimator; one that encodes results anyway runs past it. */
	static const struct rpcrdma_svc_proc noest[2] = {
		{ .name = "VOID", .handler = h_void },
		{ .name = "RES", .res_size = 4, .handler = h_ok, .encode_res = enc_one },
	};
	struct rpcrdma_svc_version v = { 1, 0, 2, noest };
	struct rpcrdma_svc_program p = { 0x20000100, "x", 1, &v, NULL };
	assert_int_equal(rpcrdma_svc_register(f->svc, &p), 0);
	struct msg nm;
	call_none(&nm, 0x50, 0x20000100, 1, 0);
	roundtrip(&f->cc, &nm);
	EXPECT(&f->cc, 0x50, 1, 0, 0, 0, 0);
	call_none(&nm, 0x51, 0x20000100, 1, 1);
	roundtrip(&f->cc, &nm);
	EXPECT(&f->cc, 0x51, 1, 0, 0, 0, 5);
	struct rpcrdma_svc_version two[2] = { { 1, 0, 0, NULL }, { 1, 0, 0, NULL } };
	p.prog = 0x20000102;
	p.vers = two;
	p.nvers = 2;
	assert_int_equal(rpcrdma_svc_register(f->svc, &p), -EINVAL);
	p.nvers = 0;
	assert_int_equal(rpcrdma_svc_register(f->svc, &p), -EINVAL);
	unsigned nv;
	struct rpcrdma_svc_program dup = { TESTPROG_PROG, "dup", 1, testprog_versions(&nv), NULL };
	assert_int_equal(rpcrdma_svc_register(f->svc, &dup), -EEXIST);

	/* A lying estimate (0 bytes for a 4-byte result) and a failing
	 * encoder give SYSTEM_ERR and are counted. */
	static const struct rpcrdma_svc_proc liar[3] = {
		{ .name = "NULL", .estimate = est_none, .handler = h_void },
		{ .name = "LIAR", .res_size = 4, .estimate = est_none, .handler = h_ok,
		  .encode_res = enc_one },
		{ .name = "FAIL", .res_size = 4, .estimate = est_none, .handler = h_ok,
		  .encode_res = enc_fail },
	};
	static const struct rpcrdma_svc_version lv = { 1, RPCRDMA_SVC_VERS_AUTH_SYS, 3, liar };
	struct rpcrdma_svc_program lp = { 0x20000101, "liar", 1, &lv, NULL };
	assert_int_equal(rpcrdma_svc_register(f->svc, &lp), 0);
	struct msg m;
	call_sys(&m, 0x60, 0x20000101, 1, 1, "h", 0);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x60, 1, 0, 0, 0, 5);
	call_sys(&m, 0x61, 0x20000101, 1, 2, "h", 0);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x61, 1, 0, 0, 0, 5);
	/* AUTH_SYS required: AUTH_NONE gets AUTH_TOOWEAK, except for NULL */
	call_none(&m, 0x62, 0x20000101, 1, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x62, 1, 1, 1, 5);
	call_none(&m, 0x63, 0x20000101, 1, 0);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x63, 1, 0, 0, 0, 0);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(f->svc, &st, sizeof(st));
	assert_int_equal(st.estimate_exceeded, 2);
	assert_int_equal(st.encode_errors, 1);
}

/*
 * Every procedure of every version of the test program, with a range of
 * arguments: each reply fits the size reserved from the estimate (mem_done
 * asserts len <= max), no encoder ran out of room (estimate_exceeded == 0),
 * and every call that decoded got SUCCESS (or the handler's SYSTEM_ERR).
 */
static void test_estimates(void **state)
{
	struct fixture *f = *state;
	unsigned nv;
	const struct rpcrdma_svc_version *vs = testprog_versions(&nv);
	static const uint32_t nums[] = { 0, 1, 3, 4, 5, 100, 1023, 1024, 4095, 4096 };
	static uint8_t data[4096];
	unsigned checked = 0;
	memset(data, 0xa5, sizeof(data));
	for (unsigned v = 0; v < nv; v++) {
		for (uint32_t p = 0; p < vs[v].nprocs; p++) {
			if (!vs[v].procs[p].handler)
				continue;
			for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++) {
				/* arguments: a count/length word, then that many
				 * bytes (ECHO), then the same word again (ADD). */
				struct msg m;
				call_none(&m, 0x7000 + (uint32_t)k, TESTPROG_PROG, vs[v].vers, p);
				w32(&m, nums[k]);
				wbytes(&m, data, nums[k]);
				w32(&m, nums[k]);
				roundtrip(&f->cc, &m);
				assert_true(f->cc.len >= 24);
				uint32_t stat = rpcrdma__get_be32(f->cc.reply + 20);
				if (p == TP_SYSERR)
					assert_int_equal(stat, RPCRDMA_SVC_SYSTEM_ERR);
				else if (p == TP_SQUARES && nums[k] > TESTPROG_SQUARES_MAX)
					assert_int_equal(stat, RPCRDMA_SVC_GARBAGE_ARGS);
				else
					assert_int_equal(stat, RPCRDMA_SVC_SUCCESS);
				assert_true(f->cc.len <= f->cc.max);
				checked++;
			}
		}
	}
	assert_int_equal(checked, (6 + 2) * 10);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(f->svc, &st, sizeof(st));
	assert_int_equal(st.estimate_exceeded, 0);
	assert_int_equal(st.encode_errors, 0);
}

/* The option ranges svc.h gives for rpcrdma_svc_create. */
static void test_create_opts(void **state)
{
	(void)state;
	struct rpcrdma_svc *svc = NULL;
	static const struct { unsigned calls; size_t rec, dgram; int rc; } cases[] = {
		{ 0, 0, 0, 0 },
		{ 1u << 20, 32, 32, 0 },
		{ (1u << 20) + 1, 0, 0, -EINVAL },
		{ 0, 31, 0, -EINVAL },
		{ 0, 0x7fffffff, 65536, 0 },
		{ 0, 0x80000000u, 0, -EINVAL },
		{ 0, 0, 31, -EINVAL },
		{ 0, 0, 65537, -EINVAL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_calls = cases[i].calls,
					      .max_record = cases[i].rec,
					      .max_datagram = cases[i].dgram };
		assert_int_equal(rpcrdma_svc_create(&o, &svc), cases[i].rc);
		if (cases[i].rc == 0)
			rpcrdma_svc_destroy(svc);
	}
	/* a size that does not cover the size field; one that stops before
	 * max_record, whose garbage is then ignored */
	struct rpcrdma_svc_opts o = { .size = 4 };
	assert_int_equal(rpcrdma_svc_create(&o, &svc), -EINVAL);
	o = (struct rpcrdma_svc_opts){ .size = offsetof(struct rpcrdma_svc_opts, max_record),
				       .max_record = 1 };
	assert_int_equal(rpcrdma_svc_create(&o, &svc), 0);
	rpcrdma_svc_destroy(svc);
	assert_int_equal(rpcrdma_svc_create(NULL, NULL), -EINVAL);
	/* the service-wide memory cap must hold one record */
	o = (struct rpcrdma_svc_opts){ .size = sizeof(o), .max_record = 4096,
				       .max_svc_bytes = 4095 };
	assert_int_equal(rpcrdma_svc_create(&o, &svc), -EINVAL);
	o.max_svc_bytes = 4096;
	assert_int_equal(rpcrdma_svc_create(&o, &svc), 0);
	rpcrdma_svc_destroy(svc);
	/* limits "none" */
	o = (struct rpcrdma_svc_opts){ .size = sizeof(o), .idle_timeout_ms = RPCRDMA_SVC_UNLIMITED,
				       .max_conns = RPCRDMA_SVC_UNLIMITED };
	assert_int_equal(rpcrdma_svc_create(&o, &svc), 0);
	rpcrdma_svc_destroy(svc);
}

/* ------------------------------------------------ bulk data marking */

#define BULK_PROG 0x20000177u

/* Registers version 1 of prog with procedures procs[0..n). */
static void register_v1(struct fixture *f, uint32_t prog, const char *name,
			const struct rpcrdma_svc_proc *procs, uint32_t n)
{
	const struct rpcrdma_svc_version v = { 1, 0, n, procs };
	const struct rpcrdma_svc_program p = { prog, name, 1, &v, NULL };
	assert_int_equal(rpcrdma_svc_register(f->svc, &p), 0);
}

static size_t bulk_estimate(const struct rpcrdma_svc_call *call, const void *args)
{
	(void)call, (void)args;
	return 16;
}

/* proc 1: results "hello" as an opaque, its data marked (offset 4, 5 bytes);
 * proc 2: a range past the results; proc 3: marks twice. */
static int bulk_handler(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)args, (void)res;
	switch (rpcrdma_svc_call_proc(call)) {
	case 1:
		assert_int_equal(rpcrdma_svc_call_set_bulk(call, 0, 0), -EINVAL);
		assert_int_equal(rpcrdma_svc_call_set_bulk(call, 4, 5), 0);
		break;
	case 2:
		assert_int_equal(rpcrdma_svc_call_set_bulk(call, 8, 5), 0);
		break;
	default:
		assert_int_equal(rpcrdma_svc_call_set_bulk(call, 4, 1), 0);
		assert_int_equal(rpcrdma_svc_call_set_bulk(call, 4, 5), -EINVAL);
		break;
	}
	return RPCRDMA_SVC_SUCCESS;
}

static int bulk_encode(struct rpcrdma_xdr_enc *enc, const void *res)
{
	(void)res;
	return rpcrdma_xdr_put_opaque(enc, "hello", 5);
}

static void test_bulk(void **state)
{
	struct fixture *f = *state;
	static const struct rpcrdma_svc_proc procs[4] = {
		[1] = { "one", 0, 4, NULL, bulk_estimate, bulk_handler, bulk_encode, NULL },
		[2] = { "two", 0, 4, NULL, bulk_estimate, bulk_handler, bulk_encode, NULL },
		[3] = { "three", 0, 4, NULL, bulk_estimate, bulk_handler, bulk_encode, NULL },
	};
	register_v1(f, BULK_PROG, "bulk", procs, 4);
	struct msg m;
	struct rpcrdma_svc_stats st0, st1;
	rpcrdma_svc_get_stats(f->svc, &st0, sizeof(st0));

	call_none(&m, 0x10, BULK_PROG, 1, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x10, 1, 0, 0, 0, 0, 5, 0x68656c6c, 0x6f000000);
	assert_int_equal(f->cc.bulks, 1);
	assert_int_equal(f->cc.bulk_off, 28); /* 24-byte reply header + length word */
	assert_int_equal(f->cc.bulk_len, 5);

	call_none(&m, 0x11, BULK_PROG, 1, 2); /* 8 + 5 > 12 bytes of results */
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x11, 1, 0, 0, 0, 0, 5, 0x68656c6c, 0x6f000000);
	assert_int_equal(f->cc.bulks, 1);
	rpcrdma_svc_get_stats(f->svc, &st1, sizeof(st1));
	assert_int_equal(st1.encode_errors, st0.encode_errors + 1);

	call_none(&m, 0x12, BULK_PROG, 1, 3);
	roundtrip(&f->cc, &m);
	assert_int_equal(f->cc.bulks, 2);
	assert_int_equal(f->cc.bulk_len, 1);
}

/* ------------------------------------------------ results in place */

#define PLACE_PROG 0x20000178u

/* proc 1: "hello" as an opaque written in place, its data marked bulk;
 * proc 2: bad lengths refused (not a multiple of 4, past the room), then
 * nothing declared: encode_res writes its results as usual. */
static int place_handler(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)args, (void)res;
	size_t room = 0;
	uint8_t *p = rpcrdma_svc_call_results(call, &room);
	assert_int_equal(room, 16); /* the estimate */
	assert_int_equal(rpcrdma_svc_call_reply_max(call), 24 + 16);
	if (rpcrdma_svc_call_proc(call) == 1) {
		memcpy(p, (const uint8_t[12]){ 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o' }, 12);
		assert_int_equal(rpcrdma_svc_call_set_results_len(call, 12), 0);
		assert_int_equal(rpcrdma_svc_call_set_bulk(call, 4, 5), 0);
	} else {
		assert_int_equal(rpcrdma_svc_call_set_results_len(call, 6), -EINVAL);
		assert_int_equal(rpcrdma_svc_call_set_results_len(call, 20), -EINVAL);
	}
	return RPCRDMA_SVC_SUCCESS;
}

static int place_encode(struct rpcrdma_xdr_enc *enc, const void *res)
{
	(void)res;
	return rpcrdma_xdr_put_u32(enc, 7);
}

static void test_results_in_place(void **state)
{
	struct fixture *f = *state;
	static const struct rpcrdma_svc_proc procs[3] = {
		[1] = { "one", 0, 4, NULL, bulk_estimate, place_handler, place_encode, NULL },
		[2] = { "two", 0, 4, NULL, bulk_estimate, place_handler, place_encode, NULL },
	};
	register_v1(f, PLACE_PROG, "place", procs, 3);
	struct msg m;

	call_none(&m, 0x20, PLACE_PROG, 1, 1);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x20, 1, 0, 0, 0, 0, 5, 0x68656c6c, 0x6f000000);
	assert_int_equal(f->cc.bulks, 1);
	assert_int_equal(f->cc.bulk_off, 28);
	assert_int_equal(f->cc.bulk_len, 5);

	call_none(&m, 0x21, PLACE_PROG, 1, 2);
	roundtrip(&f->cc, &m);
	EXPECT(&f->cc, 0x21, 1, 0, 0, 0, 0, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_auth_sys_bytes),
		cmocka_unit_test(test_create_opts),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_reply_encoders),
		cmocka_unit_test_setup_teardown(test_reply_statuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bulk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_results_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iovec_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_estimates, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
