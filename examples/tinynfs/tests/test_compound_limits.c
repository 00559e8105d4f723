/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * COMPOUND processing against a real temporary directory (fixture:
 * compound_util.h): the reply-size estimates, REP_TOO_BIG, read-only and
 * squashing exports, security labels, inode handles, and that every
 * operation's estimate was checked against a real result in this program
 * (every file of test-tinynfs-compound).
 */
#include "compound_util.h"

void test_estimates(void **state)
{
	struct fx *f = *state;
	uint32_t missing = 0;
	assert_int_equal(tnfs_optable_check(&missing), 0);
	struct tnfs_est e = { f->srv, 1, 20, 0, 1 << 20, 1 << 20 };
	union nfs4_args a;
	memset(&a, 0, sizeof(a));
	/* the tight bounds the issue names */
	assert_int_equal(tnfs_op_estimate(OP_ACCESS, &e, &a), 8 + 2 * 4);
	assert_int_equal(tnfs_op_estimate(OP_SEEK, &e, &a), 8 + 3 * 4);
	assert_int_equal(tnfs_op_estimate(OP_GETFH, &e, &a), 8 + 4 + 20);
	a.test_stateid.n = 7;
	assert_int_equal(tnfs_op_estimate(OP_TEST_STATEID, &e, &a), 8 + 4 + 7 * 4);
	assert_int_equal(tnfs_op_estimate(OP_SECINFO_NO_NAME, &e, &a), 8 + 4 + 4);
	assert_int_equal(tnfs_op_estimate(OP_PUTFH, &e, &a), 8);
	assert_int_equal(tnfs_op_estimate(OP_DELEGPURGE, &e, &a), 0);
	/* READ and READDIR shrink to the room left (short read, fewer entries) */
	a.read.count = 4096;
	assert_int_equal(tnfs_op_estimate(OP_READ, &e, &a), 8 + 8 + 4096);
	e.room = 101;
	assert_int_equal(tnfs_op_estimate(OP_READ, &e, &a), 8 + 8 + 84);
	memset(&a, 0, sizeof(a));
	a.readdir.maxcount = 65536;
	assert_int_equal(tnfs_op_estimate(OP_READDIR, &e, &a), 8 + 92);
	e.room = 1 << 20;
	assert_int_equal(tnfs_op_estimate(OP_READDIR, &e, &a), 8 + 65536);
	memset(&a, 0, sizeof(a));
	/* a whole COMPOUND's bound, with the READ payload apart */
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	for (int i = 0; i < 4; i++)
		xdr_put_u32(&f->rq.x, 0);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_ACCESS);
	xdr_put_u32(&f->rq.x, ACCESS4_READ);
	req_op(&f->rq, OP_READ);
	struct nfs4_stateid z = { 0, { 0 } };
	put_stateid(&f->rq.x, &z);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 4097);
	req_op(&f->rq, OP_GETFH);
	size_t total, bulk;
	assert_int_equal(tnfs_compound_estimate(f->srv, f->rq.buf, req_len(&f->rq), &total, &bulk), 0);
	size_t hdr = 4 + 4 + 4 + 4; /* status, tag "t", count */
	assert_int_equal(total, hdr + 44 + 8 + 16 + (16 + 4100) + (12 + 128));
	assert_int_equal(bulk, 4100);
	/* undecodable header */
	assert_int_equal(tnfs_compound_estimate(f->srv, f->rq.buf, 3, &total, &bulk), -EBADMSG);

	/* a real COMPOUND checked op by op by the hook: ACCESS, GETATTR of
	 * every supported attribute, READDIR, SECINFO_NO_NAME */
	fx_mount(f);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_ACCESS);
	xdr_put_u32(&f->rq.x, ACCESS4_ALL);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, 0xffffffff, 0xffffffff & ~(W1(FATTR4_TIME_ACCESS_SET) | W1(FATTR4_TIME_MODIFY_SET)), 0xffffffff);
	req_op(&f->rq, OP_READDIR);
	put_readdir(&f->rq.x, 0, 0, 4096, 0xffffffff,
		    0xffffffff & ~(W1(FATTR4_TIME_ACCESS_SET) | W1(FATTR4_TIME_MODIFY_SET)), 0);
	req_op(&f->rq, OP_GETFH);
	req_op(&f->rq, OP_SECINFO_NO_NAME);
	xdr_put_u32(&f->rq.x, 0);
	unsigned before = f->est.checked;
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->est.checked - before, 7);
	assert_int_equal(f->est.violations, 0);
	/* write-only attributes in GETATTR: INVAL */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, 0, W1(FATTR4_TIME_MODIFY_SET), 0);
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
}

