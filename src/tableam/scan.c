/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Engine scans: sequential (forward/backward, parallel, block range),
 *	  TID range, bitmap, sample, ANALYZE; TID fetches and index fetches.
 *
 * Page at a time, as heap's page mode: a page is share-locked once, the
 * offsets of the records visible to the snapshot are collected (heap's
 * HeapTupleSatisfiesVisibility on the header the layout presents), the lock
 * is dropped and the pin kept while the slot returns them one by one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/tsmapi.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "merge/moved.h"
#include "column/colam.h"

/* ------------------------------------------------------------------------
 * Visibility of one record, with hint-bit write-back for layouts that
 * assemble the header.
 * ------------------------------------------------------------------------
 */
/*
 * header_visible
 *		qs_record_visible for a page whose layout PL is resolved already
 *		(qs_page_layout), whose block number is known and whose record's
 *		header h (PL->get_header: into the page or *scratch) and length are
 *		read already: what a page scan does per record.
 */
static inline bool
header_visible(const QsPageLayout *PL, Relation rel, Buffer buf,
			   BlockNumber blkno, Page page, OffsetNumber off,
			   HeapTupleHeader h, uint32 len, Snapshot snapshot,
			   HeapTuple tup, HeapTupleHeaderData *scratch)
{
	bool		valid;
	uint16		infomask;

	tup->t_data = h;
	infomask = tup->t_data->t_infomask;
	tup->t_len = len;
	ItemPointerSet(&tup->t_self, blkno, off);
	tup->t_tableOid = RelationGetRelid(rel);
	valid = HeapTupleSatisfiesVisibility(tup, snapshot, buf);
	/* hint bits the test set (all it writes), into the page */
	if (tup->t_data == scratch && scratch->t_infomask != infomask)
		PL->set_header(page, off, scratch);
	if (unlikely(tup->t_data->t_infomask2 & QS_INFOMASK2_BITS))
		valid = qs_moved_visible(tup, snapshot, valid);
	return valid;
}

/*
 * mvcc_fast
 *		An MVCC snapshot's verdict on a record from its raw xmin, raw xmax
 *		and infomask alone, where HeapTupleSatisfiesMVCC would decide it by
 *		hint bits and the snapshot's xmin without looking further: 1
 *		visible (inserter committed before every xid the snapshot could
 *		consider running, never deleted or locked), 0 invisible (deleter
 *		committed before all of them: whatever the inserter, the snapshot
 *		sees the delete; not a multixact or a lock), -1 undecided (the
 *		caller asks HeapTupleSatisfiesVisibility).  No hint bit to write
 *		either way.  A merge's bits in infomask2 change neither verdict:
 *		qs_moved_visible never makes an invisible record visible, and it
 *		acts only on a record whose mark is live (qs_header_moved), which
 *		needs HEAP_XMAX_INVALID clear, while the visible verdict needs it
 *		set.  For non-serializable MVCC
 *		snapshots only (qs_page_visible's 'fast').
 */
