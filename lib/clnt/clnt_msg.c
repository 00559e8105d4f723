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
#include "util/byteorder.h"

bool rpcrdma__clnt_msg_xid(const uint8_t *buf, size_t len, uint32_t *xid, uint32_t *type)
{
	if (len < 8)
		return false;
	*xid = rpcrdma__get_be32(buf);
	*type = rpcrdma__get_be32(buf + 4);
	return true;
}

/* Writes the call header at p; returns its length. */
static size_t call_header(struct rpcrdma_clnt *c, uint8_t *p, uint32_t xid, uint32_t proc)
{
	uint8_t *q = p;

	q = rpcrdma__put_be32(q, xid);
	q = rpcrdma__put_be32(q, RPCRDMA__RPC_CALL);
	q = rpcrdma__put_be32(q, RPCRDMA__RPC_VERSION);
	q = rpcrdma__put_be32(q, c->prog);
	q = rpcrdma__put_be32(q, c->vers);
	q = rpcrdma__put_be32(q, proc);
	pthread_mutex_lock(&c->auth_lock);
	memcpy(q, c->cred, c->cred_len);
	q += c->cred_len;
	pthread_mutex_unlock(&c->auth_lock);
	q = rpcrdma__put_be32(q, RPCRDMA_AUTH_NONE);  /* verifier */
	q = rpcrdma__put_be32(q, 0);
	return (size_t)(q - p);
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
	hlen = call_header(c, r->msg + 4, r->xid, req->proc);
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

/* Skips an opaque_auth (flavor, body <= 400 bytes). */
static int skip_auth(struct rpcrdma_xdr_dec *x)
{
	uint32_t flavor, n;

	if (rpcrdma_xdr_get_u32(x, &flavor) || rpcrdma_xdr_get_u32(x, &n) ||
	    n > RPCRDMA__CLNT_MAX_AUTH || rpcrdma_xdr_skip(x, n))
		return -EBADMSG;
	return 0;
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
		if (skip_auth(&x) || rpcrdma_xdr_get_u32(&x, &h->accept_stat))
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

static int reply_status(struct rpcrdma_clnt_req *req, const struct rpcrdma__clnt_reply *h,
			const uint8_t *buf, size_t len, const void *bulk, size_t bulk_got)
{
	struct rpcrdma__clnt_dec d;

	req->reply_stat = h->reply_stat;
	req->accept_stat = h->accept_stat;
	req->auth_stat = h->auth_stat;
	if (req->size >= offsetof(struct rpcrdma_clnt_req, vers_high) + sizeof(req->vers_high)) {
		req->vers_low = h->low;
		req->vers_high = h->high;
	}
	if (h->reply_stat)
		return -EACCES;
	if (h->accept_stat)
		return -EREMOTEIO;
	if (!req->decode)
		return 0;
	memset(&d, 0, sizeof(d));
	d.magic = RPCRDMA__CLNT_DEC_MAGIC;
	d.bulk = bulk;
	d.bulk_got = bulk_got;
	rpcrdma_xdr_dec_init_buf(&d.x, buf + h->body, len - h->body);
	return req->decode(&d.x, req->res) ? -EBADMSG : 0;
}

void rpcrdma__clnt_complete_reply(struct rpcrdma_clnt *c, struct rpcrdma__creq *r,
				  const uint8_t *buf, size_t len, const void *bulk,
				  size_t bulk_got)
{
	struct rpcrdma__clnt_reply h;
	int status;

	status = rpcrdma__clnt_reply_decode(buf, len, &h);
	if (!status)
		status = reply_status(r->req, &h, buf, len, bulk, bulk_got);
	rpcrdma__clnt_count(c, RPCRDMA_STAT_REPLIES, 1);
	rpcrdma__clnt_complete(c, r, status);
}
