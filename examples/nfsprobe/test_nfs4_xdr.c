// SPDX-License-Identifier: BSD-2-Clause
/*
 * nfs4-probe's COMPOUND encoder and decoder against byte buffers written
 * by hand from RFC 8881's XDR: exact encodings, replies as the kernel's
 * nfsd and tinynfs shape them (implementation ids, SP4_MACH_CRED, every
 * delegation type), and hostile replies (every truncation, counts near
 * 2^32, a failed operation that is not the last, READ data beyond the
 * buffer, a status that contradicts the results).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "nfs4_xdr.h"

/* A buffer of big-endian words built by the tests. */
struct wb {
	uint8_t b[4096];
	size_t n;
};

static void w32(struct wb *w, uint32_t v)
{
	assert_true(w->n + 4 <= sizeof(w->b));
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void w64(struct wb *w, uint64_t v)
{
	w32(w, (uint32_t)(v >> 32));
	w32(w, (uint32_t)v);
}

static void wbytes(struct wb *w, const void *p, size_t n) /* fixed, padded */
{
	assert_true(w->n + n + 3 <= sizeof(w->b));
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4)
		w->b[w->n++] = 0;
}

static void wopaque(struct wb *w, const void *p, size_t n)
{
	w32(w, (uint32_t)n);
	wbytes(w, p, n);
}

static void wstr(struct wb *w, const char *s)
{
	wopaque(w, s, strlen(s));
}

static const uint8_t sid[NFS4_SESSIONID_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 8,
						  9, 10, 11, 12, 13, 14, 15, 16 };

static void expect_encoding(const struct p4_compound *c, const struct wb *want)
{
	uint8_t buf[4096];
	struct rpcrdma_xdr_enc e;

	rpcrdma_xdr_enc_init(&e, buf, sizeof(buf));
	assert_int_equal(p4_encode(&e, c), 0);
	assert_int_equal(rpcrdma_xdr_enc_len(&e), want->n);
	assert_memory_equal(buf, want->b, want->n);
	/* Every smaller buffer is refused. */
	for (size_t len = 0; len < want->n; len += 4) {
		rpcrdma_xdr_enc_init(&e, buf, len);
		assert_int_equal(p4_encode(&e, c), -EMSGSIZE);
	}
}

static void seq_words(struct wb *w, uint32_t seqid)
{
	w32(w, OP_SEQUENCE);
	wbytes(w, sid, sizeof(sid));
	w32(w, seqid);
	w32(w, 0); /* slot */
	w32(w, 0); /* highest slot */
	w32(w, 0); /* cachethis */
}

static void test_encode_write(void **state)
{
	(void)state;
	struct p4_compound c = { 0 };
	struct p4_fh fh = { 5, { 0xa, 0xb, 0xc, 0xd, 0xe } };
	struct p4_stateid st = { 7, { 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3 } };
	struct p4_op *o = p4_add(&c, OP_SEQUENCE);
	o->a.seq.sessionid = sid;
	o->a.seq.seqid = 42;
	p4_add(&c, OP_PUTFH)->a.fh = &fh;
	o = p4_add(&c, OP_WRITE);
	o->a.write.stateid = &st;
	o->a.write.offset = UINT64_C(0x100000000);
	o->a.write.data = "hello";
	o->a.write.len = 5;

	struct wb w = { .n = 0 };
	w32(&w, 0);  /* tag */
	w32(&w, 1);  /* minor version */
	w32(&w, 3);
	seq_words(&w, 42);
	w32(&w, OP_PUTFH);
	wopaque(&w, fh.data, fh.len);
	w32(&w, OP_WRITE);
	w32(&w, 7);
	wbytes(&w, st.other, sizeof(st.other));
	w64(&w, UINT64_C(0x100000000));
	w32(&w, UNSTABLE4);
	wopaque(&w, "hello", 5);
	expect_encoding(&c, &w);
}

