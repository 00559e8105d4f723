/* SPDX-License-Identifier: BSD-2-Clause */
/* Opened directories by file handle; see fh_cache.h. */
#include "fh_cache.h"
#include "nfs4/nfs4.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fhc_entry {
	int fd; /* -1: empty, or dead with no loan out */
	bool dead; /* the directory was removed: the handle answers TNFS_FHC_DEAD */
	/* dropped while lent: fd is no longer the handle's (no hit), and is
	 * closed with the last loan */
	bool orphan;
	unsigned lent; /* loans of fd out (nodes holding it) */
	uint32_t hash, len;
	uint64_t used; /* tick of the last hit or add */
	uint8_t fh[NFS4_FHSIZE];
};

struct tnfs_fh_cache {
	pthread_mutex_t mu;
	uint64_t tick, hits, misses;
	struct fhc_entry e[TNFS_FHC_SLOTS];
};

/* Whether e holds a handle: an open descriptor, or a dead directory's. */
static bool taken(const struct fhc_entry *e)
{
	return (e->fd >= 0 && !e->orphan) || e->dead;
}

/* Whether e's slot may take another handle: no loan out. */
static bool reusable(const struct fhc_entry *e)
{
	return e->lent == 0;
}

/* FNV-1a: handles are short and their bytes already well mixed. */
static uint32_t fh_hash(const uint8_t *fh, uint32_t len)
{
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ fh[i]) * 16777619u;
	return h;
}

struct tnfs_fh_cache *tnfs_fhc_new(void)
{
	struct tnfs_fh_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	pthread_mutex_init(&c->mu, NULL);
	for (unsigned i = 0; i < TNFS_FHC_SLOTS; i++)
		c->e[i].fd = -1;
	return c;
}

void tnfs_fhc_free(struct tnfs_fh_cache *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < TNFS_FHC_SLOTS; i++)
		if (c->e[i].fd >= 0)
			close(c->e[i].fd);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static struct fhc_entry *find(struct tnfs_fh_cache *c, uint32_t h,
			      const uint8_t *fh, uint32_t len)
{
	for (unsigned i = 0; i < TNFS_FHC_SLOTS; i++) {
		struct fhc_entry *e = &c->e[i];
		if (taken(e) && e->hash == h && e->len == len &&
		    memcmp(e->fh, fh, len) == 0)
			return e;
	}
	return NULL;
}

int tnfs_fhc_lend(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len, unsigned *slot)
{
	if (!c || len > NFS4_FHSIZE)
		return -1;
	uint32_t h = fh_hash(fh, len);
	int fd = -1;
	pthread_mutex_lock(&c->mu);
	struct fhc_entry *e = find(c, h, fh, len);
	if (e) {
		if (e->dead) {
			fd = TNFS_FHC_DEAD;
		} else {
			fd = e->fd;
			e->lent++;
			*slot = (unsigned)(e - c->e);
		}
		e->used = ++c->tick;
		c->hits++;
	} else {
		c->misses++;
	}
	pthread_mutex_unlock(&c->mu);
	return fd;
}

void tnfs_fhc_share(struct tnfs_fh_cache *c, unsigned slot)
{
	pthread_mutex_lock(&c->mu);
	c->e[slot].lent++;
	pthread_mutex_unlock(&c->mu);
}

void tnfs_fhc_return(struct tnfs_fh_cache *c, unsigned slot)
{
	pthread_mutex_lock(&c->mu);
	struct fhc_entry *e = &c->e[slot];
	if (e->lent && --e->lent == 0 && e->orphan) {
		close(e->fd);
		e->fd = -1;
		e->orphan = false;
	}
	pthread_mutex_unlock(&c->mu);
}

void tnfs_fhc_add(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len, int fd)
{
	if (!c || len > NFS4_FHSIZE)
		return;
	uint32_t h = fh_hash(fh, len);
	pthread_mutex_lock(&c->mu);
	struct fhc_entry *e = find(c, h, fh, len);
	if (e && e->dead && !reusable(e))
		goto out; /* a dead handle living again, its old loan still out */
	if (!e || e->dead) { /* a dead handle living again is not expected */
		if (!e) {
			/* an empty slot, else the least recently used one
			 * (dead entries included); never one lent */
			e = NULL;
			for (unsigned i = 0; i < TNFS_FHC_SLOTS; i++) {
				struct fhc_entry *o = &c->e[i];
				if (!reusable(o))
					continue;
				if (!taken(o)) {
					e = o;
					break;
				}
				if (!e || o->used < e->used)
					e = o;
			}
			if (!e)
				goto out;
		}
		int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (nfd < 0)
			goto out;
		if (e->fd >= 0)
			close(e->fd);
		e->fd = nfd;
		e->dead = false;
		e->orphan = false;
		e->hash = h;
		e->len = len;
		memcpy(e->fh, fh, len);
	}
	e->used = ++c->tick;
out:
	pthread_mutex_unlock(&c->mu);
}

/* Closes the handle's descriptor, if any; the entry stays, dead, or goes. */
static void drop(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len, bool dead)
{
	if (!c || len > NFS4_FHSIZE)
		return;
	uint32_t h = fh_hash(fh, len);
	pthread_mutex_lock(&c->mu);
	struct fhc_entry *e = find(c, h, fh, len);
	if (e) {
		if (e->fd >= 0 && e->lent)
			e->orphan = true; /* closed with its last loan */
		else if (e->fd >= 0)
			close(e->fd);
		if (!e->orphan)
			e->fd = -1;
		e->dead = dead;
	}
	pthread_mutex_unlock(&c->mu);
}

void tnfs_fhc_forget(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len)
{
	drop(c, fh, len, false);
}

void tnfs_fhc_mark_dead(struct tnfs_fh_cache *c, const uint8_t *fh, uint32_t len)
{
	drop(c, fh, len, true);
}

void tnfs_fhc_stats(struct tnfs_fh_cache *c, struct tnfs_fhc_stats *out)
{
	*out = (struct tnfs_fhc_stats){ 0 };
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	out->hits = c->hits;
	out->misses = c->misses;
	for (unsigned i = 0; i < TNFS_FHC_SLOTS; i++)
		out->lent += c->e[i].lent;
	pthread_mutex_unlock(&c->mu);
}
