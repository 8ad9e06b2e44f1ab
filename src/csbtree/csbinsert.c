/*-------------------------------------------------------------------------
 *
 * csbinsert.c
 *	  csbtree: bulk build (sort, then pack pages bottom-up), single inserts
 *	  with page splits, downlink insertion and root splits.  Every page
 *	  change is WAL-logged with generic WAL records.
 *
 *-------------------------------------------------------------------------
 */
#include "csbtree/csbtree.h"

#include "access/generic_xlog.h"
#include "access/heapam.h"
#include "access/xact.h"
#include "access/stratnum.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"
#include "wal/genxlog.h"

/* ------------------------------------------------------------------------
 * Bulk build
 * ------------------------------------------------------------------------
 */

typedef struct CsbBuildLevel
{
	Buffer		buf;			/* the page's buffer, locked */
	Page		page;			/* the page being filled, in local memory */
	IndexTuple	lowkey;			/* copy of its first item (downlink key) */
	uint32		level;
	struct CsbBuildLevel *parent;
} CsbBuildLevel;

typedef struct CsbBuildState
{
	CsbState   *st;
	Tuplesortstate *sort;
	TupleTableSlot *slot;		/* virtual, to feed the sort */
	TupleTableSlot *outslot;	/* minimal, to read it back */
	int			natts;
	bool		unique;			/* enforce uniqueness among live tuples */
	bool		nullsnotdistinct;
	double		indtuples;
	CsbBuildLevel *leaf;
} CsbBuildState;

static void
csb_write_full_page(Relation index, Buffer buf, Page page)
{
	QsGenXLogState *xs = qs_genxlog_start(index);
	Page		p = qs_genxlog_register(xs, buf, GENERIC_XLOG_FULL_IMAGE);

	memcpy(p, page, BLCKSZ);
	qs_genxlog_finish(xs);
}

static CsbBuildLevel *
csb_build_newlevel_page(CsbBuildState *bs, uint32 level, BlockNumber left)
{
	CsbBuildLevel *lv = palloc0(sizeof(CsbBuildLevel));

	lv->buf = qs_csb_new_buffer(bs->st->index, MAIN_FORKNUM);
	lv->page = palloc(BLCKSZ);
	csb_init_page(lv->page, level, level == 0 ? CSB_LEAF : 0, bs->st->leafwidth);
	CsbPageGetOpaque(lv->page)->left = left;
	lv->level = level;
	return lv;
}

static void csb_build_add(CsbBuildState *bs, CsbBuildLevel *lv, IndexTuple itup);

/* Finish a page: rebuild its directory, WAL-log it, release its buffer. */
static void
csb_build_finish_page(CsbBuildState *bs, CsbBuildLevel *lv)
{
	csb_rebuild_directory(bs->st, lv->page);
	csb_write_full_page(bs->st->index, lv->buf, lv->page);
	UnlockReleaseBuffer(lv->buf);
	lv->buf = InvalidBuffer;
}

/* Add a downlink to blkno (key: lowkey) to the level above lv. */
static void
csb_build_downlink(CsbBuildState *bs, CsbBuildLevel *lv, IndexTuple lowkey, BlockNumber blkno)
{
	IndexTuple	down = CopyIndexTuple(lowkey);

	ItemPointerSet(&down->t_tid, blkno, FirstOffsetNumber);
	if (lv->parent == NULL)
	{
		lv->parent = csb_build_newlevel_page(bs, lv->level + 1, InvalidBlockNumber);
		lv->parent->parent = NULL;
	}
	csb_build_add(bs, lv->parent, down);
	pfree(down);
}

/*
 * csb_build_add
 *		Append an item to the current page of a level.  When it does not
 *		fit, the page's last item moves to a new page, and a copy of it
 *		takes its room as the old page's high key (as in nbtree's build);
 *		the old page gets its downlink one level up.  Pages are packed full.
 */
