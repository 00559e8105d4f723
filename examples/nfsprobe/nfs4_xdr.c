// SPDX-License-Identifier: BSD-2-Clause
/* nfs4-probe's COMPOUND encoder and decoder: see nfs4_xdr.h. */
#include "nfs4_xdr.h"

#include <errno.h>
#include <string.h>

#define TRY(x)                          \
	do {                            \
		int try_rc_ = (x);      \
		if (try_rc_ != 0)       \
			return try_rc_; \
	} while (0)

#define SEQ4_HIGHEST_SLOT 0
#define READDIR_ATTR_WORD0 (1u << FATTR4_TYPE)

struct p4_op *p4_add(struct p4_compound *c, uint32_t op)
{
	if (c->nops >= P4_MAX_OPS)
		return NULL;
	struct p4_op *o = &c->ops[c->nops++];
	memset(o, 0, sizeof(*o));
	o->op = op;
	return o;
}

/* ---- encoding ------------------------------------------------------------ */

static int put_stateid(struct rpcrdma_xdr_enc *x, const struct p4_stateid *s)
{
	TRY(rpcrdma_xdr_put_u32(x, s->seqid));
	return rpcrdma_xdr_put_fixed(x, s->other, sizeof(s->other));
}

static int put_chan(struct rpcrdma_xdr_enc *x, const struct p4_chan *ch)
{
	TRY(rpcrdma_xdr_put_u32(x, ch->headerpad));
	TRY(rpcrdma_xdr_put_u32(x, ch->maxreq));
	TRY(rpcrdma_xdr_put_u32(x, ch->maxresp));
	TRY(rpcrdma_xdr_put_u32(x, ch->maxresp_cached));
	TRY(rpcrdma_xdr_put_u32(x, ch->maxops));
	TRY(rpcrdma_xdr_put_u32(x, ch->maxreqs));
	return rpcrdma_xdr_put_u32(x, 0); /* ca_rdma_ird<1>: none */
}

/* fattr4 holding only FATTR4_MODE (attribute 33: word 1, bit 1). */
static int put_mode_attr(struct rpcrdma_xdr_enc *x, uint32_t mode)
{
	TRY(rpcrdma_xdr_put_u32(x, 2));
	TRY(rpcrdma_xdr_put_u32(x, 0));
	TRY(rpcrdma_xdr_put_u32(x, 1u << (FATTR4_MODE - 32)));
	TRY(rpcrdma_xdr_put_u32(x, 4));
	return rpcrdma_xdr_put_u32(x, mode);
}

static int put_name(struct rpcrdma_xdr_enc *x, const char *name)
{
	if (name == NULL || name[0] == '\0' || strlen(name) > P4_NAME_MAX)
		return -EINVAL;
	return rpcrdma_xdr_put_string(x, name);
}

static int put_exid(struct rpcrdma_xdr_enc *x, const struct p4_op *o)
{
	TRY(rpcrdma_xdr_put_fixed(x, o->a.exid.verifier, NFS4_VERIFIER_SIZE));
	TRY(rpcrdma_xdr_put_string(x, o->a.exid.owner));
	TRY(rpcrdma_xdr_put_u32(x, 0));        /* eia_flags */
	TRY(rpcrdma_xdr_put_u32(x, SP4_NONE)); /* eia_state_protect */
	return rpcrdma_xdr_put_u32(x, 0);      /* eia_client_impl_id<1>: none */
}

static int put_create_session(struct rpcrdma_xdr_enc *x, const struct p4_op *o)
{
	TRY(rpcrdma_xdr_put_u64(x, o->a.cs.clientid));
	TRY(rpcrdma_xdr_put_u32(x, o->a.cs.seqid));
	TRY(rpcrdma_xdr_put_u32(x, o->a.cs.flags));
	TRY(put_chan(x, &o->a.cs.fore));
	TRY(put_chan(x, &o->a.cs.back));
	TRY(rpcrdma_xdr_put_u32(x, 0x40000000)); /* csa_cb_program (unused) */
	TRY(rpcrdma_xdr_put_u32(x, 1));          /* csa_sec_parms<>: one AUTH_NONE */
	return rpcrdma_xdr_put_u32(x, AUTH_NONE);
}

