/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RDMA Read and Write of chunks: pulling a call's read chunks into one
 * registered buffer (the call the upper layer sees, chunks spliced in at
 * their XDR positions), and building the RDMA Writes of a reply's write
 * chunk and reply chunk.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_internal.h"
#include "util/trace.h"

unsigned rpcrdma__build_writes(struct ibv_send_wr *wrs, struct ibv_sge *sges,
			       const struct rpcrdma_chunk *chunk, const struct rpcrdma__mrbuf *src,
			       size_t src_off, size_t len, uint64_t wr_id, uint32_t max_sge_len)
{
	struct rpcrdma_chunk ch = *chunk;
	struct rpcrdma_segment seg;
	unsigned n = 0;

	(void)max_sge_len;
	while (len && rpcrdma_next_segment(&ch, &seg)) {
		uint32_t k = seg.length < len ? seg.length : (uint32_t)len;

		if (k == 0)
			continue;
		sges[n].addr = (uintptr_t)(src->addr + src_off);
		sges[n].length = k;
		sges[n].lkey = src->mr->lkey;
		memset(&wrs[n], 0, sizeof(wrs[n]));
		wrs[n].wr_id = wr_id;
		wrs[n].sg_list = &sges[n];
		wrs[n].num_sge = 1;
		wrs[n].opcode = IBV_WR_RDMA_WRITE;
		wrs[n].send_flags = 0; /* the Send after them is signaled */
		wrs[n].wr.rdma.remote_addr = seg.offset;
		wrs[n].wr.rdma.rkey = seg.handle;
		src_off += k;
		len -= k;
		n++;
	}
	return n;
}

RPCRDMA__BCACHE_TYPED(read_block, struct rpcrdma__read)

/* A read context with room for n WRs and SGEs, zeroed up to them: a cached
 * one when large enough, else a new one (one block, at least 16 of each). */
static struct rpcrdma__read *read_get(struct rpcrdma__conn *conn, unsigned n)
{
	struct rpcrdma__read *r;
	size_t cap;

	pthread_mutex_lock(&conn->read_lock);
	r = read_block_get(&conn->read_cache, n, &cap);
	pthread_mutex_unlock(&conn->read_lock);
	if (!r) {
		cap = n < 16 ? 16 : n;
		r = malloc(sizeof(*r) + cap * (sizeof(*r->wrs) + sizeof(*r->sges)));
		if (!r)
			return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->cap = (unsigned)cap;
	r->wrs = (struct ibv_send_wr *)(r + 1);
	r->sges = (struct ibv_sge *)(r->wrs + cap);
	memset(r->wrs, 0, (size_t)n * sizeof(*r->wrs));
	memset(r->sges, 0, (size_t)n * sizeof(*r->sges));
	return r;
}

/* Back to its connection's cache (freed when the cache is full); before
 * the read's reference on the connection is dropped. */
static void read_free(struct rpcrdma__read *r)
{
	struct rpcrdma__conn *conn = r->conn;
	bool kept;

	if (r->sink_mr)
		(void)ibv_dereg_mr(r->sink_mr);  /* the peer's STag of it ends here */
	pthread_mutex_lock(&conn->read_lock);
	kept = read_block_put(&conn->read_cache, r, r->cap);
	pthread_mutex_unlock(&conn->read_lock);
	if (!kept)
		free(r);
}

void rpcrdma__read_cache_init(struct rpcrdma__conn *conn)
{
	rpcrdma__bcache_init(&conn->read_cache, RPCRDMA__READ_CACHE);
}

void rpcrdma__read_cache_fini(struct rpcrdma__conn *conn)
{
	for (struct rpcrdma__read *r; (r = read_block_pop(&conn->read_cache));)
		free(r);
}

void rpcrdma__read_abort(struct rpcrdma__read *r)
{
	struct rpcrdma__conn *conn = r->conn;

	rpcrdma__call_release(r->call);
	read_free(r);
	rpcrdma__conn_put(conn);
}

void rpcrdma__read_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct rpcrdma__read *r = rpcrdma__container_of(cqe, struct rpcrdma__read, c.cqe);
	struct rpcrdma__conn *conn = r->conn;
	struct rpcrdma_call *call = r->call;
	unsigned nwr = r->nwr;

	/* The last Read, the chain's one signaled WR: done with the chain. */
	if (rpcrdma__unlikely(wc->status != IBV_WC_SUCCESS)) {
		r->failed = true;
		rpcrdma__conn_wc_failed(conn, wc, "RDMA Read error");
	}
	RPCRDMA_TRACE(read_done, conn->conn_id, ntohl(call->hdr.xid), nwr, wc->status, r->failed,
		      call->pull_len);
	if (r->failed) {
		rpcrdma__call_release(call);
	} else {
		RPCRDMA__PCAP(conn->l->pcap, rpcrdma__pcap_reads(conn->l->pcap, &conn->pcap, conn->id,
								 true, r->wrs));
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_BYTES_READ,
			       call->pulled.len);
		rpcrdma__count(&conn->stats, &conn->l->stats, RPCRDMA_STAT_CALLS_READ, 1);
		rpcrdma__call_deliver(call);
	}
	rpcrdma__conn_reads_done(conn, &r->c.node, nwr);    /* off conn->reads first */
	read_free(r);
	rpcrdma__conn_put(conn);
}

