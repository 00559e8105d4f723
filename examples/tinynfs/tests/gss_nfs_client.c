/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gss_nfs_client PORT: NFSv4.1 COMPOUNDs to tinynfs on 127.0.0.1:PORT over
 * TCP with the library's RPCSEC_GSS client (the ticket of KRB5CCNAME,
 * target nfs@localhost), against an export of sec=krb5i:krb5p
 * (tinynfs-krb5-test.sh starts both):
 *   krb5i: EXCHANGE_ID with SP4_MACH_CRED is granted, CREATE_SESSION,
 *          SEQUENCE + PUTROOTFH + GETATTR served;
 *   krb5 (no integrity), same principal: PUTROOTFH + GETATTR is WRONGSEC,
 *          DESTROY_SESSION is WRONG_CRED (SP4_MACH_CRED enforces it);
 *   krb5p: SECINFO_NO_NAME lists krb5i then krb5p;
 *   AUTH_NONE: WRONGSEC, and SP4_MACH_CRED refused (INVAL);
 *   krb5i: DESTROY_SESSION, DESTROY_CLIENTID served.
 * Exit 0 when all is as expected.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/gss.h>

#include "nfs4/nfs4.h"

#define BUF 8192

struct msg {
	uint8_t b[BUF];
	size_t n;
};

static void put32(struct msg *m, uint32_t v)
{
	if (m->n + 4 > BUF)
		abort();
	m->b[m->n++] = (uint8_t)(v >> 24);
	m->b[m->n++] = (uint8_t)(v >> 16);
	m->b[m->n++] = (uint8_t)(v >> 8);
	m->b[m->n++] = (uint8_t)v;
}

static void put64(struct msg *m, uint64_t v)
{
	put32(m, (uint32_t)(v >> 32));
	put32(m, (uint32_t)v);
}

static void putbytes(struct msg *m, const void *p, size_t n)
{
	if (m->n + n > BUF)
		abort();
	memcpy(m->b + m->n, p, n);
	m->n += n;
	while (m->n % 4)
		m->b[m->n++] = 0;
}

static void putopaque(struct msg *m, const char *s)
{
	put32(m, (uint32_t)strlen(s));
	putbytes(m, s, strlen(s));
}

struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint32_t get32(struct rd *r)
{
	if (r->end - r->p < 4) {
		r->bad = 1;
		return 0;
	}
	uint32_t v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 |
		     r->p[3];
	r->p += 4;
	return v;
}

static void skip(struct rd *r, uint32_t n)
{
	n = (n + 3) & ~3u;
	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return;
	}
	r->p += n;
}

static int enc_msg(struct rpcrdma_xdr_enc *x, const void *p)
{
	const struct msg *m = p;
	return rpcrdma_xdr_put_fixed(x, m->b, m->n);
}

static int dec_msg(struct rpcrdma_xdr_dec *x, void *p)
{
	struct msg *m = p;
	m->n = rpcrdma_xdr_dec_left(x);
	if (m->n > BUF)
		return -EMSGSIZE;
	return rpcrdma_xdr_get_fixed(x, m->b, m->n);
}

static uint8_t sessionid[16];
static uint32_t slot_seq;

static void compound_begin(struct msg *m, uint32_t numops)
{
	m->n = 0;
	put32(m, 0); /* tag */
	put32(m, 1); /* minor version */
	put32(m, numops);
}

static void sequence(struct msg *m)
{
	put32(m, OP_SEQUENCE);
	putbytes(m, sessionid, 16);
	put32(m, ++slot_seq);
	put32(m, 0);
	put32(m, 0);
	put32(m, 0);
}

/* Sends m, the reply into *rep with the walker after its header at the
 * first result; returns the COMPOUND status or -errno. */
static long call(struct rpcrdma_clnt *c, const struct msg *m, struct msg *rep, struct rd *r)
{
	struct rpcrdma_clnt_req req = { .size = sizeof(req), .proc = 1, .encode = enc_msg,
					.args = m, .args_max = m->n + 64, .decode = dec_msg,
					.res = rep, .res_max = BUF };
	int rc = rpcrdma_clnt_call(c, &req);
	if (rc)
		return rc;
	r->p = rep->b;
	r->end = rep->b + rep->n;
	r->bad = 0;
	uint32_t st = get32(r);
	skip(r, get32(r)); /* tag */
	(void)get32(r);	   /* numres */
	return r->bad ? -EBADMSG : (long)st;
}

