/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trace probes: RPCRDMA_TRACE(event, conn_id, ...) marks a point of the
 * library that a debugger of a live process can attach to, with up to 11
 * integer or pointer arguments after the connection's id (0 where there
 * is none: the checkers, a refused connection, a device).  Strings are
 * passed as const char * (NUL-terminated, static or living until the
 * probe returns).
 *
 * With tracing built in (meson -Dtrace=enabled, or auto where
 * <sys/sdt.h> exists) each one is a USDT probe of provider "rpcrdma"
 * named `event`: a no-op instruction and an ELF note
 * (readelf -n: .note.stapsdt) until bpftrace, perf or SystemTap attach.
 * The arguments are evaluated either way: pass values at hand, never
 * calls on a hot path.  Without tracing the macro expands to nothing and
 * evaluates nothing.  docs/tracing.md lists every probe and its
 * arguments; tests/trace-probes.sh checks the built library holds them.
 */
#ifndef RPCRDMA_TRACE_H
#define RPCRDMA_TRACE_H

#include "config.h"

#if RPCRDMA_HAVE_SDT
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>
#define RPCRDMA_TRACE(...) STAP_PROBEV(rpcrdma, __VA_ARGS__)
#else
#define RPCRDMA_TRACE(...) ((void)0)
#endif

#endif
