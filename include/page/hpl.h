/*-------------------------------------------------------------------------
 *
 * hpl.h
 *	  Helpers of the hybrid page layout (src/page/hpl.c) beyond the
 *	  QsPageLayout interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_PAGE_HPL_H
#define QS_PAGE_HPL_H

#include "page/layout.h"

/*
 * Poor man's normalized keys (paper 003 §4.2): for text and varchar
 * columns an HPL page keeps, next to each value's offset, a 4-byte prefix:
 * the first four bytes of the value's data, big-endian, zero padded.  No
 * scan reads them yet (a reader must skip stale attributes, as
 * hpl_att_stale readers do, and values stored compressed or toasted, whose
 * bytes the prefix does not describe).  With prefixes pa, pb of values a,
 * b of a column under the C (or POSIX) collation, pa < pb implies a < b
 * and pa != pb implies a <> b; under any deterministic collation pa != pb
 * still implies a <> b for text.
 */
/* the prefix a value would get (for comparing against a constant) */
extern uint32 qs_hpl_prefix_of(const char *data, Size len);

#endif							/* QS_PAGE_HPL_H */
