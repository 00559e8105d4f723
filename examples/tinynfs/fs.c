/* SPDX-License-Identifier: BSD-2-Clause */
/* Export backend on a real directory; see fs.h. */
#include "fs.h"
#include "fh_cache.h"
#include "fs_inode.h"
#include "mountinfo.h"
#include "pseudo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <rpcrdma/svc.h>

#define FH_HDR 8
#define FH_HANDLE_MAX (NFS4_FHSIZE - FH_HDR)
#define LABEL_XATTR "security.selinux"

struct fh_buf {
	struct file_handle h;
	unsigned char bytes[FH_HANDLE_MAX];
};

uint32_t tnfs_errno_to_nfs(int err)
{
	switch (err) {
	case 0: return NFS4_OK;
	case EPERM: return NFS4ERR_PERM;
	case ENOENT: return NFS4ERR_NOENT;
	case EIO: return NFS4ERR_IO;
	case ENXIO: case ENODEV: return NFS4ERR_NXIO;
	case EACCES: return NFS4ERR_ACCESS;
	case EEXIST: return NFS4ERR_EXIST;
	case EXDEV: return NFS4ERR_XDEV;
	case ENOTDIR: return NFS4ERR_NOTDIR;
	case EISDIR: return NFS4ERR_ISDIR;
	case EINVAL: return NFS4ERR_INVAL;
	case EFBIG: return NFS4ERR_FBIG;
	case ENOSPC: return NFS4ERR_NOSPC;
	case EROFS: return NFS4ERR_ROFS;
	case EMLINK: return NFS4ERR_MLINK;
	case ENAMETOOLONG: return NFS4ERR_NAMETOOLONG;
	case ENOTEMPTY: return NFS4ERR_NOTEMPTY;
	case EDQUOT: return NFS4ERR_DQUOT;
	case ESTALE: return NFS4ERR_STALE;
	case ELOOP: return NFS4ERR_SYMLINK;
	case EOPNOTSUPP: return NFS4ERR_NOTSUPP;
	case EAGAIN: case ENOMEM: case EMFILE: case ENFILE: return NFS4ERR_DELAY;
	case EBADF: return NFS4ERR_BADHANDLE;
	default: return NFS4ERR_IO;
	}
}

static void proc_path(char buf[32], int fd)
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

uint32_t tnfs_export_id(const char *path)
{
	uint32_t v = tnfs_pseudo_export_id(path);
	return (v ^ v >> 24) & 0xffffffu;
}

int64_t tnfs_fh_export_id(const uint8_t *fh, uint32_t len)
{
	if (len < 4 || (fh[0] != 1 && fh[0] != 2))
		return -1;
	return (int64_t)((uint32_t)fh[1] << 16 | (uint32_t)fh[2] << 8 | fh[3]);
}

