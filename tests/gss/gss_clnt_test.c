/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gss_clnt_test PORT: the library's own RPC client with RPCSEC_GSS
 * (rpcrdma_clnt_set_auth_gss, the ticket of KRB5CCNAME) against
 * gss_testsvc on 127.0.0.1:PORT over TCP.  For krb5, krb5i and krb5p:
 * WHOAMI names gssuser@ and the service, ECHO of 1 and 40000 bytes comes
 * back unchanged, NULL works.  Without RPCSEC_GSS the same client's call
 * is refused (-EACCES, AUTH_TOOWEAK), and a target the KDC does not know
 * gives no context.  Exit 0 when all is as expected.  With
 * GSS_CLNT_TEST_KEYTAB set, the credentials come from that client keytab
 * (rpcrdma_clnt_gss_opts.keytab) instead of a ticket.
 *
 * gss_clnt_test PORT forged MODE: against gss_forgesvc MODE (a server that
 * forges reply verifiers): init / none (a bad INIT verifier): no context
 * (-EACCES); call (a bad data reply verifier): the context is made, a
 * NULL call fails with -EBADMSG; good: both work.
 *
 * gss_clnt_test rdma ADDR TARGET: over RPC-over-RDMA to gss_testsvc's
 * RDMA endpoint ADDR ("[fe80::1%dev]:PORT") as service TARGET, for krb5,
 * krb5i and krb5p: WHOAMI, ECHO of 40000 bytes, BIGECHO of 1 MiB (the
 * argument as put_bulk data, the result into res_bulk) compared; and
 * which chunks moved it (the client's counters): with krb5 a read chunk
 * for the call and a write chunk for the reply; with krb5i / krb5p
 * (RFC 8267 section 4.3) no write chunk, the call by position-zero read
 * chunk and the reply by reply chunk.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/gss.h>
#include <rpcrdma/stats.h>

#include "gss_testprog.h"

struct blob {
	const void *data;
	uint32_t len;
};

static int enc_blob(struct rpcrdma_xdr_enc *x, const void *p)
{
	const struct blob *b = p;
	return rpcrdma_xdr_put_opaque(x, b->data, b->len);
}

static int dec_blob(struct rpcrdma_xdr_dec *x, void *p)
{
	struct blob *b = p;
	void *buf = malloc(GSS_TESTPROG_ECHO_MAX);
	int rc = buf ? rpcrdma_xdr_get_opaque(x, buf, GSS_TESTPROG_ECHO_MAX, &b->len) : -ENOMEM;
	b->data = buf;
	return rc;
}

static int dec_str(struct rpcrdma_xdr_dec *x, void *p)
{
	return rpcrdma_xdr_get_string(x, p, 513, 512);
}

static int echo(struct rpcrdma_clnt *c, size_t n, const char *what)
{
	uint8_t *in = malloc(n);
	for (size_t i = 0; i < n; i++)
		in[i] = (uint8_t)(i * 13 + n);
	struct blob a = {in, (uint32_t)n}, r = {NULL, 0};
	struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = GSS_TESTPROG_ECHO,
				       .encode = enc_blob, .args = &a, .args_max = n + 8,
				       .decode = dec_blob, .res = &r, .res_max = n + 1024};
	int rc = rpcrdma_clnt_call(c, &req);
	int bad = rc || r.len != n || memcmp(r.data, in, n);
	if (bad)
		fprintf(stderr, "%s: ECHO %zu: %d\n", what, n, rc);
	free((void *)r.data);
	free(in);
	return bad;
}

static int whoami(struct rpcrdma_clnt *c, int svc, const char *what)
{
	char who[513] = "";
	struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = GSS_TESTPROG_WHOAMI,
				       .decode = dec_str, .res = who, .res_max = 1024};
	int rc = rpcrdma_clnt_call(c, &req);
	char want[16];
	snprintf(want, sizeof(want), " %d", svc);
	printf("%s: WHOAMI: %s (%d)\n", what, who, rc);
	return rc || strncmp(who, "gssuser@", 8) || !strstr(who, want);
}

