/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcbind GETADDR (RFC 1833 version 4, procedure 3) for clients made
 * without a port, as libtirpc's clnt_create asks it: over TCP to the
 * host's port 111, for the client's netid.  Only the port of the
 * universal address is used: the client keeps the address it was given
 * (an IPv6 link-local address keeps its scope).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clnt_int.h"

#define RPCB_PROG 100000u
#define RPCB_VERS 4u
#define RPCBPROC_GETADDR 3u
#define UADDR_MAX 128u

struct getaddr_args {
	uint32_t prog, vers;
	const char *netid;
};

static int getaddr_encode(struct rpcrdma_xdr_enc *x, const void *arg)
{
	const struct getaddr_args *a = arg;

	/* rpcb: r_prog, r_vers, r_netid, r_addr (""), r_owner ("") */
	if (rpcrdma_xdr_put_u32(x, a->prog) || rpcrdma_xdr_put_u32(x, a->vers) ||
	    rpcrdma_xdr_put_string(x, a->netid) || rpcrdma_xdr_put_string(x, "") ||
	    rpcrdma_xdr_put_string(x, ""))
		return -EMSGSIZE;
	return 0;
}

static int getaddr_decode(struct rpcrdma_xdr_dec *x, void *res)
{
	return rpcrdma_xdr_get_string(x, res, UADDR_MAX + 1, UADDR_MAX);
}

static int uaddr_octet(const char *s, const char *end, unsigned *v)
{
	unsigned n = 0;

	if (s == end || end - s > 3)
		return -EBADMSG;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EBADMSG;
		n = n * 10 + (unsigned)(*s - '0');
	}
	if (n > 255)
		return -EBADMSG;
	*v = n;
	return 0;
}

int rpcrdma__clnt_uaddr_port(const char *uaddr, int family, uint16_t *port)
{
	char host[UADDR_MAX + 1];
	unsigned char bin[16];
	const char *p2, *p1;
	unsigned hi, lo;
	size_t n = strlen(uaddr);

	if (n == 0)
		return -ENOENT;
	if (n > UADDR_MAX || !(p2 = strrchr(uaddr, '.')) || p2 == uaddr)
		return -EBADMSG;
	for (p1 = p2 - 1; p1 > uaddr && *p1 != '.'; p1--)
		;
	if (*p1 != '.' || uaddr_octet(p1 + 1, p2, &hi) ||
	    uaddr_octet(p2 + 1, uaddr + n, &lo))
		return -EBADMSG;
	memcpy(host, uaddr, (size_t)(p1 - uaddr));
	host[p1 - uaddr] = 0;
	if (inet_pton(family, host, bin) != 1 || (hi == 0 && lo == 0))
		return -EBADMSG;
	*port = (uint16_t)(hi << 8 | lo);
	return 0;
}

int rpcrdma__clnt_rpcb_getaddr(const struct sockaddr *rpcb, socklen_t len, const char *netid,
			       uint32_t prog, uint32_t vers, const struct rpcrdma_clnt_opts *opts,
			       uint16_t *port)
{
	struct getaddr_args a = { .prog = prog, .vers = vers, .netid = netid };
	char uaddr[UADDR_MAX + 1] = "";
	struct rpcrdma_clnt_req req = {
		.size = sizeof(req),
		.proc = RPCBPROC_GETADDR,
		.encode = getaddr_encode,
		.args = &a,
		.args_max = 64,
		.decode = getaddr_decode,
		.res = uaddr,
		.res_max = 256,
	};
	struct rpcrdma_clnt_opts o = *opts;
	struct rpcrdma_clnt *c;
	int err;

	o.timeout_ms = o.connect_timeout_ms;
	o.log_fn = NULL;
	err = rpcrdma_clnt_create(rpcb->sa_family == AF_INET6 ? "tcp6" : "tcp", rpcb, len,
				  RPCB_PROG, RPCB_VERS, &o, &c);
	if (err)
		return err;
	err = rpcrdma_clnt_call(c, &req);
	rpcrdma_clnt_destroy(c);
	if (err)
		return err;
	return rpcrdma__clnt_uaddr_port(uaddr, rpcb->sa_family, port);
}
