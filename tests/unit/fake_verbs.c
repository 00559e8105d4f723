/* SPDX-License-Identifier: BSD-2-Clause */
/* A fake RDMA device for path tests: see fake_verbs.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "fake_verbs.h"

struct fv *FV;

/* ---- the data path: the context's ops ---- */

static void push_wc(uint64_t wr_id, enum ibv_wc_status st, enum ibv_wc_opcode op,
		    uint32_t len, uint32_t qpn)
{
	struct ibv_wc *wc;

	assert_true(FV->cq_tail - FV->cq_head < FV_MAX_WC);
	wc = &FV->cqe[FV->cq_tail++ % FV_MAX_WC];
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = st;
	wc->opcode = op;
	wc->byte_len = len;
	wc->qp_num = qpn;
}

/* FV->sigpipe: what a send on siw's dead TCP socket does to the caller. */
static void fake_sigpipe(void)
{
	if (!FV->sigpipe)
		return;
	FV->sigpipes++;
	pthread_kill(pthread_self(), SIGPIPE);
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	FV->posts++;
	fake_sigpipe();
	for (; wr; wr = wr->next) {
		struct fv_wr *r;

		if (wr->num_sge > FV_MAX_SGE || wr->num_sge < 0) {
			*bad = wr;
			return EINVAL;
		}
		if (FV->fail_wr && --FV->fail_wr == 0) {
			*bad = wr;
			return ENOMEM;
		}
		assert_true(FV->nwrs < FV_MAX_WRS);
		r = &FV->wrs[FV->nwrs++];
		memset(r, 0, sizeof(*r));
		r->qp = qp;
		r->wr_id = wr->wr_id;
		r->opcode = wr->opcode;
		r->send_flags = wr->send_flags;
		r->num_sge = wr->num_sge;
		if (wr->num_sge)
			memcpy(r->sge, wr->sg_list, sizeof(*r->sge) * (size_t)wr->num_sge);
		r->remote_addr = wr->wr.rdma.remote_addr;
		r->rkey = wr->wr.rdma.rkey;
		r->invalidate_rkey = wr->invalidate_rkey;
		r->seq = FV->seq++;
		if (wr->opcode == IBV_WR_SEND || wr->opcode == IBV_WR_SEND_WITH_INV) {
			r->msg = calloc(1, FV_MSG_MAX);
			assert_non_null(r->msg);
			for (int i = 0; i < wr->num_sge; i++) {
				assert_true(r->len + wr->sg_list[i].length <= FV_MSG_MAX);
				memcpy(r->msg + r->len, (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
				r->len += wr->sg_list[i].length;
			}
		}
	}
	return 0;
}

static void record_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr)
{
	for (; wr; wr = wr->next) {
		struct fv_recv *r;

		assert_int_equal(wr->num_sge, 1);
		assert_true(FV->nrecvs < FV_MAX_RECV);
		r = &FV->recvs[FV->nrecvs++];
		r->qp = qp;
		r->wr_id = wr->wr_id;
		r->addr = wr->sg_list[0].addr;
		r->length = wr->sg_list[0].length;
		r->seq = FV->seq++;
		r->used = false;
	}
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)bad;
	assert_false(((struct fv_qp *)(void *)qp)->destroyed);
	record_recv(qp, wr);
	return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	(void)srq;
	(void)bad;
	record_recv(NULL, wr);
	return 0;
}

/* Moves q to the error state (once). */
static void qp_err(struct fv_qp *q)
{
	if (q->err)
		return;
	q->err = true;
	q->err_seq = FV->seq;
}

void fv_qp_fail(struct ibv_qp *qp)
{
	qp_err((struct fv_qp *)(void *)qp);
}

/* Whether a WR or receive posted at seq flushes on q, in the error state:
 * always, but on iWARP only those posted before the move. */
static bool flushes(const struct fv_qp *q, unsigned seq)
{
	return !FV->iwarp || seq < q->err_seq;
}

