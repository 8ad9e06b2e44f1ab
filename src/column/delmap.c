/*-------------------------------------------------------------------------
 *
 * delmap.c
 *	  The delete map of column blocks (README section 4.1): what a heap
 *	  tuple header carries for each main row — xmax, infomask bits, cmax
 *	  or combo cid, forward link — kept beside the immutable block image.
 *
 * Shape.  A block that has ever had a row deleted, updated or locked has
 * a root page (special {QSCX, block_id, InvalidBlockNumber, nvpages})
 * holding one BlockNumber per virtual page of the block; a virtual page
 * (291 rows, section 3) that has ever had such a row has a delete-map
 * page (special {QSCX, block_id, virtual block, nrows}) holding one
 * HeapTupleHeaderData per row.  Each entry is a complete header: xmin and
 * cmin copied from the directory entry when the page is made, xmax and
 * friends written by the engine's heap ports (src/tableam/dml.c), which
 * reach an entry through the page layout interface like any record: the
 * engine reads the buffer of a virtual TID with qs_coldelmap_buffer() and
 * takes t_self from the page's virtual block (qs_buffer_tid_block), and
 * the column page layout hands QSCX pages to qs_coldelmap_layout for the
 * header functions.  Its max_offset stays 0 for the engine's scan loops
 * (a delete-map entry is not a row of the delta); VACUUM alone looks at
 * the entries (vacuum.c), as the records they are: freezing, removing
 * the index entries of rows dead to everybody, then marking the entry
 * removed (xmin invalid); without index cleanup, marking it dead (no
 * xid, index entries kept: entry_dead) for a later VACUUM to remove.  A row without a delete-map entry is "never
 * deleted, never locked": its header is the directory entry's.
 *
 * Creation is serialized per block by a heavyweight page lock on the
 * block's first virtual block number (no physical page has that number),
 * taken with no buffer lock held.  The new pages (and the directory entry
 * pointing to a new root) are written in one generic WAL record, so a
 * crash leaves either nothing or a linked page; the pages themselves are
 * empty delta pages (qs_colpage_take_free: given back by VACUUM, taken
 * only while they hold no record, without waiting for their lock) or come
 * from qs_extend_fork, and are exclusively locked from then until the
 * record is written (the engine passes over column pages once they carry
 * their special space, as for block runs).
 *
 * Lock order: delete-map page -> root page -> metapage -> directory page
 * (README section 10); creation holds the new pages (unknown to anybody)
 * or the root, then the metapage (share) and the directory page
 * (qs_coldir_lock_entry: the entry is found and written under one
 * metapage hold).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/colstore.h"
#include "core/compat.h"
#include "merge/moved.h"
#include "page/layout.h"
#include "wal/genxlog.h"

#define ENTRY_SIZE		QS_COLDELMAP_ENTRY_SIZE

StaticAssertDecl(offsetof(HeapTupleHeaderData, t_bits) <= QS_COLDELMAP_ENTRY_SIZE,
				 "a delete-map entry holds a tuple header");
StaticAssertDecl(MAXALIGN(SizeOfPageHeaderData) +
				 QS_COLBLOCK_TIDS_PER_PAGE * QS_COLDELMAP_ENTRY_SIZE +
				 QS_COLPAGE_SPECIAL <= BLCKSZ,
				 "a delete-map page holds a virtual page's entries");

static inline void
special_get(Page page, uint32 sp[4])
{
	memcpy(sp, PageGetSpecialPointer(page), sizeof(uint32) * 4);
}

static inline void
special_set(Page page, uint32 block_id, BlockNumber vblock, uint32 n)
{
	uint32		sp[4] = {QS_COLDELMAP_MAGIC, block_id, vblock, n};

	memcpy(PageGetSpecialPointer(page), sp, sizeof(sp));
}

bool
qs_coldelmap_page_info(Page page, uint32 *block_id, BlockNumber *vblock,
					   uint32 *n)
{
	uint32		sp[4];

	if (PageIsNew(page) || !qs_is_column_page(page) ||
		qs_column_page_magic(page) != QS_COLDELMAP_MAGIC)
		return false;
	special_get(page, sp);
	if (sp[2] == InvalidBlockNumber)
		return false;			/* a root page */
	if (block_id)
		*block_id = sp[1];
	if (vblock)
		*vblock = sp[2];
	if (n)
		*n = Min(sp[3], QS_COLBLOCK_TIDS_PER_PAGE);
	return true;
}

static inline HeapTupleHeader
entry_at(Page page, OffsetNumber off)
{
	return (HeapTupleHeader) (PageGetContents(page) + (off - 1) * ENTRY_SIZE);
}

/*
 * The two states of an entry beyond heap's header (README section 4.1),
 * both with xmin InvalidTransactionId hinted HEAP_XMIN_INVALID, which no
 * entry of a row has (init_entry copies a normal or frozen xmin):
 *	 removed: the row is dead to everybody and its index entries are gone
 *		(heap's LP_UNUSED; xmax invalid, every other byte zero);
 *	 dead: the row is dead to everybody but index entries may still name
 *		it (heap's LP_DEAD), set by a VACUUM without index cleanup so that
 *		no xid or multixact stays in the entry; told from removed by
 *		HEAP_XMAX_COMMITTED beside HEAP_XMAX_INVALID, a pair heap never
 *		writes (and nothing in it is ever looked up: xmin invalid decides
 *		every visibility routine first).  A later VACUUM with index
 *		cleanup collects it, deletes its index entries and marks it
 *		removed.
 * Entries written before the dead state existed are normal or removed.
 */
#define DM_DEAD_BITS	(HEAP_XMIN_INVALID | HEAP_XMAX_INVALID | HEAP_XMAX_COMMITTED)

static inline bool
entry_no_xmin(HeapTupleHeader h)
{
	return h->t_choice.t_heap.t_xmin == InvalidTransactionId &&
		(h->t_infomask & HEAP_XMIN_INVALID) != 0 &&
		(h->t_infomask & HEAP_XMIN_COMMITTED) == 0;
}

/* an entry VACUUM removed (its row is dead to everybody, index entries gone) */
static inline bool
entry_removed(HeapTupleHeader h)
{
	return entry_no_xmin(h) && (h->t_infomask & HEAP_XMAX_COMMITTED) == 0;
}

/* an entry VACUUM marked dead (its row is dead to everybody, no xid kept) */
static inline bool
entry_dead(HeapTupleHeader h)
{
	return entry_no_xmin(h) && (h->t_infomask & HEAP_XMAX_COMMITTED) != 0;
}

/*
 * The entry of 'off' as a row's header, or NULL when the row is gone:
 * removed or dead, either way no snapshot sees it, and readers treat both
 * alike (VACUUM and check_table ask qs_coldelmap_entry_state).
 */
HeapTupleHeader
qs_coldelmap_entry(Page page, OffsetNumber off)
{
	uint32		n;
	HeapTupleHeader h;

	if (!qs_coldelmap_page_info(page, NULL, NULL, &n) || off < 1 || off > n)
		return NULL;
	h = entry_at(page, off);
	return entry_no_xmin(h) ? NULL : h;
}

/*
 * qs_coldelmap_entry_state
 *		QS_REC_NORMAL for a row's header, QS_REC_DEAD for an entry marked
 *		dead (index entries may name the row), QS_REC_UNUSED for a removed
 *		entry or an offset past the page's entries.
 */
