/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The port of an RDMA service, asked of the rpcbind of its host, for a
 * client created with port 0 (as clnt_create() asks rpcbind for tcp).
 * rpcbind serves no RDMA transport, so the question goes over TCP to port
 * 111: RPCBPROC_DUMP (RFC 1833 version 4), and the entry of netid "rdma"
 * or "rdma6" (by the address family) for the program and version.
 */
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpc/rpcb_prot.h>

#include "internal.h"

/* xdr_rpcblist_ptr and xdr_void as xdrproc_t, without casts. */
static bool_t x_list(XDR *x, ...)
{
	va_list ap;

	va_start(ap, x);
	rpcblist_ptr *p = va_arg(ap, rpcblist_ptr *);
	va_end(ap);
	return xdr_rpcblist_ptr(x, p);
}

static bool_t x_void(XDR *x, ...)
{
	(void)x;
	return TRUE;
}

/* The port of a universal address "h1...p1.p2" (RFC 1833 section 2.2). */
static int uaddr_port(const char *uaddr, unsigned short *port)
{
	const char *p2 = strrchr(uaddr, '.'), *p1;
	unsigned long hi, lo;
	char *e;

	if (!p2 || p2 == uaddr)
		return -EBADMSG;
	for (p1 = p2 - 1; p1 > uaddr && *p1 != '.'; p1--)
		;
	if (*p1 != '.')
		return -EBADMSG;
	hi = strtoul(p1 + 1, &e, 10);
	if (e != p2 || hi > 255)
		return -EBADMSG;
	lo = strtoul(p2 + 1, &e, 10);
	if (*e || lo > 255 || p2[1] == 0)
		return -EBADMSG;
	*port = (unsigned short)(hi << 8 | lo);
	return 0;
}

/* A CLIENT to rpcbind version 4 over TCP at ss's host, port 111. */
static CLIENT *rpcb_client(const struct sockaddr_storage *ss, socklen_t len, int *fd)
{
	struct sockaddr_storage a = *ss;
	struct netbuf nb = { .maxlen = len, .len = len, .buf = &a };

	if (a.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a)->sin6_port = htons(111);
	else
		((struct sockaddr_in *)&a)->sin_port = htons(111);
	*fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return NULL;
	if (connect(*fd, (struct sockaddr *)&a, len)) {
		int e = errno;

		close(*fd);
		*fd = -1;
		errno = e;
		return NULL;
	}
	return clnt_vc_create(*fd, &nb, RPCBPROG, RPCBVERS4, 0, 0);
}

int rpcrdma__tx_rpcb_port(const struct sockaddr_storage *ss, socklen_t len, rpcprog_t prog,
			  rpcvers_t vers, unsigned short *port)
{
	const char *netid = ss->ss_family == AF_INET6 ? "rdma6" : "rdma";
	struct timeval tmo = { .tv_sec = 10 };
	rpcblist_ptr list = NULL;
	int fd, err = -ENOENT;
	CLIENT *cl = rpcb_client(ss, len, &fd);

	if (!cl) {
		err = fd < 0 ? -errno : -ENOMEM;
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (clnt_call(cl, RPCBPROC_DUMP, x_void, NULL, x_list, (char *)&list, tmo) != RPC_SUCCESS)
		err = -EIO;
	for (rpcblist_ptr p = list; p && err == -ENOENT; p = p->rpcb_next)
		if (p->rpcb_map.r_prog == prog && p->rpcb_map.r_vers == vers &&
		    p->rpcb_map.r_netid && !strcmp(p->rpcb_map.r_netid, netid) &&
		    p->rpcb_map.r_addr)
			err = uaddr_port(p->rpcb_map.r_addr, port);
	xdr_free(x_list, (char *)&list);
	clnt_destroy(cl);
	close(fd);
	return err;
}
