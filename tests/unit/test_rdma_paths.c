/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma-paths (issue 27): the server transport's receive, send and chunk
 * paths (rdma_recv.c, rdma_send.c, rdma_rw.c, with the connection, its
 * accept and teardown, and the poller) run without a device, against the
 * fake of fake_verbs.c: a real listener on a DIRECT poller accepts
 * connection requests the test queues, every work request it posts is
 * recorded, and the test plays the client (messages into the posted
 * receives, memory that RDMA Reads and Writes reach by rkey) and the
 * device (completions, errors, flushes).  Each case checks what goes on
 * the wire (opcodes, SGE lengths, rkeys, the bytes), the counters, and
 * that teardown gives back every verbs object, registration and id; the
 * ASan build's LeakSanitizer checks the memory.  The verbs themselves are
 * proven over soft-RoCE (tests/vm).
 */
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

/* ---- calls, by chunk shape ---- */

/*
 * An inline call and an inline reply, on the SRQ and on a receive queue of
 * the connection's own: the grant and our RFC 8797 data at accept, the
 * QP's shape, the payload handed up, the reply's bytes (the header echoes
 * xid, version and the grant, empty lists, then the reply), a Send asked
 * inline (<= 256 bytes), and the order of Send and repost: on the SRQ the
 * inline reply goes first (the early window), on a receive queue of its
 * own the receive goes back first.
 */
static void inline_round_trip(bool srq)
{
	uint8_t pay[64], rep[40];
	struct ibv_qp *qp;
	struct fv_wr *s;
	struct rpcrdma_cm_private ours;
	unsigned nrecv;
	size_t mr_bytes;
	int mrs;

	start(srq);
	qp = connect_one();
	/* Accept: our receive size and the send size both sides allow. */
	assert_int_equal(rpcrdma_cm_private_decode(FV->accept_pdata,
						   FV->accept_param.private_data_len, &ours), 1);
	assert_int_equal(ours.inline_recv, 4096);
	assert_int_equal(ours.inline_send, 4096);
	assert_int_equal(FV->accept_param.initiator_depth, 16);
	assert_int_equal(qp->srq != NULL, srq);
	/* A queue pair of its own posts RPCRDMA__IDLE_RECVS of the grant's
	 * receives at accept, the rest at the first call. */
	assert_int_equal(fv_rq_posted(qp), srq ? 0 : 4);

	/* An idle connection has no send buffers: the first call makes them
	 * (grant 8 + 8 + sig_every 16, of 4 KiB). */
	mrs = FV->mrs;
	mr_bytes = FV->mr_bytes;

	fill(pay, sizeof(pay), 1);
	inline_msg(qp, 0xabc, pay, sizeof(pay));
	pump();
	assert_int_equal(T.ncalls, 1);
	assert_int_equal(T.payload_len[0], sizeof(pay));
	assert_memory_equal(T.payload[0], pay, sizeof(pay));
	/* The send buffers, and without the SRQ the grant's other 4
	 * receives (7 posted: the call holds one). */
	assert_int_equal(FV->mrs, mrs + (srq ? 1 : 2));
	assert_int_equal(FV->mr_bytes, mr_bytes + 32 * 4096 + (srq ? 0 : 4 * 4096));
	if (!srq)
		assert_int_equal(fv_rq_posted(qp), 7);
	assert_int_equal(rpcrdma_call_conn_id(T.calls[0]), 1);

	nrecv = FV->nrecvs;
	fill(rep, sizeof(rep), 9);
	assert_int_equal(reply_iov(0, rep, sizeof(rep), 0, 0), 0);
	s = last_send(qp);
	assert_non_null(s);
	assert_int_equal(s->len, 28 + sizeof(rep));
	assert_int_equal(word(s->msg, 0), 0xabc);
	assert_int_equal(word(s->msg, 1), 1);
	assert_int_equal(word(s->msg, 2), 8);           /* the grant */
	assert_int_equal(word(s->msg, 3), RPCRDMA_MSG);
	assert_int_equal(word(s->msg, 4), 0);
	assert_int_equal(word(s->msg, 5), 0);
	assert_int_equal(word(s->msg, 6), 0);
	assert_memory_equal(s->msg + 28, rep, sizeof(rep));
	assert_true(s->send_flags & IBV_SEND_INLINE);
	assert_int_equal(s->num_sge, 1);
	/* The receive went back, before or after the Send. */
	assert_int_equal(FV->nrecvs, nrecv + 1);
	if (srq)
		assert_true(s->seq < FV->recvs[nrecv].seq);
	else
		assert_true(s->seq > FV->recvs[nrecv].seq);
	assert_int_equal(counter(RPCRDMA_STAT_REPLIES_INLINE), 1);
	assert_int_equal(counter(RPCRDMA_STAT_SENDS_INLINE), 1);
	assert_int_equal(counter(RPCRDMA_STAT_BYTES_SENT), 28 + sizeof(rep));
	assert_int_equal(counter(RPCRDMA_STAT_CONNECTS), 1);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	stop();
}

