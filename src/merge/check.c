/*-------------------------------------------------------------------------
 *
 * check.c
 *	  quickstep.check_table's part for the merge (README.md section 3): every
 *	  live mark of a merge links to a row of that merge's block, and no two
 *	  marks link to one row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/rel.h"

#include "column/colstore.h"
#include "merge/moved.h"
#include "page/layout.h"
#include "tableam/engine.h"

typedef struct MarkLink
{
	ItemPointerData link;
	ItemPointerData self;
} MarkLink;

static int
marklink_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) &((const MarkLink *) a)->link,
							  (ItemPointer) &((const MarkLink *) b)->link);
}

static void
bad_mark(Relation rel, ItemPointer self, ItemPointer link, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("moved row (%u,%u) of \"%s\" links to (%u,%u), %s",
					ItemPointerGetBlockNumber(self), ItemPointerGetOffsetNumber(self),
					RelationGetRelationName(rel),
					ItemPointerGetBlockNumberNoCheck(link),
					ItemPointerGetOffsetNumberNoCheck(link), why)));
}

/* does a retired version of 'range' hold 'row' (see the caller)? */
static bool
retired_holds(Relation rel, uint32 range, uint32 row, TransactionId mover,
			  TransactionId horizon)
{
	QsColDirectory all;
	bool		any = false,
				holds = false;

	qs_coldir_read_range_all(rel, range, &all);
	for (uint32 i = 0; i < all.nentries; i++)
	{
		const QsColDirEntry *e = &all.entries[i];

		if (e->tid_range != range)
			continue;
		any = true;
		if (e->state == QS_COLBLK_RETIRED && (e->flags & QS_COLDIR_MERGED) &&
			row < e->published)
			holds = true;
	}
	if (all.entries)
		pfree(all.entries);
	return holds || (!any && TransactionIdPrecedes(mover, horizon));
}

/*
 * qs_merge_check_links
 *		Walk the delta for marks of merges that did not abort; returns how
 *		many there are.
 */
int64
qs_merge_check_links(Relation rel, const QsColDirectory *dir)
{
	const QsPageLayout *L = qs_layout_of(rel);
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	MarkLink   *marks = NULL;
	int64		n = 0,
				cap = 0;

	TransactionId horizon = GetOldestNonRemovableTransactionId(rel);

	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		page;
		OffsetNumber maxoff;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(rel, blk);
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
			HeapTupleHeader h;
			TransactionId mover;
			ItemPointerData self;
			uint32		range,
						row;
			const QsColDirEntry *e;

			if (qs_page_record_state(L, page, off) != QS_REC_NORMAL)
				continue;
			h = qs_page_get_header(L, page, off, &scratch, NULL);
			if (!qs_header_moved(h))
				continue;
			mover = HeapTupleHeaderGetRawXmax(h);
			if (!TransactionIdIsCurrentTransactionId(mover) &&
				!TransactionIdIsInProgress(mover) &&
				!TransactionIdDidCommit(mover))
				continue;		/* an aborted merge's: no longer a mark */
			ItemPointerSet(&self, blk, off);
			if (!qs_virt_decode(&h->t_ctid, &range, &row))
			{
				UnlockReleaseBuffer(buf);
				bad_mark(rel, &self, &h->t_ctid, "which is not a main row");
			}
			e = qs_coldir_find_range(dir, range);

			/*
			 * A mark pruning has not removed yet (or kept for SIREAD locks
			 * on it: src/merge/stubs.c) may outlive its block, all of whose
			 * rows were deleted since: a retired version of the range that
			 * held the row, or none left at all (compacted away) and the
			 * merge older than every snapshot
			 */
			if (e == NULL && retired_holds(rel, range, row, mover, horizon))
				continue;
			if (e == NULL || row >= e->published || !(e->flags & QS_COLDIR_MERGED) ||
				(TransactionIdIsNormal(qs_coldir_row_xmin(e, row)) &&
				 !TransactionIdEquals(qs_coldir_row_xmin(e, row), mover)))
			{
				UnlockReleaseBuffer(buf);
				bad_mark(rel, &self, &h->t_ctid, "which is no row of its merge's block");
			}
			if (n == cap)
			{
				cap = Max(cap * 2, 256);
				marks = marks ? repalloc_huge(marks, sizeof(MarkLink) * cap) :
					palloc_extended(sizeof(MarkLink) * cap, MCXT_ALLOC_HUGE);
			}
			marks[n].link = h->t_ctid;
			marks[n].self = self;
			n++;
		}
		UnlockReleaseBuffer(buf);
	}
	if (n > 1)
	{
		qsort(marks, n, sizeof(MarkLink), marklink_cmp);
		for (int64 i = 1; i < n; i++)
			if (ItemPointerEquals(&marks[i].link, &marks[i - 1].link))
				bad_mark(rel, &marks[i].self, &marks[i].link,
						 "as another moved row does");
	}
	if (marks)
		pfree(marks);
	return n;
}
