/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDMA transport of the service core: an RPC-over-RDMA listener
 * (<rpcrdma/xprt.h>) whose calls run through the same dispatch as TCP and
 * UDP calls.
 *
 * The listener hands each checked call (read chunks already pulled and
 * spliced) to on_call() on a poller thread.  With a workqueue or busy
 * poller, that thread runs the call itself (run_here): dispatch, handler,
 * reply, posted with the other replies of its poll round, no thread woken
 * (docs/threading.md).  Loop 0's run_lock, which the loop thread
 * holds while it handles events, keeps handlers one at a time; a poller
 * thread only tries it, never waits for the loop.  A service of several
 * loops (opts.loops > 1: handlers thread-safe) has poller threads take
 * the service's gate to read instead, so they run calls at once.  It queues the call for
 * the loop thread instead, and wakes it through an eventfd, in counted
 * cases (rdma_queued_*): handlers that switch credentials (a poller
 * thread's must stay those its device files were opened with) or may
 * block on the poller, a loop run by the program (rpcrdma_svc_poll:
 * handlers stay on its thread), run_lock held by another thread.  The
 * loop hands queued calls to the core until the transport's slots are
 * full; a completing call then wakes it again.  The poller's budget per
 * round bounds the calls one thread runs before it looks at its other
 * queues and channels, as it bounded the calls it queued.
 *
 * For each call the core asks for a reply buffer of the RPC reply header
 * plus the procedure's estimate (the request's own, see struct rdma_req,
 * or for a call with a write chunk registered at arrival, see on_call),
 * may mark the bulk item (rpcrdma_svc_call_set_bulk), and hands back the
 * encoded reply.  The thread that finished it sends it with
 * rpcrdma_call_reply(); with RPCRDMA_SVC_HANDLERS_SWITCH_CREDS only when
 * the kernel lets it post, else the sender thread does (see sender_main
 * for why): inline, bulk by RDMA Write into the write chunk, the rest
 * inline or by the reply chunk (the transport chooses from the client's
 * chunks; a reply that fits none becomes RDMA_ERROR/ERR_CHUNK).
 *
 * Calls in progress per connection are bounded by its credit grant (the
 * listener disconnects a client exceeding it); the core's slots bound all
 * of the listener's calls together.
 *
 * A DIRECT poller is driven by the service itself (struct
 * rpcrdma__svc_rdrive): its fd joins the loop's epoll set and the loop
 * thread polls it, so a call goes from its receive completion to its
 * handler, and its reply to the send queue, on one thread.  The hand-off
 * from a poller thread costs a thread wake-up per call, a large part of a
 * small call's time on a machine with few or emulated CPUs.  The loop
 * thread may poll only while the kernel takes its rdma_cm and uverbs
 * commands (accepting connections, posting RDMA Reads and Sends: see
 * sender_main).  Handlers that never switch credentials (the default)
 * leave it so for good.  With RPCRDMA_SVC_HANDLERS_SWITCH_CREDS it asks
 * before each poll, and once refused (a handler switched credentials,
 * which lasts) it hands the poller for good to the driver thread, started
 * with the first such listener by the thread that called
 * rpcrdma_svc_listen_rdma, whose calls then reach the loop as from a
 * workqueue poller with such handlers (queued, rdma_queued_creds).
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <netinet/in.h>

#include <rdma/rdma_cma.h>
#include <rpcrdma/xprt.h>

#include "rdma/rdma_backward.h"
#include "rdma/rdma_internal.h" /* rpcrdma__listener_opts_get */
#include "svc_int.h"
#include "svc_rdma_int.h"

/* Max slots: far above any sum of credit grants on one listener. */
#define SVC_RDMA_SLOTS (1u << 20)

static void kick(struct rpcrdma__svc_rdma *r)
{
	eventfd_write(r->src.fd, 1);
}

/* Drops q's call, counted in live (r->lock not held).  Last touch of r:
 * shutdown frees it once live is 0. */
