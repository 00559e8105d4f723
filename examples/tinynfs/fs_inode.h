/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fallback file handles, for when the server may not use
 * open_by_handle_at(2) (no CAP_DAC_READ_SEARCH): the handle carries the
 * inode number and a generation taken from the birth time, and the server
 * keeps a table inode -> path (relative to the export root) of every
 * handle it has handed out.  A handle is opened again by resolving its
 * path with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS), so it cannot leave the export, and then checked
 * against the inode number and generation (else NFS4ERR_STALE).
 * RENAME updates the table.  Limits (why this is only a fallback): the
 * table lives in memory, so these handles do NOT survive a restart (they
 * become NFS4ERR_STALE), and a file renamed behind the server's back goes
 * stale.  Layout (16 bytes): byte 0: 2, bytes 1..3: export id (fs.h),
 * bytes 4..11: inode number, bytes 12..15: generation (big endian).
 */
#ifndef TINYNFS_FS_INODE_H
#define TINYNFS_FS_INODE_H

#include "fs.h"

struct tnfs_ino_table;

int tnfs_ino_table_new(struct tnfs_ino_table **out);
void tnfs_ino_table_free(struct tnfs_ino_table *t);

uint32_t tnfs_ino_to_fh(const struct tnfs_export *x, int dirfd, const char *name,
			struct tnfs_fh *out);
uint32_t tnfs_ino_from_fh(const struct tnfs_export *x, const uint8_t *fh,
			  uint32_t len, struct tnfs_node *out, struct stat *st);
/* After dir `from`/oldname became `to`/newname (both are directories of
 * the export). */
void tnfs_ino_renamed(const struct tnfs_export *x, int from, const char *oldname,
		      int to, const char *newname);

#endif
