/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client's calls: the choice of chunks (inline, read chunk at its
 * position, position zero, write and reply chunks), the Send, the queue
 * of calls waiting for the grant and its pump, and send completions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_client_int.h"

static struct rpcrdma_segment mr_seg(const struct rpcrdma__mrbuf *b)
{
	struct rpcrdma_segment s = {
		.handle = b->mr->rkey,
		.length = (uint32_t)b->len,
		.offset = (uintptr_t)b->addr,
	};
	return s;
}

/* A call's RPC-over-RDMA header as planned, and the chunk lists it
 * points into (req_send's frame). */
struct req_plan {
	struct rpcrdma_call_desc d;
	struct rpcrdma_read_segment rs[2];
	struct rpcrdma_segment ws, rps;
	uint32_t wsegs;
	size_t total;                   /* the call's bytes */
	size_t cut, cutlen;             /* the data item moved by read chunk */
};

/* The write chunk for the reply's bulk data and the reply chunk for a
 * reply too long to receive inline, registered. */
static inline int req_write_chunks(struct rpcrdma_client *c, struct cconn *cc, struct creq *r,
				   struct req_plan *p)
{
	struct rpcrdma_client_call *call = r->call;
	int err;

	if (call->reply_bulk && call->reply_bulk_len) {
		err = rpcrdma__client_bufs_get(cc, &r->wr, call->reply_bulk_len, BUF_WRITE);
		if (err)
			return err;
		p->ws = mr_seg(&r->wr);
		p->d.writes = &p->ws;
		p->d.nwrites = 1;
		p->d.write_chunk_segs = &p->wsegs;
		p->d.write_chunks = 1;
	}
	if (call->reply_len + RPCRDMA_HDRLEN_MIN > c->opts.recv_inline) {
		err = rpcrdma__client_bufs_get(cc, &r->rp, call->reply_len, BUF_WRITE);
		if (err)
			return err;
		p->rps = mr_seg(&r->rp);
		p->d.has_reply = true;
		p->d.reply = &p->rps;
		p->d.nreply = 1;
	}
	return 0;
}

/*
 * Too long to send inline: the data item by read chunk at its
 * position, the rest inline (RDMA_MSG); when even the rest does not
 * fit, the rest by position-zero read chunk (RDMA_NOMSG) with the
 * data item still in its own read chunk at its position in the call
 * (RFC 8166 section 3.5.3); without a data item, the whole call by
 * position-zero read chunk.
 */
static inline int req_read_chunks(struct rpcrdma_client *c, struct cconn *cc, struct creq *r,
				  struct req_plan *p)
{
	struct rpcrdma_client_call *call = r->call;
	uint32_t nrs = 0;
	size_t hmax, total = p->total;
	int err;

	/* RDMA_MSG, no read chunk (all empty lists: the shortest header) */
	hmax = p->d.nwrites || p->d.has_reply ? rpcrdma_call_hdr_size(&p->d) : RPCRDMA_HDRLEN_MIN;
	if (hmax + total <= cc->send_max)
		return 0;
	hmax += RPCRDMA_READ_ENTRY_SIZE;          /* RDMA_MSG + 1 entry */
	if (call->bulk_length) {
		size_t pad = (4 - (call->bulk_length & 3)) & 3;

		p->cut = call->bulk_offset;
		p->cutlen = call->bulk_length;
		if (pad <= total - p->cut - p->cutlen)
			p->cutlen += pad;
		err = rpcrdma__client_bufs_get(cc, &r->rd, call->bulk_length, BUF_READ);
		if (err)
			return err;
		rpcrdma__iov_copy(r->rd.addr, call->iov, call->iovcnt, p->cut, call->bulk_length);
	}
	if (!call->bulk_length || hmax + total - p->cutlen > cc->send_max) {
		/* The call (without the data item) by position zero. */
		err = rpcrdma__client_bufs_get(cc, &r->pz, total - p->cutlen, BUF_READ);
		if (err)
			return err;
		rpcrdma__iov_copy_without(r->pz.addr, call->iov, call->iovcnt, total, p->cut,
					  p->cutlen);
		p->rs[nrs].position = 0;
		p->rs[nrs++].seg = mr_seg(&r->pz);
		p->d.type = RPCRDMA_NOMSG;
	}
	if (call->bulk_length) {
		p->rs[nrs].position = (uint32_t)p->cut;
		p->rs[nrs++].seg = mr_seg(&r->rd);
	}
	p->d.reads = p->rs;
	p->d.nreads = nrs;
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_CALLS_READ, 1);
	return 0;
}

