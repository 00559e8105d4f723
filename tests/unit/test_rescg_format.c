/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller formats: rdma.max / rdma.current printing (byte-exact,
 * kernel layout), every rdma.max and limits-file reject case with its
 * message, all-or-nothing application, snprintf semantics, and round trips
 * parse(print(x)) == x over random controllers.  Black-box: public API only.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rpcrdma/rescg.h>

#define OBJ RPCRDMA_RES_HCA_OBJECT
#define HDL RPCRDMA_RES_HCA_HANDLE

static char *print_max(struct rpcrdma_rescg_group *g)
{
	int n = rpcrdma_rescg_group_print_max(g, NULL, 0);
	assert_true(n >= 0);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(rpcrdma_rescg_group_print_max(g, buf, (size_t)n + 1), n);
	assert_int_equal(strlen(buf), n);
	return buf;
}

static char *print_current(struct rpcrdma_rescg_group *g)
{
	int n = rpcrdma_rescg_group_print_current(g, NULL, 0);
	assert_true(n >= 0);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(rpcrdma_rescg_group_print_current(g, buf, (size_t)n + 1), n);
	return buf;
}

static char *print_limits(struct rpcrdma_rescg *ctl)
{
	int n = rpcrdma_rescg_print_limits(ctl, NULL, 0);
	assert_true(n >= 0);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(rpcrdma_rescg_print_limits(ctl, buf, (size_t)n + 1), n);
	return buf;
}

static int write_max(struct rpcrdma_rescg_group *g, const char *text, char *err, size_t errsize)
{
	return rpcrdma_rescg_group_write_max(g, text, strlen(text), err, errsize);
}

