/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wire capture's writer (lib/pcap/pcap.c), without a device: a recorded
 * exchange of NFSv4 calls over RPC-over-RDMA, with every kind of chunk,
 * written as RoCEv2 frames through the writer the library's hooks use,
 * then read by Wireshark's dissectors (tshark): every message frame must
 * be RPC-over-RDMA, the calls and replies RPC and NFS, no frame malformed,
 * no expert error.  Skipped (77) without tshark.  The ICRC is checked
 * against the RoCEv2 rule independently (a CRC32 computed here bit by bit
 * over the masked headers) and against a second writer sharing the file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <cmocka.h>

#include <rpcrdma/proto.h>

#include "pcap/pcap_int.h"

#define NFS_PROG 100003u
#define OP_PUTROOTFH 24u
#define OP_READ 25u
#define OP_WRITE 38u
#define BIG_READ (300u * 1024u)    /* a read chunk of 75 response packets */
#define BIG_WRITE (64u * 1024u)    /* a write chunk of 16 packets */
#define BIG_INLINE 10000u          /* a Send of three packets */

/* ---- XDR by hand ---- */

struct xb {
	uint8_t buf[16384];
	size_t len;
};

static void x32(struct xb *x, uint32_t v)
{
	v = htonl(v);
	memcpy(x->buf + x->len, &v, 4);
	x->len += 4;
}

static void x64(struct xb *x, uint64_t v)
{
	x32(x, (uint32_t)(v >> 32));
	x32(x, (uint32_t)v);
}

static void xbytes(struct xb *x, const void *p, size_t n)
{
	memcpy(x->buf + x->len, p, n);
	x->len += n;
	while (x->len & 3)
		x->buf[x->len++] = 0;
}

static void rpc_call(struct xb *x, uint32_t xid, uint32_t proc)
{
	x32(x, xid);
	x32(x, 0);          /* CALL */
	x32(x, 2);          /* RPC version */
	x32(x, NFS_PROG);
	x32(x, 4);
	x32(x, proc);
	x32(x, 0);          /* AUTH_NONE credential */
	x32(x, 0);
	x32(x, 0);          /* and verifier */
	x32(x, 0);
}

static void rpc_reply(struct xb *x, uint32_t xid)
{
	x32(x, xid);
	x32(x, 1);          /* REPLY */
	x32(x, 0);          /* MSG_ACCEPTED */
	x32(x, 0);          /* AUTH_NONE verifier */
	x32(x, 0);
	x32(x, 0);          /* SUCCESS */
}

static void compound(struct xb *x, uint32_t xid, uint32_t nops)
{
	rpc_call(x, xid, 1);
	x32(x, 0);          /* tag */
	x32(x, 2);          /* minor version */
	x32(x, nops);
	x32(x, OP_PUTROOTFH);
}

static void compound_res(struct xb *x, uint32_t xid, uint32_t nres)
{
	rpc_reply(x, xid);
	x32(x, 0);          /* NFS4_OK */
	x32(x, 0);          /* tag */
	x32(x, nres);
	x32(x, OP_PUTROOTFH);
	x32(x, 0);
}

