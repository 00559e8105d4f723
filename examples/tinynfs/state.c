/* SPDX-License-Identifier: BSD-2-Clause */
/* Clients, owners, files, stateids and opens; see state.h (the sessions
 * are in state_session.c, the byte-range locks in state_lock.c). */
#include "state_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "grace.h"

static uint64_t mono_seconds(void *arg)
{
	(void)arg;
	/* seconds are all a lease needs: the coarse clock is read in the
	 * vDSO even where the fine one is a system call (an HPET) */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec;
}

void tnfs_state_set_clock(struct tnfs_state *st, tnfs_clock_fn *fn, void *arg)
{
	pthread_mutex_lock(&st->mu);
	st->clock = fn ? fn : mono_seconds;
	st->clock_arg = arg;
	if (st->grace)
		tnfs_grace_restart(st->grace, tnfs__now(st));
	pthread_mutex_unlock(&st->mu);
}

uint64_t tnfs__now(const struct tnfs_state *st)
{
	return st->clock(st->clock_arg);
}

/* The defaults of struct tnfs_state_limits (state.h). */
static void default_limits(struct tnfs_state_limits *l)
{
	struct rlimit rl;
	rlim_t n = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		n = rl.rlim_cur;
	if (n > UINT_MAX)
		n = UINT_MAX;
	rlim_t reserve = n / 4 > 64 ? n / 4 : 64;
	l->fds = n > reserve ? (unsigned)(n - reserve) : 0;
	l->fds_per_client = l->fds / 4 ? l->fds / 4 : 1;
	l->stateids_per_client = TNFS_MAX_STATEIDS_PER_CLIENT;
	l->locks_per_client = TNFS_MAX_LOCKS_PER_CLIENT;
	l->locks = TNFS_MAX_LOCKS;
	l->drc_bytes = TNFS_DRC_BUDGET;
}

void tnfs_state_get_limits(struct tnfs_state *st, struct tnfs_state_limits *out)
{
	pthread_mutex_lock(&st->mu);
	*out = st->lim;
	pthread_mutex_unlock(&st->mu);
}

void tnfs_state_set_limits(struct tnfs_state *st, const struct tnfs_state_limits *l)
{
	pthread_mutex_lock(&st->mu);
	st->lim = *l;
	pthread_mutex_unlock(&st->mu);
}

void tnfs_state_usage(struct tnfs_state *st, struct tnfs_state_usage *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&st->mu);
	for (const struct client *c = st->clients; c; c = c->next)
		out->unconfirmed += !c->confirmed;
	out->clients = st->nclients;
	out->sessions = st->nsessions;
	out->stateids = st->nstids;
	out->fds = st->nfds;
	out->locks = st->nlocks;
	out->drc_reserved = st->drc_reserved;
	out->drc_held = st->drc_held;
	pthread_mutex_unlock(&st->mu);
}

int tnfs_state_new(const uint8_t boot[8], struct tnfs_state **out)
{
	struct tnfs_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->stids = calloc(TNFS_MAX_STATEIDS, sizeof(*st->stids));
	if (!st->stids) {
		free(st);
		return -ENOMEM;
	}
	pthread_mutex_init(&st->mu, NULL);
	memcpy(st->boot, boot, 8);
	st->boot32 = (uint32_t)boot[0] << 24 ^ (uint32_t)boot[1] << 16 ^
		     (uint32_t)boot[2] << 8 ^ boot[3] ^
		     ((uint32_t)boot[4] << 24 | (uint32_t)boot[5] << 16 |
		      (uint32_t)boot[6] << 8 | boot[7]);
	st->gen = 1;
	st->clock = mono_seconds;
	default_limits(&st->lim);
	*out = st;
	return 0;
}

static void purge_client_state(struct tnfs_state *st, const struct client *c)
{
	uint64_t clientid = c->clientid;
	for (uint32_t i = 0; c->nstids && i < TNFS_MAX_STATEIDS; i++) {
		struct stid *s = st->stids[i];
		if (s && s->clientid == clientid && s->type == STID_LOCK)
			tnfs__free_stid(st, s);
	}
	for (uint32_t i = 0; c->nstids && i < TNFS_MAX_STATEIDS; i++) {
		struct stid *s = st->stids[i];
		if (s && s->clientid == clientid)
			tnfs__free_stid(st, s);
	}
	for (struct session **pp = &st->sessions; *pp;) {
		struct session *se = *pp;
		if (se->clientid == clientid) {
			*pp = se->next;
			tnfs__session_free(st, se);
		} else {
			pp = &se->next;
		}
	}
}

