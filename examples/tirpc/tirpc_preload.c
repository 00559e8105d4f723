/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libtechopreload.so: runs an unmodified TI-RPC client binary over RDMA.
 * Preloaded (LD_PRELOAD) with RPCRDMA_TIRPC_CONNECT set to the server's
 * RDMA address (numeric, "%ifname" for link-local), it replaces libtirpc's
 * clnt_tli_create() -- the call that makes a CLIENT for an address known
 * beforehand, as rpcinfo -a does -- with rpcrdma_tirpc_clnt_create() to
 * that address at the port the program asked for: the one-call change of
 * docs/tirpc.md, made by the dynamic linker.  Without the variable it
 * passes every call to libtirpc.  The vm-tirpc payload runs Debian's
 * rpcinfo (package rpcbind) through it against techo-server.
 */
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <rpc/rpc.h>
#include <rpcrdma/tirpc.h>

typedef CLIENT *(*tli_create_fn)(int, const struct netconfig *, struct netbuf *, rpcprog_t,
				 rpcvers_t, u_int, u_int);

CLIENT *clnt_tli_create(int fd, const struct netconfig *nconf, struct netbuf *svcaddr,
			rpcprog_t prog, rpcvers_t vers, u_int sendsz, u_int recvsz)
{
	const char *to = getenv("RPCRDMA_TIRPC_CONNECT");

	if (to && svcaddr && svcaddr->buf && svcaddr->len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr *sa = svcaddr->buf;
		unsigned short port = sa->sa_family == AF_INET6 ?
			ntohs(((const struct sockaddr_in6 *)svcaddr->buf)->sin6_port) :
			ntohs(((const struct sockaddr_in *)svcaddr->buf)->sin_port);
		return rpcrdma_tirpc_clnt_create(to, port, prog, vers, sendsz, recvsz);
	}
	void *real = dlsym(RTLD_NEXT, "clnt_tli_create");
	if (!real)
		return NULL;
	tli_create_fn fn;
	*(void **)&fn = real;
	return fn(fd, nconf, svcaddr, prog, vers, sendsz, recvsz);
}
