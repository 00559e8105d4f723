/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-rescg ADDR SMALL_PORT BIG_PORT N SNAP
 *
 * The client side of the rdma-rescg VM payload, against `rescg-tool serve`
 * with a group "small" limited to N connections (on SMALL_PORT) and a group
 * "big" (on BIG_PORT).  Holds connections open across the steps below and,
 * at each checkpoint, runs the shell command "SNAP NAME" (the payload's
 * script), which compares the server's rdma.current with what NAME expects
 * and exits non-zero on a mismatch ("SNAP -w NAME": waits for it, since the
 * server frees a closed connection asynchronously).
 *
 *   before      nothing connected yet
 *   N connections to small and N + 1 to big, an ECHO call on each
 *   full        small charged for N connections, big for N + 1
 *   one more connection to small: must be rejected (-ECONNREFUSED)
 *   full        the reject left nothing charged
 *   an ECHO call on every connection (all still served)
 *   lowered     (the script lowers small's limit below its usage and
 *               reloads it) nothing revoked: calls still work, and a new
 *               connection to small is rejected; the script restores it
 *   small's first connection closed
 *   -w oneless  small charged for N - 1 connections
 *   a new connection to small: accepted, an ECHO call on it
 *   full
 *   ids         the connection ids: small's are 2 .. N and N + 3 (ids are
 *               cyclic: the two rejected requests took N + 1 and N + 2, and
 *               closed id 1 is not reused), big's 1 .. N + 1
 *   two 64 KiB ECHO calls on a big connection (read chunk, write chunk)
 *   bulk        big charged 1 more: the bulk cache's registration (the read
 *               sink, from which the echo is written back uncopied)
 *   a 64 KiB ECHO on a small connection: its read sink cannot be charged,
 *   the call is dropped and the client's timeout closes the connection
 *   -w denied   small charged for N - 1 connections, nothing for the buffer
 *   every connection closed
 *   -w idle     only the listeners' per-device charges (and big's two
 *               cached registrations) remain
 *
 * Prints "PASS" when every step went as expected, else "FAIL: why".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma.h>

#include "../../../examples/echo/echo_proto.h"

#define MAXC 64

static struct sockaddr_storage small_ss, big_ss;
static struct rpcrdma_poller *poller;
static const char *snap_cmd;
static uint32_t next_xid = 1;

static int fail(const char *what, int err)
{
	printf("FAIL: %s%s%s\n", what, err ? ": " : "", err ? strerror(-err) : "");
	return 1;
}

static int connect_to(const struct sockaddr_storage *ss, struct rpcrdma_client **out)
{
	struct rpcrdma_client_opts o;

	rpcrdma_client_opts_init(&o);
	return rpcrdma_client_create(poller, (const struct sockaddr *)ss, &o, out);
}

/*
 * One ECHO of len bytes (a multiple of 4); 0 when the reply echoes them
 * exactly.  With bulk the data item is marked for a read chunk (used above
 * the inline size) and a write chunk is offered for the reply (the server
 * then always uses it, writing from the read sink the call was pulled
 * into: rpcrdma_call_reply's uncopied path);
 * without, everything is inline and no buffer is registered per call.
 */
static int echo_len(struct rpcrdma_client *c, uint32_t len, bool bulk_ok, int timeout_ms)
{
	uint8_t *msg = calloc(1, ECHO_CALL_HDR + 4 + len), *bulk = calloc(1, len ? len : 1);
	uint8_t reply[256];
	uint32_t xid = next_xid++;
	struct iovec iov = { msg, ECHO_CALL_HDR + 4 + len };
	struct rpcrdma_client_call call = {
		.size = sizeof(call), .iov = &iov, .iovcnt = 1,
		.bulk_offset = ECHO_CALL_HDR + 4, .bulk_length = len,
		.reply_buf = reply, .reply_len = sizeof(reply),
		.reply_bulk = bulk, .reply_bulk_len = len,
	};
	const uint8_t *got;
	int err;

	if (!bulk_ok) {
		call.bulk_length = 0;
		call.reply_bulk = NULL;
		call.reply_bulk_len = 0;
	}
	if (!msg || !bulk) {
		free(msg);
		free(bulk);
		return -ENOMEM;
	}
	echo_put32(msg, xid);
	echo_put32(msg + 4, 0);
	echo_put32(msg + 8, 2);
	echo_put32(msg + 12, ECHO_PROG);
	echo_put32(msg + 16, ECHO_VERS);
	echo_put32(msg + 20, ECHO_PROC_ECHO);
	echo_put32(msg + ECHO_CALL_HDR, len);
	for (uint32_t i = 0; i < len; i++)
		msg[ECHO_CALL_HDR + 4 + i] = (uint8_t)(xid * 7 + i);
	err = rpcrdma_client_call(c, &call, timeout_ms);
	/* Short data comes back inline, long data through the write chunk. */
	got = call.bulk_got == len && len ? bulk : reply + ECHO_REPLY_HDR + 4;
	if (!err && (call.reply_got < ECHO_REPLY_HDR + 4 || echo_get32(reply) != xid ||
		     echo_get32(reply + ECHO_REPLY_HDR) != len ||
		     (got != bulk && call.reply_got != ECHO_REPLY_HDR + 4 + len) ||
		     memcmp(got, msg + ECHO_CALL_HDR + 4, len)))
		err = -EBADMSG;
	free(msg);
	free(bulk);
	return err;
}

