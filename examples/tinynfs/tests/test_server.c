/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tinynfs program end to end on loopback: starts the real binary
 * (argv[1]) on a fresh directory with port 0, and talks ONC RPC to it with
 * the small client below (record marking over TCP, datagrams over UDP,
 * AUTH_SYS credentials).  Checks: NULL over IPv4 and IPv6; a whole NFSv4.1
 * session over TCP (EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE,
 * PUTROOTFH + GETATTR, OPEN create, WRITE FILE_SYNC, READ, CLOSE) with the
 * file's bytes and owner checked on disk; a 768 KiB WRITE and READ; the
 * RPC-level refusals (NFSv4 over UDP: PROG_MISMATCH; version 3 over TCP:
 * PROG_MISMATCH 4..4; another program: PROG_UNAVAIL; a COMPOUND header
 * that does not decode: GARBAGE_ARGS); one client flooding OPENs on a
 * server started with 256 descriptors while another is still served;
 * the server raising its hard open-file limit to fs.nr_open when it may,
 * its delegation table sized from that and memory, said at start-up;
 * and a clean SIGTERM exit whose counters show no estimate exceeded.
 */
#include "nfstest.h"
#include "tnfsproc.h"

#include <errno.h>

#define TEST_UID 4321u
#define TEST_GID 4322u

static const char *tinynfs_path;
/* RLIMIT_NOFILE (soft and hard) the server is started with; 0: inherited */
static rlim_t server_nofile;

struct env {
	struct fx *f;
	struct tnfsproc p;
	struct tnfsconn c; /* TCP to 127.0.0.1 */
};

/* A connection as the test's AUTH_SYS caller (groups: its gid and 100). */
static void conn_open(struct tnfsconn *c, int family, int type, unsigned port)
{
	tnfsconn_open_at(c, family, type, port, TEST_UID, TEST_GID);
	c->ngroups = 2;
	c->groups[0] = TEST_GID;
	c->groups[1] = 100;
}

/* One bodyless call over TCP; returns accept_stat. */
static uint32_t tcp_simple(struct tnfsconn *c, uint32_t prog, uint32_t vers, uint32_t proc,
			   uint32_t *low, uint32_t *high)
{
	uint8_t msg[256];
	struct xdr_out x;
	xdr_out_init(&x, msg, sizeof(msg));
	tnfsconn_put_call_hdr(&x, c, prog, vers, proc);
	tnfsconn_send_record(c, msg, (size_t)(x.p - msg));
	tnfsconn_recv_record(c);
	struct xdr_in in;
	return tnfsconn_reply_hdr(c, &in, low, high);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	e->f = tnfsproc_fx_new("/tmp/tinynfs-srv-XXXXXX");
	e->f->call = tnfsconn_fx_call;
	e->f->call_arg = &e->c;
	tnfsproc_start_ex(&e->p, tinynfs_path, e->f->dir, "rw,no_root_squash", true,
			  server_nofile);
	assert_true(e->p.udp_port == e->p.tcp_port);
	assert_non_null(strstr(e->p.log, "listening tcp ::1 "));
	conn_open(&e->c, AF_INET, SOCK_STREAM, e->p.tcp_port);
	*state = e;
	return 0;
}

/* SIGTERM: exit 0 and the counters line. */
static int teardown(void **state)
{
	struct env *e = *state;
	tnfsconn_close(&e->c);
	tnfsproc_stop(&e->p);
	assert_non_null(strstr(e->p.log, "tinynfs: SIGTERM, stopping"));
	assert_non_null(strstr(e->p.log, "system_err 0,"));
	fx_free(e->f);
	free(e);
	return 0;
}

static void test_null(void **state)
{
	struct env *e = *state;
	uint32_t lo = 0, hi = 0;
	assert_int_equal(tcp_simple(&e->c, 100003, 4, 0, &lo, &hi), 0);
	assert_int_equal(e->c.rec_len, 24); /* header only: void result */
	/* the same over IPv6 loopback */
	struct tnfsconn c6;
	conn_open(&c6, AF_INET6, SOCK_STREAM, e->p.tcp_port);
	assert_int_equal(tcp_simple(&c6, 100003, 4, 0, &lo, &hi), 0);
	tnfsconn_close(&c6);
}

