/* SPDX-License-Identifier: BSD-2-Clause */
/* librpcrdma: library version. */
#ifndef RPCRDMA_VERSION_H
#define RPCRDMA_VERSION_H

#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

/** The library's version as "major.minor.patch"; a static string. */
RPCRDMA_API const char *rpcrdma_version_string(void);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_VERSION_H */
