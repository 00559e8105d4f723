/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue #25: the NFSv4.2 space and copy operations (RFC 7862).
 *
 * ALLOCATE reserves blocks (fallocate), DEALLOCATE punches a hole keeping
 * the size; COPY copies within the server, synchronously, at most 4 MiB
 * per operation, and is UNSTABLE4 under the write verifier; CLONE shares
 * extents or is NFS4ERR_NOTSUPP where the file system cannot (whichever
 * FICLONERANGE says here); COPY_NOTIFY is NFS4ERR_NOTSUPP, OFFLOAD_CANCEL
 * and OFFLOAD_STATUS NFS4ERR_BAD_STATEID; READ_PLUS gives one segment, data
 * or hole, a call.  Each checks its stateids as
 * WRITE and READ do (the open's access, a closed stateid, the caller's
 * rights with the anonymous stateid), ranges (NFS4ERR_INVAL, _FBIG), the
 * saved file handle (NFS4ERR_NOFILEHANDLE), overlap within one file.
 * Every result is checked against its estimate (the op hook), and the
 * COPY estimate is exact.
 */
#include "nfstest.h"

#include <linux/fs.h>
#include <sys/ioctl.h>

static const struct nfs4_stateid cur_sid = { 1, { 0 } };
static const struct nfs4_stateid zero_sid = { 0, { 0 } };

static int setup(void **state)
{
	struct fx *f = fx_new("*(rw,no_root_squash)");
	f->minor = 2;
	*state = f;
	fx_mount(f);
	return 0;
}

static void path_of(const struct fx *f, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", f->dir, name);
}

/* A file of n bytes, byte i = (i * 7 + seed) & 0xff. */
static void mkdata(struct fx *f, const char *name, size_t n, unsigned seed)
{
	char path[160];
	path_of(f, name, path, sizeof(path));
	uint8_t *b = malloc(n ? n : 1);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, n), (ssize_t)n);
	close(fd);
	free(b);
}

static uint8_t *slurp(struct fx *f, const char *name, size_t *n)
{
	char path[160];
	path_of(f, name, path, sizeof(path));
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	uint8_t *b = malloc((size_t)st.st_size + 1);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*n = (size_t)st.st_size;
	return b;
}

/* PUTROOTFH, OPEN name (created if need be), GETFH. */
static void open_file(struct fx *f, const char *name, uint32_t access, struct nfs4_stateid *sid,
		      struct fh *h)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", access, true, 0644, name);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_OPEN), NFS4_OK);
	get_stateid(&f->rp.x, sid);
	(void)xdr_get_bool(&f->rp.x);
	(void)xdr_get_u64(&f->rp.x);
	(void)xdr_get_u64(&f->rp.x);
	(void)xdr_get_u32(&f->rp.x);
	uint32_t n = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, h);
	sid->seqid = 0; /* the current one, whatever later OPENs make it */
}

/* PUTFH h, op (ALLOCATE or DEALLOCATE); the status. */
static uint32_t space(struct fx *f, uint32_t op, const struct fh *h,
		      const struct nfs4_stateid *sid, uint64_t off, uint64_t len)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, h);
	req_op(&f->rq, op);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, off);
	xdr_put_u64(&f->rq.x, len);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	return st;
}

