/*-------------------------------------------------------------------------
 *
 * merge.c
 *	  quickstep.merge(): the quiet rows of a column table's delta move into
 *	  a new main block, invisibly (README.md in this folder).
 *
 * The merge runs in its caller's transaction M (the background worker's,
 * later).  It
 *   1. collects quiet delta versions under share locks: inserter committed
 *      before every snapshot that exists or will exist, no xmax, not
 *      speculative, not heap-only;
 *   2. builds them into a block (src/column/build.c) and appends its
 *      directory entry with xmin = M, flag MERGED: invisible until M
 *      commits, and to SnapshotDirty while M runs (no unique check waits
 *      for a merge: the delta version is the row until then);
 *   3. inserts index entries for the new virtual TIDs (UNIQUE_CHECK_NO:
 *      each row passed its checks when it was written);
 *   4. marks each candidate still quiet, page by page under the delta
 *      page's exclusive lock: xmax = M, QS_INFOMASK2_MOVED, t_ctid = the
 *      main copy; a candidate no longer quiet gets its main copy killed
 *      (xmax = M in the delete map): dead whatever M's outcome;
 *   5. deletes the TOAST values of the moved versions with M (the block
 *      holds the values whole; old snapshots still read them through
 *      SnapshotToast until VACUUM).
 * At commit the moves become visible atomically, by M's commit: every
 * snapshot counts either the delta version (M not visible) or the main
 * copy (M visible).  Before the commit record M takes the table's merge
 * interlock exclusively (pre-commit callback), so that no DML cancels a
 * move while M commits (dml.c qs_resolve_moved).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/generic_xlog.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "nodes/pg_list.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/procarray.h"
#include "tcop/utility.h"
#include "replication/syncrep.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#if PG_VERSION_NUM < 160000
#include "utils/syscache.h"
#endif

#include "column/append.h"
#include "core/quickstep.h"
#include "column/colam.h"
#include "column/colstore.h"
#include "column/options.h"
#include "merge/merge.h"
#include "merge/moved.h"
#include "merge/walk.h"
#include "merge/worker.h"
#include "page/layout.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "wal/genxlog.h"

PG_FUNCTION_INFO_V1(qs_merge_sql);

/*
 * What the transaction's merges leave for its pre-commit, in
 * TopTransactionContext: each merged table (its interlock is taken then)
 * and each moved version with TOAST values, whose chunks are deleted then
 * if the version still carries its mark.  Not at mark time: until the
 * interlock is held a DML statement may cancel the move and keep the
 * version, TOAST pointers included (review C1).
 */
typedef struct MergedRel
{
	Oid			relid;
	SubTransactionId subid;		/* the subtransaction that merged it */
	SubTransactionId held;		/* holds the interlock since (qs_merge_hold_moves) */
	bool		by_sql;			/* merged by quickstep.merge(), not forced */
} MergedRel;

typedef struct PendingToast
{
	Oid			relid;
	SubTransactionId subid;
	ItemPointerData tid;		/* the delta version */
	ItemPointerData link;		/* its mark's main copy */
	TransactionId mover;		/* its mark's xmax */
	HeapTuple	tuple;			/* its copy: the TOAST pointers */
} PendingToast;

static List *merged_rels = NIL;	/* of MergedRel */

/* set in the merge worker, whose transactions end with their merges */
bool		qs_merge_in_worker = false;

/* qs_merge_table calls under way in this backend */
static int	merging = 0;

/* quickstep.merge() is running in this backend (not a forced merge) */
static bool merging_sql = false;
static List *pending_toast = NIL;	/* of PendingToast */
static bool callback_registered = false;

/* The TOAST values of the versions still moved at pre-commit go with M. */
static void
delete_pending_toast(void)
{
	ListCell   *lc;

	if (pending_toast == NIL)
		return;
	/* TOAST deletion reads through SnapshotToast, which wants an active snapshot */
	PushActiveSnapshot(GetTransactionSnapshot());
	foreach(lc, pending_toast)
	{
		PendingToast *p = lfirst(lc);
		Relation	rel = table_open(p->relid, NoLock);	/* locked by the merge */
		const QsPageLayout *L = qs_layout_of(rel);
		Buffer		buf = ReadBuffer(rel, ItemPointerGetBlockNumber(&p->tid));
		OffsetNumber off = ItemPointerGetOffsetNumber(&p->tid);
		bool		moved = false;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (qs_page_record_state(L, BufferGetPage(buf), off) == QS_REC_NORMAL)
		{
			HeapTupleHeaderData scratch;
			HeapTupleHeader h = qs_page_get_header(L, BufferGetPage(buf), off,
												   &scratch, NULL);

			moved = qs_header_moved(h) &&
				TransactionIdEquals(HeapTupleHeaderGetRawXmax(h), p->mover) &&
				ItemPointerEquals(&h->t_ctid, &p->link);
		}
		UnlockReleaseBuffer(buf);
		if (moved && TransactionIdIsCurrentTransactionId(p->mover))
			heap_toast_delete(rel, p->tuple, false);
		table_close(rel, NoLock);
	}
	PopActiveSnapshot();
}

