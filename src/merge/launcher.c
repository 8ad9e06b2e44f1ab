/*-------------------------------------------------------------------------
 *
 * launcher.c
 *	  The merge launcher: a background worker that starts merge workers
 *	  (worker.c) in the databases where quickstep_am is installed.
 *
 * As autovacuum's launcher, it connects to no database (it reads the
 * shared catalog pg_database only) and, every quickstep.merge_naptime,
 * starts a dynamic background worker for each database that is due: no
 * worker of it running and none started there during the last naptime.
 * At most quickstep.merge_workers run at once, one per database; the
 * databases waiting longest go first.  A worker makes one pass over its
 * database's column tables and exits; it tells the launcher (bgw_notify_pid
 * sets our latch) so that a database left waiting for a free slot gets it
 * at once.
 *
 * The launcher cannot see pg_extension of other databases.  A worker
 * records what it found in shared memory (stats.c); a database without
 * the extension is looked at again only after NO_EXT_RECHECK_MS, or as soon
 * as CREATE EXTENSION quickstep_am runs in it (the script calls
 * quickstep._merge_worker_notify()).  Templates and databases that do
 * not allow connections are skipped: a worker connected to a template
 * would make CREATE DATABASE from it fail.
 *
 * Registered in _PG_init when the library is preloaded; started after
 * recovery (a standby has none: it replays the primary's merges).  Restarted
 * by the postmaster 10 s after it dies.  SIGTERM ends it; SIGHUP rereads
 * the configuration (quickstep.merge_workers and merge_naptime apply at
 * the next round).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "core/quickstep.h"
#include "merge/worker.h"

/* a database found without the extension is looked at again after this */
#define NO_EXT_RECHECK_MS	(60 * 1000)

#define LAUNCHER_NAME	"quickstep merge launcher"
#define WORKER_NAME		"quickstep merge worker"

typedef struct DbState
{
	Oid			dbid;
	TimestampTz last_start;		/* 0: never */
	BackgroundWorkerHandle *handle; /* NULL: no worker of ours there */
	bool		listed;			/* in pg_database at the last listing */
} DbState;

static DbState *dbs = NULL;
static int	ndbs = 0;
static int	maxdbs = 0;
static MemoryContext launcher_cxt = NULL;
static bool no_slot_logged = false;

void
qs_merge_launcher_register(void)
{
	BackgroundWorker bgw;

	memset(&bgw, 0, sizeof(bgw));
	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bgw.bgw_start_time = BgWorkerStart_RecoveryFinished;
	bgw.bgw_restart_time = 10;
	snprintf(bgw.bgw_library_name, BGW_MAXLEN, "%s", QS_EXTENSION_NAME);
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "qs_merge_launcher_main");
	snprintf(bgw.bgw_name, BGW_MAXLEN, LAUNCHER_NAME);
	snprintf(bgw.bgw_type, BGW_MAXLEN, LAUNCHER_NAME);
	bgw.bgw_main_arg = (Datum) 0;
	bgw.bgw_notify_pid = 0;
	RegisterBackgroundWorker(&bgw);
}

static DbState *
db_state(Oid dbid)
{
	for (int i = 0; i < ndbs; i++)
		if (dbs[i].dbid == dbid)
			return &dbs[i];
	if (ndbs == maxdbs)
	{
		maxdbs = Max(16, maxdbs * 2);
		dbs = dbs ? repalloc(dbs, sizeof(DbState) * maxdbs) :
			MemoryContextAlloc(launcher_cxt, sizeof(DbState) * maxdbs);
	}
	memset(&dbs[ndbs], 0, sizeof(DbState));
	dbs[ndbs].dbid = dbid;
	return &dbs[ndbs++];
}

/* Read pg_database: the databases a worker may connect to. */
static void
list_databases(void)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	int			j = 0;

	for (int i = 0; i < ndbs; i++)
		dbs[i].listed = false;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);
		MemoryContext old;

		if (!db->datallowconn || db->datistemplate ||
			database_is_invalid_form(db))
			continue;
		old = MemoryContextSwitchTo(launcher_cxt);
		db_state(db->oid)->listed = true;
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();

	/* forget the databases that went away, unless a worker still runs there */
	for (int i = 0; i < ndbs; i++)
		if (dbs[i].listed || dbs[i].handle != NULL)
			dbs[j++] = dbs[i];
	ndbs = j;
}

/* Workers that ended free their database; returns how many still run. */
static int
reap_workers(void)
{
	int			running = 0;

	for (int i = 0; i < ndbs; i++)
	{
		pid_t		pid;

		if (dbs[i].handle == NULL)
			continue;
		switch (GetBackgroundWorkerPid(dbs[i].handle, &pid))
		{
			case BGWH_STOPPED:
				pfree(dbs[i].handle);
				dbs[i].handle = NULL;
				break;
			case BGWH_POSTMASTER_DIED:
				proc_exit(1);
				break;
			default:
				running++;
				break;
		}
	}
	return running;
}

