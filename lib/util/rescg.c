/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller: controller, groups, per-device pools and the
 * charge/uncharge accounting.  Formats live in rescg_format.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rescg_internal.h"

static const char *const res_names[RPCRDMA_RES_COUNT] = {
	[RPCRDMA_RES_HCA_HANDLE] = "hca_handle",
	[RPCRDMA_RES_HCA_OBJECT] = "hca_object",
};

const char *rpcrdma_rescg_resource_name(enum rpcrdma_rescg_resource res)
{
	if ((unsigned)res >= RPCRDMA_RES_COUNT)
		return NULL;
	return res_names[res];
}

static bool res_ok(enum rpcrdma_rescg_resource res)
{
	return (unsigned)res < RPCRDMA_RES_COUNT;
}

bool rpcrdma__rescg_name_ok(const char *s, size_t len)
{
	if (len == 0 || len > RPCRDMA_RESCG_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == ':' || c == '-'))
			return false;
	}
	return true;
}

/* Validates a NUL-terminated name without reading past its first bad byte. */
static bool cname_ok(const char *name, size_t *lenp)
{
	if (!name)
		return false;
	size_t len = strnlen(name, RPCRDMA_RESCG_NAME_MAX + 1);
	if (!rpcrdma__rescg_name_ok(name, len))
		return false;
	if (lenp)
		*lenp = len;
	return true;
}

int rpcrdma_rescg_create(struct rpcrdma_rescg **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	if (!out)
		return -EINVAL;
	struct rpcrdma_rescg *ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	int rc = pthread_mutex_init(&ctl->lock, NULL);
	if (rc) {
		free(ctl);
		return -rc;
	}
	*out = ctl;
	return 0;
}

static void ctl_free(struct rpcrdma_rescg *ctl)
{
	for (uint32_t i = 0; i < ctl->ndevs; i++)
		free(ctl->devs[i]);
	free(ctl->devs);
	pthread_mutex_destroy(&ctl->lock);
	free(ctl);
}

static void group_unlink_locked(struct rpcrdma_rescg_group *grp)
{
	struct rpcrdma_rescg *ctl = grp->ctl;
	if (grp->prev)
		grp->prev->next = grp->next;
	else
		ctl->head = grp->next;
	if (grp->next)
		grp->next->prev = grp->prev;
	else
		ctl->tail = grp->prev;
	grp->prev = grp->next = NULL;
	grp->removed = true;
}

static void group_free(struct rpcrdma_rescg_group *grp)
{
	free(grp->pools);
	free(grp);
}

void rpcrdma__rescg_unlock(struct rpcrdma_rescg *ctl, struct rpcrdma_rescg_group *grp)
{
	if (grp && grp->removed && grp->usage_total == 0) {
		group_free(grp);
		ctl->ngroups--;
	}
	bool dead = ctl->destroyed && ctl->ngroups == 0;
	pthread_mutex_unlock(&ctl->lock);
	/* Nobody may hold a pointer to a destroyed controller but the owners of
	 * charges, and the last of those just went. */
	if (dead)
		ctl_free(ctl);
}

void rpcrdma_rescg_destroy(struct rpcrdma_rescg *ctl)
{
	if (!ctl)
		return;
	pthread_mutex_lock(&ctl->lock);
	ctl->destroyed = true;
	struct rpcrdma_rescg_group *grp = ctl->head;
	while (grp) {
		struct rpcrdma_rescg_group *next = grp->next;
		group_unlink_locked(grp);
		if (grp->usage_total == 0) {
			group_free(grp);
			ctl->ngroups--;
		}
		grp = next;
	}
	rpcrdma__rescg_unlock(ctl, NULL);
}

int64_t rpcrdma__rescg_dev_find_locked(const struct rpcrdma_rescg *ctl, const char *s, size_t len)
{
	for (uint32_t i = 0; i < ctl->ndevs; i++)
		if (strncmp(ctl->devs[i], s, len) == 0 && ctl->devs[i][len] == '\0')
			return i;
	return -1;
}

