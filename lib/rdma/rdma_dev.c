/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-device resources of a listener: the PD, the SRQ and its receive
 * pool, the bulk cache, the registered regions, the device's resource
 * charges and its share of the poller's CQ pool (which CQs its
 * connections were given, and the SRQ's receives reserved on each); each
 * device is shared by the listener's connections on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_internal.h"

/* ---- per-device resources ---- */

/* app_thread: called from an application thread (listener destroy), which
 * may wait for the poller to hand back the SRQ's receives; drop: the device
 * was removed, destroy its CQs (rpcrdma__dev_cqs_put). */
void rpcrdma__dev_destroy(struct rpcrdma__dev *dev, bool app_thread, bool drop)
{
	/* Every connection is freed: no reply reads a region any more.
	 * (Their charges go with the ledger.) */
	for (unsigned i = 0; i < RPCRDMA_LISTENER_REGIONS_MAX; i++)
		if (dev->region_mr[i])
			ibv_dereg_mr(dev->region_mr[i]);
	rpcrdma__mrcache_fini(&dev->mrcache);
	if (dev->srq) {
		rpcrdma__recv_srq_quiesce(dev, app_thread);
		ibv_destroy_srq(dev->srq);
	}
	rpcrdma__pool_fini(&dev->srq_pool);
	rpcrdma__dev_cqs_put(dev, drop);
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	rpcrdma__rescg_ledger_release(&dev->led);
	rpcrdma__qpmap_fini(dev);
	free(dev);
}

/* The listener's DIRECT pollers (rdma_internal.h): polled while the
 * listener or a device waits for completions. */
bool rpcrdma__listener_direct(const struct rpcrdma_listener *l)
{
	if (l->poller->opts.mode == RPCRDMA_POLLER_DIRECT)
		return true;
	for (unsigned i = 0; i < l->nspread; i++)
		if (l->spread[i]->opts.mode == RPCRDMA_POLLER_DIRECT)
			return true;
	return false;
}

void rpcrdma__listener_poll(struct rpcrdma_listener *l)
{
	if (l->poller->opts.mode == RPCRDMA_POLLER_DIRECT)
		rpcrdma_poller_poll(l->poller, 0);
	for (unsigned i = 0; i < l->nspread; i++)
		if (l->spread[i] != l->poller && l->spread[i]->opts.mode == RPCRDMA_POLLER_DIRECT)
			rpcrdma_poller_poll(l->spread[i], 0);
	rpcrdma__batch_flush();
}

/* The device's SRQ, before it is destroyed (rdma_internal.h). */
void rpcrdma__recv_srq_quiesce(struct rpcrdma__dev *dev, bool wait_all)
{
	uint64_t until = rpcrdma__now_ns() + 2000000000ull;

	atomic_store(&dev->srq_dying, true);
	rpcrdma__batch_flush();
	for (;;) {
		bool back = true;

		if (wait_all) {
			pthread_mutex_lock(&dev->srq_pool.lock);
			back = dev->srq_pool.nfree + atomic_load(&dev->srq_in) >= dev->srq_pool.count;
			pthread_mutex_unlock(&dev->srq_pool.lock);
		}
		if (atomic_load(&dev->srq_posting) == 0 && back)
			return;
		if (rpcrdma__now_ns() > until)
			return;  /* a completion that never came: nothing will touch it */
		if (wait_all && rpcrdma__listener_direct(dev->l)) {
			rpcrdma__listener_poll(dev->l);
		} else {
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		}
	}
}

/* Charges the listener's group; counts a refusal.  0 or a negative errno. */
int rpcrdma__listener_charge(struct rpcrdma_listener *l, struct rpcrdma__rescg_ledger *led,
			    enum rpcrdma_rescg_resource res, uint32_t n)
{
	int err = rpcrdma__rescg_ledger_charge(led, res, n);

	if (err == -EAGAIN)
		rpcrdma__count(&l->stats, NULL, RPCRDMA_STAT_RESCG_DENIED, 1);
	return err;
}

/* Listener lock held: registers the listener's region i on dev, charged
 * to dev's ledger (one hca_object).  0 or a negative errno. */
static int dev_region_reg(struct rpcrdma_listener *l, struct rpcrdma__dev *dev, unsigned i)
{
	int err = rpcrdma__listener_charge(l, &dev->led, RPCRDMA_RES_HCA_OBJECT, 1);

	if (err)
		return err;
	/* The device only reads it (the source of RDMA Writes). */
	dev->region_mr[i] = ibv_reg_mr(dev->pd, (void *)(uintptr_t)l->regions[i].addr,
				       l->regions[i].len, 0);
	if (!dev->region_mr[i]) {
		err = errno ? -errno : -ENOMEM;
		(void)rpcrdma__rescg_ledger_uncharge(&dev->led, RPCRDMA_RES_HCA_OBJECT, 1);
	}
	return err;
}

/* Listener lock held: undoes dev_region_reg. */
static void dev_region_unreg(struct rpcrdma__dev *dev, unsigned i)
{
	ibv_dereg_mr(dev->region_mr[i]);
	dev->region_mr[i] = NULL;
	(void)rpcrdma__rescg_ledger_uncharge(&dev->led, RPCRDMA_RES_HCA_OBJECT, 1);
}

