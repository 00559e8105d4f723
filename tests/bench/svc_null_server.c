/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-svc-null-server ADDR PORT [--threads N] [--direct] [--creds]
 *
 * The echo program's NULL procedure (ECHO_PROG, version 1) served by the
 * service core over RDMA (rpcrdma_svc_listen_rdma), for measuring the
 * service's per-call path with rpcrdma-bench --only rate, as
 * tests/vm/payloads/rdma-callgrind does (CG_SERVER).  Other procedures
 * answer PROC_UNAVAIL.  --threads N: a workqueue poller of N threads
 * (default 1); --direct: a DIRECT poller the service drives; --creds: the
 * service option that handlers change credentials.  Prints "listening" once
 * ready; runs until SIGINT/SIGTERM, then prints its counters.
 */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/poller.h>
#include <rpcrdma/svc.h>

#include "../../examples/echo/echo_proto.h"

static int null_proc(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call, (void)args, (void)res;
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc procs[] = {
	[ECHO_PROC_NULL] = { .name = "null", .handler = null_proc },
};
static const struct rpcrdma_svc_version vers[] = {
	{ .vers = ECHO_VERS, .nprocs = 1, .procs = procs },
};
static const struct rpcrdma_svc_program prog = {
	.prog = ECHO_PROG, .name = "echo-null", .nvers = 1, .vers = vers,
};

int main(int argc, char **argv)
{
	struct rpcrdma_poller_opts popts;
	struct rpcrdma_svc_opts sopts;
	struct rpcrdma_poller *poller = NULL;
	struct rpcrdma_svc *svc = NULL;
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai = NULL;
	sigset_t set;
	int rc, sig;

	if (argc < 3)
		return fprintf(stderr, "usage: %s ADDR PORT [--threads N] [--direct] [--creds]\n",
			       argv[0]), 2;
	rpcrdma_poller_opts_init(&popts);
	popts.threads = 1;
	rpcrdma_svc_opts_init(&sopts);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			popts.threads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--direct"))
			popts.mode = RPCRDMA_POLLER_DIRECT;
#ifdef RPCRDMA_SVC_HANDLERS_SWITCH_CREDS
		else if (!strcmp(argv[i], "--creds"))
			sopts.flags |= RPCRDMA_SVC_HANDLERS_SWITCH_CREDS;
#endif
		else
			return fprintf(stderr, "unknown option %s\n", argv[i]), 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	rc = getaddrinfo(argv[1], argv[2], &hints, &ai) ? -EINVAL : 0;
	if (!rc)
		rc = rpcrdma_poller_create(&popts, &poller);
	if (!rc)
		rc = rpcrdma_svc_create(&sopts, &svc);
	if (!rc)
		rc = rpcrdma_svc_register(svc, &prog);
	if (!rc)
		rc = rpcrdma_svc_listen_rdma(svc, poller, ai->ai_addr, NULL, NULL, NULL, NULL);
	if (!rc)
		rc = rpcrdma_svc_start(svc);
	if (ai)
		freeaddrinfo(ai);
	if (rc) {
		fprintf(stderr, "svc-null-server: %s\n", strerror(-rc));
		rpcrdma_svc_destroy(svc);
		rpcrdma_poller_destroy(poller);
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	sigwait(&set, &sig);
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	printf("server rdma_direct %llu\nserver rdma_handed %llu\nserver rdma_loop_calls %llu\n",
	       (unsigned long long)st.rdma_direct, (unsigned long long)st.rdma_handed,
	       (unsigned long long)st.rdma_loop_calls);
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(poller);
	return 0;
}
