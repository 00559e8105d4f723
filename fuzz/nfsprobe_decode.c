/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: nfs4-probe's COMPOUND4res decoders side by side, the
 * hand-written one (p4_decode) and the two on the code rpcrdma-xdrgen
 * generates from examples/nfs4/nfs4_prot.x (p4g_decode, p4g_decode_ops).
 * Input: a byte choosing where to cut the reply in two buffers (the
 * generated decoder then copies what spans them), then the reply.  Besides
 * "no crash, no overread, no leak", asserts that what the hand-written
 * decoder refuses the generated ones refuse too, and that a reply all
 * three take decodes to the same struct p4_res and READ data.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "nfs4_gen.h"
#include "nfs4_xdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

struct run {
	struct p4_res r;
	uint8_t out[4096];
	uint64_t names;
	int rc;
};

static int name_sum(void *arg, const char *name, uint64_t cookie)
{
	uint64_t *sum = arg;

	*sum = *sum * 31 + cookie;
	for (; *name; name++)
		*sum = *sum * 31 + (uint8_t)*name;
	return 0;
}

static void run(struct run *x, int (*decode)(struct rpcrdma_xdr_dec *, struct p4_res *),
		uint8_t *copy, size_t len, size_t cut)
{
	struct iovec iov[2] = { { copy, cut }, { copy + cut, len - cut } };
	struct rpcrdma_xdr_dec d;

	memset(x, 0, sizeof(*x));
	x->r.read_buf = x->out;
	x->r.read_max = sizeof(x->out);
	x->r.dirent = name_sum;
	x->r.dirent_arg = &x->names;
	rpcrdma_xdr_dec_init(&d, iov, 2);
	x->rc = decode(&d, &x->r);
	CHECK(x->rc == 0 || x->rc == -EBADMSG);
}

static void same(const struct run *h, const struct run *g)
{
	size_t from = offsetof(struct p4_res, status);

	if (h->rc != 0) {
		CHECK(g->rc == h->rc);
		return;
	}
	if (g->rc != 0)
		return; /* stricter: the RFC's enums and bools (nfs4_gen.h) */
	CHECK(memcmp((const uint8_t *)&h->r + from, (const uint8_t *)&g->r + from,
		     sizeof(h->r) - from) == 0);
	CHECK(memcmp(h->out, g->out, h->r.read_len) == 0);
	CHECK(h->names == g->names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run h, g, o;

	if (size < 1)
		return 0;
	size_t len = size - 1;
	/* A copy of its own, so that a read past the input is seen. */
	uint8_t *copy = malloc(len ? len : 1);
	CHECK(copy != NULL);
	memcpy(copy, data + 1, len);
	size_t cut = data[0] == 0 ? len : (size_t)data[0] * 4 % (len + 1);
	run(&h, p4_decode, copy, len, cut);
	run(&g, p4g_decode, copy, len, cut);
	run(&o, p4g_decode_ops, copy, len, cut);
	same(&h, &g);
	same(&h, &o);
	free(copy);
	return 0;
}
