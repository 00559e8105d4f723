/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Server send path: choosing how a reply travels (inline, write chunk,
 * reply chunk), encoding its transport header, RDMA_ERROR messages, Send
 * (With Invalidate), and send completions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdma_internal.h"
#include "util/trace.h"

static void send_reset(struct rpcrdma__send *s, struct rpcrdma__conn *conn)
{
	s->conn = conn;
	s->wrs = NULL;
	s->sges = NULL;
	s->nwr = 0;
	s->failed = false;
	s->bulk_region = false;
	s->quiet.c.cqe.done = rpcrdma__write_quiet_done;
	s->quiet.owner = &s->c;
	memset(&s->bulk, 0, sizeof(s->bulk));
}

struct rpcrdma__send *rpcrdma__send_get(struct rpcrdma__conn *conn)
{
	struct rpcrdma__send *s = (struct rpcrdma__send *)rpcrdma__pool_get(&conn->send_pool);

	if (s)
		send_reset(s, conn);
	return s;
}

/* What s holds besides its context. */
static void send_clear(struct rpcrdma__send *s)
{
	if (!s->bulk_region)
		rpcrdma__mrcache_put(&s->conn->dev->mrcache, &s->bulk);
}

static void send_free(struct rpcrdma__send *s)
{
	send_clear(s);
	rpcrdma__pool_put(&s->c);
}

void rpcrdma__send_put(struct rpcrdma__send *s)
{
	send_free(s);
}

/* The call's reserved send context, taken from it; counted and NULL when
 * it has none (a bug: every call reserves one before it is handled). */
static struct rpcrdma__send *send_take(struct rpcrdma_call *call)
{
	struct rpcrdma__send *s = call->send;

	call->send = NULL;
	if (rpcrdma__unlikely(!s))
		rpcrdma__count(&call->conn->stats, &call->conn->l->stats,
			       RPCRDMA_STAT_SEND_DROPPED, 1);
	return s;
}

void rpcrdma__send_abort(struct rpcrdma__send *s)
{
	struct rpcrdma__conn *conn = s->conn;

	send_free(s);
	rpcrdma__conn_put(conn);
}

void rpcrdma__sends_release(struct rpcrdma__list *done)
{
	struct rpcrdma__conn *conn;
	unsigned n = 0;

	if (rpcrdma__list_empty(done))
		return;
	conn = rpcrdma__container_of(done->next, struct rpcrdma__send, c.node)->conn;
	for (struct rpcrdma__list *x = done->next; x != done; x = x->next, n++)
		send_clear(rpcrdma__container_of(x, struct rpcrdma__send, c.node));
	/* One connection's Sends: back to its pool at once, to the calls
	 * waiting for them, then their references (the last may free conn). */
	rpcrdma__pool_put_list(&conn->send_pool, done, n);
	rpcrdma__recv_resume(conn);
	while (n--)
		rpcrdma__conn_put(conn);
}

void rpcrdma__send_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct rpcrdma__send *s = rpcrdma__container_of(cqe, struct rpcrdma__send, c.cqe);
	struct rpcrdma__conn *conn = s->conn;
	struct rpcrdma__list done;

	/* The Send, the chain's one signaled WR (or a silent one's flush):
	 * done with the chain, and with the silent Sends posted before it.
	 * Each holds a reference, so conn lives until the last is released. */
	if (rpcrdma__unlikely(wc->status != IBV_WC_SUCCESS))
		rpcrdma__conn_wc_failed(conn, wc, "send completion error");
	/* A chain's RDMA Writes completed before its Send. */
	if (s->nwr > 1)
		RPCRDMA_TRACE(write_done, conn->conn_id, s->nwr - 1, wc->status);
	RPCRDMA_TRACE(send_done, conn->conn_id, s->nwr, wc->status);
	rpcrdma__list_init(&done);
	rpcrdma__conn_sends_done(conn, &s->c.node, &done);
	rpcrdma__sends_release(&done);
}

