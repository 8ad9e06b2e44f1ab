/*-------------------------------------------------------------------------
 *
 * dml.c
 *	  Engine writes: insert, multi-insert, speculative insert, delete,
 *	  update, row locks.
 *
 * Every page change goes through generic WAL (qs_genxlog_start/register/
 * finish, src/wal/genxlog.c: core's records with a faster delta): crash
 * recovery and standbys replay it without a resource manager of ours.  A change that clears PD_ALL_VISIBLE first clears the
 * page's visibility map bits (qs_vm_clear, vm.c: our XLOG_QS_VM_CLEAR
 * record, before the generic one).  MVCC decisions are heap's own (HeapTupleSatisfiesUpdate
 * and friends) on the header the layout presents; the header fields are set
 * exactly as heap_insert/heap_delete/heap_update/heap_lock_tuple set them.
 *
 * Row locks.  tuple_lock, update and delete make heap's decisions, in
 * heap's order, ported from heapam.c (heap_lock_tuple, heap_update,
 * heap_delete, compute_new_xmax_infomask, heap_lock_updated_tuple_rec;
 * see PostgreSQL's README.tuplock): the four strengths and their conflict
 * table, multixacts for compatible lockers, a KEY SHARE locker beside an
 * in-progress non-key update locking the newer versions too, a non-key
 * update carrying KEY SHARE lockers into the new version's xmax, the
 * heavyweight tuple lock at heap's level per strength to queue waiters,
 * NOWAIT / SKIP LOCKED, and the same TM_* results.  The only departures:
 * records are read and written through the layout (a header may be a copy,
 * presented again after every buffer relock), every change is one generic
 * WAL record, and an update that moves to another page re-reads the xmax
 * before writing it (lockers that joined while the buffer was unlocked are
 * kept; heap writes the xmax computed before).
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
#include "utils/memutils.h"
#include "utils/relcache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "column/colam.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "merge/moved.h"
#include "merge/stubs.h"
#include "wal/qsxlog.h"
#include "wal/genxlog.h"

/* ------------------------------------------------------------------------
 * Choosing a page
 * ------------------------------------------------------------------------
 */

/*
 * The largest record the relation's own layout takes (max_record_size of
 * its descriptor), cached in rd_amcache: HPL computes it by formatting a
 * page.  Every relcache invalidation (ALTER TABLE) frees the cache.
 */
static Size
qs_layout_max_record(Relation rel, const QsPageLayout *L)
{
	if (rel->rd_amcache == NULL)
	{
		Size	   *m = MemoryContextAlloc(CacheMemoryContext, sizeof(Size));

		*m = L->max_record_size(RelationGetDescr(rel));
		rel->rd_amcache = m;
	}
	return *(Size *) rel->rd_amcache;
}

/*
 * The layout a record is stored in: the relation's, or NSM for a record the
 * relation's layout cannot take (layout.h, qs_page_layout).
 */
static const QsPageLayout *
qs_record_layout(Relation rel, const QsPageLayout *L, HeapTuple tup)
{
	if (L->page_magic != 0 &&
		MAXALIGN(tup->t_len) > qs_layout_max_record(rel, L))
		return &qs_nsm_layout;
	return L;
}

/*
 * Would 'tup', to be stored in layout RL, fit 'page' (of a relation of
 * layout L) leaving 'reserve' bytes?  Only a page in RL's format takes it.
 */
static bool
qs_record_fits(const QsPageLayout *L, const QsPageLayout *RL, Page page,
			   TupleDesc desc, HeapTuple tup, Size reserve)
{
	return qs_page_layout(L, page) == RL &&
		RL->record_fits(page, desc, tup, reserve);
}

/*
 * Would the new version of an update fit the old version's page?  'hot':
 * it would be a heap-only version there (no indexed column changed, the
 * table's own layout): it is asked as one (HEAP_ONLY_TUPLE set), since a
 * layout may give a heap-only record a slot it gives no other (layout.h,
 * heaponly_takes_dead).  Leaves the flag set exactly when the answer is
 * yes and 'hot', as put_record on that page must see it.
 *
 * 'oldheaponly': the old version is heap-only, so its chain holds two
 * slots or more (a REDIRECT root and the version).  On a page pruning left
 * short of slots (PD_PAGE_FULL, and the layout's slots_short still true)
 * the answer is no: the new version goes to another page, and the chain's
 * slots become free for the chains that stay (layout.h, slots_short).
 */
static bool
fits_same_page(const QsPageLayout *L, const QsPageLayout *RL, Page page,
			   TupleDesc desc, HeapTuple tup, bool hot, bool oldheaponly)
{
	bool		fits;

	if (hot && oldheaponly && PageIsFull(page))
	{
		const QsPageLayout *PL = qs_page_layout(L, page);

		if (PL->slots_short != NULL && PL->slots_short(page))
			return false;
	}
	if (hot)
		HeapTupleHeaderSetHeapOnly(tup->t_data);
	fits = qs_record_fits(L, RL, page, desc, tup, 0);
	if (!fits)
		HeapTupleHeaderClearHeapOnly(tup->t_data);
	return fits;
}

/*
 * Must the page be formatted before a record of layout RL goes on it: new,
 * or empty in the other format (an NSM page of a PAX table whose big
 * record VACUUM removed)?
 */
static bool
qs_page_needs_format(const QsPageLayout *L, const QsPageLayout *RL, Page page)
{
	return PageIsNew(page) ||
		(qs_page_layout(L, page) != RL && !qs_page_has_records(L, page));
}

/*
 * qs_get_buffer
 *		A buffer, exclusively locked, whose page fits 'tup', never block
 *		'exclude'.  *RL gets the layout the record is stored in.  *isnew:
 *		the caller formats the page for *RL inside its WAL section (a new,
 *		all-zero page, or an empty page of the other format).
 */
static Buffer
qs_get_buffer(Relation rel, const QsPageLayout *L, HeapTuple tup,
			  BufferAccessStrategy strategy, BlockNumber exclude, bool use_fsm,
			  const QsPageLayout **RL, bool *isnew)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Size		reserve = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	Size		need;
	Size		nearly_empty;
	BlockNumber target = InvalidBlockNumber;
	Buffer		buf;
	const QsPageLayout *R = qs_record_layout(rel, L, tup);
	Size		maxsize = R == L ? qs_layout_max_record(rel, L) :
		R->max_record_size(desc);

	*RL = R;
	if (MAXALIGN(tup->t_len) > maxsize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						(size_t) tup->t_len, maxsize)));
	/*
	 * A record too big for the fillfactor goes on a nearly empty page, as
	 * heap's RelationGetBufferForTuple sends it (a page "nearly empty" when
	 * what it lacks is a few line pointers' worth); the FSM request never
	 * exceeds what a page can hold.
	 */
	nearly_empty = maxsize - (MaxHeapTuplesPerPage / 8 * sizeof(ItemIdData));
	if (MAXALIGN(tup->t_len) + reserve > nearly_empty)
		reserve = nearly_empty > MAXALIGN(tup->t_len) ?
			nearly_empty - MAXALIGN(tup->t_len) : 0;
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
		if (qs_page_needs_format(L, R, page))
		{
			*isnew = true;
			RelationSetTargetBlock(rel, target);
			return buf;
		}
		if (qs_record_fits(L, R, page, desc, tup, reserve))
		{
			RelationSetTargetBlock(rel, target);
			return buf;
		}
		/* a layout that can make room by moving record bytes (PAX) */
		if (R->can_make_room && qs_page_layout(L, page) == R &&
			R->can_make_room(page, desc, tup, reserve))
		{
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			if (ConditionalLockBufferForCleanup(buf))
			{
				page = BufferGetPage(buf);
				if (!PageIsNew(page) && qs_page_layout(L, page) == R &&
					R->can_make_room(page, desc, tup, reserve))
				{
					START_CRIT_SECTION();
					R->make_room(page, desc, tup);
					MarkBufferDirty(buf);
					qs_log_cleanup(rel, buf, InvalidTransactionId);
					END_CRIT_SECTION();
				}
				if (PageIsNew(page) ||
					qs_record_fits(L, R, page, desc, tup, reserve))
				{
					*isnew = PageIsNew(page);
					RelationSetTargetBlock(rel, target);
					return buf;
				}
			}
			else
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			page = BufferGetPage(buf);
		}
		freespace = qs_page_free_space(L, page);
		/*
		 * The record did not fit: never send the FSM back to this page for
		 * this request (a layout may refuse a record for its shape, not its
		 * size: a page formatted before ADD COLUMN; PAX's split areas; a
		 * page of the other format).
		 */
		if (freespace >= need)
			freespace = need > 0 ? need - 1 : 0;
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
	tup->t_data->t_infomask2 &= ~(HEAP2_XACT_MASK | QS_INFOMASK2_BITS);
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
	qs_place_tuple_ctid(rel, L, tup, strategy, use_fsm, NULL);
}

/*
 * qs_place_tuple with the record's t_ctid set to 'ctid' instead of its own
 * TID (NULL: its own), in the same WAL record: CLUSTER / VACUUM FULL link a
 * recently dead version to its successor's new TID, as heap's rewrite does.
 * The new TID is in tup->t_self.
 */
void
qs_place_tuple_ctid(Relation rel, const QsPageLayout *L, HeapTuple tup,
					BufferAccessStrategy strategy, bool use_fsm,
					const ItemPointerData *ctid)
{
	Buffer		buf;
	bool		isnew;
	const QsPageLayout *RL;
	QsGenXLogState *state;
	Page		page;
	OffsetNumber off;
	BlockNumber blkno;

	buf = qs_get_buffer(rel, L, tup, strategy, InvalidBlockNumber, use_fsm,
						&RL, &isnew);
	blkno = BufferGetBlockNumber(buf);

	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber); /* as heap_insert */

	state = qs_genxlog_start(rel);
	page = qs_genxlog_register(state, buf, isnew ? GENERIC_XLOG_FULL_IMAGE : 0);
	if (isnew)
		RL->init_page(page, BufferGetPageSize(buf), RelationGetDescr(rel));
	PageClearAllVisible(page);	/* the new record is not visible to all */
	off = RL->put_record(page, RelationGetDescr(rel), blkno, tup);
	if (off == InvalidOffsetNumber)
	{
		qs_genxlog_abort(state);
		UnlockReleaseBuffer(buf);
		elog(ERROR, "failed to add a record of %u bytes to block %u of \"%s\"",
			 tup->t_len, blkno, RelationGetRelationName(rel));
	}
	if (ctid != NULL)
	{
		HeapTupleHeaderData scratch;
		HeapTupleHeader hdr;
		uint32		len;

		hdr = qs_page_get_header(RL, page, off, &scratch, &len);
		hdr->t_ctid = *ctid;
		qs_page_set_header(RL, page, off, hdr);
		tup->t_data->t_ctid = *ctid;
	}
	qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
	qs_genxlog_finish(state);
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
	if (qs_logical_wanted(rel) && !(options & HEAP_INSERT_NO_LOGICAL))
		qs_log_logical_insert(rel, heaptup,
							  (options & HEAP_INSERT_SPECULATIVE) != 0);

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
	bool		logical = qs_logical_wanted(rel) &&
		!(options & HEAP_INSERT_NO_LOGICAL);
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
		int			first = i;
		bool		isnew;
		const QsPageLayout *RL;
		Buffer		buf = qs_get_buffer(rel, L, tups[i], strategy,
										InvalidBlockNumber, use_fsm, &RL, &isnew);
		BlockNumber blkno = BufferGetBlockNumber(buf);
		QsGenXLogState *state = qs_genxlog_start(rel);
		Page		page = qs_genxlog_register(state, buf,
													 isnew ? GENERIC_XLOG_FULL_IMAGE : 0);

		if (isnew)
			RL->init_page(page, BufferGetPageSize(buf), RelationGetDescr(rel));
		PageClearAllVisible(page);	/* new records are not visible to all */
		do
		{
			if (RL->put_record(page, RelationGetDescr(rel), blkno, tups[i]) == InvalidOffsetNumber)
			{
				qs_genxlog_abort(state);
				UnlockReleaseBuffer(buf);
				elog(ERROR, "failed to add a record of %u bytes to block %u of \"%s\"",
					 tups[i]->t_len, blkno, RelationGetRelationName(rel));
			}
			slots[i]->tts_tid = tups[i]->t_self;
			i++;
		} while (i < ntuples &&
				 qs_record_fits(L, qs_record_layout(rel, L, tups[i]), page,
								RelationGetDescr(rel), tups[i], reserve));
		qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
		qs_genxlog_finish(state);
		UnlockReleaseBuffer(buf);
		/* one logical record per page, as heap_multi_insert's records */
		if (logical)
			qs_log_logical_multi_insert(rel, &tups[first], i - first,
										i == ntuples);
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
	QsGenXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	HeapTupleHeaderData scratch;
	HeapTuple	oldcopy = NULL;
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);

	buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (qs_page_record_state(L, BufferGetPage(buf), off) != QS_REC_NORMAL)
		elog(ERROR, "speculatively inserted record (%u,%u) of \"%s\" is gone",
			 ItemPointerGetBlockNumber(tid), off, RelationGetRelationName(rel));

	if (!succeeded)
	{
		hdr = qs_page_get_header(L, BufferGetPage(buf), off, &scratch, NULL);
		if (HeapTupleHeaderHasExternal(hdr))
			oldcopy = qs_page_copy_record(L, rel, BufferGetPage(buf),
									 ItemPointerGetBlockNumber(tid), off);
	}

	state = qs_genxlog_start(rel);
	page = qs_genxlog_register(state, buf, 0);
	hdr = qs_page_get_header(L, page, off, &scratch, NULL);
	if (!HeapTupleHeaderIsSpeculative(hdr))
	{
		qs_genxlog_abort(state);
		UnlockReleaseBuffer(buf);
		elog(ERROR, "record (%u,%u) of \"%s\" is not a speculative insertion",
			 ItemPointerGetBlockNumber(tid), off, RelationGetRelationName(rel));
	}
	if (succeeded)
		hdr->t_ctid = *tid;
	else
	{
		hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
		hdr->t_infomask2 &= ~(HEAP_KEYS_UPDATED | QS_INFOMASK2_BITS);
		hdr->t_infomask |= HEAP_XMAX_INVALID;
		HeapTupleHeaderSetXmin(hdr, InvalidTransactionId);
		hdr->t_ctid = *tid;
		PageSetPrunable(page, RecentXmin);
	}
	/* a speculative record never was visible to all; stay conservative */
	PageClearAllVisible(page);
	qs_page_set_header(L, page, off, hdr);
	qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
	qs_genxlog_finish(state);
	UnlockReleaseBuffer(buf);

	/* before the TOAST chunks go, as heap_abort_speculative orders it */
	if (qs_logical_wanted(rel))
		qs_log_logical_spec(rel, succeeded);

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

	tp->t_data = qs_page_get_header(L, BufferGetPage(buf), off, scratch, &len);
	tp->t_len = len;
	/* a column table's delete-map page holds the headers of a virtual page */
	ItemPointerSet(&tp->t_self, qs_buffer_tid_block(buf), off);
	tp->t_tableOid = RelationGetRelid(rel);
}