QsRecordState
qs_coldelmap_entry_state(Page page, OffsetNumber off)
{
	uint32		n;
	HeapTupleHeader h;

	if (!qs_coldelmap_page_info(page, NULL, NULL, &n) || off < 1 || off > n)
		return QS_REC_UNUSED;
	h = entry_at(page, off);
	if (entry_dead(h))
		return QS_REC_DEAD;
	return entry_removed(h) ? QS_REC_UNUSED : QS_REC_NORMAL;
}

/*
 * qs_coldelmap_dead_entry_ok
 *		Is the dead entry at 'off' exactly what dm_mark_dead writes: no xid,
 *		no multixact, no command id left, t_ctid the row's own TID
 *		(check_table)?
 */
bool
qs_coldelmap_dead_entry_ok(Page page, OffsetNumber off)
{
	HeapTupleHeader h = entry_at(page, off);
	BlockNumber vblock;
	ItemPointerData self;

	if (!qs_coldelmap_page_info(page, NULL, &vblock, NULL))
		return false;
	ItemPointerSet(&self, vblock, off);
	return entry_dead(h) && h->t_infomask == DM_DEAD_BITS &&
		h->t_choice.t_heap.t_xmax == InvalidTransactionId &&
		h->t_choice.t_heap.t_field3.t_cid == 0 &&
		h->t_infomask2 == 0 && ItemPointerEquals(&h->t_ctid, &self);
}

/* ------------------------------------------------------------------------
 * The layout of delete-map pages (for dml.c through colpage.c, and VACUUM)
 * ------------------------------------------------------------------------
 */
static const TupleTableSlotOps *
dm_slot_ops(void)
{
	return &TTSOpsVirtual;
}

static void
dm_init_page(Page page, Size page_size, TupleDesc desc)
{
	elog(ERROR, "a delete-map page cannot be formatted for row records");
}

static Size
dm_zero_size(TupleDesc desc)
{
	return 0;
}

static Size
dm_free_space(Page page)
{
	return 0;
}

static bool
dm_record_fits(Page page, TupleDesc desc, HeapTuple tuple, Size reserve)
{
	return false;
}

static OffsetNumber
dm_put_record(Page page, TupleDesc desc, BlockNumber blkno, HeapTuple tuple)
{
	return InvalidOffsetNumber;
}

static OffsetNumber
dm_max_offset(Page page)
{
	uint32		n;

	return qs_coldelmap_page_info(page, NULL, NULL, &n) ? n : 0;
}

static QsRecordState
dm_record_state(Page page, OffsetNumber off)
{
	return qs_coldelmap_entry_state(page, off);
}

static HeapTupleHeader
dm_get_header(Page page, OffsetNumber off, HeapTupleHeaderData *scratch,
			  uint32 *len)
{
	HeapTupleHeader h = qs_coldelmap_entry(page, off);

	if (h == NULL)
		elog(ERROR, "delete-map page has no entry at offset %u", off);
	if (len)
		*len = SizeofHeapTupleHeader;
	return h;
}

static void
dm_set_header(Page page, OffsetNumber off, HeapTupleHeader hdr)
{
	HeapTupleHeader h = entry_at(page, off);

	if (hdr != h)
		memcpy(h, hdr, offsetof(HeapTupleHeaderData, t_bits));
}

/* the main row whose entry is at 'off': its virtual TID and a copy of its header */
static void
dm_entry_row(Page page, OffsetNumber off, ItemPointer tid, HeapTupleHeader hdr)
{
	BlockNumber vblock;

	if (!qs_coldelmap_page_info(page, NULL, &vblock, NULL))
		elog(ERROR, "not a delete-map page");
	memcpy(hdr, dm_get_header(page, off, NULL, NULL), sizeof(HeapTupleHeaderData));
	ItemPointerSet(tid, vblock, off);
}

static void
dm_store_record(Relation rel, Buffer buf, Page page, OffsetNumber off,
				TupleTableSlot *slot, const Bitmapset *attrs)
{
	ItemPointerData tid;
	HeapTupleHeaderData hdr;

	dm_entry_row(page, off, &tid, &hdr);
	qs_colmain_store(rel, &tid, &hdr, slot);
}

static HeapTuple
dm_copy_record(Relation rel, Page page, BlockNumber blkno, OffsetNumber off)
{
	ItemPointerData tid;
	HeapTupleHeaderData hdr;

	dm_entry_row(page, off, &tid, &hdr);
	return qs_colmain_copy(rel, &tid, &hdr);
}

static void
dm_read_column(Page page, TupleDesc desc, AttrNumber attnum,
			   const OffsetNumber *offs, int n, Datum *values, bool *isnull)
{
	if (n > 0)
		elog(ERROR, "delete-map pages hold no values");
}

/*
 * VACUUM's second pass, after the index entries are gone: the row is
 * removed (runs in a critical section: no error).
 */
static void
dm_mark_unused(Page page, const OffsetNumber *offs, int n)
{
	uint32		cnt;

	if (!qs_coldelmap_page_info(page, NULL, NULL, &cnt))
		return;
	for (int i = 0; i < n; i++)
	{
		HeapTupleHeader h;

		if (offs[i] < 1 || offs[i] > cnt)
			continue;
		h = entry_at(page, offs[i]);
		memset(h, 0, ENTRY_SIZE);
		h->t_infomask = HEAP_XMIN_INVALID | HEAP_XMAX_INVALID;
		h->t_hoff = SizeofHeapTupleHeader;
	}
}

/*
 * VACUUM's first pass without index cleanup, on entries it found
 * HEAPTUPLE_DEAD: the row becomes dead with no xid (entry_dead), so that
 * relfrozenxid and relminmxid may pass its inserter, deleter and
 * multixact while its index entries stay; t_ctid keeps the row's own TID
 * (an update's link is followed only from a visible row).  No error: the
 * caller runs it inside its WAL record.
 */
static void
dm_mark_dead(Page page, const OffsetNumber *offs, int n)
{
	uint32		cnt;
	BlockNumber vblock;

	if (!qs_coldelmap_page_info(page, NULL, &vblock, &cnt))
		return;
	for (int i = 0; i < n; i++)
	{
		HeapTupleHeader h;

		if (offs[i] < 1 || offs[i] > cnt)
			continue;
		h = entry_at(page, offs[i]);
		memset(h, 0, ENTRY_SIZE);
		h->t_infomask = DM_DEAD_BITS;
		h->t_hoff = SizeofHeapTupleHeader;
		ItemPointerSet(&h->t_ctid, vblock, offs[i]);
	}
}

static void
dm_compact(Page page)
{
}

