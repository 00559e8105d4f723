/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The export backend: NFS operations on a real directory tree.
 *
 * File handles come from name_to_handle_at(2) and are opened again with
 * open_by_handle_at(2), so they survive a server restart (this needs
 * CAP_DAC_READ_SEARCH; without it, or when asked to, the export falls
 * back to inode-number handles with a path table, see fs_inode.h, which
 * do not survive a restart).  Handle layout
 * (at most NFS4_FHSIZE bytes):
 *     byte 0: 1 (layout version)   bytes 1..3: export id (big endian)
 *     bytes 4..7: handle_type (big endian)
 *     bytes 8..: f_handle bytes
 * The export id is tnfs_export_id() of the path the exports file names,
 * so a handle does not depend on the order of the exports file.
 * A handle that does not parse, or is not in the one byte form
 * tnfs_fs_to_fh() gives (unique_handles), is NFS4ERR_BADHANDLE; one of
 * another export, or whose file is gone (ESTALE) is NFS4ERR_STALE; one
 * whose file lies outside the export
 * (checked on the path the kernel reports for the opened file) is
 * NFS4ERR_STALE as well, so no file outside the export can be reached.
 * A handle of one of the directories opened lately is served from the
 * export's cache (fh_cache.h) under the same checks.
 *
 * Names are single components: empty -> NFS4ERR_INVAL, "." or ".." or
 * containing '/' or NUL -> NFS4ERR_BADNAME, longer than NAME_MAX ->
 * NFS4ERR_NAMETOOLONG.  Every lookup is openat(dirfd, name,
 * O_PATH|O_NOFOLLOW): symlinks are never followed on the server, and no
 * FIFO or device is ever opened for its content (tnfs_fs_open()).  LOOKUPP
 * of the export root is NFS4ERR_NOENT.
 *
 * Nodes are O_PATH descriptors owned by their holder (close with
 * tnfs_node_put()).  Operations run with the credentials the caller set on
 * this thread with tnfs_fs_become(), so the kernel checks permissions.
 * Functions return an nfsstat4.
 */
#ifndef TINYNFS_FS_H
#define TINYNFS_FS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "exports.h"
#include "nfs4/nfs4.h"

/* RPCSEC_GSS services (RFC 2203 rpc_gss_service_t); 0: not RPCSEC_GSS. */
enum { TNFS_GSS_SVC_NONE = 1, TNFS_GSS_SVC_INTEGRITY = 2, TNFS_GSS_SVC_PRIVACY = 3 };
#define TNFS_PRINCIPAL_MAX 256

struct tnfs_cred {
	uint32_t uid, gid;
	uint32_t ngroups;
	uint32_t groups[16];
	bool anon; /* AUTH_NONE: the export's anonuid and anongid */
	/* RPCSEC_GSS: the service of the call (TNFS_GSS_SVC_*) and the
	 * authenticated principal's name; 0 and "" for AUTH_SYS and
	 * AUTH_NONE (rpc.c: tnfs_rpc_cred) */
	uint32_t gss_service;
	char principal[TNFS_PRINCIPAL_MAX];
};

/* The principals of two calls are the same, as Linux's nfsd compares them
 * (same_creds): both RPCSEC_GSS or neither, the same uid, gid and groups
 * (AUTH_NONE: both anonymous), and the same principal name.  The AUTH_SYS
 * machine name is not part of it.  State protection (RFC 8881 2.10.8.3)
 * asks this one function. */
bool tnfs_same_principal(const struct tnfs_cred *a, const struct tnfs_cred *b);
/* SP4_MACH_CRED (RFC 8881 18.35.3): the call `req` comes from the machine
 * credential `mach` the client ID was made with, integrity protected
 * (RPCSEC_GSS krb5i or krb5p) -- nfsd4_mach_creds_match.  Always false
 * for AUTH_SYS and AUTH_NONE, which protect nothing. */
