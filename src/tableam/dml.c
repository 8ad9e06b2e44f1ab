/*-------------------------------------------------------------------------
 *
 * dml.c
 *	  Engine writes: insert, multi-insert, speculative insert, delete,
 *	  update, row locks.
 *
 * Every page change goes through generic WAL (GenericXLogStart/Register/
 * Finish): crash recovery and standbys replay it without a resource
 * manager of ours.  MVCC decisions are heap's own (HeapTupleSatisfiesUpdate
 * and friends) on the header the layout presents; the header fields are set
 * exactly as heap_insert/heap_delete/heap_update/heap_lock_tuple set them.
 *
 * Row locks.  As on heap, several transactions can hold one row when their
 * strengths are compatible (heap's conflict table for KEY SHARE / SHARE /
 * NO KEY UPDATE / UPDATE): their xids go into a multixact, and a non-key
 * UPDATE (no column of a foreign-key-usable unique index changes) proceeds
 * beside KEY SHARE lockers, keeping them in the multixact.  A subtransaction
 * that updates a row its parent locked keeps the parent's lock in the
 * multixact.  Unlike heap, a new locker waits for an in-progress update of
 * the row instead of locking the old version and following the update
 * chain (heap_lock_updated_tuple).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/hio.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "utils/combocid.h"
#include "utils/datum.h"
#include "utils/relcache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "tableam/engine.h"
#include "tableam/engine_int.h"

/* policy value for "do not wait, report TM_BeingModified" (delete/update
 * with wait = false) */
#define QS_WAIT_REPORT	((LockWaitPolicy) -1)

/* ------------------------------------------------------------------------
 * Choosing a page
 * ------------------------------------------------------------------------
 */

/*
 * qs_get_buffer
 *		A buffer, exclusively locked, whose page fits 'tup', never block
 *		'exclude'.  New pages are returned all-zero (*isnew): the caller
 *		formats them inside its WAL section.
 */
static Buffer
qs_get_buffer(Relation rel, const QsPageLayout *L, HeapTuple tup,
			  BufferAccessStrategy strategy, BlockNumber exclude, bool use_fsm,
			  bool *isnew)
{
	Size		reserve = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	Size		need;
	BlockNumber target = InvalidBlockNumber;
	Buffer		buf;
	Size		maxsize = L->max_record_size(RelationGetDescr(rel));

	if (MAXALIGN(tup->t_len) > maxsize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						(size_t) tup->t_len, maxsize)));
	/*
	 * A record too big for the fillfactor still goes on an empty page; the
	 * FSM request must not exceed what any page can hold either.
	 */
	if (MAXALIGN(tup->t_len) + reserve > maxsize)
		reserve = 0;
	need = MAXALIGN(tup->t_len) + reserve;

	*isnew = false;
	target = RelationGetTargetBlock(rel);
	if (target == InvalidBlockNumber && use_fsm)
		target = GetPageWithFreeSpace(rel, need);
	if (target == InvalidBlockNumber)
	{
		BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

		if (nblocks > 0)
			target = nblocks - 1;
	}

	while (target != InvalidBlockNumber)
	{
		Page		page;
		Size		freespace;

		if (target == exclude)
		{
			target = use_fsm ? GetPageWithFreeSpace(rel, need) : InvalidBlockNumber;
			if (target == exclude)
				target = InvalidBlockNumber;
			continue;
		}
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, target, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (PageIsNew(page))
		{
			*isnew = true;
			RelationSetTargetBlock(rel, target);
			return buf;
		}
		if (L->record_fits(page, RelationGetDescr(rel), tup, reserve))
		{
			RelationSetTargetBlock(rel, target);
			return buf;
		}
		freespace = L->free_space(page);
		/*
		 * A layout may refuse a record for its shape, not its size (HPL: a
		 * page formatted before ADD COLUMN): never send the FSM back here
		 * for this request.
		 */
		if (freespace >= need)
			freespace = need - 1;
		UnlockReleaseBuffer(buf);
		if (!use_fsm)
			break;
		target = RecordAndGetPageWithFreeSpace(rel, target, freespace, need);
	}

	buf = qs_extend_rel(rel, strategy);
	if (!PageIsNew(BufferGetPage(buf)))
		elog(ERROR, "page %u of relation \"%s\" should be empty but is not",
			 BufferGetBlockNumber(buf), RelationGetRelationName(rel));
	*isnew = true;
	RelationSetTargetBlock(rel, BufferGetBlockNumber(buf));
	return buf;
}

/* ------------------------------------------------------------------------
 * Insert
 * ------------------------------------------------------------------------
 */

/* set the header of a new version as heap_prepare_insert does */
static void
qs_prepare_header(Relation rel, HeapTuple tup, TransactionId xid,
				  CommandId cid, int options)
{
	tup->t_data->t_infomask &= ~(HEAP_XACT_MASK);
	tup->t_data->t_infomask2 &= ~(HEAP2_XACT_MASK);
	tup->t_data->t_infomask |= HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmin(tup->t_data, xid);
	if (options & HEAP_INSERT_FROZEN)
		HeapTupleHeaderSetXminFrozen(tup->t_data);
	HeapTupleHeaderSetCmin(tup->t_data, cid);
	HeapTupleHeaderSetXmax(tup->t_data, 0);
	tup->t_tableOid = RelationGetRelid(rel);
}

static bool
qs_needs_toast(Relation rel, HeapTuple tup)
{
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		return false;
	return HeapTupleHasExternal(tup) || tup->t_len > TOAST_TUPLE_THRESHOLD;
}

