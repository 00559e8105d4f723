/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NFSv4 pseudo file system (RFC 8881 section 7.3): the read-only tree
 * of directories a client walks from PUTROOTFH to each export.  Built once
 * from the export paths; immutable afterwards (no locking needed).
 *
 * Nodes are numbered 0..n-1, node 0 is the root "/".  Every proper prefix
 * of an export path is a pseudo directory; the node whose path equals an
 * export path is a junction: it stands for that export's root, and
 * tnfs_pseudo_export() gives the export's index.  A single export "/" is
 * the whole tree (node 0 is its junction).
 *
 * Rules checked by tnfs_pseudo_build() (-EINVAL, with a message in err):
 *   - paths are absolute, components non-empty, not "." or "..", at most
 *     NAME_MAX bytes, no trailing '/' (except "/" itself);
 *   - no export lies inside another (nested exports, "/" with others);
 *   - the same path twice;
 *   - two node paths with the same hash (handles name nodes by hash).
 * At most TNFS_PSEUDO_MAX_NODES nodes (-E2BIG).
 *
 * Handles.  A pseudo node's file handle does not depend on the order of
 * the exports file, so it survives a restart with the same tree:
 *     byte 0: 3 (layout: pseudo node; 1 and 2 are export handles, fs.h)
 *     bytes 1..3: 0
 *     bytes 4..11: FNV-1a 64 of the node's path (big endian)
 * tnfs_pseudo_from_fh() finds the node of such a handle, or reports
 * NFS4ERR_STALE when no node has that path any more (its export was
 * removed) and NFS4ERR_BADHANDLE when the bytes are not a pseudo handle.
 * tnfs_pseudo_export_id() gives each export a 32-bit id from its path for
 * the export's own handles, for the same reason.
 */
#ifndef TINYNFS_PSEUDO_H
#define TINYNFS_PSEUDO_H

#include <stddef.h>
#include <stdint.h>

#include "fs.h"

#define TNFS_PSEUDO_MAX_NODES 4096u
#define TNFS_PSEUDO_FH_LAYOUT 3u
#define TNFS_PSEUDO_FH_LEN 12u

struct tnfs_pseudo_node {
	char *name;	  /* the last component ("" for the root), owned */
	char *path;	  /* the whole path, owned */
	uint32_t parent;  /* the root's parent is the root */
	int32_t export;	  /* export index at a junction, else -1 */
	uint32_t nchild;
	uint32_t *child;  /* node numbers, sorted by name; owned */
	uint64_t hash;	  /* FNV-1a 64 of path */
};

struct tnfs_pseudo {
	uint32_t n;
	struct tnfs_pseudo_node *v;
};

/* Builds the tree of the n paths (index i = export i).  0, -EINVAL (err
 * says why: "pseudo: '/a/b' lies inside export '/a'"), -E2BIG, -ENOMEM.
 * *out is set only on success; free with tnfs_pseudo_free(). */
int tnfs_pseudo_build(const char *const *paths, size_t n, struct tnfs_pseudo **out,
		      char *err, size_t errlen);
void tnfs_pseudo_free(struct tnfs_pseudo *p);

/* The child of dir named name[0..len) (name need not be NUL-terminated):
 * NFS4_OK and *out, NFS4ERR_NOENT, or NFS4ERR_NOTDIR when dir is a
 * junction (its contents are the export's). */
uint32_t tnfs_pseudo_lookup(const struct tnfs_pseudo *p, uint32_t dir,
			    const uint8_t *name, uint32_t len, uint32_t *out);
/* The export index of a junction, or -1 for a pure pseudo directory. */
int32_t tnfs_pseudo_export(const struct tnfs_pseudo *p, uint32_t node);
/* The junction node of export index i (LOOKUPP from an export's root). */
uint32_t tnfs_pseudo_junction(const struct tnfs_pseudo *p, uint32_t export_index);

void tnfs_pseudo_to_fh(const struct tnfs_pseudo *p, uint32_t node, struct tnfs_fh *out);
uint32_t tnfs_pseudo_from_fh(const struct tnfs_pseudo *p, const uint8_t *fh, uint32_t len,
			     uint32_t *node);

/* FNV-1a 64 of len bytes. */
uint64_t tnfs_pseudo_hash(const char *s, size_t len);
/* A 32-bit id of an export path: FNV-1a 64 folded (hi ^ lo). */
uint32_t tnfs_pseudo_export_id(const char *path);

#endif
