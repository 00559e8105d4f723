/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client-record state machine, leases and sessions' channel limits
 * (RFC 8881 18.35, 18.36, 18.46, 2.10.6, 8.4), in process: every case of
 * the EXCHANGE_ID table (18.35.5) with the principal as Linux's nfsd
 * compares it, what CREATE_SESSION confirms and refuses, leases that run
 * out on an injected clock with lapsed clients kept as courtesy clients
 * until someone conflicts with them, a 4.1 LOCK whose owner's clientid is
 * 0, and each bound SEQUENCE enforces, at its edge, as CREATE_SESSION
 * negotiated it.
 */
#include "nfstest.h"
#include "session_util.h"

#include "state.h"

static int setup(void **state)
{
	*state = fx_new("*(rw,no_root_squash)");
	return 0;
}

static uint64_t fake_now;

static uint64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

static void use_fake_clock(struct fx *f)
{
	fake_now = 1000;
	tnfs_state_set_clock(f->srv->state, fake_clock, NULL);
}

struct eid {
	uint64_t clientid;
	uint32_t seq, flags;
};

static uint32_t exchange_id(struct fx *f, const char *owner, uint64_t verf, uint32_t flags,
			    struct eid *out)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	xdr_put_u64(&f->rq.x, verf);
	put_str(&f->rq.x, owner);
	xdr_put_u32(&f->rq.x, flags);
	xdr_put_u32(&f->rq.x, SP4_NONE);
	xdr_put_u32(&f->rq.x, 0);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), st);
	if (st == NFS4_OK) {
		out->clientid = xdr_get_u64(&f->rp.x);
		out->seq = xdr_get_u32(&f->rp.x);
		out->flags = xdr_get_u32(&f->rp.x);
	}
	return st;
}

static const struct chan FORE = { 1049620, 1049480, 7584, 16, 8 };

/* A lone SEQUENCE on session sid, slot 0. */
static uint32_t sequence(struct fx *f, const uint8_t sid[16], uint32_t seqid)
{
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, sid, 16);
	xdr_put_u32(&f->rq.x, seqid);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_bool(&f->rq.x, false);
	return fx_call(f);
}

/* The fixture speaks for the client of session sid from now on. */
static void speak_for(struct fx *f, uint64_t clientid, const uint8_t sid[16])
{
	f->clientid = clientid;
	memcpy(f->sessionid, sid, 16);
	f->slot_seq = 0;
}

/* EXCHANGE_ID + CREATE_SESSION as owner, with verifier verf. */
static void mount_verf(struct fx *f, const char *owner, uint64_t verf)
{
	struct eid e;
	uint8_t sid[16];
	assert_int_equal(exchange_id(f, owner, verf, 0, &e), NFS4_OK);
	assert_int_equal(create_session(f, e.clientid, e.seq, 0, &FORE, &BACK, sid, NULL), NFS4_OK);
	speak_for(f, e.clientid, sid);
}

/* mount_verf, then RECLAIM_COMPLETE: the client may OPEN (18.51.3). */
static void mount_ready(struct fx *f, const char *owner, uint64_t verf)
{
	mount_verf(f, owner, verf);
	fx_seq(f);
	req_op(&f->rq, OP_RECLAIM_COMPLETE);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_RECLAIM_COMPLETE), NFS4_OK);
}

/* --- EXCHANGE_ID: RFC 8881 18.35.5 ---------------------------------------- */