/* An unsignaled RDMA Read of r (struct rpcrdma__quiet): only an error
 * completes here. */
void rpcrdma__read_quiet_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct rpcrdma__read *r = rpcrdma__container_of(cqe, struct rpcrdma__read, quiet.c.cqe);

	if (wc->status == IBV_WC_SUCCESS)
		return;
	r->failed = true;
	rpcrdma__conn_wc_failed(r->conn, wc, "RDMA Read error");
}

/* An unsignaled RDMA Write of a reply's chain: only an error completes
 * here. */
void rpcrdma__write_quiet_done(struct rpcrdma__cqe *cqe, const struct ibv_wc *wc)
{
	struct rpcrdma__send *s = rpcrdma__container_of(cqe, struct rpcrdma__send, quiet.c.cqe);

	if (wc->status == IBV_WC_SUCCESS)
		return;
	rpcrdma__conn_wc_failed(s->conn, wc, "RDMA Write error");
}

/* RDMA Read WR n of r: len bytes at (rkey, raddr) into dst. */
static void read_wr(struct rpcrdma__read *r, unsigned n, uint32_t rkey, uint64_t raddr,
		    uint8_t *dst, uint32_t len, uint32_t lkey)
{
	r->sges[n].addr = (uintptr_t)dst;
	r->sges[n].length = len;
	r->sges[n].lkey = lkey;
	memset(&r->wrs[n], 0, sizeof(r->wrs[n]));
	r->wrs[n].wr_id = (uintptr_t)&r->c;
	r->wrs[n].sg_list = &r->sges[n];
	r->wrs[n].num_sge = 1;
	r->wrs[n].opcode = IBV_WR_RDMA_READ;
	r->wrs[n].send_flags = IBV_SEND_SIGNALED;
	r->wrs[n].wr.rdma.remote_addr = raddr;
	r->wrs[n].wr.rdma.rkey = rkey;
	if (n)
		r->wrs[n - 1].next = &r->wrs[n];
}

/*
 * Reads [off, off + len) of chunk ch (the position-zero chunk) into dst:
 * one RDMA Read per segment piece.  Returns the WRs added at r->wrs + n.
 */
static unsigned read_range(struct rpcrdma__read *r, unsigned n, const struct rpcrdma_chunk *ch,
			   uint64_t off, uint64_t len, uint8_t *dst, uint32_t lkey)
{
	struct rpcrdma_chunk c = *ch;
	struct rpcrdma_segment seg;

	while (len && rpcrdma_next_segment(&c, &seg)) {
		uint64_t k;

		if (off >= seg.length) {
			off -= seg.length;
			continue;
		}
		k = seg.length - off < len ? seg.length - off : len;
		read_wr(r, n++, seg.handle, seg.offset + off, dst, (uint32_t)k, lkey);
		dst += k;
		len -= k;
		off = 0;
	}
	return n;
}

int rpcrdma__read_size(struct rpcrdma_call *call)
{
	const struct rpcrdma_hdr *h = &call->hdr;
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch, pz;
	uint64_t base_len, total, pos = 0, used = 0;

	rpcrdma_read_chunks(h, &it);
	if (h->type == RPCRDMA_NOMSG) {
		/* The checker made the position-zero chunk the first one. */
		if (!rpcrdma_next_chunk(&it, &pz) || pz.position != 0)
			return -EINVAL;
		base_len = pz.length;
	} else {
		base_len = call->byte_len - h->hdrlen;
	}
	/* Every data chunk plus its XDR roundup, each at a position inside
	 * the message it is spliced into. */
	total = base_len;
	while (rpcrdma_next_chunk(&it, &ch)) {
		uint64_t pad = (4 - (ch.length & 3)) & 3;

		if (ch.position == 0 || ch.position < pos || ch.position - pos > base_len - used)
			return -EINVAL;
		used += ch.position - pos;
		pos = ch.position + ch.length + pad;
		total += ch.length + pad;
	}
	if (total > call->conn->l->opts.max_call_bytes || total == 0)
		return -EMSGSIZE;
	call->pull_len = total;
	return 0;
}

int rpcrdma__read_sink_access(enum ibv_transport_type t)
{
	return IBV_ACCESS_LOCAL_WRITE | (t == IBV_TRANSPORT_IWARP ? IBV_ACCESS_REMOTE_WRITE : 0);
}

/* The lkey the Reads of r land with in the call's buffer b.  On iWARP the
 * peer writes Read Responses to the sink's STag (RDMAP, RFC 5040 section
 * 4.4), so the sink needs remote write access: the bytes of this pull get
 * an MR of their own, registered for it and deregistered with r, never
 * the cached buffer's MR (a peer would keep its STag). */
