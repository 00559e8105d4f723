// SPDX-License-Identifier: BSD-2-Clause
/*
 * nfs4-probe's state and steps (nfsprobe.c), shared with its command line,
 * security flavours and benchmark (probe_main.c).
 */
#ifndef NFSPROBE_H
#define NFSPROBE_H

#include <stdint.h>

#include <rpcrdma/clnt.h>

#include "nfs4_xdr.h"

#define DATA_LEN (1u << 20)
#define NNAMES 300

struct probe {
	struct rpcrdma_clnt *c;
	char owner[128];
	uint8_t verifier[NFS4_VERIFIER_SIZE];
	uint64_t clientid;
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t seqid;              /* slot 0's next sequence id */
	int have_session, have_clientid;
	uint32_t io;                 /* bytes per WRITE and READ */
	uint32_t maxops;
	struct p4_fh dir, file, sub;
	struct p4_stateid open;
	int opened, deleg;
	struct p4_stateid delegsid;
	char fname[64], dname[64];
	int file_made, dir_made, nmade;
	uint8_t *data, *back;
	unsigned char seen[NNAMES];
	uint32_t writes, reads, readdirs, listed;
};
/* The steps, in the order main runs them; each returns 0 or -1 after
 * saying what failed on stderr (quiet: nothing). */
int step_session(struct probe *p);
int step_lookup(struct probe *p, const char *path);
int step_open(struct probe *p);
int step_write(struct probe *p);   /* DATA_LEN bytes from data, COMMIT */
int step_read(struct probe *p);    /* DATA_LEN bytes into back, compared */
int step_readdir(struct probe *p);
int step_cleanup(struct probe *p, int quiet);
int step_destroy(struct probe *p, int quiet);

#endif