static void
csb_build_add(CsbBuildState *bs, CsbBuildLevel *lv, IndexTuple itup)
{
	if (!csb_fits(lv->page, itup) &&
		csb_maxoff(lv->page) >= FirstOffsetNumber + 1)
	{
		Page		opage = lv->page;
		Buffer		obuf = lv->buf;
		BlockNumber oblk = BufferGetBlockNumber(obuf);
		OffsetNumber last = csb_maxoff(opage);
		CsbTupBuf	tb;
		IndexTuple	lastitup;
		CsbBuildLevel *next;

		lastitup = CopyIndexTuple(csb_item(opage, last, &tb));
		csb_delete_items(opage, &last, 1);

		/* the new page starts with the moved item */
		next = csb_build_newlevel_page(bs, lv->level, oblk);
		CsbPageGetOpaque(opage)->right = BufferGetBlockNumber(next->buf);
		if (!csb_add_item(opage, lastitup, CSB_HIKEY))
			elog(ERROR, "csbtree: failed to add high key during build");
		if (!csb_add_item(next->page, lastitup, InvalidOffsetNumber))
			elog(ERROR, "csbtree: failed to add item during build");

		/* downlink to the old page, then write it */
		csb_build_downlink(bs, lv, lv->lowkey, oblk);
		csb_build_finish_page(bs, lv);
		pfree(opage);
		pfree(lv->lowkey);

		lv->buf = next->buf;
		lv->page = next->page;
		lv->lowkey = lastitup;
		pfree(next);
	}

	if (!csb_add_item(lv->page, itup, InvalidOffsetNumber))
		elog(ERROR, "csbtree: failed to add item during build");
	if (lv->lowkey == NULL)
		lv->lowkey = CopyIndexTuple(itup);
}

static void
csb_build_callback(Relation index, ItemPointer tid, Datum *values,
				   bool *isnull, bool tupleIsAlive, void *state)
{
	CsbBuildState *bs = (CsbBuildState *) state;
	TupleTableSlot *slot = bs->slot;
	int			i;

	ExecClearTuple(slot);
	for (i = 0; i < bs->natts; i++)
	{
		slot->tts_values[i] = values[i];
		slot->tts_isnull[i] = isnull[i];
	}
	slot->tts_values[bs->natts] = PointerGetDatum(tid);
	slot->tts_isnull[bs->natts] = false;
	slot->tts_values[bs->natts + 1] = BoolGetDatum(tupleIsAlive);
	slot->tts_isnull[bs->natts + 1] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(bs->sort, slot);
	bs->indtuples += 1;
}

/*
 * Sorted input: equal keys are adjacent.  Two live tuples with the same key
 * (no NULL in it, unless NULLS NOT DISTINCT) break uniqueness; recently
 * dead ones may repeat a key.
 */
static void
csb_build_check_unique(CsbBuildState *bs, Relation heap, IndexTuple itup,
					   Datum *values, bool *isnull, bool alive,
					   IndexTuple *prev, bool *run_alive)
{
	bool		hasnull = false;
	int			i;

	for (i = 0; i < bs->natts; i++)
		if (isnull[i])
			hasnull = true;
	if (*prev != NULL && (!hasnull || bs->nullsnotdistinct))
	{
		CsbSearchKey key;

		csb_key_from_values(bs->st, values, isnull, &key);
		if (csb_compare_tuple(bs->st, &key, *prev) == 0)
		{
			if (alive && *run_alive)
			{
				char	   *key_desc = BuildIndexValueDescription(bs->st->index, values, isnull);

				ereport(ERROR,
						(errcode(ERRCODE_UNIQUE_VIOLATION),
						 errmsg("could not create unique index \"%s\"",
								RelationGetRelationName(bs->st->index)),
						 key_desc ? errdetail("Key %s is duplicated.", key_desc) :
						 errdetail("Duplicate keys exist."),
						 errtableconstraint(heap, RelationGetRelationName(bs->st->index))));
			}
			*run_alive = *run_alive || alive;
			return;
		}
	}
	if (*prev)
		pfree(*prev);
	*prev = CopyIndexTuple(itup);
	*run_alive = alive;
}

IndexBuildResult *
csb_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	CsbBuildState bs;
	TupleDesc	itupdesc = RelationGetDescr(index);
	TupleDesc	sortdesc;
	AttrNumber	attnums[INDEX_MAX_KEYS];
	Oid			sortops[INDEX_MAX_KEYS];
	Oid			colls[INDEX_MAX_KEYS];
	bool		nullsfirst[INDEX_MAX_KEYS];
	Buffer		metabuf;
	Page		metapage = NULL;
	CsbMetaData *meta;
	CsbBuildLevel *lv;
	IndexTuple	prev = NULL;
	bool		run_alive = false;
	double		reltuples;
	int			i;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

