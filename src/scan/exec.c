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
 * needed columns of the rows left are decoded, a batch of rows at a time
 * (qs_colrows_get_list_cols; main_next).
 *
 *-------------------------------------------------------------------------
 */
#include "scan/qscan.h"
#include "scan/quals.h"
#include "scan/parrange.h"
#include "column/colam.h"
#include "column/pushdown.h"
#include "column/scratch.h"
#include "shared/shared_scan.h"
#include "tableam/engine.h"

#include "access/heapam.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"

/*
 * Parallel scans of column tables: what each worker counted for EXPLAIN
 * ANALYZE, in the node's DSM segment after the table AM's parallel scan
 * state.  A worker writes its slot when it shuts its node down (before its
 * tuple queue detaches, so before the Gather sees it finish); the leader
 * adds the slots to its own copy when it shuts down or the Gather restarts
 * its workers, and zeroes them.  After them, the participants' shared
 * ranges of rows (src/scan/parrange.c).
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
	ExprState  *recheck;		/* the pushed quals, for EvalPlanQual; NULL
								 * until pushed_recheck builds it */
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

	/*
	 * The needed columns of rows[batch_first .. batch_first + batch_n - 1],
	 * decoded together (qs_colrows_get_list_cols; attribute a of row i at
	 * a * batch_rows + i), in batchcxt: the rows handed out are copied from
	 * there.
	 */
	Datum	   *batch_values;
	bool	   *batch_isnull;
	int			batch_rows;		/* at most: QS_COLROWS_BATCH, fewer when wide */
	int			batch_first;
	int			batch_n;
	MemoryContext batchcxt;

	/*
	 * Parallel scans of column tables: pscan above is the first part of the
	 * column AM's parallel scan state (its delta pages' allocator, then the
	 * counter handing out main blocks); the workers' EXPLAIN counters.
	 */
	QsSharedCounts *shared;		/* in DSM */
	int			nworkers;		/* leader: worker_counts[] */
	QsColCounts *worker_counts;
	QsParRanges *ranges;		/* in DSM: the open blocks' untaken rows */
	QsParRangeMine pr;			/* this participant's slot (parrange.c) */
	bool		ranged;			/* the open block's rows are taken from pr */

	/*
	 * Shared scans (src/shared/README.md): why this scan may not join a
	 * circle (NULL: it may), the member's slot while it rides one, the
	 * block it started at and the pages it has been handed.
	 */
	const char *unshared_why;
	QsSharedSlot member;
	bool		shared_joined;	/* EXPLAIN ANALYZE: the last scan was shared */
	bool		sh_active;		/* the member's walk is under way */
	uint32		sh_first_chunk; /* the walk: chunks first, +1, ... mod n */
	uint32		sh_nchunks;
	BlockNumber sh_blk;			/* reading a chunk itself: next block, */
	BlockNumber sh_blk_end;		/* and the chunk's end */
	StringInfoData sh_rows;		/* or handing out a chunk's rows message */
	int			sh_pos;
	bool		sh_in_rows;
	bool		sh_rows_own;	/* the rows are this member's own scan's */
	bool		sh_recheck;		/* some pushed qual did not travel */

	/*
	 * The pushed quals that are not native (fmgr operators): the rows it
	 * scanned for itself and others come filtered by the native ones only,
	 * and these run on them after the others' steps were delivered -- no
	 * user code while this backend owes members their chunks (review
	 * shared3 N2(b)).  NULL: every pushed qual is native.
	 */
	ExprState  *sh_own_recheck;
	bool	   *sh_want;		/* [natts] the needed columns, and those of
								 * sh_own_recheck */
	MemoryContext sh_cxt;		/* one chunk's scan for others */
	uint64		sh_alone;		/* EXPLAIN ANALYZE: chunks read alone, */
	uint64		sh_served;		/* read for others too (how many), */
	uint64		sh_served_members;
	uint64		sh_received;	/* received from another member, */
	uint64		sh_fallback;	/* given up by their scanner */

	/*
	 * The chunks in the order this node started them.  A restart (rescan,
	 * or the rewind of a WITH HOLD cursor at commit, which skips the rows
	 * it already returned and expects them in the same order) does not
	 * rejoin: it reads these chunks again in this order, alone, then the
	 * others (sh_replay).  So does a member whose slot was freed under it
	 * (a subtransaction abort), after the chunks it has started.
	 */
	uint32	   *sh_order;
	int			sh_norder;
	int			sh_order_cap;
	int			sh_replay_pos;	/* next entry of sh_order to read */
	const char *sh_not_joined;	/* EXPLAIN ANALYZE: why it ran unshared */
	bool		sh_walked;		/* a walk has started: restarts never join */
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

