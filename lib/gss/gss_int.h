/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS version 1 (RFC 2203) internals (not installed): the one
 * header lib/gss/ offers.  Included by the files of lib/gss/, by the
 * folders above it in the layer order (docs/architecture.md): the service
 * core's auth hook and API (lib/svc/svc.c, svc_auth.c, svc_call.c,
 * svc_loop.c, svc_gss.c), the client's (lib/clnt/clnt.c, clnt_msg.c,
 * clnt_gss.c), and by the white-box tests and fuzz targets; nothing else.
 * lib/gss/ itself includes and calls nothing of svc or clnt.
 *
 * Four parts:
 *   - the wire codec (gss_xdr.c): pure functions over buffers, no GSS-API,
 *     built in every configuration;
 *   - the sequence window (gss_seq.c), pure as well;
 *   - the server's contexts and the call hook (gss_ctx.c, gss_svc.c) and
 *   - the client's context and call framing (gss_clnt.c), on MIT GSS-API,
 *     built only with -Dgssapi (RPCRDMA_HAVE_GSS).
 */
#ifndef RPCRDMA_GSS_INT_H
#define RPCRDMA_GSS_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rpcrdma/gss.h>

#include "config.h" /* RPCRDMA_HAVE_GSS */

#define RPCRDMA__AUTH_GSS 6u      /* RPCSEC_GSS flavour number */
#define RPCRDMA__GSS_VERS_1 1u

enum rpcrdma__gss_proc {
	RPCRDMA__GSS_DATA = 0,
	RPCRDMA__GSS_INIT = 1,
	RPCRDMA__GSS_CONTINUE_INIT = 2,
	RPCRDMA__GSS_DESTROY = 3,
};

enum rpcrdma__gss_service {
	RPCRDMA__GSS_SVC_NONE = 1,
	RPCRDMA__GSS_SVC_INTEGRITY = 2,
	RPCRDMA__GSS_SVC_PRIVACY = 3,
};

/* auth_stat values RFC 2203 adds. */
#define RPCRDMA__AUTH_GSS_CREDPROBLEM 13u
#define RPCRDMA__AUTH_GSS_CTXPROBLEM 14u

#define RPCRDMA__GSS_MAXSEQ 0x80000000u
/* Bounds on what a peer may send.  A context handle is an opaque the
 * server chose (ours are RPCRDMA__GSS_HANDLE_LEN bytes); a token is what
 * gss_accept_sec_context / gss_init_sec_context exchange (a Kerberos
 * AP-REQ with a large PAC stays well below 64 KiB); a checksum is a MIC
 * token (tens of bytes for krb5). */
#define RPCRDMA__GSS_HANDLE_MAX 128u
#define RPCRDMA__GSS_TOKEN_MAX 65536u
#define RPCRDMA__GSS_MIC_MAX 400u

/* ---------------------------------------------------------------- codec */

/* rpc_gss_cred_vers_1_t, after its version word. */
struct rpcrdma__gss_cred {
	uint32_t proc;     /* enum rpcrdma__gss_proc (any value as decoded) */
	uint32_t seq;
	uint32_t service;  /* enum rpcrdma__gss_service (any value as decoded) */
	uint32_t handle_len;
	const uint8_t *handle; /* into the decoded buffer */
};

/*
 * Decodes a credential body of len bytes (rpc_gss_cred_t): version 1, the
 * four fields, exactly filling the body.  0, -EPROTONOSUPPORT (another
 * version), -EBADMSG (short, handle over RPCRDMA__GSS_HANDLE_MAX, bytes
 * left over).
 */
int rpcrdma__gss_cred_decode(const uint8_t *p, size_t len, struct rpcrdma__gss_cred *c);
/* Bytes a credential with this handle takes. */
size_t rpcrdma__gss_cred_len(uint32_t handle_len);
/* Encodes it into p[0..room-1]: its length, or -EMSGSIZE / -EINVAL
 * (handle over the bound). */
