/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tinynfs server object: the export it serves, its state, enabled
 * versions and per-boot verifiers.  It is transport-independent: a
 * transport hands each NFSv4 COMPOUND body to tnfs_compound()
 * (compound.h).
 *
 * Exports: a single export is served as the NFSv4 root (PUTROOTFH), like
 * Linux's fsid=0.  Several exports are served under the pseudo file system
 * (pseudo.h) at their paths: PUTROOTFH is the pseudo root "/", and a
 * client walks read-only pseudo directories to each export, whose root
 * has the export's own fsid (the Linux client mounts it there).  Pseudo
 * nodes have their own fsid (major TNFS_PSEUDO_FSID_MAJOR, above any
 * device number), mode 0555, owner 0:0 and the server's start time.
 */
#ifndef TINYNFS_SERVER_H
#define TINYNFS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "callback.h"
#include "deleg.h"
#include "exports.h"
#include "fs.h"
#include "pseudo.h"
#include "state.h"
#include "versions.h"

struct tnfs_server_opts {
	size_t size; /* sizeof(struct tnfs_server_opts) */
	const struct tnfs_exports *exports;
	const struct tnfs_versions *versions; /* NULL: tnfs_versions_default() */
	/* 8 bytes identifying this boot (ids and the write verifier derive
	 * from it); NULL: taken from the real-time clock and the pid. */
	const uint8_t *boot_verifier;
	uint32_t maxread, maxwrite; /* 0: 1 MiB */
	const char *server_owner;   /* NULL: "tinynfs" */
	bool inode_handles;	    /* force the fallback handles (fs_inode.h) */
	bool no_delegations;	    /* never grant one (deleg.h) */
	tnfs_setattr_hook *setattr_hook; /* tests */
	/* tests: called after each operation with its estimate and the size
	 * of its encoded result (resop and status included) */
	void (*op_hook)(void *arg, uint32_t op, uint32_t status, size_t estimate,
			size_t actual);
	void *hook_arg;
};

#define TNFS_PSEUDO_FSID_MAJOR (1ull << 32)

struct tnfs_server {
	struct tnfs_export *exp; /* exps[0] */
	struct tnfs_export **exps;
	size_t nexp;
	/* several exports: the tree, and the export-like record pseudo nodes
	 * are served with (rootfd -1, read-only, squash all); else NULL */
	struct tnfs_pseudo *pseudo;
	struct tnfs_export pseudo_exp;
	struct timespec start; /* the pseudo nodes' times */
	/* the export whose supported attributes include every other's
	 * (security_label), for estimates made before the export is known */
	const struct tnfs_export *est_exp;
	struct tnfs_state *state;
	struct tnfs_cb *cb;	   /* back channels (callback.h) */
	struct tnfs_deleg *deleg; /* delegations (deleg.h) */
	struct tnfs_versions versions;
	uint8_t boot[8];
	uint8_t write_verf[8];
	/* the ids the loop thread holds between requests (tnfs_fs_self) */
	struct tnfs_fs_saved self;
	uint32_t maxread, maxwrite;
	char owner[64];
	tnfs_setattr_hook *setattr_hook;
	void (*op_hook)(void *arg, uint32_t op, uint32_t status, size_t estimate,
			size_t actual);
	void *hook_arg;
	/* tests: replaces fsync (datasync false) / fdatasync (true) in
	 * tnfs_server_sync(); returns 0 or sets errno and returns -1 */
	int (*sync_hook)(void *arg, int fd, bool datasync);
	void *sync_arg;
};

/* -EINVAL bad options or exports the pseudo file system cannot hold
 * (nested, see pseudo.h), -EEXIST two exports with the same handle id,
 * -ENOTSUP unsupported versions, -ENOSYS operation table incomplete (a
 * programming error), or -errno from opening an export. */
int tnfs_server_new(const struct tnfs_server_opts *opts, struct tnfs_server **out);
void tnfs_server_free(struct tnfs_server *s);

/* Delegations are granted only once this ran (tnfs_deleg_start: the
 * lease-break signal tnfs_deleg_signal() must be blocked in every thread
 * of the process).  0 or -errno. */
int tnfs_server_start_callbacks(struct tnfs_server *s);

/*
 * Flushes fd to stable storage (fsync, or fdatasync when datasync) for
 * WRITE FILE_SYNC4/DATA_SYNC4 and COMMIT, before their reply.  Returns
 * NFS4_OK or the NFS status of the error.  On an error the write verifier
 * changes (as Linux's nfsd does on write errors): data a client wrote
 * UNSTABLE4 may not have reached the disk, and the new verifier in the
 * next WRITE or COMMIT reply makes the client send it again.
 */
uint32_t tnfs_server_sync(struct tnfs_server *s, int fd, bool datasync);

/* The export a handle of layout 1 or 2 (fs.h) belongs to: NFS4_OK and
 * *out, NFS4ERR_BADHANDLE (not an export handle), NFS4ERR_STALE (no
 * export has its id). */
uint32_t tnfs_server_fh_export(const struct tnfs_server *s, const uint8_t *fh, uint32_t len,
			       const struct tnfs_export **out);

#endif