static void test_exchange_id_cases(void **state)
{
	struct fx *f = *state;
	const uint32_t upd = EXCHGID4_FLAG_UPD_CONFIRMED_REC_A;
	struct eid e1, e2, e3;
	uint8_t sid[16], sid2[16];
	/* case 7: an update without a confirmed record */
	assert_int_equal(exchange_id(f, "owner", 1, upd, &e1), NFS4ERR_NOENT);
	/* case 1: a new owner -> an unconfirmed record */
	assert_int_equal(exchange_id(f, "owner", 1, 0, &e1), NFS4_OK);
	assert_int_equal(e1.flags & EXCHGID4_FLAG_CONFIRMED_R, 0);
	/* still case 7 while the record is unconfirmed */
	assert_int_equal(exchange_id(f, "owner", 1, upd, &e2), NFS4ERR_NOENT);
	/* case 4: the unconfirmed record is replaced under a new client ID
	 * when the verifier changes; the old one is stale */
	assert_int_equal(exchange_id(f, "owner", 2, 0, &e2), NFS4_OK);
	assert_true(e2.clientid != e1.clientid);
	assert_int_equal(create_session(f, e1.clientid, e1.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4ERR_STALE_CLIENTID);
	assert_int_equal(create_session(f, e2.clientid, e2.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4_OK);
	/* case 2: same verifier and principal -> the confirmed record */
	assert_int_equal(exchange_id(f, "owner", 2, 0, &e3), NFS4_OK);
	assert_true(e3.clientid == e2.clientid);
	assert_int_equal(e3.flags & EXCHGID4_FLAG_CONFIRMED_R, EXCHGID4_FLAG_CONFIRMED_R);
	/* case 6: an update of it */
	assert_int_equal(exchange_id(f, "owner", 2, upd, &e3), NFS4_OK);
	assert_true(e3.clientid == e2.clientid);
	assert_int_equal(e3.flags & EXCHGID4_FLAG_CONFIRMED_R, EXCHGID4_FLAG_CONFIRMED_R);
	/* case 8: an update with another verifier */
	assert_int_equal(exchange_id(f, "owner", 3, upd, &e3), NFS4ERR_NOT_SAME);
	/* case 9: an update by another principal (another uid, then the
	 * same uid with other groups), whatever the verifier */
	f->cred.uid = 1000;
	assert_int_equal(exchange_id(f, "owner", 2, upd, &e3), NFS4ERR_PERM);
	assert_int_equal(exchange_id(f, "owner", 3, upd, &e3), NFS4ERR_PERM);
	f->cred.uid = 0;
	f->cred.ngroups = 1;
	f->cred.groups[0] = 5;
	assert_int_equal(exchange_id(f, "owner", 2, upd, &e3), NFS4ERR_PERM);
	f->cred.ngroups = 0;
	/* case 3: another principal, the record has a session -> in use */
	f->cred.uid = 1000;
	assert_int_equal(exchange_id(f, "owner", 2, 0, &e3), NFS4ERR_CLID_INUSE);
	f->cred.uid = 0;
	/* case 5: a new verifier (the client restarted): a new unconfirmed
	 * record under a new client ID; the confirmed one is served until
	 * the new one is confirmed, and is then gone */
	assert_int_equal(exchange_id(f, "owner", 4, 0, &e3), NFS4_OK);
	assert_true(e3.clientid != e2.clientid);
	assert_int_equal(e3.flags & EXCHGID4_FLAG_CONFIRMED_R, 0);
	assert_int_equal(sequence(f, sid, 1), NFS4_OK);
	assert_int_equal(create_session(f, e3.clientid, e3.seq, 0, &FORE, &BACK, sid2, NULL),
			 NFS4_OK);
	assert_int_equal(sequence(f, sid, 2), NFS4ERR_BADSESSION);
	assert_int_equal(create_session(f, e2.clientid, e2.seq + 1, 0, &FORE, &BACK, sid, NULL),
			 NFS4ERR_STALE_CLIENTID);
	/* case 3 again: a record without sessions or state gives way to
	 * another principal, who gets a new client ID */
	assert_int_equal(sequence(f, sid2, 1), NFS4_OK);
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, sid2, 16);
	assert_int_equal(fx_call(f), NFS4_OK);
	f->cred.uid = 1000;
	struct eid e4;
	assert_int_equal(exchange_id(f, "owner", 4, 0, &e4), NFS4_OK);
	assert_true(e4.clientid != e3.clientid);
	assert_int_equal(e4.flags & EXCHGID4_FLAG_CONFIRMED_R, 0);
	assert_int_equal(create_session(f, e4.clientid, e4.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4_OK);
	f->cred.uid = 0;
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.clients, 1);
	assert_int_equal(u.unconfirmed, 0);
}

/* --- CREATE_SESSION: RFC 8881 18.36 ---------------------------------------- */

static void test_create_session_client(void **state)
{
	struct fx *f = *state;
	struct eid a, b;
	uint8_t sid[16];
	assert_int_equal(exchange_id(f, "A", 1, 0, &a), NFS4_OK);
	assert_int_equal(exchange_id(f, "B", 1, 0, &b), NFS4_OK);
	/* another principal than the one that made the record */
	f->cred.uid = 1000;
	assert_int_equal(create_session(f, a.clientid, a.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4ERR_CLID_INUSE);
	f->cred.uid = 0;
	/* it confirms the record of the client ID given, and only that */
	assert_int_equal(create_session(f, a.clientid, a.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4_OK);
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.clients, 2);
	assert_int_equal(u.unconfirmed, 1);
	struct eid a2;
	assert_int_equal(exchange_id(f, "A", 1, 0, &a2), NFS4_OK);
	assert_int_equal(a2.flags & EXCHGID4_FLAG_CONFIRMED_R, EXCHGID4_FLAG_CONFIRMED_R);
	/* B's record replaced (a new verifier): its old client ID is stale */
	struct eid b2;
	assert_int_equal(exchange_id(f, "B", 2, 0, &b2), NFS4_OK);
	assert_int_equal(create_session(f, b.clientid, b.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4ERR_STALE_CLIENTID);
	assert_int_equal(create_session(f, b2.clientid, b2.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4_OK);
	/* flags it does not know: NFS4ERR_INVAL, the sequence id unused */
	assert_int_equal(create_session(f, b2.clientid, b2.seq + 1, 0x8, &FORE, &BACK, sid, NULL),
			 NFS4ERR_INVAL);
	assert_int_equal(create_session(f, b2.clientid, b2.seq + 1, 0x80000000u, &FORE, &BACK,
					sid, NULL),
			 NFS4ERR_INVAL);
	assert_int_equal(create_session(f, b2.clientid, b2.seq + 1,
					CREATE_SESSION4_FLAG_PERSIST |
						CREATE_SESSION4_FLAG_CONN_BACK_CHAN |
						CREATE_SESSION4_FLAG_CONN_RDMA,
					&FORE, &BACK, sid, NULL),
			 NFS4_OK);
}

static void test_create_session_channels(void **state)
{
	struct fx *f = *state;
	struct eid e;
	uint8_t sid[16];
	struct chan got[2];
	assert_int_equal(exchange_id(f, "chan", 1, 0, &e), NFS4_OK);
	/* above the server's limits: negotiated down, not refused */
	struct chan huge = { UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX };
	assert_int_equal(create_session(f, e.clientid, e.seq, 0, &huge, &huge, sid, got), NFS4_OK);
	assert_int_equal(got[0].maxreq, TNFS_MAX_REQ);
	assert_int_equal(got[0].maxresp, TNFS_MAX_REQ);
	assert_int_equal(got[0].cached, TNFS_MAX_CACHED);
	assert_int_equal(got[0].maxops, TNFS_MAX_OPS);
	assert_true(got[0].maxreqs >= 1 && got[0].maxreqs <= TNFS_MAX_SLOTS);
	assert_int_equal(got[1].maxreq, TNFS_MAX_REQ);
	assert_int_equal(got[1].maxresp, TNFS_MAX_REQ);
	assert_int_equal(got[1].cached, 0);
	assert_int_equal(got[1].maxops, TNFS_MAX_OPS);
	assert_int_equal(got[1].maxreqs, 1);
	uint32_t seq = e.seq + 1;
	/* exactly the minimums: granted as asked */
	struct chan fmin = { TNFS_MIN_REQ, TNFS_MIN_REQ, 0, 2, 1 };
	struct chan bmin = { TNFS_MIN_CB_REQ, TNFS_MIN_CB_RESP, 0, 2, 1 };
	assert_int_equal(create_session(f, e.clientid, seq++, 0, &fmin, &bmin, sid, got), NFS4_OK);
	assert_int_equal(got[0].maxreq, TNFS_MIN_REQ);
	assert_int_equal(got[0].maxresp, TNFS_MIN_REQ);
	assert_int_equal(got[1].maxreq, TNFS_MIN_CB_REQ);
	assert_int_equal(got[1].maxresp, TNFS_MIN_CB_RESP);
	/* one below any minimum: NFS4ERR_TOOSMALL */
	struct chan small[8];
	for (int i = 0; i < 8; i++) {
		small[i] = i < 4 ? fmin : bmin;
	}
	small[0].maxreq--, small[1].maxresp--, small[2].maxops--;
	small[4].maxreq--, small[5].maxresp--, small[6].maxops--;
	for (int i = 0; i < 7; i++) {
		if (i == 3)
			continue;
		const struct chan *fo = i < 4 ? &small[i] : &fmin;
		const struct chan *bk = i < 4 ? &bmin : &small[i];
		assert_int_equal(create_session(f, e.clientid, seq, 0, fo, bk, sid, NULL),
				 NFS4ERR_TOOSMALL);
	}
	/* 10,000 back channels too small, each after a fore channel asking
	 * for the most reply cache there is: nothing held, and the next
	 * valid CREATE_SESSION (same sequence id) gets all it asks */
	struct tnfs_state_usage before, after;
	tnfs_state_usage(f->srv->state, &before);
	struct chan big = { TNFS_MAX_REQ, TNFS_MAX_REQ, TNFS_MAX_CACHED, TNFS_MAX_OPS, 64 };
	struct chan tiny = BACK;
	tiny.maxreq = 10;
	for (int i = 0; i < 10000; i++)
		assert_int_equal(create_session(f, e.clientid, seq, 0, &big, &tiny, sid, NULL),
				 NFS4ERR_TOOSMALL);
	tnfs_state_usage(f->srv->state, &after);
	assert_int_equal(after.sessions, before.sessions);
	assert_int_equal(after.drc_reserved, before.drc_reserved);
	assert_int_equal(after.clients, before.clients);
	assert_int_equal(create_session(f, e.clientid, seq, 0, &big, &BACK, sid, got), NFS4_OK);
	assert_int_equal(got[0].maxreqs, 64);
	assert_int_equal(got[0].cached, TNFS_MAX_CACHED);
	speak_for(f, e.clientid, sid);
	assert_int_equal(sequence(f, sid, 1), NFS4_OK);
}

/* --- leases: RFC 8881 8.4 --------------------------------------------------- */

static uint32_t open_file(struct fx *f, const char *owner, const char *name,
			  struct nfs4_stateid *sid, struct fh *fh)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, owner, OPEN4_SHARE_ACCESS_BOTH, true, 0644, name);
	req_op(&f->rq, OP_GETFH);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	uint32_t ost = rep_op(&f->rp, OP_OPEN);
	if (ost != NFS4_OK)
		return ost;
	get_stateid(&f->rp.x, sid);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x);
	uint32_t n = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, fh);
	assert_int_equal(st, NFS4_OK);
	return NFS4_OK;
}