static inline int
mvcc_fast(uint16 infomask, TransactionId xmin, TransactionId xmax,
		  Snapshot snapshot)
{
	if (infomask & HEAP_XMAX_INVALID)
	{
		if ((infomask & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN ||
			((infomask & HEAP_XMIN_COMMITTED) &&
			 TransactionIdPrecedes(xmin, snapshot->xmin)))
			return 1;
		return -1;
	}
	if ((infomask & (HEAP_XMIN_COMMITTED | HEAP_XMAX_COMMITTED |
					 HEAP_XMAX_IS_MULTI)) ==
		(HEAP_XMIN_COMMITTED | HEAP_XMAX_COMMITTED) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(infomask) &&
		TransactionIdPrecedes(xmax, snapshot->xmin))
		return 0;
	return -1;
}

bool
qs_record_visible(const QsPageLayout *L, Relation rel, Buffer buf, Page page,
				  OffsetNumber off, Snapshot snapshot, HeapTuple tup,
				  HeapTupleHeaderData *scratch)
{
	const QsPageLayout *PL = qs_page_layout(L, page);
	uint32		len;
	HeapTupleHeader h = PL->get_header(page, off, scratch, &len);

	return header_visible(PL, rel, buf, BufferGetBlockNumber(buf), page, off,
						  h, len, snapshot, tup, scratch);
}

/*
 * qs_page_visible
 *		Offsets of the records of the share-locked page 'buf' visible to
 *		'snapshot', into out[] (at most MaxHeapTuplesPerPage); only those in
 *		offs[0..noffs-1] when noffs >= 0.  Checks serializable conflicts as a
 *		heap scan does, and with lock_tids predicate-locks each visible record
 *		(bitmap scans).  Used by the engine's scans and by QuickstepScan.
 *
 *		On a PD_ALL_VISIBLE page every record is visible to every MVCC
 *		snapshot (see vacuum.c), so the per-record test is skipped, as heap's
 *		page-at-a-time scan skips it; not for snapshots taken during
 *		recovery, as heap does not trust the page flag there either (it may
 *		reach a standby ahead of the recovery conflict that would cancel
 *		snapshots which still miss an insert).  Serializable transactions
 *		still check every record for a conflict out, as heap does.
 */
/*
 * hot_chain_members
 *		The members of the HOT chains whose roots are offs[0..noffs-1] (a
 *		bitmap's TIDs of one page), ascending, into out[] (room for
 *		MaxHeapTuplesPerPage); returns how many.  As heap's bitmap scan
 *		follows each TID with heap_hot_search_buffer: the snapshot sees at
 *		most one member of a chain, which the caller then finds by testing
 *		them all.  A root that is a heap-only record is no root: skipped.
 */
static int
hot_chain_members(const QsPageLayout *L, Page page, BlockNumber blkno,
				  OffsetNumber maxoff, const OffsetNumber *offs, int noffs,
				  OffsetNumber *out)
{
	bool		seen[MaxHeapTuplesPerPage + 1] = {0};
	int			n;

	for (int i = 0; i < noffs; i++)
	{
		OffsetNumber off = offs[i];
		TransactionId prev_xmax = InvalidTransactionId;
		bool		at_start = true;

		while (off >= FirstOffsetNumber && off <= maxoff && !seen[off])
		{
			QsRecordState st = L->record_state(page, off);
			HeapTupleHeaderData scratch;
			HeapTupleHeader h;

			if (st == QS_REC_REDIRECT && at_start)
			{
				off = L->redirect_target(page, off);
				at_start = false;
				continue;
			}
			if (st != QS_REC_NORMAL)
				break;
			h = L->get_header(page, off, &scratch, NULL);
			if ((at_start && HeapTupleHeaderIsHeapOnly(h)) ||
				(TransactionIdIsValid(prev_xmax) &&
				 !TransactionIdEquals(prev_xmax, HeapTupleHeaderGetXmin(h))))
				break;
			seen[off] = true;
			if (!HeapTupleHeaderIsHotUpdated(h) ||
				ItemPointerGetBlockNumber(&h->t_ctid) != blkno)
				break;
			prev_xmax = HeapTupleHeaderGetUpdateXid(h);
			off = ItemPointerGetOffsetNumber(&h->t_ctid);
			at_start = false;
		}
	}
	n = 0;
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		if (seen[off])
			out[n++] = off;
	return n;
}

int
qs_page_visible(const QsPageLayout *L, Relation rel, Buffer buf,
				Snapshot snapshot, const OffsetNumber *offs, int noffs,
				bool lock_tids, OffsetNumber *out)
{
	Page		page = BufferGetPage(buf);
	OffsetNumber maxoff;
	int			n = 0;
	bool		ssi = CheckForSerializableConflictOutNeeded(rel, snapshot);
	ItemPointerData links[MaxHeapTuplesPerPage];
	int			nlinks = 0;
	OffsetNumber members[MaxHeapTuplesPerPage];
	OffsetNumber cand[MaxHeapTuplesPerPage];
	int			ncand = 0;
	QsMvccHint	hintbuf[MaxHeapTuplesPerPage];
	QsMvccHint *hints = NULL;
	BlockNumber blkno = BufferGetBlockNumber(buf);
	bool		fast = snapshot->snapshot_type == SNAPSHOT_MVCC && !ssi;
	bool		all_visible = snapshot->snapshot_type == SNAPSHOT_MVCC &&
		!snapshot->takenDuringRecovery && PageIsAllVisible(page);

	/* an NSM page of a PAX/HPL table: resolved once, called directly */
	L = qs_page_layout(L, page);
	maxoff = L->max_offset(page);
	/* the arrays below hold a page's records; no layout makes more */
	if (maxoff > MaxHeapTuplesPerPage)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of relation \"%s\" has %u record slots, more than %d",
						blkno, RelationGetRelationName(rel), maxoff,
						(int) MaxHeapTuplesPerPage)));

	/* a bitmap's TIDs name HOT chains: their members are tested */
	if (noffs >= 0 && L->mark_redirect != NULL)
	{
		noffs = hot_chain_members(L, page, blkno, maxoff,
								  offs, noffs, members);
		offs = members;
	}

	/*
	 * The common case of a whole all-visible page: no per-record test.
	 * Without free slots (PD_HAS_FREE_LINES clear, which VACUUM decided
	 * together with the flag, vacuum.c) the records are exactly the offsets
	 * 1..maxoff; else the layout lists them.
	 */
	if (all_visible && !ssi && noffs < 0)
	{
		if (!PageHasFreeLinePointers(page))
		{
			for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
				out[n++] = off;
			return n;
		}
		if (L->normal_offsets)
			return L->normal_offsets(page, out);
	}

	/*
	 * The NORMAL records to test: a whole page's from the layout in one
	 * pass (normal_offsets), not by a record_state call per slot -- on the
	 * pages of HOT chains that TPC-B's tellers and branches are, most slots
	 * are redirects and dead versions, and the per-slot calls were 11k
	 * instructions per transaction (bench/w2/callgrind.sh, issue 16).
	 */
	if (noffs < 0 && L->normal_offsets)
	{
		ncand = L->normal_offsets(page, cand);
	}
	else if (noffs < 0)
	{
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
			if (L->record_state(page, off) == QS_REC_NORMAL)
				cand[ncand++] = off;
	}
	else
	{
		for (int i = 0; i < noffs; i++)
			if (offs[i] <= maxoff &&
				L->record_state(page, offs[i]) == QS_REC_NORMAL)
				cand[ncand++] = offs[i];
	}

	/* the fast paths' fields of every candidate, when the layout has them */
	if (fast && !all_visible && ncand > 0 && L->mvcc_hints)
	{
		hints = hintbuf;
		L->mvcc_hints(page, cand, ncand, hints);
	}

	for (int i = 0; i < ncand; i++)
	{
		OffsetNumber off = cand[i];
		HeapTupleData tup;
		HeapTupleHeaderData scratch;
		HeapTupleHeader h;
		uint32		len;
		bool		valid;
		int			verdict;

		if (all_visible)
		{
			if (!ssi)
			{
				/* nothing to lock either: PredicateLockTID would do nothing */
				out[n++] = off;
				continue;
			}
			tup.t_data = L->get_header(page, off, &scratch, &len);
			tup.t_len = len;
			ItemPointerSet(&tup.t_self, blkno, off);
			tup.t_tableOid = RelationGetRelid(rel);
			HeapCheckForSerializableConflictOut(true, rel, &tup, buf, snapshot);
			if (lock_tids)
				PredicateLockTID(rel, &tup.t_self, snapshot,
								 HeapTupleHeaderGetXmin(tup.t_data));
			out[n++] = off;
			continue;
		}
		h = NULL;
		verdict = -1;
		if (hints)
			verdict = mvcc_fast(hints[i].infomask, hints[i].xmin,
								hints[i].xmax, snapshot);
		else if (fast)
		{
			h = L->get_header(page, off, &scratch, &len);
			verdict = mvcc_fast(h->t_infomask, HeapTupleHeaderGetRawXmin(h),
								HeapTupleHeaderGetRawXmax(h), snapshot);
		}
		if (verdict == 0)
			continue;
		if (verdict == 1)
		{
			if (lock_tids)
			{
				ItemPointerData tid;

				ItemPointerSet(&tid, blkno, off);
				if (hints)
					PredicateLockTID(rel, &tid, snapshot,
									 (hints[i].infomask & HEAP_XMIN_FROZEN) ==
									 HEAP_XMIN_FROZEN ? FrozenTransactionId :
									 hints[i].xmin);
				else
					PredicateLockTID(rel, &tid, snapshot,
									 HeapTupleHeaderGetXmin(h));
			}
			out[n++] = off;
			continue;
		}
		if (h == NULL)
			h = L->get_header(page, off, &scratch, &len);
		valid = header_visible(L, rel, buf, blkno, page, off, h, len,
							   snapshot, &tup, &scratch);
		/* ssi: decided once per page, as PG 16's heapgetpage decides */
		if (ssi)
			HeapCheckForSerializableConflictOut(valid, rel, &tup, buf, snapshot);
		/*
		 * The lock before the merge's state is read: a merge still running
		 * then commits after it, and a writer of its main copy that sees the
		 * merge checks the lock (the origin TID); a merge committed already
		 * is the pending conflict-out check's (src/merge/README.md section 2)
		 */
		if (valid && lock_tids)
			PredicateLockTID(rel, &tup.t_self, snapshot,
							 HeapTupleHeaderGetXmin(tup.t_data));
		if (ssi && qs_moved_conflict_pending(tup.t_data, valid, &links[nlinks]))
			nlinks++;
		if (valid)
			out[n++] = off;
	}

	/*
	 * Rows a merge moved that this serializable read counted at their delta
	 * versions: their writers since are at the main copies, read with the
	 * page unlocked (moved.c).  The offsets found stay valid: the pin keeps
	 * the records in place, and their visibility is the snapshot's.
	 */
	if (nlinks > 0)
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		for (int i = 0; i < nlinks; i++)
			qs_moved_conflict_out(rel, &links[i], snapshot);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
	}
	return n;
}

