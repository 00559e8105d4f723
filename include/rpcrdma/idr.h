/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma: integer id allocators.
 *
 *  - IDR maps a non-negative int id to a pointer.  It hands out the lowest
 *    free id of a range (connection ids) or the next id after the last one it
 *    handed out, wrapping around (ids that must not be reused soon, such as
 *    the xids of calls in flight or client and session ids).
 *  - IDA hands out ids only (no pointer) and stores them as bitmaps: one bit
 *    per id once dense, and no node at all while every id in use is below 64.
 *
 * Both are radix trees with 64-slot interior nodes.  Every interior node keeps
 * a bitmap of the children that exist and a bitmap of the children that are
 * full, so finding the lowest free id, the next used id, or an id costs
 * O(height) whatever the number of ids (height <= 6 for the IDR, <= 5 for the
 * IDA, since ids are at most INT_MAX).  Nodes are freed as soon as they become
 * empty and the tree shrinks back, so an empty allocator holds no node.
 *
 * Id ranges: functions that take [start, end) hand out an id with
 * start <= id < end.  end <= 0 means "no upper limit", i.e. end = INT_MAX + 1
 * (so every id up to and including INT_MAX is reachable).  start must be >= 0,
 * and when end > 0 start must be < end: otherwise -EINVAL.  A range with no
 * free id gives -ENOSPC.
 *
 * Errors are negative errno values: -EINVAL (bad argument), -ENOSPC (range
 * full), -ENOMEM (a node could not be allocated), -ENOENT (id not in use).
 * Every operation either succeeds or leaves the structure exactly as it was:
 * in particular an -ENOMEM from an allocation changes nothing (all nodes an
 * operation needs are obtained before the tree is touched).  Only the
 * allocating calls can return -ENOMEM; removal, replacement and lookup never
 * allocate.
 *
 * Memory: a node is 528 bytes (64 slots and two bitmaps) and an IDA leaf 128
 * bytes (1024 ids).  Dense ids cost about 8.4 bytes each in an IDR and 0.13
 * in an IDA; an isolated id costs up to one node per level (an IDR holding
 * ids spread over the whole int range uses ~1 KiB per id, where a hash map
 * would use ~40 bytes), so these suit ids they hand out themselves, which
 * stay dense.  tests/bench/bench_idr.c prints the figures.
 *
 * Typical uses:
 *   connection ids, lowest free, reused at once:
 *       int id = rpcrdma_idr_alloc(conns, conn, 0, 0);
 *   calls in flight by xid, not reused until the range wraps (so a late
 *   reply finds no call rather than a newer call with the same xid):
 *       int xid = rpcrdma_idr_alloc_cyclic(calls, call, 1, 0);
 *       ... struct call *c = rpcrdma_idr_remove(calls, xid_from_reply);
 *
 * Threads: an allocator is not locked.  Concurrent read-only calls (find,
 * lookup, get_next, test, count) are safe with each other; any call that
 * changes it must be serialised by the caller against all other calls.
 */
#ifndef RPCRDMA_IDR_H
#define RPCRDMA_IDR_H

#include <rpcrdma/api.h>

#include <stdbool.h>
#include <stddef.h>

RPCRDMA_BEGIN_DECLS

/**
 * Memory hooks for an IDR or IDA, given at creation and used for the handle
 * and every node for its whole life.  alloc(user, size) returns size bytes
 * aligned for any object, or NULL on failure (the operation then fails with
 * -ENOMEM and changes nothing); free(user, ptr, size) releases a block
 * obtained from alloc with the same size.  The structure is copied at
 * creation; user is passed back untouched.  Tests use it to make the Nth
 * allocation fail; programs to account memory.
 */
struct rpcrdma_idr_allocator {
	void *(*alloc)(void *user, size_t size);
	void (*free)(void *user, void *ptr, size_t size);
	void *user;
};

/* ------------------------------------------------------------------ IDR */

/** An id -> pointer map (opaque). */
struct rpcrdma_idr;

/**
 * Creates an empty IDR in *out.  allocator may be NULL (malloc and free);
 * otherwise both of its functions must be set (-EINVAL if not).
 * Returns 0, -EINVAL or -ENOMEM (then *out is untouched).
 */
RPCRDMA_API int rpcrdma_idr_create(const struct rpcrdma_idr_allocator *allocator,
				   struct rpcrdma_idr **out);

/**
 * Frees the IDR and all its nodes.  The stored pointers are not touched:
 * release what they point to first (e.g. with rpcrdma_idr_for_each).
 * NULL is accepted and ignored.
 */
RPCRDMA_API void rpcrdma_idr_destroy(struct rpcrdma_idr *idr);

/**
 * Allocates the lowest free id in [start, end) (see the range rules above)
 * and stores ptr under it.  ptr may be NULL: the id is then reserved (it is
 * in use, lookup succeeds, find returns NULL) until it is removed; use
 * rpcrdma_idr_replace to set the pointer once the object exists.
 * Returns the id (>= 0), -EINVAL, -ENOSPC or -ENOMEM.
 */
RPCRDMA_API int rpcrdma_idr_alloc(struct rpcrdma_idr *idr, void *ptr, int start, int end);