static void
qs_sync_header(const QsPageLayout *L, Buffer buf, OffsetNumber off,
			   HeapTuple tp, HeapTupleHeaderData *scratch)
{
	if (tp->t_data == scratch)
		qs_page_set_header(L, BufferGetPage(buf), off, scratch);
}

/* ------------------------------------------------------------------------
 * Lock modes and multixacts, as heapam.c has them
 * ------------------------------------------------------------------------
 */

/*
 * For each tuple lock strength: the heavyweight lock a waiter queues with,
 * and the multixact statuses of a locker and of an updater (heapam.c's
 * tupleLockExtraInfo).  Using heap's lock levels keeps who-waits-for-whom
 * (and so deadlock reports and isolation test outputs) identical to heap's.
 */
static const struct
{
	LOCKMODE	hwlock;
	int			lockstatus;
	int			updstatus;
}			qs_tuplock_info[MaxLockTupleMode + 1] =
{
	/* LockTupleKeyShare */
	{AccessShareLock, MultiXactStatusForKeyShare, -1},
	/* LockTupleShare */
	{RowShareLock, MultiXactStatusForShare, -1},
	/* LockTupleNoKeyExclusive */
	{ExclusiveLock, MultiXactStatusForNoKeyUpdate, MultiXactStatusNoKeyUpdate},
	/* LockTupleExclusive */
	{AccessExclusiveLock, MultiXactStatusForUpdate, MultiXactStatusUpdate}
};

/* the tuple lock strength of each MultiXactStatus */
static const int qs_mxstatus_lock[MaxMultiXactStatus + 1] =
{
	LockTupleKeyShare,			/* ForKeyShare */
	LockTupleShare,				/* ForShare */
	LockTupleNoKeyExclusive,	/* ForNoKeyUpdate */
	LockTupleExclusive,			/* ForUpdate */
	LockTupleNoKeyExclusive,	/* NoKeyUpdate */
	LockTupleExclusive			/* Update */
};

#define QS_TUPLOCK_FROM_MXSTATUS(status) \
	((LockTupleMode) qs_mxstatus_lock[(status)])
#define QS_LOCKMODE_FROM_MXSTATUS(status) \
	(qs_tuplock_info[QS_TUPLOCK_FROM_MXSTATUS(status)].hwlock)
#define qs_unlock_tuplock(rel, tid, mode) \
	UnlockTuple((rel), (tid), qs_tuplock_info[(mode)].hwlock)

static MultiXactStatus
qs_mxact_status_for_lock(LockTupleMode mode, bool is_update)
{
	int			retval;

	if (is_update)
		retval = qs_tuplock_info[mode].updstatus;
	else
		retval = qs_tuplock_info[mode].lockstatus;
	if (retval == -1)
		elog(ERROR, "invalid lock tuple mode %d/%s", mode,
			 is_update ? "true" : "false");
	return (MultiXactStatus) retval;
}

/*
 * Queue for the tuple with its heavyweight lock (heap_acquire_tuplock).
 * False only for LockWaitSkip when the lock is not free; ERROR for
 * LockWaitError.
 */
static bool
qs_acquire_tuplock(Relation rel, ItemPointer tid, LockTupleMode mode,
				   LockWaitPolicy wait_policy, bool *have_tuple_lock)
{
	LOCKMODE	hwlock = qs_tuplock_info[mode].hwlock;

	if (*have_tuple_lock)
		return true;
	switch (wait_policy)
	{
		case LockWaitBlock:
			LockTuple(rel, tid, hwlock);
			break;
		case LockWaitSkip:
			if (!qs_ConditionalLockTuple(rel, tid, hwlock))
				return false;
			break;
		case LockWaitError:
			if (!qs_ConditionalLockTuple(rel, tid, hwlock))
				ereport(ERROR,
						(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
						 errmsg("could not obtain lock on row in relation \"%s\"",
								RelationGetRelationName(rel))));
			break;
	}
	*have_tuple_lock = true;
	return true;
}

/*
 * Did the xmax state change while the buffer was unlocked?  (The xmax
 * itself is compared separately.)
 */
static inline bool
qs_xmax_infomask_changed(uint16 new_infomask, uint16 old_infomask)
{
	const uint16 interesting =
		HEAP_XMAX_IS_MULTI | HEAP_XMAX_LOCK_ONLY | HEAP_LOCK_MASK;

	return (new_infomask & interesting) != (old_infomask & interesting);
}

