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

/* A: the machine credential of a Linux client (uid 0, no groups);
 * B: another host's (AUTH_SYS uid 1000), the attacker. */
static const struct tnfs_cred CRED_A = { .uid = 0, .gid = 0 };
static const struct tnfs_cred CRED_B = { .uid = 1000, .gid = 1000, .ngroups = 1,
					 .groups = { 1000 } };

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

/* A's SEQUENCE still works (A keeps being served); *a follows its slot. */
static void a_served(struct fx *f, struct fx_client *a)
{
	struct tnfs_cred saved = f->cred;
	struct fx_client cur;
	fx_save(f, &cur);
	fx_use(f, a);
	f->cred = CRED_A;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	fx_save(f, a);
	fx_use(f, &cur);
	f->cred = saved;
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
	f->cred = CRED_A;
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
	fx_locku_req(f, &fh, WRITE_LT, &lock, 0, 10);
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

/* --- another principal on A's session and client ID (README rules) ------ */

/* A and B mounted, each as its own principal; the fixture speaks for B. */
static void two_clients(struct fx *f, struct fx_client *a, struct fx_client *b)
{
	f->cred = CRED_A;
	fx_mount_as(f, "A");
	fx_save(f, a);
	f->cred = CRED_B;
	fx_mount_as(f, "B");
	fx_save(f, b);
}

static uint32_t bind_conn(struct fx *f, const uint8_t sid[16], uint32_t dir)
{
	fx_begin(f);
	req_op(&f->rq, OP_BIND_CONN_TO_SESSION);
	xdr_put_fixed(&f->rq.x, sid, 16);
	xdr_put_u32(&f->rq.x, dir);
	xdr_put_bool(&f->rq.x, false);
	return fx_call(f);
}

/* B knows A's session ID and client ID (say they leaked): it can neither
 * destroy them, nor bind A's session to its connection (either way: the
 * back channel would bring it A's CB_RECALLs), nor make a session of
 * its own on A's client ID -- not even the replay of A's CREATE_SESSION,
 * whose cached reply holds A's session ID.  A is served throughout, and
 * A itself may do all of it. */
static void test_other_principal_session(void **state)
{
	struct fx *f = *state;
	struct fx_client a, b;
	two_clients(f, &a, &b);
	assert_int_equal(destroy_session(f, a.sessionid), NFS4ERR_WRONG_CRED);
	a_served(f, &a);
	/* in a COMPOUND of B's own session */
	fx_seq(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, a.sessionid, 16);
	assert_int_equal(fx_call(f), NFS4ERR_WRONG_CRED);
	fx_seq_ok(f);
	a_served(f, &a);
	assert_int_equal(destroy_clientid(f, a.clientid), NFS4ERR_WRONG_CRED);
	static const uint32_t dirs[] = { CDFC4_FORE, CDFC4_BACK, CDFC4_FORE_OR_BOTH,
					 CDFC4_BACK_OR_BOTH };
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(bind_conn(f, a.sessionid, dirs[i]), NFS4ERR_WRONG_CRED);
	uint8_t sid[16];
	for (uint32_t seq = 1; seq <= 3; seq++) /* the replay, the next, a wrong one */
		assert_int_equal(create_session(f, a.clientid, seq, sid), NFS4ERR_WRONG_CRED);
	a_served(f, &a);
	fx_seq(f); /* and B too */
	assert_int_equal(fx_call(f), NFS4_OK);
	/* A's own principal may */
	f->cred = CRED_A;
	assert_int_equal(bind_conn(f, a.sessionid, CDFC4_FORE), NFS4_OK);
	assert_int_equal(create_session(f, a.clientid, 2, sid), NFS4_OK);
	assert_int_equal(destroy_session(f, sid), NFS4_OK);
	assert_int_equal(destroy_session(f, a.sessionid), NFS4_OK);
	assert_int_equal(destroy_clientid(f, a.clientid), NFS4_OK);
}

/* An unconfirmed record (EXCHANGE_ID only) of A's: B can neither destroy
 * it nor confirm it (RFC 8881 18.36.4: CLID_INUSE); A then can. */
static void test_other_principal_unconfirmed(void **state)
{
	struct fx *f = *state;
	uint64_t cid;
	uint32_t seq;
	uint8_t sid[16];
	f->cred = CRED_A;
	assert_int_equal(exchange_id(f, "A", 0, &cid, &seq), NFS4_OK);
	f->cred = CRED_B;
	assert_int_equal(destroy_clientid(f, cid), NFS4ERR_WRONG_CRED);
	assert_int_equal(create_session(f, cid, seq, sid), NFS4ERR_CLID_INUSE);
	f->cred = CRED_A;
	assert_int_equal(create_session(f, cid, seq, sid), NFS4_OK);
}

/* B's EXCHANGE_ID of A's owner: no update of A's record (18.35.5 case 9:
 * NFS4ERR_PERM), no new incarnation while A has state (case 3:
 * NFS4ERR_CLID_INUSE); A's record stays. */
static void test_other_principal_exchange_id(void **state)
{
	struct fx *f = *state;
	struct fx_client a, b;
	two_clients(f, &a, &b);
	uint64_t cid;
	uint32_t seq;
	assert_int_equal(exchange_id(f, "A", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &cid, &seq),
			 NFS4ERR_PERM);
	assert_int_equal(exchange_id(f, "A", 0, &cid, &seq), NFS4ERR_CLID_INUSE);
	a_served(f, &a);
	f->cred = CRED_A;
	assert_int_equal(exchange_id(f, "A", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &cid, &seq),
			 NFS4_OK);
	assert_int_equal(cid, a.clientid);
}

/* LOCKU, LOCK, TEST_STATEID, FREE_STATEID, CLOSE of B's with A's stateids
 * (RFC 8881 8.2.4: a stateid is of one client): NFS4ERR_BAD_STATEID; A's
 * lock still holds against B and A releases it. */
static void b_uses_a_stateid(struct fx *f, const struct fh *fh, uint32_t op,
			     const struct nfs4_stateid *sid)
{
	struct xdr_out *x = &f->rq.x;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(x, fh);
	req_op(&f->rq, op);
	if (op == OP_LOCKU) {
		xdr_put_u32(x, WRITE_LT);
		xdr_put_u32(x, 0);
	} else if (op == OP_CLOSE) {
		xdr_put_u32(x, 0);
	} else if (op == OP_TEST_STATEID) {
		xdr_put_u32(x, 1);
	}
	put_stateid(x, sid);
	if (op == OP_LOCKU) {
		xdr_put_u64(x, 0);
		xdr_put_u64(x, 10);
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	if (op == OP_TEST_STATEID) {
		assert_int_equal(st, NFS4_OK);
		assert_int_equal(rep_op(&f->rp, op), NFS4_OK);
		assert_int_equal(xdr_get_u32(&f->rp.x), 1);
		st = xdr_get_u32(&f->rp.x);
	}
	assert_int_equal(st, NFS4ERR_BAD_STATEID);
}

static void test_other_client_lock(void **state)
{
	struct fx *f = *state;
	struct fx_client a, b;
	struct nfs4_stateid aopen, alock, bopen, blk;
	struct fh fh;
	two_clients(f, &a, &b);
	fx_use(f, &a);
	f->cred = CRED_A;
	assert_int_equal(fx_open_root(f, "o", OPEN4_SHARE_ACCESS_BOTH, true, 0666, "shared",
				      &aopen, &fh, NULL), NFS4_OK);
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 10, true, &aopen, "la", &alock), NFS4_OK);
	fx_save(f, &a);
	fx_use(f, &b);
	f->cred = CRED_B;
	assert_int_equal(fx_open_root(f, "o", OPEN4_SHARE_ACCESS_BOTH, false, 0, "shared",
				      &bopen, &fh, NULL), NFS4_OK);
	b_uses_a_stateid(f, &fh, OP_LOCKU, &alock);
	b_uses_a_stateid(f, &fh, OP_FREE_STATEID, &alock);
	b_uses_a_stateid(f, &fh, OP_TEST_STATEID, &alock);
	b_uses_a_stateid(f, &fh, OP_CLOSE, &aopen);
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 10, false, &alock, NULL, &blk),
			 NFS4ERR_BAD_STATEID);
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 10, true, &aopen, "lb", &blk),
			 NFS4ERR_BAD_STATEID);
	/* A's lock holds against B's own */
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 10, true, &bopen, "lb", &blk),
			 NFS4ERR_DENIED);
	fx_save(f, &b);
	fx_use(f, &a);
	f->cred = CRED_A;
	fx_locku_req(f, &fh, WRITE_LT, &alock, 0, 10);
	assert_int_equal(fx_call(f), NFS4_OK);
}

