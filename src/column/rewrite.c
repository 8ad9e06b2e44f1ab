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
 * records, and with its update chain, as heap's rewrite keeps it: a
 * recently dead version's t_ctid points at its successor's new TID (the
 * engine's QsRewriteChains, ddl.c), a main row's as a delta row's (the
 * delete-map entry's link to the delta version its update wrote).  So a
 * REPEATABLE READ transaction older than an update that changes the row
 * after the rewrite fails with "concurrent update", as before it, and
 * EvalPlanQual has a chain to follow.  A successor of a kept version is
 * never written into a block (its xmin does not precede OldestXmin), so
 * every link points into the new delta.  CLUSTER's index order becomes
 * the blocks' row order.
 *
 * A row a committed merge M moved has two versions, the delta version
 * (xmax M, linked to its copy) and M's main copy (xmin M).  While some
 * snapshot may not see M (the delta version RECENTLY_DEAD), writing both
 * as they are would lose the link: a REPEATABLE READ transaction older
 * than M that then changes the row would meet xmax M with no row to follow
 * and fail to serialize, where heap changes it.  So such a row is written
 * once, at its copy: the delta version's inserter (committed before
 * OldestXmin or frozen: only quiet rows move; a TAKEN mark keeps it) with
 * the copy's
 * xmax state, the copy's values (the delta version's TOAST values are M's
 * to delete), classified again on that header — what every snapshot saw
 * of the row, before M and after.  A first pass over the delta's pages
 * finds these versions: VACUUM FULL's sequential scan, and CLUSTER through
 * an index AM other than btree, may reach a copy before its delta version
 * (btree orders every delta TID before the virtual TIDs of equal keys).
 * The hash holds only them, about 50 bytes each: every recently dead moved
 * row of the merges since OldestXmin (not bounded by maintenance_work_mem,
 * as heap's rewrite state is not).  A cancelled copy (xmax = M) is not
 * one: its delta version has no mark.  When M precedes OldestXmin the
 * delta version is dead and the copy is written as any row.
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
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "column/colam.h"
#include "column/colstore.h"
#include "column/options.h"
#include "merge/moved.h"
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
	QsRewriteChains *chains;	/* the delta's update chains (ddl.c) */
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
blocks_add(RewriteBlocks *w, TupleTableSlot *slot, TransactionId shown_xmin,
		   CommandId shown_cid)
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
	/*
	 * the block's xmin is frozen: the row keeps the xmin and the command id
	 * it showed
	 */
	qs_colbuilder_set_origin(&w->builder, w->builder.nrows - 1, shown_xmin,
							 shown_cid);
	if (w->builder.nrows >= (uint32) w->opts.rows_per_block ||
		w->builder.bytes >= QS_COL_LOAD_BLOCK_BYTES)
		blocks_flush(w);
}

/*
 * Heap's verdict on a header that lives on no page (a main row without a
 * delete-map entry, a collapsed move): heap's routine gets the metapage as
 * the locked buffer for any hint it may still set (an inserter committing
 * meanwhile): our copy is the header.
 */
static HTSV_Result
header_status(Relation rel, ItemPointer tid, HeapTupleHeader hdr,
			  TransactionId OldestXmin)
{
	HeapTupleData tup;
	Buffer		buf;
	HTSV_Result status;

	tup.t_len = SizeofHeapTupleHeader;
	tup.t_self = *tid;
	tup.t_tableOid = RelationGetRelid(rel);
	tup.t_data = hdr;
	buf = ReadBuffer(rel, QS_COLMETA_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	status = HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf);
	UnlockReleaseBuffer(buf);
	return status;
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
	 * scan put it into the slot, with its commit state set as hints.
	 */
	*hdr = ((QsRecSlot *) slot)->hdr;
	qs_colmain_hint_xmin(hdr);
	return header_status(rel, tid, hdr, OldestXmin);
}

/*
 * A delta version that a committed merge M moved and that some snapshot
 * may still see (RECENTLY_DEAD: M does not precede OldestXmin), by the TID
 * of M's main copy.  The rewrite writes the row once, at its copy (see the
 * header comment).
 */
typedef struct MovedRow
{
	ItemPointerData copy;		/* key: M's main copy */
	ItemPointerData delta;		/* the delta version */
	TransactionId mover;		/* M */
	TransactionId xmin;			/* the delta version's raw xmin */
	uint16		xmin_bits;		/* and its xmin hint bits */
	bool		collapsed;		/* written at its copy */
	bool		has_succ;		/* M's own transaction updated the copy: */
	ItemPointerData succ;		/* its new version, the delta version's link */
} MovedRow;

