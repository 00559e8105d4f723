/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RPC client's messages (RFC 5531): the call header and arguments, the
 * reply header and results, the bulk data item of either.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/svc.h> /* the credential flavors */

#include "clnt_int.h"
#include "gss/gss_int.h"
#include "util/byteorder.h"

bool rpcrdma__clnt_msg_xid(const uint8_t *buf, size_t len, uint32_t *xid, uint32_t *type)
{
	if (len < 8)
		return false;
	*xid = rpcrdma__get_be32(buf);
	*type = rpcrdma__get_be32(buf + 4);
	return true;
}

/* Writes r's call header at p (RPCRDMA__CLNT_HDR_MAX bytes); returns its
 * length, or -errno (RPCSEC_GSS: no sequence number or checksum). */
static int call_header(struct rpcrdma_clnt *c, uint8_t *p, struct rpcrdma__creq *r)
{
	uint8_t *q = p;

	q = rpcrdma__put_be32(q, r->xid);
	q = rpcrdma__put_be32(q, RPCRDMA__RPC_CALL);
	q = rpcrdma__put_be32(q, RPCRDMA__RPC_VERSION);
	q = rpcrdma__put_be32(q, c->prog);
	q = rpcrdma__put_be32(q, c->vers);
	q = rpcrdma__put_be32(q, r->req->proc);
	pthread_mutex_lock(&c->auth_lock);
	if (c->gss) {
		/* credential and verifier: lib/gss */
		int n = rpcrdma__gss_clnt_cred(c->gss, p, q, RPCRDMA__CLNT_HDR_MAX - 24,
					       &r->gss_seq);
		pthread_mutex_unlock(&c->auth_lock);
		r->gss = n > 0;
		return n < 0 ? n : 24 + n;
	}
	memcpy(q, c->cred, c->cred_len);
	q += c->cred_len;
	pthread_mutex_unlock(&c->auth_lock);
	q = rpcrdma__put_be32(q, RPCRDMA_AUTH_NONE);  /* verifier */
	q = rpcrdma__put_be32(q, 0);
	return (int)(q - p);
}

/* RPCSEC_GSS krb5i / krb5p: r->msg's arguments framed (a new r->msg). */
static int wrap_args(struct rpcrdma_clnt *c, struct rpcrdma__creq *r, size_t hlen)
{
	uint8_t *out, *msg;
	size_t n;

	pthread_mutex_lock(&c->auth_lock);
	struct rpcrdma__gss_clnt *g = c->gss;
	pthread_mutex_unlock(&c->auth_lock);
	int err = rpcrdma__gss_clnt_wrap(g, r->gss_seq, r->msg + 4 + hlen, r->len - hlen, &out,
					 &n);
	if (err)
		return err;
	if (!(msg = malloc(4 + hlen + n + 4))) {
		free(out);
		return -ENOMEM;
	}
	memcpy(msg + 4, r->msg + 4, hlen);
	memcpy(msg + 4 + hlen, out, n);
	free(out);
	free(r->msg);
	r->msg = msg;
	r->len = hlen + n;
	r->bulk_off = r->bulk_len = 0; /* not DDP-eligible (RFC 8267) */
	r->gss_wrapped = true;
	return 0;
}

int rpcrdma__clnt_encode(struct rpcrdma_clnt *c, struct rpcrdma__creq *r)
{
	struct rpcrdma_clnt_req *req = r->req;
	struct rpcrdma__clnt_enc e;
	size_t room = req->encode ? req->args_max : 0, hlen;
	int err;

	if (room > SIZE_MAX - 4 - RPCRDMA__CLNT_HDR_MAX - 4)
		return -EMSGSIZE;
	r->msg = malloc(4 + RPCRDMA__CLNT_HDR_MAX + room + 4);
	if (!r->msg)
		return -ENOMEM;
	err = call_header(c, r->msg + 4, r);
	if (err < 0)
		return err;
	hlen = (size_t)err;
	memset(&e, 0, sizeof(e));
	e.magic = RPCRDMA__CLNT_ENC_MAGIC;
	e.base = hlen;
	rpcrdma_xdr_enc_init(&e.x, r->msg + 4 + hlen, room);
	if (req->encode) {
		err = req->encode(&e.x, req->args);
		if (err)
			return err < 0 ? err : -EINVAL;
	}
	r->len = hlen + rpcrdma_xdr_enc_len(&e.x);
	r->bulk_off = e.bulk_off;
	r->bulk_len = e.bulk_len;
	if (r->gss && rpcrdma__gss_clnt_wraps(c->gss))
		return wrap_args(c, r, hlen);
	return 0;
}

