/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Server receive path: posting receive buffers (SRQ or per-connection RQ),
 * receive completions, the header check, credit policing, and the call
 * handle's accessors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "rdma_backward.h"
#include "rdma_internal.h"
#include "util/trace.h"

static void prep_one(struct rpcrdma_call *call)
{
	call->sge.addr = (uintptr_t)call->c.buf;
	call->sge.length = (uint32_t)call->c.pool->buf_size;
	call->sge.lkey = call->c.lkey;
	call->wr.wr_id = (uintptr_t)&call->c;
	call->wr.next = NULL;
	call->wr.sg_list = &call->sge;
	call->wr.num_sge = 1;
}

static int post_one(struct rpcrdma_call *call)
{
	struct ibv_recv_wr *bad;
	int err;

	prep_one(call);
	if (rpcrdma__call_on_srq(call))
		return -ibv_post_srq_recv(call->dev->srq, &call->wr, &bad);
	/* Before the post: its completion may come on another thread. */
	call->posted = true;
	err = -ibv_post_recv(call->conn->qp, &call->wr, &bad);
	if (err)
		call->posted = false;
	return err;
}

/*
 * The shared receive queue's reposts of this thread's batch (poller_int.h),
 * one device at a time: posted as one list when the batch ends, before its
 * replies (rpcrdma__batch_add_first), or when a repost for another device
 * comes.  Each stays counted in its device's srq_posting and srq_in until
 * then, so srq_quiesce waits for it (and flushes its own thread's first).
 */
static _Thread_local struct {
	struct rpcrdma__batch_item it;
	struct rpcrdma__dev *dev;
	struct ibv_recv_wr *head, *tail;
	unsigned n;
	bool listed;
} srqb;

/* Posts what srqb holds, as one list. */
static void srq_post_queued(void)
{
	struct rpcrdma__dev *dev = srqb.dev;
	struct ibv_recv_wr *bad = NULL, *w = srqb.head;
	unsigned n = srqb.n;

	srqb.head = srqb.tail = NULL;
	srqb.n = 0;
	srqb.dev = NULL;
	if (!n)
		return;
	if (rpcrdma__unlikely(ibv_post_srq_recv(dev->srq, w, &bad)))
		goto out_bad;
	atomic_fetch_sub(&dev->srq_posting, n);
	return;

out_bad:
	/* Only when the SRQ is broken: keep the buffers from bad on. */
	for (w = bad; w; w = w->next) {
		struct rpcrdma_call *call = rpcrdma__container_of(w, struct rpcrdma_call, wr);

		atomic_fetch_sub(&dev->srq_in, 1);
		rpcrdma__pool_put(&call->c);
		rpcrdma__count(&dev->l->stats, NULL, RPCRDMA_STAT_RQ_STARVED, 1);
	}
	atomic_fetch_sub(&dev->srq_posting, n);
}

/* The batch's end (its item, off the batch's list now). */
static void srq_flush(struct rpcrdma__batch_item *it)
{
	(void)it;
	srqb.listed = false;
	srq_post_queued();
}

/* Inside a batch: queues call's buffer for the SRQ (counted in srq_in and
 * srq_posting by the caller). */
static void srq_queue(struct rpcrdma_call *call)
{
	struct rpcrdma__dev *dev = call->dev;

	if (srqb.dev != dev && srqb.n)
		srq_post_queued();      /* another device's: its list goes now */
	prep_one(call);
	if (srqb.tail)
		srqb.tail->next = &call->wr;
	else
		srqb.head = &call->wr;
	srqb.tail = &call->wr;
	srqb.dev = dev;
	srqb.n++;
	if (!srqb.listed) {
		srqb.listed = true;
		srqb.it.flush = srq_flush;
		rpcrdma__batch_add_first(&srqb.it);
	}
}

