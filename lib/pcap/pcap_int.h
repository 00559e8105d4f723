/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wire capture (RPCRDMA_PCAP, the pcap_path options): every
 * RPC-over-RDMA message a listener or client sends or receives, and every
 * RDMA Read and Write it performs, written to a pcap file as the RoCEv2
 * frames that would carry it (Ethernet, IPv4/IPv6, UDP 4791, the
 * InfiniBand BTH and its extension headers, the payload, the ICRC).
 *
 * pcap.c builds the frames and writes them (no verbs: the unit tests use
 * it alone); pcap_rdma.c turns work requests and connections into them.
 * Each listener and client owns its writer (NULL: off; every hook is one
 * predictable branch on that pointer).  Several writers may share a file:
 * the global header is written only when the file is empty (under flock),
 * and every message's frames go out in one write() with O_APPEND.
 *
 * The internal header of lib/pcap.  Who may include it: lib/pcap and
 * lib/rdma (its taps call the writer).  Never lib/util or lib/wire, below
 * it; lib/svc and lib/clnt reach the capture only through the RDMA
 * transport.  lib/pcap includes only lib/util.  Not installed.
 */
#ifndef RPCRDMA_PCAP_INT_H
#define RPCRDMA_PCAP_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define RPCRDMA__PCAP_ENV "RPCRDMA_PCAP"
/* The path MTU of the frames: payloads above it are split into
 * FIRST/MIDDLE/LAST packets, as the wire does (InfiniBand's largest). */
#define RPCRDMA__PCAP_MTU 4096u

/* InfiniBand RC opcodes (IBA table 38). */
enum {
	RPCRDMA__IB_SEND_FIRST = 0x00,
	RPCRDMA__IB_SEND_MIDDLE = 0x01,
	RPCRDMA__IB_SEND_LAST = 0x02,
	RPCRDMA__IB_SEND_ONLY = 0x04,
	RPCRDMA__IB_WRITE_FIRST = 0x06,
	RPCRDMA__IB_WRITE_MIDDLE = 0x07,
	RPCRDMA__IB_WRITE_LAST = 0x08,
	RPCRDMA__IB_WRITE_ONLY = 0x0a,
	RPCRDMA__IB_READ_REQUEST = 0x0c,
	RPCRDMA__IB_READ_RESP_FIRST = 0x0d,
	RPCRDMA__IB_READ_RESP_MIDDLE = 0x0e,
	RPCRDMA__IB_READ_RESP_LAST = 0x0f,
	RPCRDMA__IB_READ_RESP_ONLY = 0x10,
	RPCRDMA__IB_SEND_LAST_INV = 0x16,
	RPCRDMA__IB_SEND_ONLY_INV = 0x17,
};

struct rpcrdma__pcap;

/* One direction of a connection: who sends to whom. */
struct rpcrdma__pcap_flow {
	struct sockaddr_storage src, dst;  /* IP addresses (ports unused) */
	uint32_t sqpn, dqpn;               /* sender's and receiver's QP */
};

/* A connection's capture state, zeroed with its connection: the two QP
 * numbers and addresses, learnt at its first record, and the next PSN of
 * each side.  Hooks on several threads may share it. */
struct rpcrdma__pcap_ep {
	atomic_int state;                  /* 0 unknown, 1 filling, 2 ready */
	struct rpcrdma__pcap_flow out;     /* us -> peer (in: its reverse) */
	_Atomic uint32_t psn_out, psn_in;
};

/*
 * Opens the capture for an object: path when non-NULL (an empty string:
 * none, even with the variable set), else $RPCRDMA_PCAP (secure_getenv:
 * ignored in set-user-id programs) when set and non-empty.  Returns 0 and
 * *out (NULL when off), or a negative errno from open() / write().
 */
int rpcrdma__pcap_open(const char *path, struct rpcrdma__pcap **out);
/* Closes the file, frees the writer.  NULL is a no-op. */
void rpcrdma__pcap_close(struct rpcrdma__pcap *p);

/* Records a Send of the bytes of iov (opcode SEND_ONLY or, above the MTU,
 * FIRST/MIDDLE/LAST; with inv, the invalidating variants with inv_rkey in
 * an IETH).  *psn advances by the packets.  Returns 0 or a negative errno
 * (the capture is best effort: the hooks ignore it). */
int rpcrdma__pcap_send(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *f,
		       _Atomic uint32_t *psn, const struct iovec *iov, unsigned iovcnt, bool inv,
		       uint32_t inv_rkey);
/* Records an RDMA Write of iov to (rkey, va): WRITE_ONLY or
 * FIRST/MIDDLE/LAST, a RETH in the first. */
int rpcrdma__pcap_write(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *f,
			_Atomic uint32_t *psn, uint64_t va, uint32_t rkey, const struct iovec *iov,
			unsigned iovcnt);
/* Records an RDMA Read of len bytes at (rkey, va) that returned data:
 * the READ_REQUEST (RETH) on f, then the READ_RESPONSE packets on f's
 * reverse, numbered from the request's PSN (*psn, the requester's,
 * advances by the responses). */
int rpcrdma__pcap_read(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *f,
		       _Atomic uint32_t *psn, uint64_t va, uint32_t rkey, const void *data,
		       uint32_t len);

/* Records the connection's establishment: the CM's REQ (client to
 * server), REP and RTU, with both QPs, their first PSNs and the server's
 * port (as RDMA_PS_TCP service id).  Wireshark learns from them which QP
 * talks to which: without them it cannot pair a reply with its call. */
int rpcrdma__pcap_connect(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *c2s,
			  uint32_t cpsn, uint32_t spsn, uint16_t port);

/* The RoCEv2 ICRC of a frame (from its IP header to the end of the
 * payload and pad, the variant fields masked), as it goes on the wire
 * (little-endian).  For tests. */
uint32_t rpcrdma__pcap_icrc(const uint8_t *ip, size_t len);

/* ---- the hooks (pcap_rdma.c): connections and work requests ---- */
struct ibv_send_wr;
struct rdma_cm_id;

/* Every hook takes the connection's state ep and its id; server: whether
 * we accepted it (the first record of a connection writes its CM
 * exchange, client to server). */

/* The Sends and RDMA Writes of the chain wr, about to be posted on id's QP
 * (RDMA Reads are recorded when they complete, with their data). */
void rpcrdma__pcap_post(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep,
			struct rdma_cm_id *id, bool server, const struct ibv_send_wr *wr);
/* The RDMA Reads of the chain wr, completed: requests and responses. */
void rpcrdma__pcap_reads(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep,
			 struct rdma_cm_id *id, bool server, const struct ibv_send_wr *wr);
/* A message of len bytes received on id's QP. */
void rpcrdma__pcap_recv(struct rpcrdma__pcap *p, struct rpcrdma__pcap_ep *ep,
			struct rdma_cm_id *id, bool server, const void *buf, uint32_t len);

/* Hook guard: the capture's whole cost when off. */
#define RPCRDMA__PCAP(p, expr)                      \
	do {                                        \
		if (__builtin_expect((p) != NULL, 0)) \
			expr;                       \
	} while (0)

#endif /* RPCRDMA_PCAP_INT_H */