/* Queues the flush of everything qp (in the error state) still holds. */
static void flush_qp(struct fv_qp *q)
{
	for (unsigned i = 0; i < FV->nwrs; i++) {
		struct fv_wr *w = &FV->wrs[i];

		if (w->qp != &q->qp || w->done || !flushes(q, w->seq))
			continue;
		w->done = true;
		push_wc(w->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_SEND, 0, q->qp.qp_num);
	}
	/* Its own receive queue; the SRQ's receives are not flushed. */
	for (unsigned i = 0; i < FV->nrecvs; i++) {
		struct fv_recv *r = &FV->recvs[i];

		if (r->qp != &q->qp || r->used || !flushes(q, r->seq))
			continue;
		r->used = true;
		push_wc(r->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, q->qp.qp_num);
	}
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int k = 0;

	(void)cq;
	if (FV->cq_head == FV->cq_tail)
		for (unsigned i = 0; i < FV->nqps_made; i++)
			if (FV->qps_made[i]->err && !FV->qps_made[i]->destroyed)
				flush_qp(FV->qps_made[i]);
	while (k < n && FV->cq_head != FV->cq_tail)
		wc[k++] = FV->cqe[FV->cq_head++ % FV_MAX_WC];
	return k;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return 0;
}

/* ---- the test's side ---- */

unsigned fv_mr_access(uint32_t key, bool *live)
{
	assert_true(key >= 0x1000u && key < FV->next_key && key - 0x1000u < FV_MAX_KEYS);
	*live = FV->mr_live[key - 0x1000u];
	return FV->mr_access[key - 0x1000u];
}

void fv_init(void)
{
	FV = calloc(1, sizeof(*FV));
	assert_non_null(FV);
	strcpy(FV->device.name, "fake0");
	FV->ctx.device = &FV->device;
	FV->ctx.cmd_fd = -1;
	FV->ctx.async_fd = -1;
	FV->ctx.ops.post_send = fake_post_send;
	FV->ctx.ops.post_recv = fake_post_recv;
	FV->ctx.ops.post_srq_recv = fake_post_srq_recv;
	FV->ctx.ops.poll_cq = fake_poll_cq;
	FV->ctx.ops.req_notify_cq = fake_req_notify_cq;
	FV->next_key = 0x1000;
	FV->next_qpn = 100;
}

void fv_fini(void)
{
	for (unsigned i = 0; i < FV->nwrs; i++)
		free(FV->wrs[i].msg);
	for (unsigned i = 0; i < FV->nqps_made; i++)
		free(FV->qps_made[i]);
	for (unsigned i = 0; i < FV->nevents; i++)
		free(FV->events[i]);
	free(FV);
	FV = NULL;
}

uint32_t fv_remote(uint8_t *mem, size_t len)
{
	struct fv_remote *r;

	assert_true(FV->nremote < FV_MAX_REMOTE);
	r = &FV->remote[FV->nremote++];
	r->rkey = 0xc0de0000u + FV->nremote;
	r->mem = mem;
	r->len = len;
	return r->rkey;
}

bool fv_deliver(struct ibv_qp *qp, const void *msg, uint32_t len)
{
	struct fv_recv *pick = NULL;

	for (unsigned i = 0; i < FV->nrecvs && !pick; i++)
		if (!FV->recvs[i].used && FV->recvs[i].qp == qp)
			pick = &FV->recvs[i];
	if (!qp->srq && !pick)
		return false;
	for (unsigned i = 0; i < FV->nrecvs && !pick; i++)
		if (!FV->recvs[i].used && FV->recvs[i].qp == NULL)
			pick = &FV->recvs[i];
	if (!pick)
		return false;
	assert_true(len <= pick->length);
	pick->used = true;
	memcpy((void *)(uintptr_t)pick->addr, msg, len);
	push_wc(pick->wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, len, qp->qp_num);
	return true;
}

/* The client memory [raddr, raddr + len) of rkey, or NULL. */
static uint8_t *remote_at(uint32_t rkey, uint64_t raddr, size_t len)
{
	for (unsigned i = 0; i < FV->nremote; i++) {
		struct fv_remote *r = &FV->remote[i];
		uint64_t base = (uintptr_t)r->mem;

		if (r->rkey != rkey)
			continue;
		if (raddr < base || raddr - base > r->len || len > r->len - (raddr - base))
			return NULL;
		return r->mem + (raddr - base);
	}
	return NULL;
}

/* Moves the bytes of an RDMA Read or Write; false: remote access error. */
static bool move(const struct fv_wr *w)
{
	uint64_t raddr = w->remote_addr;

	for (int i = 0; i < w->num_sge; i++) {
		uint8_t *local = (uint8_t *)(uintptr_t)w->sge[i].addr;
		uint8_t *remote = remote_at(w->rkey, raddr, w->sge[i].length);

		if (!remote)
			return false;
		if (w->opcode == IBV_WR_RDMA_READ)
			memcpy(local, remote, w->sge[i].length);
		else
			memcpy(remote, local, w->sge[i].length);
		raddr += w->sge[i].length;
	}
	return true;
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	default:
		return IBV_WC_SEND;
	}
}

