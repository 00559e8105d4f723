/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NFSv4.2 space and copy operations (RFC 7862): ALLOCATE, DEALLOCATE,
 * COPY (synchronous, within the server), CLONE, READ_PLUS, and the
 * refusals of COPY_NOTIFY, OFFLOAD_CANCEL and OFFLOAD_STATUS.
 *
 * READ_PLUS answers one segment per call, like a short READ: the data
 * from the offset up to the next hole, or the hole from the offset up to
 * the next data (SEEK_DATA/SEEK_HOLE), at most `count` bytes either way.
 *
 * Each checks its stateids as WRITE and READ do (tnfs_io_fd(): the open
 * behind the stateid must allow the access, and the caller's credentials
 * are checked against the file every time).  The current file handle is
 * the destination; COPY's and CLONE's source is the saved file handle,
 * which must be a regular file of the same export (else NFS4ERR_XDEV).
 * The special current stateid in the source's place means the saved
 * stateid (SAVEFH keeps it).
 *
 * Like Linux nfsd: COPY copies at most 4 MiB per operation (a short copy
 * the client continues: a hostile count cannot hold a thread for long)
 * and reports it UNSTABLE4 under the write verifier; COPY_NOTIFY is
 * NFS4ERR_NOTSUPP (no inter-server copy), and a COPY naming source
 * servers too; OFFLOAD_CANCEL and OFFLOAD_STATUS are NFS4ERR_BAD_STATEID,
 * as no asynchronous copy ever runs whose stateid they could name.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ops.h"
#include "server.h"

#define COPY_MAX (UINT64_C(4) << 20)
#define COPY_BUF (64u << 10)

/* A byte range [off, off + len) as loff_t: EINVAL if off is negative
 * there, EFBIG if the end is (vfs_fallocate()'s answers). */
static uint32_t range_ok(uint64_t off, uint64_t len)
{
	if (off > (uint64_t)INT64_MAX)
		return NFS4ERR_INVAL;
	if (len > (uint64_t)INT64_MAX - off)
		return NFS4ERR_FBIG;
	return NFS4_OK;
}

static uint32_t space(struct tnfs_ctx *c, const union nfs4_args *a, int mode)
{
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	if (a->allocate.length == 0)
		return NFS4ERR_INVAL;
	uint32_t s = range_ok(a->allocate.offset, a->allocate.length);
	if (s != NFS4_OK)
		return s;
	int fd;
	struct stat st;
	struct nfs4_stateid sid;
	s = tnfs_ctx_stateid(c, &a->allocate.stateid, &sid);
	if (s == NFS4_OK)
		s = tnfs_io_fd(c, &c->cfh, &sid, true, &fd, &st);
	if (s != NFS4_OK)
		return s;
	int rc;
	do
		rc = fallocate(fd, mode, (off_t)a->allocate.offset, (off_t)a->allocate.length);
	while (rc != 0 && errno == EINTR);
	int err = errno;
	close(fd);
	if (rc == 0)
		return NFS4_OK;
	if (err == EBADF)
		return NFS4ERR_OPENMODE;
	return err == EOPNOTSUPP || err == ENOSYS ? NFS4ERR_NOTSUPP : tnfs_errno_to_nfs(err);
}

uint32_t tnfs_op_allocate(struct tnfs_ctx *c, const union nfs4_args *a,
			  union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	return space(c, a, 0);
}

uint32_t tnfs_op_deallocate(struct tnfs_ctx *c, const union nfs4_args *a,
			    union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	return space(c, a, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE);
}

/* The source (saved fh, read) and destination (current fh, write)
 * descriptors of COPY and CLONE, and the byte count to act on: count 0
 * is up to the source's end; a range past that end is NFS4ERR_INVAL
 * (RFC 7862 15.2.3, 15.13.3), as is an overlap within one file. */
