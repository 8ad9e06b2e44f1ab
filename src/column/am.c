/*-------------------------------------------------------------------------
 *
 * am.c
 *	  The table AM of column tables: the row engine over HPL pages for the
 *	  delta, with the callbacks that also reach main (column blocks)
 *	  overridden.
 *
 * STATUS (README section 11): registered as quickstep_column.  What works: storage
 * creation and TRUNCATE (the metapage), COPY into main blocks (load.c),
 * sequential scans (serial and parallel) over delta and main, bitmap,
 * TID-range and sample scans (scan_tid.c, scan_sample.c), index builds and
 * index fetches of main rows, row fetches by TID, UPDATE, DELETE and row
 * locks of main rows (the engine's DML on their delete-map entries,
 * delmap.c), VACUUM and ANALYZE.  What does not exist yet: CLUSTER /
 * VACUUM FULL of a table with main blocks and backward scans over main
 * rows (those raise feature_not_supported), the merge, the options.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_am_d.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/storage.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "optimizer/plancat.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"

#include "column/colam.h"
#include "merge/moved.h"
#include "column/colscan.h"
#include "column/scratch.h"
#include "column/colstore.h"
#include "column/options.h"
#include "column/readcache.h"
#include "page/hpl.h"
#include "page/recslot.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "wal/qsxlog.h"

static TableAmRoutine *col_routine = NULL;


/* ANALYZE's main-row state (see "ANALYZE" below) */
static struct
{
	TableScanDesc scan;			/* the ANALYZE scan the state belongs to */
	bool		pending;		/* the sampled page is a run page */
	uint32		block_id,
				pageno,
				npages;
	BlockNumber run_start;		/* of the sampled page's run */
	bool		ready;
	uint32		row,
				end;
	MemoryContext cxt;
	MemoryContext rowcxt;
	QsColAttr  *attrs;
	QsColRowReader rr;
	ColRowFilter filter;
	bool		have_block;
	uint32		open_block;
}			col_an;

static void col_an_reset(void);
static bool col_shown_sys(TupleTableSlot *slot, int attnum, Datum *value);
static inline void store_row_header(Relation rel, const QsColDirEntry *e,
									uint32 row, TupleTableSlot *slot,
									bool own_slot,
									const HeapTupleHeaderData *hdr,
									const HeapTupleHeaderData *dflt);


/* ------------------------------------------------------------------------
 * Main rows into slots
 * ------------------------------------------------------------------------
 */

/*
 * The header of a main row without a delete-map entry: the directory's
 * xmin (its version's writer, or frozen for rows of older versions of an
 * open block: qs_coldir_row_xmin) and cmin, no xmax, t_ctid = its own TID.
 * A frozen row has heap's frozen bits and, as its raw xmin, the writer
 * VACUUM froze where the directory kept it (qs_coldir_row_shown_xmin).
 */
void
qs_colmain_default_header(const QsColDirEntry *e, ItemPointer tid,
						  HeapTupleHeader hdr)
{
	uint32		range,
				row = 0;
	TransactionId xmin;

	if (!qs_virt_decode(tid, &range, &row))
		row = 0;
	xmin = qs_coldir_row_xmin(e, row);
	memset(hdr, 0, sizeof(*hdr));
	hdr->t_infomask = HEAP_XMAX_INVALID;
	if (TransactionIdIsNormal(xmin))
	{
		HeapTupleHeaderSetXmin(hdr, xmin);
		HeapTupleHeaderSetCmin(hdr, e->cid);
	}
	else
	{
		/* frozen as heap freezes: the bits, and the raw xid xmin shows */
		HeapTupleHeaderSetXmin(hdr, qs_coldir_row_shown_xmin(e, row));
		HeapTupleHeaderSetCmin(hdr, FirstCommandId);
		hdr->t_infomask |= HEAP_XMIN_FROZEN;
	}
	HeapTupleHeaderSetXmax(hdr, InvalidTransactionId);
	hdr->t_hoff = SizeofHeapTupleHeader;
	hdr->t_ctid = *tid;
}

/*
 * Store row 'row' of the open block into slot (an HPL record slot):
 * values as a virtual tuple, and the header the system columns read:
 * 'hdr' (its delete-map entry) or, when NULL, the directory's.
 */
void
qs_colscan_store_row(QsColRowReader *rr, uint32 row, TupleTableSlot *slot,
			   MemoryContext rowcxt, const HeapTupleHeaderData *hdr)
{
	MemoryContext old;

	ExecClearTuple(slot);
	MemoryContextReset(rowcxt);
	old = MemoryContextSwitchTo(rowcxt);
	qs_colrows_get(rr, row, NULL, slot->tts_values, slot->tts_isnull);
	MemoryContextSwitchTo(old);
	store_row_header(rr->h.rel, &rr->h.entry, row, slot,
					 slot->tts_ops == table_slot_callbacks(rr->h.rel), hdr, NULL);
	ExecStoreVirtualTuple(slot);
}

/*
 * Row 'row' of block 'e' (visible to the caller) into slot as
 * qs_colscan_store_row stores it, but with its attributes decoded when
 * the executor reads them, from the backend's cached reader of the block
 * (readcache.c), where the slot can read them so (the table's own kind);
 * other slots get every value now, by-reference ones in rowcxt.
 */
void
qs_colscan_store_row_lazy(Relation rel, const QsColDirEntry *e, uint32 row,
						  TupleTableSlot *slot, MemoryContext rowcxt,
						  const HeapTupleHeaderData *hdr)
{
	if (qs_colreadcache_store_lazy(rel, e, row, slot))
		store_row_header(rel, e, row, slot, true, hdr, NULL);
	else
		qs_colscan_store_row(qs_colreadcache_get(rel, e), row, slot, rowcxt,
							 hdr);
}

/*
 * Name row 'row' of block 'e' in a slot the caller stores it into: its TID,
 * table and header (own_slot: the slot is the table's own kind, an HPL
 * record slot, which has one: 'hdr', its delete-map entry, or else the
 * directory's, 'dflt' with the row's TID when the caller built it for the
 * block).  Inlined: the sequential scan runs it once a row.
 */
static pg_attribute_always_inline void
store_row_header(Relation rel, const QsColDirEntry *e, uint32 row,
				 TupleTableSlot *slot, bool own_slot,
				 const HeapTupleHeaderData *hdr,
				 const HeapTupleHeaderData *dflt)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;
	ItemPointerData tid;

	/*
	 * Built in a local and copied whole: t_ctid read back from tts_tid
	 * right after qs_virt_tid's 2-byte stores missed store forwarding, a
	 * stall a row that perf put at a twentieth of the sequential scan.
	 */
	qs_virt_tid(e->tid_range, row, &tid);
	slot->tts_tid = tid;
	slot->tts_tableOid = RelationGetRelid(rel);
	if (own_slot)
	{
		if (hdr)
			rs->hdr = *hdr;
		else if (dflt)
		{
			rs->hdr = *dflt;
			rs->hdr.t_ctid = tid;
		}
		else
			qs_colmain_default_header(e, &slot->tts_tid, &rs->hdr);
	}
}


void
qs_colfilter_begin(Relation rel, const QsColDirEntry *e, ColRowFilter *f)
{
	qs_coldelmap_root(rel, e, &f->root);
	f->no_pages = true;
	for (uint32 i = 0; i < f->root.n; i++)
		if (f->root.pages[i] != InvalidBlockNumber)
			f->no_pages = false;
	f->vpage = UINT32_MAX;
	f->has_page = false;
}

void
qs_colfilter_end(ColRowFilter *f)
{
	if (f->root.pages)
		pfree(f->root.pages);
	f->root.pages = NULL;
	f->root.n = 0;
	f->no_pages = true;
}

/*
 * Row 'row' of block 'e': returns false when it does not exist any more
 * (VACUUM removed it); else *hdr is its entry (NULL: none) and *status
 * the verdict.
 */
bool
qs_colfilter_row(Relation rel, const QsColDirEntry *e, ColRowFilter *f,
			  uint32 row, Snapshot snapshot, TransactionId OldestXmin,
			  const HeapTupleHeaderData **hdr, int *status)
{
	uint32		vpage = row / QS_COLBLOCK_TIDS_PER_PAGE;
	uint32		slot = row % QS_COLBLOCK_TIDS_PER_PAGE;

	*hdr = NULL;

	/*
	 * Snapshots other than MVCC (dirty, self) answer for "now" and report
	 * about the row they judged (SnapshotDirty's xmin/xmax): judge this one
	 * row now, with the delete map as it is now.
	 */
	if (snapshot != NULL && !IsMVCCSnapshot(snapshot) &&
		snapshot->snapshot_type != SNAPSHOT_ANY)
	{
		bool		vis = false;
		bool		exists = false;
		QsColDirectory dir;
		const QsColDirEntry *fresh;

		/* the directory as it is now: a delete map made since counts */
		qs_coldir_read(rel, &dir);
		fresh = qs_coldir_find_range(&dir, e->tid_range);
		if (fresh != NULL)
			exists = qs_coldelmap_header(rel, fresh, row, snapshot,
										 &f->hdr[slot], &vis);
		pfree(dir.entries);
		if (!exists)
			return false;
		*hdr = &f->hdr[slot];
		*status = vis;
		f->vpage = UINT32_MAX;
		return true;
	}
	if (f->root.n == 0)
		return true;
	if (vpage != f->vpage)
	{
		Buffer		buf = qs_coldelmap_page(rel, e, &f->root, vpage,
											BUFFER_LOCK_SHARE);

		f->vpage = vpage;
		f->has_page = BufferIsValid(buf);
		if (f->has_page)
		{
			Page		page = BufferGetPage(buf);

			for (uint32 i = 0; i < QS_COLBLOCK_TIDS_PER_PAGE; i++)
			{
				HeapTupleHeader h = qs_coldelmap_entry(page, i + 1);
				HeapTupleData tup;

				f->removed[i] = (h == NULL);
				if (h == NULL)
					continue;
				tup.t_data = h;
				tup.t_len = SizeofHeapTupleHeader;
				qs_virt_tid(e->tid_range, vpage * QS_COLBLOCK_TIDS_PER_PAGE + i,
							&tup.t_self);
				tup.t_tableOid = RelationGetRelid(rel);
				if (snapshot != NULL)
				{
					bool		vis = HeapTupleSatisfiesVisibility(&tup, snapshot, buf);

					HeapCheckForSerializableConflictOut(vis, rel, &tup, buf,
														snapshot);
					f->status[i] = vis;
				}
				else
					f->status[i] = (uint8) HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf);
				f->hdr[i] = *h;
			}
			UnlockReleaseBuffer(buf);
		}
	}
	if (!f->has_page)
		return true;
	if (f->removed[slot])
		return false;
	*hdr = &f->hdr[slot];
	*status = f->status[slot];
	return true;
}

/*
 * qs_colfilter_keep
 *		Keep the positions start + sel[0..n-1] of the scan's open block whose
 *		rows exist and are visible to the scan's snapshot, as
 *		qs_colfilter_row says of each; returns how many are kept: all of
 *		them, without a call per row, where qs_colfilter_all_visible says so.
 */
int
qs_colfilter_keep(Relation rel, ColScanDesc s, uint32 start,
				  OffsetNumber *sel, int n)
{
	Snapshot	snapshot = s->base.rs_snapshot;
	ColRowFilter *f = &s->filter;
	int			k = 0;

	if (qs_colfilter_all_visible(f, snapshot))
		return n;
	for (int i = 0; i < n; i++)
	{
		const HeapTupleHeaderData *hdr;
		int			vis = true;

		/* positions; the delete map is indexed by TID row */
		if (qs_colfilter_row(rel, &s->rr.h.entry, f,
							 qs_colrows_tidrow(&s->rr, start + sel[i]),
							 snapshot, InvalidTransactionId, &hdr, &vis) && vis)
			sel[k++] = sel[i];
	}
	return k;
}

/* ------------------------------------------------------------------------
 * Sequential scans: the delta (engine), then the visible main blocks
 * ------------------------------------------------------------------------
 */

/* parallel scans: the engine's block scan state, then our counter */
#define COL_PSCAN_EXTRA_OFF MAXALIGN(sizeof(ParallelBlockTableScanDescData))

static Size
col_parallelscan_estimate(Relation rel)
{
	return COL_PSCAN_EXTRA_OFF + sizeof(pg_atomic_uint32);
}

static pg_atomic_uint32 *
pscan_counter(ParallelTableScanDesc pscan)
{
	return (pg_atomic_uint32 *) ((char *) pscan + COL_PSCAN_EXTRA_OFF);
}

static Size
col_parallelscan_initialize(Relation rel, ParallelTableScanDesc pscan)
{
	qs_colload_flush_rel(rel);
	table_block_parallelscan_initialize(rel, pscan);
	pg_atomic_init_u32(pscan_counter(pscan), 0);
	return col_parallelscan_estimate(rel);
}

