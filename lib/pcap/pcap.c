/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wire capture's writer: RoCEv2 frames (Ethernet, IPv4 or IPv6, UDP
 * 4791, BTH, RETH/AETH/IETH, payload, pad, ICRC) in a pcap file.  No
 * verbs here (pcap_rdma.c feeds it from work requests).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pcap_int.h"
#include "util/byteorder.h"

#define PCAP_MAGIC 0xa1b2c3d4u
#define PCAP_SNAPLEN 262144u
#define PCAP_LINKTYPE_ETHERNET 1u
#define ROCEV2_PORT 4791u
#define PSN_MASK 0xffffffu
/* Record header, Ethernet, IPv6, UDP, BTH, RETH, payload, pad, ICRC. */
#define FRAME_MAX (16 + 14 + 40 + 8 + 12 + 16 + RPCRDMA__PCAP_MTU + 3 + 4)

struct rpcrdma__pcap {
	int fd;
};

/* ---- CRC32 (IEEE 802.3, reflected), as the ICRC uses it ---- */

static uint32_t crc32_step(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return crc;
}

/*
 * RoCEv2 ICRC (IBA annex A17.3.3): CRC32 over 64 bits of ones (the masked
 * LRH), the IP header with its variant fields set to ones (IPv4: TOS, TTL,
 * checksum; IPv6: traffic class, flow label, hop limit), the UDP header
 * with its checksum set to ones, the BTH with its reserved byte set to
 * ones, and the rest up to the ICRC.  ip: the IP header, len: up to the
 * ICRC.
 */
uint32_t rpcrdma__pcap_icrc(const uint8_t *ip, size_t len)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[40 + 8 + 12];
	size_t iplen = (ip[0] >> 4) == 6 ? 40 : 20, hl = iplen + 8 + 12;
	uint32_t crc = 0xffffffffu;

	if (len < hl)
		return 0;
	memcpy(h, ip, hl);
	if (iplen == 20) {
		h[1] = 0xff;                        /* TOS */
		h[8] = 0xff;                        /* TTL */
		h[10] = h[11] = 0xff;               /* header checksum */
	} else {
		h[0] |= 0x0f;                       /* traffic class, */
		memset(h + 1, 0xff, 3);             /* flow label */
		h[7] = 0xff;                        /* hop limit */
	}
	h[iplen + 6] = h[iplen + 7] = 0xff;         /* UDP checksum */
	h[iplen + 8 + 4] = 0xff;                    /* BTH resv8a */
	crc = crc32_step(crc, ones, sizeof(ones));
	crc = crc32_step(crc, h, hl);
	crc = crc32_step(crc, ip + hl, len - hl);
	return ~crc;
}

/* ---- the file ---- */

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* The global header, when the file is empty: under flock, so that writers
 * sharing the file (other objects, other processes) write it once. */
static int write_header(int fd)
{
	const uint32_t hdr[6] = { PCAP_MAGIC, 2u | (4u << 16), 0, 0, PCAP_SNAPLEN,
				  PCAP_LINKTYPE_ETHERNET };
	struct stat st;
	int err = 0;

	if (flock(fd, LOCK_EX))
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (st.st_size == 0)
		err = write_all(fd, hdr, sizeof(hdr));
	flock(fd, LOCK_UN);
	return err;
}

/* The capture holds every byte of the traffic, and a server that captures
 * often runs as root: open it so that nobody else can point it elsewhere
 * or read it.  A symbolic link is refused (O_NOFOLLOW: ELOOP), a FIFO or
 * device never blocks the open (O_NONBLOCK) and is refused, as is a file
 * with another name (a hard link), or one that another user owns; a new
 * file is created 0600.  Returns the descriptor, or a negative errno. */
static int open_private(const char *path)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
		  0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	err = -EINVAL;
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		goto out_close;
	err = -EPERM;
	if (st.st_uid != geteuid())
		goto out_close;
	if (fcntl(fd, F_SETFL, O_APPEND) == -1) {
		err = -errno;
		goto out_close;
	}
	return fd;
out_close:
	close(fd);
	return err;
}

int rpcrdma__pcap_open(const char *path, struct rpcrdma__pcap **out)
{
	struct rpcrdma__pcap *p;
	int err;

	*out = NULL;
	if (!path)
		path = secure_getenv(RPCRDMA__PCAP_ENV);
	if (!path || !*path)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = open_private(path);
	if (p->fd < 0) {
		err = p->fd;
		free(p);
		return err;
	}
	err = write_header(p->fd);
	if (err) {
		rpcrdma__pcap_close(p);
		return err;
	}
	*out = p;
	return 0;
}

