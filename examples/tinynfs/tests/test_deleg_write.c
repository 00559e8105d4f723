/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Write delegations (RFC 8881 10.4, issue 36) of the tinynfs program
 * (argv[1]) over loopback TCP (deleg_env.h: A serves its back channel, B
 * has none):
 *
 *  - an OPEN for both of a file nobody else has open gets
 *    OPEN_DELEGATE_WRITE (no space limit), backed by a Linux write lease
 *    on the OPEN's own open file;
 *  - the holder reads, writes and commits under it, and opens the file
 *    again, without breaking its own lease (no recall);
 *  - another client's OPEN (even for reading), READ, WRITE, SETATTR of
 *    the size or of the mode, REMOVE and RENAME recall it (NFS4ERR_DELAY until the
 *    DELEGRETURN), and so does a local process's open for reading, which
 *    blocks until then;
 *  - another client's GETATTR of the size or change attribute asks the
 *    holder with CB_GETATTR (RFC 8881 10.4.3, 20.1): NFS4ERR_DELAY, then
 *    the holder's size and a change attribute above the file's when the
 *    holder wrote; a holder that cannot answer is recalled;
 *  - while another client has the file open, an OPEN for both that
 *    wants a delegation gets OPEN_DELEGATE_NONE_EXT / WND4_CONTENTION.
 */
#include "deleg_env.h"

#include <sys/wait.h>

static const struct nfs4_stateid anon; /* the anonymous stateid */

/* A's write delegation of name, opened for both as owner "a-owner". */
static void wdeleg_of(struct env *e, const char *name, struct nfs4_stateid *dsid, struct fh *fh,
		      struct nfs4_stateid *osid)
{
	uint32_t dtype = 99;
	mkfile(&e->a, name);
	assert_int_equal(open_file(&e->a, "a-owner", name, OPEN4_SHARE_ACCESS_BOTH, osid, &dtype,
				   dsid, fh),
			 NFS4_OK);
	assert_int_equal(dtype, OPEN_DELEGATE_WRITE);
}

/* WRITE of "data!" at offset 0 on fh with sid, by cl: the status. */
static uint32_t write_op(struct cl *cl, const struct fh *fh, const struct nfs4_stateid *sid)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_WRITE);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, UNSTABLE4);
	xdr_put_opaque(&f->rq.x, "data!", 5);
	return fx_call(f);
}

static uint32_t commit_op(struct cl *cl, const struct fh *fh)
{
	struct fx *f = cl->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_COMMIT);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u32(&f->rq.x, 0);
	return fx_call(f);
}

