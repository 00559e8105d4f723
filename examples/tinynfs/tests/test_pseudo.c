/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pseudo file system tree (pseudo.h): shape, junctions, lookups,
 * handles byte for byte (and stable against the exports' order, stale when
 * an export is gone), and every rejected export list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "pseudo.h"

static uint32_t look(const struct tnfs_pseudo *p, uint32_t dir, const char *name, uint32_t *out)
{
	return tnfs_pseudo_lookup(p, dir, (const uint8_t *)name, (uint32_t)strlen(name), out);
}

static void test_tree(void **state)
{
	(void)state;
	const char *paths[] = { "/srv/nfs/rw", "/srv/nfs/ro", "/data" };
	struct tnfs_pseudo *p;
	char err[128];
	assert_int_equal(tnfs_pseudo_build(paths, 3, &p, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* /, srv, nfs, rw, ro, data */
	assert_int_equal(p->n, 6);
	assert_string_equal(p->v[0].path, "/");
	assert_string_equal(p->v[0].name, "");
	assert_int_equal(tnfs_pseudo_export(p, 0), -1);
	/* root's children sorted: data, srv */
	assert_int_equal(p->v[0].nchild, 2);
	assert_string_equal(p->v[p->v[0].child[0]].name, "data");
	assert_string_equal(p->v[p->v[0].child[1]].name, "srv");
	uint32_t srv, nfs, rw, ro, data, x;
	assert_int_equal(look(p, 0, "srv", &srv), NFS4_OK);
	assert_int_equal(look(p, srv, "nfs", &nfs), NFS4_OK);
	assert_int_equal(look(p, nfs, "rw", &rw), NFS4_OK);
	assert_int_equal(look(p, nfs, "ro", &ro), NFS4_OK);
	assert_int_equal(look(p, 0, "data", &data), NFS4_OK);
	assert_string_equal(p->v[rw].path, "/srv/nfs/rw");
	assert_string_equal(p->v[nfs].path, "/srv/nfs");
	assert_int_equal(p->v[rw].parent, nfs);
	assert_int_equal(p->v[nfs].parent, srv);
	assert_int_equal(p->v[srv].parent, 0);
	assert_int_equal(p->v[0].parent, 0);
	assert_int_equal(tnfs_pseudo_export(p, rw), 0);
	assert_int_equal(tnfs_pseudo_export(p, ro), 1);
	assert_int_equal(tnfs_pseudo_export(p, data), 2);
	assert_int_equal(tnfs_pseudo_export(p, nfs), -1);
	assert_int_equal(tnfs_pseudo_export(p, 99), -1);
	assert_int_equal(tnfs_pseudo_junction(p, 0), rw);
	assert_int_equal(tnfs_pseudo_junction(p, 1), ro);
	assert_int_equal(tnfs_pseudo_junction(p, 2), data);
	/* misses: unknown names, prefixes, longer names, a junction's inside */
	assert_int_equal(look(p, 0, "sr", &x), NFS4ERR_NOENT);
	assert_int_equal(look(p, 0, "srvx", &x), NFS4ERR_NOENT);
	assert_int_equal(look(p, 0, "", &x), NFS4ERR_NOENT);
	assert_int_equal(look(p, nfs, "r", &x), NFS4ERR_NOENT);
	assert_int_equal(look(p, rw, "anything", &x), NFS4ERR_NOTDIR);
	assert_int_equal(look(p, 77, "srv", &x), NFS4ERR_BADHANDLE);
	/* a name that is not NUL-terminated: only len bytes count */
	assert_int_equal(tnfs_pseudo_lookup(p, 0, (const uint8_t *)"srvXYZ", 3, &x), NFS4_OK);
	assert_int_equal(x, srv);
	tnfs_pseudo_free(p);
}

static void test_handles(void **state)
{
	(void)state;
	const char *a[] = { "/srv/nfs/rw", "/srv/nfs/ro" };
	const char *b[] = { "/srv/nfs/ro", "/srv/nfs/rw", "/other" }; /* reordered, one more */
	const char *c[] = { "/srv/nfs/rw" };                         /* ro removed */
	struct tnfs_pseudo *pa, *pb, *pc;
	char err[128];
	assert_int_equal(tnfs_pseudo_build(a, 2, &pa, err, sizeof(err)), 0);
	assert_int_equal(tnfs_pseudo_build(b, 3, &pb, err, sizeof(err)), 0);
	assert_int_equal(tnfs_pseudo_build(c, 1, &pc, err, sizeof(err)), 0);

	/* byte-exact: layout 3, three zero bytes, FNV-1a 64 of "/" */
	struct tnfs_fh fh;
	tnfs_pseudo_to_fh(pa, 0, &fh);
	static const uint8_t root_fh[12] = { 3, 0, 0, 0, 0xaf, 0x63, 0xa2, 0x4c,
					     0x86, 0x01, 0x89, 0xfe };
	assert_int_equal(fh.len, 12);
	assert_memory_equal(fh.data, root_fh, 12);
	/* FNV-1a 64 reference values: "" and "a" */
	assert_true(tnfs_pseudo_hash("", 0) == 0xcbf29ce484222325ull);
	assert_true(tnfs_pseudo_hash("a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(tnfs_pseudo_export_id("a") == (0xaf63dc4cu ^ 0x8601ec8cu));

	/* every node of pa found again in pb by path, whatever the order */
	for (uint32_t i = 0; i < pa->n; i++) {
		uint32_t nb;
		tnfs_pseudo_to_fh(pa, i, &fh);
		assert_int_equal(tnfs_pseudo_from_fh(pb, fh.data, fh.len, &nb), NFS4_OK);
		assert_string_equal(pb->v[nb].path, pa->v[i].path);
	}
	/* the removed export's junction is stale in pc; the rest resolve */
	uint32_t nfs, ro, n;
	assert_int_equal(tnfs_pseudo_lookup(pa, 0, (const uint8_t *)"srv", 3, &n), NFS4_OK);
	assert_int_equal(tnfs_pseudo_lookup(pa, n, (const uint8_t *)"nfs", 3, &nfs), NFS4_OK);
	assert_int_equal(tnfs_pseudo_lookup(pa, nfs, (const uint8_t *)"ro", 2, &ro), NFS4_OK);
	tnfs_pseudo_to_fh(pa, ro, &fh);
	assert_int_equal(tnfs_pseudo_from_fh(pc, fh.data, fh.len, &n), NFS4ERR_STALE);
	tnfs_pseudo_to_fh(pa, nfs, &fh);
	assert_int_equal(tnfs_pseudo_from_fh(pc, fh.data, fh.len, &n), NFS4_OK);
	assert_string_equal(pc->v[n].path, "/srv/nfs");

	/* not pseudo handles */
	tnfs_pseudo_to_fh(pa, 0, &fh);
	assert_int_equal(tnfs_pseudo_from_fh(pa, fh.data, 11, &n), NFS4ERR_BADHANDLE);
	assert_int_equal(tnfs_pseudo_from_fh(pa, fh.data, 0, &n), NFS4ERR_BADHANDLE);
	fh.data[0] = 1; /* the export layouts (fs.h, fs_inode.h) */
	assert_int_equal(tnfs_pseudo_from_fh(pa, fh.data, 12, &n), NFS4ERR_BADHANDLE);
	fh.data[0] = 2;
	assert_int_equal(tnfs_pseudo_from_fh(pa, fh.data, 12, &n), NFS4ERR_BADHANDLE);
	fh.data[0] = TNFS_PSEUDO_FH_LAYOUT;
	fh.data[2] = 1;
	assert_int_equal(tnfs_pseudo_from_fh(pa, fh.data, 12, &n), NFS4ERR_BADHANDLE);
	tnfs_pseudo_free(pa);
	tnfs_pseudo_free(pb);
	tnfs_pseudo_free(pc);
}

static void test_single_root_export(void **state)
{
	(void)state;
	const char *r[] = { "/" };
	struct tnfs_pseudo *p;
	char err[128];
	assert_int_equal(tnfs_pseudo_build(r, 1, &p, err, sizeof(err)), 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(tnfs_pseudo_export(p, 0), 0);
	assert_int_equal(tnfs_pseudo_junction(p, 0), 0);
	uint32_t x;
	assert_int_equal(look(p, 0, "etc", &x), NFS4ERR_NOTDIR);
	tnfs_pseudo_free(p);
}

static void reject(const char *const *paths, size_t n, int rc, const char *msg)
{
	struct tnfs_pseudo *p = (struct tnfs_pseudo *)0x1;
	char err[128];
	assert_int_equal(tnfs_pseudo_build(paths, n, &p, err, sizeof(err)), rc);
	assert_ptr_equal(p, (struct tnfs_pseudo *)0x1);
	assert_string_equal(err, msg);
}

static void test_rejects(void **state)
{
	(void)state;
	const char *nested1[] = { "/a", "/a/b" };
	reject(nested1, 2, -EINVAL, "pseudo: '/a/b' lies inside export '/a'");
	const char *nested2[] = { "/a/b", "/a" };
	reject(nested2, 2, -EINVAL, "pseudo: another export lies inside '/a'");
	const char *root1[] = { "/", "/x" };
	reject(root1, 2, -EINVAL, "pseudo: '/x' lies inside export '/'");
	const char *root2[] = { "/x", "/" };
	reject(root2, 2, -EINVAL, "pseudo: another export lies inside '/'");
	const char *twice[] = { "/a/b", "/c", "/a/b" };
	reject(twice, 3, -EINVAL, "pseudo: export '/a/b' given twice");
	const char *rel[] = { "a/b" };
	reject(rel, 1, -EINVAL, "pseudo: export path 'a/b' is not absolute");
	const char *empty[] = { "" };
	reject(empty, 1, -EINVAL, "pseudo: export path '' is not absolute");
	const char *slash[] = { "/a/" };
	reject(slash, 1, -EINVAL, "pseudo: export path '/a/' ends in '/'");
	const char *dbl[] = { "/a//b" };
	reject(dbl, 1, -EINVAL, "pseudo: export path '/a//b' has an empty, '.' or '..' component");
	const char *dot[] = { "/a/./b" };
	reject(dot, 1, -EINVAL, "pseudo: export path '/a/./b' has an empty, '.' or '..' component");
	const char *dotdot[] = { "/a/../b" };
	reject(dotdot, 1, -EINVAL, "pseudo: export path '/a/../b' has an empty, '.' or '..' component");
	char longp[300] = "/";
	memset(longp + 1, 'x', 256);
	longp[257] = '\0';
	const char *lp[] = { longp };
	/* the message, cut to the 128-byte buffer: 102 of the 256 'x' fit */
	char want[128];
	snprintf(want, sizeof(want), "pseudo: a component of '%s' is too long", longp);
	assert_int_equal(strlen(want), 127);
	reject(lp, 1, -EINVAL, want);
	reject(NULL, 0, -EINVAL, "pseudo: no exports");
	/* names that only look alike are fine: "..." and ".x" */
	const char *odd[] = { "/.../a", "/.x" };
	struct tnfs_pseudo *p;
	char err[128];
	assert_int_equal(tnfs_pseudo_build(odd, 2, &p, err, sizeof(err)), 0);
	assert_int_equal(p->n, 4);
	tnfs_pseudo_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_handles),
		cmocka_unit_test(test_single_root_export),
		cmocka_unit_test(test_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