static int dev_reserve_locked(struct rpcrdma_rescg *ctl, size_t extra)
{
	if (extra > UINT32_MAX - ctl->ndevs)
		return -ENOMEM;
	size_t need = (size_t)ctl->ndevs + extra;
	if (need <= ctl->devcap)
		return 0;
	size_t cap = ctl->devcap ? ctl->devcap : 4;
	while (cap < need)
		cap *= 2;
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	char **devs = realloc(ctl->devs, cap * sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	ctl->devs = devs;
	ctl->devcap = (uint32_t)cap;
	return 0;
}

int64_t rpcrdma__rescg_dev_get_locked(struct rpcrdma_rescg *ctl, const char *name)
{
	size_t len;
	if (!cname_ok(name, &len))
		return -EINVAL;
	int64_t idx = rpcrdma__rescg_dev_find_locked(ctl, name, len);
	if (idx >= 0)
		return idx;
	if (dev_reserve_locked(ctl, 1))
		return -ENOMEM;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	ctl->devs[ctl->ndevs] = copy;
	return ctl->ndevs++;
}

int rpcrdma_rescg_device_add(struct rpcrdma_rescg *ctl, const char *name)
{
	if (!ctl)
		return -EINVAL;
	pthread_mutex_lock(&ctl->lock);
	int64_t idx = rpcrdma__rescg_dev_get_locked(ctl, name);
	pthread_mutex_unlock(&ctl->lock);
	return idx < 0 ? (int)idx : 0;
}

/* Makes grp->pools cover device indexes below n; new pools are unlimited. */
static int pools_reserve_locked(struct rpcrdma_rescg_group *grp, size_t n)
{
	if (n <= grp->npools)
		return 0;
	struct rpcrdma__rescg_pool *p = realloc(grp->pools, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = grp->npools; i < n; i++) {
		for (int r = 0; r < RPCRDMA_RES_COUNT; r++) {
			p[i].max[r] = RPCRDMA_RESCG_MAX;
			p[i].usage[r] = 0;
		}
	}
	grp->pools = p;
	grp->npools = (uint32_t)n;
	return 0;
}

static struct rpcrdma_rescg_group *group_find_locked(struct rpcrdma_rescg *ctl, const char *s,
						      size_t len)
{
	for (struct rpcrdma_rescg_group *g = ctl->head; g; g = g->next)
		if (strncmp(g->name, s, len) == 0 && g->name[len] == '\0')
			return g;
	return NULL;
}

static struct rpcrdma_rescg_group *group_alloc(struct rpcrdma_rescg *ctl, const char *name,
					       size_t len)
{
	struct rpcrdma_rescg_group *grp = calloc(1, sizeof(*grp));
	if (!grp)
		return NULL;
	grp->ctl = ctl;
	memcpy(grp->name, name, len);
	grp->name[len] = '\0';
	return grp;
}

static void group_link_locked(struct rpcrdma_rescg_group *grp)
{
	struct rpcrdma_rescg *ctl = grp->ctl;
	grp->prev = ctl->tail;
	grp->next = NULL;
	if (ctl->tail)
		ctl->tail->next = grp;
	else
		ctl->head = grp;
	ctl->tail = grp;
	ctl->ngroups++;
}

int rpcrdma_rescg_group_create(struct rpcrdma_rescg *ctl, const char *name,
			       struct rpcrdma_rescg_group **out)
{
	if (out)
		*out = NULL; /* api.h: a failed create leaves *out NULL */
	size_t len;
	if (!ctl || !cname_ok(name, &len))
		return -EINVAL;
	struct rpcrdma_rescg_group *grp = group_alloc(ctl, name, len);
	if (!grp)
		return -ENOMEM;
	pthread_mutex_lock(&ctl->lock);
	if (group_find_locked(ctl, name, len)) {
		pthread_mutex_unlock(&ctl->lock);
		free(grp);
		return -EEXIST;
	}
	group_link_locked(grp);
	pthread_mutex_unlock(&ctl->lock);
	if (out)
		*out = grp;
	return 0;
}

void rpcrdma_rescg_group_destroy(struct rpcrdma_rescg_group *grp)
{
	if (!grp)
		return;
	struct rpcrdma_rescg *ctl = grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	if (!grp->removed)
		group_unlink_locked(grp);
	rpcrdma__rescg_unlock(ctl, grp);
}

struct rpcrdma_rescg_group *rpcrdma_rescg_group_find(struct rpcrdma_rescg *ctl, const char *name)
{
	size_t len;
	if (!ctl || !cname_ok(name, &len))
		return NULL;
	pthread_mutex_lock(&ctl->lock);
	struct rpcrdma_rescg_group *grp = group_find_locked(ctl, name, len);
	pthread_mutex_unlock(&ctl->lock);
	return grp;
}

struct rpcrdma_rescg_group *rpcrdma_rescg_group_next(struct rpcrdma_rescg *ctl,
						     struct rpcrdma_rescg_group *prev)
{
	if (!ctl)
		return NULL;
	pthread_mutex_lock(&ctl->lock);
	struct rpcrdma_rescg_group *grp = prev ? prev->next : ctl->head;
	pthread_mutex_unlock(&ctl->lock);
	return grp;
}

const char *rpcrdma_rescg_group_name(const struct rpcrdma_rescg_group *grp)
{
	return grp ? grp->name : NULL;
}

int rpcrdma_rescg_group_set_limit(struct rpcrdma_rescg_group *grp, const char *device,
				  enum rpcrdma_rescg_resource res, uint32_t limit)
{
	if (!grp || !res_ok(res) || limit > RPCRDMA_RESCG_MAX)
		return -EINVAL;
	struct rpcrdma_rescg *ctl = grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	int64_t idx = rpcrdma__rescg_dev_get_locked(ctl, device);
	int rc = idx < 0 ? (int)idx : pools_reserve_locked(grp, (size_t)idx + 1);
	if (rc == 0)
		grp->pools[idx].max[res] = limit;
	pthread_mutex_unlock(&ctl->lock);
	return rc;
}

int rpcrdma_rescg_group_get(struct rpcrdma_rescg_group *grp, const char *device,
			    enum rpcrdma_rescg_resource res, uint32_t *limit, uint32_t *usage)
{
	size_t len;
	if (!grp || !res_ok(res) || !cname_ok(device, &len))
		return -EINVAL;
	struct rpcrdma_rescg *ctl = grp->ctl;
	uint32_t l = RPCRDMA_RESCG_MAX, u = 0;
	pthread_mutex_lock(&ctl->lock);
	int64_t idx = rpcrdma__rescg_dev_find_locked(ctl, device, len);
	if (idx >= 0 && idx < grp->npools) {
		l = grp->pools[idx].max[res];
		u = grp->pools[idx].usage[res];
	}
	pthread_mutex_unlock(&ctl->lock);
	if (limit)
		*limit = l;
	if (usage)
		*usage = u;
	return 0;
}

int rpcrdma__rescg_charge_locked(struct rpcrdma_rescg_group *grp, uint32_t dev,
				 enum rpcrdma_rescg_resource res, uint32_t n)
{
	if (grp->removed)
		return -ENOENT;
	if (n == 0 || !res_ok(res) || dev >= grp->ctl->ndevs)
		return -EINVAL;
	/* Check the limit before growing the pools: a pool not yet allocated
	 * is unlimited and unused. */
	uint32_t max = RPCRDMA_RESCG_MAX, usage = 0;
	if (dev < grp->npools) {
		max = grp->pools[dev].max[res];
		usage = grp->pools[dev].usage[res];
	}
	/* usage < RPCRDMA_RESCG_MAX always, so this cannot wrap. */
	if (n > RPCRDMA_RESCG_MAX - 1 - usage || usage + n > max)
		return -EAGAIN;
	if (pools_reserve_locked(grp, (size_t)dev + 1))
		return -ENOMEM;
	grp->pools[dev].usage[res] = usage + n;
	grp->usage_total += n;
	return 0;
}

int rpcrdma__rescg_uncharge_locked(struct rpcrdma_rescg_group *grp, uint32_t dev,
				   enum rpcrdma_rescg_resource res, uint32_t n)
{
	if (n == 0 || !res_ok(res) || dev >= grp->npools || grp->pools[dev].usage[res] < n)
		return -EINVAL;
	grp->pools[dev].usage[res] -= n;
	grp->usage_total -= n;
	return 0;
}

/*
 * Charges n of res on device (learnt if new) to grp; the device's index in
 * *idx.  -ENOENT for a removed group, else rpcrdma__rescg_charge_locked()'s
 * result.  Takes the lock.
 */
static int charge_device(struct rpcrdma_rescg_group *grp, const char *device,
			 enum rpcrdma_rescg_resource res, uint32_t n, uint32_t *idx)
{
	struct rpcrdma_rescg *ctl = grp->ctl;
	int rc;

	pthread_mutex_lock(&ctl->lock);
	int64_t i = grp->removed ? -ENOENT : rpcrdma__rescg_dev_get_locked(ctl, device);
	if (i < 0) {
		rc = (int)i;
	} else {
		*idx = (uint32_t)i;
		rc = rpcrdma__rescg_charge_locked(grp, *idx, res, n);
	}
	pthread_mutex_unlock(&ctl->lock);
	return rc;
}

int rpcrdma_rescg_group_charge(struct rpcrdma_rescg_group *grp, const char *device,
			       enum rpcrdma_rescg_resource res, uint32_t n)
{
	uint32_t idx;

	if (!grp || n == 0 || !res_ok(res))
		return -EINVAL;
	return charge_device(grp, device, res, n, &idx);
}

int rpcrdma_rescg_group_uncharge(struct rpcrdma_rescg_group *grp, const char *device,
				 enum rpcrdma_rescg_resource res, uint32_t n)
{
	size_t len;
	if (!grp || n == 0 || !res_ok(res) || !cname_ok(device, &len))
		return -EINVAL;
	struct rpcrdma_rescg *ctl = grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	int64_t idx = rpcrdma__rescg_dev_find_locked(ctl, device, len);
	int rc = idx < 0 ? -EINVAL : rpcrdma__rescg_uncharge_locked(grp, (uint32_t)idx, res, n);
	rpcrdma__rescg_unlock(ctl, grp);
	return rc;
}

int rpcrdma_rescg_charge(struct rpcrdma_rescg_group *grp, const char *device,
			 enum rpcrdma_rescg_resource res, uint32_t n,
			 struct rpcrdma_rescg_charge **out)
{
	if (!grp || !out || n == 0 || !res_ok(res))
		return -EINVAL;
	struct rpcrdma_rescg_charge *chg = malloc(sizeof(*chg));
	if (!chg)
		return -ENOMEM;
	uint32_t idx = 0; /* set when rc == 0 */
	int rc = charge_device(grp, device, res, n, &idx);
	if (rc) {
		free(chg);
		return rc;
	}
	chg->grp = grp;
	chg->dev = idx;
	chg->res = res;
	chg->n = n;
	*out = chg;
	return 0;
}

void rpcrdma_rescg_uncharge(struct rpcrdma_rescg_charge *chg)
{
	if (!chg)
		return;
	struct rpcrdma_rescg_group *grp = chg->grp;
	struct rpcrdma_rescg *ctl = grp->ctl;
	pthread_mutex_lock(&ctl->lock);
	/* Cannot fail: the token holds exactly what was charged. */
	(void)rpcrdma__rescg_uncharge_locked(grp, chg->dev, chg->res, chg->n);
	rpcrdma__rescg_unlock(ctl, grp);
	free(chg);
}

struct rpcrdma_rescg_group *rpcrdma_rescg_charge_group(const struct rpcrdma_rescg_charge *chg)
{
	return chg ? chg->grp : NULL;
}

int rpcrdma__rescg_apply(struct rpcrdma_rescg *ctl, struct rpcrdma_rescg_group *only,
			 struct rpcrdma__rescg_update *upd)
{
	size_t nnew = 0;
	char **names = NULL;
	int rc = -ENOMEM;

	pthread_mutex_lock(&ctl->lock);
	if (only && only->removed) {
		pthread_mutex_unlock(&ctl->lock);
		return -ENOENT;
	}

	/* Device indexes: known ones, then new ones numbered after them. */
	for (size_t i = 0; i < upd->nlines; i++) {
		struct rpcrdma__rescg_line *ln = &upd->lines[i];
		size_t len = strlen(ln->dev);
		ln->idx = rpcrdma__rescg_dev_find_locked(ctl, ln->dev, len);
		for (size_t j = 0; ln->idx < 0 && j < i; j++)
			if (upd->lines[j].idx >= ctl->ndevs && strcmp(upd->lines[j].dev, ln->dev) == 0)
				ln->idx = upd->lines[j].idx;
		if (ln->idx < 0)
			ln->idx = (int64_t)ctl->ndevs + (int64_t)nnew++;
	}
	if (dev_reserve_locked(ctl, nnew))
		goto out_unlock;
	if (nnew) {
		names = calloc(nnew, sizeof(*names));
		if (!names)
			goto out_unlock;
		for (size_t i = 0; i < upd->nlines; i++) {
			struct rpcrdma__rescg_line *ln = &upd->lines[i];
			size_t k = (size_t)ln->idx - ctl->ndevs;
			if (ln->idx >= ctl->ndevs && !names[k] && !(names[k] = strdup(ln->dev)))
				goto out_names;
		}
	}
	size_t ndevs = (size_t)ctl->ndevs + nnew;

	/* Groups: resolve or allocate, and size every pool array. */
	if (only) {
		if (pools_reserve_locked(only, ndevs))
			goto out_names;
	} else {
		for (size_t s = 0; s < upd->nsections; s++) {
			struct rpcrdma__rescg_section *sec = &upd->sections[s];
			size_t len = strlen(sec->name);
			sec->grp = group_find_locked(ctl, sec->name, len);
			sec->created = false;
			if (!sec->grp) {
				sec->grp = group_alloc(ctl, sec->name, len);
				if (!sec->grp)
					goto out_groups;
				sec->created = true;
			}
			if (pools_reserve_locked(sec->grp, ndevs))
				goto out_groups;
		}
	}

	/* Commit: nothing below can fail. */
	for (size_t k = 0; k < nnew; k++)
		ctl->devs[ctl->ndevs++] = names[k];
	free(names);
	if (only) {
		for (size_t i = 0; i < upd->nlines; i++) {
			const struct rpcrdma__rescg_line *ln = &upd->lines[i];
			for (int r = 0; r < RPCRDMA_RES_COUNT; r++)
				if (ln->set & (1u << r))
					only->pools[ln->idx].max[r] = ln->val[r];
		}
	} else {
		for (size_t s = 0; s < upd->nsections; s++) {
			struct rpcrdma__rescg_section *sec = &upd->sections[s];
			if (sec->created)
				group_link_locked(sec->grp);
			for (size_t i = sec->first; i < sec->first + sec->count; i++) {
				const struct rpcrdma__rescg_line *ln = &upd->lines[i];
				for (int r = 0; r < RPCRDMA_RES_COUNT; r++)
					if (ln->set & (1u << r))
						sec->grp->pools[ln->idx].max[r] = ln->val[r];
			}
		}
	}
	pthread_mutex_unlock(&ctl->lock);
	return 0;

out_groups:
	for (size_t s = 0; s < upd->nsections; s++) {
		struct rpcrdma__rescg_section *sec = &upd->sections[s];
		if (sec->created && sec->grp)
			group_free(sec->grp);
		sec->grp = NULL;
		sec->created = false;
	}
out_names:
	for (size_t k = 0; names && k < nnew; k++)
		free(names[k]);
	free(names);
out_unlock:
	pthread_mutex_unlock(&ctl->lock);
	return rc;
}
