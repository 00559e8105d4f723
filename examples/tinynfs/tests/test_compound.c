/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * COMPOUND processing against a real temporary directory: the Linux
 * client's mount sequence, file life cycle, directories, confinement,
 * stale handles, the SETATTR split, sessions, and the reply-size
 * estimates of every operation run (the op hook checks each encoded
 * result against its estimate; each test's teardown asserts none exceeded).
 * This file: the mount sequence, a file's life cycle, COMMIT and the
 * write verifier, CREATE, RENAME and LINK; directories and confinement
 * are in test_compound_dirs.c, sessions and locks in
 * test_compound_session.c, reply sizes and export options in
 * test_compound_limits.c.
 */
#include "compound_util.h"

/* The operations whose estimate was checked, for every file of this
 * program (nfstest.h). */
bool ops_checked_ok[NFS4_OP_MAX_42 + 1];

static void test_mount_sequence(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SECINFO_NO_NAME);
	xdr_put_u32(&f->rq.x, SECINFO_STYLE4_CURRENT_FH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SECINFO_NO_NAME), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), AUTH_SYS);
	/* SECINFO of a name: the same flavour (test_handles.c has more) */
	char path[160];
	snprintf(path, sizeof(path), "%s/d", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SECINFO);
	put_str(&f->rq.x, "d");
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SECINFO), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), AUTH_SYS);
	assert_int_equal(rmdir(path), 0);

	/* the client's first GETATTR after mount */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_SUPPORTED_ATTRS) | W0(FATTR4_TYPE) | W0(FATTR4_FSID) |
			     W0(FATTR4_FILEID) | W0(FATTR4_LEASE_TIME),
		   W1(FATTR4_MODE) | W1(FATTR4_NUMLINKS) | W1(FATTR4_OWNER), W2(FATTR4_SEC_LABEL));
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	struct fh root;
	fx_getfh_after(f, &root);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	uint32_t w[3];
	struct xdr_opaque vals = get_fattr(&f->rp.x, w);
	/* sec_label was asked for but is not supported: simply left out */
	assert_int_equal(w[0], W0(FATTR4_SUPPORTED_ATTRS) | W0(FATTR4_TYPE) | W0(FATTR4_FSID) |
				       W0(FATTR4_FILEID) | W0(FATTR4_LEASE_TIME));
	assert_int_equal(w[1], W1(FATTR4_MODE) | W1(FATTR4_NUMLINKS) | W1(FATTR4_OWNER));
	assert_int_equal(w[2], 0);
	struct xdr_in v;
	xdr_in_init(&v, vals.data, vals.len);
	uint32_t sw[3] = { 0 }, sn = xdr_get_u32(&v);
	for (uint32_t i = 0; i < sn; i++)
		sw[i] = xdr_get_u32(&v);
	assert_int_equal(sn, 3);
	assert_true(sw[0] & W0(FATTR4_FILEHANDLE));
	assert_int_equal(sw[2] & W2(FATTR4_SEC_LABEL), 0);
	assert_true(sw[2] & W2(FATTR4_SUPPATTR_EXCLCREAT));
	assert_int_equal(xdr_get_u32(&v), NF4DIR);
	struct stat st;
	assert_int_equal(stat(f->dir, &st), 0);
	assert_int_equal(xdr_get_u64(&v), major(st.st_dev));
	assert_int_equal(xdr_get_u64(&v), minor(st.st_dev));
	assert_int_equal(xdr_get_u32(&v), 90); /* lease_time (10) before fileid (20) */
	assert_int_equal(xdr_get_u64(&v), st.st_ino);
	assert_int_equal(xdr_get_u32(&v), st.st_mode & 07777);
	assert_int_equal(xdr_get_u32(&v), st.st_nlink);
	struct xdr_opaque own = xdr_get_opaque(&v, 64);
	assert_int_equal(own.len, 1);
	assert_memory_equal(own.data, "0", 1);
	assert_false(v.bad);
	assert_int_equal(xdr_in_left(&v), 0);
	assert_int_equal(xdr_in_left(&f->rp.x), 0);

	/* the handle is stable and works with PUTFH */
	struct fh again;
	fx_fh_of(f, NULL, &again);
	assert_int_equal(again.len, root.len);
	assert_memory_equal(again.d, root.d, root.len);
}

