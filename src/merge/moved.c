/*-------------------------------------------------------------------------
 *
 * moved.c
 *	  Rows a merge moved, as readers and writers meet them (README.md
 *	  section 2): the commit interlock, SnapshotDirty's and MVCC snapshots'
 *	  view of marks, and TAKEN marks for a change made at a main copy by a
 *	  transaction whose snapshot does not see the merge.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/procarray.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "column/colstore.h"
#include "core/quickstep.h"
#include "merge/moved.h"
#include "page/layout.h"
#include "tableam/engine.h"

/* the interlock's tag: an object lock no core path takes (pg_class, relid, 0x7171) */
#define QS_MERGE_INTERLOCK_SUBID	0x7171

static void
interlock_tag(LOCKTAG *tag, Oid relid)
{
	SET_LOCKTAG_OBJECT(*tag, MyDatabaseId, RelationRelationId, relid,
					   QS_MERGE_INTERLOCK_SUBID);
}

/*
 * qs_merge_interlock
 *		DML cancelling a running merge's mark holds the interlock in share
 *		mode while it looks at the merge's status and writes the cancel;
 *		the merge takes it exclusively just before its commit record and
 *		keeps it until its commit is visible (lock release at end of
 *		transaction).  A DML statement waits here only while a merge of
 *		the table is writing its commit record.
 */
void
qs_merge_interlock(Relation rel, bool acquire)
{
	LOCKTAG		tag;

	interlock_tag(&tag, RelationGetRelid(rel));
	if (acquire)
		(void) LockAcquire(&tag, ShareLock, false, false);
	else
		LockRelease(&tag, ShareLock, false);
}

/* the share mode without waiting */
static bool
qs_merge_interlock_try(Relation rel)
{
	LOCKTAG		tag;

	interlock_tag(&tag, RelationGetRelid(rel));
	return LockAcquire(&tag, ShareLock, false, true) != LOCKACQUIRE_NOT_AVAIL;
}

/*
 * qs_merge_interlock_try_wait
 *		NOWAIT and SKIP LOCKED: the share mode, polling for up to
 *		quickstep.merge_commit_wait while a merge holds the interlock
 *		exclusively.  That merge is writing its commit record (or, rarely,
 *		ran quickstep.merge() in a transaction that goes on, merge.c
 *		qs_merge_hold_moves): a row heap would lock at once must not be
 *		skipped, nor its lock refused, because a merge moved it.  After the
 *		bound the caller reports the row as locked, as before.
 */
bool
qs_merge_interlock_try_wait(Relation rel)
{
	TimestampTz deadline = 0;

	for (;;)
	{
		if (qs_merge_interlock_try(rel))
			return true;
		if (deadline == 0)
			deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
												   qs_merge_commit_wait);
		if (GetCurrentTimestamp() >= deadline)
			return false;

		/* 1 ms steps: the commit of a merge takes a WAL flush at most */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1, WAIT_EVENT_PG_SLEEP);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The merge's pre-commit: no cancel may land from here to its commit.  A
 * transaction that runs another statement after its merge takes it then
 * already (qs_merge_hold_moves, merge.c).
 */
void
qs_merge_interlock_commit(Oid relid)
{
	LOCKTAG		tag;

	interlock_tag(&tag, relid);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}

/*
 * quickstep.debug_merge_commit_wait: a merge waits at its pre-commit,
 * holding the interlock, for advisory lock (7401, 4) as
 * pg_advisory_lock_shared(7401, 4) would (tests of NOWAIT and SKIP LOCKED
 * against a merge that is committing).
 */
void
qs_merge_debug_commit_wait(void)
{
	LOCKTAG		tag;

	if (!qs_debug_merge_commit_wait)
		return;
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, 7401, 4, 2);
	(void) LockAcquire(&tag, ShareLock, false, false);
	(void) LockRelease(&tag, ShareLock, false);
}

/*
 * qs_merged_block_hidden
 *		A running merge's block is absent for SnapshotDirty (its rows'
 *		delta versions are the rows until it commits): unique checks and
 *		EvalPlanQual never wait for a merge.
 */
bool
qs_merged_block_hidden(TransactionId xmin, uint16 flags, Snapshot snapshot)
{
	return (flags & QS_COLDIR_MERGED) != 0 && snapshot != NULL &&
		snapshot->snapshot_type == SNAPSHOT_DIRTY &&
		TransactionIdIsNormal(xmin) &&
		!TransactionIdIsCurrentTransactionId(xmin) &&
		TransactionIdIsInProgress(xmin);
}