static void stateid(struct xb *x)
{
	static const uint8_t other[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	x32(x, 1);
	xbytes(x, other, sizeof(other));
}

/* ---- the recorded exchange ---- */

struct wire {
	struct rpcrdma__pcap *p;
	struct rpcrdma__pcap_flow c2s, s2c;
	_Atomic uint32_t cpsn, spsn;
	uint8_t *bulk;                     /* client memory the chunks cover */
};

static void flows(struct wire *w, int family)
{
	memset(&w->c2s, 0, sizeof(w->c2s));
	if (family == AF_INET) {
		struct sockaddr_in *c = (struct sockaddr_in *)&w->c2s.src;
		struct sockaddr_in *s = (struct sockaddr_in *)&w->c2s.dst;

		c->sin_family = s->sin_family = AF_INET;
		inet_pton(AF_INET, "192.0.2.1", &c->sin_addr);
		inet_pton(AF_INET, "192.0.2.2", &s->sin_addr);
	} else {
		struct sockaddr_in6 *c = (struct sockaddr_in6 *)&w->c2s.src;
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&w->c2s.dst;

		c->sin6_family = s->sin6_family = AF_INET6;
		inet_pton(AF_INET6, "fe80::1", &c->sin6_addr);
		inet_pton(AF_INET6, "fe80::2", &s->sin6_addr);
	}
	w->c2s.sqpn = 0x11;
	w->c2s.dqpn = 0x22;
	w->s2c.src = w->c2s.dst;
	w->s2c.dst = w->c2s.src;
	w->s2c.sqpn = 0x22;
	w->s2c.dqpn = 0x11;
	atomic_init(&w->cpsn, 0xfffff0u);  /* wraps at 2^24 during the test */
	atomic_init(&w->spsn, 100u);
}

static void send_msg(struct wire *w, bool from_client, const void *hdr, size_t hlen,
		     const void *body, size_t blen, bool inv)
{
	struct iovec iov[2] = { { (void *)(uintptr_t)hdr, hlen }, { (void *)(uintptr_t)body, blen } };

	assert_int_equal(rpcrdma__pcap_send(w->p, from_client ? &w->c2s : &w->s2c,
					    from_client ? &w->cpsn : &w->spsn, iov, 2, inv,
					    0x4242),
			 0);
}

/* The call header (rpcrdma_encode_call) and its parse, for the reply. */
static size_t call_hdr(uint8_t *out, const struct rpcrdma_call_desc *d, struct rpcrdma_hdr *h)
{
	int n = rpcrdma_encode_call(out, 1024, d);

	assert_true(n > 0);
	assert_true(rpcrdma_check_call(out, (size_t)n, h) > 0);
	return (size_t)n;
}

static size_t reply_hdr(uint8_t *out, const struct rpcrdma_hdr *h, const uint32_t *written,
			uint32_t nw, bool nomsg, uint32_t rlen)
{
	int n = rpcrdma_encode_reply(out, 1024, h, htonl(32), written, nw, nomsg, rlen);

	assert_true(n > 0);
	return (size_t)n;
}

/* Sends the NULL call xid inline under the header d, encoded in hb and
 * parsed into *h (which points into hb), the call built in *x (empty);
 * leaves its RPC reply in *x to be sent. */
static void null_call(struct wire *w, uint32_t xid, const struct rpcrdma_call_desc *d,
		      uint8_t hb[1024], struct rpcrdma_hdr *h, struct xb *x)
{
	size_t hl = call_hdr(hb, d, h);

	rpc_call(x, xid, 0);
	send_msg(w, true, hb, hl, x->buf, x->len, false);
	x->len = 0;
	rpc_reply(x, xid);
}

/* NULL, inline both ways. */
static void x_null(struct wire *w, uint32_t xid)
{
	struct rpcrdma_call_desc d = { .xid = htonl(xid), .credits = 32, .type = RPCRDMA_MSG };
	uint8_t hb[1024], rb[1024];
	struct rpcrdma_hdr h;
	struct xb x = { .len = 0 };

	null_call(w, xid, &d, hb, &h, &x);
	send_msg(w, false, rb, reply_hdr(rb, &h, NULL, 0, false, 0), x.buf, x.len, false);
}

/* WRITE of len bytes: inline (a Send of several packets when large), or
 * in a read chunk the server pulls; the reply invalidates (RFC 8797). */
static void x_write(struct wire *w, uint32_t xid, uint32_t len, bool chunk)
{
	struct rpcrdma_read_segment rs = { .seg = { .handle = 0x1000 + xid, .length = len,
						    .offset = (uintptr_t)w->bulk } };
	struct rpcrdma_call_desc d = { .xid = htonl(xid), .credits = 32, .type = RPCRDMA_MSG,
				       .reads = &rs, .nreads = chunk };
	uint8_t hb[1024], rb[1024];
	struct rpcrdma_hdr h;
	struct xb *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	compound(x, xid, 2);
	x32(x, OP_WRITE);
	stateid(x);
	x64(x, 0);          /* offset */
	x32(x, 2);          /* FILE_SYNC4 */
	x32(x, len);
	rs.position = (uint32_t)x->len;
	if (!chunk)
		xbytes(x, w->bulk, len);
	size_t hl = call_hdr(hb, &d, &h);

	send_msg(w, true, hb, hl, x->buf, x->len, false);
	if (chunk)
		assert_int_equal(rpcrdma__pcap_read(w->p, &w->s2c, &w->spsn, rs.seg.offset,
						    rs.seg.handle, w->bulk, len),
				 0);
	x->len = 0;
	compound_res(x, xid, 2);
	x32(x, OP_WRITE);
	x32(x, 0);
	x32(x, len);        /* count */
	x32(x, 2);          /* committed */
	x64(x, 0x1122334455667788ull);
	send_msg(w, false, rb, reply_hdr(rb, &h, NULL, 0, false, 0), x->buf, x->len, chunk);
	free(x);
}

/* READ of len bytes into a write chunk: the RDMA Write, then the reply
 * without the data. */
static void x_read(struct wire *w, uint32_t xid, uint32_t len)
{
	struct rpcrdma_segment ws = { .handle = 0x2000 + xid, .length = len,
				      .offset = (uintptr_t)w->bulk };
	uint32_t segs = 1, written = len;
	struct rpcrdma_call_desc d = { .xid = htonl(xid), .credits = 32, .type = RPCRDMA_MSG,
				       .writes = &ws, .nwrites = 1, .write_chunk_segs = &segs,
				       .write_chunks = 1 };
	uint8_t hb[1024], rb[1024];
	struct rpcrdma_hdr h;
	struct xb x = { .len = 0 };
	struct iovec data = { w->bulk, len };

	compound(&x, xid, 2);
	x32(&x, OP_READ);
	stateid(&x);
	x64(&x, 0);
	x32(&x, len);
	size_t hl = call_hdr(hb, &d, &h);

	send_msg(w, true, hb, hl, x.buf, x.len, false);
	assert_int_equal(rpcrdma__pcap_write(w->p, &w->s2c, &w->spsn, ws.offset, ws.handle, &data,
					     1),
			 0);
	x.len = 0;
	compound_res(&x, xid, 2);
	x32(&x, OP_READ);
	x32(&x, 0);
	x32(&x, 1);         /* eof */
	x32(&x, len);       /* the data went by the write chunk */
	send_msg(w, false, rb, reply_hdr(rb, &h, &written, 1, false, 0), x.buf, x.len, false);
}

/* NULL answered through the reply chunk (RDMA Write, then RDMA_NOMSG). */
static void x_reply_chunk(struct wire *w, uint32_t xid)
{
	struct rpcrdma_segment rc = { .handle = 0x3000 + xid, .length = 4096,
				      .offset = (uintptr_t)w->bulk };
	struct rpcrdma_call_desc d = { .xid = htonl(xid), .credits = 32, .type = RPCRDMA_MSG,
				       .has_reply = true, .reply = &rc, .nreply = 1 };
	uint8_t hb[1024], rb[1024];
	struct rpcrdma_hdr h;
	struct xb x = { .len = 0 };

	null_call(w, xid, &d, hb, &h, &x);
	struct iovec iov = { x.buf, x.len };

	assert_int_equal(rpcrdma__pcap_write(w->p, &w->s2c, &w->spsn, rc.offset, rc.handle, &iov,
					     1),
			 0);
	send_msg(w, false, rb, reply_hdr(rb, &h, NULL, 0, true, (uint32_t)x.len), NULL, 0,
		 false);
}

/* A COMPOUND sent as RDMA_NOMSG in a position-zero read chunk. */
static void x_pos0(struct wire *w, uint32_t xid)
{
	struct xb x = { .len = 0 };

	compound(&x, xid, 1);
	struct rpcrdma_read_segment rs = { .position = 0,
					   .seg = { .handle = 0x4000 + xid,
						    .length = (uint32_t)x.len,
						    .offset = (uintptr_t)x.buf } };
	struct rpcrdma_call_desc d = { .xid = htonl(xid), .credits = 32, .type = RPCRDMA_NOMSG,
				       .reads = &rs, .nreads = 1 };
	uint8_t hb[1024], rb[1024];
	struct rpcrdma_hdr h;
	size_t hl = call_hdr(hb, &d, &h);

	send_msg(w, true, hb, hl, NULL, 0, false);
	assert_int_equal(rpcrdma__pcap_read(w->p, &w->s2c, &w->spsn, rs.seg.offset,
					    rs.seg.handle, x.buf, rs.seg.length),
			 0);
	x.len = 0;
	compound_res(&x, xid, 1);
	send_msg(w, false, rb, reply_hdr(rb, &h, NULL, 0, false, 0), x.buf, x.len, false);
}

static void exchange(struct wire *w, uint32_t xid)
{
	x_null(w, xid + 1);
	x_write(w, xid + 2, 100, false);
	x_write(w, xid + 3, BIG_INLINE, false);
	x_write(w, xid + 4, BIG_READ, true);
	x_read(w, xid + 5, BIG_WRITE);
	x_read(w, xid + 6, 1000);
	x_reply_chunk(w, xid + 7);
	x_pos0(w, xid + 8);
	x_null(w, xid + 9);
	x_read(w, xid + 10, BIG_WRITE + 1);  /* a 1-byte last packet, 3 pad bytes */
}

/* ---- tshark ---- */

static char tmpdir[64];

static bool have_tshark(void)
{
	return system("tshark --version >/dev/null 2>&1") == 0;
}

/* The number tshark's command prints (its output's line count). */
static long tshark_count(const char *file, const char *args)
{
	char cmd[1024];
	long n = 0;
	int ch;
	FILE *f;

	/* eth_over_ib off: it takes some RDMA data for Ethernet (docs/pcap.md) */
	snprintf(cmd, sizeof(cmd), "tshark -2 -n --disable-heuristic eth_over_ib -r %s %s 2>/dev/null",
		 file, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	assert_int_equal(pclose(f), 0);
	return n;
}

static void print_summary(const char *file)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "T='tshark -2 -n --disable-heuristic eth_over_ib';"
		 " $T -r %s -q -z io,phs 2>/dev/null | sed -n '/Protocol Hierarchy/,$p';"
		 " $T -r %s -q -z expert 2>/dev/null | head -20",
		 file, file);
	if (system(cmd) != 0)
		fprintf(stderr, "summary failed\n");
}

