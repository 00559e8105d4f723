/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server's backward direction over RPC-over-RDMA (RFC 8167), as
 * Linux's client and nfsd use it: a call to the client goes inline, as
 * RDMA_MSG with empty chunk lists, and its reply comes back inline into
 * one of the server's receive buffers.
 *
 * Credits.  The two directions are counted apart (RFC 8167 section 4).
 * A connection of the service keeps bc_recvs (RPCRDMA__BC_RECVS) receives
 * beyond its forward grant, so the replies to backward calls never take a
 * receive a forward call was promised, nor the reverse.  At most
 * min(bc_recvs, the client's backward grant) calls are in flight: the
 * client grants in the rdma_credit of its replies (Linux: 0 taken as 1);
 * until its first reply, one.  A call is in flight until a reply arrives
 * on the connection (a late one too: it took a receive), never released by
 * a timeout, so a client that never answers stops further calls (-EAGAIN)
 * instead of overrunning the receives.  A REPLY that arrives with none in
 * flight takes no backward receive: it goes the way of any message, under
 * the forward credit policing (the core drops it), so a client cannot
 * flood the receives with replies.  Our calls ask for bc_recvs in their
 * rdma_credit, as nfsd asks for its backchannel slots.
 *
 * Threads.  Soft-RoCE rings the Send doorbell with a uverbs command that
 * the kernel refuses from a thread whose credentials changed (see
 * sender_main in svc_rdma.c), and service handlers (the callers here) do
 * change theirs.  So the Send is built on the caller's thread and posted
 * by a poller thread, through the listener's eventfd source bc_src.
 *
 * Layers.  What the calls and replies mean is the service's (svc_backward.c,
 * with its RDMA half in svc_rdma_backward.c): this file posts the calls,
 * keeps the credits, and hands each reply, and the connection's close and
 * end, up through the upcalls the service attached (rpcrdma__bc_attach).
 * It includes nothing of lib/svc.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rdma_backward.h"
#include "wire/wire.h"
#include "rdma_internal.h"

struct rpcrdma__rdma_bc {
	void *upper;                    /* the service's state of it */
	const struct rpcrdma__bc_upcalls *up;
	struct rpcrdma__conn *conn;     /* owns this (conn->bc) */
	atomic_uint inflight;           /* sent, no reply received yet */
	atomic_uint window;             /* 1 .. conn->bc_recvs */
};

/* ---- posting, on a poller thread ---- */

static int poster_handle(struct rpcrdma__source *src, unsigned budget)
{
	struct rpcrdma_listener *l = rpcrdma__container_of(src, struct rpcrdma_listener, bc_src);
	uint64_t v;
	unsigned n = 0;

	if (read(src->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: another thread took the wake-up; look all the same */
	}
	for (;;) {
		pthread_mutex_lock(&l->bc_lock);
		struct rpcrdma__list *node = rpcrdma__list_pop(&l->bc_queue);
		pthread_mutex_unlock(&l->bc_lock);
		if (!node)
			break;
		struct rpcrdma__send *s = rpcrdma__container_of(node, struct rpcrdma__send, c.node);
		struct rpcrdma__conn *conn = s->conn;
		uint32_t len = s->send_sge.length;
		if (rpcrdma__conn_post(conn, s->wrs, 1, &s->c.node) == 0) {
			rpcrdma__count(&conn->stats, &l->stats, RPCRDMA_STAT_BYTES_SENT, len);
		} else {
			/* Closing: no reply will come for it. */
			struct rpcrdma__rdma_bc *b = conn->bc;
			rpcrdma__send_put(s);
			if (b)
				atomic_fetch_sub(&b->inflight, 1);
		}
		rpcrdma__conn_put(conn);  /* the queue's reference */
		n++;
	}
	(void)budget;
	return (int)n;
}

int rpcrdma__bc_listener_start(struct rpcrdma_listener *l)
{
	if (!l->bc_recvs)
		return 0;
	pthread_mutex_init(&l->bc_lock, NULL);
	rpcrdma__list_init(&l->bc_queue);
	l->bc_src.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->bc_src.fd < 0) {
		int err = -errno;
		pthread_mutex_destroy(&l->bc_lock);
		return err;
	}
	l->bc_src.handle = poster_handle;
	int err = rpcrdma__poller_add(l->poller, &l->bc_src);
	if (err) {
		close(l->bc_src.fd);
		l->bc_src.fd = -1;
		pthread_mutex_destroy(&l->bc_lock);
	}
	return err;
}

void rpcrdma__bc_listener_stop(struct rpcrdma_listener *l)
{
	if (l->bc_src.fd < 0)
		return;
	/* Every connection is gone, and queued Sends hold theirs: empty. */
	rpcrdma__poller_del(l->poller, &l->bc_src);
	close(l->bc_src.fd);
	l->bc_src.fd = -1;
	pthread_mutex_destroy(&l->bc_lock);
}

/* ---- sending, any thread ---- */