static int echo(struct rpcrdma_client *c)
{
	return echo_len(c, 100, false, 10000);
}

static int snap(const char *args)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s %s", snap_cmd, args);
	fflush(stdout);
	return system(cmd) == 0 ? 0 : -1;
}

static int echo_all(struct rpcrdma_client **cs, unsigned n, const char *what)
{
	for (unsigned i = 0; i < n; i++) {
		int err = echo(cs[i]);

		if (err) {
			printf("FAIL: echo on %s connection %u: %s\n", what, i, strerror(-err));
			return -1;
		}
	}
	return 0;
}

/* A connection to small must be refused by the server. */
static int expect_reject(const char *when)
{
	struct rpcrdma_client *c = NULL;
	int err = connect_to(&small_ss, &c);

	if (err == 0) {
		rpcrdma_client_destroy(c);
		printf("FAIL: connection to small accepted %s\n", when);
		return -1;
	}
	if (err != -ECONNREFUSED) {
		printf("FAIL: connection to small %s: %s, not a reject\n", when, strerror(-err));
		return -1;
	}
	printf("connection to small %s: rejected (%s)\n", when, strerror(-err));
	return 0;
}

int main(int argc, char **argv)
{
	struct rpcrdma_client *small[MAXC] = { 0 }, *big[MAXC] = { 0 };
	unsigned n;
	int err, rc = 1;

	if (argc != 6 || (n = (unsigned)atoi(argv[4])) == 0 || n + 1 > MAXC) {
		fprintf(stderr, "usage: %s ADDR SMALL_PORT BIG_PORT N SNAP\n", argv[0]);
		return 2;
	}
	snap_cmd = argv[5];
	if (echo_addr(argv[1], argv[2], &small_ss) || echo_addr(argv[1], argv[3], &big_ss))
		return 2;
	err = rpcrdma_poller_create(NULL, &poller);
	if (err)
		return fail("poller", err);

	if (snap("before"))
		goto out;
	for (unsigned i = 0; i < n; i++)
		if ((err = connect_to(&small_ss, &small[i]))) {
			fail("connection to small within its limit", err);
			goto out;
		}
	for (unsigned i = 0; i < n + 1; i++)
		if ((err = connect_to(&big_ss, &big[i]))) {
			fail("connection to big", err);
			goto out;
		}
	printf("%u connections to small, %u to big\n", n, n + 1);
	if (echo_all(small, n, "small") || echo_all(big, n + 1, "big") || snap("full"))
		goto out;

	if (expect_reject("over its limit") || snap("full"))
		goto out;
	if (echo_all(small, n, "small") || echo_all(big, n + 1, "big"))
		goto out;
	printf("after the reject: every connection still served\n");

	/* The script lowers small's limit below usage and reloads it. */
	if (snap("lower"))
		goto out;
	if (echo_all(small, n, "small") || echo_all(big, n + 1, "big") ||
	    expect_reject("with its limit below usage") || snap("full") || snap("restore"))
		goto out;
	printf("limit below usage: nothing revoked, new connections refused\n");

	rpcrdma_client_destroy(small[0]);
	small[0] = NULL;
	if (snap("-w oneless"))
		goto out;
	if ((err = connect_to(&small_ss, &small[0]))) {
		fail("connection to small after one closed", err);
		goto out;
	}
	if (echo_all(small, n, "small") || snap("full"))
		goto out;
	printf("after one closed: accepted again\n");
	if (snap("ids"))
		goto out;

	/* 64 KiB each way: an RDMA Read sink registered from big's bulk
	 * cache, charged while cached, and the RDMA Writes of the echo from
	 * that sink (no second buffer); the same again hits. */
	for (int i = 0; i < 2; i++)
		if ((err = echo_len(big[0], 65536, true, 10000))) {
			fail("64 KiB echo on big", err);
			goto out;
		}
	if (snap("bulk"))
		goto out;

	/* Small is at its limit: the RDMA Read sink of a 64 KiB call cannot be
	 * charged, so the server drops the call (as on memory exhaustion) and
	 * the client times out, which closes that connection. */
	err = echo_len(small[1], 65536, true, 3000);
	if (err != -ETIMEDOUT) {
		printf("FAIL: 64 KiB echo on small at its limit: %s, expected a timeout\n",
		       err ? strerror(-err) : "answered");
		goto out;
	}
	printf("64 KiB echo on small at its limit: dropped, client timed out\n");
	if (snap("-w denied"))
		goto out;

	for (unsigned i = 0; i < n + 1; i++) {
		rpcrdma_client_destroy(small[i]);
		rpcrdma_client_destroy(big[i]);
		small[i] = big[i] = NULL;
	}
	if (snap("-w idle"))
		goto out;
	printf("PASS\n");
	rc = 0;
out:
	if (rc)
		printf("FAIL\n");
	for (unsigned i = 0; i < n + 1; i++) {
		rpcrdma_client_destroy(small[i]);
		rpcrdma_client_destroy(big[i]);
	}
	rpcrdma_poller_destroy(poller);
	return rc;
}
