/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC client (<rpcrdma/clnt.h>) over TCP and UDP against the library's
 * own service on loopback: calls synchronous and asynchronous, credentials,
 * results and errors, timeouts, bulk items, destroy with calls in flight.
 * Hostile and foreign peers are in test_clnt_fake.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clnt_util.h"

static struct ct_server srv;

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

static uint16_t port_of(const char *netid)
{
	if (!strcmp(netid, "tcp"))
		return srv.tcp_port;
	if (!strcmp(netid, "udp"))
		return srv.udp_port;
	if (!strcmp(netid, "tcp6"))
		return srv.tcp6_port;
	return srv.udp6_port;
}

static void null_call(const char *netid)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;

	if (!port_of(netid)) {
		print_message("no ::1 here, %s skipped\n", netid);
		return;
	}
	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, CT_VERS, NULL, &c), 0);
	assert_string_equal(rpcrdma_clnt_netid(c), netid);
	for (int i = 0; i < 3; i++) {
		ct_req(&r, CT_NULL);
		assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
		assert_int_equal(r.reply_stat, 0);
		assert_int_equal(r.accept_stat, 0);
	}
	assert_int_equal(ct_stat(c, RPCRDMA_STAT_CALLS), 3);
	assert_int_equal(ct_stat(c, RPCRDMA_STAT_REPLIES), 3);
	rpcrdma_clnt_destroy(c);
}

static void test_null_all_netids(void **state)
{
	(void)state;
	null_call("tcp");
	null_call("udp");
	null_call("tcp6");
	null_call("udp6");
}

static void whoami(const char *netid)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;
	struct ct_who w;
	uint32_t gids[3] = { 7, 8, 9 };
	char name[256];

	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, CT_VERS, NULL, &c), 0);
	ct_req(&r, CT_WHOAMI);
	r.decode = ct_dec_who;
	r.res = &w;
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	assert_int_equal(w.flavor, RPCRDMA_AUTH_NONE);

	memset(name, 'm', 255);
	name[255] = 0;
	assert_int_equal(rpcrdma_clnt_set_auth_sys(c, name, 1000, 100, 3, gids), 0);
	memset(&w, 0, sizeof(w));
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	assert_int_equal(w.flavor, RPCRDMA_AUTH_SYS);
	assert_int_equal(w.uid, 1000);
	assert_int_equal(w.gid, 100);
	assert_int_equal(w.ngids, 3);
	assert_string_equal(w.name, name);

	/* limits of AUTH_SYS */
	char longname[257];
	memset(longname, 'x', 256);
	longname[256] = 0;
	assert_int_equal(rpcrdma_clnt_set_auth_sys(c, longname, 0, 0, 0, NULL), -EINVAL);
	assert_int_equal(rpcrdma_clnt_set_auth_sys(c, "h", 0, 0, 17, gids), -EINVAL);

	assert_int_equal(rpcrdma_clnt_set_auth_none(c), 0);
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	assert_int_equal(w.flavor, RPCRDMA_AUTH_NONE);
	rpcrdma_clnt_destroy(c);
}

static void test_auth(void **state)
{
	(void)state;
	whoami("tcp");
	whoami("udp");
}

