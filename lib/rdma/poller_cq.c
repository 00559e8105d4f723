/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The poller's pool of shared completion queues (as Linux's ib_cq_pool_get):
 * several CQs per device, created as needed.  A queue pair's entries go to
 * a new CQ while its device has fewer than opts.cqs, else to
 * the least-loaded CQ of its device that can hold them, growing it by
 * ibv_resize_cq up to the device's max_cqe; when none can, a new CQ is
 * created (at most RPCRDMA__MAX_CQS over all devices of the poller).  CQs
 * are kept when their last queue pair goes (a later connection reuses
 * them), until the device is removed (rpcrdma__poller_cq_drop, poller.c)
 * or the poller is destroyed.
 *
 * Readers without the lock (the busy thread, DIRECT callers) see cqs[] only
 * grow here: the new CQ is complete before ncqs covers its slot.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "poller_int.h"

int rpcrdma__cq_pick(struct rpcrdma__cq *const *cqs, unsigned ncq,
		     const struct ibv_context *verbs, int entries)
{
	int best = -1;

	for (unsigned i = 0; i < ncq; i++) {
		const struct rpcrdma__cq *cq = cqs[i];

		if (cq->verbs != verbs || cq->reserved > cq->max_cqe - entries)
			continue;
		if (best < 0 || cq->reserved < cqs[best]->reserved)
			best = (int)i;
	}
	return best;
}

/* Lock held: makes room for entries more on cq (resizing it).  0 or
 * -ENOSPC when the device refuses the larger size. */
static int cq_grow(struct rpcrdma_poller *p, struct rpcrdma__cq *cq, int entries)
{
	int want;

	if (cq->reserved + entries <= cq->capacity)
		return 0;
	want = cq->reserved + entries;
	want = want > cq->max_cqe - p->opts.cq_entries ? cq->max_cqe : want + p->opts.cq_entries;
	if (ibv_resize_cq(cq->cq, want))
		return -ENOSPC;
	cq->capacity = cq->cq->cqe;
	return cq->reserved + entries <= cq->capacity ? 0 : -ENOSPC;
}

/* Lock held: a new CQ for verbs holding entries, in cqs[ncq].  0 or a
 * negative errno. */
static int cq_create(struct rpcrdma_poller *p, struct ibv_context *verbs, int entries,
		     unsigned ncq, struct rpcrdma__cq **out)
{
	struct ibv_device_attr attr;
	struct rpcrdma__cq *cq;
	int want, err;

	if (ncq == RPCRDMA__MAX_CQS)
		return -ENOSPC;
	if (ibv_query_device(verbs, &attr))
		return -EIO;
	if (entries > attr.max_cqe)
		return -ENOSPC;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	cq->verbs = verbs;
	cq->max_cqe = attr.max_cqe;
	rpcrdma__list_init(&cq->waits);
	cq->src.poller = p;     /* cq_put's lock, with or without a channel */
	if (rpcrdma__poller_notifies(p)) {
		cq->channel = ibv_create_comp_channel(verbs);
		if (!cq->channel) {
			err = errno ? -errno : -ENOMEM;
			goto out_free;
		}
		fcntl(cq->channel->fd, F_SETFL, fcntl(cq->channel->fd, F_GETFL) | O_NONBLOCK);
	}
	want = p->opts.cq_entries > entries ? p->opts.cq_entries : entries;
	if (want > cq->max_cqe)
		want = cq->max_cqe;
	cq->cq = ibv_create_cq(verbs, want, cq, cq->channel, 0);
	if (!cq->cq) {
		err = errno ? -errno : -ENOMEM;
		goto out_chan;
	}
	cq->capacity = cq->cq->cqe;
	cq->reserved = entries;
	if (cq->channel) {
		ibv_req_notify_cq(cq->cq, 0);
		cq->src.fd = cq->channel->fd;
		cq->src.handle = rpcrdma__cq_handle;
		cq->src.is_cq = true;
		err = rpcrdma__poller_add(p, &cq->src);
		if (err)
			goto out_cq;
	}
	p->cqs[ncq] = cq;
	atomic_store(&p->ncqs, ncq + 1);
	*out = cq;
	return 0;
out_cq:
	ibv_destroy_cq(cq->cq);
out_chan:
	if (cq->channel)
		ibv_destroy_comp_channel(cq->channel);
out_free:
	free(cq);
	return err;
}