static void test_inline_srq(void **state)
{
	(void)state;
	inline_round_trip(true);
}

static void test_inline_own_rq(void **state)
{
	(void)state;
	inline_round_trip(false);
}

/*
 * Replies finished inside a thread's batch (poller_int.h; the poller opens
 * one around each poll) go out at its end in one ibv_post_send, in order,
 * after their calls' receives went back to the SRQ in one list;
 * a connection closed meanwhile posts none of them, and its drain gives
 * their send contexts back.
 */
static void test_batch_replies(void **state)
{
	uint8_t pay[8] = { 7 };
	struct fv_wr *s[3];
	struct ibv_qp *qp;
	unsigned posts, nwrs, nrecv;

	(void)state;
	start(true);
	qp = connect_one();
	for (uint32_t x = 0; x < 3; x++)
		inline_call(qp, 0x100 + x);
	pump();
	assert_int_equal(T.ncalls, 3);
	posts = FV->posts;
	nwrs = FV->nwrs;
	nrecv = FV->nrecvs;
	rpcrdma__batch_begin();
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(reply_iov(i, pay, sizeof(pay), 0, 0), 0);
	assert_int_equal(FV->posts, posts);
	assert_int_equal(FV->nwrs, nwrs);
	assert_int_equal(FV->nrecvs, nrecv);
	rpcrdma__batch_end();
	assert_int_equal(FV->posts, posts + 1);
	assert_int_equal(wrs_of(qp, nwrs, IBV_WR_SEND, s, 3), 3);
	/* The receives went back first, in one list, before the replies. */
	assert_int_equal(FV->nrecvs, nrecv + 3);
	assert_true(FV->recvs[nrecv + 2].seq < s[0]->seq);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(word(s[i]->msg, 0), 0x100 + i);
	assert_int_equal(counter(RPCRDMA_STAT_SENDS_BATCHED), 2);
	assert_int_equal(counter(RPCRDMA_STAT_REPLIES), 3);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();

	/* Closed before the batch ends: nothing more goes out. */
	for (uint32_t x = 0; x < 2; x++)
		inline_call(qp, 0x200 + x);
	pump();
	assert_int_equal(T.ncalls, 5);
	posts = FV->posts;
	rpcrdma__batch_begin();
	struct rpcrdma__conn *conn = T.calls[3]->conn;

	rpcrdma__conn_get(conn);
	for (unsigned i = 3; i < 5; i++)
		assert_int_equal(reply_iov(i, pay, sizeof(pay), 0, 0), 0);
	rpcrdma__conn_close(conn, "test");
	rpcrdma__batch_end();
	rpcrdma__conn_put(conn);
	assert_int_equal(FV->posts, posts + 1);         /* the drain alone */
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	assert_int_equal(counter(RPCRDMA_STAT_DISCONNECTS), 1);
	assert_int_equal(counter(RPCRDMA_STAT_CTXT_LOST), 0);
	assert_int_equal(counter(RPCRDMA_STAT_SENDS_BATCH_LOST), 0);
	stop();
}

