/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller for RDMA handles and objects, after the Linux rdma
 * cgroup controller (rdmacg).
 *
 * A controller holds named groups.  Each group has, per RDMA device (named by
 * a string such as "rxe0"), a limit and a usage count for two resources:
 *
 *   hca_handle   device contexts (one per opened ibv_context)
 *   hca_object   every verbs object: PDs, CQs, QPs, MRs, SRQs, completion
 *                channels
 *
 * Every limit starts as unlimited ("max").  The groups are flat (there is no
 * hierarchy).  Whoever creates a verbs object charges it to a group first and
 * creates the object only if the charge succeeded; when the object is
 * destroyed the charge is released to the same group.  A charge that would
 * take usage above the limit fails with -EAGAIN and charges nothing.
 * Lowering a limit below the current usage never revokes anything: it only
 * makes new charges fail until usage drops below the limit again.
 *
 * The RDMA server transport charges the group given as
 * rpcrdma_listener_opts.resource_group; what each of its objects costs (per
 * device, per connection, per cached bulk buffer) and what a refusal does
 * are listed in <rpcrdma/xprt.h>, RESOURCE ACCOUNTING.  examples/rescg
 * (rescg-tool serve) runs such a server from a limits file.
 *
 * THREADS.  Every function may be called from any thread at any time, except
 * that a group or the controller must not be used after it was destroyed by
 * its owner (see the lifetimes below).  Each controller has one mutex; the
 * functions hold it for a bounded time and never call back into the caller.
 *
 * LIFETIMES.
 *  - The controller belongs to whoever created it.  rpcrdma_rescg_destroy()
 *    destroys every group too.  Charges still outstanding at that moment stay
 *    valid: the memory lives on until the last of them is released, and
 *    releasing them is the only thing allowed after destroy.
 *  - Groups are owned by their controller; the struct rpcrdma_rescg_group
 *    pointers the caller gets are borrowed and valid until the group is
 *    destroyed (rpcrdma_rescg_group_destroy() or destroy of the controller).
 *    A destroyed group disappears by name at once (the name can be reused);
 *    its memory stays until the charges made to it are released, so that
 *    outstanding charge tokens and uncharges stay valid.
 *  - A charge token (struct rpcrdma_rescg_charge) is owned by the caller that
 *    got it from rpcrdma_rescg_charge() and released, exactly once, with
 *    rpcrdma_rescg_uncharge().  The token remembers the group, device,
 *    resource and amount, so the uncharge always goes to the group that was
 *    charged, whatever happened to the group's name or limits since.
 *
 * NAMES.  Group names and device names are 1 to 63 characters from
 * [A-Za-z0-9_.:-].  The controller learns a device name the first time it is
 * named (by a limit, a charge, or rpcrdma_rescg_device_add()) and keeps it;
 * the printed files list devices in that order, the way the kernel lists
 * devices in registration order.  Devices are expected to be few (a scan is
 * made per call).
 *
 * VALUES.  Limits and usage are integers 0 .. RPCRDMA_RESCG_MAX - 1;
 * RPCRDMA_RESCG_MAX (2147483647, the kernel's S32_MAX) means unlimited and is
 * printed "max".  Usage can never reach RPCRDMA_RESCG_MAX: a charge that would
 * take usage to it fails with -EAGAIN even without a limit.
 *
 * FILE FORMATS.
 *
 * rdma.max (written with rpcrdma_rescg_group_write_max(), read with
 * rpcrdma_rescg_group_print_max()) holds one line per device:
 *
 *     rxe0 hca_handle=2 hca_object=2000
 *
 * Parsing rules, each violation rejected with -EINVAL and a message naming
 * the line ("line 2: unknown key 'hca_foo'"):
 *  - Lines end with '\n'; the last line may lack it.  Blank lines are
 *    ignored.  Spaces and tabs separate fields (any number of them) and may
 *    lead or trail a line.  Any other control byte (including NUL and '\r')
 *    is rejected.
 *  - The first field is the device name (NAMES above).
 *  - Then one or two fields "key=value" in any order, keys "hca_handle" and
 *    "hca_object"; a key omitted keeps its current limit; a key given twice
 *    on one line, a field without '=', an unknown key and a line with a
 *    device but no key are rejected.
 *  - A value is "max" (unlimited) or a decimal number without sign or
 *    leading zeros ("0" is fine; "007" is rejected, since the kernel would
 *    read it as octal) and at most 2147483647, which means "max" as in the
 *    kernel.
 *  - A device may appear on one line only per write.
 *  - All or nothing: if any line is rejected (or memory runs out), no limit
 *    changes and no device is learnt.
 *
 * rdma.max and rdma.current are printed the way the kernel prints them: one
 * line per device the controller knows, in the order it learnt them, each
 * line "<device> hca_handle=<v> hca_object=<v> \n" (note the kernel's space
 * before the newline), "max" for unlimited, usage for rdma.current.  A
 * controller that knows no device prints an empty string.
 *
 * The limits file (rpcrdma_rescg_load(), printed by
 * rpcrdma_rescg_print_limits()) groups rdma.max lines under section headers:
 *
 *     # tenants of the NFS server
 *     [gold]
 *     rxe0 hca_handle=2 hca_object=2000
 *     [bronze]
 *     rxe0 hca_object=64
 *
 *  - A line whose first non-blank character is '#' is a comment.  Comments
 *    are whole lines: a '#' after a header or a field is an error.
 *  - "[name]" starts the section of group "name" (NAMES above; no blanks
 *    inside the brackets, blanks around are fine).  A group name may head
 *    only one section per file.  A section may be empty.
 *  - Other lines are rdma.max lines (rules above) for the current section;
 *    one before any section header is rejected.
 *  - Loading creates the groups that do not exist yet and writes each
 *    section's lines to its group as rpcrdma_rescg_group_write_max() would.
 *    All or nothing, as above: on error no group is created and no limit
 *    changes.
 *
 * Error messages are written to the caller's buffer (err, errsize) as a
 * NUL-terminated string, truncated to fit; err may be NULL.  On success
 * err is set to "".  Quoted input in messages is cut to 32 bytes (followed
 * by "..." when cut) with non-printable bytes shown as '?'.  text may be
 * NULL when len is 0.
 *
 * PRINTING follows snprintf: the functions write at most size bytes
 * including a terminating NUL (nothing if size is 0, buf may then be NULL)
 * and return the length of the whole text, so a return >= size means the
 * output was truncated and tells the size needed.  A negative return is an
 * errno (-EINVAL for a NULL object, -EOVERFLOW above INT_MAX).
 */
#ifndef RPCRDMA_RESCG_H
#define RPCRDMA_RESCG_H

#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

/* Limit value meaning "unlimited", printed and parsed as "max". */
#define RPCRDMA_RESCG_MAX 2147483647u

/* Longest group or device name, without the terminating NUL. */
#define RPCRDMA_RESCG_NAME_MAX 63

/* The resources a group accounts, in the order the files print them. */
enum rpcrdma_rescg_resource {
	RPCRDMA_RES_HCA_HANDLE = 0, /* device contexts */
	RPCRDMA_RES_HCA_OBJECT = 1, /* PD, CQ, QP, MR, SRQ, completion channel */
};
#define RPCRDMA_RES_COUNT 2

struct rpcrdma_rescg;        /* controller */
struct rpcrdma_rescg_group;  /* group, owned by its controller */
struct rpcrdma_rescg_charge; /* charge token, owned by whoever charged */

/* "hca_handle" or "hca_object"; NULL for a value out of range. */
RPCRDMA_API const char *rpcrdma_rescg_resource_name(enum rpcrdma_rescg_resource res);

/*
 * Creates an empty controller in *out.  Returns 0 or -EINVAL (out NULL),
 * -ENOMEM.
 */
RPCRDMA_API int rpcrdma_rescg_create(struct rpcrdma_rescg **out);

/*
 * Destroys the controller and all its groups (see LIFETIMES for charges
 * still outstanding).  NULL is a no-op.
 */
RPCRDMA_API void rpcrdma_rescg_destroy(struct rpcrdma_rescg *ctl);

/*
 * Makes the controller know device `name` (so it is listed in the printed
 * files even before anything is charged to it), the way a device registers
 * with the kernel's controller.  Knowing a device already is not an error.
 * Returns 0, -EINVAL (bad name), -ENOMEM.
 */
RPCRDMA_API int rpcrdma_rescg_device_add(struct rpcrdma_rescg *ctl, const char *name);

/*
 * Creates group `name` with every limit unlimited and stores a borrowed
 * pointer in *out (may be NULL).  Returns 0, -EINVAL (bad name),
 * -EEXIST (a group of that name exists), -ENOMEM.
 */
RPCRDMA_API int rpcrdma_rescg_group_create(struct rpcrdma_rescg *ctl, const char *name,
					   struct rpcrdma_rescg_group **out);

/*
 * Removes the group from its controller (see LIFETIMES): its name is free
 * at once, new charges to it fail with -ENOENT, and outstanding charges can
 * still be released.  NULL is a no-op.
 */
RPCRDMA_API void rpcrdma_rescg_group_destroy(struct rpcrdma_rescg_group *grp);

/* The group called `name`, or NULL. */
RPCRDMA_API struct rpcrdma_rescg_group *rpcrdma_rescg_group_find(struct rpcrdma_rescg *ctl,
								 const char *name);

/*
 * Iterates the groups in creation order: NULL gives the first, a group gives
 * the one after it; NULL at the end.  The caller must not destroy groups
 * concurrently with an iteration.
 */
RPCRDMA_API struct rpcrdma_rescg_group *rpcrdma_rescg_group_next(struct rpcrdma_rescg *ctl,
								 struct rpcrdma_rescg_group *prev);

/* The group's name (valid as long as the group pointer). */
RPCRDMA_API const char *rpcrdma_rescg_group_name(const struct rpcrdma_rescg_group *grp);

/*
 * Sets the limit of `res` on `device` for the group to `limit`
 * (0 .. RPCRDMA_RESCG_MAX; RPCRDMA_RESCG_MAX is unlimited).  A limit below
 * the current usage only denies new charges.  Returns 0, -EINVAL, -ENOMEM.
 */
RPCRDMA_API int rpcrdma_rescg_group_set_limit(struct rpcrdma_rescg_group *grp, const char *device,
					      enum rpcrdma_rescg_resource res, uint32_t limit);

/*
 * Reads the limit and the usage of `res` on `device` (either pointer may be
 * NULL).  A device the controller does not know reads as unlimited, unused.
 * Returns 0 or -EINVAL.
 */
RPCRDMA_API int rpcrdma_rescg_group_get(struct rpcrdma_rescg_group *grp, const char *device,
					enum rpcrdma_rescg_resource res, uint32_t *limit,
					uint32_t *usage);

/*
 * Charges n (>= 1) units of `res` on `device` to the group, atomically: all
 * n or nothing.  On success *out receives a token that must be released with
 * rpcrdma_rescg_uncharge() when the objects are destroyed.  Charge before
 * creating the verbs object and do not create it if this fails.
 * Returns 0, -EAGAIN (usage + n would exceed the limit; nothing charged),
 * -ENOENT (group destroyed), -EINVAL (NULL, n == 0, bad device name or
 * resource), -ENOMEM.
 */
RPCRDMA_API int rpcrdma_rescg_charge(struct rpcrdma_rescg_group *grp, const char *device,
				     enum rpcrdma_rescg_resource res, uint32_t n,
				     struct rpcrdma_rescg_charge **out);

/*
 * Releases the whole charge to the group it was made to and frees the
 * token.  NULL is a no-op.  Releasing a token twice is a use after free.
 */
RPCRDMA_API void rpcrdma_rescg_uncharge(struct rpcrdma_rescg_charge *chg);

/* The group a token was charged to (valid until the token is released). */
RPCRDMA_API struct rpcrdma_rescg_group *rpcrdma_rescg_charge_group(
	const struct rpcrdma_rescg_charge *chg);

/*
 * Token-less accounting, for callers that keep the group pointer with the
 * object themselves (the group then stays allocated while usage is not zero).
 * rpcrdma_rescg_group_charge() behaves as rpcrdma_rescg_charge().
 * rpcrdma_rescg_group_uncharge() returns n units; uncharging more than is
 * charged (or on a device with nothing charged) is a programming error: it
 * returns -EINVAL and changes nothing.  Returns 0 or -EINVAL.
 */
RPCRDMA_API int rpcrdma_rescg_group_charge(struct rpcrdma_rescg_group *grp, const char *device,
					   enum rpcrdma_rescg_resource res, uint32_t n);
RPCRDMA_API int rpcrdma_rescg_group_uncharge(struct rpcrdma_rescg_group *grp, const char *device,
					     enum rpcrdma_rescg_resource res, uint32_t n);

/*
 * Writes rdma.max text (len bytes, need not be NUL-terminated) to the group.
 * Returns 0, -EINVAL (malformed; message in err), -ENOENT (group destroyed),
 * -ENOMEM.  All or nothing.
 */
RPCRDMA_API int rpcrdma_rescg_group_write_max(struct rpcrdma_rescg_group *grp, const char *text,
					      size_t len, char *err, size_t errsize);

/* Prints the group's rdma.max / rdma.current (see PRINTING). */
RPCRDMA_API int rpcrdma_rescg_group_print_max(struct rpcrdma_rescg_group *grp, char *buf,
					      size_t size);
RPCRDMA_API int rpcrdma_rescg_group_print_current(struct rpcrdma_rescg_group *grp, char *buf,
						  size_t size);

/*
 * Loads a limits file (len bytes) into the controller.  Returns 0, -EINVAL
 * (malformed; message in err), -ENOMEM.  All or nothing.
 */
RPCRDMA_API int rpcrdma_rescg_load(struct rpcrdma_rescg *ctl, const char *text, size_t len,
				   char *err, size_t errsize);

/*
 * Prints every group as a limits file that rpcrdma_rescg_load() reads back:
 * "[name]\n" then the group's rdma.max lines, groups in creation order.
 */
RPCRDMA_API int rpcrdma_rescg_print_limits(struct rpcrdma_rescg *ctl, char *buf, size_t size);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_RESCG_H */