void test_rep_too_big(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	/* a reply buffer too small for the READ estimate */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, 0xffffffff, 0, 0);
	size_t len;
	int rc = tnfs_compound(f->srv, &f->cred, f->rq.buf, req_len(&f->rq), f->rp.buf, 200, &len,
			       NULL, NULL);
	assert_int_equal(rc, 0);
	f->rp.len = len;
	assert_int_equal(rep_begin(&f->rp), NFS4ERR_REP_TOO_BIG);
	assert_true(len <= 200);
	/* cachethis: a READDIR shrinks to fit the cached maximum (7584)... */
	char path[160];
	for (int i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/a-rather-long-file-name-%03d", f->dir, i);
		int fd = open(path, O_CREAT | O_WRONLY, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	xdr_put_u32(&f->rq.x, ++f->slot_seq);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_bool(&f->rq.x, true);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_READDIR);
	put_readdir(&f->rq.x, 0, 0, 65536, W0(FATTR4_TYPE), 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_true(f->rp.len <= 7584);
	assert_true(f->rp.len > 7000);
	/* ... and is answered from the cache when sent again */
	uint8_t *first = malloc(f->rp.len);
	size_t first_len = f->rp.len;
	memcpy(first, f->rp.buf, first_len);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->rp.len, first_len);
	assert_memory_equal(f->rp.buf, first, first_len);
	free(first);
	/* ...but two TEST_STATEIDs of 1000 ids cannot shrink: TOO_BIG_TO_CACHE */
	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	xdr_put_u32(&f->rq.x, ++f->slot_seq);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_bool(&f->rq.x, true);
	for (int k = 0; k < 2; k++) {
		req_op(&f->rq, OP_TEST_STATEID);
		xdr_put_u32(&f->rq.x, 1000);
		for (int i = 0; i < 1000; i++) {
			xdr_put_u32(&f->rq.x, 1);
			xdr_put_fixed(&f->rq.x, "twelve bytes", 12);
		}
	}
	assert_int_equal(fx_call(f), NFS4ERR_REP_TOO_BIG_TO_CACHE);
	assert_int_equal(f->rp.n, 3); /* the first TEST_STATEID fitted */
	/* without cachethis it runs, and answers each id */
	fx_seq(f);
	req_op(&f->rq, OP_TEST_STATEID);
	xdr_put_u32(&f->rq.x, 1000);
	for (int i = 0; i < 1000; i++) {
		xdr_put_u32(&f->rq.x, 1);
		xdr_put_fixed(&f->rq.x, "twelve bytes", 12);
	}
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_TEST_STATEID), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1000);
	/* a READ larger than the reply space is a short read */
	snprintf(path, sizeof(path), "%s/big", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	static char block[8192];
	memset(block, 'z', sizeof(block));
	assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	close(fd);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "big");
	req_op(&f->rq, OP_READ);
	struct nfs4_stateid zero = { 0, { 0 } };
	put_stateid(&f->rq.x, &zero);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 8192);
	rc = tnfs_compound(f->srv, &f->cred, f->rq.buf, req_len(&f->rq), f->rp.buf, 1500, &len,
			   NULL, NULL);
	assert_int_equal(rc, 0);
	f->rp.len = len;
	assert_int_equal(rep_begin(&f->rp), NFS4_OK);
	assert_true(len <= 1500);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READ), NFS4_OK);
	assert_false(xdr_get_bool(&f->rp.x));
	struct xdr_opaque d = xdr_get_opaque(&f->rp.x, 8192);
	assert_true(d.len > 1000 && d.len < 1500);
	assert_int_equal(d.data[0], 'z');
}

