/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The listening id, and device removal on the listener's side: a
 * DEVICE_REMOVAL event closes the device's connections and marks it
 * removed; the listener's timer frees it once they are gone and listens
 * again when the listening id was on it.
 */
#include <errno.h>
#include <stdbool.h>

#include "rdma_internal.h"
#include "util/trace.h"

int rpcrdma__listen_on(struct rpcrdma_listener *l)
{
	struct rdma_cm_id *id;
	int err;

	if (rdma_create_id(l->ech, &id, l, RDMA_PS_TCP))
		return -errno;
	if (rdma_bind_addr(id, (struct sockaddr *)&l->addr) ||
	    rdma_listen(id, l->opts.backlog)) {
		err = -errno;
		rdma_destroy_id(id);
		return err;
	}
	l->id = id;
	return 0;
}

static void timer_arm(struct rpcrdma_listener *l, bool on)
{
	rpcrdma__timer_arm(&l->timer_src, &l->timer_armed, on, 100, 100);
}

/* Closes every connection of l (on device verbs only, unless NULL) that is
 * not closing yet, one at a time without the listener lock held. */
void rpcrdma__listener_close_conns(struct rpcrdma_listener *l, struct ibv_context *verbs,
				   const char *why)
{
	for (;;) {
		struct rpcrdma__conn *conn = NULL;

		pthread_mutex_lock(&l->lock);
		for (struct rpcrdma__list *n = l->conns.next; n != &l->conns; n = n->next) {
			struct rpcrdma__conn *c = rpcrdma__container_of(n, struct rpcrdma__conn, lnode);

			if ((!verbs || c->dev->verbs == verbs) && !c->closing_started && !c->freeing) {
				conn = c;
				rpcrdma__conn_get(c);
				break;
			}
		}
		pthread_mutex_unlock(&l->lock);
		if (!conn)
			return;
		rpcrdma__conn_close(conn, why);
		rpcrdma__conn_put(conn);
	}
}

/*
 * DEVICE_REMOVAL on any id of verbs (every id on the device gets one):
 * closes every connection on the device and marks it for reaping; the
 * timer (rpcrdma__devrm_handle) frees it once its connections are gone,
 * destroys the listening id when it was on that device and listens again.
 */
void rpcrdma__dev_remove(struct rpcrdma_listener *l, struct ibv_context *verbs, bool listen_id)
{
	bool first = false;

	pthread_mutex_lock(&l->lock);
	for (struct rpcrdma__list *n = l->devs.next; n != &l->devs; n = n->next) {
		struct rpcrdma__dev *dev = rpcrdma__container_of(n, struct rpcrdma__dev, node);

		if (dev->verbs == verbs && !dev->removed) {
			dev->removed = true;
			first = true;
		}
	}
	if (listen_id && !l->relisten) {
		l->relisten = true;
		first = true;
	}
	if (first && !l->closing)
		timer_arm(l, true);
	pthread_mutex_unlock(&l->lock);
	if (first)
		rpcrdma__count(&l->stats, NULL, RPCRDMA_STAT_DEVICE_REMOVALS, 1);
	RPCRDMA_TRACE(dev_remove, 0, ibv_get_device_name(verbs->device), listen_id, first);

	rpcrdma__listener_close_conns(l, verbs, "device removal");
}

int rpcrdma__devrm_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct rpcrdma_listener *l = rpcrdma__container_of(s, struct rpcrdma_listener, timer_src);
	bool more = false;

	(void)budget;
	rpcrdma__timer_ack(s);
	for (;;) {
		struct rpcrdma__dev *dev = NULL;

		pthread_mutex_lock(&l->lock);
		for (struct rpcrdma__list *n = l->devs.next; n != &l->devs; n = n->next) {
			struct rpcrdma__dev *d = rpcrdma__container_of(n, struct rpcrdma__dev, node);

			if (d->removed && d->nconns == 0) {
				dev = d;
				rpcrdma__list_del(&d->node);
				break;
			}
			if (d->removed)
				more = true;
		}
		pthread_mutex_unlock(&l->lock);
		if (!dev)
			break;
		rpcrdma__dev_destroy(dev, false, true);  /* SRQ, pools, bulk cache, PD, CQs, charges */
	}
	/* The listening id goes last: the device closes with its last id. */
	if (l->relisten && !more) {
		if (l->id) {
			rdma_destroy_id(l->id);
			l->id = NULL;
		}
		/* librdmacm closes a removed device's context only once it has
		 * resynced its device list with no id left on it: ask for the
		 * list (the kernel's delete waits for that close). */
		struct ibv_context **list = rdma_get_devices(NULL);

		if (list)
			rdma_free_devices(list);
		if (rpcrdma__listen_on(l) == 0) {
			pthread_mutex_lock(&l->lock);
			l->relisten = false;
			pthread_mutex_unlock(&l->lock);
		} else {
			more = true;
		}
	}
	pthread_mutex_lock(&l->lock);
	if (!more && !l->relisten)
		timer_arm(l, false);
	pthread_mutex_unlock(&l->lock);
	return 1;
}
