/*-------------------------------------------------------------------------
 *
 * force.c
 *	  quickstep.debug_force_merge: a merge (and a seal) of every column
 *	  table a statement uses, forced before the statement runs (tests only).
 *
 * THE RULE (README.md in this folder) says a merge or a seal changes no
 * result.  The shared row test bodies (test/sql/row_*.sql) compare a table
 * of a layout with a heap table after every step; run on column tables
 * with this setting, every step of them reads and writes rows that the
 * steps before moved into blocks (merged, appended to the open block,
 * sealed and sorted), so any result that differs from heap's is a bug of
 * the merge, the seal or the column table's readers of moved rows.
 *
 * Where: before the executor starts a statement (ExecutorStart_hook), on
 * each quickstep_column table of its range table, and before the utility
 * statements that read or rewrite a named column table (COPY, CREATE
 * INDEX, REINDEX TABLE, ALTER TABLE, CLUSTER, VACUUM / ANALYZE).  Nested
 * statements (PL/pgSQL, SQL functions, triggers, RI actions) count too.
 *
 * The merge runs in the statement's own transaction, as quickstep.merge()
 * called by the statement before would (not SERIALIZABLE, not READ ONLY,
 * not during recovery, not in parallel mode: what merge() refuses is
 * skipped here, never an error).  It is followed by a command counter
 * increment and the statement's snapshot is advanced to the new command
 * (UpdateActiveSnapshotCommandId, what a multi-statement portal does
 * between its statements), so the statement reads the moved rows in their
 * blocks: as if the merge had been the previous command of the transaction.
 * That is only done on a snapshot the statement owns alone (pushed once,
 * registered nowhere): a snapshot another executor also uses (a read-only
 * SPI call inside a running query, a cursor) must not see commands it did
 * not see before, so then nothing is merged.
 *
 * Nothing is merged while any other executor of this backend has the
 * table open (its relcache reference count, as CheckTableNotInUse asks):
 * an outer statement that updates the table (a trigger or a volatile
 * function of an UPDATE reading it, a cursor of UPDATE ... WHERE CURRENT
 * OF) has a snapshot from before the merge and a command id below the
 * merge's, and would find the rows it goes on to change moved by a later
 * command of its own transaction ("invisible"): heap has no such state, so
 * such merges are not forced.  Nor is a table skipped by merge() anyway
 * (exclusion constraints), nor one whose ShareUpdateExclusiveLock is not
 * free at once (a VACUUM or DDL of another session: a forced merge never
 * waits).  The merge runs as the table's owner under
 * SECURITY_RESTRICTED_OPERATION (index expressions run as in VACUUM and
 * the merge worker), so a test may run as any role.
 *
 * Only rows whose inserter committed before every running snapshot move
 * (merge.c's quiet test): rows of the statement's own transaction stay in
 * the delta until a later transaction's statement.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "column/colam.h"
#include "merge/merge.h"

int			qs_debug_force_merge = QS_FORCE_MERGE_OFF;

static ExecutorStart_hook_type prev_executor_start = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

/*
 * Whether a merge may run now at all: what merge() and seal() refuse
 * (qs_merge_open_sql) is skipped silently here.
 */
static bool
force_possible(void)
{
	return qs_debug_force_merge != QS_FORCE_MERGE_OFF &&
		IsTransactionState() &&
		!IsAbortedTransactionBlockState() &&
		!XactReadOnly &&
		!IsolationIsSerializable() &&
		!RecoveryInProgress() &&
		!IsInParallelMode();
}

/*
 * The merge (and seal) of one table, if it is a column table nobody else
 * in this backend has open and its lock is free.  Returns whether it ran.
 */
static bool
force_one(Oid relid)
{
	Relation	rel;
	bool		ok;
	QsMergeAsOwner owner;

	if (get_rel_relkind(relid) != RELKIND_RELATION)
		return false;
	if (!ConditionalLockRelationOid(relid, ShareUpdateExclusiveLock))
		return false;
	rel = try_table_open(relid, NoLock);
	if (rel == NULL)
	{
		UnlockRelationOid(relid, ShareUpdateExclusiveLock);
		return false;
	}
	/* ours is the only reference: no other executor has it open */
	ok = qs_is_column_rel(rel) && rel->rd_refcnt == 1 &&
		!qs_col_has_exclusion_index(rel);
	if (!ok)
	{
		table_close(rel, NoLock);
		/* the statement will take its own lock; ours was only for us */
		UnlockRelationOid(relid, ShareUpdateExclusiveLock);
		return false;
	}

	/* index expressions and predicates run as the owner's, as in VACUUM */
	qs_merge_as_owner_begin(rel, &owner);
	(void) qs_merge_table(rel);
	if (qs_debug_force_merge == QS_FORCE_MERGE_SEAL)
		(void) qs_seal_table(rel);
	/* the statement reads what was moved (qs_merge_hold_moves) */
	qs_merge_hold_moves(NIL, false);
	qs_merge_as_owner_end(&owner);

	/* the lock stays until the end of the transaction, as merge()'s */
	table_close(rel, NoLock);
	return true;
}

