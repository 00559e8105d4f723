/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal: the per-COMPOUND context and the operation handlers (ops_*.c),
 * dispatched by the table in optable.c.  A handler returns the operation's
 * status; it may write its result body straight to `x` (streamed results)
 * or fill `r` for the codec's encoder.  On a non-OK status, compound.c
 * discards whatever the handler wrote and lets the encoder write the
 * error body (if the result has one).
 */
#ifndef TINYNFS_OPS_H
#define TINYNFS_OPS_H

#include "compound.h"
#include "fs.h"
#include "nfs4_xdr.h"
#include "server.h"

#define TNFS_IMPL_DOMAIN "librpcrdma.invalid"
#define TNFS_IMPL_NAME "tinynfs"

#define TNFS_NOT_PSEUDO UINT32_MAX

struct tnfs_ctx {
	struct tnfs_server *srv;
	/* the current file handle's export; &srv->pseudo_exp while it is a
	 * pseudo node (cpseudo), whose cfh.fd is -1 and cfh_fh always set */
	const struct tnfs_export *exp;
	uint32_t cpseudo;
	/* the saved file handle's */
	const struct tnfs_export *sexp;
	uint32_t spseudo;
	uint32_t minor;
	const struct tnfs_cred *rpc_cred; /* as the RPC layer gave them */
	/* the RPC call (its connection carries the back channel); NULL
	 * in-process */
	const struct rpcrdma_svc_call *call;
	struct tnfs_cred cred; /* after squashing for cred_exp */
	const struct tnfs_export *cred_exp;
	struct tnfs_fs_saved become; /* what tnfs_fs_become() switched */
	struct tnfs_node cfh, sfh;
	struct tnfs_fh cfh_fh; /* valid if cfh_fh.len */
	/* the current file handle's stat as PUTFH took it (its export
	 * checks), for operation cfh_st_op alone, the one right after the
	 * PUTFH, and once (tnfs_ctx_cfh_stat); none when !cfh_st_ok */
	struct stat cfh_st;
	uint32_t cfh_st_op;
	bool cfh_st_ok;
	struct nfs4_stateid cur_sid, saved_sid;
	bool have_cur_sid, have_saved_sid;
	/* session of this request (after SEQUENCE) */
	bool have_session, cachethis;
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t slotid;
	uint64_t clientid;
	uint32_t maxops, maxresp_cached;
	size_t maxreq;
	/* replay found by SEQUENCE: the cached reply (owned) */
	uint8_t *replay;
	size_t replay_len;
	uint32_t opindex, numops;
	/* the operation after this one, UINT32_MAX if none (WRONGSEC,
	 * RFC 8881 2.6.3.1.1) */
	uint32_t next_op;
	struct xdr_in rest; /* the operations after this one */
	size_t reqlen;
	size_t limit; /* reply bytes allowed */
	/* the RPC headers around the COMPOUND (tnfs_compound_rpc): the
	 * session's channel limits count whole RPC messages */
	size_t rpc_req_hdr, rpc_rep_hdr;
	/* the first READ run: its data in the reply (set by READ, kept by
	 * tnfs_compound() only if that READ succeeds) */
	bool read_seen;
	const uint8_t *read_data;
	uint32_t read_len;
};

enum {
	OPF_FIRST = 1,	 /* may open a COMPOUND without SEQUENCE (alone) */
	OPF_CFH = 2,	 /* needs a current file handle */
	OPF_SESSION = 4, /* needs the session (client) of SEQUENCE */
	/* with OPF_CFH: also runs on a pseudo node (the handler checks
	 * cpseudo); without it compound.c refuses the operation there
	 * (tnfs_pseudo_refusal()) */
	OPF_PSEUDO = 8
};

typedef uint32_t tnfs_op_fn(struct tnfs_ctx *c, const union nfs4_args *a,
			    union nfs4_res *r, struct xdr_out *x);
typedef size_t tnfs_est_fn(const struct tnfs_est *e, const union nfs4_args *a);