int rpcrdma__gss_cred_encode(uint8_t *p, size_t room, const struct rpcrdma__gss_cred *c);

/*
 * An XDR opaque<max> at p, inside [p, end): sets *body and *len and returns
 * the pointer past its padding; NULL when its length is over max (checked
 * first) or it runs past end.
 */
const uint8_t *rpcrdma__gss_get_opaque(const uint8_t *p, const uint8_t *end, uint32_t max,
				       const uint8_t **body, uint32_t *len);
/* Writes an opaque (length, bytes, zero padding); the caller checked that
 * 4 + the padded length fit.  Returns the pointer past it. */
uint8_t *rpcrdma__gss_put_opaque(uint8_t *p, const void *body, uint32_t len);
/* 4 + len rounded up to 4. */
size_t rpcrdma__gss_opaque_len(uint32_t len);

/* rpc_gss_init_arg: the token of INIT / CONTINUE_INIT, filling the
 * arguments (trailing bytes are refused).  0 or -EBADMSG. */
int rpcrdma__gss_init_arg_decode(const uint8_t *p, size_t len, const uint8_t **tok,
				 uint32_t *tok_len);

/* rpc_gss_init_res. */
struct rpcrdma__gss_init_res {
	const uint8_t *handle;
	uint32_t handle_len;
	uint32_t major, minor;
	uint32_t window;
	const uint8_t *token;
	uint32_t token_len;
};
size_t rpcrdma__gss_init_res_len(const struct rpcrdma__gss_init_res *r);
/* Its length, -EMSGSIZE or -EINVAL (a field over its bound). */
int rpcrdma__gss_init_res_encode(uint8_t *p, size_t room, const struct rpcrdma__gss_init_res *r);
/* 0 or -EBADMSG (short, over a bound, bytes left over). */
int rpcrdma__gss_init_res_decode(const uint8_t *p, size_t len, struct rpcrdma__gss_init_res *r);

/*
 * rpc_gss_integ_data: databody_integ<> (the sequence number then the
 * arguments or results) and checksum<> (a MIC of databody_integ, at most
 * RPCRDMA__GSS_MIC_MAX).  Bytes after the checksum are ignored (XDR
 * decoders stop where the data ends).  0 or -EBADMSG.
 */
int rpcrdma__gss_integ_decode(const uint8_t *p, size_t len, const uint8_t **body,
			      uint32_t *body_len, const uint8_t **mic, uint32_t *mic_len);
/*
 * Frames in place: the body (blen bytes) is already at p + 4; writes its
 * length word and padding, then the checksum.  Returns the total length,
 * or -EMSGSIZE when room is too small.
 */
int rpcrdma__gss_integ_frame(uint8_t *p, size_t room, uint32_t blen, const uint8_t *mic,
			     uint32_t mic_len);

/* rpc_gss_priv_data: databody_priv<> (a wrap token).  0 or -EBADMSG. */
int rpcrdma__gss_priv_decode(const uint8_t *p, size_t len, const uint8_t **body,
			     uint32_t *body_len);

/* The sequence number that starts a databody (integrity: the checked body;
 * privacy: the unwrapped body).  0 or -EBADMSG (shorter than 4). */
int rpcrdma__gss_body_seq(const uint8_t *body, size_t len, uint32_t *seq);

/* --------------------------------------------------------- seq window */

/* RFC 2203 5.3.3.1: the server remembers which of the last `size` sequence
 * numbers up to the highest seen it accepted. */
#define RPCRDMA__GSS_WINDOW_MAX 1024u

struct rpcrdma__gss_seqwin {
	uint32_t size;  /* 1 .. RPCRDMA__GSS_WINDOW_MAX */
	uint32_t top;   /* highest sequence number accepted */
	bool any;       /* something accepted yet */
	uint64_t bits[RPCRDMA__GSS_WINDOW_MAX / 64]; /* seq % WINDOW_MAX */
};

