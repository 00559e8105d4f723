/* SPDX-License-Identifier: BSD-2-Clause */
/* The NFSv4.1 back channel; see callback.h. */
#include "callback.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "deleg.h"

#define CB_VERS 1u
#define CB_ARGS_MAX 512u
#define CB_RES_MAX 512u

enum { PATH_PROBING = 0, PATH_UP, PATH_DOWN };

struct pending {
	bool getattr, times;
	struct nfs4_stateid sid;
	uint32_t fhlen;
	uint8_t fh[NFS4_FHSIZE];
	struct pending *next;
};

struct chan {
	uint64_t clientid;
	uint8_t sessionid[16];
	struct rpcrdma_svc_conn *conn;
	uint32_t prog, minor, seq;
	uint64_t gen; /* bindings so far */
	bool have_cred, usable;
	struct rpcrdma_svc_cred cred;
	int path;
	bool busy; /* a CB_COMPOUND (or the probe) in flight */
	/* The CB_NULL in flight, on this binding or an earlier one: one at
	 * a time per client, whatever the BIND_CONN_TO_SESSION calls (a
	 * client whose probes go unanswered would else have the server
	 * hold one, and its buffers, per bind); reprobe: a bind came
	 * meanwhile, probe it when that one ends. */
	const struct cbcall *probe_k;
	bool reprobe;
	struct pending *queue, **tail;
	unsigned nqueue;
	struct chan *next;
};

struct tnfs_cb {
	pthread_mutex_t mu;
	struct chan *chans;
	struct tnfs_deleg *deleg;
	struct tnfs_cb_stats st;
};

struct cbcall {
	struct rpcrdma_clnt_req req;
	struct tnfs_cb *cb;
	uint64_t clientid;
	uint64_t gen; /* the channel's binding it was sent on */
	bool probe;
	struct tnfs_cb_recall_args a;
	uint32_t status;
	bool seq_ok;
	bool ga_ok; /* CB_GETATTR answered: ga */
	struct tnfs_deleg_cbattrs ga;
};

int tnfs_cb_new(struct tnfs_cb **out)
{
	struct tnfs_cb *cb = calloc(1, sizeof(*cb));
	if (!cb)
		return -ENOMEM;
	pthread_mutex_init(&cb->mu, NULL);
	*out = cb;
	return 0;
}

static void flush(struct chan *ch)
{
	while (ch->queue) {
		struct pending *p = ch->queue;
		ch->queue = p->next;
		free(p);
	}
	ch->tail = &ch->queue;
	ch->nqueue = 0;
}

static void free_chan(struct chan *ch)
{
	flush(ch);
	rpcrdma_svc_conn_put(ch->conn);
	free(ch);
}

void tnfs_cb_free(struct tnfs_cb *cb)
{
	if (!cb)
		return;
	while (cb->chans) {
		struct chan *ch = cb->chans;
		cb->chans = ch->next;
		free_chan(ch);
	}
	pthread_mutex_destroy(&cb->mu);
	free(cb);
}

void tnfs_cb_set_deleg(struct tnfs_cb *cb, struct tnfs_deleg *d)
{
	cb->deleg = d;
}

static struct chan *find_chan(struct tnfs_cb *cb, uint64_t clientid)
{
	for (struct chan *ch = cb->chans; ch; ch = ch->next)
		if (ch->clientid == clientid)
			return ch;
	return NULL;
}

static void set_sec(struct chan *ch, const struct nfs4_cb_sec *sec)
{
	memset(&ch->cred, 0, sizeof(ch->cred));
	ch->usable = sec->flavor == AUTH_NONE || sec->flavor == AUTH_SYS;
	ch->have_cred = sec->flavor == AUTH_SYS;
	if (!ch->have_cred)
		return;
	ch->cred.flavor = RPCRDMA_AUTH_SYS;
	ch->cred.stamp = sec->stamp;
	ch->cred.uid = sec->uid;
	ch->cred.gid = sec->gid;
	ch->cred.ngids = sec->ngids;
	memcpy(ch->cred.gids, sec->gids, sec->ngids * sizeof(sec->gids[0]));
	uint32_t n = sec->machine.len;
	if (n > RPCRDMA_AUTH_SYS_MAX_MACHINENAME)
		n = RPCRDMA_AUTH_SYS_MAX_MACHINENAME;
	memcpy(ch->cred.machinename, sec->machine.data, n);
	ch->cred.machinename[n] = 0;
}