int rpcrdma__recv_post_pool(struct rpcrdma__conn *conn, struct rpcrdma__pool *pool)
{
	struct rpcrdma__ctxt *c;

	while ((c = rpcrdma__pool_get(pool))) {
		struct rpcrdma_call *call = (struct rpcrdma_call *)c;
		int err;

		call->conn = conn;
		call->dev = conn->dev;
		rpcrdma__conn_get(conn);
		err = post_one(call);
		if (err) {
			rpcrdma__pool_put(c);
			atomic_fetch_sub(&conn->refs, 1);
			return err;
		}
	}
	return 0;
}

void rpcrdma__recv_repost(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;

	if (rpcrdma__call_on_srq(call)) {
		struct rpcrdma__dev *dev = call->dev;

		call->conn = NULL;
		/* seq_cst against srq_quiesce: it sees this repost under way,
		 * or this sees srq_dying */
		atomic_fetch_add(&dev->srq_posting, 1);
		if (atomic_load(&dev->srq_dying)) {
			rpcrdma__pool_put(&call->c);
		} else if (rpcrdma__batch_open()) {
			atomic_fetch_add(&dev->srq_in, 1);
			srq_queue(call);        /* srq_posting: until the flush */
			return;
		} else {
			atomic_fetch_add(&dev->srq_in, 1);
			if (post_one(call)) {
				/* Only fails when the SRQ is broken: keep the buffer. */
				atomic_fetch_sub(&dev->srq_in, 1);
				rpcrdma__pool_put(&call->c);
				rpcrdma__count(&dev->l->stats, NULL, RPCRDMA_STAT_RQ_STARVED, 1);
			}
		}
		atomic_fetch_sub(&dev->srq_posting, 1);
		return;
	}
	pthread_mutex_lock(&conn->lock);
	if (conn->state == RPCRDMA__CONN_CLOSING) {
		pthread_mutex_unlock(&conn->lock);
		rpcrdma__pool_put(&call->c);
		return;
	}
	rpcrdma__conn_get(conn);
	if (post_one(call)) {
		pthread_mutex_unlock(&conn->lock);
		rpcrdma__pool_put(&call->c);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_RQ_STARVED, 1);
		rpcrdma__conn_put(conn);
		return;
	}
	pthread_mutex_unlock(&conn->lock);
}

void rpcrdma__call_release(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;

	/* Every call handle was counted in rpcrdma__recv_done.  Its end is
	 * activity too: idle counts from the last call's end. */
	atomic_store_explicit(&conn->last_ns, rpcrdma__coarse_ns(), memory_order_relaxed);
	atomic_fetch_sub_explicit(&conn->outstanding, 1, memory_order_relaxed);
	if (call->send) {
		rpcrdma__send_put(call->send);
		call->send = NULL;
	}
	rpcrdma__mrcache_put(&call->dev->mrcache, &call->pulled);
	rpcrdma__mrcache_put(&call->dev->mrcache, &call->rbuf);
	if (call->rbw.held)
		rpcrdma__budget_release(call);
	rpcrdma__recv_repost(call);
	rpcrdma__conn_put(conn);       /* the call's reference */
}

static void garbage(struct rpcrdma__conn *conn, enum rpcrdma_stat why)
{
	unsigned limit = conn->l->opts.garbage_limit;
	bool close;

	rpcrdma__count(&conn->stats, &conn->l->stats, why, 1);
	pthread_mutex_lock(&conn->lock);
	close = limit && ++conn->garbage == limit;
	pthread_mutex_unlock(&conn->lock);
	if (close) {
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_POLICY_CLOSE, 1);
		rpcrdma__conn_close(conn, "too many malformed messages");
	}
}

/* A received call's xid (host order), for the probes: the checker may
 * stop before it fills hdr.xid. */
static inline uint32_t call_xid(const struct rpcrdma_call *call)
{
	uint32_t xid = 0;

	if (call->byte_len >= 4)
		memcpy(&xid, call->c.buf, 4);
	return ntohl(xid);
}

/* The checks and the hand-up of a received call that holds its send
 * context: on the poller thread, from its receive completion or from the
 * send completion that gave it the context. */