/* LOCK (a new lock owner, whose clientid field is owner_clientid) of
 * bytes [off, off + len). */
static uint32_t lock_new(struct fx *f, const struct fh *fh, const struct nfs4_stateid *open,
			 uint64_t owner_clientid, const char *owner, uint64_t off, uint64_t len)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_LOCK);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_bool(&f->rq.x, false);
	xdr_put_u64(&f->rq.x, off);
	xdr_put_u64(&f->rq.x, len);
	xdr_put_bool(&f->rq.x, true);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, open);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, owner_clientid);
	put_str(&f->rq.x, owner);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOCK), st);
	return st;
}

static void test_lease_records(void **state)
{
	struct fx *f = *state;
	use_fake_clock(f);
	struct eid u1, u2;
	uint8_t sid[16];
	/* an unconfirmed record lives a lease period, not a second more */
	assert_int_equal(exchange_id(f, "unconfirmed 1", 1, 0, &u1), NFS4_OK);
	assert_int_equal(exchange_id(f, "unconfirmed 2", 1, 0, &u2), NFS4_OK);
	fake_now += TNFS_LEASE_TIME;
	assert_int_equal(create_session(f, u1.clientid, u1.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4_OK);
	fake_now += 1;
	assert_int_equal(create_session(f, u2.clientid, u2.seq, 0, &FORE, &BACK, sid, NULL),
			 NFS4ERR_STALE_CLIENTID);
	/* a confirmed client holding no state: its record and sessions go
	 * once it renewed nothing for a lease period */
	mount_verf(f, "sessions only", 1);
	uint64_t cid = f->clientid;
	uint8_t s1[16];
	memcpy(s1, f->sessionid, 16);
	fake_now += TNFS_LEASE_TIME;
	assert_int_equal(sequence(f, s1, 1), NFS4_OK); /* renewed at the edge */
	fake_now += TNFS_LEASE_TIME + 1;
	assert_int_equal(sequence(f, s1, 2), NFS4ERR_BADSESSION);
	assert_int_equal(create_session(f, cid, 2, 0, &FORE, &BACK, sid, NULL),
			 NFS4ERR_STALE_CLIENTID);
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.sessions, 1); /* u1's */
	/* the same when the client ID is what it comes back with */
	mount_verf(f, "sessions only 2", 1);
	cid = f->clientid;
	fake_now += TNFS_LEASE_TIME + 1;
	assert_int_equal(create_session(f, cid, 2, 0, &FORE, &BACK, sid, NULL),
			 NFS4ERR_STALE_CLIENTID);
}

