/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * librpcrdma: the RPC-over-RDMA Version One transport header (RFC 8166).
 *
 * Pure functions over caller-owned buffers: no verbs, no I/O, no allocation,
 * no global mutable state.  Every function is safe to call concurrently on
 * different buffers.
 *
 * Wire layout (each item one 32-bit big-endian XDR word unless noted):
 *
 *   xid, vers, credits, proc
 *   RDMA_MSG / RDMA_NOMSG:
 *     read list:   { 1, position, handle, length, offset(2 words) }* 0
 *     write list:  { 1, nsegs, { handle, length, offset(2) } x nsegs }* 0
 *     reply chunk: 1, nsegs, { handle, length, offset(2) } x nsegs   | 0
 *     (RDMA_MSG: the RPC message follows the header inline)
 *   RDMA_DONE:    nothing
 *   RDMA_ERROR:   ERR_VERS, low, high | ERR_CHUNK
 *
 * Conventions of this header:
 *  - "wire order" means the 32-bit value exactly as it sits in the buffer
 *    (big-endian); "host order" means byte-swapped to the CPU.  The xid is
 *    always kept in wire order (it is only ever compared and copied back).
 *  - Buffers passed to the checkers must be 4-byte aligned (receive buffers
 *    are); a misaligned buffer is rejected with -EINVAL.  Encoders need a
 *    non-NULL, 4-byte aligned output buffer (-EINVAL otherwise) and check
 *    its size first: they return the number of bytes written, or -EMSGSIZE.
 *  - A struct rpcrdma_hdr filled by a checker is a *view*: its pointers point
 *    into the checked buffer, which must stay unchanged and alive while the
 *    view or any iterator made from it is used.
 */
#ifndef RPCRDMA_PROTO_H
#define RPCRDMA_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/api.h>

RPCRDMA_BEGIN_DECLS

/* ------------------------------------------------------------------------
 * Constants, in host order and pre-swapped to wire order.
 */

/** A compile-time byte swap (usable in constant expressions). */
#define RPCRDMA_BSWAP32_CONST(x)                                             \
	((uint32_t)((((uint32_t)(x) & 0x000000ffu) << 24) |                  \
		    (((uint32_t)(x) & 0x0000ff00u) << 8) |                   \
		    (((uint32_t)(x) & 0x00ff0000u) >> 8) |                   \
		    (((uint32_t)(x) & 0xff000000u) >> 24)))

/** Host-order constant to wire order, at compile time. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RPCRDMA_WIRE32(x) ((uint32_t)(x))
#else
#define RPCRDMA_WIRE32(x) RPCRDMA_BSWAP32_CONST(x)
#endif

/** The only protocol version this library speaks. */
#define RPCRDMA_PROTO_VERSION 1u

/** Message types (rdma_proc), RFC 8166 section 4.2.1. */
enum rpcrdma_proc {
	RPCRDMA_MSG = 0,   /**< RPC message follows the header inline */
	RPCRDMA_NOMSG = 1, /**< RPC message is carried in a chunk */
	RPCRDMA_MSGP = 2,  /**< deprecated, rejected */
	RPCRDMA_DONE = 3,  /**< obsolete, dropped */
	RPCRDMA_ERROR = 4, /**< transport error report */
};

/** RDMA_ERROR codes, RFC 8166 section 4.2.4. */
enum rpcrdma_errcode {
	RPCRDMA_ERR_VERS = 1,  /**< version mismatch; carries low and high */
	RPCRDMA_ERR_CHUNK = 2, /**< chunk/header problem */
};

/* Pre-swapped wire words. */
#define RPCRDMA_XDR_ZERO RPCRDMA_WIRE32(0)
#define RPCRDMA_XDR_ONE RPCRDMA_WIRE32(1)
#define RPCRDMA_XDR_VERSION RPCRDMA_WIRE32(RPCRDMA_PROTO_VERSION)
#define RPCRDMA_XDR_MSG RPCRDMA_WIRE32(RPCRDMA_MSG)
#define RPCRDMA_XDR_NOMSG RPCRDMA_WIRE32(RPCRDMA_NOMSG)
#define RPCRDMA_XDR_MSGP RPCRDMA_WIRE32(RPCRDMA_MSGP)
#define RPCRDMA_XDR_DONE RPCRDMA_WIRE32(RPCRDMA_DONE)
#define RPCRDMA_XDR_ERROR RPCRDMA_WIRE32(RPCRDMA_ERROR)
#define RPCRDMA_XDR_ERR_VERS RPCRDMA_WIRE32(RPCRDMA_ERR_VERS)
#define RPCRDMA_XDR_ERR_CHUNK RPCRDMA_WIRE32(RPCRDMA_ERR_CHUNK)

