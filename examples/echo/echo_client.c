/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-echo-client ADDR PORT [options]
 *
 * Sends NULL and ECHO calls and checks every echoed byte (with --source,
 * SOURCE calls, checking the server's fixed pattern).
 *   --mode M      inline | auto (call data may go by read chunk, reply by
 *                 write chunk) | reply (reply by reply chunk) | pos0 (whole
 *                 call by position-zero read chunk, reply by write chunk) |
 *                 pos0-reply | pos0-data (the second half of the data marked
 *                 as the data item: a large call goes as RDMA_NOMSG with the
 *                 first half in the position-zero chunk and the data item in
 *                 a read chunk at its position)
 *   --sizes LIST  comma-separated byte counts (default by mode, up to 4 MiB)
 *   --count N     calls per size (3)
 *   --null N      NULL calls first (10)
 *   --clients N   N connections, one thread each (1)
 *   --depth N     calls kept in flight per connection (1: synchronous);
 *                 after a failed call no new call of that size goes out
 *   --credits N   client's credit maximum (32)
 *   --timeout MS  per synchronous call (10000 for NULL, 30000 for ECHO)
 *   --connect-ms MS  connect timeout (the library's default, 5000; a
 *                 server under valgrind needs longer)
 *   --retry N     a synchronous call that fails is sent again, up to N
 *                 times 1 s apart (the next attempt reconnects)
 *   --pause-file F  after the NULL calls, print "paused" and wait until F
 *                 exists (lets a test act on the server at a known point)
 *   --spin-us N   the poller's workers poll on N us after a completion
 *                 (struct rpcrdma_poller_opts.spin_us; 0: off, the default)
 *   --source      the data calls are SOURCE calls (no data out; the reply
 *                 carries the size asked for, by the chunk the mode offers)
 *   --spin        no poller threads: a thread of this program spins on a
 *                 DIRECT poller with direct_spin (its completion queues
 *                 never armed) while the client threads wait for replies
 * Prints "PASS" at the end when every reply matched, else "FAIL".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma.h>

#include "echo_proto.h"

struct cfg {
	struct sockaddr_storage ss;
	bool mark_bulk, offer_write, reply_chunk, bulk_half;
	bool source;                    /* data calls are SOURCE, not ECHO */
	size_t sizes[64];
	unsigned nsizes, count, nulls, depth, credits, retries;
	int timeout_ms;                 /* 0: 10 s for NULL, 30 s for ECHO */
	int connect_ms;                 /* 0: the library's default */
	const char *pause_file;
};

static atomic_int failures;

/* --spin: polls the DIRECT poller until told to stop. */
struct spinner {
	struct rpcrdma_poller *p;
	atomic_bool stop;
};

static void *spin_main(void *arg)
{
	struct spinner *sp = arg;

	while (!atomic_load(&sp->stop))
		rpcrdma_poller_poll(sp->p, 0);
	return NULL;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31u + seed);
}

/* One echo exchange's buffers. */
struct xfer {
	uint8_t *msg;                   /* call message */
	size_t msglen;
	struct iovec iov;
	uint8_t *rbuf, *bulk;
	size_t rlen, blen, dlen;
	struct rpcrdma_client_call call;
	uint32_t xid;
};

/* The procedure of the data calls. */
static uint32_t data_proc(const struct cfg *cf)
{
	return cf->source ? ECHO_PROC_SOURCE : ECHO_PROC_ECHO;
}

