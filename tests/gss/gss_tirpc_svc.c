/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gss_tirpc_svc KEYTAB SERVICE [RDMA_ADDR]: the test program of
 * gss_testprog.h as a libtirpc server program whose RPCSEC_GSS is
 * libtirpc's own (svc_auth_gss: svcauth_gss_set_svc_name, rpc_gss_getcred),
 * served over TCP on 127.0.0.1 (svc_vc_create) and, with RDMA_ADDR, over
 * RPC-over-RDMA through the TI-RPC bridge (rpcrdma_tirpc_svc_create), the
 * same dispatch routine on both.  SERVICE is the acceptor's host-based
 * name (e.g. host@localhost), its key in KEYTAB.
 *
 *   0 NULL, 1 ECHO opaque<64 KiB>, 3 BIGECHO opaque<4 MiB>: the same bytes
 *   2 WHOAMI void -> string "principal uid service" (rpc_gss_getcred;
 *     service 1 none, 2 integrity, 3 privacy)
 * Calls without RPCSEC_GSS get AUTH_TOOWEAK.  Prints "port N" (and
 * "rdma_port N") once it serves; at the end of its standard input it
 * prints "calls N", over RDMA the listener's counters ("rdma read_chunk R
 * write_chunk W reply_chunk P inline I"), destroys the transports and
 * exits 0.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gssapi/gssapi.h>
#include <rpc/rpc.h>
#include <rpc/rpcsec_gss.h>
#include <rpc/svc_auth_gss.h>
#include <rpcrdma/tirpc.h>

#include "gss_testprog.h"

struct blob {
	u_int len;
	char *data;
};

static bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, GSS_TESTPROG_ECHO_MAX);
}

static bool_t xdr_bigblob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, GSS_TESTPROG_BIG_MAX);
}

/* xdr_void as an xdrproc_t, without a cast between function types. */
static bool_t xvoid(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

static unsigned long calls;

static void echo(SVCXPRT *x, bool_t (*proc)(XDR *, struct blob *))
{
	struct blob b = {0, NULL};
	if (!svc_getargs(x, (xdrproc_t)proc, (caddr_t)&b)) {
		svcerr_decode(x);
		return;
	}
	if (!svc_sendreply(x, (xdrproc_t)proc, (caddr_t)&b))
		fprintf(stderr, "gss_tirpc_svc: reply of %u bytes failed\n", b.len);
	svc_freeargs(x, (xdrproc_t)proc, (caddr_t)&b);
}

static void whoami(struct svc_req *rq, SVCXPRT *x)
{
	rpc_gss_rawcred_t *rc = NULL;
	rpc_gss_ucred_t *uc = NULL;
	char buf[512], *p = buf;

	if (!svc_getargs(x, xvoid, NULL)) {
		svcerr_decode(x);
		return;
	}
	if (!rpc_gss_getcred(rq, &rc, &uc, NULL) || !rc->client_principal) {
		svcerr_systemerr(x);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s %u %d", (int)rc->client_principal->len,
		 rc->client_principal->name, (unsigned)uc->uid, (int)rc->service);
	svc_sendreply(x, (xdrproc_t)xdr_wrapstring, (caddr_t)&p);
}

static void dispatch(struct svc_req *rq, SVCXPRT *x)
{
	calls++;
	if (rq->rq_cred.oa_flavor != RPCSEC_GSS) {
		svcerr_weakauth(x);
		return;
	}
	switch (rq->rq_proc) {
	case GSS_TESTPROG_NULL:
		svc_sendreply(x, xvoid, NULL);
		break;
	case GSS_TESTPROG_ECHO:
		echo(x, xdr_blob);
		break;
	case GSS_TESTPROG_BIGECHO:
		echo(x, xdr_bigblob);
		break;
	case GSS_TESTPROG_WHOAMI:
		whoami(rq, x);
		break;
	default:
		svcerr_noproc(x);
	}
}

static SVCXPRT *tcp_xprt(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sin);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&sin, &sl)) {
		perror("gss_tirpc_svc: tcp");
		return NULL;
	}
	SVCXPRT *x = svc_vc_create(fd, 0, 0);
	if (x)
		x->xp_port = ntohs(sin.sin_port);
	return x;
}

static int set_name(const char *service)
{
	gss_buffer_desc b = {.length = strlen(service), .value = (void *)service};
	gss_name_t name = GSS_C_NO_NAME;
	OM_uint32 min;
	if (gss_import_name(&min, &b, GSS_C_NT_HOSTBASED_SERVICE, &name) != GSS_S_COMPLETE)
		return -1;
	bool_t ok = svcauth_gss_set_svc_name(name);
	gss_release_name(&min, &name);
	return ok ? 0 : -1;
}

/* svc_getreq_poll over libtirpc's descriptors until stdin ends. */
static void serve(void)
{
	for (;;) {
		int n = svc_max_pollfd;
		struct pollfd *p = calloc((size_t)n + 1, sizeof(*p));
		if (!p)
			return;
		memcpy(p, svc_pollfd, (size_t)n * sizeof(*p));
		p[n] = (struct pollfd){.fd = 0, .events = POLLIN};
		int r = poll(p, (nfds_t)n + 1, -1);
		char c;
		if (r > 0 && p[n].revents && read(0, &c, 1) <= 0) {
			free(p);
			return;
		}
		if (r > 0)
			svc_getreq_poll(p, r - (p[n].revents != 0));
		free(p);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: gss_tirpc_svc KEYTAB SERVICE [RDMA_ADDR]\n");
		return 2;
	}
	setenv("KRB5_KTNAME", argv[1], 1);
	if (set_name(argv[2])) {
		fprintf(stderr, "gss_tirpc_svc: svcauth_gss_set_svc_name(%s) failed\n", argv[2]);
		return 1;
	}
	SVCXPRT *t = tcp_xprt(), *r = NULL;
	if (!t || !svc_reg(t, GSS_TESTPROG, GSS_TESTPROG_VERS, dispatch, NULL))
		return 1;
	if (argc == 4) {
		r = rpcrdma_tirpc_svc_create(argv[3], 0, 0, 0);
		if (!r || !svc_reg(r, GSS_TESTPROG, GSS_TESTPROG_VERS, dispatch, NULL)) {
			perror("gss_tirpc_svc: rpcrdma_tirpc_svc_create");
			return 1;
		}
	}
	printf("port %u\n", t->xp_port);
	if (r)
		printf("rdma_port %u\n", r->xp_port);
	fflush(stdout);
	serve();
	printf("calls %lu\n", calls);
	if (r) {
		struct rpcrdma_stats st;
		if (rpcrdma_tirpc_svc_stats(r, &st) == 0)
			printf("rdma read_chunk %llu write_chunk %llu reply_chunk %llu inline %llu\n",
			       (unsigned long long)st.v[RPCRDMA_STAT_CALLS_READ],
			       (unsigned long long)st.v[RPCRDMA_STAT_REPLIES_WRITE],
			       (unsigned long long)st.v[RPCRDMA_STAT_REPLIES_RCHUNK],
			       (unsigned long long)st.v[RPCRDMA_STAT_REPLIES_INLINE]);
		svc_destroy(r);
	}
	svc_unreg(GSS_TESTPROG, GSS_TESTPROG_VERS);
	svc_destroy(t);
	return 0;
}
