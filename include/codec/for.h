/*-------------------------------------------------------------------------
 *
 * for.h
 *	  Frame-of-reference (FOR) and FOR-delta encodings of int32 / int64
 *	  columns with value locality (paper 002 section 2.2.1).
 *
 * FOR stores v - min as bit-packed residues of width bits(max - min)
 * (up to 32 for int32, 64 for int64); random access is O(1).
 * FOR-delta stores the first value and residues (v[i] - v[i-1]) - dmin,
 * dmin the smallest delta, of width bits(max delta - dmin) (up to 33 for
 * int32, 64 for int64): small for sorted or clustered columns; decoding
 * position i needs the prefix sum from 0 (so decode whole stripes).
 * All arithmetic is modulo 2^64, so every int64 input round-trips.
 *
 * Serialized format, version 1 (little-endian), 40-byte header:
 *	  0 u32 magic "QSFR"   4 u16 version = 1   6 u8 kind (0 FOR, 1 FOR-delta)
 *	  7 u8 value bytes (4 or 8)   8 u8 width (1..64)   9..15 zero
 *	  16 u64 count   24 i64 base (FOR: min; FOR-delta: first value)
 *	  32 i64 dmin (FOR: 0)
 *	  40 packed residues: count (FOR) or count - 1 (FOR-delta, 0 if empty)
 *	  codes, qs_bitpack_bytes() long; nothing may follow.
 *
 * include/codec/for.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_FOR_H
#define QS_CODEC_FOR_H

#include <stdbool.h>

#include "codec/codec.h"

#define QS_FOR_MAGIC		0x52465351	/* "QSFR" */
#define QS_FOR_VERSION		1
#define QS_FOR_HDRSZ		40

typedef enum QsForKind
{
	QS_FOR_PLAIN = 0,
	QS_FOR_DELTA = 1
} QsForKind;

/* Exact sizes of both encodings for a given input (for the chooser). */
typedef struct QsForInfo
{
	int64_t		min;
	int64_t		first;
	int64_t		dmin;
	int			for_width;
	int			delta_width;
	size_t		for_size;
	size_t		delta_size;
} QsForInfo;

extern void qs_for_analyze32(const int32_t *v, size_t n, QsForInfo *info);
extern void qs_for_analyze64(const int64_t *v, size_t n, QsForInfo *info);

/* Encode into out (capacity outcap; the size is info.for_size/delta_size). */
extern QsCodecStatus qs_for_encode32(const int32_t *v, size_t n, QsForKind kind,
									 uint8_t *out, size_t outcap, size_t *outlen,
									 QsCodecErr *err);
extern QsCodecStatus qs_for_encode64(const int64_t *v, size_t n, QsForKind kind,
									 uint8_t *out, size_t outcap, size_t *outlen,
									 QsCodecErr *err);
/* The same with info = the analysis of exactly these values. */
extern QsCodecStatus qs_for_encode_analyzed(const void *v, int value_bytes, size_t n,
											QsForKind kind, const QsForInfo *info,
											uint8_t *out, size_t outcap,
											size_t *outlen, QsCodecErr *err);

typedef struct QsForView
{
	QsForKind	kind;
	int			value_bytes;	/* 4 or 8 */
	int			width;
	size_t		count;
	uint64_t	base;
	uint64_t	dmin;
	const uint8_t *packed;
} QsForView;

/* Validate header, width and exact length; the view points into buf. */
extern QsCodecStatus qs_for_open(const uint8_t *buf, size_t len, QsForView *view,
								 QsCodecErr *err);

/*
 * Decode values [start, start + n).  An int64 stripe decoded as int32 is
 * truncated; an int32 stripe decoded as int64 is sign-extended.
 */
extern void qs_for_decode64(const QsForView *view, size_t start, size_t n, int64_t *out);
extern void qs_for_decode32(const QsForView *view, size_t start, size_t n, int32_t *out);

#endif							/* QS_CODEC_FOR_H */
