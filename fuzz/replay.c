/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Replay driver for builds without libFuzzer: every argument is a file or a
 * directory of files; each file's bytes are passed once to
 * LLVMFuzzerTestOneInput.  Exits non-zero if no input was found, so an empty
 * or misplaced corpus fails the test instead of passing silently.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *n = realloc(buf, cap);
			if (!n) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = n;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	/* Copy into an exactly sized buffer so ASan catches any overread. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int replay_path(const char *path, unsigned *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (replay_file(path) != 0)
			return -1;
		(*count)++;
		return 0;
	}
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		size_t n = strlen(path) + strlen(e->d_name) + 2;
		char *child = malloc(n);
		if (!child) {
			rc = -1;
			break;
		}
		snprintf(child, n, "%s/%s", path, e->d_name);
		if (replay_path(child, count) != 0)
			rc = -1;
		free(child);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i], &count) != 0)
			rc = 1;
	if (count == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		return 1;
	}
	printf("replay: %u inputs, no crash\n", count);
	return rc;
}
