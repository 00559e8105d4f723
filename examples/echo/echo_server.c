/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-echo-server ADDR PORT [--credits N] [--no-srq] [--srq-depth N] [--poller MODE]
 *                     [--threads N] [--spin-us N] [--max-conns N] [--idle-ms N]
 *                     [--max-call BYTES] [--read-budget BYTES] [--read-conn BYTES]
 *   --max-conns N, --idle-ms N: the listener's connection cap and idle
 *                timeout (struct rpcrdma_listener_opts max_conns,
 *                idle_timeout_ms; 0: none)
 *   --spin-us N: workqueue workers poll on for N us after a completion
 *                (struct rpcrdma_poller_opts.spin_us)
 *   --max-call, --read-budget, --read-conn: struct rpcrdma_listener_opts
 *                max_call_bytes (here 16 MiB: the echo tests send calls of
 *                4 MiB, the hostile ones up to 15 MiB, so that the read
 *                budget, not the per-call cap, is what holds them),
 *                read_budget_bytes and read_conn_bytes (the library's
 *                defaults)
 *
 * An RPC echo server on the RDMA transport: NULL, ECHO, SINK and SOURCE
 * calls (see echo_proto.h), replies
 * inline, by write chunk or by reply chunk as the client's chunks allow.
 * Runs until SIGINT/SIGTERM, then prints its counters.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma.h>

#include "echo_proto.h"

struct echo_srv {
	uint8_t *source;                /* the SOURCE procedure's bytes */
	struct rpcrdma_listener *_Atomic l;  /* set once created */
	atomic_bool late;               /* --register-late: not registered yet */
};

static void handle(struct rpcrdma_call *call, void *arg)
{
	struct echo_srv *sv = arg;
	unsigned n;
	const struct iovec *in = rpcrdma_call_payload(call, &n);
	uint8_t hdr[28], pad[4];
	struct iovec iov[3];
	struct rpcrdma_reply r = { .size = sizeof(r), .iov = iov };
	int cnt;

	/* --register-late: the first call registers the SOURCE bytes, on the
	 * device its connection is on (a device the listener uses already). */
	if (atomic_load(&sv->late) && atomic_exchange(&sv->late, false)) {
		struct rpcrdma_listener *l = atomic_load(&sv->l);
		int err = l ? rpcrdma_listener_register(l, sv->source, ECHO_SOURCE_MAX) : -EAGAIN;

		if (err == -EAGAIN && !l)
			atomic_store(&sv->late, true);  /* before create returned: next call */
		else if (err)
			fprintf(stderr, "late registration: %s\n", strerror(-err));
		else
			printf("SOURCE data registered\n");
	}
	cnt = echo_answer(in[0].iov_base, in[0].iov_len, hdr, pad, iov, &r.bulk_offset,
			  &r.bulk_length, sv->source);
	if (cnt < 0) {
		rpcrdma_call_drop(call);
		return;
	}
	r.iovcnt = (unsigned)cnt;
	rpcrdma_call_reply(call, &r);
}

static void print_conn(uint64_t id, uint32_t credits, const struct rpcrdma_stats *st, void *arg)
{
	(void)arg;
	printf("conn %llu credits %u calls %llu\n", (unsigned long long)id, credits,
	       (unsigned long long)st->v[RPCRDMA_STAT_CALLS]);
}

int main(int argc, char **argv)
{
	struct rpcrdma_poller_opts popts;
	struct rpcrdma_listener_opts lopts;
	struct rpcrdma_poller *p;
	struct rpcrdma_listener *l;
	struct rpcrdma_stats st;
	struct sockaddr_storage ss;
	uint8_t *source;
	struct echo_srv sv = { 0 };
	bool copy_source = false, late = false;
	sigset_t set;
	int sig, err;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ADDR PORT [--credits N] [--no-srq] [--srq-depth N] "
			"[--poller workqueue|busy] [--threads N] [--spin-us N] [--copy-source] "
			"[--register-late] [--max-conns N] [--idle-ms N] [--max-call BYTES] "
			"[--read-budget BYTES] [--read-conn BYTES]\n", argv[0]);
		return 2;
	}
	rpcrdma_poller_opts_init(&popts);
	rpcrdma_listener_opts_init(&lopts);
	lopts.max_call_bytes = 16u << 20;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--credits") && i + 1 < argc)
			lopts.max_credits = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-srq"))
			lopts.use_srq = 0;
		else if (!strcmp(argv[i], "--copy-source"))
			copy_source = true;   /* SOURCE's bytes unregistered: copied per reply */
		else if (!strcmp(argv[i], "--register-late"))
			late = true;          /* registered by the first call, not at start */
		else if (!strcmp(argv[i], "--max-conns") && i + 1 < argc)
			lopts.max_conns = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--idle-ms") && i + 1 < argc)
			lopts.idle_timeout_ms = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--srq-depth") && i + 1 < argc)
			lopts.srq_depth = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--max-call") && i + 1 < argc)
			lopts.max_call_bytes = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--read-budget") && i + 1 < argc)
			lopts.read_budget_bytes = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--read-conn") && i + 1 < argc)
			lopts.read_conn_bytes = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			popts.threads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--spin-us") && i + 1 < argc)
			popts.spin_us = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--poller") && i + 1 < argc) {
			i++;
			popts.mode = !strcmp(argv[i], "busy") ? RPCRDMA_POLLER_BUSY :
							       RPCRDMA_POLLER_WORKQUEUE;
		} else {
			fprintf(stderr, "unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (echo_addr(argv[1], argv[2], &ss))
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);   /* before the poller's threads */
	err = rpcrdma_poller_create(&popts, &p);
	if (err) {
		fprintf(stderr, "poller: %s\n", strerror(-err));
		return 1;
	}
	source = calloc(1, ECHO_SOURCE_MAX);  /* the SOURCE procedure's bytes */
	if (!source)
		return 1;
	for (size_t i = 0; i < ECHO_SOURCE_MAX; i++)
		source[i] = (uint8_t)(i * 7u);
	sv.source = source;
	atomic_init(&sv.late, late && !copy_source);
	err = rpcrdma_listener_create(p, (struct sockaddr *)&ss, &lopts, handle, &sv, &l);
	if (err) {
		fprintf(stderr, "listen: %s\n", strerror(-err));
		rpcrdma_poller_destroy(p);
		free(source);
		return 1;
	}
	/* SOURCE replies are written straight from these bytes, which never
	 * change (see rpcrdma_listener_register). */
	atomic_store(&sv.l, l);
	if (!copy_source && !late && (err = rpcrdma_listener_register(l, source, ECHO_SOURCE_MAX)))
		fprintf(stderr, "SOURCE data not registered (%s): copied per reply\n", strerror(-err));
	printf("listening on port %d\n", rpcrdma_listener_port(l));
	fflush(stdout);
	sigwait(&set, &sig);
	rpcrdma_listener_foreach_conn(l, print_conn, NULL);
	rpcrdma_listener_shutdown(l);       /* counters are final after this */
	rpcrdma_listener_stats(l, &st);
	for (int i = 0; i < RPCRDMA_STAT_COUNT; i++)
		if (st.v[i])
			printf("server %s %llu\n", rpcrdma_stat_name((enum rpcrdma_stat)i),
			       (unsigned long long)st.v[i]);
	rpcrdma_listener_destroy(l);
	rpcrdma_poller_destroy(p);
	free(source);
	printf("server exit\n");
	return 0;
}
