// SPDX-License-Identifier: BSD-2-Clause
/* Realistic COMPOUND4res bytes: see nfs4_replies.h. */
#include "nfs4_replies.h"

#include <stdio.h>
#include <string.h>

#include "nfs4_xdr.h"

struct wb {
	uint8_t *b;
	size_t n;
};

static void w32(struct wb *w, uint32_t v)
{
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void w64(struct wb *w, uint64_t v)
{
	w32(w, (uint32_t)(v >> 32));
	w32(w, (uint32_t)v);
}

static void wbytes(struct wb *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4)
		w->b[w->n++] = 0;
}

static void wopaque(struct wb *w, const void *p, size_t n)
{
	w32(w, (uint32_t)n);
	wbytes(w, p, n);
}

static void wstr(struct wb *w, const char *s)
{
	wopaque(w, s, strlen(s));
}

static void head_seq_putfh(struct wb *w, uint32_t status, uint32_t nres)
{
	static const uint8_t sid[NFS4_SESSIONID_SIZE] = "session-id-16by";

	w32(w, status);
	w32(w, 0); /* tag: empty, as nfs4-probe sends it */
	w32(w, nres);
	w32(w, OP_SEQUENCE);
	w32(w, NFS4_OK);
	wbytes(w, sid, sizeof(sid));
	w32(w, 77);   /* sequenceid */
	w32(w, 0);    /* slotid */
	w32(w, 0);    /* highest */
	w32(w, 63);   /* target highest */
	w32(w, 0);    /* status flags */
	w32(w, OP_PUTFH);
	w32(w, status == NFS4ERR_STALE ? NFS4ERR_STALE : NFS4_OK);
}

static void chan(struct wb *w, uint32_t maxreq)
{
	w32(w, 0); w32(w, maxreq); w32(w, maxreq); w32(w, 8192);
	w32(w, 16); w32(w, 64);
	w32(w, 0); /* ca_rdma_ird<1> */
}

static void session(struct wb *w)
{
	w32(w, NFS4_OK);
	w32(w, 0);
	w32(w, 2);
	w32(w, OP_EXCHANGE_ID);
	w32(w, NFS4_OK);
	w64(w, 0x5f00112233445566ull);
	w32(w, 1);
	w32(w, 0x00030001); /* USE_NON_PNFS | CONFIRMED_R */
	w32(w, SP4_NONE);
	w64(w, 0x1234);
	wstr(w, "tinynfs.example");   /* so_major_id */
	wstr(w, "tinynfs.example");   /* eir_server_scope */
	w32(w, 1);                     /* eir_server_impl_id<1> */
	wstr(w, "librpcrdma.example");
	wstr(w, "tinynfs 0.1");
	w64(w, 1764000000); w32(w, 0);
	w32(w, OP_CREATE_SESSION);
	w32(w, NFS4_OK);
	wbytes(w, "session-id-16by", NFS4_SESSIONID_SIZE);
	w32(w, 1);
	w32(w, 0);
	chan(w, 1049620);
	chan(w, 4096);
}

static void open_getfh(struct wb *w)
{
	w32(w, OP_OPEN);
	w32(w, NFS4_OK);
	w32(w, 1);
	wbytes(w, "stateid-oth", NFS4_OTHER_SIZE);
	w32(w, 1); w64(w, 10); w64(w, 11);    /* change_info4 */
	w32(w, 4);                            /* rflags: LOCKTYPE_POSIX */
	w32(w, 2); w32(w, 0); w32(w, 2);      /* attrset: MODE */
	w32(w, 2);                            /* OPEN_DELEGATE_WRITE */
	w32(w, 1);
	wbytes(w, "delegdelegde", NFS4_OTHER_SIZE);
	w32(w, 0);                            /* recall */
	w32(w, 1); w64(w, UINT64_C(1) << 40); /* NFS_LIMIT_SIZE */
	w32(w, 0); w32(w, 0); w32(w, 0); wstr(w, "EVERYONE@");
	w32(w, OP_GETFH);
	w32(w, NFS4_OK);
	uint8_t fh[32];
	for (size_t i = 0; i < sizeof(fh); i++)
		fh[i] = (uint8_t)(i * 7 + 1);
	wopaque(w, fh, sizeof(fh));
}

static void readdir(struct wb *w)
{
	char name[32];

	w32(w, OP_READDIR);
	w32(w, NFS4_OK);
	wbytes(w, "cookieve", NFS4_VERIFIER_SIZE);
	for (uint32_t i = 0; i < 32; i++) {
		snprintf(name, sizeof(name), "probe-file-%03u", (unsigned)i);
		w32(w, 1);
		w64(w, 3 + i);
		wstr(w, name);
		w32(w, 1);
		w32(w, 1u << FATTR4_TYPE);
		w32(w, 4);
		w32(w, NF4REG);
	}
	w32(w, 0);
	w32(w, 1); /* eof */
}

size_t p4r_build(enum p4_reply which, uint8_t *buf)
{
	struct wb w = { buf, 0 };
	uint8_t data[4096];

	switch (which) {
	case P4R_READ:
		for (size_t i = 0; i < sizeof(data); i++)
			data[i] = (uint8_t)(i * 31 + 7);
		head_seq_putfh(&w, NFS4_OK, 3);
		w32(&w, OP_READ); w32(&w, NFS4_OK);
		w32(&w, 0);
		wopaque(&w, data, sizeof(data));
		break;
	case P4R_WRITE:
		head_seq_putfh(&w, NFS4_OK, 3);
		w32(&w, OP_WRITE); w32(&w, NFS4_OK);
		w32(&w, 1u << 20); w32(&w, UNSTABLE4);
		wbytes(&w, "writever", NFS4_VERIFIER_SIZE);
		break;
	case P4R_OPEN:
		head_seq_putfh(&w, NFS4_OK, 4);
		open_getfh(&w);
		break;
	case P4R_SESSION:
		session(&w);
		break;
	case P4R_READDIR:
		head_seq_putfh(&w, NFS4_OK, 3);
		readdir(&w);
		break;
	default:
		head_seq_putfh(&w, NFS4ERR_STALE, 2);
		break;
	}
	return w.n;
}

const char *p4r_name(enum p4_reply which)
{
	static const char *const names[P4R_COUNT] = {
		"seq+putfh+read-4k", "seq+putfh+write", "seq+putfh+open+getfh",
		"exchange_id+create_session", "seq+putfh+readdir-32", "seq+putfh-stale",
	};
	return which < P4R_COUNT ? names[which] : "?";
}