enum rpcrdma__gss_seq_verdict {
	RPCRDMA__GSS_SEQ_OK,         /* new: accepted and remembered */
	RPCRDMA__GSS_SEQ_DROP,       /* seen already, or below the window */
	RPCRDMA__GSS_SEQ_CTXPROBLEM, /* seq >= MAXSEQ: the context is spent */
};

/* size is clamped to 1 .. RPCRDMA__GSS_WINDOW_MAX. */
void rpcrdma__gss_seqwin_init(struct rpcrdma__gss_seqwin *w, uint32_t size);
/* Checks seq and, when OK, records it.  Call it only after the call's
 * verifier checked out, so that a forged call cannot move the window. */
enum rpcrdma__gss_seq_verdict rpcrdma__gss_seqwin_check(struct rpcrdma__gss_seqwin *w,
							 uint32_t seq);

#if RPCRDMA_HAVE_GSS
/* ------------------------------------ server: contexts (gss_ctx.c) */

#include <pthread.h>
#include <gssapi/gssapi.h>

#define RPCRDMA__GSS_HANDLE_LEN 16u     /* our handles: random bytes */
#define RPCRDMA__GSS_INIT_TIMEOUT_S 60u /* to finish a context */

struct rpcrdma__gss_ctx {
	struct rpcrdma__gss_ctx *next;     /* hash chain (gs->lock) */
	struct rpcrdma__gss_svc *gs;
	uint8_t handle[RPCRDMA__GSS_HANDLE_LEN];
	unsigned refs;                     /* the table's + calls' (gs->lock) */
	bool in_table;                     /* gs->lock */
	bool complete;                     /* set once, under lock and gs->lock */
	uint64_t expiry;                   /* monotonic seconds (gs->lock) */
	uint64_t used;                     /* gs->tick at its last use (gs->lock) */
	struct sockaddr_storage addr;      /* client address, port 0 */
	socklen_t addr_len;
	pthread_mutex_t lock;              /* gctx and win */
	gss_ctx_id_t gctx;
	struct rpcrdma__gss_seqwin win;
	char *principal;                   /* set with complete */
	struct rpcrdma_svc_cred cred;      /* mapped ids, flavour 6 */
};

#define RPCRDMA__GSS_BUCKETS 256u

struct rpcrdma__gss_svc {
	struct rpcrdma_svc_gss_opts opts;  /* defaults applied */
	gss_cred_id_t acceptor;
	pthread_mutex_t lock;
	struct rpcrdma__gss_ctx *bucket[RPCRDMA__GSS_BUCKETS];
	unsigned nctx;
	uint64_t tick;                     /* counts uses, for least recently used */
	/* rpcrdma_svc_gss_stats's counters, under lock */
	uint64_t n_created, n_destroyed, n_evicted, n_expired, n_credproblem, n_ctxproblem,
		n_replays, n_garbage;
};

/* Monotonic seconds. */
uint64_t rpcrdma__gss_now(void);
/* A new unfinished context for a client (peer may be NULL), in the table
 * (making room as gss.h says), with a reference for the caller.  NULL:
 * ENOMEM or no randomness. */
struct rpcrdma__gss_ctx *rpcrdma__gss_ctx_new(struct rpcrdma__gss_svc *gs,
					      const struct sockaddr *peer, socklen_t peer_len);
/* The context with this handle, referenced, if in the table, not expired
 * (an expired one leaves the table) and finished or not as `complete`
 * says. */
struct rpcrdma__gss_ctx *rpcrdma__gss_ctx_find(struct rpcrdma__gss_svc *gs,
					       const uint8_t *handle, uint32_t len, bool complete);
/* Takes it out of the table (DESTROY, a failed INIT); idempotent. */
void rpcrdma__gss_ctx_unlink(struct rpcrdma__gss_ctx *ctx);
/* Marks it complete with its expiry (GSS-API's time_rec, capped). */
void rpcrdma__gss_ctx_complete(struct rpcrdma__gss_ctx *ctx, uint32_t time_rec);
void rpcrdma__gss_ctx_put(struct rpcrdma__gss_ctx *ctx);
/* Maps the principal of a finished context (opts.map_fn or the default)
 * into ctx->cred: 0 or -errno. */