/* the updater of a multixact xmax that is not lock-only, or invalid */
static TransactionId
qs_multi_update_xid(MultiXactId multi)
{
	TransactionId update_xact = InvalidTransactionId;
	MultiXactMember *members;
	int			n = GetMultiXactIdMembers(multi, &members, false, false);

	for (int i = 0; i < n; i++)
	{
		if (ISUPDATE_from_mxstatus(members[i].status))
		{
			update_xact = members[i].xid;
			break;
		}
	}
	if (n > 0)
		pfree(members);
	return update_xact;
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
		LockTupleMode m = QS_TUPLOCK_FROM_MXSTATUS(members[i].status);

		if (members[i].status == MultiXactStatusForUpdate ||
			members[i].status == MultiXactStatusUpdate)
			bits2 |= HEAP_KEYS_UPDATED;
		if (ISUPDATE_from_mxstatus(members[i].status))
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
 * Does a member of 'multi' other than our own transaction hold a lock or an
 * update that conflicts with 'lockmode'?  Sets *current_is_member when one
 * of our (sub)transactions is a member.  (heap's DoesMultiXactIdConflict)
 */
static bool
qs_multi_conflicts(MultiXactId multi, uint16 infomask, LockTupleMode lockmode,
				   bool *current_is_member)
{
	MultiXactMember *members;
	int			n;
	bool		result = false;
	LOCKMODE	wanted = qs_tuplock_info[lockmode].hwlock;

	if (HEAP_LOCKED_UPGRADED(infomask))
		return false;
	n = GetMultiXactIdMembers(multi, &members, false,
							  HEAP_XMAX_IS_LOCKED_ONLY(infomask));
	for (int i = 0; i < n; i++)
	{
		TransactionId memxid = members[i].xid;

		if (result && (current_is_member == NULL || *current_is_member))
			break;
		if (TransactionIdIsCurrentTransactionId(memxid))
		{
			if (current_is_member != NULL)
				*current_is_member = true;
			continue;
		}
		else if (result)
			continue;
		if (!DoLockModesConflict(QS_LOCKMODE_FROM_MXSTATUS(members[i].status),
								 wanted))
			continue;
		if (ISUPDATE_from_mxstatus(members[i].status))
		{
			/* an update that aborted does not conflict */
			if (TransactionIdDidAbort(memxid))
				continue;
		}
		else if (!TransactionIdIsInProgress(memxid))
			continue;			/* a finished locker holds nothing */
		result = true;
	}
	if (n > 0)
		pfree(members);
	return result;
}

/*
 * Wait for every member of 'multi' whose lock conflicts with 'status'
 * (heap's Do_MultiXactIdWait).  With 'nowait', false as soon as one would
 * have to be waited for.  *remaining counts the members left running (ours
 * and non-conflicting ones).
 */
static bool
qs_multi_wait(MultiXactId multi, MultiXactStatus status, uint16 infomask,
			  bool nowait, Relation rel, ItemPointer ctid, XLTW_Oper oper,
			  int *remaining)
{
	bool		result = true;
	MultiXactMember *members;
	int			n;
	int			remain = 0;

	/* a pg_upgrade'd share lock cannot be running */
	if (HEAP_LOCKED_UPGRADED(infomask))
		n = -1;
	else
		n = GetMultiXactIdMembers(multi, &members, false,
								  HEAP_XMAX_IS_LOCKED_ONLY(infomask));
	for (int i = 0; i < n; i++)
	{
		TransactionId memxid = members[i].xid;
		MultiXactStatus memstatus = members[i].status;

		if (TransactionIdIsCurrentTransactionId(memxid))
		{
			remain++;
			continue;
		}
		if (!DoLockModesConflict(QS_LOCKMODE_FROM_MXSTATUS(memstatus),
								 QS_LOCKMODE_FROM_MXSTATUS(status)))
		{
			if (remaining && TransactionIdIsInProgress(memxid))
				remain++;
			continue;
		}
		if (nowait)
		{
			result = qs_ConditionalXactLockTableWait(memxid);
			if (!result)
				break;
		}
		else
			XactLockTableWait(memxid, rel, ctid, oper);
	}
	if (n > 0)
		pfree(members);
	if (remaining)
		*remaining = remain;
	return result;
}

/*
 * The MultiXactStatus a single-xid xmax stands for, as heapam.c derives it
 * in compute_new_xmax_infomask and heap_lock_updated_tuple_rec; false for
 * LOCK_ONLY without a lock bit (a pg_upgrade'd share lock), which each
 * caller treats as heap does there.
 */
static bool
qs_xmax_status(uint16 infomask, uint16 infomask2, MultiXactStatus *status)
{
	if (!HEAP_XMAX_IS_LOCKED_ONLY(infomask))
		*status = (infomask2 & HEAP_KEYS_UPDATED) ?
			MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
	else if (HEAP_XMAX_IS_KEYSHR_LOCKED(infomask))
		*status = MultiXactStatusForKeyShare;
	else if (HEAP_XMAX_IS_SHR_LOCKED(infomask))
		*status = MultiXactStatusForShare;
	else if (HEAP_XMAX_IS_EXCL_LOCKED(infomask))
		*status = (infomask2 & HEAP_KEYS_UPDATED) ?
			MultiXactStatusForUpdate : MultiXactStatusForNoKeyUpdate;
	else
		return false;
	return true;
}

/*
 * qs_compute_new_xmax_infomask
 *		The xmax (and its infomask bits) to store when 'add_to_xmax' locks
 *		(or, with is_update, updates or deletes) a record whose xmax is
 *		'xmax' with 'old_infomask': heap's compute_new_xmax_infomask.  May
 *		create a multixact that keeps the lockers (and a committed updater)
 *		still there.
 */
static void
qs_compute_new_xmax_infomask(TransactionId xmax, uint16 old_infomask,
							 uint16 old_infomask2, TransactionId add_to_xmax,
							 LockTupleMode mode, bool is_update,
							 TransactionId *result_xmax,
							 uint16 *result_infomask,
							 uint16 *result_infomask2)
{
	TransactionId new_xmax;
	uint16		new_infomask,
				new_infomask2;

l5:
	new_infomask = 0;
	new_infomask2 = 0;
	if (old_infomask & HEAP_XMAX_INVALID)
	{
		/* no previous locker: our own xid (this case must come first) */
		new_xmax = add_to_xmax;
		if (is_update)
		{
			if (mode == LockTupleExclusive)
				new_infomask2 |= HEAP_KEYS_UPDATED;
		}
		else
		{
			new_infomask |= HEAP_XMAX_LOCK_ONLY;
			switch (mode)
			{
				case LockTupleKeyShare:
					new_infomask |= HEAP_XMAX_KEYSHR_LOCK;
					break;
				case LockTupleShare:
					new_infomask |= HEAP_XMAX_SHR_LOCK;
					break;
				case LockTupleNoKeyExclusive:
					new_infomask |= HEAP_XMAX_EXCL_LOCK;
					break;
				case LockTupleExclusive:
					new_infomask |= HEAP_XMAX_EXCL_LOCK;
					new_infomask2 |= HEAP_KEYS_UPDATED;
					break;
			}
		}
	}
	else if (old_infomask & HEAP_XMAX_IS_MULTI)
	{
		MultiXactStatus new_status;

		if (HEAP_LOCKED_UPGRADED(old_infomask))
		{
			old_infomask &= ~HEAP_XMAX_IS_MULTI;
			old_infomask |= HEAP_XMAX_INVALID;
			goto l5;
		}

		/*
		 * All members gone: no multixact needed, unless it holds an update
		 * that committed.
		 */
		if (!MultiXactIdIsRunning(xmax, HEAP_XMAX_IS_LOCKED_ONLY(old_infomask)))
		{
			if (HEAP_XMAX_IS_LOCKED_ONLY(old_infomask) ||
				!TransactionIdDidCommit(qs_multi_update_xid(xmax)))
			{
				old_infomask &= ~HEAP_XMAX_IS_MULTI;
				old_infomask |= HEAP_XMAX_INVALID;
				goto l5;
			}
		}
		new_status = qs_mxact_status_for_lock(mode, is_update);
		new_xmax = MultiXactIdExpand((MultiXactId) xmax, add_to_xmax,
									 new_status);
		qs_multi_hint_bits(new_xmax, &new_infomask, &new_infomask2);
	}
	else if (old_infomask & HEAP_XMAX_COMMITTED)
	{
		/* a committed update: keep it as the updater */
		MultiXactStatus status;

		status = (old_infomask2 & HEAP_KEYS_UPDATED) ?
			MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
		new_xmax = MultiXactIdCreate(xmax, status, add_to_xmax,
									 qs_mxact_status_for_lock(mode, is_update));
		qs_multi_hint_bits(new_xmax, &new_infomask, &new_infomask2);
	}
	else if (TransactionIdIsInProgress(xmax))
	{
		/* a running locker or updater: a multixact of it and us */
		MultiXactStatus old_status;
		LockTupleMode old_mode;

		if (!qs_xmax_status(old_infomask, old_infomask2, &old_status))
		{
			/* LOCK_ONLY alone: a pg_upgrade'd page; not locked */
			elog(WARNING, "LOCK_ONLY found for Xid in progress %u", xmax);
			old_infomask |= HEAP_XMAX_INVALID;
			old_infomask &= ~HEAP_XMAX_LOCK_ONLY;
			goto l5;
		}

		old_mode = QS_TUPLOCK_FROM_MXSTATUS(old_status);

		/* the same xid locking again: keep only the stronger lock */
		if (xmax == add_to_xmax)
		{
			Assert(HEAP_XMAX_IS_LOCKED_ONLY(old_infomask));
			if (mode < old_mode)
				mode = old_mode;
			old_infomask |= HEAP_XMAX_INVALID;
			goto l5;
		}
		new_xmax = MultiXactIdCreate(xmax, old_status, add_to_xmax,
									 qs_mxact_status_for_lock(mode, is_update));
		qs_multi_hint_bits(new_xmax, &new_infomask, &new_infomask2);
	}
	else if (!HEAP_XMAX_IS_LOCKED_ONLY(old_infomask) &&
			 TransactionIdDidCommit(xmax))
	{
		/* a committed update, hint bit not set yet */
		MultiXactStatus status;

		status = (old_infomask2 & HEAP_KEYS_UPDATED) ?
			MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
		new_xmax = MultiXactIdCreate(xmax, status, add_to_xmax,
									 qs_mxact_status_for_lock(mode, is_update));
		qs_multi_hint_bits(new_xmax, &new_infomask, &new_infomask2);
	}
	else
	{
		/* the locker or updater ended meanwhile: as if there were none */
		old_infomask |= HEAP_XMAX_INVALID;
		goto l5;
	}

	*result_infomask = new_infomask;
	*result_infomask2 = new_infomask2;
	*result_xmax = new_xmax;
}

/* heap's UpdateXmaxHintBits, on the header 'tp' presents */
static void
qs_update_xmax_hint_bits(const QsPageLayout *L, Buffer buf, OffsetNumber off,
						 HeapTuple tp, HeapTupleHeaderData *scratch,
						 TransactionId xid)
{
	HeapTupleHeader h = tp->t_data;

	if (!(h->t_infomask & (HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID)))
	{
		if (!HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask) &&
			TransactionIdDidCommit(xid))
			HeapTupleSetHintBits(h, buf, HEAP_XMAX_COMMITTED, xid);
		else
			HeapTupleSetHintBits(h, buf, HEAP_XMAX_INVALID,
								 InvalidTransactionId);
		qs_sync_header(L, buf, off, tp, scratch);
	}
}

/*
 * Set a new xmax on record 'off' (one generic WAL record), as heap_lock_tuple
 * and heap_lock_updated_tuple_rec do: xmax bits replaced; when 'self' is
 * given and the new xmax only locks, the HOT-updated bit is cleared and
 * t_ctid points at the record itself.
 */
static void
qs_write_xmax(Relation rel, const QsPageLayout *L, Buffer buf,
			  OffsetNumber off, TransactionId xmax, uint16 infomask,
			  uint16 infomask2, ItemPointer self)
{
	QsGenXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	HeapTupleHeaderData scratch;

	state = qs_genxlog_start(rel);
	page = qs_genxlog_register(state, buf, 0);
	hdr = qs_page_get_header(L, page, off, &scratch, NULL);
	hdr->t_infomask &= ~HEAP_XMAX_BITS;
	hdr->t_infomask2 &= ~(HEAP_KEYS_UPDATED | QS_INFOMASK2_BITS);
	hdr->t_infomask |= infomask;
	hdr->t_infomask2 |= infomask2;
	if (self != NULL && HEAP_XMAX_IS_LOCKED_ONLY(infomask))
		HeapTupleHeaderClearHotUpdated(hdr);
	HeapTupleHeaderSetXmax(hdr, xmax);
	if (self != NULL && HEAP_XMAX_IS_LOCKED_ONLY(infomask))
		hdr->t_ctid = *self;
	/* every valid xmax clears the flag, a locker's too (no VM to say more) */
	PageClearAllVisible(page);
	qs_page_set_header(L, page, off, hdr);
	qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
	qs_genxlog_finish(state);
}

/* lock the buffer again and present the record's current header */
static void
qs_relock(const QsPageLayout *L, Relation rel, Buffer buf, OffsetNumber off,
		  HeapTuple tp, HeapTupleHeaderData *scratch)
{
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	qs_load_header(L, rel, buf, off, tp, scratch);
}

/* has the xmax changed since 'xwait'/'infomask' were read? */
static inline bool
qs_xmax_changed(HeapTuple tp, TransactionId xwait, uint16 infomask)
{
	return qs_xmax_infomask_changed(tp->t_data->t_infomask, infomask) ||
		!TransactionIdEquals(HeapTupleHeaderGetRawXmax(tp->t_data), xwait);
}

/*
 * Did the update change a column of index attribute set 'which' of the
 * record at 'off'?  With 'external', an unchanged column of the set that
 * the old record keeps out of line counts too.  Binary comparison, as
 * heap_update's HeapDetermineColumnsInfo.  INDEX_ATTR_BITMAP_KEY (heap's
 * "key" columns) decides UPDATE versus NO KEY UPDATE;
 * INDEX_ATTR_BITMAP_IDENTITY_KEY with 'external' whether logical decoding
 * needs the old key (src/wal/logical.c).
 */
static bool
qs_attrs_changed(Relation rel, const QsPageLayout *L, Page page,
				 OffsetNumber off, HeapTuple newtup,
				 IndexAttrBitmapKind which, bool external)
{
	Bitmapset  *attrs = RelationGetIndexAttrBitmap(rel, which);
	TupleDesc	desc = RelationGetDescr(rel);
	int			x = -1;
	bool		changed = false;
	HeapTuple	oldtup = NULL;

	/* a column table's main row: its values are in its block, not the page */
	if (!bms_is_empty(attrs) && qs_page_layout(L, page) == &qs_colpage_layout)
		oldtup = qs_page_copy_record(L, rel, page, InvalidBlockNumber, off);

	while (!changed && (x = bms_next_member(attrs, x)) >= 0)
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
		if (oldtup)
			oldv = heap_getattr(oldtup, attnum, desc, &oldnull);
		else
			qs_page_read_column(L, page, desc, attnum, &off, 1, &oldv, &oldnull);
		newv = heap_getattr(newtup, attnum, desc, &newnull);
		if (oldnull != newnull)
			changed = true;
		else if (!oldnull &&
				 !datumIsEqual(oldv, newv, att->attbyval, att->attlen))
			changed = true;
		else if (!oldnull && external && att->attlen == -1 &&
				 VARATT_IS_EXTERNAL(DatumGetPointer(oldv)))
			changed = true;
	}
	bms_free(attrs);
	if (oldtup)
		heap_freetuple(oldtup);
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
	Buffer		buf;

	/*
	 * A main row of a column table (a virtual TID): its header lives in the
	 * delete map, made for its virtual page now if it has none yet.
	 */
	if (qs_tid_is_virtual(tid))
		buf = qs_coldelmap_buffer(rel, tid, true);
	else
		buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	if (BufferIsValid(buf))
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (!BufferIsValid(buf) ||
		qs_page_record_state(L, BufferGetPage(buf), ItemPointerGetOffsetNumber(tid)) != QS_REC_NORMAL)
	{
		if (BufferIsValid(buf))
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
 * Delta versions a merge moved (include/merge/moved.h, src/merge/README.md)
 * ------------------------------------------------------------------------
 */

/*
 * The mark of a merge that has not committed: the row stays in the delta.
 * With the delta page 'buf' and the main copy's delete-map page 'mbuf'
 * exclusively locked, in one WAL record: the delta version loses its mark
 * (no xmax, t_ctid itself) and the main copy gets xmax = the merge, so that
 * it is dead whatever the merge's outcome (its xmin is the merge too).
 *
 * Returns true, changing nothing, when the merge aborted meanwhile and
 * VACUUM already took its copy.  Returns false, changing nothing, when the
 * main copy already has an xmax that did not abort: only the merge's own
 * transaction sees the copy while the merge runs, so that transaction
 * updated, deleted or locked the row
 * after its merge (quickstep.merge() and then DML in one transaction, or
 * quickstep.debug_force_merge).  Cancelling would overwrite that xmax and
 * bring the delta version back beside the transaction's new version (the
 * row twice once it commits) or drop its lock: the caller waits for the
 * merge's transaction instead, as heap waits for an updater.
 */
static bool
qs_cancel_move(Relation rel, const QsPageLayout *L, Buffer buf,
			   OffsetNumber off, Buffer mbuf, ItemPointer link,
			   TransactionId mover)
{
	QsGenXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	HeapTupleHeader e;
	HeapTupleHeaderData scratch;

	LockBuffer(mbuf, BUFFER_LOCK_EXCLUSIVE);
	state = qs_genxlog_start(rel);
	page = qs_genxlog_register(state, buf, 0);
	e = qs_coldelmap_entry(qs_genxlog_register(state, mbuf, 0),
						   ItemPointerGetOffsetNumber(link));

	/*
	 * The merge aborted since the caller saw it running, and VACUUM has
	 * already marked its copy dead or removed it: nothing to cancel (the
	 * mark is an aborted merge's, which heap's routines take as invalid).
	 * Not corruption (review helper-190 R2).
	 */
	if (e == NULL && !TransactionIdIsInProgress(mover) &&
		!TransactionIdDidCommit(mover))
	{
		qs_genxlog_abort(state);
		LockBuffer(mbuf, BUFFER_LOCK_UNLOCK);
		return true;
	}
	if (e == NULL || !TransactionIdEquals(HeapTupleHeaderGetRawXmin(e), mover))
	{
		qs_genxlog_abort(state);
		LockBuffer(mbuf, BUFFER_LOCK_UNLOCK);
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("main copy (%u,%u) of moved row (%u,%u) of \"%s\" is not the merge's",
						ItemPointerGetBlockNumber(link),
						ItemPointerGetOffsetNumber(link),
						BufferGetBlockNumber(buf), off,
						RelationGetRelationName(rel))));
	}
	if (!(e->t_infomask & HEAP_XMAX_INVALID) &&
		TransactionIdIsValid(HeapTupleHeaderGetRawXmax(e)) &&
		((e->t_infomask & HEAP_XMAX_IS_MULTI) ?
		 MultiXactIdIsRunning(HeapTupleHeaderGetRawXmax(e),
							  HEAP_XMAX_IS_LOCKED_ONLY(e->t_infomask)) :
		 !TransactionIdDidAbort(HeapTupleHeaderGetRawXmax(e))))
	{
		qs_genxlog_abort(state);
		LockBuffer(mbuf, BUFFER_LOCK_UNLOCK);
		return false;
	}
	hdr = qs_page_get_header(L, page, off, &scratch, NULL);
	hdr->t_infomask &= ~HEAP_XMAX_BITS;
	hdr->t_infomask |= HEAP_XMAX_INVALID;
	hdr->t_infomask2 &= ~(HEAP_KEYS_UPDATED | QS_INFOMASK2_BITS);
	HeapTupleHeaderSetXmax(hdr, InvalidTransactionId);
	ItemPointerSet(&hdr->t_ctid, BufferGetBlockNumber(buf), off);
	qs_page_set_header(L, page, off, hdr);

	/* cmax = cmin: dead for the merge's own later commands too */
	e->t_infomask &= ~HEAP_XMAX_BITS;
	e->t_infomask2 |= HEAP_KEYS_UPDATED;
	HeapTupleHeaderSetXmax(e, mover);
	qs_genxlog_finish(state);
	LockBuffer(mbuf, BUFFER_LOCK_UNLOCK);
	return true;
}