static void test_file_lifecycle(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root, fh;
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid sid;
	assert_int_equal(do_open(f, &root, "owner1", OPEN4_SHARE_ACCESS_BOTH, true, "file1", &sid, &fh), 0);
	assert_int_equal(sid.seqid, 1);

	/* WRITE unstable, then COMMIT: same verifier */
	static const char msg[] = "hello, tiny nfs";
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_WRITE);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, UNSTABLE4);
	xdr_put_opaque(&f->rq.x, msg, sizeof(msg) - 1);
	req_op(&f->rq, OP_COMMIT);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_WRITE), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), sizeof(msg) - 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), UNSTABLE4);
	uint8_t v1[8], v2[8];
	xdr_get_fixed(&f->rp.x, v1, 8);
	assert_int_equal(rep_op(&f->rp, OP_COMMIT), NFS4_OK);
	xdr_get_fixed(&f->rp.x, v2, 8);
	assert_memory_equal(v1, v2, 8);
	assert_memory_equal(v1, f->srv->write_verf, 8);

	/* READ it back, with eof */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_READ);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 7);
	xdr_put_u32(&f->rq.x, 4096);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READ), NFS4_OK);
	assert_true(xdr_get_bool(&f->rp.x));
	struct xdr_opaque d = xdr_get_opaque(&f->rp.x, 4096);
	assert_int_equal(d.len, sizeof(msg) - 1 - 7);
	assert_memory_equal(d.data, msg + 7, d.len);

	/* on disk, with the mode asked for */
	char path[128];
	snprintf(path, sizeof(path), "%s/file1", f->dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, sizeof(msg) - 1);
	assert_int_equal(st.st_mode & 07777, 0640);

	/* CLOSE answers the invalid special stateid; the old one is gone */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_CLOSE);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, &sid);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CLOSE), NFS4_OK);
	struct nfs4_stateid closed;
	get_stateid(&f->rp.x, &closed);
	assert_int_equal(closed.seqid, UINT32_MAX);

	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_READ);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 10);
	assert_int_equal(fx_call(f), NFS4ERR_BAD_STATEID);

	/* REMOVE */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_REMOVE);
	put_str(&f->rq.x, "file1");
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_REMOVE), NFS4_OK);
	assert_true(xdr_get_bool(&f->rp.x)); /* atomic: one COMPOUND at a time */
	uint64_t before = xdr_get_u64(&f->rp.x), after = xdr_get_u64(&f->rp.x);
	assert_true(after != before);
	assert_int_equal(stat(path, &st), -1);

	/* a removed file's handle is stale */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	assert_int_equal(fx_call(f), NFS4ERR_STALE);
}

/* A sync that fails: records the calls, fails with EIO while armed. */
struct sync_rec {
	bool fail;
	unsigned calls;
	bool datasync[8];
};

static int failing_sync(void *arg, int fd, bool datasync)
{
	struct sync_rec *r = arg;
	(void)fd;
	if (r->calls < 8)
		r->datasync[r->calls] = datasync;
	r->calls++;
	if (r->fail) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* PUTFH fh; WRITE stable "xyz" at 0; optional COMMIT.  Returns the last
 * operation's status; *verf gets the verifier of an OK WRITE or COMMIT. */
static uint32_t write_sync(struct fx *f, const struct fh *fh, const struct nfs4_stateid *sid,
			   uint32_t stable, bool commit, uint8_t verf[8])
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_WRITE);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, stable);
	xdr_put_opaque(&f->rq.x, "xyz", 3);
	if (commit) {
		req_op(&f->rq, OP_COMMIT);
		xdr_put_u64(&f->rq.x, 0);
		xdr_put_u32(&f->rq.x, 0);
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	uint32_t ws = rep_op(&f->rp, OP_WRITE);
	if (ws != NFS4_OK) {
		assert_int_equal(st, ws);
		return ws;
	}
	assert_int_equal(xdr_get_u32(&f->rp.x), 3);
	assert_int_equal(xdr_get_u32(&f->rp.x), stable);
	xdr_get_fixed(&f->rp.x, verf, 8);
	if (!commit)
		return NFS4_OK;
	uint32_t cs = rep_op(&f->rp, OP_COMMIT);
	assert_int_equal(st, cs);
	if (cs == NFS4_OK)
		xdr_get_fixed(&f->rp.x, verf, 8);
	return cs;
}

/*
 * WRITE FILE_SYNC4 / DATA_SYNC4 and COMMIT sync before replying (fsync,
 * fdatasync, fsync); a sync error is NFS4ERR_IO and changes the write
 * verifier (bytes 4..7 count errors), so a client whose UNSTABLE4 data may
 * be lost sees a new verifier and writes it again.
 */
