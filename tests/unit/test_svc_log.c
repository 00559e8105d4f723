/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box: the service's log hook (rpcrdma_svc_opts.log_fn) and the
 * status strings.  Each kind of event a peer can cause over loopback
 * reaches the hook with its reason and peer: a message that is not a call
 * (UDP, TCP), a datagram over max_datagram, a record over max_record, a
 * record breaking the fragment rules, a peer's end of file, a connection
 * refused at max_conns, the idle timeout and a handler's DROP (returned,
 * and given later to rpcrdma_svc_reply).  Without a hook
 * nothing is called.  The loop is driven from the test thread
 * (rpcrdma_svc_poll), so the hook runs there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <rpcrdma/rpcrdma.h>

#define MAX_RECS 32

struct log {
	unsigned n;
	struct {
		enum rpcrdma_log_event event;
		char netid[16];
		char reason[96];
		int err;
		bool has_peer;
		uint16_t peer_port;
	} rec[MAX_RECS];
};

static void log_fn(void *arg, const struct rpcrdma_log_record *r)
{
	struct log *l = arg;
	assert_non_null(r->netid);
	assert_non_null(r->reason);
	if (l->n == MAX_RECS)
		return;
	l->rec[l->n].event = r->event;
	snprintf(l->rec[l->n].netid, sizeof(l->rec[0].netid), "%s", r->netid);
	snprintf(l->rec[l->n].reason, sizeof(l->rec[0].reason), "%s", r->reason);
	l->rec[l->n].err = r->err;
	l->rec[l->n].has_peer = r->peer != NULL;
	if (r->peer && r->peer->sa_family == AF_INET && r->peer_len >= sizeof(struct sockaddr_in))
		l->rec[l->n].peer_port = ntohs(((const struct sockaddr_in *)r->peer)->sin_port);
	l->n++;
}

struct server {
	struct rpcrdma_svc *svc;
	struct log log;
	uint16_t tcp_port, udp_port;
};

static int h_drop(struct rpcrdma_svc_call *c, void *a, void *r)
{
	(void)c, (void)a, (void)r;
	return RPCRDMA_SVC_DROP;
}

/* Procedure 1 keeps its call for the test to complete (one at a time). */
static struct rpcrdma_svc_call *pending;

static int h_async(struct rpcrdma_svc_call *c, void *a, void *r)
{
	(void)a, (void)r;
	pending = c;
	return RPCRDMA_SVC_ASYNC;
}

static const struct rpcrdma_svc_proc procs[] = {
	{ .name = "NULL", .handler = h_drop },
	{ .name = "HOLD", .handler = h_async },
};
static const struct rpcrdma_svc_version vers[] = { { .vers = 1, .nprocs = 2, .procs = procs } };
static const struct rpcrdma_svc_program prog = { 0x20000777, "logtest", 1, vers, NULL };

static void server_start(struct server *s, bool hook, unsigned max_conns, unsigned idle_ms)
{
	struct rpcrdma_svc_opts o;
	rpcrdma_svc_opts_init(&o);
	o.max_record = 64;
	o.max_datagram = 64;
	o.max_conns = max_conns;
	o.idle_timeout_ms = idle_ms;
	if (hook) {
		o.log_fn = log_fn;
		o.log_arg = &s->log;
	}
	memset(&s->log, 0, sizeof(s->log));
	assert_int_equal(rpcrdma_svc_create(&o, &s->svc), 0);
	assert_int_equal(rpcrdma_svc_register(s->svc, &prog), 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage b;
	socklen_t blen = 0;
	assert_int_equal(rpcrdma_svc_listen_tcp(s->svc, (struct sockaddr *)&a, sizeof(a), &b, &blen),
			 0);
	assert_int_equal(blen, sizeof(struct sockaddr_in));  /* the bound address's length */
	s->tcp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	blen = 0;
	assert_int_equal(rpcrdma_svc_listen_udp(s->svc, (struct sockaddr *)&a, sizeof(a), &b, &blen),
			 0);
	assert_int_equal(blen, sizeof(struct sockaddr_in));
	s->udp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
}

/* Polls until the log holds n records (bounded: liveness only). */
static void poll_until(struct server *s, unsigned n)
{
	for (int i = 0; i < 2000 && s->log.n < n; i++)
		assert_true(rpcrdma_svc_poll(s->svc, 10) >= 0);
	assert_int_equal(s->log.n, n);
}

static void poll_some(struct server *s)
{
	for (int i = 0; i < 20; i++)
		assert_true(rpcrdma_svc_poll(s->svc, 5) >= 0);
}

static int tcp_connect(uint16_t port, uint16_t *local_port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&me, &ml), 0);
	*local_port = ntohs(me.sin_port);
	return fd;
}

