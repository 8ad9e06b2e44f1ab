/*-------------------------------------------------------------------------
 *
 * prune.c
 *	  Opportunistic pruning, as heap_page_prune_opt: when a scan or an
 *	  index fetch reads a page that is nearly full and whose prune hint
 *	  says some delete or update is old enough, records dead to everyone
 *	  lose their storage (their slots stay, marked dead, for the index
 *	  entries that still point at them; VACUUM frees the slots).  Needs a
 *	  cleanup lock, taken only if free.  Dead means heap's
 *	  HeapTupleSatisfiesVacuumHorizon says so against the removable horizon
 *	  (multixact xmaxes included).
 *
 *	  Also the hot-standby conflict record written before records are
 *	  removed or xids frozen (used by VACUUM too).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/heapam.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "merge/moved.h"
#include "merge/stubs.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "wal/genxlog.h"

/*
 * qs_prune_clear_hints
 *		Clear the commit hint bits of records about to be marked dead or
 *		unused.  A slot keeps its fixed fields in PAX and HPL pages, and hint bits
 *		are set without WAL, so the primary's dead slots would carry hints a
 *		standby's lack; cleared on both sides before mark_dead/mark_unused
 *		(pruning, VACUUM and their redo), the replayed page equals the primary's byte for byte
 *		outside the masked parts (wal.c qs_rmgr_mask).  Nobody reads a dead
 *		slot's header.
 */
void
qs_prune_clear_hints(const QsPageLayout *L, Page page,
					 const OffsetNumber *offs, int n)
{
	for (int i = 0; i < n; i++)
	{
		HeapTupleHeaderData scratch;
		HeapTupleHeader h;
		uint32		len;

		if (L->record_state(page, offs[i]) != QS_REC_NORMAL)
			continue;
		h = L->get_header(page, offs[i], &scratch, &len);
		h->t_infomask &= ~(HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID |
						   HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID);
		if (h == &scratch)
			L->set_header(page, offs[i], &scratch);
	}
}

/*
 * Per-page state of a chain prune: what becomes of each slot.
 */
typedef struct QsPruneState
{
	GlobalVisState *vistest;	/* opportunistic: removable by this */
	TransactionId oldest_xmin;	/* VACUUM: removable before this */
	TransactionId horizon;		/* newest xid removed */
	TransactionId newhint;		/* oldest updater not yet removable */
	int			nredirected;
	int			ndead;
	int			nunused;
	bool		keep_dead;		/* layout's heaponly_takes_dead */
	OffsetNumber redirected[MaxHeapTuplesPerPage * 2];
	OffsetNumber nowdead[MaxHeapTuplesPerPage];
	OffsetNumber nowunused[MaxHeapTuplesPerPage];
	uint8		states[MaxHeapTuplesPerPage + 1];	/* QsRecordState, before */
	bool		marked[MaxHeapTuplesPerPage + 1];
	int8		htsv[MaxHeapTuplesPerPage + 1]; /* -1: not a record */

	/*
	 * What prune_chain needs of each NORMAL record's header, read once by
	 * prune_classify after the hint bits it set (nothing else changes a
	 * header under the cleanup lock): PAX and HPL assemble a header per
	 * get_header call, and every chain read its members' headers again.
	 */
	uint8		hot[MaxHeapTuplesPerPage + 1];	/* PRUNE_HEAP_ONLY, PRUNE_HOT_UPDATED */
	TransactionId xmin[MaxHeapTuplesPerPage + 1];	/* HeapTupleHeaderGetXmin */
	/* of a HOT-updated record: its updater, and its successor on the page */
	TransactionId updxid[MaxHeapTuplesPerPage + 1];
	OffsetNumber next[MaxHeapTuplesPerPage + 1];	/* invalid: another page */
} QsPruneState;

#define PRUNE_HEAP_ONLY		0x01	/* HeapTupleHeaderIsHeapOnly */
#define PRUNE_HOT_UPDATED	0x02	/* HeapTupleHeaderIsHotUpdated */

static void
prune_record_redirect(QsPruneState *ps, OffsetNumber from, OffsetNumber to)
{
	ps->redirected[ps->nredirected * 2] = from;
	ps->redirected[ps->nredirected * 2 + 1] = to;
	ps->nredirected++;
	ps->marked[from] = true;
}

static void
prune_record_dead(QsPruneState *ps, OffsetNumber off)
{
	ps->nowdead[ps->ndead++] = off;
	ps->marked[off] = true;
}