/*
 * qs_resolve_moved
 *		Before any heap decision on the record at 'off' of the exclusively
 *		locked delta page 'buf' (and again after every re-lock: a row whose
 *		lockers went away while we waited may have been moved meanwhile):
 *		is it a version a merge moved?  A running merge's mark is cancelled
 *		(the buffer is unlocked and locked again; *tp is reloaded), unless
 *		the merge's transaction has since changed or locked the row at its
 *		main copy: then we wait for that transaction as for an updater
 *		(NOWAIT: an error; SKIP LOCKED: QS_MOVED_WOULDBLOCK) and decide
 *		again.  An aborted merge's mark is left to heap's routines, which
 *		take the xmax as invalid.  Returns true, with *link and *mover set, when the
 *		merge committed (or is our own): the row now lives at *link, where
 *		the caller must continue.
 */
#define QS_MOVED_NONE		0	/* not moved (any more): heap's decisions */
#define QS_MOVED_FOLLOW		1	/* continue at *link */
#define QS_MOVED_WOULDBLOCK 2	/* NOWAIT / SKIP LOCKED met a committing merge */

static int
qs_resolve_moved(Relation rel, const QsPageLayout *L, Buffer buf,
				 OffsetNumber off, HeapTuple tp, HeapTupleHeaderData *scratch,
				 ItemPointer link, TransactionId *mover,
				 LockWaitPolicy policy, CommandId cid)
{
	for (;;)
	{
		HeapTupleHeader h = tp->t_data;
		TransactionId xmax;
		Buffer		mbuf;
		bool		own = false;
		bool		taken = false;

		if (!qs_header_moved(h))
			return QS_MOVED_NONE;
		xmax = HeapTupleHeaderGetRawXmax(h);
		*link = h->t_ctid;
		*mover = xmax;
		if (TransactionIdIsCurrentTransactionId(xmax))
		{
			/*
			 * Our own merge: from an earlier command, the main copy is the
			 * row for us.  From this very command (quickstep.merge() called
			 * by the statement that now changes the row) the command still
			 * sees the delta version and not the copy: that move is undone.
			 */
			if (HeapTupleHeaderGetCmax(h) < cid)
				return QS_MOVED_FOLLOW;
			own = true;
		}
		/* heap's order: the commit log says committed before the procarray lets go */
		else if (!TransactionIdIsInProgress(xmax))
			return TransactionIdDidCommit(xmax) ? QS_MOVED_FOLLOW : QS_MOVED_NONE;

		/*
		 * The merge is running: cancel this row's move.  The main copy's
		 * delete-map page is made first, with no buffer locked (delmap.c's
		 * rule), and the merge's commit is held off while we cancel (its
		 * pre-commit takes the interlock exclusively and keeps it until its
		 * commit is visible): a cancel that lands after the commit would
		 * change a row some snapshot already counted at its main copy.
		 */
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		mbuf = qs_coldelmap_buffer(rel, link, true);

		/*
		 * The merge aborted since the test above, and its version is no
		 * longer in our view of the directory: not corruption, decide
		 * again (review helper-192, as in qs_cancel_move).
		 */
		if (!BufferIsValid(mbuf) && !own &&
			!TransactionIdIsInProgress(xmax) && !TransactionIdDidCommit(xmax))
		{
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			qs_load_header(L, rel, buf, off, tp, scratch);
			continue;
		}
		if (!BufferIsValid(mbuf))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("moved row (%u,%u) of \"%s\" links to (%u,%u), which is in no block",
							BufferGetBlockNumber(buf), off,
							RelationGetRelationName(rel),
							ItemPointerGetBlockNumber(link),
							ItemPointerGetOffsetNumber(link))));
		if (own)
			;					/* our commit cannot race with us */
		else if (policy == LockWaitBlock)
			qs_merge_interlock(rel, true);
		else if (!qs_merge_interlock_try_wait(rel))
		{
			/* the merge still commits after the bound: as a row lock held */
			ReleaseBuffer(mbuf);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			qs_load_header(L, rel, buf, off, tp, scratch);
			if (policy == LockWaitSkip)
				return QS_MOVED_WOULDBLOCK;
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			ereport(ERROR,
					(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
					 errmsg("could not obtain lock on row in relation \"%s\"",
							RelationGetRelationName(rel))));
		}
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		qs_load_header(L, rel, buf, off, tp, scratch);
		h = tp->t_data;
		if (qs_header_moved(h) &&
			TransactionIdEquals(HeapTupleHeaderGetRawXmax(h), xmax) &&
			ItemPointerEquals(&h->t_ctid, link) &&
			(own || TransactionIdIsInProgress(xmax)) &&
			!qs_cancel_move(rel, L, buf, off, mbuf, link, xmax))
			taken = true;
		else
			qs_load_header(L, rel, buf, off, tp, scratch);
		if (!own)
			qs_merge_interlock(rel, false);
		ReleaseBuffer(mbuf);
		if (!taken)
			continue;

		/*
		 * The merge's transaction changed or locked the row at its main
		 * copy (qs_cancel_move): wait for it as heap waits for an updater.
		 * Committed, the row lives at the link, where the caller meets that
		 * change; aborted, the mark is ignored.  Our own merge of this
		 * command, whose copy a later command of ours changed (a volatile
		 * function that merged and updated): heap's routines see the delta
		 * version deleted by a later command of ours, as heap would see
		 * the row updated by it (TM_SelfModified).
		 */
		if (own)
			return QS_MOVED_NONE;
		if (policy == LockWaitSkip)
			return QS_MOVED_WOULDBLOCK;
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (policy == LockWaitError)
		{
			if (!qs_ConditionalXactLockTableWait(xmax))
				ereport(ERROR,
						(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
						 errmsg("could not obtain lock on row in relation \"%s\"",
								RelationGetRelationName(rel))));
		}
		else
		{
			ItemPointerData self;

			ItemPointerSet(&self, BufferGetBlockNumber(buf), off);
			XactLockTableWait(xmax, rel, &self, XLTW_Lock);
		}
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		qs_load_header(L, rel, buf, off, tp, scratch);
	}
}

/*
 * heap's CheckForSerializableConflictIn for a write of record 'tid' on page
 * 'blk'.  A main row a merge moved also checks the SIREAD locks of its
 * delta version, 'origin' (invalid: none), which a reader that read the row
 * before the merge holds (src/merge/README.md section 2, SERIALIZABLE).
 */
static inline void
qs_ssi_check_write(Relation rel, ItemPointer tid, BlockNumber blk,
				   ItemPointer origin)
{
	CheckForSerializableConflictIn(rel, tid, blk);
	if (ItemPointerIsValid(origin))
		CheckForSerializableConflictIn(rel, origin,
									   ItemPointerGetBlockNumber(origin));
}

/*
 * The delta TID a merge moved main row 'tid' from, into *origin: invalid
 * when it has none, when its moved version is gone (then no SIREAD lock
 * there is a reader's of this row: src/merge/stubs.c), or for a write that
 * checks no serializable conflict.  *cand gets the origin TID whether or
 * not its stub is there (invalid when the write checks none): a writer
 * that waits for the row's lock decides again after the wait
 * (qs_ssi_origin_again).  Read before the row's page is locked: it reads
 * directory, block and delta pages.
 */
static void
qs_ssi_origin(Relation rel, ItemPointer tid, ItemPointer origin,
			  ItemPointer cand)
{
	ItemPointerSetInvalid(origin);
	ItemPointerSetInvalid(cand);
	/* as SerializationNeededForWrite: temporary tables take no lock */
	if (IsolationIsSerializable() && qs_tid_is_virtual(tid) &&
		!RelationUsesLocalBuffers(rel) &&
		qs_col_origin_tid(rel, tid, cand))
	{
		if (qs_stub_is_origin(rel, cand, tid))
			*origin = *cand;
	}
	else
		ItemPointerSetInvalid(cand);
}

/*
 * After a wait for the lock of main row 'tid' (buf, its delete-map page,
 * exclusively locked; *tp its header): is the stub still at the origin
 * 'cand'?  It may have gone during the wait (src/merge/stubs.c: once every
 * snapshot sees the merge and no reader's SIREAD lock names it) and a new
 * row taken its TID, whose readers' locks are no conflict with a write of
 * this row (a false serialization failure if checked).  Deciding after the
 * wait misses none: a stub found gone had no reader lock left, and none
 * can come (no snapshot reads a dead stub).  The stub's page is read with
 * 'buf' unlocked (no buffer is locked while it is read: it may be any page
 * by now, a delete map's included), so a writer may change the row
 * meanwhile: returns false when its xmax
 * changed, and the caller decides about the row again (heap's retry after
 * a wait); *origin is set either way.
 */
static bool
qs_ssi_origin_again(Relation rel, const QsPageLayout *L, Buffer buf,
					OffsetNumber off, ItemPointer tid, ItemPointer cand,
					ItemPointer origin, HeapTuple tp,
					HeapTupleHeaderData *scratch)
{
	TransactionId xmax = HeapTupleHeaderGetRawXmax(tp->t_data);
	uint16		infomask = tp->t_data->t_infomask;

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (qs_stub_is_origin(rel, cand, tid))
		*origin = *cand;
	else
		ItemPointerSetInvalid(origin);
	qs_relock(L, rel, buf, off, tp, scratch);
	return !qs_xmax_changed(tp, xmax, infomask);
}

/*
 * qs_mark_taken
 *		After a change through the link by a transaction whose snapshot
 *		does not see the merge 'mover': the delta version at 'tid' is
 *		deleted for that transaction's later commands (QS_INFOMASK2_TAKEN).
 */
void
qs_mark_taken(Relation rel, ItemPointer tid, ItemPointer link,
			  TransactionId mover, CommandId cid)
{
	const QsPageLayout *L = qs_layout_of(rel);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Buffer		buf;
	HeapTupleData tp;
	HeapTupleHeaderData scratch;

	buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (qs_page_record_state(L, BufferGetPage(buf), off) == QS_REC_NORMAL)
	{
		qs_load_header(L, rel, buf, off, &tp, &scratch);
		if (qs_header_moved(tp.t_data) &&
			TransactionIdEquals(HeapTupleHeaderGetRawXmax(tp.t_data), mover) &&
			ItemPointerEquals(&tp.t_data->t_ctid, link))
		{
			TransactionId taker = GetCurrentTransactionId();
			QsGenXLogState *state;
			Page		page;
			HeapTupleHeader hdr;

			/* t_field3 is free: M is not ours (col_after_link) */
			Assert(!TransactionIdIsCurrentTransactionId(mover));

			/*
			 * The command first: a mark of ours with no command id listed
			 * would be an internal error to our later reads.  The raw xmin
			 * stays the inserter's (moved.h), so no snapshot but ours
			 * judges the version differently: no recovery conflict.
			 */
			qs_taken_note(rel, tid, cid);
			state = qs_genxlog_start(rel);
			page = qs_genxlog_register(state, buf, 0);
			hdr = qs_page_get_header(L, page, off, &scratch, NULL);

			QsTakenSetTaker(hdr, taker);
			hdr->t_infomask2 |= QS_INFOMASK2_TAKEN;
			qs_page_set_header(L, page, off, hdr);
			qs_genxlog_finish(state);
		}
	}
	UnlockReleaseBuffer(buf);
}

