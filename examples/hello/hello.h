/* SPDX-License-Identifier: BSD-2-Clause */
/* The hello program: procedure 1, GREET, takes string<64> and returns "hello, NAME". */
#ifndef HELLO_H
#define HELLO_H
#define HELLO_PROG 0x20000100u
#define HELLO_VERS 1u
#define HELLO_GREET 1u
#define HELLO_NAME_MAX 64u
#define HELLO_PORT 20100 /* TCP and UDP; RDMA on HELLO_PORT + 1 */
#endif
