/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * COMPOUND4res bytes as a server sends them to nfs4-probe, for the test
 * and the benchmark that hold the hand-written decoder (nfs4_xdr.c) and
 * the generated one (nfs4_gen.c) side by side.
 */
#ifndef NFSPROBE_NFS4_REPLIES_H
#define NFSPROBE_NFS4_REPLIES_H

#include <stddef.h>
#include <stdint.h>

enum p4_reply {
	P4R_READ,     /* SEQUENCE, PUTFH, READ of 4 KiB */
	P4R_WRITE,    /* SEQUENCE, PUTFH, WRITE */
	P4R_OPEN,     /* SEQUENCE, PUTFH, OPEN (a write delegation), GETFH */
	P4R_SESSION,  /* EXCHANGE_ID and CREATE_SESSION results (one compound here) */
	P4R_READDIR,  /* SEQUENCE, PUTFH, READDIR of 32 names */
	P4R_ERROR,    /* SEQUENCE, PUTFH failing with NFS4ERR_STALE */
	P4R_COUNT
};

#define P4R_BUF_MAX 8192u

/* The reply's name ("read-4k" etc.). */
const char *p4r_name(enum p4_reply which);

/* Writes reply which into buf (P4R_BUF_MAX bytes); returns its length. */
size_t p4r_build(enum p4_reply which, uint8_t *buf);

#endif