/*
 * The moved, recently dead delta versions of 'rel' (NULL: none), from one
 * pass over the delta's pages (the blocks' runs are skipped unread, as
 * walk.c does): CLUSTER's index order may reach a copy before its delta
 * version.  The hash holds only these rows.
 */
static HTAB *
moved_collect(Relation rel, TransactionId OldestXmin, MemoryContext cxt)
{
	const QsPageLayout *L = qs_layout_of(rel);
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	HTAB	   *moved = NULL;
	QsPageRange *runs;
	int			nruns;
	int			nextrun = 0;

	runs = qs_coldir_runs(rel, &nruns);
	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		page;
		OffsetNumber maxoff;

		CHECK_FOR_INTERRUPTS();
		while (nextrun < nruns && runs[nextrun].end <= blk)
			nextrun++;
		if (nextrun < nruns && runs[nextrun].start <= blk)
		{
			/* a column block's pages: not the delta's */
			blk = runs[nextrun].end - 1;
			continue;
		}
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) || qs_is_column_page(page))
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		maxoff = qs_page_max_offset(L, page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			HeapTupleHeaderData scratch;
			HeapTupleData tup;
			uint32		len;
			HTSV_Result status;
			MovedRow   *m;
			bool		found;

			if (qs_page_record_state(L, page, off) != QS_REC_NORMAL)
				continue;
			tup.t_data = qs_page_get_header(L, page, off, &scratch, &len);
			if (!qs_header_moved(tup.t_data))
				continue;
			tup.t_len = len;
			ItemPointerSet(&tup.t_self, blk, off);
			tup.t_tableOid = RelationGetRelid(rel);
			status = HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf);
			if (tup.t_data == &scratch)
				qs_page_set_header(L, page, off, &scratch);
			if (status != HEAPTUPLE_RECENTLY_DEAD || !qs_header_moved(tup.t_data))
				continue;
			if (moved == NULL)
			{
				HASHCTL		ctl;

				ctl.keysize = sizeof(ItemPointerData);
				ctl.entrysize = sizeof(MovedRow);
				ctl.hcxt = cxt;
				moved = hash_create("quickstep rewrite moved rows", 64, &ctl,
									HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
			}
			m = hash_search(moved, &tup.t_data->t_ctid, HASH_ENTER, &found);
			Assert(!found);
			m->delta = tup.t_self;
			m->mover = HeapTupleHeaderGetRawXmax(tup.t_data);
			m->xmin = HeapTupleHeaderGetRawXmin(tup.t_data);
			m->xmin_bits = tup.t_data->t_infomask & HEAP_XMIN_FROZEN;
			m->collapsed = false;
			m->has_succ = false;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(runs);
	FreeAccessStrategy(strategy);
	return moved;
}

/*
 * At M's main copy of a row collected above: one header for both versions,
 * the delta version's inserter (committed before OldestXmin, or frozen: only
 * quiet rows move) with the copy's xmax state — what every snapshot saw of
 * the row, before M and after.  A copy whose move was cancelled (xmax = M)
 * is not one: it stays as it is, and its delta version has no mark.  A
 * copy M's own transaction deleted or updated is not collapsed (below).
 */
static void
moved_collapse(Relation rel, HTAB *moved, TupleTableSlot *slot,
			   HeapTupleHeader hdr, HTSV_Result *status,
			   TransactionId OldestXmin)
{
	MovedRow   *m = hash_search(moved, &slot->tts_tid, HASH_FIND, NULL);

	/*
	 * The copy's xmin is not checked against M: a later merge's version of
	 * an open block shows the rows below its base (M's among them) frozen
	 * (qs_coldir_row_xmin), and SnapshotAny reads that version.  A copy
	 * with xmax M is not a cancelled move (a cancel clears the delta
	 * version's mark in the same record, so it is never collected) but M's
	 * own transaction deleting, updating or locking its copy.
	 *
	 * Heap has one version there, deleted or updated by M: so the delta
	 * version is written as that one (after the scan, in its own header:
	 * inserted before M, xmax M) and takes the copy's link, to M's new
	 * version (a snapshot older than M that changes the row then finds it
	 * updated, "concurrent update", and EvalPlanQual follows the link), or
	 * none for a delete ("concurrent delete"); the copy, which no snapshot
	 * sees (inserted and deleted by M), is written pointing at itself, so
	 * that M's new version has one predecessor.  A copy M only locked is
	 * the row: collapsed as any copy (HeapTupleSatisfiesVacuum hints a
	 * finished locker's xmax invalid before this, so the test only states
	 * the rule).
	 */
	if (m == NULL)
		return;
	if (!(hdr->t_infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI)) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(hdr->t_infomask) &&
		TransactionIdEquals(HeapTupleHeaderGetRawXmax(hdr), m->mover))
	{
		if (!ItemPointerEquals(&hdr->t_ctid, &slot->tts_tid))
		{
			m->succ = hdr->t_ctid;
			m->has_succ = true;
		}
		hdr->t_ctid = slot->tts_tid;
		return;
	}
	HeapTupleHeaderSetXmin(hdr, m->xmin);
	hdr->t_infomask = (hdr->t_infomask & ~HEAP_XMIN_FROZEN) | m->xmin_bits;
	*status = header_status(rel, &slot->tts_tid, hdr, OldestXmin);
	m->collapsed = true;
}