static int put_open(struct rpcrdma_xdr_enc *x, const struct p4_op *o)
{
	TRY(rpcrdma_xdr_put_u32(x, 0)); /* seqid: 0 in 4.1 */
	TRY(rpcrdma_xdr_put_u32(x, OPEN4_SHARE_ACCESS_BOTH));
	TRY(rpcrdma_xdr_put_u32(x, OPEN4_SHARE_DENY_NONE));
	TRY(rpcrdma_xdr_put_u64(x, o->a.open.clientid));
	TRY(rpcrdma_xdr_put_string(x, o->a.open.owner));
	TRY(rpcrdma_xdr_put_u32(x, OPEN4_CREATE));
	TRY(rpcrdma_xdr_put_u32(x, UNCHECKED4));
	TRY(put_mode_attr(x, o->a.open.mode));
	TRY(rpcrdma_xdr_put_u32(x, CLAIM_NULL));
	return put_name(x, o->a.open.name);
}

static int put_write(struct rpcrdma_xdr_enc *x, const struct p4_op *o, p4_put_bulk_fn bulk)
{
	TRY(put_stateid(x, o->a.write.stateid));
	TRY(rpcrdma_xdr_put_u64(x, o->a.write.offset));
	TRY(rpcrdma_xdr_put_u32(x, UNSTABLE4));
	if (bulk)
		return bulk(x, o->a.write.data, o->a.write.len);
	return rpcrdma_xdr_put_opaque(x, o->a.write.data, o->a.write.len);
}

static int put_readdir(struct rpcrdma_xdr_enc *x, const struct p4_op *o)
{
	static const uint8_t zero[NFS4_VERIFIER_SIZE];

	TRY(rpcrdma_xdr_put_u64(x, o->a.readdir.cookie));
	TRY(rpcrdma_xdr_put_fixed(x, o->a.readdir.verf ? o->a.readdir.verf : zero,
				  NFS4_VERIFIER_SIZE));
	TRY(rpcrdma_xdr_put_u32(x, o->a.readdir.dircount));
	TRY(rpcrdma_xdr_put_u32(x, o->a.readdir.maxcount));
	TRY(rpcrdma_xdr_put_u32(x, 1));
	return rpcrdma_xdr_put_u32(x, READDIR_ATTR_WORD0);
}

static int put_op(struct rpcrdma_xdr_enc *x, const struct p4_op *o, p4_put_bulk_fn bulk)
{
	TRY(rpcrdma_xdr_put_u32(x, o->op));
	switch (o->op) {
	case OP_SEQUENCE:
		TRY(rpcrdma_xdr_put_fixed(x, o->a.seq.sessionid, NFS4_SESSIONID_SIZE));
		TRY(rpcrdma_xdr_put_u32(x, o->a.seq.seqid));
		TRY(rpcrdma_xdr_put_u32(x, o->a.seq.slot));
		TRY(rpcrdma_xdr_put_u32(x, o->a.seq.highest));
		return rpcrdma_xdr_put_bool(x, 0); /* sa_cachethis */
	case OP_EXCHANGE_ID:
		return put_exid(x, o);
	case OP_CREATE_SESSION:
		return put_create_session(x, o);
	case OP_DESTROY_SESSION:
		return rpcrdma_xdr_put_fixed(x, o->a.sessionid, NFS4_SESSIONID_SIZE);
	case OP_DESTROY_CLIENTID:
		return rpcrdma_xdr_put_u64(x, o->a.clientid);
	case OP_RECLAIM_COMPLETE:
		return rpcrdma_xdr_put_bool(x, 0); /* rca_one_fs */
	case OP_PUTROOTFH:
	case OP_GETFH:
		return 0;
	case OP_PUTFH:
		return rpcrdma_xdr_put_opaque(x, o->a.fh->data, o->a.fh->len);
	case OP_LOOKUP:
	case OP_REMOVE:
		return put_name(x, o->a.name);
	case OP_CREATE:
		if (o->a.create.type != NF4DIR)
			return -EINVAL;
		TRY(rpcrdma_xdr_put_u32(x, NF4DIR));
		TRY(put_name(x, o->a.create.name));
		return put_mode_attr(x, 0755);
	case OP_OPEN:
		return put_open(x, o);
	case OP_CLOSE:
		TRY(rpcrdma_xdr_put_u32(x, 0));
		return put_stateid(x, o->a.stateid);
	case OP_DELEGRETURN:
		return put_stateid(x, o->a.stateid);
	case OP_WRITE:
		return put_write(x, o, bulk);
	case OP_COMMIT:
		TRY(rpcrdma_xdr_put_u64(x, o->a.commit.offset));
		return rpcrdma_xdr_put_u32(x, o->a.commit.count);
	case OP_READ:
		TRY(put_stateid(x, o->a.read.stateid));
		TRY(rpcrdma_xdr_put_u64(x, o->a.read.offset));
		return rpcrdma_xdr_put_u32(x, o->a.read.count);
	case OP_READDIR:
		return put_readdir(x, o);
	default:
		return -EINVAL;
	}
}