/* The checks: every frame InfiniBand; every message (a Send's only or
 * last packet) RPC-over-RDMA; calls and replies RPC and NFS. */
static void dissect_ok(const char *file, long nframes, long nmsgs, long nnfs)
{
	print_summary(file);
	assert_int_equal(tshark_count(file, ""), nframes);
	assert_int_equal(tshark_count(file, "-Y infiniband"), nframes);
	assert_int_equal(tshark_count(file, "-Y _ws.malformed"), 0);
	/* no expert info of severity warning (0x00600000) or error */
	assert_int_equal(tshark_count(file, "-Y '_ws.expert.severity >= 6291456'"), 0);
	assert_int_equal(tshark_count(file, "-Y 'infiniband.bth.opcode in {2, 4, 22, 23}'"), nmsgs);
	assert_int_equal(tshark_count(file, "-Y 'infiniband.bth.opcode in {2, 4, 22, 23} && !rpcordma'"),
			 0);
	assert_int_equal(tshark_count(file, "-Y 'rpcordma'"), nmsgs);
	assert_int_equal(tshark_count(file, "-Y 'nfs'"), nnfs);
	/* every RDMA Write's first packet and Read request shows its RETH */
	assert_int_equal(tshark_count(file, "-Y 'infiniband.reth.va'"),
			 tshark_count(file, "-Y 'infiniband.bth.opcode in {6, 10, 12}'"));
	/* the connection: REQ, REP, RTU */
	assert_int_equal(tshark_count(file, "-Y 'infiniband.bth.opcode == 100'"), 3);
}

