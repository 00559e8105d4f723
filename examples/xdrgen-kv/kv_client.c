/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kv-client tcp|udp|rdma HOST:PORT [SIZE...]: PUT, GET (synchronous and
 * asynchronous), LIST and DEL through the client stubs rpcrdma-xdrgen
 * generated from kv.x (kv_clnt.c), checking each answer; prints "ok" and
 * exits 0, or says what differed.  An IPv6 HOST (fe80::1%rxed0:20101,
 * [::1]:2049) picks tcp6, udp6 or rdma6.  With SIZEs it PUTs and GETs a
 * value of each size instead, compares every byte, and prints for each
 * how the value travelled, from the client's counters (rpcrdma_clnt_stats):
 * "put=read-chunk" when the call went inline with the value alone in a
 * read chunk (the DDP item; "position-zero" when the whole call was
 * pulled, as for a call with no item marked), "get=write-chunk"
 * when the reply came by write chunk, else inline (or reply-chunk).  Both
 * ways it ends with the client's totals, "stats calls_read=N
 * replies_write=N", before "ok".
 */
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/stats.h>

#include "kv.h"

static kv_key key_of(const char *s)
{
	kv_key k = { s, (uint32_t)strlen(s), 0 };
	return k;
}

static int put(struct rpcrdma_clnt *c, const char *key, const void *value, uint32_t len)
{
	kv_put_args a = { .key = key_of(key), .value = { value, len, 0 } };
	kv_stat st;
	int rc = kv_put_1_call(c, &a, &st);
	return rc ? rc : st == KV_OK ? 0 : -1;
}

/* GET key: 0 when its value is value[0..len-1]. */
static int get_is(struct rpcrdma_clnt *c, const char *key, const void *value, uint32_t len,
		  void *bulk, size_t bulk_len)
{
	kv_key k = key_of(key);
	kv_get_res r;
	int rc = kv_get_1_call(c, &k, &r, bulk, bulk_len);
	if (!rc)
		rc = r.stat == KV_OK && r.u.value.len == len &&
		     memcmp(r.u.value.data, value, len) == 0 ? 0 : -1;
	xdrgen_free_kv_get_res(&r);
	return rc;
}

struct waiter {
	sem_t done;
	int status;
};

static void on_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct waiter *w = arg;
	(void)req;
	w->status = status;
	sem_post(&w->done);
}

/* The asynchronous stub: GET key, waiting for its done callback. */
static int get_async_is(struct rpcrdma_clnt *c, const char *key, const char *value)
{
	struct rpcrdma_clnt_req req;
	struct waiter w = { .status = -1 };
	kv_key k = key_of(key);
	kv_get_res r;
	int rc;
	sem_init(&w.done, 0, 0);
	rc = kv_get_1_call_async(c, &req, &k, &r, NULL, 0, on_done, &w);
	if (!rc) {
		while (sem_wait(&w.done) != 0)
			;
		rc = w.status;
	}
	sem_destroy(&w.done);
	if (!rc)
		rc = r.stat == KV_OK && r.u.value.len == strlen(value) &&
		     memcmp(r.u.value.data, value, r.u.value.len) == 0 ? 0 : -1;
	xdrgen_free_kv_get_res(&r);
	return rc;
}

static int run(struct rpcrdma_clnt *c, size_t big)
{
	uint8_t *value = malloc(big), *bulk = malloc(big);
	kv_list_res l;
	kv_key k = key_of("beta");
	kv_get_res r;
	kv_stat st;
	int n = 0, rc;
	for (size_t i = 0; i < big; i++)
		value[i] = (uint8_t)(i * 7 + 1);
	if ((rc = kv_null_1_call(c)) || (rc = put(c, "alpha", "one", 3)) ||
	    (rc = put(c, "beta", value, (uint32_t)big)) ||
	    (rc = get_is(c, "alpha", "one", 3, bulk, big)) ||
	    (rc = get_async_is(c, "alpha", "one")) ||
	    (rc = get_is(c, "beta", value, (uint32_t)big, bulk, big)))
		return fprintf(stderr, "kv-client: put/get: %d\n", rc), 1;
	if ((rc = kv_list_1_call(c, &l)))
		return fprintf(stderr, "kv-client: list: %d\n", rc), 1;
	for (const kv_entry *e = l.entries; e; e = e->next)
		n++;
	xdrgen_free_kv_list_res(&l);
	if (n != 2)
		return fprintf(stderr, "kv-client: list: %d entries\n", n), 1;
	if ((rc = kv_del_1_call(c, &k, &st)) || st != KV_OK ||
	    (rc = kv_get_1_call(c, &k, &r, NULL, 0)) || r.stat != KV_NOENT)
		return fprintf(stderr, "kv-client: del: %d\n", rc), 1;
	xdrgen_free_kv_get_res(&r);
	/* A key longer than kv_key<64>: the stub's encoder refuses it. */
	if (put(c, "a key much longer than the sixty-four bytes the .x file allows for one key",
		"x", 1) == 0)
		return fprintf(stderr, "kv-client: long key accepted\n"), 1;
	free(value);
	free(bulk);
	return 0;
}