int p4_encode(struct rpcrdma_xdr_enc *enc, const struct p4_compound *c)
{
	if (c->nops > P4_MAX_OPS)
		return -EINVAL;
	TRY(rpcrdma_xdr_put_u32(enc, 0)); /* tag: empty */
	TRY(rpcrdma_xdr_put_u32(enc, 1)); /* minorversion */
	TRY(rpcrdma_xdr_put_u32(enc, c->nops));
	for (uint32_t i = 0; i < c->nops; i++)
		TRY(put_op(enc, &c->ops[i], c->put_bulk));
	return 0;
}

/* ---- decoding ------------------------------------------------------------ */

static int get_stateid(struct rpcrdma_xdr_dec *x, struct p4_stateid *s)
{
	TRY(rpcrdma_xdr_get_u32(x, &s->seqid));
	return rpcrdma_xdr_get_fixed(x, s->other, sizeof(s->other));
}

static int skip_opaque(struct rpcrdma_xdr_dec *x, uint32_t max)
{
	uint32_t n;

	TRY(rpcrdma_xdr_get_count(x, max, 1, &n));
	return rpcrdma_xdr_skip(x, n);
}

static int skip_words(struct rpcrdma_xdr_dec *x, size_t n)
{
	return rpcrdma_xdr_skip(x, n * 4);
}

static int skip_bitmap(struct rpcrdma_xdr_dec *x)
{
	uint32_t n;

	TRY(rpcrdma_xdr_get_count(x, 64, 4, &n));
	return skip_words(x, n);
}

static int get_chan(struct rpcrdma_xdr_dec *x, struct p4_chan *ch)
{
	uint32_t n;

	TRY(rpcrdma_xdr_get_u32(x, &ch->headerpad));
	TRY(rpcrdma_xdr_get_u32(x, &ch->maxreq));
	TRY(rpcrdma_xdr_get_u32(x, &ch->maxresp));
	TRY(rpcrdma_xdr_get_u32(x, &ch->maxresp_cached));
	TRY(rpcrdma_xdr_get_u32(x, &ch->maxops));
	TRY(rpcrdma_xdr_get_u32(x, &ch->maxreqs));
	TRY(rpcrdma_xdr_get_count(x, 1, 4, &n)); /* ca_rdma_ird<1> */
	return skip_words(x, n);
}

static int get_exid(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	uint32_t how, n;

	TRY(rpcrdma_xdr_get_u64(x, &r->clientid));
	TRY(rpcrdma_xdr_get_u32(x, &r->exid_seqid));
	TRY(rpcrdma_xdr_get_u32(x, &r->exid_flags));
	TRY(rpcrdma_xdr_get_u32(x, &how));
	if (how == SP4_MACH_CRED) {
		TRY(skip_bitmap(x)); /* spo_must_enforce */
		TRY(skip_bitmap(x)); /* spo_must_allow */
	} else if (how != SP4_NONE) {
		return -EBADMSG;     /* SSV: never asked for */
	}
	TRY(skip_words(x, 2)); /* so_minor_id */
	TRY(skip_opaque(x, NFS4_OPAQUE_LIMIT)); /* so_major_id */
	TRY(skip_opaque(x, NFS4_OPAQUE_LIMIT)); /* eir_server_scope */
	TRY(rpcrdma_xdr_get_count(x, 1, 20, &n)); /* eir_server_impl_id<1> */
	if (n == 1) {
		TRY(skip_opaque(x, NFS4_OPAQUE_LIMIT)); /* nii_domain */
		TRY(skip_opaque(x, NFS4_OPAQUE_LIMIT)); /* nii_name */
		TRY(skip_words(x, 3));                  /* nii_date */
	}
	return 0;
}

static int get_create_session(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	TRY(rpcrdma_xdr_get_fixed(x, r->sessionid, NFS4_SESSIONID_SIZE));
	TRY(rpcrdma_xdr_get_u32(x, &r->cs_seqid));
	TRY(rpcrdma_xdr_get_u32(x, &r->cs_flags));
	TRY(get_chan(x, &r->fore));
	return get_chan(x, &r->back);
}