static bool
dm_check_page(Page page, BlockNumber blkno, TupleDesc desc, char *errbuf,
			  Size errlen)
{
	uint32		sp[4];
	PageHeader	ph = (PageHeader) page;

	if (!qs_is_column_page(page) ||
		qs_column_page_magic(page) != QS_COLDELMAP_MAGIC)
	{
		snprintf(errbuf, errlen, "page %u is not a delete-map page", blkno);
		return false;
	}
	special_get(page, sp);
	if (sp[2] == InvalidBlockNumber)
	{
		if (sp[3] > QS_COLDELMAP_ROOT_MAX ||
			ph->pd_lower != MAXALIGN(SizeOfPageHeaderData) + sp[3] * sizeof(BlockNumber))
		{
			snprintf(errbuf, errlen, "delete-map root page %u: %u pages, pd_lower %u",
					 blkno, sp[3], ph->pd_lower);
			return false;
		}
		return true;
	}
	if (sp[2] < QS_VIRT_BASE || sp[2] >= QS_VIRT_END ||
		sp[3] < 1 || sp[3] > QS_COLBLOCK_TIDS_PER_PAGE ||
		ph->pd_lower != MAXALIGN(SizeOfPageHeaderData) + sp[3] * ENTRY_SIZE)
	{
		snprintf(errbuf, errlen, "delete-map page %u: virtual block %u, %u entries, pd_lower %u",
				 blkno, sp[2], sp[3], ph->pd_lower);
		return false;
	}
	return true;
}

const QsPageLayout qs_coldelmap_layout = {
	.name = "delete map",
	.page_magic = 0,
	.slot_ops = dm_slot_ops,
	.init_page = dm_init_page,
	.max_record_size = dm_zero_size,
	.free_space = dm_free_space,
	.record_fits = dm_record_fits,
	.can_make_room = NULL,
	.make_room = NULL,
	.put_record = dm_put_record,
	.max_offset = dm_max_offset,
	.record_state = dm_record_state,
	.normal_offsets = NULL,
	.get_header = dm_get_header,
	.set_header = dm_set_header,
	.store_record = dm_store_record,
	.copy_record = dm_copy_record,
	.read_column = dm_read_column,
	.read_columns = NULL,
	.filter_range = NULL,
	.mark_dead = dm_mark_dead,
	.mark_unused = dm_mark_unused,
	.compact = dm_compact,
	.prepare_compact = NULL,
	.check_page = dm_check_page,
};

/* ------------------------------------------------------------------------
 * Finding pages
 * ------------------------------------------------------------------------
 */
static void
report_corrupt(Relation rel, BlockNumber blk, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("delete map of column table \"%s\" is corrupt: %s at block %u",
					RelationGetRelationName(rel), what, blk)));
}

static bool root_of(Page page, const QsColDirEntry *e);

/* may e's delete map have gone back to the delta (see qs_coldelmap_root)? */
static inline bool
gone_ok(const QsColDirEntry *e)
{
	return e->state == QS_COLBLK_RETIRED && !(e->flags & QS_COLDIR_EMPTIED);
}

static Buffer
read_checked(Relation rel, BlockNumber blk)
{
	if (blk >= RelationGetNumberOfBlocks(rel))
		report_corrupt(rel, blk, "a page past the end");
	return ReadBuffer(rel, blk);
}

/* Copy the root of block 'e' from its page (root->n = 0: no delete map). */
static void
root_read(Relation rel, const QsColDirEntry *e, QsColDelmapRoot *root)
{
	Buffer		buf;
	Page		page;
	uint32		sp[4];

	root->n = 0;
	root->pages = NULL;
	if (e->delmap_root == InvalidBlockNumber)
		return;

	/*
	 * A superseded version's delete map (its successor's) may have gone
	 * back to the delta with that successor, emptied (qs_coldelmap_reclaim):
	 * its readers (VACUUM, quickstep.blocks()) find no page any more.  Not
	 * an emptied version's own: readers that may still read it keep its
	 * pages (qs_coldir_reclaim), and "no delete map" would show its rows.
	 */
	if (gone_ok(e) && e->delmap_root >= RelationGetNumberOfBlocks(rel))
		return;
	buf = read_checked(rel, e->delmap_root);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (gone_ok(e) && !root_of(page, e))
	{
		UnlockReleaseBuffer(buf);
		return;
	}
	if (PageIsNew(page) || !qs_is_column_page(page) ||
		qs_column_page_magic(page) != QS_COLDELMAP_MAGIC)
		report_corrupt(rel, e->delmap_root, "not a root page");
	special_get(page, sp);
	if (sp[1] != e->block_id || sp[2] != InvalidBlockNumber ||
		sp[3] > QS_COLDELMAP_ROOT_MAX)
		report_corrupt(rel, e->delmap_root, "a root page of another block");
	root->n = sp[3];
	root->pages = palloc(sizeof(BlockNumber) * Max(root->n, 1));
	memcpy(root->pages, PageGetContents(page), sizeof(BlockNumber) * root->n);
	UnlockReleaseBuffer(buf);
}

/*
 * The roots this backend copied, each tagged with the table's directory
 * change counter read before its page was read (qs_coldir_gen).  A single-
 * row fetch or DML reads a block's root two to five times per W5 write
 * transaction (pin, lock, a 2 kB copy each: about 7,000 instructions).
 * Why a copy whose tag is the counter now is as new as the page: a root
 * page changes only when a leaf is linked into it (create_page) or it is
 * given back (qs_coldelmap_reclaim), and both bump the counter after their
 * WAL record with the root still exclusively locked; a change the copy
 * misses was made after the copy's share lock, so bumped after the tag was
 * read.  The README's section 7.1 makes the same argument for directory
 * copies; as there, a copy is a read made at the moment the counter was
 * read, and what a reader learns after that (its snapshot, a lock it
 * waited for) came after the writer's bump.
 *
 * The key holds relation, relfilelocator, block id and root page.  Roots
 * are made three ways, each a new page: a block's first delete-map page
 * (create_page), the seal's qs_coldelmap_ensure_root, and an open block's
 * qs_coldelmap_new_root (before its entry exists: no copy can name it
 * yet); the first two write the entry's root pointer and bump the counter
 * with the directory page still locked.  A block's root pointer, once
 * set, never changes (the README's "a block's root never changes" means
 * the pointer; the page's slots fill as leaves are linked).  Block ids
 * are not reused within a relfilenode, except after an in-place TRUNCATE
 * of one created in the same transaction (qs_colmeta_init restarts them
 * with a new, empty directory): that bumps the counter too, so no copy
 * tagged before it is used after it.  Not during recovery (the counter
 * does not move on a standby) and not for RETIRED versions, whose pages
 * may have gone back (gone_ok).
 */
#define ROOTCACHE_SLOTS		32

typedef struct RootCacheEnt
{
	bool		used;
	Oid			relid;
	RelFileLocator locator;
	uint32		block_id;
	BlockNumber root_blk;
	uint64		gen;
	uint64		last_use;
	QsColDelmapRoot root;		/* pages in rootcache_cxt */
} RootCacheEnt;

static RootCacheEnt rootcache[ROOTCACHE_SLOTS];
static MemoryContext rootcache_cxt = NULL;
static uint64 rootcache_clock = 0;

static void
rootcache_drop(RootCacheEnt *c)
{
	if (c->root.pages)
		pfree(c->root.pages);
	memset(c, 0, sizeof(*c));
}

/* a relcache invalidation (DROP, TRUNCATE, rewrites): their roots go */
static void
rootcache_inval(Datum arg, Oid relid)
{
	for (int i = 0; i < ROOTCACHE_SLOTS; i++)
		if (rootcache[i].used &&
			(!OidIsValid(relid) || rootcache[i].relid == relid))
			rootcache_drop(&rootcache[i]);
}

/*
 * Block e's root as this backend's copy has it, read now when the copy is
 * older than the counter; NULL when no copy may be kept (the caller reads
 * the page).  The pointer is good until the next call.
 */
