/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: the RPC call decoder and the whole service core behind it.
 * Each input is decoded as a call header, then handed -- split into two
 * segments at a point the input chooses -- to a service with the test
 * program registered, through an in-memory transport.  Checks: the decoder
 * and dispatch never read outside the input (ASan), done() is called
 * exactly once, every reply fits the size reserved, no slot leaks, and
 * every message but those svc.h step 1 drops (fewer than 3 words, not a
 * CALL) is answered: nothing is silently lost.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "svc/svc_int.h"
#include "../tests/svc/testprog.h"

struct fz {
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	struct rpcrdma__svc_xprt *x[2];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned done;
	size_t max;
	size_t len; /* the last reply's length */
};

static void *fz_reply_buf(void *priv, void *ctx, size_t max)
{
	struct fz *f = priv;
	(void)ctx;
	f->max = max;
	return malloc(max);
}

static void fz_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct fz *f = priv;
	struct rpcrdma__svc_xprt *x = ctx;
	if (len > f->max)
		abort();
	if (len) {
		/* every reply starts with the xid and REPLY */
		if (len < 20 || rpcrdma__get_be32((uint8_t *)buf + 4) != 1)
			abort();
	}
	free(buf);
	rpcrdma__svc_xprt_complete(x);
	pthread_mutex_lock(&f->lock);
	f->len = len;
	f->done++;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static const struct rpcrdma__svc_xprt_ops fz_ops = { fz_reply_buf, fz_done, NULL, NULL };

static struct fz *fz_get(void)
{
	static struct fz f;
	static int ready;
	if (ready)
		return &f;
	if (rpcrdma_svc_create(NULL, &f.svc) || testprog_create(&f.tp) ||
	    rpcrdma_svc_register(f.svc, testprog_program(f.tp)))
		abort();
	struct rpcrdma__svc_xprt_info i1 = { .size = sizeof(i1), .netid = "tcp",
		.flags = RPCRDMA__SVC_XPRT_CONGESTION_CONTROL };
	struct rpcrdma__svc_xprt_info i2 = { .size = sizeof(i2), .netid = "udp" };
	if (rpcrdma__svc_xprt_create(f.svc, &fz_ops, &f, &i1, &f.x[0]) ||
	    rpcrdma__svc_xprt_create(f.svc, &fz_ops, &f, &i2, &f.x[1]))
		abort();
	pthread_mutex_init(&f.lock, NULL);
	pthread_cond_init(&f.cond, NULL);
	ready = 1;
	return &f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma__call_hdr h;
	enum rpcrdma__call_verdict v = rpcrdma__svc_call_decode(data, size, &h);
	if (v == RPCRDMA__CALL_OK && (h.len > size || (h.len & 3)))
		abort();

	struct fz *f = fz_get();
	size_t cut = size;
	unsigned which = 0;
	if (size > 0) {
		/* The last byte picks the transport and where to split. */
		uint8_t k = data[size - 1];
		which = k & 1;
		if (k & 2)
			cut = (h.len + (k >> 2)) < size ? h.len + (k >> 2) : size;
	}
	struct iovec iov[2] = {
		{ (void *)data, cut },
		{ (void *)(data + cut), size - cut },
	};
	pthread_mutex_lock(&f->lock);
	unsigned before = f->done;
	pthread_mutex_unlock(&f->lock);
	if (rpcrdma__svc_xprt_recv(f->x[which], iov, 2, NULL, 0, f->x[which]) != 0)
		abort();
	pthread_mutex_lock(&f->lock);
	while (f->done == before)
		pthread_cond_wait(&f->cond, &f->lock);
	if (f->done != before + 1)
		abort();
	/* svc.h step 1 looks at the first segment: three words, a CALL */
	if (cut >= 12 && rpcrdma__get_be32(data + 4) == 0 && f->len == 0)
		abort();
	pthread_mutex_unlock(&f->lock);
	if (rpcrdma__svc_xprt_in_progress(f->x[which]) != 0)
		abort();
	return 0;
}