/** Sizes in bytes. */
#define RPCRDMA_HDRLEN_FIXED 16u    /**< 4 words: xid, version, credits, type */
#define RPCRDMA_HDRLEN_MIN 28u      /**< 7 words: fixed part + three empty lists */
#define RPCRDMA_HDRLEN_ERR 20u      /**< 5 words: RDMA_ERROR / ERR_CHUNK */
#define RPCRDMA_HDRLEN_ERR_VERS 28u /**< 7 words: RDMA_ERROR / ERR_VERS */
#define RPCRDMA_SEGMENT_SIZE 16u    /**< handle, length, 64-bit offset */
#define RPCRDMA_READ_ENTRY_SIZE 24u /**< discriminator, position, segment */

/* ------------------------------------------------------------------------
 * Limits and the header view.
 */

/** Defaults used by the plain checkers (and for fields a caller's limits
 *  struct is too small to hold). */
#define RPCRDMA_DEFAULT_MAX_SEGMENTS 64u          /**< per chunk */
#define RPCRDMA_DEFAULT_MAX_CHUNK_BYTES (16u << 20) /**< 16 MiB per chunk */
#define RPCRDMA_DEFAULT_MAX_READ_CHUNKS 16u
#define RPCRDMA_DEFAULT_MAX_WRITE_CHUNKS 16u

/**
 * Limits the checkers enforce.  Set size = sizeof(struct rpcrdma_limits);
 * fields lying beyond a smaller size take their defaults, so the struct can
 * grow.  A field of 0 also means "the default".
 */
struct rpcrdma_limits {
	size_t size;
	uint32_t max_segments;     /**< segments in one chunk (read, write, reply) */
	uint32_t max_chunk_bytes;  /**< sum of a chunk's segment lengths */
	uint32_t max_read_chunks;  /**< distinct positions in the read list */
	uint32_t max_write_chunks; /**< chunks in the write list */
};

/** Fills *limits with the defaults (every field 0) and sets size. */
RPCRDMA_API void rpcrdma_limits_init(struct rpcrdma_limits *limits);

/** Why a checker rejected (or dropped) a header; see rpcrdma_check_reason_str(). */
enum rpcrdma_check_reason {
	RPCRDMA_CHECK_OK = 0,
	RPCRDMA_CHECK_SHORT,           /**< buffer too short, or a list runs past its end */
	RPCRDMA_CHECK_ALIGN,           /**< buffer not 4-byte aligned */
	RPCRDMA_CHECK_VERSION,         /**< version != 1 (-EPROTONOSUPPORT) */
	RPCRDMA_CHECK_PROC,            /**< unknown message type, RDMA_MSGP included */
	RPCRDMA_CHECK_DROP,            /**< RDMA_DONE / RDMA_ERROR on the call side (returns 0) */
	RPCRDMA_CHECK_DISCRIM,         /**< list discriminator neither 0 nor 1 */
	RPCRDMA_CHECK_POSITION,        /**< read position not a multiple of 4 */
	RPCRDMA_CHECK_OVERLAP,         /**< read chunks out of order or overlapping */
	RPCRDMA_CHECK_POS_ZERO,        /**< position-zero read chunk with RDMA_MSG */
	RPCRDMA_CHECK_NOMSG,           /**< RDMA_NOMSG without the chunk that carries the message */
	RPCRDMA_CHECK_NO_SEGMENTS,     /**< a chunk with zero segments */
	RPCRDMA_CHECK_TOO_MANY_SEGMENTS, /**< a chunk above max_segments */
	RPCRDMA_CHECK_TOO_MANY_CHUNKS, /**< read or write list above its max */
	RPCRDMA_CHECK_CHUNK_LENGTH,    /**< a chunk's total length above max_chunk_bytes */
	RPCRDMA_CHECK_REPLY_READS,     /**< a reply carrying a read list */
	RPCRDMA_CHECK_REPLY_CHUNK,     /**< RDMA_MSG reply carrying a reply chunk */
	RPCRDMA_CHECK_ERRCODE,         /**< RDMA_ERROR with an unknown error code */
};

