/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gss_forgesvc KEYTAB MODE: a hostile RPCSEC_GSS server for the client's
 * checks of reply verifiers (RFC 2203 section 5.2.3.1 and 5.3.3.2).  On
 * 127.0.0.1 over TCP (port chosen by the kernel, printed as "port N"), it
 * serves one connection: context creation with GSS-API and the keys of
 * KEYTAB, and data calls (service none) answered SUCCESS with no results.
 * MODE says what it forges:
 *   init  the verifier of the INIT reply that completes the context is a
 *         MIC of the window + 1 (not of the window it announces)
 *   none  ... is AUTH_NONE instead of a MIC
 *   call  the context is made properly; every data reply's verifier is a
 *         MIC of the call's sequence number + 1
 *   good  nothing (the control: the client must accept this server)
 * Written without the library, so that its forgeries are its own.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>

#define WINDOW 32u

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

static uint8_t *put_opaque(uint8_t *p, const void *d, uint32_t n)
{
	p = put32(p, n);
	memcpy(p, d, n);
	memset(p + n, 0, (4 - (n & 3)) & 3);
	return p + ((n + 3) & ~3u);
}

static int read_full(int fd, uint8_t *b, size_t n)
{
	while (n) {
		ssize_t r = read(fd, b, n);
		if (r <= 0)
			return -1;
		b += r, n -= (size_t)r;
	}
	return 0;
}

/* One record (a single last fragment), at most cap bytes. */
static ssize_t read_record(int fd, uint8_t *b, size_t cap)
{
	uint8_t m[4];
	if (read_full(fd, m, 4))
		return -1;
	uint32_t n = get32(m) & 0x7fffffffu;
	if (!(get32(m) & 0x80000000u) || n > cap || read_full(fd, b, n))
		return -1;
	return (ssize_t)n;
}

/* A MIC of v (4 bytes, big endian) as an RPCSEC_GSS verifier at p. */
static uint8_t *mic_verf(uint8_t *p, gss_ctx_id_t ctx, uint32_t v)
{
	uint8_t b[4];
	OM_uint32 min;
	gss_buffer_desc in = {4, b}, mic = GSS_C_EMPTY_BUFFER;

	put32(b, v);
	if (GSS_ERROR(gss_get_mic(&min, ctx, GSS_C_QOP_DEFAULT, &in, &mic)))
		exit(3);
	p = put32(p, 6);
	p = put_opaque(p, mic.value, (uint32_t)mic.length);
	gss_release_buffer(&min, &mic);
	return p;
}

static int serve(int fd, const char *mode)
{
	static uint8_t in[70000], out[70000];
	gss_ctx_id_t ctx = GSS_C_NO_CONTEXT;
	OM_uint32 maj = 0, min;
	ssize_t n;

	while ((n = read_record(fd, in, sizeof(in))) > 0) {
		/* xid CALL 2 prog vers proc | cred: 6 len (1 gproc seq svc handle<>) | verf */
		if (n < 48 || get32(in + 4) != 0 || get32(in + 24) != 6)
			return 1;
		uint32_t clen = get32(in + 28), gproc = get32(in + 36), seq = get32(in + 40);
		size_t off = 32 + ((clen + 3) & ~3u);
		if (off + 8 > (size_t)n)
			return 1;
		off += 8 + ((get32(in + off + 4) + 3) & ~3u);  /* the verifier */
		uint8_t *p = put32(out + 4, get32(in));
		p = put32(p, 1);       /* REPLY */
		p = put32(p, 0);       /* MSG_ACCEPTED */
		if (gproc == 1 || gproc == 2) {
			if (off + 4 > (size_t)n || get32(in + off) > (size_t)n - off - 4)
				return 1;
			gss_buffer_desc tok = {get32(in + off), in + off + 4};
			gss_buffer_desc otok = GSS_C_EMPTY_BUFFER;
			maj = gss_accept_sec_context(&min, &ctx, GSS_C_NO_CREDENTIAL, &tok,
						     GSS_C_NO_CHANNEL_BINDINGS, NULL, NULL, &otok,
						     NULL, NULL, NULL);
			if (GSS_ERROR(maj))
				return 1;
			if (maj == GSS_S_COMPLETE && strcmp(mode, "none") != 0) {
				p = mic_verf(p, ctx, strcmp(mode, "init") ? WINDOW : WINDOW + 1);
			} else {
				p = put32(p, 0);
				p = put32(p, 0);
			}
			p = put32(p, 0);   /* SUCCESS */
			p = put_opaque(p, "ctx1", 4);
			p = put32(p, maj);
			p = put32(p, min);
			p = put32(p, WINDOW);
			p = put_opaque(p, otok.value, (uint32_t)otok.length);
			gss_release_buffer(&min, &otok);
		} else {
			if (ctx == GSS_C_NO_CONTEXT || maj != GSS_S_COMPLETE)
				return 1;
			p = mic_verf(p, ctx, strcmp(mode, "call") ? seq : seq + 1);
			p = put32(p, 0);   /* SUCCESS, no results (NULL) */
		}
		put32(out, 0x80000000u | (uint32_t)(p - out - 4));
		if (write(fd, out, (size_t)(p - out)) != p - out)
			return 1;
	}
	if (ctx != GSS_C_NO_CONTEXT)
		gss_delete_sec_context(&min, &ctx, GSS_C_NO_BUFFER);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sin);

	if (argc != 3) {
		fprintf(stderr, "usage: gss_forgesvc KEYTAB init|none|call|good\n");
		return 2;
	}
	setenv("KRB5_KTNAME", argv[1], 1);
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sin, sizeof(sin)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&sin, &len))
		return 1;
	printf("port %u\n", ntohs(sin.sin_port));
	fflush(stdout);
	int fd = accept(ls, NULL, NULL);
	close(ls);
	if (fd < 0)
		return 1;
	int rc = serve(fd, argv[2]);
	close(fd);
	return rc;
}