static void drop_live(struct rpcrdma__svc_rdma *r, struct rdma_req *q)
{
	RPCRDMA__STAT_INC(r->svc, dropped);
	rpcrdma__svc_log(r->svc, RPCRDMA_LOG_CALL_DROPPED, "rdma", NULL, 0,
			 "service shutting down", 0);
	rpcrdma_call_drop(q->call);
	rpcrdma__svc_req_free(r, q);
	pthread_mutex_lock(&r->lock);
	if (--r->live == 0)
		pthread_cond_broadcast(&r->gone);
	pthread_mutex_unlock(&r->lock);
}

/*
 * Poller thread, no lock held: runs q's call here, its handler and its
 * reply's post on this thread (see the top of this file).  Returns true
 * when it did; else false and *why, the counter of the hand-off.
 */
static bool run_here(struct rpcrdma__svc_rdma *r, struct rdma_req *q,
		     atomic_uint_fast64_t **why)
{
	struct rpcrdma_svc *svc = r->svc;

	if (r->switch_creds) {
		*why = &svc->st.rdma_queued_creds;
		return false;
	}
	if (svc->opts.flags & RPCRDMA_SVC_HANDLERS_BLOCK) {
		*why = &svc->st.rdma_queued_block;
		return false;
	}
	*why = &svc->st.rdma_queued_embedded;
	if (!atomic_load(&svc->own_loop))
		return false;
	/* Only tried: the loop thread's handler may be waiting for this
	 * poller (a client call), and the round ends sooner this way. */
	*why = &svc->st.rdma_queued_busy;
	/* Several loops: the handlers are thread-safe, so this thread runs
	 * its call beside the loops and the other poller threads. */
	bool shared = svc->opts.loops > 1;
	if (shared ? pthread_rwlock_tryrdlock(&svc->gate) :
		     pthread_mutex_trylock(&svc->loops[0].run_lock))
		return false;
	int rc = -EAGAIN;
	if (atomic_load(&svc->own_loop)) { /* else stopping: the loop's */
		unsigned n = 0;
		const struct iovec *iov = rpcrdma_call_payload(q->call, &n);
		socklen_t plen = 0;
		const struct sockaddr *peer = rpcrdma_call_peer(q->call, &plen);

		rc = rpcrdma__svc_xprt_recv(r->xprt, iov, n, peer, plen, q);
		if (rc == 0)
			RPCRDMA__STAT_INC(svc, rdma_poller_calls);
	}
	if (shared)
		pthread_rwlock_unlock(&svc->gate);
	else
		pthread_mutex_unlock(&svc->loops[0].run_lock);
	if (rc == -EAGAIN)
		*why = &svc->st.rdma_queued_embedded;
	return rc == 0;
}

/* Poller thread: runs the call here (run_here), else queues it for the
 * loop thread. */
