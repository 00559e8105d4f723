/* SPDX-License-Identifier: BSD-2-Clause */
/* The exports file parser; see exports.h. */
#include "exports.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANON_ID 65534u

__attribute__((format(printf, 5, 6)))
static int fail(char *err, size_t errlen, const char *name, unsigned line,
		const char *fmt, ...)
{
	if (errlen) {
		int n = snprintf(err, errlen, "%s:%u: ", name, line);
		if (n >= 0 && (size_t)n < errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

static bool parse_id(const char *s, size_t len, uint32_t *out)
{
	if (len == 0 || len > 10)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool opt_is(const char *o, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(o, word, len) == 0;
}

/* sec=F[:F...]: the flavours in order, each once. */
static int parse_sec(const char *name, unsigned line, const char *v, size_t len,
		     struct tnfs_export_entry *e, char *err, size_t errlen)
{
	static const char *const names[] = { "none", "sys", "krb5", "krb5i", "krb5p" };
	if (e->nsec)
		return fail(err, errlen, name, line, "sec= given twice");
	for (size_t i = 0; i <= len;) {
		size_t j = i;
		while (j < len && v[j] != ':')
			j++;
		uint8_t f = 0;
		for (uint8_t k = 0; k < TNFS_SEC_MAX; k++)
			if (opt_is(v + i, j - i, names[k]))
				f = (uint8_t)(TNFS_SEC_NONE + k);
		if (!f)
			return fail(err, errlen, name, line, "unknown security flavour '%.*s'",
				    (int)(j - i), v + i);
		if (memchr(e->sec, f, e->nsec))
			return fail(err, errlen, name, line, "flavour '%.*s' given twice",
				    (int)(j - i), v + i);
		e->sec[e->nsec++] = f;
		i = j + 1;
	}
	return 0;
}

static int parse_options(const char *name, unsigned line, const char *o, size_t len,
			 struct tnfs_export_entry *e, char *err, size_t errlen)
{
	size_t i = 0;
	while (i <= len) {
		size_t j = i;
		while (j < len && o[j] != ',')
			j++;
		const char *w = o + i;
		size_t wl = j - i;
		if (wl == 0)
			return fail(err, errlen, name, line, "empty option");
		if (opt_is(w, wl, "rw"))
			e->flags |= TNFS_EXP_RW;
		else if (opt_is(w, wl, "ro"))
			e->flags &= ~TNFS_EXP_RW;
		else if (opt_is(w, wl, "security_label"))
			e->flags |= TNFS_EXP_SECURITY_LABEL;
		else if (opt_is(w, wl, "root_squash") || opt_is(w, wl, "no_all_squash"))
			e->squash = TNFS_SQUASH_ROOT;
		else if (opt_is(w, wl, "no_root_squash"))
			e->squash = TNFS_SQUASH_NONE;
		else if (opt_is(w, wl, "all_squash"))
			e->squash = TNFS_SQUASH_ALL;
		else if (opt_is(w, wl, "sync") || opt_is(w, wl, "no_subtree_check") ||
			 opt_is(w, wl, "no_wdelay") || opt_is(w, wl, "fsid=0") ||
			 opt_is(w, wl, "fsid=root"))
			; /* what this server does anyway */
		else if (wl > 8 && memcmp(w, "anonuid=", 8) == 0) {
			if (!parse_id(w + 8, wl - 8, &e->anonuid))
				return fail(err, errlen, name, line, "bad anonuid '%.*s'", (int)(wl - 8), w + 8);
		} else if (wl > 8 && memcmp(w, "anongid=", 8) == 0) {
			if (!parse_id(w + 8, wl - 8, &e->anongid))
				return fail(err, errlen, name, line, "bad anongid '%.*s'", (int)(wl - 8), w + 8);
		} else if (wl >= 4 && memcmp(w, "sec=", 4) == 0) {
			int rc = parse_sec(name, line, w + 4, wl - 4, e, err, errlen);
			if (rc)
				return rc;
		} else if (opt_is(w, wl, "async"))
			return fail(err, errlen, name, line, "option 'async' is not supported (writes are always stable when acknowledged so)");
		else
			return fail(err, errlen, name, line, "unknown option '%.*s'", (int)wl, w);
		i = j + 1;
	}
	return 0;
}

static int parse_line(const char *name, unsigned line, const char *s, size_t len,
		      struct tnfs_export_entry *e, char *err, size_t errlen)
{
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t p0 = i;
	while (i < len && s[i] != ' ' && s[i] != '\t')
		i++;
	size_t plen = i - p0;
	if (s[p0] != '/')
		return fail(err, errlen, name, line, "export path must be absolute");
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	const char *o = s + i;
	size_t olen = len - i;
	while (olen && (o[olen - 1] == ' ' || o[olen - 1] == '\t' || o[olen - 1] == '\r'))
		olen--;
	e->path = strndup(s + p0, plen);
	if (!e->path)
		return -ENOMEM;
	e->flags = 0;
	e->squash = TNFS_SQUASH_ROOT;
	e->anonuid = ANON_ID;
	e->anongid = ANON_ID;
	e->nsec = 0;
	e->line = line;
	if (olen == 0)
		return 0;
	if (o[0] == '*') {
		o++;
		olen--;
		if (olen == 0)
			return 0;
	}
	if (o[0] == '(') {
		if (o[olen - 1] != ')')
			return fail(err, errlen, name, line, "missing ')'");
		o++;
		olen -= 2;
	} else if (memchr(o, '(', olen)) {
		return fail(err, errlen, name, line, "only '*' clients are supported");
	}
	if (memchr(o, ' ', olen) || memchr(o, '\t', olen))
		return fail(err, errlen, name, line, "more than one client entry");
	if (olen == 0)
		return 0;
	return parse_options(name, line, o, olen, e, err, errlen);
}

void tnfs_exports_free(struct tnfs_exports *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].path);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

int tnfs_exports_parse(const char *name, const char *text, size_t len,
		       struct tnfs_exports *out, char *err, size_t errlen)
{
	struct tnfs_exports r = { 0, NULL };
	out->n = 0;
	out->v = NULL;
	if (errlen)
		err[0] = 0;
	if (memchr(text, 0, len))
		return fail(err, errlen, name, 0, "NUL byte in file");
	unsigned line = 0;
	size_t i = 0;
	int rc = 0;
	while (i < len) {
		line++;
		size_t j = i;
		while (j < len && text[j] != '\n')
			j++;
		size_t l = j - i;
		const char *hash = memchr(text + i, '#', l);
		if (hash)
			l = (size_t)(hash - (text + i));
		size_t k = 0;
		while (k < l && (text[i + k] == ' ' || text[i + k] == '\t' || text[i + k] == '\r'))
			k++;
		if (k < l) {
			struct tnfs_export_entry *nv = realloc(r.v, (r.n + 1) * sizeof(*nv));
			if (!nv) {
				rc = -ENOMEM;
				goto fail;
			}
			r.v = nv;
			memset(&r.v[r.n], 0, sizeof(r.v[r.n]));
			rc = parse_line(name, line, text + i, l, &r.v[r.n], err, errlen);
			r.n++;
			if (rc)
				goto fail;
			for (size_t d = 0; d + 1 < r.n; d++)
				if (strcmp(r.v[d].path, r.v[r.n - 1].path) == 0) {
					rc = fail(err, errlen, name, line, "'%s' already exported on line %u",
						  r.v[d].path, r.v[d].line);
					goto fail;
				}
		}
		i = j + 1;
	}
	*out = r;
	return 0;
fail:
	tnfs_exports_free(&r);
	return rc;
}

int tnfs_exports_load(const char *file, struct tnfs_exports *out, char *err,
		      size_t errlen)
{
	out->n = 0;
	out->v = NULL;
	FILE *f = fopen(file, "r");
	if (!f) {
		int rc = -errno;
		if (errlen)
			snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return rc;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			if (cap > (1u << 20)) {
				free(buf);
				fclose(f);
				return fail(err, errlen, file, 0, "file too large");
			}
			char *n = realloc(buf, cap);
			if (!n) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = n;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		if (got == 0)
			break;
		len += got;
	}
	int rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc == 0)
		rc = tnfs_exports_parse(file, buf, len, out, err, errlen);
	free(buf);
	return rc;
}
