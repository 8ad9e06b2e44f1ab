/*-------------------------------------------------------------------------
 *
 * choose.h
 *	  Per column, per block encoding choice from exact byte counts
 *	  (paper 000 section 3.3.4: compress a column only if that saves
 *	  space, and then the way that saves most).
 *
 * Every candidate's size is the exact size of its serialized stripe(s):
 *	  PLAIN		 n * width (fixed) or 4 * (n + 1) offsets + bytes (variable)
 *	  DICT		 dictionary blob + bit-packed codes stripe (codes of
 *				 bits(ndistinct - 1) bits)
 *	  DICT_PADDED dictionary blob + 1/2/4-byte codes (paper 000 variant)
 *	  FOR, FOR_DELTA  int4/int8 columns only (is_int)
 *	  LZ4		 the chunked LZ4 stripe, actually compressed
 * Ties go to the earlier entry of QsEncoding, the cheaper one to decode.
 *
 * include/codec/choose.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_CHOOSE_H
#define QS_CODEC_CHOOSE_H

#include <stdbool.h>

#include "codec/codec.h"

typedef enum QsEncoding
{
	QS_ENC_PLAIN = 0,
	QS_ENC_FOR,
	QS_ENC_FOR_DELTA,
	QS_ENC_DICT,
	QS_ENC_DICT_PADDED,
	QS_ENC_LZ4,
	QS_ENC_COUNT
} QsEncoding;

#define QS_ENC_MASK(e)		(1u << (e))
#define QS_ENC_MASK_ALL		((1u << QS_ENC_COUNT) - 1)

typedef struct QsChoice
{
	QsEncoding	best;
	bool		considered[QS_ENC_COUNT];
	size_t		size[QS_ENC_COUNT]; /* exact bytes; valid if considered */
	uint32_t	ndistinct;		/* if DICT was considered */
	int			dict_width;		/* bits per dictionary code */
	int			for_width;
	int			delta_width;
} QsChoice;

extern const char *qs_encoding_name(QsEncoding e);

/*
 * Compute the sizes of the encodings in allowed (a QS_ENC_MASK set; PLAIN
 * is always considered) and pick the smallest.  is_int says the fixed
 * width values (4 or 8 bytes) are signed integers, enabling FOR.
 */
extern QsCodecStatus qs_choose_encoding(const QsValues *vals, bool is_int,
										QsCmpFn cmp, void *cmp_arg,
										unsigned allowed,
										const QsCodecAllocator *alloc,
										QsChoice *choice, QsCodecErr *err);

#endif							/* QS_CODEC_CHOOSE_H */
