/* SPDX-License-Identifier: BSD-2-Clause */
/* Inode-number file handles with a path table; see fs_inode.h. */
#include "fs_inode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BUCKETS 4096
#define FH_LEN 16
#define MAX_ENTRIES (1u << 20)

struct ent {
	uint64_t ino;
	char *rel; /* "" for the root */
	struct ent *next;
};

struct tnfs_ino_table {
	pthread_mutex_t mu;
	size_t n;
	struct ent *b[BUCKETS];
};

int tnfs_ino_table_new(struct tnfs_ino_table **out)
{
	struct tnfs_ino_table *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->mu, NULL);
	*out = t;
	return 0;
}

void tnfs_ino_table_free(struct tnfs_ino_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < BUCKETS; i++)
		while (t->b[i]) {
			struct ent *e = t->b[i];
			t->b[i] = e->next;
			free(e->rel);
			free(e);
		}
	pthread_mutex_destroy(&t->mu);
	free(t);
}

static uint32_t generation(int dirfd, const char *name)
{
	struct statx sx;
	int flags = AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH);
	if (statx(dirfd, name, flags, STATX_BTIME | STATX_INO, &sx) != 0 ||
	    !(sx.stx_mask & STATX_BTIME))
		return 0;
	return (uint32_t)sx.stx_btime.tv_sec * 1000003u ^ sx.stx_btime.tv_nsec;
}

/* The path of dirfd/name relative to the export, into buf. */
static bool rel_path(const struct tnfs_export *x, int dirfd, const char *name,
		     char *buf, size_t cap)
{
	char pp[32], abs[PATH_MAX + 1];
	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", dirfd);
	ssize_t n = readlink(pp, abs, PATH_MAX);
	if (n <= 0)
		return false;
	abs[n] = 0;
	size_t pl = x->pathlen == 1 ? 0 : x->pathlen; /* export of "/" */
	if ((size_t)n < pl || memcmp(abs, x->path, pl) != 0 ||
	    (abs[pl] != 0 && abs[pl] != '/'))
		return false;
	const char *r = abs + pl;
	while (*r == '/')
		r++;
	int w = name[0] ? snprintf(buf, cap, "%s%s%s", r, r[0] ? "/" : "", name)
			: snprintf(buf, cap, "%s", r);
	return w >= 0 && (size_t)w < cap;
}

static void put_ent(struct tnfs_ino_table *t, uint64_t ino, const char *rel)
{
	struct ent **pp = &t->b[ino % BUCKETS];
	for (struct ent *e = *pp; e; e = e->next)
		if (e->ino == ino) {
			if (strcmp(e->rel, rel) != 0) {
				char *d = strdup(rel);
				if (d) {
					free(e->rel);
					e->rel = d;
				}
			}
			return;
		}
	if (t->n >= MAX_ENTRIES)
		return; /* the handle will be stale later: better than no memory */
	struct ent *e = malloc(sizeof(*e));
	if (!e || !(e->rel = strdup(rel))) {
		free(e);
		return;
	}
	e->ino = ino;
	e->next = *pp;
	*pp = e;
	t->n++;
}

uint32_t tnfs_ino_to_fh(const struct tnfs_export *x, int dirfd, const char *name,
			struct tnfs_fh *out)
{
	struct stat st;
	int flags = AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH);
	if (fstatat(dirfd, name, &st, flags) != 0)
		return tnfs_errno_to_nfs(errno);
	if (st.st_dev != x->dev)
		return NFS4ERR_XDEV;
	char rel[PATH_MAX];
	if (!rel_path(x, dirfd, name, rel, sizeof(rel)))
		return NFS4ERR_STALE;
	uint64_t ino = (uint64_t)st.st_ino;
	uint32_t gen = generation(dirfd, name);
	pthread_mutex_lock(&x->inodes->mu);
	put_ent(x->inodes, ino, rel);
	pthread_mutex_unlock(&x->inodes->mu);
	memset(out->data, 0, FH_LEN);
	out->len = FH_LEN;
	out->data[0] = 2;
	out->data[1] = (uint8_t)(x->id >> 16);
	out->data[2] = (uint8_t)(x->id >> 8);
	out->data[3] = (uint8_t)x->id;
	for (int i = 0; i < 8; i++)
		out->data[4 + i] = (uint8_t)(ino >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		out->data[12 + i] = (uint8_t)(gen >> (24 - 8 * i));
	return NFS4_OK;
}

uint32_t tnfs_ino_from_fh(const struct tnfs_export *x, const uint8_t *fh,
			  uint32_t len, struct tnfs_node *out, struct stat *st)
{
	*out = TNFS_NODE_NONE;
	if (len != FH_LEN || fh[0] != 2)
		return NFS4ERR_BADHANDLE;
	if (tnfs_fh_export_id(fh, len) != x->id)
		return NFS4ERR_STALE;
	uint64_t ino = 0;
	uint32_t gen = 0;
	for (int i = 0; i < 8; i++)
		ino = ino << 8 | fh[4 + i];
	for (int i = 0; i < 4; i++)
		gen = gen << 8 | fh[12 + i];
	char rel[PATH_MAX];
	bool found = ino == (uint64_t)x->root_ino; /* the root needs no table */
	rel[0] = 0;
	pthread_mutex_lock(&x->inodes->mu);
	for (struct ent *e = x->inodes->b[ino % BUCKETS]; e; e = e->next)
		if (!found && e->ino == ino) {
			snprintf(rel, sizeof(rel), "%s", e->rel);
			found = true;
			break;
		}
	pthread_mutex_unlock(&x->inodes->mu);
	if (!found)
		return NFS4ERR_STALE;
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, x->rootfd, rel[0] ? rel : ".", &how, sizeof(how));
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EXDEV || errno == ELOOP
			       ? NFS4ERR_STALE : tnfs_errno_to_nfs(errno);
	if (tnfs_fstat(fd, st) != 0 || (uint64_t)st->st_ino != ino || st->st_dev != x->dev ||
	    generation(fd, "") != gen) {
		close(fd);
		return NFS4ERR_STALE;
	}
	out->fd = fd;
	out->type = st->st_mode & S_IFMT;
	return NFS4_OK;
}

void tnfs_ino_renamed(const struct tnfs_export *x, int from, const char *oldname,
		      int to, const char *newname)
{
	char o[PATH_MAX], n[PATH_MAX];
	if (!rel_path(x, from, oldname, o, sizeof(o)) || !rel_path(x, to, newname, n, sizeof(n)))
		return;
	size_t ol = strlen(o);
	struct tnfs_ino_table *t = x->inodes;
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < BUCKETS; i++)
		for (struct ent *e = t->b[i]; e; e = e->next) {
			if (strncmp(e->rel, o, ol) != 0 || (e->rel[ol] && e->rel[ol] != '/'))
				continue;
			size_t need = strlen(n) + strlen(e->rel + ol) + 1;
			char *r = malloc(need);
			if (!r)
				continue;
			snprintf(r, need, "%s%s", n, e->rel + ol);
			free(e->rel);
			e->rel = r;
		}
	pthread_mutex_unlock(&t->mu);
}