static void
col_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan)
{
	table_block_parallelscan_reinitialize(rel, pscan);
	pg_atomic_write_u32(pscan_counter(pscan), 0);
}



static void col_note_stats(Relation rel);

static TableScanDesc
col_scan_begin(Relation rel, Snapshot snapshot, int nkeys, ScanKey key,
			   ParallelTableScanDesc pscan, uint32 flags)
{
	ColScanDesc s;

	qs_colload_flush_rel(rel);
	/* the row pages the reltuples ANALYZE will set are counted over */
	if (flags & SO_TYPE_ANALYZE)
		col_note_stats(rel);
	/* ANALYZE's scan is the engine's (see "ANALYZE" below) */
	if (!(flags & (SO_TYPE_SEQSCAN | SO_TYPE_BITMAPSCAN | SO_TYPE_TIDRANGESCAN |
				   SO_TYPE_SAMPLESCAN)))
		return qs_scan_begin(rel, snapshot, nkeys, key, pscan, flags);

	/*
	 * A serializable bitmap scan locks each visible row it reads, as heap's
	 * does: a delta row in the engine's scan, a main row in
	 * qs_colscan_load_vpage (scan_tid.c), which reads the row again after
	 * its lock.
	 */

	s = palloc0(sizeof(ColScanDescData));
	s->delta = qs_scan_begin(rel, snapshot, nkeys, key, pscan, flags);
	s->base = *s->delta;
	s->base.rs_flags |= QS_SO_COLUMN_SCAN;
	s->cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep column scan",
								   ALLOCSET_DEFAULT_SIZES);
	s->blkcxt = AllocSetContextCreate(s->cxt, "quickstep column block",
									  ALLOCSET_DEFAULT_SIZES);
	/* sections, decode arrays and TID map of every column, kept (scratch.c) */
	s->scratch = qs_colscratch_create(s->cxt,
									  8 * Max(RelationGetDescr(rel)->natts, 1) + 16);
	s->rowcxt = AllocSetContextCreate(s->cxt, "quickstep column row",
									  ALLOCSET_DEFAULT_SIZES);
	s->batchcxt = AllocSetContextCreate(s->cxt, "quickstep column rows",
										ALLOCSET_DEFAULT_SIZES);
	s->pnext = pscan ? pscan_counter(pscan) : NULL;
	s->smp_cur = InvalidBlockNumber;
	return &s->base;
}

static void
col_main_reset(ColScanDesc s)
{
	qs_colscan_close_block(s);
	s->bm_main = false;
	s->bm_n = s->bm_i = 0;
	s->smp_cur = InvalidBlockNumber;
	s->smp_total = 0;
	s->main_pos = COL_BEFORE_MAIN;
	s->cur = -1;
	s->delta_done = false;
	s->started = false;
}

static void
col_scan_rescan(TableScanDesc sscan, ScanKey key, bool set_params,
				bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	ColScanDesc s = (ColScanDesc) sscan;

	if (!qs_is_col_scan(sscan))
	{
		qs_scan_rescan(sscan, key, set_params, allow_strat, allow_sync,
					   allow_pagemode);
		return;
	}
	qs_scan_rescan(s->delta, key, set_params, allow_strat, allow_sync,
				   allow_pagemode);
	s->base.rs_flags = s->delta->rs_flags | QS_SO_COLUMN_SCAN |
		(s->base.rs_flags & SO_TEMP_SNAPSHOT);
	col_main_reset(s);
}

static void
col_scan_end(TableScanDesc sscan)
{
	ColScanDesc s = (ColScanDesc) sscan;

	if (!qs_is_col_scan(sscan))
	{
		if (col_an.scan == sscan)
			col_an_reset();
		qs_scan_end(sscan);
		return;
	}
	if (s->have_block && !s->rr_cached)
		qs_colrows_close(&s->rr);
	if (s->delta)
	{
		/*
		 * A snapshot the executor registered on our descriptor (PG 15's
		 * table_scan_update_snapshot, parallel bitmap workers) and not on
		 * the delta's: unregistered here, as heap's endscan does.
		 */
		if ((s->base.rs_flags & SO_TEMP_SNAPSHOT) &&
			!(s->delta->rs_flags & SO_TEMP_SNAPSHOT))
			UnregisterSnapshot(s->base.rs_snapshot);
		qs_scan_end(s->delta);
	}
	MemoryContextDelete(s->cxt);
	pfree(s);
}

/* the visible directory (in TID order), read once when main is reached */
void
qs_colscan_init_main(ColScanDesc s)
{
	Relation	rel = s->base.rs_rd;
	MemoryContext old;

	if (s->main_inited)
		return;
	/* a test's pause before the directory is read (quickstep.debug_dir_wait) */
	qs_coldir_debug_wait(QS_DIR_WAIT_SCAN_READ);
	old = MemoryContextSwitchTo(s->cxt);
	qs_coldir_read_visible(rel, s->base.rs_snapshot, &s->dir);
	/*
	 * The columns as the caller's slots have them: ALTER TABLE … TYPE reads
	 * the old rows through slots of the old descriptor while the relation's
	 * already has the new types (the blocks hold the old ones).
	 */
	s->attrs = qs_colattrs(s->slot_desc ? s->slot_desc : RelationGetDescr(rel));
	qs_colretype_reading(rel, s->attrs);
	s->own_ops = table_slot_callbacks(rel);
	MemoryContextSwitchTo(old);
	s->main_inited = true;
}

void
qs_colscan_close_block(ColScanDesc s)
{
	if (s->have_block)
	{
		if (!s->rr_cached)
		{
			qs_colrows_close(&s->rr);
			qs_colscratch_trim(s->scratch);
		}
		qs_colfilter_end(&s->filter);
	}
	s->have_block = false;
	s->rr_cached = false;
	s->batch_n = 0;
	MemoryContextReset(s->batchcxt);
	MemoryContextReset(s->blkcxt);
}

/*
 * The open block's headers of rows without a delete-map entry (hdr_old,
 * hdr_new): qs_colmain_default_header's for its row 0 and its row 'base'
 * (the first row of its version; t_ctid is set a row at a time).
 */
static void
col_block_headers(ColScanDesc s)
{
	const QsColDirEntry *e = &s->dir.entries[s->open_idx];
	ItemPointerData tid;

	qs_virt_tid(e->tid_range, 0, &tid);
	qs_colmain_default_header(e, &tid, &s->hdr_old);
	qs_virt_tid(e->tid_range, e->base, &tid);
	qs_colmain_default_header(e, &tid, &s->hdr_new);
}

/*
 * Open directory entry 'idx': its delete map, and its rows through a
 * reader of the scan's own or, with 'cached' (fetches of single rows),
 * from the backend's read cache (readcache.c), which keeps the readers of
 * many blocks.  A bitmap scan fetches a few rows of a block at a time, on
 * the inner side of a nested loop a few per rescan and block after block:
 * opening a block decodes its columns (about 730,000 instructions each for
 * 150,000 int4 rows), which a reader of its own paid again at every change
 * of block (bench/colfetch/callgrind.sh).
 */
static void
open_block(ColScanDesc s, uint32 idx, bool cached)
{
	Relation	rel = s->base.rs_rd;
	MemoryContext old;

	qs_colscan_close_block(s);
	CHECK_FOR_INTERRUPTS();
	old = MemoryContextSwitchTo(s->blkcxt);
	if (!cached)
		qs_colrows_open_scratch(rel, s->attrs, &s->dir.entries[idx], &s->rr,
								s->scratch);
	qs_colfilter_begin(rel, &s->dir.entries[idx], &s->filter);
	MemoryContextSwitchTo(old);
	s->have_block = true;
	s->rr_cached = cached;
	s->open_idx = idx;
	s->row = 0;
	s->row_end = s->dir.entries[idx].published;
	col_block_headers(s);
	if (s->tr_set)
		qs_colscan_tid_bounds(s, &s->dir.entries[idx], &s->row, &s->row_end);
}

void
qs_colscan_open_block(ColScanDesc s, uint32 idx)
{
	open_block(s, idx, false);
}

void
qs_colscan_open_block_cached(ColScanDesc s, uint32 idx)
{
	open_block(s, idx, true);
}

/*
 * Decode the batch of the open block's rows that holds 'row': the
 * batch_rows-aligned rows around it, within s->row .. s->row_end - 1
 * (so that forward and backward scans decode the same batches).  The slot
 * may hold a row of the previous batch, whose by-reference values are in
 * batchcxt: the executor is done with it (this is its next getnext), and
 * it is cleared before they are freed.
 */
#define QS_COLSCAN_BATCH_ROWS 256
static void
col_decode_batch(ColScanDesc s, uint32 row, TupleTableSlot *slot)
{
	uint32		lo,
				hi;
	MemoryContext old;
	const bool *want = NULL;
	int			natts = s->rr.natts;

	/*
	 * The attributes the plan node reads from its scan slot (fetchatts.c:
	 * sequential and TID range scans too); the others are never opened.
	 */
	if (slot->tts_ops == s->own_ops &&
		slot->tts_tupleDescriptor->natts == natts &&
		RelationGetDescr(s->base.rs_rd)->natts == natts)
		want = ((QsRecSlot *) slot)->want;
	if (s->batch_values == NULL)
	{
		s->batch_rows = Min(qs_colrows_batch_rows(RelationGetDescr(s->base.rs_rd), want), QS_COLSCAN_BATCH_ROWS);
		s->batch_values = MemoryContextAlloc(s->cxt, sizeof(Datum) * s->batch_rows * Max(natts, 1));
		s->batch_isnull = MemoryContextAlloc(s->cxt, sizeof(bool) * s->batch_rows * Max(natts, 1));
		s->batch_nulls = MemoryContextAlloc(s->cxt, sizeof(bool) * Max(natts, 1));
		s->batch_want = NULL;
	}
	/*
	 * The arrays are column-major, column c's rows at c * batch_rows
	 * (qs_colrows_get_batch_cols).  Only the wanted attributes are written:
	 * the others are NULL.
	 */
	if (want != s->batch_want)
	{
		if (want != NULL)
			for (int c = 0; c < natts; c++)
				if (!want[c])
				{
					memset(&s->batch_values[(size_t) c * s->batch_rows], 0,
						   sizeof(Datum) * s->batch_rows);
					memset(&s->batch_isnull[(size_t) c * s->batch_rows], true,
						   sizeof(bool) * s->batch_rows);
				}
		s->batch_want = want;
	}
	lo = row - row % s->batch_rows;
	hi = lo + s->batch_rows;
	lo = Max(lo, s->row);
	hi = Min(hi, s->row_end);
	Assert(lo <= row && row < hi);
	ExecClearTuple(slot);
	s->batch_n = 0;
	MemoryContextReset(s->batchcxt);
	old = MemoryContextSwitchTo(s->batchcxt);
	qs_colrows_get_batch_cols(&s->rr, lo, hi - lo, want, s->batch_values,
							  s->batch_isnull, s->batch_rows);
	MemoryContextSwitchTo(old);
	s->batch_first = lo;
	s->batch_n = hi - lo;

	/*
	 * Columns without NULLs (or of NULLs only, those not wanted) are the
	 * common case: then a row's NULL flags are one copy, not a byte from
	 * each column's array.
	 */
	s->batch_nulls_same = true;
	for (int c = 0; c < natts; c++)
	{
		const bool *n = &s->batch_isnull[(size_t) c * s->batch_rows];

		if (memchr(n, !n[0], s->batch_n) != NULL)
		{
			s->batch_nulls_same = false;
			break;
		}
		s->batch_nulls[c] = n[0];
	}
}

/*
 * Is row 'row' of the open block visible to the scan?  Then store it,
 * from its decoded batch.  Inlined into the forward and backward loops:
 * it runs once a row.
 */
static pg_attribute_always_inline bool
col_take_row(ColScanDesc s, uint32 row, TupleTableSlot *slot)
{
	const HeapTupleHeaderData *hdr = NULL;
	int			vis = true;
	int			natts = s->rr.natts;
	Snapshot	snapshot = s->base.rs_snapshot;
	uint32		i;
	bool		own;

	/* a block without delete-map entries: no call per row */
	if (!qs_colfilter_all_visible(&s->filter, snapshot))
	{
		if (!qs_colfilter_row(s->base.rs_rd, &s->rr.h.entry, &s->filter, row,
							  snapshot, InvalidTransactionId, &hdr, &vis) || !vis)
			return false;
	}
	if (row < s->batch_first || row - s->batch_first >= s->batch_n)
		col_decode_batch(s, row, slot);
	i = row - s->batch_first;
	own = slot->tts_ops == s->own_ops;

	/*
	 * Our own slot holding a row of ours (or nothing) needs no clear: all
	 * it would reset, the store below writes (qs_hpl_slot_clear_trivial).
	 * Anything else, a row the executor materialized or a delta row's pin,
	 * goes through the slot's clear.
	 */
	if (own && qs_hpl_slot_clear_trivial(slot))
		((QsRecSlot *) slot)->norecheck = false;
	else
		ExecClearTuple(slot);
	/* the row's attributes, one from each column's array */
	{
		const Datum *bv = &s->batch_values[i];
		const bool *bn = &s->batch_isnull[i];
		Datum	   *values = slot->tts_values;
		bool	   *isnull = slot->tts_isnull;
		size_t		stride = s->batch_rows;

		for (int c = 0; c < natts; c++)
			values[c] = bv[c * stride];
		if (s->batch_nulls_same)
			memcpy(isnull, s->batch_nulls, sizeof(bool) * natts);
		else
			for (int c = 0; c < natts; c++)
				isnull[c] = bn[c * stride];
	}
	store_row_header(s->rr.h.rel, &s->rr.h.entry, row, slot, own, hdr,
					 row >= s->rr.h.entry.base ? &s->hdr_new : &s->hdr_old);
	/* ExecStoreVirtualTuple's work, without a call a row */
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	slot->tts_nvalid = slot->tts_tupleDescriptor->natts;
	pgstat_count_heap_getnext(s->base.rs_rd);
	return true;
}

