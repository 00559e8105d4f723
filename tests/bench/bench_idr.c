/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Benchmark: the IDR (and IDA) against a plain open-addressing hash map
 * (linear probing, Fibonacci hashing, backward-shift deletion, doubled when
 * more than half full), printed side by side with idr/hash ratios.
 *
 *   memory:  bytes held per id once all ids are in (counted by an allocator
 *            hook for the IDR and IDA; table size for the hash map);
 *   time:    ns per alloc (insert for the map), find and remove, each phase
 *            over all ids in random order, repeated to >= 1e6 operations;
 *            the best of three trials.
 *
 * dense:  ids 0..n-1 (the IDR finds the lowest free id itself; the map is
 *         given the same ids, it cannot find a free one);
 * sparse: n distinct ids spread over [0, INT_MAX] (the IDR allocates each at
 *         an exact id with alloc(id, id + 1)).
 * cyclic: 128 ids in flight (like xids of outstanding calls), each step
 *         frees the oldest and allocates the next with alloc_cyclic; the map
 *         is given a wrapping counter.
 * Run: meson test -C build --suite bench -v   (or build/tests/bench/bench-idr)
 * `bench-idr quick` stops at 1e4 ids and shortens the cyclic run, for
 * valgrind --tool=callgrind (instruction counts per function).
 */
#include <rpcrdma/idr.h>
#include "util/idr_internal.h" /* rpcrdma__idr_node_count */

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ helpers */

struct counting {
	size_t live_bytes;
};

static void *count_alloc(void *user, size_t size)
{
	((struct counting *)user)->live_bytes += size;
	return malloc(size);
}

