/* SPDX-License-Identifier: BSD-2-Clause */
/* The NFS RPC program on the service core; see rpc.h. */
#include "rpc.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/gss.h>

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

int tnfs_rpc_cred(const struct rpcrdma_svc_cred *in, int gss_service, const char *principal,
		  struct tnfs_cred *out)
{
	memset(out, 0, sizeof(*out));
	bool gss = in->flavor == RPCRDMA_AUTH_RPCSEC_GSS;
	if (in->flavor != RPCRDMA_AUTH_SYS && !gss) {
		out->anon = true; /* squashed per export (tnfs_export_squash) */
		out->uid = out->gid = 65534;
		return 0;
	}
	if (gss) {
		size_t len = principal ? strlen(principal) : 0;
		if (gss_service < TNFS_GSS_SVC_NONE || gss_service > TNFS_GSS_SVC_PRIVACY ||
		    len == 0 || len >= sizeof(out->principal)) {
			out->anon = true;
			out->uid = out->gid = 65534;
			return -EACCES;
		}
		out->gss_service = (uint32_t)gss_service;
		memcpy(out->principal, principal, len + 1);
	}
	out->uid = in->uid;
	out->gid = in->gid;
	uint32_t n = in->ngids;
	if (n > sizeof(out->groups) / sizeof(out->groups[0]))
		n = sizeof(out->groups) / sizeof(out->groups[0]);
	out->ngroups = n;
	memcpy(out->groups, in->gids, n * sizeof(out->groups[0]));
	return 0;
}

int tnfs_rpc_gss_map(void *arg, const char *principal, const char *localname,
		     struct rpcrdma_svc_cred *cred)
{
	(void)arg;
	if (!principal || strlen(principal) >= TNFS_PRINCIPAL_MAX)
		return -ENAMETOOLONG;
	/* nobody: tnfs_export_squash gives the export's anonymous ids */
	cred->uid = cred->gid = UINT32_MAX;
	cred->ngids = 0;
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (!localname || getpwnam_r(localname, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return 0;
	cred->uid = pw.pw_uid;
	cred->gid = pw.pw_gid;
	gid_t groups[RPCRDMA_AUTH_SYS_MAX_GIDS];
	int n = RPCRDMA_AUTH_SYS_MAX_GIDS;
	/* -1 when the user has more groups: the first n are filled */
	if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		n = RPCRDMA_AUTH_SYS_MAX_GIDS;
	for (int i = 0; i < n; i++)
		cred->gids[i] = groups[i];
	cred->ngids = (uint32_t)n;
	return 0;
}

int tnfs_rpc_set_gss(struct rpcrdma_svc *svc, const char *keytab)
{
	struct rpcrdma_svc_gss_opts go;
	rpcrdma_svc_gss_opts_init(&go);
	go.keytab = keytab;
	go.map_fn = tnfs_rpc_gss_map;
	return rpcrdma_svc_set_gss(svc, &go);
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
	if (tnfs_rpc_cred(rpcrdma_svc_call_cred(call), rpcrdma_svc_call_gss_service(call),
			  rpcrdma_svc_call_principal(call), &cred) != 0)
		return RPCRDMA_SVC_SYSTEM_ERR;
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
