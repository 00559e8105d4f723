/* SPDX-License-Identifier: BSD-2-Clause */
/* Byte-range locks: LOCK, LOCKT, LOCKU; see state.h. */
#include "state_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* --- byte-range locks ------------------------------------------------------ */

static uint32_t lock_range(uint64_t offset, uint64_t length, uint64_t *end)
{
	if (length == 0)
		return NFS4ERR_INVAL;
	if (length == NFS4_UINT64_MAX) {
		*end = NFS4_UINT64_MAX;
		return NFS4_OK;
	}
	if (length - 1 > NFS4_UINT64_MAX - offset)
		return NFS4ERR_INVAL;
	*end = offset + length - 1;
	return NFS4_OK;
}

static bool is_write(uint32_t t)
{
	return t == WRITE_LT || t == WRITEW_LT;
}

static void fill_denied(const struct lock *l, union nfs4_res *res)
{
	struct nfs4_lock_denied *d = &res->lock.denied;
	d->offset = l->start;
	d->length = l->end == NFS4_UINT64_MAX ? NFS4_UINT64_MAX : l->end - l->start + 1;
	d->type = l->type;
	d->clientid = l->stid->owner->clientid;
	d->owner_len = l->stid->owner->len;
	memcpy(d->owner, l->stid->owner->bytes, d->owner_len);
}

/* A lock of another owner that conflicts with [start, end] of type t. */
static const struct lock *conflict(const struct file *f, const struct owner *me,
				   uint32_t t, uint64_t start, uint64_t end)
{
	for (const struct lock *l = f->locks; l; l = l->next) {
		if (l->stid->owner == me || l->end < start || l->start > end)
			continue;
		if (is_write(t) || is_write(l->type))
			return l;
	}
	return NULL;
}

/* Removes [start, end] from s's locks, splitting where needed; cl (s's
 * client, or NULL) counts its lock ranges.  NFS4_OK; NFS4ERR_DELAY out of
 * memory; NFS4ERR_LOCK_RANGE when a split would take cl beyond its share
 * of lock ranges (RFC 8881 18.12.4: a server may refuse a sub-range
 * unlock).  Nothing changed on an error. */
static uint32_t unlock_range(struct tnfs_state *st, struct client *cl, struct file *f,
			     struct stid *s, uint64_t start, uint64_t end)
{
	/* reserve a node first, so a split cannot fail half way */
	struct lock *spare = malloc(sizeof(*spare));
	if (!spare)
		return NFS4ERR_DELAY;
	for (struct lock **pp = &f->locks; *pp;) {
		struct lock *l = *pp;
		if (l->stid != s || l->end < start || l->start > end) {
			pp = &l->next;
			continue;
		}
		if (l->start < start && l->end > end) { /* split in two */
			/* the one lock of s overlapping: nothing changed yet */
			if ((cl && cl->nlocks >= st->lim.locks_per_client) ||
			    st->nlocks >= st->lim.locks) {
				free(spare);
				return NFS4ERR_LOCK_RANGE;
			}
			tnfs__count_locks(st, cl, 1);
			*spare = *l;
			spare->start = end + 1;
			l->end = start - 1;
			spare->next = l->next;
			l->next = spare;
			spare = NULL;
			break; /* a lock of s contains [start, end]: nothing else overlaps */
		}
		if (l->start < start) {
			l->end = start - 1;
			pp = &l->next;
		} else if (l->end > end) {
			l->start = end + 1;
			pp = &l->next;
		} else {
			*pp = l->next;
			free(l);
			tnfs__count_locks(st, cl, -1);
		}
	}
	free(spare);
	return NFS4_OK;
}

/* A new lock range of s: at most two more for its client (the range and
 * the split of an older one around it); beyond its share, NFS4ERR_DELAY
 * to that client alone. */
static uint32_t add_lock(struct tnfs_state *st, struct file *f, struct stid *s,
			 uint32_t t, uint64_t start, uint64_t end)
{
	struct client *cl = tnfs__find_client(st, s->clientid);
	if ((cl && cl->nlocks + 2 > st->lim.locks_per_client) || st->nlocks + 2 > st->lim.locks)
		return NFS4ERR_DELAY;
	struct lock *n = malloc(sizeof(*n));
	if (!n)
		return NFS4ERR_DELAY;
	uint32_t status = unlock_range(st, cl, f, s, start, end);
	if (status != NFS4_OK) {
		free(n);
		return status;
	}
	tnfs__count_locks(st, cl, 1);
	n->stid = s;
	n->type = is_write(t) ? WRITE_LT : READ_LT;
	n->start = start;
	n->end = end;
	n->next = f->locks;
	f->locks = n;
	return NFS4_OK;
}

static bool valid_locktype(uint32_t t)
{
	return t >= READ_LT && t <= WRITEW_LT;
}

