/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test helpers: the tinynfs program as a child process on loopback (port
 * 0, its ports read from its log) and a small ONC RPC client over TCP
 * (record marking, AUTH_SYS), with as many connections as a test wants,
 * each with its own credentials.  A call may be sent without waiting for
 * its reply, so that a test can show that another connection is served
 * while one call is outstanding.  A connection may also be IPv6 or UDP,
 * call any program and version, and read what the reply header says when
 * it is not SUCCESS.  Header-only, after nfstest.h.
 */
#ifndef TINYNFS_TNFSPROC_H
#define TINYNFS_TNFSPROC_H

#include "nfstest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

/* How long a reply may take before the test calls the server stuck
 * (a liveness bound, not a speed check). */
#define TNFSPROC_WAIT_S 20

struct tnfsproc {
	pid_t pid;
	int out; /* the server's stdout */
	unsigned tcp_port;
	unsigned udp_port; /* 0 when the log names none */
	char log[8192];
	size_t log_len;
};

struct tnfsconn {
	int fd;
	uint32_t xid, uid, gid;
	uint32_t ngroups, groups[16]; /* AUTH_SYS supplementary groups */
	uint8_t *rec; /* last reply record */
	size_t rec_len;
};

/* Reads the server's stdout until a line starting with `until` (or EOF). */
static inline int tnfsproc_read_log(struct tnfsproc *p, const char *until)
{
	for (;;) {
		p->log[p->log_len] = 0;
		for (char *line = p->log; until && line && *line;) {
			if (strncmp(line, until, strlen(until)) == 0 && strchr(line, '\n'))
				return 0;
			line = strchr(line, '\n');
			if (line)
				line++;
		}
		struct pollfd pfd = { .fd = p->out, .events = POLLIN };
		if (poll(&pfd, 1, TNFSPROC_WAIT_S * 1000) != 1)
			return -1;
		ssize_t n = read(p->out, p->log + p->log_len, sizeof(p->log) - 1 - p->log_len);
		if (n <= 0)
			return until ? -1 : 0;
		p->log_len += (size_t)n;
	}
}

/* Starts `binary` serving `dir` with the export options given, on
 * 127.0.0.1 port 0, and on ::1 too if ipv6, with up to 4 more arguments
 * (NULL-terminated `more`, or NULL); nofile: RLIMIT_NOFILE (soft and
 * hard) of the server (kept: --keep-nofile), 0 for the inherited one.  Its stderr goes to the
 * test's. */
static inline void tnfsproc_start_full(struct tnfsproc *p, const char *binary, const char *dir,
				       const char *options, bool ipv6, rlim_t nofile,
				       const char *const *more)
{
	memset(p, 0, sizeof(*p));
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	char line[256];
	snprintf(line, sizeof(line), "%s %s", dir, options);
	const char *argv[16] = { "tinynfs", "--export", line, "-p", "0", "-l", "127.0.0.1",
				 "--stats" };
	int n = 8;
	if (ipv6) {
		argv[n++] = "-l";
		argv[n++] = "::1";
	}
	if (nofile)
		argv[n++] = "--keep-nofile";
	for (int i = 0; more && more[i]; i++) {
		assert_true(i < 4);
		argv[n++] = more[i];
	}
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		if (nofile) {
			struct rlimit rl = { nofile, nofile };
			if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
				_exit(126);
		}
		execv(binary, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	p->out = pfd[0];
	assert_int_equal(tnfsproc_read_log(p, "tinynfs: ready"), 0);
	const char *t = strstr(p->log, "listening tcp 127.0.0.1 ");
	assert_non_null(t);
	p->tcp_port = (unsigned)atoi(t + strlen("listening tcp 127.0.0.1 "));
	assert_true(p->tcp_port > 0);
	const char *u = strstr(p->log, "listening udp 127.0.0.1 ");
	if (u)
		p->udp_port = (unsigned)atoi(u + strlen("listening udp 127.0.0.1 "));
}

static inline void tnfsproc_start_ex(struct tnfsproc *p, const char *binary, const char *dir,
				     const char *options, bool ipv6, rlim_t nofile)
{
	tnfsproc_start_full(p, binary, dir, options, ipv6, nofile, NULL);
}

static inline void tnfsproc_start_args(struct tnfsproc *p, const char *binary, const char *dir,
				       const char *options, const char *const *more)
{
	tnfsproc_start_full(p, binary, dir, options, false, 0, more);
}

static inline void tnfsproc_start(struct tnfsproc *p, const char *binary, const char *dir,
				  const char *options)
{
	tnfsproc_start_full(p, binary, dir, options, false, 0, NULL);
}

/* A fixture for a server process: a fresh mode-0777 directory made from
 * template (mkdtemp's), the reply buffer, minor version 1; no server of
 * its own (the test points f->call at a connection). */
static inline struct fx *tnfsproc_fx_new(const char *template)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s", template);
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(chmod(f->dir, 0777), 0);
	f->rp.buf = malloc(BUFSZ);
	assert_non_null(f->rp.buf);
	f->minor = 1;
	return f;
}

