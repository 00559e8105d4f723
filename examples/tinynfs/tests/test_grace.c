/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Grace and reclaim (RFC 8881 8.4.2.1, 18.51): the client record on
 * stable storage (clientrec.h, hostile files included), the grace period
 * after a restart (the server freed and made again over the same state
 * directory, with an injected clock), and the answers to reclaims and to
 * new locks in and out of it.
 */
#include <errno.h>
#include <sys/file.h>

#include "nfstest.h"
#include "tnfsproc.h"

#include "clientrec.h"
#include "grace.h"
#include "state.h"

#define EXPORT_OPTS "*(rw,no_root_squash)"

struct clock {
	uint64_t now;
};

static uint64_t clock_now(void *arg)
{
	return ((struct clock *)arg)->now;
}

/* A fixture with a state directory beside its export. */
struct gx {
	struct fx *f;
	char sdir[64];
	struct clock clk;
	uint8_t boot;
};

static const char *tinynfs_path;

/* (Re)starts the server over the state directory, grace `secs`, its
 * clock at `now`: a restart as far as the clients can tell. */
static void gx_start(struct gx *g, unsigned secs, uint64_t now)
{
	struct fx *f = g->f;
	if (f->srv) {
		tnfs_server_free(f->srv);
		tnfs_exports_free(&f->exports);
		f->srv = NULL;
	}
	uint8_t boot[8] = { 9, 9, 9, 9, 9, 9, 9, ++g->boot };
	assert_int_equal(fx_start_opts(f, EXPORT_OPTS, boot), 0);
	g->clk.now = now;
	tnfs_state_set_clock(f->srv->state, clock_now, &g->clk);
	assert_int_equal(tnfs_state_set_grace(f->srv->state, g->sdir, secs), 0);
}

static struct gx *gx_new(void)
{
	struct gx *g = calloc(1, sizeof(*g));
	assert_non_null(g);
	g->f = fx_new(EXPORT_OPTS);
	strcpy(g->sdir, "/tmp/tinynfs-grace-XXXXXX");
	assert_non_null(mkdtemp(g->sdir));
	gx_start(g, 30, 1000);
	return g;
}

static void gx_free(struct gx *g)
{
	fx_free(g->f);
	fx_rmtree(g->sdir);
	free(g);
}

/* The record on disk now. */
static void gx_record(struct gx *g, struct tnfs_clientrec *r)
{
	int dfd = open(g->sdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(tnfs_clientrec_load(dfd, r), 0);
	close(dfd);
}

static bool recorded(struct gx *g, const char *owner)
{
	struct tnfs_clientrec r;
	gx_record(g, &r);
	bool in = tnfs_clientrec_find(&r, (const uint8_t *)owner, (uint32_t)strlen(owner)) >= 0;
	tnfs_clientrec_free(&r);
	return in;
}

static uint32_t reclaim_complete(struct fx *f)
{
	fx_seq(f);
	req_op(&f->rq, OP_RECLAIM_COMPLETE);
	xdr_put_bool(&f->rq.x, false);
	fx_call(f);
	fx_seq_ok(f);
	return rep_op(&f->rp, OP_RECLAIM_COMPLETE);
}

/* EXCHANGE_ID + CREATE_SESSION as `owner`, without RECLAIM_COMPLETE. */
static void mount_only(struct fx *f, const char *owner)
{
	uint32_t seq = fx_exchange_id(f, owner, 0x1122334455667788ull);
	fx_begin(f);
	req_op(&f->rq, OP_CREATE_SESSION);
	put_create_session(&f->rq.x, f->clientid, seq);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_CREATE_SESSION), NFS4_OK);
	xdr_get_fixed(&f->rp.x, f->sessionid, 16);
	f->slot_seq = 0;
}

/* OPEN of `name` under the root (CLAIM_NULL, created if missing), or of
 * *fh (claim CLAIM_PREVIOUS or CLAIM_FH); GETFH into *fh on success. */
