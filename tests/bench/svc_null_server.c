/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-svc-null-server ADDR PORT [--threads N] [--direct] [--busy] [--creds] [--tell-creds]
 *                         [--block] [--loops K] [--cqs N] [--tcp PORT]
 *                         [--check-threads]
 *
 * The echo program's NULL procedure (ECHO_PROG, version 1) served by the
 * service core over RDMA (rpcrdma_svc_listen_rdma), for measuring the
 * service's per-call path with rpcrdma-bench --only rate, as
 * tests/vm/payloads/rdma-callgrind does (CG_SERVER).  It also serves ECHO
 * and SOURCE (up to 64 KiB) as rpcrdma-echo-server does, marking the data
 * as bulk so that it may travel in a write chunk, for counting the
 * service's work per call with read, write and reply chunks
 * (tests/vm/payloads/rdma-cg-ab); SINK answers PROC_UNAVAIL.  --threads N: a workqueue poller of N threads
 * (default 1); --direct: a DIRECT poller the service drives; --busy: a busy
 * poller; --loops K: K event loops, handlers declared thread-safe (poller
 * threads run calls at once); --cqs N: the poller spreads connections over
 * N completion queues per device; --creds, --block: the service options that handlers change
 * credentials, that they may block on the poller; --tell-creds: --creds
 * with RPCRDMA_SVC_HANDLERS_TELL_CREDS (its handlers never switch, so the
 * core asks the kernel nothing); --tcp PORT: also over TCP at 127.0.0.1 PORT
 * (rpcrdma-bench --tcp; the rdma-syscalls payload's TCP rows), and with ADDR
 * "-" over TCP alone (no RDMA device needed); --check-threads: NULL notes
 * the thread that ran each connection's first call and counts the calls
 * that ran on another ("moved": with several loops, none should).  Prints
 * "listening" once ready; runs until SIGINT/SIGTERM, then prints its
 * counters, and each loop's RDMA connections now and calls (those alone
 * on SIGUSR1).
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/poller.h>
#include <rpcrdma/svc.h>

#include "../../examples/echo/echo_proto.h"

/* --check-threads: the thread that ran each connection's first call (by
 * the peer's address and port), and the calls that ran on another. */
#define CHECK_CONNS 64
static struct {
	bool on;
	pthread_mutex_t lock;
	unsigned n;
	struct { struct sockaddr_storage peer; socklen_t len; pthread_t tid; } c[CHECK_CONNS];
	unsigned long long calls, moved, unknown;
} check = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void check_thread(const struct rpcrdma_svc_call *call)
{
	socklen_t len = 0;
	const struct sockaddr *sa = rpcrdma_svc_call_peer(call, &len);
	unsigned i;

	if (!sa || len > sizeof(struct sockaddr_storage)) {
		pthread_mutex_lock(&check.lock);
		check.unknown++;
		pthread_mutex_unlock(&check.lock);
		return;
	}
	pthread_mutex_lock(&check.lock);
	check.calls++;
	for (i = 0; i < check.n; i++)
		if (check.c[i].len == len && !memcmp(&check.c[i].peer, sa, len))
			break;
	if (i == check.n && i < CHECK_CONNS) {
		memcpy(&check.c[i].peer, sa, len);
		check.c[i].len = len;
		check.c[i].tid = pthread_self();
		check.n++;
	} else if (i == check.n) {
		check.unknown++;
	} else if (!pthread_equal(check.c[i].tid, pthread_self())) {
		check.moved++;
	}
	pthread_mutex_unlock(&check.lock);
}

static int null_proc(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)args, (void)res;
	if (check.on)
		check_thread(call);
	return RPCRDMA_SVC_SUCCESS;
}

/* ECHO's argument and result, SOURCE's result: len bytes at data.  copy:
 * the handler's own copy when the argument is not contiguous (-EXDEV). */
struct blob {
	const uint8_t *data;
	uint32_t len;
	uint8_t *copy;
};

