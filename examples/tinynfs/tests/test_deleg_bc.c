/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The back channel of the tinynfs program (argv[1]) on loopback TCP
 * (harness: deleg_env.h): BIND_CONN_TO_SESSION of another connection for
 * both directions, BACKCHANNEL_CTL (the next callback's program and
 * AUTH_SYS), the path going down with that connection
 * (SEQ4_STATUS_CB_PATH_DOWN and _SESSION, no delegation granted) and up
 * again by binding the back channel, a binding hostile to the session;
 * forged delegation stateids and a garbage answer to CB_RECALL.
 */
#include "deleg_env.h"

static void test_bind_and_path(void **state)
{
	struct env *e = *state;
	/* a second connection of A's, bound for both directions */
	struct cl a2;
	cl_open(&a2, &e->p, e->a.f->dir);
	assert_int_equal(bind_conn(&a2, e->a.f->sessionid, CDFC4_BACK_OR_BOTH), CDFS4_BOTH);
	cl_wait(&a2, &a2.nnull, 1);
	/* BACKCHANNEL_CTL: another program, AUTH_SYS */
	struct fx *f = e->a.f;
	fx_seq(f);
	req_op(&f->rq, OP_BACKCHANNEL_CTL);
	xdr_put_u32(&f->rq.x, CB_PROG + 1);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, AUTH_SYS);
	xdr_put_u32(&f->rq.x, 7);
	put_str(&f->rq.x, "cbhost");
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* the recall comes on the bound connection, with the new program */
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of_soon(e, "p", &dsid, &fh);
	assert_int_equal(open_file(&e->b, "b-owner", "p", OPEN4_SHARE_ACCESS_WRITE, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	cl_wait(&a2, &a2.nrecall, 1);
	assert_int_equal(a2.cb_prog, CB_PROG + 1);
	assert_int_equal(a2.cb_flavor, AUTH_SYS);
	assert_int_equal(a2.cb_seq, 1);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(seq_flags(&e->a), 0);
	/* the back channel's connection closes: the path is down */
	tnfsconn_close(&a2.c);
	uint32_t fl = 0;
	for (int i = 0; !(fl & SEQ4_STATUS_CB_PATH_DOWN) && i < 120; i++) {
		fl = seq_flags(&e->a);
		if (!(fl & SEQ4_STATUS_CB_PATH_DOWN))
			usleep(100 * 1000);
	}
	assert_int_equal(fl, SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION);
	/* no delegation without a path */
	mkfile(&e->a, "q");
	assert_int_equal(open_file(&e->a, "a-owner", "q", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_NONE);
	/* the back channel alone on A's first connection: up again */
	unsigned before = e->a.nnull;
	assert_int_equal(bind_conn(&e->a, e->a.f->sessionid, CDFC4_BACK), CDFS4_BACK);
	cl_wait(&e->a, &e->a.nnull, before + 1);
	assert_int_equal(seq_flags(&e->a), 0);
	mkfile(&e->a, "q2");
	assert_int_equal(open_file(&e->a, "a-owner", "q2", OPEN4_SHARE_ACCESS_READ, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_READ);
	/* the fore channel alone on a new connection leaves the path be */
	struct cl a3;
	cl_open(&a3, &e->p, e->a.f->dir);
	assert_int_equal(bind_conn(&a3, e->a.f->sessionid, CDFC4_FORE), CDFS4_FORE);
	tnfsconn_close(&a3.c);
	assert_int_equal(seq_flags(&e->a), 0);
	cl_free(&a2);
	cl_free(&a3);
}

/* Another principal (uid 1000, its own connection) that knows A's
 * session ID asks BIND_CONN_TO_SESSION for the back channel of A's
 * session: NFS4ERR_WRONG_CRED (README, "NFSv4.1 state protection"), and
 * the CB_RECALL of A's delegation still reaches A, which returns it. */
static void test_bind_hostile(void **state)
{
	struct env *e = *state;
	struct cl m;
	cl_open(&m, &e->p, e->a.f->dir);
	m.c.uid = m.c.gid = 1000;
	struct fx *f = m.f;
	fx_begin(f);
	req_op(&f->rq, OP_BIND_CONN_TO_SESSION);
	xdr_put_fixed(&f->rq.x, e->a.f->sessionid, 16);
	xdr_put_u32(&f->rq.x, CDFC4_BACK);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4ERR_WRONG_CRED);
	struct nfs4_stateid dsid, osid, bsid;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "v", &dsid, &fh);
	assert_int_equal(open_file(&e->b, "b-owner", "v", OPEN4_SHARE_ACCESS_WRITE, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_int_equal(m.nrecall, 0);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	tnfsconn_close(&m.c);
	cl_free(&m);
}

/* Forged delegation stateids, and a client answering CB_RECALL with
 * garbage: refused, counted, and the delegation still returnable. */
static void test_hostile(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, bsid, forged;
	struct fh fh, bfh;
	uint32_t dtype;
	deleg_of(e, "x", &dsid, &fh);
	static const uint8_t ids[][4] = { { 0x80, 0, 0, 7 }, { 0xff, 0xff, 0xff, 0xfe },
					  { 0x80, 0, 0xff, 0xff } };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		forged = dsid;
		memcpy(forged.other, ids[i], 4);
		assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
		assert_int_equal(sid_op(&e->a, &fh, OP_READ, &forged), NFS4ERR_BAD_STATEID);
	}
	forged = dsid;
	forged.other[7] ^= 1; /* another generation */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
	forged = dsid;
	forged.other[11] ^= 1; /* another boot */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
	forged = dsid;
	forged.seqid = 2; /* a newer seqid than any given */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &forged), NFS4ERR_BAD_STATEID);
	/* the delegation of another file */
	struct fh root;
	fx_fh_of(e->a.f, NULL, &root);
	assert_int_equal(sid_op(&e->a, &root, OP_DELEGRETURN, &dsid), NFS4ERR_BAD_STATEID);
	/* live: FREE_STATEID refuses it */
	struct fx *f = e->a.f;
	fx_seq(f);
	req_op(&f->rq, OP_FREE_STATEID);
	put_stateid(&f->rq.x, &dsid);
	assert_int_equal(fx_call(f), NFS4ERR_LOCKS_HELD);
	/* garbage for an answer to the recall */
	e->a.garbage = true;
	assert_int_equal(open_file(&e->b, "b-owner", "x", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(open_file(&e->b, "b-owner", "x", OPEN4_SHARE_ACCESS_BOTH, &osid, &dtype,
				   &bsid, &bfh), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "cb_errors"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bind_and_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_hostile, setup, teardown),
	};
	return deleg_run(argc, argv, tests);
}