/* --- SP4_MACH_CRED (RFC 8881 18.35.3, 2.10.8.3) ---------------------------- */

/* What RPCSEC_GSS will hand over (fs.h): a host principal, integrity. */
static struct tnfs_cred gss_cred(const char *name, uint32_t service)
{
	struct tnfs_cred c = { .uid = 0, .gid = 0, .gss_service = service };
	snprintf(c.principal, sizeof(c.principal), "%s", name);
	return c;
}

struct spr {
	uint64_t cid;
	uint32_t seq, how, enforce[3], allow[3];
};

/* EXCHANGE_ID of `owner` with SP4_MACH_CRED, asking spo_must_enforce
 * {} and spo_must_allow {allow0, allow1}. */
static uint32_t exchange_mach(struct fx *f, const char *owner, uint32_t flags,
			      uint32_t allow0, uint32_t allow1, struct spr *out)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	xdr_put_u64(&f->rq.x, 0x1122334455667788ull);
	put_str(&f->rq.x, owner);
	xdr_put_u32(&f->rq.x, flags);
	xdr_put_u32(&f->rq.x, SP4_MACH_CRED);
	put_bitmap(&f->rq.x, 0, 0, 0);
	put_bitmap(&f->rq.x, allow0, allow1, 0);
	xdr_put_u32(&f->rq.x, 0);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), st);
	if (st != NFS4_OK)
		return st;
	memset(out, 0, sizeof(*out));
	out->cid = xdr_get_u64(&f->rp.x);
	out->seq = xdr_get_u32(&f->rp.x);
	(void)xdr_get_u32(&f->rp.x);
	out->how = xdr_get_u32(&f->rp.x);
	for (int l = 0; l < 2 && out->how == SP4_MACH_CRED; l++) {
		uint32_t n = xdr_get_u32(&f->rp.x), *w = l ? out->allow : out->enforce;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = xdr_get_u32(&f->rp.x);
			if (i < 3)
				w[i] = v;
		}
	}
	assert_false(f->rp.x.bad);
	return st;
}

