/*-------------------------------------------------------------------------
 *
 * seal.c
 *	  The seal of a column block (src/column/README.md section 4.5):
 *	  quickstep.seal() and the merge's seal of the open block it fills.
 *
 * A seal writes the next version of a block, exactly as a merge into the
 * open block does (src/merge/README.md section 5) but with no new rows:
 * same block id, TID range and delete map, the rows physically sorted on
 * the table's sort key, and the image's TID map sub-block giving each
 * physical position its TID row.  No row's TID changes, so index entries,
 * the delete map, tuple and predicate locks and ctid links stay valid:
 * the seal is invisible by construction.  Readers map positions to TID
 * rows through the map (values.c keeps it with the read cache's reader).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/append.h"
#include "column/colam.h"
#include "column/colstore.h"
#include "column/options.h"
#include "merge/merge.h"

PG_FUNCTION_INFO_V1(qs_seal_sql);

/* The builder gets the rows 0..published-1 of version e in TID order. */
static void
seal_fill(QsColBuilder *b, Relation rel, const QsColDirEntry *e)
{
	QsColRowReader rr;

	qs_colrows_open(rel, b->attrs, e, &rr);
	qs_colbuilder_add_block(b, rel, &rr, e->published, NULL);
	qs_colrows_close(&rr);
}

/*
 * qs_seal_version
 *		Write the SEALED next version of live version 'live' (sorted on
 *		opts->sort_col; without one and without index columns, sharing
 *		the run of 'live'; with index columns, a new image with its
 *		sub-blocks) and
 *		publish it in one directory record that gives 'live' xmax = the
 *		current transaction.  same_xact: 'live' was written by the current
 *		transaction's merge (the merge that filled it): the new version
 *		keeps its base, so the merge's rows keep the merge as inserter.
 *		Otherwise the writer of 'live' must be visible to every snapshot
 *		(qs_seal_eligible), and every row of the new version is as old as
 *		a frozen one.  The caller holds ShareUpdateExclusiveLock (no merge
 *		or seal beside it).
 */
static bool seal_version(Relation rel, QsColAttr *attrs,
						 const QsColLoadOptions *opts,
						 const QsColDirEntry *live, bool same_xact,
						 bool must_seal, QsRunWindows *ws);

void
qs_seal_version(Relation rel, QsColAttr *attrs, const QsColLoadOptions *opts,
				const QsColDirEntry *live, bool same_xact)
{
	(void) seal_version(rel, attrs, opts, live, same_xact, true, NULL);
}

/*
 * ws: not NULL, the seal may move the block down (seal_rel): the new
 * version gets its own run, even without a sort key, written into the
 * lowest window of ws below the old run if one takes the rebuilt image
 * (measured: it may be longer than the old run, e.g. a bulk-loaded
 * block's gains its rows' origin xmins).  If none does, must_seal (an open
 * block, or one to sort) seals it as without ws; otherwise (a pure move)
 * nothing is written: a run rewritten anywhere else is no move down, only
 * a rewrite, and may grow the file.  Returns whether a version was
 * written.
 */
