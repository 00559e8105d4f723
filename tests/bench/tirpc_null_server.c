/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-tirpc-null-server ADDR PORT [--thread]
 *
 * The echo program's NULL procedure (ECHO_PROG, version 1) as a libtirpc
 * program serves it: svc_reg() on the TI-RPC bridge's transport
 * (rpcrdma_tirpc_svc_create_flags), svc_run(), svc_sendreply(xdr_void).
 * For counting the bridge's work per call with rpcrdma-bench --only rate
 * (tests/vm/payloads/rdma-syscalls, SC_SERVERS).  --thread: the bridge's
 * RPCRDMA_TIRPC_SVC_THREAD mode (a poller thread reaps the calls and
 * hands them to svc_run's).  Other procedures: PROC_UNAVAIL.  Prints
 * "listening" once ready; on SIGINT or SIGTERM prints the bridge's counts
 * and on which thread the dispatch routine ran, and exits 0 (from a
 * thread waiting in sigwait: svc_run cannot be left safely from a signal
 * handler).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpcrdma/tirpc.h>

#include "../../examples/echo/echo_proto.h"

static SVCXPRT *rv;
static long main_tid;
static atomic_ulong on_main, elsewhere;

/* xdr_void as an xdrproc_t, without a cast between function types. */
static bool_t no_results(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

/* This thread's id, asked once per thread: a system call per call would
 * count in the figures of rdma-syscalls. */
static long self_tid(void)
{
	static _Thread_local long tid;

	if (!tid)
		tid = syscall(SYS_gettid);
	return tid;
}

static void dispatch(struct svc_req *rq, SVCXPRT *x)
{
	if (self_tid() == main_tid)
		atomic_fetch_add_explicit(&on_main, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&elsewhere, 1, memory_order_relaxed);
	if (rq->rq_proc != 0) {
		svcerr_noproc(x);
		return;
	}
	if (!svc_sendreply(x, no_results, NULL))
		svcerr_systemerr(x);
}

static void *on_signal(void *arg)
{
	sigset_t *set = arg;
	int sig = 0;

	(void)sigwait(set, &sig);
	struct rpcrdma_tirpc_svc_counts c = { .size = sizeof(c) };
	if (rpcrdma_tirpc_svc_counts(rv, &c) == 0)
		printf("tirpc-null-server: calls_direct=%llu calls_handed=%llu calls_dropped=%llu\n",
		       (unsigned long long)c.calls_direct, (unsigned long long)c.calls_handed,
		       (unsigned long long)c.calls_dropped);
	printf("tirpc-null-server: dispatched on_svc_run_thread=%lu elsewhere=%lu\n",
	       atomic_load(&on_main), atomic_load(&elsewhere));
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	static sigset_t set;
	pthread_t t;
	unsigned flags = 0;

	if (argc == 4 && !strcmp(argv[3], "--thread"))
		flags = RPCRDMA_TIRPC_SVC_THREAD;
	else if (argc != 3) {
		fprintf(stderr, "usage: rpcrdma-tirpc-null-server ADDR PORT [--thread]\n");
		return 2;
	}
	/* Blocked in every thread (the poller's inherit it): sigwait takes them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	main_tid = self_tid();
	rv = rpcrdma_tirpc_svc_create_flags(argv[1], (unsigned short)atoi(argv[2]), 0, 0, flags);
	if (!rv) {
		perror("tirpc-null-server: rpcrdma_tirpc_svc_create_flags");
		return 1;
	}
	if (!svc_reg(rv, ECHO_PROG, ECHO_VERS, dispatch, NULL)) {
		fprintf(stderr, "tirpc-null-server: svc_reg failed\n");
		return 1;
	}
	if (pthread_create(&t, NULL, on_signal, &set)) {
		fprintf(stderr, "tirpc-null-server: pthread_create failed\n");
		return 1;
	}
	printf("listening %u\n", rv->xp_port);
	fflush(stdout);
	svc_run();
	return 1; /* svc_run returned: an error (its poll failed) */
}