void tnfs__remove_client(struct tnfs_state *st, struct client *c)
{
	if (st->client_gone)
		st->client_gone(st->client_gone_arg, c->clientid);
	tnfs__grace_forget(st, c);
	purge_client_state(st, c);
	for (struct client **pp = &st->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	st->nclients--;
	free(c);
}

void tnfs_state_set_client_gone(struct tnfs_state *st, tnfs_client_gone_fn *fn, void *arg)
{
	pthread_mutex_lock(&st->mu);
	st->client_gone = fn;
	st->client_gone_arg = arg;
	pthread_mutex_unlock(&st->mu);
}

void tnfs_state_free(struct tnfs_state *st)
{
	if (!st)
		return;
	st->client_gone = NULL;
	tnfs__grace_free(st); /* the record keeps the clients: not removed */
	while (st->clients)
		tnfs__remove_client(st, st->clients);
	free(st->stids);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

uint32_t tnfs_state_max_owner_len(struct tnfs_state *st)
{
	return atomic_load_explicit(&st->max_owner_len, memory_order_relaxed);
}

bool tnfs__lapsed(const struct tnfs_state *st, const struct client *c)
{
	return tnfs__now(st) - c->renewed > TNFS_LEASE_TIME;
}

bool tnfs_state_client_lapsed(struct tnfs_state *st, uint64_t clientid)
{
	pthread_mutex_lock(&st->mu);
	const struct client *c = tnfs__find_client(st, clientid);
	bool lapsed = !c || tnfs__lapsed(st, c);
	pthread_mutex_unlock(&st->mu);
	return lapsed;
}

/* A lapsed client goes now, rather than when someone conflicts with it:
 * it holds nothing others could want, or it has been a courtesy client
 * for long enough (as Linux's nfsd keeps them a day at most). */
static bool gone(const struct tnfs_state *st, const struct client *c)
{
	if (!tnfs__lapsed(st, c))
		return false;
	return c->nstids == 0 || tnfs__now(st) - c->renewed > TNFS_COURTESY_TIME;
}

void tnfs__expire_clients(struct tnfs_state *st)
{
	tnfs__grace_batch(st, true); /* one record write for them all */
	for (struct client *c = st->clients, *next; c; c = next) {
		next = c->next;
		if (gone(st, c))
			tnfs__remove_client(st, c);
	}
	tnfs__grace_batch(st, false);
}

struct client *tnfs__live_client(struct tnfs_state *st, uint64_t id)
{
	struct client *c = tnfs__find_client(st, id);
	if (c && gone(st, c)) {
		tnfs__remove_client(st, c);
		return NULL;
	}
	return c;
}

struct client *tnfs__find_client(struct tnfs_state *st, uint64_t id)
{
	for (struct client *c = st->clients; c; c = c->next)
		if (c->clientid == id)
			return c;
	return NULL;
}

bool tnfs__reap_holder(struct tnfs_state *st, uint64_t clientid)
{
	struct client *c = tnfs__find_client(st, clientid);
	if (!c || !tnfs__lapsed(st, c))
		return false;
	tnfs__remove_client(st, c);
	return true;
}

/* --- owners, files, stateids ------------------------------------------- */

struct owner *tnfs__get_owner(struct tnfs_state *st, uint64_t clientid, bool lock,
			       const uint8_t *bytes, uint32_t len, bool create)
{
	for (struct owner *o = st->owners; o; o = o->next)
		if (o->clientid == clientid && o->lock == lock && o->len == len &&
		    memcmp(o->bytes, bytes, len) == 0)
			return o;
	if (!create || len > NFS4_OPAQUE_LIMIT)
		return NULL;
	struct owner *o = calloc(1, sizeof(*o) + len);
	if (!o)
		return NULL;
	o->clientid = clientid;
	o->lock = lock;
	o->len = len;
	memcpy(o->bytes, bytes, len);
	o->next = st->owners;
	st->owners = o;
	if (lock && len > atomic_load_explicit(&st->max_owner_len, memory_order_relaxed))
		atomic_store_explicit(&st->max_owner_len, len, memory_order_relaxed);
	return o;
}

void tnfs__put_owner(struct tnfs_state *st, struct owner *o)
{
	if (--o->refs)
		return;
	for (struct owner **pp = &st->owners; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	free(o);
}

struct file *tnfs__get_file(struct tnfs_state *st, struct tnfs_file_key key, bool create)
{
	for (struct file *f = st->files; f; f = f->next)
		if (f->key.dev == key.dev && f->key.ino == key.ino)
			return f;
	if (!create)
		return NULL;
	struct file *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->key = key;
	f->next = st->files;
	st->files = f;
	return f;
}

void tnfs__put_file(struct tnfs_state *st, struct file *f)
{
	if (--f->refs)
		return;
	for (struct file **pp = &st->files; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	free(f);
}

static void drop_locks_of(struct tnfs_state *st, struct client *c, struct file *f,
			  struct stid *s)
{
	for (struct lock **pp = &f->locks; *pp;) {
		struct lock *l = *pp;
		if (l->stid == s) {
			*pp = l->next;
			free(l);
			tnfs__count_locks(st, c, -1);
		} else {
			pp = &l->next;
		}
	}
}

bool tnfs__holds_locks(const struct stid *s)
{
	for (const struct lock *l = s->file->locks; l; l = l->next)
		if (l->stid == s)
			return true;
	return false;
}

struct stid *tnfs__new_stid(struct tnfs_state *st, int type, uint64_t clientid,
			     struct owner *o, struct file *f)
{
	struct client *c = tnfs__find_client(st, clientid);
	if (!c || c->nstids >= st->lim.stateids_per_client)
		return NULL;
	for (uint32_t n = 0; n < TNFS_MAX_STATEIDS; n++) {
		uint32_t i = (st->stid_hint + n) % TNFS_MAX_STATEIDS;
		if (st->stids[i])
			continue;
		struct stid *s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		s->idx = i;
		s->gen = st->gen++;
		s->seqid = 1;
		s->type = type;
		s->clientid = clientid;
		s->owner = o;
		o->refs++;
		s->file = f;
		f->refs++;
		s->fnext = f->stids;
		f->stids = s;
		s->fd = -1;
		st->stids[i] = s;
		st->stid_hint = i + 1;
		c->nstids++;
		st->nstids++;
		return s;
	}
	return NULL;
}

void tnfs__free_stid(struct tnfs_state *st, struct stid *s)
{
	if (s->type == STID_OPEN) {
		/* lock stateids hanging off this open go with it */
		for (bool again = true; again;) {
			again = false;
			for (struct stid *l = s->file->stids; l; l = l->fnext)
				if (l->type == STID_LOCK && l->open == s) {
					tnfs__free_stid(st, l);
					again = true;
					break;
				}
		}
	}
	for (struct stid **pp = &s->file->stids; *pp; pp = &(*pp)->fnext)
		if (*pp == s) {
			*pp = s->fnext;
			break;
		}
	struct client *c = tnfs__find_client(st, s->clientid);
	drop_locks_of(st, c, s->file, s);
	if (s->fd >= 0) {
		close(s->fd);
		st->nfds--;
		if (c)
			c->nfds--;
	}
	if (c)
		c->nstids--;
	st->nstids--;
	st->stids[s->idx] = NULL;
	tnfs__put_owner(st, s->owner);
	tnfs__put_file(st, s->file);
	free(s);
}

void tnfs__make_stateid(const struct tnfs_state *st, const struct stid *s,
			 struct nfs4_stateid *out)
{
	out->seqid = s->seqid;
	uint32_t w[3] = { s->idx, s->gen, st->boot32 };
	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 4; b++)
			out->other[4 * i + b] = (uint8_t)(w[i] >> (24 - 8 * b));
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool tnfs_stateid_is_special(const struct nfs4_stateid *sid)
{
	static const uint8_t zeros[NFS4_OTHER_SIZE];
	static const uint8_t ones[NFS4_OTHER_SIZE] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	return (sid->seqid == 0 && memcmp(sid->other, zeros, NFS4_OTHER_SIZE) == 0) ||
	       (sid->seqid == UINT32_MAX && memcmp(sid->other, ones, NFS4_OTHER_SIZE) == 0);
}

uint32_t tnfs__find_stid(struct tnfs_state *st, uint64_t clientid,
			  const struct nfs4_stateid *sid, struct stid **out)
{
	uint32_t idx = rd32(sid->other), gen = rd32(sid->other + 4);
	if (rd32(sid->other + 8) != st->boot32 || idx >= TNFS_MAX_STATEIDS)
		return NFS4ERR_BAD_STATEID;
	struct stid *s = st->stids[idx];
	if (!s || s->gen != gen || s->clientid != clientid)
		return NFS4ERR_BAD_STATEID;
	if (sid->seqid != 0 && sid->seqid != s->seqid)
		return sid->seqid < s->seqid ? NFS4ERR_OLD_STATEID : NFS4ERR_BAD_STATEID;
	*out = s;
	return NFS4_OK;
}

bool tnfs__same_file(const struct stid *s, struct tnfs_file_key key)
{
	return s->file->key.dev == key.dev && s->file->key.ino == key.ino;
}

/* --- opens ---------------------------------------------------------------- */

/* May this client's open stateid hold one more descriptor?  Each client
 * has a share; all together leave the reserve (struct tnfs_state_limits)
 * that the others' PUTFH, LOOKUP and connections need. */
static uint32_t fd_room(struct tnfs_state *st, uint64_t clientid, int fd)
{
	if (fd < 0)
		return NFS4_OK;
	const struct client *c = tnfs__find_client(st, clientid);
	if (!c || c->nfds >= st->lim.fds_per_client || st->nfds >= st->lim.fds)
		return NFS4ERR_DELAY;
	return NFS4_OK;
}

static void count_fd(struct tnfs_state *st, uint64_t clientid, int fd)
{
	if (fd < 0)
		return;
	struct client *c = tnfs__find_client(st, clientid);
	if (c)
		c->nfds++;
	st->nfds++;
}

uint32_t tnfs_state_open(struct tnfs_state *st, uint64_t clientid,
			 const uint8_t *owner, uint32_t owner_len,
			 struct tnfs_file_key key, uint32_t access, uint32_t deny,
			 int fd, struct nfs4_stateid *out)
{
	uint32_t status = NFS4_OK;
	pthread_mutex_lock(&st->mu);
	struct file *f = tnfs__get_file(st, key, true);
	struct owner *o = tnfs__get_owner(st, clientid, false, owner, owner_len, true);
	if (!f || !o) {
		status = NFS4ERR_DELAY;
		goto fail;
	}
	struct stid *mine;
	f->refs++; /* reaping an expired holder must not free the file */
restart:
	mine = NULL;
	for (struct stid *s = f->stids; s; s = s->fnext) {
		if (s->type != STID_OPEN)
			continue;
		if (s->owner == o) {
			mine = s;
			continue;
		}
		if ((s->deny & access) || (s->access & deny)) {
			if (tnfs__reap_holder(st, s->clientid))
				goto restart;
			f->refs--;
			status = NFS4ERR_SHARE_DENIED;
			goto fail;
		}
	}
	f->refs--;
	if (!mine) {
		status = fd_room(st, clientid, fd);
		if (status != NFS4_OK)
			goto fail;
		mine = tnfs__new_stid(st, STID_OPEN, clientid, o, f);
		if (!mine) {
			status = NFS4ERR_DELAY; /* this client's share, or the table, is full */
			goto fail;
		}
		mine->fd = fd;
		count_fd(st, clientid, fd);
	} else {
		mine->seqid++;
		if ((access & ~mine->access) && fd >= 0) {
			if (mine->fd >= 0)
				close(mine->fd); /* the new descriptor has the wider access */
			else
				count_fd(st, clientid, fd);
			mine->fd = fd;
		} else if (fd >= 0) {
			close(fd);
		}
	}
	mine->access |= access;
	mine->deny |= deny;
	tnfs__make_stateid(st, mine, out);
	goto out;
fail:
	if (fd >= 0)
		close(fd);
	if (f && f->refs == 0) {
		f->refs = 1;
		tnfs__put_file(st, f);
	}
	if (o && o->refs == 0) {
		o->refs = 1;
		tnfs__put_owner(st, o);
	}
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_close(struct tnfs_state *st, uint64_t clientid,
			  const struct nfs4_stateid *sid, struct tnfs_file_key key,
			  struct nfs4_stateid *out)
{
	pthread_mutex_lock(&st->mu);
	struct stid *s;
	uint32_t status = tnfs__find_stid(st, clientid, sid, &s);
	if (status != NFS4_OK)
		goto out;
	if (s->type != STID_OPEN || !tnfs__same_file(s, key)) {
		status = NFS4ERR_BAD_STATEID;
		goto out;
	}
	for (struct stid *l = s->file->stids; l; l = l->fnext) {
		if (l->type == STID_LOCK && l->open == s && tnfs__holds_locks(l)) {
			status = NFS4ERR_LOCKS_HELD;
			goto out;
		}
	}
	tnfs__free_stid(st, s);
	/* RFC 8881 18.2.4: answer with the invalid special stateid */
	out->seqid = UINT32_MAX;
	memset(out->other, 0, NFS4_OTHER_SIZE);
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_downgrade(struct tnfs_state *st, uint64_t clientid,
			      const struct nfs4_stateid *sid,
			      struct tnfs_file_key key, uint32_t access,
			      uint32_t deny, struct nfs4_stateid *out)
{
	pthread_mutex_lock(&st->mu);
	struct stid *s;
	uint32_t status = tnfs__find_stid(st, clientid, sid, &s);
	if (status != NFS4_OK)
		goto out;
	if (s->type != STID_OPEN || !tnfs__same_file(s, key)) {
		status = NFS4ERR_BAD_STATEID;
		goto out;
	}
	/* the new modes must be subsets of the current ones */
	if ((access & ~s->access) || (deny & ~s->deny) || access == 0) {
		status = NFS4ERR_INVAL;
		goto out;
	}
	s->access = access;
	s->deny = deny;
	s->seqid++;
	tnfs__make_stateid(st, s, out);
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_io_fd(struct tnfs_state *st, uint64_t clientid,
			  const struct nfs4_stateid *sid, struct tnfs_file_key key,
			  bool need_write, int *fd)
{
	*fd = -1;
	if (tnfs_stateid_is_special(sid))
		return NFS4_OK;
	pthread_mutex_lock(&st->mu);
	struct stid *s;
	uint32_t status = tnfs__find_stid(st, clientid, sid, &s);
	if (status != NFS4_OK)
		goto out;
	if (!tnfs__same_file(s, key)) {
		status = NFS4ERR_BAD_STATEID;
		goto out;
	}
	struct stid *o = s->type == STID_LOCK ? s->open : s;
	if (need_write && !(o->access & OPEN4_SHARE_ACCESS_WRITE)) {
		status = NFS4ERR_OPENMODE;
		goto out;
	}
	*fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
	if (*fd < 0)
		status = NFS4ERR_DELAY;
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_test_stateid(struct tnfs_state *st, uint64_t clientid,
				 const struct nfs4_stateid *sid)
{
	if (tnfs_stateid_is_special(sid))
		return NFS4ERR_BAD_STATEID;
	pthread_mutex_lock(&st->mu);
	struct stid *s;
	uint32_t status = tnfs__find_stid(st, clientid, sid, &s);
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_free_stateid(struct tnfs_state *st, uint64_t clientid,
				 const struct nfs4_stateid *sid)
{
	pthread_mutex_lock(&st->mu);
	struct stid *s;
	uint32_t status = tnfs__find_stid(st, clientid, sid, &s);
	if (status == NFS4_OK) {
		if (s->type == STID_OPEN || tnfs__holds_locks(s))
			status = NFS4ERR_LOCKS_HELD;
		else
			tnfs__free_stid(st, s);
	}
	pthread_mutex_unlock(&st->mu);
	return status;
}