static uint32_t open_c(struct fx *f, uint32_t claim, const char *name, const char *owner,
		       struct fh *fh, struct nfs4_stateid *sid)
{
	fx_seq(f);
	if (claim == CLAIM_NULL) {
		req_op(&f->rq, OP_PUTROOTFH);
	} else {
		req_op(&f->rq, OP_PUTFH);
		put_fh(&f->rq.x, fh);
	}
	req_op(&f->rq, OP_OPEN);
	struct xdr_out *x = &f->rq.x;
	xdr_put_u32(x, 0);
	xdr_put_u32(x, OPEN4_SHARE_ACCESS_BOTH);
	xdr_put_u32(x, OPEN4_SHARE_DENY_NONE);
	xdr_put_u64(x, f->clientid);
	put_str(x, owner);
	if (claim == CLAIM_NULL) {
		xdr_put_u32(x, OPEN4_CREATE);
		xdr_put_u32(x, UNCHECKED4);
		put_bitmap(x, 0, 0, 0);
		xdr_put_u32(x, 0);
	} else {
		xdr_put_u32(x, OPEN4_NOCREATE);
	}
	xdr_put_u32(x, claim);
	if (claim == CLAIM_NULL)
		put_str(x, name);
	if (claim == CLAIM_PREVIOUS)
		xdr_put_u32(x, OPEN_DELEGATE_NONE);
	req_op(&f->rq, OP_GETFH);
	fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, claim == CLAIM_NULL ? OP_PUTROOTFH : OP_PUTFH), NFS4_OK);
	uint32_t st = rep_op(&f->rp, OP_OPEN);
	if (st != NFS4_OK)
		return st;
	get_stateid(&f->rp.x, sid);
	for (int i = 0; i < 6; i++)
		(void)xdr_get_u32(&f->rp.x); /* cinfo, rflags */
	uint32_t n = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, fh);
	return NFS4_OK;
}

/* The handle of `name` under the root (after a restart: handles survive
 * restarts only with CAP_DAC_READ_SEARCH, names always). */
static void lookup_fh(struct fx *f, const char *name, struct fh *fh)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTROOTFH);
	req_op(&f->rq, OP_LOOKUP);
	put_str(&f->rq.x, name);
	req_op(&f->rq, OP_GETFH);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_LOOKUP), NFS4_OK);
	assert_int_equal(rep_op(&f->rp, OP_GETFH), NFS4_OK);
	get_fh(&f->rp.x, fh);
}

/* LOCK (a new lock owner on open stateid *osid) of [off, off + 10). */
static uint32_t lock_c(struct fx *f, const struct fh *fh, const struct nfs4_stateid *osid,
		       bool reclaim, const char *owner, uint64_t off)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_LOCK);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_bool(&f->rq.x, reclaim);
	xdr_put_u64(&f->rq.x, off);
	xdr_put_u64(&f->rq.x, 10);
	xdr_put_bool(&f->rq.x, true);
	xdr_put_u32(&f->rq.x, 0);
	put_stateid(&f->rq.x, osid);
	xdr_put_u32(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, f->clientid);
	put_str(&f->rq.x, owner);
	fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	return rep_op(&f->rp, OP_LOCK);
}

static uint32_t lockt_c(struct fx *f, const struct fh *fh, const char *owner)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, fh);
	req_op(&f->rq, OP_LOCKT);
	xdr_put_u32(&f->rq.x, WRITE_LT);
	xdr_put_u64(&f->rq.x, 0);
	xdr_put_u64(&f->rq.x, 10);
	xdr_put_u64(&f->rq.x, f->clientid);
	put_str(&f->rq.x, owner);
	fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	return rep_op(&f->rp, OP_LOCKT);
}

/* 18.51.3: an OPEN before the client's RECLAIM_COMPLETE is
 * NFS4ERR_GRACE, also with no grace period (no state directory); a
 * reclaim with no grace period is NFS4ERR_NO_GRACE. */
static void test_open_before_reclaim_complete(void **state)
{
	(void)state;
	struct fx *f = fx_new(EXPORT_OPTS);
	assert_false(tnfs_state_in_grace(f->srv->state));
	mount_only(f, "early opener");
	struct fh fh;
	struct nfs4_stateid sid;
	assert_int_equal(open_c(f, CLAIM_NULL, "a", "o1", &fh, &sid), NFS4ERR_GRACE);
	assert_int_equal(reclaim_complete(f), NFS4_OK);
	assert_int_equal(open_c(f, CLAIM_NULL, "a", "o1", &fh, &sid), NFS4_OK);
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o2", &fh, &sid), NFS4ERR_NO_GRACE);
	assert_int_equal(lock_c(f, &fh, &sid, true, "l1", 0), NFS4ERR_NO_GRACE);
	assert_int_equal(lock_c(f, &fh, &sid, false, "l1", 0), NFS4_OK);
	fx_free(f);
}

