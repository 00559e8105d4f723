/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bounded XDR primitives (RFC 4506).  A decoder is a cursor (p, end) over
 * a caller's buffer; every getter checks that the item lies before `end`
 * and, if not, marks the cursor bad, parks it at `end` and returns zero, so
 * a decoder can read a whole structure and test `bad` once at the end.  No
 * getter ever reads at or past `end`.  Opaque and string items are returned
 * as (pointer, length) into the caller's buffer: they live as long as it.
 *
 * An encoder is the same kind of cursor over the reply buffer; a put that
 * does not fit marks it `bad` (overflow) and writes nothing.
 */
#ifndef TINYNFS_XDR_H
#define TINYNFS_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct xdr_in {
	const uint8_t *p, *end;
	bool bad;
};

struct xdr_out {
	uint8_t *p, *end;
	bool bad;
};

/* A counted byte string pointing into a request buffer. */
struct xdr_opaque {
	const uint8_t *data;
	uint32_t len;
};

static inline void xdr_in_init(struct xdr_in *x, const void *buf, size_t len)
{
	x->p = buf;
	x->end = x->p + len;
	x->bad = false;
}

static inline void xdr_out_init(struct xdr_out *x, void *buf, size_t len)
{
	x->p = buf;
	x->end = x->p + len;
	x->bad = false;
}

static inline size_t xdr_in_left(const struct xdr_in *x)
{
	return (size_t)(x->end - x->p);
}

static inline size_t xdr_out_left(const struct xdr_out *x)
{
	return (size_t)(x->end - x->p);
}

static inline uint32_t xdr_pad(uint32_t len)
{
	return (len + 3u) & ~3u;
}

static inline void xdr_fail(struct xdr_in *x)
{
	x->bad = true;
	x->p = x->end;
}

static inline uint32_t xdr_get_u32(struct xdr_in *x)
{
	if (xdr_in_left(x) < 4) {
		xdr_fail(x);
		return 0;
	}
	const uint8_t *q = x->p;
	x->p += 4;
	return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
}

static inline uint64_t xdr_get_u64(struct xdr_in *x)
{
	uint64_t hi = xdr_get_u32(x);
	return hi << 32 | xdr_get_u32(x);
}

/* XDR bool: only 0 and 1 are valid. */
static inline bool xdr_get_bool(struct xdr_in *x)
{
	uint32_t v = xdr_get_u32(x);
	if (v > 1)
		xdr_fail(x);
	return v == 1;
}

/* Fixed-size opaque[n]: copies n bytes (plus padding skipped). */
static inline void xdr_get_fixed(struct xdr_in *x, void *dst, uint32_t n)
{
	if (xdr_in_left(x) < xdr_pad(n)) {
		xdr_fail(x);
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, x->p, n);
	x->p += xdr_pad(n);
}

/* Variable opaque<max>: length word, bytes, padding.  Longer than max or
 * than the buffer = bad. */
static inline struct xdr_opaque xdr_get_opaque(struct xdr_in *x, uint32_t max)
{
	struct xdr_opaque o = { NULL, 0 };
	uint32_t len = xdr_get_u32(x);
	if (x->bad || len > max || xdr_in_left(x) < xdr_pad(len)) {
		xdr_fail(x);
		return o;
	}
	o.data = x->p;
	o.len = len;
	x->p += xdr_pad(len);
	return o;
}

/* Array count that must be <= max and leave room for count items of at
 * least min_item bytes each (so a huge count cannot drive a long loop). */
static inline uint32_t xdr_get_count(struct xdr_in *x, uint32_t max, uint32_t min_item)
{
	uint32_t n = xdr_get_u32(x);
	if (x->bad || n > max || (uint64_t)n * min_item > xdr_in_left(x)) {
		xdr_fail(x);
		return 0;
	}
	return n;
}

static inline uint8_t *xdr_reserve(struct xdr_out *x, size_t n)
{
	if (x->bad || xdr_out_left(x) < n) {
		x->bad = true;
		return NULL;
	}
	uint8_t *q = x->p;
	x->p += n;
	return q;
}

static inline void xdr_wr32(uint8_t *q, uint32_t v)
{
	q[0] = (uint8_t)(v >> 24);
	q[1] = (uint8_t)(v >> 16);
	q[2] = (uint8_t)(v >> 8);
	q[3] = (uint8_t)v;
}

static inline void xdr_put_u32(struct xdr_out *x, uint32_t v)
{
	uint8_t *q = xdr_reserve(x, 4);
	if (q)
		xdr_wr32(q, v);
}

static inline void xdr_put_u64(struct xdr_out *x, uint64_t v)
{
	uint8_t *q = xdr_reserve(x, 8);
	if (q) {
		xdr_wr32(q, (uint32_t)(v >> 32));
		xdr_wr32(q + 4, (uint32_t)v);
	}
}

static inline void xdr_put_bool(struct xdr_out *x, bool v)
{
	xdr_put_u32(x, v ? 1 : 0);
}

static inline void xdr_put_fixed(struct xdr_out *x, const void *src, uint32_t n)
{
	uint8_t *q = xdr_reserve(x, xdr_pad(n));
	if (q) {
		memcpy(q, src, n);
		memset(q + n, 0, xdr_pad(n) - n);
	}
}

static inline void xdr_put_opaque(struct xdr_out *x, const void *src, uint32_t n)
{
	uint8_t *q = xdr_reserve(x, 4 + (size_t)xdr_pad(n));
	if (q) {
		xdr_wr32(q, n);
		if (n)
			memcpy(q + 4, src, n);
		memset(q + 4 + n, 0, xdr_pad(n) - n);
	}
}

#endif
