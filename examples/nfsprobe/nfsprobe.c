// SPDX-License-Identifier: BSD-2-Clause
/*
 * nfs4-probe [-t tcp|rdma] HOST[:PORT] PATH
 *
 * A small NFSv4.1 client on librpcrdma's RPC client (<rpcrdma/clnt.h>) that
 * exercises a server end to end, in order: EXCHANGE_ID, CREATE_SESSION,
 * RECLAIM_COMPLETE; LOOKUP of PATH; OPEN (create) of a scratch file; WRITE
 * of 1 MiB (the data as the call's bulk argument: over RDMA a read chunk)
 * and COMMIT; READ of it back (the bulk result: over RDMA a write chunk),
 * compared byte for byte; CREATE of a scratch directory holding 300 names,
 * then READDIR of them all (over RDMA the listing outgrows the inline size
 * and comes by reply chunk); REMOVE of everything it made, CLOSE;
 * DESTROY_SESSION and DESTROY_CLIENTID.  Every compound but those of the
 * session's setup and teardown starts with SEQUENCE (one slot); AUTH_SYS
 * with the caller's uid and gid, or RPCSEC_GSS (--sec krb5|krb5i|krb5p;
 * the command line, flavours and --bench are in probe_main.c).  NFS4ERR_DELAY and NFS4ERR_GRACE are
 * retried with a growing pause (at most about four minutes in all).
 *
 * Without a port it uses NFS's own (2049 over TCP, 20049 over RDMA, RFC
 * 8267).  It exits 0 only when the data read back and the listing match;
 * at exit it prints the client's transport counters as "name value" lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpcrdma/clnt.h>

#include "nfs4_xdr.h"
#include "nfsprobe.h"

#define NFSPROC4_COMPOUND 1

#define RETRY_MAX 120        /* DELAY/GRACE retries per compound */
#define READDIR_MAXCOUNT 65536u
#define READDIR_ROUNDS 1000  /* READDIR calls at most */
#define HDR_ROOM 2048u       /* RPC and compound headers around the data */

static int enc_compound(struct rpcrdma_xdr_enc *enc, const void *args)
{
	return p4_encode(enc, args);
}