static void send_next(struct tnfs_cb *cb, struct chan *ch);

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int tnfs_cb_enc_recall(struct rpcrdma_xdr_enc *e, const struct tnfs_cb_recall_args *a)
{
	uint8_t sid[16];
	put_u32(sid, a->sid.seqid);
	memcpy(sid + 4, a->sid.other, NFS4_OTHER_SIZE);
	int rc = 0;
	rc |= rpcrdma_xdr_put_opaque(e, NULL, 0);  /* tag */
	rc |= rpcrdma_xdr_put_u32(e, a->minor);
	rc |= rpcrdma_xdr_put_u32(e, 0);	    /* callback_ident */
	rc |= rpcrdma_xdr_put_u32(e, 2);	    /* operations */
	rc |= rpcrdma_xdr_put_u32(e, OP_CB_SEQUENCE);
	rc |= rpcrdma_xdr_put_fixed(e, a->sessionid, 16);
	rc |= rpcrdma_xdr_put_u32(e, a->seqid);
	rc |= rpcrdma_xdr_put_u32(e, 0);	    /* slot */
	rc |= rpcrdma_xdr_put_u32(e, 0);	    /* highest slot */
	rc |= rpcrdma_xdr_put_bool(e, 0);	    /* cachethis */
	rc |= rpcrdma_xdr_put_u32(e, 0);	    /* referring call lists */
	if (a->getattr) { /* the handle, a bitmap of change and size (and times) */
		rc |= rpcrdma_xdr_put_u32(e, OP_CB_GETATTR);
		rc |= rpcrdma_xdr_put_opaque(e, a->fh, a->fhlen);
		rc |= rpcrdma_xdr_put_u32(e, a->times ? 3 : 1);
		rc |= rpcrdma_xdr_put_u32(e, 1u << FATTR4_CHANGE | 1u << FATTR4_SIZE);
		if (a->times) {
			rc |= rpcrdma_xdr_put_u32(e, 0);
			rc |= rpcrdma_xdr_put_u32(e, 1u << (FATTR4_TIME_DELEG_ACCESS - 64) |
							     1u << (FATTR4_TIME_DELEG_MODIFY - 64));
		}
		return rc ? -EMSGSIZE : 0;
	}
	rc |= rpcrdma_xdr_put_u32(e, OP_CB_RECALL);
	rc |= rpcrdma_xdr_put_fixed(e, sid, 16);
	rc |= rpcrdma_xdr_put_bool(e, 0);	    /* truncate */
	rc |= rpcrdma_xdr_put_opaque(e, a->fh, a->fhlen);
	return rc ? -EMSGSIZE : 0;
}

int tnfs_cb_dec_recall_res(struct rpcrdma_xdr_dec *d, const struct tnfs_cb_recall_args *a,
			   uint32_t *status, bool *seq_ok)
{
	uint32_t n, op, st, tag;
	*seq_ok = false;
	if (rpcrdma_xdr_get_u32(d, status) || rpcrdma_xdr_get_u32(d, &tag) || tag > 1024 ||
	    rpcrdma_xdr_skip(d, (tag + 3) & ~3u) || rpcrdma_xdr_get_u32(d, &n))
		return -EBADMSG;
	if (n == 0)
		return 0;
	if (rpcrdma_xdr_get_u32(d, &op) || rpcrdma_xdr_get_u32(d, &st) || op != OP_CB_SEQUENCE)
		return -EBADMSG;
	if (st != NFS4_OK)
		return 0;
	uint8_t sid[16];
	uint32_t seq, w;
	if (rpcrdma_xdr_get_fixed(d, sid, 16) || rpcrdma_xdr_get_u32(d, &seq))
		return -EBADMSG;
	for (int i = 0; i < 3; i++)
		if (rpcrdma_xdr_get_u32(d, &w))
			return -EBADMSG;
	*seq_ok = memcmp(sid, a->sessionid, 16) == 0 && seq == a->seqid;
	return 0;
}

/* An nfstime4 into *t: 0, -EBADMSG (short), -ERANGE (nseconds). */
static int get_time(struct rpcrdma_xdr_dec *d, struct timespec *t)
{
	uint64_t sec;
	uint32_t nsec;
	if (rpcrdma_xdr_get_u64(d, &sec) || rpcrdma_xdr_get_u32(d, &nsec))
		return -EBADMSG;
	if (nsec >= 1000000000u)
		return -ERANGE;
	t->tv_sec = (time_t)(int64_t)sec;
	t->tv_nsec = (long)nsec;
	return 0;
}

