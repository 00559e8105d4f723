/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * COMPOUND processing against a real temporary directory: the Linux
 * client's mount sequence, file life cycle, directories, confinement,
 * stale handles, the SETATTR split, sessions, and the reply-size
 * estimates of every operation run (the op hook checks each encoded
 * result against its estimate; each test's teardown asserts none exceeded).
 */
#include "nfstest.h"
#include "fh_cache.h"

#include <dirent.h>
#include <errno.h>
#include <sys/fsuid.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>

static int setup(void **state)
{
	*state = fx_new("*(rw,no_root_squash)");
	return 0;
}

/* PUTFH dir, OPEN name, GETFH -> stateid and handle. */
static uint32_t do_open(struct fx *f, const struct fh *dir, const char *owner,
			uint32_t access, bool create, const char *name,
			struct nfs4_stateid *sid, struct fh *h)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, dir);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, owner, access, create, 0640, name);
	req_op(&f->rq, OP_GETFH);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	uint32_t os = rep_op(&f->rp, OP_OPEN);
	assert_int_equal(os, st);
	if (os != NFS4_OK)
		return os;
	get_stateid(&f->rp.x, sid);
	assert_true(xdr_get_bool(&f->rp.x)); /* cinfo.atomic */
	(void)xdr_get_u64(&f->rp.x);
	(void)xdr_get_u64(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN4_RESULT_LOCKTYPE_POSIX);
	uint32_t n = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	fx_getfh_after(f, h);
	return NFS4_OK;
}

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

static void make_fh(const char *path, const struct fh *like, struct fh *out)
{
	struct {
		struct file_handle h;
		unsigned char b[128];
	} fb;
	int mnt;
	fb.h.handle_bytes = 120;
	assert_int_equal(name_to_handle_at(AT_FDCWD, path, &fb.h, &mnt, 0), 0);
	memcpy(out->d, like->d, 8);
	out->d[4] = (uint8_t)(fb.h.handle_type >> 24);
	out->d[5] = (uint8_t)(fb.h.handle_type >> 16);
	out->d[6] = (uint8_t)(fb.h.handle_type >> 8);
	out->d[7] = (uint8_t)fb.h.handle_type;
	memcpy(out->d + 8, fb.h.f_handle, fb.h.handle_bytes);
	out->len = 8 + fb.h.handle_bytes;
}

/* PUTFH of a directory dups a cached descriptor after the first one
 * (fh_cache.h); the cache evicts the least recently used directory;
 * a file's handle is never cached; a removed directory, and one moved
 * out of the export, are stale as they are without the cache. */
static uint32_t putfh_only(struct fx *f, const struct fh *h)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, h);
	return fx_call(f);
}

static uint32_t remove_in(struct fx *f, const struct fh *dir, const char *name)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, dir);
	req_op(&f->rq, OP_REMOVE);
	put_str(&f->rq.x, name);
	return fx_call(f);
}

