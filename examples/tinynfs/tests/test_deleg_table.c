/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A delegation table that refills (issue 36), deleg.c on its own with
 * fake callbacks and an injected clock, real Linux file leases on files
 * of a temporary directory:
 *
 *  - a revoked delegation -- its holder lapsed, or its recall timed out
 *    -- leaves the count at once (it holds no descriptor), though its
 *    record stays for DELEG_REVOKED until FREE_STATEID;
 *  - a full table takes back the delegations of courtesy clients
 *    (revoked at once, unrecalled, as a conflict would) before refusing
 *    a new one, looking for them at most once a second;
 *  - the default limit is sized like nfsd's: an eighth of RLIMIT_NOFILE,
 *    at most 4 per MiB of memory and TNFS_MAX_DELEGS;
 *  - held delegations cost no system call while nothing happens: the
 *    table's thread sweeps every lease only on a SIGIO (a break whose
 *    real-time signal was lost), not once a second.
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "deleg_fake.h"

static int setup(void **state)
{
	struct env *e = env_new("/tmp/tinynfs-dtab-XXXXXX");
	e->fake.now = 1000;
	tnfs_deleg_set_clock(e->d, fake_clock, &e->fake);
	tnfs_deleg_set_timeout(e->d, 5);
	tnfs_deleg_set_limits(e->d, 4, 4);
	assert_int_equal(tnfs_deleg_start(e->d), 0);
	env_files(e, ENV_FILES);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	env_free(*state);
	return 0;
}

/* Grant file i to client c: the reason when refused, UINT32_MAX when
 * granted (*sid). */
static uint32_t grant(struct env *e, uint64_t c, int i, struct nfs4_stateid *sid)
{
	struct nfs4_stateid dummy;
	uint32_t why = 77;
	bool ok = tnfs_deleg_grant_why(e->d, c, e->key[i], e->path[i], fh, sizeof(fh),
				       sid ? sid : &dummy, &why);
	return ok ? UINT32_MAX : why;
}

static struct tnfs_deleg_stats stats(const struct env *e)
{
	struct tnfs_deleg_stats st;
	tnfs_deleg_stats(e->d, &st);
	return st;
}

/* Revoked ones leave the count at once, whichever way they went. */
static void test_revoked_leave_count(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid s0, s2;
	assert_int_equal(grant(e, 1, 0, &s0), UINT32_MAX);
	assert_int_equal(grant(e, 1, 1, NULL), UINT32_MAX);
	assert_int_equal(grant(e, 2, 2, &s2), UINT32_MAX);
	assert_int_equal(grant(e, 2, 3, NULL), UINT32_MAX);
	assert_int_equal(grant(e, 3, 4, NULL), WND4_RESOURCE); /* full */
	assert_int_equal(stats(e).refused_limit, 1);
	/* client 1 lapsed: a conflict revokes its delegation of f0 */
	e->fake.lapsed[1] = true;
	assert_int_equal(tnfs_deleg_break(e->d, 3, e->key[0], false), NFS4_OK);
	e->fake.lapsed[1] = false;
	assert_int_equal(grant(e, 3, 4, NULL), UINT32_MAX);
	assert_int_equal(stats(e).held, 5); /* the revoked record stays ... */
	assert_int_equal(tnfs_deleg_check(e->d, 1, &s0, &e->key[0]), NFS4ERR_DELEG_REVOKED);
	/* a recall unanswered past the timeout: revoked, out of the count */
	assert_int_equal(grant(e, 3, 5, NULL), WND4_RESOURCE);
	assert_int_equal(tnfs_deleg_break(e->d, 3, e->key[2], false), NFS4ERR_DELAY);
	assert_int_equal(e->fake.recalls, 1);
	assert_int_equal(grant(e, 3, 5, NULL), WND4_RESOURCE); /* recalling: still in */
	e->fake.now += 6;
	tnfs_deleg_tick(e->d);
	assert_int_equal(tnfs_deleg_check(e->d, 2, &s2, &e->key[2]), NFS4ERR_DELEG_REVOKED);
	assert_int_equal(grant(e, 3, 5, NULL), UINT32_MAX);
	struct tnfs_deleg_stats st = stats(e);
	assert_int_equal(st.held, 6);
	assert_int_equal(st.revoked, 2);
	/* freeing the records changes nothing to the count */
	assert_int_equal(tnfs_deleg_free_stateid(e->d, 1, &s0), NFS4_OK);
	assert_int_equal(tnfs_deleg_free_stateid(e->d, 2, &s2), NFS4_OK);
	assert_int_equal(stats(e).held, 4);
	assert_int_equal(grant(e, 4, 6, NULL), WND4_RESOURCE);
}

