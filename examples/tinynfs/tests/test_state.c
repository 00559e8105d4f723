/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Floods of state, each from one hostile client, against the fixed tables
 * of state.h: client records (unconfirmed and confirmed), sessions per
 * client, stateids and lock owners per client, descriptors held by open
 * stateids, and the reply cache.  Whatever one client piles up, it alone
 * is answered NFS4ERR_DELAY (never NFS4ERR_SERVERFAULT) and another client
 * is still served.  The reply cache test prints the bytes the cache holds
 * in its worst case.
 */
#include "nfstest.h"

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

/* EXCHANGE_ID as `owner`; on NFS4_OK, *clientid and *seq. */
static uint32_t exchange_id(struct fx *f, const char *owner, uint64_t *clientid, uint32_t *seq)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, owner, 0x1122334455667788ull);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), st);
	if (st == NFS4_OK) {
		*clientid = xdr_get_u64(&f->rp.x);
		*seq = xdr_get_u32(&f->rp.x);
	}
	return st;
}

/* CREATE_SESSION asking `slots` slots of `cached` bytes; on NFS4_OK the
 * session id and what was granted. */
static uint32_t create_session(struct fx *f, uint64_t clientid, uint32_t seq, uint32_t cached,
			       uint32_t slots, uint8_t sid[16], uint32_t *got_slots,
			       uint32_t *got_cached)
{
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	struct xdr_out *x = &f->rq.x;
	xdr_put_u64(x, clientid);
	xdr_put_u32(x, seq);
	xdr_put_u32(x, 0);
	for (int chan = 0; chan < 2; chan++) {
		xdr_put_u32(x, 0);
		xdr_put_u32(x, 1049620);
		xdr_put_u32(x, 1049480);
		xdr_put_u32(x, cached);
		xdr_put_u32(x, 16);
		xdr_put_u32(x, chan ? 1 : slots);
		xdr_put_u32(x, 0);
	}
	xdr_put_u32(x, 0x40000000);
	xdr_put_u32(x, 1);
	xdr_put_u32(x, AUTH_NONE);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), st);
	if (st != NFS4_OK)
		return st;
	xdr_get_fixed(&f->rp.x, sid, 16);
	(void)xdr_get_u32(&f->rp.x); /* seqid */
	(void)xdr_get_u32(&f->rp.x); /* flags */
	(void)xdr_get_u32(&f->rp.x); /* headerpadsize */
	(void)xdr_get_u32(&f->rp.x); /* maxrequestsize */
	(void)xdr_get_u32(&f->rp.x); /* maxresponsesize */
	*got_cached = xdr_get_u32(&f->rp.x);
	(void)xdr_get_u32(&f->rp.x); /* maxoperations */
	*got_slots = xdr_get_u32(&f->rp.x);
	assert_false(f->rp.x.bad);
	return st;
}

/* Starts a request with SEQUENCE on any session and slot. */
static void seq_slot(struct fx *f, const uint8_t sid[16], uint32_t slot, uint32_t seqid,
		     bool cachethis)
{
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, sid, 16);
	xdr_put_u32(&f->rq.x, seqid);
	xdr_put_u32(&f->rq.x, slot);
	xdr_put_u32(&f->rq.x, slot);
	xdr_put_bool(&f->rq.x, cachethis);
}

/* SEQUENCE + PUTROOTFH + OPEN (create) of `name` as the fixture's client;
 * returns OPEN's status, *sid and *fh on NFS4_OK. */
static uint32_t open_new(struct fx *f, const char *name, struct nfs4_stateid *sid, struct fh *fh)
{
	return fx_open_root(f, "owner", OPEN4_SHARE_ACCESS_BOTH, true, 0644, name, sid, fh, NULL);
}

/* The fixture's client is served: an OPEN, a WRITE and a READ back. */
static void served(struct fx *f, const char *name)
{
	struct nfs4_stateid sid;
	struct fh fh;
	assert_int_equal(open_new(f, name, &sid, &fh), NFS4_OK);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_WRITE);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, UNSTABLE4);
	xdr_put_opaque(&f->rq.x, "still served", 12);
	req_op(&f->rq, OP_READ);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 100);
	assert_int_equal(fx_call(f), NFS4_OK);
}

