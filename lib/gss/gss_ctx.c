/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server's RPCSEC_GSS contexts: a table bounded per client address and
 * in all, handles of unpredictable random bytes, lifetimes, the acceptor
 * credentials from a keytab (gss_acquire_cred_from, no process-wide
 * state), and the mapping of a principal to local ids.
 */
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>

#include "gss/gss_int.h"
#include "util/byteorder.h"

#define DEFAULT_MAX_CONTEXTS 1024u
#define DEFAULT_PER_CLIENT 16u
#define DEFAULT_LIFETIME_S (8u * 3600u)
#define DEFAULT_WINDOW 128u
#define NOBODY 65534u

uint64_t rpcrdma__gss_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* ------------------------------------------------------------ the table */

static struct rpcrdma__gss_ctx **bucket_of(struct rpcrdma__gss_svc *gs, const uint8_t *h)
{
	return &gs->bucket[h[0] % RPCRDMA__GSS_BUCKETS];
}

static void ctx_free(struct rpcrdma__gss_ctx *ctx)
{
	OM_uint32 min;
	if (ctx->gctx != GSS_C_NO_CONTEXT)
		gss_delete_sec_context(&min, &ctx->gctx, GSS_C_NO_BUFFER);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx->principal);
	free(ctx);
}

/* gs->lock held; returns whether the last reference went (free it after
 * unlocking). */
static bool unlink_locked(struct rpcrdma__gss_ctx *ctx)
{
	struct rpcrdma__gss_svc *gs = ctx->gs;
	if (!ctx->in_table)
		return false;
	for (struct rpcrdma__gss_ctx **pp = bucket_of(gs, ctx->handle); *pp; pp = &(*pp)->next)
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	ctx->in_table = false;
	gs->nctx--;
	return --ctx->refs == 0;
}

void rpcrdma__gss_ctx_unlink(struct rpcrdma__gss_ctx *ctx)
{
	pthread_mutex_lock(&ctx->gs->lock);
	bool last = unlink_locked(ctx);
	pthread_mutex_unlock(&ctx->gs->lock);
	if (last)
		ctx_free(ctx);
}

void rpcrdma__gss_ctx_put(struct rpcrdma__gss_ctx *ctx)
{
	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->gs->lock);
	bool last = --ctx->refs == 0;
	pthread_mutex_unlock(&ctx->gs->lock);
	if (last)
		ctx_free(ctx);
}

static bool same_client(const struct rpcrdma__gss_ctx *ctx, const struct sockaddr_storage *a,
			socklen_t len)
{
	return ctx->addr_len == len && memcmp(&ctx->addr, a, len) == 0;
}

/*
 * gs->lock held: makes room for a new context of client a.  Drops expired
 * contexts, then at the client's cap its least recently used context, at
 * the global cap the least recently used unfinished one (else of all).
 * Contexts whose last reference went are chained on *dead.
 */
static void make_room(struct rpcrdma__gss_svc *gs, const struct sockaddr_storage *a,
		      socklen_t alen, struct rpcrdma__gss_ctx **dead)
{
	struct rpcrdma__gss_ctx *mine = NULL, *unfinished = NULL, *any = NULL;
	unsigned nmine = 0;
	uint64_t now = rpcrdma__gss_now();

	for (unsigned b = 0; b < RPCRDMA__GSS_BUCKETS; b++) {
		struct rpcrdma__gss_ctx *c = gs->bucket[b], *next;
		for (; c; c = next) {
			next = c->next;
			if (now >= c->expiry) {
				gs->n_expired++;
				if (unlink_locked(c)) {
					c->next = *dead;
					*dead = c;
				}
				continue;
			}
			if (same_client(c, a, alen)) {
				nmine++;
				if (!mine || c->used < mine->used)
					mine = c;
			}
			if (!c->complete && (!unfinished || c->used < unfinished->used))
				unfinished = c;
			if (!any || c->used < any->used)
				any = c;
		}
	}
	struct rpcrdma__gss_ctx *victim = NULL;
	if (nmine >= gs->opts.max_contexts_per_client)
		victim = mine;
	else if (gs->nctx >= gs->opts.max_contexts)
		victim = unfinished ? unfinished : any;
	if (victim)
		gs->n_evicted++;
	if (victim && unlink_locked(victim)) {
		victim->next = *dead;
		*dead = victim;
	}
}

