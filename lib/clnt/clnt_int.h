/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPC client internals (include/rpcrdma/clnt.h), shared by lib/clnt*.c and
 * the backchannel.  Not installed.
 *
 * Shape, from the top down (a file calls only files below it):
 *  - clnt_host.c: rpcrdma_clnt_create and _create_host (a port of 0 asked
 *    of rpcbind, a host name resolved);
 *  - clnt_rpcb.c: the rpcbind GETADDR/DUMP query, itself a client;
 *  - clnt_gss.c: the RPCSEC_GSS context set-up, over rpcrdma_clnt_call;
 *  - clnt.c: what every transport shares (the client from a netid and an
 *    address, credentials, xids, synchronous calls over the asynchronous
 *    path, counters); it reaches the transport through c->ops only;
 *  - the transports, each one struct rpcrdma__clnt_xprt_ops: clnt_tcp.c
 *    and clnt_udp.c the sockets, clnt_rdma.c RPC-over-RDMA
 *    (<rpcrdma/client.h>), whose calls also start and time out on the loop;
 *  - clnt_bc.c: backward calls to the service set, replies through c->ops;
 *  - clnt_loop.c: the client's own thread (an epoll loop: new calls,
 *    timers, the socket) and its clock;
 *  - clnt_msg.c: the call header, the reply header, put/get_bulk.
 *
 * The internal header of lib/clnt, the top layer.  Who may include it:
 * lib/clnt only (no lib folder sits above it).  lib/clnt includes util,
 * wire, rdma/client (clnt_rdma.c) and svc/svc_local.h (clnt_bc.c), never
 * svc_int.h (tests/include-layers.sh checks the order).  Not installed.
 */
#ifndef RPCRDMA_CLNT_INT_H
#define RPCRDMA_CLNT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/stats.h>

#include "util/list.h"

enum rpcrdma__clnt_kind { RPCRDMA__CLNT_TCP, RPCRDMA__CLNT_UDP, RPCRDMA__CLNT_RDMA };

#define RPCRDMA__CLNT_MAX_AUTH 400u
/* The longest call header: 6 words, credential (2 words + body), verifier. */
#define RPCRDMA__CLNT_HDR_MAX (24u + 8u + RPCRDMA__CLNT_MAX_AUTH + 8u)
/* Records and datagrams of at most this much are always accepted. */
/* What RPCSEC_GSS adds to a reply beyond res_max + res_bulk_len: the
 * verifier's checksum (up to RPCRDMA__CLNT_MAX_AUTH) and the krb5i / krb5p
 * framing (sequence number, lengths, checksum or wrap token, padding). */
#define RPCRDMA__CLNT_GSS_SLACK 1024u
#define RPCRDMA__CLNT_MIN_RECORD ((size_t)1 << 20)

/* One call, from rpcrdma_clnt_call_async to its done. */
struct rpcrdma__creq {
	struct rpcrdma__list node;      /* submitted, then pending (loop thread) */
	struct rpcrdma_clnt_req *req;
	rpcrdma_clnt_done done;
	void *arg;
	uint32_t xid;                   /* host order */
	uint8_t *msg;                   /* 4 bytes of record mark room, then the call */
	size_t len;                     /* the call's bytes (after the mark room) */
	size_t bulk_off, bulk_len;      /* put_bulk's data item, in the call */
	int64_t deadline_ms;            /* CLOCK_MONOTONIC, set when the loop takes it */
	int timeout_ms;                 /* until then */
	int64_t resend_ms;              /* UDP: next retransmission */
	int64_t resend_gap;             /* UDP: the current gap, doubling */
	void *xprt;                     /* the transport's own state (RDMA) */
	uint32_t gss_seq;               /* RPCSEC_GSS: the call's sequence number */
	bool gss;                       /* ... sent with RPCSEC_GSS */
	bool gss_wrapped;               /* ... krb5i / krb5p: neither the call's
					 * nor the reply's data is DDP-eligible
					 * (RFC 8267 section 4.3) */
};

