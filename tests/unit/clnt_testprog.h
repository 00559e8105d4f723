/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program for the RPC client's tests (header-only, test code), served by
 * the library's own service over TCP, UDP (test_clnt) and RDMA (the VM
 * test):
 *   program 0x20000123 version 1
 *     0 NULL    void -> void
 *     1 WHOAMI  void -> (flavor, uid, gid, ngids, machinename<255>)
 *     2 DROP    void -> no reply at all (the call times out)
 *     3 BULK    opaque<4 MiB> -> the same opaque, marked as bulk result
 *     4 SIZED   u32 n (<= 4 MiB) -> opaque<> of n bytes (i & 0xff), not
 *               marked as bulk (a large one needs the reply chunk)
 */
#ifndef CLNT_TESTPROG_H
#define CLNT_TESTPROG_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/svc.h>
#include <rpcrdma/xdr.h>

#define CT_PROG 0x20000123u
#define CT_VERS 1u
#define CT_BULK_MAX (4u << 20)
enum { CT_NULL, CT_WHOAMI, CT_DROP, CT_BULK, CT_SIZED, CT_NPROCS };

struct ct_blob {
	const void *p;
	uint32_t len;
	uint8_t *own;   /* when the data spanned two segments */
};

struct ct_who {
	uint32_t flavor, uid, gid, ngids;
	char name[256];
};

static inline int ct_dec_blob(struct rpcrdma_xdr_dec *d, void *a)
{
	struct ct_blob *b = (struct ct_blob *)a;
	struct rpcrdma_xdr_dec save = *d;
	int err = rpcrdma_xdr_get_opaque_ref(d, &b->p, CT_BULK_MAX, &b->len);

	if (err != -EXDEV)
		return err;
	*d = save;
	uint32_t n;
	if (rpcrdma_xdr_get_u32(d, &n) || n > CT_BULK_MAX)
		return -EBADMSG;
	*d = save;
	b->own = (uint8_t *)malloc(n ? n : 1);
	if (!b->own)
		return -ENOMEM;
	b->p = b->own;
	return rpcrdma_xdr_get_opaque(d, b->own, n, &b->len);
}

static inline size_t ct_est_blob(const struct rpcrdma_svc_call *c, const void *a)
{
	(void)c;
	return rpcrdma_xdr_opaque_size(((const struct ct_blob *)a)->len);
}

static inline int ct_bulk(struct rpcrdma_svc_call *c, void *a, void *r)
{
	const struct ct_blob *b = (const struct ct_blob *)a;

	*(struct ct_blob *)r = *b;
	((struct ct_blob *)r)->own = NULL;
	if (b->len)
		rpcrdma_svc_call_set_bulk(c, 4, b->len);
	return RPCRDMA_SVC_SUCCESS;
}

static inline int ct_enc_blob(struct rpcrdma_xdr_enc *e, const void *r)
{
	const struct ct_blob *b = (const struct ct_blob *)r;

	return rpcrdma_xdr_put_opaque(e, b->p, b->len);
}

static inline void ct_rel_blob(void *a, void *r)
{
	(void)r;
	free(((struct ct_blob *)a)->own);
}

static inline int ct_whoami(struct rpcrdma_svc_call *c, void *a, void *r)
{
	const struct rpcrdma_svc_cred *cr = rpcrdma_svc_call_cred(c);
	struct ct_who *w = (struct ct_who *)r;

	(void)a;
	w->flavor = cr->flavor;
	w->uid = cr->uid;
	w->gid = cr->gid;
	w->ngids = cr->ngids;
	memcpy(w->name, cr->machinename, sizeof(w->name));
	return RPCRDMA_SVC_SUCCESS;
}

static inline size_t ct_est_who(const struct rpcrdma_svc_call *c, const void *a)
{
	(void)c;
	(void)a;
	return 16 + rpcrdma_xdr_opaque_size(255);
}

static inline int ct_enc_who(struct rpcrdma_xdr_enc *e, const void *r)
{
	const struct ct_who *w = (const struct ct_who *)r;

	return rpcrdma_xdr_put_u32(e, w->flavor) || rpcrdma_xdr_put_u32(e, w->uid) ||
	       rpcrdma_xdr_put_u32(e, w->gid) || rpcrdma_xdr_put_u32(e, w->ngids) ||
	       rpcrdma_xdr_put_string(e, w->name);
}

static inline int ct_drop(struct rpcrdma_svc_call *c, void *a, void *r)
{
	(void)c;
	(void)a;
	(void)r;
	return RPCRDMA_SVC_DROP;
}

static inline int ct_dec_u32(struct rpcrdma_xdr_dec *d, void *a)
{
	uint32_t *n = (uint32_t *)a;

	return rpcrdma_xdr_get_u32(d, n) || *n > CT_BULK_MAX ? -EBADMSG : 0;
}

static inline size_t ct_est_sized(const struct rpcrdma_svc_call *c, const void *a)
{
	(void)c;
	return rpcrdma_xdr_opaque_size(*(const uint32_t *)a);
}

static inline int ct_sized(struct rpcrdma_svc_call *c, void *a, void *r)
{
	(void)c;
	*(uint32_t *)r = *(uint32_t *)a;
	return RPCRDMA_SVC_SUCCESS;
}

static inline int ct_enc_sized(struct rpcrdma_xdr_enc *e, const void *r)
{
	uint32_t n = *(const uint32_t *)r;
	uint8_t *p;

	if (rpcrdma_xdr_put_u32(e, n) || !(p = (uint8_t *)rpcrdma_xdr_reserve(e, n)))
		return -EMSGSIZE;
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)i;
	return 0;
}

static inline int ct_null(struct rpcrdma_svc_call *c, void *a, void *r)
{
	(void)c;
	(void)a;
	(void)r;
	return RPCRDMA_SVC_SUCCESS;
}

static const struct rpcrdma_svc_proc ct_procs[CT_NPROCS] = {
	[CT_NULL] = { .name = "null", .handler = ct_null },
	[CT_WHOAMI] = { .name = "whoami", .res_size = sizeof(struct ct_who),
			.estimate = ct_est_who, .handler = ct_whoami, .encode_res = ct_enc_who },
	[CT_DROP] = { .name = "drop", .handler = ct_drop },
	[CT_BULK] = { .name = "bulk", .args_size = sizeof(struct ct_blob),
		      .res_size = sizeof(struct ct_blob), .decode_args = ct_dec_blob,
		      .estimate = ct_est_blob, .handler = ct_bulk, .encode_res = ct_enc_blob,
		      .release = ct_rel_blob },
	[CT_SIZED] = { .name = "sized", .args_size = 4, .res_size = 4, .decode_args = ct_dec_u32,
		       .estimate = ct_est_sized, .handler = ct_sized,
		       .encode_res = ct_enc_sized },
};

static const struct rpcrdma_svc_version ct_versions[1] = {
	{ .vers = CT_VERS, .flags = 0, .nprocs = CT_NPROCS, .procs = ct_procs },
};

static const struct rpcrdma_svc_program ct_program = {
	.prog = CT_PROG, .name = "clnt-test", .nvers = 1, .vers = ct_versions,
};

#endif
