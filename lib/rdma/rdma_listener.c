/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDMA listener: its CM events (connection requests go to
 * rpcrdma__conn_accept, device removals to rdma_devrm.c), create,
 * shutdown, destroy and stats.  The listening id is made by
 * rpcrdma__listen_on (rdma_devrm.c), which listens again after a removal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <unistd.h>

#include "rdma_backward.h"
#include "rdma_internal.h"
#include "util/trace.h"

/* Why a connection closed, in the words TCP's log uses for the same. */
static const char *cm_close_why(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_DISCONNECTED:
		return "disconnected by the peer";
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return "connection error";
	case RDMA_CM_EVENT_UNREACHABLE:
		return "peer unreachable";
	case RDMA_CM_EVENT_REJECTED:
		return "connection rejected";
	default:
		return "connection manager event";
	}
}

/* ---- CM events ---- */

static int cm_handle(struct rpcrdma__source *s, unsigned budget)
{
	struct rpcrdma_listener *l = rpcrdma__container_of(s, struct rpcrdma_listener, cm_src);
	struct rdma_cm_event *ev;
	int n = 0;

	while ((unsigned)n < budget && rdma_get_cm_event(l->ech, &ev) == 0) {
		struct rdma_cm_id *id = ev->id;
		enum rdma_cm_event_type type = ev->event;

		n++;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			int err;

			rpcrdma__conn_cap(l);
			err = rpcrdma__conn_accept(l, ev);

			if (err) {
				RPCRDMA_TRACE(conn_refuse, 0, err, err == -EAGAIN ?
					      "over the resource group's limit" :
					      "connection setup failed");
				rpcrdma__conn_log(l, RPCRDMA_LOG_CONN_REFUSED, id,
					 err == -EAGAIN ? "over the resource group's limit"
							: "connection setup failed", err);
				rpcrdma__reject(id);
				rdma_ack_cm_event(ev);
				rdma_destroy_id(id);
				rpcrdma__count(&l->stats, NULL, RPCRDMA_STAT_REJECTS, 1);
				continue;
			}
			rdma_ack_cm_event(ev);
			continue;
		}
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			struct ibv_context *verbs = id->verbs;

			rdma_ack_cm_event(ev);
			rpcrdma__dev_remove(l, verbs, id == l->id);
			continue;
		}
		if (id == l->id) {
			rdma_ack_cm_event(ev);
			continue;
		}
		struct rpcrdma__conn *conn = id->context;

		pthread_mutex_lock(&l->lock);
		if (conn && conn->freeing)
			conn = NULL;
		if (conn)
			rpcrdma__conn_get(conn);
		pthread_mutex_unlock(&l->lock);
		rdma_ack_cm_event(ev);
		if (!conn)
			continue;
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			rpcrdma__conn_established(conn);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			RPCRDMA_TRACE(conn_cm_event, conn->conn_id, type, rdma_event_str(type));
			rpcrdma__conn_close(conn, cm_close_why(type));
			break;
		default:
			break;
		}
		rpcrdma__conn_put(conn);
	}
	return n;
}


/* ---- listener ---- */

int rpcrdma_listener_create(struct rpcrdma_poller *poller, const struct sockaddr *addr,
			    const struct rpcrdma_listener_opts *uopts, rpcrdma_call_handler handler,
			    void *handler_arg, struct rpcrdma_listener **out)
{
	return rpcrdma__listener_create(poller, addr, uopts, handler, handler_arg, 0, NULL, 0,
				       out);
}

/* The listener's sources on the poller, in order: the device-removal
 * timer, the idle timer, the receive budget, the backward direction, the
 * CM events.  0, or a negative errno with none of them left. */
static int listener_start(struct rpcrdma_listener *l)
{
	int err = rpcrdma__timer_open(&l->timer_src);

	if (err)
		return err;
	l->timer_src.handle = rpcrdma__devrm_handle;
	err = rpcrdma__poller_add(l->poller, &l->timer_src);
	if (err)
		goto out_timer;
	err = rpcrdma__idle_start(l); /* a failed start undoes itself */
	if (err)
		goto out_timer_del;
	err = rpcrdma__budget_start(l);
	if (err)
		goto out_idle;
	err = rpcrdma__bc_listener_start(l);
	if (err)
		goto out_budget;
	l->cm_src.fd = l->ech->fd;
	l->cm_src.handle = cm_handle;
	err = rpcrdma__poller_add(l->poller, &l->cm_src);
	if (err)
		goto out_bc;
	return 0;

	/* In the reverse order of the above. */
out_bc:
	rpcrdma__bc_listener_stop(l);
out_budget:
	rpcrdma__budget_stop(l);
	rpcrdma__budget_free(l);
out_idle:
	rpcrdma__idle_stop(l);
	if (l->idle_src.fd >= 0)
		close(l->idle_src.fd);
	l->idle_src.fd = -1;
out_timer_del:
	rpcrdma__poller_del(l->poller, &l->timer_src);
out_timer:
	close(l->timer_src.fd);
	l->timer_src.fd = -1;
	return err;
}

/* Opens l's event channel and listens on l->addr, whose port becomes the
 * bound one.  0, or a negative errno with neither left. */