/* Refused cleanly today: AUTH_SYS, AUTH_NONE and RPCSEC_GSS without
 * integrity cannot protect the client ID (NFS4ERR_INVAL, as nfsd);
 * SP4_SSV is not offered. */
static void test_mach_cred_refused(void **state)
{
	struct fx *f = *state;
	struct spr r;
	f->cred = CRED_A;
	assert_int_equal(exchange_mach(f, "M", 0, 0, 0, &r), NFS4ERR_INVAL);
	f->cred.anon = true;
	assert_int_equal(exchange_mach(f, "M", 0, 0, 0, &r), NFS4ERR_INVAL);
	f->cred = gss_cred("host/m@R", TNFS_GSS_SVC_NONE);
	assert_int_equal(exchange_mach(f, "M", 0, 0, 0, &r), NFS4ERR_INVAL);
	f->cred = CRED_A;
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	xdr_put_u64(&f->rq.x, 1);
	put_str(&f->rq.x, "M");
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, SP4_SSV);
	put_bitmap(&f->rq.x, 0, 0, 0);
	put_bitmap(&f->rq.x, 0, 0, 0);
	xdr_put_u32(&f->rq.x, 0); /* no hash algorithms */
	xdr_put_u32(&f->rq.x, 0); /* no encryption algorithms */
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4ERR_NOTSUPP);
	/* the plain SP4_NONE mount still works */
	fx_mount_as(f, "M");
}

/* With an integrity-protected machine credential (as RPCSEC_GSS krb5i
 * will give it): the lists of 18.35.3 come back, and the five managing
 * operations need that credential with integrity -- the same principal
 * over krb5 (no integrity) or AUTH_SYS gets NFS4ERR_WRONG_CRED -- while
 * users' SEQUENCEs on the session go on. */
