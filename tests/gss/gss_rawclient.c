/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gss_rawclient PORT: a hostile RPCSEC_GSS client against gss_testsvc on
 * 127.0.0.1:PORT, built from the library's codec (lib/gss/gss_xdr.c) and
 * MIT GSS-API, with the ticket of KRB5CCNAME.  Each step prints what it
 * checks; exit 0 when every answer is the RFC's:
 *   an unknown handle: CREDPROBLEM; a garbage INIT token: an INIT reply
 *   with a GSS-API error; a good context (the INIT verifier checks out);
 *   a call and its exact replay (answered once, then silence); a forged
 *   header (CREDPROBLEM); a number below the window (silence); MAXSEQ
 *   (CTXPROBLEM); krb5i arguments with a bad checksum and a mismatched
 *   sequence number (GARBAGE_ARGS); a good krb5i call; krb5p with a
 *   corrupted wrap token, a mismatched sequence number and no encryption
 *   (GARBAGE_ARGS); a good krb5p call; DESTROY, then the
 *   handle is unknown (CREDPROBLEM); a flood of 20 contexts from one
 *   address (the oldest go).  The server answers between them.
 * GSS_RAW_DUMP=1 in the environment prints the first words of each reply.
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
#include <gssapi/gssapi_krb5.h>

#include "gss/gss_int.h"
#include "svc/svc_int.h"
#include "gss_testprog.h"

static int sock;
static uint32_t xid = 0x1000;

struct ctx {
	gss_ctx_id_t g;
	uint8_t handle[RPCRDMA__GSS_HANDLE_MAX];
	uint32_t hlen;
};

/* One call: xid, CALL, 2, prog, vers, proc, cred, verifier (a MIC of the
 * header when mic_ctx), then args. */
static size_t build(uint8_t *buf, struct ctx *c, uint32_t gproc, uint32_t seq, uint32_t svc,
		    uint32_t proc, const uint8_t *args, size_t alen, bool mic)
{
	struct rpcrdma__gss_cred gc = {.proc = gproc, .seq = seq, .service = svc,
				       .handle = c->handle, .handle_len = c->hlen};
	uint8_t *p = buf;
	p = rpcrdma__put_be32(p, ++xid);
	p = rpcrdma__put_be32(p, 0);
	p = rpcrdma__put_be32(p, 2);
	p = rpcrdma__put_be32(p, GSS_TESTPROG);
	p = rpcrdma__put_be32(p, GSS_TESTPROG_VERS);
	p = rpcrdma__put_be32(p, proc);
	p = rpcrdma__put_be32(p, RPCRDMA__AUTH_GSS);
	p = rpcrdma__put_be32(p, (uint32_t)rpcrdma__gss_cred_len(c->hlen));
	p += rpcrdma__gss_cred_encode(p, 1024, &gc);
	if (mic) {
		gss_buffer_desc in = {.length = (size_t)(p - buf), .value = buf}, out;
		OM_uint32 min;
		gss_get_mic(&min, c->g, 0, &in, &out);
		p = rpcrdma__put_be32(p, RPCRDMA__AUTH_GSS);
		p = rpcrdma__gss_put_opaque(p, out.value, (uint32_t)out.length);
		gss_release_buffer(&min, &out);
	} else {
		p = rpcrdma__put_be32(p, 0);
		p = rpcrdma__put_be32(p, 0);
	}
	if (alen)
		memcpy(p, args, alen);
	return (size_t)(p - buf) + alen;
}

static void send_rec(const uint8_t *m, size_t n)
{
	uint8_t mark[4];
	rpcrdma__put_be32(mark, 0x80000000u | (uint32_t)n);
	if (write(sock, mark, 4) != 4 || write(sock, m, n) != (ssize_t)n)
		abort();
}

static bool read_full(uint8_t *b, size_t n)
{
	while (n) {
		ssize_t r = read(sock, b, n);
		if (r <= 0)
			return false;
		b += r, n -= (size_t)r;
	}
	return true;
}

