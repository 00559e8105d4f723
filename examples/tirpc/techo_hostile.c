/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * techo-hostile: RPC messages a TI-RPC server must survive, sent to
 * techo-server over RDMA with librpcrdma's own client (no libtirpc on this
 * side, every word written by hand), each on a well-formed RPC-over-RDMA
 * transport header so that the bridge, not the transport, meets them:
 *
 *   dropped, no reply:  a 4-byte message (the xid alone), a header cut in
 *                       the credential, a credential of 401 bytes (over
 *                       MAX_AUTH_BYTES), a message that says REPLY
 *   answered:           ECHO with its opaque cut short -> GARBAGE_ARGS,
 *                       ECHO claiming 1 MiB with 8 bytes -> GARBAGE_ARGS,
 *                       256 REVERSEs claiming 2^18 ints with 2 ->
 *                       GARBAGE_ARGS (libtirpc's xdr_array allocates and
 *                       zeroes the claimed 1 MiB before it finds the ints
 *                       missing, and keeps it; rpcgen's dispatch routine
 *                       never frees arguments that failed to decode: the
 *                       payload checks the server's VmSize),
 *                       procedure 99 -> PROC_UNAVAIL, another program ->
 *                       PROG_UNAVAIL, version 7 -> PROG_MISMATCH 1..1
 *
 * The dropped ones are sent after a first NULL call (whose reply brings
 * the credit grant: a dropped call holds its credit); a NULL call after
 * them is answered, and none of them was by then (the bridge handles a connection's calls in
 * order).  No timing: every wait is for a reply.  Exits 0 when all is as
 * above; techo-client then checks that the server still serves.
 *
 *   techo-hostile ADDR PORT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/client.h>
#include <rpcrdma/poller.h>

#define PROG 0x20000a28u

static atomic_int dropped_done;

static void on_done(struct rpcrdma_client_call *call, int status, void *arg)
{
	(void)call;
	(void)arg;
	if (status != -ECANCELED)
		fprintf(stderr, "techo-hostile: a dropped message got status %d\n", status);
	atomic_fetch_add(&dropped_done, 1);
}

struct msg {
	uint32_t w[160];
	unsigned n;
	struct iovec iov;
	struct rpcrdma_client_call call;
	uint32_t reply[1024];
};

static void put(struct msg *m, uint32_t v)
{
	m->w[m->n++] = htonl(v);
}

/* xid, CALL, rpcvers 2, prog, vers, proc, AUTH_NONE cred and verf */
static void header(struct msg *m, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc)
{
	m->n = 0;
	put(m, xid);
	put(m, 0);
	put(m, 2);
	put(m, prog);
	put(m, vers);
	put(m, proc);
	put(m, 0);
	put(m, 0);
	put(m, 0);
	put(m, 0);
}

static void prepare(struct msg *m, size_t bytes)
{
	m->iov.iov_base = m->w;
	m->iov.iov_len = bytes;
	memset(&m->call, 0, sizeof(m->call));
	m->call.size = sizeof(m->call);
	m->call.iov = &m->iov;
	m->call.iovcnt = 1;
	m->call.reply_buf = m->reply;
	m->call.reply_len = sizeof(m->reply);
}

/* Sends m, waits for its reply; returns its accept_stat, or -1. */
static int answered(struct rpcrdma_client *c, struct msg *m, const char *what)
{
	prepare(m, m->n * 4);
	int rc = rpcrdma_client_call(c, &m->call, 60000);
	if (rc || m->call.reply_got < 24) {
		fprintf(stderr, "techo-hostile: %s: status %d, %zu bytes\n", what ? what : "REVERSE",
			rc, m->call.reply_got);
		return -1;
	}
	/* xid REPLY MSG_ACCEPTED verf(flavor, len=0) accept_stat */
	if (m->reply[0] != m->w[0] || ntohl(m->reply[1]) != 1 || ntohl(m->reply[2]) != 0) {
		fprintf(stderr, "techo-hostile: %s: not an accepted reply\n", what ? what : "REVERSE");
		return -1;
	}
	int st = (int)ntohl(m->reply[5]);
	if (what)
		printf("techo-hostile: %s: accept_stat %d\n", what, st);
	return st;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: techo-hostile ADDR PORT\n");
		return 2;
	}
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai;
	if (getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "techo-hostile: bad address\n");
		return 2;
	}
	struct rpcrdma_poller *p;
	struct rpcrdma_client *c;
	if (rpcrdma_poller_create(NULL, &p) ||
	    rpcrdma_client_create(p, ai->ai_addr, NULL, &c)) {
		fprintf(stderr, "techo-hostile: cannot connect\n");
		return 1;
	}
	freeaddrinfo(ai);
	static struct msg m[12];
	int bad = 0;

	/* A first call: its reply brings the server's credit grant, so that
	 * the dropped calls below (which hold their credits for good) leave
	 * room for the rest. */
	header(&m[10], 0x0ff, PROG, 1, 0);
	if (answered(c, &m[10], "NULL") != 0 || rpcrdma_client_credits(c) < 8) {
		fprintf(stderr, "techo-hostile: grant %u\n", rpcrdma_client_credits(c));
		return 1;
	}

	/* Dropped: never answered (their calls end at destroy, -ECANCELED). */
	header(&m[0], 0x100, PROG, 1, 1);
	prepare(&m[0], 4);                               /* the xid alone */
	header(&m[1], 0x101, PROG, 1, 1);
	prepare(&m[1], 7 * 4);                           /* cut in the cred */
	header(&m[2], 0x102, PROG, 1, 2);
	m[2].w[7] = htonl(401);                          /* cred over 400 bytes */
	m[2].n = 8 + 101 + 2;
	prepare(&m[2], m[2].n * 4);
	header(&m[3], 0x103, PROG, 1, 1);
	m[3].w[1] = htonl(1);                            /* REPLY */
	prepare(&m[3], m[3].n * 4);
	for (int i = 0; i < 4; i++)
		if (rpcrdma_client_call_async(c, &m[i].call, on_done, NULL)) {
			fprintf(stderr, "techo-hostile: send %d failed\n", i);
			return 1;
		}

	/* Answered, in order after the dropped ones. */
	header(&m[4], 0x104, PROG, 1, 0);
	bad |= answered(c, &m[4], "NULL after the dropped ones") != 0;
	if (atomic_load(&dropped_done)) {
		fprintf(stderr, "techo-hostile: a dropped message was answered\n");
		bad = 1;
	}
	header(&m[5], 0x105, PROG, 1, 2);
	put(&m[5], 1000);                                /* opaque<1000>, 8 bytes */
	put(&m[5], 0x41414141);
	put(&m[5], 0x41414141);
	bad |= answered(c, &m[5], "ECHO cut short") != 4;          /* GARBAGE_ARGS */
	header(&m[6], 0x106, PROG, 1, 2);
	put(&m[6], 1u << 20);                            /* claims 1 MiB, has 8 bytes */
	put(&m[6], 0);
	put(&m[6], 0);
	bad |= answered(c, &m[6], "ECHO claiming 1 MiB") != 4;
	for (uint32_t i = 0; i < 256 && !bad; i++) {
		header(&m[11], 0x10000 + i, PROG, 1, 4);
		put(&m[11], 1u << 18);                   /* claims 2^18 ints, has 2 */
		put(&m[11], 1);
		put(&m[11], 2);
		if (answered(c, &m[11], i ? NULL : "REVERSE claiming 2^18 ints x 256") != 4)
			bad = 1;
	}
	header(&m[7], 0x107, PROG, 1, 99);
	bad |= answered(c, &m[7], "procedure 99") != 3;           /* PROC_UNAVAIL */
	header(&m[8], 0x108, PROG + 1, 1, 0);
	bad |= answered(c, &m[8], "another program") != 1;        /* PROG_UNAVAIL */
	header(&m[9], 0x109, PROG, 7, 0);
	bad |= answered(c, &m[9], "version 7") != 2;              /* PROG_MISMATCH */
	if (!bad && (ntohl(m[9].reply[6]) != 1 || ntohl(m[9].reply[7]) != 1)) {
		fprintf(stderr, "techo-hostile: PROG_MISMATCH says %u..%u\n",
			ntohl(m[9].reply[6]), ntohl(m[9].reply[7]));
		bad = 1;
	}
	rpcrdma_client_destroy(c);
	if (atomic_load(&dropped_done) != 4) {
		fprintf(stderr, "techo-hostile: %d of 4 dropped calls ended\n",
			atomic_load(&dropped_done));
		bad = 1;
	}
	rpcrdma_poller_destroy(p);
	printf("techo-hostile: %s\n", bad ? "FAILED" : "all as expected");
	return bad;
}