static void test_dir_handle_cache(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct tnfs_fh_cache *c = f->srv->exp->dirs;
	assert_non_null(c);
	struct fh root, dirs[TNFS_FHC_SLOTS + 8], file;
	fx_fh_of(f, NULL, &root);
	char path[192];
	struct tnfs_fhc_stats s0, s1;
	for (unsigned i = 0; i < TNFS_FHC_SLOTS + 8; i++) {
		snprintf(path, sizeof(path), "%s/d%u", f->dir, i);
		assert_int_equal(mkdir(path, 0755), 0);
		make_fh(path, &root, &dirs[i]);
	}
	snprintf(path, sizeof(path), "%s/d0/file", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	make_fh(path, &root, &file);

	/* first PUTFH a miss, the next ones hits */
	tnfs_fhc_stats(c, &s0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(putfh_only(f, &dirs[0]), NFS4_OK);
	tnfs_fhc_stats(c, &s1);
	assert_int_equal(s1.misses, s0.misses + 1);
	assert_int_equal(s1.hits, s0.hits + 2);
	/* a regular file: a miss every time */
	for (int i = 0; i < 2; i++)
		assert_int_equal(putfh_only(f, &file), NFS4_OK);
	tnfs_fhc_stats(c, &s0);
	assert_int_equal(s0.misses, s1.misses + 2);
	assert_int_equal(s0.hits, s1.hits);
	/* more directories than slots: every one resolves; then the most
	 * recent ones hit and the first of them was evicted */
	for (unsigned i = 1; i < TNFS_FHC_SLOTS + 8; i++)
		assert_int_equal(putfh_only(f, &dirs[i]), NFS4_OK);
	tnfs_fhc_stats(c, &s0);
	assert_int_equal(putfh_only(f, &dirs[TNFS_FHC_SLOTS + 7]), NFS4_OK);
	assert_int_equal(putfh_only(f, &dirs[8]), NFS4_OK);
	assert_int_equal(putfh_only(f, &dirs[1]), NFS4_OK);
	tnfs_fhc_stats(c, &s1);
	assert_int_equal(s1.hits, s0.hits + 2);
	assert_int_equal(s1.misses, s0.misses + 1);

	/* removed behind the server's back while cached: stale, and the
	 * entry stays, marked dead: the handle is not decoded again (which
	 * open_by_handle_at may answer with ENOMEM rather than ESTALE) */
	assert_int_equal(putfh_only(f, &dirs[2]), NFS4_OK);
	snprintf(path, sizeof(path), "%s/d2", f->dir);
	assert_int_equal(rmdir(path), 0);
	tnfs_fhc_stats(c, &s0);
	assert_int_equal(putfh_only(f, &dirs[2]), NFS4ERR_STALE);
	assert_int_equal(putfh_only(f, &dirs[2]), NFS4ERR_STALE);
	tnfs_fhc_stats(c, &s1);
	assert_int_equal(s1.hits, s0.hits + 2);
	assert_int_equal(s1.misses, s0.misses);
	/* removed through REMOVE: stale too */
	assert_int_equal(putfh_only(f, &dirs[3]), NFS4_OK);
	assert_int_equal(remove_in(f, &root, "d3"), NFS4_OK);
	assert_int_equal(putfh_only(f, &dirs[3]), NFS4ERR_STALE);
	/* REMOVE of a non-empty directory: NOTEMPTY, nothing removed */
	assert_int_equal(remove_in(f, &root, "d0"), NFS4ERR_NOTEMPTY);
	assert_int_equal(putfh_only(f, &file), NFS4_OK);
	/* moved out of the export (same file system) while cached: stale */
	assert_int_equal(putfh_only(f, &dirs[4]), NFS4_OK);
	char out[] = "/tmp/tinynfs-moved-XXXXXX";
	assert_non_null(mkdtemp(out));
	assert_int_equal(rmdir(out), 0);
	snprintf(path, sizeof(path), "%s/d4", f->dir);
	assert_int_equal(rename(path, out), 0);
	assert_int_equal(putfh_only(f, &dirs[4]), NFS4ERR_STALE);
	assert_int_equal(rename(out, path), 0);
	assert_int_equal(putfh_only(f, &dirs[4]), NFS4_OK);
}

static void test_confinement(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct fh root;
	fx_fh_of(f, NULL, &root);
	/* ".." is not a name */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "..");
	assert_int_equal(fx_call(f), NFS4ERR_BADNAME);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "a/b");
	assert_int_equal(fx_call(f), NFS4ERR_BADNAME);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "");
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
	/* LOOKUPP at the root: NOENT; SECINFO_NO_NAME parent too */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUPP);
	assert_int_equal(fx_call(f), NFS4ERR_NOENT);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_SECINFO_NO_NAME);
	xdr_put_u32(&f->rq.x, SECINFO_STYLE4_PARENT);
	assert_int_equal(fx_call(f), NFS4ERR_NOENT);

	/* LOOKUPP from a subdirectory reaches the root */
	char path[160];
	snprintf(path, sizeof(path), "%s/d", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "d");
	req_op(&f->rq, OP_LOOKUPP);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUPP), NFS4_OK);
	struct fh up;
	fx_getfh_after(f, &up);
	assert_int_equal(up.len, root.len);
	assert_memory_equal(up.d, root.d, up.len);

	/* a handle of a file outside the export, on the same file system */
	char outside[] = "/tmp/tinynfs-outside-XXXXXX";
	int fd = mkstemp(outside);
	assert_true(fd >= 0);
	close(fd);
	struct fh out;
	make_fh(outside, &root, &out);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &out);
	assert_int_equal(fx_call(f), NFS4ERR_STALE);
	/* ... and of the export's parent directory */
	make_fh("/tmp", &root, &out);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &out);
	assert_int_equal(fx_call(f), NFS4ERR_STALE);
	unlink(outside);
	/* the same mechanism accepts a file inside */
	make_fh(path, &root, &out);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &out);
	assert_int_equal(fx_call(f), NFS4_OK);

	/* malformed handles: BADHANDLE */
	struct fh bad = root;
	bad.d[0] = 7;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &bad);
	assert_int_equal(fx_call(f), NFS4ERR_BADHANDLE);
	bad = root;
	bad.len = 4;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &bad);
	assert_int_equal(fx_call(f), NFS4ERR_BADHANDLE);
}

