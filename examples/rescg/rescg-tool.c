/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rescg-tool: reads a limits file (format in <rpcrdma/rescg.h>), builds the
 * groups and prints each group's rdma.max and rdma.current.
 *
 *   rescg-tool check LIMITS
 *       parse the file; print nothing and exit 0 if it is valid, else the
 *       error ("LIMITS: line 3: unknown key 'hca_foo'") and exit 1
 *   rescg-tool show LIMITS
 *       for every group: "[name]", then "rdma.max:" and "rdma.current:"
 *       each followed by the group's file, kernel layout
 *   rescg-tool charge LIMITS GROUP DEVICE RESOURCE N
 *       charge N units of RESOURCE (hca_handle or hca_object) one at a time,
 *       stop at the first refusal, report how many were admitted and print
 *       the group's rdma.current while they are held.  This exercises the
 *       accounting alone; no RDMA device is opened.
 *
 * Commands live in one table; a "serve" command that runs the RDMA server
 * with a listener per group is to be added once the transport exists.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rescg.h>

#define FILE_MAX (1u << 20)

static const char *prog = "rescg-tool";

static char *read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(FILE_MAX + 1);
	size_t len = buf ? fread(buf, 1, FILE_MAX + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad || len > FILE_MAX) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			!buf ? "out of memory" : bad ? "read error" : "larger than 1 MiB");
		free(buf);
		return NULL;
	}
	*lenp = len;
	return buf;
}

/* Creates a controller from the limits file at path; NULL after a message. */
static struct rpcrdma_rescg *load(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return NULL;
	struct rpcrdma_rescg *ctl;
	int rc = rpcrdma_rescg_create(&ctl);
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, strerror(-rc));
		free(text);
		return NULL;
	}
	char err[256];
	rc = rpcrdma_rescg_load(ctl, text, len, err, sizeof(err));
	free(text);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, err);
		rpcrdma_rescg_destroy(ctl);
		return NULL;
	}
	return ctl;
}

typedef int (*print_fn)(struct rpcrdma_rescg_group *, char *, size_t);

static int print_file(struct rpcrdma_rescg_group *grp, const char *title, print_fn fn)
{
	int n = fn(grp, NULL, 0);
	if (n < 0)
		return n;
	char *buf = malloc((size_t)n + 1);
	if (!buf)
		return -ENOMEM;
	n = fn(grp, buf, (size_t)n + 1);
	if (n >= 0)
		printf("%s:\n%s", title, buf);
	free(buf);
	return n < 0 ? n : 0;
}

static int show_group(struct rpcrdma_rescg_group *grp)
{
	printf("[%s]\n", rpcrdma_rescg_group_name(grp));
	int rc = print_file(grp, "rdma.max", rpcrdma_rescg_group_print_max);
	if (rc == 0)
		rc = print_file(grp, "rdma.current", rpcrdma_rescg_group_print_current);
	if (rc)
		fprintf(stderr, "%s: %s\n", prog, strerror(-rc));
	return rc;
}

static int cmd_check(char **argv)
{
	struct rpcrdma_rescg *ctl = load(argv[0]);
	rpcrdma_rescg_destroy(ctl);
	return ctl ? 0 : 1;
}

static int cmd_show(char **argv)
{
	struct rpcrdma_rescg *ctl = load(argv[0]);
	if (!ctl)
		return 1;
	int rc = 0;
	for (struct rpcrdma_rescg_group *g = NULL; rc == 0 && (g = rpcrdma_rescg_group_next(ctl, g));)
		rc = show_group(g);
	rpcrdma_rescg_destroy(ctl);
	return rc ? 1 : 0;
}

static int cmd_charge(char **argv)
{
	enum rpcrdma_rescg_resource res;
	if (strcmp(argv[3], "hca_handle") == 0) {
		res = RPCRDMA_RES_HCA_HANDLE;
	} else if (strcmp(argv[3], "hca_object") == 0) {
		res = RPCRDMA_RES_HCA_OBJECT;
	} else {
		fprintf(stderr, "%s: resource must be hca_handle or hca_object\n", prog);
		return 2;
	}
	char *end;
	errno = 0;
	unsigned long n = strtoul(argv[4], &end, 10);
	if (errno || end == argv[4] || *end || argv[4][0] == '-' || n > 1000000) {
		fprintf(stderr, "%s: N must be a number from 0 to 1000000\n", prog);
		return 2;
	}
	struct rpcrdma_rescg *ctl = load(argv[0]);
	if (!ctl)
		return 1;
	int status = 1;
	struct rpcrdma_rescg_charge **held = calloc(n ? n : 1, sizeof(*held));
	struct rpcrdma_rescg_group *grp = rpcrdma_rescg_group_find(ctl, argv[1]);
	if (!held || !grp) {
		fprintf(stderr, "%s: %s\n", prog, held ? "no such group" : "out of memory");
		goto out;
	}
	unsigned long got = 0;
	int rc = 0;
	while (got < n && (rc = rpcrdma_rescg_charge(grp, argv[2], res, 1, &held[got])) == 0)
		got++;
	printf("charged %lu of %lu %s on %s to [%s]", got, n, argv[3], argv[2], argv[1]);
	if (got < n)
		printf(": refused, %s", rc == -EAGAIN ? "over the limit" : strerror(-rc));
	printf("\n");
	if (show_group(grp) == 0)
		status = (rc == 0 || rc == -EAGAIN) ? 0 : 1;
	while (got > 0)
		rpcrdma_rescg_uncharge(held[--got]);
out:
	free(held);
	rpcrdma_rescg_destroy(ctl);
	return status;
}

static const struct command {
	const char *name;
	int nargs;
	const char *args;
	int (*run)(char **argv);
} commands[] = {
	{"check", 1, "LIMITS", cmd_check},
	{"show", 1, "LIMITS", cmd_show},
	{"charge", 5, "LIMITS GROUP DEVICE hca_handle|hca_object N", cmd_charge},
};

static int usage(void)
{
	fprintf(stderr, "usage:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, "  %s %s %s\n", prog, commands[i].name, commands[i].args);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *c = &commands[i];
		if (strcmp(argv[1], c->name) != 0)
			continue;
		if (argc - 2 != c->nargs)
			return usage();
		return c->run(argv + 2);
	}
	return usage();
}
