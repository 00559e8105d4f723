/* SPDX-License-Identifier: BSD-2-Clause */
/* Granting delegations (deleg.h): the limits, the lease, why not. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deleg.h"
#include "deleg_int.h"

/* May clientid get a delegation of key now?  GRANT_OK, or why not
 * (deleg.h; TABLE_FULL: the limit in all). */
#define GRANT_OK UINT32_MAX
#define TABLE_FULL (UINT32_MAX - 2)
static uint32_t may_grant(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			  bool write)
{
	if (!d->enabled || !d->running || (write && !d->write_on))
		return WND4_RESOURCE;
	/* the share (max_per_client) binds only a full table: recall_share */
	if (d->st.held - d->nrevoked >= d->max)
		return TABLE_FULL;
	for (struct deleg *g = d->bucket[bucket_of(key)]; g; g = g->fnext) {
		if (!same_key(g->key, key))
			continue;
		if (g->clientid == clientid && g->state != D_REVOKED)
			return TNFS_WND_HELD; /* it has one */
		/* being recalled, or another's beside a write one */
		if (g->state == D_RECALLING || (g->state != D_REVOKED && (write || g->write)))
			return WND4_CONTENTION;
	}
	return d->ops.path_up(d->ops.arg, clientid) ? GRANT_OK : WND4_RESOURCE;
}

/* The table is full: the delegations of courtesy clients are taken back
 * (revoked at once, deleg.h), at most once a second.  Asked of
 * ops.lapsed without the mutex (lock order).  True if any went. */
static bool take_back(struct tnfs_deleg *d)
{
	pthread_mutex_lock(&d->mu);
	uint64_t t = now(d);
	bool look = d->ops.lapsed && (d->takeback_at == 0 || t - d->takeback_at >= 1);
	unsigned n = 0;
	for (const struct holder *h = d->holders; look && h; h = h->next)
		n++;
	struct lapsed_all {
		uint64_t id;
		bool yes;
	} *l = look && n ? calloc(n, sizeof(*l)) : NULL;
	n = 0;
	for (const struct holder *h = d->holders; l && h; h = h->next)
		l[n++].id = h->clientid;
	if (look)
		d->takeback_at = t ? t : 1;
	pthread_mutex_unlock(&d->mu);
	if (!l)
		return false;
	bool any = false;
	for (unsigned i = 0; i < n; i++)
		any |= l[i].yes = d->ops.lapsed(d->ops.arg, l[i].id);
	unsigned freed = 0;
	pthread_mutex_lock(&d->mu);
	for (uint32_t i = 0; any && i < TNFS_MAX_DELEGS; i++) {
		struct deleg *g = d->byid[i];
		if (!g || g->state == D_REVOKED)
			continue;
		for (unsigned k = 0; k < n; k++)
			if (l[k].yes && l[k].id == g->clientid) {
				tnfs__deleg_revoke_now(d, g);
				freed++;
				break;
			}
	}
	pthread_mutex_unlock(&d->mu);
	free(l);
	return freed > 0;
}

/* The table is full and clientid asks: if it is within its share, one
 * delegation of the holder furthest past its share (counting those
 * granted, not being recalled) is recalled (mutex held). */
static void recall_share(struct tnfs_deleg *d, uint64_t clientid)
{
	const struct holder *me = *holder_of(d, clientid);
	if (me && me->n >= d->max_per_client)
		return; /* past its own share: refused, no recall */
	for (struct holder *h = d->holders; h; h = h->next)
		h->live = 0;
	for (uint32_t i = 0; i < TNFS_MAX_DELEGS; i++)
		if (d->byid[i] && d->byid[i]->state == D_GRANTED)
			d->byid[i]->h->live++;
	struct holder *far = NULL;
	for (struct holder *h = d->holders; h; h = h->next)
		if (h->clientid != clientid && h->live > d->max_per_client &&
		    (!far || h->live > far->live))
			far = h;
	for (uint32_t i = 0; far && i < TNFS_MAX_DELEGS; i++) {
		struct deleg *g = d->byid[i];
		if (g && g->h == far && g->state == D_GRANTED) {
			d->st.recalls_share++;
			tnfs__deleg_recall(d, g);
			return;
		}
	}
}

