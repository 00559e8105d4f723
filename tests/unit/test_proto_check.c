/* SPDX-License-Identifier: BSD-2-Clause */
/* White-box tests of the call checker, the list walkers and the iterators. */
#include <errno.h>

#include "wire_util.h"
#include "wire/xdr.h"

static struct wbuf b;
static struct rpcrdma_hdr hdr;

static size_t bytes(void)
{
	return b.n * 4;
}

/* Adds an inline "RPC message" so the buffer is longer than the header. */
static void payload(unsigned words)
{
	for (unsigned i = 0; i < words; i++)
		put(&b, 0xa0a0a000u + i);
}

static void msg_no_chunks(void)
{
	put_fixed(&b, 1, 32, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
}

static void test_no_chunks(void **state)
{
	(void)state;
	msg_no_chunks();
	payload(10);
	assert_int_equal(rpcrdma_check_call(b.w, bytes(), &hdr), 28);
	assert_int_equal(hdr.hdrlen, 28);
	assert_memory_equal(&hdr.xid, "\x11\x22\x33\x44", 4);
	assert_int_equal(hdr.vers, 1);
	assert_int_equal(hdr.credits, 32);
	assert_int_equal(hdr.type, RPCRDMA_MSG);
	assert_ptr_equal(hdr.read_list, &b.w[4]);
	assert_ptr_equal(hdr.write_list, &b.w[5]);
	assert_null(hdr.reply_chunk);
	assert_int_equal(hdr.read_chunks + hdr.read_segments + hdr.write_chunks +
			 hdr.write_segments + hdr.reply_segments, 0);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OK);
	/* exactly 28 bytes, no payload */
	assert_int_equal(check_call_copy(b.w, 28, &hdr, NULL), 28);
}

/* A call with one read chunk of two segments, two write chunks, a reply chunk. */
static void msg_all_lists(void)
{
	put_fixed(&b, 1, 8, RPCRDMA_MSG);
	put_read(&b, 100, 0xaa01, 4000, 0x1000);
	put_read(&b, 100, 0xaa02, 96, 0x2000);
	put(&b, 0);
	put(&b, 1);
	put(&b, 1);
	put_seg(&b, 0xbb01, 8192, 0xffffffff00000000ull);
	put(&b, 1);
	put(&b, 2);
	put_seg(&b, 0xbb02, 512, 0x3000);
	put_seg(&b, 0xbb03, 512, 0x4000);
	put(&b, 0);
	put(&b, 1);
	put(&b, 1);
	put_seg(&b, 0xcc01, 1024, 0x5000);
}

static void test_all_lists_view(void **state)
{
	(void)state;
	msg_all_lists();
	size_t hl = bytes();
	payload(40);
	assert_int_equal(rpcrdma_check_call(b.w, bytes(), &hdr), (int)hl);
	assert_int_equal(hdr.read_chunks, 1);
	assert_int_equal(hdr.read_segments, 2);
	assert_int_equal(hdr.write_chunks, 2);
	assert_int_equal(hdr.write_segments, 3);
	assert_ptr_equal(hdr.reply_chunk, &b.w[hl / 4 - 5]);
	assert_int_equal(hdr.reply_segments, 1);

	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;
	struct rpcrdma_segment seg;
	rpcrdma_read_chunks(&hdr, &it);
	assert_true(rpcrdma_next_chunk(&it, &ch));
	assert_int_equal(ch.position, 100);
	assert_int_equal(ch.nsegs, 2);
	assert_int_equal(ch.length, 4096);
	assert_true(rpcrdma_next_segment(&ch, &seg));
	assert_int_equal(seg.handle, 0xaa01);
	assert_int_equal(seg.length, 4000);
	assert_int_equal(seg.offset, 0x1000);
	assert_true(rpcrdma_next_segment(&ch, &seg));
	assert_int_equal(seg.handle, 0xaa02);
	assert_false(rpcrdma_next_segment(&ch, &seg));
	assert_false(rpcrdma_next_chunk(&it, &ch));

	rpcrdma_write_chunks(&hdr, &it);
	assert_true(rpcrdma_next_chunk(&it, &ch));
	assert_int_equal(ch.nsegs, 1);
	assert_int_equal(ch.length, 8192);
	assert_true(rpcrdma_next_segment(&ch, &seg));
	assert_int_equal(seg.offset, 0xffffffff00000000ull);
	assert_true(rpcrdma_next_chunk(&it, &ch));
	assert_int_equal(ch.nsegs, 2);
	assert_int_equal(ch.length, 1024);
	assert_true(rpcrdma_next_segment(&ch, &seg));
	assert_true(rpcrdma_next_segment(&ch, &seg));
	assert_int_equal(seg.handle, 0xbb03);
	assert_int_equal(seg.offset, 0x4000);
	assert_false(rpcrdma_next_chunk(&it, &ch));

	assert_true(rpcrdma_reply_chunk(&hdr, &ch));
	assert_int_equal(ch.nsegs, 1);
	assert_int_equal(ch.length, 1024);
	assert_true(rpcrdma_next_segment(&ch, &seg));
	assert_int_equal(seg.handle, 0xcc01);
}