int rpcrdma__gss_ctx_map(struct rpcrdma__gss_ctx *ctx, gss_name_t src, gss_OID mech);
#endif

/* GSS-API major status words an rpc_gss_init_res carries (RFC 2744). */
#define RPCRDMA__GSS_S_COMPLETE 0u
#define RPCRDMA__GSS_S_CONTINUE_NEEDED 1u

/* ------------------------------------------- server: the svc hook */

/* What the hook reads of a call's header and tells back: the service core
 * fills it from its own (svc/svc_int.h's struct rpcrdma__call_hdr). */
struct rpcrdma__gss_hdr {
	uint32_t xid;               /* as on the wire (network byte order) */
	size_t len;                 /* bytes from the message start to the arguments */
	/* the credential and verifier bodies as received (pointers into the
	 * message, valid while the call is dispatched) and the end of the
	 * credential (the header the verifier checksums) */
	const uint8_t *cred_body, *verf;
	uint32_t cred_len, vlen, vflavor;
	size_t cred_end;
	uint32_t auth_stat;         /* out: RPCRDMA__GSS_V_AUTH's reason */
	struct rpcrdma_svc_cred cred; /* out: a data call's mapped ids */
};

struct rpcrdma__gss_svc;    /* a service's contexts (gss_ctx.c) */
struct rpcrdma__gss_call;   /* one RPCSEC_GSS call (gss_svc.c) */
struct rpcrdma__gss_clnt;   /* a client's context (gss_clnt.c) */

enum rpcrdma__gss_verdict {
	RPCRDMA__GSS_V_DATA,    /* a data call: go on, arguments from
				 * rpcrdma__gss_call_args */
	RPCRDMA__GSS_V_REPLY,   /* a control procedure, answered:
				 * rpcrdma__gss_call_reply */
	RPCRDMA__GSS_V_AUTH,    /* MSG_DENIED AUTH_ERROR h->auth_stat */
	RPCRDMA__GSS_V_GARBAGE, /* GARBAGE_ARGS, sealed with the call */
	RPCRDMA__GSS_V_DROP,    /* no reply (a replay, below the window) */
};

/* A reply sealed by rpcrdma__gss_seal is at most this much longer than
 * the plain one with Kerberos 5: the verifier (8 bytes and a MIC token of
 * at most 40: RFC 4121's 16-byte header and a checksum of up to 24 bytes),
 * and the integrity framing and checksum (12 + 44) or the privacy length
 * word and wrap overhead (RFC 4121: header, confounder, encrypted header
 * copy and checksum, at most 88).  Kept small so that a small sealed reply
 * still fits an RPC-over-RDMA inline threshold of 1 KiB; rpcrdma__gss_seal
 * refuses (0) rather than overrun it. */
#define RPCRDMA__GSS_SEAL_SLACK 256u

#if RPCRDMA_HAVE_GSS
/*
 * The service core's hook for a call with flavour RPCSEC_GSS whose
 * credential decoded (h->cred.flavor == RPCRDMA__AUTH_GSS, h->gss_* set).
 * iov / niov as given to the core; peer (may be NULL) counts the client's
 * contexts.  *out (for DATA, REPLY, GARBAGE) belongs to the caller, who
 * frees it with rpcrdma__gss_call_free once the reply is sealed and the
 * arguments released.  For DATA, h->cred gets the mapped ids.
 */
enum rpcrdma__gss_verdict rpcrdma__gss_svc_accept(struct rpcrdma__gss_svc *gs,
						  const struct iovec *iov, unsigned niov,
						  struct rpcrdma__gss_hdr *h,
						  const struct sockaddr *peer, socklen_t peer_len,
						  struct rpcrdma__gss_call **out);