/**
 * The view a checker fills in.  All counts are exact for the checked buffer.
 * Pointers point into the checked buffer (lifetime: see the file comment).
 * Which fields are valid depends on the result: > 0 all (but err/vers_*
 * for the call checker); 0 xid, vers, credits, type, reason;
 * -EPROTONOSUPPORT xid, vers, reason; -EINVAL reason (and whatever was
 * decoded before the fault).
 */
struct rpcrdma_hdr {
	uint32_t xid;     /**< wire order */
	uint32_t vers;    /**< host order */
	uint32_t credits; /**< host order: requested (call) or granted (reply) */
	uint32_t type;    /**< host order: enum rpcrdma_proc */

	/** First word of the read list (its first discriminator). */
	const uint32_t *read_list;
	/** First word of the write list (its first discriminator). */
	const uint32_t *write_list;
	/** The reply chunk's segment-count word, or NULL when absent. */
	const uint32_t *reply_chunk;

	uint32_t read_chunks;    /**< distinct positions (read chunks) */
	uint32_t read_segments;  /**< read list entries */
	uint32_t write_chunks;   /**< chunks in the write list */
	uint32_t write_segments; /**< over all write chunks */
	uint32_t reply_segments; /**< segments of the reply chunk */

	uint32_t hdrlen; /**< bytes of transport header = offset of the RPC message */

	enum rpcrdma_check_reason reason; /**< why the last check failed, or OK */

	/** RDMA_ERROR (reply checker only; the call checker leaves these
	 *  unchanged): the code, and for ERR_VERS the peer's range. */
	uint32_t err;
	uint32_t vers_low;
	uint32_t vers_high;
};

/** A static English description of a reason. */
RPCRDMA_API const char *rpcrdma_check_reason_str(enum rpcrdma_check_reason reason);

/* ------------------------------------------------------------------------
 * The call checker (server side).
 *
 * Returns:
 *   > 0               the header's length in bytes (the offset of the RPC
 *                     message for RDMA_MSG); hdr is filled.
 *   0                 drop the message quietly: RDMA_DONE or RDMA_ERROR.
 *                     hdr->xid, vers, credits, type are filled.
 *   -EPROTONOSUPPORT  version != 1.  hdr->xid and hdr->vers are filled so the
 *                     caller can answer with rpcrdma_encode_err_vers().
 *   -EINVAL           anything malformed, hdr->reason says what.
 *
 * Validation rules (each failure is -EINVAL with the reason in brackets):
 *  - RDMA_DONE and RDMA_ERROR of version 1 return 0 [DROP] whatever their
 *    length from 16 bytes (RPCRDMA_HDRLEN_FIXED) up, as Linux drops them
 *    after the four fixed words: an RDMA_ERROR is never answered, so two
 *    peers cannot answer each other's errors forever.
 *  - Anything else of len <= 20 (RPCRDMA_HDRLEN_ERR) is too short [SHORT]
 *    (a wrong version included); the buffer must be 4-byte aligned [ALIGN].  Only whole words inside buf[0, len) are read;
 *    any entry that would run past the end is [SHORT], whatever the counts
 *    say (counts up to 2^32-1 are compared against the words remaining
 *    before anything is multiplied).
 *  - RDMA_MSG and RDMA_NOMSG are processed; RDMA_MSGP and unknown types are
 *    [PROC]; RDMA_DONE and RDMA_ERROR return 0 [DROP] (see above).
 *    RDMA_MSG and RDMA_NOMSG need at least 28 bytes [SHORT].
 *  - Every list discriminator is 0 or 1 [DISCRIM].
 *  - Read list: consecutive entries with the same position form one read
 *    chunk.  Positions are multiples of 4 [POSITION].  Chunks must appear in
 *    strictly increasing position order and must not overlap in the XDR
 *    stream: a chunk at position P whose segment lengths sum to L occupies
 *    stream bytes [P, P + roundup4(L)), so the next chunk's position must be
 *    >= P + roundup4(L) [OVERLAP].  (This also rejects a chunk whose segments
 *    are not adjacent in the list.)  At most max_read_chunks chunks
 *    [TOO_MANY_CHUNKS], at most max_segments segments per chunk
 *    [TOO_MANY_SEGMENTS], L <= max_chunk_bytes [CHUNK_LENGTH] (summed in 64
 *    bits, no overflow).
 *  - A position-zero read chunk (the whole RPC call, RFC 8166 section 3.5.3)
 *    is allowed only with RDMA_NOMSG [POS_ZERO]; RDMA_NOMSG requires one,
 *    since the call is conveyed in it (a reply chunk carries only the reply,
 *    so an RDMA_NOMSG call without a position-zero read chunk has no RPC
 *    message) [NOMSG].  Other read chunks may come with it (RFC 8166
 *    section 3.5.3: a Long Call may still move DDP-eligible data items in
 *    read chunks; Linux's svcrdma reassembles such calls the same way):
 *    the position-zero chunk then holds the call without those items, as
 *    the inline part of an RDMA_MSG call would, and the others' positions
 *    are offsets in the reassembled call, so the position-zero chunk takes
 *    no room in their order: the first of them may be at any position from
 *    4, and the order and overlap rule above applies among them.  The
 *    checker does not know how long the message a chunk is spliced into is
 *    (the inline part, or the position-zero chunk whose data it has not
 *    seen); the transport checks every position against it when it
 *    reassembles the call.
 *  - Write list: each chunk has 1..max_segments segments [NO_SEGMENTS,
 *    TOO_MANY_SEGMENTS] summing to <= max_chunk_bytes [CHUNK_LENGTH]; at most
 *    max_write_chunks chunks [TOO_MANY_CHUNKS].
 *  - Reply chunk: same rules as one write chunk.
 *
 * buf may be NULL only with len 0.  hdr must not be NULL.
 *
 * Cost (x86-64, gcc 12 -O2, callgrind): about 33 instructions for a call
 * without chunks, 74 with one read chunk, 83 with a two-segment reply
 * chunk, 226 with a 16-segment write chunk -- under half of a decoder that
 * overlays structures and byte-swaps every field (tests/bench/).  The plain
 * checker has fast paths for RDMA_MSG calls; rpcrdma_check_call_ex() runs
 * the general path; both give the same results (tested differentially).
 */