static void setattr_req(struct fx *f, const struct fh *fh, bool size, uint64_t sz,
			bool mode, uint32_t m, int mtime_how, int64_t mtime_sec)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_SETATTR);
	struct nfs4_stateid zero = { 0, { 0 } };
	put_stateid(&f->rq.x, &zero);
	put_bitmap(&f->rq.x, size ? W0(FATTR4_SIZE) : 0,
		   (mode ? W1(FATTR4_MODE) : 0) | (mtime_how ? W1(FATTR4_TIME_MODIFY_SET) : 0), 0);
	uint32_t len = (size ? 8 : 0) + (mode ? 4 : 0) +
		       (mtime_how == 1 ? 4 : mtime_how == 2 ? 16 : 0);
	xdr_put_u32(&f->rq.x, len);
	if (size)
		xdr_put_u64(&f->rq.x, sz);
	if (mode)
		xdr_put_u32(&f->rq.x, m);
	if (mtime_how == 1)
		xdr_put_u32(&f->rq.x, SET_TO_SERVER_TIME4);
	if (mtime_how == 2) {
		xdr_put_u32(&f->rq.x, SET_TO_CLIENT_TIME4);
		xdr_put_u64(&f->rq.x, (uint64_t)mtime_sec);
		xdr_put_u32(&f->rq.x, 0);
	}
}