static void run_exchange(int family)
{
	struct wire w = { 0 };
	char file[128];

	snprintf(file, sizeof(file), "%s/x%d.pcap", tmpdir, family);
	w.bulk = malloc(BIG_READ);
	assert_non_null(w.bulk);
	for (uint32_t i = 0; i < BIG_READ; i++)
		w.bulk[i] = (uint8_t)(i * 7);
	flows(&w, family);
	assert_int_equal(rpcrdma__pcap_open(file, &w.p), 0);
	assert_non_null(w.p);
	assert_int_equal(rpcrdma__pcap_connect(w.p, &w.c2s, atomic_load(&w.cpsn),
					       atomic_load(&w.spsn), 20049), 0);
	exchange(&w, 0x100);
	rpcrdma__pcap_close(w.p);
	free(w.bulk);
	/* 10 exchanges: 20 messages; frames: REQ, REP, RTU, 20 Sends (+2 for
	 * the 10000-byte Send), 1 + 75 for the 300 KiB read, 16 + 17 + 1
	 * writes, 1 + 1 for the pos0 read, 1 reply-chunk write. */
	dissect_ok(file, 3 + 20 + 2 + 76 + 16 + 17 + 1 + 2 + 1, 20, 20);
}

static void test_exchange_ipv4(void **state)
{
	(void)state;
	run_exchange(AF_INET);
}