static void test_sync_error_changes_verifier(void **state)
{
	struct fx *f = *state;
	struct sync_rec rec = { 0 };
	f->srv->sync_hook = failing_sync;
	f->srv->sync_arg = &rec;
	fx_mount(f);
	struct fh root, fh;
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid sid;
	assert_int_equal(do_open(f, &root, "o", OPEN4_SHARE_ACCESS_BOTH, true, "sync", &sid, &fh), 0);
	uint8_t v0[8], v[8], exp[8];
	/* unstable: no sync; COMMIT: fsync; FILE_SYNC: fsync; DATA_SYNC: fdatasync */
	assert_int_equal(write_sync(f, &fh, &sid, UNSTABLE4, false, v0), NFS4_OK);
	assert_int_equal(rec.calls, 0);
	assert_int_equal(write_sync(f, &fh, &sid, UNSTABLE4, true, v), NFS4_OK);
	assert_memory_equal(v, v0, 8);
	assert_int_equal(write_sync(f, &fh, &sid, FILE_SYNC4, false, v), NFS4_OK);
	assert_memory_equal(v, v0, 8);
	assert_int_equal(write_sync(f, &fh, &sid, DATA_SYNC4, false, v), NFS4_OK);
	assert_int_equal(rec.calls, 3);
	assert_false(rec.datasync[0]);
	assert_false(rec.datasync[1]);
	assert_true(rec.datasync[2]);
	/* the boot's verifier: byte 0 of the boot verifier ^ 0x5a */
	static const uint8_t boot_verf[8] = { 1 ^ 0x5a, 2, 3, 4, 5, 6, 7, 8 };
	assert_memory_equal(v0, boot_verf, 8);

	/* sync errors: COMMIT after an unstable WRITE, then FILE_SYNC4 */
	rec.fail = true;
	assert_int_equal(write_sync(f, &fh, &sid, UNSTABLE4, true, v), NFS4ERR_IO);
	assert_int_equal(write_sync(f, &fh, &sid, FILE_SYNC4, false, v), NFS4ERR_IO);
	assert_int_equal(write_sync(f, &fh, &sid, DATA_SYNC4, false, v), NFS4ERR_IO);
	rec.fail = false;
	/* three errors: bytes 4..7 of the verifier counted up by 3 */
	memcpy(exp, boot_verf, 8);
	exp[7] += 3;
	assert_int_equal(write_sync(f, &fh, &sid, UNSTABLE4, false, v), NFS4_OK);
	assert_memory_equal(v, exp, 8);
	assert_int_equal(write_sync(f, &fh, &sid, UNSTABLE4, true, v), NFS4_OK);
	assert_memory_equal(v, exp, 8);
	assert_memory_equal(f->srv->write_verf, exp, 8);
	/* the counter carries across bytes */
	f->srv->write_verf[7] = 0xff;
	f->srv->write_verf[6] = 0xff;
	rec.fail = true;
	assert_int_equal(write_sync(f, &fh, &sid, FILE_SYNC4, false, v), NFS4ERR_IO);
	rec.fail = false;
	exp[7] = 0;
	exp[6] = 0;
	exp[5] = (uint8_t)(exp[5] + 1);
	assert_memory_equal(f->srv->write_verf, exp, 8);
}

static void test_file_sync_and_verifier(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root, fh;
	fx_fh_of(f, NULL, &root);
	struct nfs4_stateid sid;
	assert_int_equal(do_open(f, &root, "o", OPEN4_SHARE_ACCESS_WRITE, true, "s", &sid, &fh), 0);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_WRITE);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 100);
	xdr_put_u32(&f->rq.x, FILE_SYNC4);
	xdr_put_opaque(&f->rq.x, "abc", 3);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_WRITE), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 3);
	assert_int_equal(xdr_get_u32(&f->rp.x), FILE_SYNC4);
	uint8_t v1[8];
	xdr_get_fixed(&f->rp.x, v1, 8);

	/* a restarted server (another boot verifier) has another write
	 * verifier, and still knows the file handle */
	struct tnfs_server *old = f->srv;
	struct tnfs_exports ex = f->exports;
	static const uint8_t boot2[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	assert_int_equal(fx_start_opts(f, "*(rw,no_root_squash)", boot2), 0);
	assert_memory_not_equal(f->srv->write_verf, v1, 8);
	tnfs_server_free(old);
	tnfs_exports_free(&ex);

	fx_begin(f);
	req_op(&f->rq, OP_SEQUENCE);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	xdr_put_u32(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_bool(&f->rq.x, false);
	assert_int_equal(fx_call(f), NFS4ERR_BADSESSION);
	fx_mount(f);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_SIZE), 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	uint32_t w[3];
	struct xdr_opaque vals = get_fattr(&f->rp.x, w);
	assert_int_equal(w[0], W0(FATTR4_SIZE));
	struct xdr_in v;
	xdr_in_init(&v, vals.data, vals.len);
	assert_int_equal(xdr_get_u64(&v), 103);
}