/*
 * Does directory entry 'idx' hold rows the scan reads?  Every entry does,
 * except for TID range scans: the entries whose TID range misses the
 * scan's are passed over without being opened.
 */
static bool
col_block_wanted(ColScanDesc s, uint32 idx)
{
	uint32		lo,
				hi;

	if (!s->tr_set)
		return true;
	qs_colscan_tid_bounds(s, &s->dir.entries[idx], &lo, &hi);
	return lo < hi;
}

/*
 * The next row of the open block after s->cur that the scan sees, into
 * slot; false with s->cur at the block's end.  One loop for col_next_main
 * and col_scan_getnextslot's short cut, so that a per-row rule added here
 * holds for both.  Inlined: it runs once a row.
 */
static pg_attribute_always_inline bool
col_next_open_row(ColScanDesc s, TupleTableSlot *slot)
{
	while (s->cur + 1 < (int64) s->row_end)
	{
		s->cur++;
		if (col_take_row(s, (uint32) s->cur, slot))
			return true;
	}
	return false;
}

/*
 * The next main row forward.  Position: s->main_pos, and within the open
 * block s->cur, the row last returned (s->row - 1 before its first; the
 * block's rows are s->row .. s->row_end - 1, all of them but for TID range
 * scans, which are never parallel).  Parallel scans take blocks from the
 * shared counter.
 */
static bool
col_next_main(ColScanDesc s, TupleTableSlot *slot)
{
	qs_colscan_init_main(s);
	if (s->main_pos == COL_AFTER_MAIN)
		return false;
	for (;;)
	{
		if (s->main_pos == COL_BEFORE_MAIN || !s->have_block)
		{
			uint32		idx;

			if (s->pnext)
				idx = pg_atomic_fetch_add_u32(s->pnext, 1);
			else
			{
				idx = s->main_pos == COL_BEFORE_MAIN ? 0 : s->open_idx + 1;
				while (idx < s->dir.nentries && !col_block_wanted(s, idx))
					idx++;
			}
			if (idx >= s->dir.nentries)
			{
				qs_colscan_close_block(s);
				qs_colscratch_release_kept(s->scratch);
				s->main_pos = COL_AFTER_MAIN;
				return false;
			}
			qs_colscan_open_block(s, idx);
			s->main_pos = COL_IN_MAIN;
			s->cur = (int64) s->row - 1;
		}
		if (col_next_open_row(s, slot))
			return true;
		if (s->pnext)
			qs_colscan_close_block(s);
		else
		{
			uint32		idx = s->open_idx + 1;

			while (idx < s->dir.nentries && !col_block_wanted(s, idx))
				idx++;
			if (idx >= s->dir.nentries)
			{
				s->main_pos = COL_AFTER_MAIN;
				return false;
			}
			qs_colscan_open_block(s, idx);
			s->cur = (int64) s->row - 1;
		}
	}
}

/*
 * The previous main row (backward scans: cursors); false before the first.
 * The exact reverse of col_next_main: a scan that changes direction
 * returns the row before (after) the one it returned last, in a block or
 * across blocks.
 */
static bool
col_prev_main(ColScanDesc s, TupleTableSlot *slot)
{
	int64		idx;

	qs_colscan_init_main(s);
	if (s->main_pos == COL_BEFORE_MAIN)
		return false;
	if (s->main_pos == COL_AFTER_MAIN)
	{
		idx = (int64) s->dir.nentries - 1;
		while (idx >= 0 && !col_block_wanted(s, (uint32) idx))
			idx--;
		if (idx < 0)
		{
			s->main_pos = COL_BEFORE_MAIN;
			return false;
		}
		if (!s->have_block || s->open_idx != (uint32) idx)
			qs_colscan_open_block(s, (uint32) idx);
		s->cur = s->row_end;
		s->main_pos = COL_IN_MAIN;
	}
	for (;;)
	{
		while (s->cur > (int64) s->row)
		{
			s->cur--;
			if (col_take_row(s, (uint32) s->cur, slot))
				return true;
		}
		idx = (int64) s->open_idx - 1;
		while (idx >= 0 && !col_block_wanted(s, (uint32) idx))
			idx--;
		if (idx < 0)
		{
			s->main_pos = COL_BEFORE_MAIN;
			return false;
		}
		qs_colscan_open_block(s, (uint32) idx);
		s->cur = s->row_end;
	}
}

/*
 * A sequential scan's delta pass skips the pages of the blocks' runs
 * unread: they are most of the table's pages, and the engine read each to
 * find no record.  The runs are listed after the scan's snapshot was taken
 * (its first row), as QuickstepScan's delta pass does: a run listed then
 * holds no delta row for as long as the snapshot can read it (its pages go
 * back to the delta only when no snapshot can see its block: dir.c), and
 * rows the snapshot sees were there before it.  MVCC snapshots only: a
 * dirty or non-MVCC scan sees rows inserted after its start.  Also for
 * QuickstepScan's aggregate mode, which reads the delta scan itself
 * (src/scan/aggexec.c).
 */
void
qs_colscan_delta_skip_runs(ColScanDesc s)
{
	Snapshot	snapshot = s->base.rs_snapshot;
	MemoryContext old;
	QsPageRange *runs;
	int			nruns;

	s->delta_skips_set = true;
	if (!(s->base.rs_flags & SO_TYPE_SEQSCAN) || snapshot == NULL ||
		!IsMVCCSnapshot(snapshot))
		return;
	old = MemoryContextSwitchTo(s->cxt);
	runs = qs_coldir_runs(s->base.rs_rd, &nruns);
	MemoryContextSwitchTo(old);
	qs_scan_skip_pages(s->delta, runs, nruns);
}

/*
 * Delta rows, then main rows; backward (a scrollable cursor) the other
 * way round.  The engine's delta scan restarts from its last row when
 * asked backward after its end, as heap's does.  'delta_next' is the
 * engine's call for the scan's kind (sequential or TID range); 'main'
 * says whether main can hold rows of the scan at all.  Shared by
 * sequential and TID range scans (scan_tid.c).
 */
bool
qs_colscan_getnext(ColScanDesc s, ScanDirection direction,
				   TupleTableSlot *slot, qs_colscan_delta_next delta_next,
				   bool main)
{
	/*
	 * A scan asked backward first starts from its last row, as heap's does:
	 * the executor's TID range scan rescans after returning its end, so a
	 * cursor's FETCH LAST or BACKWARD after the end comes here.
	 */
	if (!s->started && ScanDirectionIsBackward(direction))
	{
		s->delta_done = true;
		s->main_pos = COL_AFTER_MAIN;
	}
	s->started = true;
	if (ScanDirectionIsForward(direction))
	{
		if (!s->delta_done)
		{
			if (delta_next(s->delta, direction, slot))
				return true;
			s->delta_done = true;
			s->main_pos = COL_BEFORE_MAIN;
		}
		if (main && col_next_main(s, slot))
			return true;
		ExecClearTuple(slot);
		return false;
	}
	if (s->delta_done)
	{
		if (main && col_prev_main(s, slot))
			return true;
		s->delta_done = false;
	}
	if (delta_next(s->delta, direction, slot))
		return true;
	ExecClearTuple(slot);
	return false;
}

static bool
col_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					 TupleTableSlot *slot)
{
	ColScanDesc s = (ColScanDesc) sscan;

	/*
	 * Most calls: the next row of the open main block, forward, as
	 * col_next_main takes it (a scan in main has started, set its slot's
	 * descriptor and finished the delta).  At the block's end, and for
	 * everything else, the general way, which goes on from s->cur.  Spares
	 * a row the general path's calls and tests.
	 */
	if (ScanDirectionIsForward(direction) && s->main_pos == COL_IN_MAIN &&
		s->have_block && col_next_open_row(s, slot))
		return true;
	qs_colscan_slot_desc(s, slot);
	if (!s->delta_skips_set)
		qs_colscan_delta_skip_runs(s);
	return qs_colscan_getnext(s, direction, slot, qs_scan_getnextslot, true);
}

/* ------------------------------------------------------------------------
 * ANALYZE: a run page stands for its share of its block's rows
 *
 * ANALYZE samples block numbers of the whole fork.  A sampled page of a
 * block run yields the rows [k * nrows / npages, (k + 1) * nrows / npages)
 * of its block for run page k, so main rows are sampled in proportion to
 * the pages they occupy and the rows-per-page extrapolation to the whole
 * table counts them; metapage and directory pages yield none (a few pages
 * in thousands).  Delta pages are the engine's.  The scan is the
 * engine's (col_scan_begin gives other scan kinds its descriptor); the
 * main-row state is kept here, one ANALYZE per backend at a time.
 * ------------------------------------------------------------------------
 */

/* at the ANALYZE scan's end: free the state */
static void
col_an_reset(void)
{
	if (col_an.have_block)
		qs_colrows_close(&col_an.rr);
	if (col_an.cxt)
		MemoryContextDelete(col_an.cxt);
	memset(&col_an, 0, sizeof(col_an));
}

/*
 * An error ends the scan without scan_end; its memory went with the
 * aborted (sub)transaction's contexts: forget the state, free nothing.
 */
static void
col_an_xact_abort(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		memset(&col_an, 0, sizeof(col_an));
}

static void
col_an_subxact_abort(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		memset(&col_an, 0, sizeof(col_an));
}

static void
col_analyze_page(TableScanDesc sscan)
{
	QsScanDesc	qs = (QsScanDesc) sscan;
	Page		page = BufferGetPage(qs->cbuf);

	if (col_an.scan != sscan)
	{
		col_an_reset();
		col_an.scan = sscan;
	}
	if (col_an.cxt == NULL)
	{
		MemoryContext old;

		/* the ANALYZE's own context: freed with it, whatever happens */
		col_an.cxt = AllocSetContextCreate(CurrentMemoryContext,
										   "quickstep column analyze",
										   ALLOCSET_DEFAULT_SIZES);
		col_an.rowcxt = AllocSetContextCreate(col_an.cxt, "row",
											  ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(col_an.cxt);
		col_an.attrs = qs_colattrs(RelationGetDescr(sscan->rs_rd));
		MemoryContextSwitchTo(old);
	}
	col_an.pending = false;
	col_an.ready = false;
	if (!PageIsNew(page) && qs_is_column_page(page) &&
		qs_column_page_magic(page) == QS_COLPAGE_MAGIC)
	{
		uint32		sp[4];

		memcpy(sp, PageGetSpecialPointer(page), sizeof(sp));
		col_an.pending = true;
		col_an.block_id = sp[1];
		col_an.pageno = sp[2];
		col_an.npages = sp[3];
		col_an.run_start = BufferGetBlockNumber(qs->cbuf) - sp[2];
	}
}

#ifdef QS_ANALYZE_STREAM
static bool
col_analyze_next_block(TableScanDesc sscan, struct ReadStream *stream)
{
	if (!qs_scan_analyze_next_block(sscan, stream))
		return false;
	col_analyze_page(sscan);
	return true;
}
#else
static bool
col_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
					   BufferAccessStrategy bstrategy)
{
	if (!qs_scan_analyze_next_block(sscan, blockno, bstrategy))
		return false;
	col_analyze_page(sscan);
	return true;
}
#endif

