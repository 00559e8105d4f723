// SPDX-License-Identifier: BSD-2-Clause
/*
 * Decodes one COMPOUND reply (nfs4_replies.h) N times with the hand-written
 * decoder (hand: p4_decode) or the generated one (gen: p4g_decode, ops:
 * p4g_decode_ops), for callgrind (callgrind-decode.sh counts the
 * instructions inside each decoder).
 * Usage: bench-nfs4-decode hand|gen|ops REPLY-NUMBER N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4_gen.h"
#include "nfs4_replies.h"
#include "nfs4_xdr.h"

static int ignore_name(void *arg, const char *name, uint64_t cookie)
{
	(void)name;
	(void)cookie;
	(*(unsigned *)arg)++;
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t buf[P4R_BUF_MAX], out[8192];
	unsigned names = 0;

	int (*decode)(struct rpcrdma_xdr_dec *, struct p4_res *) = NULL;

	if (argc == 4 && strcmp(argv[1], "hand") == 0)
		decode = p4_decode;
	else if (argc == 4 && strcmp(argv[1], "gen") == 0)
		decode = p4g_decode;
	else if (argc == 4 && strcmp(argv[1], "ops") == 0)
		decode = p4g_decode_ops;
	if (decode == NULL) {
		fprintf(stderr, "usage: bench-nfs4-decode hand|gen|ops REPLY N\n");
		return 2;
	}
	long which = strtol(argv[2], NULL, 10), n = strtol(argv[3], NULL, 10);
	if (which < 0 || which >= P4R_COUNT || n <= 0) {
		fprintf(stderr, "bench-nfs4-decode: REPLY 0..%d, N > 0\n", P4R_COUNT - 1);
		return 2;
	}
	size_t len = p4r_build((enum p4_reply)which, buf);
	for (long i = 0; i < n; i++) {
		struct p4_res r;
		struct rpcrdma_xdr_dec d;

		memset(&r, 0, sizeof(r));
		r.read_buf = out;
		r.read_max = sizeof(out);
		r.dirent = ignore_name;
		r.dirent_arg = &names;
		rpcrdma_xdr_dec_init_buf(&d, buf, len);
		int rc = decode(&d, &r);
		if (rc != 0) {
			fprintf(stderr, "bench-nfs4-decode: %s: %d\n", p4r_name((enum p4_reply)which), rc);
			return 1;
		}
	}
	printf("%s %s %zu bytes x %ld\n", argv[1], p4r_name((enum p4_reply)which), len, n);
	return 0;
}