static void test_encode_session(void **state)
{
	(void)state;
	struct p4_compound c = { 0 };
	uint8_t verf[8] = { 9, 8, 7, 6, 5, 4, 3, 2 };
	struct p4_op *o = p4_add(&c, OP_EXCHANGE_ID);
	o->a.exid.verifier = verf;
	o->a.exid.owner = "owner-x";
	o = p4_add(&c, OP_CREATE_SESSION);
	o->a.cs.clientid = UINT64_C(0x1122334455667788);
	o->a.cs.seqid = 3;
	o->a.cs.fore = (struct p4_chan){ 0, 100, 200, 300, 16, 1 };
	o->a.cs.back = (struct p4_chan){ 0, 4096, 4096, 0, 2, 1 };

	struct wb w = { .n = 0 };
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 2);
	w32(&w, OP_EXCHANGE_ID);
	wbytes(&w, verf, 8);
	wstr(&w, "owner-x");
	w32(&w, 0);        /* flags */
	w32(&w, SP4_NONE);
	w32(&w, 0);        /* impl id: none */
	w32(&w, OP_CREATE_SESSION);
	w64(&w, UINT64_C(0x1122334455667788));
	w32(&w, 3);
	w32(&w, 0);        /* flags */
	uint32_t fore[] = { 0, 100, 200, 300, 16, 1, 0 }, back[] = { 0, 4096, 4096, 0, 2, 1, 0 };
	for (int i = 0; i < 7; i++)
		w32(&w, fore[i]);
	for (int i = 0; i < 7; i++)
		w32(&w, back[i]);
	w32(&w, 0x40000000);
	w32(&w, 1);
	w32(&w, AUTH_NONE);
	expect_encoding(&c, &w);
}

static void test_encode_open_create_readdir(void **state)
{
	(void)state;
	struct p4_compound c = { 0 };
	struct p4_op *o = p4_add(&c, OP_OPEN);
	o->a.open.clientid = 5;
	o->a.open.owner = "ow";
	o->a.open.name = "f";
	o->a.open.mode = 0644;
	o = p4_add(&c, OP_CREATE);
	o->a.create.name = "d";
	o->a.create.type = NF4DIR;
	o = p4_add(&c, OP_READDIR);
	o->a.readdir.cookie = 77;
	o->a.readdir.dircount = 1000;
	o->a.readdir.maxcount = 2000;

	struct wb w = { .n = 0 };
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 3);
	w32(&w, OP_OPEN);
	w32(&w, 0);
	w32(&w, OPEN4_SHARE_ACCESS_BOTH);
	w32(&w, OPEN4_SHARE_DENY_NONE);
	w64(&w, 5);
	wstr(&w, "ow");
	w32(&w, OPEN4_CREATE);
	w32(&w, UNCHECKED4);
	w32(&w, 2); w32(&w, 0); w32(&w, 2); w32(&w, 4); w32(&w, 0644);
	w32(&w, CLAIM_NULL);
	wstr(&w, "f");
	w32(&w, OP_CREATE);
	w32(&w, NF4DIR);
	wstr(&w, "d");
	w32(&w, 2); w32(&w, 0); w32(&w, 2); w32(&w, 4); w32(&w, 0755);
	w32(&w, OP_READDIR);
	w64(&w, 77);
	w64(&w, 0);
	w32(&w, 1000);
	w32(&w, 2000);
	w32(&w, 1);
	w32(&w, 1u << FATTR4_TYPE);
	expect_encoding(&c, &w);

	/* Names the probe never sends. */
	struct p4_compound bad = { 0 };
	p4_add(&bad, OP_LOOKUP)->a.name = "";
	uint8_t buf[256];
	struct rpcrdma_xdr_enc e;
	rpcrdma_xdr_enc_init(&e, buf, sizeof(buf));
	assert_int_equal(p4_encode(&e, &bad), -EINVAL);
	char longname[P4_NAME_MAX + 2];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	bad.ops[0].a.name = longname;
	rpcrdma_xdr_enc_init(&e, buf, sizeof(buf));
	assert_int_equal(p4_encode(&e, &bad), -EINVAL);
	for (int i = 1; i < P4_MAX_OPS; i++)
		assert_non_null(p4_add(&bad, OP_GETFH));
	assert_null(p4_add(&bad, OP_GETFH));
}

static int decode(const struct wb *w, size_t len, struct p4_res *r)
{
	struct rpcrdma_xdr_dec d;

	rpcrdma_xdr_dec_init_buf(&d, w->b, len);
	return p4_decode(&d, r);
}

/* Every proper prefix of w is refused (and never read past). */
static void expect_truncations_refused(const struct wb *w, struct p4_res *proto)
{
	for (size_t len = 0; len < w->n; len++) {
		struct p4_res r = *proto;
		uint8_t *copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, w->b, len);
		struct rpcrdma_xdr_dec d;
		rpcrdma_xdr_dec_init_buf(&d, copy, len);
		assert_int_not_equal(p4_decode(&d, &r), 0);
		free(copy);
	}
}