/* Encoder given to an encode callback: put_bulk finds the call through it. */
struct rpcrdma__clnt_enc {
	struct rpcrdma_xdr_enc x;       /* first: the callback's pointer */
	uint32_t magic;
	size_t base;                    /* the call's bytes before x's buffer */
	size_t bulk_off, bulk_len;
};

/* Decoder given to a decode callback. */
struct rpcrdma__clnt_dec {
	struct rpcrdma_xdr_dec x;       /* first */
	uint32_t magic;
	const void *bulk;               /* res_bulk when a write chunk was offered */
	size_t bulk_got;                /* bytes the server wrote there */
	bool bulk_done;                 /* get_bulk already called */
	const uint8_t *verf;            /* the reply's verifier body (in the reply) */
	uint32_t verf_flavor, verf_len;
};

#define RPCRDMA__CLNT_ENC_MAGIC 0x636c6e65u
#define RPCRDMA__CLNT_DEC_MAGIC 0x636c6e64u

/* The reply header (RFC 5531 rpc_msg REPLY), decoded. */
struct rpcrdma__clnt_reply {
	uint32_t xid;
	uint32_t reply_stat, accept_stat, auth_stat;
	uint32_t low, high;             /* PROG_MISMATCH / RPC_MISMATCH */
	size_t body;                    /* offset of the results (SUCCESS) */
	size_t verf;                    /* MSG_ACCEPTED: offset of the verifier's body */
	uint32_t verf_flavor, verf_len;
};

struct rpcrdma__clnt_loop;
struct rpcrdma__clnt_rdma;
struct rpcrdma__clnt_xprt_ops;
struct rpcrdma__gss_clnt; /* lib/gss/gss_int.h */
struct rpcrdma__svc_local; /* svc_local.h */

struct rpcrdma_clnt {
	enum rpcrdma__clnt_kind kind;
	const struct rpcrdma__clnt_xprt_ops *ops; /* the transport */
	const char *netid;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint32_t prog, vers;
	struct rpcrdma_clnt_opts opts;

	pthread_mutex_t auth_lock;
	uint8_t cred[8 + RPCRDMA__CLNT_MAX_AUTH]; /* flavor, length, body (XDR) */
	size_t cred_len;
	_Atomic uint32_t xid;
	struct rpcrdma__gss_clnt *gss;  /* rpcrdma_clnt_set_auth_gss (auth_lock) */

	_Atomic(struct rpcrdma_svc *) bc_svc;     /* rpcrdma_clnt_set_backchannel */
	pthread_mutex_t bc_lock;                  /* bc_ep (clnt_bc.c) */
	struct rpcrdma__svc_local *bc_ep;         /* bc_svc's entry point */

	struct rpcrdma__clnt_loop *loop;          /* the client's thread */
	void *sock;                               /* TCP, UDP: their state */
	struct rpcrdma__clnt_rdma *rdma;          /* RDMA only */
	_Atomic uint64_t stats[RPCRDMA_STAT_COUNT];  /* socket transports */
};

static inline void rpcrdma__clnt_count(struct rpcrdma_clnt *c, enum rpcrdma_stat s, uint64_t n)
{
	atomic_fetch_add_explicit(&c->stats[s], n, memory_order_relaxed);
}

/* ---- clnt.c */

/* A client for netid at addr (its port may be 0), the arguments checked,
 * no transport yet: 0 and *out, -EINVAL, -EPROTONOSUPPORT, -ENOMEM. */
int rpcrdma__clnt_new(const char *netid, const struct sockaddr *addr, socklen_t addrlen,
		      uint32_t prog, uint32_t vers, const struct rpcrdma_clnt_opts *opts,
		      struct rpcrdma_clnt **out);
/* Frees a client that rpcrdma__clnt_start has not started. */
void rpcrdma__clnt_free(struct rpcrdma_clnt *c);
/* Starts c's transport (c->addr's port as it stands): 0, or the
 * transport's error and c is freed. */
int rpcrdma__clnt_start(struct rpcrdma_clnt *c);

/* Encodes r's call (header, then the request's encoder) into a new
 * r->msg.  0, -ENOMEM, -EMSGSIZE, or the encoder's error. */
