/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-ping (tools/) against the library's service on loopback over TCP
 * and UDP: exit status and the last line's format, parsed
 *   N calls, N replies, N errors; rtt us min/median/p99/max A/B/C/D; R calls/s
 * Usage: test-clnt_ping PATH-OF-rpcrdma-ping
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clnt_util.h"

extern char **environ;

static const char *tool;
static struct ct_server srv;

struct result {
	int status;                      /* exit status, or -1 */
	unsigned calls, replies, errors;
	long long min, median, p99, max;
	double rate;
	int fields;                      /* sscanf's count: 8 when well formed */
	char out[4096], err[4096];       /* what it printed */
};

static size_t slurp(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	for (ssize_t k; n < cap - 1 && (k = read(fd, buf + n, cap - 1 - n)) > 0;)
		n += (size_t)k;
	buf[n] = 0;
	close(fd);
	return n;
}

static void run(struct result *r, const char *const *args)
{
	const char *argv[16] = { tool };
	char *last;
	size_t n;
	int pfd[2], efd[2], st;
	pid_t pid;
	posix_spawn_file_actions_t fa;

	for (int i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	memset(r, 0, sizeof(*r));
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(pipe(efd), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, efd[1], 2);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	posix_spawn_file_actions_addclose(&fa, efd[0]);
	assert_int_equal(posix_spawn(&pid, tool, &fa, NULL, (char *const *)argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	close(efd[1]);
	n = slurp(pfd[0], r->out, sizeof(r->out));   /* the tool writes little to stderr */
	slurp(efd[0], r->err, sizeof(r->err));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	char out[sizeof(r->out)];
	memcpy(out, r->out, sizeof(out));
	while (n && out[n - 1] == '\n')
		out[--n] = 0;
	last = strrchr(out, '\n');
	last = last ? last + 1 : out;
	print_message("rpcrdma-ping: %s (exit %d)\n", last, r->status);
	r->fields = sscanf(last, "%u calls, %u replies, %u errors; rtt us min/median/p99/max "
			   "%lld/%lld/%lld/%lld; %lf calls/s",
			   &r->calls, &r->replies, &r->errors, &r->min, &r->median, &r->p99,
			   &r->max, &r->rate);
}

static void check_ok(const struct result *r, unsigned count)
{
	assert_int_equal(r->status, 0);
	assert_int_equal(r->fields, 8);
	assert_int_equal(r->calls, count);
	assert_int_equal(r->replies, count);
	assert_int_equal(r->errors, 0);
	assert_true(r->min >= 0 && r->min <= r->median && r->median <= r->p99 &&
		    r->p99 <= r->max);
	assert_true(r->rate > 0);
}

static void test_tcp(void **state)
{
	char addr[64], prog[32];
	struct result r;

	(void)state;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", srv.tcp_port);
	snprintf(prog, sizeof(prog), "%u", CT_PROG);
	run(&r, (const char *[]){ "-c", "50", "-d", "4", addr, prog, "1", NULL });
	check_ok(&r, 50);
	run(&r, (const char *[]){ "-t", "tcp", "-c", "3", "-i", "5", addr, prog, "1", NULL });
	check_ok(&r, 3);
	if (srv.tcp6_port) {
		snprintf(addr, sizeof(addr), "[::1]:%u", srv.tcp6_port);
		run(&r, (const char *[]){ "-c", "5", addr, prog, "1", NULL });
		check_ok(&r, 5);
	}
}

static void test_udp(void **state)
{
	char addr[64], prog[32];
	struct result r;

	(void)state;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", srv.udp_port);
	snprintf(prog, sizeof(prog), "%u", CT_PROG);
	run(&r, (const char *[]){ "-t", "udp", "-c", "40", "-d", "8", addr, prog, "1", NULL });
	check_ok(&r, 40);
}

static void test_prog_unavail(void **state)
{
	char addr[64];
	struct result r;

	(void)state;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", srv.tcp_port);
	run(&r, (const char *[]){ "-c", "5", "-d", "2", addr, "0x20000999", "1", NULL });
	assert_int_equal(r.status, 1);
	assert_int_equal(r.fields, 8);
	assert_int_equal(r.calls, 5);
	assert_int_equal(r.replies, 5);   /* answered, but PROG_UNAVAIL */
	assert_int_equal(r.errors, 5);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", srv.udp_port);
	run(&r, (const char *[]){ "-t", "udp", "-c", "2", addr, "100003", "4", NULL });
	assert_int_equal(r.status, 1);
	assert_int_equal(r.errors, 2);
}

static void test_usage(void **state)
{
	struct result r;

	(void)state;
	run(&r, (const char *[]){ NULL });
	assert_int_equal(r.status, 2);
	run(&r, (const char *[]){ "-t", "sctp", "127.0.0.1:1", "1", "1", NULL });
	assert_int_equal(r.status, 2);
	run(&r, (const char *[]){ "-c", "0", "127.0.0.1:1", "1", "1", NULL });
	assert_int_equal(r.status, 2);
	run(&r, (const char *[]){ "localhost:1", "1", "1", NULL });
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "connection refused"));
	/* one convention (issue #37): help to stdout with 0, a version, and a
	 * message that names the bad argument with 2 */
	run(&r, (const char *[]){ "--help", NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: rpcrdma-ping"));
	assert_string_equal(r.err, "");
	run(&r, (const char *[]){ "-h", NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "--timeout"));
	run(&r, (const char *[]){ "-V", NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "librpcrdma"));
	run(&r, (const char *[]){ "--version", NULL });
	assert_int_equal(r.status, 0);
	run(&r, (const char *[]){ "-c", "abc", "127.0.0.1:1", "1", "1", NULL });
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "COUNT must be a number from 1 to 100000000: 'abc'"));
	run(&r, (const char *[]){ "--bogus", NULL });
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown option: '--bogus'"));
	run(&r, (const char *[]){ "-t", "rdma6", "127.0.0.1", "1", NULL });
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "2 arguments given"));
	run(&r, (const char *[]){ "-t", "tcp6", "127.0.0.1:1", "1", "1", NULL });
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "IPv4 address with an IPv6 transport"));
	run(&r, (const char *[]){ "no-such-host.invalid", "1", "1", NULL });
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown host"));
}

/* A host name, and refusals in words. */
static void test_names(void **state)
{
	struct result r;
	char addr[64];

	(void)state;
	snprintf(addr, sizeof(addr), "localhost:%u", srv.tcp_port);
	run(&r, (const char *[]){ "-c", "3", addr, "0x20000123", "1", NULL });
	check_ok(&r, 3);
	run(&r, (const char *[]){ "-c", "1", addr, "0x20000123", "7", NULL });
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "RPC: Program/version mismatch; low version = 1, "
				      "high version = 1"));
}

static int setup(void **state)
{
	(void)state;
	ct_server_start(&srv);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ct_server_stop(&srv);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_prog_unavail),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_names),
	};
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-OF-rpcrdma-ping\n", argv[0]);
		return 2;
	}
	tool = argv[1];
	return cmocka_run_group_tests(tests, setup, teardown);
}
