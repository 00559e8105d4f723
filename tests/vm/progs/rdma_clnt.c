/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-clnt both|both-embedded|both-block|serve|serve-rpcbind ADDR PORT
 *
 * The RPC client (<rpcrdma/clnt.h>) over RPC-over-RDMA against the
 * library's own RDMA server (rpcrdma_svc_listen_rdma) serving the client
 * test program (tests/unit/clnt_testprog.h).
 *   serve: serves it on ADDR PORT, prints "listening", runs until SIGTERM,
 *          then prints the listener's counters.
 *   serve-rpcbind: as serve, also on TCP and UDP 127.0.0.1 (any port), and
 *          registered with the host's rpcbind (every endpoint).
 *   both:  serves it and runs the client against it in one process:
 *          inline calls, AUTH_SYS, a 1 MiB argument by read chunk and result
 *          by write chunk, a 200 KB result by reply chunk, a large call by
 *          position-zero read chunk, 64 asynchronous calls, a timeout and
 *          the reconnect after it; each step checks the client's counters
 *          (calls_read_chunk, replies_write_chunk, replies_reply_chunk, ...).
 *          Prints the counters as "name value" lines, then "PASS".  The
 *          server runs its own loop thread (rpcrdma_svc_start) on a
 *          workqueue poller of two threads, which run every call
 *          themselves (docs/threading.md): its counters must show each
 *          call run by a poller thread (rdma_poller_calls), or handed to
 *          the loop thread only because another was running a handler
 *          then (rdma_queued_busy).
 *   both-embedded: the same with the loop run by a thread of this program
 *          (rpcrdma_svc_poll): every call is handed to it
 *          (rdma_queued_embedded).
 *   both-block: the same with RPCRDMA_SVC_HANDLERS_BLOCK: every call is
 *          handed to the loop thread (rdma_queued_block).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/svc.h>
#include <rpcrdma/xprt.h>

#include "clnt_testprog.h"

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			exit(1);                                             \
		}                                                            \
	} while (0)

static struct sockaddr_storage addr;
static socklen_t addrlen;

enum loop_mode { LOOP_OWN, LOOP_EMBEDDED, LOOP_BLOCK };
static enum loop_mode mode;
static atomic_bool loop_stop;

/* The program's own loop thread (both-embedded). */
static void *embedded_loop(void *arg)
{
	while (!atomic_load(&loop_stop))
		rpcrdma_svc_poll(arg, 50);
	return NULL;
}

static void svc_log(void *arg, const struct rpcrdma_log_record *r)
{
	(void)arg;
	fprintf(stderr, "svc: %s %s: %s (%d)\n", rpcrdma_log_event_str(r->event), r->netid,
		r->reason, r->err);
}

/* RDMA on addr; with sockets, TCP and UDP on 127.0.0.1 too and the
 * endpoints registered with rpcbind. */
static pthread_t loop;

static struct rpcrdma_svc *serve(struct rpcrdma_poller **poller, struct rpcrdma_listener **l,
				 bool sockets)
{
	struct rpcrdma_svc *svc;
	int err;

	CHECK(rpcrdma_poller_create(NULL, poller) == 0, "poller");
	struct rpcrdma_svc_opts so;
	rpcrdma_svc_opts_init(&so);
	so.log_fn = svc_log;
	if (mode == LOOP_BLOCK)
		so.flags = RPCRDMA_SVC_HANDLERS_BLOCK;
	CHECK(rpcrdma_svc_create(&so, &svc) == 0, "svc");
	CHECK(rpcrdma_svc_register(svc, &ct_program) == 0, "register");
	err = rpcrdma_svc_listen_rdma(svc, *poller, (struct sockaddr *)&addr, NULL, NULL, NULL, l);
	CHECK(err == 0, "listen_rdma: %s", strerror(-err));
	if (sockets) {
		struct sockaddr_in lo = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		CHECK(rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&lo, sizeof(lo), NULL, NULL) == 0,
		      "listen tcp");
		CHECK(rpcrdma_svc_listen_udp(svc, (struct sockaddr *)&lo, sizeof(lo), NULL, NULL) == 0,
		      "listen udp");
		err = rpcrdma_svc_rpcbind_set(svc, NULL);
		CHECK(err == 0, "rpcbind_set: %s", strerror(-err));
	}
	if (mode == LOOP_EMBEDDED)
		CHECK(pthread_create(&loop, NULL, embedded_loop, svc) == 0, "loop thread");
	else
		CHECK(rpcrdma_svc_start(svc) == 0, "start");
	return svc;
}

