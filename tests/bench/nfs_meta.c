/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nfs-meta [--rw] DIR FILES PASSES: a metadata-heavy workload for an NFS
 * mount (tests/vm/payloads/nfs-deleg-bench).  DIR holds files f0 ..
 * f(FILES-1); each pass does, for every file: stat(2), open(O_RDONLY, or
 * O_RDWR with --rw: an OPEN for both, which only a write delegation
 * spares; nothing is written), fstat(2), read(2) of up to 4 KiB,
 * close(2).  Prints one line:
 *   files F passes P ns N files_per_s R
 * (the time of all passes, CLOCK_MONOTONIC).  Exit 1 on any error.
 * nfs-meta --create DIR FILES: makes those files, 1 KiB each.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int one(const char *dir, long i, int flags)
{
	char path[4096], buf[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/f%ld", dir, i);
	if (stat(path, &st) != 0)
		return -1;
	int fd = open(path, flags);
	if (fd < 0)
		return -1;
	int rc = fstat(fd, &st) == 0 && read(fd, buf, sizeof(buf)) >= 0 ? 0 : -1;
	close(fd);
	return rc;
}

static int create(const char *dir, long files)
{
	char path[4096], buf[1024];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + i % 26);
	for (long i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--create") == 0)
		return create(argv[2], atol(argv[3]));
	int flags = O_RDONLY;
	if (argc == 5 && strcmp(argv[1], "--rw") == 0) {
		flags = O_RDWR;
		argc--, argv++;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: nfs-meta [--rw] DIR FILES PASSES\n");
		return 2;
	}
	long files = atol(argv[2]), passes = atol(argv[3]);
	if (files <= 0 || passes <= 0)
		return 2;
	long long t0 = now_ns();
	for (long p = 0; p < passes; p++)
		for (long i = 0; i < files; i++)
			if (one(argv[1], i, flags) != 0) {
				perror("nfs-meta");
				return 1;
			}
	long long ns = now_ns() - t0;
	printf("files %ld passes %ld ns %lld files_per_s %.1f\n", files, passes, ns,
	       ns > 0 ? (double)files * (double)passes * 1e9 / (double)ns : 0.0);
	return 0;
}
