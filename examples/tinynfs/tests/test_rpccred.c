/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC caller as tinynfs acts for it (rpc.c: tnfs_rpc_cred and the
 * RPCSEC_GSS mapping tnfs_rpc_gss_map): what the service core hands over
 * for AUTH_SYS, AUTH_NONE and RPCSEC_GSS becomes the tnfs_cred that the
 * export's sec= list, squashing and SP4_MACH_CRED judge.  Then the same
 * credentials through COMPOUNDs: an export that takes only krb5p, and
 * EXCHANGE_ID with SP4_MACH_CRED from a mapped machine principal.
 * Hostile shapes: an unknown service, no principal, a principal one byte
 * too long, a group count near 2^32.
 */
#include "nfstest.h"

#include <rpcrdma/gss.h>

#include "rpc.h"

static struct rpcrdma_svc_cred in_cred(uint32_t flavor, uint32_t uid, uint32_t gid,
				       uint32_t ngids)
{
	struct rpcrdma_svc_cred c;
	memset(&c, 0, sizeof(c));
	c.flavor = flavor;
	c.uid = uid;
	c.gid = gid;
	c.ngids = ngids;
	for (uint32_t i = 0; i < RPCRDMA_AUTH_SYS_MAX_GIDS; i++)
		c.gids[i] = 500 + i;
	return c;
}

/* The tnfs_cred of an RPCSEC_GSS call of principal p with service svc,
 * mapped as tinynfs maps contexts. */
static struct tnfs_cred gss(const char *p, const char *localname, int svc)
{
	struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_RPCSEC_GSS, 7, 7, 0);
	assert_int_equal(tnfs_rpc_gss_map(NULL, p, localname, &in), 0);
	struct tnfs_cred out;
	assert_int_equal(tnfs_rpc_cred(&in, svc, p, &out), 0);
	return out;
}

static void test_sys_and_none(void **state)
{
	(void)state;
	struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_SYS, 1000, 100, 3);
	struct tnfs_cred out;
	/* a GSS service or principal beside AUTH_SYS is not looked at */
	assert_int_equal(tnfs_rpc_cred(&in, RPCRDMA_GSS_SVC_PRIVACY, "x@R", &out), 0);
	assert_int_equal(out.uid, 1000);
	assert_int_equal(out.gid, 100);
	assert_int_equal(out.ngroups, 3);
	assert_int_equal(out.groups[2], 502);
	assert_false(out.anon);
	assert_int_equal(out.gss_service, 0);
	assert_string_equal(out.principal, "");
	assert_int_equal(tnfs_cred_sec(&out), TNFS_SEC_SYS);
	/* a count near 2^32 is cut to the 16 groups there are */
	in.ngids = UINT32_MAX;
	assert_int_equal(tnfs_rpc_cred(&in, 0, NULL, &out), 0);
	assert_int_equal(out.ngroups, 16);
	assert_int_equal(out.groups[15], 515);
	in = in_cred(0 /* AUTH_NONE */, 1000, 100, 3);
	assert_int_equal(tnfs_rpc_cred(&in, 0, NULL, &out), 0);
	assert_true(out.anon);
	assert_int_equal(out.ngroups, 0);
	assert_int_equal(tnfs_cred_sec(&out), TNFS_SEC_NONE);
}

/* Each service names its flavour; the mapped ids and the principal come
 * along. */
static void test_gss_services(void **state)
{
	(void)state;
	static const unsigned want[] = { TNFS_SEC_KRB5, TNFS_SEC_KRB5I, TNFS_SEC_KRB5P };
	for (int s = RPCRDMA_GSS_SVC_NONE; s <= RPCRDMA_GSS_SVC_PRIVACY; s++) {
		struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_RPCSEC_GSS, 1000, 1000, 2);
		struct tnfs_cred out;
		assert_int_equal(tnfs_rpc_cred(&in, s, "alice@R", &out), 0);
		assert_int_equal(out.gss_service, (uint32_t)s);
		assert_string_equal(out.principal, "alice@R");
		assert_int_equal(out.uid, 1000);
		assert_int_equal(out.ngroups, 2);
		assert_false(out.anon);
		assert_int_equal(tnfs_cred_sec(&out), want[s - 1]);
	}
}