static void test_allocate_deallocate(void **state)
{
	struct fx *f = *state;
	struct nfs4_stateid sid, rsid;
	struct fh h, dh;
	open_file(f, "a", OPEN4_SHARE_ACCESS_BOTH, &sid, &h);
	char path[160];
	path_of(f, "a", path, sizeof(path));
	struct stat st;
	/* ALLOCATE: the size and the blocks */
	assert_int_equal(space(f, OP_ALLOCATE, &h, &sid, 0, 1 << 20), NFS4_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 1 << 20);
	assert_true(st.st_blocks * 512 >= 1 << 20);
	/* DEALLOCATE: a hole of zeros, the size kept */
	mkdata(f, "a", 65536, 1);
	assert_int_equal(space(f, OP_DEALLOCATE, &h, &sid, 4096, 8192), NFS4_OK);
	size_t n;
	uint8_t *b = slurp(f, "a", &n);
	assert_int_equal(n, 65536);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(b[i], i >= 4096 && i < 12288 ? 0 : (uint8_t)(i * 7 + 1));
	free(b);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_HOLE), 4096);
	close(fd);
	/* past the end: ALLOCATE grows the file, DEALLOCATE keeps the size */
	assert_int_equal(space(f, OP_DEALLOCATE, &h, &sid, 60000, 100000), NFS4_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 65536);
	assert_int_equal(space(f, OP_ALLOCATE, &h, &sid, 65536, 10), NFS4_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 65546);
	/* the special stateids and the current one */
	assert_int_equal(space(f, OP_ALLOCATE, &h, &zero_sid, 0, 100), NFS4_OK);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_BOTH, false, 0, "a");
	req_op(&f->rq, OP_DEALLOCATE);
	put_stateid(&f->rq.x, &cur_sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 4096);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(space(f, OP_ALLOCATE, &h, &cur_sid, 0, 100), NFS4ERR_BAD_STATEID);

	/* ranges: length 0, offset past 2^63 - 1, end past it */
	for (int op = 0; op < 2; op++) {
		uint32_t o = op ? OP_DEALLOCATE : OP_ALLOCATE;
		assert_int_equal(space(f, o, &h, &sid, 0, 0), NFS4ERR_INVAL);
		for (uint64_t off = UINT64_C(1) << 63; off != 0 && off >= UINT64_C(1) << 63;
		     off += UINT64_C(1) << 61)
			assert_int_equal(space(f, o, &h, &sid, off, 1), NFS4ERR_INVAL);
		assert_int_equal(space(f, o, &h, &sid, 0, UINT64_MAX), NFS4ERR_FBIG);
		assert_int_equal(space(f, o, &h, &sid, INT64_MAX, 1), NFS4ERR_FBIG);
		assert_int_equal(space(f, o, &h, &sid, 1, INT64_MAX), NFS4ERR_FBIG);
	}
	/* a read-only open cannot: NFS4ERR_OPENMODE */
	mkdata(f, "r", 100, 2);
	open_file(f, "r", OPEN4_SHARE_ACCESS_READ, &rsid, &h);
	assert_int_equal(space(f, OP_ALLOCATE, &h, &rsid, 0, 4096), NFS4ERR_OPENMODE);
	assert_int_equal(space(f, OP_DEALLOCATE, &h, &rsid, 0, 4096), NFS4ERR_OPENMODE);
	/* another file's stateid, a closed stateid */
	assert_int_equal(space(f, OP_ALLOCATE, &h, &sid, 0, 4096), NFS4ERR_BAD_STATEID);
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &h);
	req_op(&f->rq, OP_CLOSE);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, &rsid);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(space(f, OP_DEALLOCATE, &h, &rsid, 0, 4096), NFS4ERR_BAD_STATEID);
	/* a directory */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, &dh);
	assert_int_equal(space(f, OP_ALLOCATE, &dh, &zero_sid, 0, 4096), NFS4ERR_ISDIR);
	/* another user, no write permission, the anonymous stateid */
	if (geteuid() == 0) {
		f->cred.uid = 4321;
		f->cred.gid = 4321;
		assert_int_equal(space(f, OP_ALLOCATE, &h, &zero_sid, 0, 1 << 16), NFS4ERR_ACCESS);
		assert_int_equal(space(f, OP_DEALLOCATE, &h, &zero_sid, 0, 16), NFS4ERR_ACCESS);
		f->cred.uid = f->cred.gid = 0;
	}
	assert_int_equal(stat(path, &st), 0);
	path_of(f, "r", path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 100);
}

struct copy_args {
	const struct fh *src, *dst;
	struct nfs4_stateid ssid, dsid;
	uint64_t soff, doff, count;
	uint32_t nsource;
	bool no_save;
};

/* PUTFH src, SAVEFH, PUTFH dst, op (COPY or CLONE); the status and, for
 * a COPY that worked, *copied. */