/* ------------------------------------------------------------------------
 * Delete
 * ------------------------------------------------------------------------
 */

/*
 * qs_delete_wait
 *		heap_delete's decision: with 'buf' exclusively locked, may the record
 *		at 'off' be deleted by us?  Waits (when 'wait') for every other
 *		transaction that locks or changes it, as heap does; a delete
 *		conflicts with every lock.  Returns with the buffer locked again and
 *		'tp' presenting the current header.
 */
static TM_Result
qs_delete_wait(Relation rel, const QsPageLayout *L, Buffer buf,
			   OffsetNumber off, CommandId cid, bool wait,
			   bool *have_tuple_lock, HeapTuple tp,
			   HeapTupleHeaderData *scratch, ItemPointer link,
			   TransactionId *mover, bool *slept)
{
	TM_Result	result;

	qs_load_header(L, rel, buf, off, tp, scratch);
l1:
	if (qs_resolve_moved(rel, L, buf, off, tp, scratch, link, mover,
						 LockWaitBlock, cid) == QS_MOVED_FOLLOW)
		return QS_TM_MOVED;
	result = HeapTupleSatisfiesUpdate(tp, cid, buf);
	qs_sync_header(L, buf, off, tp, scratch);
	if (result == TM_BeingModified && wait)
	{
		TransactionId xwait = HeapTupleHeaderGetRawXmax(tp->t_data);
		uint16		infomask = tp->t_data->t_infomask;

		/*
		 * Sleep until the other transaction(s) end, except when the only
		 * locker is our own transaction.  Queue on the tuple lock first so
		 * that we are next in line; keep it if we have to start over.
		 */
		if (infomask & HEAP_XMAX_IS_MULTI)
		{
			bool		current_is_member = false;

			if (qs_multi_conflicts((MultiXactId) xwait, infomask,
								   LockTupleExclusive, &current_is_member))
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				/* not when we hold a lock already: avoids deadlock */
				if (!current_is_member)
					qs_acquire_tuplock(rel, &tp->t_self, LockTupleExclusive,
									   LockWaitBlock, have_tuple_lock);
				qs_multi_wait((MultiXactId) xwait, MultiXactStatusUpdate,
							  infomask, false, rel, &tp->t_self, XLTW_Delete,
							  NULL);
				*slept = true;
				qs_relock(L, rel, buf, off, tp, scratch);
				if (qs_xmax_changed(tp, xwait, infomask))
					goto l1;
			}

			/*
			 * Members may survive (our own (sub)transactions): deleting is
			 * still allowed, it upgrades our lock.
			 */
		}
		else if (!TransactionIdIsCurrentTransactionId(xwait))
		{
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			qs_acquire_tuplock(rel, &tp->t_self, LockTupleExclusive,
							   LockWaitBlock, have_tuple_lock);
			XactLockTableWait(xwait, rel, &tp->t_self, XLTW_Delete);
			*slept = true;
			qs_relock(L, rel, buf, off, tp, scratch);
			if (qs_xmax_changed(tp, xwait, infomask))
				goto l1;
			qs_update_xmax_hint_bits(L, buf, off, tp, scratch, xwait);
		}

		/* an aborted xmax, or one that only locked, may be overwritten */
		if ((tp->t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HEAP_XMAX_IS_LOCKED_ONLY(tp->t_data->t_infomask) ||
			HeapTupleHeaderIsOnlyLocked(tp->t_data))
			result = TM_Ok;
		else if (!ItemPointerEquals(&tp->t_self, &tp->t_data->t_ctid))
			result = TM_Updated;
		else
			result = TM_Deleted;
	}
	return result;
}

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
	QsGenXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	HeapTuple	toastcopy = NULL;
	HeapTuple	oldkey = NULL;
	uint16		logflags = 0;
	ItemPointerData origin;
	ItemPointerData cand;

	MultiXactIdSetOldestMember();
	qs_ssi_origin(rel, tid, &origin, &cand);
	buf = qs_read_for_write(rel, L, tid, "delete");
	for (;;)
	{
		bool		slept = false;

		result = qs_delete_wait(rel, L, buf, off, cid, wait, &have_tuple_lock,
								&tp, &scratch, &tmfd->ctid, &tmfd->xmax,
								&slept);
		/* the origin decided before a wait may be stale: decide again */
		if (result != TM_Ok || !slept || !ItemPointerIsValid(&cand) ||
			qs_ssi_origin_again(rel, L, buf, off, tid, &cand, &origin, &tp,
								&scratch))
			break;
	}
	if (result == TM_Invisible)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to delete invisible tuple")));
	}
	if (result == TM_Ok && crosscheck != InvalidSnapshot &&
		!qs_crosscheck_visible(rel, &tp, crosscheck, buf))
		result = TM_Updated;
	if (result != TM_Ok)
	{
		if (result != QS_TM_MOVED)
			qs_fill_tmfd(result, &tp, tmfd);
		UnlockReleaseBuffer(buf);
		if (have_tuple_lock)
			qs_unlock_tuplock(rel, tid, LockTupleExclusive);
		return result;
	}

	qs_ssi_check_write(rel, tid, ItemPointerGetBlockNumber(tid), &origin);
	HeapTupleHeaderAdjustCmax(tp.t_data, &cid, &iscombo);
	if (HeapTupleHasExternal(&tp) && rel->rd_rel->relkind != RELKIND_MATVIEW)
		toastcopy = qs_page_copy_record(L, rel, BufferGetPage(buf),
								   BufferGetBlockNumber(buf), off);

	/*
	 * The old key for logical decoding, before the critical section and
	 * before the TOAST values go (heap_delete's order).
	 */
	if (qs_logical_wanted(rel) &&
		rel->rd_rel->relreplident != REPLICA_IDENTITY_NOTHING)
	{
		HeapTuple	oldcopy = toastcopy ? toastcopy :
			qs_page_copy_record(L, rel, BufferGetPage(buf),
								BufferGetBlockNumber(buf), off);

		oldkey = qs_logical_old_key(rel, oldcopy, true, &logflags);
		if (oldcopy != toastcopy)
			heap_freetuple(oldcopy);
	}
	if (changingPart)
		logflags |= QS_LOGICAL_PARTITION_MOVE;

	{
		uint16		newim,
					newim2;
		TransactionId newxmax;

		qs_compute_new_xmax_infomask(HeapTupleHeaderGetRawXmax(tp.t_data),
									 tp.t_data->t_infomask,
									 tp.t_data->t_infomask2, xid,
									 LockTupleExclusive, true,
									 &newxmax, &newim, &newim2);

		state = qs_genxlog_start(rel);
		page = qs_genxlog_register(state, buf, 0);
		hdr = qs_page_get_header(L, page, off, &scratch, NULL);
		hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
		hdr->t_infomask2 &= ~(HEAP_KEYS_UPDATED | QS_INFOMASK2_BITS);
		HeapTupleHeaderClearHotUpdated(hdr);
		hdr->t_infomask |= newim;
		hdr->t_infomask2 |= newim2;
		HeapTupleHeaderSetXmax(hdr, newxmax);
	}
	HeapTupleHeaderSetCmax(hdr, cid, iscombo);
	hdr->t_ctid = *tid;
	if (changingPart)
		HeapTupleHeaderSetMovedPartitions(hdr);
	qs_page_set_header(L, page, off, hdr);
	PageSetPrunable(page, xid);
	PageClearAllVisible(page);	/* xmax set: no longer visible to all */
	qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
	qs_genxlog_finish(state);
	UnlockReleaseBuffer(buf);

	if (qs_logical_wanted(rel))
		qs_log_logical_delete(rel, oldkey, logflags);
	if (oldkey)
		heap_freetuple(oldkey);

	if (toastcopy)
	{
		heap_toast_delete(rel, toastcopy, false);
		heap_freetuple(toastcopy);
	}
	if (have_tuple_lock)
		qs_unlock_tuplock(rel, tid, LockTupleExclusive);
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
	hdr->t_infomask2 &= ~(HEAP_KEYS_UPDATED | QS_INFOMASK2_BITS);
	HeapTupleHeaderClearHotUpdated(hdr);
	hdr->t_infomask |= im;
	hdr->t_infomask2 |= im2;
	HeapTupleHeaderSetXmax(hdr, xmax);
	HeapTupleHeaderSetCmax(hdr, cid, iscombo);
	hdr->t_ctid = *newtid;
}

/*
 * qs_update_wait
 *		heap_update's decision: with 'buf' exclusively locked, may we update
 *		the record at 'off' in 'lockmode' (NO KEY UPDATE when no key column
 *		changes: 'key_intact')?  Waits for conflicting lockers and updaters
 *		as heap does; a non-key update does not wait for KEY SHARE lockers.
 *		*checked_lockers / *locker_remains tell whether the lockers were
 *		looked at and whether some remain (they then stay in the xmax of
 *		the new version, as on heap).
 */
static TM_Result
qs_update_wait(Relation rel, const QsPageLayout *L, Buffer buf,
			   OffsetNumber off, CommandId cid, bool wait,
			   LockTupleMode lockmode, bool key_intact,
			   bool *have_tuple_lock, bool *checked_lockers,
			   bool *locker_remains, HeapTuple tp,
			   HeapTupleHeaderData *scratch, ItemPointer link,
			   TransactionId *mover, bool *slept)
{
	TM_Result	result;
	MultiXactStatus mxact_status = key_intact ?
		MultiXactStatusNoKeyUpdate : MultiXactStatusUpdate;

	qs_load_header(L, rel, buf, off, tp, scratch);
l2:
	*checked_lockers = false;
	*locker_remains = false;
	if (qs_resolve_moved(rel, L, buf, off, tp, scratch, link, mover,
						 LockWaitBlock, cid) == QS_MOVED_FOLLOW)
		return QS_TM_MOVED;
	result = HeapTupleSatisfiesUpdate(tp, cid, buf);
	qs_sync_header(L, buf, off, tp, scratch);
	if (result == TM_BeingModified && wait)
	{
		TransactionId xwait = HeapTupleHeaderGetRawXmax(tp->t_data);
		uint16		infomask = tp->t_data->t_infomask;
		bool		can_continue = false;

		if (infomask & HEAP_XMAX_IS_MULTI)
		{
			TransactionId update_xact;
			int			remain;
			bool		current_is_member = false;

			if (qs_multi_conflicts((MultiXactId) xwait, infomask, lockmode,
								   &current_is_member))
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				/* not when we hold a lock already: avoids deadlock */
				if (!current_is_member)
					qs_acquire_tuplock(rel, &tp->t_self, lockmode,
									   LockWaitBlock, have_tuple_lock);
				qs_multi_wait((MultiXactId) xwait, mxact_status, infomask,
							  false, rel, &tp->t_self, XLTW_Update, &remain);
				*slept = true;
				*checked_lockers = true;
				*locker_remains = remain != 0;
				qs_relock(L, rel, buf, off, tp, scratch);
				if (qs_xmax_changed(tp, xwait, infomask))
					goto l2;
			}

			/*
			 * Members may survive: our own (sub)transactions, and KEY SHARE
			 * lockers beside a non-key update; they stay in the new xmax.
			 * An update in the multixact must have aborted for us to go on.
			 */
			if (!HEAP_XMAX_IS_LOCKED_ONLY(tp->t_data->t_infomask))
				update_xact = HeapTupleGetUpdateXid(tp->t_data);
			else
				update_xact = InvalidTransactionId;
			if (!TransactionIdIsValid(update_xact) ||
				TransactionIdDidAbort(update_xact))
				can_continue = true;
		}
		else if (TransactionIdIsCurrentTransactionId(xwait))
		{
			/* only we lock it: keep our lock, no need to queue */
			*checked_lockers = true;
			*locker_remains = true;
			can_continue = true;
		}
		else if (HEAP_XMAX_IS_KEYSHR_LOCKED(infomask) && key_intact)
		{
			/* a KEY SHARE locker does not conflict with a non-key update */
			*checked_lockers = true;
			*locker_remains = true;
			can_continue = true;
		}
		else
		{
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			qs_acquire_tuplock(rel, &tp->t_self, lockmode, LockWaitBlock,
							   have_tuple_lock);
			XactLockTableWait(xwait, rel, &tp->t_self, XLTW_Update);
			*slept = true;
			*checked_lockers = true;
			qs_relock(L, rel, buf, off, tp, scratch);
			if (qs_xmax_changed(tp, xwait, infomask))
				goto l2;
			qs_update_xmax_hint_bits(L, buf, off, tp, scratch, xwait);
			if (tp->t_data->t_infomask & HEAP_XMAX_INVALID)
				can_continue = true;
		}

		if (can_continue)
			result = TM_Ok;
		else if (!ItemPointerEquals(&tp->t_self, &tp->t_data->t_ctid))
			result = TM_Updated;
		else
			result = TM_Deleted;
	}
	return result;
}

