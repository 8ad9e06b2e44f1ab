/*-------------------------------------------------------------------------
 *
 * distinct.h
 *	  Distinct values of a value array by their bytes (a hash set), for
 *	  orders under which equal values are byte-identical.
 *
 * A dictionary's size depends only on how many distinct values there are
 * and how many bytes they take, not on their order: the chooser gets both
 * from one pass over a hash set instead of sorting every value of the block
 * (choose.c), and can stop as soon as the dictionary is bound to lose.  It
 * is exact only where "equal" means "the same bytes" — the backend's
 * btequalimage columns (src/column/values.c: dict_ok), the only ones it
 * lets have a dictionary.
 *
 * include/codec/distinct.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_DISTINCT_H
#define QS_CODEC_DISTINCT_H

#include <stdbool.h>

#include "codec/codec.h"

typedef struct QsDistinct
{
	uint32_t	ndistinct;		/* distinct values seen */
	size_t		data_bytes;		/* their bytes, each counted once */
	bool		complete;		/* false: stopped early by the stop test */
} QsDistinct;

/*
 * Called after every QS_DISTINCT_STOP_EVERY-th new distinct value with the
 * counts so far (both only grow); returning true ends the count there.
 */
typedef bool (*QsDistinctStopFn) (uint32_t ndistinct, size_t data_bytes, void *arg);

#define QS_DISTINCT_STOP_EVERY	64

/*
 * Count the distinct values of vals (at most INT32_MAX values).  stop may
 * be NULL (count everything).  Scratch (16 to 20 bytes per value) comes
 * from alloc and is freed.
 */
extern QsCodecStatus qs_distinct_count(const QsValues *vals,
									   QsDistinctStopFn stop, void *stop_arg,
									   const QsCodecAllocator *alloc,
									   QsDistinct *out, QsCodecErr *err);
/*
 * Count every distinct value and say which is which: first[k] is the index
 * of the k-th distinct value's first occurrence (ndistinct entries; room
 * for n), group[i] the k of value i (n entries).
 */
extern QsCodecStatus qs_distinct_groups(const QsValues *vals,
										const QsCodecAllocator *alloc,
										uint32_t *first, uint32_t *group,
										QsDistinct *out, QsCodecErr *err);

/*
 * qs_distinct_groups with flags (qs_distinct_groups is QS_DISTINCT_GROW):
 *	  QS_DISTINCT_GROW	the table starts small and doubles, so that few
 *						distinct values among many rows stay in cache
 *	  QS_DISTINCT_GIVE_UP_DENSE  stop (complete = false; first and group
 *						then hold nothing useful) if fewer than 1/16 of the
 *						first n/16 values (at least QS_DISTINCT_DENSE_MIN)
 *						repeat an earlier one: for a caller whose other way,
 *						a radix sort of all values, costs little more than
 *						grouping (uniform draws from n/2 values or more)
 *	  QS_DISTINCT_GIVE_UP_UNIQUE  the same at 1/64 (unique keys, or draws
 *						from about 2n values or more): for a caller whose
 *						other way sorts with comparator calls, which
 *						grouping first saves unless nearly all are distinct
 * The estimate reads a prefix: rows in an order that brings their repeats
 * late only cost the grouping's time, never a different result.
 */
#define QS_DISTINCT_GROW			0x01
#define QS_DISTINCT_GIVE_UP_DENSE	0x02
#define QS_DISTINCT_GIVE_UP_UNIQUE	0x04
#define QS_DISTINCT_DENSE_MIN		4096

extern QsCodecStatus qs_distinct_groups_ex(const QsValues *vals, unsigned flags,
										   const QsCodecAllocator *alloc,
										   uint32_t *first, uint32_t *group,
										   QsDistinct *out, QsCodecErr *err);

#endif							/* QS_CODEC_DISTINCT_H */