RPCRDMA_API int rpcrdma_check_call(const void *buf, size_t len, struct rpcrdma_hdr *hdr);

/** rpcrdma_check_call() with caller-given limits (NULL = defaults). */
RPCRDMA_API int rpcrdma_check_call_ex(const void *buf, size_t len, struct rpcrdma_hdr *hdr,
				      const struct rpcrdma_limits *limits);

/* ------------------------------------------------------------------------
 * The list walkers the checkers are built from.  Each takes p at the list's
 * first word and end one past the last readable word, applies the rules
 * above for its list, fills its part of hdr (read_list/read_chunks/
 * read_segments, write_list/..., reply_chunk/reply_segments), and returns the
 * pointer just past the list, or NULL with hdr->reason set.  limits may be
 * NULL (defaults).  The read walker does not apply the position-zero /
 * RDMA_NOMSG rules (they depend on the message type); the checkers do.
 * allow_empty_chunks (write walker and reply walker): accept chunks with zero
 * segments (the reply checker does, the call checker does not).
 */
RPCRDMA_API const uint32_t *rpcrdma_walk_read_list(const uint32_t *p, const uint32_t *end,
						    const struct rpcrdma_limits *limits,
						    struct rpcrdma_hdr *hdr);
RPCRDMA_API const uint32_t *rpcrdma_walk_write_list(const uint32_t *p, const uint32_t *end,
						     const struct rpcrdma_limits *limits,
						     bool allow_empty_chunks,
						     struct rpcrdma_hdr *hdr);
RPCRDMA_API const uint32_t *rpcrdma_walk_reply_chunk(const uint32_t *p, const uint32_t *end,
						      const struct rpcrdma_limits *limits,
						      bool allow_empty_chunks,
						      struct rpcrdma_hdr *hdr);

/* ------------------------------------------------------------------------
 * Turning a view into segments.  Only for a hdr filled by a successful
 * check (return > 0): the iterators trust the counts the checker verified.
 *
 *	struct rpcrdma_chunk_iter it;
 *	struct rpcrdma_chunk ch;
 *	struct rpcrdma_segment seg;
 *	rpcrdma_read_chunks(&hdr, &it);
 *	while (rpcrdma_next_chunk(&it, &ch))
 *		while (rpcrdma_next_segment(&ch, &seg))
 *			post_read(ch.position, seg.handle, seg.length, seg.offset);
 */

