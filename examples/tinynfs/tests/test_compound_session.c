/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * COMPOUND processing against a real temporary directory (fixture:
 * compound_util.h): errors and the order of operations, sessions, byte
 * range locks and the expiry of a lease.
 */
#include "compound_util.h"

void test_errors_and_ordering(void **state)
{
	struct fx *f = *state;
	uint8_t garbage[6] = { 0, 0, 0, 9, 'x', 'y' };
	size_t len;
	assert_int_equal(tnfs_compound(f->srv, &f->cred, garbage, sizeof(garbage),
				       f->rp.buf, BUFSZ, &len, NULL, NULL), -EBADMSG);
	/* minor version 0 is disabled by default */
	f->minor = 0;
	fx_begin(f);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_MINOR_VERS_MISMATCH);
	assert_int_equal(f->rp.n, 0);
	f->minor = 3;
	fx_begin(f);
	assert_int_equal(fx_call(f), NFS4ERR_MINOR_VERS_MISMATCH);
	f->minor = 1;
	/* an empty COMPOUND is fine */
	fx_begin(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->rp.n, 0);
	/* not in a session */
	fx_begin(f);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_OP_NOT_IN_SESSION);
	assert_int_equal(f->rp.n, 1);
	/* EXCHANGE_ID must be alone */
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, "x", 1);
	req_op(&f->rq, OP_PUTROOTFH);
	assert_int_equal(fx_call(f), NFS4ERR_NOT_ONLY_OP);
	fx_mount(f);
	/* SEQUENCE not first */
	fx_seq(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	for (int i = 0; i < 4; i++)
		xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4ERR_SEQUENCE_POS);
	/* an op known but not implemented stops the COMPOUND */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_DELEGPURGE);
	xdr_put_u64(&f->rq.x, f->clientid);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4ERR_NOTSUPP);
	assert_int_equal(f->rp.n, 3);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_DELEGPURGE), NFS4ERR_NOTSUPP);
	/* 4.0-only ops are NOTSUPP in 4.1 */
	fx_seq(f);
	req_op(&f->rq, OP_RENEW);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4ERR_NOTSUPP);
	/* unknown op numbers and 4.2 ops in 4.1: OP_ILLEGAL */
	fx_seq(f);
	req_op(&f->rq, 999);
	assert_int_equal(fx_call(f), NFS4ERR_OP_ILLEGAL);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_ILLEGAL), NFS4ERR_OP_ILLEGAL);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SEEK);
	assert_int_equal(fx_call(f), NFS4ERR_OP_ILLEGAL);
	/* truncated arguments: BADXDR */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_ACCESS);
	assert_int_equal(fx_call(f), NFS4ERR_BADXDR);
	/* no current file handle */
	fx_seq(f);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4ERR_NOFILEHANDLE);
	fx_seq(f);
	req_op(&f->rq, OP_RESTOREFH);
	assert_int_equal(fx_call(f), NFS4ERR_RESTOREFH);
	/* more operations than the numops says: BADXDR at the missing one */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	xdr_wr32(f->rq.nops_at, 5);
	assert_int_equal(fx_call(f), NFS4ERR_BADXDR);
}