static void recv_process(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;
	struct rpcrdma_listener *l = conn->l;
	struct rpcrdma_limits limits = {
		.size = sizeof(limits),
		.max_chunk_bytes = l->opts.max_call_bytes > RPCRDMA__MAX_WRITE_CHUNK ?
				   l->opts.max_call_bytes : RPCRDMA__MAX_WRITE_CHUNK,
	};
	int ret;

	ret = rpcrdma_check_call_ex(call->c.buf, call->byte_len, &call->hdr, &limits);
	if (rpcrdma__unlikely(ret <= 0))
		goto out_bad;
	RPCRDMA_TRACE(call_recv, conn->conn_id, ntohl(call->hdr.xid), call->byte_len,
		      call->hdr.type, call->hdr.read_chunks, call->hdr.write_chunks,
		      call->hdr.reply_segments);
	if (call->hdr.read_chunks) {
		/* A client that accepts no RDMA Read (initiator depth 0 at
		 * accept) cannot send read chunks: they would never be pulled. */
		if (rpcrdma__unlikely(conn->max_reads == 0))
			goto out_chunk;
		ret = rpcrdma__budget_pull(call);
		if (ret)
			rpcrdma__recv_pull_failed(call, ret);
		return;                 /* delivered when the reads complete */
	}
	call->iov.iov_base = call->c.buf + ret;
	call->iov.iov_len = call->byte_len - (uint32_t)ret;
	rpcrdma__call_deliver(call);
	return;

out_bad:
	RPCRDMA_TRACE(call_reject, conn->conn_id, call_xid(call), ret, call->hdr.reason,
		      rpcrdma_check_reason_str(call->hdr.reason), call->byte_len);
	if (ret == 0)
		goto out_drop;          /* RDMA_DONE, RDMA_ERROR: quietly */
	if (ret == -EPROTONOSUPPORT) {
		garbage(conn, RPCRDMA_STAT_ERR_VERS);
		rpcrdma__send_error(call, true);
		return;
	}
	if (call->byte_len < 8) {
		/* Not even an xid and a version to answer to. */
		garbage(conn, RPCRDMA_STAT_ERR_SHORT);
		rpcrdma__call_release(call);
		return;
	}
	garbage(conn, call->hdr.reason == RPCRDMA_CHECK_SHORT ? RPCRDMA_STAT_ERR_SHORT :
							       RPCRDMA_STAT_ERR_CHUNK);
	rpcrdma__send_error(call, false);
	return;
out_chunk:
	RPCRDMA_TRACE(call_reject_reads, conn->conn_id, call_xid(call), call->hdr.read_chunks,
		      call->byte_len);
	garbage(conn, RPCRDMA_STAT_ERR_CHUNK);
	rpcrdma__send_error(call, false);
	return;
out_drop:
	rpcrdma__count(&conn->stats, &l->stats, RPCRDMA_STAT_ERR_DROPPED, 1);
	rpcrdma__call_release(call);
}

/*
 * Reserves the call's send context, or queues the call on conn->send_wait
 * (behind any call already there, in arrival order) and returns false; on
 * a closing connection (whose queue is flushed once) releases the call, and
 * when the connection's first call cannot make its send pool, closes it and
 * releases the call.
 */
static bool send_reserve(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;
	bool got, closing, nopool = false;

	pthread_mutex_lock(&conn->lock);
	closing = conn->state == RPCRDMA__CONN_CLOSING;
	/* The first call makes the send pool (an idle connection has none)
	 * and, without the SRQ, the rest of the grant's receives. */
	if (rpcrdma__unlikely(!closing && !conn->send_pool.ctxts))
		nopool = rpcrdma__conn_send_pool(conn) != 0 || rpcrdma__conn_recv_more(conn) != 0;
	if (!closing && !nopool && rpcrdma__list_empty(&conn->send_wait))
		call->send = rpcrdma__send_get(conn);
	got = call->send != NULL;
	if (!got && !closing && !nopool)
		rpcrdma__list_add_tail(&conn->send_wait, &call->c.node);
	pthread_mutex_unlock(&conn->lock);
	if (rpcrdma__unlikely(nopool))
		goto out_nopool;
	if (!got && !closing)
		RPCRDMA_TRACE(send_ctx_wait, conn->conn_id, call->byte_len);
	if (closing)
		rpcrdma__call_release(call);
	else if (!got)
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_SEND_WAITED, 1);
	return got;

