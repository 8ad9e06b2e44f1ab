/*-------------------------------------------------------------------------
 *
 * vacuum.c
 *	  VACUUM of an engine table (relation_vacuum).
 *
 * Two passes over the table:
 *	1. under an exclusive lock per page, classify every record with heap's
 *	   HeapTupleSatisfiesVacuum, collect the TIDs of records dead to
 *	   everyone, and freeze: a committed xmin older than FreezeLimit gets
 *	   the frozen bits, an aborted or lock-only xmax older than FreezeLimit
 *	   is cleared (WAL: generic, one record per changed page); without
 *	   index cleanup a column table's dead main rows are marked dead
 *	   there too (no xid left: src/column/delmap.c, dm_mark_dead);
 *	2. delete the index entries of the dead TIDs (index_bulk_delete), then
 *	   per page mark those records unused and, when a cleanup lock is free
 *	   at once, compact the page (a PRUNE record, wal.c); a page
 *	   somebody keeps pinned only gets its slots freed (generic WAL), as
 *	   heap's second pass never waits either; then note its free space in
 *	   the FSM.
 * A page whose records are all visible to everyone gets PD_ALL_VISIBLE
 * in pass 1 or, once its dead records are gone, pass 2 (page_all_visible);
 * scans then skip the per-record visibility test, as heap's do.  After the
 * WAL record that set the flag, the page's visibility map bits are set
 * (vm.c): all-visible, and all-frozen when every record's xmin is frozen.
 * Pass 1 skips the pages whose bits say there is nothing to do, as
 * vacuumlazy.c does: runs of 32 or more all-visible pages, or all-frozen
 * ones when the VACUUM is aggressive (relfrozenxid or relminmxid old
 * enough, or FREEZE); none with DISABLE_PAGE_SKIPPING, and never the last
 * page (truncation looks at it).  A skipped all-visible page that is not all-frozen may
 * hold unfrozen xids, so relfrozenxid and relminmxid stay as they were;
 * reltuples is then estimated from the pages scanned
 * (vac_estimate_reltuples).  Column tables' non-row pages (metapage,
 * directory, runs) never get the flag or the bits.
 * Then index cleanup, truncation of empty tail pages (when the
 * AccessExclusiveLock is free), and new relpages/reltuples/relfrozenxid/
 * relminmxid (the oldest multixact left in an xmax, else OldestMxact).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/multixact.h"
#include "access/transam.h"
#include "access/visibilitymap.h"
#include "access/xlog.h"
#include "access/xact.h"
#include "catalog/storage.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "column/colam.h"
#include "merge/moved.h"
#include "merge/stubs.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "wal/genxlog.h"

/* skip only runs of at least this many pages (vacuumlazy.c's value) */
#define QS_SKIP_PAGES_THRESHOLD ((BlockNumber) 32)

typedef struct QsDeadTids
{
	ItemPointerData *tids;
	int			n;
	int			cap;
	uint32	   *ranges;			/* column tables: TID ranges dead */
	uint32	   *range_first;	/* from this row on */
	int			nranges;
} QsDeadTids;

static void
dead_add(QsDeadTids *d, BlockNumber blk, OffsetNumber off)
{
	if (d->n >= d->cap)
	{
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->tids = d->tids ? repalloc_huge(d->tids, sizeof(ItemPointerData) * d->cap)
			: palloc_extended(sizeof(ItemPointerData) * d->cap, MCXT_ALLOC_HUGE);
	}
	ItemPointerSet(&d->tids[d->n], blk, off);
	d->n++;
}

static int
tid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

static bool
qs_tid_reaped(ItemPointer itemptr, void *state)
{
	QsDeadTids *d = (QsDeadTids *) state;

	if (d->nranges > 0 && qs_tid_is_virtual(itemptr))
	{
		uint32		range,
					row;

		if (qs_virt_decode(itemptr, &range, &row))
			for (int i = 0; i < d->nranges; i++)
				if (d->ranges[i] == range && row >= d->range_first[i])
					return true;
	}
	return bsearch(itemptr, d->tids, d->n, sizeof(ItemPointerData), tid_cmp) != NULL;
}

/*
 * The slots of 'offs' the second pass may free, under its buffer lock.
 * Pass 1 listed DEAD slots and dead records it could not prune (column
 * tables' deltas, pages without a free cleanup lock: freed here directly),
 * and on a layout whose heap-only records take DEAD slots (layout.h,
 * heaponly_takes_dead) the TIDs of heap-only records, for their slots'
 * stale index entries.  The page was unlocked since, and an update may
 * have put its heap-only version in one of those DEAD slots.  So a slot
 * holding a heap-only record is never freed (it has no index entry; the
 * entries just removed were stale); every other listed slot is.
 */
static int
still_dead(const QsPageLayout *L, Page page, OffsetNumber *offs, int n)
{
	int			k = 0;

	for (int j = 0; j < n; j++)
	{
		QsRecordState st = qs_page_record_state(L, page, offs[j]);

		if (st == QS_REC_NORMAL)
		{
			HeapTupleHeaderData scratch;

			if (HeapTupleHeaderIsHeapOnly(qs_page_get_header(L, page, offs[j],
															 &scratch, NULL)))
				continue;
		}
		else if (st != QS_REC_DEAD)
			continue;
		offs[k++] = offs[j];
	}
	return k;
}

static void
track_xid(TransactionId xid, TransactionId *newfrozen)
{
	if (TransactionIdIsNormal(xid) && TransactionIdPrecedes(xid, *newfrozen))
		*newfrozen = xid;
}

static void
track_multi(MultiXactId multi, MultiXactId *newminmxid)
{
	if (MultiXactIdIsValid(multi) && MultiXactIdPrecedes(multi, *newminmxid))
		*newminmxid = multi;
}