void test_sessions(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	/* retransmission with sa_cachethis: the same bytes come back from
	 * the cache */
	fx_seq_cache(f, true);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	uint8_t *first = malloc(f->rp.len);
	size_t first_len = f->rp.len;
	memcpy(first, f->rp.buf, first_len);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->rp.len, first_len);
	assert_memory_equal(f->rp.buf, first, first_len);
	free(first);
	/* without it, the reply was not kept (RFC 8881 2.10.6.1.3): the
	 * retry gets NFS4ERR_RETRY_UNCACHED_REP, and the slot goes on */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(fx_call(f), NFS4ERR_RETRY_UNCACHED_REP);
	assert_int_equal(rep_op(&f->rp, OP_SEQUENCE), NFS4ERR_RETRY_UNCACHED_REP);
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* a lone SEQUENCE is always kept */
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	/* seqid jumps: misordered; bad slot; unknown session */
	f->slot_seq += 1;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4ERR_SEQ_MISORDERED);
	f->slot_seq -= 2;
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 64);
	xdr_put_u32(&f->rq.x, 64);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4ERR_BADSLOT);
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	uint8_t other[16] = { 0 };
	xdr_put_fixed(&f->rq.x, other, 16);
	for (int i = 0; i < 4; i++)
		xdr_put_u32(&f->rq.x, i == 0);
	assert_int_equal(fx_call(f), NFS4ERR_BADSESSION);
	/* a second slot has its own sequence */
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 5);
	xdr_put_u32(&f->rq.x, 5);
	xdr_put_bool(&f->rq.x, true);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* EXCHANGE_ID again: the confirmed record, CONFIRMED_R */
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, "Linux NFSv4.1 testclient", 0x1122334455667788ull);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), NFS4_OK);
	assert_int_equal(xdr_get_u64(&f->rp.x), f->clientid);
	uint32_t seq = xdr_get_u32(&f->rp.x);
	assert_true(xdr_get_u32(&f->rp.x) & EXCHGID4_FLAG_CONFIRMED_R);
	/* CREATE_SESSION replay of the previous sequence: same session */
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, f->clientid, seq - 1);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), NFS4_OK);
	uint8_t sid[16];
	xdr_get_fixed(&f->rp.x, sid, 16);
	assert_memory_equal(sid, f->sessionid, 16);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, f->clientid, seq + 5);
	assert_int_equal(fx_call(f), NFS4ERR_SEQ_MISORDERED);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, f->clientid + 77, 1);
	assert_int_equal(fx_call(f), NFS4ERR_STALE_CLIENTID);
	/* DESTROY_CLIENTID while a session exists: busy */
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4ERR_CLIENTID_BUSY);
	/* RECLAIM_COMPLETE twice */
	fx_seq(f);
	req_op(&f->rq, OP_RECLAIM_COMPLETE);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4ERR_COMPLETE_ALREADY);
	/* BIND_CONN_TO_SESSION: fore channel only */
	fx_begin(f);
	req_op(&f->rq, OP_BIND_CONN_TO_SESSION);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	xdr_put_u32(&f->rq.x, CDFC4_FORE_OR_BOTH);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_BIND_CONN_TO_SESSION), NFS4_OK);
	xdr_get_fixed(&f->rp.x, sid, 16);
	assert_memory_equal(sid, f->sessionid, 16);
	assert_int_equal(xdr_get_u32(&f->rp.x), CDFS4_FORE);
	/* DESTROY_SESSION, then it is gone, then DESTROY_CLIENTID works */
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4ERR_BADSESSION);
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4ERR_STALE_CLIENTID);
}

void test_locks(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root, fh, fh2;
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid oa, ob, la, lb;
	assert_int_equal(do_open(f, &root, "openA", OPEN4_SHARE_ACCESS_BOTH, true, "lk", &oa, &fh), 0);
	assert_int_equal(do_open(f, &root, "openB", OPEN4_SHARE_ACCESS_READ, false, "lk", &ob, &fh2), 0);
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 100, true, &oa, "lockownerA", &la), 0);
	assert_int_equal(la.seqid, 1);
	/* B's read lock inside A's write lock: DENIED, naming A's lock */
	assert_int_equal(fx_lock(f, &fh, READ_LT, 50, 10, true, &ob, "lockownerB", &lb), NFS4ERR_DENIED);
	assert_int_equal(xdr_get_u64(&f->rp.x), 0);
	assert_int_equal(xdr_get_u64(&f->rp.x), 100);
	assert_int_equal(xdr_get_u32(&f->rp.x), WRITE_LT);
	assert_int_equal(xdr_get_u64(&f->rp.x), f->clientid);
	struct xdr_opaque o = xdr_get_opaque(&f->rp.x, 1024);
	assert_int_equal(o.len, 10);
	assert_memory_equal(o.data, "lockownerA", 10);
	/* outside the range: fine; B's open is read-only: write lock OPENMODE */
	assert_int_equal(fx_lock(f, &fh, READ_LT, 100, NFS4_UINT64_MAX, true, &ob, "lockownerB", &lb), 0);
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 200, 1, false, &lb, NULL, &lb), NFS4ERR_OPENMODE);
	/* A's write lock overlapping B's read range: denied */
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 150, 10, false, &la, NULL, &la), NFS4ERR_DENIED);
	/* bad ranges */
	assert_int_equal(fx_lock(f, &fh, READ_LT, 0, 0, false, &la, NULL, &la), NFS4ERR_INVAL);
	assert_int_equal(fx_lock(f, &fh, READ_LT, UINT64_MAX - 5, 10, false, &la, NULL, &la), NFS4ERR_INVAL);
	/* LOCKT as B over A's range */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_LOCKT);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u64(&f->rq.x, 99);
	xdr_put_u64(&f->rq.x, 1);
	xdr_put_u64(&f->rq.x, f->clientid);
	put_str(&f->rq.x, "lockownerB");
	assert_int_equal(fx_call(f), NFS4ERR_DENIED);
	/* A unlocks the middle: [0,40) and [60,100) stay; B locks 45..55 */
	fx_locku_req(f, &fh, WRITE_LT, &la, 40, 20);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOCKU), NFS4_OK);
	struct nfs4_stateid la2;
	get_stateid(&f->rp.x, &la2);
	assert_int_equal(la2.seqid, la.seqid + 1);
	assert_int_equal(fx_lock(f, &fh, READ_LT, 45, 10, false, &lb, NULL, &lb), 0);
	assert_int_equal(fx_lock(f, &fh, READ_LT, 35, 10, false, &lb, NULL, &lb), NFS4ERR_DENIED);
	/* the old seqid of A's lock stateid is OLD_STATEID */
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 1, false, &la, NULL, &la), NFS4ERR_OLD_STATEID);
	/* CLOSE with locks held */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_CLOSE);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, &oa);
	assert_int_equal(fx_call(f), NFS4ERR_LOCKS_HELD);
	/* TEST_STATEID: A's lock, a bogus one, the anonymous one */
	fx_seq(f);
	req_op(&f->rq, OP_TEST_STATEID);
	xdr_put_u32(&f->rq.x, 3);
	put_stateid(&f->rq.x, &la2);
	struct nfs4_stateid bogus = la2;
	bogus.other[0] ^= 0x55;
	put_stateid(&f->rq.x, &bogus);
	struct nfs4_stateid zero = { 0, { 0 } };
	put_stateid(&f->rq.x, &zero);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_TEST_STATEID), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 3);
	assert_int_equal(xdr_get_u32(&f->rp.x), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), NFS4ERR_BAD_STATEID);
	assert_int_equal(xdr_get_u32(&f->rp.x), NFS4ERR_BAD_STATEID);
	/* unlock all of A, FREE_STATEID it, then CLOSE works */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_FREE_STATEID);
	put_stateid(&f->rq.x, &la2);
	assert_int_equal(fx_call(f), NFS4ERR_LOCKS_HELD);
	fx_locku_req(f, &fh, WRITE_LT, &la2, 0, NFS4_UINT64_MAX);
	req_op(&f->rq, OP_FREE_STATEID);
	xdr_put_u32(&f->rq.x, 1); /* the current stateid (set by LOCKU) */
	xdr_put_fixed(&f->rq.x, zero.other, 12);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_CLOSE);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, &oa);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* now A's write lock at 35 conflicts with nobody but B's read at 45 */
	assert_int_equal(fx_lock(f, &fh, READ_LT, 0, 45, false, &lb, NULL, &lb), 0);
}