static int flavour(const struct sockaddr_in *sin, int svc, const char *what)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_gss_opts go;
	int bad = 1;

	if (rpcrdma_clnt_create("tcp", (const struct sockaddr *)sin, sizeof(*sin), GSS_TESTPROG,
				GSS_TESTPROG_VERS, NULL, &c))
		return 1;
	rpcrdma_clnt_gss_opts_init(&go);
	go.target = "host@localhost";
	go.service = svc;
	go.keytab = getenv("GSS_CLNT_TEST_KEYTAB"); /* a client keytab instead of a ticket */
	int rc = rpcrdma_clnt_set_auth_gss(c, &go);
	if (rc) {
		fprintf(stderr, "%s: rpcrdma_clnt_set_auth_gss: %d\n", what, rc);
		goto out;
	}
	bad = whoami(c, svc, what) | echo(c, 1, what) | echo(c, 40000, what);
	struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = GSS_TESTPROG_NULL,
				       .res_max = 512};
	bad |= rpcrdma_clnt_call(c, &req) != 0;
out:
	rpcrdma_clnt_destroy(c);
	printf("%s (our client): %s\n", what, bad ? "FAILED" : "ok");
	return bad;
}

/* No RPCSEC_GSS: refused; an unknown target: no context. */
static int refused(const struct sockaddr_in *sin)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_gss_opts go;
	if (rpcrdma_clnt_create("tcp", (const struct sockaddr *)sin, sizeof(*sin), GSS_TESTPROG,
				GSS_TESTPROG_VERS, NULL, &c))
		return 1;
	struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = GSS_TESTPROG_WHOAMI,
				       .res_max = 1024};
	int rc = rpcrdma_clnt_call(c, &req);
	int bad = rc != -EACCES || req.auth_stat != 5;
	printf("AUTH_NONE (our client): %d auth_stat %u\n", rc, req.auth_stat);
	rpcrdma_clnt_gss_opts_init(&go);
	go.target = "nosuch@localhost";
	rc = rpcrdma_clnt_set_auth_gss(c, &go);
	printf("unknown target: %d\n", rc);
	bad |= rc == 0;
	rpcrdma_clnt_destroy(c);
	return bad;
}

static int enc_bulk(struct rpcrdma_xdr_enc *x, const void *p)
{
	const struct blob *b = p;
	return rpcrdma_clnt_put_bulk(x, b->data, b->len);
}

/* The result into the blob's buffer (get_bulk's pointer is valid only
 * until the call completes: into res_bulk, or into the reply). */
static int dec_bulk(struct rpcrdma_xdr_dec *x, void *p)
{
	struct blob *b = p;
	const void *d;
	uint32_t n;
	int rc = rpcrdma_clnt_get_bulk(x, &d, &n, GSS_TESTPROG_BIG_MAX);
	if (rc || n > b->len)
		return rc ? rc : -EMSGSIZE;
	if (d != b->data)
		memmove((void *)b->data, d, n);
	b->len = n;
	return 0;
}

/* BIGECHO of n bytes: 0 when they came back unchanged. */
static int bigecho(struct rpcrdma_clnt *c, size_t n, const char *what)
{
	uint8_t *in = malloc(n), *back = calloc(1, n);
	for (size_t i = 0; i < n; i++)
		in[i] = (uint8_t)(i * 7 + (i >> 12));
	struct blob a = {in, (uint32_t)n}, r = {back, (uint32_t)n};
	struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = GSS_TESTPROG_BIGECHO,
				       .encode = enc_bulk, .args = &a, .args_max = n + 8,
				       .decode = dec_bulk, .res = &r, .res_max = 1024,
				       .res_bulk = back, .res_bulk_len = n};
	int rc = rpcrdma_clnt_call(c, &req);
	int bad = rc || r.len != n || memcmp(back, in, n);
	printf("%s: BIGECHO %zu: %d%s\n", what, n, rc, bad ? " (differs)" : ", identical");
	free(back);
	free(in);
	return bad;
}

static uint64_t st(struct rpcrdma_clnt *c, enum rpcrdma_stat k)
{
	struct rpcrdma_stats s;
	rpcrdma_clnt_stats(c, &s);
	return s.v[k];
}

