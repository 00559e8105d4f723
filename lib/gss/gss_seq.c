/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPCSEC_GSS sequence window (RFC 2203 section 5.3.3.1).  The server
 * keeps the highest sequence number it accepted (top) and, for the
 * `size` numbers top - size + 1 .. top, whether each was seen.  A number
 * above top moves the window up; one inside it is accepted once; one
 * below it, or seen before, is dropped without a reply (the RFC's
 * "silently discard"); one at or above MAXSEQ means the context is spent.
 * The bitmap is indexed by seq modulo RPCRDMA__GSS_WINDOW_MAX, so moving
 * the window clears only the bits of the numbers it passes.
 */
#include <string.h>

#include "gss/gss_int.h"

#define WBITS RPCRDMA__GSS_WINDOW_MAX

static void bit_set(uint64_t *bits, uint32_t seq)
{
	bits[(seq % WBITS) / 64] |= (uint64_t)1 << (seq % 64);
}

static void bit_clear(uint64_t *bits, uint32_t seq)
{
	bits[(seq % WBITS) / 64] &= ~((uint64_t)1 << (seq % 64));
}

static bool bit_test(const uint64_t *bits, uint32_t seq)
{
	return bits[(seq % WBITS) / 64] >> (seq % 64) & 1;
}

void rpcrdma__gss_seqwin_init(struct rpcrdma__gss_seqwin *w, uint32_t size)
{
	memset(w, 0, sizeof(*w));
	if (size < 1)
		size = 1;
	if (size > WBITS)
		size = WBITS;
	w->size = size;
}

enum rpcrdma__gss_seq_verdict rpcrdma__gss_seqwin_check(struct rpcrdma__gss_seqwin *w,
							 uint32_t seq)
{
	if (seq >= RPCRDMA__GSS_MAXSEQ)
		return RPCRDMA__GSS_SEQ_CTXPROBLEM;
	if (!w->any || seq > w->top) {
		uint32_t from = w->any ? w->top + 1 : 0;
		if (!w->any || seq - from >= WBITS)
			memset(w->bits, 0, sizeof(w->bits));
		else
			for (uint32_t s = from; s != seq; s++)
				bit_clear(w->bits, s);
		w->any = true;
		w->top = seq;
		bit_set(w->bits, seq);
		return RPCRDMA__GSS_SEQ_OK;
	}
	if (w->top - seq >= w->size)
		return RPCRDMA__GSS_SEQ_DROP; /* below the window */
	if (bit_test(w->bits, seq))
		return RPCRDMA__GSS_SEQ_DROP; /* a replay */
	bit_set(w->bits, seq);
	return RPCRDMA__GSS_SEQ_OK;
}