static void test_setattr_split(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	char path[160];
	snprintf(path, sizeof(path), "%s/t", f->dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	close(fd);
	struct fh root, fh;
	fx_fh_of(f, NULL, &root);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &root);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, "t");
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	fx_getfh_after(f, &fh);

	/* size + mode: truncate alone, then the mode */
	memset(f->est.setattr_steps, 0, sizeof(f->est.setattr_steps));
	setattr_req(f, &fh, true, 4, true, 0600, 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SETATTR), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 2);
	assert_int_equal(xdr_get_u32(&f->rp.x), W0(FATTR4_SIZE));
	assert_int_equal(xdr_get_u32(&f->rp.x), W1(FATTR4_MODE));
	assert_int_equal(f->est.setattr_steps[1], 1);
	assert_int_equal(f->est.setattr_steps[2], 1);
	assert_true(f->est.step2.set_mode);
	assert_false(f->est.step2.set_size);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(st.st_mode & 07777, 0600);

	/* size + mtime = server time: the truncate did it, no second call */
	memset(f->est.setattr_steps, 0, sizeof(f->est.setattr_steps));
	setattr_req(f, &fh, true, 2, false, 0, 1, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->est.setattr_steps[1], 1);
	assert_int_equal(f->est.setattr_steps[2], 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 2);

	/* size + a client mtime: second step sets it */
	memset(f->est.setattr_steps, 0, sizeof(f->est.setattr_steps));
	setattr_req(f, &fh, true, 1, false, 0, 2, 1000000);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->est.setattr_steps[1], 1);
	assert_int_equal(f->est.setattr_steps[2], 1);
	assert_int_equal(f->est.step2.mtime_how, 2);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 1);
	assert_int_equal(st.st_mtim.tv_sec, 1000000);

	/* no size: one call */
	memset(f->est.setattr_steps, 0, sizeof(f->est.setattr_steps));
	setattr_req(f, &fh, false, 0, true, 0644, 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(f->est.setattr_steps[1], 0);
	assert_int_equal(f->est.setattr_steps[2], 1);

	/* a read-only attribute: INVAL, attrsset empty */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_SETATTR);
	struct nfs4_stateid zero = { 0, { 0 } };
	put_stateid(&f->rq.x, &zero);
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE), 0, 0);
	xdr_put_u32(&f->rq.x, 4);
	xdr_put_u32(&f->rq.x, NF4REG);
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SETATTR), NFS4ERR_INVAL);
	assert_int_equal(xdr_get_u32(&f->rp.x), 0);
	/* attribute values that do not fill the list exactly: BADXDR */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_SETATTR);
	put_stateid(&f->rq.x, &zero);
	put_bitmap(&f->rq.x, 0, W1(FATTR4_MODE), 0);
	xdr_put_u32(&f->rq.x, 8);
	xdr_put_u32(&f->rq.x, 0644);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4ERR_BADXDR);
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_readdir_pages(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	/* a maxcount that cannot hold an empty list: TOOSMALL, and the
	 * directory opened for it is closed again (no descriptor leaks) */
	int fds = count_fds();
	for (int i = 0; i < 20; i++) {
		fx_seq(f);
		req_op(&f->rq, OP_PUTROOTFH);
		req_op(&f->rq, OP_READDIR);
		put_readdir(&f->rq.x, 0, 0, 8, W0(FATTR4_TYPE), 0, 0);
		assert_int_equal(fx_call(f), NFS4ERR_TOOSMALL);
	}
	assert_int_equal(count_fds(), fds);
	enum { N = 60 };
	char path[160];
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "%s/entry-%02d", f->dir, i);
		int fd = open(path, O_CREAT | O_WRONLY, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
	int seen[N] = { 0 };
	uint64_t cookie = 0;
	int calls = 0, total = 0;
	bool eof = false;
	while (!eof) {
		assert_true(++calls < 100);
		fx_seq(f);
		req_op(&f->rq, OP_PUTROOTFH);
		req_op(&f->rq, OP_READDIR);
		put_readdir(&f->rq.x, cookie, 0, 700 /* small pages */,
			    W0(FATTR4_TYPE) | W0(FATTR4_FILEID) | W0(FATTR4_FILEHANDLE), 0, 0);
		assert_int_equal(fx_call(f), NFS4_OK);
		fx_seq_ok(f);
		assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
		size_t start = xdr_in_pos(&f->rp.x);
		assert_int_equal(rep_op(&f->rp, OP_READDIR), NFS4_OK);
		(void)xdr_get_u64(&f->rp.x); /* cookieverf */
		int in_page = 0;
		while (xdr_get_bool(&f->rp.x)) {
			cookie = xdr_get_u64(&f->rp.x);
			assert_true(cookie > 2);
			struct xdr_opaque nm = xdr_get_opaque(&f->rp.x, 255);
			uint32_t w[3];
			struct xdr_opaque vals = get_fattr(&f->rp.x, w);
			assert_false(f->rp.x.bad);
			assert_int_equal(w[0], W0(FATTR4_TYPE) | W0(FATTR4_FILEID) | W0(FATTR4_FILEHANDLE));
			struct xdr_in v;
			xdr_in_init(&v, vals.data, vals.len);
			assert_int_equal(xdr_get_u32(&v), NF4REG);
			int idx;
			assert_int_equal(nm.len, 8);
			assert_int_equal(sscanf((const char *)nm.data, "entry-%02d", &idx), 1);
			assert_true(idx >= 0 && idx < N);
			seen[idx]++;
			in_page++;
			total++;
		}
		eof = xdr_get_bool(&f->rp.x);
		assert_false(f->rp.x.bad);
		assert_true(xdr_in_pos(&f->rp.x) - start - 8 <= 700);
		assert_true(in_page > 0 || eof);
	}
	assert_int_equal(total, N);
	for (int i = 0; i < N; i++)
		assert_int_equal(seen[i], 1);
	assert_true(calls > 3);
	/* a maxcount too small for any entry */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_READDIR);
	put_readdir(&f->rq.x, 0, 0, 20, W0(FATTR4_TYPE), 0, 0);
	assert_int_equal(fx_call(f), NFS4ERR_TOOSMALL);
}

static void test_errors_and_ordering(void **state)
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

static void test_sessions(void **state)
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

static void test_locks(void **state)
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
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_LOCKU);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, &la);
	xdr_put_u64(&f->rq.x, 40);
	xdr_put_u64(&f->rq.x, 20);
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
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_LOCKU);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, &la2);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, NFS4_UINT64_MAX);
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

static void test_lease_expiry(void **state)
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

static void test_estimates(void **state)
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

static void test_rep_too_big(void **state)
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

static void test_readonly_and_squash(void **state)
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

static void test_security_label(void **state)
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

static void test_inode_handles(void **state)
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
static void test_every_estimator_checked(void **state)
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
