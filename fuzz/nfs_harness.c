/* SPDX-License-Identifier: BSD-2-Clause */
/* The tinynfs fuzz targets' shared setup, reset and checks; see
 * nfs_harness.h. */
#include "nfs_harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compound.h"
#include "fh_cache.h"
#include "nfs4/nfs4.h"

/* A fuzz driver keeps its scratch tree and servers across inputs. */
static char scratch[256];
static int rootfd = -1;
static ino_t d_ino, e_ino;
static struct tnfs_exports exports[2];
static struct tnfs_server *servers[2];
static struct tnfs_server *cur;
static uint8_t *reply;
static int lowest_fd = -1;
static bool dirty; /* an operation that can change the tree ran */
static bool verbose; /* NFSFZ_VERBOSE set: each operation's status on stderr */
static unsigned long long ninputs, ncompounds; /* printed at exit */
static uint64_t clientid;
static uint8_t sessionid[16];

/* The libFuzzer build's edge counters (-fsanitize-coverage's
 * inline-8bit-counters), absent in other builds. */
extern uint8_t __start___sancov_cntrs[] __attribute__((weak));
extern uint8_t __stop___sancov_cntrs[] __attribute__((weak));

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The server's own ids back on this thread (see nfsfz_abort). */
static void restore_ids(void)
{
	if (!servers[0])
		return;
	struct tnfs_fs_saved back = servers[0]->self;
	back.switched = true;
	tnfs_fs_unbecome(&back);
}

_Noreturn void nfsfz_abort(void)
{
	restore_ids();
	abort();
}

/* Called by ASan as it finds an error, before libFuzzer's death callback
 * writes the input out (unused in builds without ASan). */
void __asan_on_error(void);
void __asan_on_error(void)
{
	restore_ids();
}

static int nosync(void *arg, int fd, bool datasync)
{
	(void)arg, (void)fd, (void)datasync;
	return 0;
}

static void op_seen(void *arg, uint32_t op, uint32_t status, size_t estimate, size_t actual)
{
	(void)arg;
	if (verbose)
		fprintf(stderr, "  op %u: status %u (estimate %zu, actual %zu)\n", op, status,
			estimate, actual);
	CHECK(actual <= estimate); /* what the reply buffer was sized by */
	switch (op) {
	case OP_OPEN: case OP_CREATE: case OP_LINK: case OP_REMOVE: case OP_RENAME:
	case OP_SETATTR: case OP_WRITE: case OP_ALLOCATE: case OP_DEALLOCATE: case OP_COPY:
	case OP_CLONE: case OP_WRITE_SAME:
		dirty = true;
		break;
	default:
		break;
	}
}

