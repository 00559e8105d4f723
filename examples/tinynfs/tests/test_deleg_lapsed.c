/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * deleg.c on its own with fake callbacks (no transport): the rules a
 * courtesy client's delegation follows, and one delegation per client
 * and file.  A delegation whose holder has lapsed (ops.lapsed) is
 * revoked at once when something conflicts -- an NFS operation of
 * another client (tnfs_deleg_break gives NFS4_OK, not NFS4ERR_DELAY) or
 * a local writer (its open(2) breaking the file lease returns without
 * any recall) -- and no recall is sent; the holder later sees
 * NFS4ERR_DELEG_REVOKED and SEQ4_STATUS_RECALLABLE_STATE_REVOKED until
 * FREE_STATEID.  A live holder is recalled as before (control).  The
 * bounds on delegations per client and in all (a flood of OPENs of
 * distinct files).  Real
 * Linux file leases on a file of a temporary directory.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "deleg_fake.h"

static int setup(void **state)
{
	struct env *e = env_new("/tmp/tinynfs-dlap-XXXXXX");
	assert_int_equal(tnfs_deleg_start(e->d), 0);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	env_free(*state);
	return 0;
}

static void grant(struct env *e, uint64_t client, int path, struct tnfs_file_key k,
		  struct nfs4_stateid *sid)
{
	assert_true(tnfs_deleg_grant(e->d, client, k, path, fh, sizeof(fh), sid));
}

/* One delegation per client and file: a second OPEN of the holder gets
 * none (RFC 8881 10.2); another client gets its own. */
static void test_one_per_client(void **state)
{
	struct env *e = *state;
	struct tnfs_file_key k;
	struct nfs4_stateid s1, s2;
	int path = env_mkfile(e, "one", &k);
	grant(e, 1, path, k, &s1);
	assert_false(tnfs_deleg_grant(e->d, 1, k, path, fh, sizeof(fh), &s2));
	grant(e, 2, path, k, &s2);
	assert_memory_not_equal(s1.other, s2.other, 12);
	struct tnfs_deleg_stats st;
	tnfs_deleg_stats(e->d, &st);
	assert_int_equal(st.granted, 2);
	assert_int_equal(st.held, 2);
	close(path);
}

/* Another client's conflicting operation: the courtesy client's
 * delegation goes at once, unrecalled; a live client's is recalled. */
