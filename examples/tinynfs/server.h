/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tinynfs server object: the export it serves, its state, enabled
 * versions and per-boot verifiers.  It is transport-independent: a
 * transport hands each NFSv4 COMPOUND body to tnfs_compound()
 * (compound.h).
 *
 * Exports: the first entry of the exports list is served as the NFSv4
 * root (PUTROOTFH), like Linux's fsid=0; more entries are refused
 * (-ENOTSUP) until the pseudo file system is written.
 */
#ifndef TINYNFS_SERVER_H
#define TINYNFS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exports.h"
#include "fs.h"
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
	tnfs_setattr_hook *setattr_hook; /* tests */
	/* tests: called after each operation with its estimate and the size
	 * of its encoded result (resop and status included) */
	void (*op_hook)(void *arg, uint32_t op, uint32_t status, size_t estimate,
			size_t actual);
	void *hook_arg;
};

struct tnfs_server {
	struct tnfs_export *exp;
	struct tnfs_state *state;
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

/* -EINVAL bad options, -ENOTSUP unsupported versions or several exports,
 * -ENOSYS operation table incomplete (a programming error), or -errno
 * from opening the export. */
int tnfs_server_new(const struct tnfs_server_opts *opts, struct tnfs_server **out);
void tnfs_server_free(struct tnfs_server *s);

/*
 * Flushes fd to stable storage (fsync, or fdatasync when datasync) for
 * WRITE FILE_SYNC4/DATA_SYNC4 and COMMIT, before their reply.  Returns
 * NFS4_OK or the NFS status of the error.  On an error the write verifier
 * changes (as Linux's nfsd does on write errors): data a client wrote
 * UNSTABLE4 may not have reached the disk, and the new verifier in the
 * next WRITE or COMMIT reply makes the client send it again.
 */
uint32_t tnfs_server_sync(struct tnfs_server *s, int fd, bool datasync);

#endif
