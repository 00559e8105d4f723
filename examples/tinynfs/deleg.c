/* SPDX-License-Identifier: BSD-2-Clause */
/* Read delegations on Linux file leases; see deleg.h (the grant:
 * deleg_grant.c). */
#include "deleg.h"
#include "deleg_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

int tnfs_deleg_signal(void)
{
	return SIGRTMIN + 3;
}

static uint64_t mono(void *arg)
{
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* The kernel drops a lease not released this many seconds after its
 * break began: a recall must end (returned or revoked) before that. */
static unsigned lease_break_time(void)
{
	unsigned v = TNFS_LEASE_TIME;
	FILE *f = fopen("/proc/sys/fs/lease-break-time", "re");
	if (f) {
		unsigned k;
		if (fscanf(f, "%u", &k) == 1 && k > 1 && k < v)
			v = k - 1;
		fclose(f);
	}
	return v;
}

unsigned tnfs_deleg_default_max(void)
{
	struct rlimit rl;
	rlim_t n = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		n = rl.rlim_cur;
	uint64_t max = n / 8 < TNFS_MAX_DELEGS ? n / 8 : TNFS_MAX_DELEGS;
	/* nfsd's bound (set_max_delegations): 4 per MiB of memory */
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psize > 0) {
		uint64_t mem = ((uint64_t)pages * (uint64_t)psize >> 20) * 4;
		if (mem < max)
			max = mem;
	}
	return max ? (unsigned)max : 1;
}

static void default_limits(struct tnfs_deleg *d)
{
	d->max = tnfs_deleg_default_max();
	d->max_per_client = d->max / 4 ? d->max / 4 : 1;
}

int tnfs_deleg_new(uint32_t boot32, const struct tnfs_deleg_ops *ops, struct tnfs_deleg **out)
{
	struct tnfs_deleg *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->byid = calloc(TNFS_MAX_DELEGS, sizeof(d->byid[0]));
	if (!d->byid) {
		free(d);
		return -ENOMEM;
	}
	pthread_mutex_init(&d->mu, NULL);
	d->ops = *ops;
	d->boot32 = boot32;
	d->enabled = true;
	d->write_on = true;
	d->timeout = lease_break_time();
	default_limits(d);
	d->clock = mono;
	d->sigfd = d->stopfd = -1;
	*out = d;
	return 0;
}

void tnfs__deleg_drop_lease(struct tnfs_deleg *d, struct deleg *g)
{
	if (g->path >= 0) {
		close(g->path);
		g->path = -1;
		d->st.unleased--;
	}
	if (g->released) {
		g->released = false;
		d->st.unleased--;
	}
	if (g->fd < 0)
		return;
	(void)fcntl(g->fd, F_SETLEASE, F_UNLCK);
	close(g->fd);
	g->fd = -1;
}

static void holder_put(struct tnfs_deleg *d, uint64_t clientid)
{
	struct holder **pp = holder_of(d, clientid), *h = *pp;
	if (h && --h->n == 0) {
		*pp = h->next;
		free(h);
	}
}

static void unlink_deleg(struct tnfs_deleg *d, struct deleg *g)
{
	holder_put(d, g->clientid);
	for (struct deleg **pp = &d->bucket[bucket_of(g->key)]; *pp; pp = &(*pp)->fnext)
		if (*pp == g) {
			*pp = g->fnext;
			break;
		}
	d->byid[g->id] = NULL;
	d->st.held--;
	d->nrevoked -= g->state == D_REVOKED;
	tnfs__deleg_drop_lease(d, g);
	free(g);
}

void tnfs_deleg_free(struct tnfs_deleg *d)
{
	if (!d)
		return;
	if (d->running) {
		uint64_t one = 1;
		if (write(d->stopfd, &one, sizeof(one)) != sizeof(one))
			perror("tinynfs: deleg stop");
		pthread_join(d->thread, NULL);
	}
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->stopfd >= 0)
		close(d->stopfd);
	for (uint32_t i = 0; i < TNFS_MAX_DELEGS; i++)
		if (d->byid[i])
			unlink_deleg(d, d->byid[i]);
	free(d->byid);
	while (d->holders) { /* none left: unlink_deleg freed them */
		struct holder *h = d->holders;
		d->holders = h->next;
		free(h);
	}
	pthread_mutex_destroy(&d->mu);
	free(d);
}

