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

extern void qs_engine_fill_routine(TableAmRoutine *routine);
extern void qs_engine_register(const TableAmRoutine *routine,
							   const QsPageLayout *layout);
extern const QsPageLayout *qs_layout_of(Relation rel);
extern bool qs_is_engine_rel(Relation rel);

/*
 * Is record 'off' of the share-locked page visible to 'snapshot'?  Fills
 * *tup (header in the page or in *scratch) and writes hint bits back
 * through the layout.  Used by every scan of the engine and by
 * QuickstepScan (src/scan/).
 */
extern bool qs_record_visible(const QsPageLayout *L, Relation rel, Buffer buf,
							  Page page, OffsetNumber off, Snapshot snapshot,
							  HeapTuple tup, HeapTupleHeaderData *scratch);

#endif							/* QS_TABLEAM_ENGINE_H */
