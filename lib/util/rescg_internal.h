/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller internals shared by rescg.c (accounting), rescg_format.c
 * (rdma.max / rdma.current / limits file) and rescg_ledger.c (transport glue).
 * Not installed.
 */
#ifndef RPCRDMA_LIB_RESCG_INTERNAL_H
#define RPCRDMA_LIB_RESCG_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rescg.h>

/* Limit and usage of both resources of one group on one device. */
struct rpcrdma__rescg_pool {
	uint32_t max[RPCRDMA_RES_COUNT];
	uint32_t usage[RPCRDMA_RES_COUNT];
};

struct rpcrdma_rescg {
	pthread_mutex_t lock;          /* protects everything below and all groups */
	char **devs;                   /* device names, in the order learnt */
	uint32_t ndevs, devcap;
	struct rpcrdma_rescg_group *head, *tail; /* listed groups, creation order */
	uint32_t ngroups;              /* allocated groups: listed + removed-but-charged */
	bool destroyed;                /* owner called rpcrdma_rescg_destroy() */
};

struct rpcrdma_rescg_group {
	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *prev, *next; /* in ctl's list while listed */
	struct rpcrdma__rescg_pool *pools;       /* indexed by device index */
	uint32_t npools;                         /* pools[npools..] read as default */
	uint64_t usage_total;                    /* sum of every usage in pools */
	bool removed;                            /* destroyed; freed when unused */
	char name[RPCRDMA_RESCG_NAME_MAX + 1];
};

struct rpcrdma_rescg_charge {
	struct rpcrdma_rescg_group *grp;
	uint32_t dev;
	enum rpcrdma_rescg_resource res;
	uint32_t n;
};

/* True if s[0..len) is a valid group or device name. */
bool rpcrdma__rescg_name_ok(const char *s, size_t len);

/* Index of device s[0..len) or -1.  Lock held. */
int64_t rpcrdma__rescg_dev_find_locked(const struct rpcrdma_rescg *ctl, const char *s,
				       size_t len);

/*
 * Index of device `name`, learning it if new.  Returns the index (>= 0),
 * -EINVAL (bad name) or -ENOMEM.  Lock held.
 */
int64_t rpcrdma__rescg_dev_get_locked(struct rpcrdma_rescg *ctl, const char *name);

/* Charge/uncharge by device index; same results as the public calls.  Lock held. */
int rpcrdma__rescg_charge_locked(struct rpcrdma_rescg_group *grp, uint32_t dev,
				 enum rpcrdma_rescg_resource res, uint32_t n);
int rpcrdma__rescg_uncharge_locked(struct rpcrdma_rescg_group *grp, uint32_t dev,
				   enum rpcrdma_rescg_resource res, uint32_t n);

/*
 * Unlocks the controller, first freeing a removed group that is no longer
 * charged (grp may be NULL), and the controller itself once it was destroyed
 * and no group is left.  Every locked section that may have dropped the last
 * charge ends with this instead of pthread_mutex_unlock().
 */
void rpcrdma__rescg_unlock(struct rpcrdma_rescg *ctl, struct rpcrdma_rescg_group *grp);

/*
 * A parsed limits update, applied all or nothing by rpcrdma__rescg_apply().
 * Each section names a group and owns lines[first .. first + count).
 */
struct rpcrdma__rescg_line {
	char dev[RPCRDMA_RESCG_NAME_MAX + 1];
	uint32_t set;                        /* bit r: val[r] given */
	uint32_t val[RPCRDMA_RES_COUNT];
	int64_t idx;                         /* device index, filled by apply */
	size_t lineno;                       /* for messages */
};

struct rpcrdma__rescg_section {
	char name[RPCRDMA_RESCG_NAME_MAX + 1];
	size_t first, count;
	struct rpcrdma_rescg_group *grp;     /* filled by apply */
	bool created;                        /* grp allocated by apply */
	size_t lineno;                       /* for messages */
};

struct rpcrdma__rescg_update {
	struct rpcrdma__rescg_line *lines;
	size_t nlines, linecap;
	struct rpcrdma__rescg_section *sections;
	size_t nsections, seccap;
};

/*
 * Applies `upd`: with `only` set, every line goes to that group (sections are
 * ignored); otherwise each section to the group of its name, created if
 * missing.  Returns 0, -ENOENT (only was destroyed), -ENOMEM; on error
 * nothing changed.
 */
int rpcrdma__rescg_apply(struct rpcrdma_rescg *ctl, struct rpcrdma_rescg_group *only,
			 struct rpcrdma__rescg_update *upd);

#endif /* RPCRDMA_LIB_RESCG_INTERNAL_H */
