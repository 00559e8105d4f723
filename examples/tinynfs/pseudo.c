/* SPDX-License-Identifier: BSD-2-Clause */
/* The NFSv4 pseudo file system tree; see pseudo.h. */
#include "pseudo.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t tnfs_pseudo_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint32_t tnfs_pseudo_export_id(const char *path)
{
	uint64_t h = tnfs_pseudo_hash(path, strlen(path));
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	if (errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* Appends a node (name = path + off .. end); returns its number or -1. */
static int64_t add_node(struct tnfs_pseudo *p, uint32_t *cap, uint32_t parent,
			const char *path, size_t end, size_t off)
{
	if (p->n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 16;
		struct tnfs_pseudo_node *v = realloc(p->v, nc * sizeof(*v));
		if (!v)
			return -1;
		p->v = v;
		*cap = nc;
	}
	struct tnfs_pseudo_node *d = &p->v[p->n];
	memset(d, 0, sizeof(*d));
	d->export = -1;
	d->parent = parent;
	d->path = strndup(path, end ? end : 1);
	d->name = strndup(path + off, end - off);
	if (!d->path || !d->name) {
		free(d->path);
		free(d->name);
		return -1;
	}
	d->hash = tnfs_pseudo_hash(d->path, strlen(d->path));
	return p->n++;
}

/* Inserts child c into parent's sorted child list. */
static int link_child(struct tnfs_pseudo *p, uint32_t parent, uint32_t c)
{
	struct tnfs_pseudo_node *d = &p->v[parent];
	uint32_t *v = realloc(d->child, (d->nchild + 1) * sizeof(*v));
	if (!v)
		return -1;
	d->child = v;
	uint32_t i = d->nchild;
	while (i > 0 && strcmp(p->v[v[i - 1]].name, p->v[c].name) > 0) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = c;
	d->nchild++;
	return 0;
}

static uint32_t find_child(const struct tnfs_pseudo *p, uint32_t dir, const char *name,
			   size_t len, uint32_t *out)
{
	const struct tnfs_pseudo_node *d = &p->v[dir];
	uint32_t lo = 0, hi = d->nchild;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const char *cn = p->v[d->child[mid]].name;
		size_t cl = strlen(cn);
		int c = memcmp(cn, name, cl < len ? cl : len);
		if (c == 0)
			c = cl < len ? -1 : cl > len ? 1 : 0;
		if (c == 0) {
			*out = d->child[mid];
			return NFS4_OK;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NFS4ERR_NOENT;
}

static int add_path(struct tnfs_pseudo *p, uint32_t *cap, const char *path, int32_t index,
		    char *err, size_t errlen)
{
	size_t len = strlen(path);
	if (len == 0 || path[0] != '/')
		return fail(err, errlen, -EINVAL, "pseudo: export path '%s' is not absolute", path);
	if (len > 1 && path[len - 1] == '/')
		return fail(err, errlen, -EINVAL, "pseudo: export path '%s' ends in '/'", path);
	uint32_t cur = 0;
	size_t i = 1;
	while (i < len) {
		if (p->v[cur].export >= 0)
			return fail(err, errlen, -EINVAL, "pseudo: '%s' lies inside export '%s'",
				    path, p->v[cur].path);
		size_t j = i;
		while (j < len && path[j] != '/')
			j++;
		size_t cl = j - i;
		if (cl == 0 || (cl == 1 && path[i] == '.') ||
		    (cl == 2 && path[i] == '.' && path[i + 1] == '.'))
			return fail(err, errlen, -EINVAL,
				    "pseudo: export path '%s' has an empty, '.' or '..' component", path);
		if (cl > NAME_MAX)
			return fail(err, errlen, -EINVAL, "pseudo: a component of '%s' is too long", path);
		uint32_t next;
		if (find_child(p, cur, path + i, cl, &next) != NFS4_OK) {
			if (p->n >= TNFS_PSEUDO_MAX_NODES)
				return fail(err, errlen, -E2BIG, "pseudo: more than %u nodes",
					    TNFS_PSEUDO_MAX_NODES);
			int64_t nn = add_node(p, cap, cur, path, j, i);
			if (nn < 0 || link_child(p, cur, (uint32_t)nn) != 0)
				return fail(err, errlen, -ENOMEM, "pseudo: out of memory");
			next = (uint32_t)nn;
		}
		cur = next;
		i = j + 1;
	}
	struct tnfs_pseudo_node *d = &p->v[cur];
	if (d->export >= 0)
		return fail(err, errlen, -EINVAL, "pseudo: export '%s' given twice", path);
	if (d->nchild > 0 || (cur == 0 && p->n > 1))
		return fail(err, errlen, -EINVAL, "pseudo: another export lies inside '%s'", path);
	d->export = index;
	return 0;
}

int tnfs_pseudo_build(const char *const *paths, size_t n, struct tnfs_pseudo **out,
		      char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	if (n == 0 || n > INT32_MAX)
		return fail(err, errlen, -EINVAL, "pseudo: no exports");
	struct tnfs_pseudo *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	uint32_t cap = 0;
	/* the root: path "/", name "" */
	int rc = add_node(p, &cap, 0, "/", 0, 0) < 0 ? -ENOMEM : 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add_path(p, &cap, paths[i], (int32_t)i, err, errlen);
	/* handles name nodes by hash: two paths of one hash are refused */
	for (uint32_t i = 0; rc == 0 && i < p->n; i++)
		for (uint32_t j = i + 1; rc == 0 && j < p->n; j++)
			if (p->v[i].hash == p->v[j].hash)
				rc = fail(err, errlen, -EINVAL, "pseudo: '%s' and '%s' hash alike",
					  p->v[i].path, p->v[j].path);
	if (rc == 0) {
		*out = p;
		return 0;
	}
	tnfs_pseudo_free(p);
	return rc;
}

void tnfs_pseudo_free(struct tnfs_pseudo *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].path);
		free(p->v[i].child);
	}
	free(p->v);
	free(p);
}

