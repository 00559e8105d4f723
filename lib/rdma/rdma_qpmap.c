/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A device's connections by QP number: with a shared receive queue a
 * receive completion names its QP only by number, and this table gives
 * back the connection (rpcrdma__dev_find_conn).  Chains through
 * conn->qp_hnext, a bucket the number's low bits; the table starts on the
 * 64 buckets inside the device and doubles while there are more than two
 * connections a bucket.  Every function runs under the listener lock but
 * rpcrdma__dev_find_conn, which takes it.
 */
#include <stdlib.h>

#include "rdma_internal.h"

void rpcrdma__qpmap_init(struct rpcrdma__dev *dev)
{
	dev->qp_hash = dev->qp_hash0;
	dev->qp_hmask = sizeof(dev->qp_hash0) / sizeof(dev->qp_hash0[0]) - 1;
	dev->qp_hcount = 0;
}

void rpcrdma__qpmap_fini(struct rpcrdma__dev *dev)
{
	if (dev->qp_hash != dev->qp_hash0)
		free(dev->qp_hash);
	dev->qp_hash = dev->qp_hash0;
}

/* Doubles dev's table; on a failed allocation the chains grow instead. */
static void grow(struct rpcrdma__dev *dev)
{
	unsigned n = (dev->qp_hmask + 1) * 2;
	struct rpcrdma__conn **t = calloc(n, sizeof(*t));

	if (!t)
		return;
	for (unsigned i = 0; i <= dev->qp_hmask; i++) {
		struct rpcrdma__conn *c = dev->qp_hash[i], *next;

		for (; c; c = next) {
			next = c->qp_hnext;
			c->qp_hnext = t[c->qp_num & (n - 1)];
			t[c->qp_num & (n - 1)] = c;
		}
	}
	if (dev->qp_hash != dev->qp_hash0)
		free(dev->qp_hash);
	dev->qp_hash = t;
	dev->qp_hmask = n - 1;
}

void rpcrdma__qpmap_add(struct rpcrdma__dev *dev, struct rpcrdma__conn *conn)
{
	struct rpcrdma__conn **b;

	if (dev->qp_hcount >= 2 * (dev->qp_hmask + 1))
		grow(dev);
	b = &dev->qp_hash[conn->qp_num & dev->qp_hmask];
	conn->qp_hnext = *b;
	*b = conn;
	dev->qp_hcount++;
}

void rpcrdma__qpmap_del(struct rpcrdma__dev *dev, struct rpcrdma__conn *conn)
{
	if (!conn->qp)
		return;
	for (struct rpcrdma__conn **pp = &dev->qp_hash[conn->qp_num & dev->qp_hmask]; *pp;
	     pp = &(*pp)->qp_hnext) {
		if (*pp == conn) {
			*pp = conn->qp_hnext;
			dev->qp_hcount--;
			return;
		}
	}
}

struct rpcrdma__conn *rpcrdma__qpmap_find(const struct rpcrdma__dev *dev, uint32_t qp_num)
{
	for (struct rpcrdma__conn *c = dev->qp_hash[qp_num & dev->qp_hmask]; c; c = c->qp_hnext)
		if (c->qp_num == qp_num)
			return c;
	return NULL;
}

/* Takes the listener lock itself, unlike the functions above. */
struct rpcrdma__conn *rpcrdma__dev_find_conn(struct rpcrdma__dev *dev, uint32_t qp_num)
{
	struct rpcrdma_listener *l = dev->l;
	struct rpcrdma__conn *found = NULL;

	/* QP numbers are per device, and so is the table. */
	pthread_mutex_lock(&l->lock);
	found = rpcrdma__qpmap_find(dev, qp_num);
	if (found && !found->freeing)
		rpcrdma__conn_get(found);
	else
		found = NULL;
	pthread_mutex_unlock(&l->lock);
	return found;
}
