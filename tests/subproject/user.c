/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A user's program built against librpcrdma as a meson subproject: the
 * version, the wire format, and the service core answering a call over
 * loopback TCP (PROG_UNAVAIL: no program is registered).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma.h>

static int fail(const char *what, int rc)
{
	fprintf(stderr, "rpcrdma-user: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	return 1;
}

static int rpc_null_call(const struct sockaddr_storage *ss)
{
	/* Record mark, xid, CALL, RPC version 2, program 0x20000099 version 1
	 * procedure 0, AUTH_NONE credential and verifier. */
	uint32_t call[11] = { 0x80000000u | 40, 0x1234, 0, 2, 0x20000099, 1, 0, 0, 0, 0, 0 };
	uint32_t reply[7];
	for (int i = 0; i < 11; i++)
		call[i] = htonl(call[i]);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int rc = 0;
	size_t got = 0;
	if (connect(fd, (const struct sockaddr *)ss, sizeof(struct sockaddr_in)) != 0 ||
	    write(fd, call, sizeof(call)) != (ssize_t)sizeof(call))
		rc = -errno;
	while (rc == 0 && got < sizeof(reply)) {
		ssize_t n = read(fd, (char *)reply + got, sizeof(reply) - got);
		if (n <= 0)
			rc = n < 0 ? -errno : -ECONNRESET;
		else
			got += (size_t)n;
	}
	close(fd);
	if (rc)
		return rc;
	/* mark, xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, PROG_UNAVAIL */
	if (ntohl(reply[1]) != 0x1234 || ntohl(reply[2]) != 1 || ntohl(reply[3]) != 0 ||
	    ntohl(reply[6]) != 1)
		return -EPROTO;
	return 0;
}

int main(void)
{
#ifdef RPCRDMA_HAVE_RDMA
	const char *rdma = "with RDMA";
	struct rpcrdma_poller_opts po;
	rpcrdma_poller_opts_init(&po); /* the transport's API is there */
#else
	const char *rdma = "without RDMA";
#endif
	printf("rpcrdma-user: librpcrdma %s, %s\n", rpcrdma_version_string(), rdma);

	uint8_t junk[8] = { 0 };
	struct rpcrdma_hdr hdr;
	int rc = rpcrdma_check_call(junk, sizeof(junk), &hdr);
	if (rc >= 0)
		return fail("rpcrdma_check_call accepted 8 zero bytes", EINVAL);

	struct rpcrdma_svc *svc;
	rc = rpcrdma_svc_create(NULL, &svc);
	if (rc)
		return fail("rpcrdma_svc_create", rc);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct sockaddr_storage bound;
	rc = rpcrdma_svc_listen_tcp(svc, (struct sockaddr *)&sin, sizeof(sin), &bound, NULL);
	if (rc == 0)
		rc = rpcrdma_svc_start(svc);
	if (rc == 0)
		rc = rpc_null_call(&bound);
	rpcrdma_svc_destroy(svc);
	if (rc)
		return fail("a call over TCP", rc);
	printf("rpcrdma-user: a call over TCP answered PROG_UNAVAIL\n");
	return 0;
}
