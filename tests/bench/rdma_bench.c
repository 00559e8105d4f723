/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-bench ADDR PORT [--quick] [--busy] [--direct] [--spin-us N] [--samples FILE]
 *               [--only PHASE] [--count N] [--rate-depth N] [--connect-ms N]
 *               [--prog P --vers V] [--tcp]
 *   --only lat|rate|bw: run that phase alone (to profile it)
 *   --prog P, --vers V: the program and version of the NULL calls (default
 *     the echo program; 100003 4 for an NFSv4 server such as tinynfs)
 *   --tcp: the rate phase alone, over TCP through the ONC RPC client
 *     (rpcrdma_clnt, <rpcrdma/clnt.h>) instead of the RDMA transport
 *   --count N: NULL calls of the rate phase (default 20000, 2000 with --quick)
 *   --rate-depth N: calls in flight in the rate phase (default 32; the
 *     rdma-syscalls payload counts the server's work at 1 and at 32)
 *   --connect-ms N: connection timeout (a server under valgrind is slow)
 *   --busy: the client's poller busy-polls (default: workqueue, 1 thread)
 *   --direct: the calling thread spins on a DIRECT poller (direct_spin) while it waits
 *   --spin-us N: the workqueue poller's adaptive polling (poller.h spin_us)
 *
 * Client-side figures of the RDMA transport against the echo server
 * (examples/echo): NULL-call round trip (median, p99) of synchronous calls
 * and of calls each queued from the last one's done callback, NULL calls per
 * second with 32 calls in flight, and data bandwidth at 64 KiB and 1 MiB:
 * SOURCE replies through a write chunk (server RDMA Write), SINK calls
 * through a read chunk (server RDMA Read), ECHO both ways.  Prints one
 * "RESULT name value unit" line per figure, for tests/vm/payloads/
 * rdma-bench to put beside perftest's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include <sys/resource.h>
#include <time.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/rpcrdma.h>

#include "../../examples/echo/echo_proto.h"

#define DEPTH_MAX 64

/* The program and version of the NULL calls (--prog, --vers). */
static uint32_t null_prog = ECHO_PROG, null_vers = ECHO_VERS;

/* With a DIRECT poller the waiting thread polls itself (one thread per
 * side, as perftest); else it sleeps until a poller thread wakes it. */
static struct rpcrdma_poller *direct;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Per-call timestamps.  In the TCG guest the clocksource is the HPET, so a
 * clock_gettime is a system call and an emulated device read, two of them a
 * call; perftest reads the TSC.  On x86 the samples are TSC ticks, turned
 * into nanoseconds with the rate measured against CLOCK_MONOTONIC over the
 * same phase (stamp_begin/stamp_scale); elsewhere they are nanoseconds.
 */
static uint64_t stamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return now_ns();
#endif
}

struct stamp_cal {
	uint64_t ns0, t0;
};

static void stamp_begin(struct stamp_cal *cal)
{
	cal->ns0 = now_ns();
	cal->t0 = stamp();
}

/* Converts n samples taken since stamp_begin(cal) to nanoseconds. */
static void stamp_scale(const struct stamp_cal *cal, uint64_t *v, unsigned n)
{
	uint64_t dt = stamp() - cal->t0, dns = now_ns() - cal->ns0;
	double k = dt ? (double)dns / (double)dt : 1.0;

	for (unsigned i = 0; i < n; i++)
		v[i] = (uint64_t)((double)v[i] * k);
}

/* One call slot with its buffers, reused for every call it carries. */
struct slot {
	uint8_t *msg, *rbuf, *bulk;
	struct iovec iov;
	struct rpcrdma_client_call call;
	struct async *a;
	uint64_t t0;                  /* when its call was queued (stamp()) */
};

/*
 * The calls of one run.  Its counters are atomics, so that a call costs
 * the benchmark no lock of its own (perftest's loop takes none): m and cv
 * only wake the waiting thread after the last call.
 */
struct async {
	pthread_mutex_t m;
	pthread_cond_t cv;
	struct rpcrdma_client *c;
	unsigned proc, total;
	atomic_int left;              /* calls still to issue (may go below 0) */
	atomic_uint done, bad;
	atomic_uint nlat;             /* samples taken (lat's next index) */
	atomic_uint xid;
	size_t size;
	bool write_chunk, stopping;
	uint64_t *lat;                /* when set: each call's round trip, to its callback (stamp()) */
};