static void test_exchange_ipv6(void **state)
{
	(void)state;
	run_exchange(AF_INET6);
}

/* ---- writers sharing a file; choosing the file ---- */

#define SHARE_THREADS 4
#define SHARE_MSGS 200

struct sharer {
	struct wire w;
	uint32_t xid;
};

static void *share_run(void *arg)
{
	struct sharer *sh = arg;

	for (uint32_t i = 0; i < SHARE_MSGS / 2; i++)
		x_null(&sh->w, sh->xid + i);
	return NULL;
}

/* Several writers (as several listeners and clients would) append to one
 * file from their own threads: one header, every record whole. */
static void test_shared_file(void **state)
{
	struct sharer sh[SHARE_THREADS];
	pthread_t t[SHARE_THREADS];
	char file[128];
	uint32_t magic = 0;
	FILE *f;

	(void)state;
	snprintf(file, sizeof(file), "%s/shared.pcap", tmpdir);
	for (int i = 0; i < SHARE_THREADS; i++) {
		memset(&sh[i], 0, sizeof(sh[i]));
		flows(&sh[i].w, AF_INET);
		/* a connection of its own: other QPs */
		sh[i].w.c2s.sqpn = sh[i].w.s2c.dqpn = 0x100u + (uint32_t)i;
		sh[i].w.c2s.dqpn = sh[i].w.s2c.sqpn = 0x200u + (uint32_t)i;
		sh[i].xid = 0x10000u * (uint32_t)(i + 1);
		assert_int_equal(rpcrdma__pcap_open(file, &sh[i].w.p), 0);
		assert_int_equal(rpcrdma__pcap_connect(sh[i].w.p, &sh[i].w.c2s, 0, 0, 20049), 0);
	}
	for (int i = 0; i < SHARE_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, share_run, &sh[i]), 0);
	for (int i = 0; i < SHARE_THREADS; i++) {
		pthread_join(t[i], NULL);
		rpcrdma__pcap_close(sh[i].w.p);
	}
	f = fopen(file, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&magic, 4, 1, f), 1);
	fclose(f);
	assert_int_equal(magic, 0xa1b2c3d4u);
	/* a second header in the middle would make tshark stop there */
	assert_int_equal(tshark_count(file, ""), SHARE_THREADS * (3 + SHARE_MSGS));
	assert_int_equal(tshark_count(file, "-Y _ws.malformed"), 0);
	assert_int_equal(tshark_count(file, "-Y 'nfs'"), SHARE_THREADS * SHARE_MSGS);
	assert_int_equal(tshark_count(file, "-Y 'rpc.repframe'"), SHARE_THREADS * SHARE_MSGS / 2);
}

/* The path given wins; "" is off even with RPCRDMA_PCAP set; NULL follows
 * the variable; an unwritable path is open()'s error. */
