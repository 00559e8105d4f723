/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gss_testsvc KEYTAB [RDMA_ADDR]: a service on the library's core, over
 * TCP on 127.0.0.1 (port chosen by the kernel), that takes RPCSEC_GSS only
 * (RPCRDMA_SVC_VERS_AUTH_GSS) with the acceptor keys of KEYTAB; with
 * RDMA_ADDR (numeric, "fe80::1%dev" or "[V6]:PORT"), over RPC-over-RDMA
 * there too.  Prints "port N" (and "rdma_port N") when it listens; stops
 * at the end of its standard input and prints its counters ("calls N
 * auth_errors N dropped N", then "gss contexts_created N ..." from
 * rpcrdma_svc_gss_stats).
 *
 * Program GSS_TESTPROG version 1:
 *   0 NULL
 *   1 ECHO    opaque<65536> -> the same bytes
 *   2 WHOAMI  void -> string "principal uid service"
 *   3 BIGECHO opaque<4 MiB> -> the same bytes, marked as bulk data
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/gss.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/svc.h>
#include <rpcrdma/xprt.h>

#include "gss_testprog.h"

struct echo {
	const void *data;
	uint32_t len;
};

static int dec_echo(struct rpcrdma_xdr_dec *d, void *args)
{
	struct echo *e = args;
	return rpcrdma_xdr_get_opaque_ref(d, &e->data, GSS_TESTPROG_ECHO_MAX, &e->len);
}

static size_t est_echo(const struct rpcrdma_svc_call *call, const void *args)
{
	(void)call;
	return 4 + ((((const struct echo *)args)->len + 3) & ~3u);
}

static int do_echo(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call;
	*(struct echo *)res = *(struct echo *)args;
	return RPCRDMA_SVC_SUCCESS;
}

static int enc_echo(struct rpcrdma_xdr_enc *e, const void *res)
{
	const struct echo *r = res;
	return rpcrdma_xdr_put_opaque(e, r->data, r->len);
}

static int dec_big(struct rpcrdma_xdr_dec *d, void *args)
{
	struct echo *e = args;
	return rpcrdma_xdr_get_opaque_ref(d, &e->data, GSS_TESTPROG_BIG_MAX, &e->len);
}

static int do_big(struct rpcrdma_svc_call *call, void *args, void *res)
{
	*(struct echo *)res = *(struct echo *)args;
	if (((struct echo *)args)->len)
		(void)rpcrdma_svc_call_set_bulk(call, 4, ((struct echo *)args)->len);
	return RPCRDMA_SVC_SUCCESS;
}

struct who {
	char s[512];
};

static size_t est_who(const struct rpcrdma_svc_call *call, const void *args)
{
	(void)call, (void)args;
	return 4 + sizeof(((struct who *)0)->s);
}

static int do_who(struct rpcrdma_svc_call *call, void *args, void *res)
{
	struct who *w = res;
	const char *p = rpcrdma_svc_call_principal(call);
	(void)args;
	snprintf(w->s, sizeof(w->s), "%s %u %d", p ? p : "-",
		 (unsigned)rpcrdma_svc_call_cred(call)->uid, rpcrdma_svc_call_gss_service(call));
	return RPCRDMA_SVC_SUCCESS;
}

static int enc_who(struct rpcrdma_xdr_enc *e, const void *res)
{
	return rpcrdma_xdr_put_string(e, ((const struct who *)res)->s);
}

