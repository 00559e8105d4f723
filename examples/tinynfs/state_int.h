/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the NFSv4.1 state (state.h): the records and the helpers that
 * state.c (clients, owners, files, stateids, opens), state_session.c
 * (EXCHANGE_ID, sessions, slots and their reply cache) and state_lock.c
 * (byte-range locks) share.  Every helper runs with st->mu held.
 */
#ifndef TINYNFS_STATE_INT_H
#define TINYNFS_STATE_INT_H

#include <pthread.h>

#include "fs.h"
#include "state.h"

struct slot {
	uint32_t seqid;
	bool busy, cached;
	bool was_cached; /* cached before the request in progress */
	size_t len, cap; /* reply: len bytes cached in cap allocated */
	uint8_t *reply;
};

struct session {
	uint8_t id[NFS4_SESSIONID_SIZE];
	uint64_t clientid;
	struct nfs4_channel_attrs fore;
	size_t drc; /* reply cache reserved: fore.maxreqs x fore.maxresp_cached */
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
	struct tnfs_cred principal; /* who made the record (EXCHANGE_ID) */
	bool mach_cred;		    /* SP4_MACH_CRED: principal is the machine's */
	uint32_t mach_allow[2];	    /* its spo_must_allow (operations 0-63) */
	bool confirmed, reclaim_done;
	uint32_t cs_seq; /* the CREATE_SESSION seqid expected next */
	bool cs_cached;
	uint32_t cs_status;
	union nfs4_res cs_res;
	unsigned nsessions;
	unsigned nstids, nfds; /* stateids, descriptors held by open stateids */
	unsigned nlocks;       /* byte ranges locked by its lock stateids */
	uint64_t born;	       /* creation order (the oldest unconfirmed goes first) */
	uint64_t renewed; /* clock seconds of the last SEQUENCE or CREATE_SESSION */
	struct client *next;
};

struct tnfs_state {
	pthread_mutex_t mu;
	uint8_t boot[8];
	uint32_t boot32;
	uint32_t gen;
	unsigned nclients, nsessions, nstids, nfds, nlocks;
	uint64_t nborn;
	struct tnfs_state_limits lim;
	size_t drc_reserved, drc_held;
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
	struct tnfs_grace *grace; /* NULL: no record, never in grace */
	tnfs_client_gone_fn *client_gone;
	void *client_gone_arg;
};

uint64_t tnfs__now(const struct tnfs_state *st);
struct client *tnfs__find_client(struct tnfs_state *st, uint64_t id);
/* Removes every client whose lease has run out and that holds no
 * stateid (unconfirmed records, clients with sessions only), and the
 * courtesy clients (lapsed, holding state) after TNFS_COURTESY_TIME. */
void tnfs__expire_clients(struct tnfs_state *st);
/* True if c's lease has run out. */
bool tnfs__lapsed(const struct tnfs_state *st, const struct client *c);
/* Client `id` if it is still known: a lapsed one without stateids is
 * removed on the way (NULL); a lapsed one holding state (a courtesy
 * client nobody conflicted with) is kept. */
struct client *tnfs__live_client(struct tnfs_state *st, uint64_t id);
/* Frees a session unlinked from st->sessions, its reply cache returned
 * to the budget. */
void tnfs__session_free(struct tnfs_state *st, struct session *se);
/* Removes c with its sessions and state. */
void tnfs__remove_client(struct tnfs_state *st, struct client *c);
/* A conflicting holder whose lease ran out loses its state (RFC 8881
 * 8.3: the server may release an expired client's locks when another
 * client needs them).  True if it was removed. */
bool tnfs__reap_holder(struct tnfs_state *st, uint64_t clientid);

struct owner *tnfs__get_owner(struct tnfs_state *st, uint64_t clientid, bool lock,
			      const uint8_t *bytes, uint32_t len, bool create);
void tnfs__put_owner(struct tnfs_state *st, struct owner *o);
struct file *tnfs__get_file(struct tnfs_state *st, struct tnfs_file_key key, bool create);
void tnfs__put_file(struct tnfs_state *st, struct file *f);
bool tnfs__holds_locks(const struct stid *s);
struct stid *tnfs__new_stid(struct tnfs_state *st, int type, uint64_t clientid,
			    struct owner *o, struct file *f);
void tnfs__free_stid(struct tnfs_state *st, struct stid *s);
void tnfs__make_stateid(const struct tnfs_state *st, const struct stid *s,
			struct nfs4_stateid *out);
uint32_t tnfs__find_stid(struct tnfs_state *st, uint64_t clientid,
			 const struct nfs4_stateid *sid, struct stid **out);
bool tnfs__same_file(const struct stid *s, struct tnfs_file_key key);

/* state_grace.c.  May this client take a lock (OPEN, LOCK, LOCKT) now?
 * reclaim: CLAIM_PREVIOUS or a reclaim LOCK; need_complete: refused
 * before the client's RECLAIM_COMPLETE (OPEN, as Linux does).  NFS4_OK,
 * NFS4ERR_GRACE, NFS4ERR_NO_GRACE or NFS4ERR_RECLAIM_BAD. */
uint32_t tnfs__lock_allowed(struct tnfs_state *st, uint64_t clientid, bool reclaim,
			    bool need_complete);
/* c sent RECLAIM_COMPLETE / c (if recorded) is removed: the record follows. */
void tnfs__grace_reclaimed(struct tnfs_state *st, const struct client *c);
void tnfs__grace_forget(struct tnfs_state *st, const struct client *c);
void tnfs__grace_free(struct tnfs_state *st);
/* on: removals only mark the record; off: it is written if they did */
void tnfs__grace_batch(struct tnfs_state *st, bool on);

/* Byte ranges locked: delta more in all and for client c (may be NULL). */
static inline void tnfs__count_locks(struct tnfs_state *st, struct client *c, int delta)
{
	st->nlocks += (unsigned)delta;
	if (c)
		c->nlocks += (unsigned)delta;
}

#endif