void
qs_place_tuple(Relation rel, const QsPageLayout *L, HeapTuple tup,
			   BufferAccessStrategy strategy, bool use_fsm)
{
	Buffer		buf;
	bool		isnew;
	GenericXLogState *state;
	Page		page;
	OffsetNumber off;
	BlockNumber blkno;

	buf = qs_get_buffer(rel, L, tup, strategy, InvalidBlockNumber, use_fsm, &isnew);
	blkno = BufferGetBlockNumber(buf);

	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber); /* as heap_insert */

	state = GenericXLogStart(rel);
	page = GenericXLogRegisterBuffer(state, buf, isnew ? GENERIC_XLOG_FULL_IMAGE : 0);
	if (isnew)
		L->init_page(page, BufferGetPageSize(buf), RelationGetDescr(rel));
	off = L->put_record(page, RelationGetDescr(rel), blkno, tup);
	if (off == InvalidOffsetNumber)
	{
		GenericXLogAbort(state);
		UnlockReleaseBuffer(buf);
		elog(ERROR, "failed to add a record of %u bytes to block %u of \"%s\"",
			 tup->t_len, blkno, RelationGetRelationName(rel));
	}
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
}

static void
qs_insert_one(Relation rel, const QsPageLayout *L, TupleTableSlot *slot,
			  CommandId cid, int options, BulkInsertState bistate,
			  uint32 specToken)
{
	bool		shouldFree = true;
	HeapTuple	tup = ExecFetchSlotHeapTuple(slot, true, &shouldFree);
	HeapTuple	heaptup;
	TransactionId xid = GetCurrentTransactionId();

	slot->tts_tableOid = RelationGetRelid(rel);
	qs_prepare_header(rel, tup, xid, cid, options);
	if (qs_needs_toast(rel, tup))
		heaptup = heap_toast_insert_or_update(rel, tup, NULL, options);
	else
		heaptup = tup;
	if (options & HEAP_INSERT_SPECULATIVE)
		HeapTupleHeaderSetSpeculativeToken(heaptup->t_data, specToken);

	qs_place_tuple(rel, L, heaptup,
				   bistate ? bistate->strategy : NULL,
				   !(options & HEAP_INSERT_SKIP_FSM));

	pgstat_count_heap_insert(rel, 1);
	slot->tts_tid = heaptup->t_self;
	tup->t_self = heaptup->t_self;
	if (heaptup != tup)
		heap_freetuple(heaptup);
	if (shouldFree)
		pfree(tup);
}

void
qs_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				int options, struct BulkInsertStateData *bistate)
{
	qs_insert_one(rel, qs_layout_of(rel), slot, cid, options, bistate, 0);
}

void
qs_tuple_insert_speculative(Relation rel, TupleTableSlot *slot, CommandId cid,
							int options, struct BulkInsertStateData *bistate,
							uint32 specToken)
{
	qs_insert_one(rel, qs_layout_of(rel), slot, cid,
				  options | HEAP_INSERT_SPECULATIVE, bistate, specToken);
}

/*
 * COPY: prepare (and toast) every tuple first, then fill each page with as
 * many as fit under one generic WAL record.
 */
void
qs_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
				CommandId cid, int options, struct BulkInsertStateData *bistate)
{
	const QsPageLayout *L = qs_layout_of(rel);
	TransactionId xid = GetCurrentTransactionId();
	HeapTuple  *tups = palloc(sizeof(HeapTuple) * ntuples);
	Size		reserve = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	BufferAccessStrategy strategy = bistate ? bistate->strategy : NULL;
	bool		use_fsm = !(options & HEAP_INSERT_SKIP_FSM);
	int			i;

	for (i = 0; i < ntuples; i++)
	{
		HeapTuple	tup = ExecFetchSlotHeapTuple(slots[i], true, NULL);

		slots[i]->tts_tableOid = RelationGetRelid(rel);
		qs_prepare_header(rel, tup, xid, cid, options);
		tups[i] = qs_needs_toast(rel, tup) ?
			heap_toast_insert_or_update(rel, tup, NULL, options) : tup;
	}

	/* one relation-level check, as heap_multi_insert does */
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);

	i = 0;
	while (i < ntuples)
	{
		bool		isnew;
		Buffer		buf = qs_get_buffer(rel, L, tups[i], strategy,
										InvalidBlockNumber, use_fsm, &isnew);
		BlockNumber blkno = BufferGetBlockNumber(buf);
		GenericXLogState *state = GenericXLogStart(rel);
		Page		page = GenericXLogRegisterBuffer(state, buf,
													 isnew ? GENERIC_XLOG_FULL_IMAGE : 0);

		if (isnew)
			L->init_page(page, BufferGetPageSize(buf), RelationGetDescr(rel));
		do
		{
			if (L->put_record(page, RelationGetDescr(rel), blkno, tups[i]) == InvalidOffsetNumber)
			{
				GenericXLogAbort(state);
				UnlockReleaseBuffer(buf);
				elog(ERROR, "failed to add a record of %u bytes to block %u of \"%s\"",
					 tups[i]->t_len, blkno, RelationGetRelationName(rel));
			}
			slots[i]->tts_tid = tups[i]->t_self;
			i++;
		} while (i < ntuples && L->record_fits(page, RelationGetDescr(rel), tups[i], reserve));
		GenericXLogFinish(state);
		UnlockReleaseBuffer(buf);
	}

	for (i = 0; i < ntuples; i++)
	{
		HeapTuple	slottup = ExecFetchSlotHeapTuple(slots[i], false, NULL);

		if (tups[i] != slottup)
		{
			slottup->t_self = tups[i]->t_self;
			heap_freetuple(tups[i]);
		}
		else
			slottup->t_self = tups[i]->t_self;
	}
	pfree(tups);
	pgstat_count_heap_insert(rel, ntuples);
}

void
qs_finish_bulk_insert(Relation rel, int options)
{
	/* every page change was WAL-logged (generic WAL): nothing to sync */
}

/*
 * Speculative insertion finished: confirm (t_ctid points at itself) or kill
 * (xmin invalid: dead to everyone), as heap_finish_speculative and
 * heap_abort_speculative do.
 */