int rpcrdma__clnt_encode(struct rpcrdma_clnt *c, struct rpcrdma__creq *r);
/* Decodes the reply header in buf[0..len-1]; 0 or -EBADMSG. */
int rpcrdma__clnt_reply_decode(const uint8_t *buf, size_t len, struct rpcrdma__clnt_reply *h);
/* Completes r with the reply buf[0..len-1] (bulk: what a write chunk
 * brought, NULL for none): fills the request's results, runs its decoder
 * and done, frees r. */
void rpcrdma__clnt_complete_reply(struct rpcrdma_clnt *c, struct rpcrdma__creq *r,
				  const uint8_t *buf, size_t len, const void *bulk,
				  size_t bulk_got);
/* Completes r with status (a negative errno): done, then r is freed. */
void rpcrdma__clnt_complete(struct rpcrdma_clnt *c, struct rpcrdma__creq *r, int status);
/* The xid of a reply (or call) in buf, host order; false when too short. */
bool rpcrdma__clnt_msg_xid(const uint8_t *buf, size_t len, uint32_t *xid, uint32_t *type);

/* ---- clnt_loop.c: the client's thread */

/* The loop's clock: CLOCK_MONOTONIC in milliseconds. */
int64_t rpcrdma__clnt_now_ms(void);

struct rpcrdma__clnt_loop_ops {
	/* A new call, encoded (r->msg): send it or fail it (return < 0). */
	int (*start)(struct rpcrdma_clnt *c, struct rpcrdma__creq *r);
	/* Events on the transport's fd (socket transports). */
	void (*input)(struct rpcrdma_clnt *c, uint32_t events);
	/* r's deadline passed: 0 when the loop may complete it -ETIMEDOUT at
	 * once, 1 when the transport will complete it itself. */
	int (*expire)(struct rpcrdma_clnt *c, struct rpcrdma__creq *r);
	/* UDP: r's resend time came. */
	void (*resend)(struct rpcrdma_clnt *c, struct rpcrdma__creq *r);
	/* Loop thread, after the calls of one wake-up: flush output. */
	void (*flush)(struct rpcrdma_clnt *c);
};

int rpcrdma__clnt_loop_create(struct rpcrdma_clnt *c, const struct rpcrdma__clnt_loop_ops *ops);
/* Stops and joins the thread (idempotent; any thread but the loop's). */
void rpcrdma__clnt_loop_stop(struct rpcrdma_clnt *c);
/* Stops the thread, runs the deferred work, completes the calls still
 * submitted or pending -ECANCELED and frees the loop. */
void rpcrdma__clnt_loop_destroy(struct rpcrdma_clnt *c);
int rpcrdma__clnt_loop_submit(struct rpcrdma_clnt *c, struct rpcrdma__creq *r);
/* Wakes the loop (another thread queued output). */
void rpcrdma__clnt_loop_wake(struct rpcrdma_clnt *c);
/* The transport's socket: watched for events (0 or -errno), unwatched. */
int rpcrdma__clnt_loop_watch(struct rpcrdma_clnt *c, int fd, uint32_t events);
int rpcrdma__clnt_loop_rewatch(struct rpcrdma_clnt *c, int fd, uint32_t events);
void rpcrdma__clnt_loop_unwatch(struct rpcrdma_clnt *c, int fd);
/* Pending calls (loop thread only): add, find and remove by xid, fail all. */
void rpcrdma__clnt_pending_add(struct rpcrdma_clnt *c, struct rpcrdma__creq *r);
struct rpcrdma__creq *rpcrdma__clnt_pending_take(struct rpcrdma_clnt *c, uint32_t xid);
void rpcrdma__clnt_pending_fail(struct rpcrdma_clnt *c, int status);
/* The largest reply a pending call allows (res_max), at least
 * RPCRDMA__CLNT_MIN_RECORD. */
size_t rpcrdma__clnt_pending_max(struct rpcrdma_clnt *c);
/* Work for the loop thread, queued from any thread (no allocation). */
struct rpcrdma__clnt_work {
	struct rpcrdma__list node;
	void (*fn)(struct rpcrdma_clnt *c, struct rpcrdma__clnt_work *w);
};
void rpcrdma__clnt_loop_queue(struct rpcrdma_clnt *c, struct rpcrdma__clnt_work *w);
/* Runs fn(arg) on the loop thread soon (any thread).  0 or -ENOMEM. */
int rpcrdma__clnt_loop_defer(struct rpcrdma_clnt *c, void (*fn)(void *), void *arg);

