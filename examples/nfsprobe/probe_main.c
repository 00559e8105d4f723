// SPDX-License-Identifier: BSD-2-Clause
/*
 * nfs4-probe's command line (see nfsprobe.c for what it does): the
 * transport, the security flavour (AUTH_SYS, or RPCSEC_GSS krb5 / krb5i /
 * krb5p with <rpcrdma/gss.h>), and --bench, which after the checked run
 * times NULL round trips and 1 MiB WRITE / READ rounds on the same session.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/gss.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/version.h>

#include "nfsprobe.h"

#define NFS_PROGRAM 100003
#define NFS_V4 4
#define BENCH_MAX 10000u

struct args {
	const char *transport;   /* tcp | rdma */
	int sec;                 /* 0: AUTH_SYS, else enum rpcrdma_gss_service */
	const char *target;      /* RPCSEC_GSS: the server, "nfs@HOST" */
	const char *ccache;      /* RPCSEC_GSS: NULL: KRB5CCNAME or the default */
	const char *keytab;      /* RPCSEC_GSS: a client keytab instead of a ticket */
	unsigned bench;          /* --bench N: rounds (0: none) */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: nfs4-probe [-t|--transport tcp|rdma] [--sec sys|krb5|krb5i|krb5p]\n"
		"                  [--target SERVICE@HOST] [--ccache CCACHE] [--keytab KEYTAB]\n"
		"                  [--bench N]\n"
		"                  HOST[:PORT] PATH\n"
		"       nfs4-probe -h|--help|-V|--version\n"
		"  HOST: numeric IPv4, IPv6 as [V6]:PORT or V6%%IFNAME; PORT: 2049 (tcp),\n"
		"  20049 (rdma) when not given.  PATH: a writable directory on the server,\n"
		"  from its NFSv4 root (e.g. / or /export).  --sec krb5*: RPCSEC_GSS with\n"
		"  the ticket in CCACHE (default: KRB5CCNAME, else the default cache) for\n"
		"  the service SERVICE@HOST (default: nfs@ this machine's host name), or\n"
		"  with the key of a client KEYTAB's first principal.\n"
		"  --bench N: then 100*N NULL calls and N 1 MiB WRITE and READ rounds, timed.\n");
}

static void print_stats(const struct probe *p)
{
	struct rpcrdma_stats st;

	rpcrdma_clnt_stats(p->c, &st);
	for (int i = 0; i < RPCRDMA_STAT_COUNT; i++)
		printf("%s %" PRIu64 "\n", rpcrdma_stat_name((enum rpcrdma_stat)i), st.v[i]);
}

static void fill_pattern(uint8_t *d, size_t n, uint32_t seed)
{
	uint32_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		d[i] = (uint8_t)x;
	}
}

static const char *const sec_names[] = { "sys", "krb5", "krb5i", "krb5p" };

/* AUTH_SYS with our uid and gid, or an RPCSEC_GSS context with the server. */
static int set_auth(struct probe *p, const struct args *a)
{
	char host[256], target[300];
	int rc;

	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "nfs4-probe");
	host[sizeof(host) - 1] = '\0';
	if (a->sec == 0) {
		rc = rpcrdma_clnt_set_auth_sys(p->c, host, (uint32_t)getuid(), (uint32_t)getgid(),
					       0, NULL);
		if (rc != 0)
			fprintf(stderr, "nfs4-probe: AUTH_SYS: %s\n", strerror(-rc));
		return rc ? -1 : 0;
	}
	struct rpcrdma_clnt_gss_opts go;
	rpcrdma_clnt_gss_opts_init(&go);
	snprintf(target, sizeof(target), "nfs@%s", host);
	go.target = a->target ? a->target : target;
	go.service = a->sec;
	go.ccache = a->ccache;
	go.keytab = a->keytab;
	rc = rpcrdma_clnt_set_auth_gss(p->c, &go);
	if (rc != 0) {
		fprintf(stderr, "nfs4-probe: RPCSEC_GSS %s with %s: %s%s\n", sec_names[a->sec],
			go.target, strerror(-rc),
			rc == -ENOKEY ? " (no ticket: kinit, or --ccache)" : "");
		return -1;
	}
	printf("nfs4-probe: RPCSEC_GSS %s context with %s\n", sec_names[a->sec], go.target);
	return 0;
}