/*
 * Why this scan cannot be a shared-scan member, or NULL.  Each reason is a
 * case where a member's rows could differ from its own plain scan or where
 * the walk must be able to go back or be split (src/shared/README.md).
 */
static const char *
qs_shared_scan_refusal(QsScanState *st, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) st->css.ss.ps.plan;
	const char *why;

	if (!qs_enable_shared_scan)
		return "quickstep.enable_shared_scan is off";
	if (st->column)
		return "column table";
	if (eflags & (EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK))
		return "backward scan";
	if (cscan->scan.plan.parallel_aware)
		return "parallel plan";
	if (estate->es_epq_active != NULL)
		return "EvalPlanQual recheck";
	if (ExecRelationIsTargetRelation(estate, cscan->scan.scanrelid))
		return "the statement writes the table";
	/* (a historic MVCC snapshot would be restored as a plain one) */
	if (estate->es_snapshot == NULL ||
		estate->es_snapshot->snapshot_type != SNAPSHOT_MVCC)
		return "no MVCC snapshot";
	if (IsParallelWorker())
		return "parallel worker";
	if ((why = qs_shared_unavailable()) != NULL)
		return why;			/* no registry */
	if (TransactionIdIsValid(GetTopTransactionIdIfAny()))
		return "the transaction has written";
	/* predicate locks and conflict checks are the reader's own */
	if (IsolationIsSerializable())
		return "serializable transaction";
	return NULL;
}

/*
 * The pushed quals as an ordinary qual, for EvalPlanQual rechecks and for
 * the rows a shared scan received without them: built the first time one
 * is needed, since most scans never need it (its ExecInitQual was an eighth
 * of the node's start in pgbench's UPDATEs).  Built in the query's context
 * as at node start; the quals hold no subplans (is_scan_constant), so
 * nothing is registered with the node after ExecInitNode.
 */
