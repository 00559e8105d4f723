/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The clients a user makes: from an address whose port may be 0 (asked of
 * rpcbind, clnt_rpcb.c), and from a host name, as libtirpc's clnt_create()
 * does: the name resolved by getaddrinfo() in the netid's family, each
 * address tried in turn.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "clnt_int.h"

/* "tcp6", "udp6", "rdma6": IPv6; the others IPv4 (the netid itself is
 * checked by rpcrdma_clnt_create). */
static int netid_family(const char *netid)
{
	size_t n = strlen(netid);

	return n && netid[n - 1] == '6' ? AF_INET6 : AF_INET;
}

/* A getaddrinfo() failure as a negative errno: -ENXIO for a name that does
 * not resolve, -EAFNOSUPPORT for a numeric address of the other family. */
static int gai_errno(int rc, const char *host)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;

	switch (rc) {
	case EAI_AGAIN:
		return -EAGAIN;
	case EAI_MEMORY:
		return -ENOMEM;
	case EAI_SYSTEM:
		return errno ? -errno : -EIO;
	case EAI_NONAME:
	case EAI_NODATA:
	case EAI_ADDRFAMILY:
	case EAI_FAMILY:
		if (getaddrinfo(host, NULL, &hints, &res) == 0) {
			freeaddrinfo(res);
			return -EAFNOSUPPORT;
		}
		return -ENXIO;
	}
	return -EIO;
}

static void set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

static uint16_t get_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

/* Port 0: rpcbind's answer for the netid, asked of the host's port 111. */
static int clnt_rpcbind(struct rpcrdma_clnt *c)
{
	struct sockaddr_storage rpcb = c->addr;
	uint16_t port;
	int err;

	set_port((struct sockaddr *)&rpcb, 111);
	err = rpcrdma__clnt_rpcb_getaddr((struct sockaddr *)&rpcb, c->addrlen, c->netid,
					 c->prog, c->vers, &c->opts, &port);
	if (err)
		return err;
	set_port((struct sockaddr *)&c->addr, port);
	return 0;
}

int rpcrdma_clnt_create(const char *netid, const struct sockaddr *addr, socklen_t addrlen,
			uint32_t prog, uint32_t vers, const struct rpcrdma_clnt_opts *opts,
			struct rpcrdma_clnt **out)
{
	struct rpcrdma_clnt *c;
	int err;

	if (!out)
		return -EINVAL;
	err = rpcrdma__clnt_new(netid, addr, addrlen, prog, vers, opts, &c);
	if (err)
		return err;
	if (get_port((struct sockaddr *)&c->addr) == 0) {
		err = clnt_rpcbind(c);
		if (err) {
			rpcrdma__clnt_free(c);
			return err;
		}
	}
	err = rpcrdma__clnt_start(c);
	if (err)
		return err;
	*out = c;
	return 0;
}

int rpcrdma_clnt_create_host(const char *netid, const char *host, uint16_t port, uint32_t prog,
			     uint32_t vers, const struct rpcrdma_clnt_opts *opts,
			     struct rpcrdma_clnt **out)
{
	struct addrinfo hints = { 0 }, *res, *ai;
	char name[NI_MAXHOST];
	size_t n;
	int rc, err = -ENXIO;

	if (!netid || !host || !out)
		return -EINVAL;
	n = strlen(host);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {   /* "[::1]" */
		host++;
		n -= 2;
	}
	if (n == 0 || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, host, n);
	name[n] = 0;
	hints.ai_family = netid_family(netid);
	hints.ai_socktype = strncmp(netid, "udp", 3) ? SOCK_STREAM : SOCK_DGRAM;
	rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc)
		return gai_errno(rc, name);
	for (ai = res; ai; ai = ai->ai_next) {
		set_port(ai->ai_addr, port);
		err = rpcrdma_clnt_create(netid, ai->ai_addr, ai->ai_addrlen, prog, vers, opts, out);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	return err;
}
