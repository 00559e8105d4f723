/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the tinynfs fuzz targets (nfs_compound.c, nfs_session.c) share: a
 * scratch tree and two servers made once per process, and per input a
 * fresh state with one client and one session, run and checked COMPOUNDs,
 * and a cheap reset of the tree afterwards.
 *
 * The scratch directory is on a tmpfs when one is usable (/dev/shm, then
 * $TMPDIR, then /tmp), named tinynfs-fuzz-<pid>-XXXXXX; a run removes it at
 * exit, and the next run removes those of processes that are gone (a crash
 * skips atexit).  It holds
 *     f          "some file content\n"
 *     d/         with d/g "more\n"
 *     e/         empty
 *     l -> ../../etc/passwd
 * all owned by 65534 but e (root's).  Server 0 exports the scratch
 * directory rw with all_squash as the NFSv4 root; server 1 exports d (rw,
 * all_squash) and e (ro) under the pseudo file system.  Neither flushes to
 * disk (sync_hook).
 *
 * Per input (nfsfz_begin): the chosen server gets a fresh state, on which
 * a client (uid 0) has done EXCHANGE_ID and CREATE_SESSION, so the ids are
 * those of a fresh server with boot verifier 1..8:
 *     clientid   04 04 04 0c 00 00 00 01
 *     session    01 02 03 04 05 06 07 08  00 00 00 01  00 00 00 01
 * and the export's directory cache is emptied.  After it (nfsfz_end), the
 * tree is put back as above: every other entry removed, the files written
 * again, the three directories' modes and owners restored; if d or e was
 * removed or moved, the tree and both servers are made again.  No file
 * descriptor may stay open across inputs: the lowest free descriptor after
 * nfsfz_end must be the one it was after the first setup, or none of the
 * descriptors above it may be of the scratch tree (abort if so).  Only the
 * operations that can change the tree (OPEN, CREATE, LINK, REMOVE, RENAME,
 * SETATTR, WRITE, ALLOCATE, DEALLOCATE, COPY, CLONE, WRITE_SAME: seen with
 * op_hook, which also checks every result against its estimate) make
 * nfsfz_end put it back.  The setup's coverage is cleared
 * (libFuzzer's counters), so that only the input's counts.
 *
 * NFSFZ_VERBOSE in the environment prints each COMPOUND's and operation's
 * status on stderr (to see what a corpus reaches).  At exit, the number of
 * COMPOUNDs and inputs run goes to stderr.
 */
#ifndef TINYNFS_FUZZ_HARNESS_H
#define TINYNFS_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server.h"

/* Checks that stay on whatever NDEBUG says. */
#define CHECK(c) do { if (!(c)) nfsfz_abort(); } while (0)

/* Takes the process's own file-system ids back (a failure can come in the
 * middle of an operation, under the client's squashed ids, and libFuzzer
 * must then still write its crash file: ASan's errors get the same through
 * __asan_on_error), then aborts. */
_Noreturn void nfsfz_abort(void);

#define NFSFZ_REPLY_MAX (1u << 21)

/* Server 0 (one export) or 1 (pseudo root, two exports), ready. */
struct tnfs_server *nfsfz_begin(bool pseudo);
void nfsfz_end(void);
/* The client id and session id of this input's state (as above). */
uint64_t nfsfz_clientid(void);
const uint8_t *nfsfz_sessionid(void);

/* Runs one COMPOUND as uid 1000 (groups 1000, 10) with a reply buffer of
 * cap bytes (<= NFSFZ_REPLY_MAX), checks the reply and the estimate (see
 * nfs_compound.c), and returns tnfs_compound's result; the reply is in
 * *reply, *out bytes (0 on error). */
int nfsfz_run(struct tnfs_server *s, const uint8_t *req, size_t len, size_t cap,
	      const uint8_t **reply, size_t *out);

/*
 * Structure-aware mutation for the class of issue #23 item 1: in the
 * XDR body b of len bytes, one 4-aligned word whose value could be a
 * length or count there (at most len) becomes one of 0xfffffff0 ..
 * 0xffffffff (a few tries, from seed).  Returns the length the body
 * should keep: len, or (one time in two) just up to that word, so that
 * what the length covered is gone, as in a hostile request.  The
 * targets' custom mutators call it after libFuzzer's own mutation, on
 * one COMPOUND of the input, and cut the body to the length returned.
 * NFSFZ_NO_WRAP in the environment turns it off (to fuzz past a known
 * wrap, or to measure).
 */
size_t nfsfz_wrap_length(uint8_t *b, size_t len, unsigned seed);

/* Reply buffer sizes the first byte of an input picks (bits 0-1). */
size_t nfsfz_cap(uint8_t sel);

#endif