/* EXCHANGE_ID of `owner` with sp_how; *cid, *seq, *how on NFS4_OK. */
static long exchange_id(struct rpcrdma_clnt *c, const char *owner, uint32_t sp_how,
			uint64_t *cid, uint32_t *seq, uint32_t *how)
{
	struct msg m, rep;
	struct rd r;
	compound_begin(&m, 1);
	put32(&m, OP_EXCHANGE_ID);
	put64(&m, 0x0102030405060708ull);
	putopaque(&m, owner);
	put32(&m, 0);
	put32(&m, sp_how);
	if (sp_how == SP4_MACH_CRED) {
		put32(&m, 0); /* spo_must_enforce {} */
		put32(&m, 1); /* spo_must_allow {CLOSE} */
		put32(&m, 1u << OP_CLOSE);
	}
	put32(&m, 0); /* no impl id */
	long st = call(c, &m, &rep, &r);
	if (st != NFS4_OK)
		return st;
	(void)get32(&r), (void)get32(&r); /* op, status */
	*cid = (uint64_t)get32(&r) << 32;
	*cid |= get32(&r);
	*seq = get32(&r);
	(void)get32(&r);
	*how = get32(&r);
	return r.bad ? -EBADMSG : st;
}

static void chan(struct msg *m)
{
	put32(m, 0);
	put32(m, 65536);
	put32(m, 65536);
	put32(m, 4096);
	put32(m, 8);
	put32(m, 4);
	put32(m, 0);
}

static long create_session(struct rpcrdma_clnt *c, uint64_t cid, uint32_t seq)
{
	struct msg m, rep;
	struct rd r;
	compound_begin(&m, 1);
	put32(&m, OP_CREATE_SESSION);
	put64(&m, cid);
	put32(&m, seq);
	put32(&m, 0);
	chan(&m);
	chan(&m);
	put32(&m, 0x40000000);
	put32(&m, 1);
	put32(&m, 0); /* AUTH_NONE */
	long st = call(c, &m, &rep, &r);
	if (st != NFS4_OK)
		return st;
	(void)get32(&r), (void)get32(&r);
	if (r.end - r.p < 16)
		return -EBADMSG;
	memcpy(sessionid, r.p, 16);
	slot_seq = 0;
	return st;
}

/* SEQUENCE, PUTROOTFH, then GETATTR (type) or SECINFO_NO_NAME. */
static long root_then(struct rpcrdma_clnt *c, uint32_t op, struct msg *rep, struct rd *r)
{
	struct msg m;
	compound_begin(&m, 3);
	sequence(&m);
	put32(&m, OP_PUTROOTFH);
	put32(&m, op);
	if (op == OP_GETATTR) {
		put32(&m, 1);
		put32(&m, 1u << FATTR4_TYPE);
	} else {
		put32(&m, 0); /* SECINFO_STYLE4_CURRENT_FH */
	}
	return call(c, &m, rep, r);
}

/* A lone DESTROY_SESSION or DESTROY_CLIENTID. */
static long destroy(struct rpcrdma_clnt *c, uint32_t op, uint64_t cid)
{
	struct msg m, rep;
	struct rd r;
	compound_begin(&m, 1);
	put32(&m, op);
	if (op == OP_DESTROY_SESSION)
		putbytes(&m, sessionid, 16);
	else
		put64(&m, cid);
	return call(c, &m, &rep, &r);
}

static struct rpcrdma_clnt *client(const struct sockaddr_in *sin, int svc)
{
	struct rpcrdma_clnt *c;
	if (rpcrdma_clnt_create("tcp", (const struct sockaddr *)sin, sizeof(*sin), 100003, 4, NULL,
				&c))
		return NULL;
	if (svc == 0)
		return c;
	struct rpcrdma_clnt_gss_opts go;
	rpcrdma_clnt_gss_opts_init(&go);
	go.target = "nfs@localhost";
	go.service = svc;
	int rc = rpcrdma_clnt_set_auth_gss(c, &go);
	if (rc) {
		fprintf(stderr, "rpcrdma_clnt_set_auth_gss(%d): %d\n", svc, rc);
		rpcrdma_clnt_destroy(c);
		return NULL;
	}
	return c;
}

