/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * deleg.c on its own, for its tests without a transport
 * (test_deleg_table.c, test_deleg_lapsed.c): fake callbacks that count
 * what the table asks (recalls, lapsed holders) and a clock they set,
 * and the environment: a table with those callbacks over a temporary
 * directory whose files carry real Linux file leases.  (deleg_env.h is
 * the harness of the tests that run the tinynfs program.)
 */
#ifndef TNFS_TEST_DELEG_FAKE_H
#define TNFS_TEST_DELEG_FAKE_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deleg.h"

struct fake {
	unsigned recalls, asked;
	uint64_t recalled_client; /* of the last recall */
	bool lapsed[8];           /* by clientid */
	uint64_t now;             /* fake_clock's, in seconds */
};

static inline uint64_t fake_clock(void *arg)
{
	return ((struct fake *)arg)->now;
}

static inline void fake_recall(void *arg, uint64_t clientid, const struct nfs4_stateid *sid,
			       const uint8_t *fh, uint32_t fhlen)
{
	(void)sid, (void)fh, (void)fhlen;
	struct fake *f = arg;
	f->recalls++;
	f->recalled_client = clientid;
}

static inline bool fake_path_up(void *arg, uint64_t clientid)
{
	(void)arg, (void)clientid;
	return true;
}

static inline bool fake_lapsed(void *arg, uint64_t clientid)
{
	struct fake *f = arg;
	f->asked++;
	return clientid < 8 && f->lapsed[clientid];
}

#define ENV_FILES 16

struct env {
	char dir[64];
	struct fake fake;
	struct tnfs_deleg *d;
	unsigned nfiles;              /* path[] and key[] made so far */
	int path[ENV_FILES];          /* O_PATH descriptors, closed by env_free */
	struct tnfs_file_key key[ENV_FILES];
};

/* The handle every delegation of these tests names. */
static const uint8_t fh[4] = { 1, 2, 3, 4 };

/* A table with the fake callbacks over a new directory from tmpl (a
 * mkdtemp template), not started: a test may set its clock, timeout and
 * limits first. */
static inline struct env *env_new(const char *tmpl)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	snprintf(e->dir, sizeof(e->dir), "%s", tmpl);
	assert_non_null(mkdtemp(e->dir));
	const struct tnfs_deleg_ops ops = { .recall = fake_recall, .path_up = fake_path_up,
					    .lapsed = fake_lapsed, .arg = &e->fake };
	assert_int_equal(tnfs_deleg_new(0x12345678, &ops, &e->d), 0);
	return e;
}

/* Creates dir/name holding "hello"; its O_PATH descriptor (the caller's)
 * and key. */
static inline int env_mkfile(const struct env *e, const char *name, struct tnfs_file_key *k)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", e->dir, name);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello", 5), 5);
	close(fd);
	fd = open(path, O_PATH | O_CLOEXEC);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	return fd;
}

/* Files f0 .. f<n-1> in e->path[] and e->key[]. */
static inline void env_files(struct env *e, unsigned n)
{
	assert_true(n <= ENV_FILES);
	for (; e->nfiles < n; e->nfiles++) {
		char name[16];
		snprintf(name, sizeof(name), "f%u", e->nfiles);
		e->path[e->nfiles] = env_mkfile(e, name, &e->key[e->nfiles]);
	}
}

/* Frees the table, closes env_files' descriptors, removes the directory. */
static inline void env_free(struct env *e)
{
	tnfs_deleg_free(e->d);
	for (unsigned i = 0; i < e->nfiles; i++)
		close(e->path[i]);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", e->dir);
	assert_int_equal(system(cmd), 0);
	free(e);
}

#endif /* TNFS_TEST_DELEG_FAKE_H */