static void test_create_rename_link(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root, sub, fh;
	fx_fh_of(f, NULL, &root);
	/* CREATE a directory (mode 0750) */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_CREATE);
	xdr_put_u32(&f->rq.x, NF4DIR);
	put_str(&f->rq.x, "sub");
	put_bitmap(&f->rq.x, 0, W1(FATTR4_MODE), 0);
	xdr_put_u32(&f->rq.x, 4);
	xdr_put_u32(&f->rq.x, 0750);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE), NFS4_OK);
	(void)xdr_get_u32(&f->rp.x);
	(void)xdr_get_u64(&f->rp.x);
	(void)xdr_get_u64(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), 2); /* attrset */
	assert_int_equal(xdr_get_u32(&f->rp.x), 0);
	assert_int_equal(xdr_get_u32(&f->rp.x), W1(FATTR4_MODE));
	fx_getfh_after(f, &sub);
	char path[160];
	struct stat st;
	snprintf(path, sizeof(path), "%s/sub", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0750);

	/* a symlink, and READLINK */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &sub);
	req_op(&f->rq, OP_CREATE);
	xdr_put_u32(&f->rq.x, NF4LNK);
	put_str(&f->rq.x, "../../etc/passwd");
	put_str(&f->rq.x, "ln");
	put_bitmap(&f->rq.x, 0, 0, 0);
	xdr_put_u32(&f->rq.x, 0);
	req_op(&f->rq, OP_READLINK);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE), NFS4_OK);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(rep_op(&f->rp, OP_READLINK), NFS4_OK);
	struct xdr_opaque t = xdr_get_opaque(&f->rp.x, 4096);
	assert_int_equal(t.len, 16);
	assert_memory_equal(t.data, "../../etc/passwd", 16);

	/* the server never follows it: LOOKUP ln then LOOKUP x -> SYMLINK */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &sub);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "ln");
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "x");
	assert_int_equal(fx_call(f), NFS4ERR_SYMLINK);

	/* a file, renamed into sub (SAVEFH source dir, PUTFH target) */
	struct nfs4_stateid sid;
	assert_int_equal(do_open(f, &root, "o", OPEN4_SHARE_ACCESS_BOTH, true, "a", &sid, &fh), 0);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &sub);
	req_op(&f->rq, OP_RENAME);
	put_str(&f->rq.x, "a");
	put_str(&f->rq.x, "b");
	assert_int_equal(fx_call(f), NFS4_OK);
	snprintf(path, sizeof(path), "%s/sub/b", f->dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/a", f->dir);
	assert_int_equal(stat(path, &st), -1);

	/* the handle survived the rename; LINK it back as "c" */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_LINK);
	put_str(&f->rq.x, "c");
	req_op(&f->rq, OP_RESTOREFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, 0, W1(FATTR4_NUMLINKS), 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	snprintf(path, sizeof(path), "%s/c", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 2);

	/* RENAME onto a non-empty directory fails; REMOVE of it too */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_REMOVE);
	put_str(&f->rq.x, "sub");
	assert_int_equal(fx_call(f), NFS4ERR_NOTEMPTY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mount_sequence, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_file_lifecycle, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_file_sync_and_verifier, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sync_error_changes_verifier, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_create_rename_link, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_confinement, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dir_handle_cache, setup, fx_teardown),
		cmocka_unit_test(test_dir_cache_loans),
		cmocka_unit_test_setup_teardown(test_dir_cache_loans_compound, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_setattr_split, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_readdir_pages, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_errors_and_ordering, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sessions, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_locks, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_lease_expiry, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_estimates, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rep_too_big, setup, fx_teardown),
		cmocka_unit_test(test_readonly_and_squash),
		cmocka_unit_test(test_security_label),
		cmocka_unit_test(test_inode_handles),
		cmocka_unit_test(test_every_estimator_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