/** One RDMA segment in host order. */
struct rpcrdma_segment {
	uint32_t handle; /**< R_key */
	uint32_t length; /**< bytes */
	uint64_t offset; /**< remote address */
};

/** One read list entry in host order. */
struct rpcrdma_read_segment {
	uint32_t position; /**< XDR stream offset the chunk's data belongs at */
	struct rpcrdma_segment seg;
};

/** One chunk; its segments are returned by rpcrdma_next_segment(). */
struct rpcrdma_chunk {
	uint32_t position; /**< read chunks only; 0 for write and reply chunks */
	uint32_t nsegs;
	uint64_t length;   /**< sum of the segment lengths */
	/* private cursor */
	const uint32_t *p_;
	uint32_t left_;
	uint32_t stride_; /**< words from one segment to the next */
};

/** Cursor over the chunks of a read or write list.  Fields are private. */
struct rpcrdma_chunk_iter {
	const uint32_t *p_;
	uint32_t left_; /**< read: entries left; write: chunks left */
	uint32_t read_;
};

RPCRDMA_API void rpcrdma_read_chunks(const struct rpcrdma_hdr *hdr, struct rpcrdma_chunk_iter *it);
RPCRDMA_API void rpcrdma_write_chunks(const struct rpcrdma_hdr *hdr, struct rpcrdma_chunk_iter *it);
/** Fills ch with the next chunk; false when there is none. */
RPCRDMA_API bool rpcrdma_next_chunk(struct rpcrdma_chunk_iter *it, struct rpcrdma_chunk *ch);
/** Fills ch with the reply chunk; false when the header has none. */
RPCRDMA_API bool rpcrdma_reply_chunk(const struct rpcrdma_hdr *hdr, struct rpcrdma_chunk *ch);
/** Fills seg with ch's next segment; false after the last. */
RPCRDMA_API bool rpcrdma_next_segment(struct rpcrdma_chunk *ch, struct rpcrdma_segment *seg);

/* ------------------------------------------------------------------------
 * Server-side encoders.  out must be non-NULL and 4-byte aligned (else
 * -EINVAL).  Each returns the bytes written or -EMSGSIZE when len is too
 * small (then the buffer contents are unspecified).  call is the view of the
 * call being answered; its buffer must still be alive when write list or
 * reply chunk are encoded from it.
 * credit_word is the cached wire-order grant (rpcrdma_credits_word()).
 */

/**
 * The reply header without chunks, 28 bytes: xid and version copied from
 * the call, credit_word, RDMA_NOMSG if nomsg else RDMA_MSG, three empty lists.
 */
RPCRDMA_API int rpcrdma_encode_reply_hdr(void *out, size_t len, const struct rpcrdma_hdr *call,
					 uint32_t credit_word, bool nomsg);

/**
 * The write list of a reply: every write chunk of the call, in order, each
 * with its segment count and handles/offsets unchanged and its segment
 * lengths set to what was actually written: written[i] bytes for chunk i
 * fill its segments in order (each segment min(remaining, its length)); a
 * chunk beyond nwritten counts as 0 bytes written.  Ends with the list
 * terminator.  -EINVAL if written[i] exceeds chunk i's length.
 */
RPCRDMA_API int rpcrdma_encode_write_list(void *out, size_t len, const struct rpcrdma_hdr *call,
					  const uint32_t *written, uint32_t nwritten);

/**
 * The reply chunk of a reply: the call's reply chunk with its segment
 * lengths set to the written bytes (as above), or the single word 0 when the
 * call had no reply chunk.  -EINVAL if written exceeds the chunk's length.
 */
RPCRDMA_API int rpcrdma_encode_reply_chunk(void *out, size_t len, const struct rpcrdma_hdr *call,
					   uint32_t written);

/**
 * A whole reply header with chunks: xid, version, credit_word, type, empty
 * read list, write list (rpcrdma_encode_write_list) and, when nomsg, the
 * reply chunk with reply_written bytes (rpcrdma_encode_reply_chunk), else an
 * absent reply chunk.  nomsg without a reply chunk in the call is -EINVAL.
 */
