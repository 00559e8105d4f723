/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * techo-client: calls techo.x with rpcgen's own client stubs (techo_add_1,
 * techo_echo_1, techo_quit_1) over RDMA (librpcrdma-tirpc) or TCP (plain
 * libtirpc), checks every byte, and prints a round-trip table.
 *
 *   techo-client rdma|tcp ADDR PORT [-n COUNT] [-s SIZES] [-a sys] [-q]
 *
 * SIZES: comma-separated echo sizes, k/M suffixes (default
 * 0,1,1000,4000,8192,65536,1M).  -a sys: AUTH_SYS from
 * authunix_create_default().  -q: TECHO_QUIT at the end.  Lines:
 *   techo TRANSPORT add     COUNT calls  AVG us
 *   techo TRANSPORT echo SIZE COUNT calls AVG us MiB/s
 *   techo TRANSPORT rev  NINTS COUNT calls AVG us
 * and "techo TRANSPORT ok" when every reply was right.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpcrdma/tirpc.h>

#include "techo.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static CLIENT *tcp_client(const char *addr, unsigned short port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int sock = RPC_ANYSOCK;
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return NULL;
	return clnttcp_create(&sin, TECHO_PROG, TECHO_VERS, &sock, 0, 0);
}

static unsigned long parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*end == 'k' || *end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return v;
}

static int echo_size(CLIENT *cl, const char *tr, unsigned long size, int count)
{
	techo_buf in;
	in.techo_buf_len = (u_int)size;
	in.techo_buf_val = malloc(size + 1);
	for (unsigned long i = 0; i < size; i++)
		in.techo_buf_val[i] = (char)(i * 31 + size);
	double t0 = now_us();
	for (int k = 0; k < count; k++) {
		techo_buf *out = techo_echo_1(&in, cl);
		if (!out) {
			clnt_perror(cl, "techo-client: echo");
			free(in.techo_buf_val);
			return -1;
		}
		if (out->techo_buf_len != size ||
		    (size && memcmp(out->techo_buf_val, in.techo_buf_val, size))) {
			fprintf(stderr, "techo-client: echo of %lu bytes came back wrong (%u)\n",
				size, out->techo_buf_len);
			free(in.techo_buf_val);
			return -1;
		}
		clnt_freeres(cl, (xdrproc_t)xdr_techo_buf, (char *)out);
	}
	double us = (now_us() - t0) / count;
	printf("techo %-4s echo %8lu %5d calls %10.1f us %8.2f MiB/s\n", tr, size, count, us,
	       us > 0 ? 2.0 * (double)size / us * 1e6 / 1048576.0 : 0.0);
	free(in.techo_buf_val);
	return 0;
}

/* REVERSE of n ints: no opaque item, so large lists go whole by chunk. */
static int reverse_n(CLIENT *cl, const char *tr, u_int n, int count)
{
	techo_ints in;
	in.techo_ints_len = n;
	in.techo_ints_val = malloc((n + 1) * sizeof(int));
	for (u_int i = 0; i < n; i++)
		in.techo_ints_val[i] = (int)(i * 2654435761u);
	double t0 = now_us();
	for (int k = 0; k < count; k++) {
		techo_ints *out = techo_reverse_1(&in, cl);
		if (!out) {
			clnt_perror(cl, "techo-client: reverse");
			free(in.techo_ints_val);
			return -1;
		}
		bool_t ok = out->techo_ints_len == n;
		for (u_int i = 0; ok && i < n; i++)
			ok = out->techo_ints_val[i] == in.techo_ints_val[n - 1 - i];
		clnt_freeres(cl, (xdrproc_t)xdr_techo_ints, (char *)out);
		if (!ok) {
			fprintf(stderr, "techo-client: reverse of %u ints came back wrong\n", n);
			free(in.techo_ints_val);
			return -1;
		}
	}
	printf("techo %-4s rev  %8u %5d calls %10.1f us\n", tr, n, count,
	       (now_us() - t0) / count);
	free(in.techo_ints_val);
	return 0;
}