static void head(struct wb *w, uint32_t status, uint32_t nres)
{
	w32(w, status);
	wstr(w, "tag");
	w32(w, nres);
}

static void seq_res(struct wb *w)
{
	w32(w, OP_SEQUENCE);
	w32(w, NFS4_OK);
	wbytes(w, sid, sizeof(sid));
	w32(w, 9);  /* seqid */
	w32(w, 0);  /* slot */
	w32(w, 0);  /* highest */
	w32(w, 63); /* target */
	w32(w, 0x40); /* flags */
}

static void test_decode_session(void **state)
{
	(void)state;
	struct wb w = { .n = 0 };
	head(&w, NFS4_OK, 2);
	w32(&w, OP_EXCHANGE_ID);
	w32(&w, NFS4_OK);
	w64(&w, UINT64_C(0xfeedfacecafebeef));
	w32(&w, 1);          /* sequenceid */
	w32(&w, EXCHGID4_FLAG_USE_NON_PNFS);
	w32(&w, SP4_MACH_CRED);
	w32(&w, 2); w32(&w, 1); w32(&w, 2);  /* must_enforce */
	w32(&w, 1); w32(&w, 3);              /* must_allow */
	w64(&w, 0);          /* so_minor_id */
	wstr(&w, "major");
	wstr(&w, "scope");
	w32(&w, 1);          /* impl id */
	wstr(&w, "kernel.org");
	wstr(&w, "Linux 6.x");
	w64(&w, 0); w32(&w, 0);
	w32(&w, OP_CREATE_SESSION);
	w32(&w, NFS4_OK);
	wbytes(&w, sid, sizeof(sid));
	w32(&w, 1);
	w32(&w, 0);
	uint32_t fore[] = { 0, 1049600, 1049600, 7584, 8, 30, 0 };
	for (int i = 0; i < 7; i++)
		w32(&w, fore[i]);
	uint32_t back[] = { 0, 4096, 4096, 0, 2, 1, 1, 16 }; /* ird<1>: one */
	for (int i = 0; i < 8; i++)
		w32(&w, back[i]);

	struct p4_res r = { 0 };
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.nres, 2);
	assert_true(r.clientid == UINT64_C(0xfeedfacecafebeef));
	assert_int_equal(r.exid_seqid, 1);
	assert_memory_equal(r.sessionid, sid, sizeof(sid));
	assert_int_equal(r.fore.maxreq, 1049600);
	assert_int_equal(r.fore.maxops, 8);
	assert_int_equal(r.fore.maxreqs, 30);
	assert_int_equal(r.back.maxops, 2);
	struct p4_res proto = { 0 };
	expect_truncations_refused(&w, &proto);

	/* SSV state protection was never asked for. */
	struct wb s = { .n = 0 };
	head(&s, NFS4_OK, 1);
	w32(&s, OP_EXCHANGE_ID);
	w32(&s, NFS4_OK);
	w64(&s, 1);
	w32(&s, 1);
	w32(&s, 0);
	w32(&s, SP4_SSV);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&s, s.n, &r), -EBADMSG);
}

static void open_res_head(struct wb *w)
{
	head(w, NFS4_OK, 4);
	seq_res(w);
	w32(w, OP_PUTFH);
	w32(w, NFS4_OK);
	w32(w, OP_OPEN);
	w32(w, NFS4_OK);
	w32(w, 1);
	wbytes(w, "ABCDEFGHIJKL", 12);
	w32(w, 1); w64(w, 10); w64(w, 11); /* change_info4 */
	w32(w, OPEN4_RESULT_LOCKTYPE_POSIX);
	w32(w, 2); w32(w, 0); w32(w, 2);     /* attrset */
}

static void open_res_tail(struct wb *w)
{
	w32(w, OP_GETFH);
	w32(w, NFS4_OK);
	wopaque(w, "handle", 6);
}