static const QsColDelmapRoot *
root_cached(Relation rel, const QsColDirEntry *e)
{
	RootCacheEnt *slot = NULL;
	QsColDelmapRoot fresh;
	uint64		gen;

	if (gone_ok(e) || !qs_coldir_gen(rel, &gen))
		return NULL;
	if (rootcache_cxt == NULL)
	{
		rootcache_cxt = AllocSetContextCreate(TopMemoryContext,
											  "quickstep column delete-map roots",
											  ALLOCSET_SMALL_SIZES);
		CacheRegisterRelcacheCallback(rootcache_inval, (Datum) 0);
	}
	for (int i = 0; i < ROOTCACHE_SLOTS; i++)
	{
		RootCacheEnt *c = &rootcache[i];

		if (c->used && c->block_id == e->block_id &&
			c->root_blk == e->delmap_root &&
			c->relid == RelationGetRelid(rel) &&
			memcmp(&c->locator, &QS_REL_LOCATOR(rel), sizeof(c->locator)) == 0)
		{
			if (c->gen == gen)
			{
				c->last_use = ++rootcache_clock;
				return &c->root;
			}
			slot = c;
			break;
		}
	}
	if (slot == NULL)
	{
		/* an unused slot, else the least recently used */
		slot = &rootcache[0];
		for (int i = 1; i < ROOTCACHE_SLOTS && slot->used; i++)
			if (!rootcache[i].used || rootcache[i].last_use < slot->last_use)
				slot = &rootcache[i];
	}
	rootcache_drop(slot);

	/* read where an error frees it, then kept */
	root_read(rel, e, &fresh);
	slot->root.n = fresh.n;
	slot->root.pages = MemoryContextAlloc(rootcache_cxt,
										  sizeof(BlockNumber) * Max(fresh.n, 1));
	memcpy(slot->root.pages, fresh.pages, sizeof(BlockNumber) * fresh.n);
	if (fresh.pages)
		pfree(fresh.pages);
	slot->relid = RelationGetRelid(rel);
	slot->locator = QS_REL_LOCATOR(rel);
	slot->block_id = e->block_id;
	slot->root_blk = e->delmap_root;
	slot->gen = gen;
	slot->last_use = ++rootcache_clock;
	slot->used = true;			/* last: an error above leaves it unused */
	return &slot->root;
}

/*
 * qs_coldelmap_root
 *		Copy the root of block 'e' (root->n = 0 when it has no delete map).
 */
void
qs_coldelmap_root(Relation rel, const QsColDirEntry *e, QsColDelmapRoot *root)
{
	const QsColDelmapRoot *c;

	root->n = 0;
	root->pages = NULL;
	if (e->delmap_root == InvalidBlockNumber)
		return;
	c = root_cached(rel, e);
	if (c == NULL)
	{
		root_read(rel, e, root);
		return;
	}
	root->n = c->n;
	root->pages = palloc(sizeof(BlockNumber) * Max(c->n, 1));
	memcpy(root->pages, c->pages, sizeof(BlockNumber) * c->n);
}

/*
 * The delete-map page of row 'row' of block 'e' as qs_coldelmap_page
 * returns it, without copying the root when the backend's copy is good.
 */
static Buffer
leaf_of(Relation rel, const QsColDirEntry *e, uint32 row, int mode)
{
	const QsColDelmapRoot *c;
	QsColDelmapRoot root;
	Buffer		buf;

	if (e->delmap_root == InvalidBlockNumber)
		return InvalidBuffer;
	c = root_cached(rel, e);
	if (c != NULL)
		return qs_coldelmap_page(rel, e, c, row / QS_COLBLOCK_TIDS_PER_PAGE, mode);
	root_read(rel, e, &root);
	buf = qs_coldelmap_page(rel, e, &root, row / QS_COLBLOCK_TIDS_PER_PAGE, mode);
	if (root.pages)
		pfree(root.pages);
	return buf;
}

/*
 * qs_coldelmap_page
 *		The delete-map page of virtual page 'vpage' of block 'e', pinned
 *		and locked in 'mode' and checked, or InvalidBuffer when it has none.
 */
Buffer
qs_coldelmap_page(Relation rel, const QsColDirEntry *e,
				  const QsColDelmapRoot *root, uint32 vpage, int mode)
{
	BlockNumber blk;
	Buffer		buf;
	uint32		block_id;
	BlockNumber vblock;

	if (vpage >= root->n || root->pages[vpage] == InvalidBlockNumber)
		return InvalidBuffer;
	blk = root->pages[vpage];
	/* a retired version's page given back before its root (a crash) */
	if (gone_ok(e) && blk >= RelationGetNumberOfBlocks(rel))
		return InvalidBuffer;
	buf = read_checked(rel, blk);
	LockBuffer(buf, mode);
	if (!qs_coldelmap_page_info(BufferGetPage(buf), &block_id, &vblock, NULL) ||
		block_id != e->block_id ||
		vblock != QS_VIRT_BASE + e->tid_range * QS_VIRT_PAGES_PER_RANGE + vpage)
	{
		if (gone_ok(e))
		{
			UnlockReleaseBuffer(buf);
			return InvalidBuffer;
		}
		report_corrupt(rel, blk, "a page of another virtual page");
	}
	return buf;
}

/*
 * The entry of row 'row' as the directory has it: its inserter
 * (qs_coldir_row_xmin: the version's writer for the rows it appended,
 * frozen below), no xmax, t_ctid = its own TID.
 */
static void
init_entry(HeapTupleHeader h, const QsColDirEntry *e, uint32 row,
		   BlockNumber vblock)
{
	TransactionId xmin = qs_coldir_row_xmin(e, row);

	memset(h, 0, ENTRY_SIZE);
	if (TransactionIdIsNormal(xmin))
	{
		HeapTupleHeaderSetXmin(h, xmin);
		HeapTupleHeaderSetCmin(h, e->cid);
	}
	else
	{
		/* as qs_colmain_default_header: the raw xid xmin shows */
		HeapTupleHeaderSetXmin(h, qs_coldir_row_shown_xmin(e, row));
		HeapTupleHeaderSetXminFrozen(h);
	}
	h->t_infomask |= HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmax(h, InvalidTransactionId);
	h->t_hoff = SizeofHeapTupleHeader;
	ItemPointerSet(&h->t_ctid, vblock, row % QS_COLBLOCK_TIDS_PER_PAGE + 1);
}

/* a new delete-map page for 'vpage': every row's header as the directory has it */
static void
init_page(Page page, const QsColDirEntry *e, uint32 vpage)
{
	uint32		first = vpage * QS_COLBLOCK_TIDS_PER_PAGE;
	uint32		n = Min(e->published - first, QS_COLBLOCK_TIDS_PER_PAGE);
	BlockNumber vblock = QS_VIRT_BASE + e->tid_range * QS_VIRT_PAGES_PER_RANGE + vpage;

	PageInit(page, BLCKSZ, QS_COLPAGE_SPECIAL);
	special_set(page, e->block_id, vblock, n);
	for (uint32 i = 0; i < n; i++)
		init_entry(entry_at(page, i + 1), e, first + i, vblock);
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + n * ENTRY_SIZE;
	((PageHeader) page)->pd_upper = ((PageHeader) page)->pd_special;
}