/*
 * Load block 'blkno' into the scan: keep a pin, collect visible offsets
 * (only those in offs[0..noffs-1] when noffs >= 0).
 */
static void
qs_scan_load_page(QsScanDesc scan, BlockNumber blkno,
				  const OffsetNumber *offs, int noffs, bool lock_tids)
{
	Relation	rel = scan->base.rs_rd;

	if (BufferIsValid(scan->cbuf))
	{
		ReleaseBuffer(scan->cbuf);
		scan->cbuf = InvalidBuffer;
	}
	CHECK_FOR_INTERRUPTS();

	scan->cbuf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
									scan->strategy);
	scan->cblock = blkno;
	qs_page_prune_opt(rel, scan->layout, scan->cbuf);
	LockBuffer(scan->cbuf, BUFFER_LOCK_SHARE);
	scan->ntuples = qs_page_visible(scan->layout, rel, scan->cbuf,
									scan->base.rs_snapshot, offs, noffs,
									lock_tids, scan->vis);
	LockBuffer(scan->cbuf, BUFFER_LOCK_UNLOCK);
}

static void
qs_scan_reset(QsScanDesc scan)
{
	if (BufferIsValid(scan->cbuf))
		ReleaseBuffer(scan->cbuf);
	scan->cbuf = InvalidBuffer;
	scan->cblock = InvalidBlockNumber;
	scan->inited = false;
	scan->ntuples = 0;
	scan->cindex = 0;
	if (scan->base.rs_parallel == NULL)
		scan->nblocks = RelationGetNumberOfBlocks(scan->base.rs_rd);
	else
		scan->nblocks = ((ParallelBlockTableScanDesc) scan->base.rs_parallel)->phs_nblocks;
	if (!scan->limits_set)
	{
		scan->startblock = 0;
		scan->numblocks = InvalidBlockNumber;
	}
	if ((scan->base.rs_flags & SO_ALLOW_STRAT) &&
		scan->nblocks > (BlockNumber) (NBuffers / 4) &&
		!RELATION_IS_LOCAL(scan->base.rs_rd))
	{
		if (scan->strategy == NULL)
			scan->strategy = GetAccessStrategy(BAS_BULKREAD);
	}
	else if (scan->strategy != NULL)
	{
		FreeAccessStrategy(scan->strategy);
		scan->strategy = NULL;
	}
}

TableScanDesc
qs_scan_begin(Relation rel, Snapshot snapshot, int nkeys, ScanKey key,
			  ParallelTableScanDesc pscan, uint32 flags)
{
	QsScanDesc	scan;

	RelationIncrementReferenceCount(rel);
	scan = palloc0(sizeof(QsScanDescData));
	scan->base.rs_rd = rel;
	scan->base.rs_snapshot = snapshot;
	scan->base.rs_nkeys = nkeys;
	scan->base.rs_key = NULL;
	scan->base.rs_flags = flags;
	scan->base.rs_parallel = pscan;
	scan->layout = qs_layout_of(rel);
	scan->cbuf = InvalidBuffer;
	if (nkeys > 0)
	{
		scan->base.rs_key = palloc(sizeof(ScanKeyData) * nkeys);
		memcpy(scan->base.rs_key, key, sizeof(ScanKeyData) * nkeys);
	}
	if (pscan != NULL)
		scan->pwork = palloc0(sizeof(ParallelBlockTableScanWorkerData));

	/* like heap: sequential and sample scans lock the whole relation */
	if (flags & (SO_TYPE_SEQSCAN | SO_TYPE_SAMPLESCAN | SO_TYPE_TIDRANGESCAN))
	{
		if (snapshot && IsMVCCSnapshot(snapshot))
			PredicateLockRelation(rel, snapshot);
	}
	/* pg_stat_*_tables.seq_scan counts sequential scans, as heap's initscan */
	if (flags & SO_TYPE_SEQSCAN)
		pgstat_count_heap_scan(rel);
	qs_scan_reset(scan);
	return (TableScanDesc) scan;
}

void
qs_scan_rescan(TableScanDesc sscan, ScanKey key, bool set_params,
			   bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	if (set_params)
	{
		if (allow_strat)
			scan->base.rs_flags |= SO_ALLOW_STRAT;
		else
			scan->base.rs_flags &= ~SO_ALLOW_STRAT;
		if (allow_sync)
			scan->base.rs_flags |= SO_ALLOW_SYNC;
		else
			scan->base.rs_flags &= ~SO_ALLOW_SYNC;
		if (allow_pagemode)
			scan->base.rs_flags |= SO_ALLOW_PAGEMODE;
		else
			scan->base.rs_flags &= ~SO_ALLOW_PAGEMODE;
	}
	if (key && scan->base.rs_nkeys > 0)
		memcpy(scan->base.rs_key, key, sizeof(ScanKeyData) * scan->base.rs_nkeys);
	qs_scan_reset(scan);
	if (scan->base.rs_flags & SO_TYPE_SEQSCAN)
		pgstat_count_heap_scan(scan->base.rs_rd);
}

