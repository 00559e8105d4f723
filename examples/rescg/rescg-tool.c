/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rescg-tool: reads a limits file (format in <rpcrdma/rescg.h>), builds the
 * groups and prints each group's rdma.max and rdma.current.
 *
 *   rescg-tool check LIMITS
 *       parse the file; print nothing and exit 0 if it is valid, else the
 *       error ("LIMITS: line 3: unknown key 'hca_foo'") and exit 1
 *   rescg-tool show LIMITS
 *       for every group: "[name]", then "rdma.max:" and "rdma.current:"
 *       each followed by the group's file, kernel layout
 *   rescg-tool charge LIMITS GROUP DEVICE RESOURCE N
 *       charge N units of RESOURCE (hca_handle or hca_object) one at a time,
 *       stop at the first refusal, report how many were admitted and print
 *       the group's rdma.current while they are held.  This exercises the
 *       accounting alone; no RDMA device is opened.
 *   rescg-tool serve LIMITS ADDR PORT [--no-srq] [--interval SECONDS]
 *       (built with the RDMA transport) an RDMA echo server (the protocol
 *       of examples/echo: NULL, ECHO, SINK) with one listener per group, in
 *       the file's order, on ports PORT, PORT+1, ... (PORT 0: any), every
 *       connection charged to its listener's group.  Prints "group NAME port
 *       P" per listener, then "listening".  Prints the usage of every group
 *       on SIGUSR1, every SECONDS too when --interval is given, and at exit
 *       (after the listeners are destroyed) as
 *           usage K                  (K = 1, 2, ...; "final" at exit)
 *           [name]
 *           <the group's rdma.current>
 *           end usage K
 *       followed (except at exit) by each listener's connection ids, in
 *       increasing order: "conns K [name]: 2 5".
 *       SIGHUP reads LIMITS again and applies it (limits only change; new
 *       groups get no listener).  SIGINT/SIGTERM stop; then each listener's
 *       non-zero counters ("[name] rejects 1", "[name] rescg_denied 1").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rescg.h>

#ifdef RESCG_TOOL_SERVE
#include <signal.h>
#include <time.h>

#include <rpcrdma/rpcrdma.h>

#include "../echo/echo_proto.h"
#endif

#define FILE_MAX (1u << 20)

static const char *prog = "rescg-tool";

static char *read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(FILE_MAX + 1);
	size_t len = buf ? fread(buf, 1, FILE_MAX + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad || len > FILE_MAX) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			!buf ? "out of memory" : bad ? "read error" : "larger than 1 MiB");
		free(buf);
		return NULL;
	}
	*lenp = len;
	return buf;
}

/* Creates a controller from the limits file at path; NULL after a message. */
static struct rpcrdma_rescg *load(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return NULL;
	struct rpcrdma_rescg *ctl;
	int rc = rpcrdma_rescg_create(&ctl);
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, strerror(-rc));
		free(text);
		return NULL;
	}
	char err[256];
	rc = rpcrdma_rescg_load(ctl, text, len, err, sizeof(err));
	free(text);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, err);
		rpcrdma_rescg_destroy(ctl);
		return NULL;
	}
	return ctl;
}

typedef int (*print_fn)(struct rpcrdma_rescg_group *, char *, size_t);

static int print_file(struct rpcrdma_rescg_group *grp, const char *title, print_fn fn)
{
	int n = fn(grp, NULL, 0);
	if (n < 0)
		return n;
	char *buf = malloc((size_t)n + 1);
	if (!buf)
		return -ENOMEM;
	n = fn(grp, buf, (size_t)n + 1);
	if (n >= 0)
		printf("%s:\n%s", title, buf);
	free(buf);
	return n < 0 ? n : 0;
}

static int show_group(struct rpcrdma_rescg_group *grp)
{
	printf("[%s]\n", rpcrdma_rescg_group_name(grp));
	int rc = print_file(grp, "rdma.max", rpcrdma_rescg_group_print_max);
	if (rc == 0)
		rc = print_file(grp, "rdma.current", rpcrdma_rescg_group_print_current);
	if (rc)
		fprintf(stderr, "%s: %s\n", prog, strerror(-rc));
	return rc;
}

#ifdef RESCG_TOOL_SERVE
/* ---- serve ---- */