static void client_addr(const struct sockaddr *peer, socklen_t len, struct sockaddr_storage *a,
			socklen_t *alen)
{
	memset(a, 0, sizeof(*a));
	*alen = 0;
	if (peer && len >= sizeof(struct sockaddr_in) && peer->sa_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)a;
		in->sin_family = AF_INET;
		in->sin_addr = ((const struct sockaddr_in *)peer)->sin_addr;
		*alen = sizeof(*in);
	} else if (peer && len >= sizeof(struct sockaddr_in6) && peer->sa_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)a;
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = ((const struct sockaddr_in6 *)peer)->sin6_addr;
		*alen = sizeof(*in6);
	}
}

struct rpcrdma__gss_ctx *rpcrdma__gss_ctx_new(struct rpcrdma__gss_svc *gs,
					      const struct sockaddr *peer, socklen_t peer_len)
{
	struct rpcrdma__gss_ctx *ctx = calloc(1, sizeof(*ctx)), *dead = NULL;
	if (!ctx)
		return NULL;
	if (getrandom(ctx->handle, sizeof(ctx->handle), 0) != (ssize_t)sizeof(ctx->handle)) {
		free(ctx);
		return NULL;
	}
	pthread_mutex_init(&ctx->lock, NULL);
	ctx->gs = gs;
	ctx->gctx = GSS_C_NO_CONTEXT;
	client_addr(peer, peer_len, &ctx->addr, &ctx->addr_len);
	ctx->refs = 2; /* the table's and the caller's */
	ctx->in_table = true;

	pthread_mutex_lock(&gs->lock);
	make_room(gs, &ctx->addr, ctx->addr_len, &dead);
	ctx->used = ++gs->tick;
	ctx->expiry = rpcrdma__gss_now() + RPCRDMA__GSS_INIT_TIMEOUT_S;
	struct rpcrdma__gss_ctx **b = bucket_of(gs, ctx->handle);
	ctx->next = *b;
	*b = ctx;
	gs->nctx++;
	pthread_mutex_unlock(&gs->lock);
	while (dead) {
		struct rpcrdma__gss_ctx *d = dead;
		dead = d->next;
		ctx_free(d);
	}
	return ctx;
}

struct rpcrdma__gss_ctx *rpcrdma__gss_ctx_find(struct rpcrdma__gss_svc *gs,
					       const uint8_t *handle, uint32_t len, bool complete)
{
	struct rpcrdma__gss_ctx *c, *c_expired = NULL;
	bool last = false;

	if (len != RPCRDMA__GSS_HANDLE_LEN)
		return NULL;
	uint64_t now = rpcrdma__gss_now();
	pthread_mutex_lock(&gs->lock);
	for (c = *bucket_of(gs, handle); c; c = c->next)
		if (memcmp(c->handle, handle, RPCRDMA__GSS_HANDLE_LEN) == 0)
			break;
	if (c && now >= c->expiry) {
		gs->n_expired++;
		last = unlink_locked(c);
		c_expired = c;
		c = NULL;
	} else if (c && c->complete != complete) {
		c = NULL;
	} else if (c) {
		c->refs++;
		c->used = ++gs->tick;
	}
	pthread_mutex_unlock(&gs->lock);
	if (last)
		ctx_free(c_expired);
	return c;
}

void rpcrdma__gss_ctx_complete(struct rpcrdma__gss_ctx *ctx, uint32_t time_rec)
{
	struct rpcrdma__gss_svc *gs = ctx->gs;
	uint64_t life = gs->opts.max_lifetime_s;
	if (time_rec != GSS_C_INDEFINITE && time_rec < life)
		life = time_rec;
	pthread_mutex_lock(&gs->lock);
	ctx->expiry = rpcrdma__gss_now() + life;
	ctx->complete = true;
	gs->n_created++;
	pthread_mutex_unlock(&gs->lock);
}

/* ------------------------------------------------------------- mapping */

