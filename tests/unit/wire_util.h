/* SPDX-License-Identifier: BSD-2-Clause */
/* Helpers shared by the wire-format unit tests (header-only, test code). */
#ifndef RPCRDMA_TEST_WIRE_UTIL_H
#define RPCRDMA_TEST_WIRE_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/proto.h>

/* A word buffer built in host order and stored big-endian. */
struct wbuf {
	uint32_t w[4096];
	size_t n; /* words */
};

static inline void put(struct wbuf *b, uint32_t v)
{
	uint8_t *p = (uint8_t *)&b->w[b->n++];
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void put_seg(struct wbuf *b, uint32_t h, uint32_t l, uint64_t o)
{
	put(b, h);
	put(b, l);
	put(b, (uint32_t)(o >> 32));
	put(b, (uint32_t)o);
}

/* xid 0x11223344 (as bytes on the wire), version 1, credits, type. */
static inline void put_fixed(struct wbuf *b, uint32_t vers, uint32_t credits, uint32_t type)
{
	b->n = 0;
	put(b, 0x11223344u);
	put(b, vers);
	put(b, credits);
	put(b, type);
}

static inline void put_read(struct wbuf *b, uint32_t pos, uint32_t h, uint32_t l, uint64_t o)
{
	put(b, 1);
	put(b, pos);
	put_seg(b, h, l, o);
}

/* Parses hex digits (whitespace ignored) into out; returns the byte count. */
static inline size_t hex(const char *s, uint8_t *out)
{
	size_t n = 0;
	int hi = -1;
	for (; *s; s++) {
		int v;
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			v = *s - 'a' + 10;
		else
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n;
}

static inline void assert_bytes(const void *got, size_t got_len, const char *want_hex)
{
	uint8_t want[4096];
	size_t n = hex(want_hex, want);
	assert_int_equal(got_len, n);
	assert_memory_equal(got, want, n);
}

/* Runs the call checker on an exactly sized heap copy, so ASan sees overreads. */
static inline int check_call_copy(const void *src, size_t len, struct rpcrdma_hdr *hdr,
				  const struct rpcrdma_limits *lim)
{
	void *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, src, len);
	int rc = lim ? rpcrdma_check_call_ex(copy, len, hdr, lim) : rpcrdma_check_call(copy, len, hdr);
	free(copy);
	return rc;
}

static inline int check_reply_copy(const void *src, size_t len, struct rpcrdma_hdr *hdr)
{
	void *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, src, len);
	int rc = rpcrdma_check_reply(copy, len, hdr);
	free(copy);
	return rc;
}

/* xorshift64*: deterministic, seeded. */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static inline uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rnd(s) % n);
}

#endif