/* The handle a Send With Invalidate may invalidate: the first one the call
 * advertised (read list, else write list, else reply chunk). */
static bool inv_rkey(const struct rpcrdma_hdr *hdr, uint32_t *rkey)
{
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;
	struct rpcrdma_segment seg;

	rpcrdma_read_chunks(hdr, &it);
	if (rpcrdma_next_chunk(&it, &ch) && rpcrdma_next_segment(&ch, &seg))
		goto found;
	rpcrdma_write_chunks(hdr, &it);
	if (rpcrdma_next_chunk(&it, &ch) && rpcrdma_next_segment(&ch, &seg))
		goto found;
	if (rpcrdma_reply_chunk(hdr, &ch) && rpcrdma_next_segment(&ch, &seg))
		goto found;
	return false;
found:
	*rkey = seg.handle;
	return true;
}

static void prep_send(struct rpcrdma__send *s, struct ibv_send_wr *wr, struct ibv_sge *sge,
		      uint32_t len, const struct rpcrdma_hdr *call_hdr)
{
	struct rpcrdma__conn *conn = s->conn;
	uint32_t rkey;

	sge->addr = (uintptr_t)s->c.buf;
	sge->length = len;
	sge->lkey = s->c.lkey;
	/* Every field a Send's provider reads; the rest (wr.rdma, imm_data)
	 * is not looked at for IBV_WR_SEND. */
	wr->wr_id = (uintptr_t)&s->c;
	wr->next = NULL;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->invalidate_rkey = 0;
	if (len <= conn->max_inline)
		wr->send_flags |= IBV_SEND_INLINE;
	if (conn->peer_rinv && call_hdr && inv_rkey(call_hdr, &rkey)) {
		wr->opcode = IBV_WR_SEND_WITH_INV;
		wr->invalidate_rkey = rkey;
		/* libsiw (rdma-core's soft-iWARP) takes the STag to invalidate
		 * from wr.rdma.rkey; the others ignore wr.rdma for a Send. */
		wr->wr.rdma.rkey = rkey;
	}
}

/* Counts a Send of len bytes: after its post, off the reply's path (the
 * caller read len and inline from the WR before posting it, as a Send's
 * context may go back to the pool as soon as it is posted). */
static void count_send(struct rpcrdma__conn *conn, uint32_t len, bool inline_)
{
	if (inline_)
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_SENDS_INLINE, 1);
	rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_BYTES_SENT, len);
}

void rpcrdma__send_error(struct rpcrdma_call *call, bool vers)
{
	struct rpcrdma__conn *conn = call->conn;
	struct rpcrdma__send *s = send_take(call);
	struct rpcrdma_hdr h = call->hdr;
	int len;

	if (!s) {
		rpcrdma__call_release(call);
		return;
	}
	/* The checker may stop before the xid and version are filled. */
	memcpy(&h.xid, call->c.buf, 4);
	if (!vers)
		h.vers = RPCRDMA_PROTO_VERSION;
	len = vers ? rpcrdma_encode_err_vers(s->c.buf, s->c.pool->buf_size, &h,
					     rpcrdma_credits_word(&conn->credits)) :
		     rpcrdma_encode_err_chunk(s->c.buf, s->c.pool->buf_size, &h,
					      rpcrdma_credits_word(&conn->credits));
	if (len < 0) {
		send_free(s);
		rpcrdma__call_release(call);
		return;
	}
	s->wrs = &s->send_wr;
	s->sges = &s->send_sge;
	prep_send(s, s->wrs, s->sges, (uint32_t)len, NULL);
	RPCRDMA_TRACE(error_sent, conn->conn_id, ntohl(h.xid),
		      vers ? RPCRDMA_ERR_VERS : RPCRDMA_ERR_CHUNK, h.reason);
	count_send(conn, (uint32_t)len, s->wrs->send_flags & IBV_SEND_INLINE);
	s->nwr = 1;
	/* Repost the receive before the client can learn it may send again. */
	rpcrdma__conn_get(conn);
	rpcrdma__call_release(call);
	if (rpcrdma__conn_post_reply(conn, s->wrs, 1, &s->c.node))
		send_free(s);
	rpcrdma__conn_put(conn);
}