static bool
col_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
					   double *liverows, double *deadrows,
					   TupleTableSlot *slot)
{
	QsScanDesc	qs = (QsScanDesc) sscan;
	Relation	rel = sscan->rs_rd;

	if (col_an.scan != sscan || !col_an.pending)
		return qs_scan_analyze_next_tuple(sscan, OldestXmin, liverows,
										  deadrows, slot);
	if (!col_an.ready)
	{
		QsColDirectory dir;
		const QsColDirEntry *e = NULL;
		HTSV_Result status = HEAPTUPLE_DEAD;
		MemoryContext old;

		col_an.ready = true;
		col_an.row = col_an.end = 0;
		qs_coldir_read(rel, &dir);
		for (uint32 i = 0; i < dir.nentries; i++)
			if (dir.entries[i].block_id == col_an.block_id)
				e = &dir.entries[i];
		/* a page of an open block's version nobody reads any more: no rows */
		if (e != NULL && e->npages == col_an.npages && col_an.pageno < e->npages &&
			e->run_start == col_an.run_start)
		{
			uint32		start = (uint32) ((uint64) col_an.pageno * e->nrows / e->npages);
			uint32		end = (uint32) ((uint64) (col_an.pageno + 1) * e->nrows / e->npages);

			end = Min(end, e->published);
			start = Min(start, end);
			status = qs_coldir_entry_vacuum_status(rel, e, OldestXmin, qs->cbuf);
			if (status == HEAPTUPLE_LIVE ||
				(status == HEAPTUPLE_INSERT_IN_PROGRESS &&
				 TransactionIdIsCurrentTransactionId(e->xmin)))
			{
				if (!col_an.have_block || col_an.open_block != e->block_id)
				{
					if (col_an.have_block)
					{
						qs_colrows_close(&col_an.rr);
						qs_colfilter_end(&col_an.filter);
					}
					old = MemoryContextSwitchTo(col_an.cxt);
					qs_colrows_open(rel, col_an.attrs, e, &col_an.rr);
					qs_colfilter_begin(rel, e, &col_an.filter);
					MemoryContextSwitchTo(old);
					col_an.have_block = true;
					col_an.open_block = e->block_id;
				}
				col_an.row = start;
				col_an.end = end;
			}
			else if (status == HEAPTUPLE_DEAD || status == HEAPTUPLE_RECENTLY_DEAD)
				*deadrows += end - start;
		}
		pfree(dir.entries);
		/* the run page itself is not needed any more */
		UnlockReleaseBuffer(qs->cbuf);
		qs->cbuf = InvalidBuffer;
	}
	while (col_an.row < col_an.end)
	{
		const HeapTupleHeaderData *hdr;
		int			status = HEAPTUPLE_LIVE;
		uint32		row = col_an.row++;

		if (!qs_colfilter_row(rel, &col_an.rr.h.entry, &col_an.filter, row, NULL,
						   OldestXmin, &hdr, &status))
			continue;
		/* as heapam_scan_analyze_next_tuple counts them */
		if (status == HEAPTUPLE_DEAD || status == HEAPTUPLE_RECENTLY_DEAD)
		{
			*deadrows += 1;
			continue;
		}
		if (status == HEAPTUPLE_DELETE_IN_PROGRESS && hdr != NULL &&
			TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid((HeapTupleHeader) hdr)))
		{
			*deadrows += 1;
			continue;
		}
		qs_colscan_store_row(&col_an.rr, row, slot, col_an.rowcxt, hdr);
		*liverows += 1;
		return true;
	}
	col_an.pending = false;
	ExecClearTuple(slot);
	return false;
}

/* ------------------------------------------------------------------------
 * Fetches by TID
 * ------------------------------------------------------------------------
 */

/*
 * A fetcher's memory: the last row's values.  The open block readers are
 * the backend's (readcache.c): blocks are immutable, so a reader stays
 * valid across fetches, scans and transactions; only visibility (the
 * directory) is decided per fetch.
 */
typedef struct ColFetchCache
{
	MemoryContext rowcxt;		/* the last row's values */

	/*
	 * An index scan's directory as its MVCC snapshot sees it, read at its
	 * first fetch of a main row (it was read per fetch: a third of the
	 * cost of a main row's fetch beyond heap's).  The directory part such
	 * a snapshot sees does not change while the snapshot exists: new
	 * entries and versions are invisible to it, VACUUM retires no version
	 * it can see (one whose rows it removed stays in the view of the
	 * snapshots that may predate that: entry_visible in dir.c), and a
	 * block's delete-map root, once made, stays; a root
	 * made after the read only holds changes of writers the snapshot does
	 * not see (a change it sees was made before the snapshot, or by an
	 * earlier command of its transaction, before the scan).  This
	 * backend's own load buffer is the exception: any flush of it (this
	 * fetch's, a scan's, a subtransaction's commit...) publishes a block
	 * an earlier command loaded, which the snapshot sees: the read is
	 * dropped when the backend's count of flushes moved.  Other snapshot
	 * kinds read the directory per fetch, and so do SERIALIZABLE
	 * transactions: their reads must meet the writers they do not see
	 * (a block published or a delete map made after the read) for SSI.
	 */
	MemoryContext dircxt;		/* NULL: no directory kept */
	bool		have_dir;
	QsColDirectory dir;
	SnapshotData dir_snap;		/* the snapshot it was read for (fields) */
	uint64		dir_flushes;	/* qs_colload_flushes() when it was read */
} ColFetchCache;

static void
cache_init(ColFetchCache *c, MemoryContext parent, bool keep_dir)
{
	c->rowcxt = AllocSetContextCreate(parent, "quickstep column row",
									  ALLOCSET_DEFAULT_SIZES);
	c->dircxt = keep_dir ?
		AllocSetContextCreate(parent, "quickstep column directory",
							  ALLOCSET_SMALL_SIZES) : NULL;
	c->have_dir = false;
}

/*
 * Was c's directory read for a snapshot equal to 'snapshot' (the same
 * in-progress transactions, bounds and command)?  Executor snapshots are
 * copies, without snapXactCompletionCount: compared field by field.
 */
static bool
cache_dir_valid(const ColFetchCache *c, Snapshot snapshot)
{
	const SnapshotData *d = &c->dir_snap;

	return c->have_dir && c->dir_flushes == qs_colload_flushes() &&
		d->xmin == snapshot->xmin && d->xmax == snapshot->xmax &&
		d->curcid == snapshot->curcid &&
		d->xcnt == snapshot->xcnt && d->subxcnt == snapshot->subxcnt &&
		d->suboverflowed == snapshot->suboverflowed &&
		d->takenDuringRecovery == snapshot->takenDuringRecovery &&
		(d->xcnt == 0 ||
		 memcmp(d->xip, snapshot->xip, sizeof(TransactionId) * d->xcnt) == 0) &&
		(d->subxcnt <= 0 ||
		 memcmp(d->subxip, snapshot->subxip, sizeof(TransactionId) * d->subxcnt) == 0);
}

/*
 * The directory snapshot sees: c's, read now if it has none for it.  'ssi':
 * a serializable transaction's read, which checks the entries for
 * conflicts each time (a read of the xmin column needs none).
 */
static const QsColDirectory *
cache_dir(ColFetchCache *c, Relation rel, Snapshot snapshot, uint32 range,
		  QsColDirectory *own, bool ssi)
{
	MemoryContext old;

	/* range's entries only: the directory copy's (dir.c) */
	if (c->dircxt == NULL || snapshot == NULL ||
		snapshot->snapshot_type != SNAPSHOT_MVCC ||
		(ssi && IsolationIsSerializable()))
	{
		if (snapshot == NULL)
			qs_coldir_read_range(rel, range, own);
		else
			qs_coldir_read_range_visible(rel, snapshot, range, own);
		return own;
	}
	if (cache_dir_valid(c, snapshot))
		return &c->dir;
	MemoryContextReset(c->dircxt);
	c->have_dir = false;
	old = MemoryContextSwitchTo(c->dircxt);
	qs_coldir_read_visible(rel, snapshot, &c->dir);
	c->dir_flushes = qs_colload_flushes();
	c->dir_snap = *snapshot;
	c->dir_snap.xip = snapshot->xcnt > 0 ?
		memcpy(palloc(sizeof(TransactionId) * snapshot->xcnt), snapshot->xip,
			   sizeof(TransactionId) * snapshot->xcnt) : NULL;
	c->dir_snap.subxip = snapshot->subxcnt > 0 ?
		memcpy(palloc(sizeof(TransactionId) * snapshot->subxcnt), snapshot->subxip,
			   sizeof(TransactionId) * snapshot->subxcnt) : NULL;
	MemoryContextSwitchTo(old);
	c->have_dir = true;
	return &c->dir;
}

/*
 * The row memory of single-row fetches outside index scans (DML's old
 * rows, EvalPlanQual, triggers): each caller copies the values out before
 * the next fetch.
 */
static ColFetchCache *
row_fetch_cache(void)
{
	static ColFetchCache cache;

	if (cache.rowcxt == NULL)
		cache_init(&cache, TopMemoryContext, false);
	return &cache;
}

/*
 * The main row at a virtual TID, if its block and its delete-map entry
 * are visible to snapshot (NULL: whatever its visibility, if it exists).
 * 'hdr', when given, replaces the row's header (the caller read it).
 * *in_version (when asked) says whether a version the snapshot sees holds
 * the TID's row, visible or not; then *row_hdr gets the row's header when
 * the fetch read it (and *row_hdr_valid says so).  'lazy': the slot's
 * attributes are decoded when read (qs_colscan_store_row_lazy), for
 * callers that do not materialize the slot at once.
 */
static bool
col_fetch_main(Relation rel, ColFetchCache *c, ItemPointer tid,
			   Snapshot snapshot, TupleTableSlot *slot, bool lazy,
			   const HeapTupleHeaderData *hdr, bool *in_version,
			   HeapTupleHeaderData *row_hdr, bool *row_hdr_valid)
{
	QsColDirectory own = {0};
	const QsColDirectory *dir;
	const QsColDirEntry *e;
	uint32		range,
				row;
	bool		found = false;
	bool		predlocked = false;
	HeapTupleHeaderData hdr_copy;

	/* with 'hdr', the engine's DML holds the row's delete-map page: no flush */
	/* a flush moves qs_colload_flushes(): the kept directory is read again */
	if (hdr == NULL)
		qs_colload_flush_tid(rel, tid);
	if (!qs_virt_decode(tid, &range, &row))
		return false;
read:
	dir = cache_dir(c, rel, snapshot, range, &own, true);
	e = qs_coldir_find_range(dir, range);
	if (in_version)
		*in_version = e != NULL && row < e->published;
	if (row_hdr_valid)
		*row_hdr_valid = false;

	/*
	 * A row another backend's load still buffers (its block is not written
	 * yet): a dirty snapshot sees the loader at work, as a unique check sees
	 * a heap tuple being inserted, and waits for it.  The row's values are
	 * not here: a placeholder of NULLs, which a non-lossy unique check never
	 * reads (loads into tables with exclusion constraints, whose lossy
	 * rechecks would, stay in the delta: load.c).
	 */
	if (e == NULL && hdr == NULL && snapshot != NULL &&
		!IsMVCCSnapshot(snapshot) && snapshot->snapshot_type != SNAPSHOT_ANY)
	{
		QsColDirEntry pe;

		if (qs_coldir_pending_visible(rel, range, snapshot, &pe))
		{
			QsRecSlot  *rs = (QsRecSlot *) slot;

			ExecClearTuple(slot);
			for (int i = 0; i < slot->tts_tupleDescriptor->natts; i++)
			{
				slot->tts_values[i] = (Datum) 0;
				slot->tts_isnull[i] = true;
			}
			slot->tts_tid = *tid;
			slot->tts_tableOid = RelationGetRelid(rel);
			if (slot->tts_ops == table_slot_callbacks(rel))
				qs_colmain_default_header(&pe, tid, &rs->hdr);
			ExecStoreVirtualTuple(slot);
			if (own.entries)
				pfree(own.entries);
			return true;
		}
	}
	if (e != NULL && row < e->published)
	{
		bool		visible = true;

		if (hdr == NULL)
		{
			bool		exists = qs_coldelmap_header(rel, e, row, snapshot,
												&hdr_copy, &visible);

			if (!exists)
				visible = false;	/* removed by VACUUM */

			/*
			 * A serializable read of a visible row, as heap's fetches lock
			 * only visible tuples: rows deleted for this snapshot, old versions
			 * and a merge's dead main copies take no lock (none toward page
			 * promotion).  Their verdict cannot change: it comes from a block
			 * the snapshot does not see, or an xmax it sees as committed (or
			 * ours).  Heap takes the lock under the page's share lock, and
			 * heap_delete checks for it under the exclusive lock before it sets
			 * xmax: one of the two sees the other.  Here the header comes from
			 * up to three reads (directory entry, root, leaf), and a deleter's
			 * first write of the row makes the leaf, and the root, before it
			 * checks (dml.c, under the leaf's exclusive lock).  So the lock,
			 * then everything read again, and that verdict used: a deleter that
			 * checked before our lock made its pages and bumped the directory
			 * change counter before that, so the reads (fresh, or copies the
			 * counter vouches for: the README's section 7.1) find its leaf,
			 * whose share lock waits for its xmax, which the conflict-out check
			 * then reports; a deleter that checks after our lock finds it.
			 * Column README section 4.1, "Serializable reads".
			 */
			if (visible && !predlocked && snapshot != NULL &&
				IsMVCCSnapshot(snapshot) && IsolationIsSerializable())
			{
				PredicateLockTID(rel, tid, snapshot, qs_coldir_row_xmin(e, row));
				predlocked = true;
				if (own.entries)
					pfree(own.entries);
				memset(&own, 0, sizeof(own));
				goto read;
			}
			if (exists && row_hdr)
			{
				*row_hdr = hdr_copy;
				*row_hdr_valid = true;
			}
			hdr = &hdr_copy;
		}
		if (visible)
		{
			if (lazy)
				qs_colscan_store_row_lazy(rel, e, row, slot, c->rowcxt, hdr);
			else
				qs_colscan_store_row(qs_colreadcache_get(rel, e), row, slot,
									 c->rowcxt, hdr);
			found = true;
		}
	}
	if (own.entries)
		pfree(own.entries);
	return found;
}

