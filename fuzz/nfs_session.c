/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: sequences of NFSv4.1 COMPOUNDs on one session of the
 * tinynfs core (the server, tree and per-input state of nfs_harness.h),
 * where the driver keeps the session's bookkeeping right so that the
 * fuzzer spends its effort on the operations and the state they leave
 * for the next COMPOUND: opens, locks, renames, removes.
 *
 * Input: one byte choosing the reply buffer size (bits 0-1) and the
 * exports (bit 2), as in nfs_compound.c, then records, run in order:
 *     ctl (1 byte), nops (1 byte), len (2 bytes big-endian), len bytes
 * (a last record shorter than its len takes what is left).  ctl:
 *     bits 0-1  slot
 *     bit 2     sa_cachethis
 *     bit 3     replay: the slot's last sequence id again
 *     bit 4     no SEQUENCE: the bytes are the operations, as they are
 *     bit 5     minor version 2 (else 1)
 *     bit 6     misordered: the slot's sequence id + 2
 *     bit 7     raw: the bytes are the whole COMPOUND
 * Unless raw, the driver writes the header (empty tag, the minor version,
 * nops operations plus the SEQUENCE) and, unless bit 4, a SEQUENCE on the
 * session with the slot's next sequence id (the one after the last that
 * succeeded), highest slot = slot.
 *
 * Stateids: the driver collects the stateids of this server found in
 * every reply (12 bytes "other" whose last word is the high word of the
 * client id: how tinynfs makes them; up to 16, latest seqid word before
 * it ignored).  In the operations, each 4-aligned "STID" followed by a
 * byte k and 7 more bytes is replaced by the other of stateid k modulo
 * the count collected (left as it is while none is): write a stateid as
 * 00 00 00 00 'S' 'T' 'I' 'D' k x x x x x x x (seqid 0: the current one).
 *
 * Mutation: as in nfs_compound.c, with the length words looked for in
 * (and the cut made in) one record's operations.
 *
 * Checked: what nfs_compound.c checks, for each COMPOUND.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfs_harness.h"
#include "../tests/common/rpc_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
/* libFuzzer's own mutation; absent (and never called) in the replay build */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max) __attribute__((weak));

#define NSTID 16

struct sess {
	uint32_t seq[4];
	uint8_t other[NSTID][12];
	unsigned nstid;
	uint32_t boot32;
};

static void harvest(struct sess *ss, const uint8_t *r, size_t out)
{
	for (size_t j = 12; j + 12 <= out; j += 4) {
		if (get32(r + j + 8) != ss->boot32)
			continue;
		unsigned i = 0;
		while (i < ss->nstid && memcmp(ss->other[i], r + j, 12) != 0)
			i++;
		if (i < ss->nstid)
			continue;
		if (ss->nstid < NSTID)
			memcpy(ss->other[ss->nstid++], r + j, 12);
	}
}

static void substitute(const struct sess *ss, uint8_t *ops, size_t len)
{
	if (!ss->nstid)
		return;
	for (size_t o = 0; o + 12 <= len; o += 4)
		if (!memcmp(ops + o, "STID", 4))
			memcpy(ops + o, ss->other[ops[o + 4] % ss->nstid], 12);
}

static void run_record(struct tnfs_server *s, struct sess *ss, uint8_t ctl, uint8_t nops,
		       const uint8_t *body, size_t len, size_t cap)
{
	bool raw = ctl & 0x80, seq = !(ctl & 0x10);
	unsigned slot = ctl & 3;
	size_t head = raw ? 0 : 12 + (seq ? 36 : 0);
	/* an exactly sized request, so an overread is caught */
	size_t total = head + len;
	uint8_t *req = malloc(total ? total : 1);
	if (!req)
		abort();
	uint32_t seqid = ss->seq[slot] + ((ctl & 8) ? 0 : (ctl & 0x40) ? 2 : 1);
	if (!raw) {
		put32(req, 0);
		put32(req + 4, (ctl & 0x20) ? 2 : 1);
		put32(req + 8, nops + (uint32_t)seq);
	}
	if (!raw && seq) {
		put32(req + 12, 53);
		memcpy(req + 16, nfsfz_sessionid(), 16);
		put32(req + 32, seqid);
		put32(req + 36, slot);
		put32(req + 40, slot);
		put32(req + 44, (ctl & 4) ? 1 : 0);
	}
	memcpy(req + head, body, len);
	if (!raw)
		substitute(ss, req + head, len);
	const uint8_t *r;
	size_t out;
	int rc = nfsfz_run(s, req, total, cap, &r, &out);
	free(req);
	if (rc != 0)
		return;
	/* empty tag: results from byte 12; a SEQUENCE that succeeded moves
	 * the slot on */
	if (!raw && seq && out >= 20 && get32(r + 12) == 53 && get32(r + 16) == 0)
		ss->seq[slot] = seqid;
	harvest(ss, r, out);
}

/* The next record: its head (ctl, nops) at *head and its body, or false
 * at the end (the framing above). */
static bool next_record(const uint8_t **p, size_t *left, const uint8_t **head,
			const uint8_t **body, size_t *len)
{
	if (*left < 4)
		return false;
	*head = *p;
	*len = (size_t)(*p)[2] << 8 | (*p)[3];
	*p += 4;
	*left -= 4;
	if (*len > *left)
		*len = *left;
	*body = *p;
	*p += *len;
	*left -= *len;
	return true;
}

/* libFuzzer's mutation, then in one input out of four a length word of
 * one record's operations set near 2^32, and what follows it in that
 * record perhaps cut (nfsfz_wrap_length). */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	size = LLVMFuzzerMutate(data, size, max);
	if (size < 5 || seed % 4)
		return size;
	const uint8_t *p = data + 1, *head, *body;
	size_t left = size - 1, len, n = 0;
	while (next_record(&p, &left, &head, &body, &len))
		n++;
	if (n == 0)
		return size;
	size_t pick = (seed >> 2) % n;
	p = data + 1;
	left = size - 1;
	for (size_t i = 0; i <= pick; i++)
		(void)next_record(&p, &left, &head, &body, &len);
	size_t at = (size_t)(body - data);
	size_t keep = nfsfz_wrap_length(data + at, len, seed >> 8);
	if (keep == len)
		return size;
	memmove(data + at + keep, data + at + len, size - at - len);
	data[at - 2] = (uint8_t)(keep >> 8);
	data[at - 1] = (uint8_t)keep;
	return size - (len - keep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tnfs_server *s = nfsfz_begin(size && (data[0] & 4));
	struct sess ss = { .boot32 = (uint32_t)(nfsfz_clientid() >> 32) };
	size_t cap = size ? nfsfz_cap(data[0]) : NFSFZ_REPLY_MAX;
	const uint8_t *p = size ? data + 1 : data;
	size_t left = size ? size - 1 : 0;
	const uint8_t *head, *body;
	size_t len;
	while (next_record(&p, &left, &head, &body, &len))
		run_record(s, &ss, head[0], head[1], body, len, cap);
	nfsfz_end();
	return 0;
}
