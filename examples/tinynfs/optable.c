/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The operation table: for every implemented operation its flags, its
 * handler and its reply-size estimator.  Each estimator bounds the whole
 * nfs_resop4 (resop word, status word, body) as tightly as the arguments
 * and what is known before the operation runs allow; an error result is
 * never larger than the success result bounded here.
 */
#include <errno.h>

#include "attrs.h"
#include "ops.h"

#define HDR 8u /* resop + status */
#define CINFO 20u
#define STATEID 16u
#define BITMAP_MAX (4u + 4u * FATTR4_WORDS)

static size_t est_hdr(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR;
}

static size_t est_access(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + 8; /* supported, access */
}

static size_t est_stateid(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + STATEID;
}

static size_t est_verf(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + NFS4_VERIFIER_SIZE;
}

static size_t est_create(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + CINFO + BITMAP_MAX;
}

static size_t est_getattr(const struct tnfs_est *e, const union nfs4_args *a)
{
	return HDR + tnfs_attrs_estimate(e->srv->est_exp, e->minor, &a->getattr.mask, e->fh_len);
}

static size_t est_getfh(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)a;
	return HDR + 4 + xdr_pad(e->fh_len);
}

static size_t est_cinfo(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + CINFO;
}

/* LOCK4denied: offset, length, type, clientid, owner<> */
static size_t denied(const struct tnfs_est *e, uint32_t own_len)
{
	uint32_t n = e->max_owner_len > own_len ? e->max_owner_len : own_len;
	return 8 + 8 + 4 + 8 + 4 + xdr_pad(n);
}

static size_t est_lock(const struct tnfs_est *e, const union nfs4_args *a)
{
	size_t d = denied(e, a->lock.new_owner ? a->lock.owner.owner.len : 0);
	return HDR + (d > STATEID ? d : STATEID);
}

static size_t est_lockt(const struct tnfs_est *e, const union nfs4_args *a)
{
	return HDR + denied(e, a->lockt.owner.owner.len);
}

static size_t est_open(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	/* stateid, cinfo, rflags, attrset, delegation type, and a write
	 * delegation: stateid, recall, space limit, an empty nfsace4 */
	return HDR + STATEID + CINFO + 4 + BITMAP_MAX + 4 + STATEID + 4 + 12 + 16;
}

/* READ data that fits: the count, at most maxread, at most what the
 * room left after the READ header holds. */
static uint32_t read_count(const struct tnfs_est *e, uint32_t count)
{
	size_t n = count < e->srv->maxread ? count : e->srv->maxread;
	size_t fit = e->room > HDR + 8 ? (e->room - HDR - 8) & ~(size_t)3 : 0;
	return (uint32_t)(n < fit ? n : fit);
}

static size_t est_read(const struct tnfs_est *e, const union nfs4_args *a)
{
	return HDR + 4 + 4 + xdr_pad(read_count(e, a->read.count)); /* eof, data<> */
}

static size_t bulk_read(const struct tnfs_est *e, const union nfs4_args *a)
{
	return xdr_pad(read_count(e, a->read.count));
}

static size_t est_readdir(const struct tnfs_est *e, const union nfs4_args *a)
{
	/* maxcount bounds READDIR4resok (cookieverf, entries, eof) */
	size_t m = a->readdir.maxcount;
	if (m > e->maxresp)
		m = e->maxresp;
	if (e->room > HDR && m > e->room - HDR)
		m = e->room - HDR;
	m &= ~(size_t)3;
	return HDR + (m > 16 ? m : 16); /* at least verifier, list end, eof */
}

static size_t est_readlink(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + 4 + NFS4_MAXPATHLEN;
}

static size_t est_rename(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + 2 * CINFO;
}

static size_t est_setattr(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + BITMAP_MAX;
}

static size_t est_write(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + 4 + 4 + NFS4_VERIFIER_SIZE; /* count, committed, verf */
}

static size_t est_bind_conn(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + NFS4_SESSIONID_SIZE + 4 + 4;
}

static size_t opaque_size(size_t len)
{
	return 4 + xdr_pad((uint32_t)len);
}

static size_t est_exchange_id(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)a;
	size_t own = strlen(e->srv->owner);
	return HDR + 8 + 4 + 4 + 4 /* clientid, seqid, flags, spr_how */
	       + 2 * (4 + 4 * FATTR4_WORDS) /* SP4_MACH_CRED's two bitmaps */
	       + 8 + opaque_size(own) /* server_owner4 */
	       + opaque_size(own)     /* server scope */
	       + 4 + opaque_size(sizeof(TNFS_IMPL_DOMAIN) - 1) +
	       opaque_size(sizeof(TNFS_IMPL_NAME) - 1) + 12;
}

static size_t est_create_session(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	/* sessionid, seqid, flags, two channel_attrs4 with empty rdma_ird */
	return HDR + NFS4_SESSIONID_SIZE + 4 + 4 + 2 * (7 * 4);
}