/*
 * Where [off, off + len) of the reply lies in b, when that range is the
 * bytes of one iovec inside b's registered memory; -1 otherwise.
 */
static ptrdiff_t in_registered(const struct rpcrdma__mrbuf *b, const struct rpcrdma_reply *r,
			       size_t off, size_t len)
{
	if (!b->mr)
		return -1;
	for (unsigned i = 0; i < r->iovcnt; i++) {
		if (off >= r->iov[i].iov_len) {
			off -= r->iov[i].iov_len;
			continue;
		}
		if (r->iov[i].iov_len - off < len)
			return -1;
		uintptr_t p = (uintptr_t)r->iov[i].iov_base + off, a = (uintptr_t)b->addr;

		if (p < a || p - a > b->len || len > b->len - (p - a))
			return -1;
		return (ptrdiff_t)(p - a);
	}
	return -1;
}

/*
 * The same for the listener's registered regions (rpcrdma_listener_register)
 * on conn's device; *b then describes the region (the listener's: never
 * freed or cached here).
 */
static ptrdiff_t in_region(const struct rpcrdma__conn *conn, const struct rpcrdma_reply *r,
			   size_t off, size_t len, struct rpcrdma__mrbuf *b)
{
	const struct rpcrdma_listener *l = conn->l;
	unsigned n = atomic_load_explicit(&l->nregions, memory_order_acquire);

	for (unsigned i = 0; i < n; i++) {
		struct rpcrdma__mrbuf t = {
			.addr = (uint8_t *)(uintptr_t)l->regions[i].addr,
			.len = l->regions[i].len,
			.cap = l->regions[i].len,
			.mr = conn->dev->region_mr[i],
		};
		ptrdiff_t at = in_registered(&t, r, off, len);

		if (at >= 0) {
			*b = t;
			return at;
		}
	}
	return -1;
}

/*
 * Soft-RoCE rings its Send doorbell with a uverbs write command, which the
 * kernel refuses (ib_safe_file_access: EACCES) from a thread whose
 * credentials are not those the device file was opened with; in rdma-core
 * 44 its other commands go by ioctl, which is not checked (seen in the VM:
 * after a setfsuid round trip only ibv_post_send failed).  So the exact
 * probe is a post: one WR with one SGE more than the QP takes, which every provider
 * refuses before queuing anything (the verbs rule: nothing from bad_wr on
 * is posted), soft-RoCE only after ringing the doorbell, whose refusal it
 * reports first.  Other providers post without a system call, and answer
 * EINVAL or ENOMEM without one.  It is asked only after the kernel
 * refused a write of no bytes (see rpcrdma__call_may_post).
 */
#define PROBE_SGE_MAX 64

/*
 * ib_uverbs_write and ucma_write check the caller's credentials (EACCES)
 * before a command's length (EINVAL for one shorter than its header), so a
 * write of no bytes asks the kernel without doing anything.
 */
int rpcrdma__may_command(int fd)
{
	if (write(fd, &fd, 0) < 0 && (errno == EACCES || errno == EPERM))
		return -EACCES;
	return 0;
}