static void on_call(struct rpcrdma_call *call, void *arg)
{
	struct rpcrdma__svc_rdma *r = arg;
	struct rdma_req *q = rpcrdma__svc_req_get(r);
	atomic_uint_fast64_t *why = NULL;
	bool wake;

	if (!q) {
		RPCRDMA__STAT_INC(r->svc, dropped);
		rpcrdma__svc_log(r->svc, RPCRDMA_LOG_CALL_DROPPED, "rdma", NULL, 0,
				 "out of memory queueing the call", -ENOMEM);
		rpcrdma_call_drop(call);
		return;
	}
	q->call = call;
	q->r = r;
	if (rpcrdma__unlikely(rpcrdma__budget_starting()))
		RPCRDMA__STAT_INC(r->svc, rdma_budget_calls);
	/*
	 * A call with a write chunk (NFS READ) gets its reply buffer now, in
	 * registered memory: the handler then reads its bulk data straight
	 * into it and the RDMA Writes go from there, uncopied.  Registering is
	 * a uverbs command, so it happens here, on a poller thread, whose
	 * credentials never change; the handlers' thread switches its own
	 * (see sender_main).  Without one (a buffer refused, or a client
	 * offering chunks larger than SVC_RDMA_PRE_MAX) the reply buffer is
	 * the request's own (or malloc'd) and the bulk copied.
	 */
	if (rpcrdma_call_write_room(call) >= SVC_RDMA_PRE_MIN) {
		size_t max = rpcrdma_call_max_reply(call);
		if (max <= SVC_RDMA_PRE_MAX && rpcrdma__svc_pre_take(r, max)) {
			q->pre_len = max;
			if (rpcrdma_call_reply_buffer(call, max, &q->pre) != 0) {
				atomic_fetch_sub_explicit(&r->pre_bytes, max, memory_order_relaxed);
				q->pre = NULL;
				q->pre_len = 0;
			}
		}
	}
	pthread_mutex_lock(&r->lock);
	if (r->closing) {
		pthread_mutex_unlock(&r->lock);
		rpcrdma__svc_req_free(r, q);
		rpcrdma_call_drop(call);
		return;
	}
	r->live++;
	pthread_mutex_unlock(&r->lock);
	/* live counts q from here: shutdown waits for it. */
	struct rpcrdma__svc_rdrive *d = rpcrdma__svc_rdrive_current();
	if (d) {
		/* A loop thread polling its DIRECT poller: it hands the call
		 * to the core right after this poll (on_poller). */
		RPCRDMA__STAT_INC(r->svc, rdma_loop_calls);
		rpcrdma__svc_rdrive_queue(d, q);
		return;
	}
	if (run_here(r, q, &why))
		return;
	pthread_mutex_lock(&r->lock);
	if (rpcrdma__unlikely(r->closing)) {
		/* Closed while run_here looked: shutdown took the queue. */
		pthread_mutex_unlock(&r->lock);
		drop_live(r, q);
		return;
	}
	*r->tail = q;
	r->tail = &q->next;
	wake = !r->kicked && !r->stalled;
	if (wake)
		r->kicked = true;
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add_explicit(why, 1, memory_order_relaxed);
	if (wake)
		kick(r);
}

static struct rdma_req *dequeue(struct rpcrdma__svc_rdma *r)
{
	struct rdma_req *q = r->head;
	if (q) {
		r->head = q->next;
		if (!r->head)
			r->tail = &r->head;
		q->next = NULL;
	}
	return q;
}

/* Loop thread: hand queued calls to the core while it has slots (on a
 * kick, and from the driver after a poll of a DIRECT poller). */
static void drain(struct rpcrdma__svc_rdma *r)
{
	pthread_mutex_lock(&r->lock);
	r->kicked = false;
	pthread_mutex_unlock(&r->lock);
	for (;;) {
		pthread_mutex_lock(&r->lock);
		struct rdma_req *q = r->closing ? NULL : dequeue(r);
		pthread_mutex_unlock(&r->lock);
		if (!q)
			return;
		unsigned n = 0;
		const struct iovec *iov = rpcrdma_call_payload(q->call, &n);
		socklen_t plen = 0;
		const struct sockaddr *peer = rpcrdma_call_peer(q->call, &plen);
		if (rpcrdma__svc_xprt_recv(r->xprt, iov, n, peer, plen, q) == -EBUSY) {
			pthread_mutex_lock(&r->lock);
			q->next = r->head;
			r->head = q;
			if (!q->next)
				r->tail = &q->next;
			r->stalled = true;
			pthread_mutex_unlock(&r->lock);
			/* A call may have completed in between and seen no stall. */
			if (!rpcrdma__svc_xprt_busy(r->xprt)) {
				pthread_mutex_lock(&r->lock);
				r->stalled = false;
				pthread_mutex_unlock(&r->lock);
				continue;
			}
			return;
		}
	}
}