static void test_choose_file(void **state)
{
	struct rpcrdma__pcap *p;
	char env[128], mine[128];
	struct stat st;

	(void)state;
	snprintf(env, sizeof(env), "%s/env.pcap", tmpdir);
	snprintf(mine, sizeof(mine), "%s/mine.pcap", tmpdir);
	assert_int_equal(setenv(RPCRDMA__PCAP_ENV, env, 1), 0);
	assert_int_equal(rpcrdma__pcap_open("", &p), 0);
	assert_null(p);
	assert_int_equal(stat(env, &st), -1);
	assert_int_equal(rpcrdma__pcap_open(mine, &p), 0);
	assert_non_null(p);
	rpcrdma__pcap_close(p);
	assert_int_equal(stat(mine, &st), 0);
	assert_int_equal(st.st_size, 24);           /* the header alone */
	assert_int_equal(stat(env, &st), -1);
	assert_int_equal(rpcrdma__pcap_open(NULL, &p), 0);
	assert_non_null(p);
	rpcrdma__pcap_close(p);
	assert_int_equal(stat(env, &st), 0);
	/* opened again: appended to, no second header */
	assert_int_equal(rpcrdma__pcap_open(NULL, &p), 0);
	rpcrdma__pcap_close(p);
	assert_int_equal(stat(env, &st), 0);
	assert_int_equal(st.st_size, 24);
	assert_int_equal(unsetenv(RPCRDMA__PCAP_ENV), 0);
	assert_int_equal(rpcrdma__pcap_open(NULL, &p), 0);
	assert_null(p);
	assert_int_equal(rpcrdma__pcap_open("/nonexistent-dir/x.pcap", &p), -ENOENT);
	assert_null(p);
}

/* The capture file is private and cannot be pointed elsewhere: created
 * 0600; a symbolic link, a FIFO (without blocking), a hard link and a file
 * of another user are refused, and nothing is written through them. */
static void test_private_file(void **state)
{
	char file[160], lnk[160], fifo[160], hard[160], target[160];
	struct rpcrdma__pcap *p;
	struct stat st;
	mode_t mask;
	int fd;

	(void)state;
	snprintf(file, sizeof(file), "%s/private.pcap", tmpdir);
	snprintf(target, sizeof(target), "%s/target", tmpdir);
	snprintf(lnk, sizeof(lnk), "%s/link.pcap", tmpdir);
	snprintf(fifo, sizeof(fifo), "%s/fifo.pcap", tmpdir);
	snprintf(hard, sizeof(hard), "%s/hard.pcap", tmpdir);
	mask = umask(0);                           /* 0600 whatever the umask */
	assert_int_equal(rpcrdma__pcap_open(file, &p), 0);
	umask(mask);
	rpcrdma__pcap_close(p);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);

	fd = open(target, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(target, lnk), 0);
	assert_int_equal(rpcrdma__pcap_open(lnk, &p), -ELOOP);
	assert_null(p);
	assert_int_equal(link(target, hard), 0);
	assert_int_equal(rpcrdma__pcap_open(hard, &p), -EINVAL);
	assert_null(p);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 0);            /* nothing written through either */

	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* no reader: open() itself refuses at once (it would block without
	 * O_NONBLOCK); with a reader: refused as no regular file */
	assert_int_equal(rpcrdma__pcap_open(fifo, &p), -ENXIO);
	assert_null(p);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	assert_int_equal(rpcrdma__pcap_open(fifo, &p), -EINVAL);
	assert_null(p);
	close(fd);
	assert_int_equal(rpcrdma__pcap_open("/dev/null", &p), -EINVAL);
	assert_null(p);
	if (geteuid() == 0) {
		assert_int_equal(chown(target, 65534, 65534), 0);
		assert_int_equal(unlink(hard), 0);       /* one name again */
		assert_int_equal(rpcrdma__pcap_open(target, &p), -EPERM);
		assert_null(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exchange_ipv4),
		cmocka_unit_test(test_exchange_ipv6),
		cmocka_unit_test(test_shared_file),
		cmocka_unit_test(test_choose_file),
		cmocka_unit_test(test_private_file),
	};
	int rc;

	if (!have_tshark()) {
		fprintf(stderr, "tshark not found: skipped\n");
		return 77;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-pcap.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (rc == 0 && !getenv("KEEP")) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		(void)!system(cmd);
	}
	return rc;
}
