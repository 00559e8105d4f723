/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * techo-server: techo.x's procedures behind rpcgen's dispatch routine
 * (techo_prog_1, rpcgen -m), served by libtirpc's svc_run() over RDMA
 * (librpcrdma-tirpc) or over TCP (plain libtirpc, the control).
 *
 *   techo-server rdma ADDR PORT     ADDR: IPv4, IPv6, fe80::1%ifname
 *   techo-server tcp PORT           127.0.0.1 (svc_vc_create)
 *   ... -r                          registers with rpcbind too
 *   ... -t                          RDMA: RPCRDMA_TIRPC_SVC_THREAD (calls
 *                                   reaped by a poller thread, handed over)
 *
 * Prints "listening PORT" once it serves; TECHO_QUIT ends svc_run, the
 * transport is destroyed (over RDMA after printing the listener's
 * counters and the bridge's: where calls were reaped, on which thread
 * they were dispatched, how many threads the process had at TECHO_QUIT)
 * and it exits 0.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpcrdma/tirpc.h>

#include "techo.h"

/* rpcgen -m writes the dispatch routine but declares it nowhere. */
void techo_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

/* Which thread ran the dispatch routine: svc_run's (main) or another. */
static long main_tid;
static unsigned long on_main, elsewhere;
static int threads_at_quit = -1;

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* This thread's id, asked once per thread. */
static long self_tid(void)
{
	static _Thread_local long tid;

	if (!tid)
		tid = syscall(SYS_gettid);
	return tid;
}

static void serve(struct svc_req *rq, SVCXPRT *x)
{
	if (self_tid() == main_tid)
		on_main++;
	else
		elsewhere++;
	if (rq->rq_proc == TECHO_QUIT)
		threads_at_quit = count_threads();
	techo_prog_1(rq, x);
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

	int with_rpcbind = 0;
	unsigned flags = 0;
	for (; argc > 1; argc--) {
		if (!strcmp(argv[argc - 1], "-r"))
			with_rpcbind = 1;
		else if (!strcmp(argv[argc - 1], "-t"))
			flags |= RPCRDMA_TIRPC_SVC_THREAD;
		else
			break;
	}
	main_tid = self_tid();
	if (argc == 4 && !strcmp(argv[1], "rdma"))
		x = rpcrdma_tirpc_svc_create_flags(argv[2], (unsigned short)atoi(argv[3]), 0, 0,
						   flags);
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
	if (!svc_reg(x, TECHO_PROG, TECHO_VERS, serve, NULL)) {
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
	} else if (with_rpcbind && !svc_reg(x, TECHO_PROG, TECHO_VERS, serve,
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
	struct rpcrdma_tirpc_svc_counts tc = { .size = sizeof(tc) };
	if (rpcrdma_tirpc_svc_counts(x, &tc) == 0)
		printf("techo-server: bridge calls_direct=%llu calls_handed=%llu calls_dropped=%llu\n",
		       (unsigned long long)tc.calls_direct, (unsigned long long)tc.calls_handed,
		       (unsigned long long)tc.calls_dropped);
	printf("techo-server: dispatched on_svc_run_thread=%lu elsewhere=%lu threads_at_quit=%d\n",
	       on_main, elsewhere, threads_at_quit);
	svc_destroy(x);
	printf("techo-server: done\n");
	return 0;
}