static int echo_dec(struct rpcrdma_xdr_dec *d, void *argp)
{
	struct blob *a = argp;
	int rc = rpcrdma_xdr_get_opaque_ref(d, (const void **)&a->data, ECHO_SOURCE_MAX,
					    &a->len);

	if (rc != -EXDEV)
		return rc;
	a->copy = malloc(ECHO_SOURCE_MAX);
	if (!a->copy)
		return -ENOMEM;
	a->data = a->copy;
	return rpcrdma_xdr_get_opaque(d, a->copy, ECHO_SOURCE_MAX, &a->len);
}

static size_t blob_est(const struct rpcrdma_svc_call *call, const void *argp)
{
	const struct blob *a = argp;

	(void)call;
	return rpcrdma_xdr_opaque_size(a->len);
}

static int echo_proc(struct rpcrdma_svc_call *call, void *args, void *res)
{
	const struct blob *a = args;

	*(struct blob *)res = (struct blob){ .data = a->data, .len = a->len };
	if (a->len)
		rpcrdma_svc_call_set_bulk(call, 4, a->len);
	return RPCRDMA_SVC_SUCCESS;
}

static int blob_enc(struct rpcrdma_xdr_enc *e, const void *resp)
{
	const struct blob *r = resp;

	return rpcrdma_xdr_put_opaque(e, r->data, r->len);
}

static void echo_release(void *args, void *res)
{
	(void)res;
	free(((struct blob *)args)->copy);
}

/* SOURCE: the call carries a length, the reply that many bytes of the
 * echo server's pattern (at most SOURCE_MAX here). */
#define SOURCE_MAX (64u << 10)

static int source_dec(struct rpcrdma_xdr_dec *d, void *argp)
{
	struct blob *a = argp;
	int rc = rpcrdma_xdr_get_u32(d, &a->len);

	return rc ? rc : a->len > SOURCE_MAX ? -EINVAL : 0;
}