/*
 * A call with a read chunk at position 8 in two segments (10 and 4 bytes:
 * an XDR roundup of 2): two RDMA Reads of exactly the segments' handles,
 * addresses and lengths, the first unsignaled, and the call handed up
 * reassembled: 8 inline bytes, the 14 chunk bytes, 0 0 of padding, the
 * rest inline.
 */
/* Each Read lands in a sink of one MR, registered now: local write only on
 * IB and RoCE; on iWARP (where the peer writes the Read Response to the
 * sink's STag) remote write too, in an MR that is not the cached
 * buffer's. */
static void sink_check(struct fv_wr **r, unsigned n, bool iwarp)
{
	bool live;

	for (unsigned i = 0; i < n; i++) {
		unsigned a = fv_mr_access(r[i]->sge[0].lkey, &live);

		assert_true(live);
		assert_int_equal(r[i]->sge[0].lkey, r[0]->sge[0].lkey);
		assert_int_equal(a, iwarp ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE
				 : IBV_ACCESS_LOCAL_WRITE);
	}
}

static void read_chunk(bool iwarp)
{
	uint8_t inl[16], data[16], want[40];
	struct msg m;
	struct ibv_qp *qp;
	struct fv_wr *r[4];
	uint32_t rkey;
	unsigned from;
	bool live;

	start(true);
	if (iwarp)
		FV->device.transport_type = IBV_TRANSPORT_IWARP;
	qp = connect_one();
	fill(inl, sizeof(inl), 3);
	fill(data, sizeof(data), 100);
	rkey = fv_remote(data, sizeof(data));
	hdr(&m, 7, RPCRDMA_MSG);
	put(&m, 1);
	put(&m, 8);
	put_seg(&m, rkey, 10, data);
	put(&m, 1);
	put(&m, 8);
	put_seg(&m, rkey, 4, data + 10);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	body(&m, inl, sizeof(inl));
	from = FV->nwrs;
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	pump();
	assert_int_equal(T.ncalls, 0);          /* not before the Reads complete */
	assert_int_equal(wrs_of(qp, from, IBV_WR_RDMA_READ, r, 4), 2);
	assert_int_equal(r[0]->rkey, rkey);
	assert_int_equal(r[0]->remote_addr, (uintptr_t)data);
	assert_int_equal(r[0]->sge[0].length, 10);
	assert_int_equal(r[1]->rkey, rkey);
	assert_int_equal(r[1]->remote_addr, (uintptr_t)(data + 10));
	assert_int_equal(r[1]->sge[0].length, 4);
	assert_false(r[0]->send_flags & IBV_SEND_SIGNALED);
	assert_true(r[1]->send_flags & IBV_SEND_SIGNALED);
	sink_check(r, 2, iwarp);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	assert_int_equal(T.ncalls, 1);
	if (iwarp) {  /* the sink's own MR went with the Reads */
		assert_int_equal(fv_mr_access(r[0]->sge[0].lkey, &live), IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE);
		assert_false(live);
	}
	memcpy(want, inl, 8);
	memcpy(want + 8, data, 14);
	want[22] = want[23] = 0;
	memcpy(want + 24, inl + 8, 8);
	assert_int_equal(T.payload_len[0], 32);
	assert_memory_equal(T.payload[0], want, 32);
	assert_int_equal(counter(RPCRDMA_STAT_CALLS_READ), 1);
	assert_int_equal(counter(RPCRDMA_STAT_BYTES_READ), 32);
	assert_int_equal(reply_iov(0, inl, 8, 0, 0), 0);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	stop();
}

static void test_read_chunk(void **state)
{
	(void)state;
	read_chunk(false);
}

