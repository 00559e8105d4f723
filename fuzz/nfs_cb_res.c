/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: tinynfs's decoders of a CB_COMPOUND reply from a client
 * (examples/tinynfs/callback.h): CB_SEQUENCE's result, then CB_GETATTR's
 * (a bitmap and an attrlist the client fills).  The first byte says
 * whether the call was CB_GETATTR (bit 0); the rest is the reply body.
 * Checked: the decoders stay in the input (ASan), and CB_GETATTR is said
 * answered only when its status was NFS4_OK and both attributes came.
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
	/* an exact-size heap copy: a read past it is ASan's to see */
	uint8_t *buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	struct rpcrdma_xdr_dec d;
	rpcrdma_xdr_dec_init_buf(&d, buf, size - 1);
	uint32_t status = 0;
	bool seq_ok = false, ok = false;
	uint64_t change = 0, size_attr = 0;
	if (tnfs_cb_dec_recall_res(&d, &a, &status, &seq_ok) == 0 && a.getattr &&
	    status == NFS4_OK && tnfs_cb_dec_getattr_res(&d, &ok, &change, &size_attr) == 0 && ok &&
	    size - 1 < 16)
		abort(); /* two 8-byte attributes cannot come out of fewer bytes */
	free(buf);
	return 0;
}