/* DATA: the arguments, from byte `skip` of iov[0..niov-1]. */
void rpcrdma__gss_call_args(const struct rpcrdma__gss_call *g, const struct iovec *iov,
			    unsigned niov, size_t hdr_len, const struct iovec **aiov,
			    unsigned *aniov, size_t *skip);
/* REPLY: the whole reply message and its accept_stat. */
const uint8_t *rpcrdma__gss_call_reply(const struct rpcrdma__gss_call *g, size_t *len,
				       uint32_t *stat);
/* A buffer of len bytes, owned by g, for the plain reply; NULL: ENOMEM. */
uint8_t *rpcrdma__gss_call_scratch(struct rpcrdma__gss_call *g, size_t len);
/*
 * Seals a plain accepted reply (plain[0..plain_len-1]: xid, REPLY,
 * MSG_ACCEPTED, the AUTH_NONE verifier, accept_stat, results) into
 * out[0..room-1]: the verifier becomes the checksum of the sequence
 * number and SUCCESS results are framed for the call's service.  plain is
 * clobbered.  Returns the sealed length, 0 when it cannot be sealed.
 */
size_t rpcrdma__gss_seal(struct rpcrdma__gss_call *g, uint8_t *plain, size_t plain_len,
			 uint8_t *out, size_t room);
/* Whether the call's results may carry bulk data (service none). */
bool rpcrdma__gss_call_bulk_ok(const struct rpcrdma__gss_call *g);
void rpcrdma__gss_call_free(struct rpcrdma__gss_call *g);
/* The call's context's principal (NULL: none yet) and its service. */
const char *rpcrdma__gss_call_principal(const struct rpcrdma__gss_call *g);
int rpcrdma__gss_call_service(const struct rpcrdma__gss_call *g);
/* rpcrdma_svc_set_gss (lib/svc): *o is opts with the defaults applied
 * (0 or -EINVAL), then the service's contexts with the acceptor's
 * credential (*out; 0, -ENOMEM, -ENOKEY). */
int rpcrdma__gss_svc_opts(const struct rpcrdma_svc_gss_opts *opts,
			  struct rpcrdma_svc_gss_opts *o);
int rpcrdma__gss_svc_new(const struct rpcrdma_svc_gss_opts *o, struct rpcrdma__gss_svc **out);
/* Frees a service's contexts (rpcrdma_svc_destroy); NULL is a no-op. */
void rpcrdma__gss_svc_free(struct rpcrdma__gss_svc *gs);
/* The service's counters (rpcrdma_svc_gss_stats); gs NULL: all 0. */
void rpcrdma__gss_svc_stats(struct rpcrdma__gss_svc *gs, struct rpcrdma_svc_gss_stats *st);

/* Client (gss_clnt.c), for lib/clnt.  Writes at q (room bytes) the
 * credential with the next sequence number (*seq) and the verifier: a
 * MIC of hdr[0..] up to the credential's end.  Its length or -errno. */
int rpcrdma__gss_clnt_cred(struct rpcrdma__gss_clnt *g, const uint8_t *hdr, uint8_t *q,
			   size_t room, uint32_t *seq);
/* Whether arguments are framed (krb5i, krb5p). */
bool rpcrdma__gss_clnt_wraps(const struct rpcrdma__gss_clnt *g);
/* The framed arguments in a new buffer (*out, free it). 0 or -errno. */
int rpcrdma__gss_clnt_wrap(struct rpcrdma__gss_clnt *g, uint32_t seq, const uint8_t *args,
			   size_t len, uint8_t **out, size_t *out_len);
/* Checks an accepted reply's verifier and, after SUCCESS, its results:
 * *res / *res_len are the results to decode (inside *owned when they
 * were decrypted: free it after).  0 or -EBADMSG. */
int rpcrdma__gss_clnt_reply(struct rpcrdma__gss_clnt *g, uint32_t seq, const uint8_t *buf,
			    size_t len, size_t body, bool success, const uint8_t **res,
			    size_t *res_len, void **owned);