static int expect(const char *what, long got, long want)
{
	printf("%-52s %ld%s\n", what, got, got == want ? "" : " (UNEXPECTED)");
	return got != want;
}

/* SECINFO_NO_NAME's list after SEQUENCE and PUTROOTFH: krb5i, krb5p. */
static int secinfo_list(struct rd *r)
{
	(void)get32(r), (void)get32(r); /* SEQUENCE */
	skip(r, 16 + 5 * 4);
	(void)get32(r), (void)get32(r); /* PUTROOTFH */
	(void)get32(r), (void)get32(r); /* SECINFO_NO_NAME */
	uint32_t n = get32(r);
	int bad = n != 2;
	for (uint32_t i = 0; i < n && i < 2; i++) {
		bad |= get32(r) != 6; /* RPCSEC_GSS */
		skip(r, get32(r));    /* the Kerberos V5 OID */
		bad |= get32(r) != 0; /* QOP */
		bad |= get32(r) != (i == 0 ? RPCRDMA_GSS_SVC_INTEGRITY : RPCRDMA_GSS_SVC_PRIVACY);
	}
	printf("%-52s %u flavours%s\n", "krb5p: SECINFO_NO_NAME lists krb5i, krb5p", n,
	       bad || r->bad ? " (UNEXPECTED)" : "");
	return bad || r->bad;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)atoi(argv[1])),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct rpcrdma_clnt *ci = client(&sin, RPCRDMA_GSS_SVC_INTEGRITY);
	struct rpcrdma_clnt *cn = client(&sin, RPCRDMA_GSS_SVC_NONE);
	struct rpcrdma_clnt *cp = client(&sin, RPCRDMA_GSS_SVC_PRIVACY);
	struct rpcrdma_clnt *c0 = client(&sin, 0);
	if (!ci || !cn || !cp || !c0)
		return 1;
	struct msg rep;
	struct rd r;
	uint64_t cid = 0, cid2;
	uint32_t seq = 0, how = 0;
	int bad = expect("krb5i: EXCHANGE_ID SP4_MACH_CRED",
			 exchange_id(ci, "tinynfs-gss-test", SP4_MACH_CRED, &cid, &seq, &how), NFS4_OK);
	bad |= expect("krb5i: spr_how", how, SP4_MACH_CRED);
	bad |= expect("krb5i: CREATE_SESSION", create_session(ci, cid, seq), NFS4_OK);
	bad |= expect("krb5i: SEQUENCE PUTROOTFH GETATTR", root_then(ci, OP_GETATTR, &rep, &r),
		      NFS4_OK);
	bad |= expect("krb5: SEQUENCE PUTROOTFH GETATTR", root_then(cn, OP_GETATTR, &rep, &r),
		      NFS4ERR_WRONGSEC);
	bad |= expect("krb5: DESTROY_SESSION (machine cred without integrity)",
		      destroy(cn, OP_DESTROY_SESSION, cid), NFS4ERR_WRONG_CRED);
	long st = root_then(cp, OP_SECINFO_NO_NAME, &rep, &r);
	bad |= expect("krb5p: SEQUENCE PUTROOTFH SECINFO_NO_NAME", st, NFS4_OK);
	if (st == NFS4_OK)
		bad |= secinfo_list(&r);
	bad |= expect("AUTH_NONE: SEQUENCE PUTROOTFH GETATTR", root_then(c0, OP_GETATTR, &rep, &r),
		      NFS4ERR_WRONGSEC);
	bad |= expect("AUTH_NONE: EXCHANGE_ID SP4_MACH_CRED",
		      exchange_id(c0, "tinynfs-gss-other", SP4_MACH_CRED, &cid2, &seq, &how),
		      NFS4ERR_INVAL);
	bad |= expect("krb5i: DESTROY_SESSION", destroy(ci, OP_DESTROY_SESSION, cid), NFS4_OK);
	bad |= expect("krb5i: DESTROY_CLIENTID", destroy(ci, OP_DESTROY_CLIENTID, cid), NFS4_OK);
	rpcrdma_clnt_destroy(ci);
	rpcrdma_clnt_destroy(cn);
	rpcrdma_clnt_destroy(cp);
	rpcrdma_clnt_destroy(c0);
	printf("%s\n", bad ? "FAILED" : "all as expected");
	return bad;
}