static void test_refusals(void **state)
{
	struct env *e = *state;
	uint32_t lo = 0, hi = 0;
	/* version 3 over TCP: PROG_MISMATCH 4..4 */
	assert_int_equal(tcp_simple(&e->c, 100003, 3, 0, &lo, &hi), 2);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 4);
	/* another program: PROG_UNAVAIL */
	assert_int_equal(tcp_simple(&e->c, 100005, 3, 0, &lo, &hi), 1);
	/* procedure 2: PROC_UNAVAIL */
	assert_int_equal(tcp_simple(&e->c, 100003, 4, 2, &lo, &hi), 3);
	/* a COMPOUND whose tag length runs past the end: GARBAGE_ARGS */
	uint8_t msg[256];
	struct xdr_out x;
	xdr_out_init(&x, msg, sizeof(msg));
	tnfsconn_put_call_hdr(&x, &e->c, 100003, 4, 1);
	xdr_put_u32(&x, 4000);
	xdr_put_u32(&x, 1);
	xdr_put_u32(&x, 0);
	tnfsconn_send_record(&e->c, msg, (size_t)(x.p - msg));
	tnfsconn_recv_record(&e->c);
	struct xdr_in in;
	assert_int_equal(tnfsconn_reply_hdr(&e->c, &in, &lo, &hi), 4);

	/* NFSv4 over UDP: PROG_MISMATCH (it needs congestion control) */
	struct tnfsconn u;
	conn_open(&u, AF_INET, SOCK_DGRAM, e->p.udp_port);
	for (uint32_t proc = 0; proc < 2; proc++) {
		xdr_out_init(&x, msg, sizeof(msg));
		tnfsconn_put_call_hdr(&x, &u, 100003, 4, proc);
		assert_int_equal(send(u.fd, msg, (size_t)(x.p - msg), 0), x.p - msg);
		ssize_t n = recv(u.fd, u.rec, 4096, 0);
		assert_true(n > 0);
		u.rec_len = (size_t)n;
		lo = hi = 0;
		assert_int_equal(tnfsconn_reply_hdr(&u, &in, &lo, &hi), 2);
		assert_int_equal(lo, 4);
		assert_int_equal(hi, 4);
	}
	tnfsconn_close(&u);
}

/* SEQUENCE, PUTFH, READ or WRITE (FILE_SYNC) of len bytes at off. */
static uint32_t io(struct fx *f, const struct fh *fh, uint32_t op,
		   const struct nfs4_stateid *sid, uint64_t off, const void *data, uint32_t len)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, op);
	put_stateid(&f->rq.x, sid);
	xdr_put_u64(&f->rq.x, off);
	if (op == OP_WRITE) {
		xdr_put_u32(&f->rq.x, FILE_SYNC4);
		xdr_put_opaque(&f->rq.x, data, len);
	} else {
		xdr_put_u32(&f->rq.x, len);
	}
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	return st;
}

static void test_session_io(void **state)
{
	struct env *e = *state;
	struct fx *f = e->f;
	fx_mount(f);

	/* PUTROOTFH + GETATTR type, size, mode: a directory */
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_GETATTR);
	put_bitmap(&f->rq.x, W0(FATTR4_TYPE) | W0(FATTR4_SIZE), W1(FATTR4_MODE), 0);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETATTR), NFS4_OK);
	uint32_t w[3];
	struct xdr_opaque al = get_fattr(&f->rp.x, w);
	assert_int_equal(w[0], W0(FATTR4_TYPE) | W0(FATTR4_SIZE));
	assert_int_equal(w[1], W1(FATTR4_MODE));
	assert_int_equal(al.len, 4 + 8 + 4);
	struct xdr_in av;
	xdr_in_init(&av, al.data, al.len);
	assert_int_equal(xdr_get_u32(&av), NF4DIR);
	(void)xdr_get_u64(&av);
	assert_int_equal(xdr_get_u32(&av), 0777);

	/* OPEN (create, UNCHECKED, mode 0640) + GETFH */
	struct nfs4_stateid sid;
	struct fh fh;
	assert_int_equal(fx_open_root(f, "open-owner-1", OPEN4_SHARE_ACCESS_BOTH, true, 0640,
				      "hello", &sid, &fh, NULL),
			 NFS4_OK);

	/* WRITE FILE_SYNC, then READ it back */
	static const char text[] = "tinynfs over TCP, byte for byte\n";
	const uint32_t tlen = (uint32_t)strlen(text);
	assert_int_equal(io(f, &fh, OP_WRITE, &sid, 0, text, tlen), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_WRITE), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), tlen);
	assert_int_equal(xdr_get_u32(&f->rp.x), FILE_SYNC4);
	assert_int_equal(io(f, &fh, OP_READ, &sid, 0, NULL, 4096), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READ), NFS4_OK);
	assert_true(xdr_get_bool(&f->rp.x)); /* eof */
	struct xdr_opaque d = xdr_get_opaque(&f->rp.x, 4096);
	assert_int_equal(d.len, tlen);
	assert_memory_equal(d.data, text, tlen);

	/* 768 KiB written at 4096 and read back: records of many segments */
	const uint32_t big = 768u * 1024u;
	uint8_t *pat = malloc(big);
	assert_non_null(pat);
	for (uint32_t i = 0; i < big; i++)
		pat[i] = (uint8_t)(i * 2654435761u >> 13);
	assert_int_equal(io(f, &fh, OP_WRITE, &sid, 4096, pat, big), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_WRITE), NFS4_OK);
	assert_int_equal(xdr_get_u32(&f->rp.x), big);
	assert_int_equal(io(f, &fh, OP_READ, &sid, 4096, NULL, big), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READ), NFS4_OK);
	assert_true(xdr_get_bool(&f->rp.x));
	d = xdr_get_opaque(&f->rp.x, big);
	assert_int_equal(d.len, big);
	assert_memory_equal(d.data, pat, big);

	/* CLOSE */
	assert_int_equal(fx_close(f, &fh, &sid), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CLOSE), NFS4_OK);

	/* on disk: the bytes, the mode, and (when the server may switch ids)
	 * the AUTH_SYS caller as owner */
	char path[128];
	snprintf(path, sizeof(path), "%s/hello", f->dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 4096 + big);
	assert_int_equal(st.st_mode & 07777, 0640);
	if (geteuid() == 0) {
		assert_int_equal(st.st_uid, TEST_UID);
		assert_int_equal(st.st_gid, TEST_GID);
	}
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	uint8_t *disk = malloc(4096 + big);
	assert_non_null(disk);
	assert_int_equal(fread(disk, 1, 4096 + big, fp), 4096 + big);
	fclose(fp);
	assert_memory_equal(disk, text, tlen);
	for (uint32_t i = tlen; i < 4096; i++)
		assert_int_equal(disk[i], 0);
	assert_memory_equal(disk + 4096, pat, big);
	free(disk);
	free(pat);
}

