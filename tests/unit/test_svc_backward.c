/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box: calls from the service back to the client on a TCP connection
 * (rpcrdma_svc_call_conn, rpcrdma_svc_conn_call_async) against a raw
 * socket playing the client: the reply matched by xid, timeouts, the
 * connection closing with calls pending, destroy, a hostile client
 * (garbage, wrong xids, denied and failed replies, no answer at all), and a
 * flood of calls.  Waits are bounded for liveness only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "bc_util.h"
#include "svc_net_util.h"

struct fix {
	struct server s;
	struct bc_state st;
	int fd;
};

static void fix_start(struct fix *f)
{
	bc_state_init(&f->st);
	server_start(&f->s, NULL, false);
	struct rpcrdma_svc_program p = bc_program(&f->st);
	assert_int_equal(rpcrdma_svc_register(f->s.svc, &p), 0);
	assert_int_equal(rpcrdma_svc_start(f->s.svc), 0);
	f->fd = sock_connect(SOCK_STREAM, f->s.tcp_port, 30);
}

static void fix_stop(struct fix *f)
{
	if (f->fd >= 0)
		close(f->fd);
	server_stop(&f->s);
	bc_state_fini(&f->st);
}

/* Puts nw (at most 16) words in network order at m; returns their bytes. */
static size_t put_words(uint8_t *m, const uint32_t *w, size_t nw)
{
	assert_true(nw <= 16);
	for (size_t i = 0; i < nw; i++)
		put32(m + 4 * i, w[i]);
	return 4 * nw;
}

static void send_words(struct fix *f, const uint32_t *w, size_t nw)
{
	uint8_t m[64];
	assert_int_equal(send_record(f->fd, m, put_words(m, w, nw)), 0);
}

/* Asks the server to send n backward calls (value, value+1, ...). */
static void ask(struct fix *f, uint32_t xid, uint32_t n, uint32_t value, uint32_t timeout_ms)
{
	uint32_t w[] = { xid, 0, 2, BC_PROG, 1, 1, 0, 0, 0, 0, n, value, timeout_ms, 0 };
	send_words(f, w, sizeof(w) / 4);
}

/* Reads records until the reply to xid; backward calls met on the way are
 * stored in calls[] (up to max), their count in *ncalls. */
struct seen {
	uint32_t xid, prog, vers, proc, arg;
};

static uint32_t read_until_reply(struct fix *f, uint32_t xid, struct seen *calls,
				 unsigned max, unsigned *ncalls)
{
	uint8_t r[256];
	for (;;) {
		ssize_t n = recv_record(f->fd, r, sizeof(r));
		assert_true(n >= 8);
		if (get32(r + 4) == 1) {
			assert_int_equal(get32(r), xid);
			assert_int_equal(n, 28);
			assert_int_equal(get32(r + 20), 0);
			return get32(r + 24);
		}
		/* a call: xid CALL 2 prog vers proc AUTH_NONE 0 AUTH_NONE 0 arg */
		assert_int_equal(n, 44);
		assert_int_equal(get32(r + 8), 2);
		assert_int_equal(get32(r + 24), 0);
		assert_int_equal(get32(r + 32), 0);
		assert_true(*ncalls < max);
		struct seen *s = &calls[(*ncalls)++];
		s->xid = get32(r);
		s->prog = get32(r + 12);
		s->vers = get32(r + 16);
		s->proc = get32(r + 20);
		s->arg = get32(r + 40);
	}
}

/* Reads one backward call record. */
static struct seen read_call(struct fix *f)
{
	uint8_t r[256];
	struct seen s = { 0 };
	ssize_t n = recv_record(f->fd, r, sizeof(r));
	assert_int_equal(n, 44);
	assert_int_equal(get32(r + 4), 0);
	s.xid = get32(r);
	s.arg = get32(r + 40);
	return s;
}

/* Sends an accepted SUCCESS reply with one result word (or none if !res). */
static void answer(struct fix *f, uint32_t xid, const uint32_t *res)
{
	uint32_t w[] = { xid, 1, 0, 0, 0, 0, res ? *res : 0 };
	send_words(f, w, res ? 7 : 6);
}

/* A fore call with no backward calls: its reply proves that what the
 * client sent before it was read; no backward call may come first. */
static void fence(struct fix *f, uint32_t xid)
{
	struct seen none[1];
	unsigned n = 0;
	ask(f, xid, 0, 0, 0);
	assert_int_equal(read_until_reply(f, xid, none, 0, &n), 0);
}