/*
 * A heap-only record's slot: UNUSED as in heap, or DEAD on a layout whose
 * heap-only records take DEAD slots (layout.h, heaponly_takes_dead): the
 * slot may be a DEAD slot reused, which stale index entries still name, so
 * only VACUUM, after removing them, may make it UNUSED.
 */
static void
prune_record_unused(QsPruneState *ps, OffsetNumber off)
{
	if (ps->keep_dead)
		ps->nowdead[ps->ndead++] = off;
	else
		ps->nowunused[ps->nunused++] = off;
	ps->marked[off] = true;
}

/*
 * The status of every record, once, before any chain is followed (as
 * heap_page_prune computes prstate.htsv first): RECENTLY_DEAD records the
 * horizon test allows to remove count as DEAD.  Records whose update is not
 * removable yet give the page its next prune hint.
 */
static void
prune_classify(Relation rel, const QsPageLayout *L, Buffer buf, Page page,
			   OffsetNumber maxoff, QsPruneState *ps)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	OffsetNumber stubs[MaxHeapTuplesPerPage];
	int			nstubs = 0;

	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleData tup;
		HeapTupleHeaderData scratch;
		uint32		len;
		HTSV_Result res;
		TransactionId updxid;

		uint16		infomask;

		ps->htsv[off] = -1;
		if (ps->states[off] != QS_REC_NORMAL)
			continue;
		tup.t_data = L->get_header(page, off, &scratch, &len);
		infomask = tup.t_data->t_infomask;
		tup.t_len = len;
		ItemPointerSet(&tup.t_self, blkno, off);
		tup.t_tableOid = RelationGetRelid(rel);
		if (ps->vistest != NULL)
		{
			TransactionId dead_after = InvalidTransactionId;

			res = HeapTupleSatisfiesVacuumHorizon(&tup, buf, &dead_after);
			if (res == HEAPTUPLE_RECENTLY_DEAD &&
				GlobalVisTestIsRemovableXid(ps->vistest, dead_after))
				res = HEAPTUPLE_DEAD;
		}
		else
			res = HeapTupleSatisfiesVacuum(&tup, ps->oldest_xmin, buf);
		/* a merge's dead moved version: SIREAD locks decide, below */
		if (res == HEAPTUPLE_DEAD && qs_header_moved(tup.t_data))
			stubs[nstubs++] = off;
		ps->htsv[off] = (int8) res;
		updxid = InvalidTransactionId;
		if (res != HEAPTUPLE_DEAD &&
			!(tup.t_data->t_infomask & HEAP_XMAX_INVALID) &&
			!HEAP_XMAX_IS_LOCKED_ONLY(tup.t_data->t_infomask))
		{
			/* deleted or updated, not removable yet: keep a hint */
			TransactionId x = HeapTupleHeaderGetUpdateXid(tup.t_data);

			updxid = x;
			if (TransactionIdIsNormal(x) &&
				(!TransactionIdIsValid(ps->newhint) ||
				 TransactionIdPrecedes(x, ps->newhint)))
				ps->newhint = x;
		}
		/* what prune_chain reads, from the header it would read */
		ps->hot[off] = HeapTupleHeaderIsHeapOnly(tup.t_data) ? PRUNE_HEAP_ONLY : 0;
		ps->xmin[off] = HeapTupleHeaderGetXmin(tup.t_data);
		if (HeapTupleHeaderIsHotUpdated(tup.t_data))
		{
			ps->hot[off] |= PRUNE_HOT_UPDATED;
			/* the update xid of a HOT-updated record (computed above or now) */
			ps->updxid[off] = TransactionIdIsValid(updxid) ? updxid :
				HeapTupleHeaderGetUpdateXid(tup.t_data);
			ps->next[off] =
				ItemPointerGetBlockNumber(&tup.t_data->t_ctid) == blkno ?
				ItemPointerGetOffsetNumber(&tup.t_data->t_ctid) :
				InvalidOffsetNumber;
		}
		/* hint bits the visibility test set, into the page */
		if (tup.t_data == &scratch && scratch.t_infomask != infomask)
			L->set_header(page, off, &scratch);
	}

	/*
	 * A merge's dead moved version stays while a SIREAD lock names it or
	 * its page (src/merge/stubs.c): the lock table read now, after every
	 * record's horizon test.  Looked at again once the transactions
	 * running now have ended (the page's hint).
	 */
	if (nstubs > 0)
	{
		QsStubLocks locks = {0};
		bool		kept = false;

		for (int i = 0; i < nstubs; i++)
		{
			HeapTupleHeaderData scratch;
			HeapTupleHeader h = L->get_header(page, stubs[i], &scratch, NULL);

			if (qs_stub_locked(rel, &locks, blkno, stubs[i],
							   HeapTupleHeaderGetRawXmax(h)))
			{
				ps->htsv[stubs[i]] = HEAPTUPLE_RECENTLY_DEAD;
				kept = true;
			}
		}
		if (kept)
		{
			TransactionId next = ReadNextTransactionId();

			if (!TransactionIdIsValid(ps->newhint) ||
				TransactionIdPrecedes(next, ps->newhint))
				ps->newhint = next;
		}
		qs_stub_locks_free(&locks);
	}
}

