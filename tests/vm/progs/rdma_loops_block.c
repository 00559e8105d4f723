/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-loops-block ADDR PORT
 *
 * A service of two loops over RDMA (rpcrdma_svc_opts.loops = 2, a DIRECT
 * poller: each loop's thread reaps, handles and answers the calls of its
 * own connections, docs/threading.md) and, in the same process, four RDMA
 * clients, connected one at a time so that the loops' counters tell which
 * loop each connection joined.  Then, with A and A2 on one loop (X) and B
 * on the other (Y):
 *   1. A handler that blocks (SLEEP, waiting on a condition variable)
 *      holds up its loop only: while it blocks, B makes 200 calls, all
 *      answered, loop Y's thread ran them (rdma_calls), and loop X's ran
 *      nothing more; A2's call, on the blocked loop, is not answered until
 *      the handler returns (the documented cost of blocking).
 *   2. A handler that defers (DEFER returns RPCRDMA_SVC_ASYNC and a
 *      worker thread calls rpcrdma_svc_reply later): while it is pending,
 *      A2 makes 200 calls and A itself 50, all answered by loop X's
 *      thread; the deferred call is counted (calls_async) and answered
 *      once the worker is released.
 * Prints the counters as "name value" lines, then "PASS".  Waits are
 * liveness bounds (20 s), never timings.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/svc.h>

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			exit(1);                                             \
		}                                                            \
	} while (0)

#define PROG 0x20000125u
#define NCLNT 4
enum { P_NULL, P_SLEEP, P_DEFER, P_NPROCS };

/* What the handlers and the worker share with the test. */
static struct {
	pthread_mutex_t m;
	pthread_cond_t cv;
	bool entered, released;
	struct rpcrdma_svc_call *deferred;
	bool stop;
} S = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, NULL, false };

static int h_null(struct rpcrdma_svc_call *call, void *a, void *r)
{
	(void)call, (void)a, (void)r;
	return RPCRDMA_SVC_SUCCESS;
}

/* Blocks its loop's thread until the test releases it. */
static int h_sleep(struct rpcrdma_svc_call *call, void *a, void *r)
{
	(void)call, (void)a, (void)r;
	pthread_mutex_lock(&S.m);
	S.entered = true;
	pthread_cond_broadcast(&S.cv);
	while (!S.released)
		pthread_cond_wait(&S.cv, &S.m);
	pthread_mutex_unlock(&S.m);
	return RPCRDMA_SVC_SUCCESS;
}

/* Hands the call to the worker and returns at once. */
static int h_defer(struct rpcrdma_svc_call *call, void *a, void *r)
{
	(void)a, (void)r;
	pthread_mutex_lock(&S.m);
	S.deferred = call;
	S.entered = true;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.m);
	return RPCRDMA_SVC_ASYNC;
}

/* Answers the deferred call once released. */
static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&S.m);
	for (;;) {
		while (!S.stop && !(S.deferred && S.released))
			pthread_cond_wait(&S.cv, &S.m);
		if (S.stop)
			break;
		struct rpcrdma_svc_call *c = S.deferred;
		S.deferred = NULL;
		pthread_mutex_unlock(&S.m);
		rpcrdma_svc_reply(c, RPCRDMA_SVC_SUCCESS);
		pthread_mutex_lock(&S.m);
	}
	pthread_mutex_unlock(&S.m);
	return NULL;
}

static const struct rpcrdma_svc_proc procs[P_NPROCS] = {
	[P_NULL] = { .name = "NULL", .handler = h_null },
	[P_SLEEP] = { .name = "SLEEP", .handler = h_sleep },
	[P_DEFER] = { .name = "DEFER", .handler = h_defer },
};
static const struct rpcrdma_svc_version vers[] = { { .vers = 1, .nprocs = P_NPROCS,
						      .procs = procs } };
static const struct rpcrdma_svc_program prog = { .prog = PROG, .name = "loops-block",
						  .nvers = 1, .vers = vers };

/* Waits (20 s at most) until the handler has the call; clears it. */
static void wait_entered(void)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 20;
	pthread_mutex_lock(&S.m);
	while (!S.entered)
		CHECK(pthread_cond_timedwait(&S.cv, &S.m, &until) != ETIMEDOUT, "handler not reached");
	S.entered = false;
	pthread_mutex_unlock(&S.m);
}

