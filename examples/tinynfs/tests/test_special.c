/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * No operation may block the service (issue #23, item 2).  The tinynfs
 * program (argv[1]) serves a directory holding a FIFO, a unix socket, a
 * character and a block device (as root), a directory, a symbolic link to
 * the FIFO, and a regular file under a read lease that the test holds.
 * Over one loopback TCP connection the test sends, for each of them, every
 * operation that could open the file or wait on its content: OPEN (read,
 * write, both; no create, UNCHECKED4 and GUARDED4 create, CLAIM_FH), READ,
 * WRITE and SETATTR of the size with the anonymous stateid, COMMIT,
 * GETATTR, ACCESS, SETATTR of the mode, READDIR, LINK, RENAME, REMOVE.
 * While each call is outstanding, another connection must be answered;
 * then the call's status must be the one RFC 8881 gives: OPEN of a
 * symbolic link NFS4ERR_SYMLINK, of a directory NFS4ERR_ISDIR, of another
 * non-regular file NFS4ERR_WRONG_TYPE (18.16.3); I/O on a non-regular
 * file NFS4ERR_INVAL (a directory: NFS4ERR_ISDIR); and a write open of the
 * leased file NFS4ERR_DELAY instead of waiting for the lease break.
 */
#include "tnfsproc.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

static const char *tinynfs_path;
static const struct nfs4_stateid zero_sid = { 0, { 0 } };

struct env {
	struct fx *f;
	struct tnfsproc p;
	struct tnfsconn a, b; /* the caller, and a bystander */
	int lease_fd;
	int sock_fd;
	bool root;
};

static void path_in(const struct env *e, const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s", e->f->dir, name);
}

/* The special files, and the leased regular file. */
static void populate(struct env *e)
{
	char p[160];
	path_in(e, "fifo", p, sizeof(p));
	assert_int_equal(mkfifo(p, 0666), 0);
	path_in(e, "sock", p, sizeof(p));
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	assert_true(strlen(p) < sizeof(su.sun_path));
	strcpy(su.sun_path, p);
	e->sock_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(e->sock_fd >= 0);
	assert_int_equal(bind(e->sock_fd, (struct sockaddr *)&su, sizeof(su)), 0);
	assert_int_equal(listen(e->sock_fd, 1), 0);
	path_in(e, "dir", p, sizeof(p));
	assert_int_equal(mkdir(p, 0777), 0);
	path_in(e, "link", p, sizeof(p));
	assert_int_equal(symlink("fifo", p), 0);
	e->root = geteuid() == 0;
	if (e->root) {
		path_in(e, "chr", p, sizeof(p));
		assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0); /* null */
		path_in(e, "blk", p, sizeof(p));
		assert_int_equal(mknod(p, S_IFBLK | 0666, makedev(7, 0)), 0); /* loop0 */
	} else {
		print_message("not root: no device nodes (mknod needs CAP_MKNOD); "
			      "FIFO, socket, directory and link only\n");
	}
	path_in(e, "leased", p, sizeof(p));
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fputs("leased\n", fp);
	fclose(fp);
	assert_int_equal(chmod(p, 0666), 0);
	e->lease_fd = open(p, O_RDONLY);
	assert_true(e->lease_fd >= 0);
	assert_int_equal(fcntl(e->lease_fd, F_SETLEASE, F_RDLCK), 0);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	e->f = f;
	strcpy(f->dir, "/tmp/tinynfs-special-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(chmod(f->dir, 0777), 0);
	populate(e);
	f->rp.buf = malloc(BUFSZ);
	assert_non_null(f->rp.buf);
	f->minor = 1;
	tnfsproc_start(&e->p, tinynfs_path, f->dir, "rw,no_root_squash");
	tnfsconn_open(&e->a, &e->p, 0, 0);
	tnfsconn_open(&e->b, &e->p, 1000, 1000);
	f->call = tnfsconn_fx_call;
	f->call_arg = &e->a;
	fx_mount(f);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	/* A server stuck in open(2) of the FIFO (the bug) is let go: an
	 * O_RDWR open of a FIFO supplies both ends and does not block. */
	char p[160];
	path_in(e, "fifo", p, sizeof(p));
	int k = open(p, O_RDWR | O_NONBLOCK);
	close(e->lease_fd);
	tnfsconn_close(&e->a);
	tnfsconn_close(&e->b);
	tnfsproc_stop(&e->p);
	if (k >= 0)
		close(k);
	close(e->sock_fd);
	fx_free(e->f);
	free(e);
	return 0;
}

/* Sends the built COMPOUND on the caller's connection; while it is
 * outstanding the bystander's NULL call must be answered; then reads the
 * COMPOUND's reply and returns its status. */
static uint32_t call_while_other_served(struct env *e)
{
	struct fx *f = e->f;
	tnfsconn_send(&e->a, 1, f->rq.buf, req_len(&f->rq));
	tnfsconn_null(&e->b);
	size_t off = tnfsconn_reply(&e->a);
	f->rp.len = e->a.rec_len - off;
	memcpy(f->rp.buf, e->a.rec + off, f->rp.len);
	return rep_begin(&f->rp);
}

/* PUTROOTFH, OPEN of name by CLAIM_NULL; createmode UINT32_MAX: no
 * create. */
static uint32_t open_null(struct env *e, const char *name, uint32_t access, uint32_t createmode)
{
	struct fx *f = e->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	struct xdr_out *x = &f->rq.x;
	xdr_put_u32(x, 0);
	xdr_put_u32(x, access);
	xdr_put_u32(x, OPEN4_SHARE_DENY_NONE);
	xdr_put_u64(x, f->clientid);
	put_str(x, "special-owner");
	if (createmode == UINT32_MAX) {
		xdr_put_u32(x, OPEN4_NOCREATE);
	} else {
		xdr_put_u32(x, OPEN4_CREATE);
		xdr_put_u32(x, createmode);
		put_bitmap(x, 0, 0, 0);
		xdr_put_u32(x, 0);
	}
	xdr_put_u32(x, CLAIM_NULL);
	put_str(x, name);
	uint32_t st = call_while_other_served(e);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_OPEN), st);
	return st;
}