void tnfs_deleg_set_enabled(struct tnfs_deleg *d, bool on)
{
	pthread_mutex_lock(&d->mu);
	d->enabled = on;
	pthread_mutex_unlock(&d->mu);
}

void tnfs_deleg_set_write(struct tnfs_deleg *d, bool on)
{
	pthread_mutex_lock(&d->mu);
	d->write_on = on;
	pthread_mutex_unlock(&d->mu);
}

bool tnfs_deleg_write_on(struct tnfs_deleg *d)
{
	pthread_mutex_lock(&d->mu);
	bool on = d->write_on;
	pthread_mutex_unlock(&d->mu);
	return on;
}

void tnfs_deleg_set_timeout(struct tnfs_deleg *d, unsigned secs)
{
	pthread_mutex_lock(&d->mu);
	d->timeout = secs;
	pthread_mutex_unlock(&d->mu);
}

void tnfs_deleg_set_limits(struct tnfs_deleg *d, unsigned max, unsigned per_client)
{
	pthread_mutex_lock(&d->mu);
	default_limits(d);
	if (max)
		d->max = max < TNFS_MAX_DELEGS ? max : TNFS_MAX_DELEGS;
	d->max_per_client = per_client ? per_client : d->max / 4 ? d->max / 4 : 1;
	pthread_mutex_unlock(&d->mu);
}

void tnfs_deleg_set_clock(struct tnfs_deleg *d, tnfs_clock_fn *fn, void *arg)
{
	pthread_mutex_lock(&d->mu);
	d->clock = fn ? fn : mono;
	d->clock_arg = fn ? arg : NULL;
	pthread_mutex_unlock(&d->mu);
}

void tnfs__deleg_sid(const struct tnfs_deleg *d, const struct deleg *g, struct nfs4_stateid *out)
{
	uint32_t w[3] = { ID_BIT | g->id, g->gen, d->boot32 };
	out->seqid = 1;
	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 4; b++)
			out->other[4 * i + b] = (uint8_t)(w[i] >> (24 - 8 * b));
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool tnfs_deleg_is_sid(const struct nfs4_stateid *sid)
{
	return (rd32(sid->other) & ID_BIT) && rd32(sid->other) != UINT32_MAX;
}

static struct deleg *find_sid(struct tnfs_deleg *d, uint64_t clientid,
			      const struct nfs4_stateid *sid, uint32_t *status)
{
	uint32_t id = rd32(sid->other) & ~ID_BIT;
	*status = NFS4ERR_BAD_STATEID;
	if (!tnfs_deleg_is_sid(sid) || rd32(sid->other + 8) != d->boot32 || id >= TNFS_MAX_DELEGS)
		return NULL;
	struct deleg *g = d->byid[id];
	if (!g || g->gen != rd32(sid->other + 4) || g->clientid != clientid)
		return NULL;
	if (sid->seqid > 1)
		return NULL;
	*status = g->state == D_REVOKED ? NFS4ERR_DELEG_REVOKED : NFS4_OK;
	return g;
}

struct deleg *tnfs__deleg_find_sid(struct tnfs_deleg *d, uint64_t clientid,
				   const struct nfs4_stateid *sid, uint32_t *status)
{
	return find_sid(d, clientid, sid, status);
}

struct deleg *tnfs__deleg_alloc(struct tnfs_deleg *d)
{
	for (uint32_t n = 0; n < TNFS_MAX_DELEGS; n++) {
		uint32_t i = (d->hint + n) % TNFS_MAX_DELEGS;
		if (d->byid[i])
			continue;
		struct deleg *g = calloc(1, sizeof(*g));
		if (!g)
			return NULL;
		g->id = i;
		g->gen = ++d->gen;
		g->fd = g->path = -1;
		d->byid[i] = g;
		d->hint = i + 1;
		d->st.held++;
		return g;
	}
	return NULL;
}

void tnfs__deleg_recall(struct tnfs_deleg *d, struct deleg *g)
{
	struct nfs4_stateid sid;
	tnfs__deleg_sid(d, g, &sid);
	if (g->state == D_GRANTED) {
		g->state = D_RECALLING;
		g->recall_at = now(d);
		d->st.recalls++;
	}
	d->ops.recall(d->ops.arg, g->clientid, &sid, g->fh, g->fhlen);
}