static int do_null(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call, (void)args, (void)res;
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc procs[] = {
	{.name = "NULL", .handler = do_null},
	{.name = "ECHO", .args_size = sizeof(struct echo), .res_size = sizeof(struct echo),
	 .decode_args = dec_echo, .estimate = est_echo, .handler = do_echo,
	 .encode_res = enc_echo},
	{.name = "WHOAMI", .res_size = sizeof(struct who), .estimate = est_who,
	 .handler = do_who, .encode_res = enc_who},
	{.name = "BIGECHO", .args_size = sizeof(struct echo), .res_size = sizeof(struct echo),
	 .decode_args = dec_big, .estimate = est_echo, .handler = do_big,
	 .encode_res = enc_echo},
};

static const struct rpcrdma_svc_version vers[] = {
	{.vers = GSS_TESTPROG_VERS, .flags = RPCRDMA_SVC_VERS_AUTH_GSS, .nprocs = 4,
	 .procs = procs},
};

/* Every call dropped and connection closed, with its reason, on stdout
 * (the test prints it when something fails). */
static void log_event(void *arg, const struct rpcrdma_log_record *rec)
{
	(void)arg;
	printf("log: %s: %s\n", rpcrdma_log_event_str(rec->event), rec->reason);
	fflush(stdout);
}

/* RPC-over-RDMA on addr too (calls up to 4 MiB and their headers). */
static int listen_rdma(struct rpcrdma_svc *svc, const char *addr, struct rpcrdma_poller **poller)
{
#ifdef RPCRDMA_HAVE_RDMA
	struct sockaddr_storage ss, bound;
	socklen_t len = sizeof(ss), blen = sizeof(bound);
	struct rpcrdma_listener_opts lo;
	int rc;

	if (rpcrdma_clnt_parse_addr(addr, &ss, &len))
		return -EINVAL;
	if ((rc = rpcrdma_poller_create(NULL, poller)))
		return rc;
	rpcrdma_listener_opts_init(&lo);
	lo.max_call_bytes = GSS_TESTPROG_BIG_MAX + 65536;
	rc = rpcrdma_svc_listen_rdma(svc, *poller, (struct sockaddr *)&ss, &lo, &bound, &blen,
				     NULL);
	if (rc)
		return rc;
	printf("rdma_port %u\n", ntohs(bound.ss_family == AF_INET6
					       ? ((struct sockaddr_in6 *)&bound)->sin6_port
					       : ((struct sockaddr_in *)&bound)->sin_port));
	return 0;
#else
	(void)svc, (void)addr, (void)poller;
	return -ENOTSUP;
#endif
}

static int serve(const char *keytab, const char *rdma)
{
	struct rpcrdma_poller *poller = NULL;
	struct rpcrdma_svc *svc;
	struct rpcrdma_svc_gss_opts go;
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	const struct rpcrdma_svc_program prog = {.prog = GSS_TESTPROG, .name = "gsstest",
						 .nvers = 1, .vers = vers};
	struct rpcrdma_svc_opts so;
	rpcrdma_svc_opts_init(&so);
	so.log_fn = log_event;
	so.max_record = GSS_TESTPROG_BIG_MAX + 65536;
	int rc = rpcrdma_svc_create(&so, &svc);
	if (rc)
		return rc;
	rpcrdma_svc_gss_opts_init(&go);
	go.keytab = keytab;
	go.window = 32;
	if ((rc = rpcrdma_svc_set_gss(svc, &go)) || (rc = rpcrdma_svc_register(svc, &prog)) ||
	    (rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&sin, sizeof(sin), &bound,
					 &blen)) ||
	    (rdma && (rc = listen_rdma(svc, rdma, &poller))) || (rc = rpcrdma_svc_start(svc))) {
		rpcrdma_svc_destroy(svc);
		if (poller)
			rpcrdma_poller_destroy(poller);
		return rc;
	}
	printf("port %u\n", ntohs(((struct sockaddr_in *)&bound)->sin_port));
	fflush(stdout);
	char buf[64];
	while (read(0, buf, sizeof(buf)) > 0)
		;
	struct rpcrdma_svc_stats st;
	struct rpcrdma_svc_gss_stats gst;
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	rpcrdma_svc_gss_stats(svc, &gst, sizeof(gst));
	rpcrdma_svc_destroy(svc);
	if (poller)
		rpcrdma_poller_destroy(poller);
	printf("calls %llu auth_errors %llu dropped %llu\n", (unsigned long long)st.calls,
	       (unsigned long long)st.auth_errors, (unsigned long long)st.dropped);
	printf("gss contexts_created %llu contexts_destroyed %llu contexts_evicted %llu "
	       "contexts_expired %llu contexts_now %llu credproblem_sent %llu ctxproblem_sent %llu "
	       "replays_dropped %llu garbage_args %llu\n",
	       (unsigned long long)gst.contexts_created, (unsigned long long)gst.contexts_destroyed,
	       (unsigned long long)gst.contexts_evicted, (unsigned long long)gst.contexts_expired,
	       (unsigned long long)gst.contexts_now, (unsigned long long)gst.credproblem_sent,
	       (unsigned long long)gst.ctxproblem_sent, (unsigned long long)gst.replays_dropped,
	       (unsigned long long)gst.garbage_args);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: gss_testsvc KEYTAB [RDMA_ADDR]\n");
		return 2;
	}
	int rc = serve(argv[1], argc == 3 ? argv[2] : NULL);
	if (rc) {
		fprintf(stderr, "gss_testsvc: %s\n", strerror(-rc));
		return 1;
	}
	return 0;
}
