/*-------------------------------------------------------------------------
 *
 * handler.c
 *	  The table access methods of the row-page engine: one TableAmRoutine
 *	  per page layout (quickstep_nsm, ...), their SQL handler functions, and
 *	  the registry that maps a relation's routine back to its layout.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/heaptoast.h"
#include "fmgr.h"
#include "core/quickstep.h"
#include "utils/rel.h"

#include "tableam/engine.h"
#include "tableam/engine_int.h"

/* ------------------------------------------------------------------------
 * Registry: one routine per layout, filled on first use.  Backend-local and
 * never freed (a relcache entry keeps pointing at its routine).
 * ------------------------------------------------------------------------
 */
#define QS_MAX_LAYOUTS 8

static struct
{
	TableAmRoutine routine;
	const QsPageLayout *layout;
	bool		row_table;		/* a row layout's own AM (not a column table's delta) */
}			qs_registry[QS_MAX_LAYOUTS];
static int	qs_nregistered = 0;

/*
 * qs_engine_routine
 *		The TableAmRoutine of the engine over 'layout'.  Every layout's
 *		handler returns this.  Pruning and VACUUM write records of our
 *		custom WAL resource manager, which only a server that preloads the
 *		library can replay, so relations cannot be opened otherwise.
 */
const TableAmRoutine *
qs_engine_routine(const QsPageLayout *layout)
{
	qs_require_preload("quickstep table access methods");
	for (int i = 0; i < qs_nregistered; i++)
		if (qs_registry[i].layout == layout && qs_registry[i].row_table)
			return &qs_registry[i].routine;
	if (qs_nregistered >= QS_MAX_LAYOUTS)
		elog(ERROR, "too many quickstep page layouts registered");
	qs_engine_fill_routine(&qs_registry[qs_nregistered].routine);
	qs_registry[qs_nregistered].layout = layout;
	qs_registry[qs_nregistered].row_table = true;
	return &qs_registry[qs_nregistered++].routine;
}

/*
 * qs_engine_register_derived
 *		A new routine of the engine over 'layout' for another AM to
 *		override callbacks of (column tables: the delta is the engine's).
 *		qs_layout_of() knows its relations; qs_is_engine_rel() does not
 *		count them as row tables.  Called once per backend by the AM's
 *		handler; the routine lives as long as the backend.
 */
TableAmRoutine *
qs_engine_register_derived(const QsPageLayout *layout)
{
	qs_require_preload("quickstep table access methods");
	if (qs_nregistered >= QS_MAX_LAYOUTS)
		elog(ERROR, "too many quickstep page layouts registered");
	qs_engine_fill_routine(&qs_registry[qs_nregistered].routine);
	qs_registry[qs_nregistered].layout = layout;
	qs_registry[qs_nregistered].row_table = false;
	return &qs_registry[qs_nregistered++].routine;
}

/* Is rel a table of a row layout's own AM (quickstep_nsm/pax/hpl)? */
bool
qs_is_engine_rel(Relation rel)
{
	for (int i = 0; i < qs_nregistered; i++)
		if (rel->rd_tableam == &qs_registry[i].routine)
			return qs_registry[i].row_table;
	return false;
}

const QsPageLayout *
qs_layout_of(Relation rel)
{
	for (int i = 0; i < qs_nregistered; i++)
		if (rel->rd_tableam == &qs_registry[i].routine)
			return qs_registry[i].layout;
	elog(ERROR, "relation \"%s\" does not use a quickstep row access method",
		 RelationGetRelationName(rel));
	return NULL;				/* keep compiler quiet */
}

/* ------------------------------------------------------------------------
 * VACUUM (vacuum.c)
 * ------------------------------------------------------------------------
 */
static void
qs_relation_vacuum(Relation rel, struct VacuumParams *params,
				   BufferAccessStrategy bstrategy)
{
	qs_vacuum_rel(rel, params, bstrategy);
}

/* ------------------------------------------------------------------------
 * Slots and parallel scans
 * ------------------------------------------------------------------------
 */
