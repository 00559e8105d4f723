/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Security flavours per export (exports.h sec=): SECINFO and
 * SECINFO_NO_NAME list them in order (RFC 8881 18.29, 18.45), and
 * NFS4ERR_WRONGSEC answers a call whose flavour the export does not take,
 * where RFC 8881 2.6.3.1.1 puts it.  AUTH_NONE against AUTH_SYS today;
 * the krb5 flavours with credentials shaped as RPCSEC_GSS will give them.
 */
#include "nfstest.h"

static int setup_sys(void **state)
{
	*state = fx_new("*(rw,no_root_squash,sec=sys)");
	return 0;
}

static int setup_list(void **state)
{
	*state = fx_new("*(rw,no_root_squash,sec=krb5p:sys:krb5i:none)");
	return 0;
}

static int setup_krb5i(void **state)
{
	*state = fx_new("*(rw,no_root_squash,sec=krb5i:sys)");
	return 0;
}

static const uint8_t KRB5_OID[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02 };

/* Reads a secinfo4 list and checks it against want (enum tnfs_sec). */
static void get_secinfo(struct fx *f, const uint8_t *want, uint32_t n)
{
	struct xdr_in *x = &f->rp.x;
	assert_int_equal(xdr_get_u32(x), n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t flavor = xdr_get_u32(x);
		if (want[i] == TNFS_SEC_SYS || want[i] == TNFS_SEC_NONE) {
			assert_int_equal(flavor, want[i] == TNFS_SEC_SYS ? AUTH_SYS : AUTH_NONE);
			continue;
		}
		assert_int_equal(flavor, RPCSEC_GSS);
		struct xdr_opaque oid = xdr_get_opaque(x, 64);
		assert_false(x->bad);
		assert_int_equal(oid.len, sizeof(KRB5_OID));
		assert_memory_equal(oid.data, KRB5_OID, sizeof(KRB5_OID));
		assert_int_equal(xdr_get_u32(x), 0); /* QOP */
		assert_int_equal(xdr_get_u32(x), want[i] - TNFS_SEC_KRB5 + 1);
	}
	assert_false(x->bad);
}

/* SEQUENCE, PUTROOTFH, then op (GETATTR of the type, SECINFO_NO_NAME of
 * the current fh, or none with 0); returns the COMPOUND status, the
 * walker after SEQUENCE. */
static uint32_t root_then(struct fx *f, uint32_t op)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	if (op == OP_GETATTR) {
		req_op(&f->rq, OP_GETATTR);
		put_bitmap(&f->rq.x, W0(FATTR4_TYPE), 0, 0);
	} else if (op == OP_SECINFO_NO_NAME) {
		req_op(&f->rq, OP_SECINFO_NO_NAME);
		xdr_put_u32(&f->rq.x, SECINFO_STYLE4_CURRENT_FH);
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	return st;
}

static void make_file(struct fx *f, const char *name)
{
	struct nfs4_stateid sid;
	struct fh fh;
	assert_int_equal(fx_open_root(f, "o", OPEN4_SHARE_ACCESS_BOTH, true, 0644, name, &sid, &fh,
				      NULL), NFS4_OK);
	assert_int_equal(fx_close(f, &fh, &sid), NFS4_OK);
}

/* SECINFO_NO_NAME and SECINFO list the export's flavours in sec= order:
 * RPCSEC_GSS with the Kerberos V5 OID and the service, AUTH_SYS,
 * AUTH_NONE. */
static void test_secinfo_order(void **state)
{
	struct fx *f = *state;
	static const uint8_t want[] = { TNFS_SEC_KRB5P, TNFS_SEC_SYS, TNFS_SEC_KRB5I,
					TNFS_SEC_NONE };
	fx_mount(f);
	make_file(f, "file");
	assert_int_equal(root_then(f, OP_SECINFO_NO_NAME), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SECINFO_NO_NAME), NFS4_OK);
	get_secinfo(f, want, 4);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SECINFO);
	put_str(&f->rq.x, "file");
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SECINFO), NFS4_OK);
	get_secinfo(f, want, 4);
}

/* An export with sec=sys and an AUTH_NONE caller: the put-filehandle
 * operation followed by one that uses the handle is NFS4ERR_WRONGSEC
 * (2.6.3.1.1.7), followed by SECINFO_NO_NAME or nothing it is not
 * (2.6.3.1.1.5-6), LOOKUP answers for where it lands (2.6.3.1.1.3); the
 * AUTH_SYS caller is served. */
static void test_wrongsec(void **state)
{
	struct fx *f = *state;
	static const uint8_t sys[] = { TNFS_SEC_SYS };
	fx_mount(f);
	make_file(f, "file");
	f->cred.anon = true;
	assert_int_equal(root_then(f, OP_GETATTR), NFS4ERR_WRONGSEC);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4ERR_WRONGSEC);
	assert_int_equal(root_then(f, 0), NFS4_OK);
	assert_int_equal(root_then(f, OP_SECINFO_NO_NAME), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SECINFO_NO_NAME), NFS4_OK);
	get_secinfo(f, sys, 1);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "file");
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE), 0, 0);
	assert_int_equal(fx_call(f), NFS4ERR_WRONGSEC);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4ERR_WRONGSEC);
	f->cred.anon = false;
	assert_int_equal(root_then(f, OP_GETATTR), NFS4_OK);
}

/* sec=krb5i:sys: RPCSEC_GSS with integrity is taken, without it
 * (krb5) is not; AUTH_NONE neither. */
static void test_wrongsec_gss(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	f->cred.gss_service = TNFS_GSS_SVC_INTEGRITY;
	snprintf(f->cred.principal, sizeof(f->cred.principal), "u@R");
	assert_int_equal(root_then(f, OP_GETATTR), NFS4_OK);
	f->cred.gss_service = TNFS_GSS_SVC_NONE;
	assert_int_equal(root_then(f, OP_GETATTR), NFS4ERR_WRONGSEC);
	f->cred.gss_service = 0;
	f->cred.principal[0] = 0;
	f->cred.anon = true;
	assert_int_equal(root_then(f, OP_GETATTR), NFS4ERR_WRONGSEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_secinfo_order, setup_list, fx_teardown),
		cmocka_unit_test_setup_teardown(test_wrongsec, setup_sys, fx_teardown),
		cmocka_unit_test_setup_teardown(test_wrongsec_gss, setup_krb5i, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