/* Loop thread, after a poll of its DIRECT poller (the driver's run): hands
 * q to the core here.  Slots full: q waits on the transport's queue, for
 * loop 0 (a slot freed kicks it), behind the calls already there
 * (rdma_queued_slots). */
static void run_polled(struct rdma_req *q)
{
	struct rpcrdma__svc_rdma *r = q->r;

	pthread_mutex_lock(&r->lock);
	bool behind = r->closing || r->head;
	pthread_mutex_unlock(&r->lock);
	if (!behind) {
		unsigned n = 0;
		const struct iovec *iov = rpcrdma_call_payload(q->call, &n);
		socklen_t plen = 0;
		const struct sockaddr *peer = rpcrdma_call_peer(q->call, &plen);
		if (rpcrdma__svc_xprt_recv(r->xprt, iov, n, peer, plen, q) != -EBUSY)
			return;
	}
	pthread_mutex_lock(&r->lock);
	if (r->closing) {
		pthread_mutex_unlock(&r->lock);
		drop_live(r, q);
		return;
	}
	RPCRDMA__STAT_INC(r->svc, rdma_queued_slots);
	q->next = NULL;
	*r->tail = q;
	r->tail = &q->next;
	bool wake = !r->kicked && !r->stalled;
	if (wake)
		r->kicked = true;
	pthread_mutex_unlock(&r->lock);
	if (wake)
		kick(r);
}

static void on_kick(struct rpcrdma__svc_source *src, uint32_t events)
{
	struct rpcrdma__svc_rdma *r = (struct rpcrdma__svc_rdma *)src;
	eventfd_t v;
	(void)events;

	/* Consume the wake-up first, then allow new ones (drain clears
	 * kicked): a call queued after that writes the eventfd again, one
	 * queued before is found by drain.  (The other order loses a wake-up:
	 * an on_call between the two would set kicked, its write be consumed
	 * here, and later calls would wait for an event that never comes.) */
	(void)eventfd_read(src->fd, &v);
	/* The replies of this drain in one post per connection (poller_int.h),
	 * but for handlers that switch credentials (see on_poller). */
	if (!r->switch_creds)
		rpcrdma__batch_begin();
	drain(r);
	if (!r->switch_creds)
		rpcrdma__batch_end();
}

static void *rdma_reply_buf(void *priv, void *ctx, size_t max)
{
	struct rdma_req *q = ctx;
	if (q->pre && max <= q->pre_len) {
		q->registered = true;
		return q->pre;
	}
	if (max <= ((struct rpcrdma__svc_rdma *)priv)->own_cap)
		return q->own;
	return rpcrdma__svc_big_get(priv, max, &q->big_cap);
}

static void rdma_bulk(void *priv, void *ctx, size_t offset, size_t len)
{
	struct rdma_req *q = ctx;
	(void)priv;
	q->bulk_off = offset;
	q->bulk_len = len;
}

/* Sends (or drops) one reply and frees the slot; on the sender thread. */
static void send_one(struct rpcrdma__svc_rdma *r, struct rdma_req *q)
{
	if (q->len) {
		struct iovec iov = { q->buf, q->len };
		struct rpcrdma_reply rep = {
			.size = sizeof(rep),
			.iov = &iov,
			.iovcnt = 1,
			.bulk_offset = q->bulk_len ? q->bulk_off : 0,
			.bulk_length = q->bulk_len,
		};
		/* Failures are counted by the listener (and the client is
		 * told by RDMA_ERROR when its chunks were too small). */
		(void)rpcrdma_call_reply(q->call, &rep);
	} else {
		rpcrdma_call_drop(q->call);
	}
	rpcrdma__svc_req_clear(r, q); /* a registered buffer is the call's, gone with it */
	rpcrdma__svc_xprt_complete(r->xprt);

	pthread_mutex_lock(&r->lock);
	q = rpcrdma__svc_req_put_locked(r, q);
	bool wake = r->stalled && !r->closing;
	if (wake) {
		r->stalled = false;
		r->kicked = true;
		kick(r);
	}
	/* Last touch of r: shutdown frees it once live is 0. */
	if (--r->live == 0)
		pthread_cond_broadcast(&r->gone);
	pthread_mutex_unlock(&r->lock);
	if (q) /* NULL: back in the pool */
		free(q);
}

