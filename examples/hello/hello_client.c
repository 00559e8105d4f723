/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hello-client tcp|udp|rdma HOST PORT [NAME]: calls GREET (hello.h) once and
 * prints the answer.  One client (<rpcrdma/clnt.h>) for every transport:
 * HOST is a name or an address (an IPv6 one picks tcp6, udp6 or rdma6),
 * the arguments are encoded and the results decoded by two callbacks on
 * the library's XDR streams, and a failed call is told in libtirpc's words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/clnt.h>
#include "hello.h"

/* GREET's argument: string<HELLO_NAME_MAX>. */
static int encode_name(struct rpcrdma_xdr_enc *enc, const void *args)
{
	return rpcrdma_xdr_put_string(enc, args);
}

/* GREET's result: a string, at most 80 bytes here. */
static int decode_text(struct rpcrdma_xdr_dec *dec, void *res)
{
	return rpcrdma_xdr_get_string(dec, res, HELLO_NAME_MAX + 16, HELLO_NAME_MAX + 15);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: hello-client tcp|udp|rdma HOST PORT [NAME]\n"), 2;
	const char *proto = argv[1], *host = argv[2], *name = argc > 4 ? argv[4] : "world";
	char netid[8], text[HELLO_NAME_MAX + 16];
	struct rpcrdma_clnt *c;

	/* "tcp" is IPv4 and "tcp6" IPv6, as in /etc/netconfig */
	snprintf(netid, sizeof(netid), "%s%s", proto, strchr(host, ':') ? "6" : "");
	int err = rpcrdma_clnt_create_host(netid, host, (uint16_t)atoi(argv[3]), HELLO_PROG,
					   HELLO_VERS, NULL, &c);
	if (err)
		return fprintf(stderr, "hello-client: %s over %s: %s\n", host, netid,
			       rpcrdma_strerror(err)), 1;

	struct rpcrdma_clnt_req req = {
		.size = sizeof(req),
		.proc = HELLO_GREET,
		.encode = encode_name, .args = name, .args_max = 4 + strlen(name) + 3,
		.decode = decode_text, .res = text,
		.res_max = 1024,
	};
	err = rpcrdma_clnt_call(c, &req);
	if (err)
		rpcrdma_clnt_perror(&req, err, "hello-client");
	else
		printf("%s\n", text);
	rpcrdma_clnt_destroy(c);
	return err ? 1 : 0;
}