static ExprState *
pushed_recheck(QsScanState *st)
{
	if (st->recheck == NULL)
	{
		PlanState  *ps = &st->css.ss.ps;
		MemoryContext old = MemoryContextSwitchTo(ps->state->es_query_cxt);

		st->recheck = ExecInitQual(((CustomScan *) ps->plan)->custom_exprs, ps);
		MemoryContextSwitchTo(old);
	}
	return st->recheck;
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
	st->recheck = NULL;
	st->argcxt = AllocSetContextCreate(estate->es_query_cxt, "QuickstepScan values",
									   ALLOCSET_SMALL_SIZES);

	st->nneeded = list_length(needed);
	st->needed = palloc(sizeof(AttrNumber) * Max(st->nneeded, 1));
	st->colvals = palloc(sizeof(Datum *) * Max(st->nneeded, 1));
	st->colnulls = palloc(sizeof(bool *) * Max(st->nneeded, 1));

	/*
	 * A page's worth of values for the quals' column (tmpvals) and for each
	 * needed column, in one allocation, Datums before the null flags: a
	 * palloc per array was a sixth of qs_begin in pgbench's UPDATEs.
	 */
	st->tmpvals = palloc(sizeof(Datum) * MaxHeapTuplesPerPage * (st->nneeded + 1) +
						 sizeof(bool) * MaxHeapTuplesPerPage * (st->nneeded + 1));
	st->tmpnulls = (bool *) (st->tmpvals + MaxHeapTuplesPerPage * (st->nneeded + 1));
	i = 0;
	foreach(lc, needed)
	{
		st->needed[i] = lfirst_int(lc);
		st->colvals[i] = st->tmpvals + MaxHeapTuplesPerPage * (i + 1);
		st->colnulls[i] = st->tmpnulls + MaxHeapTuplesPerPage * (i + 1);
		i++;
	}

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
		/*
		 * The batch's arrays are made at the first main row (main_next), not
		 * for a scan that never gets there (EXPLAIN, a LIMIT met in the
		 * delta, an Append child never run).
		 */
		/*
		 * At most 256 rows: the column-major arrays of a batch of ten int4
		 * columns then stay in L1 from their decoding to the rows' copies
		 * (1,024 rows of them made each copy a miss).
		 */
		st->batch_rows = Min(qs_colrows_batch_rows(slot->tts_tupleDescriptor, st->want),
							 256);
		st->batchcxt = AllocSetContextCreate(estate->es_query_cxt,
											 "QuickstepScan column rows",
											 ALLOCSET_DEFAULT_SIZES);
	}

	st->buf = InvalidBuffer;
	st->started = false;
	qs_shared_invalidate(&st->member);
	st->unshared_why = qs_shared_scan_refusal(st, estate, eflags);
	if (st->unshared_why == NULL)
	{
		int			natts = slot->tts_tupleDescriptor->natts;
		List	   *own = NIL;

		st->sh_want = palloc0(sizeof(bool) * Max(natts, 1));
		for (i = 0; i < st->nneeded; i++)
			st->sh_want[st->needed[i] - 1] = true;
		i = 0;
		foreach(lc, cscan->custom_exprs)
		{
			QsQual	   *q = st->quals[i++];

			if (qs_shared_qual_native(q))
				continue;
			own = lappend(own, lfirst(lc));
			st->sh_want[q->attno - 1] = true;
		}
		st->sh_own_recheck = own ? ExecInitQual(own, &node->ss.ps) : NULL;
		initStringInfo(&st->sh_rows);
		st->sh_cxt = AllocSetContextCreate(estate->es_query_cxt,
										   "QuickstepScan shared chunk",
										   ALLOCSET_DEFAULT_SIZES);
	}
}

/* Note that the walk started chunk 'chunk' (restarts replay the order). */
static void
record_chunk(QsScanState *st, uint32 chunk)
{
	if (st->sh_norder >= st->sh_order_cap)
	{
		int			cap = Max(16, st->sh_order_cap * 2);

		if (st->sh_order == NULL)
			st->sh_order = MemoryContextAlloc(st->css.ss.ps.state->es_query_cxt,
											  sizeof(uint32) * cap);
		else
			st->sh_order = repalloc(st->sh_order, sizeof(uint32) * cap);
		st->sh_order_cap = cap;
	}
	st->sh_order[st->sh_norder++] = chunk;
}

/*
 * Append to the recorded order every chunk of the table (as it is now)
 * the walk has not started, circularly from where it joined: the rest of a
 * walk read alone.
 */
