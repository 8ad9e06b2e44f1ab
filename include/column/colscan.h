/*-------------------------------------------------------------------------
 *
 * colscan.h
 *	  Scans of column tables, shared by am.c (sequential scans, fetches,
 *	  ANALYZE, index builds) and bitmap.c (bitmap and TID-range scans): the
 *	  scan descriptor wrapping the engine's delta scan, and reading main
 *	  rows with their delete-map entries.
 *
 * include/column/colscan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_COLSCAN_H
#define QS_COLUMN_COLSCAN_H

#include "access/relscan.h"
#include "nodes/tidbitmap.h"
#include "port/atomics.h"
#include "utils/snapmgr.h"

#include "column/colstore.h"

/*
 * Which rows of a block's virtual page count, from their delete-map
 * entries: visible to 'snapshot', or (snapshot NULL) their
 * HeapTupleSatisfiesVacuum verdict against OldestXmin.  Rows of a virtual
 * page without a delete-map page are as the directory says.
 */
typedef struct ColRowFilter
{
	QsColDelmapRoot root;		/* n = 0: the block has no delete map */
	bool		no_pages;		/* root lists no page: no row has an entry */
	uint32		vpage;			/* loaded virtual page, or UINT32_MAX */
	bool		has_page;
	uint8		status[QS_COLBLOCK_TIDS_PER_PAGE];	/* bool or HTSV_Result */
	bool		removed[QS_COLBLOCK_TIDS_PER_PAGE];
	HeapTupleHeaderData hdr[QS_COLBLOCK_TIDS_PER_PAGE];
} ColRowFilter;

extern void qs_colfilter_begin(Relation rel, const QsColDirEntry *e,
							   ColRowFilter *f);
extern void qs_colfilter_end(ColRowFilter *f);
extern bool qs_colfilter_row(Relation rel, const QsColDirEntry *e,
							 ColRowFilter *f, uint32 row, Snapshot snapshot,
							 TransactionId OldestXmin,
							 const HeapTupleHeaderData **hdr, int *status);
extern void qs_colscan_store_row(QsColRowReader *rr, uint32 row,
								 TupleTableSlot *slot, MemoryContext rowcxt,
								 const HeapTupleHeaderData *hdr);
extern void qs_colscan_store_row_lazy(Relation rel, const QsColDirEntry *e,
									  uint32 row, TupleTableSlot *slot,
									  MemoryContext rowcxt,
									  const HeapTupleHeaderData *hdr);

/*
 * Our scans are told from the engine's (the delta scan inside ours, which
 * the engine's index build ends through table_endscan) by a flag bit
 * ScanOptions does not use.
 */
#define COL_BEFORE_MAIN		0
#define COL_IN_MAIN			1
#define COL_AFTER_MAIN		2

#define QS_SO_COLUMN_SCAN	((uint32) 1 << 31)

typedef struct ColScanDescData
{
	TableScanDescData base;
	TableScanDesc delta;
	bool		delta_done;
	bool		started;		/* a row was asked for since (re)start */
	bool		delta_skips_set;	/* the delta scan passes the runs unread */
	bool		main_inited;
	QsColDirectory dir;
	pg_atomic_uint32 *pnext;	/* parallel scans: shared */
	bool		have_block;
	uint32		row;
	QsColRowReader rr;
	bool		rr_cached;		/* rows from the backend's read cache
								 * (readcache.c), rr unused: bitmap scans */
	ColRowFilter filter;		/* the block's delete map */
	uint32		open_idx;		/* directory index of the open block */
	int			main_pos;		/* COL_BEFORE_MAIN, COL_IN_MAIN, COL_AFTER_MAIN */
	int64		cur;			/* sequential and TID range scans: the row
								 * last returned */
	uint32		row_end;		/* the open block's rows to read:
								 * row..row_end-1 */

	/*
	 * Sequential and TID range scans: rows batch_first .. batch_first +
	 * batch_n - 1 of the open block, decoded (qs_colrows_get_batch_cols;
	 * row i's attribute c at batch_values[c * batch_rows + i - batch_first],
	 * column-major); by-reference values in batchcxt, reset
	 * only when the next batch is decoded or the block closed.
	 */
	uint32		batch_rows;		/* rows a batch holds at most */
	uint32		batch_first;
	uint32		batch_n;		/* 0: none */
	Datum	   *batch_values;
	bool	   *batch_isnull;
	/*
	 * batch_nulls_same: every attribute is NULL in all or none of the
	 * batch's rows, as batch_nulls says (one row's flags, copied whole).
	 */
	bool		batch_nulls_same;
	bool	   *batch_nulls;
	/*
	 * The attributes the batches decode (the slot's QsRecSlot.want,
	 * fetchatts.c; NULL: all); the others are NULL in the arrays, set when
	 * it last changed.
	 */
	const bool *batch_want;
	MemoryContext batchcxt;
	const TupleTableSlotOps *own_ops;	/* the table's slot kind (a header) */

	/*
	 * The open block's header of a row without a delete-map entry
	 * (qs_colmain_default_header) but for its t_ctid: hdr_old for the rows
	 * of older versions (row < base), hdr_new for the others; built when
	 * the block is opened, instead of once a row.
	 */
	HeapTupleHeaderData hdr_old;
	HeapTupleHeaderData hdr_new;

	/* TID range scans (scan_tid.c) */
	bool		tr_set;
	ItemPointerData tr_min;
	ItemPointerData tr_max;

	/* sample scans (scan_sample.c) */
	BlockNumber smp_delta;		/* delta blocks: sample blocks 0..smp_delta-1 */
	BlockNumber smp_total;		/* and the main rows' virtual pages after them */
	BlockNumber smp_cur;		/* the current sample block, or Invalid */
	OffsetNumber smp_maxoff;	/* rows of the current virtual page */

	/* bitmap scans (scan_tid.c): the main rows of the current page */
	bool		bm_main;		/* the page is a virtual page of main rows */
	int			bm_n;
	int			bm_i;
	bool		bm_recheck;
	uint32		bm_rows[QS_COLBLOCK_TIDS_PER_PAGE];
	const HeapTupleHeaderData *bm_hdr[QS_COLBLOCK_TIDS_PER_PAGE];
	/* serializable bitmap scans: the page's delete map read after locking */
	ColRowFilter *bm_ssi;

	QsColAttr  *attrs;
	TupleDesc	slot_desc;		/* the descriptor of the caller's slots */
	MemoryContext cxt;			/* the scan's directory and attributes */
	MemoryContext blkcxt;		/* the current block */
	struct QsColScratch *scratch;	/* its big buffers, kept across blocks */
	MemoryContext rowcxt;		/* the current row's values */
} ColScanDescData;
typedef ColScanDescData *ColScanDesc;

