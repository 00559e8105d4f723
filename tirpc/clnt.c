/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client side of the bridge: librpcrdma's RDMA client behind
 * libtirpc's CLIENT (see <rpcrdma/tirpc.h>).
 *
 * cl_call encodes the call (header, cl_auth's credentials, arguments with
 * AUTH_WRAP) twice through tx_enc: counting, to size the send buffer and
 * find the bulk item the transport may move to a read chunk, then into the
 * buffer.  It offers a reply buffer and a write-chunk buffer of recvsz each
 * (the client keeps registered bounce buffers per connection, so this
 * costs no registration per call), waits with rpcrdma_client_call(), and
 * decodes the reply through tx_dec, which splices the write chunk's bytes
 * back in at the opaque item they were cut from.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include <rpcrdma/client.h>
#include <rpcrdma/poller.h>
#include <rpcrdma/tirpc.h>

#include "internal.h"

struct tclnt {
	CLIENT cl;
	struct rpcrdma_poller *poller;
	struct rpcrdma_client *rc;
	struct sockaddr_storage srv;
	socklen_t srv_len;
	rpcprog_t prog;
	rpcvers_t vers;
	uint32_t xid;                   /* the last call's */
	struct timeval timeout;
	bool timeout_set;               /* CLSET_TIMEOUT overrides the call's */
	struct rpc_err err;
	u_int sendsz, recvsz;
	char *sbuf;
	size_t scap;
	char *rbuf, *bbuf;              /* reply, write chunk: recvsz each */
};

static struct tclnt *tc(CLIENT *cl)
{
	return (struct tclnt *)cl->cl_private;
}