/*
 * The sender thread posts every reply.  The kernel's uverbs refuses
 * commands from a thread whose credentials are not those the device file
 * was opened with (ib_safe_file_access compares the cred pointers), and
 * soft-RoCE rings its Send doorbell with such a command.  Handlers of an
 * NFS server switch fsuid/fsgid per request, which gives their thread new
 * credentials for good; this thread, started by the thread that called
 * rpcrdma_svc_listen_rdma, never does.
 */
static void *sender_main(void *arg)
{
	struct rpcrdma__svc_rdma *r = arg;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		struct rdma_req *q = r->out_head;
		if (!q) {
			if (r->sender_stop)
				break;
			pthread_cond_wait(&r->out_cond, &r->lock);
			continue;
		}
		r->out_head = q->next;
		if (!r->out_head)
			r->out_tail = &r->out_head;
		pthread_mutex_unlock(&r->lock);
		send_one(r, q);
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Whether this thread may post: with handlers that never switch
 * credentials, always; else until the kernel first refuses (see
 * sender_main). */
static bool may_post_here(const struct rpcrdma__svc_rdma *r, const struct rdma_req *q)
{
	return !r->switch_creds || rpcrdma__svc_rdma_may(r->svc, q->call, -1);
}

/*
 * Any thread: send the reply from here when this thread may post (see
 * sender_main), which saves a thread wake-up per call; else queue it for
 * the sender thread.
 */
static void rdma_done(void *priv, void *ctx, void *buf, size_t len)
{
	struct rpcrdma__svc_rdma *r = priv;
	struct rdma_req *q = ctx;

	q->buf = buf;
	q->len = len;
	q->next = NULL;
	if (may_post_here(r, q)) {
		RPCRDMA__STAT_INC(r->svc, rdma_direct);
		send_one(r, q);
		return;
	}
	RPCRDMA__STAT_INC(r->svc, rdma_handed);
	pthread_mutex_lock(&r->lock);
	bool was_empty = !r->out_head;
	*r->out_tail = q;
	r->out_tail = &q->next;
	if (was_empty)
		pthread_cond_signal(&r->out_cond);
	pthread_mutex_unlock(&r->lock);
}

/* The connection's backward slot (svc_rdma_backward.c), any thread. */
static struct rpcrdma__svc_bc_slot *rdma_backward(void *priv, void *ctx)
{
	struct rpcrdma__svc_rdma *r = priv;
	struct rdma_req *q = ctx;
	return rpcrdma__bc_slot(q->call->conn, r->svc, rpcrdma__svc_xprt_netid(r->xprt));
}

static const struct rpcrdma__svc_xprt_ops rdma_ops = {
	.reply_buf = rdma_reply_buf,
	.done = rdma_done,
	.bulk = rdma_bulk,
	.backward = rdma_backward,
};

static void svc_rdma_free(struct rpcrdma__svc_rdma *r)
{
	if (r->sender_started) {
		pthread_mutex_lock(&r->lock);
		r->sender_stop = true;
		pthread_cond_signal(&r->out_cond);
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->sender, NULL);
	}
	pthread_cond_destroy(&r->out_cond);
	if (r->src.fd >= 0)
		close(r->src.fd);
	if (r->xprt)
		rpcrdma__svc_xprt_destroy(r->xprt);
	pthread_cond_destroy(&r->gone);
	pthread_mutex_destroy(&r->lock);
	rpcrdma__svc_req_pool_fini(r);
	free(r);
}

