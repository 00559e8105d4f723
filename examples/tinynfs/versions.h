/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Enabled NFS versions, in the format of the kernel's
 * /proc/fs/nfsd/versions: tokens separated by blanks, each `+` or `-`
 * followed by a major version (2, 3, 4) or by `4.` and a minor version
 * (0, 1, 2).  Printing lists 2, 3 and 4, then 4.0 only when it is
 * disabled (the kernel implies +4.0 by +4), then 4.1 and 4.2; a minor
 * version prints `+` only if version 4 is enabled too:
 *     "-2 -3 +4 -4.0 +4.1 +4.2"
 * Parsing applies the tokens in order to the current settings, like a
 * write to the kernel file; any malformed token (no sign, unknown version,
 * a minor of a version other than 4, trailing junk) fails the whole
 * string with -EINVAL and changes nothing.
 */
#ifndef TINYNFS_VERSIONS_H
#define TINYNFS_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TNFS_MINOR_MAX 2

struct tnfs_versions {
	bool major[5];		       /* index 2, 3, 4 used */
	bool minor[TNFS_MINOR_MAX + 1]; /* NFSv4 minor versions */
};

/* The defaults of this server: "-2 -3 +4 -4.0 +4.1 +4.2". */
void tnfs_versions_default(struct tnfs_versions *v);

int tnfs_versions_parse(struct tnfs_versions *v, const char *s);

/* Writes the string (NUL-terminated); returns its length, or -ENOSPC if
 * cap is too small. */
int tnfs_versions_print(const struct tnfs_versions *v, char *buf, size_t cap);

/* Is NFSv4.minor served?  (Version 4 and that minor both enabled.) */
bool tnfs_versions_minor_ok(const struct tnfs_versions *v, uint32_t minor);

/* What this server can serve: only NFSv4.1 and 4.2.  -ENOTSUP if `v`
 * enables anything else. */
int tnfs_versions_check(const struct tnfs_versions *v);

#endif
