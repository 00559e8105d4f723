/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What an OPEN asks for, and the holder's own opens (issue 36), on the
 * tinynfs program (argv[1]) over loopback TCP (deleg_env.h):
 *
 *  - RFC 8881 18.16.3, OPEN4_SHARE_ACCESS_WANT_*: WANT_NO_DELEG is
 *    answered OPEN_DELEGATE_NONE_EXT with WND4_NOT_WANTED, WANT_CANCEL
 *    WND4_CANCELLED; a wanted delegation that is not granted says why
 *    (WND4_CONTENTION: the file is open for writing elsewhere;
 *    WND4_RESOURCE: no callback path; WND4_NOT_SUPP_UPGRADE: a write
 *    delegation for an OPEN for reading); without a want the answer stays
 *    OPEN_DELEGATE_NONE, and a want outside the list is NFS4ERR_INVAL.
 *  - RFC 8881 10.4 (as Linux's nfsd): the holder's own opens never
 *    conflict with its delegation: A opening for writing the file it holds
 *    a read delegation of gets NFS4_OK and no recall; a second client's
 *    write open still recalls it.  Once A's write open is closed, the
 *    delegation's file lease is taken again: a local writer then recalls
 *    it.
 */
#include "deleg_env.h"

#include <sys/wait.h>

#define WANT_READ OPEN4_SHARE_ACCESS_WANT_READ_DELEG
#define WANT_ANY OPEN4_SHARE_ACCESS_WANT_ANY_DELEG

/* OPEN of name by cl as owner: the status; *dtype and *why. */
static uint32_t try_open(struct cl *cl, const char *owner, const char *name, uint32_t access,
			 uint32_t *dtype, uint32_t *why, struct nfs4_stateid *osid)
{
	struct nfs4_stateid dsid, o;
	struct fh fh;
	*dtype = 99;
	return open_file_why(cl, owner, name, access, osid ? osid : &o, dtype, &dsid, &fh, why);
}

static void test_wants(void **state)
{
	struct env *e = *state;
	uint32_t dt, why;
	const char *names[] = { "n", "c", "r", "w", "x" };
	for (int i = 0; i < 5; i++)
		mkfile(&e->a, names[i]);
	/* no delegation wanted, none to cancel */
	assert_int_equal(try_open(&e->a, "a1", "n",
				  OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_NO_DELEG, &dt,
				  &why, NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_NOT_WANTED);
	assert_int_equal(try_open(&e->a, "a1", "c",
				  OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_CANCEL, &dt,
				  &why, NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_CANCELLED);
	/* a read delegation wanted and granted; again: held (plain NONE) */
	assert_int_equal(try_open(&e->a, "a1", "r", OPEN4_SHARE_ACCESS_READ | WANT_READ, &dt, &why,
				  NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_READ);
	assert_int_equal(try_open(&e->a, "a2", "r", OPEN4_SHARE_ACCESS_READ | WANT_ANY, &dt, &why,
				  NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE);
	/* B has no callback path: WND4_RESOURCE; without a want plain NONE */
	assert_int_equal(try_open(&e->b, "b1", "r", OPEN4_SHARE_ACCESS_READ | WANT_ANY, &dt, &why,
				  NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_RESOURCE);
	assert_int_equal(try_open(&e->b, "b1", "r", OPEN4_SHARE_ACCESS_READ, &dt, &why, NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE);
	/* B has w open for writing: A's wanted read delegation is contended */
	assert_int_equal(try_open(&e->b, "b1", "w", OPEN4_SHARE_ACCESS_BOTH, &dt, &why, NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE);
	assert_int_equal(try_open(&e->a, "a1", "w", OPEN4_SHARE_ACCESS_READ | WANT_READ, &dt, &why,
				  NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_CONTENTION);
	/* a write delegation for a read-only open: not granted, said so */
	assert_int_equal(try_open(&e->a, "a1", "x",
				  OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG, &dt,
				  &why, NULL),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(why, WND4_NOT_SUPP_UPGRADE);
	/* wants outside the list: invalid */
	for (uint32_t w = 0x0600; w <= 0xff00; w += 0x1100)
		assert_int_equal(try_open(&e->a, "a1", "x", OPEN4_SHARE_ACCESS_READ | w, &dt, &why,
					  NULL),
				 NFS4ERR_INVAL);
	assert_int_equal(e->a.nrecall, 0);
	stop(e);
	assert_int_equal(counter(e, "deleg_granted"), 1);
}

static void test_own_open(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid;
	struct fh fh;
	uint32_t dt, why;
	deleg_of(e, "o", &dsid, &fh);
	/* A's own open for writing, another owner too: no conflict */
	assert_int_equal(try_open(&e->a, "a-w", "o", OPEN4_SHARE_ACCESS_BOTH, &dt, &why, &osid),
			 NFS4_OK);
	assert_int_equal(dt, OPEN_DELEGATE_NONE);
	assert_int_equal(e->a.nrecall, 0);
	assert_int_equal(sid_op(&e->a, &fh, OP_READ, &dsid), NFS4_OK); /* still A's */
	/* B reads: no conflict either; B writes: A's delegation recalled */
	assert_int_equal(try_open(&e->b, "b1", "o", OPEN4_SHARE_ACCESS_READ, &dt, &why, NULL),
			 NFS4_OK);
	assert_int_equal(e->a.nrecall, 0);
	assert_int_equal(try_open(&e->b, "b1", "o", OPEN4_SHARE_ACCESS_BOTH, &dt, &why, NULL),
			 NFS4ERR_DELAY);
	recall_and_return(e, 1, &dsid, &fh);
	assert_int_equal(try_open(&e->b, "b1", "o", OPEN4_SHARE_ACCESS_BOTH, &dt, &why, NULL),
			 NFS4_OK);
	assert_int_equal(close_file(&e->a, &fh, &osid), NFS4_OK);
	stop(e);
	assert_int_equal(counter(e, "cb_recall"), 1);
	assert_int_equal(counter(e, "deleg_returned"), 1);
}

/* After A's own write open is closed, the lease comes back (the scan,
 * once a second, not in the second it went): a local writer blocks on
 * it and A gets the recall. */
static void test_own_open_lease_back(void **state)
{
	struct env *e = *state;
	struct nfs4_stateid dsid, osid;
	struct fh fh;
	uint32_t dt, why;
	deleg_of(e, "l", &dsid, &fh);
	assert_int_equal(try_open(&e->a, "a-w", "l", OPEN4_SHARE_ACCESS_WRITE, &dt, &why, &osid),
			 NFS4_OK);
	assert_int_equal(close_file(&e->a, &fh, &osid), NFS4_OK);
	char path[160];
	snprintf(path, sizeof(path), "%s/l", e->a.f->dir);
	int fd = -1;
	for (int i = 0; i < 100; i++) { /* a liveness bound: 10 s */
		fd = open(path, O_WRONLY | O_NONBLOCK);
		if (fd < 0)
			break;
		close(fd);
		usleep(100 * 1000);
	}
	assert_true(fd < 0);
	assert_int_equal(errno, EWOULDBLOCK);
	cl_wait(&e->a, &e->a.nrecall, 1);
	assert_memory_equal(e->a.recalled.other, dsid.other, 12);
	assert_int_equal(sid_op(&e->a, &fh, OP_DELEGRETURN, &dsid), NFS4_OK);
	fd = open(path, O_WRONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	close(fd);
	stop(e);
	assert_true(counter(e, "lease_breaks") >= 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_open_lease_back, setup, teardown),
	};
	return deleg_run(argc, argv, tests);
}
