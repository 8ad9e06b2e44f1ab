/*-------------------------------------------------------------------------
 *
 * exec.c
 *	  Executor side of QuickstepScan.
 *
 * One page at a time: pin and share-lock the page, collect the offsets of
 * the records visible to the snapshot (heap's visibility routines on the
 * record headers the layout presents), unlock (the pin keeps record bytes
 * in place: layouts move bytes only under a cleanup lock), then run the
 * pushed quals column by column over the selection vector, read the needed
 * columns of the rows left, and hand them out one virtual tuple at a time.
 * ExecScan applies the remaining quals and the projection.
 *
 * A column table (quickstep_column) is scanned through the column AM's own
 * scan descriptor (ColScanDesc, opened with table_beginscan), so that the
 * rules of which delta rows and which blocks and rows of main a scan counts
 * stay in one place: first its delta pages as above, then the main blocks
 * of the scan's directory view, each one skipped or its quals evaluated a
 * chunk of rows at a time (src/column/pushdown.c), then the delete map
 * (qs_colfilter_row) drops rows the snapshot does not see, and only the
 * needed columns of the rows left are decoded, one row at a time.
 *
 *-------------------------------------------------------------------------
 */
#include "scan/qscan.h"
#include "scan/quals.h"
#include "column/colam.h"
#include "column/pushdown.h"
#include "tableam/engine.h"

#include "access/heapam.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

/*
 * Parallel scans of column tables: what each worker counted for EXPLAIN
 * ANALYZE, in the node's DSM segment after the table AM's parallel scan
 * state.  A worker writes its slot when it shuts its node down (before its
 * tuple queue detaches, so before the Gather sees it finish); the leader
 * adds the slots to its own copy when it shuts down or the Gather restarts
 * its workers, and zeroes them.
 */

typedef struct QsSharedCounts
{
	int			nworkers;
	QsColCounts w[FLEXIBLE_ARRAY_MEMBER];
} QsSharedCounts;

typedef struct QsScanState
{
	CustomScanState css;

	const QsPageLayout *layout;
	int			nquals;
	QsQual	  **quals;
	ExprState  *recheck;		/* the pushed quals, for EvalPlanQual */
	MemoryContext argcxt;		/* values of the quals' constant sides */

	int			nneeded;		/* columns handed to the slot */
	AttrNumber *needed;
	Datum	  **colvals;		/* [nneeded][MaxHeapTuplesPerPage] */
	bool	  **colnulls;
	Datum	   *tmpvals;		/* one column, for quals */
	bool	   *tmpnulls;

	/*
	 * Position.  With a page loaded (buf valid), cur is the index of the
	 * row last returned among the nsel selected ones (-1 or nsel before
	 * the first one in the scan direction).  Without one, the scan is
	 * before the first page or after the last one (at_end).
	 */
	bool		started;
	bool		at_end;
	BlockNumber nblocks;
	ParallelBlockTableScanDesc pscan;	/* parallel scans: in DSM */
	ParallelBlockTableScanWorkerData pwork;
	BufferAccessStrategy strategy;
	Buffer		buf;
	BlockNumber blkno;
	int			nsel;			/* rows selected on the current page */
	int			cur;
	OffsetNumber offs[MaxHeapTuplesPerPage];

	/*
	 * Column tables: the AM's scan, and once its delta is done (in_main) the
	 * directory entry to open next and the next row of the open block to
	 * evaluate; rows[0..nsel-1] are the open block's selected rows.
	 */
	bool		column;
	QsPageRange *runs;			/* its blocks' page runs: not delta pages */
	int			nruns;
	TableScanDesc colscan;
	QsColPush	push;
	bool		in_main;
	uint32		next_idx;
	uint32		next_row;
	OffsetNumber *chunk_sel;	/* QS_COLPUSH_CHUNK */
	uint32	   *rows;			/* QS_COLPUSH_CHUNK */
	bool	   *want;			/* natts: the needed columns */
	MemoryContext rowcxt;		/* the values of the row handed out */

	/*
	 * Parallel scans of column tables: pscan above is the first part of the
	 * column AM's parallel scan state (its delta pages' allocator, then the
	 * counter handing out main blocks); the workers' EXPLAIN counters.
	 */
	QsSharedCounts *shared;		/* in DSM */
	int			nworkers;		/* leader: worker_counts[] */
	QsColCounts *worker_counts;
} QsScanState;