/* Revoked now, unrecalled: its holder is a courtesy client (mutex held). */
void tnfs__deleg_revoke_now(struct tnfs_deleg *d, struct deleg *g)
{
	g->state = D_REVOKED;
	tnfs__deleg_drop_lease(d, g);
	d->st.revoked++;
	d->st.revoked_lapsed++;
	d->nrevoked++;
}

void tnfs__lapsed_add(struct lapsed *l, uint64_t id)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->id[i] == id)
			return;
	if (l->n < LAPSED_MAX)
		l->id[l->n++] = id;
}

void tnfs__lapsed_ask(const struct tnfs_deleg *d, struct lapsed *l)
{
	for (unsigned i = 0; i < l->n; i++)
		l->yes[i] = d->ops.lapsed && d->ops.lapsed(d->ops.arg, l->id[i]);
}

bool tnfs__lapsed_is(const struct lapsed *l, uint64_t id)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->id[i] == id)
			return l->yes[i];
	return false;
}

/* Recalls g, or revokes it now if its holder has lapsed (mutex held). */
static void recall_or_revoke(struct tnfs_deleg *d, struct deleg *g, const struct lapsed *l)
{
	if (tnfs__lapsed_is(l, g->clientid))
		tnfs__deleg_revoke_now(d, g);
	else
		tnfs__deleg_recall(d, g);
}

static bool conflicts(const struct deleg *g, uint64_t clientid, struct tnfs_file_key key,
		      bool any, bool writes)
{
	return same_key(g->key, key) && g->state != D_REVOKED &&
	       (any || g->clientid != clientid) && (!writes || g->write);
}

static uint32_t breaks(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
		       bool any, bool writes);

uint32_t tnfs_deleg_break(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			  bool any)
{
	return breaks(d, clientid, key, any, false);
}

uint32_t tnfs_deleg_break_writes(struct tnfs_deleg *d, uint64_t clientid,
				 struct tnfs_file_key key)
{
	return breaks(d, clientid, key, false, true);
}

static uint32_t breaks(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
		       bool any, bool writes)
{
	uint32_t status = NFS4_OK;
	struct lapsed l = { 0 };
	pthread_mutex_lock(&d->mu);
	for (struct deleg *g = d->bucket[bucket_of(key)]; g; g = g->fnext)
		if (conflicts(g, clientid, key, any, writes) && g->state == D_GRANTED)
			tnfs__lapsed_add(&l, g->clientid);
	pthread_mutex_unlock(&d->mu);
	tnfs__lapsed_ask(d, &l);
	pthread_mutex_lock(&d->mu);
	for (struct deleg *g = d->bucket[bucket_of(key)]; g; g = g->fnext) {
		if (!conflicts(g, clientid, key, any, writes))
			continue;
		if (g->state == D_GRANTED)
			recall_or_revoke(d, g, &l);
		if (g->state != D_REVOKED)
			status = NFS4ERR_DELAY;
	}
	pthread_mutex_unlock(&d->mu);
	return status;
}

uint32_t tnfs_deleg_check(struct tnfs_deleg *d, uint64_t clientid,
			  const struct nfs4_stateid *sid, const struct tnfs_file_key *key)
{
	uint32_t s;
	pthread_mutex_lock(&d->mu);
	struct deleg *g = find_sid(d, clientid, sid, &s);
	if (g && key && !same_key(g->key, *key))
		s = NFS4ERR_BAD_STATEID;
	pthread_mutex_unlock(&d->mu);
	return s;
}