static void test_lease_courtesy(void **state)
{
	struct fx *f = *state;
	use_fake_clock(f);
	mount_ready(f, "A", 1);
	struct fx_client a, b;
	struct nfs4_stateid oa, ob;
	struct fh fh;
	assert_int_equal(open_file(f, "A", "file", &oa, &fh), NFS4_OK);
	assert_int_equal(lock_new(f, &fh, &oa, f->clientid, "lockA", 0, 10), NFS4_OK);
	fx_save(f, &a);
	assert_false(tnfs_state_client_lapsed(f->srv->state, a.clientid));
	/* A lapses holding a lock; another client arrives meanwhile */
	fake_now += TNFS_LEASE_TIME + 1;
	mount_ready(f, "B", 1);
	fx_save(f, &b);
	/* (what deleg.c asks before recalling: a courtesy client's
	 * delegations are revoked instead) */
	assert_true(tnfs_state_client_lapsed(f->srv->state, a.clientid));
	assert_false(tnfs_state_client_lapsed(f->srv->state, b.clientid));
	assert_true(tnfs_state_client_lapsed(f->srv->state, a.clientid ^ 0x5555));
	/* A, a courtesy client, is served again and keeps its lock */
	fx_use(f, &a);
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_false(tnfs_state_client_lapsed(f->srv->state, a.clientid));
	fx_use(f, &b);
	assert_int_equal(open_file(f, "B", "file", &ob, &fh), NFS4_OK);
	assert_int_equal(lock_new(f, &fh, &ob, f->clientid, "lockB", 5, 1), NFS4ERR_DENIED);
	fx_save(f, &b);
	/* A lapses again and B renews: B's conflicting LOCK releases A */
	fake_now += TNFS_LEASE_TIME - 10;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	fake_now += 11;
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.clients, 2); /* A still there: nobody needed it */
	assert_int_equal(lock_new(f, &fh, &ob, f->clientid, "lockB", 5, 1), NFS4_OK);
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.clients, 1);
	fx_save(f, &b);
	fx_use(f, &a);
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4ERR_BADSESSION);
}