int rpcrdma__call_may_post(const struct rpcrdma_call *call)
{
	struct ibv_sge sge[PROBE_SGE_MAX];
	struct ibv_send_wr wr, *bad = NULL;
	struct rpcrdma__conn *conn;
	int rc;

	if (!call || !call->conn)
		return -EINVAL;
	conn = call->conn;
	/*
	 * First the cheap question, to the uverbs file.  Accepted: any
	 * command would be, the post too.  (The probe post below rings
	 * soft-RoCE's doorbell, which runs its requester in the kernel for
	 * nothing.)  Refused: only a post tells whether this provider needs
	 * a command to post at all.
	 */
	if (rpcrdma__may_command(conn->dev->verbs->cmd_fd) == 0)
		return 0;
	if (conn->max_send_sge >= PROBE_SGE_MAX)
		return -ENOTSUP;
	memset(sge, 0, sizeof(sge));
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	wr.num_sge = (int)conn->max_send_sge + 1;
	wr.opcode = IBV_WR_SEND;
	/* Under the lock: an iWARP close destroys the QP (conn_quiet). */
	pthread_mutex_lock(&conn->lock);
	rc = conn->qp && conn->state != RPCRDMA__CONN_CLOSING ? ibv_post_send(conn->qp, &wr, &bad)
							       : 0;
	pthread_mutex_unlock(&conn->lock);
	if (rc == EACCES || rc == EPERM)
		return -EACCES;
	return 0;
}

/* How a reply travels, chosen before anything is copied (reply_plan). */
struct reply_plan {
	size_t total;                   /* the reply's bytes */
	size_t cut, cutlen;             /* the bulk item (with its XDR pad) by write chunk */
	size_t inl;                     /* the rest: inline, or by reply chunk (nomsg) */
	struct rpcrdma_chunk wch, rch;  /* the write chunk, the reply chunk */
	uint32_t written[RPCRDMA_DEFAULT_MAX_WRITE_CHUNKS];
	uint32_t nw;                    /* write chunks in the reply's write list */
	int hlen;                       /* transport header, encoded in the Send's buffer */
	bool use_write, nomsg;
};

/* The reply's description checked; p zeroed but for its total. */
static int reply_check(const struct rpcrdma_reply *r, struct reply_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (!r || r->size < sizeof(*r) || (r->iovcnt && !r->iov))
		return -EINVAL;
	p->total = rpcrdma__iov_total(r->iov, r->iovcnt);
	if (r->bulk_length &&
	    (r->bulk_offset > p->total || r->bulk_length > p->total - r->bulk_offset))
		return -EINVAL;
	return 0;
}

/*
 * Chooses the path and encodes the transport header in s's buffer: the
 * bulk item by the first write chunk when it fits; the rest inline when it
 * fits the Send, else by the reply chunk (RDMA_NOMSG).  -EMSGSIZE: the
 * client's chunks cannot carry it.
 */
static int reply_plan(struct rpcrdma__send *s, const struct rpcrdma_hdr *h,
		      const struct rpcrdma_reply *r, struct reply_plan *p)
{
	struct rpcrdma__conn *conn = s->conn;
	uint32_t credit_word = rpcrdma_credits_word(&conn->credits);
	size_t room = s->c.pool->buf_size;
	struct rpcrdma_chunk_iter it;

	rpcrdma_write_chunks(h, &it);
	if (r->bulk_length && rpcrdma_next_chunk(&it, &p->wch) &&
	    p->wch.length >= r->bulk_length) {
		size_t pad = (4 - (r->bulk_length & 3)) & 3;

		p->use_write = true;
		p->cut = r->bulk_offset;
		p->cutlen = r->bulk_length;
		if (pad <= p->total - r->bulk_offset - r->bulk_length)
			p->cutlen += pad;  /* XDR roundup leaves with its data */
		p->written[0] = (uint32_t)r->bulk_length;
	}
	p->nw = h->write_chunks < RPCRDMA_DEFAULT_MAX_WRITE_CHUNKS ?
			h->write_chunks : RPCRDMA_DEFAULT_MAX_WRITE_CHUNKS;
	p->inl = p->total - p->cutlen;
	/* No write list: the seven words of rpcrdma_encode_reply_hdr. */
	p->hlen = p->nw ? rpcrdma_encode_reply(s->c.buf, room, h, credit_word, p->written, p->nw,
					       false, 0) :
			  rpcrdma_encode_reply_hdr(s->c.buf, room, h, credit_word, false);
	if (p->hlen >= 0 && (size_t)p->hlen + p->inl <= room &&
	    (size_t)p->hlen + p->inl <= conn->send_inline)
		return 0;
	/* Too large inline: the reply chunk, if there is one. */
	if (!rpcrdma_reply_chunk(h, &p->rch) || p->rch.length < p->inl)
		return -EMSGSIZE;
	p->nomsg = true;
	p->hlen = rpcrdma_encode_reply(s->c.buf, conn->send_inline, h, credit_word, p->written,
				       p->nw, true, (uint32_t)p->inl);
	return p->hlen < 0 ? -EMSGSIZE : 0;
}