void
qs_scan_end(TableScanDesc sscan)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	if (BufferIsValid(scan->cbuf))
		ReleaseBuffer(scan->cbuf);
	if (scan->strategy)
		FreeAccessStrategy(scan->strategy);
	RelationDecrementReferenceCount(scan->base.rs_rd);
	if (scan->base.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs_snapshot);
	if (scan->base.rs_key)
		pfree(scan->base.rs_key);
	if (scan->pwork)
		pfree(scan->pwork);
	pfree(scan);
}

/* restrict a (non-parallel) scan to blocks [start, start+num) */
void
qs_scan_set_limits(TableScanDesc sscan, BlockNumber start, BlockNumber num)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	scan->limits_set = true;
	scan->startblock = start;
	scan->numblocks = num;
}

/*
 * A sequential scan passes the pages of 'skip' (sorted, disjoint; the
 * caller's memory, kept until the scan ends) unread: a column table's block
 * runs, which hold no record of the engine's.  The caller vouches that no
 * page of them can gain a record the scan's snapshot sees while it runs.
 */
void
qs_scan_skip_pages(TableScanDesc sscan, const QsPageRange *skip, int nskip)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	scan->skip = skip;
	scan->nskip = nskip;
}

static BlockNumber qs_scan_adjacent_block(QsScanDesc scan, ScanDirection dir);

/* next block of a sequential scan, InvalidBlockNumber at the end */
static BlockNumber
qs_scan_next_block(QsScanDesc scan, ScanDirection dir)
{
	BlockNumber next = qs_scan_adjacent_block(scan, dir);
	int			r;

	while (next != InvalidBlockNumber &&
		   (r = qs_page_range_find(scan->skip, scan->nskip, next)) >= 0)
	{
		/* the parallel allocator hands out every page: take the next one */
		if (scan->base.rs_parallel != NULL)
			next = qs_scan_adjacent_block(scan, dir);
		else
		{
			/* from the range's last (first) page, the adjacent one */
			scan->cblock = ScanDirectionIsForward(dir) ?
				scan->skip[r].end - 1 : scan->skip[r].start;
			next = qs_scan_adjacent_block(scan, dir);
		}
	}
	return next;
}

/* the block after (before) the current one, InvalidBlockNumber at the end */
static BlockNumber
qs_scan_adjacent_block(QsScanDesc scan, ScanDirection dir)
{
	BlockNumber endblock;

	if (scan->base.rs_parallel != NULL)
	{
		ParallelBlockTableScanDesc pb = (ParallelBlockTableScanDesc) scan->base.rs_parallel;

		if (!scan->inited)
		{
			table_block_parallelscan_startblock_init(scan->base.rs_rd,
													 scan->pwork, pb);
			scan->inited = true;
		}
		return table_block_parallelscan_nextpage(scan->base.rs_rd,
												 scan->pwork, pb);
	}

	endblock = scan->nblocks;
	if (scan->numblocks != InvalidBlockNumber &&
		scan->startblock + scan->numblocks < endblock)
		endblock = scan->startblock + scan->numblocks;
	if (scan->startblock >= endblock)
		return InvalidBlockNumber;

	if (ScanDirectionIsForward(dir))
	{
		if (!scan->inited)
		{
			scan->inited = true;
			return scan->startblock;
		}
		if (scan->cblock == InvalidBlockNumber || scan->cblock + 1 >= endblock)
			return InvalidBlockNumber;
		return scan->cblock + 1;
	}
	else
	{
		if (!scan->inited)
		{
			scan->inited = true;
			return endblock - 1;
		}
		if (scan->cblock == InvalidBlockNumber || scan->cblock <= scan->startblock)
			return InvalidBlockNumber;
		return scan->cblock - 1;
	}
}

bool
qs_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					TupleTableSlot *slot)
{
	QsScanDesc	scan = (QsScanDesc) sscan;
	bool		backward = ScanDirectionIsBackward(direction);

	if (scan->inited && scan->cblock != InvalidBlockNumber)
	{
		/* continue within the current page */
		if (backward)
			scan->cindex--;
		else
			scan->cindex++;
	}
	for (;;)
	{
		if (scan->cblock != InvalidBlockNumber &&
			scan->cindex >= 0 && scan->cindex < scan->ntuples)
		{
			Page		page = BufferGetPage(scan->cbuf);
			Snapshot	snapshot = scan->base.rs_snapshot;

			/*
			 * Page at a time is exact for MVCC snapshots only.  Others
			 * (SnapshotDirty, SnapshotSelf) answer for "now" and may report
			 * in the snapshot (SnapshotDirty's xmin/xmax) about the record
			 * checked: check the record again, as heap's tuple-at-a-time
			 * mode does, right before returning it.
			 */
			if (snapshot != NULL && !IsMVCCSnapshot(snapshot) &&
				snapshot->snapshot_type != SNAPSHOT_ANY)
			{
				HeapTupleData tup;
				HeapTupleHeaderData scratch;
				bool		valid;

				LockBuffer(scan->cbuf, BUFFER_LOCK_SHARE);
				/* VACUUM may have freed the slot since (a dirty snapshot) */
				valid = qs_page_record_state(scan->layout, page,
											 scan->vis[scan->cindex]) == QS_REC_NORMAL &&
					qs_record_visible(scan->layout, scan->base.rs_rd,
									  scan->cbuf, page,
									  scan->vis[scan->cindex], snapshot,
									  &tup, &scratch);
				LockBuffer(scan->cbuf, BUFFER_LOCK_UNLOCK);
				if (!valid)
				{
					if (backward)
						scan->cindex--;
					else
						scan->cindex++;
					continue;
				}
			}
			qs_page_store_record(scan->layout, scan->base.rs_rd, scan->cbuf, page,
									   scan->vis[scan->cindex], slot, NULL);
			pgstat_count_heap_getnext(scan->base.rs_rd);
			return true;
		}
		/* move to the next page */
		{
			BlockNumber next;

			next = qs_scan_next_block(scan, direction);
			if (next == InvalidBlockNumber)
			{
				if (BufferIsValid(scan->cbuf))
					ReleaseBuffer(scan->cbuf);
				scan->cbuf = InvalidBuffer;
				scan->cblock = InvalidBlockNumber;
				scan->ntuples = 0;
				ExecClearTuple(slot);
				/* a later call in the other direction restarts from an end */
				scan->inited = false;
				return false;
			}
			qs_scan_load_page(scan, next, NULL, -1, false);
			scan->cindex = backward ? scan->ntuples - 1 : 0;
		}
	}
}