bool tnfs_machine_cred(const struct tnfs_cred *mach, const struct tnfs_cred *req);
struct tnfs_export;
/* The call's flavour (enum tnfs_sec). */
unsigned tnfs_cred_sec(const struct tnfs_cred *c);
/* Does export x take a call of c's flavour (RFC 8881 2.6.3.1)?  Its sec=
 * list; without one AUTH_SYS and AUTH_NONE (nfsd's default). */
bool tnfs_export_sec_ok(const struct tnfs_export *x, const struct tnfs_cred *c);

struct tnfs_fh {
	uint32_t len;
	uint8_t data[NFS4_FHSIZE];
};

struct tnfs_fh_cache;
struct tnfs_node {
	int fd; /* O_PATH, or -1 when empty */
	/* S_IFMT bits of the file when known (an inode's type never
	 * changes), 0 when not: spares an fstat where only the type is
	 * wanted (tnfs_fs_lookup and the directory operations) */
	mode_t type;
	/* not NULL: fd is not the node's but lent by this directory cache
	 * (fh_cache.h, slot `slot`): tnfs_node_put gives it back instead of
	 * closing it, tnfs_node_dup takes another loan instead of a dup.
	 * A PUTFH of a cached directory makes no system call for it. */
	struct tnfs_fh_cache *lender;
	unsigned slot;
};
#define TNFS_NODE_NONE ((struct tnfs_node){ .fd = -1, .type = 0, .lender = NULL, .slot = 0 })

struct tnfs_export {
	int rootfd; /* O_RDONLY | O_DIRECTORY (open_by_handle_at refuses O_PATH) */
	char *path; /* realpath of the root, owned */
	size_t pathlen;
	dev_t dev;
	ino_t root_ino;
	/* the root of a mount of its whole file system (mountinfo.h): every
	 * file with st_dev == dev is inside, no path check needed */
	bool whole_fs;
	uint64_t fsid_major, fsid_minor;
	uint32_t id; /* tnfs_export_id() of the configured path (24 bits) */
	uint32_t index; /* position in the server's export list (its junction) */
	uint32_t flags; /* TNFS_EXP_* */
	enum tnfs_squash squash;
	uint32_t anonuid, anongid;
	uint8_t sec[TNFS_SEC_MAX]; /* sec= (exports.h); nsec 0: none given */
	uint8_t nsec;
	/* fallback handles (fs_inode.h): the path table, NULL when
	 * name_to_handle_at handles are used */
	struct tnfs_ino_table *inodes;
	/* opened directories by handle (fh_cache.h); NULL: none */
	struct tnfs_fh_cache *dirs;
};

/* Thread credentials: the server's own (tnfs_fs_self()), or those saved by
 * tnfs_fs_become() for tnfs_fs_unbecome(). */
struct tnfs_fs_saved {
	bool switched;
	uint32_t uid, gid;
	int ngroups;
	uint32_t groups[64];
};

/* Opens an export's root.  -errno on failure (-ENOTDIR if not a
 * directory).  inode_handles: use the fallback handles even if
 * open_by_handle_at works (tests). */
int tnfs_export_open(const struct tnfs_export_entry *e, bool inode_handles,
		     struct tnfs_export **out);

/* The 24-bit id an export's handles carry (bytes 1..3): FNV-1a of the
 * path as the exports file gives it, folded. */
uint32_t tnfs_export_id(const char *path);
/* The export id of a handle of either export layout (1 or 2), or -1 if
 * the bytes are not one. */
int64_t tnfs_fh_export_id(const uint8_t *fh, uint32_t len);
void tnfs_export_close(struct tnfs_export *x);

/* The credentials an RPC caller acts with on this export, squashed as
 * Linux nfsd squashes them (fs_cred.c): all_squash and AUTH_NONE give
 * anonuid, anongid and no supplementary groups; root_squash turns uid 0
 * into anonuid and gid 0 into anongid, the primary group and each one of
 * the list, and keeps the other groups; (uid_t)-1 and (gid_t)-1 are the
 * anonymous ids, and a supplementary (gid_t)-1 is dropped. */
