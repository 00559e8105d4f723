/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box, both ends ours over TCP loopback: a server program that,
 * while handling a call, sends backward calls on its connection
 * (rpcrdma_svc_call_conn, rpcrdma_svc_conn_call_async) to a client made
 * with rpcrdma_clnt_create("tcp") whose backchannel service
 * (rpcrdma_clnt_set_backchannel) serves the callback program.  Replies
 * come back; a client without a backchannel never answers (timeouts); an
 * unknown callback program; the client going away with calls pending; a
 * flood of calls; UDP refused.  Waits are bounded for liveness only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "bc_util.h"

struct fix {
	struct bc_state st;
	struct rpcrdma_svc *svc, *cbsvc;
	struct rpcrdma_clnt *clnt;
	uint16_t tcp_port, udp_port;
};

static void fix_start(struct fix *f, bool backchannel)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage b;
	char text[64];
	socklen_t len;

	memset(f, 0, sizeof(*f));
	bc_state_init(&f->st);
	assert_int_equal(rpcrdma_svc_create(NULL, &f->svc), 0);
	struct rpcrdma_svc_program p = bc_program(&f->st);
	assert_int_equal(rpcrdma_svc_register(f->svc, &p), 0);
	assert_int_equal(rpcrdma_svc_listen_tcp(f->svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	f->tcp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	assert_int_equal(rpcrdma_svc_listen_udp(f->svc, (struct sockaddr *)&a, sizeof(a), &b, NULL), 0);
	f->udp_port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	assert_int_equal(rpcrdma_svc_start(f->svc), 0);

	/* The callback service listens nowhere and runs no loop. */
	assert_int_equal(rpcrdma_svc_create(NULL, &f->cbsvc), 0);
	assert_int_equal(rpcrdma_svc_register(f->cbsvc, &cb_program), 0);

	snprintf(text, sizeof(text), "127.0.0.1:%u", f->tcp_port);
	assert_int_equal(rpcrdma_clnt_parse_addr(text, &b, &len), 0);
	assert_int_equal(rpcrdma_clnt_create("tcp", (struct sockaddr *)&b, len, BC_PROG, 1, NULL,
					     &f->clnt), 0);
	if (backchannel)
		assert_int_equal(rpcrdma_clnt_set_backchannel(f->clnt, f->cbsvc), 0);
}

static void fix_stop(struct fix *f)
{
	rpcrdma_clnt_destroy(f->clnt);
	rpcrdma_svc_destroy(f->svc);
	rpcrdma_svc_destroy(f->cbsvc);
	bc_state_fini(&f->st);
}

static int enc_args(struct rpcrdma_xdr_enc *e, const void *p)
{
	const struct bc_cb_args *a = p;
	return rpcrdma_xdr_put_u32(e, a->n) || rpcrdma_xdr_put_u32(e, a->value) ||
	       rpcrdma_xdr_put_u32(e, a->timeout_ms) || rpcrdma_xdr_put_u32(e, a->cbprog);
}

/* Asks the server (a fore call) to send n backward calls; returns how many
 * it sent. */
static uint32_t ask(struct fix *f, uint32_t n, uint32_t value, uint32_t timeout_ms,
		    uint32_t cbprog)
{
	struct bc_cb_args a = { n, value, timeout_ms, cbprog };
	uint32_t sent = UINT32_MAX;
	struct rpcrdma_clnt_req req = {
		.size = sizeof(req), .proc = 1, .encode = enc_args, .args = &a, .args_max = 16,
		.decode = bc_dec_u32, .res = &sent, .res_max = 64,
	};
	assert_int_equal(rpcrdma_clnt_call(f->clnt, &req), 0);
	return sent;
}

static void test_roundtrip(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f, true);
	assert_int_equal(ask(&f, 5, 100, 0, 0), 5);
	assert_true(bc_wait_done(&f.st, 5));
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(f.st.calls[i].status, 0);
		assert_int_equal(f.st.calls[i].res, 100 + i + 1);
	}
	struct rpcrdma_svc_stats cs;
	rpcrdma_svc_get_stats(f.cbsvc, &cs, sizeof(cs));
	assert_int_equal(cs.calls, 5);
	/* fore calls still work on the same connection */
	assert_int_equal(ask(&f, 0, 0, 0, 0), 0);
	fix_stop(&f);
}

static void test_no_backchannel_times_out(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f, false);
	assert_int_equal(ask(&f, 2, 1, 100, 0), 2);
	assert_true(bc_wait_done(&f.st, 2));
	assert_int_equal(f.st.calls[0].status, -ETIMEDOUT);
	assert_int_equal(f.st.calls[1].status, -ETIMEDOUT);
	/* set now: the next ones are answered */
	assert_int_equal(rpcrdma_clnt_set_backchannel(f.clnt, f.cbsvc), 0);
	assert_int_equal(ask(&f, 1, 7, 0, 0), 1);
	assert_true(bc_wait_done(&f.st, 3));
	assert_int_equal(f.st.calls[2].status, 0);
	assert_int_equal(f.st.calls[2].res, 8);
	/* and cleared again: dropped, timed out */
	assert_int_equal(rpcrdma_clnt_set_backchannel(f.clnt, NULL), 0);
	assert_int_equal(ask(&f, 1, 7, 100, 0), 1);
	assert_true(bc_wait_done(&f.st, 4));
	assert_int_equal(f.st.calls[3].status, -ETIMEDOUT);
	fix_stop(&f);
}

static void test_unknown_program(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f, true);
	assert_int_equal(ask(&f, 1, 1, 0, CB_PROG + 1), 1);
	assert_true(bc_wait_done(&f.st, 1));
	assert_int_equal(f.st.calls[0].status, -EREMOTEIO);
	assert_int_equal(f.st.calls[0].req.accept_stat, RPCRDMA_SVC_PROG_UNAVAIL);
	fix_stop(&f);
}

/* The client goes away with calls pending: they fail with -ECONNRESET, and
 * the handle says so afterwards. */
static void test_client_gone(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f, false);
	assert_int_equal(ask(&f, 3, 1, 600000, 0), 3);
	rpcrdma_clnt_destroy(f.clnt);
	f.clnt = NULL;
	assert_true(bc_all_reset(&f.st, 3));
	fix_stop(&f);
}

/* 4000 backward calls in flight at once (in four fore calls), all answered. */
static void test_flood(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f, true);
	/* The callback service answers at most max_calls (64) at once; the
	 * rest wait in the socket: TCP flow control, nothing dropped. */
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(ask(&f, 1000, 1000 * k, 600000, 0), 1000);
	assert_true(bc_wait_done(&f.st, 4000));
	for (unsigned i = 0; i < 4000; i++) {
		assert_int_equal(f.st.calls[i].status, 0);
		assert_int_equal(f.st.calls[i].res, i + 1);
	}
	fix_stop(&f);
}

static void test_udp_refused(void **state)
{
	(void)state;
	struct fix f;
	fix_start(&f, true);
	struct rpcrdma_clnt *u;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(f.udp_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(rpcrdma_clnt_create("udp", (struct sockaddr *)&a, sizeof(a), BC_PROG, 1,
					     NULL, &u), 0);
	assert_int_equal(rpcrdma_clnt_set_backchannel(u, f.cbsvc), -EOPNOTSUPP);
	rpcrdma_clnt_destroy(u);
	fix_stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_no_backchannel_times_out),
		cmocka_unit_test(test_unknown_program),
		cmocka_unit_test(test_client_gone),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_udp_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