/*
 * Force the merges of the tables in relids (a List of Oids) before a
 * statement.  *snap is the statement's snapshot, registered regd times by
 * the statement (its QueryDesc's registration); NULL: the statement has
 * none yet.
 */
static void
force_list(List *relids, Snapshot *snap, uint32 regd)
{
	bool		pushed = false;
	bool		any = false;
	ListCell   *lc;

	if (relids == NIL)
		return;
	if (*snap == NULL)
	{
		/* a utility statement that takes its snapshots itself, if any */
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	else if (!ActiveSnapshotSet() || GetActiveSnapshot() != *snap ||
			 (*snap)->active_count != 1 || (*snap)->regd_count != regd)
		return;					/* another executor shares it: see above */

	foreach(lc, relids)
		any |= force_one(lfirst_oid(lc));

	if (pushed)
		PopActiveSnapshot();
	if (any)
	{
		/* the statement sees the merge as its transaction's last command */
		CommandCounterIncrement();
		if (!pushed)
		{
			/* UpdateActiveSnapshotCommandId wants it unregistered */
			for (uint32 i = 0; i < regd; i++)
				UnregisterSnapshot(*snap);
			UpdateActiveSnapshotCommandId();
			for (uint32 i = 0; i < regd; i++)
				*snap = RegisterSnapshot(GetActiveSnapshot());
		}
	}
}

static void
force_executor_start(QueryDesc *queryDesc, int eflags)
{
	List	   *relids = NIL;
	ListCell   *lc;

	foreach(lc, queryDesc->plannedstmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION &&
			rte->relkind == RELKIND_RELATION)
			relids = list_append_unique_oid(relids, rte->relid);
	}
	/* rows an earlier statement of ours moved: no cancel from here (merge.c) */
	qs_merge_hold_moves(relids, false);
	if (force_possible() && !(eflags & EXEC_FLAG_EXPLAIN_ONLY) &&
		!IsParallelWorker())
		force_list(relids, &queryDesc->snapshot, 1);
	list_free(relids);

	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/* the table a utility statement names, if any (InvalidOid: none) */
static Oid
force_rv(RangeVar *rv)
{
	if (rv == NULL)
		return InvalidOid;
	return RangeVarGetRelid(rv, NoLock, true);
}

/* the tables of the utility statements that read or rewrite them */
static List *
force_utility_rels(Node *parsetree)
{
	List	   *relids = NIL;

	switch (nodeTag(parsetree))
	{
		case T_CopyStmt:
			relids = lappend_oid(relids, force_rv(((CopyStmt *) parsetree)->relation));
			break;
		case T_IndexStmt:
			relids = lappend_oid(relids, force_rv(((IndexStmt *) parsetree)->relation));
			break;
		case T_ReindexStmt:
			if (((ReindexStmt *) parsetree)->kind == REINDEX_OBJECT_TABLE)
				relids = lappend_oid(relids, force_rv(((ReindexStmt *) parsetree)->relation));
			break;
		case T_AlterTableStmt:
			relids = lappend_oid(relids, force_rv(((AlterTableStmt *) parsetree)->relation));
			break;
		case T_ClusterStmt:
			relids = lappend_oid(relids, force_rv(((ClusterStmt *) parsetree)->relation));
			break;
		case T_VacuumStmt:
			{
				ListCell   *lc;

				foreach(lc, ((VacuumStmt *) parsetree)->rels)
					relids = lappend_oid(relids,
										 force_rv(lfirst_node(VacuumRelation, lc)->relation));
			}
			break;
		default:
			break;
	}
	return list_delete_oid(relids, InvalidOid);
}

static void
force_process_utility(PlannedStmt *pstmt, const char *queryString,
					  bool readOnlyTree, ProcessUtilityContext context,
					  ParamListInfo params, QueryEnvironment *queryEnv,
					  DestReceiver *dest, QueryCompletion *qc)
{
	/*
	 * COPY TO and the like read what an earlier statement moved (merge.c);
	 * transaction control, SET and SHOW read no table.
	 */
	if (!IsA(pstmt->utilityStmt, TransactionStmt) &&
		!IsA(pstmt->utilityStmt, VariableSetStmt) &&
		!IsA(pstmt->utilityStmt, VariableShowStmt))
		qs_merge_hold_moves(NIL, true);
	if (force_possible())
	{
		List	   *relids = force_utility_rels(pstmt->utilityStmt);

		if (relids != NIL)
		{
			Snapshot	snap = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;

			force_list(relids, &snap, 0);
			list_free(relids);
		}
	}

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

void
qs_force_merge_install_hooks(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = force_executor_start;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = force_process_utility;
}