#if PG_VERSION_NUM < 180000

	/*
	 * Before PostgreSQL 18, the executor builds speculative-insertion info
	 * for every unique index of a table that takes INSERT ... ON CONFLICT
	 * (BuildSpeculativeIndexInfo), whichever index is the arbiter, and that
	 * function accepts only btree.  Say so when the index is made, not when
	 * the first upsert fails.
	 */
	if (indexInfo->ii_Unique)
		ereport(WARNING,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("INSERT ... ON CONFLICT on table \"%s\" will fail while it has the unique csbtree index \"%s\"",
						RelationGetRelationName(heap), RelationGetRelationName(index)),
				 errdetail("PostgreSQL before 18 accepts only btree indexes among the unique indexes of a table that takes INSERT ... ON CONFLICT, even when another index is the arbiter."),
				 errhint("Enforce uniqueness with a btree index on such tables, or use PostgreSQL 18.")));
#endif

	memset(&bs, 0, sizeof(bs));
	bs.st = csb_init_state(index);
	bs.natts = bs.st->natts;

	/* sort (index columns..., heap tid) by the index columns */
	bs.unique = indexInfo->ii_Unique;
	bs.nullsnotdistinct = indexInfo->ii_NullsNotDistinct;
	sortdesc = CreateTemplateTupleDesc(bs.natts + 2);
	for (i = 0; i < bs.natts; i++)
	{
		int16		opt = index->rd_indoption[i];
		StrategyNumber strat = (opt & INDOPTION_DESC) ? BTGreaterStrategyNumber : BTLessStrategyNumber;

		TupleDescCopyEntry(sortdesc, i + 1, itupdesc, i + 1);
		attnums[i] = i + 1;
		sortops[i] = get_opfamily_member(index->rd_opfamily[i], index->rd_opcintype[i],
										 index->rd_opcintype[i], strat);
		if (!OidIsValid(sortops[i]))
			elog(ERROR, "csbtree: operator family %u has no ordering operator for type %u",
				 index->rd_opfamily[i], index->rd_opcintype[i]);
		colls[i] = index->rd_indcollation[i];
		nullsfirst[i] = (opt & INDOPTION_NULLS_FIRST) != 0;
	}
	TupleDescInitEntry(sortdesc, bs.natts + 1, "tid", TIDOID, -1, 0);
	TupleDescInitEntry(sortdesc, bs.natts + 2, "alive", BOOLOID, -1, 0);
	bs.slot = MakeSingleTupleTableSlot(sortdesc, &TTSOpsVirtual);
	bs.outslot = MakeSingleTupleTableSlot(sortdesc, &TTSOpsMinimalTuple);
	bs.sort = tuplesort_begin_heap(sortdesc, bs.natts, attnums, sortops, colls,
								   nullsfirst, maintenance_work_mem, NULL, TUPLESORT_NONE);

	/* the metapage is block 0 */
	metabuf = qs_csb_new_buffer(index, MAIN_FORKNUM);
	Assert(BufferGetBlockNumber(metabuf) == CSB_METAPAGE);

	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   csb_build_callback, (void *) &bs, NULL);

	tuplesort_performsort(bs.sort);

	bs.leaf = csb_build_newlevel_page(&bs, 0, InvalidBlockNumber);
	while (tuplesort_gettupleslot(bs.sort, true, false, bs.outslot, NULL))
	{
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];
		IndexTuple	itup;

		CHECK_FOR_INTERRUPTS();
		slot_getallattrs(bs.outslot);
		for (i = 0; i < bs.natts; i++)
		{
			values[i] = bs.outslot->tts_values[i];
			isnull[i] = bs.outslot->tts_isnull[i];
		}
		itup = index_form_tuple(itupdesc, values, isnull);
		itup->t_tid = *((ItemPointer) DatumGetPointer(bs.outslot->tts_values[bs.natts]));
		csb_check_item_size(index, itup);
		if (bs.unique)
			csb_build_check_unique(&bs, heap, itup, values, isnull,
								   DatumGetBool(bs.outslot->tts_values[bs.natts + 1]),
								   &prev, &run_alive);
		csb_build_add(&bs, bs.leaf, itup);
		pfree(itup);
	}
	tuplesort_end(bs.sort);
	ExecDropSingleTupleTableSlot(bs.slot);
	ExecDropSingleTupleTableSlot(bs.outslot);

	/* finish the rightmost page of every level, bottom-up */
	for (lv = bs.leaf; lv != NULL; lv = lv->parent)
	{
		if (lv->parent != NULL)
			csb_build_downlink(&bs, lv, lv->lowkey, BufferGetBlockNumber(lv->buf));
		else
		{
			metapage = palloc0(BLCKSZ);
			csb_init_page(metapage, 0, CSB_META, 0);
			meta = CsbPageGetMeta(metapage);
			meta->magic = CSB_MAGIC;
			meta->version = CSB_VERSION;
			meta->root = BufferGetBlockNumber(lv->buf);
			meta->rootlevel = lv->level;
			((PageHeader) metapage)->pd_lower = ((char *) meta + sizeof(CsbMetaData)) - (char *) metapage;
		}
		csb_build_finish_page(&bs, lv);
	}
	csb_write_full_page(index, metabuf, metapage);
	UnlockReleaseBuffer(metabuf);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/* The init fork of an unlogged index: a metapage and an empty root leaf. */