/* A restart with one client known: it reclaims its open and lock in
 * grace while new opens and locks of anyone are NFS4ERR_GRACE, a client
 * unknown before the restart cannot reclaim (NFS4ERR_RECLAIM_BAD), and
 * the grace period ends at the known client's RECLAIM_COMPLETE, before
 * its time: then reclaims are NFS4ERR_NO_GRACE and new opens work. */
static void test_restart_reclaim(void **state)
{
	(void)state;
	struct gx *g = gx_new();
	struct fx *f = g->f;
	assert_false(tnfs_state_in_grace(f->srv->state)); /* nobody to wait for */
	fx_mount_as(f, "old client");
	assert_true(recorded(g, "old client"));
	struct fh fh;
	struct nfs4_stateid sid;
	assert_int_equal(open_c(f, CLAIM_NULL, "a", "o1", &fh, &sid), NFS4_OK);
	assert_int_equal(lock_c(f, &fh, &sid, false, "l1", 0), NFS4_OK);

	gx_start(g, 30, 5000); /* the restart */
	assert_true(tnfs_state_in_grace(f->srv->state));
	mount_only(f, "old client");
	lookup_fh(f, "a", &fh);
	struct fx_client old;
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o1", &fh, &sid), NFS4_OK);
	assert_int_equal(lock_c(f, &fh, &sid, true, "l1", 0), NFS4_OK);
	/* its non-reclaim lock waits for the grace period's end */
	assert_int_equal(lock_c(f, &fh, &sid, false, "l2", 100), NFS4ERR_GRACE);
	fx_save(f, &old);

	/* a new client: not known from before, it reclaims nothing; it
	 * may send RECLAIM_COMPLETE, but opens nothing while in grace */
	mount_only(f, "new client");
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "n1", &fh, &sid), NFS4ERR_RECLAIM_BAD);
	assert_int_equal(reclaim_complete(f), NFS4_OK);
	assert_true(recorded(g, "new client"));
	struct fh fh_b;
	struct nfs4_stateid sid_b;
	assert_int_equal(open_c(f, CLAIM_NULL, "b", "n1", &fh_b, &sid_b), NFS4ERR_GRACE);
	assert_int_equal(lockt_c(f, &fh, "n2"), NFS4ERR_GRACE);
	assert_true(tnfs_state_in_grace(f->srv->state));

	/* the old client is done: no one else to wait for */
	fx_use(f, &old);
	assert_int_equal(reclaim_complete(f), NFS4_OK);
	assert_false(tnfs_state_in_grace(f->srv->state));
	assert_int_equal(g->clk.now, 5000); /* early, not timed out */
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o3", &fh, &sid), NFS4ERR_NO_GRACE);
	assert_int_equal(open_c(f, CLAIM_NULL, "b", "o4", &fh_b, &sid_b), NFS4_OK);
	assert_int_equal(lockt_c(f, &fh, "n2"), NFS4ERR_DENIED); /* the reclaimed lock holds */
	assert_true(recorded(g, "old client"));
	assert_int_equal(tnfs_state_grace_error(f->srv->state), 0);
	gx_free(g);
}

/* Two known clients, one comes back: the grace period lasts its time,
 * then reclaims are NFS4ERR_NO_GRACE and the one that did not come back
 * leaves the record (a later restart does not wait for it).  A restart
 * during grace keeps it waiting. */
static void test_grace_times_out(void **state)
{
	(void)state;
	struct gx *g = gx_new();
	struct fx *f = g->f;
	fx_mount_as(f, "c1");
	fx_mount_as(f, "c2");
	assert_true(recorded(g, "c1") && recorded(g, "c2"));

	gx_start(g, 30, 100);
	mount_only(f, "c1");
	assert_int_equal(reclaim_complete(f), NFS4_OK);
	assert_true(tnfs_state_in_grace(f->srv->state)); /* c2 may come yet */
	/* a restart now: c2 still may reclaim */
	gx_start(g, 30, 100);
	assert_true(recorded(g, "c1") && recorded(g, "c2"));
	mount_only(f, "c1");
	assert_int_equal(reclaim_complete(f), NFS4_OK);
	struct fh fh;
	struct nfs4_stateid sid;
	g->clk.now = 129;
	assert_int_equal(open_c(f, CLAIM_NULL, "a", "o1", &fh, &sid), NFS4ERR_GRACE);
	g->clk.now = 130;
	assert_int_equal(open_c(f, CLAIM_NULL, "a", "o1", &fh, &sid), NFS4_OK);
	assert_false(tnfs_state_in_grace(f->srv->state));
	assert_true(recorded(g, "c1"));
	assert_false(recorded(g, "c2"));
	mount_only(f, "c2");
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o2", &fh, &sid), NFS4ERR_NO_GRACE);

	/* next restart: c2 is a stranger */
	gx_start(g, 30, 100);
	assert_true(tnfs_state_in_grace(f->srv->state));
	mount_only(f, "c2");
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o2", &fh, &sid), NFS4ERR_RECLAIM_BAD);
	mount_only(f, "c1");
	lookup_fh(f, "a", &fh);
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o2", &fh, &sid), NFS4_OK);
	gx_free(g);
}