static void release(bool on)
{
	pthread_mutex_lock(&S.m);
	S.released = on;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.m);
}

struct waiter {
	pthread_mutex_t m;
	pthread_cond_t cv;
	int done, status;
};

static void async_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct waiter *w = arg;
	(void)req;
	pthread_mutex_lock(&w->m);
	w->done = 1;
	w->status = status;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->m);
}

static int peek(struct waiter *w)
{
	pthread_mutex_lock(&w->m);
	int d = w->done;
	pthread_mutex_unlock(&w->m);
	return d;
}

/* Waits (20 s at most) for w's reply; returns its status. */
static int wait_done(struct waiter *w)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 20;
	pthread_mutex_lock(&w->m);
	while (!w->done)
		CHECK(pthread_cond_timedwait(&w->cv, &w->m, &until) != ETIMEDOUT, "no reply");
	int st = w->status;
	pthread_mutex_unlock(&w->m);
	return st;
}

static void req_init(struct rpcrdma_clnt_req *r, uint32_t proc)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->proc = proc;
	r->res_max = 256;
	r->timeout_ms = 20000;
}

static void start_async(struct rpcrdma_clnt *c, struct rpcrdma_clnt_req *r, uint32_t proc,
			struct waiter *w)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->m, NULL);
	pthread_cond_init(&w->cv, NULL);
	req_init(r, proc);
	CHECK(rpcrdma_clnt_call_async(c, r, async_done, w) == 0, "call_async");
}

static void nulls(struct rpcrdma_clnt *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct rpcrdma_clnt_req r;
		req_init(&r, P_NULL);
		int err = rpcrdma_clnt_call(c, &r);
		CHECK(err == 0, "NULL %u: %s", i, strerror(-err));
	}
}

static struct rpcrdma_svc_loop_stats lstat(struct rpcrdma_svc *svc, unsigned k)
{
	struct rpcrdma_svc_loop_stats ls;
	CHECK(rpcrdma_svc_get_loop_stats(svc, k, &ls, sizeof(ls)) == 0, "loop stats");
	return ls;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char text[128];

	if (argc != 3) {
		fprintf(stderr, "usage: rdma-loops-block ADDR PORT\n");
		return 2;
	}
	snprintf(text, sizeof(text), strchr(argv[1], ':') ? "[%s]:%s" : "%s:%s", argv[1],
		 argv[2]);
	CHECK(rpcrdma_clnt_parse_addr(text, &addr, &addrlen) == 0, "address %s", text);

	struct rpcrdma_poller_opts po;
	struct rpcrdma_poller *poller;
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_DIRECT;
	CHECK(rpcrdma_poller_create(&po, &poller) == 0, "poller");
	struct rpcrdma_svc_opts so;
	struct rpcrdma_svc *svc;
	rpcrdma_svc_opts_init(&so);
	so.loops = 2;
	CHECK(rpcrdma_svc_create(&so, &svc) == 0, "svc");
	CHECK(rpcrdma_svc_register(svc, &prog) == 0, "register");
	int err = rpcrdma_svc_listen_rdma(svc, poller, (struct sockaddr *)&addr, NULL, NULL, NULL,
					  NULL);
	CHECK(err == 0, "listen_rdma: %s", strerror(-err));
	CHECK(rpcrdma_svc_start(svc) == 0, "start");
	pthread_t wt;
	CHECK(pthread_create(&wt, NULL, worker, NULL) == 0, "worker");

