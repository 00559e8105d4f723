/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/wire: the RPC-over-RDMA wire format -- header checkers and encoders
 * (proto_check.c, proto_encode.c, proto_client.c over proto_walk.h), CM
 * private data, credit words: pure functions over buffers, no verbs, no
 * I/O.  Its exported functions are declared in include/rpcrdma/proto.h,
 * cm_private.h and credits.h; this header gathers what the library's
 * other layers use of its internals: the XDR word helpers and limits
 * (xdr.h) and the backward-direction header (rdma_bc_hdr.h).
 *
 * Who may include it: lib/wire, lib/rdma (and rdma/client), lib/svc,
 * lib/clnt.  Never lib/util or lib/pcap, which sit below it.  lib/wire
 * itself includes only lib/util (tests/include-layers.sh checks it).  Not
 * installed.
 */
#ifndef RPCRDMA_WIRE_H
#define RPCRDMA_WIRE_H

#include "rdma_bc_hdr.h"
#include "xdr.h"

#endif /* RPCRDMA_WIRE_H */
