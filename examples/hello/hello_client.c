/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hello-client tcp|udp|rdma HOST PORT [NAME]: calls GREET (hello.h) once and
 * prints the answer.  The call is built and the reply read with the
 * library's XDR streams; TCP frames it with a record mark, UDP sends it as
 * one datagram, RDMA goes through rpcrdma_client_call().
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <rpcrdma/xdr.h>
#if HELLO_RDMA
#include <rpcrdma/client.h>
#endif
#include "hello.h"

/* An RPC call (RFC 5531): xid, CALL, rpcvers 2, prog, vers, proc, AUTH_NONE x2. */
static size_t build_call(uint8_t *buf, size_t len, uint32_t xid, const char *name)
{
	struct rpcrdma_xdr_enc e;
	const uint32_t hdr[] = { xid, 0, 2, HELLO_PROG, HELLO_VERS, HELLO_GREET, 0, 0, 0, 0 };
	rpcrdma_xdr_enc_init(&e, buf, len);
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		rpcrdma_xdr_put_u32(&e, hdr[i]);
	return rpcrdma_xdr_put_string(&e, name) ? 0 : rpcrdma_xdr_enc_len(&e);
}

/* An accepted, successful reply to xid carrying a string; 0 or -1. */
static int parse_reply(const void *buf, size_t len, uint32_t xid, char *text, size_t size)
{
	struct rpcrdma_xdr_dec d;
	uint32_t w[5];
	rpcrdma_xdr_dec_init_buf(&d, buf, len);
	for (int i = 0; i < 5; i++) /* xid, REPLY, MSG_ACCEPTED, verifier flavour, length */
		if (rpcrdma_xdr_get_u32(&d, &w[i]))
			return -1;
	uint32_t stat;
	if (w[0] != xid || w[1] != 1 || w[2] != 0 || rpcrdma_xdr_skip(&d, w[4]) ||
	    rpcrdma_xdr_get_u32(&d, &stat) || stat != 0)
		return -1;
	return rpcrdma_xdr_get_string(&d, text, size, size - 1) ? -1 : 0;
}

static ssize_t call_stream(int fd, uint8_t *msg, size_t len, uint8_t *reply, size_t room)
{
	uint32_t mark = htonl(0x80000000u | (uint32_t)len), rmark;
	if (write(fd, &mark, 4) != 4 || write(fd, msg, len) != (ssize_t)len ||
	    recv(fd, &rmark, 4, MSG_WAITALL) != 4)
		return -1;
	size_t rlen = ntohl(rmark) & 0x7fffffffu; /* one fragment: hello replies are short */
	return rlen > room ? -1 : recv(fd, reply, rlen, MSG_WAITALL);
}

static ssize_t call_dgram(int fd, uint8_t *msg, size_t len, uint8_t *reply, size_t room)
{
	struct timeval tv = { .tv_sec = 1 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (int try = 0; try < 5; try++) { /* UDP may lose the call or the reply */
		ssize_t n = send(fd, msg, len, 0) == (ssize_t)len ? recv(fd, reply, room, 0) : -1;
		if (n >= 0)
			return n;
	}
	return -1;
}

#if HELLO_RDMA
static ssize_t call_rdma(const struct sockaddr *dst, uint8_t *msg, size_t len, uint8_t *reply,
			 size_t room)
{
	struct rpcrdma_poller *poller = NULL;
	struct rpcrdma_client *client = NULL;
	struct iovec iov = { msg, len };
	struct rpcrdma_client_call call = { .size = sizeof(call), .iov = &iov, .iovcnt = 1,
					    .reply_buf = reply, .reply_len = room };
	int rc = rpcrdma_poller_create(NULL, &poller);
	if (!rc)
		rc = rpcrdma_client_create(poller, dst, NULL, &client);
	if (!rc)
		rc = rpcrdma_client_call(client, &call, 5000);
	if (rc)
		fprintf(stderr, "hello-client: rdma: %s\n", strerror(-rc));
	if (client)
		rpcrdma_client_destroy(client);
	rpcrdma_poller_destroy(poller); /* NULL is accepted */
	return rc ? -1 : (ssize_t)call.reply_got;
}
#endif

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: hello-client tcp|udp|rdma HOST PORT [NAME]\n"), 2;
	const char *proto = argv[1], *name = argc > 4 ? argv[4] : "world";
	int udp = !strcmp(proto, "udp");
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST,
				  .ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM }, *ai;
	if (getaddrinfo(argv[2], argv[3], &hints, &ai) != 0)
		return fprintf(stderr, "hello-client: bad address %s\n", argv[2]), 2;

	uint8_t msg[256], reply[256];
	uint32_t xid = (uint32_t)getpid();
	size_t len = build_call(msg, sizeof(msg), xid, name);
	ssize_t n = -1;
	if (!strcmp(proto, "rdma")) {
#if HELLO_RDMA
		n = call_rdma(ai->ai_addr, msg, len, reply, sizeof(reply));
#else
		fprintf(stderr, "hello-client: built without RDMA\n");
#endif
	} else {
		int fd = socket(ai->ai_family, ai->ai_socktype, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			n = udp ? call_dgram(fd, msg, len, reply, sizeof(reply))
				: call_stream(fd, msg, len, reply, sizeof(reply));
		if (fd >= 0)
			close(fd);
	}
	freeaddrinfo(ai);
	char text[HELLO_NAME_MAX + 8];
	if (n < 0 || parse_reply(reply, (size_t)n, xid, text, sizeof(text)))
		return fprintf(stderr, "hello-client: no good reply over %s\n", proto), 1;
	printf("%s\n", text);
	return 0;
}
