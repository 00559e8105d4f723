/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NFSv4.1 state protection, tried as an attacker would (issue 34): client
 * B, another principal, acts on client A's session, client ID, locks and
 * back channel, and A keeps being served.  The rules and their RFC 8881
 * sections are in the README ("NFSv4.1 state protection").  In process:
 * the fixture's credential (f->cred) is the RPC principal of each call.
 */
#include "nfstest.h"

#include "state.h"

static int setup(void **state)
{
	*state = fx_new("*(rw,no_root_squash)");
	return 0;
}

static unsigned hamming(const uint8_t *a, const uint8_t *b, size_t n)
{
	unsigned d = 0;
	for (size_t i = 0; i < n; i++)
		d += (unsigned)__builtin_popcount((unsigned)(a[i] ^ b[i]));
	return d;
}

/* EXCHANGE_ID of `owner` (SP4_NONE, flags), as the fixture's credential. */
static uint32_t exchange_id(struct fx *f, const char *owner, uint32_t flags, uint64_t *cid,
			    uint32_t *seq)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	xdr_put_u64(&f->rq.x, 0x1122334455667788ull);
	put_str(&f->rq.x, owner);
	xdr_put_u32(&f->rq.x, flags);
	xdr_put_u32(&f->rq.x, SP4_NONE);
	xdr_put_u32(&f->rq.x, 0);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), st);
	if (st == NFS4_OK) {
		*cid = xdr_get_u64(&f->rp.x);
		*seq = xdr_get_u32(&f->rp.x);
	}
	return st;
}

/* A lone CREATE_SESSION; the session ID to sid on NFS4_OK. */
static uint32_t create_session(struct fx *f, uint64_t cid, uint32_t seq, uint8_t sid[16])
{
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, cid, seq);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), st);
	if (st == NFS4_OK)
		xdr_get_fixed(&f->rp.x, sid, 16);
	return st;
}

/* --- identifiers that cannot be worked out (RFC 8881 2.10.3, 2.4) -------- */

/* Sixteen sessions of one client and the client IDs of sixteen clients:
 * each session ID differs from every other in about half its bits (a
 * pattern -- boot verifier, client ID, counter -- would share most of
 * them), and the client IDs' per-client words are spread over their
 * range, not a counter. */
static void test_ids_unpredictable(void **state)
{
	struct fx *f = *state;
	uint64_t cid;
	uint32_t seq;
	uint8_t sids[TNFS_MAX_SESSIONS][16];
	assert_int_equal(exchange_id(f, "A", 0, &cid, &seq), NFS4_OK);
	for (unsigned i = 0; i < TNFS_MAX_SESSIONS; i++)
		assert_int_equal(create_session(f, cid, seq++, sids[i]), NFS4_OK);
	for (unsigned i = 0; i < TNFS_MAX_SESSIONS; i++)
		for (unsigned j = 0; j < i; j++)
			assert_true(hamming(sids[i], sids[j], 16) >= 24);
	uint32_t lo = UINT32_MAX, hi = 0;
	for (unsigned i = 0; i < 16; i++) {
		char owner[16];
		snprintf(owner, sizeof(owner), "client-%u", i);
		assert_int_equal(exchange_id(f, owner, 0, &cid, &seq), NFS4_OK);
		uint32_t w = (uint32_t)cid;
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}
	assert_true(hi - lo > (1u << 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ids_unpredictable, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
