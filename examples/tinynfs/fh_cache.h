/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A small cache of opened directories by file handle, one per export.
 *
 * Every PUTFH opens its handle again with open_by_handle_at(2), which
 * decodes the handle, finds the dentry and makes a new file: the most
 * expensive system call of a metadata operation (REMOVE, OPEN-create,
 * LOOKUP), whose handle is nearly always one of a few directories.  The
 * cache keeps an O_PATH descriptor of the last TNFS_FHC_SLOTS directories
 * that passed every check of tnfs_fs_from_fh(), and a PUTFH of one of
 * them borrows it instead: the node gets the cached descriptor itself,
 * lent (no dup, and no close when the node is put), and the entry is
 * neither evicted nor closed while any loan is out.
 *
 * Only directories are kept: a cached descriptor keeps its inode alive,
 * which for a removed regular file would keep its data allocated until
 * the entry is evicted.  A removed directory holds nothing, and the
 * caller sees it as stale (st_nlink == 0), then marks the entry dead: it
 * keeps the handle, without a descriptor, and answers TNFS_FHC_DEAD until
 * evicted, so that the removed directory's handle is not decoded again
 * (open_by_handle_at can fail on it with ENOMEM rather than ESTALE, seen
 * on the CI host under load, which would tell a client to retry).  The
 * caller repeats the export-boundary check on every hit, so a directory
 * renamed out of the export is refused as it was before.
 *
 * Thread-safe (a mutex); a miss costs a scan of TNFS_FHC_SLOTS hashes.
 */
#ifndef TINYNFS_FH_CACHE_H
#define TINYNFS_FH_CACHE_H

#include <stdint.h>

#define TNFS_FHC_SLOTS 32

struct tnfs_fh_cache;

/* NULL when out of memory (the export then works without a cache). */
struct tnfs_fh_cache *tnfs_fhc_new(void);
/* Closes every cached descriptor. */
void tnfs_fhc_free(struct tnfs_fh_cache *c);

/* What tnfs_fhc_get returns for a handle marked dead. */
#define TNFS_FHC_DEAD (-2)

/* The descriptor of the directory cached for this handle, lent: the
 * caller must not close it, and gives it back with tnfs_fhc_return(c,
 * *slot) (it stays open until then, whatever happens to the entry);
 * TNFS_FHC_DEAD if the handle was marked dead (both count as hits, and a
 * dead handle lends nothing), or -1 if none (or c is NULL). */
int tnfs_fhc_lend(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len, unsigned *slot);
/* One more loan of what slot lent (a second holder of the descriptor). */
void tnfs_fhc_share(struct tnfs_fh_cache *c, unsigned slot);
/* Gives a loan back; the descriptor of an entry dropped (forgotten,
 * marked dead) while lent is closed with its last loan. */
void tnfs_fhc_return(struct tnfs_fh_cache *c, unsigned slot);
/* Caches a duplicate of fd, an O_PATH descriptor of the directory that
 * handle names, evicting the least recently used entry that is not lent
 * when full.  fd stays the caller's.  Does nothing if it cannot (no
 * memory, no descriptor left, every entry lent). */
void tnfs_fhc_add(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len, int fd);
/* Drops the handle's entry, if any (its directory moved out of the export,
 * and may come back). */
void tnfs_fhc_forget(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len);
/* The handle's directory was removed: its entry, if any, keeps only the
 * handle, and tnfs_fhc_get answers TNFS_FHC_DEAD for it. */
void tnfs_fhc_mark_dead(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len);

struct tnfs_fhc_stats {
	uint64_t hits, misses;
	uint32_t lent; /* loans out now */
};
void tnfs_fhc_stats(struct tnfs_fh_cache *c, struct tnfs_fhc_stats *out);

#endif
