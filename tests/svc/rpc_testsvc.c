/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpc_testsvc: serves the test program 0x20000099 (tests/svc/testprog.h) on
 * TCP and UDP 127.0.0.1 (ephemeral ports) and, when the host has it, ::1;
 * registers it with the system's rpcbind, prints
 * "ready tcp=PORT udp=PORT v6=0|1" and runs until SIGTERM/SIGINT;
 * then it unregisters and frees everything.  Exits 1 if rpcbind cannot be
 * reached.  Used by tests/svc/rpcbind-test.sh.  Public API only.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/svc.h>
#include "testprog.h"

int main(void)
{
	struct rpcrdma_svc *svc;
	struct testprog *tp;
	sigset_t set;
	int rc, sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* before any thread starts */

	if ((rc = rpcrdma_svc_create(NULL, &svc)) != 0 || (rc = testprog_create(&tp)) != 0) {
		fprintf(stderr, "rpc_testsvc: setup: %s\n", strerror(-rc));
		return 1;
	}
	rc = rpcrdma_svc_register(svc, testprog_program(tp));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage t, u;
	if (!rc)
		rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&a, sizeof(a), &t, NULL);
	if (!rc)
		rc = rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&a, sizeof(a), &u, NULL);
	if (rc) {
		fprintf(stderr, "rpc_testsvc: listen: %s\n", strerror(-rc));
		goto out;
	}
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int v6 = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&a6, sizeof(a6), NULL, NULL) == 0 &&
		 rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&a6, sizeof(a6), NULL, NULL) == 0;
	rc = rpcrdma_svc_rpcbind_set(svc, NULL);
	if (rc) {
		fprintf(stderr, "rpc_testsvc: rpcbind registration failed: %s\n", strerror(-rc));
		goto out;
	}
	rc = rpcrdma_svc_start(svc);
	if (rc)
		goto out;
	printf("ready tcp=%u udp=%u v6=%d\n", ntohs(((struct sockaddr_in *)&t)->sin_port),
	       ntohs(((struct sockaddr_in *)&u)->sin_port), v6);
	fflush(stdout);
	sigwait(&set, &sig);
	printf("signal %d: shutting down\n", sig);
out:
	rpcrdma_svc_destroy(svc); /* unsets the rpcbind entries */
	testprog_destroy(tp);
	return rc ? 1 : 0;
}