static uint32_t two_fds(struct tnfs_ctx *c, const union nfs4_args *a, int *sfd, int *dfd,
			uint64_t *count)
{
	*sfd = *dfd = -1;
	if (c->spseudo != TNFS_NOT_PSEUDO || c->sfh.fd < 0)
		return NFS4ERR_NOFILEHANDLE;
	if (c->sexp != c->exp)
		return NFS4ERR_XDEV;
	if (tnfs_ctx_readonly(c))
		return NFS4ERR_ROFS;
	const uint64_t so = a->copy.src_offset, d = a->copy.dst_offset;
	uint32_t s = range_ok(so, 0);
	if (s == NFS4_OK)
		s = range_ok(d, 0);
	if (s != NFS4_OK)
		return s;
	/* the special current stateid of the source: the saved one */
	struct nfs4_stateid ssid = a->copy.src, dsid;
	static const uint8_t zeros[NFS4_OTHER_SIZE];
	if (ssid.seqid == 1 && memcmp(ssid.other, zeros, NFS4_OTHER_SIZE) == 0) {
		if (!c->have_saved_sid)
			return NFS4ERR_BAD_STATEID;
		ssid = c->saved_sid;
	}
	struct stat sst, dst;
	s = tnfs_ctx_stateid(c, &a->copy.dst, &dsid);
	if (s == NFS4_OK)
		s = tnfs_io_fd(c, &c->sfh, &ssid, false, sfd, &sst);
	if (s == NFS4_OK)
		s = tnfs_io_fd(c, &c->cfh, &dsid, true, dfd, &dst);
	if (s != NFS4_OK)
		return s;
	struct stat now;
	if (tnfs_fstat(*sfd, &now) != 0)
		return tnfs_errno_to_nfs(errno);
	uint64_t size = (uint64_t)now.st_size;
	if (so > size)
		return NFS4ERR_INVAL;
	uint64_t n = a->copy.count ? a->copy.count : size - so;
	if (n > size - so)
		return NFS4ERR_INVAL;
	if ((s = range_ok(d, n)) != NFS4_OK)
		return s;
	bool same = sst.st_dev == dst.st_dev && sst.st_ino == dst.st_ino;
	if (same && n && so < d + n && d < so + n)
		return NFS4ERR_INVAL;
	*count = n;
	return NFS4_OK;
}

static void close2(int a, int b)
{
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/* pread/pwrite where copy_file_range(2) cannot (another file system on
 * old kernels, a file system without it). */
static uint32_t copy_rw(int sfd, int dfd, uint64_t so, uint64_t d, uint64_t n, uint64_t *done)
{
	uint8_t *buf = malloc(COPY_BUF);
	if (!buf)
		return NFS4ERR_DELAY;
	uint32_t s = NFS4_OK;
	while (*done < n) {
		size_t want = n - *done < COPY_BUF ? (size_t)(n - *done) : COPY_BUF;
		ssize_t got = pread(sfd, buf, want, (off_t)(so + *done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			s = got < 0 ? tnfs_errno_to_nfs(errno) : NFS4_OK;
			break;
		}
		size_t put = 0;
		while (put < (size_t)got) {
			ssize_t w = pwrite(dfd, buf + put, (size_t)got - put,
					   (off_t)(d + *done + put));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				s = tnfs_errno_to_nfs(errno);
				break;
			}
			put += (size_t)w;
		}
		*done += put;
		if (s != NFS4_OK)
			break;
	}
	free(buf);
	return s;
}

uint32_t tnfs_op_copy(struct tnfs_ctx *c, const union nfs4_args *a,
		      union nfs4_res *r, struct xdr_out *x)
{
	(void)x;
	if (a->copy.nsource)
		return NFS4ERR_NOTSUPP; /* inter-server copy */
	int sfd, dfd;
	uint64_t n;
	uint32_t s = two_fds(c, a, &sfd, &dfd, &n);
	if (s != NFS4_OK) {
		close2(sfd, dfd);
		return s;
	}
	if (n > COPY_MAX)
		n = COPY_MAX;
	uint64_t done = 0;
	while (done < n) {
		loff_t so = (loff_t)(a->copy.src_offset + done);
		loff_t d = (loff_t)(a->copy.dst_offset + done);
		ssize_t k = copy_file_range(sfd, &so, dfd, &d, (size_t)(n - done), 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP ||
			      errno == EINVAL)) {
			s = copy_rw(sfd, dfd, a->copy.src_offset, a->copy.dst_offset, n, &done);
			break;
		}
		if (k < 0) {
			s = errno == EBADF ? NFS4ERR_OPENMODE : tnfs_errno_to_nfs(errno);
			break;
		}
		if (k == 0) /* the source shrank meanwhile */
			break;
		done += (uint64_t)k;
	}
	close2(sfd, dfd);
	if (s != NFS4_OK && done == 0)
		return s;
	r->copy.count = done;
	r->copy.committed = UNSTABLE4;
	memcpy(r->copy.verf, c->srv->write_verf, NFS4_VERIFIER_SIZE);
	r->copy.consecutive = true;
	r->copy.synchronous = true;
	return NFS4_OK;
}

/* CLONE: FICLONERANGE; a file system that cannot share extents is
 * NFS4ERR_NOTSUPP (the Linux client then copies instead). */
uint32_t tnfs_op_clone(struct tnfs_ctx *c, const union nfs4_args *a,
		       union nfs4_res *r, struct xdr_out *x)
{
	(void)r, (void)x;
	int sfd, dfd;
	uint64_t n;
	uint32_t s = two_fds(c, a, &sfd, &dfd, &n);
	if (s == NFS4_OK && n) {
		struct file_clone_range fcr = {
			.src_fd = sfd, .src_offset = a->copy.src_offset,
			.src_length = n, .dest_offset = a->copy.dst_offset,
		};
		if (ioctl(dfd, FICLONERANGE, &fcr) != 0) {
			int err = errno;
			s = err == EOPNOTSUPP || err == ENOTTY || err == EXDEV || err == ENOSYS ?
				    NFS4ERR_NOTSUPP :
			    err == EBADF ? NFS4ERR_OPENMODE : tnfs_errno_to_nfs(err);
		}
	}
	close2(sfd, dfd);
	return s;
}