/* A reply within ms, or 0 bytes. */
static size_t recv_rec(uint8_t *buf, size_t room, int ms)
{
	struct pollfd pfd = {.fd = sock, .events = POLLIN};
	uint8_t mark[4];
	if (poll(&pfd, 1, ms) != 1 || !read_full(mark, 4))
		return 0;
	size_t n = rpcrdma__get_be32(mark) & 0x7fffffff;
	if (n > room || !read_full(buf, n))
		abort();
	if (getenv("GSS_RAW_DUMP")) {
		for (size_t i = 0; i < n && i < 64; i += 4)
			fprintf(stderr, "%08x ", rpcrdma__get_be32(buf + i));
		fprintf(stderr, "(%zu bytes)\n", n);
	}
	return n;
}

static int failures;
#define CHECK(cond, what)                                                   \
	do {                                                                \
		bool ok_ = (cond);                                          \
		printf("%s: %s\n", ok_ ? "ok" : "FAIL", what);              \
		failures += !ok_;                                           \
	} while (0)

/* MSG_DENIED AUTH_ERROR stat? */
static bool auth_error(const uint8_t *r, size_t n, uint32_t stat)
{
	return n == 20 && rpcrdma__get_be32(r + 8) == 1 && rpcrdma__get_be32(r + 12) == 1 &&
	       rpcrdma__get_be32(r + 16) == stat;
}

/* MSG_ACCEPTED with accept_stat stat; *res: the results.  The verifier,
 * when RPCSEC_GSS and c is not NULL, must be a MIC of `mic_of`. */
static bool accepted(struct ctx *c, const uint8_t *r, size_t n, uint32_t stat, uint32_t mic_of,
		     const uint8_t **res)
{
	const uint8_t *v, *end = r + n;
	uint32_t vlen;
	if (n < 24 || rpcrdma__get_be32(r + 8) != 0)
		return false;
	uint32_t vfl = rpcrdma__get_be32(r + 12);
	const uint8_t *p = rpcrdma__gss_get_opaque(r + 16, end, 400, &v, &vlen);
	if (!p || end - p < 4 || rpcrdma__get_be32(p) != stat)
		return false;
	if (vfl == RPCRDMA__AUTH_GSS && c) {
		uint8_t b[4];
		OM_uint32 min;
		rpcrdma__put_be32(b, mic_of);
		gss_buffer_desc in = {4, b}, tok = {vlen, (void *)v};
		if (GSS_ERROR(gss_verify_mic(&min, c->g, &in, &tok, NULL)))
			return false;
	}
	*res = p + 4;
	return true;
}

static bool init(struct ctx *c)
{
	gss_buffer_desc nb = {.length = 14, .value = (void *)"host@localhost"}, out, in = {0};
	gss_name_t name;
	OM_uint32 maj, min;
	uint8_t args[8192], msg[16384], r[16384];
	const uint8_t *res;
	struct rpcrdma__gss_init_res ir;

	gss_import_name(&min, &nb, GSS_C_NT_HOSTBASED_SERVICE, &name);
	c->g = GSS_C_NO_CONTEXT;
	c->hlen = 0;
	maj = gss_init_sec_context(&min, GSS_C_NO_CREDENTIAL, &c->g, name, gss_mech_krb5,
				   GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG | GSS_C_CONF_FLAG, 0,
				   NULL, &in, NULL, &out, NULL, NULL);
	if (GSS_ERROR(maj))
		goto out_name;
	size_t alen = (size_t)(rpcrdma__gss_put_opaque(args, out.value, (uint32_t)out.length) - args);
	gss_release_buffer(&min, &out);
	send_rec(msg, build(msg, c, RPCRDMA__GSS_INIT, 0, 1, 0, args, alen, false));
	size_t n = recv_rec(r, sizeof(r), 3000);
	if (!accepted(NULL, r, n, 0, 0, &res) ||
	    rpcrdma__gss_init_res_decode(res, (size_t)(r + n - res), &ir) || ir.major != 0)
		goto out_name;
	memcpy(c->handle, ir.handle, ir.handle_len);
	c->hlen = ir.handle_len;
	in.length = ir.token_len;
	in.value = (void *)ir.token;
	maj = gss_init_sec_context(&min, GSS_C_NO_CREDENTIAL, &c->g, name, gss_mech_krb5,
				   GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG | GSS_C_CONF_FLAG, 0,
				   NULL, &in, NULL, &out, NULL, NULL);
	gss_release_buffer(&min, &out);
	gss_release_name(&min, &name);
	/* the INIT reply's verifier: a MIC of the window */
	return maj == GSS_S_COMPLETE && accepted(c, r, n, 0, ir.window, &res);
out_name:
	gss_release_name(&min, &name);
	return false;
}