void
csb_buildempty(Relation index)
{
	Buffer		metabuf = qs_csb_new_buffer(index, INIT_FORKNUM);
	Buffer		rootbuf = qs_csb_new_buffer(index, INIT_FORKNUM);
	Page		page;
	CsbMetaData *meta;

	START_CRIT_SECTION();
	page = BufferGetPage(metabuf);
	csb_init_page(page, 0, CSB_META, 0);
	meta = CsbPageGetMeta(page);
	meta->magic = CSB_MAGIC;
	meta->version = CSB_VERSION;
	meta->root = BufferGetBlockNumber(rootbuf);
	meta->rootlevel = 0;
	((PageHeader) page)->pd_lower = ((char *) meta + sizeof(CsbMetaData)) - (char *) page;
	MarkBufferDirty(metabuf);
	log_newpage_buffer(metabuf, true);

	page = BufferGetPage(rootbuf);
	csb_init_page(page, 0, CSB_LEAF, csb_compact_width(index));
	MarkBufferDirty(rootbuf);
	log_newpage_buffer(rootbuf, true);
	END_CRIT_SECTION();

	UnlockReleaseBuffer(rootbuf);
	UnlockReleaseBuffer(metabuf);
}

/* ------------------------------------------------------------------------
 * Inserts
 * ------------------------------------------------------------------------
 */

static void csb_insert_onpage(CsbState *st, Buffer buf, IndexTuple itup,
							  OffsetNumber off, CsbStack stack);

/*
 * csb_new_root
 *		The root at `level` was split (by us or another backend): make a new
 *		root one level up with a downlink to every page of that level.  The
 *		old root is the leftmost page of its level.  Called with the
 *		metapage exclusively locked.
 */
static void
csb_new_root(CsbState *st, Buffer metabuf, IndexTuple sample)
{
	Page		metapage = BufferGetPage(metabuf);
	CsbMetaData *meta = CsbPageGetMeta(metapage);
	BlockNumber blk = meta->root;
	uint32		level = meta->rootlevel;
	Buffer		rootbuf = csb_new_page(st->index);
	Page		tmp = palloc(BLCKSZ);
	IndexTuple	lowkey = CopyIndexTuple(sample);	/* -inf: content unused */
	QsGenXLogState *xs;
	Page		p;

	csb_init_page(tmp, level + 1, 0, 0);
	while (blk != InvalidBlockNumber)
	{
		Buffer		buf = csb_get_buffer(st->index, blk, BUFFER_LOCK_SHARE);
		Page		page = BufferGetPage(buf);
		CsbPageOpaque op = CsbPageGetOpaque(page);
		IndexTuple	down = CopyIndexTuple(lowkey);

		ItemPointerSet(&down->t_tid, blk, FirstOffsetNumber);
		if (!csb_add_item(tmp, down, InvalidOffsetNumber))
			elog(ERROR, "csbtree: too many pages at level %u for a new root", level);
		pfree(down);
		if (!CsbPageIsRightmost(op))
		{
			CsbTupBuf	tb;

			pfree(lowkey);
			lowkey = CopyIndexTuple(csb_item(page, CSB_HIKEY, &tb));
		}
		blk = op->right;
		UnlockReleaseBuffer(buf);
	}
	csb_rebuild_directory(st, tmp);

	xs = qs_genxlog_start(st->index);
	p = qs_genxlog_register(xs, rootbuf, GENERIC_XLOG_FULL_IMAGE);
	memcpy(p, tmp, BLCKSZ);
	p = qs_genxlog_register(xs, metabuf, 0);
	CsbPageGetMeta(p)->root = BufferGetBlockNumber(rootbuf);
	CsbPageGetMeta(p)->rootlevel = level + 1;
	qs_genxlog_finish(xs);
	UnlockReleaseBuffer(rootbuf);
	pfree(tmp);
}

