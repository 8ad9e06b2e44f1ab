/*-------------------------------------------------------------------------
 *
 * dict.h
 *	  Sorted, order-preserving dictionaries (code = rank) for fixed-width
 *	  values and variable-width byte strings.
 *
 * The order is the caller's comparator (the column's btree opclass and
 * collation in the backend), never memcmp unless the caller says so by
 * passing qs_cmp_bytes.  Because code order equals value order, every
 * comparison predicate on values becomes a code range, computed once per
 * dictionary by qs_dict_range().
 *
 * Serialized format, version 1 (little-endian):
 *	  u32 magic "QSDC", u16 version = 1, u16 flags (bit 0: variable width),
 *	  u32 nvalues, u32 width (fixed width in bytes; 0 if variable)
 *	  fixed:	nvalues * width bytes, values in ascending order
 *	  variable: (nvalues + 1) u32 offsets (offsets[0] = 0, non-decreasing,
 *				offsets[nvalues] = data length), then the data bytes
 *	  The blob is exactly that long; nothing may follow.
 *
 * include/codec/dict.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_DICT_H
#define QS_CODEC_DICT_H

#include <stdbool.h>

#include "codec/codec.h"

#define QS_DICT_MAGIC		0x43445351	/* "QSDC" */
#define QS_DICT_VERSION		1
#define QS_DICT_HDRSZ		16
#define QS_DICT_FLAG_VAR	0x0001

/* A read-only view of a serialized dictionary; points into the blob. */
typedef struct QsDict
{
	uint32_t	nvalues;
	uint32_t	width;			/* bytes per value; 0 = variable width */
	const uint8_t *data;		/* values (fixed) or value bytes (variable) */
	const uint8_t *offsets;		/* variable only: nvalues + 1 LE u32 */
	QsCmpFn		cmp;
	void	   *cmp_arg;
} QsDict;

/*
 * Validate a serialized dictionary and set up a view.  Offsets and lengths
 * are always checked; strict ascending order (one comparator call per
 * value) only when check_order, since it is the one costly check.
 */
extern QsCodecStatus qs_dict_open(const uint8_t *buf, size_t len,
								  QsCmpFn cmp, void *cmp_arg, bool check_order,
								  QsDict *dict, QsCodecErr *err);

/*
 * Build a dictionary from n values: the blob (allocated with alloc, size
 * in *bloblen) and, if codes is not NULL, the code of every input value.
 * Temporary memory (8 bytes per value) also comes from alloc and is freed.
 */
extern QsCodecStatus qs_dict_build(const QsValues *vals, QsCmpFn cmp, void *cmp_arg,
								   const QsCodecAllocator *alloc,
								   uint8_t **blob, size_t *bloblen,
								   uint32_t *codes, QsCodecErr *err);

/*
 * The same blob and codes for an order under which equal values are
 * byte-identical (btequalimage; the codec's comparators): duplicates are
 * removed by hashing first, so only the distinct values are sorted.
 * Scratch: up to about 24 bytes per value.
 */
extern QsCodecStatus qs_dict_build_image(const QsValues *vals, QsCmpFn cmp, void *cmp_arg,
										 const QsCodecAllocator *alloc,
										 uint8_t **blob, size_t *bloblen,
										 uint32_t *codes, QsCodecErr *err);

/* Exact serialized size of a dictionary of nvalues (data_bytes if variable). */
extern size_t qs_dict_serialized_size(uint32_t nvalues, uint32_t width, size_t data_bytes);

/*
 * Incremental writer for values already in ascending order (used by the
 * merge).  out must hold qs_dict_serialized_size(max_values, width,
 * max_data_bytes); finish() compacts the blob if fewer values were added
 * and returns its exact length.
 */
typedef struct QsDictWriter
{
	uint8_t    *out;
	uint32_t	width;
	uint32_t	max_values;
	uint32_t	nvalues;
	size_t		data_used;
	uint8_t    *data;			/* where value bytes go */
} QsDictWriter;

extern void qs_dict_writer_init(QsDictWriter *w, uint8_t *out, uint32_t width,
								uint32_t max_values);
extern void qs_dict_writer_add(QsDictWriter *w, const uint8_t *val, size_t len);
extern size_t qs_dict_writer_finish(QsDictWriter *w);

/* code -> value; code must be < nvalues. */
static inline void
qs_dict_value(const QsDict *d, uint32_t code, const uint8_t **val, size_t *len)
{
	if (d->width > 0)
	{
		*val = d->data + (size_t) code * d->width;
		*len = d->width;
	}
	else
	{
		uint32_t	s = qs_load32(d->offsets + 4 * (size_t) code);
		uint32_t	e = qs_load32(d->offsets + 4 * (size_t) code + 4);

		*val = d->data + s;
		*len = e - s;
	}
}

/* First code whose value is >= val (lower) or > val (upper); nvalues if none. */
extern uint32_t qs_dict_lower_bound(const QsDict *d, const void *val, size_t len);
extern uint32_t qs_dict_upper_bound(const QsDict *d, const void *val, size_t len);

/* value -> code; false if the value is not in the dictionary. */
extern bool qs_dict_lookup(const QsDict *d, const void *val, size_t len, uint32_t *code);

typedef enum QsCmpOp
{
	QS_OP_EQ,
	QS_OP_NE,
	QS_OP_LT,
	QS_OP_LE,
	QS_OP_GT,
	QS_OP_GE,
	QS_OP_BETWEEN				/* val <= x <= val2 */
} QsCmpOp;

typedef enum QsRangeKind
{
	QS_RANGE_NONE,				/* no code matches: skip the block */
	QS_RANGE_ALL,				/* every code matches: no check needed */
	QS_RANGE_IN,				/* lo <= code <= hi */
	QS_RANGE_NOT_IN				/* code < lo || code > hi (only from <>) */
} QsRangeKind;

typedef struct QsCodeRange
{
	QsRangeKind kind;
	uint32_t	lo;
	uint32_t	hi;
} QsCodeRange;

/*
 * Translate "x op val" (or "val <= x <= val2") into codes.  NONE and ALL
 * are proofs over the dictionary's values (NULLs are the caller's business).
 * A range touching either end of the code space is returned as IN, so
 * NOT_IN only comes from <> on an interior value.
 */
extern QsCodeRange qs_dict_range(const QsDict *d, QsCmpOp op,
								 const void *val, size_t len,
								 const void *val2, size_t len2);

#endif							/* QS_CODEC_DICT_H */