static void
merge_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			/* from here to the commit no DML cancels a move of ours */
			foreach(lc, merged_rels)
				qs_merge_interlock_commit(((MergedRel *) lfirst(lc))->relid);
			if (merged_rels != NIL)
				qs_merge_debug_commit_wait();
			delete_pending_toast();
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (merged_rels != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that merged a column table"),
						 errhint("Run quickstep.merge() in its own transaction.")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			merged_rels = NIL;	/* TopTransactionContext is gone */
			pending_toast = NIL;
			break;
		default:
			break;
	}
}

/* a rolled-back subtransaction's merges are undone: forget them */
static void
merge_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		foreach(lc, merged_rels)
		{
			MergedRel  *m = lfirst(lc);

			if (m->subid == mySubid)
				merged_rels = foreach_delete_current(merged_rels, lc);
			else if (m->held == mySubid)
				m->held = InvalidSubTransactionId;	/* the lock went with it */
		}
		foreach(lc, pending_toast)
			if (((PendingToast *) lfirst(lc))->subid == mySubid)
				pending_toast = foreach_delete_current(pending_toast, lc);
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		foreach(lc, merged_rels)
		{
			MergedRel  *m = lfirst(lc);

			if (m->subid == mySubid)
				m->subid = parentSubid;
			if (m->held == mySubid)
				m->held = parentSubid;
		}
		foreach(lc, pending_toast)
			if (((PendingToast *) lfirst(lc))->subid == mySubid)
				((PendingToast *) lfirst(lc))->subid = parentSubid;
	}
}

static void
remember_merged(Relation rel)
{
	MemoryContext old;
	ListCell   *lc;
	MergedRel  *m;

	if (!callback_registered)
	{
		RegisterXactCallback(merge_xact_callback, NULL);
		RegisterSubXactCallback(merge_subxact_callback, NULL);
		callback_registered = true;
	}
	foreach(lc, merged_rels)
	{
		m = lfirst(lc);
		if (m->relid == RelationGetRelid(rel) &&
			m->subid == GetCurrentSubTransactionId())
		{
			m->by_sql |= merging_sql;
			return;
		}
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	m = palloc(sizeof(MergedRel));
	m->relid = RelationGetRelid(rel);
	m->subid = GetCurrentSubTransactionId();
	m->held = InvalidSubTransactionId;
	m->by_sql = merging_sql;
	merged_rels = lappend(merged_rels, m);
	MemoryContextSwitchTo(old);
}

/* refuse a reader of rel after quickstep.merge() of it in this transaction */
static void
refuse_reader(Oid relid)
{
	ListCell   *lc;

	if (qs_debug_merge_hold)
		return;
	foreach(lc, merged_rels)
	{
		MergedRel  *m = lfirst(lc);

		if (m->by_sql && m->relid == relid)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
					 errmsg("cannot read or change table \"%s\" after quickstep.merge() of it in the same transaction",
							get_rel_name(relid)),
					 errdetail("The rows quickstep.merge() moved would stay locked against other sessions' changes until this transaction ends."),
					 errhint("End the transaction right after quickstep.merge(), or call it in a transaction of its own.")));
	}
}

/*
 * qs_merge_refuse_reader
 *		What reads or changes rel's rows outside a query's range table
 *		(quickstep.merge(), seal(), check_table()): refused after merge()
 *		of rel in this transaction, as qs_merge_hold_moves refuses queries.
 */
void
qs_merge_refuse_reader(Oid relid)
{
	if (merged_rels != NIL && merging == 0)
		refuse_reader(relid);
}

/*
 * qs_merge_hold_moves
 *		Before a statement of a transaction that merged (quickstep.merge(),
 *		or a forced merge, in an earlier statement or just before this one):
 *		from here on the transaction may read the rows it moved at their
 *		main copies, or change them, and a writer's cancel of a move
 *		(src/tableam/dml.c, qs_resolve_moved) would take such a row away
 *		from under it — a scan that passed the delta misses the row, an
 *		UPDATE ... WHERE CURRENT OF a cursor on the main copy updates
 *		nothing.  The only way to keep such a row is to make writers wait
 *		for this transaction, which THE RULE forbids: so a query whose
 *		range table ('relids'; every relation when 'all', for utility
 *		statements) names a table quickstep.merge() merged in this
 *		transaction is refused (README §2).  Queries of other tables run,
 *		among them the deferred foreign-key checks of the COMMIT; a nested
 *		query that reads the table has it in its own range table.
 *
 *		Forced merges (quickstep.debug_force_merge, tests only) run before
 *		the statements of any transaction (and, for tests of the same path,
 *		merge() with quickstep.debug_merge_hold), so for them the interlock
 *		is taken exclusively now, before any statement, as the pre-commit
 *		takes it, and kept to the end: a writer meeting a moved row waits
 *		for this transaction as for an updater.
 */