static void test_truncated_everywhere(void **state)
{
	(void)state;
	msg_all_lists();
	size_t hl = bytes();
	for (size_t len = 0; len < hl; len++) {
		memset(&hdr, 0x5a, sizeof(hdr));
		int rc = check_call_copy(b.w, len, &hdr, NULL);
		assert_int_equal(rc, -EINVAL);
		assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
	}
	assert_int_equal(check_call_copy(b.w, hl, &hdr, NULL), (int)hl);
	/* trailing bytes that are not a whole word are not read */
	assert_int_equal(check_call_copy(b.w, hl + 3, &hdr, NULL), (int)hl);
}

static void test_short_and_align(void **state)
{
	(void)state;
	msg_no_chunks();
	assert_int_equal(rpcrdma_check_call(NULL, 0, &hdr), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
	assert_int_equal(rpcrdma_check_call(b.w, 20, &hdr), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
	/* 24 bytes: a message type needing 28 */
	assert_int_equal(rpcrdma_check_call(b.w, 24, &hdr), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
	static uint8_t raw[64] __attribute__((aligned(8)));
	memcpy(raw + 1, b.w, 28);
	assert_int_equal(rpcrdma_check_call(raw + 1, 28, &hdr), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_ALIGN);
}

static void test_bad_version(void **state)
{
	(void)state;
	for (uint32_t v = 0; v < 4; v++) {
		if (v == 1)
			continue;
		put_fixed(&b, v, 1, RPCRDMA_MSG);
		put(&b, 0);
		put(&b, 0);
		put(&b, 0);
		memset(&hdr, 0, sizeof(hdr));
		assert_int_equal(rpcrdma_check_call(b.w, bytes(), &hdr), -EPROTONOSUPPORT);
		assert_memory_equal(&hdr.xid, "\x11\x22\x33\x44", 4);
		assert_int_equal(hdr.vers, v);
		assert_int_equal(hdr.reason, RPCRDMA_CHECK_VERSION);
	}
	put_fixed(&b, 0xffffffffu, 1, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(rpcrdma_check_call(b.w, 24, &hdr), -EPROTONOSUPPORT);
	assert_int_equal(hdr.vers, 0xffffffffu);
}

static void test_every_type(void **state)
{
	(void)state;
	static const struct {
		uint32_t type;
		int rc;
		enum rpcrdma_check_reason reason;
	} cases[] = {
		{ RPCRDMA_MSG, 28, RPCRDMA_CHECK_OK },
		{ RPCRDMA_NOMSG, -EINVAL, RPCRDMA_CHECK_NOMSG }, /* no position-zero chunk */
		{ RPCRDMA_MSGP, -EINVAL, RPCRDMA_CHECK_PROC },
		{ RPCRDMA_DONE, 0, RPCRDMA_CHECK_DROP },
		{ RPCRDMA_ERROR, 0, RPCRDMA_CHECK_DROP },
		{ 5, -EINVAL, RPCRDMA_CHECK_PROC },
		{ 0x80000000u, -EINVAL, RPCRDMA_CHECK_PROC },
		{ 0xffffffffu, -EINVAL, RPCRDMA_CHECK_PROC },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_fixed(&b, 1, 7, cases[i].type);
		put(&b, 0);
		put(&b, 0);
		put(&b, 0);
		assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), cases[i].rc);
		assert_int_equal(hdr.reason, cases[i].reason);
		if (cases[i].rc >= 0) {
			assert_int_equal(hdr.type, cases[i].type);
			assert_int_equal(hdr.credits, 7);
		}
	}
	/* RDMA_ERROR as a 24-byte call-side message: dropped */
	put_fixed(&b, 1, 1, RPCRDMA_ERROR);
	put(&b, RPCRDMA_ERR_VERS);
	put(&b, 1);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), 0);
}

