/*-------------------------------------------------------------------------
 *
 * engine.h
 *	  The row-page engine: TableAmRoutine callbacks written once against the
 *	  page-layout interface (include/page/layout.h).
 *
 * A row-store AM (quickstep_nsm now; quickstep_pax, quickstep_hpl later) is
 * a TableAmRoutine filled by qs_engine_fill_routine() and registered with
 * its layout; every callback finds the layout of a relation through
 * qs_layout_of().
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_TABLEAM_ENGINE_H
#define QS_TABLEAM_ENGINE_H

#include "core/compat.h"

#include "access/tableam.h"
#include "page/layout.h"

/* handler.c: the engine's routine over a layout; the layout of a relation */
extern void qs_engine_fill_routine(TableAmRoutine *routine);
extern const TableAmRoutine *qs_engine_routine(const QsPageLayout *layout);
extern const QsPageLayout *qs_layout_of(Relation rel);
extern bool qs_is_engine_rel(Relation rel);
extern TableAmRoutine *qs_engine_register_derived(const QsPageLayout *layout);

/* wal.c: the custom WAL resource manager (at shared_preload_libraries) */
extern void qs_wal_register(void);

/*
 * Offsets of the records of the share-locked page visible to 'snapshot'
 * (all of them, or those of offs[0..noffs-1] when noffs >= 0), with
 * serializable conflict checks as a heap scan makes them.  Used by every
 * scan of the engine and by QuickstepScan (src/scan/).
 */
extern int	qs_page_visible(const QsPageLayout *L, Relation rel, Buffer buf,
							Snapshot snapshot, const OffsetNumber *offs,
							int noffs, bool lock_tids, OffsetNumber *out);

/*
 * Opportunistic pruning of the pinned, unlocked page 'buf' (prune.c), as
 * heap_page_prune_opt: every scan calls it on each page it reads, before
 * locking it, as heapgetpage does; QuickstepScan too.
 */
extern void qs_page_prune_opt(Relation rel, const QsPageLayout *L, Buffer buf);

#endif							/* QS_TABLEAM_ENGINE_H */