static int rdma_flavour(const char *addr, const char *target, int svc, const char *what)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_gss_opts go;
	int bad = 1;

	if (rpcrdma_clnt_parse_addr(addr, &ss, &len) ||
	    rpcrdma_clnt_create(ss.ss_family == AF_INET6 ? "rdma6" : "rdma",
				(const struct sockaddr *)&ss, len, GSS_TESTPROG, GSS_TESTPROG_VERS,
				NULL, &c))
		return 1;
	rpcrdma_clnt_gss_opts_init(&go);
	go.target = target;
	go.service = svc;
	int rc = rpcrdma_clnt_set_auth_gss(c, &go);
	if (rc) {
		fprintf(stderr, "%s: rpcrdma_clnt_set_auth_gss: %d\n", what, rc);
		goto out;
	}
	bad = whoami(c, svc, what) | echo(c, 40000, what);
	uint64_t rd = st(c, RPCRDMA_STAT_CALLS_READ), wr = st(c, RPCRDMA_STAT_REPLIES_WRITE);
	uint64_t rch = st(c, RPCRDMA_STAT_REPLIES_RCHUNK);
	bad |= bigecho(c, 1u << 20, what);
	rd = st(c, RPCRDMA_STAT_CALLS_READ) - rd;
	wr = st(c, RPCRDMA_STAT_REPLIES_WRITE) - wr;
	rch = st(c, RPCRDMA_STAT_REPLIES_RCHUNK) - rch;
	int want_ddp = svc == RPCRDMA_GSS_SVC_NONE;
	int chunks_ok = rd == 1 && (want_ddp ? wr == 1 && rch == 0 : wr == 0 && rch == 1);
	printf("%s: 1 MiB BIGECHO moved by: calls with read chunks %llu, replies by write "
	       "chunk %llu, by reply chunk %llu: %s\n", what, (unsigned long long)rd,
	       (unsigned long long)wr, (unsigned long long)rch,
	       chunks_ok ? (want_ddp ? "DDP as AUTH_SYS" : "no DDP (RFC 8267 4.3)") : "WRONG");
	bad |= !chunks_ok;
out:
	rpcrdma_clnt_destroy(c);
	printf("%s over RDMA (our client): %s\n", what, bad ? "FAILED" : "ok");
	return bad;
}

/* Against gss_forgesvc MODE: 0 when the client saw what it had to. */
static int forged(const struct sockaddr_in *sin, const char *mode)
{
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_gss_opts go;
	int want_ctx = strcmp(mode, "init") && strcmp(mode, "none");
	int want_call = strcmp(mode, "good") ? -EBADMSG : 0;

	if (rpcrdma_clnt_create("tcp", (const struct sockaddr *)sin, sizeof(*sin), GSS_TESTPROG,
				GSS_TESTPROG_VERS, NULL, &c))
		return 1;
	rpcrdma_clnt_gss_opts_init(&go);
	go.target = "host@localhost";
	int rc = rpcrdma_clnt_set_auth_gss(c, &go), call = 1;
	int bad = want_ctx ? rc != 0 : rc != -EACCES;
	if (rc == 0) {
		struct rpcrdma_clnt_req req = {.size = sizeof(req), .proc = GSS_TESTPROG_NULL,
					       .res_max = 512};
		call = rpcrdma_clnt_call(c, &req);
		bad |= call != want_call;
	}
	printf("forged %s: context %d, NULL call %d: %s\n", mode, rc, rc ? 0 : call,
	       bad ? "WRONG" : "as expected");
	rpcrdma_clnt_destroy(c);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "rdma") == 0)
		return rdma_flavour(argv[2], argv[3], RPCRDMA_GSS_SVC_NONE, "krb5") |
		       rdma_flavour(argv[2], argv[3], RPCRDMA_GSS_SVC_INTEGRITY, "krb5i") |
		       rdma_flavour(argv[2], argv[3], RPCRDMA_GSS_SVC_PRIVACY, "krb5p");
	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "forged") == 0))
		return 2;
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (argc == 4)
		return forged(&sin, argv[3]);
	int bad = flavour(&sin, RPCRDMA_GSS_SVC_NONE, "krb5");
	bad |= flavour(&sin, RPCRDMA_GSS_SVC_INTEGRITY, "krb5i");
	bad |= flavour(&sin, RPCRDMA_GSS_SVC_PRIVACY, "krb5p");
	bad |= refused(&sin);
	return bad;
}