/* SIGTERM: a clean exit, with no estimate exceeded. */
static inline void tnfsproc_stop(struct tnfsproc *p)
{
	assert_int_equal(kill(p->pid, SIGTERM), 0);
	int st;
	assert_int_equal(waitpid(p->pid, &st, 0), p->pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	tnfsproc_read_log(p, NULL);
	close(p->out);
	assert_non_null(strstr(p->log, "estimate_exceeded 0,"));
}

/* A connected socket of `family` (AF_INET: 127.0.0.1, AF_INET6: ::1) and
 * `type` (SOCK_STREAM or SOCK_DGRAM) to port, as uid and gid. */
static inline void tnfsconn_open_at(struct tnfsconn *c, int family, int type, unsigned port,
				    uint32_t uid, uint32_t gid)
{
	memset(c, 0, sizeof(*c));
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
	c->fd = socket(family, type, 0);
	assert_true(c->fd >= 0);
	assert_int_equal(connect(c->fd, (struct sockaddr *)&ss, len), 0);
	struct timeval tv = { .tv_sec = TNFSPROC_WAIT_S };
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	c->uid = uid;
	c->gid = gid;
	c->xid = 0x1000;
	c->rec = malloc(BUFSZ + 4096);
	assert_non_null(c->rec);
}

/* TCP to the server on 127.0.0.1. */
static inline void tnfsconn_open(struct tnfsconn *c, const struct tnfsproc *p,
				 uint32_t uid, uint32_t gid)
{
	tnfsconn_open_at(c, AF_INET, SOCK_STREAM, p->tcp_port, uid, gid);
}

static inline void tnfsconn_close(struct tnfsconn *c)
{
	close(c->fd);
	free(c->rec);
	c->fd = -1;
	c->rec = NULL;
}

/* The RPC call header: the next xid, CALL, rpcvers 2, prog, vers, proc,
 * AUTH_SYS with the connection's ids and groups, AUTH_NONE verifier. */
static inline void tnfsconn_put_call_hdr(struct xdr_out *x, struct tnfsconn *c, uint32_t prog,
					 uint32_t vers, uint32_t proc)
{
	static const char host[] = "tinynfs-test";
	xdr_put_u32(x, ++c->xid);
	xdr_put_u32(x, 0);
	xdr_put_u32(x, 2);
	xdr_put_u32(x, prog);
	xdr_put_u32(x, vers);
	xdr_put_u32(x, proc);
	xdr_put_u32(x, 1);
	xdr_put_u32(x, (uint32_t)(4 + 4 + 12 + 4 + 4 + 4 + 4 * c->ngroups));
	xdr_put_u32(x, 12345); /* stamp */
	xdr_put_opaque(x, host, 12);
	xdr_put_u32(x, c->uid);
	xdr_put_u32(x, c->gid);
	xdr_put_u32(x, c->ngroups);
	for (uint32_t i = 0; i < c->ngroups; i++)
		xdr_put_u32(x, c->groups[i]);
	xdr_put_u32(x, 0);
	xdr_put_u32(x, 0);
}

/* The same for NFS (100003) version 4. */
static inline void tnfsconn_put_hdr(struct xdr_out *x, struct tnfsconn *c, uint32_t proc)
{
	tnfsconn_put_call_hdr(x, c, 100003, 4, proc);
}

static inline void tnfsconn_write(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	while (len) {
		ssize_t n = write(fd, b, len);
		assert_true(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

/* Reads len bytes; false when the connection closed or the wait ran out. */
static inline bool tnfsconn_read(int fd, void *buf, size_t len)
{
	uint8_t *b = buf;
	while (len) {
		ssize_t n = read(fd, b, len);
		if (n <= 0)
			return false;
		b += n;
		len -= (size_t)n;
	}
	return true;
}

/* Sends a call of procedure `proc` with the body given, as one record;
 * does not wait for the reply. */
static inline void tnfsconn_send(struct tnfsconn *c, uint32_t proc, const void *body, size_t len)
{
	uint8_t *msg = malloc(len + 256);
	assert_non_null(msg);
	struct xdr_out x;
	xdr_out_init(&x, msg, len + 256);
	xdr_put_u32(&x, 0); /* record mark, below */
	tnfsconn_put_hdr(&x, c, proc);
	if (len)
		xdr_put_fixed(&x, body, (uint32_t)len);
	assert_false(x.bad);
	size_t n = (size_t)(x.p - msg);
	xdr_wr32(msg, 0x80000000u | (uint32_t)(n - 4));
	tnfsconn_write(c->fd, msg, n);
	free(msg);
}

/* Sends msg (len bytes) as one record, a single last fragment. */
static inline void tnfsconn_send_record(struct tnfsconn *c, const void *msg, size_t len)
{
	uint8_t mark[4];
	xdr_wr32(mark, 0x80000000u | (uint32_t)len);
	tnfsconn_write(c->fd, mark, 4);
	tnfsconn_write(c->fd, msg, len);
}

/* Reads one reply record (all its fragments) into c->rec.  Fails the test
 * when no reply comes within TNFSPROC_WAIT_S. */
static inline void tnfsconn_recv_record(struct tnfsconn *c)
{
	c->rec_len = 0;
	for (;;) {
		uint8_t mark[4];
		if (!tnfsconn_read(c->fd, mark, 4))
			fail_msg("no reply within %d s: the server is stuck", TNFSPROC_WAIT_S);
		uint32_t m = (uint32_t)mark[0] << 24 | (uint32_t)mark[1] << 16 |
			     (uint32_t)mark[2] << 8 | mark[3];
		uint32_t flen = m & 0x7fffffffu;
		assert_true(c->rec_len + flen <= BUFSZ + 4096);
		assert_true(tnfsconn_read(c->fd, c->rec + c->rec_len, flen));
		c->rec_len += flen;
		if (m & 0x80000000u)
			break;
	}
}

/* Walks the reply header in c->rec (the last call's xid, accepted, an
 * AUTH_NONE verifier); returns accept_stat and leaves x at the results.
 * PROG_MISMATCH's low and high go to *low, *high. */
static inline uint32_t tnfsconn_reply_hdr(struct tnfsconn *c, struct xdr_in *x, uint32_t *low,
					  uint32_t *high)
{
	xdr_in_init(x, c->rec, c->rec_len);
	assert_int_equal(xdr_get_u32(x), c->xid);
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

/* Reads the reply record of the last call; checks its header (the xid,
 * accepted, SUCCESS) and returns the offset of the results in c->rec.
 * Fails the test when no reply comes within TNFSPROC_WAIT_S. */
static inline size_t tnfsconn_reply(struct tnfsconn *c)
{
	tnfsconn_recv_record(c);
	struct xdr_in x;
	uint32_t lo, hi;
	assert_int_equal(tnfsconn_reply_hdr(c, &x, &lo, &hi), 0); /* SUCCESS */
	return xdr_in_pos(&x);
}

/* A NULL call, answered. */
static inline void tnfsconn_null(struct tnfsconn *c)
{
	tnfsconn_send(c, 0, NULL, 0);
	size_t off = tnfsconn_reply(c);
	assert_int_equal(off, c->rec_len); /* a void result */
}

/* fx->call for a fixture whose call_arg is a struct tnfsconn: the built
 * COMPOUND over that connection, the results into f->rp. */
static inline void tnfsconn_fx_call(struct fx *f)
{
	struct tnfsconn *c = f->call_arg;
	tnfsconn_send(c, 1, f->rq.buf, req_len(&f->rq));
	size_t off = tnfsconn_reply(c);
	f->rp.len = c->rec_len - off;
	memcpy(f->rp.buf, c->rec + off, f->rp.len);
}

#endif
