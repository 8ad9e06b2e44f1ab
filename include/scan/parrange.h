/*-------------------------------------------------------------------------
 *
 * parrange.h
 *	  Parallel scans of column tables: participants share the rows of the
 *	  blocks they claimed (src/scan/parrange.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SCAN_PARRANGE_H
#define QS_SCAN_PARRANGE_H

#include "port/atomics.h"
#include "storage/spin.h"

#include "column/colscan.h"
#include "column/pushdown.h"

/* one participant's open block: its rows next .. end - 1 not taken yet */
typedef struct QsRangeSlot
{
	slock_t		mutex;
	uint32		idx;			/* directory entry of the block */
	uint32		next;
	uint32		end;
} QsRangeSlot;

/* in the scan node's DSM segment */
typedef struct QsParRanges
{
	pg_atomic_uint32 nregistered;	/* slots handed to participants */
	int			nslots;			/* the workers planned and the leader */
	QsRangeSlot slot[FLEXIBLE_ARRAY_MEMBER];
} QsParRanges;

/* a participant's view: the shared slots and its own (-1 before its first) */
typedef struct QsParRangeMine
{
	QsParRanges *r;
	int			slot;
} QsParRangeMine;

extern Size qs_parranges_size(int nworkers);
extern void qs_parranges_reset(QsParRanges *r, int nworkers);
extern void qs_parrange_attach(QsParRangeMine *m, QsParRanges *r);
extern void qs_parrange_publish(QsParRangeMine *m, uint32 idx, uint32 lo,
								uint32 hi);
extern bool qs_parrange_take(QsParRangeMine *m, uint32 *start, int *len);
extern bool qs_parrange_steal(QsParRangeMine *m, QsColPush *p, ColScanDesc s);

#endif							/* QS_SCAN_PARRANGE_H */
