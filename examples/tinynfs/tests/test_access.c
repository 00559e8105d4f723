/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Who may touch a file's data, as Linux nfsd decides it (issue #23, items
 * 3 and 4).
 *
 * Squashing (nfsd_setuser): root_squash maps uid 0 to anonuid and gid 0 to
 * anongid, as the primary group and in the supplementary list, and keeps
 * the other groups; all_squash maps everybody to anonuid/anongid with no
 * supplementary groups; the ids (uid_t)-1 and (gid_t)-1 are the anonymous
 * ones.
 *
 * Access on every READ, WRITE, SEEK and size change: the caller's
 * credentials are checked against the file each time, whatever stateid it
 * shows (another user's open stateid of the same client, the anonymous
 * all-zeros one, the READ-bypass all-ones one), with nfsd's owner override
 * (the owner may read and write its file whatever the mode bits) and read
 * allowed where execute is.
 *
 * Needs root (the server switches file-system ids); skipped otherwise.
 */
#include "nfstest.h"

#include <sys/fsuid.h>

static const struct nfs4_stateid zero_sid = { 0, { 0 } };
static const struct nfs4_stateid ones_sid = {
	0xffffffffu, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
};

static void as(struct fx *f, uint32_t uid, uint32_t gid, uint32_t ngroups, const uint32_t *groups)
{
	memset(&f->cred, 0, sizeof(f->cred));
	f->cred.uid = uid;
	f->cred.gid = gid;
	f->cred.ngroups = ngroups;
	for (uint32_t i = 0; i < ngroups; i++)
		f->cred.groups[i] = groups[i];
}

/* A file in the export made directly, with its owner and mode. */
static void mkfile(struct fx *f, const char *name, uid_t uid, gid_t gid, mode_t mode)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("secret data\n", fp);
	fclose(fp);
	assert_int_equal(chown(path, uid, gid), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* The file `name` of the export is owned by uid and gid. */
static void assert_owner(struct fx *f, const char *name, uid_t uid, gid_t gid)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
}

/* PUTROOTFH, OPEN name (create: UNCHECKED4 with mode), GETFH; returns
 * the OPEN status, and on success the stateid and handle. */
static uint32_t open_name(struct fx *f, const char *owner, uint32_t access, bool create,
			  uint32_t mode, const char *name, struct nfs4_stateid *sid, struct fh *h)
{
	return fx_open_root(f, owner, access, create, mode, name, sid, h, NULL);
}

/* SEQUENCE, PUTFH, then READ, WRITE (UNSTABLE4, 4 bytes) or SEEK at 0
 * with the stateid; returns that operation's status. */
static uint32_t data_op(struct fx *f, const struct fh *fh, uint32_t op,
			const struct nfs4_stateid *sid)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, op);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, 0);
	if (op == OP_WRITE) {
		xdr_put_u32(&f->rq.x, UNSTABLE4);
		xdr_put_opaque(&f->rq.x, "ABCD", 4);
	} else if (op == OP_READ) {
		xdr_put_u32(&f->rq.x, 64);
	} else {
		xdr_put_u32(&f->rq.x, NFS4_CONTENT_DATA);
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	return st;
}

/* SETATTR of size (or mode, when size is UINT64_MAX) with the stateid. */
static uint32_t setattr_op(struct fx *f, const struct fh *fh, const struct nfs4_stateid *sid,
			   uint64_t size, uint32_t mode)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_SETATTR);
	put_stateid(&f->rq.x, sid);
	if (size != UINT64_MAX) {
		put_bitmap(&f->rq.x, W0(FATTR4_SIZE), 0, 0);
		xdr_put_u32(&f->rq.x, 8);
		xdr_put_u64(&f->rq.x, size);
	} else {
		put_bitmap(&f->rq.x, 0, W1(FATTR4_MODE), 0);
		xdr_put_u32(&f->rq.x, 4);
		xdr_put_u32(&f->rq.x, mode);
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SETATTR), st);
	return st;
}

/* A mounted fixture of the export options given, its directory open to
 * all, minor version `minor`; skips the test unless root. */
static struct fx *root_fx(const char *options, uint32_t minor)
{
	if (geteuid() != 0) {
		print_message("skipped: the server switches file-system ids only as root\n");
		skip();
	}
	struct fx *f = fx_new(options);
	f->minor = minor;
	assert_int_equal(chmod(f->dir, 0777), 0);
	fx_mount(f);
	return f;
}

