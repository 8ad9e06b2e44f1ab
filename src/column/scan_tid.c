/*-------------------------------------------------------------------------
 *
 * scan_tid.c
 *	  Scans of column tables driven by TIDs: bitmap scans (both PG 15's
 *	  next_block/next_tuple form and PG 18's single callback) and TID-range
 *	  scans, over the delta (the engine's scans, physical TIDs) and main
 *	  (virtual TIDs, README section 3).
 *
 * A virtual page of a TIDBitmap is 291 rows of one block: the page's
 * offsets (or, for a lossy page, all of them) are its rows, filtered by
 * the block's visibility to the scan's snapshot (the directory read once
 * per scan) and by their delete-map entries.  TIDBitmaps order pages by
 * block number, so main pages come after every delta page, and the main
 * pages of one block come together: the open block and its delete map
 * are kept from page to page.
 *
 * PG 15's executor prefetches the pages of a bitmap through the buffer
 * manager (BitmapPrefetch -> PrefetchBuffer), which fails for a block
 * number past the end of the fork: fetchatts.c's ExecutorStart hook turns
 * prefetching off for bitmap scans of column tables when the executor
 * starts.  PG 18 iterates the bitmap inside the
 * table AM, which prefetches nothing for main pages.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "pgstat.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "column/colam.h"
#include "column/colscan.h"
#include "column/colstore.h"
#include "column/readcache.h"
#include "page/recslot.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"

/* ------------------------------------------------------------------------
 * Main rows of one bitmap page
 * ------------------------------------------------------------------------
 */

/* the directory index of TID range 'range', or -1 */
static int
dir_index(ColScanDesc s, uint32 range)
{
	for (uint32 i = 0; i < s->dir.nentries; i++)
		if (s->dir.entries[i].tid_range == range &&
			s->dir.entries[i].state != QS_COLBLK_RETIRED)
			return (int) i;
	return -1;
}

/*
 * A serializable bitmap scan's main rows of one virtual page: lock each row
 * the first read found visible, then judge them again from a fresh read,
 * and keep that verdict (s->bm_rows, s->bm_hdr rebuilt).
 *
 * Heap's bitmap scan locks each visible tuple (PredicateLockTID; predicate.c
 * promotes to the page after max_pred_locks_per_page, as for a lossy page,
 * whose visible tuples are all locked) under the page's share lock, and
 * heap_delete checks for the lock under the exclusive lock before it sets
 * xmax: one of the two sees the other.  Here the first read (the scan's
 * directory copy, the delete map's root and leaf, the leaf's share lock
 * released) comes before the lock, and a writer of a main row checks for
 * SIREAD locks under the leaf's exclusive lock (dml.c) after it made the
 * leaf, the root and bumped the directory's change counter (a block's first
 * delete makes its delete map: the scan's copy of the directory, read when
 * the scan began, does not name it).  So, as col_fetch_main (am.c) does for
 * an index fetch: the locks, then the range's directory entries read again
 * (qs_coldir_read_range_visible: as they are now), the delete map's root
 * and the page's leaf read again under its share lock, which waits for a
 * writer's xmax; qs_colfilter_row's conflict-out check then reports a
 * writer that checked before our lock, and a writer that checks after it
 * finds the lock.  Column README section 4.1, "Serializable reads".
 */
