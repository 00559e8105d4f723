/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Why a call failed, in words: rpcrdma_clnt_sperror() and
 * rpcrdma_clnt_perror(), in the spirit of libtirpc's clnt_sperror(): the
 * RPC status, the accept or auth status, the version range of a mismatch,
 * or the errno behind a failure to send.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/clnt.h>
#include <rpcrdma/diag.h>

/* RFC 5531 accept_stat, as libtirpc words them. */
static const char *accept_words(uint32_t stat)
{
	switch (stat) {
	case 1: return "Program unavailable";
	case 2: return "Program/version mismatch";
	case 3: return "Procedure unavailable";
	case 4: return "Server can't decode arguments";
	case 5: return "Remote system error";
	}
	return "Unknown accept status";
}

/* RFC 5531 and RFC 2203 auth_stat. */
static const char *auth_words(uint32_t stat)
{
	switch (stat) {
	case 0: return "Authentication OK";
	case 1: return "Invalid client credential";
	case 2: return "Server rejected credential";
	case 3: return "Invalid client verifier";
	case 4: return "Server rejected verifier";
	case 5: return "Client credential too weak";
	case 6: return "Invalid server verifier";
	case 7: return "Failed (unspecified error)";
	case 13: return "GSS credential problem (RPCSEC_GSS_CREDPROBLEM)";
	case 14: return "GSS context problem (RPCSEC_GSS_CTXPROBLEM)";
	}
	return "Unknown authentication error";
}

/* The versions of a mismatch, when the caller's request has room. */
static bool has_versions(const struct rpcrdma_clnt_req *req)
{
	return req->size >= offsetof(struct rpcrdma_clnt_req, vers_high) + sizeof(req->vers_high);
}

static void rejected(const struct rpcrdma_clnt_req *req, char *buf, size_t len)
{
	if (req->accept_stat == 0 && has_versions(req))   /* RPC_MISMATCH */
		snprintf(buf, len, "Incompatible versions of RPC; low version = %u, "
			 "high version = %u", req->vers_low, req->vers_high);
	else if (req->accept_stat == 0)
		snprintf(buf, len, "Incompatible versions of RPC");
	else if (req->accept_stat == 1)                    /* AUTH_ERROR */
		snprintf(buf, len, "Authentication error; why = %s", auth_words(req->auth_stat));
	else
		snprintf(buf, len, "Call rejected (reject_stat %u)", req->accept_stat);
}

static void accepted(const struct rpcrdma_clnt_req *req, char *buf, size_t len)
{
	if (req->accept_stat == 2 && has_versions(req))
		snprintf(buf, len, "%s; low version = %u, high version = %u",
			 accept_words(2), req->vers_low, req->vers_high);
	else
		snprintf(buf, len, "%s", accept_words(req->accept_stat));
}

static void words(const struct rpcrdma_clnt_req *req, int status, char *buf, size_t len)
{
	if (status < 0)
		status = -status;
	switch (status) {
	case 0:
		snprintf(buf, len, "Success");
		return;
	case ETIMEDOUT:
		snprintf(buf, len, "Timed out");
		return;
	case EBADMSG:
		snprintf(buf, len, "Can't decode result");
		return;
	case EMSGSIZE:
		snprintf(buf, len, "Can't encode arguments");
		return;
	case EACCES:
		if (req) {
			rejected(req, buf, len);
			return;
		}
		break;
	case EREMOTEIO:
		if (req) {
			accepted(req, buf, len);
			return;
		}
		break;
	case ECONNREFUSED:
	case ECONNRESET:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENOTCONN:
	case EPIPE:
		snprintf(buf, len, "Unable to send; errno = %s", rpcrdma_strerror(-status));
		return;
	}
	snprintf(buf, len, "%s", rpcrdma_strerror(-status));
}

char *rpcrdma_clnt_sperror(const struct rpcrdma_clnt_req *req, int status, const char *prefix,
			   char *buf, size_t len)
{
	char what[160];
	const char *sep = prefix && *prefix ? ": " : "";

	if (!buf || !len)
		return buf;
	words(req, status, what, sizeof(what));
	snprintf(buf, len, "%s%sRPC: %s", prefix ? prefix : "", sep, what);
	return buf;
}

void rpcrdma_clnt_perror(const struct rpcrdma_clnt_req *req, int status, const char *prefix)
{
	char line[320];

	fprintf(stderr, "%s\n", rpcrdma_clnt_sperror(req, status, prefix, line, sizeof(line)));
}