/* The default: the name service, as rpc.svcgssd and gssproxy do. */
static int map_default(const char *localname, struct rpcrdma_svc_cred *cred)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	cred->uid = NOBODY;
	cred->gid = NOBODY;
	cred->ngids = 0;
	if (!localname || getpwnam_r(localname, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return 0;
	cred->uid = pw.pw_uid;
	cred->gid = pw.pw_gid;
	gid_t groups[RPCRDMA_AUTH_SYS_MAX_GIDS];
	int n = RPCRDMA_AUTH_SYS_MAX_GIDS;
	/* -1 when there are more: the first n are filled all the same */
	if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		n = RPCRDMA_AUTH_SYS_MAX_GIDS;
	for (int i = 0; i < n && i < (int)RPCRDMA_AUTH_SYS_MAX_GIDS; i++)
		cred->gids[i] = groups[i];
	cred->ngids = (uint32_t)(n < 0 ? 0 : n);
	return 0;
}

static char *buffer_str(const gss_buffer_desc *b)
{
	char *s = malloc(b->length + 1);
	if (s) {
		memcpy(s, b->value, b->length);
		s[b->length] = '\0';
		if (strlen(s) != b->length) { /* a NUL inside: not a name */
			free(s);
			s = NULL;
		}
	}
	return s;
}

int rpcrdma__gss_ctx_map(struct rpcrdma__gss_ctx *ctx, gss_name_t src, gss_OID mech)
{
	const struct rpcrdma_svc_gss_opts *o = &ctx->gs->opts;
	gss_buffer_desc disp = GSS_C_EMPTY_BUFFER, local = GSS_C_EMPTY_BUFFER;
	OM_uint32 maj, min;
	char *localname = NULL;
	int rc = -EACCES;

	maj = gss_display_name(&min, src, &disp, NULL);
	if (GSS_ERROR(maj))
		goto out;
	ctx->principal = buffer_str(&disp);
	if (!ctx->principal)
		goto out;
	maj = gss_localname(&min, src, mech, &local);
	if (!GSS_ERROR(maj))
		localname = buffer_str(&local);
	memset(&ctx->cred, 0, sizeof(ctx->cred));
	rc = o->map_fn ? o->map_fn(o->map_arg, ctx->principal, localname, &ctx->cred)
		       : map_default(localname, &ctx->cred);
	if (rc > 0 || ctx->cred.ngids > RPCRDMA_AUTH_SYS_MAX_GIDS)
		rc = -EINVAL;
	ctx->cred.flavor = RPCRDMA__AUTH_GSS;
	ctx->cred.stamp = 0;
	ctx->cred.machinename[0] = '\0';
out:
	gss_release_buffer(&min, &disp);
	gss_release_buffer(&min, &local);
	free(localname);
	return rc;
}

/* ------------------------------------------------------ the public API */

static int acquire(const char *keytab, gss_cred_id_t *cred)
{
	gss_key_value_element_desc el = {.key = "keytab", .value = keytab};
	gss_key_value_set_desc store = {.count = 1, .elements = &el};
	gss_OID_set_desc mechs = {.count = 1, .elements = (gss_OID)gss_mech_krb5};
	OM_uint32 maj, min;

	maj = gss_acquire_cred_from(&min, GSS_C_NO_NAME, GSS_C_INDEFINITE, &mechs,
				    GSS_C_ACCEPT, keytab ? &store : GSS_C_NO_CRED_STORE,
				    cred, NULL, NULL);
	return GSS_ERROR(maj) ? -ENOKEY : 0;
}

int rpcrdma__gss_svc_opts(const struct rpcrdma_svc_gss_opts *opts,
			  struct rpcrdma_svc_gss_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	if (opts) {
		if (opts->size < sizeof(opts->size))
			return -EINVAL;
		memcpy(o, opts, opts->size < sizeof(*o) ? opts->size : sizeof(*o));
		o->size = sizeof(*o);
	}
	if (o->window > RPCRDMA__GSS_WINDOW_MAX)
		return -EINVAL;
	o->max_contexts = o->max_contexts ? o->max_contexts : DEFAULT_MAX_CONTEXTS;
	o->max_contexts_per_client = o->max_contexts_per_client ? o->max_contexts_per_client
								: DEFAULT_PER_CLIENT;
	o->max_lifetime_s = o->max_lifetime_s ? o->max_lifetime_s : DEFAULT_LIFETIME_S;
	o->window = o->window ? o->window : DEFAULT_WINDOW;
	return 0;
}

int rpcrdma__gss_svc_new(const struct rpcrdma_svc_gss_opts *o, struct rpcrdma__gss_svc **out)
{
	int rc;

	*out = NULL;
	struct rpcrdma__gss_svc *gs = calloc(1, sizeof(*gs));
	if (!gs)
		return -ENOMEM;
	gs->opts = *o;
	gs->opts.keytab = NULL; /* borrowed only here */
	rc = acquire(o->keytab, &gs->acceptor);
	if (rc) {
		free(gs);
		return rc;
	}
	pthread_mutex_init(&gs->lock, NULL);
	*out = gs;
	return 0;
}

void rpcrdma__gss_svc_free(struct rpcrdma__gss_svc *gs)
{
	OM_uint32 min;

	if (!gs)
		return;
	for (unsigned b = 0; b < RPCRDMA__GSS_BUCKETS; b++)
		while (gs->bucket[b]) {
			struct rpcrdma__gss_ctx *c = gs->bucket[b];
			if (unlink_locked(c)) /* no call is left: the service is gone */
				ctx_free(c);
		}
	gss_release_cred(&min, &gs->acceptor);
	pthread_mutex_destroy(&gs->lock);
	free(gs);
}
