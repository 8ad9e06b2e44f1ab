/*-------------------------------------------------------------------------
 *
 * walk.h
 *	  The quiet rows of a column table's delta, page by page: what a merge
 *	  moves (merge.c) and what the worker counts (worker.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_MERGE_WALK_H
#define QS_MERGE_WALK_H

#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

#include "column/colstore.h"
#include "page/layout.h"

typedef struct QsQuietWalk
{
	Relation	rel;
	const QsPageLayout *L;
	TransactionId oldest;		/* GetOldestNonRemovableTransactionId */
	BufferAccessStrategy strategy;
	QsPageRange *runs;			/* the blocks' pages, skipped unread */
	int			nruns;
	int			nextrun;
	BlockNumber nblocks;		/* pages when the walk began */
	BlockNumber blk;			/* the page read now, or next */
	OffsetNumber off;			/* the next offset to test on blk */
	OffsetNumber maxoff;
	Buffer		buf;			/* blk share-locked, or InvalidBuffer */
	HeapTupleHeaderData scratch;
} QsQuietWalk;

/*
 * Begin a walk over the delta pages rel has now (pages added later, the
 * blocks a merge writes among them, are not walked).
 */
extern void qs_quiet_walk_begin(QsQuietWalk *w, Relation rel);

/*
 * The next quiet row: its page stays share-locked (w->buf) until the next
 * call, qs_quiet_walk_pause or qs_quiet_walk_end; *hdr may point into
 * w->scratch.  false at the end of the delta.
 */
extern bool qs_quiet_walk_next(QsQuietWalk *w, Page *page, OffsetNumber *off,
							   HeapTupleHeader *hdr);

/* Unlock the page; the next call goes on after the last row returned. */
extern void qs_quiet_walk_pause(QsQuietWalk *w);

extern void qs_quiet_walk_end(QsQuietWalk *w);

#endif							/* QS_MERGE_WALK_H */
