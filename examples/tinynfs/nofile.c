/* SPDX-License-Identifier: BSD-2-Clause */
/* The open-file limit at start; see nofile.h. */
#include "nofile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static unsigned long long nr_open(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

unsigned long long tnfs_raise_nofile(bool keep_hard)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	unsigned long long nr = keep_hard ? 0 : nr_open();
	if (rl.rlim_max != RLIM_INFINITY && nr > rl.rlim_max) {
		struct rlimit up = { (rlim_t)nr, (rlim_t)nr };
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return nr;
		/* EPERM: not privileged; the soft limit below, then */
	}
	if (rl.rlim_cur != rl.rlim_max) {
		rlim_t cur = rl.rlim_cur;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			fprintf(stderr, "tinynfs: raising the open-file limit: %s\n", strerror(errno));
			rl.rlim_cur = cur;
		}
	}
	return rl.rlim_cur == RLIM_INFINITY ? 0 : (unsigned long long)rl.rlim_cur;
}
