// SPDX-License-Identifier: BSD-2-Clause
/*
 * The hand-written COMPOUND4res decoder (p4_decode) and the one generated
 * from examples/nfs4/nfs4_prot.x (p4g_decode, p4g_decode_ops) on the same
 * bytes: the
 * replies of nfs4_replies.c decode to the same struct p4_res; every
 * truncation of them is refused by both with the same error; and on
 * random edits, whatever the hand-written decoder refuses the generated
 * one refuses too, and what both accept decodes alike.  The generated
 * decoder may refuse more (nfs4_gen.h lists how): those cases are counted
 * and printed, and each is checked to be one of those listed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "nfs4_gen.h"
#include "nfs4_replies.h"
#include "nfs4_xdr.h"

struct names {
	unsigned n;
	uint64_t sum; /* of name bytes and cookies, to compare the two runs */
};

static int collect(void *arg, const char *name, uint64_t cookie)
{
	struct names *nm = arg;

	assert_true(strlen(name) <= P4_NAME_MAX);
	nm->n++;
	nm->sum = nm->sum * 31 + cookie;
	for (const char *p = name; *p; p++)
		nm->sum = nm->sum * 31 + (uint8_t)*p;
	return 0;
}

struct run {
	struct p4_res r;
	struct names names;
	uint8_t out[8192];
	int rc;
};

/* Decodes a private copy of buf[0..len-1] (so a read past it is ASan's). */
enum which { HAND, GEN, OPS };

static void run(struct run *x, const uint8_t *buf, size_t len, uint32_t read_max, enum which w)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct rpcrdma_xdr_dec d;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	memset(x, 0, sizeof(*x));
	x->r.read_buf = x->out;
	x->r.read_max = read_max;
	x->r.dirent = collect;
	x->r.dirent_arg = &x->names;
	rpcrdma_xdr_dec_init_buf(&d, copy, len);
	x->rc = w == HAND ? p4_decode(&d, &x->r)
		: w == GEN ? p4g_decode(&d, &x->r) : p4g_decode_ops(&d, &x->r);
	free(copy);
}

static void expect_same(const struct run *h, const struct run *g)
{
	assert_int_equal(h->rc, g->rc);
	if (h->rc != 0)
		return;
	/* Both start from zeroes and set fields alike: compare every byte
	 * but the decoder's inputs (the same pointers in different runs). */
	size_t from = offsetof(struct p4_res, status);
	assert_memory_equal((const uint8_t *)&h->r + from, (const uint8_t *)&g->r + from,
			    sizeof(h->r) - from);
	assert_memory_equal(h->out, g->out, h->r.read_len);
	assert_int_equal(h->names.n, g->names.n);
	assert_true(h->names.sum == g->names.sum);
}

static void test_replies_agree(void **state)
{
	(void)state;
	static uint8_t buf[P4R_BUF_MAX];
	static struct run h, g;

	for (int i = 0; i < P4R_COUNT; i++) {
		size_t len = p4r_build((enum p4_reply)i, buf);
		for (enum which k = GEN; k <= OPS; k++) {
			run(&h, buf, len, 8192, HAND);
			run(&g, buf, len, 8192, k);
			assert_int_equal(h.rc, 0);
			expect_same(&h, &g);
			/* READ data beyond the caller's buffer: both refuse. */
			run(&h, buf, len, 4095, HAND);
			run(&g, buf, len, 4095, k);
			expect_same(&h, &g);
			assert_int_equal(h.rc, i == P4R_READ ? -EBADMSG : 0);
		}
	}
	assert_int_equal(h.r.last_status, NFS4ERR_STALE); /* P4R_ERROR, last */
}

static void test_truncations_agree(void **state)
{
	(void)state;
	static uint8_t buf[P4R_BUF_MAX];
	static struct run h, g;

	for (int i = 0; i < P4R_COUNT; i++) {
		size_t len = p4r_build((enum p4_reply)i, buf);
		for (size_t cut = 0; cut < len; cut++) {
			run(&h, buf, cut, 8192, HAND);
			assert_int_equal(h.rc, -EBADMSG);
			for (enum which k = GEN; k <= OPS; k++) {
				run(&g, buf, cut, 8192, k);
				assert_int_equal(g.rc, -EBADMSG);
			}
		}
	}
}

/* Where the generated decoder may refuse what the hand-written accepts
 * (nfs4_gen.h): a word the hand-written decoder skips or takes as any
 * status was edited.  Checked loosely: the last operation failed (the
 * hand-written decoder does not look at its kind), or an edit put a value
 * other than 0 or 1 into a word (a bool, an enum, a status). */
static bool stricter_case(const struct run *h, const uint8_t *w, const uint8_t *orig, size_t len)
{
	if (h->r.last_status != NFS4_OK)
		return true; /* a failed operation, of a kind nfs_resop4 may lack */
	for (size_t at = 0; at + 4 <= len; at += 4) {
		if (memcmp(w + at, orig + at, 4) == 0)
			continue;
		uint32_t v = (uint32_t)w[at] << 24 | (uint32_t)w[at + 1] << 16 |
			     (uint32_t)w[at + 2] << 8 | w[at + 3];
		if (v > 1)
			return true; /* a bool, an enum or a status out of the RFC's range */
	}
	return false;
}

static void test_edits(void **state)
{
	(void)state;
	static const uint32_t nasty[] = { 0, 1, 2, 3, 4, 0x7fffffff, 0x80000000u, 0xfffffffcu,
					  0xffffffffu, NFS4_FHSIZE + 1, P4_MAX_OPS + 1, 10099 };
	static uint8_t orig[P4R_BUF_MAX], w[P4R_BUF_MAX];
	static struct run h, g;
	uint32_t seed = 38;
	unsigned stricter = 0, refused = 0, total = 0;

	for (int i = 0; i < P4R_COUNT; i++) {
		size_t n = p4r_build((enum p4_reply)i, orig);
		for (int round = 0; round < 2000; round++, total++) {
			memcpy(w, orig, n);
			for (int e = 0; e < 1 + (int)(seed % 2); e++) {
				seed = seed * 1103515245u + 12345u;
				size_t at = (seed >> 8) % (n / 4) * 4;
				uint32_t v = (seed & 1) ? nasty[(seed >> 4) % 12] : seed >> 3;
				w[at] = (uint8_t)(v >> 24);
				w[at + 1] = (uint8_t)(v >> 16);
				w[at + 2] = (uint8_t)(v >> 8);
				w[at + 3] = (uint8_t)v;
			}
			size_t len = (seed & 0x200) ? n : (seed >> 12) % (n + 1);
			run(&h, w, len, 8192, HAND);
			assert_true(h.rc == 0 || h.rc == -EBADMSG);
			refused += h.rc != 0;
			for (enum which k = GEN; k <= OPS; k++) {
				run(&g, w, len, 8192, k);
				assert_true(g.rc == 0 || g.rc == -EBADMSG);
				if (h.rc != 0) {
					assert_int_equal(g.rc, h.rc); /* refused by both */
				} else if (g.rc != 0) {
					stricter += k == OPS;
					assert_true(stricter_case(&h, w, orig, len));
				} else {
					expect_same(&h, &g);
				}
			}
		}
	}
	printf("# %u edited replies: %u refused by all, %u by the generated decoder only "
	       "(nfs_resop4 at a time)\n",
	       total, refused, stricter);
	assert_true(refused > total / 4); /* the edits do reach the checks */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replies_agree),
		cmocka_unit_test(test_truncations_agree),
		cmocka_unit_test(test_edits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