/* SEQUENCE + PUTROOTFH + OPEN (create) of `name`; returns OPEN's status
 * (PUTROOTFH's if that failed), *sid and *fh on NFS4_OK. */
static uint32_t open_create(struct fx *f, const char *name, struct nfs4_stateid *sid,
			    struct fh *fh)
{
	uint32_t root_st;
	return fx_open_root(f, "flood-owner", OPEN4_SHARE_ACCESS_BOTH, true, 0644, name, sid, fh,
			    &root_st);
}

static int setup_few_fds(void **state)
{
	server_nofile = 256;
	int rc = setup(state);
	server_nofile = 0;
	return rc;
}

/* One client OPENs files until refused, on a server with 256 descriptors:
 * it is refused (NFS4ERR_DELAY) at its own share, and a second client, on
 * its own connection, is still served PUTROOTFH, OPEN, WRITE and READ. */
static void test_fd_flood(void **state)
{
	struct env *e = *state;
	struct fx *f = e->f;
	fx_mount_as(f, "descriptor flooder");
	struct nfs4_stateid sid;
	struct fh fh;
	char name[32];
	uint32_t st;
	unsigned n = fx_open_flood(f, open_create, 300, &st);
	assert_int_equal(st, NFS4ERR_DELAY);
	assert_true(n <= 256 / 4); /* its share, well short of the process's limit */
	/* still refused: the share does not move by asking again */
	assert_int_equal(open_create(f, "flood-again", &sid, &fh), NFS4ERR_DELAY);
	printf("descriptor flood: the flooder got %u OPENs of 256 descriptors, "
	       "then NFS4ERR_DELAY\n", n);

	struct tnfsconn by;
	conn_open(&by, AF_INET, SOCK_STREAM, e->p.tcp_port);
	f->call_arg = &by;
	fx_mount_as(f, "bystander");
	for (unsigned i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "bystander-%u", i);
		assert_int_equal(open_create(f, name, &sid, &fh), NFS4_OK);
	}
	static const char text[] = "served beside a flood";
	const uint32_t tlen = (uint32_t)strlen(text);
	assert_int_equal(io(f, &fh, OP_WRITE, &sid, 0, text, tlen), NFS4_OK);
	assert_int_equal(io(f, &fh, OP_READ, &sid, 0, NULL, 4096), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_READ), NFS4_OK);
	assert_true(xdr_get_bool(&f->rp.x));
	struct xdr_opaque d = xdr_get_opaque(&f->rp.x, 4096);
	assert_int_equal(d.len, tlen);
	assert_memory_equal(d.data, text, tlen);
	tnfsconn_close(&by);
	f->call_arg = &e->c;
}