static void
add_missing_chunks(QsScanState *st)
{
	uint32		nchunks = (st->nblocks + QS_SHARED_CHUNK_PAGES - 1) / QS_SHARED_CHUNK_PAGES;
	int			nrecorded = st->sh_norder;
	bool	   *seen = palloc0(sizeof(bool) * Max(nchunks, 1));

	for (int i = 0; i < nrecorded; i++)
		if (st->sh_order[i] < nchunks)
			seen[st->sh_order[i]] = true;
	for (uint32 i = 0; i < nchunks; i++)
	{
		uint32		c = (st->sh_first_chunk + i) % nchunks;

		if (!seen[c])
			record_chunk(st, c);
	}
	pfree(seen);
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
	 * Join the table's circle where it is.  The transaction may have
	 * written since executor start (a data-modifying CTE): then unshared.
	 */
	st->shared_joined = false;
	st->sh_active = false;
	st->sh_not_joined = NULL;
	if (st->unshared_why != NULL)
		;
	else if (st->sh_norder > 0)
	{
		/* a restart: the first walk's chunks in its order, then the rest */
		add_missing_chunks(st);
		st->sh_replay_pos = 0;
		st->sh_active = true;
		st->sh_in_rows = false;
		st->sh_blk = st->sh_blk_end = 0;
		st->sh_not_joined = "restarted scan";
	}
	else if (st->sh_walked)
	{
		/*
		 * A restart of a walk that ran unshared (registry full, table too
		 * small then, the transaction had written) or started no chunk:
		 * from block 0, as that walk went.  Joining would start
		 * mid-circle, and a WITH HOLD cursor's rewind would skip rows of
		 * another order.
		 */
		st->sh_not_joined = "restarted scan";
	}
	else if (TransactionIdIsValid(GetTopTransactionIdIfAny()))
		st->sh_not_joined = "the transaction has written";	/* since start */
	else if (st->nblocks < 2 * QS_SHARED_CHUNK_PAGES)
		st->sh_not_joined = "table too small";
	else if (st->nblocks / QS_SHARED_CHUNK_PAGES >= QS_SHARED_MAX_CHUNKS)
		st->sh_not_joined = "table too large";
	else
	{
		BlockNumber start;
		bool		shipped_all;

		st->member = qs_shared_join(rel, st->nblocks, &start, snapshot,
									st->quals, st->nquals,
									st->needed, st->nneeded, &shipped_all);
		st->shared_joined = st->sh_active = QsSharedSlotIsValid(st->member);
		if (!st->shared_joined)
			st->sh_not_joined = "registry full";
		st->sh_first_chunk = start / QS_SHARED_CHUNK_PAGES;
		st->sh_nchunks = (st->nblocks + QS_SHARED_CHUNK_PAGES - 1) / QS_SHARED_CHUNK_PAGES;
		st->sh_blk = st->sh_blk_end = 0;
		st->sh_in_rows = false;
		st->sh_recheck = !shipped_all;
		st->sh_norder = 0;
		st->sh_replay_pos = 0;
	}
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
	st->sh_walked = true;
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
 * Read page blkno: its records visible to the snapshot that pass the
 * pushed quals, and their needed columns.  False when none does.
 */
static bool
load_page(QsScanState *st, BlockNumber blkno)
{
	Relation	rel = st->css.ss.ss_currentRelation;
	Snapshot	snapshot = st->css.ss.ps.state->es_snapshot;
	TupleDesc	desc = RelationGetDescr(rel);
	Page		page;
	const QsPageLayout *PL;
	int			n,
				visible;

	if (BufferIsValid(st->buf))
		ReleaseBuffer(st->buf);
	CHECK_FOR_INTERRUPTS();

	st->buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL, st->strategy);
	st->blkno = blkno;

	/*
	 * Opportunistic pruning, as heapgetpage and the engine's scans do: a
	 * small table read by this node only (pgbench's tellers and branches)
	 * was otherwise pruned only by index fetches, which find it pinned by
	 * this scan (ModifyTable's unique checks), so its HOT chains grew and
	 * its updates left the page.
	 */
	qs_page_prune_opt(rel, st->layout, st->buf);
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
	st->nsel = n;
	if (n == 0)
		return false;

	if (PL->read_columns && st->nneeded > 1)
		PL->read_columns(page, desc, st->needed, st->nneeded,
						 st->offs, n, st->colvals, st->colnulls);
	else
		for (int c = 0; c < st->nneeded; c++)
			PL->read_column(page, desc, st->needed[c], st->offs, n,
							st->colvals[c], st->colnulls[c]);
	return true;
}

/*
 * Move to the adjacent page with selected rows in direction 'dir'; false
 * (and the position past that end) when there is none.
 */