struct tnfs_op {
	const char *name;
	unsigned flags;
	tnfs_est_fn *estimate;
	tnfs_op_fn *run;
	tnfs_est_fn *bulk; /* READ payload part of the estimate, or NULL */
};

const struct tnfs_op *tnfs_op_get(uint32_t op);

/* Replace the current file handle (takes ownership of n); it is a file
 * of the current export (c->exp).  These three clear the current
 * stateid. */
void tnfs_ctx_set_cfh(struct tnfs_ctx *c, struct tnfs_node *n, const struct tnfs_fh *fh);
/* The same, a file of export x (a PUTFH, or a LOOKUP into a junction). */
void tnfs_ctx_set_cfh_in(struct tnfs_ctx *c, const struct tnfs_export *x, struct tnfs_node *n,
			 const struct tnfs_fh *fh);
/* The current file handle's stat: the one PUTFH took when this is the
 * operation right after it, and the first to ask (PUTFH changes nothing,
 * so it is as fresh as a new one: a REMOVE's change attribute "before",
 * a GETATTR), else fstat now. */
uint32_t tnfs_ctx_cfh_stat(struct tnfs_ctx *c, struct stat *st);
/* The current file handle becomes pseudo node `node`. */
void tnfs_ctx_set_pseudo(struct tnfs_ctx *c, uint32_t node);
/* The stateid an operation means (4.1 "current stateid": seqid 1, other 0). */
uint32_t tnfs_ctx_stateid(const struct tnfs_ctx *c, const struct nfs4_stateid *in,
			  struct nfs4_stateid *out);
void tnfs_ctx_set_stateid(struct tnfs_ctx *c, const struct nfs4_stateid *s);
/* No current stateid any more (the current file handle changed). */
void tnfs_ctx_clear_stateid(struct tnfs_ctx *c);
bool tnfs_ctx_readonly(const struct tnfs_ctx *c);
/* Would RFC 8881 2.6.3.1.1's WRONGSEC be lifted by SP4_MACH_CRED, as
 * nfsd's nfsd4_spo_must_allow() lifts it: the call comes from the
 * session's client's machine credential (integrity protected) and an
 * operation after this one is in its spo_must_allow list (the Linux
 * client sends CLOSE, LOCKU, DELEGRETURN ... with its machine
 * credential, over the lease's flavour, krb5i, which an export of
 * sec=krb5p does not take). */
bool tnfs_ctx_mach_allowed(const struct tnfs_ctx *c);

/* One half of a directory's change_info4: *v is the change attribute of
 * `dir` now (0 if its stat fails).  Returns whether the stat worked; the
 * change_info is atomic when both halves did (the reason is in ops_dir.c). */
bool tnfs_dir_change(const struct tnfs_node *dir, uint64_t *v);

/* READDIR4resok within maxcount and dircount (RFC 8881 18.23.3), for
 * READDIR of a directory and of a pseudo node (ops_dir.c): begin writes
 * the cookie verifier (NFS4ERR_TOOSMALL when the reply room or maxcount
 * cannot hold an empty list); add starts an entry (value follows, cookie,
 * name) and is false when it would pass dircount; the caller encodes its
 * attributes into d->w and keep takes their status, removing the entry
 * (false: the list is full) when they failed or did not fit; end closes
 * the list into x (NFS4ERR_TOOSMALL when no entry fitted before eof). */
struct tnfs_dirlist {
	struct xdr_out w;
	uint32_t dircount, nlen;
	size_t names;
	unsigned entries;
	uint8_t *undo;
};
uint32_t tnfs_dirlist_begin(struct tnfs_dirlist *d, const union nfs4_args *a,
			    const struct xdr_out *x);
bool tnfs_dirlist_add(struct tnfs_dirlist *d, uint64_t cookie, const char *name, uint32_t nlen);
bool tnfs_dirlist_keep(struct tnfs_dirlist *d, uint32_t attrs_status);
uint32_t tnfs_dirlist_end(struct tnfs_dirlist *d, struct xdr_out *x, bool eof);

