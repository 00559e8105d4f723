/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client record on stable storage (RFC 8881 8.4.2.1), as Linux's
 * nfsdcltrack keeps it: the owner ids (co_ownerid of EXCHANGE_ID) of the
 * clients that may reclaim their state after a restart.  grace.h decides
 * when it changes; this file reads and writes it.
 *
 * The file, DIR/clients, is text: the line "tinynfs-clients 1", then one
 * line per client, its owner id in lower- or upper-case hex (1 to
 * NFS4_OPAQUE_LIMIT bytes, so 2 to 2048 digits), each line ending in
 * '\n'.  It is replaced atomically (DIR/clients.tmp written, fsync'd,
 * renamed over it, the directory fsync'd), so a crash leaves the old
 * record or the new one.
 *
 * A file that is anything else is refused (-EINVAL), never half read: a
 * wrong header, a line of odd length, too long, empty or with a non-hex
 * byte, a last line without '\n', more than TNFS_CLIENTREC_MAX entries
 * (-E2BIG), a size above TNFS_CLIENTREC_MAX_BYTES (-EFBIG, checked on
 * fstat before reading), or not a regular file (a FIFO, a device, a
 * symlink: -EINVAL, opened without blocking or following).  Duplicates
 * count once.
 */
#ifndef TINYNFS_CLIENTREC_H
#define TINYNFS_CLIENTREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TNFS_CLIENTREC_FILE "clients"
#define TNFS_CLIENTREC_HEADER "tinynfs-clients 1\n"
/* the record holds the live clients and, during a grace period, those
 * from before the restart still expected: twice the client table */
#define TNFS_CLIENTREC_MAX 2048u
#define TNFS_CLIENTREC_MAX_BYTES \
	(sizeof(TNFS_CLIENTREC_HEADER) - 1 + TNFS_CLIENTREC_MAX * (2u * 1024u + 1u))

struct tnfs_clientrec_entry {
	uint32_t len;
	bool reclaimed; /* grace.c: sent RECLAIM_COMPLETE since the restart */
	uint8_t *id;
};

/* A set of owner ids; zero-initialised is empty. */
struct tnfs_clientrec {
	struct tnfs_clientrec_entry *e;
	uint32_t n, cap;
};

/* Parses a whole file's bytes into *out (empty on entry).  0, -EINVAL
 * malformed, -E2BIG too many entries, -ENOMEM; *out is empty on error. */
int tnfs_clientrec_parse(const uint8_t *buf, size_t len, struct tnfs_clientrec *out);

/* Reads dirfd/clients into *out (empty on entry); a missing file is an
 * empty record (0).  -EINVAL, -E2BIG, -EFBIG as above, -errno of I/O. */
int tnfs_clientrec_load(int dirfd, struct tnfs_clientrec *out);

/* Replaces dirfd/clients atomically by the entries of a, then those of b
 * (may be NULL) that are neither reclaimed nor in a.  0 or -errno (the
 * old file stays). */
int tnfs_clientrec_store(int dirfd, const struct tnfs_clientrec *a,
			 const struct tnfs_clientrec *b);

/* Index of id in r, or -1. */
long tnfs_clientrec_find(const struct tnfs_clientrec *r, const uint8_t *id, uint32_t len);
/* Adds id (1..1024 bytes) if absent: 0, -EINVAL bad length, -E2BIG full,
 * -ENOMEM. */
int tnfs_clientrec_add(struct tnfs_clientrec *r, const uint8_t *id, uint32_t len);
void tnfs_clientrec_del(struct tnfs_clientrec *r, uint32_t i);
void tnfs_clientrec_free(struct tnfs_clientrec *r);

#endif
