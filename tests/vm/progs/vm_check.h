/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CHECK(cond, fmt, ...) for the VM test programs that stop at their first
 * failure (rdma_bc.c, rdma_bc_hostile.c): prints "FAIL file:line: " and
 * the message on stdout, exits 1.  Header-only, test code.
 */
#ifndef RPCRDMA_VM_CHECK_H
#define RPCRDMA_VM_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);            \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
			exit(1);                                               \
		}                                                              \
	} while (0)

#endif /* RPCRDMA_VM_CHECK_H */