/* ops_io.c: the descriptor for I/O on file n with stateid sid (resolved
 * by tnfs_ctx_stateid()), the caller's rights checked (tnfs_fs_may_io());
 * *st its stat.  A directory is NFS4ERR_ISDIR, another non-regular file
 * NFS4ERR_INVAL.  The caller closes *fd. */
uint32_t tnfs_io_fd(struct tnfs_ctx *c, const struct tnfs_node *n,
		    const struct nfs4_stateid *sid, bool write, int *fd, struct stat *st);

/* ops_session.c */
tnfs_op_fn tnfs_op_backchannel_ctl, tnfs_op_delegreturn;
tnfs_op_fn tnfs_op_exchange_id, tnfs_op_create_session, tnfs_op_sequence,
	tnfs_op_destroy_session, tnfs_op_destroy_clientid,
	tnfs_op_reclaim_complete, tnfs_op_bind_conn;
/* The SEQUENCE that began c's COMPOUND fails after taking its slot: the
 * slot is as it was (tnfs_state_slot_undo), c is out of the session. */
void tnfs_sequence_undo(struct tnfs_ctx *c);
/* ops_fh.c */
tnfs_op_fn tnfs_op_putrootfh, tnfs_op_putfh, tnfs_op_getfh, tnfs_op_savefh,
	tnfs_op_restorefh, tnfs_op_lookup, tnfs_op_lookupp, tnfs_op_access,
	tnfs_op_getattr, tnfs_op_readlink, tnfs_op_secinfo, tnfs_op_secinfo_no_name,
	tnfs_op_verify, tnfs_op_nverify;
/* ops_dir.c */
tnfs_op_fn tnfs_op_readdir, tnfs_op_create, tnfs_op_remove, tnfs_op_rename,
	tnfs_op_link;
/* ops_io.c */
tnfs_op_fn tnfs_op_open, tnfs_op_close, tnfs_op_open_downgrade, tnfs_op_read,
	tnfs_op_write, tnfs_op_commit, tnfs_op_setattr, tnfs_op_seek;
/* ops_space.c (RFC 7862) */
tnfs_op_fn tnfs_op_allocate, tnfs_op_deallocate, tnfs_op_copy, tnfs_op_clone,
	tnfs_op_read_plus, tnfs_op_copy_notify, tnfs_op_offload_cancel,
	tnfs_op_offload_status;
/* READ_PLUS4resok's body around its data: eof, contents count, type,
 * offset, data length */
#define READ_PLUS_BODY 24u
/* ops_pseudo.c: the pseudo-node halves of the OPF_PSEUDO operations */
uint32_t tnfs_pseudo_refusal(uint32_t op);
/* The current file handle becomes pseudo node `node`, or at a junction
 * the export's root. */
uint32_t tnfs_pseudo_enter(struct tnfs_ctx *c, uint32_t node);
uint32_t tnfs_pseudo_op_lookup(struct tnfs_ctx *c, const uint8_t *name, uint32_t len);
uint32_t tnfs_pseudo_op_lookupp(struct tnfs_ctx *c);
/* LOOKUPP of an export's root: its junction's parent. */
uint32_t tnfs_pseudo_op_leave(struct tnfs_ctx *c);
uint32_t tnfs_pseudo_op_access(struct tnfs_ctx *c, const union nfs4_args *a, union nfs4_res *r);
uint32_t tnfs_pseudo_op_getattr(struct tnfs_ctx *c, const union nfs4_args *a, struct xdr_out *x);
uint32_t tnfs_pseudo_op_readdir(struct tnfs_ctx *c, const union nfs4_args *a, struct xdr_out *x);
/* The mounted_on_fileid of an export root seen from the pseudo tree, or 0. */
uint64_t tnfs_pseudo_mounted_on(const struct tnfs_ctx *c, const struct tnfs_export *x);

/* ops_lock.c */
tnfs_op_fn tnfs_op_lock, tnfs_op_lockt, tnfs_op_locku, tnfs_op_test_stateid,
	tnfs_op_free_stateid;

#endif