/* ------------------------------------------------------------------------
 * TID range scans
 * ------------------------------------------------------------------------
 */
void
qs_scan_set_tidrange(TableScanDesc sscan, ItemPointer mintid,
					 ItemPointer maxtid)
{
	QsScanDesc	scan = (QsScanDesc) sscan;
	BlockNumber startblk,
				endblk;

	scan->mintid = *mintid;
	scan->maxtid = *maxtid;
	startblk = ItemPointerGetBlockNumberNoCheck(mintid);
	endblk = ItemPointerGetBlockNumberNoCheck(maxtid);
	if (ItemPointerCompare(mintid, maxtid) > 0 || startblk >= scan->nblocks)
	{
		qs_scan_set_limits(sscan, 0, 0);
	}
	else
	{
		if (endblk >= scan->nblocks)
			endblk = scan->nblocks - 1;
		qs_scan_set_limits(sscan, startblk, endblk - startblk + 1);
	}
	qs_scan_reset(scan);
}

bool
qs_scan_getnextslot_tidrange(TableScanDesc sscan, ScanDirection direction,
							 TupleTableSlot *slot)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	for (;;)
	{
		if (!qs_scan_getnextslot(sscan, direction, slot))
			return false;
		if (ItemPointerCompare(&slot->tts_tid, &scan->mintid) < 0)
		{
			if (ScanDirectionIsBackward(direction))
			{
				ExecClearTuple(slot);
				return false;
			}
			continue;
		}
		if (ItemPointerCompare(&slot->tts_tid, &scan->maxtid) > 0)
		{
			if (ScanDirectionIsForward(direction))
			{
				ExecClearTuple(slot);
				return false;
			}
			continue;
		}
		return true;
	}
}

/* ------------------------------------------------------------------------
 * Bitmap scans
 * ------------------------------------------------------------------------
 */
#ifndef QS_BITMAP_ONE_CALLBACK
bool
qs_scan_bitmap_next_block(TableScanDesc sscan, TBMIterateResult *tbmres)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	scan->cindex = 0;
	scan->ntuples = 0;
	if (tbmres->blockno >= scan->nblocks)
		return false;
	qs_scan_load_page(scan, tbmres->blockno,
					  tbmres->ntuples >= 0 ? tbmres->offsets : NULL,
					  tbmres->ntuples, true);
	return scan->ntuples > 0;
}

bool
qs_scan_bitmap_next_tuple(TableScanDesc sscan, TBMIterateResult *tbmres,
						  TupleTableSlot *slot)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	if (scan->cindex < 0 || scan->cindex >= scan->ntuples)
		return false;
	qs_page_store_record(scan->layout, scan->base.rs_rd, scan->cbuf,
							   BufferGetPage(scan->cbuf),
							   scan->vis[scan->cindex], slot, NULL);
	scan->cindex++;
	pgstat_count_heap_fetch(scan->base.rs_rd);
	return true;
}
#else
/*
 * PG 18: one page of the bitmap loaded (qs_scan_bitmap_load), then its
 * visible records taken one by one (qs_scan_bitmap_take).  Column tables
 * call the two for the delta's pages of their own iteration.
 */
void
qs_scan_bitmap_load(TableScanDesc sscan, TBMIterateResult *tbmres)
{
	QsScanDesc	scan = (QsScanDesc) sscan;
	OffsetNumber offs[TBM_MAX_TUPLES_PER_PAGE];
	int			noffs = -1;

	scan->ntuples = 0;
	scan->cindex = 0;
	if (tbmres->blockno >= scan->nblocks)
		return;
	if (!tbmres->lossy)
		noffs = tbm_extract_page_tuple(tbmres, offs, TBM_MAX_TUPLES_PER_PAGE);
	scan->recheck = tbmres->recheck;
	qs_scan_load_page(scan, tbmres->blockno, noffs >= 0 ? offs : NULL,
					  noffs, true);
	scan->cindex = 0;
}

bool
qs_scan_bitmap_take(TableScanDesc sscan, TupleTableSlot *slot, bool *recheck)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	if (scan->cbuf == InvalidBuffer || scan->cindex >= scan->ntuples)
		return false;
	*recheck = scan->recheck;
	qs_page_store_record(scan->layout, scan->base.rs_rd, scan->cbuf,
						 BufferGetPage(scan->cbuf),
						 scan->vis[scan->cindex], slot, NULL);
	scan->cindex++;
	pgstat_count_heap_fetch(scan->base.rs_rd);
	return true;
}

bool
qs_scan_bitmap_next_tuple(TableScanDesc sscan, TupleTableSlot *slot,
						  bool *recheck, uint64 *lossy_pages,
						  uint64 *exact_pages)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	while (!qs_scan_bitmap_take(sscan, slot, recheck))
	{
		TBMIterateResult tbmres;

		CHECK_FOR_INTERRUPTS();
		if (!tbm_iterate(&scan->base.st.rs_tbmiterator, &tbmres))
			return false;
		if (tbmres.blockno >= scan->nblocks)
			continue;
		qs_scan_bitmap_load(sscan, &tbmres);
		if (tbmres.lossy)
			(*lossy_pages)++;
		else
			(*exact_pages)++;
	}
	return true;
}
#endif

/* ------------------------------------------------------------------------
 * Sample scans (TABLESAMPLE)
 * ------------------------------------------------------------------------
 */