/* --- LOCK's owner clientid in 4.1 ------------------------------------------- */

static void test_lock_owner_clientid(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct nfs4_stateid open;
	struct fh fh;
	assert_int_equal(open_file(f, "o", "lockme", &open, &fh), NFS4_OK);
	/* the session says who the client is: clientid 0, or any other */
	assert_int_equal(lock_new(f, &fh, &open, 0, "zero", 0, 10), NFS4_OK);
	assert_int_equal(lock_new(f, &fh, &open, 0x1234567890ull, "other", 20, 10), NFS4_OK);
	/* LOCKT too */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_LOCKT);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u64(&f->rq.x, 100);
	xdr_put_u64(&f->rq.x, 10);
	xdr_put_u64(&f->rq.x, 0);
	put_str(&f->rq.x, "zero");
	assert_int_equal(fx_call(f), NFS4_OK);
}

/* --- SEQUENCE's bounds: RFC 8881 18.46.3, 2.10.6.1.3 ------------------------ */

static void session_with(struct fx *f, uint64_t cid, uint32_t *seq, const struct chan *fore,
			 uint8_t sid[16])
{
	struct chan got[2];
	assert_int_equal(create_session(f, cid, (*seq)++, 0, fore, &BACK, sid, got), NFS4_OK);
	assert_int_equal(got[0].maxreq, fore->maxreq);
	assert_int_equal(got[0].maxresp, fore->maxresp);
	assert_int_equal(got[0].cached, fore->cached);
}