static int xfer_init(struct xfer *x, const struct cfg *cf, uint32_t xid, uint32_t proc, size_t dlen)
{
	bool data_back = proc == ECHO_PROC_ECHO || proc == ECHO_PROC_SOURCE;

	memset(x, 0, sizeof(*x));
	x->dlen = dlen;
	x->xid = xid;
	x->msglen = ECHO_CALL_HDR + (proc == ECHO_PROC_ECHO ? 4 + dlen + echo_pad(dlen) :
				     proc == ECHO_PROC_SOURCE ? 4 : 0);
	x->msg = calloc(1, x->msglen);
	x->rlen = cf->reply_chunk || !cf->offer_write ? ECHO_REPLY_HDR + 4 + dlen + 4 : 64;
	x->rbuf = calloc(1, x->rlen);
	if (cf->offer_write && data_back) {
		x->blen = dlen ? dlen : 1;
		x->bulk = calloc(1, x->blen);
	}
	if (!x->msg || !x->rbuf || (cf->offer_write && data_back && !x->bulk))
		return -ENOMEM;
	echo_put32(x->msg, xid);
	echo_put32(x->msg + 4, 0);
	echo_put32(x->msg + 8, 2);
	echo_put32(x->msg + 12, ECHO_PROG);
	echo_put32(x->msg + 16, ECHO_VERS);
	echo_put32(x->msg + 20, proc);
	if (proc == ECHO_PROC_ECHO) {
		echo_put32(x->msg + ECHO_CALL_HDR, (uint32_t)dlen);
		fill(x->msg + ECHO_CALL_HDR + 4, dlen, xid);
	} else if (proc == ECHO_PROC_SOURCE) {
		echo_put32(x->msg + ECHO_CALL_HDR, (uint32_t)dlen);
	}
	x->iov.iov_base = x->msg;
	x->iov.iov_len = x->msglen;
	x->call.size = sizeof(x->call);
	x->call.iov = &x->iov;
	x->call.iovcnt = 1;
	if (cf->mark_bulk && proc == ECHO_PROC_ECHO) {
		size_t off = cf->bulk_half ? (dlen / 2) & ~(size_t)3 : 0;

		x->call.bulk_offset = ECHO_CALL_HDR + 4 + off;
		x->call.bulk_length = dlen - off;
	}
	x->call.reply_buf = x->rbuf;
	x->call.reply_len = x->rlen;
	x->call.reply_bulk = x->bulk;
	x->call.reply_bulk_len = x->blen;
	return 0;
}

static void xfer_fini(struct xfer *x)
{
	free(x->msg);
	free(x->rbuf);
	free(x->bulk);
	x->msg = x->rbuf = x->bulk = NULL;
}

/* Checks the reply; returns 0 when it echoes the data exactly. */
static int xfer_check(const struct xfer *x, uint32_t proc, int status)
{
	const uint8_t *r = x->rbuf, *data;
	uint32_t dlen;

	if (status) {
		fprintf(stderr, "xid %u: status %s\n", x->xid, strerror(-status));
		return -1;
	}
	if (x->call.reply_got < ECHO_REPLY_HDR || echo_get32(r) != x->xid ||
	    echo_get32(r + 4) != 1 || echo_get32(r + 8) != 0 || echo_get32(r + 20) != 0) {
		fprintf(stderr, "xid %u: bad reply header (%zu bytes)\n", x->xid, x->call.reply_got);
		return -1;
	}
	if (proc == ECHO_PROC_NULL)
		return x->call.reply_got == ECHO_REPLY_HDR ? 0 : -1;
	dlen = echo_get32(r + ECHO_REPLY_HDR);
	if (dlen != x->dlen) {
		fprintf(stderr, "xid %u: length %u, sent %zu\n", x->xid, dlen, x->dlen);
		return -1;
	}
	if (x->call.bulk_got == dlen && x->bulk) {
		data = x->bulk;
	} else if (x->call.reply_got >= ECHO_REPLY_HDR + 4 + dlen) {
		data = r + ECHO_REPLY_HDR + 4;
	} else {
		fprintf(stderr, "xid %u: data missing (got %zu inline, %zu bulk)\n", x->xid,
			x->call.reply_got, x->call.bulk_got);
		return -1;
	}
	if (proc == ECHO_PROC_SOURCE) {
		/* The server's SOURCE bytes: byte i is i * 7. */
		for (uint32_t i = 0; i < dlen; i++)
			if (data[i] != (uint8_t)(i * 7u)) {
				fprintf(stderr, "xid %u: SOURCE byte %u differs\n", x->xid, i);
				return -1;
			}
	} else if (memcmp(data, x->msg + ECHO_CALL_HDR + 4, dlen)) {
		fprintf(stderr, "xid %u: data differ\n", x->xid);
		return -1;
	}
	return 0;
}

struct async_state {
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned done, bad;
};

struct async_x {
	struct xfer x;
	struct async_state *st;
	uint32_t proc;
};

static void async_done(struct rpcrdma_client_call *call, int status, void *arg)
{
	struct async_x *a = arg;

	(void)call;
	pthread_mutex_lock(&a->st->m);
	if (xfer_check(&a->x, a->proc, status))
		a->st->bad++;
	xfer_fini(&a->x);       /* buffers go as soon as the call is done */
	a->st->done++;
	pthread_cond_signal(&a->st->cv);
	pthread_mutex_unlock(&a->st->m);
}