/*
 * csb_insert_downlink
 *		After page leftblk at `level` split off rightblk, insert the
 *		separator sep (its t_tid is set here) into the level above.  The
 *		split is already durable; until this is done rightblk is reachable
 *		through leftblk's right-link only, which searches handle.
 */
static void
csb_insert_downlink(CsbState *st, CsbStack stack, uint32 level,
					BlockNumber leftblk, BlockNumber rightblk, IndexTuple sep)
{
	CsbSearchKey key;
	Buffer		pbuf;
	Page		page;
	CsbPageOpaque op;
	OffsetNumber off,
				first,
				maxoff,
				after = InvalidOffsetNumber;

	csb_key_from_tuple(st, sep, &key);
	ItemPointerSet(&sep->t_tid, rightblk, FirstOffsetNumber);

	for (;;)
	{
		if (stack != NULL)
		{
			pbuf = csb_get_buffer(st->index, stack->blkno, BUFFER_LOCK_EXCLUSIVE);
			pbuf = csb_moveright(st, pbuf, &key, false, BUFFER_LOCK_EXCLUSIVE);
			break;
		}
		pbuf = csb_descend(st, &key, false, BUFFER_LOCK_EXCLUSIVE, level + 1, NULL);
		if (BufferIsValid(pbuf))
			break;

		/* the split page was the root (or is left of it): grow the tree */
		{
			Buffer		metabuf = csb_get_buffer(st->index, CSB_METAPAGE, BUFFER_LOCK_EXCLUSIVE);
			CsbMetaData *meta = CsbPageGetMeta(BufferGetPage(metabuf));

			if (meta->rootlevel == level)
			{
				csb_new_root(st, metabuf, sep);
				UnlockReleaseBuffer(metabuf);
				return;
			}
			/* someone else grew it meanwhile: descend again */
			UnlockReleaseBuffer(metabuf);
		}
	}

	page = BufferGetPage(pbuf);
	op = CsbPageGetOpaque(page);
	first = CsbFirstData(op);
	maxoff = csb_maxoff(page);
	for (off = first; off <= maxoff; off++)
	{
		CsbTupBuf	tb;
		IndexTuple	itup = csb_item(page, off, &tb);
		BlockNumber child = ItemPointerGetBlockNumberNoCheck(&itup->t_tid);

		if (child == rightblk)
		{
			/* already there (a new root took the whole level) */
			UnlockReleaseBuffer(pbuf);
			return;
		}
		if (child == leftblk)
			after = OffsetNumberNext(off);
	}
	if (after == InvalidOffsetNumber)
		after = csb_page_search(st, page, &key, true);
	csb_insert_onpage(st, pbuf, sep, after, stack ? stack->parent : NULL);
}

/*
 * csb_split
 *		Split the locked page of buf while inserting itup at off.  The upper
 *		part moves to a new right sibling; the first item moved becomes the
 *		left page's high key and the separator for the parent.  One generic
 *		WAL record covers the left page, the new page and the left-link of
 *		the old right sibling.  Releases every buffer, then inserts the
 *		downlink.
 */
