/* SPDX-License-Identifier: BSD-2-Clause */
/* Client records, sessions, slots and the reply cache; see state.h. */
#include "state_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static struct session *find_session(struct tnfs_state *st, const uint8_t id[16])
{
	for (struct session *s = st->sessions; s; s = s->next)
		if (memcmp(s->id, id, NFS4_SESSIONID_SIZE) == 0)
			return s;
	return NULL;
}

/* --- clients and sessions ---------------------------------------------- */

/* len bytes from the kernel's random pool (the urandom source, which
 * blocks only before it is first seeded).  False if it fails. */
static bool random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = getrandom(p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* A client ID: this instance's boot word, and 32 random bits that no
 * live record uses (nfsd keeps a counter there; a random one cannot be
 * worked out from the client's own). */
static bool new_clientid(struct tnfs_state *st, uint64_t *out)
{
	for (;;) {
		uint32_t r;
		if (!random_bytes(&r, sizeof(r)))
			return false;
		*out = (uint64_t)st->boot32 << 32 | r;
		if (r != 0 && !tnfs__find_client(st, *out))
			return true;
	}
}

/* A session ID (RFC 8881 2.10.3): 16 random bytes, none an existing
 * session's, so that no client can derive another's from its own. */
static bool new_sessionid(struct tnfs_state *st, uint8_t id[NFS4_SESSIONID_SIZE])
{
	do {
		if (!random_bytes(id, NFS4_SESSIONID_SIZE))
			return false;
	} while (find_session(st, id));
	return true;
}

/* Makes room in a full client table: drops the oldest unconfirmed record
 * (one that never created a session: RFC 8881 18.35.4 lets the server
 * drop it, and its client starts over with EXCHANGE_ID), else the
 * courtesy client lapsed longest (its state goes: RFC 8881 8.3).
 * Lapsed clients without state are gone already (tnfs__expire_clients).
 * False if every record is a live confirmed client. */
static bool evict_unconfirmed(struct tnfs_state *st)
{
	struct client *old = NULL, *lapsed = NULL;
	for (struct client *c = st->clients; c; c = c->next) {
		if (!c->confirmed && (!old || c->born < old->born))
			old = c;
		if (c->confirmed && tnfs__lapsed(st, c) &&
		    (!lapsed || c->renewed < lapsed->renewed))
			lapsed = c;
	}
	if (!old)
		old = lapsed;
	if (!old)
		return false;
	tnfs__remove_client(st, old);
	return true;
}

void tnfs__session_free(struct tnfs_state *st, struct session *se)
{
	for (unsigned i = 0; i < TNFS_MAX_SLOTS; i++) {
		st->drc_held -= se->slots[i].cap;
		free(se->slots[i].reply);
	}
	st->drc_reserved -= se->drc;
	st->nsessions--;
	free(se);
}

/* May `who` manage client c's record and sessions (CREATE_SESSION,
 * DESTROY_SESSION, DESTROY_CLIENTID, BIND_CONN_TO_SESSION)?  Under
 * SP4_MACH_CRED only its machine credential, integrity protected; under
 * SP4_NONE only the principal that made the record (README, "NFSv4.1
 * state protection").  NFS4_OK or NFS4ERR_WRONG_CRED. */
static uint32_t may_manage(const struct client *c, const struct tnfs_cred *who)
{
	bool ok = c->mach_cred ? tnfs_machine_cred(&c->principal, who) :
				 tnfs_same_principal(&c->principal, who);
	return ok ? NFS4_OK : NFS4ERR_WRONG_CRED;
}

void tnfs_state_set_mach_allow(struct tnfs_state *st, uint64_t clientid,
			       const uint32_t allow[2])
{
	pthread_mutex_lock(&st->mu);
	struct client *c = tnfs__find_client(st, clientid);
	if (c && c->mach_cred)
		memcpy(c->mach_allow, allow, sizeof(c->mach_allow));
	pthread_mutex_unlock(&st->mu);
}

bool tnfs_state_mach_allow(struct tnfs_state *st, uint64_t clientid,
			   const struct tnfs_cred *who, uint32_t allow[2])
{
	pthread_mutex_lock(&st->mu);
	const struct client *c = tnfs__find_client(st, clientid);
	bool ok = c && c->mach_cred && tnfs_machine_cred(&c->principal, who);
	if (ok)
		memcpy(allow, c->mach_allow, sizeof(c->mach_allow));
	pthread_mutex_unlock(&st->mu);
	return ok;
}

static struct client *new_client(struct tnfs_state *st, const struct tnfs_cred *who,
				 const uint8_t verf[8], const uint8_t *owner,
				 uint32_t owner_len)
{
	if (st->nclients >= TNFS_MAX_CLIENTS && !evict_unconfirmed(st))
		return NULL; /* full of live clients: not a fault */
	struct client *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (!new_clientid(st, &c->clientid)) {
		free(c);
		return NULL;
	}
	memcpy(c->verf, verf, 8);
	c->owner_len = owner_len;
	memcpy(c->owner, owner, owner_len);
	c->principal = *who;
	c->cs_seq = 1;
	c->born = st->nborn++;
	c->renewed = tnfs__now(st);
	c->next = st->clients;
	st->clients = c;
	st->nclients++;
	return c;
}

/* The cases of RFC 8881 18.35.5 (state.h); *found is the record to
 * answer with.  mach: a new record is SP4_MACH_CRED. */
static uint32_t exchange_case(struct tnfs_state *st, const struct tnfs_cred *who,
			      const uint8_t verf[8], const uint8_t *owner,
			      uint32_t owner_len, uint32_t flags, bool mach,
			      struct client **found)
{
	struct client *conf = NULL, *unconf = NULL;
	for (struct client *c = st->clients; c; c = c->next) {
		if (c->owner_len != owner_len || memcmp(c->owner, owner, owner_len) != 0)
			continue;
		if (c->confirmed)
			conf = c;
		else
			unconf = c;
	}
	bool same_who = conf && tnfs_same_principal(&conf->principal, who);
	bool same_verf = conf && memcmp(conf->verf, verf, 8) == 0;
	bool upd = flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A;
	/* an SP4_MACH_CRED record: updated, or found again, by its machine
	 * credential only (18.35.3; nfsd checks the update) */
	if (conf && conf->mach_cred && (upd || same_who) &&
	    !tnfs_machine_cred(&conf->principal, who))
		return NFS4ERR_WRONG_CRED;
	if (upd) {
		if (!conf)
			return NFS4ERR_NOENT; /* case 7 */
		if (!same_who)
			return NFS4ERR_PERM; /* case 9 */
		if (!same_verf)
			return NFS4ERR_NOT_SAME; /* case 8 */
		*found = conf; /* case 6 */
		return NFS4_OK;
	}
	if (conf && same_who && same_verf) {
		*found = conf; /* case 2 */
		return NFS4_OK;
	}
	if (conf && !same_who) { /* case 3: a collision */
		if (conf->nsessions || conf->nstids)
			return NFS4ERR_CLID_INUSE;
		tnfs__remove_client(st, conf);
	}
	/* case 5 (the confirmed record stays until the new one is
	 * confirmed), case 4 and case 1 */
	if (unconf)
		tnfs__remove_client(st, unconf);
	*found = new_client(st, who, verf, owner, owner_len);
	if (!*found)
		return NFS4ERR_DELAY;
	(*found)->mach_cred = mach;
	return NFS4_OK;
}

uint32_t tnfs_state_exchange_id(struct tnfs_state *st, const struct tnfs_cred *who,
				const uint8_t verf[8],
				const uint8_t *owner, uint32_t owner_len,
				uint32_t flags, uint32_t *sp_how,
				uint64_t *clientid, uint32_t *seqid,
				uint32_t *rflags)
{
	if (flags & ~(uint32_t)EXCHGID4_FLAG_MASK_A)
		return NFS4ERR_INVAL;
	/* 18.35.3: SP4_MACH_CRED comes over RPCSEC_GSS with integrity or
	 * privacy, or nfsd answers NFS4ERR_INVAL; no SP4_SSV */
	bool mach = *sp_how == SP4_MACH_CRED;
	if (mach && !tnfs_machine_cred(who, who))
		return NFS4ERR_INVAL;
	if (*sp_how != SP4_NONE && !mach)
		return NFS4ERR_NOTSUPP;
	if (owner_len > NFS4_OPAQUE_LIMIT)
		return NFS4ERR_INVAL;
	pthread_mutex_lock(&st->mu);
	tnfs__expire_clients(st);
	struct client *c = NULL;
	uint32_t status = exchange_case(st, who, verf, owner, owner_len, flags, mach, &c);
	if (status == NFS4_OK) {
		*sp_how = c->mach_cred ? SP4_MACH_CRED : SP4_NONE;
		*clientid = c->clientid;
		*seqid = c->cs_seq;
		*rflags = EXCHGID4_FLAG_USE_NON_PNFS;
		if (c->confirmed)
			*rflags |= EXCHGID4_FLAG_CONFIRMED_R;
	}
	pthread_mutex_unlock(&st->mu);
	return status;
}

static uint32_t clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The reply cache a new session gets: each of its *slots reserves *size
 * bytes (its ca_maxresponsesize_cached) out of the service's budget, one
 * session at most an eighth of it (as Linux's nfsd shares its DRC
 * memory), so that a few sessions cannot take it all.  When the budget
 * cannot give one slot of *size, the session still gets one slot (a
 * client is better served slowly than refused, as in Linux), of what is
 * left but at least TNFS_MIN_CACHED bytes: beyond the budget, each
 * session holds at most that much. */
static void grant_cache(const struct tnfs_state *st, uint32_t *slots, uint32_t *size)
{
	if (*size == 0)
		return;
	size_t budget = st->lim.drc_bytes;
	size_t left = budget > st->drc_reserved ? budget - st->drc_reserved : 0;
	if (left > budget / 8)
		left = budget / 8;
	size_t n = left / *size;
	if (n >= *slots)
		return;
	if (n >= 1) {
		*slots = (uint32_t)n;
		return;
	}
	*slots = 1;
	size_t floor = left > TNFS_MIN_CACHED ? left : TNFS_MIN_CACHED;
	if (*size > floor)
		*size = (uint32_t)floor;
}

/* The checks that come before the client and its sequence id (as in
 * Linux's nfsd): they neither use the sequence id nor reserve anything. */
static uint32_t check_session_args(uint32_t flags, const struct nfs4_channel_attrs *fore,
				   const struct nfs4_channel_attrs *back)
{
	if (flags & ~(uint32_t)(CREATE_SESSION4_FLAG_PERSIST |
				CREATE_SESSION4_FLAG_CONN_BACK_CHAN |
				CREATE_SESSION4_FLAG_CONN_RDMA))
		return NFS4ERR_INVAL;
	if (fore->maxreq < TNFS_MIN_REQ || fore->maxresp < TNFS_MIN_REQ || fore->maxops < 2)
		return NFS4ERR_TOOSMALL;
	if (back->maxreq < TNFS_MIN_CB_REQ || back->maxresp < TNFS_MIN_CB_RESP ||
	    back->maxops < 2)
		return NFS4ERR_TOOSMALL;
	return NFS4_OK;
}

/* The client ID CREATE_SESSION names, checked as RFC 8881 18.36.4 says. */
static uint32_t session_client(struct tnfs_state *st, const struct tnfs_cred *who,
			       uint64_t clientid, struct client **out)
{
	struct client *c = tnfs__live_client(st, clientid);
	if (!c)
		return NFS4ERR_STALE_CLIENTID;
	if (!c->confirmed && !tnfs_same_principal(&c->principal, who))
		return NFS4ERR_CLID_INUSE;
	*out = c;
	return may_manage(c, who);
}

static struct session *new_session(struct tnfs_state *st, struct client *c,
				   const struct nfs4_channel_attrs *fore)
{
	struct session *se = calloc(1, sizeof(*se));
	if (!se)
		return NULL;
	if (!new_sessionid(st, se->id)) {
		free(se);
		return NULL;
	}
	se->clientid = c->clientid;
	se->fore.headerpadsize = 0;
	se->fore.maxreq = clamp(fore->maxreq, TNFS_MIN_REQ, TNFS_MAX_REQ);
	se->fore.maxresp = clamp(fore->maxresp, TNFS_MIN_REQ, TNFS_MAX_REQ);
	se->fore.maxresp_cached = clamp(fore->maxresp_cached, 0, TNFS_MAX_CACHED);
	se->fore.maxops = clamp(fore->maxops, 2, TNFS_MAX_OPS);
	se->fore.maxreqs = clamp(fore->maxreqs, 1, TNFS_MAX_SLOTS);
	grant_cache(st, &se->fore.maxreqs, &se->fore.maxresp_cached);
	se->fore.nird = 0;
	se->drc = (size_t)se->fore.maxreqs * se->fore.maxresp_cached;
	st->drc_reserved += se->drc;
	st->nsessions++;
	se->next = st->sessions;
	st->sessions = se;
	c->nsessions++;
	return se;
}

/* c is confirmed: the confirmed record of an older incarnation of the
 * same owner goes (RFC 8881 18.35.5 case 5). */
static void confirm(struct tnfs_state *st, struct client *c)
{
	if (c->confirmed)
		return;
	for (struct client *o = st->clients; o; o = o->next) {
		if (o != c && o->confirmed && o->owner_len == c->owner_len &&
		    memcmp(o->owner, c->owner, c->owner_len) == 0) {
			tnfs__remove_client(st, o);
			break;
		}
	}
	c->confirmed = true;
}

uint32_t tnfs_state_create_session(struct tnfs_state *st, const struct tnfs_cred *who,
				   uint64_t clientid, uint32_t seqid, uint32_t flags,
				   const struct nfs4_channel_attrs *fore,
				   const struct nfs4_channel_attrs *back,
				   union nfs4_res *res)
{
	memset(res, 0, sizeof(*res));
	uint32_t status = check_session_args(flags, fore, back);
	if (status != NFS4_OK)
		return status;
	pthread_mutex_lock(&st->mu);
	struct client *c = NULL;
	status = session_client(st, who, clientid, &c);
	if (status != NFS4_OK)
		goto out;
	if (seqid + 1 == c->cs_seq && c->cs_cached) {
		status = c->cs_status;
		*res = c->cs_res;
		goto out;
	}
	if (seqid != c->cs_seq) {
		status = NFS4ERR_SEQ_MISORDERED;
		goto out;
	}
	c->renewed = tnfs__now(st);
	/* this client's sessions all in use, or no memory: not a fault,
	 * and not cached (the client may retry with the same seqid) */
	struct session *se = c->nsessions < TNFS_MAX_SESSIONS ? new_session(st, c, fore) : NULL;
	if (!se) {
		status = NFS4ERR_DELAY;
		goto out;
	}
	confirm(st, c);
	memcpy(res->create_session.sessionid, se->id, NFS4_SESSIONID_SIZE);
	res->create_session.seqid = seqid;
	res->create_session.flags = 0;
	res->create_session.fore = se->fore;
	/* the back channel (callback.h) has one slot, within the server's
	 * limits, and caches nothing */
	struct nfs4_channel_attrs *bk = &res->create_session.back;
	bk->maxreq = clamp(back->maxreq, TNFS_MIN_CB_REQ, TNFS_MAX_REQ);
	bk->maxresp = clamp(back->maxresp, TNFS_MIN_CB_RESP, TNFS_MAX_REQ);
	bk->maxops = clamp(back->maxops, 2, TNFS_MAX_OPS);
	bk->maxreqs = 1;
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
	/* SEQUENCE renews the lease; a lapsed client without state is
	 * gone (its sessions with it), a courtesy client is served again */
	struct client *c = tnfs__live_client(st, se->clientid);
	if (!c) {
		status = NFS4ERR_BADSESSION;
		goto out;
	}
	c->renewed = tnfs__now(st);
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
	sl->was_cached = sl->cached;
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
		/* the buffer never outgrows the negotiated cached size, which
		 * the session reserved out of the budget */
		if (cache && len && len <= se->fore.maxresp_cached) {
			/* the slot keeps its buffer: no allocation per reply */
			uint8_t *b = sl->reply;
			if (len > sl->cap) {
				b = realloc(sl->reply, len);
				if (b) {
					st->drc_held += len - sl->cap;
					sl->reply = b;
					sl->cap = len;
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

void tnfs_state_slot_undo(struct tnfs_state *st, const uint8_t sid[16], uint32_t slotid)
{
	pthread_mutex_lock(&st->mu);
	struct session *se = find_session(st, sid);
	if (se && slotid < TNFS_MAX_SLOTS && se->slots[slotid].busy) {
		struct slot *sl = &se->slots[slotid];
		sl->busy = false;
		sl->seqid--;
		sl->cached = sl->was_cached;
	}
	pthread_mutex_unlock(&st->mu);
}

uint32_t tnfs_state_destroy_session(struct tnfs_state *st, const struct tnfs_cred *who,
				    const uint8_t sid[16])
{
	uint32_t status = NFS4ERR_BADSESSION;
	pthread_mutex_lock(&st->mu);
	for (struct session **pp = &st->sessions; *pp; pp = &(*pp)->next) {
		struct session *se = *pp;
		if (memcmp(se->id, sid, NFS4_SESSIONID_SIZE) != 0)
			continue;
		struct client *c = tnfs__find_client(st, se->clientid);
		status = c ? may_manage(c, who) : NFS4_OK;
		if (status != NFS4_OK)
			break;
		*pp = se->next;
		if (c)
			c->nsessions--;
		tnfs__session_free(st, se);
		status = NFS4_OK;
		break;
	}
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_destroy_clientid(struct tnfs_state *st, const struct tnfs_cred *who,
				     uint64_t clientid, bool others_busy)
{
	pthread_mutex_lock(&st->mu);
	struct client *c = tnfs__find_client(st, clientid);
	uint32_t status = c ? may_manage(c, who) : NFS4ERR_STALE_CLIENTID;
	if (status == NFS4_OK && (c->nsessions || c->nstids || others_busy))
		status = NFS4ERR_CLIENTID_BUSY; /* RFC 8881 18.50.3 */
	if (status == NFS4_OK)
		tnfs__remove_client(st, c);
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_reclaim_complete(struct tnfs_state *st, uint64_t clientid,
				     bool one_fs)
{
	uint32_t status = NFS4_OK;
	pthread_mutex_lock(&st->mu);
	struct client *c = tnfs__find_client(st, clientid);
	if (!c)
		status = NFS4ERR_STALE_CLIENTID;
	else if (!one_fs && c->reclaim_done)
		status = NFS4ERR_COMPLETE_ALREADY;
	else if (!one_fs) {
		c->reclaim_done = true;
		tnfs__grace_reclaimed(st, c);
	}
	pthread_mutex_unlock(&st->mu);
	return status;
}

uint32_t tnfs_state_bind_conn(struct tnfs_state *st, const struct tnfs_cred *who,
			      const uint8_t sid[16], uint64_t *clientid)
{
	pthread_mutex_lock(&st->mu);
	struct session *se = find_session(st, sid);
	uint32_t status = se ? NFS4_OK : NFS4ERR_BADSESSION;
	const struct client *c = se ? tnfs__find_client(st, se->clientid) : NULL;
	if (c)
		status = may_manage(c, who);
	*clientid = se && status == NFS4_OK ? se->clientid : 0;
	pthread_mutex_unlock(&st->mu);
	return status;
}
