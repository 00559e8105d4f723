/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box: the TCP and UDP transports against a hostile peer, over
 * loopback (127.0.0.1 only), through the public API (issue #23, items 9-12):
 * credentials and verifiers whose lengths run past the message, partial
 * records and the memory caps, connection floods and the connection cap,
 * a connection flooding the loop while another waits for its reply.
 * Waits are bounded liveness waits, never timing assertions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <malloc.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>

#include <rpcrdma/svc.h>
#include "../svc/testprog.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An AUTH_NONE NULL call of the test program (40 bytes). */
static size_t mknull(uint8_t *b, uint32_t xid)
{
	uint32_t w[10] = { xid, 0, 2, TESTPROG_PROG, 1, TP_NULL, 0, 0, 0, 0 };
	for (int i = 0; i < 10; i++)
		put32(b + 4 * i, w[i]);
	return 40;
}

struct server {
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	uint16_t tcp_port, udp_port;
};

static void server_start(struct server *s, const struct rpcrdma_svc_opts *o)
{
	assert_int_equal(rpcrdma_svc_create(o, &s->svc), 0);
	assert_int_equal(testprog_create(&s->tp), 0);
	assert_int_equal(rpcrdma_svc_register(s->svc, testprog_program(s->tp)), 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage b;
	assert_int_equal(rpcrdma_svc_listen_tcp(s->svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	s->tcp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	assert_int_equal(rpcrdma_svc_listen_udp(s->svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	s->udp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	assert_int_equal(rpcrdma_svc_start(s->svc), 0);
}

static void server_stop(struct server *s)
{
	rpcrdma_svc_destroy(s->svc);
	testprog_destroy(s->tp);
}

static struct rpcrdma_svc_stats stats(struct server *s)
{
	struct rpcrdma_svc_stats st = { 0 };
	rpcrdma_svc_get_stats(s->svc, &st, sizeof(st));
	return st;
}

/* A socket to the server; receives time out after timeout_s (a liveness
 * bound: a reply that never comes fails the test instead of hanging it). */
static int sock_connect(int type, uint16_t port, int timeout_s)
{
	int fd = socket(AF_INET, type, 0);
	assert_true(fd >= 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	struct timeval tv = { timeout_s, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (type == SOCK_STREAM) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

static int send_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int recv_all(int fd, void *p, size_t n)
{
	uint8_t *b = p;
	while (n) {
		ssize_t k = recv(fd, b, n, 0);
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int send_record(int fd, const uint8_t *msg, size_t n)
{
	uint8_t mark[4];
	put32(mark, 0x80000000u | (uint32_t)n);
	return send_all(fd, mark, 4) || send_all(fd, msg, n) ? -1 : 0;
}

static ssize_t recv_record(int fd, uint8_t *buf, size_t cap)
{
	uint8_t mark[4];
	if (recv_all(fd, mark, 4))
		return -1;
	uint32_t w = get32(mark);
	size_t n = w & 0x7fffffffu;
	if (!(w >> 31) || n > cap || recv_all(fd, buf, n))
		return -1;
	return (ssize_t)n;
}

/* A NULL call on a fresh TCP connection is answered. */
static void null_answered(uint16_t port, uint32_t xid)
{
	uint8_t m[64], r[64];
	int fd = sock_connect(SOCK_STREAM, port, 30);
	assert_int_equal(send_record(fd, m, mknull(m, xid)), 0);
	assert_int_equal(recv_record(fd, r, sizeof(r)), 24);
	assert_int_equal(get32(r), xid);
	assert_int_equal(get32(r + 20), 0);
	close(fd);
}

/* Waits (bounded) until pred(stats) holds. */
static bool wait_stats(struct server *s, bool (*pred)(const struct rpcrdma_svc_stats *, uint64_t),
		       uint64_t arg)
{
	for (int i = 0; i < 3000; i++) {
		struct rpcrdma_svc_stats st = stats(s);
		if (pred(&st, arg))
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/* ----------------------------------------- item 12: lengths past the end */

/*
 * The message sent for one case: a NULL call whose credential (which = 0)
 * or verifier (which = 1) length word is len, cut after `body` bytes of
 * the body.  The expected answer: AUTH_ERROR with stat, or (stat == 0)
 * GARBAGE_ARGS.
 */
static size_t mkauth(uint8_t *b, uint32_t xid, int which, uint32_t len, size_t body)
{
	size_t n = mknull(b, xid);
	if (which == 0) {
		put32(b + 28, len);
		n = 32;
	} else {
		put32(b + 36, len);
	}
	memset(b + n, 0, body);
	return n + body;
}

static void check_auth_reply(const uint8_t *r, ssize_t n, uint32_t xid, uint32_t stat)
{
	assert_int_equal(get32(r), xid);
	assert_int_equal(get32(r + 4), 1); /* REPLY */
	if (stat) {
		assert_int_equal(n, 20);
		assert_int_equal(get32(r + 8), 1);  /* MSG_DENIED */
		assert_int_equal(get32(r + 12), 1); /* AUTH_ERROR */
		assert_int_equal(get32(r + 16), stat);
	} else {
		assert_int_equal(n, 24);
		assert_int_equal(get32(r + 8), 0); /* MSG_ACCEPTED */
		assert_int_equal(get32(r + 20), RPCRDMA_SVC_GARBAGE_ARGS);
	}
}

static void test_auth_past_end(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, NULL);
	static const struct {
		uint32_t len;
		size_t body;
		uint32_t stat[2]; /* credential, verifier */
	} cases[] = {
		/* over 400, whatever follows: BADCRED / BADVERF */
		{ 0xffffffffu, 0, { RPCRDMA_AUTH_BADCRED, RPCRDMA_AUTH_BADVERF } },
		{ 0xfffffffdu, 8, { RPCRDMA_AUTH_BADCRED, RPCRDMA_AUTH_BADVERF } },
		{ 0xfffffffcu, 400, { RPCRDMA_AUTH_BADCRED, RPCRDMA_AUTH_BADVERF } },
		{ 0x80000000u, 4, { RPCRDMA_AUTH_BADCRED, RPCRDMA_AUTH_BADVERF } },
		{ 401, 0, { RPCRDMA_AUTH_BADCRED, RPCRDMA_AUTH_BADVERF } },
		/* at most 400 but running past the end: GARBAGE_ARGS */
		{ 400, 396, { 0, 0 } },
		{ 400, 0, { 0, 0 } },
		{ 5, 4, { 0, 0 } },
		{ 1, 0, { 0, 0 } },
		{ 8, 4, { 0, 0 } },
	};
	int tcp = sock_connect(SOCK_STREAM, s.tcp_port, 10);
	int udp = sock_connect(SOCK_DGRAM, s.udp_port, 10);
	uint8_t m[1024], r[128];
	uint32_t xid = 0x12000;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int which = 0; which < 2; which++) {
			size_t n = mkauth(m, ++xid, which, cases[i].len, cases[i].body);
			assert_int_equal(send_record(tcp, m, n), 0);
			ssize_t k = recv_record(tcp, r, sizeof(r));
			check_auth_reply(r, k, xid, cases[i].stat[which]);
			n = mkauth(m, ++xid, which, cases[i].len, cases[i].body);
			assert_int_equal(send(udp, m, n, 0), (ssize_t)n);
			k = recv(udp, r, sizeof(r), 0);
			check_auth_reply(r, k, xid, cases[i].stat[which]);
		}
	}
	/* every cut of the fixed words after rpcvers: GARBAGE_ARGS */
	for (size_t cut = 12; cut < 40; cut += 4) {
		size_t n = mknull(m, ++xid);
		(void)n;
		assert_int_equal(send_record(tcp, m, cut), 0);
		ssize_t k = recv_record(tcp, r, sizeof(r));
		check_auth_reply(r, k, xid, 0);
	}
	/* the connection is still good */
	assert_int_equal(send_record(tcp, m, mknull(m, ++xid)), 0);
	assert_int_equal(recv_record(tcp, r, sizeof(r)), 24);
	assert_int_equal(get32(r + 20), 0);
	close(tcp);
	close(udp);
	server_stop(&s);
}

/* ------------------------------------------------- item 9: record memory */

static bool buffered_at_least(const struct rpcrdma_svc_stats *st, uint64_t n)
{
	return st->tcp_buffered >= n;
}

static bool accepted_at_least(const struct rpcrdma_svc_stats *st, uint64_t n)
{
	return st->conns_accepted >= n;
}

static bool seen_at_least(const struct rpcrdma_svc_stats *st, uint64_t n)
{
	return st->conns_accepted + st->conns_shed >= n;
}

static bool closed_at_least(const struct rpcrdma_svc_stats *st, uint64_t n)
{
	return st->conns_closed >= n;
}

static bool paused_at_least(const struct rpcrdma_svc_stats *st, uint64_t n)
{
	return st->mem_pauses >= n;
}

/* Heap in use (mallinfo2), or 0 where a sanitizer's allocator hides it. */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

#define NCONN 100

/*
 * 100 connections each announce a 1 MiB fragment and send 1000 bytes of
 * it: the service's heap grows by a few KiB per connection, not by 1 MiB
 * (before: 101 MiB in all).  Also measures an idle connection.  Prints the
 * figures.
 */
static void test_partial_record_memory(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, NULL);
	int fds[NCONN];
	uint8_t part[1004];
	memset(part, 0, sizeof(part));
	put32(part, 1u << 20); /* not last, 1 MiB */

	size_t h0 = heap_used();
	for (int i = 0; i < NCONN; i++)
		fds[i] = sock_connect(SOCK_STREAM, s.tcp_port, 30);
	assert_true(wait_stats(&s, accepted_at_least, NCONN));
	usleep(100 * 1000);
	size_t h1 = heap_used();
	for (int i = 0; i < NCONN; i++)
		assert_int_equal(send_all(fds[i], part, sizeof(part)), 0);
	/* Each connection has read its 1000 bytes once its buffer is there
	 * (RECV_MIN, 4 KiB); before the fix no such counter existed and the
	 * heap check below fails. */
	wait_stats(&s, buffered_at_least, (uint64_t)NCONN * 1000);
	usleep(200 * 1000);
	size_t h2 = heap_used();
	struct rpcrdma_svc_stats st = stats(&s);
	printf("# svc heap: %zu bytes per idle TCP connection, %zu bytes per partial "
	       "1 MiB record holding 1000 bytes (%d connections; tcp_buffered %llu)\n",
	       h1 > h0 ? (h1 - h0) / NCONN : 0, h2 > h1 ? (h2 - h1) / NCONN : 0, NCONN,
	       (unsigned long long)st.tcp_buffered);
	assert_true(st.tcp_buffered <= (uint64_t)NCONN * 4096);
	if (h0)
		assert_true(h2 - h1 < (size_t)NCONN * 16384);
	/* closed: the memory is released */
	for (int i = 0; i < NCONN; i++)
		close(fds[i]);
	assert_true(wait_stats(&s, closed_at_least, NCONN));
	assert_int_equal(stats(&s).tcp_buffered, 0);
	server_stop(&s);
}

/*
 * The service-wide cap: four connections each send all but the last bytes
 * of a 100 KiB record, with room for about two and a half: some stop
 * reading (mem_pauses), none is closed, the buffered bytes stay under the
 * cap; then the records are completed and every one is answered.
 */
struct bulk_arg {
	uint16_t port;
	uint32_t xid;
	pthread_barrier_t *go;
	int rc;
};

#define BULK_LEN (100 * 1024)

static void *bulk_client(void *p)
{
	struct bulk_arg *a = p;
	uint8_t *m = calloc(1, BULK_LEN + 4), r[64];
	int fd = sock_connect(SOCK_STREAM, a->port, 60);
	mknull(m + 4, a->xid); /* NULL ignores the trailing bytes */
	put32(m, 0x80000000u | BULK_LEN);
	int rc = send_all(fd, m, BULK_LEN + 4 - 64);
	pthread_barrier_wait(a->go); /* all have sent */
	pthread_barrier_wait(a->go); /* the main thread has looked */
	a->rc = rc || send_all(fd, m + BULK_LEN + 4 - 64, 64) ||
		recv_record(fd, r, sizeof(r)) != 24 || get32(r) != a->xid ||
		get32(r + 20) != 0;
	close(fd);
	free(m);
	return NULL;
}

static void test_svc_memory_cap(void **state)
{
	(void)state;
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_record = 128 * 1024,
				      .max_svc_bytes = 256 * 1024 };
	struct server s;
	server_start(&s, &o);
	pthread_t th[4];
	struct bulk_arg a[4];
	pthread_barrier_t go;
	pthread_barrier_init(&go, NULL, 5);
	for (int i = 0; i < 4; i++) {
		a[i] = (struct bulk_arg){ s.tcp_port, 0x900 + (uint32_t)i, &go, -1 };
		assert_int_equal(pthread_create(&th[i], NULL, bulk_client, &a[i]), 0);
	}
	pthread_barrier_wait(&go);
	bool paused = wait_stats(&s, paused_at_least, 1);
	usleep(100 * 1000);
	struct rpcrdma_svc_stats st = stats(&s);
	pthread_barrier_wait(&go);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(a[i].rc, 0);
	}
	pthread_barrier_destroy(&go);
	printf("# svc cap 256 KiB, 4 x 100 KiB partial records: mem_pauses %llu, "
	       "tcp_buffered %llu\n", (unsigned long long)st.mem_pauses,
	       (unsigned long long)st.tcp_buffered);
	assert_true(paused);
	assert_true(st.tcp_buffered <= 256 * 1024);
	assert_int_equal(st.conns_closed, 0);
	st = stats(&s);
	assert_int_equal(st.replies[0], 4);
	assert_int_equal(st.record_too_big + st.protocol_errors, 0);
	server_stop(&s);
}

/*
 * The per-connection cap: a client pipelines 4 KiB ECHO calls and reads
 * no reply, with a small receive buffer; the replies pile up on the
 * server, which stops reading that connection at the cap (before: until
 * its 64 slots were full), then all calls are answered once the client
 * reads.
 */
#define PIPE_CALLS 4000

static void test_conn_memory_cap(void **state)
{
	(void)state;
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_conn_bytes = 48 * 1024 };
	struct server s;
	server_start(&s, &o);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int small = 4096;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(s.tcp_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	struct timeval tv = { 30, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));

	size_t len = 44 + 4096;
	uint8_t *m = calloc(1, len + 4), *r = malloc(8192);
	mknull(m + 4, 0);
	put32(m + 4 + 20, TP_ECHO);
	put32(m + 4 + 40, 4096);
	put32(m, 0x80000000u | (uint32_t)len);
	int sent = 0;
	for (; sent < PIPE_CALLS; sent++) {
		put32(m + 4, 0x700 + (uint32_t)sent);
		/* a send that would block: the server stopped reading */
		struct timeval quick = { 2, 0 };
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &quick, sizeof(quick));
		if (send_all(fd, m, len + 4))
			break;
		if (stats(&s).mem_pauses)
			break;
	}
	assert_true(wait_stats(&s, paused_at_least, 1));
	struct rpcrdma_svc_stats st = stats(&s);
	printf("# conn cap 48 KiB: paused after %d calls, tcp_buffered %llu\n", sent,
	       (unsigned long long)st.tcp_buffered);
	/* the cap, plus one call delivered and its reply (never refused) */
	assert_true(st.tcp_buffered <= 48 * 1024 + 2 * 8192);
	/* now read: every call sent (the last may be partial) is answered */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	int answered = 0;
	for (int i = 0; i < sent; i++) {
		ssize_t k = recv_record(fd, r, 8192);
		assert_int_equal(k, 24 + 4 + 4096);
		assert_int_equal(get32(r), 0x700 + (uint32_t)i);
		answered++;
	}
	assert_int_equal(answered, sent);
	close(fd);
	free(m);
	free(r);
	server_stop(&s);
}

/* ------------------------------------------------- item 10: connections */

/*
 * 300 idle connections (some holding a partial record) against a cap of
 * 32: at most 32 stay open, the oldest idle ones closed to make room, and
 * a new client is served.
 */
static void test_conn_flood(void **state)
{
	(void)state;
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_conns = 32 };
	struct server s;
	server_start(&s, &o);
	enum { N = 300 };
	int *fds = malloc(N * sizeof(int));
	uint8_t part[8];
	put32(part, 1000); /* a fragment that never comes */
	for (int i = 0; i < N; i++) {
		fds[i] = sock_connect(SOCK_STREAM, s.tcp_port, 30);
		if (i % 3 == 0)
			assert_int_equal(send_all(fds[i], part, 8), 0);
	}
	assert_true(wait_stats(&s, seen_at_least, N));
	null_answered(s.tcp_port, 0x4242); /* before: shed */
	assert_true(wait_stats(&s, closed_at_least, N + 1 - 32));
	struct rpcrdma_svc_stats st = stats(&s);
	printf("# %d connections, cap 32: %llu evicted, %llu shed, %llu open\n", N,
	       (unsigned long long)st.conns_evicted, (unsigned long long)st.conns_shed,
	       (unsigned long long)(st.conns_accepted - st.conns_closed));
	assert_true(st.conns_accepted - st.conns_closed <= 32);
	assert_true(st.conns_evicted >= N + 1 - 32);
	for (int i = 0; i < N; i++)
		close(fds[i]);
	free(fds);
	server_stop(&s);
}

/* ---------------------------------------------------- item 11: fairness */

struct flood_arg {
	uint16_t port;
	int kind; /* 0: empty non-last fragments, 1: 1-byte fragments,
		   * 2: NULL calls, replies drained */
	atomic_bool stop;
	int closed; /* the server closed the connection */
};

static void *drain(void *p)
{
	int fd = *(int *)p;
	uint8_t b[4096];
	while (recv(fd, b, sizeof(b), 0) > 0)
		;
	return NULL;
}

static void *flooder(void *p)
{
	struct flood_arg *a = p;
	int fd = sock_connect(SOCK_STREAM, a->port, 30);
	uint8_t buf[64 * 44];
	size_t n = 0;
	pthread_t dr;
	bool draining = false;
	switch (a->kind) {
	case 0:
		memset(buf, 0, sizeof(buf)); /* empty, not last */
		n = sizeof(buf);
		break;
	case 1:
		for (n = 0; n + 5 <= sizeof(buf); n += 5)
			put32(buf + n, 1), buf[n + 4] = 0;
		break;
	default:
		for (n = 0; n + 44 <= sizeof(buf); n += 44) {
			put32(buf + n, 0x80000000u | 40);
			mknull(buf + n + 4, 1);
		}
		draining = pthread_create(&dr, NULL, drain, &fd) == 0;
		break;
	}
	while (!atomic_load(&a->stop)) {
		if (send_all(fd, buf, n)) {
			a->closed = 1;
			break;
		}
	}
	shutdown(fd, SHUT_RDWR);
	if (draining)
		pthread_join(dr, NULL);
	close(fd);
	return NULL;
}

static void test_fairness(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, NULL);
	struct flood_arg a[3];
	pthread_t th[3];
	for (int k = 0; k < 3; k++) {
		a[k].port = s.tcp_port;
		a[k].kind = k;
		atomic_init(&a[k].stop, false);
		a[k].closed = 0;
		assert_int_equal(pthread_create(&th[k], NULL, flooder, &a[k]), 0);
	}
	usleep(200 * 1000); /* the floods are under way */
	for (uint32_t i = 0; i < 20; i++)
		null_answered(s.tcp_port, 0x5000 + i);
	for (int k = 0; k < 3; k++) {
		atomic_store(&a[k].stop, true);
		pthread_join(th[k], NULL);
	}
	/* the empty-fragment and the tiny-fragment floods were closed */
	assert_int_equal(a[0].closed, 1);
	assert_int_equal(a[1].closed, 1);
	struct rpcrdma_svc_stats st = stats(&s);
	assert_true(st.protocol_errors >= 2);
	server_stop(&s);
}

/* The fragment rules at their bounds: 1024 fragments and 16 empty ones in a
 * row are served; 1025 fragments, or 17 empty in a row, close. */
static void test_fragment_limits(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, NULL);
	static uint8_t call[1100], r[1100], wire[2048 * 5];
	size_t len = mknull(call, 0x6000);
	put32(call + 20, TP_ECHO);
	put32(call + 40, 1000);
	len = 44 + 1000;
	for (int round = 0; round < 4; round++) {
		bool too_many = round & 1, empties = round & 2;
		unsigned head = empties ? (too_many ? 17 : 16) : (too_many ? 1024 : 1023);
		size_t w = 0, done = 0;
		for (unsigned i = 0; i < head; i++) {
			/* non-last: empty ones, or one byte of the call each */
			put32(wire + w, empties ? 0 : 1);
			w += 4;
			if (!empties)
				wire[w++] = call[done++];
		}
		put32(wire + w, 0x80000000u | (uint32_t)(len - done));
		memcpy(wire + w + 4, call + done, len - done);
		w += 4 + len - done;
		int fd = sock_connect(SOCK_STREAM, s.tcp_port, 30);
		int rc = send_all(fd, wire, w);
		if (too_many) {
			assert_true(recv(fd, r, sizeof(r), 0) <= 0);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(recv_record(fd, r, sizeof(r)), 24 + 4 + 1000);
			assert_int_equal(get32(r), 0x6000);
		}
		close(fd);
	}
	assert_int_equal(stats(&s).protocol_errors, 2);
	server_stop(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auth_past_end),
		cmocka_unit_test(test_partial_record_memory),
		cmocka_unit_test(test_svc_memory_cap),
		cmocka_unit_test(test_conn_memory_cap),
		cmocka_unit_test(test_conn_flood),
		cmocka_unit_test(test_fairness),
		cmocka_unit_test(test_fragment_limits),
	};
	if (getenv("SVC_TEST"))
		cmocka_set_test_filter(getenv("SVC_TEST"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