int rpcrdma_listener_register(struct rpcrdma_listener *l, const void *addr, size_t len)
{
	unsigned i;
	int err = 0;

	if (!l || !addr || len == 0)
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	i = atomic_load_explicit(&l->nregions, memory_order_relaxed);
	if (i == RPCRDMA_LISTENER_REGIONS_MAX) {
		pthread_mutex_unlock(&l->lock);
		return -ENOSPC;
	}
	l->regions[i].addr = addr;
	l->regions[i].len = len;
	for (struct rpcrdma__list *n = l->devs.next; n != &l->devs && !err; n = n->next) {
		struct rpcrdma__dev *dev = rpcrdma__container_of(n, struct rpcrdma__dev, node);

		if (!dev->removed)
			err = dev_region_reg(l, dev, i);
	}
	if (err) {
		for (struct rpcrdma__list *n = l->devs.next; n != &l->devs; n = n->next) {
			struct rpcrdma__dev *dev = rpcrdma__container_of(n, struct rpcrdma__dev, node);

			if (dev->region_mr[i])
				dev_region_unreg(dev, i);
		}
	} else {
		/* Readers (rpcrdma_call_reply) see the entry and its MRs. */
		atomic_store_explicit(&l->nregions, i + 1, memory_order_release);
	}
	pthread_mutex_unlock(&l->lock);
	return err;
}

int rpcrdma__create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qa)
{
	qa->cap.max_inline_data = RPCRDMA__INLINE_SEND;
	if (rdma_create_qp(id, pd, qa) == 0)
		return 0;
	qa->cap.max_inline_data = 0;
	return rdma_create_qp(id, pd, qa) ? -errno : 0;
}

/* Creates dev's SRQ and its receive pool, and posts every receive.  A
 * device that makes no SRQ leaves the connections their own receive queues
 * (and the SRQ's charge goes back).  0, or a negative errno with nothing
 * of the SRQ left. */
static int dev_srq_init(struct rpcrdma_listener *l, struct rpcrdma__dev *dev,
			const struct ibv_device_attr *attr, bool channel)
{
	uint32_t depth = l->opts.srq_depth, slack = RPCRDMA__EARLY_SLACK;
	struct ibv_srq_init_attr sa = { 0 };
	int err;

	if (depth > (uint32_t)attr->max_srq_wr)
		depth = (uint32_t)attr->max_srq_wr;
	/* Posted beyond what grants may promise: the receives of replies
	 * sent before their buffer was reposted (early_open). */
	if (slack > (uint32_t)attr->max_srq_wr - depth)
		slack = (uint32_t)attr->max_srq_wr - depth;
	depth += slack;
	sa.attr.max_wr = depth;
	sa.attr.max_sge = 1;
	dev->srq = ibv_create_srq(dev->pd, &sa);
	if (!dev->srq) {
		/* Per-connection receive queues: no SRQ, no SRQ MR. */
		(void)rpcrdma__rescg_ledger_uncharge(&dev->led, RPCRDMA_RES_HCA_OBJECT,
						     rpcrdma__rescg_dev_objects(true, channel) -
						     rpcrdma__rescg_dev_objects(false, channel));
		return 0;
	}
	err = rpcrdma__pool_init(&dev->srq_pool, dev->pd, rpcrdma__recv_done, depth,
				 sizeof(struct rpcrdma_call), l->opts.recv_inline,
				 IBV_ACCESS_LOCAL_WRITE);
	if (err)
		goto out_srq; /* a failed init undoes itself */
	dev->srq_posted = depth;
	for (uint32_t i = 0; i < depth; i++) {
		struct rpcrdma_call *call = (struct rpcrdma_call *)rpcrdma__pool_get(&dev->srq_pool);

		call->conn = NULL;
		call->dev = dev;
		rpcrdma__recv_repost(call);
	}
	dev->srq_unpromised = depth - slack;
	dev->early_slack = slack;
	return 0;

out_srq:
	ibv_destroy_srq(dev->srq);
	dev->srq = NULL;
	return err;
}

int rpcrdma__dev_get(struct rpcrdma_listener *l, struct ibv_context *verbs,
		     struct rpcrdma__dev **out)
{
	struct ibv_device_attr attr;
	struct rpcrdma__dev *dev;
	const char *name = ibv_get_device_name(verbs->device);
	bool channel = rpcrdma__poller_notifies(l->poller);
	bool use_srq;
	int err;

