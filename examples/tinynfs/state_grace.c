/* SPDX-License-Identifier: BSD-2-Clause */
/* The grace period as the state applies it (RFC 8881 8.4.2.1, 18.51);
 * see state.h and grace.h. */
#include "state_int.h"

#include <errno.h>
#include <pthread.h>

#include "grace.h"

int tnfs_state_set_grace(struct tnfs_state *st, const char *dir, unsigned secs)
{
	struct tnfs_grace *g;
	pthread_mutex_lock(&st->mu);
	int rc = st->grace ? -EALREADY : tnfs_grace_new(dir, secs, tnfs__now(st), &g);
	if (rc == 0)
		st->grace = g;
	pthread_mutex_unlock(&st->mu);
	return rc;
}

bool tnfs_state_in_grace(struct tnfs_state *st)
{
	pthread_mutex_lock(&st->mu);
	bool in = st->grace && tnfs_grace_active(st->grace, tnfs__now(st));
	pthread_mutex_unlock(&st->mu);
	return in;
}

int tnfs_state_grace_error(struct tnfs_state *st)
{
	pthread_mutex_lock(&st->mu);
	int rc = st->grace ? tnfs_grace_error(st->grace) : 0;
	pthread_mutex_unlock(&st->mu);
	return rc;
}

uint32_t tnfs__lock_allowed(struct tnfs_state *st, uint64_t clientid, bool reclaim,
			    bool need_complete)
{
	const struct client *c = tnfs__find_client(st, clientid);
	bool grace = st->grace && tnfs_grace_active(st->grace, tnfs__now(st));
	if (!reclaim) {
		/* 8.4.2.1: nothing new while old locks may come back; 18.51.3:
		 * nothing new before the client's RECLAIM_COMPLETE */
		if (grace || (need_complete && c && !c->reclaim_done))
			return NFS4ERR_GRACE;
		return NFS4_OK;
	}
	if (!grace || !c || c->reclaim_done)
		return NFS4ERR_NO_GRACE; /* 18.51.3: no reclaim after it */
	if (!tnfs_grace_known(st->grace, c->owner, c->owner_len))
		return NFS4ERR_RECLAIM_BAD; /* held nothing before the restart */
	return NFS4_OK;
}

uint32_t tnfs_state_may_open(struct tnfs_state *st, uint64_t clientid, bool reclaim)
{
	pthread_mutex_lock(&st->mu);
	uint32_t s = tnfs__lock_allowed(st, clientid, reclaim, true);
	pthread_mutex_unlock(&st->mu);
	return s;
}

void tnfs__grace_reclaimed(struct tnfs_state *st, const struct client *c)
{
	if (st->grace)
		tnfs_grace_reclaimed(st->grace, c->owner, c->owner_len);
}

void tnfs__grace_forget(struct tnfs_state *st, const struct client *c)
{
	if (st->grace && c->reclaim_done)
		tnfs_grace_forget(st->grace, c->owner, c->owner_len);
}

void tnfs__grace_batch(struct tnfs_state *st, bool on)
{
	if (st->grace)
		tnfs_grace_batch(st->grace, on);
}

void tnfs__grace_free(struct tnfs_state *st)
{
	tnfs_grace_free(st->grace);
	st->grace = NULL;
}
