/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hello-client tcp|udp|rdma HOST PORT [NAME]: calls GREET (hello.x) once and
 * prints the answer.  One client (<rpcrdma/clnt.h>) for every transport:
 * HOST is a name or an address (an IPv6 one picks tcp6, udp6 or rdma6),
 * hello_greet_1_call() is the stub generated from hello.x, and a failed
 * call is told in libtirpc's words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/clnt.h>
#include "hello.h"

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: hello-client tcp|udp|rdma HOST PORT [NAME]\n"), 2;
	const char *proto = argv[1], *host = argv[2], *who = argc > 4 ? argv[4] : "world";
	hello_name name = { .data = who, .len = (uint32_t)strlen(who) };
	hello_text text;
	struct rpcrdma_clnt *c;
	char netid[8];

	/* "tcp" is IPv4 and "tcp6" IPv6, as in /etc/netconfig */
	snprintf(netid, sizeof(netid), "%s%s", proto, strchr(host, ':') ? "6" : "");
	int err = rpcrdma_clnt_create_host(netid, host, (uint16_t)atoi(argv[3]), HELLO_PROG,
					   HELLO_VERS, NULL, &c);
	if (err)
		return fprintf(stderr, "hello-client: %s over %s: %s\n", host, netid,
			       rpcrdma_strerror(err)), 1;

	err = hello_greet_1_call(c, &name, &text); /* waits; _call_async() does not */
	if (err)
		fprintf(stderr, "hello-client: %s\n", rpcrdma_strerror(err));
	else
		printf("%.*s\n", (int)text.len, text.data);
	xdrgen_free_hello_text(&text);
	rpcrdma_clnt_destroy(c);
	return err ? 1 : 0;
}