/* The same over an iWARP device (siw, cxgb4, irdma). */
static void test_read_chunk_iwarp(void **state)
{
	(void)state;
	read_chunk(true);
}

/*
 * RDMA_NOMSG with the whole call in a position-zero chunk of two
 * segments: one Read each, the call is exactly the chunk's bytes; its
 * reply is a plain Send (this peer did not offer remote invalidation).
 */
static void test_position_zero(void **state)
{
	uint8_t call[200];
	struct msg m;
	struct ibv_qp *qp;
	struct fv_wr *r[4];
	uint32_t k1, k2;
	unsigned from;

	(void)state;
	start(false);
	qp = connect_one();
	fill(call, sizeof(call), 50);
	k1 = fv_remote(call, 120);
	k2 = fv_remote(call + 120, 80);
	hdr(&m, 8, RPCRDMA_NOMSG);
	put(&m, 1);
	put(&m, 0);
	put_seg(&m, k1, 120, call);
	put(&m, 1);
	put(&m, 0);
	put_seg(&m, k2, 80, call + 120);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	from = FV->nwrs;
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	pump();
	assert_int_equal(wrs_of(qp, from, IBV_WR_RDMA_READ, r, 4), 2);
	assert_int_equal(r[0]->rkey, k1);
	assert_int_equal(r[0]->sge[0].length, 120);
	assert_int_equal(r[1]->rkey, k2);
	assert_int_equal(r[1]->sge[0].length, 80);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	assert_int_equal(T.ncalls, 1);
	assert_int_equal(T.payload_len[0], sizeof(call));
	assert_memory_equal(T.payload[0], call, sizeof(call));
	assert_int_equal(reply_iov(0, call, 12, 0, 0), 0);
	assert_int_equal(last_send(qp)->opcode, IBV_WR_SEND);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	stop();
}

/* ---- replies, by path ---- */

enum source { COPY, REPLY_BUFFER, REGION };

static void write_chunk_reply(enum source src)
{
	static uint8_t region[8192];
	uint8_t wmem[5000] = { 0 }, *rep = NULL;
	struct ibv_qp *qp;
	struct fv_wr *w[4], *s;
	uint32_t wkey = 0, rkey = 0;
	unsigned from;
	void *buf;

	start(true);
	if (src == REGION) {
		rep = region;
		assert_int_equal(rpcrdma_listener_register(T.l, region, sizeof(region)), 0);
	}
	qp = connect_one();
	chunky_call(qp, 20, wmem, 3000, 2000, NULL, 0, &wkey, &rkey);
	assert_int_equal(T.ncalls, 1);
	assert_int_equal(rpcrdma_call_write_room(T.calls[0]), 5000);
	if (src == REPLY_BUFFER) {
		assert_int_equal(rpcrdma_call_reply_buffer(T.calls[0], 5012, &buf), 0);
		rep = buf;
	} else if (src == COPY) {
		rep = malloc(5012);
		assert_non_null(rep);
	}
	fill(rep, 5012, 77);
	from = FV->nwrs;
	assert_int_equal(reply_iov(0, rep, 5012, 8, 4998), 0);
	assert_int_equal(wrs_of(qp, from, IBV_WR_RDMA_WRITE, w, 4), 2);
	assert_int_equal(w[0]->rkey, wkey);
	assert_int_equal(w[0]->remote_addr, (uintptr_t)wmem);
	assert_int_equal(w[0]->sge[0].length, 3000);
	assert_int_equal(w[1]->remote_addr, (uintptr_t)(wmem + 3000));
	assert_int_equal(w[1]->sge[0].length, 1998);
	assert_false(w[0]->send_flags & IBV_SEND_SIGNALED);
	assert_false(w[1]->send_flags & IBV_SEND_SIGNALED);
	s = last_send(qp);
	assert_true(s->seq > w[1]->seq);
	assert_true(s->send_flags & IBV_SEND_SIGNALED);
	/* xid, vers, credits, MSG, read list 0, write list: 1, 2 segments of
	 * 3000 and 2000 (the lengths written), 0, reply chunk 0, then the
	 * reply without the bulk (8 + 4 bytes). */
	assert_int_equal(word(s->msg, 3), RPCRDMA_MSG);
	assert_int_equal(word(s->msg, 4), 0);
	assert_int_equal(word(s->msg, 5), 1);
	assert_int_equal(word(s->msg, 6), 2);
	assert_int_equal(word(s->msg, 7), wkey);
	assert_int_equal(word(s->msg, 8), 3000);
	assert_int_equal(word(s->msg, 11), wkey);
	assert_int_equal(word(s->msg, 12), 1998);
	assert_int_equal(word(s->msg, 15), 0);
	assert_int_equal(word(s->msg, 16), 0);
	assert_int_equal(s->len, 68 + 12);
	assert_memory_equal(s->msg + 68, rep, 8);
	assert_memory_equal(s->msg + 76, rep + 5008, 4);
	/* The reply buffer is the connection's again once the chain
	 * completes (the cache may reuse it): compare with the pattern. */
	uint8_t want[5012];
	fill(want, sizeof(want), 77);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	assert_memory_equal(wmem, want + 8, 4998);
	assert_int_equal(wmem[4998], 0);
	assert_int_equal(counter(RPCRDMA_STAT_REPLIES_WRITE), 1);
	assert_int_equal(counter(RPCRDMA_STAT_BYTES_WRITTEN), 4998);
	assert_int_equal(counter(RPCRDMA_STAT_WRITES_UNCOPIED), src == COPY ? 0 : 1);
	assert_int_equal(counter(RPCRDMA_STAT_WRITES_REGION), src == REGION ? 1 : 0);
	if (src == COPY)
		free(rep);
	stop();
}

