/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Microbenchmark of the wire-format layer, side by side with a baseline.
 *
 * The baseline is the design the word-walking checker replaced: the header
 * is overlaid with C structures and every field is byte-swapped into a
 * host-order copy (xid, version, credits, type, and each segment's handle,
 * length and offset); the same rules as rpcrdma_check_call() (proto.h) are
 * then applied to the decoded copy, so both sides do the same job.  The
 * reply encoder is compared with one that fills the reply field by field,
 * byte-swapping each from host order.  Arguments reach both sides through
 * volatile reads, so the compiler cannot specialise either for constants.
 *
 *   bench-proto [iterations]          ns/header table with ratios
 *   bench-proto --run CASE IMPL N     runs one case N times, no output (for
 *                                     tests/bench/callgrind-proto.sh)
 * CASE: nochunk, read, write16, reply, encode.  IMPL: ours, base.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/credits.h>
#include <rpcrdma/proto.h>

/* ------------------------------------------------------------------------
 * The baseline: structure overlay + byte swap of every field.
 */

#define BASE_MAX_SEGS 64

struct base_wire_seg { /* overlay of one segment */
	uint32_t handle, length, off_hi, off_lo;
};
struct base_wire_read { /* overlay of one read list entry */
	uint32_t discrim, position;
	struct base_wire_seg seg;
};
struct base_wire_fixed {
	uint32_t xid, vers, credit, type;
};
struct base_seg {
	uint32_t handle, length;
	uint64_t offset;
};
struct base_req {
	uint32_t xid, vers, credit, type;
	uint32_t nreads, nwrite_chunks, nwrites, nreply;
	uint32_t positions[BASE_MAX_SEGS];
	struct base_seg reads[BASE_MAX_SEGS];
	uint32_t write_chunk_segs[16];
	struct base_seg writes[BASE_MAX_SEGS];
	struct base_seg reply[BASE_MAX_SEGS];
	uint32_t hdrlen;
};

static void base_seg(const struct base_wire_seg *w, struct base_seg *s)
{
	s->handle = ntohl(w->handle);
	s->length = ntohl(w->length);
	s->offset = (uint64_t)ntohl(w->off_hi) << 32 | ntohl(w->off_lo);
}

/* Decodes a chunk (count + segments) at p into segs; returns the next word. */
static const uint32_t *base_chunk(const uint32_t *p, const char *end, struct base_seg *segs,
				  uint32_t *n)
{
	if ((const char *)(p + 1) > end)
		return NULL;
	uint32_t count = ntohl(*p++);
	if (count == 0 || count > BASE_MAX_SEGS ||
	    (size_t)(end - (const char *)p) / sizeof(struct base_wire_seg) < count)
		return NULL;
	const struct base_wire_seg *ws = (const void *)p;
	for (uint32_t i = 0; i < count; i++)
		base_seg(&ws[i], &segs[i]);
	*n = count;
	return (const uint32_t *)(ws + count);
}

/* The checker's rules (proto.h), applied to the decoded copy. */
static int base_validate(const struct base_req *req)
{
	uint64_t min_next = 0;
	uint32_t chunks = 0;
	for (uint32_t i = 0; i < req->nreads;) {
		uint32_t pos = req->positions[i], n = 0;
		uint64_t len = 0;
		if (pos < min_next || ++chunks > RPCRDMA_DEFAULT_MAX_READ_CHUNKS)
			return -EINVAL;
		for (; i < req->nreads && req->positions[i] == pos; i++, n++)
			len += req->reads[i].length;
		if (n > RPCRDMA_DEFAULT_MAX_SEGMENTS || len > RPCRDMA_DEFAULT_MAX_CHUNK_BYTES)
			return -EINVAL;
		min_next = pos + ((len + 3) & ~3ull);
	}
	int pos_zero = req->nreads && req->positions[0] == 0;
	if ((req->type == RPCRDMA_NOMSG) != pos_zero)
		return -EINVAL;
	const struct base_seg *s = req->writes;
	for (uint32_t c = 0; c < req->nwrite_chunks; c++) {
		uint64_t len = 0;
		for (uint32_t i = 0; i < req->write_chunk_segs[c]; i++)
			len += s++->length;
		if (len > RPCRDMA_DEFAULT_MAX_CHUNK_BYTES)
			return -EINVAL;
	}
	uint64_t len = 0;
	for (uint32_t i = 0; i < req->nreply; i++)
		len += req->reply[i].length;
	if (len > RPCRDMA_DEFAULT_MAX_CHUNK_BYTES)
		return -EINVAL;
	return 0;
}