bool
qs_scan_sample_next_block(TableScanDesc sscan, SampleScanState *scanstate)
{
	QsScanDesc	scan = (QsScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	BlockNumber blockno;

	if (scan->nblocks == 0)
		return false;
	if (tsm->NextSampleBlock)
		blockno = tsm->NextSampleBlock(scanstate, scan->nblocks);
	else
	{
		if (!scan->inited || scan->cblock == InvalidBlockNumber)
			blockno = 0;
		else
		{
			blockno = scan->cblock + 1;
			if (blockno >= scan->nblocks)
				blockno = InvalidBlockNumber;
		}
	}
	if (!BlockNumberIsValid(blockno))
	{
		if (BufferIsValid(scan->cbuf))
			ReleaseBuffer(scan->cbuf);
		scan->cbuf = InvalidBuffer;
		scan->cblock = InvalidBlockNumber;
		scan->inited = false;
		return false;
	}
	qs_scan_load_page(scan, blockno, NULL, -1, false);
	scan->inited = true;
	return true;
}

/* a sample scan of a column table chose delta block 'blockno' */
void
qs_scan_sample_load(TableScanDesc sscan, BlockNumber blockno)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	qs_scan_load_page(scan, blockno, NULL, -1, false);
	scan->inited = true;
}

BlockNumber
qs_scan_nblocks(TableScanDesc sscan)
{
	return ((QsScanDesc) sscan)->nblocks;
}

bool
qs_scan_sample_next_tuple(TableScanDesc sscan, SampleScanState *scanstate,
						  TupleTableSlot *slot)
{
	QsScanDesc	scan = (QsScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	Page		page = BufferGetPage(scan->cbuf);
	OffsetNumber maxoff = qs_page_max_offset(scan->layout, page);

	for (;;)
	{
		OffsetNumber off;
		bool		found = false;

		CHECK_FOR_INTERRUPTS();
		off = tsm->NextSampleTuple(scanstate, scan->cblock, maxoff);
		if (!OffsetNumberIsValid(off))
		{
			ExecClearTuple(slot);
			return false;
		}
		/* visible? (vis[] is sorted) */
		{
			int			lo = 0,
						hi = scan->ntuples - 1;

			while (lo <= hi)
			{
				int			mid = (lo + hi) / 2;

				if (scan->vis[mid] == off)
				{
					found = true;
					break;
				}
				if (scan->vis[mid] < off)
					lo = mid + 1;
				else
					hi = mid - 1;
			}
		}
		if (!found)
			continue;
		qs_page_store_record(scan->layout, scan->base.rs_rd, scan->cbuf, page, off,
								   slot, NULL);
		pgstat_count_heap_getnext(scan->base.rs_rd);
		return true;
	}
}

/* ------------------------------------------------------------------------
 * ANALYZE
 * ------------------------------------------------------------------------
 */
#ifdef QS_ANALYZE_STREAM
bool
qs_scan_analyze_next_block(TableScanDesc sscan, ReadStream *stream)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	scan->cbuf = read_stream_next_buffer(stream, NULL);
	if (!BufferIsValid(scan->cbuf))
		return false;
	scan->cblock = BufferGetBlockNumber(scan->cbuf);
	LockBuffer(scan->cbuf, BUFFER_LOCK_SHARE);
	scan->analyze_off = FirstOffsetNumber;
	return true;
}
#else
bool
qs_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
						   BufferAccessStrategy bstrategy)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	scan->cblock = blockno;
	scan->cbuf = ReadBufferExtended(scan->base.rs_rd, MAIN_FORKNUM, blockno,
									RBM_NORMAL, bstrategy);
	LockBuffer(scan->cbuf, BUFFER_LOCK_SHARE);
	scan->analyze_off = FirstOffsetNumber;
	return true;
}
#endif

bool
qs_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
						   double *liverows, double *deadrows,
						   TupleTableSlot *slot)
{
	QsScanDesc	scan = (QsScanDesc) sscan;
	const QsPageLayout *L = scan->layout;
	Relation	rel = scan->base.rs_rd;
	Page		page = BufferGetPage(scan->cbuf);
	OffsetNumber maxoff = qs_page_max_offset(L, page);

	for (; scan->analyze_off <= maxoff; scan->analyze_off++)
	{
		OffsetNumber off = scan->analyze_off;
		QsRecordState st = qs_page_record_state(L, page, off);
		HeapTupleData tup;
		HeapTupleHeaderData scratch;
		uint32		len;
		bool		sample_it = false;

		if (st == QS_REC_DEAD)
		{
			*deadrows += 1;
			continue;
		}
		if (st != QS_REC_NORMAL)
			continue;
		tup.t_data = qs_page_get_header(L, page, off, &scratch, &len);
		tup.t_len = len;
		ItemPointerSet(&tup.t_self, scan->cblock, off);
		tup.t_tableOid = RelationGetRelid(rel);
		switch (HeapTupleSatisfiesVacuum(&tup, OldestXmin, scan->cbuf))
		{
			case HEAPTUPLE_LIVE:
				sample_it = true;
				*liverows += 1;
				break;
			case HEAPTUPLE_DEAD:
			case HEAPTUPLE_RECENTLY_DEAD:
				*deadrows += 1;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup.t_data)))
				{
					sample_it = true;
					*liverows += 1;
				}
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tup.t_data)))
					*deadrows += 1;
				else
				{
					sample_it = true;
					*liverows += 1;
				}
				break;
		}
		if (tup.t_data == &scratch)
			qs_page_set_header(L, page, off, &scratch);
		if (sample_it)
		{
			qs_page_store_record(L, rel, scan->cbuf, page, off, slot, NULL);
			scan->analyze_off++;
			return true;
		}
	}
	UnlockReleaseBuffer(scan->cbuf);
	scan->cbuf = InvalidBuffer;
	ExecClearTuple(slot);
	return false;
}

/* ------------------------------------------------------------------------
 * Fetch by TID
 * ------------------------------------------------------------------------
 */

/*
 * qs_fetch
 *		Read the record at tid; true if it is visible to snapshot.  With a
 *		record there, tup is filled (t_data pointing into page or scratch)
 *		and *buf is returned pinned (unlocked); without one t_data is NULL
 *		and no pin is kept.
 */