/* ---- transports: what clnt.c and clnt_bc.c call, through c->ops */

struct rpcrdma__clnt_xprt_ops {
	/* Connects and starts the loop (rpcrdma__clnt_loop_create): 0 or
	 * -errno, nothing left behind. */
	int (*create)(struct rpcrdma_clnt *c);
	/* Stops the loop, completes what is left -ECANCELED, frees. */
	void (*destroy)(struct rpcrdma_clnt *c);
	/* Sends the reply to a backward call (any thread): 0, -ENOTCONN,
	 * -EMSGSIZE, -ENOBUFS, -ENOMEM.  NULL: no backchannel (UDP). */
	int (*bc_reply)(struct rpcrdma_clnt *c, const void *msg, size_t len);
	/* The transport's counters; NULL: c->stats. */
	void (*stats)(const struct rpcrdma_clnt *c, struct rpcrdma_stats *out);
};

extern const struct rpcrdma__clnt_xprt_ops rpcrdma__clnt_tcp_ops;
extern const struct rpcrdma__clnt_xprt_ops rpcrdma__clnt_udp_ops;
extern const struct rpcrdma__clnt_xprt_ops rpcrdma__clnt_rdma_ops; /* RDMA builds */

/* A socket connected to c->addr within the connect timeout: 0 and *fd
 * (non-blocking, close-on-exec) or -errno. */
int rpcrdma__clnt_sock_connect(struct rpcrdma_clnt *c, int type, int *fd);

/* ---- backchannel (TCP; the dispatch is the backchannel's, issue #29) */

/*
 * A record of msg_type CALL (0) received on c's TCP connection: msg[0..len-1]
 * without the record mark (over RDMA: the RPC message of an RDMA_MSG).
 * Runs on the loop thread (RDMA: a poller thread); the message is valid
 * only during the call.  Dispatched through the service set (its handler
 * may run right here), the reply sent back on the connection; dropped
 * when no service is set.
 */
void rpcrdma__clnt_backward_call(struct rpcrdma_clnt *c, const void *msg, size_t len);

/* rpcrdma_clnt_set_backchannel (and destroy, with NULL): switches the
 * service backward calls go to; after it returns, no reply of the old
 * one's is sent.  0 or -ENOMEM. */
int rpcrdma__clnt_bc_set(struct rpcrdma_clnt *c, struct rpcrdma_svc *svc);

/*
 * Queues one record (the concatenation of iov[0..n-1], without record mark)
 * on c's TCP connection; any thread.  The bytes are copied.  0, -ENOTCONN
 * (no connection), -EOPNOTSUPP (not TCP), -EMSGSIZE (over 2^31 - 1 bytes),
 * -ENOMEM.
 */
int rpcrdma__clnt_send_record(struct rpcrdma_clnt *c, const struct iovec *iov, int n);

/* ---- rpcbind (clnt_rpcb.c) */

/*
 * Asks the rpcbind at rpcb (address with port) for prog/vers over netid:
 * RFC 1833 version 4 GETADDR over that transport (tcp*, udp*), or DUMP over
 * TCP searched for the entry (rdma*; see clnt_rpcb.c); *port is the port of
 * the universal address.  0, -ENOENT (empty answer, no entry), -EBADMSG
 * (an address that does not parse), or the call's error.
 */
int rpcrdma__clnt_rpcb_getaddr(const struct sockaddr *rpcb, socklen_t len, const char *netid,
			       uint32_t prog, uint32_t vers, const struct rpcrdma_clnt_opts *opts,
			       uint16_t *port);
/* Parses a universal address's port ("h.h.h.h.p1.p2", "x:...:x.p1.p2")
 * for family; 0 and *port, -ENOENT for "", -EBADMSG. */
int rpcrdma__clnt_uaddr_port(const char *uaddr, int family, uint16_t *port);

#endif /* RPCRDMA_CLNT_INT_H */
