/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Service core internals shared by the files of lib/svc.  The internal header of
 * lib/svc (with svc_xprt.h, the transports' ops, which it includes).
 *
 * Who may include it: lib/svc only.  lib/clnt reaches the service through
 * svc_local.h alone (the client's backchannel); lib/rdma, lib/pcap,
 * lib/wire and lib/util never include a lib/svc header.  lib/svc includes
 * util, wire, pcap and rdma (tests/include-layers.sh checks it).  Not
 * installed.
 *
 * The files of lib/svc call each other in layers, never in a circle
 * (tests/call-layers.sh checks it; the table of transport classes,
 * svc_classes.c, is data the loop reads, not a call).  The TCP
 * transport's order is in svc_tcp_int.h.
 */
#ifndef RPCRDMA_SVC_INT_H
#define RPCRDMA_SVC_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/svc.h>

#include "util/byteorder.h"
#include "util/diag_int.h"
#include "svc_xprt.h"

#define RPCRDMA__MAX_AUTH_BYTES 400u

/* --- call header (svc_call.c) */

struct rpcrdma__call_hdr {
	uint32_t xid;      /* as on the wire (network byte order) */
	uint32_t prog, vers, proc;
	uint32_t auth_stat; /* for RPCRDMA__CALL_AUTH_ERROR */
	size_t len;        /* bytes from the message start to the arguments */
	struct rpcrdma_svc_cred cred;
	/* RPCSEC_GSS (cred.flavor 6) only: the credential and verifier
	 * bodies as received (pointers into the message, valid while the
	 * call is dispatched) and the end of the credential (the header the
	 * verifier checksums).  svc.c hands them to lib/gss's hook in its
	 * own struct rpcrdma__gss_hdr. */
	const uint8_t *gss_cred, *gss_verf;
	uint32_t gss_clen, gss_vlen, gss_vflavor;
	size_t gss_cred_end;
};

enum rpcrdma__call_verdict {
	RPCRDMA__CALL_OK,
	RPCRDMA__CALL_DROP,         /* no reply possible or wanted */
	RPCRDMA__CALL_RPC_MISMATCH, /* rpcvers != 2 */
	RPCRDMA__CALL_AUTH_ERROR,   /* hdr->auth_stat says why */
	RPCRDMA__CALL_GARBAGE,      /* header cut short after rpcvers */
};

/*
 * Decodes the call header in buf[0..len-1] (the order and rules are in
 * svc.h, steps 1-4).  Never reads outside the buffer.
 */
enum rpcrdma__call_verdict rpcrdma__svc_call_decode(const uint8_t *buf, size_t len,
						     struct rpcrdma__call_hdr *hdr);

/* Reply headers.  The longest is an accepted PROG_MISMATCH: 8 words. */
#define RPCRDMA__REPLY_HDR_MAX 32u
#define RPCRDMA__REPLY_ACCEPTED_LEN 24u
_Static_assert(RPCRDMA__REPLY_ACCEPTED_LEN == RPCRDMA_SVC_REPLY_HDR_LEN, "svc.h");
/* Each writes the reply into buf (room for RPCRDMA__REPLY_HDR_MAX) and
 * returns its length.  xid in network byte order. */
size_t rpcrdma__svc_reply_accepted(uint8_t *buf, uint32_t xid, uint32_t stat,
				   uint32_t low, uint32_t high);
size_t rpcrdma__svc_reply_rpc_mismatch(uint8_t *buf, uint32_t xid);
size_t rpcrdma__svc_reply_auth_error(uint8_t *buf, uint32_t xid, uint32_t auth_stat);

/* --- authentication (svc_auth.c) */

/*
 * Checks a credential and verifier (flavours, bodies of clen / vlen bytes
 * that lie inside the message) and fills *cred.  Returns an auth_stat.
 */
uint32_t rpcrdma__svc_auth_check(uint32_t cflavor, const uint8_t *cbody, uint32_t clen,
				 uint32_t vflavor, uint32_t vlen,
				 struct rpcrdma_svc_cred *cred);

/* --- the service object (svc.c) */

/* Something on the epoll set; data.ptr of its epoll_event points here. */
struct rpcrdma__svc_source {
	int fd;
	void (*handle)(struct rpcrdma__svc_source *src, uint32_t events);
};

struct rpcrdma__svc_endpoint {
	struct rpcrdma__svc_endpoint *next;
	char netid[16];
	char uaddr[64];
	bool has_cc;
};

struct rpcrdma__svc_prog;
struct rpcrdma__svc_tcp_listener;
struct rpcrdma__svc_tcp_conn;
struct rpcrdma__svc_udp;
struct rpcrdma__svc_rdma;
struct rpcrdma__svc_rdrive;
struct rpcrdma__rpcb_entry;
struct rpcrdma__svc_bc_hub;
struct rpcrdma__gss_svc;
struct rpcrdma__gss_call;

struct rpcrdma__svc_counters {
	atomic_uint_fast64_t calls, replies[6], rpc_mismatch, auth_errors, dropped,
		estimate_exceeded, encode_errors, busy, record_too_big,
		conns_accepted, conns_closed, conns_idle, send_waits, read_pauses, conns_shed,
		rdma_direct, rdma_handed, rdma_loop_calls, conns_evicted, protocol_errors,
		mem_pauses, rdma_poller_calls, rdma_queued_creds, rdma_queued_block,
		rdma_queued_embedded, rdma_queued_busy, rdma_queued_slots, rdma_budget_calls,
		calls_async;
};

/*
 * One event loop (docs/threading.md, "Several loops"): an epoll set, the
 * thread that runs it, and the TCP connections spread to it at accept.
 * loops[0] also holds the listeners, the UDP sockets, the RDMA transport
 * and the backward direction's timers; it is the loop rpcrdma_svc_fd and
 * rpcrdma_svc_poll give the program.
 */
struct rpcrdma__svc_loop {
	struct rpcrdma_svc *svc;
	unsigned index;
	int epfd;
	struct rpcrdma__svc_source wake; /* eventfd: a stop, memory released,
					  * a connection of it evicted */
	struct rpcrdma__svc_source idle; /* timerfd: idle sweep of its TCP
					  * connections, fd -1 if none */
	pthread_mutex_t loop_lock; /* one step of this loop at a time */
	/* Held while handlers may run: by the loop thread around the events
	 * of a step; for loops[0], also by a poller thread around an RDMA
	 * call it runs itself (svc_rdma.c), so one handler of the loop runs
	 * at a time.  Poller threads only try it (never wait for the loop:
	 * a loop thread's handler may wait for the poller). */
	pthread_mutex_t run_lock;
	pthread_t thread;
	bool thread_running;
	/* Evicted TCP connections of this loop, each with a reference (a
	 * list linked by kill_next, pushed by loops[0], taken whole): this
	 * loop closes them after its next epoll batch (tcp_reap). */
	_Atomic(struct rpcrdma__svc_tcp_conn *) tcp_reap;
	uint8_t *tcp_in;    /* its TCP connections' read buffer (svc_tcp.c) */
	atomic_uint nconns; /* TCP connections on it now (spread at accept) */
	atomic_uint_fast64_t conns_accepted, calls; /* rpcrdma_svc_get_loop_stats */
	/* Several loops over RDMA (svc_rdma_drive.c): the DIRECT poller whose
	 * CQs this loop's RDMA connections were given at accept (made by the
	 * service; loops[0]'s may be the program's, then driven by
	 * svc->rdrive and rdrive here NULL), its driver on this loop's epoll
	 * set, and the RDMA calls this loop's thread ran (reaped, handled,
	 * replied) from it. */
	struct rpcrdma_poller *rpoller;
	bool rpoller_own;                 /* made by the service: destroy it */
	struct rpcrdma__svc_rdrive *rdrive;
	atomic_uint_fast64_t rdma_calls;
};

struct rpcrdma_svc {
	struct rpcrdma_svc_opts opts;
	struct rpcrdma__svc_loop *loops; /* opts.loops of them */
	atomic_uint next_loop;           /* round-robin among the least loaded */
	/* opts.loops > 1, handlers declared thread-safe: a poller thread runs
	 * an RDMA call under a read lock of this (any number at once) instead
	 * of loops[0].run_lock; rpcrdma_svc_stop takes it to write, to wait
	 * for them. */
	pthread_rwlock_t gate;

	pthread_rwlock_t progs_lock;
	struct rpcrdma__svc_prog *progs;

	/* The loops run on the service's own threads (rpcrdma_svc_start), so
	 * handlers run on no thread of the program: poller threads may run
	 * RDMA calls themselves.  Set before the threads start, cleared
	 * (then run_lock or gate taken once) before they stop. */
	atomic_bool own_loop;
	atomic_bool stop;

	pthread_mutex_t lock; /* guards the lists below and nxprts */
	pthread_cond_t xprts_gone;
	unsigned nxprts;
	unsigned nconns; /* TCP connections, live or waiting for their calls */
	atomic_size_t tcp_bytes;         /* TCP buffers charged (svc_tcp.c) */
	atomic_uint tcp_mem_waiters;     /* TCP connections parked for memory */
	struct rpcrdma__svc_tcp_listener *listeners;
	struct rpcrdma__svc_tcp_conn *conns;
	struct rpcrdma__svc_udp *udps;
	struct rpcrdma__svc_rdma *rdmas;
	struct rpcrdma__svc_rdrive *rdrive; /* the DIRECT poller it drives, or NULL */
	struct rpcrdma__svc_endpoint *endpoints;
	struct rpcrdma__svc_bc_hub *bc_hub; /* svc_backward.c, made on first use */
	struct rpcrdma__rpcb_entry *rpcb;
	char rpcb_path[108];  /* how rpcrdma_svc_rpcbind_set reached rpcbind */
	bool rpcb_no_tcp;
	int rpcb_timeout_ms;

	struct rpcrdma__svc_counters st;
	struct rpcrdma__gss_svc *gss; /* rpcrdma_svc_set_gss, or NULL (lib/gss) */
};

/* Reports an event to the service's log hook (if any). */
static inline void rpcrdma__svc_log(struct rpcrdma_svc *svc, enum rpcrdma_log_event ev,
				    const char *netid, const struct sockaddr *peer,
				    socklen_t peer_len, const char *why, int err)
{
	if (svc->opts.log_fn)
		rpcrdma__log(svc->opts.log_fn, svc->opts.log_arg, ev, netid, peer, peer_len, why,
			     err);
}

#define RPCRDMA__STAT_INC(svc, f) \
	atomic_fetch_add_explicit(&(svc)->st.f, 1, memory_order_relaxed)

/* Adds / modifies / removes a source on a loop's epoll set (-errno). */
int rpcrdma__svc_loop_watch(struct rpcrdma__svc_loop *l, struct rpcrdma__svc_source *src,
			    uint32_t events);
int rpcrdma__svc_loop_rewatch(struct rpcrdma__svc_loop *l, struct rpcrdma__svc_source *src,
			      uint32_t events);
void rpcrdma__svc_loop_unwatch(struct rpcrdma__svc_loop *l, struct rpcrdma__svc_source *src);
/* The same on loops[0]'s. */
int rpcrdma__svc_watch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src,
		       uint32_t events);
int rpcrdma__svc_rewatch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src,
			 uint32_t events);