static void test_sequence_bounds(void **state)
{
	struct fx *f = *state;
	struct eid e;
	assert_int_equal(exchange_id(f, "bounds", 1, 0, &e), NFS4_OK);
	uint32_t seq = e.seq;
	uint8_t big[16], s[16];
	session_with(f, e.clientid, &seq, &FORE, big);
	uint32_t bseq = 0;

	/* ca_maxrequestsize: a request of exactly it runs, one byte more
	 * is NFS4ERR_REQ_TOO_BIG */
	seq_tagged(f, big, ++bseq, 1000, false);
	uint32_t reqlen = (uint32_t)req_len(&f->rq);
	assert_true(reqlen >= TNFS_MIN_REQ);
	struct chan c = FORE;
	c.maxreq = reqlen;
	session_with(f, e.clientid, &seq, &c, s);
	seq_tagged(f, s, 1, 1000, false);
	assert_int_equal(fx_call(f), NFS4_OK);
	c.maxreq = reqlen - 1;
	session_with(f, e.clientid, &seq, &c, s);
	seq_tagged(f, s, 1, 1000, false);
	assert_int_equal(fx_call(f), NFS4ERR_REQ_TOO_BIG);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4ERR_REQ_TOO_BIG);

	/* ca_maxresponsesize: the reply R of SEQUENCE + PUTROOTFH x 2,
	 * measured on a large session.  A session of exactly R runs it; at
	 * R - 1 the first PUTROOTFH is NFS4ERR_REP_TOO_BIG (the reply would
	 * be R bytes whether the second one ran or failed); at R - 9 it is
	 * SEQUENCE (no room for any next result) */
	seq_tagged(f, big, bseq, 1000, false);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	uint32_t replen = (uint32_t)f->rp.len;
	assert_true(replen - 9 >= TNFS_MIN_REQ);
	c = FORE;
	c.maxresp = replen;
	session_with(f, e.clientid, &seq, &c, s);
	seq_tagged(f, s, 1, 1000, false);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->rp.len, replen);
	c.maxresp = replen - 1;
	session_with(f, e.clientid, &seq, &c, s);
	seq_tagged(f, s, 1, 1000, false);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG);
	assert_int_equal(f->rp.n, 2);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4_OK);
	assert_true(f->rp.len <= replen - 1);
	c.maxresp = replen - 9;
	session_with(f, e.clientid, &seq, &c, s);
	seq_tagged(f, s, 1, 1000, false);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG);
	assert_int_equal(f->rp.n, 1);
	assert_true(f->rp.len <= replen - 9);

	/* ca_maxresponsesize_cached, with sa_cachethis: exactly it is
	 * cached (a retry replays it), one byte less is
	 * NFS4ERR_REP_TOO_BIG_TO_CACHE; without sa_cachethis it runs */
	c = FORE;
	c.cached = replen;
	session_with(f, e.clientid, &seq, &c, s);
	seq_tagged(f, s, 1, 1000, true);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->rp.len, replen);
	assert_int_equal(fx_call(f), NFS4_OK); /* the retry, from the cache */
	assert_int_equal(f->rp.len, replen);
	c.cached = replen - 1;
	session_with(f, e.clientid, &seq, &c, s);
	seq_tagged(f, s, 1, 1000, true);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG_TO_CACHE);
	assert_int_equal(f->rp.n, 2);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4_OK);
	seq_tagged(f, s, 2, 1000, false);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* ... whose retry was not cached: NFS4ERR_RETRY_UNCACHED_REP */
	assert_int_equal(fx_call(f), NFS4ERR_RETRY_UNCACHED_REP);

	/* the bound is the negotiated one: asking for more than the server
	 * caches gets TNFS_MAX_CACHED, and a reply above it is refused */
	c = FORE;
	c.cached = UINT32_MAX;
	struct chan got[2];
	assert_int_equal(create_session(f, e.clientid, seq++, 0, &c, &BACK, s, got), NFS4_OK);
	assert_int_equal(got[0].cached, TNFS_MAX_CACHED);
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, s, 16);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_bool(&f->rq.x, true);
	for (int k = 0; k < 5; k++) {
		req_op(&f->rq, OP_TEST_STATEID); /* 4 + 4 x 1000 bytes of reply */
		xdr_put_u32(&f->rq.x, 1000);
		for (int i = 0; i < 1000; i++) {
			xdr_put_u32(&f->rq.x, 1);
			xdr_put_fixed(&f->rq.x, "twelve bytes", 12);
		}
	}
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG_TO_CACHE);
	assert_int_equal(f->rp.n, 6); /* four fitted in 16384, not the fifth */
}