/*
 * RDMA_DONE and RDMA_ERROR are never answered, whatever their length (issue
 * 23 item 13): every length from the four fixed words up, with or without
 * an error code, through both checkers, drops them with the fixed words
 * filled.  Below 16 bytes, other versions, and other types at 20 bytes or
 * less stay [SHORT]; 21..27 bytes keep their reasons.
 */
static void test_done_error_every_length(void **state)
{
	(void)state;
	static const uint32_t types[] = { RPCRDMA_MSG,  RPCRDMA_NOMSG, RPCRDMA_MSGP,
					  RPCRDMA_DONE, RPCRDMA_ERROR, 5,
					  0xffffffffu };
	struct rpcrdma_limits lim = { .size = sizeof(lim) };

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (uint32_t vers = 0; vers < 3; vers++) {
			put_fixed(&b, vers, 9, types[t]);
			put(&b, RPCRDMA_ERR_CHUNK);
			put(&b, 1);
			put(&b, 1);
			for (size_t len = 0; len < 28; len++) {
				bool drop = vers == 1 && len >= 16 &&
					    (types[t] == RPCRDMA_DONE || types[t] == RPCRDMA_ERROR);

				for (int ex = 0; ex < 2; ex++) {
					memset(&hdr, 0x5a, sizeof(hdr));
					int rc = check_call_copy(b.w, len, &hdr, ex ? &lim : NULL);

					if (drop) {
						assert_int_equal(rc, 0);
						assert_int_equal(hdr.reason, RPCRDMA_CHECK_DROP);
						assert_int_equal(hdr.type, types[t]);
						assert_int_equal(hdr.vers, 1);
						assert_int_equal(hdr.credits, 9);
						assert_memory_equal(&hdr.xid, "\x11\x22\x33\x44", 4);
					} else if (len <= RPCRDMA_HDRLEN_ERR) {
						assert_int_equal(rc, -EINVAL);
						assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
					} else {
						assert_true(rc < 0);
						assert_int_not_equal(hdr.reason, RPCRDMA_CHECK_DROP);
					}
				}
			}
		}
	}
	/* Misaligned: never read, even at 16 bytes. */
	static uint8_t raw[64] __attribute__((aligned(8)));
	put_fixed(&b, 1, 1, RPCRDMA_ERROR);
	memcpy(raw + 2, b.w, 16);
	assert_int_equal(rpcrdma_check_call(raw + 2, 16, &hdr), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
}

