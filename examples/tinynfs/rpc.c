/* SPDX-License-Identifier: BSD-2-Clause */
/* The NFS RPC program on the service core; see rpc.h. */
#include "rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compound.h"

struct compound_args {
	const uint8_t *req; /* into the received message, or owned */
	uint8_t *owned;     /* the copy when the message was not contiguous */
	size_t len;
};

/* The reply to a COMPOUND whose header does not decode carries no body
 * (GARBAGE_ARGS); this keeps the estimate of such a call non-zero. */
#define GARBAGE_EST 16u

static size_t null_estimate(const struct rpcrdma_svc_call *call, const void *args)
{
	(void)call, (void)args;
	return 0;
}

static int null_handler(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)call, (void)args, (void)res;
	return RPCRDMA_SVC_SUCCESS;
}

static int compound_decode(struct rpcrdma_xdr_dec *dec, void *args)
{
	struct compound_args *a = args;
	size_t n = rpcrdma_xdr_dec_left(dec);
	if (n < 12 || n > TNFS_RPC_MAX_ARGS || n % 4)
		return -EBADMSG;
	a->len = n;
	/* Zero copy when contiguous (RDMA: the call with its read chunks
	 * spliced in; TCP: one record), else a copy. */
	const void *ref;
	int rc = rpcrdma_xdr_get_fixed_ref(dec, &ref, n);
	if (rc != -EXDEV) {
		a->req = ref;
		return rc;
	}
	a->owned = malloc(n);
	if (!a->owned)
		return -ENOMEM;
	a->req = a->owned;
	return rpcrdma_xdr_get_fixed(dec, a->owned, n);
}

static size_t compound_bound(const struct tnfs_server *srv, const struct compound_args *a)
{
	size_t total = 0, bulk = 0;
	if (tnfs_compound_estimate(srv, a->req, a->len, &total, &bulk) != 0 || total < GARBAGE_EST)
		return GARBAGE_EST;
	return total;
}

static size_t compound_estimate(const struct rpcrdma_svc_call *call, const void *args)
{
	return compound_bound(rpcrdma_svc_call_program_ctx(call), args);
}

/* The caller's ids as tinynfs uses them (before export squashing). */
static void call_cred(const struct rpcrdma_svc_cred *in, struct tnfs_cred *out)
{
	memset(out, 0, sizeof(*out));
	if (in->flavor != RPCRDMA_AUTH_SYS) {
		out->anon = true; /* squashed per export (tnfs_export_squash) */
		out->uid = out->gid = 65534;
		return;
	}
	out->uid = in->uid;
	out->gid = in->gid;
	uint32_t n = in->ngids;
	if (n > sizeof(out->groups) / sizeof(out->groups[0]))
		n = sizeof(out->groups) / sizeof(out->groups[0]);
	out->ngroups = n;
	memcpy(out->groups, in->gids, n * sizeof(out->groups[0]));
}

/* The COMPOUND reply is built in place, in the transport's reply buffer
 * (rpcrdma_svc_call_results): over RDMA that is registered memory, so
 * READ data goes from the file to the client's write chunk with one
 * pread and no copy (RFC 8267). */
static int compound_handler(struct rpcrdma_svc_call *call, void *args, void *res)
{
	(void)res;
	struct tnfs_server *srv = rpcrdma_svc_call_program_ctx(call);
	const struct compound_args *a = args;
	size_t cap = compound_bound(srv, a), room;
	uint8_t *rep = rpcrdma_svc_call_results(call, &room);
	if (room < cap)
		return RPCRDMA_SVC_SYSTEM_ERR;
	struct tnfs_cred cred;
	call_cred(rpcrdma_svc_call_cred(call), &cred);
	size_t len, bulk_off, bulk_len;
	int rc = tnfs_compound_call(srv, &cred, call, a->req, a->len,
				    rpcrdma_svc_call_header_len(call), RPCRDMA_SVC_REPLY_HDR_LEN, rep,
				    cap, &len, &bulk_off, &bulk_len);
	if (rc == -EBADMSG)
		return RPCRDMA_SVC_GARBAGE_ARGS;
	if (rc != 0 || rpcrdma_svc_call_set_results_len(call, len) != 0)
		return RPCRDMA_SVC_SYSTEM_ERR;
	/* The first READ's data may go by the write chunk; a transport
	 * without one sends the reply unchanged. */
	if (bulk_len > 0)
		(void)rpcrdma_svc_call_set_bulk(call, bulk_off, bulk_len);
	return RPCRDMA_SVC_SUCCESS;
}

static void compound_release(void *args, void *res)
{
	(void)res;
	struct compound_args *a = args;
	free(a->owned);
}

static const struct rpcrdma_svc_proc nfs4_procs[] = {
	[TNFS_RPC_NULL] = {
		.name = "NULL",
		.estimate = null_estimate,
		.handler = null_handler,
	},
	[TNFS_RPC_COMPOUND] = {
		.name = "COMPOUND",
		.args_size = sizeof(struct compound_args),
		.decode_args = compound_decode,
		.estimate = compound_estimate,
		.handler = compound_handler,
		.release = compound_release,
	},
};

int tnfs_rpc_register(struct rpcrdma_svc *svc, struct tnfs_server *srv)
{
	const struct rpcrdma_svc_version vers[] = { {
		.vers = TNFS_RPC_VERS,
		.flags = RPCRDMA_SVC_VERS_NEEDS_CC,
		.nprocs = sizeof(nfs4_procs) / sizeof(nfs4_procs[0]),
		.procs = nfs4_procs,
	} };
	const struct rpcrdma_svc_program prog = {
		.prog = TNFS_RPC_PROG,
		.name = "nfs",
		.nvers = 1,
		.vers = vers,
		.ctx = srv,
	};
	return rpcrdma_svc_register(svc, &prog);
}