void
qs_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
							  uint32 specToken, bool succeeded)
{
	const QsPageLayout *L = qs_layout_of(rel);
	ItemPointer tid = &slot->tts_tid;
	Buffer		buf;
	GenericXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	HeapTupleHeaderData scratch;
	HeapTuple	oldcopy = NULL;
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);

	buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (L->record_state(BufferGetPage(buf), off) != QS_REC_NORMAL)
		elog(ERROR, "speculatively inserted record (%u,%u) of \"%s\" is gone",
			 ItemPointerGetBlockNumber(tid), off, RelationGetRelationName(rel));

	if (!succeeded)
	{
		hdr = L->get_header(BufferGetPage(buf), off, &scratch, NULL);
		if (HeapTupleHeaderHasExternal(hdr))
			oldcopy = L->copy_record(rel, BufferGetPage(buf),
									 ItemPointerGetBlockNumber(tid), off);
	}

	state = GenericXLogStart(rel);
	page = GenericXLogRegisterBuffer(state, buf, 0);
	hdr = L->get_header(page, off, &scratch, NULL);
	if (!HeapTupleHeaderIsSpeculative(hdr))
	{
		GenericXLogAbort(state);
		UnlockReleaseBuffer(buf);
		elog(ERROR, "record (%u,%u) of \"%s\" is not a speculative insertion",
			 ItemPointerGetBlockNumber(tid), off, RelationGetRelationName(rel));
	}
	if (succeeded)
		hdr->t_ctid = *tid;
	else
	{
		hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
		hdr->t_infomask2 &= ~HEAP_KEYS_UPDATED;
		hdr->t_infomask |= HEAP_XMAX_INVALID;
		HeapTupleHeaderSetXmin(hdr, InvalidTransactionId);
		hdr->t_ctid = *tid;
		L->set_prune_hint(page, RecentXmin);
	}
	L->set_header(page, off, hdr);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);

	if (oldcopy)
	{
		heap_toast_delete(rel, oldcopy, true);
		heap_freetuple(oldcopy);
	}
	if (!succeeded)
		pgstat_count_heap_delete(rel);
}

/* ------------------------------------------------------------------------
 * Waiting for the current modifier of a record
 * ------------------------------------------------------------------------
 */

static void
qs_load_header(const QsPageLayout *L, Relation rel, Buffer buf,
			   OffsetNumber off, HeapTuple tp, HeapTupleHeaderData *scratch)
{
	uint32		len;

	tp->t_data = L->get_header(BufferGetPage(buf), off, scratch, &len);
	tp->t_len = len;
	ItemPointerSet(&tp->t_self, BufferGetBlockNumber(buf), off);
	tp->t_tableOid = RelationGetRelid(rel);
}

static void
qs_sync_header(const QsPageLayout *L, Buffer buf, OffsetNumber off,
			   HeapTuple tp, HeapTupleHeaderData *scratch)
{
	if (tp->t_data == scratch)
		L->set_header(BufferGetPage(buf), off, scratch);
}

/* ------------------------------------------------------------------------
 * Lock modes and multixacts
 * ------------------------------------------------------------------------
 */

/* the lock mode a multixact member stands for */
static LockTupleMode
qs_mxstatus_mode(MultiXactStatus st)
{
	switch (st)
	{
		case MultiXactStatusForKeyShare:
			return LockTupleKeyShare;
		case MultiXactStatusForShare:
			return LockTupleShare;
		case MultiXactStatusForNoKeyUpdate:
		case MultiXactStatusNoKeyUpdate:
			return LockTupleNoKeyExclusive;
		default:
			return LockTupleExclusive;
	}
}

static bool
qs_mxstatus_is_update(MultiXactStatus st)
{
	return st == MultiXactStatusNoKeyUpdate || st == MultiXactStatusUpdate;
}

static MultiXactStatus
qs_lock_status(LockTupleMode mode)
{
	switch (mode)
	{
		case LockTupleKeyShare:
			return MultiXactStatusForKeyShare;
		case LockTupleShare:
			return MultiXactStatusForShare;
		case LockTupleNoKeyExclusive:
			return MultiXactStatusForNoKeyUpdate;
		default:
			return MultiXactStatusForUpdate;
	}
}

/* heap's row-lock conflict table */
static bool
qs_modes_conflict(LockTupleMode held, LockTupleMode req)
{
	static const bool conflicts[4][4] = {
		/* held \ req:  KeyShare, Share, NoKeyExcl, Excl */
		/* KeyShare */ {false, false, false, true},
		/* Share */ {false, false, true, true},
		/* NoKeyExcl */ {false, true, true, true},
		/* Excl */ {true, true, true, true},
	};

	return conflicts[held][req];
}

/* strength of a lock-only xmax (single or multi), from its hint bits */
static LockTupleMode
qs_held_mode(HeapTupleHeader hdr)
{
	uint16		im = hdr->t_infomask;

	if (HEAP_XMAX_IS_EXCL_LOCKED(im))
		return (hdr->t_infomask2 & HEAP_KEYS_UPDATED) ?
			LockTupleExclusive : LockTupleNoKeyExclusive;
	if (HEAP_XMAX_IS_SHR_LOCKED(im))
		return LockTupleShare;
	return LockTupleKeyShare;
}

/* the infomask bits of a multixact xmax, as heap's GetMultiXactIdHintBits */
static void
qs_multi_hint_bits(MultiXactId multi, uint16 *infomask, uint16 *infomask2)
{
	MultiXactMember *members;
	int			n = GetMultiXactIdMembers(multi, &members, false, false);
	LockTupleMode strongest = LockTupleKeyShare;
	bool		has_update = false;
	uint16		bits = HEAP_XMAX_IS_MULTI;
	uint16		bits2 = 0;

	for (int i = 0; i < n; i++)
	{
		LockTupleMode m = qs_mxstatus_mode(members[i].status);

		if (members[i].status == MultiXactStatusForUpdate ||
			members[i].status == MultiXactStatusUpdate)
			bits2 |= HEAP_KEYS_UPDATED;
		if (qs_mxstatus_is_update(members[i].status))
			has_update = true;
		if (m > strongest)
			strongest = m;
	}
	if (n > 0)
		pfree(members);
	if (strongest == LockTupleExclusive || strongest == LockTupleNoKeyExclusive)
		bits |= HEAP_XMAX_EXCL_LOCK;
	else if (strongest == LockTupleShare)
		bits |= HEAP_XMAX_SHR_LOCK;
	else
		bits |= HEAP_XMAX_KEYSHR_LOCK;
	if (!has_update)
		bits |= HEAP_XMAX_LOCK_ONLY;
	*infomask = bits;
	*infomask2 = bits2;
}