/* A call that cannot be named is refused, never run as someone: the
 * output is anonymous without a principal. */
static void test_gss_hostile(void **state)
{
	(void)state;
	struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_RPCSEC_GSS, 0, 0, 1);
	struct tnfs_cred out;
	static const int bad_svc[] = { 0, 4, -1, INT32_MAX };
	for (size_t i = 0; i < sizeof(bad_svc) / sizeof(bad_svc[0]); i++) {
		assert_int_equal(tnfs_rpc_cred(&in, bad_svc[i], "root@R", &out), -EACCES);
		assert_true(out.anon);
		assert_int_equal(out.uid, 65534);
		assert_string_equal(out.principal, "");
	}
	assert_int_equal(tnfs_rpc_cred(&in, RPCRDMA_GSS_SVC_INTEGRITY, NULL, &out), -EACCES);
	assert_int_equal(tnfs_rpc_cred(&in, RPCRDMA_GSS_SVC_INTEGRITY, "", &out), -EACCES);
	/* TNFS_PRINCIPAL_MAX - 1 bytes fit; one more would be truncated, and
	 * two long names with one prefix would then compare equal */
	char name[TNFS_PRINCIPAL_MAX + 1];
	memset(name, 'a', sizeof(name));
	name[TNFS_PRINCIPAL_MAX - 1] = '\0';
	assert_int_equal(tnfs_rpc_cred(&in, RPCRDMA_GSS_SVC_INTEGRITY, name, &out), 0);
	assert_int_equal(strlen(out.principal), TNFS_PRINCIPAL_MAX - 1);
	name[TNFS_PRINCIPAL_MAX - 1] = 'a';
	name[TNFS_PRINCIPAL_MAX] = '\0';
	assert_int_equal(tnfs_rpc_cred(&in, RPCRDMA_GSS_SVC_INTEGRITY, name, &out), -EACCES);
	assert_true(out.anon);
	assert_string_equal(out.principal, "");
	/* ... and the mapping refuses such a context at its creation */
	assert_int_equal(tnfs_rpc_gss_map(NULL, name, "root", &in), -ENAMETOOLONG);
	assert_int_equal(tnfs_rpc_gss_map(NULL, NULL, "root", &in), -ENAMETOOLONG);
}

/* The name service, as rpc.svcgssd: root is uid 0 with its groups; a
 * principal without a local user (a host principal, a name no passwd
 * entry has) is (uint32_t)-1, which the export squashes to anonuid. */