/* 1,100 unconfirmed EXCHANGE_IDs then a table full of confirmed clients:
 * the oldest unconfirmed records make room, a table of live clients
 * answers NFS4ERR_DELAY, and expired ones make room again. */
static void test_client_flood(void **state)
{
	struct fx *f = *state;
	fake_now = 1000;
	tnfs_state_set_clock(f->srv->state, fake_clock, NULL);
	char owner[64];
	uint64_t cid, first_cid = 0;
	uint32_t seq, first_seq = 0;
	for (unsigned i = 0; i < TNFS_MAX_CLIENTS + 100; i++) {
		snprintf(owner, sizeof(owner), "unconfirmed-%u", i);
		assert_int_equal(exchange_id(f, owner, &cid, &seq), NFS4_OK);
		if (i == 0) {
			first_cid = cid;
			first_seq = seq;
		}
	}
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.clients, TNFS_MAX_CLIENTS);
	assert_int_equal(u.unconfirmed, TNFS_MAX_CLIENTS);
	/* the oldest went first: its record is gone */
	uint8_t sid[16];
	uint32_t slots, cached;
	assert_int_equal(create_session(f, first_cid, first_seq, 1024, 4, sid, &slots, &cached),
			 NFS4ERR_STALE_CLIENTID);
	/* a real client still mounts and works */
	fx_mount_as(f, "the real client");
	served(f, "real-1");
	struct fx_client real;
	fx_save(f, &real);

	/* now confirmed clients until the table is full of them */
	unsigned n = 0;
	uint32_t st;
	for (;; n++) {
		assert_true(n <= TNFS_MAX_CLIENTS);
		snprintf(owner, sizeof(owner), "confirmed-%u", n);
		st = exchange_id(f, owner, &cid, &seq);
		if (st != NFS4_OK)
			break;
		assert_int_equal(create_session(f, cid, seq, 1024, 4, sid, &slots, &cached),
				 NFS4_OK);
	}
	assert_int_equal(st, NFS4ERR_DELAY);
	assert_int_equal(n, TNFS_MAX_CLIENTS - 1);
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.unconfirmed, 0);
	fx_use(f, &real);
	served(f, "real-2");
	/* the flood's leases run out, the real client renews: room again */
	fake_now += TNFS_LEASE_TIME + 1;
	fx_seq(f);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(exchange_id(f, "newcomer", &cid, &seq), NFS4_OK);
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.clients, 2);
	served(f, "real-3");
}

/* Sessions beyond TNFS_MAX_SESSIONS: NFS4ERR_DELAY, not cached (the same
 * seqid works once a session is gone); another client is served. */
static void test_session_flood(void **state)
{
	struct fx *f = *state;
	uint64_t cid;
	uint32_t seq, slots, cached;
	uint8_t sid[16], first[16] = { 0 };
	assert_int_equal(exchange_id(f, "session flooder", &cid, &seq), NFS4_OK);
	unsigned n = 0;
	uint32_t st;
	for (;; n++, seq++) {
		assert_true(n <= TNFS_MAX_SESSIONS);
		st = create_session(f, cid, seq, 2048, 64, sid, &slots, &cached);
		if (st != NFS4_OK)
			break;
		if (n == 0)
			memcpy(first, sid, 16);
	}
	assert_int_equal(st, NFS4ERR_DELAY);
	assert_int_equal(n, TNFS_MAX_SESSIONS);
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, first, 16);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(create_session(f, cid, seq, 2048, 64, sid, &slots, &cached), NFS4_OK);
	fx_mount_as(f, "another client");
	served(f, "other");
}

/* One client creates lock stateids (a new lock owner each) until it is
 * refused: NFS4ERR_DELAY at its share, and another client can still
 * OPEN and LOCK. */