void
qs_merge_hold_moves(const List *relids, bool all)
{
	ListCell   *lc;

	/*
	 * Not in the merge worker (nothing runs after its merges), nor inside a
	 * merge (index expressions and predicates of a merge may run SQL
	 * functions: the merge itself reads nothing it moved).
	 */
	if (merged_rels == NIL || qs_merge_in_worker || merging > 0 ||
		!IsTransactionState())
		return;
	foreach(lc, merged_rels)
	{
		MergedRel  *m = lfirst(lc);

		if (m->by_sql && (all || list_member_oid(relids, m->relid)))
			refuse_reader(m->relid);
	}
	foreach(lc, merged_rels)
	{
		MergedRel  *m = lfirst(lc);
		ResourceOwner save = CurrentResourceOwner;

		if (m->held != InvalidSubTransactionId ||
			(m->by_sql && !qs_debug_merge_hold))
			continue;

		/*
		 * Under the subtransaction's owner, not the portal's a statement may
		 * run under: released exactly when 'held' says (subtransaction
		 * abort), never with a failed cursor's portal.
		 */
		CurrentResourceOwner = CurTransactionResourceOwner;
		PG_TRY();
		{
			qs_merge_interlock_commit(m->relid);
		}
		PG_FINALLY();
		{
			CurrentResourceOwner = save;
		}
		PG_END_TRY();
		m->held = GetCurrentSubTransactionId();
	}
}

/* a moved version with TOAST values: its chunks are deleted at pre-commit */
static void
remember_toast(Relation rel, ItemPointer tid, ItemPointer link,
			   TransactionId mover, HeapTuple tuple)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	PendingToast *p = palloc(sizeof(PendingToast));

	p->relid = RelationGetRelid(rel);
	p->subid = GetCurrentSubTransactionId();
	p->tid = *tid;
	p->link = *link;
	p->mover = mover;
	p->tuple = heap_copytuple(tuple);
	pending_toast = lappend(pending_toast, p);
	MemoryContextSwitchTo(old);
}

typedef struct MergeCand
{
	ItemPointerData tid;		/* the delta version */
	TransactionId xmin;			/* its raw xmin when collected */
	HeapTuple	tuple;			/* its copy (index keys, TOAST) */
} MergeCand;

typedef struct MergeState
{
	Relation	rel;
	const QsPageLayout *L;
	QsQuietWalk walk;			/* where collection resumes */
	MergeCand  *cands;
	int			ncands;
	int			maxcands;
	QsColBuilder builder;
	QsColLoadOptions opts;
	TupleTableSlot *slot;
	uint32	   *pos;			/* candidate i is row pos[i] of the block */
	uint32		limit;			/* rows of the block being built, at most */
	bool		appending;		/* to the open block: ap */
	QsColAppend ap;
} MergeState;

/*
 * Collect the next candidates, up to a block's rows or bytes, into the
 * builder.  Returns false when the delta has no more.
 */
static bool
collect(MergeState *ms)
{
	Page		page;
	OffsetNumber off;
	HeapTupleHeader hdr;

	ms->ncands = 0;
	while (qs_quiet_walk_next(&ms->walk, &page, &off, &hdr))
	{
		BlockNumber blk = ms->walk.blk;
		MergeCand  *c;

		if (ms->ncands == ms->maxcands)
		{
			ms->maxcands *= 2;
			ms->cands = repalloc_huge(ms->cands, sizeof(MergeCand) * ms->maxcands);
		}
		c = &ms->cands[ms->ncands++];
		ItemPointerSet(&c->tid, blk, off);
		c->xmin = HeapTupleHeaderGetRawXmin(hdr);
		c->tuple = qs_page_copy_record(ms->L, ms->rel, page, blk, off);
		c->tuple->t_self = c->tid;
		ExecStoreHeapTuple(c->tuple, ms->slot, false);
		qs_colbuilder_add(&ms->builder, ms->slot);
		/*
		 * The row shows its inserter as xmin, as it did in the delta, and
		 * its raw t_cid as cmin and cmax (heap_getsysattr): the inserter's
		 * command, or an aborted deleter's cmax, as heap's tuple keeps it.
		 * A version an aborted merge marked has that merge's cmax there
		 * (the mark overwrote the inserter's) and shows 0 (am.c,
		 * col_shown_cid): so does its main copy.
		 */
		qs_colbuilder_set_origin(&ms->builder, ms->builder.nrows - 1, c->xmin,
								 (hdr->t_infomask2 & QS_INFOMASK2_MOVED) ?
								 FirstCommandId :
								 HeapTupleHeaderGetRawCommandId(hdr));
		/* and the TID whose SIREAD locks writers of its main copy check */
		qs_colbuilder_set_otid(&ms->builder, ms->builder.nrows - 1, &c->tid);
		ExecClearTuple(ms->slot);
		if (ms->builder.nrows >= ms->limit ||
			ms->builder.bytes >= QS_COL_LOAD_BLOCK_BYTES)
			break;
	}
	/* the block is written next: no page of ours stays locked meanwhile */
	qs_quiet_walk_pause(&ms->walk);
	return ms->ncands > 0;
}

