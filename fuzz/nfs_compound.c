/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: NFSv4 COMPOUND processing of the tinynfs core
 * (examples/tinynfs) against a scratch tree (nfs_harness.h).
 *
 * Input: one byte choosing the reply buffer size (bits 0-1) and the
 * exports (bit 2), then COMPOUND bodies,
 * each prefixed by a 16-bit big-endian length (a last, unprefixed or
 * short chunk is used as it is), run in order on one state.  Each input
 * starts on a fresh state of a server made once per process (boot
 * verifier 1..8), on which a client has already done EXCHANGE_ID and
 * CREATE_SESSION, so its session id is known to the corpus:
 *     01 02 03 04 05 06 07 08  00 00 00 01  00 00 00 01
 * The export is rw with all_squash (uid 65534 owns the scratch tree), so
 * the fuzzer can create, write, rename and remove, but not make device
 * nodes.  With bit 2 of the first byte set, the server has two exports
 * instead, <scratch>/d (rw, all_squash) and <scratch>/e (ro), under the
 * pseudo file system (PUTROOTFH is the pseudo root "/", LOOKUP of the
 * scratch path's components leads to them).  The tree is put back after
 * each input and removed at exit.
 *
 * Checked: the reply never exceeds its buffer, its header decodes, its
 * result count matches, the COMPOUND estimate decodes wherever the
 * processing does, a reported READ data range lies in the reply right
 * after a length word that matches it, and no descriptor outlives an
 * input.
 *
 * A libFuzzer build links the core with a table of 256 stateids
 * (TNFS_MAX_STATEIDS) rather than 65536: freeing a state scans it, and a
 * full table is then within the fuzzer's reach.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfs_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tnfs_server *s = nfsfz_begin(size && (data[0] & 4));
	size_t cap = size ? nfsfz_cap(data[0]) : NFSFZ_REPLY_MAX;
	const uint8_t *p = size ? data + 1 : data;
	size_t left = size ? size - 1 : 0;
	while (left > 0) {
		size_t len = left;
		if (left >= 2) {
			size_t want = (size_t)p[0] << 8 | p[1];
			if (want <= left - 2) {
				p += 2;
				left -= 2;
				len = want;
			}
		}
		/* an exactly sized copy, so an overread is caught */
		uint8_t *req = malloc(len ? len : 1);
		if (!req)
			abort();
		memcpy(req, p, len);
		const uint8_t *reply;
		size_t out;
		(void)nfsfz_run(s, req, len, cap, &reply, &out);
		free(req);
		p += len;
		left -= len;
	}
	nfsfz_end();
	return 0;
}