bool
qs_fetch(Relation rel, const QsPageLayout *L, ItemPointer tid,
		 Snapshot snapshot, HeapTuple tup, HeapTupleHeaderData *scratch,
		 Buffer *buf)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Page		page;
	bool		valid;

	tup->t_data = NULL;
	*buf = InvalidBuffer;
	if (blkno >= RelationGetNumberOfBlocks(rel))
		return false;
	*buf = ReadBuffer(rel, blkno);
	LockBuffer(*buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(*buf);

	/*
	 * A physical TID names a delta record only.  A column table's
	 * delete-map page answers for main rows through its layout, but only
	 * under their virtual TIDs: a stale or typed-in ctid of such a page
	 * (its page may have held delta rows before VACUUM gave it to a delete
	 * map) names no row, as heap's TID of an unused line pointer.
	 */
	if (qs_page_layout(L, page) == &qs_colpage_layout ||
		qs_page_record_state(L, page, off) != QS_REC_NORMAL)
	{
		UnlockReleaseBuffer(*buf);
		*buf = InvalidBuffer;
		return false;
	}
	valid = qs_record_visible(L, rel, *buf, page, off, snapshot, tup, scratch);
	if (valid)
		PredicateLockTID(rel, &tup->t_self, snapshot,
						 HeapTupleHeaderGetXmin(tup->t_data));
	HeapCheckForSerializableConflictOut(valid, rel, tup, *buf, snapshot);
	{
		ItemPointerData link;
		bool		pending = CheckForSerializableConflictOutNeeded(rel, snapshot) &&
			qs_moved_conflict_pending(tup->t_data, valid, &link);

		LockBuffer(*buf, BUFFER_LOCK_UNLOCK);
		if (pending)
			qs_moved_conflict_out(rel, &link, snapshot);
	}
	return valid;
}

bool
qs_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
					 TupleTableSlot *slot)
{
	const QsPageLayout *L = qs_layout_of(rel);
	HeapTupleData tup;
	HeapTupleHeaderData scratch;
	Buffer		buf;

	if (qs_fetch(rel, L, tid, snapshot, &tup, &scratch, &buf))
	{
		/* the table's own slot kind (which keeps the record's header) */
		if (slot->tts_ops == L->slot_ops())
			qs_page_store_record(L, rel, buf, BufferGetPage(buf),
								 ItemPointerGetOffsetNumber(tid), slot, NULL);
		else
		{
			/*
			 * EvalPlanQual re-fetches a row marked by reference into the
			 * scan node's own slot, which is virtual for QuickstepScan (a
			 * CustomScan cannot choose its slot type in PG 15): store a
			 * copy of the record.
			 */
			HeapTuple	copy;

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			copy = qs_page_copy_record(L, rel, BufferGetPage(buf),
								  ItemPointerGetBlockNumber(tid),
								  ItemPointerGetOffsetNumber(tid));
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			ExecForceStoreHeapTuple(copy, slot, true);
			slot->tts_tid = *tid;
			slot->tts_tableOid = RelationGetRelid(rel);
		}
		ReleaseBuffer(buf);
		return true;
	}
	if (BufferIsValid(buf))
		ReleaseBuffer(buf);
	return false;
}

bool
qs_tuple_tid_valid(TableScanDesc sscan, ItemPointer tid)
{
	QsScanDesc	scan = (QsScanDesc) sscan;

	return ItemPointerIsValid(tid) &&
		ItemPointerGetBlockNumber(tid) < scan->nblocks;
}

bool
qs_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							Snapshot snapshot)
{
	const QsPageLayout *L = qs_layout_of(rel);
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	HeapTupleData tup;
	HeapTupleHeaderData scratch;
	Buffer		buf;
	bool		res;

	if (TTS_IS_BUFFERTUPLE(slot) && BufferIsValid(bslot->buffer))
	{
		buf = bslot->buffer;
		IncrBufferRefCount(buf);
	}
	else
		buf = ReadBuffer(rel, ItemPointerGetBlockNumber(&slot->tts_tid));
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	res = qs_record_visible(L, rel, buf, BufferGetPage(buf),
							ItemPointerGetOffsetNumber(&slot->tts_tid),
							snapshot, &tup, &scratch);
	UnlockReleaseBuffer(buf);
	return res;
}

void
qs_get_latest_tid(TableScanDesc sscan, ItemPointer tid)
{
	qs_follow_latest_tid(sscan->rs_rd, sscan->rs_snapshot, tid, *tid,
						 InvalidTransactionId);
}

/*
 * The update chain from 'start' (a version whose inserter must be
 * 'priorXmax' when valid): *tid gets each version visible to snapshot.
 * Column tables start their walk at a main row's successor.
 */
