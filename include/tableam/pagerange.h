/*-------------------------------------------------------------------------
 *
 * pagerange.h
 *	  Sorted, disjoint page ranges [start, end) of a relation fork: a column
 *	  table's block runs, which a pass over its delta skips unread (the
 *	  engine's sequential scan, QuickstepScan's delta pass).
 *
 * include/tableam/pagerange.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_PAGERANGE_H
#define QS_PAGERANGE_H

#include "storage/block.h"

typedef struct QsPageRange
{
	BlockNumber start;
	BlockNumber end;
} QsPageRange;

/* The index of the range holding page blkno, or -1 (ranges sorted). */
static inline int
qs_page_range_find(const QsPageRange *r, int n, BlockNumber blkno)
{
	int			lo = 0,
				hi = n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (r[mid].end <= blkno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].start <= blkno ? lo : -1;
}

#endif							/* QS_PAGERANGE_H */