__attribute__((noinline)) static int base_decode(const void *buf, size_t len, struct base_req *req)
{
	const char *end = (const char *)buf + len;
	const struct base_wire_fixed *f = buf;

	if (len <= 20)
		return -EINVAL;
	req->xid = ntohl(f->xid);
	req->vers = ntohl(f->vers);
	req->credit = ntohl(f->credit);
	req->type = ntohl(f->type);
	if (req->vers != 1)
		return -EPROTONOSUPPORT;
	switch (req->type) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		break;
	case RPCRDMA_DONE:
	case RPCRDMA_ERROR:
		return 0;
	default:
		return -EINVAL;
	}
	const uint32_t *p = (const uint32_t *)(f + 1);
	req->nreads = 0;
	for (;;) {
		if ((const char *)(p + 1) > end)
			return -EINVAL;
		if (ntohl(*p) == 0)
			break;
		const struct base_wire_read *r = (const void *)p;
		if ((const char *)(r + 1) > end || ntohl(r->discrim) != 1 || req->nreads == BASE_MAX_SEGS)
			return -EINVAL;
		req->positions[req->nreads] = ntohl(r->position);
		if (req->positions[req->nreads] & 3)
			return -EINVAL;
		base_seg(&r->seg, &req->reads[req->nreads++]);
		p = (const uint32_t *)(r + 1);
	}
	p++;
	req->nwrite_chunks = req->nwrites = 0;
	for (;;) {
		if ((const char *)(p + 1) > end)
			return -EINVAL;
		uint32_t d = ntohl(*p++);
		if (d == 0)
			break;
		if (d != 1 || req->nwrite_chunks == 16)
			return -EINVAL;
		uint32_t n;
		if (req->nwrites >= BASE_MAX_SEGS)
			return -EINVAL;
		p = base_chunk(p, end, &req->writes[req->nwrites], &n);
		if (!p || req->nwrites + n > BASE_MAX_SEGS)
			return -EINVAL;
		req->write_chunk_segs[req->nwrite_chunks++] = n;
		req->nwrites += n;
	}
	if ((const char *)(p + 1) > end)
		return -EINVAL;
	uint32_t d = ntohl(*p++);
	req->nreply = 0;
	if (d == 1) {
		p = base_chunk(p, end, req->reply, &req->nreply);
		if (!p)
			return -EINVAL;
	} else if (d != 0) {
		return -EINVAL;
	}
	if (base_validate(req) != 0)
		return -EINVAL;
	req->hdrlen = (uint32_t)((const char *)p - (const char *)buf);
	return (int)req->hdrlen;
}

struct base_wire_reply {
	uint32_t xid, vers, credit, type, reads, writes, reply;
};

__attribute__((noinline)) static int base_encode_reply(void *out, size_t len, const struct base_req *req,
						       uint32_t credits, int nomsg)
{
	struct base_wire_reply *r = out;

	if (len < sizeof(*r))
		return -EMSGSIZE;
	r->xid = htonl(req->xid);
	r->vers = htonl(req->vers);
	r->credit = htonl(credits);
	r->type = htonl(nomsg ? RPCRDMA_NOMSG : RPCRDMA_MSG);
	r->reads = htonl(0);
	r->writes = htonl(0);
	r->reply = htonl(0);
	return (int)sizeof(*r);
}

/* ------------------------------------------------------------------------
 * The cases.
 */

static uint32_t bufs[4][512];
static size_t lens[4];
static const char *names[4] = { "nochunk", "read", "write16", "reply" };
static const char *labels[4] = {
	"call, no chunks",
	"call, one read chunk",
	"call, write chunk x16 segs",
	"call, reply chunk (2 segs)",
};

static void build(void)
{
	struct rpcrdma_read_segment rd = { 64, { 0xa1, 8192, 0x7f0000001000ull } };
	struct rpcrdma_segment w16[16], rep[2] = { { 0xc1, 4096, 0x5000 }, { 0xc2, 4096, 0x6000 } };
	uint32_t wsegs[1] = { 16 };
	for (int i = 0; i < 16; i++)
		w16[i] = (struct rpcrdma_segment){ 0xb0 + (uint32_t)i, 4096, 0x100000 + 4096ull * (uint32_t)i };
	struct rpcrdma_call_desc d[4] = {
		{ .xid = htonl(1), .credits = 32, .type = RPCRDMA_MSG },
		{ .xid = htonl(2), .credits = 32, .type = RPCRDMA_MSG, .reads = &rd, .nreads = 1 },
		{ .xid = htonl(3), .credits = 32, .type = RPCRDMA_MSG, .writes = w16, .nwrites = 16,
		  .write_chunk_segs = wsegs, .write_chunks = 1 },
		{ .xid = htonl(4), .credits = 32, .type = RPCRDMA_MSG, .has_reply = true, .reply = rep,
		  .nreply = 2 },
	};
	for (int i = 0; i < 4; i++) {
		int n = rpcrdma_encode_call(bufs[i], sizeof(bufs[i]), &d[i]);
		if (n <= 0)
			abort();
		/* followed by 100 bytes of RPC message */
		memset((char *)bufs[i] + n, 0x5a, 100);
		lens[i] = (size_t)n + 100;
	}
}

