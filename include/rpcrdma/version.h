/* SPDX-License-Identifier: BSD-2-Clause */
/* librpcrdma: library version. */
#ifndef RPCRDMA_VERSION_H
#define RPCRDMA_VERSION_H

#include <rpcrdma/api.h>
#include <rpcrdma/config.h>

/*
 * The version of these headers, from meson's project version (defined in
 * the generated <rpcrdma/config.h>): RPCRDMA_VERSION_MAJOR,
 * RPCRDMA_VERSION_MINOR, RPCRDMA_VERSION_PATCH.  RPCRDMA_VERSION_NUMBER
 * packs them for comparisons:
 *   #if RPCRDMA_VERSION_NUMBER >= RPCRDMA_VERSION_ENCODE(0, 2, 0)
 */
#define RPCRDMA_VERSION_ENCODE(major, minor, patch) \
	(((major) * 10000L) + ((minor) * 100L) + (patch))
#define RPCRDMA_VERSION_NUMBER                                              \
	RPCRDMA_VERSION_ENCODE(RPCRDMA_VERSION_MAJOR, RPCRDMA_VERSION_MINOR, \
			       RPCRDMA_VERSION_PATCH)

RPCRDMA_BEGIN_DECLS

/** The loaded library's version as "major.minor.patch"; a static string.
 *  It equals the RPCRDMA_VERSION_* macros of the headers it was built with. */
RPCRDMA_API const char *rpcrdma_version_string(void);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_VERSION_H */
