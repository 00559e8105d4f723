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
 * and a clean SIGTERM exit whose counters show no estimate exceeded.
 */
#include "nfstest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define TEST_UID 4321u
#define TEST_GID 4322u

static const char *tinynfs_path;
/* RLIMIT_NOFILE (soft and hard) the server is started with; 0: inherited */
static rlim_t server_nofile;

struct proc {
	pid_t pid;
	int out; /* the server's stdout */
	unsigned tcp_port, udp_port;
	int fd;	 /* TCP connection to 127.0.0.1 */
	uint32_t xid;
	uint32_t uid, gid;
	uint8_t *rec; /* last reply record */
	size_t rec_len;
	char log[8192];
	size_t log_len;
};

/* Reads the server's stdout until a line starting with `until` (or EOF),
 * keeping it in p->log; -1 after 20 s. */
static int read_log(struct proc *p, const char *until)
{
	for (;;) {
		p->log[p->log_len] = 0;
		char *line = p->log;
		while (until && line && *line) {
			if (strncmp(line, until, strlen(until)) == 0 && strchr(line, '\n'))
				return 0;
			line = strchr(line, '\n');
			if (line)
				line++;
		}
		struct pollfd pfd = { .fd = p->out, .events = POLLIN };
		if (poll(&pfd, 1, 20000) != 1)
			return -1;
		ssize_t n = read(p->out, p->log + p->log_len, sizeof(p->log) - 1 - p->log_len);
		if (n <= 0)
			return until ? -1 : 0;
		p->log_len += (size_t)n;
	}
}

