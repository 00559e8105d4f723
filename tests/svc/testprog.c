/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "testprog.h"

struct echo_args {
	const void *data;
	uint32_t len;
	void *copy; /* when the data spanned segments */
};

struct add_args {
	uint32_t a, b;
};

struct squares_args {
	uint32_t n;
};

struct pending {
	struct pending *next;
	struct rpcrdma_svc_call *call;
};

struct testprog {
	struct rpcrdma_svc_program prog;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct pending *head, **tail;
	bool stop;
};

static int dec_echo(struct rpcrdma_xdr_dec *d, void *argp)
{
	struct echo_args *a = argp;
	int rc = rpcrdma_xdr_get_opaque_ref(d, &a->data, TESTPROG_ECHO_MAX, &a->len);
	if (rc == -EXDEV) {
		a->copy = malloc(TESTPROG_ECHO_MAX);
		if (!a->copy)
			return -ENOMEM;
		rc = rpcrdma_xdr_get_opaque(d, a->copy, TESTPROG_ECHO_MAX, &a->len);
		a->data = a->copy;
	}
	return rc;
}

static size_t est_echo(const struct rpcrdma_svc_call *c, const void *argp)
{
	const struct echo_args *a = argp;
	(void)c;
	return rpcrdma_xdr_opaque_size(a->len);
}

static int do_echo(struct rpcrdma_svc_call *c, void *argp, void *resp)
{
	(void)c;
	memcpy(resp, argp, sizeof(struct echo_args));
	return RPCRDMA_SVC_SUCCESS;
}

static int enc_echo(struct rpcrdma_xdr_enc *e, const void *resp)
{
	const struct echo_args *r = resp;
	return rpcrdma_xdr_put_opaque(e, r->data, r->len);
}

static void rel_echo(void *argp, void *resp)
{
	struct echo_args *a = argp;
	(void)resp;
	free(a->copy);
}

static int do_async_echo(struct rpcrdma_svc_call *c, void *argp, void *resp)
{
	struct testprog *tp = rpcrdma_svc_call_program_ctx(c);
	struct pending *p = malloc(sizeof(*p));
	if (!p)
		return RPCRDMA_SVC_SYSTEM_ERR;
	memcpy(resp, argp, sizeof(struct echo_args));
	p->call = c;
	p->next = NULL;
	pthread_mutex_lock(&tp->lock);
	*tp->tail = p;
	tp->tail = &p->next;
	pthread_cond_signal(&tp->cond);
	pthread_mutex_unlock(&tp->lock);
	return RPCRDMA_SVC_ASYNC;
}

static void *worker(void *arg)
{
	struct testprog *tp = arg;
	pthread_mutex_lock(&tp->lock);
	for (;;) {
		while (!tp->head && !tp->stop)
			pthread_cond_wait(&tp->cond, &tp->lock);
		if (!tp->head)
			break;
		struct pending *p = tp->head;
		tp->head = p->next;
		if (!tp->head)
			tp->tail = &tp->head;
		pthread_mutex_unlock(&tp->lock);
		rpcrdma_svc_reply(p->call, RPCRDMA_SVC_SUCCESS);
		free(p);
		pthread_mutex_lock(&tp->lock);
	}
	pthread_mutex_unlock(&tp->lock);
	return NULL;
}

static int dec_add(struct rpcrdma_xdr_dec *d, void *argp)
{
	struct add_args *a = argp;
	return rpcrdma_xdr_get_u32(d, &a->a) || rpcrdma_xdr_get_u32(d, &a->b) ? -EBADMSG : 0;
}

static size_t est_u32(const struct rpcrdma_svc_call *c, const void *argp)
{
	(void)c;
	(void)argp;
	return 4;
}

static int do_add(struct rpcrdma_svc_call *c, void *argp, void *resp)
{
	const struct add_args *a = argp;
	(void)c;
	*(uint32_t *)resp = a->a + a->b;
	return RPCRDMA_SVC_SUCCESS;
}

static int enc_u32(struct rpcrdma_xdr_enc *e, const void *resp)
{
	return rpcrdma_xdr_put_u32(e, *(const uint32_t *)resp);
}

static size_t est_zero(const struct rpcrdma_svc_call *c, const void *argp)
{
	(void)c;
	(void)argp;
	return 0;
}

static int do_null(struct rpcrdma_svc_call *c, void *argp, void *resp)
{
	(void)c;
	(void)argp;
	(void)resp;
	return RPCRDMA_SVC_SUCCESS;
}

static int do_syserr(struct rpcrdma_svc_call *c, void *argp, void *resp)
{
	(void)c;
	(void)argp;
	(void)resp;
	return RPCRDMA_SVC_SYSTEM_ERR;
}