static void
csb_split(CsbState *st, Buffer buf, IndexTuple itup, OffsetNumber off, CsbStack stack)
{
	Page		page = BufferGetPage(buf);
	CsbPageOpaque op = CsbPageGetOpaque(page);
	OffsetNumber first = CsbFirstData(op);
	OffsetNumber maxoff = csb_maxoff(page);
	int			n = maxoff - first + 1 + 1;
	IndexTuple *items = palloc(sizeof(IndexTuple) * n);
	Size	   *sizes = palloc(sizeof(Size) * n);
	IndexTuple	hikey = NULL;
	Size		total = 0,
				leftsz = 0,
				target;
	int			i,
				j,
				split;
	bool		rightmost = CsbPageIsRightmost(op);
	Buffer		rbuf,
				sbuf = InvalidBuffer;
	BlockNumber lblk = BufferGetBlockNumber(buf),
				rblk,
				oldright = op->right;
	uint32		level = op->level;
	uint16		flags = op->flags & CSB_LEAF;
	uint16		width = (op->flags & CSB_COMPACT) ? op->itemwidth : 0;
	CsbTupBuf	tb;
	Page		lp,
				rp;
	QsGenXLogState *xs;
	IndexTuple	sep;

	if (!rightmost)
		hikey = CopyIndexTuple(csb_item(page, CSB_HIKEY, &tb));
	for (i = 0, j = first; i < n; i++)
	{
		if (i == off - first)
			items[i] = itup;
		else
		{
			items[i] = CopyIndexTuple(csb_item(page, j, &tb));
			j++;
		}
		sizes[i] = csb_item_cost(page, items[i]);
		total += sizes[i];
	}

	/*
	 * Split point: balance bytes, except that appending to the rightmost
	 * page leaves the left page nearly full (ascending inserts).
	 */
	if (rightmost && off == maxoff + 1)
		target = total * 9 / 10;
	else
		target = total / 2;
	split = 1;
	leftsz = sizes[0];
	while (split < n - 1 && leftsz + sizes[split] <= target)
	{
		leftsz += sizes[split];
		split++;
	}
	/* make both halves fit: left needs its high key (items[split]) too */
	while (split > 1 && leftsz + sizes[split] > CSB_PAGE_ROOM)
	{
		split--;
		leftsz -= sizes[split];
	}
	while (split < n - 1 &&
		   total - leftsz + (hikey ? csb_item_cost(page, hikey) : 0) > CSB_PAGE_ROOM)
	{
		leftsz += sizes[split];
		split++;
	}

	rbuf = csb_new_page(st->index);
	rblk = BufferGetBlockNumber(rbuf);
	if (oldright != InvalidBlockNumber)
		sbuf = csb_get_buffer(st->index, oldright, BUFFER_LOCK_EXCLUSIVE);

	/* the left page, built aside: page still holds the items we point to */
	lp = palloc(BLCKSZ);
	csb_init_page(lp, level, flags, width);
	CsbPageGetOpaque(lp)->left = op->left;
	CsbPageGetOpaque(lp)->right = rblk;
	if (!csb_add_item(lp, items[split], InvalidOffsetNumber))
		elog(ERROR, "csbtree: failed to add high key to left half of split");
	for (i = 0; i < split; i++)
		if (!csb_add_item(lp, items[i], InvalidOffsetNumber))
			elog(ERROR, "csbtree: failed to add item to left half of split");
	csb_rebuild_directory(st, lp);

	rp = palloc(BLCKSZ);
	csb_init_page(rp, level, flags, width);
	CsbPageGetOpaque(rp)->left = lblk;
	CsbPageGetOpaque(rp)->right = oldright;
	if (hikey && !csb_add_item(rp, hikey, InvalidOffsetNumber))
		elog(ERROR, "csbtree: failed to add high key to right half of split");
	for (i = split; i < n; i++)
		if (!csb_add_item(rp, items[i], InvalidOffsetNumber))
			elog(ERROR, "csbtree: failed to add item to right half of split");
	csb_rebuild_directory(st, rp);

	sep = CopyIndexTuple(items[split]);

	xs = qs_genxlog_start(st->index);
	memcpy(qs_genxlog_register(xs, buf, 0), lp, BLCKSZ);
	memcpy(qs_genxlog_register(xs, rbuf, GENERIC_XLOG_FULL_IMAGE), rp, BLCKSZ);
	if (BufferIsValid(sbuf))
		CsbPageGetOpaque(qs_genxlog_register(xs, sbuf, 0))->left = rblk;
	qs_genxlog_finish(xs);

	if (BufferIsValid(sbuf))
		UnlockReleaseBuffer(sbuf);
	UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(buf);
	pfree(lp);
	pfree(rp);
	pfree(items);
	pfree(sizes);

	csb_insert_downlink(st, stack, level, lblk, rblk, sep);
	pfree(sep);
}

