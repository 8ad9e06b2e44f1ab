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
 * the first four bytes of the value's data, big-endian, zero padded.  For
 * records offs[0..n-1], prefix[i] gets that key and valid[i] says whether
 * it is usable (false for NULL, a record without the attribute, or a value
 * stored compressed or toasted, whose bytes the prefix does not describe).
 * Returns false when the page keeps no prefix for 'attnum' (wide-row page,
 * another type, or a page formatted before the column existed).
 *
 * What a scan may use it for: with valid prefixes pa, pb of values a, b of
 * a column under the C (or POSIX) collation, pa < pb implies a < b and
 * pa != pb implies a <> b; only pa == pb needs the full comparison.  Under
 * any deterministic collation pa != pb still implies a <> b for text
 * (equal strings have equal bytes), so '=' may be pre-filtered by prefix;
 * ordering ('<', BETWEEN) by prefix is valid only under C/POSIX.
 */
extern bool qs_hpl_read_prefix(Page page, AttrNumber attnum,
							   const OffsetNumber *offs, int n,
							   uint32 *prefix, bool *valid);

/* the prefix a value would get (for comparing against a constant) */
extern uint32 qs_hpl_prefix_of(const char *data, Size len);

#endif							/* QS_PAGE_HPL_H */