static uint32_t copy(struct fx *f, uint32_t op, const struct copy_args *c, uint64_t *copied)
{
	fx_seq(f);
	if (!c->no_save) {
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, c->src);
		req_op(&f->rq, OP_SAVEFH);
	}
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, c->dst);
	req_op(&f->rq, op);
	put_stateid(&f->rq.x, &c->ssid);
	put_stateid(&f->rq.x, &c->dsid);
	xdr_put_u64(&f->rq.x, c->soff);
	xdr_put_u64(&f->rq.x, c->doff);
	xdr_put_u64(&f->rq.x, c->count);
	if (op == OP_COPY) {
		xdr_put_bool(&f->rq.x, true);  /* consecutive */
		xdr_put_bool(&f->rq.x, false); /* synchronous: the server may anyway */
		xdr_put_u32(&f->rq.x, c->nsource);
		for (uint32_t i = 0; i < c->nsource; i++) {
			xdr_put_u32(&f->rq.x, 1); /* NL4_NAME */
			put_str(&f->rq.x, "elsewhere");
		}
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	if (!c->no_save) {
		assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
		assert_int_equal(rep_op(&f->rp, OP_SAVEFH), NFS4_OK);
	}
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	if (op == OP_COPY && st == NFS4_OK) {
		size_t body = xdr_in_pos(&f->rp.x);
		assert_int_equal(xdr_get_u32(&f->rp.x), 0); /* no callback id: done */
		*copied = xdr_get_u64(&f->rp.x);
		assert_int_equal(xdr_get_u32(&f->rp.x), UNSTABLE4);
		uint8_t verf[8];
		xdr_get_fixed(&f->rp.x, verf, 8);
		assert_true(xdr_get_bool(&f->rp.x)); /* consecutive */
		assert_true(xdr_get_bool(&f->rp.x)); /* synchronous */
		assert_false(f->rp.x.bad);
		/* the estimate is exact: 8 + this body */
		assert_int_equal(xdr_in_pos(&f->rp.x) - body, 32);
		assert_int_equal(xdr_in_left(&f->rp.x), 0);
	}
	return st;
}

static void same_bytes(struct fx *f, const char *src, uint64_t soff, const char *dst,
		       uint64_t doff, uint64_t n)
{
	size_t sn, dn;
	uint8_t *s = slurp(f, src, &sn), *d = slurp(f, dst, &dn);
	assert_true(soff + n <= sn);
	assert_true(doff + n <= dn);
	assert_memory_equal(s + soff, d + doff, n);
	free(s);
	free(d);
}

static void test_copy(void **state)
{
	struct fx *f = *state;
	struct fh hs, hd, hr;
	struct copy_args c = { .src = &hs, .dst = &hd };
	mkdata(f, "src", 10000, 3);
	open_file(f, "src", OPEN4_SHARE_ACCESS_READ, &c.ssid, &hs);
	open_file(f, "dst", OPEN4_SHARE_ACCESS_BOTH, &c.dsid, &hd);
	uint64_t got = 0;
	c.soff = 100, c.doff = 50, c.count = 5000;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4_OK);
	assert_int_equal(got, 5000);
	same_bytes(f, "src", 100, "dst", 50, 5000);
	/* count 0: to the source's end */
	c.soff = 9000, c.doff = 0, c.count = 0;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4_OK);
	assert_int_equal(got, 1000);
	same_bytes(f, "src", 9000, "dst", 0, 1000);
	c.soff = 10000;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4_OK);
	assert_int_equal(got, 0);
	/* past the source's end; offsets past 2^63 - 1 */
	c.soff = 10001, c.count = 0;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4ERR_INVAL);
	c.soff = 5000, c.count = 5001;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4ERR_INVAL);
	c.soff = 0, c.count = UINT64_MAX;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4ERR_INVAL);
	c.soff = UINT64_C(1) << 63, c.count = 1;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4ERR_INVAL);
	c.soff = 0, c.doff = UINT64_MAX;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4ERR_INVAL);
	c.doff = INT64_MAX;
	assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4ERR_FBIG);
	c.doff = 0;
	/* the stateids: read-only destination, no saved fh, swapped ids, the
	 * special current stateid of the source is the saved one */
	struct copy_args w = c;
	w.dsid = c.ssid;
	w.count = 10;
	assert_int_equal(copy(f, OP_COPY, &w, &got), NFS4ERR_BAD_STATEID);
	w = c;
	w.no_save = true;
	assert_int_equal(copy(f, OP_COPY, &w, &got), NFS4ERR_NOFILEHANDLE);
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "owner", OPEN4_SHARE_ACCESS_READ, false, 0, "src");
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &hd);
	req_op(&f->rq, OP_COPY);
	put_stateid(&f->rq.x, &cur_sid);
	put_stateid(&f->rq.x, &c.dsid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 10);
	xdr_put_bool(&f->rq.x, true);
	xdr_put_bool(&f->rq.x, true);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	w = c;
	w.ssid = cur_sid; /* PUTFH, SAVEFH: no stateid saved */
	assert_int_equal(copy(f, OP_COPY, &w, &got), NFS4ERR_BAD_STATEID);
	/* a destination opened for reading only */
	mkdata(f, "ro", 10, 4);
	struct nfs4_stateid rosid;
	open_file(f, "ro", OPEN4_SHARE_ACCESS_READ, &rosid, &hr);
	w = c;
	w.dst = &hr;
	w.dsid = rosid;
	w.count = 10;
	assert_int_equal(copy(f, OP_COPY, &w, &got), NFS4ERR_OPENMODE);
	/* (a write-only open may be read, as for READ: nfsd's
	 * access_permit_read()) */
	/* within one file: overlap refused, apart copied */
	w = c;
	w.src = &hd;
	w.ssid = c.dsid;
	w.soff = 0, w.doff = 100, w.count = 200;
	assert_int_equal(copy(f, OP_COPY, &w, &got), NFS4ERR_INVAL);
	w.doff = 200;
	assert_int_equal(copy(f, OP_COPY, &w, &got), NFS4_OK);
	assert_int_equal(got, 200);
	same_bytes(f, "dst", 0, "dst", 200, 200);
	/* another server's copy */
	w = c;
	w.count = 10;
	w.nsource = 2;
	assert_int_equal(copy(f, OP_COPY, &w, &got), NFS4ERR_NOTSUPP);
	/* another user without read permission on the source */
	if (geteuid() == 0) {
		char path[160];
		path_of(f, "src", path, sizeof(path));
		assert_int_equal(chmod(path, 0600), 0);
		f->cred.uid = f->cred.gid = 4321;
		w = c;
		w.ssid = w.dsid = zero_sid;
		w.count = 10;
		uint32_t st = copy(f, OP_COPY, &w, &got);
		f->cred.uid = f->cred.gid = 0;
		assert_int_equal(st, NFS4ERR_ACCESS);
	}
}

