/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box, issue 23 item 1: the service core's call-header decoder
 * (rpcrdma__svc_call_decode, with the AUTH_SYS credential decoder behind
 * it) given each word from 0xfffffff0 to 0xffffffff in place of each word
 * of a valid call, in heap buffers of exactly the call's size and cut
 * right after the word.  A length or count word so large is never
 * accepted; no word makes it read outside the buffer (ASan in the asan
 * build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "svc/svc_int.h"

/* xid, CALL, rpcvers 2, prog 100003 v4 proc 1; AUTH_SYS { stamp, "host",
 * uid, gid, gids {10, 20} }; AUTH_NONE verifier; 4 argument bytes. */
static const uint32_t call[] = {
	0x01020304, 0, 2, 100003, 4, 1,
	1, 32, 0x5f, 4, 0x686f7374, 0, 0, 2, 10, 20,
	0, 0,
	0xdeadbeef,
};
#define NWORDS (sizeof(call) / sizeof(call[0]))
/* the words that are lengths or counts: cred body, machinename, gids,
 * verifier body */
static const unsigned lengths[] = { 7, 9, 13, 17 };

static bool is_length(unsigned i)
{
	for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++)
		if (lengths[k] == i)
			return true;
	return false;
}

static enum rpcrdma__call_verdict decode(unsigned i, uint32_t v, size_t len)
{
	uint8_t *b = malloc(len ? len : 1);
	assert_non_null(b);
	for (size_t k = 0; k < len; k++) {
		uint32_t w = k / 4 == i ? v : call[k / 4];
		b[k] = (uint8_t)(w >> (24 - 8 * (k % 4)));
	}
	struct rpcrdma__call_hdr h;
	enum rpcrdma__call_verdict r = rpcrdma__svc_call_decode(b, len, &h);
	if (r == RPCRDMA__CALL_OK)
		assert_true(h.len <= len);
	free(b);
	return r;
}

static void test_call_lengths_near_2_32(void **state)
{
	(void)state;
	assert_int_equal(decode(NWORDS, 0, sizeof(call)), RPCRDMA__CALL_OK);
	for (unsigned i = 0; i < NWORDS; i++) {
		for (uint64_t v = 0xfffffff0u; v <= 0xffffffffu; v++) {
			size_t lens[] = { i * 4u + 4, i * 4u + 7, sizeof(call) };
			for (size_t k = 0; k < 3; k++) {
				if (lens[k] > sizeof(call))
					continue;
				enum rpcrdma__call_verdict r = decode(i, (uint32_t)v, lens[k]);
				if (is_length(i) && r == RPCRDMA__CALL_OK)
					fail_msg("word %u = 0x%08x accepted in %zu bytes", i,
						 (unsigned)v, lens[k]);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_lengths_near_2_32),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