void
qs_follow_latest_tid(Relation rel, Snapshot snapshot, ItemPointer tid,
					 ItemPointerData start, TransactionId priorXmax)
{
	const QsPageLayout *L = qs_layout_of(rel);
	ItemPointerData ctid = start;

	for (;;)
	{
		Buffer		buf;
		Page		page;
		HeapTupleData tp;
		HeapTupleHeaderData scratch;
		OffsetNumber off = ItemPointerGetOffsetNumber(&ctid);
		bool		valid;

		buf = ReadBuffer(rel, ItemPointerGetBlockNumber(&ctid));
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (qs_page_record_state(L, page, off) != QS_REC_NORMAL)
		{
			UnlockReleaseBuffer(buf);
			break;
		}
		valid = qs_record_visible(L, rel, buf, page, off, snapshot, &tp, &scratch);
		if (TransactionIdIsValid(priorXmax) &&
			!TransactionIdEquals(priorXmax, HeapTupleHeaderGetXmin(tp.t_data)))
		{
			UnlockReleaseBuffer(buf);
			break;
		}
		HeapCheckForSerializableConflictOut(valid, rel, &tp, buf, snapshot);
		if (valid)
			*tid = ctid;
		if ((tp.t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HeapTupleHeaderIsOnlyLocked(tp.t_data) ||
			HeapTupleHeaderIndicatesMovedPartitions(tp.t_data) ||
			ItemPointerEquals(&tp.t_self, &tp.t_data->t_ctid))
		{
			UnlockReleaseBuffer(buf);
			break;
		}
		ctid = tp.t_data->t_ctid;
		priorXmax = HeapTupleHeaderGetUpdateXid(tp.t_data);
		UnlockReleaseBuffer(buf);

		/* moved by a merge: the chain goes on at the main copy */
		if (qs_tid_is_virtual(&ctid))
		{
			qs_colmain_latest_tid(rel, snapshot, tid, ctid);
			break;
		}
	}
}

/* ------------------------------------------------------------------------
 * Index fetches
 * ------------------------------------------------------------------------
 */
typedef struct QsIndexFetchData
{
	IndexFetchTableData base;
	const QsPageLayout *layout;
	Buffer		buf;
} QsIndexFetchData;

IndexFetchTableData *
qs_index_fetch_begin(Relation rel)
{
	QsIndexFetchData *f = palloc0(sizeof(QsIndexFetchData));

	f->base.rel = rel;
	f->layout = qs_layout_of(rel);
	f->buf = InvalidBuffer;
	return &f->base;
}

void
qs_index_fetch_reset(IndexFetchTableData *scan)
{
	QsIndexFetchData *f = (QsIndexFetchData *) scan;

	if (BufferIsValid(f->buf))
	{
		ReleaseBuffer(f->buf);
		f->buf = InvalidBuffer;
	}
}

void
qs_index_fetch_end(IndexFetchTableData *scan)
{
	qs_index_fetch_reset(scan);
	pfree(scan);
}

bool
qs_index_fetch_tuple(IndexFetchTableData *scan, ItemPointer tid,
					 Snapshot snapshot, TupleTableSlot *slot,
					 bool *call_again, bool *all_dead)
{
	QsIndexFetchData *f = (QsIndexFetchData *) scan;
	Relation	rel = scan->rel;
	const QsPageLayout *L = f->layout;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Page		page;
	HeapTupleData tup;
	HeapTupleHeaderData scratch;
	bool		valid = false;
	bool		moved_pending = false;
	ItemPointerData link;
	bool		first_call = !*call_again;
	bool		at_chain_start = first_call;
	bool		skip = !first_call;
	TransactionId prev_xmax = InvalidTransactionId;
	OffsetNumber maxoff;

	if (all_dead)
		*all_dead = false;

	if (!BufferIsValid(f->buf) || BufferGetBlockNumber(f->buf) != blkno)
	{
		f->buf = ReleaseAndReadBuffer(f->buf, rel, blkno);
		qs_page_prune_opt(rel, L, f->buf);
	}
	LockBuffer(f->buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(f->buf);
	maxoff = qs_page_max_offset(L, page);

	/*
	 * heap_hot_search_buffer: from the root the index entry names (or,
	 * when called again, from the member returned last) along the HOT
	 * chain to the member the snapshot sees.  *all_dead when every member
	 * is dead to everyone (the index entry can be killed).  A layout
	 * without HOT chains has one member per entry.
	 */
	for (;;)
	{
		QsRecordState st;

		if (off < FirstOffsetNumber || off > maxoff)
			break;
		st = qs_page_record_state(L, page, off);
		if (st == QS_REC_REDIRECT && at_chain_start)
		{
			off = qs_page_layout(L, page)->redirect_target(page, off);
			at_chain_start = false;
			if (all_dead)
				*all_dead = true;
			continue;
		}
		if (st == QS_REC_DEAD && at_chain_start && all_dead)
			*all_dead = true;	/* pruned: dead to everyone */
		if (st != QS_REC_NORMAL)
			break;				/* the end of the chain */
		if (at_chain_start && all_dead)
			*all_dead = true;
		if (skip)
		{
			uint32		len;

			tup.t_data = qs_page_get_header(L, page, off, &scratch, &len);
			tup.t_len = len;
			ItemPointerSet(&tup.t_self, blkno, off);
			tup.t_tableOid = RelationGetRelid(rel);
		}
		else
			valid = qs_record_visible(L, rel, f->buf, page, off, snapshot,
									  &tup, &scratch);
		/*
		 * An index entry never names a heap-only record: a stale one, whose
		 * DEAD slot a heap-only version took (layout.h,
		 * heaponly_takes_dead).  *all_dead stays true, as in
		 * heap_hot_search_buffer: the entry may be killed.
		 */
		if (at_chain_start && HeapTupleHeaderIsHeapOnly(tup.t_data))
		{
			valid = false;
			break;
		}
		if (TransactionIdIsValid(prev_xmax) &&
			!TransactionIdEquals(prev_xmax, HeapTupleHeaderGetXmin(tup.t_data)))
		{
			valid = false;
			break;
		}
		if (!skip)
		{
			HeapCheckForSerializableConflictOut(valid, rel, &tup, f->buf, snapshot);
			/* the lock first, as in qs_page_visible */
			if (valid)
				PredicateLockTID(rel, &tup.t_self, snapshot,
								 HeapTupleHeaderGetXmin(tup.t_data));
			moved_pending = CheckForSerializableConflictOutNeeded(rel, snapshot) &&
				qs_moved_conflict_pending(tup.t_data, valid, &link);
			if (valid)
			{
				if (all_dead)
					*all_dead = false;
				break;
			}
		}
		skip = false;
		if (all_dead && *all_dead &&
			!HeapTupleIsSurelyDead(&tup, GlobalVisTestFor(rel)))
			*all_dead = false;
		if (!HeapTupleHeaderIsHotUpdated(tup.t_data) ||
			ItemPointerGetBlockNumber(&tup.t_data->t_ctid) != blkno)
			break;
		off = ItemPointerGetOffsetNumber(&tup.t_data->t_ctid);
		at_chain_start = false;
		prev_xmax = HeapTupleHeaderGetUpdateXid(tup.t_data);
	}

	/*
	 * An index entry killed on the strength of this page (a pruned slot, a
	 * hint that the deleter committed) reaches disk with the index page,
	 * which is written without flushing the WAL through this page's LSN.
	 * SetHintBits lets a hint for a commit not yet flushed onto a page whose
	 * LSN is past that commit, and the merge worker commits asynchronously:
	 * a crash that lost the merge's commit would leave the row live in the
	 * delta with its index entry dead.  So no kill while this page's LSN is
	 * not flushed: once it is, so are the prune record or the commit behind
	 * the hint (src/merge/README.md section 3, Asynchronous commit).
	 */
	if (all_dead && *all_dead && XLogNeedsFlush(BufferGetLSNAtomic(f->buf)))
		*all_dead = false;
	LockBuffer(f->buf, BUFFER_LOCK_UNLOCK);
	if (moved_pending)
		qs_moved_conflict_out(rel, &link, snapshot);
	/*
	 * heap's: a non-MVCC snapshot may see more members of the chain (none
	 * in a column table's delta: review of hot3, L5)
	 */
	*call_again = valid && !IsMVCCSnapshot(snapshot) &&
		qs_page_layout(L, page)->mark_redirect != NULL &&
		!qs_is_column_rel(rel);
	if (!valid)
		return false;
	ItemPointerSetOffsetNumber(tid, off);
	pgstat_count_heap_fetch(rel);
	qs_page_store_record(L, rel, f->buf, page, off, slot, NULL);
	return true;
}
