/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test RPC program 0x20000099 used by the service-core tests, the fuzz
 * target and tests/svc/rpc_testsvc.
 *   version 1 (any transport):
 *     0 NULL        void -> void
 *     1 ECHO        opaque<4096> -> opaque<4096>
 *     2 ADD         (u32 a, u32 b) -> u32 a + b
 *     3 ASYNC_ECHO  as ECHO, answered from the program's worker thread
 *     4 SYSERR      void -> SYSTEM_ERR
 *     5             (hole: PROC_UNAVAIL)
 *     6 SQUARES     u32 n (<= 1024) -> u32<> { 0, 1, 4, ... (n-1)^2 }
 *   version 2 (needs congestion control: refused over UDP):
 *     0 NULL, 1 ECHO
 */
#ifndef TESTPROG_H
#define TESTPROG_H

#include <rpcrdma/svc.h>

#define TESTPROG_PROG 0x20000099u
#define TESTPROG_ECHO_MAX 4096u
#define TESTPROG_SQUARES_MAX 1024u

enum { TP_NULL, TP_ECHO, TP_ADD, TP_ASYNC_ECHO, TP_SYSERR, TP_HOLE, TP_SQUARES,
       TP_NPROCS };

struct testprog;

/* Starts the program's worker thread.  0 or -errno. */
int testprog_create(struct testprog **out);
/* Joins the worker (every queued call is answered first). */
void testprog_destroy(struct testprog *tp);
/* The program description to pass to rpcrdma_svc_register(). */
const struct rpcrdma_svc_program *testprog_program(struct testprog *tp);
/* The version tables (for tests that walk every procedure). */
const struct rpcrdma_svc_version *testprog_versions(unsigned *n);

#endif