static void start(struct proc *p, const char *dir)
{
	memset(p, 0, sizeof(*p));
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	char line[256];
	snprintf(line, sizeof(line), "%s rw,no_root_squash", dir);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		if (server_nofile) {
			struct rlimit rl = { server_nofile, server_nofile };
			if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
				_exit(126);
		}
		execl(tinynfs_path, "tinynfs", "--export", line, "-p", "0", "-l", "127.0.0.1",
		      "-l", "::1", "--stats", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	p->out = pfd[0];
	assert_int_equal(read_log(p, "tinynfs: ready"), 0);
	const char *t = strstr(p->log, "listening tcp 127.0.0.1 ");
	const char *u = strstr(p->log, "listening udp 127.0.0.1 ");
	assert_non_null(t);
	assert_non_null(u);
	p->tcp_port = (unsigned)atoi(t + strlen("listening tcp 127.0.0.1 "));
	p->udp_port = (unsigned)atoi(u + strlen("listening udp 127.0.0.1 "));
	assert_true(p->tcp_port > 0 && p->udp_port == p->tcp_port);
	assert_non_null(strstr(p->log, "listening tcp ::1 "));
	p->uid = TEST_UID;
	p->gid = TEST_GID;
	p->xid = 0x1000;
	p->rec = malloc(BUFSZ + 4096);
	assert_non_null(p->rec);
}

/* SIGTERM: exit 0 and the counters line. */
static void stop(struct proc *p)
{
	if (p->fd > 0)
		close(p->fd);
	assert_int_equal(kill(p->pid, SIGTERM), 0);
	int st;
	assert_int_equal(waitpid(p->pid, &st, 0), p->pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	read_log(p, NULL);
	close(p->out);
	assert_non_null(strstr(p->log, "tinynfs: SIGTERM, stopping"));
	assert_non_null(strstr(p->log, "estimate_exceeded 0,"));
	assert_non_null(strstr(p->log, "system_err 0,"));
	free(p->rec);
}

static int connect_to(int family, int type, unsigned port)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
	}
	int fd = socket(family, type, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), 0);
	struct timeval tv = { .tv_sec = 20 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* The RPC call header: xid, CALL, rpcvers 2, prog, vers, proc, AUTH_SYS
 * (or AUTH_NONE with uid == UINT32_MAX), AUTH_NONE verifier. */
static void put_call_hdr(struct xdr_out *x, struct proc *p, uint32_t prog, uint32_t vers,
			 uint32_t proc)
{
	xdr_put_u32(x, ++p->xid);
	xdr_put_u32(x, 0);
	xdr_put_u32(x, 2);
	xdr_put_u32(x, prog);
	xdr_put_u32(x, vers);
	xdr_put_u32(x, proc);
	if (p->uid == UINT32_MAX) {
		xdr_put_u32(x, 0);
		xdr_put_u32(x, 0);
	} else {
		static const char host[] = "tinynfs-test";
		xdr_put_u32(x, 1);
		xdr_put_u32(x, (uint32_t)(4 + 4 + 12 + 4 + 4 + 4 + 8));
		xdr_put_u32(x, 12345); /* stamp */
		xdr_put_opaque(x, host, 12);
		xdr_put_u32(x, p->uid);
		xdr_put_u32(x, p->gid);
		xdr_put_u32(x, 2);
		xdr_put_u32(x, p->gid);
		xdr_put_u32(x, 100);
	}
	xdr_put_u32(x, 0);
	xdr_put_u32(x, 0);
}

static void write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	while (len) {
		ssize_t n = write(fd, b, len);
		assert_true(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

static void read_all(int fd, void *buf, size_t len)
{
	uint8_t *b = buf;
	while (len) {
		ssize_t n = read(fd, b, len);
		assert_true(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

/* Sends one record (hdr + body as a single last fragment) and reads the
 * reply record (all its fragments) into p->rec. */
static void tcp_exchange(struct proc *p, const void *msg, size_t len)
{
	uint8_t mark[4];
	xdr_wr32(mark, 0x80000000u | (uint32_t)len);
	write_all(p->fd, mark, 4);
	write_all(p->fd, msg, len);
	p->rec_len = 0;
	for (;;) {
		read_all(p->fd, mark, 4);
		uint32_t m = ((uint32_t)mark[0] << 24) | ((uint32_t)mark[1] << 16) |
			     ((uint32_t)mark[2] << 8) | mark[3];
		uint32_t flen = m & 0x7fffffffu;
		assert_true(p->rec_len + flen <= BUFSZ + 4096);
		read_all(p->fd, p->rec + p->rec_len, flen);
		p->rec_len += flen;
		if (m & 0x80000000u)
			break;
	}
}

/* Walks the reply header; returns accept_stat, leaves x at the results.
 * PROG_MISMATCH's low and high go to *low, *high. */
static uint32_t reply_hdr(struct proc *p, struct xdr_in *x, uint32_t *low, uint32_t *high)
{
	xdr_in_init(x, p->rec, p->rec_len);
	assert_int_equal(xdr_get_u32(x), p->xid);
	assert_int_equal(xdr_get_u32(x), 1); /* REPLY */
	assert_int_equal(xdr_get_u32(x), 0); /* MSG_ACCEPTED */
	assert_int_equal(xdr_get_u32(x), 0); /* verifier AUTH_NONE */
	assert_int_equal(xdr_get_u32(x), 0);
	uint32_t st = xdr_get_u32(x);
	if (st == 2) {
		*low = xdr_get_u32(x);
		*high = xdr_get_u32(x);
	}
	assert_false(x->bad);
	return st;
}

/* One bodyless call over TCP; returns accept_stat. */
static uint32_t tcp_simple(struct proc *p, uint32_t prog, uint32_t vers, uint32_t proc,
			   uint32_t *low, uint32_t *high)
{
	uint8_t msg[256];
	struct xdr_out x;
	xdr_out_init(&x, msg, sizeof(msg));
	put_call_hdr(&x, p, prog, vers, proc);
	tcp_exchange(p, msg, (size_t)(x.p - msg));
	struct xdr_in in;
	return reply_hdr(p, &in, low, high);
}

/* fx->call: the built COMPOUND as NFS 100003/4 procedure 1 over TCP. */
static void compound_over_tcp(struct fx *f)
{
	struct proc *p = f->call_arg;
	size_t body = req_len(&f->rq);
	uint8_t *msg = malloc(body + 256);
	assert_non_null(msg);
	struct xdr_out x;
	xdr_out_init(&x, msg, body + 256);
	put_call_hdr(&x, p, 100003, 4, 1);
	xdr_put_fixed(&x, f->rq.buf, (uint32_t)body);
	assert_false(x.bad);
	tcp_exchange(p, msg, (size_t)(x.p - msg));
	free(msg);
	struct xdr_in in;
	uint32_t lo, hi;
	assert_int_equal(reply_hdr(p, &in, &lo, &hi), 0);
	size_t off = xdr_in_pos(&in);
	f->rp.len = p->rec_len - off;
	memcpy(f->rp.buf, p->rec + off, f->rp.len);
}

struct env {
	struct fx *f;
	struct proc p;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	e->f = calloc(1, sizeof(*e->f));
	assert_non_null(e->f);
	strcpy(e->f->dir, "/tmp/tinynfs-srv-XXXXXX");
	assert_non_null(mkdtemp(e->f->dir));
	assert_int_equal(chmod(e->f->dir, 0777), 0);
	e->f->rp.buf = malloc(BUFSZ);
	assert_non_null(e->f->rp.buf);
	e->f->minor = 1;
	e->f->call = compound_over_tcp;
	e->f->call_arg = &e->p;
	start(&e->p, e->f->dir);
	e->p.fd = connect_to(AF_INET, SOCK_STREAM, e->p.tcp_port);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	stop(&e->p);
	fx_free(e->f);
	free(e);
	return 0;
}

static void test_null(void **state)
{
	struct env *e = *state;
	uint32_t lo = 0, hi = 0;
	assert_int_equal(tcp_simple(&e->p, 100003, 4, 0, &lo, &hi), 0);
	assert_int_equal(e->p.rec_len, 24); /* header only: void result */
	/* the same over IPv6 loopback */
	int fd4 = e->p.fd;
	e->p.fd = connect_to(AF_INET6, SOCK_STREAM, e->p.tcp_port);
	assert_int_equal(tcp_simple(&e->p, 100003, 4, 0, &lo, &hi), 0);
	close(e->p.fd);
	e->p.fd = fd4;
}

static void test_refusals(void **state)
{
	struct env *e = *state;
	uint32_t lo = 0, hi = 0;
	/* version 3 over TCP: PROG_MISMATCH 4..4 */
	assert_int_equal(tcp_simple(&e->p, 100003, 3, 0, &lo, &hi), 2);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 4);
	/* another program: PROG_UNAVAIL */
	assert_int_equal(tcp_simple(&e->p, 100005, 3, 0, &lo, &hi), 1);
	/* procedure 2: PROC_UNAVAIL */
	assert_int_equal(tcp_simple(&e->p, 100003, 4, 2, &lo, &hi), 3);
	/* a COMPOUND whose tag length runs past the end: GARBAGE_ARGS */
	uint8_t msg[256];
	struct xdr_out x;
	xdr_out_init(&x, msg, sizeof(msg));
	put_call_hdr(&x, &e->p, 100003, 4, 1);
	xdr_put_u32(&x, 4000);
	xdr_put_u32(&x, 1);
	xdr_put_u32(&x, 0);
	tcp_exchange(&e->p, msg, (size_t)(x.p - msg));
	struct xdr_in in;
	assert_int_equal(reply_hdr(&e->p, &in, &lo, &hi), 4);

	/* NFSv4 over UDP: PROG_MISMATCH (it needs congestion control) */
	int u = connect_to(AF_INET, SOCK_DGRAM, e->p.udp_port);
	for (uint32_t proc = 0; proc < 2; proc++) {
		xdr_out_init(&x, msg, sizeof(msg));
		put_call_hdr(&x, &e->p, 100003, 4, proc);
		assert_int_equal(send(u, msg, (size_t)(x.p - msg), 0), x.p - msg);
		ssize_t n = recv(u, e->p.rec, 4096, 0);
		assert_true(n > 0);
		e->p.rec_len = (size_t)n;
		lo = hi = 0;
		assert_int_equal(reply_hdr(&e->p, &in, &lo, &hi), 2);
		assert_int_equal(lo, 4);
		assert_int_equal(hi, 4);
	}
	close(u);
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
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "open-owner-1", OPEN4_SHARE_ACCESS_BOTH, true, 0640, "hello");
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_OPEN), NFS4_OK);
	struct nfs4_stateid sid;
	get_stateid(&f->rp.x, &sid);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x); /* cinfo, rflags */
	uint32_t n = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	struct fh fh;
	get_fh(&f->rp.x, &fh);

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
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, "flood-owner", OPEN4_SHARE_ACCESS_BOTH, true, 0644, name);
	req_op(&f->rq, OP_GETFH);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	uint32_t pst = rep_op(&f->rp, OP_PUTROOTFH);
	if (pst != NFS4_OK)
		return pst;
	uint32_t ost = rep_op(&f->rp, OP_OPEN);
	if (ost != NFS4_OK)
		return ost;
	assert_int_equal(st, NFS4_OK);
	get_stateid(&f->rp.x, sid);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x);
	uint32_t n = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, fh);
	return NFS4_OK;
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
	unsigned n = 0;
	uint32_t st;
	for (;; n++) {
		assert_true(n < 300);
		snprintf(name, sizeof(name), "flood-%u", n);
		st = open_create(f, name, &sid, &fh);
		if (st != NFS4_OK)
			break;
	}
	assert_int_equal(st, NFS4ERR_DELAY);
	assert_true(n <= 256 / 4); /* its share, well short of the process's limit */
	/* still refused: the share does not move by asking again */
	assert_int_equal(open_create(f, "flood-again", &sid, &fh), NFS4ERR_DELAY);
	printf("descriptor flood: the flooder got %u OPENs of 256 descriptors, "
	       "then NFS4ERR_DELAY\n", n);

	int flooder = e->p.fd;
	e->p.fd = connect_to(AF_INET, SOCK_STREAM, e->p.tcp_port);
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
	close(e->p.fd);
	e->p.fd = flooder;
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
	e->p.uid = TEST_UID + 1;
	assert_int_equal(tcp_create_session(f, cid, seq), NFS4ERR_CLID_INUSE);
	e->p.uid = UINT32_MAX;
	assert_int_equal(tcp_create_session(f, cid, seq), NFS4ERR_CLID_INUSE);
	e->p.uid = TEST_UID;
	assert_int_equal(tcp_create_session(f, cid, seq), NFS4_OK);
	e->p.uid = TEST_UID + 1;
	assert_int_equal(tcp_exchange_id(f, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &cid2, &seq2),
			 NFS4ERR_PERM);
	assert_int_equal(tcp_exchange_id(f, 0, &cid2, &seq2), NFS4ERR_CLID_INUSE);
	e->p.uid = TEST_UID;
	assert_int_equal(tcp_exchange_id(f, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, &cid2, &seq2),
			 NFS4_OK);
	assert_true(cid2 == cid);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