/* On a new session with fore channel c: SEQUENCE (cachethis as given),
 * then `putroots` PUTROOTFHs; the COMPOUND's status. */
static uint32_t on_new_session(struct fx *f, uint64_t cid, uint32_t *seq, const struct chan *c,
			       bool cachethis, int putroots)
{
	uint8_t s[16];
	session_with(f, cid, seq, c, s);
	seq_tagged(f, s, 1, 1000, cachethis);
	for (int i = 0; i < putroots; i++)
		req_op(&f->rq, OP_PUTROOTFH);
	return fx_call(f);
}

/* The channel limits count the RPC headers too (RFC 8881 18.36.3:
 * "including security flavor credentials and verifiers"): with a call
 * header of H bytes and a reply header of 24, a request of body B runs
 * on a session of ca_maxrequestsize B + H and is NFS4ERR_REQ_TOO_BIG at
 * B + H - 1; a reply of body R needs ca_maxresponsesize (and, with
 * sa_cachethis, ca_maxresponsesize_cached) R + 24. */
static void test_sequence_bounds_rpc(void **state)
{
	struct fx *f = *state;
	const uint32_t hreq = 132, hrep = 24; /* AUTH_SYS with two groups */
	struct eid e;
	assert_int_equal(exchange_id(f, "rpc bounds", 1, 0, &e), NFS4_OK);
	uint32_t seq = e.seq;
	uint8_t big[16];
	session_with(f, e.clientid, &seq, &FORE, big);
	f->rpc_req_hdr = hreq;
	f->rpc_rep_hdr = hrep;

	seq_tagged(f, big, 1, 1000, false); /* measured, not sent */
	uint32_t body = (uint32_t)req_len(&f->rq);
	struct chan c = FORE;
	c.maxreq = body + hreq;
	assert_int_equal(on_new_session(f, e.clientid, &seq, &c, false, 0), NFS4_OK);
	c.maxreq = body + hreq - 1;
	assert_int_equal(on_new_session(f, e.clientid, &seq, &c, false, 0), NFS4ERR_REQ_TOO_BIG);

	seq_tagged(f, big, 1, 1000, false);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	uint32_t rbody = (uint32_t)f->rp.len;
	c = FORE;
	c.maxresp = rbody + hrep;
	assert_int_equal(on_new_session(f, e.clientid, &seq, &c, false, 2), NFS4_OK);
	c.maxresp = rbody + hrep - 1;
	assert_int_equal(on_new_session(f, e.clientid, &seq, &c, false, 2), NFS4ERR_REP_TOO_BIG);
	c = FORE;
	c.cached = rbody + hrep;
	assert_int_equal(on_new_session(f, e.clientid, &seq, &c, true, 2), NFS4_OK);
	c.cached = rbody + hrep - 1;
	assert_int_equal(on_new_session(f, e.clientid, &seq, &c, true, 2),
			 NFS4ERR_REP_TOO_BIG_TO_CACHE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exchange_id_cases, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_create_session_client, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_create_session_channels, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lease_records, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lease_courtesy, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lock_owner_clientid, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sequence_bounds, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sequence_bounds_rpc, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