/* the delta version of a row collected above: written at its copy */
static bool
moved_skip(HTAB *moved, ItemPointer tid, HeapTupleHeader hdr)
{
	MovedRow   *m;

	if (!qs_header_moved(hdr))
		return false;
	m = hash_search(moved, &hdr->t_ctid, HASH_FIND, NULL);
	return m != NULL && ItemPointerEquals(&m->delta, tid);
}

/* a kept row of the old table, with its header 'hdr', into the new table */
static void
write_row(RewriteBlocks *w, TupleTableSlot *slot, HeapTupleHeader hdr,
		  TransactionId OldestXmin, BufferAccessStrategy strategy)
{
	Relation	NewTable = w->rel;
	HeapTuple	copy;

	/*
	 * visible to every snapshot, now and later: into a block (a table of no
	 * columns has none: a column block has at least one column)
	 */
	if (RelationGetDescr(NewTable)->natts > 0 &&
		(hdr->t_infomask & HEAP_XMAX_INVALID) != 0 &&
		!HeapTupleHeaderIsSpeculative(hdr) &&
		(HeapTupleHeaderXminFrozen(hdr) ||
		 (HeapTupleHeaderXminCommitted(hdr) &&
		  TransactionIdPrecedes(HeapTupleHeaderGetRawXmin(hdr), OldestXmin))))
	{
		TransactionId shown = HeapTupleHeaderGetRawXmin(hdr);
		CommandId	shown_cid;
		bool		isnull;

		/*
		 * What its xmin column showed, as heap's rewrite keeps a tuple's raw
		 * xmin: a main row's origin (recslot.h), unless moved_collapse gave
		 * it its delta version's inserter.
		 */
		if (qs_tid_is_virtual(&slot->tts_tid) &&
			TransactionIdEquals(shown,
								HeapTupleHeaderGetRawXmin(qs_recslot_header(slot))))
			shown = DatumGetTransactionId(slot_getsysattr(slot,
														  MinTransactionIdAttributeNumber,
														  &isnull));
		if (!TransactionIdIsValid(shown) || shown < FrozenTransactionId)
			shown = InvalidTransactionId;

		/*
		 * And its cmin, as heap's rewrite keeps a tuple's raw t_cid: a delta
		 * row's, a main row's origin command or its deleter's cmax that an
		 * aborted delete left (the recslot hook, am.c col_shown_cid); a
		 * collapsed move's main copy shows its delta version's.
		 */
		shown_cid = DatumGetCommandId(slot_getsysattr(slot,
													  MinCommandIdAttributeNumber,
													  &isnull));
		slot_getallattrs(slot);
		blocks_add(w, slot, shown, shown_cid);
		return;
	}

	/*
	 * Anything else keeps its header, in the new table's delta, with its
	 * t_ctid linked to its successor's new TID (ddl.c's chains, heap's
	 * rewrite), a main row's (the delete-map entry's link to its new delta
	 * version) as a delta row's.  Not a moved version's: its link to M's
	 * copy is the merge's, not an update (only M's own transaction having
	 * changed the copy brings one here, see moved_collapse), and the mark
	 * that made it one is not copied.  The chains toast as heap's rewrite
	 * (raw_heap_insert) does: a main row's values are stored detoasted in
	 * its block, so its copy may be too big for a page until toasted again
	 * (CLUSTER failed with "row is too big").
	 */
	copy = ExecCopySlotHeapTuple(slot);
	copy->t_data->t_choice = hdr->t_choice;
	copy->t_data->t_infomask = (copy->t_data->t_infomask & ~HEAP_XACT_MASK) |
		(hdr->t_infomask & HEAP_XACT_MASK);
	copy->t_data->t_infomask2 = (copy->t_data->t_infomask2 & ~HEAP2_XACT_MASK) |
		(hdr->t_infomask2 & HEAP2_XACT_MASK);
	copy->t_data->t_ctid = hdr->t_ctid;
	if (qs_header_moved(hdr) || HeapTupleHeaderIsSpeculative(hdr))
		copy->t_data->t_ctid = slot->tts_tid;
	qs_rewrite_chains_write(w->chains, copy, &slot->tts_tid, strategy);
	heap_freetuple(copy);
}