static bool
next_page(QsScanState *st, ScanDirection dir)
{
	for (;;)
	{
		BlockNumber blkno = adjacent_block(st, dir);

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
		if (load_page(st, blkno))
		{
			st->cur = ScanDirectionIsForward(dir) ? -1 : st->nsel;
			return true;
		}
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
			{
				if (st->ranges && qs_parrange_steal(&st->pr, &st->push, s))
				{
					st->ranged = true;
					continue;
				}
				/* no block left: its buffers go (src/column/scratch.c) */
				qs_colscratch_release_kept(s->scratch);
				return false;
			}
			qs_colscan_open_block(s, idx);
			if (!qs_colpush_block(&st->push, s))
			{
				qs_colscan_close_block(s);
				continue;
			}
			st->next_row = s->row;
			st->ranged = st->ranges != NULL;
			if (st->ranged)
				qs_parrange_publish(&st->pr, idx, s->row, s->row_end);
		}
		CHECK_FOR_INTERRUPTS();
		if (st->ranged)
		{
			/* the segment is gone only after the scan's last row */
			if (st->ranges == NULL)
				elog(ERROR, "QuickstepScan: parallel scan state gone before the end of its block");
			/* the next chunk of this participant's published range */
			if (!qs_parrange_take(&st->pr, &start, &len))
			{
				qs_colscan_close_block(s);
				continue;
			}
		}
		else
		{
			/* rows row .. row_end - 1 of the block are the scan's */
			if (st->next_row >= s->row_end)
			{
				qs_colscan_close_block(s);
				continue;
			}
			start = st->next_row;
			len = (int) Min((uint32) QS_COLPUSH_CHUNK, s->row_end - start);
			st->next_row += len;
		}
		n = qs_colpush_native(&st->push, s, start, len, st->chunk_sel);
		InstrCountFiltered2(st, len - n);
		/* the rows of the snapshot (the delete map) */
		n = qs_colfilter_keep(rel, s, start, st->chunk_sel, n);
		/* quals calling functions: on visible rows only, as load_page */
		k = qs_colpush_rows(&st->push, s, start, st->chunk_sel, n);
		InstrCountFiltered2(st, n - k);
		for (int i = 0; i < k; i++)
			st->rows[i] = start + st->chunk_sel[i];
		/* seq_tup_read: main rows are counted once they pass the quals */
		qs_pgstat_count_heap_getnext_n(rel, k);
		st->nsel = k;
		st->cur = -1;
		st->batch_first = st->batch_n = 0;
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
		int			natts = slot->tts_tupleDescriptor->natts;

		Assert(s->rr.natts == natts);	/* the batch's columns */

		/*
		 * The next rows' needed columns, a batch at a time (the codec's
		 * kernels over the listed positions instead of a value at a time);
		 * batches, not the whole chunk, so that a LIMIT decodes little more
		 * than it returns.  The rows handed out before are the executor's
		 * no longer: ExecClearTuple above.
		 */
		if (st->cur >= st->batch_first + st->batch_n)
		{
			MemoryContext old;

			if (st->batch_values == NULL)
			{
				st->batch_values = MemoryContextAlloc(st->css.ss.ps.state->es_query_cxt,
													  sizeof(Datum) * st->batch_rows * natts);
				st->batch_isnull = MemoryContextAlloc(st->css.ss.ps.state->es_query_cxt,
													  sizeof(bool) * st->batch_rows * natts);
			}
			st->batch_first = st->cur;
			st->batch_n = Min(st->nsel - st->cur, st->batch_rows);
			MemoryContextReset(st->batchcxt);
			old = MemoryContextSwitchTo(st->batchcxt);
			qs_colrows_get_list_cols(&s->rr, st->rows + st->cur, st->batch_n,
									 st->want, st->batch_values,
									 st->batch_isnull, st->batch_rows);
			MemoryContextSwitchTo(old);
		}

		/*
		 * Only the needed columns were written; the others stay NULL.  The
		 * arrays are column-major (attribute a of the batch's row i at
		 * a * batch_rows + i): decoding into row-major ones was a strided
		 * store per value.
		 */
		{
			const Datum *bv = &st->batch_values[st->cur - st->batch_first];
			const bool *bn = &st->batch_isnull[st->cur - st->batch_first];
			size_t		stride = st->batch_rows;
			Datum	   *values = slot->tts_values;
			bool	   *isnull = slot->tts_isnull;

			for (int j = 0; j < st->nneeded; j++)
			{
				int			a = st->needed[j] - 1;

				values[a] = bv[a * stride];
				isnull[a] = bn[a * stride];
			}
		}
	}
	ExecStoreVirtualTuple(slot);
	qs_virt_tid(s->rr.h.entry.tid_range, qs_colrows_tidrow(&s->rr, row),
				&slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(s->base.rs_rd);
	return slot;
}