static void test_copy_is_bounded(void **state)
{
	struct fx *f = *state;
	struct fh hs, hd;
	struct copy_args c = { .src = &hs, .dst = &hd };
	const size_t big = (6u << 20) + 123;
	mkdata(f, "big", big, 9);
	open_file(f, "big", OPEN4_SHARE_ACCESS_READ, &c.ssid, &hs);
	open_file(f, "copy", OPEN4_SHARE_ACCESS_BOTH, &c.dsid, &hd);
	uint64_t got, total = 0;
	unsigned rounds = 0;
	do {
		c.soff = c.doff = total;
		c.count = 0;
		assert_int_equal(copy(f, OP_COPY, &c, &got), NFS4_OK);
		assert_true(got <= 4u << 20);
		total += got;
	} while (got && ++rounds < 10);
	assert_int_equal(rounds, 2); /* 4 MiB, the rest, then 0 */
	assert_int_equal(total, big);
	same_bytes(f, "big", 0, "copy", 0, big);
}

static bool host_can_clone(struct fx *f)
{
	char p1[160], p2[160];
	path_of(f, "probe1", p1, sizeof(p1));
	path_of(f, "probe2", p2, sizeof(p2));
	mkdata(f, "probe1", 8192, 0);
	int s = open(p1, O_RDONLY), d = open(p2, O_RDWR | O_CREAT, 0644);
	assert_true(s >= 0 && d >= 0);
	bool ok = ioctl(d, FICLONE, s) == 0;
	close(s);
	close(d);
	unlink(p1);
	unlink(p2);
	return ok;
}

static void test_clone(void **state)
{
	struct fx *f = *state;
	bool can = host_can_clone(f);
	struct fh hs, hd;
	struct copy_args c = { .src = &hs, .dst = &hd };
	mkdata(f, "src", 3 * 65536, 6);
	open_file(f, "src", OPEN4_SHARE_ACCESS_READ, &c.ssid, &hs);
	open_file(f, "dst", OPEN4_SHARE_ACCESS_BOTH, &c.dsid, &hd);
	c.soff = 65536, c.doff = 0, c.count = 65536;
	uint32_t st = copy(f, OP_CLONE, &c, NULL);
	print_message("host file system %s reflink: CLONE %u\n", can ? "has" : "has no", st);
	if (can) {
		assert_int_equal(st, NFS4_OK);
		same_bytes(f, "src", 65536, "dst", 0, 65536);
	} else {
		assert_int_equal(st, NFS4ERR_NOTSUPP);
	}
	/* refused before the file system is asked */
	c.soff = 3 * 65536 + 1;
	assert_int_equal(copy(f, OP_CLONE, &c, NULL), NFS4ERR_INVAL);
	c.soff = 0;
	c.no_save = true;
	assert_int_equal(copy(f, OP_CLONE, &c, NULL), NFS4ERR_NOFILEHANDLE);
	c.no_save = false;
	c.dsid = c.ssid;
	assert_int_equal(copy(f, OP_CLONE, &c, NULL), NFS4ERR_BAD_STATEID);
}

