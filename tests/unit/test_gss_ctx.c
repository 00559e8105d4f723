/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box: the server's RPCSEC_GSS context table (lib/gss/gss_ctx.c)
 * without a KDC: handles, the cap per client address (its least recently
 * used context goes), the global cap (the least recently used unfinished
 * context goes first), expiry, and references that outlive the table's.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gss/gss_int.h"

static struct rpcrdma__gss_svc *table(unsigned max, unsigned per_client)
{
	struct rpcrdma__gss_svc *gs = calloc(1, sizeof(*gs));
	assert_non_null(gs);
	gs->opts.max_contexts = max;
	gs->opts.max_contexts_per_client = per_client;
	gs->opts.max_lifetime_s = 100;
	gs->opts.window = 16;
	gs->acceptor = GSS_C_NO_CREDENTIAL;
	pthread_mutex_init(&gs->lock, NULL);
	return gs;
}

static struct sockaddr_in addr(unsigned host, unsigned port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(0x0a000000u | host);
	return a;
}

static struct rpcrdma__gss_ctx *new_ctx(struct rpcrdma__gss_svc *gs, unsigned host,
					unsigned port)
{
	struct sockaddr_in a = addr(host, port);
	struct rpcrdma__gss_ctx *c = rpcrdma__gss_ctx_new(gs, (struct sockaddr *)&a, sizeof(a));
	assert_non_null(c);
	return c;
}

/* Whether the context is still in the table (looked up: counts as a use). */
static bool present(struct rpcrdma__gss_svc *gs, const uint8_t *handle, bool complete)
{
	struct rpcrdma__gss_ctx *c = rpcrdma__gss_ctx_find(gs, handle, RPCRDMA__GSS_HANDLE_LEN,
							   complete);
	rpcrdma__gss_ctx_put(c);
	return c != NULL;
}

static void test_handles(void **state)
{
	(void)state;
	struct rpcrdma__gss_svc *gs = table(64, 64);
	uint8_t h[32][RPCRDMA__GSS_HANDLE_LEN];
	for (int i = 0; i < 32; i++) {
		struct rpcrdma__gss_ctx *c = new_ctx(gs, 1, 1000 + (unsigned)i);
		memcpy(h[i], c->handle, sizeof(h[i]));
		for (int j = 0; j < i; j++)
			assert_memory_not_equal(h[i], h[j], sizeof(h[i]));
		rpcrdma__gss_ctx_put(c);
	}
	assert_int_equal(gs->nctx, 32);
	assert_true(present(gs, h[5], false));
	assert_false(present(gs, h[5], true)); /* not finished */
	assert_null(rpcrdma__gss_ctx_find(gs, h[5], RPCRDMA__GSS_HANDLE_LEN - 1, false));
	uint8_t other[RPCRDMA__GSS_HANDLE_LEN];
	memcpy(other, h[5], sizeof(other));
	other[15] ^= 0x80;
	assert_false(present(gs, other, false));
	rpcrdma__gss_svc_free(gs);
}

static void test_per_client_cap(void **state)
{
	(void)state;
	struct rpcrdma__gss_svc *gs = table(64, 3);
	uint8_t h[4][RPCRDMA__GSS_HANDLE_LEN];
	for (int i = 0; i < 3; i++) {
		struct rpcrdma__gss_ctx *c = new_ctx(gs, 7, 700 + (unsigned)i); /* ports differ */
		memcpy(h[i], c->handle, sizeof(h[i]));
		rpcrdma__gss_ctx_put(c);
	}
	assert_true(present(gs, h[0], false)); /* h[1] is now the least recent */
	struct rpcrdma__gss_ctx *c = new_ctx(gs, 7, 800);
	memcpy(h[3], c->handle, sizeof(h[3]));
	rpcrdma__gss_ctx_put(c);
	assert_int_equal(gs->nctx, 3);
	assert_false(present(gs, h[1], false));
	assert_true(present(gs, h[0], false));
	assert_true(present(gs, h[2], false));
	assert_true(present(gs, h[3], false));
	/* another client is not affected */
	rpcrdma__gss_ctx_put(new_ctx(gs, 8, 1));
	assert_int_equal(gs->nctx, 4);
	rpcrdma__gss_svc_free(gs);
}

static void test_global_cap(void **state)
{
	(void)state;
	struct rpcrdma__gss_svc *gs = table(8, 8);
	uint8_t h[9][RPCRDMA__GSS_HANDLE_LEN];
	for (unsigned i = 0; i < 8; i++) {
		struct rpcrdma__gss_ctx *c = new_ctx(gs, 100 + i, 1);
		memcpy(h[i], c->handle, sizeof(h[i]));
		if (i != 5)
			rpcrdma__gss_ctx_complete(c, 1000);
		rpcrdma__gss_ctx_put(c);
	}
	/* the one unfinished context goes, though others were used less
	 * recently */
	struct rpcrdma__gss_ctx *c = new_ctx(gs, 200, 1);
	memcpy(h[8], c->handle, sizeof(h[8]));
	rpcrdma__gss_ctx_put(c);
	assert_int_equal(gs->nctx, 8);
	assert_false(present(gs, h[5], false));
	for (unsigned i = 0; i < 8; i++)
		if (i != 5)
			assert_true(present(gs, h[i], true));
	/* all finished but h[8]: at the cap again, h[8] (unfinished) goes */
	rpcrdma__gss_ctx_put(new_ctx(gs, 201, 1));
	assert_false(present(gs, h[8], false));
	assert_int_equal(gs->nctx, 8);
	rpcrdma__gss_svc_free(gs);
}

static void test_expiry_and_refs(void **state)
{
	(void)state;
	struct rpcrdma__gss_svc *gs = table(8, 8);
	struct rpcrdma__gss_ctx *c = new_ctx(gs, 1, 1);
	uint8_t h[RPCRDMA__GSS_HANDLE_LEN];
	memcpy(h, c->handle, sizeof(h));
	/* a ticket that ends now: expired at once */
	rpcrdma__gss_ctx_complete(c, 0);
	assert_false(present(gs, h, true));
	assert_int_equal(gs->nctx, 0);
	/* the caller's reference still holds it (ASan: no use after free) */
	assert_int_equal(c->refs, 1);
	c->cred.uid = 5;
	rpcrdma__gss_ctx_put(c);

	/* the lifetime is capped by max_lifetime_s */
	c = new_ctx(gs, 1, 2);
	rpcrdma__gss_ctx_complete(c, 0xfffffff0u);
	assert_true(c->expiry <= rpcrdma__gss_now() + 100);
	/* unlinked while referenced, then put */
	rpcrdma__gss_ctx_unlink(c);
	rpcrdma__gss_ctx_unlink(c); /* idempotent */
	assert_int_equal(gs->nctx, 0);
	rpcrdma__gss_ctx_put(c);
	rpcrdma__gss_svc_free(gs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handles),
		cmocka_unit_test(test_per_client_cap),
		cmocka_unit_test(test_global_cap),
		cmocka_unit_test(test_expiry_and_refs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
