/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS version 1 (RFC 2203) on the service core, with Kerberos 5
 * through MIT GSS-API: the flavours krb5 (service none: the call's header
 * is authenticated), krb5i (integrity: arguments and results carry a
 * checksum) and krb5p (privacy: they are encrypted).
 *
 *   struct rpcrdma_svc_gss_opts go;
 *   rpcrdma_svc_gss_opts_init(&go);
 *   go.keytab = "/etc/krb5.keytab";       // NULL: KRB5_KTNAME or the default
 *   rpcrdma_svc_set_gss(svc, &go);        // before the service runs
 *   ...
 *   // in a handler:
 *   const char *who = rpcrdma_svc_call_principal(call); // "alice@REALM"
 *   const struct rpcrdma_svc_cred *cr = rpcrdma_svc_call_cred(call);
 *   // cr->flavor == RPCRDMA_AUTH_RPCSEC_GSS, cr->uid/gid/gids mapped
 *
 * What the service does.  Context creation (RPCSEC_GSS_INIT and
 * CONTINUE_INIT, sent to any registered or unregistered program, are
 * answered by the core with gss_accept_sec_context's result) and
 * RPCSEC_GSS_DESTROY are handled by the core; handlers see only data
 * calls, whose header checksum has been verified, whose sequence number is
 * inside the window and was not seen before, and whose arguments have been
 * checked (krb5i) or decrypted (krb5p) before the procedure's decoder
 * runs.  Replies carry the checksum of the sequence number as their
 * verifier, and successful results are checksummed or encrypted with the
 * call's service.  A krb5i or krb5p reply moves no bulk data
 * (rpcrdma_svc_call_set_bulk is ignored; RFC 8267 section 4.3).
 * RPCRDMA_SVC_REPLY_HDR_LEN and rpcrdma_svc_call_results describe the
 * reply before it is sealed; the reply sent is up to 256 bytes longer.
 *
 * Answers to bad calls (RFC 2203 section 5.3.3): a credential that does
 * not decode, of another version or with an unknown service:
 * AUTH_BADCRED; a data call on an unknown, unfinished or expired context,
 * or whose header checksum does not verify: RPCSEC_GSS_CREDPROBLEM (13);
 * a sequence number >= 0x80000000: RPCSEC_GSS_CTXPROBLEM (14) (the client
 * must make a new context); a replay or a number below the window: no
 * reply, as the RFC says; krb5i / krb5p arguments whose checksum,
 * decryption or embedded sequence number does not match: GARBAGE_ARGS;
 * a failed context creation: the INIT reply carries GSS-API's major and
 * minor status.  A service without rpcrdma_svc_set_gss answers every
 * RPCSEC_GSS call AUTH_BADCRED.
 *
 * Bounds.  Tokens up to 64 KiB, context handles up to 128 bytes
 * (the server's own are 16 random bytes), checksums up to 400 bytes;
 * contexts per client address (max_contexts_per_client) and in all
 * (max_contexts): at the cap a new context replaces the least recently
 * used one of that client, or, at the global cap, the least recently used
 * unfinished one (else the least recently used of all).  A context lives
 * as long as the Kerberos ticket says (GSS-API's time_rec), at most
 * max_lifetime_s; one that is not finished within 60 seconds is dropped.
 *
 * Over RDMA (RFC 8166, RFC 8267 section 4.3).  With krb5 (service none)
 * the body is not transformed, so DDP-eligible items move as with
 * AUTH_SYS: a bulk argument by read chunk at its position, a bulk result
 * by write chunk.  With krb5i and krb5p the checksum or the seal covers
 * the whole body, so nothing in it is DDP-eligible:
 *   - a protected call travels inline (RDMA_MSG) or, when longer than the
 *     inline size, whole by a position-zero read chunk (RDMA_NOMSG); it
 *     has no read chunk at any other position;
 *   - a protected reply travels inline or by a reply chunk; the client
 *     offers no write chunk for it (res_bulk stays untouched: the bulk
 *     result is in the checked or decrypted reply, where
 *     rpcrdma_clnt_get_bulk points, valid until the call completes, as
 *     for any bulk result that came inline; the reply chunk is sized for
 *     res_max + res_bulk_len plus the framing), and the service does not
 *     use a write chunk a peer offers (rpcrdma_svc_call_set_bulk is
 *     ignored).
 *
 * Threads: contexts are shared by the loop thread and whichever thread
 * completes an asynchronous call; each is locked while GSS-API uses it.
 */
#ifndef RPCRDMA_GSS_H
#define RPCRDMA_GSS_H

#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/api.h>
#include <rpcrdma/svc.h>

RPCRDMA_BEGIN_DECLS

#define RPCRDMA_AUTH_RPCSEC_GSS 6u

/* rpc_gss_service_t (RFC 2203). */
enum rpcrdma_gss_service {
	RPCRDMA_GSS_SVC_NONE = 1,      /* krb5 */
	RPCRDMA_GSS_SVC_INTEGRITY = 2, /* krb5i */
	RPCRDMA_GSS_SVC_PRIVACY = 3,   /* krb5p */
};

/*
 * Maps an authenticated principal to local ids, once per context.
 * principal: the client's name as GSS-API displays it ("alice@REALM",
 * "nfs/host@REALM"); localname: gss_localname's answer (the krb5
 * auth_to_local rules, "alice"), or NULL when there is none.  Fill
 * cred->uid, gid, ngids and gids (the other fields are ignored) and
 * return 0; a negative errno refuses the context (its INIT reply carries
 * GSS_S_FAILURE).  Called on the thread that handles the INIT call.
 */
typedef int (*rpcrdma_gss_map_fn)(void *arg, const char *principal, const char *localname,
				  struct rpcrdma_svc_cred *cred);

struct rpcrdma_svc_gss_opts {
	size_t size;               /* sizeof(struct rpcrdma_svc_gss_opts) */
	const char *keytab;        /* acceptor keytab ("FILE:/path" or a path);
				    * NULL: KRB5_KTNAME, else the system's */
	unsigned max_contexts;     /* 0: 1024 */
	unsigned max_contexts_per_client; /* per client address; 0: 16 */
	unsigned max_lifetime_s;   /* 0: 8 hours */
	unsigned window;           /* sequence window; 0: 128 (max 1024) */
	/* NULL: the default, the system's name service as rpc.svcgssd and
	 * gssproxy do: getpwnam(localname) and its groups (at most
	 * RPCRDMA_AUTH_SYS_MAX_GIDS); a principal without a local user maps
	 * to nobody (65534 / 65534). */
	rpcrdma_gss_map_fn map_fn;
	void *map_arg;
};

/* Fills *opts with the defaults (every field 0 or NULL) and sets size. */
RPCRDMA_API void rpcrdma_svc_gss_opts_init(struct rpcrdma_svc_gss_opts *opts);

/*
 * Serves RPCSEC_GSS on svc with the acceptor credentials of the keytab
 * (any service principal in it).  Call it once, before the service runs
 * (before rpcrdma_svc_start or the first rpcrdma_svc_poll).  opts may be
 * NULL (defaults).  0; -ENOTSUP (library built without GSS-API), -EALREADY,
 * -EINVAL (opts->size too small, window over 1024), -ENOKEY (no usable
 * key in the keytab: gss_acquire_cred failed), -ENOMEM.
 */
RPCRDMA_API int rpcrdma_svc_set_gss(struct rpcrdma_svc *svc,
				    const struct rpcrdma_svc_gss_opts *opts);

/* The client's principal for an RPCSEC_GSS call, NULL for any other; valid
 * while the call is in progress. */
RPCRDMA_API const char *rpcrdma_svc_call_principal(const struct rpcrdma_svc_call *call);

/* The call's rpcrdma_gss_service, or 0 when it is not RPCSEC_GSS. */
RPCRDMA_API int rpcrdma_svc_call_gss_service(const struct rpcrdma_svc_call *call);

/* Counters of a service's RPCSEC_GSS contexts and answers. */
struct rpcrdma_svc_gss_stats {
	uint64_t contexts_created;   /* contexts completed (INIT / CONTINUE_INIT) */
	uint64_t contexts_destroyed; /* ... ended by the client (RPCSEC_GSS_DESTROY) */
	uint64_t contexts_evicted;   /* ... dropped to make room (the caps above) */
	uint64_t contexts_expired;   /* ... dropped after their lifetime, or
				      * unfinished after 60 seconds */
	uint64_t contexts_now;       /* in the table now, finished or not */
	uint64_t credproblem_sent;   /* calls answered RPCSEC_GSS_CREDPROBLEM */
	uint64_t ctxproblem_sent;    /* calls answered RPCSEC_GSS_CTXPROBLEM */
	uint64_t replays_dropped;    /* calls dropped: a replay, or below the window */
	uint64_t garbage_args;       /* krb5i / krb5p arguments that did not verify,
				      * decrypt or carry the call's sequence number */
};

/*
 * Copies svc's RPCSEC_GSS counters into *st (at most size bytes of them;
 * all 0 for a service without rpcrdma_svc_set_gss).  Any thread, while
 * svc exists.
 */
RPCRDMA_API void rpcrdma_svc_gss_stats(struct rpcrdma_svc *svc, struct rpcrdma_svc_gss_stats *st,
				       size_t size);

/* ---------------------------------------------------------- client */

struct rpcrdma_clnt; /* <rpcrdma/clnt.h> */

struct rpcrdma_clnt_gss_opts {
	size_t size;           /* sizeof(struct rpcrdma_clnt_gss_opts) */
	const char *target;    /* the server as a host-based service name,
				* "nfs@server.example.org"; required */
	int service;           /* enum rpcrdma_gss_service; 0: NONE (krb5) */
	const char *ccache;    /* credential cache ("FILE:/tmp/krb5cc_1000");
				* NULL: KRB5CCNAME, else the default */
	const char *keytab;    /* a client keytab ("FILE:/etc/user.keytab"):
				* when set, a ticket for its first principal is
				* got from the KDC with its key, into ccache
				* (NULL: a memory cache of the client's own);
				* NULL: no keytab, the ticket of ccache */
};

/* Fills *opts with the defaults (every field 0 or NULL) and sets size. */
RPCRDMA_API void rpcrdma_clnt_gss_opts_init(struct rpcrdma_clnt_gss_opts *opts);

/*
 * Makes the client's calls RPCSEC_GSS (Kerberos 5): creates a context
 * with the server now (RPCSEC_GSS_INIT calls to procedure 0 of the
 * client's program, synchronous), then every call carries the next
 * sequence number and a checksum of its header; with krb5i / krb5p its
 * arguments are checksummed / encrypted, and every reply's verifier and
 * results are checked / decrypted before the request's decoder runs (a
 * reply that fails: -EBADMSG).  Call it while no call is in progress.
 * Stream transports only (TCP, RDMA): a UDP retransmission would reuse
 * its sequence number.  No bulk data moves with krb5i / krb5p (see "Over
 * RDMA" above).  The context lives until the client is destroyed (the
 * server forgets it after its lifetime; a call then gets -EACCES with
 * auth_stat 13 or 14, and calling this again makes a new one).  The
 * verifier of the INIT reply that completes the context must be the
 * server's checksum of the sequence window (RFC 2203 section 5.2.3.1),
 * else -EACCES; every later reply's must be the checksum of its call's
 * sequence number, else that call fails with -EBADMSG.
 * 0; -EINVAL (no target, a bad service, UDP), -ENOTSUP (library built
 * without GSS-API), -ENOKEY (no credentials in ccache), -EACCES (GSS-API
 * or the server refused the context), or the call's errors.
 */
RPCRDMA_API int rpcrdma_clnt_set_auth_gss(struct rpcrdma_clnt *c,
					  const struct rpcrdma_clnt_gss_opts *opts);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_GSS_H */