static void
ssi_lock_vpage(ColScanDesc s, const QsColDirEntry *e, uint32 range)
{
	Relation	rel = s->base.rs_rd;
	Snapshot	snapshot = s->base.rs_snapshot;
	QsColDirectory dir;
	const QsColDirEntry *fresh;
	ColRowFilter *f;
	MemoryContext old;
	int			n = 0;

	for (int i = 0; i < s->bm_n; i++)
	{
		ItemPointerData tid;

		qs_virt_tid(range, s->bm_rows[i], &tid);
		PredicateLockTID(rel, &tid, snapshot,
						 qs_coldir_row_xmin(e, s->bm_rows[i]));
	}

	if (s->bm_ssi == NULL)
		s->bm_ssi = MemoryContextAllocZero(s->cxt, sizeof(ColRowFilter));
	f = s->bm_ssi;
	qs_colfilter_end(f);

	old = MemoryContextSwitchTo(s->cxt);
	qs_coldir_read_range_visible(rel, snapshot, range, &dir);
	fresh = qs_coldir_find_range(&dir, range);

	/*
	 * The snapshot's verdict on the directory does not change, so the
	 * version it finds is the one the scan's copy named; only the block's
	 * delete map (shared by its versions) can be new.  Not expected
	 * otherwise; should it happen, the first verdict stands, and the
	 * relation's lock (every later write of the table conflicts: coarser,
	 * never a missed rw-conflict) stands in for the check not made again
	 * (review of bmssi, helper-183).
	 */
	if (fresh == NULL || fresh->block_id != e->block_id)
	{
		MemoryContextSwitchTo(old);
		if (dir.entries)
			pfree(dir.entries);
		PredicateLockRelation(rel, snapshot);
		return;
	}
	qs_colfilter_begin(rel, fresh, f);
	MemoryContextSwitchTo(old);
	for (int i = 0; i < s->bm_n; i++)
	{
		uint32		row = s->bm_rows[i];
		const HeapTupleHeaderData *hdr;
		int			vis = true;

		if (!qs_colfilter_row(rel, fresh, f, row, snapshot,
							  InvalidTransactionId, &hdr, &vis) || !vis)
			continue;
		s->bm_rows[n] = row;
		s->bm_hdr[n] = hdr;
		n++;
	}
	s->bm_n = n;
	if (dir.entries)
		pfree(dir.entries);
}

/*
 * Collect the rows of virtual block 'vblock' the bitmap names (offs[0..n-1],
 * or all when n < 0) that the scan's snapshot sees.  Returns how many.
 * A serializable bitmap scan locks each (ssi_lock_vpage).
 */
int
qs_colscan_load_vpage(ColScanDesc s, BlockNumber vblock, const OffsetNumber *offs,
			   int n)
{
	Relation	rel = s->base.rs_rd;
	ItemPointerData first;
	uint32		range,
				row0;
	int			idx;
	const QsColDirEntry *e;

	s->bm_n = s->bm_i = 0;
	if (vblock < QS_VIRT_BASE || vblock >= QS_VIRT_END)
		return 0;
	qs_colscan_init_main(s);
	ItemPointerSet(&first, vblock, 1);
	if (!qs_virt_decode(&first, &range, &row0))
		return 0;
	idx = dir_index(s, range);
	if (idx < 0)
		return 0;				/* not a block this snapshot sees */
	if (!s->have_block || s->open_idx != (uint32) idx)
	{
		/*
		 * Bitmap scans read rows from the read cache when the slot's
		 * descriptor is the relation's, as its readers are; sample scans
		 * read whole blocks through their own reader.
		 */
		if ((s->base.rs_flags & SO_TYPE_BITMAPSCAN) &&
			(s->slot_desc == NULL ||
			 equalTupleDescs(s->slot_desc, RelationGetDescr(rel))))
			qs_colscan_open_block_cached(s, (uint32) idx);
		else
			qs_colscan_open_block(s, (uint32) idx);
	}
	e = &s->dir.entries[idx];
	for (int k = 0; n < 0 ? k < QS_COLBLOCK_TIDS_PER_PAGE : k < n; k++)
	{
		OffsetNumber off = n < 0 ? k + 1 : offs[k];
		uint32		row;
		const HeapTupleHeaderData *hdr;
		int			vis = true;

		if (off < 1 || off > QS_COLBLOCK_TIDS_PER_PAGE)
			continue;
		row = row0 + off - 1;
		if (row >= e->published)
			break;
		if (!qs_colfilter_row(rel, e, &s->filter, row, s->base.rs_snapshot,
							  InvalidTransactionId, &hdr, &vis) || !vis)
			continue;
		s->bm_rows[s->bm_n] = row;
		s->bm_hdr[s->bm_n] = hdr;
		s->bm_n++;
	}
	if (s->bm_n > 0 && (s->base.rs_flags & SO_TYPE_BITMAPSCAN) &&
		s->base.rs_snapshot != NULL && IsMVCCSnapshot(s->base.rs_snapshot) &&
		IsolationIsSerializable())
		ssi_lock_vpage(s, e, range);
	return s->bm_n;
}

