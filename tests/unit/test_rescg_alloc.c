/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller under allocation failure.  Linked with
 * -Wl,--wrap=malloc,calloc,realloc,strdup so that the library's allocations
 * (from the static archive) go through the wrappers below, which fail the
 * Nth one.  Each scenario is run with N = 0, 1, 2, ... until it completes
 * without an injected failure; every failing run must return -ENOMEM and
 * leave the controller exactly as it was (all or nothing), and nothing may
 * leak (LeakSanitizer in the ASan build).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/rescg.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long fail_at = -1; /* allocation index to fail, -1: none */
static long count;
static int injected;

static int should_fail(void)
{
	if (fail_at >= 0 && count++ == fail_at) {
		injected = 1;
		return 1;
	}
	return 0;
}

void *__wrap_malloc(size_t n)
{
	return should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return should_fail() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return should_fail() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return should_fail() ? NULL : __real_strdup(s);
}

static void arm(long n)
{
	fail_at = n;
	count = 0;
	injected = 0;
}

/* Stops injecting; `injected` keeps telling whether a failure was injected. */
static void disarm(void)
{
	fail_at = -1;
}

/* Prints the whole controller state (limits file and every rdma.current). */
static char *snapshot(struct rpcrdma_rescg *ctl)
{
	long saved = fail_at;
	fail_at = -1;
	char buf[4096];
	int n = rpcrdma_rescg_print_limits(ctl, buf, sizeof(buf));
	assert_true(n >= 0 && (size_t)n < sizeof(buf));
	for (struct rpcrdma_rescg_group *g = NULL; (g = rpcrdma_rescg_group_next(ctl, g));) {
		int m = rpcrdma_rescg_group_print_current(g, buf + n, sizeof(buf) - (size_t)n);
		assert_true(m >= 0 && (size_t)(n + m) < sizeof(buf));
		n += m;
	}
	char *s = __real_strdup(buf);
	assert_non_null(s);
	fail_at = saved;
	return s;
}

static struct rpcrdma_rescg *base(struct rpcrdma_rescg_group **g)
{
	struct rpcrdma_rescg *ctl;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "old", g), 0);
	assert_int_equal(rpcrdma_rescg_group_set_limit(*g, "rxe0", RPCRDMA_RES_HCA_OBJECT, 9), 0);
	return ctl;
}

static const char limits[] = "[old]\nrxe0 hca_handle=1\nmlx5_0 hca_object=3\n"
			     "[new1]\nsiw0 hca_handle=2\nrxe0 hca_object=4\n"
			     "[new2]\nrxe1 hca_object=max\n";

static void test_load_enomem(void **state)
{
	(void)state;
	int done = 0;
	long n;
	for (n = 0; !done; n++) {
		struct rpcrdma_rescg_group *g;
		struct rpcrdma_rescg *ctl = base(&g);
		char *before = snapshot(ctl);
		char err[128];
		arm(n);
		int rc = rpcrdma_rescg_load(ctl, limits, sizeof(limits) - 1, err, sizeof(err));
		disarm();
		char *after = snapshot(ctl);
		if (!injected) {
			assert_int_equal(rc, 0);
			assert_string_not_equal(before, after);
			done = 1;
		} else {
			assert_int_equal(rc, -ENOMEM);
			assert_string_equal(before, after);
			assert_null(rpcrdma_rescg_group_find(ctl, "new1"));
		}
		free(before);
		free(after);
		rpcrdma_rescg_destroy(ctl);
	}
	/* the scenario allocates several times: failures were injected */
	assert_true(n > 4);
}

static void test_write_max_enomem(void **state)
{
	(void)state;
	int done = 0;
	long n;
	for (n = 0; !done; n++) {
		struct rpcrdma_rescg_group *g;
		struct rpcrdma_rescg *ctl = base(&g);
		char *before = snapshot(ctl);
		static const char text[] = "rxe0 hca_handle=1\nnew0 hca_object=3\nnew1 hca_handle=0\n";
		arm(n);
		int rc = rpcrdma_rescg_group_write_max(g, text, sizeof(text) - 1, NULL, 0);
		disarm();
		char *after = snapshot(ctl);
		if (!injected) {
			assert_int_equal(rc, 0);
			done = 1;
		} else {
			assert_int_equal(rc, -ENOMEM);
			assert_string_equal(before, after);
		}
		free(before);
		free(after);
		rpcrdma_rescg_destroy(ctl);
	}
	/* the scenario allocates several times: failures were injected */
	assert_true(n > 4);
}

static void test_charge_enomem(void **state)
{
	(void)state;
	int done = 0;
	long n;
	for (n = 0; !done; n++) {
		struct rpcrdma_rescg_group *g, *h;
		struct rpcrdma_rescg *ctl = base(&g);
		arm(n);
		struct rpcrdma_rescg_charge *t = NULL;
		int rc = rpcrdma_rescg_group_create(ctl, "h", &h);
		if (rc == 0)
			rc = rpcrdma_rescg_charge(h, "newdev", RPCRDMA_RES_HCA_OBJECT, 2, &t);
		if (rc == 0)
			rc = rpcrdma_rescg_group_charge(g, "otherdev", RPCRDMA_RES_HCA_HANDLE, 1);
		disarm();
		if (!injected) {
			assert_int_equal(rc, 0);
			assert_int_equal(rpcrdma_rescg_group_uncharge(g, "otherdev", RPCRDMA_RES_HCA_HANDLE, 1), 0);
			done = 1;
		} else {
			assert_int_equal(rc, -ENOMEM);
		}
		/* whatever was charged is exactly what the token says */
		uint32_t u;
		h = rpcrdma_rescg_group_find(ctl, "h");
		if (h) {
			assert_int_equal(rpcrdma_rescg_group_get(h, "newdev", RPCRDMA_RES_HCA_OBJECT, NULL, &u), 0);
			assert_int_equal(u, t ? 2 : 0);
		}
		rpcrdma_rescg_uncharge(t);
		rpcrdma_rescg_destroy(ctl);
	}
	/* the scenario allocates several times: failures were injected */
	assert_true(n > 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_enomem),
		cmocka_unit_test(test_write_max_enomem),
		cmocka_unit_test(test_charge_enomem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