static void test_stateid_flood(void **state)
{
	struct fx *f = *state;
	fx_mount_as(f, "lock owner flooder");
	struct nfs4_stateid osid;
	struct fh fh;
	assert_int_equal(open_new(f, "locked", &osid, &fh), NFS4_OK);
	uint32_t st = NFS4_OK;
	unsigned n = 0;
	for (; n <= TNFS_MAX_STATEIDS; n++) {
		char owner[32];
		snprintf(owner, sizeof(owner), "lo-%u", n);
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, &fh);
		req_op(&f->rq, OP_LOCK);
		xdr_put_u32(&f->rq.x, WRITE_LT);
		xdr_put_bool(&f->rq.x, false);
		xdr_put_u64(&f->rq.x, n);
		xdr_put_u64(&f->rq.x, 1);
		xdr_put_bool(&f->rq.x, true);
		xdr_put_u32(&f->rq.x, 0);
		put_stateid(&f->rq.x, &osid);
		xdr_put_u32(&f->rq.x, 0);
		xdr_put_u64(&f->rq.x, f->clientid);
		put_str(&f->rq.x, owner);
		st = fx_call(f);
		if (st != NFS4_OK)
			break;
	}
	assert_int_equal(st, NFS4ERR_DELAY);
	assert_int_equal(n, TNFS_MAX_STATEIDS_PER_CLIENT - 1); /* the open is one */
	fx_mount_as(f, "lock neighbour");
	served(f, "neighbour");
	struct nfs4_stateid sid;
	assert_int_equal(open_new(f, "neighbour-2", &sid, &fh), NFS4_OK);
}

/* LOCK or LOCKU on the fixture's client; *out is the lock stateid on
 * NFS4_OK. */
static uint32_t lock_op(struct fx *f, const struct fh *fh, uint32_t op, bool new_owner,
			const struct nfs4_stateid *sid, uint64_t off, uint64_t len,
			struct nfs4_stateid *out)
{
	if (op == OP_LOCK)
		return fx_lock(f, fh, WRITE_LT, off, len, new_owner, sid, "range flooder", out);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, op);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, off);
	xdr_put_u64(&f->rq.x, len);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	if (st == NFS4_OK)
		get_stateid(&f->rp.x, out);
	return st;
}

/* One lock owner locks every other byte until refused: NFS4ERR_DELAY at
 * the client's share of byte ranges; a LOCKU that would split a range
 * beyond it is NFS4ERR_LOCK_RANGE; another client still locks the same
 * file. */
static void test_lock_range_flood(void **state)
{
	struct fx *f = *state;
	fx_mount_as(f, "byte range flooder");
	struct nfs4_stateid osid, lsid;
	struct fh fh;
	assert_int_equal(open_new(f, "ranges", &osid, &fh), NFS4_OK);
	const uint64_t big = 1ull << 40;
	assert_int_equal(lock_op(f, &fh, OP_LOCK, true, &osid, big, 1000, &lsid), NFS4_OK);
	lsid.seqid = 0; /* any */
	struct nfs4_stateid out;
	uint32_t st = NFS4_OK;
	unsigned n = 0;
	for (; n <= TNFS_MAX_LOCKS_PER_CLIENT; n++) {
		st = lock_op(f, &fh, OP_LOCK, false, &lsid, 2ull * n, 1, &out);
		if (st != NFS4_OK)
			break;
	}
	assert_int_equal(st, NFS4ERR_DELAY);
	assert_int_equal(n + 1, TNFS_MAX_LOCKS_PER_CLIENT - 1); /* room for a split kept */
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.locks, n + 1);
	/* one split still fits, the next does not */
	assert_int_equal(lock_op(f, &fh, OP_LOCKU, false, &lsid, big + 10, 1, &out), NFS4_OK);
	assert_int_equal(lock_op(f, &fh, OP_LOCKU, false, &lsid, big + 20, 1, &out),
			 NFS4ERR_LOCK_RANGE);
	/* unlocking whole ranges always works, and gives room back */
	assert_int_equal(lock_op(f, &fh, OP_LOCKU, false, &lsid, 0, 4, &out), NFS4_OK);
	assert_int_equal(lock_op(f, &fh, OP_LOCKU, false, &lsid, big + 20, 1, &out), NFS4_OK);
	/* another client locks beside the flood */
	fx_mount_as(f, "range neighbour");
	struct nfs4_stateid nsid;
	struct fh nfh;
	assert_int_equal(open_new(f, "ranges", &nsid, &nfh), NFS4_OK);
	assert_int_equal(lock_op(f, &nfh, OP_LOCK, true, &nsid, 1ull << 50, 10, &out), NFS4_OK);
	/* the service-wide cap: with it one short of two more ranges, the
	 * neighbour waits too (NFS4ERR_DELAY, nothing added) */
	struct tnfs_state_limits lim;
	tnfs_state_get_limits(f->srv->state, &lim);
	tnfs_state_usage(f->srv->state, &u);
	lim.locks = u.locks + 1;
	tnfs_state_set_limits(f->srv->state, &lim);
	assert_int_equal(lock_op(f, &nfh, OP_LOCK, false, &out, 1ull << 51, 10, &out),
			 NFS4ERR_DELAY);
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.locks, lim.locks - 1);
}

