/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Black-box: the API's common contracts (api.h), through the shared library
 * only.  Every _create() that fails leaves *out NULL, whatever the caller
 * left there, for each way it can fail without a device: bad arguments,
 * bad options, an allocator that fails, a name that exists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>

#include <rpcrdma/rpcrdma.h>

/* What a caller that forgot to initialise its pointer has in it. */
#define JUNK ((void *)(uintptr_t)0x5a5a5a5a)

static void *no_alloc(void *user, size_t size)
{
	(void)user;
	(void)size;
	return NULL;
}

static void no_free(void *user, void *ptr, size_t size)
{
	(void)user;
	(void)ptr;
	(void)size;
}

static void test_idr_ida(void **state)
{
	(void)state;
	const struct rpcrdma_idr_allocator bad = { .alloc = no_alloc, .free = NULL };
	const struct rpcrdma_idr_allocator none = { .alloc = no_alloc, .free = no_free };
	struct rpcrdma_idr *idr = JUNK;
	assert_int_equal(rpcrdma_idr_create(&bad, &idr), -EINVAL);
	assert_null(idr);
	idr = JUNK;
	assert_int_equal(rpcrdma_idr_create(&none, &idr), -ENOMEM);
	assert_null(idr);
	struct rpcrdma_ida *ida = JUNK;
	assert_int_equal(rpcrdma_ida_create(&bad, &ida), -EINVAL);
	assert_null(ida);
	ida = JUNK;
	assert_int_equal(rpcrdma_ida_create(&none, &ida), -ENOMEM);
	assert_null(ida);
	rpcrdma_idr_destroy(idr); /* NULL: a no-op */
	rpcrdma_ida_destroy(ida);
}

static void test_svc(void **state)
{
	(void)state;
	struct rpcrdma_svc_opts o;
	rpcrdma_svc_opts_init(&o);
	assert_int_equal(o.size, sizeof(o));
	o.max_record = 8; /* below 32 */
	struct rpcrdma_svc *svc = JUNK;
	assert_int_equal(rpcrdma_svc_create(&o, &svc), -EINVAL);
	assert_null(svc);
	o.size = 1;
	svc = JUNK;
	assert_int_equal(rpcrdma_svc_create(&o, &svc), -EINVAL);
	assert_null(svc);
	rpcrdma_svc_destroy(svc);
}

static void test_rescg(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	struct rpcrdma_rescg_group *g = JUNK;
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "a/b", &g), -EINVAL);
	assert_null(g);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "nfs", &g), 0);
	assert_non_null(g);
	g = JUNK;
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "nfs", &g), -EEXIST);
	assert_null(g);
	rpcrdma_rescg_destroy(ctl);
}

#ifdef RPCRDMA_HAVE_RDMA
static void handler(struct rpcrdma_call *call, void *arg)
{
	(void)arg;
	(void)call;
}

static void test_rdma(void **state)
{
	(void)state;
	struct rpcrdma_poller_opts po;
	rpcrdma_poller_opts_init(&po);
	po.size = 1;
	struct rpcrdma_poller *p = JUNK;
	assert_int_equal(rpcrdma_poller_create(&po, &p), -EINVAL);
	assert_null(p);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rpcrdma_listener *l = JUNK;
	assert_int_equal(rpcrdma_listener_create(NULL, (struct sockaddr *)&sin, NULL,
						 handler, NULL, &l), -EINVAL);
	assert_null(l);
	struct rpcrdma_client *c = JUNK;
	assert_int_equal(rpcrdma_client_create(NULL, (struct sockaddr *)&sin, NULL, &c),
			 -EINVAL);
	assert_null(c);
	rpcrdma_poller_destroy(p);
	rpcrdma_listener_destroy(l);
	rpcrdma_client_destroy(c);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idr_ida),
		cmocka_unit_test(test_svc),
		cmocka_unit_test(test_rescg),
#ifdef RPCRDMA_HAVE_RDMA
		cmocka_unit_test(test_rdma),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
