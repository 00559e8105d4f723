/* SPDX-License-Identifier: BSD-2-Clause */
/* XDR streams over iovecs and over a send buffer: see internal.h. */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* ---- decoding from iovecs ---- */

static struct rpcrdma__tx_dec *dec(XDR *x)
{
	return (struct rpcrdma__tx_dec *)x->x_private;
}

/* Copies (or skips, to == NULL) n bytes from the cursor. */
static bool dec_take(struct rpcrdma__tx_dec *d, char *to, size_t n)
{
	while (n) {
		if (d->i >= d->iovcnt)
			return false;
		const struct iovec *v = &d->iov[d->i];
		size_t k = v->iov_len - d->off;
		if (k > n)
			k = n;
		if (to) {
			memcpy(to, (const char *)v->iov_base + d->off, k);
			to += k;
		}
		d->off += k;
		d->pos += k;
		n -= k;
		if (d->off == v->iov_len) {
			d->i++;
			d->off = 0;
		}
	}
	/* Step over empty iovecs so that x_inline sees the next bytes. */
	while (d->i < d->iovcnt && d->iov[d->i].iov_len == d->off) {
		d->i++;
		d->off = 0;
	}
	return true;
}

static bool_t dec_getlong(XDR *x, long *lp)
{
	struct rpcrdma__tx_dec *d = dec(x);
	uint32_t v;
	d->pad_skip = 0;
	if (!dec_take(d, (char *)&v, 4))
		return FALSE;
	*lp = (long)(int32_t)ntohl(v);
	return TRUE;
}

static bool_t dec_getbytes(XDR *x, char *addr, u_int len)
{
	struct rpcrdma__tx_dec *d = dec(x);
	if (d->pad_skip && len == d->pad_skip) {
		memset(addr, 0, len);
		d->pad_skip = 0;
		return TRUE;
	}
	d->pad_skip = 0;
	if (d->bulk && !d->bulk_taken && len == d->bulk_len) {
		memcpy(addr, d->bulk, len);
		d->bulk_taken = true;
		d->pad_skip = (unsigned)((4 - (len & 3)) & 3);
		return TRUE;
	}
	return dec_take(d, addr, len) ? TRUE : FALSE;
}

static u_int dec_getpostn(XDR *x)
{
	return (u_int)dec(x)->pos;
}

static bool_t dec_setpostn(XDR *x, u_int pos)
{
	struct rpcrdma__tx_dec *d = dec(x);
	d->i = 0;
	d->off = 0;
	d->pos = 0;
	d->pad_skip = 0;
	return dec_take(d, NULL, pos) ? TRUE : FALSE;
}

/* A pointer to the next len bytes when they are contiguous and aligned. */
static int32_t *dec_inline(XDR *x, u_int len)
{
	struct rpcrdma__tx_dec *d = dec(x);
	if (d->i >= d->iovcnt)
		return NULL;
	const struct iovec *v = &d->iov[d->i];
	char *p = (char *)v->iov_base + d->off;
	if (v->iov_len - d->off < len || ((uintptr_t)p & 3))
		return NULL;
	d->pad_skip = 0;
	(void)dec_take(d, NULL, len);
	return (int32_t *)(void *)p;
}

static bool_t no_putlong(XDR *x, const long *lp)
{
	(void)x;
	(void)lp;
	return FALSE;
}

static bool_t no_putbytes(XDR *x, const char *addr, u_int len)
{
	(void)x;
	(void)addr;
	(void)len;
	return FALSE;
}

static void no_destroy(XDR *x)
{
	(void)x;
}

static bool_t no_control(XDR *x, int req, void *arg)
{
	(void)x;
	(void)req;
	(void)arg;
	return FALSE;
}

static const struct xdr_ops dec_ops = {
	.x_getlong = dec_getlong,
	.x_putlong = no_putlong,
	.x_getbytes = dec_getbytes,
	.x_putbytes = no_putbytes,
	.x_getpostn = dec_getpostn,
	.x_setpostn = dec_setpostn,
	.x_inline = dec_inline,
	.x_destroy = no_destroy,
	.x_control = no_control,
};

void rpcrdma__tx_dec_init(XDR *x, struct rpcrdma__tx_dec *d, const struct iovec *iov,
			  unsigned iovcnt)
{
	memset(d, 0, sizeof(*d));
	d->iov = iov;
	d->iovcnt = iovcnt;
	(void)dec_take(d, NULL, 0);
	memset(x, 0, sizeof(*x));
	x->x_op = XDR_DECODE;
	x->x_ops = &dec_ops;
	x->x_private = d;
}