static int open_client(struct probe *p, const struct args *a, const char *target)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int rdma = strcmp(a->transport, "rdma") == 0;

	if (rpcrdma_clnt_parse_addr(target, &ss, &len) != 0) {
		fprintf(stderr, "nfs4-probe: bad address '%s'\n", target);
		return -1;
	}
	int v6 = ss.ss_family == AF_INET6;
	in_port_t *port = v6 ? &((struct sockaddr_in6 *)&ss)->sin6_port
			     : &((struct sockaddr_in *)&ss)->sin_port;
	if (*port == 0)
		*port = htons(rdma ? 20049 : 2049);
	const char *netid = rdma ? (v6 ? "rdma6" : "rdma") : (v6 ? "tcp6" : "tcp");
	struct rpcrdma_clnt_opts o;
	rpcrdma_clnt_opts_init(&o);
	int rc = rpcrdma_clnt_create(netid, (struct sockaddr *)&ss, len, NFS_PROGRAM, NFS_V4, &o,
				     &p->c);
	if (rc != 0) {
		fprintf(stderr, "nfs4-probe: cannot reach %s over %s: %s\n", target, netid,
			strerror(-rc));
		return -1;
	}
	if (set_auth(p, a))
		return -1;
	printf("nfs4-probe: %s over %s, sec=%s\n", target, netid, sec_names[a->sec]);
	return 0;
}

/* ---- --bench ------------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process's read- and write-family system calls (/proc/self/io). */
static uint64_t rw_syscalls(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	uint64_t n = 0, v;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "syscr: %" SCNu64, &v) == 1 || sscanf(line, "syscw: %" SCNu64, &v) == 1)
			n += v;
	fclose(f);
	return n;
}

static uint64_t ctx_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* 100 N NULL calls, then N rounds of the 1 MiB WRITE (+ COMMIT) and READ
 * (compared) steps; one "bench ..." line each, for scripts. */
static int bench(struct probe *p, unsigned n)
{
	struct rpcrdma_clnt_req q = { .size = sizeof(q), .proc = 0, .args_max = 0, .res_max = 512 };
	unsigned calls = 100 * n;
	uint64_t sc = rw_syscalls(), cs = ctx_switches();
	double t = now_s();

	for (unsigned i = 0; i < calls; i++) {
		int rc = rpcrdma_clnt_call(p->c, &q);
		if (rc != 0) {
			fprintf(stderr, "nfs4-probe: bench: NULL: %s\n", strerror(-rc));
			return -1;
		}
	}
	t = now_s() - t;
	printf("bench null calls %u us_per_call %.1f rw_syscalls_per_call %.2f "
	       "ctx_switches_per_call %.2f\n", calls, t * 1e6 / calls,
	       (double)(rw_syscalls() - sc) / calls, (double)(ctx_switches() - cs) / calls);
	double tw = 0, tr = 0;
	for (unsigned i = 0; i < n; i++) {
		t = now_s();
		if (step_write(p))
			return -1;
		tw += now_s() - t;
		t = now_s();
		if (step_read(p))
			return -1;
		tr += now_s() - t;
	}
	printf("bench io bytes %" PRIu64 " write_MBps %.1f read_MBps %.1f\n",
	       (uint64_t)n * DATA_LEN, (double)n * DATA_LEN / 1e6 / tw,
	       (double)n * DATA_LEN / 1e6 / tr);
	return 0;
}

/* ---- main ---------------------------------------------------------------------- */

