/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Operations on the nodes of the pseudo file system (server.h, pseudo.h):
 * read-only directories that lead from PUTROOTFH to the exports.  A
 * junction is never the current file handle: stepping onto it (LOOKUP,
 * PUTFH of its handle) gives the export's root, and LOOKUPP from that
 * root gives the junction's parent.  Pseudo nodes are attributed with
 * srv->pseudo_exp (their own fsid, no labels) as a file system that holds
 * nothing: files_* and space_* are 0, as df shows them for the pseudo root.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "attrs.h"
#include "ops.h"

uint32_t tnfs_pseudo_refusal(uint32_t op)
{
	switch (op) {
	case OP_CREATE:
	case OP_LINK:
	case OP_OPEN:
	case OP_REMOVE:
	case OP_RENAME:
	case OP_SETATTR:
	case OP_WRITE:
	case OP_ALLOCATE:
	case OP_DEALLOCATE:
	case OP_COPY:
	case OP_CLONE:
		/* not NOTSUPP: the Linux client would stop sending these
		 * operations to the whole server */
		return NFS4ERR_ROFS;
	case OP_READLINK:
		return NFS4ERR_INVAL; /* not a symbolic link */
	case OP_READ:
	case OP_READ_PLUS:
	case OP_COMMIT:
	case OP_LOCK:
	case OP_LOCKT:
	case OP_LOCKU:
	case OP_SEEK:
	case OP_CLOSE:
	case OP_OPEN_DOWNGRADE:
		return NFS4ERR_ISDIR;
	default:
		return NFS4ERR_NOTSUPP;
	}
}

/* A pseudo node's fileid (and an export root's mounted_on_fileid). */
static uint64_t node_fileid(const struct tnfs_pseudo *p, uint32_t node)
{
	return p->v[node].hash ? p->v[node].hash : 1;
}

static void node_stat(const struct tnfs_ctx *c, uint32_t node, struct stat *st)
{
	const struct tnfs_pseudo_node *n = &c->srv->pseudo->v[node];
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR | 0555;
	st->st_nlink = 2 + n->nchild;
	st->st_ino = (ino_t)node_fileid(c->srv->pseudo, node);
	st->st_size = 4096;
	st->st_atim = st->st_mtim = st->st_ctim = c->srv->start;
}

static uint32_t node_attrs(const struct tnfs_ctx *c, struct xdr_out *x,
			   const struct nfs4_bitmap *mask, uint32_t node)
{
	struct stat st;
	node_stat(c, node, &st);
	struct tnfs_fh fh;
	tnfs_pseudo_to_fh(c->srv->pseudo, node, &fh);
	struct tnfs_attr_src src = {
		.exp = &c->srv->pseudo_exp, .minor = c->minor, .st = &st, .fd = -1,
		.dirfd = -1, .maxread = c->srv->maxread, .maxwrite = c->srv->maxwrite,
		.fh = &fh, .empty_fs = true,
	};
	return tnfs_attrs_encode(x, mask, &src);
}

/* A READDIR entry's attributes: a pseudo directory's, or at a junction
 * those of the export's root (its own fsid tells the client to mount it). */
static uint32_t entry_attrs(const struct tnfs_ctx *c, struct xdr_out *x,
			    const struct nfs4_bitmap *mask, uint32_t node)
{
	const struct tnfs_pseudo *p = c->srv->pseudo;
	int32_t e = tnfs_pseudo_export(p, node);
	struct stat st;
	if (e < 0 || tnfs_fstat(c->srv->exps[e]->rootfd, &st) != 0)
		return node_attrs(c, x, mask, node);
	const struct tnfs_export *ex = c->srv->exps[e];
	struct tnfs_attr_src src = {
		.exp = ex, .minor = c->minor, .st = &st, .fd = ex->rootfd, .dirfd = -1,
		.maxread = c->srv->maxread, .maxwrite = c->srv->maxwrite,
		.mounted_on = node_fileid(p, node),
	};
	return tnfs_attrs_encode(x, mask, &src);
}

