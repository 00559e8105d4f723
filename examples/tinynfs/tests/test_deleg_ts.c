/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RFC 9754 (extensions for opening and delegating files in NFSv4.2) and
 * the rest of issue 36's write delegations, on the tinynfs program
 * (argv[1]) over loopback TCP (deleg_env.h: A serves its back channel, B
 * has none):
 *
 *  - open_arguments (86), time_deleg_access (84) and time_deleg_modify
 *    (85) are in supported_attrs for minor version 2 only; open_arguments
 *    gives the OPEN arguments OPEN takes, and is read-only; the delegated
 *    times are write-only (GETATTR, VERIFY: NFS4ERR_INVAL), not settable
 *    at creation; WANT_OPEN_XOR_DELEGATION and WANT_DELEG_TIMESTAMPS are
 *    invalid before minor version 2;
 *  - an OPEN for writing with WANT_DELEG_TIMESTAMPS gets
 *    OPEN_DELEGATE_WRITE_ATTRS_DELEG; its holder, and only with that
 *    delegation's stateid, sets the delegated times by SETATTR: a time
 *    not after the file's at the grant is ignored, one in the future
 *    clamped to now; a CB_GETATTR asks the holder for them too and
 *    another client's GETATTR (of the times alone as well) sees them;
 *    the holder's SETATTR in the compound of its DELEGRETURN, while
 *    recalled, sets them;
 *  - a write-only OPEN gets a write delegation when the caller may read
 *    the file as well, none (WND4_RESOURCE) when it may not;
 *  - VERIFY and NVERIFY of the size of a write-delegated file compare the
 *    holder's size (CB_GETATTR), as GETATTR gives it;
 *  - an OPEN for reading with WANT_DELEG_TIMESTAMPS gets
 *    OPEN_DELEGATE_READ_ATTRS_DELEG, whose holder sets time_deleg_access
 *    with its stateid, not time_deleg_modify (test_read_attrs);
 *  - WANT_OPEN_XOR_DELEGATION: a granted delegation comes with
 *    OPEN4_RESULT_NO_OPEN_STATEID and the anonymous stateid, no open
 *    stateid is kept (the owner's next OPEN makes a new one); an upgrade
 *    of an open stateid, or no delegation, gives the open stateid as
 *    usual (test_open_xor).
 */
#include "deleg_env.h"

#include <sys/stat.h>
#include <time.h>

static const struct nfs4_stateid anon; /* the anonymous stateid */

#define TS_WANTS (1u << 3 | 1u << 4 | 1u << 5 | 1u << 20 | 1u << 21)
#define TS_CLAIMS (1u << CLAIM_NULL | 1u << CLAIM_PREVIOUS | 1u << CLAIM_DELEGATE_CUR | \
		   1u << CLAIM_FH | 1u << CLAIM_DELEG_CUR_FH)

/* PUTFH fh, SETATTR with sid of the delegated times (at, mt: seconds,
 * < 0: left out), and DELEGRETURN of sid if ret.  The COMPOUND status. */
static uint32_t set_times(struct cl *cl, const struct fh *fh, const struct nfs4_stateid *sid,
			  int64_t at, int64_t mt, bool ret)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_SETATTR);
	put_stateid(&f->rq.x, sid);
	put_bitmap(&f->rq.x, 0, 0,
		   (at >= 0 ? W2(FATTR4_TIME_DELEG_ACCESS) : 0) |
			   (mt >= 0 ? W2(FATTR4_TIME_DELEG_MODIFY) : 0));
	xdr_put_u32(&f->rq.x, (at >= 0 ? 12 : 0) + (mt >= 0 ? 12 : 0));
	for (int i = 0; i < 2; i++) {
		int64_t t = i ? mt : at;
		if (t < 0)
			continue;
		xdr_put_u64(&f->rq.x, (uint64_t)t);
		xdr_put_u32(&f->rq.x, 0);
	}
	if (ret) {
		req_op(&f->rq, OP_DELEGRETURN);
		put_stateid(&f->rq.x, sid);
	}
	return fx_call(f);
}

/* GETATTR w0/w1/w2 of fh by cl: the status; the reply is left at the
 * GETATTR's result (rep_op done) on NFS4_OK. */
static uint32_t getattr_raw(struct cl *cl, const struct fh *fh, uint32_t w0, uint32_t w1,
			    uint32_t w2)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, w0, w1, w2);
	uint32_t st = fx_call(f);
	if (st != NFS4_OK)
		return st;
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	return st;
}