int rpcrdma__bc_send(void *priv, uint8_t *block, size_t len)
{
	struct rpcrdma__rdma_bc *b = priv;
	struct rpcrdma__conn *conn = b->conn;
	struct rpcrdma_listener *l = conn->l;
	size_t total = RPCRDMA_HDRLEN_MIN + len;
	struct rpcrdma__send *s;
	int err = -EMSGSIZE;

	if (total > conn->send_inline || len < 4)
		goto out_free;
	err = -EAGAIN;
	unsigned inflight = atomic_fetch_add(&b->inflight, 1);
	if (inflight >= atomic_load(&b->window))
		goto out_uncount;
	s = rpcrdma__send_get(conn);
	if (!s)
		goto out_uncount;
	if (total > s->c.pool->buf_size) {
		rpcrdma__send_put(s);
		err = -EMSGSIZE;
		goto out_uncount;
	}
	uint8_t *p = s->c.buf;
	/* xid: the RPC call's; credits: the ones asked for */
	rpcrdma__bc_hdr_put(p, block + RPCRDMA_HDRLEN_MIN, len, conn->bc_recvs);
	free(block);
	s->wrs = &s->send_wr;
	s->sges = &s->send_sge;
	s->send_sge.addr = (uintptr_t)s->c.buf;
	s->send_sge.length = (uint32_t)total;
	s->send_sge.lkey = s->c.lkey;
	memset(&s->send_wr, 0, sizeof(s->send_wr));
	s->send_wr.wr_id = (uintptr_t)&s->c;
	s->send_wr.sg_list = &s->send_sge;
	s->send_wr.num_sge = 1;
	s->send_wr.opcode = IBV_WR_SEND;
	s->send_wr.send_flags = IBV_SEND_SIGNALED;
	if (total <= conn->max_inline)
		s->send_wr.send_flags |= IBV_SEND_INLINE;
	s->nwr = 1;
	rpcrdma__conn_get(conn);                        /* the queue's */
	pthread_mutex_lock(&l->bc_lock);
	rpcrdma__list_add_tail(&l->bc_queue, &s->c.node);
	pthread_mutex_unlock(&l->bc_lock);
	uint64_t one = 1;
	if (write(l->bc_src.fd, &one, sizeof(one)) < 0) {
		/* cannot overflow; ignore */
	}
	return 0;

out_uncount:
	atomic_fetch_sub(&b->inflight, 1);
out_free:
	free(block);
	return err;
}

void *rpcrdma__bc_attach(struct rpcrdma__conn *conn, const struct rpcrdma__bc_upcalls *up,
			 void *(*make)(struct rpcrdma__rdma_bc *b, bool down, void *arg), void *arg)
{
	struct rpcrdma__rdma_bc *b;

	if (!conn->bc_recvs)
		return NULL;
	pthread_mutex_lock(&conn->lock);
	b = conn->bc;
	if (!b && (b = calloc(1, sizeof(*b))) != NULL) {
		b->conn = conn;
		b->up = up;
		atomic_init(&b->inflight, 0);
		atomic_init(&b->window, 1);
		/* Closing already: rpcrdma__bc_conn_close has run without it. */
		b->upper = make(b, conn->state == RPCRDMA__CONN_CLOSING, arg);
		if (b->upper) {
			conn->bc = b;
		} else {
			free(b);
			b = NULL;
		}
	}
	pthread_mutex_unlock(&conn->lock);
	return b ? b->upper : NULL;
}

/* ---- receiving, on a poller thread ---- */

bool rpcrdma__bc_recv(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;
	const uint8_t *p = call->c.buf;
	uint32_t n = call->byte_len;

	/* RDMA_MSG, version 1, no chunks, then an RPC REPLY. */
	if (!rpcrdma__bc_hdr_ok(p, n, RPCRDMA__RPC_REPLY))
		return false;
	pthread_mutex_lock(&conn->lock);
	struct rpcrdma__rdma_bc *b = conn->bc;
	pthread_mutex_unlock(&conn->lock);
	/* With no call in flight it answers nothing: a message like any
	 * other, under the forward credit policing (the core drops it). */
	if (!b || atomic_load(&b->inflight) == 0)
		return false;
	uint32_t credits = rpcrdma__get_be32(p + 8);
	if (credits == 0)
		credits = 1;                            /* as Linux: never stall */
	if (credits > conn->bc_recvs)
		credits = conn->bc_recvs;
	atomic_store(&b->window, credits);
	b->up->reply(b->upper, p + RPCRDMA_HDRLEN_MIN, n - RPCRDMA_HDRLEN_MIN);
	/* The receive goes back before the credit does. */
	rpcrdma__recv_repost(call);
	unsigned f = atomic_load(&b->inflight);
	while (f && !atomic_compare_exchange_weak(&b->inflight, &f, f - 1))
		;
	rpcrdma__conn_put(conn);
	return true;
}

void rpcrdma__bc_conn_close(struct rpcrdma__conn *conn)
{
	pthread_mutex_lock(&conn->lock);
	struct rpcrdma__rdma_bc *b = conn->bc;
	pthread_mutex_unlock(&conn->lock);
	if (b)
		b->up->down(b->upper, -ECONNRESET);
}

void rpcrdma__bc_conn_free(struct rpcrdma__conn *conn)
{
	struct rpcrdma__rdma_bc *b = conn->bc;
	if (!b)
		return;
	b->up->release(b->upper);
	conn->bc = NULL;
	free(b);
}
