/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hello-server [-p PORT] [-r RDMA_ADDR]: serves the hello program (hello.x)
 * over TCP and UDP on 127.0.0.1:PORT (default 20100; 0 picks free ports)
 * and, with -r, over RPC-over-RDMA on RDMA_ADDR:PORT+1.  Prints the bound
 * ports, then serves until SIGINT or SIGTERM.  The XDR and the program's
 * table (xdrgen_HELLO_PROG) are generated from hello.x: this file holds
 * the two procedures and the service.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hello.h"
#if HELLO_RDMA
#include <rpcrdma/poller.h>
#endif

int hello_null_1_svc(struct rpcrdma_svc_call *call)
{
	(void)call;
	return RPCRDMA_SVC_SUCCESS;
}

/* The name is a view into the call (not NUL-terminated); the answer is
 * encoded before the next call runs, so one buffer serves them all. */
int hello_greet_1_svc(struct rpcrdma_svc_call *call, hello_name *name, hello_text *text)
{
	static char buf[HELLO_TEXT_MAX + 1];
	(void)call;
	text->len = (uint32_t)snprintf(buf, sizeof(buf), "hello, %.*s", (int)name->len, name->data);
	text->data = buf;
	return RPCRDMA_SVC_SUCCESS;
}

static int port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port
					       : ((const struct sockaddr_in *)ss)->sin_port);
}

int main(int argc, char **argv)
{
	const char *rdma_addr = NULL;
	int port = HELLO_PORT, opt, sig, rc;
	while ((opt = getopt(argc, argv, "p:r:")) != -1) {
		if (opt == 'p')
			port = atoi(optarg);
		else if (opt == 'r')
			rdma_addr = optarg;
		else
			return fprintf(stderr, "usage: hello-server [-p PORT] [-r RDMA_ADDR]\n"), 2;
	}
	/* Signals are taken by sigwait below: block them before any thread starts. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	struct rpcrdma_svc *svc = NULL;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage tcp, udp, rdma = { 0 };
	rc = rpcrdma_svc_create(NULL, &svc);
	if (!rc)
		rc = rpcrdma_svc_register(svc, &xdrgen_HELLO_PROG);
	if (!rc)
		rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&a, sizeof(a), &tcp, NULL);
	if (!rc)
		rc = rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&a, sizeof(a), &udp, NULL);
#if HELLO_RDMA
	struct rpcrdma_poller *poller = NULL;
	if (!rc && rdma_addr) {
		struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai = NULL;
		char service[16];
		snprintf(service, sizeof(service), "%d", port ? port + 1 : 0);
		rc = getaddrinfo(rdma_addr, service, &hints, &ai) ? -EINVAL : 0;
		if (!rc)
			rc = rpcrdma_poller_create(NULL, &poller); /* must outlive the service */
		if (!rc)
			rc = rpcrdma_svc_listen_rdma(svc, poller, ai->ai_addr, NULL, &rdma, NULL, NULL);
		if (ai)
			freeaddrinfo(ai);
	}
#else
	if (!rc && rdma_addr)
		rc = -EPROTONOSUPPORT; /* built without RDMA */
#endif
	if (!rc)
		rc = rpcrdma_svc_start(svc);
	if (rc) {
		fprintf(stderr, "hello-server: %s\n", strerror(-rc));
	} else {
		printf("ready tcp=%d udp=%d rdma=%d\n", port_of(&tcp), port_of(&udp),
		       rdma_addr ? port_of(&rdma) : 0);
		fflush(stdout);
		sigwait(&set, &sig);
	}
	rpcrdma_svc_destroy(svc);
#if HELLO_RDMA
	rpcrdma_poller_destroy(poller);
#endif
	return rc ? 1 : 0;
}
