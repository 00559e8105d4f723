/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Whether an export is a whole file system: the root of a mount that shows
 * its file system from the top (/proc/self/mountinfo's root field is "/").
 * Every file of that file system is then inside the export, so a handle's
 * st_dev alone says it belongs; for an export of a subdirectory, or of a
 * bind mount of one, the server must check the file's path (fs.c).
 */
#ifndef TNFS_MOUNTINFO_H
#define TNFS_MOUNTINFO_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Reads mountinfo lines from f.  True when the last mount whose mount point
 * is `path` (a real path) and whose device is `dev` has root "/".  The last
 * such line is the top mount at that point: the one a path lookup reaches.
 * False for anything it cannot read or parse.
 */
bool tnfs_mount_is_whole(FILE *f, const char *path, dev_t dev);

#endif