/* B's GETATTR of size (if sz), time_access and time_modify (seconds), once
 * the holder's answer is in (a liveness bound of 5 s). */
static uint32_t b_times(struct env *e, const struct fh *fh, bool sz, uint64_t *size,
			int64_t *at, int64_t *mt)
{
	uint32_t st = NFS4ERR_DELAY;
	for (int i = 0; st == NFS4ERR_DELAY && i < 500; i++) {
		if (i)
			usleep(10 * 1000);
		st = getattr_raw(&e->b, fh, sz ? W0(FATTR4_SIZE) : 0,
				 W1(FATTR4_TIME_ACCESS) | W1(FATTR4_TIME_MODIFY), 0);
		if (i == 0 && st == NFS4ERR_DELAY)
			cl_wait(&e->a, &e->a.ngetattr, e->a.ngetattr + 1);
	}
	if (st != NFS4_OK)
		return st;
	struct xdr_in *x = &e->b.f->rp.x;
	uint32_t w[3];
	struct xdr_opaque v = get_fattr(x, w);
	assert_int_equal(w[0], sz ? W0(FATTR4_SIZE) : 0);
	assert_int_equal(w[1], W1(FATTR4_TIME_ACCESS) | W1(FATTR4_TIME_MODIFY));
	struct xdr_in r;
	xdr_in_init(&r, v.data, v.len);
	*size = sz ? xdr_get_u64(&r) : 0;
	*at = (int64_t)xdr_get_u64(&r);
	(void)xdr_get_u32(&r);
	*mt = (int64_t)xdr_get_u64(&r);
	(void)xdr_get_u32(&r);
	assert_false(r.bad);
	return st;
}

static void file_times(const struct env *e, const char *name, int64_t *at, int64_t *mt)
{
	char p[200];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", e->a.f->dir, name);
	assert_int_equal(stat(p, &st), 0);
	*at = st.st_atim.tv_sec;
	*mt = st.st_mtim.tv_sec;
}

