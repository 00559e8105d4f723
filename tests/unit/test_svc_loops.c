/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several event loops (rpcrdma_svc_opts.loops, docs/threading.md): TCP
 * connections spread over K = 4 loops at accept, each connection's
 * handlers on its own loop's thread, the counters of each loop, a client
 * that blocks or floods one loop while the clients of the other loops are
 * served, and the options' bounds.  Waits are liveness bounds (socket
 * timeouts), never timings.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>

#include "svc_net_util.h"

#define K 4u
#define NCLIENTS 16u
#define CALLS 8u
#define MAXPORTS 64u

enum { P_NULL, P_BLOCK, P_WHO, P_NPROCS };

/* What the handlers saw: the thread of each call, by client port. */
struct seen {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool released;   /* P_BLOCK returns once set */
	bool blocked;    /* a P_BLOCK handler is waiting */
	unsigned n;
	uint16_t port[MAXPORTS];
	pthread_t thread[MAXPORTS];
	unsigned calls[MAXPORTS];
	bool mixed;      /* a connection's calls ran on two threads */
};

static struct seen *seen_of(struct rpcrdma_svc_call *call)
{
	return rpcrdma_svc_call_program_ctx(call);
}

static int h_null(struct rpcrdma_svc_call *call, void *a, void *r)
{
	(void)call, (void)a, (void)r;
	return RPCRDMA_SVC_SUCCESS;
}