/* the conflict horizon of a record removed (its header, read again) */
static void
prune_advance_horizon(const QsPageLayout *L, Page page, OffsetNumber off,
					  QsPruneState *ps)
{
	HeapTupleHeaderData scratch;

	QS_HeapTupleHeaderAdvanceConflictHorizon(L->get_header(page, off, &scratch, NULL),
											 &ps->horizon);
}

/*
 * prune_chain
 *		heap_prune_chain (pruneheap.c, PG 15) on the layout: follow the HOT
 *		chain from the root 'root' (a record that is not heap-only, or a
 *		REDIRECT); the dead versions at its start lose their storage: the
 *		heap-only ones become UNUSED (no index entry names them), the root
 *		becomes a REDIRECT to the first member still needed, or DEAD when
 *		none is (its index entries remain until VACUUM).  A dead heap-only
 *		record reached from no root (its inserter aborted) becomes UNUSED.
 */
static void
prune_chain(const QsPageLayout *L, Page page, OffsetNumber maxoff,
			OffsetNumber root, QsPruneState *ps)
{
	OffsetNumber chain[MaxHeapTuplesPerPage];
	int			nchain = 0;
	OffsetNumber off = root;
	OffsetNumber latestdead = InvalidOffsetNumber;
	TransactionId priorxmax = InvalidTransactionId;
	QsRecordState rootst = ps->states[root];
	int			i;

	if (rootst == QS_REC_NORMAL && (ps->hot[root] & PRUNE_HEAP_ONLY))
	{
		/* reached through its root, or an orphan: see above */
		if (ps->htsv[root] == HEAPTUPLE_DEAD &&
			!(ps->hot[root] & PRUNE_HOT_UPDATED))
		{
			prune_record_unused(ps, root);
			prune_advance_horizon(L, page, root, ps);
		}
		return;
	}

	for (;;)
	{
		QsRecordState st;
		bool		tupdead = false;
		bool		recentdead = false;

		if (off < FirstOffsetNumber || off > maxoff)
			break;
		if (ps->marked[off])
			break;				/* already handled: not this chain */
		st = ps->states[off];
		if (st == QS_REC_UNUSED || st == QS_REC_DEAD)
			break;
		if (st == QS_REC_REDIRECT)
		{
			if (nchain > 0)
				break;			/* only a root redirects */
			chain[nchain++] = off;
			off = L->redirect_target(page, off);
			continue;
		}
		if (TransactionIdIsValid(priorxmax) &&
			!TransactionIdEquals(ps->xmin[off], priorxmax))
			break;				/* not the version the chain goes on to */
		chain[nchain++] = off;
		switch ((HTSV_Result) ps->htsv[off])
		{
			case HEAPTUPLE_DEAD:
				tupdead = true;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				recentdead = true;
				break;
			default:
				break;
		}
		if (tupdead)
		{
			latestdead = off;
			prune_advance_horizon(L, page, off, ps);
		}
		else if (!recentdead)
			break;
		if (!(ps->hot[off] & PRUNE_HOT_UPDATED))
			break;
		if (!OffsetNumberIsValid(ps->next[off]))
			break;				/* HOT never leaves the page */
		priorxmax = ps->updxid[off];
		off = ps->next[off];
	}

	if (OffsetNumberIsValid(latestdead))
	{
		/* members after the root, up to the last dead one: unused */
		for (i = 1; i < nchain; i++)
		{
			if (chain[i - 1] == latestdead)
				break;
			prune_record_unused(ps, chain[i]);
		}
		if (i >= nchain)
			prune_record_dead(ps, root);
		else
			prune_record_redirect(ps, root, chain[i]);
	}
	else if (nchain < 2 && rootst == QS_REC_REDIRECT)
	{
		/* a redirect whose chain ends at once: its target is gone */
		prune_record_dead(ps, root);
	}
}