void rpcrdma__svc_unwatch(struct rpcrdma_svc *svc, struct rpcrdma__svc_source *src);

/* Whether the calling thread called rpcrdma_svc_creds_switching()
 * (svc_loop.c). */
bool rpcrdma__svc_thread_switching(void);

/* The loop a new TCP connection joins: the one with the fewest, ties
 * taken in turn (svc_loop.c). */
struct rpcrdma__svc_loop *rpcrdma__svc_pick_loop(struct rpcrdma_svc *svc);
/* The kinds of transport (svc_xprt.h), each defined beside its code. */
extern const struct rpcrdma__svc_xprt_class rpcrdma__svc_tcp_class;  /* svc_tcp_listen.c */
extern const struct rpcrdma__svc_xprt_class rpcrdma__svc_udp_class;  /* svc_udp.c */
extern const struct rpcrdma__svc_xprt_class rpcrdma__svc_bc_class;   /* svc_backward.c */
extern const struct rpcrdma__svc_xprt_class rpcrdma__svc_rdma_class; /* svc_rdma.c (RDMA) */
/* All of them in the order rpcrdma_svc_destroy takes them, NULL-ended
 * (svc_classes.c): the one place that names them. */
extern const struct rpcrdma__svc_xprt_class *const rpcrdma__svc_xprt_classes[];

/* The call's RPCSEC_GSS state (lib/gss), NULL for other flavours (svc.c;
 * svc_gss.c's call accessors read it). */
struct rpcrdma__gss_call *rpcrdma__svc_call_gss(const struct rpcrdma_svc_call *c);

/* Adds an endpoint for a bound socket address (svc.c). */
int rpcrdma__svc_add_endpoint_sa(struct rpcrdma_svc *svc, bool udp,
				 const struct sockaddr_storage *ss);

/* rpcbind.c: unsets and frees svc->rpcb (svc->lock not held). */
int rpcrdma__rpcbind_unset_all(struct rpcrdma_svc *svc);

#endif /* RPCRDMA_SVC_INT_H */