static void test_nomsg_position_zero(void **state)
{
	(void)state;
	put_fixed(&b, 1, 1, RPCRDMA_NOMSG);
	put_read(&b, 0, 1, 200, 0x10);
	put_read(&b, 0, 2, 100, 0x20);
	put_read(&b, 300, 3, 8, 0x30); /* 200+100 = 300: adjacent, no overlap */
	put(&b, 0);
	put(&b, 0);
	put(&b, 1);
	put(&b, 1);
	put_seg(&b, 9, 4096, 0x99);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), (int)bytes());
	assert_int_equal(rpcrdma_check_call(b.w, bytes(), &hdr), (int)bytes());
	assert_int_equal(hdr.read_chunks, 2);
	assert_int_equal(hdr.read_segments, 3);
	assert_int_equal(hdr.type, RPCRDMA_NOMSG);

	/* the same position-zero chunk with RDMA_MSG is rejected */
	b.w[3] = RPCRDMA_XDR_MSG;
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_POS_ZERO);

	/* RDMA_NOMSG whose only read chunk is not at position zero */
	put_fixed(&b, 1, 1, RPCRDMA_NOMSG);
	put_read(&b, 4, 1, 200, 0x10);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_NOMSG);

	/* RDMA_NOMSG with only a reply chunk carries no call */
	put_fixed(&b, 1, 1, RPCRDMA_NOMSG);
	put(&b, 0);
	put(&b, 0);
	put(&b, 1);
	put(&b, 1);
	put_seg(&b, 9, 4096, 0x99);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_NOMSG);
}

/*
 * RFC 8166 section 3.5.3: a Long Call (RDMA_NOMSG, the call in a
 * position-zero read chunk) may move data items in read chunks at other
 * positions, which are offsets in the reassembled call.  A byte-exact
 * header: a two-segment position-zero chunk (100 + 60 bytes of call without
 * its data items), a 4096-byte data item at position 40 (inside the part
 * the position-zero chunk carries), a 10-byte one at 4144 (40 + 4096 + 8),
 * no write list, a one-segment reply chunk.
 */
static const char nomsg_pz_data_hex[] =
	"11223344 00000001 00000020 00000001"
	"00000001 00000000 00000101 00000064 00000000 00010000" /* pos 0, 100 B */
	"00000001 00000000 00000102 0000003c 00000000 00020000" /* pos 0, 60 B */
	"00000001 00000028 00000201 00001000 00000000 00030000" /* pos 40, 4096 B */
	"00000001 00001030 00000202 0000000a 00000000 00040000" /* pos 4144, 10 B */
	"00000000"
	"00000000"
	"00000001 00000001 00000301 00002000 00000000 00050000";

