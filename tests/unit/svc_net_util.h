/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the black-box TCP/UDP service tests (header-only, test
 * code): the test program served on 127.0.0.1, calls to it, and client
 * sockets whose waits are bounded (liveness only, never timing).
 */
#ifndef RPCRDMA_TEST_SVC_NET_UTIL_H
#define RPCRDMA_TEST_SVC_NET_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <cmocka.h>

#include <rpcrdma/svc.h>
#include "../svc/testprog.h"
#include "../common/rpc_record.h"

/* Writes an AUTH_NONE call to b (room for 48 + len bytes); returns length.
 * len == UINT32_MAX: no arguments. */
static inline size_t mkcall(uint8_t *b, uint32_t xid, uint32_t vers, uint32_t proc,
			    const void *data, uint32_t len)
{
	uint32_t w[10] = { xid, 0, 2, TESTPROG_PROG, vers, proc, 0, 0, 0, 0 };
	for (int i = 0; i < 10; i++)
		put32(b + 4 * i, w[i]);
	if (len == UINT32_MAX)
		return 40;
	put32(b + 40, len);
	memcpy(b + 44, data, len);
	size_t n = 44 + len;
	while (n & 3)
		b[n++] = 0;
	return n;
}

struct server {
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	uint16_t tcp_port, udp_port;
};

/* The test program on TCP and UDP 127.0.0.1 (o NULL: the defaults); the
 * service's own thread runs the loop if thread, else the test polls it. */
static inline void server_start(struct server *s, const struct rpcrdma_svc_opts *o, bool thread)
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
	if (thread)
		assert_int_equal(rpcrdma_svc_start(s->svc), 0);
}

static inline void server_stop(struct server *s)
{
	rpcrdma_svc_destroy(s->svc);
	testprog_destroy(s->tp);
}

/* A socket to the server; receives time out after timeout_s (a liveness
 * bound: a reply that never comes fails the test instead of hanging it). */
static inline int sock_connect(int type, uint16_t port, int timeout_s)
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

#endif