/* may_grant, with a full table refilled from courtesy clients, then
 * from the client furthest past its share. */
static uint32_t may_grant_now(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			      bool write)
{
	pthread_mutex_lock(&d->mu);
	uint32_t why = may_grant(d, clientid, key, write);
	pthread_mutex_unlock(&d->mu);
	if (why == TABLE_FULL && take_back(d)) {
		pthread_mutex_lock(&d->mu);
		why = may_grant(d, clientid, key, write);
		pthread_mutex_unlock(&d->mu);
	}
	if (why == TABLE_FULL) {
		pthread_mutex_lock(&d->mu);
		recall_share(d, clientid);
		d->st.refused_limit++;
		pthread_mutex_unlock(&d->mu);
		why = WND4_RESOURCE;
	}
	return why;
}

/* A read-only descriptor of the file with a read lease, or -1. */
static int lease_fd(int path)
{
	char pp[32];
	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", path);
	int fd = open(pp, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETSIG, tnfs_deleg_signal()) != 0 ||
	    fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1; /* EAGAIN: someone has it open for writing */
	}
	return fd;
}

/* One more delegation of clientid counted; NULL without memory. */
static struct holder *holder_get(struct tnfs_deleg *d, uint64_t clientid)
{
	struct holder **pp = holder_of(d, clientid);
	if (!*pp && (*pp = calloc(1, sizeof(**pp))) != NULL)
		(*pp)->clientid = clientid;
	if (!*pp)
		return NULL;
	(*pp)->n++;
	return *pp;
}

/* A delegation of tnfs__deleg_alloc not granted after all. */
static void discard(struct tnfs_deleg *d, struct deleg *g)
{
	tnfs__deleg_drop_lease(d, g);
	d->byid[g->id] = NULL;
	d->st.held--;
	free(g);
}

bool tnfs_deleg_grant(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
		      int path, const uint8_t *fh, uint32_t fhlen, struct nfs4_stateid *out)
{
	uint32_t why;
	return tnfs_deleg_grant_why(d, clientid, key, path, fh, fhlen, out, &why);
}

/* The lease on a new delegation g of key: g->fd, or why not. */
/* A write lease on wfd (its struct file must be the file's only open,
 * the kernel checks), or -1 and errno. */
static int write_lease(int wfd)
{
	if (fcntl(wfd, F_SETSIG, tnfs_deleg_signal()) != 0 ||
	    fcntl(wfd, F_SETLEASE, F_WRLCK) != 0)
		return -1;
	return wfd;
}

/* The lease of a new delegation g: on the file's O_PATH descriptor path
 * (read), or on wfd (write, g then owns it).  GRANT_OK or why not. */
static uint32_t take_lease(struct tnfs_deleg *d, struct deleg *g, uint64_t clientid, int path,
			   int *wfd)
{
	g->write = *wfd >= 0;
	g->fd = g->write ? write_lease(*wfd) : lease_fd(path);
	if (g->fd < 0)
		return errno == EAGAIN ? WND4_CONTENTION : WND4_RESOURCE;
	*wfd = -1;
	g->h = holder_get(d, clientid);
	return g->h ? GRANT_OK : WND4_RESOURCE;
}

static bool grant(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key, int path,
		  int wfd, const uint8_t *fh, uint32_t fhlen, const struct stat *st,
		  struct nfs4_stateid *out, uint32_t *why);

bool tnfs_deleg_grant_why(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			  int path, const uint8_t *fh, uint32_t fhlen, struct nfs4_stateid *out,
			  uint32_t *why)
{
	return grant(d, clientid, key, path, -1, fh, fhlen, NULL, out, why);
}

bool tnfs_deleg_grant_read_attrs(struct tnfs_deleg *d, uint64_t clientid,
				 struct tnfs_file_key key, int path, const uint8_t *fh,
				 uint32_t fhlen, const struct stat *st,
				 struct nfs4_stateid *out, uint32_t *why)
{
	return grant(d, clientid, key, path, -1, fh, fhlen, st, out, why);
}