/* The current page's selected row st->cur as a virtual tuple. */
static TupleTableSlot *
page_row(QsScanState *st)
{
	TupleTableSlot *slot = st->css.ss.ss_ScanTupleSlot;

	ExecClearTuple(slot);
	for (int c = 0; c < st->nneeded; c++)
	{
		int			a = st->needed[c] - 1;

		slot->tts_values[a] = st->colvals[c][st->cur];
		slot->tts_isnull[a] = st->colnulls[c][st->cur];
	}
	ExecStoreVirtualTuple(slot);
	ItemPointerSet(&slot->tts_tid, st->blkno, st->offs[st->cur]);
	slot->tts_tableOid = RelationGetRelid(st->css.ss.ss_currentRelation);
	return slot;
}

/*
 * A chunk's rows message (received, or built for itself while scanning for
 * others) counts as its pages would in load_page: the records its snapshot
 * sees in seq_tup_read, those the quals that ran in the scanner removed in
 * "Rows Removed by Storage Filter" (the quals run here on the message's
 * rows add theirs one by one, shared_next), so that pg_stat_*_tables and
 * EXPLAIN ANALYZE are those of the unshared scan (review L3).
 */
static void
count_chunk_rows(QsScanState *st)
{
	uint64		visible,
				rows;

	qs_shared_msg_counts(&st->sh_rows, &visible, &rows);
	Assert(rows <= visible);
	qs_pgstat_count_heap_getnext_n(st->css.ss.ss_currentRelation, visible);
	InstrCountFiltered2(st, (double) (visible - rows));
}

/*
 * A member's next chunk (src/shared/README.md): received from the member
 * that scanned it, scanned for itself and the members that need it too,
 * or read alone page by page.  False once the walk is done.
 */
static bool
shared_next_chunk(QsScanState *st)
{
	Relation	rel = st->css.ss.ss_currentRelation;
	int64		step;
	uint32		chunk;
	BlockNumber first,
				end;
	QsSharedRecipient *others;
	int			nothers;
	bool		may_serve,
				taken_back;
	QsSharedNext what;

	if (!QsSharedSlotIsValid(st->member))
	{
		/* a restart, or a member that lost its slot: the recorded order */
		if (st->sh_replay_pos >= st->sh_norder)
			return false;
		chunk = st->sh_order[st->sh_replay_pos++];
		st->sh_blk = chunk * QS_SHARED_CHUNK_PAGES;
		st->sh_blk_end = Min(st->sh_blk + QS_SHARED_CHUNK_PAGES, st->nblocks);
		return true;
	}

	/*
	 * Judging rows for other snapshots needs a backend without an xid
	 * (chunk.c); one that got one in a later node scans for itself only.
	 */
	may_serve = !TransactionIdIsValid(GetTopTransactionIdIfAny());
	MemoryContextReset(st->sh_cxt);
	what = qs_shared_next(st->member, may_serve, RelationGetDescr(rel)->natts,
						  st->sh_cxt, &st->sh_rows, &step, &taken_back,
						  &others, &nothers);
	if (what == QS_NEXT_DONE)
		return false;
	if (what == QS_NEXT_LOST)
	{
		/* freed by a subtransaction's abort: the rest alone */
		qs_shared_invalidate(&st->member);
		st->sh_replay_pos = st->sh_norder;
		add_missing_chunks(st);
		return shared_next_chunk(st);
	}
	chunk = (uint32) step;		/* the walk's steps are chunk numbers */
	record_chunk(st, chunk);
	if (what == QS_NEXT_ROWS)
	{
		st->sh_in_rows = true;
		st->sh_rows_own = false;
		st->sh_pos = 0;
		st->sh_received++;
		qs_shared_stats.received++;
		count_chunk_rows(st);
		return true;
	}
	first = chunk * QS_SHARED_CHUNK_PAGES;
	end = Min(first + QS_SHARED_CHUNK_PAGES, st->nblocks);
	if (taken_back)
	{
		st->sh_fallback++;		/* its scanner gave up: read it ourselves */
		qs_shared_stats.taken_back++;
	}
	else if (nothers > 0)
	{
		QsSharedRecipient *r;
		MemoryContext old = MemoryContextSwitchTo(st->sh_cxt);

		/* this member is recipient 0, with its own quals and snapshot */
		r = palloc(sizeof(QsSharedRecipient) * (nothers + 1));
		memcpy(&r[1], others, sizeof(QsSharedRecipient) * nothers);
		memset(&r[0], 0, sizeof(QsSharedRecipient));
		r[0].snapshot = st->css.ss.ps.state->es_snapshot;
		r[0].quals = st->quals;
		r[0].nquals = st->nquals;
		r[0].want = st->sh_want;
		r[0].nblocks = st->nblocks;
		r[0].msg = st->sh_rows;
		for (int i = 1; i <= nothers; i++)
			end = Max(end, Min(first + QS_SHARED_CHUNK_PAGES, r[i].nblocks));
		qs_shared_scan_chunk(rel, st->layout, st->strategy, first, end, step,
							 r, nothers + 1, st->member);
		MemoryContextSwitchTo(old);
		st->sh_rows = r[0].msg;
		qs_shared_deliver(&r[1], nothers);
		for (int i = 1; i <= nothers; i++)
			pfree(r[i].snapshot);	/* RestoreSnapshot's, in the transaction */
		st->sh_in_rows = true;
		st->sh_rows_own = true;
		st->sh_pos = 0;
		count_chunk_rows(st);
		st->sh_served++;
		st->sh_served_members += nothers;
		qs_shared_stats.served++;
		qs_shared_stats.deliveries += nothers;
		return true;
	}
	else
	{
		st->sh_alone++;
		qs_shared_stats.alone++;
	}
	st->sh_blk = first;
	st->sh_blk_end = end;
	return true;
}