/*
 * qs_check_writable
 *		With 'buf' exclusively locked, decide whether the record at 'off' may
 *		be changed (update/delete: mode Exclusive) or locked in 'mode' by
 *		us, waiting per 'policy' for every other transaction whose lock or
 *		change conflicts.  TM_Ok means: nobody else holds a conflicting
 *		lock; compatible lockers of other transactions, and our own locks,
 *		may remain in xmax (the caller folds them into a multixact).
 *		Returns with the buffer exclusively locked and 'tp' loaded.
 *		TM_WouldBlock for SKIP LOCKED; ERROR for NOWAIT.
 */
static TM_Result
qs_check_writable(Relation rel, const QsPageLayout *L, Buffer buf,
				  OffsetNumber off, CommandId cid, LockTupleMode mode,
				  LockWaitPolicy policy, XLTW_Oper oper, bool *have_tuple_lock,
				  HeapTuple tp, HeapTupleHeaderData *scratch)
{
	TM_Result	result;

	for (;;)
	{
		TransactionId xwait;
		TransactionId blocker = InvalidTransactionId;
		uint16		infomask;

		qs_load_header(L, rel, buf, off, tp, scratch);
		result = HeapTupleSatisfiesUpdate(tp, cid, buf);
		qs_sync_header(L, buf, off, tp, scratch);
		if (result != TM_BeingModified)
			return result;
		if (policy == QS_WAIT_REPORT)
			return result;

		xwait = HeapTupleHeaderGetRawXmax(tp->t_data);
		infomask = tp->t_data->t_infomask;
		if (infomask & HEAP_XMAX_IS_MULTI)
		{
			MultiXactMember *members;
			int			n = GetMultiXactIdMembers(xwait, &members, false,
												  HEAP_XMAX_IS_LOCKED_ONLY(infomask));

			for (int i = 0; i < n; i++)
			{
				if (TransactionIdIsCurrentTransactionId(members[i].xid))
					continue;
				if (!qs_mxstatus_is_update(members[i].status) &&
					!qs_modes_conflict(qs_mxstatus_mode(members[i].status), mode))
					continue;
				if (TransactionIdIsInProgress(members[i].xid))
				{
					blocker = members[i].xid;
					break;
				}
			}
			if (n > 0)
				pfree(members);

			/*
			 * Nobody to wait for.  HeapTupleSatisfiesUpdate says "being
			 * modified" while any member runs (ours included), even when the
			 * multixact's update committed: then the record is updated, as
			 * heap_update decides after MultiXactIdWait.
			 */
			if (!TransactionIdIsValid(blocker) &&
				!HEAP_XMAX_IS_LOCKED_ONLY(infomask))
			{
				TransactionId upd = HeapTupleHeaderGetUpdateXid(tp->t_data);

				if (TransactionIdIsValid(upd) &&
					!TransactionIdIsCurrentTransactionId(upd) &&
					TransactionIdDidCommit(upd))
					return ItemPointerEquals(&tp->t_self, &tp->t_data->t_ctid) ?
						TM_Deleted : TM_Updated;
			}
		}
		else if (!TransactionIdIsCurrentTransactionId(xwait) &&
				 !(HEAP_XMAX_IS_LOCKED_ONLY(infomask) &&
				   !qs_modes_conflict(qs_held_mode(tp->t_data), mode)))
			blocker = xwait;

		if (!TransactionIdIsValid(blocker))
			return TM_Ok;		/* only our own or compatible locks remain */

		/* queue on the tuple lock, then wait for the blocker */
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (policy == LockWaitBlock)
		{
			if (!*have_tuple_lock)
			{
				LockTuple(rel, &tp->t_self, ExclusiveLock);
				*have_tuple_lock = true;
			}
			XactLockTableWait(blocker, rel, &tp->t_self, oper);
		}
		else
		{
			bool		got;

			got = *have_tuple_lock ||
				qs_ConditionalLockTuple(rel, &tp->t_self, ExclusiveLock);
			if (got)
				*have_tuple_lock = true;
			if (got)
				got = qs_ConditionalXactLockTableWait(blocker);
			if (!got)
			{
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				if (policy == LockWaitSkip)
					return TM_WouldBlock;
				ereport(ERROR,
						(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
						 errmsg("could not obtain lock on row in relation \"%s\"",
								RelationGetRelationName(rel))));
			}
		}
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		/* look again: the blocker ended, others may still be there */
	}
}

/* the lock-only infomask bits of a plain (single xid) lock */
static uint16
qs_lock_infomask(LockTupleMode mode)
{
	switch (mode)
	{
		case LockTupleKeyShare:
			return HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_KEYSHR_LOCK;
		case LockTupleShare:
			return HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_SHR_LOCK;
		default:
			return HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_EXCL_LOCK;
	}
}

/*
 * qs_compose_xmax
 *		The xmax (and its infomask bits) written when 'xid' updates, deletes
 *		or locks (per 'status') a record whose check passed: plain 'xid', or
 *		a multixact that keeps every live lock already on the record — ours
 *		under another (sub)transaction id, so that rolling back a
 *		subtransaction does not drop its parent's lock, and other
 *		transactions' compatible ones (key-share lockers beside a non-key
 *		update).
 */
