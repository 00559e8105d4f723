/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * difftest-X [VALUES [SEED]]: rpcrdma-xdrgen's code against rpcgen's, for
 * every type of the .x file X (difftest.py made both).  For VALUES random
 * values of each type (default 200):
 *  1. our encoder writes exactly xdrgen_size_T bytes;
 *  2. rpcgen's routine, through libtirpc, decodes them -- consuming all --
 *     and encodes the value again: the bytes must be equal;
 *  3. our decoder reads rpcgen's bytes back to a value equal to the first,
 *     consuming all: zero-copy, with XDRGEN_COPY, and from the bytes cut in
 *     two buffers at a random place (data spanning them is copied);
 *  4. each cut short by 1..4 bytes does not decode.
 * Any difference fails the test, with the type and the value's index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <rpcrdma/xdr.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define CAT_STR(a) STR_(a)

struct xdrgen_rng {
	uint64_t s;
};
/* As the --testgen output defines it. */
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
typedef int (*tirpc_rt_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t *);

extern const struct xdrgen_test_type CAT(xdrgen_test_types_, DIFFTEST_BASE)[];
extern const unsigned CAT(xdrgen_test_ntypes_, DIFFTEST_BASE);
extern const tirpc_rt_fn CAT(tirpc_rt_, DIFFTEST_BASE)[];

#define COPY_FLAG 0x1u /* XDRGEN_COPY */

static int decode_back(const struct xdrgen_test_type *t, const void *v, const uint8_t *buf,
		       size_t len, unsigned how, size_t cut)
{
	struct rpcrdma_xdr_dec d;
	struct iovec iov[2] = { { (void *)buf, cut }, { (void *)(buf + cut), len - cut } };
	void *w = calloc(1, t->size);
	int ok;
	if (how == 2)
		rpcrdma_xdr_dec_init(&d, iov, 2);
	else
		rpcrdma_xdr_dec_init_buf(&d, buf, len);
	ok = t->decode(&d, w, how == 1 ? COPY_FLAG : 0) == 0 && rpcrdma_xdr_dec_left(&d) == 0 &&
	     t->eq(v, w);
	t->free(w);
	free(w);
	return ok;
}

static int short_fails(const struct xdrgen_test_type *t, const uint8_t *buf, size_t len)
{
	for (size_t k = 1; k <= 4 && k <= len; k++) {
		struct rpcrdma_xdr_dec d;
		void *w = calloc(1, t->size);
		int rc;
		rpcrdma_xdr_dec_init_buf(&d, buf, len - k);
		rc = t->decode(&d, w, 0);
		t->free(w);
		free(w);
		if (rc == 0)
			return 0;
	}
	return 1;
}

/* One value: 0, or a message on stderr and 1. */
static int check_one(const struct xdrgen_test_type *t, tirpc_rt_fn rt, struct xdrgen_rng *r,
		     unsigned idx)
{
	void *v = calloc(1, t->size);
	struct rpcrdma_xdr_enc e;
	const char *why = NULL;
	size_t n, got = 0;
	uint8_t *ours, *theirs;
	t->rand(r, v, 0);
	n = t->esize(v);
	ours = malloc(n + 1);
	theirs = malloc(n + 64);
	rpcrdma_xdr_enc_init(&e, ours, n);
	if (t->encode(&e, v) != 0 || rpcrdma_xdr_enc_len(&e) != n)
		why = "our encoder failed or wrote other than xdrgen_size bytes";
	else if (rt(ours, n, theirs, n + 64, &got) != 0)
		why = "rpcgen's decoder refused our bytes";
	else if (got != n || memcmp(ours, theirs, n) != 0)
		why = "rpcgen's bytes differ from ours";
	else if (!decode_back(t, v, theirs, n, 0, 0))
		why = "our decoder did not read rpcgen's bytes back (zero-copy)";
	else if (!decode_back(t, v, theirs, n, 1, 0))
		why = "our decoder did not read rpcgen's bytes back (XDRGEN_COPY)";
	else if (!decode_back(t, v, theirs, n, 2, n ? (size_t)(r->s % (n + 1)) : 0))
		why = "our decoder did not read rpcgen's bytes back (two buffers)";
	else if (!short_fails(t, theirs, n))
		why = "our decoder accepted the bytes cut short";
	if (why)
		fprintf(stderr, "FAIL %s value %u (%zu bytes): %s\n", t->name, idx, n, why);
	t->free(v);
	free(v);
	free(ours);
	free(theirs);
	return why != NULL;
}

int main(int argc, char **argv)
{
	const struct xdrgen_test_type *types = CAT(xdrgen_test_types_, DIFFTEST_BASE);
	const tirpc_rt_fn *rt = CAT(tirpc_rt_, DIFFTEST_BASE);
	unsigned nvalues = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 200;
	struct xdrgen_rng r = { argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ull };
	unsigned ntypes = CAT(xdrgen_test_ntypes_, DIFFTEST_BASE), fails = 0;
	if (r.s == 0)
		r.s = 1;
	for (unsigned i = 0; i < ntypes; i++) {
		if (rt[i] == NULL)
			return fprintf(stderr, "FAIL: the tables differ\n"), 1;
		for (unsigned k = 0; k < nvalues; k++)
			fails += (unsigned)check_one(&types[i], rt[i], &r, k);
	}
	printf("%s: %u types, %u values each, %u values checked, %u failures\n",
	       CAT_STR(DIFFTEST_BASE), ntypes, nvalues, ntypes * nvalues, fails);
	return fails != 0;
}
