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

#endif
