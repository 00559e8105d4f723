/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Registration of an RDMA transport with rpcbind.  libtirpc's rpcb_set()
 * turns the address into a universal address through its table of known
 * netids (tcp, udp, tcp6, udp6, local) and so refuses "rdma"/"rdma6";
 * this makes the universal address itself and sends RPCBPROC_SET over
 * rpcbind's AF_LOCAL socket as rpcb_set() does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpc/rpcb_prot.h>

#include <rpcrdma/tirpc.h>

#include "internal.h"

/* xdr_rpcb and xdr_bool as xdrproc_t, without casts between function
 * types. */
static bool_t x_rpcb(XDR *x, ...)
{
	va_list ap;
	va_start(ap, x);
	RPCB *p = va_arg(ap, RPCB *);
	va_end(ap);
	return xdr_rpcb(x, p);
}

static bool_t x_bool(XDR *x, ...)
{
	va_list ap;
	va_start(ap, x);
	bool_t *p = va_arg(ap, bool_t *);
	va_end(ap);
	return xdr_bool(x, p);
}

/* "h1.h2...p1.p2" (RFC 1833) of an IPv4 or IPv6 address with port. */
static int uaddr_of(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	unsigned port;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		if (!inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host)))
			return -EINVAL;
		port = ntohs(s6->sin6_port);
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		if (!inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host)))
			return -EINVAL;
		port = ntohs(s4->sin_port);
	}
	int n = snprintf(buf, len, "%s.%u.%u", host, port >> 8, port & 255);
	return n > 0 && (size_t)n < len ? 0 : -EINVAL;
}

/* A CLIENT for rpcbind over its AF_LOCAL socket, and that socket. */
static CLIENT *local_rpcbind(int *fdp)
{
	static const char *const paths[] = { "/run/rpcbind.sock", _PATH_RPCBINDSOCK };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct sockaddr_un sun = { .sun_family = AF_LOCAL };
		int fd = socket(AF_LOCAL, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return NULL;
		strncpy(sun.sun_path, paths[i], sizeof(sun.sun_path) - 1);
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			struct netbuf nb = { sizeof(sun), sizeof(sun), &sun };
			CLIENT *cl = clnt_vc_create(fd, &nb, RPCBPROG, RPCBVERS, 0, 0);
			if (cl) {
				*fdp = fd;
				return cl;
			}
		}
		close(fd);
	}
	return NULL;
}

int rpcrdma_tirpc_rpcb_set(const SVCXPRT *xprt, rpcprog_t prog, rpcvers_t vers)
{
	const struct sockaddr_storage *local;
	char uaddr[INET6_ADDRSTRLEN + 16], owner[16];
	int rc = rpcrdma__tx_svc_local(xprt, &local);

	if (rc)
		return rc;
	rc = uaddr_of(local, uaddr, sizeof(uaddr));
	if (rc)
		return rc;
	snprintf(owner, sizeof(owner), "%u", (unsigned)geteuid());
	RPCB parms = {
		.r_prog = prog,
		.r_vers = vers,
		.r_netid = xprt->xp_netid,
		.r_addr = uaddr,
		.r_owner = owner,
	};
	int fd = -1;
	CLIENT *cl = local_rpcbind(&fd);
	if (!cl)
		return -ECONNREFUSED;
	bool_t ok = FALSE;
	struct timeval tv = { 5, 0 };
	enum clnt_stat st = clnt_call(cl, RPCBPROC_SET, x_rpcb, &parms, x_bool, &ok, tv);
	clnt_destroy(cl);
	close(fd);
	if (st != RPC_SUCCESS)
		return -EIO;
	return ok ? 0 : -EEXIST;
}