static int get_sequence(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	uint8_t sid[NFS4_SESSIONID_SIZE];
	uint32_t seqid, slot;

	TRY(rpcrdma_xdr_get_fixed(x, sid, sizeof(sid)));
	TRY(rpcrdma_xdr_get_u32(x, &seqid));
	TRY(rpcrdma_xdr_get_u32(x, &slot));
	TRY(rpcrdma_xdr_get_u32(x, &r->seq_highest));
	TRY(rpcrdma_xdr_get_u32(x, &r->seq_target));
	return rpcrdma_xdr_get_u32(x, &r->seq_flags);
}

static int skip_ace(struct rpcrdma_xdr_dec *x)
{
	TRY(skip_words(x, 3)); /* type, flag, access_mask */
	return skip_opaque(x, NFS4_OPAQUE_LIMIT);
}

static int get_delegation(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	uint32_t why, limitby;

	TRY(rpcrdma_xdr_get_u32(x, &r->deleg_type));
	switch (r->deleg_type) {
	case OPEN_DELEGATE_NONE:
		return 0;
	case 1: /* OPEN_DELEGATE_READ */
		TRY(get_stateid(x, &r->deleg));
		TRY(skip_words(x, 1)); /* recall */
		return skip_ace(x);
	case 2: /* OPEN_DELEGATE_WRITE */
		TRY(get_stateid(x, &r->deleg));
		TRY(skip_words(x, 1));
		TRY(rpcrdma_xdr_get_u32(x, &limitby));
		if (limitby != 1 && limitby != 2)
			return -EBADMSG;
		TRY(skip_words(x, 2)); /* filesize, or num_blocks + bytes_per_block */
		return skip_ace(x);
	case 3: /* OPEN_DELEGATE_NONE_EXT */
		r->deleg_type = OPEN_DELEGATE_NONE;
		TRY(rpcrdma_xdr_get_u32(x, &why));
		return (why == 1 || why == 2) ? skip_words(x, 1) : 0;
	default:
		return -EBADMSG;
	}
}

static int get_open(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	TRY(get_stateid(x, &r->stateid));
	TRY(skip_words(x, 5)); /* change_info4 */
	TRY(rpcrdma_xdr_get_u32(x, &r->open_rflags));
	TRY(skip_bitmap(x));   /* attrset */
	return get_delegation(x, r);
}

static int get_read(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	const void *data;
	uint32_t len;

	TRY(rpcrdma_xdr_get_bool(x, &r->read_eof));
	if (r->get_bulk) {
		TRY(r->get_bulk(x, &data, &len, r->read_max));
		if (len > 0 && data != r->read_buf)
			memcpy(r->read_buf, data, len);
	} else {
		TRY(rpcrdma_xdr_get_opaque(x, r->read_buf, r->read_max, &len));
	}
	r->read_len = len;
	return 0;
}

static int get_dirent(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	char name[P4_NAME_MAX + 1];
	uint64_t cookie;

	TRY(rpcrdma_xdr_get_u64(x, &cookie));
	TRY(rpcrdma_xdr_get_string(x, name, sizeof(name), P4_NAME_MAX));
	TRY(skip_bitmap(x));
	TRY(skip_opaque(x, 1u << 20)); /* attrlist4 */
	r->dir_entries++;
	r->dir_last_cookie = cookie;
	return r->dirent ? r->dirent(r->dirent_arg, name, cookie) : 0;
}

static int get_readdir(struct rpcrdma_xdr_dec *x, struct p4_res *r)
{
	int follows;

	TRY(rpcrdma_xdr_get_fixed(x, r->cookieverf, NFS4_VERIFIER_SIZE));
	for (;;) {
		TRY(rpcrdma_xdr_get_bool(x, &follows));
		if (!follows)
			break;
		TRY(get_dirent(x, r));
	}
	return rpcrdma_xdr_get_bool(x, &r->dir_eof);
}