out_nopool:
	/* No reply could ever be sent: as a QP that could not be made. */
	rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_ERR_DROPPED, 1);
	rpcrdma__conn_close(conn, "no memory for send or receive buffers");
	rpcrdma__call_release(call);
	return false;
}

void rpcrdma__recv_resume(struct rpcrdma__conn *conn)
{
	for (;;) {
		struct rpcrdma_call *call = NULL;
		struct rpcrdma__send *s = NULL;
		bool closing;

		pthread_mutex_lock(&conn->lock);
		closing = conn->state == RPCRDMA__CONN_CLOSING;
		if (!rpcrdma__list_empty(&conn->send_wait) &&
		    (closing || (s = rpcrdma__send_get(conn)) != NULL))
			call = rpcrdma__container_of(rpcrdma__list_pop(&conn->send_wait),
						     struct rpcrdma_call, c.node);
		pthread_mutex_unlock(&conn->lock);
		if (!call)
			return;
		call->send = s;
		if (closing)
			rpcrdma__call_release(call);
		else
			recv_process(call);
	}
}

void rpcrdma__recv_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct rpcrdma_call *call = rpcrdma__container_of(cqe, struct rpcrdma_call, c.cqe);
	struct rpcrdma__dev *dev = call->dev;
	struct rpcrdma_listener *l = dev->l;
	struct rpcrdma__conn *conn;
	bool on_srq = rpcrdma__call_on_srq(call);
	bool over;

	if (on_srq) {
		atomic_fetch_sub(&dev->srq_in, 1);
		/* The SRQ's buffers belong to no connection until one arrives. */
		conn = wc->status == IBV_WC_SUCCESS ? rpcrdma__dev_find_conn(dev, wc->qp_num) : NULL;
		if (!conn) {
			RPCRDMA_TRACE(recv_no_conn, 0, wc->qp_num, wc->status, wc->byte_len);
			rpcrdma__count(&l->stats, NULL, wc->status == IBV_WC_SUCCESS ?
				       RPCRDMA_STAT_ERR_DROPPED : RPCRDMA_STAT_FLUSHED, 1);
			rpcrdma__recv_repost(call);
			return;
		}
		call->conn = conn;      /* the reference from the lookup */
	} else {
		conn = call->conn;      /* the reference taken when posted */
		call->posted = false;
	}

	if (rpcrdma__unlikely(wc->status != IBV_WC_SUCCESS)) {
		rpcrdma__conn_wc_failed(conn, wc, "receive completion error");
		if (on_srq)
			rpcrdma__recv_repost(call);
		else
			rpcrdma__pool_put(&call->c);
		rpcrdma__conn_put(conn);
		return;
	}
	if (rpcrdma__unlikely(!atomic_load_explicit(&conn->established, memory_order_relaxed)))
		rpcrdma__conn_established(conn);
	call->byte_len = wc->byte_len;
	RPCRDMA__PCAP(l->pcap, rpcrdma__pcap_recv(l->pcap, &conn->pcap, conn->id, true, call->c.buf,
						  wc->byte_len));
	atomic_store_explicit(&conn->last_ns, rpcrdma__coarse_ns(), memory_order_relaxed);
	call->send = NULL;
	call->rbw.held = false;
	memset(&call->pulled, 0, sizeof(call->pulled));
	memset(&call->rbuf, 0, sizeof(call->rbuf));
	rpcrdma__count(&conn->stats, &l->stats, RPCRDMA_STAT_BYTES_RECV, wc->byte_len);

	/* The reply to a call the server sent back (RFC 8167): not a call,
	 * within its own receives (rdma_backward.c). */
	if (conn->bc_recvs && rpcrdma__bc_recv(call))
		return;
	/* The credit-overrun policy (xprt.h): a call is counted until it is
	 * ended, which for an early reply is just after its Send is posted,
	 * so a compliant client may be early_slack calls ahead of the count. */
	over = atomic_fetch_add_explicit(&conn->outstanding, 1, memory_order_relaxed) + 1 >
	       rpcrdma_credits_grant(&conn->credits) + dev->early_slack;
	if (rpcrdma__unlikely(over))
		goto out_credit;
	if (send_reserve(call))
		recv_process(call);
	return;			/* else handled when a send completes */