static int source_proc(struct rpcrdma_svc_call *call, void *args, void *res)
{
	const struct blob *a = args;

	*(struct blob *)res = (struct blob){
		.data = rpcrdma_svc_call_program_ctx(call), .len = a->len };
	if (a->len)
		rpcrdma_svc_call_set_bulk(call, 4, a->len);
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc procs[] = {
	[ECHO_PROC_NULL] = { .name = "null", .handler = null_proc },
	[ECHO_PROC_ECHO] = { .name = "echo", .args_size = sizeof(struct blob),
			     .res_size = sizeof(struct blob), .decode_args = echo_dec,
			     .estimate = blob_est, .handler = echo_proc, .encode_res = blob_enc,
			     .release = echo_release },
	[ECHO_PROC_SINK] = { .name = NULL },
	[ECHO_PROC_SOURCE] = { .name = "source", .args_size = sizeof(struct blob),
			       .res_size = sizeof(struct blob), .decode_args = source_dec,
			       .estimate = blob_est, .handler = source_proc,
			       .encode_res = blob_enc },
};
static const struct rpcrdma_svc_version vers[] = {
	{ .vers = ECHO_VERS, .nprocs = 4, .procs = procs },
};

#ifdef RPCRDMA_SVC_MAX_LOOPS
/* Each loop's RDMA connections now and the RDMA calls its thread ran. */
static void print_loops(struct rpcrdma_svc *svc, unsigned loops)
{
	for (unsigned k = 0; k < (loops > 1 ? loops : 1); k++) {
		struct rpcrdma_svc_loop_stats ls;
		if (rpcrdma_svc_get_loop_stats(svc, k, &ls, sizeof(ls)) == 0)
			printf("server loop %u rdma_conns %llu rdma_calls %llu\n", k,
			       (unsigned long long)ls.rdma_conns,
			       (unsigned long long)ls.rdma_calls);
	}
	fflush(stdout);
}
#endif

int main(int argc, char **argv)
{
	struct rpcrdma_poller_opts popts;
	struct rpcrdma_svc_opts sopts;
	struct rpcrdma_poller *poller = NULL;
	struct rpcrdma_svc *svc = NULL;
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai = NULL;
	struct rpcrdma_svc_program prog = {
		.prog = ECHO_PROG, .name = "echo-null", .nvers = 1, .vers = vers,
	};
	uint8_t *source;
	const char *tcp_port = NULL;
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
		else if (!strcmp(argv[i], "--tcp") && i + 1 < argc)
			tcp_port = argv[++i];
		else if (!strcmp(argv[i], "--busy"))
			popts.mode = RPCRDMA_POLLER_BUSY;
#ifdef RPCRDMA_SVC_HANDLERS_BLOCK
		else if (!strcmp(argv[i], "--block"))
			sopts.flags |= RPCRDMA_SVC_HANDLERS_BLOCK;
#endif
#ifdef RPCRDMA_SVC_MAX_LOOPS
		else if (!strcmp(argv[i], "--loops") && i + 1 < argc)
			sopts.loops = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cqs") && i + 1 < argc)
			popts.cqs = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--check-threads"))
			check.on = true;
#endif
#ifdef RPCRDMA_SVC_HANDLERS_SWITCH_CREDS
		else if (!strcmp(argv[i], "--creds"))
			sopts.flags |= RPCRDMA_SVC_HANDLERS_SWITCH_CREDS;
#endif
#ifdef RPCRDMA_SVC_HANDLERS_TELL_CREDS
		else if (!strcmp(argv[i], "--tell-creds"))
			sopts.flags |= RPCRDMA_SVC_HANDLERS_SWITCH_CREDS |
				       RPCRDMA_SVC_HANDLERS_TELL_CREDS;
#endif
		else
			return fprintf(stderr, "unknown option %s\n", argv[i]), 2;
	}
	source = malloc(SOURCE_MAX);    /* SOURCE's bytes: the echo server's pattern */
	if (!source)
		return 1;
	for (size_t i = 0; i < SOURCE_MAX; i++)
		source[i] = (uint8_t)(i * 7u);
	prog.ctx = source;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	bool rdma = strcmp(argv[1], "-") != 0;

	rc = rdma && getaddrinfo(argv[1], argv[2], &hints, &ai) ? -EINVAL : 0;
	if (!rc && rdma)
		rc = rpcrdma_poller_create(&popts, &poller);
	if (!rc)
		rc = rpcrdma_svc_create(&sopts, &svc);
	if (!rc)
		rc = rpcrdma_svc_register(svc, &prog);
	if (!rc && rdma)
		rc = rpcrdma_svc_listen_rdma(svc, poller, ai->ai_addr, NULL, NULL, NULL, NULL);
	if (!rc && tcp_port) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons((uint16_t)atoi(tcp_port)),
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&sin, sizeof(sin), NULL, NULL);
	}
	if (!rc)
		rc = rpcrdma_svc_start(svc);
	if (ai)
		freeaddrinfo(ai);
	if (rc) {
		fprintf(stderr, "svc-null-server: %s\n", strerror(-rc));
		rpcrdma_svc_destroy(svc);
		rpcrdma_poller_destroy(poller);
		free(source);
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (sigwait(&set, &sig) == 0 && sig == SIGUSR1) {
#ifdef RPCRDMA_SVC_MAX_LOOPS
		print_loops(svc, sopts.loops);
#endif
	}
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	printf("server rdma_direct %llu\nserver rdma_handed %llu\nserver rdma_loop_calls %llu\n",
	       (unsigned long long)st.rdma_direct, (unsigned long long)st.rdma_handed,
	       (unsigned long long)st.rdma_loop_calls);
#ifdef RPCRDMA_SVC_HANDLERS_BLOCK /* the counters of the same change */
	printf("server calls %llu\nserver rdma_poller_calls %llu\n"
	       "server rdma_queued_creds %llu\nserver rdma_queued_block %llu\n"
	       "server rdma_queued_embedded %llu\nserver rdma_queued_busy %llu\n",
	       (unsigned long long)st.calls, (unsigned long long)st.rdma_poller_calls,
	       (unsigned long long)st.rdma_queued_creds, (unsigned long long)st.rdma_queued_block,
	       (unsigned long long)st.rdma_queued_embedded,
	       (unsigned long long)st.rdma_queued_busy);
#endif
#ifdef RPCRDMA_SVC_MAX_LOOPS
	print_loops(svc, sopts.loops);
	if (check.on)
		printf("server check conns %u calls %llu moved %llu unknown %llu\n", check.n,
		       check.calls, check.moved, check.unknown);
#endif
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(poller);
	free(source);
	return 0;
}
