/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The echo program's RPC messages (RFC 5531 framing, AUTH_NONE):
 *   call:  xid, CALL, rpcvers 2, prog ECHO_PROG, vers 1, proc, cred (0,0), verf (0,0)
 *          ECHO_PROC_ECHO then carries opaque<> data.
 *   reply: xid, REPLY, MSG_ACCEPTED, verf (0,0), SUCCESS, [opaque<> data]
 * Shared by the echo server, client and the embed-epoll example.
 */
#ifndef ECHO_PROTO_H
#define ECHO_PROTO_H

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define ECHO_PROG 0x20049001u
#define ECHO_VERS 1u
#define ECHO_PROC_NULL 0u
#define ECHO_PROC_ECHO 1u
#define ECHO_PROC_SINK 2u    /* call carries opaque<> data; empty reply */
#define ECHO_PROC_SOURCE 3u  /* call carries a length; reply carries that many bytes */
#define ECHO_SOURCE_MAX (4u << 20)
#define ECHO_CALL_HDR 40u   /* 10 words */
#define ECHO_REPLY_HDR 24u  /* 6 words */

static inline uint32_t echo_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static inline void echo_put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static inline size_t echo_pad(size_t n)
{
	return (4 - (n & 3)) & 3;
}

/* Parses "addr" and "port" (numeric; IPv6 link-local with %scope works). */
static inline int echo_addr(const char *host, const char *port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int err = getaddrinfo(host, port, &hints, &ai);

	if (err) {
		fprintf(stderr, "bad address %s port %s: %s\n", host, port, gai_strerror(err));
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* The echo service: answers one call message.  Returns the reply's iovec
 * count written to iov (hdr is 28 bytes of scratch), or -1 to drop.
 * source: ECHO_SOURCE_MAX bytes the SOURCE procedure replies from (NULL:
 * SOURCE is not served). */
static inline int echo_answer(const uint8_t *msg, size_t len, uint8_t hdr[28], uint8_t *pad,
			      struct iovec iov[3], size_t *bulk_off, size_t *bulk_len,
			      const uint8_t *source)
{
	uint32_t proc, dlen;

	*bulk_off = *bulk_len = 0;
	if (len < ECHO_CALL_HDR || echo_get32(msg + 4) != 0 || echo_get32(msg + 8) != 2 ||
	    echo_get32(msg + 12) != ECHO_PROG || echo_get32(msg + 16) != ECHO_VERS)
		return -1;
	proc = echo_get32(msg + 20);
	memcpy(hdr, msg, 4);            /* xid */
	echo_put32(hdr + 4, 1);         /* REPLY */
	echo_put32(hdr + 8, 0);         /* MSG_ACCEPTED */
	echo_put32(hdr + 12, 0);        /* verf AUTH_NONE */
	echo_put32(hdr + 16, 0);
	echo_put32(hdr + 20, 0);        /* SUCCESS */
	iov[0].iov_base = hdr;
	iov[0].iov_len = ECHO_REPLY_HDR;
	if (proc == ECHO_PROC_NULL)
		return 1;
	if (proc > ECHO_PROC_SOURCE || len < ECHO_CALL_HDR + 4)
		return -1;
	dlen = echo_get32(msg + ECHO_CALL_HDR);
	if (proc == ECHO_PROC_SOURCE) {
		if (!source || dlen > ECHO_SOURCE_MAX)
			return -1;
	} else if (dlen > len - ECHO_CALL_HDR - 4) {
		return -1;
	}
	if (proc == ECHO_PROC_SINK) {
		echo_put32(hdr + 24, 0);
		iov[0].iov_len = ECHO_REPLY_HDR + 4;
		return 1;
	}
	echo_put32(hdr + 24, dlen);
	iov[0].iov_len = ECHO_REPLY_HDR + 4;
	iov[1].iov_base = (void *)(proc == ECHO_PROC_SOURCE ? source : msg + ECHO_CALL_HDR + 4);
	iov[1].iov_len = dlen;
	memset(pad, 0, 4);
	iov[2].iov_base = pad;
	iov[2].iov_len = echo_pad(dlen);
	*bulk_off = ECHO_REPLY_HDR + 4;
	*bulk_len = dlen;
	return 3;
}

#endif /* ECHO_PROTO_H */