uint32_t tnfs_deleg_io(struct tnfs_deleg *d, uint64_t clientid, const struct nfs4_stateid *sid,
		       struct tnfs_file_key key, bool write, int *fd)
{
	uint32_t s;
	*fd = -1;
	pthread_mutex_lock(&d->mu);
	struct deleg *g = find_sid(d, clientid, sid, &s);
	if (g && !same_key(g->key, key))
		s = NFS4ERR_BAD_STATEID;
	if (s == NFS4_OK && g->write && (*fd = fcntl(g->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		s = NFS4ERR_DELAY;
	else if (s == NFS4_OK && !g->write && write)
		s = NFS4ERR_OPENMODE;
	pthread_mutex_unlock(&d->mu);
	return s;
}

/* Another client's write delegation of key, not revoked (mutex held). */
static struct deleg *other_write(struct tnfs_deleg *d, uint64_t clientid,
				 struct tnfs_file_key key)
{
	for (struct deleg *g = d->bucket[bucket_of(key)]; g; g = g->fnext)
		if (same_key(g->key, key) && g->clientid != clientid && g->write &&
		    g->state != D_REVOKED)
			return g;
	return NULL;
}

/* The holder's answer g->ga_got's times into out, vetted (mutex held). */
static void ga_times(struct deleg *g, struct tnfs_deleg_ga *out)
{
	out->atime_set = out->mtime_set = false;
	if (!g->attrs || !g->ga_got.times)
		return;
	out->atime = g->ga_got.atime;
	out->mtime = g->ga_got.mtime;
	out->atime_set = tnfs__deleg_vet_time(&out->atime, &g->at0);
	out->mtime_set = tnfs__deleg_vet_time(&out->mtime, &g->mt0);
}

uint32_t tnfs_deleg_getattr(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			    uint64_t change, bool times_only, bool *set, struct tnfs_deleg_ga *out)
{
	uint32_t s = NFS4_OK;
	*set = false;
	pthread_mutex_lock(&d->mu);
	struct deleg *g = other_write(d, clientid, key);
	if (g && times_only && !g->attrs)
		g = NULL; /* the times are the file's without delegated ones */
	bool fallback = g && (!d->ops.getattr || g->state != D_GRANTED ||
			      (g->ga == GA_ASKED && now(d) - g->ga_at > GA_WAIT_S));
	if (g && !fallback && g->ga == GA_ANSWERED) {
		/* modified under the delegation: the holder's change is not
		 * the file's, nor what it said last time */
		if (g->ga_change != change && (!g->ga_seen || g->ga_change != g->ga_last))
			g->ga_bump++;
		g->ga_seen = true;
		g->ga_last = g->ga_change;
		*set = true;
		out->size = g->ga_size;
		out->bump = g->ga_bump;
		ga_times(g, out);
		g->ga = GA_NONE; /* one answer, one GETATTR */
	} else if (g && !fallback) {
		if (g->ga == GA_NONE) {
			struct nfs4_stateid sid;
			tnfs__deleg_sid(d, g, &sid);
			g->ga = GA_ASKED;
			g->ga_at = now(d);
			d->ops.getattr(d->ops.arg, g->clientid, &sid, g->fh, g->fhlen, g->attrs);
		}
		s = NFS4ERR_DELAY;
	}
	pthread_mutex_unlock(&d->mu);
	if (fallback)
		s = tnfs_deleg_break_writes(d, clientid, key);
	return s;
}

void tnfs_deleg_cb_getattr_done(struct tnfs_deleg *d, uint64_t clientid,
				const struct nfs4_stateid *sid,
				const struct tnfs_deleg_cbattrs *a)
{
	uint32_t s;
	pthread_mutex_lock(&d->mu);
	struct deleg *g = find_sid(d, clientid, sid, &s);
	if (g && s == NFS4_OK && g->ga == GA_ASKED) {
		if (a) {
			g->ga_change = a->change;
			g->ga_size = a->size;
			g->ga_got = *a;
			g->ga = GA_ANSWERED;
		} else {
			g->ga = GA_NONE;
			g->ga_at = 0; /* the next GETATTR recalls */
			if (g->state == D_GRANTED)
				tnfs__deleg_recall(d, g);
		}
	}
	pthread_mutex_unlock(&d->mu);
}

bool tnfs_deleg_writes_ever(struct tnfs_deleg *d)
{
	pthread_mutex_lock(&d->mu);
	bool ever = d->st.granted_write != 0;
	pthread_mutex_unlock(&d->mu);
	return ever;
}

int tnfs_deleg_own_fd(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key)
{
	int fd = -1;
	pthread_mutex_lock(&d->mu);
	for (struct deleg *g = d->bucket[bucket_of(key)]; g && fd < 0; g = g->fnext)
		if (same_key(g->key, key) && g->clientid == clientid && g->write &&
		    g->state != D_REVOKED && g->fd >= 0)
			fd = fcntl(g->fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_unlock(&d->mu);
	return fd;
}

uint32_t tnfs_deleg_return(struct tnfs_deleg *d, uint64_t clientid,
			   const struct nfs4_stateid *sid, struct tnfs_file_key key)
{
	uint32_t s;
	pthread_mutex_lock(&d->mu);
	struct deleg *g = find_sid(d, clientid, sid, &s);
	if (g && !same_key(g->key, key))
		s = NFS4ERR_BAD_STATEID;
	if (s == NFS4_OK) {
		d->st.returned++;
		unlink_deleg(d, g);
	}
	pthread_mutex_unlock(&d->mu);
	return s;
}

uint32_t tnfs_deleg_free_stateid(struct tnfs_deleg *d, uint64_t clientid,
				 const struct nfs4_stateid *sid)
{
	uint32_t s;
	pthread_mutex_lock(&d->mu);
	struct deleg *g = find_sid(d, clientid, sid, &s);
	if (s == NFS4ERR_DELEG_REVOKED) {
		unlink_deleg(d, g);
		s = NFS4_OK;
	} else if (s == NFS4_OK) {
		s = NFS4ERR_LOCKS_HELD;
	}
	pthread_mutex_unlock(&d->mu);
	return s;
}

uint32_t tnfs_deleg_seq_flags(struct tnfs_deleg *d, uint64_t clientid)
{
	uint32_t f = 0;
	pthread_mutex_lock(&d->mu);
	if (d->st.revoked) /* none revoked ever: no scan */
		for (uint32_t i = 0; i < TNFS_MAX_DELEGS && !f; i++) {
			struct deleg *g = d->byid[i];
			if (g && g->clientid == clientid && g->state == D_REVOKED)
				f = SEQ4_STATUS_RECALLABLE_STATE_REVOKED;
		}
	pthread_mutex_unlock(&d->mu);
	return f;
}

void tnfs_deleg_forget_client(struct tnfs_deleg *d, uint64_t clientid)
{
	pthread_mutex_lock(&d->mu);
	for (uint32_t i = 0; i < TNFS_MAX_DELEGS && d->st.held; i++)
		if (d->byid[i] && d->byid[i]->clientid == clientid)
			unlink_deleg(d, d->byid[i]);
	pthread_mutex_unlock(&d->mu);
}

unsigned tnfs_deleg_held_by(struct tnfs_deleg *d, uint64_t clientid)
{
	pthread_mutex_lock(&d->mu);
	const struct holder *h = *holder_of(d, clientid);
	unsigned n = h ? h->n : 0;
	pthread_mutex_unlock(&d->mu);
	return n;
}

bool tnfs_deleg_others_hold(struct tnfs_deleg *d, uint64_t clientid)
{
	pthread_mutex_lock(&d->mu);
	const struct holder *h = *holder_of(d, clientid);
	/* held counts every delegation in the table, the holders' n only
	 * those handed out: held - n >= the others' */
	bool others = d->st.held > (h ? h->n : 0);
	pthread_mutex_unlock(&d->mu);
	return others;
}

void tnfs_deleg_resend(struct tnfs_deleg *d, uint64_t clientid)
{
	pthread_mutex_lock(&d->mu);
	for (uint32_t i = 0; i < TNFS_MAX_DELEGS && d->st.held; i++) {
		struct deleg *g = d->byid[i];
		if (g && g->clientid == clientid && g->state == D_RECALLING)
			tnfs__deleg_recall(d, g);
	}
	pthread_mutex_unlock(&d->mu);
}

/* Revokes the recalls that timed out (mutex held). */
static void revoke_expired(struct tnfs_deleg *d)
{
	uint64_t t = now(d);
	for (uint32_t i = 0; i < TNFS_MAX_DELEGS; i++) {
		struct deleg *g = d->byid[i];
		if (!g || g->state != D_RECALLING || t - g->recall_at < d->timeout)
			continue;
		g->state = D_REVOKED;
		tnfs__deleg_drop_lease(d, g);
		d->st.revoked++;
		d->nrevoked++;
	}
}

static bool breaking(const struct deleg *g, int fd)
{
	if (!g || g->state != D_GRANTED || g->fd < 0 || g->released)
		return false;
	/* while a lease is being broken, F_GETLEASE gives the type it is
	 * broken to: F_UNLCK, or F_RDLCK for a write lease a reader breaks */
	return fd == g->fd || (fd < 0 && fcntl(g->fd, F_GETLEASE) != (g->write ? F_WRLCK : F_RDLCK));
}

/* d->mu held: leases released for a holder's own write open, taken again
 * where that open is gone (the sweep's and the quiet tick's). */
static void rearm_unleased(struct tnfs_deleg *d)
{
	for (uint32_t i = 0; d->st.unleased && i < TNFS_MAX_DELEGS; i++)
		tnfs__deleg_rearm(d, d->byid[i]);
}

void tnfs_deleg_lease_break(struct tnfs_deleg *d, int fd)
{
	struct lapsed l = { 0 };
	pthread_mutex_lock(&d->mu);
	if (fd < 0 && d->st.held)
		d->st.lease_scans++;
	if (fd < 0)
		rearm_unleased(d);
	for (uint32_t i = 0; i < TNFS_MAX_DELEGS && d->st.held; i++)
		if (breaking(d->byid[i], fd))
			tnfs__lapsed_add(&l, d->byid[i]->clientid);
	if (l.n) { /* (rarely: the common once-a-second scan finds none) */
		pthread_mutex_unlock(&d->mu);
		tnfs__lapsed_ask(d, &l);
		pthread_mutex_lock(&d->mu);
	}
	for (uint32_t i = 0; l.n && i < TNFS_MAX_DELEGS && d->st.held; i++) {
		struct deleg *g = d->byid[i];
		if (breaking(g, fd)) {
			d->st.lease_breaks++;
			recall_or_revoke(d, g, &l);
		}
	}
	revoke_expired(d);
	pthread_mutex_unlock(&d->mu);
}

void tnfs_deleg_tick(struct tnfs_deleg *d)
{
	pthread_mutex_lock(&d->mu);
	revoke_expired(d);
	pthread_mutex_unlock(&d->mu);
}

/* The thread's tick: revocations, and leases released for a holder's
 * own write open taken again (both in tnfs_deleg_lease_break's sweep). */
static void tick_quiet(struct tnfs_deleg *d)
{
	pthread_mutex_lock(&d->mu);
	rearm_unleased(d);
	revoke_expired(d);
	pthread_mutex_unlock(&d->mu);
}

void tnfs_deleg_stats(struct tnfs_deleg *d, struct tnfs_deleg_stats *out)
{
	pthread_mutex_lock(&d->mu);
	*out = d->st;
	out->limit = d->max;
	out->limit_per_client = d->max_per_client;
	pthread_mutex_unlock(&d->mu);
}

static void *deleg_thread(void *arg)
{
	struct tnfs_deleg *d = arg;
	for (;;) {
		struct pollfd p[2] = { { d->sigfd, POLLIN, 0 }, { d->stopfd, POLLIN, 0 } };
		int n = poll(p, 2, 1000);
		if (n > 0 && (p[1].revents & POLLIN))
			return NULL;
		if (n > 0 && (p[0].revents & POLLIN)) {
			struct signalfd_siginfo si;
			if (read(d->sigfd, &si, sizeof(si)) == sizeof(si))
				tnfs_deleg_lease_break(d, si.ssi_signo == SIGIO ? -1 : (int)si.ssi_fd);
			continue;
		}
		/* once a second: revocations; a break whose real-time signal
		 * was lost (a full queue) comes as SIGIO, read above when it
		 * is blocked (tinynfs's main), else swept for here: every held
		 * lease, one F_GETLEASE each (lease_scans) */
		if (d->sigio)
			tick_quiet(d);
		else
			tnfs_deleg_lease_break(d, -1);
	}
}

int tnfs_deleg_start(struct tnfs_deleg *d)
{
	sigset_t cur, want;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	if (!sigismember(&cur, tnfs_deleg_signal()))
		return -EINVAL;
	sigemptyset(&want);
	sigaddset(&want, tnfs_deleg_signal());
	d->sigio = sigismember(&cur, SIGIO);
	if (d->sigio)
		sigaddset(&want, SIGIO);
	d->sigfd = signalfd(-1, &want, SFD_CLOEXEC | SFD_NONBLOCK);
	d->stopfd = eventfd(0, EFD_CLOEXEC);
	if (d->sigfd < 0 || d->stopfd < 0)
		return -errno;
	int rc = pthread_create(&d->thread, NULL, deleg_thread, d);
	if (rc)
		return -rc;
	pthread_mutex_lock(&d->mu);
	d->running = true;
	pthread_mutex_unlock(&d->mu);
	return 0;
}
