/* SPDX-License-Identifier: BSD-2-Clause */
/* The rdma-paths test's server, client messages and records: see rdma_paths.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "rdma_paths.h"

/* The server: a DIRECT poller, a listener, and the calls its handler got
 * (held until the test ends them). */
struct paths_state T;

void handler(struct rpcrdma_call *call, void *arg)
{
	unsigned n;
	const struct iovec *iov = rpcrdma_call_payload(call, &n);

	(void)arg;
	assert_int_equal(n, 1);
	assert_true(T.ncalls < MAX_HELD);
	T.calls[T.ncalls] = call;
	T.payload_len[T.ncalls] = iov[0].iov_len;
	T.payload[T.ncalls] = malloc(iov[0].iov_len + 1);
	assert_non_null(T.payload[T.ncalls]);
	memcpy(T.payload[T.ncalls], iov[0].iov_base, iov[0].iov_len);
	T.ncalls++;
}

/* Calls handed up and not ended yet. */
unsigned held(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < T.ncalls; i++)
		n += T.calls[i] != NULL;
	return n;
}

/* Runs the poller until it finds nothing more to do. */
void pump(void)
{
	for (int i = 0; i < 10000; i++)
		if (rpcrdma_poller_poll(T.p, 0) == 0)
			return;
	fail_msg("the poller never ran dry");
}

void cm_run(void)
{
	T.l->cm_src.handle(&T.l->cm_src, 16);
}

void start_opts(struct rpcrdma_listener_opts *o)
{
	struct rpcrdma_poller_opts po;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };

	fv_init();
	memset(&T, 0, sizeof(T));
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_DIRECT;
	assert_int_equal(rpcrdma_poller_create(&po, &T.p), 0);
	o->idle_timeout_ms = 0;
	assert_int_equal(rpcrdma_listener_create(T.p, (struct sockaddr *)&a, o, handler, NULL,
						 &T.l), 0);
}

void start(bool srq)
{
	struct rpcrdma_listener_opts o;

	rpcrdma_listener_opts_init(&o);
	o.use_srq = srq;
	o.max_credits = 8;
	o.srq_depth = 64;
	start_opts(&o);
}

uint64_t counter(enum rpcrdma_stat s)
{
	struct rpcrdma_stats st;

	rpcrdma_listener_stats(T.l, &st);
	return st.v[s];
}

/* Ends the held calls, destroys everything and checks that every verbs
 * object, registration and id went back. */
void stop(void)
{
	for (unsigned i = 0; i < T.ncalls; i++) {
		if (T.calls[i])
			rpcrdma_call_drop(T.calls[i]);
		free(T.payload[i]);
	}
	rpcrdma_listener_destroy(T.l);
	rpcrdma_poller_destroy(T.p);
	assert_int_equal(FV->qps, 0);
	assert_int_equal(FV->mrs, 0);
	assert_int_equal(FV->mr_bytes, 0);
	assert_int_equal(FV->srqs, 0);
	assert_int_equal(FV->pds, 0);
	assert_int_equal(FV->cqs, 0);
	assert_int_equal(FV->channels, 0);
	assert_int_equal(FV->ids, 0);
	assert_int_equal(FV->echs, 0);
	fv_fini();
}

/* A connection request with RFC 8797 data (4 KiB each way); returns its id
 * (accepted or not: the caller looks). */
struct rdma_cm_id *request(void)
{
	struct rpcrdma_cm_private priv = { .remote_invalidate = false, .inline_send = 4096,
					   .inline_recv = 4096 };
	uint8_t pd[RPCRDMA_CM_PRIVATE_SIZE];

	rpcrdma_cm_private_encode(pd, sizeof(pd), &priv);
	return fv_connect_request(pd, sizeof(pd), 16);
}

/* An established connection; its QP. */
struct ibv_qp *connect_one(void)
{
	unsigned accepts = FV->accepts;
	struct rdma_cm_id *id = request();

	cm_run();
	assert_int_equal(FV->accepts, accepts + 1);
	assert_non_null(id->qp);
	fv_cm_event(id, RDMA_CM_EVENT_ESTABLISHED);
	cm_run();
	return id->qp;
}

/* ---- messages ---- */

void put(struct msg *m, uint32_t v)
{
	assert_true(m->n < 1024);
	m->w[m->n++] = htonl(v);
}

void put_seg(struct msg *m, uint32_t rkey, uint32_t len, const void *addr)
{
	uint64_t o = (uintptr_t)addr;

	put(m, rkey);
	put(m, len);
	put(m, (uint32_t)(o >> 32));
	put(m, (uint32_t)o);
}

