/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * techo-server: techo.x's procedures behind rpcgen's dispatch routine
 * (techo_prog_1, rpcgen -m), served by libtirpc's svc_run() over RDMA
 * (librpcrdma-tirpc) or over TCP (plain libtirpc, the control).
 *
 *   techo-server rdma ADDR PORT     ADDR: IPv4, IPv6, fe80::1%ifname
 *   techo-server tcp PORT           127.0.0.1 (svc_vc_create)
 *
 * Prints "listening PORT" once it serves; TECHO_QUIT ends svc_run, the
 * transport is destroyed and it exits 0.
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

/* ---- the procedures, as rpcgen's (non -M) interface wants them ---- */

int *techo_add_1_svc(techo_pair *p, struct svc_req *rq)
{
	static int sum;
	(void)rq;
	sum = (int)((unsigned)p->a + (unsigned)p->b);
	return &sum;
}

techo_buf *techo_echo_1_svc(techo_buf *b, struct svc_req *rq)
{
	static techo_buf out;
	(void)rq;
	out = *b;  /* the arguments are freed after the reply is sent */
	return &out;
}

void *techo_quit_1_svc(void *v, struct svc_req *rq)
{
	static char nothing;
	(void)v;
	(void)rq;
	svc_exit();
	return &nothing;
}

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
	printf("listening %u\n", argc == 4 ? x->xp_port : (unsigned)atoi(argv[2]));
	fflush(stdout);
	svc_run();
	svc_unreg(TECHO_PROG, TECHO_VERS);
	svc_destroy(x);
	printf("techo-server: done\n");
	return 0;
}