static void test_map(void **state)
{
	(void)state;
	struct rpcrdma_svc_cred c = in_cred(RPCRDMA_AUTH_RPCSEC_GSS, 7, 7, 5);
	assert_int_equal(tnfs_rpc_gss_map(NULL, "root@R", "root", &c), 0);
	assert_int_equal(c.uid, 0);
	assert_int_equal(c.gid, 0);
	assert_true(c.ngids >= 1 && c.ngids <= RPCRDMA_AUTH_SYS_MAX_GIDS);
	assert_int_equal(c.gids[0], 0);
	c = in_cred(RPCRDMA_AUTH_RPCSEC_GSS, 7, 7, 5);
	assert_int_equal(tnfs_rpc_gss_map(NULL, "nfs/host@R", NULL, &c), 0);
	assert_int_equal(c.uid, UINT32_MAX);
	assert_int_equal(c.gid, UINT32_MAX);
	assert_int_equal(c.ngids, 0);
	c = in_cred(RPCRDMA_AUTH_RPCSEC_GSS, 7, 7, 5);
	assert_int_equal(tnfs_rpc_gss_map(NULL, "ghost@R", "tnfs-no-such-user-x", &c), 0);
	assert_int_equal(c.uid, UINT32_MAX);
	assert_int_equal(c.ngids, 0);

	struct tnfs_export x = { .squash = TNFS_SQUASH_ROOT, .anonuid = 4242, .anongid = 4343 };
	struct tnfs_cred in = gss("nfs/host@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY), sq;
	tnfs_export_squash(&x, &in, &sq);
	assert_int_equal(sq.uid, 4242);
	assert_int_equal(sq.gid, 4343);
	in = gss("root@R", "root", RPCRDMA_GSS_SVC_NONE);
	tnfs_export_squash(&x, &in, &sq);
	assert_int_equal(sq.uid, 4242); /* root_squash */
	x.squash = TNFS_SQUASH_NONE;
	tnfs_export_squash(&x, &in, &sq);
	assert_int_equal(sq.uid, 0);
	assert_string_equal(sq.principal, "root@R");
}

/* Whose state is whose: principals are told apart by name even when
 * they map to the same (anonymous) ids; the service does not change the
 * principal; the machine credential needs integrity. */
static void test_principals(void **state)
{
	(void)state;
	struct tnfs_cred a = gss("nfs/a@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY);
	struct tnfs_cred b = gss("nfs/b@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY);
	struct tnfs_cred ap = gss("nfs/a@R", NULL, RPCRDMA_GSS_SVC_PRIVACY);
	struct tnfs_cred an = gss("nfs/a@R", NULL, RPCRDMA_GSS_SVC_NONE);
	assert_int_equal(a.uid, b.uid);
	assert_false(tnfs_same_principal(&a, &b));
	assert_true(tnfs_same_principal(&a, &ap));
	assert_true(tnfs_same_principal(&a, &an));
	assert_true(tnfs_machine_cred(&a, &ap));
	assert_false(tnfs_machine_cred(&a, &an));
	assert_false(tnfs_machine_cred(&a, &b));
	/* AUTH_SYS with the same ids is someone else */
	struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_SYS, UINT32_MAX, UINT32_MAX, 0);
	struct tnfs_cred s;
	assert_int_equal(tnfs_rpc_cred(&in, 0, NULL, &s), 0);
	assert_false(tnfs_same_principal(&a, &s));
	assert_false(tnfs_machine_cred(&a, &s));
}

static int setup_krb5p(void **state)
{
	*state = fx_new("*(rw,no_root_squash,sec=krb5p)");
	return 0;
}

/* SEQUENCE, PUTROOTFH, GETATTR (type): the COMPOUND status. */
static uint32_t root_getattr(struct fx *f)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE), 0, 0);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	return st;
}

/* sec=krb5p: alice's krb5p calls are served; the same principal with
 * krb5i or krb5 and any AUTH_SYS caller get WRONGSEC, and
 * SECINFO_NO_NAME tells them krb5p. */
static void test_export_krb5p(void **state)
{
	struct fx *f = *state;
	f->cred = gss("alice@R", "root", RPCRDMA_GSS_SVC_PRIVACY);
	fx_mount(f);
	assert_int_equal(root_getattr(f), NFS4_OK);
	f->cred.gss_service = TNFS_GSS_SVC_INTEGRITY;
	assert_int_equal(root_getattr(f), NFS4ERR_WRONGSEC);
	f->cred.gss_service = TNFS_GSS_SVC_NONE;
	assert_int_equal(root_getattr(f), NFS4ERR_WRONGSEC);
	struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_SYS, 0, 0, 0);
	assert_int_equal(tnfs_rpc_cred(&in, 0, NULL, &f->cred), 0);
	assert_int_equal(root_getattr(f), NFS4ERR_WRONGSEC);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SECINFO_NO_NAME);
	xdr_put_u32(&f->rq.x, SECINFO_STYLE4_CURRENT_FH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SECINFO_NO_NAME), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), RPCSEC_GSS);
	struct xdr_opaque oid = xdr_get_opaque(&f->rp.x, 64);
	assert_int_equal(oid.len, 9);
	assert_int_equal(xdr_get_u32(&f->rp.x), 0); /* QOP */
	assert_int_equal(xdr_get_u32(&f->rp.x), RPCRDMA_GSS_SVC_PRIVACY);
	assert_false(f->rp.x.bad);
}

