/*-------------------------------------------------------------------------
 *
 * index.c
 *	  Engine callbacks for indexes: CREATE INDEX (range build scan), CREATE
 *	  INDEX CONCURRENTLY validation, and index entry deletion checks.
 *
 * A layout with HOT chains (NSM) indexes a heap-only version under the TID
 * of its chain's root (qs_hot_root_map), as heap does with
 * heap_get_root_tuples; in other layouts every version has its own index
 * entries, and is its own root.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "column/colam.h"
#include "column/colstore.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"

/*
 * *roottid: the TID under which the heap-only version at (blkno, off) is
 * indexed, its chain's root in root_offsets (qs_hot_root_map), as in
 * heapam_index_build_range_scan; a version without a root is corruption.
 */
static void
hot_root_tid(Relation rel, BlockNumber blkno, OffsetNumber off,
			 const OffsetNumber *root_offsets, ItemPointer roottid)
{
	if (!OffsetNumberIsValid(root_offsets[off - 1]))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg_internal("failed to find parent tuple for heap-only tuple at (%u,%u) in table \"%s\"",
								 blkno, off, RelationGetRelationName(rel))));
	ItemPointerSet(roottid, blkno, root_offsets[off - 1]);
}

double
qs_index_build_range_scan(Relation tableRelation, Relation indexRelation,
						  IndexInfo *indexInfo, bool allow_sync,
						  bool anyvisible, bool progress,
						  BlockNumber start_blockno, BlockNumber numblocks,
						  IndexBuildCallback callback, void *callback_state,
						  TableScanDesc scan)
{
	const QsPageLayout *L = qs_layout_of(tableRelation);
	double		reltuples = 0;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	ExprState  *predicate;
	TupleTableSlot *slot;
	EState	   *estate;
	ExprContext *econtext;
	Snapshot	snapshot;
	bool		need_unregister_snapshot = false;
	TransactionId OldestXmin = InvalidTransactionId;
	bool		checking_uniqueness;
	BlockNumber nblocks,
				endblock;
	bool		is_system_catalog = IsSystemRelation(tableRelation);

	checking_uniqueness = (indexInfo->ii_Unique ||
						   indexInfo->ii_ExclusionOps != NULL);

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	slot = table_slot_create(tableRelation, NULL);
	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);

	if (scan != NULL)
	{
		/* parallel build: the caller's scan and snapshot */
		snapshot = scan->rs_snapshot;
		if (!IsMVCCSnapshot(snapshot))
			OldestXmin = GetOldestNonRemovableTransactionId(tableRelation);
	}
	else if (IsBootstrapProcessingMode() || indexInfo->ii_Concurrent)
	{
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
		need_unregister_snapshot = true;
	}
	else
	{
		snapshot = SnapshotAny;
		OldestXmin = GetOldestNonRemovableTransactionId(tableRelation);
	}

	nblocks = RelationGetNumberOfBlocks(tableRelation);
	endblock = nblocks;
	if (numblocks != InvalidBlockNumber && start_blockno + numblocks < endblock)
		endblock = start_blockno + numblocks;

	/*
	 * A parallel build hands out blocks through the shared parallel scan;
	 * otherwise the range [start_blockno, endblock) in order.
	 */
	if (scan != NULL && scan->rs_parallel != NULL)
	{
		QsScanDesc	qscan = (QsScanDesc) scan;

		table_block_parallelscan_startblock_init(tableRelation, qscan->pwork,
												 (ParallelBlockTableScanDesc) scan->rs_parallel);
	}

	for (BlockNumber blkno = start_blockno;; blkno++)
	{
		Buffer		buf;
		OffsetNumber maxoff;
		OffsetNumber root_offsets[MaxHeapTuplesPerPage];
		bool		hot;

		if (scan != NULL && scan->rs_parallel != NULL)
		{
			QsScanDesc	qscan = (QsScanDesc) scan;

			blkno = table_block_parallelscan_nextpage(tableRelation, qscan->pwork,
													  (ParallelBlockTableScanDesc) scan->rs_parallel);
			if (blkno == InvalidBlockNumber)
				break;
		}
		else if (blkno >= endblock)
			break;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(tableRelation, MAIN_FORKNUM, blkno,
								 RBM_NORMAL, NULL);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		maxoff = qs_page_max_offset(L, BufferGetPage(buf));
		hot = qs_page_layout(L, BufferGetPage(buf))->mark_redirect != NULL;
		if (hot)
			qs_hot_root_map(L, BufferGetPage(buf), blkno, root_offsets);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			Page		page = BufferGetPage(buf);
			HeapTupleData tup;
			HeapTupleHeaderData scratch;
			bool		indexIt = false;
			bool		tupleIsAlive = false;
			bool		heaponly = false;
			ItemPointerData roottid;

	recheck:
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			if (qs_page_record_state(L, page, off) != QS_REC_NORMAL)
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				continue;
			}
			if (snapshot == SnapshotAny)
			{
				uint32		len;
				TransactionId xwait;

				tup.t_data = qs_page_get_header(L, page, off, &scratch, &len);
				tup.t_len = len;
				ItemPointerSet(&tup.t_self, blkno, off);
				tup.t_tableOid = RelationGetRelid(tableRelation);
				switch (HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf))
				{
					case HEAPTUPLE_DEAD:
						indexIt = false;
						tupleIsAlive = false;
						break;
					case HEAPTUPLE_LIVE:
						indexIt = true;
						tupleIsAlive = true;
						reltuples += 1;
						break;
					case HEAPTUPLE_RECENTLY_DEAD:
						/*
						 * Of a HOT chain only the live end is indexed (under
						 * the root's TID): the index is then unusable for
						 * older snapshots, as heap marks it.
						 */
						indexIt = !HeapTupleHeaderIsHotUpdated(tup.t_data);
						if (!indexIt)
							indexInfo->ii_BrokenHotChain = true;
						tupleIsAlive = false;
						reltuples += 1;
						break;
					case HEAPTUPLE_INSERT_IN_PROGRESS:
						if (anyvisible ||
							TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup.t_data)))
						{
							indexIt = true;
							tupleIsAlive = true;
							reltuples += 1;
							break;
						}
						xwait = HeapTupleHeaderGetXmin(tup.t_data);
						if (tup.t_data == &scratch)
							qs_page_set_header(L, page, off, &scratch);
						LockBuffer(buf, BUFFER_LOCK_UNLOCK);
						if (!is_system_catalog)
							elog(WARNING, "concurrent insert in progress within table \"%s\"",
								 RelationGetRelationName(tableRelation));
						XactLockTableWait(xwait, tableRelation, &tup.t_self,
										  XLTW_InsertIndexUnique);
						CHECK_FOR_INTERRUPTS();
						goto recheck;
					case HEAPTUPLE_DELETE_IN_PROGRESS:
						if (anyvisible)
						{
							indexIt = true;
							tupleIsAlive = true;
							reltuples += 1;
							break;
						}
						xwait = HeapTupleHeaderGetUpdateXid(tup.t_data);
						if (!TransactionIdIsCurrentTransactionId(xwait))
						{
							/* a HOT update: wait to know which end is live */
							if (checking_uniqueness ||
								HeapTupleHeaderIsHotUpdated(tup.t_data))
							{
								if (tup.t_data == &scratch)
									qs_page_set_header(L, page, off, &scratch);
								LockBuffer(buf, BUFFER_LOCK_UNLOCK);
								XactLockTableWait(xwait, tableRelation,
												  &tup.t_self,
												  XLTW_InsertIndexUnique);
								CHECK_FOR_INTERRUPTS();
								goto recheck;
							}
							reltuples += 1;
							indexIt = true;
						}
						else if (HeapTupleHeaderIsHotUpdated(tup.t_data))
						{
							indexIt = false;
							indexInfo->ii_BrokenHotChain = true;
						}
						else
							indexIt = true;
						tupleIsAlive = false;
						break;
					default:
						elog(ERROR, "unexpected HeapTupleSatisfiesVacuum result");
				}
				if (tup.t_data == &scratch)
					qs_page_set_header(L, page, off, &scratch);
			}
			else
			{
				indexIt = qs_record_visible(L, tableRelation, buf, page, off,
											snapshot, &tup, &scratch);
				tupleIsAlive = indexIt;
				if (indexIt)
					reltuples += 1;
			}
			if (indexIt && hot && HeapTupleHeaderIsHeapOnly(tup.t_data))
			{
				heaponly = true;
				/* a chain that grew since the map was made: make it again */
				if (!OffsetNumberIsValid(root_offsets[off - 1]))
					qs_hot_root_map(L, page, blkno, root_offsets);
				hot_root_tid(tableRelation, blkno, off, root_offsets, &roottid);
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			if (!indexIt)
				continue;

			MemoryContextReset(econtext->ecxt_per_tuple_memory);
			qs_page_store_record(L, tableRelation, buf, page, off, slot, NULL);
			if (predicate != NULL && !ExecQual(predicate, econtext))
				continue;
			FormIndexDatum(indexInfo, slot, estate, values, isnull);
			callback(indexRelation, heaponly ? &roottid : &slot->tts_tid,
					 values, isnull, tupleIsAlive, callback_state);
		}
		ReleaseBuffer(buf);
	}

	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	/* as heap does, the build scan ends the scan it was given */
	if (scan != NULL)
		table_endscan(scan);
	if (need_unregister_snapshot)
		UnregisterSnapshot(snapshot);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
	return reltuples;
}