/* A client that goes (DESTROY_CLIENTID) leaves the record: the next
 * restart has nobody to wait for. */
static void test_destroyed_client_forgotten(void **state)
{
	(void)state;
	struct gx *g = gx_new();
	struct fx *f = g->f;
	fx_mount_as(f, "leaver");
	assert_true(recorded(g, "leaver"));
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_SESSION);
	xdr_put_fixed(&f->rq.x, f->sessionid, 16);
	assert_int_equal(fx_call(f), NFS4_OK);
	fx_begin(f);
	req_op(&f->rq, OP_DESTROY_CLIENTID);
	xdr_put_u64(&f->rq.x, f->clientid);
	assert_int_equal(fx_call(f), NFS4_OK);
	assert_false(recorded(g, "leaver"));
	gx_start(g, 30, 100);
	assert_false(tnfs_state_in_grace(f->srv->state));
	gx_free(g);
}

/* Clients whose lease ran out, removed together (at the next
 * EXCHANGE_ID), leave the record together. */
static void test_expired_clients_forgotten(void **state)
{
	(void)state;
	struct gx *g = gx_new();
	struct fx *f = g->f;
	fx_mount_as(f, "exp1");
	fx_mount_as(f, "exp2");
	assert_true(recorded(g, "exp1") && recorded(g, "exp2"));
	g->clk.now += TNFS_LEASE_TIME + 1;
	mount_only(f, "trigger"); /* its EXCHANGE_ID removes them */
	assert_false(recorded(g, "exp1"));
	assert_false(recorded(g, "exp2"));
	assert_int_equal(tnfs_state_grace_error(f->srv->state), 0);
	gx_free(g);
}

/* One server per state directory; the grace period of a record with
 * clients ends at once with --grace 0 (tnfs_grace_new). */
static void test_state_dir_exclusive(void **state)
{
	(void)state;
	struct gx *g = gx_new();
	uint8_t boot[8] = { 0 };
	struct tnfs_state *st2;
	assert_int_equal(tnfs_state_new(boot, &st2), 0);
	assert_int_equal(tnfs_state_set_grace(st2, g->sdir, 30), -EBUSY);
	tnfs_state_free(st2);
	assert_int_equal(tnfs_state_set_grace(g->f->srv->state, g->sdir, 30), -EALREADY);
	gx_free(g);
}

/* tinynfs started (--state-dir DIR) when DIR has a corrupt record: it
 * exits 2 naming the record, without serving. */
