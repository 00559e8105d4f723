/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma-tirpc internals: XDR streams that libtirpc's xdrproc_t
 * routines run on.
 *
 * tx_dec decodes from an array of iovecs (the received RPC message as the
 * transport hands it over, read chunks already spliced in).  A client's
 * reply may also have had one opaque item moved to a write chunk: the
 * transport leaves its length word in the message and delivers its bytes
 * (without XDR pad) apart.  tx_dec_bulk() gives the stream those bytes: the
 * first XDR_GETBYTES asking for exactly that many bytes takes them from
 * there, and a following XDR_GETBYTES of its pad length returns zeros
 * without consuming the message.  (xdr_opaque, xdr_bytes and xdr_string
 * read an item's bytes then its pad this way; the sender marks the first
 * of its largest items, so equal-length items earlier in the reply would
 * be taken from inline first: the server side of this bridge marks the
 * first largest, so they agree.)
 *
 * tx_enc encodes into one flat buffer, or only counts (buf NULL; cap still
 * bounds the count), and
 * notes the first largest XDR_PUTBYTES item of at least bulk_min bytes
 * starting at a 4-byte boundary: the bulk item a transport may move to a
 * read or write chunk (its pad follows it in the buffer).
 */
#ifndef RPCRDMA_TIRPC_INTERNAL_H
#define RPCRDMA_TIRPC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include <rpc/rpc.h>

struct rpcrdma__tx_dec {
	const struct iovec *iov;
	unsigned iovcnt;
	unsigned i;                 /* current iovec */
	size_t off;                 /* offset in it */
	size_t pos;                 /* offset in the message */
	const char *bulk;           /* write-chunk bytes, or NULL */
	size_t bulk_len;
	bool bulk_taken;
	unsigned pad_skip;          /* pad bytes of the taken item */
};

struct rpcrdma__tx_enc {
	char *buf;                  /* NULL: count only */
	size_t cap;
	size_t pos;
	size_t bulk_min;
	size_t bulk_off, bulk_len;  /* bulk_len 0: none */
};

/* Bulk items below this size are not worth a chunk. */
#define RPCRDMA__TX_BULK_MIN 1024u

void rpcrdma__tx_dec_init(XDR *x, struct rpcrdma__tx_dec *d, const struct iovec *iov,
			  unsigned iovcnt);
void rpcrdma__tx_dec_bulk(struct rpcrdma__tx_dec *d, const void *bulk, size_t len);
void rpcrdma__tx_enc_init(XDR *x, struct rpcrdma__tx_enc *e, void *buf, size_t cap,
			  size_t bulk_min);

/*
 * What a call's credential says about encoding its body (calls and
 * replies).  AUTH_NONE, AUTH_SYS and AUTH_SHORT leave the body as the
 * xdrproc_t makes it: PLAIN, it may be encoded twice (counting first) and
 * its largest opaque item may go by chunk.  RPCSEC_GSS (RFC 2203) signs
 * or seals it in AUTH_WRAP / SVCAUTH_WRAP, and libtirpc's authgss takes a
 * GSS sequence number and makes a MIC (gss_get_mic) or a token (gss_wrap)
 * each time, over XDR_INLINE of what it just encoded, which a counting
 * stream cannot give: ONCE, encode it once, into a buffer of room enough.
 * A DATA call with integrity or privacy, or any other flavour, is also
 * SEALED: nothing in the body is DDP-eligible (RFC 8267 section 4.3), no
 * bulk item.  body/len: the credential's body (rpc_gss_cred_vers_1_t for
 * RPCSEC_GSS: version, procedure, sequence number, service, handle).
 */
enum rpcrdma__tx_auth { RPCRDMA__TX_AUTH_PLAIN, RPCRDMA__TX_AUTH_ONCE, RPCRDMA__TX_AUTH_SEALED };
enum rpcrdma__tx_auth rpcrdma__tx_auth_kind(int flavor, const void *body, size_t len);
/* Room beyond the plain encoding for what RPCSEC_GSS adds to a body: the
 * length and sequence number words and a krb5 MIC or wrap token (at most
 * about 100 bytes with any enctype MIT supports). */
#define RPCRDMA__TX_WRAP_SLACK 1024u

/* Parses a numeric IPv4 or IPv6 address ("%ifname" for a scope; NULL or
 * "" for INADDR_ANY) with port into *ss.  0 or -EINVAL. */
struct sockaddr_storage;
int rpcrdma__tx_parse_addr(const char *addr, unsigned short port,
			   struct sockaddr_storage *ss, socklen_t *len);
/* The port rpcbind at ss's host (TCP port 111, RPCBPROC_DUMP) has for prog
 * and vers under netid rdma (IPv4) or rdma6 (IPv6).  0, -ENOENT (not
 * registered), -EIO (the query failed), -EBADMSG (a bad universal
 * address), or the connect's errno (-ECONNREFUSED: no rpcbind). */
int rpcrdma__tx_rpcb_port(const struct sockaddr_storage *ss, socklen_t len, rpcprog_t prog,
			  rpcvers_t vers, unsigned short *port);

/* The bound address of a rendezvous transport of svc.c: 0, or -EINVAL
 * for any other transport. */
int rpcrdma__tx_svc_local(const SVCXPRT *xprt, const struct sockaddr_storage **local);

#endif /* RPCRDMA_TIRPC_INTERNAL_H */