void tnfs_export_squash(const struct tnfs_export *x, const struct tnfs_cred *in,
			struct tnfs_cred *out);

/* Records this thread's file-system ids and groups in `self` (the ids the
 * server acts with between requests).  NFS4ERR_SERVERFAULT if they cannot
 * be read. */
uint32_t tnfs_fs_self(struct tnfs_fs_saved *self);

/*
 * Switches this thread's file-system ids to `c`.  Undo it with unbecome.
 * The thread must hold the ids recorded in `self`.  When `c` equals them,
 * nothing is switched and no system call is made.  This is the common case
 * for a root client on a no_root_squash export.  Otherwise the switch
 * costs five system calls and the undo three.
 */
uint32_t tnfs_fs_become(const struct tnfs_cred *c, const struct tnfs_fs_saved *self,
			struct tnfs_fs_saved *saved);
void tnfs_fs_unbecome(struct tnfs_fs_saved *saved);

uint32_t tnfs_errno_to_nfs(int err);

/* fstat(2) as the system call.  glibc's fstat is fstatat(fd, "",
 * AT_EMPTY_PATH), which on Linux 6.1 copies the empty name into a fresh
 * 4 KiB buffer first: a tenth of a small COMPOUND's time in the kernel. */
static inline int tnfs_fstat(int fd, struct stat *st)
{
#if defined(__x86_64__) && defined(SYS_fstat)
	return (int)syscall(SYS_fstat, fd, st);
#else
	return fstat(fd, st);
#endif
}

/* Closes the node's descriptor, or gives back its loan. */
void tnfs_node_put(struct tnfs_node *n);
/* A second node of the same file: a dup of the descriptor, or another
 * loan of a lent one (no system call). */
uint32_t tnfs_node_dup(const struct tnfs_node *n, struct tnfs_node *out);

uint32_t tnfs_fs_root(const struct tnfs_export *x, struct tnfs_node *out);
bool tnfs_fs_is_root(const struct tnfs_export *x, const struct stat *st);
/* The node of handle fh; *st is its stat, taken for the export checks
 * (filled when NFS4_OK).  fsuid: this thread's file-system uid when the
 * caller knows it (a handle not cached is opened as root), -1 to ask
 * the kernel (a system call). */
uint32_t tnfs_fs_from_fh(const struct tnfs_export *x, const uint8_t *fh,
			 uint32_t len, struct tnfs_node *out, struct stat *st, int64_t fsuid);
uint32_t tnfs_fs_to_fh(const struct tnfs_export *x, const struct tnfs_node *n,
		       struct tnfs_fh *out);
/* Handle of dir/name without opening it (for READDIR). */
uint32_t tnfs_fs_name_to_fh(const struct tnfs_export *x, int dirfd,
			    const char *name, struct tnfs_fh *out);

/* Checks a component name and copies it NUL-terminated into buf[256]. */
uint32_t tnfs_fs_check_name(const uint8_t *name, uint32_t len, char buf[256]);

uint32_t tnfs_fs_stat(const struct tnfs_node *n, struct stat *st);
uint32_t tnfs_fs_lookup(const struct tnfs_export *x, const struct tnfs_node *dir,
			const char *name, struct tnfs_node *out);
uint32_t tnfs_fs_lookupp(const struct tnfs_export *x, const struct tnfs_node *n,
			 struct tnfs_node *out);

/*
 * Opens the node's file for I/O (O_RDONLY/O_WRONLY/O_RDWR plus flags) as
 * the caller: a regular file, or a directory when flags has O_DIRECTORY,
 * and nothing else, so that no FIFO, socket or device is ever opened
 * (NFS4ERR_ISDIR, NFS4ERR_SYMLINK, NFS4ERR_NOTDIR or NFS4ERR_WRONG_TYPE,
 * from the type of the node's own inode: no race with a rename).  The
 * open never waits: the descriptor is O_NONBLOCK, and a file whose lease
 * another process holds is NFS4ERR_DELAY instead of a wait for the lease
 * break.
 */
