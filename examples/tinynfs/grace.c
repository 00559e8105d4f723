/* SPDX-License-Identifier: BSD-2-Clause */
/* The grace period and the client record; see grace.h. */
#include "grace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clientrec.h"

struct tnfs_grace {
	int dirfd;
	unsigned secs;
	bool in_grace;
	bool batch, dirty; /* tnfs_grace_batch */
	uint64_t end;
	uint32_t nreclaimed; /* entries of `known` marked reclaimed */
	struct tnfs_clientrec known; /* the record found at start */
	struct tnfs_clientrec cur;   /* clients recorded since */
	int error;
};

static void store(struct tnfs_grace *g)
{
	g->dirty = false;
	int rc = tnfs_clientrec_store(g->dirfd, &g->cur, g->in_grace ? &g->known : NULL);
	if (rc)
		g->error = rc;
}

static void end_grace(struct tnfs_grace *g)
{
	g->in_grace = false;
	store(g); /* the known clients that did not reclaim leave it */
}

int tnfs_grace_new(const char *dir, unsigned secs, uint64_t now, struct tnfs_grace **out)
{
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	struct tnfs_grace *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;
	if (g->dirfd < 0) {
		rc = -errno;
		free(g);
		return rc;
	}
	if (flock(g->dirfd, LOCK_EX | LOCK_NB) != 0) {
		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto fail;
	}
	if ((rc = tnfs_clientrec_load(g->dirfd, &g->known)) != 0)
		goto fail;
	g->secs = secs;
	g->in_grace = g->known.n > 0;
	g->end = now + secs;
	if (g->in_grace && secs == 0)
		end_grace(g);
	*out = g;
	return 0;
fail:
	close(g->dirfd);
	free(g);
	return rc;
}

void tnfs_grace_free(struct tnfs_grace *g)
{
	if (!g)
		return;
	tnfs_clientrec_free(&g->known);
	tnfs_clientrec_free(&g->cur);
	close(g->dirfd); /* and its flock */
	free(g);
}

bool tnfs_grace_active(struct tnfs_grace *g, uint64_t now)
{
	if (g->in_grace && now >= g->end)
		end_grace(g);
	return g->in_grace;
}

void tnfs_grace_restart(struct tnfs_grace *g, uint64_t now)
{
	g->end = now + g->secs;
}

bool tnfs_grace_known(const struct tnfs_grace *g, const uint8_t *id, uint32_t len)
{
	return tnfs_clientrec_find(&g->known, id, len) >= 0;
}

void tnfs_grace_reclaimed(struct tnfs_grace *g, const uint8_t *id, uint32_t len)
{
	long i = tnfs_clientrec_find(&g->known, id, len);
	if (i >= 0 && !g->known.e[i].reclaimed) {
		g->known.e[i].reclaimed = true;
		g->nreclaimed++;
	}
	bool had = tnfs_clientrec_find(&g->cur, id, len) >= 0;
	int rc = had ? 0 : tnfs_clientrec_add(&g->cur, id, len);
	if (rc)
		g->error = rc;
	if (g->in_grace && g->nreclaimed == g->known.n)
		end_grace(g); /* every known client is back: no need to wait */
	else if (!had && rc == 0)
		store(g);
}

void tnfs_grace_forget(struct tnfs_grace *g, const uint8_t *id, uint32_t len)
{
	long i = tnfs_clientrec_find(&g->cur, id, len);
	if (i < 0)
		return;
	tnfs_clientrec_del(&g->cur, (uint32_t)i);
	if (g->batch)
		g->dirty = true;
	else
		store(g);
}

void tnfs_grace_batch(struct tnfs_grace *g, bool on)
{
	g->batch = on;
	if (!on && g->dirty)
		store(g);
}

int tnfs_grace_error(const struct tnfs_grace *g)
{
	return g->error;
}