/* A member's next row: its chunks one after the other. */
static TupleTableSlot *
shared_next(QsScanState *st)
{
	ScanState  *ss = &st->css.ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	ExprContext *econtext = ss->ps.ps_ExprContext;

	for (;;)
	{
		if (st->sh_in_rows)
		{
			ExecClearTuple(slot);
			if (qs_shared_msg_next(&st->sh_rows, &st->sh_pos, slot->tts_tupleDescriptor,
								   &slot->tts_tid, slot->tts_values, slot->tts_isnull))
			{
				ExprState  *qual;

				ExecStoreVirtualTuple(slot);
				slot->tts_tableOid = RelationGetRelid(ss->ss_currentRelation);

				/*
				 * Received rows: the quals that did not travel (all pushed
				 * quals, when some did not).  Its own rows, scanned while it
				 * served others: the quals that are not native, which
				 * qs_shared_scan_chunk did not run so that no user code runs
				 * before delivery; they run on rows its snapshot sees only,
				 * as in its unshared scan (review M6).  The message carries
				 * their columns.
				 */
				qual = st->sh_rows_own ? st->sh_own_recheck :
					(st->sh_recheck ? pushed_recheck(st) : NULL);
				if (qual != NULL)
				{
					ResetExprContext(econtext);
					econtext->ecxt_scantuple = slot;
					if (!ExecQual(qual, econtext))
					{
						InstrCountFiltered2(st, 1);
						continue;
					}
				}
				return slot;
			}
			st->sh_in_rows = false;
		}
		if (BufferIsValid(st->buf) && st->cur + 1 < st->nsel)
		{
			st->cur++;
			return page_row(st);
		}
		if (st->sh_blk < st->sh_blk_end)
		{
			/* take what others wrote for us meanwhile */
			if (st->sh_blk % 8 == 0)
				qs_shared_poll(st->member);
			if (load_page(st, st->sh_blk++))
				st->cur = -1;
			continue;
		}
		if (BufferIsValid(st->buf))
		{
			ReleaseBuffer(st->buf);
			st->buf = InvalidBuffer;
		}
		st->nsel = st->cur = 0;
		if (!shared_next_chunk(st))
		{
			/* every chunk once: the member leaves the circle */
			qs_shared_leave(st->member);
			qs_shared_invalidate(&st->member);
			st->sh_active = false;
			st->at_end = true;
			ExecClearTuple(slot);
			return NULL;
		}
	}
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
	if (st->sh_active)
		return shared_next(st);
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
	return page_row(st);
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
	return ExecQual(pushed_recheck(st), econtext);
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
	qs_shared_leave(st->member);
	qs_shared_invalidate(&st->member);
	st->sh_active = false;
	st->sh_in_rows = false;
	st->sh_blk = st->sh_blk_end = 0;
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

/* the workers' EXPLAIN counters, before the range slots */
static Size
counts_size(int nworkers)
{
	return MAXALIGN(add_size(offsetof(QsSharedCounts, w),
							 mul_size(sizeof(QsColCounts), nworkers)));
}

static Size
qs_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	Relation	rel = node->ss.ss_currentRelation;
	Size		size = pscan_size(rel);

	if (qs_is_column_rel(rel))
	{
		size = add_size(size, counts_size(pcxt->nworkers));
		size = add_size(size, qs_parranges_size(pcxt->nworkers));
	}
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
		st->ranges = (QsParRanges *) ((char *) st->shared +
									  counts_size(st->shared->nworkers));
		if (nworkers >= 0)
			qs_parranges_reset(st->ranges, nworkers);
		qs_parrange_attach(&st->pr, st->ranges);
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
		st->worker_counts[i].probes += sh->w[i].probes;
	}
	memset(sh->w, 0, sizeof(QsColCounts) * sh->nworkers);
}