/* Index entries for the block's rows at their new TIDs. */
static void
insert_index_entries(MergeState *ms, uint32 range)
{
	Relation	rel = ms->rel;
	List	   *indexoids = RelationGetIndexList(rel);
	EState	   *estate;
	ExprContext *econtext;
	ListCell   *lc;

	if (indexoids == NIL)
		return;
	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	econtext->ecxt_scantuple = ms->slot;
	foreach(lc, indexoids)
	{
		Relation	ind = index_open(lfirst_oid(lc), RowExclusiveLock);
		IndexInfo  *ii = BuildIndexInfo(ind);
		ExprState  *pred = NULL;

		if (!ii->ii_ReadyForInserts)
		{
			index_close(ind, RowExclusiveLock);
			continue;
		}
		if (ii->ii_Predicate != NIL)
			pred = ExecPrepareQual(ii->ii_Predicate, estate);
		for (int i = 0; i < ms->ncands; i++)
		{
			Datum		values[INDEX_MAX_KEYS];
			bool		isnull[INDEX_MAX_KEYS];
			ItemPointerData tid;

			CHECK_FOR_INTERRUPTS();
			qs_virt_tid(range, ms->pos[i], &tid);
			ExecStoreHeapTuple(ms->cands[i].tuple, ms->slot, false);
			ms->slot->tts_tid = tid;
			ResetExprContext(econtext);
			if (pred == NULL || ExecQual(pred, econtext))
			{
				FormIndexDatum(ii, ms->slot, estate, values, isnull);
				index_insert(ind, values, isnull, &tid, rel, UNIQUE_CHECK_NO,
							 false, ii);
			}
			ExecClearTuple(ms->slot);
		}
		index_close(ind, RowExclusiveLock);
	}
	FreeExecutorState(estate);
	list_free(indexoids);
}

/* The main copy of a candidate that is no longer quiet dies with the merge. */
static void
kill_main_copy(Relation rel, ItemPointer vtid, TransactionId xid)
{
	Buffer		mbuf = qs_coldelmap_buffer(rel, vtid, true);
	QsGenXLogState *state;
	HeapTupleHeader e;

	if (!BufferIsValid(mbuf))
		elog(ERROR, "merged block of \"%s\" has no row (%u,%u)",
			 RelationGetRelationName(rel), ItemPointerGetBlockNumber(vtid),
			 ItemPointerGetOffsetNumber(vtid));
	LockBuffer(mbuf, BUFFER_LOCK_EXCLUSIVE);
	state = qs_genxlog_start(rel);
	e = qs_coldelmap_entry(qs_genxlog_register(state, mbuf, 0),
						   ItemPointerGetOffsetNumber(vtid));
	if (e == NULL)
		elog(ERROR, "merged row (%u,%u) of \"%s\" has no delete-map entry",
			 ItemPointerGetBlockNumber(vtid), ItemPointerGetOffsetNumber(vtid),
			 RelationGetRelationName(rel));
	e->t_infomask &= ~HEAP_XMAX_BITS;
	e->t_infomask2 |= HEAP_KEYS_UPDATED;
	HeapTupleHeaderSetXmax(e, xid);
	qs_genxlog_finish(state);
	UnlockReleaseBuffer(mbuf);
}

/*
 * Mark the candidates still quiet as moved, one WAL record per delta page;
 * returns how many moved.
 */
