/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma-lockstat.so, an LD_PRELOAD for measurements (docs/threading.md,
 * "Measured, not guessed"): counts each pthread_mutex_lock and
 * pthread_spin_lock per lock, and how many found the lock taken (a
 * trylock first failed), in processes whose name (/proc/self/comm) starts
 * with $LOCKSTAT_COMM; others pass straight through.  At exit it writes
 * $RPCRDMA_OUT/lockstat-PID.txt (else /tmp): one line per lock taken at
 * least 1000 times, with the library and offset of its first caller (for
 * addr2line).  Locks glibc takes inside itself, and condition variables'
 * re-locks, are not seen.  E.g. in the VM:
 *   tests/vm/run ... --file BUILD/tests/bench/librpcrdma-lockstat.so:/opt/lockstat.so \
 *     --env LD_PRELOAD=/opt/lockstat.so --env LOCKSTAT_COMM=rpcrdma-svc-nu \
 *     --env LOOPS_MODES=direct rdma-loops
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 16384
struct ent { _Atomic uintptr_t key; void *caller; atomic_ulong acq, cont; int spin; };
static struct ent tab[N];
static int on = -1;
static int (*real_lock)(pthread_mutex_t *);
static int (*real_spin)(pthread_spinlock_t *);

static int active(void)
{
	if (on < 0) {
		const char *want = getenv("LOCKSTAT_COMM");
		char comm[64] = "";
		FILE *f = fopen("/proc/self/comm", "r");
		if (f) { if (!fgets(comm, sizeof(comm), f)) comm[0] = 0; fclose(f); }
		on = want && *want && !strncmp(comm, want, strlen(want));
	}
	return on;
}

static struct ent *find(const void *p, void *caller, int spin)
{
	uintptr_t k = (uintptr_t)p;
	for (unsigned i = (unsigned)((k >> 4) * 2654435761u) % N, n = 0; n < N; n++, i = (i + 1) % N) {
		uintptr_t cur = atomic_load(&tab[i].key);
		if (cur == k)
			return &tab[i];
		if (cur == 0) {
			uintptr_t z = 0;
			if (atomic_compare_exchange_strong(&tab[i].key, &z, k)) {
				tab[i].caller = caller;
				tab[i].spin = spin;
				return &tab[i];
			}
			if (z == k)
				return &tab[i];
		}
	}
	return NULL;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (!real_lock)
		*(void **)&real_lock = dlsym(RTLD_NEXT, "pthread_mutex_lock");
	if (on == 0 || (on < 0 && !active()))
		return real_lock(m);
	struct ent *e = find(m, __builtin_return_address(0), 0);
	int rc = pthread_mutex_trylock(m);
	if (rc == EBUSY) {
		if (e) atomic_fetch_add(&e->cont, 1);
		rc = real_lock(m);
	} else if (rc != 0) {
		rc = real_lock(m);
	}
	if (e) atomic_fetch_add(&e->acq, 1);
	return rc;
}

int pthread_spin_lock(pthread_spinlock_t *s)
{
	if (!real_spin)
		*(void **)&real_spin = dlsym(RTLD_NEXT, "pthread_spin_lock");
	if (on == 0 || (on < 0 && !active()))
		return real_spin(s);
	struct ent *e = find((const void *)s, __builtin_return_address(0), 1);
	int rc = pthread_spin_trylock(s);
	if (rc == EBUSY) {
		if (e) atomic_fetch_add(&e->cont, 1);
		rc = real_spin(s);
	}
	if (e) atomic_fetch_add(&e->acq, 1);
	return rc;
}

__attribute__((destructor)) static void dump(void)
{
	if (on != 1)
		return;
	char path[512];
	const char *dir = getenv("RPCRDMA_OUT");
	snprintf(path, sizeof(path), "%s/lockstat-%d.txt", dir ? dir : "/tmp", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	for (unsigned i = 0; i < N; i++) {
		if (!tab[i].key || atomic_load(&tab[i].acq) < 1000)
			continue;
		Dl_info di;
		const char *lib = "?";
		uintptr_t off = (uintptr_t)tab[i].caller;
		if (dladdr(tab[i].caller, &di) && di.dli_fname) {
			lib = di.dli_fname;
			off -= (uintptr_t)di.dli_fbase;
		}
		fprintf(f, "%s acq %lu cont %lu lock %#lx caller %s+%#lx\n",
			tab[i].spin ? "spin" : "mutex", atomic_load(&tab[i].acq),
			atomic_load(&tab[i].cont), (unsigned long)tab[i].key, lib, (unsigned long)off);
	}
	fclose(f);
}