/* A NULL call (service none) with seq; the reply's length (0: none). */
static size_t null_call(struct ctx *c, uint32_t seq, uint8_t *r, size_t room, int ms)
{
	uint8_t msg[2048];
	send_rec(msg, build(msg, c, RPCRDMA__GSS_DATA, seq, 1, 0, NULL, 0, true));
	return recv_rec(r, room, ms);
}

/* krb5i ECHO of 4 bytes with seq; corrupt: 1 flips a checksum byte, 2
 * puts another sequence number in the body. */
static size_t integ_echo(struct ctx *c, uint32_t seq, int corrupt, uint8_t *r, size_t room)
{
	uint8_t body[16], args[512], msg[2048];
	OM_uint32 min;
	rpcrdma__put_be32(body, corrupt == 2 ? seq + 1 : seq);
	rpcrdma__put_be32(body + 4, 4);
	memcpy(body + 8, "abcd", 4);
	gss_buffer_desc in = {12, body}, mic;
	gss_get_mic(&min, c->g, 0, &in, &mic);
	memcpy(args + 4, body, 12);
	int n = rpcrdma__gss_integ_frame(args, sizeof(args), 12, mic.value, (uint32_t)mic.length);
	if (corrupt == 1)
		args[n - 5] ^= 1;
	gss_release_buffer(&min, &mic);
	send_rec(msg, build(msg, c, RPCRDMA__GSS_DATA, seq, 2, GSS_TESTPROG_ECHO, args,
			    (size_t)n, true));
	return recv_rec(r, room, 3000);
}

/* krb5p ECHO of 4 bytes with seq; corrupt: 1 flips a byte inside the wrap
 * token, 2 wraps another sequence number, 3 wraps without encryption. */
static size_t priv_echo(struct ctx *c, uint32_t seq, int corrupt, uint8_t *r, size_t room)
{
	uint8_t body[16], args[512], msg[2048];
	OM_uint32 min;
	int conf;
	rpcrdma__put_be32(body, corrupt == 2 ? seq + 1 : seq);
	rpcrdma__put_be32(body + 4, 4);
	memcpy(body + 8, "wxyz", 4);
	gss_buffer_desc in = {12, body}, tok;
	gss_wrap(&min, c->g, corrupt != 3, 0, &in, &conf, &tok);
	if (corrupt == 1)
		((uint8_t *)tok.value)[tok.length / 2] ^= 0x40;
	size_t n = (size_t)(rpcrdma__gss_put_opaque(args, tok.value, (uint32_t)tok.length) - args);
	gss_release_buffer(&min, &tok);
	send_rec(msg, build(msg, c, RPCRDMA__GSS_DATA, seq, 3, GSS_TESTPROG_ECHO, args, n, true));
	return recv_rec(r, room, 3000);
}

/* The krb5p cases: each bad one GARBAGE_ARGS, the good one's reply
 * decrypts to seq and the bytes sent. */