/*
 * A main row by TID whatever its visibility, with header 'hdr' (the delete
 * map's layout: tuple_lock's result slot, update's old row).
 */
void
qs_colmain_store(Relation rel, ItemPointer tid, HeapTupleHeader hdr,
				 TupleTableSlot *slot)
{
	if (!col_fetch_main(rel, row_fetch_cache(), tid, NULL, slot, false, hdr,
						NULL, NULL, NULL))
		elog(ERROR, "main row (%u,%u) of \"%s\" does not exist",
			 ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
			 RelationGetRelationName(rel));
	ExecMaterializeSlot(slot);
}

/*
 * The values of the main row DML is about to change, formed before the
 * engine locks its delete-map page (a block's columns are decoded and
 * checked here, which must not happen under that lock): qs_colmain_copy
 * takes them from this one-row cache.  Block images never change, so
 * (relfilenode, TID) names the values for as long as the transaction runs.
 */
static struct
{
	MemoryContext cxt;
	RelFileLocator locator;
	Oid			relid;
	ItemPointerData tid;
	TimestampTz xact_start;
	HeapTuple	tuple;
}			col_prefetched;

static HeapTuple
colmain_form(Relation rel, ItemPointer tid)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel),
													table_slot_callbacks(rel));
	HeapTupleHeaderData hdr;
	HeapTuple	tup;

	memset(&hdr, 0, sizeof(hdr));
	if (!col_fetch_main(rel, row_fetch_cache(), tid, NULL, slot, false, &hdr,
						NULL, NULL, NULL))
		elog(ERROR, "main row (%u,%u) of \"%s\" does not exist",
			 ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
			 RelationGetRelationName(rel));
	tup = heap_form_tuple(RelationGetDescr(rel), slot->tts_values,
						  slot->tts_isnull);
	ExecDropSingleTupleTableSlot(slot);
	return tup;
}

static bool
prefetched(Relation rel, ItemPointer tid)
{
	return col_prefetched.tuple != NULL &&
		col_prefetched.relid == RelationGetRelid(rel) &&
		memcmp(&col_prefetched.locator, &QS_REL_LOCATOR(rel), sizeof(RelFileLocator)) == 0 &&
		ItemPointerEquals(&col_prefetched.tid, tid) &&
		col_prefetched.xact_start == GetCurrentTransactionStartTimestamp();
}

/*
 * Keep tid's values in the one-row cache: from 'slot' (a row of rel just
 * fetched, in the relation's descriptor) or, when NULL, fetched now.
 */
static void
prefetch_keep(Relation rel, ItemPointer tid, TupleTableSlot *slot)
{
	MemoryContext old;

	if (col_prefetched.cxt == NULL)
		col_prefetched.cxt = AllocSetContextCreate(TopMemoryContext,
												   "quickstep column prefetch",
												   ALLOCSET_SMALL_SIZES);
	MemoryContextReset(col_prefetched.cxt);
	col_prefetched.tuple = NULL;
	old = MemoryContextSwitchTo(col_prefetched.cxt);
	if (slot != NULL)
	{
		slot_getallattrs(slot);
		col_prefetched.tuple = heap_form_tuple(RelationGetDescr(rel),
											   slot->tts_values,
											   slot->tts_isnull);
	}
	else
		col_prefetched.tuple = colmain_form(rel, tid);
	MemoryContextSwitchTo(old);
	col_prefetched.relid = RelationGetRelid(rel);
	col_prefetched.locator = QS_REL_LOCATOR(rel);
	col_prefetched.tid = *tid;
	col_prefetched.xact_start = GetCurrentTransactionStartTimestamp();
}

void
qs_colmain_prefetch(Relation rel, ItemPointer tid)
{
	if (!qs_tid_is_virtual(tid) || prefetched(rel, tid))
		return;
	prefetch_keep(rel, tid, NULL);
}

HeapTuple
qs_colmain_copy(Relation rel, ItemPointer tid, HeapTupleHeader hdr)
{
	HeapTuple	tup;

	/* the caller holds the entry's page locked: the header is given */
	if (prefetched(rel, tid))
		tup = heap_copytuple(col_prefetched.tuple);
	else
		tup = colmain_form(rel, tid);
	/* the MVCC fields of the entry, the shape bits of the formed tuple */
	tup->t_data->t_choice = hdr->t_choice;
	tup->t_data->t_ctid = hdr->t_ctid;
	tup->t_data->t_infomask = (tup->t_data->t_infomask & ~HEAP_XACT_MASK) |
		(hdr->t_infomask & HEAP_XACT_MASK);
	tup->t_data->t_infomask2 = (tup->t_data->t_infomask2 & ~HEAP2_XACT_MASK) |
		(hdr->t_infomask2 & HEAP2_XACT_MASK);
	tup->t_self = *tid;
	tup->t_tableOid = RelationGetRelid(rel);
	return tup;
}

typedef struct ColIndexFetchData
{
	IndexFetchTableData base;
	IndexFetchTableData *delta;
	ColFetchCache cache;
} ColIndexFetchData;

static IndexFetchTableData *
col_index_fetch_begin(Relation rel)
{
	ColIndexFetchData *f = palloc0(sizeof(ColIndexFetchData));

	/* buffered rows are flushed when one of them is fetched (col_fetch_main) */
	f->base.rel = rel;
	f->delta = qs_index_fetch_begin(rel);
	cache_init(&f->cache, CurrentMemoryContext, true);
	return &f->base;
}

static void
col_index_fetch_reset(IndexFetchTableData *scan)
{
	qs_index_fetch_reset(((ColIndexFetchData *) scan)->delta);
}

static void
col_index_fetch_end(IndexFetchTableData *scan)
{
	ColIndexFetchData *f = (ColIndexFetchData *) scan;

	qs_index_fetch_end(f->delta);
	MemoryContextDelete(f->cache.rowcxt);
	MemoryContextDelete(f->cache.dircxt);
	pfree(f);
}

static bool
col_index_fetch_tuple(IndexFetchTableData *scan, ItemPointer tid,
					  Snapshot snapshot, TupleTableSlot *slot,
					  bool *call_again, bool *all_dead)
{
	ColIndexFetchData *f = (ColIndexFetchData *) scan;
	bool		in_version = false;
	HeapTupleHeaderData hdr;
	bool		hdr_valid = false;
	uint32		range,
				row;

	if (!qs_tid_is_virtual(tid))
		return qs_index_fetch_tuple(f->delta, tid, snapshot, slot, call_again,
									all_dead);
	*call_again = false;
	if (all_dead)
		*all_dead = false;
	if (col_fetch_main(scan->rel, &f->cache, tid, snapshot, slot, true, NULL,
					   &in_version, &hdr, &hdr_valid))
		return true;

	/*
	 * Not seen: is it a row nobody can ever see, whose index entry the
	 * index may kill (heap_hot_search_buffer's all_dead)?  A row of a
	 * version the snapshot sees: its delete-map entry says so, as heap's
	 * header does (HeapTupleIsSurelyDead: deleted or updated by a
	 * transaction that committed before every snapshot; the index's
	 * deletion record counts that xmax: qs_colmain_conflict_horizon).
	 * Else a row of a version that aborted (a load or merge rolled back, a
	 * subtransaction included): qs_coldir_row_surely_dead.
	 *
	 * Unlike the delta's kills (scan.c, qs_index_fetch_tuple), no check
	 * that the delete-map page's LSN is flushed: the one writer that
	 * commits asynchronously, the merge worker, marks only rows of its own
	 * new block (merge.c, kill_main_copy), which are invisible anyway if its
	 * commit is lost.  A user's asynchronous DELETE has heap's exposure.
	 */
	if (!all_dead)
		return false;
	if (in_version)
	{
		if (hdr_valid)
		{
			HeapTupleData tup;

			tup.t_data = &hdr;
			tup.t_len = SizeofHeapTupleHeader;
			tup.t_self = *tid;
			tup.t_tableOid = RelationGetRelid(scan->rel);
			*all_dead = HeapTupleIsSurelyDead(&tup, GlobalVisTestFor(scan->rel));
		}
	}
	else if (qs_virt_decode(tid, &range, &row) &&
			 qs_coldir_row_surely_dead(scan->rel, range, row))
		*all_dead = true;
	return false;
}

/*
 * qs_colmain_conflict_horizon
 *		For an index deletion of entries (qs_index_delete_tuples): advance
 *		*horizon by the main row at virtual TID 'tid', as heap's
 *		heap_index_delete_tuples does by each deleted tuple, so that a
 *		standby's queries that may still see the row conflict with the
 *		deletion.  *dir is the directory (read at the first call, freed by
 *		the caller): the current version of each block, whose delete map
 *		holds the row's deleter.  Rows of aborted versions, which no
 *		snapshot sees, and rows VACUUM removed (its record had the horizon)
 *		add nothing.
 */
void
qs_colmain_conflict_horizon(Relation rel, ItemPointer tid, QsColDirectory *dir,
							TransactionId *horizon)
{
	const QsColDirEntry *e;
	HeapTupleHeaderData hdr;
	bool		visible;
	uint32		range,
				row;

	if (!qs_virt_decode(tid, &range, &row))
		return;
	if (dir->entries == NULL)
		qs_coldir_read(rel, dir);
	e = qs_coldir_find_range(dir, range);
	if (e == NULL || row >= e->published)
		return;
	if (qs_coldelmap_header(rel, e, row, NULL, &hdr, &visible))
		QS_HeapTupleHeaderAdvanceConflictHorizon(&hdr, horizon);
}

static bool
col_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
					  TupleTableSlot *slot)
{
	bool		found;

	/*
	 * TID scans read MVCC snapshots and only the attributes they need; the
	 * executor's fetches of a row it is about to change (SnapshotAny, below)
	 * or check read the whole row.
	 */
	bool		lazy = IsMVCCSnapshot(snapshot);

	if (!qs_tid_is_virtual(tid))
		return qs_fetch_row_version(rel, tid, snapshot, slot);
	found = col_fetch_main(rel, row_fetch_cache(), tid, snapshot, slot, lazy,
						   NULL, NULL, NULL, NULL);
	if (found)
	{
		/*
		 * Values decoded now are in the fetch's row memory, which the next
		 * fetch resets: the slot keeps its own copy.  A row stored lazily
		 * (no attribute valid yet) keeps its values in the slot's source.
		 */
		if (slot->tts_nvalid == slot->tts_tupleDescriptor->natts)
			ExecMaterializeSlot(slot);

		/*
		 * An UPDATE's executor fetches the old row here (ri_oldTupleSlot)
		 * right before tuple_update, whose qs_colmain_prefetch would decode
		 * the same row again: keep these values for it.  Values of a main
		 * row's TID do not change for a relfilenode (block images are
		 * immutable; a merge's or seal's new version keeps each TID's row)
		 * but for an in-place TRUNCATE, which drops the cache
		 * (col_nontransactional_truncate).  Only the executor's fetches of
		 * the row to change (SnapshotAny: UPDATE, MERGE, EvalPlanQual,
		 * triggers) fill it, never a dirty or self snapshot's placeholder of
		 * another backend's buffered load row, and only with the table's
		 * own row type.
		 */
		if (snapshot->snapshot_type == SNAPSHOT_ANY &&
			slot->tts_tupleDescriptor->natts == RelationGetDescr(rel)->natts &&
			slot->tts_tupleDescriptor->tdtypeid == RelationGetDescr(rel)->tdtypeid)
			prefetch_keep(rel, tid, slot);
	}
	return found;
}

static bool
col_tuple_tid_valid(TableScanDesc sscan, ItemPointer tid)
{
	QsColDirEntry e;
	uint32		range,
				row;

	if (!qs_tid_is_virtual(tid))
	{
		/* block 0 is the metapage: no row was ever there */
		if (ItemPointerGetBlockNumber(tid) == QS_COLMETA_BLKNO)
			return false;
		return qs_tuple_tid_valid(qs_is_col_scan(sscan) ?
								  ((ColScanDesc) sscan)->delta : sscan, tid);
	}
	if (!qs_virt_decode(tid, &range, &row))
		return false;
	return qs_coldir_find_current(sscan->rs_rd, range, &e) && row < e.published;
}