/* A value of len bytes that differs from one size and offset to the next. */
static void fill(uint8_t *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		v[i] = (uint8_t)(i * 131 + (i >> 8) + len);
}

static uint64_t stat_of(const struct rpcrdma_clnt *c, enum rpcrdma_stat which)
{
	struct rpcrdma_stats st;
	rpcrdma_clnt_stats(c, &st);
	return st.v[which];
}

/* PUT then GET a value of size bytes: 0 when every byte came back. */
static int put_get_size(struct rpcrdma_clnt *c, size_t size)
{
	uint8_t *value = malloc(size ? size : 1), *bulk = malloc(size ? size : 1);
	uint64_t rd = stat_of(c, RPCRDMA_STAT_CALLS_READ);
	uint64_t wr = stat_of(c, RPCRDMA_STAT_REPLIES_WRITE);
	uint64_t rc_ = stat_of(c, RPCRDMA_STAT_REPLIES_RCHUNK);
	uint64_t sent0 = stat_of(c, RPCRDMA_STAT_BYTES_SENT);
	char key[32];
	int rc = -1;
	if (!value || !bulk)
		goto out;
	snprintf(key, sizeof(key), "v%zu", size);
	fill(value, size);
	if ((rc = put(c, key, value, (uint32_t)size)) != 0) {
		fprintf(stderr, "kv-client: put %zu: %d\n", size, rc);
		goto out;
	}
	/* With a read chunk, the Send tells which way: the call inline (RDMA_MSG: at
	 * least a 52-byte transport header with one read segment and a
	 * 40-byte RPC call header) and the value alone by chunk, or only a
	 * transport header and the whole call by position-zero chunk. */
	uint64_t sent = stat_of(c, RPCRDMA_STAT_BYTES_SENT) - sent0;
	const char *how_put = stat_of(c, RPCRDMA_STAT_CALLS_READ) == rd ? "inline"
			      : sent >= 52 + 40 ? "read-chunk" : "position-zero";
	memset(bulk, 0, size);
	if ((rc = get_is(c, key, value, (uint32_t)size, bulk, size)) != 0) {
		fprintf(stderr, "kv-client: get %zu: %d (value differs or lost)\n", size, rc);
		goto out;
	}
	const char *how_get = stat_of(c, RPCRDMA_STAT_REPLIES_WRITE) > wr ? "write-chunk"
			      : stat_of(c, RPCRDMA_STAT_REPLIES_RCHUNK) > rc_ ? "reply-chunk"
			      : "inline";
	printf("size=%zu put=%s get=%s bytes=same put_sent=%llu\n", size, how_put, how_get,
	       (unsigned long long)sent);
out:
	free(value);
	free(bulk);
	return rc;
}

static int run_sizes(struct rpcrdma_clnt *c, int n, char **sizes)
{
	for (int i = 0; i < n; i++) {
		char *end;
		unsigned long size = strtoul(sizes[i], &end, 0);
		if (*end || end == sizes[i] || size > KV_VALUE_MAX)
			return fprintf(stderr, "kv-client: bad size %s\n", sizes[i]), 1;
		if (put_get_size(c, size))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	struct rpcrdma_clnt *c = NULL;
	char netid[8];
	int rc;
	if (argc < 3 || strlen(argv[1]) > 4)
		return fprintf(stderr, "usage: kv-client tcp|udp|rdma HOST:PORT [SIZE...]\n"), 2;
	rc = rpcrdma_clnt_parse_addr(argv[2], &ss, &len);
	/* rdma with an IPv6 address is rdma6 (tcp6, udp6 alike) */
	snprintf(netid, sizeof(netid), "%s%s", argv[1], ss.ss_family == AF_INET6 ? "6" : "");
	if (!rc)
		rc = rpcrdma_clnt_create(netid, (struct sockaddr *)&ss, len, KV_PROG, KV_VERS,
					 NULL, &c);
	if (rc)
		return fprintf(stderr, "kv-client: %s: %s\n", argv[2], strerror(-rc)), 1;
	if (argc > 3)
		rc = run_sizes(c, argc - 3, argv + 3);
	else /* UDP: the value and the reply fit a datagram. */
		rc = run(c, strcmp(argv[1], "udp") ? 300000 : 20000);
	if (!rc)
		printf("stats calls_read=%llu replies_write=%llu\nok\n",
		       (unsigned long long)stat_of(c, RPCRDMA_STAT_CALLS_READ),
		       (unsigned long long)stat_of(c, RPCRDMA_STAT_REPLIES_WRITE));
	rpcrdma_clnt_destroy(c);
	return rc;
}