void rpcrdma__gss_clnt_free(struct rpcrdma__gss_clnt *g);
/*
 * Context creation, GSS-API's part (lib/clnt/clnt_gss.c makes the calls).
 * rpcrdma__gss_clnt_new: a context to be made for target (a host-based
 * service name, "nfs@host") with the credentials of ccache (NULL: the
 * default), or got with the keys of the client keytab keytab (when not
 * NULL; into ccache, else a memory cache of its own) for service (enum
 * rpcrdma__gss_service).  0, -ENOMEM, -ENOKEY, -EINVAL (a bad name).
 */
int rpcrdma__gss_clnt_new(const char *target, const char *ccache, const char *keytab,
			  uint32_t service, struct rpcrdma__gss_clnt **out);
/* One round of gss_init_sec_context with the server's token (in_len 0 on
 * the first): *out / *out_len the token to send (NULL when none; free it).
 * 1: more rounds; 0: done on our side; -EACCES, -ENOMEM. */
int rpcrdma__gss_clnt_step(struct rpcrdma__gss_clnt *g, const uint8_t *in, size_t in_len,
			   uint8_t **out, size_t *out_len);
/* Writes at p (room bytes) the credential of an INIT (first) or a
 * CONTINUE_INIT call: flavour, length, body.  Its length or -EMSGSIZE. */
int rpcrdma__gss_clnt_ctl_cred(const struct rpcrdma__gss_clnt *g, bool first, uint8_t *p,
			       size_t room);
/* The handle an INIT reply gave: 0 or -EBADMSG (empty, over the bound). */
int rpcrdma__gss_clnt_set_handle(struct rpcrdma__gss_clnt *g, const uint8_t *handle,
				 uint32_t len);
/* The verifier of the INIT reply that completed the context (RFC 2203
 * section 5.2.3.1): flavor RPCSEC_GSS, a MIC of the window (4 bytes, big
 * endian) under the new context.  0 or -EBADMSG. */
int rpcrdma__gss_clnt_init_verf(struct rpcrdma__gss_clnt *g, uint32_t window, uint32_t flavor,
				const uint8_t *verf, uint32_t verf_len);
#else
/* Without GSS-API no service has a struct rpcrdma__gss_svc, so the core
 * never calls these but the free functions. */