/* Keeps `depth` calls of one size in flight until `count` completed. */
static int run_async(struct rpcrdma_client *c, const struct cfg *cf, uint32_t *xid, size_t size,
		     unsigned count)
{
	struct async_state st = { .done = 0 };
	struct async_x *ax = calloc(count, sizeof(*ax));
	unsigned sent = 0;
	int rc = 0;

	pthread_mutex_init(&st.m, NULL);
	pthread_cond_init(&st.cv, NULL);
	pthread_mutex_lock(&st.m);
	while (st.done < count) {
		/* After a failure no new call goes out, only the calls in
		 * flight are waited for: the rest would fail the same way
		 * (server gone, device removed). */
		while (!st.bad && sent < count && sent - st.done < cf->depth) {
			struct async_x *a = &ax[sent];

			a->st = &st;
			a->proc = data_proc(cf);
			if (xfer_init(&a->x, cf, ++*xid, a->proc, size) ||
			    rpcrdma_client_call_async(c, &a->x.call, async_done, a)) {
				xfer_fini(&a->x);
				st.bad++;
				st.done++;
			}
			sent++;
		}
		/* Calls refused at once (no connection: the server went away)
		 * count as done without a callback: wait only while some are
		 * still in flight, or the last refusal leaves us waiting for
		 * a signal that never comes. */
		if (sent == st.done) {
			if (st.bad)
				break;
			continue;
		}
		pthread_cond_wait(&st.cv, &st.m);
	}
	pthread_mutex_unlock(&st.m);
	free(ax);
	if (st.bad)
		rc = -1;
	return rc;
}

/*
 * Two calls with the same xid in flight: the second must be refused with
 * -EEXIST (the transport keeps calls by xid).  The first is a 1 MiB echo,
 * so that its reply cannot come back before the second is submitted (rxe
 * runs a loopback send and the peer's wakeup inside the posting thread's
 * system call: a NULL call could complete in between on a busy machine);
 * a few tries make sure one is refused.  Returns 0 when a duplicate was
 * refused and every call that went out completed correctly.
 */
static int dup_xid_check(struct rpcrdma_client *c, const struct cfg *cf, uint32_t *xid)
{
	int refused = 0, bad = 0;

	for (int i = 0; i < 10 && !refused; i++) {
		struct async_state st = { .done = 0 };
		struct async_x a[2];
		unsigned sent = 0;

		pthread_mutex_init(&st.m, NULL);
		pthread_cond_init(&st.cv, NULL);
		++*xid;
		pthread_mutex_lock(&st.m);
		for (int k = 0; k < 2; k++) {
			a[k].st = &st;
			a[k].proc = k ? ECHO_PROC_NULL : ECHO_PROC_ECHO;
			if (xfer_init(&a[k].x, cf, *xid, a[k].proc, k ? 0 : (size_t)1 << 20)) {
				xfer_fini(&a[k].x);
				bad = 1;
				continue;
			}
			int err = rpcrdma_client_call_async(c, &a[k].x.call, async_done, &a[k]);

			if (err == 0) {
				sent++;
				continue;
			}
			if (err == -EEXIST && k == 1)
				refused = 1;
			else
				bad = 1;
			xfer_fini(&a[k].x);
		}
		while (st.done < sent)
			pthread_cond_wait(&st.cv, &st.m);
		pthread_mutex_unlock(&st.m);
		if (st.bad)
			bad = 1;
	}
	printf("duplicate xid check: %s\n",
	       refused ? "ok, a second call with an xid in flight is refused (-EEXIST)"
		       : "FAIL, a second call with an xid in flight was never refused");
	return refused && !bad ? 0 : -1;
}

/* A synchronous call, sent again up to cf->retries times after a failure. */
static int sync_call(struct rpcrdma_client *c, const struct cfg *cf, struct xfer *x, int def_ms)
{
	int err;

	for (unsigned i = 0;; i++) {
		err = rpcrdma_client_call(c, &x->call, cf->timeout_ms ? cf->timeout_ms : def_ms);
		if (!err || i >= cf->retries)
			return err;
		fprintf(stderr, "xid %u: %s, sending it again\n", x->xid, strerror(-err));
		sleep(1);
	}
}

struct thr {
	const struct cfg *cf;
	struct rpcrdma_poller *p;
	unsigned idx;
	int rc;
};