/* ---- posting: a batch's Sends in one ibv_post_send ---- */

/* Client lock held: gives back the queued Sends from w to the end of its
 * chain, never posted: their contexts to the pool, their references (the
 * batch's keeps cc). */
static void queue_release(struct cconn *cc, struct ibv_send_wr *w)
{
	int n = 0;

	while (w) {
		struct csend *s = rpcrdma__container_of(w, struct csend, wr);

		w = w->next;
		rpcrdma__list_del(&s->c.node);
		rpcrdma__pool_put_owned(&s->c);
		n++;
	}
	if (n)
		atomic_fetch_sub_explicit(&cc->refs, n, memory_order_acq_rel);
}

/* A post behind queued Sends failed at bad: those of them from bad on
 * (all when the provider did not say) go back and the flush breaks cc. */
static void queue_lost(struct cconn *cc, struct ibv_send_wr *queued, struct ibv_send_wr *tail,
		       struct ibv_send_wr *bad)
{
	struct ibv_send_wr *w = queued;

	while (w && w != bad && w != tail)
		w = w->next;
	if (w != bad && tail != bad)
		bad = queued;   /* not among them: the provider posted none */
	tail->next = NULL;
	queue_release(cc, bad);
	cc->bq_lost = true;
}

/* Client lock held: posts wr (NULL: nothing more) behind the Sends the
 * batch queued, as one list; 0 or the provider's error (queued Sends that
 * did not go out: queue_lost). */
static int post_locked(struct cconn *cc, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL, *head = wr, *queued = cc->bq_head, *tail = cc->bq_tail;
	int err;

	if (queued) {
		tail->next = wr;
		head = queued;
		cc->bq_head = cc->bq_tail = NULL;
	}
	if (!head)
		return 0;
	err = rpcrdma__post_send(cc->qp, head, &bad);
	if (rpcrdma__unlikely(err && queued && bad != wr))
		queue_lost(cc, queued, tail, bad);
	return err;
}

/* The end of the batch that queued cc's Sends: one post for them all; on
 * a dead connection they go back, never posted. */
static void client_batch_flush(struct rpcrdma__batch_item *it)
{
	struct cconn *cc = rpcrdma__container_of(it, struct cconn, bq);
	struct rpcrdma_client *c = cc->c;
	bool lost;

	pthread_mutex_lock(&c->lock);
	cc->bq_listed = false;
	if (cc->dead) {
		/* The drain, which gives back what is before it, empties
		 * the queue as it goes: it has not gone yet. */
		queue_release(cc, cc->bq_head);
		cc->bq_head = cc->bq_tail = NULL;
	} else {
		post_locked(cc, NULL);
	}
	lost = cc->bq_lost;
	cc->bq_lost = false;
	pthread_mutex_unlock(&c->lock);
	if (rpcrdma__unlikely(lost)) {
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SENDS_BATCH_LOST, 1);
		rpcrdma__client_break(c, cc, -ECONNRESET);
	}
	cconn_put(cc);          /* the batch's reference */
}

/* Client lock held, inside a batch: queues wr, posted at the batch's end. */
static void queue_locked(struct rpcrdma_client *c, struct cconn *cc, struct ibv_send_wr *wr)
{
	if (cc->bq_head) {
		cc->bq_tail->next = wr;
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SENDS_BATCHED, 1);
	} else {
		cc->bq_head = wr;
	}
	cc->bq_tail = wr;
	if (!cc->bq_listed) {
		cc->bq_listed = true;
		cc->bq.flush = client_batch_flush;
		atomic_fetch_add(&cc->refs, 1);
		rpcrdma__batch_add(&cc->bq);
	}
}

int rpcrdma__client_post(struct rpcrdma_client *c, struct cconn *cc, struct csend *s, bool sig)
{
	int err = 0;

	s->wr.next = NULL;
	atomic_fetch_add(&cc->refs, 1);
	RPCRDMA__PCAP(c->pcap, rpcrdma__pcap_post(c->pcap, &cc->pcap, cc->id, false, &s->wr));
	/* A call made in a completion round (a done callback's, the pump's)
	 * goes out with the round's others; one made outside it at once. */
	if (rpcrdma__batch_open())
		queue_locked(c, cc, &s->wr);
	else
		err = post_locked(cc, &s->wr);
	if (err) {
		atomic_fetch_sub(&cc->refs, 1);
		return -err;
	}
	cc->unsignaled = sig ? 0 : cc->unsignaled + 1;
	rpcrdma__list_add_tail(&cc->posted, &s->c.node);
	return 0;
}