static void qs_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *qs_exec(CustomScanState *node);
static void qs_end(CustomScanState *node);
static void qs_rescan(CustomScanState *node);
static Size qs_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void qs_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void qs_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void qs_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate);
static void qs_shutdown(CustomScanState *node);
static void qs_explain(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomExecMethods qs_exec_methods = {
	.CustomName = QS_SCAN_NAME,
	.BeginCustomScan = qs_begin,
	.ExecCustomScan = qs_exec,
	.EndCustomScan = qs_end,
	.ReScanCustomScan = qs_rescan,
	.EstimateDSMCustomScan = qs_estimate_dsm,
	.InitializeDSMCustomScan = qs_init_dsm,
	.ReInitializeDSMCustomScan = qs_reinit_dsm,
	.InitializeWorkerCustomScan = qs_init_worker,
	.ShutdownCustomScan = qs_shutdown,
	.ExplainCustomScan = qs_explain,
};

Node *
qs_scan_create_state(CustomScan *cscan)
{
	QsScanState *st;

	/* partial aggregates of a column table (aggexec.c) */
	if (cscan->scan.scanrelid == 0)
		return qs_aggscan_create_state(cscan);
	st = (QsScanState *) newNode(sizeof(QsScanState), T_CustomScanState);
	st->css.methods = &qs_exec_methods;
	return (Node *) st;
}

static void
prepare_quals(QsScanState *st)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;

	MemoryContextReset(st->argcxt);
	for (int i = 0; i < st->nquals; i++)
		qs_qual_prepare(st->quals[i], econtext, st->argcxt);
}

