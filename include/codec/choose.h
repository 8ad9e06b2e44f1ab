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
 * Flags:
 *	  QS_CHOOSE_IMAGE_EQUAL  cmp calls values equal only when their bytes
 *		are the same (the codec's comparators; btequalimage in the
 *		backend): the dictionary is not built to be measured, its size
 *		follows from the number of distinct values and their bytes,
 *		counted with a hash set (codec/distinct.h).
 *	  QS_CHOOSE_PRUNE  stop measuring LZ4 or a counted dictionary once it
 *		is larger than an allowed candidate measured before it (PLAIN,
 *		FOR, FOR_DELTA, then LZ4 for the dictionary), whatever the values
 *		not yet seen: it is "pruned", never the choice.  The choice is the
 *		one measuring every size would make.
 *	  QS_CHOOSE_KEEP_LZ4  when LZ4 is the choice, hand its stripe over in
 *		lz4_stripe (allocated with alloc; the caller frees it) instead of
 *		having the caller compress the values a second time.
 *	  QS_CHOOSE_SAMPLE  for large inputs (QS_CHOOSE_SAMPLE_MIN values or
 *		more) first measure every allowed candidate on a sample of
 *		QS_CHOOSE_SAMPLE_CHUNKS runs of QS_CHOOSE_SAMPLE_RUN consecutive
 *		values spread over the input, and measure in full only PLAIN, FOR,
 *		FOR_DELTA (one pass, always) and the candidates whose sample size
 *		is within QS_CHOOSE_SAMPLE_SLACK of the sample's smallest
 *		(dictionaries also when QS_CHOOSE_SAMPLE_RECUR of as many scattered
 *		values recur: runs hide a cycle of values longer than a run).  The
 *		choice is then the smallest of those: a heuristic (an encoding
 *		ruled out by the sample could have been smaller over all values),
 *		used by bulk loads, where an LZ4 trial and a distinct count of
 *		every column of every block cost as much as the encoding itself.
 * Without flags every allowed size is exact (bench/codec reports them).
 *
 * include/codec/choose.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_CHOOSE_H
#define QS_CODEC_CHOOSE_H

#include <stdbool.h>

#include "codec/codec.h"
#include "codec/for.h"

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
	bool		pruned[QS_ENC_COUNT];	/* allowed, but larger than an
										 * allowed candidate: size[] a lower
										 * bound, considered[] false */
	uint8_t    *lz4_stripe;		/* QS_CHOOSE_KEEP_LZ4 and best LZ4: its
								 * stripe, size[QS_ENC_LZ4] bytes */
	uint32_t	ndistinct;		/* if DICT was considered (pruned: a lower
								 * bound) */
	int			dict_width;		/* bits per dictionary code */
	int			for_width;
	int			delta_width;
	bool		have_for_info;	/* FOR or FOR_DELTA considered: */
	QsForInfo	for_info;		/* their analysis, for qs_for_encode_analyzed */
	unsigned	screened_out;	/* QS_CHOOSE_SAMPLE: the encodings the sample
								 * ruled out (never measured in full) */
} QsChoice;

extern const char *qs_encoding_name(QsEncoding e);

/*
 * Compute the sizes of the encodings in allowed (a QS_ENC_MASK set; PLAIN
 * is always considered) and pick the smallest.  is_int says the fixed
 * width values (4 or 8 bytes) are signed integers, enabling FOR.
 * flags: QS_CHOOSE_* above.
 */
#define QS_CHOOSE_IMAGE_EQUAL	0x01
#define QS_CHOOSE_PRUNE			0x02
#define QS_CHOOSE_KEEP_LZ4		0x04
#define QS_CHOOSE_SAMPLE		0x08

#define QS_CHOOSE_SAMPLE_MIN	32768
#define QS_CHOOSE_SAMPLE_CHUNKS	8
#define QS_CHOOSE_SAMPLE_RUN	1024
#define QS_CHOOSE_SAMPLE_SLACK	1.25
#define QS_CHOOSE_SAMPLE_RECUR	0.05

extern QsCodecStatus qs_choose_encoding(const QsValues *vals, bool is_int,
										QsCmpFn cmp, void *cmp_arg,
										unsigned flags,
										unsigned allowed,
										const QsCodecAllocator *alloc,
										QsChoice *choice, QsCodecErr *err);

#endif							/* QS_CODEC_CHOOSE_H */