static void test_decode_open(void **state)
{
	(void)state;
	struct p4_res r;
	/* No delegation. */
	struct wb w = { .n = 0 };
	open_res_head(&w);
	w32(&w, OPEN_DELEGATE_NONE);
	open_res_tail(&w);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(r.nres, 4);
	assert_int_equal(r.seq_status, NFS4_OK);
	assert_int_equal(r.seq_target, 63);
	assert_int_equal(r.stateid.seqid, 1);
	assert_memory_equal(r.stateid.other, "ABCDEFGHIJKL", 12);
	assert_int_equal(r.deleg_type, OPEN_DELEGATE_NONE);
	assert_int_equal(r.fh.len, 6);
	assert_memory_equal(r.fh.data, "handle", 6);
	struct p4_res proto = { 0 };
	expect_truncations_refused(&w, &proto);

	/* A write delegation with a size limit and an ACE. */
	w.n = 0;
	open_res_head(&w);
	w32(&w, 2);
	w32(&w, 1);
	wbytes(&w, "delegdelegde", 12);
	w32(&w, 0);      /* recall */
	w32(&w, 1);      /* NFS_LIMIT_SIZE */
	w64(&w, UINT64_MAX);
	w32(&w, 0); w32(&w, 0); w32(&w, 0); wstr(&w, "EVERYONE@");
	open_res_tail(&w);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(r.deleg_type, 2);
	assert_memory_equal(r.deleg.other, "delegdelegde", 12);
	assert_int_equal(r.fh.len, 6);
	expect_truncations_refused(&w, &proto);

	/* OPEN_DELEGATE_NONE_EXT, WND4_CONTENTION: one more bool. */
	w.n = 0;
	open_res_head(&w);
	w32(&w, 3);
	w32(&w, 1);
	w32(&w, 0);
	open_res_tail(&w);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(r.deleg_type, OPEN_DELEGATE_NONE);
	assert_int_equal(r.fh.len, 6);

	/* An unknown delegation type. */
	w.n = 0;
	open_res_head(&w);
	w32(&w, 4);
	open_res_tail(&w);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
}

static void test_decode_errors(void **state)
{
	(void)state;
	struct p4_res r;
	/* OPEN failed with NFS4ERR_GRACE: the last result. */
	struct wb w = { .n = 0 };
	head(&w, NFS4ERR_GRACE, 3);
	seq_res(&w);
	w32(&w, OP_PUTFH); w32(&w, NFS4_OK);
	w32(&w, OP_OPEN); w32(&w, NFS4ERR_GRACE);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(r.status, NFS4ERR_GRACE);
	assert_int_equal(r.last_op, OP_OPEN);
	assert_int_equal(r.last_status, NFS4ERR_GRACE);
	assert_int_equal(r.seq_status, NFS4_OK);

	/* SEQUENCE itself failed (the slot was not used). */
	w.n = 0;
	head(&w, NFS4ERR_DELAY, 1);
	w32(&w, OP_SEQUENCE); w32(&w, NFS4ERR_DELAY);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(r.seq_status, NFS4ERR_DELAY);

	/* A failed operation followed by another. */
	w.n = 0;
	head(&w, NFS4ERR_NOENT, 2);
	w32(&w, OP_LOOKUP); w32(&w, NFS4ERR_NOENT);
	w32(&w, OP_GETFH); w32(&w, NFS4_OK);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);

	/* NFS4_OK over a failed last result, and the reverse. */
	w.n = 0;
	head(&w, NFS4_OK, 1);
	w32(&w, OP_LOOKUP); w32(&w, NFS4ERR_NOENT);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
	w.n = 0;
	head(&w, NFS4ERR_NOENT, 1);
	w32(&w, OP_LOOKUP); w32(&w, NFS4_OK);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);

	/* Result counts near 2^32, and more results than operations sent. */
	uint32_t counts[] = { UINT32_MAX, 0x80000000u, P4_MAX_OPS + 1 };
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		w.n = 0;
		head(&w, NFS4_OK, counts[i]);
		for (int k = 0; k < 40; k++) {
			w32(&w, OP_PUTROOTFH);
			w32(&w, NFS4_OK);
		}
		memset(&r, 0, sizeof(r));
		assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
	}

	/* An operation the probe never sends; a file handle over 128 bytes. */
	w.n = 0;
	head(&w, NFS4_OK, 1);
	w32(&w, OP_LINK); w32(&w, NFS4_OK); w32(&w, 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
	w.n = 0;
	head(&w, NFS4_OK, 1);
	w32(&w, OP_GETFH); w32(&w, NFS4_OK); w32(&w, NFS4_FHSIZE + 1);
	uint8_t big[NFS4_FHSIZE + 1] = { 0 };
	wbytes(&w, big, sizeof(big));
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);

	assert_string_equal(p4_status_name(NFS4ERR_GRACE), "NFS4ERR_GRACE");
	assert_null(p4_status_name(99999));
	assert_string_equal(p4_op_name(OP_READDIR), "READDIR");
	assert_string_equal(p4_op_name(9999), "op?");
}

