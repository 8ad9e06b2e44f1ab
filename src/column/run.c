/*-------------------------------------------------------------------------
 *
 * run.c
 *	  Block runs: a column block image written over consecutive pages of
 *	  the main fork, and read back through shared buffers.
 *
 * Writing: a seal's move only into the lowest empty delta pages below the
 * old run (README section 4.7, "The seal moves runs down":
 * qs_colrun_write_below, or not at all); every other run first into pages
 * given back to the delta (README section 4.7, "Runs into freed page
 * ranges": reuse_pages), else at the end of the
 * fork while this backend holds the relation extension lock, so they are
 * consecutive (inserters into the delta extend under the same lock).  An
 * added page is new, exclusively locked from its extension until it is
 * filled and WAL-logged as a full-page image (the hole after pd_lower
 * elided), so no inserter can take it for rows: a new page is only ever
 * seen locked, and once filled it is a column page, which the engine
 * passes over.  A reused page is converted under its exclusive lock only
 * while it holds no record, so whoever locks it before has left nothing
 * on it and whoever locks it after finds a column page.
 * A run nothing points to yet (its directory entry is appended after)
 * is garbage after a crash; VACUUM gives such pages back when they lie in
 * freed ranges (qs_colrun_sweep: a seal's move lists its window as freed
 * before it converts it), not at the end of the fork (README 11).
 *
 * Reading: qs_colblock_gather() asks for pages one at a time; each is
 * share-locked while it is checked (block id, page number, payload end)
 * and its bytes are copied out, before any byte is used.  Damage is reported as
 * ERRCODE_DATA_CORRUPTED naming the relation and the block.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/colstore.h"
#include "core/quickstep.h"
#include "page/layout.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"

/*
 * Freed page ranges (README section 4.7, "Runs into freed page ranges").
 *
 * The candidates are the runs of directory entries flagged RUN_RECLAIMED:
 * the only consecutive pages a column table gives back, with their
 * lengths (the free space map knows pages, not runs: finding npages
 * consecutive empty pages in it means a look-up per page of the table).
 * Adjacent and overlapping ones are merged, and the runs of every entry
 * not flagged so (live, pending, or retired with its pages still to go
 * back) are cut out, as are pages at or past the end of the fork.  The
 * pages themselves decide: a page is taken only while new, or not a
 * column page and holding no record (page_is_free), under its exclusive
 * lock.
 */
typedef struct FreeRanges
{
	QsPageRange *free;			/* sorted, disjoint */
	int			nfree;
	BlockNumber *starts;		/* run starts of entries of the writer's block */
	int			nstarts;
} FreeRanges;

static int
range_cmp(const void *a, const void *b)
{
	const QsPageRange *x = a;
	const QsPageRange *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end ? 1 : 0;
}

static bool
entry_has_run(const QsColDirEntry *e)
{
	return e->npages > 0 && e->run_start != InvalidBlockNumber &&
		e->run_start != QS_COLMETA_BLKNO;
}