static const TupleTableSlotOps *
qs_slot_callbacks(Relation rel)
{
	return qs_layout_of(rel)->slot_ops();
}

static uint64
qs_relation_size(Relation rel, ForkNumber forkNumber)
{
	return table_block_relation_size(rel, forkNumber);
}

/* ------------------------------------------------------------------------
 * The routine
 * ------------------------------------------------------------------------
 */
void
qs_engine_fill_routine(TableAmRoutine *r)
{
	memset(r, 0, sizeof(*r));
	r->type = T_TableAmRoutine;

	r->slot_callbacks = qs_slot_callbacks;

	r->scan_begin = qs_scan_begin;
	r->scan_end = qs_scan_end;
	r->scan_rescan = qs_scan_rescan;
	r->scan_getnextslot = qs_scan_getnextslot;

	r->scan_set_tidrange = qs_scan_set_tidrange;
	r->scan_getnextslot_tidrange = qs_scan_getnextslot_tidrange;

	r->parallelscan_estimate = table_block_parallelscan_estimate;
	r->parallelscan_initialize = table_block_parallelscan_initialize;
	r->parallelscan_reinitialize = table_block_parallelscan_reinitialize;

	r->index_fetch_begin = qs_index_fetch_begin;
	r->index_fetch_reset = qs_index_fetch_reset;
	r->index_fetch_end = qs_index_fetch_end;
	r->index_fetch_tuple = qs_index_fetch_tuple;

	r->tuple_fetch_row_version = qs_fetch_row_version;
	r->tuple_tid_valid = qs_tuple_tid_valid;
	r->tuple_get_latest_tid = qs_get_latest_tid;
	r->tuple_satisfies_snapshot = qs_tuple_satisfies_snapshot;
	r->index_delete_tuples = qs_index_delete_tuples;

	r->tuple_insert = qs_tuple_insert;
	r->tuple_insert_speculative = qs_tuple_insert_speculative;
	r->tuple_complete_speculative = qs_tuple_complete_speculative;
	r->multi_insert = qs_multi_insert;
	r->tuple_delete = qs_tuple_delete;
	r->tuple_update = qs_tuple_update;
	r->tuple_lock = qs_tuple_lock;
	r->finish_bulk_insert = qs_finish_bulk_insert;

	r->QS_AM_SET_NEW_FILELOCATOR = qs_relation_set_new_filelocator;
	r->relation_nontransactional_truncate = qs_relation_nontransactional_truncate;
	r->relation_copy_data = qs_relation_copy_data;
	r->relation_copy_for_cluster = qs_relation_copy_for_cluster;
	r->relation_vacuum = qs_relation_vacuum;
	r->scan_analyze_next_block = qs_scan_analyze_next_block;
	r->scan_analyze_next_tuple = qs_scan_analyze_next_tuple;
	r->index_build_range_scan = qs_index_build_range_scan;
	r->index_validate_scan = qs_index_validate_scan;

	r->relation_size = qs_relation_size;
	r->relation_needs_toast_table = qs_relation_needs_toast_table;
	r->relation_toast_am = qs_relation_toast_am;
	r->relation_fetch_toast_slice = heap_fetch_toast_slice;

	r->relation_estimate_size = qs_relation_estimate_size;

#ifndef QS_BITMAP_ONE_CALLBACK
	r->scan_bitmap_next_block = qs_scan_bitmap_next_block;
#endif
	r->scan_bitmap_next_tuple = qs_scan_bitmap_next_tuple;
	r->scan_sample_next_block = qs_scan_sample_next_block;
	r->scan_sample_next_tuple = qs_scan_sample_next_tuple;
}

/* ------------------------------------------------------------------------
 * SQL handlers (the extension script creates the access methods)
 * ------------------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(nsm_handler);

Datum
nsm_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(qs_engine_routine(&qs_nsm_layout));
}

PG_FUNCTION_INFO_V1(pax_handler);

Datum
pax_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(qs_engine_routine(&qs_pax_layout));
}

PG_FUNCTION_INFO_V1(hpl_handler);

Datum
hpl_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(qs_engine_routine(&qs_hpl_layout));
}