static int64
mark_moved(MergeState *ms, uint32 range, TransactionId xid, CommandId cid)
{
	Relation	rel = ms->rel;
	const QsPageLayout *L = ms->L;
	int64		moved = 0;
	int			i = 0;
	List	   *kill = NIL;
	ListCell   *lc;

	while (i < ms->ncands)
	{
		BlockNumber blk = ItemPointerGetBlockNumber(&ms->cands[i].tid);
		Buffer		buf = ReadBuffer(rel, blk);
		QsGenXLogState *state;
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		state = qs_genxlog_start(rel);
		page = qs_genxlog_register(state, buf, 0);
		for (; i < ms->ncands &&
			 ItemPointerGetBlockNumber(&ms->cands[i].tid) == blk; i++)
		{
			MergeCand  *c = &ms->cands[i];
			OffsetNumber off = ItemPointerGetOffsetNumber(&c->tid);
			HeapTupleHeaderData scratch;
			HeapTupleHeader h;
			ItemPointerData vtid;

			qs_virt_tid(range, ms->pos[i], &vtid);
			if (qs_page_record_state(L, page, off) != QS_REC_NORMAL)
			{
				kill = lappend_int(kill, i);
				continue;
			}
			h = qs_page_get_header(L, page, off, &scratch, NULL);

			/*
			 * Still the version we copied (same inserter) and still quiet:
			 * nobody locked, updated or deleted it since (an xmax that came
			 * and went without a hint is taken as not quiet).
			 */
			if (!TransactionIdEquals(HeapTupleHeaderGetRawXmin(h), c->xmin) ||
				!(h->t_infomask & HEAP_XMAX_INVALID) ||
				(h->t_infomask2 & QS_INFOMASK2_TAKEN))
			{
				kill = lappend_int(kill, i);
				continue;
			}
			h->t_infomask &= ~HEAP_XMAX_BITS;
			h->t_infomask2 |= QS_INFOMASK2_MOVED | HEAP_KEYS_UPDATED;
			HeapTupleHeaderSetXmax(h, xid);
			HeapTupleHeaderSetCmax(h, cid, false);
			h->t_ctid = vtid;
			qs_page_set_header(L, page, off, h);
			moved++;
		}
		/* a deleted version: not visible to all, pruning may follow */
		PageSetPrunable(page, xid);
		PageClearAllVisible(page);
		qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
		qs_genxlog_finish(state);
		UnlockReleaseBuffer(buf);
	}

	foreach(lc, kill)
	{
		ItemPointerData vtid;

		qs_virt_tid(range, ms->pos[lfirst_int(lc)], &vtid);
		kill_main_copy(rel, &vtid, xid);
		ms->cands[lfirst_int(lc)].tuple = NULL;	/* not moved: its TOAST stays */
	}
	list_free(kill);

	/*
	 * The moved versions' TOAST values go with M (the block holds them
	 * whole), at its pre-commit, for those whose moves nobody cancelled.
	 */
	for (i = 0; i < ms->ncands; i++)
		if (ms->cands[i].tuple != NULL && HeapTupleHasExternal(ms->cands[i].tuple))
		{
			ItemPointerData vtid;

			qs_virt_tid(range, ms->pos[i], &vtid);
			remember_toast(rel, &ms->cands[i].tid, &vtid, xid, ms->cands[i].tuple);
		}
	return moved;
}

/* does the block being built take no more rows? */
static bool
block_full(MergeState *ms)
{
	return ms->builder.nrows >= ms->limit ||
		ms->builder.bytes >= QS_COL_LOAD_BLOCK_BYTES;
}

/*
 * The open block a merge appends to (src/merge/README.md section 5), or
 * false: a version written by a merge (state OPEN) with room, no newer
 * version (no xmax: an aborted append closes it), and a writer that is
 * frozen or committed before every snapshot that exists or will exist,
 * so that its rows are as visible as frozen ones (qs_coldir_row_xmin).
 * The newest such block, if several (a merge that found the last one
 * too young started another).
 */
static bool
find_open_block(Relation rel, const QsColLoadOptions *opts, QsColDirEntry *out,
				uint32 *capacity)
{
	QsColDirectory dir;
	QsColDirectory all = {0};
	TransactionId horizon = GetOldestNonRemovableTransactionId(rel);
	bool		found = false;

	qs_coldir_read(rel, &dir);
	for (uint32 i = dir.nentries; i > 0 && !found; i--)
	{
		const QsColDirEntry *e = &dir.entries[i - 1];
		uint32		cap;

		if (e->state != QS_COLBLK_OPEN || !(e->flags & QS_COLDIR_MERGED) ||
			(e->flags & QS_COLDIR_PENDING) ||
			e->delmap_root == InvalidBlockNumber)
			continue;
		/* an aborted seal's xmax is none (qs_coldir_xmax_aborted_seal) */
		if (TransactionIdIsValid(e->xmax))
		{
			if (!qs_coldir_xmax_aborted(e))
				continue;
			if (all.entries == NULL)
				qs_coldir_read_all(rel, &all);
			if (!qs_coldir_xmax_aborted_seal(&all, e))
				continue;
		}
		if (TransactionIdIsNormal(e->xmin) &&
			(TransactionIdIsCurrentTransactionId(e->xmin) ||
			 !TransactionIdPrecedes(e->xmin, horizon) ||
			 !TransactionIdDidCommit(e->xmin)))
			continue;
		cap = Min(qs_coldelmap_capacity(rel, e), (uint32) opts->rows_per_block);
		if (e->published >= cap)
			continue;
		*out = *e;
		*capacity = cap;
		found = true;
	}
	pfree(dir.entries);
	if (all.entries)
		pfree(all.entries);
	return found;
}