static int
blkno_cmp(const void *a, const void *b)
{
	BlockNumber x = *(const BlockNumber *) a;
	BlockNumber y = *(const BlockNumber *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* Sort r[0..n) and merge overlapping and adjacent ranges; the new count. */
static int
merge_ranges(QsPageRange *r, int n)
{
	int			m = 0;

	if (n == 0)
		return 0;
	qsort(r, n, sizeof(QsPageRange), range_cmp);
	for (int i = 1; i < n; i++)
	{
		if (r[i].start <= r[m].end)
			r[m].end = Max(r[m].end, r[i].end);
		else
			r[++m] = r[i];
	}
	return m + 1;
}

/*
 * The freed ranges of the directory copy 'all' below 'nblocks'; with
 * block_id, also the run starts of that block's entries, sorted (a new
 * run of a block never starts where one of its versions' runs started:
 * VACUUM tells runs apart by block id and start, qs_coldir_reclaim).
 * Both kinds of ranges are sorted and merged into disjoint lists, then the
 * used ones are cut out of the freed ones in one pass over both: every
 * run write and VACUUM calls this, and the directory keeps every
 * RUN_RECLAIMED entry, so it is O((n + m) log(n + m)), not O(n * m).
 */
static void
free_ranges(const QsColDirectory *all, BlockNumber nblocks, uint32 block_id,
			FreeRanges *fr)
{
	QsPageRange *freed = palloc(sizeof(QsPageRange) * Max(all->nentries, 1));
	QsPageRange *used = palloc(sizeof(QsPageRange) * Max(all->nentries, 1));
	int			nfreed = 0;
	int			nused = 0;
	int			j = 0;
	QsPageRange *out;
	int			nout = 0;

	fr->starts = palloc(sizeof(BlockNumber) * Max(all->nentries, 1));
	fr->nstarts = 0;
	for (uint32 i = 0; i < all->nentries; i++)
	{
		const QsColDirEntry *e = &all->entries[i];
		QsPageRange r;

		if (e->block_id == block_id && e->run_start != InvalidBlockNumber)
			fr->starts[fr->nstarts++] = e->run_start;
		if (!entry_has_run(e))
			continue;
		if (e->run_start >= nblocks)
			continue;
		r.start = e->run_start;
		r.end = (BlockNumber) Min((uint64) e->run_start + e->npages,
								  (uint64) nblocks);
		if (e->state == QS_COLBLK_RETIRED && (e->flags & QS_COLDIR_RUN_RECLAIMED))
			freed[nfreed++] = r;
		else
			used[nused++] = r;
	}
	if (fr->nstarts > 1)
		qsort(fr->starts, fr->nstarts, sizeof(BlockNumber), blkno_cmp);
	nfreed = merge_ranges(freed, nfreed);
	nused = merge_ranges(used, nused);

	/*
	 * Cut the used ranges out.  Both lists are sorted and disjoint, so the
	 * used ranges meeting a freed range follow those meeting the one before
	 * (a used range may meet several): j only moves forward.  Each freed
	 * range yields at most one piece more than the used ranges it meets.
	 */
	out = palloc(sizeof(QsPageRange) * (nfreed + nused + 1));
	for (int i = 0; i < nfreed; i++)
	{
		BlockNumber cur = freed[i].start;

		while (j < nused && used[j].end <= cur)
			j++;
		for (int k = j; k < nused && used[k].start < freed[i].end; k++)
		{
			if (used[k].start > cur)
			{
				out[nout].start = cur;
				out[nout].end = used[k].start;
				nout++;
			}
			cur = Max(cur, used[k].end);
		}
		if (cur < freed[i].end)
		{
			out[nout].start = cur;
			out[nout].end = freed[i].end;
			nout++;
		}
	}
	pfree(freed);
	pfree(used);
	fr->free = out;
	fr->nfree = nout;
}

/*
 * qs_colrun_free_ranges
 *		The freed page ranges of the directory copy 'all' below 'nblocks',
 *		sorted and disjoint, with the runs in use cut out: what VACUUM's
 *		directory compaction keeps in FREE-range entries (dir.c,
 *		qs_coldir_compact) before it removes the entries that name them.
 */
QsPageRange *
qs_colrun_free_ranges(const QsColDirectory *all, BlockNumber nblocks,
					  int *nfree)
{
	FreeRanges	fr;

	free_ranges(all, nblocks, InvalidBlockNumber, &fr);
	pfree(fr.starts);
	*nfree = fr.nfree;
	return fr.free;
}

/* May the row engine's page become a run page?  Under its lock. */
static bool
page_is_free(const QsPageLayout *L, Page page)
{
	if (PageIsNew(page))
		return true;
	if (qs_is_column_page(page))
		return false;
	return !qs_page_has_records(L, page);
}

/*
 * The exclusively locked empty page 'buf' is about to become a column
 * page: its visibility map bits go first (logged), as before any change
 * that clears PD_ALL_VISIBLE (vm.c) — VACUUM flags an empty page
 * all-visible, a column page never has bits (the checker says so); a
 * crash or error before the page's own record leaves a flag with clear
 * bits, which is allowed.  Its free space map entry becomes 0, so that
 * inserters stop choosing it (one that chose it before finds a column
 * page under the lock and passes over it, as over a full page).
 */
static void
take_page(Relation rel, Buffer buf)
{
	qs_vm_clear(rel, buf);
	RecordPageWithFreeSpace(rel, BufferGetBlockNumber(buf), 0);
}

/*
 * Lock 'buf' exclusively if that needs no wait and its page may become a
 * column page; else release it (*freespace: what its layout says it has
 * free, or SIZE_MAX when it was locked by another backend).  Never waiting, a run writer or a maker of
 * delete-map pages holds no buffer lock anybody waits for while it waits
 * for one (an updater holding its new version's delta page may wait for a
 * delete-map page; a merge holds delta pages while it moves rows).
 */
static bool
lock_if_free(const QsPageLayout *L, Buffer buf, Size *freespace)
{
	if (freespace)
		*freespace = SIZE_MAX;	/* busy */
	if (!ConditionalLockBuffer(buf))
	{
		ReleaseBuffer(buf);
		return false;
	}
	if (!page_is_free(L, BufferGetPage(buf)))
	{
		if (freespace)
			*freespace = qs_page_free_space(L, BufferGetPage(buf));
		UnlockReleaseBuffer(buf);
		return false;
	}
	return true;
}

/*
 * qs_colpage_take_free
 *		An empty page of the delta for a delete-map page, exclusively
 *		locked, its visibility map bits cleared and its free space map
 *		entry 0; InvalidBuffer when the free space map offers none in a
 *		few tries.  Pages given back (run and delete-map pages of retired
 *		blocks) are recorded empty there (qs_colpage_give_back).  The
 *		caller writes it as a column page (a full-page image in its WAL
 *		record) before it unlocks it; until then the page is unchanged,
 *		so an error leaves an empty delta page (with 0 free space recorded
 *		until VACUUM records it again).
 */
Buffer
qs_colpage_take_free(Relation rel)
{
	const QsPageLayout *L = qs_layout_of(rel);
	Size		need = BLCKSZ - 1024;
	BlockNumber blk = GetPageWithFreeSpace(rel, need);

	for (int tries = 0; tries < 8 && blk != InvalidBlockNumber; tries++)
	{
		Buffer		buf;
		Size		freespace;

		if (blk == QS_COLMETA_BLKNO ||
			blk >= RelationGetNumberOfBlocks(rel))
			break;
		buf = ReadBuffer(rel, blk);
		if (lock_if_free(L, buf, &freespace))
		{
			take_page(rel, buf);
			return buf;
		}
		/*
		 * Holding rows: never sent here again for this request (as the
		 * engine's inserters do); busy: left as recorded, and given up.
		 */
		if (freespace == SIZE_MAX)
			break;
		blk = RecordAndGetPageWithFreeSpace(rel, blk,
											Min(freespace, need - 1), need);
	}
	return InvalidBuffer;
}

/* Fill the exclusively locked 'buf' with page k of the image, logged. */
static void
fill_run_page(Relation rel, Buffer buf, uint32 block_id, const uint8 *image,
			  uint64 image_len, uint32 k)
{
	Page		page = BufferGetPage(buf);

	START_CRIT_SECTION();
	PageInit(page, BLCKSZ, QS_COLPAGE_SPECIAL);
	qs_colpage_fill((uint8 *) page, image, image_len, block_id, k);
	MarkBufferDirty(buf);
	if (RelationNeedsWAL(rel))
		log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
}

/*
 * Convert pages [s, s + npages) into the run, in ascending order, one
 * buffer lock at a time.  A page found taken (a delta inserter that chose
 * it from the free space map, or another run writer, locked it first)
 * ends the attempt: the pages converted so far go back to the delta
 * (nobody else reads or writes them: no directory entry names them) and
 * *taken is set to the taken page.  A taken page we could lock (a column
 * page, or one holding records) gets what it has free recorded in the
 * free space map, 0 for a column page: the map is not WAL-logged, so a
 * crash may lose the 0 take_page recorded, and a promoted standby's map
 * never had it; left, the stale entry would offer the page again to every
 * run write and every seal.  A page locked by another backend is left as
 * recorded (it is busy, not necessarily taken).
 */
static Buffer lock_run_page(Relation rel, BlockNumber blk, uint32 sp[4]);

static bool
convert_pages(Relation rel, const QsPageLayout *L, BlockNumber s,
			  uint32 npages, uint32 block_id, const uint8 *image,
			  uint64 image_len, BlockNumber *taken)
{
	for (uint32 k = 0; k < npages; k++)
	{
		BlockNumber blk = s + k;
		Buffer		buf;

		Size		freespace;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(rel, blk);
		if (!lock_if_free(L, buf, &freespace))
		{
			if (freespace != SIZE_MAX)
				RecordPageWithFreeSpace(rel, blk, freespace);

			/*
			 * Give back the pages this write converted, each only while it
			 * is still this run's page k (nothing else gives them back
			 * early today; if something did, a page with delta rows must
			 * not be emptied here).
			 */
			for (uint32 j = 0; j < k; j++)
			{
				uint32		sp[4];

				buf = lock_run_page(rel, s + j, sp);
				if (!BufferIsValid(buf))
					continue;
				if (sp[1] == block_id && sp[2] == j)
					qs_colpage_give_back(rel, buf);
				UnlockReleaseBuffer(buf);
			}
			*taken = blk;
			return false;
		}

		take_page(rel, buf);
		fill_run_page(rel, buf, block_id, image, image_len, k);
		UnlockReleaseBuffer(buf);
		if (k == 0 && npages > 1 && qs_debug_vacuum_crash == QS_DEBUG_RUN_CONVERTING)
		{
			XLogFlush(GetXLogInsertRecPtr());
			elog(PANIC, "quickstep.debug_vacuum_crash: stopping in a run write into existing pages");
		}
		if (k == 0 && npages > 1 && qs_debug_vacuum_crash == QS_DEBUG_RUN_CONVERT_ERROR)
			elog(ERROR, "quickstep.debug_vacuum_crash: failing in a run write into existing pages");
	}
	return true;
}

/*
 * quickstep.debug_run_wait: wait for the test's advisory lock (7401, 1),
 * as pg_advisory_lock_shared(7401, 1) would, holding no buffer lock.
 */
static void
debug_wait(void)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, 7401, 1, 2);
	(void) LockAcquire(&tag, ShareLock, false, false);
	(void) LockRelease(&tag, ShareLock, false);
}