static void print_stats(const char *who, const struct rpcrdma_stats *st)
{
	for (int i = 0; i < RPCRDMA_STAT_COUNT; i++)
		if (st->v[i])
			printf("%s %s %llu\n", who, rpcrdma_stat_name((enum rpcrdma_stat)i),
			       (unsigned long long)st->v[i]);
}

static uint64_t stat(struct rpcrdma_clnt *c, enum rpcrdma_stat s)
{
	struct rpcrdma_stats st;

	rpcrdma_clnt_stats(c, &st);
	return st.v[s];
}

/* The RDMA client counts a reply after its callback: a counter may lag
 * the call's return by a moment.  Waits (liveness bound: 20 s) until it
 * reaches want, then returns it (more than want is a failure too). */
static uint64_t stat_at(struct rpcrdma_clnt *c, enum rpcrdma_stat s, uint64_t want)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 2000 && stat(c, s) < want; i++)
		nanosleep(&ts, NULL);
	return stat(c, s);
}

static void req_init(struct rpcrdma_clnt_req *r, uint32_t proc)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->proc = proc;
	r->res_max = 1024;
	r->timeout_ms = 60000;
}

struct bulk_res {
	const void *p;
	uint32_t len;
	int same;        /* the data equals the argument */
	const uint8_t *want;
};

static int enc_bulk(struct rpcrdma_xdr_enc *e, const void *a)
{
	const struct ct_blob *b = a;

	return rpcrdma_clnt_put_bulk(e, b->p, b->len);
}

static int enc_plain(struct rpcrdma_xdr_enc *e, const void *a)
{
	const struct ct_blob *b = a;

	return rpcrdma_xdr_put_opaque(e, b->p, b->len);
}

static int dec_bulk(struct rpcrdma_xdr_dec *d, void *r)
{
	struct bulk_res *res = r;
	int err = rpcrdma_clnt_get_bulk(d, &res->p, &res->len, CT_BULK_MAX);

	if (!err)
		res->same = res->p && !memcmp(res->p, res->want, res->len);
	return err;
}

static int dec_sized(struct rpcrdma_xdr_dec *d, void *r)
{
	uint32_t *n = r, len;
	const void *p;

	if (rpcrdma_xdr_get_u32(d, &len) || len != *n)
		return -EBADMSG;
	struct rpcrdma_xdr_dec save = *d;
	if (rpcrdma_xdr_get_fixed_ref(d, &p, len)) {
		*d = save;
		return -EBADMSG;
	}
	for (uint32_t i = 0; i < len; i++)
		if (((const uint8_t *)p)[i] != (uint8_t)i)
			return -EBADMSG;
	return 0;
}

static int dec_who(struct rpcrdma_xdr_dec *d, void *r)
{
	struct ct_who *w = r;

	return rpcrdma_xdr_get_u32(d, &w->flavor) || rpcrdma_xdr_get_u32(d, &w->uid) ||
	       rpcrdma_xdr_get_u32(d, &w->gid) || rpcrdma_xdr_get_u32(d, &w->ngids) ||
	       rpcrdma_xdr_get_string(d, w->name, sizeof(w->name), 255);
}

/* BULK of len bytes: by put_bulk (read chunk) or plain; result by write
 * chunk when offered. */
static void bulk_call(struct rpcrdma_clnt *c, uint32_t len, bool mark, bool offer)
{
	uint8_t *data = malloc(len ? len : 1), *got = malloc(len ? len : 1);
	struct ct_blob arg = { .p = data, .len = len };
	struct bulk_res res = { .want = data };
	struct rpcrdma_clnt_req r;
	int err;

	for (uint32_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 13 + 5);
	req_init(&r, CT_BULK);
	r.encode = mark ? enc_bulk : enc_plain;
	r.args = &arg;
	r.args_max = 8 + len;
	r.decode = dec_bulk;
	r.res = &res;
	r.res_max = offer ? 1024 : 1024 + len;
	r.res_bulk = offer ? got : NULL;
	r.res_bulk_len = offer ? len : 0;
	err = rpcrdma_clnt_call(c, &r);
	CHECK(err == 0, "bulk %u mark %d offer %d: %s", len, mark, offer, strerror(-err));
	CHECK(res.len == len && res.same, "bulk %u: result differs", len);
	free(data);
	free(got);
}

static int enc_u32(struct rpcrdma_xdr_enc *e, const void *a)
{
	return rpcrdma_xdr_put_u32(e, *(const uint32_t *)a);
}

static void null_call(struct rpcrdma_clnt *c)
{
	struct rpcrdma_clnt_req r;
	int err;

	req_init(&r, CT_NULL);
	err = rpcrdma_clnt_call(c, &r);
	CHECK(err == 0, "NULL: %s", strerror(-err));
}

struct waiter {
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned done, ok;
};