/* The result body of op (its status was NFS4_OK). */
static int get_resok(struct rpcrdma_xdr_dec *x, uint32_t op, struct p4_res *r)
{
	switch (op) {
	case OP_SEQUENCE:
		return get_sequence(x, r);
	case OP_EXCHANGE_ID:
		return get_exid(x, r);
	case OP_CREATE_SESSION:
		return get_create_session(x, r);
	case OP_DESTROY_SESSION: case OP_DESTROY_CLIENTID: case OP_RECLAIM_COMPLETE:
	case OP_PUTROOTFH: case OP_PUTFH: case OP_LOOKUP: case OP_DELEGRETURN:
		return 0;
	case OP_GETFH:
		return rpcrdma_xdr_get_opaque(x, r->fh.data, NFS4_FHSIZE, &r->fh.len);
	case OP_REMOVE:
		return skip_words(x, 5); /* change_info4 */
	case OP_CREATE:
		TRY(skip_words(x, 5));
		return skip_bitmap(x);
	case OP_OPEN:
		return get_open(x, r);
	case OP_CLOSE:
		return get_stateid(x, &r->stateid);
	case OP_WRITE:
		TRY(rpcrdma_xdr_get_u32(x, &r->write_count));
		TRY(rpcrdma_xdr_get_u32(x, &r->write_committed));
		return rpcrdma_xdr_get_fixed(x, r->write_verf, NFS4_VERIFIER_SIZE);
	case OP_COMMIT:
		return rpcrdma_xdr_get_fixed(x, r->commit_verf, NFS4_VERIFIER_SIZE);
	case OP_READ:
		return get_read(x, r);
	case OP_READDIR:
		return get_readdir(x, r);
	default:
		return -EBADMSG;
	}
}

int p4_decode(struct rpcrdma_xdr_dec *dec, struct p4_res *r)
{
	uint32_t n, op, st;

	r->seq_status = UINT32_MAX;
	TRY(rpcrdma_xdr_get_u32(dec, &r->status));
	TRY(skip_opaque(dec, NFS4_OPAQUE_LIMIT)); /* tag */
	TRY(rpcrdma_xdr_get_count(dec, P4_MAX_OPS, 8, &n));
	r->nres = 0;
	for (uint32_t i = 0; i < n; i++) {
		TRY(rpcrdma_xdr_get_u32(dec, &op));
		TRY(rpcrdma_xdr_get_u32(dec, &st));
		r->nres++;
		r->last_op = op;
		r->last_status = st;
		if (op == OP_SEQUENCE)
			r->seq_status = st;
		if (st != NFS4_OK) /* a failed op ends the compound, its status */
			return (i + 1 == n && st == r->status) ? 0 : -EBADMSG;
		TRY(get_resok(dec, op, r));
	}
	/* All succeeded (or none ran: the status says why). */
	return (n == 0 || r->status == NFS4_OK) ? 0 : -EBADMSG;
}

/* ---- names ----------------------------------------------------------------- */

const char *p4_op_name(uint32_t op)
{
	switch (op) {
	case OP_SEQUENCE: return "SEQUENCE";
	case OP_EXCHANGE_ID: return "EXCHANGE_ID";
	case OP_CREATE_SESSION: return "CREATE_SESSION";
	case OP_DESTROY_SESSION: return "DESTROY_SESSION";
	case OP_DESTROY_CLIENTID: return "DESTROY_CLIENTID";
	case OP_RECLAIM_COMPLETE: return "RECLAIM_COMPLETE";
	case OP_PUTROOTFH: return "PUTROOTFH";
	case OP_PUTFH: return "PUTFH";
	case OP_GETFH: return "GETFH";
	case OP_LOOKUP: return "LOOKUP";
	case OP_REMOVE: return "REMOVE";
	case OP_CREATE: return "CREATE";
	case OP_OPEN: return "OPEN";
	case OP_CLOSE: return "CLOSE";
	case OP_DELEGRETURN: return "DELEGRETURN";
	case OP_WRITE: return "WRITE";
	case OP_COMMIT: return "COMMIT";
	case OP_READ: return "READ";
	case OP_READDIR: return "READDIR";
	default: return "op?";
	}
}

