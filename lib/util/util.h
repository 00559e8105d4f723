/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/util: the small primitives every layer uses -- byte order and the
 * RPC constants (byteorder.h), the intrusive list (list.h), the block
 * cache (bcache.h), the log hook
 * (diag_int.h), trace probes (trace.h), the resource controller's ledger
 * (rescg_ledger.h); and, behind their own headers, the ID allocator
 * (idr_internal.h: idr.c, ida.c, idr_mem.c) and the resource controller
 * (rescg_internal.h: rescg*.c).
 *
 * Who may include it: every lib folder (util, wire, pcap, rdma, svc,
 * clnt), this header or one of the six named first, each of which stands
 * alone.  lib/util includes no header of another lib folder
 * (tests/include-layers.sh checks it).  Not installed.
 */
#ifndef RPCRDMA_UTIL_H
#define RPCRDMA_UTIL_H

#include "bcache.h"
#include "byteorder.h"
#include "diag_int.h"
#include "list.h"
#include "rescg_ledger.h"
#include "trace.h"

#endif /* RPCRDMA_UTIL_H */
