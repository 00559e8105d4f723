/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exports file.  One export per line:
 *
 *     /absolute/path  [*](option,option,...)
 *     /absolute/path  option,option,...
 *
 * `#` starts a comment; blank lines are ignored; paths contain no blanks.
 * The client part may only be `*` or absent (this server does no host
 * matching).  Options:
 *   rw | ro                     (default ro)
 *   security_label              serve the NFSv4.2 sec_label attribute
 *                               (off by default)
 *   root_squash | no_root_squash | all_squash | no_all_squash
 *                               (default root_squash)
 *   anonuid=N, anongid=N        the ids squashed users become (65534)
 *   sec=F[:F...]                the security flavours the export takes, in
 *                               the order SECINFO lists them; F is none,
 *                               sys, krb5, krb5i or krb5p (knfsd's
 *                               names); once only.  Without it: AUTH_SYS
 *                               and AUTH_NONE, SECINFO listing AUTH_SYS
 *   sync, no_subtree_check, no_wdelay, fsid=0|root   accepted, no effect
 *   async, subtree_check, other fsid values, anything else: an error.
 * A path given twice is an error.  Errors name the line:
 * "exports:3: unknown option 'foo'".
 */
#ifndef TINYNFS_EXPORTS_H
#define TINYNFS_EXPORTS_H

#include <stddef.h>
#include <stdint.h>

#define TNFS_EXP_RW 0x0001u
#define TNFS_EXP_SECURITY_LABEL 0x0080u /* the kernel's NFSEXP_SECURITY_LABEL bit */

enum tnfs_squash {
	TNFS_SQUASH_ROOT = 0, /* uid 0 -> anonuid (default) */
	TNFS_SQUASH_NONE,
	TNFS_SQUASH_ALL,      /* every uid -> anonuid */
};

/* Security flavours of sec= (RFC 8881 2.6.3.1; RPCSEC_GSS with the
 * Kerberos V5 mechanism and a service for the krb5 ones). */
enum tnfs_sec {
	TNFS_SEC_NONE = 1, /* AUTH_NONE */
	TNFS_SEC_SYS,	   /* AUTH_SYS */
	TNFS_SEC_KRB5,	   /* RPCSEC_GSS, rpc_gss_svc_none */
	TNFS_SEC_KRB5I,	   /* ... rpc_gss_svc_integrity */
	TNFS_SEC_KRB5P,	   /* ... rpc_gss_svc_privacy */
};
#define TNFS_SEC_MAX 5

struct tnfs_export_entry {
	char *path;	/* absolute, owned by the entry */
	uint32_t flags; /* TNFS_EXP_* */
	enum tnfs_squash squash;
	uint32_t anonuid, anongid;
	uint8_t sec[TNFS_SEC_MAX]; /* enum tnfs_sec, nsec of them; 0: no sec= */
	uint8_t nsec;
	unsigned line;
};

struct tnfs_exports {
	size_t n;
	struct tnfs_export_entry *v; /* owned; free with tnfs_exports_free() */
};

/* Parses `len` bytes of exports text (NUL bytes are an error).  On success
 * returns 0 and fills *out (the caller frees it).  On a syntax error returns
 * -EINVAL and writes "<name>:<line>: <reason>" into err (always
 * NUL-terminated if errlen > 0); -ENOMEM if out of memory.  *out is left
 * empty on error. */
int tnfs_exports_parse(const char *name, const char *text, size_t len,
		       struct tnfs_exports *out, char *err, size_t errlen);

/* Reads and parses a file; errors as above, plus -errno of open/read. */
int tnfs_exports_load(const char *file, struct tnfs_exports *out, char *err,
		      size_t errlen);

void tnfs_exports_free(struct tnfs_exports *e);

#endif