/* Removes every entry of the directory dfd but keep1 and keep2. */
static void empty_dir(int dfd, const char *keep1, const char *keep2)
{
	bool again = true;
	while (again) {
		again = false;
		int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
		if (!dir)
			abort();
		struct dirent *e;
		while ((e = readdir(dir)) != NULL) {
			const char *n = e->d_name;
			if (!strcmp(n, ".") || !strcmp(n, "..") || (keep1 && !strcmp(n, keep1)) ||
			    (keep2 && !strcmp(n, keep2)))
				continue;
			again = true;
			if (unlinkat(fd, n, 0) == 0)
				continue;
			int sub = openat(fd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				abort();
			empty_dir(sub, NULL, NULL);
			close(sub);
			if (unlinkat(fd, n, AT_REMOVEDIR) != 0)
				abort();
		}
		closedir(dir);
	}
}

static void put_file(const char *name, const char *text)
{
	int fd = openat(rootfd, name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchown(fd, 65534, 65534) != 0 || fchmod(fd, 0644) != 0)
		abort();
	close(fd);
}

static void fix_dir(const char *name, unsigned uid)
{
	if (fchmodat(rootfd, name, 0755, 0) != 0 ||
	    fchownat(rootfd, name, uid, uid, AT_SYMLINK_NOFOLLOW) != 0)
		abort();
}

/* The tree of nfs_harness.h, d and e kept (both present and empty). */
static void fill_tree(void)
{
	fix_dir(".", 65534);
	fix_dir("d", 65534);
	fix_dir("e", 0);
	put_file("f", "some file content\n");
	put_file("d/g", "more\n");
	if (symlinkat("../../etc/passwd", rootfd, "l") != 0)
		abort();
}

static ino_t dir_ino(const char *name)
{
	struct stat st;
	if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return st.st_ino;
}

static void empty_sub(const char *name)
{
	int fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		abort();
	empty_dir(fd, NULL, NULL);
	close(fd);
}

static void free_servers(void)
{
	for (int i = 0; i < 2; i++) {
		tnfs_server_free(servers[i]);
		servers[i] = NULL;
	}
}

/* Makes the tree from nothing and both servers; false if the servers
 * cannot serve it (no file handles on this file system). */
static bool make_all(void)
{
	free_servers();
	empty_dir(rootfd, NULL, NULL);
	if (mkdirat(rootfd, "d", 0755) != 0 || mkdirat(rootfd, "e", 0755) != 0)
		abort();
	d_ino = dir_ino("d");
	e_ino = dir_ino("e");
	fill_tree();
	static const uint8_t boot[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	for (int i = 0; i < 2; i++) {
		struct tnfs_server_opts o = {
			.size = sizeof(o), .exports = &exports[i], .boot_verifier = boot,
		};
		if (tnfs_server_new(&o, &servers[i]) != 0) {
			free_servers();
			return false;
		}
		servers[i]->sync_hook = nosync;
		servers[i]->op_hook = op_seen;
		/* nfsfz_begin makes each input's state, as tnfs_server_new
		 * made this one (should the server ever configure its state
		 * further, so must nfsfz_begin) */
		tnfs_state_free(servers[i]->state);
		servers[i]->state = NULL;
	}
	return true;
}

static void cleanup(void)
{
	if (ninputs)
		fprintf(stderr, "nfs_harness: %llu COMPOUNDs in %llu inputs\n", ncompounds, ninputs);
	free_servers();
	if (rootfd >= 0) {
		empty_dir(rootfd, NULL, NULL);
		close(rootfd);
		rmdir(scratch);
	}
	tnfs_exports_free(&exports[0]);
	tnfs_exports_free(&exports[1]);
	free(reply);
}

/* Removes base/tinynfs-fuzz-<pid>-* of processes that are gone. */
static void remove_stale(const char *base)
{
	DIR *dir = opendir(base);
	if (!dir)
		return;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL) {
		long pid;
		char rest[64];
		if (sscanf(e->d_name, "tinynfs-fuzz-%ld-%63s", &pid, rest) != 2 || pid <= 0 ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		int fd = openat(dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		empty_dir(fd, NULL, NULL);
		close(fd);
		unlinkat(dirfd(dir), e->d_name, AT_REMOVEDIR);
	}
	closedir(dir);
}

static bool try_base(const char *base)
{
	if (!base || !base[0])
		return false;
	remove_stale(base);
	snprintf(scratch, sizeof(scratch), "%s/tinynfs-fuzz-%ld-XXXXXX", base, (long)getpid());
	if (!mkdtemp(scratch))
		return false;
	rootfd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		abort();
	char text[600], err[128];
	snprintf(text, sizeof(text), "%s *(rw,all_squash)\n", scratch);
	if (tnfs_exports_parse("fuzz", text, strlen(text), &exports[0], err, sizeof(err)) != 0)
		abort();
	snprintf(text, sizeof(text), "%s/d rw,all_squash\n%s/e ro\n", scratch, scratch);
	if (tnfs_exports_parse("fuzz", text, strlen(text), &exports[1], err, sizeof(err)) != 0)
		abort();
	if (make_all())
		return true;
	cleanup();
	rootfd = -1;
	memset(exports, 0, sizeof(exports));
	reply = NULL;
	return false;
}

static void init(void)
{
	verbose = getenv("NFSFZ_VERBOSE") != NULL;
	if (!try_base("/dev/shm") && !try_base(getenv("TMPDIR")) && !try_base("/tmp"))
		abort();
	atexit(cleanup);
	reply = malloc(NFSFZ_REPLY_MAX);
	if (!reply)
		abort();
}

static const uint8_t setup_eid[] = {
	0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,	/* tag "", minor 1, 1 op */
	0, 0, 0, 42,				/* EXCHANGE_ID */
	1, 1, 1, 1, 1, 1, 1, 1,			/* verifier */
	0, 0, 0, 4, 'f', 'u', 'z', 'z',		/* owner */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* flags, SP4_NONE, no impl id */
};

static uint8_t setup_cs[] = {
	0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,
	0, 0, 0, 43,				/* CREATE_SESSION */
	0, 0, 0, 0, 0, 0, 0, 0,			/* clientid (patched) */
	0, 0, 0, 1, 0, 0, 0, 0,			/* seqid 1, flags 0 */
	0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 8, 0, 0, 0, 16, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0,
	0x40, 0, 0, 0, 0, 0, 0, 0,		/* cb_program, no sec parms */
};

/* The lowest free descriptor moved from lowest to now: aborts, naming
 * them, if a descriptor at or above lowest is of the scratch tree (the
 * sanitizer's symbolizer, started by libFuzzer, takes some of its own). */
static void fd_check(int lowest)
{
	size_t n = strlen(scratch);
	bool leak = false;
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		abort();
	struct dirent *e;
	while ((e = readdir(dir)) != NULL) {
		int fd = atoi(e->d_name);
		char p[64], target[512];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		ssize_t len = readlink(p, target, sizeof(target) - 1);
		if (fd < lowest || fd == dirfd(dir) || len < (ssize_t)n ||
		    memcmp(target, scratch, n) != 0)
			continue;
		fprintf(stderr, "nfs_harness: left open after an input: %d -> %.*s\n", fd,
			(int)len, target);
		leak = true;
	}
	closedir(dir);
	CHECK(!leak);
}

struct tnfs_server *nfsfz_begin(bool pseudo)
{
	if (!reply)
		init();
	struct tnfs_server *s = cur = servers[pseudo];
	ninputs++;
	if (tnfs_state_new(s->boot, &s->state) != 0)
		abort();
	static const struct tnfs_cred cred = { .uid = 0 };
	size_t out;
	if (tnfs_compound(s, &cred, setup_eid, sizeof(setup_eid), reply, NFSFZ_REPLY_MAX, &out,
			  NULL, NULL) != 0)
		abort();
	memcpy(setup_cs + 16, reply + 12 + 8, 8); /* clientid from the reply */
	clientid = (uint64_t)be32(reply + 20) << 32 | be32(reply + 24);
	if (tnfs_compound(s, &cred, setup_cs, sizeof(setup_cs), reply, NFSFZ_REPLY_MAX, &out,
			  NULL, NULL) != 0 || out < 36 || be32(reply + 16) != 0)
		abort();
	memcpy(sessionid, reply + 20, 16);
	/* OPEN is NFS4ERR_GRACE until the client's RECLAIM_COMPLETE (RFC
	 * 8881 18.51.3): said here, not by a slot of the session */
	if (tnfs_state_reclaim_complete(s->state, clientid, false) != NFS4_OK)
		abort();
	/* the same setup every time: its edges would only cost libFuzzer
	 * time (it weighs every edge an input reaches) */
	uint8_t *cb = __start___sancov_cntrs, *ce = __stop___sancov_cntrs;
	if (cb && ce > cb)
		memset(cb, 0, (size_t)(ce - cb));
	dirty = false;
	return s;
}

void nfsfz_end(void)
{
	struct tnfs_server *s = cur;
	tnfs_state_free(s->state); /* closes the opens' descriptors */
	s->state = NULL;
	for (size_t i = 0; i < s->nexp; i++) {
		tnfs_fhc_free(s->exps[i]->dirs);
		s->exps[i]->dirs = tnfs_fhc_new();
	}
	if (!dirty) {
		/* nothing that changes the tree ran */
	} else if (dir_ino("d") != d_ino || dir_ino("e") != e_ino) {
		if (!make_all())
			abort();
	} else {
		empty_dir(rootfd, "d", "e");
		empty_sub("d");
		empty_sub("e");
		fill_tree();
	}
	int fd = dup(rootfd);
	if (fd < 0)
		abort();
	close(fd);
	if (lowest_fd < 0)
		lowest_fd = fd;
	/* a descriptor leaked, or the sanitizer took some */
	if (fd != lowest_fd)
		fd_check(fd < lowest_fd ? fd : lowest_fd);
	lowest_fd = fd;
}

uint64_t nfsfz_clientid(void)
{
	return clientid;
}

const uint8_t *nfsfz_sessionid(void)
{
	return sessionid;
}

size_t nfsfz_wrap_length(uint8_t *b, size_t len, unsigned seed)
{
	static int off = -1;
	if (off < 0)
		off = getenv("NFSFZ_NO_WRAP") != NULL;
	if (len < 4 || off)
		return len;
	for (int i = 0; i < 8; i++) {
		seed = seed * 1103515245u + 12345u;
		size_t o = 4 * ((seed >> 8) % (len / 4));
		if (be32(b + o) > len)
			continue;
		uint32_t v = 0xffffffffu - ((seed >> 4) & 15);
		b[o] = (uint8_t)(v >> 24);
		b[o + 1] = (uint8_t)(v >> 16);
		b[o + 2] = (uint8_t)(v >> 8);
		b[o + 3] = (uint8_t)v;
		return (seed >> 30) & 1 ? o + 4 : len;
	}
	return len;
}

size_t nfsfz_cap(uint8_t sel)
{
	static const size_t caps[4] = { 256, 4096, 65536, NFSFZ_REPLY_MAX };
	return caps[sel & 3];
}

int nfsfz_run(struct tnfs_server *s, const uint8_t *req, size_t len, size_t cap,
	      const uint8_t **rep, size_t *outp)
{
	static const struct tnfs_cred cred = { .uid = 1000, .gid = 1000, .ngroups = 2, .groups = { 1000, 10 } };
	size_t out = 0, boff = 1, blen = 1;
	*rep = reply;
	*outp = 0;
	ncompounds++;
	if (verbose)
		fprintf(stderr, "compound of %zu bytes\n", len);
	int rc = tnfs_compound(s, &cred, req, len, reply, cap, &out, &boff, &blen);
	if (verbose)
		fprintf(stderr, "  -> %d, status %u\n", rc, out >= 4 ? be32(reply) : 0);
	size_t total, bulk;
	int erc = tnfs_compound_estimate(s, req, len, &total, &bulk);
	if (rc == -EBADMSG) {
		CHECK(erc == -EBADMSG);
		return rc;
	}
	CHECK(erc == 0);
	CHECK(bulk <= total);
	if (rc != 0) {
		CHECK(boff == 0 && blen == 0);
		return rc;
	}
	CHECK(out <= cap);
	if (blen) {
		CHECK(boff >= 4 && boff % 4 == 0 && boff <= out && blen <= out - boff);
		CHECK(be32(reply + boff - 4) == blen);
	} else {
		CHECK(boff == 0);
	}
	/* status, tag, result count: decoded here, apart from tinynfs's XDR */
	CHECK(out >= 12);
	uint32_t taglen = be32(reply + 4);
	CHECK(taglen <= 1024 && (taglen + 3) / 4 * 4 <= out - 12);
	uint32_t n = be32(reply + 8 + (taglen + 3) / 4 * 4);
	CHECK(n <= len / 4);
	*outp = out;
	return 0;
}