/*
 * reuse_pages
 *		Write the run into npages consecutive freed pages; the first page,
 *		or InvalidBlockNumber when no freed range takes it.  A page the free
 *		space map records with less than half a page free is taken by the
 *		delta (given-back pages are recorded empty, converted ones as
 *		full): passed over unread.  A stale entry costs a read, once:
 *		convert_pages records what the page really has free.
 */
static BlockNumber
reuse_pages(Relation rel, uint32 block_id, const uint8 *image,
			uint64 image_len, uint32 npages)
{
	QsColDirectory all;
	FreeRanges	fr;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	const QsPageLayout *L = qs_layout_of(rel);
	BlockNumber found = InvalidBlockNumber;

	qs_coldir_read_all(rel, &all);
	free_ranges(&all, nblocks, block_id, &fr);
	for (int i = 0; i < fr.nfree && found == InvalidBlockNumber; i++)
	{
		BlockNumber s = fr.free[i].start;

		while (found == InvalidBlockNumber &&
			   fr.free[i].end - s >= npages)
		{
			bool		ok = true;
			BlockNumber taken = InvalidBlockNumber;

			if (fr.nstarts > 0 &&
				bsearch(&s, fr.starts, fr.nstarts, sizeof(BlockNumber),
						blkno_cmp) != NULL)
				ok = false;
			if (!ok)
			{
				s++;
				continue;
			}
			for (uint32 k = 0; k < npages && ok; k++)
				if (GetRecordedFreeSpace(rel, s + k) < BLCKSZ / 2)
				{
					ok = false;
					taken = s + k;
				}
			if (ok && qs_debug_run_wait)
				debug_wait();
			if (ok && convert_pages(rel, L, s, npages, block_id, image,
									image_len, &taken))
				found = s;
			else
				s = taken + 1;
		}
	}
	pfree(fr.free);
	pfree(fr.starts);
	pfree(all.entries);
	return found;
}