void
qs_col_copy_for_cluster(Relation OldTable, Relation NewTable,
						Relation OldIndex, bool use_sort,
						TransactionId OldestXmin, TransactionId *xid_cutoff,
						MultiXactId *multi_cutoff, double *num_tuples,
						double *tups_vacuumed, double *tups_recently_dead)
{
	TableScanDesc tscan = NULL;
	IndexScanDesc iscan = NULL;
	TupleTableSlot *slot;
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKWRITE);
	RewriteBlocks w;
	MemoryContext old;
	HTAB	   *moved;

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
	/* a main row's copy may be too big for a page: toast it */
	w.chains = qs_rewrite_chains_begin(NewTable, OldestXmin, true);

	qs_colload_flush_rel(OldTable);
	moved = moved_collect(OldTable, OldestXmin, w.cxt);
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
		HTSV_Result status;

		CHECK_FOR_INTERRUPTS();
		if (iscan)
		{
			if (!index_getnext_slot(iscan, ForwardScanDirection, slot))
				break;
		}
		else if (!table_scan_getnextslot(tscan, ForwardScanDirection, slot))
			break;

		status = row_status(OldTable, slot, OldestXmin, &hdr);
		if (moved != NULL)
		{
			if (qs_tid_is_virtual(&slot->tts_tid))
				moved_collapse(OldTable, moved, slot, &hdr, &status,
							   OldestXmin);
			else if (moved_skip(moved, &slot->tts_tid, &hdr))
				continue;
		}
		if (qs_cluster_count(status, num_tuples, tups_vacuumed,
							 tups_recently_dead))
			write_row(&w, slot, &hdr, OldestXmin, strategy);
		else if (status == HEAPTUPLE_DEAD &&
				 qs_rewrite_chains_dead(w.chains, &hdr, &slot->tts_tid))
		{
			/* a recently dead predecessor is known dead now */
			*tups_vacuumed += 1;
			*tups_recently_dead -= 1;
		}
	}

	/*
	 * A delta version whose copy M's own transaction deleted or updated
	 * (moved_collapse), or whose copy the scan did not reach as M's.  While
	 * the invariant of src/merge/README.md section 3 holds the latter
	 * cannot be (a copy stays at least recently dead while its delta
	 * version is): the delta version is then written as it is rather than
	 * lose the row.
	 */
	if (moved != NULL)
	{
		HASH_SEQ_STATUS seq;
		MovedRow   *m;

		hash_seq_init(&seq, moved);
		while ((m = hash_seq_search(&seq)) != NULL)
		{
			HeapTupleHeaderData hdr;

			HTSV_Result status;

			if (m->collapsed)
				continue;
			if (!table_tuple_fetch_row_version(OldTable, &m->delta, SnapshotAny,
											   slot))
				elog(ERROR, "moved row (%u,%u) of \"%s\" not found",
					 ItemPointerGetBlockNumber(&m->delta),
					 ItemPointerGetOffsetNumber(&m->delta),
					 RelationGetRelationName(OldTable));
			status = row_status(OldTable, slot, OldestXmin, &hdr);

			/*
			 * updated by M's transaction at its copy: linked to M's new
			 * version as heap's version updated by M (moved_collapse); the
			 * mark goes, as write_row drops it anyway, so that the link is
			 * kept
			 */
			if (m->has_succ)
			{
				hdr.t_ctid = m->succ;
				hdr.t_infomask2 &= ~QS_INFOMASK2_BITS;
			}
			if (qs_cluster_count(status, num_tuples, tups_vacuumed,
								 tups_recently_dead))
				write_row(&w, slot, &hdr, OldestXmin, strategy);
		}
	}
	blocks_flush(&w);
	qs_rewrite_chains_end(w.chains, strategy);

	if (iscan)
		index_endscan(iscan);
	if (tscan)
		table_endscan(tscan);
	ExecDropSingleTupleTableSlot(slot);
	FreeAccessStrategy(strategy);
	MemoryContextDelete(w.cxt);
}
