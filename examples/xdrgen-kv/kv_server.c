/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kv-server [-p PORT] [-r|--rdma ADDR[:PORT]]: the key-value store of kv.x
 * over TCP and UDP on 127.0.0.1:PORT (0, the default, picks free ports)
 * and, with --rdma, over RPC-over-RDMA at ADDR (numeric, e.g.
 * fe80::1%rxed0:20101; port 0 or none picks one).  The XDR, the service
 * tables and the reply estimates are rpcrdma-xdrgen's (kv.h, kv_svc.c):
 * this file holds the procedures and main.  Prints the bound ports, then
 * serves until SIGINT or SIGTERM; with --rdma it then prints the RDMA
 * listener's counters (and on SIGUSR1 those so far): how many calls came
 * with read chunks (PUT's value) and how many replies went by write chunk
 * (GET's), and the bytes RDMA Read pulled and RDMA Write pushed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv.h"
#ifdef RPCRDMA_HAVE_RDMA
#include <rpcrdma/poller.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/xprt.h>
#endif

#define KV_SLOTS 64

/* Handlers run on the service's loop thread, one at a time. */
static struct kv_slot {
	char key[KV_KEY_MAX];
	uint32_t key_len;
	uint8_t *value;
	uint32_t len;
	int used;
} slots[KV_SLOTS];
static kv_entry entries[KV_SLOTS];

static struct kv_slot *find(const kv_key *key)
{
	for (int i = 0; i < KV_SLOTS; i++)
		if (slots[i].used && slots[i].key_len == key->len &&
		    memcmp(slots[i].key, key->data, key->len) == 0)
			return &slots[i];
	return NULL;
}

int kv_null_1_svc(struct rpcrdma_svc_call *call)
{
	(void)call;
	return RPCRDMA_SVC_SUCCESS;
}

int kv_put_1_svc(struct rpcrdma_svc_call *call, kv_put_args *argp, kv_stat *resp)
{
	struct kv_slot *s = find(&argp->key);
	(void)call;
	for (int i = 0; !s && i < KV_SLOTS; i++)
		if (!slots[i].used)
			s = &slots[i];
	*resp = KV_NOSPC;
	if (!s)
		return RPCRDMA_SVC_SUCCESS;
	/* The arguments are views into the call: keep a copy. */
	uint8_t *v = malloc(argp->value.len ? argp->value.len : 1);
	if (!v)
		return RPCRDMA_SVC_SUCCESS;
	memcpy(v, argp->value.data, argp->value.len);
	free(s->value);
	memcpy(s->key, argp->key.data, argp->key.len);
	s->key_len = argp->key.len, s->value = v, s->len = argp->value.len, s->used = 1;
	*resp = KV_OK;
	return RPCRDMA_SVC_SUCCESS;
}

int kv_get_1_svc(struct rpcrdma_svc_call *call, kv_key *argp, kv_get_res *resp)
{
	const struct kv_slot *s = find(argp);
	(void)call;
	resp->stat = s ? KV_OK : KV_NOENT;
	if (s) /* a view of the stored value: encoded before the next call runs */
		resp->u.value.data = s->value, resp->u.value.len = s->len;
	return RPCRDMA_SVC_SUCCESS;
}

int kv_del_1_svc(struct rpcrdma_svc_call *call, kv_key *argp, kv_stat *resp)
{
	struct kv_slot *s = find(argp);
	(void)call;
	*resp = s ? KV_OK : KV_NOENT;
	if (s) {
		free(s->value);
		memset(s, 0, sizeof(*s));
	}
	return RPCRDMA_SVC_SUCCESS;
}

int kv_list_1_svc(struct rpcrdma_svc_call *call, kv_list_res *resp)
{
	kv_entry **tail = &resp->entries;
	(void)call;
	for (int i = 0; i < KV_SLOTS; i++) {
		if (!slots[i].used)
			continue;
		entries[i].key.data = slots[i].key, entries[i].key.len = slots[i].key_len;
		entries[i].size = slots[i].len;
		entries[i].next = NULL;
		*tail = &entries[i];
		tail = &entries[i].next;
	}
	return RPCRDMA_SVC_SUCCESS;
}

static int port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port
					       : ((const struct sockaddr_in *)ss)->sin_port);
}