/* A full table: courtesy clients' delegations are taken back for a new
 * one, unrecalled; live holders' never. */
static void test_full_takes_back_courtesy(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid s[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(grant(e, 1, i, &s[i]), UINT32_MAX);
	/* client 1 is live: refused, and asked once this second */
	assert_int_equal(grant(e, 2, 4, NULL), WND4_RESOURCE);
	assert_int_equal(e->fake.asked, 1);
	e->fake.lapsed[1] = true;
	assert_int_equal(grant(e, 2, 4, NULL), WND4_RESOURCE); /* not looked again yet */
	assert_int_equal(e->fake.asked, 1);
	e->fake.now += 1;
	assert_int_equal(grant(e, 2, 4, NULL), UINT32_MAX);
	assert_int_equal(e->fake.asked, 2);
	struct tnfs_deleg_stats st = stats(e);
	assert_int_equal(st.revoked, 4);
	assert_int_equal(st.revoked_lapsed, 4);
	assert_int_equal(st.refused_limit, 2);
	assert_int_equal(e->fake.recalls, 0);
	/* their leases went: the files open for writing at once */
	char p[128];
	snprintf(p, sizeof(p), "%s/f0", e->dir);
	int w = open(p, O_WRONLY | O_NONBLOCK);
	assert_true(w >= 0);
	close(w);
	/* the client comes back: revoked, and told so */
	for (int i = 0; i < 4; i++)
		assert_int_equal(tnfs_deleg_check(e->d, 1, &s[i], &e->key[i]),
				 NFS4ERR_DELEG_REVOKED);
	assert_int_equal(tnfs_deleg_seq_flags(e->d, 1), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	/* three more fit now */
	for (int i = 5; i < 8; i++)
		assert_int_equal(grant(e, 3, i, NULL), UINT32_MAX);
	assert_int_equal(grant(e, 3, 8, NULL), WND4_RESOURCE);
}

/* The default limit: an eighth of the soft RLIMIT_NOFILE, at most 4 per
 * MiB of memory and TNFS_MAX_DELEGS; a quarter of it per client.  In a
 * child whose limit is 1024: 128 (a machine of 32 MiB would give less). */
static void test_default_limit(void **state)
{
	struct env *e = *state;
	tnfs_deleg_set_limits(e->d, 0, 0);
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	uint64_t want = rl.rlim_cur / 8;
	uint64_t mem = ((uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) >> 20) * 4;
	if (mem < want)
		want = mem;
	if (want > TNFS_MAX_DELEGS)
		want = TNFS_MAX_DELEGS;
	struct tnfs_deleg_stats st = stats(e);
	assert_int_equal(st.limit, want);
	assert_int_equal(st.limit_per_client, want / 4);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit small = { 1024, rl.rlim_max < 1024 ? rl.rlim_max : 1024 };
		_exit(setrlimit(RLIMIT_NOFILE, &small) == 0 && mem >= 128 &&
				      tnfs_deleg_default_max() == 128 ?
			      0 :
			      1);
	}
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
}

/* Quiet delegations cost nothing: the thread wakes once a second, and
 * sweeping every held lease then (one F_GETLEASE each: thousands a second
 * at the default limit, issue 35) would only find breaks whose real-time
 * signal was lost, for which the kernel sends SIGIO (blocked and read by
 * the thread here, as in tinynfs's main()).  The sleep lets the thread
 * tick at least twice; the wait after SIGIO is a liveness bound only. */
static void test_no_sweep_while_quiet(void **state)
{
	struct env *e = *state;
	assert_int_equal(grant(e, 1, 0, NULL), UINT32_MAX);
	assert_int_equal(grant(e, 1, 1, NULL), UINT32_MAX);
	assert_int_equal(grant(e, 2, 2, NULL), UINT32_MAX);
	assert_int_equal(stats(e).held, 3);
	nanosleep(&(struct timespec){ .tv_sec = 2, .tv_nsec = 500000000 }, NULL);
	assert_int_equal(stats(e).lease_scans, 0);
	assert_int_equal(kill(getpid(), SIGIO), 0);
	for (int i = 0; i < 1000 && stats(e).lease_scans == 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	assert_int_equal(stats(e).lease_scans, 1);
	assert_int_equal(stats(e).held, 3); /* none was breaking */
	assert_int_equal(stats(e).lease_breaks, 0);
}

int main(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, tnfs_deleg_signal());
	sigaddset(&s, SIGIO);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_revoked_leave_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_takes_back_courtesy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_sweep_while_quiet, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
