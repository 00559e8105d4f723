/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * techo-server: techo.x's procedures behind rpcgen's dispatch routine
 * (techo_prog_1, rpcgen -m), served by libtirpc's svc_run() over RDMA
 * (librpcrdma-tirpc) or over TCP (plain libtirpc, the control).
 *
 *   techo-server rdma ADDR PORT     ADDR: IPv4, IPv6, fe80::1%ifname
 *   techo-server tcp PORT           127.0.0.1 (svc_vc_create)
 *   ... -r                          registers with rpcbind too
 *
 * Prints "listening PORT" once it serves; TECHO_QUIT ends svc_run, the
 * transport is destroyed (over RDMA after printing the listener's
 * counters) and it exits 0.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpcrdma/tirpc.h>

#include "techo.h"

/* rpcgen -m writes the dispatch routine but declares it nowhere. */
void techo_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static SVCXPRT *tcp_xprt(unsigned short port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 64)) {
		perror("techo-server: tcp");
		return NULL;
	}
	return svc_vc_create(fd, 0, 0);
}

int main(int argc, char **argv)
{
	SVCXPRT *x = NULL;

	int with_rpcbind = argc > 1 && !strcmp(argv[argc - 1], "-r");
	if (with_rpcbind)
		argc--;
	if (argc == 4 && !strcmp(argv[1], "rdma"))
		x = rpcrdma_tirpc_svc_create(argv[2], (unsigned short)atoi(argv[3]), 0, 0);
	else if (argc == 3 && !strcmp(argv[1], "tcp"))
		x = tcp_xprt((unsigned short)atoi(argv[2]));
	else {
		fprintf(stderr, "usage: techo-server rdma ADDR PORT | tcp PORT\n");
		return 2;
	}
	if (!x) {
		perror("techo-server: create");
		return 1;
	}
	if (!svc_reg(x, TECHO_PROG, TECHO_VERS, techo_prog_1, NULL)) {
		fprintf(stderr, "techo-server: svc_reg failed\n");
		return 1;
	}
	/* -r: with rpcbind too (over TCP: libtirpc's own rpcb_set) */
	if (with_rpcbind && argc == 4) {
		int rc = rpcrdma_tirpc_rpcb_set(x, TECHO_PROG, TECHO_VERS);
		if (rc) {
			fprintf(stderr, "techo-server: rpcrdma_tirpc_rpcb_set: %s\n", strerror(-rc));
			return 1;
		}
	} else if (with_rpcbind && !svc_reg(x, TECHO_PROG, TECHO_VERS, techo_prog_1,
					    getnetconfigent("tcp"))) {
		fprintf(stderr, "techo-server: rpcb_set failed\n");
		return 1;
	}
	printf("listening %u\n", argc == 4 ? x->xp_port : (unsigned)atoi(argv[2]));
	fflush(stdout);
	svc_run();
	svc_unreg(TECHO_PROG, TECHO_VERS);
	struct rpcrdma_stats st;
	if (rpcrdma_tirpc_svc_stats(x, &st) == 0) {
		/* Which paths carried the calls and replies. */
		static const enum rpcrdma_stat shown[] = {
			RPCRDMA_STAT_CALLS, RPCRDMA_STAT_CALLS_READ, RPCRDMA_STAT_REPLIES_INLINE,
			RPCRDMA_STAT_REPLIES_WRITE, RPCRDMA_STAT_REPLIES_RCHUNK,
			RPCRDMA_STAT_WRITES_UNCOPIED, RPCRDMA_STAT_ERR_REPLY,
			RPCRDMA_STAT_ERR_CHUNK, RPCRDMA_STAT_CONNECTS,
		};
		printf("techo-server: counters");
		for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
			printf(" %s=%llu", rpcrdma_stat_name(shown[i]),
			       (unsigned long long)st.v[shown[i]]);
		printf("\n");
	}
	svc_destroy(x);
	printf("techo-server: done\n");
	return 0;
}