struct rdma_side {
	struct rpcrdma_poller *poller;     /* must outlive the service */
	struct rpcrdma_listener *listener; /* borrowed from the service */
	struct sockaddr_storage bound;
};

#ifdef RPCRDMA_HAVE_RDMA
static int listen_rdma(struct rpcrdma_svc *svc, const char *text, struct rdma_side *r)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int rc = rpcrdma_clnt_parse_addr(text, &ss, &len);
	if (!rc)
		rc = rpcrdma_poller_create(NULL, &r->poller);
	if (!rc)
		rc = rpcrdma_svc_listen_rdma(svc, r->poller, (struct sockaddr *)&ss, NULL,
					     &r->bound, NULL, &r->listener);
	return rc;
}

/* The listener's counters over all its connections (<rpcrdma/stats.h>). */
static void print_rdma_stats(const struct rdma_side *r)
{
	struct rpcrdma_stats st;
	if (!r->listener)
		return;
	rpcrdma_listener_stats(r->listener, &st);
	printf("rdma calls=%llu calls_read=%llu replies_write=%llu replies_rchunk=%llu "
	       "bytes_read=%llu bytes_written=%llu\n",
	       (unsigned long long)st.v[RPCRDMA_STAT_CALLS],
	       (unsigned long long)st.v[RPCRDMA_STAT_CALLS_READ],
	       (unsigned long long)st.v[RPCRDMA_STAT_REPLIES_WRITE],
	       (unsigned long long)st.v[RPCRDMA_STAT_REPLIES_RCHUNK],
	       (unsigned long long)st.v[RPCRDMA_STAT_BYTES_READ],
	       (unsigned long long)st.v[RPCRDMA_STAT_BYTES_WRITTEN]);
}
#else
static int listen_rdma(struct rpcrdma_svc *svc, const char *text, struct rdma_side *r)
{
	(void)svc, (void)text, (void)r;
	return -EPROTONOSUPPORT; /* a library built without RDMA */
}

static void print_rdma_stats(const struct rdma_side *r)
{
	(void)r;
}
#endif

static const struct option long_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "rdma", required_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const char *rdma_addr = NULL;
	int port = 0, opt, sig, rc;
	while ((opt = getopt_long(argc, argv, "p:r:", long_opts, NULL)) != -1) {
		if (opt == 'p')
			port = atoi(optarg);
		else if (opt == 'r')
			rdma_addr = optarg;
		else
			return fprintf(stderr, "usage: kv-server [-p PORT] [-r|--rdma ADDR[:PORT]]\n"), 2;
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage tcp, udp;
	struct rdma_side rdma = { 0 };
	struct rpcrdma_svc *svc = NULL;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	rc = rpcrdma_svc_create(NULL, &svc);
	if (!rc) /* xdrgen_KV_PROG: every version of the program, from kv_svc.c */
		rc = rpcrdma_svc_register(svc, &xdrgen_KV_PROG);
	if (!rc)
		rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&a, sizeof(a), &tcp, NULL);
	if (!rc)
		rc = rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&a, sizeof(a), &udp, NULL);
	if (!rc && rdma_addr)
		rc = listen_rdma(svc, rdma_addr, &rdma);
	if (!rc)
		rc = rpcrdma_svc_start(svc);
	if (rc) {
		fprintf(stderr, "kv-server: %s\n", strerror(-rc));
	} else {
		printf("ready tcp=%d udp=%d rdma=%d\n", port_of(&tcp), port_of(&udp),
		       rdma_addr ? port_of(&rdma.bound) : 0);
		fflush(stdout);
		while (sigwait(&set, &sig) == 0 && sig == SIGUSR1) {
			print_rdma_stats(&rdma); /* the counters so far */
			fflush(stdout);
		}
		rpcrdma_svc_stop(svc);
		print_rdma_stats(&rdma);
	}
	rpcrdma_svc_destroy(svc);
#ifdef RPCRDMA_HAVE_RDMA
	rpcrdma_poller_destroy(rdma.poller);
#endif
	for (int i = 0; i < KV_SLOTS; i++)
		free(slots[i].value);
	return rc ? 1 : 0;
}
