/* SPDX-License-Identifier: BSD-2-Clause */
/* XDR decode stream over an iovec list and encode stream into one buffer. */
#include <errno.h>
#include <string.h>

#include <rpcrdma/xdr.h>

#include "util/byteorder.h"

static inline size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Moves to the next non-empty segment when the current one is used up. */
static void dec_settle(struct rpcrdma_xdr_dec *x)
{
	while (x->p == x->end && x->idx + 1 < x->niov) {
		x->idx++;
		x->p = x->iov[x->idx].iov_base;
		x->end = x->p ? x->p + x->iov[x->idx].iov_len : x->p;
	}
}

void rpcrdma_xdr_dec_init(struct rpcrdma_xdr_dec *x, const struct iovec *iov,
			  unsigned niov)
{
	x->iov = iov;
	x->niov = niov;
	x->idx = 0;
	x->pos = 0;
	x->left = 0;
	for (unsigned i = 0; i < niov; i++)
		x->left += iov[i].iov_len;
	if (niov) {
		x->p = iov[0].iov_base;
		x->end = x->p ? x->p + iov[0].iov_len : x->p;
	} else {
		x->p = x->end = NULL;
	}
	dec_settle(x);
}

void rpcrdma_xdr_dec_init_buf(struct rpcrdma_xdr_dec *x, const void *buf, size_t len)
{
	x->iov = NULL;
	x->niov = 1; /* one segment: dec_settle never looks at iov */
	x->idx = 0;
	x->pos = 0;
	x->p = buf;
	x->end = buf ? x->p + len : x->p; /* no arithmetic on NULL */
	x->left = (size_t)(x->end - x->p);
}

size_t rpcrdma_xdr_dec_pos(const struct rpcrdma_xdr_dec *x)
{
	return x->pos;
}

size_t rpcrdma_xdr_dec_left(const struct rpcrdma_xdr_dec *x)
{
	return x->left;
}

/* Copies n bytes (dst may be NULL to skip); the caller checked x->left. */
static void dec_copy(struct rpcrdma_xdr_dec *x, void *dst, size_t n)
{
	uint8_t *d = dst;
	x->left -= n;
	x->pos += n;
	while (n) {
		size_t seg = (size_t)(x->end - x->p);
		size_t k = n < seg ? n : seg;
		if (d) {
			memcpy(d, x->p, k);
			d += k;
		}
		x->p += k;
		n -= k;
		dec_settle(x);
	}
}

int rpcrdma_xdr_get_u32(struct rpcrdma_xdr_dec *x, uint32_t *v)
{
	uint8_t b[4];
	if (x->left < 4)
		return -EBADMSG;
	if (x->end - x->p >= 4) {
		memcpy(b, x->p, 4);
		x->p += 4;
		x->left -= 4;
		x->pos += 4;
		dec_settle(x);
	} else {
		dec_copy(x, b, 4);
	}
	*v = rpcrdma__get_be32(b);
	return 0;
}