uint32_t tnfs_state_lock(struct tnfs_state *st, uint64_t clientid,
			 struct tnfs_file_key key, const union nfs4_args *a,
			 union nfs4_res *res)
{
	uint64_t end;
	if (!valid_locktype(a->lock.type))
		return NFS4ERR_INVAL;
	uint32_t status = lock_range(a->lock.offset, a->lock.length, &end);
	if (status != NFS4_OK)
		return status;
	pthread_mutex_lock(&st->mu);
	struct stid *s = NULL, *open;
	if ((status = tnfs__lock_allowed(st, clientid, a->lock.reclaim, false)) != NFS4_OK)
		goto out;
	if (a->lock.new_owner) {
		status = tnfs__find_stid(st, clientid, &a->lock.stateid, &open);
		if (status != NFS4_OK)
			goto out;
		if (open->type != STID_OPEN || !tnfs__same_file(open, key)) {
			status = NFS4ERR_BAD_STATEID;
			goto out;
		}
		/* the owner's clientid field is not how a 4.1 server knows
		 * the client (RFC 8881 18.10.3): the session is */
		struct owner *o = tnfs__get_owner(st, clientid, true, a->lock.owner.owner.data,
					    a->lock.owner.owner.len, true);
		if (!o) {
			status = NFS4ERR_DELAY;
			goto out;
		}
		for (struct stid *l = open->file->stids; l && !s; l = l->fnext)
			if (l->type == STID_LOCK && l->owner == o)
				s = l;
		if (!s) {
			s = tnfs__new_stid(st, STID_LOCK, clientid, o, open->file);
			if (!s) {
				if (o->refs == 0) {
					o->refs = 1;
					tnfs__put_owner(st, o);
				}
				status = NFS4ERR_DELAY; /* this client's share, or the table, is full */
				goto out;
			}
			s->open = open;
			s->seqid = 0; /* incremented below to 1 */
		}
	} else {
		status = tnfs__find_stid(st, clientid, &a->lock.stateid, &s);
		if (status != NFS4_OK)
			goto out;
		if (s->type != STID_LOCK || !tnfs__same_file(s, key)) {
			status = NFS4ERR_BAD_STATEID;
			goto out;
		}
	}
	if (is_write(a->lock.type) && !(s->open->access & OPEN4_SHARE_ACCESS_WRITE)) {
		status = NFS4ERR_OPENMODE;
		goto undo;
	}
	const struct lock *c;
	while ((c = conflict(s->file, s->owner, a->lock.type, a->lock.offset, end)) &&
	       c->stid->clientid != clientid && tnfs__reap_holder(st, c->stid->clientid))
		; /* an expired holder's locks are gone: look again */
	if (c) {
		fill_denied(c, res);
		status = NFS4ERR_DENIED;
		goto undo;
	}
	status = add_lock(st, s->file, s, a->lock.type, a->lock.offset, end);
	if (status != NFS4_OK)
		goto undo;
	s->seqid++;
	tnfs__make_stateid(st, s, &res->lock.stateid);
	goto out;
undo:
	if (s->seqid == 0) /* created for this request */
		tnfs__free_stid(st, s);
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_lockt(struct tnfs_state *st, uint64_t clientid,
			  struct tnfs_file_key key, const union nfs4_args *a,
			  union nfs4_res *res)
{
	uint64_t end;
	if (!valid_locktype(a->lockt.type))
		return NFS4ERR_INVAL;
	uint32_t status = lock_range(a->lockt.offset, a->lockt.length, &end);
	if (status != NFS4_OK)
		return status;
	pthread_mutex_lock(&st->mu);
	if ((status = tnfs__lock_allowed(st, clientid, false, false)) != NFS4_OK) {
		pthread_mutex_unlock(&st->mu);
		return status;
	}
	struct file *f = tnfs__get_file(st, key, false);
	struct owner *o = tnfs__get_owner(st, clientid, true, a->lockt.owner.owner.data,
				    a->lockt.owner.owner.len, false);
	const struct lock *c = NULL;
	if (f) {
		f->refs++; /* reaping an expired holder must not free the file */
		while ((c = conflict(f, o, a->lockt.type, a->lockt.offset, end)) &&
		       c->stid->clientid != clientid && tnfs__reap_holder(st, c->stid->clientid))
			;
		if (c) {
			fill_denied(c, res);
			status = NFS4ERR_DENIED;
		}
		tnfs__put_file(st, f);
	}
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_locku(struct tnfs_state *st, uint64_t clientid,
			  struct tnfs_file_key key, const union nfs4_args *a,
			  union nfs4_res *res)
{
	uint64_t end;
	if (!valid_locktype(a->locku.type))
		return NFS4ERR_INVAL;
	uint32_t status = lock_range(a->locku.offset, a->locku.length, &end);
	if (status != NFS4_OK)
		return status;
	pthread_mutex_lock(&st->mu);
	struct stid *s;
	status = tnfs__find_stid(st, clientid, &a->locku.stateid, &s);
	if (status != NFS4_OK)
		goto out;
	if (s->type != STID_LOCK || !tnfs__same_file(s, key)) {
		status = NFS4ERR_BAD_STATEID;
		goto out;
	}
	status = unlock_range(st, tnfs__find_client(st, clientid), s->file, s,
			      a->locku.offset, end);
	if (status != NFS4_OK)
		goto out;
	s->seqid++;
	tnfs__make_stateid(st, s, &res->stateid);
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}