int main(int argc, char **argv)
{
	const char *sizes = "0,1,1000,4000,8192,65536,1M";
	int count = 100, quit = 0, authsys = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: techo-client rdma|tcp ADDR PORT [-n N] [-s SIZES] [-a sys] [-q]\n");
		return 2;
	}
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			sizes = argv[++i];
		else if (!strcmp(argv[i], "-a") && i + 1 < argc)
			authsys = !strcmp(argv[++i], "sys");
		else if (!strcmp(argv[i], "-q"))
			quit = 1;
	}
	const char *tr = argv[1];
	unsigned short port = (unsigned short)atoi(argv[3]);
	CLIENT *cl = !strcmp(tr, "rdma") ?
		rpcrdma_tirpc_clnt_create(argv[2], port, TECHO_PROG, TECHO_VERS, 0, 0) :
		tcp_client(argv[2], port);
	if (!cl) {
		clnt_pcreateerror("techo-client");
		return 1;
	}
	if (authsys) {
		auth_destroy(cl->cl_auth);
		cl->cl_auth = authunix_create_default();
	}

	/* clnt_control: the server's address, a timeout set and read back */
	struct sockaddr_storage srv;
	struct timeval tv = { 20, 0 }, got = { 0, 0 };
	if (!clnt_control(cl, CLGET_SERVER_ADDR, (char *)&srv) ||
	    ntohs(((struct sockaddr_in *)&srv)->sin_port) != port ||
	    !clnt_control(cl, CLSET_TIMEOUT, (char *)&tv) ||
	    !clnt_control(cl, CLGET_TIMEOUT, (char *)&got) || got.tv_sec != 20) {
		fprintf(stderr, "techo-client: clnt_control failed\n");
		return 1;
	}

	techo_pair p = { .a = 40, .b = 2 };
	double t0 = now_us();
	for (int k = 0; k < count; k++) {
		p.a = k;
		int *sum = techo_add_1(&p, cl);
		if (!sum || *sum != k + 2) {
			clnt_perror(cl, "techo-client: add");
			return 1;
		}
	}
	printf("techo %-4s add  %8d %5d calls %10.1f us\n", tr, 8, count, (now_us() - t0) / count);

	char *list = strdup(sizes);
	for (char *s = strtok(list, ","); s; s = strtok(NULL, ",")) {
		unsigned long size = parse_size(s);
		int n = size >= (1u << 20) ? (count + 9) / 10 : count;
		if (echo_size(cl, tr, size, n))
			return 1;
	}
	free(list);
	/* 2 KiB inline, 8 KiB and 400 KiB by position-zero read chunk and
	 * reply chunk */
	static const u_int lens[] = { 500, 2000, 100000 };
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		if (reverse_n(cl, tr, lens[i], lens[i] > 10000 ? (count + 9) / 10 : count))
			return 1;
	if (quit && !techo_quit_1(NULL, cl)) {
		clnt_perror(cl, "techo-client: quit");
		return 1;
	}
	/* The server gone, a call fails with a transport error (and does
	 * not hang): clnt_geterr says which, in libtirpc's terms. */
	for (int k = 0; quit; k++) {
		p.a = k;
		tv.tv_sec = 5;
		clnt_control(cl, CLSET_TIMEOUT, (char *)&tv);
		if (techo_add_1(&p, cl)) {
			if (k == 100) {
				fprintf(stderr, "techo-client: the server still answers\n");
				return 1;
			}
			usleep(100000);
			continue;
		}
		struct rpc_err e;
		clnt_geterr(cl, &e);
		if (e.re_status != RPC_CANTSEND && e.re_status != RPC_CANTRECV &&
		    e.re_status != RPC_TIMEDOUT) {
			clnt_perror(cl, "techo-client: after quit, unexpected");
			return 1;
		}
		printf("techo %s after quit: %s (errno %d)\n", tr, clnt_sperrno(e.re_status),
		       e.re_errno);
		break;
	}
	printf("techo %s ok\n", tr);
	auth_destroy(cl->cl_auth);
	clnt_destroy(cl);
	return 0;
}
