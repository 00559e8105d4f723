/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bridge's server API as a program sees it (black-box: linked with
 * librpcrdma-tirpc), the parts that need no RDMA device: flags it does
 * not know, and counts asked of transports it did not make or into a
 * struct too short.  The modes themselves run over soft-RoCE in the VM
 * (tests/vm/payloads/tirpc).
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <rpcrdma/tirpc.h>

static void flags_unknown(void **state)
{
	(void)state;
	static const unsigned bad[] = { 0x2u, 0x80000000u, ~0u, RPCRDMA_TIRPC_SVC_THREAD | 0x4u };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(rpcrdma_tirpc_svc_create_flags("127.0.0.1", 0, 0, 0, bad[i]));
		assert_int_equal(errno, EINVAL);
	}
}

static void counts_refused(void **state)
{
	(void)state;
	struct rpcrdma_tirpc_svc_counts c;

	memset(&c, 0xa5, sizeof(c));
	c.size = sizeof(c);
	assert_int_equal(rpcrdma_tirpc_svc_counts(NULL, &c), -EINVAL);
	/* A libtirpc TCP transport is not the bridge's. */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 1), 0);
	SVCXPRT *tcp = svc_vc_create(fd, 0, 0);
	assert_non_null(tcp);
	assert_int_equal(rpcrdma_tirpc_svc_counts(tcp, &c), -EINVAL);
	assert_int_equal(rpcrdma_tirpc_svc_counts(tcp, NULL), -EINVAL);
	/* Nothing written on refusal. */
	assert_int_equal(c.size, sizeof(c));
	unsigned char *p = (unsigned char *)&c + sizeof(c.size);
	for (size_t i = 0; i < sizeof(c) - sizeof(c.size); i++)
		assert_int_equal(p[i], 0xa5);
	svc_destroy(tcp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flags_unknown),
		cmocka_unit_test(counts_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