void rpcrdma__pcap_close(struct rpcrdma__pcap *p)
{
	if (!p)
		return;
	close(p->fd);
	free(p);
}

/* ---- frames ---- */

/* The frames of one message, written with one write(). */
struct batch {
	uint8_t *buf;
	size_t len, cap;
	struct timespec ts;
};

static int batch_init(struct batch *b, size_t payload, size_t npk)
{
	b->len = 0;
	b->cap = payload + npk * (FRAME_MAX - RPCRDMA__PCAP_MTU);
	b->buf = malloc(b->cap);
	clock_gettime(CLOCK_REALTIME, &b->ts);
	return b->buf ? 0 : -ENOMEM;
}

static int batch_flush(struct rpcrdma__pcap *p, struct batch *b)
{
	int err = write_all(p->fd, b->buf, b->len);

	free(b->buf);
	return err;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The IP address of sa as 16 bytes (IPv4 as v4-mapped); true for IPv4. */
static bool addr16(const struct sockaddr_storage *sa, uint8_t out[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (sa->ss_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return memcmp(out, mapped, 12) == 0;
	}
	memcpy(out, mapped, 12);
	if (sa->ss_family == AF_INET)
		memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else
		memset(out + 12, 0, 4);
	return true;
}

/* A locally administered MAC made of the address's last bytes (RoCEv2
 * resolves the real ones by ARP/ND; the capture has no use for them). */
static void mac_of(uint8_t mac[6], const uint8_t a[16])
{
	mac[0] = 0x02;
	memcpy(mac + 1, a + 11, 5);
}

/* Ones' complement sum over n bytes. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (; n > 1; p += 2, n -= 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (n)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Copies [off, off + len) of the iovecs to dst. */
static void iov_gather(uint8_t *dst, const struct iovec *iov, unsigned n, size_t off, size_t len)
{
	for (unsigned i = 0; i < n && len; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		size_t k = iov[i].iov_len - off < len ? iov[i].iov_len - off : len;

		memcpy(dst, (const uint8_t *)iov[i].iov_base + off, k);
		dst += k;
		len -= k;
		off = 0;
	}
}

/* The IP and UDP headers at ip for a UDP payload of ulen bytes; returns
 * the IP header's length. */
static size_t ip_udp(uint8_t *ip, const struct rpcrdma__pcap_flow *f, bool v4, const uint8_t s[16],
		     const uint8_t d[16], size_t ulen)
{
	size_t iplen = v4 ? 20 : 40;
	uint8_t *udp = ip + iplen;

	if (v4) {
		ip[0] = 0x45;
		ip[1] = 0;
		put16(ip + 2, (uint32_t)(20 + 8 + ulen));
		put16(ip + 4, 0);
		put16(ip + 6, 0x4000);              /* DF */
		ip[8] = 64;
		ip[9] = IPPROTO_UDP;
		put16(ip + 10, 0);
		memcpy(ip + 12, s + 12, 4);
		memcpy(ip + 16, d + 12, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	} else {
		rpcrdma__put_be32(ip, 0x60000000u);
		put16(ip + 4, (uint32_t)(8 + ulen));
		ip[6] = IPPROTO_UDP;
		ip[7] = 64;
		memcpy(ip + 8, s, 16);
		memcpy(ip + 24, d, 16);
	}
	/* RoCEv2 picks the source port from the QPs (entropy); this one is
	 * the sender's QP in the range 0xc000.. */
	put16(udp, 0xc000u | (f->sqpn & 0x3fffu));
	put16(udp + 2, ROCEV2_PORT);
	put16(udp + 4, (uint32_t)(8 + ulen));
	put16(udp + 6, 0);
	return iplen;
}

/* The UDP checksum, over the pseudo-header and the datagram. */
static void udp_csum(uint8_t *ip, size_t iplen, size_t ulen)
{
	uint8_t *udp = ip + iplen;
	uint32_t sum = 0;
	uint16_t c;

	if (iplen == 20) {
		sum = csum_add(sum, ip + 12, 8);
	} else {
		sum = csum_add(sum, ip + 8, 32);
	}
	sum += IPPROTO_UDP + (uint32_t)(8 + ulen);
	sum = csum_add(sum, udp, 8 + ulen);
	c = csum_fold(sum);
	put16(udp + 6, c ? c : 0xffff);
}

/*
 * Appends one packet: opcode op, PSN psn, extension headers ext, and
 * [off, off + len) of the iovecs as its payload.
 */
static void batch_frame(struct batch *b, const struct rpcrdma__pcap_flow *f, uint8_t op,
			uint32_t psn, const uint8_t *ext, size_t extlen, const struct iovec *iov,
			unsigned iovcnt, size_t off, size_t len)
{
	uint8_t s[16], d[16];
	bool v4s = addr16(&f->src, s), v4d = addr16(&f->dst, d);
	bool v4 = v4s && v4d;  /* else IPv6, an IPv4 side v4-mapped */
	size_t pad = (4 - (len & 3)) & 3;
	size_t ulen = 12 + extlen + len + pad + 4;
	size_t iplen = v4 ? 20 : 40;
	size_t flen = 14 + iplen + 8 + ulen;
	uint8_t *rec = b->buf + b->len, *eth = rec + 16, *ip = eth + 14, *bth, *q;
	uint32_t hdr[4] = { (uint32_t)b->ts.tv_sec, (uint32_t)(b->ts.tv_nsec / 1000),
			    (uint32_t)flen, (uint32_t)flen };
	uint32_t icrc;

	memcpy(rec, hdr, sizeof(hdr));
	mac_of(eth, d);
	mac_of(eth + 6, s);
	put16(eth + 12, v4 ? 0x0800 : 0x86dd);
	ip_udp(ip, f, v4, s, d, ulen);
	bth = ip + iplen + 8;
	bth[0] = op;
	bth[1] = (uint8_t)(pad << 4);               /* SE 0, M 0, PadCnt, TVer 0 */
	put16(bth + 2, 0xffff);                     /* default P_Key */
	rpcrdma__put_be32(bth + 4, f->dqpn & PSN_MASK);         /* resv8a 0, DestQP */
	rpcrdma__put_be32(bth + 8, psn & PSN_MASK);             /* AckReq 0, PSN */
	q = bth + 12;
	memcpy(q, ext, extlen);
	q += extlen;
	iov_gather(q, iov, iovcnt, off, len);
	q += len;
	memset(q, 0, pad);
	q += pad;
	icrc = rpcrdma__pcap_icrc(ip, (size_t)(q - ip));
	q[0] = (uint8_t)icrc;
	q[1] = (uint8_t)(icrc >> 8);
	q[2] = (uint8_t)(icrc >> 16);
	q[3] = (uint8_t)(icrc >> 24);
	udp_csum(ip, iplen, ulen);
	b->len += 16 + flen;
}

static size_t iov_total(const struct iovec *iov, unsigned n)
{
	size_t t = 0;

	for (unsigned i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

static size_t npackets(size_t len)
{
	return len ? (len + RPCRDMA__PCAP_MTU - 1) / RPCRDMA__PCAP_MTU : 1;
}

/* Opcode of packet i of n: first/middle/last/only from a table of four. */
static uint8_t op_of(size_t i, size_t n, const uint8_t ops[4])
{
	if (n == 1)
		return ops[3];
	return i == 0 ? ops[0] : i + 1 == n ? ops[2] : ops[1];
}

static void reth(uint8_t out[16], uint64_t va, uint32_t rkey, uint32_t len)
{
	rpcrdma__put_be32(out, (uint32_t)(va >> 32));
	rpcrdma__put_be32(out + 4, (uint32_t)va);
	rpcrdma__put_be32(out + 8, rkey);
	rpcrdma__put_be32(out + 12, len);
}

/*
 * Frames one message of the iovecs as packets of opcodes ops (first,
 * middle, last, only), taking their PSNs from psn.  ext (extlen bytes)
 * rides on the first packet, or on the last one if ext_last.
 */
static int message(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *f,
		   _Atomic uint32_t *psn, const uint8_t ops[4], const uint8_t *ext,
		   size_t extlen, bool ext_last, const struct iovec *iov, unsigned iovcnt)
{
	size_t len = iov_total(iov, iovcnt), n = npackets(len);
	uint32_t first = atomic_fetch_add(psn, (uint32_t)n);
	struct batch b;
	int err = batch_init(&b, len, n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		size_t off = i * RPCRDMA__PCAP_MTU;
		size_t k = len - off < RPCRDMA__PCAP_MTU ? len - off : RPCRDMA__PCAP_MTU;
		bool has_ext = ext_last ? i + 1 == n : i == 0;

		batch_frame(&b, f, op_of(i, n, ops), first + (uint32_t)i, ext, has_ext ? extlen : 0,
			    iov, iovcnt, off, k);
	}
	return batch_flush(p, &b);
}

int rpcrdma__pcap_send(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *f,
		       _Atomic uint32_t *psn, const struct iovec *iov, unsigned iovcnt, bool inv,
		       uint32_t inv_rkey)
{
	static const uint8_t ops[4] = { RPCRDMA__IB_SEND_FIRST, RPCRDMA__IB_SEND_MIDDLE,
					RPCRDMA__IB_SEND_LAST, RPCRDMA__IB_SEND_ONLY };
	static const uint8_t ops_inv[4] = { RPCRDMA__IB_SEND_FIRST, RPCRDMA__IB_SEND_MIDDLE,
					    RPCRDMA__IB_SEND_LAST_INV, RPCRDMA__IB_SEND_ONLY_INV };
	uint8_t ieth[4];

	rpcrdma__put_be32(ieth, inv_rkey);
	return message(p, f, psn, inv ? ops_inv : ops, ieth, inv ? 4 : 0, true, iov, iovcnt);
}

int rpcrdma__pcap_write(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *f,
			_Atomic uint32_t *psn, uint64_t va, uint32_t rkey, const struct iovec *iov,
			unsigned iovcnt)
{
	static const uint8_t ops[4] = { RPCRDMA__IB_WRITE_FIRST, RPCRDMA__IB_WRITE_MIDDLE,
					RPCRDMA__IB_WRITE_LAST, RPCRDMA__IB_WRITE_ONLY };
	uint8_t ext[16];

	reth(ext, va, rkey, (uint32_t)iov_total(iov, iovcnt));
	return message(p, f, psn, ops, ext, 16, false, iov, iovcnt);
}

int rpcrdma__pcap_read(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *f,
		       _Atomic uint32_t *psn, uint64_t va, uint32_t rkey, const void *data,
		       uint32_t len)
{
	static const uint8_t ops[4] = { RPCRDMA__IB_READ_RESP_FIRST, RPCRDMA__IB_READ_RESP_MIDDLE,
					RPCRDMA__IB_READ_RESP_LAST, RPCRDMA__IB_READ_RESP_ONLY };
	/* AETH: syndrome ACK with "no credit count", MSN 0. */
	static const uint8_t aeth[4] = { 0x1f, 0, 0, 0 };
	struct rpcrdma__pcap_flow back = { .src = f->dst, .dst = f->src, .sqpn = f->dqpn,
					   .dqpn = f->sqpn };
	struct iovec iov = { .iov_base = (void *)(uintptr_t)data, .iov_len = len };
	size_t n = npackets(len);
	uint32_t first = atomic_fetch_add(psn, (uint32_t)n);
	uint8_t ext[16];
	struct batch b;
	int err = batch_init(&b, len, n + 1);

	if (err)
		return err;
	reth(ext, va, rkey, len);
	batch_frame(&b, f, RPCRDMA__IB_READ_REQUEST, first, ext, 16, NULL, 0, 0, 0);
	for (size_t i = 0; i < n; i++) {
		size_t off = i * RPCRDMA__PCAP_MTU;
		size_t k = len - off < RPCRDMA__PCAP_MTU ? len - off : RPCRDMA__PCAP_MTU;
		uint8_t op = op_of(i, n, ops);
		bool has_aeth = op != RPCRDMA__IB_READ_RESP_MIDDLE;

		batch_frame(&b, &back, op, first + (uint32_t)i, aeth, has_aeth ? 4 : 0, &iov, 1, off,
			    k);
	}
	return batch_flush(p, &b);
}

/* ---- the connection: CM REQ, REP and RTU ---- */

/* The GID of an address (RoCEv2: the IP address, IPv4 mapped). */
static void gid_of(uint8_t gid[16], const struct sockaddr_storage *sa)
{
	addr16(sa, gid);
}

/* A CM MAD (IBA 16.7, attribute attr) with its 232 bytes of data. */
static void cm_mad(uint8_t mad[256], uint16_t attr, uint64_t tid)
{
	memset(mad, 0, 256);
	mad[0] = 1;                                 /* BaseVersion */
	mad[1] = 0x07;                              /* MgmtClass: CM */
	mad[2] = 2;                                 /* ClassVersion */
	mad[3] = 0x03;                              /* Method: Send */
	rpcrdma__put_be32(mad + 8, (uint32_t)(tid >> 32));
	rpcrdma__put_be32(mad + 12, (uint32_t)tid);
	put16(mad + 16, attr);
}

static void cm_frame(struct batch *b, const struct rpcrdma__pcap_flow *f, const uint8_t mad[256])
{
	/* UD SEND_ONLY to QP1 (the GSI), DETH: the CM's Q_Key, source QP 1. */
	static const uint8_t deth[8] = { 0x80, 0x01, 0x00, 0x00, 0, 0, 0, 1 };
	struct rpcrdma__pcap_flow gsi = *f;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)mad, .iov_len = 256 };

	gsi.sqpn = gsi.dqpn = 1;
	batch_frame(b, &gsi, 0x64, 0, deth, sizeof(deth), &iov, 1, 0, 256);
}

int rpcrdma__pcap_connect(struct rpcrdma__pcap *p, const struct rpcrdma__pcap_flow *c2s,
			  uint32_t cpsn, uint32_t spsn, uint16_t port)
{
	struct rpcrdma__pcap_flow s2c = { .src = c2s->dst, .dst = c2s->src, .sqpn = c2s->dqpn,
					  .dqpn = c2s->sqpn };
	uint64_t tid = ((uint64_t)c2s->sqpn << 32) | c2s->dqpn;
	uint32_t cid = c2s->sqpn, sid = c2s->dqpn;  /* communication ids */
	uint8_t mad[256], *d = mad + 24;
	struct batch b;
	int err = batch_init(&b, 3 * 256, 3);

	if (err)
		return err;
	/* REQ (IBA 12.6.5): RC, the client's QP and PSN, the primary path. */
	cm_mad(mad, 0x0010, tid);
	rpcrdma__put_be32(d, cid);
	rpcrdma__put_be32(d + 8, 0x00000000u);                  /* ServiceID: RDMA_PS_TCP, port */
	rpcrdma__put_be32(d + 12, 0x01060000u | port);
	rpcrdma__put_be32(d + 32, (c2s->sqpn & PSN_MASK) << 8 | 16);  /* QPN, responder resources */
	rpcrdma__put_be32(d + 36, 16);                          /* EECN 0, initiator depth */
	rpcrdma__put_be32(d + 40, 0x17u << 3 | 0 << 1 | 1);     /* remote CM timeout, RC, flow ctl */
	rpcrdma__put_be32(d + 44, (cpsn & PSN_MASK) << 8 | 0x17u << 3 | 7);
	put16(d + 48, 0xffff);                      /* P_Key */
	d[50] = 5u << 4 | 7;                        /* MTU 4096, RNR retry 7 */
	d[51] = 15u << 4;                           /* max CM retries */
	/* primary path: LIDs 0 (RoCE has none), the GIDs */
	gid_of(d + 56, &c2s->src);
	gid_of(d + 72, &c2s->dst);
	d[92] = 0;                                  /* traffic class */
	d[93] = 64;                                 /* hop limit */
	d[95] = 0x12u << 3;                         /* local ACK timeout */
	cm_frame(&b, c2s, mad);
	/* REP (IBA 12.6.8): the server's QP and PSN. */
	cm_mad(mad, 0x0013, tid);
	rpcrdma__put_be32(d, sid);
	rpcrdma__put_be32(d + 4, cid);
	rpcrdma__put_be32(d + 12, (c2s->dqpn & PSN_MASK) << 8);
	rpcrdma__put_be32(d + 20, (spsn & PSN_MASK) << 8);
	d[24] = 16;                                 /* responder resources */
	d[25] = 16;                                 /* initiator depth */
	d[26] = 0x0f << 3 | 1;                      /* target ACK delay, flow ctl */
	d[27] = 7u << 5;                            /* RNR retry */
	cm_frame(&b, &s2c, mad);
	/* RTU (IBA 12.6.9). */
	cm_mad(mad, 0x0014, tid);
	rpcrdma__put_be32(d, cid);
	rpcrdma__put_be32(d + 4, sid);
	cm_frame(&b, c2s, mad);
	return batch_flush(p, &b);
}