/*
 * The merge appends to the open block: its next version, written into a
 * new run, becomes the block's in one directory record that also gives
 * the old version xmax = M; the rows keep their TIDs.
 */
static int64
append_block(MergeState *ms)
{
	Relation	rel = ms->rel;
	TransactionId xid = GetCurrentTransactionId();
	CommandId	cid = GetCurrentCommandId(true);
	uint8	   *image;
	size_t		image_len;
	QsColDirEntry e;
	uint32		range = ms->ap.entry.tid_range;
	BlockNumber lockblk;
	int64		moved;

	/*
	 * An open block's next version has no index sub-blocks.  The version
	 * that fills the block is sealed: it gets them here, unless the sorted
	 * seal below rewrites it (seal.c gives that one its own).
	 */
	ms->builder.index_cols =
		block_full(ms) &&
		!(ms->opts.sort_col >= 0 && ms->builder.attrs[ms->opts.sort_col].has_order) ?
		ms->opts.index_cols : NULL;
	image = qs_colappend_build(&ms->ap, &ms->builder, rel, ms->opts.enc_mask,
							   &image_len);
	ms->pos = palloc(sizeof(uint32) * ms->ncands);
	for (uint32 j = 0; j < (uint32) ms->ncands; j++)
		ms->pos[j] = ms->ap.base + j;
	e = ms->ap.entry;
	e.state = block_full(ms) ? QS_COLBLK_SEALED : QS_COLBLK_OPEN;
	e.flags = QS_COLDIR_MERGED;
	e.npages = qs_colblock_npages(image_len);
	e.run_start = qs_colrun_write(rel, e.block_id, image, image_len, NULL);
	e.nrows = ms->builder.nrows;
	e.published = ms->builder.nrows;
	e.base = ms->ap.base;
	e.xmin = xid;
	e.cid = cid;
	e.xmax = InvalidTransactionId;
	e.image_len = image_len;
	e.src_first = ItemPointerGetBlockNumber(&ms->cands[0].tid);
	e.src_last = ItemPointerGetBlockNumber(&ms->cands[ms->ncands - 1].tid);

	/*
	 * A delete-map page made before this lock is extended to our rows; one
	 * made after it is made from our version (the newest alive one).
	 */
	lockblk = QS_VIRT_BASE + range * QS_VIRT_PAGES_PER_RANGE;
	LockPage(rel, lockblk, ExclusiveLock);
	qs_coldelmap_extend(rel, &e);
	qs_coldir_supersede(rel, &ms->ap.entry, &e);
	UnlockPage(rel, lockblk, ExclusiveLock);

	insert_index_entries(ms, range);
	moved = mark_moved(ms, range, xid, cid);

	/*
	 * The merge that fills the open block seals it: with a sort key, a
	 * sorted next version whose TID map keeps every row's TID (seal.c), so
	 * the index entries and marks just made stay right.
	 */
	if (e.state == QS_COLBLK_SEALED && ms->opts.sort_col >= 0 &&
		ms->builder.attrs[ms->opts.sort_col].has_order)
		qs_seal_version(rel, ms->builder.attrs, &ms->opts, &e, true);
	return moved;
}

/*
 * One block: build, publish (invisible until M commits), index, mark.  A
 * whole block of rows is sorted on the sort key and sealed; fewer rows
 * start a new open block, in arrival order (later merges append to it).
 */
