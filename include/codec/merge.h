/*-------------------------------------------------------------------------
 *
 * merge.h
 *	  Merging a delta partition into a dictionary-compressed main column:
 *	  the linear-time algorithm of paper 004 section 5.3 and the naive
 *	  binary-search algorithm (paper 004 equation 5) for comparison.
 *
 *	  Step 1(a): sort the delta values into a dictionary U_D and replace
 *				 the delta values by codes into U_D.
 *	  Step 1(b): merge U_M and U_D linearly into U'_M, recording where each
 *				 old code went: translation tables X_M and X_D.
 *	  Step 2:	 M'[i] = X_M[M[i]] for the main rows, then X_D[D[j]] for the
 *				 appended delta rows, bit-packed at the new width
 *				 bits(|U'_M| - 1).
 *	  Naive step 2 instead decodes each main code through U_M and binary
 *	  searches U'_M (and binary searches every delta value).
 *
 * Existing rows keep their positions; both step-2 variants produce
 * byte-identical output.  Memory comes from the caller's allocator.
 *
 * include/codec/merge.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_MERGE_H
#define QS_CODEC_MERGE_H

#include "codec/dict.h"

typedef struct QsMergeStep1
{
	uint8_t    *dict_blob;		/* serialized U'_M */
	size_t		dict_len;
	QsDict		new_dict;		/* view of dict_blob */
	uint32_t	nm_unique;		/* |U_M| */
	uint32_t	nd_unique;		/* |U_D| */
	uint32_t   *xm;				/* |U_M| entries: old main code -> new code */
	uint32_t   *xd;				/* |U_D| entries: delta code -> new code */
	uint32_t   *delta_codes;	/* N_D entries: codes into U_D (step 1a) */
	size_t		n_delta;
	int			new_width;		/* bits per code in the merged column */
} QsMergeStep1;

/*
 * Steps 1(a) and 1(b).  main_dict is the open main dictionary (its cmp is
 * used for the delta too); delta holds the N_D uncompressed delta values
 * of the same width.  Step 1(a) sorts every delta value with the
 * comparator (qs_dict_build).
 */
extern QsCodecStatus qs_merge_step1(const QsDict *main_dict, const QsValues *delta,
									const QsCodecAllocator *alloc,
									QsMergeStep1 *s1, QsCodecErr *err);

/*
 * QS_MERGE_IMAGE_EQUAL: the comparator calls two values equal only when
 * their bytes are identical (btequalimage columns; the codec's own
 * comparators).  Step 1(a) then removes the delta's duplicates by hashing
 * and sorts only its distinct values (qs_dict_build_image).  The result is
 * byte-identical to qs_merge_step1's; without the flag it is that call.
 */
#define QS_MERGE_IMAGE_EQUAL	0x01

extern QsCodecStatus qs_merge_step1_ex(const QsDict *main_dict, const QsValues *delta,
									   unsigned flags, const QsCodecAllocator *alloc,
									   QsMergeStep1 *s1, QsCodecErr *err);
extern void qs_merge_step1_free(const QsCodecAllocator *alloc, QsMergeStep1 *s1);

/*
 * Linear step 2: out must hold qs_bitpack_bytes(n_main + s1->n_delta,
 * s1->new_width) bytes.  Returns QS_CODEC_CORRUPT if a main code is not
 * below |U_M| (the codes are checked per block before translation).
 */
extern QsCodecStatus qs_merge_step2(const uint8_t *main_codes, int main_width,
									size_t n_main, const QsMergeStep1 *s1,
									uint8_t *out, QsCodecErr *err);

/* Naive step 2 (paper 004 eq. 5): lookup + binary search per row. */
extern QsCodecStatus qs_merge_step2_naive(const QsDict *main_dict,
										  const uint8_t *main_codes, int main_width,
										  size_t n_main, const QsValues *delta,
										  const QsDict *new_dict, int new_width,
										  uint8_t *out, QsCodecErr *err);

#endif							/* QS_CODEC_MERGE_H */