/* ---- sending ---- */

/* Posts s, len bytes long, as r's Send on cc, one in sig_every
 * signaled; 0 or the provider's error. */
static inline int req_post(struct rpcrdma_client *c, struct cconn *cc, struct creq *r,
			   struct csend *s, uint32_t len)
{
	int err;

	s->cc = cc;
	s->sge.addr = (uintptr_t)s->c.buf;
	s->sge.length = len;
	s->sge.lkey = s->c.lkey;
	/* Every field a Send's provider reads (no memset of the rest). */
	s->wr.wr_id = (uintptr_t)&s->c;
	s->wr.imm_data = 0;
	s->wr.sg_list = &s->sge;
	s->wr.num_sge = 1;
	s->wr.opcode = IBV_WR_SEND;
	bool sig = cc->unsignaled + 1 >= cc->sig_every;

	s->wr.send_flags = sig ? IBV_SEND_SIGNALED : 0;
	if (s->sge.length <= cc->max_inline)
		s->wr.send_flags |= IBV_SEND_INLINE;
	r->cc = cc;
	err = rpcrdma__client_post(c, cc, s, sig);
	if (err)
		return err;
	if (s->wr.send_flags & IBV_SEND_INLINE)
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SENDS_INLINE, 1);
	if (!sig)
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SENDS_UNSIGNALED, 1);
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_CALLS, 1);
	rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_BYTES_SENT, s->sge.length);
	return 0;
}

/* Builds and posts the Send of r on cc (client lock held): the chunks,
 * the header, the inline body, the Send. */
static int req_send(struct rpcrdma_client *c, struct cconn *cc, struct creq *r)
{
	struct rpcrdma_client_call *call = r->call;
	struct req_plan p;     /* not zeroed: the segments are set as used */
	size_t body;
	struct csend *s;
	int hlen, err;

	memset(&p.d, 0, sizeof(p.d));
	p.d.xid = r->xid;
	p.d.credits = c->opts.max_credits;
	p.d.type = RPCRDMA_MSG;
	p.wsegs = 1;
	p.total = rpcrdma__iov_total(call->iov, call->iovcnt);
	p.cut = p.cutlen = 0;
	s = (struct csend *)rpcrdma__pool_get_owned(&cc->send_pool);
	if (!s)
		return -ENOBUFS;
	err = req_write_chunks(c, cc, r, &p);
	if (err)
		goto fail;
	err = req_read_chunks(c, cc, r, &p);
	if (err)
		goto fail;
	hlen = rpcrdma_encode_call(s->c.buf, s->c.pool->buf_size, &p.d);
	body = p.d.type == RPCRDMA_NOMSG ? 0 : p.total - p.cutlen;
	if (hlen < 0 || (size_t)hlen + body > cc->send_max) {
		err = hlen < 0 ? hlen : -EMSGSIZE;
		goto fail;
	}
	if (body)
		rpcrdma__iov_copy_without(s->c.buf + hlen, call->iov, call->iovcnt, p.total, p.cut,
					  p.cutlen);
	err = req_post(c, cc, r, s, (uint32_t)(hlen + body));
	if (err)
		goto fail;
	return 0;
fail:
	rpcrdma__client_req_release(cc, r);
	rpcrdma__pool_put_owned(&s->c);
	return err;
}

/* Sends waiting calls while the grant allows (client lock held).  Calls
 * that cannot be encoded are moved to *failed. */
static void pump_locked(struct rpcrdma_client *c, struct rpcrdma__list *failed, int *status)
{
	struct cconn *cc = c->cc;

	while (cc && !cc->dead && !rpcrdma__list_empty(&c->waiting) &&
	       c->inflight < rpcrdma_client_credits_grant(&c->credits)) {
		struct creq *r = rpcrdma__container_of(c->waiting.next, struct creq, node);
		int err = req_send(c, cc, r);

		if (err == -ENOBUFS) {
			/* send buffers come back with send completions */
			rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SEND_WAITED, 1);
			break;
		}
		rpcrdma__list_del(&r->node);
		if (err) {
			*status = err;
			xid_del(c, r);
			rpcrdma__list_add_tail(failed, &r->node);
			continue;
		}
		rpcrdma__list_add_tail(&c->sent, &r->node);
		if (++c->inflight > c->max_inflight)
			c->max_inflight = c->inflight;
	}
}

/* Sends what the grant and the send buffers allow; fails what cannot be
 * sent. */