void
qs_index_validate_scan(Relation tableRelation, Relation indexRelation,
					   IndexInfo *indexInfo, Snapshot snapshot,
					   ValidateIndexState *state)
{
	TableScanDesc scan;
	TupleTableSlot *slot;
	EState	   *estate;
	ExprContext *econtext;
	ExprState  *predicate;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	ItemPointer indexcursor = NULL;
	ItemPointerData decoded;
	bool		tuplesort_empty = false;
	const QsPageLayout *L = qs_layout_of(tableRelation);
	OffsetNumber root_offsets[MaxHeapTuplesPerPage];
	BlockNumber root_blkno = InvalidBlockNumber;
	ItemPointerData roottid;
	bool		in_index[MaxHeapTuplesPerPage];
	BlockNumber cur_blkno = InvalidBlockNumber;
	bool		hot = L->mark_redirect != NULL &&
		!qs_is_column_rel(tableRelation);

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	slot = table_slot_create(tableRelation, NULL);
	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);

	/* our scans go in TID order, as the sorted index TIDs do */
	scan = table_beginscan_strat(tableRelation, snapshot, 0, NULL, true, false);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		ItemPointer tid = &slot->tts_tid;

		CHECK_FOR_INTERRUPTS();
		if (ItemPointerGetBlockNumber(tid) != cur_blkno)
		{
			cur_blkno = ItemPointerGetBlockNumber(tid);
			memset(in_index, 0, sizeof(in_index));
		}

		/*
		 * A heap-only version is known to the index under its root's TID
		 * (heapam_index_validate_scan): compare and insert that one.  Not
		 * in column tables: no HOT there, and main rows' TIDs are virtual
		 * (no block to read; review of hot3, H1).
		 */
		if (hot)
		{
			BlockNumber blkno = ItemPointerGetBlockNumber(tid);
			OffsetNumber off = ItemPointerGetOffsetNumber(tid);
			Buffer		buf = ReadBuffer(tableRelation, blkno);
			HeapTupleHeaderData scratch;
			Page		page = BufferGetPage(buf);
			bool		heaponly;

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			heaponly = qs_page_record_state(L, page, off) == QS_REC_NORMAL &&
				HeapTupleHeaderIsHeapOnly(qs_page_get_header(L, page, off,
															 &scratch, NULL));
			if (heaponly &&
				(blkno != root_blkno || !OffsetNumberIsValid(root_offsets[off - 1])))
			{
				qs_hot_root_map(L, page, blkno, root_offsets);
				root_blkno = blkno;
			}
			UnlockReleaseBuffer(buf);
			if (heaponly)
			{
				hot_root_tid(tableRelation, blkno, off, root_offsets, &roottid);
				tid = &roottid;
			}
		}
		while (!tuplesort_empty &&
			   (!indexcursor || ItemPointerCompare(indexcursor, tid) < 0))
		{
			Datum		ts_val;
			bool		ts_isnull;

			/* entries passed on this page: roots come in no order */
			if (indexcursor &&
				ItemPointerGetBlockNumber(indexcursor) == cur_blkno)
				in_index[ItemPointerGetOffsetNumber(indexcursor) - 1] = true;
			tuplesort_empty = !qs_tuplesort_getdatum(state->tuplesort, true,
													 &ts_val, &ts_isnull);
			if (!tuplesort_empty)
			{
				itemptr_decode(&decoded, DatumGetInt64(ts_val));
				indexcursor = &decoded;
			}
			else
				indexcursor = NULL;
		}
		if ((tuplesort_empty || indexcursor == NULL ||
			 ItemPointerCompare(indexcursor, tid) > 0) &&
			!in_index[ItemPointerGetOffsetNumber(tid) - 1])
		{
			MemoryContextReset(econtext->ecxt_per_tuple_memory);
			if (predicate != NULL && !ExecQual(predicate, econtext))
				continue;
			FormIndexDatum(indexInfo, slot, estate, values, isnull);
			index_insert(indexRelation, values, isnull, tid, tableRelation,
						 indexInfo->ii_Unique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
						 false, indexInfo);
			state->tups_inserted += 1;
		}
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
}