/*
 * Where the RDMA Writes read from.  Bulk data already in registered memory
 * the call owns (the reply buffer, or the call pulled by RDMA Read) is
 * written from there: the buffer moves to the Send, uncopied.  So is data
 * in a region of the listener's, which stays its.  Else a cached buffer,
 * which the bytes are copied into (*uncopied false).  *src: the offset of
 * the bulk item in s->bulk.
 */
static int reply_bulk_source(struct rpcrdma_call *call, const struct rpcrdma_reply *r,
			     struct rpcrdma__send *s, const struct reply_plan *p, size_t *src,
			     bool *uncopied)
{
	struct rpcrdma__conn *conn = s->conn;
	struct rpcrdma__mrbuf *own = NULL;
	ptrdiff_t at = -1;
	int err;

	if (p->use_write && !p->nomsg) {
		at = in_registered(&call->rbuf, r, r->bulk_offset, r->bulk_length);
		if (at >= 0) {
			own = &call->rbuf;
		} else {
			at = in_registered(&call->pulled, r, r->bulk_offset, r->bulk_length);
			if (at >= 0)
				own = &call->pulled;
		}
		if (at < 0) {
			at = in_region(conn, r, r->bulk_offset, r->bulk_length, &s->bulk);
			s->bulk_region = at >= 0;
		}
	}
	*uncopied = own || s->bulk_region;
	if (own) {
		s->bulk = *own;
		memset(own, 0, sizeof(*own));
	} else if (s->bulk_region) {
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_WRITES_REGION, 1);
	} else {
		at = 0;
		err = rpcrdma__mrcache_get(&conn->dev->mrcache, &s->bulk,
					   (p->use_write ? r->bulk_length : 0) + (p->nomsg ? p->inl : 0));
		if (err)
			return err;
	}
	*src = (size_t)at;
	return 0;
}

/*
 * s's chain arrays, RPCRDMA__CHAIN_MAX WRs and SGEs: the longest chain a
 * connection allows (the checker's segments per chunk, for the write chunk
 * and the reply chunk, and the Send).  Made on the context's first reply
 * by chunk and kept with it until its pool goes (rpcrdma__send_pool_fini),
 * so that only a connection replying by chunk pays for them, once per
 * context: for every context at accept they would cost
 * RPCRDMA__CHAIN_MAX * 144 bytes (18 KiB) times the pool's grant + 24.
 */
static int chain_arrays(struct rpcrdma__send *s)
{
	if (rpcrdma__unlikely(!s->chain)) {
		s->chain = malloc(sizeof(*s->chain));
		if (!s->chain)
			return -ENOMEM;
	}
	s->wrs = s->chain->wr;
	s->sges = s->chain->sge;
	return 0;
}

void rpcrdma__send_pool_fini(struct rpcrdma__pool *pool)
{
	for (unsigned i = 0; pool->ctxts && i < pool->count; i++)
		free(((struct rpcrdma__send *)(void *)(pool->ctxts + i * pool->ctxt_size))->chain);
	rpcrdma__pool_fini(pool);
}

/*
 * The RDMA Writes of the bulk item into the write chunk and of the rest
 * into the reply chunk (copying what the source does not already hold),
 * unsignaled, then the Send, in s->wrs.  Returns the chain's length.
 */
