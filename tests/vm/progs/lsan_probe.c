/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lsan-probe: leaks one block on purpose.  The sanitizer VM runs start with
 * it to show that LeakSanitizer works in the guest (it must report the
 * leak and exit with ASAN_OPTIONS' exitcode), so that a clean run of the
 * fault payloads means "no leak" rather than "no leak checker".
 * The block is made in a function of its own and the stack it used is
 * overwritten, so no stale copy of its address keeps it reachable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static __attribute__((noinline)) void leak(void)
{
	char *p = malloc(4242);

	if (p)
		memset(p, 1, 4242);
	sink = p;
	sink = NULL;  /* the only pointer is gone */
}

static __attribute__((noinline)) void scrub(void)
{
	volatile char pad[8192];

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = 0;
}

int main(void)
{
	leak();
	scrub();
	printf("lsan-probe: leaked 4242 bytes\n");
	return 0;
}