static void
qs_begin(CustomScanState *node, EState *estate, int eflags)
{
	QsScanState *st = (QsScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	List	   *needed = linitial(cscan->custom_private);
	ListCell   *lc;
	int			i;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	st->column = qs_is_column_rel(rel);
	if (!qs_is_engine_rel(rel) && !st->column)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("QuickstepScan cannot scan relation \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("Its access method is neither a quickstep row layout nor quickstep_column.")));
	/* a column table's delta pages are its row engine's */
	st->layout = qs_layout_of(rel);

	st->nquals = list_length(cscan->custom_exprs);
	st->quals = palloc(sizeof(QsQual *) * st->nquals);
	i = 0;
	foreach(lc, cscan->custom_exprs)
		st->quals[i++] = qs_qual_compile(lfirst(lc), cscan->scan.scanrelid, &node->ss.ps);
	st->recheck = ExecInitQual(cscan->custom_exprs, &node->ss.ps);
	st->argcxt = AllocSetContextCreate(estate->es_query_cxt, "QuickstepScan values",
									   ALLOCSET_SMALL_SIZES);

	st->nneeded = list_length(needed);
	st->needed = palloc(sizeof(AttrNumber) * Max(st->nneeded, 1));
	st->colvals = palloc(sizeof(Datum *) * Max(st->nneeded, 1));
	st->colnulls = palloc(sizeof(bool *) * Max(st->nneeded, 1));
	i = 0;
	foreach(lc, needed)
	{
		st->needed[i] = lfirst_int(lc);
		st->colvals[i] = palloc(sizeof(Datum) * MaxHeapTuplesPerPage);
		st->colnulls[i] = palloc(sizeof(bool) * MaxHeapTuplesPerPage);
		i++;
	}
	st->tmpvals = palloc(sizeof(Datum) * MaxHeapTuplesPerPage);
	st->tmpnulls = palloc(sizeof(bool) * MaxHeapTuplesPerPage);

	/* Columns nobody reads stay NULL in every tuple handed out. */
	for (i = 0; i < slot->tts_tupleDescriptor->natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}

	if (st->column)
	{
		st->chunk_sel = palloc(sizeof(OffsetNumber) * QS_COLPUSH_CHUNK);
		st->rows = palloc(sizeof(uint32) * QS_COLPUSH_CHUNK);
		st->want = palloc0(sizeof(bool) * Max(slot->tts_tupleDescriptor->natts, 1));
		for (i = 0; i < st->nneeded; i++)
			st->want[st->needed[i] - 1] = true;
		st->rowcxt = AllocSetContextCreate(estate->es_query_cxt,
										   "QuickstepScan column row",
										   ALLOCSET_DEFAULT_SIZES);
	}

	st->buf = InvalidBuffer;
	st->started = false;
}

/* Start (or restart) the walk over the relation's pages. */
static void
start_scan(QsScanState *st)
{
	Relation	rel = st->css.ss.ss_currentRelation;
	Snapshot	snapshot = st->css.ss.ps.state->es_snapshot;

	/*
	 * The quals' values are computed here, not at executor start: an
	 * InitPlan's output Param can only be evaluated once the plan tree is
	 * fully initialized, and a rescan may bring new Param values.
	 */
	prepare_quals(st);

	if (st->column)
	{
		/*
		 * The column AM's scan: it flushes this backend's pending bulk load,
		 * predicate-locks the relation and counts the sequential scan, as
		 * every sequential scan of the table does.
		 */
		if (st->pscan)
		{
			/*
			 * table_beginscan_parallel without its snapshot: the executor's
			 * is already the one PostgreSQL restored in every worker, so
			 * all participants read the same directory view.
			 */
			st->colscan = rel->rd_tableam->scan_begin(rel, snapshot, 0, NULL,
													  (ParallelTableScanDesc) st->pscan,
													  SO_TYPE_SEQSCAN | SO_ALLOW_STRAT |
													  SO_ALLOW_SYNC | SO_ALLOW_PAGEMODE);
		}
		else
			st->colscan = table_beginscan(rel, snapshot, 0, NULL);
		if (!qs_is_col_scan(st->colscan))
			elog(ERROR, "QuickstepScan: \"%s\" gave no column scan",
				 RelationGetRelationName(rel));
		qs_colscan_slot_desc((ColScanDesc) st->colscan, st->css.ss.ss_ScanTupleSlot);
		st->in_main = false;
		st->next_idx = 0;

		/*
		 * The delta pass skips the pages of the blocks' runs unread (they
		 * were most of the table's pages, each read to find no row).  Read
		 * after the snapshot was taken: a run listed then held no delta
		 * row, and rows the snapshot sees were there before.
		 */
		{
			MemoryContext old = MemoryContextSwitchTo(st->css.ss.ps.state->es_query_cxt);

			if (st->runs)
				pfree(st->runs);
			st->runs = qs_coldir_runs(rel, &st->nruns);
			MemoryContextSwitchTo(old);
		}
	}

	st->nblocks = RelationGetNumberOfBlocks(rel);
	st->at_end = false;
	if (st->strategy == NULL && st->nblocks > (BlockNumber) (NBuffers / 4))
		st->strategy = GetAccessStrategy(BAS_BULKREAD);
	if (st->pscan)
		table_block_parallelscan_startblock_init(rel, &st->pwork, st->pscan);
	/*
	 * As a heap sequential scan: SERIALIZABLE reads lock the relation, and
	 * the scan counts in pg_stat_*_tables.seq_scan.
	 */
	if (!st->column)
	{
		PredicateLockRelation(rel, snapshot);
		pgstat_count_heap_scan(rel);
	}
	st->started = true;
}

/*
 * The block after the current position in the scan direction, or
 * InvalidBlockNumber past either end.  Parallel scans take blocks from the
 * shared allocator and only go forward (the planner never asks them to go
 * back).
 */
static BlockNumber
adjacent_block(QsScanState *st, ScanDirection dir)
{
	if (st->pscan)
		return table_block_parallelscan_nextpage(st->css.ss.ss_currentRelation,
												 &st->pwork, st->pscan);
	if (ScanDirectionIsForward(dir))
	{
		if (BufferIsValid(st->buf))
			return st->blkno + 1 < st->nblocks ? st->blkno + 1 : InvalidBlockNumber;
		return (!st->at_end && st->nblocks > 0) ? 0 : InvalidBlockNumber;
	}
	if (BufferIsValid(st->buf))
		return st->blkno > 0 ? st->blkno - 1 : InvalidBlockNumber;
	return (st->at_end && st->nblocks > 0) ? st->nblocks - 1 : InvalidBlockNumber;
}

/*
 * Move to the adjacent page with selected rows in direction 'dir'; false
 * (and the position past that end) when there is none.
 */
static bool
next_page(QsScanState *st, ScanDirection dir)
{
	Relation	rel = st->css.ss.ss_currentRelation;
	Snapshot	snapshot = st->css.ss.ps.state->es_snapshot;
	TupleDesc	desc = RelationGetDescr(rel);

	for (;;)
	{
		BlockNumber blkno = adjacent_block(st, dir);
		Page		page;
		const QsPageLayout *PL;
		int			n,
					visible;

		if (BufferIsValid(st->buf))
		{
			ReleaseBuffer(st->buf);
			st->buf = InvalidBuffer;
		}
		/* column tables (forward only): past their blocks' runs unread */
		if (st->column && blkno != InvalidBlockNumber)
		{
			int			r;
			bool		skip = false;

			while ((r = qs_page_range_find(st->runs, st->nruns, blkno)) >= 0)
			{
				if (st->pscan)
				{
					skip = true;	/* the allocator hands out every page */
					break;
				}
				blkno = st->runs[r].end < st->nblocks ? st->runs[r].end : InvalidBlockNumber;
				if (blkno == InvalidBlockNumber)
					break;
			}
			if (skip)
				continue;
		}
		if (blkno == InvalidBlockNumber)
		{
			st->at_end = ScanDirectionIsForward(dir);
			st->nsel = st->cur = 0;
			return false;
		}
		CHECK_FOR_INTERRUPTS();

		st->buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL, st->strategy);
		st->blkno = blkno;
		LockBuffer(st->buf, BUFFER_LOCK_SHARE);
		n = visible = qs_page_visible(st->layout, rel, st->buf, snapshot,
									  NULL, -1, false, st->offs);
		LockBuffer(st->buf, BUFFER_LOCK_UNLOCK);
		/* seq_tup_read: rows read from storage, before the storage filter */
		qs_pgstat_count_heap_getnext_n(rel, visible);
		page = BufferGetPage(st->buf);
		/* an NSM page of a PAX/HPL table (records too big for the layout) */
		PL = qs_page_layout(st->layout, page);

		for (int i = 0; i < st->nquals && n > 0; i++)
		{
			QsQual	   *q = st->quals[i];

			/* integer comparisons in place when the layout can */
			if (qs_qual_filter_page(q, PL, page, desc, st->offs, &n))
				continue;
			PL->read_column(page, desc, q->attno, st->offs, n,
							st->tmpvals, st->tmpnulls);
			n = qs_qual_filter(q, st->tmpvals, st->tmpnulls, st->offs, n);
		}
		InstrCountFiltered2(st, visible - n);
		if (n == 0)
			continue;

		if (PL->read_columns && st->nneeded > 1)
			PL->read_columns(page, desc, st->needed, st->nneeded,
							 st->offs, n, st->colvals, st->colnulls);
		else
			for (int c = 0; c < st->nneeded; c++)
				PL->read_column(page, desc, st->needed[c], st->offs, n,
								st->colvals[c], st->colnulls[c]);
		st->nsel = n;
		st->cur = ScanDirectionIsForward(dir) ? -1 : n;
		return true;
	}
}

/*
 * Column tables: evaluate the next chunk of main rows with selected rows
 * visible to the snapshot, opening (or skipping) blocks of the scan's
 * directory in order; false past the last block.
 */
static bool
next_main_chunk(QsScanState *st)
{
	ColScanDesc s = (ColScanDesc) st->colscan;
	Relation	rel = s->base.rs_rd;

	for (;;)
	{
		uint32		start;
		int			len,
					n,
					k = 0;

		if (!s->have_block)
		{
			uint32		idx;

			/* parallel scans claim blocks from the AM's shared counter */
			if (s->pnext)
				idx = pg_atomic_fetch_add_u32(s->pnext, 1);
			else
				idx = st->next_idx++;
			if (idx >= s->dir.nentries)
				return false;
			qs_colscan_open_block(s, idx);
			if (!qs_colpush_block(&st->push, s))
			{
				qs_colscan_close_block(s);
				continue;
			}
			st->next_row = s->row;
		}
		/* rows row .. row_end - 1 of the block are the scan's (open_block) */
		if (st->next_row >= s->row_end)
		{
			qs_colscan_close_block(s);
			continue;
		}
		CHECK_FOR_INTERRUPTS();
		start = st->next_row;
		len = (int) Min((uint32) QS_COLPUSH_CHUNK, s->row_end - start);
		st->next_row += len;
		n = qs_colpush_chunk(&st->push, s, start, len, st->chunk_sel);
		InstrCountFiltered2(st, len - n);
		for (int i = 0; i < n; i++)
		{
			uint32		row = start + st->chunk_sel[i];	/* a position */
			const HeapTupleHeaderData *hdr;
			int			vis = true;

			/* the delete map is indexed by TID row (a sorted image's map) */
			if (qs_colfilter_row(rel, &s->rr.h.entry, &s->filter,
								 qs_colrows_tidrow(&s->rr, row),
								 s->base.rs_snapshot, InvalidTransactionId,
								 &hdr, &vis) && vis)
				st->rows[k++] = row;
		}
		/* seq_tup_read: main rows are counted once they pass the quals */
		qs_pgstat_count_heap_getnext_n(rel, k);
		st->nsel = k;
		st->cur = -1;
		if (k > 0)
			return true;
	}
}

/* The next selected main row as a virtual tuple of the needed columns. */
static TupleTableSlot *
main_next(QsScanState *st)
{
	ColScanDesc s = (ColScanDesc) st->colscan;
	TupleTableSlot *slot = st->css.ss.ss_ScanTupleSlot;
	uint32		row;

	if (!st->in_main)
	{
		/* the directory as the sequential scan reads it, after the delta */
		qs_colscan_init_main(s);
		qs_colpush_begin(&st->push, s, st->quals, st->nquals,
						 st->css.ss.ps.state->es_query_cxt);
		st->in_main = true;
		st->nsel = st->cur = 0;
	}
	while (st->cur + 1 >= st->nsel)
	{
		if (!next_main_chunk(st))
		{
			ExecClearTuple(slot);
			return NULL;
		}
	}
	row = st->rows[++st->cur];

	ExecClearTuple(slot);
	if (st->nneeded > 0)
	{
		MemoryContext old;

		MemoryContextReset(st->rowcxt);
		old = MemoryContextSwitchTo(st->rowcxt);
		qs_colrows_get_pos(&s->rr, row, st->want, slot->tts_values, slot->tts_isnull);
		MemoryContextSwitchTo(old);
	}
	ExecStoreVirtualTuple(slot);
	qs_virt_tid(s->rr.h.entry.tid_range, qs_colrows_tidrow(&s->rr, row),
				&slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(s->base.rs_rd);
	return slot;
}

static TupleTableSlot *
qs_next(ScanState *ss)
{
	QsScanState *st = (QsScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	ScanDirection dir = ss->ps.state->es_direction;
	int			step = ScanDirectionIsForward(dir) ? 1 : -1;

	if (!st->started)
		start_scan(st);
	if (st->in_main)
		return main_next(st);
	while (!BufferIsValid(st->buf) || st->cur + step < 0 || st->cur + step >= st->nsel)
	{
		if (!next_page(st, dir))
		{
			/* column tables: main blocks after the delta (forward only) */
			if (st->column)
				return main_next(st);
			ExecClearTuple(slot);
			return NULL;
		}
	}
	st->cur += step;

	ExecClearTuple(slot);
	for (int c = 0; c < st->nneeded; c++)
	{
		int			a = st->needed[c] - 1;

		slot->tts_values[a] = st->colvals[c][st->cur];
		slot->tts_isnull[a] = st->colnulls[c][st->cur];
	}
	ExecStoreVirtualTuple(slot);
	ItemPointerSet(&slot->tts_tid, st->blkno, st->offs[st->cur]);
	slot->tts_tableOid = RelationGetRelid(ss->ss_currentRelation);
	return slot;
}

/*
 * EvalPlanQual: the pushed quals on the re-fetched row version.
 *
 * The slot is the table AM's own kind, not the virtual slot the node's
 * expressions were compiled for: the executor compiled them to read
 * tts_values directly (a virtual slot never needs deforming).  Deform the
 * whole row first, so that the pushed quals here and the remaining quals
 * and projection after us read real values.
 */
static bool
qs_recheck(ScanState *ss, TupleTableSlot *slot)
{
	QsScanState *st = (QsScanState *) ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;

	slot_getallattrs(slot);
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	return ExecQual(st->recheck, econtext);
}

static TupleTableSlot *
qs_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, qs_next, qs_recheck);
}

static void
reset_position(QsScanState *st)
{
	if (BufferIsValid(st->buf))
		ReleaseBuffer(st->buf);
	st->buf = InvalidBuffer;
	st->nsel = st->cur = 0;
	st->started = false;
	st->at_end = false;
	if (st->colscan)
		table_endscan(st->colscan);
	st->colscan = NULL;
	st->in_main = false;
}

static void
qs_end(CustomScanState *node)
{
	QsScanState *st = (QsScanState *) node;

	reset_position(st);
	if (st->strategy)
		FreeAccessStrategy(st->strategy);
}

static void
qs_rescan(CustomScanState *node)
{
	QsScanState *st = (QsScanState *) node;

	reset_position(st);
}

/*
 * Parallel scans share PostgreSQL's block allocator (tableam.c); for column
 * tables through the column AM's own parallel scan state (the delta pages'
 * allocator first, then its counter of main blocks), followed by the
 * workers' EXPLAIN counters.
 */
static Size
pscan_size(Relation rel)
{
	if (qs_is_column_rel(rel))
		return MAXALIGN(rel->rd_tableam->parallelscan_estimate(rel));
	return MAXALIGN(sizeof(ParallelBlockTableScanDescData));
}

static Size
qs_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	Relation	rel = node->ss.ss_currentRelation;
	Size		size = pscan_size(rel);

	if (qs_is_column_rel(rel))
		size = add_size(size, add_size(offsetof(QsSharedCounts, w),
									   mul_size(sizeof(QsColCounts),
												pcxt->nworkers)));
	return size;
}