static int dec_squares(struct rpcrdma_xdr_dec *d, void *argp)
{
	struct squares_args *a = argp;
	if (rpcrdma_xdr_get_u32(d, &a->n) || a->n > TESTPROG_SQUARES_MAX)
		return -EBADMSG;
	return 0;
}

static size_t est_squares(const struct rpcrdma_svc_call *c, const void *argp)
{
	const struct squares_args *a = argp;
	(void)c;
	return 4 + 4 * (size_t)a->n;
}

static int do_squares(struct rpcrdma_svc_call *c, void *argp, void *resp)
{
	(void)c;
	memcpy(resp, argp, sizeof(struct squares_args));
	return RPCRDMA_SVC_SUCCESS;
}

static int enc_squares(struct rpcrdma_xdr_enc *e, const void *resp)
{
	const struct squares_args *r = resp;
	int rc = rpcrdma_xdr_put_u32(e, r->n);
	for (uint32_t i = 0; i < r->n && !rc; i++)
		rc = rpcrdma_xdr_put_u32(e, i * i);
	return rc;
}

static const struct rpcrdma_svc_proc v1_procs[TP_NPROCS] = {
	[TP_NULL] = { .name = "NULL", .estimate = est_zero, .handler = do_null },
	[TP_ECHO] = { .name = "ECHO", .args_size = sizeof(struct echo_args),
		      .res_size = sizeof(struct echo_args), .decode_args = dec_echo,
		      .estimate = est_echo, .handler = do_echo, .encode_res = enc_echo,
		      .release = rel_echo },
	[TP_ADD] = { .name = "ADD", .args_size = sizeof(struct add_args),
		     .res_size = sizeof(uint32_t), .decode_args = dec_add,
		     .estimate = est_u32, .handler = do_add, .encode_res = enc_u32 },
	[TP_ASYNC_ECHO] = { .name = "ASYNC_ECHO", .args_size = sizeof(struct echo_args),
			    .res_size = sizeof(struct echo_args), .decode_args = dec_echo,
			    .estimate = est_echo, .handler = do_async_echo,
			    .encode_res = enc_echo, .release = rel_echo },
	[TP_SYSERR] = { .name = "SYSERR", .estimate = est_zero, .handler = do_syserr },
	[TP_HOLE] = { .name = NULL },
	[TP_SQUARES] = { .name = "SQUARES", .args_size = sizeof(struct squares_args),
			 .res_size = sizeof(struct squares_args),
			 .decode_args = dec_squares, .estimate = est_squares,
			 .handler = do_squares, .encode_res = enc_squares },
};

static const struct rpcrdma_svc_proc v2_procs[2] = {
	[TP_NULL] = { .name = "NULL", .estimate = est_zero, .handler = do_null },
	[TP_ECHO] = { .name = "ECHO", .args_size = sizeof(struct echo_args),
		      .res_size = sizeof(struct echo_args), .decode_args = dec_echo,
		      .estimate = est_echo, .handler = do_echo, .encode_res = enc_echo,
		      .release = rel_echo },
};

static const struct rpcrdma_svc_version versions[2] = {
	{ .vers = 1, .flags = 0, .nprocs = TP_NPROCS, .procs = v1_procs },
	{ .vers = 2, .flags = RPCRDMA_SVC_VERS_NEEDS_CC, .nprocs = 2, .procs = v2_procs },
};

const struct rpcrdma_svc_version *testprog_versions(unsigned *n)
{
	*n = 2;
	return versions;
}

int testprog_create(struct testprog **out)
{
	struct testprog *tp = calloc(1, sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	tp->prog.prog = TESTPROG_PROG;
	tp->prog.name = "testprog";
	tp->prog.nvers = 2;
	tp->prog.vers = versions;
	tp->prog.ctx = tp;
	tp->tail = &tp->head;
	pthread_mutex_init(&tp->lock, NULL);
	pthread_cond_init(&tp->cond, NULL);
	int rc = pthread_create(&tp->thread, NULL, worker, tp);
	if (rc) {
		free(tp);
		return -rc;
	}
	*out = tp;
	return 0;
}

void testprog_destroy(struct testprog *tp)
{
	if (!tp)
		return;
	pthread_mutex_lock(&tp->lock);
	tp->stop = true;
	pthread_cond_signal(&tp->cond);
	pthread_mutex_unlock(&tp->lock);
	pthread_join(tp->thread, NULL);
	pthread_cond_destroy(&tp->cond);
	pthread_mutex_destroy(&tp->lock);
	free(tp);
}

const struct rpcrdma_svc_program *testprog_program(struct testprog *tp)
{
	return &tp->prog;
}