/* root_squash: gid 0 is squashed wherever the caller names it, and the
 * other supplementary groups stay. */
static void test_root_squash_groups(void **state)
{
	(void)state;
	struct fx *f = root_fx("*(rw,root_squash)", 1);
	mkfile(f, "rootgrp", 0, 0, 0660);
	mkfile(f, "g5000", 0, 5000, 0660);
	struct nfs4_stateid sid;
	struct fh fh;

	/* uid 1000 claiming group 0 in the list: no right of group 0 */
	static const uint32_t g0[] = { 0 };
	as(f, 1000, 1000, 1, g0);
	assert_int_equal(open_name(f, "o1", OPEN4_SHARE_ACCESS_WRITE, false, 0, "rootgrp", &sid, &fh),
			 NFS4ERR_ACCESS);
	assert_int_equal(open_name(f, "o1", OPEN4_SHARE_ACCESS_READ, false, 0, "rootgrp", &sid, &fh),
			 NFS4ERR_ACCESS);
	/* ... nor as the primary group */
	as(f, 1000, 0, 0, NULL);
	assert_int_equal(open_name(f, "o1", OPEN4_SHARE_ACCESS_WRITE, false, 0, "rootgrp", &sid, &fh),
			 NFS4ERR_ACCESS);
	/* nor with the anonymous stateid (the caller's ids, no open) */
	as(f, 0, 0, 0, NULL);
	fx_fh_of(f, "rootgrp", &fh);
	as(f, 1000, 1000, 1, g0);
	assert_int_equal(data_op(f, &fh, OP_READ, &zero_sid), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &zero_sid), NFS4ERR_ACCESS);

	/* squashed root keeps its other groups (as nfsd does): group 5000 */
	static const uint32_t g5000[] = { 0, 5000 };
	as(f, 0, 0, 2, g5000);
	assert_int_equal(open_name(f, "o2", OPEN4_SHARE_ACCESS_BOTH, false, 0, "g5000", &sid, &fh),
			 NFS4_OK);
	/* ... but not group 0 */
	assert_int_equal(open_name(f, "o2", OPEN4_SHARE_ACCESS_READ, false, 0, "rootgrp", &sid, &fh),
			 NFS4ERR_ACCESS);
	/* what squashed root creates is anonuid's and anongid's */
	assert_int_equal(open_name(f, "o2", OPEN4_SHARE_ACCESS_BOTH, true, 0644, "made", &sid, &fh),
			 NFS4_OK);
	assert_owner(f, "made", 65534, 65534);
	/* the thread has its own ids back */
	assert_int_equal(setfsuid((uid_t)-1), 0);
	assert_int_equal(setfsgid((gid_t)-1), 0);
	fx_teardown((void **)&f);
}

/* all_squash: no supplementary group survives; the anonymous ids own. */
static void test_all_squash_groups(void **state)
{
	(void)state;
	struct fx *f = root_fx("*(rw,all_squash,anonuid=2000,anongid=2001)", 1);
	mkfile(f, "g5000", 0, 5000, 0660);
	mkfile(f, "anon", 2000, 2001, 0600);
	struct nfs4_stateid sid;
	struct fh fh;
	static const uint32_t g5000[] = { 5000 };
	as(f, 1000, 5000, 1, g5000);
	assert_int_equal(open_name(f, "o", OPEN4_SHARE_ACCESS_READ, false, 0, "g5000", &sid, &fh),
			 NFS4ERR_ACCESS);
	assert_int_equal(open_name(f, "o", OPEN4_SHARE_ACCESS_BOTH, false, 0, "anon", &sid, &fh),
			 NFS4_OK);
	assert_int_equal(open_name(f, "o", OPEN4_SHARE_ACCESS_BOTH, true, 0600, "made", &sid, &fh),
			 NFS4_OK);
	assert_owner(f, "made", 2000, 2001);
	fx_teardown((void **)&f);
}

/* (uid_t)-1 and (gid_t)-1 name nobody: they act as the anonymous ids
 * (setfsuid(-1) would leave the server's own ids in place). */
static void test_minus_one_ids(void **state)
{
	(void)state;
	struct fx *f = root_fx("*(rw,no_root_squash,anonuid=2000,anongid=2001)", 1);
	struct nfs4_stateid sid;
	struct fh fh;
	static const uint32_t gm1[] = { UINT32_MAX, 5000 };
	as(f, UINT32_MAX, UINT32_MAX, 2, gm1);
	assert_int_equal(open_name(f, "o", OPEN4_SHARE_ACCESS_BOTH, true, 0600, "made", &sid, &fh),
			 NFS4_OK);
	assert_owner(f, "made", 2000, 2001);
	fx_teardown((void **)&f);
}

