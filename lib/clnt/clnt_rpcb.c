/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcbind queries (RFC 1833 version 4) for clients made without a port,
 * as libtirpc's clnt_create asks them, to the host's port 111:
 *  - tcp, tcp6, udp, udp6: GETADDR over that same transport.  rpcbind
 *    looks a GETADDR up by the netid of the transport it came in on, not
 *    by r_netid (rpcbproc_getaddr_com: find_service(..., xp_netid)), so a
 *    udp port must be asked over UDP.
 *  - rdma, rdma6: rpcbind serves no RDMA transport, so GETADDR cannot
 *    name them; DUMP (over TCP) lists every registration, rdma ones
 *    included, and the entry for the program, version and netid is taken.
 * Only the port of the universal address is used: the client keeps the
 * address it was given (an IPv6 link-local address keeps its scope).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clnt_int.h"

#define RPCB_PROG 100000u
#define RPCB_VERS 4u
#define RPCBPROC_GETADDR 3u
#define RPCBPROC_DUMP 4u
#define UADDR_MAX 128u
#define NETID_MAX 64u
#define OWNER_MAX 255u
#define DUMP_MAX 4096u   /* entries read at most */

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

/* DUMP's answer, searched for one entry. */
struct dump_res {
	uint32_t prog, vers;
	const char *netid;
	char uaddr[UADDR_MAX + 1];
	bool found;
};

static int dump_decode(struct rpcrdma_xdr_dec *x, void *res)
{
	struct dump_res *d = res;
	char netid[NETID_MAX + 1], uaddr[UADDR_MAX + 1];
	uint32_t prog, vers;
	int more;

	for (unsigned i = 0; i < DUMP_MAX; i++) {
		if (rpcrdma_xdr_get_bool(x, &more))
			return -EBADMSG;
		if (!more)
			return 0;
		uint32_t olen;
		if (rpcrdma_xdr_get_u32(x, &prog) || rpcrdma_xdr_get_u32(x, &vers) ||
		    rpcrdma_xdr_get_string(x, netid, sizeof(netid), NETID_MAX) ||
		    rpcrdma_xdr_get_string(x, uaddr, sizeof(uaddr), UADDR_MAX) ||
		    rpcrdma_xdr_get_u32(x, &olen) || olen > OWNER_MAX || rpcrdma_xdr_skip(x, olen))
			return -EBADMSG;
		if (!d->found && prog == d->prog && vers == d->vers && !strcmp(netid, d->netid)) {
			memcpy(d->uaddr, uaddr, sizeof(uaddr));
			d->found = true;
		}
	}
	return 0;   /* a list that long: what was read is enough */
}

/* One call to rpcbind over qnetid; 0 or the call's error. */
static int rpcb_call(const struct sockaddr *rpcb, socklen_t len, const char *qnetid,
		     const struct rpcrdma_clnt_opts *opts, struct rpcrdma_clnt_req *req)
{
	struct rpcrdma_clnt_opts o = *opts;
	struct rpcrdma_clnt *c;
	int err;

	o.timeout_ms = o.connect_timeout_ms;
	o.retrans_ms = o.connect_timeout_ms / 5 > 0 ? o.connect_timeout_ms / 5 : 1;
	o.log_fn = NULL;
	/* rpcb has its port: no rpcbind query of its own */
	err = rpcrdma__clnt_new(qnetid, rpcb, len, RPCB_PROG, RPCB_VERS, &o, &c);
	if (!err)
		err = rpcrdma__clnt_start(c);
	if (err)
		return err;
	err = rpcrdma_clnt_call(c, req);
	rpcrdma_clnt_destroy(c);
	return err;
}

int rpcrdma__clnt_rpcb_getaddr(const struct sockaddr *rpcb, socklen_t len, const char *netid,
			       uint32_t prog, uint32_t vers, const struct rpcrdma_clnt_opts *opts,
			       uint16_t *port)
{
	bool v6 = rpcb->sa_family == AF_INET6, udp = !strncmp(netid, "udp", 3);
	struct getaddr_args a = { .prog = prog, .vers = vers, .netid = netid };
	struct dump_res d = { .prog = prog, .vers = vers, .netid = netid };
	char uaddr[UADDR_MAX + 1] = "";
	struct rpcrdma_clnt_req req = {
		.size = sizeof(req),
		.proc = RPCBPROC_GETADDR,
		.encode = getaddr_encode,
		.args = &a,
		.args_max = 64 + NETID_MAX,
		.decode = getaddr_decode,
		.res = uaddr,
		.res_max = 256,
	};
	int err;

	if (!strncmp(netid, "rdma", 4)) {
		req.proc = RPCBPROC_DUMP;
		req.encode = NULL;
		req.args_max = 0;
		req.decode = dump_decode;
		req.res = &d;
		req.res_max = 1u << 20;
		err = rpcb_call(rpcb, len, v6 ? "tcp6" : "tcp", opts, &req);
		if (err)
			return err;
		if (!d.found)
			return -ENOENT;
		return rpcrdma__clnt_uaddr_port(d.uaddr, rpcb->sa_family, port);
	}
	err = rpcb_call(rpcb, len, udp ? (v6 ? "udp6" : "udp") : (v6 ? "tcp6" : "tcp"), opts,
			&req);
	if (err)
		return err;
	return rpcrdma__clnt_uaddr_port(uaddr, rpcb->sa_family, port);
}