static bool
seal_version(Relation rel, QsColAttr *attrs, const QsColLoadOptions *opts,
			 const QsColDirEntry *live, bool same_xact, bool must_seal,
			 QsRunWindows *ws)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep seal",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	QsColBuilder b;
	uint8	   *image;
	size_t		image_len;
	uint32	   *perm = NULL;
	QsColDirEntry cur;
	QsColDirEntry e;
	QsColDirectory dir;
	const QsColDirEntry *found;
	BlockNumber lockblk;
	BlockNumber run_start = InvalidBlockNumber;
	bool		can_share = opts->sort_col < 0 && opts->index_cols == NULL;
	bool		share = can_share && ws == NULL;

	Assert(opts->sort_col >= 0 || !same_xact);
	Assert(must_seal || ws != NULL);

	if (!share)
	{
		/* the image first: nobody waits on the block while it is sorted */
		qs_colbuilder_init(&b, rel, attrs);
		seal_fill(&b, rel, live);
		b.keep_tids = true;
		/* index sub-blocks over the codes of quickstep.index_columns */
		b.index_cols = opts->index_cols;
		image = qs_colbuilder_build_perm(&b, rel, live->block_id,
										 opts->sort_col, opts->enc_mask,
										 &image_len, &perm);

		/*
		 * Written before the lock, as the merge's append does: the run is
		 * nobody's until qs_coldir_supersede names it (an error or a crash
		 * leaves it to VACUUM's sweep: a move's window is listed as freed
		 * before it is converted), and no deleter waits for the image
		 * write.
		 */
		if (ws != NULL)
			run_start = qs_colrun_write_below(rel, live->block_id, image,
											  image_len, live->run_start, ws);
		if (run_start == InvalidBlockNumber)
		{
			if (!must_seal)
			{
				/* a pure move that found no window below: nothing to do */
				MemoryContextSwitchTo(old);
				MemoryContextDelete(cxt);
				return false;
			}
			if (can_share)
				share = true;	/* sealed as without the move */
			else
				run_start = qs_colrun_write(rel, live->block_id, image,
											image_len, NULL);
		}
	}
	if (share)
	{
		/*
		 * No sort key, no index sub-blocks to add: the new version shares
		 * the old one's run (the same image), only its state says SEALED.
		 * VACUUM gives a run back once no version naming it is alive
		 * (qs_coldir_reclaim).
		 */
		run_start = live->run_start;
		image_len = live->image_len;
	}

	/*
	 * The creation lock of the block's delete map: no deleter makes the
	 * root meanwhile from the old version (qs_coldelmap_buffer), so the
	 * versions share it.
	 */
	lockblk = QS_VIRT_BASE + live->tid_range * QS_VIRT_PAGES_PER_RANGE;
	LockPage(rel, lockblk, ExclusiveLock);
	qs_coldir_read(rel, &dir);
	found = qs_coldir_find_range(&dir, live->tid_range);
	if (found == NULL || found->run_start != live->run_start ||
		found->block_id != live->block_id ||
		(TransactionIdIsValid(found->xmax) && !qs_coldir_xmax_aborted(found)) ||
		found->published != live->published)
		elog(ERROR, "column block %u of \"%s\" changed while it was sealed",
			 live->block_id, RelationGetRelationName(rel));
	cur = *found;
	pfree(dir.entries);
	qs_coldelmap_ensure_root(rel, &cur);

	e = cur;
	e.state = QS_COLBLK_SEALED;
	e.flags = QS_COLDIR_MERGED;
	e.npages = share ? cur.npages : qs_colblock_npages(image_len);
	e.run_start = run_start;
	e.nrows = cur.published;
	e.image_len = image_len;
	e.xmin = GetCurrentTransactionId();
	e.cid = GetCurrentCommandId(true);
	e.xmax = InvalidTransactionId;
	if (same_xact)
		Assert(TransactionIdIsCurrentTransactionId(cur.xmin));
	else
	{
		/* no row of ours: the rows are the old versions' (frozen) */
		e.base = cur.published;
		e.src_first = 1;
		e.src_last = 0;
	}
	qs_coldir_supersede(rel, &cur, &e);
	UnlockPage(rel, lockblk, ExclusiveLock);

	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return true;
}

/*
 * May quickstep.seal() take version e?  A live version (no xmax, not
 * retired, not a load at work) whose writer is frozen or committed before
 * every snapshot that exists or will exist (as the open block a merge
 * appends to: src/merge/merge.c find_open_block), so that the new
 * version's rows may count as frozen for every snapshot that reads it.
 */
static bool
seal_eligible(const QsColDirEntry *e, TransactionId horizon)
{
	/*
	 * An aborted xmax is none: an aborted seal added no row, and the rows
	 * an aborted merge added past e's (their index entries) are not the
	 * new version's either, which is sealed.
	 */
	if (e->state == QS_COLBLK_RETIRED || (e->flags & QS_COLDIR_PENDING) ||
		(TransactionIdIsValid(e->xmax) && !qs_coldir_xmax_aborted(e)) ||
		e->published == 0)
		return false;
	if (TransactionIdIsNormal(e->xmin) &&
		(TransactionIdIsCurrentTransactionId(e->xmin) ||
		 !TransactionIdPrecedes(e->xmin, horizon) ||
		 !TransactionIdDidCommit(e->xmin)))
		return false;
	return true;
}

