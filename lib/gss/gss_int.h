/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RPCSEC_GSS version 1 (RFC 2203) internals (not installed).  Included by
 * the files of lib/gss/, by the service core's auth hook (lib/svc/svc.c,
 * lib/svc/svc_auth.c) and by the white-box tests and fuzz targets; nothing
 * else.
 *
 * Three parts:
 *   - the wire codec (gss_xdr.c): pure functions over buffers, no GSS-API,
 *     built in every configuration;
 *   - the sequence window (gss_seq.c), pure as well;
 *   - the server's contexts and the call hook (gss_svc*.c), on MIT
 *     GSS-API, built only with -Dgssapi (RPCRDMA_HAVE_GSS).
 */
#ifndef RPCRDMA_GSS_INT_H
#define RPCRDMA_GSS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif /* RPCRDMA_GSS_INT_H */