/* Holds its loop's thread until the test releases it. */
static int h_block(struct rpcrdma_svc_call *call, void *a, void *r)
{
	struct seen *s = seen_of(call);
	(void)a, (void)r;
	pthread_mutex_lock(&s->lock);
	s->blocked = true;
	pthread_cond_broadcast(&s->cv);
	while (!s->released)
		pthread_cond_wait(&s->cv, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return RPCRDMA_SVC_SUCCESS;
}

/* Records the thread that ran it, per client port. */
static int h_who(struct rpcrdma_svc_call *call, void *a, void *r)
{
	struct seen *s = seen_of(call);
	socklen_t len = 0;
	const struct sockaddr_in *peer = (const void *)rpcrdma_svc_call_peer(call, &len);
	uint16_t port = ntohs(peer->sin_port);
	unsigned i;
	(void)a, (void)r;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->n && s->port[i] != port; i++)
		;
	if (i == s->n && s->n < MAXPORTS) {
		s->port[i] = port;
		s->thread[i] = pthread_self();
		s->n++;
	}
	if (i < s->n) {
		if (!pthread_equal(s->thread[i], pthread_self()))
			s->mixed = true;
		s->calls[i]++;
	}
	pthread_mutex_unlock(&s->lock);
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc procs[P_NPROCS] = {
	[P_NULL] = { .name = "NULL", .handler = h_null },
	[P_BLOCK] = { .name = "BLOCK", .handler = h_block },
	[P_WHO] = { .name = "WHO", .handler = h_who },
};
static const struct rpcrdma_svc_version vers[] = {
	{ .vers = 1, .nprocs = P_NPROCS, .procs = procs },
};

struct fixture {
	struct rpcrdma_svc *svc;
	struct seen seen;
	uint16_t port;
};

static void fixture_start(struct fixture *f, unsigned loops)
{
	struct rpcrdma_svc_opts o;
	rpcrdma_svc_opts_init(&o);
	o.loops = loops;
	memset(&f->seen, 0, sizeof(f->seen));
	pthread_mutex_init(&f->seen.lock, NULL);
	pthread_cond_init(&f->seen.cv, NULL);
	assert_int_equal(rpcrdma_svc_create(&o, &f->svc), 0);
	struct rpcrdma_svc_program p = { .prog = TESTPROG_PROG, .name = "loops", .nvers = 1,
					 .vers = vers, .ctx = &f->seen };
	assert_int_equal(rpcrdma_svc_register(f->svc, &p), 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage b;
	assert_int_equal(rpcrdma_svc_listen_tcp(f->svc, (struct sockaddr *)&a, sizeof(a), &b, NULL),
			 0);
	f->port = ntohs(((struct sockaddr_in *)&b)->sin_port);
	assert_int_equal(rpcrdma_svc_start(f->svc), 0);
}

static void fixture_stop(struct fixture *f)
{
	pthread_mutex_lock(&f->seen.lock);
	f->seen.released = true;
	pthread_cond_broadcast(&f->seen.cv);
	pthread_mutex_unlock(&f->seen.lock);
	rpcrdma_svc_destroy(f->svc);
	pthread_cond_destroy(&f->seen.cv);
	pthread_mutex_destroy(&f->seen.lock);
}

static struct rpcrdma_svc_loop_stats loop_stats(struct fixture *f, unsigned i)
{
	struct rpcrdma_svc_loop_stats st;
	assert_int_equal(rpcrdma_svc_get_loop_stats(f->svc, i, &st, sizeof(st)), 0);
	return st;
}

/* One call of proc on fd, its SUCCESS reply awaited (5 s bound). */
static int call(int fd, uint32_t xid, uint32_t proc)
{
	uint8_t m[64], r[64];
	size_t n = mkcall(m, xid, 1, proc, NULL, UINT32_MAX);
	if (send_record(fd, m, n) || recv_record(fd, r, sizeof(r)) != 24 || get32(r) != xid ||
	    get32(r + 20) != RPCRDMA_SVC_SUCCESS)
		return -1;
	return 0;
}

/* Connects a client and makes one WHO call; returns the loop it joined
 * (the loop whose conns_accepted went up). */
static int join(struct fixture *f, unsigned *loop)
{
	uint64_t before[K];
	for (unsigned i = 0; i < K; i++)
		before[i] = loop_stats(f, i).conns_accepted;
	int fd = sock_connect(SOCK_STREAM, f->port, 5);
	assert_int_equal(call(fd, 1, P_WHO), 0);
	*loop = K;
	for (unsigned i = 0; i < K; i++)
		if (loop_stats(f, i).conns_accepted == before[i] + 1) {
			assert_int_equal(*loop, K); /* exactly one loop */
			*loop = i;
		}
	assert_true(*loop < K);
	return fd;
}

/* 16 clients over 4 loops: 4 each, every call of a connection on one
 * thread, 4 threads in all, the calls counted per loop. */
static void test_spread(void **state)
{
	struct fixture f;
	int fd[NCLIENTS];
	unsigned loop[NCLIENTS], per[K] = {0};
	(void)state;
	fixture_start(&f, K);
	for (unsigned i = 0; i < NCLIENTS; i++) {
		fd[i] = join(&f, &loop[i]);
		per[loop[i]]++;
	}
	for (unsigned i = 0; i < K; i++)
		assert_int_equal(per[i], NCLIENTS / K);
	for (unsigned c = 1; c < CALLS; c++)
		for (unsigned i = 0; i < NCLIENTS; i++)
			assert_int_equal(call(fd[i], 100 + c, P_WHO), 0);
	for (unsigned i = 0; i < K; i++) {
		struct rpcrdma_svc_loop_stats st = loop_stats(&f, i);
		assert_int_equal(st.conns, NCLIENTS / K);
		assert_int_equal(st.conns_accepted, NCLIENTS / K);
		assert_int_equal(st.calls, NCLIENTS / K * CALLS);
	}
	pthread_mutex_lock(&f.seen.lock);
	assert_false(f.seen.mixed);
	assert_int_equal(f.seen.n, NCLIENTS);
	unsigned threads = 0;
	for (unsigned i = 0; i < f.seen.n; i++) {
		unsigned same = 0;
		bool first = true;
		assert_int_equal(f.seen.calls[i], CALLS);
		for (unsigned j = 0; j < f.seen.n; j++) {
			same += pthread_equal(f.seen.thread[i], f.seen.thread[j]) != 0;
			if (j < i && pthread_equal(f.seen.thread[i], f.seen.thread[j]))
				first = false;
		}
		assert_int_equal(same, NCLIENTS / K); /* its loop's connections */
		threads += first;
	}
	assert_int_equal(threads, K);
	pthread_mutex_unlock(&f.seen.lock);
	/* Closed connections leave their loop's count. */
	for (unsigned i = 0; i < NCLIENTS; i++)
		close(fd[i]);
	for (unsigned tries = 0; tries < 500; tries++) {
		unsigned live = 0;
		for (unsigned i = 0; i < K; i++)
			live += (unsigned)loop_stats(&f, i).conns;
		if (!live)
			break;
		usleep(10000);
	}
	for (unsigned i = 0; i < K; i++)
		assert_int_equal(loop_stats(&f, i).conns, 0);
	fixture_stop(&f);
}

/* A client whose handler holds its loop's thread: the clients of the
 * other loops are served all along; its loop serves nothing more until
 * it is released. */
static void test_blocked_loop(void **state)
{
	struct fixture f;
	unsigned l0, lb, l[2];
	uint8_t m[64], r[64];
	(void)state;
	fixture_start(&f, K);
	int c0 = join(&f, &l0); /* loops[0] also accepts: keep it free */
	int hostile = join(&f, &lb);
	assert_int_not_equal(lb, 0);
	assert_int_not_equal(lb, l0);
	size_t n = mkcall(m, 77, 1, P_BLOCK, NULL, UINT32_MAX);
	assert_int_equal(send_record(hostile, m, n), 0);
	pthread_mutex_lock(&f.seen.lock);
	while (!f.seen.blocked)
		pthread_cond_wait(&f.seen.cv, &f.seen.lock);
	pthread_mutex_unlock(&f.seen.lock);
	uint64_t blocked_calls = loop_stats(&f, lb).calls;

	int c1 = join(&f, &l[0]);
	int c2 = join(&f, &l[1]);
	assert_int_not_equal(l[0], lb);
	assert_int_not_equal(l[1], lb);
	for (unsigned c = 0; c < 200; c++) {
		assert_int_equal(call(c0, 1000 + c, P_NULL), 0);
		assert_int_equal(call(c1, 2000 + c, P_NULL), 0);
		assert_int_equal(call(c2, 3000 + c, P_NULL), 0);
	}
	/* The blocked loop took no call meanwhile (its client pipelined one
	 * more, which waits). */
	n = mkcall(m, 78, 1, P_NULL, NULL, UINT32_MAX);
	assert_int_equal(send_record(hostile, m, n), 0);
	assert_int_equal(loop_stats(&f, lb).calls, blocked_calls);

	pthread_mutex_lock(&f.seen.lock);
	f.seen.released = true;
	pthread_cond_broadcast(&f.seen.cv);
	pthread_mutex_unlock(&f.seen.lock);
	assert_int_equal(recv_record(hostile, r, sizeof(r)), 24);
	assert_int_equal(get32(r), 77);
	assert_int_equal(recv_record(hostile, r, sizeof(r)), 24);
	assert_int_equal(get32(r), 78);
	close(hostile);
	close(c0);
	close(c1);
	close(c2);
	fixture_stop(&f);
}

struct flood {
	int fd;
	unsigned sent;
};

/* Writes NULL calls without reading a reply until the socket is full
 * (the server stops reading it once its replies fill the other way). */
static void *flood_main(void *arg)
{
	struct flood *fl = arg;
	uint8_t m[64 * 64];
	size_t one = 0;
	for (unsigned i = 0; i < 64; i++) {
		uint8_t c[64];
		size_t n = mkcall(c, 0x10000 + i, 1, P_NULL, NULL, UINT32_MAX);
		put32(m + one, 0x80000000u | (uint32_t)n);
		memcpy(m + one + 4, c, n);
		one += 4 + n;
	}
	for (;;) {
		ssize_t k = send(fl->fd, m, one, MSG_NOSIGNAL);
		if (k != (ssize_t)one)
			break; /* timed out: the server stopped reading */
		fl->sent += 64;
	}
	return NULL;
}

/* A client that floods its loop without reading: the other loops'
 * clients are served, each loop counts its own calls. */
static void test_flood(void **state)
{
	struct fixture f;
	unsigned lf, l[3];
	int c[3];
	(void)state;
	fixture_start(&f, K);
	c[0] = join(&f, &l[0]);
	struct flood fl = { .fd = join(&f, &lf) };
	c[1] = join(&f, &l[1]);
	c[2] = join(&f, &l[2]);
	struct timeval tv = { 1, 0 };
	setsockopt(fl.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, flood_main, &fl), 0);
	for (unsigned n = 0; n < 300; n++)
		for (unsigned i = 0; i < 3; i++)
			assert_int_equal(call(c[i], 5000 + n, P_NULL), 0);
	pthread_join(t, NULL);
	assert_true(fl.sent > 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_not_equal(l[i], lf);
		assert_int_equal(loop_stats(&f, l[i]).calls, 1 + 300);
	}
	uint64_t flooded = loop_stats(&f, lf).calls;
	assert_true(flooded > 1); /* it worked through the flood too */
	printf("# flood: %u calls sent without reading, %llu handled on its loop\n", fl.sent,
	       (unsigned long long)flooded);
	close(fl.fd);
	for (unsigned i = 0; i < 3; i++)
		close(c[i]);
	fixture_stop(&f);
}

/* Bounds, K = 1 as before, and what a K-loop service refuses. */
static void test_opts(void **state)
{
	struct rpcrdma_svc_opts o;
	struct rpcrdma_svc *svc;
	struct rpcrdma_svc_loop_stats st;
	(void)state;
	rpcrdma_svc_opts_init(&o);
	o.loops = RPCRDMA_SVC_MAX_LOOPS + 1;
	assert_int_equal(rpcrdma_svc_create(&o, &svc), -EINVAL);
	assert_null(svc);
	o.loops = UINT32_MAX;
	assert_int_equal(rpcrdma_svc_create(&o, &svc), -EINVAL);
	/* An options struct of before the field: one loop. */
	o.loops = 9;
	o.size = offsetof(struct rpcrdma_svc_opts, loops);
	assert_int_equal(rpcrdma_svc_create(&o, &svc), 0);
	assert_int_equal(rpcrdma_svc_get_loop_stats(svc, 0, &st, sizeof(st)), 0);
	assert_int_equal(rpcrdma_svc_get_loop_stats(svc, 1, &st, sizeof(st)), -EINVAL);
	assert_int_equal(rpcrdma_svc_get_loop_stats(svc, UINT32_MAX, &st, sizeof(st)), -EINVAL);
	assert_int_equal(rpcrdma_svc_get_loop_stats(NULL, 0, &st, sizeof(st)), -EINVAL);
	assert_int_equal(rpcrdma_svc_get_loop_stats(svc, 0, NULL, sizeof(st)), -EINVAL);
	assert_int_equal(rpcrdma_svc_poll(svc, 0), 0);
	rpcrdma_svc_destroy(svc);

	rpcrdma_svc_opts_init(&o);
	o.loops = K;
	assert_int_equal(rpcrdma_svc_create(&o, &svc), 0);
	assert_int_equal(rpcrdma_svc_poll(svc, 0), -EOPNOTSUPP);
	assert_int_equal(rpcrdma_svc_get_loop_stats(svc, K - 1, &st, sizeof(st)), 0);
	assert_int_equal(rpcrdma_svc_get_loop_stats(svc, K, &st, sizeof(st)), -EINVAL);
	/* A short copy touches nothing beyond it. */
	memset(&st, 0xa5, sizeof(st));
	assert_int_equal(rpcrdma_svc_get_loop_stats(svc, 0, &st, sizeof(uint64_t)), 0);
	assert_int_equal(st.conns, 0);
	assert_int_equal(st.calls, 0xa5a5a5a5a5a5a5a5ull);
	assert_int_equal(rpcrdma_svc_start(svc), 0);
	assert_int_equal(rpcrdma_svc_start(svc), -EALREADY);
	rpcrdma_svc_stop(svc);
	rpcrdma_svc_stop(svc);
	assert_int_equal(rpcrdma_svc_start(svc), 0); /* and again */
	rpcrdma_svc_destroy(svc);                    /* stops the K threads */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_blocked_loop),
		cmocka_unit_test(test_flood),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