static void privacy(struct ctx *c)
{
	uint8_t r[4096];
	const uint8_t *res, *tok;
	uint32_t tlen;
	size_t n;

	n = priv_echo(c, 201, 1, r, sizeof(r));
	CHECK(accepted(c, r, n, 4, 201, &res), "krb5p, corrupted wrap token: GARBAGE_ARGS");
	n = priv_echo(c, 202, 2, r, sizeof(r));
	CHECK(accepted(c, r, n, 4, 202, &res), "krb5p, seq mismatch: GARBAGE_ARGS");
	n = priv_echo(c, 203, 3, r, sizeof(r));
	CHECK(accepted(c, r, n, 4, 203, &res), "krb5p, not encrypted: GARBAGE_ARGS");
	n = priv_echo(c, 204, 0, r, sizeof(r));
	bool ok = accepted(c, r, n, 0, 204, &res) &&
		  !rpcrdma__gss_priv_decode(res, (size_t)(r + n - res), &tok, &tlen);
	if (ok) {
		OM_uint32 min;
		int conf = 0;
		gss_buffer_desc in = {tlen, (void *)tok}, out;
		ok = !GSS_ERROR(gss_unwrap(&min, c->g, &in, &out, &conf, NULL)) && conf &&
		     out.length == 12 && rpcrdma__get_be32(out.value) == 204 &&
		     !memcmp((uint8_t *)out.value + 8, "wxyz", 4);
		gss_release_buffer(&min, &out);
	}
	CHECK(ok, "krb5p ECHO: results encrypted, seq 204");
}

static void steps(struct ctx *c)
{
	uint8_t r[16384], msg[2048];
	const uint8_t *res;
	size_t n;

	/* a handle the server never gave */
	struct ctx bogus = {.g = c->g, .hlen = 16};
	memset(bogus.handle, 0x5a, 16);
	send_rec(msg, build(msg, &bogus, RPCRDMA__GSS_DATA, 1, 1, 0, NULL, 0, true));
	n = recv_rec(r, sizeof(r), 3000);
	CHECK(auth_error(r, n, RPCRDMA__AUTH_GSS_CREDPROBLEM), "unknown handle: CREDPROBLEM");

	/* a call, then its exact replay: answered once */
	size_t len = build(msg, c, RPCRDMA__GSS_DATA, 1, 1, 0, NULL, 0, true);
	send_rec(msg, len);
	n = recv_rec(r, sizeof(r), 3000);
	CHECK(accepted(c, r, n, 0, 1, &res), "seq 1: SUCCESS, verifier = MIC(1)");
	send_rec(msg, len);
	CHECK(recv_rec(r, sizeof(r), 500) == 0, "replay of seq 1: no reply");
	CHECK(accepted(c, r, null_call(c, 2, r, sizeof(r), 3000), 0, 2, &res),
	      "seq 2 after the replay: SUCCESS");

	/* forged: the procedure changed after the header was checksummed */
	len = build(msg, c, RPCRDMA__GSS_DATA, 3, 1, 0, NULL, 0, true);
	rpcrdma__put_be32(msg + 20, GSS_TESTPROG_WHOAMI);
	send_rec(msg, len);
	n = recv_rec(r, sizeof(r), 3000);
	CHECK(auth_error(r, n, RPCRDMA__AUTH_GSS_CREDPROBLEM), "forged header: CREDPROBLEM");

	/* the window (32 in gss_testsvc) */
	CHECK(null_call(c, 100, r, sizeof(r), 3000) > 0, "seq 100: answered");
	CHECK(null_call(c, 60, r, sizeof(r), 500) == 0, "seq 60 (below the window): no reply");
	CHECK(null_call(c, 80, r, sizeof(r), 3000) > 0, "seq 80 (inside, new): answered");
	n = null_call(c, RPCRDMA__GSS_MAXSEQ, r, sizeof(r), 3000);
	CHECK(auth_error(r, n, RPCRDMA__AUTH_GSS_CTXPROBLEM), "seq MAXSEQ: CTXPROBLEM");

	/* krb5i */
	n = integ_echo(c, 101, 1, r, sizeof(r));
	CHECK(accepted(c, r, n, 4, 101, &res), "krb5i, bad checksum: GARBAGE_ARGS");
	n = integ_echo(c, 102, 2, r, sizeof(r));
	CHECK(accepted(c, r, n, 4, 102, &res), "krb5i, seq mismatch: GARBAGE_ARGS");
	n = integ_echo(c, 103, 0, r, sizeof(r));
	const uint8_t *body, *mic;
	uint32_t blen, mlen;
	bool ok = accepted(c, r, n, 0, 103, &res) &&
		  !rpcrdma__gss_integ_decode(res, (size_t)(r + n - res), &body, &blen, &mic,
					     &mlen) &&
		  blen == 12 && rpcrdma__get_be32(body) == 103 && !memcmp(body + 8, "abcd", 4);
	if (ok) {
		OM_uint32 min;
		gss_buffer_desc b = {blen, (void *)body}, m = {mlen, (void *)mic};
		ok = !GSS_ERROR(gss_verify_mic(&min, c->g, &b, &m, NULL));
	}
	CHECK(ok, "krb5i ECHO: results checksummed, seq 103");
	privacy(c);

	/* DESTROY, then the handle is gone */
	send_rec(msg, build(msg, c, RPCRDMA__GSS_DESTROY, 205, 1, 0, NULL, 0, true));
	n = recv_rec(r, sizeof(r), 3000);
	CHECK(accepted(c, r, n, 0, 205, &res), "DESTROY: SUCCESS");
	n = null_call(c, 206, r, sizeof(r), 3000);
	CHECK(auth_error(r, n, RPCRDMA__AUTH_GSS_CREDPROBLEM), "after DESTROY: CREDPROBLEM");
}