static void slot_setup(struct slot *s, unsigned proc, size_t size, uint32_t xid)
{
	size_t msglen = ECHO_CALL_HDR + (proc == ECHO_PROC_NULL ? 0 : 4);

	if (proc == ECHO_PROC_ECHO || proc == ECHO_PROC_SINK)
		msglen += size + echo_pad(size);
	echo_put32(s->msg, xid);
	echo_put32(s->msg + 4, 0);
	echo_put32(s->msg + 8, 2);
	echo_put32(s->msg + 12, proc == ECHO_PROC_NULL ? null_prog : ECHO_PROG);
	echo_put32(s->msg + 16, proc == ECHO_PROC_NULL ? null_vers : ECHO_VERS);
	echo_put32(s->msg + 20, proc);
	for (unsigned i = 24; i < ECHO_CALL_HDR; i++)
		s->msg[i] = 0;
	if (proc != ECHO_PROC_NULL)
		echo_put32(s->msg + ECHO_CALL_HDR, (uint32_t)size);
	s->iov.iov_base = s->msg;
	s->iov.iov_len = msglen;
	memset(&s->call, 0, sizeof(s->call));
	s->call.size = sizeof(s->call);
	s->call.iov = &s->iov;
	s->call.iovcnt = 1;
	if (proc == ECHO_PROC_ECHO || proc == ECHO_PROC_SINK) {
		s->call.bulk_offset = ECHO_CALL_HDR + 4;
		s->call.bulk_length = size;
	}
	s->call.reply_buf = s->rbuf;
	s->call.reply_len = 256;
	if (proc == ECHO_PROC_ECHO || proc == ECHO_PROC_SOURCE) {
		s->call.reply_bulk = s->bulk;
		s->call.reply_bulk_len = size;
	}
}

static int slot_alloc(struct slot *s, size_t size)
{
	s->msg = calloc(1, ECHO_CALL_HDR + 8 + size);
	s->rbuf = calloc(1, 256);
	s->bulk = calloc(1, size ? size : 1);
	return s->msg && s->rbuf && s->bulk ? 0 : -ENOMEM;
}

static void slot_free(struct slot *s)
{
	free(s->msg);
	free(s->rbuf);
	free(s->bulk);
}

static void issue(struct slot *s);

/* One call of the run has finished; the last one wakes the waiter. */
static void finish(struct async *a, bool bad)
{
	if (bad)
		atomic_fetch_add_explicit(&a->bad, 1, memory_order_relaxed);
	if (atomic_fetch_add_explicit(&a->done, 1, memory_order_acq_rel) + 1 == a->total) {
		pthread_mutex_lock(&a->m);
		pthread_cond_signal(&a->cv);
		pthread_mutex_unlock(&a->m);
	}
}

static void done_cb(struct rpcrdma_client_call *call, int status, void *arg)
{
	struct slot *s = arg;
	struct async *a = s->a;

	(void)call;
	/* The sample lands before done counts it: the waiter reads lat
	 * once done reaches the total. */
	if (a->lat)
		a->lat[atomic_fetch_add_explicit(&a->nlat, 1, memory_order_relaxed)] = stamp() - s->t0;
	finish(a, status || (a->proc != ECHO_PROC_NULL && a->proc != ECHO_PROC_SINK &&
			     s->call.bulk_got != a->size));
	if (atomic_fetch_sub_explicit(&a->left, 1, memory_order_relaxed) > 0)
		issue(s);
}

static void issue(struct slot *s)
{
	struct async *a = s->a;

	/* run() built the call; only its xid changes (perftest, too, sends
	 * one prepared message over and over). */
	echo_put32(s->msg, atomic_fetch_add_explicit(&a->xid, 1, memory_order_relaxed) + 1);
	if (a->lat)
		s->t0 = stamp();
	if (rpcrdma_client_call_async(a->c, &s->call, done_cb, s))
		finish(a, true);
}

/* count calls of proc/size, depth in flight; returns seconds or -1.  lat:
 * NULL, or count entries for each call's time from queueing to callback. */
