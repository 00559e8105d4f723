/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gss_tirpc_client [-b SIZE] [-n] [-r ADDR] PORT [TARGET]: libtirpc's own
 * RPCSEC_GSS client (authgss, MIT krb5, the ticket of KRB5CCNAME) against
 * gss_testsvc or gss_tirpc_svc on 127.0.0.1:PORT, as service TARGET
 * (default host@localhost).
 * For krb5, krb5i and krb5p: WHOAMI names the ticket's principal and the
 * service, ECHO returns 1 and 40000 bytes unchanged (-b: BIGECHO of SIZE
 * bytes too; -n: close each connection without RPCSEC_GSS_DESTROY, leaving
 * the server's context behind; over TCP libtirpc's clnt_vc cannot send a krb5i or krb5p
 * body beyond its record buffer: authgss's XDR_INLINE of the body then
 * fails, and the server answers GARBAGE_ARGS).  Then a call with AUTH_NONE and one with AUTH_SYS are refused
 * (AUTH_TOOWEAK) and a last krb5p call still works.  Exit 0 when all is
 * as expected.  Built as gss_tirpc_rdma_client (GSS_TIRPC_BRIDGE), -r
 * ADDR connects over RPC-over-RDMA to ADDR:PORT through the TI-RPC
 * bridge (rpcrdma_tirpc_clnt_create): the same authgss over RDMA.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gssapi/gssapi_krb5.h>
#include <rpc/rpc.h>
#include <rpc/auth_gss.h>

#ifdef GSS_TIRPC_BRIDGE
#include <rpcrdma/tirpc.h>
#endif

#include "gss_testprog.h"

static struct timeval tmo = {30, 0};

struct blob {
	u_int len;
	char *data;
};

static bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, GSS_TESTPROG_ECHO_MAX);
}

/* xdr_void as an xdrproc_t, without a cast between function types. */
static bool_t xvoid(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

static bool_t xdr_bigblob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, GSS_TESTPROG_BIG_MAX);
}

static const char *rdma_addr; /* -r */
static size_t big;            /* -b SIZE */
static int no_destroy;        /* -n */

static CLIENT *connect_to(int port)
{
#ifdef GSS_TIRPC_BRIDGE
	if (rdma_addr) {
		CLIENT *r = rpcrdma_tirpc_clnt_create(rdma_addr, (unsigned short)port, GSS_TESTPROG,
						      GSS_TESTPROG_VERS, 0, 0);
		if (!r)
			clnt_pcreateerror("rpcrdma_tirpc_clnt_create");
		return r;
	}
#endif
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int sock = RPC_ANYSOCK;
	CLIENT *c = clnttcp_create(&sin, GSS_TESTPROG, GSS_TESTPROG_VERS, &sock, 0, 0);
	if (!c)
		clnt_pcreateerror("clnttcp_create");
	return c;
}

static int echo(CLIENT *c, size_t n, const char *what, int bigproc)
{
	struct blob in = {.len = (u_int)n, .data = malloc(n)}, out = {0, NULL};
	for (size_t i = 0; i < n; i++)
		in.data[i] = (char)(i * 7 + n);
	xdrproc_t p = (xdrproc_t)(bigproc ? xdr_bigblob : xdr_blob);
	enum clnt_stat st = clnt_call(c, bigproc ? GSS_TESTPROG_BIGECHO : GSS_TESTPROG_ECHO,
				      p, (caddr_t)&in, p, (caddr_t)&out, tmo);
	int bad = st != RPC_SUCCESS || out.len != n || memcmp(in.data, out.data, n);
	if (bad)
		fprintf(stderr, "%s: %sECHO %zu: %s\n", what, bigproc ? "BIG" : "", n,
			clnt_sperrno(st));
	else if (bigproc)
		printf("%s: BIGECHO %zu: identical\n", what, n);
	free(in.data);
	xdr_free(p, (char *)&out);
	return bad;
}

static const char *target = "host@localhost";