static void echo_handle(struct rpcrdma_call *call, void *arg)
{
	unsigned n;
	const struct iovec *in = rpcrdma_call_payload(call, &n);
	uint8_t hdr[28], pad[4];
	struct iovec iov[3];
	struct rpcrdma_reply r = { .size = sizeof(r), .iov = iov };
	int cnt;

	(void)arg;
	/* A call pulled by RDMA Read or carried inline is one iovec. */
	cnt = n == 1 ? echo_answer(in[0].iov_base, in[0].iov_len, hdr, pad, iov, &r.bulk_offset,
				   &r.bulk_length, NULL) : -1;
	if (cnt < 0) {
		rpcrdma_call_drop(call);
		return;
	}
	r.iovcnt = (unsigned)cnt;
	rpcrdma_call_reply(call, &r);
}

static void print_id(uint64_t id, uint32_t credits, const struct rpcrdma_stats *st, void *arg)
{
	(void)credits;
	(void)st;
	(void)arg;
	printf(" %llu", (unsigned long long)id);
}

/* Every group's rdma.current, framed (see the usage at the top), then the
 * connection ids of the nls listeners (one per group, in order). */
static int print_usage(struct rpcrdma_rescg *ctl, const char *tag, struct rpcrdma_listener **ls,
		       size_t nls)
{
	int rc = 0;

	printf("usage %s\n", tag);
	for (struct rpcrdma_rescg_group *g = NULL; rc == 0 && (g = rpcrdma_rescg_group_next(ctl, g));) {
		printf("[%s]\n", rpcrdma_rescg_group_name(g));
		int n = rpcrdma_rescg_group_print_current(g, NULL, 0);
		char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;

		if (!buf) {
			rc = n < 0 ? n : -ENOMEM;
			break;
		}
		rpcrdma_rescg_group_print_current(g, buf, (size_t)n + 1);
		fputs(buf, stdout);
		free(buf);
	}
	printf("end usage %s\n", tag);
	struct rpcrdma_rescg_group *g = NULL;

	for (size_t i = 0; i < nls && (g = rpcrdma_rescg_group_next(ctl, g)); i++) {
		printf("conns %s [%s]:", tag, rpcrdma_rescg_group_name(g));
		rpcrdma_listener_foreach_conn(ls[i], print_id, NULL);
		printf("\n");
	}
	fflush(stdout);
	return rc;
}

static void reload(struct rpcrdma_rescg *ctl, const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	char err[256];

	if (!text)
		return;
	int rc = rpcrdma_rescg_load(ctl, text, len, err, sizeof(err));
	free(text);
	if (rc)
		fprintf(stderr, "%s: %s: %s (limits unchanged)\n", prog, path, err);
	else
		printf("reloaded %s\n", path);
	fflush(stdout);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return (errno || end == s || *end || s[0] == '-' || *out > max) ? -1 : 0;
}

/* One listener per group of ctl on ss (ports from `port` up, or any with
 * port 0) into ls[*nls]: 0, or -1 with a message. */
static int serve_listen(struct rpcrdma_poller *p, struct rpcrdma_rescg *ctl,
			struct sockaddr_storage *ss, unsigned long port,
			struct rpcrdma_listener_opts *lopts, struct rpcrdma_listener **ls,
			size_t *nls)
{
	for (struct rpcrdma_rescg_group *g = NULL; (g = rpcrdma_rescg_group_next(ctl, g)); (*nls)++) {
		uint16_t pn = port ? (uint16_t)(port + *nls) : 0;

		if (port && port + *nls > 65535) {
			fprintf(stderr, "%s: too many groups for port %lu\n", prog, port);
			return -1;
		}
		if (ss->ss_family == AF_INET)
			((struct sockaddr_in *)ss)->sin_port = htons(pn);
		else
			((struct sockaddr_in6 *)ss)->sin6_port = htons(pn);
		lopts->resource_group = g;
		int err = rpcrdma_listener_create(p, (struct sockaddr *)ss, lopts, echo_handle, NULL,
						  &ls[*nls]);
		if (err) {
			fprintf(stderr, "%s: [%s]: listen: %s\n", prog, rpcrdma_rescg_group_name(g),
				strerror(-err));
			return -1;
		}
		printf("group %s port %d\n", rpcrdma_rescg_group_name(g),
		       rpcrdma_listener_port(ls[*nls]));
	}
	return 0;
}

