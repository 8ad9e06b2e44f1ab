/*-------------------------------------------------------------------------
 *
 * worker.c
 *	  A merge worker: one pass over the column tables of one database
 *	  (started by launcher.c), merging those whose delta holds more rows
 *	  the merge could move than the table's trigger: its merge_threshold
 *	  option, or quickstep.merge_threshold, lowered by its merge_fraction
 *	  option for a small main (merge_trigger).
 *
 * The pass lists the database's quickstep_column tables (none if the
 * extension is not installed: the launcher is told through shared memory)
 * and takes each in its own transaction, at READ COMMITTED:
 *
 *   ConditionalLockRelationOid(ShareUpdateExclusiveLock): as
 *     quickstep.merge() and VACUUM, no DML is blocked; a table that DDL,
 *     VACUUM or another merge holds is skipped (until the next pass), so
 *     the worker never queues behind them nor makes others queue behind
 *     its own wait;
 *   count the delta's movable rows (the quiet test of merge.c's
 *     collect()), stopping once past the threshold;
 *   skip tables with exclusion constraints (merge.c would move nothing);
 *   qs_merge_table(rel) as the table's owner, under
 *     SECURITY_RESTRICTED_OPERATION and a safe search_path (index
 *     expressions and predicates run as VACUUM runs them);
 *   commit: the counters (stats.c) count the merge then.
 *
 * An error in one table is caught (PG_TRY): the transaction is aborted,
 * which rolls the merge back (README.md: an aborted merge leaves blocks
 * invisible to all and marks DML ignores), the message is recorded as the
 * table's last error, and the pass goes on with the next table.  Exiting
 * instead would leave the rest of the database unmerged until the next
 * pass, and a table that fails each time would stop every table after it
 * for good.  A query cancel (pg_cancel_backend) is such an error: it ends
 * the merge of one table.  SIGTERM ends the worker (FATAL at the next
 * interrupt check; the transaction is aborted on exit).  kill -9 makes the
 * postmaster restart the cluster, as for any backend; recovery rolls the
 * merge back.
 *
 * pg_stat_activity shows backend_type and application_name "quickstep
 * merge worker", and in query "merging <schema>.<table>" while it merges.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "column/colam.h"
#include "column/colstore.h"
#include "column/options.h"
#include "core/quickstep.h"
#include "merge/merge.h"
#include "merge/moved.h"
#include "merge/walk.h"
#include "merge/worker.h"
#include "page/layout.h"
#include "tableam/engine.h"

#define WORKER_NAME		"quickstep merge worker"

/* src/column/options.c: quickstep._is_column_am(oid) */
extern Datum qs_is_column_am(PG_FUNCTION_ARGS);

/* The quickstep_column tables of this database (not other sessions' temporary ones). */
static List *
column_tables(MemoryContext cxt)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	List	   *relids = NIL;
	List	   *ams = NIL;		/* column AMs seen */
	List	   *other = NIL;	/* other table AMs seen */

	rel = table_open(RelationRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tup);
		MemoryContext old;

		if ((c->relkind != RELKIND_RELATION && c->relkind != RELKIND_MATVIEW) ||
			c->relpersistence == RELPERSISTENCE_TEMP ||
			!OidIsValid(c->relam) || c->relam == HEAP_TABLE_AM_OID ||
			list_member_oid(other, c->relam))
			continue;
		if (!list_member_oid(ams, c->relam))
		{
			if (!DatumGetBool(DirectFunctionCall1(qs_is_column_am,
												  ObjectIdGetDatum(c->relam))))
			{
				other = lappend_oid(other, c->relam);
				continue;
			}
			ams = lappend_oid(ams, c->relam);
		}
		old = MemoryContextSwitchTo(cxt);
		relids = lappend_oid(relids, c->oid);
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	list_free(ams);
	list_free(other);
	return relids;
}

/*
 * The delta rows a merge would move now (walk.c: the rows merge.c's
 * collection takes), counted until there are more than limit.
 */
static int64
count_movable(Relation rel, int64 limit)
{
	QsQuietWalk w;
	Page		page;
	OffsetNumber off;
	HeapTupleHeader hdr;
	int64		n = 0;

	qs_quiet_walk_begin(&w, rel);
	while (n <= limit && qs_quiet_walk_next(&w, &page, &off, &hdr))
		n++;
	qs_quiet_walk_end(&w);
	return n;
}

/*
 * How many movable delta rows make the worker merge rel: its
 * merge_threshold option, or quickstep.merge_threshold; with its
 * merge_fraction option, a delta past that share of the main rows the
 * active snapshot sees triggers a merge earlier, but never below
 * QS_COLOPT_MIN_BLOCK_ROWS rows.
 *
 * The fraction only lowers the trigger.  Paper 004 merges at a share of
 * main because its merge rewrites all of main, so a bigger main should be
 * merged less often; ours writes new blocks of the moved rows only (its
 * cost is bounded by the delta, not the table: README.md), so what the
 * fraction buys here is a fresh main for small tables, where a server-wide
 * row count would leave most of the table in the delta.
 */