static TransactionId
qs_compose_xmax(HeapTupleHeader h, TransactionId xid, MultiXactStatus status,
				uint16 *infomask, uint16 *infomask2)
{
	uint16		im = h->t_infomask;
	TransactionId old = HeapTupleHeaderGetRawXmax(h);
	bool		live = false;
	MultiXactId multi;

	if (im & HEAP_XMAX_INVALID)
		live = false;
	else if (im & HEAP_XMAX_IS_MULTI)
	{
		/* lockers still running (an aborted update in it is dropped) */
		live = MultiXactIdIsRunning(old, HEAP_XMAX_IS_LOCKED_ONLY(im));
	}
	else if (HEAP_XMAX_IS_LOCKED_ONLY(im))
		live = !TransactionIdEquals(old, xid) &&
			(TransactionIdIsCurrentTransactionId(old) ||
			 TransactionIdIsInProgress(old));
	if (!live)
	{
		*infomask = qs_mxstatus_is_update(status) ? 0 :
			qs_lock_infomask(qs_mxstatus_mode(status));
		*infomask2 = (status == MultiXactStatusUpdate ||
					  status == MultiXactStatusForUpdate) ? HEAP_KEYS_UPDATED : 0;
		return xid;
	}
	if (im & HEAP_XMAX_IS_MULTI)
		multi = MultiXactIdExpand(old, xid, status);
	else
		multi = MultiXactIdCreate(old, qs_lock_status(qs_held_mode(h)),
								  xid, status);
	qs_multi_hint_bits(multi, infomask, infomask2);
	return multi;
}

/*
 * Did the update change a column of a unique index usable by a foreign key
 * (heap's "key" columns)?  Decides UPDATE (key) versus NO KEY UPDATE.
 */
static bool
qs_key_changed(Relation rel, const QsPageLayout *L, Page page, OffsetNumber off,
			   HeapTuple newtup)
{
	Bitmapset  *keys = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_KEY);
	TupleDesc	desc = RelationGetDescr(rel);
	int			x = -1;
	bool		changed = false;

	while (!changed && (x = bms_next_member(keys, x)) >= 0)
	{
		AttrNumber	attnum = x + FirstLowInvalidHeapAttributeNumber;
		Form_pg_attribute att;
		Datum		oldv,
					newv;
		bool		oldnull,
					newnull;

		if (attnum <= 0)
		{
			changed = true;		/* a system column: be safe */
			break;
		}
		att = TupleDescAttr(desc, attnum - 1);
		L->read_column(page, desc, attnum, &off, 1, &oldv, &oldnull);
		newv = heap_getattr(newtup, attnum, desc, &newnull);
		if (oldnull != newnull)
			changed = true;
		else if (!oldnull &&
				 !datumIsEqual(oldv, newv, att->attbyval, att->attlen))
			changed = true;
	}
	bms_free(keys);
	return changed;
}

static void
qs_fill_tmfd(TM_Result result, HeapTuple tp, TM_FailureData *tmfd)
{
	tmfd->ctid = tp->t_data->t_ctid;
	tmfd->xmax = HeapTupleHeaderGetUpdateXid(tp->t_data);
	if (result == TM_SelfModified)
		tmfd->cmax = HeapTupleHeaderGetCmax(tp->t_data);
	else
		tmfd->cmax = InvalidCommandId;
}

static Buffer
qs_read_for_write(Relation rel, const QsPageLayout *L, ItemPointer tid,
				  const char *what)
{
	Buffer		buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (L->record_state(BufferGetPage(buf), ItemPointerGetOffsetNumber(tid)) != QS_REC_NORMAL)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("attempted to %s a record (%u,%u) of \"%s\" that does not exist",
						what, ItemPointerGetBlockNumber(tid),
						ItemPointerGetOffsetNumber(tid),
						RelationGetRelationName(rel))));
	}
	return buf;
}

/* ------------------------------------------------------------------------
 * Delete
 * ------------------------------------------------------------------------
 */
TM_Result
qs_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				Snapshot snapshot, Snapshot crosscheck, bool wait,
				TM_FailureData *tmfd, bool changingPart)
{
	const QsPageLayout *L = qs_layout_of(rel);
	TransactionId xid = GetCurrentTransactionId();
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Buffer		buf;
	HeapTupleData tp;
	HeapTupleHeaderData scratch;
	bool		have_tuple_lock = false;
	TM_Result	result;
	bool		iscombo;
	GenericXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	HeapTuple	toastcopy = NULL;

	MultiXactIdSetOldestMember();
	buf = qs_read_for_write(rel, L, tid, "delete");
	result = qs_check_writable(rel, L, buf, off, cid, LockTupleExclusive,
							   wait ? LockWaitBlock : QS_WAIT_REPORT,
							   XLTW_Delete, &have_tuple_lock, &tp, &scratch);
	if (result == TM_Invisible)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to delete invisible tuple")));
	}
	if (result == TM_Ok && crosscheck != InvalidSnapshot &&
		!HeapTupleSatisfiesVisibility(&tp, crosscheck, buf))
		result = TM_Updated;
	if (result != TM_Ok)
	{
		qs_fill_tmfd(result, &tp, tmfd);
		UnlockReleaseBuffer(buf);
		if (have_tuple_lock)
			UnlockTuple(rel, tid, ExclusiveLock);
		return result;
	}

	CheckForSerializableConflictIn(rel, tid, BufferGetBlockNumber(buf));
	HeapTupleHeaderAdjustCmax(tp.t_data, &cid, &iscombo);
	if (HeapTupleHasExternal(&tp) && rel->rd_rel->relkind != RELKIND_MATVIEW)
		toastcopy = L->copy_record(rel, BufferGetPage(buf),
								   BufferGetBlockNumber(buf), off);

	{
		uint16		newim,
					newim2;
		TransactionId newxmax = qs_compose_xmax(tp.t_data, xid, MultiXactStatusUpdate,
												 &newim, &newim2);

		state = GenericXLogStart(rel);
		page = GenericXLogRegisterBuffer(state, buf, 0);
		hdr = L->get_header(page, off, &scratch, NULL);
		hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
		hdr->t_infomask2 &= ~HEAP_KEYS_UPDATED;
		HeapTupleHeaderClearHotUpdated(hdr);
		hdr->t_infomask |= newim;
		hdr->t_infomask2 |= newim2;
		HeapTupleHeaderSetXmax(hdr, newxmax);
	}
	HeapTupleHeaderSetCmax(hdr, cid, iscombo);
	hdr->t_ctid = *tid;
	if (changingPart)
		HeapTupleHeaderSetMovedPartitions(hdr);
	L->set_header(page, off, hdr);
	L->set_prune_hint(page, xid);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);

	if (toastcopy)
	{
		heap_toast_delete(rel, toastcopy, false);
		heap_freetuple(toastcopy);
	}
	if (have_tuple_lock)
		UnlockTuple(rel, tid, ExclusiveLock);
	pgstat_count_heap_delete(rel);
	return TM_Ok;
}

