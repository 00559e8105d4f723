/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The grace period after a restart (RFC 8881 8.4.2.1, 18.51) and the
 * client record it rests on (clientrec.h), as Linux's nfsd keeps them:
 *
 *  - At start, DIR/clients names the clients known from before the
 *    restart.  If there are any, the server is in grace for `secs`
 *    seconds; with none, there is no grace period (nothing to reclaim).
 *  - A client enters the record when it sends RECLAIM_COMPLETE (as
 *    Linux's nfsd4_reclaim_complete does for 4.1: before it, the client
 *    holds no lock, since OPEN is refused until then) and leaves it when
 *    it is removed (DESTROY_CLIENTID, lease expiry, a new incarnation).
 *  - The grace period ends when its time is up, or earlier once every
 *    client known from before the restart has sent RECLAIM_COMPLETE.
 *    Until it ends, the record keeps the known clients that have not
 *    (a second restart lets them reclaim still); at its end they are
 *    dropped.
 *
 * Not thread-safe: the state calls it under its mutex (state_grace.c).
 * Record write errors do not fail the operation (Linux logs them too):
 * tnfs_grace_error() tells the last one.
 */
#ifndef TINYNFS_GRACE_H
#define TINYNFS_GRACE_H

#include <stdbool.h>
#include <stdint.h>

struct tnfs_grace;

/* Opens (creating it 0700 if missing) the state directory `dir`, takes an
 * exclusive flock on it (-EBUSY: another server uses it) and loads its
 * record (clientrec.h errors: a corrupt record is refused, not guessed
 * at).  The grace period, if any, starts at `now` (seconds of the
 * state's clock).  0 or -errno. */
int tnfs_grace_new(const char *dir, unsigned secs, uint64_t now, struct tnfs_grace **out);
void tnfs_grace_free(struct tnfs_grace *g);

/* In grace at `now`?  Ends it (rewriting the record) once time is up. */
bool tnfs_grace_active(struct tnfs_grace *g, uint64_t now);
/* A new clock: a grace period in progress starts again at `now`. */
void tnfs_grace_restart(struct tnfs_grace *g, uint64_t now);
/* Was owner id a client before the restart (may it reclaim)? */
bool tnfs_grace_known(const struct tnfs_grace *g, const uint8_t *id, uint32_t len);
/* RECLAIM_COMPLETE of owner id: recorded; the grace period ends if every
 * known client has now sent it. */
void tnfs_grace_reclaimed(struct tnfs_grace *g, const uint8_t *id, uint32_t len);
/* A recorded client is gone: it leaves the record. */
void tnfs_grace_forget(struct tnfs_grace *g, const uint8_t *id, uint32_t len);
/* on: tnfs_grace_forget only marks the record to write (many clients
 * expiring at once cost one write, not one fsync each); off: writes it
 * if marked. */
void tnfs_grace_batch(struct tnfs_grace *g, bool on);
/* The last record write error (-errno), 0 if none. */
int tnfs_grace_error(const struct tnfs_grace *g);

#endif