static double run(struct rpcrdma_client *c, unsigned proc, size_t size, unsigned count,
		  unsigned depth, uint64_t *lat)
{
	struct slot slots[DEPTH_MAX];
	struct async a = { .c = c, .proc = proc, .size = size, .xid = proc << 24, .lat = lat };
	uint64_t t0, t1;

	if (depth > count)
		depth = count;
	pthread_mutex_init(&a.m, NULL);
	pthread_cond_init(&a.cv, NULL);
	for (unsigned i = 0; i < depth; i++) {
		if (slot_alloc(&slots[i], size))
			return -1;
		slot_setup(&slots[i], proc, size, 0);
		slots[i].a = &a;
	}
	atomic_init(&a.left, (int)(count - depth));
	a.total = count;
	t0 = now_ns();
	for (unsigned i = 0; i < depth; i++)
		issue(&slots[i]);
	if (direct) {
		while (atomic_load_explicit(&a.done, memory_order_acquire) < count)
			rpcrdma_poller_poll(direct, 0);
	} else {
		pthread_mutex_lock(&a.m);
		while (atomic_load_explicit(&a.done, memory_order_acquire) < count)
			pthread_cond_wait(&a.cv, &a.m);
		pthread_mutex_unlock(&a.m);
	}
	t1 = now_ns();
	for (unsigned i = 0; i < depth; i++)
		slot_free(&slots[i]);
	if (atomic_load(&a.bad)) {
		fprintf(stderr, "proc %u size %zu: %u of %u calls failed\n", proc, size,
			atomic_load(&a.bad), count);
		return -1;
	}
	return (double)(t1 - t0) / 1e9;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Prints NAME_median and NAME_p99 of n round trips (sorts them). */
static void print_rtt(const char *name, uint64_t *lat, unsigned n)
{
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("RESULT %s_median %.1f us\n", name, (double)lat[n / 2] / 1000.0);
	printf("RESULT %s_p99 %.1f us\n", name, (double)lat[(size_t)n * 99 / 100] / 1000.0);
}

/* The process's CPU time and context switches (all its threads). */
struct rate_mark {
	uint64_t user, sys;
	long vol, invol;
};

static void rate_mark(struct rate_mark *m)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	m->user = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
	m->sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
	m->vol = ru.ru_nvcsw;
	m->invol = ru.ru_nivcsw;
}

/* The rate phase's figures: n calls in t seconds between marks a and b. */
static void rate_report(unsigned n, double t, const struct rate_mark *a,
			const struct rate_mark *b)
{
	printf("RESULT null_rate %.0f calls/s\n", n / t);
	printf("RESULT null_rate_mpps %.4f Mpps\n", n / t / 1e6);
	/* The client's CPU time per call (all its threads): what the
	 * transport costs its user, steadier under emulation than the rate.
	 * System time includes soft-RoCE's own work done in our system
	 * calls. */
	printf("RESULT null_rate_cpu_user %.1f us/call\n", (double)(b->user - a->user) / 1000.0 / n);
	printf("RESULT null_rate_cpu_sys %.1f us/call\n", (double)(b->sys - a->sys) / 1000.0 / n);
	/* The client's context switches over the phase, totals (the
	 * rdma-syscalls payload differences two runs). */
	printf("RESULT null_rate_ctxsw_vol %ld switches\n", b->vol - a->vol);
	printf("RESULT null_rate_ctxsw_invol %ld switches\n", b->invol - a->invol);
}

/*
 * The rate phase over TCP, through the ONC RPC client: count NULL calls,
 * depth in flight, each next call queued from the last one's done callback
 * (on the client's own thread).  Returns seconds or -1.
 */
struct crate {
	pthread_mutex_t m;
	pthread_cond_t cv;
	struct rpcrdma_clnt *c;
	unsigned total;
	atomic_int left;
	atomic_uint done, bad;
};

struct cslot {
	struct rpcrdma_clnt_req req;
	struct crate *r;
};

static void cissue(struct cslot *s);

static void cfinish(struct crate *r, bool bad)
{
	if (bad)
		atomic_fetch_add_explicit(&r->bad, 1, memory_order_relaxed);
	if (atomic_fetch_add_explicit(&r->done, 1, memory_order_acq_rel) + 1 == r->total) {
		pthread_mutex_lock(&r->m);
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->m);
	}
}

static void cdone(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct cslot *s = arg;

	(void)req;
	cfinish(s->r, status != 0);
	if (atomic_fetch_sub_explicit(&s->r->left, 1, memory_order_relaxed) > 0)
		cissue(s);
}

static void cissue(struct cslot *s)
{
	memset(&s->req, 0, sizeof(s->req));
	s->req.size = sizeof(s->req);
	s->req.proc = 0;
	s->req.res_max = 64;
	if (rpcrdma_clnt_call_async(s->r->c, &s->req, cdone, s))
		cfinish(s->r, true);
}

