/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kv-server [-p PORT]: the key-value store of kv.x over TCP and UDP on
 * 127.0.0.1:PORT (0, the default, picks free ports).  The XDR, the service
 * tables and the reply estimates are rpcrdma-xdrgen's (kv.h, kv_svc.c):
 * this file holds the procedures and main.  Prints the bound ports, then
 * serves until SIGINT or SIGTERM.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv.h"

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
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

int main(int argc, char **argv)
{
	int port = argc > 2 && !strcmp(argv[1], "-p") ? atoi(argv[2]) : 0, sig, rc;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage tcp, udp;
	struct rpcrdma_svc *svc = NULL;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	rc = rpcrdma_svc_create(NULL, &svc);
	if (!rc) /* xdrgen_KV_PROG: every version of the program, from kv_svc.c */
		rc = rpcrdma_svc_register(svc, &xdrgen_KV_PROG);
	if (!rc)
		rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&a, sizeof(a), &tcp, NULL);
	if (!rc)
		rc = rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&a, sizeof(a), &udp, NULL);
	if (!rc)
		rc = rpcrdma_svc_start(svc);
	if (rc) {
		fprintf(stderr, "kv-server: %s\n", strerror(-rc));
	} else {
		printf("ready tcp=%d udp=%d\n", port_of(&tcp), port_of(&udp));
		fflush(stdout);
		sigwait(&set, &sig);
	}
	rpcrdma_svc_destroy(svc);
	for (int i = 0; i < KV_SLOTS; i++)
		free(slots[i].value);
	return rc ? 1 : 0;
}