int tnfs_cb_dec_getattr_res(struct rpcrdma_xdr_dec *d, bool *ok,
			    struct tnfs_deleg_cbattrs *out)
{
	uint32_t op, st, n, w[3] = { 0, 0, 0 }, extra = 0, v, len;
	*ok = false;
	memset(out, 0, sizeof(*out));
	if (rpcrdma_xdr_get_u32(d, &op) || rpcrdma_xdr_get_u32(d, &st) || op != OP_CB_GETATTR)
		return -EBADMSG;
	if (st != NFS4_OK)
		return 0;
	if (rpcrdma_xdr_get_u32(d, &n) || n > 8)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		if (rpcrdma_xdr_get_u32(d, &v))
			return -EBADMSG;
		if (i < 3)
			w[i] = v;
		else
			extra |= v;
	}
	/* attrlist4 in attribute order: change (3), size (4), then
	 * time_deleg_access (84) and time_deleg_modify (85) if both came;
	 * anything else (one time alone) cannot be read as an answer */
	uint32_t want = 1u << FATTR4_CHANGE | 1u << FATTR4_SIZE;
	uint32_t times = 1u << (FATTR4_TIME_DELEG_ACCESS - 64) | 1u << (FATTR4_TIME_DELEG_MODIFY - 64);
	if (w[0] != want || w[1] || (w[2] && w[2] != times) || extra)
		return 0;
	out->times = w[2] == times;
	if (rpcrdma_xdr_get_u32(d, &len) || len != (out->times ? 40u : 16u))
		return -EBADMSG;
	if (rpcrdma_xdr_get_u64(d, &out->change) || rpcrdma_xdr_get_u64(d, &out->size))
		return -EBADMSG;
	int rc = out->times ? get_time(d, &out->atime) : 0;
	if (rc == 0 && out->times)
		rc = get_time(d, &out->mtime);
	if (rc == -ERANGE)
		return 0; /* a bad time: no answer */
	if (rc)
		return rc;
	*ok = true;
	return 0;
}

static int enc_recall(struct rpcrdma_xdr_enc *e, const void *args)
{
	return tnfs_cb_enc_recall(e, args);
}

static int dec_recall(struct rpcrdma_xdr_dec *d, void *res)
{
	struct cbcall *k = res;
	int rc = tnfs_cb_dec_recall_res(d, &k->a, &k->status, &k->seq_ok);
	if (rc == 0 && k->a.getattr && k->status == NFS4_OK)
		rc = tnfs_cb_dec_getattr_res(d, &k->ga_ok, &k->ga);
	return rc;
}

static void probe(struct tnfs_cb *cb, struct chan *ch);

/* The reply of a callback (the service's loop thread). */
static void cb_done(struct rpcrdma_clnt_req *req, int status, void *arg)
{
	struct cbcall *k = arg;
	struct tnfs_cb *cb = k->cb;
	bool came_up = false;
	(void)req;
	pthread_mutex_lock(&cb->mu);
	struct chan *ch = find_chan(cb, k->clientid);
	bool current = ch && ch->gen == k->gen;
	bool reprobe = false;
	if (ch && ch->probe_k == k) {
		ch->probe_k = NULL;
		reprobe = !current && ch->reprobe && ch->path == PATH_PROBING;
		ch->reprobe = false;
	}
	if (reprobe)
		probe(cb, ch); /* the binding that came meanwhile */
	if (status != 0 || (!k->probe && k->status != NFS4_OK))
		cb->st.cb_errors++;
	if (k->probe && status == 0)
		cb->st.cb_null_ok++;
	if (current) {
		ch->busy = false;
		if (k->seq_ok)
			ch->seq++;
		/* a transport failure or a timeout: the path is down until
		 * the client binds a connection again; an NFS error of the
		 * client (a recall of a delegation it forgot, say) is not */
		if (status == -ETIMEDOUT || status == -ENOTCONN || status == -ECONNRESET ||
		    status == -ECANCELED)
			ch->path = PATH_DOWN;
		else if (k->probe) {
			came_up = status == 0;
			ch->path = came_up ? PATH_UP : PATH_DOWN;
		}
		if (came_up)
			flush(ch); /* deleg sends every recall in progress */
		else if (ch->path != PATH_DOWN)
			send_next(cb, ch);
	}
	uint64_t clientid = k->clientid;
	pthread_mutex_unlock(&cb->mu);
	if (k->a.getattr && !k->probe && cb->deleg)
		tnfs_deleg_cb_getattr_done(cb->deleg, clientid, &k->a.sid,
					   status == 0 && k->status == NFS4_OK && k->ga_ok ?
						   &k->ga : NULL);
	free(k);
	if (came_up && cb->deleg)
		tnfs_deleg_resend(cb->deleg, clientid);
}

