/* SPDX-License-Identifier: BSD-2-Clause */
/* Whom an operation acts as: squashing, the thread's file-system ids, and
 * the access check of READ and WRITE; see fs.h. */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rpcrdma/svc.h>

#define NGROUPS_WIRE 16 /* AUTH_SYS carries at most 16 groups */

/*
 * As Linux nfsd's nfsd_setuser():
 *   all_squash (and AUTH_NONE): anonuid, anongid, no supplementary groups;
 *   root_squash: uid 0 -> anonuid, gid 0 -> anongid, both as the primary
 *     group and in the supplementary list; the other groups stay;
 *   (uid_t)-1 and (gid_t)-1, which name nobody, are the anonymous ids
 *     (and setfsuid(-1) would only ask, leaving the server's ids in place);
 *     a supplementary (gid_t)-1 is dropped.
 */
void tnfs_export_squash(const struct tnfs_export *x, const struct tnfs_cred *in,
			struct tnfs_cred *out)
{
	*out = *in;
	if (out->ngroups > NGROUPS_WIRE)
		out->ngroups = NGROUPS_WIRE;
	if (in->anon || x->squash == TNFS_SQUASH_ALL) {
		out->uid = x->anonuid;
		out->gid = x->anongid;
		out->ngroups = 0;
		return;
	}
	bool root = x->squash == TNFS_SQUASH_ROOT;
	if (out->uid == UINT32_MAX || (root && out->uid == 0))
		out->uid = x->anonuid;
	if (out->gid == UINT32_MAX || (root && out->gid == 0))
		out->gid = x->anongid;
	uint32_t n = 0;
	for (uint32_t i = 0; i < out->ngroups; i++) {
		uint32_t g = out->groups[i];
		if (g == UINT32_MAX)
			continue;
		out->groups[n++] = root && g == 0 ? x->anongid : g;
	}
	out->ngroups = n;
}

bool tnfs_same_principal(const struct tnfs_cred *a, const struct tnfs_cred *b)
{
	if (a->anon != b->anon || a->uid != b->uid || a->gid != b->gid ||
	    a->ngroups != b->ngroups || (a->gss_service != 0) != (b->gss_service != 0))
		return false;
	if (memcmp(a->groups, b->groups, a->ngroups * sizeof(a->groups[0])) != 0)
		return false;
	return strncmp(a->principal, b->principal, TNFS_PRINCIPAL_MAX) == 0;
}

bool tnfs_machine_cred(const struct tnfs_cred *mach, const struct tnfs_cred *req)
{
	if (req->gss_service != TNFS_GSS_SVC_INTEGRITY &&
	    req->gss_service != TNFS_GSS_SVC_PRIVACY)
		return false;
	if (!mach->gss_service || mach->principal[0] == 0)
		return false;
	return strncmp(mach->principal, req->principal, TNFS_PRINCIPAL_MAX) == 0;
}

unsigned tnfs_cred_sec(const struct tnfs_cred *c)
{
	if (c->gss_service >= TNFS_GSS_SVC_NONE && c->gss_service <= TNFS_GSS_SVC_PRIVACY)
		return TNFS_SEC_KRB5 + c->gss_service - TNFS_GSS_SVC_NONE;
	return c->anon ? TNFS_SEC_NONE : TNFS_SEC_SYS;
}

bool tnfs_export_sec_ok(const struct tnfs_export *x, const struct tnfs_cred *c)
{
	unsigned f = tnfs_cred_sec(c);
	if (x->nsec == 0)
		return f == TNFS_SEC_NONE || f == TNFS_SEC_SYS;
	for (unsigned i = 0; i < x->nsec; i++)
		if (x->sec[i] == f)
			return true;
	return false;
}

uint32_t tnfs_fs_self(struct tnfs_fs_saved *self)
{
	self->switched = false;
	self->uid = (uint32_t)syscall(SYS_setfsuid, -1);
	self->gid = (uint32_t)syscall(SYS_setfsgid, -1);
	gid_t g[64];
	int n = getgroups(64, g);
	if (n < 0)
		return NFS4ERR_SERVERFAULT;
	self->ngroups = n;
	for (int i = 0; i < n; i++)
		self->groups[i] = g[i];
	return NFS4_OK;
}

