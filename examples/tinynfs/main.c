/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tinynfs: an NFSv4.1/4.2 server on librpcrdma's service core.
 *
 *   tinynfs -e /etc/tinynfs.exports [-p 2049] [-l ADDR]... [--no-udp]
 *           [--rdma ADDR]... [--rdma-port 20049] [--rdma-poller loop|workqueue]
 *           [--rdma-spin-us N]
 *           [-V "-4.2"] [--rpcbind] [--print-versions] [--stats]
 *           [--keytab FILE]
 *   tinynfs --export "/srv/x rw,no_root_squash" ...
 *
 * Listens on TCP (and UDP, where NFSv4 answers PROG_MISMATCH: it needs
 * congestion control) at every -l address (default 127.0.0.1 and ::1;
 * 0.0.0.0 and :: for any), port -p (default 2049; 0 picks one, then every
 * listener uses the port the first got).  Prints one line per listener,
 * "tinynfs: listening tcp 127.0.0.1 2049", then "tinynfs: ready", on
 * stdout.  Each --rdma address (an IPv6 link-local one with its %ifname
 * scope, e.g. fe80::1%rxed0) gets an RPC-over-RDMA listener on
 * --rdma-port (default 20049, RFC 8267), "tinynfs: listening rdma ...";
 * READ data then goes back through the client's write chunk and WRITE
 * data arrives through read chunks.  With --keytab, calls may also
 * come with RPCSEC_GSS (Kerberos 5: krb5, krb5i, krb5p), accepted with
 * any service key of the keytab (the clients' target is nfs/HOST); an
 * export's sec= option says which flavours it takes.  SIGINT or SIGTERM stops it cleanly (rpcbind entries unset).
 * Exit status: 0 after a signal, 2 bad usage or configuration, 1 other
 * start-up failures.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <net/if.h>

#include <rpcrdma/config.h>
#include <rpcrdma/svc.h>
#include <rpcrdma/version.h>
#ifdef RPCRDMA_HAVE_RDMA
#include <rpcrdma/poller.h>
#include <rpcrdma/xprt.h>
#endif

#include "clientrec.h"
#include "exports.h"
#include "nofile.h"
#include "rpc.h"
#include "server.h"
#include "versions.h"

#define MAX_LISTEN 8

struct config {
	const char *exports_file;
	const char *export_line;
	const char *versions;
	const char *listen[MAX_LISTEN];
	unsigned nlisten;
	unsigned port;
	const char *rdma[MAX_LISTEN];
	unsigned nrdma;
	unsigned rdma_port;
	unsigned rdma_spin_us;
	const char *rdma_poller;
	bool udp, rpcbind, print_versions, stats, inode_handles, no_deleg, no_wdeleg;
	bool keep_nofile;
	unsigned long long nofile; /* the open-file limit at start */
	unsigned recall_timeout;
	unsigned max_calls;
	const char *state_dir;
	unsigned grace;
	const char *keytab;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tinynfs (-e EXPORTS_FILE | --export 'PATH OPTIONS') [options]\n"
		"  -e, --exports FILE     exports file (one export is the NFSv4 root; several\n"
		"                         are served at their paths under a pseudo root)\n"
		"      --export LINE      one exports line instead, e.g. '/srv rw'\n"
		"  -p, --port N           port for TCP and UDP (default 2049; 0: any)\n"
		"  -l, --listen ADDR      IPv4 or IPv6 address, repeatable\n"
		"                         (default 127.0.0.1 and ::1)\n"
		"      --no-udp           no UDP listener\n"
		"      --rdma ADDR        RPC-over-RDMA listener address, repeatable\n"
		"                         (IPv6 link-local: fe80::1%%rxed0)\n"
		"      --rdma-port N      port for RDMA (default 20049; 0: any)\n"
		"      --rdma-poller MODE loop (default): the service loop polls the\n"
		"                         completion queues itself; workqueue: a poller\n"
		"                         thread does and hands calls to the loop\n"
		"      --rdma-spin-us N   workqueue pollers poll on N us after a\n"
		"                         completion before sleeping (default 0; at most\n"
		"                         100000; implies --rdma-poller workqueue)\n"
		"  -V, --versions STR     e.g. '-4.2' or '+4 +4.1 -4.2' (kernel format)\n"
		"      --print-versions   print the enabled versions and exit\n"
		"      --rpcbind          register with rpcbind (unset at exit)\n"
		"      --inode-handles    inode-number file handles (no restart survival)\n"
		"      --max-calls N      calls in progress per connection (default 64)\n"
		"      --state-dir DIR    keep the client record in DIR (created 0700):\n"
		"                         after a restart its clients reclaim their opens\n"
		"                         and locks in a grace period (default: no record,\n"
		"                         no grace period, reclaims refused)\n"
		"      --grace SECONDS    the grace period (default the lease, 90; it ends\n"
		"                         early once every recorded client is back)\n"
		"      --no-delegations   never grant a delegation (they are granted by\n"
		"                         default to clients with a back channel)\n"
		"      --no-write-delegations  read delegations only (an OPEN for\n"
		"                         writing gets none, as from Linux 6.1's nfsd)\n"
		"      --keep-nofile      keep the hard open-file limit (as root it is\n"
		"                         raised to fs.nr_open, the delegations bounded by\n"
		"                         memory, 4 per MiB, as nfsd's)\n"
		"      --recall-timeout S a recalled delegation not returned in S seconds\n"
		"                         is revoked (default: the lease, 90, or the\n"
		"                         kernel's lease-break-time if shorter)\n"
		"      --keytab FILE      serve RPCSEC_GSS (sec=krb5, krb5i, krb5p) with the\n"
		"                         service keys in FILE (e.g. nfs/HOST@REALM)\n"
		"      --stats            print the RPC and delegation counters at exit\n"
		"                         (and on SIGUSR1)\n"
		"  -h, --help\n"
		"      --version          tinynfs's and librpcrdma's version\n");
}