/* Starts f and has the server send n backward calls (arguments value,
 * value + 1, ...) in its reply to a fore call; reads them into c (room
 * for 8).  Returns how many were read. */
static unsigned start_calls(struct fix *f, struct seen *c, uint32_t n, uint32_t value,
			    uint32_t timeout_ms)
{
	unsigned nc = 0;
	fix_start(f);
	ask(f, 1, n, value, timeout_ms);
	assert_int_equal(read_until_reply(f, 1, c, 8, &nc), n);
	return nc;
}

static void test_roundtrip(void **state)
{
	(void)state;
	struct fix f;
	struct seen c[8];
	assert_int_equal(start_calls(&f, c, 1, 41, 0), 1);
	assert_int_equal(c[0].prog, CB_PROG);
	assert_int_equal(c[0].vers, 1);
	assert_int_equal(c[0].proc, 1);
	assert_int_equal(c[0].arg, 41);
	assert_int_equal(f.st.calls[0].req.xid, c[0].xid);
	assert_int_equal(rpcrdma_svc_conn_connected(f.st.conn), 1);
	uint32_t res = 42;
	answer(&f, c[0].xid, &res);
	assert_true(bc_wait_done(&f.st, 1));
	assert_int_equal(f.st.calls[0].status, 0);
	assert_int_equal(f.st.calls[0].res, 42);
	assert_int_equal(f.st.calls[0].req.reply_stat, 0);
	/* the same reply again matches nothing: dropped, counted */
	struct rpcrdma_svc_stats before, after;
	rpcrdma_svc_get_stats(f.s.svc, &before, sizeof(before));
	answer(&f, c[0].xid, &res);
	fence(&f, 101);
	rpcrdma_svc_get_stats(f.s.svc, &after, sizeof(after));
	assert_int_equal(after.dropped, before.dropped + 1);
	assert_int_equal(f.st.calls[0].done_count, 1);
	fix_stop(&f);
}

static void test_timeout_then_late_reply(void **state)
{
	(void)state;
	struct fix f;
	struct seen c[8];
	start_calls(&f, c, 2, 7, 50);
	assert_true(bc_wait_done(&f.st, 2));
	assert_int_equal(f.st.calls[0].status, -ETIMEDOUT);
	assert_int_equal(f.st.calls[1].status, -ETIMEDOUT);
	uint32_t res = 8;
	answer(&f, c[0].xid, &res);
	fence(&f, 2);
	assert_int_equal(f.st.calls[0].done_count, 1);
	assert_int_equal(f.st.calls[0].status, -ETIMEDOUT);
	fix_stop(&f);
}

static void test_close_pending(void **state)
{
	(void)state;
	struct fix f;
	struct seen c[8];
	start_calls(&f, c, 3, 0, 600000);
	close(f.fd);
	f.fd = -1;
	assert_true(bc_all_reset(&f.st, 3));
	fix_stop(&f);
}

/* The handle outlives the service: put after destroy frees it. */
static void test_destroy_pending(void **state)
{
	(void)state;
	struct fix f;
	struct seen c[8];
	start_calls(&f, c, 4, 0, 600000);
	struct rpcrdma_svc_conn *conn = f.st.conn;
	f.st.conn = NULL;
	close(f.fd);
	f.fd = -1;
	rpcrdma_svc_destroy(f.s.svc);
	testprog_destroy(f.s.tp);
	/* cancelled by destroy, or reset if the loop saw the close first */
	assert_int_equal(f.st.ndone, 4);
	for (unsigned i = 0; i < 4; i++) {
		int s = f.st.calls[i].status;
		assert_true(s == -ECANCELED || s == -ECONNRESET);
		assert_int_equal(f.st.calls[i].done_count, 1);
	}
	assert_int_equal(rpcrdma_svc_conn_connected(conn), 0);
	assert_true(bc_refused(&f.st, conn));
	rpcrdma_svc_conn_put(conn);
	bc_state_fini(&f.st);
}

/* Destroy while the connection is still open: -ECANCELED exactly. */
static void test_destroy_open(void **state)
{
	(void)state;
	struct fix f;
	struct seen c[8];
	start_calls(&f, c, 2, 0, 600000);
	rpcrdma_svc_destroy(f.s.svc);
	testprog_destroy(f.s.tp);
	assert_int_equal(f.st.calls[0].status, -ECANCELED);
	assert_int_equal(f.st.calls[1].status, -ECANCELED);
	close(f.fd);
	bc_state_fini(&f.st);
}

