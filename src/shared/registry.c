/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  The registry of shared-scan members and the position of each table's
 *	  circle (src/shared/README.md).
 *
 * One fixed array of quickstep.max_shared_scans slots in the add-in shared
 * memory, under one LWLock.  A slot is one member: the backend scanning,
 * the table, and the block the member reads next.  A table's circle is the
 * set of slots naming it; its position is the one its member reported
 * last, which is where the next member joins.
 *
 *-------------------------------------------------------------------------
 */
#include "core/quickstep.h"
#include "shared/shared_scan.h"

#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#define QS_SHARED_TRANCHE "quickstep_am shared scans"

typedef struct QsSharedMember
{
	bool		in_use;
	int			pid;			/* the member's backend */
	uint64		gen;			/* bumped at every take and free */
	Oid			dbid;
	Oid			relid;
	BlockNumber nblocks;		/* the table's size when the member joined */
	BlockNumber next;			/* block the member reads next */
	uint64		tick;			/* registry clock at the last report */
	uint64		chunks;			/* chunks of QS_SHARED_CHUNK_PAGES read */
	TimestampTz joined_at;
} QsSharedMember;

typedef struct QsSharedRegistry
{
	LWLock	   *lock;			/* protects everything below */
	uint64		clock;			/* ticks at every report */
	int			nslots;
	QsSharedMember slots[FLEXIBLE_ARRAY_MEMBER];
} QsSharedRegistry;

bool		qs_enable_shared_scan = false;

static QsSharedRegistry *registry = NULL;

/* this backend: does it hold a slot (cleanup has anything to do) */
static bool holds_slots = false;
static bool callbacks_registered = false;

PG_FUNCTION_INFO_V1(qs_shared_scans);

Size
qs_sharedscan_shmem_size(void)
{
	return MAXALIGN(add_size(offsetof(QsSharedRegistry, slots),
							 mul_size(qs_max_shared_scans, sizeof(QsSharedMember))));
}

void
qs_sharedscan_shmem_request(void)
{
	RequestAddinShmemSpace(qs_sharedscan_shmem_size());
	RequestNamedLWLockTranche(QS_SHARED_TRANCHE, 1);
}

/* shmem_startup_hook, under AddinShmemInitLock */
void
qs_sharedscan_shmem_init(void)
{
	bool		found;

	registry = ShmemInitStruct("quickstep_am shared scans",
							   qs_sharedscan_shmem_size(), &found);
	if (!found)
	{
		memset(registry, 0, qs_sharedscan_shmem_size());
		registry->lock = &(GetNamedLWLockTranche(QS_SHARED_TRANCHE))->lock;
		registry->nslots = qs_max_shared_scans;
	}
}

/* Free every slot this backend holds; stale handles become no-ops. */
static void
free_own_slots(void)
{
	if (!holds_slots || registry == NULL)
		return;
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < registry->nslots; i++)
	{
		QsSharedMember *m = &registry->slots[i];

		if (m->in_use && m->pid == MyProcPid)
		{
			m->in_use = false;
			m->gen++;
		}
	}
	LWLockRelease(registry->lock);
	holds_slots = false;
}

/*
 * A member never outlives its transaction: the executor ends its scan
 * before commit, and an error or a cancel skips that, so the end of the
 * transaction frees whatever is left (the member's node, if it still runs
 * in a later transaction -- it cannot -- would hold a stale handle).
 */
static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			free_own_slots();
			break;
		default:
			break;
	}
}

static void
exit_callback(int code, Datum arg)
{
	free_own_slots();
}

/*
 * qs_shared_join
 *		Take a slot for a scan of rel over nblocks blocks.
 *
 * *start receives the block to begin with: the position of the table's
 * circle (the block the member that reported last reads next), or 0 for a
 * new circle.  An invalid handle when the registry is full: the caller
 * scans unshared.
 */
