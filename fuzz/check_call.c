/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: the call checker.  Besides "no crash, no overread", asserts:
 *  - the result is > 0, 0, -EINVAL or -EPROTONOSUPPORT, and never > size;
 *  - an accepted header's view points inside the buffer, its counts agree
 *    with what the iterators give back, and re-encoding the view with the
 *    client encoder reproduces the header byte for byte;
 *  - the plain checker (with its fast paths for RDMA_MSG) agrees with the
 *    general path, run by the limits variant and by
 *    rpcrdma__check_call_general(): same result, reason and view;
 *  - a reply and an error can be encoded from the view and the reply is
 *    accepted by the reply checker.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/proto.h>

#include "wire/xdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

static struct rpcrdma_read_segment reads[1024];
static struct rpcrdma_segment writes[1024], reply[64];
static uint32_t wsegs[64], written[64];
static uint32_t out[8192];

static void same_view(const struct rpcrdma_hdr *a, const struct rpcrdma_hdr *b)
{
	CHECK(a->xid == b->xid && a->vers == b->vers && a->credits == b->credits &&
	      a->type == b->type && a->read_list == b->read_list && a->write_list == b->write_list &&
	      a->reply_chunk == b->reply_chunk && a->read_chunks == b->read_chunks &&
	      a->read_segments == b->read_segments && a->write_chunks == b->write_chunks &&
	      a->write_segments == b->write_segments && a->reply_segments == b->reply_segments &&
	      a->hdrlen == b->hdrlen);
}

static void within(const uint32_t *p, const void *buf, size_t size)
{
	CHECK((const char *)p >= (const char *)buf && (const char *)p + 4 <= (const char *)buf + size);
}

static void reencode(const void *buf, int rc, const struct rpcrdma_hdr *h)
{
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;
	struct rpcrdma_segment seg;
	uint32_t nr = 0, nw = 0, nc = 0, chunks = 0;

	rpcrdma_read_chunks(h, &it);
	while (rpcrdma_next_chunk(&it, &ch)) {
		uint64_t len = 0;
		chunks++;
		CHECK(ch.position % 4 == 0);
		while (rpcrdma_next_segment(&ch, &seg)) {
			CHECK(nr < 1024);
			reads[nr].position = ch.position;
			reads[nr++].seg = seg;
			len += seg.length;
		}
		CHECK(len == ch.length && len <= RPCRDMA_DEFAULT_MAX_CHUNK_BYTES);
	}
	CHECK(nr == h->read_segments && chunks == h->read_chunks);
	rpcrdma_write_chunks(h, &it);
	while (rpcrdma_next_chunk(&it, &ch)) {
		CHECK(nc < 64 && ch.nsegs >= 1);
		wsegs[nc++] = ch.nsegs;
		while (rpcrdma_next_segment(&ch, &seg)) {
			CHECK(nw < 1024);
			writes[nw++] = seg;
		}
	}
	CHECK(nc == h->write_chunks && nw == h->write_segments);
	uint32_t nrep = 0;
	bool has_reply = rpcrdma_reply_chunk(h, &ch);
	if (has_reply)
		while (rpcrdma_next_segment(&ch, &seg)) {
			CHECK(nrep < 64);
			reply[nrep++] = seg;
		}
	CHECK(nrep == h->reply_segments);

	struct rpcrdma_call_desc d = {
		.xid = h->xid, .credits = h->credits, .type = h->type,
		.reads = reads, .nreads = nr, .writes = writes, .nwrites = nw,
		.write_chunk_segs = wsegs, .write_chunks = nc,
		.has_reply = has_reply, .reply = reply, .nreply = nrep,
	};
	CHECK(rpcrdma_encode_call(out, sizeof(out), &d) == rc);
	CHECK(memcmp(out, buf, (size_t)rc) == 0);

	/* a reply using everything, accepted by the client side (RDMA_NOMSG
	 * needs a reply chunk with room for some reply) */
	memset(written, 0, sizeof(written));
	bool nomsg = has_reply && ch.length > 0;
	int n = rpcrdma_encode_reply(out, sizeof(out), h, RPCRDMA_WIRE32(3), written, nc,
				     nomsg, nomsg ? (uint32_t)ch.length : 0);
	CHECK(n > 0);
	struct rpcrdma_hdr r;
	CHECK(rpcrdma_check_reply(out, (size_t)n, &r) == n);
	CHECK(r.xid == h->xid && r.write_chunks == nc && r.reply_segments == (nomsg ? nrep : 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = malloc(size ? size : 1);
	struct rpcrdma_hdr h, h2;
	struct rpcrdma_limits lim = { .size = sizeof(lim) };

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	int rc = rpcrdma_check_call(buf, size, &h);
	CHECK(rc == 0 || rc == -EINVAL || rc == -EPROTONOSUPPORT || (rc >= 28 && (size_t)rc <= size));
	CHECK(rpcrdma_check_call_ex(buf, size, &h2, &lim) == rc);
	CHECK(h2.reason == h.reason);
	if (rc > 0)
		same_view(&h, &h2);
	CHECK(rpcrdma__check_call_general(buf, size, &h2) == rc);
	CHECK(h2.reason == h.reason);
	if (rc > 0)
		same_view(&h, &h2);
	/* RDMA_DONE and RDMA_ERROR of version 1 are dropped at any length
	 * from the four fixed words up: never answered. */
	if (size >= 16 && ((const uint32_t *)buf)[1] == RPCRDMA_XDR_VERSION &&
	    (((const uint32_t *)buf)[3] == RPCRDMA_XDR_DONE ||
	     ((const uint32_t *)buf)[3] == RPCRDMA_XDR_ERROR))
		CHECK(rc == 0);
	if (rc > 0) {
		CHECK(rc % 4 == 0 && h.hdrlen == (uint32_t)rc && h.vers == 1);
		CHECK(h.type == RPCRDMA_MSG || h.type == RPCRDMA_NOMSG);
		within(h.read_list, buf, (size_t)rc);
		within(h.write_list, buf, (size_t)rc);
		if (h.reply_chunk)
			within(h.reply_chunk, buf, (size_t)rc);
		CHECK(h.read_chunks <= RPCRDMA_DEFAULT_MAX_READ_CHUNKS);
		CHECK(h.write_chunks <= RPCRDMA_DEFAULT_MAX_WRITE_CHUNKS);
		CHECK(h.reply_segments <= RPCRDMA_DEFAULT_MAX_SEGMENTS);
		reencode(buf, rc, &h);
	} else if (rc == -EPROTONOSUPPORT) {
		CHECK(h.reason == RPCRDMA_CHECK_VERSION && h.vers != 1);
		CHECK(rpcrdma_encode_err_vers(out, sizeof(out), &h, 0) == 28);
		CHECK(memcmp(out, buf, 8) == 0);
	} else if (rc == 0) {
		CHECK(h.reason == RPCRDMA_CHECK_DROP);
		CHECK(h.type == RPCRDMA_DONE || h.type == RPCRDMA_ERROR);
	} else {
		CHECK(h.reason != RPCRDMA_CHECK_OK);
	}
	free(buf);
	return 0;
}
