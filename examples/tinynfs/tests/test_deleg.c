/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Callbacks and delegations of the tinynfs program (argv[1]) on loopback
 * TCP.  Client A creates its session with CREATE_SESSION4_FLAG_CONN_BACK_CHAN
 * and serves the callback program on its connection with the small
 * handler below (CB_NULL; CB_COMPOUND of CB_SEQUENCE + CB_RECALL, whose
 * session, sequence ids, program and credential it records); client B has
 * no back channel.  Checked: the read delegation on OPEN; its recall by
 * B's OPEN for writing, REMOVE, RENAME and SETATTR of the size (B gets
 * NFS4ERR_DELAY until A's DELEGRETURN); by a local open(O_WRONLY) of the
 * file in a child process, which stays blocked until the DELEGRETURN;
 * revocation of an unreturned delegation (--recall-timeout 1):
 * DELEG_REVOKED, SEQ4_STATUS_RECALLABLE_STATE_REVOKED until FREE_STATEID;
 * BIND_CONN_TO_SESSION of another connection for both directions,
 * BACKCHANNEL_CTL (the next callback's program and AUTH_SYS), the path
 * going down with that connection (SEQ4_STATUS_CB_PATH_DOWN and
 * _SESSION, no delegation granted) and up again by binding the back
 * channel; forged delegation stateids and a garbage answer to CB_RECALL;
 * DESTROY_CLIENTID dropping the client's delegation; a client that never
 * answers CB_NULL (no delegation, the path down after the timeout);
 * --no-delegations; the counters of --stats.  The back channel's
 * binding and the hostile cases are in test_deleg_bc.c, the harness in
 * deleg_env.h.
 */
#include "deleg_env.h"

static void test_open_recall(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype = 99;
	deleg_of(e, "f", &dsid, &fh);
	/* READ with the delegation stateid */
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	/* A again: it has one already */
	assert_int_equal(open_file(&e->a, "a-owner2", "f", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	/* B reading: no conflict, and B has no back channel: none for B */
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	assert_int_equal(e->a.nrecall, 0);
	/* B writing: NFS4ERR_DELAY and a recall to A, until A returns it */
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	recall_and_return(e, 1, &dsid, &fh);
	assert_int_equal(open_file(&e->b, "b-owner", "f", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	/* returned: gone */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4ERR_BAD_STATEID);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4ERR_BAD_STATEID);
	/* another client's delegation stateid is not B's */
	assert_int_equal(sid_op(&e->b, &fh, OP_DELEGRETURN, &dsid), NFS4ERR_BAD_STATEID);
	/* while B has it open for writing, A gets no delegation */
	assert_int_equal(open_file(&e->a, "a-owner", "f", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 1);
	assert_int_equal(counter(e, "cb_recall"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

static void test_remove_rename_setattr(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid;
	struct fh fh, root;
	struct fx *b = e->b.f;
	fx_fh_of(b, NULL, &root);
	for (unsigned k = 1; k <= 3; k++) {
		deleg_of(e, "g", &dsid, &fh);
		for (int again = 0; again < 2; again++) {
			fx_seq(b);
			req_op(&b->rq, OP_PUTROOTFH);
			if (k == 1) {
				req_op(&b->rq, OP_REMOVE);
				put_str(&b->rq.x, "g");
			} else if (k == 2) {
				req_op(&b->rq, OP_SAVEFH);
				req_op(&b->rq, OP_RENAME);
				put_str(&b->rq.x, "g");
				put_str(&b->rq.x, "g2");
			} else {
				req_op(&b->rq, OP_PUTFH);
				put_fh(&b->rq.x, &fh);
				req_op(&b->rq, OP_SETATTR);
				static const struct nfs4_stateid anon;
				put_stateid(&b->rq.x, &anon);
				put_bitmap(&b->rq.x, W0(FATTR4_SIZE), 0, 0);
				xdr_put_u32(&b->rq.x, 8);
				xdr_put_u64(&b->rq.x, 0);
			}
			uint32_t want = again ? NFS4_OK : NFS4ERR_DELAY;
			assert_int_equal(fx_call(b), want);
			if (!again)
				recall_and_return(e, k, &dsid, &fh);
		}
	}
	/* The holder removes its own file: no conflict, no recall (no
	 * other client holds a delegation: the name is not even looked at). */
	struct fx *a = e->a.f;
	deleg_of(e, "h", &dsid, &fh);
	fx_seq(a);
	req_op(&a->rq, OP_PUTROOTFH);
	req_op(&a->rq, OP_REMOVE);
	put_str(&a->rq.x, "h");
	assert_int_equal(fx_call(a), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 4);
	assert_int_equal(counter(e, "cb_recall"), 3);
	assert_int_equal(counter(e, "deleg_returned"), 3);
}

static void test_local_writer(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid;
	struct fh fh;
	deleg_of(e, "h", &dsid, &fh);
	char path[160];
	snprintf(path, sizeof(path), "%s/h", e->a.f->dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* a local writer: blocks until the lease is released */
		int fd = open(path, O_WRONLY);
		_exit(fd >= 0 && write(fd, "local", 5) == 5 ? 0 : 1);
	}
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_memory_equal(e->a.recalled.other, dsid.other, 12);
	int st;
	/* still blocked: only the return releases it (or the kernel's
	 * lease-break-time, 45 s by default, far beyond this test) */
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	stop(e);
	assert_true(counter(e, "lease_breaks") >= 1);
	assert_int_equal(counter(e, "cb_recall"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

static void test_revoke(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "r", &dsid, &fh);
	assert_int_equal(seq_flags(&e->a), 0);
	/* B's write open recalls; A answers the callback but never returns
	 * the delegation: after --recall-timeout 1 it is revoked and B gets
	 * in (the loop bounds the wait: liveness only) */
	uint32_t s = NFS4ERR_DELAY;
	for (int i = 0; s == NFS4ERR_DELAY && i < 120; i++) {
		s = open_file(&e->b, "b-owner", "r", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype, &bsid,
			      &bfh);
		if (s == NFS4ERR_DELAY)
			usleep(250 * 1000);
	}
	assert_int_equal(s, NFS4_OK);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_int_equal(seq_flags(&e->a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED,
			 SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4ERR_DELEG_REVOKED);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4ERR_DELEG_REVOKED);
	/* TEST_STATEID says so too */
	struct fx *f = e->a.f;
	fx_seq(f);
	req_op(&f->rq, OP_TEST_STATEID);
	xdr_put_u32(&f->rq.x, 1);
	put_stateid(&f->rq.x, &dsid);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_TEST_STATEID), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), NFS4ERR_DELEG_REVOKED);
	/* FREE_STATEID clears it */
	fx_seq(f);
	req_op(&f->rq, OP_FREE_STATEID);
	put_stateid(&f->rq.x, &dsid);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(seq_flags(&e->a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED, 0);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4ERR_BAD_STATEID);
	stop(e);
	assert_int_equal(counter(e, "deleg_revoked"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 0);
}

/* A client record that goes takes its delegations with it. */
static void test_client_gone(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "y", &dsid, &fh);
	struct fx *f = e->a.f;
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* the open and the delegation are held: RFC 8881 18.50.3 */
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4ERR_CLIENTID_BUSY);
	/* the client restarts: its new incarnation, once confirmed, ends
	 * the old one's record (18.35.5 case 5) */
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	put_exchange_id(&f->rq.x, "client A", 0x99);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), NFS4_OK);
	uint64_t cid = xdr_get_u64(&f->rp.x);
	uint32_t seq = xdr_get_u32(&f->rp.x);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, cid, seq);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* no recall, no delay: the delegation (and its lease) is gone */
	assert_int_equal(open_file(&e->b, "b-owner", "y", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 1);
	assert_int_equal(counter(e, "cb_recall"), 0);
	assert_int_equal(counter(e, "deleg_held"), 0);
}

/* A client that never answers CB_NULL: no delegation while the probe is
 * out; when it times out (TNFS_CB_TIMEOUT_MS) the path is down
 * (SEQ4_STATUS_CB_PATH_DOWN), still no delegation, and nothing waits on
 * it.  The 1 s polls up to 90 s are a liveness bound only. */
static void test_cb_null_unanswered(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid, bsid;
	struct fh fh, bfh;
	uint32_t dtype = 99;
	mkfile(&e->a, "s");
	assert_int_equal(open_file(&e->a, "a-owner", "s", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &dsid, &fh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	uint32_t fl = 0;
	for (int i = 0; i < 90 && !(fl & SEQ4_STATUS_CB_PATH_DOWN); i++) {
		sleep(1);
		fl = seq_flags(&e->a);
	}
	assert_int_equal(fl & (SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION),
			 SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION);
	dtype = 99;
	assert_int_equal(open_file(&e->a, "a-owner2", "s", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &dsid, &fh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	assert_int_equal(open_file(&e->b, "b-owner", "s", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 0);
	assert_int_equal(counter(e, "cb_null"), 1);
	assert_int_equal(counter(e, "cb_null_ok"), 0);
	assert_int_equal(counter(e, "cb_errors"), 1);
}

/* Binds whose probes go unanswered: one CB_NULL in flight per client,
 * not one per BIND_CONN_TO_SESSION (each would hold its call and
 * buffers until its timeout); the last binding is probed once the
 * probe in flight ends, and the path comes up when that is answered. */
static void test_binds_one_probe(void **state)
{
	struct env *e = *state;
	const unsigned nbinds = 40;
	for (unsigned i = 0; i < nbinds; i++)
		assert_int_equal(bind_conn(&e->a, e->a.f->sessionid, CDFC4_BACK_OR_BOTH),
				 CDFS4_BOTH);
	/* a round trip more: any probe sent is read by now */
	(void)seq_flags(&e->a);
	assert_int_equal(e->a.nnull, 1); /* the mount's, still out */
	/* the mount's times out (TNFS_CB_TIMEOUT_MS); the binding's
	 * probe follows and is answered: a delegation again */
	e->a.silent = false;
	struct nfs4_stateid dsid;
	struct fh fh;
	mkfile(&e->a, "p");
	uint32_t dtype = OPEN_DELEGATE_NONE;
	for (int i = 0; dtype == OPEN_DELEGATE_NONE && i < 60; i++) {
		struct nfs4_stateid osid;
		if (i)
			sleep(1);
		char owner[32];
		snprintf(owner, sizeof(owner), "a-owner%d", i);
		assert_int_equal(open_file(&e->a, owner, "p", OPEN4_SHARE_ACCESS_READ, &osid,
					   &dtype, &dsid, &fh), NFS4_OK);
	}
	assert_int_equal(dtype, OPEN_DELEGATE_READ);
	assert_int_equal(e->a.nnull, 2);
	stop(e);
	assert_int_equal(counter(e, "cb_null"), 2);
	assert_int_equal(counter(e, "cb_null_ok"), 1);
}

static void test_no_delegations(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid;
	struct fh fh;
	uint32_t dtype = 99;
	mkfile(&e->a, "n");
	assert_int_equal(open_file(&e->a, "a-owner", "n", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &dsid, &fh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	assert_int_equal(seq_flags(&e->a), 0); /* the path itself is up */
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 0);
	assert_int_equal(counter(e, "cb_null_ok"), 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_recall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_rename_setattr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revoke, setup_revoke, teardown),
		cmocka_unit_test_setup_teardown(test_client_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_delegations, setup_nodeleg, teardown),
		cmocka_unit_test_setup_teardown(test_cb_null_unanswered, setup_silent, teardown),
		cmocka_unit_test_setup_teardown(test_binds_one_probe, setup_silent, teardown),
	};
	return deleg_run(argc, argv, tests);
}
