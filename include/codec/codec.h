/*-------------------------------------------------------------------------
 *
 * codec.h
 *	  Common definitions of the quickstep_am codec library: status codes,
 *	  the caller-supplied allocator and comparator, the value-array
 *	  descriptor and unaligned little-endian load/store helpers.
 *
 * The codec library is plain C99 (gnu99) without any PostgreSQL backend
 * call, so that it can be unit tested and fuzzed on its own and compiled
 * unchanged into the extension.  It never allocates with malloc, never
 * aborts and never prints: memory comes from caller buffers or from a
 * QsCodecAllocator (palloc in the backend), failures are status codes with
 * an optional message in a QsCodecErr.
 *
 * include/codec/codec.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_H
#define QS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the codec formats are defined little-endian; big-endian hosts are not supported"
#endif

typedef enum QsCodecStatus
{
	QS_CODEC_OK = 0,
	QS_CODEC_CORRUPT,			/* input bytes are not a valid encoding */
	QS_CODEC_BAD_VERSION,		/* right magic, unknown format version */
	QS_CODEC_NOSPACE,			/* caller-provided output buffer too small */
	QS_CODEC_NOMEM,				/* allocator returned NULL */
	QS_CODEC_INVALID,			/* bad argument (width out of range, ...) */
	QS_CODEC_LZ4_ERROR			/* liblz4 refused to compress */
} QsCodecStatus;

/* Optional error detail; every function taking one accepts NULL. */
typedef struct QsCodecErr
{
	char		msg[160];
} QsCodecErr;

/*
 * Caller-supplied allocator.  In the backend alloc is palloc-like (may
 * ereport instead of returning NULL, which is fine: the library holds no
 * state that would need cleanup) and free may be pfree or a no-op.
 */
typedef struct QsCodecAllocator
{
	void	   *(*alloc) (void *ctx, size_t size);
	void		(*free) (void *ctx, void *ptr);
	void	   *ctx;
} QsCodecAllocator;

/*
 * Three-way comparator over two values given as (pointer, length).  At the
 * call site it wraps the column's btree opclass support function 1 and
 * collation.  Must define a total order; the dictionaries depend on it.
 */
typedef int (*QsCmpFn) (const void *a, size_t alen,
						const void *b, size_t blen, void *arg);

/*
 * An input array of n values.  width > 0: fixed width, value i at
 * data + i * width.  width == 0: variable width, value i at ptrs[i] with
 * lens[i] bytes (ptrs[i] may be NULL when lens[i] == 0).
 */
typedef struct QsValues
{
	size_t		n;
	uint32_t	width;
	const uint8_t *data;
	const uint8_t *const *ptrs;
	const uint32_t *lens;
} QsValues;

/* Record a message in err (if not NULL) and return status. */
extern QsCodecStatus qs_codec_error(QsCodecErr *err, QsCodecStatus status,
									const char *fmt,...)
			__attribute__((format(printf, 3, 4)));
extern const char *qs_codec_status_name(QsCodecStatus status);

/* Convenience comparators for tests, benchmarks and memcmp-safe types. */
extern int	qs_cmp_int32(const void *a, size_t alen, const void *b, size_t blen, void *arg);
extern int	qs_cmp_int64(const void *a, size_t alen, const void *b, size_t blen, void *arg);
extern int	qs_cmp_uint32(const void *a, size_t alen, const void *b, size_t blen, void *arg);
extern int	qs_cmp_uint64(const void *a, size_t alen, const void *b, size_t blen, void *arg);
extern int	qs_cmp_bytes(const void *a, size_t alen, const void *b, size_t blen, void *arg);

/*
 * Stable sort of n records of rs bytes (rs <= 64) keyed by their first
 * keylen bytes; tmp has room for n records.  Returns whichever of recs and
 * tmp holds the result.  With one of the integer comparators above
 * (qs_cmp_int32/uint32 on 4-byte keys, qs_cmp_int64/uint64 on 8-byte
 * keys) a radix sort on the key bytes, without a comparator call; else a
 * merge sort.  Both give the same result.
 */
extern uint8_t *qs_sort_records(uint8_t *recs, uint8_t *tmp, size_t n, size_t rs,
								size_t keylen, QsCmpFn cmp, void *arg);

/*
 * Is cmp one of the codec's integer orders on keylen-byte keys (the ones
 * qs_sort_records sorts by radix, whose equal keys are equal words)?
 * *is_signed (may be NULL): whether the order is signed.
 */
extern bool qs_cmp_int_order(QsCmpFn cmp, size_t keylen, bool *is_signed);

/* Stable index sort (merge sort) with a comparator; tmp has n entries. */
extern void qs_sort_indexes(uint32_t *idx, uint32_t *tmp, size_t n,
							const QsValues *vals, QsCmpFn cmp, void *arg);

static inline void
qs_values_get(const QsValues *v, size_t i, const uint8_t **p, size_t *len)
{
	if (v->width > 0)
	{
		*p = v->data + i * v->width;
		*len = v->width;
	}
	else
	{
		*p = v->ptrs[i];
		*len = v->lens[i];
	}
}

/* Unaligned little-endian access; each compiles to a single mov on x86. */
static inline uint64_t
qs_load64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t
qs_load32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t
qs_load16(const uint8_t *p)
{
	uint16_t	v;

	memcpy(&v, p, 2);
	return v;
}

static inline void
qs_store64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline void
qs_store32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void
qs_store16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* Bits needed to represent every value in 0..maxval; at least 1. */
static inline int
qs_bits_needed(uint64_t maxval)
{
	return maxval == 0 ? 1 : 64 - __builtin_clzll(maxval);
}

#endif							/* QS_CODEC_H */
