/*-------------------------------------------------------------------------
 *
 * rewrite.c
 *	  CLUSTER and VACUUM FULL of column tables (relation_copy_for_cluster):
 *	  every row of the old table, delta and main, in the order of the
 *	  clustering index or the table's own, into a new relfilenode —
 *	  compacted into new sealed blocks where a row allows it.
 *
 * Each row is classified by heap's HeapTupleSatisfiesVacuum against
 * OldestXmin on its header (the delta record's, a main row's delete-map
 * entry, or its block's directory entry): dead rows are dropped, as heap's
 * rewrite drops them.  A row visible to every snapshot that exists or can
 * exist (LIVE, inserted before OldestXmin, no xmax left) goes into the new
 * table's blocks, written with a frozen xmin: a snapshot older than the
 * rewrite sees it there exactly as it saw it before.  Every other kept row
 * (recently dead, inserted or deleted by a transaction still in progress,
 * locked) goes into the new table's delta with its header as it is
 * (xmin, xmax, cids, infomask), as the engine's own rewrite copies
 * records; update chains are not kept (t_ctid points to the row itself),
 * as in the engine's rewrite.  CLUSTER's index order becomes the blocks'
 * row order.
 *
 * Runs under AccessExclusiveLock on the old table: no concurrent writer,
 * so headers read once stay true; the new relation is new in this
 * transaction (its blocks need no xid of their own).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "column/colam.h"
#include "column/colstore.h"
#include "column/options.h"
#include "page/recslot.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"

typedef struct RewriteBlocks
{
	Relation	rel;
	MemoryContext cxt;
	MemoryContext tmpcxt;
	QsColBuilder builder;
	bool		active;
	uint32		block_id;
	uint32		range;
	bool		may_sort;		/* VACUUM FULL and rewrites: sort_key;
								 * CLUSTER: the index's order is kept */
	QsColLoadOptions opts;		/* of the block being built (in tmpcxt) */
	BufferAccessStrategy strategy;	/* the runs' ring (in cxt), as a load's */
} RewriteBlocks;

/* write the rows built so far as one sealed block with a frozen xmin */
static void
blocks_flush(RewriteBlocks *w)
{
	QsColDirEntry e;
	uint8	   *image;
	size_t		image_len;
	MemoryContext old;

	if (!w->active || w->builder.nrows == 0)
		return;
	old = MemoryContextSwitchTo(w->tmpcxt);
	w->builder.index_cols = w->opts.index_cols;
	image = qs_colbuilder_build_opts(&w->builder, w->rel, w->block_id,
									 w->may_sort ? w->opts.sort_col : -1,
									 w->opts.enc_mask, &image_len);
	memset(&e, 0, sizeof(e));
	e.block_id = w->block_id;
	e.state = QS_COLBLK_SEALED;
	e.npages = qs_colblock_npages(image_len);
	e.run_start = qs_colrun_write(w->rel, w->block_id, image, image_len,
								  w->strategy);
	qs_colbuilder_image_done(&w->builder, image);
	e.tid_range = w->range;
	e.nrows = w->builder.nrows;
	e.published = w->builder.nrows;
	e.xmin = FrozenTransactionId;
	e.cid = FirstCommandId;
	e.image_len = image_len;
	e.delmap_root = InvalidBlockNumber;
	qs_coldir_append(w->rel, &e);
	MemoryContextSwitchTo(old);
	MemoryContextReset(w->tmpcxt);
	qs_colbuilder_reset(&w->builder);
	w->builder.index_cols = NULL;	/* pointed into tmpcxt's options */
	w->active = false;
}

static void
blocks_add(RewriteBlocks *w, TupleTableSlot *slot)
{
	if (!w->active)
	{
		MemoryContext old = MemoryContextSwitchTo(w->tmpcxt);

		/* the table's options, as a load's block reads them when it starts */
		qs_colopts_for_load(w->rel, w->builder.attrs, &w->opts);
		MemoryContextSwitchTo(old);
		w->block_id = qs_coldir_reserve(w->rel, &w->range);
		w->active = true;
	}
	qs_colbuilder_add(&w->builder, slot);
	if (w->builder.nrows >= (uint32) w->opts.rows_per_block ||
		w->builder.bytes >= QS_COL_LOAD_BLOCK_BYTES)
		blocks_flush(w);
}

/*
 * The header of the row in 'slot' (a copy in *hdr) and heap's verdict on
 * it.  The old table is exclusively locked: nothing changes it meanwhile.
 */
static HTSV_Result
row_status(Relation rel, TupleTableSlot *slot, TransactionId OldestXmin,
		   HeapTupleHeader hdr)
{
	const QsPageLayout *L = qs_layout_of(rel);
	ItemPointer tid = &slot->tts_tid;
	HeapTupleData tup;
	Buffer		buf;
	HTSV_Result status;

	tup.t_len = SizeofHeapTupleHeader;
	tup.t_self = *tid;
	tup.t_tableOid = RelationGetRelid(rel);
	if (qs_tid_is_virtual(tid))
		buf = qs_coldelmap_buffer(rel, tid, false);
	else
		buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	if (BufferIsValid(buf))
	{
		HeapTupleHeaderData scratch;
		uint32		len;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		tup.t_data = qs_page_get_header(L, BufferGetPage(buf),
										ItemPointerGetOffsetNumber(tid),
										&scratch, &len);
		tup.t_len = len;
		status = HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf);
		if (tup.t_data == &scratch)
			qs_page_set_header(L, BufferGetPage(buf),
							   ItemPointerGetOffsetNumber(tid), &scratch);
		memcpy(hdr, tup.t_data, sizeof(HeapTupleHeaderData));
		UnlockReleaseBuffer(buf);
		return status;
	}

	/*
	 * A main row without a delete-map entry: its block's header, as the
	 * scan put it into the slot, with its commit state set as hints; heap's
	 * routine gets the metapage as the locked buffer for any hint it may
	 * still set (an inserter committing meanwhile): our copy is the header.
	 */
	*hdr = ((QsRecSlot *) slot)->hdr;
	qs_colmain_hint_xmin(hdr);
	tup.t_data = hdr;
	buf = ReadBuffer(rel, QS_COLMETA_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	status = HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf);
	UnlockReleaseBuffer(buf);
	return status;
}