/* Descriptors: one client's OPENs stop at its share with NFS4ERR_DELAY,
 * to it alone; the pool keeps the reserve. */
static void test_fd_share(void **state)
{
	struct fx *f = *state;
	struct tnfs_state_limits lim;
	tnfs_state_get_limits(f->srv->state, &lim);
	assert_true(lim.fds > 0 && lim.fds_per_client > 0 && lim.fds_per_client < lim.fds);
	lim.fds = 12;
	lim.fds_per_client = 5;
	tnfs_state_set_limits(f->srv->state, &lim);
	fx_mount_as(f, "descriptor flooder");
	struct nfs4_stateid sid;
	struct fh fh;
	char name[32];
	uint32_t st;
	unsigned n = fx_open_flood(f, open_new, 100, &st);
	assert_int_equal(st, NFS4ERR_DELAY);
	assert_int_equal(n, 5);
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.fds, 5);
	/* two more clients fill the pool; a fourth waits, the others are
	 * still served with what they hold */
	fx_mount_as(f, "second");
	for (unsigned i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "second-%u", i);
		assert_int_equal(open_new(f, name, &sid, &fh), NFS4_OK);
	}
	fx_mount_as(f, "third");
	assert_int_equal(open_new(f, "third-0", &sid, &fh), NFS4_OK);
	served(f, "third-1");
	assert_int_equal(open_new(f, "third-2", &sid, &fh), NFS4ERR_DELAY);
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.fds, 12);
	/* CLOSE gives the descriptor back */
	assert_int_equal(fx_close(f, &fh, &sid), NFS4_OK);
	assert_int_equal(open_new(f, "third-2", &sid, &fh), NFS4_OK);
}

/* The reply cache: only what sa_cachethis asks for is kept, no reply
 * beyond the negotiated size, and all sessions together stay within the
 * budget.  Prints the bytes held when every slot of 48 sessions asking
 * 64 slots of TNFS_MAX_CACHED bytes caches its largest reply. */
