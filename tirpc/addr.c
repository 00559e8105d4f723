/* SPDX-License-Identifier: BSD-2-Clause */
/* Address parsing shared by the server and the client: a numeric address
 * or a host name. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "internal.h"

int rpcrdma__tx_parse_addr(const char *addr, unsigned short port,
			   struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (!addr || !*addr) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return 0;
	}
	/* a numeric address, else a host name (its first address) */
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	if (getaddrinfo(addr, NULL, &hints, &res) != 0) {
		hints.ai_flags = 0;
		res = NULL;
		if (getaddrinfo(addr, NULL, &hints, &res) != 0)
			return -EINVAL;
	}
	if (!res)
		return -EINVAL;
	int rc = -EINVAL;
	if ((res->ai_family == AF_INET || res->ai_family == AF_INET6) &&
	    res->ai_addrlen <= sizeof(*ss)) {
		memcpy(ss, res->ai_addr, res->ai_addrlen);
		*len = (socklen_t)res->ai_addrlen;
		if (res->ai_family == AF_INET)
			((struct sockaddr_in *)ss)->sin_port = htons(port);
		else
			((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
		rc = 0;
	}
	freeaddrinfo(res);
	return rc;
}