/* EXCHANGE_ID of "tcp owner" with the given flags. */
static uint32_t tcp_exchange_id(struct fx *f, uint32_t flags, uint64_t *cid, uint32_t *seq)
{
	fx_begin(f);
	req_op(&f->rq, OP_EXCHANGE_ID);
	xdr_put_u64(&f->rq.x, 42);
	put_str(&f->rq.x, "tcp owner");
	xdr_put_u32(&f->rq.x, flags);
	xdr_put_u32(&f->rq.x, SP4_NONE);
	xdr_put_u32(&f->rq.x, 0);
	uint32_t st = fx_call(f);
	if (st == NFS4_OK) {
		assert_int_equal(rep_op(&f->rp, OP_EXCHANGE_ID), NFS4_OK);
		*cid = xdr_get_u64(&f->rp.x);
		*seq = xdr_get_u32(&f->rp.x);
	}
	return st;
}

static uint32_t tcp_create_session(struct fx *f, uint64_t cid, uint32_t seq)
{
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, cid, seq);
	return fx_call(f);
}

/* The principal of a client record is the AUTH_SYS credential of the
 * RPC call that made it (uid, gid, groups; AUTH_NONE is another). */
static void test_principal(void **state)
{
	struct env *e = *state;
	struct fx *f = e->f;
	uint64_t cid, cid2;
	uint32_t seq, seq2;
	assert_int_equal(tcp_exchange_id(f, 0, &cid, &seq), NFS4_OK);
	e->c.uid = TEST_UID + 1;
	assert_int_equal(tcp_create_session(f, cid, seq), NFS4ERR_CLID_INUSE);
	e->c.uid = UINT32_MAX;
	assert_int_equal(tcp_create_session(f, cid, seq), NFS4ERR_CLID_INUSE);
	e->c.uid = TEST_UID;
	assert_int_equal(tcp_create_session(f, cid, seq), NFS4_OK);
	e->c.uid = TEST_UID + 1;
	assert_int_equal(tcp_exchange_id(f, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &cid2, &seq2),
			 NFS4ERR_PERM);
	assert_int_equal(tcp_exchange_id(f, 0, &cid2, &seq2), NFS4ERR_CLID_INUSE);
	e->c.uid = TEST_UID;
	assert_int_equal(tcp_exchange_id(f, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &cid2, &seq2),
			 NFS4_OK);
	assert_true(cid2 == cid);
}

static unsigned long long nr_open(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &n), 1);
	fclose(f);
	return n;
}

/* May this process raise its hard open-file limit (CAP_SYS_RESOURCE)?
 * Tried in a child, which exits. */
static bool may_raise_hard(rlim_t to)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit up = { to, to };
		_exit(setrlimit(RLIMIT_NOFILE, &up) == 0 ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The server (started with the test's limits) raises its hard limit up
 * to fs.nr_open when it may (root with CAP_SYS_RESOURCE; else it keeps
 * the hard one), and sizes the delegation table from that and memory as
 * nfsd's: an eighth, at most 4 per MiB and TNFS_MAX_DELEGS (16384), a
 * quarter of it a client's share.  Said at start-up with the limit.
 * (Before: the hard limit stayed, and the figure was not said.) */
static void test_nofile_raised(void **state)
{
	struct env *e = *state;
	unsigned max = 0, share = 0;
	unsigned long long nofile = 0, want = nr_open();
	const char *l = strstr(e->p.log, "tinynfs: delegations: at most ");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "tinynfs: delegations: at most %u, a share of %u per client "
				   "(an eighth of the open-file limit, %llu;",
				&max, &share, &nofile),
			 3);
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	bool up = rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max &&
		  may_raise_hard((rlim_t)want);
	print_message("open-file limit: hard %llu, fs.nr_open %llu, the server's %llu (%s)\n",
		      (unsigned long long)rl.rlim_max, want, nofile,
		      up ? "raised" : "no CAP_SYS_RESOURCE: kept");
	if (!up)
		want = rl.rlim_max;
	assert_int_equal(nofile, want);
	unsigned long long mem = (unsigned long long)sysconf(_SC_PHYS_PAGES) *
				 (unsigned long long)sysconf(_SC_PAGESIZE) >> 20;
	unsigned long long m = want / 8;
	if (m > 16384)
		m = 16384;
	if (m > mem * 4)
		m = mem * 4;
	assert_int_equal(max, m);
	assert_int_equal(share, m / 4);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-tinynfs-server PATH-TO-TINYNFS\n");
		return 2;
	}
	tinynfs_path = argv[1];
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_principal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_flood, setup_few_fds, teardown),
		cmocka_unit_test_setup_teardown(test_nofile_raised, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