/* Lock held: the CQs of verbs among the first ncq. */
static unsigned device_cqs(struct rpcrdma_poller *p, const struct ibv_context *verbs,
			   unsigned ncq)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ncq; i++)
		n += p->cqs[i]->verbs == verbs;
	return n;
}

int rpcrdma__poller_cq_get(struct rpcrdma_poller *p, struct ibv_context *verbs, int entries,
			   struct rpcrdma__cq **out)
{
	struct rpcrdma__cq *cq = NULL;
	unsigned ncq;
	int i, err;

	pthread_mutex_lock(&p->lock);
	ncq = atomic_load(&p->ncqs);
	i = rpcrdma__cq_pick((struct rpcrdma__cq *const *)p->cqs, ncq, verbs, entries);
	if (i >= 0 && device_cqs(p, verbs, ncq) < p->opts.cqs)
		i = -1; /* opts.cqs: a CQ of its own while the device has fewer */
	if (i >= 0 && cq_grow(p, p->cqs[i], entries) == 0) {
		cq = p->cqs[i];
		cq->reserved += entries;
		err = 0;
	} else {
		err = cq_create(p, verbs, entries, ncq, &cq);
	}
	pthread_mutex_unlock(&p->lock);
	if (!err)
		*out = cq;
	return err;
}

int rpcrdma__poller_cq_get_among(struct rpcrdma_poller *p, struct ibv_context *verbs,
				 int entries, int extra, struct rpcrdma__cq *const *known,
				 unsigned nknown, struct rpcrdma__cq **out, bool *took_extra)
{
	int i;

	pthread_mutex_lock(&p->lock);
	i = rpcrdma__cq_pick(known, nknown, verbs, entries);
	if (i >= 0 && cq_grow(p, known[i], entries) == 0) {
		known[i]->reserved += entries;
		pthread_mutex_unlock(&p->lock);
		*took_extra = false;
		*out = known[i];
		return 0;
	}
	pthread_mutex_unlock(&p->lock);
	*took_extra = true;
	return rpcrdma__poller_cq_get(p, verbs, entries + extra, out);
}

void rpcrdma__poller_cq_put(struct rpcrdma__cq *cq, int entries)
{
	struct rpcrdma_poller *p = cq->src.poller;

	if (p)
		pthread_mutex_lock(&p->lock);
	cq->reserved -= entries;
	if (p)
		pthread_mutex_unlock(&p->lock);
}

/* ---- steps after the queue was polled empty (rpcrdma__cq_after) ---- */

void rpcrdma__cq_after(struct rpcrdma__cq *cq, struct rpcrdma__cq_wait *w)
{
	struct rpcrdma_poller *p = cq->src.poller;
	bool wake = false;
	uint64_t one = 1;

	pthread_mutex_lock(&p->lock);
	rpcrdma__list_add_tail(&cq->waits, &w->node);
	atomic_fetch_add(&cq->nwaits, 1);
	/* A CQ with a channel may sit armed with nothing to raise an event:
	 * a round takes it from the pending list.  One being handled goes
	 * there when its handler ends (source_run); without a channel, the
	 * BUSY thread or the DIRECT caller polls it anyway. */
	if (cq->channel && !atomic_load(&cq->src.busy) && !cq->src.on_pending &&
	    !atomic_load(&cq->src.dead)) {
		rpcrdma__list_add_tail(&p->pending, &cq->src.pnode);
		cq->src.on_pending = true;
	}
	wake = p->wake_src.fd >= 0;
	pthread_mutex_unlock(&p->lock);
	/* Also for a DIRECT caller polling it now: it comes back for it. */
	if (wake && write(p->wake_src.fd, &one, sizeof(one)) < 0) {
		/* eventfd writes only fail on overflow: readable anyway */
	}
}