/*
 * Cut pages [a, b) out of the windows (ascending, disjoint): a window
 * meeting them keeps its pieces below a and from b on.  The array is
 * rebuilt in ws->cxt (the seal's, which outlives each seal_version).
 */
static void
windows_cut(QsRunWindows *ws, BlockNumber a, BlockNumber b)
{
	QsPageRange *out;
	int			n = 0;

	if (ws->n == 0 || a >= b)
		return;
	out = MemoryContextAlloc(ws->cxt, sizeof(QsPageRange) * (ws->n + 1));
	for (int i = 0; i < ws->n; i++)
	{
		QsPageRange r = ws->w[i];

		if (r.end <= a || r.start >= b)
		{
			out[n++] = r;
			continue;
		}
		if (r.start < a)
		{
			out[n].start = r.start;
			out[n].end = a;
			n++;
		}
		if (r.end > b)
		{
			out[n].start = b;
			out[n].end = r.end;
			n++;
		}
	}
	pfree(ws->w);
	ws->w = out;
	ws->n = n;
}

/*
 * Are pages [s, s + npages) free (page_is_free) now?  Each looked at under
 * a share lock, one at a time, holding no other (so the wait for one
 * blocks nobody who waits for us); the first that is not is *taken, with
 * what it has free recorded in the free space map (0 for a column page),
 * as convert_pages does.  Only a filter: the pages decide again under
 * their exclusive locks.  It spares a window the free space map offers
 * wrongly (a stale entry of a run page, a delta page refilled since the
 * map was read) a directory record per page of it (delta_window).
 */
static bool
window_probe(Relation rel, const QsPageLayout *L, BlockNumber s,
			 uint32 npages, BlockNumber *taken)
{
	for (uint32 k = 0; k < npages; k++)
	{
		Buffer		buf;
		Page		page;
		bool		isfree;
		Size		freespace = 0;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(rel, s + k);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		isfree = page_is_free(L, page);
		if (!isfree)
			freespace = qs_page_free_space(L, page);
		UnlockReleaseBuffer(buf);
		if (!isfree)
		{
			RecordPageWithFreeSpace(rel, s + k, freespace);
			*taken = s + k;
			return false;
		}
	}
	return true;
}

/*
 * delta_window
 *		Write the run into the lowest npages consecutive pages of the
 *		seal's windows below 'below' (delta pages a merge emptied and
 *		VACUUM recorded, and pages given back), none of them starting
 *		where a run of block_id's entries starts; the first page, or
 *		InvalidBlockNumber when no window takes it.  No look-up of the
 *		free space map: the windows are the seal's list (read once,
 *		qs_colrun_empty_windows), and the pages decide (window_probe
 *		first, then convert_pages under each page's exclusive lock).  A
 *		page found taken is cut out of the list (and its free space
 *		recorded) and the search goes on after it; the run's pages are
 *		cut out once written.  Before a window is converted it is listed
 *		as freed (qs_coldir_append_free), so that a seal that fails, is
 *		cancelled or crashes before its directory record names the run
 *		leaves pages VACUUM's sweep gives back, not column pages nothing
 *		names.
 */
static BlockNumber
delta_window(Relation rel, uint32 block_id, const uint8 *image,
			 uint64 image_len, uint32 npages, BlockNumber below,
			 QsRunWindows *ws)
{
	QsColDirectory all;
	const QsPageLayout *L = qs_layout_of(rel);
	BlockNumber found = InvalidBlockNumber;
	BlockNumber *starts;
	int			nstarts = 0;
	QsPageRange *w;
	int			nw = ws->n;

	if (nw == 0)
		return InvalidBlockNumber;
	below = Min(below, RelationGetNumberOfBlocks(rel));

	/* a new run of a block never starts where one of its runs started */
	qs_coldir_read_all(rel, &all);
	starts = palloc(sizeof(BlockNumber) * Max(all.nentries, 1));
	for (uint32 i = 0; i < all.nentries; i++)
		if (all.entries[i].block_id == block_id &&
			all.entries[i].run_start != InvalidBlockNumber)
			starts[nstarts++] = all.entries[i].run_start;
	if (nstarts > 1)
		qsort(starts, nstarts, sizeof(BlockNumber), blkno_cmp);
	if (all.entries)
		pfree(all.entries);

	/* a copy to walk: the list itself loses pages as they are found taken */
	w = palloc(sizeof(QsPageRange) * nw);
	memcpy(w, ws->w, sizeof(QsPageRange) * nw);
	for (int i = 0; i < nw && found == InvalidBlockNumber; i++)
	{
		BlockNumber s = w[i].start;
		BlockNumber end = Min(w[i].end, below);

		while (found == InvalidBlockNumber && s < end && end - s >= npages)
		{
			BlockNumber taken = InvalidBlockNumber;
			QsPageRange r;

			CHECK_FOR_INTERRUPTS();
			if (nstarts > 0 &&
				bsearch(&s, starts, nstarts, sizeof(BlockNumber),
						blkno_cmp) != NULL)
			{
				s++;
				continue;
			}
			if (!window_probe(rel, L, s, npages, &taken))
			{
				windows_cut(ws, taken, taken + 1);
				s = taken + 1;
				continue;
			}
			r.start = s;
			r.end = s + npages;
			qs_coldir_append_free(rel, &r);
			if (qs_debug_run_wait)
				debug_wait();
			if (convert_pages(rel, L, s, npages, block_id, image,
							  image_len, &taken))
			{
				found = s;
				windows_cut(ws, s, s + npages);
			}
			else
			{
				windows_cut(ws, taken, taken + 1);
				s = taken + 1;
			}
		}
	}
	pfree(w);
	pfree(starts);
	return found;
}