uint32_t tnfs_pseudo_enter(struct tnfs_ctx *c, uint32_t node)
{
	int32_t e = tnfs_pseudo_export(c->srv->pseudo, node);
	if (e < 0) {
		tnfs_ctx_set_pseudo(c, node);
		return NFS4_OK;
	}
	struct tnfs_node n;
	uint32_t s = tnfs_fs_root(c->srv->exps[e], &n);
	if (s == NFS4_OK)
		tnfs_ctx_set_cfh_in(c, c->srv->exps[e], &n, NULL);
	return s;
}

uint32_t tnfs_pseudo_op_lookup(struct tnfs_ctx *c, const uint8_t *name, uint32_t len)
{
	char buf[256];
	uint32_t s = tnfs_fs_check_name(name, len, buf);
	if (s != NFS4_OK)
		return s;
	uint32_t child;
	s = tnfs_pseudo_lookup(c->srv->pseudo, c->cpseudo, name, len, &child);
	return s == NFS4_OK ? tnfs_pseudo_enter(c, child) : s;
}

uint32_t tnfs_pseudo_op_lookupp(struct tnfs_ctx *c)
{
	if (c->cpseudo == 0)
		return NFS4ERR_NOENT;
	tnfs_ctx_set_pseudo(c, c->srv->pseudo->v[c->cpseudo].parent);
	return NFS4_OK;
}

uint32_t tnfs_pseudo_op_leave(struct tnfs_ctx *c)
{
	const struct tnfs_pseudo *p = c->srv->pseudo;
	uint32_t j = tnfs_pseudo_junction(p, c->exp->index);
	tnfs_ctx_set_pseudo(c, p->v[j].parent);
	return NFS4_OK;
}

uint64_t tnfs_pseudo_mounted_on(const struct tnfs_ctx *c, const struct tnfs_export *x)
{
	const struct tnfs_pseudo *p = c->srv->pseudo;
	return node_fileid(p, tnfs_pseudo_junction(p, x->index));
}

uint32_t tnfs_pseudo_op_access(struct tnfs_ctx *c, const union nfs4_args *a, union nfs4_res *r)
{
	(void)c;
	uint32_t supp = a->access.access & (ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY |
					    ACCESS4_EXTEND | ACCESS4_DELETE);
	r->access.supported = supp;
	r->access.access = supp & (ACCESS4_READ | ACCESS4_LOOKUP);
	return NFS4_OK;
}

uint32_t tnfs_pseudo_op_getattr(struct tnfs_ctx *c, const union nfs4_args *a, struct xdr_out *x)
{
	struct nfs4_bitmap mask = a->getattr.mask;
	mask.w[0] &= ~(1u << FATTR4_RDATTR_ERROR); /* READDIR's only */
	return node_attrs(c, x, &mask, c->cpseudo);
}

/* Cookies: the entry of child i has cookie i + 3 (0, 1, 2 are reserved). */
uint32_t tnfs_pseudo_op_readdir(struct tnfs_ctx *c, const union nfs4_args *a, struct xdr_out *x)
{
	const struct tnfs_pseudo *p = c->srv->pseudo;
	const struct tnfs_pseudo_node *dir = &p->v[c->cpseudo];
	uint64_t cookie = a->readdir.cookie;
	if (cookie && cookie - 2 > dir->nchild)
		return NFS4ERR_BAD_COOKIE;
	uint32_t i = cookie ? (uint32_t)(cookie - 2) : 0;
	struct tnfs_dirlist dl;
	uint32_t s = tnfs_dirlist_begin(&dl, a, x);
	if (s != NFS4_OK)
		return s;
	for (; i < dir->nchild; i++) {
		const char *name = p->v[dir->child[i]].name;
		if (!tnfs_dirlist_add(&dl, (uint64_t)i + 3, name, (uint32_t)strlen(name)) ||
		    !tnfs_dirlist_keep(&dl, entry_attrs(c, &dl.w, &a->readdir.mask, dir->child[i])))
			break;
	}
	return tnfs_dirlist_end(&dl, x, i == dir->nchild);
}