static bool
start_worker(DbState *d, TimestampTz now)
{
	BackgroundWorker bgw;
	BackgroundWorkerHandle *handle;
	MemoryContext old;
	bool		ok;

	memset(&bgw, 0, sizeof(bgw));
	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bgw.bgw_start_time = BgWorkerStart_RecoveryFinished;
	bgw.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(bgw.bgw_library_name, BGW_MAXLEN, "%s", QS_EXTENSION_NAME);
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "qs_merge_worker_main");
	snprintf(bgw.bgw_name, BGW_MAXLEN, WORKER_NAME " of database %u", d->dbid);
	snprintf(bgw.bgw_type, BGW_MAXLEN, WORKER_NAME);
	bgw.bgw_main_arg = ObjectIdGetDatum(d->dbid);
	bgw.bgw_notify_pid = MyProcPid;

	old = MemoryContextSwitchTo(launcher_cxt);
	ok = RegisterDynamicBackgroundWorker(&bgw, &handle);
	MemoryContextSwitchTo(old);
	if (!ok)
	{
		/* max_worker_processes: try again at the next round */
		if (!no_slot_logged)
			ereport(LOG,
					(errmsg("quickstep merge launcher could not start a worker: no background worker slot free"),
					 errhint("Raise max_worker_processes, or lower quickstep.merge_workers.")));
		no_slot_logged = true;
		return false;
	}
	no_slot_logged = false;
	d->handle = handle;
	d->last_start = now;
	return true;
}

/* Is d due: no worker there, none started in the last naptime, extension not known absent? */
static bool
db_due(DbState *d, TimestampTz now)
{
	bool		has_ext;
	TimestampTz checked;

	if (d->handle != NULL || !d->listed)
		return false;
	if (d->last_start != 0 &&
		!TimestampDifferenceExceeds(d->last_start, now, qs_merge_naptime * 1000 - 50))
		return false;
	if (qs_mergestats_get_db(d->dbid, &has_ext, &checked) && !has_ext &&
		!TimestampDifferenceExceeds(checked, now, NO_EXT_RECHECK_MS))
		return false;
	return true;
}

/* Start workers for the due databases, longest waiting first, while slots are free. */
static void
start_due(int running, TimestampTz now)
{
	while (running < qs_merge_workers)
	{
		DbState    *best = NULL;

		for (int i = 0; i < ndbs; i++)
			if (db_due(&dbs[i], now) &&
				(best == NULL || dbs[i].last_start < best->last_start))
				best = &dbs[i];
		if (best == NULL || !start_worker(best, now))
			return;
		running++;
	}
}

void
qs_merge_launcher_main(Datum arg)
{
	TimestampTz next_list = 0;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	/* no database: pg_database is a shared catalog */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname(LAUNCHER_NAME);
	launcher_cxt = AllocSetContextCreate(TopMemoryContext, LAUNCHER_NAME,
										 ALLOCSET_DEFAULT_SIZES);
	ereport(DEBUG1, (errmsg(LAUNCHER_NAME " started")));

	for (;;)
	{
		TimestampTz now;
		int			running;
		long		wait_ms;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		running = reap_workers();
		now = GetCurrentTimestamp();
		if (qs_merge_workers > 0)
		{
			if (now >= next_list)
			{
				pgstat_report_activity(STATE_RUNNING, "listing databases");
				list_databases();
				next_list = TimestampTzPlusMilliseconds(now, qs_merge_naptime * 1000L);
			}
			start_due(running, now);
			pgstat_report_activity(STATE_IDLE, NULL);
		}

		/* until the next listing, or the end of a worker (our latch) */
		wait_ms = qs_merge_naptime * 1000L;
		if (qs_merge_workers > 0)
		{
			long		secs;
			int			usecs;

			TimestampDifference(now, next_list, &secs, &usecs);
			wait_ms = Min(wait_ms, secs * 1000L + usecs / 1000);
			/* a database that becomes due before the next listing */
			for (int i = 0; i < ndbs; i++)
				if (dbs[i].handle == NULL && dbs[i].listed && dbs[i].last_start != 0)
				{
					TimestampTz due = TimestampTzPlusMilliseconds(dbs[i].last_start,
																   qs_merge_naptime * 1000L);

					/* past: waits for a slot (our latch) or has no extension */
					if (due <= now)
						continue;
					TimestampDifference(now, due, &secs, &usecs);
					wait_ms = Min(wait_ms, secs * 1000L + usecs / 1000);
				}
			wait_ms = Max(wait_ms, 10);
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wait_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