static void test_conflict_revokes_lapsed(void **state)
{
	struct env *e = *state;
	struct tnfs_file_key k, k2;
	struct nfs4_stateid sid, sid2;
	int path = env_mkfile(e, "c", &k), path2 = env_mkfile(e, "live", &k2);
	grant(e, 1, path, k, &sid);
	grant(e, 3, path2, k2, &sid2);
	e->fake.lapsed[1] = true;
	assert_int_equal(tnfs_deleg_seq_flags(e->d, 1), 0);
	assert_int_equal(tnfs_deleg_break(e->d, 2, k, false), NFS4_OK);
	assert_int_equal(e->fake.recalls, 0);
	assert_true(e->fake.asked >= 1);
	struct tnfs_deleg_stats st;
	tnfs_deleg_stats(e->d, &st);
	assert_int_equal(st.revoked, 1);
	assert_int_equal(st.revoked_lapsed, 1);
	assert_int_equal(st.recalls, 0);
	/* the lease went with it: the file opens for writing at once */
	char p[128];
	snprintf(p, sizeof(p), "%s/c", e->dir);
	int w = open(p, O_WRONLY | O_NONBLOCK);
	assert_true(w >= 0);
	close(w);
	/* the client comes back */
	assert_int_equal(tnfs_deleg_check(e->d, 1, &sid, &k), NFS4ERR_DELEG_REVOKED);
	assert_int_equal(tnfs_deleg_return(e->d, 1, &sid, k), NFS4ERR_DELEG_REVOKED);
	assert_int_equal(tnfs_deleg_seq_flags(e->d, 1), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	assert_int_equal(tnfs_deleg_free_stateid(e->d, 1, &sid), NFS4_OK);
	assert_int_equal(tnfs_deleg_seq_flags(e->d, 1), 0);
	assert_int_equal(tnfs_deleg_check(e->d, 1, &sid, &k), NFS4ERR_BAD_STATEID);
	/* control: a live holder is recalled, the operation waits */
	assert_int_equal(tnfs_deleg_break(e->d, 2, k2, false), NFS4ERR_DELAY);
	assert_int_equal(e->fake.recalls, 1);
	assert_int_equal(e->fake.recalled_client, 3);
	assert_int_equal(tnfs_deleg_break(e->d, 2, k2, false), NFS4ERR_DELAY);
	assert_int_equal(e->fake.recalls, 1); /* recalled once */
	assert_int_equal(tnfs_deleg_return(e->d, 3, &sid2, k2), NFS4_OK);
	assert_int_equal(tnfs_deleg_break(e->d, 2, k2, false), NFS4_OK);
	tnfs_deleg_stats(e->d, &st);
	assert_int_equal(st.revoked, 1);
	assert_int_equal(st.returned, 1);
	close(path);
	close(path2);
}

/* A local writer: its open(2) breaks the lease; deleg's thread finds the
 * holder lapsed and revokes at once, no recall.  The child's alarm and
 * the parent's wait are liveness bounds only. */
static void test_local_writer_lapsed(void **state)
{
	struct env *e = *state;
	struct tnfs_file_key k;
	struct nfs4_stateid sid;
	int path = env_mkfile(e, "w", &k);
	grant(e, 5, path, k, &sid);
	e->fake.lapsed[5] = true;
	char p[128];
	snprintf(p, sizeof(p), "%s/w", e->dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(60);
		int fd = open(p, O_WRONLY | O_APPEND);
		_exit(fd >= 0 && write(fd, "x", 1) == 1 ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	struct tnfs_deleg_stats s;
	tnfs_deleg_stats(e->d, &s);
	assert_int_equal(e->fake.recalls, 0);
	assert_int_equal(s.recalls, 0);
	assert_int_equal(s.revoked_lapsed, 1);
	assert_true(s.lease_breaks >= 1);
	assert_int_equal(tnfs_deleg_check(e->d, 5, &sid, &k), NFS4ERR_DELEG_REVOKED);
	assert_int_equal(tnfs_deleg_seq_flags(e->d, 5), SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
	close(path);
}

/* A flood of OPENs of distinct files, each asking for a delegation:
 * a lone client fills the table past its share (per_client); then
 * another client's asks take back, one recall each, what the first
 * holds past its share, never more; a client past its share that asks
 * of a full table recalls nothing.  (Before issue 36's change a client
 * got no more than its share even from an empty table: got1 was 3.) */
static void test_limits(void **state)
{
	struct env *e = *state;
	tnfs_deleg_set_limits(e->d, 5, 3);
	struct tnfs_file_key k[9];
	struct nfs4_stateid sid[9];
	int path[9];
	char name[8];
	unsigned got1 = 0;
	for (int i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		path[i] = env_mkfile(e, name, &k[i]);
	}
	for (int i = 0; i < 7; i++)
		got1 += tnfs_deleg_grant(e->d, 1, k[i], path[i], fh, sizeof(fh), &sid[i]);
	assert_int_equal(got1, 5); /* m0..m4: the whole table */
	struct tnfs_deleg_stats st;
	tnfs_deleg_stats(e->d, &st);
	assert_int_equal(st.refused_limit, 2);
	assert_int_equal(e->fake.recalls, 0); /* client 1 is the one past */
	/* client 2 asks: refused, one of client 1's recalled, each time
	 * until client 1 is down to its share (3 of 5 granted) */
	struct nfs4_stateid s2[3];
	for (int i = 0; i < 4; i++)
		assert_false(tnfs_deleg_grant(e->d, 2, k[7], path[7], fh, sizeof(fh), &s2[0]));
	assert_int_equal(e->fake.recalls, 2);
	assert_int_equal(e->fake.recalled_client, 1);
	tnfs_deleg_stats(e->d, &st);
	assert_int_equal(st.recalls_share, 2);
	assert_int_equal(st.refused_limit, 6);
	/* client 1 returns them (m0, m1): client 2 gets two */
	assert_int_equal(tnfs_deleg_return(e->d, 1, &sid[0], k[0]), NFS4_OK);
	assert_int_equal(tnfs_deleg_return(e->d, 1, &sid[1], k[1]), NFS4_OK);
	grant(e, 2, path[7], k[7], &s2[0]);
	grant(e, 2, path[8], k[8], &s2[1]);
	/* full again, nobody past a share: client 3 is refused, and no
	 * recall takes anything from clients within theirs */
	assert_false(tnfs_deleg_grant(e->d, 3, k[5], path[5], fh, sizeof(fh), &s2[2]));
	assert_false(tnfs_deleg_grant(e->d, 1, k[5], path[5], fh, sizeof(fh), &s2[2]));
	assert_int_equal(e->fake.recalls, 2);
	tnfs_deleg_stats(e->d, &st);
	assert_int_equal(st.held, 5);
	/* a client that goes frees its delegations */
	tnfs_deleg_forget_client(e->d, 1);
	tnfs_deleg_stats(e->d, &st);
	assert_int_equal(st.held, 2);
	grant(e, 3, path[5], k[5], &s2[2]);
	for (int i = 0; i < 9; i++)
		close(path[i]);
}

int main(void)
{
	/* the lease-break signals: blocked before any thread (deleg.h) */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, tnfs_deleg_signal());
	sigaddset(&set, SIGIO);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_per_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict_revokes_lapsed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_writer_lapsed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