static unsigned reply_build_chain(struct rpcrdma__send *s, const struct rpcrdma_reply *r,
				  const struct reply_plan *p, const struct rpcrdma_hdr *h,
				  size_t src, bool uncopied)
{
	struct rpcrdma__conn *conn = s->conn;
	unsigned nwr = 0;

	if (p->use_write) {
		if (!uncopied)
			rpcrdma__iov_copy(s->bulk.addr, r->iov, r->iovcnt, r->bulk_offset,
					  r->bulk_length);
		else
			rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_WRITES_UNCOPIED, 1);
		nwr += rpcrdma__build_writes(s->wrs, s->sges, &p->wch, &s->bulk, src,
					     r->bulk_length, (uintptr_t)&s->quiet.c, 0);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_BYTES_WRITTEN,
			       r->bulk_length);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_REPLIES_WRITE, 1);
	}
	if (p->nomsg) {
		size_t off = p->use_write ? r->bulk_length : 0;

		rpcrdma__iov_copy_without(s->bulk.addr + off, r->iov, r->iovcnt, p->total, p->cut,
					  p->cutlen);
		nwr += rpcrdma__build_writes(s->wrs + nwr, s->sges + nwr, &p->rch, &s->bulk, off,
					     p->inl, (uintptr_t)&s->quiet.c, 0);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_BYTES_WRITTEN, p->inl);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_REPLIES_RCHUNK, 1);
	}
	for (unsigned i = 0; i < nwr; i++)
		s->wrs[i].next = &s->wrs[i + 1];
	prep_send(s, &s->wrs[nwr], &s->sges[nwr],
		  (uint32_t)p->hlen + (p->nomsg ? 0 : (uint32_t)p->inl), h);
	return nwr + 1;
}

/* A reply by chunk: its arrays, its bulk source, its chain (*nwr WRs). */
static int reply_chain(struct rpcrdma_call *call, const struct rpcrdma_reply *r,
		       struct rpcrdma__send *s, const struct reply_plan *p, unsigned *nwr)
{
	unsigned nseg = (p->use_write ? p->wch.nsegs : 0) + (p->nomsg ? p->rch.nsegs : 0);
	bool uncopied;
	size_t src;
	int err;

	/* The checker holds each chunk to RPCRDMA_DEFAULT_MAX_SEGMENTS. */
	if (rpcrdma__unlikely(nseg >= RPCRDMA__CHAIN_MAX))
		return -EMSGSIZE;
	err = reply_bulk_source(call, r, s, p, &src, &uncopied);
	if (!err)
		err = chain_arrays(s);
	if (err)
		return err;
	*nwr = reply_build_chain(s, r, p, &call->hdr, src, uncopied);
	return 0;
}

/*
 * Posts s's chain of nwr WRs (the Writes before the Send go unsignaled)
 * and releases the call; kind: the reply's counter when it goes inline
 * (the other kinds counted with their Writes), else RPCRDMA_STAT_COUNT.
 *
 * The reply lets the client send again, so its call's receive goes back
 * first, but for an inline reply on an SRQ with slack: that one goes out
 * first (the repost is off the round trip's path), while no more than
 * early_slack replies are between their post and their repost; the SRQ
 * holds that many receives beyond every grant.
 */
static int reply_post(struct rpcrdma_call *call, struct rpcrdma__send *s, unsigned nwr,
		      enum rpcrdma_stat kind, const struct reply_plan *p)
{
	struct rpcrdma__conn *conn = s->conn;
	struct rpcrdma__dev *dev = conn->dev;
	/* The call, its header with it, goes back before the probe below. */
	uint32_t xid __attribute__((unused)) = ntohl(call->hdr.xid);
	/* Read before the post: the context may go back to its pool at once. */
	uint32_t sent_len = s->sges[nwr - 1].length;
	bool sent_inline = s->wrs[nwr - 1].send_flags & IBV_SEND_INLINE;
	bool early = nwr == 1 && conn->on_srq &&
		     rpcrdma__early_enter(&dev->early_open, dev->early_slack);
	int err;