static void test_print_kernel_layout(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g, *h;
	struct rpcrdma_rescg_charge *t1, *t2;
	char err[128];
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "h", &h), 0);
	/* no device known: empty files */
	char *s = print_max(g);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(rpcrdma_rescg_device_add(ctl, "mlx4_0"), 0);
	assert_int_equal(rpcrdma_rescg_device_add(ctl, "mlx4_0"), 0);
	assert_int_equal(rpcrdma_rescg_device_add(ctl, "bad name"), -EINVAL);
	assert_int_equal(write_max(g, "rxe0 hca_handle=2 hca_object=2000\n", err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", OBJ, 7, &t1), 0);
	assert_int_equal(rpcrdma_rescg_charge(g, "rxe0", HDL, 1, &t2), 0);
	/* every device the controller knows, in the order learnt, both keys,
	 * "max" for unlimited, the kernel's trailing space */
	s = print_max(g);
	assert_string_equal(s, "mlx4_0 hca_handle=max hca_object=max \n"
			       "rxe0 hca_handle=2 hca_object=2000 \n");
	free(s);
	s = print_current(g);
	assert_string_equal(s, "mlx4_0 hca_handle=0 hca_object=0 \n"
			       "rxe0 hca_handle=1 hca_object=7 \n");
	free(s);
	s = print_max(h);
	assert_string_equal(s, "mlx4_0 hca_handle=max hca_object=max \n"
			       "rxe0 hca_handle=max hca_object=max \n");
	free(s);
	s = print_current(h);
	assert_string_equal(s, "mlx4_0 hca_handle=0 hca_object=0 \n"
			       "rxe0 hca_handle=0 hca_object=0 \n");
	free(s);
	/* 0 and the largest finite value */
	assert_int_equal(write_max(h, "mlx4_0 hca_object=0 hca_handle=2147483646", err, sizeof(err)), 0);
	s = print_max(h);
	assert_string_equal(s, "mlx4_0 hca_handle=2147483646 hca_object=0 \n"
			       "rxe0 hca_handle=max hca_object=max \n");
	free(s);
	/* 2147483647 means max, as in the kernel; "max" resets */
	assert_int_equal(write_max(h, "mlx4_0 hca_handle=2147483647 hca_object=max", err, sizeof(err)), 0);
	s = print_max(h);
	assert_string_equal(s, "mlx4_0 hca_handle=max hca_object=max \n"
			       "rxe0 hca_handle=max hca_object=max \n");
	free(s);
	s = print_limits(ctl);
	assert_string_equal(s, "[g]\n"
			       "mlx4_0 hca_handle=max hca_object=max \n"
			       "rxe0 hca_handle=2 hca_object=2000 \n"
			       "[h]\n"
			       "mlx4_0 hca_handle=max hca_object=max \n"
			       "rxe0 hca_handle=max hca_object=max \n");
	free(s);
	rpcrdma_rescg_uncharge(t1);
	rpcrdma_rescg_uncharge(t2);
	rpcrdma_rescg_destroy(ctl);
}

static void test_print_snprintf_semantics(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	assert_int_equal(write_max(g, "rxe0 hca_object=12", NULL, 0), 0);
	const char *full = "rxe0 hca_handle=max hca_object=12 \n";
	int len = (int)strlen(full);
	for (size_t size = 0; size <= (size_t)len + 2; size++) {
		char buf[64];
		memset(buf, '#', sizeof(buf));
		assert_int_equal(rpcrdma_rescg_group_print_max(g, buf, size), len);
		if (size == 0) {
			assert_int_equal(buf[0], '#');
			continue;
		}
		size_t kept = size - 1 < (size_t)len ? size - 1 : (size_t)len;
		assert_memory_equal(buf, full, kept);
		assert_int_equal(buf[kept], '\0');
		assert_int_equal(buf[kept + 1], '#'); /* nothing written past size */
	}
	assert_int_equal(rpcrdma_rescg_group_print_max(NULL, NULL, 0), -EINVAL);
	assert_int_equal(rpcrdma_rescg_group_print_max(g, NULL, 5), -EINVAL);
	assert_int_equal(rpcrdma_rescg_print_limits(NULL, NULL, 0), -EINVAL);
	rpcrdma_rescg_destroy(ctl);
}

static void test_parse_accepts(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	char err[128];
	uint32_t l;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	/* keys in any order, either optional, blanks, blank lines, no final \n,
	 * kernel output (trailing space) read back */
	const char *text = "\n"
			   "  rxe0\thca_object=10   hca_handle=1 \n"
			   "\t\n"
			   "mlx5_0 hca_handle=3\n"
			   "siw0 hca_object=0 \n"
			   "rxe1 hca_handle=max hca_object=max";
	assert_int_equal(write_max(g, text, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	char *s = print_max(g);
	assert_string_equal(s, "rxe0 hca_handle=1 hca_object=10 \n"
			       "mlx5_0 hca_handle=3 hca_object=max \n"
			       "siw0 hca_handle=max hca_object=0 \n"
			       "rxe1 hca_handle=max hca_object=max \n");
	free(s);
	/* an omitted key keeps its limit */
	assert_int_equal(write_max(g, "rxe0 hca_object=11", err, sizeof(err)), 0);
	assert_int_equal(rpcrdma_rescg_group_get(g, "rxe0", HDL, &l, NULL), 0);
	assert_int_equal(l, 1);
	assert_int_equal(rpcrdma_rescg_group_get(g, "rxe0", OBJ, &l, NULL), 0);
	assert_int_equal(l, 11);
	/* empty and blank-only writes change nothing */
	assert_int_equal(rpcrdma_rescg_group_write_max(g, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(write_max(g, "\n \n\t\n", err, sizeof(err)), 0);
	/* length is honoured: bytes after len are not read */
	assert_int_equal(rpcrdma_rescg_group_write_max(g, "rxe0 hca_object=5junk", 17, err, sizeof(err)), 0);
	assert_int_equal(rpcrdma_rescg_group_get(g, "rxe0", OBJ, &l, NULL), 0);
	assert_int_equal(l, 5);
	rpcrdma_rescg_destroy(ctl);
}

struct reject {
	const char *text;
	const char *message;
};

/* Each case is written after a valid first line, to check the line numbers
 * and that the valid line is not applied either. */
static const struct reject max_rejects[] = {
	{"rxe0 hca_foo=1", "line 2: unknown key 'hca_foo'"},
	{"rxe0 hca_handle=1 =3", "line 2: unknown key ''"},
	{"rxe0 HCA_HANDLE=1", "line 2: unknown key 'HCA_HANDLE'"},
	{"rxe0 hca_handle=1 hca_handle=2", "line 2: duplicate key 'hca_handle'"},
	{"rxe0 hca_object=max hca_object=max", "line 2: duplicate key 'hca_object'"},
	{"rxe0 hca_handle", "line 2: expected key=value, got 'hca_handle'"},
	{"rxe0 hca_handle=1 garbage", "line 2: expected key=value, got 'garbage'"},
	{"rxe0 hca_handle =1", "line 2: expected key=value, got 'hca_handle'"},
	{"rxe0 hca_handle=", "line 2: missing value for hca_handle"},
	{"rxe0 hca_handle= 1", "line 2: missing value for hca_handle"},
	{"rxe0 hca_handle=-1", "line 2: malformed number '-1' for hca_handle"},
	{"rxe0 hca_handle=+1", "line 2: malformed number '+1' for hca_handle"},
	{"rxe0 hca_handle=1x", "line 2: malformed number '1x' for hca_handle"},
	{"rxe0 hca_handle=0x10", "line 2: malformed number '0x10' for hca_handle"},
	{"rxe0 hca_handle=1.5", "line 2: malformed number '1.5' for hca_handle"},
	{"rxe0 hca_object=MAX", "line 2: malformed number 'MAX' for hca_object"},
	{"rxe0 hca_object=ma", "line 2: malformed number 'ma' for hca_object"},
	{"rxe0 hca_object=maxx", "line 2: malformed number 'maxx' for hca_object"},
	{"rxe0 hca_object=1=2", "line 2: malformed number '1=2' for hca_object"},
	{"rxe0 hca_object=007", "line 2: leading zero in '007' for hca_object"},
	{"rxe0 hca_object=00", "line 2: leading zero in '00' for hca_object"},
	{"rxe0 hca_object=2147483648",
	 "line 2: value '2147483648' for hca_object out of range (at most 2147483647 or max)"},
	{"rxe0 hca_object=99999999999999999999999",
	 "line 2: value '99999999999999999999999' for hca_object out of range (at most 2147483647 or max)"},
	{"rxe0", "line 2: no key=value after device 'rxe0'"},
	{"rxe0   ", "line 2: no key=value after device 'rxe0'"},
	{"hca_handle=1", "line 2: bad device name 'hca_handle=1'"},
	{"rx/e0 hca_handle=1", "line 2: bad device name 'rx/e0'"},
	{"[g] hca_handle=1", "line 2: bad device name '[g]'"},
	{"# comment", "line 2: bad device name '#'"},
	{"0123456789012345678901234567890123456789012345678901234567890123 hca_handle=1",
	 "line 2: bad device name '01234567890123456789012345678901...'"},
	{"r\xc3\xa9 hca_handle=1", "line 2: bad device name 'r?\?'"},
	{"mlx5_0 hca_handle=5", "line 2: device 'mlx5_0' already given on line 1"},
	{"rxe0 hca_handle=1\r", "line 2: control byte 0x0d"},
	{"rxe0 hca_handle=1\v", "line 2: control byte 0x0b"},
	{"rxe0 hca_handle=1\x7f", "line 2: control byte 0x7f"},
	{"\nrxe0 hca_foo=1", "line 3: unknown key 'hca_foo'"},
	{"rxe0 hca_object=1\nrxe1 hca_object=x", "line 3: malformed number 'x' for hca_object"},
};

static void test_parse_rejects(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "g", &g), 0);
	assert_int_equal(write_max(g, "mlx5_0 hca_object=9", NULL, 0), 0);
	char *before = print_max(g);
	for (size_t i = 0; i < sizeof(max_rejects) / sizeof(max_rejects[0]); i++) {
		char text[256], err[160];
		snprintf(text, sizeof(text), "mlx5_0 hca_handle=1\n%s", max_rejects[i].text);
		memset(err, 'x', sizeof(err));
		int rc = write_max(g, text, err, sizeof(err));
		if (rc != -EINVAL || strcmp(err, max_rejects[i].message) != 0)
			fail_msg("case %zu '%s': rc %d, message '%s', want '%s'", i, max_rejects[i].text,
				 rc, err, max_rejects[i].message);
		/* all or nothing: line 1 was not applied, no device learnt */
		char *after = print_max(g);
		assert_string_equal(after, before);
		free(after);
	}
	/* NUL byte inside the given length */
	char err[64];
	assert_int_equal(rpcrdma_rescg_group_write_max(g, "rxe0 hca_handle=1\0", 18, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "line 1: control byte 0x00");
	/* message truncated to the buffer; NULL buffer fine */
	assert_int_equal(write_max(g, "rxe0 hca_foo=1", err, 8), -EINVAL);
	assert_string_equal(err, "line 1:");
	assert_int_equal(write_max(g, "rxe0 hca_foo=1", NULL, 0), -EINVAL);
	assert_int_equal(write_max(NULL, "rxe0 hca_handle=1", err, sizeof(err)), -EINVAL);
	char *after = print_max(g);
	assert_string_equal(after, before);
	free(after);
	free(before);
	rpcrdma_rescg_destroy(ctl);
}

static const struct reject file_rejects[] = {
	{"rxe0 hca_handle=1\n", "line 1: limit line before any [group] section"},
	{"# c\n\nrxe0 hca_handle=1\n", "line 3: limit line before any [group] section"},
	{"[a]\n[a]\n", "line 2: group 'a' already has a section on line 1"},
	{"[a\n", "line 1: bad section header '[a'"},
	{"[]\n", "line 1: bad section header '[]'"},
	{"[a b]\n", "line 1: bad section header '[a b]'"},
	{"[ a]\n", "line 1: bad section header '[ a]'"},
	{"[a]x\n", "line 1: bad section header '[a]x'"},
	{"[a] # c\n", "line 1: bad section header '[a] # c'"},
	{"[a]\nrxe0 hca_handle=1\nrxe0 hca_object=1\n", "line 3: device 'rxe0' already given on line 2"},
	{"[a]\nrxe0 hca_handle=1 # c\n", "line 2: expected key=value, got '#'"},
	{"[a]\nrxe0 hca_foo=1\n", "line 2: unknown key 'hca_foo'"},
	{"[a]\n[b]\nrxe0 hca_handle=1x\n", "line 3: malformed number '1x' for hca_handle"},
};

static void test_limits_file(void **state)
{
	(void)state;
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *pre;
	char err[160];
	assert_int_equal(rpcrdma_rescg_create(&ctl), 0);
	assert_int_equal(rpcrdma_rescg_group_create(ctl, "bronze", &pre), 0);
	const char *file = "# tenants\n"
			   "  # indented comment\n"
			   "[gold]\n"
			   "rxe0 hca_handle=2 hca_object=2000\n"
			   "\n"
			   " [bronze] \n"
			   "rxe0 hca_object=64\n"
			   "mlx5_0 hca_handle=1\n"
			   "[empty]\n"
			   "[silver]\n"
			   "rxe0 hca_object=max hca_handle=max";
	assert_int_equal(rpcrdma_rescg_load(ctl, file, strlen(file), err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* the existing group was updated, not duplicated; new ones follow it */
	assert_ptr_equal(rpcrdma_rescg_group_find(ctl, "bronze"), pre);
	char *s = print_limits(ctl);
	assert_string_equal(s, "[bronze]\n"
			       "rxe0 hca_handle=max hca_object=64 \n"
			       "mlx5_0 hca_handle=1 hca_object=max \n"
			       "[gold]\n"
			       "rxe0 hca_handle=2 hca_object=2000 \n"
			       "mlx5_0 hca_handle=max hca_object=max \n"
			       "[empty]\n"
			       "rxe0 hca_handle=max hca_object=max \n"
			       "mlx5_0 hca_handle=max hca_object=max \n"
			       "[silver]\n"
			       "rxe0 hca_handle=max hca_object=max \n"
			       "mlx5_0 hca_handle=max hca_object=max \n");
	/* rejects: message, and nothing changes (no group, no device) */
	for (size_t i = 0; i < sizeof(file_rejects) / sizeof(file_rejects[0]); i++) {
		char text[256];
		snprintf(text, sizeof(text), "%s", file_rejects[i].text);
		int rc = rpcrdma_rescg_load(ctl, text, strlen(text), err, sizeof(err));
		if (rc != -EINVAL || strcmp(err, file_rejects[i].message) != 0)
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err,
				 file_rejects[i].message);
		/* and the same preceded by a valid section creating a group and
		 * learning a device (where that keeps the text invalid) */
		if (file_rejects[i].text[0] == '[') {
			snprintf(text, sizeof(text), "[newgrp]\nnewdev hca_handle=1\n%s",
				 file_rejects[i].text);
			rc = rpcrdma_rescg_load(ctl, text, strlen(text), err, sizeof(err));
			assert_int_equal(rc, -EINVAL);
		}
		char *after = print_limits(ctl);
		assert_string_equal(after, s);
		free(after);
	}
	assert_null(rpcrdma_rescg_group_find(ctl, "newgrp"));
	assert_int_equal(rpcrdma_rescg_load(NULL, "", 0, err, sizeof(err)), -EINVAL);
	free(s);
	rpcrdma_rescg_destroy(ctl);
}

/* ---- round trips over random controllers */

static uint32_t rnd(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*st >> 33);
}

static uint32_t rnd_value(uint64_t *st)
{
	switch (rnd(st) % 5) {
	case 0: return RPCRDMA_RESCG_MAX;
	case 1: return 0;
	case 2: return RPCRDMA_RESCG_MAX - 1;
	default: return rnd(st) % 100000;
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	static const char *devs[] = {"rxe0", "mlx5_0", "siw0", "rocep1s0f1", "mlx4_1"};
	uint64_t st = 42;
	for (int iter = 0; iter < 300; iter++) {
		struct rpcrdma_rescg *a, *b;
		assert_int_equal(rpcrdma_rescg_create(&a), 0);
		assert_int_equal(rpcrdma_rescg_create(&b), 0);
		int ngroups = 1 + (int)(rnd(&st) % 4);
		for (int gi = 0; gi < ngroups; gi++) {
			char name[16];
			struct rpcrdma_rescg_group *g;
			snprintf(name, sizeof(name), "g%d", gi);
			assert_int_equal(rpcrdma_rescg_group_create(a, name, &g), 0);
			int nset = (int)(rnd(&st) % 6);
			for (int k = 0; k < nset; k++)
				assert_int_equal(rpcrdma_rescg_group_set_limit(g, devs[rnd(&st) % 5],
					(enum rpcrdma_rescg_resource)(rnd(&st) % 2), rnd_value(&st)), 0);
		}
		/* limits file: load(print(a)) prints the same, limit for limit */
		char *text = print_limits(a);
		char err[128];
		assert_int_equal(rpcrdma_rescg_load(b, text, strlen(text), err, sizeof(err)), 0);
		char *again = print_limits(b);
		assert_string_equal(again, text);
		/* and value for value through the getters */
		struct rpcrdma_rescg_group *ga = NULL, *gb = NULL;
		while ((ga = rpcrdma_rescg_group_next(a, ga))) {
			gb = rpcrdma_rescg_group_find(b, rpcrdma_rescg_group_name(ga));
			assert_non_null(gb);
			for (int d = 0; d < 5; d++)
				for (int r = 0; r < 2; r++) {
					uint32_t la, lb;
					assert_int_equal(rpcrdma_rescg_group_get(ga, devs[d],
						(enum rpcrdma_rescg_resource)r, &la, NULL), 0);
					assert_int_equal(rpcrdma_rescg_group_get(gb, devs[d],
						(enum rpcrdma_rescg_resource)r, &lb, NULL), 0);
					assert_int_equal(la, lb);
				}
			/* rdma.max: write(print(g)) into a fresh group of b */
			char *m = print_max(ga);
			struct rpcrdma_rescg_group *fresh;
			char fname[24];
			snprintf(fname, sizeof(fname), "fresh%d", iter);
			assert_int_equal(rpcrdma_rescg_group_create(b, fname, &fresh), 0);
			assert_int_equal(write_max(fresh, m, err, sizeof(err)), 0);
			char *m2 = print_max(fresh);
			assert_string_equal(m2, m);
			free(m2);
			free(m);
			rpcrdma_rescg_group_destroy(fresh);
		}
		free(again);
		free(text);
		rpcrdma_rescg_destroy(a);
		rpcrdma_rescg_destroy(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_kernel_layout),
		cmocka_unit_test(test_print_snprintf_semantics),
		cmocka_unit_test(test_parse_accepts),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_limits_file),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
