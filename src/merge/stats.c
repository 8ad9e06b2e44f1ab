/*-------------------------------------------------------------------------
 *
 * stats.c
 *	  Merge counters of column tables in shared memory, shown by
 *	  quickstep.column_stats (through quickstep.merge_stats()).
 *
 * A fixed-size shared hash keyed by (database, table): merges, rows moved,
 * milliseconds spent, the time of the last merge, the last error and its
 * time.  Both quickstep.merge() and the merge worker count.  A merge is
 * counted when the transaction that ran it commits (an aborted merge moved
 * nothing); errors are recorded at once.  The entry (database, 0) says
 * whether the database has the extension, for the launcher (launcher.c).
 *
 * The counters start at zero when the server starts (as after a crash):
 * they are not WAL-logged nor written to disk.  The hash holds
 * QS_MERGESTATS_MAX entries; the worker forgets the tables of its
 * database that no longer exist, and when the hash is full a new table is
 * not counted (DEBUG1 message).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "core/quickstep.h"
#include "merge/worker.h"

#define QS_MERGESTATS_MAX		2048
#define QS_MERGESTATS_ERRLEN	256
#define QS_MERGESTATS_TRANCHE	"quickstep_merge"

typedef struct MergeStatsKey
{
	Oid			dbid;
	Oid			relid;			/* InvalidOid: the database's own entry */
} MergeStatsKey;

typedef struct MergeStatsEntry
{
	MergeStatsKey key;
	int64		merges;
	int64		rows;
	double		ms;
	TimestampTz last_merge;		/* 0: never */
	TimestampTz last_error_at;	/* 0: never */
	char		last_error[QS_MERGESTATS_ERRLEN];
	/* database entries only */
	bool		has_ext;
	TimestampTz checked;
} MergeStatsEntry;

static HTAB *merge_stats = NULL;
static LWLock *merge_stats_lock = NULL;

Size
qs_mergestats_shmem_size(void)
{
	return hash_estimate_size(QS_MERGESTATS_MAX, sizeof(MergeStatsEntry));
}

void
qs_mergestats_shmem_request(void)
{
	RequestAddinShmemSpace(qs_mergestats_shmem_size());
	RequestNamedLWLockTranche(QS_MERGESTATS_TRANCHE, 1);
}

/* shmem_startup_hook, under AddinShmemInitLock */
void
qs_mergestats_shmem_init(void)
{
	HASHCTL		info;

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(MergeStatsKey);
	info.entrysize = sizeof(MergeStatsEntry);
	merge_stats = ShmemInitHash("quickstep_am merge stats",
								QS_MERGESTATS_MAX, QS_MERGESTATS_MAX,
								&info, HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	merge_stats_lock = &(GetNamedLWLockTranche(QS_MERGESTATS_TRANCHE))->lock;
}

/* the entry of key, made if missing (NULL: the hash is full); lock held exclusively */
static MergeStatsEntry *
entry_enter(Oid dbid, Oid relid)
{
	MergeStatsKey key;
	MergeStatsEntry *e;
	bool		found;

	memset(&key, 0, sizeof(key));
	key.dbid = dbid;
	key.relid = relid;
	e = hash_search(merge_stats, &key, HASH_ENTER_NULL, &found);
	if (e == NULL)
	{
		elog(DEBUG1, "quickstep merge stats are full: table %u of database %u is not counted",
			 relid, dbid);
		return NULL;
	}
	if (!found)
	{
		memset(((char *) e) + sizeof(MergeStatsKey), 0,
			   sizeof(MergeStatsEntry) - sizeof(MergeStatsKey));
	}
	return e;
}

/* ------------------------------------------------------------------------
 * Merges counted at commit
 * ------------------------------------------------------------------------
 */
typedef struct PendingMerge
{
	Oid			relid;
	SubTransactionId subid;
	int64		rows;
	double		ms;
} PendingMerge;

static List *pending = NIL;		/* PendingMerge, in TopTransactionContext */
static bool callbacks_registered = false;

static void
flush_pending(void)
{
	ListCell   *lc;
	TimestampTz now = GetCurrentTimestamp();

	if (merge_stats == NULL)
		return;
	LWLockAcquire(merge_stats_lock, LW_EXCLUSIVE);
	foreach(lc, pending)
	{
		PendingMerge *p = lfirst(lc);
		MergeStatsEntry *e = entry_enter(MyDatabaseId, p->relid);

		if (e == NULL)
			continue;
		e->merges++;
		e->rows += p->rows;
		e->ms += p->ms;
		e->last_merge = now;
	}
	LWLockRelease(merge_stats_lock);
}

static void
stats_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
			if (pending != NIL)
				flush_pending();
			pending = NIL;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			pending = NIL;		/* TopTransactionContext goes */
			break;
		default:
			break;
	}
}

static void
stats_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (pending == NIL)
		return;
	switch (event)
	{
		case SUBXACT_EVENT_COMMIT_SUB:
			foreach(lc, pending)
			{
				PendingMerge *p = lfirst(lc);

				if (p->subid == mySubid)
					p->subid = parentSubid;
			}
			break;
		case SUBXACT_EVENT_ABORT_SUB:
			foreach(lc, pending)
			{
				PendingMerge *p = lfirst(lc);

				if (p->subid == mySubid)
					pending = foreach_delete_current(pending, lc);
			}
			break;
		default:
			break;
	}
}