static int dec_compound(struct rpcrdma_xdr_dec *dec, void *res)
{
	return p4_decode(dec, res);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void say_status(const char *step, uint32_t op, uint32_t st)
{
	const char *n = p4_status_name(st);

	if (n)
		fprintf(stderr, "nfs4-probe: %s: %s failed: %s (%" PRIu32 ")\n", step,
			p4_op_name(op), n, st);
	else
		fprintf(stderr, "nfs4-probe: %s: %s failed: status %" PRIu32 "\n", step,
			p4_op_name(op), st);
}

static void say_rpc(const char *step, int rc, const struct rpcrdma_clnt_req *q)
{
	fprintf(stderr, "nfs4-probe: %s: RPC call failed: %s", step, strerror(-rc));
	if (rc == -EREMOTEIO)
		fprintf(stderr, " (accept_stat %" PRIu32 ")", q->accept_stat);
	else if (rc == -EACCES)
		fprintf(stderr, " (reject_stat %" PRIu32 ", auth_stat %" PRIu32 ")",
			q->accept_stat, q->auth_stat);
	fputc('\n', stderr);
}

/*
 * Sends compound c (its first op a SEQUENCE to fill when the session is up
 * and seq is set) and decodes it into r.  Retries NFS4ERR_DELAY and
 * NFS4ERR_GRACE.  Returns 0 when every operation succeeded, else -1 after
 * saying which step, operation and status (quiet: say nothing).
 */
struct call {
	const char *step;
	int seq;
	size_t args_max, res_max;
	void *res_bulk;
	size_t res_bulk_len;
	int quiet;
};

static int compound(struct probe *p, const struct call *k, struct p4_compound *c,
		    struct p4_res *r)
{
	unsigned pause = 50;

	if (c->nops > p->maxops) {
		fprintf(stderr, "nfs4-probe: %s: %" PRIu32 " operations, the session allows %"
			PRIu32 "\n", k->step, c->nops, p->maxops);
		return -1;
	}
	for (int attempt = 0;; attempt++) {
		if (k->seq) {
			c->ops[0].a.seq.sessionid = p->sessionid;
			c->ops[0].a.seq.seqid = p->seqid;
		}
		struct rpcrdma_clnt_req q = {
			.size = sizeof(q),
			.proc = NFSPROC4_COMPOUND,
			.encode = enc_compound, .args = c, .args_max = k->args_max,
			.decode = dec_compound, .res = r, .res_max = k->res_max,
			.res_bulk = k->res_bulk, .res_bulk_len = k->res_bulk_len,
		};
		r->seq_status = UINT32_MAX;
		r->status = UINT32_MAX;
		int rc = rpcrdma_clnt_call(p->c, &q);
		if (k->seq && r->seq_status == NFS4_OK)
			p->seqid++;
		if (rc != 0) {
			if (!k->quiet)
				say_rpc(k->step, rc, &q);
			return -1;
		}
		if (r->status == NFS4_OK)
			return 0;
		if ((r->status == NFS4ERR_DELAY || r->status == NFS4ERR_GRACE) &&
		    attempt < RETRY_MAX) {
			if (attempt == 0 || pause == 2000)
				printf("nfs4-probe: %s: %s: %s, again in %u ms\n", k->step,
				       p4_op_name(r->last_op), p4_status_name(r->status), pause);
			sleep_ms(pause);
			pause = pause * 2 > 2000 ? 2000 : pause * 2;
			continue;
		}
		if (!k->quiet)
			say_status(k->step, r->last_op, r->status);
		return -1;
	}
}

/* A compound starting with SEQUENCE (and PUTFH of fh when not NULL). */
static void start(struct p4_compound *c, const struct p4_fh *fh)
{
	memset(c, 0, sizeof(*c));
	p4_add(c, OP_SEQUENCE);
	if (fh)
		p4_add(c, OP_PUTFH)->a.fh = fh;
}

static void res_init(struct p4_res *r)
{
	memset(r, 0, sizeof(*r));
	r->get_bulk = rpcrdma_clnt_get_bulk;
}

/* Most replies are a few hundred bytes: declared below the RDMA inline size
 * (4096), no reply chunk is offered for them, as the kernel's client does. */
static const struct call small = { .args_max = 4096, .res_max = 2048, .seq = 1 };

/* ---- 1. EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE ---------------------- */

int step_session(struct probe *p)
{
	struct p4_compound c = { 0 };
	struct p4_res r;
	struct call k = small;
	struct p4_op *o;

	k.seq = 0;
	k.step = "EXCHANGE_ID";
	o = p4_add(&c, OP_EXCHANGE_ID);
	o->a.exid.verifier = p->verifier;
	o->a.exid.owner = p->owner;
	res_init(&r);
	if (compound(p, &k, &c, &r))
		return -1;
	p->clientid = r.clientid;
	p->have_clientid = 1;

	k.step = "CREATE_SESSION";
	memset(&c, 0, sizeof(c));
	o = p4_add(&c, OP_CREATE_SESSION);
	o->a.cs.clientid = r.clientid;
	o->a.cs.seqid = r.exid_seqid;
	o->a.cs.fore = (struct p4_chan){ 0, DATA_LEN + HDR_ROOM, DATA_LEN + HDR_ROOM,
					 4096, P4_MAX_OPS, 1 };
	o->a.cs.back = (struct p4_chan){ 0, 4096, 4096, 0, 2, 1 };
	res_init(&r);
	if (compound(p, &k, &c, &r))
		return -1;
	memcpy(p->sessionid, r.sessionid, sizeof(p->sessionid));
	p->have_session = 1;
	p->seqid = 1;
	p->maxops = r.fore.maxops < P4_MAX_OPS ? r.fore.maxops : P4_MAX_OPS;
	uint32_t lim = r.fore.maxreq < r.fore.maxresp ? r.fore.maxreq : r.fore.maxresp;
	if (lim < HDR_ROOM + 4096 || p->maxops < 4) {
		fprintf(stderr, "nfs4-probe: CREATE_SESSION: the server's fore channel is too "
			"small (maxreq %" PRIu32 ", maxresp %" PRIu32 ", maxops %" PRIu32 ")\n",
			r.fore.maxreq, r.fore.maxresp, r.fore.maxops);
		return -1;
	}
	lim = (lim - HDR_ROOM) & ~4095u;
	p->io = lim < DATA_LEN ? lim : DATA_LEN;
	printf("nfs4-probe: session: clientid 0x%016" PRIx64 ", fore channel maxreq %" PRIu32
	       " maxresp %" PRIu32 " maxops %" PRIu32 ": %" PRIu32 " bytes per READ/WRITE\n",
	       p->clientid, r.fore.maxreq, r.fore.maxresp, r.fore.maxops, p->io);

	k = small;
	k.step = "RECLAIM_COMPLETE";
	start(&c, NULL);
	p4_add(&c, OP_RECLAIM_COMPLETE);
	res_init(&r);
	return compound(p, &k, &c, &r);
}

/* ---- 2. LOOKUP of PATH -------------------------------------------------------- */

int step_lookup(struct probe *p, const char *path)
{
	char buf[1024], *save = NULL;
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;

	if (strlen(path) >= sizeof(buf)) {
		fprintf(stderr, "nfs4-probe: PATH is longer than %zu bytes\n", sizeof(buf) - 1);
		return -1;
	}
	strcpy(buf, path);
	start(&c, NULL);
	p4_add(&c, OP_PUTROOTFH);
	for (char *s = strtok_r(buf, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		struct p4_op *o = c.nops + 1 < P4_MAX_OPS ? p4_add(&c, OP_LOOKUP) : NULL;
		if (o == NULL || strlen(s) > P4_NAME_MAX) {
			fprintf(stderr, "nfs4-probe: LOOKUP: PATH has too many or too long "
				"components (at most %d of %d bytes)\n", P4_MAX_OPS - 3,
				P4_NAME_MAX);
			return -1;
		}
		o->a.name = s;
	}
	p4_add(&c, OP_GETFH);
	k.step = "LOOKUP of PATH";
	res_init(&r);
	if (compound(p, &k, &c, &r))
		return -1;
	p->dir = r.fh;
	return 0;
}

/* ---- 3. OPEN (create) ----------------------------------------------------------- */

int step_open(struct probe *p)
{
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;
	struct p4_op *o;

	start(&c, &p->dir);
	o = p4_add(&c, OP_OPEN);
	o->a.open.clientid = p->clientid;
	o->a.open.owner = p->owner;
	o->a.open.name = p->fname;
	o->a.open.mode = 0644;
	p4_add(&c, OP_GETFH);
	k.step = "OPEN (create) of the scratch file";
	res_init(&r);
	if (compound(p, &k, &c, &r))
		return -1;
	p->file_made = p->opened = 1;
	p->open = r.stateid;
	p->file = r.fh;
	if (r.deleg_type != OPEN_DELEGATE_NONE) {
		p->deleg = 1;
		p->delegsid = r.deleg;
	}
	printf("nfs4-probe: opened %s (%s)\n", p->fname,
	       p->deleg ? "with a delegation" : "no delegation");
	return 0;
}

/* ---- 4. WRITE, COMMIT; 5. READ ------------------------------------------------- */

int step_write(struct probe *p)
{
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;
	uint8_t verf[NFS4_VERIFIER_SIZE];
	int unstable = 0;

	k.step = "WRITE";
	for (uint32_t off = 0; off < DATA_LEN;) {
		uint32_t n = DATA_LEN - off < p->io ? DATA_LEN - off : p->io;
		start(&c, &p->file);
		c.put_bulk = rpcrdma_clnt_put_bulk;
		struct p4_op *o = p4_add(&c, OP_WRITE);
		o->a.write.stateid = &p->open;
		o->a.write.offset = off;
		o->a.write.data = p->data + off;
		o->a.write.len = n;
		k.args_max = n + HDR_ROOM;
		res_init(&r);
		if (compound(p, &k, &c, &r))
			return -1;
		if (r.write_count == 0 || r.write_count > n) {
			fprintf(stderr, "nfs4-probe: WRITE: %" PRIu32 " of %" PRIu32
				" bytes written at offset %" PRIu32 "\n", r.write_count, n, off);
			return -1;
		}
		if (r.write_committed != FILE_SYNC4) {
			if (unstable && memcmp(verf, r.write_verf, sizeof(verf)) != 0) {
				fprintf(stderr, "nfs4-probe: WRITE: the write verifier changed\n");
				return -1;
			}
			memcpy(verf, r.write_verf, sizeof(verf));
			unstable = 1;
		}
		off += r.write_count;
		p->writes++;
	}
	k = small;
	k.step = "COMMIT";
	start(&c, &p->file);
	p4_add(&c, OP_COMMIT); /* offset 0, count 0: the whole file */
	res_init(&r);
	if (compound(p, &k, &c, &r))
		return -1;
	if (unstable && memcmp(verf, r.commit_verf, sizeof(verf)) != 0) {
		fprintf(stderr, "nfs4-probe: COMMIT: its verifier differs from the WRITEs' "
			"(the server restarted: the data may be lost)\n");
		return -1;
	}
	printf("nfs4-probe: wrote %u bytes in %" PRIu32 " WRITEs, committed\n", DATA_LEN,
	       p->writes);
	return 0;
}

int step_read(struct probe *p)
{
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;

	k.step = "READ";
	memset(p->back, 0, DATA_LEN);
	for (uint32_t off = 0; off < DATA_LEN;) {
		uint32_t n = DATA_LEN - off < p->io ? DATA_LEN - off : p->io;
		start(&c, &p->file);
		struct p4_op *o = p4_add(&c, OP_READ);
		o->a.read.stateid = &p->open;
		o->a.read.offset = off;
		o->a.read.count = n;
		/* res_max is the reply but its bulk: the data lands in res_bulk (over
		 * RDMA a write chunk, and no reply chunk, as the kernel's client). */
		k.res_bulk = p->back + off;
		k.res_bulk_len = n;
		res_init(&r);
		r.read_buf = p->back + off;
		r.read_max = n;
		if (compound(p, &k, &c, &r))
			return -1;
		if (r.read_len == 0) {
			fprintf(stderr, "nfs4-probe: READ: no data at offset %" PRIu32 " (eof %d): "
				"the file is shorter than %u bytes\n", off, r.read_eof, DATA_LEN);
			return -1;
		}
		off += r.read_len;
		p->reads++;
	}
	for (uint32_t i = 0; i < DATA_LEN; i++) {
		if (p->back[i] != p->data[i]) {
			fprintf(stderr, "nfs4-probe: READ: data differ at offset %" PRIu32
				": wrote 0x%02x, read 0x%02x\n", i, p->data[i], p->back[i]);
			return -1;
		}
	}
	printf("nfs4-probe: read %u bytes back in %" PRIu32 " READs: identical\n", DATA_LEN,
	       p->reads);
	return 0;
}

/* ---- 6. 300 names, READDIR ------------------------------------------------------- */

static void entry_name(char *buf, size_t size, unsigned i)
{
	snprintf(buf, size, "nfs4-probe-entry-%03u", i);
}

static int create_dir(struct probe *p, const struct p4_fh *in, const char *name,
		      struct p4_fh *out)
{
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;
	struct p4_op *o;

	start(&c, in);
	o = p4_add(&c, OP_CREATE);
	o->a.create.name = name;
	o->a.create.type = NF4DIR;
	if (out)
		p4_add(&c, OP_GETFH);
	k.step = "CREATE";
	res_init(&r);
	if (compound(p, &k, &c, &r)) {
		fprintf(stderr, "nfs4-probe: ... while creating '%s'\n", name);
		return -1;
	}
	if (out)
		*out = r.fh;
	return 0;
}

static int on_dirent(void *arg, const char *name, uint64_t cookie)
{
	struct probe *p = arg;
	unsigned i;
	char want[64];

	(void)cookie;
	if (sscanf(name, "nfs4-probe-entry-%3u", &i) != 1 || i >= NNAMES ||
	    (entry_name(want, sizeof(want), i), strcmp(want, name) != 0)) {
		fprintf(stderr, "nfs4-probe: READDIR: listed '%s', which the probe did not "
			"make\n", name);
		return -EPROTO;
	}
	if (p->seen[i]++) {
		fprintf(stderr, "nfs4-probe: READDIR: listed '%s' twice\n", name);
		return -EPROTO;
	}
	p->listed++;
	return 0;
}

int step_readdir(struct probe *p)
{
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;
	uint8_t verf[NFS4_VERIFIER_SIZE] = { 0 };
	uint64_t cookie = 0;
	char name[64];

	if (create_dir(p, &p->dir, p->dname, &p->sub))
		return -1;
	p->dir_made = 1;
	for (unsigned i = 0; i < NNAMES; i++) {
		entry_name(name, sizeof(name), i);
		if (create_dir(p, &p->sub, name, NULL))
			return -1;
		p->nmade++;
	}
	k.step = "READDIR";
	k.res_max = READDIR_MAXCOUNT + HDR_ROOM;
	for (;;) {
		if (p->readdirs >= READDIR_ROUNDS) {
			fprintf(stderr, "nfs4-probe: READDIR: no eof after %u calls\n",
				READDIR_ROUNDS);
			return -1;
		}
		start(&c, &p->sub);
		struct p4_op *o = p4_add(&c, OP_READDIR);
		o->a.readdir.cookie = cookie;
		o->a.readdir.verf = verf;
		o->a.readdir.dircount = READDIR_MAXCOUNT / 2;
		o->a.readdir.maxcount = READDIR_MAXCOUNT;
		res_init(&r);
		r.dirent = on_dirent;
		r.dirent_arg = p;
		if (compound(p, &k, &c, &r))
			return -1;
		p->readdirs++;
		if (r.dir_eof)
			break;
		if (r.dir_entries == 0) {
			fprintf(stderr, "nfs4-probe: READDIR: no entry and no eof\n");
			return -1;
		}
		cookie = r.dir_last_cookie;
		memcpy(verf, r.cookieverf, sizeof(verf));
	}
	if (p->listed != NNAMES) {
		for (unsigned i = 0; i < NNAMES; i++)
			if (!p->seen[i]) {
				entry_name(name, sizeof(name), i);
				fprintf(stderr, "nfs4-probe: READDIR: '%s' is missing\n", name);
				break;
			}
		fprintf(stderr, "nfs4-probe: READDIR: listed %" PRIu32 " of %u names\n",
			p->listed, NNAMES);
		return -1;
	}
	printf("nfs4-probe: created %u names, READDIR listed all %" PRIu32 " in %" PRIu32
	       " calls\n", NNAMES, p->listed, p->readdirs);
	return 0;
}

/* ---- 7. REMOVE, CLOSE; 8. DESTROY_SESSION, DESTROY_CLIENTID ------------------------- */

static int remove_name(struct probe *p, const struct p4_fh *dir, const char *name, int quiet)
{
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;

	start(&c, dir);
	p4_add(&c, OP_REMOVE)->a.name = name;
	k.step = "REMOVE";
	k.quiet = quiet;
	res_init(&r);
	if (compound(p, &k, &c, &r)) {
		if (!quiet)
			fprintf(stderr, "nfs4-probe: ... while removing '%s'\n", name);
		return -1;
	}
	return 0;
}

/* Removes what was made and closes; quiet (after a failure): goes on past
 * errors and says nothing. */
int step_cleanup(struct probe *p, int quiet)
{
	struct p4_compound c;
	struct p4_res r;
	struct call k = small;
	char name[64];
	int rc = 0;

	k.quiet = quiet;
	for (; p->nmade > 0; p->nmade--) {
		entry_name(name, sizeof(name), (unsigned)p->nmade - 1);
		if (remove_name(p, &p->sub, name, quiet) && (rc = -1, !quiet))
			return -1;
	}
	if (p->dir_made && remove_name(p, &p->dir, p->dname, quiet) && (rc = -1, !quiet))
		return -1;
	p->dir_made = 0;
	if (p->file_made && remove_name(p, &p->dir, p->fname, quiet) && (rc = -1, !quiet))
		return -1;
	p->file_made = 0;
	if (p->deleg) {
		start(&c, &p->file);
		p4_add(&c, OP_DELEGRETURN)->a.stateid = &p->delegsid;
		k.step = "DELEGRETURN";
		res_init(&r);
		if (compound(p, &k, &c, &r) && (rc = -1, !quiet))
			return -1;
		p->deleg = 0;
	}
	if (p->opened) {
		start(&c, &p->file);
		p4_add(&c, OP_CLOSE)->a.stateid = &p->open;
		k.step = "CLOSE";
		res_init(&r);
		if (compound(p, &k, &c, &r) && (rc = -1, !quiet))
			return -1;
		p->opened = 0;
	}
	if (!quiet)
		printf("nfs4-probe: removed the %u names, the directory and the file; closed\n",
		       NNAMES);
	return rc;
}

int step_destroy(struct probe *p, int quiet)
{
	struct p4_compound c = { 0 };
	struct p4_res r;
	struct call k = small;

	k.seq = 0;
	k.quiet = quiet;
	if (p->have_session) {
		k.step = "DESTROY_SESSION";
		p4_add(&c, OP_DESTROY_SESSION)->a.sessionid = p->sessionid;
		res_init(&r);
		if (compound(p, &k, &c, &r) && !quiet)
			return -1;
		p->have_session = 0;
	}
	if (p->have_clientid) {
		k.step = "DESTROY_CLIENTID";
		memset(&c, 0, sizeof(c));
		p4_add(&c, OP_DESTROY_CLIENTID)->a.clientid = p->clientid;
		res_init(&r);
		if (compound(p, &k, &c, &r) && !quiet)
			return -1;
		p->have_clientid = 0;
	}
	if (!quiet)
		printf("nfs4-probe: session and client id destroyed\n");
	return 0;
}
