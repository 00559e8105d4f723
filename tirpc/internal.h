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