struct seg {
	bool eof;
	uint32_t n, type;
	uint64_t off, len;
};

/* PUTFH h, READ_PLUS; the status, the (first) segment in *g. */
static uint32_t read_plus(struct fx *f, const struct fh *h, const struct nfs4_stateid *sid,
			  uint64_t off, uint32_t count, struct seg *g, uint8_t *data)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, h);
	req_op(&f->rq, OP_READ_PLUS);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, off);
	xdr_put_u32(&f->rq.x, count);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READ_PLUS), st);
	if (st != NFS4_OK)
		return st;
	memset(g, 0, sizeof(*g));
	g->eof = xdr_get_bool(&f->rp.x);
	g->n = xdr_get_u32(&f->rp.x);
	assert_true(g->n <= 1);
	if (g->n) {
		g->type = xdr_get_u32(&f->rp.x);
		g->off = xdr_get_u64(&f->rp.x);
		if (g->type == NFS4_CONTENT_HOLE) {
			g->len = xdr_get_u64(&f->rp.x);
		} else {
			assert_int_equal(g->type, NFS4_CONTENT_DATA);
			struct xdr_opaque o = xdr_get_opaque(&f->rp.x, UINT32_MAX);
			g->len = o.len;
			memcpy(data, o.data, o.len);
		}
	}
	assert_false(f->rp.x.bad);
	assert_int_equal(xdr_in_left(&f->rp.x), 0);
	return st;
}

/* READ_PLUS over data, a hole, data: one segment a call, each bounded by
 * count and by the next change of kind; the bytes as written. */
static void test_read_plus(void **state)
{
	struct fx *f = *state;
	const size_t size = 256 << 10;
	mkdata(f, "sparse", size, 8);
	char path[160];
	path_of(f, "sparse", path, sizeof(path));
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	int rc = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 64 << 10, 128 << 10);
	close(fd);
	if (rc != 0)
		skip();
	size_t n;
	uint8_t *want = slurp(f, "sparse", &n);
	uint8_t *got = malloc(size);
	struct nfs4_stateid sid;
	struct fh h;
	open_file(f, "sparse", OPEN4_SHARE_ACCESS_READ, &sid, &h);
	struct seg g;
	assert_int_equal(read_plus(f, &h, &sid, 0, 1 << 20, &g, got), NFS4_OK);
	assert_true(g.n == 1 && g.type == NFS4_CONTENT_DATA && g.off == 0 && !g.eof);
	assert_int_equal(g.len, 64 << 10);
	assert_memory_equal(got, want, g.len);
	assert_int_equal(read_plus(f, &h, &sid, 100, 10, &g, got), NFS4_OK);
	assert_true(g.type == NFS4_CONTENT_DATA && g.off == 100 && g.len == 10 && !g.eof);
	assert_memory_equal(got, want + 100, 10);
	assert_int_equal(read_plus(f, &h, &sid, 64 << 10, 1 << 20, &g, got), NFS4_OK);
	assert_true(g.n == 1 && g.type == NFS4_CONTENT_HOLE && !g.eof);
	assert_int_equal(g.off, 64 << 10);
	assert_int_equal(g.len, 128 << 10);
	assert_int_equal(read_plus(f, &h, &sid, 70000, 1000, &g, got), NFS4_OK);
	assert_true(g.type == NFS4_CONTENT_HOLE && g.off == 70000 && g.len == 1000);
	assert_int_equal(read_plus(f, &h, &sid, 192 << 10, 1 << 20, &g, got), NFS4_OK);
	assert_true(g.type == NFS4_CONTENT_DATA && g.eof);
	assert_int_equal(g.len, 64 << 10);
	assert_memory_equal(got, want + (192 << 10), g.len);
	/* at and past the end, far past 2^63, count 0 */
	const uint64_t past[] = { size, size + 1, UINT64_C(1) << 63, UINT64_MAX };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(read_plus(f, &h, &sid, past[i], 100, &g, got), NFS4_OK);
		assert_true(g.eof && g.n == 0);
	}
	assert_int_equal(read_plus(f, &h, &sid, 0, 0, &g, got), NFS4_OK);
	assert_true(!g.eof && g.n == 0);
	/* a directory, a closed stateid, another user without read */
	struct fh dh;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, &dh);
	assert_int_equal(read_plus(f, &dh, &zero_sid, 0, 10, &g, got), NFS4ERR_ISDIR);
	if (geteuid() == 0) {
		assert_int_equal(chmod(path, 0600), 0);
		f->cred.uid = f->cred.gid = 4321;
		uint32_t st = read_plus(f, &h, &zero_sid, 0, 10, &g, got);
		f->cred.uid = f->cred.gid = 0;
		assert_int_equal(st, NFS4ERR_ACCESS);
	}
	free(want);
	free(got);
}