	for (struct rpcrdma__list *n = l->devs.next; n != &l->devs; n = n->next) {
		dev = rpcrdma__container_of(n, struct rpcrdma__dev, node);
		if (dev->verbs == verbs && !dev->removed) {
			*out = dev;
			return 0;
		}
	}
	if (ibv_query_device(verbs, &attr))
		return -EIO;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->verbs = verbs;
	dev->l = l;
	rpcrdma__qpmap_init(dev);
	dev->max_qp_wr = (uint32_t)attr.max_qp_wr;
	dev->max_sge = (uint32_t)attr.max_sge;
	dev->max_qp_rd_atom = (uint32_t)attr.max_qp_rd_atom;
	dev->max_qp_init_rd_atom = (uint32_t)attr.max_qp_init_rd_atom;
	use_srq = l->opts.use_srq && attr.max_srq > 0;
	/* Everything this device costs, before anything is created. */
	err = rpcrdma__rescg_ledger_init(&dev->led, l->opts.resource_group, name ? name : "");
	if (!err)
		err = rpcrdma__listener_charge(l, &dev->led, RPCRDMA_RES_HCA_HANDLE, 1);
	if (!err)
		err = rpcrdma__listener_charge(l, &dev->led, RPCRDMA_RES_HCA_OBJECT,
					       rpcrdma__rescg_dev_objects(use_srq, channel));
	if (err)
		goto out_ledger;
	dev->pd = ibv_alloc_pd(verbs);
	if (!dev->pd) {
		err = -ENOMEM;
		goto out_ledger;
	}
	err = rpcrdma__mrcache_init(&dev->mrcache, dev->pd, l->opts.bulk_cache_bytes,
				    l->opts.resource_group, name ? name : "", &l->stats);
	if (err)
		goto out_pd; /* a failed init undoes itself */
	/* The regions registered so far; one that fails here is copied from
	 * on this device instead. */
	for (unsigned i = 0; i < atomic_load(&l->nregions); i++)
		(void)dev_region_reg(l, dev, i);
	if (use_srq) {
		err = dev_srq_init(l, dev, &attr, channel);
		if (err)
			goto out_regions;
	}
	rpcrdma__list_add_tail(&l->devs, &dev->node);
	*out = dev;
	return 0;

	/* In the reverse order of the above (rpcrdma__dev_destroy undoes a
	 * whole device; here nothing is posted and no CQ is attached). */
out_regions:
	for (unsigned i = 0; i < RPCRDMA_LISTENER_REGIONS_MAX; i++)
		if (dev->region_mr[i])
			ibv_dereg_mr(dev->region_mr[i]);
	rpcrdma__mrcache_fini(&dev->mrcache);
out_pd:
	ibv_dealloc_pd(dev->pd);
out_ledger:
	rpcrdma__rescg_ledger_release(&dev->led);
	rpcrdma__qpmap_fini(dev);
	free(dev);
	return err;
}

/* ---- the device's CQs: its share of the poller's CQ pool (poller_cq.c) ---- */

int rpcrdma__conn_cq_get(struct rpcrdma__conn *conn, int entries)
{
	struct rpcrdma__dev *dev = conn->dev;
	struct rpcrdma_listener *l = conn->l;
	/* The SRQ's receives complete on the CQ of the queue pair that takes
	 * them: every CQ of the device must hold them all. */
	int share = dev->srq ? (int)dev->srq_posted : 0;
	struct rpcrdma__cq *cqs[RPCRDMA__MAX_CQS];
	unsigned ncqs;
	bool known = false, took_share;
	int err;

	/* A CQ that holds the share already needs room for entries alone
	 * (asking every CQ for the share again gave each connection a CQ of
	 * its own, and refused the 65th, once the share passed max_cqe / 2).
	 * Accepts of one listener are serialized: the list stays as read. */
	struct rpcrdma_poller *p = l->nspread ? l->spread[conn->spread_idx] : l->poller;

	/* Only the CQs of its poller (a spread listener's device has some of
	 * each): the connection's completions are that poller's. */
	pthread_mutex_lock(&l->lock);
	ncqs = 0;
	for (unsigned i = 0; i < dev->ncqs; i++)
		if (dev->cqs[i]->src.poller == p)
			cqs[ncqs++] = dev->cqs[i];
	pthread_mutex_unlock(&l->lock);
	err = rpcrdma__poller_cq_get_among(p, dev->verbs, entries, share, cqs, ncqs,
					   &conn->cq, &took_share);
	if (err)
		return err;
	pthread_mutex_lock(&l->lock);
	for (unsigned i = 0; i < dev->ncqs && !known; i++)
		known = dev->cqs[i] == conn->cq;
	if (!known && dev->ncqs == RPCRDMA__DEV_CQS) {
		/* Pollers of a spread, each with CQs grown past its first. */
		pthread_mutex_unlock(&l->lock);
		rpcrdma__poller_cq_put(conn->cq, entries + (took_share ? share : 0));
		conn->cq = NULL;
		return -ENOSPC;
	}
	if (!known)
		dev->cqs[dev->ncqs++] = conn->cq;
	pthread_mutex_unlock(&l->lock);
	if (known && took_share && share)
		rpcrdma__poller_cq_put(conn->cq, share);
	return 0;
}

void rpcrdma__dev_cqs_put(struct rpcrdma__dev *dev, bool drop)
{
	int share = dev->srq ? (int)dev->srq_posted : 0;

	for (unsigned i = 0; i < dev->ncqs; i++) {
		if (share)
			rpcrdma__poller_cq_put(dev->cqs[i], share);
		if (drop)
			rpcrdma__poller_cq_drop(dev->cqs[i]->src.poller, dev->cqs[i]);
	}
	dev->ncqs = 0;
}
