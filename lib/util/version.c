/* SPDX-License-Identifier: BSD-2-Clause */
#include <rpcrdma/version.h>

#include "config.h"

const char *rpcrdma_version_string(void)
{
	return RPCRDMA_VERSION_STRING;
}