static void *client_main(void *arg)
{
	struct thr *t = arg;
	const struct cfg *cf = t->cf;
	struct rpcrdma_client_opts o;
	struct rpcrdma_client *c;
	struct rpcrdma_stats st;
	uint32_t xid = (t->idx + 1) << 24;
	int err;

	rpcrdma_client_opts_init(&o);
	o.max_credits = cf->credits;
	if (cf->connect_ms)
		o.connect_timeout_ms = cf->connect_ms;
	err = rpcrdma_client_create(t->p, (const struct sockaddr *)&cf->ss, &o, &c);
	if (err) {
		fprintf(stderr, "client %u: connect: %s\n", t->idx, strerror(-err));
		t->rc = -1;
		return NULL;
	}
	for (unsigned i = 0; i < cf->nulls; i++) {
		struct xfer x;

		xfer_init(&x, cf, ++xid, ECHO_PROC_NULL, 0);
		err = sync_call(c, cf, &x, 10000);
		if (xfer_check(&x, ECHO_PROC_NULL, err))
			t->rc = -1;
		xfer_fini(&x);
	}
	if (cf->nulls && t->idx == 0 && dup_xid_check(c, cf, &xid))
		t->rc = -1;
	if (cf->pause_file) {
		printf("paused\n");
		fflush(stdout);
		while (access(cf->pause_file, F_OK))
			usleep(100000);
	}
	for (unsigned s = 0; s < cf->nsizes; s++) {
		int bad = 0;

		if (cf->depth > 1) {
			bad = run_async(c, cf, &xid, cf->sizes[s], cf->count);
		} else {
			for (unsigned i = 0; i < cf->count; i++) {
				struct xfer x;

				if (xfer_init(&x, cf, ++xid, data_proc(cf), cf->sizes[s])) {
					bad = -1;
					break;
				}
				err = sync_call(c, cf, &x, 30000);
				if (xfer_check(&x, data_proc(cf), err))
					bad = -1;
				xfer_fini(&x);
			}
		}
		printf("client %u size %zu: %s\n", t->idx, cf->sizes[s], bad ? "FAIL" : "ok");
		if (bad)
			t->rc = -1;
	}
	rpcrdma_client_stats(c, &st);
	/* One line from several printf calls: hold stdout so no other
	 * client thread's line lands in the middle (the payloads parse it). */
	flockfile(stdout);
	printf("client %u credits %u max_inflight %u", t->idx, rpcrdma_client_credits(c),
	       rpcrdma_client_max_inflight(c));
	for (int i = 0; i < RPCRDMA_STAT_COUNT; i++)
		if (st.v[i])
			printf(" %s=%llu", rpcrdma_stat_name((enum rpcrdma_stat)i),
			       (unsigned long long)st.v[i]);
	int backoff = rpcrdma_client_backoff_ms(c);
	if (backoff)
		printf(" backoff_ms=%d", backoff);
	printf("\n");
	funlockfile(stdout);
	rpcrdma_client_destroy(c);
	return NULL;
}

static unsigned parse_sizes(const char *s, size_t *out, unsigned max)
{
	unsigned n = 0;

	while (*s && n < max) {
		char *end;

		out[n++] = strtoul(s, &end, 0);
		if (*end == 'K' || *end == 'k')
			out[n - 1] <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			out[n - 1] <<= 20, end++;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' )
			break;
	}
	return n;
}

/* The options of the program itself (the clients' are in struct cfg). */
struct opts {
	const char *mode;
	unsigned nclients, spin_us;
	bool spin;
};

/* The options after ADDR PORT into cf and o: 0, or -1 with a message. */
static int parse_opts(int argc, char **argv, struct cfg *cf, struct opts *o)
{
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--spin")) {
			o->spin = true;
			continue;
		}
		if (!strcmp(argv[i], "--source")) {
			cf->source = true;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "option %s needs a value\n", argv[i]);
			return -1;
		}
		if (!strcmp(argv[i], "--mode"))
			o->mode = argv[++i];
		else if (!strcmp(argv[i], "--sizes"))
			cf->nsizes = parse_sizes(argv[++i], cf->sizes, 64);
		else if (!strcmp(argv[i], "--count"))
			cf->count = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--null"))
			cf->nulls = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--clients"))
			o->nclients = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--depth"))
			cf->depth = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--credits"))
			cf->credits = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--timeout"))
			cf->timeout_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--connect-ms"))
			cf->connect_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--retry"))
			cf->retries = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pause-file"))
			cf->pause_file = argv[++i];
		else if (!strcmp(argv[i], "--spin-us"))
			o->spin_us = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "unknown option %s\n", argv[i]);
			return -1;
		}
	}
	return 0;
}