static void test_nomsg_position_zero_with_data(void **state)
{
	(void)state;
	static uint32_t raw[64];
	size_t n = hex(nomsg_pz_data_hex, (uint8_t *)raw);
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;
	struct rpcrdma_segment seg;

	assert_int_equal(n, 4 * 4 + 4 * 24 + 4 + 4 + 24);
	assert_int_equal(check_call_copy(raw, n, &hdr, NULL), (int)n);
	assert_int_equal(rpcrdma__check_call_general(raw, n, &hdr), (int)n);
	assert_int_equal(rpcrdma_check_call(raw, n, &hdr), (int)n);
	assert_int_equal(hdr.type, RPCRDMA_NOMSG);
	assert_int_equal(hdr.read_chunks, 3);
	assert_int_equal(hdr.read_segments, 4);
	assert_int_equal(hdr.reply_segments, 1);
	rpcrdma_read_chunks(&hdr, &it);
	assert_true(rpcrdma_next_chunk(&it, &ch));
	assert_int_equal(ch.position, 0);
	assert_int_equal(ch.nsegs, 2);
	assert_int_equal(ch.length, 160);
	assert_true(rpcrdma_next_segment(&ch, &seg));
	assert_int_equal(seg.handle, 0x101);
	assert_int_equal(seg.offset, 0x10000);
	assert_true(rpcrdma_next_chunk(&it, &ch));
	assert_int_equal(ch.position, 40);
	assert_int_equal(ch.length, 4096);
	assert_true(rpcrdma_next_chunk(&it, &ch));
	assert_int_equal(ch.position, 4144);
	assert_int_equal(ch.length, 10);
	assert_false(rpcrdma_next_chunk(&it, &ch));

	/* the same list with RDMA_MSG: position zero is not allowed */
	raw[3] = RPCRDMA_XDR_MSG;
	assert_int_equal(check_call_copy(raw, n, &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_POS_ZERO);
	raw[3] = RPCRDMA_XDR_NOMSG;

	/* the data items still must not overlap each other: the 4096-byte
	 * one occupies [40, 4136) of the call, so the next may start at 4136 */
	raw[4 + 18 + 1] = __builtin_bswap32(4132);
	assert_int_equal(check_call_copy(raw, n, &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OVERLAP);
	raw[4 + 18 + 1] = __builtin_bswap32(4136); /* adjacent: fine */
	assert_int_equal(check_call_copy(raw, n, &hdr, NULL), (int)n);
	raw[4 + 18 + 1] = __builtin_bswap32(4144);

	/* a position-zero entry after a data chunk: out of order */
	raw[4 + 6 + 1] = __builtin_bswap32(40);  /* second segment moves to 40 */
	raw[4 + 12 + 1] = __builtin_bswap32(0);  /* and the 4096 B one to 0 */
	assert_int_equal(check_call_copy(raw, n, &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OVERLAP);
	hex(nomsg_pz_data_hex, (uint8_t *)raw);

	/* data positions are still multiples of 4 */
	raw[4 + 12 + 1] = __builtin_bswap32(42);
	assert_int_equal(check_call_copy(raw, n, &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_POSITION);
}

/* A read list with the given (position, length) entries, then empty lists. */
static int reads(const uint32_t (*e)[2], size_t n)
{
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	for (size_t i = 0; i < n; i++)
		put_read(&b, e[i][0], 0x100 + (uint32_t)i, e[i][1], 0x1000 * i);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	return check_call_copy(b.w, bytes(), &hdr, NULL);
}

static void test_positions(void **state)
{
	(void)state;
	static const uint32_t misaligned[][2] = { { 6, 8 } };
	assert_int_equal(reads(misaligned, 1), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_POSITION);

	/* chunk at 8 of 5 bytes occupies [8, 16): 16 is fine, 12 overlaps */
	static const uint32_t ok_pad[][2] = { { 8, 5 }, { 16, 4 } };
	assert_true(reads(ok_pad, 2) > 0);
	assert_int_equal(hdr.read_chunks, 2);
	static const uint32_t overlap[][2] = { { 8, 5 }, { 12, 4 } };
	assert_int_equal(reads(overlap, 2), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OVERLAP);

	/* decreasing positions */
	static const uint32_t backwards[][2] = { { 64, 4 }, { 8, 4 } };
	assert_int_equal(reads(backwards, 2), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OVERLAP);

	/* segments of one chunk split by another chunk */
	static const uint32_t split[][2] = { { 8, 4 }, { 100, 4 }, { 8, 4 } };
	assert_int_equal(reads(split, 3), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OVERLAP);

	/* a second segment of a chunk that makes it overlap the next one */
	static const uint32_t grow[][2] = { { 8, 4 }, { 8, 8 }, { 16, 4 } };
	assert_int_equal(reads(grow, 3), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OVERLAP);

	/* positions near 2^32 and huge lengths do not wrap */
	static const uint32_t high[][2] = { { 0xfffffffcu, 0x00f00000u }, { 4, 4 } };
	assert_int_equal(reads(high, 2), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_OVERLAP);
	static const uint32_t top[][2] = { { 0xfffffff8u, 4 }, { 0xfffffffcu, 4 } };
	assert_true(reads(top, 2) > 0);
}

static void test_discriminators(void **state)
{
	(void)state;
	for (int list = 0; list < 3; list++) {
		put_fixed(&b, 1, 1, RPCRDMA_MSG);
		put(&b, list == 0 ? 2 : 0);
		put(&b, list == 1 ? 0xffffffffu : 0);
		put(&b, list == 2 ? 7 : 0);
		put(&b, 0);
		assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), -EINVAL);
		assert_int_equal(hdr.reason, RPCRDMA_CHECK_DISCRIM);
	}
}

static void test_huge_counts(void **state)
{
	(void)state;
	static const uint32_t counts[] = { 0xffffffffu, 0x80000000u, 0x40000000u, 0x10000001u, 65 };
	struct rpcrdma_limits unlimited = { sizeof(unlimited), 0xffffffffu, 0xffffffffu, 0xffffffffu,
					    0xffffffffu };
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		for (int reply = 0; reply < 2; reply++) {
			put_fixed(&b, 1, 1, RPCRDMA_MSG);
			put(&b, 0);
			if (reply)
				put(&b, 0);
			put(&b, 1);
			put(&b, counts[i]);
			put_seg(&b, 1, 1, 1);
			put_seg(&b, 2, 2, 2);
			put(&b, 0);
			put(&b, 0);
			assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), -EINVAL);
			assert_int_equal(hdr.reason, RPCRDMA_CHECK_TOO_MANY_SEGMENTS);
			/* with no limit the count runs past the end */
			assert_int_equal(check_call_copy(b.w, bytes(), &hdr, &unlimited), -EINVAL);
			assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
		}
	}
	/* a segment length of 0xffffffff in every segment does not overflow the sum */
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 1);
	put(&b, 4);
	for (int i = 0; i < 4; i++)
		put_seg(&b, 1, 0xffffffffu, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_CHUNK_LENGTH);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, &unlimited), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_CHUNK_LENGTH);
}