/* a root page: no virtual page has a delete-map page yet */
static void
init_root(Page page, uint32 block_id, uint32 nvpages)
{
	BlockNumber *slots;

	PageInit(page, BLCKSZ, QS_COLPAGE_SPECIAL);
	special_set(page, block_id, InvalidBlockNumber, nvpages);
	slots = (BlockNumber *) PageGetContents(page);
	for (uint32 v = 0; v < nvpages; v++)
		slots[v] = InvalidBlockNumber;
	((PageHeader) page)->pd_lower =
		MAXALIGN(SizeOfPageHeaderData) + nvpages * sizeof(BlockNumber);
	((PageHeader) page)->pd_upper = ((PageHeader) page)->pd_special;
}

static Buffer
new_page(Relation rel)
{
	Buffer		buf = qs_colpage_take_free(rel);

	/* an empty delta page (given back by VACUUM), else a new one */
	if (BufferIsValid(buf))
		return buf;
	buf = qs_extend_fork(rel, MAIN_FORKNUM, NULL);

	if (BufferGetBlockNumber(buf) >= QS_VIRT_BASE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column table \"%s\" cannot grow past %u pages",
						RelationGetRelationName(rel), QS_VIRT_BASE)));
	if (!PageIsNew(BufferGetPage(buf)))
		elog(ERROR, "new page %u of column table \"%s\" is not empty",
			 BufferGetBlockNumber(buf), RelationGetRelationName(rel));
	return buf;
}

/*
 * Make the delete-map page of 'vpage' of block 'e' (whose root, if any, is
 * *root), holding the block's creation lock.  Returns it pinned.
 */
static Buffer
create_page(Relation rel, const QsColDirEntry *e, const QsColDelmapRoot *root,
			uint32 vpage)
{
	uint32		nvpages = (e->published + QS_COLBLOCK_TIDS_PER_PAGE - 1) /
		QS_COLBLOCK_TIDS_PER_PAGE;
	bool		newroot = e->delmap_root == InvalidBlockNumber;
	Buffer		rbuf,
				pbuf,
				dbuf = InvalidBuffer,
				mbuf = InvalidBuffer;
	uint32		idx = 0;
	QsGenXLogState *xs;
	Page		rpage,
				ppage;
	BlockNumber *slots;

	if (nvpages > QS_COLDELMAP_ROOT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column block %u of \"%s\" has too many rows for a delete map (%u)",
						e->block_id, RelationGetRelationName(rel), e->published)));
	/*
	 * The new leaf first: extending may wait for the extension lock (a bulk
	 * load holds it while it writes a run), and no reader may wait behind
	 * us on the root meanwhile.
	 */
	pbuf = new_page(rel);
	if (newroot)
		rbuf = new_page(rel);
	else
	{
		uint32		sp[4];

		rbuf = read_checked(rel, e->delmap_root);
		LockBuffer(rbuf, BUFFER_LOCK_EXCLUSIVE);
		special_get(BufferGetPage(rbuf), sp);
		if (!qs_is_column_page(BufferGetPage(rbuf)) ||
			sp[0] != QS_COLDELMAP_MAGIC || sp[1] != e->block_id ||
			sp[2] != InvalidBlockNumber || sp[3] != root->n ||
			vpage >= root->n)
			report_corrupt(rel, e->delmap_root, "a root page of another block");
	}
	if (newroot)
		dbuf = qs_coldir_lock_entry(rel, e->block_id, &idx, &mbuf);

	xs = qs_genxlog_start(rel);
	if (newroot)
	{
		rpage = qs_genxlog_register(xs, rbuf, GENERIC_XLOG_FULL_IMAGE);
		init_root(rpage, e->block_id, nvpages);
	}
	else
		rpage = qs_genxlog_register(xs, rbuf, 0);
	ppage = qs_genxlog_register(xs, pbuf, GENERIC_XLOG_FULL_IMAGE);
	init_page(ppage, e, vpage);
	slots = (BlockNumber *) PageGetContents(rpage);
	slots[vpage] = BufferGetBlockNumber(pbuf);
	if (newroot)
	{
		Page		dpage = qs_genxlog_register(xs, dbuf, 0);

		qs_coldir_page_entry(dpage, idx)->delmap_root = BufferGetBlockNumber(rbuf);
	}
	qs_genxlog_finish(xs);
	/* the root changed (and the entry, with a new root) */
	qs_coldir_changed(rel);

	if (BufferIsValid(dbuf))
		qs_coldir_unlock_entry(dbuf, mbuf);
	UnlockReleaseBuffer(rbuf);
	LockBuffer(pbuf, BUFFER_LOCK_UNLOCK);
	return pbuf;
}

/*
 * qs_coldelmap_new_root
 *		The root page of a new open block (src/merge/README.md section 5),
 *		made before its directory entry exists, with room for 'capacity'
 *		rows: every version of the block shares it, so the root pointer
 *		never changes after the first version.  A crash before the entry is
 *		appended leaves an unreferenced page, as a run does.
 */
BlockNumber
qs_coldelmap_new_root(Relation rel, uint32 block_id, uint32 capacity)
{
	uint32		nvpages = (capacity + QS_COLBLOCK_TIDS_PER_PAGE - 1) /
		QS_COLBLOCK_TIDS_PER_PAGE;
	Buffer		rbuf;
	QsGenXLogState *xs;
	Page		rpage;
	BlockNumber blk;

	if (nvpages > QS_COLDELMAP_ROOT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column block %u of \"%s\" has too many rows for a delete map (%u)",
						block_id, RelationGetRelationName(rel), capacity)));
	rbuf = new_page(rel);
	xs = qs_genxlog_start(rel);
	rpage = qs_genxlog_register(xs, rbuf, GENERIC_XLOG_FULL_IMAGE);
	init_root(rpage, block_id, nvpages);
	qs_genxlog_finish(xs);
	blk = BufferGetBlockNumber(rbuf);
	UnlockReleaseBuffer(rbuf);
	return blk;
}

/*
 * The virtual pages block e's root has room for, and the pages of its
 * delete map, the root included (0 and 0: no delete map).
 */
static uint32
root_shape(Relation rel, const QsColDirEntry *e, uint32 *npages)
{
	QsColDelmapRoot root;
	uint32		nv;

	*npages = 0;
	if (e->delmap_root == InvalidBlockNumber)
		return 0;
	qs_coldelmap_root(rel, e, &root);
	nv = root.n;
	*npages = 1;
	for (uint32 v = 0; v < root.n; v++)
		if (root.pages[v] != InvalidBlockNumber)
			(*npages)++;
	if (root.pages)
		pfree(root.pages);
	return nv;
}

/* rows a block's delete map has room for (its root's virtual pages) */
uint32
qs_coldelmap_capacity(Relation rel, const QsColDirEntry *e)
{
	uint32		npages;

	return root_shape(rel, e, &npages) * QS_COLBLOCK_TIDS_PER_PAGE;
}

/* pages of e's delete map, its root included (0: none) */
uint32
qs_coldelmap_npages(Relation rel, const QsColDirEntry *e)
{
	uint32		npages;

	(void) root_shape(rel, e, &npages);
	return npages;
}