out_credit:
	RPCRDMA_TRACE(credit_overrun, conn->conn_id, atomic_load(&conn->outstanding),
		      rpcrdma_credits_grant(&conn->credits), dev->early_slack);
	rpcrdma__count(&conn->stats, &l->stats, RPCRDMA_STAT_ERR_CREDIT, 1);
	rpcrdma__count(&conn->stats, &l->stats, RPCRDMA_STAT_POLICY_CLOSE, 1);
	rpcrdma__conn_close(conn, "credit overrun");
	rpcrdma__call_release(call);
}

void rpcrdma__recv_pull_failed(struct rpcrdma_call *call, int err)
{
	struct rpcrdma__conn *conn = call->conn;

	RPCRDMA_TRACE(call_pull_fail, conn->conn_id, call_xid(call), err, call->pull_len);
	if (err == -EMSGSIZE || err == -EINVAL) {
		garbage(conn, RPCRDMA_STAT_ERR_CHUNK);
		rpcrdma__send_error(call, false);
		return;
	}
	rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_ERR_DROPPED, 1);
	rpcrdma__call_release(call);
}

void rpcrdma__call_deliver(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;
	struct rpcrdma_listener *l = conn->l;

	rpcrdma__count(&conn->stats, &l->stats, RPCRDMA_STAT_CALLS, 1);
	l->handler(call, l->handler_arg);
}

const struct iovec *rpcrdma_call_payload(const struct rpcrdma_call *call, unsigned *iovcnt)
{
	*iovcnt = 1;
	return &call->iov;
}

uint64_t rpcrdma_call_conn_id(const struct rpcrdma_call *call)
{
	return call->conn->conn_id;
}

const struct sockaddr *rpcrdma_call_peer(const struct rpcrdma_call *call, socklen_t *len)
{
	struct sockaddr *sa = rdma_get_peer_addr(call->conn->id);
	*len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
	return sa;
}

size_t rpcrdma_call_write_room(const struct rpcrdma_call *call)
{
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;

	rpcrdma_write_chunks(&call->hdr, &it);
	return rpcrdma_next_chunk(&it, &ch) ? ch.length : 0;
}

size_t rpcrdma_call_max_reply(const struct rpcrdma_call *call)
{
	struct rpcrdma_chunk ch;
	size_t max = call->conn->send_inline > RPCRDMA_HDRLEN_MIN ?
		     call->conn->send_inline - RPCRDMA_HDRLEN_MIN : 0;

	if (rpcrdma_reply_chunk(&call->hdr, &ch) && ch.length > max)
		max = ch.length;
	return max + rpcrdma_call_write_room(call);
}

int rpcrdma_call_reply_buffer(struct rpcrdma_call *call, size_t len, void **buf)
{
	int err;

	if (!call || !buf || len == 0)
		return -EINVAL;
	if (call->rbuf.mr)
		return -EBUSY;
	if (len > rpcrdma_call_max_reply(call))
		return -EMSGSIZE;
	err = rpcrdma__mrcache_get(&call->dev->mrcache, &call->rbuf, len);
	if (err)
		return err;
	*buf = call->rbuf.addr;
	return 0;
}

void rpcrdma_call_drop(struct rpcrdma_call *call)
{
	if (call)
		rpcrdma__call_release(call);
}
