/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: NFSv4 COMPOUND processing of the tinynfs core
 * (examples/tinynfs) against a scratch directory.
 *
 * Input: one byte choosing the reply buffer size (bits 0-1) and the
 * exports (bit 2), then COMPOUND bodies,
 * each prefixed by a 16-bit big-endian length (a last, unprefixed or
 * short chunk is used as it is).  Each input gets a fresh server with a
 * fixed boot verifier, on which a client has already done EXCHANGE_ID and
 * CREATE_SESSION, so its session id is known to the corpus:
 *     01 02 03 04 05 06 07 08  00 00 00 01  00 00 00 01
 * The export is rw with all_squash (uid 65534 owns the scratch tree), so
 * the fuzzer can create, write, rename and remove, but not make device
 * nodes.  With bit 2 of the first byte set, the server has two exports
 * instead, <scratch>/d (rw, all_squash) and <scratch>/e (ro), under the
 * pseudo file system (PUTROOTFH is the pseudo root "/", LOOKUP "tmp"
 * the next pseudo directory).  The scratch directory is removed at exit.
 *
 * Checked: the reply never exceeds its buffer, its header decodes, its
 * result count matches, the COMPOUND estimate decodes wherever the
 * processing does, and a reported READ data range lies in the reply right
 * after a length word that matches it.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compound.h"
#include "server.h"
#include "xdr.h"

/* Checks that stay on whatever NDEBUG says. */
#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fuzz driver may keep its scratch directory across inputs. */
static char scratch[64];
static struct tnfs_exports exports, exports2;
static uint8_t *reply;

#define REPLY_MAX (1u << 21)

static int rm_cb(const char *p, const struct stat *sb, int f, struct FTW *w)
{
	(void)sb, (void)f, (void)w;
	return remove(p);
}

static void cleanup(void)
{
	if (scratch[0])
		nftw(scratch, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	tnfs_exports_free(&exports);
	tnfs_exports_free(&exports2);
	free(reply);
}

static void put_file(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", scratch, name);
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			abort();
		if (fchown(fd, 65534, 65534) != 0)
			abort();
		close(fd);
	}
}

static void init(void)
{
	strcpy(scratch, "/tmp/tinynfs-fuzz-XXXXXX");
	if (!mkdtemp(scratch))
		abort();
	atexit(cleanup);
	if (chmod(scratch, 0755) != 0 || chown(scratch, 65534, 65534) != 0)
		abort();
	char p[128];
	snprintf(p, sizeof(p), "%s/d", scratch);
	if (mkdir(p, 0755) != 0)
		abort();
	if (chown(p, 65534, 65534) != 0)
		abort();
	put_file("f", "some file content\n");
	put_file("d/g", "more\n");
	snprintf(p, sizeof(p), "%s/l", scratch);
	if (symlink("../../etc/passwd", p) != 0)
		abort();
	char text[128];
	snprintf(text, sizeof(text), "%s *(rw,all_squash)\n", scratch);
	char err[128];
	if (tnfs_exports_parse("fuzz", text, strlen(text), &exports, err, sizeof(err)) != 0)
		abort();
	snprintf(p, sizeof(p), "%s/e", scratch);
	if (mkdir(p, 0755) != 0)
		abort();
	char text2[256];
	snprintf(text2, sizeof(text2), "%s/d rw,all_squash\n%s/e ro\n", scratch, scratch);
	if (tnfs_exports_parse("fuzz", text2, strlen(text2), &exports2, err, sizeof(err)) != 0)
		abort();
	reply = malloc(REPLY_MAX);
	if (!reply)
		abort();
}

static void run(struct tnfs_server *s, const uint8_t *req, size_t len, size_t cap)
{
	static const struct tnfs_cred cred = { .uid = 1000, .gid = 1000, .ngroups = 2, .groups = { 1000, 10 } };
	size_t out = 0, boff = 1, blen = 1;
	int rc = tnfs_compound(s, &cred, req, len, reply, cap, &out, &boff, &blen);
	size_t total, bulk;
	int erc = tnfs_compound_estimate(s, req, len, &total, &bulk);
	if (rc == -EBADMSG) {
		CHECK(erc == -EBADMSG);
		return;
	}
	CHECK(erc == 0);
	CHECK(bulk <= total);
	if (rc != 0) {
		CHECK(boff == 0 && blen == 0);
		return;
	}
	CHECK(out <= cap);
	if (blen) {
		CHECK(boff >= 4 && boff % 4 == 0 && boff <= out && blen <= out - boff);
		const uint8_t *w = reply + boff - 4;
		CHECK((size_t)((uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 |
			       (uint32_t)w[2] << 8 | w[3]) == blen);
	} else {
		CHECK(boff == 0);
	}
	struct xdr_in x;
	xdr_in_init(&x, reply, out);
	(void)xdr_get_u32(&x);
	(void)xdr_get_opaque(&x, 1024);
	uint32_t n = xdr_get_u32(&x);
	CHECK(!x.bad);
#ifdef TNFS_FUZZ_VERBOSE /* for checking what a corpus reaches */
	fprintf(stderr, "compound: status %u, %u results, %zu bytes\n",
		(unsigned)(reply[0] << 24 | reply[1] << 16 | reply[2] << 8 | reply[3]),
		(unsigned)n, out);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t op = xdr_get_u32(&x), st = xdr_get_u32(&x);
		fprintf(stderr, "   op %u: %u\n", op, st);
		if (st || i + 1 == n)
			break;
		/* result bodies are not walked: only the first op is exact */
		break;
	}
#endif
	CHECK(n <= len / 4);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!scratch[0])
		init();
	static const uint8_t boot[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct tnfs_server_opts o = {
		.size = sizeof(o), .exports = size && (data[0] & 4) ? &exports2 : &exports,
		.boot_verifier = boot,
	};
	struct tnfs_server *s;
	if (tnfs_server_new(&o, &s) != 0)
		abort();
	static const struct tnfs_cred cred = { .uid = 0 };
	size_t out;
	if (tnfs_compound(s, &cred, setup_eid, sizeof(setup_eid), reply, REPLY_MAX, &out, NULL,
			  NULL) != 0)
		abort();
	memcpy(setup_cs + 16, reply + 12 + 8, 8); /* clientid from the reply */
	if (tnfs_compound(s, &cred, setup_cs, sizeof(setup_cs), reply, REPLY_MAX, &out, NULL,
			  NULL) != 0)
		abort();

	static const size_t caps[4] = { 256, 4096, 65536, REPLY_MAX };
	size_t cap = size ? caps[data[0] & 3] : REPLY_MAX;
	const uint8_t *p = size ? data + 1 : data;
	size_t left = size ? size - 1 : 0;
	while (left > 0) {
		size_t len = left;
		if (left >= 2) {
			size_t want = (size_t)p[0] << 8 | p[1];
			if (want <= left - 2) {
				p += 2;
				left -= 2;
				len = want;
			}
		}
		/* an exactly sized copy, so an overread is caught */
		uint8_t *req = malloc(len ? len : 1);
		if (!req)
			abort();
		memcpy(req, p, len);
		run(s, req, len, cap);
		free(req);
		p += len;
		left -= len;
	}
	tnfs_server_free(s);
	return 0;
}
