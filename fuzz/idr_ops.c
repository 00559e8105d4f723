/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target for the id allocators: the input is a program of 4-byte
 * records (op, window, offset, argument) run against an IDR and an IDA side
 * by side with a sorted-array model of each.  Ids fall in 512-id windows at
 * the boundaries of every tree height and at both ends of the id space.
 * Checked properties (abort on violation):
 *  - every result equals the model's (ids, -ENOSPC, -ENOENT, pointers);
 *  - -ENOMEM only when the allocator hook just failed, and it changes
 *    nothing; a successful call allocates exactly the nodes it keeps;
 *  - the tree invariants hold (rpcrdma__idr_check, rpcrdma__ida_check);
 *  - nothing leaks (the hook's live count is 0 after destroy).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/idr.h>

#include "util/idr_internal.h"
#include "../tests/common/idr_test_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IDS 4096

static const int64_t bases[8] = {
	0, /* 63 | 64: heights 1 and 2; the IDA's inline word */
	1024 - 256,
	4096 - 256,
	262144 - 256,
	16777216 - 256,
	((int64_t)1 << 30) - 256,
	1000000000,
	(int64_t)INT_MAX - 511,
};

static char tokens[256];

struct model {
	size_t n;
	int64_t id[MAX_IDS];
	void *ptr[MAX_IDS];
	int64_t next;
};

static void check(bool ok)
{
	if (!ok)
		abort();
}

static void compare_idr(const struct rpcrdma_idr *idr, const struct model *m)
{
	check(rpcrdma__idr_check(idr) == 0);
	check(rpcrdma_idr_count(idr) == m->n);
	void *p = NULL;
	int id = rpcrdma_idr_get_next(idr, 0, &p);
	for (size_t k = 0; k < m->n; k++) {
		check(id == m->id[k] && p == m->ptr[k]);
		id = id == INT_MAX ? -ENOENT : rpcrdma_idr_get_next(idr, id + 1, &p);
	}
	check(id == -ENOENT);
}

static void compare_ida(const struct rpcrdma_ida *ida, const struct model *m)
{
	check(rpcrdma__ida_check(ida) == 0);
	check(rpcrdma_ida_count(ida) == m->n);
	for (size_t k = 0; k < m->n; k++)
		check(rpcrdma_ida_test(ida, (int)m->id[k]));
}

/* The expected id of an allocation in [start, lim), or -1 (range full). */
static int64_t expect(const struct model *m, bool cyclic, int64_t start, int64_t lim)
{
	if (!cyclic)
		return id_set_free(m->id, m->n, start, lim);
	int64_t from = m->next > start ? m->next : start;
	int64_t id = from < lim ? id_set_free(m->id, m->n, from, lim) : -1;
	return id >= 0 ? id : id_set_free(m->id, m->n, start, lim);
}

/* Checks an allocation's result; true when it allocated want. */
static bool check_alloc(int got, int64_t want, struct fail_alloc *h, long failures, long calls,
			size_t nodes_before, size_t nodes_after)
{
	if (got == -ENOMEM) {
		check(h->failures == failures + 1 && want >= 0 && nodes_after == nodes_before);
		return false;
	}
	check(h->failures == failures);
	if (want < 0) {
		check(got == -ENOSPC);
		return false;
	}
	check(got == want);
	check(nodes_after - nodes_before == (size_t)(h->calls - calls));
	return true;
}

static struct model mi, ma; /* the IDR's and the IDA's models */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fail_alloc h = {0};
	struct rpcrdma_idr_allocator a = fail_alloc_hooks(&h);
	struct rpcrdma_idr *idr = NULL;
	struct rpcrdma_ida *ida = NULL;
	check(rpcrdma_idr_create(&a, &idr) == 0);
	check(rpcrdma_ida_create(&a, &ida) == 0);
	memset(&mi, 0, sizeof(mi));
	memset(&ma, 0, sizeof(ma));

	for (size_t at = 0; at + 4 <= size && at < 4 * (MAX_IDS - 1); at += 4) {
		unsigned op = data[at] % 11, arg = data[at + 3];
		int64_t id = bases[data[at + 1] & 7] + data[at + 2] + ((data[at + 1] >> 3) & 1) * 256;
		int64_t lim = arg == 0 ? (int64_t)INT_MAX + 1 : id + arg;
		if (lim > (int64_t)INT_MAX + 1)
			lim = (int64_t)INT_MAX + 1;
		int end = lim > INT_MAX ? 0 : (int)lim;
		void *p = (arg & 7) == 0 ? NULL : &tokens[arg];
		long failures = h.failures, calls = h.calls;
		size_t k;
		switch (op) {
		case 0:
		case 1: {
			bool cyclic = op == 1;
			int64_t want = expect(&mi, cyclic, id, lim);
			size_t nodes = rpcrdma__idr_node_count(idr);
			int got = cyclic ? rpcrdma_idr_alloc_cyclic(idr, p, (int)id, end)
					 : rpcrdma_idr_alloc(idr, p, (int)id, end);
			if (check_alloc(got, want, &h, failures, calls, nodes,
					rpcrdma__idr_node_count(idr))) {
				id_set_insert(mi.id, mi.ptr, &mi.n, want, p);
				if (cyclic)
					mi.next = want == INT_MAX ? 0 : want + 1;
			}
			break;
		}
		case 2:
			if (id_set_has(mi.id, mi.n, id, &k)) {
				check(rpcrdma_idr_remove(idr, (int)id) == mi.ptr[k]);
				id_set_erase(mi.id, mi.ptr, &mi.n, k);
			} else {
				check(rpcrdma_idr_remove(idr, (int)id) == NULL);
			}
			break;
		case 3: {
			void *got = &tokens[0];
			int rc = rpcrdma_idr_lookup(idr, (int)id, &got);
			if (id_set_has(mi.id, mi.n, id, &k))
				check(rc == 0 && got == mi.ptr[k]);
			else
				check(rc == -ENOENT && got == &tokens[0]);
			break;
		}
		case 4: {
			void *old = &tokens[0];
			int rc = rpcrdma_idr_replace(idr, (int)id, p, &old);
			if (id_set_has(mi.id, mi.n, id, &k)) {
				check(rc == 0 && old == mi.ptr[k]);
				mi.ptr[k] = p;
			} else {
				check(rc == -ENOENT && old == &tokens[0]);
			}
			break;
		}
		case 5: {
			void *got = NULL;
			int rc = rpcrdma_idr_get_next(idr, (int)id, &got);
			k = id_set_pos(mi.id, mi.n, id);
			if (k == mi.n)
				check(rc == -ENOENT);
			else
				check(rc == mi.id[k] && got == mi.ptr[k]);
			break;
		}
		case 6: {
			int64_t want = expect(&ma, false, id, lim);
			size_t nodes = rpcrdma__ida_node_count(ida);
			int got = rpcrdma_ida_alloc(ida, (int)id, end);
			if (check_alloc(got, want, &h, failures, calls, nodes,
					rpcrdma__ida_node_count(ida)))
				id_set_insert(ma.id, ma.ptr, &ma.n, want, NULL);
			break;
		}
		case 7:
			if (id_set_has(ma.id, ma.n, id, &k)) {
				check(rpcrdma_ida_free(ida, (int)id) == 0);
				id_set_erase(ma.id, ma.ptr, &ma.n, k);
			} else {
				check(rpcrdma_ida_free(ida, (int)id) == -ENOENT);
			}
			break;
		case 8:
			check(rpcrdma_ida_test(ida, (int)id) == id_set_has(ma.id, ma.n, id, &k));
			break;
		case 9:
			h.fail_at = h.calls + 1 + (arg & 15);
			break;
		default:
			compare_idr(idr, &mi);
			compare_ida(ida, &ma);
			break;
		}
	}
	compare_idr(idr, &mi);
	compare_ida(ida, &ma);
	rpcrdma_idr_destroy(idr);
	rpcrdma_ida_destroy(ida);
	check(h.live == 0);
	return 0;
}
