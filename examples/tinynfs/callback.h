/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NFSv4.1 back channel (RFC 8881 sections 2.10.3.1, 18.33, 18.34,
 * 18.36, 20): per client, the connection CREATE_SESSION with
 * CREATE_SESSION4_FLAG_CONN_BACK_CHAN or BIND_CONN_TO_SESSION (back or
 * both) came in on, the callback program and credential (csa_cb_program
 * and the first AUTH_NONE or AUTH_SYS csa_sec_parms; BACKCHANNEL_CTL
 * changes them), and one back-channel slot.
 *
 *  - A path is probed with CB_NULL when it is set; it is up when the
 *    probe is answered, down when a callback fails in transport (or times
 *    out) or the connection closes.  SEQUENCE replies carry
 *    SEQ4_STATUS_CB_PATH_DOWN (and _SESSION for the session of the path)
 *    while the client asked for a back channel and it is down; the client
 *    then binds a connection again and the recalls in progress are sent
 *    again.
 *  - Every CB_COMPOUND starts with CB_SEQUENCE on slot 0; its sequence
 *    id advances when the client answered CB_SEQUENCE.  One CB_COMPOUND
 *    per client is in flight; recalls wait their turn (at most
 *    TNFS_CB_QUEUE each, beyond which they are left to the revocation
 *    timeout).
 *
 * Thread-safe.  The transport is librpcrdma's backward direction
 * (rpcrdma_svc_conn_call_async); replies are handled on the service's
 * loop thread.
 */
#ifndef TINYNFS_CALLBACK_H
#define TINYNFS_CALLBACK_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/svc.h>

#include "deleg.h"
#include "nfs4_xdr.h"

#define TNFS_CB_QUEUE 256
#define TNFS_CB_TIMEOUT_MS 15000

struct tnfs_cb;
struct tnfs_deleg;

struct tnfs_cb_stats {
	uint64_t cb_null, cb_null_ok, cb_compound, cb_recall, cb_errors, cb_getattr;
};

int tnfs_cb_new(struct tnfs_cb **out);
/* After the service is destroyed (every callback's done has run).  NULL
 * is a no-op. */
void tnfs_cb_free(struct tnfs_cb *cb);
/* Where a path coming up sends the recalls in progress again. */
void tnfs_cb_set_deleg(struct tnfs_cb *cb, struct tnfs_deleg *d);

/* CREATE_SESSION with CONN_BACK_CHAN (back_new: a new session, its slot
 * starts at sequence 1) or BIND_CONN_TO_SESSION for the back channel, on
 * the connection of `call`.  minor: the COMPOUND's minor version.  True
 * if the connection is now the client's back channel (false: the call
 * has no connection, UDP or in-process). */
bool tnfs_cb_bind(struct tnfs_cb *cb, uint64_t clientid, const uint8_t sid[16],
		  const struct rpcrdma_svc_call *call, uint32_t minor, bool back_new,
		  const uint32_t *prog, const struct nfs4_cb_sec *sec);
/* BACKCHANNEL_CTL: new program and credential.  NFS4_OK, or
 * NFS4ERR_INVAL (no back channel for this session) / NFS4ERR_ENCR_ALG_UNSUPP
 * (no usable flavour). */
uint32_t tnfs_cb_ctl(struct tnfs_cb *cb, uint64_t clientid, const uint8_t sid[16],
		     uint32_t prog, const struct nfs4_cb_sec *sec);
/* The session or client is gone. */
void tnfs_cb_session_gone(struct tnfs_cb *cb, const uint8_t sid[16]);
void tnfs_cb_forget(struct tnfs_cb *cb, uint64_t clientid);

bool tnfs_cb_path_up(struct tnfs_cb *cb, uint64_t clientid);
/* SEQ4_STATUS_CB_PATH_DOWN(_SESSION) bits for a SEQUENCE on sid. */
uint32_t tnfs_cb_seq_flags(struct tnfs_cb *cb, uint64_t clientid, const uint8_t sid[16]);

/* Queues CB_RECALL of delegation sid (truncate false) on file fh. */
void tnfs_cb_recall(struct tnfs_cb *cb, uint64_t clientid, const struct nfs4_stateid *sid,
		    const uint8_t *fh, uint32_t fhlen);

/* Queues CB_GETATTR (RFC 8881 20.1, 10.4.3) of the change attribute and
 * size of file fh, and if times of time_deleg_access and
 * time_deleg_modify (RFC 9754), under clientid's write delegation sid;
 * the answer (or the failure) goes to tnfs_deleg_cb_getattr_done(). */
void tnfs_cb_getattr(struct tnfs_cb *cb, uint64_t clientid, const struct nfs4_stateid *sid,
		     const uint8_t *fh, uint32_t fhlen, bool times);

void tnfs_cb_stats(struct tnfs_cb *cb, struct tnfs_cb_stats *out);

/* CB_COMPOUND {CB_SEQUENCE, CB_RECALL} (tag empty, callback_ident 0) and
 * its reply: exposed for tests. */
struct tnfs_cb_recall_args {
	uint32_t minor;
	uint8_t sessionid[16];
	uint32_t seqid;
	struct nfs4_stateid sid;
	uint32_t fhlen;
	uint8_t fh[NFS4_FHSIZE];
	bool getattr; /* CB_GETATTR of change and size instead of CB_RECALL */
	bool times;   /* getattr: and of the delegated times (RFC 9754) */
};
/* CB_GETATTR's result after tnfs_cb_dec_recall_res: *ok if CB_GETATTR
 * succeeded and gave the change attribute and size (out), and no
 * attribute but those and the delegated times (out->times if it gave
 * both of these: a holder may leave them out).  0 or -EBADMSG. */
int tnfs_cb_dec_getattr_res(struct rpcrdma_xdr_dec *d, bool *ok,
			    struct tnfs_deleg_cbattrs *out);
int tnfs_cb_enc_recall(struct rpcrdma_xdr_enc *e, const struct tnfs_cb_recall_args *a);
/* *status the CB_COMPOUND's, *seq_ok whether CB_SEQUENCE succeeded (for
 * sessionid/seqid equal to a's). 0 or -EBADMSG. */
int tnfs_cb_dec_recall_res(struct rpcrdma_xdr_dec *d, const struct tnfs_cb_recall_args *a,
			   uint32_t *status, bool *seq_ok);

#endif