void hdr(struct msg *m, uint32_t xid, uint32_t type)
{
	m->n = 0;
	put(m, xid);
	put(m, 1);
	put(m, 8);
	put(m, type);
}

/* nbytes of payload p (a multiple of 4) after the header. */
void body(struct msg *m, const uint8_t *p, size_t nbytes)
{
	assert_true(nbytes % 4 == 0 && m->n + nbytes / 4 <= 1024);
	memcpy(&m->w[m->n], p, nbytes);
	m->n += nbytes / 4;
}

void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

uint32_t word(const uint8_t *msg, unsigned i)
{
	uint32_t v;

	memcpy(&v, msg + 4 * i, 4);
	return ntohl(v);
}

/* Records of qp's send queue from index from on, with opcode op. */
unsigned wrs_of(struct ibv_qp *qp, unsigned from, enum ibv_wr_opcode op,
		       struct fv_wr **out, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = from; i < FV->nwrs; i++)
		if (FV->wrs[i].qp == qp && FV->wrs[i].opcode == op && n < max)
			out[n++] = &FV->wrs[i];
	return n;
}

struct fv_wr *last_send(struct ibv_qp *qp)
{
	for (unsigned i = FV->nwrs; i-- > 0;)
		if (FV->wrs[i].qp == qp && FV->wrs[i].opcode == IBV_WR_SEND)
			return &FV->wrs[i];
	return NULL;
}

int reply_iov(unsigned i, const void *p, size_t len, size_t bulk_off, size_t bulk_len)
{
	struct iovec iov = { (void *)(uintptr_t)p, len };
	struct rpcrdma_reply r = { .size = sizeof(r), .iov = &iov, .iovcnt = 1,
				   .bulk_offset = bulk_off, .bulk_length = bulk_len };
	struct rpcrdma_call *call = T.calls[i];

	T.calls[i] = NULL;
	return rpcrdma_call_reply(call, &r);
}


/* A call offering a write chunk of two segments (seg1, seg2 bytes) and a
 * reply chunk of one (rc bytes, none when 0) into client memory. */
void chunky_call(struct ibv_qp *qp, uint32_t xid, uint8_t *wmem, uint32_t seg1,
			uint32_t seg2, uint8_t *rmem, uint32_t rc, uint32_t *wkey, uint32_t *rkey)
{
	uint8_t pay[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct msg m;

	hdr(&m, xid, RPCRDMA_MSG);
	put(&m, 0);
	if (seg1) {
		*wkey = fv_remote(wmem, seg1 + seg2);
		put(&m, 1);
		put(&m, 2);
		put_seg(&m, *wkey, seg1, wmem);
		put_seg(&m, *wkey, seg2, wmem + seg1);
	}
	put(&m, 0);
	if (rc) {
		*rkey = fv_remote(rmem, rc);
		put(&m, 1);
		put(&m, 1);
		put_seg(&m, *rkey, rc, rmem);
	} else {
		put(&m, 0);
	}
	body(&m, pay, sizeof(pay));
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	pump();
}

/*
 * The bulk item (4998 bytes at offset 8 of a 5012-byte reply, and its 2
 * bytes of XDR roundup) goes by the write chunk: two unsignaled RDMA
 * Writes to the segments' handles and addresses, 3000 and 1998 bytes, then
 * a signaled Send whose write list says so and whose message lacks the
 * bulk and its roundup; the client's memory holds the bulk.  By each bulk source: copied (cache),
 * the call's reply buffer (uncopied), a registered region (uncopied).
 */
/* A NOMSG call of nseg 4-byte Reads from data (rkey). */
void read_call(struct ibv_qp *qp, uint32_t xid, uint8_t *data, uint32_t rkey,
		      unsigned nseg)
{
	struct msg m;

	hdr(&m, xid, RPCRDMA_NOMSG);
	for (unsigned i = 0; i < nseg; i++) {
		put(&m, 1);
		put(&m, 0);
		put_seg(&m, rkey, 4, data + 4 * i);
	}
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
}

void inline_msg(struct ibv_qp *qp, uint32_t xid, const uint8_t *pay, size_t len)
{
	struct msg m;

	hdr(&m, xid, RPCRDMA_MSG);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	body(&m, pay, len);
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
}

void inline_call(struct ibv_qp *qp, uint32_t xid)
{
	uint8_t pay[8] = { 0 };

	inline_msg(qp, xid, pay, sizeof(pay));
}