/*
 * qs_coldelmap_extend
 *		A merge appends rows base..published-1 to an open block ('e' is the
 *		new version, not in the directory yet): the delete-map page of the
 *		virtual page holding row 'base', if it has one, gets their entries
 *		and its row count.  The caller holds the block's creation lock from
 *		before it read the old version until the new one is appended, so
 *		no page is made meanwhile from the old version's row count.  Entries
 *		past the old version's rows are never read through it, so this may
 *		come before the directory record (a crash in between leaves entries
 *		nobody reads, rewritten by the next merge).
 */
void
qs_coldelmap_extend(Relation rel, const QsColDirEntry *e)
{
	QsColDelmapRoot root;
	uint32		vpage = e->base / QS_COLBLOCK_TIDS_PER_PAGE;
	uint32		first = vpage * QS_COLBLOCK_TIDS_PER_PAGE;
	uint32		n = Min(e->published - first, QS_COLBLOCK_TIDS_PER_PAGE);
	BlockNumber vblock = QS_VIRT_BASE + e->tid_range * QS_VIRT_PAGES_PER_RANGE + vpage;
	Buffer		buf;
	QsGenXLogState *xs;
	Page		page;

	if (e->base % QS_COLBLOCK_TIDS_PER_PAGE == 0 ||
		e->delmap_root == InvalidBlockNumber)
		return;
	qs_coldelmap_root(rel, e, &root);
	buf = qs_coldelmap_page(rel, e, &root, vpage, BUFFER_LOCK_EXCLUSIVE);
	if (root.pages)
		pfree(root.pages);
	if (!BufferIsValid(buf))
		return;
	xs = qs_genxlog_start(rel);
	page = qs_genxlog_register(xs, buf, 0);
	for (uint32 row = e->base; row < first + n; row++)
		init_entry(entry_at(page, row - first + 1), e, row, vblock);
	special_set(page, e->block_id, vblock, n);
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + n * ENTRY_SIZE;
	qs_genxlog_finish(xs);
	UnlockReleaseBuffer(buf);
}

/*
 * qs_coldelmap_buffer
 *		The buffer holding the header of main row 'tid' (pinned, not
 *		locked), made when 'create' and the row's virtual page has none;
 *		InvalidBuffer when no live block version has that row (or none is
 *		made).  The engine's DML calls it for virtual TIDs.
 *
 * The row's entry comes from the backend's directory copy when it is as
 * new as the directory (qs_coldir_find_current, README section 7.1):
 * re-reading the whole directory for every row made a DELETE cost rows x
 * directory entries (issue 12).  A page is made from a fresh read of the
 * range's entries under the creation lock; making it (and a root) moves
 * the directory counter, so the next row reads the directory again.
 */
Buffer
qs_coldelmap_buffer(Relation rel, ItemPointer tid, bool create)
{
	uint32		range,
				row;
	QsColDirectory dir;
	const QsColDirEntry *e;
	QsColDirEntry entry;
	QsColDelmapRoot root;
	uint32		vpage;
	Buffer		buf;
	BlockNumber lockblk;

	if (!qs_virt_decode(tid, &range, &row))
		return InvalidBuffer;
	vpage = row / QS_COLBLOCK_TIDS_PER_PAGE;
	if (!qs_coldir_find_current(rel, range, &entry) || row >= entry.published)
		return InvalidBuffer;
	buf = leaf_of(rel, &entry, row, BUFFER_LOCK_SHARE);
	if (BufferIsValid(buf))
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		return buf;
	}
	if (!create)
		return InvalidBuffer;

	/* make it: one creator per block at a time, then look again */
	lockblk = QS_VIRT_BASE + range * QS_VIRT_PAGES_PER_RANGE;
	LockPage(rel, lockblk, ExclusiveLock);
	qs_coldir_read_range(rel, range, &dir);
	e = qs_coldir_find_range(&dir, range);
	if (e == NULL || row >= e->published)
	{
		pfree(dir.entries);
		UnlockPage(rel, lockblk, ExclusiveLock);
		return InvalidBuffer;
	}
	entry = *e;
	pfree(dir.entries);
	qs_coldelmap_root(rel, &entry, &root);
	buf = qs_coldelmap_page(rel, &entry, &root, vpage, BUFFER_LOCK_SHARE);
	if (BufferIsValid(buf))
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	else
		buf = create_page(rel, &entry, &root, vpage);
	if (root.pages)
		pfree(root.pages);
	UnlockPage(rel, lockblk, ExclusiveLock);
	return buf;
}

/*
 * qs_coldelmap_buffer_any
 *		VACUUM's second pass: the delete-map page of 'tid' in any block
 *		version, a RETIRED one (a load or merge that aborted) included,
 *		pinned; or InvalidBuffer.  Through a directory entry of tid's TID
 *		range whose root links a page for tid's virtual page, whether or
 *		not the entry's rows include tid's: a merge into an open block
 *		extends the straddling page past the old version's rows
 *		(qs_coldelmap_extend) in a record before the one that lists its
 *		version, so an error or a crash between the two leaves entries
 *		(xmin = the aborted merge) that no version has but the live one's
 *		root links; they are DEAD to VACUUM's first pass and removed here.
 *		The second pass only marks entries the first found DEAD, and no
 *		merge runs during VACUUM (both take ShareUpdateExclusiveLock); a
 *		later merge's extend rewrites such rows.  A page only an unlisted
 *		root links is never reached here, so VACUUM could not mark its
 *		entries removed (qs_coldelmap_rows_removed, the directory's
 *		compaction R3b).
 */
Buffer
qs_coldelmap_buffer_any(Relation rel, ItemPointer tid)
{
	QsColDirectory dir;
	Buffer		buf;

	qs_coldir_read_all(rel, &dir);
	buf = qs_coldelmap_buffer_any_in(rel, &dir, tid);
	pfree(dir.entries);
	return buf;
}

/* the same through the versions of 'all' (qs_coldir_read_all), read before */
Buffer
qs_coldelmap_buffer_any_in(Relation rel, const QsColDirectory *all,
						   ItemPointer tid)
{
	uint32		range,
				row;
	QsColDelmapRoot root;
	Buffer		buf = InvalidBuffer;

	if (!qs_virt_decode(tid, &range, &row))
		return InvalidBuffer;
	for (uint32 i = 0; i < all->nentries && !BufferIsValid(buf); i++)
	{
		const QsColDirEntry *e = &all->entries[i];

		if (e->tid_range != range)
			continue;
		qs_coldelmap_root(rel, e, &root);
		buf = qs_coldelmap_page(rel, e, &root, row / QS_COLBLOCK_TIDS_PER_PAGE,
								BUFFER_LOCK_SHARE);
		if (BufferIsValid(buf))
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (root.pages)
			pfree(root.pages);
	}
	return buf;
}

/*
 * qs_colmain_hint_xmin
 *		Set the inserter's commit state of a main row's header copy as hint
 *		bits (committed in the commit log is enough for a copy, not a page),
 *		so that heap's visibility routines have nothing to write; a running
 *		or our own inserter is left to them.
 */
void
qs_colmain_hint_xmin(HeapTupleHeader hdr)
{
	TransactionId xmin = HeapTupleHeaderGetRawXmin(hdr);

	if (HeapTupleHeaderXminCommitted(hdr) || HeapTupleHeaderXminInvalid(hdr) ||
		!TransactionIdIsNormal(xmin) || TransactionIdIsCurrentTransactionId(xmin))
		return;
	/*
	 * The procarray before the commit log, as heap's visibility routines
	 * ask: an inserter that commits between a commit-log miss and a
	 * procarray miss would otherwise be taken for aborted (XMIN_INVALID):
	 * its committed row invisible to this reader, and its index entry
	 * killed by a unique check (review_col12a F1).
	 */
	if (TransactionIdIsInProgress(xmin))
		return;
	if (TransactionIdDidCommit(xmin))
		hdr->t_infomask |= HEAP_XMIN_COMMITTED;
	else
		hdr->t_infomask |= HEAP_XMIN_INVALID;
}