static void test_decode_read(void **state)
{
	(void)state;
	uint8_t data[100], out[100];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	struct wb w = { .n = 0 };
	head(&w, NFS4_OK, 1);
	w32(&w, OP_READ); w32(&w, NFS4_OK);
	w32(&w, 1);          /* eof */
	wopaque(&w, data, 99);
	struct p4_res r = { 0 };
	r.read_buf = out;
	r.read_max = sizeof(out);
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(r.read_len, 99);
	assert_true(r.read_eof);
	assert_memory_equal(out, data, 99);
	struct p4_res proto = r;
	expect_truncations_refused(&w, &proto);
	/* More data than asked for. */
	r.read_max = 98;
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
	/* A length near 2^32. */
	w.n = 0;
	head(&w, NFS4_OK, 1);
	w32(&w, OP_READ); w32(&w, NFS4_OK); w32(&w, 0); w32(&w, UINT32_MAX);
	r.read_max = sizeof(out);
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
}

struct names {
	char n[8][32];
	uint64_t cookie[8];
	int count;
	int stop_at;
};

static int collect(void *arg, const char *name, uint64_t cookie)
{
	struct names *s = arg;

	if (s->count == s->stop_at)
		return -EPROTO;
	assert_true(s->count < 8);
	strcpy(s->n[s->count], name);
	s->cookie[s->count++] = cookie;
	return 0;
}

static void dirent_words(struct wb *w, uint64_t cookie, const char *name)
{
	w32(w, 1);     /* value_follows */
	w64(w, cookie);
	wstr(w, name);
	w32(w, 1);
	w32(w, 1u << FATTR4_TYPE);
	w32(w, 4);
	w32(w, NF4DIR);
}

/* A COMPOUND reply up to READDIR's first entry: SEQUENCE and PUTFH, then
 * READDIR (full), or READDIR alone; NFS4_OK and the cookie verifier. */
static void readdir_res_head(struct wb *w, bool full)
{
	head(w, NFS4_OK, full ? 3 : 1);
	if (full) {
		seq_res(w);
		w32(w, OP_PUTFH);
		w32(w, NFS4_OK);
	}
	w32(w, OP_READDIR);
	w32(w, NFS4_OK);
	wbytes(w, "verifier", 8);
}

static void test_decode_readdir(void **state)
{
	(void)state;
	struct wb w = { .n = 0 };
	readdir_res_head(&w, true);
	dirent_words(&w, 3, "a");
	dirent_words(&w, 4, "bb");
	dirent_words(&w, UINT64_C(0x7fffffffffffffff), "ccc");
	w32(&w, 0);    /* no more */
	w32(&w, 1);    /* eof */

	struct names s = { .stop_at = -1 };
	struct p4_res r = { 0 };
	r.dirent = collect;
	r.dirent_arg = &s;
	assert_int_equal(decode(&w, w.n, &r), 0);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.n[0], "a");
	assert_string_equal(s.n[2], "ccc");
	assert_int_equal(r.dir_entries, 3);
	assert_true(r.dir_last_cookie == UINT64_C(0x7fffffffffffffff));
	assert_true(r.dir_eof);
	assert_memory_equal(r.cookieverf, "verifier", 8);

	/* The callback's error stops decoding. */
	struct names t = { .stop_at = 1 };
	memset(&r, 0, sizeof(r));
	r.dirent = collect;
	r.dirent_arg = &t;
	assert_int_equal(decode(&w, w.n, &r), -EPROTO);
	assert_int_equal(t.count, 1);

	/* Truncated anywhere (no callback: counts only). */
	struct p4_res proto = { 0 };
	expect_truncations_refused(&w, &proto);

	/* A name holding a NUL byte, and an attribute list near 2^32. */
	w.n = 0;
	readdir_res_head(&w, false);
	w32(&w, 1); w64(&w, 1); wopaque(&w, "a\0b", 3);
	w32(&w, 0); w32(&w, 0); w32(&w, 1);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
	w.n = 0;
	readdir_res_head(&w, false);
	w32(&w, 1); w64(&w, 1); wstr(&w, "x"); w32(&w, 0); w32(&w, UINT32_MAX - 2);
	memset(&r, 0, sizeof(r));
	assert_int_equal(decode(&w, w.n, &r), -EBADMSG);
}

