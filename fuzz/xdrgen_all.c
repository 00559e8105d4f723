/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: rpcrdma-xdrgen's decoders, for every type of xdrgen_all.x
 * (each construct the tool generates).  Input: a byte choosing the type, a
 * byte choosing the decode (zero-copy, XDRGEN_COPY, as an rpcrdma_clnt
 * decode would not: the stream is plain) and where to cut the bytes in two
 * buffers, then the XDR bytes.  Besides "no crash, no overread, no leak",
 * asserts that a value decoded is encoded again in exactly the bytes it
 * took (xdrgen_size agrees), and that those bytes decode to an equal value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "xdrgen_all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct xdrgen_rng;
/* The --testgen table (xdrgen_all_test.c). */
struct xdrgen_test_type {
	const char *name;
	size_t size;
	void (*rand)(struct xdrgen_rng *r, void *v, unsigned depth);
	int (*eq)(const void *a, const void *b);
	int (*encode)(struct rpcrdma_xdr_enc *e, const void *v);
	int (*decode)(struct rpcrdma_xdr_dec *d, void *v, unsigned flags);
	size_t (*esize)(const void *v);
	void (*free)(void *v);
};
extern const struct xdrgen_test_type xdrgen_test_types_xdrgen_all[];
extern const unsigned xdrgen_test_ntypes_xdrgen_all;

#define CHECK(x) ((x) ? (void)0 : abort())

static void reencode(const struct xdrgen_test_type *t, const void *v, size_t took)
{
	size_t n = t->esize(v);
	uint8_t *buf = malloc(n + 1);
	struct rpcrdma_xdr_enc e;
	struct rpcrdma_xdr_dec d;
	void *w = calloc(1, t->size);
	CHECK(buf != NULL && w != NULL);
	CHECK(n == took);
	rpcrdma_xdr_enc_init(&e, buf, n);
	CHECK(t->encode(&e, v) == 0 && rpcrdma_xdr_enc_len(&e) == n);
	rpcrdma_xdr_dec_init_buf(&d, buf, n);
	CHECK(t->decode(&d, w, 0) == 0 && rpcrdma_xdr_dec_left(&d) == 0);
	CHECK(t->eq(v, w));
	t->free(w);
	free(w);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct xdrgen_test_type *t;
	struct rpcrdma_xdr_dec d;
	struct iovec iov[2];
	size_t len, cut;
	unsigned how;
	void *v;
	if (size < 2)
		return 0;
	t = &xdrgen_test_types_xdrgen_all[data[0] % xdrgen_test_ntypes_xdrgen_all];
	how = data[1];
	data += 2, len = size - 2;
	/* A copy of its own, so that a read past the input is seen. */
	uint8_t *copy = malloc(len ? len : 1);
	CHECK(copy != NULL);
	memcpy(copy, data, len);
	cut = (how >> 2) % (len + 1);
	iov[0] = (struct iovec){ copy, cut };
	iov[1] = (struct iovec){ copy + cut, len - cut };
	if (how & 2)
		rpcrdma_xdr_dec_init(&d, iov, 2);
	else
		rpcrdma_xdr_dec_init_buf(&d, copy, len);
	v = calloc(1, t->size);
	CHECK(v != NULL);
	if (t->decode(&d, v, how & 1 ? XDRGEN_COPY : 0) == 0)
		reencode(t, v, len - rpcrdma_xdr_dec_left(&d));
	t->free(v);
	free(v);
	free(copy);
	return 0;
}