static bool same_ids(const struct tnfs_cred *c, uint32_t cnt,
		     const struct tnfs_fs_saved *self)
{
	if (c->uid != self->uid || c->gid != self->gid || cnt != (uint32_t)self->ngroups)
		return false;
	for (uint32_t i = 0; i < cnt; i++)
		if (c->groups[i] != self->groups[i])
			return false;
	return true;
}

uint32_t tnfs_fs_become(const struct tnfs_cred *c, const struct tnfs_fs_saved *self,
			struct tnfs_fs_saved *s)
{
	*s = *self;
	s->switched = false;
	uint32_t cnt = c->ngroups > NGROUPS_WIRE ? NGROUPS_WIRE : c->ngroups;
	if (same_ids(c, cnt, self))
		return NFS4_OK;
	gid_t ng[NGROUPS_WIRE];
	for (uint32_t i = 0; i < cnt; i++)
		ng[i] = c->groups[i];
	/* Raw syscalls: these change only the calling thread, which from
	 * here on is told to the service core (RPCRDMA_SVC_HANDLERS_TELL_CREDS:
	 * it asks the kernel nothing for a thread that never switched). */
	rpcrdma_svc_creds_switching();
	if (syscall(SYS_setgroups, (size_t)cnt, ng) != 0)
		return NFS4ERR_SERVERFAULT;
	s->switched = true;
	syscall(SYS_setfsgid, c->gid);
	syscall(SYS_setfsuid, c->uid);
	/* setfsuid reports no error: ask for the ids back */
	if ((uint32_t)syscall(SYS_setfsuid, -1) != c->uid ||
	    (uint32_t)syscall(SYS_setfsgid, -1) != c->gid) {
		tnfs_fs_unbecome(s);
		return NFS4ERR_SERVERFAULT;
	}
	return NFS4_OK;
}

void tnfs_fs_unbecome(struct tnfs_fs_saved *s)
{
	if (!s->switched)
		return;
	syscall(SYS_setfsuid, s->uid);
	syscall(SYS_setfsgid, s->gid);
	gid_t g[64];
	for (int i = 0; i < s->ngroups; i++)
		g[i] = s->groups[i];
	syscall(SYS_setgroups, (size_t)s->ngroups, g);
	s->switched = false;
}

/* The kernel's verdict for this thread's fs ids and groups (AT_EACCESS:
 * not the real ids) on the O_PATH descriptor itself (AT_EMPTY_PATH). */
static bool kernel_may(int fd, int mode)
{
	return syscall(SYS_faccessat2, fd, "", mode, AT_EACCESS | AT_EMPTY_PATH) == 0;
}

uint32_t tnfs_fs_may_io(const struct tnfs_node *n, const struct stat *st, uint32_t fsuid,
			bool write)
{
	if (n->fd < 0)
		return NFS4ERR_NOFILEHANDLE;
	/* nfsd's NFSD_MAY_OWNER_OVERRIDE */
	if (st->st_uid == fsuid)
		return NFS4_OK;
	if (kernel_may(n->fd, write ? W_OK : R_OK))
		return NFS4_OK;
	/* nfsd: a regular file that may be executed may be read */
	if (!write && S_ISREG(st->st_mode) && kernel_may(n->fd, X_OK))
		return NFS4_OK;
	return NFS4ERR_ACCESS;
}

uint32_t tnfs_fs_open_checked(const struct tnfs_node *n, int flags, int *fd)
{
	uint32_t s = tnfs_fs_open(n, flags, fd);
	if (s != NFS4ERR_ACCESS)
		return s;
	/* CAP_DAC_OVERRIDE comes back with fsuid 0, for this call only, as
	 * in tnfs_fs_from_fh() */
	uint32_t fsuid = (uint32_t)syscall(SYS_setfsuid, -1);
	if (fsuid == 0)
		return s;
	rpcrdma_svc_creds_switching(); /* see tnfs_fs_become */
	syscall(SYS_setfsuid, 0);
	s = tnfs_fs_open(n, flags, fd);
	syscall(SYS_setfsuid, fsuid);
	return s;
}