/*
 * enc must be the encoder an encode callback was given (clnt.h): it is the
 * first member of a struct rpcrdma__clnt_enc.  The magic catches most
 * misuse; any other stream is outside the contract.
 */
int rpcrdma_clnt_put_bulk(struct rpcrdma_xdr_enc *enc, const void *data, uint32_t len)
{
	struct rpcrdma__clnt_enc *e = (struct rpcrdma__clnt_enc *)enc;
	size_t pos;
	uint8_t *p;

	if (!enc || (len && !data) || len > (1u << 31) || e->magic != RPCRDMA__CLNT_ENC_MAGIC ||
	    e->bulk_len)
		return -EINVAL;
	if (rpcrdma_xdr_enc_room(enc) < rpcrdma_xdr_opaque_size(len))
		return -EMSGSIZE;
	pos = rpcrdma_xdr_enc_len(enc);
	rpcrdma_xdr_put_u32(enc, len);
	p = rpcrdma_xdr_reserve(enc, len);
	if (len)
		memcpy(p, data, len);
	if (len) {
		e->bulk_off = e->base + pos + 4;
		e->bulk_len = len;
	}
	return 0;
}

int rpcrdma_clnt_get_bulk(struct rpcrdma_xdr_dec *dec, const void **data, uint32_t *len,
			  uint32_t max)
{
	struct rpcrdma__clnt_dec *d = (struct rpcrdma__clnt_dec *)dec;
	uint32_t n;

	if (!dec || !data || !len || d->magic != RPCRDMA__CLNT_DEC_MAGIC)
		return -EINVAL;
	struct rpcrdma_xdr_dec save = *dec;
	if (rpcrdma_xdr_get_u32(dec, &n) || n > max)
		goto bad;
	if (d->bulk && d->bulk_got && !d->bulk_done) {
		/* the data came by write chunk: only its length is inline */
		if (n != d->bulk_got)
			goto bad;
		*data = d->bulk;
	} else if (n == 0) {
		*data = NULL;
	} else if (rpcrdma_xdr_get_fixed_ref(dec, data, n)) {
		goto bad;
	}
	d->bulk_done = true;
	*len = n;
	return 0;
bad:
	*dec = save;
	return -EBADMSG;
}

/* Skips the reply's verifier, an opaque_auth (flavor, body <= 400
 * bytes), noting where it is in h. */
static int skip_verf(struct rpcrdma_xdr_dec *x, struct rpcrdma__clnt_reply *h)
{
	if (rpcrdma_xdr_get_u32(x, &h->verf_flavor) || rpcrdma_xdr_get_u32(x, &h->verf_len) ||
	    h->verf_len > RPCRDMA__CLNT_MAX_AUTH)
		return -EBADMSG;
	h->verf = rpcrdma_xdr_dec_pos(x);
	return rpcrdma_xdr_skip(x, h->verf_len) ? -EBADMSG : 0;
}

