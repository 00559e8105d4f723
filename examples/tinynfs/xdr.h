/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tinynfs's XDR is the library's (rpcrdma/xdr.h).  This header only gives
 * it the shape tinynfs's decoders and encoders are written in: a sticky
 * error.  Every getter and put below is one call of an rpcrdma_xdr_*
 * function; none counts, pads or bounds anything itself.
 *
 * A decoder is a library stream over one buffer plus `bad`: a getter that
 * fails (short data, a length above its bound or above what is left, a bad
 * bool) sets `bad` and returns zero, and every later getter then returns
 * zero too, so a decoder reads a whole structure and tests `bad` once.
 * Opaque items are (pointer, length) into the caller's buffer: they live
 * as long as it.
 *
 * An encoder is a cursor [p, end) over the reply buffer (handlers may save
 * and restore p, or lower end, to bound or undo what they write); each put
 * encodes through a library stream over [p, end), and one that does not
 * fit sets `bad` and writes nothing.
 */
#ifndef TINYNFS_XDR_H
#define TINYNFS_XDR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/xdr.h>

struct xdr_in {
	struct rpcrdma_xdr_dec d;
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
	rpcrdma_xdr_dec_init_buf(&x->d, buf, len);
	x->bad = false;
}

static inline void xdr_out_init(struct xdr_out *x, void *buf, size_t len)
{
	x->p = buf;
	x->end = buf ? x->p + len : x->p;
	x->bad = false;
}

static inline size_t xdr_in_left(const struct xdr_in *x)
{
	return rpcrdma_xdr_dec_left(&x->d);
}

/* Bytes consumed since xdr_in_init. */
static inline size_t xdr_in_pos(const struct xdr_in *x)
{
	return rpcrdma_xdr_dec_pos(&x->d);
}

static inline size_t xdr_out_left(const struct xdr_out *x)
{
	return (size_t)(x->end - x->p);
}

/* n rounded up to a multiple of 4, in size_t: never wraps for a u32 n. */
static inline size_t xdr_pad(uint32_t len)
{
	return rpcrdma_xdr_opaque_size(len) - 4;
}

/* Marks the decoder bad; every later getter fails. */
static inline void xdr_fail(struct xdr_in *x)
{
	x->bad = true;
}

/* rc is a library getter's return: records its failure. */
static inline bool xdr_in_ok(struct xdr_in *x, int rc)
{
	if (rc)
		x->bad = true;
	return !x->bad;
}

static inline uint32_t xdr_get_u32(struct xdr_in *x)
{
	uint32_t v = 0;
	if (x->bad || !xdr_in_ok(x, rpcrdma_xdr_get_u32(&x->d, &v)))
		return 0;
	return v;
}

static inline uint64_t xdr_get_u64(struct xdr_in *x)
{
	uint64_t v = 0;
	if (x->bad || !xdr_in_ok(x, rpcrdma_xdr_get_u64(&x->d, &v)))
		return 0;
	return v;
}

/* XDR bool: only 0 and 1 are valid. */
static inline bool xdr_get_bool(struct xdr_in *x)
{
	int v = 0;
	if (x->bad || !xdr_in_ok(x, rpcrdma_xdr_get_bool(&x->d, &v)))
		return false;
	return v == 1;
}

/* Fixed-size opaque[n]: copies n bytes (plus padding skipped); zeroes dst
 * on failure. */
static inline void xdr_get_fixed(struct xdr_in *x, void *dst, uint32_t n)
{
	if (x->bad || !xdr_in_ok(x, rpcrdma_xdr_get_fixed(&x->d, dst, n)))
		memset(dst, 0, n);
}

/* Fixed-size opaque[n] left in place: a pointer to its n bytes, or NULL. */
static inline const uint8_t *xdr_get_fixed_ref(struct xdr_in *x, size_t n)
{
	const void *p = NULL;
	if (x->bad || !xdr_in_ok(x, rpcrdma_xdr_get_fixed_ref(&x->d, &p, n)))
		return NULL;
	return p;
}

/* Variable opaque<max> left in place.  Longer than max or than the buffer
 * = bad. */
static inline struct xdr_opaque xdr_get_opaque(struct xdr_in *x, uint32_t max)
{
	struct xdr_opaque o = { NULL, 0 };
	const void *data = NULL;
	uint32_t len = 0;
	if (x->bad || !xdr_in_ok(x, rpcrdma_xdr_get_opaque_ref(&x->d, &data, max, &len)))
		return o;
	o.data = data;
	o.len = len;
	return o;
}

/* Array count that must be <= max and leave room for count items of at
 * least min_item bytes each (so a huge count cannot drive a long loop). */
static inline uint32_t xdr_get_count(struct xdr_in *x, uint32_t max, uint32_t min_item)
{
	uint32_t n = 0;
	if (x->bad || !xdr_in_ok(x, rpcrdma_xdr_get_count(&x->d, max, min_item, &n)))
		return 0;
	return n;
}

/* Runs one library put over [p, end): advances p, or sets bad. */
#define XDR_OUT_PUT(x, call)                                                  \
	do {                                                                  \
		struct rpcrdma_xdr_enc e_;                                    \
		if ((x)->bad)                                                 \
			break;                                                \
		rpcrdma_xdr_enc_init(&e_, (x)->p, xdr_out_left(x));           \
		if ((call) != 0) {                                            \
			(x)->bad = true;                                      \
			break;                                                \
		}                                                             \
		(x)->p += rpcrdma_xdr_enc_len(&e_);                           \
	} while (0)

/* Reserves n bytes (n a multiple of 4) for the caller to fill, or NULL. */
static inline uint8_t *xdr_reserve(struct xdr_out *x, size_t n)
{
	uint8_t *q = NULL;
	XDR_OUT_PUT(x, (q = rpcrdma_xdr_reserve(&e_, n)) ? 0 : -EMSGSIZE);
	return q;
}

/* Writes v at q (4 bytes the caller reserved). */
static inline void xdr_wr32(uint8_t *q, uint32_t v)
{
	struct rpcrdma_xdr_enc e;
	rpcrdma_xdr_enc_init(&e, q, 4);
	(void)rpcrdma_xdr_put_u32(&e, v);
}

static inline void xdr_put_u32(struct xdr_out *x, uint32_t v)
{
	XDR_OUT_PUT(x, rpcrdma_xdr_put_u32(&e_, v));
}

static inline void xdr_put_u64(struct xdr_out *x, uint64_t v)
{
	XDR_OUT_PUT(x, rpcrdma_xdr_put_u64(&e_, v));
}

static inline void xdr_put_bool(struct xdr_out *x, bool v)
{
	xdr_put_u32(x, v ? 1 : 0);
}

static inline void xdr_put_fixed(struct xdr_out *x, const void *src, uint32_t n)
{
	XDR_OUT_PUT(x, rpcrdma_xdr_put_fixed(&e_, src, n));
}

static inline void xdr_put_opaque(struct xdr_out *x, const void *src, uint32_t n)
{
	XDR_OUT_PUT(x, rpcrdma_xdr_put_opaque(&e_, src, n));
}

#endif