void
qs_mergestats_note(Oid relid, int64 rows, double ms)
{
	MemoryContext old;
	PendingMerge *p;

	if (merge_stats == NULL)
		return;
	if (!callbacks_registered)
	{
		RegisterXactCallback(stats_xact_callback, NULL);
		RegisterSubXactCallback(stats_subxact_callback, NULL);
		callbacks_registered = true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	p = palloc(sizeof(PendingMerge));
	p->relid = relid;
	p->subid = GetCurrentSubTransactionId();
	p->rows = rows;
	p->ms = ms;
	pending = lappend(pending, p);
	MemoryContextSwitchTo(old);
}

void
qs_mergestats_error(Oid relid, const char *message)
{
	MergeStatsEntry *e;

	if (merge_stats == NULL)
		return;
	LWLockAcquire(merge_stats_lock, LW_EXCLUSIVE);
	e = entry_enter(MyDatabaseId, relid);
	if (e != NULL)
	{
		strlcpy(e->last_error, message ? message : "(no message)",
				QS_MERGESTATS_ERRLEN);
		e->last_error_at = GetCurrentTimestamp();
	}
	LWLockRelease(merge_stats_lock);
}

/* ------------------------------------------------------------------------
 * Databases
 * ------------------------------------------------------------------------
 */
void
qs_mergestats_set_db(Oid dbid, bool has_ext)
{
	MergeStatsEntry *e;

	if (merge_stats == NULL)
		return;
	LWLockAcquire(merge_stats_lock, LW_EXCLUSIVE);
	e = entry_enter(dbid, InvalidOid);
	if (e != NULL)
	{
		e->has_ext = has_ext;
		e->checked = GetCurrentTimestamp();
	}
	LWLockRelease(merge_stats_lock);
}

bool
qs_mergestats_get_db(Oid dbid, bool *has_ext, TimestampTz *checked)
{
	MergeStatsKey key;
	MergeStatsEntry *e;
	bool		known = false;

	*has_ext = false;
	*checked = 0;
	if (merge_stats == NULL)
		return false;
	memset(&key, 0, sizeof(key));
	key.dbid = dbid;
	key.relid = InvalidOid;
	LWLockAcquire(merge_stats_lock, LW_SHARED);
	e = hash_search(merge_stats, &key, HASH_FIND, NULL);
	if (e != NULL)
	{
		known = true;
		*has_ext = e->has_ext;
		*checked = e->checked;
	}
	LWLockRelease(merge_stats_lock);
	return known;
}

/*
 * The worker, in a transaction of its database: forget the entries of
 * tables that no longer exist (an OID used again later would inherit them).
 */
void
qs_mergestats_prune_db(void)
{
	HASH_SEQ_STATUS seq;
	MergeStatsEntry *e;
	List	   *gone = NIL;
	List	   *mine = NIL;
	ListCell   *lc;

	if (merge_stats == NULL)
		return;
	LWLockAcquire(merge_stats_lock, LW_SHARED);
	hash_seq_init(&seq, merge_stats);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (e->key.dbid == MyDatabaseId && OidIsValid(e->key.relid))
			mine = lappend_oid(mine, e->key.relid);
	LWLockRelease(merge_stats_lock);

	foreach(lc, mine)
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(lfirst_oid(lc))))
			gone = lappend_oid(gone, lfirst_oid(lc));
	if (gone != NIL)
	{
		LWLockAcquire(merge_stats_lock, LW_EXCLUSIVE);
		foreach(lc, gone)
		{
			MergeStatsKey key;

			memset(&key, 0, sizeof(key));
			key.dbid = MyDatabaseId;
			key.relid = lfirst_oid(lc);
			(void) hash_search(merge_stats, &key, HASH_REMOVE, NULL);
		}
		LWLockRelease(merge_stats_lock);
	}
	list_free(mine);
	list_free(gone);
}

/* ------------------------------------------------------------------------
 * SQL
 * ------------------------------------------------------------------------
 */

/*
 * quickstep.merge_stats(): the counters of this database's tables (the
 * view quickstep.column_stats joins them to its tables).  Empty when the
 * library was not preloaded.
 */
PG_FUNCTION_INFO_V1(qs_merge_stats);

Datum
qs_merge_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS seq;
	MergeStatsEntry *e;

	InitMaterializedSRF(fcinfo, 0);
	if (merge_stats == NULL)
		return (Datum) 0;
	LWLockAcquire(merge_stats_lock, LW_SHARED);
	hash_seq_init(&seq, merge_stats);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		Datum		values[7];
		bool		nulls[7] = {0};

		if (e->key.dbid != MyDatabaseId || !OidIsValid(e->key.relid))
			continue;
		values[0] = ObjectIdGetDatum(e->key.relid);
		values[1] = Int64GetDatum(e->merges);
		values[2] = Int64GetDatum(e->rows);
		values[3] = Float8GetDatum(e->ms);
		if (e->last_merge != 0)
			values[4] = TimestampTzGetDatum(e->last_merge);
		else
			nulls[4] = true;
		if (e->last_error_at != 0)
		{
			values[5] = CStringGetTextDatum(e->last_error);
			values[6] = TimestampTzGetDatum(e->last_error_at);
		}
		else
			nulls[5] = nulls[6] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	LWLockRelease(merge_stats_lock);
	return (Datum) 0;
}

/*
 * quickstep._merge_worker_notify(): CREATE EXTENSION calls it, so that the
 * launcher sends a worker to this database at its next round instead of
 * after its next check of databases without the extension.
 */
PG_FUNCTION_INFO_V1(qs_merge_worker_notify);

Datum
qs_merge_worker_notify(PG_FUNCTION_ARGS)
{
	qs_mergestats_set_db(MyDatabaseId, true);
	PG_RETURN_VOID();
}