uint32_t tnfs_fs_open(const struct tnfs_node *n, int flags, int *fd);

/*
 * May the caller, whose ids this thread holds (fsuid `fsuid`), read or
 * write the data of the file `st` describes?  Asked on every READ, WRITE,
 * SEEK and size change, whatever stateid the caller shows, as Linux nfsd
 * does: the owner always may (NFSD_MAY_OWNER_OVERRIDE), others as the
 * kernel says for the mode bits and ACLs, and a regular file that may be
 * executed may be read.  NFS4_OK or NFS4ERR_ACCESS.
 */
uint32_t tnfs_fs_may_io(const struct tnfs_node *n, const struct stat *st, uint32_t fsuid,
			bool write);

/* tnfs_fs_open() for a caller tnfs_fs_may_io() has let through: where the
 * mode bits refuse the open (the owner override, read of an executable),
 * opens with the server's rights. */
uint32_t tnfs_fs_open_checked(const struct tnfs_node *n, int flags, int *fd);

/* Creates or opens dir/name as a regular file; *created says whether it
 * was created.  exclusive: fail with NFS4ERR_EXIST if it exists. */
uint32_t tnfs_fs_create_file(const struct tnfs_node *dir, const char *name,
			     int accflags, mode_t mode, bool exclusive,
			     struct tnfs_node *out, int *fd, bool *created);

/* CREATE: type NF4DIR, NF4LNK (target), NF4BLK/NF4CHR (rdev), NF4SOCK,
 * NF4FIFO; other types are NFS4ERR_BADTYPE. */
uint32_t tnfs_fs_mkobj(const struct tnfs_node *dir, const char *name,
		       uint32_t type, mode_t mode, const char *target,
		       dev_t rdev, struct tnfs_node *out);

uint32_t tnfs_fs_remove(const struct tnfs_node *dir, const char *name);
uint32_t tnfs_fs_rename(const struct tnfs_export *x,
			const struct tnfs_node *from, const char *oldname,
			const struct tnfs_node *to, const char *newname);
uint32_t tnfs_fs_link(const struct tnfs_node *file, const struct tnfs_node *dir,
		      const char *name);
uint32_t tnfs_fs_readlink(const struct tnfs_node *n, char *buf, size_t cap,
			  size_t *len);

/* Attribute changes for SETATTR and for creation. */
struct tnfs_sattr {
	bool set_size, set_mode, set_uid, set_gid;
	uint64_t size;
	uint32_t mode, uid, gid;
	/* 0: leave, 1: set to server time, 2: set to the given time */
	int atime_how, mtime_how;
	struct timespec atime, mtime;
};

/* Test hook: called for each file-system call SETATTR makes; `step` is 1
 * for the size change, 2 for the rest; `what` describes what it changes. */
typedef void tnfs_setattr_hook(void *arg, int step, const struct tnfs_sattr *what);

/* Applies `a`.  A size change is applied alone first (ftruncate, which
 * sets ctime and mtime) on `wfd`, a descriptor of the file open for
 * writing, or when wfd is -1 on one tnfs_fs_open() gives (never
 * truncate(2), which waits for a lease break); then the remaining
 * attributes; the second step is skipped when nothing but "mtime = server
 * time" is left. */
uint32_t tnfs_fs_setattr(const struct tnfs_node *n, const struct tnfs_sattr *a, int wfd,
			 tnfs_setattr_hook *hook, void *hook_arg);

/* Security label ("security.selinux" xattr).  NFS4ERR_NOTSUPP where the
 * file system has none. */
uint32_t tnfs_fs_get_label(const struct tnfs_node *n, char *buf, size_t cap,
			   size_t *len);
uint32_t tnfs_fs_set_label(const struct tnfs_node *n, const void *label, size_t len);

#endif