static volatile int sink;
static void *volatile vbuf;
static volatile size_t vlen;
static struct rpcrdma_hdr hdr;
static struct base_req req;
static uint32_t reply_out[64];
static struct rpcrdma_credits credits;

static void run_ours(int c, long n)
{
	int acc = 0;
	vbuf = bufs[c];
	vlen = lens[c];
	for (long i = 0; i < n; i++)
		acc += rpcrdma_check_call(vbuf, vlen, &hdr);
	sink = acc;
}

static void run_base(int c, long n)
{
	int acc = 0;
	vbuf = bufs[c];
	vlen = lens[c];
	for (long i = 0; i < n; i++)
		acc += base_decode(vbuf, vlen, &req);
	sink = acc;
}

static volatile uint32_t vword;
static volatile int vflag;

static void run_enc_ours(long n)
{
	int acc = 0;
	vbuf = reply_out;
	vlen = sizeof(reply_out);
	vword = rpcrdma_credits_word(&credits);
	for (long i = 0; i < n; i++)
		acc += rpcrdma_encode_reply_hdr(vbuf, vlen, &hdr, vword, vflag);
	sink = acc;
}

static void run_enc_base(long n)
{
	int acc = 0;
	vbuf = reply_out;
	vlen = sizeof(reply_out);
	vword = rpcrdma_credits_grant(&credits);
	for (long i = 0; i < n; i++)
		acc += base_encode_reply(vbuf, vlen, &req, vword, vflag);
	sink = acc;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best of 5 rounds of n iterations, in ns per iteration. */
static double time_it(void (*fn)(int, long), int c, long n)
{
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double t0 = now_ns();
		fn(c, n);
		double t = (now_ns() - t0) / (double)n;
		if (t < best)
			best = t;
	}
	return best;
}

static void enc_ours_adapter(int c, long n)
{
	(void)c;
	run_enc_ours(n);
}

static void enc_base_adapter(int c, long n)
{
	(void)c;
	run_enc_base(n);
}

static int find_case(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	if (strcmp(name, "encode") == 0)
		return 4;
	return -1;
}

int main(int argc, char **argv)
{
	build();
	if (rpcrdma_credits_init(&credits, 128, 32) != 0)
		abort();
	/* sanity: both decoders agree on every case */
	for (int i = 0; i < 4; i++)
		if (rpcrdma_check_call(bufs[i], lens[i], &hdr) != base_decode(bufs[i], lens[i], &req)) {
			fprintf(stderr, "bench-proto: decoders disagree on %s\n", names[i]);
			return 1;
		}
	rpcrdma_check_call(bufs[0], lens[0], &hdr);
	base_decode(bufs[0], lens[0], &req);

	if (argc == 5 && strcmp(argv[1], "--run") == 0) {
		int c = find_case(argv[2]);
		int ours = strcmp(argv[3], "ours") == 0;
		long n = strtol(argv[4], NULL, 10);
		if (c < 0 || n <= 0 || (!ours && strcmp(argv[3], "base") != 0)) {
			fprintf(stderr, "usage: %s --run CASE ours|base N\n", argv[0]);
			return 2;
		}
		if (c == 4)
			ours ? run_enc_ours(n) : run_enc_base(n);
		else
			ours ? run_ours(c, n) : run_base(c, n);
		return 0;
	}

	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
	if (n <= 0)
		n = 2000000;
	printf("wire-format microbenchmark: ns per header, best of 5 x %ld (lower is better)\n", n);
	printf("%-30s %10s %10s %8s\n", "case", "ours", "baseline", "ratio");
	for (int i = 0; i < 4; i++) {
		double o = time_it(run_ours, i, n), b = time_it(run_base, i, n);
		printf("%-30s %10.2f %10.2f %7.2fx\n", labels[i], o, b, b / o);
	}
	double o = time_it(enc_ours_adapter, 0, n), b = time_it(enc_base_adapter, 0, n);
	printf("%-30s %10.2f %10.2f %7.2fx\n", "reply header encode", o, b, b / o);
	printf("ratio = baseline / ours.  Instruction counts: tests/bench/callgrind-proto.sh\n");
	return 0;
}