extern int	qs_colfilter_keep(Relation rel, ColScanDesc s, uint32 start,
							  OffsetNumber *sel, int n);

/*
 * Is qs_colfilter_row's answer "exists, visible" for every row of the
 * filter's block, without asking it per row?  When the block's delete-map
 * root (copied at qs_colfilter_begin) lists no page, no row has an entry,
 * and the snapshot judges by that copy: MVCC, SnapshotAny, or none
 * (snapshots that judge "now" read the directory again per row).
 */
static inline bool
qs_colfilter_all_visible(const ColRowFilter *f, Snapshot snapshot)
{
	return f->no_pages &&
		(snapshot == NULL || IsMVCCSnapshot(snapshot) ||
		 snapshot->snapshot_type == SNAPSHOT_ANY);
}

/* remember the caller's slot descriptor before main rows are first read */
static inline void
qs_colscan_slot_desc(ColScanDesc s, TupleTableSlot *slot)
{
	if (!s->main_inited)
		s->slot_desc = slot->tts_tupleDescriptor;

	/*
	 * PG 15's parallel bitmap workers give our descriptor the leader's
	 * snapshot after beginscan (table_scan_update_snapshot): the delta's
	 * scan reads with it too.
	 */
	if (s->delta && s->delta->rs_snapshot != s->base.rs_snapshot)
		s->delta->rs_snapshot = s->base.rs_snapshot;
}

static inline bool
qs_is_col_scan(TableScanDesc sscan)
{
	return (sscan->rs_flags & QS_SO_COLUMN_SCAN) != 0;
}

extern void qs_colscan_delta_skip_runs(ColScanDesc s);
extern void qs_colscan_init_main(ColScanDesc s);
extern void qs_colscan_open_block(ColScanDesc s, uint32 idx);
extern void qs_colscan_open_block_cached(ColScanDesc s, uint32 idx);
extern void qs_colscan_close_block(ColScanDesc s);

/* the engine's next-row call of a scan kind (qs_scan_getnextslot...) */
typedef bool (*qs_colscan_delta_next) (TableScanDesc scan,
									   ScanDirection direction,
									   TupleTableSlot *slot);
extern bool qs_colscan_getnext(ColScanDesc s, ScanDirection direction,
							   TupleTableSlot *slot,
							   qs_colscan_delta_next delta_next, bool main);

/* scan_tid.c: bitmap and TID-range scans */
extern void qs_colscan_tid_bounds(ColScanDesc s, const QsColDirEntry *e,
								  uint32 *lo, uint32 *hi);
extern void qs_col_scan_set_tidrange(TableScanDesc sscan, ItemPointer mintid,
									 ItemPointer maxtid);
extern bool qs_col_scan_getnextslot_tidrange(TableScanDesc sscan,
											 ScanDirection direction,
											 TupleTableSlot *slot);
#ifndef QS_BITMAP_ONE_CALLBACK
extern bool qs_col_scan_bitmap_next_block(TableScanDesc sscan,
										  TBMIterateResult *tbmres);
extern bool qs_col_scan_bitmap_next_tuple(TableScanDesc sscan,
										  TBMIterateResult *tbmres,
										  TupleTableSlot *slot);
#else
extern bool qs_col_scan_bitmap_next_tuple(TableScanDesc sscan,
										  TupleTableSlot *slot, bool *recheck,
										  uint64 *lossy_pages,
										  uint64 *exact_pages);
#endif
/*
 * fetchatts.c: fetched rows decode only the attributes their plan reads;
 * PG 15: no executor prefetch for bitmap scans of column tables
 */
extern void qs_col_fetchatts_install_hook(void);
extern int	qs_colscan_load_vpage(ColScanDesc s, BlockNumber vblock,
								  const OffsetNumber *offs, int n);

/* scan_sample.c: TABLESAMPLE */
struct SampleScanState;
extern bool qs_col_scan_sample_next_block(TableScanDesc sscan,
										  struct SampleScanState *scanstate);
extern bool qs_col_scan_sample_next_tuple(TableScanDesc sscan,
										  struct SampleScanState *scanstate,
										  TupleTableSlot *slot);

#endif							/* QS_COLUMN_COLSCAN_H */
