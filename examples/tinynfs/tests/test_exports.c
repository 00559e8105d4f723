/* SPDX-License-Identifier: BSD-2-Clause */
/* The exports file parser: options, defaults, errors with line numbers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exports.h"
#include "mountinfo.h"

#include <sys/sysmacros.h>

static int parse(const char *text, struct tnfs_exports *e, char *err)
{
	return tnfs_exports_parse("exports", text, strlen(text), e, err, 128);
}

static void test_good(void **state)
{
	(void)state;
	struct tnfs_exports e;
	char err[128];
	assert_int_equal(parse("# comment\n"
			       "\n"
			       "/srv/a *(rw,no_root_squash,security_label)  # trailing\n"
			       "/srv/b\n"
			       "  /srv/c   ro,all_squash,anonuid=1000,anongid=100,sync,no_subtree_check\n"
			       "/srv/d (rw)\r\n", &e, err), 0);
	assert_int_equal(e.n, 4);
	assert_string_equal(e.v[0].path, "/srv/a");
	assert_int_equal(e.v[0].flags, TNFS_EXP_RW | TNFS_EXP_SECURITY_LABEL);
	assert_int_equal(e.v[0].squash, TNFS_SQUASH_NONE);
	assert_int_equal(e.v[0].line, 3);
	/* defaults: ro, root_squash, 65534, no security label */
	assert_string_equal(e.v[1].path, "/srv/b");
	assert_int_equal(e.v[1].flags, 0);
	assert_int_equal(e.v[1].squash, TNFS_SQUASH_ROOT);
	assert_int_equal(e.v[1].anonuid, 65534);
	assert_int_equal(e.v[1].anongid, 65534);
	assert_int_equal(e.v[2].squash, TNFS_SQUASH_ALL);
	assert_int_equal(e.v[2].anonuid, 1000);
	assert_int_equal(e.v[2].anongid, 100);
	assert_int_equal(e.v[2].line, 5);
	assert_int_equal(e.v[3].flags, TNFS_EXP_RW);
	tnfs_exports_free(&e);
	assert_int_equal(parse("", &e, err), 0);
	assert_int_equal(e.n, 0);
	tnfs_exports_free(&e);
}

/* sec= (knfsd's syntax): the flavours in order; none given: nsec 0. */
static void test_sec(void **state)
{
	(void)state;
	struct tnfs_exports e;
	char err[128];
	assert_int_equal(parse("/a *(rw,sec=krb5p:krb5i:krb5:sys:none)\n/b sec=sys\n/c rw\n", &e,
			       err), 0);
	static const uint8_t want[] = { TNFS_SEC_KRB5P, TNFS_SEC_KRB5I, TNFS_SEC_KRB5,
					TNFS_SEC_SYS, TNFS_SEC_NONE };
	assert_int_equal(e.v[0].nsec, 5);
	assert_memory_equal(e.v[0].sec, want, 5);
	assert_int_equal(e.v[0].flags, TNFS_EXP_RW);
	assert_int_equal(e.v[1].nsec, 1);
	assert_int_equal(e.v[1].sec[0], TNFS_SEC_SYS);
	assert_int_equal(e.v[2].nsec, 0);
	tnfs_exports_free(&e);
}