static void test_zero_segments(void **state)
{
	(void)state;
	for (int reply = 0; reply < 2; reply++) {
		put_fixed(&b, 1, 1, RPCRDMA_MSG);
		put(&b, 0);
		if (reply)
			put(&b, 0);
		put(&b, 1);
		put(&b, 0);
		put(&b, 0);
		put(&b, 0);
		assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), -EINVAL);
		assert_int_equal(hdr.reason, RPCRDMA_CHECK_NO_SEGMENTS);
	}
}

static void test_limits(void **state)
{
	(void)state;
	struct rpcrdma_limits lim = { .size = sizeof(lim), .max_segments = 4, .max_chunk_bytes = 4096,
				      .max_read_chunks = 2, .max_write_chunks = 2 };
	/* write chunks: 2 fine, 3 too many */
	for (uint32_t nchunks = 2; nchunks <= 3; nchunks++) {
		put_fixed(&b, 1, 1, RPCRDMA_MSG);
		put(&b, 0);
		for (uint32_t c = 0; c < nchunks; c++) {
			put(&b, 1);
			put(&b, 1);
			put_seg(&b, c, 100, 0);
		}
		put(&b, 0);
		put(&b, 0);
		int rc = check_call_copy(b.w, bytes(), &hdr, &lim);
		if (nchunks == 2) {
			assert_int_equal(rc, (int)bytes());
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(hdr.reason, RPCRDMA_CHECK_TOO_MANY_CHUNKS);
			assert_int_equal(check_call_copy(b.w, bytes(), &hdr, NULL), (int)bytes());
		}
	}
	/* segments per chunk: 4 fine, 5 too many; reply chunk the same */
	for (uint32_t n = 4; n <= 5; n++) {
		put_fixed(&b, 1, 1, RPCRDMA_MSG);
		put(&b, 0);
		put(&b, 0);
		put(&b, 1);
		put(&b, n);
		for (uint32_t i = 0; i < n; i++)
			put_seg(&b, i, 10, 0);
		int rc = check_call_copy(b.w, bytes(), &hdr, &lim);
		assert_int_equal(rc, n == 4 ? (int)bytes() : -EINVAL);
		if (n == 5)
			assert_int_equal(hdr.reason, RPCRDMA_CHECK_TOO_MANY_SEGMENTS);
	}
	/* chunk bytes: 4096 fine, 4097 too long (two segments) */
	for (uint32_t extra = 0; extra <= 1; extra++) {
		put_fixed(&b, 1, 1, RPCRDMA_MSG);
		put(&b, 0);
		put(&b, 1);
		put(&b, 2);
		put_seg(&b, 1, 4000, 0);
		put_seg(&b, 2, 96 + extra, 0);
		put(&b, 0);
		put(&b, 0);
		int rc = check_call_copy(b.w, bytes(), &hdr, &lim);
		assert_int_equal(rc, extra ? -EINVAL : (int)bytes());
		if (extra)
			assert_int_equal(hdr.reason, RPCRDMA_CHECK_CHUNK_LENGTH);
	}
	/* read chunks: 2 fine, 3 too many; 5 segments in one read chunk too many */
	static const uint32_t three[][2] = { { 4, 4 }, { 8, 4 }, { 12, 4 } };
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	for (int i = 0; i < 3; i++)
		put_read(&b, three[i][0], 1, three[i][1], 0);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, &lim), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_TOO_MANY_CHUNKS);
	assert_int_equal(check_call_copy(b.w, bytes() - 0, &hdr, NULL), (int)bytes());
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	for (int i = 0; i < 5; i++)
		put_read(&b, 8, 1, 4, 0);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, &lim), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_TOO_MANY_SEGMENTS);
	/* a read chunk whose segments sum past max_chunk_bytes */
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put_read(&b, 8, 1, 4000, 0);
	put_read(&b, 8, 1, 97, 0);
	put(&b, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, &lim), -EINVAL);
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_CHUNK_LENGTH);

	/* a limits struct too small for a field: that field keeps its default */
	struct rpcrdma_limits small = { .size = offsetof(struct rpcrdma_limits, max_chunk_bytes),
					.max_segments = 4, .max_chunk_bytes = 1 };
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put(&b, 0);
	put(&b, 1);
	put(&b, 1);
	put_seg(&b, 1, 100000, 0);
	put(&b, 0);
	put(&b, 0);
	assert_int_equal(check_call_copy(b.w, bytes(), &hdr, &small), (int)bytes());
}