/* Replies with random words overwritten: decoded or refused, never read
 * past (ASan), the READ data never beyond read_max, the dirent callback
 * never given more names than the reply holds. */
static int count_names(void *arg, const char *name, uint64_t cookie)
{
	(void)cookie;
	assert_true(strlen(name) <= P4_NAME_MAX);
	(*(unsigned *)arg)++;
	return 0;
}

static void mutate_and_decode(const struct wb *orig, uint32_t *seed)
{
	static const uint32_t nasty[] = { 0, 1, 2, 3, 4, 0x7fffffff, 0x80000000u, 0xfffffffcu,
					  0xffffffffu, NFS4_FHSIZE + 1, P4_MAX_OPS + 1 };
	for (int round = 0; round < 3000; round++) {
		struct wb w = *orig;
		int edits = 1 + (int)(*seed % 3);
		for (int e = 0; e < edits; e++) {
			*seed = *seed * 1103515245u + 12345u;
			size_t at = (*seed >> 8) % (w.n / 4) * 4;
			uint32_t v = (*seed & 1) ? nasty[(*seed >> 4) % (sizeof(nasty) / 4)]
						 : *seed;
			w.b[at] = (uint8_t)(v >> 24);
			w.b[at + 1] = (uint8_t)(v >> 16);
			w.b[at + 2] = (uint8_t)(v >> 8);
			w.b[at + 3] = (uint8_t)v;
		}
		size_t len = (*seed & 0x100) ? w.n : (*seed >> 12) % (w.n + 1);
		uint8_t *copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, w.b, len);
		uint8_t out[64];
		unsigned names = 0;
		struct p4_res r = { 0 };
		r.read_buf = out;
		r.read_max = sizeof(out);
		r.dirent = count_names;
		r.dirent_arg = &names;
		struct rpcrdma_xdr_dec d;
		rpcrdma_xdr_dec_init_buf(&d, copy, len);
		int rc = p4_decode(&d, &r);
		assert_true(rc == 0 || rc == -EBADMSG);
		assert_true(r.read_len <= sizeof(out));
		assert_true(r.fh.len <= NFS4_FHSIZE);
		assert_true(names <= len / 24); /* an entry takes 24 bytes at least */
		free(copy);
	}
}

static void test_decode_mutations(void **state)
{
	(void)state;
	uint32_t seed = 26;
	struct wb w = { .n = 0 };
	open_res_head(&w);
	w32(&w, 2);
	w32(&w, 1);
	wbytes(&w, "delegdelegde", 12);
	w32(&w, 0); w32(&w, 2); w32(&w, 10); w32(&w, 512);
	w32(&w, 0); w32(&w, 0); w32(&w, 0); wstr(&w, "EVERYONE@");
	open_res_tail(&w);
	mutate_and_decode(&w, &seed);

	w.n = 0;
	readdir_res_head(&w, true);
	dirent_words(&w, 3, "a");
	dirent_words(&w, 4, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	dirent_words(&w, 5, "c");
	w32(&w, 0);
	w32(&w, 1);
	mutate_and_decode(&w, &seed);

	w.n = 0;
	head(&w, NFS4_OK, 4);
	seq_res(&w);
	w32(&w, OP_PUTFH); w32(&w, NFS4_OK);
	w32(&w, OP_READ); w32(&w, NFS4_OK); w32(&w, 0);
	uint8_t data[40] = { 1, 2, 3 };
	wopaque(&w, data, sizeof(data));
	w32(&w, OP_GETFH); w32(&w, NFS4_OK);
	wopaque(&w, "fh", 2);
	mutate_and_decode(&w, &seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_write),
		cmocka_unit_test(test_encode_session),
		cmocka_unit_test(test_encode_open_create_readdir),
		cmocka_unit_test(test_decode_session),
		cmocka_unit_test(test_decode_open),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_decode_read),
		cmocka_unit_test(test_decode_readdir),
		cmocka_unit_test(test_decode_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
