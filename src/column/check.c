/*-------------------------------------------------------------------------
 *
 * check.c
 *	  quickstep.check_table() for column tables: what the row engine's
 *	  checker does not see (it checks the delta pages and the page kind of
 *	  every column page): the metapage, the directory, every block's run
 *	  and every block image, bytes and order (README section 9).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/options.h"
#include "column/colam.h"
#include "column/colstore.h"
#include "merge/moved.h"
#include "page/layout.h"

static void
corrupt(Relation rel, const char *fmt, uint32 a, uint32 b)
	pg_attribute_printf(2, 0);

static void
corrupt(Relation rel, const char *fmt, uint32 a, uint32 b)
{
	char		detail[256];

	snprintf(detail, sizeof(detail), fmt, a, b);
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("quickstep table \"%s\" is corrupt",
					RelationGetRelationName(rel)),
			 errdetail("%s", detail)));
}

/*
 * Does every entry of a delete-map page come from a writer that did not
 * commit (or was removed)?
 */
static bool
delmap_page_aborted(Page page)
{
	uint32		n;

	if (!qs_coldelmap_page_info(page, NULL, NULL, &n))
		return false;
	for (OffsetNumber off = 1; off <= n; off++)
	{
		HeapTupleHeader h = qs_coldelmap_entry(page, off);
		TransactionId xmin;

		if (h == NULL)
			continue;
		xmin = HeapTupleHeaderGetRawXmin(h);
		if (!TransactionIdIsNormal(xmin) || HeapTupleHeaderXminFrozen(h) ||
			TransactionIdIsInProgress(xmin) || TransactionIdDidCommit(xmin))
			return false;
	}
	return true;
}

/*
 * The delete map of block e: its root and pages belong to it and to their
 * virtual pages (qs_coldelmap_root/page check that), each page has an
 * entry per row of its virtual page, and every entry is a header a row
 * could have: the block's xmin or a frozen one while the block's is not
 * frozen yet, and no forward link to another main row (an update's new
 * version always goes to the delta).
 */