static int read_sink(struct rpcrdma__read *r, const struct rpcrdma__mrbuf *b, size_t len,
		     uint32_t *lkey)
{
	int access = rpcrdma__read_sink_access(r->conn->dev->verbs->device->transport_type);

	*lkey = b->mr->lkey;
	if (!(access & IBV_ACCESS_REMOTE_WRITE) || len == 0)
		return 0;
	r->sink_mr = ibv_reg_mr(r->conn->dev->pd, b->addr, len, access);
	if (!r->sink_mr)
		return errno ? -errno : -ENOMEM;
	*lkey = r->sink_mr->lkey;
	return 0;
}

/*
 * Reassembles the call: the message the data chunks are spliced into (the
 * inline bytes after the header for RDMA_MSG, the position-zero chunk for
 * RDMA_NOMSG, RFC 8166 section 3.5.3) with every other read chunk at its
 * position, which counts bytes of the reassembled call, followed by its XDR
 * roundup.  The position-zero chunk's pieces are pulled straight to where
 * they belong, so nothing is copied after the reads.
 */
int rpcrdma__read_chunks(struct rpcrdma_call *call)
{
	struct rpcrdma__conn *conn = call->conn;
	const struct rpcrdma_hdr *h = &call->hdr;
	const uint8_t *inl = call->c.buf + h->hdrlen;
	size_t inl_len = call->byte_len - h->hdrlen;
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch, pz;
	struct rpcrdma_segment seg;
	struct rpcrdma__read *r;
	uint64_t base_len, total = call->pull_len, in = 0;
	size_t out = 0;
	bool nomsg = h->type == RPCRDMA_NOMSG;
	unsigned n = 0;
	int err;

	if (nomsg) {
		rpcrdma_read_chunks(h, &it);
		rpcrdma_next_chunk(&it, &pz);  /* rpcrdma__read_size checked it */
		base_len = pz.length;
		inl_len = 0;  /* RDMA_NOMSG has no inline message */
	} else {
		base_len = inl_len;
	}
	/* data segments, plus the position-zero chunk's segments each cut
	 * at most once by every data chunk */
	r = read_get(conn, h->read_segments + h->read_chunks);
	if (!r)
		return -ENOMEM;
	r->c.cqe.done = rpcrdma__read_done;
	r->quiet.c.cqe.done = rpcrdma__read_quiet_done;
	r->quiet.owner = &r->c;
	r->conn = conn;
	r->call = call;
	err = rpcrdma__mrcache_get(&conn->dev->mrcache, &call->pulled, total);
	if (err)
		goto fail;

	uint8_t *dst = call->pulled.addr;
	uint32_t lkey;

	err = read_sink(r, &call->pulled, total, &lkey);
	if (err)
		goto fail;

	rpcrdma_read_chunks(h, &it);
	if (nomsg)
		rpcrdma_next_chunk(&it, &pz);
	while (rpcrdma_next_chunk(&it, &ch)) {
		size_t pad = (4 - (ch.length & 3)) & 3;
		size_t before = ch.position - out;  /* message bytes before it */

		if (nomsg)
			n = read_range(r, n, &pz, in, before, dst + out, lkey);
		else
			memcpy(dst + out, inl + in, before);
		in += before;
		out = ch.position;
		while (rpcrdma_next_segment(&ch, &seg)) {
			if (seg.length == 0)
				continue;
			read_wr(r, n++, seg.handle, seg.offset, dst + out, seg.length, lkey);
			out += seg.length;
		}
		memset(dst + out, 0, pad);
		out += pad;
	}
	if (nomsg)
		n = read_range(r, n, &pz, in, base_len - in, dst + out, lkey);
	else
		memcpy(dst + out, inl + in, inl_len - in);
	out += base_len - in;
	call->iov.iov_base = call->pulled.addr;
	call->iov.iov_len = out;
	if (n == 0) {
		/* Only empty segments: nothing to pull. */
		read_free(r);
		rpcrdma__call_deliver(call);
		return 0;
	}
	/* Only the last Read is signaled (struct rpcrdma__quiet). */
	for (unsigned i = 0; i + 1 < n; i++) {
		r->wrs[i].wr_id = (uintptr_t)&r->quiet.c;
		r->wrs[i].send_flags = 0;
	}
	r->nwr = n;
	RPCRDMA_TRACE(read_start, conn->conn_id, ntohl(call->hdr.xid), n, total);
	err = rpcrdma__conn_post(conn, r->wrs, n, &r->c.node);
	if (err) {
		read_free(r);
		rpcrdma__mrcache_put(&conn->dev->mrcache, &call->pulled);
		return err;
	}
	return 0;
fail:
	rpcrdma__mrcache_put(&conn->dev->mrcache, &call->pulled);
	read_free(r);
	return err;
}
