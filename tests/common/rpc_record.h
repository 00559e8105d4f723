/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the socket-level tests (header-only, test code):
 * big-endian words, whole sends and receives, RPC record marking.
 * No cmocka here: fuzz/nfs_session.c uses the word helpers too (hence
 * tests/common, not tests/unit).
 */
#ifndef RPCRDMA_TEST_RPC_RECORD_H
#define RPCRDMA_TEST_RPC_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Sends all n bytes; 0, or -1 when the peer or a timeout stops it. */
static inline int send_all(int fd, const void *p, size_t n)
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

/* Receives exactly n bytes; 0, or -1 on EOF, error or timeout. */
static inline int recv_all(int fd, void *p, size_t n)
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

/* Sends one record in one fragment. */
static inline int send_record(int fd, const uint8_t *msg, size_t n)
{
	uint8_t mark[4];
	put32(mark, 0x80000000u | (uint32_t)n);
	return send_all(fd, mark, 4) || send_all(fd, msg, n) ? -1 : 0;
}

/* Reads one reply record (one fragment, as the server sends); length or -1. */
static inline ssize_t recv_record(int fd, uint8_t *buf, size_t cap)
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

#endif
