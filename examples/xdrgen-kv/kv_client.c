/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kv-client tcp|udp|rdma HOST:PORT: PUT, GET (synchronous and
 * asynchronous), LIST and DEL through the client stubs rpcrdma-xdrgen
 * generated from kv.x (kv_clnt.c), checking each answer; prints "ok" and
 * exits 0, or says what differed.
 */
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct rpcrdma_clnt *c = NULL;
	int rc;
	if (argc < 3)
		return fprintf(stderr, "usage: kv-client tcp|udp|rdma HOST:PORT\n"), 2;
	rc = rpcrdma_clnt_parse_addr(argv[2], &ss, &len);
	if (!rc)
		rc = rpcrdma_clnt_create(argv[1], (struct sockaddr *)&ss, len, KV_PROG, KV_VERS,
					 NULL, &c);
	if (rc)
		return fprintf(stderr, "kv-client: %s: %s\n", argv[2], strerror(-rc)), 1;
	/* UDP: the value and the reply fit a datagram. */
	rc = run(c, strcmp(argv[1], "udp") ? 300000 : 20000);
	rpcrdma_clnt_destroy(c);
	if (!rc)
		printf("ok\n");
	return rc;
}
