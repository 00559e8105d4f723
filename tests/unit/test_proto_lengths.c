/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box, issue 23 item 1: the RPC-over-RDMA header checkers
 * (rpcrdma_check_call, rpcrdma_check_reply and their _ex general paths)
 * and the chunk iterators, given each word from 0xfffffff0 to 0xffffffff
 * in place of each word of valid headers with every list present, in heap
 * buffers of exactly the header's size and cut right after the word.  A
 * segment count or a segment length so large is never accepted (the
 * default limits allow 64 segments and 16 MiB per chunk); nothing is read
 * outside the buffer, by the checkers or by the iterators over what they
 * accepted (ASan in the asan build).  Only RDMA_MSG and RDMA_NOMSG
 * headers: the answers to RDMA_DONE and RDMA_ERROR are item 13's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/proto.h>

#define MAXW 48

struct tpl {
	uint32_t w[MAXW];
	bool len[MAXW]; /* a count or a segment length */
	unsigned n;
	unsigned body; /* words of RPC message after the header */
};

static void W(struct tpl *t, uint32_t v, bool is_len)
{
	assert_true(t->n < MAXW);
	t->len[t->n] = is_len;
	t->w[t->n++] = v;
}

/* handle, length, offset (2 words) */
static void seg(struct tpl *t, uint32_t len)
{
	W(t, 0x1234, false);
	W(t, len, true);
	W(t, 0, false);
	W(t, 0x1000, false);
}

static void head(struct tpl *t, uint32_t type)
{
	W(t, 0xabcd, false); /* xid */
	W(t, 1, false);	     /* vers */
	W(t, 32, false);     /* credits */
	W(t, type, false);
}

/* RDMA_MSG call: a read chunk at 8 (two segments), a write chunk of two
 * segments, a reply chunk of one; then 3 words of RPC message. */
static void call_msg(struct tpl *t)
{
	head(t, RPCRDMA_MSG);
	W(t, 1, false); W(t, 8, false); seg(t, 100);
	W(t, 1, false); W(t, 8, false); seg(t, 28);
	W(t, 0, false);
	W(t, 1, false); W(t, 2, true); seg(t, 4096); seg(t, 4096);
	W(t, 0, false);
	W(t, 1, false); W(t, 1, true); seg(t, 1024);
	W(t, 1, false); W(t, 2, false); W(t, 3, false);
	t->body = 3;
}

/* RDMA_NOMSG call: the call in a position-zero read chunk. */
static void call_nomsg(struct tpl *t)
{
	head(t, RPCRDMA_NOMSG);
	W(t, 1, false); W(t, 0, false); seg(t, 200);
	W(t, 0, false);
	W(t, 0, false);
	W(t, 1, false); W(t, 1, true); seg(t, 1024);
}

/* RDMA_MSG reply: a write chunk of two segments, no reply chunk. */
static void reply_msg(struct tpl *t)
{
	head(t, RPCRDMA_MSG);
	W(t, 0, false);
	W(t, 1, false); W(t, 2, true); seg(t, 10); seg(t, 20);
	W(t, 0, false);
	W(t, 0, false);
	W(t, 1, false); W(t, 0, false);
	t->body = 2;
}

/* RDMA_NOMSG reply: the reply in the reply chunk. */
static void reply_nomsg(struct tpl *t)
{
	head(t, RPCRDMA_NOMSG);
	W(t, 0, false);
	W(t, 0, false);
	W(t, 1, false); W(t, 2, true); seg(t, 300); seg(t, 12);
}

/* Walks every chunk and segment of an accepted header. */
static void walk(const struct rpcrdma_hdr *h)
{
	struct rpcrdma_chunk_iter it;
	struct rpcrdma_chunk ch;
	struct rpcrdma_segment sg;
	unsigned n = 0;
	rpcrdma_read_chunks(h, &it);
	while (rpcrdma_next_chunk(&it, &ch))
		while (rpcrdma_next_segment(&ch, &sg))
			n++;
	rpcrdma_write_chunks(h, &it);
	while (rpcrdma_next_chunk(&it, &ch))
		while (rpcrdma_next_segment(&ch, &sg))
			n++;
	if (rpcrdma_reply_chunk(h, &ch))
		while (rpcrdma_next_segment(&ch, &sg))
			n++;
	assert_true(n <= MAXW / 4);
}

typedef int (*checker)(const void *, size_t, struct rpcrdma_hdr *);

static int call_ex(const void *b, size_t len, struct rpcrdma_hdr *h)
{
	return rpcrdma_check_call_ex(b, len, h, NULL);
}

static int reply_ex(const void *b, size_t len, struct rpcrdma_hdr *h)
{
	return rpcrdma_check_reply_ex(b, len, h, NULL);
}

/* > 0 when accepted */
static int check(checker f, const struct tpl *t, unsigned i, uint32_t v, size_t len)
{
	uint32_t *b = malloc(len ? len : 4);
	assert_non_null(b);
	for (unsigned k = 0; k < len / 4; k++) {
		uint32_t w = k == i ? v : t->w[k];
		uint8_t *q = (uint8_t *)&b[k];
		q[0] = (uint8_t)(w >> 24);
		q[1] = (uint8_t)(w >> 16);
		q[2] = (uint8_t)(w >> 8);
		q[3] = (uint8_t)w;
	}
	struct rpcrdma_hdr h;
	int rc = f(b, len, &h);
	if (rc > 0) {
		assert_true((size_t)rc <= len);
		walk(&h);
	}
	free(b);
	return rc;
}

static void sweep(checker f, void (*build)(struct tpl *))
{
	struct tpl t = { .n = 0, .body = 0 };
	build(&t);
	assert_int_equal(check(f, &t, MAXW, 0, t.n * 4u), (int)((t.n - t.body) * 4u));
	for (unsigned i = 0; i < t.n; i++) {
		for (uint64_t v = 0xfffffff0u; v <= 0xffffffffu; v++) {
			size_t lens[] = { i * 4u + 4, t.n * 4u };
			for (size_t k = 0; k < 2; k++) {
				int rc = check(f, &t, i, (uint32_t)v, lens[k]);
				if (t.len[i] && rc > 0)
					fail_msg("word %u = 0x%08x accepted in %zu bytes", i,
						 (unsigned)v, lens[k]);
			}
		}
	}
}

static void test_call_lengths_near_2_32(void **state)
{
	(void)state;
	sweep(rpcrdma_check_call, call_msg);
	sweep(call_ex, call_msg);
	sweep(rpcrdma_check_call, call_nomsg);
	sweep(call_ex, call_nomsg);
}

static void test_reply_lengths_near_2_32(void **state)
{
	(void)state;
	sweep(rpcrdma_check_reply, reply_msg);
	sweep(reply_ex, reply_msg);
	sweep(rpcrdma_check_reply, reply_nomsg);
	sweep(reply_ex, reply_nomsg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_lengths_near_2_32),
		cmocka_unit_test(test_reply_lengths_near_2_32),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