static void start_refused(const char *dir, const char *const *more)
{
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	char line[256];
	snprintf(line, sizeof(line), "%s %s", dir, EXPORT_OPTS);
	const char *argv[] = { "tinynfs", "--export", line, "-p", "0", "-l", "127.0.0.1",
			       more[0], more[1], NULL };
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execv(tinynfs_path, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	char out[4096];
	size_t len = 0;
	for (;;) {
		struct pollfd q = { .fd = pfd[0], .events = POLLIN };
		assert_int_equal(poll(&q, 1, TNFSPROC_WAIT_S * 1000), 1);
		ssize_t n = read(pfd[0], out + len, sizeof(out) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	out[len] = 0;
	close(pfd[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 2);
	assert_non_null(strstr(out, "corrupt record clients"));
	assert_null(strstr(out, "tinynfs: ready"));
}

/* The server of test_program_restart, while it runs: killed by the
 * teardown should the test fail (a child left behind would keep the
 * test's output open). */
static struct tnfsproc *running;

static int kill_running(void **state)
{
	(void)state;
	if (running && running->pid > 0) {
		kill(running->pid, SIGKILL);
		waitpid(running->pid, NULL, 0);
		close(running->out);
	}
	running = NULL;
	return 0;
}

static void start_p(struct tnfsproc *p, const char *dir, const char *const *more)
{
	tnfsproc_start_args(p, tinynfs_path, dir, EXPORT_OPTS, more);
	running = p;
}

static void stop_p(struct tnfsproc *p)
{
	tnfsproc_stop(p);
	p->pid = 0;
	running = NULL;
}

/* The program itself, stopped and started again over one --state-dir,
 * over loopback TCP: the old client reclaims, a new one waits for the
 * grace period (--grace 3600: ended early only by the RECLAIM_COMPLETE
 * of the old one), and a corrupt record stops the start. */
static void test_program_restart(void **state)
{
	(void)state;
	if (!tinynfs_path)
		skip();
	struct fx *f = fx_new(EXPORT_OPTS);
	char sdir[64] = "/tmp/tinynfs-grace-XXXXXX";
	assert_non_null(mkdtemp(sdir));
	const char *more[] = { "--state-dir", sdir, "--grace", "3600", NULL };
	struct tnfsproc p;
	struct tnfsconn c;
	start_p(&p, f->dir, more);
	tnfsconn_open(&c, &p, 0, 0);
	f->call = tnfsconn_fx_call;
	f->call_arg = &c;
	fx_mount_as(f, "e2e old client");
	struct fh fh, fh_b;
	struct nfs4_stateid sid, sid_b;
	assert_int_equal(open_c(f, CLAIM_NULL, "a", "o1", &fh, &sid), NFS4_OK);
	assert_int_equal(lock_c(f, &fh, &sid, false, "l1", 0), NFS4_OK);
	tnfsconn_close(&c);
	stop_p(&p);

	start_p(&p, f->dir, more);
	tnfsconn_open(&c, &p, 0, 0);
	mount_only(f, "e2e old client");
	lookup_fh(f, "a", &fh);
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o1", &fh, &sid), NFS4_OK);
	assert_int_equal(lock_c(f, &fh, &sid, true, "l1", 0), NFS4_OK);
	struct fx_client old, young;
	fx_save(f, &old);
	mount_only(f, "e2e new client");
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "n1", &fh, &sid_b), NFS4ERR_RECLAIM_BAD);
	assert_int_equal(reclaim_complete(f), NFS4_OK);
	assert_int_equal(open_c(f, CLAIM_NULL, "b", "n1", &fh_b, &sid_b), NFS4ERR_GRACE);
	fx_save(f, &young);
	fx_use(f, &old);
	assert_int_equal(reclaim_complete(f), NFS4_OK);
	assert_int_equal(open_c(f, CLAIM_PREVIOUS, NULL, "o2", &fh, &sid), NFS4ERR_NO_GRACE);
	fx_use(f, &young);
	assert_int_equal(open_c(f, CLAIM_NULL, "b", "n1", &fh_b, &sid_b), NFS4_OK);
	tnfsconn_close(&c);
	stop_p(&p);

	char path[128];
	snprintf(path, sizeof(path), "%s/" TNFS_CLIENTREC_FILE, sdir);
	FILE *w = fopen(path, "w");
	assert_non_null(w);
	fputs("tinynfs-clients 1\nnot hex\n", w);
	fclose(w);
	start_refused(f->dir, more);
	fx_free(f);
	fx_rmtree(sdir);
}

/* --- the record file, hostile ------------------------------------------- */

static int parse_str(const char *s, size_t len, uint32_t *n)
{
	struct tnfs_clientrec r;
	int rc = tnfs_clientrec_parse((const uint8_t *)s, len, &r);
	*n = r.n;
	if (rc == 0)
		tnfs_clientrec_free(&r);
	else
		assert_null(r.e);
	return rc;
}

#define P(lit, n) parse_str(lit, sizeof(lit) - 1, n)

static void test_record_parse_hostile(void **state)
{
	(void)state;
	uint32_t n;
	assert_int_equal(P("tinynfs-clients 1\n", &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(P("tinynfs-clients 1\n6162\n6162\nABff\n", &n), 0);
	assert_int_equal(n, 2); /* duplicates once */
	assert_int_equal(P("", &n), -EINVAL);
	assert_int_equal(P("tinynfs-clients 1", &n), -EINVAL);
	assert_int_equal(P("tinynfs-clients 2\n6162\n", &n), -EINVAL);
	assert_int_equal(P("tinynfs-clients 1\n616\n", &n), -EINVAL);	/* odd */
	assert_int_equal(P("tinynfs-clients 1\n\n", &n), -EINVAL);	/* empty id */
	assert_int_equal(P("tinynfs-clients 1\n61 2\n", &n), -EINVAL);	/* not hex */
	assert_int_equal(P("tinynfs-clients 1\n6g\n", &n), -EINVAL);
	assert_int_equal(P("tinynfs-clients 1\n61\r\n", &n), -EINVAL);
	assert_int_equal(P("tinynfs-clients 1\n61\0\n", &n), -EINVAL);
	assert_int_equal(P("tinynfs-clients 1\n6162", &n), -EINVAL);	/* no end */
	assert_int_equal(P("tinynfs-clients 1\n-1\n", &n), -EINVAL);
	/* an id of 1024 bytes is the longest; 1025 is refused */
	size_t hl = strlen(TNFS_CLIENTREC_HEADER);
	char *big = malloc(hl + 2 * 1025 + 1);
	assert_non_null(big);
	memcpy(big, TNFS_CLIENTREC_HEADER, hl);
	memset(big + hl, 'a', 2 * 1024);
	big[hl + 2 * 1024] = '\n';
	assert_int_equal(parse_str(big, hl + 2 * 1024 + 1, &n), 0);
	memset(big + hl, 'a', 2 * 1025);
	big[hl + 2 * 1025] = '\n';
	assert_int_equal(parse_str(big, hl + 2 * 1025 + 1, &n), -EINVAL);
	free(big);
	/* entries: TNFS_CLIENTREC_MAX fit, one more is -E2BIG */
	size_t cap = hl + (TNFS_CLIENTREC_MAX + 1) * 9 + 1; /* sprintf's NUL */
	char *many = malloc(cap), *p = many;
	assert_non_null(many);
	memcpy(p, TNFS_CLIENTREC_HEADER, hl);
	p += hl;
	for (unsigned i = 0; i <= TNFS_CLIENTREC_MAX; i++) {
		sprintf(p, "%08x\n", i);
		p += 9;
	}
	assert_int_equal(parse_str(many, (size_t)(p - many) - 9, &n), 0);
	assert_int_equal(n, TNFS_CLIENTREC_MAX);
	assert_int_equal(parse_str(many, (size_t)(p - many), &n), -E2BIG);
	free(many);
}

/* Files that are not the record: refused at start, without hanging on a
 * FIFO, following a link or reading a huge file. */
static void test_record_file_hostile(void **state)
{
	(void)state;
	char dir[64] = "/tmp/tinynfs-grace-XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/" TNFS_CLIENTREC_FILE, dir);
	uint8_t boot[8] = { 0 };
	struct tnfs_state *st;
	assert_int_equal(tnfs_state_new(boot, &st), 0);

	assert_int_equal(mkfifo(path, 0600), 0); /* nobody writes it */
	assert_int_equal(tnfs_state_set_grace(st, dir, 30), -EINVAL);
	unlink(path);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(tnfs_state_set_grace(st, dir, 30), -EINVAL);
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(tnfs_state_set_grace(st, dir, 30), -EINVAL);
	rmdir(path);
	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)1 << 40), 0); /* sparse: 1 TiB */
	close(fd);
	assert_int_equal(tnfs_state_set_grace(st, dir, 30), -EFBIG);
	fd = open(path, O_WRONLY | O_TRUNC, 0600);
	assert_int_equal(write(fd, "tinynfs-clients 1\nzz\n", 21), 21);
	close(fd);
	assert_int_equal(tnfs_state_set_grace(st, dir, 30), -EINVAL);
	/* a good one: in grace */
	fd = open(path, O_WRONLY | O_TRUNC, 0600);
	assert_int_equal(write(fd, "tinynfs-clients 1\n6162\n", 23), 23);
	close(fd);
	assert_int_equal(tnfs_state_set_grace(st, dir, 30), 0);
	assert_true(tnfs_state_in_grace(st));
	tnfs_state_free(st);
	fx_rmtree(dir);
}

int main(int argc, char **argv)
{
	tinynfs_path = argc > 1 ? argv[1] : NULL;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_before_reclaim_complete),
		cmocka_unit_test(test_restart_reclaim),
		cmocka_unit_test(test_grace_times_out),
		cmocka_unit_test(test_destroyed_client_forgotten),
		cmocka_unit_test(test_expired_clients_forgotten),
		cmocka_unit_test(test_state_dir_exclusive),
		cmocka_unit_test(test_record_parse_hostile),
		cmocka_unit_test(test_record_file_hostile),
		cmocka_unit_test_teardown(test_program_restart, kill_running),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