/* r with its eventfd and its request pool, sized by lo's grant. */
static int svc_rdma_new(struct rpcrdma_svc *svc, const struct rpcrdma_listener_opts *lo,
			struct rpcrdma__svc_rdma **out)
{
	struct rpcrdma__svc_rdma *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->svc = svc;
	r->tail = &r->head;
	r->src.handle = on_kick;
	r->switch_creds = svc->opts.flags & RPCRDMA_SVC_HANDLERS_SWITCH_CREDS;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->gone, NULL);
	pthread_cond_init(&r->out_cond, NULL);
	r->out_tail = &r->out_head;
	r->src.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	err = r->src.fd < 0 ? -errno : rpcrdma__svc_req_pool_init(r, lo->max_credits, lo->send_inline);
	if (err) {
		svc_rdma_free(r);
		return err;
	}
	*out = r;
	return 0;
}

/* The core's transport for r (netid by ss's family), the sender thread
 * (only for handlers that switch credentials), r's eventfd on the loop and
 * the DIRECT poller's driver.  Undone by svc_rdma_free after the unwatch. */
static int svc_rdma_plug(struct rpcrdma__svc_rdma *r, struct rpcrdma_poller *poller,
			 const struct sockaddr_storage *ss, socklen_t sslen, const char *netid,
			 struct rpcrdma_poller **spread, unsigned *nspread)
{
	struct rpcrdma_svc *svc = r->svc;
	struct rpcrdma__svc_xprt_info info = {
		.size = sizeof(info),
		.netid = netid,
		.flags = RPCRDMA__SVC_XPRT_CONGESTION_CONTROL,
		.local = (const struct sockaddr *)ss,
		.local_len = sslen,
		.max_calls = SVC_RDMA_SLOTS,
	};
	int rc = rpcrdma__svc_xprt_create(svc, &rdma_ops, r, &info, &r->xprt);

	if (!rc && r->switch_creds) {
		rc = -pthread_create(&r->sender, NULL, sender_main, r);
		r->sender_started = rc == 0;
	}
	if (!rc)
		rc = rpcrdma__svc_watch(svc, &r->src, EPOLLIN);
	if (rc)
		return rc;
	/* A DIRECT poller: the loop polls it (see the top of this file).  The
	 * drivers exist before the listener, so before any on_call. */
	pthread_mutex_lock(&svc->lock);
	if (rpcrdma__poller_is_direct(poller)) {
		struct rpcrdma__svc_rdrive *d;
		rc = rpcrdma__svc_rdrive_get(svc, poller, run_polled, &d);
	}
	/* Several loops: a DIRECT poller per loop, each polled by its loop
	 * (rpcrdma__svc_spread_get), over which connections are spread. */
	if (!rc)
		rc = rpcrdma__svc_spread_get(svc, poller, run_polled, spread, nspread);
	pthread_mutex_unlock(&svc->lock);
	if (rc)
		rpcrdma__svc_unwatch(svc, &r->src);
	return rc;
}

int rpcrdma_svc_listen_rdma(struct rpcrdma_svc *svc, struct rpcrdma_poller *poller,
			    const struct sockaddr *addr,
			    const struct rpcrdma_listener_opts *opts,
			    struct sockaddr_storage *bound, socklen_t *bound_len,
			    struct rpcrdma_listener **listener)
{
	struct rpcrdma_listener_opts lo;
	struct rpcrdma__svc_rdma *r;
	int rc;

