/* SPDX-License-Identifier: BSD-2-Clause */
/* Clients, sessions, stateids and byte-range locks; see state.h. */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct slot {
	uint32_t seqid;
	bool busy, cached;
	size_t len, cap; /* reply: len bytes cached in cap allocated */
	uint8_t *reply;
};

struct session {
	uint8_t id[NFS4_SESSIONID_SIZE];
	uint64_t clientid;
	struct nfs4_channel_attrs fore;
	struct slot slots[TNFS_MAX_SLOTS];
	struct session *next;
};

struct owner {
	uint64_t clientid;
	bool lock; /* lock owner (else open owner) */
	unsigned refs;
	struct owner *next;
	uint32_t len;
	uint8_t bytes[]; /* len bytes */
};

struct file {
	struct tnfs_file_key key;
	unsigned refs;
	struct lock *locks;
	struct stid *stids; /* the open and lock stateids of this file */
	struct file *next;
};

struct lock {
	struct stid *stid; /* the lock stateid (its owner) */
	uint32_t type;	   /* READ_LT or WRITE_LT */
	uint64_t start, end; /* inclusive */
	struct lock *next;
};

enum { STID_OPEN = 1, STID_LOCK = 2 };

struct stid {
	uint32_t idx, gen, seqid;
	int type;
	uint64_t clientid;
	struct owner *owner;
	struct file *file;
	uint32_t access, deny; /* open */
	int fd;		       /* open */
	struct stid *open;     /* lock: its open */
	struct stid *fnext;    /* next stateid of the same file */
};

struct client {
	uint64_t clientid;
	uint8_t verf[8];
	uint32_t owner_len;
	uint8_t owner[NFS4_OPAQUE_LIMIT];
	bool confirmed, reclaim_done;
	uint32_t cs_seq; /* the CREATE_SESSION seqid expected next */
	bool cs_cached;
	uint32_t cs_status;
	union nfs4_res cs_res;
	unsigned nsessions;
	uint64_t renewed; /* clock seconds of the last SEQUENCE or CREATE_SESSION */
	struct client *next;
};

struct tnfs_state {
	pthread_mutex_t mu;
	uint8_t boot[8];
	uint32_t boot32;
	uint32_t next_client, next_session, gen;
	unsigned nclients;
	struct client *clients;
	struct session *sessions;
	struct owner *owners;
	struct file *files;
	struct stid **stids; /* TNFS_MAX_STATEIDS, NULL = free */
	uint32_t stid_hint;
	/* longest lock owner seen: read without the lock by every
	 * operation's estimate (tnfs_state_max_owner_len) */
	_Atomic uint32_t max_owner_len;
	tnfs_clock_fn *clock;
	void *clock_arg;
};

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
	pthread_mutex_unlock(&st->mu);
}

static uint64_t now(const struct tnfs_state *st)
{
	return st->clock(st->clock_arg);
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
	st->next_client = 1;
	st->next_session = 1;
	st->gen = 1;
	st->clock = mono_seconds;
	*out = st;
	return 0;
}

static void free_stid(struct tnfs_state *st, struct stid *s);

static void purge_client_state(struct tnfs_state *st, uint64_t clientid)
{
	for (uint32_t i = 0; i < TNFS_MAX_STATEIDS; i++) {
		struct stid *s = st->stids[i];
		if (s && s->clientid == clientid && s->type == STID_LOCK)
			free_stid(st, s);
	}
	for (uint32_t i = 0; i < TNFS_MAX_STATEIDS; i++) {
		struct stid *s = st->stids[i];
		if (s && s->clientid == clientid)
			free_stid(st, s);
	}
	for (struct session **pp = &st->sessions; *pp;) {
		struct session *se = *pp;
		if (se->clientid == clientid) {
			*pp = se->next;
			for (unsigned i = 0; i < TNFS_MAX_SLOTS; i++)
				free(se->slots[i].reply);
			free(se);
		} else {
			pp = &se->next;
		}
	}
}