static struct cbcall *new_call(struct tnfs_cb *cb, struct chan *ch, bool probe)
{
	struct cbcall *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->cb = cb;
	k->clientid = ch->clientid;
	k->probe = probe;
	k->req.size = sizeof(k->req);
	k->req.timeout_ms = TNFS_CB_TIMEOUT_MS;
	k->req.res_max = CB_RES_MAX;
	return k;
}

/* Sends the probe or the next recall if the slot is free (mutex held). */
static void start(struct tnfs_cb *cb, struct chan *ch, struct cbcall *k)
{
	ch->busy = true;
	k->gen = ch->gen;
	int rc = rpcrdma_svc_conn_call_async(ch->conn, ch->prog, CB_VERS,
					     ch->have_cred ? &ch->cred : NULL, &k->req, cb_done, k);
	if (rc == 0)
		return;
	cb->st.cb_errors++;
	ch->busy = false;
	if (ch->probe_k == k)
		ch->probe_k = NULL;
	if (rc != -EAGAIN)
		ch->path = PATH_DOWN;
	free(k);
}

static void send_next(struct tnfs_cb *cb, struct chan *ch)
{
	if (ch->busy || !ch->queue || !ch->usable || ch->path != PATH_UP)
		return;
	struct pending *p = ch->queue;
	struct cbcall *k = new_call(cb, ch, false);
	if (!k)
		return;
	ch->queue = p->next;
	if (!ch->queue)
		ch->tail = &ch->queue;
	ch->nqueue--;
	k->a.minor = ch->minor;
	memcpy(k->a.sessionid, ch->sessionid, 16);
	k->a.seqid = ch->seq;
	k->a.sid = p->sid;
	k->a.getattr = p->getattr;
	k->a.times = p->times;
	k->a.fhlen = p->fhlen;
	memcpy(k->a.fh, p->fh, p->fhlen);
	bool p_getattr = p->getattr;
	free(p);
	k->req.proc = CB_COMPOUND;
	k->req.encode = enc_recall;
	k->req.args = &k->a;
	k->req.args_max = CB_ARGS_MAX;
	k->req.decode = dec_recall;
	k->req.res = k;
	cb->st.cb_compound++;
	cb->st.cb_recall += !p_getattr;
	cb->st.cb_getattr += p_getattr;
	start(cb, ch, k);
}

static void probe(struct tnfs_cb *cb, struct chan *ch)
{
	ch->path = PATH_PROBING;
	if (!ch->usable) {
		ch->path = PATH_DOWN;
		return;
	}
	if (ch->busy)
		return; /* the call in flight decides */
	if (ch->probe_k) { /* an earlier binding's: this one's comes after */
		ch->reprobe = true;
		return;
	}
	struct cbcall *k = new_call(cb, ch, true);
	if (!k) {
		ch->path = PATH_DOWN;
		return;
	}
	ch->probe_k = k;
	k->req.proc = CB_NULL;
	cb->st.cb_null++;
	start(cb, ch, k);
}

bool tnfs_cb_bind(struct tnfs_cb *cb, uint64_t clientid, const uint8_t sid[16],
		  const struct rpcrdma_svc_call *call, uint32_t minor, bool back_new,
		  const uint32_t *prog, const struct nfs4_cb_sec *sec)
{
	struct rpcrdma_svc_conn *conn = NULL;
	if (!call || rpcrdma_svc_call_conn(call, &conn) != 0)
		return false;
	pthread_mutex_lock(&cb->mu);
	struct chan *ch = find_chan(cb, clientid);
	if (!ch) {
		ch = calloc(1, sizeof(*ch));
		if (!ch) {
			pthread_mutex_unlock(&cb->mu);
			rpcrdma_svc_conn_put(conn);
			return false;
		}
		ch->clientid = clientid;
		ch->tail = &ch->queue;
		ch->next = cb->chans;
		cb->chans = ch;
	}
	if (back_new || memcmp(ch->sessionid, sid, 16) != 0) {
		memcpy(ch->sessionid, sid, 16);
		ch->seq = 1;
	}
	if (prog) {
		ch->prog = *prog;
		set_sec(ch, sec);
	}
	ch->minor = minor;
	rpcrdma_svc_conn_put(ch->conn);
	ch->conn = conn;
	ch->gen++;
	ch->busy = false; /* a call on the old binding ends as not current */
	flush(ch);	  /* deleg sends them again once the probe is answered */
	probe(cb, ch);
	pthread_mutex_unlock(&cb->mu);
	return true;
}

