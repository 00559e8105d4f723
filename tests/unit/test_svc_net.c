/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box: the TCP and UDP transports over loopback (127.0.0.1 only),
 * driven through the public API: record marking (fragments, byte-by-byte
 * writes, oversized records), partial writes with a slow reader, UDP and
 * the congestion-control rule, the embedded poll step, and a soak test of
 * many concurrent clients with garbage mixed in.
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
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <rpcrdma/svc.h>
#include "svc_net_util.h"

static void net_server_start(struct server *s, unsigned max_calls, size_t max_record, bool thread)
{
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_calls = max_calls,
				      .max_record = max_record };
	server_start(s, &o, thread);
}

static int tcp_connect(uint16_t port)
{
	return sock_connect(SOCK_STREAM, port, 20);
}

static void test_tcp_exact(void **state)
{
	(void)state;
	struct server s;
	net_server_start(&s, 0, 0, true);
	int fd = tcp_connect(s.tcp_port);
	uint8_t m[64], r[64];
	size_t n = mkcall(m, 0xabcd0001, 1, TP_NULL, NULL, UINT32_MAX);
	assert_int_equal(send_record(fd, m, n), 0);
	static const uint8_t exp[] = {
		0xab, 0xcd, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	assert_int_equal(recv_record(fd, r, sizeof(r)), sizeof(exp));
	assert_memory_equal(r, exp, sizeof(exp));
	/* v3 over TCP: PROG_MISMATCH 1..2 */
	n = mkcall(m, 0xabcd0002, 3, TP_NULL, NULL, UINT32_MAX);
	assert_int_equal(send_record(fd, m, n), 0);
	static const uint8_t mis[] = {
		0xab, 0xcd, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2,
	};
	assert_int_equal(recv_record(fd, r, sizeof(r)), sizeof(mis));
	assert_memory_equal(r, mis, sizeof(mis));
	close(fd);
	server_stop(&s);
}

/* One call in three fragments, written one byte per send. */
static void test_tcp_fragments(void **state)
{
	(void)state;
	struct server s;
	net_server_start(&s, 0, 0, true);
	int fd = tcp_connect(s.tcp_port);
	uint8_t m[128], wire[160], r[128];
	size_t n = mkcall(m, 7, 1, TP_ECHO, "fragmented!", 11); /* 56 bytes */
	size_t cut1 = 5, cut2 = 41, w = 0;
	put32(wire + w, (uint32_t)cut1);
	w += 4;
	memcpy(wire + w, m, cut1);
	w += cut1;
	put32(wire + w, (uint32_t)(cut2 - cut1));
	w += 4;
	memcpy(wire + w, m + cut1, cut2 - cut1);
	w += cut2 - cut1;
	put32(wire + w, 0); /* an empty fragment is allowed */
	w += 4;
	put32(wire + w, 0x80000000u | (uint32_t)(n - cut2));
	w += 4;
	memcpy(wire + w, m + cut2, n - cut2);
	w += n - cut2;
	for (size_t i = 0; i < w; i++)
		assert_int_equal(send_all(fd, wire + i, 1), 0);
	ssize_t k = recv_record(fd, r, sizeof(r));
	assert_int_equal(k, 24 + 4 + 12);
	assert_int_equal(get32(r), 7);
	assert_int_equal(get32(r + 20), 0);
	assert_int_equal(get32(r + 24), 11);
	assert_memory_equal(r + 28, "fragmented!", 11);
	close(fd);
	server_stop(&s);
}

static void test_tcp_oversize(void **state)
{
	(void)state;
	struct server s;
	net_server_start(&s, 0, 1024, true);
	int fd = tcp_connect(s.tcp_port);
	uint8_t m[2048], r[64];
	/* 600 + 600 bytes in two fragments: the record is over 1024 */
	memset(m, 0, sizeof(m));
	put32(m, 600);
	assert_int_equal(send_all(fd, m, 604), 0);
	put32(m, 0x80000000u | 600);
	send_all(fd, m, 4); /* may fail already */
	assert_true(recv(fd, r, sizeof(r), 0) <= 0); /* closed by the server */
	close(fd);
	/* the service is still there */
	fd = tcp_connect(s.tcp_port);
	size_t n = mkcall(m, 9, 1, TP_NULL, NULL, UINT32_MAX);
	assert_int_equal(send_record(fd, m, n), 0);
	assert_int_equal(recv_record(fd, r, sizeof(r)), 24);
	close(fd);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(s.svc, &st, sizeof(st));
	assert_int_equal(st.record_too_big, 1);
	server_stop(&s);
}

/* Many big replies, sync and async, pipelined by a client that starts
 * reading late: all come back whole.  (Loopback's socket buffers absorb the
 * replies, so this does not force partial writes on the server side.) */
struct pipe_arg {
	int fd;
	unsigned n;
	int rc;
};

static void *pipe_writer(void *p)
{
	struct pipe_arg *a = p;
	static uint8_t data[4096];
	uint8_t *m = malloc(4200);
	memset(data, 'q', sizeof(data));
	a->rc = 0;
	for (unsigned i = 0; i < a->n && !a->rc; i++) {
		size_t n = mkcall(m, 0x1000 + i, 1, i % 3 ? TP_ECHO : TP_ASYNC_ECHO, data, 4096);
		a->rc = send_record(a->fd, m, n);
	}
	free(m);
	return NULL;
}

static void test_tcp_slow_reader(void **state)
{
	(void)state;
	struct server s;
	net_server_start(&s, 8, 0, true);
	int fd = tcp_connect(s.tcp_port);
	int small = 65536;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	struct pipe_arg a = { fd, 400, 0 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, pipe_writer, &a), 0);
	usleep(200 * 1000); /* let the server's queue fill up */
	uint8_t *r = malloc(8192);
	for (unsigned i = 0; i < a.n; i++) {
		ssize_t k = recv_record(fd, r, 8192);
		assert_int_equal(k, 24 + 4 + 4096);
		/* each reply is whole; order within a connection may vary for the
		 * async ones, so check xid range and contents */
		uint32_t xid = get32(r);
		assert_true(xid >= 0x1000 && xid < 0x1000 + a.n);
		assert_int_equal(get32(r + 20), 0);
		assert_int_equal(r[28 + 4095], 'q');
	}
	pthread_join(t, NULL);
	assert_int_equal(a.rc, 0);
	free(r);
	close(fd);
	server_stop(&s);
}

