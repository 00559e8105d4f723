/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A session's sizes, as small as a client may negotiate them (issue 36):
 *
 *  - CREATE_SESSION accepts small fore channels as Linux's nfsd does
 *    (ca_maxrequestsize 400 or 512, ca_maxresponsesize 400); only sizes
 *    no request or reply could fit are NFS4ERR_TOOSMALL (RFC 8881
 *    18.36.3; nfsd 6.1: below 64 bytes either way).
 *  - On such a session, a COMPOUND whose request exceeds
 *    ca_maxrequestsize is NFS4ERR_REQ_TOO_BIG, one whose reply would
 *    exceed ca_maxresponsesize NFS4ERR_REP_TOO_BIG (18.46.3, 2.10.6.4).
 *  - With sa_cachethis, a reply above ca_maxresponsesize_cached is
 *    NFS4ERR_REP_TOO_BIG_TO_CACHE, however small that was negotiated
 *    (10 bytes is legal), a lone SEQUENCE included (18.46.3).
 *  - When SEQUENCE itself fails so, its slot does not change (18.46.3:
 *    "If SEQUENCE returns an error, then the state of the slot (sequence
 *    ID, cached reply) MUST NOT change"): the same sequence id is then a
 *    new request, and a reply cached before stays there.
 *
 * The sizes count the RPC headers (18.36.3): the requests here come with
 * a call header of 132 bytes (AUTH_SYS) and replies get one of 24.
 */
#include "nfstest.h"
#include "session_util.h"

#include "state.h"

#define HREQ 132u
#define HREP 24u

static int setup(void **state)
{
	struct fx *f = fx_new("*(rw,no_root_squash)");
	f->rpc_req_hdr = HREQ;
	f->rpc_rep_hdr = HREP;
	*state = f;
	return 0;
}

/* EXCHANGE_ID for a new client: its client ID, *seq its sequence id. */
static uint64_t new_client(struct fx *f, const char *owner, uint32_t *seq)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, owner, 1);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), NFS4_OK);
	uint64_t id = xdr_get_u64(&f->rp.x);
	*seq = xdr_get_u32(&f->rp.x);
	return id;
}

/* CREATE_SESSION with fore channel `fore`, then *seq moves on; on NFS4_OK
 * sid and what the fore channel was granted (*got). */
static uint32_t create(struct fx *f, uint64_t cid, uint32_t *seq, const struct chan *fore,
		       uint8_t sid[16], struct chan *got)
{
	struct chan g[2];
	uint32_t st = create_session(f, cid, *seq, 0, fore, &BACK, sid, g);
	if (st == NFS4_OK) {
		(*seq)++;
		*got = g[0];
	}
	return st;
}

/* A session granted exactly `fore` (the fixture speaks for it). */
static void session(struct fx *f, uint64_t cid, uint32_t *seq, const struct chan *fore)
{
	struct chan got;
	assert_int_equal(create(f, cid, seq, fore, f->sessionid, &got), NFS4_OK);
	assert_int_equal(got.maxreq, fore->maxreq);
	assert_int_equal(got.maxresp, fore->maxresp);
	assert_int_equal(got.cached, fore->cached);
	f->clientid = cid;
	f->slot_seq = 0;
}

/* SEQUENCE on slot 0 with sequence id seqid; a tag of `tag` bytes. */
static void seq_req(struct fx *f, uint32_t seqid, bool cachethis, uint32_t tag)
{
	seq_tagged(f, f->sessionid, seqid, tag, cachethis);
}

static void test_small_fore_channels(void **state)
{
	struct fx *f = *state;
	uint32_t seq;
	uint64_t cid = new_client(f, "small", &seq);
	uint8_t sid[16];
	struct chan got;
	/* nfsd 6.1 accepts these (check_forechannel_attrs) */
	const struct chan ok[] = {
		{ 400, 400, 0, 8, 1 }, { 512, 400, 0, 8, 1 }, { 400, 512, 400, 8, 4 },
		{ 64, 64, 10, 2, 1 },
	};
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(create(f, cid, &seq, &ok[i], sid, &got), NFS4_OK);
		assert_int_equal(got.maxreq, ok[i].maxreq);
		assert_int_equal(got.maxresp, ok[i].maxresp);
		assert_int_equal(got.cached, ok[i].cached);
	}
	/* below what any SEQUENCE needs: NFS4ERR_TOOSMALL, either way */
	const struct chan small[] = { { 63, 400, 0, 8, 1 }, { 400, 63, 0, 8, 1 },
				      { 0, 0, 0, 8, 1 } };
	for (unsigned i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		assert_int_equal(create(f, cid, &seq, &small[i], sid, &got), NFS4ERR_TOOSMALL);
	/* which neither used the sequence id nor made a session */
	assert_int_equal(create(f, cid, &seq, &ok[0], sid, &got), NFS4_OK);
}

/* ca_maxrequestsize 400: a request of 400 bytes (RPC header included)
 * runs, one of 401 is NFS4ERR_REQ_TOO_BIG, and leaves the slot as it
 * was: its sequence id is then a new request. */