static const struct option longopts[] = {
	{ "transport", required_argument, NULL, 't' },
	{ "sec", required_argument, NULL, 's' },
	{ "target", required_argument, NULL, 'T' },
	{ "ccache", required_argument, NULL, 'C' },
	{ "keytab", required_argument, NULL, 'K' },
	{ "bench", required_argument, NULL, 'B' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void bad_arg(const char *what, const char *v)
{
	fprintf(stderr, "nfs4-probe: %s: '%s'\n", what, v);
	exit(2);
}

static void parse_opt(struct args *a, int opt, char **argv)
{
	char *end;
	unsigned long n;

	switch (opt) {
	case 't':
		a->transport = optarg;
		break;
	case 's':
		for (a->sec = 0; a->sec < 4 && strcmp(optarg, sec_names[a->sec]); a->sec++)
			;
		if (a->sec == 4)
			bad_arg("--sec must be sys, krb5, krb5i or krb5p", optarg);
		break;
	case 'T':
		a->target = optarg;
		break;
	case 'C':
		a->ccache = optarg;
		break;
	case 'K':
		a->keytab = optarg;
		break;
	case 'B':
		errno = 0;
		n = strtoul(optarg, &end, 10);
		if (errno || *end || n == 0 || n > BENCH_MAX)
			bad_arg("--bench takes a count from 1 to 10000", optarg);
		a->bench = (unsigned)n;
		break;
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("nfs4-probe (librpcrdma %s)\n", rpcrdma_version_string());
		exit(0);
	default:
		fprintf(stderr, "nfs4-probe: %s: '%s'\n", opt == ':' ? "option needs a value"
			: "unknown option", argv[optind - 1]);
		usage(stderr);
		exit(2);
	}
}

/* -h/--help to stdout with 0, -V/--version, a bad argument named: 2. */
static void parse_args(int argc, char **argv, struct args *a)
{
	int opt;

	memset(a, 0, sizeof(*a));
	a->transport = "tcp";
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":t:hV", longopts, NULL)) != -1)
		parse_opt(a, opt, argv);
	if (strcmp(a->transport, "tcp") && strcmp(a->transport, "rdma"))
		bad_arg("transport must be tcp or rdma", a->transport);
	if (argc - optind != 2) {
		fprintf(stderr, "nfs4-probe: HOST[:PORT] PATH expected, %d argument%s given\n",
			argc - optind, argc - optind == 1 ? "" : "s");
		usage(stderr);
		exit(2);
	}
}

static int run(struct probe *p, const struct args *a, const char *path)
{
	int ok = step_session(p);

	if (ok == 0)
		ok = step_lookup(p, path);
	if (ok == 0)
		ok = step_open(p);
	if (ok == 0)
		ok = step_write(p);
	if (ok == 0)
		ok = step_read(p);
	if (ok == 0)
		ok = step_readdir(p);
	if (ok == 0 && a->bench)
		ok = bench(p, a->bench);
	if (ok == 0)
		ok = step_cleanup(p, 0);
	if (ok == 0)
		ok = step_destroy(p, 0);
	if (ok != 0 && p->have_session)
		step_cleanup(p, 1);
	if (ok != 0)
		step_destroy(p, 1);
	return ok;
}

int main(int argc, char **argv)
{
	struct args a;

	parse_args(argc, argv, &a);
	struct probe *p = calloc(1, sizeof(*p));
	if (p == NULL || !(p->data = malloc(DATA_LEN)) || !(p->back = malloc(DATA_LEN))) {
		fprintf(stderr, "nfs4-probe: out of memory\n");
		return 1;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	uint32_t seed = (uint32_t)now.tv_nsec ^ ((uint32_t)getpid() << 16);
	p->maxops = P4_MAX_OPS;
	memcpy(p->verifier, &now.tv_sec, 4);
	memcpy(p->verifier + 4, &seed, 4);
	snprintf(p->owner, sizeof(p->owner), "nfs4-probe.%ld.%08" PRIx32, (long)getpid(), seed);
	snprintf(p->fname, sizeof(p->fname), "nfs4-probe.%ld.%08" PRIx32 ".file",
		 (long)getpid(), seed);
	snprintf(p->dname, sizeof(p->dname), "nfs4-probe.%ld.%08" PRIx32 ".dir",
		 (long)getpid(), seed);
	fill_pattern(p->data, DATA_LEN, seed);

	int ok = -1;
	if (open_client(p, &a, argv[optind]) == 0)
		ok = run(p, &a, argv[optind + 1]);
	if (p->c) {
		print_stats(p);
		rpcrdma_clnt_destroy(p->c);
	}
	printf("nfs4-probe: %s\n", ok == 0 ? "PASS" : "FAIL");
	free(p->data);
	free(p->back);
	free(p);
	return ok == 0 ? 0 : 1;
}