/*
 * qs_colrun_empty_windows
 *		The seal's windows (ws, in CurrentMemoryContext): the ranges of
 *		consecutive pages past the metapage that the free space map
 *		records at least half empty, ascending — the map's word, not
 *		checked on the pages.  Read once per seal (one look-up per page of
 *		the fork); quickstep.seal() moves a block's run down only when a
 *		window below it is long enough (src/merge/seal.c), and each move
 *		cuts its pages and the pages it found taken out of the list
 *		(delta_window) instead of reading the map again.  None with
 *		quickstep.column_run_reuse_delta off.
 */
void
qs_colrun_empty_windows(Relation rel, QsRunWindows *ws)
{
	int			cap = 0;
	BlockNumber s = InvalidBlockNumber;
	BlockNumber nblocks;

	ws->cxt = CurrentMemoryContext;
	ws->w = NULL;
	ws->n = 0;
	if (!qs_run_reuse_delta)
		return;
	nblocks = RelationGetNumberOfBlocks(rel);
	for (BlockNumber b = QS_COLMETA_BLKNO + 1; b <= nblocks; b++)
	{
		bool		empty = b < nblocks &&
			GetRecordedFreeSpace(rel, b) >= BLCKSZ / 2;

		if ((b & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (empty && s == InvalidBlockNumber)
			s = b;
		else if (!empty && s != InvalidBlockNumber)
		{
			if (ws->n == cap)
			{
				cap = Max(16, cap * 2);
				ws->w = ws->w ? repalloc(ws->w, sizeof(QsPageRange) * cap) :
					palloc(sizeof(QsPageRange) * cap);
			}
			ws->w[ws->n].start = s;
			ws->w[ws->n].end = b;
			ws->n++;
			s = InvalidBlockNumber;
		}
	}
}

/*
 * qs_colrun_window_fits
 *		Is one of the windows at least npages long below 'below'?  Only
 *		pages below it count: a run's own pages are not empty, so a window
 *		never reaches into it.
 */
bool
qs_colrun_window_fits(const QsRunWindows *ws, uint32 npages, BlockNumber below)
{
	for (int i = 0; i < ws->n && ws->w[i].start < below; i++)
		if (Min(ws->w[i].end, below) - ws->w[i].start >= npages)
			return true;
	return false;
}

/*
 * qs_colrun_write_below
 *		Write the run into the lowest npages consecutive pages of the
 *		windows ws below 'below' (delta pages emptied by VACUUM included,
 *		not only the directory's freed ranges); InvalidBlockNumber when
 *		none takes it.  Never elsewhere: a move that does not go down is
 *		no move, and the caller decides what else to do (seal.c).
 */
BlockNumber
qs_colrun_write_below(Relation rel, uint32 block_id, const uint8 *image,
					  uint64 image_len, BlockNumber below, QsRunWindows *ws)
{
	uint32		npages = qs_colblock_npages(image_len);

	if (!qs_run_reuse_delta || npages == 0 ||
		!qs_colrun_window_fits(ws, npages, below))
		return InvalidBlockNumber;
	return delta_window(rel, block_id, image, image_len, npages, below, ws);
}

BlockNumber
qs_colrun_write(Relation rel, uint32 block_id, const uint8 *image,
				uint64 image_len, BufferAccessStrategy strategy)
{
	uint32		npages = qs_colblock_npages(image_len);
	BlockNumber start = InvalidBlockNumber;
	bool		local = RELATION_IS_LOCAL(rel);

	if (npages == 0)
		elog(ERROR, "empty column block image");
	start = reuse_pages(rel, block_id, image, image_len, npages);
	if (start != InvalidBlockNumber)
		return start;
	if (!local)
		LockRelationForExtension(rel, ExclusiveLock);
	for (uint32 k = 0; k < npages; k++)
	{
		Buffer		buf = qs_extend_fork(rel, MAIN_FORKNUM, strategy);
		BlockNumber blk = BufferGetBlockNumber(buf);
		Page		page = BufferGetPage(buf);

		CHECK_FOR_INTERRUPTS();
		if (k == 0)
			start = blk;
		else if (blk != start + k)
			elog(ERROR, "run of column block %u of \"%s\" is not contiguous: page %u at block %u",
				 block_id, RelationGetRelationName(rel), k, blk);
		if (blk >= QS_VIRT_BASE)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("column table \"%s\" cannot grow past %u pages",
							RelationGetRelationName(rel), QS_VIRT_BASE)));
		if (!PageIsNew(page))
			elog(ERROR, "new page %u of column table \"%s\" is not empty",
				 blk, RelationGetRelationName(rel));
		fill_run_page(rel, buf, block_id, image, image_len, k);
		UnlockReleaseBuffer(buf);
	}
	if (!local)
		UnlockRelationForExtension(rel, ExclusiveLock);
	return start;
}