void rpcrdma__client_pump(struct rpcrdma_client *c)
{
	struct rpcrdma__list failed;
	int status = 0;

	rpcrdma__list_init(&failed);
	pthread_mutex_lock(&c->lock);
	pump_locked(c, &failed, &status);
	pthread_mutex_unlock(&c->lock);
	while (!rpcrdma__list_empty(&failed)) {
		struct creq *r = rpcrdma__container_of(rpcrdma__list_pop(&failed), struct creq, node);

		r->done(r->call, status, r->arg);
		free(r);
	}
}

/* Returns 0 with a current connection, connecting when there is none
 * (unless the reconnect backoff holds the try back: its error then). */
static inline int client_connected(struct rpcrdma_client *c)
{
	/* The common case, without locks: rpcrdma_client_call_async checks
	 * the connection again under the client lock. */
	if (atomic_load_explicit(&c->ready, memory_order_acquire))
		return 0;
	return rpcrdma__client_connect(c);
}

int rpcrdma_client_call_async(struct rpcrdma_client *c, struct rpcrdma_client_call *call,
			      rpcrdma_client_done done, void *arg)
{
	struct creq *r;
	uint32_t xid;
	size_t total;
	int err;

	if (!c || !call || !done || call->size < sizeof(*call) || !call->iov)
		return -EINVAL;
	total = rpcrdma__iov_total(call->iov, call->iovcnt);
	if (total < 4 || (call->reply_len && !call->reply_buf) ||
	    call->bulk_offset + call->bulk_length > total ||
	    (call->bulk_length && (call->bulk_offset < 4 || (call->bulk_offset & 3))))
		return -EINVAL;
	err = client_connected(c);
	if (err)
		return err;
	if (rpcrdma__likely(call->iov[0].iov_len >= 4))
		memcpy(&xid, call->iov[0].iov_base, 4);
	else
		rpcrdma__iov_copy((uint8_t *)&xid, call->iov, call->iovcnt, 0, 4);
	call->reply_got = call->bulk_got = 0;
	pthread_mutex_lock(&c->lock);
	if (!c->cc || c->cc->dead) {
		/* Broken since we connected: nothing would ever send or fail a
		 * call queued now. */
		pthread_mutex_unlock(&c->lock);
		return -ENOTCONN;
	}
	r = creq_get(c);
	if (!r) {
		pthread_mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	r->call = call;
	r->done = done;
	r->arg = arg;
	r->xid = xid;
	err = xid_add(c, r);
	if (err) {
		creq_put(c, r);
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	/*
	 * Sent at once when nothing waits before it and the grant allows; a
	 * call that cannot be sent then is refused here (done is never
	 * called on the caller's thread, which may hold the lock its done
	 * callback takes).  Otherwise it waits: a reply (grant) or a send
	 * completion (send buffer) pumps the queue, a break fails it.
	 */
	if (rpcrdma__list_empty(&c->waiting) &&
	    c->inflight < rpcrdma_client_credits_grant(&c->credits)) {
		err = req_send(c, c->cc, r);
		if (!err) {
			rpcrdma__list_add_tail(&c->sent, &r->node);
			if (++c->inflight > c->max_inflight)
				c->max_inflight = c->inflight;
			pthread_mutex_unlock(&c->lock);
			return 0;
		}
		if (err != -ENOBUFS) {
			xid_del(c, r);
			creq_put(c, r);
			pthread_mutex_unlock(&c->lock);
			return err;
		}
		rpcrdma__count(&c->stats, NULL, RPCRDMA_STAT_SEND_WAITED, 1);
	}
	rpcrdma__list_add_tail(&c->waiting, &r->node);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* ---- completions ---- */

void rpcrdma__client_send_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct csend *s = rpcrdma__container_of(cqe, struct csend, c.cqe);
	struct cconn *cc = s->cc;
	struct rpcrdma_client *c = cc->c;
	/* A call that found no send buffer waits in c->waiting (under the
	 * client lock, as the buffers come back): the pump sends it. */
	bool waiters = rpcrdma__client_send_release(c, cc, s);

	if (wc->status != IBV_WC_SUCCESS) {
		if (s != cc->drain)
			rpcrdma__count(&c->stats, NULL, wc->status == IBV_WC_WR_FLUSH_ERR ?
				       RPCRDMA_STAT_FLUSHED : RPCRDMA_STAT_ERR_WC, 1);
		rpcrdma__client_break(c, cc, -ECONNRESET);
	} else if (waiters) {
		rpcrdma__client_pump(c);
	}
	cconn_put(cc);
}