static void
check_delmap(Relation rel, const QsColDirEntry *e, BlockNumber nblocks)
{
	QsColDelmapRoot root;

	if (e->delmap_root == InvalidBlockNumber)
		return;
	if (e->delmap_root == QS_COLMETA_BLKNO || e->delmap_root >= nblocks)
		corrupt(rel, "block %u has its delete map at page %u outside the relation",
				e->block_id, e->delmap_root);
	qs_coldelmap_root(rel, e, &root);
	/* an open block's root is made for its capacity (src/merge/README.md 5) */
	if (root.n < (e->published + QS_COLBLOCK_TIDS_PER_PAGE - 1) / QS_COLBLOCK_TIDS_PER_PAGE ||
		(!(e->flags & QS_COLDIR_MERGED) &&
		 root.n != (e->published + QS_COLBLOCK_TIDS_PER_PAGE - 1) / QS_COLBLOCK_TIDS_PER_PAGE))
		corrupt(rel, "the delete map of block %u covers %u virtual pages",
				e->block_id, root.n);
	for (uint32 v = 0; v < root.n; v++)
	{
		Buffer		buf = qs_coldelmap_page(rel, e, &root, v, BUFFER_LOCK_SHARE);
		uint32		n;
		uint32		rows;

		if (!BufferIsValid(buf))
			continue;
		if (v * QS_COLBLOCK_TIDS_PER_PAGE >= e->published)
		{
			/*
			 * An aborted merge into an open block leaves the pages that
			 * DML on its rows made (its own, or a concurrent update's
			 * cancel of a move: src/merge/README.md 5) past the rows of
			 * the version that stays, which the aborted append closed: they
			 * may exist, with no entry a committed writer made.
			 */
			if (!(e->flags & QS_COLDIR_MERGED) ||
				!delmap_page_aborted(BufferGetPage(buf)))
				corrupt(rel, "block %u has a delete-map page for virtual page %u past its rows",
						e->block_id, v);
			UnlockReleaseBuffer(buf);
			continue;
		}
		rows = Min(e->published - v * QS_COLBLOCK_TIDS_PER_PAGE,
				   QS_COLBLOCK_TIDS_PER_PAGE);

		/*
		 * An aborted merge into an open block may have left entries past
		 * the rows of the version that stays (src/merge/README.md 5).
		 */
		if (!qs_coldelmap_page_info(BufferGetPage(buf), NULL, NULL, &n) ||
			n < rows || (n > rows && !(e->flags & QS_COLDIR_MERGED)))
			corrupt(rel, "a delete-map page of block %u has entries for %u rows",
					e->block_id, n);
		for (OffsetNumber off = 1; off <= rows; off++)
		{
			HeapTupleHeader h = qs_coldelmap_entry(BufferGetPage(buf), off);
			TransactionId xmin;
			ItemPointerData self;
			uint32		row = v * QS_COLBLOCK_TIDS_PER_PAGE + off - 1;

			if (h == NULL)
			{
				/*
				 * Removed by VACUUM, or marked dead by one without index
				 * cleanup: such an entry must hold no xid, multixact or
				 * command id (relfrozenxid and relminmxid passed them)
				 */
				if (qs_coldelmap_entry_state(BufferGetPage(buf), off) == QS_REC_DEAD &&
					!qs_coldelmap_dead_entry_ok(BufferGetPage(buf), off))
					corrupt(rel, "the dead delete-map entry of main row %u of block %u keeps an xid or a link",
							row, e->block_id);
				continue;
			}
			xmin = HeapTupleHeaderGetRawXmin(h);

			/*
			 * The directory's xmin is frozen by VACUUM before the entries';
			 * rows of an open block's older versions have their own
			 * merge's, committed before this version's writer began.
			 */
			if (row >= e->base &&
				TransactionIdIsNormal(e->xmin) && !HeapTupleHeaderXminFrozen(h) &&
				xmin != FrozenTransactionId && xmin != e->xmin)
				corrupt(rel, "a delete-map entry of block %u has xmin %u",
						e->block_id, xmin);
			/*
			 * A forward link with no xmax is not checked: freezing clears
			 * the xmax of an aborted update and keeps its t_ctid, as heap's
			 * freezing does; readers never follow a link without an xmax.
			 */
			qs_virt_tid(e->tid_range, v * QS_COLBLOCK_TIDS_PER_PAGE + off - 1, &self);
			if (ItemPointerGetBlockNumberNoCheck(&h->t_ctid) >= QS_VIRT_BASE &&
				!ItemPointerEquals(&h->t_ctid, &self))
				corrupt(rel, "main row %u of block %u links to another main row",
						v * QS_COLBLOCK_TIDS_PER_PAGE + off - 1, e->block_id);
		}
		UnlockReleaseBuffer(buf);
	}
	if (root.pages)
		pfree(root.pages);
}

/*
 * Did the inserter of delete-map entry h not abort?  A frozen entry or one
 * whose inserter committed, runs, or is this transaction (delmap_judge
 * asks it only of entries past the rows of every live version).
 */
static bool
delmap_entry_live(HeapTupleHeader h)
{
	TransactionId xmin = HeapTupleHeaderGetRawXmin(h);

	if (HeapTupleHeaderXminFrozen(h) || !TransactionIdIsNormal(xmin) ||
		HeapTupleHeaderXminCommitted(h))
		return true;
	if (HeapTupleHeaderXminInvalid(h))
		return false;
	return TransactionIdIsCurrentTransactionId(xmin) ||
		TransactionIdIsInProgress(xmin) || TransactionIdDidCommit(xmin);
}

/*
 * Where check_delmap_reached's VACUUM would reach delete-map pages, from
 * one copy of the directory: for each virtual page (by its virtual block
 * number) the page a root of an entry of its TID range links for it, and
 * that root's block; and for each TID range the largest published of its
 * versions that are not RETIRED (0: none).  The versions of a TID range
 * share one root (qs_column_check checks it: an open block's versions,
 * and the seal's qs_coldelmap_ensure_root), so the link is the page
 * qs_coldelmap_buffer_any_in returns when the page it names is that
 * block's page of that virtual page, which delmap_judge sees on the page
 * itself.  Each distinct root (block id, TID range, root page) is read
 * once, so building it costs entries plus leaves, where asking
 * qs_coldelmap_buffer_any_in per page cost leaves x entries (review of
 * r3b, F3).
 */
