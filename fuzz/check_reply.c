/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: the reply checker.  Asserts the result contract, that view
 * pointers lie inside the header, and that re-encoding an accepted reply
 * with the server's encoder (the reply's own write list and reply chunk,
 * each "fully written") reproduces it byte for byte.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/proto.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

static uint32_t out[8192];
static uint32_t written[64];

static void within(const uint32_t *p, const void *buf, size_t size)
{
	CHECK((const char *)p >= (const char *)buf && (const char *)p + 4 <= (const char *)buf + size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = malloc(size ? size : 1);
	struct rpcrdma_hdr h;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	int rc = rpcrdma_check_reply(buf, size, &h);
	CHECK(rc == 0 || rc == -EINVAL || rc == -EPROTONOSUPPORT || (rc >= 20 && (size_t)rc <= size));
	if (rc > 0 && h.type == RPCRDMA_ERROR) {
		CHECK(rc == (h.err == RPCRDMA_ERR_VERS ? 28 : 20));
		if (h.err == RPCRDMA_ERR_CHUNK) {
			CHECK(rpcrdma_encode_err_chunk(out, sizeof(out), &h, ((const uint32_t *)buf)[2]) == 20);
			CHECK(memcmp(out, buf, 20) == 0);
		}
	} else if (rc > 0) {
		struct rpcrdma_chunk_iter it;
		struct rpcrdma_chunk ch;
		uint32_t nc = 0;

		CHECK(h.type == RPCRDMA_MSG || h.type == RPCRDMA_NOMSG);
		CHECK((h.type == RPCRDMA_NOMSG) == (h.reply_chunk != NULL));
		CHECK(h.read_segments == 0 && rc % 4 == 0);
		within(h.write_list, buf, (size_t)rc);
		if (h.reply_chunk)
			within(h.reply_chunk, buf, (size_t)rc);
		rpcrdma_write_chunks(&h, &it);
		while (rpcrdma_next_chunk(&it, &ch)) {
			CHECK(nc < 64 && ch.length <= RPCRDMA_DEFAULT_MAX_CHUNK_BYTES);
			written[nc++] = (uint32_t)ch.length;
		}
		CHECK(nc == h.write_chunks);
		uint32_t rw = 0;
		if (rpcrdma_reply_chunk(&h, &ch))
			rw = (uint32_t)ch.length;
		/* an RDMA_NOMSG reply conveys some reply in its chunk */
		CHECK(h.type != RPCRDMA_NOMSG || (h.reply_segments > 0 && rw > 0));
		int n = rpcrdma_encode_reply(out, sizeof(out), &h, ((const uint32_t *)buf)[2], written, nc,
					     h.type == RPCRDMA_NOMSG, rw);
		CHECK(n == rc);
		CHECK(memcmp(out, buf, (size_t)rc) == 0);
	} else if (rc == 0) {
		CHECK(h.type == RPCRDMA_DONE && h.reason == RPCRDMA_CHECK_DROP);
	} else if (rc == -EPROTONOSUPPORT) {
		CHECK(h.reason == RPCRDMA_CHECK_VERSION);
	} else {
		CHECK(h.reason != RPCRDMA_CHECK_OK);
	}
	free(buf);
	return 0;
}