uint32_t tnfs_cb_ctl(struct tnfs_cb *cb, uint64_t clientid, const uint8_t sid[16],
		     uint32_t prog, const struct nfs4_cb_sec *sec)
{
	uint32_t s = NFS4ERR_INVAL;
	pthread_mutex_lock(&cb->mu);
	struct chan *ch = find_chan(cb, clientid);
	if (ch && memcmp(ch->sessionid, sid, 16) == 0) {
		s = NFS4_OK;
		if (sec->flavor != AUTH_NONE && sec->flavor != AUTH_SYS)
			s = NFS4ERR_ENCR_ALG_UNSUPP;
		else {
			ch->prog = prog;
			set_sec(ch, sec);
		}
	}
	pthread_mutex_unlock(&cb->mu);
	return s;
}

static void unlink_chan(struct tnfs_cb *cb, struct chan *ch)
{
	for (struct chan **pp = &cb->chans; *pp; pp = &(*pp)->next)
		if (*pp == ch) {
			*pp = ch->next;
			break;
		}
	free_chan(ch);
}

void tnfs_cb_session_gone(struct tnfs_cb *cb, const uint8_t sid[16])
{
	pthread_mutex_lock(&cb->mu);
	for (struct chan *ch = cb->chans; ch; ch = ch->next)
		if (memcmp(ch->sessionid, sid, 16) == 0) {
			unlink_chan(cb, ch);
			break;
		}
	pthread_mutex_unlock(&cb->mu);
}

void tnfs_cb_forget(struct tnfs_cb *cb, uint64_t clientid)
{
	pthread_mutex_lock(&cb->mu);
	struct chan *ch = find_chan(cb, clientid);
	if (ch)
		unlink_chan(cb, ch);
	pthread_mutex_unlock(&cb->mu);
}

static bool up(const struct chan *ch)
{
	return ch->path == PATH_UP && rpcrdma_svc_conn_connected(ch->conn);
}

bool tnfs_cb_path_up(struct tnfs_cb *cb, uint64_t clientid)
{
	pthread_mutex_lock(&cb->mu);
	struct chan *ch = find_chan(cb, clientid);
	bool r = ch && up(ch);
	pthread_mutex_unlock(&cb->mu);
	return r;
}

uint32_t tnfs_cb_seq_flags(struct tnfs_cb *cb, uint64_t clientid, const uint8_t sid[16])
{
	uint32_t f = 0;
	pthread_mutex_lock(&cb->mu);
	struct chan *ch = find_chan(cb, clientid);
	/* still probing is not down; a closed connection or a failed call is */
	if (ch && ch->path != PATH_PROBING && !up(ch)) {
		f = SEQ4_STATUS_CB_PATH_DOWN;
		if (memcmp(ch->sessionid, sid, 16) == 0)
			f |= SEQ4_STATUS_CB_PATH_DOWN_SESSION;
	}
	pthread_mutex_unlock(&cb->mu);
	return f;
}

static void queue(struct tnfs_cb *cb, uint64_t clientid, const struct nfs4_stateid *sid,
		  const uint8_t *fh, uint32_t fhlen, bool getattr, bool times);

void tnfs_cb_recall(struct tnfs_cb *cb, uint64_t clientid, const struct nfs4_stateid *sid,
		    const uint8_t *fh, uint32_t fhlen)
{
	queue(cb, clientid, sid, fh, fhlen, false, false);
}

void tnfs_cb_getattr(struct tnfs_cb *cb, uint64_t clientid, const struct nfs4_stateid *sid,
		     const uint8_t *fh, uint32_t fhlen, bool times)
{
	queue(cb, clientid, sid, fh, fhlen, true, times);
}

static void queue(struct tnfs_cb *cb, uint64_t clientid, const struct nfs4_stateid *sid,
		  const uint8_t *fh, uint32_t fhlen, bool getattr, bool times)
{
	pthread_mutex_lock(&cb->mu);
	struct chan *ch = find_chan(cb, clientid);
	struct pending *p = NULL;
	if (ch && ch->nqueue < TNFS_CB_QUEUE && fhlen <= NFS4_FHSIZE)
		p = calloc(1, sizeof(*p));
	if (p) {
		p->getattr = getattr;
		p->times = times;
		p->sid = *sid;
		p->fhlen = fhlen;
		memcpy(p->fh, fh, fhlen);
		*ch->tail = p;
		ch->tail = &p->next;
		ch->nqueue++;
		send_next(cb, ch);
	}
	pthread_mutex_unlock(&cb->mu);
}

void tnfs_cb_stats(struct tnfs_cb *cb, struct tnfs_cb_stats *out)
{
	pthread_mutex_lock(&cb->mu);
	*out = cb->st;
	pthread_mutex_unlock(&cb->mu);
}