/* ------------------------------------------------------------------------
 * Update
 * ------------------------------------------------------------------------
 */
static void
qs_set_update_xmax(HeapTupleHeader hdr, TransactionId xmax, uint16 im,
				   uint16 im2, CommandId cid, bool iscombo, ItemPointer newtid)
{
	hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
	hdr->t_infomask2 &= ~HEAP_KEYS_UPDATED;
	HeapTupleHeaderClearHotUpdated(hdr);
	hdr->t_infomask |= im;
	hdr->t_infomask2 |= im2;
	HeapTupleHeaderSetXmax(hdr, xmax);
	HeapTupleHeaderSetCmax(hdr, cid, iscombo);
	hdr->t_ctid = *newtid;
}

TM_Result
qs_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				QS_UPDATE_INDEXES_T *update_indexes)
{
	const QsPageLayout *L = qs_layout_of(rel);
	TransactionId xid = GetCurrentTransactionId();
	OffsetNumber off = ItemPointerGetOffsetNumber(otid);
	BlockNumber oblk = ItemPointerGetBlockNumber(otid);
	bool		shouldFree = true;
	HeapTuple	newtup = ExecFetchSlotHeapTuple(slot, true, &shouldFree);
	HeapTuple	heaptup;
	Buffer		buf,
				newbuf = InvalidBuffer;
	HeapTupleData tp;
	HeapTupleHeaderData scratch;
	bool		have_tuple_lock = false;
	TM_Result	result;
	bool		iscombo;
	bool		need_toast;
	CommandId	ocid = cid;
	GenericXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	bool		newpage = false;
	TransactionId uxmax;
	uint16		uim,
				uim2;
	bool		key_changed;

	QS_SET_UPDATE_ALL(update_indexes);
	slot->tts_tableOid = RelationGetRelid(rel);

	MultiXactIdSetOldestMember();
	buf = qs_read_for_write(rel, L, otid, "update");
	key_changed = qs_key_changed(rel, L, BufferGetPage(buf), off, newtup);
	*lockmode = key_changed ? LockTupleExclusive : LockTupleNoKeyExclusive;
	result = qs_check_writable(rel, L, buf, off, cid, *lockmode,
							   wait ? LockWaitBlock : QS_WAIT_REPORT,
							   XLTW_Update, &have_tuple_lock, &tp, &scratch);
	if (result == TM_Invisible)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to update invisible tuple")));
	}
	if (result == TM_Ok && crosscheck != InvalidSnapshot &&
		!HeapTupleSatisfiesVisibility(&tp, crosscheck, buf))
		result = TM_Updated;
	if (result != TM_Ok)
	{
		qs_fill_tmfd(result, &tp, tmfd);
		UnlockReleaseBuffer(buf);
		if (have_tuple_lock)
			UnlockTuple(rel, otid, ExclusiveLock);
		if (shouldFree)
			pfree(newtup);
		return result;
	}

	CheckForSerializableConflictIn(rel, otid, oblk);

	/* the new version's header, as heap_update sets it */
	newtup->t_data->t_infomask &= ~(HEAP_XACT_MASK);
	newtup->t_data->t_infomask2 &= ~(HEAP2_XACT_MASK);
	HeapTupleHeaderSetXmin(newtup->t_data, xid);
	HeapTupleHeaderSetCmin(newtup->t_data, cid);
	HeapTupleHeaderSetXmax(newtup->t_data, 0);
	newtup->t_data->t_infomask |= HEAP_XMAX_INVALID | HEAP_UPDATED;
	newtup->t_tableOid = RelationGetRelid(rel);

	HeapTupleHeaderAdjustCmax(tp.t_data, &ocid, &iscombo);

	need_toast = (rel->rd_rel->relkind == RELKIND_RELATION ||
				  rel->rd_rel->relkind == RELKIND_MATVIEW) &&
		(HeapTupleHasExternal(&tp) || HeapTupleHasExternal(newtup) ||
		 newtup->t_len > TOAST_TUPLE_THRESHOLD);

	if (!need_toast &&
		L->record_fits(BufferGetPage(buf), RelationGetDescr(rel), newtup, 0))
	{
		/* same page: one WAL record */
		OffsetNumber noff;

		uxmax = qs_compose_xmax(tp.t_data, xid,
								key_changed ? MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate,
								&uim, &uim2);
		state = GenericXLogStart(rel);
		page = GenericXLogRegisterBuffer(state, buf, 0);
		noff = L->put_record(page, RelationGetDescr(rel), oblk, newtup);
		if (noff == InvalidOffsetNumber)
			elog(PANIC, "record does not fit although it should");
		hdr = L->get_header(page, off, &scratch, NULL);
		qs_set_update_xmax(hdr, uxmax, uim, uim2, ocid, iscombo, &newtup->t_self);
		L->set_header(page, off, hdr);
		L->set_prune_hint(page, xid);
		GenericXLogFinish(state);
		UnlockReleaseBuffer(buf);
		heaptup = newtup;
	}
	else
	{
		HeapTuple	oldcopy = NULL;

		/*
		 * Lock the old version (xmax = us, lock only) so that nobody changes
		 * it while we toast and look for a page without the buffer lock.
		 */
		uint16		lim,
					lim2;
		TransactionId lxmax;

		/* lock it in our update's strength, keeping the locks already there */
		lxmax = qs_compose_xmax(tp.t_data, xid,
								key_changed ? MultiXactStatusForUpdate : MultiXactStatusForNoKeyUpdate,
								&lim, &lim2);
		state = GenericXLogStart(rel);
		page = GenericXLogRegisterBuffer(state, buf, 0);
		hdr = L->get_header(page, off, &scratch, NULL);
		hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
		hdr->t_infomask2 &= ~HEAP_KEYS_UPDATED;
		hdr->t_infomask |= lim;
		hdr->t_infomask2 |= lim2;
		HeapTupleHeaderSetXmax(hdr, lxmax);
		hdr->t_ctid = *otid;
		L->set_header(page, off, hdr);
		GenericXLogFinish(state);
		if (need_toast)
			oldcopy = L->copy_record(rel, BufferGetPage(buf), oblk, off);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		if (need_toast)
			heaptup = heap_toast_insert_or_update(rel, newtup, oldcopy, 0);
		else
			heaptup = newtup;

		for (;;)
		{
			bool		isnew = false;
			BlockNumber nblk;

			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			if (L->record_fits(BufferGetPage(buf), RelationGetDescr(rel), heaptup, 0))
			{
				newbuf = buf;
				break;
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			newbuf = qs_get_buffer(rel, L, heaptup, NULL, oblk, true, &isnew);
			nblk = BufferGetBlockNumber(newbuf);
			if (nblk < oblk)
			{
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				break;
			}
			/* lock the lower block first */
			LockBuffer(newbuf, BUFFER_LOCK_UNLOCK);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			LockBuffer(newbuf, BUFFER_LOCK_EXCLUSIVE);
			if (PageIsNew(BufferGetPage(newbuf)) ||
				L->record_fits(BufferGetPage(newbuf), RelationGetDescr(rel), heaptup, 0))
				break;
			UnlockReleaseBuffer(newbuf);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}

		/*
		 * Compatible lockers may have joined our lock meanwhile: compose the
		 * update's xmax from the xmax now there.
		 */
		{
			HeapTupleHeaderData scratch2;

			uxmax = qs_compose_xmax(L->get_header(BufferGetPage(buf), off, &scratch2, NULL),
									xid,
									key_changed ? MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate,
									&uim, &uim2);
		}

		state = GenericXLogStart(rel);
		if (newbuf == buf)
		{
			OffsetNumber noff;

			page = GenericXLogRegisterBuffer(state, buf, 0);
			noff = L->put_record(page, RelationGetDescr(rel), oblk, heaptup);
			if (noff == InvalidOffsetNumber)
				elog(PANIC, "record does not fit although it should");
		}
		else
		{
			Page		npage;
			bool		isnew = PageIsNew(BufferGetPage(newbuf));

			page = GenericXLogRegisterBuffer(state, buf, 0);
			npage = GenericXLogRegisterBuffer(state, newbuf,
											  isnew ? GENERIC_XLOG_FULL_IMAGE : 0);
			if (isnew)
				L->init_page(npage, BufferGetPageSize(newbuf), RelationGetDescr(rel));
			if (L->put_record(npage, RelationGetDescr(rel), BufferGetBlockNumber(newbuf), heaptup) == InvalidOffsetNumber)
				elog(PANIC, "record does not fit although it should");
			newpage = true;
		}
		hdr = L->get_header(page, off, &scratch, NULL);
		qs_set_update_xmax(hdr, uxmax, uim, uim2, ocid, iscombo, &heaptup->t_self);
		L->set_header(page, off, hdr);
		L->set_prune_hint(page, xid);
		GenericXLogFinish(state);
		if (newbuf != buf)
			UnlockReleaseBuffer(newbuf);
		UnlockReleaseBuffer(buf);
		if (oldcopy)
			heap_freetuple(oldcopy);
	}

	if (have_tuple_lock)
		UnlockTuple(rel, otid, ExclusiveLock);
	qs_pgstat_count_heap_update(rel, newpage);

	slot->tts_tid = heaptup->t_self;
	newtup->t_self = heaptup->t_self;
	if (heaptup != newtup)
		heap_freetuple(heaptup);
	if (shouldFree)
		pfree(newtup);
	return TM_Ok;
}