static void test_holder(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid, o2, d2;
	struct fh fh, fh2;
	uint32_t dt;
	wdeleg_of(e, "w", &dsid, &fh, &osid);
	assert_int_equal(write_op(&e->a, &fh, &dsid), NFS4_OK);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	assert_int_equal(write_op(&e->a, &fh, &osid), NFS4_OK);
	assert_int_equal(commit_op(&e->a, &fh), NFS4_OK);
	/* the holder opens it again, another owner, either way */
	assert_int_equal(open_file(&e->a, "a-2", "w", OPEN4_SHARE_ACCESS_READ, &o2, &dt, &d2, &fh2),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK);
	assert_int_equal(e->a.nrecall, 0);
	/* B opening it, even for reading: recalled */
	assert_int_equal(open_file(&e->b, "b1", "w", OPEN4_SHARE_ACCESS_READ, &o2, &dt, &d2, &fh2),
			 NFS4ERR_DELAY);
	recall_and_return(e, 1, &dsid, &fh);
	assert_int_equal(open_file(&e->b, "b1", "w", OPEN4_SHARE_ACCESS_READ, &o2, &dt, &d2, &fh2),
			 NFS4_OK);
	/* what A wrote is there */
	char p[160], buf[8] = { 0 };
	snprintf(p, sizeof(p), "%s/w", e->a.f->dir);
	int fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, 5), 5);
	close(fd);
	assert_string_equal(buf, "data!");
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 1);
	assert_int_equal(counter(e, "deleg_granted_write"), 1);
	assert_int_equal(counter(e, "cb_recall"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

/* B's operation k on file name (fh): READ, WRITE, SETATTR of the size
 * (anonymous stateid), REMOVE, RENAME, SETATTR of the mode. */
static uint32_t b_op(struct env *e, int k, const char *name, const struct fh *fh)
{
	struct fx *b = e->b.f;
	if (k == 0)
		return sid_op(&e->b, fh, OP_READ, &anon);
	if (k == 1)
		return write_op(&e->b, fh, &anon);
	fx_seq(b);
	if (k == 2) {
		req_op(&b->rq, OP_PUTFH);
		put_fh(&b->rq.x, fh);
		req_op(&b->rq, OP_SETATTR);
		put_stateid(&b->rq.x, &anon);
		put_bitmap(&b->rq.x, W0(FATTR4_SIZE), 0, 0);
		xdr_put_u32(&b->rq.x, 8);
		xdr_put_u64(&b->rq.x, 0);
	} else if (k == 5) {
		req_op(&b->rq, OP_PUTFH);
		put_fh(&b->rq.x, fh);
		req_op(&b->rq, OP_SETATTR);
		put_stateid(&b->rq.x, &anon);
		put_bitmap(&b->rq.x, 0, W1(FATTR4_MODE), 0);
		xdr_put_u32(&b->rq.x, 4);
		xdr_put_u32(&b->rq.x, 0600);
	} else if (k == 3) {
		req_op(&b->rq, OP_PUTROOTFH);
		req_op(&b->rq, OP_REMOVE);
		put_str(&b->rq.x, name);
	} else {
		req_op(&b->rq, OP_PUTROOTFH);
		req_op(&b->rq, OP_SAVEFH);
		req_op(&b->rq, OP_RENAME);
		put_str(&b->rq.x, name);
		put_str(&b->rq.x, "renamed");
	}
	return fx_call(b);
}

static void test_recalled_by_others(void **state)
{
	struct env *e = *state;
	for (int k = 0; k < 6; k++) {
		struct nfs4_stateid dsid, osid;
		struct fh fh;
		char name[8];
		snprintf(name, sizeof(name), "r%d", k);
		wdeleg_of(e, name, &dsid, &fh, &osid);
		assert_int_equal(b_op(e, k, name, &fh), NFS4ERR_DELAY);
		recall_and_return(e, (unsigned)k + 1, &dsid, &fh);
		assert_int_equal(b_op(e, k, name, &fh), NFS4_OK);
	}
	/* B's GETATTR of neither: no recall */
	struct nfs4_stateid dsid, osid;
	struct fh fh;
	wdeleg_of(e, "g", &dsid, &fh, &osid);
	fx_seq(e->b.f);
	req_op(&e->b.f->rq, OP_PUTFH);
	put_fh(&e->b.f->rq.x, &fh);
	req_op(&e->b.f->rq, OP_GETATTR);
	put_bitmap(&e->b.f->rq.x, W0(FATTR4_TYPE) | W0(FATTR4_FILEID), 0, 0);
	assert_int_equal(fx_call(e->b.f), NFS4_OK);
	assert_int_equal(e->a.nrecall, 6);
	assert_int_equal(e->a.ngetattr, 0);
	stop(e);
	assert_int_equal(counter(e, "cb_recall"), 6);
	assert_int_equal(counter(e, "deleg_returned"), 6);
}

/* B's GETATTR of change and size of fh: the status; on NFS4_OK both. */
static uint32_t b_getattr(struct env *e, const struct fh *fh, uint64_t *change, uint64_t *size)
{
	struct fx *b = e->b.f;
	fx_seq(b);
	req_op(&b->rq, OP_PUTFH);
	put_fh(&b->rq.x, fh);
	req_op(&b->rq, OP_GETATTR);
	put_bitmap(&b->rq.x, W0(FATTR4_CHANGE) | W0(FATTR4_SIZE), 0, 0);
	uint32_t st = fx_call(b);
	if (st != NFS4_OK)
		return st;
	fx_seq_ok(b);
	assert_int_equal(rep_op(&b->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&b->rp, OP_GETATTR), NFS4_OK);
	assert_int_equal(xdr_get_u32(&b->rp.x), 1);
	assert_int_equal(xdr_get_u32(&b->rp.x), W0(FATTR4_CHANGE) | W0(FATTR4_SIZE));
	assert_int_equal(xdr_get_u32(&b->rp.x), 16);
	*change = xdr_get_u64(&b->rp.x);
	*size = xdr_get_u64(&b->rp.x);
	assert_false(b->rp.x.bad);
	return st;
}

/* b_getattr once the holder's answer has been taken in (the server
 * handles it on its loop: a liveness bound of 5 s). */
static uint32_t b_getattr_after(struct env *e, const struct fh *fh, uint64_t *change,
				uint64_t *size)
{
	uint32_t st = NFS4ERR_DELAY;
	for (int i = 0; st == NFS4ERR_DELAY && i < 500; i++) {
		if (i)
			usleep(10 * 1000);
		st = b_getattr(e, fh, change, size);
	}
	return st;
}

static void test_cb_getattr(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid;
	struct fh fh;
	uint64_t ch0, sz0, ch, sz, ch2;
	wdeleg_of(e, "g", &dsid, &fh, &osid);
	(void)ch0, (void)sz0;
	/* the file's own attributes: B asks before A has written */
	e->a.ga_status = NFS4_OK;
	e->a.ga_size = 5;
	/* (A's change attribute as the server gave it: unknown here; any
	 * value differing from the file's means "modified") */
	e->a.ga_change = 1;
	assert_int_equal(b_getattr(e, &fh, &ch, &sz), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.ngetattr, 1);
	assert_int_equal(b_getattr_after(e, &fh, &ch, &sz), NFS4_OK);
	assert_int_equal(sz, 5);
	/* A wrote: 12345 bytes, its change attribute moved */
	e->a.ga_size = 12345;
	e->a.ga_change = 2;
	assert_int_equal(b_getattr(e, &fh, &ch2, &sz), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.ngetattr, 2);
	assert_int_equal(b_getattr_after(e, &fh, &ch2, &sz), NFS4_OK);
	assert_int_equal(sz, 12345);
	assert_true(ch2 > ch);
	/* the same answer again: the same change attribute */
	assert_int_equal(b_getattr(e, &fh, &ch, &sz), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.ngetattr, 3);
	assert_int_equal(b_getattr_after(e, &fh, &ch, &sz), NFS4_OK);
	assert_true(ch == ch2);
	assert_int_equal(e->a.nrecall, 0);
	/* A cannot answer: recalled */
	e->a.ga_status = NFS4ERR_BADHANDLE;
	assert_int_equal(b_getattr(e, &fh, &ch, &sz), NFS4ERR_DELAY);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_memory_equal(e->a.recalled.other, dsid.other, 12);
	assert_int_equal(e->a.cb_seq, 5); /* 4 CB_GETATTRs, then the recall */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(e->a.ngetattr, 4);
	assert_int_equal(b_getattr_after(e, &fh, &ch, &sz), NFS4_OK);
	assert_int_equal(sz, 5);
	stop(e);
	assert_int_equal(counter(e, "cb_recall"), 1);
	assert_int_equal(counter(e, "cb_getattr"), 4);
}

/* A local reader: its open(2) breaks the write lease and waits for the
 * DELEGRETURN. */
static void test_local_reader(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid;
	struct fh fh;
	wdeleg_of(e, "l", &dsid, &fh, &osid);
	char path[160];
	snprintf(path, sizeof(path), "%s/l", e->a.f->dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		_exit(fd >= 0 ? 0 : 1);
	}
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_memory_equal(e->a.recalled.other, dsid.other, 12);
	int st;
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* blocked */
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	stop(e);
	assert_true(counter(e, "lease_breaks") >= 1);
}

/* B has the file open: A's OPEN for both gets no write delegation. */
static void test_contention(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid o, d;
	struct fh fh;
	uint32_t dt, why;
	mkfile(&e->a, "c");
	assert_int_equal(open_file(&e->b, "b1", "c", OPEN4_SHARE_ACCESS_READ, &o, &dt, &d, &fh),
			 NFS4_OK);
	assert_int_equal(open_file_why(&e->a, "a1", "c",
				       OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_ANY_DELEG, &o,
				       &dt, &d, &fh, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_CONTENTION);
	assert_int_equal(open_file_why(&e->a, "a1", "c",
				       OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
				       &o, &dt, &d, &fh, &why),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_NOT_SUPP_DOWNGRADE);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recalled_by_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_reader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_contention, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cb_getattr, setup, teardown),
	};
	return deleg_run(argc, argv, tests);
}