/* A stream socket handed over with rpcrdma_svc_adopt_stream, with a tiny
 * send buffer: the server's writes must stop at EAGAIN and resume on
 * EPOLLOUT (send_waits counts it), and every reply still arrives whole. */
static void test_adopt_partial_writes(void **state)
{
	(void)state;
	struct server s;
	int sv[2];
	net_server_start(&s, 8, 0, true);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	int small = 4096;
	assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	int dgram = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(rpcrdma_svc_adopt_stream(s.svc, dgram), -EINVAL);
	close(dgram);
	assert_int_equal(rpcrdma_svc_adopt_stream(s.svc, sv[1]), 0);
	struct timeval tv = { 20, 0 };
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct pipe_arg a = { sv[0], 100, 0 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, pipe_writer, &a), 0);
	usleep(100 * 1000);
	uint8_t *r = malloc(8192);
	for (unsigned i = 0; i < a.n; i++) {
		assert_int_equal(recv_record(sv[0], r, 8192), 24 + 4 + 4096);
		assert_int_equal(get32(r + 20), 0);
		assert_int_equal(r[28 + 4095], 'q');
	}
	pthread_join(t, NULL);
	assert_int_equal(a.rc, 0);
	free(r);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(s.svc, &st, sizeof(st));
	print_message("adopted stream: %llu writes waited for EPOLLOUT, "
		      "%llu pauses in reading (8 slots)\n",
		      (unsigned long long)st.send_waits, (unsigned long long)st.read_pauses);
	assert_true(st.send_waits > 0);
	assert_true(st.read_pauses > 0);
	close(sv[0]);
	server_stop(&s);
}

/* Out of file descriptors: the listener sheds connections instead of
 * spinning, and serves again once fds are free.  In a child process, whose
 * fd limit is lowered. */