/*
 * Which index entries point at records dead to everyone?  Entries the index
 * already knows to be deletable are trusted; each record looked at
 * advances the conflict horizon for standbys.
 */
TransactionId
qs_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	const QsPageLayout *L = qs_layout_of(rel);
	TransactionId horizon = InvalidTransactionId;
	GlobalVisState *vistest = GlobalVisTestFor(rel);
	Buffer		buf = InvalidBuffer;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	bool		column = qs_is_column_rel(rel);
	QsColDirectory coldir = {0};

	for (int i = 0; i < delstate->ndeltids; i++)
	{
		TM_IndexDelete *d = &delstate->deltids[i];
		TM_IndexStatus *st = &delstate->status[d->id];
		BlockNumber blkno = ItemPointerGetBlockNumber(&d->tid);
		OffsetNumber off = ItemPointerGetOffsetNumber(&d->tid);
		Page		page;
		HeapTupleData tup;
		HeapTupleHeaderData scratch;
		uint32		len;

		if (blkno >= nblocks)
		{
			/*
			 * A column table's main row (a virtual TID): an entry the index
			 * knows to be deletable (an index scan found its row dead to
			 * all) counts the row's deleter, as a heap tuple's does.  Main
			 * rows are not judged here otherwise.
			 */
			if (st->knowndeletable && column && qs_tid_is_virtual(&d->tid))
				qs_colmain_conflict_horizon(rel, &d->tid, &coldir, &horizon);
			continue;
		}
		if (!BufferIsValid(buf) || BufferGetBlockNumber(buf) != blkno)
		{
			if (BufferIsValid(buf))
				ReleaseBuffer(buf);
			buf = ReadBuffer(rel, blkno);
		}
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (qs_page_record_state(L, page, off) == QS_REC_DEAD)
		{
			/* pruned: dead to everyone, its horizon was logged then */
			st->knowndeletable = true;
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			continue;
		}
		if (qs_page_layout(L, page)->heaponly_takes_dead &&
			qs_page_record_state(L, page, off) == QS_REC_NORMAL &&
			HeapTupleHeaderIsHeapOnly(qs_page_get_header(L, page, off,
														 &scratch, NULL)))
		{
			/*
			 * No entry names a heap-only record: this one named the DEAD
			 * slot a heap-only version has taken since (layout.h,
			 * heaponly_takes_dead), dead to everyone when it was pruned.
			 */
			st->knowndeletable = true;
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			continue;
		}

		/*
		 * The entry names a HOT chain's root (heap_index_delete_tuples):
		 * deletable when every member is dead to everyone; a REDIRECT leads
		 * to the first member pruning kept.
		 */
		if (qs_page_record_state(L, page, off) == QS_REC_REDIRECT)
			off = qs_page_layout(L, page)->redirect_target(page, off);
		{
			TransactionId prev_xmax = InvalidTransactionId;
			TransactionId chain_horizon = InvalidTransactionId;
			bool		alldead = true;
			int			nmembers = 0;

			while (off >= FirstOffsetNumber &&
				   off <= qs_page_max_offset(L, page) &&
				   qs_page_record_state(L, page, off) == QS_REC_NORMAL)
			{
				tup.t_data = qs_page_get_header(L, page, off, &scratch, &len);
				tup.t_len = len;
				ItemPointerSet(&tup.t_self, blkno, off);
				tup.t_tableOid = RelationGetRelid(rel);
				if (TransactionIdIsValid(prev_xmax) &&
					!TransactionIdEquals(prev_xmax, HeapTupleHeaderGetXmin(tup.t_data)))
					break;
				nmembers++;
				if (!st->knowndeletable && !HeapTupleIsSurelyDead(&tup, vistest))
					alldead = false;
				QS_HeapTupleHeaderAdvanceConflictHorizon(tup.t_data, &chain_horizon);
				if (tup.t_data == &scratch)
					qs_page_set_header(L, page, off, &scratch);
				if (!alldead || !HeapTupleHeaderIsHotUpdated(tup.t_data) ||
					ItemPointerGetBlockNumber(&tup.t_data->t_ctid) != blkno)
					break;
				prev_xmax = HeapTupleHeaderGetUpdateXid(tup.t_data);
				off = ItemPointerGetOffsetNumber(&tup.t_data->t_ctid);
			}
			if (nmembers > 0 && alldead)
				st->knowndeletable = true;
			if (st->knowndeletable && TransactionIdIsValid(chain_horizon) &&
				(!TransactionIdIsValid(horizon) ||
				 TransactionIdFollows(chain_horizon, horizon)))
				horizon = chain_horizon;
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	}
	if (BufferIsValid(buf))
		ReleaseBuffer(buf);
	if (coldir.entries)
		pfree(coldir.entries);
	return horizon;
}