int rpcrdma__clnt_reply_decode(const uint8_t *buf, size_t len, struct rpcrdma__clnt_reply *h)
{
	struct rpcrdma_xdr_dec x;
	uint32_t type;

	memset(h, 0, sizeof(*h));
	rpcrdma_xdr_dec_init_buf(&x, buf, len);
	if (rpcrdma_xdr_get_u32(&x, &h->xid) || rpcrdma_xdr_get_u32(&x, &type) || type != RPCRDMA__RPC_REPLY ||
	    rpcrdma_xdr_get_u32(&x, &h->reply_stat))
		return -EBADMSG;
	if (h->reply_stat == RPCRDMA__MSG_ACCEPTED) {
		if (skip_verf(&x, h) || rpcrdma_xdr_get_u32(&x, &h->accept_stat))
			return -EBADMSG;
		if (h->accept_stat == 2 &&
		    (rpcrdma_xdr_get_u32(&x, &h->low) || rpcrdma_xdr_get_u32(&x, &h->high)))
			return -EBADMSG;
		h->body = rpcrdma_xdr_dec_pos(&x);
		return 0;
	}
	if (h->reply_stat != RPCRDMA__MSG_DENIED || rpcrdma_xdr_get_u32(&x, &h->accept_stat))
		return -EBADMSG;
	if (h->accept_stat == RPCRDMA__RPC_MISMATCH)
		return rpcrdma_xdr_get_u32(&x, &h->low) || rpcrdma_xdr_get_u32(&x, &h->high)
			       ? -EBADMSG : 0;
	if (h->accept_stat == RPCRDMA__AUTH_ERROR)
		return rpcrdma_xdr_get_u32(&x, &h->auth_stat) ? -EBADMSG : 0;
	return -EBADMSG;
}

void rpcrdma__clnt_complete(struct rpcrdma_clnt *c, struct rpcrdma__creq *r, int status)
{
	(void)c;
	free(r->msg);
	r->msg = NULL;
	if (status == -ETIMEDOUT)
		rpcrdma__clnt_count(c, RPCRDMA_STAT_TIMEOUTS, 1);
	r->done(r->req, status, r->arg);
	free(r);
}

static int reply_status(struct rpcrdma_clnt *c, struct rpcrdma__creq *r,
			const struct rpcrdma__clnt_reply *h, const uint8_t *buf, size_t len,
			const void *bulk, size_t bulk_got)
{
	struct rpcrdma_clnt_req *req = r->req;
	struct rpcrdma__clnt_dec d;
	const uint8_t *res = buf + h->body;
	size_t res_len = len - h->body;
	void *owned = NULL;

	req->reply_stat = h->reply_stat;
	req->accept_stat = h->accept_stat;
	req->auth_stat = h->auth_stat;
	if (req->size >= offsetof(struct rpcrdma_clnt_req, vers_high) + sizeof(req->vers_high)) {
		req->vers_low = h->low;
		req->vers_high = h->high;
	}
	if (h->reply_stat)
		return -EACCES;
	/* RPCSEC_GSS: the verifier, then the results (lib/gss) */
	if (r->gss && rpcrdma__gss_clnt_reply(c->gss, r->gss_seq, buf, len, h->body,
					      h->accept_stat == 0, &res, &res_len, &owned))
		return -EBADMSG;
	if (h->accept_stat)
		return -EREMOTEIO;
	if (!req->decode) {
		free(owned);
		return 0;
	}
	memset(&d, 0, sizeof(d));
	d.magic = RPCRDMA__CLNT_DEC_MAGIC;
	d.bulk = bulk;
	d.bulk_got = bulk_got;
	d.verf = buf + h->verf;
	d.verf_flavor = h->verf_flavor;
	d.verf_len = h->verf_len;
	rpcrdma_xdr_dec_init_buf(&d.x, res, res_len);
	int rc = req->decode(&d.x, req->res) ? -EBADMSG : 0;
	free(owned);
	return rc;
}

void rpcrdma__clnt_complete_reply(struct rpcrdma_clnt *c, struct rpcrdma__creq *r,
				  const uint8_t *buf, size_t len, const void *bulk,
				  size_t bulk_got)
{
	struct rpcrdma__clnt_reply h;
	int status;

	status = rpcrdma__clnt_reply_decode(buf, len, &h);
	if (!status)
		status = reply_status(c, r, &h, buf, len, bulk, bulk_got);
	rpcrdma__clnt_count(c, RPCRDMA_STAT_REPLIES, 1);
	rpcrdma__clnt_complete(c, r, status);
}