/* Starts SEQUENCE, PUTROOTFH, LOOKUP name; the caller adds one op. */
static void at(struct env *e, const char *name)
{
	struct fx *f = e->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, name);
}

/* Sends what at() began plus one op; returns that op's status. */
static uint32_t at_end(struct env *e, uint32_t op)
{
	struct fx *f = e->f;
	uint32_t st = call_while_other_served(e);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, op), st);
	return st;
}

static uint32_t open_fh(struct env *e, const char *name, uint32_t access)
{
	struct xdr_out *x = &e->f->rq.x;
	at(e, name);
	req_op(&e->f->rq, OP_OPEN);
	xdr_put_u32(x, 0);
	xdr_put_u32(x, access);
	xdr_put_u32(x, OPEN4_SHARE_DENY_NONE);
	xdr_put_u64(x, e->f->clientid);
	put_str(x, "special-owner");
	xdr_put_u32(x, OPEN4_NOCREATE);
	xdr_put_u32(x, CLAIM_FH);
	return at_end(e, OP_OPEN);
}

static uint32_t data_op(struct env *e, const char *name, uint32_t op)
{
	struct xdr_out *x = &e->f->rq.x;
	at(e, name);
	req_op(&e->f->rq, op);
	if (op == OP_COMMIT) {
		xdr_put_u64(x, 0);
		xdr_put_u32(x, 0);
		return at_end(e, op);
	}
	put_stateid(x, &zero_sid);
	if (op == OP_SETATTR) {
		put_bitmap(x, W0(FATTR4_SIZE), 0, 0);
		xdr_put_u32(x, 8);
		xdr_put_u64(x, 0);
		return at_end(e, op);
	}
	xdr_put_u64(x, 0);
	if (op == OP_WRITE) {
		xdr_put_u32(x, FILE_SYNC4);
		xdr_put_opaque(x, "data", 4);
	} else {
		xdr_put_u32(x, 64);
	}
	return at_end(e, op);
}

/* GETATTR, ACCESS and SETATTR of the mode: served without an open. */
static void attr_ops(struct env *e, const char *name, bool is_link)
{
	struct xdr_out *x = &e->f->rq.x;
	at(e, name);
	req_op(&e->f->rq, OP_GETATTR);
	put_bitmap(x, W0(FATTR4_TYPE) | W0(FATTR4_SIZE), W1(FATTR4_MODE) | W1(FATTR4_SPACE_USED), 0);
	assert_int_equal(at_end(e, OP_GETATTR), NFS4_OK);
	at(e, name);
	req_op(&e->f->rq, OP_ACCESS);
	xdr_put_u32(x, ACCESS4_READ | ACCESS4_MODIFY);
	assert_int_equal(at_end(e, OP_ACCESS), NFS4_OK);
	at(e, name);
	req_op(&e->f->rq, OP_SETATTR);
	put_stateid(x, &zero_sid);
	put_bitmap(x, 0, W1(FATTR4_MODE), 0);
	xdr_put_u32(x, 4);
	xdr_put_u32(x, 0666);
	assert_int_equal(at_end(e, OP_SETATTR), is_link ? NFS4ERR_INVAL : NFS4_OK);
}