int tnfs_export_open(const struct tnfs_export_entry *e, bool inode_handles,
		     struct tnfs_export **out)
{
	struct tnfs_export *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->rootfd = -1;
	int rc;
	x->path = realpath(e->path, NULL);
	if (!x->path) {
		rc = -errno;
		goto fail;
	}
	x->pathlen = strlen(x->path);
	x->rootfd = open(x->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* open_by_handle_at wants a real fd */
	if (x->rootfd < 0) {
		rc = -errno;
		goto fail;
	}
	struct stat st;
	if (fstat(x->rootfd, &st) != 0) {
		rc = -errno;
		goto fail;
	}
	x->dev = st.st_dev;
	x->root_ino = st.st_ino;
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	if (mi) {
		x->whole_fs = tnfs_mount_is_whole(mi, x->path, x->dev);
		fclose(mi);
	}
	x->fsid_major = major(st.st_dev);
	x->fsid_minor = minor(st.st_dev);
	x->id = tnfs_export_id(e->path);
	x->flags = e->flags;
	x->squash = e->squash;
	x->anonuid = e->anonuid;
	x->anongid = e->anongid;
	memcpy(x->sec, e->sec, sizeof(x->sec));
	x->nsec = e->nsec;
	/* Probe: handles of this file system can be made and opened;
	 * else fall back to inode-number handles (fs_inode.h). */
	struct fh_buf fb;
	int mnt, fd = -1;
	fb.h.handle_bytes = FH_HANDLE_MAX;
	if (!inode_handles &&
	    name_to_handle_at(x->rootfd, "", &fb.h, &mnt, AT_EMPTY_PATH) == 0)
		fd = open_by_handle_at(x->rootfd, &fb.h, O_PATH);
	if (fd >= 0) {
		close(fd);
		x->dirs = tnfs_fhc_new();
	} else if ((rc = tnfs_ino_table_new(&x->inodes)) != 0) {
		goto fail;
	}
	*out = x;
	return 0;
fail:
	tnfs_export_close(x);
	return rc;
}

void tnfs_export_close(struct tnfs_export *x)
{
	if (!x)
		return;
	if (x->rootfd >= 0)
		close(x->rootfd);
	tnfs_ino_table_free(x->inodes);
	tnfs_fhc_free(x->dirs);
	free(x->path);
	free(x);
}

void tnfs_node_put(struct tnfs_node *n)
{
	if (n->fd >= 0 && n->lender)
		tnfs_fhc_return(n->lender, n->slot);
	else if (n->fd >= 0)
		close(n->fd);
	*n = TNFS_NODE_NONE;
}

uint32_t tnfs_node_dup(const struct tnfs_node *n, struct tnfs_node *out)
{
	*out = TNFS_NODE_NONE;
	if (n->fd < 0)
		return NFS4ERR_NOFILEHANDLE;
	if (n->lender) {
		tnfs_fhc_share(n->lender, n->slot);
		*out = *n;
		return NFS4_OK;
	}
	out->fd = fcntl(n->fd, F_DUPFD_CLOEXEC, 0);
	if (out->fd < 0)
		return tnfs_errno_to_nfs(errno);
	out->type = n->type;
	return NFS4_OK;
}

uint32_t tnfs_fs_root(const struct tnfs_export *x, struct tnfs_node *out)
{
	return tnfs_node_dup(&(struct tnfs_node){ .fd = x->rootfd, .type = S_IFDIR }, out);
}

bool tnfs_fs_is_root(const struct tnfs_export *x, const struct stat *st)
{
	return st->st_dev == x->dev && st->st_ino == x->root_ino;
}

/* Is the opened file inside the export?  Compares the path the kernel
 * reports for the descriptor with the export's real path. */
static bool inside_export(const struct tnfs_export *x, int fd)
{
	char pp[32], path[PATH_MAX + 1];
	proc_path(pp, fd);
	ssize_t n = readlink(pp, path, PATH_MAX);
	if (n <= 0)
		return false;
	path[n] = 0;
	if ((size_t)n < x->pathlen || memcmp(path, x->path, x->pathlen) != 0)
		return false;
	/* "/srv/a" must not accept "/srv/ab"; an export of "/" accepts all */
	return x->pathlen == 1 || path[x->pathlen] == 0 || path[x->pathlen] == '/';
}

/* Is fd, opened from a handle, a file of the export?  Fills st. */
static bool in_export(const struct tnfs_export *x, int fd, struct stat *st)
{
	return tnfs_fstat(fd, st) == 0 && st->st_dev == x->dev &&
	       (x->whole_fs || tnfs_fs_is_root(x, st) || inside_export(x, fd));
}

/*
 * A handle has one byte form, the one tnfs_fs_to_fh() gives (the export
 * reports unique_handles).  open_by_handle_at() accepts more: trailing
 * bytes, a length that is not a multiple of 4, a handle type with parent
 * information; each of those is NFS4ERR_BADHANDLE.
 */
static uint32_t canonical(const struct tnfs_export *x, int fd, const uint8_t *fh, uint32_t len)
{
	struct tnfs_fh c;
	uint32_t s = tnfs_fs_name_to_fh(x, fd, "", &c);
	if (s != NFS4_OK)
		return s;
	return c.len == len && memcmp(c.data, fh, len) == 0 ? NFS4_OK : NFS4ERR_BADHANDLE;
}

uint32_t tnfs_fs_from_fh(const struct tnfs_export *x, const uint8_t *fh,
			 uint32_t len, struct tnfs_node *out, struct stat *st, int64_t fsuid_now)
{
	*out = TNFS_NODE_NONE;
	if (x->inodes)
		return tnfs_ino_from_fh(x, fh, len, out, st);
	if (len <= FH_HDR || len > NFS4_FHSIZE || fh[0] != 1)
		return NFS4ERR_BADHANDLE;
	if (tnfs_fh_export_id(fh, len) != x->id)
		return NFS4ERR_STALE;
	/* A directory opened lately: the same checks as below, and a
	 * removed one (no links left) is stale.  Its descriptor is lent,
	 * not dup'ed: the node gives it back when put. */
	unsigned slot;
	int fd = tnfs_fhc_lend(x->dirs, fh, len, &slot);
	if (fd == TNFS_FHC_DEAD)
		return NFS4ERR_STALE;
	if (fd >= 0) {
		if (!in_export(x, fd, st) || st->st_nlink == 0) {
			/* Removed (the boundary check may fail first on a
			 * removed directory): dead for good.  Else moved out
			 * of the export, and it may come back. */
			if (tnfs_fstat(fd, st) == 0 && st->st_nlink == 0)
				tnfs_fhc_mark_dead(x->dirs, fh, len);
			else
				tnfs_fhc_forget(x->dirs, fh, len);
			tnfs_fhc_return(x->dirs, slot);
			return NFS4ERR_STALE;
		}
		out->fd = fd;
		out->type = st->st_mode & S_IFMT;
		out->lender = x->dirs;
		out->slot = slot;
		return NFS4_OK;
	}
	struct fh_buf fb;
	fb.h.handle_type = (int)((uint32_t)fh[4] << 24 | (uint32_t)fh[5] << 16 |
				 (uint32_t)fh[6] << 8 | fh[7]);
	fb.h.handle_bytes = len - FH_HDR;
	memcpy(fb.bytes, fh + FH_HDR, len - FH_HDR);
	/* open_by_handle_at needs CAP_DAC_READ_SEARCH, which a thread loses
	 * while its fsuid is not 0: act as root for this call only. */
	uint32_t fsuid = fsuid_now >= 0 ? (uint32_t)fsuid_now : (uint32_t)syscall(SYS_setfsuid, -1);
	if (fsuid != 0) {
		rpcrdma_svc_creds_switching(); /* see tnfs_fs_become */
		syscall(SYS_setfsuid, 0);
	}
	fd = open_by_handle_at(x->rootfd, &fb.h, O_PATH | O_CLOEXEC);
	int err = errno;
	/*
	 * ENOMEM here is seldom memory: seen on the CI host's ext4 under load
	 * for handles of files just removed, while other processes created
	 * files (an inode with the freed number being set up, most likely,
	 * which iget reports as ENOMEM).  A moment later the handle decodes as
	 * stale.  A few short tries before asking the client to retry (DELAY).
	 */
	for (int i = 0; fd < 0 && err == ENOMEM && i < 3; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		fd = open_by_handle_at(x->rootfd, &fb.h, O_PATH | O_CLOEXEC);
		err = errno;
	}
	if (fsuid != 0)
		syscall(SYS_setfsuid, fsuid);
	if (fd < 0) {
		if (err == EINVAL || err == EOVERFLOW)
			return NFS4ERR_BADHANDLE;
		if (err == ENOENT || err == ESTALE)
			return NFS4ERR_STALE;
		return tnfs_errno_to_nfs(err);
	}
	uint32_t s = in_export(x, fd, st) ? canonical(x, fd, fh, len) : NFS4ERR_STALE;
	if (s != NFS4_OK) {
		close(fd);
		return s;
	}
	if (S_ISDIR(st->st_mode))
		tnfs_fhc_add(x->dirs, fh, len, fd);
	out->fd = fd;
	out->type = st->st_mode & S_IFMT;
	return NFS4_OK;
}

static uint32_t handle_to_fh(const struct tnfs_export *x, struct fh_buf *fb,
			     struct tnfs_fh *out)
{
	out->len = FH_HDR + fb->h.handle_bytes;
	memset(out->data, 0, FH_HDR);
	out->data[0] = 1;
	out->data[1] = (uint8_t)(x->id >> 16);
	out->data[2] = (uint8_t)(x->id >> 8);
	out->data[3] = (uint8_t)x->id;
	uint32_t t = (uint32_t)fb->h.handle_type;
	out->data[4] = (uint8_t)(t >> 24);
	out->data[5] = (uint8_t)(t >> 16);
	out->data[6] = (uint8_t)(t >> 8);
	out->data[7] = (uint8_t)t;
	memcpy(out->data + FH_HDR, fb->bytes, fb->h.handle_bytes);
	return NFS4_OK;
}

uint32_t tnfs_fs_to_fh(const struct tnfs_export *x, const struct tnfs_node *n,
		       struct tnfs_fh *out)
{
	return tnfs_fs_name_to_fh(x, n->fd, "", out);
}

uint32_t tnfs_fs_name_to_fh(const struct tnfs_export *x, int dirfd,
			    const char *name, struct tnfs_fh *out)
{
	if (x->inodes)
		return tnfs_ino_to_fh(x, dirfd, name, out);
	struct fh_buf fb;
	int mnt;
	fb.h.handle_bytes = FH_HANDLE_MAX;
	int flags = name[0] ? 0 : AT_EMPTY_PATH;
	if (name_to_handle_at(dirfd, name, &fb.h, &mnt, flags) != 0)
		return errno == EOVERFLOW ? NFS4ERR_SERVERFAULT : tnfs_errno_to_nfs(errno);
	return handle_to_fh(x, &fb, out);
}

uint32_t tnfs_fs_check_name(const uint8_t *name, uint32_t len, char buf[256])
{
	if (len == 0)
		return NFS4ERR_INVAL;
	if (len > NAME_MAX)
		return NFS4ERR_NAMETOOLONG;
	if (memchr(name, '/', len) || memchr(name, 0, len))
		return NFS4ERR_BADNAME;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return NFS4ERR_BADNAME;
	memcpy(buf, name, len);
	buf[len] = 0;
	return NFS4_OK;
}

uint32_t tnfs_fs_stat(const struct tnfs_node *n, struct stat *st)
{
	if (n->fd < 0)
		return NFS4ERR_NOFILEHANDLE;
	/* an O_PATH descriptor: the file it names, a symbolic link itself */
	if (tnfs_fstat(n->fd, st) != 0)
		return tnfs_errno_to_nfs(errno);
	return NFS4_OK;
}

static uint32_t need_dir(const struct tnfs_node *dir)
{
	if (dir->fd >= 0 && dir->type)
		return dir->type == S_IFDIR ? NFS4_OK
		       : dir->type == S_IFLNK ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
	struct stat st;
	uint32_t s = tnfs_fs_stat(dir, &st);
	if (s != NFS4_OK)
		return s;
	if (S_ISLNK(st.st_mode))
		return NFS4ERR_SYMLINK;
	return S_ISDIR(st.st_mode) ? NFS4_OK : NFS4ERR_NOTDIR;
}

/* dir/name as an O_PATH node, never following a link; fills st. */
static uint32_t open_path(const struct tnfs_node *dir, const char *name,
			  struct tnfs_node *out, struct stat *st)
{
	int fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return tnfs_errno_to_nfs(errno);
	if (tnfs_fstat(fd, st) != 0) {
		uint32_t s = tnfs_errno_to_nfs(errno);
		close(fd);
		return s;
	}
	out->fd = fd;
	out->type = st->st_mode & S_IFMT;
	return NFS4_OK;
}

uint32_t tnfs_fs_lookup(const struct tnfs_export *x, const struct tnfs_node *dir,
			const char *name, struct tnfs_node *out)
{
	(void)x;
	*out = TNFS_NODE_NONE;
	uint32_t s = need_dir(dir);
	if (s != NFS4_OK)
		return s;
	struct stat st;
	s = open_path(dir, name, out, &st);
	/* The name is a single component in a directory of the export, so
	 * the result is inside it, unless it is another mount's root. */
	if (s == NFS4_OK && st.st_dev != x->dev) {
		tnfs_node_put(out);
		return NFS4ERR_XDEV;
	}
	return s;
}

uint32_t tnfs_fs_lookupp(const struct tnfs_export *x, const struct tnfs_node *n,
			 struct tnfs_node *out)
{
	*out = TNFS_NODE_NONE;
	struct stat st;
	uint32_t s = tnfs_fs_stat(n, &st);
	if (s != NFS4_OK)
		return s;
	if (!S_ISDIR(st.st_mode))
		return S_ISLNK(st.st_mode) ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
	if (tnfs_fs_is_root(x, &st))
		return NFS4ERR_NOENT;
	int fd = openat(n->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return tnfs_errno_to_nfs(errno);
	if (tnfs_fstat(fd, &st) != 0 || st.st_dev != x->dev) {
		close(fd);
		return NFS4ERR_NOENT;
	}
	out->fd = fd;
	out->type = S_IFDIR;
	return NFS4_OK;
}

/* The S_IFMT bits of the node's file (an inode's type never changes). */
static uint32_t node_type(const struct tnfs_node *n, mode_t *type)
{
	if (n->type) {
		*type = n->type;
		return NFS4_OK;
	}
	struct stat st;
	uint32_t s = tnfs_fs_stat(n, &st);
	*type = st.st_mode & S_IFMT;
	return s;
}

uint32_t tnfs_fs_open(const struct tnfs_node *n, int flags, int *fd)
{
	*fd = -1;
	mode_t t;
	uint32_t s = n->fd < 0 ? NFS4ERR_NOFILEHANDLE : node_type(n, &t);
	if (s != NFS4_OK)
		return s;
	/* Checked on the inode the O_PATH descriptor holds, which the open
	 * below reaches through /proc: the type cannot change in between. */
	mode_t want = flags & O_DIRECTORY ? S_IFDIR : S_IFREG;
	if (t != want)
		return t == S_IFDIR ? NFS4ERR_ISDIR : t == S_IFLNK ? NFS4ERR_SYMLINK :
		       want == S_IFDIR ? NFS4ERR_NOTDIR : NFS4ERR_WRONG_TYPE;
	char pp[32];
	proc_path(pp, n->fd);
	*fd = open(pp, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return *fd < 0 ? tnfs_errno_to_nfs(errno) : NFS4_OK;
}

/* An O_PATH descriptor of the file an open descriptor names. */
static int path_of(int fd)
{
	char pp[32];
	proc_path(pp, fd);
	return open(pp, O_PATH | O_CLOEXEC);
}

uint32_t tnfs_fs_create_file(const struct tnfs_node *dir, const char *name,
			     int accflags, mode_t mode, bool exclusive,
			     struct tnfs_node *out, int *fd, bool *created)
{
	*out = TNFS_NODE_NONE;
	*fd = -1;
	*created = false;
	uint32_t s = need_dir(dir);
	if (s != NFS4_OK)
		return s;
	/* O_EXCL never opens what exists (a FIFO, a device, a link) */
	int f = openat(dir->fd, name, accflags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (f < 0 && (errno != EEXIST || exclusive))
		return tnfs_errno_to_nfs(errno);
	if (f < 0) {
		/* It exists: look at what it is before opening it, and open
		 * only a regular file (tnfs_fs_open), from the inode looked
		 * at.  A FIFO would block the open for ever, a device would
		 * be opened by its driver. */
		struct tnfs_node n = TNFS_NODE_NONE;
		struct stat st;
		s = open_path(dir, name, &n, &st);
		if (s == NFS4_OK)
			s = tnfs_fs_open(&n, accflags, fd);
		if (s == NFS4_OK)
			*out = n;
		else
			tnfs_node_put(&n);
		return s;
	}
	*created = true;
	out->fd = path_of(f); /* the file made, whatever the name names now */
	out->type = S_IFREG;
	if (out->fd < 0) {
		s = tnfs_errno_to_nfs(errno);
		close(f);
		return s;
	}
	*fd = f;
	return NFS4_OK;
}

uint32_t tnfs_fs_mkobj(const struct tnfs_node *dir, const char *name,
		       uint32_t type, mode_t mode, const char *target,
		       dev_t rdev, struct tnfs_node *out)
{
	*out = TNFS_NODE_NONE;
	uint32_t s = need_dir(dir);
	if (s != NFS4_OK)
		return s;
	int rc;
	switch (type) {
	case NF4DIR: rc = mkdirat(dir->fd, name, mode & 07777); break;
	case NF4LNK: rc = symlinkat(target, dir->fd, name); break;
	case NF4BLK: rc = mknodat(dir->fd, name, S_IFBLK | (mode & 07777), rdev); break;
	case NF4CHR: rc = mknodat(dir->fd, name, S_IFCHR | (mode & 07777), rdev); break;
	case NF4SOCK: rc = mknodat(dir->fd, name, S_IFSOCK | (mode & 07777), 0); break;
	case NF4FIFO: rc = mknodat(dir->fd, name, S_IFIFO | (mode & 07777), 0); break;
	default: return NFS4ERR_BADTYPE;
	}
	if (rc != 0)
		return tnfs_errno_to_nfs(errno);
	out->fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return out->fd < 0 ? tnfs_errno_to_nfs(errno) : NFS4_OK;
}

uint32_t tnfs_fs_remove(const struct tnfs_node *dir, const char *name)
{
	uint32_t s = need_dir(dir);
	if (s != NFS4_OK)
		return s;
	/* Most names are not directories: try unlink first and rmdir only
	 * when the kernel says it is one (EISDIR; POSIX allows EPERM). */
	if (unlinkat(dir->fd, name, 0) == 0)
		return NFS4_OK;
	int err = errno;
	struct stat st;
	if (err != EISDIR && err != EPERM)
		return tnfs_errno_to_nfs(err);
	if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return tnfs_errno_to_nfs(errno);
	if (!S_ISDIR(st.st_mode))
		return tnfs_errno_to_nfs(err);
	if (unlinkat(dir->fd, name, AT_REMOVEDIR) != 0)
		return errno == EEXIST ? NFS4ERR_NOTEMPTY : tnfs_errno_to_nfs(errno);
	return NFS4_OK;
}

uint32_t tnfs_fs_rename(const struct tnfs_export *x,
			const struct tnfs_node *from, const char *oldname,
			const struct tnfs_node *to, const char *newname)
{
	uint32_t s = need_dir(from);
	if (s == NFS4_OK)
		s = need_dir(to);
	if (s != NFS4_OK)
		return s;
	if (renameat(from->fd, oldname, to->fd, newname) != 0)
		return errno == EEXIST ? NFS4ERR_EXIST : tnfs_errno_to_nfs(errno);
	if (x->inodes)
		tnfs_ino_renamed(x, from->fd, oldname, to->fd, newname);
	return NFS4_OK;
}

uint32_t tnfs_fs_link(const struct tnfs_node *file, const struct tnfs_node *dir,
		      const char *name)
{
	uint32_t s = need_dir(dir);
	if (s != NFS4_OK)
		return s;
	struct stat st;
	s = tnfs_fs_stat(file, &st);
	if (s != NFS4_OK)
		return s;
	if (S_ISDIR(st.st_mode))
		return NFS4ERR_ISDIR;
	if (linkat(file->fd, "", dir->fd, name, AT_EMPTY_PATH) != 0) {
		if (errno != ENOENT && errno != EPERM)
			return tnfs_errno_to_nfs(errno);
		/* without CAP_DAC_READ_SEARCH: through the magic link */
		char pp[32];
		proc_path(pp, file->fd);
		if (linkat(AT_FDCWD, pp, dir->fd, name, AT_SYMLINK_FOLLOW) != 0)
			return tnfs_errno_to_nfs(errno);
	}
	return NFS4_OK;
}

uint32_t tnfs_fs_readlink(const struct tnfs_node *n, char *buf, size_t cap,
			  size_t *len)
{
	struct stat st;
	uint32_t s = tnfs_fs_stat(n, &st);
	if (s != NFS4_OK)
		return s;
	if (!S_ISLNK(st.st_mode))
		return NFS4ERR_INVAL;
	ssize_t r = readlinkat(n->fd, "", buf, cap);
	if (r < 0)
		return tnfs_errno_to_nfs(errno);
	if ((size_t)r == cap)
		return NFS4ERR_NAMETOOLONG;
	*len = (size_t)r;
	return NFS4_OK;
}

static uint32_t set_times(const struct tnfs_node *n, const struct tnfs_sattr *a)
{
	struct timespec ts[2];
	ts[0].tv_sec = 0;
	ts[1].tv_sec = 0;
	ts[0].tv_nsec = a->atime_how == 0 ? UTIME_OMIT :
			a->atime_how == 1 ? UTIME_NOW : a->atime.tv_nsec;
	if (a->atime_how == 2)
		ts[0].tv_sec = a->atime.tv_sec;
	ts[1].tv_nsec = a->mtime_how == 0 ? UTIME_OMIT :
			a->mtime_how == 1 ? UTIME_NOW : a->mtime.tv_nsec;
	if (a->mtime_how == 2)
		ts[1].tv_sec = a->mtime.tv_sec;
	if (utimensat(n->fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0)
		return NFS4_OK;
	if (errno != EINVAL && errno != ENOENT && errno != EBADF)
		return tnfs_errno_to_nfs(errno);
	char pp[32];
	proc_path(pp, n->fd);
	return utimensat(AT_FDCWD, pp, ts, 0) == 0 ? NFS4_OK : tnfs_errno_to_nfs(errno);
}

/* The size change of SETATTR: ftruncate(2), on wfd or on a descriptor
 * opened for it. */
static uint32_t set_size(const struct tnfs_node *n, uint64_t size, int wfd)
{
	int fd = wfd;
	if (fd < 0) {
		uint32_t s = tnfs_fs_open(n, O_WRONLY, &fd);
		if (s != NFS4_OK)
			return s;
	}
	uint32_t s = ftruncate(fd, (off_t)size) == 0 ? NFS4_OK :
		     errno == EBADF ? NFS4ERR_OPENMODE : tnfs_errno_to_nfs(errno);
	if (fd != wfd)
		close(fd);
	return s;
}

uint32_t tnfs_fs_setattr(const struct tnfs_node *n, const struct tnfs_sattr *a, int wfd,
			 tnfs_setattr_hook *hook, void *hook_arg)
{
	/* Nothing to set (a CREATE or OPEN whose mode the create already
	 * gave): no fstat either. */
	if (!a->set_size && !a->set_mode && !a->set_uid && !a->set_gid && !a->atime_how &&
	    !a->mtime_how)
		return n->fd < 0 ? NFS4ERR_NOFILEHANDLE : NFS4_OK;
	struct stat st;
	uint32_t s = tnfs_fs_stat(n, &st);
	if (s != NFS4_OK)
		return s;
	char pp[32];
	proc_path(pp, n->fd);
	struct tnfs_sattr rest = *a;
	if (a->set_size) {
		if (S_ISDIR(st.st_mode))
			return NFS4ERR_ISDIR;
		if (!S_ISREG(st.st_mode))
			return NFS4ERR_INVAL;
		if (a->size > (uint64_t)INT64_MAX)
			return NFS4ERR_FBIG;
		struct tnfs_sattr step1 = { .set_size = true, .size = a->size,
					    .mtime_how = 1 };
		if (hook)
			hook(hook_arg, 1, &step1);
		/* ftruncate(2) sets ctime and mtime itself */
		if ((s = set_size(n, a->size, wfd)) != NFS4_OK)
			return s;
		rest.set_size = false;
		/* the truncate already set mtime to the server's time */
		if (rest.mtime_how == 1)
			rest.mtime_how = 0;
	}
	bool any = rest.set_mode || rest.set_uid || rest.set_gid ||
		   rest.atime_how || rest.mtime_how;
	if (!any)
		return NFS4_OK;
	if (hook)
		hook(hook_arg, 2, &rest);
	if (rest.set_uid || rest.set_gid) {
		uid_t u = rest.set_uid ? rest.uid : (uid_t)-1;
		gid_t g = rest.set_gid ? rest.gid : (gid_t)-1;
		if (fchownat(n->fd, "", u, g, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
			return tnfs_errno_to_nfs(errno);
	}
	if (rest.set_mode) {
		if (S_ISLNK(st.st_mode))
			return NFS4ERR_INVAL;
		if (chmod(pp, rest.mode & 07777) != 0)
			return tnfs_errno_to_nfs(errno);
	}
	if (rest.atime_how || rest.mtime_how)
		return set_times(n, &rest);
	return NFS4_OK;
}

uint32_t tnfs_fs_get_label(const struct tnfs_node *n, char *buf, size_t cap,
			   size_t *len)
{
	char pp[32];
	proc_path(pp, n->fd);
	ssize_t r = getxattr(pp, LABEL_XATTR, buf, cap);
	if (r < 0)
		return errno == ENODATA || errno == ENOTSUP ? NFS4ERR_NOTSUPP : tnfs_errno_to_nfs(errno);
	*len = (size_t)r;
	return NFS4_OK;
}

uint32_t tnfs_fs_set_label(const struct tnfs_node *n, const void *label, size_t len)
{
	char pp[32];
	proc_path(pp, n->fd);
	if (setxattr(pp, LABEL_XATTR, label, len, 0) != 0)
		return errno == ENOTSUP ? NFS4ERR_NOTSUPP : tnfs_errno_to_nfs(errno);
	return NFS4_OK;
}