/* xdr_void as an xdrproc_t, without a cast between function types. */
static bool_t no_results(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

static enum clnt_stat fail(struct tclnt *c, enum clnt_stat st, int err)
{
	c->err.re_status = st;
	c->err.re_errno = err;
	return st;
}

static bool encode_call(CLIENT *cl, XDR *xs, struct rpc_msg *msg, rpcproc_t proc,
			xdrproc_t xargs, void *argsp)
{
	int32_t p = (int32_t)proc;
	return xdr_callhdr(xs, msg) && xdr_int32_t(xs, &p) && AUTH_MARSHALL(cl->cl_auth, xs) &&
	       AUTH_WRAP(cl->cl_auth, xs, xargs, argsp);
}

/* The credential encoded at the start of a call message (see
 * internal.h): its header is 6 words, then the flavour, length and body. */
static enum rpcrdma__tx_auth call_auth(const char *m, size_t len)
{
	uint32_t w[2];

	if (len < 8 * 4)
		return RPCRDMA__TX_AUTH_SEALED;
	memcpy(w, m + 6 * 4, sizeof(w));
	size_t blen = ntohl(w[1]) <= len - 8 * 4 ? ntohl(w[1]) : 0;
	return rpcrdma__tx_auth_kind((int)ntohl(w[0]), m + 8 * 4, blen);
}

static enum clnt_stat grow_sbuf(struct tclnt *c, size_t len)
{
	if (len <= c->scap)
		return RPC_SUCCESS;
	char *b = realloc(c->sbuf, len);
	if (!b)
		return fail(c, RPC_SYSTEMERROR, ENOMEM);
	c->sbuf = b;
	c->scap = len;
	return RPC_SUCCESS;
}

/*
 * The RPC call message in c->sbuf; sets *len, the bulk item and *sealed
 * (no write chunk for the reply: RFC 8267 section 4.3).  With AUTH_NONE
 * and AUTH_SYS it encodes twice, counting first.  Any other cl_auth
 * (RPCSEC_GSS: a sequence number and a MIC or token per encoding, made
 * over XDR_INLINE of the header or body just encoded) is encoded once,
 * into room for the arguments counted alone, two credentials of
 * MAX_AUTH_BYTES and RPCRDMA__TX_WRAP_SLACK; the bulk item stays only
 * with RPCSEC_GSS's service none.
 */
static enum clnt_stat build_call(CLIENT *cl, rpcproc_t proc, xdrproc_t xargs, void *argsp,
				 size_t *len, size_t *boff, size_t *blen, bool *sealed)
{
	struct tclnt *c = tc(cl);
	struct rpc_msg msg;
	struct rpcrdma__tx_enc e;
	XDR xs;
	bool once = rpcrdma__tx_auth_kind(cl->cl_auth->ah_cred.oa_flavor, NULL, 0) !=
		    RPCRDMA__TX_AUTH_PLAIN;

	memset(&msg, 0, sizeof(msg));
	msg.rm_xid = c->xid;
	msg.rm_direction = CALL;
	msg.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	msg.rm_call.cb_prog = c->prog;
	msg.rm_call.cb_vers = c->vers;
	rpcrdma__tx_enc_init(&xs, &e, NULL, c->sendsz, RPCRDMA__TX_BULK_MIN);
	if (once ? !xargs(&xs, argsp) : !encode_call(cl, &xs, &msg, proc, xargs, argsp))
		return fail(c, RPC_CANTENCODEARGS, e.pos >= c->sendsz ? EMSGSIZE : 0);
	*len = e.pos;
	if (once) {
		*len += 8 * 4 + 2 * (2 * 4 + MAX_AUTH_BYTES) + RPCRDMA__TX_WRAP_SLACK;
		if (*len > c->sendsz)
			*len = c->sendsz;
	}
	if (grow_sbuf(c, *len) != RPC_SUCCESS)
		return RPC_SYSTEMERROR;
	rpcrdma__tx_enc_init(&xs, &e, c->sbuf, *len, RPCRDMA__TX_BULK_MIN);
	if (!encode_call(cl, &xs, &msg, proc, xargs, argsp) || (!once && e.pos != *len))
		return fail(c, RPC_CANTENCODEARGS, once && e.pos >= *len ? EMSGSIZE : 0);
	*len = e.pos;
	enum rpcrdma__tx_auth a = once ? call_auth(c->sbuf, e.pos) : RPCRDMA__TX_AUTH_PLAIN;
	*sealed = a == RPCRDMA__TX_AUTH_SEALED;
	*boff = e.bulk_off;
	*blen = *sealed ? 0 : e.bulk_len;
	return RPC_SUCCESS;
}

static enum clnt_stat transport_error(struct tclnt *c, const struct rpcrdma_client_call *k,
				      int rc)
{
	switch (rc) {
	case -ETIMEDOUT:
		return fail(c, RPC_TIMEDOUT, ETIMEDOUT);
	case -EMSGSIZE:
		return fail(c, k->reply_got > k->reply_len ? RPC_CANTRECV : RPC_CANTSEND, EMSGSIZE);
	case -ECONNRESET:
	case -ECANCELED:
	case -EREMOTEIO:
	case -EPROTONOSUPPORT:
	case -ENODEV:
		return fail(c, RPC_CANTRECV, -rc);
	default:
		return fail(c, RPC_CANTSEND, -rc);
	}
}

static enum clnt_stat decode_reply(CLIENT *cl, const struct rpcrdma_client_call *k,
				   xdrproc_t xres, void *resp)
{
	struct tclnt *c = tc(cl);
	struct rpcrdma__tx_dec d;
	struct rpc_msg reply;
	XDR xd;
	struct iovec iov = { c->rbuf, k->reply_got };

	rpcrdma__tx_dec_init(&xd, &d, &iov, 1);
	if (k->bulk_got)
		rpcrdma__tx_dec_bulk(&d, c->bbuf, k->bulk_got);
	memset(&reply, 0, sizeof(reply));
	reply.acpted_rply.ar_verf = _null_auth;
	reply.acpted_rply.ar_results.where = NULL;
	reply.acpted_rply.ar_results.proc = no_results;
	if (!xdr_replymsg(&xd, &reply) || reply.rm_xid != c->xid)
		return fail(c, RPC_CANTDECODERES, 0);
	_seterr_reply(&reply, &c->err);
	if (c->err.re_status == RPC_SUCCESS) {
		if (!AUTH_VALIDATE(cl->cl_auth, &reply.acpted_rply.ar_verf)) {
			c->err.re_status = RPC_AUTHERROR;
			c->err.re_why = AUTH_INVALIDRESP;
		} else if (!AUTH_UNWRAP(cl->cl_auth, &xd, xres, resp)) {
			/* What the results' routine allocated before it failed
			 * (an array of the count the server claims) is freed:
			 * a stub returning NULL leaves nobody to free it. */
			XDR xf;
			memset(&xf, 0, sizeof(xf));
			xf.x_op = XDR_FREE;
			(void)xres(&xf, resp);
			c->err.re_status = RPC_CANTDECODERES;
		}
	}
	if (reply.acpted_rply.ar_verf.oa_base) {
		XDR xf;
		memset(&xf, 0, sizeof(xf));
		xf.x_op = XDR_FREE;
		(void)xdr_opaque_auth(&xf, &reply.acpted_rply.ar_verf);
	}
	return c->err.re_status;
}

static enum clnt_stat tc_call(CLIENT *cl, rpcproc_t proc, xdrproc_t xargs, void *argsp,
			      xdrproc_t xres, void *resp, struct timeval tout)
{
	struct tclnt *c = tc(cl);
	size_t len, boff, blen;
	bool sealed = false;
	enum clnt_stat st;

	memset(&c->err, 0, sizeof(c->err));
	if (!c->rbuf && !(c->rbuf = malloc(c->recvsz)))
		return fail(c, RPC_SYSTEMERROR, ENOMEM);
	if (!c->bbuf && !(c->bbuf = malloc(c->recvsz)))
		return fail(c, RPC_SYSTEMERROR, ENOMEM);
	c->xid++;
	st = build_call(cl, proc, xargs, argsp, &len, &boff, &blen, &sealed);
	if (st != RPC_SUCCESS)
		return st;
	struct iovec iov = { c->sbuf, len };
	struct rpcrdma_client_call k = {
		.size = sizeof(k),
		.iov = &iov,
		.iovcnt = 1,
		.bulk_offset = blen ? boff : 0,
		.bulk_length = blen,
		.reply_buf = c->rbuf,
		.reply_len = c->recvsz,
		.reply_bulk = sealed ? NULL : c->bbuf,
		.reply_bulk_len = sealed ? 0 : c->recvsz,
	};
	if (c->timeout_set || (tout.tv_sec == 0 && tout.tv_usec == 0))
		tout = c->timeout;
	long long ms = (long long)tout.tv_sec * 1000 + tout.tv_usec / 1000;
	if (ms <= 0)
		ms = 1;
	if (ms > 0x7fffffff)
		ms = 0x7fffffff;
	int rc = rpcrdma_client_call(c->rc, &k, (int)ms);
	if (rc)
		return transport_error(c, &k, rc);
	return decode_reply(cl, &k, xres, resp);
}

static void tc_abort(CLIENT *cl)
{
	(void)cl;
}

static void tc_geterr(CLIENT *cl, struct rpc_err *errp)
{
	*errp = tc(cl)->err;
}

static bool_t tc_freeres(CLIENT *cl, xdrproc_t xres, void *resp)
{
	(void)cl;
	xdr_free(xres, resp);
	return TRUE;
}

static void tc_free(struct tclnt *c)
{
	rpcrdma_client_destroy(c->rc);
	rpcrdma_poller_destroy(c->poller);
	free(c->cl.cl_netid);
	free(c->sbuf);
	free(c->rbuf);
	free(c->bbuf);
	free(c);
}

static void tc_destroy(CLIENT *cl)
{
	tc_free(tc(cl));
}

static bool_t tc_control(CLIENT *cl, u_int req, void *info)
{
	struct tclnt *c = tc(cl);

	switch (req) {
	case CLSET_FD_CLOSE:
	case CLSET_FD_NCLOSE:
		return TRUE;
	}
	if (!info)
		return FALSE;
	switch (req) {
	case CLSET_TIMEOUT: {
		const struct timeval *tv = info;
		if (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1000000)
			return FALSE;
		c->timeout = *tv;
		c->timeout_set = true;
		return TRUE;
	}
	case CLGET_TIMEOUT:
		*(struct timeval *)info = c->timeout;
		return TRUE;
	case CLGET_SERVER_ADDR:
		memcpy(info, &c->srv, c->srv_len);
		return TRUE;
	case CLGET_SVC_ADDR: {
		struct netbuf *nb = info;
		nb->buf = &c->srv;
		nb->len = nb->maxlen = c->srv_len;
		return TRUE;
	}
	case CLGET_XID:
		*(u_int32_t *)info = c->xid;
		return TRUE;
	case CLSET_XID:
		c->xid = *(u_int32_t *)info - 1;
		return TRUE;
	case CLGET_VERS:
		*(u_int32_t *)info = (u_int32_t)c->vers;
		return TRUE;
	case CLSET_VERS:
		c->vers = *(u_int32_t *)info;
		return TRUE;
	case CLGET_PROG:
		*(u_int32_t *)info = (u_int32_t)c->prog;
		return TRUE;
	case CLSET_PROG:
		c->prog = *(u_int32_t *)info;
		return TRUE;
	default:
		return FALSE;
	}
}

static const struct clnt_ops tc_ops = {
	.cl_call = tc_call,
	.cl_abort = tc_abort,
	.cl_geterr = tc_geterr,
	.cl_freeres = tc_freeres,
	.cl_destroy = tc_destroy,
	.cl_control = tc_control,
};

static CLIENT *create_fail(struct tclnt *c, enum clnt_stat st, int err)
{
	/* (rpc_createerr is a macro, hence no name for the struct here) */
	__rpc_createerr()->cf_stat = st;
	__rpc_createerr()->cf_error.re_errno = err;
	if (c)
		tc_free(c);
	return NULL;
}

CLIENT *rpcrdma_tirpc_clnt_create(const char *addr, unsigned short port, rpcprog_t prog,
				  rpcvers_t vers, u_int sendsz, u_int recvsz)
{
	struct tclnt *c = calloc(1, sizeof(*c));
	struct timeval now;
	int rc;

	if (!c)
		return create_fail(NULL, RPC_SYSTEMERROR, ENOMEM);
	if (!addr || rpcrdma__tx_parse_addr(addr, port, &c->srv, &c->srv_len))
		return create_fail(c, RPC_UNKNOWNHOST, EINVAL);
	if (port == 0) {
		rc = rpcrdma__tx_rpcb_port(&c->srv, c->srv_len, prog, vers, &port);
		if (rc)
			return create_fail(c, rc == -ENOENT ? RPC_PROGNOTREGISTERED
						: RPC_PMAPFAILURE, -rc);
		if (c->srv.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&c->srv)->sin6_port = htons(port);
		else
			((struct sockaddr_in *)&c->srv)->sin_port = htons(port);
	}
	c->prog = prog;
	c->vers = vers;
	c->sendsz = sendsz ? sendsz : RPCRDMA_TIRPC_DEFAULT_SIZE;
	c->recvsz = recvsz ? recvsz : RPCRDMA_TIRPC_DEFAULT_SIZE;
	c->timeout.tv_sec = 25;
	gettimeofday(&now, NULL);
	c->xid = (uint32_t)getpid() ^ (uint32_t)now.tv_sec ^ (uint32_t)now.tv_usec;
	c->cl.cl_ops = (struct clnt_ops *)&tc_ops; /* never written */
	c->cl.cl_private = c;
	c->cl.cl_netid = strdup(c->srv.ss_family == AF_INET6 ? "rdma6" : "rdma");
	if (!c->cl.cl_netid)
		return create_fail(c, RPC_SYSTEMERROR, ENOMEM);

	struct rpcrdma_poller_opts po;
	rpcrdma_poller_opts_init(&po);
	po.mode = RPCRDMA_POLLER_WORKQUEUE;
	po.threads = 1;
	rc = rpcrdma_poller_create(&po, &c->poller);
	if (rc)
		return create_fail(c, RPC_SYSTEMERROR, -rc);
	rc = rpcrdma_client_create(c->poller, (const struct sockaddr *)&c->srv, NULL, &c->rc);
	if (rc)
		return create_fail(c, RPC_SYSTEMERROR, -rc);
	c->cl.cl_auth = authnone_create();
	if (!c->cl.cl_auth)
		return create_fail(c, RPC_SYSTEMERROR, ENOMEM);
	return &c->cl;
}