/*
 * TAKEN marks of this transaction (moved.h): the command id of each, by
 * (table, delta TID), in TopTransactionContext (about 20 bytes a mark: a
 * REPEATABLE READ transaction older than a merge that changes a million
 * rows the merge moved keeps about 25 MB until it ends); the largest one
 * for the executor hook below.  Gone at the end of the transaction, as the
 * marks' meaning is: no later snapshot can be the taker's.  The page says
 * which (sub)transaction made a mark; this list, written by the same call,
 * has the command of the last one (an earlier mark's subtransaction, if it
 * rolled back, is no longer current).
 */
typedef struct TakenKey
{
	Oid			relid;
	ItemPointerData tid;
} TakenKey;

typedef struct TakenMark
{
	TakenKey	key;
	char		status;			/* simplehash's */
	CommandId	cid;
} TakenMark;

static inline uint32
taken_hash(TakenKey k)
{
	return hash_combine(murmurhash32((uint32) k.relid),
						hash_combine(murmurhash32(ItemPointerGetBlockNumberNoCheck(&k.tid)),
									 ItemPointerGetOffsetNumberNoCheck(&k.tid)));
}

#define SH_PREFIX		takenhash
#define SH_ELEMENT_TYPE	TakenMark
#define SH_KEY_TYPE		TakenKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	taken_hash(k)
#define SH_EQUAL(tb, a, b)	((a).relid == (b).relid && ItemPointerEquals(&(a).tid, &(b).tid))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

static takenhash_hash *taken_marks = NULL;
static CommandId taken_max_cid = InvalidCommandId;	/* Invalid: no mark */
static bool taken_callback = false;

static void
taken_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			taken_marks = NULL; /* freed with TopTransactionContext */
			taken_max_cid = InvalidCommandId;
			break;
		default:
			break;
	}
}

static TakenKey
taken_key(Oid relid, ItemPointer tid)
{
	TakenKey	k;

	memset(&k, 0, sizeof(k));
	k.relid = relid;
	k.tid = *tid;
	return k;
}

/*
 * qs_taken_note
 *		Remember the command of a TAKEN mark this backend writes (dml.c,
 *		qs_mark_taken), before it writes it.
 */
void
qs_taken_note(Relation rel, ItemPointer tid, CommandId cid)
{
	TakenMark  *m;
	bool		found;

	if (!taken_callback)
	{
		RegisterXactCallback(taken_xact_callback, NULL);
		taken_callback = true;
	}
	if (taken_marks == NULL)
		taken_marks = takenhash_create(TopTransactionContext, 64, NULL);
	m = takenhash_insert(taken_marks, taken_key(RelationGetRelid(rel), tid),
						 &found);
	m->cid = cid;
	if (taken_max_cid == InvalidCommandId || cid > taken_max_cid)
		taken_max_cid = cid;
}

/*
 * Does MVCC snapshot 'snapshot' of the transaction that marked 'tup' TAKEN
 * no longer count it?  Yes from the command after the mark's on, as heap's
 * HeapTupleSatisfiesMVCC judges a tuple its own transaction deleted.  A
 * parallel worker has no list: the executor hook below runs a query that
 * could read a mark of its own snapshot's command or later without
 * workers, so every mark a worker meets precedes its snapshot.
 */
static bool
taken_hidden(HeapTuple tup, Snapshot snapshot)
{
	TakenMark  *m = NULL;

	if (!TransactionIdIsCurrentTransactionId(QsTakenGetTaker(tup->t_data)))
		return false;
	if (IsParallelWorker())
		return true;
	if (taken_marks != NULL)
		m = takenhash_lookup(taken_marks,
							 taken_key(tup->t_tableOid, &tup->t_self));
	/* an invariant: our marks are listed before they are written */
	if (m == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg_internal("TAKEN mark of (%u,%u) in relation %u has no command id",
								 ItemPointerGetBlockNumber(&tup->t_self),
								 ItemPointerGetOffsetNumber(&tup->t_self),
								 tup->t_tableOid)));
	return m->cid < snapshot->curcid;
}

/*
 * qs_moved_visible
 *		Heap's verdict 'valid' on a delta version with merge bits, corrected:
 *		SnapshotDirty does not report a running merge as a deleter to wait
 *		for; an MVCC snapshot of the transaction that changed the row
 *		through the link (TAKEN) no longer counts the delta version from
 *		its next command on.
 */
bool
qs_moved_visible(HeapTuple tup, Snapshot snapshot, bool valid)
{
	HeapTupleHeader h = tup->t_data;

	if (!valid || snapshot == NULL || !qs_header_moved(h))
		return valid;
	if (snapshot->snapshot_type == SNAPSHOT_DIRTY)
	{
		if (TransactionIdEquals(snapshot->xmax, HeapTupleHeaderGetRawXmax(h)))
			snapshot->xmax = InvalidTransactionId;
		return true;
	}
	if (IsMVCCSnapshot(snapshot) && (h->t_infomask2 & QS_INFOMASK2_TAKEN) &&
		taken_hidden(tup, snapshot))
		return false;
	return valid;
}

