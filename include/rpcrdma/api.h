/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma: export marker and small conventions shared by every header.
 *
 * Conventions that hold across the whole API:
 *  - Functions that can fail return 0 (or a non-negative count) on success and
 *    a negative errno value on failure.  They never set errno for the caller.
 *  - Objects are opaque; they are created by a _create() or _new() function and
 *    released by the matching _destroy() or _free().  A _create() that fails
 *    leaves *out NULL (when out itself is not NULL), so error paths may
 *    destroy it unconditionally: every _destroy() accepts NULL.
 *  - Options structs start with `size_t size` (sizeof the struct the caller
 *    was compiled with; fields beyond it take their defaults) and have an
 *    _opts_init() that fills in the defaults and the size.  Views (structures whose
 *    fields are documented) point into buffers the caller owns.
 *  - No function keeps global mutable state; every state lives in an object.
 */
#ifndef RPCRDMA_API_H
#define RPCRDMA_API_H

#if defined(RPCRDMA_BUILDING_LIBRARY) && defined(__GNUC__)
#define RPCRDMA_API __attribute__((visibility("default")))
#else
#define RPCRDMA_API
#endif

#ifdef __cplusplus
#define RPCRDMA_BEGIN_DECLS extern "C" {
#define RPCRDMA_END_DECLS }
#else
#define RPCRDMA_BEGIN_DECLS
#define RPCRDMA_END_DECLS
#endif

#endif /* RPCRDMA_API_H */