/* is the image of version e sorted on column sort_col? */
static bool
image_sorted_on(Relation rel, const QsColDirEntry *e, int sort_col)
{
	QsColBlockHandle h;
	bool		sorted;

	qs_colblock_load(rel, e, &h);
	sorted = h.blk.sort_col == sort_col;
	qs_colblock_release(&h);
	return sorted;
}

static int
run_start_desc(const void *a, const void *b)
{
	BlockNumber x = ((const QsColDirEntry *) a)->run_start;
	BlockNumber y = ((const QsColDirEntry *) b)->run_start;

	/* InvalidBlockNumber (no run) sorts first; such entries are skipped */
	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The seal of one column table: its open blocks, and with a sort key the
 * sealed blocks not sorted on it.  Returns how many blocks were sealed or
 * sorted.  Any live block whose run has enough empty pages below it (the
 * delta pages merges emptied, runs given back) is also written again,
 * there, highest run first (not counted): the seal compacts the file, so
 * that the VACUUM after it gives the old runs back and truncates the
 * emptied end (README section 4.7, "The seal moves runs down").
 */
static int
seal_rel(Relation rel)
{
	QsColAttr  *attrs;
	QsColLoadOptions opts;
	QsColDirectory dir;
	TransactionId horizon = GetOldestNonRemovableTransactionId(rel);
	int			n = 0;
	QsRunWindows ws;

	if (RelationGetDescr(rel)->natts == 0)
		return 0;
	attrs = qs_colattrs(RelationGetDescr(rel));
	qs_colopts_for_load(rel, attrs, &opts);
	if (opts.sort_col >= 0 && !attrs[opts.sort_col].has_order)
		opts.sort_col = -1;
	qs_coldir_read(rel, &dir);
	/* highest run first: it takes the lowest window */
	qsort(dir.entries, dir.nentries, sizeof(QsColDirEntry), run_start_desc);
	/* the free space map once; each move cuts its pages out (run.c) */
	qs_colrun_empty_windows(rel, &ws);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];
		bool		to_seal;
		bool		may_move;

		CHECK_FOR_INTERRUPTS();
		if (!seal_eligible(e, horizon))
			continue;

		/*
		 * A first filter on the old run's length; seal_version measures
		 * the rebuilt image before it moves anything.
		 */
		may_move = e->run_start != InvalidBlockNumber &&
			qs_colrun_window_fits(&ws, e->npages, e->run_start);
		to_seal = e->state == QS_COLBLK_OPEN ||
			(opts.sort_col >= 0 && !image_sorted_on(rel, e, opts.sort_col));
		if (to_seal)
		{
			(void) seal_version(rel, attrs, &opts, e, false, true,
								may_move ? &ws : NULL);
			n++;
		}
		else if (may_move)
			(void) seal_version(rel, attrs, &opts, e, false, false, &ws);
	}
	if (ws.w)
		pfree(ws.w);
	if (dir.entries)
		pfree(dir.entries);
	return n;
}

/*
 * qs_seal_table
 *		The seal of quickstep.seal() on rel, which the caller opened with
 *		ShareUpdateExclusiveLock (or stronger) in a transaction that is not
 *		SERIALIZABLE.  Returns how many blocks were sealed or sorted.
 */
int
qs_seal_table(Relation rel)
{
	Assert(!IsolationIsSerializable());
	Assert(qs_is_column_rel(rel));
	qs_colload_flush_rel(rel);
	return seal_rel(rel);
}

/*
 * quickstep.seal(rel regclass) RETURNS integer
 *		Seal the table's open block (even if not full) and, with a sort
 *		key, sort the sealed blocks still in arrival order; returns how many
 *		blocks were sealed or sorted.  The rules of quickstep.merge().
 */
Datum
qs_seal_sql(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	int			n;

	rel = qs_merge_open_sql(relid, "quickstep.seal()",
							"Like quickstep.merge(), it writes block versions other transactions read.",
							"quickstep.seal() seals the column blocks of column tables.");
	n = qs_seal_table(rel);
	table_close(rel, NoLock);
	PG_RETURN_INT32(n);
}
