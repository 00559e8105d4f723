/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's versions string: exact strings both ways. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "versions.h"

static void expect(const struct tnfs_versions *v, const char *s)
{
	char buf[64];
	int n = tnfs_versions_print(v, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(s));
	assert_string_equal(buf, s);
}

static void test_default(void **state)
{
	(void)state;
	struct tnfs_versions v;
	tnfs_versions_default(&v);
	expect(&v, "-2 -3 +4 -4.0 +4.1 +4.2");
	assert_false(tnfs_versions_minor_ok(&v, 0));
	assert_true(tnfs_versions_minor_ok(&v, 1));
	assert_true(tnfs_versions_minor_ok(&v, 2));
	assert_false(tnfs_versions_minor_ok(&v, 3));
	assert_int_equal(tnfs_versions_check(&v), 0);
}

static void test_kernel_example(void **state)
{
	(void)state;
	struct tnfs_versions v;
	memset(&v, 0, sizeof(v));
	assert_int_equal(tnfs_versions_parse(&v, "-2 +3 +4 +4.0 +4.1 +4.2"), 0);
	/* +4.0 is implied by +4 and not printed */
	expect(&v, "-2 +3 +4 +4.1 +4.2");
	assert_int_equal(tnfs_versions_check(&v), -ENOTSUP);
}

static void test_minor_needs_major(void **state)
{
	(void)state;
	struct tnfs_versions v;
	tnfs_versions_default(&v);
	assert_int_equal(tnfs_versions_parse(&v, "-4"), 0);
	/* the minors stay enabled in themselves but print '-' */
	expect(&v, "-2 -3 -4 -4.0 -4.1 -4.2");
	assert_false(tnfs_versions_minor_ok(&v, 1));
	assert_int_equal(tnfs_versions_parse(&v, "+4"), 0);
	expect(&v, "-2 -3 +4 -4.0 +4.1 +4.2");
	assert_int_equal(tnfs_versions_parse(&v, "  -4.2\t+4.0\n"), 0);
	expect(&v, "-2 -3 +4 +4.1 -4.2");
	assert_int_equal(tnfs_versions_parse(&v, ""), 0);
	expect(&v, "-2 -3 +4 +4.1 -4.2");
}

static void test_rejects(void **state)
{
	(void)state;
	static const char *bad[] = {
		"4", "+5", "-1", "+4.3", "+3.1", "++4", "+4.", "+4.1x", "+4,+3",
		"+4 x", "+", "-4.-1", "+44",
	};
	struct tnfs_versions v, before;
	tnfs_versions_default(&v);
	before = v;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tnfs_versions_parse(&v, bad[i]), -EINVAL);
		assert_memory_equal(&v, &before, sizeof(v));
	}
	/* a bad token later in the string: nothing applied */
	assert_int_equal(tnfs_versions_parse(&v, "-4.1 +9"), -EINVAL);
	assert_memory_equal(&v, &before, sizeof(v));
	char small[8];
	assert_int_equal(tnfs_versions_print(&v, small, sizeof(small)), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_kernel_example),
		cmocka_unit_test(test_minor_needs_major),
		cmocka_unit_test(test_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
