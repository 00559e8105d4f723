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

/* A lone DESTROY_SESSION of sid. */
static uint32_t destroy_session(struct fx *f, const uint8_t sid[16])
{
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, sid, 16);
	return fx_call(f);
}

/* A lone DESTROY_CLIENTID of cid. */
static uint32_t destroy_clientid(struct fx *f, uint64_t cid)
{
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, cid);
	return fx_call(f);
}

/* A new session for the fixture's client (its next CREATE_SESSION
 * sequence id from EXCHANGE_ID, case 2). */
static void new_session(struct fx *f, const char *owner)
{
	uint64_t cid;
	uint32_t seq;
	assert_int_equal(exchange_id(f, owner, 0, &cid, &seq), NFS4_OK);
	assert_int_equal(cid, f->clientid);
	assert_int_equal(create_session(f, cid, seq, f->sessionid), NFS4_OK);
	f->slot_seq = 0;
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

/* --- DESTROY_CLIENTID while state is held (RFC 8881 18.50.3) ------------- */

static void test_destroy_clientid_busy(void **state)
{
	struct fx *f = *state;
	fx_mount_as(f, "A");
	struct nfs4_stateid open, lock;
	struct fh fh;
	assert_int_equal(fx_open_root(f, "o", OPEN4_SHARE_ACCESS_BOTH, true, 0644, "held", &open,
				      &fh, NULL), NFS4_OK);
	/* a SEQUENCE of the client's own session first: busy */
	fx_seq(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4ERR_CLIENTID_BUSY);
	/* no session left, an open held: busy, and the open stays */
	assert_int_equal(destroy_session(f, f->sessionid), NFS4_OK);
	assert_int_equal(destroy_clientid(f, f->clientid), NFS4ERR_CLIENTID_BUSY);
	new_session(f, "A");
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 10, true, &open, "l", &lock), NFS4_OK);
	/* a lock held: busy */
	assert_int_equal(destroy_session(f, f->sessionid), NFS4_OK);
	assert_int_equal(destroy_clientid(f, f->clientid), NFS4ERR_CLIENTID_BUSY);
	new_session(f, "A");
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_LOCKU);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, &lock);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 10);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* an unlocked lock stateid is still state until freed */
	assert_int_equal(destroy_session(f, f->sessionid), NFS4_OK);
	assert_int_equal(destroy_clientid(f, f->clientid), NFS4ERR_CLIENTID_BUSY);
	new_session(f, "A");
	lock.seqid = 0; /* LOCKU bumped it */
	fx_seq(f);
	req_op(&f->rq, OP_FREE_STATEID);
	put_stateid(&f->rq.x, &lock);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(fx_close(f, &fh, &open), NFS4_OK);
	/* nothing held: it goes */
	assert_int_equal(destroy_session(f, f->sessionid), NFS4_OK);
	assert_int_equal(destroy_clientid(f, f->clientid), NFS4_OK);
	assert_int_equal(destroy_clientid(f, f->clientid), NFS4ERR_STALE_CLIENTID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ids_unpredictable, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_clientid_busy, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
