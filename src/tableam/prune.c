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
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

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

void
qs_page_prune_opt(Relation rel, const QsPageLayout *L, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	TransactionId hint;
	GlobalVisState *vistest;
	Size		minfree;
	Size		freespace;
	OffsetNumber dead[MaxHeapTuplesPerPage];
	int			ndead = 0;
	TransactionId horizon = InvalidTransactionId;
	TransactionId newhint = InvalidTransactionId;
	OffsetNumber maxoff;

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
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	freespace = qs_page_free_space(L, page);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (freespace >= minfree)
		return;
	if (!ConditionalLockBufferForCleanup(buf))
		return;

	/* the format cannot change under the cleanup lock: resolve it once */
	L = qs_page_layout(L, page);
	maxoff = L->max_offset(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleData tup;
		HeapTupleHeaderData scratch;
		uint32		len;
		bool		is_dead;

		if (L->record_state(page, off) != QS_REC_NORMAL)
			continue;
		tup.t_data = L->get_header(page, off, &scratch, &len);
		tup.t_len = len;
		ItemPointerSet(&tup.t_self, BufferGetBlockNumber(buf), off);
		tup.t_tableOid = RelationGetRelid(rel);
		{
			TransactionId dead_after = InvalidTransactionId;

			switch (HeapTupleSatisfiesVacuumHorizon(&tup, buf, &dead_after))
			{
				case HEAPTUPLE_DEAD:
					is_dead = true;
					break;
				case HEAPTUPLE_RECENTLY_DEAD:
					is_dead = GlobalVisTestIsRemovableXid(vistest, dead_after);
					break;
				default:
					is_dead = false;
					break;
			}
		}
		if (is_dead)
		{
			QS_HeapTupleHeaderAdvanceConflictHorizon(tup.t_data, &horizon);
			dead[ndead++] = off;
		}
		else if (!(tup.t_data->t_infomask & HEAP_XMAX_INVALID) &&
				 !HEAP_XMAX_IS_LOCKED_ONLY(tup.t_data->t_infomask))
		{
			/* deleted or updated, not removable yet: keep a hint */
			TransactionId x = HeapTupleHeaderGetUpdateXid(tup.t_data);

			if (TransactionIdIsNormal(x) &&
				(!TransactionIdIsValid(newhint) || TransactionIdPrecedes(x, newhint)))
				newhint = x;
		}
		if (tup.t_data == &scratch)
			L->set_header(page, off, &scratch);
	}

	if (ndead > 0)
	{
		/* record bytes move: redo repeats it under a cleanup lock */
		if (L->prepare_compact)
			L->prepare_compact(page);
		START_CRIT_SECTION();
		qs_prune_clear_hints(L, page, dead, ndead);
		L->mark_dead(page, dead, ndead);
		L->compact(page);
		PageClearPrunable(page);
		if (TransactionIdIsValid(newhint))
			PageSetPrunable(page, newhint);
		MarkBufferDirty(buf);
		qs_log_prune(rel, buf, horizon, dead, ndead, NULL, 0);
		END_CRIT_SECTION();
	}
	else if (newhint != hint)
	{
		QsGenXLogState *state;
		Page		wpage;

		state = qs_genxlog_start(rel);
		wpage = qs_genxlog_register(state, buf, 0);
		PageClearPrunable(wpage);
		if (TransactionIdIsValid(newhint))
			PageSetPrunable(wpage, newhint);
		qs_genxlog_finish(state);
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
}