typedef struct DelmapReach
{
	HTAB	   *leaves;			/* virtual block -> ReachLeaf */
	HTAB	   *ranges;			/* TID range -> ReachRange */
} DelmapReach;

typedef struct ReachLeaf
{
	BlockNumber vblock;			/* key */
	BlockNumber page;
	uint32		block_id;
} ReachLeaf;

typedef struct ReachRange
{
	uint32		range;			/* key */
	uint32		published;
} ReachRange;

typedef struct ReachRoot
{
	uint32		block_id;
	uint32		tid_range;
	BlockNumber root;
} ReachRoot;

static HTAB *
reach_hash(const char *name, Size keysize, Size entrysize, long n)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = keysize;
	ctl.entrysize = entrysize;
	ctl.hcxt = CurrentMemoryContext;
	return hash_create(name, Max(n, 16), &ctl,
					   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
reach_build(Relation rel, const QsColDirectory *all, DelmapReach *r)
{
	HTAB	   *roots;

	r->leaves = reach_hash("delete-map leaves reached", sizeof(BlockNumber),
						   sizeof(ReachLeaf), all->nentries * 4);
	r->ranges = reach_hash("TID ranges' rows", sizeof(uint32),
						   sizeof(ReachRange), all->nentries);
	roots = reach_hash("delete-map roots read", sizeof(ReachRoot),
					   sizeof(ReachRoot), all->nentries);
	for (uint32 i = 0; i < all->nentries; i++)
	{
		const QsColDirEntry *e = &all->entries[i];
		ReachRange *rr;
		ReachRoot	key;
		QsColDelmapRoot root;
		bool		found;

		if (qs_coldir_is_free(e))
			continue;
		rr = hash_search(r->ranges, &e->tid_range, HASH_ENTER, &found);
		if (!found)
			rr->published = 0;
		if (e->state != QS_COLBLK_RETIRED && rr->published < e->published)
			rr->published = e->published;
		/*
		 * Not an EMPTIED version's root: every entry of its rows is removed,
		 * and qs_coldir_reclaim gives its pages back (a crash may leave
		 * them half given back, which qs_coldelmap_root would take for
		 * corruption).  Entries it left past its rows are judged by the
		 * per-page walk (check_delmap_reached).
		 */
		if (e->delmap_root == InvalidBlockNumber ||
			(e->flags & QS_COLDIR_EMPTIED))
			continue;
		memset(&key, 0, sizeof(key));
		key.block_id = e->block_id;
		key.tid_range = e->tid_range;
		key.root = e->delmap_root;
		(void) hash_search(roots, &key, HASH_ENTER, &found);
		if (found)
			continue;			/* an earlier entry's: the same answers */
		CHECK_FOR_INTERRUPTS();
		qs_coldelmap_root(rel, e, &root);
		for (uint32 v = 0; v < root.n; v++)
		{
			BlockNumber vblock = QS_VIRT_BASE +
				e->tid_range * QS_VIRT_PAGES_PER_RANGE + v;
			ReachLeaf  *rl;

			if (root.pages[v] == InvalidBlockNumber)
				continue;
			rl = hash_search(r->leaves, &vblock, HASH_ENTER, &found);
			if (found)
				continue;		/* an earlier root's link */
			rl->page = root.pages[v];
			rl->block_id = e->block_id;
		}
		if (root.pages)
			pfree(root.pages);
	}
	hash_destroy(roots);
}

static void
reach_free(DelmapReach *r)
{
	hash_destroy(r->leaves);
	hash_destroy(r->ranges);
}

typedef enum DelmapVerdict
{
	DELMAP_OK,
	DELMAP_UNREACHED,			/* no entry's root reaches the page */
	DELMAP_LIVE_PAST			/* a live entry past every version's rows */
} DelmapVerdict;

/*
 * Judge the delete-map page share-locked in buf against r ('reached': it
 * is known to be reached; *last: the TID of its last entry not removed).
 * Entries VACUUM removed are not looked at.
 */
static DelmapVerdict
delmap_judge(Buffer buf, const DelmapReach *r, bool reached, uint32 *block_id,
			 ItemPointer last)
{
	Page		page = BufferGetPage(buf);
	BlockNumber vblock;
	uint32		n;
	uint32		range;
	uint32		first;
	ReachLeaf  *rl;
	ReachRange *rr;
	uint32		published;
	OffsetNumber top = InvalidOffsetNumber;

	if (!qs_coldelmap_page_info(page, block_id, &vblock, &n) ||
		vblock < QS_VIRT_BASE || vblock >= QS_VIRT_END)
		return DELMAP_OK;		/* not a leaf (dm_check_page checks them) */
	/*
	 * An entry marked dead (no xid) still waits for a VACUUM with index
	 * cleanup to remove it, which must reach it as any entry not removed
	 */
	for (OffsetNumber off = n; off >= 1 && top == InvalidOffsetNumber; off--)
		if (qs_coldelmap_entry_state(page, off) != QS_REC_UNUSED)
			top = off;
	if (top == InvalidOffsetNumber)
		return DELMAP_OK;
	ItemPointerSet(last, vblock, top);

	/* pass 2 finds this page for every row of its virtual page */
	rl = hash_search(r->leaves, &vblock, HASH_FIND, NULL);
	if (!reached &&
		(rl == NULL || rl->page != BufferGetBlockNumber(buf) ||
		 rl->block_id != *block_id))
		return DELMAP_UNREACHED;

	/*
	 * Past the rows of every version of the range that is not RETIRED
	 * only an aborted writer's entries may lie (review of r3b, helper-169
	 * F6): a merge into an open block extends the straddling page before
	 * it lists its version (qs_coldelmap_extend), and DML of an aborted
	 * merge's or load's own rows made its pages; all of them hold the
	 * aborted writer as xmin (init_entry), whoever wrote their xmax.  A
	 * RETIRED version's rows past the live ones' are such rows (it
	 * aborted), or have a successor with as many (SUPERSEDED), or are all
	 * removed (EMPTIED).  So an entry there whose inserter did not abort
	 * is a row no version has, which readers never see and VACUUM never
	 * removes.  Not a running writer's: no merge runs beside the check
	 * (ShareUpdateExclusiveLock), and DML writes only rows below a listed
	 * version's published.  From the top down, to the first row a live
	 * version has: the inserters asked are recent aborted merges, whose
	 * xids the commit log still holds (VACUUM removes their entries
	 * before relfrozenxid passes them, or marks them dead, with no xid
	 * left to ask, or keeps relfrozenxid at them).
	 */
	range = (vblock - QS_VIRT_BASE) / QS_VIRT_PAGES_PER_RANGE;
	first = ((vblock - QS_VIRT_BASE) % QS_VIRT_PAGES_PER_RANGE) *
		QS_COLBLOCK_TIDS_PER_PAGE;
	rr = hash_search(r->ranges, &range, HASH_FIND, NULL);
	published = rr ? rr->published : 0;
	for (OffsetNumber off = n; off >= 1 && first + off - 1 >= published; off--)
	{
		/*
		 * An entry marked dead has no inserter left to ask: VACUUM marked
		 * it because it was DEAD to every snapshot, which a committed
		 * inserter's row no version has never is (no delete reaches it)
		 */
		HeapTupleHeader h = qs_coldelmap_entry(page, off);

		if (h != NULL && delmap_entry_live(h))
			return DELMAP_LIVE_PAST;
	}
	return DELMAP_OK;
}

static void
delmap_report(Relation rel, DelmapVerdict v, BlockNumber blk, uint32 block_id)
{
	if (v == DELMAP_UNREACHED)
		corrupt(rel, "delete-map page %u of block %u holds entries no directory entry reaches",
				blk, block_id);
	if (v == DELMAP_LIVE_PAST)
		corrupt(rel, "delete-map page %u of block %u holds an entry whose inserter did not abort past the rows of every live version",
				blk, block_id);
}

/*
 * Every delete-map entry VACUUM has not removed is one its second pass can
 * reach: through a directory entry of its TID range whose root links its
 * page (qs_coldelmap_buffer_any), as the first pass finds it on the page
 * whatever the directory lists.  One left unreached (the directory's
 * compaction removing an aborted version whose rows' entries are not all
 * removed: column README section 4.7, R3b) would be classified DEAD at
 * every VACUUM, never removed, and its inserter's xid would outlive
 * relfrozenxid.  And no entry past the rows of every live version of its
 * TID range has an inserter that did not abort (delmap_judge).
 *
 * Linear: where the copy 'all' reaches is built once (reach_build), then
 * every page is read once.  A page is read before the directory it is
 * judged by: a page made since 'all' was read (and the entry naming a new
 * root, written in the same record) is judged again, after the scan, by
 * one fresh read of the directory, and if still unreached asked of
 * qs_coldelmap_buffer_any_in as VACUUM's second pass asks it (EMPTIED
 * versions included).  Re-reading such a page after that read
 * is sound: it existed before it, and no writer that runs beside the check
 * (DML; no merge, VACUUM or compaction: ShareUpdateExclusiveLock) gives a
 * leaf back or writes an entry past the rows of a listed version.
 */
static void
check_delmap_reached(Relation rel, const QsColDirectory *all)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BufferAccessStrategy bas = GetAccessStrategy(BAS_BULKREAD);
	DelmapReach reach;
	BlockNumber *again = NULL;
	uint32		nagain = 0,
				maxagain = 0;

	reach_build(rel, all, &reach);
	for (BlockNumber blk = QS_COLMETA_BLKNO + 1; blk < nblocks; blk++)
	{
		Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk,
											 RBM_NORMAL, bas);
		uint32		block_id = 0;
		ItemPointerData last;
		DelmapVerdict v;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		v = delmap_judge(buf, &reach, false, &block_id, &last);
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
		if (v == DELMAP_OK)
			continue;
		if (nagain == maxagain)
		{
			maxagain = Max(16, maxagain * 2);
			again = again ? repalloc(again, sizeof(BlockNumber) * maxagain) :
				palloc(sizeof(BlockNumber) * maxagain);
		}
		again[nagain++] = blk;
	}
	reach_free(&reach);
	if (nagain > 0)
	{
		QsColDirectory fresh;

		qs_coldir_read_all(rel, &fresh);
		reach_build(rel, &fresh, &reach);
		for (uint32 i = 0; i < nagain; i++)
		{
			Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, again[i],
												 RBM_NORMAL, bas);
			uint32		block_id = 0;
			ItemPointerData last;
			DelmapVerdict v;

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			v = delmap_judge(buf, &reach, false, &block_id, &last);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			if (v == DELMAP_UNREACHED)
			{
				/*
				 * Ask as VACUUM's second pass does, through every entry of
				 * the TID range, EMPTIED ones included (reach_build skips
				 * them): rare, so its cost (a walk of the directory) does
				 * not matter.  The last entry's row: the page a version
				 * reaches it on holds the others.
				 */
				Buffer		found = qs_coldelmap_buffer_any_in(rel, &fresh, &last);

				if (BufferIsValid(found))
				{
					if (BufferGetBlockNumber(found) == again[i])
					{
						LockBuffer(buf, BUFFER_LOCK_SHARE);
						v = delmap_judge(buf, &reach, true, &block_id, &last);
						LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					}
					ReleaseBuffer(found);
				}
			}
			ReleaseBuffer(buf);
			delmap_report(rel, v, again[i], block_id);
		}
		reach_free(&reach);
		pfree(fresh.entries);
		pfree(again);
	}
	FreeAccessStrategy(bas);
}