/* A context flood from one address: 20 contexts against the cap of 16
 * per client (gss_testsvc's default): the first four are gone
 * (CREDPROBLEM), the last ones work. */
static void flood(void)
{
	static struct ctx cs[20];
	uint8_t r[4096];
	const uint8_t *res;
	OM_uint32 min;
	int made = 0;

	for (int i = 0; i < 20; i++)
		made += init(&cs[i]);
	CHECK(made == 20, "20 contexts made from one address");
	size_t n = null_call(&cs[0], 1, r, sizeof(r), 3000);
	CHECK(auth_error(r, n, RPCRDMA__AUTH_GSS_CREDPROBLEM),
	      "the oldest of 20 (cap 16 per client): CREDPROBLEM");
	n = null_call(&cs[19], 1, r, sizeof(r), 3000);
	CHECK(accepted(&cs[19], r, n, 0, 1, &res), "the newest: SUCCESS");
	for (int i = 0; i < 20; i++)
		gss_delete_sec_context(&min, &cs[i].g, GSS_C_NO_BUFFER);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	uint8_t r[4096], msg[2048], args[64];
	const uint8_t *res;
	struct rpcrdma__gss_init_res ir;
	struct ctx c = {.g = GSS_C_NO_CONTEXT};
	OM_uint32 min;

	if (argc != 2)
		return 2;
	sin.sin_port = htons((uint16_t)atoi(argv[1]));
	sock = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(sock, (struct sockaddr *)&sin, sizeof(sin)))
		return 1;
	/* a garbage INIT token: an INIT reply carrying GSS-API's error */
	size_t alen = (size_t)(rpcrdma__gss_put_opaque(args, "not a token", 11) - args);
	send_rec(msg, build(msg, &c, RPCRDMA__GSS_INIT, 0, 1, 0, args, alen, false));
	size_t n = recv_rec(r, sizeof(r), 3000);
	CHECK(accepted(NULL, r, n, 0, 0, &res) &&
		      !rpcrdma__gss_init_res_decode(res, (size_t)(r + n - res), &ir) &&
		      ir.major != 0 && ir.handle_len == 0,
	      "garbage INIT token: an INIT reply with a GSS-API error");
	CHECK(init(&c), "INIT: context made, the reply's verifier is MIC(window)");
	if (c.hlen)
		steps(&c);
	gss_delete_sec_context(&min, &c.g, GSS_C_NO_BUFFER);
	flood();
	close(sock);
	printf("%d failures\n", failures);
	return failures != 0;
}
