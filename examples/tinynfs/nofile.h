/* SPDX-License-Identifier: BSD-2-Clause */
/* tinynfs's open-file limit at start (main.c). */
#ifndef TINYNFS_NOFILE_H
#define TINYNFS_NOFILE_H

#include <stdbool.h>

/*
 * Raises RLIMIT_NOFILE before the state and the delegation table size
 * themselves from it: the soft limit to the hard one (often 1024 of
 * 524288), and unless keep_hard, both up to fs.nr_open
 * (/proc/sys/fs/nr_open) when the process may (root, CAP_SYS_RESOURCE):
 * the delegation table is then bounded by memory, 4 per MiB, as nfsd's
 * (tnfs_deleg_default_max).  A failure is reported on stderr, the limit
 * left as it was.  Returns the soft limit now (0 if unknown or infinite).
 */
unsigned long long tnfs_raise_nofile(bool keep_hard);

#endif