/*
 * A record that stays as it is: its xids bound relfrozenxid/relminmxid,
 * whatever the hint bits say (an xmax hinted invalid still holds its
 * xid, and the hint is not WAL-logged: after a crash or on a promoted
 * standby the xid shows again), as heap_tuple_would_freeze reads it.
 */
static void
track_header(HeapTupleHeader h, TransactionId *newfrozen, MultiXactId *newminmxid)
{
	if (!HeapTupleHeaderXminFrozen(h))
		track_xid(HeapTupleHeaderGetRawXmin(h), newfrozen);
	if (h->t_infomask & HEAP_XMAX_INVALID)
	{
		if (h->t_infomask & HEAP_XMAX_IS_MULTI)
			track_multi(HeapTupleHeaderGetRawXmax(h), newminmxid);
		else
			track_xid(HeapTupleHeaderGetRawXmax(h), newfrozen);
		return;
	}
	if (h->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		track_multi(HeapTupleHeaderGetRawXmax(h), newminmxid);
		if (!HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask))
			track_xid(HeapTupleHeaderGetUpdateXid(h), newfrozen);
	}
	else
		track_xid(HeapTupleHeaderGetRawXmax(h), newfrozen);
}

/*
 * Would pass 1 freeze something on this page (an xmin, or an old xmax to
 * clear)?  heap_tuple_would_freeze's question, answered conservatively (a
 * yes that pass 1 would not act on only makes an aggressive VACUUM wait
 * for the cleanup lock).  The caller holds the page's lock.
 */
static bool
page_would_freeze(Relation rel, const QsPageLayout *L, Page page,
				  const QsVacuumCutoffs *cut)
{
	OffsetNumber maxoff = qs_page_max_offset(L, page);

	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleHeaderData scratch;
		HeapTupleHeader h;
		TransactionId xmax;

		if (qs_page_record_state(L, page, off) != QS_REC_NORMAL)
			continue;
		h = qs_page_get_header(L, page, off, &scratch, NULL);
		if (!HeapTupleHeaderXminFrozen(h) &&
			TransactionIdIsNormal(HeapTupleHeaderGetRawXmin(h)) &&
			TransactionIdPrecedes(HeapTupleHeaderGetRawXmin(h), cut->FreezeLimit))
			return true;
		xmax = HeapTupleHeaderGetRawXmax(h);
		if (h->t_infomask & HEAP_XMAX_IS_MULTI)
		{
			if (MultiXactIdIsValid(xmax) &&
				MultiXactIdPrecedes(xmax, cut->MultiXactCutoff))
				return true;
		}
		else if (TransactionIdIsNormal(xmax) &&
				 TransactionIdPrecedes(xmax, cut->FreezeLimit))
			return true;
	}
	return false;
}

/*
 * Pass 2 for main rows of a column table (virtual TIDs of one virtual
 * page: dead.tids is sorted, and the caller hands over the offsets of one
 * virtual block at a time, which is one delete-map page): their index
 * entries are gone, their delete-map entries are marked removed (no bytes
 * move, so an exclusive lock suffices).  Each entry is first checked to be
 * what pass 1 found, an entry DEAD to every snapshot or one an earlier
 * VACUUM without index cleanup marked dead (heap's pass 2 asserts
 * LP_DEAD): nothing revives such an entry and no merge runs
 * meanwhile, so one that is not means the page reached here is not the one
 * pass 1 read, and marking it would lose a row (review of r3b, helper-169
 * F5).  Checked before anything is written: a warning, and the page is
 * left as it was.
 */
static void
vacuum_delmap_entries(Relation rel, ItemPointer tid, OffsetNumber *offs,
					  int n, TransactionId rm_horizon, TransactionId OldestXmin)
{
	Buffer		buf = qs_coldelmap_buffer_any(rel, tid);
	QsGenXLogState *state;
	Page		wpage;

	if (!BufferIsValid(buf))
		return;					/* the block's version is gone */
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	for (int i = 0; i < n; i++)
	{
		QsRecordState st = qs_coldelmap_entry_state(BufferGetPage(buf), offs[i]);
		HeapTupleHeader h = qs_coldelmap_entry(BufferGetPage(buf), offs[i]);
		bool		dead = false;

		if (st == QS_REC_DEAD)
			dead = true;		/* marked by a VACUUM without index cleanup */
		else if (h != NULL)
		{
			HeapTupleData tup;

			tup.t_data = h;
			tup.t_len = SizeofHeapTupleHeader;
			ItemPointerSet(&tup.t_self, ItemPointerGetBlockNumber(tid), offs[i]);
			tup.t_tableOid = RelationGetRelid(rel);
			dead = HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf) == HEAPTUPLE_DEAD;
		}
		if (!dead)
		{
			/*
			 * A warning, and the page left as it is: an error would come
			 * back at every VACUUM (pass 1 finds the same entries), the
			 * anti-wraparound ones included (review of r3bfix, R1)
			 */
			ereport(WARNING,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("delete-map entry of main row (%u,%u) of \"%s\" on page %u is not dead in VACUUM's second pass",
							ItemPointerGetBlockNumber(tid), offs[i],
							RelationGetRelationName(rel),
							BufferGetBlockNumber(buf)),
					 errdetail("No entry of that delete-map page is marked unused.")));
			UnlockReleaseBuffer(buf);
			return;
		}
	}
	qs_log_conflict(rel, rm_horizon);
	state = qs_genxlog_start(rel);
	wpage = qs_genxlog_register(state, buf, 0);
	qs_coldelmap_layout.mark_unused(wpage, offs, n);
	qs_genxlog_finish(state);
	UnlockReleaseBuffer(buf);
}

