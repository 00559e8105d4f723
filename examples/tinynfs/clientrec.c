/* SPDX-License-Identifier: BSD-2-Clause */
/* The client record on stable storage; see clientrec.h. */
#include "clientrec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ID 1024u /* NFS4_OPAQUE_LIMIT */
#define TMP_FILE TNFS_CLIENTREC_FILE ".tmp"

void tnfs_clientrec_free(struct tnfs_clientrec *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		free(r->e[i].id);
	free(r->e);
	memset(r, 0, sizeof(*r));
}

long tnfs_clientrec_find(const struct tnfs_clientrec *r, const uint8_t *id, uint32_t len)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->e[i].len == len && memcmp(r->e[i].id, id, len) == 0)
			return (long)i;
	return -1;
}

int tnfs_clientrec_add(struct tnfs_clientrec *r, const uint8_t *id, uint32_t len)
{
	if (len == 0 || len > MAX_ID)
		return -EINVAL;
	if (tnfs_clientrec_find(r, id, len) >= 0)
		return 0;
	if (r->n >= TNFS_CLIENTREC_MAX)
		return -E2BIG;
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 16;
		struct tnfs_clientrec_entry *e = realloc(r->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->e = e;
		r->cap = cap;
	}
	uint8_t *copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, id, len);
	r->e[r->n++] = (struct tnfs_clientrec_entry){ .len = len, .id = copy };
	return 0;
}

void tnfs_clientrec_del(struct tnfs_clientrec *r, uint32_t i)
{
	if (i >= r->n)
		return;
	free(r->e[i].id);
	r->e[i] = r->e[--r->n];
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One line of hex digits (without its '\n') into id; its byte count, or
 * -EINVAL. */
static long parse_line(const uint8_t *p, size_t n, uint8_t id[MAX_ID])
{
	if (n == 0 || n % 2 || n / 2 > MAX_ID)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval(p[i]), lo = hexval(p[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		id[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(n / 2);
}

int tnfs_clientrec_parse(const uint8_t *buf, size_t len, struct tnfs_clientrec *out)
{
	static const char hdr[] = TNFS_CLIENTREC_HEADER;
	memset(out, 0, sizeof(*out));
	if (len < sizeof(hdr) - 1 || memcmp(buf, hdr, sizeof(hdr) - 1) != 0)
		return -EINVAL;
	int rc = 0;
	uint8_t id[MAX_ID];
	for (size_t off = sizeof(hdr) - 1; off < len;) {
		const uint8_t *nl = memchr(buf + off, '\n', len - off);
		if (!nl) {
			rc = -EINVAL; /* the last line has no end */
			break;
		}
		size_t n = (size_t)(nl - (buf + off));
		long idlen = parse_line(buf + off, n, id);
		if (idlen < 0) {
			rc = (int)idlen;
			break;
		}
		if ((rc = tnfs_clientrec_add(out, id, (uint32_t)idlen)) != 0)
			break;
		off += n + 1;
	}
	if (rc)
		tnfs_clientrec_free(out);
	return rc;
}

int tnfs_clientrec_load(int dirfd, struct tnfs_clientrec *out)
{
	memset(out, 0, sizeof(*out));
	/* O_NONBLOCK: a FIFO put there must not hang the start */
	int fd = openat(dirfd, TNFS_CLIENTREC_FILE,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : errno == ELOOP ? -EINVAL : -errno;
	struct stat st;
	int rc = 0;
	uint8_t *buf = NULL;
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		goto out;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > TNFS_CLIENTREC_MAX_BYTES) {
		rc = -EFBIG;
		goto out;
	}
	/* read one byte more than the size: a file growing meanwhile is
	 * still bounded, and seen */
	size_t cap = (size_t)st.st_size + 1, len = 0;
	buf = malloc(cap);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len == cap) {
			rc = -EINVAL; /* it changed under us: not our atomic file */
			goto out;
		}
	}
	rc = tnfs_clientrec_parse(buf, len, out);
out:
	free(buf);
	close(fd);
	return rc;
}

static char *put_hex(char *p, const struct tnfs_clientrec_entry *e)
{
	static const char digits[] = "0123456789abcdef";
	for (uint32_t i = 0; i < e->len; i++) {
		*p++ = digits[e->id[i] >> 4];
		*p++ = digits[e->id[i] & 15];
	}
	*p++ = '\n';
	return p;
}

static bool wanted_from_b(const struct tnfs_clientrec *a, const struct tnfs_clientrec_entry *e)
{
	return !e->reclaimed && tnfs_clientrec_find(a, e->id, e->len) < 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int tnfs_clientrec_store(int dirfd, const struct tnfs_clientrec *a,
			 const struct tnfs_clientrec *b)
{
	static const char hdr[] = TNFS_CLIENTREC_HEADER;
	size_t size = sizeof(hdr) - 1;
	for (uint32_t i = 0; i < a->n; i++)
		size += 2 * (size_t)a->e[i].len + 1;
	for (uint32_t i = 0; b && i < b->n; i++)
		if (wanted_from_b(a, &b->e[i]))
			size += 2 * (size_t)b->e[i].len + 1;
	char *buf = malloc(size), *p = buf;
	if (!buf)
		return -ENOMEM;
	memcpy(p, hdr, sizeof(hdr) - 1);
	p += sizeof(hdr) - 1;
	for (uint32_t i = 0; i < a->n; i++)
		p = put_hex(p, &a->e[i]);
	for (uint32_t i = 0; b && i < b->n; i++)
		if (wanted_from_b(a, &b->e[i]))
			p = put_hex(p, &b->e[i]);
	int rc = 0;
	int fd = openat(dirfd, TMP_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = write_all(fd, buf, size);
	if (rc == 0 && fsync(fd) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dirfd, TMP_FILE, dirfd, TNFS_CLIENTREC_FILE) != 0)
		rc = -errno;
	if (rc == 0 && fsync(dirfd) != 0)
		rc = -errno;
	if (rc)
		unlinkat(dirfd, TMP_FILE, 0);
out:
	free(buf);
	return rc;
}