/* FREE-range entries by generation, then first page */
static int
free_entry_cmp(const void *a, const void *b)
{
	const QsColDirEntry *x = a;
	const QsColDirEntry *y = b;

	if (x->cid != y->cid)
		return x->cid < y->cid ? -1 : 1;
	return x->run_start < y->run_start ? -1 : x->run_start > y->run_start ? 1 : 0;
}

/*
 * The FREE-range entries of the directory (README section 4.7): exactly
 * their fixed fields (block id 0, the sentinel TID range, RETIRED, the
 * three flags, no writer, no rows), a range that is not the metapage and
 * not empty, and no overlap between two of one generation (a compaction
 * writes disjoint ranges; a crash may leave an older generation beside
 * it, which may overlap).  Their pages may lie past the end of the
 * relation since a truncation: readers clip them (run.c).
 */
static void
check_free_entries(Relation rel, const QsColDirectory *dir)
{
	QsColDirEntry *f = palloc(sizeof(QsColDirEntry) * Max(dir->nentries, 1));
	uint32		nf = 0;

	for (uint32 i = 0; i < dir->nentries; i++)
	{
		const QsColDirEntry *e = &dir->entries[i];

		if (!qs_coldir_is_free(e))
			continue;
		if (e->block_id != 0 || e->tid_range != QS_COLDIR_FREE_TIDRANGE ||
			e->state != QS_COLBLK_RETIRED || e->flags != QS_COLDIR_FREE_FLAGS ||
			e->xmin != InvalidTransactionId || e->xmax != InvalidTransactionId ||
			e->published != 0 || e->base != 0 || e->nrows != 0)
			corrupt(rel, "a free-range directory entry has block id %u, flags 0x%x",
					e->block_id, e->flags);
		if (e->npages == 0 || e->run_start == QS_COLMETA_BLKNO ||
			e->run_start == InvalidBlockNumber ||
			(uint64) e->run_start + e->npages > (uint64) MaxBlockNumber + 1)
			corrupt(rel, "a free-range directory entry lists %u pages at page %u",
					e->npages, e->run_start);
		f[nf++] = *e;
	}
	qsort(f, nf, sizeof(QsColDirEntry), free_entry_cmp);
	for (uint32 i = 1; i < nf; i++)
		if (f[i].cid == f[i - 1].cid &&
			f[i].run_start < f[i - 1].run_start + f[i - 1].npages)
			corrupt(rel, "free-range directory entries of generation %u overlap at page %u",
					f[i].cid, f[i].run_start);
	pfree(f);
}