/* name made with both times t0 */
static void mkfile_at(const struct env *e, const char *name, int64_t t0)
{
	char p[200];
	mkfile(&e->a, name);
	snprintf(p, sizeof(p), "%s/%s", e->a.f->dir, name);
	struct timespec ts[2] = { { (time_t)t0, 0 }, { (time_t)t0, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static void test_attributes(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid;
	struct fh fh;
	uint32_t dt, why, w[3];
	mkfile(&e->a, "f");
	assert_int_equal(open_file_why(&e->b, "b", "f", OPEN4_SHARE_ACCESS_READ, &osid, &dt, &dsid, &fh,
				&why),
			 NFS4_OK);
	/* minor version 1: none of RFC 9754's */
	assert_int_equal(getattr_raw(&e->b, &fh, W0(FATTR4_SUPPORTED_ATTRS), 0, 0), NFS4_OK);
	struct xdr_opaque v = get_fattr(&e->b.f->rp.x, w);
	struct xdr_in r;
	xdr_in_init(&r, v.data, v.len);
	assert_true(xdr_get_u32(&r) >= 1);
	for (int i = 0; i < 2; i++)
		(void)xdr_get_u32(&r);
	assert_int_equal(xdr_get_u32(&r) & (W2(84) | W2(85) | W2(86)), 0);
	assert_int_equal(getattr_raw(&e->b, &fh, 0, 0,
				     W2(FATTR4_OPEN_ARGUMENTS) | W2(FATTR4_TIME_DELEG_ACCESS)),
			 NFS4_OK);
	(void)get_fattr(&e->b.f->rp.x, w);
	assert_int_equal(w[2], 0);
	assert_int_equal(open_file_why(&e->b, "b", "f",
				OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
				&osid, &dt, &dsid, &fh, &why),
			 NFS4ERR_INVAL);
	assert_int_equal(open_file_why(&e->b, "b", "f",
				OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION,
				&osid, &dt, &dsid, &fh, &why),
			 NFS4ERR_INVAL);
	/* minor version 2 */
	e->b.f->minor = 2;
	assert_int_equal(getattr_raw(&e->b, &fh, W0(FATTR4_SUPPORTED_ATTRS), 0, 0), NFS4_OK);
	v = get_fattr(&e->b.f->rp.x, w);
	xdr_in_init(&r, v.data, v.len);
	uint32_t n = xdr_get_u32(&r);
	assert_true(n >= 3);
	(void)xdr_get_u32(&r);
	(void)xdr_get_u32(&r);
	uint32_t w2 = xdr_get_u32(&r);
	assert_int_equal(w2 & (W2(84) | W2(85) | W2(86)), W2(84) | W2(85) | W2(86));
	assert_int_equal(getattr_raw(&e->b, &fh, 0, 0, W2(FATTR4_OPEN_ARGUMENTS)), NFS4_OK);
	v = get_fattr(&e->b.f->rp.x, w);
	assert_int_equal(w[2], W2(FATTR4_OPEN_ARGUMENTS));
	assert_int_equal(v.len, 40);
	xdr_in_init(&r, v.data, v.len);
	const uint32_t want[5] = { 0xe, 0xf, TS_WANTS, TS_CLAIMS, 0xf };
	for (int i = 0; i < 5; i++) {
		assert_int_equal(xdr_get_u32(&r), 1);
		assert_int_equal(xdr_get_u32(&r), want[i]);
	}
	/* the delegated times are write-only */
	assert_int_equal(getattr_raw(&e->b, &fh, W0(FATTR4_SIZE), 0, W2(FATTR4_TIME_DELEG_MODIFY)),
			 NFS4ERR_INVAL);
	struct fx *f = e->b.f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_VERIFY);
	put_bitmap(&f->rq.x, 0, 0, W2(FATTR4_TIME_DELEG_ACCESS));
	xdr_put_u32(&f->rq.x, 12);
	xdr_put_u64(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 0);
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
	/* open_arguments is read-only */
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, &fh);
	req_op(&f->rq, OP_SETATTR);
	put_stateid(&f->rq.x, &anon);
	put_bitmap(&f->rq.x, 0, 0, W2(FATTR4_OPEN_ARGUMENTS));
	xdr_put_u32(&f->rq.x, 40);
	for (int i = 0; i < 5; i++) {
		xdr_put_u32(&f->rq.x, 1);
		xdr_put_u32(&f->rq.x, 0);
	}
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
	/* not at creation: OPEN4_CREATE with time_deleg_modify */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, OPEN4_SHARE_ACCESS_BOTH);
	xdr_put_u32(&f->rq.x, OPEN4_SHARE_DENY_NONE);
	xdr_put_u64(&f->rq.x, 0);
	put_str(&f->rq.x, "b");
	xdr_put_u32(&f->rq.x, OPEN4_CREATE);
	xdr_put_u32(&f->rq.x, UNCHECKED4);
	put_bitmap(&f->rq.x, 0, 0, W2(FATTR4_TIME_DELEG_MODIFY));
	xdr_put_u32(&f->rq.x, 12);
	xdr_put_u64(&f->rq.x, 1);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, CLAIM_NULL);
	put_str(&f->rq.x, "new");
	assert_int_equal(fx_call(f), NFS4ERR_INVAL);
}

