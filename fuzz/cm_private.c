/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: the RFC 8797 private-data decoder.  Valid data re-encodes to
 * the same 8 bytes (unknown flag bits aside); anything else gives defaults.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/cm_private.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) ((x) ? (void)0 : abort())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_cm_private p;
	uint8_t out[8];
	void *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	int rc = rpcrdma_cm_private_decode(buf, size, &p);
	CHECK(rc == 0 || rc == 1);
	CHECK(p.inline_send >= 1024 && p.inline_send <= 262144 && p.inline_send % 1024 == 0);
	CHECK(p.inline_recv >= 1024 && p.inline_recv <= 262144 && p.inline_recv % 1024 == 0);
	if (rc == 1) {
		CHECK(rpcrdma_cm_private_encode(out, sizeof(out), &p) == 8);
		CHECK(memcmp(out, buf, 5) == 0);
		CHECK(out[5] == (((const uint8_t *)buf)[5] & RPCRDMA_CM_FLAG_REMOTE_INVALIDATE));
		CHECK(memcmp(out + 6, (const uint8_t *)buf + 6, 2) == 0);
	} else {
		CHECK(!p.remote_invalidate && p.inline_send == 1024 && p.inline_recv == 1024);
	}
	free(buf);
	return 0;
}
