/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target for the resource controller parsers.  The first byte picks the
 * format (even: rdma.max written to a group, odd: a limits file loaded into
 * the controller); the rest is the text.  Checked properties:
 *  - a rejected input gets -EINVAL with a non-empty message and changes
 *    nothing (the printed limits are byte-identical before and after);
 *  - an accepted input prints text that parses again, into a fresh
 *    controller, to the very same printed text (parse(print(x)) == x).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rescg.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print_all(struct rpcrdma_rescg *ctl)
{
	int n = rpcrdma_rescg_print_limits(ctl, NULL, 0);
	if (n < 0)
		abort();
	char *buf = malloc((size_t)n + 1);
	if (!buf)
		abort();
	if (rpcrdma_rescg_print_limits(ctl, buf, (size_t)n + 1) != n)
		abort();
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool file = data[0] & 1;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	struct rpcrdma_rescg *ctl;
	struct rpcrdma_rescg_group *g;
	if (rpcrdma_rescg_create(&ctl) || rpcrdma_rescg_group_create(ctl, "g", &g) ||
	    rpcrdma_rescg_group_set_limit(g, "rxe0", RPCRDMA_RES_HCA_OBJECT, 5))
		abort();
	char *before = print_all(ctl);
	char err[96];
	memset(err, 0x55, sizeof(err));
	int rc = file ? rpcrdma_rescg_load(ctl, text, len, err, sizeof(err))
		      : rpcrdma_rescg_group_write_max(g, text, len, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	char *after = print_all(ctl);
	if (rc) {
		if (rc != -EINVAL || err[0] == '\0' || strcmp(before, after) != 0)
			abort();
	} else {
		struct rpcrdma_rescg *again;
		if (rpcrdma_rescg_create(&again))
			abort();
		if (rpcrdma_rescg_load(again, after, strlen(after), err, sizeof(err)) != 0)
			abort();
		char *twice = print_all(again);
		if (strcmp(twice, after) != 0)
			abort();
		free(twice);
		rpcrdma_rescg_destroy(again);
	}
	free(before);
	free(after);
	rpcrdma_rescg_destroy(ctl);
	return 0;
}