static void test_walkers(void **state)
{
	(void)state;
	msg_all_lists();
	const uint32_t *end = b.w + b.n;
	memset(&hdr, 0, sizeof(hdr));
	const uint32_t *p = rpcrdma_walk_read_list(b.w + 4, end, NULL, &hdr);
	assert_ptr_equal(p, b.w + 4 + 2 * 6 + 1);
	assert_int_equal(hdr.read_segments, 2);
	p = rpcrdma_walk_write_list(p, end, NULL, false, &hdr);
	assert_non_null(p);
	assert_int_equal(hdr.write_chunks, 2);
	p = rpcrdma_walk_reply_chunk(p, end, NULL, false, &hdr);
	assert_ptr_equal(p, end);
	assert_int_equal(hdr.reply_segments, 1);
	/* each walker stops at end */
	assert_null(rpcrdma_walk_read_list(b.w + 4, b.w + 9, NULL, &hdr));
	assert_int_equal(hdr.reason, RPCRDMA_CHECK_SHORT);
	assert_null(rpcrdma_walk_reply_chunk(end, end, NULL, false, &hdr));
	/* an empty write chunk is accepted only when asked */
	put_fixed(&b, 1, 1, RPCRDMA_MSG);
	put(&b, 1);
	put(&b, 0);
	put(&b, 0);
	assert_null(rpcrdma_walk_write_list(b.w + 4, b.w + b.n, NULL, false, &hdr));
	assert_ptr_equal(rpcrdma_walk_write_list(b.w + 4, b.w + b.n, NULL, true, &hdr), b.w + b.n);
	assert_int_equal(hdr.write_chunks, 1);
	assert_int_equal(hdr.write_segments, 0);
}

static void test_reason_strings(void **state)
{
	(void)state;
	for (int r = RPCRDMA_CHECK_OK; r <= RPCRDMA_CHECK_ERRCODE; r++) {
		const char *s = rpcrdma_check_reason_str((enum rpcrdma_check_reason)r);
		assert_non_null(s);
		assert_string_not_equal(s, "unknown reason");
	}
	assert_string_equal(rpcrdma_check_reason_str((enum rpcrdma_check_reason)999), "unknown reason");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_chunks),
		cmocka_unit_test(test_all_lists_view),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_short_and_align),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_done_error_every_length),
		cmocka_unit_test(test_nomsg_position_zero),
		cmocka_unit_test(test_nomsg_position_zero_with_data),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_discriminators),
		cmocka_unit_test(test_huge_counts),
		cmocka_unit_test(test_zero_segments),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_walkers),
		cmocka_unit_test(test_reason_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