static void test_reply_cache_bound(void **state)
{
	struct fx *f = *state;
	/* a file of TNFS_MAX_CACHED bytes to READ from */
	char path[128];
	snprintf(path, sizeof(path), "%s/data", f->dir);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	for (unsigned i = 0; i < TNFS_MAX_CACHED; i++)
		fputc('a' + (int)(i % 26), fp);
	fclose(fp);
	fx_mount(f);
	struct fh fh;
	fx_fh_of(f, "data", &fh);
	const struct nfs4_stateid anon = { 0 };

	const unsigned nsessions = 48, per_client = TNFS_MAX_SESSIONS;
	uint8_t (*sids)[16] = calloc(nsessions, 16);
	uint32_t *nslots = calloc(nsessions, sizeof(*nslots));
	uint32_t *ncached = calloc(nsessions, sizeof(*ncached));
	assert_non_null(sids);
	assert_non_null(nslots);
	assert_non_null(ncached);
	uint64_t cid = 0;
	uint32_t seq = 0;
	for (unsigned i = 0; i < nsessions; i++) {
		if (i % per_client == 0) {
			char owner[32];
			snprintf(owner, sizeof(owner), "cache-client-%u", i / per_client);
			assert_int_equal(exchange_id(f, owner, &cid, &seq), NFS4_OK);
		}
		assert_int_equal(create_session(f, cid, seq++, TNFS_MAX_CACHED, TNFS_MAX_SLOTS,
						sids[i], &nslots[i], &ncached[i]),
				 NFS4_OK);
		assert_true(nslots[i] >= 1 && nslots[i] <= TNFS_MAX_SLOTS);
		assert_true(ncached[i] <= TNFS_MAX_CACHED);
	}
	/* every slot: a READ whose reply just fits the cached size, cached;
	 * then one as large uncached on the same slot (the buffer stays) */
	unsigned long fills = 0;
	for (unsigned i = 0; i < nsessions; i++) {
		for (uint32_t s = 0; s < nslots[i]; s++) {
			for (uint32_t k = 1; k <= 2; k++) {
				seq_slot(f, sids[i], s, k, k == 1);
				req_op(&f->rq, OP_PUTFH);
				put_fh(&f->rq.x, &fh);
				req_op(&f->rq, OP_READ);
				put_stateid(&f->rq.x, &anon);
				xdr_put_u64(&f->rq.x, 0);
				/* reply: header 16, SEQUENCE 48, PUTFH 8, READ 16 + data */
				uint32_t len = ncached[i] > 100 ? ncached[i] - 100 : 0;
				xdr_put_u32(&f->rq.x, len);
				assert_int_equal(fx_call(f), NFS4_OK);
				assert_true(f->rp.len <= ncached[i]);
				fills++;
			}
		}
	}
	unsigned granted = 0;
	for (unsigned i = 0; i < nsessions; i++)
		granted += nslots[i];
	struct tnfs_state_usage u;
	tnfs_state_usage(f->srv->state, &u);
	printf("reply cache: %u sessions asking %u slots of %u bytes, %u slots granted, "
	       "%lu replies: %zu bytes reserved, %zu bytes held; budget %u, "
	       "worst case %llu\n",
	       u.sessions, TNFS_MAX_SLOTS, TNFS_MAX_CACHED, granted, fills, u.drc_reserved,
	       u.drc_held, TNFS_DRC_BUDGET,
	       (unsigned long long)TNFS_DRC_BUDGET +
		       (unsigned long long)TNFS_MAX_CLIENTS * TNFS_MAX_SESSIONS * TNFS_MIN_CACHED);
	assert_true(u.drc_held <= u.drc_reserved);
	assert_true(u.drc_reserved <= (size_t)TNFS_DRC_BUDGET + (size_t)u.sessions * TNFS_MIN_CACHED);
	assert_true(u.drc_held > (size_t)TNFS_DRC_BUDGET / 2); /* the fill did fill */

	/* sa_cachethis false: nothing kept, a retry is RETRY_UNCACHED_REP */
	size_t before = u.drc_held;
	uint8_t sid[16];
	uint32_t slots, cached;
	assert_int_equal(exchange_id(f, "uncached", &cid, &seq), NFS4_OK);
	assert_int_equal(create_session(f, cid, seq, 4096, 4, sid, &slots, &cached), NFS4_OK);
	for (int k = 0; k < 2; k++) {
		seq_slot(f, sid, 0, 1, false);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, &fh);
		req_op(&f->rq, OP_READ);
		put_stateid(&f->rq.x, &anon);
		xdr_put_u64(&f->rq.x, 0);
		xdr_put_u32(&f->rq.x, 2000);
		assert_int_equal(fx_call(f), k ? NFS4ERR_RETRY_UNCACHED_REP : NFS4_OK);
	}
	tnfs_state_usage(f->srv->state, &u);
	assert_int_equal(u.drc_held, before);
	free(sids);
	free(nslots);
	free(ncached);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_client_flood, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_session_flood, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stateid_flood, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lock_range_flood, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fd_share, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_reply_cache_bound, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