static inline enum rpcrdma__gss_verdict
rpcrdma__gss_svc_accept(struct rpcrdma__gss_svc *gs, const struct iovec *iov, unsigned niov,
			struct rpcrdma__gss_hdr *h, const struct sockaddr *peer,
			socklen_t peer_len, struct rpcrdma__gss_call **out)
{
	(void)gs, (void)iov, (void)niov, (void)h, (void)peer, (void)peer_len;
	*out = NULL;
	return RPCRDMA__GSS_V_DROP;
}
static inline void rpcrdma__gss_call_args(const struct rpcrdma__gss_call *g,
					  const struct iovec *iov, unsigned niov,
					  size_t hdr_len, const struct iovec **aiov,
					  unsigned *aniov, size_t *skip)
{
	(void)g;
	*aiov = iov, *aniov = niov, *skip = hdr_len;
}
static inline const uint8_t *rpcrdma__gss_call_reply(const struct rpcrdma__gss_call *g,
						     size_t *len, uint32_t *stat)
{
	(void)g;
	*len = 0;
	*stat = 0;
	return NULL;
}
static inline uint8_t *rpcrdma__gss_call_scratch(struct rpcrdma__gss_call *g, size_t len)
{
	(void)g, (void)len;
	return NULL;
}
static inline size_t rpcrdma__gss_seal(struct rpcrdma__gss_call *g, uint8_t *plain,
				       size_t plain_len, uint8_t *out, size_t room)
{
	(void)g, (void)plain, (void)plain_len, (void)out, (void)room;
	return 0;
}
static inline bool rpcrdma__gss_call_bulk_ok(const struct rpcrdma__gss_call *g)
{
	(void)g;
	return true;
}
static inline void rpcrdma__gss_call_free(struct rpcrdma__gss_call *g)
{
	(void)g;
}
static inline void rpcrdma__gss_svc_free(struct rpcrdma__gss_svc *gs)
{
	(void)gs;
}
static inline void rpcrdma__gss_svc_stats(struct rpcrdma__gss_svc *gs,
					  struct rpcrdma_svc_gss_stats *st)
{
	(void)gs;
	memset(st, 0, sizeof(*st));
}
static inline const char *rpcrdma__gss_call_principal(const struct rpcrdma__gss_call *g)
{
	(void)g;
	return NULL;
}
static inline int rpcrdma__gss_call_service(const struct rpcrdma__gss_call *g)
{
	(void)g;
	return 0;
}
static inline int rpcrdma__gss_svc_opts(const struct rpcrdma_svc_gss_opts *opts,
					struct rpcrdma_svc_gss_opts *o)
{
	(void)opts, (void)o;
	return -ENOTSUP;
}
static inline int rpcrdma__gss_svc_new(const struct rpcrdma_svc_gss_opts *o,
				       struct rpcrdma__gss_svc **out)
{
	(void)o;
	*out = NULL;
	return -ENOTSUP;
}
/* No client has a struct rpcrdma__gss_clnt either. */
static inline int rpcrdma__gss_clnt_cred(struct rpcrdma__gss_clnt *g, const uint8_t *hdr,
					 uint8_t *q, size_t room, uint32_t *seq)
{
	(void)g, (void)hdr, (void)q, (void)room, (void)seq;
	return -ENOTSUP;
}
static inline bool rpcrdma__gss_clnt_wraps(const struct rpcrdma__gss_clnt *g)
{
	(void)g;
	return false;
}
static inline int rpcrdma__gss_clnt_wrap(struct rpcrdma__gss_clnt *g, uint32_t seq,
					 const uint8_t *args, size_t len, uint8_t **out,
					 size_t *out_len)
{
	(void)g, (void)seq, (void)args, (void)len, (void)out, (void)out_len;
	return -ENOTSUP;
}
static inline int rpcrdma__gss_clnt_reply(struct rpcrdma__gss_clnt *g, uint32_t seq,
					  const uint8_t *buf, size_t len, size_t body,
					  bool success, const uint8_t **res, size_t *res_len,
					  void **owned)
{
	(void)g, (void)seq, (void)buf, (void)len, (void)body, (void)success, (void)res,
		(void)res_len, (void)owned;
	return -ENOTSUP;
}
static inline void rpcrdma__gss_clnt_free(struct rpcrdma__gss_clnt *g)
{
	(void)g;
}
static inline int rpcrdma__gss_clnt_new(const char *target, const char *ccache,
					const char *keytab, uint32_t service,
					struct rpcrdma__gss_clnt **out)
{
	(void)target, (void)ccache, (void)keytab, (void)service;
	*out = NULL;
	return -ENOTSUP;
}
static inline int rpcrdma__gss_clnt_step(struct rpcrdma__gss_clnt *g, const uint8_t *in,
					 size_t in_len, uint8_t **out, size_t *out_len)
{
	(void)g, (void)in, (void)in_len;
	*out = NULL;
	*out_len = 0;
	return -ENOTSUP;
}
static inline int rpcrdma__gss_clnt_ctl_cred(const struct rpcrdma__gss_clnt *g, bool first,
					     uint8_t *p, size_t room)
{
	(void)g, (void)first, (void)p, (void)room;
	return -ENOTSUP;
}
static inline int rpcrdma__gss_clnt_set_handle(struct rpcrdma__gss_clnt *g,
					       const uint8_t *handle, uint32_t len)
{
	(void)g, (void)handle, (void)len;
	return -ENOTSUP;
}
#endif

#endif /* RPCRDMA_GSS_INT_H */