static void test_write_chunk_copied(void **state)
{
	(void)state;
	write_chunk_reply(COPY);
}

static void test_write_chunk_reply_buffer(void **state)
{
	(void)state;
	write_chunk_reply(REPLY_BUFFER);
}

static void test_write_chunk_region(void **state)
{
	(void)state;
	write_chunk_reply(REGION);
}

/*
 * A reply of 6000 bytes (over the 4096 inline) goes by the reply chunk:
 * one RDMA Write of 6000 bytes to its handle, then an RDMA_NOMSG Send of
 * the header alone whose reply chunk says 6000; the client's memory holds
 * the reply.  Without a reply chunk the same reply is answered with
 * RDMA_ERROR/ERR_CHUNK and -EMSGSIZE.
 */
static void test_reply_chunk(void **state)
{
	uint8_t rmem[8192] = { 0 }, rep[6000];
	struct ibv_qp *qp;
	struct fv_wr *w[4], *s;
	uint32_t wkey = 0, rkey = 0;
	unsigned from;

	(void)state;
	start(true);
	qp = connect_one();
	chunky_call(qp, 30, NULL, 0, 0, rmem, sizeof(rmem), &wkey, &rkey);
	assert_true(rpcrdma_call_max_reply(T.calls[0]) >= sizeof(rmem));
	fill(rep, sizeof(rep), 5);
	from = FV->nwrs;
	assert_int_equal(reply_iov(0, rep, sizeof(rep), 0, 0), 0);
	assert_int_equal(wrs_of(qp, from, IBV_WR_RDMA_WRITE, w, 4), 1);
	assert_int_equal(w[0]->rkey, rkey);
	assert_int_equal(w[0]->sge[0].length, sizeof(rep));
	s = last_send(qp);
	assert_int_equal(word(s->msg, 3), RPCRDMA_NOMSG);
	assert_int_equal(word(s->msg, 4), 0);
	assert_int_equal(word(s->msg, 5), 0);
	assert_int_equal(word(s->msg, 6), 1);
	assert_int_equal(word(s->msg, 7), 1);
	assert_int_equal(word(s->msg, 8), rkey);
	assert_int_equal(word(s->msg, 9), sizeof(rep));
	assert_int_equal(s->len, 48);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	assert_memory_equal(rmem, rep, sizeof(rep));
	assert_int_equal(counter(RPCRDMA_STAT_REPLIES_RCHUNK), 1);

	/* No reply chunk: ERR_CHUNK. */
	chunky_call(qp, 31, NULL, 0, 0, NULL, 0, &wkey, &rkey);
	assert_int_equal(reply_iov(1, rep, sizeof(rep), 0, 0), -EMSGSIZE);
	s = last_send(qp);
	assert_int_equal(word(s->msg, 0), 31);
	assert_int_equal(word(s->msg, 3), RPCRDMA_ERROR);
	assert_int_equal(word(s->msg, 4), RPCRDMA_ERR_CHUNK);
	assert_int_equal(counter(RPCRDMA_STAT_ERR_REPLY), 1);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	stop();
}