	if (!svc || !poller || !addr || rpcrdma__poller_direct_spin(poller) ||
	    (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return -EINVAL;
	rc = rpcrdma__listener_opts_get(opts, &lo);
	if (rc)
		return rc;
	/* The service's log hook, unless the listener's opts name one. */
	if (!lo.log_fn) {
		lo.log_fn = svc->opts.log_fn;
		lo.log_arg = svc->opts.log_arg;
	}
	rc = svc_rdma_new(svc, &lo, &r);
	if (rc)
		return rc;

	struct sockaddr_storage ss;
	socklen_t sslen = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						      : sizeof(struct sockaddr_in);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, addr, sslen);
	const char *netid = addr->sa_family == AF_INET6 ? "rdma6" : "rdma";
	struct rpcrdma_poller *spread[RPCRDMA_SVC_MAX_LOOPS];
	unsigned nspread = 0;
	rc = svc_rdma_plug(r, poller, &ss, sslen, netid, spread, &nspread);
	if (rc) {
		svc_rdma_free(r);
		return rc;
	}
	rc = rpcrdma__listener_create(poller, addr, &lo, on_call, r, RPCRDMA__BC_RECVS, spread,
				      nspread, &r->listener);
	if (rc) {
		rpcrdma__svc_unwatch(svc, &r->src);
		svc_rdma_free(r);
		return rc;
	}
	int port = rpcrdma_listener_port(r->listener);
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	rc = rpcrdma__svc_add_endpoint(svc, netid, (const struct sockaddr *)&ss, sslen, 1);
	if (rc) {
		rpcrdma_listener_destroy(r->listener);
		rpcrdma__svc_unwatch(svc, &r->src);
		svc_rdma_free(r);
		return rc;
	}
	pthread_mutex_lock(&svc->lock);
	r->next = svc->rdmas;
	svc->rdmas = r;
	pthread_mutex_unlock(&svc->lock);
	if (bound)
		*bound = ss;
	if (bound_len)
		*bound_len = sslen;
	if (listener)
		*listener = r->listener;
	return 0;
}

/* rpcrdma_svc_destroy, the loop stopped (the class's drain): drops queued
 * calls, destroys the listeners, waiting for their calls. */
static void rdma_shutdown(struct rpcrdma_svc *svc)
{
	pthread_mutex_lock(&svc->lock);
	struct rpcrdma__svc_rdma *list = svc->rdmas;
	svc->rdmas = NULL;
	pthread_mutex_unlock(&svc->lock);

	while (list) {
		struct rpcrdma__svc_rdma *r = list;
		list = r->next;
		rpcrdma__svc_unwatch(svc, &r->src);
		pthread_mutex_lock(&r->lock);
		r->closing = true;
		struct rdma_req *q = r->head;
		r->head = NULL;
		r->tail = &r->head;
		pthread_mutex_unlock(&r->lock);
		while (q) {
			struct rdma_req *n = q->next;
			drop_live(r, q);
			q = n;
		}
		/* Waits for the calls still in the core (asynchronous ones are
		 * ended by rpcrdma_svc_reply from their threads), then for
		 * their done() to finish with r. */
		rpcrdma_listener_destroy(r->listener);
		pthread_mutex_lock(&r->lock);
		while (r->live)
			pthread_cond_wait(&r->gone, &r->lock);
		pthread_mutex_unlock(&r->lock);
		svc_rdma_free(r);
	}
	pthread_mutex_lock(&svc->lock);
	struct rpcrdma__svc_rdrive *d = svc->rdrive;
	svc->rdrive = NULL;
	pthread_mutex_unlock(&svc->lock);
	rpcrdma__svc_rdrive_free(d);
	rpcrdma__svc_spread_free(svc); /* every listener gone: their pollers too */
}

/* Connections of the service's listeners spread to loop l (any thread). */
static unsigned rdma_loop_conns(struct rpcrdma__svc_loop *l)
{
	struct rpcrdma_svc *svc = l->svc;
	unsigned n = 0;

	pthread_mutex_lock(&svc->lock);
	for (struct rpcrdma__svc_rdma *r = svc->rdmas; r; r = r->next)
		n += rpcrdma__listener_spread_conns(r->listener, l->index);
	pthread_mutex_unlock(&svc->lock);
	return n;
}

const struct rpcrdma__svc_xprt_class rpcrdma__svc_rdma_class = {
	.name = "rdma",
	.drain = rdma_shutdown,
	.loop_conns = rdma_loop_conns,
};
