/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller glue for the transports (internal, not installed).
 *
 * A ledger records what one owner (a connection, a listener, a device
 * context holder) charged to one group on one device, so that tearing the
 * owner down returns exactly that, to that group, whatever happened to the
 * group since.  Embed one in the object that owns the verbs resources:
 *
 *     struct rpcrdma__rescg_ledger led;
 *     rc = rpcrdma__rescg_ledger_init(&led, listener_group,
 *                                     ibv_get_device_name(ctx->device));
 *     ...
 *     rc = rpcrdma__rescg_ledger_charge(&led, RPCRDMA_RES_HCA_OBJECT, 1);
 *     if (rc)                 -EAGAIN: over the group's limit
 *         goto reject;        (create nothing, reject the connection)
 *     qp = create the QP;
 *     if (!qp) {
 *         rpcrdma__rescg_ledger_uncharge(&led, RPCRDMA_RES_HCA_OBJECT, 1);
 *         goto fail;
 *     }
 *     ...
 *     teardown: destroy the verbs objects, then
 *     rpcrdma__rescg_ledger_release(&led);
 *
 * What to charge: one hca_handle per ibv_context opened (or per rdma_cm
 * device context the transport holds for its own use); one hca_object per PD,
 * CQ, QP, MR, SRQ and completion channel.  Charge before creating, uncharge
 * after destroying (or when creating failed).
 *
 * A ledger with a NULL group accounts nothing and every charge succeeds, so
 * a listener without a group needs no special case.  The ledger is not
 * locked: one owner uses it from one thread at a time (the group's
 * accounting itself is thread-safe).  It keeps the group's memory alive while
 * anything is charged, so destroying the group or the controller while
 * connections are up is safe; new charges then fail with -ENOENT.
 */
#ifndef RPCRDMA_LIB_RESCG_LEDGER_H
#define RPCRDMA_LIB_RESCG_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rescg.h>

struct rpcrdma__rescg_ledger {
	struct rpcrdma_rescg_group *grp; /* NULL: no accounting */
	uint32_t dev;                    /* device index in grp's controller */
	uint32_t held[RPCRDMA_RES_COUNT];
	bool gone;                       /* group destroyed and freed: -ENOENT */
};

/*
 * Binds the ledger to grp (may be NULL) and device.  Returns 0, -EINVAL (bad
 * device name), -ENOENT (group destroyed), -ENOMEM.  On error the ledger is
 * left unbound (grp NULL) and release is a no-op.
 */
int rpcrdma__rescg_ledger_init(struct rpcrdma__rescg_ledger *led, struct rpcrdma_rescg_group *grp,
			       const char *device);

/* Charges n units; 0, -EAGAIN (over limit, nothing charged), -ENOENT, -EINVAL. */
int rpcrdma__rescg_ledger_charge(struct rpcrdma__rescg_ledger *led, enum rpcrdma_rescg_resource res,
				 uint32_t n);

/* Returns n units; -EINVAL (and no change) if the ledger holds fewer. */
int rpcrdma__rescg_ledger_uncharge(struct rpcrdma__rescg_ledger *led,
				   enum rpcrdma_rescg_resource res, uint32_t n);

/*
 * Returns everything the ledger holds and unbinds it (it then accounts
 * nothing until initialised again).  Safe to call twice.
 */
void rpcrdma__rescg_ledger_release(struct rpcrdma__rescg_ledger *led);

#endif /* RPCRDMA_LIB_RESCG_LEDGER_H */