static bool
col_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							 Snapshot snapshot)
{
	QsColDirectory dir;
	const QsColDirEntry *e;
	uint32		range,
				row;
	bool		ok = false;
	TransactionId mover;

	if (!qs_tid_is_virtual(&slot->tts_tid))
		return qs_tuple_satisfies_snapshot(rel, slot, snapshot);
	if (!qs_virt_decode(&slot->tts_tid, &range, &row))
		return false;
	qs_coldir_read_range_visible(rel, snapshot, range, &dir);
	e = qs_coldir_find_range(&dir, range);
	if (e != NULL && row < e->published)
	{
		HeapTupleHeaderData hdr;

		if (!qs_coldelmap_header(rel, e, row, snapshot, &hdr, &ok))
			ok = false;
	}
	else if ((e == NULL || row >= e->published) &&
			 TransactionIdIsValid(mover = qs_moved_merge_of(rel, &slot->tts_tid,
															 snapshot)))
	{
		/*
		 * A main copy whose merge this snapshot does not see: the row it
		 * sees is the delta version (moved.c, qs_main_visible_unmerged).
		 */
		QsColDirEntry me;
		HeapTupleHeaderData hdr;
		HeapTupleData tup;
		Buffer		mbuf;

		if (qs_coldir_lookup(rel, &slot->tts_tid, &me, &row) &&
			qs_coldelmap_header(rel, &me, row, NULL, &hdr, &ok))
		{
			tup.t_data = &hdr;
			tup.t_len = SizeofHeapTupleHeader;
			tup.t_self = slot->tts_tid;
			tup.t_tableOid = RelationGetRelid(rel);
			mbuf = ReadBuffer(rel, QS_COLMETA_BLKNO);
			LockBuffer(mbuf, BUFFER_LOCK_SHARE);
			ok = qs_main_visible_unmerged(&tup, mover, snapshot, mbuf);
			UnlockReleaseBuffer(mbuf);
		}
		else
			ok = false;
	}
	pfree(dir.entries);
	return ok;
}

/*
 * qs_colmain_latest_tid
 *		From main row 'vtid' on (reached by a scan, or through a merge's
 *		link from its delta version): *tid gets each version visible to
 *		'snapshot' -- the row itself, or one of the delta versions its
 *		updates made.
 */
void
qs_colmain_latest_tid(Relation rel, Snapshot snapshot, ItemPointer tid,
					  ItemPointerData vtid)
{
	QsColDirEntry e;
	uint32		range,
				row;
	HeapTupleHeaderData hdr;
	bool		visible = false;
	bool		exists = false;

	if (!qs_virt_decode(&vtid, &range, &row))
		return;
	if (qs_coldir_find_current(rel, range, &e) && row < e.published)
		exists = qs_coldelmap_header(rel, &e, row, snapshot, &hdr, &visible);
	if (!exists)
		return;
	if (visible)
		*tid = vtid;
	if ((hdr.t_infomask & HEAP_XMAX_INVALID) ||
		HeapTupleHeaderIsOnlyLocked(&hdr) ||
		HeapTupleHeaderIndicatesMovedPartitions(&hdr) ||
		ItemPointerEquals(&vtid, &hdr.t_ctid))
		return;
	qs_follow_latest_tid(rel, snapshot, tid, hdr.t_ctid,
						 HeapTupleHeaderGetUpdateXid(&hdr));
}

/*
 * The newest version of a row visible to the scan's snapshot.
 */
static void
col_get_latest_tid(TableScanDesc sscan, ItemPointer tid)
{
	if (!qs_tid_is_virtual(tid))
	{
		qs_get_latest_tid(qs_is_col_scan(sscan) ? ((ColScanDesc) sscan)->delta : sscan,
						  tid);
		return;
	}
	qs_colmain_latest_tid(sscan->rs_rd, sscan->rs_snapshot, tid, *tid);
}

/* ------------------------------------------------------------------------
 * DML: main rows through their delete-map entries (dml.c, delmap.c)
 * ------------------------------------------------------------------------
 */
/*
 * A delta version a merge moved continues at its main copy (the engine
 * returns QS_TM_MOVED with the link, src/merge/README.md).  When the
 * caller's snapshot does not see the merge, its later commands would still
 * count the delta version: it is marked taken by us.
 */
static void
col_after_link(Relation rel, ItemPointer from, TM_FailureData *link,
			   Snapshot snapshot, CommandId cid)
{
	/*
	 * Only a transaction snapshot outlives the command: at READ COMMITTED
	 * the next command's snapshot sees the merge (it committed before we
	 * found its mark).  The transaction snapshot, not the one the command
	 * passed: RI actions run with the newest one.
	 */
	if (!IsolationUsesXactSnapshot())
		return;

	/*
	 * Our own merge (a forced one, or quickstep.merge() before this
	 * statement) is in no snapshot of ours by xid, but its xmax on the
	 * delta version is ours: heap's cmax hides the version from our later
	 * commands already, and t_field3 holds that cmax (moved.h).
	 */
	if (TransactionIdIsCurrentTransactionId(link->xmax))
		return;
	if (XidInMVCCSnapshot(link->xmax, GetTransactionSnapshot()))
		qs_mark_taken(rel, from, &link->ctid, link->xmax, cid);
}

static TM_Result
col_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				 Snapshot snapshot, Snapshot crosscheck, bool wait,
				 TM_FailureData *tmfd, bool changingPart)
{
	ItemPointerData cur = *tid;
	TM_FailureData link;
	bool		followed = false;
	TM_Result	result;

	qs_colload_flush_tid(rel, tid);
	for (;;)
	{
		/* old values (logical decoding) read before the engine locks the row */
		if (qs_tid_is_virtual(&cur) && qs_logical_wanted(rel))
			qs_colmain_prefetch(rel, &cur);
		result = qs_tuple_delete(rel, &cur, cid, snapshot, crosscheck, wait,
								 tmfd, changingPart);
		if (result != QS_TM_MOVED || followed)
			break;
		followed = true;
		link = *tmfd;
		cur = tmfd->ctid;
	}
	if (result == QS_TM_MOVED)
		elog(ERROR, "main copy (%u,%u) of a moved row of \"%s\" is moved again",
			 ItemPointerGetBlockNumber(&cur), ItemPointerGetOffsetNumber(&cur),
			 RelationGetRelationName(rel));
	if (result == TM_Ok && followed)
		col_after_link(rel, tid, &link, snapshot, cid);
	else if (result == TM_Ok && qs_tid_is_virtual(&cur))
		qs_moved_take_main(rel, &cur, snapshot, cid);
	return result;
}

static TM_Result
col_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				 CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				 QS_UPDATE_INDEXES_T *update_indexes)
{
	ItemPointerData cur = *otid;
	TM_FailureData link;
	bool		followed = false;
	TM_Result	result;

	qs_colload_flush_tid(rel, otid);
	for (;;)
	{
		/* old values (key change, TOAST, decoding) read before the row is locked */
		qs_colmain_prefetch(rel, &cur);
		result = qs_tuple_update(rel, &cur, slot, cid, snapshot, crosscheck,
								 wait, tmfd, lockmode, update_indexes);
		if (result != QS_TM_MOVED || followed)
			break;
		followed = true;
		link = *tmfd;
		cur = tmfd->ctid;
	}
	if (result == QS_TM_MOVED)
		elog(ERROR, "main copy (%u,%u) of a moved row of \"%s\" is moved again",
			 ItemPointerGetBlockNumber(&cur), ItemPointerGetOffsetNumber(&cur),
			 RelationGetRelationName(rel));
	if (result == TM_Ok && followed)
		col_after_link(rel, otid, &link, snapshot, cid);
	else if (result == TM_Ok && qs_tid_is_virtual(&cur))
		qs_moved_take_main(rel, &cur, snapshot, cid);
	return result;
}

static TM_Result
col_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
			   TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
			   LockWaitPolicy wait_policy, uint8 flags, TM_FailureData *tmfd)
{
	qs_colload_flush_tid(rel, tid);
	return qs_tuple_lock(rel, tid, snapshot, slot, cid, mode, wait_policy,
						 flags, tmfd);
}

/* ------------------------------------------------------------------------
 * Storage: the metapage
 * ------------------------------------------------------------------------
 */

/* Write a metapage as block 0 of a fork that was just created empty. */
static void
write_new_metapage(SMgrRelation srel, const RelFileLocator *loc,
				   ForkNumber fork, bool wal)
{
	PGAlignedBlock buf;
	Page		page = (Page) buf.data;

	qs_colmeta_init_page(page);
	if (wal)
		log_newpage((RelFileLocator *) loc, fork, QS_COLMETA_BLKNO, page, true);
	PageSetChecksumInplace(page, QS_COLMETA_BLKNO);
	smgrextend(srel, fork, QS_COLMETA_BLKNO, buf.data, false);
	if (fork == INIT_FORKNUM)
		qs_sync_init_fork(srel);
}

static void
col_set_new_filelocator(Relation rel, const RelFileLocator *newrlocator,
						char persistence, TransactionId *freezeXid,
						MultiXactId *minmulti)
{
	SMgrRelation srel;

	/*
	 * A transactional TRUNCATE: the rows this transaction still buffers
	 * belong to the storage being replaced, with their TIDs in its indexes.
	 * Written there first, not forgotten: if the TRUNCATE's subtransaction
	 * rolls back, that storage is the table again and must hold them.
	 */
	qs_colload_flush_rel(rel);
	qs_colload_forget_rel(rel);
	qs_relation_set_new_filelocator(rel, newrlocator, persistence, freezeXid,
									minmulti);
	srel = QS_SMGROPEN(*newrlocator, persistence);
	write_new_metapage(srel, newrlocator, MAIN_FORKNUM,
					   persistence == RELPERSISTENCE_PERMANENT);
	if (persistence == RELPERSISTENCE_UNLOGGED)
		write_new_metapage(srel, newrlocator, INIT_FORKNUM, true);
	smgrclose(srel);
	qs_coldir_changed_locator(newrlocator);
}

/*
 * SET TABLESPACE copies the storage: the rows this transaction still
 * buffers go into it first, or a TRUNCATE after it (non-transactional on
 * the new storage) forgot them while ROLLBACK TO brings the old storage
 * back without them.
 */
static void
col_relation_copy_data(Relation rel, const RelFileLocator *newrlocator)
{
	qs_colload_flush_rel(rel);
	qs_relation_copy_data(rel, newrlocator);
	qs_coldir_changed_locator(newrlocator);
}

static void
col_nontransactional_truncate(Relation rel)
{
	qs_colload_forget_rel(rel);
	qs_relation_nontransactional_truncate(rel);
	qs_colmeta_init(rel);
	/*
	 * Same relfilenode, block ids and ranges start over: a TID names another
	 * row now, so the one-row cache's values must go, and the backend's
	 * block readers, whose keys a new block may match (a TID fetch after
	 * TRUNCATE and a load of the same size read the old block's values).
	 * The relcache invalidation reaches the planner's cache of block
	 * encodings (colcost.c) at the next command.
	 */
	col_prefetched.tuple = NULL;
	qs_colreadcache_forget_rel(RelationGetRelid(rel));
	CacheInvalidateRelcache(rel);
}

/*
 * VACUUM: the engine's over the delta and the delete maps (their entries
 * are classified, frozen and removed as records, vacuum.c), between two
 * passes that freeze the directory's xmins (qs_coldir_freeze), and after
 * the runs of aborted loads went back to the delta as empty pages
 * (qs_coldir_reclaim).  relfrozenxid never passes the oldest directory
 * xmin left unfrozen by the first pass (a delete-map page made while the
 * engine's pass runs copies it, past the pages that pass visits), and
 * reltuples counts the blocks' rows.
 */
static void
col_vacuum(Relation rel, struct VacuumParams *params,
		   BufferAccessStrategy bstrategy)
{
	TransactionId bound;
	QsColDirectory dir;
	double		main_rows = 0;

	qs_colload_flush_rel(rel);
	bound = qs_coldir_freeze(rel, GetOldestNonRemovableTransactionId(rel));
	/* runs of aborted loads: empty pages the engine's pass records or truncates */
	(void) qs_coldir_reclaim(rel);
	/* and pages converted for runs no entry names (run.c) */
	(void) qs_colrun_sweep(rel, bstrategy);
	qs_coldir_read(rel, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		if (e->state != QS_COLBLK_RETIRED &&
			(!TransactionIdIsNormal(e->xmin) || TransactionIdDidCommit(e->xmin)))
			main_rows += e->published;
		/* its removed entries are still counted as gone (vacuum.c) */
		else if ((e->flags & QS_COLDIR_EMPTIED) &&
				 !(e->flags & QS_COLDIR_RUN_RECLAIMED))
			main_rows += e->published;
	}
	pfree(dir.entries);
	qs_vacuum_rel_ext(rel, params, bstrategy, bound, main_rows);
	(void) qs_coldir_freeze(rel, GetOldestNonRemovableTransactionId(rel));
	/* the row pages of the reltuples just set (col_estimate_size) */
	col_note_stats(rel);
}