/*
 * qs_colmain_needs_no_buffer
 *		May heap's visibility test of the header copy 'hdr' under 'snapshot'
 *		(and HeapCheckForSerializableConflictOut after it) be given
 *		InvalidBuffer?  Under MVCC and dirty snapshots they use the buffer
 *		only to mark it for hint bits (SetHintBits), and set none on a
 *		header whose inserter is hinted committed or frozen and whose xmax
 *		is invalid: HeapTupleSatisfiesMVCC, HeapTupleSatisfiesDirty and
 *		HeapTupleSatisfiesVacuumHorizon return on those bits before any
 *		hint.  Otherwise (a running or own inserter, which may commit
 *		meanwhile; an xmax; other snapshot kinds: a historic MVCC snapshot
 *		names the tuple's relation by its buffer) the caller gives a locked
 *		page whose bytes the routines do not touch (the metapage).
 */
bool
qs_colmain_needs_no_buffer(const HeapTupleHeaderData *hdr, Snapshot snapshot)
{
	return (snapshot->snapshot_type == SNAPSHOT_MVCC ||
			snapshot->snapshot_type == SNAPSHOT_DIRTY) &&
		HeapTupleHeaderXminCommitted(hdr) &&
		(hdr->t_infomask & HEAP_XMAX_INVALID) != 0;
}

/*
 * qs_colmain_hinted_header
 *		The header of a main row without a delete-map entry (its block's),
 *		with its inserter's commit state set as hint bits.
 */
void
qs_colmain_hinted_header(const QsColDirEntry *e, ItemPointer tid,
						 HeapTupleHeader hdr)
{
	qs_colmain_default_header(e, tid, hdr);
	qs_colmain_hint_xmin(hdr);
}

/*
 * qs_coldelmap_header
 *		The header of main row 'row' of block 'e' as of now (a copy in
 *		*hdr) and whether it is visible to 'snapshot' (NULL: not tested).
 *		Returns false when the row was removed by VACUUM.  A row without
 *		an entry gets the directory's header (its block was found visible
 *		by the caller).
 */
bool
qs_coldelmap_header(Relation rel, const QsColDirEntry *e, uint32 row,
					Snapshot snapshot, HeapTupleHeader hdr, bool *visible)
{
	Buffer		buf;
	OffsetNumber off = row % QS_COLBLOCK_TIDS_PER_PAGE + 1;
	ItemPointerData tid;

	qs_virt_tid(e->tid_range, row, &tid);
	*visible = true;
	if (qs_merged_block_hidden(qs_coldir_row_xmin(e, row), e->flags, snapshot))
	{
		/* a running merge's rows: their delta versions count (moved.h) */
		qs_colmain_default_header(e, &tid, hdr);
		*visible = false;
		return true;
	}
	buf = leaf_of(rel, e, row, BUFFER_LOCK_SHARE);
	if (!BufferIsValid(buf))
	{
		qs_colmain_hinted_header(e, &tid, hdr);
		if (snapshot != NULL)
		{
			HeapTupleData tup;
			Buffer		mbuf = InvalidBuffer;

			/*
			 * Per row: a dirty snapshot reports this row's inserter.  Heap's
			 * routines want a locked buffer for hint bits they may still set
			 * (an inserter that commits meanwhile): the metapage's, whose
			 * bytes they do not touch (the header is our copy).  The common
			 * case, a committed block, needs none (qs_colmain_needs_no_buffer).
			 */
			tup.t_data = hdr;
			tup.t_len = SizeofHeapTupleHeader;
			tup.t_self = tid;
			tup.t_tableOid = RelationGetRelid(rel);
			if (!qs_colmain_needs_no_buffer(hdr, snapshot))
			{
				mbuf = ReadBuffer(rel, QS_COLMETA_BLKNO);
				LockBuffer(mbuf, BUFFER_LOCK_SHARE);
			}
			*visible = HeapTupleSatisfiesVisibility(&tup, snapshot, mbuf);
			HeapCheckForSerializableConflictOut(*visible, rel, &tup, mbuf,
												snapshot);
			if (BufferIsValid(mbuf))
				UnlockReleaseBuffer(mbuf);
		}
		return true;
	}
	else
	{
		HeapTupleHeader h = qs_coldelmap_entry(BufferGetPage(buf), off);
		HeapTupleData tup;

		if (h == NULL)
		{
			UnlockReleaseBuffer(buf);
			*visible = false;
			return false;
		}
		if (snapshot != NULL)
		{
			tup.t_data = h;
			tup.t_len = SizeofHeapTupleHeader;
			tup.t_self = tid;
			tup.t_tableOid = RelationGetRelid(rel);
			*visible = HeapTupleSatisfiesVisibility(&tup, snapshot, buf);
			HeapCheckForSerializableConflictOut(*visible, rel, &tup, buf,
												snapshot);
		}
		memcpy(hdr, h, sizeof(HeapTupleHeaderData));
		UnlockReleaseBuffer(buf);
		return true;
	}
}

/*
 * qs_coldelmap_ensure_root
 *		The seal (column README section 4.5): a block version without a
 *		delete map gets its empty root before a new version supersedes it,
 *		so that both versions share one delete map.  The caller holds the
 *		block's creation lock (no deleter makes the root meanwhile) and 'e'
 *		is the live version; e->delmap_root is set.  The root is written
 *		into the entry in place, as a deleter's first delete-map page does.
 */
void
qs_coldelmap_ensure_root(Relation rel, QsColDirEntry *e)
{
	uint32		nvpages = (e->published + QS_COLBLOCK_TIDS_PER_PAGE - 1) /
		QS_COLBLOCK_TIDS_PER_PAGE;
	Buffer		rbuf,
				dbuf,
				mbuf;
	uint32		idx;
	QsGenXLogState *xs;
	QsColDirEntry *de;

	if (e->delmap_root != InvalidBlockNumber)
		return;
	if (nvpages > QS_COLDELMAP_ROOT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column block %u of \"%s\" has too many rows for a delete map (%u)",
						e->block_id, RelationGetRelationName(rel), e->published)));
	rbuf = new_page(rel);
	dbuf = qs_coldir_lock_entry(rel, e->block_id, &idx, &mbuf);
	xs = qs_genxlog_start(rel);
	init_root(qs_genxlog_register(xs, rbuf, GENERIC_XLOG_FULL_IMAGE), e->block_id,
			  nvpages);
	de = qs_coldir_page_entry(qs_genxlog_register(xs, dbuf, 0), idx);
	if (de->run_start != e->run_start || de->delmap_root != InvalidBlockNumber)
		elog(ERROR, "directory entry of column block %u of \"%s\" changed under the creation lock",
			 e->block_id, RelationGetRelationName(rel));
	de->delmap_root = BufferGetBlockNumber(rbuf);
	qs_genxlog_finish(xs);
	qs_coldir_changed(rel);
	e->delmap_root = BufferGetBlockNumber(rbuf);
	qs_coldir_unlock_entry(dbuf, mbuf);
	UnlockReleaseBuffer(rbuf);
}