/*
 * qs_prune_execute
 *		Apply a prune to the page (primary and redo, the same calls in the
 *		same order: part of the WAL format): redirects, dead, unused, then
 *		compaction.  Inside a critical section, after prepare_compact.
 */
void
qs_prune_execute(const QsPageLayout *L, Page page,
				 const OffsetNumber *redirected, int nredirected,
				 const OffsetNumber *dead, int ndead,
				 const OffsetNumber *unused, int nunused)
{
	/*
	 * No hint bits to clear before mark_redirect: a REDIRECT keeps no header
	 * (NSM: a line pointer whose record compaction drops; PAX and HPL: its
	 * bytes depend on the target alone, src/page/README.md)
	 */
	for (int i = 0; i < nredirected; i++)
		L->mark_redirect(page, &redirected[i * 2], &redirected[i * 2 + 1], 1);
	if (ndead > 0)
	{
		qs_prune_clear_hints(L, page, dead, ndead);
		L->mark_dead(page, dead, ndead);
	}
	if (nunused > 0)
	{
		qs_prune_clear_hints(L, page, unused, nunused);
		L->mark_unused(page, unused, nunused);
	}
	L->compact(page);
}

/*
 * qs_prune_page
 *		Prune the page the caller holds a cleanup lock on: every HOT chain
 *		(prune_chain) and every dead record outside one, against 'vistest'
 *		(opportunistic pruning) or, when it is NULL, 'oldest_xmin' (VACUUM,
 *		whose pass 1 then classifies the records that remain with the same
 *		cutoff).  WAL-logs what it did; returns the number of slots changed.
 */
int
qs_prune_page(Relation rel, const QsPageLayout *L, Buffer buf,
			  GlobalVisState *vistest, TransactionId oldest_xmin)
{
	Page		page = BufferGetPage(buf);
	QsPruneState *ps = palloc(sizeof(QsPruneState));
	OffsetNumber maxoff;
	TransactionId hint = ((PageHeader) page)->pd_prune_xid;
	int			nchanged;

	/* the format cannot change under the cleanup lock: resolve it once */
	L = qs_page_layout(L, page);
	memset(ps->marked, 0, sizeof(ps->marked));
	ps->vistest = vistest;
	ps->oldest_xmin = oldest_xmin;
	ps->horizon = InvalidTransactionId;
	ps->newhint = InvalidTransactionId;
	ps->nredirected = ps->ndead = ps->nunused = 0;
	ps->keep_dead = L->heaponly_takes_dead;
	maxoff = L->max_offset(page);

	/*
	 * Slot states once: nothing changes them before qs_prune_execute (the
	 * cleanup lock keeps writers out; only hint bits are written meanwhile)
	 */
	if (L->record_states)
		L->record_states(page, ps->states);
	else
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
			ps->states[off] = (uint8) L->record_state(page, off);
	prune_classify(rel, L, buf, page, maxoff, ps);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		QsRecordState st;

		if (ps->marked[off])
			continue;
		st = ps->states[off];
		if (st == QS_REC_NORMAL || st == QS_REC_REDIRECT)
			prune_chain(L, page, maxoff, off, ps);
	}
	nchanged = ps->nredirected + ps->ndead + ps->nunused;

	if (nchanged > 0)
	{
		/* record bytes move: redo repeats it under a cleanup lock */
		if (L->prepare_compact)
			L->prepare_compact(page);
		START_CRIT_SECTION();
		qs_prune_execute(L, page, ps->redirected, ps->nredirected,
						 ps->nowdead, ps->ndead, ps->nowunused, ps->nunused);

		/*
		 * heap_page_prune's PageClearFull: the update that set it may fit.
		 * Unless the page is still short of slots for heap-only versions
		 * (layout.h, slots_short): then it stays full, so that updates of
		 * its HOT chains leave it until it has a reserve (dml.c).  The
		 * PRUNE record carries the flag (qs_log_prune).
		 */
		if (L->slots_short != NULL && L->slots_short(page))
			PageSetFull(page);
		else
			PageClearFull(page);
		PageClearPrunable(page);
		if (TransactionIdIsValid(ps->newhint))
			PageSetPrunable(page, ps->newhint);
		MarkBufferDirty(buf);
		qs_log_prune(rel, buf, ps->horizon, ps->redirected, ps->nredirected,
					 ps->nowdead, ps->ndead, ps->nowunused, ps->nunused);
		END_CRIT_SECTION();
	}
	else if ((ps->newhint != hint ||
			  (PageIsFull(page) &&
			   !(L->slots_short != NULL && L->slots_short(page)))) &&
			 vistest != NULL)
	{
		QsGenXLogState *state;
		Page		wpage;

		state = qs_genxlog_start(rel);
		wpage = qs_genxlog_register(state, buf, 0);
		PageClearPrunable(wpage);
		/* a page short of slots stays full, as above */
		if (!(L->slots_short != NULL && L->slots_short(wpage)))
			PageClearFull(wpage);
		if (TransactionIdIsValid(ps->newhint))
			PageSetPrunable(wpage, ps->newhint);
		qs_genxlog_finish(state);
	}
	pfree(ps);
	return nchanged;
}