static int64
merge_block(MergeState *ms, MemoryContext blockcxt)
{
	Relation	rel = ms->rel;
	TransactionId xid = GetCurrentTransactionId();
	CommandId	cid = GetCurrentCommandId(true);
	uint32		range;
	uint32		block_id;
	uint8	   *image;
	size_t		image_len;
	QsColDirEntry e;

	uint32	   *perm = NULL;
	bool		full = block_full(ms);

	/*
	 * Sorted on the table's sort key: nobody holds a TID of the new block
	 * yet, so its rows may take any position.
	 */
	block_id = qs_coldir_reserve(rel, &range);
	/* a block sealed at once gets its index sub-blocks (seal.c) */
	ms->builder.index_cols = full ? ms->opts.index_cols : NULL;
	image = qs_colbuilder_build_perm(&ms->builder, rel, block_id,
									 full ? ms->opts.sort_col : -1,
									 ms->opts.enc_mask, &image_len, &perm);
	ms->pos = palloc(sizeof(uint32) * ms->ncands);
	for (uint32 j = 0; j < (uint32) ms->ncands; j++)
		ms->pos[perm ? perm[j] : j] = j;
	memset(&e, 0, sizeof(e));
	e.block_id = block_id;
	e.state = full ? QS_COLBLK_SEALED : QS_COLBLK_OPEN;
	e.flags = QS_COLDIR_MERGED;
	e.npages = qs_colblock_npages(image_len);
	e.run_start = qs_colrun_write(rel, block_id, image, image_len, NULL);
	e.tid_range = range;
	e.nrows = ms->builder.nrows;
	e.published = ms->builder.nrows;
	e.xmin = xid;
	e.cid = cid;
	e.image_len = image_len;
	/* an open block's delete map is shared by its versions: made now */
	e.delmap_root = full ? InvalidBlockNumber :
		qs_coldelmap_new_root(rel, block_id, (uint32) ms->opts.rows_per_block);
	e.src_first = ItemPointerGetBlockNumber(&ms->cands[0].tid);
	e.src_last = ItemPointerGetBlockNumber(&ms->cands[ms->ncands - 1].tid);
	qs_coldir_append(rel, &e);

	insert_index_entries(ms, range);
	return mark_moved(ms, range, xid, cid);
}

static int64
merge_rel(Relation rel)
{
	MergeState	ms;
	MemoryContext cxt;
	MemoryContext blockcxt;
	MemoryContext old;
	int64		moved = 0;

	/* a column block has at least one column: such a table keeps its delta */
	if (RelationGetDescr(rel)->natts == 0)
		return 0;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep merge",
								ALLOCSET_DEFAULT_SIZES);
	blockcxt = AllocSetContextCreate(cxt, "quickstep merge block",
									 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	memset(&ms, 0, sizeof(ms));
	ms.rel = rel;
	ms.L = qs_layout_of(rel);
	qs_quiet_walk_begin(&ms.walk, rel); /* before the first block we write */
	ms.maxcands = 1024;
	ms.cands = palloc(sizeof(MergeCand) * ms.maxcands);
	ms.slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
	qs_colbuilder_init(&ms.builder, rel, qs_colattrs(RelationGetDescr(rel)));
	qs_colopts_for_load(rel, ms.builder.attrs, &ms.opts);

	for (;;)
	{
		QsColDirEntry open;
		uint32		capacity;
		bool		more;

		MemoryContextSwitchTo(blockcxt);
		ms.limit = (uint32) ms.opts.rows_per_block;
		ms.appending = find_open_block(rel, &ms.opts, &open, &capacity);
		if (ms.appending)
		{
			ms.limit = capacity;
			qs_colappend_begin(&ms.ap, rel, &ms.builder, &open, ms.opts.enc_mask);
		}
		more = collect(&ms);
		if (more)
		{
			remember_merged(rel);
			moved += ms.appending ? append_block(&ms) : merge_block(&ms, blockcxt);
		}
		if (ms.appending)
			qs_colappend_end(&ms.ap);
		MemoryContextSwitchTo(cxt);
		MemoryContextReset(blockcxt);
		qs_colbuilder_reset(&ms.builder);
		if (!more)
			break;
	}
	qs_quiet_walk_end(&ms.walk);
	MemoryContextSwitchTo(old);
	ExecDropSingleTupleTableSlot(ms.slot);
	MemoryContextDelete(cxt);

	/*
	 * Every moved row leaves one dead version behind whatever M's outcome:
	 * the delta original if M commits, the main copy if it aborts.  Counted
	 * as dead for the statistics (a negative "recovery", not
	 * transactional: the count holds either way), so that autovacuum comes
	 * by its dead-row threshold and gives the emptied delta pages back for
	 * later inserts (before, only its insert threshold brought it).
	 */
	if (moved > 0)
		pgstat_update_heap_dead_tuples(rel, -(int) Min(moved, (int64) PG_INT32_MAX));
	return moved;
}

/*
 * qs_merge_table
 *		The merge of one column table in the current transaction, which
 *		must not be SERIALIZABLE; the caller holds ShareUpdateExclusiveLock
 *		(or stronger) on rel.  Returns how many rows moved.  Used by
 *		quickstep.merge() and the merge worker.
 */