uint32_t tnfs_pseudo_lookup(const struct tnfs_pseudo *p, uint32_t dir,
			    const uint8_t *name, uint32_t len, uint32_t *out)
{
	if (dir >= p->n)
		return NFS4ERR_BADHANDLE;
	if (p->v[dir].export >= 0)
		return NFS4ERR_NOTDIR;
	return find_child(p, dir, (const char *)name, len, out);
}

int32_t tnfs_pseudo_export(const struct tnfs_pseudo *p, uint32_t node)
{
	return node < p->n ? p->v[node].export : -1;
}

uint32_t tnfs_pseudo_junction(const struct tnfs_pseudo *p, uint32_t export_index)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->v[i].export == (int32_t)export_index)
			return i;
	return 0;
}

void tnfs_pseudo_to_fh(const struct tnfs_pseudo *p, uint32_t node, struct tnfs_fh *out)
{
	uint64_t h = p->v[node].hash;
	memset(out->data, 0, TNFS_PSEUDO_FH_LEN);
	out->data[0] = TNFS_PSEUDO_FH_LAYOUT;
	for (int i = 0; i < 8; i++)
		out->data[4 + i] = (uint8_t)(h >> (56 - 8 * i));
	out->len = TNFS_PSEUDO_FH_LEN;
}

uint32_t tnfs_pseudo_from_fh(const struct tnfs_pseudo *p, const uint8_t *fh, uint32_t len,
			     uint32_t *node)
{
	if (len != TNFS_PSEUDO_FH_LEN || fh[0] != TNFS_PSEUDO_FH_LAYOUT || fh[1] || fh[2] || fh[3])
		return NFS4ERR_BADHANDLE;
	uint64_t h = 0;
	for (int i = 0; i < 8; i++)
		h = h << 8 | fh[4 + i];
	for (uint32_t i = 0; i < p->n; i++) {
		if (p->v[i].hash == h) {
			*node = i;
			return NFS4_OK;
		}
	}
	return NFS4ERR_STALE;
}