static double clnt_run(struct rpcrdma_clnt *c, unsigned count, unsigned depth)
{
	struct cslot slots[DEPTH_MAX];
	struct crate r = { .c = c, .total = count };
	uint64_t t0, t1;

	if (depth > count)
		depth = count;
	pthread_mutex_init(&r.m, NULL);
	pthread_cond_init(&r.cv, NULL);
	atomic_init(&r.left, (int)(count - depth));
	t0 = now_ns();
	for (unsigned i = 0; i < depth; i++) {
		slots[i].r = &r;
		cissue(&slots[i]);
	}
	pthread_mutex_lock(&r.m);
	while (atomic_load_explicit(&r.done, memory_order_acquire) < count)
		pthread_cond_wait(&r.cv, &r.m);
	pthread_mutex_unlock(&r.m);
	t1 = now_ns();
	if (atomic_load(&r.bad)) {
		fprintf(stderr, "%u of %u NULL calls over TCP failed\n", atomic_load(&r.bad), count);
		return -1;
	}
	return (double)(t1 - t0) / 1e9;
}

/* --tcp: the rate phase alone over TCP; the exit status. */
static int tcp_main(const struct sockaddr_storage *ss, unsigned n, unsigned depth, int connect_ms)
{
	struct rpcrdma_clnt_opts o;
	struct rpcrdma_clnt *c;
	struct rate_mark m0, m1;
	socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
			sizeof(struct sockaddr_in);
	int err;

	rpcrdma_clnt_opts_init(&o);
	if (connect_ms > 0)
		o.connect_timeout_ms = connect_ms;
	err = rpcrdma_clnt_create(ss->ss_family == AF_INET6 ? "tcp6" : "tcp",
				  (const struct sockaddr *)ss, len, null_prog, null_vers, &o, &c);
	if (err) {
		fprintf(stderr, "tcp client: %s\n", strerror(-err));
		return 1;
	}
	rate_mark(&m0);
	double t = clnt_run(c, n, depth);

	rate_mark(&m1);
	rpcrdma_clnt_destroy(c);
	if (t <= 0)
		return 1;
	rate_report(n, t, &m0, &m1);
	return 0;
}