/* Until SIGINT or SIGTERM: the usage of every group at each SIGUSR1 and
 * every `interval` seconds (0: never), the limits of `path` reloaded at
 * SIGHUP. */
static void serve_wait(struct rpcrdma_rescg *ctl, const char *path, const sigset_t *set,
		       unsigned long interval, struct rpcrdma_listener **ls, size_t nls)
{
	struct timespec next;
	int sig;

	clock_gettime(CLOCK_MONOTONIC, &next);
	next.tv_sec += (time_t)interval;
	for (unsigned long k = 1;;) {
		char tag[32];

		if (interval) {
			/* Wait until the next period's start, whatever signals came. */
			struct timespec now, ts;

			clock_gettime(CLOCK_MONOTONIC, &now);
			ts.tv_sec = next.tv_sec - now.tv_sec;
			ts.tv_nsec = next.tv_nsec - now.tv_nsec;
			if (ts.tv_nsec < 0) {
				ts.tv_nsec += 1000000000L;
				ts.tv_sec--;
			}
			if (ts.tv_sec < 0)
				ts.tv_sec = ts.tv_nsec = 0;
			sig = sigtimedwait(set, NULL, &ts);
			if (sig < 0 && errno == EINTR)
				continue;
			if (sig < 0 && errno != EAGAIN)
				break;
			if (sig < 0)
				next.tv_sec += (time_t)interval;   /* the period is over */
		} else if (sigwait(set, &sig)) {
			break;
		}
		if (sig == SIGINT || sig == SIGTERM)
			break;
		if (sig == SIGHUP) {
			reload(ctl, path);
			continue;
		}
		snprintf(tag, sizeof(tag), "%lu", k++);
		print_usage(ctl, tag, ls, nls);
	}
}

/* Each group's listener in order: stop it, print its counters, free it;
 * its charges are returned once it is destroyed. */
static void serve_close(struct rpcrdma_rescg *ctl, struct rpcrdma_listener **ls, size_t nls)
{
	struct rpcrdma_rescg_group *g = NULL;

	for (size_t i = 0; i < nls; i++) {
		struct rpcrdma_stats st;

		g = rpcrdma_rescg_group_next(ctl, g);
		rpcrdma_listener_shutdown(ls[i]);
		rpcrdma_listener_stats(ls[i], &st);
		for (int s = 0; s < RPCRDMA_STAT_COUNT; s++)
			if (st.v[s])
				printf("[%s] %s %llu\n", rpcrdma_rescg_group_name(g),
				       rpcrdma_stat_name((enum rpcrdma_stat)s),
				       (unsigned long long)st.v[s]);
		rpcrdma_listener_destroy(ls[i]);
	}
}

static int cmd_serve(int argc, char **argv)
{
	struct rpcrdma_listener_opts lopts;
	unsigned long port, interval = 0;
	struct sockaddr_storage ss;
	struct rpcrdma_poller *p = NULL;
	struct rpcrdma_listener **ls = NULL;
	size_t nls = 0;
	int status = 1;
	sigset_t set;

	if (argc < 3 || parse_uint(argv[2], 65535, &port)) {
		fprintf(stderr, "%s: serve LIMITS ADDR PORT [--no-srq] [--interval SECONDS]\n", prog);
		return 2;
	}
	rpcrdma_listener_opts_init(&lopts);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--no-srq")) {
			lopts.use_srq = 0;
		} else if (!strcmp(argv[i], "--interval") && i + 1 < argc &&
			   !parse_uint(argv[i + 1], 86400, &interval) && interval > 0) {
			i++;
		} else {
			fprintf(stderr, "%s: serve: bad option %s\n", prog, argv[i]);
			return 2;
		}
	}
	if (echo_addr(argv[1], "0", &ss))
		return 2;
	struct rpcrdma_rescg *ctl = load(argv[0]);
	if (!ctl)
		return 1;
	size_t ngroups = 0;
	for (struct rpcrdma_rescg_group *g = NULL; (g = rpcrdma_rescg_group_next(ctl, g));)
		ngroups++;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);   /* before the poller's threads */
	int err = rpcrdma_poller_create(NULL, &p);
	ls = calloc(ngroups ? ngroups : 1, sizeof(*ls));
	if (err || !ls) {
		fprintf(stderr, "%s: poller: %s\n", prog, strerror(err ? -err : ENOMEM));
		goto out;
	}
	if (serve_listen(p, ctl, &ss, port, &lopts, ls, &nls) != 0)
		goto out;
	printf("listening\n");
	fflush(stdout);
	serve_wait(ctl, argv[0], &set, interval, ls, nls);
	status = 0;
