/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal to deleg.c and deleg_grant.c: the delegation table. */
#ifndef TINYNFS_DELEG_INT_H
#define TINYNFS_DELEG_INT_H

#include <pthread.h>

#include "deleg.h"

#define NBUCKETS 1024u
#define ID_BIT 0x80000000u

enum { D_GRANTED = 1, D_RECALLING, D_REVOKED };
enum { GA_NONE = 0, GA_ASKED, GA_ANSWERED };
#define GA_WAIT_S 20 /* a CB_GETATTR unanswered this long: recall */

struct deleg {
	uint32_t id, gen;
	int state;
	int fd; /* O_RDONLY with the read lease; -1 once revoked */
	int path; /* O_PATH while the lease is released (own_write), else -1 */
	uint64_t clientid;
	struct holder *h; /* its holder's count (lives as long as g) */
	struct tnfs_file_key key;
	uint64_t recall_at;
	uint64_t released_at; /* tnfs_deleg_own_open */
	bool write;	      /* a write delegation: fd is O_RDWR with a write lease */
	bool released;	      /* write: its lease released for the holder's open */
	int ga;		      /* CB_GETATTR: GA_NONE, GA_ASKED, GA_ANSWERED */
	uint64_t ga_at;	      /* when asked */
	uint64_t ga_size, ga_change, ga_bump;
	uint64_t ga_last;     /* the change attribute the last GETATTR used */
	bool ga_seen;	      /* ga_last is set */
	bool attrs;	      /* delegated timestamps (RFC 9754) */
	struct timespec at0, mt0; /* attrs: the file's times at the grant */
	struct tnfs_deleg_cbattrs ga_got; /* attrs: the holder's last answer */
	uint32_t fhlen;
	uint8_t fh[NFS4_FHSIZE];
	struct deleg *fnext; /* same bucket */
};

/* A client holding delegations, and how many (revoked ones included). */
struct holder {
	uint64_t clientid;
	unsigned n;
	unsigned live; /* scratch of over_share: granted, not recalled */
	struct holder *next;
};

struct tnfs_deleg {
	pthread_mutex_t mu;
	struct tnfs_deleg_ops ops;
	uint32_t boot32, gen;
	bool enabled, running;
	bool write_on; /* grant write delegations (tnfs_deleg_set_write) */
	unsigned timeout;
	tnfs_clock_fn *clock;
	void *clock_arg;
	struct deleg *bucket[NBUCKETS];
	struct deleg **byid; /* TNFS_MAX_DELEGS */
	uint32_t hint;
	unsigned max, max_per_client;
	unsigned nrevoked;   /* of st.held: revoked, not freed (out of the count) */
	uint64_t takeback_at; /* the last look for courtesy clients (take_back) */
	struct holder *holders;
	struct tnfs_deleg_stats st;
	int sigfd, stopfd;
	bool sigio; /* sigfd reads SIGIO: a lost lease signal is seen */
	pthread_t thread;
};

static inline uint64_t now(const struct tnfs_deleg *d)
{
	return d->clock(d->clock_arg);
}

static inline unsigned bucket_of(struct tnfs_file_key k)
{
	uint64_t h = (uint64_t)k.ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)k.dev;
	return (unsigned)(h >> 40) % NBUCKETS;
}

static inline struct holder **holder_of(struct tnfs_deleg *d, uint64_t clientid)
{
	struct holder **pp = &d->holders;
	while (*pp && (*pp)->clientid != clientid)
		pp = &(*pp)->next;
	return pp;
}

static inline bool same_key(struct tnfs_file_key a, struct tnfs_file_key b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

/* The holders of the delegations about to be recalled, and whether each
 * has lapsed: asked of ops.lapsed without the mutex (lock order: the
 * state's lock comes before deleg's).  Beyond LAPSED_MAX holders the
 * others count as live: recalled, then revoked on the timeout. */
#define LAPSED_MAX 16
struct lapsed {
	unsigned n;
	uint64_t id[LAPSED_MAX];
	bool yes[LAPSED_MAX];
};

/* deleg.c (mutex held, but tnfs__lapsed_ask: without it) */
void tnfs__deleg_drop_lease(struct tnfs_deleg *d, struct deleg *g);
void tnfs__deleg_sid(const struct tnfs_deleg *d, const struct deleg *g, struct nfs4_stateid *out);
struct deleg *tnfs__deleg_alloc(struct tnfs_deleg *d);
void tnfs__deleg_revoke_now(struct tnfs_deleg *d, struct deleg *g);
void tnfs__deleg_recall(struct tnfs_deleg *d, struct deleg *g);
void tnfs__lapsed_add(struct lapsed *l, uint64_t id);
void tnfs__lapsed_ask(const struct tnfs_deleg *d, struct lapsed *l);
bool tnfs__lapsed_is(const struct lapsed *l, uint64_t id);
struct deleg *tnfs__deleg_find_sid(struct tnfs_deleg *d, uint64_t clientid,
				   const struct nfs4_stateid *sid, uint32_t *status);
/* deleg_times.c: t after orig (else false); clamped to now (realtime) */
bool tnfs__deleg_vet_time(struct timespec *t, const struct timespec *orig);
/* deleg_grant.c */
void tnfs__deleg_rearm(struct tnfs_deleg *d, struct deleg *g);

#endif