static void errors(const char *netid)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;
	char line[128];

	/* procedure not there */
	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, CT_VERS, NULL, &c), 0);
	ct_req(&r, 99);
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EREMOTEIO);
	assert_int_equal(r.reply_stat, 0);
	assert_int_equal(r.accept_stat, 3);   /* PROC_UNAVAIL */
	assert_string_equal(rpcrdma_clnt_sperror(&r, -EREMOTEIO, "ct", line, sizeof(line)),
			    "ct: RPC: Procedure unavailable");
	rpcrdma_clnt_destroy(c);

	/* version not there */
	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, 7, NULL, &c), 0);
	ct_req(&r, CT_NULL);
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EREMOTEIO);
	assert_int_equal(r.accept_stat, 2);   /* PROG_MISMATCH */
	assert_int_equal(r.vers_low, CT_VERS);
	assert_int_equal(r.vers_high, CT_VERS);
	assert_string_equal(rpcrdma_clnt_sperror(&r, -EREMOTEIO, "ct", line, sizeof(line)),
			    "ct: RPC: Program/version mismatch; low version = 1, high version = 1");
	/* a caller built before vers_low existed: still served, not written */
	r.size = offsetof(struct rpcrdma_clnt_req, vers_low);
	r.vers_low = r.vers_high = 77;
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EREMOTEIO);
	assert_int_equal(r.vers_low, 77);
	assert_string_equal(rpcrdma_clnt_sperror(&r, -EREMOTEIO, NULL, line, sizeof(line)),
			    "RPC: Program/version mismatch");
	r.size = offsetof(struct rpcrdma_clnt_req, vers_low) - 1;
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EINVAL);
	rpcrdma_clnt_destroy(c);

	/* program not there */
	assert_int_equal(ct_client(netid, port_of(netid), 0x20000999, 1, NULL, &c), 0);
	ct_req(&r, CT_NULL);
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EREMOTEIO);
	assert_int_equal(r.accept_stat, 1);   /* PROG_UNAVAIL */
	assert_string_equal(rpcrdma_clnt_sperror(&r, -EREMOTEIO, "ct", line, sizeof(line)),
			    "ct: RPC: Program unavailable");
	rpcrdma_clnt_destroy(c);
}

/* The words of the other outcomes, and the bounds of the buffer. */
static void test_sperror(void **state)
{
	struct rpcrdma_clnt_req r = { .size = sizeof(r) };
	char line[128], tiny[8];

	(void)state;
	assert_string_equal(rpcrdma_clnt_sperror(NULL, -ETIMEDOUT, "p", line, sizeof(line)),
			    "p: RPC: Timed out");
	assert_string_equal(rpcrdma_clnt_sperror(NULL, 0, "", line, sizeof(line)), "RPC: Success");
	assert_string_equal(rpcrdma_clnt_sperror(NULL, -ECONNREFUSED, "p", line, sizeof(line)),
			    "p: RPC: Unable to send; errno = connection refused");
	r.reply_stat = 1;
	r.accept_stat = 1;
	r.auth_stat = 5;
	assert_string_equal(rpcrdma_clnt_sperror(&r, -EACCES, "p", line, sizeof(line)),
			    "p: RPC: Authentication error; why = Client credential too weak");
	r.accept_stat = 0;
	r.vers_low = r.vers_high = 2;
	assert_string_equal(rpcrdma_clnt_sperror(&r, -EACCES, "p", line, sizeof(line)),
			    "p: RPC: Incompatible versions of RPC; low version = 2, high version = 2");
	assert_string_equal(rpcrdma_clnt_sperror(NULL, -EREMOTEIO, "p", tiny, sizeof(tiny)),
			    "p: RPC:");
	assert_null(rpcrdma_clnt_sperror(NULL, 0, "p", NULL, 4));
}

static void test_errors(void **state)
{
	(void)state;
	errors("tcp");
	errors("udp");
}

static int enc_garbage(struct rpcrdma_xdr_enc *e, const void *a)
{
	(void)a;
	return rpcrdma_xdr_put_u32(e, CT_BULK_MAX + 1);   /* a blob too long */
}

static int dec_fail(struct rpcrdma_xdr_dec *d, void *r)
{
	(void)d;
	(void)r;
	return -EBADMSG;
}

static int enc_big(struct rpcrdma_xdr_enc *e, const void *a)
{
	(void)a;
	return rpcrdma_xdr_reserve(e, 64) ? 0 : -EMSGSIZE;
}

static void test_encode_decode_errors(void **state)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;

	(void)state;
	assert_int_equal(ct_client("tcp", srv.tcp_port, CT_PROG, CT_VERS, NULL, &c), 0);
	/* the server refuses the arguments */
	ct_req(&r, CT_BULK);
	r.encode = enc_garbage;
	r.args_max = 4;
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EREMOTEIO);
	assert_int_equal(r.accept_stat, 4);   /* GARBAGE_ARGS */
	/* the encoder runs out of room: -EMSGSIZE, nothing sent */
	ct_req(&r, CT_NULL);
	r.encode = enc_big;
	r.args_max = 60;
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EMSGSIZE);
	/* the decoder refuses the results */
	ct_req(&r, CT_WHOAMI);
	r.decode = dec_fail;
	assert_int_equal(rpcrdma_clnt_call(c, &r), -EBADMSG);
	/* the client goes on */
	ct_req(&r, CT_NULL);
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	rpcrdma_clnt_destroy(c);
}

