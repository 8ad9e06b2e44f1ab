/*-------------------------------------------------------------------------
 *
 * shared_scan.h
 *	  Shared scans of quickstep row tables: the registry of members and the
 *	  circle each table's members ride (src/shared/README.md).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SHARED_SCAN_H
#define QS_SHARED_SCAN_H

#include "storage/block.h"
#include "utils/relcache.h"

/* GUC quickstep.enable_shared_scan (guc.c) */
extern bool qs_enable_shared_scan;

/* Pages a member walks between two reports of its position to the circle. */
#define QS_SHARED_CHUNK_PAGES	16

/* shared memory (registry.c), called from src/core/shmem.c */
extern Size qs_sharedscan_shmem_size(void);
extern void qs_sharedscan_shmem_request(void);
extern void qs_sharedscan_shmem_init(void);

/*
 * A member's handle: the slot it holds in the registry and the slot's
 * generation when it was taken.  A handle whose slot was freed in the
 * meantime (transaction end, exit) is stale and every call ignores it, so
 * it can never touch a slot another member took since.  idx < 0: the scan
 * runs unshared.
 */
typedef struct QsSharedSlot
{
	int			idx;
	uint64		gen;
} QsSharedSlot;

#define QsSharedSlotIsValid(s)	((s).idx >= 0)

extern QsSharedSlot qs_shared_join(Relation rel, BlockNumber nblocks,
								   BlockNumber *start);
extern void qs_shared_invalidate(QsSharedSlot *slot);
extern void qs_shared_report(QsSharedSlot slot, BlockNumber next, uint64 chunks);
extern void qs_shared_leave(QsSharedSlot slot);

#endif							/* QS_SHARED_SCAN_H */
