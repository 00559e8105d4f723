/* SPDX-License-Identifier: BSD-2-Clause */
/* Resource controller glue for the transports: see rescg_ledger.h. */
#include <errno.h>
#include <string.h>

#include "rescg_internal.h"
#include "rescg_ledger.h"

int rpcrdma__rescg_ledger_init(struct rpcrdma__rescg_ledger *led, struct rpcrdma_rescg_group *grp,
			       const char *device)
{
	if (!led)
		return -EINVAL;
	memset(led, 0, sizeof(*led));
	if (!grp)
		return 0;
	struct rpcrdma_rescg *ctl = grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	int64_t idx = grp->removed ? -ENOENT : rpcrdma__rescg_dev_get_locked(ctl, device);
	pthread_mutex_unlock(&ctl->lock);
	if (idx < 0)
		return (int)idx;
	led->grp = grp;
	led->dev = (uint32_t)idx;
	return 0;
}

int rpcrdma__rescg_ledger_charge(struct rpcrdma__rescg_ledger *led, enum rpcrdma_rescg_resource res,
				 uint32_t n)
{
	if (!led || (unsigned)res >= RPCRDMA_RES_COUNT || n == 0)
		return -EINVAL;
	if (led->gone)
		return -ENOENT;
	if (!led->grp)
		return 0;
	if (n > UINT32_MAX - led->held[res])
		return -EAGAIN;
	struct rpcrdma_rescg *ctl = led->grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	int rc = rpcrdma__rescg_charge_locked(led->grp, led->dev, res, n);
	pthread_mutex_unlock(&ctl->lock);
	if (rc == 0)
		led->held[res] += n;
	return rc;
}

int rpcrdma__rescg_ledger_uncharge(struct rpcrdma__rescg_ledger *led,
				   enum rpcrdma_rescg_resource res, uint32_t n)
{
	if (!led || (unsigned)res >= RPCRDMA_RES_COUNT || n == 0)
		return -EINVAL;
	if (!led->grp)
		return led->gone ? -EINVAL : 0;
	if (n > led->held[res])
		return -EINVAL;
	struct rpcrdma_rescg_group *grp = led->grp;
	struct rpcrdma_rescg *ctl = grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	int rc = rpcrdma__rescg_uncharge_locked(grp, led->dev, res, n);
	if (rc == 0)
		led->held[res] -= n;
	if (grp->removed && grp->usage_total == 0) {
		/* The unlock below frees the group: forget it. */
		led->grp = NULL;
		led->gone = true;
	}
	rpcrdma__rescg_unlock(ctl, grp);
	return rc;
}

void rpcrdma__rescg_ledger_release(struct rpcrdma__rescg_ledger *led)
{
	if (!led || !led->grp)
		return;
	struct rpcrdma_rescg_group *grp = led->grp;
	struct rpcrdma_rescg *ctl = grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	for (int r = 0; r < RPCRDMA_RES_COUNT; r++) {
		if (led->held[r])
			(void)rpcrdma__rescg_uncharge_locked(grp, led->dev,
							     (enum rpcrdma_rescg_resource)r,
							     led->held[r]);
		led->held[r] = 0;
	}
	led->grp = NULL;
	rpcrdma__rescg_unlock(ctl, grp);
}