void
qs_colblock_report(Relation rel, uint32 block_id, QsCodecStatus st,
				   const QsCodecErr *err)
{
	if (st == QS_CODEC_BAD_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("column block %u of relation \"%s\" has an unknown format: %s",
						block_id, RelationGetRelationName(rel),
						err ? err->msg : qs_codec_status_name(st)),
				 errhint("The block was written by a newer version of quickstep_am.")));
	if (st == QS_CODEC_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory reading column block %u of relation \"%s\"",
						block_id, RelationGetRelationName(rel))));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("column block %u of relation \"%s\" is corrupt: %s",
					block_id, RelationGetRelationName(rel),
					err && err->msg[0] ? err->msg : qs_codec_status_name(st))));
	pg_unreachable();
}

/*
 * The pages of a run, for qs_colblock_gather: the page returned is the
 * shared buffer itself, share-locked until the next page is asked for or
 * the gather ends (release_page), which is as consistent as a copy made
 * under the lock and spares copying every page twice.  The fork's size is
 * asked at the first page of a gather, and again only for a page past it.
 */
typedef struct RunPages
{
	Relation	rel;
	const QsColDirEntry *e;
	BlockNumber nblocks;
	Buffer		held;
} RunPages;

static void
release_page(RunPages *rp)
{
	if (BufferIsValid(rp->held))
		UnlockReleaseBuffer(rp->held);
	rp->held = InvalidBuffer;
}

static const uint8_t *
run_get_page(void *arg, uint32_t pageno)
{
	RunPages   *rp = arg;
	BlockNumber blk;

	release_page(rp);
	if (pageno >= rp->e->npages)
		return NULL;
	blk = rp->e->run_start + pageno;
	if (blk >= rp->nblocks)
	{
		rp->nblocks = RelationGetNumberOfBlocks(rp->rel);
		if (blk >= rp->nblocks)
			return NULL;
	}
	rp->held = ReadBuffer(rp->rel, blk);
	LockBuffer(rp->held, BUFFER_LOCK_SHARE);
	return (const uint8_t *) BufferGetPage(rp->held);
}

static QsCodecStatus
gather_status(QsColBlockHandle *h, uint64 off, uint64 len, uint8 *out,
			  QsCodecErr *err)
{
	RunPages	rp;
	QsCodecStatus st;

	rp.rel = h->rel;
	rp.e = &h->entry;
	rp.nblocks = 0;
	rp.held = InvalidBuffer;
	st = qs_colblock_gather(run_get_page, &rp, h->entry.block_id, h->entry.npages,
							off, len, out, err);
	release_page(&rp);
	return st;
}

static void
gather(QsColBlockHandle *h, uint64 off, uint64 len, uint8 *out)
{
	QsCodecErr	err;
	QsCodecStatus st;

	err.msg[0] = '\0';
	st = gather_status(h, off, len, out, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(h->rel, h->entry.block_id, st, &err);
}

/*
 * qs_colblock_try_load
 *		Read and validate the header of the block of directory entry e, as
 *		qs_colblock_load does, but return what a corrupt directory entry,
 *		page or header is (h->header NULL) rather than raising it: for
 *		callers that can do without the block (the planner, colcost.c).
 *		Errors of the buffer manager itself are still raised.
 */
QsCodecStatus
qs_colblock_try_load(Relation rel, const QsColDirEntry *e, QsColBlockHandle *h,
					 QsCodecErr *err)
{
	uint8		fixed[QS_COLBLOCK_FIXEDSZ];
	uint32		header_len;
	uint64		image_len;
	QsCodecStatus st;

	h->rel = rel;
	h->entry = *e;
	h->header = NULL;
	err->msg[0] = '\0';
	if (e->npages != qs_colblock_npages(e->image_len) || e->image_len < QS_COLBLOCK_FIXEDSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT,
							  "directory entry: %u pages for %llu bytes", e->npages,
							  (unsigned long long) e->image_len);
	st = gather_status(h, 0, QS_COLBLOCK_FIXEDSZ, fixed, err);
	if (st == QS_CODEC_OK)
		st = qs_colblock_peek(fixed, sizeof(fixed), &header_len, &image_len, err);
	if (st == QS_CODEC_OK && image_len != e->image_len)
		st = qs_codec_error(err, QS_CODEC_CORRUPT,
							"image length %llu, directory says %llu",
							(unsigned long long) image_len,
							(unsigned long long) e->image_len);
	if (st != QS_CODEC_OK)
		return st;
	h->header = palloc(header_len);
	st = gather_status(h, 0, header_len, h->header, err);
	if (st == QS_CODEC_OK)
		st = qs_colblock_open(h->header, header_len, &h->blk, err);
	if (st == QS_CODEC_OK && h->blk.block_id != e->block_id)
		st = qs_codec_error(err, QS_CODEC_CORRUPT, "header names block %u",
							h->blk.block_id);
	if (st == QS_CODEC_OK && h->blk.nrows != e->nrows)
		st = qs_codec_error(err, QS_CODEC_CORRUPT,
							"header has %u rows, directory says %u",
							h->blk.nrows, e->nrows);
	if (st != QS_CODEC_OK)
	{
		pfree(h->header);
		h->header = NULL;
	}
	return st;
}

/*
 * qs_colblock_load
 *		Read and validate the header of the block of directory entry e.
 */
void
qs_colblock_load(Relation rel, const QsColDirEntry *e, QsColBlockHandle *h)
{
	QsCodecErr	err;
	QsCodecStatus st;

	if (e->npages != qs_colblock_npages(e->image_len) || e->image_len < QS_COLBLOCK_FIXEDSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory entry of column block %u of relation \"%s\" is corrupt: %u pages for %llu bytes",
						e->block_id, RelationGetRelationName(rel), e->npages,
						(unsigned long long) e->image_len)));
	st = qs_colblock_try_load(rel, e, h, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, e->block_id, st, &err);
}