out:
	serve_close(ctl, ls, nls);
	free(ls);
	rpcrdma_poller_destroy(p);
	if (print_usage(ctl, "final", NULL, 0))
		status = 1;
	rpcrdma_rescg_destroy(ctl);
	return status;
}
#endif

static int cmd_check(int argc, char **argv)
{
	(void)argc;
	struct rpcrdma_rescg *ctl = load(argv[0]);
	rpcrdma_rescg_destroy(ctl);
	return ctl ? 0 : 1;
}

static int cmd_show(int argc, char **argv)
{
	(void)argc;
	struct rpcrdma_rescg *ctl = load(argv[0]);
	if (!ctl)
		return 1;
	int rc = 0;
	for (struct rpcrdma_rescg_group *g = NULL; rc == 0 && (g = rpcrdma_rescg_group_next(ctl, g));)
		rc = show_group(g);
	rpcrdma_rescg_destroy(ctl);
	return rc ? 1 : 0;
}

static int cmd_charge(int argc, char **argv)
{
	(void)argc;
	enum rpcrdma_rescg_resource res;
	if (strcmp(argv[3], "hca_handle") == 0) {
		res = RPCRDMA_RES_HCA_HANDLE;
	} else if (strcmp(argv[3], "hca_object") == 0) {
		res = RPCRDMA_RES_HCA_OBJECT;
	} else {
		fprintf(stderr, "%s: resource must be hca_handle or hca_object\n", prog);
		return 2;
	}
	char *end;
	errno = 0;
	unsigned long n = strtoul(argv[4], &end, 10);
	if (errno || end == argv[4] || *end || argv[4][0] == '-' || n > 1000000) {
		fprintf(stderr, "%s: N must be a number from 0 to 1000000\n", prog);
		return 2;
	}
	struct rpcrdma_rescg *ctl = load(argv[0]);
	if (!ctl)
		return 1;
	int status = 1;
	struct rpcrdma_rescg_charge **held = calloc(n ? n : 1, sizeof(*held));
	struct rpcrdma_rescg_group *grp = rpcrdma_rescg_group_find(ctl, argv[1]);
	if (!held || !grp) {
		fprintf(stderr, "%s: %s\n", prog, held ? "no such group" : "out of memory");
		goto out;
	}
	unsigned long got = 0;
	int rc = 0;
	while (got < n && (rc = rpcrdma_rescg_charge(grp, argv[2], res, 1, &held[got])) == 0)
		got++;
	printf("charged %lu of %lu %s on %s to [%s]", got, n, argv[3], argv[2], argv[1]);
	if (got < n)
		printf(": refused, %s", rc == -EAGAIN ? "over the limit" : strerror(-rc));
	printf("\n");
	if (show_group(grp) == 0)
		status = (rc == 0 || rc == -EAGAIN) ? 0 : 1;
	while (got > 0)
		rpcrdma_rescg_uncharge(held[--got]);
out:
	free(held);
	rpcrdma_rescg_destroy(ctl);
	return status;
}

static const struct command {
	const char *name;
	int nargs;              /* required arguments */
	int options;            /* 1: options may follow */
	const char *args;
	int (*run)(int argc, char **argv);
} commands[] = {
	{"check", 1, 0, "LIMITS", cmd_check},
	{"show", 1, 0, "LIMITS", cmd_show},
	{"charge", 5, 0, "LIMITS GROUP DEVICE hca_handle|hca_object N", cmd_charge},
#ifdef RESCG_TOOL_SERVE
	{"serve", 3, 1, "LIMITS ADDR PORT [--no-srq] [--interval SECONDS]", cmd_serve},
#endif
};

static int usage(void)
{
	fprintf(stderr, "usage:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, "  %s %s %s\n", prog, commands[i].name, commands[i].args);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *c = &commands[i];
		if (strcmp(argv[1], c->name) != 0)
			continue;
		if (argc - 2 < c->nargs || (!c->options && argc - 2 != c->nargs))
			return usage();
		return c->run(argc - 2, argv + 2);
	}
	return usage();
}