static void timeout_call(const char *netid)
{
	struct rpcrdma_clnt_opts o;
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;

	rpcrdma_clnt_opts_init(&o);
	o.retrans_ms = 20;
	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, CT_VERS, &o, &c), 0);
	ct_req(&r, CT_DROP);
	r.timeout_ms = 200;
	assert_int_equal(rpcrdma_clnt_call(c, &r), -ETIMEDOUT);
	assert_int_equal(ct_stat(c, RPCRDMA_STAT_TIMEOUTS), 1);
	/* the client still works */
	ct_req(&r, CT_NULL);
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	rpcrdma_clnt_destroy(c);
}

static void test_timeout(void **state)
{
	(void)state;
	timeout_call("tcp");
	timeout_call("udp");
}

static void bulk(const char *netid, uint32_t len)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;
	struct ct_bulk_res res;
	uint8_t *data = malloc(len), *got = malloc(len);
	struct ct_blob arg = { .p = data, .len = len };

	for (uint32_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, CT_VERS, NULL, &c), 0);
	ct_req(&r, CT_BULK);
	r.encode = ct_enc_bulk_arg;
	r.args = &arg;
	r.args_max = 8 + len;
	r.decode = ct_dec_bulk_res;
	r.res = &res;
	r.res_max = 64 + len;
	r.res_bulk = got;
	r.res_bulk_len = len;
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	assert_int_equal(res.len, len);
	if (len <= sizeof(res.copy))
		assert_memory_equal(res.copy, data, len);
	assert_int_equal(res.sum, ct_sum(data, len));
	rpcrdma_clnt_destroy(c);
	free(data);
	free(got);
}

static void test_bulk(void **state)
{
	(void)state;
	bulk("tcp", 0);
	bulk("tcp", 1);
	bulk("tcp", 4000);
	bulk("tcp", 300000);
	bulk("udp", 5);
	bulk("udp", 8000);
}

static int enc_two_bulks(struct rpcrdma_xdr_enc *e, const void *a)
{
	(void)a;
	int err = rpcrdma_clnt_put_bulk(e, "ab", 2);

	if (err)
		return err;
	return rpcrdma_clnt_put_bulk(e, "cd", 2) == -EINVAL ? -E2BIG : -EIO;
}

static void test_bulk_limits(void **state)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;

	(void)state;
	assert_int_equal(ct_client("tcp", srv.tcp_port, CT_PROG, CT_VERS, NULL, &c), 0);
	ct_req(&r, CT_NULL);
	r.encode = enc_two_bulks;
	r.args_max = 64;
	assert_int_equal(rpcrdma_clnt_call(c, &r), -E2BIG);   /* the second one: -EINVAL */
	rpcrdma_clnt_destroy(c);
}

#define NASYNC 200

static void async_calls(const char *netid)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req *r = calloc(NASYNC, sizeof(*r));
	struct ct_bulk_res *res = calloc(NASYNC, sizeof(*res));
	uint32_t *vals = calloc(NASYNC, sizeof(*vals));
	struct ct_blob *args = calloc(NASYNC, sizeof(*args));
	struct ct_waiter w;

	ct_waiter_init(&w);
	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, CT_VERS, NULL, &c), 0);
	for (int i = 0; i < NASYNC; i++) {
		vals[i] = (uint32_t)i * 2654435761u;
		args[i].p = &vals[i];
		args[i].len = 4;
		ct_req(&r[i], CT_BULK);
		r[i].encode = ct_enc_bulk_arg;
		r[i].args = &args[i];
		r[i].args_max = 16;
		r[i].decode = ct_dec_bulk_res;
		r[i].res = &res[i];
		assert_int_equal(rpcrdma_clnt_call_async(c, &r[i], ct_waiter_done, &w), 0);
	}
	ct_waiter_wait(&w, NASYNC);
	assert_int_equal(w.ok, NASYNC);
	for (int i = 0; i < NASYNC; i++) {
		assert_int_equal(res[i].len, 4);
		assert_memory_equal(res[i].copy, &vals[i], 4);
		for (int j = 0; j < i; j += 37)
			assert_int_not_equal(r[i].xid, r[j].xid);
	}
	rpcrdma_clnt_destroy(c);
	free(r);
	free(res);
	free(vals);
	free(args);
}