static void
attach_dsm(QsScanState *st, void *coordinate, int nworkers)
{
	Relation	rel = st->css.ss.ss_currentRelation;

	st->pscan = coordinate;
	if (qs_is_column_rel(rel))
	{
		st->shared = (QsSharedCounts *) ((char *) coordinate + pscan_size(rel));
		if (nworkers >= 0)
		{
			st->shared->nworkers = nworkers;
			memset(st->shared->w, 0, sizeof(QsColCounts) * nworkers);
		}
	}
}

static void
qs_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	QsScanState *st = (QsScanState *) node;
	Relation	rel = node->ss.ss_currentRelation;

	attach_dsm(st, coordinate, pcxt->nworkers);
	if (st->column)
		rel->rd_tableam->parallelscan_initialize(rel, (ParallelTableScanDesc) st->pscan);
	else
		table_block_parallelscan_initialize(rel, (ParallelTableScanDesc) st->pscan);
}

/* The leader: add the workers' counters to its own, and zero them. */
static void
collect_worker_counts(QsScanState *st)
{
	QsSharedCounts *sh = st->shared;

	if (sh == NULL || IsParallelWorker())
		return;
	if (st->worker_counts == NULL)
	{
		st->nworkers = sh->nworkers;
		st->worker_counts = MemoryContextAllocZero(st->css.ss.ps.state->es_query_cxt,
												   sizeof(QsColCounts) * Max(sh->nworkers, 1));
	}
	for (int i = 0; i < Min(sh->nworkers, st->nworkers); i++)
	{
		st->worker_counts[i].blocks_read += sh->w[i].blocks_read;
		st->worker_counts[i].skipped_minmax += sh->w[i].skipped_minmax;
		st->worker_counts[i].skipped_dict += sh->w[i].skipped_dict;
		st->worker_counts[i].binary_searches += sh->w[i].binary_searches;
	}
	memset(sh->w, 0, sizeof(QsColCounts) * sh->nworkers);
}