static void test_hostile(void **state)
{
	(void)state;
	struct fix f;
	struct seen c[8];
	start_calls(&f, c, 7, 10, 600000);
	/* wrong xids: nothing matches, every call still pending */
	for (uint32_t i = 0; i < 7; i++) {
		uint32_t res = 1;
		answer(&f, c[i].xid + 1000, &res);
	}
	/* too short (xid, REPLY only): -EBADMSG */
	uint32_t w0[] = { c[0].xid, 1 };
	send_words(&f, w0, 2);
	/* MSG_DENIED AUTH_ERROR AUTH_TOOWEAK: -EACCES */
	uint32_t w1[] = { c[1].xid, 1, 1, 1, 5 };
	send_words(&f, w1, 5);
	/* accepted PROC_UNAVAIL: -EREMOTEIO */
	uint32_t w2[] = { c[2].xid, 1, 0, 0, 0, 3 };
	send_words(&f, w2, 6);
	/* SUCCESS without the result: the decoder fails, -EBADMSG */
	answer(&f, c[3].xid, NULL);
	/* a verifier length near 2^32: -EBADMSG */
	uint32_t w4[] = { c[4].xid, 1, 0, 0, 0xfffffffcu, 0, 0 };
	send_words(&f, w4, 7);
	/* reply_stat 7: -EBADMSG */
	uint32_t w5[] = { c[5].xid, 1, 7, 0 };
	send_words(&f, w5, 4);
	fence(&f, 2);
	assert_true(bc_wait_done(&f.st, 6));
	assert_int_equal(bc_status(&f.st, 0), -EBADMSG);
	assert_int_equal(bc_status(&f.st, 1), -EACCES);
	assert_int_equal(f.st.calls[1].req.reply_stat, 1);
	assert_int_equal(f.st.calls[1].req.auth_stat, 5);
	assert_int_equal(bc_status(&f.st, 2), -EREMOTEIO);
	assert_int_equal(f.st.calls[2].req.accept_stat, 3);
	assert_int_equal(bc_status(&f.st, 3), -EBADMSG);
	assert_int_equal(bc_status(&f.st, 4), -EBADMSG);
	assert_int_equal(bc_status(&f.st, 5), -EBADMSG);
	/* the seventh is still pending, then answered properly */
	assert_int_equal(bc_status(&f.st, 6), 1);
	uint32_t res = 17;
	answer(&f, c[6].xid, &res);
	assert_true(bc_wait_done(&f.st, 7));
	assert_int_equal(bc_status(&f.st, 6), 0);
	assert_int_equal(f.st.calls[6].res, 17);
	fix_stop(&f);
}

/* A call from the client that is too short for a call header but says
 * REPLY, or a REPLY for nothing, never disturbs the fore channel. */
static void test_unsolicited_replies(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f);
	for (uint32_t i = 0; i < 100; i++) {
		uint32_t w[] = { i, 1, 0, 0, 0, 0, i };
		send_words(&f, w, 7);
	}
	fence(&f, 5);
	fix_stop(&f);
}

/* Many calls at once, answered in reverse order, while fore calls go on. */
static void test_flood(void **state)
{
	(void)state;
	enum { N = 2000 };
	struct fix f;
	fix_start(&f);
	static struct seen c[N];
	unsigned nc = 0;
	ask(&f, 1, N / 2, 0, 600000);
	ask(&f, 2, N / 2, N / 2, 600000);
	assert_int_equal(read_until_reply(&f, 1, c, N, &nc), N / 2);
	assert_int_equal(read_until_reply(&f, 2, c, N, &nc), N / 2);
	while (nc < N)
		c[nc++] = read_call(&f);
	for (unsigned i = N; i-- > 0;) {
		uint32_t res = c[i].arg * 3;
		answer(&f, c[i].xid, &res);
	}
	assert_true(bc_wait_done(&f.st, N));
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(f.st.calls[i].status, 0);
		assert_int_equal(f.st.calls[i].res, f.st.calls[i].arg * 3);
		assert_int_equal(f.st.calls[i].done_count, 1);
	}
	fix_stop(&f);
}

/* UDP has no connection to call back on. */
static void test_udp_unsupported(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f);
	int u = sock_connect(SOCK_DGRAM, f.s.udp_port, 30);
	uint8_t m[64], r[64];
	uint32_t w[] = { 9, 0, 2, BC_PROG, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0 };
	assert_int_equal(send(u, m, put_words(m, w, 14), 0), 56);
	assert_int_equal(recv(u, r, sizeof(r), 0), 28);
	assert_int_equal(get32(r + 24), 0);
	assert_int_equal(f.st.last_err, -EOPNOTSUPP);
	close(u);
	fix_stop(&f);
}