unsigned fv_complete(struct ibv_qp *qp, unsigned n, enum ibv_wc_status status)
{
	struct fv_qp *q = (struct fv_qp *)(void *)qp;
	unsigned done = 0;

	for (unsigned i = 0; i < FV->nwrs && (!n || done < n) && !q->err; i++) {
		struct fv_wr *w = &FV->wrs[i];
		enum ibv_wc_status st = done == 0 ? status : IBV_WC_SUCCESS;

		if (w->qp != qp || w->done)
			continue;
		if (st == IBV_WC_SUCCESS && w->opcode != IBV_WR_SEND &&
		    w->opcode != IBV_WR_SEND_WITH_INV && !move(w))
			st = IBV_WC_REM_ACCESS_ERR;
		w->done = true;
		done++;
		if (st != IBV_WC_SUCCESS) {
			qp_err(q);
			push_wc(w->wr_id, st, wc_opcode(w->opcode), 0, qp->qp_num);
			break;
		}
		if (w->send_flags & IBV_SEND_SIGNALED)
			push_wc(w->wr_id, st, wc_opcode(w->opcode), 0, qp->qp_num);
	}
	return done;
}

unsigned fv_sq_outstanding(const struct ibv_qp *qp)
{
	unsigned n = 0;

	for (unsigned i = 0; i < FV->nwrs; i++)
		n += FV->wrs[i].qp == qp && !FV->wrs[i].done;
	return n;
}

unsigned fv_rq_posted(const struct ibv_qp *qp)
{
	unsigned n = 0;

	for (unsigned i = 0; i < FV->nrecvs; i++)
		n += FV->recvs[i].qp == qp && !FV->recvs[i].used;
	return n;
}

static void queue_event(struct rdma_cm_id *id, enum rdma_cm_event_type type,
			struct rdma_cm_event *ev)
{
	assert_true(FV->nevents < FV_MAX_EVENTS);
	ev->id = id;
	ev->event = type;
	FV->events[FV->nevents++] = ev;
}

struct rdma_cm_id *fv_connect_request(const void *pdata, uint8_t len, uint8_t initiator_depth)
{
	struct {
		struct rdma_cm_event ev;
		uint8_t pdata[64];
	} *e = calloc(1, sizeof(*e));
	struct rdma_cm_id *id = calloc(1, sizeof(*id));
	struct sockaddr_in *peer = (struct sockaddr_in *)&id->route.addr.dst_addr;

	assert_non_null(e);
	assert_non_null(id);
	FV->ids++;
	id->verbs = &FV->ctx;
	peer->sin_family = AF_INET;
	peer->sin_port = htons(700);
	peer->sin_addr.s_addr = htonl(0x7f000001);
	memcpy(e->pdata, pdata, len);
	e->ev.param.conn.private_data = e->pdata;
	e->ev.param.conn.private_data_len = len;
	e->ev.param.conn.initiator_depth = initiator_depth;
	queue_event(id, RDMA_CM_EVENT_CONNECT_REQUEST, &e->ev);
	return id;
}

void fv_cm_event(struct rdma_cm_id *id, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = calloc(1, sizeof(*ev));

	assert_non_null(ev);
	queue_event(id, type, ev);
}

/* ---- librdmacm, as the listener uses it ---- */

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rdma_event_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->fd = eventfd(FV->readable, EFD_NONBLOCK | EFD_CLOEXEC); /* FV->readable */
	FV->echs++;
	return ch;
}

void rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	close(ch->fd);
	free(ch);
	FV->echs--;
}

int rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **out, void *context,
		   enum rdma_port_space ps)
{
	struct rdma_cm_id *id = calloc(1, sizeof(*id));

	(void)ps;
	if (!id)
		return -1;
	id->channel = ch;
	id->context = context;
	FV->ids++;
	*out = id;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	assert_null(id->qp);
	free(id);
	FV->ids--;
	return 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id;
	(void)addr;
	return 0;
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id;
	(void)backlog;
	return 0;
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	(void)id;
	return htons(20049);
}

int rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev)
{
	(void)ch;
	if (!FV->nevents) {
		errno = EAGAIN;
		return -1;
	}
	*ev = FV->events[0];
	memmove(&FV->events[0], &FV->events[1], --FV->nevents * sizeof(FV->events[0]));
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *ev)
{
	free(ev);
	return 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *pdata, uint8_t len)
{
	(void)id;
	(void)pdata;
	(void)len;
	FV->rejects++;
	return 0;
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	(void)id;
	fake_sigpipe();
	if (FV->fail_accept) {
		FV->fail_accept--;
		errno = ECONNREFUSED;
		return -1;
	}
	FV->accepts++;
	FV->accept_param = *param;
	assert_true(param->private_data_len <= sizeof(FV->accept_pdata));
	memcpy(FV->accept_pdata, param->private_data, param->private_data_len);
	return 0;
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	FV->disconnects++;
	fake_sigpipe();
	if (id->qp)
		qp_err((struct fv_qp *)(void *)id->qp);
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qa)
{
	struct fv_qp *q;

	(void)pd;
	if (FV->fail_create_qp) {
		FV->fail_create_qp--;
		errno = ENOMEM;
		return -1;
	}
	assert_true(FV->nqps_made < FV_MAX_QPS);
	q = calloc(1, sizeof(*q));
	if (!q)
		return -1;
	q->init = *qa;
	q->qp.context = &FV->ctx;
	q->qp.qp_num = FV->next_qpn++;
	q->qp.srq = qa->srq;
	q->qp.send_cq = qa->send_cq;
	q->qp.recv_cq = qa->recv_cq;
	q->qp.qp_type = qa->qp_type;
	q->qp.state = IBV_QPS_RTS;
	FV->qps_made[FV->nqps_made++] = q;
	FV->qps++;
	id->qp = &q->qp;
	return 0;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct fv_qp *q = (struct fv_qp *)(void *)id->qp;

	/* Kept (freed at fv_fini) so that records may still name it. */
	q->destroyed = true;
	FV->qps--;
	id->qp = NULL;
}

/* ---- libibverbs' functions the transport calls ---- */

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	(void)context;
	memset(attr, 0, sizeof(*attr));
	attr->max_qp_wr = 16384;
	attr->max_sge = 32;
	attr->max_cqe = 65536;
	attr->max_srq = 1024;
	attr->max_srq_wr = 65536;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (pd) {
		pd->context = context;
		FV->pds++;
	}
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	FV->pds--;
	return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	struct ibv_mr *mr;

	(void)iova;
	if (FV->fail_reg_mr_skip) {
		FV->fail_reg_mr_skip--;
	} else if (FV->fail_reg_mr) {
		FV->fail_reg_mr--;
		errno = ENOMEM;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = mr->rkey = FV->next_key++;
	if (mr->lkey - 0x1000u < FV_MAX_KEYS) {
		FV->mr_access[mr->lkey - 0x1000u] = access;
		FV->mr_live[mr->lkey - 0x1000u] = true;
	}
	FV->mrs++;
	FV->mr_bytes += length;
	return mr;
}

#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	if (mr->lkey - 0x1000u < FV_MAX_KEYS)
		FV->mr_live[mr->lkey - 0x1000u] = false;
	FV->mrs--;
	FV->mr_bytes -= mr->length;
	free(mr);
	return 0;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq *srq = calloc(1, sizeof(*srq));

	(void)attr;
	if (srq) {
		srq->context = pd->context;
		srq->pd = pd;
		FV->srqs++;
	}
	return srq;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	/* Its receives go with it. */
	for (unsigned i = 0; i < FV->nrecvs; i++)
		if (FV->recvs[i].qp == NULL)
			FV->recvs[i].used = true;
	free(srq);
	FV->srqs--;
	return 0;
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->context = context;
	ch->fd = eventfd(FV->readable, EFD_NONBLOCK | EFD_CLOEXEC); /* FV->readable */
	FV->channels++;
	return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	close(ch->fd);
	free(ch);
	FV->channels--;
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **ctx)
{
	(void)ch;
	(void)cq;
	(void)ctx;
	errno = EAGAIN;
	return -1;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int n)
{
	(void)cq;
	(void)n;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq *cq = calloc(1, sizeof(*cq));

	(void)comp_vector;
	if (!cq)
		return NULL;
	if (FV->on_create_cq)
		FV->on_create_cq();
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	FV->cqs++;
	return cq;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	cq->cqe = cqe;
	return 0;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	FV->cqs--;
	return 0;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	if ((mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_ERR) {
		fake_sigpipe();
		qp_err((struct fv_qp *)(void *)qp);
	}
	return 0;
}