/*
 * A copy of image bytes [off, off + len) (header-checked bounds) in memory
 * from alloc: a scan's scratch (scratch.c) or palloc.
 */
uint8 *
qs_colblock_read_bytes_alloc(QsColBlockHandle *h, uint64 off, uint64 len,
							 const QsCodecAllocator *alloc)
{
	uint8	   *out;

	if (len > MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("section of %llu bytes of column block %u of relation \"%s\" is too large to read",
						(unsigned long long) len, h->entry.block_id,
						RelationGetRelationName(h->rel))));
	out = alloc->alloc(alloc->ctx, Max(len, 1));
	if (len > 0)
		gather(h, off, len, out);
	return out;
}

/* A palloc'd copy of image bytes [off, off + len) (header-checked bounds). */
uint8 *
qs_colblock_read_bytes(QsColBlockHandle *h, uint64 off, uint64 len)
{
	return qs_colblock_read_bytes_alloc(h, off, len, qs_palloc_allocator());
}

void
qs_colblock_release(QsColBlockHandle *h)
{
	if (h->header)
		pfree(h->header);
	h->header = NULL;
}

/*
 * qs_colpage_give_back
 *		An exclusively locked page of a column table's own (run or delete
 *		map) becomes an empty delta page, logged as a full-page image, and
 *		is in the free space map at once (VACUUM's first pass, which records
 *		empty pages, may have passed it).
 */
void
qs_colpage_give_back(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);

	START_CRIT_SECTION();
	PageInit(page, BLCKSZ, 0);
	MarkBufferDirty(buf);
	if (RelationNeedsWAL(rel))
		log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	RecordPageWithFreeSpace(rel, BufferGetBlockNumber(buf),
							PageGetFreeSpace(page));
}

/*
 * Page blk exclusively locked if it is a block-run page, its special space
 * {magic, block id, page in run, pages in run} copied to sp; else
 * InvalidBuffer (nothing held).
 */
static Buffer
lock_run_page(Relation rel, BlockNumber blk, uint32 sp[4])
{
	Buffer		buf = ReadBuffer(rel, blk);
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	if (PageIsNew(page) || !qs_is_column_page(page) ||
		qs_column_page_magic(page) != QS_COLPAGE_MAGIC)
	{
		UnlockReleaseBuffer(buf);
		return InvalidBuffer;
	}
	memcpy(sp, PageGetSpecialPointer(page), 4 * sizeof(uint32));
	return buf;
}

/*
 * qs_colrun_reclaim
 *		Give the pages of a RETIRED block's run back to the delta: each page
 *		still holding this block's image becomes an empty page (logged as a
 *		full-page image, recorded empty in the free space map by
 *		qs_colpage_give_back), which the engine formats for rows on first
 *		use or VACUUM truncates from the end.  Only for blocks no snapshot
 *		can read: a load that aborted or crashed (its xmin never commits,
 *		so every directory reader skips it), or a block retired emptied
 *		once no snapshot from before its retirement is left (section 4.7
 *		of the README).  Idempotent: a page that is no longer this
 *		block's is left alone, so a crash half-way needs nothing but the
 *		next VACUUM.
 *		Returns the number of pages reclaimed.
 */
uint32
qs_colrun_reclaim(Relation rel, const QsColDirEntry *e)
{
	uint32		n = 0;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

	for (uint32 k = 0; k < e->npages; k++)
	{
		BlockNumber blk = e->run_start + k;
		Buffer		buf;
		uint32		sp[4];

		if (blk >= nblocks || blk == QS_COLMETA_BLKNO)
			break;
		CHECK_FOR_INTERRUPTS();
		buf = lock_run_page(rel, blk, sp);
		if (!BufferIsValid(buf))
			continue;
		if (sp[1] != e->block_id || sp[2] != k)
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		qs_colpage_give_back(rel, buf);
		UnlockReleaseBuffer(buf);
		n++;
	}
	return n;
}

/* What the sweep needs of a directory entry, sorted by block id. */
typedef struct SweepEntry
{
	uint32		block_id;
	BlockNumber run_start;
	bool		reclaimed;		/* RUN_RECLAIMED */
	bool		loading;		/* PENDING and not RETIRED */
} SweepEntry;

