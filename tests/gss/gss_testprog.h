/* SPDX-License-Identifier: BSD-2-Clause */
/* The test program of tests/gss/ (gss_testsvc.c and its clients). */
#ifndef GSS_TESTPROG_H
#define GSS_TESTPROG_H

#define GSS_TESTPROG 0x2000d034u
#define GSS_TESTPROG_VERS 1u
#define GSS_TESTPROG_NULL 0u
#define GSS_TESTPROG_ECHO 1u
#define GSS_TESTPROG_WHOAMI 2u
#define GSS_TESTPROG_ECHO_MAX 65536u
/* BIGECHO: opaque<GSS_TESTPROG_BIG_MAX> -> the same bytes, the result
 * marked as bulk data (over RDMA a write chunk when the call offers one). */
#define GSS_TESTPROG_BIGECHO 3u
#define GSS_TESTPROG_BIG_MAX (4u << 20)

#endif