static void test_async(void **state)
{
	(void)state;
	async_calls("tcp");
	async_calls("udp");
}

static void destroy_in_flight(const char *netid)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r[8];
	struct ct_waiter w;

	ct_waiter_init(&w);
	assert_int_equal(ct_client(netid, port_of(netid), CT_PROG, CT_VERS, NULL, &c), 0);
	for (int i = 0; i < 8; i++) {
		ct_req(&r[i], CT_DROP);
		r[i].timeout_ms = 600000;
		assert_int_equal(rpcrdma_clnt_call_async(c, &r[i], ct_waiter_done, &w), 0);
	}
	rpcrdma_clnt_destroy(c);
	assert_int_equal(w.done, 8);
	assert_int_equal(w.ok, 0);
	assert_int_equal(w.last, -ECANCELED);
}

static void test_destroy_in_flight(void **state)
{
	(void)state;
	destroy_in_flight("tcp");
	destroy_in_flight("udp");
	rpcrdma_clnt_destroy(NULL);
}

static void test_create_errors(void **state)
{
	struct rpcrdma_clnt *c = NULL;
	struct sockaddr_storage ss;
	socklen_t len;
	struct rpcrdma_clnt_opts o;

	(void)state;
	assert_int_equal(rpcrdma_clnt_parse_addr("127.0.0.1:9", &ss, &len), 0);
	assert_int_equal(rpcrdma_clnt_create("sctp", (struct sockaddr *)&ss, len, 1, 1, NULL, &c),
			 -EINVAL);
	assert_int_equal(rpcrdma_clnt_create("tcp6", (struct sockaddr *)&ss, len, 1, 1, NULL, &c),
			 -EINVAL);
	assert_int_equal(rpcrdma_clnt_create("tcp", (struct sockaddr *)&ss, 4, 1, 1, NULL, &c),
			 -EINVAL);
	/* no place for the client: refused before anything is made (it crashed
	 * once a connection was made, issue #37) */
	assert_int_equal(ct_client("tcp", srv.tcp_port, CT_PROG, CT_VERS, NULL, NULL), -EINVAL);
	rpcrdma_clnt_opts_init(&o);
	o.timeout_ms = 0;
	assert_int_equal(rpcrdma_clnt_create("tcp", (struct sockaddr *)&ss, len, 1, 1, &o, &c),
			 -EINVAL);
#ifndef RPCRDMA_HAVE_RDMA
	assert_int_equal(rpcrdma_clnt_create("rdma", (struct sockaddr *)&ss, len, 1, 1, NULL, &c),
			 -EPROTONOSUPPORT);
#endif
	assert_null(c);
}

/* Host names, as libtirpc's clnt_create() takes them: "localhost" over
 * tcp and udp, a numeric address with brackets, a name that does not
 * resolve, an address of the other family, and rpcbind's port 0 refused
 * where no rpcbind runs. */