void test_readonly_and_squash(void **state)
{
	(void)state;
	struct fx *f = fx_new("*(ro)");
	fx_mount(f);
	struct fh root, fh;
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid sid;
	assert_int_equal(do_open(f, &root, "o", OPEN4_SHARE_ACCESS_WRITE, true, "x", &sid, &fh), NFS4ERR_ROFS);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_ACCESS);
	xdr_put_u32(&f->rq.x, ACCESS4_READ | ACCESS4_MODIFY | ACCESS4_LOOKUP);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_ACCESS), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), ACCESS4_READ | ACCESS4_MODIFY | ACCESS4_LOOKUP);
	assert_int_equal(xdr_get_u32(&f->rp.x), ACCESS4_READ | ACCESS4_LOOKUP);
	fx_free(f);

	/* all_squash: everybody is 65534, who may not write the root-owned
	 * 0755 directory; the kernel says so */
	f = fx_new("*(rw,all_squash)");
	fx_mount(f);
	fx_fh_of(f, NULL, &root);
	assert_int_equal(do_open(f, &root, "o", OPEN4_SHARE_ACCESS_WRITE, true, "x", &sid, &fh), NFS4ERR_ACCESS);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_ACCESS);
	xdr_put_u32(&f->rq.x, ACCESS4_READ | ACCESS4_MODIFY);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_ACCESS), NFS4_OK);
	(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), ACCESS4_READ);
	/* the squashed COMPOUND gave this thread its own ids back */
	assert_int_equal((uid_t)syscall(SYS_setfsuid, -1), geteuid());
	assert_int_equal((gid_t)syscall(SYS_setfsgid, -1), getegid());
	/* a directory it owns: it may create there, and the file is its */
	char path[160];
	snprintf(path, sizeof(path), "%s/anon", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	struct fh anon;
	fx_fh_of(f, "anon", &anon);
	assert_int_equal(do_open(f, &anon, "o", OPEN4_SHARE_ACCESS_BOTH, true, "mine", &sid, &fh), 0);
	snprintf(path, sizeof(path), "%s/anon/mine", f->dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	/* the thread is root again after the COMPOUND */
	assert_int_equal(setfsuid(-1), 0);
	assert_int_equal(f->est.violations, 0);
	fx_free(f);
}

void test_security_label(void **state)
{
	(void)state;
	/* without the option: not supported, SETATTR -> ATTRNOTSUPP */
	struct fx *f = fx_new("*(rw,no_root_squash)");
	f->minor = 2;
	fx_mount(f);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SETATTR);
	struct nfs4_stateid zero = { 0, { 0 } };
	put_stateid(&f->rq.x, &zero);
	put_bitmap(&f->rq.x, 0, 0, W2(FATTR4_SEC_LABEL));
	xdr_put_u32(&f->rq.x, 16);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	put_str(&f->rq.x, "abc");
	assert_int_equal(fx_call(f), NFS4ERR_ATTRNOTSUPP);
	fx_free(f);

	/* with it, on 4.2: supported, set and read back (the xattr) */
	f = fx_new("*(rw,no_root_squash,security_label)");
	f->minor = 2;
	fx_mount(f);
	char path[160];
	snprintf(path, sizeof(path), "%s/lab", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "lab");
	req_op(&f->rq, OP_SETATTR);
	put_stateid(&f->rq.x, &zero);
	put_bitmap(&f->rq.x, 0, 0, W2(FATTR4_SEC_LABEL));
	static const char label[] = "system_u:object_r:nfs_t:s0";
	xdr_put_u32(&f->rq.x, 8 + 4 + xdr_pad(sizeof(label) - 1));
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	put_str(&f->rq.x, label);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_SUPPORTED_ATTRS), 0, W2(FATTR4_SEC_LABEL));
	uint32_t st = fx_call(f);
	if (st == NFS4ERR_NOTSUPP) {
		/* the file system refuses security.* xattrs: then only the
		 * supported_attrs part can be checked */
		fx_free(f);
		skip();
	}
	assert_int_equal(st, NFS4_OK);
	char got[64];
	ssize_t n = getxattr(path, "security.selinux", got, sizeof(got));
	assert_int_equal(n, sizeof(label) - 1);
	assert_memory_equal(got, label, (size_t)n);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SETATTR), NFS4_OK);
	for (int i = 0; i < 4; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	uint32_t w[3];
	struct xdr_opaque vals = get_fattr(&f->rp.x, w);
	assert_int_equal(w[2], W2(FATTR4_SEC_LABEL));
	struct xdr_in v;
	xdr_in_init(&v, vals.data, vals.len);
	assert_int_equal(xdr_get_u32(&v), 3);
	(void)xdr_get_u32(&v);
	(void)xdr_get_u32(&v);
	assert_true(xdr_get_u32(&v) & W2(FATTR4_SEC_LABEL));
	assert_int_equal(xdr_get_u32(&v), 0);
	assert_int_equal(xdr_get_u32(&v), 0);
	struct xdr_opaque l = xdr_get_opaque(&v, 4096);
	assert_int_equal(l.len, sizeof(label) - 1);
	assert_memory_equal(l.data, label, l.len);
	/* in 4.1 the same export does not offer it */
	f->minor = 1;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, 0, 0, W2(FATTR4_SEC_LABEL));
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 0); /* empty bitmap */
	fx_free(f);
}