static int64
merge_trigger(Relation rel)
{
	int			threshold;
	double		fraction;
	int64		trigger;

	qs_colopts_merge(rel, &threshold, &fraction);
	trigger = threshold >= 1 ? threshold : qs_merge_threshold;
	if (fraction >= 0.0)
	{
		QsColDirectory dir;
		double		main_rows = 0;

		qs_coldir_read_visible(rel, GetActiveSnapshot(), &dir);
		for (uint32 i = 0; i < dir.nentries; i++)
			main_rows += dir.entries[i].published;
		pfree(dir.entries);
		if (fraction * main_rows < (double) trigger)
			trigger = Max((int64) (fraction * main_rows),
						  (int64) QS_COLOPT_MIN_BLOCK_ROWS);
	}
	return trigger;
}

/*
 * Merge relid if its delta is past the threshold, in a transaction of its
 * own; the caller catches errors.
 */
static void
merge_one(Oid relid)
{
	Relation	rel;
	int64		movable;
	int64		trigger;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());

	/* never wait: DML is not blocked by this lock, DDL and VACUUM go first */
	if (!ConditionalLockRelationOid(relid, ShareUpdateExclusiveLock))
	{
		elog(DEBUG1, WORKER_NAME ": table %u is locked, skipped", relid);
		goto done;
	}
	rel = try_table_open(relid, NoLock);
	if (rel == NULL)
		goto done;				/* dropped since the listing */
	if (!qs_is_column_rel(rel) || qs_col_has_exclusion_index(rel))
	{
		table_close(rel, NoLock);
		goto done;
	}

	trigger = merge_trigger(rel);
	movable = count_movable(rel, trigger);
	if (movable > trigger)
	{
		char		activity[2 * NAMEDATALEN + 16];
		char	   *nsp = get_namespace_name(RelationGetNamespace(rel));
		QsMergeAsOwner owner;
		instr_time	start,
					elapsed;
		int64		moved;

		snprintf(activity, sizeof(activity), "merging %s.%s",
				 nsp ? nsp : "?", RelationGetRelationName(rel));
		pgstat_report_activity(STATE_RUNNING, activity);

		/* index expressions and predicates run as the owner's, as in VACUUM */
		qs_merge_as_owner_begin(rel, &owner);

		INSTR_TIME_SET_CURRENT(start);
		moved = qs_merge_table(rel);
		INSTR_TIME_SET_CURRENT(elapsed);
		INSTR_TIME_SUBTRACT(elapsed, start);

		qs_merge_as_owner_end(&owner);

		qs_mergestats_note(relid, moved, INSTR_TIME_GET_MILLISEC(elapsed));
		elog(DEBUG1, WORKER_NAME ": %s: " INT64_FORMAT " of " INT64_FORMAT "+ movable rows moved",
			 activity, moved, movable);
	}
	table_close(rel, NoLock);

done:
	PopActiveSnapshot();
	CommitTransactionCommand();	/* counts the merge; releases the lock */
	pgstat_report_activity(STATE_IDLE, NULL);
}

static void
worker_pass(void)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, WORKER_NAME,
											  ALLOCSET_DEFAULT_SIZES);
	List	   *relids = NIL;
	bool		has_ext;
	ListCell   *lc;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "listing column tables");
	has_ext = OidIsValid(get_extension_oid(QS_EXTENSION_NAME, true));
	qs_mergestats_set_db(MyDatabaseId, has_ext);
	if (has_ext)
	{
		relids = column_tables(cxt);
		qs_mergestats_prune_db();
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);

	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if (qs_merge_workers == 0)
			break;				/* turned off meanwhile */

		PG_TRY();
		{
			merge_one(relid);
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			HOLD_INTERRUPTS();
			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			EmitErrorReport();
			FlushErrorState();
			AbortOutOfAnyTransaction();
			RESUME_INTERRUPTS();

			qs_mergestats_error(relid, edata->message);
			FreeErrorData(edata);
			pgstat_report_activity(STATE_IDLE, NULL);
		}
		PG_END_TRY();
	}
	MemoryContextDelete(cxt);
}

void
qs_merge_worker_main(Datum arg)
{
	Oid			dbid = DatumGetObjectId(arg);

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	/* as the bootstrap superuser; each merge runs as its table's owner */
	qs_merge_in_worker = true;	/* its merges hold nothing (merge.c) */
	BackgroundWorkerInitializeConnectionByOid(dbid, InvalidOid, 0);
	pgstat_report_appname(WORKER_NAME);

	/* what the server's defaults must not change (autovacuum does the same) */
	SetConfigOption("default_transaction_isolation", "read committed",
					PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("statement_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("lock_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("idle_in_transaction_session_timeout", "0",
					PGC_SUSET, PGC_S_OVERRIDE);

	/*
	 * The worker's merges commit asynchronously: a writer that meets a
	 * committing merge waits on its interlock (src/merge/README.md section
	 * 2) only for the commit record's insertion, not for its flush.  Safe
	 * because nothing derived from a merge's commit reaches a page without
	 * WAL before its commit record is flushed (README section 3,
	 * "Asynchronous commit"; TAP 07d and 07e).  A crash that loses the
	 * record leaves the table as before the merge.  The worker's
	 * transaction holds the merge and nothing else.  Set for the whole
	 * session: its merges run inside a GUC nest level that is rolled back
	 * before the commit.
	 */
	SetConfigOption("synchronous_commit", "off", PGC_SUSET, PGC_S_OVERRIDE);

	worker_pass();
	proc_exit(0);
}