/*
 * The next row of the page into slot.  recheck: the executor evaluates the
 * scan's original quals on it (a lossy page, or the index asked); a row it
 * does not recheck is decoded without the columns only those read
 * (QsRecSlot.want_norecheck, fetchatts.c).
 */
static bool
take_main_row(ColScanDesc s, TupleTableSlot *slot, bool recheck)
{
	if (s->bm_i >= s->bm_n)
		return false;
	/* attributes decoded when the executor reads them, as index fetches do */
	if (s->rr_cached)
	{
		qs_colscan_store_row_lazy(s->base.rs_rd, &s->dir.entries[s->open_idx],
								  s->bm_rows[s->bm_i], slot, s->rowcxt,
								  s->bm_hdr[s->bm_i]);
		if (!recheck && slot->tts_ops == s->own_ops)
			((QsRecSlot *) slot)->norecheck = true;
	}
	else
		qs_colscan_store_row(&s->rr, s->bm_rows[s->bm_i], slot, s->rowcxt,
							 s->bm_hdr[s->bm_i]);
	s->bm_i++;
	pgstat_count_heap_fetch(s->base.rs_rd);
	return true;
}

#ifndef QS_BITMAP_ONE_CALLBACK
bool
qs_col_scan_bitmap_next_block(TableScanDesc sscan, TBMIterateResult *tbmres)
{
	ColScanDesc s = (ColScanDesc) sscan;

	/* the snapshot a parallel worker got after beginscan (colscan.h) */
	if (s->delta->rs_snapshot != s->base.rs_snapshot)
		s->delta->rs_snapshot = s->base.rs_snapshot;
	s->bm_main = tbmres->blockno >= QS_VIRT_BASE;
	if (!s->bm_main)
		return qs_scan_bitmap_next_block(s->delta, tbmres);
	return qs_colscan_load_vpage(s, tbmres->blockno,
						  tbmres->ntuples >= 0 ? tbmres->offsets : NULL,
						  tbmres->ntuples) > 0;
}

bool
qs_col_scan_bitmap_next_tuple(TableScanDesc sscan, TBMIterateResult *tbmres,
							  TupleTableSlot *slot)
{
	ColScanDesc s = (ColScanDesc) sscan;

	qs_colscan_slot_desc(s, slot);
	if (!s->bm_main)
		return qs_scan_bitmap_next_tuple(s->delta, tbmres, slot);
	return take_main_row(s, slot, tbmres->recheck);
}
#else
bool
qs_col_scan_bitmap_next_tuple(TableScanDesc sscan, TupleTableSlot *slot,
							  bool *recheck, uint64 *lossy_pages,
							  uint64 *exact_pages)
{
	ColScanDesc s = (ColScanDesc) sscan;

	qs_colscan_slot_desc(s, slot);
	for (;;)
	{
		TBMIterateResult tbmres;

		if (s->bm_main)
		{
			if (take_main_row(s, slot, s->bm_recheck))
			{
				*recheck = s->bm_recheck;
				return true;
			}
		}
		else if (qs_scan_bitmap_take(s->delta, slot, recheck))
			return true;

		CHECK_FOR_INTERRUPTS();
		if (!tbm_iterate(&s->base.st.rs_tbmiterator, &tbmres))
			return false;
		if (tbmres.lossy)
			(*lossy_pages)++;
		else
			(*exact_pages)++;
		s->bm_main = tbmres.blockno >= QS_VIRT_BASE;
		if (!s->bm_main)
		{
			qs_scan_bitmap_load(s->delta, &tbmres);
			continue;
		}
		s->bm_recheck = tbmres.recheck;
		if (tbmres.lossy)
			(void) qs_colscan_load_vpage(s, tbmres.blockno, NULL, -1);
		else
		{
			OffsetNumber offs[TBM_MAX_TUPLES_PER_PAGE];
			int			noffs = tbm_extract_page_tuple(&tbmres, offs,
													   TBM_MAX_TUPLES_PER_PAGE);

			(void) qs_colscan_load_vpage(s, tbmres.blockno, offs, noffs);
		}
	}
}
#endif

