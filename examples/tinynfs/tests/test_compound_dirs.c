/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * COMPOUND processing against a real temporary directory (fixture:
 * compound_util.h): the directory handle cache, confinement to the
 * export, stale handles, the SETATTR split and READDIR in pages.
 */
#include "compound_util.h"

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

/* PUTFH of a directory borrows a cached descriptor after the first one
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

/* PUTFH h, SAVEFH, PUTFH h: the saved and the current handle both h. */
static uint32_t putfh_saved(struct fx *f, const struct fh *h)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, h);
	req_op(&f->rq, OP_SAVEFH);
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

void test_dir_handle_cache(void **state)
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

/* The cache lends its descriptors (fh_cache.h): a lent entry is never
 * evicted, one dropped while lent keeps its descriptor open until the
 * last loan comes back, and with every entry lent nothing is cached. */
void test_dir_cache_loans(void **state)
{
	(void)state;
	struct tnfs_fh_cache *c = tnfs_fhc_new();
	assert_non_null(c);
	int dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dirfd >= 0);
	uint8_t fh[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
	unsigned slot, s2;
	/* fh[7] = 0 lent, then TNFS_FHC_SLOTS + 8 others added */
	tnfs_fhc_add(c, fh, sizeof(fh), dirfd);
	int lent = tnfs_fhc_lend(c, fh, sizeof(fh), &slot);
	assert_true(lent >= 0 && lent != dirfd);
	for (unsigned i = 1; i <= TNFS_FHC_SLOTS + 8; i++) {
		fh[7] = (uint8_t)i;
		tnfs_fhc_add(c, fh, sizeof(fh), dirfd);
	}
	fh[7] = 0;
	int again = tnfs_fhc_lend(c, fh, sizeof(fh), &s2);
	assert_int_equal(again, lent); /* not evicted: the same descriptor */
	assert_int_equal(s2, slot);
	struct tnfs_fhc_stats st;
	tnfs_fhc_stats(c, &st);
	assert_int_equal(st.lent, 2);
	/* forgotten while lent: no hit any more, the descriptor stays open
	 * for its two holders, closed with the last loan */
	tnfs_fhc_forget(c, fh, sizeof(fh));
	assert_int_equal(tnfs_fhc_lend(c, fh, sizeof(fh), &s2), -1);
	assert_true(fcntl(lent, F_GETFD) >= 0);
	tnfs_fhc_return(c, slot);
	assert_true(fcntl(lent, F_GETFD) >= 0);
	tnfs_fhc_return(c, slot);
	assert_int_equal(fcntl(lent, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	/* marked dead while lent: DEAD at once, open until returned */
	fh[7] = 200;
	tnfs_fhc_add(c, fh, sizeof(fh), dirfd);
	lent = tnfs_fhc_lend(c, fh, sizeof(fh), &slot);
	assert_true(lent >= 0);
	tnfs_fhc_mark_dead(c, fh, sizeof(fh));
	assert_int_equal(tnfs_fhc_lend(c, fh, sizeof(fh), &s2), TNFS_FHC_DEAD);
	assert_true(fcntl(lent, F_GETFD) >= 0);
	tnfs_fhc_add(c, fh, sizeof(fh), dirfd); /* its slot is still lent */
	assert_int_equal(tnfs_fhc_lend(c, fh, sizeof(fh), &s2), TNFS_FHC_DEAD);
	tnfs_fhc_return(c, slot);
	assert_int_equal(fcntl(lent, F_GETFD), -1);
	/* every entry lent: a new handle is not cached, nothing breaks */
	unsigned slots[TNFS_FHC_SLOTS];
	for (unsigned i = 0; i < TNFS_FHC_SLOTS; i++) {
		fh[6] = 1;
		fh[7] = (uint8_t)i;
		tnfs_fhc_add(c, fh, sizeof(fh), dirfd);
		assert_true(tnfs_fhc_lend(c, fh, sizeof(fh), &slots[i]) >= 0);
	}
	fh[6] = 2;
	tnfs_fhc_add(c, fh, sizeof(fh), dirfd);
	assert_int_equal(tnfs_fhc_lend(c, fh, sizeof(fh), &s2), -1);
	for (unsigned i = 0; i < TNFS_FHC_SLOTS; i++)
		tnfs_fhc_return(c, slots[i]);
	tnfs_fhc_stats(c, &st);
	assert_int_equal(st.lent, 0);
	tnfs_fhc_free(c);
	close(dirfd);
}

/* Through COMPOUNDs: a cached directory's node is a loan (no descriptor
 * of its own), SAVEFH takes a second one, every loan comes back at the
 * COMPOUND's end, and a directory found removed while the saved handle
 * still holds it is stale and its descriptor closed after. */
void test_dir_cache_loans_compound(void **state)
{
	struct fx *f = *state;
	fx_mount(f);
	struct tnfs_fh_cache *c = f->srv->exp->dirs;
	assert_non_null(c);
	struct fh root, d0;
	fx_fh_of(f, NULL, &root);
	char path[192];
	snprintf(path, sizeof(path), "%s/d0", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	make_fh(path, &root, &d0);
	assert_int_equal(putfh_only(f, &d0), NFS4_OK); /* cached */
	struct tnfs_fhc_stats st;
	/* PUTFH (loan), SAVEFH (second loan), CREATE in it, RESTOREFH,
	 * REMOVE: change info from PUTFH's stat, then a fresh one */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &d0);
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_CREATE);
	xdr_put_u32(&f->rq.x, NF4DIR);
	put_str(&f->rq.x, "sub");
	xdr_put_u32(&f->rq.x, 0); /* empty bitmap */
	xdr_put_u32(&f->rq.x, 0); /* no attributes */
	req_op(&f->rq, OP_RESTOREFH);
	req_op(&f->rq, OP_REMOVE);
	put_str(&f->rq.x, "sub");
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_SAVEFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE), NFS4_OK);
	uint32_t atomic = xdr_get_u32(&f->rp.x);
	uint64_t cb = xdr_get_u64(&f->rp.x), ca = xdr_get_u64(&f->rp.x);
	assert_int_equal(atomic, 1);
	assert_true(cb != ca);
	uint32_t nb = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < nb; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(rep_op(&f->rp, OP_RESTOREFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_REMOVE), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	uint64_t rb = xdr_get_u64(&f->rp.x), ra = xdr_get_u64(&f->rp.x);
	assert_true(rb == ca); /* before: the directory as CREATE left it */
	assert_true(ra != rb);
	tnfs_fhc_stats(c, &st);
	assert_int_equal(st.lent, 0);
	/* REMOVE right after PUTFH: its "before" is PUTFH's stat, which
	 * is the directory's change attribute as GETATTR gave it */
	char sub[224];
	snprintf(sub, sizeof(sub), "%s/x", path);
	assert_int_equal(mkdir(sub, 0755), 0);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &d0);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_CHANGE), 0, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	assert_int_equal(xdr_get_u32(&f->rp.x), W0(FATTR4_CHANGE));
	assert_int_equal(xdr_get_u32(&f->rp.x), 8);
	uint64_t v = xdr_get_u64(&f->rp.x);
	assert_int_equal(remove_in(f, &d0, "x"), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_REMOVE), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), 1);
	rb = xdr_get_u64(&f->rp.x);
	ra = xdr_get_u64(&f->rp.x);
	assert_true(rb == v);
	assert_true(ra != rb);
	assert_int_equal(remove_in(f, &d0, "x"), NFS4ERR_NOENT);
	/* removed behind the server's back while a saved handle holds it */
	assert_int_equal(putfh_saved(f, &d0), NFS4_OK);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(putfh_saved(f, &d0), NFS4ERR_STALE);
	tnfs_fhc_stats(c, &st);
	assert_int_equal(st.lent, 0);
	assert_int_equal(putfh_only(f, &d0), NFS4ERR_STALE);
}

void test_confinement(void **state)
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

void test_setattr_split(void **state)
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

void test_readdir_pages(void **state)
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

