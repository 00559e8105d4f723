/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nfs4-probe's NFSv4.1 COMPOUND encoder and decoder (RFC 8881): only the
 * operations the probe sends.  A compound is a list of operations filled by
 * the caller; p4_encode() writes COMPOUND4args, p4_decode() reads
 * COMPOUND4res into a struct p4_res (one result slot per kind of operation:
 * the probe never sends two operations with results of the same kind in a
 * compound, except PUTFH/LOOKUP/REMOVE/CREATE, which keep only a status).
 *
 * The WRITE data and the READ data go through the bulk hooks, which the
 * probe points at rpcrdma_clnt_put_bulk() and rpcrdma_clnt_get_bulk() (so
 * that over RDMA they move by read chunk and write chunk); NULL hooks
 * encode and decode them as plain XDR opaques (the unit tests).
 */
#ifndef NFSPROBE_NFS4_XDR_H
#define NFSPROBE_NFS4_XDR_H

#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/xdr.h>

/* nfs4_gen.c includes the generated nfs4_prot.h first, which holds the same
 * names and values (both from RFC 8881); the two cannot be included together. */
#ifndef XDRGEN_NFS4_PROT_H
#include "nfs4/nfs4.h"
#endif

#define P4_MAX_OPS 16
#define P4_NAME_MAX 255

struct p4_fh {
	uint32_t len;
	uint8_t data[NFS4_FHSIZE];
};

struct p4_stateid {
	uint32_t seqid;
	uint8_t other[NFS4_OTHER_SIZE];
};

struct p4_chan {
	uint32_t headerpad, maxreq, maxresp, maxresp_cached, maxops, maxreqs;
};

struct p4_op {
	uint32_t op;
	union {
		struct { const uint8_t *sessionid; uint32_t seqid, slot, highest; } seq;
		struct { const uint8_t *verifier; const char *owner; } exid;
		struct {
			uint64_t clientid;
			uint32_t seqid, flags;
			struct p4_chan fore, back;
		} cs;
		const uint8_t *sessionid;    /* DESTROY_SESSION */
		uint64_t clientid;           /* DESTROY_CLIENTID */
		const struct p4_fh *fh;      /* PUTFH */
		const char *name;            /* LOOKUP, REMOVE */
		struct { const char *name; uint32_t type; } create; /* NF4DIR only */
		struct { uint64_t clientid; const char *owner, *name; uint32_t mode; } open;
		const struct p4_stateid *stateid; /* CLOSE, DELEGRETURN */
		struct {
			const struct p4_stateid *stateid;
			uint64_t offset;
			const void *data;
			uint32_t len;
		} write;
		struct { uint64_t offset; uint32_t count; } commit;
		struct { const struct p4_stateid *stateid; uint64_t offset; uint32_t count; } read;
		struct { uint64_t cookie; const uint8_t *verf; uint32_t dircount, maxcount; } readdir;
	} a;
};

typedef int (*p4_put_bulk_fn)(struct rpcrdma_xdr_enc *enc, const void *data, uint32_t len);
typedef int (*p4_get_bulk_fn)(struct rpcrdma_xdr_dec *dec, const void **data, uint32_t *len,
			      uint32_t max);

struct p4_compound {
	uint32_t nops;
	struct p4_op ops[P4_MAX_OPS];
	p4_put_bulk_fn put_bulk; /* NULL: plain opaque */
};

/* Called for each READDIR entry, in order; non-zero stops decoding. */
typedef int (*p4_dirent_fn)(void *arg, const char *name, uint64_t cookie);

struct p4_res {
	/* inputs to the decoder */
	p4_get_bulk_fn get_bulk;  /* NULL: plain opaque */
	void *read_buf;           /* READ data is copied here (room: read_max) */
	uint32_t read_max;
	p4_dirent_fn dirent;
	void *dirent_arg;
	/* the compound */
	uint32_t status;          /* COMPOUND4res status */
	uint32_t nres;            /* operations answered */
	uint32_t last_op;         /* the last one answered and its status */
	uint32_t last_status;
	/* SEQUENCE */
	uint32_t seq_status, seq_flags, seq_highest, seq_target;
	/* EXCHANGE_ID */
	uint64_t clientid;
	uint32_t exid_seqid, exid_flags;
	/* CREATE_SESSION */
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t cs_seqid, cs_flags;
	struct p4_chan fore, back;
	/* GETFH */
	struct p4_fh fh;
	/* OPEN, CLOSE */
	struct p4_stateid stateid;
	uint32_t open_rflags;
	uint32_t deleg_type;      /* OPEN_DELEGATE_NONE, READ (1), WRITE (2) */
	struct p4_stateid deleg;
	/* WRITE, COMMIT */
	uint32_t write_count, write_committed;
	uint8_t write_verf[NFS4_VERIFIER_SIZE];
	uint8_t commit_verf[NFS4_VERIFIER_SIZE];
	/* READ */
	int read_eof;
	uint32_t read_len;
	/* READDIR */
	uint8_t cookieverf[NFS4_VERIFIER_SIZE];
	uint32_t dir_entries;
	uint64_t dir_last_cookie;
	int dir_eof;
};

/* Appends an operation; returns it (zeroed but for op), or NULL when full. */
struct p4_op *p4_add(struct p4_compound *c, uint32_t op);

/* COMPOUND4args (tag "", minor version 1).  0 or -EMSGSIZE, -EINVAL. */
int p4_encode(struct rpcrdma_xdr_enc *enc, const struct p4_compound *c);

/* COMPOUND4res into *r (whose inputs are set).  0, or -EBADMSG (malformed, an
 * operation the probe does not know, results out of order), -EMSGSIZE (READ
 * data larger than read_max), or the dirent callback's value. */
int p4_decode(struct rpcrdma_xdr_dec *dec, struct p4_res *r);

/* "NFS4ERR_DELAY" etc., or NULL when unknown; "OPEN" etc., or "op?". */
const char *p4_status_name(uint32_t status);
const char *p4_op_name(uint32_t op);

#endif