static void remove_client(struct tnfs_state *st, struct client *c)
{
	purge_client_state(st, c->clientid);
	for (struct client **pp = &st->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	st->nclients--;
	free(c);
}

void tnfs_state_free(struct tnfs_state *st)
{
	if (!st)
		return;
	while (st->clients)
		remove_client(st, st->clients);
	free(st->stids);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

uint32_t tnfs_state_max_owner_len(struct tnfs_state *st)
{
	return atomic_load_explicit(&st->max_owner_len, memory_order_relaxed);
}

static bool expired(const struct tnfs_state *st, const struct client *c)
{
	return now(st) - c->renewed > TNFS_LEASE_TIME;
}

/* Removes every client whose lease has run out. */
static void expire_clients(struct tnfs_state *st)
{
	for (struct client *c = st->clients, *next; c; c = next) {
		next = c->next;
		if (expired(st, c))
			remove_client(st, c);
	}
}

static struct client *find_client(struct tnfs_state *st, uint64_t id)
{
	for (struct client *c = st->clients; c; c = c->next)
		if (c->clientid == id)
			return c;
	return NULL;
}

/* A conflicting holder whose lease ran out loses its state (RFC 8881
 * 8.3: the server may release an expired client's locks when another
 * client needs them).  True if it was removed. */
static bool reap_holder(struct tnfs_state *st, uint64_t clientid)
{
	struct client *c = find_client(st, clientid);
	if (!c || !expired(st, c))
		return false;
	remove_client(st, c);
	return true;
}

static struct session *find_session(struct tnfs_state *st, const uint8_t id[16])
{
	for (struct session *s = st->sessions; s; s = s->next)
		if (memcmp(s->id, id, NFS4_SESSIONID_SIZE) == 0)
			return s;
	return NULL;
}

/* --- clients and sessions ---------------------------------------------- */

uint32_t tnfs_state_exchange_id(struct tnfs_state *st, const uint8_t verf[8],
				const uint8_t *owner, uint32_t owner_len,
				uint32_t flags, uint32_t sp_how,
				uint64_t *clientid, uint32_t *seqid,
				uint32_t *rflags)
{
	if (flags & ~(uint32_t)EXCHGID4_FLAG_MASK_A)
		return NFS4ERR_INVAL;
	if (sp_how != SP4_NONE)
		return NFS4ERR_NOTSUPP;
	if (owner_len > NFS4_OPAQUE_LIMIT)
		return NFS4ERR_INVAL;
	uint32_t status = NFS4_OK;
	pthread_mutex_lock(&st->mu);
	expire_clients(st);
	struct client *conf = NULL, *unconf = NULL;
	for (struct client *c = st->clients; c; c = c->next) {
		if (c->owner_len != owner_len || memcmp(c->owner, owner, owner_len) != 0)
			continue;
		if (c->confirmed)
			conf = c;
		else
			unconf = c;
	}
	if (flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A) {
		if (!conf)
			status = NFS4ERR_NOENT;
		else if (memcmp(conf->verf, verf, 8) != 0)
			status = NFS4ERR_NOT_SAME;
		else
			goto found;
		goto out;
	}
	if (conf && memcmp(conf->verf, verf, 8) == 0)
		goto found;
	if (unconf)
		remove_client(st, unconf);
	if (st->nclients >= TNFS_MAX_CLIENTS) {
		status = NFS4ERR_SERVERFAULT;
		goto out;
	}
	struct client *c = calloc(1, sizeof(*c));
	if (!c) {
		status = NFS4ERR_DELAY;
		goto out;
	}
	c->clientid = (uint64_t)st->boot32 << 32 | st->next_client++;
	memcpy(c->verf, verf, 8);
	c->owner_len = owner_len;
	memcpy(c->owner, owner, owner_len);
	c->cs_seq = 1;
	c->renewed = now(st);
	c->next = st->clients;
	st->clients = c;
	st->nclients++;
	*clientid = c->clientid;
	*seqid = c->cs_seq;
	*rflags = EXCHGID4_FLAG_USE_NON_PNFS;
	goto out;
found:
	*clientid = conf->clientid;
	*seqid = conf->cs_seq;
	*rflags = EXCHGID4_FLAG_USE_NON_PNFS | EXCHGID4_FLAG_CONFIRMED_R;
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

static uint32_t clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

uint32_t tnfs_state_create_session(struct tnfs_state *st, uint64_t clientid,
				   uint32_t seqid,
				   const struct nfs4_channel_attrs *fore,
				   const struct nfs4_channel_attrs *back,
				   union nfs4_res *res)
{
	uint32_t status = NFS4_OK;
	memset(res, 0, sizeof(*res));
	pthread_mutex_lock(&st->mu);
	struct client *c = find_client(st, clientid);
	if (!c) {
		status = NFS4ERR_STALE_CLIENTID;
		goto out;
	}
	if (seqid + 1 == c->cs_seq && c->cs_cached) {
		status = c->cs_status;
		*res = c->cs_res;
		goto out;
	}
	if (seqid != c->cs_seq) {
		status = NFS4ERR_SEQ_MISORDERED;
		goto out;
	}
	c->renewed = now(st);
	if (fore->maxreq < 1024 || fore->maxresp < 1024 || fore->maxops < 2) {
		status = NFS4ERR_TOOSMALL;
		goto cache;
	}
	if (c->nsessions >= TNFS_MAX_SESSIONS) {
		status = NFS4ERR_SERVERFAULT;
		goto cache;
	}
	struct session *se = calloc(1, sizeof(*se));
	if (!se) {
		status = NFS4ERR_DELAY;
		goto out;
	}
	se->clientid = clientid;
	uint32_t n = st->next_session++;
	memcpy(se->id, st->boot, 8);
	for (int i = 0; i < 4; i++) {
		se->id[8 + i] = (uint8_t)(clientid >> (24 - 8 * i));
		se->id[12 + i] = (uint8_t)(n >> (24 - 8 * i));
	}
	se->fore.headerpadsize = 0;
	se->fore.maxreq = clamp(fore->maxreq, 1024, TNFS_MAX_REQ);
	se->fore.maxresp = clamp(fore->maxresp, 1024, TNFS_MAX_REQ);
	se->fore.maxresp_cached = clamp(fore->maxresp_cached, 0, TNFS_MAX_CACHED);
	se->fore.maxops = clamp(fore->maxops, 2, TNFS_MAX_OPS);
	se->fore.maxreqs = clamp(fore->maxreqs, 1, TNFS_MAX_SLOTS);
	se->fore.nird = 0;
	se->next = st->sessions;
	st->sessions = se;
	c->nsessions++;
	if (!c->confirmed) {
		/* purge an older, confirmed incarnation of the same owner */
		for (struct client *o = st->clients; o; o = o->next) {
			if (o != c && o->confirmed && o->owner_len == c->owner_len &&
			    memcmp(o->owner, c->owner, c->owner_len) == 0) {
				remove_client(st, o);
				break;
			}
		}
		c->confirmed = true;
	}
	memset(res, 0, sizeof(*res));
	memcpy(res->create_session.sessionid, se->id, NFS4_SESSIONID_SIZE);
	res->create_session.seqid = seqid;
	res->create_session.flags = 0;
	res->create_session.fore = se->fore;
	res->create_session.back = *back;
	res->create_session.back.nird = 0;
	res->create_session.back.headerpadsize = 0;
	res->create_session.back.maxreqs = clamp(back->maxreqs, 1, 1);
cache:
	c->cs_seq++;
	c->cs_cached = true;
	c->cs_status = status;
	c->cs_res = *res;
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_sequence(struct tnfs_state *st, const uint8_t sid[16],
			     uint32_t seqid, uint32_t slotid, struct tnfs_seq *out)
{
	uint32_t status = NFS4_OK;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&st->mu);
	struct session *se = find_session(st, sid);
	if (!se) {
		status = NFS4ERR_BADSESSION;
		goto out;
	}
	if (slotid >= se->fore.maxreqs) {
		status = NFS4ERR_BADSLOT;
		goto out;
	}
	struct slot *sl = &se->slots[slotid];
	if (sl->busy) {
		status = NFS4ERR_DELAY;
		goto out;
	}
	struct client *c = find_client(st, se->clientid);
	if (c)
		c->renewed = now(st); /* SEQUENCE renews the lease */
	out->clientid = se->clientid;
	out->nslots = se->fore.maxreqs;
	out->maxops = se->fore.maxops;
	out->maxreq = se->fore.maxreq;
	out->maxresp = se->fore.maxresp;
	out->maxresp_cached = se->fore.maxresp_cached;
	if (seqid == sl->seqid && (sl->seqid != 0 || sl->cached)) {
		if (!sl->cached) {
			status = NFS4ERR_RETRY_UNCACHED_REP;
			goto out;
		}
		out->reply = malloc(sl->len);
		if (!out->reply) {
			status = NFS4ERR_DELAY;
			goto out;
		}
		memcpy(out->reply, sl->reply, sl->len);
		out->reply_len = sl->len;
		out->replay = true;
		goto out;
	}
	if (seqid != sl->seqid + 1) {
		status = NFS4ERR_SEQ_MISORDERED;
		goto out;
	}
	sl->seqid = seqid;
	sl->busy = true;
	sl->cached = false;
out:
	pthread_mutex_unlock(&st->mu);
	return status;
}

void tnfs_state_slot_done(struct tnfs_state *st, const uint8_t sid[16],
			  uint32_t slotid, const uint8_t *reply, size_t len,
			  bool cache)
{
	pthread_mutex_lock(&st->mu);
	struct session *se = find_session(st, sid);
	if (se && slotid < TNFS_MAX_SLOTS) {
		struct slot *sl = &se->slots[slotid];
		sl->busy = false;
		if (cache && len <= se->fore.maxresp_cached) {
			/* the slot keeps its buffer: no allocation per reply */
			uint8_t *b = sl->reply;
			if (len > sl->cap || !b) {
				b = realloc(sl->reply, len ? len : 1);
				if (b) {
					sl->reply = b;
					sl->cap = len ? len : 1;
				}
			}
			if (b) {
				memcpy(b, reply, len);
				sl->len = len;
				sl->cached = true;
			}
		}
	}
	pthread_mutex_unlock(&st->mu);
}

uint32_t tnfs_state_destroy_session(struct tnfs_state *st, const uint8_t sid[16])
{
	uint32_t status = NFS4ERR_BADSESSION;
	pthread_mutex_lock(&st->mu);
	for (struct session **pp = &st->sessions; *pp; pp = &(*pp)->next) {
		struct session *se = *pp;
		if (memcmp(se->id, sid, NFS4_SESSIONID_SIZE) != 0)
			continue;
		*pp = se->next;
		struct client *c = find_client(st, se->clientid);
		if (c)
			c->nsessions--;
		for (unsigned i = 0; i < TNFS_MAX_SLOTS; i++)
			free(se->slots[i].reply);
		free(se);
		status = NFS4_OK;
		break;
	}
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_destroy_clientid(struct tnfs_state *st, uint64_t clientid)
{
	uint32_t status = NFS4_OK;
	pthread_mutex_lock(&st->mu);
	struct client *c = find_client(st, clientid);
	if (!c)
		status = NFS4ERR_STALE_CLIENTID;
	else if (c->nsessions)
		status = NFS4ERR_CLIENTID_BUSY;
	else
		remove_client(st, c);
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_reclaim_complete(struct tnfs_state *st, uint64_t clientid,
				     bool one_fs)
{
	uint32_t status = NFS4_OK;
	pthread_mutex_lock(&st->mu);
	struct client *c = find_client(st, clientid);
	if (!c)
		status = NFS4ERR_STALE_CLIENTID;
	else if (!one_fs && c->reclaim_done)
		status = NFS4ERR_COMPLETE_ALREADY;
	else if (!one_fs)
		c->reclaim_done = true;
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_bind_conn(struct tnfs_state *st, const uint8_t sid[16])
{
	pthread_mutex_lock(&st->mu);
	uint32_t status = find_session(st, sid) ? NFS4_OK : NFS4ERR_BADSESSION;
	pthread_mutex_unlock(&st->mu);
	return status;
}

/* --- owners, files, stateids ------------------------------------------- */

static struct owner *get_owner(struct tnfs_state *st, uint64_t clientid, bool lock,
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

static void put_owner(struct tnfs_state *st, struct owner *o)
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

static struct file *get_file(struct tnfs_state *st, struct tnfs_file_key key, bool create)
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

static void put_file(struct tnfs_state *st, struct file *f)
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

static void drop_locks_of(struct file *f, struct stid *s)
{
	for (struct lock **pp = &f->locks; *pp;) {
		struct lock *l = *pp;
		if (l->stid == s) {
			*pp = l->next;
			free(l);
		} else {
			pp = &l->next;
		}
	}
}

static bool holds_locks(const struct stid *s)
{
	for (const struct lock *l = s->file->locks; l; l = l->next)
		if (l->stid == s)
			return true;
	return false;
}

static struct stid *new_stid(struct tnfs_state *st, int type, uint64_t clientid,
			     struct owner *o, struct file *f)
{
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
		return s;
	}
	return NULL;
}

static void free_stid(struct tnfs_state *st, struct stid *s)
{
	if (s->type == STID_OPEN) {
		/* lock stateids hanging off this open go with it */
		for (bool again = true; again;) {
			again = false;
			for (struct stid *l = s->file->stids; l; l = l->fnext)
				if (l->type == STID_LOCK && l->open == s) {
					free_stid(st, l);
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
	drop_locks_of(s->file, s);
	if (s->fd >= 0)
		close(s->fd);
	st->stids[s->idx] = NULL;
	put_owner(st, s->owner);
	put_file(st, s->file);
	free(s);
}

static void make_stateid(const struct tnfs_state *st, const struct stid *s,
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

static uint32_t find_stid(struct tnfs_state *st, uint64_t clientid,
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

static bool same_file(const struct stid *s, struct tnfs_file_key key)
{
	return s->file->key.dev == key.dev && s->file->key.ino == key.ino;
}

/* --- opens ---------------------------------------------------------------- */

uint32_t tnfs_state_open(struct tnfs_state *st, uint64_t clientid,
			 const uint8_t *owner, uint32_t owner_len,
			 struct tnfs_file_key key, uint32_t access, uint32_t deny,
			 int fd, struct nfs4_stateid *out)
{
	uint32_t status = NFS4_OK;
	pthread_mutex_lock(&st->mu);
	struct file *f = get_file(st, key, true);
	struct owner *o = get_owner(st, clientid, false, owner, owner_len, true);
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
			if (reap_holder(st, s->clientid))
				goto restart;
			f->refs--;
			status = NFS4ERR_SHARE_DENIED;
			goto fail;
		}
	}
	f->refs--;
	if (!mine) {
		mine = new_stid(st, STID_OPEN, clientid, o, f);
		if (!mine) {
			status = NFS4ERR_SERVERFAULT;
			goto fail;
		}
		mine->fd = fd;
	} else {
		mine->seqid++;
		if ((access & ~mine->access) && fd >= 0) {
			close(mine->fd); /* the new descriptor has the wider access */
			mine->fd = fd;
		} else if (fd >= 0) {
			close(fd);
		}
	}
	mine->access |= access;
	mine->deny |= deny;
	make_stateid(st, mine, out);
	goto out;
fail:
	if (fd >= 0)
		close(fd);
	if (f && f->refs == 0) {
		f->refs = 1;
		put_file(st, f);
	}
	if (o && o->refs == 0) {
		o->refs = 1;
		put_owner(st, o);
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
	uint32_t status = find_stid(st, clientid, sid, &s);
	if (status != NFS4_OK)
		goto out;
	if (s->type != STID_OPEN || !same_file(s, key)) {
		status = NFS4ERR_BAD_STATEID;
		goto out;
	}
	for (struct stid *l = s->file->stids; l; l = l->fnext) {
		if (l->type == STID_LOCK && l->open == s && holds_locks(l)) {
			status = NFS4ERR_LOCKS_HELD;
			goto out;
		}
	}
	free_stid(st, s);
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
	uint32_t status = find_stid(st, clientid, sid, &s);
	if (status != NFS4_OK)
		goto out;
	if (s->type != STID_OPEN || !same_file(s, key)) {
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
	make_stateid(st, s, out);
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
	uint32_t status = find_stid(st, clientid, sid, &s);
	if (status != NFS4_OK)
		goto out;
	if (!same_file(s, key)) {
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

/* Removes [start, end] from s's locks, splitting where needed.  Returns
 * false if out of memory (nothing changed then). */
static bool unlock_range(struct file *f, struct stid *s, uint64_t start, uint64_t end)
{
	/* reserve a node first, so a split cannot fail half way */
	struct lock *spare = malloc(sizeof(*spare));
	if (!spare)
		return false;
	for (struct lock **pp = &f->locks; *pp;) {
		struct lock *l = *pp;
		if (l->stid != s || l->end < start || l->start > end) {
			pp = &l->next;
			continue;
		}
		if (l->start < start && l->end > end) { /* split in two */
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
		}
	}
	free(spare);
	return true;
}

static uint32_t add_lock(struct file *f, struct stid *s, uint32_t t,
			 uint64_t start, uint64_t end)
{
	struct lock *n = malloc(sizeof(*n));
	if (!n)
		return NFS4ERR_DELAY;
	if (!unlock_range(f, s, start, end)) {
		free(n);
		return NFS4ERR_DELAY;
	}
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
	if (a->lock.reclaim)
		return NFS4ERR_NO_GRACE;
	pthread_mutex_lock(&st->mu);
	struct stid *s = NULL, *open;
	if (a->lock.new_owner) {
		status = find_stid(st, clientid, &a->lock.stateid, &open);
		if (status != NFS4_OK)
			goto out;
		if (open->type != STID_OPEN || !same_file(open, key)) {
			status = NFS4ERR_BAD_STATEID;
			goto out;
		}
		if (a->lock.owner.clientid != clientid) {
			status = NFS4ERR_STALE_CLIENTID;
			goto out;
		}
		struct owner *o = get_owner(st, clientid, true, a->lock.owner.owner.data,
					    a->lock.owner.owner.len, true);
		if (!o) {
			status = NFS4ERR_DELAY;
			goto out;
		}
		for (struct stid *l = open->file->stids; l && !s; l = l->fnext)
			if (l->type == STID_LOCK && l->owner == o)
				s = l;
		if (!s) {
			s = new_stid(st, STID_LOCK, clientid, o, open->file);
			if (!s) {
				if (o->refs == 0) {
					o->refs = 1;
					put_owner(st, o);
				}
				status = NFS4ERR_SERVERFAULT;
				goto out;
			}
			s->open = open;
			s->seqid = 0; /* incremented below to 1 */
		}
	} else {
		status = find_stid(st, clientid, &a->lock.stateid, &s);
		if (status != NFS4_OK)
			goto out;
		if (s->type != STID_LOCK || !same_file(s, key)) {
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
	       c->stid->clientid != clientid && reap_holder(st, c->stid->clientid))
		; /* an expired holder's locks are gone: look again */
	if (c) {
		fill_denied(c, res);
		status = NFS4ERR_DENIED;
		goto undo;
	}
	status = add_lock(s->file, s, a->lock.type, a->lock.offset, end);
	if (status != NFS4_OK)
		goto undo;
	s->seqid++;
	make_stateid(st, s, &res->lock.stateid);
	goto out;
undo:
	if (s->seqid == 0) /* created for this request */
		free_stid(st, s);
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
	if (a->lockt.owner.clientid != clientid)
		return NFS4ERR_STALE_CLIENTID;
	pthread_mutex_lock(&st->mu);
	struct file *f = get_file(st, key, false);
	struct owner *o = get_owner(st, clientid, true, a->lockt.owner.owner.data,
				    a->lockt.owner.owner.len, false);
	const struct lock *c = NULL;
	if (f) {
		f->refs++; /* reaping an expired holder must not free the file */
		while ((c = conflict(f, o, a->lockt.type, a->lockt.offset, end)) &&
		       c->stid->clientid != clientid && reap_holder(st, c->stid->clientid))
			;
		if (c) {
			fill_denied(c, res);
			status = NFS4ERR_DENIED;
		}
		put_file(st, f);
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
	status = find_stid(st, clientid, &a->locku.stateid, &s);
	if (status != NFS4_OK)
		goto out;
	if (s->type != STID_LOCK || !same_file(s, key)) {
		status = NFS4ERR_BAD_STATEID;
		goto out;
	}
	if (!unlock_range(s->file, s, a->locku.offset, end)) {
		status = NFS4ERR_DELAY;
		goto out;
	}
	s->seqid++;
	make_stateid(st, s, &res->stateid);
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
	uint32_t status = find_stid(st, clientid, sid, &s);
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_free_stateid(struct tnfs_state *st, uint64_t clientid,
				 const struct nfs4_stateid *sid)
{
	pthread_mutex_lock(&st->mu);
	struct stid *s;
	uint32_t status = find_stid(st, clientid, sid, &s);
	if (status == NFS4_OK) {
		if (s->type == STID_OPEN || holds_locks(s))
			status = NFS4ERR_LOCKS_HELD;
		else
			free_stid(st, s);
	}
	pthread_mutex_unlock(&st->mu);
	return status;
}