	s->nwr = nwr;
	rpcrdma__conn_get(conn);
	if (!early)
		rpcrdma__call_release(call);
	err = rpcrdma__conn_post_reply(conn, s->wrs, nwr, &s->c.node);
	if (err)
		send_free(s);
	if (early) {
		rpcrdma__call_release(call);
		rpcrdma__early_leave(&dev->early_open);
	}
	/* kind: 0 inline, 1 write chunk, 2 reply chunk, 3 both */
	RPCRDMA_TRACE(reply_sent, conn->conn_id, xid, (p->use_write ? 1 : 0) | (p->nomsg ? 2 : 0),
		      sent_len, p->use_write ? p->cutlen : 0, p->nomsg ? p->inl : 0, nwr, err);
	(void)p;
	if (!err) {
		count_send(conn, sent_len, sent_inline);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_REPLIES, 1);
		if (kind != RPCRDMA_STAT_COUNT)
			rpcrdma__count(&conn->stats, &conn->l->stats, kind, 1);
	}
	rpcrdma__conn_put(conn);
	return err;
}

/* The reply path in steps, as svc_rdma_sendto: check, plan, bulk source
 * and chain (reply_chain), copy, post. */
int rpcrdma_call_reply(struct rpcrdma_call *call, const struct rpcrdma_reply *r)
{
	enum rpcrdma_stat kind = RPCRDMA_STAT_REPLIES_INLINE;
	struct rpcrdma__conn *conn;
	struct rpcrdma__send *s;
	struct reply_plan p;
	unsigned nwr = 1;
	int err;

	if (!call)
		return -EINVAL;
	conn = call->conn;
	err = reply_check(r, &p);
	if (err) {
		if (!r || r->size < sizeof(*r) || (r->iovcnt && !r->iov))
			RPCRDMA_TRACE(reply_bad_args, conn->conn_id, ntohl(call->hdr.xid),
				      r ? r->iovcnt : 0);
		else
			RPCRDMA_TRACE(reply_bad_bulk, conn->conn_id, ntohl(call->hdr.xid),
				      r->bulk_offset, r->bulk_length, p.total);
		rpcrdma__call_release(call);
		return err;
	}
	s = send_take(call);
	if (!s) {
		RPCRDMA_TRACE(reply_no_ctx, conn->conn_id, ntohl(call->hdr.xid));
		rpcrdma__call_release(call);
		return -ENOBUFS;
	}
	if (reply_plan(s, &call->hdr, r, &p))
		goto out_toolarge;
	if (p.use_write || p.nomsg) {
		err = reply_chain(call, r, s, &p, &nwr);
		if (err)
			goto out_err;
		kind = RPCRDMA_STAT_COUNT;
	} else {
		s->wrs = &s->send_wr;
		s->sges = &s->send_sge;
		prep_send(s, s->wrs, s->sges, (uint32_t)p.hlen + (uint32_t)p.inl, &call->hdr);
	}
	if (!p.nomsg)
		rpcrdma__iov_copy_without(s->c.buf + p.hlen, r->iov, r->iovcnt, p.total, p.cut,
					  p.cutlen);
	return reply_post(call, s, nwr, kind, &p);

out_toolarge:
	RPCRDMA_TRACE(reply_too_large, conn->conn_id, ntohl(call->hdr.xid), p.inl,
		      conn->send_inline, p.rch.length);
	/* The RDMA_ERROR goes in the same context, cleared. */
	send_clear(s);
	send_reset(s, conn);
	call->send = s;
	rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_ERR_REPLY, 1);
	rpcrdma__send_error(call, false);
	return -EMSGSIZE;
out_err:
	RPCRDMA_TRACE(reply_bulk_fail, conn->conn_id, ntohl(call->hdr.xid), err);
	send_free(s);
	rpcrdma__call_release(call);
	return err;
}