/* ------------------------------------------------------------------------
 * Blocks whose rows are all gone (VACUUM, qs_coldir_retire_emptied)
 * ------------------------------------------------------------------------
 */

/*
 * Is page 'blk' (read under 'buf', locked) still block e's root?  A
 * RETIRED | EMPTIED version's delete map goes back to the delta; its
 * entry still names the page, which may hold anything since.
 */
static bool
root_of(Page page, const QsColDirEntry *e)
{
	uint32		sp[4];

	if (PageIsNew(page) || !qs_is_column_page(page) ||
		qs_column_page_magic(page) != QS_COLDELMAP_MAGIC)
		return false;
	special_get(page, sp);
	return sp[1] == e->block_id && sp[2] == InvalidBlockNumber &&
		sp[3] <= QS_COLDELMAP_ROOT_MAX;
}

/*
 * qs_coldelmap_all_removed
 *		Has VACUUM removed every row of version e (rows 0..published-1)?
 *		A removed entry (entry_removed) is a row dead to everybody whose
 *		index entries are gone (vacuum.c marks it after index_bulk_delete):
 *		heap's LP_UNUSED.  No writer revives one (no reader finds its row),
 *		so the answer stays true once true.
 */
bool
qs_coldelmap_all_removed(Relation rel, const QsColDirEntry *e)
{
	QsColDelmapRoot root;
	uint32		nv = (e->published + QS_COLBLOCK_TIDS_PER_PAGE - 1) /
		QS_COLBLOCK_TIDS_PER_PAGE;
	bool		all = true;

	if (e->delmap_root == InvalidBlockNumber || e->published == 0)
		return false;
	qs_coldelmap_root(rel, e, &root);
	if (root.n < nv)
		all = false;
	for (uint32 v = 0; v < nv && all; v++)
	{
		Buffer		buf = qs_coldelmap_page(rel, e, &root, v, BUFFER_LOCK_SHARE);
		uint32		rows = Min(e->published - v * QS_COLBLOCK_TIDS_PER_PAGE,
							   QS_COLBLOCK_TIDS_PER_PAGE);
		uint32		n;

		if (!BufferIsValid(buf))
		{
			all = false;		/* rows never deleted */
			break;
		}
		if (!qs_coldelmap_page_info(BufferGetPage(buf), NULL, NULL, &n) || n < rows)
			all = false;
		for (OffsetNumber off = 1; off <= rows && all; off++)
			if (!entry_removed(entry_at(BufferGetPage(buf), off)))
				all = false;
		UnlockReleaseBuffer(buf);
	}
	if (root.pages)
		pfree(root.pages);
	return all;
}

/*
 * qs_coldelmap_rows_removed
 *		Does the delete map of version e hold nothing but removed entries
 *		(entry_removed) for its rows from .. published-1?  A row whose
 *		virtual page has no delete-map page (or whose page has fewer
 *		entries) has none.  The directory's compaction asks it of an
 *		aborted version before its entry goes (dir.c, compact_removable,
 *		R3b): 'from' is where the rows of its block's live versions end,
 *		and VACUUM's second pass reaches a delete-map entry only through a
 *		listed version whose root links its page (qs_coldelmap_buffer_any),
 *		while the first pass finds it on the page whatever the directory
 *		lists.
 *		An entry left NORMAL there would be classified DEAD (its inserter,
 *		the aborted writer) at every VACUUM and never marked removed, and
 *		its xid would outlive relfrozenxid.  The answer stays true: no
 *		writer makes or revives an entry of a row no live version holds
 *		(the caller checks that no live version does).
 */
bool
qs_coldelmap_rows_removed(Relation rel, const QsColDirEntry *e, uint32 from)
{
	QsColDelmapRoot root;
	bool		all = true;

	if (e->delmap_root == InvalidBlockNumber || from >= e->published)
		return true;
	qs_coldelmap_root(rel, e, &root);
	for (uint32 v = from / QS_COLBLOCK_TIDS_PER_PAGE;
		 v * QS_COLBLOCK_TIDS_PER_PAGE < e->published && all; v++)
	{
		Buffer		buf = qs_coldelmap_page(rel, e, &root, v, BUFFER_LOCK_SHARE);
		uint32		first = v * QS_COLBLOCK_TIDS_PER_PAGE;
		uint32		n;

		if (!BufferIsValid(buf))
			continue;			/* no page: no entry */
		if (qs_coldelmap_page_info(BufferGetPage(buf), NULL, NULL, &n))
			for (uint32 row = Max(from, first);
				 row < Min(e->published, first + n) && all; row++)
				if (!entry_removed(entry_at(BufferGetPage(buf), row - first + 1)))
					all = false;
		UnlockReleaseBuffer(buf);
	}
	if (root.pages)
		pfree(root.pages);
	return all;
}

/*
 * qs_coldelmap_reclaim
 *		Give the delete-map pages of a RETIRED | EMPTIED version back to the
 *		delta as empty pages (as qs_colrun_reclaim does with runs): the
 *		leaves first, the root last, each only while it still is this
 *		block's page, so that a crash half-way needs nothing but the next
 *		VACUUM (the root is the last to go, and names the leaves left).
 *		The caller has made sure no backend still reads the version
 *		(qs_coldir_reclaim).  Returns the pages given back.
 */
uint32
qs_coldelmap_reclaim(Relation rel, const QsColDirEntry *e)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber *leaves;
	uint32		nleaves;
	uint32		n = 0;
	Buffer		buf;
	uint32		sp[4];

	if (e->delmap_root == InvalidBlockNumber || e->delmap_root >= nblocks ||
		e->delmap_root == QS_COLMETA_BLKNO)
		return 0;
	buf = ReadBuffer(rel, e->delmap_root);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	if (!root_of(BufferGetPage(buf), e))
	{
		UnlockReleaseBuffer(buf);
		return 0;				/* given back already */
	}
	special_get(BufferGetPage(buf), sp);
	nleaves = sp[3];
	leaves = palloc(sizeof(BlockNumber) * Max(nleaves, 1));
	memcpy(leaves, PageGetContents(BufferGetPage(buf)), sizeof(BlockNumber) * nleaves);
	UnlockReleaseBuffer(buf);

	for (uint32 v = 0; v < nleaves; v++)
	{
		uint32		block_id;
		BlockNumber vblock;

		if (leaves[v] == InvalidBlockNumber || leaves[v] >= nblocks ||
			leaves[v] == QS_COLMETA_BLKNO)
			continue;
		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(rel, leaves[v]);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		if (qs_coldelmap_page_info(BufferGetPage(buf), &block_id, &vblock, NULL) &&
			block_id == e->block_id &&
			vblock == QS_VIRT_BASE + e->tid_range * QS_VIRT_PAGES_PER_RANGE + v)
		{
			qs_colpage_give_back(rel, buf);
			n++;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(leaves);

	buf = ReadBuffer(rel, e->delmap_root);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (root_of(BufferGetPage(buf), e))
	{
		qs_colpage_give_back(rel, buf);
		/* a root page no more (qs_coldir_delmap_pages) */
		qs_coldir_changed(rel);
		n++;
	}
	UnlockReleaseBuffer(buf);
	return n;
}