static void async_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct waiter *w = arg;

	(void)req;
	pthread_mutex_lock(&w->m);
	w->done++;
	w->ok += status == 0;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->m);
}

static void client_checks(void)
{
	struct rpcrdma_clnt_opts o;
	struct rpcrdma_clnt *c;
	struct rpcrdma_clnt_req r;
	struct ct_who who;
	uint64_t n;
	int err;

	rpcrdma_clnt_opts_init(&o);
	o.max_credits = 16;
	err = rpcrdma_clnt_create(addr.ss_family == AF_INET6 ? "rdma6" : "rdma",
				  (struct sockaddr *)&addr, addrlen, CT_PROG, CT_VERS, &o, &c);
	CHECK(err == 0, "create: %s", strerror(-err));
	CHECK(!strcmp(rpcrdma_clnt_netid(c), addr.ss_family == AF_INET6 ? "rdma6" : "rdma"), "netid");

	/* inline */
	for (int i = 0; i < 3; i++)
		null_call(c);
	CHECK(stat_at(c, RPCRDMA_STAT_REPLIES_INLINE, 3) == 3, "replies_inline %llu",
	      (unsigned long long)stat(c, RPCRDMA_STAT_REPLIES_INLINE));
	printf("step inline: ok\n");

	/* AUTH_SYS */
	uint32_t gids[2] = { 5, 6 };
	CHECK(rpcrdma_clnt_set_auth_sys(c, "vm", 1234, 55, 2, gids) == 0, "auth_sys");
	req_init(&r, CT_WHOAMI);
	r.decode = dec_who;
	r.res = &who;
	CHECK(rpcrdma_clnt_call(c, &r) == 0, "whoami");
	CHECK(who.flavor == 1 && who.uid == 1234 && who.gid == 55 && who.ngids == 2 &&
	      !strcmp(who.name, "vm"), "whoami %u %u", who.flavor, who.uid);
	rpcrdma_clnt_set_auth_none(c);
	printf("step auth_sys: ok\n");

	/* 1 MiB argument by read chunk, result by write chunk */
	n = stat(c, RPCRDMA_STAT_CALLS_READ);
	bulk_call(c, 1u << 20, true, true);
	CHECK(stat(c, RPCRDMA_STAT_CALLS_READ) == n + 1, "calls_read_chunk");
	CHECK(stat_at(c, RPCRDMA_STAT_REPLIES_WRITE, 1) == 1, "replies_write_chunk %llu",
	      (unsigned long long)stat(c, RPCRDMA_STAT_REPLIES_WRITE));
	printf("step read chunk + write chunk (1 MiB): ok\n");

	/* a small bulk item goes inline (no chunk needed), still right */
	bulk_call(c, 100, true, true);
	/* a large call without a marked item: position-zero read chunk;
	 * its result, not offered a write chunk, comes by reply chunk */
	n = stat(c, RPCRDMA_STAT_CALLS_READ);
	uint64_t rch = stat(c, RPCRDMA_STAT_REPLIES_RCHUNK);
	bulk_call(c, 100000, false, false);
	CHECK(stat(c, RPCRDMA_STAT_CALLS_READ) == n + 1, "calls_read_chunk (pos0)");
	CHECK(stat_at(c, RPCRDMA_STAT_REPLIES_RCHUNK, rch + 1) == rch + 1,
	      "replies_reply_chunk (pos0)");
	printf("step position-zero read chunk (100000 B): ok\n");

	/* reply chunk */
	uint32_t size = 200000;
	rch = stat(c, RPCRDMA_STAT_REPLIES_RCHUNK);
	req_init(&r, CT_SIZED);
	r.encode = enc_u32;
	r.args = &size;
	r.args_max = 4;
	r.decode = dec_sized;
	r.res = &size;
	r.res_max = 1024 + size;
	err = rpcrdma_clnt_call(c, &r);
	CHECK(err == 0, "sized: %s", strerror(-err));
	CHECK(stat_at(c, RPCRDMA_STAT_REPLIES_RCHUNK, rch + 1) == rch + 1, "replies_reply_chunk");
	printf("step reply chunk (200000 B): ok\n");

	/* asynchronous calls, more than the credits */
	struct waiter w = { .done = 0 };
	struct rpcrdma_clnt_req ra[64];
	pthread_mutex_init(&w.m, NULL);
	pthread_cond_init(&w.cv, NULL);
	for (int i = 0; i < 64; i++) {
		req_init(&ra[i], CT_NULL);
		CHECK(rpcrdma_clnt_call_async(c, &ra[i], async_done, &w) == 0, "async");
	}
	pthread_mutex_lock(&w.m);
	while (w.done < 64)
		pthread_cond_wait(&w.cv, &w.m);
	pthread_mutex_unlock(&w.m);
	CHECK(w.ok == 64, "async ok %u", w.ok);
	printf("step 64 async calls: ok\n");

	/* a timeout breaks the connection; the next call reconnects */
	req_init(&r, CT_DROP);
	r.timeout_ms = 1000;
	err = rpcrdma_clnt_call(c, &r);
	CHECK(err == -ETIMEDOUT, "drop: %s", strerror(-err));
	null_call(c);
	CHECK(stat(c, RPCRDMA_STAT_TIMEOUTS) == 1, "timeouts");
	CHECK(stat(c, RPCRDMA_STAT_RECONNECTS) >= 1, "reconnects");
	bulk_call(c, 300000, true, true);
	printf("step timeout and reconnect: ok\n");

	struct rpcrdma_stats st;
	rpcrdma_clnt_stats(c, &st);
	print_stats("client", &st);
	rpcrdma_clnt_destroy(c);
}

