/* SPDX-License-Identifier: BSD-2-Clause */
/* Delegated timestamps (RFC 9754; deleg.h): the holder's SETATTR of
 * time_deleg_access and time_deleg_modify, and the vetting of its times. */
#include "deleg.h"
#include "deleg_int.h"

static int cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

/* RFC 9754: "When the time presented is before the original time, then
 * the update is ignored.  When the time presented is in the future, the
 * server can either clamp the new time to the current time or return
 * NFS4ERR_DELAY": ignored when not after the original time (the file's
 * at the grant: a WRITE through the server since moved the file's own
 * times, which the holder's are to replace), clamped (as nfsd). */
bool tnfs__deleg_vet_time(struct timespec *t, const struct timespec *orig)
{
	if (cmp(t, orig) <= 0)
		return false;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (cmp(t, &now) > 0)
		*t = now;
	return true;
}

uint32_t tnfs_deleg_times(struct tnfs_deleg *d, uint64_t clientid,
			  const struct nfs4_stateid *sid, struct tnfs_file_key key,
			  struct timespec *at, bool *set_at, struct timespec *mt, bool *set_mt)
{
	uint32_t s;
	pthread_mutex_lock(&d->mu);
	struct deleg *g = tnfs__deleg_find_sid(d, clientid, sid, &s);
	if (g && s == NFS4_OK &&
	    (!g->attrs || !same_key(g->key, key) || (!g->write && *set_mt)))
		s = NFS4ERR_BAD_STATEID; /* a read one: the access time only */
	if (s == NFS4_OK && *set_at)
		*set_at = tnfs__deleg_vet_time(at, &g->at0);
	if (s == NFS4_OK && *set_mt)
		*set_mt = tnfs__deleg_vet_time(mt, &g->mt0);
	pthread_mutex_unlock(&d->mu);
	return s;
}