int rpcrdma_xdr_get_u64(struct rpcrdma_xdr_dec *x, uint64_t *v)
{
	uint32_t hi, lo;
	if (x->left < 8)
		return -EBADMSG;
	rpcrdma_xdr_get_u32(x, &hi);
	rpcrdma_xdr_get_u32(x, &lo);
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

int rpcrdma_xdr_get_i32(struct rpcrdma_xdr_dec *x, int32_t *v)
{
	uint32_t w;
	int r = rpcrdma_xdr_get_u32(x, &w);
	if (r == 0)
		*v = (int32_t)w; /* two's complement (C11 implementation-defined; gcc, clang: modulo) */
	return r;
}

int rpcrdma_xdr_get_i64(struct rpcrdma_xdr_dec *x, int64_t *v)
{
	uint64_t w;
	int r = rpcrdma_xdr_get_u64(x, &w);
	if (r == 0)
		*v = (int64_t)w;
	return r;
}

int rpcrdma_xdr_get_bool(struct rpcrdma_xdr_dec *x, int *v)
{
	struct rpcrdma_xdr_dec save = *x;
	uint32_t w;
	if (rpcrdma_xdr_get_u32(x, &w))
		return -EBADMSG;
	if (w > 1) {
		*x = save;
		return -EBADMSG;
	}
	*v = (int)w;
	return 0;
}

int rpcrdma_xdr_get_fixed(struct rpcrdma_xdr_dec *x, void *dst, size_t n)
{
	size_t padded = pad4(n);
	if (padded < n || x->left < padded)
		return -EBADMSG;
	dec_copy(x, dst, n);
	dec_copy(x, NULL, padded - n);
	return 0;
}

int rpcrdma_xdr_get_fixed_ref(struct rpcrdma_xdr_dec *x, const void **data, size_t n)
{
	size_t padded = pad4(n);
	if (padded < n || x->left < padded)
		return -EBADMSG;
	/* (the decoder never rests at the end of a non-last segment) */
	if ((size_t)(x->end - x->p) < n)
		return -EXDEV;
	*data = x->p;
	dec_copy(x, NULL, padded);
	return 0;
}

int rpcrdma_xdr_skip(struct rpcrdma_xdr_dec *x, size_t n)
{
	size_t padded = pad4(n);
	if (padded < n || x->left < padded)
		return -EBADMSG;
	dec_copy(x, NULL, padded);
	return 0;
}

/* Reads a length word bounded by max and by what is left; no advance on error. */
static int dec_len(struct rpcrdma_xdr_dec *x, size_t max, uint32_t *len)
{
	struct rpcrdma_xdr_dec save = *x;
	uint32_t n;
	if (rpcrdma_xdr_get_u32(x, &n))
		return -EBADMSG;
	if (n > max || pad4(n) < n || pad4(n) > x->left) { /* (wraps if size_t is 32 bits) */
		*x = save;
		return -EBADMSG;
	}
	*len = n;
	return 0;
}

int rpcrdma_xdr_get_count(struct rpcrdma_xdr_dec *x, uint32_t max, size_t min_item,
			  uint32_t *n)
{
	struct rpcrdma_xdr_dec save = *x;
	uint32_t v;
	if (rpcrdma_xdr_get_u32(x, &v))
		return -EBADMSG;
	if (v > max || (min_item && v > x->left / min_item)) {
		*x = save;
		return -EBADMSG;
	}
	*n = v;
	return 0;
}

int rpcrdma_xdr_get_opaque(struct rpcrdma_xdr_dec *x, void *dst, size_t max,
			   uint32_t *len)
{
	uint32_t n;
	if (dec_len(x, max, &n))
		return -EBADMSG;
	rpcrdma_xdr_get_fixed(x, dst, n);
	*len = n;
	return 0;
}

int rpcrdma_xdr_get_opaque_ref(struct rpcrdma_xdr_dec *x, const void **data,
			       size_t max, uint32_t *len)
{
	struct rpcrdma_xdr_dec save = *x;
	uint32_t n;
	if (dec_len(x, max, &n))
		return -EBADMSG;
	if ((size_t)(x->end - x->p) < n) {
		*x = save;
		return -EXDEV;
	}
	*data = x->p;
	dec_copy(x, NULL, pad4(n));
	*len = n;
	return 0;
}

int rpcrdma_xdr_get_string(struct rpcrdma_xdr_dec *x, char *dst, size_t size,
			   size_t max)
{
	struct rpcrdma_xdr_dec save = *x;
	uint32_t n;
	if (size == 0)
		return -EBADMSG;
	if (max > size - 1)
		max = size - 1;
	if (rpcrdma_xdr_get_opaque(x, dst, max, &n))
		return -EBADMSG;
	if (memchr(dst, 0, n)) {
		*x = save;
		return -EBADMSG;
	}
	dst[n] = '\0';
	return 0;
}

void rpcrdma_xdr_enc_init(struct rpcrdma_xdr_enc *x, void *buf, size_t len)
{
	x->base = buf;
	x->p = buf;
	x->end = buf ? x->p + len : x->p; /* no arithmetic on NULL */
}

size_t rpcrdma_xdr_enc_len(const struct rpcrdma_xdr_enc *x)
{
	return (size_t)(x->p - x->base);
}

size_t rpcrdma_xdr_enc_room(const struct rpcrdma_xdr_enc *x)
{
	return (size_t)(x->end - x->p);
}

void *rpcrdma_xdr_reserve(struct rpcrdma_xdr_enc *x, size_t n)
{
	size_t padded = pad4(n);
	if (padded < n || (size_t)(x->end - x->p) < padded)
		return NULL;
	uint8_t *r = x->p;
	if (padded) { /* an empty stream may have a NULL buffer */
		memset(r + n, 0, padded - n);
		x->p += padded;
	}
	return r;
}

int rpcrdma_xdr_put_u32(struct rpcrdma_xdr_enc *x, uint32_t v)
{
	uint8_t *p = x->p;
	if (x->end - p < 4)
		return -EMSGSIZE;
	rpcrdma__put_be32(p, v);
	x->p = p + 4;
	return 0;
}

int rpcrdma_xdr_put_u64(struct rpcrdma_xdr_enc *x, uint64_t v)
{
	uint8_t *p = x->p;
	if (x->end - p < 8)
		return -EMSGSIZE;
	rpcrdma__put_be32(p, (uint32_t)(v >> 32));
	rpcrdma__put_be32(p + 4, (uint32_t)v);
	x->p = p + 8;
	return 0;
}

int rpcrdma_xdr_put_i32(struct rpcrdma_xdr_enc *x, int32_t v)
{
	return rpcrdma_xdr_put_u32(x, (uint32_t)v);
}

int rpcrdma_xdr_put_i64(struct rpcrdma_xdr_enc *x, int64_t v)
{
	return rpcrdma_xdr_put_u64(x, (uint64_t)v);
}

int rpcrdma_xdr_put_bool(struct rpcrdma_xdr_enc *x, int v)
{
	return rpcrdma_xdr_put_u32(x, v != 0);
}

int rpcrdma_xdr_put_fixed(struct rpcrdma_xdr_enc *x, const void *src, size_t n)
{
	if (n == 0)
		return 0; /* fits anywhere, even an empty stream */
	void *d = rpcrdma_xdr_reserve(x, n);
	if (!d)
		return -EMSGSIZE;
	memcpy(d, src, n);
	return 0;
}

int rpcrdma_xdr_put_opaque(struct rpcrdma_xdr_enc *x, const void *src, size_t n)
{
	if (n > UINT32_MAX || (size_t)(x->end - x->p) < 4 ||
	    (size_t)(x->end - x->p) - 4 < pad4(n) || pad4(n) < n)
		return -EMSGSIZE;
	rpcrdma_xdr_put_u32(x, (uint32_t)n);
	return rpcrdma_xdr_put_fixed(x, src, n);
}

int rpcrdma_xdr_put_string(struct rpcrdma_xdr_enc *x, const char *s)
{
	return rpcrdma_xdr_put_opaque(x, s, strlen(s));
}