/* ------------------------------------------------------------------------
 * TID range scans
 * ------------------------------------------------------------------------
 */

/*
 * The rows [*lo, *hi) of block e whose TIDs lie in the scan's range.
 */
void
qs_colscan_tid_bounds(ColScanDesc s, const QsColDirEntry *e, uint32 *lo,
					  uint32 *hi)
{
	BlockNumber first = QS_VIRT_BASE + e->tid_range * QS_VIRT_PAGES_PER_RANGE;
	BlockNumber minb = ItemPointerGetBlockNumberNoCheck(&s->tr_min);
	OffsetNumber mino = ItemPointerGetOffsetNumberNoCheck(&s->tr_min);
	BlockNumber maxb = ItemPointerGetBlockNumberNoCheck(&s->tr_max);
	OffsetNumber maxo = ItemPointerGetOffsetNumberNoCheck(&s->tr_max);
	uint64		l,
				h;

	/* the first row at or after tr_min */
	if (minb < first)
		l = 0;
	else
		l = (uint64) (minb - first) * QS_COLBLOCK_TIDS_PER_PAGE +
			(mino == 0 ? 0 : Min(mino, QS_COLBLOCK_TIDS_PER_PAGE + 1) - 1);
	/* one past the last row at or before tr_max */
	if (maxb < first)
		h = 0;
	else
		h = (uint64) (maxb - first) * QS_COLBLOCK_TIDS_PER_PAGE +
			Min(maxo, QS_COLBLOCK_TIDS_PER_PAGE);
	*lo = (uint32) Min(l, (uint64) e->published);
	*hi = (uint32) Min(h, (uint64) e->published);
	if (*hi < *lo)
		*hi = *lo;
}

void
qs_col_scan_set_tidrange(TableScanDesc sscan, ItemPointer mintid,
						 ItemPointer maxtid)
{
	ColScanDesc s = (ColScanDesc) sscan;

	qs_scan_set_tidrange(s->delta, mintid, maxtid);
	s->tr_set = true;
	s->tr_min = *mintid;
	s->tr_max = *maxtid;
	qs_colscan_close_block(s);
	s->delta_done = false;
	s->main_pos = COL_BEFORE_MAIN;
	s->cur = -1;
	s->started = false;
}

/*
 * Delta rows in the range (the engine's TID range scan), then main rows in
 * it, block by block (each block's rows qs_colscan_tid_bounds keeps):
 * forward and backward, as a sequential scan is (qs_colscan_getnext), so
 * that a scrollable cursor can change direction anywhere, as on heap.
 */
bool
qs_col_scan_getnextslot_tidrange(TableScanDesc sscan, ScanDirection direction,
								 TupleTableSlot *slot)
{
	ColScanDesc s = (ColScanDesc) sscan;
	bool		main;

	qs_colscan_slot_desc(s, slot);
	/* a range below every virtual TID (or empty) needs no directory */
	main = ItemPointerCompare(&s->tr_min, &s->tr_max) <= 0 &&
		ItemPointerGetBlockNumberNoCheck(&s->tr_max) >= QS_VIRT_BASE;
	return qs_colscan_getnext(s, direction, slot,
							  qs_scan_getnextslot_tidrange, main);
}

