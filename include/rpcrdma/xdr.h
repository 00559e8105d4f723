/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * XDR (RFC 4506) streams for RPC program authors: bounded decoding over a
 * list of buffers (struct iovec) and bounded encoding into one buffer.
 *
 * Rules that hold for every function here:
 *  - Nothing is ever read or written outside the buffers given at init,
 *    whatever the lengths inside the data say.
 *  - A decoder returns 0, or -EBADMSG when the data is short, malformed
 *    or larger than the bound the caller
 *    gives.  An encoder returns 0, or -EMSGSIZE when the buffer is too small.
 *    On error the stream does not advance and the output is unspecified.
 *  - Items are 4-byte aligned as XDR requires: opaque data is followed by
 *    zero padding to a multiple of 4.  Decoders do not check that the padding
 *    bytes are zero (RFC 4506 says they "should" be).
 *
 * The stream structures live on the caller's stack; their fields are private
 * (read them only through the functions).  A decode stream keeps pointers to
 * the iovec array and the buffers: they must stay valid while it is used.
 */
#ifndef RPCRDMA_XDR_H
#define RPCRDMA_XDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

/* Decode stream over iov[0..niov-1], read in order. */
struct rpcrdma_xdr_dec {
	const struct iovec *iov; /* private */
	unsigned niov;           /* private */
	unsigned idx;            /* private: current segment */
	const uint8_t *p;        /* private: next byte in segment idx */
	const uint8_t *end;      /* private: end of segment idx */
	size_t pos;              /* private: bytes consumed */
	size_t left;             /* private: bytes left in all segments */
};

/* Encode stream into buf[0..len-1]. */
struct rpcrdma_xdr_enc {
	uint8_t *base; /* private */
	uint8_t *p;    /* private */
	uint8_t *end;  /* private */
};

/* Starts decoding iov[0..niov-1].  Zero-length segments are allowed (their
 * iov_base may be NULL). */
RPCRDMA_API void rpcrdma_xdr_dec_init(struct rpcrdma_xdr_dec *x,
				      const struct iovec *iov, unsigned niov);
/*
 * Starts decoding the one buffer buf[0..len-1] (buf may be NULL when len is
 * 0).  Unlike rpcrdma_xdr_dec_init, the stream keeps no pointer to an
 * iovec: it may be copied freely (a copy is a saved position).
 */
RPCRDMA_API void rpcrdma_xdr_dec_init_buf(struct rpcrdma_xdr_dec *x,
					  const void *buf, size_t len);
/* Bytes consumed so far / bytes left. */
RPCRDMA_API size_t rpcrdma_xdr_dec_pos(const struct rpcrdma_xdr_dec *x);
RPCRDMA_API size_t rpcrdma_xdr_dec_left(const struct rpcrdma_xdr_dec *x);

RPCRDMA_API int rpcrdma_xdr_get_u32(struct rpcrdma_xdr_dec *x, uint32_t *v);
RPCRDMA_API int rpcrdma_xdr_get_u64(struct rpcrdma_xdr_dec *x, uint64_t *v);
/* int and hyper (two's complement, as XDR's signed integers). */
RPCRDMA_API int rpcrdma_xdr_get_i32(struct rpcrdma_xdr_dec *x, int32_t *v);
RPCRDMA_API int rpcrdma_xdr_get_i64(struct rpcrdma_xdr_dec *x, int64_t *v);
/* bool: only 0 and 1 are accepted (anything else is -EBADMSG). */
RPCRDMA_API int rpcrdma_xdr_get_bool(struct rpcrdma_xdr_dec *x, int *v);
/* Fixed-length opaque[n]: copies n bytes into dst, skips the padding. */
RPCRDMA_API int rpcrdma_xdr_get_fixed(struct rpcrdma_xdr_dec *x, void *dst, size_t n);
/*
 * Variable-length opaque<max>: copies the data into dst (which has room for
 * max bytes) and stores its length in *len.  A length above max is -EBADMSG.
 */
RPCRDMA_API int rpcrdma_xdr_get_opaque(struct rpcrdma_xdr_dec *x, void *dst,
				       size_t max, uint32_t *len);
