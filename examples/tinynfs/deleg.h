/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Read and write delegations (RFC 8881 section 10.2, 10.4; write ones:
 * tnfs_deleg_grant_write) and their recall, return and revocation.  Thread-safe (one mutex inside); no transport: a recall is
 * handed to the `recall` function given at creation (callback.h sends it
 * as CB_RECALL), and whether a client's callback path is up is asked of
 * `path_up`.
 *
 * Rules:
 *  - Grant (tnfs_deleg_grant): only while running (tnfs_deleg_start:
 *    the lease-break signal is set up), enabled, for a client whose
 *    callback path is up, on a regular file no other client holds a
 *    delegation of that is being recalled, one per client and file, at
 *    most as many as the limits allow, in all and per client
 *    (tnfs_deleg_set_limits).  Each delegation holds its own O_RDONLY
 *    descriptor with a Linux read lease (F_SETLEASE F_RDLCK): the kernel
 *    refuses it while anyone (tinynfs included) has the file open for
 *    writing, and breaks it when anyone opens it for writing or truncates
 *    it later -- a local process on the server as well as tinynfs itself
 *    for another client (its opens are O_NONBLOCK: EWOULDBLOCK, which is
 *    NFS4ERR_DELAY).  A broken lease recalls the delegation.
 *  - Recall (tnfs_deleg_break): a conflicting OPEN, REMOVE, RENAME,
 *    SETATTR of the size, or WRITE by another client (or by anyone, for
 *    `any`) recalls every delegation of the file; the operation gets
 *    NFS4ERR_DELAY until they are returned or revoked.
 *  - Courtesy clients: a delegation whose holder's lease has run out
 *    (ops.lapsed) is not recalled when something conflicts with it: it
 *    is revoked at once (no CB_RECALL; the conflicting operation or local
 *    opener proceeds), as Linux's nfsd does; if the client comes back, its
 *    stateid answers NFS4ERR_DELEG_REVOKED and its SEQUENCE replies carry
 *    SEQ4_STATUS_RECALLABLE_STATE_REVOKED, as below.
 *  - Revocation: a delegation recalled and not returned within the recall
 *    timeout (the lease, 90 s, or the kernel's lease-break-time if
 *    shorter: past that the kernel drops the lease itself) is revoked:
 *    its descriptor is closed (the lease with it), its stateid answers
 *    NFS4ERR_DELEG_REVOKED until FREE_STATEID, and the client's SEQUENCE
 *    replies carry SEQ4_STATUS_RECALLABLE_STATE_REVOKED meanwhile.
 *  - Stateids: "other" is 0x80000000|id, generation, boot word: no open
 *    or lock stateid has it (state.c's indexes are below 2^31).
 */
#ifndef TINYNFS_DELEG_H
#define TINYNFS_DELEG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "state.h"

#define TNFS_MAX_DELEGS 16384

struct tnfs_deleg;

/* What a holder answered to CB_GETATTR: the change attribute and size,
 * and with delegated timestamps (RFC 9754) time_deleg_access and
 * time_deleg_modify when it gave them. */
struct tnfs_deleg_cbattrs {
	uint64_t change, size;
	bool times;
	struct timespec atime, mtime;
};

struct tnfs_deleg_ops {
	/* Sends CB_RECALL (any thread, deleg's mutex held: must not call
	 * back into deleg). */
	void (*recall)(void *arg, uint64_t clientid, const struct nfs4_stateid *sid,
		       const uint8_t *fh, uint32_t fhlen);
	/* Sends CB_GETATTR of the change attribute and size, and of the
	 * delegated times if `times` (same rules; NULL: another client's
	 * GETATTR recalls the delegation instead).  The answer comes back
	 * through tnfs_deleg_cb_getattr_done(). */
	void (*getattr)(void *arg, uint64_t clientid, const struct nfs4_stateid *sid,
			const uint8_t *fh, uint32_t fhlen, bool times);
	/* Is the client's callback path up? (same rules) */
	bool (*path_up)(void *arg, uint64_t clientid);
	/* Has the client's lease run out (a courtesy client)?  Called
	 * without deleg's mutex (it may take the state's lock); NULL: never. */
	bool (*lapsed)(void *arg, uint64_t clientid);
	void *arg;
};

struct tnfs_deleg_stats {
	uint64_t granted, recalls, returned, revoked, lease_breaks;
	uint64_t revoked_lapsed; /* of revoked: unrecalled, the holder lapsed */
	uint64_t refused_limit;	 /* grants refused by the limits below */
	uint64_t granted_write;	 /* of granted: write delegations */
	uint64_t recalls_share;	 /* of recalls: from a client past its share */
	uint64_t lease_scans;	 /* sweeps of every held lease (F_GETLEASE each) */
	unsigned held; /* delegations held now (recalled ones included) */
	unsigned unleased; /* of held: lease released for the holder's write open */
	unsigned limit, limit_per_client; /* tnfs_deleg_set_limits */
};

int tnfs_deleg_new(uint32_t boot32, const struct tnfs_deleg_ops *ops,
		   struct tnfs_deleg **out);
/* Stops the thread, closes every descriptor. NULL is a no-op. */
void tnfs_deleg_free(struct tnfs_deleg *d);
void tnfs_deleg_set_enabled(struct tnfs_deleg *d, bool on);
/* Recall timeout in seconds (default: see above); the clock as in
 * state.h (NULL: CLOCK_MONOTONIC). */
void tnfs_deleg_set_timeout(struct tnfs_deleg *d, unsigned secs);
/* At most max delegations in all; per_client is a client's share (0:
 * the default; max: tnfs_deleg_default_max(); per client: a quarter of
 * max).  A client may go past its share while the table has room (a lone
 * client uses it all).  When the table is full, a client within its
 * share that asks for one has one delegation of the client furthest past
 * its share (granted ones counted, not those being recalled) recalled
 * (recalls_share counts them) and is refused this time: its next OPEN
 * finds the room once that is returned or revoked; one past its share is
 * refused.  So no client keeps more than its share from the others.
 * Revoked delegations not yet freed (FREE_STATEID) hold no descriptor
 * and leave the count at once (a client's own count keeps them until
 * it frees them).  When the table is full, the delegations of courtesy
 * clients (ops.lapsed) are taken back -- revoked at once, as a conflict
 * would, revoked_lapsed counts them -- before a new one is refused;
 * they are looked for at most once a second.  Beyond the limits OPEN
 * grants none (refused_limit counts). */
void tnfs_deleg_set_limits(struct tnfs_deleg *d, unsigned max, unsigned per_client);
/* Sized like nfsd's table: an eighth of the open-file limit
 * (RLIMIT_NOFILE's soft limit, each delegation holding a descriptor),
 * at most TNFS_MAX_DELEGS and at most 4 per MiB of memory
 * (set_max_delegations in nfsd). */
unsigned tnfs_deleg_default_max(void);
void tnfs_deleg_set_clock(struct tnfs_deleg *d, tnfs_clock_fn *fn, void *arg);

/*
 * Starts granting: the lease-break signal (TNFS_DELEG_SIGNAL) must be
 * blocked in every thread of the process (block it before creating any);
 * a thread of deleg's own reads it from a signalfd and, once a second,
 * revokes what timed out.  Block SIGIO too: the kernel sends it for a
 * break whose signal found the real-time queue full, and the thread then
 * looks at every held lease (lease_scans); with SIGIO not blocked it does
 * that once a second instead, a system call per held delegation.  0,
 * -EINVAL if the signal is not blocked in the calling thread, or -errno.
 */
int tnfs_deleg_start(struct tnfs_deleg *d);
int tnfs_deleg_signal(void);

/* OPEN for reading by clientid of `key` succeeded: try to grant.  path:
 * an O_PATH descriptor of the file (reopened read-only here), fh its
 * handle.  True and *out if granted. */
bool tnfs_deleg_grant(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
		      int path, const uint8_t *fh, uint32_t fhlen, struct nfs4_stateid *out);

/* tnfs_deleg_grant, and when none is granted *why: WND4_CONTENTION
 * (the file is open for writing, or another client's delegation of it is
 * being recalled), WND4_RESOURCE (not enabled or started, no callback
 * path, the limits, no memory or descriptor), or TNFS_WND_HELD (the
 * client holds one of the file already). */
#define TNFS_WND_HELD 0xfffffffeu
bool tnfs_deleg_grant_why(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			  int path, const uint8_t *fh, uint32_t fhlen, struct nfs4_stateid *out,
			  uint32_t *why);

/* A write delegation (RFC 8881 10.4) on wfd, a descriptor of the file
 * open for reading and writing (a dup of the OPEN's own), taken over
 * whatever happens: a Linux write lease (F_SETLEASE F_WRLCK) on it, which
 * the kernel grants only while that open is the file's only one, and
 * breaks on anyone's open or truncate -- a local process's, or tinynfs's
 * own for another client (O_NONBLOCK: NFS4ERR_DELAY), as for reads. */
bool tnfs_deleg_grant_write(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			    int wfd, const uint8_t *fh, uint32_t fhlen, struct nfs4_stateid *out,
			    uint32_t *why);
/* tnfs_deleg_grant_write with delegated timestamps (RFC 9754,
 * OPEN_DELEGATE_WRITE_ATTRS_DELEG): st, the file's attributes at the
 * grant, gives "the original time" its times are vetted against
 * (tnfs_deleg_times). */
bool tnfs_deleg_grant_write_attrs(struct tnfs_deleg *d, uint64_t clientid,
				  struct tnfs_file_key key, int wfd, const uint8_t *fh,
				  uint32_t fhlen, const struct stat *st,
				  struct nfs4_stateid *out, uint32_t *why);
/* tnfs_deleg_grant_why with delegated timestamps when st is not NULL
 * (RFC 9754, OPEN_DELEGATE_READ_ATTRS_DELEG): the holder owns the access
 * time (tnfs_deleg_times), st gives the original one. */
bool tnfs_deleg_grant_read_attrs(struct tnfs_deleg *d, uint64_t clientid,
				 struct tnfs_file_key key, int path, const uint8_t *fh,
				 uint32_t fhlen, const struct stat *st,
				 struct nfs4_stateid *out, uint32_t *why);
/* Grant write delegations (default true; --no-write-delegations)? */
void tnfs_deleg_set_write(struct tnfs_deleg *d, bool on);
bool tnfs_deleg_write_on(struct tnfs_deleg *d);

/*
 * SETATTR of time_deleg_access (*at, if *set_at) and time_deleg_modify
 * (*mt, if *set_mt) with stateid sid on key (RFC 9754): only clientid's
 * own delegation with delegated timestamps (granted or being recalled:
 * the return's SETATTR) allows it, else NFS4ERR_BAD_STATEID (as nfsd),
 * or the errors of tnfs_deleg_check; a read one (READ_ATTRS_DELEG) the
 * access time only (time_deleg_modify: NFS4ERR_BAD_STATEID).  Each time is vetted as the RFC
 * says: one not after the original time (the file's at the grant) is
 * ignored (*set_* false), one in the future is clamped to now.
 */
uint32_t tnfs_deleg_times(struct tnfs_deleg *d, uint64_t clientid,
			  const struct nfs4_stateid *sid, struct tnfs_file_key key,
			  struct timespec *at, bool *set_at, struct timespec *mt, bool *set_mt);

/* The holder's own opens never conflict with its delegation (RFC 8881
 * 10.4; nfsd does the same): before clientid opens key -- for writing
 * with a read delegation, any way with a write delegation -- the lease
 * is released (the kernel would break it on tinynfs's own open), the
 * delegation kept.  Other clients' operations still recall it
 * (tnfs_deleg_break); the once-a-second scan takes the lease again, not
 * in the second it went, as soon as the kernel allows it (read: nobody
 * has the file open for writing; write: the holder's other opens are
 * closed).  Meanwhile a local process's open is not seen. */
void tnfs_deleg_own_open(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			 bool write_access);

/* I/O with a delegation stateid of clientid on key: the errors of
 * tnfs_deleg_check; a write delegation gives *fd (a dup of its O_RDWR
 * descriptor: the holder's I/O breaks no lease of its own), a read one
 * *fd = -1 and NFS4ERR_OPENMODE for writing. */
uint32_t tnfs_deleg_io(struct tnfs_deleg *d, uint64_t clientid, const struct nfs4_stateid *sid,
		       struct tnfs_file_key key, bool write, int *fd);
/* Another client's GETATTR of the size or change attribute of key (RFC
 * 8881 10.4.3): NFS4_OK and *set false when no other client holds a
 * write delegation of it.  Else the holder is asked with CB_GETATTR and
 * the GETATTR gets NFS4ERR_DELAY until it answered; then NFS4_OK, *set,
 * the size it reported (out->size) and out->bump, by how much the change
 * attribute is to be above the file's (`change`): it grows by one each
 * time the holder reports a change attribute other than the file's and
 * than the one it reported last (the file was modified under the
 * delegation; RFC 8881 10.4.3, as nfsd counts it).  An answer serves one
 * GETATTR.  A holder that does not answer (callback error, no answer
 * within 20 s) or a recall in progress: the delegation is recalled,
 * NFS4ERR_DELAY.  With delegated timestamps (RFC 9754) the CB_GETATTR
 * asks for the delegated times too, and out->atime_set, out->mtime_set
 * say the holder gave times that pass the vetting of tnfs_deleg_times
 * (out->atime, out->mtime; one that does not leaves the file's).
 * times_only: the GETATTR asked for the access or modify time and
 * neither size nor change attribute: NFS4_OK, *set false, unless the
 * delegation has delegated timestamps. */
struct tnfs_deleg_ga {
	uint64_t size, bump;
	bool atime_set, mtime_set;
	struct timespec atime, mtime;
};
uint32_t tnfs_deleg_getattr(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			    uint64_t change, bool times_only, bool *set, struct tnfs_deleg_ga *out);
/* The holder's answer to CB_GETATTR for delegation sid (a NULL: none came). */
void tnfs_deleg_cb_getattr_done(struct tnfs_deleg *d, uint64_t clientid,
				const struct nfs4_stateid *sid,
				const struct tnfs_deleg_cbattrs *a);
/* Was a write delegation ever granted?  (GETATTR's fast path: no
 * lookup of the file until then.) */
bool tnfs_deleg_writes_ever(struct tnfs_deleg *d);
/* A dup of the descriptor of clientid's write delegation of key (not
 * revoked), or -1 (COMMIT, which has no stateid). */
int tnfs_deleg_own_fd(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key);
/* tnfs_deleg_break for other clients' write delegations only (another
 * client's READ, OPEN for reading). */
uint32_t tnfs_deleg_break_writes(struct tnfs_deleg *d, uint64_t clientid,
				 struct tnfs_file_key key);

/* An operation of clientid conflicting with others' delegations of key
 * (any: with its own too).  Recalls them; NFS4ERR_DELAY while any is
 * held, else NFS4_OK. */
uint32_t tnfs_deleg_break(struct tnfs_deleg *d, uint64_t clientid, struct tnfs_file_key key,
			  bool any);

/* True if sid has the delegation stateid layout. */
bool tnfs_deleg_is_sid(const struct nfs4_stateid *sid);
/* A delegation stateid of clientid for key (key NULL: any file): NFS4_OK,
 * NFS4ERR_DELEG_REVOKED, NFS4ERR_BAD_STATEID or NFS4ERR_OLD_STATEID. */
uint32_t tnfs_deleg_check(struct tnfs_deleg *d, uint64_t clientid,
			  const struct nfs4_stateid *sid, const struct tnfs_file_key *key);
/* DELEGRETURN: NFS4_OK (returned), or the errors of tnfs_deleg_check. */
uint32_t tnfs_deleg_return(struct tnfs_deleg *d, uint64_t clientid,
			   const struct nfs4_stateid *sid, struct tnfs_file_key key);
/* FREE_STATEID of a revoked delegation: NFS4_OK; a live one
 * NFS4ERR_LOCKS_HELD (RFC 8881 18.38.3); else NFS4ERR_BAD_STATEID. */
uint32_t tnfs_deleg_free_stateid(struct tnfs_deleg *d, uint64_t clientid,
				 const struct nfs4_stateid *sid);
/* The client's SEQUENCE status bits (RECALLABLE_STATE_REVOKED). */
uint32_t tnfs_deleg_seq_flags(struct tnfs_deleg *d, uint64_t clientid);
/* Drops all of the client's delegations (DESTROY_CLIENTID, expiry). */
void tnfs_deleg_forget_client(struct tnfs_deleg *d, uint64_t clientid);
/* Delegations the client holds (revoked ones it has not freed
 * included): DESTROY_CLIENTID is NFS4ERR_CLIENTID_BUSY while any is. */
unsigned tnfs_deleg_held_by(struct tnfs_deleg *d, uint64_t clientid);
/* Whether clients other than clientid may hold delegations now (false:
 * none can conflict with clientid's operations, and the callers skip the
 * stat that would find the file's key). */
bool tnfs_deleg_others_hold(struct tnfs_deleg *d, uint64_t clientid);
/* The client's path came up again: recalls in progress are sent again. */
void tnfs_deleg_resend(struct tnfs_deleg *d, uint64_t clientid);

/* The lease on descriptor fd is being broken (signal), or fd < 0: scan
 * every lease (F_GETLEASE).  Then revokes what timed out.  The thread
 * calls it; tests may. */
void tnfs_deleg_lease_break(struct tnfs_deleg *d, int fd);
void tnfs_deleg_tick(struct tnfs_deleg *d);

void tnfs_deleg_stats(struct tnfs_deleg *d, struct tnfs_deleg_stats *out);

#endif
