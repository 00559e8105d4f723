/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-ping: NULL calls (procedure 0) to an RPC program over TCP, UDP
 * or RPC-over-RDMA, DEPTH of them in flight, then one line:
 *   N calls, N replies, N errors; rtt us min/median/p99/max A/B/C/D; R calls/s
 * Exit status 0 only when every call was answered MSG_ACCEPTED SUCCESS.
 * See rpcrdma-ping(1).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/clnt.h>

struct slot {
	struct rpcrdma_clnt_req req;
	struct ping *p;
	int64_t start_ns;
};

struct ping {
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned inflight, calls, replies, errors, reported;
	int64_t *rtt_us;          /* one per reply */
	struct slot *free_slots[1024];
	unsigned nfree;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void report(struct ping *p, const struct rpcrdma_clnt_req *r, int status)
{
	if (p->reported++ >= 5)
		return;
	if (status == -EREMOTEIO)
		fprintf(stderr, "rpcrdma-ping: xid 0x%08x: accepted, accept_stat %u\n",
			r->xid, r->accept_stat);
	else if (status == -EACCES)
		fprintf(stderr, "rpcrdma-ping: xid 0x%08x: denied, reject_stat %u auth_stat %u\n",
			r->xid, r->accept_stat, r->auth_stat);
	else
		fprintf(stderr, "rpcrdma-ping: xid 0x%08x: %s\n", r->xid, strerror(-status));
}

static void done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct slot *s = arg;
	struct ping *p = s->p;
	int64_t rtt = (now_ns() - s->start_ns) / 1000;

	pthread_mutex_lock(&p->m);
	/* a reply came: SUCCESS, or an accepted or denied error */
	if (status == 0 || status == -EREMOTEIO || status == -EACCES)
		p->rtt_us[p->replies++] = rtt;
	if (status) {
		p->errors++;
		report(p, req, status);
	}
	p->inflight--;
	p->free_slots[p->nfree++] = s;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->m);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: rpcrdma-ping [-t tcp|udp|rdma] [-c COUNT] [-d DEPTH] "
			"[-i INTERVAL_MS] [-T TIMEOUT_MS] HOST[:PORT] PROG VERS\n");
	exit(2);
}

static unsigned long num(const char *s, unsigned long max)
{
	char *e;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &e, 0);
	if (!*s || *e || errno || v > max || *s == '-')
		usage();
	return v;
}

struct args {
	const char *transport;
	unsigned long count, depth, interval_ms, timeout_ms;
	const char *host;
	uint32_t prog, vers;
};

static void parse(int argc, char **argv, struct args *a)
{
	int o;

	*a = (struct args){ .transport = "tcp", .count = 10, .depth = 1, .timeout_ms = 5000 };
	while ((o = getopt(argc, argv, "t:c:d:i:T:h")) != -1) {
		switch (o) {
		case 't': a->transport = optarg; break;
		case 'c': a->count = num(optarg, 100000000); break;
		case 'd': a->depth = num(optarg, 1024); break;
		case 'i': a->interval_ms = num(optarg, 3600000); break;
		case 'T': a->timeout_ms = num(optarg, 3600000); break;
		default: usage();
		}
	}
	if (argc - optind != 3 || a->count == 0 || a->depth == 0 || a->timeout_ms == 0 ||
	    (strcmp(a->transport, "tcp") && strcmp(a->transport, "udp") &&
	     strcmp(a->transport, "rdma")))
		usage();
	a->host = argv[optind];
	a->prog = (uint32_t)num(argv[optind + 1], UINT32_MAX);
	a->vers = (uint32_t)num(argv[optind + 2], UINT32_MAX);
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Sends the calls, DEPTH at most in flight; returns when all are done. */
static void run(struct rpcrdma_clnt *c, const struct args *a, struct ping *p)
{
	int64_t next = now_ns();

	for (unsigned long i = 0; i < a->count; i++) {
		struct slot *s;
		int err;

		pthread_mutex_lock(&p->m);
		while (p->inflight >= a->depth)
			pthread_cond_wait(&p->cv, &p->m);
		s = p->free_slots[--p->nfree];
		p->inflight++;
		p->calls++;
		pthread_mutex_unlock(&p->m);
		if (a->interval_ms && i) {
			next += (int64_t)a->interval_ms * 1000000;
			sleep_until(next);
		}
		memset(&s->req, 0, sizeof(s->req));
		s->req.size = sizeof(s->req);
		s->req.proc = 0;
		s->req.res_max = 1024;
		s->req.timeout_ms = (int)a->timeout_ms;
		s->start_ns = now_ns();
		err = rpcrdma_clnt_call_async(c, &s->req, done, s);
		if (err)
			done(&s->req, err, s);
	}
	pthread_mutex_lock(&p->m);
	while (p->inflight)
		pthread_cond_wait(&p->cv, &p->m);
	pthread_mutex_unlock(&p->m);
}

static int64_t pct(const int64_t *v, unsigned n, unsigned q)
{
	unsigned i = (unsigned)(((uint64_t)n * q + 99) / 100);

	return n ? v[i ? i - 1 : 0] : 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	struct rpcrdma_clnt *c;
	struct ping p = { .inflight = 0 };
	struct slot *slots;
	struct args a;
	char netid[8];
	socklen_t len;
	int err;

	parse(argc, argv, &a);
	if (rpcrdma_clnt_parse_addr(a.host, &ss, &len)) {
		fprintf(stderr, "rpcrdma-ping: %s: not a numeric address\n", a.host);
		return 2;
	}
	snprintf(netid, sizeof(netid), "%s%s", a.transport, ss.ss_family == AF_INET6 ? "6" : "");
	struct rpcrdma_clnt_opts o;
	rpcrdma_clnt_opts_init(&o);
	o.timeout_ms = (int)a.timeout_ms;
	o.max_credits = (uint32_t)a.depth;
	err = rpcrdma_clnt_create(netid, (struct sockaddr *)&ss, len, a.prog, a.vers, &o, &c);
	if (err) {
		fprintf(stderr, "rpcrdma-ping: %s over %s: %s\n", a.host, netid, strerror(-err));
		return 2;
	}
	pthread_mutex_init(&p.m, NULL);
	pthread_cond_init(&p.cv, NULL);
	p.rtt_us = calloc(a.count, sizeof(*p.rtt_us));
	slots = calloc(a.depth, sizeof(*slots));
	if (!p.rtt_us || !slots) {
		fprintf(stderr, "rpcrdma-ping: out of memory\n");
		return 2;
	}
	for (unsigned long i = 0; i < a.depth; i++) {
		slots[i].p = &p;
		p.free_slots[p.nfree++] = &slots[i];
	}
	int64_t t0 = now_ns();
	run(c, &a, &p);
	double secs = (double)(now_ns() - t0) / 1e9;
	rpcrdma_clnt_destroy(c);

	qsort(p.rtt_us, p.replies, sizeof(*p.rtt_us), cmp_i64);
	printf("%u calls, %u replies, %u errors; rtt us min/median/p99/max "
	       "%lld/%lld/%lld/%lld; %.1f calls/s\n",
	       p.calls, p.replies, p.errors, (long long)(p.replies ? p.rtt_us[0] : 0),
	       (long long)pct(p.rtt_us, p.replies, 50), (long long)pct(p.rtt_us, p.replies, 99),
	       (long long)(p.replies ? p.rtt_us[p.replies - 1] : 0),
	       secs > 0 ? p.calls / secs : 0.0);
	free(p.rtt_us);
	free(slots);
	return p.errors == 0 && p.replies == p.calls ? 0 : 1;
}
