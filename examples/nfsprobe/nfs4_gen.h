/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * p4_decode() again, on the decoder rpcrdma-xdrgen generates from
 * examples/nfs4/nfs4_prot.x: COMPOUND4res is decoded whole with
 * xdrgen_decode_COMPOUND4res(), then copied into the same struct p4_res,
 * with the checks of the hand-written decoder the .x cannot say (at most
 * P4_MAX_OPS results, a failed operation last with the compound's status,
 * the hand-written bounds on tags, bitmaps, names and READ data).
 *
 * Kept to measure the two against each other (bench_nfs4_decode.c,
 * callgrind-decode.sh) and to test that they agree (test_nfs4_gen.c,
 * fuzz/nfsprobe_decode.c).  Both decode into a 16 KiB arena on the stack
 * (xdrgen_dctx_arena; a reply that does not fit is decoded again onto the
 * heap).  nfs4-probe uses the hand-written one: the generated one costs
 * 1.3 to 1.5 times its instructions on small replies, 1.09 on a READDIR
 * of 32 names (callgrind-decode.sh).
 *
 * Differences, all where the generated code is stricter, from the RFC's
 * types: an nfsstat4 or a why_no_delegation4 the RFC does not name, a
 * change_info4.atomic or a delegation's recall other than 0 or 1, and a
 * failed operation nfs_resop4 has no arm for, are -EBADMSG here; the
 * hand-written decoder skips those words or takes any status.
 *
 * r->get_bulk non-NULL means rpcrdma_clnt_get_bulk() (XDRGEN_CLNT): the
 * generated decoder calls it itself.
 */
#ifndef NFSPROBE_NFS4_GEN_H
#define NFSPROBE_NFS4_GEN_H

#include <rpcrdma/xdr.h>

struct p4_res;

/* As p4_decode(); -ENOMEM when the generated decoder cannot allocate. */
int p4g_decode(struct rpcrdma_xdr_dec *dec, struct p4_res *r);

/* The same, but COMPOUND4res's status, tag and count by hand and each
 * nfs_resop4 by the generated decoder, one at a time as they are read
 * (no array of results to allocate; a failed operation ends the decode,
 * as in p4_decode()). */
int p4g_decode_ops(struct rpcrdma_xdr_dec *dec, struct p4_res *r);

#endif
