/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tnfs-lock: byte-range (fcntl) and whole-file (flock) locks from the
 * command line, to check locking between processes on an NFS mount.
 *
 *   tnfs-lock hold KIND FILE START LEN SECONDS READY
 *       takes an exclusive lock (waiting for it), creates the file READY,
 *       keeps the lock SECONDS seconds, releases it; exit 0
 *   tnfs-lock try KIND FILE START LEN [shared]
 *       one attempt without waiting: exit 0 got it (released again),
 *       1 held by someone else (EAGAIN/EACCES/EWOULDBLOCK), 2 error
 *   tnfs-lock wait KIND FILE START LEN
 *       waits for an exclusive lock: exit 0 once it got it
 *   tnfs-lock test FILE START LEN
 *       F_GETLK for a write lock: prints "free" or "conflict START LEN"
 * KIND: fcntl (F_SETLK/F_SETLKW on START..START+LEN-1; LEN 0 = to EOF)
 * or flock (whole file; START and LEN ignored).  Errors go to stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static int lock(const char *kind, int fd, long start, long len, int wait, int shared)
{
	if (strcmp(kind, "flock") == 0)
		return flock(fd, (shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB));
	if (strcmp(kind, "fcntl") != 0) {
		errno = EINVAL;
		return -1;
	}
	struct flock fl = {
		.l_type = shared ? F_RDLCK : F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = start,
		.l_len = len,
	};
	return fcntl(fd, wait ? F_SETLKW : F_SETLK, &fl);
}

static int busy(int e)
{
	return e == EAGAIN || e == EACCES || e == EWOULDBLOCK;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: see the comment at the top of tnfs-lock.c\n");
		return 2;
	}
	const char *mode = argv[1];
	int test = strcmp(mode, "test") == 0;
	const char *kind = test ? "fcntl" : argv[2];
	const char *file = test ? argv[2] : argv[3];
	long start = atol(test ? argv[3] : argv[4]);
	long len = test ? atol(argv[4]) : (argc > 5 ? atol(argv[5]) : 0);
	int shared = strcmp(mode, "try") == 0 && argc > 6 && strcmp(argv[6], "shared") == 0;
	int fd = open(file, shared ? O_RDONLY : O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "tnfs-lock: open %s: %s\n", file, strerror(errno));
		return 2;
	}
	if (test) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = start, .l_len = len };
		if (fcntl(fd, F_GETLK, &fl) != 0) {
			fprintf(stderr, "tnfs-lock: F_GETLK: %s\n", strerror(errno));
			return 2;
		}
		if (fl.l_type == F_UNLCK)
			printf("free\n");
		else
			printf("conflict %lld %lld\n", (long long)fl.l_start, (long long)fl.l_len);
		return 0;
	}
	if (strcmp(mode, "hold") == 0) {
		if (argc != 8) {
			fprintf(stderr, "tnfs-lock: hold KIND FILE START LEN SECONDS READY\n");
			return 2;
		}
		if (lock(kind, fd, start, len, 1, 0) != 0) {
			fprintf(stderr, "tnfs-lock: lock %s: %s\n", file, strerror(errno));
			return 2;
		}
		int r = open(argv[7], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (r < 0) {
			fprintf(stderr, "tnfs-lock: %s: %s\n", argv[7], strerror(errno));
			return 2;
		}
		close(r);
		sleep((unsigned)atoi(argv[6]));
		close(fd);
		return 0;
	}
	int wait = strcmp(mode, "wait") == 0;
	if (!wait && strcmp(mode, "try") != 0) {
		fprintf(stderr, "tnfs-lock: unknown mode '%s'\n", mode);
		return 2;
	}
	if (lock(kind, fd, start, len, wait, shared) != 0) {
		if (!wait && busy(errno))
			return 1;
		fprintf(stderr, "tnfs-lock: lock %s: %s\n", file, strerror(errno));
		return 2;
	}
	close(fd);
	return 0;
}