static void test_mach_cred_enforced(void **state)
{
	struct fx *f = *state;
	struct spr r;
	const struct tnfs_cred mi = gss_cred("host/m@R", TNFS_GSS_SVC_INTEGRITY);
	const struct tnfs_cred mp = gss_cred("host/m@R", TNFS_GSS_SVC_PRIVACY);
	const struct tnfs_cred mn = gss_cred("host/m@R", TNFS_GSS_SVC_NONE);
	const struct tnfs_cred xi = gss_cred("host/x@R", TNFS_GSS_SVC_INTEGRITY);
	f->cred = mi;
	assert_int_equal(exchange_mach(f, "M", 0, W0(OP_CLOSE) | W0(OP_READ) | W0(OP_LOCKU),
				       W1(OP_FREE_STATEID) | W1(OP_DESTROY_SESSION), &r),
			 NFS4_OK);
	assert_int_equal(r.how, SP4_MACH_CRED);
	assert_int_equal(r.enforce[0], 0);
	assert_int_equal(r.enforce[1], W1(OP_BIND_CONN_TO_SESSION) | W1(OP_EXCHANGE_ID) |
					       W1(OP_CREATE_SESSION) | W1(OP_DESTROY_SESSION) |
					       W1(OP_DESTROY_CLIENTID));
	assert_int_equal(r.allow[0], W0(OP_CLOSE) | W0(OP_LOCKU));
	assert_int_equal(r.allow[1], W1(OP_FREE_STATEID));
	f->clientid = r.cid;
	f->cred = mn;
	assert_int_equal(create_session(f, r.cid, r.seq, f->sessionid), NFS4ERR_WRONG_CRED);
	f->cred = CRED_A;
	assert_int_equal(create_session(f, r.cid, r.seq, f->sessionid), NFS4ERR_CLID_INUSE);
	f->cred = mi;
	assert_int_equal(create_session(f, r.cid, r.seq, f->sessionid), NFS4_OK);
	f->slot_seq = 0;
	/* a user of the client on the session */
	f->cred = CRED_B;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* not the machine credential with integrity: refused */
	const struct tnfs_cred *bad[] = { &mn, &xi, &CRED_A, &CRED_B };
	for (unsigned i = 0; i < 4; i++) {
		f->cred = *bad[i];
		assert_int_equal(destroy_session(f, f->sessionid), NFS4ERR_WRONG_CRED);
		assert_int_equal(destroy_clientid(f, r.cid), NFS4ERR_WRONG_CRED);
		assert_int_equal(bind_conn(f, f->sessionid, CDFC4_FORE), NFS4ERR_WRONG_CRED);
		assert_int_equal(create_session(f, r.cid, r.seq + 1, f->sessionid),
				 NFS4ERR_WRONG_CRED);
	}
	struct spr r2;
	f->cred = mn; /* the record again, or its update, without integrity */
	assert_int_equal(exchange_mach(f, "M", 0, 0, 0, &r2), NFS4ERR_INVAL);
	uint64_t cid;
	uint32_t seq;
	assert_int_equal(exchange_id(f, "M", 0, &cid, &seq), NFS4ERR_WRONG_CRED);
	assert_int_equal(exchange_id(f, "M", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &cid, &seq),
			 NFS4ERR_WRONG_CRED);
	/* the machine credential, integrity or privacy */
	f->cred = mp;
	assert_int_equal(exchange_mach(f, "M", EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, 0, 0, &r2),
			 NFS4_OK);
	assert_int_equal(r2.cid, r.cid);
	assert_int_equal(r2.how, SP4_MACH_CRED);
	assert_int_equal(bind_conn(f, f->sessionid, CDFC4_FORE), NFS4_OK);
	f->cred = mi;
	assert_int_equal(destroy_session(f, f->sessionid), NFS4_OK);
	assert_int_equal(destroy_clientid(f, r.cid), NFS4_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ids_unpredictable, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_clientid_busy, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_other_principal_session, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_other_principal_unconfirmed, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_other_principal_exchange_id, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_other_client_lock, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_mach_cred_refused, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_mach_cred_enforced, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