QsSharedSlot
qs_shared_join(Relation rel, BlockNumber nblocks, BlockNumber *start)
{
	QsSharedSlot result = {-1, 0};
	QsSharedMember *mine = NULL;
	uint64		best_tick = 0;
	BlockNumber pos = 0;
	Oid			relid = RelationGetRelid(rel);

	*start = 0;
	if (registry == NULL)
		return result;
	if (!callbacks_registered)
	{
		RegisterXactCallback(xact_callback, NULL);
		before_shmem_exit(exit_callback, (Datum) 0);
		callbacks_registered = true;
	}

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < registry->nslots; i++)
	{
		QsSharedMember *m = &registry->slots[i];

		if (!m->in_use)
		{
			if (mine == NULL)
			{
				mine = m;
				result.idx = i;
			}
			continue;
		}
		if (m->dbid == MyDatabaseId && m->relid == relid && m->tick >= best_tick)
		{
			best_tick = m->tick;
			pos = m->next;
		}
	}
	if (mine != NULL)
	{
		/* the table may have shrunk (VACUUM truncation) since */
		if (pos >= nblocks)
			pos = 0;
		mine->in_use = true;
		mine->pid = MyProcPid;
		mine->gen++;
		mine->dbid = MyDatabaseId;
		mine->relid = relid;
		mine->nblocks = nblocks;
		mine->next = pos;
		mine->tick = ++registry->clock;
		mine->chunks = 0;
		mine->joined_at = GetCurrentTimestamp();
		result.gen = mine->gen;
		holds_slots = true;
		*start = pos;
	}
	LWLockRelease(registry->lock);
	return result;
}

/* the slot of a handle, or NULL when the handle is stale; lock held */
static QsSharedMember *
slot_of(QsSharedSlot slot)
{
	QsSharedMember *m;

	if (slot.idx < 0 || registry == NULL || slot.idx >= registry->nslots)
		return NULL;
	m = &registry->slots[slot.idx];
	if (!m->in_use || m->pid != MyProcPid || m->gen != slot.gen)
		return NULL;
	return m;
}

/* The member reads block 'next' next and has read 'chunks' chunks. */
void
qs_shared_report(QsSharedSlot slot, BlockNumber next, uint64 chunks)
{
	QsSharedMember *m;

	if (!QsSharedSlotIsValid(slot))
		return;
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if ((m = slot_of(slot)) != NULL)
	{
		m->next = next;
		m->chunks = chunks;
		m->tick = ++registry->clock;
	}
	LWLockRelease(registry->lock);
}

/* The member has seen every page once (or its scan ends early). */
void
qs_shared_leave(QsSharedSlot slot)
{
	QsSharedMember *m;

	if (!QsSharedSlotIsValid(slot))
		return;
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if ((m = slot_of(slot)) != NULL)
	{
		m->in_use = false;
		m->gen++;
	}
	LWLockRelease(registry->lock);
}

void
qs_shared_invalidate(QsSharedSlot *slot)
{
	slot->idx = -1;
	slot->gen = 0;
}

/*
 * quickstep.shared_scans(): one row per circle (a table with members) of
 * the current database: members, the circle's position, chunks read by its
 * members and since when the oldest member rides it.
 */
Datum
qs_shared_scans(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool	   *done;

	qs_require_preload("quickstep.shared_scans");
	InitMaterializedSRF(fcinfo, 0);
	done = palloc0(sizeof(bool) * registry->nslots);

	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < registry->nslots; i++)
	{
		QsSharedMember *m = &registry->slots[i];
		Datum		values[5];
		bool		nulls[5] = {false};
		int64		members = 0;
		uint64		chunks = 0,
					best_tick = 0;
		BlockNumber pos = 0;
		TimestampTz since = 0;

		if (done[i] || !m->in_use || m->dbid != MyDatabaseId)
			continue;
		for (int j = i; j < registry->nslots; j++)
		{
			QsSharedMember *o = &registry->slots[j];

			if (!o->in_use || o->dbid != m->dbid || o->relid != m->relid)
				continue;
			done[j] = true;
			members++;
			chunks += o->chunks;
			if (o->tick >= best_tick)
			{
				best_tick = o->tick;
				pos = o->next;
			}
			if (since == 0 || o->joined_at < since)
				since = o->joined_at;
		}
		values[0] = ObjectIdGetDatum(m->relid);
		values[1] = Int64GetDatum(members);
		values[2] = Int64GetDatum((int64) pos);
		values[3] = Int64GetDatum((int64) chunks);
		values[4] = TimestampTzGetDatum(since);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	LWLockRelease(registry->lock);
	return (Datum) 0;
}