static void
qs_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	QsScanState *st = (QsScanState *) node;
	Relation	rel = node->ss.ss_currentRelation;

	collect_worker_counts(st);
	if (st->column)
		rel->rd_tableam->parallelscan_reinitialize(rel, (ParallelTableScanDesc) coordinate);
	else
		table_block_parallelscan_reinitialize(rel, (ParallelTableScanDesc) coordinate);
}

static void
qs_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	attach_dsm((QsScanState *) node, coordinate, -1);
}

static void
qs_shutdown(CustomScanState *node)
{
	QsScanState *st = (QsScanState *) node;

	if (st->shared == NULL)
		return;
	if (IsParallelWorker())
	{
		int			w = ParallelWorkerNumber;

		if (w >= 0 && w < st->shared->nworkers)
		{
			st->shared->w[w].blocks_read = st->push.blocks_read;
			st->shared->w[w].skipped_minmax = st->push.skipped_minmax;
			st->shared->w[w].skipped_dict = st->push.skipped_dict;
			st->shared->w[w].binary_searches = st->push.binary_searches;
		}
	}
	else
		collect_worker_counts(st);
	/* the segment goes away with the Gather's shutdown */
	st->shared = NULL;
}

/* the block counters as EXPLAIN ANALYZE shows them (aggexec.c too) */
void
qs_scan_explain_col_counts(const QsColCounts *c, ExplainState *es)
{
	ExplainPropertyInteger("Column Blocks Read", NULL, (int64) c->blocks_read, es);
	ExplainPropertyInteger("Blocks Skipped by Min/Max", NULL,
						   (int64) c->skipped_minmax, es);
	ExplainPropertyInteger("Blocks Skipped by Dictionary", NULL,
						   (int64) c->skipped_dict, es);
	/* as "Rows Removed by Filter": in text only when it happened */
	if (c->binary_searches > 0 || es->format != EXPLAIN_FORMAT_TEXT)
		ExplainPropertyInteger("Blocks Narrowed by Binary Search", NULL,
							   (int64) c->binary_searches, es);
}