/*
 * Variable-length opaque<max>, zero copy: *data points into the stream's
 * buffer.  The data must lie inside one segment; if it spans two, -EXDEV is
 * returned and nothing is consumed (use rpcrdma_xdr_get_opaque then).
 */
RPCRDMA_API int rpcrdma_xdr_get_opaque_ref(struct rpcrdma_xdr_dec *x,
					   const void **data, size_t max,
					   uint32_t *len);
/*
 * Fixed-length opaque[n], zero copy: *data points at the n bytes in the
 * stream's buffer, the padding is skipped.  -EBADMSG when fewer bytes are
 * left; -EXDEV when they span two segments (nothing is consumed then: use
 * rpcrdma_xdr_get_fixed).
 */
RPCRDMA_API int rpcrdma_xdr_get_fixed_ref(struct rpcrdma_xdr_dec *x, const void **data,
					  size_t n);
/*
 * string<max>: copies it into dst, which has room for size bytes, NUL
 * terminated.  A string longer than max or than size - 1 bytes, or holding a
 * NUL byte, is -EBADMSG.
 */
RPCRDMA_API int rpcrdma_xdr_get_string(struct rpcrdma_xdr_dec *x, char *dst,
				       size_t size, size_t max);
/*
 * Array count: a word n with n <= max and n * min_item <= bytes left, so a
 * count cannot promise more items than the stream can hold (min_item is
 * the smallest encoded item, 0 for no such check).  -EBADMSG otherwise,
 * and the stream does not advance.
 */
RPCRDMA_API int rpcrdma_xdr_get_count(struct rpcrdma_xdr_dec *x, uint32_t max,
				      size_t min_item, uint32_t *n);
/* Skips n bytes plus padding to a multiple of 4. */
RPCRDMA_API int rpcrdma_xdr_skip(struct rpcrdma_xdr_dec *x, size_t n);

/* Starts encoding into buf[0..len-1] (buf may be NULL when len is 0). */
RPCRDMA_API void rpcrdma_xdr_enc_init(struct rpcrdma_xdr_enc *x, void *buf, size_t len);
/* Bytes written so far / room left. */
RPCRDMA_API size_t rpcrdma_xdr_enc_len(const struct rpcrdma_xdr_enc *x);
RPCRDMA_API size_t rpcrdma_xdr_enc_room(const struct rpcrdma_xdr_enc *x);

RPCRDMA_API int rpcrdma_xdr_put_u32(struct rpcrdma_xdr_enc *x, uint32_t v);
RPCRDMA_API int rpcrdma_xdr_put_u64(struct rpcrdma_xdr_enc *x, uint64_t v);
RPCRDMA_API int rpcrdma_xdr_put_i32(struct rpcrdma_xdr_enc *x, int32_t v);
RPCRDMA_API int rpcrdma_xdr_put_i64(struct rpcrdma_xdr_enc *x, int64_t v);
/* bool: v != 0 is encoded as 1 (TRUE), 0 as 0 (FALSE). */
RPCRDMA_API int rpcrdma_xdr_put_bool(struct rpcrdma_xdr_enc *x, int v);
/* Fixed-length opaque[n]: n bytes then zero padding. */
RPCRDMA_API int rpcrdma_xdr_put_fixed(struct rpcrdma_xdr_enc *x, const void *src, size_t n);
/* Variable-length opaque: length word, data, zero padding (n < 2^32). */
RPCRDMA_API int rpcrdma_xdr_put_opaque(struct rpcrdma_xdr_enc *x, const void *src, size_t n);
/* string: as opaque, strlen(s) bytes. */
RPCRDMA_API int rpcrdma_xdr_put_string(struct rpcrdma_xdr_enc *x, const char *s);
/*
 * Reserves n bytes (rounded up to a multiple of 4, the padding zeroed) and
 * returns a pointer to them for the caller to fill, or NULL if there is no
 * room (the stream does not advance then).
 */
RPCRDMA_API void *rpcrdma_xdr_reserve(struct rpcrdma_xdr_enc *x, size_t n);

/* Encoded size of an opaque<> or string of n bytes: 4 + n rounded up to 4. */
static inline size_t rpcrdma_xdr_opaque_size(size_t n)
{
	return 4 + ((n + 3) & ~(size_t)3);
}

RPCRDMA_END_DECLS

#endif /* RPCRDMA_XDR_H */