RPCRDMA_API int rpcrdma_encode_reply(void *out, size_t len, const struct rpcrdma_hdr *call,
				     uint32_t credit_word, const uint32_t *written,
				     uint32_t nwritten, bool nomsg, uint32_t reply_written);

/**
 * RDMA_ERROR / ERR_VERS, 28 bytes: xid and version copied from the call
 * (as RFC 8166 section 5 and Linux do), credit_word, low = high = 1.
 * Usable after rpcrdma_check_call() returned -EPROTONOSUPPORT.
 */
RPCRDMA_API int rpcrdma_encode_err_vers(void *out, size_t len, const struct rpcrdma_hdr *call,
					uint32_t credit_word);

/** RDMA_ERROR / ERR_CHUNK, 20 bytes: xid, version, credit_word from the call. */
RPCRDMA_API int rpcrdma_encode_err_chunk(void *out, size_t len, const struct rpcrdma_hdr *call,
					 uint32_t credit_word);

/* ------------------------------------------------------------------------
 * Client side.
 */

/**
 * What a client puts in a call header.  Arrays may be NULL when their count
 * is 0.  The encoder is a faithful serializer: it does not apply the
 * checker's rules (so tests can build invalid headers); the checker does.
 */
struct rpcrdma_call_desc {
	uint32_t xid;     /**< wire order */
	uint32_t credits; /**< host order: credits requested */
	uint32_t type;    /**< RPCRDMA_MSG or RPCRDMA_NOMSG (others -EINVAL) */

	const struct rpcrdma_read_segment *reads; /**< read list entries, in order */
	uint32_t nreads;

	/** Write list: write_chunk_segs[i] segments for chunk i, taken in order
	 *  from writes[]; the counts must sum to nwrites. */
	const struct rpcrdma_segment *writes;
	uint32_t nwrites;
	const uint32_t *write_chunk_segs;
	uint32_t write_chunks;

	/** Reply chunk: present iff has_reply, with nreply segments. */
	bool has_reply;
	const struct rpcrdma_segment *reply;
	uint32_t nreply;
};

/** Bytes rpcrdma_encode_call() will write for d (0 if d is inconsistent). */
RPCRDMA_API size_t rpcrdma_call_hdr_size(const struct rpcrdma_call_desc *d);

/**
 * Encodes a call header.  Returns bytes written, -EMSGSIZE if len is too
 * small, -EINVAL if out is NULL or misaligned or d is inconsistent (bad
 * type, NULL array with a nonzero count, write_chunk_segs not summing to
 * nwrites).
 */
RPCRDMA_API int rpcrdma_encode_call(void *out, size_t len, const struct rpcrdma_call_desc *d);

/**
 * The reply checker (client side), with the call checker's contract:
 *   > 0               header length.  For RDMA_MSG/RDMA_NOMSG hdr holds the
 *                     lists; for RDMA_ERROR (type == RPCRDMA_ERROR) hdr->err
 *                     is the code and, for ERR_VERS, vers_low/vers_high the
 *                     peer's range (the length is then 20 or 28).
 *   0                 RDMA_DONE: drop.
 *   -EPROTONOSUPPORT  version != 1 (hdr->xid filled).
 *   -EINVAL           malformed (hdr->reason).
 * Rules: at least 16 bytes, 4-byte aligned; RDMA_MSG/RDMA_NOMSG at least 28
 * bytes; RDMA_MSGP and unknown types [PROC]; the read list must be empty
 * [REPLY_READS]; write chunks as for calls except that a chunk may have zero
 * segments (a Responder may return unused chunks empty); the reply chunk is
 * required with RDMA_NOMSG, where it carries the whole RPC reply, so it must
 * have at least one segment and a nonzero length there (an empty reply
 * chunk conveys no reply) [NOMSG], and forbidden with RDMA_MSG
 * [REPLY_CHUNK]; RDMA_ERROR carries ERR_VERS (+ low, high) or ERR_CHUNK
 * [ERRCODE]; segment lengths here are the bytes the Responder wrote and the
 * same limits apply.
 */
RPCRDMA_API int rpcrdma_check_reply(const void *buf, size_t len, struct rpcrdma_hdr *hdr);
RPCRDMA_API int rpcrdma_check_reply_ex(const void *buf, size_t len, struct rpcrdma_hdr *hdr,
				       const struct rpcrdma_limits *limits);

RPCRDMA_END_DECLS

#endif /* RPCRDMA_PROTO_H */
