/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: tinynfs's decoders of a CB_COMPOUND reply from a client
 * (examples/tinynfs/callback.h): CB_SEQUENCE's result, then CB_GETATTR's
 * (a bitmap and an attrlist the client fills: the change attribute and
 * size, and RFC 9754's delegated times when asked for).  The first byte
 * says whether the call was CB_GETATTR (bit 0) and asked for the times
 * (bit 1); the rest is the reply body.  Checked: the decoders stay in
 * the input (ASan), CB_GETATTR is said answered only when its status was
 * NFS4_OK and both attributes came (16 bytes at least; 40 with the
 * times), and the times it gives have nseconds below 10^9.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/xdr.h>

#include "callback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct tnfs_cb_recall_args a;
	memset(&a, 0, sizeof(a));
	a.getattr = data[0] & 1;
	a.times = data[0] & 2;
	/* an exact-size heap copy: a read past it is ASan's to see */
	uint8_t *buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	struct rpcrdma_xdr_dec d;
	rpcrdma_xdr_dec_init_buf(&d, buf, size - 1);
	uint32_t status = 0;
	bool seq_ok = false, ok = false;
	struct tnfs_deleg_cbattrs ga;
	if (tnfs_cb_dec_recall_res(&d, &a, &status, &seq_ok) == 0 && a.getattr &&
	    status == NFS4_OK && tnfs_cb_dec_getattr_res(&d, &ok, &ga) == 0 && ok) {
		/* two 8-byte attributes cannot come out of fewer bytes, nor
		 * two more times out of fewer than 24 more */
		if (size - 1 < (ga.times ? 40u : 16u))
			abort();
		if (ga.times && (ga.atime.tv_nsec < 0 || ga.atime.tv_nsec >= 1000000000 ||
				 ga.mtime.tv_nsec < 0 || ga.mtime.tv_nsec >= 1000000000))
			abort();
	}
	free(buf);
	return 0;
}