/*
 * csb_insert_onpage
 *		Insert itup at off on the exclusively locked page of buf, splitting
 *		when it does not fit.  Releases buf.
 */
static void
csb_insert_onpage(CsbState *st, Buffer buf, IndexTuple itup, OffsetNumber off, CsbStack stack)
{
	Page		page = BufferGetPage(buf);

	if (csb_fits(page, itup))
	{
		QsGenXLogState *xs = qs_genxlog_start(st->index);
		Page		p = qs_genxlog_register(xs, buf, 0);

		if (!csb_add_item(p, itup, off))
			elog(ERROR, "csbtree: failed to add item to block %u", BufferGetBlockNumber(buf));
		csb_rebuild_directory(st, p);
		qs_genxlog_finish(xs);
		UnlockReleaseBuffer(buf);
		return;
	}
	csb_split(st, buf, itup, off, stack);
}

/*
 * csb_check_unique
 *		nbtree's _bt_check_unique for csbtree.  buf is the exclusively
 *		locked leaf where the first entry equal to the new key would go (a
 *		descent without nextkey lands every inserter of that key on the same
 *		page, so holding its lock serializes them).  Walk the equal entries
 *		from there, to the right as long as the high key equals the key
 *		(share-locking one right page at a time), and look each one up in
 *		the heap with a dirty snapshot:
 *		- an in-progress inserter or deleter: return its xid to wait on
 *		  (*speculativeToken set for ON CONFLICT's speculative inserts);
 *		- a committed live duplicate: raise unique_violation, unless our
 *		  own heap tuple is dead already;
 *		- UNIQUE_CHECK_PARTIAL: any possible conflict sets *is_unique false
 *		  without waiting.
 *		Releases only the buffers it locked itself.
 */
static TransactionId
csb_check_unique(CsbState *st, Buffer buf, CsbSearchKey *key, IndexTuple itup,
				 Relation heapRel, IndexUniqueCheck checkUnique,
				 bool *is_unique, uint32 *speculativeToken)
{
	Relation	index = st->index;
	SnapshotData SnapshotDirty;
	Buffer		nbuf = InvalidBuffer;
	Page		page = BufferGetPage(buf);
	OffsetNumber off = csb_page_search(st, page, key, false);
	bool		found = false;

	InitDirtySnapshot(SnapshotDirty);
	*is_unique = true;
	*speculativeToken = 0;

	for (;;)
	{
		Page		p = BufferIsValid(nbuf) ? BufferGetPage(nbuf) : page;
		CsbPageOpaque op = CsbPageGetOpaque(p);
		OffsetNumber maxoff = csb_maxoff(p);
		CsbTupBuf	tb;

		if (off <= maxoff)
		{
			IndexTuple	cur = csb_item(p, off, &tb);
			ItemPointerData htid = cur->t_tid;

			if (csb_compare_tuple(st, key, cur) != 0)
				break;			/* past the equal entries */

			if (ItemPointerEquals(&htid, &itup->t_tid))
				found = true;	/* our own entry (UNIQUE_CHECK_EXISTING) */
			else if (table_index_fetch_tuple_check(heapRel, &htid, &SnapshotDirty, NULL))
			{
				TransactionId xwait;

				if (checkUnique == UNIQUE_CHECK_PARTIAL)
				{
					*is_unique = false;
					break;
				}
				xwait = TransactionIdIsValid(SnapshotDirty.xmin) ?
					SnapshotDirty.xmin : SnapshotDirty.xmax;
				if (TransactionIdIsValid(xwait))
				{
					if (BufferIsValid(nbuf))
						UnlockReleaseBuffer(nbuf);
					*speculativeToken = SnapshotDirty.speculativeToken;
					return xwait;
				}

				/* a committed live duplicate; is our own tuple still live? */
				htid = itup->t_tid;
				if (!table_index_fetch_tuple_check(heapRel, &htid, SnapshotSelf, NULL))
					break;		/* it was deleted meanwhile: no conflict */

				{
					Datum		values[INDEX_MAX_KEYS];
					bool		isnull[INDEX_MAX_KEYS];
					char	   *key_desc;

					index_deform_tuple(itup, RelationGetDescr(index), values, isnull);
					key_desc = BuildIndexValueDescription(index, values, isnull);
					if (BufferIsValid(nbuf))
						UnlockReleaseBuffer(nbuf);
					ereport(ERROR,
							(errcode(ERRCODE_UNIQUE_VIOLATION),
							 errmsg("duplicate key value violates unique constraint \"%s\"",
									RelationGetRelationName(index)),
							 key_desc ? errdetail("Key %s already exists.", key_desc) : 0,
							 errtableconstraint(heapRel, RelationGetRelationName(index))));
				}
			}
			off = OffsetNumberNext(off);
			continue;
		}

		/*
		 * End of page: equal entries may go on only if the high key is
		 * equal.  A page VACUUM deleted after we read the link to it has no
		 * entries; its range went to its right sibling: go on there.
		 */
		if (CsbPageIsRightmost(op) ||
			(!CsbPageIsDeleted(op) &&
			 csb_compare_tuple(st, key, csb_item(p, CSB_HIKEY, &tb)) != 0))
			break;
		{
			BlockNumber next = op->right;

			if (BufferIsValid(nbuf))
				UnlockReleaseBuffer(nbuf);
			nbuf = csb_get_buffer(index, next, BUFFER_LOCK_SHARE);
			off = CsbFirstData(CsbPageGetOpaque(BufferGetPage(nbuf)));
		}
	}
	if (BufferIsValid(nbuf))
		UnlockReleaseBuffer(nbuf);

	if (checkUnique == UNIQUE_CHECK_EXISTING && !found)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("failed to re-find tuple within index \"%s\"",
						RelationGetRelationName(index)),
				 errhint("This may be because of a non-immutable index expression."),
				 errtableconstraint(heapRel, RelationGetRelationName(index))));
	return InvalidTransactionId;
}