/* EXCHANGE_ID with SP4_MACH_CRED, spo_must_allow word 0 asked: the
 * answer's client ID, sequence and spr_how. */
static uint32_t exchange_allow(struct fx *f, uint32_t allow0, uint64_t *cid, uint32_t *seq,
			       uint32_t *how)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	xdr_put_u64(&f->rq.x, 0x1122334455667788ull);
	put_str(&f->rq.x, "Linux NFSv4.1 client");
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, SP4_MACH_CRED);
	put_bitmap(&f->rq.x, 0, 0, 0);
	put_bitmap(&f->rq.x, allow0, 0, 0);
	xdr_put_u32(&f->rq.x, 0);
	uint32_t st = fx_call(f);
	assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), st);
	if (st == NFS4_OK) {
		*cid = xdr_get_u64(&f->rp.x);
		*seq = xdr_get_u32(&f->rp.x);
		(void)xdr_get_u32(&f->rp.x);
		*how = xdr_get_u32(&f->rp.x);
	}
	return st;
}

static uint32_t exchange_mach(struct fx *f, uint64_t *cid, uint32_t *seq, uint32_t *how)
{
	return exchange_allow(f, 0, cid, seq, how);
}

/* The kernel client's lease credential: its machine principal (no local
 * user) over krb5i.  SP4_MACH_CRED is granted to it with krb5i and krb5p,
 * refused over krb5 and AUTH_SYS (NFS4ERR_INVAL); once confirmed, the
 * record is found again only by that principal with integrity. */
static void test_mach_cred_mapped(void **state)
{
	struct fx *f = *state;
	uint32_t how = 0, seq = 0;
	uint64_t cid = 0;
	f->cred = gss("nfs/client@R", NULL, RPCRDMA_GSS_SVC_NONE);
	assert_int_equal(exchange_mach(f, &cid, &seq, &how), NFS4ERR_INVAL);
	struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_SYS, 0, 0, 0);
	assert_int_equal(tnfs_rpc_cred(&in, 0, NULL, &f->cred), 0);
	assert_int_equal(exchange_mach(f, &cid, &seq, &how), NFS4ERR_INVAL);
	f->cred = gss("nfs/client@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY);
	assert_int_equal(exchange_mach(f, &cid, &seq, &how), NFS4_OK);
	assert_int_equal(how, SP4_MACH_CRED);
	f->cred = gss("nfs/client@R", NULL, RPCRDMA_GSS_SVC_PRIVACY);
	assert_int_equal(exchange_mach(f, &cid, &seq, &how), NFS4_OK);
	assert_int_equal(how, SP4_MACH_CRED);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, cid, seq);
	assert_int_equal(fx_call(f), NFS4_OK);
	/* another machine with the same (anonymous) ids, and the machine
	 * itself without integrity */
	f->cred = gss("nfs/other@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY);
	assert_int_equal(exchange_mach(f, &cid, &seq, &how), NFS4ERR_CLID_INUSE);
	f->cred = gss("nfs/client@R", NULL, RPCRDMA_GSS_SVC_NONE);
	assert_int_equal(exchange_mach(f, &cid, &seq, &how), NFS4ERR_INVAL);
	f->cred = gss("nfs/client@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY);
	assert_int_equal(exchange_mach(f, &cid, &seq, &how), NFS4_OK);
	assert_int_equal(how, SP4_MACH_CRED);
}

/* SEQUENCE, PUTFH fh, then CLOSE of sid or GETATTR (sid NULL): the
 * COMPOUND's status, PUTFH's checked against it. */
static uint32_t fh_then(struct fx *f, const struct fh *fh, const struct nfs4_stateid *sid)
{
	uint32_t st;
	if (sid) {
		st = fx_close(f, fh, sid);
	} else {
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, fh);
		req_op(&f->rq, OP_GETATTR);
		put_bitmap(&f->rq.x, W0(FATTR4_TYPE), 0, 0);
		st = fx_call(f);
	}
	fx_seq_ok(f);
	uint32_t ps = rep_op(&f->rp, OP_PUTFH);
	assert_true(ps == st || ps == NFS4_OK);
	return st;
}

