/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's versions string; see versions.h. */
#include "versions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void tnfs_versions_default(struct tnfs_versions *v)
{
	memset(v, 0, sizeof(*v));
	v->major[4] = true;
	v->minor[1] = true;
	v->minor[2] = true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int tnfs_versions_parse(struct tnfs_versions *v, const char *s)
{
	struct tnfs_versions n = *v;
	const char *p = s;
	for (;;) {
		while (blank(*p))
			p++;
		if (!*p)
			break;
		if (*p != '+' && *p != '-')
			return -EINVAL;
		bool on = *p++ == '+';
		if (*p < '2' || *p > '4')
			return -EINVAL;
		int major = *p++ - '0';
		if (*p == '.') {
			p++;
			if (major != 4 || *p < '0' || *p > '0' + TNFS_MINOR_MAX)
				return -EINVAL;
			n.minor[*p++ - '0'] = on;
		} else {
			n.major[major] = on;
		}
		if (*p && !blank(*p))
			return -EINVAL;
	}
	*v = n;
	return 0;
}

bool tnfs_versions_minor_ok(const struct tnfs_versions *v, uint32_t minor)
{
	return v->major[4] && minor <= TNFS_MINOR_MAX && v->minor[minor];
}

int tnfs_versions_print(const struct tnfs_versions *v, char *buf, size_t cap)
{
	size_t len = 0;
	char tok[8];
	for (int major = 2; major <= 4; major++) {
		int minor = -1;
		do {
			int n = 0;
			if (minor < 0) {
				n = snprintf(tok, sizeof(tok), "%c%d", v->major[major] ? '+' : '-', major);
			} else {
				bool on = tnfs_versions_minor_ok(v, (uint32_t)minor);
				if (minor > 0 || !on) /* +4.0 is implied by +4 */
					n = snprintf(tok, sizeof(tok), "%c4.%d", on ? '+' : '-', minor);
			}
			if (n > 0) {
				size_t need = len + (len ? 1 : 0) + (size_t)n;
				if (need + 1 > cap)
					return -ENOSPC;
				if (len)
					buf[len++] = ' ';
				memcpy(buf + len, tok, (size_t)n);
				len += (size_t)n;
			}
			minor++;
		} while (major == 4 && minor <= TNFS_MINOR_MAX);
	}
	if (cap == 0)
		return -ENOSPC;
	buf[len] = 0;
	return (int)len;
}

int tnfs_versions_check(const struct tnfs_versions *v)
{
	if (v->major[2] || v->major[3] || (v->major[4] && v->minor[0]))
		return -ENOTSUP;
	return 0;
}