	/* Four clients, one at a time: the loop whose rdma_conns grew. */
	struct rpcrdma_clnt *c[NCLNT];
	unsigned loop_of[NCLNT];
	for (int i = 0; i < NCLNT; i++) {
		struct rpcrdma_clnt_opts o;
		uint64_t before[2] = { lstat(svc, 0).rdma_conns, lstat(svc, 1).rdma_conns };
		rpcrdma_clnt_opts_init(&o);
		err = rpcrdma_clnt_create(addr.ss_family == AF_INET6 ? "rdma6" : "rdma",
					  (struct sockaddr *)&addr, addrlen, PROG, 1, &o, &c[i]);
		CHECK(err == 0, "create: %s", strerror(-err));
		nulls(c[i], 1);
		uint64_t now[2] = { lstat(svc, 0).rdma_conns, lstat(svc, 1).rdma_conns };
		CHECK(now[0] + now[1] == before[0] + before[1] + 1, "one more connection");
		loop_of[i] = now[1] > before[1];
		printf("client %d loop %u\n", i, loop_of[i]);
	}
	/* A and A2 share loop X; B is on loop Y. */
	int a = 0, a2 = -1, b = -1;
	for (int i = 1; i < NCLNT; i++) {
		if (loop_of[i] == loop_of[a] && a2 < 0)
			a2 = i;
		if (loop_of[i] != loop_of[a] && b < 0)
			b = i;
	}
	CHECK(a2 > 0 && b > 0, "connections spread over both loops");
	unsigned x = loop_of[a], y = loop_of[b];

	/* 1. A handler that blocks holds up its own loop only. */
	struct rpcrdma_clnt_req ra, ra2;
	struct waiter wa, wa2;
	uint64_t x0 = lstat(svc, x).rdma_calls, y0 = lstat(svc, y).rdma_calls;
	start_async(c[a], &ra, P_SLEEP, &wa);
	wait_entered();
	start_async(c[a2], &ra2, P_NULL, &wa2);
	nulls(c[b], 200);
	uint64_t x1 = lstat(svc, x).rdma_calls, y1 = lstat(svc, y).rdma_calls;
	printf("step block: loop %u ran %llu calls while loop %u blocked (ran %llu)\n", y,
	       (unsigned long long)(y1 - y0), x, (unsigned long long)(x1 - x0));
	CHECK(y1 - y0 == 200, "loop Y's thread ran B's calls");
	CHECK(x1 - x0 == 1, "loop X's thread ran only the blocking call");
	CHECK(!peek(&wa) && !peek(&wa2), "the blocked loop answered nothing");
	release(true);
	CHECK(wait_done(&wa) == 0 && wait_done(&wa2) == 0, "answered once released");
	release(false);
	printf("step block: ok\n");

	/* 2. A handler that defers: its loop goes on, the same connection too. */
	struct rpcrdma_svc_stats st;
	x0 = lstat(svc, x).rdma_calls;
	start_async(c[a], &ra, P_DEFER, &wa);
	wait_entered();
	nulls(c[a2], 200);
	nulls(c[a], 50);
	x1 = lstat(svc, x).rdma_calls;
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	printf("step defer: loop %u ran %llu calls while a call was deferred; calls_async %llu\n",
	       x, (unsigned long long)(x1 - x0), (unsigned long long)st.calls_async);
	CHECK(x1 - x0 == 251, "loop X's thread ran them");
	CHECK(!peek(&wa), "the deferred call waits for its worker");
	CHECK(st.calls_async == 1, "the deferred call counted");
	release(true);
	CHECK(wait_done(&wa) == 0, "the deferred call answered");
	printf("step defer: ok\n");

	pthread_mutex_lock(&S.m);
	S.stop = true;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.m);
	pthread_join(wt, NULL);
	for (int i = 0; i < NCLNT; i++)
		rpcrdma_clnt_destroy(c[i]);
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	printf("svc calls %llu rdma_loop_calls %llu calls_async %llu rdma_queued_slots %llu "
	       "rdma_budget_calls %llu rdma_poller_calls %llu\n",
	       (unsigned long long)st.calls, (unsigned long long)st.rdma_loop_calls,
	       (unsigned long long)st.calls_async, (unsigned long long)st.rdma_queued_slots,
	       (unsigned long long)st.rdma_budget_calls, (unsigned long long)st.rdma_poller_calls);
	/* 4 + (1 + 1 + 200) + (1 + 250) calls, each run by its loop's thread. */
	CHECK(st.calls == 457 && st.rdma_loop_calls == 457 && st.rdma_poller_calls == 0 &&
	      st.rdma_queued_slots == 0 && st.rdma_budget_calls == 0 && st.calls_async == 1,
	      "counters");
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(poller);
	printf("PASS\n");
	return 0;
}