/* READ_PLUS in a COMPOUND whose reply room is small: the data shrinks to
 * fit, and the result stays within its estimate (the op hook). */
static void test_read_plus_room(void **state)
{
	struct fx *f = *state;
	mkdata(f, "d", 100000, 2);
	struct nfs4_stateid sid;
	struct fh h;
	open_file(f, "d", OPEN4_SHARE_ACCESS_READ, &sid, &h);
	for (uint32_t k = 0; k < 4; k++) {
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, &h);
		for (int i = 0; i < 3; i++) {
			req_op(&f->rq, OP_READ_PLUS);
			put_stateid(&f->rq.x, &sid);
			xdr_put_u64(&f->rq.x, k * 1000);
			xdr_put_u32(&f->rq.x, 1u << 20);
		}
		uint8_t *rep = malloc(BUFSZ);
		size_t len;
		size_t cap = 300000 + k * 1001;
		assert_int_equal(tnfs_compound(f->srv, &f->cred, f->rq.buf, req_len(&f->rq), rep,
					       cap, &len, NULL, NULL), 0);
		assert_true(len <= cap);
		free(rep);
	}
	assert_int_equal(f->est.violations, 0);
}

static void test_offload_refused(void **state)
{
	struct fx *f = *state;
	struct nfs4_stateid sid;
	struct fh h;
	open_file(f, "a", OPEN4_SHARE_ACCESS_BOTH, &sid, &h);
	const uint32_t ops[] = { OP_COPY_NOTIFY, OP_OFFLOAD_CANCEL, OP_OFFLOAD_STATUS };
	const uint32_t want[] = { NFS4ERR_NOTSUPP, NFS4ERR_BAD_STATEID, NFS4ERR_BAD_STATEID };
	for (int i = 0; i < 3; i++) {
		fx_seq(f);
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, &h);
		req_op(&f->rq, ops[i]);
		put_stateid(&f->rq.x, &sid);
		if (ops[i] == OP_COPY_NOTIFY) {
			xdr_put_u32(&f->rq.x, 3); /* NL4_NETADDR */
			put_str(&f->rq.x, "tcp");
			put_str(&f->rq.x, "127.0.0.1.8.1");
		}
		assert_int_equal(fx_call(f), want[i]);
		fx_seq_ok(f);
		assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
		assert_int_equal(rep_op(&f->rp, ops[i]), want[i]);
		assert_int_equal(xdr_in_left(&f->rp.x), 0);
	}
	/* not in 4.1 */
	f->minor = 1;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &h);
	req_op(&f->rq, OP_ALLOCATE);
	put_stateid(&f->rq.x, &sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 1);
	assert_int_equal(fx_call(f), NFS4ERR_OP_ILLEGAL);
	f->minor = 2;
}

static void test_estimates(void **state)
{
	(void)state;
	struct tnfs_est e = { .fh_len = NFS4_FHSIZE, .room = 1 << 20, .maxresp = 1 << 20 };
	union nfs4_args a;
	memset(&a, 0, sizeof(a));
	assert_int_equal(tnfs_op_estimate(OP_COPY, &e, &a), 8 + 32);
	const uint32_t hdr_only[] = { OP_ALLOCATE, OP_DEALLOCATE, OP_CLONE, OP_COPY_NOTIFY,
				      OP_OFFLOAD_CANCEL, OP_OFFLOAD_STATUS, OP_VERIFY,
				      OP_NVERIFY };
	for (size_t i = 0; i < sizeof(hdr_only) / sizeof(hdr_only[0]); i++)
		assert_int_equal(tnfs_op_estimate(hdr_only[i], &e, &a), 8);
	uint32_t missing = 0;
	assert_int_equal(tnfs_optable_check(&missing), 0);
	/* the results the op hook checked against their estimates */
	const uint32_t ok[] = { OP_ALLOCATE, OP_DEALLOCATE, OP_COPY, OP_READ_PLUS };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_true(ops_checked_ok[ok[i]]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_allocate_deallocate, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_copy, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_copy_is_bounded, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_clone, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_read_plus, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_read_plus_room, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_offload_refused, setup, fx_teardown),
		cmocka_unit_test(test_estimates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