void rpcrdma__tx_dec_bulk(struct rpcrdma__tx_dec *d, const void *bulk, size_t len)
{
	d->bulk = bulk;
	d->bulk_len = len;
	d->bulk_taken = false;
}

/* ---- encoding into a buffer ---- */

static struct rpcrdma__tx_enc *enc(XDR *x)
{
	return (struct rpcrdma__tx_enc *)x->x_private;
}

static bool enc_room(struct rpcrdma__tx_enc *e, size_t n)
{
	return n <= e->cap - e->pos;
}

static bool_t enc_putlong(XDR *x, const long *lp)
{
	struct rpcrdma__tx_enc *e = enc(x);
	if (!enc_room(e, 4))
		return FALSE;
	if (e->buf) {
		uint32_t v = htonl((uint32_t)*lp);
		memcpy(e->buf + e->pos, &v, 4);
	}
	e->pos += 4;
	return TRUE;
}

static bool_t enc_putbytes(XDR *x, const char *addr, u_int len)
{
	struct rpcrdma__tx_enc *e = enc(x);
	if (!enc_room(e, len))
		return FALSE;
	if (len >= e->bulk_min && len > e->bulk_len && !(e->pos & 3)) {
		e->bulk_off = e->pos;
		e->bulk_len = len;
	}
	if (e->buf && len)
		memcpy(e->buf + e->pos, addr, len);
	e->pos += len;
	return TRUE;
}

static u_int enc_getpostn(XDR *x)
{
	return (u_int)enc(x)->pos;
}

static bool_t enc_setpostn(XDR *x, u_int pos)
{
	struct rpcrdma__tx_enc *e = enc(x);
	if (pos > e->cap)
		return FALSE;
	e->pos = pos;
	if (e->bulk_len && e->bulk_off + e->bulk_len > pos)
		e->bulk_len = 0;
	return TRUE;
}

static int32_t *enc_inline(XDR *x, u_int len)
{
	struct rpcrdma__tx_enc *e = enc(x);
	if (!e->buf || !enc_room(e, len))
		return NULL;
	char *p = e->buf + e->pos;
	if ((uintptr_t)p & 3)
		return NULL;
	e->pos += len;
	return (int32_t *)(void *)p;
}

static bool_t no_getlong(XDR *x, long *lp)
{
	(void)x;
	(void)lp;
	return FALSE;
}

static bool_t no_getbytes(XDR *x, char *addr, u_int len)
{
	(void)x;
	(void)addr;
	(void)len;
	return FALSE;
}

static const struct xdr_ops enc_ops = {
	.x_getlong = no_getlong,
	.x_putlong = enc_putlong,
	.x_getbytes = no_getbytes,
	.x_putbytes = enc_putbytes,
	.x_getpostn = enc_getpostn,
	.x_setpostn = enc_setpostn,
	.x_inline = enc_inline,
	.x_destroy = no_destroy,
	.x_control = no_control,
};

void rpcrdma__tx_enc_init(XDR *x, struct rpcrdma__tx_enc *e, void *buf, size_t cap,
			  size_t bulk_min)
{
	memset(e, 0, sizeof(*e));
	e->buf = buf;
	e->cap = cap;
	e->bulk_min = bulk_min ? bulk_min : 1;
	memset(x, 0, sizeof(*x));
	x->x_op = XDR_ENCODE;
	x->x_ops = &enc_ops;
	x->x_private = e;
}

/* ---- what the credential does to the body ---- */

enum rpcrdma__tx_auth rpcrdma__tx_auth_kind(int flavor, const void *body, size_t len)
{
	uint32_t w[4];

	switch (flavor) {
	case AUTH_NONE:
	case AUTH_SYS:
	case AUTH_SHORT:
		return RPCRDMA__TX_AUTH_PLAIN;
	case RPCSEC_GSS:
		if (!body || len < sizeof(w))
			return RPCRDMA__TX_AUTH_ONCE;
		memcpy(w, body, sizeof(w));
		/* DATA (0) with integrity (2) or privacy (3) */
		if (ntohl(w[1]) == 0 && ntohl(w[3]) >= 2)
			return RPCRDMA__TX_AUTH_SEALED;
		return RPCRDMA__TX_AUTH_ONCE;
	default:
		return RPCRDMA__TX_AUTH_SEALED;
	}
}