int64
qs_merge_table(Relation rel)
{
	int64		moved;

	Assert(!IsolationIsSerializable());
	Assert(qs_is_column_rel(rel));
	qs_colload_flush_rel(rel);

	/*
	 * An exclusion constraint's check (SnapshotDirty over a GiST or SP-GiST
	 * index, TIDs in any order) could visit a row's main copy before its
	 * delta version across the merge's commit and find neither: such
	 * tables keep their rows in the delta (as their loads do).
	 */
	if (qs_col_has_exclusion_index(rel))
		return 0;

	/*
	 * A DML statement that meets one of our marks while we commit waits
	 * for the interlock until the commit is visible: not for a synchronous
	 * standby too.  Safe: whoever relied on our commit commits after us.
	 * Not asynchronously here unless the session asked for it (the
	 * worker's merges are: worker.c): the caller's transaction may hold
	 * its own writes, whose COMMIT must stay durable.
	 */
	if (synchronous_commit > SYNCHRONOUS_COMMIT_LOCAL_FLUSH)
		(void) set_config_option("synchronous_commit", "local",
								 PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, 0, false);
	merging++;
	PG_TRY();
	{
		moved = merge_rel(rel);
	}
	PG_FINALLY();
	{
		merging--;
	}
	PG_END_TRY();
	return moved;
}

/*
 * qs_merge_as_owner_begin / _end
 *		Around a merge of rel not asked for by its owner (the worker, forced
 *		merges): as the owner, under SECURITY_RESTRICTED_OPERATION, with
 *		search_path = pg_catalog, pg_temp (index expressions and predicates
 *		run as in VACUUM).
 */
void
qs_merge_as_owner_begin(Relation rel, QsMergeAsOwner *s)
{
	GetUserIdAndSecContext(&s->save_userid, &s->save_sec_context);
	SetUserIdAndSecContext(rel->rd_rel->relowner,
						   s->save_sec_context | SECURITY_RESTRICTED_OPERATION);
	s->save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

void
qs_merge_as_owner_end(QsMergeAsOwner *s)
{
	AtEOXact_GUC(false, s->save_nestlevel);
	SetUserIdAndSecContext(s->save_userid, s->save_sec_context);
}

/*
 * qs_merge_open_sql
 *		What quickstep.merge() and quickstep.seal() (fname) check before
 *		they work: not SERIALIZABLE (serial_detail says why), not during
 *		recovery, not READ ONLY, a column table (else wrongtype_hint), its owner.  Returns
 *		it opened with ShareUpdateExclusiveLock: as VACUUM, no DML is
 *		blocked, one merge, seal, VACUUM or DDL at a time.
 */
Relation
qs_merge_open_sql(Oid relid, const char *fname, const char *serial_detail,
				  const char *wrongtype_hint)
{
	Relation	rel;

	/* a second merge or a seal reads what merge() moved (hold_moves) */
	qs_merge_refuse_reader(relid);
	if (IsolationIsSerializable())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot run in a SERIALIZABLE transaction", fname),
				 errdetail_internal("%s", serial_detail),
				 errhint("Run it at READ COMMITTED or REPEATABLE READ.")));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s cannot run during recovery", fname)));
	/* it writes: refused in a READ ONLY transaction, as every write is */
	PreventCommandIfReadOnly(fname);
	rel = table_open(relid, ShareUpdateExclusiveLock);
	if (!qs_is_column_rel(rel))
	{
		table_close(rel, ShareUpdateExclusiveLock);
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a quickstep_column table",
						RelationGetRelationName(rel)),
				 errhint("%s", wrongtype_hint)));
	}
	if (!qs_rel_owned_by_user(relid))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(rel));
	return rel;
}

/*
 * quickstep.merge(rel regclass) RETURNS bigint
 *		Move the quiet rows of the delta into main blocks in the caller's
 *		transaction; returns how many moved.
 */
Datum
qs_merge_sql(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	int64		moved;

	rel = qs_merge_open_sql(relid, "quickstep.merge()",
							"A serializable merge would take part in serialization conflicts with the readers of the rows it moves.",
							"quickstep.merge() moves the delta rows of column tables into column blocks.");

	{
		/* counted by quickstep.column_stats when the transaction commits */
		instr_time	start,
					elapsed;

		bool		save_sql = merging_sql;

		INSTR_TIME_SET_CURRENT(start);
		merging_sql = true;
		PG_TRY();
		{
			moved = qs_merge_table(rel);
		}
		PG_FINALLY();
		{
			merging_sql = save_sql;
		}
		PG_END_TRY();
		INSTR_TIME_SET_CURRENT(elapsed);
		INSTR_TIME_SUBTRACT(elapsed, start);
		qs_mergestats_note(relid, moved, INSTR_TIME_GET_MILLISEC(elapsed));
	}
	table_close(rel, NoLock);
	PG_RETURN_INT64(moved);
}