/* A decimal number in [min, max] for option `what`; else -1 with a message. */
static int parse_uint(const char *what, const char *arg, unsigned long min, unsigned long max,
		      unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || v < min || v > max) {
		fprintf(stderr, "tinynfs: bad %s '%s'\n", what, arg);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_port(const char *what, const char *arg, unsigned *out)
{
	return parse_uint(what, arg, 0, 65535, out);
}

/* The long options without a short form. */
enum { O_EXPORT = 256, O_NOUDP, O_PRINTV, O_RPCBIND, O_STATS, O_INODE, O_MAXCALLS,
       O_RDMA, O_RDMAPORT, O_RDMASPIN, O_RDMAPOLLER, O_STATEDIR, O_GRACE, O_NODELEG, O_NOWDELEG,
       O_RECALLTO, O_VERSION, O_KEYTAB, O_KEEPNOFILE };
static const struct option longopts[] = {
	{ "exports", required_argument, NULL, 'e' },
	{ "export", required_argument, NULL, O_EXPORT },
	{ "port", required_argument, NULL, 'p' },
	{ "listen", required_argument, NULL, 'l' },
	{ "no-udp", no_argument, NULL, O_NOUDP },
	{ "rdma", required_argument, NULL, O_RDMA },
	{ "rdma-port", required_argument, NULL, O_RDMAPORT },
	{ "rdma-spin-us", required_argument, NULL, O_RDMASPIN },
	{ "rdma-poller", required_argument, NULL, O_RDMAPOLLER },
	{ "versions", required_argument, NULL, 'V' },
	{ "print-versions", no_argument, NULL, O_PRINTV },
	{ "rpcbind", no_argument, NULL, O_RPCBIND },
	{ "inode-handles", no_argument, NULL, O_INODE },
	{ "max-calls", required_argument, NULL, O_MAXCALLS },
	{ "stats", no_argument, NULL, O_STATS },
	{ "state-dir", required_argument, NULL, O_STATEDIR },
	{ "grace", required_argument, NULL, O_GRACE },
	{ "no-delegations", no_argument, NULL, O_NODELEG },
	{ "no-write-delegations", no_argument, NULL, O_NOWDELEG },
	{ "keep-nofile", no_argument, NULL, O_KEEPNOFILE },
	{ "recall-timeout", required_argument, NULL, O_RECALLTO },
	{ "keytab", required_argument, NULL, O_KEYTAB },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },   /* not a prefix of --versions */
	{ NULL, 0, NULL, 0 },
};