/* The chunk choices and default sizes of --mode: 0, or -1 with a message. */
static int apply_mode(struct cfg *cf, const char *mode)
{
	static const size_t def_sizes[] = { 0, 1, 3, 4, 100, 1000, 3000, 4000, 4096, 8192,
					    65536, 65537, 1 << 20, 4 << 20 };
	static const size_t inl_sizes[] = { 0, 1, 3, 4, 100, 1000, 2000, 3000 };

	if (!strcmp(mode, "inline")) {
		if (!cf->nsizes) {
			memcpy(cf->sizes, inl_sizes, sizeof(inl_sizes));
			cf->nsizes = sizeof(inl_sizes) / sizeof(inl_sizes[0]);
		}
	} else {
		if (!strcmp(mode, "auto")) {
			cf->mark_bulk = cf->offer_write = true;
		} else if (!strcmp(mode, "reply")) {
			cf->mark_bulk = cf->reply_chunk = true;
		} else if (!strcmp(mode, "pos0")) {
			cf->offer_write = true;
		} else if (!strcmp(mode, "pos0-data")) {
			cf->mark_bulk = cf->offer_write = cf->bulk_half = true;
		} else if (!strcmp(mode, "pos0-reply")) {
			cf->reply_chunk = true;
		} else {
			fprintf(stderr, "unknown mode %s\n", mode);
			return -1;
		}
		if (!cf->nsizes) {
			memcpy(cf->sizes, def_sizes, sizeof(def_sizes));
			cf->nsizes = sizeof(def_sizes) / sizeof(def_sizes[0]);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cfg cf = { .count = 3, .nulls = 10, .depth = 1, .credits = 32 };
	struct opts o = { .mode = "auto", .nclients = 1 };
	struct spinner sp = { .p = NULL };
	pthread_t spin_th;
	struct rpcrdma_poller_opts popts;
	struct rpcrdma_poller *p;
	pthread_t th[64];
	struct thr t[64];
	int err, rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ADDR PORT [--mode M] [--sizes LIST] [--count N] "
			"[--null N] [--clients N] [--depth N] [--credits N] [--timeout MS] [--connect-ms MS] "
			"[--retry N] "
			"[--pause-file F] [--spin-us N] [--spin] [--source]\n", argv[0]);
		return 2;
	}
	if (parse_opts(argc, argv, &cf, &o) != 0)
		return 2;
	if (o.nclients == 0 || o.nclients > 64 || cf.depth == 0)
		return 2;
	if (apply_mode(&cf, o.mode) != 0)
		return 2;
	if (echo_addr(argv[1], argv[2], &cf.ss))
		return 2;
	rpcrdma_poller_opts_init(&popts);
	popts.spin_us = o.spin_us;
	if (o.spin) {
		popts.mode = RPCRDMA_POLLER_DIRECT;
		popts.direct_spin = 1;
	}
	err = rpcrdma_poller_create(&popts, &p);
	if (err) {
		fprintf(stderr, "poller: %s\n", strerror(-err));
		return 1;
	}
	sp.p = p;
	atomic_init(&sp.stop, false);
	if (o.spin && (err = pthread_create(&spin_th, NULL, spin_main, &sp))) {
		fprintf(stderr, "spinner: %s\n", strerror(err));
		rpcrdma_poller_destroy(p);
		return 1;
	}
	for (unsigned i = 0; i < o.nclients; i++) {
		t[i] = (struct thr){ .cf = &cf, .p = p, .idx = i };
		pthread_create(&th[i], NULL, client_main, &t[i]);
	}
	for (unsigned i = 0; i < o.nclients; i++) {
		pthread_join(th[i], NULL);
		if (t[i].rc)
			rc = 1;
	}
	if (o.spin) {
		atomic_store(&sp.stop, true);
		pthread_join(spin_th, NULL);
	}
	rpcrdma_poller_destroy(p);
	if (atomic_load(&failures))
		rc = 1;
	printf("%s mode=%s clients=%u\n", rc ? "FAIL" : "PASS", o.mode, o.nclients);
	return rc;
}