/*
 * col_predicted_rows
 *		The rows the table's storage predicts: the blocks' rows exactly
 *		from the directory (current versions not loaded by an aborted
 *		transaction, deleted rows included) plus the delta's pages at the
 *		density heap assumes for a table never vacuumed.  The delta's pages
 *		are the fork's less the metapage, the directory, the runs of
 *		versions not retired and every block's delete map (a 10% UPDATE of
 *		a bulk-loaded table adds a delete-map page per 291 rows: taken for
 *		delta pages, they doubled the estimate).  *mainrows and *deltapages
 *		get the two parts, *meta the metapage (what VACUUM or ANALYZE noted
 *		in it: stat_*; all zero for an empty fork).
 */

/*
 * Rows per delta page, as heap assumes for a table never vacuumed (integer
 * division), from the columns' types alone: the same whenever it is asked,
 * whatever statistics ANALYZE has written since.
 */
static double
delta_density(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int32		width = MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped)
			width += get_typavgwidth(att->atttypid, att->atttypmod);
	}

	return (double) ((BLCKSZ - SizeOfPageHeaderData) / Max(width, 1));
}

static double
col_predicted_rows(Relation rel, double *mainrows, BlockNumber *deltapages,
				   QsColMeta *meta)
{
	QsColDirectory dir;
	QsPageRange *runs;
	int			nruns;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber other;
	double		rows = 0;

	*mainrows = 0;
	*deltapages = 0;
	memset(meta, 0, sizeof(*meta));
	if (nblocks == 0)
		return 0;
	qs_colmeta_read(rel, meta);
	other = 1 + (meta->nentries + QS_COLDIR_PER_PAGE - 1) / QS_COLDIR_PER_PAGE;
	runs = qs_coldir_runs(rel, &nruns);
	for (int i = 0; i < nruns; i++)
		other += runs[i].end - runs[i].start;
	pfree(runs);
	other += qs_coldir_delmap_pages(rel);
	qs_coldir_read(rel, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		if (e->state == QS_COLBLK_RETIRED)
			continue;
		if (!TransactionIdIsNormal(e->xmin) || !TransactionIdDidAbort(e->xmin))
			rows += e->published;
	}
	pfree(dir.entries);
	*mainrows = rows;
	/* the fork may have grown since it was measured: count what it had */
	*deltapages = nblocks > other ? nblocks - other : 0;
	return rows + delta_density(rel) * *deltapages;
}

/* VACUUM and ANALYZE: what the storage held when reltuples was set */
static void
col_note_stats(Relation rel)
{
	double		mainrows;
	BlockNumber deltapages;
	QsColMeta	meta;

	(void) col_predicted_rows(rel, &mainrows, &deltapages, &meta);
	qs_colmeta_set_stats(rel, mainrows,
						 mainrows > 0 ? qs_column_live_main_rows(rel) : 0,
						 deltapages);
}

/*
 * Size estimate.  Once VACUUM or ANALYZE has set reltuples, reltuples plus
 * what was added since: the blocks' rows exactly (from the directory) and
 * the delta's pages at the density reltuples had when it was set — its
 * rows not in blocks over the delta's pages then, as heap scales
 * reltuples by reltuples / relpages (table_block_relation_estimate_size):
 * reltuples less the blocks' rows not deleted then, over the delta's pages
 * then; the types' density (delta_density) when that cannot be told (no
 * delta pages then, or no rows left for them).  Heap's own scaling would
 * mix the runs' density with the delta's, 100 times lower: a 10% UPDATE of
 * a bulk-loaded table made that estimate 11 times the rows.  A metapage
 * noted by an earlier version (stat_parts 0) is estimated by the
 * prediction it noted then (stat_rows, no longer written).  Before any
 * note, the prediction itself, with heap's 10 pages for a table never
 * vacuumed that holds no block.  Deleted rows count until VACUUM or ANALYZE sees them, as heap's
 * dead tuples do.
 */
static void
col_estimate_size(Relation rel, int32 *attr_widths, BlockNumber *pages,
				  double *tuples, double *allvisfrac)
{
	double		reltuples = (double) rel->rd_rel->reltuples;
	double		mainrows;
	BlockNumber deltapages;
	QsColMeta	meta;
	double		now;

	*pages = RelationGetNumberOfBlocks(rel);
	*tuples = 0;
	*allvisfrac = 0;
	if (*pages == 0)
		return;
	now = col_predicted_rows(rel, &mainrows, &deltapages, &meta);
	if (reltuples >= 0)
	{
		if (meta.stat_parts == 1)
		{
			double		delta_then = reltuples - meta.stat_main_live;
			double		density;

			if (meta.stat_delta_pages > 0 && delta_then > 0)
				density = Min(delta_then / meta.stat_delta_pages,
							  (double) MaxHeapTuplesPerPage);
			else
				density = delta_density(rel);
			*tuples = Max(rint(reltuples + (mainrows - meta.stat_main_rows) +
							   density * ((double) deltapages -
										  (double) meta.stat_delta_pages)), 0);
			return;
		}
		if (meta.stat_rows > 0)
		{
			*tuples = Max(rint(reltuples + now - meta.stat_rows), 0);
			return;
		}
	}
	else if (mainrows == 0 && deltapages < 10 && !rel->rd_rel->relhassubclass)
		now = delta_density(rel) * 10;
	*tuples = rint(now);
}

/* ------------------------------------------------------------------------
 * Index builds: the delta by the engine, then every main row not
 * inserted by an aborted transaction (what SnapshotAny plus heap's
 * HEAPTUPLE_INSERT_IN_PROGRESS/LIVE cases index)
 * ------------------------------------------------------------------------
 */
static double
col_index_build_range_scan(Relation tableRelation, Relation indexRelation,
						   struct IndexInfo *indexInfo, bool allow_sync,
						   bool anyvisible, bool progress,
						   BlockNumber start_blockno, BlockNumber numblocks,
						   IndexBuildCallback callback, void *callback_state,
						   TableScanDesc scan)
{
	ColScanDesc cs = scan ? (ColScanDesc) scan : NULL;
	Snapshot	snapshot = scan ? scan->rs_snapshot : NULL;
	bool		unregister = false;
	double		n;
	QsColDirectory dir;
	QsColAttr  *attrs;
	TupleTableSlot *slot;
	EState	   *estate;
	ExprContext *econtext;
	ExprState  *predicate;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	MemoryContext cxt,
				rowcxt,
				old;
	pg_atomic_uint32 *pnext = cs ? cs->pnext : NULL;
	uint32		serial = 0;
	bool		mvcc;
	TransactionId OldestXmin = InvalidTransactionId;

	/*
	 * BRIN summarizes ranges of physical blocks: main rows have virtual
	 * TIDs no range covers, so such an index would miss them (and a build
	 * would summarize 2^31 empty blocks).
	 */
	if (indexRelation->rd_rel->relam == BRIN_AM_OID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("BRIN indexes are not supported on quickstep_column table \"%s\"",
						RelationGetRelationName(tableRelation)),
				 errdetail("Rows in column blocks have no physical block for a BRIN range to summarize."),
				 errhint("Use a btree or csbtree index; column blocks record each column's minimum and maximum themselves.")));
	qs_colload_flush_rel(tableRelation);
	n = qs_index_build_range_scan(tableRelation, indexRelation, indexInfo,
								  allow_sync, anyvisible, progress,
								  start_blockno, numblocks, callback,
								  callback_state, cs ? cs->delta : NULL);
	/* as heap does, the build ends the scan it was given: delta ended */
	if (cs)
		cs->delta = NULL;
	/* BRIN summarizes block ranges: main rows have no physical block */
	if (start_blockno != 0 || numblocks != InvalidBlockNumber)
	{
		if (cs)
			col_scan_end(&cs->base);
		return n;
	}
	if (snapshot == NULL && indexInfo->ii_Concurrent)
	{
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
		unregister = true;
	}

	cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep column index build",
								ALLOCSET_DEFAULT_SIZES);
	rowcxt = AllocSetContextCreate(cxt, "row", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	/* an MVCC build sees what its snapshot sees; else all but aborted */
	mvcc = snapshot != NULL && IsMVCCSnapshot(snapshot);
	if (!mvcc)
		OldestXmin = GetOldestNonRemovableTransactionId(tableRelation);
	if (mvcc)
		qs_coldir_read_visible(tableRelation, snapshot, &dir);
	else
		qs_coldir_read(tableRelation, &dir);
	attrs = qs_colattrs(RelationGetDescr(tableRelation));
	qs_colretype_reading(tableRelation, attrs);
	MemoryContextSwitchTo(old);

	slot = table_slot_create(tableRelation, NULL);
	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);

	for (;;)
	{
		uint32		idx = pnext ? pg_atomic_fetch_add_u32(pnext, 1) : serial++;
		const QsColDirEntry *e;
		QsColRowReader rr;
		MemoryContext bcxt;
		ColRowFilter *filter;

		if (idx >= dir.nentries)
			break;
		e = &dir.entries[idx];
		if (e->state == QS_COLBLK_RETIRED || (e->flags & QS_COLDIR_PENDING) ||
			(TransactionIdIsNormal(e->xmin) &&
			 !TransactionIdIsCurrentTransactionId(e->xmin) &&
			 TransactionIdDidAbort(e->xmin)))
			continue;
		bcxt = AllocSetContextCreate(cxt, "block", ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(bcxt);
		qs_colrows_open(tableRelation, attrs, e, &rr);
		filter = palloc(sizeof(ColRowFilter));
		qs_colfilter_begin(tableRelation, e, filter);
		MemoryContextSwitchTo(old);
		for (uint32 row = 0; row < e->published; row++)
		{
			const HeapTupleHeaderData *hdr;
			int			status = HEAPTUPLE_LIVE;
			bool		alive = true;

			CHECK_FOR_INTERRUPTS();
			if (!qs_colfilter_row(tableRelation, e, filter, row,
							   mvcc ? snapshot : NULL, OldestXmin, &hdr, &status))
				continue;		/* removed by VACUUM */

			/*
			 * A row with a delete-map entry, as heapam's build decides: an
			 * MVCC build takes what its snapshot sees; else rows dead to
			 * everybody are left out, recently dead ones and our own
			 * deletions indexed as not alive (no uniqueness check).  No
			 * other transaction can be deleting under CREATE INDEX's
			 * ShareLock but a prepared one: indexed as alive, so a unique
			 * build errs on the safe side instead of waiting for it.
			 */
			if (hdr != NULL)
			{
				if (mvcc)
				{
					if (!status)
						continue;
				}
				else if (status == HEAPTUPLE_DEAD)
					continue;
				else if (status == HEAPTUPLE_RECENTLY_DEAD)
					alive = false;
				else if (status == HEAPTUPLE_DELETE_IN_PROGRESS &&
						 TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid((HeapTupleHeader) hdr)))
					alive = false;
			}
			qs_colscan_store_row(&rr, row, slot, rowcxt, hdr);
			MemoryContextReset(econtext->ecxt_per_tuple_memory);
			if (predicate != NULL && !ExecQual(predicate, econtext))
				continue;
			FormIndexDatum(indexInfo, slot, estate, values, isnull);
			callback(indexRelation, &slot->tts_tid, values, isnull, alive,
					 callback_state);
			n += 1;
		}
		qs_colfilter_end(filter);
		qs_colrows_close(&rr);
		MemoryContextDelete(bcxt);
	}
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	MemoryContextDelete(cxt);
	if (unregister)
		UnregisterSnapshot(snapshot);
	if (cs)
		col_scan_end(&cs->base);
	return n;
}

/* ------------------------------------------------------------------------
 * The routine
 * ------------------------------------------------------------------------
 */
