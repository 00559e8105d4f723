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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/rpcrdma.h>

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
	char prefix[32];

	if (p->reported++ >= 5)
		return;
	snprintf(prefix, sizeof(prefix), "rpcrdma-ping: xid 0x%08x", r->xid);
	rpcrdma_clnt_perror(r, status, prefix);
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

static const char usage_line[] =
	"usage: rpcrdma-ping [-t tcp|tcp6|udp|udp6|rdma|rdma6] [-c COUNT] [-d DEPTH]\n"
	"                    [-i INTERVAL_MS] [-T TIMEOUT_MS] HOST[:PORT] PROG VERS\n";

static void help(void)
{
	printf("%s"
	       "Sends RPC NULL calls (procedure 0) of PROG VERS to HOST and prints one line:\n"
	       "  N calls, N replies, N errors; rtt us min/median/p99/max A/B/C/D; R calls/s\n"
	       "  -t, --transport NETID   tcp (default), udp, rdma; with 6 for IPv6\n"
	       "  -c, --count N           calls to send (10)\n"
	       "  -d, --depth N           calls in flight, 1..1024 (1)\n"
	       "  -i, --interval MS       wait between two calls (0)\n"
	       "  -T, --timeout MS        timeout of each call (5000)\n"
	       "  -h, --help              this text\n"
	       "  -V, --version           the version of rpcrdma-ping and librpcrdma\n"
	       "HOST is a name or a numeric address; without PORT, rpcbind is asked.\n"
	       "Exit status: 0 every call answered SUCCESS, 1 some call failed, 2 usage or\n"
	       "no client.  See rpcrdma-ping(1).\n", usage_line);
	exit(0);
}

/* A bad argument: says which, then the usage, exit 2. */
static void bad(const char *what, const char *arg)
{
	fprintf(stderr, "rpcrdma-ping: %s: '%s'\n%s", what, arg, usage_line);
	exit(2);
}

static unsigned long num(const char *what, const char *s, unsigned long min, unsigned long max)
{
	char *e;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &e, 0);
	if (!*s || *e || errno || v < min || v > max || *s == '-' || *s == '+') {
		char w[96];

		snprintf(w, sizeof(w), "%s must be a number from %lu to %lu", what, min, max);
		bad(w, s);
	}
	return v;
}

struct args {
	const char *transport;
	unsigned long count, depth, interval_ms, timeout_ms;
	const char *host;
	uint32_t prog, vers;
};

static const struct option longopts[] = {
	{ "transport", required_argument, NULL, 't' },
	{ "count", required_argument, NULL, 'c' },
	{ "depth", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'i' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static bool known_transport(const char *t)
{
	static const char *const names[] = { "tcp", "tcp6", "udp", "udp6", "rdma", "rdma6" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(t, names[i]))
			return true;
	return false;
}

static void parse(int argc, char **argv, struct args *a)
{
	int o;

	*a = (struct args){ .transport = "tcp", .count = 10, .depth = 1, .timeout_ms = 5000 };
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":t:c:d:i:T:hV", longopts, NULL)) != -1) {
		switch (o) {
		case 't': a->transport = optarg; break;
		case 'c': a->count = num("COUNT", optarg, 1, 100000000); break;
		case 'd': a->depth = num("DEPTH", optarg, 1, 1024); break;
		case 'i': a->interval_ms = num("INTERVAL_MS", optarg, 0, 3600000); break;
		case 'T': a->timeout_ms = num("TIMEOUT_MS", optarg, 1, 3600000); break;
		case 'h': help(); break;
		case 'V':
			printf("rpcrdma-ping (librpcrdma %s)\n", rpcrdma_version_string());
			exit(0);
		case ':': bad("option needs a value", argv[optind - 1]); break;
		default: bad("unknown option", argv[optind - 1]);
		}
	}
	if (!known_transport(a->transport))
		bad("transport must be tcp, udp or rdma (6 for IPv6)", a->transport);
	if (argc - optind != 3) {
		fprintf(stderr, "rpcrdma-ping: HOST[:PORT] PROG VERS expected, %d argument%s given\n%s",
			argc - optind, argc - optind == 1 ? "" : "s", usage_line);
		exit(2);
	}
	a->host = argv[optind];
	a->prog = (uint32_t)num("PROG", argv[optind + 1], 0, UINT32_MAX);
	a->vers = (uint32_t)num("VERS", argv[optind + 2], 0, UINT32_MAX);
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

/* The client: a numeric HOST[:PORT] as rpcrdma_clnt_parse_addr() reads
 * it (the netid gets a 6 for an IPv6 address), else NAME[:PORT] resolved
 * in the transport's family. */
static int make_client(const struct args *a, const struct rpcrdma_clnt_opts *o,
		       struct rpcrdma_clnt **c, char *netid, size_t netid_len)
{
	struct sockaddr_storage ss;
	char name[256], *colon;
	unsigned long port = 0;
	socklen_t len;
	bool six = strchr(a->transport, '6') != NULL;

	if (rpcrdma_clnt_parse_addr(a->host, &ss, &len) == 0) {
		if (six && ss.ss_family == AF_INET)
			bad("an IPv4 address with an IPv6 transport", a->host);
		snprintf(netid, netid_len, "%s%s", a->transport,
			 ss.ss_family == AF_INET6 && !six ? "6" : "");
		return rpcrdma_clnt_create(netid, (struct sockaddr *)&ss, len, a->prog, a->vers,
					   o, c);
	}
	snprintf(netid, netid_len, "%s", a->transport);
	if (snprintf(name, sizeof(name), "%s", a->host) >= (int)sizeof(name))
		bad("host name too long", a->host);
	colon = strrchr(name, ':');
	if (colon) {
		*colon = 0;
		port = num("PORT", colon + 1, 0, 65535);
	}
	return rpcrdma_clnt_create_host(netid, name, (uint16_t)port, a->prog, a->vers, o, c);
}

int main(int argc, char **argv)
{
	struct rpcrdma_clnt *c;
	struct ping p = { .inflight = 0 };
	struct slot *slots;
	struct args a;
	char netid[8];
	int err;

	parse(argc, argv, &a);
	struct rpcrdma_clnt_opts o;
	rpcrdma_clnt_opts_init(&o);
	o.timeout_ms = (int)a.timeout_ms;
	o.max_credits = (uint32_t)a.depth;
	err = make_client(&a, &o, &c, netid, sizeof(netid));
	if (err) {
		fprintf(stderr, "rpcrdma-ping: %s over %s: %s\n", a.host, netid,
			rpcrdma_strerror(err));
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
