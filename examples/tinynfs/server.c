/* SPDX-License-Identifier: BSD-2-Clause */
/* The tinynfs server object; see server.h. */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compound.h"

#define DEFAULT_IO (1024u * 1024u)

/* Opens every export; with several, builds the pseudo file system. */
static int open_exports(struct tnfs_server *s, const struct tnfs_server_opts *opts)
{
	const struct tnfs_exports *ex = opts->exports;
	s->exps = calloc(ex->n, sizeof(*s->exps));
	if (!s->exps)
		return -ENOMEM;
	for (size_t i = 0; i < ex->n; i++) {
		int rc = tnfs_export_open(&ex->v[i], opts->inode_handles, &s->exps[i]);
		if (rc)
			return rc;
		s->exps[i]->index = (uint32_t)i;
		s->nexp++;
		for (size_t j = 0; j < i; j++)
			if (s->exps[j]->id == s->exps[i]->id)
				return -EEXIST;
		if (!s->est_exp || (s->exps[i]->flags & TNFS_EXP_SECURITY_LABEL))
			s->est_exp = s->exps[i];
	}
	s->exp = s->exps[0];
	clock_gettime(CLOCK_REALTIME, &s->start);
	struct tnfs_export *p = &s->pseudo_exp;
	p->rootfd = -1;
	p->path = "";
	p->fsid_major = TNFS_PSEUDO_FSID_MAJOR;
	p->squash = TNFS_SQUASH_ALL;
	p->anonuid = p->anongid = 65534;
	p->id = UINT32_MAX; /* matches no handle */
	if (ex->n == 1)
		return 0;
	const char **paths = calloc(ex->n, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	for (size_t i = 0; i < ex->n; i++)
		paths[i] = ex->v[i].path;
	char err[160];
	int rc = tnfs_pseudo_build(paths, ex->n, &s->pseudo, err, sizeof(err));
	free(paths);
	if (rc == -EINVAL)
		fprintf(stderr, "tinynfs: exports: %s\n", err);
	return rc;
}

uint32_t tnfs_server_fh_export(const struct tnfs_server *s, const uint8_t *fh, uint32_t len,
			       const struct tnfs_export **out)
{
	int64_t id = tnfs_fh_export_id(fh, len);
	if (id < 0)
		return NFS4ERR_BADHANDLE;
	for (size_t i = 0; i < s->nexp; i++) {
		if (s->exps[i]->id == (uint32_t)id) {
			*out = s->exps[i];
			return NFS4_OK;
		}
	}
	return NFS4ERR_STALE;
}

static void deleg_recall(void *arg, uint64_t clientid, const struct nfs4_stateid *sid,
			 const uint8_t *fh, uint32_t fhlen)
{
	struct tnfs_server *s = arg;
	tnfs_cb_recall(s->cb, clientid, sid, fh, fhlen);
}

static void deleg_getattr(void *arg, uint64_t clientid, const struct nfs4_stateid *sid,
			  const uint8_t *fh, uint32_t fhlen, bool times)
{
	struct tnfs_server *s = arg;
	tnfs_cb_getattr(s->cb, clientid, sid, fh, fhlen, times);
}

static bool deleg_path_up(void *arg, uint64_t clientid)
{
	struct tnfs_server *s = arg;
	return tnfs_cb_path_up(s->cb, clientid);
}

static bool deleg_lapsed(void *arg, uint64_t clientid)
{
	struct tnfs_server *s = arg;
	return tnfs_state_client_lapsed(s->state, clientid);
}

/* Lock order: state, then deleg, then cb (neither calls into the state). */
static void client_gone(void *arg, uint64_t clientid)
{
	struct tnfs_server *s = arg;
	tnfs_deleg_forget_client(s->deleg, clientid);
	tnfs_cb_forget(s->cb, clientid);
}

int tnfs_server_start_callbacks(struct tnfs_server *s)
{
	return tnfs_deleg_start(s->deleg);
}

int tnfs_server_new(const struct tnfs_server_opts *opts, struct tnfs_server **out)
{
	if (!opts || opts->size < sizeof(*opts) || !opts->exports || opts->exports->n == 0)
		return -EINVAL;
	if (tnfs_optable_check(NULL) != 0)
		return -ENOSYS;
	struct tnfs_server *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (opts->versions)
		s->versions = *opts->versions;
	else
		tnfs_versions_default(&s->versions);
	int rc = tnfs_versions_check(&s->versions);
	if (rc)
		goto fail;
	if (opts->boot_verifier) {
		memcpy(s->boot, opts->boot_verifier, 8);
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t v = (uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec << 8 ^ (uint64_t)getpid();
		for (int i = 0; i < 8; i++)
			s->boot[i] = (uint8_t)(v >> (56 - 8 * i));
	}
	/* the write verifier changes whenever the boot verifier does */
	memcpy(s->write_verf, s->boot, 8);
	s->write_verf[0] ^= 0x5a;
	if (tnfs_fs_self(&s->self) != NFS4_OK) {
		rc = -EPERM;
		goto fail;
	}
	s->maxread = opts->maxread ? opts->maxread : DEFAULT_IO;
	s->maxwrite = opts->maxwrite ? opts->maxwrite : DEFAULT_IO;
	if (s->maxread > DEFAULT_IO || s->maxwrite > DEFAULT_IO) {
		rc = -EINVAL;
		goto fail;
	}
	const char *own = opts->server_owner ? opts->server_owner : "tinynfs";
	if (strlen(own) >= sizeof(s->owner)) {
		rc = -EINVAL;
		goto fail;
	}
	strcpy(s->owner, own);
	s->setattr_hook = opts->setattr_hook;
	s->op_hook = opts->op_hook;
	s->hook_arg = opts->hook_arg;
	rc = open_exports(s, opts);
	if (rc)
		goto fail;
	rc = tnfs_state_new(s->boot, &s->state);
	if (rc)
		goto fail;
	rc = tnfs_cb_new(&s->cb);
	if (rc)
		goto fail;
	const struct tnfs_deleg_ops dops = { .recall = deleg_recall, .getattr = deleg_getattr,
					     .path_up = deleg_path_up,
					     .lapsed = deleg_lapsed, .arg = s };
	uint32_t b32 = (uint32_t)s->boot[4] << 24 | (uint32_t)s->boot[5] << 16 |
		       (uint32_t)s->boot[6] << 8 | s->boot[7];
	rc = tnfs_deleg_new(b32, &dops, &s->deleg);
	if (rc)
		goto fail;
	tnfs_cb_set_deleg(s->cb, s->deleg);
	tnfs_state_set_client_gone(s->state, client_gone, s);
	tnfs_deleg_set_enabled(s->deleg, !opts->no_delegations);
	*out = s;
	return 0;
fail:
	tnfs_server_free(s);
	return rc;
}

void tnfs_server_free(struct tnfs_server *s)
{
	if (!s)
		return;
	/* the deleg thread first: it sends recalls through cb */
	if (s->state)
		tnfs_state_set_client_gone(s->state, NULL, NULL);
	tnfs_deleg_free(s->deleg);
	tnfs_cb_free(s->cb);
	tnfs_state_free(s->state);
	for (size_t i = 0; i < s->nexp; i++)
		tnfs_export_close(s->exps[i]);
	free(s->exps);
	tnfs_pseudo_free(s->pseudo);
	free(s);
}

uint32_t tnfs_server_sync(struct tnfs_server *s, int fd, bool datasync)
{
	int rc;
	if (s->sync_hook)
		rc = s->sync_hook(s->sync_arg, fd, datasync);
	else
		rc = datasync ? fdatasync(fd) : fsync(fd);
	if (rc == 0)
		return NFS4_OK;
	int err = errno;
	/* a new write verifier: bytes 4..7 count the errors of this boot */
	for (int i = 7; i >= 4; i--)
		if (++s->write_verf[i] != 0)
			break;
	return tnfs_errno_to_nfs(err);
}