/* Another user's open stateid of the same client does not lend its
 * rights: READ, WRITE, SEEK and a size change are checked each time. */
static void test_stateid_lends_nothing(void **state)
{
	(void)state;
	struct fx *f = root_fx("*(rw,no_root_squash)", 2); /* SEEK */
	struct nfs4_stateid rs;
	struct fh fh;
	as(f, 0, 0, 0, NULL);
	assert_int_equal(open_name(f, "root-o", OPEN4_SHARE_ACCESS_BOTH, true, 0600, "secret", &rs, &fh),
			 NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &rs), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_READ, &rs), NFS4_OK);

	as(f, 1000, 1000, 0, NULL);
	assert_int_equal(data_op(f, &fh, OP_READ, &rs), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &rs), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_SEEK, &rs), NFS4ERR_ACCESS);
	assert_int_equal(setattr_op(f, &fh, &rs, 0, 0), NFS4ERR_ACCESS);
	/* the special stateids neither */
	assert_int_equal(data_op(f, &fh, OP_READ, &zero_sid), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &zero_sid), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_READ, &ones_sid), NFS4ERR_ACCESS);
	assert_int_equal(setattr_op(f, &fh, &zero_sid, 0, 0), NFS4ERR_ACCESS);

	/* a group that may read, not write */
	char path[160];
	snprintf(path, sizeof(path), "%s/secret", f->dir);
	assert_int_equal(chown(path, 0, 1000), 0);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(data_op(f, &fh, OP_READ, &rs), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_READ, &ones_sid), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &rs), NFS4ERR_ACCESS);
	/* still the 4 bytes root wrote: nothing above wrote or truncated */
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 4);
	fx_teardown((void **)&f);
}

/* The owner may read and write its file whatever the mode bits (nfsd's
 * NFSD_MAY_OWNER_OVERRIDE), through its open and through the special
 * stateids; others may not; read is allowed where execute is. */
static void test_owner_override(void **state)
{
	(void)state;
	struct fx *f = root_fx("*(rw,no_root_squash)", 1);
	struct nfs4_stateid sid;
	struct fh fh;
	as(f, 1000, 1000, 0, NULL);
	assert_int_equal(open_name(f, "own", OPEN4_SHARE_ACCESS_BOTH, true, 0644, "mine", &sid, &fh),
			 NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &sid), NFS4_OK);
	assert_int_equal(setattr_op(f, &fh, &zero_sid, UINT64_MAX, 0), NFS4_OK); /* mode 0 */
	assert_int_equal(data_op(f, &fh, OP_WRITE, &sid), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_READ, &sid), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_READ, &zero_sid), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_READ, &ones_sid), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &zero_sid), NFS4_OK);
	assert_int_equal(setattr_op(f, &fh, &zero_sid, 2, 0), NFS4_OK);
	assert_int_equal(setattr_op(f, &fh, &sid, 3, 0), NFS4_OK);
	char path[160];
	snprintf(path, sizeof(path), "%s/mine", f->dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 3);
	assert_int_equal(st.st_mode & 07777, 0);

	/* another user: nothing, through either stateid */
	as(f, 1001, 1001, 0, NULL);
	assert_int_equal(data_op(f, &fh, OP_READ, &sid), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &sid), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_READ, &zero_sid), NFS4ERR_ACCESS);

	/* mode 0711: others may execute, so they may read, not write */
	as(f, 1000, 1000, 0, NULL);
	assert_int_equal(setattr_op(f, &fh, &zero_sid, UINT64_MAX, 0711), NFS4_OK);
	as(f, 1001, 1001, 0, NULL);
	assert_int_equal(data_op(f, &fh, OP_READ, &sid), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_READ, &zero_sid), NFS4_OK);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &sid), NFS4ERR_ACCESS);
	assert_int_equal(data_op(f, &fh, OP_WRITE, &zero_sid), NFS4ERR_ACCESS);
	fx_teardown((void **)&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_squash_groups),
		cmocka_unit_test(test_all_squash_groups),
		cmocka_unit_test(test_minus_one_ids),
		cmocka_unit_test(test_stateid_lends_nothing),
		cmocka_unit_test(test_owner_override),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