static void udp_send(uint16_t port, const void *buf, size_t len, uint16_t *local_port)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&me, &ml), 0);
	*local_port = ntohs(me.sin_port);
	assert_int_equal(send(fd, buf, len, 0), (ssize_t)len);
	close(fd);
}

static void expect(const struct server *s, unsigned i, enum rpcrdma_log_event ev,
		   const char *netid, const char *reason_part, uint16_t peer_port)
{
	assert_true(i < s->log.n);
	assert_int_equal(s->log.rec[i].event, ev);
	assert_string_equal(s->log.rec[i].netid, netid);
	if (!strstr(s->log.rec[i].reason, reason_part))
		fail_msg("record %u: reason \"%s\", wanted \"%s\"", i, s->log.rec[i].reason,
			 reason_part);
	if (peer_port) {
		assert_true(s->log.rec[i].has_peer);
		assert_int_equal(s->log.rec[i].peer_port, peer_port);
	}
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A TCP call of procedure proc, record-marked, in b (44 bytes). */
static void mkcall(uint8_t *b, uint32_t xid, uint32_t proc)
{
	uint32_t w[10] = { xid, 0, 2, prog.prog, 1, proc, 0, 0, 0, 0 };
	put32(b, 0x80000000u | 40);
	for (int i = 0; i < 10; i++)
		put32(b + 4 + 4 * i, w[i]);
}

/* Dropped messages and calls, over UDP and TCP. */
static void test_drops(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, true, 0, 0);
	uint16_t port;
	uint8_t junk[8] = { 0, 0, 0, 1, 0, 0, 0, 1 };  /* a REPLY, not a CALL */
	udp_send(s.udp_port, junk, sizeof(junk), &port);
	poll_until(&s, 1);
	expect(&s, 0, RPCRDMA_LOG_CALL_DROPPED, "udp", "not an RPC call", port);
	uint8_t big[100] = { 0 };
	udp_send(s.udp_port, big, sizeof(big), &port);
	poll_until(&s, 2);
	expect(&s, 1, RPCRDMA_LOG_CALL_DROPPED, "udp", "max_datagram", port);

	/* A NULL call whose handler returns DROP. */
	uint8_t call[44];
	mkcall(call, 7, 0);
	int fd = tcp_connect(s.tcp_port, &port);
	assert_int_equal(write(fd, call, sizeof(call)), (ssize_t)sizeof(call));
	poll_until(&s, 3);
	expect(&s, 2, RPCRDMA_LOG_CALL_DROPPED, "tcp", "DROP", 0);
	close(fd);
	poll_until(&s, 4);
	expect(&s, 3, RPCRDMA_LOG_CONN_CLOSED, "tcp", "end of file", port);
	rpcrdma_svc_destroy(s.svc);
}

/* Connections closed for what their peer sent. */
static void test_closes(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, true, 0, 0);
	uint16_t port;
	uint8_t hdr[4];
	int fd = tcp_connect(s.tcp_port, &port);
	put32(hdr, 0x80000000u | 1000);  /* a record over max_record (64) */
	assert_int_equal(write(fd, hdr, 4), 4);
	poll_until(&s, 1);
	expect(&s, 0, RPCRDMA_LOG_CONN_CLOSED, "tcp", "max_record", port);
	close(fd);

	fd = tcp_connect(s.tcp_port, &port);
	put32(hdr, 0);  /* empty non-last fragments, more than 16 in a row */
	for (int i = 0; i < 20; i++)
		assert_int_equal(write(fd, hdr, 4), 4);
	poll_until(&s, 2);
	expect(&s, 1, RPCRDMA_LOG_CONN_CLOSED, "tcp", "fragment rules", port);
	close(fd);
	poll_some(&s);
	assert_int_equal(s.log.n, 2);
	rpcrdma_svc_destroy(s.svc);
}