void
qs_page_prune_opt(Relation rel, const QsPageLayout *L, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	TransactionId hint;
	GlobalVisState *vistest;
	Size		minfree;
	Size		freespace;

	if (RecoveryInProgress())
		return;
	/* unlocked peeks, as heap's: only a hint */
	hint = ((PageHeader) page)->pd_prune_xid;
	if (!TransactionIdIsNormal(hint))
		return;
	/* a column table's page: nothing to prune (delete maps keep a hint) */
	if (!PageIsNew(page) && qs_is_column_page(page))
		return;
	vistest = GlobalVisTestFor(rel);
	if (!GlobalVisTestIsRemovableXid(vistest, hint))
		return;
	minfree = Max(RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR),
				  BLCKSZ / 10);
	/*
	 * Unlike heap's, the free space is not a peek at two header fields: a
	 * layout reads its directory, and an inserter may reformat a page that
	 * holds no record (another layout, new geometry) under the exclusive
	 * lock, so read it under a share lock.
	 */
	if (!PageIsFull(page))
	{
		/* unless an update found no room here (dml.c), as heap's test */
		const QsPageLayout *PL;
		bool		wanted;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		PL = qs_page_layout(L, page);
		freespace = PL->prune_free_space ? PL->prune_free_space(page) :
			PL->free_space(page);
		wanted = PL->prune_wanted != NULL && PL->prune_wanted(page);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (freespace >= minfree && !wanted)
			return;
	}
	if (!ConditionalLockBufferForCleanup(buf))
		return;
	qs_prune_page(rel, L, buf, vistest, InvalidTransactionId);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
}

/*
 * qs_hot_root_map
 *		heap_get_root_tuples on a layout: root_offsets[off - 1] gets the
 *		offset of the root (the record or REDIRECT index entries name) of
 *		the HOT chain record 'off' belongs to; InvalidOffsetNumber for slots
 *		that are no record or belong to no chain found.  Index builds index
 *		a version under its root's TID.  The caller holds a lock on the page.
 */
void
qs_hot_root_map(const QsPageLayout *L, Page page, BlockNumber blkno,
				OffsetNumber *root_offsets)
{
	OffsetNumber maxoff;

	memset(root_offsets, 0, MaxHeapTuplesPerPage * sizeof(OffsetNumber));
	L = qs_page_layout(L, page);
	maxoff = L->max_offset(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		QsRecordState st = L->record_state(page, off);
		TransactionId prev_xmax = InvalidTransactionId;
		OffsetNumber next;
		HeapTupleHeaderData scratch;
		HeapTupleHeader h;

		if (st == QS_REC_NORMAL)
		{
			h = L->get_header(page, off, &scratch, NULL);
			if (HeapTupleHeaderIsHeapOnly(h))
				continue;		/* reached from its root */
			root_offsets[off - 1] = off;
			if (!HeapTupleHeaderIsHotUpdated(h) ||
				ItemPointerGetBlockNumber(&h->t_ctid) != blkno)
				continue;
			next = ItemPointerGetOffsetNumber(&h->t_ctid);
			prev_xmax = HeapTupleHeaderGetUpdateXid(h);
		}
		else if (st == QS_REC_REDIRECT)
			next = L->redirect_target(page, off);
		else
			continue;

		while (next >= FirstOffsetNumber && next <= maxoff &&
			   L->record_state(page, next) == QS_REC_NORMAL)
		{
			h = L->get_header(page, next, &scratch, NULL);
			if (TransactionIdIsValid(prev_xmax) &&
				!TransactionIdEquals(prev_xmax, HeapTupleHeaderGetXmin(h)))
				break;
			root_offsets[next - 1] = off;
			if (!HeapTupleHeaderIsHotUpdated(h) ||
				ItemPointerGetBlockNumber(&h->t_ctid) != blkno)
				break;
			next = ItemPointerGetOffsetNumber(&h->t_ctid);
			prev_xmax = HeapTupleHeaderGetUpdateXid(h);
		}
	}
}
