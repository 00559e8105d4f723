/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma-tirpc: libtirpc programs (rpcgen stubs, svc_reg/svc_run,
 * clnt_call) over RPC-over-RDMA, unchanged but for the call that makes
 * their transport.  Link with `pkg-config --libs rpcrdma-tirpc`.
 *
 * SERVER.  rpcrdma_tirpc_svc_create() listens with librpcrdma's RDMA
 * listener and returns a rendezvous transport, as svc_vc_create() does for
 * TCP.  Register programs on it with libtirpc's svc_reg() and serve them
 * with svc_run() (or svc_getreq_poll() from your own poll loop): each RDMA
 * connection appears to libtirpc as a transport of its own with a pollable
 * fd (an eventfd), registered with xprt_register() when its first call
 * arrives.  Arguments decode with the dispatch routine's xdrproc_t straight
 * from the received buffer (read chunks already pulled: the routine sees
 * the whole call); replies encode into one buffer whose largest opaque
 * item (from 1 KiB up) the transport may send by the call's write chunk;
 * the rest goes inline or by the reply chunk, as the client's chunks allow.
 * Arguments that fail to decode are freed (XDR_FREE) before xp_getargs
 * returns FALSE: rpcgen's dispatch routines never free them, and
 * libtirpc's xdr_array keeps what it allocated for the count the peer
 * claimed.  (Results that fail to decode on the client side likewise.)
 * The transport of a closed connection is destroyed when the next new
 * connection's first call arrives, or with the rendezvous transport.
 * AUTH_NONE and AUTH_SYS (and whatever libtirpc's _authenticate handles)
 * work as over TCP, RPCSEC_GSS included: libtirpc's svc_auth_gss
 * (svcauth_gss_set_svc_name or rpc_gss_set_svc_name, rpc_gss_getcred)
 * keeps one context per transport, that is per RDMA connection, in a
 * cache keyed by the SVCXPRT's address until RPCSEC_GSS_DESTROY or 300 s
 * unused: the SVCXPRT of a connection that carried RPCSEC_GSS calls stays
 * allocated (its fd closed) 310 s after the connection ends, so that no
 * new connection takes over a context whose client left without
 * DESTROY.  Its SVCAUTH_WRAP / SVCAUTH_UNWRAP run on the bridge's XDR
 * streams; a reply
 * under RPCSEC_GSS is encoded once (a MIC or a wrap token per encoding),
 * and with integrity or privacy its body goes inline or by the reply
 * chunk, never by write chunk (RFC 8267 section 4.3).  The transport's
 * netid is "rdma" (IPv4) or "rdma6";
 * rpcrdma_tirpc_rpcb_set() registers a program with rpcbind at the
 * transport's address (xp_ltaddr), as the kernel's NFS server registers
 * its RDMA listeners (libtirpc's rpcb_set() knows no RDMA netid);
 * svc_unreg() unregisters it with the others.
 *
 * CLIENT.  rpcrdma_tirpc_clnt_create() connects with librpcrdma's RDMA
 * client and returns a CLIENT for clnt_call() and rpcgen's client stubs.
 * The largest opaque item of the arguments (from 1 KiB up) goes by read
 * chunk when the call does not fit inline; replies larger than inline come
 * by write chunk (their largest opaque item) and reply chunk, each up to
 * recvsz.  clnt_control() handles CLSET_TIMEOUT, CLGET_TIMEOUT,
 * CLGET_SERVER_ADDR, CLGET_SVC_ADDR, CLGET_FD (-1), CLGET_XID,
 * CLSET_XID, CLGET_VERS, CLSET_VERS, CLGET_PROG, CLSET_PROG.  cl_auth is
 * authnone_create(); replace it (e.g. with authunix_create_default(), or
 * authgss_create_default() for RPCSEC_GSS) as with any CLIENT.  A call
 * whose cl_auth is not AUTH_NONE or AUTH_SYS is encoded once, into room
 * for its arguments, two credentials and 1 KiB (authgss makes a MIC or a
 * wrap token over the encoded bytes each time); with RPCSEC_GSS integrity
 * or privacy nothing of it goes by read chunk of its own (a long call
 * goes whole by a position-zero read chunk) and no write chunk is offered
 * for the reply.  clnt_geterr() reports RPC_CANTSEND, RPC_CANTRECV,
 * RPC_TIMEDOUT, RPC_CANTDECODEARGS, RPC_CANTDECODERES and the reply's
 * status, with re_errno set to the transport's errno.
 *
 * THREADS.  libtirpc's rules hold.  A server transport and every transport
 * it makes are used by the one thread that runs svc_run() (or
 * svc_getreq_poll()); dispatch routines run there, and reply before they
 * return (a call left unanswered is dropped when the dispatch routine
 * returns).  By default (DIRECT) the bridge starts no thread: the
 * rendezvous transport's fd is readable when the RDMA listener has work
 * (a completion, a connection event), and its xp_recv, on that thread,
 * reaps the completions, accepts connections and runs each call's
 * dispatch routine at once, through svc_getreq_common() on the
 * connection's transport, its reply posted with the others of the same
 * poll: no call changes threads.  So connections are accepted, and calls
 * served, only while svc_run() (or the program's loop) runs.  With
 * RPCRDMA_TIRPC_SVC_THREAD a poller thread of librpcrdma's reaps the
 * completions and hands each call to the svc_run thread (it queues the
 * call and writes the connection transport's eventfd): about one context
 * switch and a few system calls more per call, counted by
 * rpcrdma_tirpc_svc_counts().  svc_destroy() of the rendezvous transport
 * must come from the svc_run thread too, outside a dispatch routine.  A
 * CLIENT is used by one thread at a time (as clnt_vc); distinct CLIENTs
 * may be used from distinct threads.
 */
#ifndef RPCRDMA_TIRPC_H
#define RPCRDMA_TIRPC_H

#include <stddef.h>
#include <stdint.h>
#include <rpc/rpc.h>

#include <rpcrdma/api.h>
#include <rpcrdma/stats.h>

RPCRDMA_BEGIN_DECLS

/* Sizes used when sendsz or recvsz is 0. */
#define RPCRDMA_TIRPC_DEFAULT_SIZE (4u << 20)

/*
 * Listens on addr (a host name, or a numeric IPv4 or IPv6 address, with
 * "%ifname" for a link-local one; NULL or "" for any IPv4 address) and port (0: any; the
 * bound port is in xp_port).  sendsz bounds the replies (larger ones fail
 * and svc_sendreply() returns FALSE), recvsz the calls (larger ones are
 * dropped by the transport); 0 means RPCRDMA_TIRPC_DEFAULT_SIZE.  Returns
 * the rendezvous transport, registered with xprt_register(), or NULL with
 * errno set (EINVAL, ENOMEM, EADDRINUSE, ENODEV: no RDMA device for the
 * address, or librdmacm's errno).  svc_destroy() it to stop: that closes
 * every connection and destroys their transports.
 */
RPCRDMA_API SVCXPRT *rpcrdma_tirpc_svc_create(const char *addr, unsigned short port,
					      u_int sendsz, u_int recvsz);

/* rpcrdma_tirpc_svc_create_flags(): a poller thread reaps the completions
 * and hands every call to the svc_run thread (see THREADS above): for a
 * program that must keep connections accepted while its svc_run thread
 * is away, or whose dispatch routines may run long. */
#define RPCRDMA_TIRPC_SVC_THREAD 0x1u

/*
 * rpcrdma_tirpc_svc_create() with flags: 0 (the DIRECT mode of
 * rpcrdma_tirpc_svc_create) or RPCRDMA_TIRPC_SVC_THREAD.  Other flags:
 * NULL with errno EINVAL.  Returns and errors as
 * rpcrdma_tirpc_svc_create().
 */
RPCRDMA_API SVCXPRT *rpcrdma_tirpc_svc_create_flags(const char *addr, unsigned short port,
						    u_int sendsz, u_int recvsz,
						    unsigned flags);

/* Where the calls of a rendezvous transport were reaped and dispatched. */
struct rpcrdma_tirpc_svc_counts {
	size_t size;             /* sizeof(struct rpcrdma_tirpc_svc_counts), set by the caller */
	/* Reaped from the completion queue by the thread that then gave
	 * them to libtirpc's svc_getreq_common() (svc_run's; DIRECT mode),
	 * those libtirpc refused before any dispatch routine included. */
	uint64_t calls_direct;
	/* Reaped by a poller thread and handed to svc_run's through an
	 * eventfd (RPCRDMA_TIRPC_SVC_THREAD): the calls that changed threads. */
	uint64_t calls_handed;
	/* Never dispatched: arrived after svc_exit(), in svc_destroy(), or
	 * met no memory for their queue entry. */
	uint64_t calls_dropped;
};

/*
 * Copies the counts of xprt (a transport returned by
 * rpcrdma_tirpc_svc_create or _flags) into *out, at most out->size bytes
 * of it (set size first: a caller built with an older, shorter struct
 * gets what it knows).  Returns 0, or -EINVAL (another transport, NULL, a
 * size below that of the size field).  Thread-safe.
 */
RPCRDMA_API int rpcrdma_tirpc_svc_counts(const SVCXPRT *xprt,
					 struct rpcrdma_tirpc_svc_counts *out);

/*
 * Registers prog and vers with the local rpcbind (its AF_LOCAL socket, as
 * rpcb_set() does) for xprt's netid ("rdma" or "rdma6") at xprt's
 * address and port, owned by the caller's effective uid.  xprt: a
 * transport of rpcrdma_tirpc_svc_create().  Returns 0, -EINVAL (another
 * transport), -ECONNREFUSED (no rpcbind), -EIO (the call failed) or
 * -EEXIST (rpcbind refused: registered already by another owner).
 * Blocks up to 5 s; any thread.
 */
RPCRDMA_API int rpcrdma_tirpc_rpcb_set(const SVCXPRT *xprt, rpcprog_t prog, rpcvers_t vers);

/*
 * The RDMA listener's counters (<rpcrdma/stats.h>: replies inline, by
 * write chunk, by reply chunk, calls with read chunks, ...) summed over
 * every connection it has had.  xprt: a transport returned by
 * rpcrdma_tirpc_svc_create().  Returns 0, or -EINVAL for any other
 * transport.  Thread-safe.
 */
RPCRDMA_API int rpcrdma_tirpc_svc_stats(const SVCXPRT *xprt, struct rpcrdma_stats *out);

/*
 * Connects to addr (a host name, or numeric IPv4 or IPv6 with "%ifname"
 * for link-local) and port and returns a CLIENT for prog and vers.  Port
 * 0 asks the host's rpcbind (TCP port 111, RPCBPROC_DUMP) for the
 * program's "rdma" or "rdma6" entry (RPC_PROGNOTREGISTERED when it has
 * none, RPC_PMAPFAILURE when rpcbind cannot be asked).  sendsz bounds the calls,
 * recvsz the replies; 0 means RPCRDMA_TIRPC_DEFAULT_SIZE.  Returns NULL on
 * failure with rpc_createerr set (RPC_UNKNOWNHOST for a bad address,
 * RPC_SYSTEMERROR with cf_error.re_errno the errno otherwise).  The
 * default timeout is 25 s.  clnt_destroy() frees it.
 */
RPCRDMA_API CLIENT *rpcrdma_tirpc_clnt_create(const char *addr, unsigned short port,
					      rpcprog_t prog, rpcvers_t vers,
					      u_int sendsz, u_int recvsz);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_TIRPC_H */
