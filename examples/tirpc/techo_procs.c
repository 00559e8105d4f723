/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * techo.x's procedures, as rpcgen's (non -M) dispatch routine calls them:
 * linked into techo-server and into the porting guide's servers
 * (docs/tirpc.md).
 */
#include <rpc/rpc.h>

#include "techo.h"

int *techo_add_1_svc(techo_pair *p, struct svc_req *rq)
{
	static int sum;
	(void)rq;
	sum = (int)((unsigned)p->a + (unsigned)p->b);
	return &sum;
}

techo_buf *techo_echo_1_svc(techo_buf *b, struct svc_req *rq)
{
	static techo_buf out;
	(void)rq;
	out = *b;  /* the arguments are freed after the reply is sent */
	return &out;
}

techo_ints *techo_reverse_1_svc(techo_ints *l, struct svc_req *rq)
{
	static techo_ints out;
	(void)rq;
	for (u_int i = 0, j = l->techo_ints_len; i + 1 < j; i++, j--) {
		int t = l->techo_ints_val[i];
		l->techo_ints_val[i] = l->techo_ints_val[j - 1];
		l->techo_ints_val[j - 1] = t;
	}
	out = *l;
	return &out;
}

void *techo_quit_1_svc(void *v, struct svc_req *rq)
{
	static char nothing;
	(void)v;
	(void)rq;
	svc_exit();
	return &nothing;
}

