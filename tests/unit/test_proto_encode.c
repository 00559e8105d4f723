/* SPDX-License-Identifier: BSD-2-Clause */
/* White-box tests of the server-side encoders: byte-exact vectors. */
#include <errno.h>

#include <rpcrdma/credits.h>

#include "wire_util.h"

static struct wbuf b;
static uint32_t out[256];

/* A checked call with two write chunks and a reply chunk. */
static void call_with_chunks(struct rpcrdma_hdr *hdr)
{
	put_fixed(&b, 1, 8, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 1);
	put(&b, 2);
	put_seg(&b, 0xbb02, 512, 0x3000);
	put_seg(&b, 0xbb03, 512, 0x4000);
	put(&b, 1);
	put(&b, 1);
	put_seg(&b, 0xbb04, 64, 0x123456789abcdef0ull);
	put(&b, 0);
	put(&b, 1);
	put(&b, 2);
	put_seg(&b, 0xcc01, 1024, 0x5000);
	put_seg(&b, 0xcc02, 1024, 0x6000);
	assert_int_equal(rpcrdma_check_call(b.w, b.n * 4, hdr), (int)(b.n * 4));
}

static void test_reply_hdr(void **state)
{
	(void)state;
	struct rpcrdma_hdr call;
	struct rpcrdma_credits cr;
	put_fixed(&b, 1, 8, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(rpcrdma_check_call(b.w, 28, &call), 28);
	assert_int_equal(rpcrdma_credits_init(&cr, 128, 32), 0);
	assert_int_equal(rpcrdma_encode_reply_hdr(out, sizeof(out), &call, rpcrdma_credits_word(&cr), false), 28);
	assert_bytes(out, 28, "11223344 00000001 00000020 00000000 00000000 00000000 00000000");
	assert_int_equal(rpcrdma_encode_reply_hdr(out, 28, &call, rpcrdma_credits_word(&cr), true), 28);
	assert_bytes(out, 28, "11223344 00000001 00000020 00000001 00000000 00000000 00000000");
	for (size_t len = 0; len < 28; len++)
		assert_int_equal(rpcrdma_encode_reply_hdr(out, len, &call, 0, false), -EMSGSIZE);
	assert_int_equal(rpcrdma_encode_reply_hdr((char *)out + 2, 64, &call, 0, false), -EINVAL);
}

static void test_write_list(void **state)
{
	(void)state;
	struct rpcrdma_hdr call;
	call_with_chunks(&call);
	const uint32_t written[] = { 700, 64 };
	const char *want =
		"00000001 00000002"
		"0000bb02 00000200 00000000 00003000"
		"0000bb03 000000bc 00000000 00004000"
		"00000001 00000001"
		"0000bb04 00000040 12345678 9abcdef0"
		"00000000";
	int n = rpcrdma_encode_write_list(out, sizeof(out), &call, written, 2);
	assert_int_equal(n, 4 * 17);
	assert_bytes(out, (size_t)n, want);
	/* chunks beyond nwritten count as 0 bytes written */
	n = rpcrdma_encode_write_list(out, sizeof(out), &call, written, 1);
	assert_bytes(out, (size_t)n,
		     "00000001 00000002"
		     "0000bb02 00000200 00000000 00003000"
		     "0000bb03 000000bc 00000000 00004000"
		     "00000001 00000001"
		     "0000bb04 00000000 12345678 9abcdef0"
		     "00000000");
	/* every too-small size fails */
	for (size_t len = 0; len < 68; len++)
		assert_int_equal(rpcrdma_encode_write_list(out, len, &call, written, 2), -EMSGSIZE);
	/* more written than the chunk holds */
	const uint32_t too_much[] = { 1025, 0 };
	assert_int_equal(rpcrdma_encode_write_list(out, sizeof(out), &call, too_much, 2), -EINVAL);
	/* a call without a write list: just the terminator */
	struct rpcrdma_hdr none;
	put_fixed(&b, 1, 8, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(rpcrdma_check_call(b.w, 28, &none), 28);
	n = rpcrdma_encode_write_list(out, sizeof(out), &none, NULL, 0);
	assert_bytes(out, (size_t)n, "00000000");
}

static void test_reply_chunk(void **state)
{
	(void)state;
	struct rpcrdma_hdr call;
	call_with_chunks(&call);
	int n = rpcrdma_encode_reply_chunk(out, sizeof(out), &call, 1500);
	assert_bytes(out, (size_t)n,
		     "00000001 00000002"
		     "0000cc01 00000400 00000000 00005000"
		     "0000cc02 000001dc 00000000 00006000");
	for (size_t len = 0; len < 40; len++)
		assert_int_equal(rpcrdma_encode_reply_chunk(out, len, &call, 1500), -EMSGSIZE);
	assert_int_equal(rpcrdma_encode_reply_chunk(out, sizeof(out), &call, 2049), -EINVAL);
	call.reply_chunk = NULL;
	n = rpcrdma_encode_reply_chunk(out, sizeof(out), &call, 0);
	assert_bytes(out, (size_t)n, "00000000");
}

static void test_full_reply(void **state)
{
	(void)state;
	struct rpcrdma_hdr call, rep;
	call_with_chunks(&call);
	const uint32_t written[] = { 512, 10 };
	const char *want =
		"11223344 00000001 00000010 00000001"
		"00000000"
		"00000001 00000002"
		"0000bb02 00000200 00000000 00003000"
		"0000bb03 00000000 00000000 00004000"
		"00000001 00000001"
		"0000bb04 0000000a 12345678 9abcdef0"
		"00000000"
		"00000001 00000002"
		"0000cc01 00000400 00000000 00005000"
		"0000cc02 00000004 00000000 00006000";
	uint32_t word = __builtin_bswap32(16);
	int n = rpcrdma_encode_reply(out, sizeof(out), &call, word, written, 2, true, 1028);
	assert_int_equal(n, 4 * 32);
	assert_bytes(out, (size_t)n, want);
	for (size_t len = 0; len < (size_t)n; len++)
		assert_int_equal(rpcrdma_encode_reply(out, len, &call, word, written, 2, true, 1028), -EMSGSIZE);
	/* and the client accepts it with the lengths written */
	assert_int_equal(rpcrdma_check_reply(out, (size_t)n, &rep), n);
	assert_int_equal(rep.type, RPCRDMA_NOMSG);
	assert_int_equal(rep.credits, 16);
	assert_int_equal(rep.write_chunks, 2);
	assert_int_equal(rep.write_segments, 3);
	assert_int_equal(rep.reply_segments, 2);

	/* RDMA_MSG: the reply chunk is sent absent */
	n = rpcrdma_encode_reply(out, sizeof(out), &call, word, written, 2, false, 0);
	assert_int_equal(n, 4 * 23);
	assert_bytes((const char *)out + 4 * 22, 4, "00000000");
	assert_bytes((const char *)out + 12, 4, "00000000");
	assert_int_equal(rpcrdma_check_reply(out, (size_t)n, &rep), n);
	/* RDMA_NOMSG without a reply chunk in the call */
	call.reply_chunk = NULL;
	assert_int_equal(rpcrdma_encode_reply(out, sizeof(out), &call, word, written, 2, true, 0), -EINVAL);
}

static void test_errors(void **state)
{
	(void)state;
	struct rpcrdma_hdr call;
	put_fixed(&b, 2, 8, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(rpcrdma_check_call(b.w, 28, &call), -EPROTONOSUPPORT);
	uint32_t word = __builtin_bswap32(5);
	assert_int_equal(rpcrdma_encode_err_vers(out, sizeof(out), &call, word), 28);
	assert_bytes(out, 28, "11223344 00000002 00000005 00000004 00000001 00000001 00000001");
	for (size_t len = 0; len < 28; len++)
		assert_int_equal(rpcrdma_encode_err_vers(out, len, &call, word), -EMSGSIZE);

	put_fixed(&b, 1, 8, RPCRDMA_MSG);
	put(&b, 7); /* bad discriminator */
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(rpcrdma_check_call(b.w, 28, &call), -EINVAL);
	assert_int_equal(rpcrdma_encode_err_chunk(out, sizeof(out), &call, word), 20);
	assert_bytes(out, 20, "11223344 00000001 00000005 00000004 00000002");
	for (size_t len = 0; len < 20; len++)
		assert_int_equal(rpcrdma_encode_err_chunk(out, len, &call, word), -EMSGSIZE);

	/* both are accepted by the reply checker */
	struct rpcrdma_hdr rep;
	assert_int_equal(rpcrdma_check_reply(out, 20, &rep), 20);
	assert_int_equal(rep.type, RPCRDMA_ERROR);
	assert_int_equal(rep.err, RPCRDMA_ERR_CHUNK);
	call.vers = 1;
	assert_int_equal(rpcrdma_encode_err_vers(out, sizeof(out), &call, word), 28);
	assert_int_equal(rpcrdma_check_reply(out, 28, &rep), 28);
	assert_int_equal(rep.err, RPCRDMA_ERR_VERS);
	assert_int_equal(rep.vers_low, 1);
	assert_int_equal(rep.vers_high, 1);
}

/* A NULL output buffer is -EINVAL for every encoder, whatever len says
 * (and no pointer arithmetic on NULL: UBSan checks it in the sanitizer
 * build). */
static void test_null_out(void **state)
{
	(void)state;
	struct rpcrdma_hdr call;
	uint32_t written = 0;
	call_with_chunks(&call);
	for (size_t len = 0; len <= 64; len += 64) {
		assert_int_equal(rpcrdma_encode_reply_hdr(NULL, len, &call, 0, false), -EINVAL);
		assert_int_equal(rpcrdma_encode_write_list(NULL, len, &call, &written, 1), -EINVAL);
		assert_int_equal(rpcrdma_encode_reply_chunk(NULL, len, &call, 0), -EINVAL);
		assert_int_equal(rpcrdma_encode_reply(NULL, len, &call, 0, NULL, 0, true, 0), -EINVAL);
		assert_int_equal(rpcrdma_encode_err_vers(NULL, len, &call, 0), -EINVAL);
		assert_int_equal(rpcrdma_encode_err_chunk(NULL, len, &call, 0), -EINVAL);
	}
	struct rpcrdma_call_desc d = { .xid = 1, .credits = 1, .type = RPCRDMA_MSG };
	assert_int_equal(rpcrdma_encode_call(NULL, 64, &d), -EINVAL);
	assert_int_equal(rpcrdma_encode_call(out, 64, &d), 28);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_hdr),
		cmocka_unit_test(test_write_list),
		cmocka_unit_test(test_reply_chunk),
		cmocka_unit_test(test_full_reply),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_null_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