/* ------------------------------------------------------------------------
 * Row locks
 * ------------------------------------------------------------------------
 */

/* lock the record at tid (no chain following); the buffer is left pinned */
static TM_Result
qs_lock_one(Relation rel, const QsPageLayout *L, ItemPointer tid,
			CommandId cid, LockTupleMode mode, LockWaitPolicy wait_policy,
			TM_FailureData *tmfd, Buffer *bufp)
{
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Buffer		buf;
	HeapTupleData tp;
	HeapTupleHeaderData scratch;
	bool		have_tuple_lock = false;
	TM_Result	result;

	MultiXactIdSetOldestMember();
	buf = qs_read_for_write(rel, L, tid, "lock");
	*bufp = buf;
	result = qs_check_writable(rel, L, buf, off, cid, mode, wait_policy,
							   XLTW_Lock, &have_tuple_lock, &tp, &scratch);
	if (result == TM_Ok)
	{
		HeapTupleHeader h = tp.t_data;
		uint16		im = h->t_infomask;
		TransactionId old = HeapTupleHeaderGetRawXmax(h);
		TransactionId xid = GetCurrentTransactionId();
		TransactionId newxmax = xid;
		uint16		newim = qs_lock_infomask(mode);
		uint16		newim2 = (mode == LockTupleExclusive) ? HEAP_KEYS_UPDATED : 0;
		bool		done = false;

		if (im & HEAP_XMAX_INVALID)
			;					/* no xmax: a plain lock */
		else if (im & HEAP_XMAX_IS_MULTI)
		{
			if (MultiXactIdIsRunning(old, HEAP_XMAX_IS_LOCKED_ONLY(im)))
			{
				MultiXactMember *members;
				int			n = GetMultiXactIdMembers(old, &members, false,
													  HEAP_XMAX_IS_LOCKED_ONLY(im));

				for (int i = 0; i < n; i++)
					if (TransactionIdIsCurrentTransactionId(members[i].xid) &&
						!qs_mxstatus_is_update(members[i].status) &&
						qs_mxstatus_mode(members[i].status) >= mode)
						done = true;	/* we hold it already */
				if (n > 0)
					pfree(members);
				if (!done)
				{
					newxmax = MultiXactIdExpand(old, xid, qs_lock_status(mode));
					qs_multi_hint_bits(newxmax, &newim, &newim2);
				}
			}
		}
		else if (HEAP_XMAX_IS_LOCKED_ONLY(im) &&
				 (TransactionIdIsCurrentTransactionId(old) ||
				  TransactionIdIsInProgress(old)))
		{
			/* a live single locker: ours, or another's compatible one */
			if (TransactionIdIsCurrentTransactionId(old) &&
				qs_held_mode(h) >= mode)
				done = true;
			else if (!TransactionIdEquals(old, xid))
			{
				newxmax = MultiXactIdCreate(old, qs_lock_status(qs_held_mode(h)),
											xid, qs_lock_status(mode));
				qs_multi_hint_bits(newxmax, &newim, &newim2);
			}
			/* else: our own weaker lock under the same xid, made stronger */
		}

		if (!done)
		{
			GenericXLogState *state;
			Page		page;
			HeapTupleHeader hdr;

			state = GenericXLogStart(rel);
			page = GenericXLogRegisterBuffer(state, buf, 0);
			hdr = L->get_header(page, off, &scratch, NULL);
			hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
			hdr->t_infomask2 &= ~HEAP_KEYS_UPDATED;
			hdr->t_infomask |= newim;
			hdr->t_infomask2 |= newim2;
			HeapTupleHeaderSetXmax(hdr, newxmax);
			if (HEAP_XMAX_IS_LOCKED_ONLY(newim))
				hdr->t_ctid = *tid;
			L->set_header(page, off, hdr);
			GenericXLogFinish(state);
		}
	}
	else if (result != TM_WouldBlock)
		qs_fill_tmfd(result, &tp, tmfd);
	else
	{
		tmfd->ctid = *tid;
		tmfd->xmax = InvalidTransactionId;
		tmfd->cmax = InvalidCommandId;
	}
	if (result == TM_SelfModified && HEAP_XMAX_IS_LOCKED_ONLY(tp.t_data->t_infomask))
		tmfd->cmax = InvalidCommandId;
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (have_tuple_lock)
		UnlockTuple(rel, tid, ExclusiveLock);
	return result;
}

