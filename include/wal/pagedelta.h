/*-------------------------------------------------------------------------
 *
 * pagedelta.h
 *	  The delta of a generic WAL record, computed a word at a time
 *	  (src/wal/pagedelta.c; plain C, no backend calls, unit-tested).
 *
 * include/wal/pagedelta.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_WAL_PAGEDELTA_H
#define QS_WAL_PAGEDELTA_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fragments that turn 'cur' into 'target' in the regions generic WAL's redo
 * (generic_xlog.c) rebuilds: [0, target_lower) and [target_upper, blcksz);
 * bytes of cur outside [0, cur_lower) and [cur_upper, blcksz) are not
 * trusted and always written.  Each fragment is an uint16 offset, an uint16
 * length and the bytes, as generic_xlog.c's writeFragment writes them.
 * 'out' needs room for qs_pagedelta_max(blcksz) bytes.  Returns the delta's
 * length.
 */
extern size_t qs_pagedelta(const char *cur, const char *target, size_t blcksz,
						   int cur_lower, int cur_upper,
						   int target_lower, int target_upper, char *out);

/*
 * Zero the new hole [lower, upper) of 'page' but what of it lies in the
 * current hole [cur_lower, cur_upper), known to hold zeros (genxlog.c).
 */
extern void qs_pagedelta_zero_hole(char *page, int cur_lower, int cur_upper,
								   int lower, int upper);

/* apply a delta to a page, as generic_redo does (tests) */
extern void qs_pagedelta_apply(char *page, const char *delta, size_t len);

/* the largest delta of a page of blcksz bytes */
#define qs_pagedelta_max(blcksz)	((blcksz) + 2 * 4 * 2)

#endif							/* QS_WAL_PAGEDELTA_H */