static void
qs_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	QsScanState *st = (QsScanState *) node;
	Relation	rel = node->ss.ss_currentRelation;

	collect_worker_counts(st);
	if (st->ranges)
	{
		qs_parranges_reset(st->ranges, st->ranges->nslots - 1);
		qs_parrange_attach(&st->pr, st->ranges);
	}
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
			st->shared->w[w].probes = st->push.probes;
		}
	}
	else
		collect_worker_counts(st);
	/* the segment goes away with the Gather's shutdown */
	st->shared = NULL;
	st->ranges = NULL;
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
	if (c->probes > 0 || es->format != EXPLAIN_FORMAT_TEXT)
		ExplainPropertyInteger("Sub-block Probes", NULL, (int64) c->probes, es);
}

static void
qs_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	QsScanState *st = (QsScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	char	   *pushed;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	/* a column table's scan may push nothing and only project */
	if (cscan->custom_exprs != NIL)
	{
		/* qualified names only in VERBOSE, as a Seq Scan's Filter shows them */
		pushed = deparse_expression((Node *) make_ands_explicit(cscan->custom_exprs),
									context, es->verbose, false);
		ExplainPropertyText("Storage Filter", pushed, es);
	}
	if (es->analyze && node->ss.ps.instrument && cscan->custom_exprs != NIL)
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
		total.probes = st->push.probes;
		for (int i = 0; i < st->nworkers; i++)
		{
			total.blocks_read += st->worker_counts[i].blocks_read;
			total.skipped_minmax += st->worker_counts[i].skipped_minmax;
			total.skipped_dict += st->worker_counts[i].skipped_dict;
			total.binary_searches += st->worker_counts[i].binary_searches;
			total.probes += st->worker_counts[i].probes;
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
	/* only when the feature is on, so that plain plans stay as they were */
	if (qs_enable_shared_scan && !st->column)
	{
		const char *what;

		if (st->unshared_why != NULL)
			what = psprintf("not possible (%s)", st->unshared_why);
		else if (es->analyze && st->started)
			what = st->shared_joined ? "joined" :
				psprintf("possible (%s)", st->sh_not_joined ? st->sh_not_joined : "not joined");
		else
			what = "possible";
		ExplainPropertyText("Shared Scan", what, es);
		/* chunk counts depend on the other members: VERBOSE only */
		if (es->analyze && es->verbose && st->unshared_why == NULL)
			ExplainPropertyText("Shared Chunks",
								psprintf("alone " UINT64_FORMAT ", scanned for others "
										 UINT64_FORMAT " (" UINT64_FORMAT " deliveries), received "
										 UINT64_FORMAT ", taken back " UINT64_FORMAT,
										 st->sh_alone, st->sh_served, st->sh_served_members,
										 st->sh_received, st->sh_fallback),
								es);
	}
	if (es->verbose && st->layout)
		ExplainPropertyText("Page Layout", st->column ? "column" : st->layout->name, es);
}