/* Every operation above on one name; open_st is what OPEN must answer,
 * io_st what READ, WRITE, SETATTR of the size and COMMIT must. */
static void attack(struct env *e, const char *name, uint32_t open_st, uint32_t io_st)
{
	static const uint32_t acc[] = { OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_ACCESS_WRITE,
					OPEN4_SHARE_ACCESS_BOTH };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(open_null(e, name, acc[i], UINT32_MAX), open_st);
		assert_int_equal(open_null(e, name, acc[i], UNCHECKED4), open_st);
		assert_int_equal(open_null(e, name, acc[i], GUARDED4), NFS4ERR_EXIST);
		assert_int_equal(open_fh(e, name, acc[i]), open_st);
	}
	assert_int_equal(data_op(e, name, OP_READ), io_st);
	assert_int_equal(data_op(e, name, OP_WRITE), io_st);
	assert_int_equal(data_op(e, name, OP_SETATTR), io_st);
	assert_int_equal(data_op(e, name, OP_COMMIT), io_st);
	attr_ops(e, name, open_st == NFS4ERR_SYMLINK);
}

static void test_special_files(void **state)
{
	struct env *e = *state;
	attack(e, "fifo", NFS4ERR_WRONG_TYPE, NFS4ERR_INVAL);
	attack(e, "sock", NFS4ERR_WRONG_TYPE, NFS4ERR_INVAL);
	if (e->root) {
		attack(e, "chr", NFS4ERR_WRONG_TYPE, NFS4ERR_INVAL);
		attack(e, "blk", NFS4ERR_WRONG_TYPE, NFS4ERR_INVAL);
	}
	attack(e, "link", NFS4ERR_SYMLINK, NFS4ERR_INVAL);
	attack(e, "dir", NFS4ERR_ISDIR, NFS4ERR_ISDIR);

	/* READDIR lists them without opening any */
	struct fx *f = e->f;
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_READDIR);
	put_readdir(&f->rq.x, 0, 8192, 32768, W0(FATTR4_TYPE) | W0(FATTR4_FILEHANDLE),
		    W1(FATTR4_MODE), 0);
	assert_int_equal(call_while_other_served(e), NFS4_OK);

	/* LINK, RENAME, REMOVE of the FIFO: names only */
	at(e, "fifo");
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LINK);
	put_str(&f->rq.x, "fifo2");
	req_op(&f->rq, OP_SAVEFH);
	req_op(&f->rq, OP_RENAME);
	put_str(&f->rq.x, "fifo2");
	put_str(&f->rq.x, "fifo3");
	req_op(&f->rq, OP_REMOVE);
	put_str(&f->rq.x, "fifo3");
	assert_int_equal(call_while_other_served(e), NFS4_OK);
	attack(e, "fifo", NFS4ERR_WRONG_TYPE, NFS4ERR_INVAL);
}

/* A regular file whose read lease the test holds: an open for writing
 * (or a truncate) would wait up to lease-break-time (45 s by default)
 * for the holder; tinynfs answers NFS4ERR_DELAY instead, and reads. */
static void test_lease(void **state)
{
	struct env *e = *state;
	assert_int_equal(open_null(e, "leased", OPEN4_SHARE_ACCESS_WRITE, UINT32_MAX), NFS4ERR_DELAY);
	assert_int_equal(open_null(e, "leased", OPEN4_SHARE_ACCESS_BOTH, UNCHECKED4), NFS4ERR_DELAY);
	assert_int_equal(open_fh(e, "leased", OPEN4_SHARE_ACCESS_BOTH), NFS4ERR_DELAY);
	assert_int_equal(data_op(e, "leased", OP_WRITE), NFS4ERR_DELAY);
	assert_int_equal(data_op(e, "leased", OP_SETATTR), NFS4ERR_DELAY);
	assert_int_equal(data_op(e, "leased", OP_READ), NFS4_OK);
	assert_int_equal(open_null(e, "leased", OPEN4_SHARE_ACCESS_READ, UINT32_MAX), NFS4_OK);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-tinynfs-special PATH-TO-TINYNFS\n");
		return 2;
	}
	tinynfs_path = argv[1];
	signal(SIGPIPE, SIG_IGN);
	signal(SIGIO, SIG_IGN); /* the lease break's notice */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_special_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lease, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