/* The longest secinfo list of the exports (ops_fh.c): AUTH_SYS and
 * AUTH_NONE one word, RPCSEC_GSS its OID (9 bytes), QOP and service. */
static size_t est_secinfo(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)a;
	size_t most = 4;
	for (size_t i = 0; i < e->srv->nexp; i++) {
		const struct tnfs_export *x = e->srv->exps[i];
		size_t n = 0;
		for (unsigned k = 0; k < x->nsec; k++)
			n += x->sec[k] < TNFS_SEC_KRB5 ? 4 : 4 + 4 + 12 + 4 + 4;
		most = n > most ? n : most;
	}
	return HDR + 4 + most;
}

static size_t est_sequence(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + NFS4_SESSIONID_SIZE + 5 * 4;
}

static size_t est_test_stateid(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e;
	return HDR + 4 + 4 * (size_t)a->test_stateid.n;
}

static size_t est_seek(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + 4 + 8; /* eof, offset */
}

/* COPY4resok without callback id: wr_callback_id<1> empty, wr_count,
 * wr_committed, wr_writeverf, then copy_requirements4 */
static size_t est_copy(const struct tnfs_est *e, const union nfs4_args *a)
{
	(void)e, (void)a;
	return HDR + 4 + 8 + 4 + NFS4_VERIFIER_SIZE + 4 + 4;
}

/* READ_PLUS: one segment, data (as much as READ would give, in the room
 * left after its 24 bytes) or a hole (20 bytes, less) */
static size_t est_read_plus(const struct tnfs_est *e, const union nfs4_args *a)
{
	size_t n = a->read.count < e->srv->maxread ? a->read.count : e->srv->maxread;
	size_t fit = e->room > HDR + READ_PLUS_BODY ? (e->room - HDR - READ_PLUS_BODY) & ~(size_t)3 : 0;
	return HDR + READ_PLUS_BODY + xdr_pad((uint32_t)(n < fit ? n : fit));
}

