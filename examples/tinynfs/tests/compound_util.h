/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the files of the COMPOUND test program (test_compound*.c, one
 * program, main in test_compound.c) share: their fixture, an OPEN
 * through a directory's handle, the tests of each file.
 */
#ifndef TNFS_TEST_COMPOUND_UTIL_H
#define TNFS_TEST_COMPOUND_UTIL_H

/* One program of several files: ops_checked_ok is test_compound.c's. */
#define TNFS_OPS_CHECKED_EXTERN
#include "nfstest.h"
#include "fh_cache.h"

#include <dirent.h>
#include <errno.h>
#include <sys/fsuid.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int setup(void **state)
{
	*state = fx_new("*(rw,no_root_squash)");
	return 0;
}

/* PUTFH dir, OPEN name, GETFH -> stateid and handle. */
static inline uint32_t do_open(struct fx *f, const struct fh *dir, const char *owner,
			       uint32_t access, bool create, const char *name,
			       struct nfs4_stateid *sid, struct fh *h)
{
	fx_seq(f);
	req_op(&f->rq, OP_PUTFH);
	put_fh(&f->rq.x, dir);
	req_op(&f->rq, OP_OPEN);
	put_open(&f->rq.x, owner, access, create, 0640, name);
	req_op(&f->rq, OP_GETFH);
	uint32_t st = fx_call(f);
	fx_seq_ok(f);
	assert_int_equal(rep_op(&f->rp, OP_PUTFH), NFS4_OK);
	uint32_t os = rep_op(&f->rp, OP_OPEN);
	assert_int_equal(os, st);
	if (os != NFS4_OK)
		return os;
	get_stateid(&f->rp.x, sid);
	assert_true(xdr_get_bool(&f->rp.x)); /* cinfo.atomic */
	(void)xdr_get_u64(&f->rp.x);
	(void)xdr_get_u64(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN4_RESULT_LOCKTYPE_POSIX);
	uint32_t n = xdr_get_u32(&f->rp.x);
	for (uint32_t i = 0; i < n; i++)
		(void)xdr_get_u32(&f->rp.x);
	assert_int_equal(xdr_get_u32(&f->rp.x), OPEN_DELEGATE_NONE);
	fx_getfh_after(f, h);
	return NFS4_OK;
}

/* The tests of the other files; main is in test_compound.c. */
/* test_compound_dirs.c */
void test_dir_handle_cache(void **state);
void test_dir_cache_loans(void **state);
void test_dir_cache_loans_compound(void **state);
void test_confinement(void **state);
void test_setattr_split(void **state);
void test_readdir_pages(void **state);
/* test_compound_session.c */
void test_errors_and_ordering(void **state);
void test_sessions(void **state);
void test_locks(void **state);
void test_lease_expiry(void **state);
/* test_compound_limits.c */
void test_estimates(void **state);
void test_rep_too_big(void **state);
void test_readonly_and_squash(void **state);
void test_security_label(void **state);
void test_inode_handles(void **state);
void test_every_estimator_checked(void **state);

#endif /* TNFS_TEST_COMPOUND_UTIL_H */