/*
 * The executor's side of taken_hidden: a query whose snapshot may meet a
 * mark of its own command or a later one (a STABLE function's query inside
 * the UPDATE that took the row, which reads with that UPDATE's snapshot)
 * runs without parallel workers, which could not tell such a mark from an
 * earlier one.  The flag is put back after the run: the plan may be cached.
 */
static ExecutorRun_hook_type prev_executor_run = NULL;

static void
taken_executor_run(QueryDesc *queryDesc, ScanDirection direction,
				   uint64 count
#if PG_VERSION_NUM < 180000
				   ,bool execute_once
#endif
)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	bool		serial = taken_max_cid != InvalidCommandId &&
		stmt->parallelModeNeeded && queryDesc->snapshot != NULL &&
		taken_max_cid >= queryDesc->snapshot->curcid;

	if (serial)
		stmt->parallelModeNeeded = false;
	PG_TRY();
	{
#if PG_VERSION_NUM < 180000
		if (prev_executor_run)
			prev_executor_run(queryDesc, direction, count, execute_once);
		else
			standard_ExecutorRun(queryDesc, direction, count, execute_once);
#else
		if (prev_executor_run)
			prev_executor_run(queryDesc, direction, count);
		else
			standard_ExecutorRun(queryDesc, direction, count);
#endif
	}
	PG_FINALLY();
	{
		if (serial)
			stmt->parallelModeNeeded = true;
	}
	PG_END_TRY();
}

void
qs_taken_install_hook(void)
{
	prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = taken_executor_run;
}

/*
 * qs_moved_take_main
 *		After a delete or update made directly at main copy 'vtid' (found
 *		through an index entry of its own, e.g. by ON CONFLICT's arbiter)
 *		by a transaction whose snapshot does not see the merge that wrote
 *		it: that snapshot still counts the row's delta version, which must
 *		be marked TAKEN as when the change comes through the link.  The
 *		delta version is found among the pages the merge collected from
 *		(the directory entry's src_first .. src_last).  Rare: REPEATABLE
 *		READ or SERIALIZABLE, a snapshot older than the merge's commit.
 */
void
qs_moved_take_main(Relation rel, ItemPointer vtid, Snapshot snapshot,
				   CommandId cid)
{
	const QsPageLayout *L;
	QsColDirEntry e;
	uint32		row;
	TransactionId mover;
	BlockNumber first,
				last;
	BlockNumber nblocks;

	/*
	 * At READ COMMITTED the next command's snapshot sees the merge (it
	 * committed before this change found its main copy), and the current
	 * command does not see its own change anyway.
	 */
	if (!IsolationUsesXactSnapshot() || !qs_coldir_lookup(rel, vtid, &e, &row))
		return;
	/* the snapshot later commands use, not the one of this change (RI) */
	snapshot = GetTransactionSnapshot();
	mover = qs_coldir_row_xmin(&e, row);
	/* our own merge: as in col_after_link (src/column/am.c) */
	if (!(e.flags & QS_COLDIR_MERGED) || !TransactionIdIsNormal(mover) ||
		TransactionIdIsCurrentTransactionId(mover) ||
		!XidInMVCCSnapshot(mover, snapshot))
		return;
	first = e.src_first;
	last = e.src_last;

	L = qs_layout_of(rel);
	nblocks = RelationGetNumberOfBlocks(rel);
	for (BlockNumber blk = first; blk <= last && blk < nblocks; blk++)
	{
		Buffer		buf = ReadBuffer(rel, blk);
		Page		page;
		OffsetNumber maxoff;
		ItemPointerData found;

		ItemPointerSetInvalid(&found);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		maxoff = (PageIsNew(page) || qs_is_column_page(page)) ? 0 :
			qs_page_max_offset(L, page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			HeapTupleHeaderData scratch;
			HeapTupleHeader h;

			if (qs_page_record_state(L, page, off) != QS_REC_NORMAL)
				continue;
			h = qs_page_get_header(L, page, off, &scratch, NULL);
			if (qs_header_moved(h) &&
				TransactionIdEquals(HeapTupleHeaderGetRawXmax(h), mover) &&
				ItemPointerEquals(&h->t_ctid, vtid))
			{
				ItemPointerSet(&found, blk, off);
				break;
			}
		}
		UnlockReleaseBuffer(buf);
		if (ItemPointerIsValid(&found))
		{
			qs_mark_taken(rel, &found, vtid, mover, cid);
			return;
		}
	}
}

/*
 * qs_main_visible_unmerged
 *		A main copy 'h' of merge 'mover', judged for an MVCC snapshot that
 *		does not see that merge: the snapshot sees the row as its delta
 *		version, which every snapshot saw (only quiet rows move) and which
 *		carries the same values.  So the row is visible to it unless its
 *		move was cancelled or killed (xmax = the merge: never a row) or it
 *		was changed since (the copy's xmax, as heap judges it).  The
 *		executor asks this about a row it reached at its main copy --
 *		ON CONFLICT's arbiter, the crosscheck of RI actions at REPEATABLE
 *		READ: not a concurrent update (review C3).
 */
