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
 * Mutation: libFuzzer's, then in one input out of four a word of one
 * COMPOUND that could be a length there is set to 0xfffffff0..0xffffffff
 * and, one time in two, the COMPOUND cut right after it
 * (nfsfz_wrap_length: the XDR length wrap of issue #23 item 1, in any
 * decoder).
 *
 * Checked: the reply never exceeds its buffer, its header decodes, its
 * result count matches, the COMPOUND estimate decodes wherever the
 * processing does, each operation's result fits its estimate, a reported
 * READ data range lies in the reply right after a length word that
 * matches it, and no descriptor outlives an input.
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
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
/* libFuzzer's own mutation; absent (and never called) in the replay build */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max) __attribute__((weak));

/* Where the next COMPOUND of the input lies: *len bytes from *p, after a
 * length prefix if *framed, or false at the end (the framing above). */
static bool next_chunk(const uint8_t **p, size_t *left, const uint8_t **chunk, size_t *len,
		       bool *framed)
{
	if (*left == 0)
		return false;
	*len = *left;
	*framed = false;
	if (*left >= 2) {
		size_t want = (size_t)(*p)[0] << 8 | (*p)[1];
		if (want <= *left - 2) {
			*p += 2;
			*left -= 2;
			*len = want;
			*framed = true;
		}
	}
	*chunk = *p;
	*p += *len;
	*left -= *len;
	return true;
}

/* libFuzzer's mutation, then in one input out of four a length word of
 * one COMPOUND set near 2^32, and what follows it in that COMPOUND
 * perhaps cut (nfsfz_wrap_length). */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	size = LLVMFuzzerMutate(data, size, max);
	if (size < 2 || seed % 4)
		return size;
	const uint8_t *p = data + 1, *chunk;
	size_t left = size - 1, len, n = 0;
	bool framed;
	while (next_chunk(&p, &left, &chunk, &len, &framed))
		n++;
	size_t pick = (seed >> 2) % n;
	p = data + 1;
	left = size - 1;
	for (size_t i = 0; i <= pick; i++)
		(void)next_chunk(&p, &left, &chunk, &len, &framed);
	size_t at = (size_t)(chunk - data);
	size_t keep = nfsfz_wrap_length(data + at, len, seed >> 8);
	if (keep == len)
		return size;
	memmove(data + at + keep, data + at + len, size - at - len);
	if (framed) {
		data[at - 2] = (uint8_t)(keep >> 8);
		data[at - 1] = (uint8_t)keep;
	}
	return size - (len - keep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tnfs_server *s = nfsfz_begin(size && (data[0] & 4));
	size_t cap = size ? nfsfz_cap(data[0]) : NFSFZ_REPLY_MAX;
	const uint8_t *p = size ? data + 1 : data, *chunk;
	size_t left = size ? size - 1 : 0, len;
	bool framed;
	while (next_chunk(&p, &left, &chunk, &len, &framed)) {
		/* an exactly sized copy, so an overread is caught */
		uint8_t *req = malloc(len ? len : 1);
		if (!req)
			abort();
		memcpy(req, chunk, len);
		const uint8_t *reply;
		size_t out;
		(void)nfsfz_run(s, req, len, cap, &reply, &out);
		free(req);
	}
	nfsfz_end();
	return 0;
}
