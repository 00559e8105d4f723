/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's registered bounce buffers (their rule: rdma_client_int.h):
 * kept per connection in the power-of-two classes of rpcrdma__mrcache,
 * read sources and write targets apart, up to BUF_CACHE_MAX bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_client_int.h"

int rpcrdma__client_bufs_get(struct cconn *cc, struct rpcrdma__mrbuf *b, size_t len, int access)
{
	struct rpcrdma__list *l = access == BUF_WRITE ? &cc->wbufs : &cc->rbufs;
	size_t cls = rpcrdma__mrcache_class(len);
	struct rpcrdma__mrbuf *hit = NULL;
	int err;

	pthread_mutex_lock(&cc->buf_lock);
	for (struct rpcrdma__list *n = l->next; n != l; n = n->next) {
		struct rpcrdma__mrbuf *x = rpcrdma__container_of(n, struct rpcrdma__mrbuf, node);

		if (x->cap == cls) {
			hit = x;
			rpcrdma__list_del(n);
			cc->buf_bytes -= x->cap;
			break;
		}
	}
	pthread_mutex_unlock(&cc->buf_lock);
	if (hit) {
		*b = *hit;
		free(hit);
	} else {
		err = rpcrdma__mrbuf_alloc(b, cc->pd, cls, access);
		if (err)   /* -ENOBUFS means "wait for a send buffer" to req_send's callers */
			return err == -ENOBUFS ? -ENOMEM : err;
		b->cap = cls;
	}
	b->len = len;
	rpcrdma__list_init(&b->node);
	return 0;
}

/* Keeps b for later calls (or frees it past the cap); b is zeroed. */
static void bufs_put(struct cconn *cc, struct rpcrdma__mrbuf *b, int access)
{
	struct rpcrdma__mrbuf *keep;

	if (!b->mr)
		return;
	pthread_mutex_lock(&cc->buf_lock);
	if (cc->buf_bytes + b->cap <= BUF_CACHE_MAX && (keep = malloc(sizeof(*keep)))) {
		*keep = *b;
		rpcrdma__list_add_tail(access == BUF_WRITE ? &cc->wbufs : &cc->rbufs, &keep->node);
		cc->buf_bytes += b->cap;
		pthread_mutex_unlock(&cc->buf_lock);
		memset(b, 0, sizeof(*b));
		return;
	}
	pthread_mutex_unlock(&cc->buf_lock);
	rpcrdma__mrbuf_free(b);
}

void rpcrdma__client_req_release(struct cconn *cc, struct creq *r)
{
	bufs_put(cc, &r->rd, BUF_READ);
	bufs_put(cc, &r->pz, BUF_READ);
	bufs_put(cc, &r->wr, BUF_WRITE);
	bufs_put(cc, &r->rp, BUF_WRITE);
}

void rpcrdma__client_bufs_fini(struct cconn *cc)
{
	struct rpcrdma__list *lists[2] = { &cc->rbufs, &cc->wbufs }, *n;

	for (int i = 0; i < 2; i++) {
		while ((n = rpcrdma__list_pop(lists[i]))) {
			struct rpcrdma__mrbuf *b = rpcrdma__container_of(n, struct rpcrdma__mrbuf, node);

			rpcrdma__mrbuf_free(b);
			free(b);
		}
	}
	pthread_mutex_destroy(&cc->buf_lock);
}