/* ---- a client that never reads: backward calls stop at max_conn_bytes */

#define BIG_PROG 0x2000009bu
#define BIG_ARGS 65536u
#define BIG_CAP (256u * 1024)

struct big {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rpcrdma_svc_conn *conn;
	struct rpcrdma_clnt_req reqs[1000];
	unsigned sent, ndone, nreset;
	int err;
	bool handled;
};

static int big_enc(struct rpcrdma_xdr_enc *e, const void *a)
{
	(void)a;
	void *p = rpcrdma_xdr_reserve(e, BIG_ARGS);
	if (!p)
		return -EMSGSIZE;
	memset(p, 0x5a, BIG_ARGS);
	return 0;
}

static void big_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct big *b = arg;
	(void)req;
	pthread_mutex_lock(&b->lock);
	b->ndone++;
	b->nreset += status == -ECONNRESET;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static int big_handler(struct rpcrdma_svc_call *call, void *args, void *res)
{
	struct big *b = rpcrdma_svc_call_program_ctx(call);
	(void)args;
	(void)res;
	pthread_mutex_lock(&b->lock);
	assert_int_equal(rpcrdma_svc_call_conn(call, &b->conn), 0);
	for (b->sent = 0; b->sent < 1000; b->sent++) {
		struct rpcrdma_clnt_req *r = &b->reqs[b->sent];
		*r = (struct rpcrdma_clnt_req){ .size = sizeof(*r), .proc = 1, .encode = big_enc,
						.args_max = BIG_ARGS, .timeout_ms = 600000 };
		b->err = rpcrdma_svc_conn_call_async(b->conn, CB_PROG, 1, NULL, r, big_done, b);
		if (b->err)
			break;
	}
	b->handled = true;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	return RPCRDMA_SVC_SUCCESS;
}

static void test_never_reads(void **state)
{
	(void)state;
	static struct big b;
	static const struct rpcrdma_svc_proc procs[] = { { .handler = big_handler } };
	static const struct rpcrdma_svc_version vers[] = { { .vers = 1, .nprocs = 1,
							     .procs = procs } };
	struct rpcrdma_svc_program prog = { .prog = BIG_PROG, .nvers = 1, .vers = vers, .ctx = &b };
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_conn_bytes = BIG_CAP };
	struct server s;
	memset(&b, 0, sizeof(b));
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.cond, NULL);
	server_start(&s, &o, false);
	assert_int_equal(rpcrdma_svc_register(s.svc, &prog), 0);
	assert_int_equal(rpcrdma_svc_start(s.svc), 0);

	/* A small receive window, and nothing ever read. */
	int fd = socket(AF_INET, SOCK_STREAM, 0), small = 4096;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(s.tcp_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	uint8_t m[64];
	uint32_t w[] = { 1, 0, 2, BIG_PROG, 1, 0, 0, 0, 0, 0 };
	assert_int_equal(send_record(fd, m, put_words(m, w, 10)), 0);

	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	pthread_mutex_lock(&b.lock);
	while (!b.handled && pthread_cond_timedwait(&b.cond, &b.lock, &ts) == 0)
		;
	assert_true(b.handled);
	unsigned sent = b.sent;
	int err = b.err;
	pthread_mutex_unlock(&b.lock);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(s.svc, &st, sizeof(st));
	printf("never reads: %u calls of 64 KiB queued, then %d; %llu bytes buffered\n", sent,
	       err, (unsigned long long)st.tcp_buffered);
	assert_int_equal(err, -EAGAIN);
	assert_true(sent > 0 && sent < 1000);
	/* the cap, one call past it, and the reply to the fore call */
	assert_true(st.tcp_buffered <= BIG_CAP + 2 * (BIG_ARGS + 4096));

	close(fd);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	pthread_mutex_lock(&b.lock);
	while (b.ndone < sent && pthread_cond_timedwait(&b.cond, &b.lock, &ts) == 0)
		;
	assert_int_equal(b.ndone, sent);
	assert_int_equal(b.nreset, sent);
	pthread_mutex_unlock(&b.lock);
	server_stop(&s);
	rpcrdma_svc_conn_put(b.conn);
	pthread_mutex_destroy(&b.lock);
	pthread_cond_destroy(&b.cond);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_timeout_then_late_reply),
		cmocka_unit_test(test_close_pending),
		cmocka_unit_test(test_destroy_pending),
		cmocka_unit_test(test_destroy_open),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_unsolicited_replies),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_udp_unsupported),
		cmocka_unit_test(test_never_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