static void test_create_host(void **state)
{
	struct rpcrdma_clnt *c = NULL;
	struct rpcrdma_clnt_req r;

	(void)state;
	assert_int_equal(rpcrdma_clnt_create_host("tcp", "localhost", srv.tcp_port, CT_PROG,
						  CT_VERS, NULL, &c), 0);
	ct_req(&r, CT_NULL);
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	rpcrdma_clnt_destroy(c);
	assert_int_equal(rpcrdma_clnt_create_host("udp", "127.0.0.1", srv.udp_port, CT_PROG,
						  CT_VERS, NULL, &c), 0);
	assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
	rpcrdma_clnt_destroy(c);
	if (srv.tcp6_port) {
		assert_int_equal(rpcrdma_clnt_create_host("tcp6", "[::1]", srv.tcp6_port, CT_PROG,
							  CT_VERS, NULL, &c), 0);
		assert_int_equal(rpcrdma_clnt_call(c, &r), 0);
		rpcrdma_clnt_destroy(c);
	}
	c = NULL;
	assert_int_equal(rpcrdma_clnt_create_host("tcp", "no-such-host.invalid", 1, CT_PROG,
						  CT_VERS, NULL, &c), -ENXIO);
	assert_int_equal(rpcrdma_clnt_create_host("tcp", "::1", 1, CT_PROG, CT_VERS, NULL, &c),
			 -EAFNOSUPPORT);
	assert_int_equal(rpcrdma_clnt_create_host("tcp6", "127.0.0.1", 1, CT_PROG, CT_VERS, NULL,
						  &c), -EAFNOSUPPORT);
	assert_int_equal(rpcrdma_clnt_create_host("tcp", "", 1, CT_PROG, CT_VERS, NULL, &c),
			 -EINVAL);
	assert_int_equal(rpcrdma_clnt_create_host("sctp", "localhost", 1, CT_PROG, CT_VERS, NULL,
						  &c), -EINVAL);
	assert_int_equal(rpcrdma_clnt_create_host("tcp", NULL, 1, CT_PROG, CT_VERS, NULL, &c),
			 -EINVAL);
	assert_null(c);
	assert_non_null(strstr(rpcrdma_strerror(-ENXIO), "unknown host"));
}

static void test_parse_addr(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;

	(void)state;
	assert_int_equal(rpcrdma_clnt_parse_addr("10.1.2.3", &ss, &len), 0);
	assert_int_equal(a4->sin_family, AF_INET);
	assert_int_equal(a4->sin_port, 0);
	assert_int_equal(len, sizeof(*a4));
	assert_int_equal(rpcrdma_clnt_parse_addr("10.1.2.3:2049", &ss, &len), 0);
	assert_int_equal(ntohs(a4->sin_port), 2049);
	assert_int_equal(rpcrdma_clnt_parse_addr("::1", &ss, &len), 0);
	assert_int_equal(a6->sin6_family, AF_INET6);
	assert_int_equal(a6->sin6_port, 0);
	assert_int_equal(rpcrdma_clnt_parse_addr("[fe80::1]:20049", &ss, &len), 0);
	assert_int_equal(ntohs(a6->sin6_port), 20049);
	assert_int_equal(rpcrdma_clnt_parse_addr("fe80::1%lo", &ss, &len), 0);
	assert_int_equal(a6->sin6_scope_id, 1);
	assert_int_equal(a6->sin6_port, 0);
	assert_int_equal(rpcrdma_clnt_parse_addr("[fe80::1%lo]:20049", &ss, &len), 0);
	assert_int_not_equal(a6->sin6_scope_id, 0);
	assert_int_equal(ntohs(a6->sin6_port), 20049);
	assert_int_equal(rpcrdma_clnt_parse_addr("fe80::1%3", &ss, &len), 0);
	assert_int_equal(a6->sin6_scope_id, 3);
	assert_int_equal(rpcrdma_clnt_parse_addr("fe80::1%lo:20049", &ss, &len), 0);
	assert_int_equal(a6->sin6_scope_id, 1);
	assert_int_equal(ntohs(a6->sin6_port), 20049);
	assert_int_equal(rpcrdma_clnt_parse_addr("fe80::ff:fe00:1%7:111", &ss, &len), 0);
	assert_int_equal(a6->sin6_scope_id, 7);
	assert_int_equal(ntohs(a6->sin6_port), 111);

	const char *bad[] = { "", "host.example", "1.2.3.4:", "1.2.3.4:65536", "1.2.3.4:-1",
			      "1.2.3.4:+1", "[::1", "[::1]x", "[::1]:", "1.2.3.4.5", "::1%",
			      "fe80::1%nosuchif0", "fe80::1%lo:", "fe80::1%lo:x", "[1.2.3.4]:5x", "1.2.3.4:99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rpcrdma_clnt_parse_addr(bad[i], &ss, &len) != -EINVAL)
			fail_msg("\"%s\" parsed", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_addr),
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_null_all_netids),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_sperror),
		cmocka_unit_test(test_create_host),
		cmocka_unit_test(test_encode_decode_errors),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_bulk_limits),
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_destroy_in_flight),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