#define C OPF_CFH
#define S OPF_SESSION
#define P OPF_PSEUDO
static const struct tnfs_op ops[] = {
	[OP_ACCESS] = { "ACCESS", C | P, est_access, tnfs_op_access, NULL },
	[OP_CLOSE] = { "CLOSE", C | S, est_stateid, tnfs_op_close, NULL },
	[OP_COMMIT] = { "COMMIT", C, est_verf, tnfs_op_commit, NULL },
	[OP_CREATE] = { "CREATE", C, est_create, tnfs_op_create, NULL },
	[OP_GETATTR] = { "GETATTR", C | P, est_getattr, tnfs_op_getattr, NULL },
	[OP_GETFH] = { "GETFH", C | P, est_getfh, tnfs_op_getfh, NULL },
	[OP_LINK] = { "LINK", C, est_cinfo, tnfs_op_link, NULL },
	[OP_LOCK] = { "LOCK", C | S, est_lock, tnfs_op_lock, NULL },
	[OP_LOCKT] = { "LOCKT", C | S, est_lockt, tnfs_op_lockt, NULL },
	[OP_LOCKU] = { "LOCKU", C | S, est_stateid, tnfs_op_locku, NULL },
	[OP_LOOKUP] = { "LOOKUP", C | P, est_hdr, tnfs_op_lookup, NULL },
	[OP_LOOKUPP] = { "LOOKUPP", C | P, est_hdr, tnfs_op_lookupp, NULL },
	[OP_OPEN] = { "OPEN", C | S, est_open, tnfs_op_open, NULL },
	[OP_OPEN_DOWNGRADE] = { "OPEN_DOWNGRADE", C | S, est_stateid, tnfs_op_open_downgrade, NULL },
	[OP_PUTFH] = { "PUTFH", 0, est_hdr, tnfs_op_putfh, NULL },
	/* the public file handle is the root, as in Linux nfsd */
	[OP_PUTPUBFH] = { "PUTPUBFH", 0, est_hdr, tnfs_op_putrootfh, NULL },
	[OP_PUTROOTFH] = { "PUTROOTFH", 0, est_hdr, tnfs_op_putrootfh, NULL },
	[OP_READ] = { "READ", C | S, est_read, tnfs_op_read, bulk_read },
	[OP_READDIR] = { "READDIR", C | P, est_readdir, tnfs_op_readdir, NULL },
	[OP_READLINK] = { "READLINK", C, est_readlink, tnfs_op_readlink, NULL },
	[OP_REMOVE] = { "REMOVE", C, est_cinfo, tnfs_op_remove, NULL },
	[OP_RENAME] = { "RENAME", C, est_rename, tnfs_op_rename, NULL },
	[OP_RESTOREFH] = { "RESTOREFH", 0, est_hdr, tnfs_op_restorefh, NULL },
	[OP_SAVEFH] = { "SAVEFH", C | P, est_hdr, tnfs_op_savefh, NULL },
	[OP_SECINFO] = { "SECINFO", C | P, est_secinfo, tnfs_op_secinfo, NULL },
	[OP_SETATTR] = { "SETATTR", C | S, est_setattr, tnfs_op_setattr, NULL },
	[OP_WRITE] = { "WRITE", C | S, est_write, tnfs_op_write, NULL },
	[OP_BIND_CONN_TO_SESSION] = { "BIND_CONN_TO_SESSION", OPF_FIRST, est_bind_conn, tnfs_op_bind_conn, NULL },
	[OP_EXCHANGE_ID] = { "EXCHANGE_ID", OPF_FIRST, est_exchange_id, tnfs_op_exchange_id, NULL },
	[OP_DELEGRETURN] = { "DELEGRETURN", C | S, est_hdr, tnfs_op_delegreturn, NULL },
	[OP_BACKCHANNEL_CTL] = { "BACKCHANNEL_CTL", S, est_hdr, tnfs_op_backchannel_ctl, NULL },
	[OP_CREATE_SESSION] = { "CREATE_SESSION", OPF_FIRST, est_create_session, tnfs_op_create_session, NULL },
	[OP_DESTROY_SESSION] = { "DESTROY_SESSION", OPF_FIRST, est_hdr, tnfs_op_destroy_session, NULL },
	[OP_FREE_STATEID] = { "FREE_STATEID", S, est_hdr, tnfs_op_free_stateid, NULL },
	[OP_SECINFO_NO_NAME] = { "SECINFO_NO_NAME", C | P, est_secinfo, tnfs_op_secinfo_no_name, NULL },
	[OP_SEQUENCE] = { "SEQUENCE", 0, est_sequence, tnfs_op_sequence, NULL },
	[OP_TEST_STATEID] = { "TEST_STATEID", S, est_test_stateid, tnfs_op_test_stateid, NULL },
	[OP_DESTROY_CLIENTID] = { "DESTROY_CLIENTID", OPF_FIRST, est_hdr, tnfs_op_destroy_clientid, NULL },
	[OP_RECLAIM_COMPLETE] = { "RECLAIM_COMPLETE", S, est_hdr, tnfs_op_reclaim_complete, NULL },
	[OP_SEEK] = { "SEEK", C | S, est_seek, tnfs_op_seek, NULL },
	[OP_VERIFY] = { "VERIFY", C | P, est_hdr, tnfs_op_verify, NULL },
	[OP_NVERIFY] = { "NVERIFY", C | P, est_hdr, tnfs_op_nverify, NULL },
	[OP_ALLOCATE] = { "ALLOCATE", C | S, est_hdr, tnfs_op_allocate, NULL },
	[OP_DEALLOCATE] = { "DEALLOCATE", C | S, est_hdr, tnfs_op_deallocate, NULL },
	[OP_COPY] = { "COPY", C | S, est_copy, tnfs_op_copy, NULL },
	[OP_CLONE] = { "CLONE", C | S, est_hdr, tnfs_op_clone, NULL },
	[OP_READ_PLUS] = { "READ_PLUS", C | S, est_read_plus, tnfs_op_read_plus, NULL },
	/* refused: the status is the whole result */
	[OP_COPY_NOTIFY] = { "COPY_NOTIFY", C | S, est_hdr, tnfs_op_copy_notify, NULL },
	[OP_OFFLOAD_CANCEL] = { "OFFLOAD_CANCEL", C | S, est_hdr, tnfs_op_offload_cancel, NULL },
	[OP_OFFLOAD_STATUS] = { "OFFLOAD_STATUS", C | S, est_hdr, tnfs_op_offload_status, NULL },
};
#undef C
#undef S
#undef P

const struct tnfs_op *tnfs_op_get(uint32_t op)
{
	if (op >= sizeof(ops) / sizeof(ops[0]) || !ops[op].run || !ops[op].estimate)
		return NULL;
	return &ops[op];
}

size_t tnfs_op_estimate(uint32_t op, const struct tnfs_est *e, const union nfs4_args *a)
{
	const struct tnfs_op *o = tnfs_op_get(op);
	return o ? o->estimate(e, a) : 0;
}

int tnfs_optable_check(uint32_t *missing)
{
	for (uint32_t op = 0; op <= NFS4_OP_MAX_42; op++) {
		bool has_codec = nfs4_codec(op) != NULL;
		bool in_table = op < sizeof(ops) / sizeof(ops[0]) &&
				(ops[op].run || ops[op].estimate);
		bool complete = in_table && ops[op].run && ops[op].estimate && ops[op].name;
		if (has_codec != in_table || (in_table && !complete)) {
			if (missing)
				*missing = op;
			return -ENOSYS;
		}
	}
	return 0;
}