/* Applies option o (getopt_long's answer) with its argument to c: 0, or
 * -1 with a message. */
static int parse_opt(struct config *c, int o, const char *arg)
{
	switch (o) {
	case 'e':
		c->exports_file = arg;
		return 0;
	case O_EXPORT:
		c->export_line = arg;
		return 0;
	case 'p':
		if (parse_port("port", arg, &c->port) != 0)
			return -1;
		return 0;
	case 'l':
		if (c->nlisten == MAX_LISTEN) {
			fprintf(stderr, "tinynfs: at most %d -l addresses\n", MAX_LISTEN);
			return -1;
		}
		c->listen[c->nlisten++] = arg;
		return 0;
	case O_NOUDP:
		c->udp = false;
		return 0;
	case O_RDMA:
		if (c->nrdma == MAX_LISTEN) {
			fprintf(stderr, "tinynfs: at most %d --rdma addresses\n", MAX_LISTEN);
			return -1;
		}
		c->rdma[c->nrdma++] = arg;
		return 0;
	case O_RDMAPORT:
		if (parse_port("--rdma-port", arg, &c->rdma_port) != 0)
			return -1;
		return 0;
	case 'V':
		c->versions = arg;
		return 0;
	case O_PRINTV:
		c->print_versions = true;
		return 0;
	case O_RPCBIND:
		c->rpcbind = true;
		return 0;
	case O_INODE:
		c->inode_handles = true;
		return 0;
	case O_MAXCALLS:
		if (parse_uint("--max-calls", arg, 1, 4096, &c->max_calls) != 0)
			return -1;
		return 0;
	case O_RDMASPIN:
		if (parse_uint("--rdma-spin-us", arg, 0, 100000, &c->rdma_spin_us) != 0)
			return -1;
		return 0;
	case O_RDMAPOLLER:
		if (strcmp(arg, "loop") != 0 && strcmp(arg, "workqueue") != 0) {
			fprintf(stderr, "tinynfs: bad --rdma-poller '%s' (loop or workqueue)\n",
				arg);
			return -1;
		}
		c->rdma_poller = arg;
		return 0;
	case O_STATS:
		c->stats = true;
		return 0;
	case O_NODELEG:
		c->no_deleg = true;
		return 0;
	case O_NOWDELEG:
		c->no_wdeleg = true;
		return 0;
	case O_KEEPNOFILE:
		c->keep_nofile = true;
		return 0;
	case O_RECALLTO:
		if (parse_uint("--recall-timeout", arg, 1, 3600, &c->recall_timeout) != 0)
			return -1;
		return 0;
	case O_STATEDIR:
		c->state_dir = arg;
		return 0;
	case O_KEYTAB:
		c->keytab = arg;
		return 0;
	case O_GRACE:
		if (parse_uint("--grace", arg, 1, 3600, &c->grace) != 0)
			return -1;
		return 0;
	case 'h':
		usage(stdout);
		exit(0);
	case O_VERSION:
		printf("tinynfs (librpcrdma %s)\n", rpcrdma_version_string());
		exit(0);
	default:
		usage(stderr);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->port = 2049;
	c->rdma_port = 20049;
	c->udp = true;
	int o;
	while ((o = getopt_long(argc, argv, "e:p:l:V:h", longopts, NULL)) != -1)
		if (parse_opt(c, o, optarg) != 0)
			return -1;
	if (optind != argc) {
		fprintf(stderr, "tinynfs: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (c->nlisten == 0) {
		c->listen[c->nlisten++] = "127.0.0.1";
		c->listen[c->nlisten++] = "::1";
	}
	return 0;
}

/* Parses an IPv4 or IPv6 literal (IPv6 with an optional %ifname or %index
 * scope) into *ss with the port. */
static int make_addr(const char *arg, unsigned port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char s[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	if (strlen(arg) >= sizeof(s))
		return -EINVAL;
	strcpy(s, arg);
	char *scope = strchr(s, '%');
	if (scope) {
		*scope++ = '\0';
		unsigned idx = if_nametoindex(scope);
		if (!idx) {
			char *e;
			unsigned long v = strtoul(scope, &e, 10);
			if (*scope == '\0' || *e || v == 0 || v > UINT32_MAX)
				return -EINVAL;
			idx = (unsigned)v;
		}
		if (inet_pton(AF_INET6, s, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		in6->sin6_scope_id = idx;
		*len = sizeof(*in6);
		return 0;
	}
	if (inet_pton(AF_INET, s, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

static unsigned port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static int load_exports(const struct config *c, struct tnfs_exports *ex)
{
	char err[256] = "";
	int rc;
	if ((c->exports_file != NULL) == (c->export_line != NULL)) {
		fprintf(stderr, "tinynfs: give exactly one of -e FILE and --export LINE\n");
		return -EINVAL;
	}
	if (c->exports_file) {
		rc = tnfs_exports_load(c->exports_file, ex, err, sizeof(err));
	} else {
		rc = tnfs_exports_parse("--export", c->export_line, strlen(c->export_line), ex,
					err, sizeof(err));
	}
	if (rc == -EINVAL && err[0])
		fprintf(stderr, "tinynfs: %s\n", err);
	else if (rc)
		fprintf(stderr, "tinynfs: %s: %s\n", c->exports_file ? c->exports_file : "--export",
			strerror(-rc));
	return rc;
}

/* Binds every listener; the first one's port is used by the rest when the
 * configured port is 0. */
static int listen_all(struct rpcrdma_svc *svc, const struct config *c)
{
	unsigned port = c->port;
	for (unsigned i = 0; i < c->nlisten; i++) {
		struct sockaddr_storage ss, bound;
		socklen_t len;
		if (make_addr(c->listen[i], port, &ss, &len) != 0) {
			fprintf(stderr, "tinynfs: bad address '%s'\n", c->listen[i]);
			return -EINVAL;
		}
		int rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&ss, len, &bound, NULL);
		if (rc) {
			fprintf(stderr, "tinynfs: tcp %s port %u: %s\n", c->listen[i], port,
				strerror(-rc));
			return rc;
		}
		port = port_of(&bound);
		printf("tinynfs: listening tcp %s %u\n", c->listen[i], port);
		if (!c->udp)
			continue;
		if (make_addr(c->listen[i], port, &ss, &len) != 0)
			return -EINVAL;
		rc = rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&ss, len, &bound, NULL);
		if (rc) {
			fprintf(stderr, "tinynfs: udp %s port %u: %s\n", c->listen[i], port,
				strerror(-rc));
			return rc;
		}
		printf("tinynfs: listening udp %s %u\n", c->listen[i], port_of(&bound));
	}
	return 0;
}

#ifdef RPCRDMA_HAVE_RDMA
/* One RPC-over-RDMA listener per --rdma address, all on one poller. */
static int listen_rdma(struct rpcrdma_svc *svc, const struct config *c,
		       struct rpcrdma_poller **poller, struct rpcrdma_listener **ls)
{
	if (c->nrdma == 0)
		return 0;
	struct rpcrdma_poller_opts po;
	rpcrdma_poller_opts_init(&po);
	po.spin_us = c->rdma_spin_us;
	/* loop: a DIRECT poller, which the service loop polls itself (a call
	 * reaches its handler with no thread hand-off); see
	 * rpcrdma_svc_listen_rdma. */
	const char *mode = c->rdma_poller ? c->rdma_poller : c->rdma_spin_us ? "workqueue" : "loop";
	if (c->rdma_spin_us && strcmp(mode, "loop") == 0) {
		fprintf(stderr, "tinynfs: --rdma-spin-us needs --rdma-poller workqueue\n");
		return -EINVAL;
	}
	if (strcmp(mode, "loop") == 0)
		po.mode = RPCRDMA_POLLER_DIRECT;
	int rc = rpcrdma_poller_create(&po, poller);
	if (rc) {
		fprintf(stderr, "tinynfs: rdma poller: %s\n", strerror(-rc));
		return rc;
	}
	struct rpcrdma_listener_opts lo;
	rpcrdma_listener_opts_init(&lo);
	if (c->max_calls && c->max_calls < lo.max_credits)
		lo.max_credits = c->max_calls;
	/* A WRITE of maxwrite bytes, pulled by RDMA Read, and its header. */
	lo.max_call_bytes = TNFS_RPC_MAX_ARGS + 4096;
	/* Idle clients are let go (Linux nfsd: 6 minutes), and a client past
	 * the cap closes the least recently active one: 32 idle connections
	 * used to lock every new client out (issue 23 item 16). */
	lo.idle_timeout_ms = 360000;
	lo.max_conns = 256;
	unsigned port = c->rdma_port;
	for (unsigned i = 0; i < c->nrdma; i++) {
		struct sockaddr_storage ss, bound;
		socklen_t len;
		if (make_addr(c->rdma[i], port, &ss, &len) != 0) {
			fprintf(stderr, "tinynfs: bad --rdma address '%s'\n", c->rdma[i]);
			return -EINVAL;
		}
		rc = rpcrdma_svc_listen_rdma(svc, *poller, (struct sockaddr *)&ss, &lo, &bound, NULL,
					     &ls[i]);
		if (rc) {
			fprintf(stderr, "tinynfs: rdma %s port %u: %s\n", c->rdma[i], port,
				strerror(-rc));
			return rc;
		}
		port = port_of(&bound);
		printf("tinynfs: listening rdma %s %u\n", c->rdma[i], port);
	}
	return 0;
}

static void print_rdma_stats(struct rpcrdma_listener *const *ls, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct rpcrdma_stats st;
		if (!ls[i])
			continue;
		rpcrdma_listener_stats(ls[i], &st);
		printf("tinynfs: rdma %u:", i);
		for (int k = 0; k < RPCRDMA_STAT_COUNT; k++)
			if (st.v[k])
				printf(" %s %llu", rpcrdma_stat_name((enum rpcrdma_stat)k),
				       (unsigned long long)st.v[k]);
		printf("\n");
	}
}
#else /* librpcrdma built without RDMA: TCP and UDP only */
static int listen_rdma(struct rpcrdma_svc *svc, const struct config *c,
		       struct rpcrdma_poller **poller, struct rpcrdma_listener **ls)
{
	(void)svc;
	(void)poller;
	(void)ls;
	if (c->nrdma == 0)
		return 0;
	fprintf(stderr, "tinynfs: --rdma: librpcrdma was built without RDMA\n");
	return -EOPNOTSUPP;
}

static void print_rdma_stats(struct rpcrdma_listener *const *ls, unsigned n)
{
	(void)ls;
	(void)n;
}

static void rpcrdma_poller_destroy(struct rpcrdma_poller *p)
{
	(void)p;
}
#endif

static void print_deleg_stats(struct tnfs_server *srv)
{
	struct tnfs_deleg_stats d;
	struct tnfs_cb_stats b;
	tnfs_deleg_stats(srv->deleg, &d);
	tnfs_cb_stats(srv->cb, &b);
	printf("tinynfs: deleg_granted %llu, cb_recall %llu, deleg_returned %llu, "
	       "deleg_revoked %llu, lease_breaks %llu, deleg_held %u, cb_null %llu, "
	       "cb_null_ok %llu, cb_errors %llu, deleg_revoked_lapsed %llu, "
	       "deleg_refused_limit %llu, deleg_granted_write %llu, deleg_unleased %u, "
	       "cb_getattr %llu, deleg_recalls_share %llu, lease_scans %llu\n",
	       (unsigned long long)d.granted, (unsigned long long)b.cb_recall,
	       (unsigned long long)d.returned, (unsigned long long)d.revoked,
	       (unsigned long long)d.lease_breaks, d.held, (unsigned long long)b.cb_null,
	       (unsigned long long)b.cb_null_ok, (unsigned long long)b.cb_errors,
	       (unsigned long long)d.revoked_lapsed, (unsigned long long)d.refused_limit,
	       (unsigned long long)d.granted_write, d.unleased, (unsigned long long)b.cb_getattr,
	       (unsigned long long)d.recalls_share, (unsigned long long)d.lease_scans);
	fflush(stdout);
}

static void print_stats(const struct rpcrdma_svc *svc)
{
	struct rpcrdma_svc_stats st;
	rpcrdma_svc_get_stats(svc, &st, sizeof(st));
	printf("tinynfs: calls %llu, success %llu, prog_mismatch %llu, garbage %llu, "
	       "system_err %llu, auth_errors %llu, dropped %llu, estimate_exceeded %llu, "
	       "connections %llu, rdma_loop_calls %llu, rdma_direct %llu, rdma_handed %llu\n",
	       (unsigned long long)st.calls, (unsigned long long)st.replies[0],
	       (unsigned long long)st.replies[2], (unsigned long long)st.replies[4],
	       (unsigned long long)st.replies[5], (unsigned long long)st.auth_errors,
	       (unsigned long long)st.dropped, (unsigned long long)st.estimate_exceeded,
	       (unsigned long long)st.conns_accepted, (unsigned long long)st.rdma_loop_calls,
	       (unsigned long long)st.rdma_direct,
	       (unsigned long long)st.rdma_handed);
}

/* The versions of c (-V) into *vers, printed into vbuf: -1 to go on,
 * else the status to exit with (--print-versions, or a bad string). */
static int versions_setup(const struct config *c, struct tnfs_versions *vers, char *vbuf,
			  size_t vlen)
{
	tnfs_versions_default(vers);
	if (c->versions && tnfs_versions_parse(vers, c->versions) != 0) {
		fprintf(stderr, "tinynfs: bad versions string '%s'\n", c->versions);
		return 2;
	}
	if (tnfs_versions_print(vers, vbuf, vlen) < 0)
		return 1;
	if (c->print_versions) {
		printf("%s\n", vbuf);
		return 0;
	}
	if (tnfs_versions_check(vers) != 0 || !vers->major[4]) {
		fprintf(stderr, "tinynfs: versions '%s': this server serves NFSv4.1 and 4.2 only\n",
			vbuf);
		return 2;
	}
	return -1;
}

/* Signals are taken synchronously by the main thread (*sigs: SIGINT,
 * SIGTERM, SIGUSR1); the service thread (created later) inherits the
 * blocked mask. */
static void block_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	sigaddset(sigs, SIGUSR1);
	/* the lease-break signals go to deleg's thread (deleg.h) */
	sigset_t lease;
	sigemptyset(&lease);
	sigaddset(&lease, tnfs_deleg_signal());
	sigaddset(&lease, SIGIO);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
	pthread_sigmask(SIG_BLOCK, &lease, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The NFS server of c over ex, with its state directory: 0, or -1 with
 * a message. */
static int server_setup(const struct config *c, struct tnfs_exports *ex,
			const struct tnfs_versions *vers, struct tnfs_server **srv)
{
	struct tnfs_server_opts so = {
		.size = sizeof(so),
		.exports = ex,
		.versions = vers,
		.inode_handles = c->inode_handles,
		.no_delegations = c->no_deleg,
	};
	int rc = tnfs_server_new(&so, srv);
	if (rc) {
		if (ex->n == 1)
			fprintf(stderr, "tinynfs: export %s: %s\n", ex->v[0].path, strerror(-rc));
		else
			fprintf(stderr, "tinynfs: exports: %s\n", rc == -EEXIST ?
				"two paths with the same handle id (rename one)" : strerror(-rc));
		return -1;
	}
	if (c->state_dir && (rc = tnfs_state_set_grace((*srv)->state, c->state_dir,
						       c->grace ? c->grace : TNFS_LEASE_TIME))) {
		fprintf(stderr, "tinynfs: --state-dir %s: %s%s\n", c->state_dir, strerror(-rc),
			rc == -EBUSY ? " (another tinynfs uses it)" :
			rc == -EINVAL || rc == -E2BIG || rc == -EFBIG ?
			" (a corrupt record " TNFS_CLIENTREC_FILE ": remove it to start without"
			" reclaims)" : "");
		return -1;
	}
	return 0;
}

/* RPCSEC_GSS with c->keytab; without one, a warning for each export
 * that takes only Kerberos flavours: 0, or -1 with a message. */
static int gss_setup(const struct config *c, const struct tnfs_server *srv,
		     struct rpcrdma_svc *svc)
{
	if (!c->keytab) {
		for (size_t i = 0; i < srv->nexp; i++) {
			const struct tnfs_export *x = srv->exps[i];
			bool any = x->nsec == 0;
			for (unsigned k = 0; k < x->nsec; k++)
				any |= x->sec[k] < TNFS_SEC_KRB5;
			if (!any)
				fprintf(stderr, "tinynfs: warning: %s takes only Kerberos "
					"(sec=) and there is no --keytab: no client can use it\n",
					x->path);
		}
		return 0;
	}
	int rc = tnfs_rpc_set_gss(svc, c->keytab);
	if (rc) {
		fprintf(stderr, "tinynfs: --keytab %s: %s\n", c->keytab,
			rc == -ENOKEY ? "no usable service key (klist -k)" :
			rc == -ENOTSUP ? "librpcrdma was built without GSS-API" : strerror(-rc));
		return -1;
	}
	printf("tinynfs: RPCSEC_GSS (krb5, krb5i, krb5p) with the keys of %s\n", c->keytab);
	return 0;
}

/* The RPC service of srv, its listeners (TCP, UDP, RDMA), rpcbind, the
 * callbacks, started: 0, or -1 with a message.  *svc and *poller are set
 * as they are made, for the caller to destroy. */
static int service_setup(const struct config *c, struct tnfs_server *srv,
			 struct rpcrdma_svc **svc, struct rpcrdma_poller **poller,
			 struct rpcrdma_listener **rdma_ls)
{
	struct rpcrdma_svc_opts vo = {
		.size = sizeof(vo),
		.max_calls = c->max_calls,
		/* the largest session request plus the RPC header */
		.max_record = TNFS_RPC_MAX_ARGS + 4096,
		/* Linux nfsd's idle timeout; a connection cap that closes the
		 * oldest idle one, leaving most descriptors for open files */
		.idle_timeout_ms = 6 * 60 * 1000,
		.max_conns = 512,
		/* handlers take the caller's fsuid/fsgid (fs_cred.c) */
		.flags = RPCRDMA_SVC_HANDLERS_SWITCH_CREDS | RPCRDMA_SVC_HANDLERS_TELL_CREDS,
	};
	int rc = rpcrdma_svc_create(&vo, svc);
	if (rc) {
		fprintf(stderr, "tinynfs: service: %s\n", strerror(-rc));
		return -1;
	}
	rc = tnfs_rpc_register(*svc, srv);
	if (rc) {
		fprintf(stderr, "tinynfs: register program: %s\n", strerror(-rc));
		return -1;
	}
	if (gss_setup(c, srv, *svc) != 0)
		return -1;
	if (listen_all(*svc, c) != 0 || listen_rdma(*svc, c, poller, rdma_ls) != 0)
		return -1;
	if (c->rpcbind) {
		rc = rpcrdma_svc_rpcbind_set(*svc, NULL);
		if (rc) {
			fprintf(stderr, "tinynfs: rpcbind: %s\n", strerror(-rc));
			return -1;
		}
		printf("tinynfs: registered with rpcbind\n");
	}
	if (c->recall_timeout)
		tnfs_deleg_set_timeout(srv->deleg, c->recall_timeout);
	if (c->no_wdeleg)
		tnfs_deleg_set_write(srv->deleg, false);
	rc = tnfs_server_start_callbacks(srv);
	if (rc) {
		fprintf(stderr, "tinynfs: delegations: %s\n", strerror(-rc));
		return -1;
	}
	rc = rpcrdma_svc_start(*svc);
	if (rc) {
		fprintf(stderr, "tinynfs: start: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

/* "tinynfs: serving ...", the grace period, "tinynfs: ready". */
static void print_ready(const struct config *c, const struct tnfs_server *srv, const char *vbuf)
{
	printf("tinynfs: serving");
	for (size_t i = 0; i < srv->nexp; i++)
		printf("%s %s (%s)", i ? "," : "", srv->exps[i]->path,
		       (srv->exps[i]->flags & TNFS_EXP_RW) ? "rw" : "ro");
	printf("%s, versions %s\n", srv->pseudo ? " under the pseudo root" : "", vbuf);
	if (c->state_dir && tnfs_state_in_grace(srv->state))
		printf("tinynfs: grace period of %u s: the clients of %s/%s may reclaim\n",
		       c->grace ? c->grace : TNFS_LEASE_TIME, c->state_dir, TNFS_CLIENTREC_FILE);
	if (!c->no_deleg) {
		struct tnfs_deleg_stats d;
		tnfs_deleg_stats(srv->deleg, &d);
		printf("tinynfs: delegations: at most %u, a share of %u per client (an "
		       "eighth of the open-file limit, %llu; 4 per MiB of memory)\n", d.limit,
		       d.limit_per_client, c->nofile);
	}
	printf("tinynfs: ready\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct config c;
	if (parse_args(argc, argv, &c) != 0)
		return 2;

	struct tnfs_versions vers;
	char vbuf[64];
	int status = versions_setup(&c, &vers, vbuf, sizeof(vbuf));
	if (status >= 0)
		return status;

	struct tnfs_exports ex = { 0 };
	if (load_exports(&c, &ex) != 0)
		return 2;

	sigset_t sigs;
	block_signals(&sigs);
	c.nofile = tnfs_raise_nofile(c.keep_nofile);
	status = 1;
	struct tnfs_server *srv = NULL;
	struct rpcrdma_svc *svc = NULL;
	struct rpcrdma_poller *poller = NULL;
	struct rpcrdma_listener *rdma_ls[MAX_LISTEN] = { 0 };
	if (server_setup(&c, &ex, &vers, &srv) != 0) {
		status = 2;
		goto out;
	}
	if (service_setup(&c, srv, &svc, &poller, rdma_ls) != 0)
		goto out;
	print_ready(&c, srv, vbuf);

	int sig = 0;
	while (sigwait(&sigs, &sig) != 0 || sig == SIGUSR1)
		if (sig == SIGUSR1) {
			print_deleg_stats(srv);
			sig = 0;
		}
	printf("tinynfs: %s, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	rpcrdma_svc_stop(svc);
	if (c.stats) {
		print_stats(svc);
		print_rdma_stats(rdma_ls, c.nrdma);
		print_deleg_stats(srv);
	}
	status = 0;
out:
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(poller);
	tnfs_server_free(srv);
	tnfs_exports_free(&ex);
	fflush(stdout);
	return status;
}
