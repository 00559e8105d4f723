/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's replies: a receive completion matched to its call by xid,
 * the reply decoded (RDMA_MSG, RDMA_NOMSG, RDMA_ERROR), the receive
 * posted again.
 */
#include <string.h>

#include "rdma_client_int.h"

/* Posts rv again, or gives it back to the pool on a dead connection.
 * Without the lock: a break right after the load is no different from one
 * right after the post, whose receive then flushes. */
static void reply_repost(struct cconn *cc, struct crecv *rv)
{
	if (atomic_load_explicit(&cc->dead, memory_order_acquire))
		rpcrdma__pool_put(&rv->c);
	else
		post_recv(cc, rv);
}

/* An error or flush completion: the receive goes back, the connection
 * breaks. */
static void recv_failed(struct rpcrdma_client *c, struct cconn *cc, struct crecv *rv,
			const struct ibv_wc *wc)
{
	rpcrdma__count(&c->stats, NULL, wc->status == IBV_WC_WR_FLUSH_ERR ?
		       RPCRDMA_STAT_FLUSHED : RPCRDMA_STAT_ERR_WC, 1);
	rpcrdma__pool_put(&rv->c);
	rpcrdma__client_break(c, cc, -ECONNRESET);
	cconn_put(cc);
}

/*
 * Takes the call that the reply h answers on cc out of the table and the
 * in-flight list, and follows the grant; false when no call waits for it.
 * Once out of the table and the in-flight list nothing else can reach
 * the call's creq: its fields are copied to *got and it goes back to the
 * cache under this same lock.  Calls queued now wait for the grant
 * this reply brings (or for a send buffer, which send completions
 * hand out): they are sent after the receive is posted again.
 */
static inline bool reply_match(struct rpcrdma_client *c, struct cconn *cc,
			       const struct rpcrdma_hdr *h, struct creq *got, bool *bufs,
			       bool *waiters)
{
	struct creq *r;
	bool found = false;

	pthread_mutex_lock(&c->lock);
	r = xid_find(c, h->xid, cc);
	if (r) {
		xid_del(c, r);
		rpcrdma__list_del(&r->node);
		c->inflight--;
		rpcrdma_client_credits_update(&c->credits, h->credits);
		/* What the rest needs, not the whole creq: the buffers only
		 * when the call had any (moved out, so r goes back empty). */
		got->call = r->call;
		got->done = r->done;
		got->arg = r->arg;
		*bufs = r->rd.mr || r->pz.mr || r->wr.mr || r->rp.mr;
		if (*bufs) {
			got->rd = r->rd;
			got->pz = r->pz;
			got->wr = r->wr;
			got->rp = r->rp;
			memset(&r->rd, 0, sizeof(r->rd));
			memset(&r->pz, 0, sizeof(r->pz));
			memset(&r->wr, 0, sizeof(r->wr));
			memset(&r->rp, 0, sizeof(r->rp));
		}
		creq_put(c, r);
		*waiters = !rpcrdma__list_empty(&c->waiting);
		found = true;
	}
	pthread_mutex_unlock(&c->lock);
	return found;
}

/* RDMA_ERROR: the call fails with what the server's error means. */
static inline int reply_error(const struct rpcrdma_hdr *h)
{
	return h->err == RPCRDMA_ERR_VERS ? -EPROTONOSUPPORT : -EREMOTEIO;
}

/* The write chunk (RDMA_MSG or RDMA_NOMSG): its length as the server
 * wrote it, the data out of the call's bounce buffer. */
static inline void reply_write_chunk(struct rpcrdma_client_call *call,
				     const struct rpcrdma_hdr *h, const struct creq *got, bool bufs)
{
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;

	rpcrdma_write_chunks(h, &it);
	if (rpcrdma_next_chunk(&it, &ch))
		call->bulk_got = ch.length;
	if (call->bulk_got && bufs && got->wr.mr)
		memcpy(call->reply_bulk, got->wr.addr, call->bulk_got < call->reply_bulk_len ?
							call->bulk_got : call->reply_bulk_len);
}

/* RDMA_NOMSG: the reply came by reply chunk into the call's bounce
 * buffer. */
