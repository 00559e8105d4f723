/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box: the RPCSEC_GSS sequence window (lib/gss/gss_seq.c, RFC 2203
 * 5.3.3.1): in order, out of order inside the window, duplicates, below
 * the window, jumps of more than the bitmap, MAXSEQ, and the bitmap's
 * wrap (numbers that share a bit modulo RPCRDMA__GSS_WINDOW_MAX).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "gss/gss_int.h"

#define OK RPCRDMA__GSS_SEQ_OK
#define DROP RPCRDMA__GSS_SEQ_DROP
#define CTX RPCRDMA__GSS_SEQ_CTXPROBLEM

static void test_in_order_and_replay(void **state)
{
	(void)state;
	struct rpcrdma__gss_seqwin w;
	rpcrdma__gss_seqwin_init(&w, 8);
	for (uint32_t s = 1; s <= 100; s++) {
		assert_int_equal(rpcrdma__gss_seqwin_check(&w, s), OK);
		assert_int_equal(rpcrdma__gss_seqwin_check(&w, s), DROP);
	}
	/* inside the window but seen; below it */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 93), DROP);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 92), DROP);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 0), DROP);
}

static void test_out_of_order(void **state)
{
	(void)state;
	struct rpcrdma__gss_seqwin w;
	rpcrdma__gss_seqwin_init(&w, 8);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 10), OK);
	/* 3..9 inside (10 - 8 + 1 = 3 is the lowest), 2 below */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 2), DROP);
	for (uint32_t s = 9; s >= 3; s--)
		assert_int_equal(rpcrdma__gss_seqwin_check(&w, s), OK);
	for (uint32_t s = 3; s <= 10; s++)
		assert_int_equal(rpcrdma__gss_seqwin_check(&w, s), DROP);
	/* a jump leaves the numbers it skipped acceptable once */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 15), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 12), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 12), DROP);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 7), DROP); /* 15 - 8 */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 11), OK);
	/* the first number may be anything below MAXSEQ, 0 included */
	rpcrdma__gss_seqwin_init(&w, 4);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 0), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 0), DROP);
}

static void test_maxseq(void **state)
{
	(void)state;
	struct rpcrdma__gss_seqwin w;
	rpcrdma__gss_seqwin_init(&w, 128);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, RPCRDMA__GSS_MAXSEQ - 1), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, RPCRDMA__GSS_MAXSEQ), CTX);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 0xffffffff), CTX);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, RPCRDMA__GSS_MAXSEQ - 2), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, RPCRDMA__GSS_MAXSEQ - 129), DROP);
	/* seq 0 never wraps into the window from the top */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 0), DROP);
}

static void test_bitmap_wrap(void **state)
{
	(void)state;
	struct rpcrdma__gss_seqwin w;
	const uint32_t M = RPCRDMA__GSS_WINDOW_MAX;
	rpcrdma__gss_seqwin_init(&w, M);
	assert_int_equal(w.size, M);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 5), OK);
	/* 5 + M shares 5's bit: moving there clears it, then 5 is below */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 5 + M), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 5), DROP);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 6), OK); /* lowest inside */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 6), DROP);
	/* a jump of more than the bitmap: everything below is forgotten */
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 10 * M + 3), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 9 * M + 4), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 9 * M + 3), DROP);
	/* every number in a full window once, from the bottom, then replays */
	rpcrdma__gss_seqwin_init(&w, M);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 3 * M), OK);
	for (uint32_t s = 2 * M + 1; s < 3 * M; s++)
		assert_int_equal(rpcrdma__gss_seqwin_check(&w, s), OK);
	for (uint32_t s = 2 * M + 1; s <= 3 * M; s++)
		assert_int_equal(rpcrdma__gss_seqwin_check(&w, s), DROP);
	/* sizes are clamped */
	rpcrdma__gss_seqwin_init(&w, 0);
	assert_int_equal(w.size, 1);
	rpcrdma__gss_seqwin_init(&w, 0xffffffff);
	assert_int_equal(w.size, M);
	/* size 1: only a higher number passes */
	rpcrdma__gss_seqwin_init(&w, 1);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 7), OK);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 6), DROP);
	assert_int_equal(rpcrdma__gss_seqwin_check(&w, 8), OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_and_replay),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_maxseq),
		cmocka_unit_test(test_bitmap_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