static void test_req_too_big(void **state)
{
	struct fx *f = *state;
	uint32_t seq;
	uint64_t cid = new_client(f, "req", &seq);
	const struct chan c = { 400, 400, 0, 8, 1 };
	session(f, cid, &seq, &c);
	seq_req(f, 1, false, 0);
	size_t base = req_len(&f->rq) + HREQ; /* a lone SEQUENCE, empty tag */
	assert_true(base < 400);
	uint32_t fit = (uint32_t)(400 - base); /* tag bytes that reach 400 */
	assert_int_equal(fit % 4, 0);
	seq_req(f, 1, false, fit + 1);
	assert_int_equal(req_len(&f->rq) + HREQ, 400 + 4);
	assert_int_equal(fx_call(f), NFS4ERR_REQ_TOO_BIG);
	assert_int_equal(f->rp.n, 1);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4ERR_REQ_TOO_BIG);
	seq_req(f, 1, false, fit);
	assert_int_equal(req_len(&f->rq) + HREQ, 400);
	assert_int_equal(fx_call(f), NFS4_OK); /* seqid 1 again: new, not a retry */
	seq_req(f, 2, false, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
}

/* ca_maxresponsesize 400: SEQUENCE + PUTROOTFH + GETATTR of a few
 * attributes fits; SEQUENCE + TEST_STATEID of 90 stateids (a reply of
 * 4 + 4 x 90 bytes, which cannot shrink) is NFS4ERR_REP_TOO_BIG at
 * TEST_STATEID; a session whose ca_maxresponsesize cannot hold
 * SEQUENCE's own result fails SEQUENCE with NFS4ERR_REP_TOO_BIG, the
 * slot left as it was. */
static void test_rep_too_big(void **state)
{
	struct fx *f = *state;
	uint32_t seq;
	uint64_t cid = new_client(f, "rep", &seq);
	const struct chan c = { 4096, 400, 0, 8, 1 };
	session(f, cid, &seq, &c);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE) | W0(FATTR4_SIZE), 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_true(f->rp.len + HREP <= 400);
	for (uint32_t n = 60; n <= 90; n += 30) {
		fx_seq(f);
		req_op(&f->rq, OP_TEST_STATEID);
		xdr_put_u32(&f->rq.x, n);
		for (uint32_t i = 0; i < n; i++) {
			xdr_put_u32(&f->rq.x, 1);
			xdr_put_fixed(&f->rq.x, "twelve bytes", 12);
		}
		/* 60: 24 + 16 + 44 + 8 + 244 bytes fit */
		assert_int_equal(fx_call(f), n == 60 ? NFS4_OK : NFS4ERR_REP_TOO_BIG);
		assert_int_equal(f->rp.n, 2);
		assert_true(f->rp.len + HREP <= 400);
	}

	/* 64 bytes: the session is made, but SEQUENCE's reply (24 + 12 +
	 * 4 + 44 bytes with an empty tag) does not fit it */
	const struct chan tiny = { 400, 64, 0, 8, 1 };
	session(f, cid, &seq, &tiny);
	seq_req(f, 1, false, 0);
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG);
	assert_int_equal(f->rp.n, 1);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4ERR_REP_TOO_BIG);
	assert_int_equal(f->rp.len, 20); /* no SEQUENCE body */
	/* the slot did not move: seqid 1 again is new (the same error), 2
	 * is misordered */
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG);
	seq_req(f, 2, false, 0);
	assert_int_equal(fx_call(f), NFS4ERR_SEQ_MISORDERED);
}

/* ca_maxresponsesize_cached 10 (legal: RFC 8881 18.36.3 sets no
 * minimum): any reply with sa_cachethis, a lone SEQUENCE's included, is
 * NFS4ERR_REP_TOO_BIG_TO_CACHE; without sa_cachethis it runs.  A reply
 * cached before stays cached across such an error. */
static void test_rep_too_big_to_cache(void **state)
{
	struct fx *f = *state;
	uint32_t seq;
	uint64_t cid = new_client(f, "cache", &seq);
	const struct chan c = { 1024, 1024, 10, 8, 1 };
	session(f, cid, &seq, &c);
	seq_req(f, 1, true, 0);
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG_TO_CACHE);
	assert_int_equal(f->rp.n, 1);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4ERR_REP_TOO_BIG_TO_CACHE);
	seq_req(f, 1, true, 0);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG_TO_CACHE);
	assert_int_equal(f->rp.n, 1);
	seq_req(f, 1, false, 0); /* the slot did not move */
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4_OK);

	/* cached = a lone SEQUENCE's reply exactly: cached, and replayed
	 * even after a too-big request on the same slot */
	const struct chan big = { 1024, 1024, 4096, 8, 1 };
	session(f, cid, &seq, &big);
	seq_req(f, 1, true, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	uint32_t lone = (uint32_t)f->rp.len + HREP;
	const struct chan exact = { 1024, 1024, lone, 8, 1 };
	session(f, cid, &seq, &exact);
	seq_req(f, 1, true, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	uint8_t first[128];
	assert_true(f->rp.len <= sizeof(first));
	size_t first_len = f->rp.len;
	memcpy(first, f->rp.buf, first_len);
	seq_req(f, 2, true, 0);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG_TO_CACHE);
	assert_int_equal(f->rp.n, 1);
	seq_req(f, 1, true, 0); /* a retry of seqid 1: replayed */
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->rp.len, first_len);
	assert_memory_equal(f->rp.buf, first, first_len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_small_fore_channels, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_req_too_big, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rep_too_big, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rep_too_big_to_cache, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