const TableAmRoutine *
qs_column_routine(void)
{
	TableAmRoutine *r;

	if (col_routine)
		return col_routine;
	r = qs_engine_register_derived(&qs_hpl_layout);
	RegisterXactCallback(col_an_xact_abort, NULL);
	RegisterSubXactCallback(col_an_subxact_abort, NULL);

	r->scan_begin = col_scan_begin;
	r->scan_end = col_scan_end;
	r->scan_rescan = col_scan_rescan;
	r->scan_getnextslot = col_scan_getnextslot;
	r->parallelscan_estimate = col_parallelscan_estimate;
	r->parallelscan_initialize = col_parallelscan_initialize;
	r->parallelscan_reinitialize = col_parallelscan_reinitialize;

	r->index_fetch_begin = col_index_fetch_begin;
	r->index_fetch_reset = col_index_fetch_reset;
	r->index_fetch_end = col_index_fetch_end;
	r->index_fetch_tuple = col_index_fetch_tuple;

	r->tuple_fetch_row_version = col_fetch_row_version;
	r->tuple_tid_valid = col_tuple_tid_valid;
	r->tuple_get_latest_tid = col_get_latest_tid;
	r->tuple_satisfies_snapshot = col_tuple_satisfies_snapshot;

	r->tuple_insert = qs_col_tuple_insert;
	r->multi_insert = qs_col_multi_insert;
	r->finish_bulk_insert = qs_col_finish_bulk_insert;
	r->tuple_delete = col_tuple_delete;
	r->tuple_update = col_tuple_update;
	r->tuple_lock = col_tuple_lock;

	/* bitmap and TID-range scans over delta and main (scan_tid.c) */
#ifndef QS_BITMAP_ONE_CALLBACK
	r->scan_bitmap_next_block = qs_col_scan_bitmap_next_block;
#endif
	r->scan_bitmap_next_tuple = qs_col_scan_bitmap_next_tuple;
	r->scan_set_tidrange = qs_col_scan_set_tidrange;
	r->scan_getnextslot_tidrange = qs_col_scan_getnextslot_tidrange;
	r->scan_sample_next_block = qs_col_scan_sample_next_block;
	r->scan_sample_next_tuple = qs_col_scan_sample_next_tuple;
	r->scan_analyze_next_block = col_analyze_next_block;
	r->scan_analyze_next_tuple = col_analyze_next_tuple;

	r->QS_AM_SET_NEW_FILELOCATOR = col_set_new_filelocator;
	r->relation_nontransactional_truncate = col_nontransactional_truncate;
	r->relation_copy_data = col_relation_copy_data;
	r->relation_copy_for_cluster = qs_col_copy_for_cluster;	/* rewrite.c */
	r->relation_vacuum = col_vacuum;
	r->relation_estimate_size = col_estimate_size;
	r->index_build_range_scan = col_index_build_range_scan;

	col_routine = r;
	qs_recslot_shown_sys_hook = col_shown_sys;
	return r;
}

/*
 * The version of the block holding TID 'range'/'row' whose rows the xid
 * system columns read (col_shown_sys): the one the active snapshot sees,
 * else the newest (every version of a block that holds a row keeps its
 * origin xmin, appends and seals carry it; delete-map entries are the
 * block's).  NULL when no version holds the row.  'own' gets what the
 * caller frees.
 */
static const QsColDirEntry *
shown_entry(Relation rel, uint32 range, uint32 row, QsColDirectory *own)
{
	/*
	 * Its own directory copy, kept while the snapshot and the relation's
	 * storage stay the same (a ColFetchCache serves one relation).
	 */
	static ColFetchCache cache;
	static RelFileLocator cache_locator;
	const QsColDirectory *dir;
	const QsColDirEntry *e;
	Snapshot	snapshot = NULL;

	if (ActiveSnapshotSet() && IsMVCCSnapshot(GetActiveSnapshot()))
		snapshot = GetActiveSnapshot();
	if (cache.rowcxt == NULL)
		cache_init(&cache, TopMemoryContext, true);
	if (memcmp(&cache_locator, &QS_REL_LOCATOR(rel), sizeof(RelFileLocator)) != 0)
	{
		cache.have_dir = false;
		cache_locator = QS_REL_LOCATOR(rel);
	}
	dir = cache_dir(&cache, rel, snapshot, range, own, false);
	e = qs_coldir_find_range(dir, range);
	if ((e == NULL || row >= e->published) && snapshot != NULL)
	{
		if (own->entries)
			pfree(own->entries);
		memset(own, 0, sizeof(*own));
		qs_coldir_read_range(rel, range, own);
		e = qs_coldir_find_range(own, range);
	}
	return e != NULL && row < e->published ? e : NULL;
}

/*
 * What the xmin or xmax system column shows (col_shown_sys), where a
 * merge would otherwise show through (THE RULE: a merge is invisible,
 * system columns included), looked up only when the column is read:
 *
 * xmin of a main row: its origin xmin, the inserter of the delta version
 * a merge moved into the block (the header keeps the block version's
 * writer, which visibility reads).  False for rows without one
 * (bulk-loaded, or moved by a build that predates the origins): the
 * header's raw xmin.  A delta version shows its raw xmin (a TAKEN mark,
 * src/merge/README.md, keeps the inserter there).
 *
 * xmax of a delta version a merge moved (its raw xmax is the merge): the
 * xmax of its main copy, where later changes of the row went, as heap
 * shows its tuple's updater or locker; 0 while nobody changed it (or the
 * copy's move was cancelled: its xmax is the merge).  Other rows show
 * their header's.
 */
static bool
col_shown_xid(TupleTableSlot *slot, int attnum, TransactionId *xid)
{
	Relation	rel;
	QsColDirectory own = {0};
	const QsColDirEntry *e;
	HeapTupleHeader h = NULL;
	uint32		range,
				row;
	ItemPointerData tid = slot->tts_tid;

	if (attnum == MaxTransactionIdAttributeNumber)
	{
		if (qs_tid_is_virtual(&tid))
			return false;
		h = qs_recslot_header(slot);

		/*
		 * The mark of a merge that aborted (rolled back to a savepoint, or
		 * a worker's merge that failed): its xmax is that merge's until a
		 * write clears the bits, where heap's tuple, never merged, shows 0
		 * (hinted or not).
		 */
		if ((h->t_infomask2 & QS_INFOMASK2_MOVED) &&
			!(h->t_infomask & HEAP_XMAX_IS_MULTI) &&
			TransactionIdIsNormal(HeapTupleHeaderGetRawXmax(h)) &&
			((h->t_infomask & HEAP_XMAX_INVALID) ||
			 TransactionIdDidAbort(HeapTupleHeaderGetRawXmax(h))))
		{
			*xid = InvalidTransactionId;
			return true;
		}
		if (!qs_header_moved(h) || !qs_tid_is_virtual(&h->t_ctid))
			return false;
		tid = h->t_ctid;
	}
	else if (!qs_tid_is_virtual(&tid))
		return false;
	if (!qs_virt_decode(&tid, &range, &row) || !OidIsValid(slot->tts_tableOid))
		return false;
	rel = RelationIdGetRelation(slot->tts_tableOid);
	if (!RelationIsValid(rel))
		return false;
	*xid = InvalidTransactionId;
	if (qs_is_column_rel(rel) && (e = shown_entry(rel, range, row, &own)) != NULL)
	{
		if (attnum == MinTransactionIdAttributeNumber)
		{
			/*
			 * What the version found shows (its origin, else its entry's
			 * xmin): the same for every version that holds the row, so the
			 * slot's own version (a newer one, say, fetched with SnapshotAny)
			 * shows it too.
			 */
			*xid = qs_colrows_shown_xmin(qs_colreadcache_get(rel, e), row);
			RelationClose(rel);
			if (own.entries)
				pfree(own.entries);
			return true;
		}
		else
		{
			HeapTupleHeaderData copy;
			bool		visible;

			if (qs_coldelmap_header(rel, e, row, NULL, &copy, &visible) &&
				!(copy.t_infomask & HEAP_XMAX_INVALID) &&
				!TransactionIdEquals(HeapTupleHeaderGetRawXmax(&copy),
									 HeapTupleHeaderGetRawXmax(h)))
				*xid = HeapTupleHeaderGetRawXmax(&copy);
			/* the copy untouched: the row shows no xmax, as heap's would */
			RelationClose(rel);
			if (own.entries)
				pfree(own.entries);
			return true;
		}
	}
	if (own.entries)
		pfree(own.entries);
	RelationClose(rel);
	return *xid != InvalidTransactionId;
}

/*
 * Does a main row's header carry, in its command id, the cmax of a delete
 * or update (of a transaction committed, aborted or running: heap shows
 * its tuple's raw t_cid whatever became of the deleter)?  A lock leaves
 * the command id alone, as heap_lock_tuple leaves t_cid.
 */
static inline bool
cid_is_deleters(HeapTupleHeader h)
{
	return TransactionIdIsValid(HeapTupleHeaderGetRawXmax(h)) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask);
}

/*
 * What the cmin and cmax system columns show (both the raw command id, as
 * heap_getsysattr shows a heap tuple's t_cid), where the stored one is not
 * the one heap's tuple would hold.  Issue 12 (f3), src/column/README.md
 * section 4.1:
 *
 * A main row deleted or updated: the entry's command id, the deleter's
 * cmax (false: the header's).  Otherwise its inserter's command id where
 * the block kept it: a row with an origin (moved by a merge, copied by a
 * seal or a rewrite, frozen or not) its origin command id, the raw t_cid
 * of the delta version the merge moved, carried by every later version;
 * a bulk-loaded block's rows the directory's cid, the load's command
 * (false); and 0 (FirstCommandId) for the rest: rows moved by a build that
 * predates the origin command ids (0 there), frozen rows without an origin
 * (VACUUM kept the writer's xid where the command id was), rows of older
 * versions of an open block that a build before the origins wrote.
 *
 * A delta version a merge moved (its t_cid holds the merge's cmax, or, once
 * TAKEN, the taker's xid: moved.h): what its main copy shows, where later
 * changes of the row went, so the version and its copy agree as they do
 * for xmax: the deleter's cmax, else the copy's origin command id (the
 * inserter's, which the mark overwrote).  The copy's deleter is also the
 * taker of a TAKEN version (its change went through the link), so every
 * backend shows the taker's command, not only the taker's own
 * (taken_marks).  A version whose merge aborted keeps the merge's cmax
 * until a write clears the bits: 0, as its inserter's command is gone.
 */
static bool
col_shown_cid(TupleTableSlot *slot, CommandId *cid)
{
	HeapTupleHeader h = qs_recslot_header(slot);
	ItemPointerData tid = slot->tts_tid;
	bool		via_link = false;
	bool		frozen = false;
	Relation	rel;
	QsColDirectory own = {0};
	const QsColDirEntry *e;
	uint32		range,
				row;
	bool		header = false;

	*cid = FirstCommandId;
	if (!qs_tid_is_virtual(&tid))
	{
		/* heap never sets the bit (moved.h): a merge wrote this t_cid */
		if (!(h->t_infomask2 & QS_INFOMASK2_MOVED))
			return false;
		if (!qs_header_moved(h) || !qs_tid_is_virtual(&h->t_ctid))
			return true;
		tid = h->t_ctid;
		via_link = true;
	}
	else if (cid_is_deleters(h))
		return false;
	else
		frozen = !TransactionIdIsNormal(HeapTupleHeaderGetRawXmin(h)) ||
			(h->t_infomask & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN;
	if (!qs_virt_decode(&tid, &range, &row) || !OidIsValid(slot->tts_tableOid))
		return via_link || frozen;
	rel = RelationIdGetRelation(slot->tts_tableOid);
	if (!RelationIsValid(rel))
		return via_link || frozen;
	if (qs_is_column_rel(rel) && (e = shown_entry(rel, range, row, &own)) != NULL)
	{
		HeapTupleHeaderData copy;
		bool		visible;
		CommandId	origin_cid;

		if (via_link && qs_coldelmap_header(rel, e, row, NULL, &copy, &visible) &&
			cid_is_deleters(&copy))
		{
			/* the copy's move cancelled (its xmax the merge): untouched, 0 */
			if (!TransactionIdEquals(HeapTupleHeaderGetRawXmax(&copy),
									 HeapTupleHeaderGetRawXmax(h)))
				*cid = HeapTupleHeaderGetRawCommandId(&copy);
		}
		else if (qs_colrows_origin(qs_colreadcache_get(rel, e), row,
								   &origin_cid) != InvalidTransactionId)
			*cid = origin_cid;	/* its inserter's: nobody changed the row */
		else if (!via_link && !frozen && !(e->flags & QS_COLDIR_MERGED) &&
				 row >= e->base)
			header = true;		/* a bulk load's row: the load's command */
	}
	else if (!via_link)
		header = !frozen;		/* no version holds the row: as for xmin */
	RelationClose(rel);
	if (own.entries)
		pfree(own.entries);
	return !header;
}

/* the hook of record slots (recslot.h): xmin/xmax, then cmin/cmax */
static bool
col_shown_sys(TupleTableSlot *slot, int attnum, Datum *value)
{
	if (attnum == MinCommandIdAttributeNumber ||
		attnum == MaxCommandIdAttributeNumber)
	{
		CommandId	cid;

		if (!col_shown_cid(slot, &cid))
			return false;
		*value = CommandIdGetDatum(cid);
		return true;
	}
	else
	{
		TransactionId xid;

		if (!col_shown_xid(slot, attnum, &xid))
			return false;
		*value = TransactionIdGetDatum(xid);
		return true;
	}
}

bool
qs_is_column_rel(Relation rel)
{
	return col_routine != NULL && rel->rd_tableam == col_routine;
}

/*
 * The handler of quickstep_column (src/column/column.sql).  Tests of the
 * routine before it was registered created a function over the second
 * symbol; it stays for them and for the core suites' harness.
 */
PG_FUNCTION_INFO_V1(column_handler);

Datum
column_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(qs_column_routine());
}

PG_FUNCTION_INFO_V1(column_dev_handler);

Datum
column_dev_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(qs_column_routine());
}