int main(int argc, char **argv)
{
	struct rpcrdma_poller_opts popts;
	struct rpcrdma_client_opts copts;
	struct rpcrdma_poller *p;
	struct rpcrdma_client *c;
	struct sockaddr_storage ss;
	const char *samples = NULL;
	bool quick = false, busy = false, use_direct = false, tcp = false;
	unsigned spin_us = 0, count = 0, bw_depth = 32, rate_depth = 32;
	int connect_ms = 0;
	bool phase_lat = true, phase_rate = true, phase_bw = true;
	unsigned nlat, nrate, nbw;
	uint64_t *lat;
	struct slot s;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ADDR PORT [--quick] [--samples FILE]\n", argv[0]);
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			samples = argv[++i];
		else if (!strcmp(argv[i], "--busy"))
			busy = true;
		else if (!strcmp(argv[i], "--direct"))
			use_direct = true;
		else if (!strcmp(argv[i], "--spin-us") && i + 1 < argc)
			spin_us = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bw-depth") && i + 1 < argc) {
			int d = atoi(argv[++i]);

			bw_depth = d < 1 ? 1 : d > DEPTH_MAX ? DEPTH_MAX : (unsigned)d;
		}
		else if (!strcmp(argv[i], "--rate-depth") && i + 1 < argc) {
			int d = atoi(argv[++i]);

			rate_depth = d < 1 ? 1 : d > DEPTH_MAX ? DEPTH_MAX : (unsigned)d;
		}
		else if (!strcmp(argv[i], "--prog") && i + 1 < argc)
			null_prog = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--vers") && i + 1 < argc)
			null_vers = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--tcp"))
			tcp = true;
		else if (!strcmp(argv[i], "--connect-ms") && i + 1 < argc)
			connect_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			/* one phase: lat, rate or bw (for profiling it alone) */
			i++;
			phase_lat = !strcmp(argv[i], "lat");
			phase_rate = !strcmp(argv[i], "rate");
			phase_bw = !strcmp(argv[i], "bw");
		}
	}
	nlat = quick ? 300 : 2000;
	nrate = count ? count : quick ? 2000 : 20000;
	nbw = quick ? 20 : 100;
	if (echo_addr(argv[1], argv[2], &ss))
		return 2;
	if (tcp)
		return tcp_main(&ss, nrate, rate_depth, connect_ms);
	rpcrdma_poller_opts_init(&popts);
	popts.threads = 1;
	popts.spin_us = spin_us;
	if (busy)
		popts.mode = RPCRDMA_POLLER_BUSY;
	if (use_direct) {
		popts.mode = RPCRDMA_POLLER_DIRECT;
		popts.direct_spin = 1;     /* the waiting thread spins on it */
	}
	rpcrdma_client_opts_init(&copts);
	copts.max_credits = 64;
	if (connect_ms > 0)
		copts.connect_timeout_ms = connect_ms;
	if ((err = rpcrdma_poller_create(&popts, &p)) ||
	    (err = rpcrdma_client_create(p, (struct sockaddr *)&ss, &copts, &c))) {
		fprintf(stderr, "setup: %s\n", strerror(-err));
		return 1;
	}
	if (use_direct)
		direct = p;

	if (phase_lat) {
		/* NULL round trip, one call at a time. */
		struct stamp_cal cal;

		lat = calloc(nlat, sizeof(*lat));
		if (!lat || slot_alloc(&s, 0))
			return 1;
		stamp_begin(&cal);
		slot_setup(&s, ECHO_PROC_NULL, 0, 0);
		for (unsigned i = 0; i < nlat + 50; i++) {
			uint64_t t0;

			echo_put32(s.msg, 0x70000000u + i);
			t0 = stamp();
			if (direct) {
				/* total 0: nothing waits on cv (this thread polls) */
				struct async one = { .c = c, .proc = ECHO_PROC_NULL };

				pthread_mutex_init(&one.m, NULL);
				pthread_cond_init(&one.cv, NULL);
				s.a = &one;
				err = rpcrdma_client_call_async(c, &s.call, done_cb, &s);
				while (!err && !atomic_load_explicit(&one.done, memory_order_acquire))
					rpcrdma_poller_poll(direct, 0);
				if (!err && atomic_load(&one.bad))
					err = -EIO;
			} else {
				err = rpcrdma_client_call(c, &s.call, 10000);
			}
			if (err) {
				fprintf(stderr, "NULL call: %s\n", strerror(-err));
				return 1;
			}
			if (i >= 50)
				lat[i - 50] = stamp() - t0;   /* the first 50 warm up */
		}
		stamp_scale(&cal, lat, nlat);
		slot_free(&s);
		if (samples) {
			FILE *f = fopen(samples, "w");

			for (unsigned i = 0; f && i < nlat; i++)
				fprintf(f, "%u %.2f\n", i, (double)lat[i] / 1000.0);
			if (f)
				fclose(f);
		}
		print_rtt("null_rtt", lat, nlat);
		free(lat);

		/* The same, one call in flight, each next call queued from the
		 * last one's done callback on the poller thread (an event-driven
		 * client): no hand-off to a waiting thread per call. */
		lat = calloc(nlat + 50, sizeof(*lat));
		stamp_begin(&cal);
		if (!lat || run(c, ECHO_PROC_NULL, 0, nlat + 50, 1, lat) < 0)
			return 1;
		stamp_scale(&cal, lat, nlat + 50);
		print_rtt("null_rtt_cb", lat + 50, nlat);
		free(lat);
	}

	if (phase_rate) {
		/* NULL calls per second, 32 in flight (--rate-depth; the client
		 * follows the grant). */
		struct rate_mark m0, m1;

		rate_mark(&m0);
		double t = run(c, ECHO_PROC_NULL, 0, nrate, rate_depth, NULL);

		rate_mark(&m1);
		if (t <= 0)
			return 1;
		rate_report(nrate, t, &m0, &m1);
	}

	if (phase_bw) {
		/* Bandwidth: bytes of data per second, 32 calls in flight
		 * (--bw-depth; the client follows the grant; ib_write_bw keeps 128
		 * writes in flight). */
		static const size_t sizes[] = { 65536, 1u << 20 };
		static const struct { unsigned proc; const char *name; } kinds[] = {
			{ ECHO_PROC_SOURCE, "write" }, { ECHO_PROC_SINK, "read" }, { ECHO_PROC_ECHO, "echo" },
		};
		for (unsigned k = 0; k < 3; k++)
			for (unsigned z = 0; z < 2; z++) {
				unsigned n = sizes[z] > 65536 ? nbw : nbw * 8;
				double t = run(c, kinds[k].proc, sizes[z], n, bw_depth, NULL);

				if (t <= 0)
					return 1;
				printf("RESULT %s_bw_%zu %.1f MiB/s\n", kinds[k].name, sizes[z],
				       (double)sizes[z] * n / t / (1 << 20));
			}
	}
	/* Calls that found no send context (issue 35: the client's send
	 * contexts are sized from its credits, so this stays 0). */
	struct rpcrdma_stats cst;

	rpcrdma_client_stats(c, &cst);
	printf("RESULT client_send_waited %llu calls\n",
	       (unsigned long long)cst.v[RPCRDMA_STAT_SEND_WAITED]);
	rpcrdma_client_destroy(c);
	rpcrdma_poller_destroy(p);
	return 0;
}