static int flavour(int port, rpc_gss_svc_t svc, const char *what)
{
	struct rpc_gss_sec sec = {.mech = (gss_OID)gss_mech_krb5, .qop = 0, .svc = svc};
	CLIENT *c = connect_to(port);
	if (!c)
		return 1;
	c->cl_auth = authgss_create_default(c, (char *)target, &sec);
	if (!c->cl_auth) {
		fprintf(stderr, "%s: authgss_create_default failed\n", what);
		clnt_destroy(c);
		return 1;
	}
	char *who = NULL;
	enum clnt_stat st = clnt_call(c, GSS_TESTPROG_WHOAMI, xvoid, NULL,
				      (xdrproc_t)xdr_wrapstring, (caddr_t)&who, tmo);
	int bad = st != RPC_SUCCESS;
	if (!bad) {
		char want[64];
		snprintf(want, sizeof(want), " %d", (int)svc);
		printf("%s: WHOAMI: %s\n", what, who);
		bad = strncmp(who, "gssuser@", 8) != 0 || !strstr(who, want);
		xdr_free((xdrproc_t)xdr_wrapstring, (char *)&who);
	} else {
		fprintf(stderr, "%s: WHOAMI: %s\n", what, clnt_sperrno(st));
	}
	bad |= echo(c, 1, what, 0) | echo(c, 40000, what, 0);
	if (big)
		bad |= echo(c, big, what, 1);
	st = clnt_call(c, GSS_TESTPROG_NULL, xvoid, NULL, xvoid, NULL,
		       tmo);
	bad |= st != RPC_SUCCESS;
	if (no_destroy) /* the connection goes, the server's context stays */
		printf("%s: no RPCSEC_GSS_DESTROY\n", what);
	else
		auth_destroy(c->cl_auth); /* sends RPCSEC_GSS_DESTROY */
	clnt_destroy(c);
	printf("%s: %s\n", what, bad ? "FAILED" : "ok");
	return bad;
}

/* AUTH_NONE and AUTH_SYS calls are refused with AUTH_TOOWEAK. */
static int weak(int port)
{
	CLIENT *c = connect_to(port);
	struct rpc_err e;
	int bad = 0;
	if (!c)
		return 1;
	for (int i = 0; i < 2; i++) {
		if (i == 1) {
			auth_destroy(c->cl_auth);
			c->cl_auth = authunix_create_default();
		}
		enum clnt_stat st = clnt_call(c, GSS_TESTPROG_WHOAMI, xvoid, NULL,
					      xvoid, NULL, tmo);
		clnt_geterr(c, &e);
		printf("%s: %s\n", i ? "AUTH_SYS" : "AUTH_NONE", clnt_sperrno(st));
		bad |= st != RPC_AUTHERROR || e.re_why != AUTH_TOOWEAK;
	}
	auth_destroy(c->cl_auth); /* clnt_destroy leaves it */
	clnt_destroy(c);
	return bad;
}

int main(int argc, char **argv)
{
	int o;
	while ((o = getopt(argc, argv, "b:nr:")) != -1) {
		if (o == 'n')
			no_destroy = 1;
		else if (o == 'b')
			big = strtoul(optarg, NULL, 0);
		else if (o == 'r')
			rdma_addr = optarg;
		else
			return 2;
	}
#ifndef GSS_TIRPC_BRIDGE
	if (rdma_addr) {
		fprintf(stderr, "gss_tirpc_client: -r: built without the TI-RPC bridge\n");
		return 2;
	}
#endif
	argc -= optind - 1;
	argv += optind - 1;
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: gss_tirpc_client [-b SIZE] [-n] [-r ADDR] PORT [TARGET]\n");
		return 2;
	}
	if (argc == 3)
		target = argv[2];
	int port = atoi(argv[1]), bad = 0;
	bad |= flavour(port, RPCSEC_GSS_SVC_NONE, "krb5");
	bad |= flavour(port, RPCSEC_GSS_SVC_INTEGRITY, "krb5i");
	bad |= flavour(port, RPCSEC_GSS_SVC_PRIVACY, "krb5p");
	bad |= weak(port);
	bad |= flavour(port, RPCSEC_GSS_SVC_PRIVACY, "krb5p again");
	return bad;
}