static void count_free(void *user, void *ptr, size_t size)
{
	((struct counting *)user)->live_bytes -= size;
	free(ptr);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x243F6A8885A308D3ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static void shuffle(int *a, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(rnd() % i);
		int t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static void die(const char *what)
{
	fprintf(stderr, "bench-idr: %s\n", what);
	exit(1);
}

/* --------------------------------------------- open-addressing hash map */

struct hslot {
	int key; /* -1: empty */
	void *val;
};

struct hmap {
	struct hslot *t;
	size_t mask; /* capacity - 1 */
	size_t n;
};

static size_t hbucket(const struct hmap *h, int key)
{
	return (size_t)(((uint64_t)(uint32_t)key * 0x9E3779B97F4A7C15ULL) >> 32) & h->mask;
}

static void hmap_init(struct hmap *h, size_t cap)
{
	h->t = malloc(cap * sizeof(*h->t));
	if (h->t == NULL)
		die("out of memory");
	for (size_t i = 0; i < cap; i++)
		h->t[i].key = -1;
	h->mask = cap - 1;
	h->n = 0;
}

static void hmap_put(struct hmap *h, int key, void *val);

static void hmap_grow(struct hmap *h)
{
	struct hmap g;
	hmap_init(&g, (h->mask + 1) * 2);
	for (size_t i = 0; i <= h->mask; i++) {
		if (h->t[i].key >= 0)
			hmap_put(&g, h->t[i].key, h->t[i].val);
	}
	free(h->t);
	*h = g;
}

static void hmap_put(struct hmap *h, int key, void *val)
{
	if ((h->n + 1) * 2 > h->mask + 1)
		hmap_grow(h);
	size_t i = hbucket(h, key);
	while (h->t[i].key >= 0 && h->t[i].key != key)
		i = (i + 1) & h->mask;
	if (h->t[i].key < 0)
		h->n++;
	h->t[i].key = key;
	h->t[i].val = val;
}

static void *hmap_get(const struct hmap *h, int key)
{
	for (size_t i = hbucket(h, key);; i = (i + 1) & h->mask) {
		if (h->t[i].key == key)
			return h->t[i].val;
		if (h->t[i].key < 0)
			return NULL;
	}
}

static void *hmap_del(struct hmap *h, int key)
{
	size_t i = hbucket(h, key);
	while (h->t[i].key != key) {
		if (h->t[i].key < 0)
			return NULL;
		i = (i + 1) & h->mask;
	}
	void *val = h->t[i].val;
	/* backward-shift deletion: no tombstones */
	for (size_t j = (i + 1) & h->mask; h->t[j].key >= 0; j = (j + 1) & h->mask) {
		size_t home = hbucket(h, h->t[j].key);
		if (((j - home) & h->mask) >= ((j - i) & h->mask)) {
			h->t[i] = h->t[j];
			i = j;
		}
	}
	h->t[i].key = -1;
	h->n--;
	return val;
}

static size_t hmap_bytes(const struct hmap *h)
{
	return sizeof(*h) + (h->mask + 1) * sizeof(*h->t);
}

/* ------------------------------------------------------------ the runs */

struct result {
	double bytes_per_id, alloc_ns, find_ns, remove_ns;
};

static char token;

static void run_idr(const int *ids, const int *order, size_t n, bool dense, size_t reps,
		    struct result *r)
{
	struct counting c = {0};
	struct rpcrdma_idr_allocator a = {count_alloc, count_free, &c};
	double ta = 0, tf = 0, tr = 0;
	for (size_t rep = 0; rep < reps; rep++) {
		struct rpcrdma_idr *idr;
		if (rpcrdma_idr_create(&a, &idr) < 0)
			die("idr_create");
		double t0 = now_ns();
		for (size_t i = 0; i < n; i++) {
			int id = dense ? rpcrdma_idr_alloc(idr, &token, 0, 0)
				       : rpcrdma_idr_alloc(idr, &token, ids[i], ids[i] + 1);
			if (id != ids[i])
				die("idr_alloc");
		}
		double t1 = now_ns();
		r->bytes_per_id = (double)c.live_bytes / (double)n;
		uintptr_t sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += (uintptr_t)rpcrdma_idr_find(idr, order[i]);
		double t2 = now_ns();
		if (sum != (uintptr_t)&token * n)
			die("idr_find");
		for (size_t i = 0; i < n; i++) {
			if (rpcrdma_idr_remove(idr, order[i]) != &token)
				die("idr_remove");
		}
		double t3 = now_ns();
		if (rpcrdma__idr_node_count(idr) != 0)
			die("idr nodes left");
		rpcrdma_idr_destroy(idr);
		ta += t1 - t0;
		tf += t2 - t1;
		tr += t3 - t2;
	}
	double ops = (double)n * (double)reps;
	r->alloc_ns = ta / ops;
	r->find_ns = tf / ops;
	r->remove_ns = tr / ops;
}

static void run_hash(const int *ids, const int *order, size_t n, size_t reps, struct result *r)
{
	double ta = 0, tf = 0, tr = 0;
	for (size_t rep = 0; rep < reps; rep++) {
		struct hmap h;
		hmap_init(&h, 16);
		double t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			hmap_put(&h, ids[i], &token);
		double t1 = now_ns();
		r->bytes_per_id = (double)hmap_bytes(&h) / (double)n;
		uintptr_t sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += (uintptr_t)hmap_get(&h, order[i]);
		double t2 = now_ns();
		if (sum != (uintptr_t)&token * n)
			die("hmap_get");
		for (size_t i = 0; i < n; i++) {
			if (hmap_del(&h, order[i]) != &token)
				die("hmap_del");
		}
		double t3 = now_ns();
		free(h.t);
		ta += t1 - t0;
		tf += t2 - t1;
		tr += t3 - t2;
	}
	double ops = (double)n * (double)reps;
	r->alloc_ns = ta / ops;
	r->find_ns = tf / ops;
	r->remove_ns = tr / ops;
}

/* IDA: bytes per id and ns per alloc and free (find = test). */
static void run_ida(const int *ids, const int *order, size_t n, bool dense, size_t reps,
		    struct result *r)
{
	struct counting c = {0};
	struct rpcrdma_idr_allocator a = {count_alloc, count_free, &c};
	double ta = 0, tf = 0, tr = 0;
	for (size_t rep = 0; rep < reps; rep++) {
		struct rpcrdma_ida *ida;
		if (rpcrdma_ida_create(&a, &ida) < 0)
			die("ida_create");
		double t0 = now_ns();
		for (size_t i = 0; i < n; i++) {
			int id = dense ? rpcrdma_ida_alloc(ida, 0, 0)
				       : rpcrdma_ida_alloc(ida, ids[i], ids[i] + 1);
			if (id != ids[i])
				die("ida_alloc");
		}
		double t1 = now_ns();
		r->bytes_per_id = (double)c.live_bytes / (double)n;
		size_t hits = 0;
		for (size_t i = 0; i < n; i++)
			hits += rpcrdma_ida_test(ida, order[i]);
		double t2 = now_ns();
		if (hits != n)
			die("ida_test");
		for (size_t i = 0; i < n; i++) {
			if (rpcrdma_ida_free(ida, order[i]) != 0)
				die("ida_free");
		}
		double t3 = now_ns();
		rpcrdma_ida_destroy(ida);
		ta += t1 - t0;
		tf += t2 - t1;
		tr += t3 - t2;
	}
	double ops = (double)n * (double)reps;
	r->alloc_ns = ta / ops;
	r->find_ns = tf / ops;
	r->remove_ns = tr / ops;
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

static void keep_best(struct result *best, const struct result *t)
{
	best->bytes_per_id = t->bytes_per_id;
	best->alloc_ns = min2(best->alloc_ns, t->alloc_ns);
	best->find_ns = min2(best->find_ns, t->find_ns);
	best->remove_ns = min2(best->remove_ns, t->remove_ns);
}

static void print_row(const char *pattern, size_t n, const struct result *i,
		      const struct result *h, const struct result *d)
{
	printf("%-6s %8zu | %7.2f %7.2f %5.2f %6.3f | %6.1f %6.1f %5.2f %6.1f | %6.1f %6.1f %5.2f %6.1f"
	       " | %6.1f %6.1f %5.2f %6.1f\n",
	       pattern, n, i->bytes_per_id, h->bytes_per_id, i->bytes_per_id / h->bytes_per_id,
	       d->bytes_per_id, i->alloc_ns, h->alloc_ns, i->alloc_ns / h->alloc_ns, d->alloc_ns,
	       i->find_ns, h->find_ns, i->find_ns / h->find_ns, d->find_ns, i->remove_ns,
	       h->remove_ns, i->remove_ns / h->remove_ns, d->remove_ns);
}

static void cyclic_steady(int steps)
{
	enum { INFLIGHT = 128 };
	static int ring[INFLIGHT];
	struct rpcrdma_idr *idr;
	if (rpcrdma_idr_create(NULL, &idr) < 0)
		die("idr_create");
	for (int i = 0; i < INFLIGHT; i++)
		ring[i] = rpcrdma_idr_alloc_cyclic(idr, &token, 0, 0);
	double t0 = now_ns();
	for (int s = 0; s < steps; s++) {
		int k = s % INFLIGHT;
		if (rpcrdma_idr_remove(idr, ring[k]) != &token)
			die("cyclic remove");
		ring[k] = rpcrdma_idr_alloc_cyclic(idr, &token, 0, 0);
		if (ring[k] < 0)
			die("cyclic alloc");
		if (rpcrdma_idr_find(idr, ring[(k + 1) % INFLIGHT]) != &token)
			die("cyclic find");
	}
	double t1 = now_ns();
	size_t nodes = rpcrdma__idr_node_count(idr);
	rpcrdma_idr_destroy(idr);

	struct hmap h;
	hmap_init(&h, 16);
	int next = 0;
	for (int i = 0; i < INFLIGHT; i++) {
		ring[i] = next++;
		hmap_put(&h, ring[i], &token);
	}
	double t2 = now_ns();
	for (int s = 0; s < steps; s++) {
		int k = s % INFLIGHT;
		if (hmap_del(&h, ring[k]) != &token)
			die("hash remove");
		ring[k] = next;
		next = next == INT_MAX ? 0 : next + 1;
		hmap_put(&h, ring[k], &token);
		if (hmap_get(&h, ring[(k + 1) % INFLIGHT]) != &token)
			die("hash find");
	}
	double t3 = now_ns();
	free(h.t);
	double ni = (t1 - t0) / steps, nh = (t3 - t2) / steps;
	printf("\ncyclic, %d in flight, %d steps of remove + alloc_cyclic + find:\n"
	       "  idr %.1f ns/step (%zu nodes at the end), hash %.1f ns/step, ratio %.2f\n",
	       INFLIGHT, steps, ni, nodes, nh, ni / nh);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {1000, 10000, 100000, 1000000};
	bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	size_t nsizes = quick ? 2 : sizeof(sizes) / sizeof(sizes[0]);
	printf("IDR vs open-addressing hash map (load <= 0.5), ratio = idr / hash; "
	       "last column of each group: IDA (ids only)\n");
	printf("%-6s %8s | %-34s | %-34s | %-34s | %-34s\n", "", "", "bytes per id",
	       "alloc ns/op", "find ns/op (IDA: test)", "remove ns/op (IDA: free)");
	printf("%-6s %8s | %7s %7s %5s %6s | %6s %6s %5s %6s | %6s %6s %5s %6s | %6s %6s %5s %6s\n",
	       "ids", "n", "idr", "hash", "ratio", "ida", "idr", "hash", "ratio", "ida", "idr",
	       "hash", "ratio", "ida", "idr", "hash", "ratio", "ida");
	for (int pattern = 0; pattern < 2; pattern++) {
		bool dense = pattern == 0;
		for (size_t s = 0; s < nsizes; s++) {
			size_t n = sizes[s];
			size_t reps = quick ? 1 : n >= 1000000 ? 1 : 1000000 / n;
			int *ids = malloc(n * sizeof(*ids));
			int *order = malloc(n * sizeof(*order));
			if (ids == NULL || order == NULL)
				die("out of memory");
			/* sparse: one id in each of n equal strides of [0, INT_MAX) */
			uint64_t stride = (uint64_t)INT_MAX / n;
			for (size_t i = 0; i < n; i++)
				ids[i] = dense ? (int)i : (int)(i * stride + rnd() % stride);
			memcpy(order, ids, n * sizeof(*ids));
			shuffle(order, n);
			if (!dense) /* allocation order random too */
				shuffle(ids, n);
			/* the best of three trials, interleaved, against noise from
			 * other processes on the machine */
			struct result ri = {0, 1e30, 1e30, 1e30}, rh = ri, rd = ri, t;
			for (int trial = 0; trial < 3; trial++) {
				run_idr(ids, order, n, dense, reps, &t);
				keep_best(&ri, &t);
				run_hash(ids, order, n, reps, &t);
				keep_best(&rh, &t);
				run_ida(ids, order, n, dense, reps, &t);
				keep_best(&rd, &t);
			}
			print_row(dense ? "dense" : "sparse", n, &ri, &rh, &rd);
			free(ids);
			free(order);
		}
	}
	cyclic_steady(quick ? 100000 : 2000000);
	return 0;
}