bool
csb_insert(Relation index, Datum *values, bool *isnull,
		   ItemPointer ht_ctid, Relation heapRel,
		   IndexUniqueCheck checkUnique, bool indexUnchanged,
		   struct IndexInfo *indexInfo)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "csbtree insert", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	CsbState   *st = csb_init_state(index);
	CsbSearchKey key;
	IndexTuple	itup;
	CsbStack	stack;
	Buffer		buf;
	OffsetNumber off;
	bool		check = false;
	bool		is_unique = true;
	int			i;

	itup = index_form_tuple(st->tupdesc, values, isnull);
	itup->t_tid = *ht_ctid;
	csb_check_item_size(index, itup);
	csb_key_from_values(st, values, isnull, &key);

	/* as in nbtree, a key with a NULL is never a duplicate (unless NULLS NOT DISTINCT) */
	if (checkUnique != UNIQUE_CHECK_NO)
	{
		check = true;
		if (!index->rd_index->indnullsnotdistinct)
			for (i = 0; i < st->natts; i++)
				if (isnull[i])
					check = false;
	}

	if (!check)
	{
		if (checkUnique == UNIQUE_CHECK_EXISTING)
			goto done;
		/* after the equal keys: duplicates append at the end of their run */
		buf = csb_descend(st, &key, true, BUFFER_LOCK_EXCLUSIVE, 0, &stack);
		off = csb_page_search(st, BufferGetPage(buf), &key, true);
		csb_insert_onpage(st, buf, itup, off, stack);
		goto done;
	}

	for (;;)
	{
		TransactionId xwait;
		uint32		specToken;

		buf = csb_descend(st, &key, false, BUFFER_LOCK_EXCLUSIVE, 0, &stack);
		xwait = csb_check_unique(st, buf, &key, itup, heapRel, checkUnique,
								 &is_unique, &specToken);
		if (!TransactionIdIsValid(xwait))
			break;
		UnlockReleaseBuffer(buf);
		if (specToken)
			SpeculativeInsertionWait(xwait, specToken);
		else
			XactLockTableWait(xwait, heapRel, &itup->t_tid, XLTW_InsertIndex);
	}
	if (checkUnique == UNIQUE_CHECK_EXISTING)
	{
		UnlockReleaseBuffer(buf);
		goto done;
	}
	/* before the equal keys, on the page whose lock we hold */
	off = csb_page_search(st, BufferGetPage(buf), &key, false);
	csb_insert_onpage(st, buf, itup, off, stack);

done:
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	/* significant for UNIQUE_CHECK_PARTIAL only: true = known unique */
	return checkUnique == UNIQUE_CHECK_PARTIAL ? is_unique : false;
}