void
qs_col_copy_for_cluster(Relation OldTable, Relation NewTable,
						Relation OldIndex, bool use_sort,
						TransactionId OldestXmin, TransactionId *xid_cutoff,
						MultiXactId *multi_cutoff, double *num_tuples,
						double *tups_vacuumed, double *tups_recently_dead)
{
	const QsPageLayout *Lnew = qs_layout_of(NewTable);
	TableScanDesc tscan = NULL;
	IndexScanDesc iscan = NULL;
	TupleTableSlot *slot;
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKWRITE);
	RewriteBlocks w;
	MemoryContext old;

	*xid_cutoff = OldTable->rd_rel->relfrozenxid;
	*multi_cutoff = OldTable->rd_rel->relminmxid;
	*num_tuples = 0;
	*tups_vacuumed = 0;
	*tups_recently_dead = 0;

	memset(&w, 0, sizeof(w));
	w.rel = NewTable;

	/*
	 * The new table's indexes are built after the copy, so its blocks may
	 * be sorted on quickstep.sort_key — unless CLUSTER asked for the order
	 * of an index, which the rows arrive in.
	 */
	w.may_sort = OldIndex == NULL;
	w.cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep column rewrite",
								  ALLOCSET_DEFAULT_SIZES);
	w.tmpcxt = AllocSetContextCreate(w.cxt, "image", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(w.cxt);
	qs_colbuilder_init(&w.builder, NewTable, qs_colattrs(RelationGetDescr(NewTable)));
	qs_colbuilder_keep_scratch(&w.builder);
	w.strategy = GetAccessStrategy(BAS_BULKWRITE);
	MemoryContextSwitchTo(old);

	qs_colload_flush_rel(OldTable);
	slot = table_slot_create(OldTable, NULL);
	if (OldIndex != NULL)
	{
		iscan = qs_index_beginscan(OldTable, OldIndex, SnapshotAny, 0, 0);
		index_rescan(iscan, NULL, 0, NULL, 0);
	}
	else
		tscan = table_beginscan(OldTable, SnapshotAny, 0, NULL);

	for (;;)
	{
		HeapTupleHeaderData hdr;
		bool		keep = false;
		bool		to_main;
		HeapTuple	copy;
		HeapTuple	tocopy;

		CHECK_FOR_INTERRUPTS();
		if (iscan)
		{
			if (!index_getnext_slot(iscan, ForwardScanDirection, slot))
				break;
		}
		else if (!table_scan_getnextslot(tscan, ForwardScanDirection, slot))
			break;

		keep = qs_cluster_count(row_status(OldTable, slot, OldestXmin, &hdr),
								num_tuples, tups_vacuumed, tups_recently_dead);
		if (!keep)
			continue;

		/*
		 * visible to every snapshot, now and later: into a block (a table
		 * of no columns has none: a column block has at least one column)
		 */
		to_main = RelationGetDescr(NewTable)->natts > 0 &&
			(hdr.t_infomask & HEAP_XMAX_INVALID) != 0 &&
			!HeapTupleHeaderIsSpeculative(&hdr) &&
			(HeapTupleHeaderXminFrozen(&hdr) ||
			 (HeapTupleHeaderXminCommitted(&hdr) &&
			  TransactionIdPrecedes(HeapTupleHeaderGetRawXmin(&hdr), OldestXmin)));
		if (to_main)
		{
			slot_getallattrs(slot);
			blocks_add(&w, slot);
			continue;
		}

		/* anything else keeps its header, in the new table's delta */
		copy = ExecCopySlotHeapTuple(slot);
		copy->t_data->t_choice = hdr.t_choice;
		copy->t_data->t_infomask = (copy->t_data->t_infomask & ~HEAP_XACT_MASK) |
			(hdr.t_infomask & HEAP_XACT_MASK);
		copy->t_data->t_infomask2 = (copy->t_data->t_infomask2 & ~HEAP2_XACT_MASK) |
			(hdr.t_infomask2 & HEAP2_XACT_MASK);
		tocopy = copy;

		/*
		 * as heap's rewrite (raw_heap_insert): a main row's values are
		 * stored detoasted in its block, so its copy may be too big for a
		 * page until toasted again (CLUSTER failed with "row is too big")
		 */
		if (HeapTupleHasExternal(copy) || copy->t_len > TOAST_TUPLE_THRESHOLD)
			tocopy = heap_toast_insert_or_update(NewTable, copy, NULL,
												 HEAP_INSERT_SKIP_FSM |
												 HEAP_INSERT_NO_LOGICAL);
		qs_place_tuple(NewTable, Lnew, tocopy, strategy, false);
		if (tocopy != copy)
			heap_freetuple(tocopy);
		heap_freetuple(copy);
	}
	blocks_flush(&w);

	if (iscan)
		index_endscan(iscan);
	if (tscan)
		table_endscan(tscan);
	ExecDropSingleTupleTableSlot(slot);
	FreeAccessStrategy(strategy);
	MemoryContextDelete(w.cxt);
}
