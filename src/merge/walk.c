/*-------------------------------------------------------------------------
 *
 * walk.c
 *	  The quiet rows of a column table's delta: the rows a merge moves
 *	  (merge.c's collection) and the worker counts (worker.c), found by
 *	  one walk so that the two can never disagree.
 *
 * A row is quiet when it is visible to every snapshot that exists or will
 * exist and nobody touched it since: HeapTupleSatisfiesVacuum against
 * GetOldestNonRemovableTransactionId says LIVE, its xmax is invalid, it is
 * no speculative insertion, no heap-only tuple and no TAKEN version
 * (README.md).  HeapTupleSatisfiesVacuum sets hint bits under the page's
 * share lock, as any reader does, so that the xmax of an aborted or crashed
 * transaction (a merge's among them) reads as invalid.
 *
 * The walk reads the relation's pages in order, skipping unread the pages
 * of the column blocks the directory lists (qs_coldir_runs): a merge reads
 * the delta's pages, not the table's.  It holds at most one page, share-
 * locked, between calls; a caller that writes (merge.c, between blocks)
 * pauses it first.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "miscadmin.h"
#include "storage/procarray.h"
#include "utils/rel.h"

#include "merge/moved.h"
#include "merge/walk.h"
#include "tableam/engine.h"

static bool
row_quiet(HeapTupleHeader h, HTSV_Result status, TransactionId oldest)
{
	if (status != HEAPTUPLE_LIVE)
		return false;
	if (!(h->t_infomask & HEAP_XMAX_INVALID))
		return false;
	if (HeapTupleHeaderIsSpeculative(h) || HeapTupleHeaderIsHeapOnly(h))
		return false;
	if (h->t_infomask2 & QS_INFOMASK2_TAKEN)
		return false;

	/*
	 * LIVE: the inserter committed (its hint bit may be missing: heap sets
	 * it only once the commit record is flushed), and it precedes every
	 * snapshot's xmin.
	 */
	if (HeapTupleHeaderXminFrozen(h))
		return true;
	return TransactionIdPrecedes(HeapTupleHeaderGetRawXmin(h), oldest);
}

void
qs_quiet_walk_begin(QsQuietWalk *w, Relation rel)
{
	memset(w, 0, sizeof(*w));
	w->rel = rel;
	w->L = qs_layout_of(rel);
	w->oldest = GetOldestNonRemovableTransactionId(rel);
	w->strategy = GetAccessStrategy(BAS_BULKREAD);
	w->nblocks = RelationGetNumberOfBlocks(rel);
	w->runs = qs_coldir_runs(rel, &w->nruns);
	w->blk = 0;
	w->off = FirstOffsetNumber;
	w->buf = InvalidBuffer;
}

/* Read and share-lock the next delta page at or after w->blk; false: none. */
static bool
next_page(QsQuietWalk *w)
{
	while (w->blk < w->nblocks)
	{
		Page		page;

		CHECK_FOR_INTERRUPTS();
		while (w->nextrun < w->nruns && w->runs[w->nextrun].end <= w->blk)
			w->nextrun++;
		if (w->nextrun < w->nruns && w->runs[w->nextrun].start <= w->blk)
		{
			/* a column block's pages: not the delta's */
			w->blk = w->runs[w->nextrun].end;
			w->off = FirstOffsetNumber;
			continue;
		}
		w->buf = ReadBufferExtended(w->rel, MAIN_FORKNUM, w->blk, RBM_NORMAL,
									w->strategy);
		LockBuffer(w->buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(w->buf);
		if (!PageIsNew(page) && !qs_is_column_page(page))
		{
			w->maxoff = qs_page_max_offset(w->L, page);
			return true;
		}
		UnlockReleaseBuffer(w->buf);
		w->buf = InvalidBuffer;
		w->blk++;
		w->off = FirstOffsetNumber;
	}
	return false;
}

bool
qs_quiet_walk_next(QsQuietWalk *w, Page *pagep, OffsetNumber *offp,
				   HeapTupleHeader *hdrp)
{
	for (;;)
	{
		Page		page;

		if (!BufferIsValid(w->buf) && !next_page(w))
			return false;
		page = BufferGetPage(w->buf);
		while (w->off <= w->maxoff)
		{
			OffsetNumber off = w->off++;
			HeapTupleData tup;
			uint32		len;
			HTSV_Result status;

			if (qs_page_record_state(w->L, page, off) != QS_REC_NORMAL)
				continue;
			tup.t_data = qs_page_get_header(w->L, page, off, &w->scratch, &len);
			tup.t_len = len;
			ItemPointerSet(&tup.t_self, w->blk, off);
			tup.t_tableOid = RelationGetRelid(w->rel);
			status = HeapTupleSatisfiesVacuum(&tup, w->oldest, w->buf);
			if (tup.t_data == &w->scratch)
				qs_page_set_header(w->L, page, off, &w->scratch);
			if (row_quiet(tup.t_data, status, w->oldest))
			{
				*pagep = page;
				*offp = off;
				*hdrp = tup.t_data;
				return true;
			}
		}
		UnlockReleaseBuffer(w->buf);
		w->buf = InvalidBuffer;
		w->blk++;
		w->off = FirstOffsetNumber;
	}
}

void
qs_quiet_walk_pause(QsQuietWalk *w)
{
	if (BufferIsValid(w->buf))
	{
		UnlockReleaseBuffer(w->buf);
		w->buf = InvalidBuffer;
	}
}

void
qs_quiet_walk_end(QsQuietWalk *w)
{
	qs_quiet_walk_pause(w);
	FreeAccessStrategy(w->strategy);
	pfree(w->runs);
}