/* A connection refused at max_conns (the one open has a call in progress,
 * so it is not idle), a late DROP, then the idle timeout. */
static void test_refused_and_idle(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, true, 1, 200);
	uint16_t p1, p2;
	uint8_t call[44];
	mkcall(call, 9, 1);
	pending = NULL;
	int f1 = tcp_connect(s.tcp_port, &p1);
	assert_int_equal(write(f1, call, sizeof(call)), (ssize_t)sizeof(call));
	for (int i = 0; i < 2000 && !pending; i++)
		assert_true(rpcrdma_svc_poll(s.svc, 10) >= 0);
	assert_non_null(pending);
	int f2 = tcp_connect(s.tcp_port, &p2);
	poll_until(&s, 1);
	expect(&s, 0, RPCRDMA_LOG_CONN_REFUSED, "tcp", "max_conns", p2);
	rpcrdma_svc_reply(pending, RPCRDMA_SVC_DROP);
	assert_int_equal(s.log.n, 2);
	expect(&s, 1, RPCRDMA_LOG_CALL_DROPPED, "tcp", "DROP", 0);
	poll_until(&s, 3);
	expect(&s, 2, RPCRDMA_LOG_CONN_CLOSED, "tcp", "idle timeout", p1);
	close(f1);
	close(f2);
	rpcrdma_svc_destroy(s.svc);
}

/* No hook: nothing is reported (and nothing breaks). */
static void test_silent(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, false, 0, 0);
	uint16_t port;
	uint8_t junk[8] = { 0 };
	udp_send(s.udp_port, junk, sizeof(junk), &port);
	poll_some(&s);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(s.svc, &st, sizeof(st));
	assert_int_equal(st.dropped, 1);
	assert_int_equal(s.log.n, 0);
	rpcrdma_svc_destroy(s.svc);
}

static void test_strings(void **state)
{
	(void)state;
	assert_string_equal(rpcrdma_svc_status_str(RPCRDMA_SVC_GARBAGE_ARGS), "GARBAGE_ARGS");
	assert_string_equal(rpcrdma_svc_status_str(RPCRDMA_SVC_DROP), "DROP");
	assert_string_equal(rpcrdma_svc_status_str(99), "unknown");
	assert_string_equal(rpcrdma_svc_auth_stat_str(RPCRDMA_AUTH_TOOWEAK), "AUTH_TOOWEAK");
	assert_string_equal(rpcrdma_svc_auth_stat_str(-1), "unknown");
	assert_string_equal(rpcrdma_log_event_str(RPCRDMA_LOG_CONN_CLOSED), "connection closed");
	assert_non_null(strstr(rpcrdma_strerror(-EBADMSG), "malformed"));
	assert_non_null(strstr(rpcrdma_strerror(EPROTONOSUPPORT), "version"));
	assert_string_equal(rpcrdma_strerror(-ENOMEM), "out of memory");
	assert_string_equal(rpcrdma_strerror(0), "success");
	assert_string_equal(rpcrdma_strerror(-100000), "unknown error");
	assert_non_null(strstr(rpcrdma_strerror(-EREMOTEIO), "accept_stat"));
	assert_string_equal(rpcrdma_strerror(-ECONNABORTED), "connection aborted");
	/* every errno Linux has gets words: the library's, or glibc's */
	for (int e = 1; e <= EHWPOISON; e++)
		if (e != 41 && e != 58)             /* no errno has these numbers */
			assert_string_not_equal(rpcrdma_strerror(-e), "unknown error");
	for (int e = 0; e < 200; e++)
		assert_non_null(rpcrdma_strerror(-e));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_closes),
		cmocka_unit_test(test_refused_and_idle),
		cmocka_unit_test(test_silent),
		cmocka_unit_test(test_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