TM_Result
qs_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				QS_UPDATE_INDEXES_T *update_indexes)
{
	const QsPageLayout *L = qs_layout_of(rel);
	const QsPageLayout *RL;
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
	QsGenXLogState *state;
	Page		page;
	HeapTupleHeader hdr;
	bool		newpage = false;
	TransactionId uxmax;
	uint16		uim,
				uim2;
	bool		key_changed;
	bool		checked_lockers;
	bool		locker_remains;
	TransactionId xmax_new_tuple;
	uint16		infomask_new_tuple,
				infomask2_new_tuple;
	bool		logical = qs_logical_wanted(rel);
	HeapTuple	oldkey = NULL;
	uint16		logflags = 0;
	bool		hot_ok = false;
	bool		hot_summarized = false;
	bool		use_hot = false;
	bool		oldheaponly;
	ItemPointerData origin;
	ItemPointerData cand;

	QS_SET_UPDATE_ALL(update_indexes);
	slot->tts_tableOid = RelationGetRelid(rel);

	MultiXactIdSetOldestMember();
	qs_ssi_origin(rel, otid, &origin, &cand);
	buf = qs_read_for_write(rel, L, otid, "update");
	key_changed = qs_attrs_changed(rel, L, BufferGetPage(buf), off, newtup,
								   INDEX_ATTR_BITMAP_KEY, false);
	*lockmode = key_changed ? LockTupleExclusive : LockTupleNoKeyExclusive;

	/*
	 * HOT (heap_update's test): a layout with HOT chains, and no column an
	 * index depends on changed (PG 16+: none but those of summarizing
	 * indexes, which then get entries for the new version).  Whether the
	 * new version stays on the page is decided below.
	 */
	if (L->mark_redirect != NULL && !qs_is_column_rel(rel))
	{
#if PG_VERSION_NUM >= 160000
		hot_ok = !qs_attrs_changed(rel, L, BufferGetPage(buf), off, newtup,
								   INDEX_ATTR_BITMAP_HOT_BLOCKING, false);
		if (hot_ok)
			hot_summarized = qs_attrs_changed(rel, L, BufferGetPage(buf), off,
											  newtup,
											  INDEX_ATTR_BITMAP_SUMMARIZED,
											  false);
#else
		hot_ok = !qs_attrs_changed(rel, L, BufferGetPage(buf), off, newtup,
								   INDEX_ATTR_BITMAP_ALL, false);
#endif
	}
	for (;;)
	{
		bool		slept = false;

		result = qs_update_wait(rel, L, buf, off, cid, wait, *lockmode,
								!key_changed, &have_tuple_lock,
								&checked_lockers, &locker_remains, &tp,
								&scratch, &tmfd->ctid, &tmfd->xmax, &slept);
		/* the origin decided before a wait may be stale: decide again */
		if (result != TM_Ok || !slept || !ItemPointerIsValid(&cand) ||
			qs_ssi_origin_again(rel, L, buf, off, otid, &cand, &origin, &tp,
								&scratch))
			break;
	}
	if (result == TM_Invisible)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to update invisible tuple")));
	}
	if (result == TM_Ok && crosscheck != InvalidSnapshot &&
		!qs_crosscheck_visible(rel, &tp, crosscheck, buf))
		result = TM_Updated;
	if (result != TM_Ok)
	{
		if (result != QS_TM_MOVED)
			qs_fill_tmfd(result, &tp, tmfd);
		UnlockReleaseBuffer(buf);
		if (have_tuple_lock)
			qs_unlock_tuplock(rel, otid, *lockmode);
		if (shouldFree)
			pfree(newtup);
		return result;
	}

	qs_ssi_check_write(rel, otid, oblk, &origin);

	/*
	 * The old key for logical decoding, compared with the new row before
	 * it is toasted (as heap_update does), while the old row's TOAST values
	 * all still exist.  No copy of the old row when nothing of it is logged.
	 */
	if (logical && rel->rd_rel->relreplident != REPLICA_IDENTITY_NOTHING)
	{
		bool		key_required =
			rel->rd_rel->relreplident == REPLICA_IDENTITY_FULL ||
			qs_attrs_changed(rel, L, BufferGetPage(buf), off, newtup,
							 INDEX_ATTR_BITMAP_IDENTITY_KEY, true);

		if (key_required)
		{
			HeapTuple	oldcopy = qs_page_copy_record(L, rel, BufferGetPage(buf),
													  oblk, off);

			oldkey = qs_logical_old_key(rel, oldcopy, true, &logflags);
			heap_freetuple(oldcopy);
		}
	}

	/* the old version's xmax: our update, keeping the lockers still there */
	qs_compute_new_xmax_infomask(HeapTupleHeaderGetRawXmax(tp.t_data),
								 tp.t_data->t_infomask, tp.t_data->t_infomask2,
								 xid, *lockmode, true, &uxmax, &uim, &uim2);

	/*
	 * The new version's xmax, as heap_update sets it: the lockers that
	 * remain (KEY SHARE lockers, or our own lock) are carried over; none
	 * when there were none or all are gone.
	 */
	if ((tp.t_data->t_infomask & HEAP_XMAX_INVALID) ||
		HEAP_LOCKED_UPGRADED(tp.t_data->t_infomask) ||
		(checked_lockers && !locker_remains))
		xmax_new_tuple = InvalidTransactionId;
	else
		xmax_new_tuple = HeapTupleHeaderGetRawXmax(tp.t_data);
	if (!TransactionIdIsValid(xmax_new_tuple))
	{
		infomask_new_tuple = HEAP_XMAX_INVALID;
		infomask2_new_tuple = 0;
	}
	else if (tp.t_data->t_infomask & HEAP_XMAX_IS_MULTI)
		qs_multi_hint_bits(xmax_new_tuple, &infomask_new_tuple,
						   &infomask2_new_tuple);
	else
	{
		/* an update leaves only KEY SHARE lockers beside it */
		infomask_new_tuple = HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_LOCK_ONLY;
		infomask2_new_tuple = 0;
	}

	/* the new version's header, as heap_update sets it */
	newtup->t_data->t_infomask &= ~(HEAP_XACT_MASK);
	newtup->t_data->t_infomask2 &= ~(HEAP2_XACT_MASK | QS_INFOMASK2_BITS);
	HeapTupleHeaderSetXmin(newtup->t_data, xid);
	HeapTupleHeaderSetCmin(newtup->t_data, cid);
	newtup->t_data->t_infomask |= HEAP_UPDATED | infomask_new_tuple;
	newtup->t_data->t_infomask2 |= infomask2_new_tuple;
	HeapTupleHeaderSetXmax(newtup->t_data, xmax_new_tuple);
	newtup->t_tableOid = RelationGetRelid(rel);

	HeapTupleHeaderAdjustCmax(tp.t_data, &ocid, &iscombo);

	need_toast = (rel->rd_rel->relkind == RELKIND_RELATION ||
				  rel->rd_rel->relkind == RELKIND_MATVIEW) &&
		(HeapTupleHasExternal(&tp) || HeapTupleHasExternal(newtup) ||
		 newtup->t_len > TOAST_TUPLE_THRESHOLD);

	RL = qs_record_layout(rel, L, newtup);
	oldheaponly = HeapTupleHeaderIsHeapOnly(tp.t_data);
	if (!need_toast &&
		fits_same_page(L, RL, BufferGetPage(buf), RelationGetDescr(rel), newtup,
					   hot_ok && RL == L, oldheaponly))
	{
		/* same page: one WAL record */
		OffsetNumber noff;

		use_hot = hot_ok && RL == L;
		state = qs_genxlog_start(rel);
		page = qs_genxlog_register(state, buf, 0);
		noff = RL->put_record(page, RelationGetDescr(rel), oblk, newtup);
		if (noff == InvalidOffsetNumber)
			elog(PANIC, "record does not fit although it should");
		hdr = qs_page_get_header(L, page, off, &scratch, NULL);
		qs_set_update_xmax(hdr, uxmax, uim, uim2, ocid, iscombo, &newtup->t_self);
		if (use_hot)
			HeapTupleHeaderSetHotUpdated(hdr);
		qs_page_set_header(L, page, off, hdr);
		PageSetPrunable(page, xid);
		PageClearAllVisible(page);	/* new version, old one's xmax */
		qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
		qs_genxlog_finish(state);
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
		qs_compute_new_xmax_infomask(HeapTupleHeaderGetRawXmax(tp.t_data),
									 tp.t_data->t_infomask,
									 tp.t_data->t_infomask2, xid, *lockmode,
									 false, &lxmax, &lim, &lim2);
		state = qs_genxlog_start(rel);
		page = qs_genxlog_register(state, buf, 0);
		hdr = qs_page_get_header(L, page, off, &scratch, NULL);
		hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
		hdr->t_infomask2 &= ~(HEAP_KEYS_UPDATED | QS_INFOMASK2_BITS);
		HeapTupleHeaderClearHotUpdated(hdr);
		hdr->t_infomask |= lim;
		hdr->t_infomask2 |= lim2;
		HeapTupleHeaderSetXmax(hdr, lxmax);
		HeapTupleHeaderSetCmax(hdr, ocid, iscombo);
		hdr->t_ctid = *otid;
		PageClearAllVisible(page);	/* xmax set (lock) */
		qs_page_set_header(L, page, off, hdr);
		qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
		qs_genxlog_finish(state);
		if (need_toast)
			oldcopy = qs_page_copy_record(L, rel, BufferGetPage(buf), oblk, off);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		if (need_toast)
			heaptup = heap_toast_insert_or_update(rel, newtup, oldcopy, 0);
		else
			heaptup = newtup;
		RL = qs_record_layout(rel, L, heaptup);

		/*
		 * The origin's stub may have gone while the page was unlocked (and
		 * a new row taken its TID): the check below would then meet that
		 * row's locks.  Read it again, holding no buffer lock (review
		 * helper-189; what is left is the wait for a page below).
		 */
		if (ItemPointerIsValid(&origin) && !qs_stub_is_origin(rel, &origin, otid))
			ItemPointerSetInvalid(&origin);

		for (;;)
		{
			bool		isnew = false;
			BlockNumber nblk;

			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			if (fits_same_page(L, RL, BufferGetPage(buf), RelationGetDescr(rel),
							   heaptup, hot_ok && RL == L, oldheaponly))
			{
				newbuf = buf;
				break;
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			newbuf = qs_get_buffer(rel, L, heaptup, NULL, oblk, true, &RL, &isnew);
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
			if (qs_page_needs_format(L, RL, BufferGetPage(newbuf)) ||
				qs_record_fits(L, RL, BufferGetPage(newbuf), RelationGetDescr(rel), heaptup, 0))
				break;
			UnlockReleaseBuffer(newbuf);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}

		/*
		 * Check again, now that the old version's page stays locked until
		 * the update is visible (heap_update checks only here): a
		 * serializable reader that locked the row while the page was
		 * unlocked above saw just our lock-only xmax, which its conflict-out
		 * check takes for a live row.  The check before only fails sooner.
		 */
		qs_ssi_check_write(rel, otid, oblk, &origin);

		/*
		 * Compatible lockers (KEY SHARE beside our NO KEY lock) may have
		 * joined our lock meanwhile: then compose the update's xmax from the
		 * xmax now there, so that their locks are not lost.  (Heap writes
		 * the xmax it computed before; this differs only in that race.)
		 */
		{
			HeapTupleHeaderData scratch2;
			HeapTupleHeader cur = qs_page_get_header(L, BufferGetPage(buf), off,
												&scratch2, NULL);

			if (!TransactionIdEquals(HeapTupleHeaderGetRawXmax(cur), lxmax) ||
				qs_xmax_infomask_changed(cur->t_infomask, lim))
				qs_compute_new_xmax_infomask(HeapTupleHeaderGetRawXmax(cur),
											 cur->t_infomask,
											 cur->t_infomask2, xid,
											 *lockmode, true,
											 &uxmax, &uim, &uim2);
		}

		state = qs_genxlog_start(rel);
		if (newbuf == buf)
		{
			OffsetNumber noff;

			use_hot = hot_ok && RL == L;
			Assert(use_hot == HeapTupleHeaderIsHeapOnly(heaptup->t_data));
			page = qs_genxlog_register(state, buf, 0);
			noff = RL->put_record(page, RelationGetDescr(rel), oblk, heaptup);
			if (noff == InvalidOffsetNumber)
				elog(PANIC, "record does not fit although it should");
		}
		else
		{
			Page		npage;
			bool		isnew = qs_page_needs_format(L, RL, BufferGetPage(newbuf));

			page = qs_genxlog_register(state, buf, 0);
			npage = qs_genxlog_register(state, newbuf,
											  isnew ? GENERIC_XLOG_FULL_IMAGE : 0);
			if (isnew)
				RL->init_page(npage, BufferGetPageSize(newbuf), RelationGetDescr(rel));
			PageClearAllVisible(npage); /* the new version */
			if (RL->put_record(npage, RelationGetDescr(rel), BufferGetBlockNumber(newbuf), heaptup) == InvalidOffsetNumber)
				elog(PANIC, "record does not fit although it should");
			newpage = true;

			/*
			 * heap_update's hint that the old page could use pruning: the
			 * next read prunes it whatever its free space says (a PAX page
			 * out of slots can have bytes to spare), so that its later
			 * updates can stay on it (HOT).  Pruning clears it.
			 */
			PageSetFull(page);
		}
		hdr = qs_page_get_header(L, page, off, &scratch, NULL);
		qs_set_update_xmax(hdr, uxmax, uim, uim2, ocid, iscombo, &heaptup->t_self);
		if (use_hot)
			HeapTupleHeaderSetHotUpdated(hdr);
		qs_page_set_header(L, page, off, hdr);
		PageSetPrunable(page, xid);
		PageClearAllVisible(page);	/* new version, old one's xmax */
		if (newbuf != buf)
			qs_vm_clear(rel, newbuf);
		qs_vm_clear(rel, buf);	/* visibility map bits first (vm.c) */
		qs_genxlog_finish(state);
		if (newbuf != buf)
			UnlockReleaseBuffer(newbuf);
		UnlockReleaseBuffer(buf);
		if (oldcopy)
			heap_freetuple(oldcopy);
	}

	if (logical)
		qs_log_logical_update(rel, heaptup, oldkey, logflags);
	if (oldkey)
		heap_freetuple(oldkey);

	if (have_tuple_lock)
		qs_unlock_tuplock(rel, otid, *lockmode);
	if (use_hot)
		QS_SET_UPDATE_HOT(update_indexes, hot_summarized);
	qs_pgstat_count_heap_update(rel, use_hot, newpage);

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

/*
 * Given the status a transaction holds on a record version, may we lock it
 * in 'mode' (TM_Ok), must we wait for it (*needwait), do we hold it already
 * (TM_SelfModified), or did a conflicting update commit?  heap's
 * test_lockmode_for_conflict.
 */
static TM_Result
qs_test_lockmode_for_conflict(MultiXactStatus status, TransactionId xid,
							  LockTupleMode mode, HeapTuple tup,
							  bool *needwait)
{
	MultiXactStatus wantedstatus = qs_mxact_status_for_lock(mode, false);

	*needwait = false;

	/* TransactionIdIsInProgress before TransactionIdDidCommit/Abort */
	if (TransactionIdIsCurrentTransactionId(xid))
		return TM_SelfModified;
	else if (TransactionIdIsInProgress(xid))
	{
		if (DoLockModesConflict(QS_LOCKMODE_FROM_MXSTATUS(status),
								QS_LOCKMODE_FROM_MXSTATUS(wantedstatus)))
			*needwait = true;
		return TM_Ok;
	}
	else if (TransactionIdDidAbort(xid))
		return TM_Ok;
	else if (TransactionIdDidCommit(xid))
	{
		/* a finished locker holds nothing; a committed update persists */
		if (!ISUPDATE_from_mxstatus(status))
			return TM_Ok;
		if (DoLockModesConflict(QS_LOCKMODE_FROM_MXSTATUS(status),
								QS_LOCKMODE_FROM_MXSTATUS(wantedstatus)))
		{
			if (!ItemPointerEquals(&tup->t_self, &tup->t_data->t_ctid))
				return TM_Updated;
			else
				return TM_Deleted;
		}
		return TM_Ok;
	}

	/* not in progress, not aborted, not committed: it crashed */
	return TM_Ok;
}

/*
 * qs_lock_updated_tuple_rec
 *		Lock, in 'mode' for 'xid', every version of the update chain that
 *		starts at 'tid' (heap_lock_updated_tuple_rec).  No visibility check:
 *		each version is marked; a concurrent conflicting updater or locker
 *		of a version is waited for (without the heavyweight tuple lock, as
 *		on heap).
 */
static TM_Result
qs_lock_updated_tuple_rec(Relation rel, const QsPageLayout *L,
						  ItemPointer tid, TransactionId xid,
						  LockTupleMode mode)
{
	TM_Result	result;
	ItemPointerData tupid = *tid;
	HeapTupleData mytup;
	HeapTupleHeaderData scratch;
	Buffer		buf;
	TransactionId priorXmax = InvalidTransactionId;

	for (;;)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(&tupid);
		OffsetNumber off = ItemPointerGetOffsetNumber(&tupid);
		uint16		old_infomask,
					old_infomask2,
					new_infomask,
					new_infomask2;
		TransactionId xmax,
					new_xmax;

		/*
		 * A version that is gone was pruned after its creator aborted: the
		 * end of the chain.
		 */
		if (blkno >= RelationGetNumberOfBlocks(rel))
			return TM_Ok;
		buf = ReadBuffer(rel, blkno);

l4:
		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		if (qs_page_record_state(L, BufferGetPage(buf), off) != QS_REC_NORMAL)
		{
			result = TM_Ok;
			goto out_locked;
		}
		qs_load_header(L, rel, buf, off, &mytup, &scratch);

		/*
		 * Moved by a merge: only a quiet version moves, whose inserter every
		 * snapshot sees, so no lock can be owed to it; a running merge's
		 * mark is cancelled first, as for any lock.
		 */
		{
			ItemPointerData link;
			TransactionId mover;

			if (qs_resolve_moved(rel, L, buf, off, &mytup, &scratch, &link,
								 &mover, LockWaitBlock,
								 GetCurrentCommandId(false)) == QS_MOVED_FOLLOW)
			{
				result = TM_Ok;
				goto out_locked;
			}
		}

		/* the end of the chain: xmin is not the prior xmax */
		if (TransactionIdIsValid(priorXmax) &&
			!TransactionIdEquals(HeapTupleHeaderGetXmin(mytup.t_data),
								 priorXmax))
		{
			result = TM_Ok;
			goto out_locked;
		}

		/* created by an aborted (sub)transaction: the last live one is done */
		if (TransactionIdDidAbort(HeapTupleHeaderGetXmin(mytup.t_data)))
		{
			result = TM_Ok;
			goto out_locked;
		}

		old_infomask = mytup.t_data->t_infomask;
		old_infomask2 = mytup.t_data->t_infomask2;
		xmax = HeapTupleHeaderGetRawXmax(mytup.t_data);

		/*
		 * Locked or updated by others: whether we wait, fail or go on
		 * depends on their status and on how their locks meet ours.
		 */
		if (!(old_infomask & HEAP_XMAX_INVALID))
		{
			bool		needwait;

			if (old_infomask & HEAP_XMAX_IS_MULTI)
			{
				MultiXactMember *members;
				int			n;

				n = GetMultiXactIdMembers(xmax, &members, false,
										  HEAP_XMAX_IS_LOCKED_ONLY(old_infomask));
				for (int i = 0; i < n; i++)
				{
					result = qs_test_lockmode_for_conflict(members[i].status,
														   members[i].xid,
														   mode, &mytup,
														   &needwait);

					/*
					 * Locked by ourselves already (heap_lock_tuple started
					 * over): skip this version, go on along the chain.
					 */
					if (result == TM_SelfModified)
					{
						pfree(members);
						goto next;
					}
					if (needwait)
					{
						LockBuffer(buf, BUFFER_LOCK_UNLOCK);
						XactLockTableWait(members[i].xid, rel, &mytup.t_self,
										  XLTW_LockUpdated);
						pfree(members);
						goto l4;
					}
					if (result != TM_Ok)
					{
						pfree(members);
						goto out_locked;
					}
				}
				if (n > 0)
					pfree(members);
			}
			else
			{
				MultiXactStatus status;

				/* a pg_upgrade'd share lock, never inside a chain */
				if (!qs_xmax_status(old_infomask, old_infomask2, &status))
					elog(ERROR, "invalid lock status in tuple");

				result = qs_test_lockmode_for_conflict(status, xmax, mode,
													   &mytup, &needwait);
				if (result == TM_SelfModified)
					goto next;
				if (needwait)
				{
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					XactLockTableWait(xmax, rel, &mytup.t_self,
									  XLTW_LockUpdated);
					goto l4;
				}
				if (result != TM_Ok)
					goto out_locked;
			}
		}

		qs_compute_new_xmax_infomask(xmax, old_infomask, old_infomask2,
									 xid, mode, false,
									 &new_xmax, &new_infomask, &new_infomask2);
		qs_write_xmax(rel, L, buf, off, new_xmax, new_infomask,
					  new_infomask2, NULL);
		qs_load_header(L, rel, buf, off, &mytup, &scratch);

next:
		/* the end of the update chain? */
		if ((mytup.t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HeapTupleHeaderIndicatesMovedPartitions(mytup.t_data) ||
			ItemPointerEquals(&mytup.t_self, &mytup.t_data->t_ctid) ||
			HeapTupleHeaderIsOnlyLocked(mytup.t_data))
		{
			result = TM_Ok;
			goto out_locked;
		}
		priorXmax = HeapTupleHeaderGetUpdateXid(mytup.t_data);
		tupid = mytup.t_data->t_ctid;
		UnlockReleaseBuffer(buf);
	}

out_locked:
	UnlockReleaseBuffer(buf);
	return result;
}

/*
 * The record at 'self' (already locked by us) was updated to 'ctid': lock
 * the newer versions too (heap_lock_updated_tuple), so that a KEY SHARE
 * lock taken beside a non-key update still protects the key after that
 * update commits.
 */
static TM_Result
qs_lock_updated_tuple(Relation rel, const QsPageLayout *L, ItemPointer self,
					  ItemPointer ctid, TransactionId xid, LockTupleMode mode)
{
	/* not updated, or moved to another partition (a delete): nothing */
	if (!ItemPointerIndicatesMovedPartitions(ctid) &&
		!ItemPointerEquals(self, ctid))
	{
		MultiXactIdSetOldestMember();
		return qs_lock_updated_tuple_rec(rel, L, ctid, xid, mode);
	}
	return TM_Ok;
}

/*
 * qs_lock_one
 *		Lock the record at 'tid' in 'mode': heap_lock_tuple's decision table
 *		(README.tuplock) on the header the layout presents.  The buffer is
 *		left pinned (not locked) in *bufp; tmfd is filled in the failure
 *		cases other than TM_Invisible.
 */
static TM_Result
qs_lock_one(Relation rel, const QsPageLayout *L, ItemPointer tid,
			CommandId cid, LockTupleMode mode, LockWaitPolicy wait_policy,
			bool follow_updates, TM_FailureData *tmfd, Buffer *bufp)
{
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Buffer		buf;
	HeapTupleData tuple;
	HeapTupleHeaderData scratch;
	TM_Result	result;
	TransactionId xid,
				xmax;
	uint16		new_infomask,
				new_infomask2;
	bool		first_time = true;
	bool		skip_tuple_lock = false;
	bool		have_tuple_lock = false;

	buf = qs_read_for_write(rel, L, tid, "lock");
	*bufp = buf;
	qs_load_header(L, rel, buf, off, &tuple, &scratch);

l3:
	switch (qs_resolve_moved(rel, L, buf, off, &tuple, &scratch, &tmfd->ctid,
							 &tmfd->xmax, wait_policy, cid))
	{
		case QS_MOVED_FOLLOW:
			result = QS_TM_MOVED;
			goto out_locked;
		case QS_MOVED_WOULDBLOCK:
			result = TM_WouldBlock;
			goto failed;
		default:
			break;
	}
	result = HeapTupleSatisfiesUpdate(&tuple, cid, buf);
	qs_sync_header(L, buf, off, &tuple, &scratch);

	if (result == TM_Invisible)
	{
		/* only when locking for ON CONFLICT UPDATE: the caller reports it */
		goto out_locked;
	}
	else if (result == TM_BeingModified ||
			 result == TM_Updated ||
			 result == TM_Deleted)
	{
		TransactionId xwait;
		uint16		infomask;
		uint16		infomask2;
		bool		require_sleep;
		ItemPointerData t_ctid;

		/* copy what we need before unlocking the buffer */
		xwait = HeapTupleHeaderGetRawXmax(tuple.t_data);
		infomask = tuple.t_data->t_infomask;
		infomask2 = tuple.t_data->t_infomask2;
		t_ctid = tuple.t_data->t_ctid;

		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		/*
		 * A (sub)transaction of ours holding a lock at least as strong:
		 * we have it already, and must not queue on the tuple lock (we
		 * would deadlock with a stronger waiter queued behind us).  Only
		 * the first time: we cannot have gained a lock since.
		 */
		if (first_time)
		{
			first_time = false;

			if (infomask & HEAP_XMAX_IS_MULTI)
			{
				MultiXactMember *members;
				int			n;

				n = GetMultiXactIdMembers(xwait, &members, false,
										  HEAP_XMAX_IS_LOCKED_ONLY(infomask));
				for (int i = 0; i < n; i++)
				{
					if (!TransactionIdIsCurrentTransactionId(members[i].xid))
						continue;
					if (QS_TUPLOCK_FROM_MXSTATUS(members[i].status) >= mode)
					{
						pfree(members);
						result = TM_Ok;
						goto out_unlocked;
					}

					/*
					 * Upgrading a weaker lock of ours: do not take the
					 * heavyweight tuple lock, whose holder may be waiting
					 * for us; still wait for the multixact if needed.
					 */
					skip_tuple_lock = true;
				}
				if (n > 0)
					pfree(members);
			}
			else if (TransactionIdIsCurrentTransactionId(xwait))
			{
				switch (mode)
				{
					case LockTupleKeyShare:
						result = TM_Ok;
						goto out_unlocked;
					case LockTupleShare:
						if (HEAP_XMAX_IS_SHR_LOCKED(infomask) ||
							HEAP_XMAX_IS_EXCL_LOCKED(infomask))
						{
							result = TM_Ok;
							goto out_unlocked;
						}
						break;
					case LockTupleNoKeyExclusive:
						if (HEAP_XMAX_IS_EXCL_LOCKED(infomask))
						{
							result = TM_Ok;
							goto out_unlocked;
						}
						break;
					case LockTupleExclusive:
						if (HEAP_XMAX_IS_EXCL_LOCKED(infomask) &&
							(infomask2 & HEAP_KEYS_UPDATED))
						{
							result = TM_Ok;
							goto out_unlocked;
						}
						break;
				}
			}
		}

		/* assume we must wait; the cases below may say otherwise */
		require_sleep = true;
		if (mode == LockTupleKeyShare)
		{
			/*
			 * KEY SHARE waits for nobody unless the key was updated (or the
			 * row deleted).  Beside a non-key update it locks the newer
			 * versions as well, so that deleting them later waits for us;
			 * that may wait for a concurrent key change of a newer version,
			 * so it is done before the buffer is locked again.
			 */
			if (!(infomask2 & HEAP_KEYS_UPDATED))
			{
				bool		updated = !HEAP_XMAX_IS_LOCKED_ONLY(infomask);

				if (follow_updates && updated)
				{
					TM_Result	res;

					res = qs_lock_updated_tuple(rel, L, &tuple.t_self,
												&t_ctid,
												GetCurrentTransactionId(),
												mode);
					if (res != TM_Ok)
					{
						result = res;
						qs_relock(L, rel, buf, off, &tuple, &scratch);
						goto failed;
					}
				}

				qs_relock(L, rel, buf, off, &tuple, &scratch);

				/*
				 * Still a compatible xmax?  If it was not updated before but
				 * is now, start over to follow the new chain.
				 */
				if (!HeapTupleHeaderIsOnlyLocked(tuple.t_data) &&
					((tuple.t_data->t_infomask2 & HEAP_KEYS_UPDATED) ||
					 !updated))
					goto l3;

				/* others may have changed xmax: still compatible, fine */
				require_sleep = false;
			}
		}
		else if (mode == LockTupleShare)
		{
			/* SHARE waits for no lock but an exclusive one, and no update */
			if (HEAP_XMAX_IS_LOCKED_ONLY(infomask) &&
				!HEAP_XMAX_IS_EXCL_LOCKED(infomask))
			{
				qs_relock(L, rel, buf, off, &tuple, &scratch);
				if (!HEAP_XMAX_IS_LOCKED_ONLY(tuple.t_data->t_infomask) ||
					HEAP_XMAX_IS_EXCL_LOCKED(tuple.t_data->t_infomask))
					goto l3;
				require_sleep = false;
			}
		}
		else if (mode == LockTupleNoKeyExclusive)
		{
			/* NO KEY UPDATE waits for no KEY SHARE locker */
			if (infomask & HEAP_XMAX_IS_MULTI)
			{
				if (!qs_multi_conflicts((MultiXactId) xwait, infomask, mode,
										NULL))
				{
					qs_relock(L, rel, buf, off, &tuple, &scratch);
					if (qs_xmax_changed(&tuple, xwait, infomask))
						goto l3;
					require_sleep = false;
				}
			}
			else if (HEAP_XMAX_IS_KEYSHR_LOCKED(infomask))
			{
				qs_relock(L, rel, buf, off, &tuple, &scratch);
				if (qs_xmax_changed(&tuple, xwait, infomask))
					goto l3;
				require_sleep = false;
			}
		}

		/*
		 * Our own transaction as the only locker: no waiting, whatever the
		 * strength (a stronger one was handled above).  Multixacts: the
		 * wait below knows to skip our members.
		 */
		if (require_sleep && !(infomask & HEAP_XMAX_IS_MULTI) &&
			TransactionIdIsCurrentTransactionId(xwait))
		{
			qs_relock(L, rel, buf, off, &tuple, &scratch);
			if (qs_xmax_changed(&tuple, xwait, infomask))
				goto l3;
			Assert(HEAP_XMAX_IS_LOCKED_ONLY(tuple.t_data->t_infomask));
			require_sleep = false;
		}

		/*
		 * A committed update or delete cannot be waited out: report it.
		 * Otherwise sleep, queued on the tuple lock (kept if we start over,
		 * so that we stay first in line).
		 */
		if (require_sleep && (result == TM_Updated || result == TM_Deleted))
		{
			qs_relock(L, rel, buf, off, &tuple, &scratch);
			goto failed;
		}
		else if (require_sleep)
		{
			if (!skip_tuple_lock &&
				!qs_acquire_tuplock(rel, tid, mode, wait_policy,
									&have_tuple_lock))
			{
				/* LockWaitSkip only */
				result = TM_WouldBlock;
				qs_relock(L, rel, buf, off, &tuple, &scratch);
				goto failed;
			}

			if (infomask & HEAP_XMAX_IS_MULTI)
			{
				MultiXactStatus status = qs_mxact_status_for_lock(mode, false);

				switch (wait_policy)
				{
					case LockWaitBlock:
						qs_multi_wait((MultiXactId) xwait, status, infomask,
									  false, rel, &tuple.t_self, XLTW_Lock,
									  NULL);
						break;
					case LockWaitSkip:
						if (!qs_multi_wait((MultiXactId) xwait, status,
										   infomask, true, rel, NULL,
										   XLTW_None, NULL))
						{
							result = TM_WouldBlock;
							qs_relock(L, rel, buf, off, &tuple, &scratch);
							goto failed;
						}
						break;
					case LockWaitError:
						if (!qs_multi_wait((MultiXactId) xwait, status,
										   infomask, true, rel, NULL,
										   XLTW_None, NULL))
							ereport(ERROR,
									(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
									 errmsg("could not obtain lock on row in relation \"%s\"",
											RelationGetRelationName(rel))));
						break;
				}

				/*
				 * Members may survive: compatible lockers, and locks of our
				 * own; they are kept in the new multixact.
				 */
			}
			else
			{
				switch (wait_policy)
				{
					case LockWaitBlock:
						XactLockTableWait(xwait, rel, &tuple.t_self,
										  XLTW_Lock);
						break;
					case LockWaitSkip:
						if (!qs_ConditionalXactLockTableWait(xwait))
						{
							result = TM_WouldBlock;
							qs_relock(L, rel, buf, off, &tuple, &scratch);
							goto failed;
						}
						break;
					case LockWaitError:
						if (!qs_ConditionalXactLockTableWait(xwait))
							ereport(ERROR,
									(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
									 errmsg("could not obtain lock on row in relation \"%s\"",
											RelationGetRelationName(rel))));
						break;
				}
			}

			/* an update (now aborted or done): lock the newer versions */
			if (follow_updates && !HEAP_XMAX_IS_LOCKED_ONLY(infomask))
			{
				TM_Result	res;

				res = qs_lock_updated_tuple(rel, L, &tuple.t_self, &t_ctid,
											GetCurrentTransactionId(), mode);
				if (res != TM_Ok)
				{
					result = res;
					qs_relock(L, rel, buf, off, &tuple, &scratch);
					goto failed;
				}
			}

			qs_relock(L, rel, buf, off, &tuple, &scratch);

			/* a new locker may have come in meanwhile: start over */
			if (qs_xmax_changed(&tuple, xwait, infomask))
				goto l3;

			/*
			 * A single xwait that conflicted is over now: did it commit?
			 * (Not for a multixact, whose lockers may still run.)
			 */
			if (!(infomask & HEAP_XMAX_IS_MULTI))
				qs_update_xmax_hint_bits(L, buf, off, &tuple, &scratch, xwait);
		}

		/*
		 * We may lock if the xmax aborted, or only locked, or we did not
		 * have to wait at all.
		 */
		if (!require_sleep ||
			(tuple.t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HEAP_XMAX_IS_LOCKED_ONLY(tuple.t_data->t_infomask) ||
			HeapTupleHeaderIsOnlyLocked(tuple.t_data))
			result = TM_Ok;
		else if (!ItemPointerEquals(&tuple.t_self, &tuple.t_data->t_ctid))
			result = TM_Updated;
		else
			result = TM_Deleted;
	}

failed:
	if (result != TM_Ok)
	{
		Assert(result == TM_SelfModified || result == TM_Updated ||
			   result == TM_Deleted || result == TM_WouldBlock);
		qs_fill_tmfd(result, &tuple, tmfd);
		goto out_locked;
	}

	xmax = HeapTupleHeaderGetRawXmax(tuple.t_data);
	MultiXactIdSetOldestMember();

	/*
	 * The new xmax: computed before the page is touched, since creating a
	 * multixact may fail.  Cmax is left alone: meaningless for a lock, and
	 * a locked updated version must keep its own.
	 */
	qs_compute_new_xmax_infomask(xmax, tuple.t_data->t_infomask,
								 tuple.t_data->t_infomask2,
								 GetCurrentTransactionId(), mode, false,
								 &xid, &new_infomask, &new_infomask2);
	qs_write_xmax(rel, L, buf, off, xid, new_infomask, new_infomask2, tid);
	result = TM_Ok;

out_locked:
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);

out_unlocked:
	if (have_tuple_lock)
		qs_unlock_tuplock(rel, tid, mode);
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
	ItemPointerData hop;
	ItemPointer target = tid;

	tmfd->traversed = false;

retry:
	result = qs_lock_one(rel, L, target, cid, mode, wait_policy,
						 (flags & TUPLE_LOCK_FLAG_LOCK_UPDATE_IN_PROGRESS) != 0,
						 tmfd, &buf);

	/*
	 * A merge moved the row: the same row at its main copy.  Not a
	 * traversal, and the caller's TID stays the one it holds (the delta
	 * version): its update or delete then goes through the link itself,
	 * which marks the delta version taken where the snapshot needs it (a
	 * BEFORE ROW trigger's GetTupleForTrigger locks before ExecUpdate).
	 */
	if (result == QS_TM_MOVED)
	{
		ReleaseBuffer(buf);
		hop = tmfd->ctid;
		target = &hop;
		goto retry;
	}

	if (result == TM_Updated && (flags & TUPLE_LOCK_FLAG_FIND_LAST_VERSION))
	{
		ReleaseBuffer(buf);
		if (!ItemPointerEquals(&tmfd->ctid, target))
		{
			SnapshotData SnapshotDirty;
			TransactionId priorXmax;

			*tid = tmfd->ctid;
			target = tid;
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

				/*
				 * A main row: reached through a merge's link (an updated
				 * row's newer version was moved); its inserter is that
				 * merge.  qs_lock_one reads it through the delete map.
				 */
				if (qs_tid_is_virtual(tid))
					goto retry;

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
	qs_page_store_record(L, rel, buf, BufferGetPage(buf),
					ItemPointerGetOffsetNumber(target), slot, NULL);
	slot->tts_tableOid = RelationGetRelid(rel);
	ReleaseBuffer(buf);
	return result;
}
