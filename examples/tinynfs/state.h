/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NFSv4.1 server state (RFC 8881 sections 2.10, 8, 9, 18.35-18.46):
 * client records, sessions with their slot tables and reply cache, open
 * and lock stateids, and byte-range locks.  Delegations and the back
 * channel are deleg.h's and callback.h's; no layouts.
 *
 * All functions are thread-safe (one mutex inside) and return an
 * nfsstat4.  Only the client record survives a restart, and only with a
 * state directory (tnfs_state_set_grace, grace.h): after a restart,
 * clients see NFS4ERR_STALE_CLIENTID / NFS4ERR_BADSESSION and start over;
 * those in the record reclaim their opens and locks during the grace
 * period (the server keeps no state of theirs to compare with: it grants
 * the reclaims as asked, and nothing else until the grace period ends).
 * Without a state directory there is no grace period, and reclaims
 * (CLAIM_PREVIOUS, reclaim LOCKs) are answered NFS4ERR_NO_GRACE.
 *
 * Rules enforced:
 *  - Tables never answer NFS4ERR_SERVERFAULT for being full.  A full
 *    client table (TNFS_MAX_CLIENTS) first drops the oldest unconfirmed
 *    record (RFC 8881 18.35.4 lets the server drop them), then expired
 *    clients; full of live confirmed clients, EXCHANGE_ID gets
 *    NFS4ERR_DELAY.  A client at TNFS_MAX_SESSIONS, and an OPEN or LOCK
 *    beyond the client's stateids or descriptors (struct
 *    tnfs_state_limits) or the server's, get NFS4ERR_DELAY: the answer
 *    goes to the client over its share alone, the others are served.
 *  - EXCHANGE_ID (the cases of RFC 8881 18.35.5; the principal is the
 *    caller's credential as tnfs_same_principal() compares it, Linux's
 *    same_creds(): flavour, uid, gid and groups): flags outside
 *    EXCHGID4_FLAG_MASK_A -> NFS4ERR_INVAL; SP4_MACH_CRED without
 *    tnfs_machine_cred() -> NFS4ERR_INVAL, SP4_SSV -> NFS4ERR_NOTSUPP;
 *    an SP4_MACH_CRED record updated or found again without its machine
 *    credential -> NFS4ERR_WRONG_CRED.  Without UPD_CONFIRMED_REC_A: a
 *    confirmed record of the owner with the same principal and verifier
 *    -> that record (CONFIRMED_R, case 2); another principal -> NFS4ERR_CLID_INUSE if
 *    the record has sessions or stateids, else it is replaced (case 3);
 *    another verifier -> a new unconfirmed record under a new client ID,
 *    the confirmed one going when that is confirmed (case 5); an
 *    unconfirmed record of the owner is replaced by a new client ID
 *    (case 4); none -> a new one (case 1).  With UPD_CONFIRMED_REC_A: no
 *    confirmed record -> NFS4ERR_NOENT (case 7), another principal ->
 *    NFS4ERR_PERM (9), another verifier -> NFS4ERR_NOT_SAME (8), else
 *    the record (6).
 *  - CREATE_SESSION: flags outside CREATE_SESSION4_FLAG_* ->
 *    NFS4ERR_INVAL; fore channel below TNFS_MIN_REQ bytes either way or
 *    2 operations, back channel below TNFS_MIN_CB_REQ / TNFS_MIN_CB_RESP
 *    or 2 operations -> NFS4ERR_TOOSMALL.  These are checked first, like
 *    Linux's nfsd: they neither use the sequence id nor reserve anything.
 *    Unknown, replaced or expired client ID -> NFS4ERR_STALE_CLIENTID; an
 *    unconfirmed record made by another principal -> NFS4ERR_CLID_INUSE
 *    (18.36.4); a confirmed one -> NFS4ERR_WRONG_CRED (README, "NFSv4.1
 *    state protection"; SP4_MACH_CRED: without its machine credential);
 *    sequence id equal to the expected one runs, the previous one
 *    replays the cached result, anything else ->
 *    NFS4ERR_SEQ_MISORDERED.  It confirms the record of that client ID
 *    only (and purges the confirmed record of the owner's older
 *    incarnation).  Channel attributes above the server's limits are
 *    negotiated down (TNFS_MAX_SLOTS, TNFS_MAX_OPS, TNFS_MAX_REQ,
 *    TNFS_MAX_CACHED), the slots to what the reply cache budget has left;
 *    flags in the reply are 0.
 *  - SEQUENCE: unknown session, or a client whose lease ran out holding
 *    no state -> NFS4ERR_BADSESSION; slot >= slot count
 *    -> NFS4ERR_BADSLOT; slot busy -> NFS4ERR_DELAY; seqid == slot's + 1
 *    -> new request; == slot's -> replay of the cached reply, or
 *    NFS4ERR_RETRY_UNCACHED_REP if it was not cached; otherwise
 *    NFS4ERR_SEQ_MISORDERED.
 *  - stateids: unknown or another client's -> NFS4ERR_BAD_STATEID; seqid 0
 *    matches any; older -> NFS4ERR_OLD_STATEID; newer -> BAD_STATEID;
 *    a stateid of another file -> NFS4ERR_BAD_STATEID.
 *  - grace (RFC 8881 8.4.2.1, 18.51.3): during the grace period, OPEN
 *    other than CLAIM_PREVIOUS, LOCK without reclaim and LOCKT ->
 *    NFS4ERR_GRACE; at any time, an OPEN other than CLAIM_PREVIOUS
 *    before the client's RECLAIM_COMPLETE -> NFS4ERR_GRACE (as Linux).
 *    A reclaim outside the grace period, or after the client's
 *    RECLAIM_COMPLETE -> NFS4ERR_NO_GRACE; by a client not in the record
 *    from before the restart -> NFS4ERR_RECLAIM_BAD.
 *  - locks: length 0, or offset + length beyond 2^64 -> NFS4ERR_INVAL;
 *    conflicting lock of another owner -> NFS4ERR_DENIED with the holder;
 *    write lock through a read-only open -> NFS4ERR_OPENMODE; a LOCK
 *    beyond the client's byte ranges -> NFS4ERR_DELAY, a LOCKU that
 *    would split one beyond them -> NFS4ERR_LOCK_RANGE; CLOSE or
 *    FREE_STATEID while locks are held -> NFS4ERR_LOCKS_HELD.
 */
#ifndef TINYNFS_STATE_H
#define TINYNFS_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nfs4_xdr.h"

#define TNFS_MAX_SLOTS 64
#define TNFS_MAX_OPS 32
#define TNFS_MAX_REQ (1024 * 1024 + 8192)
#define TNFS_MAX_CACHED 16384
#define TNFS_MAX_CLIENTS 1024
#define TNFS_MAX_SESSIONS 16 /* per client */
/* a fuzz build may make it smaller (fuzz/nfs_compound.c) */
#ifndef TNFS_MAX_STATEIDS
#define TNFS_MAX_STATEIDS 65536
#endif
#define TNFS_MAX_STATEIDS_PER_CLIENT 4096
#define TNFS_MAX_LOCKS_PER_CLIENT 16384 /* byte ranges */
#define TNFS_MAX_LOCKS 262144		/* byte ranges of all clients */
/* Reply cache bytes all sessions together may hold (section 2.10.6.1.3
 * of RFC 8881: each session reserves its slots times its negotiated
 * ca_maxresponsesize_cached out of this). */
#define TNFS_DRC_BUDGET (32u << 20)
/* The reply cache of a session created when the budget is spent: one
 * slot of this many bytes (enough for a lone SEQUENCE, an OPEN, a LOCK).
 * The worst case is then TNFS_DRC_BUDGET + TNFS_MAX_CLIENTS x
 * TNFS_MAX_SESSIONS x TNFS_MIN_CACHED (48 MiB). */
#define TNFS_MIN_CACHED 1024u
#define TNFS_LEASE_TIME 90
/* A lapsed client holding state is kept (a "courtesy client") until
 * another one conflicts with it, but no longer than this. */
#define TNFS_COURTESY_TIME 86400
/* CREATE_SESSION's smallest channels (RFC 8881 18.36.3: NFS4ERR_TOOSMALL
 * only for sizes no request or reply could fit).  The fore channel's,
 * either way, is Linux's nfsd's (NFSD_MIN_REQ_HDR_SEQ_SZ and
 * NFSD_MIN_RESP_HDR_SEQ_SZ, fs/nfsd/nfs4state.c): 64 bytes, about a
 * COMPOUND of a lone SEQUENCE under AUTH_NONE; what does not fit the
 * sizes granted is refused per request (NFS4ERR_REQ_TOO_BIG,
 * NFS4ERR_REP_TOO_BIG, compound.h).  A back channel must carry a
 * CB_SEQUENCE + CB_RECALL of a 128-byte handle under an AUTH_SYS call
 * header (about 400 bytes) and its reply. */
#define TNFS_MIN_REQ 64
#define TNFS_MIN_CB_REQ 512
#define TNFS_MIN_CB_RESP 128

struct tnfs_state;
struct tnfs_cred;

/* boot: 8 bytes distinguishing this server instance (ids embed it). */
int tnfs_state_new(const uint8_t boot[8], struct tnfs_state **out);
void tnfs_state_free(struct tnfs_state *st);

/* Resource limits.  Defaults (tnfs_state_new): from RLIMIT_NOFILE's soft
 * limit N at creation, open stateids hold at most N - max(64, N / 4)
 * descriptors in all (the rest is the reserve the server needs for
 * PUTFH, LOOKUP, connections), and one client at most a quarter of
 * those; TNFS_MAX_STATEIDS_PER_CLIENT stateids and
 * TNFS_MAX_LOCKS_PER_CLIENT byte ranges per client, TNFS_MAX_LOCKS in all;
 * TNFS_DRC_BUDGET bytes of reply cache, of which one session reserves at
 * most an eighth (CREATE_SESSION grants fewer slots, down to one of
 * TNFS_MIN_CACHED bytes, rather than more than that). */
struct tnfs_state_limits {
	unsigned fds;		  /* descriptors held by all open stateids */
	unsigned fds_per_client;  /* ... by one client's */
	unsigned stateids_per_client;
	unsigned locks_per_client; /* byte ranges held by its lock stateids */
	unsigned locks;		   /* ... by all clients' */
	size_t drc_bytes;	  /* reply cache reserved by all sessions */
};
void tnfs_state_get_limits(struct tnfs_state *st, struct tnfs_state_limits *out);
/* For new requests; what is held already stays. */
void tnfs_state_set_limits(struct tnfs_state *st, const struct tnfs_state_limits *l);

/* What the state holds now (tests, and the worst-case figures). */
struct tnfs_state_usage {
	unsigned clients, unconfirmed, sessions, stateids, fds, locks;
	size_t drc_reserved; /* sum over sessions of slots x cached size */
	size_t drc_held;     /* bytes allocated for cached replies */
};
void tnfs_state_usage(struct tnfs_state *st, struct tnfs_state_usage *out);

/* Leases: CREATE_SESSION and SEQUENCE renew a client's lease.  A client
 * whose lease (TNFS_LEASE_TIME seconds) has run out loses its record,
 * sessions included, when it holds no stateid (its client ID is then
 * NFS4ERR_STALE_CLIENTID, its sessions NFS4ERR_BADSESSION); holding some,
 * it keeps them as a "courtesy client" (as Linux's nfsd does) until
 * another client needs them -- a conflicting LOCK, LOCKT or OPEN share
 * reservation removes it with its state -- or TNFS_COURTESY_TIME has
 * passed; renewing first, it is served again.  The clock counts
 * seconds; NULL restores CLOCK_MONOTONIC (tests set their own). */
typedef uint64_t tnfs_clock_fn(void *arg);
void tnfs_state_set_clock(struct tnfs_state *st, tnfs_clock_fn *fn, void *arg);

/* Called when a client record goes (expired, destroyed, replaced by a new
 * incarnation, reaped for a conflict; not at tnfs_state_free), with the
 * state's mutex held: it must not call into the state.  The server drops
 * the client's delegations and back channel there.  NULL: none. */
/* Has the client's lease run out (a courtesy client, or one about to go)?
 * True for an unknown client too.  Takes the state's lock. */
bool tnfs_state_client_lapsed(struct tnfs_state *st, uint64_t clientid);
typedef void tnfs_client_gone_fn(void *arg, uint64_t clientid);
void tnfs_state_set_client_gone(struct tnfs_state *st, tnfs_client_gone_fn *fn, void *arg);

/* Grace and reclaim (grace.h): keeps the client record in directory
 * `dir` (created if missing, flock'd: -EBUSY if another server holds
 * it); when it names clients, the grace period of `secs` seconds starts
 * now.  0, -EALREADY (set before), or the -errno of grace.h.  A later
 * tnfs_state_set_clock restarts a grace period in progress. */
int tnfs_state_set_grace(struct tnfs_state *st, const char *dir, unsigned secs);
bool tnfs_state_in_grace(struct tnfs_state *st);
/* The last error writing the record (-errno), 0 if none (tests). */
int tnfs_state_grace_error(struct tnfs_state *st);
/* OPEN: may this client open (reclaim: CLAIM_PREVIOUS) now?  NFS4_OK or
 * the error of the grace rules above. */
uint32_t tnfs_state_may_open(struct tnfs_state *st, uint64_t clientid, bool reclaim);

/* who: the caller's credential (before squashing), the record's
 * principal.  *sp_how: the protection asked (SP4_MACH_CRED only from
 * tnfs_machine_cred(who, who), else NFS4ERR_INVAL; SP4_SSV
 * NFS4ERR_NOTSUPP), on NFS4_OK the record's. */
uint32_t tnfs_state_exchange_id(struct tnfs_state *st, const struct tnfs_cred *who,
				const uint8_t verf[8],
				const uint8_t *owner, uint32_t owner_len,
				uint32_t flags, uint32_t *sp_how,
				uint64_t *clientid, uint32_t *seqid,
				uint32_t *rflags);

/* SP4_MACH_CRED: the spo_must_allow list (operations 0 to 63) granted to
 * client ID clientid by its EXCHANGE_ID.  No-op for an unknown one. */
void tnfs_state_set_mach_allow(struct tnfs_state *st, uint64_t clientid,
			       const uint32_t allow[2]);
/* Is `who` the SP4_MACH_CRED machine credential (tnfs_machine_cred:
 * integrity protected) of client ID clientid?  Then *allow is its
 * spo_must_allow list; false for an SP4_NONE or unknown client. */
bool tnfs_state_mach_allow(struct tnfs_state *st, uint64_t clientid,
			   const struct tnfs_cred *who, uint32_t allow[2]);

/* On NFS4_OK fills res (sessionid, seqid, flags, channel attributes). */
uint32_t tnfs_state_create_session(struct tnfs_state *st, const struct tnfs_cred *who,
				   uint64_t clientid, uint32_t seqid, uint32_t flags,
				   const struct nfs4_channel_attrs *fore,
				   const struct nfs4_channel_attrs *back,
				   union nfs4_res *res);

/* What SEQUENCE found. */
struct tnfs_seq {
	uint64_t clientid;
	uint32_t nslots;
	uint32_t maxops, maxreq, maxresp, maxresp_cached;
	bool replay;
	/* replay: a copy of the cached reply, owned by the caller (free()) */
	uint8_t *reply;
	size_t reply_len;
};

uint32_t tnfs_state_sequence(struct tnfs_state *st, const uint8_t sid[16],
			     uint32_t seqid, uint32_t slotid, struct tnfs_seq *out);
/* The SEQUENCE that tnfs_state_sequence() let in on the slot fails
 * after all (a bound of the session, checked once its sizes are known):
 * the slot gets back its sequence id and cached reply, free, as if the
 * request had never come (RFC 8881 18.46.3: "If SEQUENCE returns an
 * error, then the state of the slot (sequence ID, cached reply) MUST NOT
 * change").  A session destroyed meanwhile is ignored. */
void tnfs_state_slot_undo(struct tnfs_state *st, const uint8_t sid[16], uint32_t slotid);
/* Ends the request on the slot and frees it.  cache: the reply is kept
 * (the client set sa_cachethis, or it is a lone SEQUENCE) if it fits the
 * session's negotiated ca_maxresponsesize_cached; otherwise only the
 * slot's sequence id is, and a retry of it gets
 * NFS4ERR_RETRY_UNCACHED_REP (RFC 8881 2.10.6.1.3).  A session destroyed
 * meanwhile is ignored. */
void tnfs_state_slot_done(struct tnfs_state *st, const uint8_t sid[16],
			  uint32_t slotid, const uint8_t *reply, size_t len,
			  bool cache);

/* who: the caller's credential.  DESTROY_SESSION, DESTROY_CLIENTID and
 * BIND_CONN_TO_SESSION by another principal than the client's
 * (tnfs_same_principal; SP4_MACH_CRED: tnfs_machine_cred) ->
 * NFS4ERR_WRONG_CRED, the record and its sessions untouched. */
uint32_t tnfs_state_destroy_session(struct tnfs_state *st, const struct tnfs_cred *who,
				    const uint8_t sid[16]);
/* NFS4ERR_CLIENTID_BUSY while the client has sessions or stateids (opens
 * and locks), or others_busy (it holds delegations: deleg.h) -- RFC 8881
 * 18.50.3, as Linux's nfsd answers. */
uint32_t tnfs_state_destroy_clientid(struct tnfs_state *st, const struct tnfs_cred *who,
				     uint64_t clientid, bool others_busy);
uint32_t tnfs_state_reclaim_complete(struct tnfs_state *st, uint64_t clientid,
				     bool one_fs);
/* BIND_CONN_TO_SESSION: NFS4_OK and the session's client, or
 * NFS4ERR_BADSESSION. */
uint32_t tnfs_state_bind_conn(struct tnfs_state *st, const struct tnfs_cred *who,
			      const uint8_t sid[16], uint64_t *clientid);

/* A file, as the state knows it. */
struct tnfs_file_key {
	dev_t dev;
	ino_t ino;
};

/* OPEN: creates or upgrades the open stateid of (owner, file).  Takes
 * ownership of fd (closed on failure, or when a broader one replaces it).
 * share_access/share_deny are validated by the caller. */
uint32_t tnfs_state_open(struct tnfs_state *st, uint64_t clientid,
			 const uint8_t *owner, uint32_t owner_len,
			 struct tnfs_file_key key, uint32_t access, uint32_t deny,
			 int fd, struct nfs4_stateid *out);
uint32_t tnfs_state_close(struct tnfs_state *st, uint64_t clientid,
			  const struct nfs4_stateid *sid, struct tnfs_file_key key,
			  struct nfs4_stateid *out);
uint32_t tnfs_state_downgrade(struct tnfs_state *st, uint64_t clientid,
			      const struct nfs4_stateid *sid,
			      struct tnfs_file_key key, uint32_t access,
			      uint32_t deny, struct nfs4_stateid *out);

/* True for the anonymous (all zeros) and READ-bypass (all ones) stateids. */
bool tnfs_stateid_is_special(const struct nfs4_stateid *sid);

/* For READ/WRITE/SEEK/SETATTR: a descriptor (dup, caller closes) of the
 * open behind sid, which must be this client's open or lock stateid for
 * `key`; *fd = -1 for a special stateid (caller opens the file itself).
 * need_write/need_read: NFS4ERR_OPENMODE if the open lacks that access. */
uint32_t tnfs_state_io_fd(struct tnfs_state *st, uint64_t clientid,
			  const struct nfs4_stateid *sid, struct tnfs_file_key key,
			  bool need_write, int *fd);

uint32_t tnfs_state_lock(struct tnfs_state *st, uint64_t clientid,
			 struct tnfs_file_key key, const union nfs4_args *a,
			 union nfs4_res *res);
uint32_t tnfs_state_lockt(struct tnfs_state *st, uint64_t clientid,
			  struct tnfs_file_key key, const union nfs4_args *a,
			  union nfs4_res *res);
uint32_t tnfs_state_locku(struct tnfs_state *st, uint64_t clientid,
			  struct tnfs_file_key key, const union nfs4_args *a,
			  union nfs4_res *res);

uint32_t tnfs_state_test_stateid(struct tnfs_state *st, uint64_t clientid,
				 const struct nfs4_stateid *sid);
uint32_t tnfs_state_free_stateid(struct tnfs_state *st, uint64_t clientid,
				 const struct nfs4_stateid *sid);

/* Longest lock owner stored so far (bounds the LOCK/LOCKT DENIED reply). */
uint32_t tnfs_state_max_owner_len(struct tnfs_state *st);

#endif