bool
qs_main_visible_unmerged(HeapTuple tp, TransactionId mover,
						 Snapshot snapshot, Buffer buf)
{
	HeapTupleHeaderData c = *tp->t_data;
	HeapTupleData tup;

	if (!(c.t_infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI)) &&
		TransactionIdEquals(HeapTupleHeaderGetRawXmax(&c), mover))
		return false;
	c.t_infomask |= HEAP_XMIN_FROZEN;
	tup.t_data = &c;
	tup.t_len = SizeofHeapTupleHeader;
	tup.t_self = tp->t_self;
	tup.t_tableOid = tp->t_tableOid;
	return HeapTupleSatisfiesVisibility(&tup, snapshot, buf);
}

/*
 * qs_moved_merge_of
 *		The merge that wrote main row 'vtid', if its block is a merge's and
 *		'snapshot' (MVCC) does not see that committed merge; else
 *		InvalidTransactionId.
 */
TransactionId
qs_moved_merge_of(Relation rel, ItemPointer vtid, Snapshot snapshot)
{
	QsColDirEntry e;
	uint32		row;
	TransactionId mover;

	if (snapshot == NULL || !IsMVCCSnapshot(snapshot) ||
		!qs_coldir_lookup(rel, vtid, &e, &row))
		return InvalidTransactionId;
	mover = qs_coldir_row_xmin(&e, row);
	if ((e.flags & QS_COLDIR_MERGED) && TransactionIdIsNormal(mover) &&
		XidInMVCCSnapshot(mover, snapshot) && TransactionIdDidCommit(mover))
		return mover;
	return InvalidTransactionId;
}

/*
 * qs_crosscheck_visible
 *		The crosscheck of an update or delete (RI actions at REPEATABLE
 *		READ): heap's verdict on the record's header, and for a main copy
 *		of a merge the crosscheck snapshot does not see, the verdict on the
 *		row it sees instead (qs_main_visible_unmerged).
 */
bool
qs_crosscheck_visible(Relation rel, HeapTuple tp, Snapshot crosscheck,
					  Buffer buf)
{
	TransactionId mover;

	if (HeapTupleSatisfiesVisibility(tp, crosscheck, buf))
		return true;
	if (!qs_tid_is_virtual(&tp->t_self))
		return false;
	mover = qs_moved_merge_of(rel, &tp->t_self, crosscheck);
	return TransactionIdIsValid(mover) &&
		qs_main_visible_unmerged(tp, mover, crosscheck, buf);
}

/*
 * qs_moved_conflict_pending
 *		Did a serializable read just count delta version 'h' whose merge
 *		committed?  Then the row's current state (changes made since, by
 *		writers the reader may not see) lives at its main copy, *link:
 *		qs_moved_conflict_out must look there once no buffer is locked.
 */
bool
qs_moved_conflict_pending(HeapTupleHeader h, bool valid, ItemPointer link)
{
	TransactionId mover;

	if (!valid || !qs_header_moved(h))
		return false;
	mover = HeapTupleHeaderGetRawXmax(h);
	if (TransactionIdIsCurrentTransactionId(mover) ||
		TransactionIdIsInProgress(mover) || !TransactionIdDidCommit(mover))
		return false;
	*link = h->t_ctid;
	return true;
}

/*
 * qs_moved_conflict_out
 *		The conflict out heap's read of the row would record: the xmax of
 *		its main copy (the writer that changed the row after the merge), as
 *		for a visible tuple (review C4: write skew through a moved row).
 *		Called with no buffer locked (a main row's update holds its delete-
 *		map page while it takes a delta page).
 */
void
qs_moved_conflict_out(Relation rel, ItemPointer link, Snapshot snapshot)
{
	QsColDirEntry e;
	uint32		row;
	HeapTupleHeaderData hdr;
	bool		vis;

	if (qs_coldir_lookup(rel, link, &e, &row) &&
		qs_coldelmap_header(rel, &e, row, NULL, &hdr, &vis))
	{
		HeapTupleData tup;
		Buffer		mbuf = ReadBuffer(rel, QS_COLMETA_BLKNO);

		tup.t_data = &hdr;
		tup.t_len = SizeofHeapTupleHeader;
		tup.t_self = *link;
		tup.t_tableOid = RelationGetRelid(rel);
		LockBuffer(mbuf, BUFFER_LOCK_SHARE);
		HeapCheckForSerializableConflictOut(true, rel, &tup, mbuf, snapshot);
		UnlockReleaseBuffer(mbuf);
	}
}