TM_Result
qs_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
			  TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
			  LockWaitPolicy wait_policy, uint8 flags, TM_FailureData *tmfd)
{
	const QsPageLayout *L = qs_layout_of(rel);
	TM_Result	result;
	Buffer		buf;

	tmfd->traversed = false;

retry:
	result = qs_lock_one(rel, L, tid, cid, mode, wait_policy, tmfd, &buf);

	if (result == TM_Updated && (flags & TUPLE_LOCK_FLAG_FIND_LAST_VERSION))
	{
		ReleaseBuffer(buf);
		if (!ItemPointerEquals(&tmfd->ctid, tid))
		{
			SnapshotData SnapshotDirty;
			TransactionId priorXmax;

			*tid = tmfd->ctid;
			priorXmax = tmfd->xmax;
			tmfd->traversed = true;
			InitDirtySnapshot(SnapshotDirty);
			for (;;)
			{
				HeapTupleData tup;
				HeapTupleHeaderData scratch;

				if (ItemPointerIndicatesMovedPartitions(tid))
					ereport(ERROR,
							(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
							 errmsg("tuple to be locked was already moved to another partition due to concurrent update")));

				if (qs_fetch(rel, L, tid, &SnapshotDirty, &tup, &scratch, &buf))
				{
					if (!TransactionIdEquals(HeapTupleHeaderGetXmin(tup.t_data), priorXmax))
					{
						ReleaseBuffer(buf);
						return TM_Deleted;
					}
					if (TransactionIdIsValid(SnapshotDirty.xmin))
						ereport(ERROR,
								(errcode(ERRCODE_DATA_CORRUPTED),
								 errmsg_internal("t_xmin %u is uncommitted in tuple (%u,%u) to be updated in table \"%s\"",
												 SnapshotDirty.xmin,
												 ItemPointerGetBlockNumber(&tup.t_self),
												 ItemPointerGetOffsetNumber(&tup.t_self),
												 RelationGetRelationName(rel))));
					if (TransactionIdIsValid(SnapshotDirty.xmax))
					{
						ReleaseBuffer(buf);
						switch (wait_policy)
						{
							case LockWaitBlock:
								XactLockTableWait(SnapshotDirty.xmax, rel,
												  &tup.t_self, XLTW_FetchUpdated);
								break;
							case LockWaitSkip:
								if (!qs_ConditionalXactLockTableWait(SnapshotDirty.xmax))
									return TM_WouldBlock;
								break;
							case LockWaitError:
								if (!qs_ConditionalXactLockTableWait(SnapshotDirty.xmax))
									ereport(ERROR,
											(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
											 errmsg("could not obtain lock on row in relation \"%s\"",
													RelationGetRelationName(rel))));
								break;
						}
						continue;
					}
					if (TransactionIdIsCurrentTransactionId(priorXmax) &&
						HeapTupleHeaderGetCmin(tup.t_data) >= cid)
					{
						tmfd->xmax = priorXmax;
						tmfd->cmax = HeapTupleHeaderGetCmin(tup.t_data);
						ReleaseBuffer(buf);
						return TM_SelfModified;
					}
					ReleaseBuffer(buf);
					goto retry;
				}
				if (tup.t_data == NULL)
				{
					if (BufferIsValid(buf))
						ReleaseBuffer(buf);
					return TM_Deleted;
				}
				if (!TransactionIdEquals(HeapTupleHeaderGetXmin(tup.t_data), priorXmax))
				{
					ReleaseBuffer(buf);
					return TM_Deleted;
				}
				if (ItemPointerEquals(&tup.t_self, &tup.t_data->t_ctid))
				{
					ReleaseBuffer(buf);
					return TM_Deleted;
				}
				*tid = tup.t_data->t_ctid;
				priorXmax = HeapTupleHeaderGetUpdateXid(tup.t_data);
				ReleaseBuffer(buf);
			}
		}
		else
			return TM_Deleted;
	}

	/* as heap: the record goes into the slot whatever the result */
	L->store_record(rel, buf, BufferGetPage(buf),
					ItemPointerGetOffsetNumber(tid), slot, NULL);
	slot->tts_tableOid = RelationGetRelid(rel);
	ReleaseBuffer(buf);
	return result;
}