/* A wrong version is answered ERR_VERS (versions 1 to 1); RDMA_DONE is
 * dropped quietly; a header cut short is answered ERR_CHUNK... as garbage,
 * counted, and the connection lives on. */
static void test_bad_headers(void **state)
{
	struct msg m;
	struct ibv_qp *qp;
	struct fv_wr *s;

	(void)state;
	start(true);
	qp = connect_one();
	hdr(&m, 40, RPCRDMA_MSG);
	m.w[1] = htonl(2);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	pump();
	s = last_send(qp);
	assert_non_null(s);
	assert_int_equal(word(s->msg, 0), 40);
	assert_int_equal(word(s->msg, 3), RPCRDMA_ERROR);
	assert_int_equal(word(s->msg, 4), RPCRDMA_ERR_VERS);
	assert_int_equal(word(s->msg, 5), 1);
	assert_int_equal(word(s->msg, 6), 1);
	hdr(&m, 41, RPCRDMA_DONE);
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	pump();
	assert_int_equal(word(last_send(qp)->msg, 0), 40);   /* nothing sent */
	hdr(&m, 42, RPCRDMA_MSG);
	put(&m, 1);
	assert_true(fv_deliver(qp, m.w, (uint32_t)(m.n * 4)));
	pump();
	s = last_send(qp);
	assert_int_equal(word(s->msg, 0), 42);
	assert_int_equal(word(s->msg, 4), RPCRDMA_ERR_CHUNK);
	assert_int_equal(counter(RPCRDMA_STAT_ERR_VERS), 1);
	assert_int_equal(counter(RPCRDMA_STAT_ERR_DROPPED), 1);
	assert_int_equal(counter(RPCRDMA_STAT_ERR_SHORT), 1);
	assert_int_equal(T.ncalls, 0);
	assert_int_equal(FV->disconnects, 0);
	fv_complete(qp, 0, IBV_WC_SUCCESS);
	pump();
	stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_srq),
		cmocka_unit_test(test_inline_own_rq),
		cmocka_unit_test(test_batch_replies),
		cmocka_unit_test(test_read_chunk),
		cmocka_unit_test(test_read_chunk_iwarp),
		cmocka_unit_test(test_position_zero),
		cmocka_unit_test(test_write_chunk_copied),
		cmocka_unit_test(test_write_chunk_reply_buffer),
		cmocka_unit_test(test_write_chunk_region),
		cmocka_unit_test(test_reply_chunk),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_send_error_closes),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_recv_error),
		cmocka_unit_test(test_credit_overrun),
		cmocka_unit_test(test_sq_wait),
		cmocka_unit_test(test_deep_srq_one_cq),
		cmocka_unit_test(test_disconnect_each_step),
		cmocka_unit_test(test_idle_sweep_during_accept),
		cmocka_unit_test(test_idle_sweep_fresh),
		cmocka_unit_test(test_iwarp_close_gives_back),
		cmocka_unit_test(test_iwarp_sigpipe),
		cmocka_unit_test(test_nosig_guard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