static void test_timestamps(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid, o2, d2, o3, d3;
	struct fh fh, fh2, fh3;
	uint32_t dt, why;
	int64_t t0 = (int64_t)time(NULL) - 1000, at, mt;
	e->a.f->minor = e->b.f->minor = 2;
	mkfile_at(e, "t", t0);
	mkfile(&e->a, "p");
	assert_int_equal(open_file_why(&e->a, "a", "t",
				OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
				&osid, &dt, &dsid, &fh, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_WRITE_ATTRS_DELEG);
	/* without the want: a plain write delegation */
	assert_int_equal(open_file_why(&e->a, "a", "p", OPEN4_SHARE_ACCESS_BOTH, &o2, &dt, &d2, &fh2, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_WRITE);
	/* the holder sets them */
	assert_int_equal(set_times(&e->a, &fh, &dsid, t0 + 400, t0 + 500, false), NFS4_OK);
	file_times(e, "t", &at, &mt);
	assert_int_equal(at, t0 + 400);
	assert_int_equal(mt, t0 + 500);
	/* not after the original time: ignored; in the future: now */
	assert_int_equal(set_times(&e->a, &fh, &dsid, -1, t0 - 100, false), NFS4_OK);
	file_times(e, "t", &at, &mt);
	assert_int_equal(mt, t0 + 500);
	assert_int_equal(set_times(&e->a, &fh, &dsid, -1, t0 + 100000, false), NFS4_OK);
	file_times(e, "t", &at, &mt);
	assert_true(mt > t0 + 500 && mt <= (int64_t)time(NULL));
	/* only with that delegation's stateid, only its holder */
	assert_int_equal(set_times(&e->a, &fh, &osid, -1, t0 + 600, false), NFS4ERR_BAD_STATEID);
	assert_int_equal(set_times(&e->a, &fh, &anon, -1, t0 + 600, false), NFS4ERR_BAD_STATEID);
	assert_int_equal(set_times(&e->a, &fh2, &d2, -1, t0 + 600, false), NFS4ERR_BAD_STATEID);
	assert_int_equal(set_times(&e->a, &fh2, &dsid, -1, t0 + 600, false), NFS4ERR_BAD_STATEID);
	assert_int_equal(set_times(&e->b, &fh, &dsid, -1, t0 + 600, false), NFS4ERR_BAD_STATEID);
	e->a.f->minor = 1;
	assert_int_equal(set_times(&e->a, &fh, &dsid, -1, t0 + 600, false), NFS4ERR_ATTRNOTSUPP);
	e->a.f->minor = 2;
	assert_int_equal(e->a.nrecall, 0);
	/* CB_GETATTR asks for them; B sees the holder's times */
	e->a.ga_status = NFS4_OK;
	e->a.ga_size = 5;
	e->a.ga_change = 1;
	e->a.ga_times = true;
	e->a.ga_atime = t0 + 700;
	e->a.ga_mtime = t0 + 800;
	uint64_t size;
	assert_int_equal(b_times(e, &fh, true, &size, &at, &mt), NFS4_OK);
	assert_true(e->a.ga_asked_times);
	assert_int_equal(size, 5);
	assert_int_equal(at, t0 + 700);
	assert_int_equal(mt, t0 + 800);
	/* the times alone ask too; one before the original is the file's */
	e->a.ga_mtime = t0 - 5;
	unsigned n0 = e->a.ngetattr;
	assert_int_equal(b_times(e, &fh, false, &size, &at, &mt), NFS4_OK);
	assert_int_equal(e->a.ngetattr, n0 + 1);
	assert_int_equal(at, t0 + 700);
	int64_t fat, fmt;
	file_times(e, "t", &fat, &fmt);
	assert_int_equal(mt, fmt);
	/* the plain write delegation: B's GETATTR of the times alone is the
	 * file's, no CB_GETATTR */
	n0 = e->a.ngetattr;
	assert_int_equal(getattr_raw(&e->b, &fh2, 0, W1(FATTR4_TIME_MODIFY), 0), NFS4_OK);
	assert_int_equal(e->a.ngetattr, n0);
	/* recalled: the holder sets them in the compound of its return */
	assert_int_equal(open_file_why(&e->b, "b", "t", OPEN4_SHARE_ACCESS_READ, &o3, &dt, &d3, &fh3, &why),
			 NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_memory_equal(e->a.recalled.other, dsid.other, 12);
	assert_int_equal(set_times(&e->a, &fh, &dsid, t0 + 900, t0 + 950, true), NFS4_OK);
	file_times(e, "t", &at, &mt);
	assert_int_equal(at, t0 + 900);
	assert_int_equal(mt, t0 + 950);
	assert_int_equal(set_times(&e->a, &fh, &dsid, -1, t0 + 990, false), NFS4ERR_BAD_STATEID);
	assert_int_equal(open_file_why(&e->b, "b", "t", OPEN4_SHARE_ACCESS_READ, &o3, &dt, &d3, &fh3, &why),
			 NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted_write"), 2);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

static void test_write_only(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid, o2, d2;
	struct fh fh, fh2;
	uint32_t dt, why;
	char p[200];
	mkfile(&e->a, "wo");
	assert_int_equal(open_file_why(&e->a, "a", "wo", OPEN4_SHARE_ACCESS_WRITE, &osid, &dt, &dsid, &fh,
				&why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_WRITE);
	/* its stateid reads as well as writes */
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	assert_int_equal(open_file_why(&e->b, "b", "wo", OPEN4_SHARE_ACCESS_READ, &o2, &dt, &d2, &fh2,
				&why),
			 NFS4ERR_DELAY);
	recall_and_return(e, 1, &dsid, &fh);
	/* a caller who may not read it: none */
	assert_int_equal(chmod(e->a.f->dir, 0755), 0);
	mkfile(&e->a, "wn");
	snprintf(p, sizeof(p), "%s/wn", e->a.f->dir);
	assert_int_equal(chmod(p, 0222), 0);
	e->a.c.uid = e->a.c.gid = 65534;
	assert_int_equal(open_file_why(&e->a, "n", "wn",
				OPEN4_SHARE_ACCESS_WRITE | OPEN4_SHARE_ACCESS_WANT_ANY_DELEG, &o2, &dt,
				&d2, &fh2, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_RESOURCE);
	/* the same caller once it may read it: granted */
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(close_file(&e->a, &fh2, &o2), NFS4_OK);
	assert_int_equal(open_file_why(&e->a, "n2", "wn", OPEN4_SHARE_ACCESS_WRITE, &o2, &dt, &d2, &fh2,
				&why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_WRITE);
	e->a.c.uid = e->a.c.gid = 0;
	stop(e);
	assert_int_equal(counter(e, "deleg_granted_write"), 2);
}

/* cl's VERIFY (op OP_VERIFY) or NVERIFY of fh's size. */
static uint32_t verify_size(struct cl *cl, const struct fh *fh, uint32_t op, uint64_t size)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, op);
	put_bitmap(&f->rq.x, W0(FATTR4_SIZE), 0, 0);
	xdr_put_u32(&f->rq.x, 8);
	xdr_put_u64(&f->rq.x, size);
	return fx_call(f);
}

/* verify_size once the holder's answer is in (a liveness bound). */
static uint32_t verify_after(struct env *e, const struct fh *fh, uint32_t op, uint64_t size)
{
	uint32_t st = verify_size(&e->b, fh, op, size);
	if (st == NFS4ERR_DELAY)
		cl_wait(&e->a, &e->a.ngetattr, e->a.ngetattr + 1);
	for (int i = 0; st == NFS4ERR_DELAY && i < 500; i++) {
		usleep(10 * 1000);
		st = verify_size(&e->b, fh, op, size);
	}
	return st;
}

static void test_verify(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid;
	struct fh fh;
	uint32_t dt, why;
	mkfile(&e->a, "v"); /* 5 bytes on the server */
	assert_int_equal(open_file_why(&e->a, "a", "v", OPEN4_SHARE_ACCESS_BOTH, &osid, &dt, &dsid, &fh,
				&why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_WRITE);
	e->a.ga_status = NFS4_OK;
	e->a.ga_size = 12345; /* the holder wrote */
	e->a.ga_change = 7;
	assert_int_equal(verify_after(e, &fh, OP_VERIFY, 12345), NFS4_OK);
	assert_int_equal(verify_after(e, &fh, OP_VERIFY, 5), NFS4ERR_NOT_SAME);
	assert_int_equal(verify_after(e, &fh, OP_NVERIFY, 5), NFS4_OK);
	assert_int_equal(verify_after(e, &fh, OP_NVERIFY, 12345), NFS4ERR_SAME);
	assert_true(e->a.ngetattr >= 4);
	/* the holder's own VERIFY: the file's, no CB_GETATTR */
	unsigned n0 = e->a.ngetattr;
	assert_int_equal(verify_size(&e->a, &fh, OP_VERIFY, 5), NFS4_OK);
	assert_int_equal(e->a.ngetattr, n0);
	assert_int_equal(e->a.nrecall, 0);
}

/* OPEN_DELEGATE_READ_ATTRS_DELEG: the holder owns the access time. */
static void test_read_attrs(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid osid, dsid, o2, d2;
	struct fh fh, fh2;
	uint32_t dt, why;
	int64_t t0 = (int64_t)time(NULL) - 1000, at, mt;
	e->a.f->minor = e->b.f->minor = 2;
	mkfile_at(e, "r", t0);
	mkfile_at(e, "r2", t0);
	assert_int_equal(open_file_why(&e->a, "a", "r",
				OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
				&osid, &dt, &dsid, &fh, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_READ_ATTRS_DELEG);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	assert_int_equal(set_times(&e->a, &fh, &dsid, t0 + 400, -1, false), NFS4_OK);
	file_times(e, "r", &at, &mt);
	assert_int_equal(at, t0 + 400);
	assert_int_equal(mt, t0);
	/* not the modify time: nothing changes under a read delegation */
	assert_int_equal(set_times(&e->a, &fh, &dsid, -1, t0 + 500, false), NFS4ERR_BAD_STATEID);
	assert_int_equal(set_times(&e->a, &fh, &dsid, t0 + 450, t0 + 500, false),
			 NFS4ERR_BAD_STATEID);
	/* not after the original time: ignored */
	assert_int_equal(set_times(&e->a, &fh, &dsid, t0 - 5, -1, false), NFS4_OK);
	file_times(e, "r", &at, &mt);
	assert_int_equal(at, t0 + 400);
	assert_int_equal(set_times(&e->b, &fh, &dsid, t0 + 600, -1, false), NFS4ERR_BAD_STATEID);
	/* without the want: OPEN_DELEGATE_READ, which owns no time */
	assert_int_equal(open_file_why(&e->a, "a", "r2", OPEN4_SHARE_ACCESS_READ, &o2, &dt, &d2, &fh2,
				&why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_READ);
	assert_int_equal(set_times(&e->a, &fh2, &d2, t0 + 400, -1, false), NFS4ERR_BAD_STATEID);
	/* recalled by a writer: returned with its access time */
	assert_int_equal(open_file_why(&e->b, "b", "r", OPEN4_SHARE_ACCESS_BOTH, &o2, &dt, &d2, &fh2,
				&why),
			 NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_int_equal(set_times(&e->a, &fh, &dsid, t0 + 700, -1, true), NFS4_OK);
	file_times(e, "r", &at, &mt);
	assert_int_equal(at, t0 + 700);
}

static bool is_anon(const struct nfs4_stateid *s)
{
	return memcmp(s, &anon, sizeof(anon)) == 0;
}

/* WANT_OPEN_XOR_DELEGATION: the delegation stateid, not both. */
static void test_open_xor(void **state)
{
	struct env *e = *state;
	const uint32_t xor = OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION;
	struct nfs4_stateid osid, dsid, o2, d2;
	struct fh fh, fh2;
	uint32_t dt, why;
	e->a.f->minor = e->b.f->minor = 2;
	mkfile(&e->a, "x");
	assert_int_equal(open_file_why(&e->a, "a", "x", OPEN4_SHARE_ACCESS_READ | xor, &osid, &dt,
				&dsid, &fh, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_READ);
	assert_true(e->a.rflags & OPEN4_RESULT_NO_OPEN_STATEID);
	assert_true(is_anon(&osid));
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	/* no open stateid was kept: the owner's next OPEN makes a new one */
	assert_int_equal(open_file_why(&e->a, "a", "x", OPEN4_SHARE_ACCESS_READ, &o2, &dt, &d2, &fh2,
				&why),
			 NFS4_OK);
	assert_int_equal(o2.seqid, 1);
	assert_false(e->a.rflags & OPEN4_RESULT_NO_OPEN_STATEID);
	/* an open stateid there already: upgraded and given, as usual */
	mkfile(&e->a, "y");
	assert_int_equal(open_file_why(&e->a, "a", "y",
				OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_NO_DELEG, &osid, &dt,
				&dsid, &fh, &why),
			 NFS4_OK);
	assert_int_equal(open_file_why(&e->a, "a", "y", OPEN4_SHARE_ACCESS_READ | xor, &o2, &dt,
				&d2, &fh2, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_READ);
	assert_false(e->a.rflags & OPEN4_RESULT_NO_OPEN_STATEID);
	assert_int_equal(o2.seqid, 2);
	assert_memory_equal(o2.other, osid.other, 12);
	/* no delegation (B has no back channel): the open stateid */
	assert_int_equal(open_file_why(&e->b, "b", "x", OPEN4_SHARE_ACCESS_READ | xor, &osid, &dt,
				&dsid, &fh, &why),
			 NFS4_OK);
	assert_false(e->b.rflags & OPEN4_RESULT_NO_OPEN_STATEID);
	assert_false(is_anon(&osid));
	assert_int_equal(sid_op(&e->b, &fh, OP_READ, &osid), NFS4_OK);
	/* a write delegation: its stateid only, good for READ */
	mkfile(&e->a, "w");
	assert_int_equal(open_file_why(&e->a, "a", "w", OPEN4_SHARE_ACCESS_BOTH | xor, &osid, &dt,
				&dsid, &fh, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_WRITE);
	assert_true(e->a.rflags & OPEN4_RESULT_NO_OPEN_STATEID);
	assert_true(is_anon(&osid));
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	/* returned: nothing of A's stays on the file (B opens it to write) */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(open_file_why(&e->b, "b", "w", OPEN4_SHARE_ACCESS_BOTH, &o2, &dt, &d2, &fh2,
				&why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_attributes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timestamps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_attrs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_xor, setup, teardown),
	};
	return deleg_run(argc, argv, tests);
}