/**
 * Like rpcrdma_idr_alloc, but searches from the id after the last one this
 * function handed out (the cursor), and wraps around to start when nothing is
 * free between the cursor and end.  An id is thus reused only once the range
 * has been walked through.  The cursor starts at 0, moves only on success,
 * and is shared by every range passed: use one range per IDR for the
 * guarantee to hold.  Returns the id, -EINVAL, -ENOSPC or -ENOMEM.
 */
RPCRDMA_API int rpcrdma_idr_alloc_cyclic(struct rpcrdma_idr *idr, void *ptr, int start, int end);

/**
 * Returns the pointer stored under id, or NULL when id is not in use (or is
 * negative) or when NULL was stored.  Use rpcrdma_idr_lookup to tell apart.
 */
RPCRDMA_API void *rpcrdma_idr_find(const struct rpcrdma_idr *idr, int id);

/**
 * Looks id up: returns 0 and the stored pointer in *ptr (if ptr is not NULL)
 * when id is in use, -ENOENT when it is not, -EINVAL when id < 0.
 */
RPCRDMA_API int rpcrdma_idr_lookup(const struct rpcrdma_idr *idr, int id, void **ptr);

/**
 * Stores ptr under id, which must be in use, and returns the previous pointer
 * in *old (if old is not NULL).  Returns 0, -ENOENT (id not in use; nothing
 * is stored) or -EINVAL (id < 0).
 */
RPCRDMA_API int rpcrdma_idr_replace(struct rpcrdma_idr *idr, int id, void *ptr, void **old);

/**
 * Frees id and returns the pointer that was stored under it, or NULL when id
 * was not in use (or NULL was stored: use rpcrdma_idr_lookup first if NULL is
 * stored and the difference matters).  The id may be handed out again by
 * rpcrdma_idr_alloc at once.  Never fails and never allocates.
 */
RPCRDMA_API void *rpcrdma_idr_remove(struct rpcrdma_idr *idr, int id);

/**
 * Finds the lowest id in use that is >= id.  Returns it (and its pointer in
 * *ptr if ptr is not NULL), or -ENOENT if there is none, or -EINVAL if
 * id < 0.  Walk in increasing order with
 *   for (int id = 0; (id = rpcrdma_idr_get_next(idr, id, &p)) >= 0; id++)
 * taking care that id++ does not overflow when id == INT_MAX.
 */
RPCRDMA_API int rpcrdma_idr_get_next(const struct rpcrdma_idr *idr, int id, void **ptr);

/**
 * Calls fn(id, ptr, arg) for every id in use, in increasing order of id.
 * Stops at the first call that returns non-zero and returns that value;
 * returns 0 when every call returned 0.  fn may change the IDR in any way
 * but destroying it: the walk resumes at the id after the one it gave fn, so
 * ids removed or allocated above that id before the walk gets there are
 * skipped or visited accordingly, and ids allocated below it are not visited.
 * Removing each id as it is visited is how to release everything.
 */
RPCRDMA_API int rpcrdma_idr_for_each(struct rpcrdma_idr *idr,
				     int (*fn)(int id, void *ptr, void *arg), void *arg);

/** True when no id is in use. */
RPCRDMA_API bool rpcrdma_idr_is_empty(const struct rpcrdma_idr *idr);

/** The number of ids in use. */
RPCRDMA_API size_t rpcrdma_idr_count(const struct rpcrdma_idr *idr);

/* ------------------------------------------------------------------ IDA */

/** A set of allocated ids, stored as bitmaps (opaque). */
struct rpcrdma_ida;

/**
 * Creates an empty IDA in *out; allocator as for rpcrdma_idr_create.
 * While every id in use is below 64 the IDA holds no node (the ids live in a
 * bitmap word inside the handle).  Returns 0, -EINVAL or -ENOMEM.
 */
RPCRDMA_API int rpcrdma_ida_create(const struct rpcrdma_idr_allocator *allocator,
				   struct rpcrdma_ida **out);

/** Frees the IDA and all its nodes.  NULL is accepted and ignored. */
RPCRDMA_API void rpcrdma_ida_destroy(struct rpcrdma_ida *ida);

/**
 * Allocates the lowest free id in [start, end) (range rules above).
 * Returns the id (>= 0), -EINVAL, -ENOSPC or -ENOMEM.
 */
RPCRDMA_API int rpcrdma_ida_alloc(struct rpcrdma_ida *ida, int start, int end);

/**
 * Frees id.  Returns 0, -ENOENT when id was not allocated (nothing changes)
 * or -EINVAL when id < 0.  Never allocates.
 */
RPCRDMA_API int rpcrdma_ida_free(struct rpcrdma_ida *ida, int id);

/** True when id is allocated (false for negative ids). */
RPCRDMA_API bool rpcrdma_ida_test(const struct rpcrdma_ida *ida, int id);

/** True when no id is allocated. */
RPCRDMA_API bool rpcrdma_ida_is_empty(const struct rpcrdma_ida *ida);

/** The number of ids allocated. */
RPCRDMA_API size_t rpcrdma_ida_count(const struct rpcrdma_ida *ida);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_IDR_H */
