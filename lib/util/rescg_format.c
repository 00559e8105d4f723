/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource controller text formats: rdma.max (parse and print), rdma.current
 * (print) and the limits file (parse and print).  The rules are written in
 * include/rpcrdma/rescg.h.  Parsing fills a struct rpcrdma__rescg_update
 * without touching the controller; rpcrdma__rescg_apply() then commits it
 * all or nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescg_internal.h"

#define QUOTE_MAX 32

/* ---- error messages */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t errsize, const char *fmt, ...)
{
	if (err && errsize) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errsize, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Copies at most QUOTE_MAX bytes of s[0..len) for a message. */
static const char *quote(char out[QUOTE_MAX + 4], const char *s, size_t len)
{
	size_t n = len > QUOTE_MAX ? QUOTE_MAX : len;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (len > n) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

/* ---- the update being built */

static void update_free(struct rpcrdma__rescg_update *upd)
{
	free(upd->lines);
	free(upd->sections);
	memset(upd, 0, sizeof(*upd));
}

static struct rpcrdma__rescg_line *line_add(struct rpcrdma__rescg_update *upd)
{
	if (upd->nlines == upd->linecap) {
		size_t cap = upd->linecap ? upd->linecap * 2 : 8;
		struct rpcrdma__rescg_line *l = realloc(upd->lines, cap * sizeof(*l));
		if (!l)
			return NULL;
		upd->lines = l;
		upd->linecap = cap;
	}
	struct rpcrdma__rescg_line *ln = &upd->lines[upd->nlines++];
	memset(ln, 0, sizeof(*ln));
	return ln;
}

static struct rpcrdma__rescg_section *section_add(struct rpcrdma__rescg_update *upd)
{
	if (upd->nsections == upd->seccap) {
		size_t cap = upd->seccap ? upd->seccap * 2 : 4;
		struct rpcrdma__rescg_section *s = realloc(upd->sections, cap * sizeof(*s));
		if (!s)
			return NULL;
		upd->sections = s;
		upd->seccap = cap;
	}
	struct rpcrdma__rescg_section *sec = &upd->sections[upd->nsections++];
	memset(sec, 0, sizeof(*sec));
	sec->first = upd->nlines;
	return sec;
}

/* ---- tokens */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Next blank-separated token from *p to end: sets *tok and *toklen; false at end. */
static bool next_token(const char **p, const char *end, const char **tok, size_t *toklen)
{
	const char *s = *p;
	while (s < end && is_blank(*s))
		s++;
	if (s == end) {
		*p = s;
		return false;
	}
	const char *e = s;
	while (e < end && !is_blank(*e))
		e++;
	*tok = s;
	*toklen = (size_t)(e - s);
	*p = e;
	return true;
}

/*
 * Parses a value: "max" or a decimal 0 .. RPCRDMA_RESCG_MAX without sign or
 * leading zeros.
 */
static int parse_value(const char *s, size_t len, size_t lineno, const char *key, uint32_t *out,
		       char *err, size_t errsize)
{
	char q[QUOTE_MAX + 4];
	if (len == 0)
		return fail(err, errsize, "line %zu: missing value for %s", lineno, key);
	if (len == 3 && memcmp(s, "max", 3) == 0) {
		*out = RPCRDMA_RESCG_MAX;
		return 0;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return fail(err, errsize, "line %zu: malformed number '%s' for %s", lineno,
				    quote(q, s, len), key);
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > RPCRDMA_RESCG_MAX)
			return fail(err, errsize,
				    "line %zu: value '%s' for %s out of range (at most %u or max)",
				    lineno, quote(q, s, len), key, RPCRDMA_RESCG_MAX);
	}
	if (len > 1 && s[0] == '0')
		return fail(err, errsize, "line %zu: leading zero in '%s' for %s", lineno,
			    quote(q, s, len), key);
	*out = (uint32_t)v;
	return 0;
}

/* Parses one rdma.max line [p, end) (not blank) into a new line of upd. */
static int parse_max_line(struct rpcrdma__rescg_update *upd, size_t first, const char *p,
			  const char *end, size_t lineno, char *err, size_t errsize)
{
	char q[QUOTE_MAX + 4];
	const char *tok;
	size_t len;

	(void)next_token(&p, end, &tok, &len); /* the caller saw a non-blank byte */
	if (!rpcrdma__rescg_name_ok(tok, len))
		return fail(err, errsize, "line %zu: bad device name '%s'", lineno,
			    quote(q, tok, len));
	for (size_t i = first; i < upd->nlines; i++)
		if (strlen(upd->lines[i].dev) == len && memcmp(upd->lines[i].dev, tok, len) == 0)
			return fail(err, errsize, "line %zu: device '%s' already given on line %zu",
				    lineno, upd->lines[i].dev, upd->lines[i].lineno);
	struct rpcrdma__rescg_line *ln = line_add(upd);
	if (!ln)
		return -ENOMEM;
	memcpy(ln->dev, tok, len);
	ln->dev[len] = '\0';
	ln->lineno = lineno;
	ln->idx = -1;

	while (next_token(&p, end, &tok, &len)) {
		const char *eq = memchr(tok, '=', len);
		if (!eq)
			return fail(err, errsize, "line %zu: expected key=value, got '%s'", lineno,
				    quote(q, tok, len));
		size_t klen = (size_t)(eq - tok);
		int r = -1;
		for (int i = 0; i < RPCRDMA_RES_COUNT; i++) {
			const char *name = rpcrdma_rescg_resource_name((enum rpcrdma_rescg_resource)i);
			if (strlen(name) == klen && memcmp(name, tok, klen) == 0)
				r = i;
		}
		if (r < 0)
			return fail(err, errsize, "line %zu: unknown key '%s'", lineno,
				    quote(q, tok, klen));
		const char *key = rpcrdma_rescg_resource_name((enum rpcrdma_rescg_resource)r);
		if (ln->set & (1u << r))
			return fail(err, errsize, "line %zu: duplicate key '%s'", lineno, key);
		int rc = parse_value(eq + 1, len - klen - 1, lineno, key, &ln->val[r], err, errsize);
		if (rc)
			return rc;
		ln->set |= 1u << r;
	}
	if (!ln->set)
		return fail(err, errsize, "line %zu: no key=value after device '%s'", lineno, ln->dev);
	return 0;
}

/* Parses "[name]" (trimmed line [p, end)) into a new section. */
static int parse_section(struct rpcrdma__rescg_update *upd, const char *p, const char *end,
			 size_t lineno, char *err, size_t errsize)
{
	char q[QUOTE_MAX + 4];
	size_t len = (size_t)(end - p);
	if (len < 2 || end[-1] != ']' || !rpcrdma__rescg_name_ok(p + 1, len - 2))
		return fail(err, errsize, "line %zu: bad section header '%s'", lineno,
			    quote(q, p, len));
	for (size_t i = 0; i < upd->nsections; i++) {
		const struct rpcrdma__rescg_section *s = &upd->sections[i];
		if (strlen(s->name) == len - 2 && memcmp(s->name, p + 1, len - 2) == 0)
			return fail(err, errsize, "line %zu: group '%s' already has a section on line %zu",
				    lineno, s->name, s->lineno);
	}
	struct rpcrdma__rescg_section *sec = section_add(upd);
	if (!sec)
		return -ENOMEM;
	memcpy(sec->name, p + 1, len - 2);
	sec->name[len - 2] = '\0';
	sec->lineno = lineno;
	return 0;
}

/*
 * Parses text as rdma.max (sections false) or as a limits file (sections
 * true).  On error upd is freed.
 */
static int parse(const char *text, size_t len, bool sections, struct rpcrdma__rescg_update *upd,
		 char *err, size_t errsize)
{
	size_t lineno = 0;
	int rc = 0;

	memset(upd, 0, sizeof(*upd));
	if (err && errsize)
		err[0] = '\0';
	if (!text) {
		if (len)
			return fail(err, errsize, "no text");
		text = "";
	}
	const char *p = text, *end = text + len;
	if (!sections && !section_add(upd)) {
		fail(err, errsize, "out of memory");
		return -ENOMEM;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		lineno++;
		for (const char *c = p; c < eol; c++) {
			unsigned char b = (unsigned char)*c;
			if ((b < 0x20 && b != '\t') || b == 0x7f) {
				rc = fail(err, errsize, "line %zu: control byte 0x%02x", lineno, b);
				goto out;
			}
		}
		const char *s = p, *e = eol;
		while (s < e && is_blank(*s))
			s++;
		while (e > s && is_blank(e[-1]))
			e--;
		if (s == e) {
			/* blank */
		} else if (sections && *s == '#') {
			/* comment */
		} else if (sections && *s == '[') {
			rc = parse_section(upd, s, e, lineno, err, errsize);
		} else if (upd->nsections == 0) {
			rc = fail(err, errsize, "line %zu: limit line before any [group] section", lineno);
		} else {
			struct rpcrdma__rescg_section *sec = &upd->sections[upd->nsections - 1];
			rc = parse_max_line(upd, sec->first, s, e, lineno, err, errsize);
			if (rc == 0)
				sec->count++;
		}
		if (rc)
			goto out;
		p = nl ? nl + 1 : end;
	}
	return 0;
out:
	if (rc == -ENOMEM)
		fail(err, errsize, "line %zu: out of memory", lineno);
	update_free(upd);
	return rc;
}

int rpcrdma_rescg_group_write_max(struct rpcrdma_rescg_group *grp, const char *text, size_t len,
				  char *err, size_t errsize)
{
	if (!grp)
		return fail(err, errsize, "no group");
	struct rpcrdma__rescg_update upd;
	int rc = parse(text, len, false, &upd, err, errsize);
	if (rc)
		return rc;
	rc = rpcrdma__rescg_apply(grp->ctl, grp, &upd);
	if (rc == -ENOENT)
		fail(err, errsize, "group '%s' was destroyed", grp->name);
	else if (rc)
		fail(err, errsize, "out of memory");
	update_free(&upd);
	return rc;
}

int rpcrdma_rescg_load(struct rpcrdma_rescg *ctl, const char *text, size_t len, char *err,
		       size_t errsize)
{
	if (!ctl)
		return fail(err, errsize, "no controller");
	struct rpcrdma__rescg_update upd;
	int rc = parse(text, len, true, &upd, err, errsize);
	if (rc)
		return rc;
	rc = rpcrdma__rescg_apply(ctl, NULL, &upd);
	if (rc)
		fail(err, errsize, "out of memory");
	update_free(&upd);
	return rc;
}

/* ---- printing */

struct out {
	char *buf;
	size_t size;
	size_t len; /* of the whole text, may exceed size */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len;
		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_value(struct out *o, uint32_t v)
{
	if (v == RPCRDMA_RESCG_MAX) {
		put(o, "max", 3);
		return;
	}
	char tmp[16];
	int n = snprintf(tmp, sizeof(tmp), "%u", v);
	put(o, tmp, (size_t)n);
}

static int finish(struct out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len > INT_MAX ? -EOVERFLOW : (int)o->len;
}

/* One file's lines for grp; lock held. */
static void print_group_locked(struct out *o, const struct rpcrdma_rescg_group *grp, bool usage)
{
	const struct rpcrdma_rescg *ctl = grp->ctl;
	for (uint32_t d = 0; d < ctl->ndevs; d++) {
		puts_(o, ctl->devs[d]);
		put(o, " ", 1);
		for (int r = 0; r < RPCRDMA_RES_COUNT; r++) {
			uint32_t v = usage ? 0 : RPCRDMA_RESCG_MAX;
			if (d < grp->npools)
				v = usage ? grp->pools[d].usage[r] : grp->pools[d].max[r];
			puts_(o, rpcrdma_rescg_resource_name((enum rpcrdma_rescg_resource)r));
			put(o, "=", 1);
			put_value(o, v);
			put(o, " ", 1);
		}
		put(o, "\n", 1);
	}
}

static int print_group(struct rpcrdma_rescg_group *grp, char *buf, size_t size, bool usage)
{
	if (!grp || (size && !buf))
		return -EINVAL;
	struct out o = {buf, size, 0};
	pthread_mutex_lock(&grp->ctl->lock);
	print_group_locked(&o, grp, usage);
	pthread_mutex_unlock(&grp->ctl->lock);
	return finish(&o);
}

int rpcrdma_rescg_group_print_max(struct rpcrdma_rescg_group *grp, char *buf, size_t size)
{
	return print_group(grp, buf, size, false);
}

int rpcrdma_rescg_group_print_current(struct rpcrdma_rescg_group *grp, char *buf, size_t size)
{
	return print_group(grp, buf, size, true);
}

int rpcrdma_rescg_print_limits(struct rpcrdma_rescg *ctl, char *buf, size_t size)
{
	if (!ctl || (size && !buf))
		return -EINVAL;
	struct out o = {buf, size, 0};
	pthread_mutex_lock(&ctl->lock);
	for (const struct rpcrdma_rescg_group *g = ctl->head; g; g = g->next) {
		put(&o, "[", 1);
		puts_(&o, g->name);
		put(&o, "]\n", 2);
		print_group_locked(&o, g, false);
	}
	pthread_mutex_unlock(&ctl->lock);
	return finish(&o);
}