void test_inode_handles(void **state)
{
	(void)state;
	struct fx *f = fx_new_opts("*(rw,no_root_squash)", true);
	fx_mount(f);
	struct fh root, dir, fh;
	fx_fh_of(f, NULL, &root);
	assert_int_equal(root.len, 16);
	assert_int_equal(root.d[0], 2);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_CREATE);
	xdr_put_u32(&f->rq.x, NF4DIR);
	put_str(&f->rq.x, "a");
	put_bitmap(&f->rq.x, 0, 0, 0);
	xdr_put_u32(&f->rq.x, 0);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE), NFS4_OK);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x);
	fx_getfh_after(f, &dir);
	struct nfs4_stateid sid;
	assert_int_equal(do_open(f, &dir, "o", OPEN4_SHARE_ACCESS_BOTH, true, "f", &sid, &fh), 0);
	/* rename the directory: its handle and the file's follow */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_RENAME);
	put_str(&f->rq.x, "a");
	put_str(&f->rq.x, "b");
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &dir);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "f");
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	struct fh again;
	fx_getfh_after(f, &again);
	assert_int_equal(again.len, fh.len);
	assert_memory_equal(again.d, fh.d, fh.len);
	/* handles the server never gave out: a file inside, one outside */
	char path[160];
	snprintf(path, sizeof(path), "%s/b/unseen", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	struct fh forged = fh;
	for (int i = 0; i < 8; i++)
		forged.d[4 + i] = (uint8_t)((uint64_t)st.st_ino >> (56 - 8 * i));
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &forged);
	assert_int_equal(fx_call(f), NFS4ERR_STALE);
	assert_int_equal(stat("/tmp", &st), 0);
	for (int i = 0; i < 8; i++)
		forged.d[4 + i] = (uint8_t)((uint64_t)st.st_ino >> (56 - 8 * i));
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &forged);
	assert_int_equal(fx_call(f), NFS4ERR_STALE);
	forged.len = 20;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &forged);
	assert_int_equal(fx_call(f), NFS4ERR_BADHANDLE);
	/* removed: stale; a new file reusing the inode number would fail the
	 * generation check */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_FILEHANDLE), 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	snprintf(path, sizeof(path), "%s/b/f", f->dir);
	assert_int_equal(unlink(path), 0);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	assert_int_equal(fx_call(f), NFS4ERR_STALE);
	/* after a restart only the root's handle is known */
	struct tnfs_server *old = f->srv;
	struct tnfs_exports ex = f->exports;
	static const uint8_t boot2[8] = { 7, 7, 7, 7, 7, 7, 7, 7 };
	assert_int_equal(fx_start_opts(f, "*(rw,no_root_squash)", boot2), 0);
	tnfs_server_free(old);
	tnfs_exports_free(&ex);
	fx_mount(f);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &dir);
	assert_int_equal(fx_call(f), NFS4ERR_STALE);
	assert_int_equal(f->est.violations, 0);
	fx_free(f);
}

/* Runs last: the operations no earlier test of this program ran
 * successfully, then checks that every operation of the table had its
 * estimate compared with a real successful result. */
void test_every_estimator_checked(void **state)
{
	(void)state;
	struct fx *f = fx_new("*(rw,no_root_squash)");
	f->minor = 2;
	fx_mount(f);
	char path[160];
	snprintf(path, sizeof(path), "%s/x", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	struct fh root, fh;
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid sid;
	assert_int_equal(do_open(f, &root, "o", OPEN4_SHARE_ACCESS_BOTH, false, "x", &sid, &fh), 0);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_SEEK);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, NFS4_CONTENT_DATA);
	req_op(&f->rq, OP_OPEN_DOWNGRADE);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, OPEN4_SHARE_ACCESS_READ);
	xdr_put_u32(&f->rq.x, 0);
	req_op(&f->rq, OP_LOCKT);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, NFS4_UINT64_MAX);
	xdr_put_u64(&f->rq.x, f->clientid);
	put_str(&f->rq.x, "nobody holds a lock");
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->est.violations, 0);
	fx_free(f);
	unsigned n = 0;
	for (uint32_t op = 0; op <= NFS4_OP_MAX_42; op++) {
		if (!nfs4_codec(op)) /* == in the table: tnfs_optable_check() */
			continue;
		if (op == OP_VERIFY || op == OP_NVERIFY || op == OP_PUTPUBFH ||
		    (op >= OP_ALLOCATE && op != OP_SEEK))
			continue; /* test_verify.c, test_space.c */
		if (op == OP_DELEGRETURN || op == OP_BACKCHANNEL_CTL)
			continue; /* a back channel, over TCP: test_deleg.c */
		if (!ops_checked_ok[op])
			print_error("operation %u: estimate never checked\n", op);
		assert_true(ops_checked_ok[op]);
		n++;
	}
	assert_int_equal(n, 37);
}