static void
qs_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	QsScanState *st = (QsScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	char	   *pushed;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	/* qualified names only in VERBOSE, as a Seq Scan's Filter shows them */
	pushed = deparse_expression((Node *) make_ands_explicit(cscan->custom_exprs),
								context, es->verbose, false);
	ExplainPropertyText("Storage Filter", pushed, es);
	if (es->analyze && node->ss.ps.instrument)
	{
		Instrumentation *instr = node->ss.ps.instrument;
		double		removed = instr->nfiltered2;

		if (instr->nloops > 0)
			removed /= instr->nloops;
		ExplainPropertyFloat("Rows Removed by Storage Filter", NULL, removed, 0, es);
	}
	if (es->analyze && st->column)
	{
		QsColCounts total;

		/* totals over the leader and the workers; VERBOSE: each worker's */
		total.blocks_read = st->push.blocks_read;
		total.skipped_minmax = st->push.skipped_minmax;
		total.skipped_dict = st->push.skipped_dict;
		total.binary_searches = st->push.binary_searches;
		for (int i = 0; i < st->nworkers; i++)
		{
			total.blocks_read += st->worker_counts[i].blocks_read;
			total.skipped_minmax += st->worker_counts[i].skipped_minmax;
			total.skipped_dict += st->worker_counts[i].skipped_dict;
			total.binary_searches += st->worker_counts[i].binary_searches;
		}
		qs_scan_explain_col_counts(&total, es);
		if (es->verbose && st->nworkers > 0)
		{
			ExplainOpenGroup("Workers", "Workers", false, es);
			for (int i = 0; i < st->nworkers; i++)
			{
				const QsColCounts *c = &st->worker_counts[i];

				if (es->format == EXPLAIN_FORMAT_TEXT)
				{
					ExplainPropertyText(psprintf("Worker %d", i),
										psprintf("Column Blocks Read: " UINT64_FORMAT
												 ", Skipped by Min/Max: " UINT64_FORMAT
												 ", by Dictionary: " UINT64_FORMAT,
												 c->blocks_read, c->skipped_minmax,
												 c->skipped_dict),
										es);
					continue;
				}
				ExplainOpenGroup("Worker", NULL, true, es);
				ExplainPropertyInteger("Worker Number", NULL, i, es);
				qs_scan_explain_col_counts(c, es);
				ExplainCloseGroup("Worker", NULL, true, es);
			}
			ExplainCloseGroup("Workers", "Workers", false, es);
		}
	}
	if (es->verbose && st->layout)
		ExplainPropertyText("Page Layout", st->column ? "column" : st->layout->name, es);
}