const char *p4_status_name(uint32_t s)
{
	static const struct { uint32_t s; const char *n; } t[] = {
		{ NFS4_OK, "NFS4_OK" }, { NFS4ERR_PERM, "NFS4ERR_PERM" },
		{ NFS4ERR_NOENT, "NFS4ERR_NOENT" }, { NFS4ERR_IO, "NFS4ERR_IO" },
		{ NFS4ERR_ACCESS, "NFS4ERR_ACCESS" }, { NFS4ERR_EXIST, "NFS4ERR_EXIST" },
		{ NFS4ERR_NOTDIR, "NFS4ERR_NOTDIR" }, { NFS4ERR_ISDIR, "NFS4ERR_ISDIR" },
		{ NFS4ERR_INVAL, "NFS4ERR_INVAL" }, { NFS4ERR_NOSPC, "NFS4ERR_NOSPC" },
		{ NFS4ERR_ROFS, "NFS4ERR_ROFS" }, { NFS4ERR_NAMETOOLONG, "NFS4ERR_NAMETOOLONG" },
		{ NFS4ERR_NOTEMPTY, "NFS4ERR_NOTEMPTY" }, { NFS4ERR_STALE, "NFS4ERR_STALE" },
		{ NFS4ERR_BADHANDLE, "NFS4ERR_BADHANDLE" },
		{ NFS4ERR_BAD_COOKIE, "NFS4ERR_BAD_COOKIE" },
		{ NFS4ERR_NOTSUPP, "NFS4ERR_NOTSUPP" }, { NFS4ERR_TOOSMALL, "NFS4ERR_TOOSMALL" },
		{ NFS4ERR_SERVERFAULT, "NFS4ERR_SERVERFAULT" },
		{ NFS4ERR_BADTYPE, "NFS4ERR_BADTYPE" }, { NFS4ERR_DELAY, "NFS4ERR_DELAY" },
		{ NFS4ERR_GRACE, "NFS4ERR_GRACE" }, { NFS4ERR_WRONGSEC, "NFS4ERR_WRONGSEC" },
		{ NFS4ERR_CLID_INUSE, "NFS4ERR_CLID_INUSE" },
		{ NFS4ERR_RESOURCE, "NFS4ERR_RESOURCE" },
		{ NFS4ERR_NOFILEHANDLE, "NFS4ERR_NOFILEHANDLE" },
		{ NFS4ERR_MINOR_VERS_MISMATCH, "NFS4ERR_MINOR_VERS_MISMATCH" },
		{ NFS4ERR_STALE_CLIENTID, "NFS4ERR_STALE_CLIENTID" },
		{ NFS4ERR_BAD_STATEID, "NFS4ERR_BAD_STATEID" },
		{ NFS4ERR_BAD_SEQID, "NFS4ERR_BAD_SEQID" }, { NFS4ERR_BADXDR, "NFS4ERR_BADXDR" },
		{ NFS4ERR_OPENMODE, "NFS4ERR_OPENMODE" }, { NFS4ERR_BADCHAR, "NFS4ERR_BADCHAR" },
		{ NFS4ERR_BADNAME, "NFS4ERR_BADNAME" },
		{ NFS4ERR_OP_ILLEGAL, "NFS4ERR_OP_ILLEGAL" },
		{ NFS4ERR_BADSESSION, "NFS4ERR_BADSESSION" }, { NFS4ERR_BADSLOT, "NFS4ERR_BADSLOT" },
		{ NFS4ERR_COMPLETE_ALREADY, "NFS4ERR_COMPLETE_ALREADY" },
		{ NFS4ERR_CONN_NOT_BOUND_TO_SESSION, "NFS4ERR_CONN_NOT_BOUND_TO_SESSION" },
		{ NFS4ERR_SEQ_MISORDERED, "NFS4ERR_SEQ_MISORDERED" },
		{ NFS4ERR_SEQUENCE_POS, "NFS4ERR_SEQUENCE_POS" },
		{ NFS4ERR_REQ_TOO_BIG, "NFS4ERR_REQ_TOO_BIG" },
		{ NFS4ERR_REP_TOO_BIG, "NFS4ERR_REP_TOO_BIG" },
		{ NFS4ERR_TOO_MANY_OPS, "NFS4ERR_TOO_MANY_OPS" },
		{ NFS4ERR_OP_NOT_IN_SESSION, "NFS4ERR_OP_NOT_IN_SESSION" },
		{ NFS4ERR_CLIENTID_BUSY, "NFS4ERR_CLIENTID_BUSY" },
		{ NFS4ERR_SEQ_FALSE_RETRY, "NFS4ERR_SEQ_FALSE_RETRY" },
		{ NFS4ERR_DEADSESSION, "NFS4ERR_DEADSESSION" },
		{ NFS4ERR_NOT_ONLY_OP, "NFS4ERR_NOT_ONLY_OP" },
		{ NFS4ERR_WRONG_CRED, "NFS4ERR_WRONG_CRED" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].s == s)
			return t[i].n;
	return NULL;
}