bool tnfs_deleg_grant_write(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			    int wfd, const uint8_t *fh, uint32_t fhlen, struct nfs4_stateid *out,
			    uint32_t *why)
{
	return grant(d, clientid, key, -1, wfd, fh, fhlen, NULL, out, why);
}

bool tnfs_deleg_grant_write_attrs(struct tnfs_deleg *d, uint64_t clientid,
				  struct tnfs_file_key key, int wfd, const uint8_t *fh,
				  uint32_t fhlen, const struct stat *st,
				  struct nfs4_stateid *out, uint32_t *why)
{
	return grant(d, clientid, key, -1, wfd, fh, fhlen, st, out, why);
}

static bool grant(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key, int path,
		  int wfd, const uint8_t *fh, uint32_t fhlen, const struct stat *st,
		  struct nfs4_stateid *out, uint32_t *why)
{
	bool write = wfd >= 0;
	*why = WND4_RESOURCE;
	if (fhlen > NFS4_FHSIZE) {
		if (write)
			close(wfd);
		return false;
	}
	*why = may_grant_now(d, clientid, key, write);
	if (*why != GRANT_OK) {
		if (write)
			close(wfd);
		return false;
	}
	/* the lease is taken with the mutex held, so that a break signal
	 * finds the delegation */
	struct deleg *g = NULL;
	pthread_mutex_lock(&d->mu);
	*why = may_grant(d, clientid, key, write);
	if (*why == TABLE_FULL)
		*why = WND4_RESOURCE; /* taken meanwhile */
	if (*why == GRANT_OK && !(g = tnfs__deleg_alloc(d)))
		*why = WND4_RESOURCE;
	if (g && (*why = take_lease(d, g, clientid, path, &wfd)) != GRANT_OK) {
		discard(d, g);
		g = NULL;
	}
	if (wfd >= 0)
		close(wfd);
	if (g) {
		g->state = D_GRANTED;
		g->clientid = clientid;
		g->key = key;
		g->fhlen = fhlen;
		memcpy(g->fh, fh, fhlen);
		if (st) {
			g->attrs = true;
			g->at0 = st->st_atim;
			g->mt0 = st->st_mtim;
		}
		unsigned b = bucket_of(key);
		g->fnext = d->bucket[b];
		d->bucket[b] = g;
		d->st.granted++;
		d->st.granted_write += g->write;
		tnfs__deleg_sid(d, g, out);
	}
	pthread_mutex_unlock(&d->mu);
	return g != NULL;
}

void tnfs_deleg_own_open(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			 bool write_access)
{
	char pp[32];
	pthread_mutex_lock(&d->mu);
	for (struct deleg *g = d->bucket[bucket_of(key)]; g; g = g->fnext) {
		if (!same_key(g->key, key) || g->clientid != clientid || g->fd < 0 ||
		    g->released || (!g->write && !write_access))
			continue;
		g->released_at = now(d);
		if (g->write) { /* the descriptor stays, for its I/O */
			(void)fcntl(g->fd, F_SETLEASE, F_UNLCK);
			g->released = true;
			d->st.unleased++;
			continue;
		}
		snprintf(pp, sizeof(pp), "/proc/self/fd/%d", g->fd);
		int path = open(pp, O_PATH | O_CLOEXEC);
		tnfs__deleg_drop_lease(d, g); /* its fd: the holder may now open for writing */
		g->path = path;
		d->st.unleased += path >= 0;
	}
	pthread_mutex_unlock(&d->mu);
}

/* A delegation whose lease its holder's write open released takes one
 * again once nobody has the file open for writing (mutex held). */
void tnfs__deleg_rearm(struct tnfs_deleg *d, struct deleg *g)
{
	/* not in the second it was released: the holder's open comes */
	if (!g || g->state != D_GRANTED || now(d) - g->released_at < 2)
		return;
	if (g->released) { /* write: once the holder's other opens are closed */
		if (write_lease(g->fd) >= 0) {
			g->released = false;
			d->st.unleased--;
		}
		return;
	}
	if (g->fd >= 0 || g->path < 0)
		return;
	int fd = lease_fd(g->path);
	if (fd < 0)
		return;
	close(g->path);
	g->path = -1;
	g->fd = fd;
	d->st.unleased--;
}