static int listener_listen(struct rpcrdma_listener *l)
{
	int err;

	l->ech = rdma_create_event_channel();
	if (!l->ech)
		return -errno;
	fcntl(l->ech->fd, F_SETFL, fcntl(l->ech->fd, F_GETFL) | O_NONBLOCK);
	err = rpcrdma__listen_on(l);
	if (err)
		goto out_id;
	l->port = ntohs(rdma_get_src_port(l->id));
	/* Listening again on the bound port after a removal. */
	if (l->addr.ss_family == AF_INET)
		((struct sockaddr_in *)&l->addr)->sin_port = htons((uint16_t)l->port);
	else
		((struct sockaddr_in6 *)&l->addr)->sin6_port = htons((uint16_t)l->port);
	return 0;

out_id:
	if (l->id) /* listen_on may make it, then fail */
		rdma_destroy_id(l->id);
	l->id = NULL;
	rdma_destroy_event_channel(l->ech);
	l->ech = NULL;
	return err;
}

int rpcrdma__listener_create(struct rpcrdma_poller *poller, const struct sockaddr *addr,
			     const struct rpcrdma_listener_opts *uopts, rpcrdma_call_handler handler,
			     void *handler_arg, unsigned bc_recvs,
			     struct rpcrdma_poller *const *spread, unsigned nspread,
			     struct rpcrdma_listener **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	struct rpcrdma_listener_opts opts;
	struct rpcrdma_listener *l;
	int err;

	if (!poller || !addr || !handler || !out || nspread > RPCRDMA__SPREAD_MAX ||
	    (nspread && !spread) ||
	    (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return -EINVAL;
	for (unsigned i = 0; i < nspread; i++)
		if (!spread[i])
			return -EINVAL;
	err = rpcrdma__listener_opts_get(uopts, &opts);
	if (err)
		return err;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	err = rpcrdma_idr_create(NULL, &l->conn_ids);
	if (err)
		goto out_free;
	l->opts = opts;
	err = rpcrdma__pcap_open(opts.pcap_path, &l->pcap);
	if (err)
		goto out_idr;
	l->poller = poller;
	for (unsigned i = 0; i < nspread; i++)
		l->spread[i] = spread[i];
	l->nspread = nspread;
	l->handler = handler;
	l->handler_arg = handler_arg;
	l->bc_recvs = bc_recvs;
	l->bc_src.fd = -1;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->conns_cond, NULL);
	rpcrdma__list_init(&l->devs);
	rpcrdma__list_init(&l->conns);
	l->timer_src.fd = -1;
	l->idle_src.fd = -1;
	memcpy(&l->addr, addr, addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
							  : sizeof(struct sockaddr_in6));
	err = listener_listen(l);
	if (err)
		goto out_locks;
	err = listener_start(l);
	if (err)
		goto out_listen;
	*out = l;
	return 0;

	/* In the reverse order of the above. */
out_listen:
	if (l->id)
		rdma_destroy_id(l->id);
	rdma_destroy_event_channel(l->ech);
out_locks:
	pthread_cond_destroy(&l->conns_cond);
	pthread_mutex_destroy(&l->lock);
	rpcrdma__pcap_close(l->pcap);
out_idr:
	rpcrdma_idr_destroy(l->conn_ids);
out_free:
	free(l);
	return err;
}

int rpcrdma_listener_port(const struct rpcrdma_listener *l)
{
	return l ? l->port : -EINVAL;
}

void rpcrdma_listener_shutdown(struct rpcrdma_listener *l)
{
	bool first;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	first = !l->closing;
	l->closing = true;
	pthread_mutex_unlock(&l->lock);
	if (first) {
		rpcrdma__poller_del(l->poller, &l->cm_src);
		rpcrdma__poller_del(l->poller, &l->timer_src);
		rpcrdma__idle_stop(l);
		rpcrdma__budget_stop(l);
	}

	rpcrdma__listener_close_conns(l, NULL, "listener destroyed");
	/* Wait for the flushes (and the upper layer's call handles). */
	rpcrdma__batch_flush();         /* a batch's replies hold their connections */
	pthread_mutex_lock(&l->lock);
	while (l->nconns) {
		if (rpcrdma__listener_direct(l)) {
			pthread_mutex_unlock(&l->lock);
			rpcrdma__listener_poll(l);
			pthread_mutex_lock(&l->lock);
		} else {
			pthread_cond_wait(&l->conns_cond, &l->lock);
		}
	}
	pthread_mutex_unlock(&l->lock);
}

void rpcrdma_listener_destroy(struct rpcrdma_listener *l)
{
	if (!l)
		return;
	rpcrdma_listener_shutdown(l);
	rpcrdma__bc_listener_stop(l);  /* no connection left to post for */
	close(l->timer_src.fd);
	if (l->idle_src.fd >= 0)
		close(l->idle_src.fd);
	rpcrdma__budget_free(l);
	if (l->id)
		rdma_destroy_id(l->id);
	while (!rpcrdma__list_empty(&l->devs)) {
		struct rpcrdma__dev *dev =
			rpcrdma__container_of(rpcrdma__list_pop(&l->devs), struct rpcrdma__dev, node);

		rpcrdma__dev_destroy(dev, true, false);
	}
	rdma_destroy_event_channel(l->ech);
	rpcrdma_idr_destroy(l->conn_ids);
	rpcrdma__pcap_close(l->pcap);
	pthread_cond_destroy(&l->conns_cond);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void rpcrdma_listener_stats(const struct rpcrdma_listener *l, struct rpcrdma_stats *out)
{
	rpcrdma__counters_read(&l->stats, out);
}

unsigned rpcrdma__listener_spread_conns(struct rpcrdma_listener *l, unsigned i)
{
	unsigned n = 0;

	pthread_mutex_lock(&l->lock);
	if (i < l->nspread)
		n = l->spread_conns[i];
	pthread_mutex_unlock(&l->lock);
	return n;
}