/* READ_PLUS4resok: eof, one read_plus_content (type, offset, then the
 * data<> or the hole's length); `room` bytes of body at most. */
uint32_t tnfs_op_read_plus(struct tnfs_ctx *c, const union nfs4_args *a,
			   union nfs4_res *r, struct xdr_out *x)
{
	(void)r;
	int fd;
	struct stat st;
	struct nfs4_stateid sid;
	uint32_t s = tnfs_ctx_stateid(c, &a->read.stateid, &sid);
	if (s == NFS4_OK)
		s = tnfs_io_fd(c, &c->cfh, &sid, false, &fd, &st);
	if (s != NFS4_OK)
		return s;
	size_t room = xdr_out_left(x);
	uint64_t count = a->read.count < c->srv->maxread ? a->read.count : c->srv->maxread;
	uint64_t fit = room > READ_PLUS_BODY ? (room - READ_PLUS_BODY) & ~(size_t)3 : 0;
	if (count > fit)
		count = fit;
	const uint64_t off = a->read.offset;
	struct stat now;
	if (tnfs_fstat(fd, &now) != 0) {
		s = tnfs_errno_to_nfs(errno);
		close(fd);
		return s;
	}
	const uint64_t size = (uint64_t)now.st_size;
	if (off >= size || count == 0) {
		close(fd);
		xdr_put_bool(x, off >= size);
		xdr_put_u32(x, 0); /* no contents */
		return NFS4_OK;
	}
	off_t data = lseek(fd, (off_t)off, SEEK_DATA);
	if (data < 0 && errno == ENXIO) /* a hole up to the end */
		data = (off_t)size;
	if (data < 0) {
		s = tnfs_errno_to_nfs(errno);
		close(fd);
		return s;
	}
	if ((uint64_t)data > off) {
		uint64_t len = (uint64_t)data - off < count ? (uint64_t)data - off : count;
		close(fd);
		xdr_put_bool(x, off + len >= size);
		xdr_put_u32(x, 1);
		xdr_put_u32(x, NFS4_CONTENT_HOLE);
		xdr_put_u64(x, off);
		xdr_put_u64(x, len);
		return NFS4_OK;
	}
	off_t hole = lseek(fd, (off_t)off, SEEK_HOLE);
	if (hole >= 0 && (uint64_t)hole > off && (uint64_t)hole - off < count)
		count = (uint64_t)hole - off;
	uint8_t *hdr = xdr_reserve(x, 20); /* eof, count, type, offset */
	uint8_t *lenp = xdr_reserve(x, 4);
	if (!hdr || !lenp) {
		close(fd);
		return NFS4ERR_REP_TOO_BIG;
	}
	uint8_t *p = x->p;
	size_t got = 0;
	while (got < count) {
		ssize_t n = pread(fd, p + got, (size_t)count - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			s = errno == EBADF ? NFS4ERR_OPENMODE : tnfs_errno_to_nfs(errno);
			close(fd);
			return s;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	bool eof = tnfs_fstat(fd, &now) == 0 ? off + got >= (uint64_t)now.st_size : got < count;
	close(fd);
	xdr_wr32(hdr, eof);
	xdr_wr32(hdr + 4, 1);
	xdr_wr32(hdr + 8, NFS4_CONTENT_DATA);
	xdr_wr32(hdr + 12, (uint32_t)(off >> 32));
	xdr_wr32(hdr + 16, (uint32_t)off);
	xdr_wr32(lenp, (uint32_t)got);
	memset(p + got, 0, xdr_pad((uint32_t)got) - got);
	x->p = p + xdr_pad((uint32_t)got);
	return NFS4_OK;
}

uint32_t tnfs_op_copy_notify(struct tnfs_ctx *c, const union nfs4_args *a,
			     union nfs4_res *r, struct xdr_out *x)
{
	(void)c, (void)a, (void)r, (void)x;
	return NFS4ERR_NOTSUPP;
}

uint32_t tnfs_op_offload_cancel(struct tnfs_ctx *c, const union nfs4_args *a,
				union nfs4_res *r, struct xdr_out *x)
{
	(void)c, (void)a, (void)r, (void)x;
	return NFS4ERR_BAD_STATEID;
}

uint32_t tnfs_op_offload_status(struct tnfs_ctx *c, const union nfs4_args *a,
				union nfs4_res *r, struct xdr_out *x)
{
	(void)c, (void)a, (void)r, (void)x;
	return NFS4ERR_BAD_STATEID;
}