static int shed_child(void)
{
	struct server s;
	net_server_start(&s, 0, 0, true);
	int maxfd = 0;
	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			maxfd = fd;
	struct rlimit rl = { (rlim_t)maxfd + 4, (rlim_t)maxfd + 4 };
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 10;
	static int fds[1100];
	int nfds = 0;
	while (nfds < 1100 && (fds[nfds] = socket(AF_INET, SOCK_STREAM, 0)) >= 0)
		nfds++; /* takes every fd left */
	if (nfds < 3 || errno != EMFILE) {
		fprintf(stderr, "shed_child: %d sockets below the limit %d, then %s\n",
			nfds, maxfd + 4, strerror(errno));
		return 14;
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(s.tcp_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 10, 0 };
	for (int i = 0; i < nfds; i++) {
		setsockopt(fds[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (connect(fds[i], (struct sockaddr *)&a, sizeof(a)))
			return 15;
	}
	uint8_t r[64], m[64];
	for (int i = 0; i < nfds; i++) /* each is shed: closed without a byte */
		if (recv(fds[i], r, sizeof(r), 0) > 0)
			return 11;
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	int fd = tcp_connect(s.tcp_port);
	size_t n = mkcall(m, 0x99, 1, TP_NULL, NULL, UINT32_MAX);
	if (send_record(fd, m, n) || recv_record(fd, r, sizeof(r)) != 24)
		return 12;
	close(fd);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(s.svc, &st, sizeof(st));
	if (st.conns_shed != (uint64_t)nfds) {
		fprintf(stderr, "shed_child: %d connections, %llu shed, %llu accepted\n", nfds,
			(unsigned long long)st.conns_shed, (unsigned long long)st.conns_accepted);
		return 13;
	}
	server_stop(&s);
	return 0;
}

static void test_out_of_fds(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(shed_child());
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A service with the test program on TCP 127.0.0.1 closing connections
 * idle for timeout_ms; returns the port.  The loop is not started. */
static uint16_t idle_server(unsigned timeout_ms, struct rpcrdma_svc **svc, struct testprog **tp)
{
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .idle_timeout_ms = timeout_ms };
	assert_int_equal(rpcrdma_svc_create(&o, svc), 0);
	assert_int_equal(testprog_create(tp), 0);
	assert_int_equal(rpcrdma_svc_register(*svc, testprog_program(*tp)), 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage b;
	assert_int_equal(rpcrdma_svc_listen_tcp(*svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	return ntohs(((struct sockaddr_in *)&b)->sin_port);
}

/* Idle connections are closed; busy ones (a call in progress) are not. */
static void test_idle_timeout(void **state)
{
	(void)state;
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	uint16_t port = idle_server(200, &svc, &tp);
	assert_int_equal(rpcrdma_svc_start(svc), 0);
	int idle = tcp_connect(port);
	int active = tcp_connect(port);
	uint8_t m[64], r[64];
	size_t n = mkcall(m, 0x88, 1, TP_NULL, NULL, UINT32_MAX);
	/* keep one connection busy with a call every 50 ms for 600 ms */
	for (int i = 0; i < 12; i++) {
		assert_int_equal(send_record(active, m, n), 0);
		assert_int_equal(recv_record(active, r, sizeof(r)), 24);
		usleep(50 * 1000);
	}
	assert_int_equal(recv(idle, r, sizeof(r), 0), 0); /* closed by the server */
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	assert_int_equal(st.conns_idle, 1);
	close(idle);
	close(active);
	rpcrdma_svc_destroy(svc);
	testprog_destroy(tp);
}

/*
 * The idle sweep and a connection's own event in one epoll batch, the
 * timer's first: a connection idle past the timeout whose call arrives
 * while the timer is pending.  Its call is served (it is not idle), and
 * the sweep must not free it under its pending event (use after free).
 */
static void test_idle_sweep_same_batch(void **state)
{
	(void)state;
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	int fd = tcp_connect(idle_server(50, &svc, &tp));
	struct rpcrdma_svc_stats st = { 0 };
	for (int i = 0; i < 500 && st.conns_accepted == 0; i++) {
		assert_true(rpcrdma_svc_poll(svc, 10) >= 0);
		rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	}
	assert_int_equal(st.conns_accepted, 1);
	/* The loop sleeps past the timeout and a tick: the timer is ready
	 * first, then the call makes the connection ready behind it. */
	usleep(200 * 1000);
	uint8_t m[64], r[64];
	size_t n = mkcall(m, 0x99, 1, TP_NULL, NULL, UINT32_MAX);
	assert_int_equal(send_record(fd, m, n), 0);
	usleep(20 * 1000);
	assert_true(rpcrdma_svc_poll(svc, 0) >= 2);
	assert_int_equal(recv_record(fd, r, sizeof(r)), 24);
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	assert_int_equal(st.conns_idle, 0);
	close(fd);
	rpcrdma_svc_destroy(svc);
	testprog_destroy(tp);
}

/* At max_conns a new connection closes the oldest idle one (svc.h). */
static void test_max_conns(void **state)
{
	(void)state;
	struct rpcrdma_svc_opts o = { .size = sizeof(o), .max_conns = 2 };
	struct rpcrdma_svc *svc;
	assert_int_equal(rpcrdma_svc_create(&o, &svc), 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage b;
	assert_int_equal(rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	assert_int_equal(rpcrdma_svc_start(svc), 0);
	uint16_t port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	uint8_t m[64], r[64];
	size_t n = mkcall(m, 0x89, 1, TP_NULL, NULL, UINT32_MAX);
	int c1 = tcp_connect(port), c2 = tcp_connect(port);
	/* both served (PROG_UNAVAIL: no program registered here), c1 first */
	assert_int_equal(send_record(c1, m, n), 0);
	assert_int_equal(recv_record(c1, r, sizeof(r)), 24);
	usleep(10 * 1000);
	assert_int_equal(send_record(c2, m, n), 0);
	assert_int_equal(recv_record(c2, r, sizeof(r)), 24);
	int c3 = tcp_connect(port);
	assert_int_equal(send_record(c3, m, n), 0);
	assert_int_equal(recv_record(c3, r, sizeof(r)), 24); /* served */
	assert_true(recv(c1, r, sizeof(r), 0) <= 0);         /* c1 closed */
	assert_int_equal(send_record(c2, m, n), 0);
	assert_int_equal(recv_record(c2, r, sizeof(r)), 24); /* c2 kept */
	assert_int_equal(get32(r + 20), 1);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	assert_int_equal(st.conns_evicted, 1);
	assert_int_equal(st.conns_shed, 0);
	assert_int_equal(st.conns_accepted, 3);
	close(c1);
	close(c2);
	close(c3);
	rpcrdma_svc_destroy(svc);
}

static void test_udp(void **state)
{
	(void)state;
	struct server s;
	net_server_start(&s, 0, 0, true);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(s.udp_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	struct timeval tv = { 10, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	uint8_t m[128], r[128];
	/* garbage first: dropped, no reply; the next call is still answered */
	memset(m, 0xff, 16);
	assert_int_equal(send(fd, m, 16, 0), 16);
	size_t n = mkcall(m, 0x55, 2, TP_NULL, NULL, UINT32_MAX);
	assert_int_equal(send(fd, m, n, 0), (ssize_t)n);
	static const uint8_t mis[] = {
		0, 0, 0, 0x55, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1,
	};
	assert_int_equal(recv(fd, r, sizeof(r), 0), sizeof(mis));
	assert_memory_equal(r, mis, sizeof(mis));
	n = mkcall(m, 0x56, 1, TP_ADD, "\0\0\0\x05\0\0\0", 3);
	put32(m + 40, 5);
	put32(m + 44, 6);
	assert_int_equal(send(fd, m, 48, 0), 48);
	assert_int_equal(recv(fd, r, sizeof(r), 0), 28);
	assert_int_equal(get32(r), 0x56);
	assert_int_equal(get32(r + 24), 11);
	close(fd);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(s.svc, &st, sizeof(st));
	assert_int_equal(st.dropped, 1);
	server_stop(&s);
}

/* The embedded loop: the caller polls rpcrdma_svc_fd() and steps it. */
static void test_embedded_poll(void **state)
{
	(void)state;
	struct server s;
	net_server_start(&s, 0, 0, false);
	int fd = tcp_connect(s.tcp_port);
	uint8_t m[64], r[64];
	size_t n = mkcall(m, 0x77, 1, TP_NULL, NULL, UINT32_MAX);
	assert_int_equal(send_record(fd, m, n), 0);
	struct pollfd p[2] = { { rpcrdma_svc_fd(s.svc), POLLIN, 0 }, { fd, POLLIN, 0 } };
	int steps = 0;
	while (!(p[1].revents & POLLIN)) {
		assert_true(poll(p, 2, 5000) > 0);
		if (p[0].revents & POLLIN)
			assert_true(rpcrdma_svc_poll(s.svc, 0) >= 0);
		steps++;
		assert_true(steps < 100);
	}
	assert_int_equal(recv_record(fd, r, sizeof(r)), 24);
	assert_int_equal(get32(r), 0x77);
	close(fd);
	server_stop(&s);
}

static void test_uaddr(void **state)
{
	(void)state;
	char b[64];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(2049),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(rpcrdma_uaddr_format((struct sockaddr *)&a, sizeof(a), b, sizeof(b)), 13);
	assert_string_equal(b, "127.0.0.1.8.1");
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(20049),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	assert_int_equal(rpcrdma_uaddr_format((struct sockaddr *)&a6, sizeof(a6), b, sizeof(b)), 9);
	assert_string_equal(b, "::1.78.81");
	inet_pton(AF_INET6, "fe80::ff:fe00:1", &a6.sin6_addr);
	a6.sin6_port = htons(1);
	assert_true(rpcrdma_uaddr_format((struct sockaddr *)&a6, sizeof(a6), b, sizeof(b)) > 0);
	assert_string_equal(b, "fe80::ff:fe00:1.0.1");
	assert_int_equal(rpcrdma_uaddr_format((struct sockaddr *)&a, sizeof(a), b, 13), -ENOSPC);
	assert_int_equal(rpcrdma_uaddr_format((struct sockaddr *)&a, 4, b, sizeof(b)), -EINVAL);
	struct sockaddr un = { .sa_family = AF_UNIX };
	assert_int_equal(rpcrdma_uaddr_format(&un, sizeof(un), b, sizeof(b)), -EINVAL);
}

/* tcp6/udp6 over ::1: the same rules, by address family. */
static void test_ipv6(void **state)
{
	(void)state;
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	assert_int_equal(rpcrdma_svc_create(NULL, &svc), 0);
	assert_int_equal(testprog_create(&tp), 0);
	assert_int_equal(rpcrdma_svc_register(svc, testprog_program(tp)), 0);
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_storage tb, ub;
	int rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&a, sizeof(a), &tb, NULL);
	if (rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT) {
		rpcrdma_svc_destroy(svc);
		testprog_destroy(tp);
		skip(); /* no ::1 on this host */
	}
	assert_int_equal(rc, 0);
	assert_int_equal(rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&a, sizeof(a), &ub, NULL), 0);
	assert_int_equal(rpcrdma_svc_start(svc), 0);
	uint8_t m[64], r[64];
	size_t n = mkcall(m, 0x66, 2, TP_NULL, NULL, UINT32_MAX);
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	struct timeval tv = { 10, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&tb, sizeof(struct sockaddr_in6)), 0);
	assert_int_equal(send_record(fd, m, n), 0);
	assert_int_equal(recv_record(fd, r, sizeof(r)), 24); /* v2 fine on tcp6 */
	assert_int_equal(get32(r + 20), 0);
	close(fd);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&ub, sizeof(struct sockaddr_in6)), 0);
	assert_int_equal(send(fd, m, n, 0), (ssize_t)n);
	assert_int_equal(recv(fd, r, sizeof(r), 0), 32); /* v2 refused on udp6 */
	assert_int_equal(get32(r + 20), 2);
	assert_int_equal(get32(r + 24), 1);
	assert_int_equal(get32(r + 28), 1);
	close(fd);
	rpcrdma_svc_destroy(svc);
	testprog_destroy(tp);
}

/* ---------------------------------------------------------------- soak */

#define SOAK_THREADS 16
#define SOAK_ROUNDS 30
#define SOAK_CALLS 8

struct soak_arg {
	uint16_t port;
	unsigned id;
	unsigned answered, expected;
	int failed;
};

static void *soak_client(void *p)
{
	struct soak_arg *a = p;
	uint8_t m[600], r[700];
	unsigned seed = a->id * 7919u + 1;
	for (unsigned round = 0; round < SOAK_ROUNDS && !a->failed; round++) {
		int fd = tcp_connect(a->port);
		unsigned kind = round % 6;
		if (kind == 4) { /* oversized record: the server closes */
			put32(m, 0x80000000u | 0x7fffff00u);
			send_all(fd, m, 4);
			if (recv(fd, r, 1, 0) > 0)
				a->failed = 1;
			close(fd);
			continue;
		}
		if (kind == 5) { /* half a record, then hang up */
			put32(m, 0x80000000u | 100);
			send_all(fd, m, 40);
			close(fd);
			continue;
		}
		unsigned want = 0;
		uint32_t base = (a->id << 20) | (round << 8);
		for (unsigned c = 0; c < SOAK_CALLS; c++) {
			seed = seed * 1103515245u + 12345u;
			uint32_t len = (seed >> 16) % 500;
			uint8_t data[500];
			memset(data, (int)(c + round), len);
			uint32_t proc = (seed & 1) ? TP_ECHO : TP_ASYNC_ECHO;
			size_t n = mkcall(m, base + c, 1, proc, data, len);
			if (send_record(fd, m, n)) {
				a->failed = 2;
				break;
			}
			want++;
			if (kind == 1 || kind == 3) {
				/* garbage record: random words but msg type REPLY,
				 * which the server must drop without a reply */
				for (int i = 0; i < 16; i++) {
					seed = seed * 1103515245u + 12345u;
					put32(m + 4 * i, seed);
				}
				put32(m + 4, 1);
				send_record(fd, m, 64);
			}
		}
		a->expected += want;
		for (unsigned got = 0; got < want && !a->failed; got++) {
			ssize_t k = recv_record(fd, r, sizeof(r));
			if (k < 28) {
				a->failed = 3;
				break;
			}
			uint32_t xid = get32(r);
			uint32_t len = get32(r + 24);
			if ((xid & ~0xffu) != base || get32(r + 20) != 0 ||
			    (size_t)k != 28 + ((len + 3) & ~3u) ||
			    (len && r[28] != (uint8_t)((xid & 0xff) + round))) {
				a->failed = 4;
				break;
			}
			a->answered++;
		}
		close(fd);
	}
	return NULL;
}

static void test_soak(void **state)
{
	(void)state;
	struct server s;
	net_server_start(&s, 4, 4096, true);
	pthread_t t[SOAK_THREADS];
	struct soak_arg a[SOAK_THREADS];
	for (unsigned i = 0; i < SOAK_THREADS; i++) {
		a[i] = (struct soak_arg){ .port = s.tcp_port, .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, soak_client, &a[i]), 0);
	}
	unsigned answered = 0, expected = 0;
	for (unsigned i = 0; i < SOAK_THREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].failed, 0);
		answered += a[i].answered;
		expected += a[i].expected;
	}
	assert_int_equal(answered, expected);
	assert_int_equal(expected, SOAK_THREADS * (SOAK_ROUNDS - 2 * SOAK_ROUNDS / 6) * SOAK_CALLS);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(s.svc, &st, sizeof(st));
	print_message("soak: %u calls answered, %llu records too big, %llu dropped, "
		      "%llu connections\n", answered, (unsigned long long)st.record_too_big,
		      (unsigned long long)st.dropped, (unsigned long long)st.conns_accepted);
	assert_int_equal(st.record_too_big, SOAK_THREADS * (SOAK_ROUNDS / 6));
	assert_int_equal(st.estimate_exceeded, 0);
	assert_true(st.dropped >= SOAK_THREADS * (2 * SOAK_ROUNDS / 6) * SOAK_CALLS);
	server_stop(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_exact),
		cmocka_unit_test(test_tcp_fragments),
		cmocka_unit_test(test_tcp_oversize),
		cmocka_unit_test(test_tcp_slow_reader),
		cmocka_unit_test(test_adopt_partial_writes),
		cmocka_unit_test(test_out_of_fds),
		cmocka_unit_test(test_idle_timeout),
		cmocka_unit_test(test_idle_sweep_same_batch),
		cmocka_unit_test(test_max_conns),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_embedded_poll),
		cmocka_unit_test(test_uaddr),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_soak),
	};
	if (getenv("SVC_TEST"))
		cmocka_set_test_filter(getenv("SVC_TEST"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
