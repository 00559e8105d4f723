/* SPDX-License-Identifier: BSD-2-Clause */
/* /proc/self/mountinfo, for tnfs_mount_is_whole(); see mountinfo.h. */
#include "mountinfo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

bool tnfs_mount_is_whole(FILE *f, const char *path, dev_t dev)
{
	char *line = NULL;
	size_t cap = 0;
	int found = -1;   /* -1: no line for path; else whether its root is "/" */

	/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw" */
	while (getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char *save = NULL, *tok[5];
		int n = 0;

		for (char *t = strtok_r(line, " \n", &save); t && n < 5;
		     t = strtok_r(NULL, " \n", &save))
			tok[n++] = t;
		if (n < 5 || sscanf(tok[2], "%u:%u", &maj, &min) != 2)
			continue;
		unescape(tok[4]);
		if (strcmp(tok[4], path) != 0)
			continue;
		if (makedev(maj, min) != dev) {
			found = 0;     /* another file system on top */
			continue;
		}
		unescape(tok[3]);
		found = strcmp(tok[3], "/") == 0;
	}
	free(line);
	return found == 1;
}