static int
sweep_entry_cmp(const void *a, const void *b)
{
	const SweepEntry *x = a;
	const SweepEntry *y = b;

	return x->block_id < y->block_id ? -1 : x->block_id > y->block_id ? 1 : 0;
}

/*
 * Must the sweep keep run page k of block block_id at blk?  The rules of
 * qs_colrun_sweep, over the entries of that block (a binary search for the
 * first, not a pass over the directory per page).
 */
static bool
sweep_keeps(const SweepEntry *se, int nse, uint32 next_block_id,
			uint32 block_id, uint32 k, BlockNumber blk)
{
	int			lo = 0;
	int			hi = nse;

	if (block_id >= next_block_id || k > blk)
		return true;
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (se[mid].block_id < block_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int a = lo; a < nse && se[a].block_id == block_id; a++)
	{
		if (se[a].run_start == blk - k && !se[a].reclaimed)
			return true;
		if (se[a].loading)
			return true;
	}
	return false;
}

/*
 * qs_colrun_sweep
 *		VACUUM, after qs_coldir_reclaim: give back run pages in freed
 *		ranges that no directory entry will ever name or reclaim — the
 *		pages a run write converted before its writer crashed, failed or
 *		aborted without an entry naming the run (a merge appends its entry
 *		after the run; a load's pending entry gets its run at publication).
 *		A run page (block b, page k of its run) at block blk is kept while
 *		- b was not yet reserved when the metapage was read (read before
 *		  the directory: a writer reserving later is not in the copy),
 *		- an entry of block b starts its run at blk - k and is not flagged
 *		  RUN_RECLAIMED (its own retirement gives the page back), or
 *		- an entry of block b is a load's pending one, not retired: the
 *		  load may be writing its run now.
 *		Merges and seals write runs under ShareUpdateExclusiveLock,
 *		which the caller holds: none is in progress.  Only freed ranges are
 *		swept: the only pages a run write converts, since a seal's move
 *		lists the delta pages it converts as a freed range first
 *		(qs_coldir_append_free); an unnamed run written at the end of the
 *		fork stays (README section 11).  Returns the pages given back.
 *
 *		Each page is read through the caller's buffer access strategy
 *		(VACUUM's ring: the freed ranges of every round ever recorded are
 *		read, and must not push the cache out) and looked at under a share
 *		lock: most are delta pages or live runs, kept, and an inserter or
 *		reader of a busy delta page is not held up.  A page to give back is
 *		locked exclusively after, and given back only if its special space
 *		is still the one decided on: the decision depends on nothing else
 *		(the directory copy is the caller's), and a page with the same
 *		block id, page number and run length there is the same run page —
 *		a new run of a block never starts where one of its runs started.
 */
uint32
qs_colrun_sweep(Relation rel, BufferAccessStrategy bstrategy)
{
	QsColMeta	meta;
	QsColDirectory all;
	FreeRanges	fr;
	SweepEntry *se;
	BlockNumber nblocks;
	uint32		n = 0;

	qs_colmeta_read(rel, &meta);
	qs_coldir_read_all(rel, &all);
	nblocks = RelationGetNumberOfBlocks(rel);
	free_ranges(&all, nblocks, InvalidBlockNumber, &fr);
	se = palloc(sizeof(SweepEntry) * Max(all.nentries, 1));
	for (uint32 a = 0; a < all.nentries; a++)
	{
		const QsColDirEntry *e = &all.entries[a];

		se[a].block_id = e->block_id;
		se[a].run_start = e->run_start;
		se[a].reclaimed = (e->flags & QS_COLDIR_RUN_RECLAIMED) != 0;
		se[a].loading = (e->flags & QS_COLDIR_PENDING) &&
			e->state != QS_COLBLK_RETIRED;
	}
	if (all.nentries > 1)
		qsort(se, all.nentries, sizeof(SweepEntry), sweep_entry_cmp);
	for (int i = 0; i < fr.nfree; i++)
	{
		for (BlockNumber blk = fr.free[i].start; blk < fr.free[i].end; blk++)
		{
			Buffer		buf;
			Page		page;
			uint32		sp[4];
			bool		give_back;

			CHECK_FOR_INTERRUPTS();
			buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL,
									 bstrategy);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			give_back = !PageIsNew(page) && qs_is_column_page(page) &&
				qs_column_page_magic(page) == QS_COLPAGE_MAGIC;
			if (give_back)
			{
				memcpy(sp, PageGetSpecialPointer(page), sizeof(sp));
				give_back = !sweep_keeps(se, all.nentries,
										 meta.next_block_id,
										 sp[1], sp[2], blk);
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			if (!give_back)
			{
				ReleaseBuffer(buf);
				continue;
			}
			/* still the page decided on? (it may have gone back meanwhile) */
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			page = BufferGetPage(buf);
			if (!PageIsNew(page) && qs_is_column_page(page) &&
				qs_column_page_magic(page) == QS_COLPAGE_MAGIC &&
				memcmp(sp, PageGetSpecialPointer(page), sizeof(sp)) == 0)
			{
				qs_colpage_give_back(rel, buf);
				n++;
			}
			UnlockReleaseBuffer(buf);
		}
	}
	pfree(se);
	pfree(fr.free);
	pfree(fr.starts);
	pfree(all.entries);
	return n;
}