static uint64_t fake_clock(void *arg)
{
	return *(uint64_t *)arg;
}

void test_lease_expiry(void **state)
{
	struct fx *f = *state;
	uint64_t t = 1000;
	tnfs_state_set_clock(f->srv->state, fake_clock, &t);
	struct fx_client a, b;
	fx_mount_as(f, "client A");
	struct fh root, fh;
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid oa, la, ob, lb;
	assert_int_equal(do_open(f, &root, "A", OPEN4_SHARE_ACCESS_BOTH, true, "shared", &oa, &fh), 0);
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 0, 10, true, &oa, "A", &la), 0);
	fx_save(f, &a);
	t += 60;
	fx_mount_as(f, "client B");
	fx_save(f, &b);
	assert_int_equal(do_open(f, &root, "B", OPEN4_SHARE_ACCESS_BOTH, false, "shared", &ob, &fh), 0);
	/* A's lease (renewed at 1000) still runs at 1060: denied */
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 5, 1, true, &ob, "B", &lb), NFS4ERR_DENIED);
	/* at 1091 it has run out: A's lock goes, B gets it */
	t += 31;
	assert_int_equal(fx_lock(f, &fh, WRITE_LT, 5, 1, true, &ob, "B", &lb), 0);
	/* A learns it lost its session */
	fx_save(f, &b);
	fx_use(f, &a);
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4ERR_BADSESSION);
	/* B keeps renewing by SEQUENCE; an EXCHANGE_ID 91 s later does not
	 * reap it if it renewed meanwhile */
	fx_use(f, &b);
	t += 80;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	t += 20;
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, "client C", 3);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* ... nor one 91 s after B's last SEQUENCE: B holds state nobody
	 * conflicted with, a courtesy client, served again when it renews */
	t += 91;
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, "client D", 4);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* share reservations of an expired client give way too (B's, that
	 * lapses again, to E's; then E's to F's) */
	t += 91;
	fx_mount_as(f, "client E");
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid oe, of;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_OPEN);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, OPEN4_SHARE_ACCESS_READ);
	xdr_put_u32(&f->rq.x, 2); /* deny write */
	xdr_put_u64(&f->rq.x, f->clientid);
	put_str(&f->rq.x, "E");
	xdr_put_u32(&f->rq.x, OPEN4_NOCREATE);
	xdr_put_u32(&f->rq.x, CLAIM_NULL);
	put_str(&f->rq.x, "shared");
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_mount_as(f, "client F");
	assert_int_equal(do_open(f, &root, "F", OPEN4_SHARE_ACCESS_WRITE, false, "shared", &of, &fh),
			 NFS4ERR_SHARE_DENIED);
	/* F renews (holding no state, it would lapse with E), E does not */
	t += 60;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	t += 31;
	assert_int_equal(do_open(f, &root, "F", OPEN4_SHARE_ACCESS_WRITE, false, "shared", &of, &fh), 0);
	(void)oe;
}