/*
 * qs_column_check
 *		Check the column storage of rel; returns the number of main rows of
 *		blocks whose loader did not abort.
 */
int64
qs_column_check(Relation rel)
{
	QsColMeta	before;
	QsColMeta	meta;
	QsColDirectory dir;
	QsColAttr  *attrs;
	QsCmpFn    *cmps;
	void	  **args;
	int64		rows = 0;
	BlockNumber nblocks;
	TupleDesc	desc = RelationGetDescr(rel);
	MemoryContext cxt,
				old;

	qs_colload_flush_rel(rel);

	/*
	 * No VACUUM, merge or seal meanwhile: they give runs of versions no
	 * snapshot reads back to the delta, and the check reads every version.
	 * DML goes on (ShareUpdateExclusiveLock, as theirs).  A standby takes
	 * no such lock; there the replay of a VACUUM may still free a run the
	 * check reads (an error that a repeated check does not show).
	 */
	if (!RecoveryInProgress())
		LockRelation(rel, ShareUpdateExclusiveLock);

	/*
	 * Loads and deletes may run beside the check.  An entry goes into the directory and the metapage
	 * together, under both buffer locks: the walk sees at least the
	 * entries of the metapage read before it and at most those of the one
	 * read after.  The size comes after the directory: every run and
	 * delete-map root it names was written before it was named.
	 */
	qs_colmeta_read(rel, &before);
	qs_coldir_read_all(rel, &dir);
	qs_colmeta_read(rel, &meta);
	nblocks = RelationGetNumberOfBlocks(rel);
	if (dir.nentries < before.nentries || dir.nentries > meta.nentries)
		corrupt(rel, "the metapage counts %u directory entries, the directory has %u",
				dir.nentries < before.nentries ? before.nentries : meta.nentries,
				dir.nentries);
	/* exact within one metapage hold: walkers hold it (P1) */
	{
		QsColDirSize size;

		qs_coldir_count(rel, &size);
		if (size.entries != size.meta_entries)
			corrupt(rel, "the metapage counts %u directory entries, the directory has %u",
					(uint32) size.meta_entries, (uint32) size.entries);
	}
	check_free_entries(rel, &dir);

	attrs = qs_colattrs(desc);
	qs_colretype_reading(rel, attrs);
	cmps = palloc0(sizeof(QsCmpFn) * Max(desc->natts, 1));
	args = palloc0(sizeof(void *) * Max(desc->natts, 1));
	for (int c = 0; c < desc->natts; c++)
	{
		cmps[c] = attrs[c].cmpfn;
		args[c] = &attrs[c];
	}
	cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep column check",
								ALLOCSET_DEFAULT_SIZES);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];
		QsColBlockHandle h;
		uint8	   *image;
		QsCodecErr	err;
		QsCodecStatus st;

		CHECK_FOR_INTERRUPTS();
		if (qs_coldir_is_free(e))
			continue;			/* check_free_entries */
		if (e->block_id == 0 || e->block_id >= meta.next_block_id)
			corrupt(rel, "directory entry %u has block id %u", i, e->block_id);
		if (e->tid_range >= meta.next_range)
			corrupt(rel, "block %u has TID range %u, not yet reserved", e->block_id,
					e->tid_range);
		/* versions of one open block share its range (src/merge/README.md 5) */
		if (i > 0 && e->tid_range == dir.entries[i - 1].tid_range &&
			(e->block_id != dir.entries[i - 1].block_id ||
			 !(e->flags & QS_COLDIR_MERGED) ||
			 e->delmap_root != dir.entries[i - 1].delmap_root ||
			 e->base > e->published))
			corrupt(rel, "blocks %u and %u share a TID range", e->block_id,
					dir.entries[i - 1].block_id);
		if (e->published > e->nrows || e->nrows > QS_COLBLOCK_MAX_ROWS)
			corrupt(rel, "block %u publishes %u rows", e->block_id, e->published);
		if (e->state == QS_COLBLK_RETIRED)
			continue;
		/* a frozen writer kept for xmin (qs_coldir_freeze) */
		if ((e->flags & QS_COLDIR_CID_IS_XMIN) &&
			(e->xmin != FrozenTransactionId ||
			 !TransactionIdIsNormal((TransactionId) e->cid) ||
			 TransactionIdIsValid(e->xmax)))
			corrupt(rel, "block %u keeps xid %u as its frozen writer, but is not frozen",
					e->block_id, (TransactionId) e->cid);
		if (e->flags & QS_COLDIR_PENDING)
		{
			/* a load still buffering (or one that aborted before writing) */
			if (e->published != 0 || e->npages != 0)
				corrupt(rel, "pending block %u publishes %u rows", e->block_id,
						e->published);
			continue;
		}
		if (e->state != QS_COLBLK_SEALED && e->state != QS_COLBLK_OPEN)
			corrupt(rel, "block %u has state %u", e->block_id, e->state);
		if (e->run_start == QS_COLMETA_BLKNO || e->npages == 0 ||
			e->run_start >= nblocks || e->npages > nblocks - e->run_start)
			corrupt(rel, "block %u has a run at page %u outside the relation",
					e->block_id, e->run_start);

		/* the whole image through the run's checked pages, then every byte */
		old = MemoryContextSwitchTo(cxt);
		qs_colblock_load(rel, e, &h);
		image = qs_colblock_read_bytes(&h, 0, e->image_len);
		err.msg[0] = '\0';
		st = qs_colblock_verify(image, e->image_len, cmps, args,
								qs_palloc_allocator(), &err);
		if (st != QS_CODEC_OK)
			qs_colblock_report(rel, e->block_id, st, &err);
		MemoryContextSwitchTo(old);
		MemoryContextReset(cxt);

	}
	MemoryContextDelete(cxt);

	/*
	 * Not on a hot standby: it takes no lock that keeps VACUUM's second
	 * pass and compaction (or a merge's extend and supersede) from
	 * replaying between a page's read and the directory's.
	 */
	if (!RecoveryInProgress())
		check_delmap_reached(rel, &dir);
	pfree(dir.entries);

	/* the delete maps, rows and marks of each block's current version */
	qs_coldir_read(rel, &dir);
	nblocks = RelationGetNumberOfBlocks(rel);	/* after it, as above */
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		if (e->state == QS_COLBLK_RETIRED || (e->flags & QS_COLDIR_PENDING))
			continue;
		check_delmap(rel, e, nblocks);
		if (!TransactionIdIsNormal(e->xmin) ||
			TransactionIdIsCurrentTransactionId(e->xmin) ||
			!TransactionIdDidAbort(e->xmin))
			rows += e->published;
	}
	(void) qs_merge_check_links(rel, &dir);
	return rows;
}