/*
 * page_all_visible
 *		For pass 2, after dead records were removed (pass 1 decides from
 *		HeapTupleSatisfiesVacuum's verdicts as it goes):
 *		whether every record of the exclusively locked 'page' is visible to
 *		every snapshot, present and future, so that PD_ALL_VISIBLE may be set:
 *		no dead slot, and every record's inserter committed (hinted, as heap
 *		requires: an asynchronous commit not yet flushed gets no hint) before
 *		OldestXmin, and no xmax (HEAP_XMAX_INVALID: none, an aborted updater
 *		or a finished locker, as HeapTupleSatisfiesVacuum hints them).
 *		Decided from header bits alone, so that it may run in a critical
 *		section.
 */
static bool
page_all_visible(const QsPageLayout *L, Page page, TransactionId OldestXmin,
				 bool *dense, bool *all_frozen, TransactionId *cutoff)
{
	OffsetNumber maxoff;

	L = qs_page_layout(L, page);	/* an NSM page of a PAX/HPL table */
	if (L == &qs_colpage_layout)
		return false;			/* a column table's non-row page */
	maxoff = L->max_offset(page);
	*dense = true;
	*all_frozen = true;
	*cutoff = InvalidTransactionId;
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleHeaderData scratch;
		HeapTupleHeader h;
		QsRecordState st = L->record_state(page, off);

		if (st == QS_REC_UNUSED || st == QS_REC_REDIRECT)
		{
			/* a redirect is no record: scans must read the slots */
			*dense = false;
			continue;
		}
		if (st != QS_REC_NORMAL)
			return false;
		h = L->get_header(page, off, &scratch, NULL);
		if (!HeapTupleHeaderXminCommitted(h) ||
			!(h->t_infomask & HEAP_XMAX_INVALID) ||
			HeapTupleHeaderIsSpeculative(h))
			return false;
		if (TransactionIdIsValid(HeapTupleHeaderGetRawXmax(h)))
			*all_frozen = false;	/* an xid left in xmax */
		if (!HeapTupleHeaderXminFrozen(h))
		{
			TransactionId xmin = HeapTupleHeaderGetXmin(h);

			if (!TransactionIdPrecedes(xmin, OldestXmin))
				return false;
			*all_frozen = false;
			if (TransactionIdIsNormal(xmin) &&
				(!TransactionIdIsValid(*cutoff) ||
				 TransactionIdFollows(xmin, *cutoff)))
				*cutoff = xmin;
		}
	}
	return true;
}

/*
 * May VACUUM set the flag at all?  Not while old_snapshot_threshold is
 * active (PG 15/16): its OldestXmin may pass live snapshots, which would
 * then see rows inserted after them on a flagged page (and the engine has
 * no "snapshot too old" test).
 */
static bool
qs_allvis_allowed(void)
{
#if PG_VERSION_NUM < 170000
	return !OldSnapshotThresholdActive();
#else
	return true;
#endif
}

/*
 * set_all_visible
 *		PD_ALL_VISIBLE on 'page' (of the current WAL-logged change) when
 *		page_all_visible says so.  With it PD_HAS_FREE_LINES says whether
 *		some slot up to max_offset is unused (its heap meaning): while the
 *		flag stays, the set of NORMAL records cannot change (every write
 *		that could change it clears the flag, and pruning finds nothing dead
 *		on such a page), so a flagged page without free slots lets a scan
 *		take offsets 1..max_offset without reading a slot.
 *		Returns the visibility map bits to set once the change is logged
 *		(0: none), and in *cutoff the newest xmin not frozen.
 */
static uint8
set_all_visible(const QsPageLayout *L, Page page, TransactionId OldestXmin,
				TransactionId *cutoff)
{
	bool		dense;
	bool		all_frozen;

	*cutoff = InvalidTransactionId;
	if (PageIsAllVisible(page) || !qs_allvis_allowed() ||
		!page_all_visible(L, page, OldestXmin, &dense, &all_frozen, cutoff))
		return 0;
	if (dense)
		PageClearHasFreeLinePointers(page);
	else
		PageSetHasFreeLinePointers(page);
	PageSetAllVisible(page);
	return VISIBILITYMAP_ALL_VISIBLE | (all_frozen ? VISIBILITYMAP_ALL_FROZEN : 0);
}

void
qs_vacuum_rel(Relation rel, struct VacuumParams *params,
			  BufferAccessStrategy bstrategy)
{
	qs_vacuum_rel_ext(rel, params, bstrategy, InvalidTransactionId, 0);
}

/*
 * qs_vacuum_rel_ext
 *		Column tables (src/column/am.c): 'frozen_bound', when valid, caps the
 *		new relfrozenxid (xids of the table kept outside the pages this pass
 *		visits: directory entries, delete-map pages made while it runs);
 *		'main_rows' are the rows of the table's blocks, counted into
 *		reltuples with their delete-map entries' verdicts (the entries
 *		themselves are not counted: most main rows have none).
 */