static inline void reply_nomsg(struct rpcrdma_client_call *call, const struct rpcrdma_hdr *h,
			       const struct creq *got, bool bufs)
{
	struct rpcrdma_chunk ch;

	if (rpcrdma_reply_chunk(h, &ch))
		call->reply_got = ch.length;
	if (bufs && got->rp.mr)
		memcpy(call->reply_buf, got->rp.addr,
		       call->reply_got < call->reply_len ? call->reply_got : call->reply_len);
}

/* RDMA_MSG: the reply follows the header inline, len bytes at body. */
static inline void reply_msg(struct rpcrdma_client_call *call, const uint8_t *body, size_t len)
{
	call->reply_got = len;
	memcpy(call->reply_buf, body, len < call->reply_len ? len : call->reply_len);
}

/* The call's status from its reply, with the reply and bulk data in the
 * caller's buffers (-EMSGSIZE when they were too short). */
static inline int reply_decode(struct rpcrdma_client_call *call, const struct rpcrdma_hdr *h,
			       const struct creq *got, bool bufs, const uint8_t *body, size_t len)
{
	if (h->type == RPCRDMA_ERROR)
		return reply_error(h);
	reply_write_chunk(call, h, got, bufs);
	if (h->type == RPCRDMA_NOMSG)
		reply_nomsg(call, h, got, bufs);
	else
		reply_msg(call, body, len);
	if (call->bulk_got > call->reply_bulk_len || call->reply_got > call->reply_len)
		return -EMSGSIZE;
	return 0;
}

void rpcrdma__client_recv_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct crecv *rv = rpcrdma__container_of(cqe, struct crecv, c.cqe);
	struct cconn *cc = rv->cc;
	struct rpcrdma_client *c = cc->c;
	struct rpcrdma_hdr h;
	struct creq got;
	bool found = false, waiters = false, bufs = false, early;
	uint32_t byte_len = wc->byte_len;
	int ret, status = 0;

	if (wc->status == IBV_WC_SUCCESS)
		RPCRDMA__PCAP(c->pcap, rpcrdma__pcap_recv(c->pcap, &cc->pcap, cc->id, false,
							  rv->c.buf, byte_len));
	if (wc->status != IBV_WC_SUCCESS) {
		recv_failed(c, cc, rv, wc);
		return;
	}
	if (rpcrdma__client_bc_recv(c, cc, rv, byte_len))
		return;                 /* a call from the server */
	ret = rpcrdma_check_reply(rv->c.buf, wc->byte_len, &h);
	if (ret > 0)
		found = reply_match(c, cc, &h, &got, &bufs, &waiters);
	if (found)
		status = reply_decode(got.call, &h, &got, bufs, rv->c.buf + ret,
				      wc->byte_len - (uint32_t)ret);
	else
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_ERR_DROPPED, 1);
	/*
	 * The caller hears of its reply before the receive is posted again
	 * (the repost is off the round trip), while no more than the slack
	 * of replies are between their callback and their repost: the queue
	 * holds that many receives beyond our credits, so replies to calls
	 * sent meanwhile (the callback's, the pump's) find one.
	 */
	early = found && rpcrdma__early_enter(&cc->early_open, cc->early_slack);
	if (!early)
		reply_repost(cc, rv);
	/* How the reply came, read before done hands the call back. */
	bool by_write = found && got.call->bulk_got, by_rchunk = found && h.type == RPCRDMA_NOMSG;
	if (found) {
		if (bufs)
			rpcrdma__client_req_release(cc, &got);
		got.done(got.call, status, got.arg);
		if (waiters)
			rpcrdma__client_pump(c);
	}
	if (early) {
		reply_repost(cc, rv);
		rpcrdma__early_leave(&cc->early_open);
	}
	/* Counted after the callback, off the round trip. */
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_BYTES_RECV, byte_len);
	if (found && h.type != RPCRDMA_ERROR) {
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_REPLIES, 1);
		if (by_write)
			rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_REPLIES_WRITE, 1);
		if (by_rchunk)
			rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_REPLIES_RCHUNK, 1);
		if (!by_write && !by_rchunk)
			rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_REPLIES_INLINE, 1);
	}
	cconn_put(cc);
}