/* Which thread ran the calls (every call of client_checks reaches a
 * handler, and comes over RDMA). */
static void check_threads(const struct rpcrdma_svc_stats *ss)
{
	uint64_t calls = ss->calls, own = ss->rdma_poller_calls, busy = ss->rdma_queued_busy;

	printf("svc rdma_poller_calls %llu rdma_queued_busy %llu rdma_queued_embedded %llu "
	       "rdma_queued_block %llu rdma_queued_creds %llu rdma_loop_calls %llu\n",
	       (unsigned long long)own, (unsigned long long)busy,
	       (unsigned long long)ss->rdma_queued_embedded,
	       (unsigned long long)ss->rdma_queued_block,
	       (unsigned long long)ss->rdma_queued_creds, (unsigned long long)ss->rdma_loop_calls);
	CHECK(calls > 64 && ss->rdma_queued_creds == 0 && ss->rdma_loop_calls == 0, "calls");
	if (mode == LOOP_OWN)
		CHECK(own > 0 && own + busy == calls && ss->rdma_queued_embedded == 0 &&
		      ss->rdma_queued_block == 0, "calls run by the poller's threads");
	else if (mode == LOOP_EMBEDDED)
		CHECK(own == 0 && busy == 0 && ss->rdma_queued_embedded == calls &&
		      ss->rdma_queued_block == 0, "calls handed to the program's loop");
	else
		CHECK(own == 0 && busy == 0 && ss->rdma_queued_embedded == 0 &&
		      ss->rdma_queued_block == calls, "calls handed to the loop (block)");
}

int main(int argc, char **argv)
{
	struct rpcrdma_poller *poller;
	struct rpcrdma_listener *l;
	struct rpcrdma_svc *svc;
	struct rpcrdma_stats st;
	char text[128];
	sigset_t set;
	int sig;

	bool both = !strncmp(argv[1], "both", 4);

	if (argc != 4 || (strcmp(argv[1], "both") && strcmp(argv[1], "both-embedded") &&
			  strcmp(argv[1], "both-block") && strcmp(argv[1], "serve") &&
			  strcmp(argv[1], "serve-rpcbind"))) {
		fprintf(stderr, "usage: rdma-clnt both|both-embedded|both-block|serve|"
			"serve-rpcbind ADDR PORT\n");
		return 2;
	}
	mode = !strcmp(argv[1], "both-embedded") ? LOOP_EMBEDDED :
	       !strcmp(argv[1], "both-block") ? LOOP_BLOCK : LOOP_OWN;
	snprintf(text, sizeof(text), strchr(argv[2], ':') ? "[%s]:%s" : "%s:%s", argv[2],
		 argv[3]);
	CHECK(rpcrdma_clnt_parse_addr(text, &addr, &addrlen) == 0, "address %s", text);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	svc = serve(&poller, &l, !strcmp(argv[1], "serve-rpcbind"));
	printf("listening\n");
	fflush(stdout);
	if (both)
		client_checks();
	else
		sigwait(&set, &sig);
	if (mode == LOOP_EMBEDDED) {
		atomic_store(&loop_stop, true);
		pthread_join(loop, NULL);
	}
	rpcrdma_listener_stats(l, &st);
	print_stats("server", &st);
	struct rpcrdma_svc_stats ss;
	rpcrdma_svc_get_stats(svc, &ss, sizeof(ss));
	printf("svc calls %llu dropped %llu busy %llu success %llu\n",
	       (unsigned long long)ss.calls, (unsigned long long)ss.dropped,
	       (unsigned long long)ss.busy, (unsigned long long)ss.replies[0]);
	if (both)
		check_threads(&ss);
	rpcrdma_svc_destroy(svc);
	rpcrdma_poller_destroy(poller);
	if (both)
		printf("PASS\n");
	return 0;
}