void
qs_vacuum_rel_ext(Relation rel, struct VacuumParams *params,
				  BufferAccessStrategy bstrategy, TransactionId frozen_bound,
				  double main_rows)
{
	double		main_gone = 0;
	const QsPageLayout *L = qs_layout_of(rel);
	QsVacuumCutoffs cut;
	TransactionId newfrozen;
	MultiXactId newminmxid;
	BlockNumber nblocks,
				new_nblocks;
	BlockNumber last_nonempty = InvalidBlockNumber;
	QsDeadTids dead = {0};
	double		live = 0,
				recently_dead = 0;
	int			nindexes;
	Relation   *Irel;
	IndexBulkDeleteResult **istats;
	bool		do_index = true;
	bool		emptied_tail_candidate = false;
	TransactionId rm_horizon = InvalidTransactionId;
	TimestampTz starttime = GetCurrentTimestamp();
	bool		aggressive;
	bool		hot;
	bool		noprune;
	bool		skipping;
	bool		skipped_allvis = false; /* skipped a page not all-frozen */
	BlockNumber scanned = 0;
	BlockNumber next_unskippable = 0;	/* pages before it were looked up */
	BlockNumber skip_until = 0; /* skip the pages before it */
	BlockNumber allvis,
				allfrozen;
	double		reltuples;
	Buffer		vmbuf = InvalidBuffer;
	QsStubLocks stub_locks = {0};

	aggressive = qs_vacuum_get_cutoffs(rel, params, &cut);
	/* HOT chains: row tables of a layout with them (never column tables) */
	hot = L->mark_redirect != NULL && !qs_is_column_rel(rel);
	skipping = !(params->options & VACOPT_DISABLE_PAGE_SKIPPING);
	newfrozen = cut.OldestXmin;
	newminmxid = cut.OldestMxact;

	vac_open_indexes(rel, RowExclusiveLock, &nindexes, &Irel);
	istats = palloc0(sizeof(IndexBulkDeleteResult *) * Max(nindexes, 1));
	if (nindexes > 0 && params->index_cleanup == VACOPTVALUE_DISABLED)
		do_index = false;

	nblocks = RelationGetNumberOfBlocks(rel);

	/* pass 1: classify and freeze */
	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		page;
		OffsetNumber maxoff;
		OffsetNumber tofreeze[MaxHeapTuplesPerPage];
		bool		frz_xmin[MaxHeapTuplesPerPage + 1] = {0};
		bool		clr_xmax[MaxHeapTuplesPerPage + 1] = {0};
		int			nfreeze = 0;
		OffsetNumber tokill[MaxHeapTuplesPerPage];
		int			nkill = 0;
		TransactionId kill_horizon = InvalidTransactionId;
		bool		nonempty = false;
		bool		pv_ok = true;	/* every record visible to all */
		bool		pv_dense = true;	/* and no unused slot */
		bool		pv_frozen = true;	/* and every xmin frozen after this pass */
		TransactionId pv_cutoff = InvalidTransactionId; /* newest xmin not
														 * frozen */
		bool		setvis;
		bool		allvis_ok = qs_allvis_allowed();
		int			ndead_before = dead.n;
		const QsPageLayout *PL;
		BlockNumber tblk;
		uint8		vmstatus;

		qs_vacuum_delay_point();

		/*
		 * Skip the pages the visibility map says need nothing, as
		 * lazy_scan_skip does: an all-visible page has no dead slot and
		 * nothing VACUUM could remove, an all-frozen one also nothing to
		 * freeze.  Only runs of at least QS_SKIP_PAGES_THRESHOLD such pages
		 * (heap's SKIP_PAGES_THRESHOLD): shorter ones are read anyway, which
		 * keeps reads sequential and lets relfrozenxid advance.  Never the
		 * last page.
		 */
		if (skipping && blk >= next_unskippable)
		{
			BlockNumber n = blk;
			bool		run_allvis = false;

			while (n + 1 < nblocks)
			{
				uint8		st = visibilitymap_get_status(rel, n, &vmbuf);

				if ((st & (aggressive ? VISIBILITYMAP_ALL_FROZEN :
						   VISIBILITYMAP_ALL_VISIBLE)) == 0)
					break;
				if (!(st & VISIBILITYMAP_ALL_FROZEN))
					run_allvis = true;
				n++;
			}
			next_unskippable = n;
			if (n - blk >= QS_SKIP_PAGES_THRESHOLD)
			{
				skip_until = n;
				if (run_allvis)
					skipped_allvis = true;
			}
		}
		if (blk < skip_until)
		{
			last_nonempty = blk;	/* not known to be empty */
			continue;
		}
		scanned++;

		/* the map page, before the lock: this may read or extend the map */
		visibilitymap_pin(rel, blk, &vmbuf);
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, bstrategy);
		page = BufferGetPage(buf);

		/*
		 * A layout with HOT chains: prune them first (lazy_scan_prune), with
		 * the cutoff the records are classified by below, so that dead
		 * chain members are gone (heap-only ones UNUSED, roots REDIRECT or
		 * DEAD) and no HOT chain is cut in pass 2.  Only with a free cleanup
		 * lock; otherwise the chains stay as they are (lazy_scan_noprune):
		 * dead records in them are left for a later pass.
		 */
		noprune = false;
		if (hot && ConditionalLockBufferForCleanup(buf))
		{
			if (!PageIsNew(page) && !qs_is_column_page(page))
				qs_prune_page(rel, L, buf, NULL, cut.OldestXmin);
		}
		else
		{
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			noprune = hot && !PageIsNew(page) && !qs_is_column_page(page);

			/*
			 * Not pruned: nothing is frozen either (lazy_scan_noprune), since
			 * a chain's dead start stays while its live heap-only member
			 * would get a frozen xmin, which no chain walk would match with
			 * the start's updater any more (review of hot3, C1).  An
			 * aggressive VACUUM that has something to freeze waits for the
			 * cleanup lock instead, as PG 15's lazy_scan_noprune makes
			 * heap's do (review M1).
			 */
			if (noprune && aggressive && page_would_freeze(rel, L, page, &cut))
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				LockBufferForCleanup(buf);
				qs_prune_page(rel, L, buf, NULL, cut.OldestXmin);
				noprune = false;
			}
		}
		if (PageIsNew(page))
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		/* what the map says now, under the page's lock */
		vmstatus = visibilitymap_get_status(rel, blk, &vmbuf);
		if ((vmstatus & VISIBILITYMAP_ALL_VISIBLE) && !PageIsAllVisible(page))
		{
			/* as lazy_scan_prune: a bit without the flag is corruption */
			ereport(WARNING,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("page is not marked all-visible but visibility map bit is set in relation \"%s\" page %u",
							RelationGetRelationName(rel), blk)));
			qs_vm_clear_bits(rel, blk, vmbuf);
			vmstatus = 0;
		}
		/* a column table's non-row page: never flagged (no records) */
		if (qs_page_layout(L, page) == &qs_colpage_layout)
			allvis_ok = false;

		/*
		 * A column table's delete-map page: its entries are the headers of
		 * main rows, with the virtual TIDs of its page, classified and
		 * frozen as records (never all-visible, no free space).
		 */
		PL = L;
		tblk = blk;
		if (qs_coldelmap_page_info(page, NULL, &tblk, NULL))
			PL = &qs_coldelmap_layout;
		maxoff = qs_page_max_offset(PL, page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			HeapTupleData tup;
			HeapTupleHeaderData scratch;
			uint32		len;
			HeapTupleHeader h;
			bool		freeze = false;
			HTSV_Result status;
			QsRecordState st = qs_page_record_state(PL, page, off);

			if (st == QS_REC_DEAD)
			{
				nonempty = true;
				pv_ok = false;
				/* a main row marked dead without index cleanup: gone */
				if (PL != L)
					main_gone += 1;
				if (do_index)
					dead_add(&dead, tblk, off);
				continue;
			}
			if (st == QS_REC_REDIRECT)
			{
				/* index entries point here: kept, never vacuumed */
				nonempty = true;
				pv_dense = false;
				continue;
			}
			if (st != QS_REC_NORMAL)
			{
				pv_dense = false;
				/* a main row an earlier VACUUM removed: not in reltuples */
				if (PL != L)
					main_gone += 1;
				continue;
			}
			nonempty = true;
			h = qs_page_get_header(PL, page, off, &scratch, &len);
			tup.t_data = h;
			tup.t_len = len;
			ItemPointerSet(&tup.t_self, tblk, off);
			tup.t_tableOid = RelationGetRelid(rel);
			status = HeapTupleSatisfiesVacuum(&tup, cut.OldestXmin, buf);
			/*
			 * A merge's dead moved version stays while a SIREAD lock names
			 * it or its page (stubs.c; the lock table read once, after
			 * OldestXmin)
			 */
			if (status == HEAPTUPLE_DEAD && qs_header_moved(h) &&
				qs_stub_locked(rel, &stub_locks, tblk, off,
							   HeapTupleHeaderGetRawXmax(h)))
				status = HEAPTUPLE_RECENTLY_DEAD;

			/*
			 * A heap-only record may sit in a DEAD slot it took (layout.h,
			 * heaponly_takes_dead), which stale index entries still name.
			 * No index entry names a heap-only record, so its TID joins the
			 * dead ones: the index pass removes the stale entries.  Until
			 * then the page must not be all-visible (an index-only scan
			 * would return their keys): pass 2 sets it, after that pass.
			 * A page flagged all-visible has no stale entry (taking a DEAD
			 * slot clears the flag; no DEAD slot is on a flagged page; the
			 * flag is set only with no heap-only record or after the index
			 * pass): skipped, so that it is frozen and its map bits set as
			 * any page (review of hplhot, F1).
			 */
			if (L->heaponly_takes_dead && PL == L && nindexes > 0 &&
				!PageIsAllVisible(page) && HeapTupleHeaderIsHeapOnly(h))
			{
				pv_ok = false;
				if (do_index)
					dead_add(&dead, tblk, off);
			}
			if (PL != L)
			{
				/* a main row: counted in main_rows, unless gone */
				if (status == HEAPTUPLE_DEAD || status == HEAPTUPLE_RECENTLY_DEAD)
					main_gone += 1;
				if (status == HEAPTUPLE_RECENTLY_DEAD)
					recently_dead += 1;
			}
			else if (status == HEAPTUPLE_LIVE)
				live += 1;
			else if (status == HEAPTUPLE_RECENTLY_DEAD)
				recently_dead += 1;
			switch (status)
			{
				case HEAPTUPLE_DEAD:
					if (HeapTupleHeaderIsHeapOnly(h) ||
						HeapTupleHeaderIsHotUpdated(h))
					{
						/*
						 * Part of a HOT chain pruning could not reach (no
						 * cleanup lock): a heap-only record has no index
						 * entry to remove, and a chain's dead start must
						 * become a redirect, not a free slot.  Left for a
						 * later prune.
						 */
						pv_ok = false;
						track_header(h, &newfrozen, &newminmxid);
						break;
					}
					QS_HeapTupleHeaderAdvanceConflictHorizon(h, &rm_horizon);
					if (do_index)
						dead_add(&dead, tblk, off);
					else if (PL != L)
					{
						/*
						 * A main row without index cleanup: its index
						 * entries stay, so its entry must stay too, but
						 * as heap's pruning leaves an LP_DEAD item, it is
						 * marked dead with no xid (delmap.c, dm_mark_dead)
						 * and bounds neither relfrozenxid nor relminmxid.
						 * A later VACUUM with index cleanup collects it.
						 */
						QS_HeapTupleHeaderAdvanceConflictHorizon(h, &kill_horizon);
						tokill[nkill++] = off;
					}
					else
						track_header(h, &newfrozen, &newminmxid);
					break;
				case HEAPTUPLE_LIVE:
				case HEAPTUPLE_RECENTLY_DEAD:
					{
						TransactionId xmin = HeapTupleHeaderGetXmin(h);
						TransactionId xmax = HeapTupleHeaderGetRawXmax(h);
						uint16		im = h->t_infomask;

						/* xmin is committed here */
						if (!HeapTupleHeaderXminFrozen(h) && TransactionIdIsNormal(xmin))
						{
							if (TransactionIdPrecedes(xmin, cut.FreezeLimit))
								frz_xmin[off] = freeze = true;
							else
								track_xid(xmin, &newfrozen);
						}

						/*
						 * xmax of a LIVE record is an aborted updater or a
						 * locker (a multixact of lockers): cleared when old or
						 * finished; of a RECENTLY_DEAD one a committed updater
						 * newer than OldestXmin: kept.
						 */
						if (im & HEAP_XMAX_INVALID)
						{
							/*
							 * Hinted invalid (an aborted updater, a finished
							 * locker), but the xid is still there, and the
							 * hint is not WAL-logged: cleared once older than
							 * the cutoff, as heap_prepare_freeze_tuple does,
							 * else it bounds relfrozenxid/relminmxid.
							 */
							if (im & HEAP_XMAX_IS_MULTI)
							{
								if (!MultiXactIdIsValid(xmax))
									;
								else if (MultiXactIdPrecedes(xmax, cut.MultiXactCutoff))
									clr_xmax[off] = freeze = true;
								else
									track_multi(xmax, &newminmxid);
							}
							else if (TransactionIdIsNormal(xmax))
							{
								if (TransactionIdPrecedes(xmax, cut.FreezeLimit))
									clr_xmax[off] = freeze = true;
								else
									track_xid(xmax, &newfrozen);
							}
						}
						else if (im & HEAP_XMAX_IS_MULTI)
						{
							if (status == HEAPTUPLE_LIVE &&
								!MultiXactIdIsRunning(xmax, HEAP_XMAX_IS_LOCKED_ONLY(im)))
								clr_xmax[off] = freeze = true;
							else
							{
								track_multi(xmax, &newminmxid);
								if (!HEAP_XMAX_IS_LOCKED_ONLY(im))
									track_xid(HeapTupleHeaderGetUpdateXid(h), &newfrozen);
							}
						}
						else if (TransactionIdIsNormal(xmax))
						{
							if (status == HEAPTUPLE_LIVE &&
								TransactionIdPrecedes(xmax, cut.FreezeLimit))
								clr_xmax[off] = freeze = true;
							else
								track_xid(xmax, &newfrozen);
						}
					}
					break;
				case HEAPTUPLE_INSERT_IN_PROGRESS:
				case HEAPTUPLE_DELETE_IN_PROGRESS:
					track_header(h, &newfrozen, &newminmxid);
					if (PL == L)
						live += 1;
					break;
			}

			if (noprune && freeze)
			{
				/*
				 * Not pruned: not frozen (above); the xids left bound
				 * relfrozenxid, a hinted-invalid xmax that would have been
				 * cleared included (review of hotpax, M-A)
				 */
				frz_xmin[off] = clr_xmax[off] = freeze = false;
				track_header(h, &newfrozen, &newminmxid);
			}

			/*
			 * Visible to all: inserted by a committed transaction (LIVE says
			 * so, from the commit log) older than every snapshot, and no xmax
			 * left after this pass (none, an aborted updater, a finished
			 * locker: HeapTupleSatisfiesVacuum hints those invalid).
			 */
			if (status != HEAPTUPLE_LIVE ||
				HeapTupleHeaderIsSpeculative(h) ||
				(!HeapTupleHeaderXminFrozen(h) &&
				 !TransactionIdPrecedes(HeapTupleHeaderGetXmin(h), cut.OldestXmin)) ||
				(!(h->t_infomask & HEAP_XMAX_INVALID) && !clr_xmax[off]))
				pv_ok = false;
			else
			{
				/*
				 * All-frozen after this pass: xmin frozen (now or before) and
				 * no xid left in xmax (heap's "totally frozen"; an aborted
				 * xmax that is only hinted invalid still holds an xid).
				 */
				if (TransactionIdIsValid(HeapTupleHeaderGetRawXmax(h)) &&
					!clr_xmax[off])
					pv_frozen = false;
				if (!HeapTupleHeaderXminFrozen(h))
				{
					TransactionId xmin = HeapTupleHeaderGetXmin(h);

					if (!frz_xmin[off])
						pv_frozen = false;
					if (TransactionIdIsNormal(xmin) &&
						(!TransactionIdIsValid(pv_cutoff) ||
						 TransactionIdFollows(xmin, pv_cutoff)))
						pv_cutoff = xmin;
				}
			}
			if (tup.t_data == &scratch)
				qs_page_set_header(PL, page, off, &scratch);
			if (freeze)
				tofreeze[nfreeze++] = off;
		}
		/*
		 * Freeze, and set PD_ALL_VISIBLE when the page (frozen as it will be)
		 * qualifies, in one WAL record.  Unlike heap, an inserter whose
		 * asynchronous commit is not flushed yet (no hint bit) does not keep
		 * the flag off: this WAL record follows the commit record, so the
		 * flag cannot reach disk without the commit.
		 */
		setvis = pv_ok && allvis_ok && !PageIsAllVisible(page);
		if (nfreeze > 0 || setvis || nkill > 0)
		{
			QsGenXLogState *state;
			Page		wpage;
			TransactionId frz_horizon = InvalidTransactionId;

			for (int i = 0; i < nfreeze; i++)
			{
				HeapTupleHeaderData scratch;
				HeapTupleHeader h = qs_page_get_header(PL, page, tofreeze[i], &scratch, NULL);
				TransactionId xmin = HeapTupleHeaderGetXmin(h);

				if (frz_xmin[tofreeze[i]] &&
					(!TransactionIdIsValid(frz_horizon) ||
					 TransactionIdFollows(xmin, frz_horizon)))
					frz_horizon = xmin;
			}
			if (nfreeze > 0)
				qs_log_conflict(rel, frz_horizon);

			/*
			 * Rows marked dead vanish for standby snapshots that still see
			 * them too: cancelled first, as by heap's prune record
			 */
			if (nkill > 0)
				qs_log_conflict(rel, kill_horizon);
			state = qs_genxlog_start(rel);
			wpage = qs_genxlog_register(state, buf, 0);

			for (int i = 0; i < nfreeze; i++)
			{
				HeapTupleHeaderData scratch;
				OffsetNumber off = tofreeze[i];
				HeapTupleHeader h = qs_page_get_header(PL, wpage, off, &scratch, NULL);

				if (frz_xmin[off])
					HeapTupleHeaderSetXminFrozen(h);
				if (clr_xmax[off])
				{
					h->t_infomask &= ~HEAP_XMAX_BITS;
					h->t_infomask |= HEAP_XMAX_INVALID;
					h->t_infomask2 &= ~HEAP_KEYS_UPDATED;
					/* an aborted updater's HOT link goes with it */
					HeapTupleHeaderClearHotUpdated(h);
					HeapTupleHeaderSetXmax(h, InvalidTransactionId);
				}
				qs_page_set_header(PL, wpage, off, h);
			}
			/* in the same record as the freezing (PL is the delete map's) */
			if (nkill > 0)
				qs_coldelmap_layout.mark_dead(wpage, tokill, nkill);
			if (setvis)
			{
				/* see set_all_visible */
				if (pv_dense)
					PageClearHasFreeLinePointers(wpage);
				else
					PageSetHasFreeLinePointers(wpage);
				PageSetAllVisible(wpage);
			}
			qs_genxlog_finish(state);
		}

		/*
		 * The map bits, after the record that flagged the page: all-visible,
		 * all-frozen too when no xmin is left unfrozen.  Also for a page
		 * flagged before whose bits are missing (a crash between the two
		 * records, a bit cleared by an aborted change, a table flagged
		 * before the map existed), and for an all-visible page whose
		 * records this pass froze.
		 */
		if (pv_ok && allvis_ok && PageIsAllVisible(page))
		{
			uint8		flags = VISIBILITYMAP_ALL_VISIBLE;

			if (pv_frozen)
				flags |= VISIBILITYMAP_ALL_FROZEN;
			if ((vmstatus & flags) != flags)
				qs_vm_set(rel, buf, vmbuf, pv_cutoff, flags);
		}
		if (nonempty)
			last_nonempty = blk;
		/* pass 2 records the free space of the pages it visits */
		if (dead.n == ndead_before && PL == L)
			RecordPageWithFreeSpace(rel, blk, qs_page_free_space(L, page));
		UnlockReleaseBuffer(buf);
	}

	/*
	 * Live rows of the whole table: estimated when pages were skipped; a
	 * column table's main rows, less those its delete maps say are gone.
	 */
	reltuples = scanned < nblocks ?
		vac_estimate_reltuples(rel, nblocks, scanned, live) : live;
	reltuples += Max(main_rows - main_gone, 0);

	/*
	 * A column table's blocks whose writer aborted or crashed (a load, or
	 * a merge) are RETIRED by the directory's freeze: every row of their
	 * TID ranges is dead to everybody, and their index entries go now,
	 * once (the entry is flagged).
	 */
	if (qs_is_column_rel(rel))
		qs_coldir_retired_ranges(rel, &dead.ranges, &dead.range_first,
								 &dead.nranges);

	/* pass 2: indexes, then the records */
	if (dead.n > 0 || dead.nranges > 0)
	{
		/*
		 * Standbys first: a query there that still sees a record we remove
		 * must be cancelled before its index entries go (heap's pass 1
		 * prune record carries this conflict before index vacuuming; btree's
		 * vacuum records carry none).  Logged again per page below.
		 */
		qs_log_conflict(rel, rm_horizon);
		qsort(dead.tids, dead.n, sizeof(ItemPointerData), tid_cmp);
		for (int i = 0; i < nindexes; i++)
		{
			IndexVacuumInfo iv;

			memset(&iv, 0, sizeof(iv));
			iv.index = Irel[i];
			QS_IVINFO_SET_HEAPREL(iv, rel);
			iv.analyze_only = false;
			iv.report_progress = false;
			iv.estimated_count = true;
			iv.message_level = DEBUG2;
			iv.num_heap_tuples = reltuples + recently_dead;
			iv.strategy = bstrategy;
			istats[i] = index_bulk_delete(&iv, istats[i], qs_tid_reaped, &dead);
		}
		if (dead.nranges > 0)
			qs_coldir_ranges_cleaned(rel, dead.ranges, dead.nranges);
		for (int i = 0; i < dead.n;)
		{
			BlockNumber blk = ItemPointerGetBlockNumber(&dead.tids[i]);
			OffsetNumber offs[MaxHeapTuplesPerPage];
			int			n = 0;
			Buffer		buf;
			Page		page;
			uint8		vmflags;
			TransactionId vmcutoff;

			while (i < dead.n && ItemPointerGetBlockNumber(&dead.tids[i]) == blk)
				offs[n++] = ItemPointerGetOffsetNumber(&dead.tids[i++]);
			qs_vacuum_delay_point();
			if (blk >= QS_VIRT_BASE)
			{
				/* main rows of a column table: their delete-map entries */
				vacuum_delmap_entries(rel, &dead.tids[i - n], offs, n, rm_horizon,
									  cut.OldestXmin);
				continue;
			}
			visibilitymap_pin(rel, blk, &vmbuf);	/* before the lock */
			buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, bstrategy);
			page = BufferGetPage(buf);
			if (ConditionalLockBufferForCleanup(buf))
			{
				n = still_dead(L, page, offs, n);
				qs_page_prepare_compact(L, page);
				START_CRIT_SECTION();
				qs_prune_clear_hints(qs_page_layout(L, page), page, offs, n);
				qs_page_mark_unused(L, page, offs, n);
				qs_page_compact(L, page);
				/* its dead records gone, the page may be all-visible now */
				vmflags = set_all_visible(L, page, cut.OldestXmin, &vmcutoff);
				MarkBufferDirty(buf);
				qs_log_prune(rel, buf, rm_horizon, NULL, 0, NULL, 0, offs, n);
				END_CRIT_SECTION();
			}
			else
			{
				/*
				 * Somebody pins the page (a cursor may do so indefinitely):
				 * do not wait, as heap's second pass does not.  Free the
				 * slots without moving bytes; the next compaction
				 * (pruning, or a later VACUUM) reclaims their space.
				 */
				QsGenXLogState *state;
				Page		wpage;

				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				n = still_dead(L, page, offs, n);
				if (n == 0)
				{
					/* only heap-only records' TIDs: nothing to free */
					UnlockReleaseBuffer(buf);
					continue;
				}
				qs_log_conflict(rel, rm_horizon);
				state = qs_genxlog_start(rel);

				/*
				 * A full image (a rare path): the records' hint bits,
				 * cleared here, reach a standby whatever it set itself, so
				 * a later PRUNE replays onto the primary's bytes.
				 */
				wpage = qs_genxlog_register(state, buf, GENERIC_XLOG_FULL_IMAGE);
				qs_prune_clear_hints(qs_page_layout(L, wpage), wpage, offs, n);
				qs_page_mark_unused(L, wpage, offs, n);
				vmflags = set_all_visible(L, wpage, cut.OldestXmin, &vmcutoff);
				qs_genxlog_finish(state);
			}
			/* the map bits, after the record that flagged the page */
			if (vmflags != 0)
				qs_vm_set(rel, buf, vmbuf, vmcutoff, vmflags);
			RecordPageWithFreeSpace(rel, blk, qs_page_free_space(L, page));
			if (!qs_page_has_records(L, page))
				emptied_tail_candidate = true;
			UnlockReleaseBuffer(buf);
		}
	}

	/*
	 * A column table's sealed blocks whose every row is removed now (their
	 * index entries gone, above or in an earlier VACUUM) are retired, and
	 * their runs and delete maps go back to the delta once no backend may
	 * still read them (src/column/dir.c), before the tail is truncated.
	 */
	if (qs_is_column_rel(rel))
	{
		qs_debug_vacuum_point(QS_DEBUG_VACUUM_INDEXED);
		(void) qs_coldir_retire_emptied(rel);
		if (qs_coldir_reclaim(rel) > 0)
			emptied_tail_candidate = true;
		/* entries retired for good go; freed directory pages too */
		if (qs_coldir_compact(rel) > 0)
			emptied_tail_candidate = true;
	}

	/* no pin on a map page that truncation may drop */
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	vmbuf = InvalidBuffer;

	/* index cleanup and index statistics */
	for (int i = 0; i < nindexes; i++)
	{
		IndexVacuumInfo iv;

		if (!do_index)
			break;
		memset(&iv, 0, sizeof(iv));
		iv.index = Irel[i];
		QS_IVINFO_SET_HEAPREL(iv, rel);
		iv.analyze_only = false;
		iv.report_progress = false;
		iv.estimated_count = scanned < nblocks;
		iv.message_level = DEBUG2;
		iv.num_heap_tuples = reltuples + recently_dead;
		iv.strategy = bstrategy;
		istats[i] = index_vacuum_cleanup(&iv, istats[i]);
		if (istats[i] && !istats[i]->estimated_count)
			qs_vac_update_relstats(Irel[i], istats[i]->num_pages,
								   istats[i]->num_index_tuples, false,
								   InvalidTransactionId, InvalidMultiXactId);
	}

	/* truncate empty tail pages, re-checking under AccessExclusiveLock */
	new_nblocks = nblocks;
	if (params->truncate != VACOPTVALUE_DISABLED &&
		nblocks > 0 &&
		((last_nonempty == InvalidBlockNumber ? 0 : last_nonempty + 1) < nblocks ||
		 emptied_tail_candidate) &&
		ConditionalLockRelation(rel, AccessExclusiveLock))
	{
		BlockNumber cur = RelationGetNumberOfBlocks(rel);
		BlockNumber keep = cur;

		while (keep > 0)
		{
			Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, keep - 1,
												 RBM_NORMAL, bstrategy);
			Page		page;
			bool		empty = true;

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			empty = !qs_page_has_records(L, page);
			UnlockReleaseBuffer(buf);
			if (!empty)
				break;
			keep--;
		}
		if (keep < cur)
		{
			RelationTruncate(rel, keep);
			new_nblocks = keep;
		}
		UnlockRelation(rel, AccessExclusiveLock);
	}
	FreeSpaceMapVacuum(rel);

	/*
	 * relallvisible (and PG 18's relallfrozen) from the map, as heap counts
	 * them; reltuples estimated when pages were skipped; relfrozenxid and
	 * relminmxid kept when a skipped page may hold unfrozen xids, else
	 * capped by a column table's directory (frozen_bound).
	 */
	visibilitymap_count(rel, &allvis, &allfrozen);
	allvis = Min(allvis, new_nblocks);
	allfrozen = Min(allfrozen, allvis);
	if (skipped_allvis)
	{
		newfrozen = InvalidTransactionId;
		newminmxid = InvalidMultiXactId;
	}
	else if (TransactionIdIsNormal(frozen_bound) &&
			 TransactionIdPrecedes(frozen_bound, newfrozen))
		newfrozen = frozen_bound;
	qs_vac_update_relstats_vm(rel, new_nblocks, reltuples, allvis, allfrozen,
							  nindexes > 0, newfrozen, newminmxid);
	qs_pgstat_report_vacuum(rel, (PgStat_Counter) reltuples,
							(PgStat_Counter) recently_dead, starttime);

	vac_close_indexes(nindexes, Irel, NoLock);
	if (dead.tids)
		pfree(dead.tids);
	qs_stub_locks_free(&stub_locks);
	pfree(istats);
}