static void expect_error(const char *text, const char *msg)
{
	struct tnfs_exports e;
	char err[128];
	assert_int_equal(parse(text, &e, err), -EINVAL);
	assert_string_equal(err, msg);
	assert_int_equal(e.n, 0);
	assert_null(e.v);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("/a rw\n/b *(rw,foo)\n", "exports:2: unknown option 'foo'");
	expect_error("relative rw\n", "exports:1: export path must be absolute");
	expect_error("/a *(rw\n", "exports:1: missing ')'");
	expect_error("/a host(rw)\n", "exports:1: only '*' clients are supported");
	expect_error("/a *(rw) *(ro)\n", "exports:1: more than one client entry");
	expect_error("#\n\n/a anonuid=x\n", "exports:3: bad anonuid 'x'");
	expect_error("/a anongid=99999999999\n", "exports:1: bad anongid '99999999999'");
	expect_error("/a rw,,ro\n", "exports:1: empty option");
	expect_error("/a async\n",
		     "exports:1: option 'async' is not supported (writes are always stable when acknowledged so)");
	expect_error("/a\n/b\n/a rw\n", "exports:3: '/a' already exported on line 1");
	expect_error("/a sec=sys:lkey\n", "exports:1: unknown security flavour 'lkey'");
	expect_error("/a sec=\n", "exports:1: unknown security flavour ''");
	expect_error("/a sec=krb5:\n", "exports:1: unknown security flavour ''");
	expect_error("/a sec=krb5:sys:krb5\n", "exports:1: flavour 'krb5' given twice");
	expect_error("/a sec=sys,rw,sec=krb5\n", "exports:1: sec= given twice");
	struct tnfs_exports e;
	char err[128];
	assert_int_equal(tnfs_exports_parse("x", "/a\0b", 4, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x:0: NUL byte in file");
}

static void test_load(void **state)
{
	(void)state;
	struct tnfs_exports e;
	char err[128];
	assert_int_equal(tnfs_exports_load("/nonexistent/exports", &e, err, sizeof(err)), -ENOENT);
	char path[] = "/tmp/tinynfs-exports-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("/srv/x *(rw)\n/srv/y *(bogus)\n", f);
	fclose(f);
	assert_int_equal(tnfs_exports_load(path, &e, err, sizeof(err)), -EINVAL);
	char want[128];
	snprintf(want, sizeof(want), "%s:2: unknown option 'bogus'", path);
	assert_string_equal(err, want);
	remove(path);
}

/* Whole-file-system exports from mountinfo lines: root "/", the top mount
 * at the point, the device, escapes; a bind mount of a subdirectory and an
 * over-mount are not whole. */
static bool whole(const char *text, const char *path, dev_t dev)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	bool r = tnfs_mount_is_whole(f, path, dev);
	fclose(f);
	return r;
}

static void test_mountinfo(void **state)
{
	(void)state;
	const char *mi =
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		"30 22 0:40 / /srv/t rw,relatime shared:9 - tmpfs tmpfs rw,size=1024k\n"
		"31 22 8:1 /home/x /srv/bind rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		"32 22 0:41 / /srv/with\\040space rw - tmpfs tmpfs rw\n"
		"33 22 0:42 / /srv/over rw - tmpfs tmpfs rw\n"
		"34 33 0:43 / /srv/over rw - tmpfs tmpfs rw\n"
		"35 22 0:44 / /srv/under rw - tmpfs tmpfs rw\n"
		"36 35 0:45 / /srv/under rw - tmpfs tmpfs rw\n"
		"37 36 0:44 / /srv/under rw - tmpfs tmpfs rw\n"
		"garbage\n"
		"38 22 zz / /srv/bad rw - tmpfs tmpfs rw\n";
	assert_true(whole(mi, "/", makedev(8, 1)));
	assert_true(whole(mi, "/srv/t", makedev(0, 40)));
	assert_false(whole(mi, "/srv/t", makedev(0, 41)));       /* other device */
	assert_false(whole(mi, "/srv/bind", makedev(8, 1)));     /* bind of a subdirectory */
	assert_true(whole(mi, "/srv/with space", makedev(0, 41)));
	assert_false(whole(mi, "/srv/with\\040space", makedev(0, 41)));
	assert_false(whole(mi, "/srv/over", makedev(0, 42)));    /* covered by 0:43 */
	assert_true(whole(mi, "/srv/over", makedev(0, 43)));
	assert_true(whole(mi, "/srv/under", makedev(0, 44)));    /* on top again */
	assert_false(whole(mi, "/srv", makedev(8, 1)));          /* not a mount point */
	assert_false(whole(mi, "/srv/bad", makedev(0, 46)));
	assert_false(whole("", "/", makedev(8, 1)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_sec),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_mountinfo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