/* sec=krb5p and a Linux-like client: its lease and machine credential
 * nfs/client@R over krb5i with SP4_MACH_CRED allowing CLOSE, its user
 * alice over krb5p.  The machine may CLOSE alice's open although the
 * export does not take krb5i (nfsd4_spo_must_allow); it may not GETATTR
 * there, nor CLOSE over krb5 (no integrity), nor may another machine
 * with the same ids or AUTH_SYS root. */
static void test_mach_allow_lifts_wrongsec(void **state)
{
	struct fx *f = *state;
	const struct tnfs_cred mach = gss("nfs/client@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY);
	const struct tnfs_cred alice = gss("alice@R", "root", RPCRDMA_GSS_SVC_PRIVACY);
	uint32_t how = 0, seq = 0;
	f->cred = mach;
	assert_int_equal(exchange_allow(f, W0(OP_CLOSE), &f->clientid, &seq, &how), NFS4_OK);
	assert_int_equal(how, SP4_MACH_CRED);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, f->clientid, seq);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), NFS4_OK);
	xdr_get_fixed(&f->rp.x, f->sessionid, 16);
	f->slot_seq = 0;
	fx_seq(f);
	req_op(&f->rq, OP_RECLAIM_COMPLETE);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4_OK);

	struct nfs4_stateid sid;
	struct fh fh;
	f->cred = alice;
	assert_int_equal(fx_open_root(f, "o", OPEN4_SHARE_ACCESS_BOTH, true, 0644, "f", &sid, &fh,
				      NULL), NFS4_OK);
	f->cred = mach;
	assert_int_equal(fh_then(f, &fh, NULL), NFS4ERR_WRONGSEC);
	f->cred = gss("nfs/client@R", NULL, RPCRDMA_GSS_SVC_NONE);
	assert_int_equal(fh_then(f, &fh, &sid), NFS4ERR_WRONGSEC);
	f->cred = gss("nfs/other@R", NULL, RPCRDMA_GSS_SVC_INTEGRITY);
	assert_int_equal(fh_then(f, &fh, &sid), NFS4ERR_WRONGSEC);
	struct rpcrdma_svc_cred in = in_cred(RPCRDMA_AUTH_SYS, 0, 0, 0);
	assert_int_equal(tnfs_rpc_cred(&in, 0, NULL, &f->cred), 0);
	assert_int_equal(fh_then(f, &fh, &sid), NFS4ERR_WRONGSEC);
	f->cred = mach;
	assert_int_equal(fh_then(f, &fh, &sid), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CLOSE), NFS4_OK);
	/* alice's own krb5p calls go on */
	f->cred = alice;
	assert_int_equal(fh_then(f, &fh, NULL), NFS4_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sys_and_none),
		cmocka_unit_test(test_gss_services),
		cmocka_unit_test(test_gss_hostile),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_principals),
		cmocka_unit_test_setup_teardown(test_export_krb5p, setup_krb5p, fx_teardown),
		cmocka_unit_test_setup_teardown(test_mach_cred_mapped, setup_krb5p, fx_teardown),
		cmocka_unit_test_setup_teardown(test_mach_allow_lifts_wrongsec, setup_krb5p,
						fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
