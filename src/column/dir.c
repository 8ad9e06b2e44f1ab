/*-------------------------------------------------------------------------
 *
 * dir.c
 *	  The metapage and the block directory of a column table (README
 *	  sections 1 and 7).
 *
 * Block 0 of the main fork is the metapage, written when the relation's
 * storage is created (and into the init fork of an UNLOGGED table, so a
 * crash reset keeps it).  The directory is a chain of pages of fixed-size
 * entries, appended to at its tail; only VACUUM's compaction moves
 * entries (toward the head, in order) and removes pages.
 *
 * WAL: new pages (metapage at creation) are full-page images
 * (log_newpage); every later change of the metapage and directory pages
 * is one generic WAL record (access/generic_xlog.h) holding all the pages
 * it changes, so a directory append and the metapage counters are atomic.
 *
 * Locking: a change takes the metapage's exclusive lock first and keeps
 * it until the change is logged, then the directory page(s); this
 * serializes block id / TID range reservation and appends.  Readers hold
 * the metapage's share lock for their whole walk, one directory page's
 * share lock at a time (P1), and in-place writers find and write their
 * entry under one share hold of the metapage (P2), because VACUUM's
 * compaction moves entries and gives directory pages back under the
 * metapage's exclusive lock (qs_coldir_compact; README section 4.7).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/smgr.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/colstore.h"
#include "merge/moved.h"
#include "tableam/engine_int.h"
#include "wal/genxlog.h"

static void
set_special(Page page, uint32 magic)
{
	uint32		sp[4] = {magic, 0, 0, 0};

	memcpy(PageGetSpecialPointer(page), sp, sizeof(sp));
}

/* ------------------------------------------------------------------------
 * The directory change counter and the backend's directory copies
 * (README section 7.1, "Directory copies").
 *
 * QS_DIRGEN_SLOTS shared 64-bit counters; a relation's is the slot its
 * relfilelocator hashes to.  Every change of a directory page or of a
 * delete-map root page bumps it while the changed page is still
 * exclusively locked (qs_coldir_changed); a reader reads it before it
 * reads the directory, and a copy tagged with the value read before it
 * was made is as new as the directory as long as the counter still has
 * that value.  Relations sharing a slot only cost each other re-reads.
 * Not WAL-logged: shared memory starts over with every backend after a
 * crash, and a standby replays directory changes as generic WAL, which
 * runs none of our code, so no copy is kept or reused during recovery.
 * ------------------------------------------------------------------------
 */
#define QS_DIRGEN_SLOTS		4096

static pg_atomic_uint64 *dirgen = NULL;

Size
qs_coldirgen_shmem_size(void)
{
	return MAXALIGN(sizeof(pg_atomic_uint64) * QS_DIRGEN_SLOTS);
}

void
qs_coldirgen_shmem_request(void)
{
	RequestAddinShmemSpace(qs_coldirgen_shmem_size());
}

/* shmem_startup_hook, under AddinShmemInitLock */
void
qs_coldirgen_shmem_init(void)
{
	bool		found;

	dirgen = ShmemInitStruct("quickstep_am column directory counters",
							 qs_coldirgen_shmem_size(), &found);
	if (!found)
		for (int i = 0; i < QS_DIRGEN_SLOTS; i++)
			pg_atomic_init_u64(&dirgen[i], 0);
}

static pg_atomic_uint64 *
dirgen_slot_of(const RelFileLocator *loc)
{
	return &dirgen[hash_bytes((const unsigned char *) loc, sizeof(*loc)) %
				   QS_DIRGEN_SLOTS];
}

static pg_atomic_uint64 *
dirgen_slot(Relation rel)
{
	return dirgen_slot_of(&QS_REL_LOCATOR(rel));
}

/*
 * qs_coldir_changed
 *		Called after every change of a directory page or a delete-map root
 *		page, with the changed page(s) still exclusively locked: a reader
 *		that copied the page before the change read the counter before
 *		that, so it finds the counter moved.  (A full barrier: the change
 *		is in the page before the counter moves.)
 */
void
qs_coldir_changed(Relation rel)
{
	if (dirgen != NULL)
		pg_atomic_fetch_add_u64(dirgen_slot(rel), 1);
}

/*
 * qs_coldir_gen
 *		The table's directory change counter now, into *gen, for a copy of
 *		a page whose every change moves it (a delete-map root: delmap.c):
 *		read before the page, such a copy is as new as the page while the
 *		counter keeps that value (README section 7.1).  False when no copy
 *		may be kept (recovery, where the counter does not move; no shared
 *		memory).
 */
bool
qs_coldir_gen(Relation rel, uint64 *gen)
{
	if (dirgen == NULL || RecoveryInProgress())
		return false;
	pg_memory_barrier();
	*gen = pg_atomic_read_u64(dirgen_slot(rel));
	return true;
}

/*
 * New storage (a new relfilelocator: TRUNCATE, rewrites, SET TABLESPACE):
 * no copy made of an earlier relfilenode that had the same number (the
 * relcache invalidation of the change drops them too) passes for it.
 */
void
qs_coldir_changed_locator(const RelFileLocator *loc)
{
	if (dirgen != NULL)
		pg_atomic_fetch_add_u64(dirgen_slot_of(loc), 1);
}

/*
 * The backend's directory copies: the raw entries (every entry, in
 * directory order) of up to DIRCOPY_SLOTS relations, each tagged with the
 * relation, its relfilelocator and the counter read before it was made;
 * and, made from them on demand, the copy qs_coldir_read returns (one
 * version per range, TID order) and the pages of its delete maps.
 * Visibility is judged per snapshot at use (coldir_read_ext), never
 * stored.  The collapsed copy depends on whether versions' writers
 * aborted, which can change without a directory change while a writer
 * runs: a copy made while one of its versions' writers was running (or is
 * ours) is kept for the command only, as before (section 4.1).
 */
#define DIRCOPY_SLOTS		8
#define DIRCOPY_MAX_ENTRIES	16384	/* 1 MB of entries: larger ones are read per use */

#if PG_VERSION_NUM >= 170000
#define QS_MY_LXID	(MyProc->vxid.lxid)
#else
#define QS_MY_LXID	(MyProc->lxid)
#endif

typedef struct DirCopy
{
	bool		used;
	bool		too_large;		/* no entries: read per use (this gen) */
	Oid			relid;
	RelFileLocator locator;
	uint64		gen;			/* the counter before the copy was read */
	uint64		last_use;
	QsColDirectory raw;			/* every entry, directory order */
	/* the collapsed copy (qs_coldir_read), NULL entries: not made */
	QsColDirectory cur;
	bool		cur_stable;		/* else valid for cur_lxid/cur_cid only */
	LocalTransactionId cur_lxid;
	CommandId	cur_cid;
	int64		delmap_pages;	/* of cur's blocks; -1: not counted */
} DirCopy;

static DirCopy dircopies[DIRCOPY_SLOTS];
static MemoryContext dircopy_cxt = NULL;
static uint64 dircopy_clock = 0;

static void
dircopy_drop(DirCopy *dc)
{
	if (dc->raw.entries)
		pfree(dc->raw.entries);
	if (dc->cur.entries)
		pfree(dc->cur.entries);
	memset(dc, 0, sizeof(*dc));
}

static void
dircopy_inval(Datum arg, Oid relid)
{
	for (int i = 0; i < DIRCOPY_SLOTS; i++)
		if (dircopies[i].used &&
			(!OidIsValid(relid) || dircopies[i].relid == relid))
			dircopy_drop(&dircopies[i]);
}

/*
 * A subtransaction abort makes our versions of it aborted without a
 * directory change, and the next statement may run with the same command
 * id (a failed statement consumes none): a collapsed copy kept for the
 * command only is dropped then.
 */
static void
dircopy_subxact(SubXactEvent event, SubTransactionId mySubid,
				SubTransactionId parentSubid, void *arg)
{
	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	for (int i = 0; i < DIRCOPY_SLOTS; i++)
		if (dircopies[i].used && !dircopies[i].cur_stable)
			dircopies[i].cur_lxid = InvalidLocalTransactionId;
}

static void coldir_walk_raw(Relation rel, QsColDirectory *dir);
static void coldir_read_ext(Relation rel, Snapshot snapshot, bool collapse,
							bool one_range, uint32 range, QsColDirectory *dir);
static void sort_entries(QsColDirectory *dir, bool collapse, bool with_snapshot);

/*
 * The backend's current raw copy of rel's directory, read now if it has
 * none that is as new as the directory; NULL when copies are not kept
 * (recovery, no shared memory, a directory too large).
 */
static DirCopy *
dircopy_get(Relation rel)
{
	DirCopy    *dc = NULL;
	QsColDirectory raw;
	uint64		gen;

	/*
	 * The counter before any directory page: a change this read may miss
	 * (its page copied before the change) moves it after this read.
	 */
	if (!qs_coldir_gen(rel, &gen))
		return NULL;
	if (dircopy_cxt == NULL)
	{
		dircopy_cxt = AllocSetContextCreate(TopMemoryContext,
											"quickstep column directory copies",
											ALLOCSET_SMALL_SIZES);
		CacheRegisterRelcacheCallback(dircopy_inval, (Datum) 0);
		RegisterSubXactCallback(dircopy_subxact, NULL);
	}

	for (int i = 0; i < DIRCOPY_SLOTS; i++)
	{
		DirCopy    *c = &dircopies[i];

		if (c->used && c->relid == RelationGetRelid(rel) &&
			memcmp(&c->locator, &QS_REL_LOCATOR(rel), sizeof(c->locator)) == 0)
		{
			if (c->gen == gen)
			{
				c->last_use = ++dircopy_clock;
				return c->too_large ? NULL : c;
			}
			dircopy_drop(c);
			dc = c;
			break;
		}
	}
	if (dc == NULL)
	{
		/* an unused slot (last_use 0), else the least recently used */
		dc = &dircopies[0];
		for (int i = 1; i < DIRCOPY_SLOTS && dc->used; i++)
			if (!dircopies[i].used || dircopies[i].last_use < dc->last_use)
				dc = &dircopies[i];
		if (dc->used)
			dircopy_drop(dc);
	}

	/* read where an error frees it, then kept */
	coldir_walk_raw(rel, &raw);
	dc->relid = RelationGetRelid(rel);
	dc->locator = QS_REL_LOCATOR(rel);
	dc->gen = gen;
	dc->delmap_pages = -1;
	dc->last_use = ++dircopy_clock;
	if (raw.nentries > DIRCOPY_MAX_ENTRIES)
	{
		/* remembered, so that the callers' own reads are the only ones */
		pfree(raw.entries);
		dc->too_large = true;
		dc->used = true;
		return NULL;
	}
	dc->raw.nentries = raw.nentries;
	dc->raw.entries = MemoryContextAlloc(dircopy_cxt,
										 sizeof(QsColDirEntry) * Max(raw.nentries, 1));
	memcpy(dc->raw.entries, raw.entries, sizeof(QsColDirEntry) * raw.nentries);
	pfree(raw.entries);
	dc->used = true;			/* last: an error above leaves the slot unused */
	return dc;
}

/*
 * The collapsed copy (what qs_coldir_read returns) of dc, made now if it
 * has none valid.  Stable unless a version of a range with several had a
 * writer running (or ours) before the collapse: such a writer may abort
 * meanwhile, which changes which version the collapse keeps (asked
 * before the collapse, so that an abort after it is seen here).
 */
static const QsColDirectory *
dircopy_current(DirCopy *dc)
{
	QsColDirectory cur;
	bool		stable = true;

	if (dc->cur.entries != NULL &&
		(dc->cur_stable ||
		 (dc->cur_lxid == QS_MY_LXID &&
		  dc->cur_cid == GetCurrentCommandId(false))))
		return &dc->cur;
	if (dc->cur.entries != NULL)
		pfree(dc->cur.entries);
	dc->cur.entries = NULL;
	dc->delmap_pages = -1;
	for (uint32 i = 1; i < dc->raw.nentries && stable; i++)
	{
		if (dc->raw.entries[i - 1].tid_range < dc->raw.entries[i].tid_range)
			continue;
		/* not one version per range in order: the collapse judges writers */
		for (uint32 j = 0; j < dc->raw.nentries && stable; j++)
		{
			const QsColDirEntry *e = &dc->raw.entries[j];

			if (e->state != QS_COLBLK_RETIRED && TransactionIdIsNormal(e->xmin) &&
				(TransactionIdIsCurrentTransactionId(e->xmin) ||
				 TransactionIdIsInProgress(e->xmin)))
				stable = false;
		}
		break;
	}
	/* collapsed where an error frees it, then kept */
	cur.nentries = dc->raw.nentries;
	cur.entries = palloc(sizeof(QsColDirEntry) * Max(cur.nentries, 1));
	memcpy(cur.entries, dc->raw.entries, sizeof(QsColDirEntry) * cur.nentries);
	sort_entries(&cur, true, false);
	dc->cur.nentries = cur.nentries;
	dc->cur.entries = MemoryContextAlloc(dircopy_cxt,
										 sizeof(QsColDirEntry) * Max(cur.nentries, 1));
	memcpy(dc->cur.entries, cur.entries, sizeof(QsColDirEntry) * cur.nentries);
	pfree(cur.entries);
	dc->cur_stable = stable;
	dc->cur_lxid = QS_MY_LXID;
	dc->cur_cid = GetCurrentCommandId(false);
	return &dc->cur;
}

/* An all-new metapage image. */
void
qs_colmeta_init_page(Page page)
{
	QsColMeta  *m;

	PageInit(page, BLCKSZ, QS_COLPAGE_SPECIAL);
	set_special(page, QS_COLMETA_MAGIC);
	m = (QsColMeta *) PageGetContents(page);
	memset(m, 0, sizeof(*m));
	m->magic = QS_COLMETA_MAGIC;
	m->version = QS_COLMETA_VERSION;
	m->next_block_id = 1;
	m->next_range = 0;
	m->dir_head = InvalidBlockNumber;
	m->dir_tail = InvalidBlockNumber;
	m->move_counter = 0;
	m->next_identity = 1;
	((PageHeader) page)->pd_lower = (char *) (m + 1) - (char *) page;
}

/*
 * qs_colmeta_init
 *		Write the metapage into block 0 of an empty main fork (a new
 *		relation after a TRUNCATE of the same relfilenode).
 */
void
qs_colmeta_init(Relation rel)
{
	Buffer		buf;
	Page		page;

	buf = qs_extend_fork(rel, MAIN_FORKNUM, NULL);
	if (BufferGetBlockNumber(buf) != QS_COLMETA_BLKNO)
		elog(ERROR, "metapage of column table \"%s\" would be block %u",
			 RelationGetRelationName(rel), BufferGetBlockNumber(buf));
	page = BufferGetPage(buf);
	START_CRIT_SECTION();
	qs_colmeta_init_page(page);
	MarkBufferDirty(buf);
	if (RelationNeedsWAL(rel))
		log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	/* a new, empty directory under the same relfilelocator */
	qs_coldir_changed(rel);
	UnlockReleaseBuffer(buf);
}

/* Check a metapage under its lock; errors name the relation. */
static QsColMeta *
meta_of(Relation rel, Page page)
{
	QsColMeta  *m = (QsColMeta *) PageGetContents(page);

	if (PageIsNew(page) || !qs_is_column_page(page) ||
		qs_column_page_magic(page) != QS_COLMETA_MAGIC ||
		m->magic != QS_COLMETA_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("metapage of column table \"%s\" is corrupt",
						RelationGetRelationName(rel))));
	if (m->version != QS_COLMETA_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("column table \"%s\" has metapage version %u, expected %u",
						RelationGetRelationName(rel), m->version,
						QS_COLMETA_VERSION),
				 errhint("The table was written by a different version of quickstep_am.")));
	return m;
}

/* The metapage share-locked, its contents into *meta; the caller unlocks. */
static Buffer
meta_lock_share(Relation rel, QsColMeta *meta)
{
	Buffer		buf;

	if (RelationGetNumberOfBlocks(rel) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("column table \"%s\" has no metapage",
						RelationGetRelationName(rel))));
	buf = ReadBuffer(rel, QS_COLMETA_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	*meta = *meta_of(rel, BufferGetPage(buf));
	return buf;
}

void
qs_colmeta_read(Relation rel, QsColMeta *meta)
{
	UnlockReleaseBuffer(meta_lock_share(rel, meta));
}

/*
 * qs_colmeta_set_stats
 *		What the storage holds when VACUUM or ANALYZE sets reltuples: the
 *		blocks' rows (all, and not deleted) and the delta's pages, so that
 *		the size estimate scales reltuples by what changed since (am.c,
 *		col_estimate_size).  A hint:
 *		no lock orders it with the pg_class update.  A metapage made before
 *		the last two fields has its pd_lower below them: it is raised, so
 *		that they are logged and kept (generic WAL leaves out the hole).
 */
void
qs_colmeta_set_stats(Relation rel, double main_rows, double main_live,
					 BlockNumber delta_pages)
{
	Buffer		buf;
	QsColMeta  *m;

	if (RecoveryInProgress() || RelationGetNumberOfBlocks(rel) == 0)
		return;
	buf = ReadBuffer(rel, QS_COLMETA_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	m = meta_of(rel, BufferGetPage(buf));
	if (m->stat_parts != 1 ||
		m->stat_main_rows != (float4) main_rows ||
		m->stat_main_live != (float4) main_live ||
		m->stat_delta_pages != delta_pages)
	{
		QsGenXLogState *xs = qs_genxlog_start(rel);
		Page		page = qs_genxlog_register(xs, buf, 0);
		uint16		end;

		m = (QsColMeta *) PageGetContents(page);
		end = (char *) (m + 1) - (char *) page;
		if (((PageHeader) page)->pd_lower < end)
			((PageHeader) page)->pd_lower = end;
		m->stat_main_rows = (float4) main_rows;
		m->stat_main_live = (float4) main_live;
		m->stat_delta_pages = delta_pages;
		m->stat_parts = 1;
		qs_genxlog_finish(xs);
	}
	UnlockReleaseBuffer(buf);
}

static QsColDirPageHeader *
dirpage_of(Relation rel, Page page, BlockNumber blkno)
{
	QsColDirPageHeader *h = (QsColDirPageHeader *) PageGetContents(page);

	if (PageIsNew(page) || !qs_is_column_page(page) ||
		qs_column_page_magic(page) != QS_COLDIR_MAGIC ||
		h->nentries > QS_COLDIR_PER_PAGE)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory page %u of column table \"%s\" is corrupt",
						blkno, RelationGetRelationName(rel))));
	return h;
}

static QsColDirEntry *
dirpage_entries(QsColDirPageHeader *h)
{
	return (QsColDirEntry *) (h + 1);
}

/*
 * Lock directory page blk, linked from the metapage or from page 'from'
 * (InvalidBlockNumber: the metapage), in 'mode'.  A corrupt link to the
 * metapage or to 'from' itself is refused before the lock: a caller
 * holding the metapage, or 'from', exclusively would wait for itself
 * there, uncancellably.  A link past the end needs no check of ours (no
 * lseek on every append): reading that block fails with data_corrupted.
 */
static Buffer
dir_lock_linked(Relation rel, BlockNumber blk, BlockNumber from, int mode,
				QsColDirPageHeader **h)
{
	Buffer		buf;

	if (blk == QS_COLMETA_BLKNO || blk == from)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory of column table \"%s\" links to block %u, which cannot be a directory page",
						RelationGetRelationName(rel), blk)));
	buf = ReadBuffer(rel, blk);
	LockBuffer(buf, mode);
	*h = dirpage_of(rel, BufferGetPage(buf), blk);
	return buf;
}

/*
 * The next directory page of a walk along the chain, locked in 'mode' and
 * checked.  A chain longer than the relation (a cycle) or pointing past
 * its end is corrupt.  '*nblocks' is the relation's size as the walk last
 * saw it, asked again only when a check fails with it: the size was one
 * lseek per directory page, a good part of every read of a large directory.
 * A reader holds a lock on the relation, so it does not shrink meanwhile
 * (VACUUM truncates under AccessExclusiveLock): a check that passes with
 * the old size passes with the new.
 */
static Buffer
dir_read_page(Relation rel, BlockNumber blk, uint32 *visited,
			  BlockNumber *nblocks, int mode, QsColDirPageHeader **h)
{
	CHECK_FOR_INTERRUPTS();
	++(*visited);
	if (*visited > *nblocks || blk >= *nblocks)
		*nblocks = RelationGetNumberOfBlocks(rel);
	if (*visited > *nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory of column table \"%s\" has a cycle",
						RelationGetRelationName(rel))));
	if (blk >= *nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory of column table \"%s\" points to block %u past the end",
						RelationGetRelationName(rel), blk)));
	/* a held walk (append_entry) holds the metapage exclusively */
	return dir_lock_linked(rel, blk, InvalidBlockNumber, mode, h);
}

/*
 * A walk along the directory chain from the metapage's head: each page
 * locked in 'mode' and checked (dir_read_page); the caller unlocks and
 * releases it.  The next page's number is taken while the page is locked.
 *
 * A walk that may run beside VACUUM's compaction (qs_coldir_compact)
 * holds the metapage's share lock from dir_walk_start to dir_walk_end
 * (README section 7.1, P1): a pack step moves entries between pages and
 * gives pages back under the metapage's exclusive lock, so such a walk
 * is wholly before or wholly after each step and never misses a moved
 * entry or reads a page given back.  A caller that holds the metapage
 * already (exclusive or share) walks with dir_walk_start_held: taking
 * the share lock again while holding it exclusively would wait for
 * itself.  VACUUM's own walks (freeze, reclaim, ranges_cleaned) run in
 * the compactor's process before it, under ShareUpdateExclusiveLock,
 * and lock one page at a time (dir_walk_start with hold false), so that
 * loads' appends do not wait for them.
 */
typedef struct DirWalk
{
	Relation	rel;
	BlockNumber next;
	uint32		visited;
	BlockNumber nblocks;		/* dir_read_page */
	Buffer		mbuf;			/* the metapage share-locked by us, or Invalid */
} DirWalk;

static void
dir_walk_init(Relation rel, DirWalk *w, const QsColMeta *meta)
{
	w->rel = rel;
	w->next = meta->dir_head;
	w->visited = 0;
	w->nblocks = 0;
	w->mbuf = InvalidBuffer;
}

/*
 * 'meta', when given, gets the metapage the walk starts from.  With
 * 'hold', the metapage stays share-locked until dir_walk_end (P1).
 */
static void
dir_walk_start(Relation rel, DirWalk *w, QsColMeta *meta, bool hold)
{
	QsColMeta	m;
	Buffer		mbuf;

	if (meta == NULL)
		meta = &m;
	if (!hold)
	{
		/* VACUUM's own walks only: nobody compacts beside them */
		Assert(CheckRelationLockedByMe(rel, ShareUpdateExclusiveLock, true));
		qs_colmeta_read(rel, meta);
		dir_walk_init(rel, w, meta);
		return;
	}
	mbuf = meta_lock_share(rel, meta);
	dir_walk_init(rel, w, meta);
	w->mbuf = mbuf;
}

/* a walk by a caller holding the metapage (its contents 'meta') locked */
static void
dir_walk_start_held(Relation rel, DirWalk *w, const QsColMeta *meta)
{
	dir_walk_init(rel, w, meta);
}

/* the end of a walk: the metapage's share lock, if the walk took it */
static void
dir_walk_end(DirWalk *w)
{
	if (BufferIsValid(w->mbuf))
		UnlockReleaseBuffer(w->mbuf);
	w->mbuf = InvalidBuffer;
}

/* the next page (its number in *blk), or InvalidBuffer at the chain's end */
static Buffer
dir_walk_next(DirWalk *w, int mode, QsColDirPageHeader **h, BlockNumber *blk)
{
	Buffer		buf;

	if (w->next == InvalidBlockNumber)
		return InvalidBuffer;
	*blk = w->next;
	buf = dir_read_page(w->rel, w->next, &w->visited, &w->nblocks, mode, h);
	w->next = (*h)->next;
	return buf;
}

/*
 * The xmax of a superseded open-block version (src/merge/README.md
 * section 5) into a header copy: a merge that committed (or is ours)
 * deletes the version as a committed UPDATE deletes a heap tuple; a
 * running merge is ignored by every snapshot (its new version is hidden
 * from SnapshotDirty, which must not wait for it either) and an aborted
 * one is no xmax.  The version's own writer is committed, not ours (a
 * merge appends only to a version visible to everybody), so t_cid is
 * free to hold the merge's command as cmax.
 */
static void
set_entry_xmax(const QsColDirEntry *e, HeapTupleHeader hdr)
{
	if (!TransactionIdIsNormal(e->xmax))
		return;
	if (TransactionIdIsCurrentTransactionId(e->xmax))
		;
	/*
	 * The procarray before the commit log, as HeapTupleSatisfiesMVCC asks:
	 * a merge is marked committed in the commit log before it leaves the
	 * procarray, and until it has left, qs_merged_block_hidden hides its
	 * new version from SnapshotDirty; a committed xmax here meanwhile
	 * would hide the old one too, and a unique check would see neither.
	 */
	else if (TransactionIdIsInProgress(e->xmax))
		return;
	else if (TransactionIdDidCommit(e->xmax))
		hdr->t_infomask |= HEAP_XMAX_COMMITTED;
	else
		return;
	hdr->t_infomask &= ~HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmax(hdr, e->xmax);
	HeapTupleHeaderSetCmax(hdr, e->cid, false);
}

/*
 * Is a block's xmin/cid visible to snapshot?  Decided by heap's routine
 * on a header that has that xmin and cmin and no xmax, so that every
 * snapshot kind (MVCC, self, dirty, any, historic) means what it means
 * for a heap tuple.  '*buf' is a share-locked page for the hint bits
 * heap's routines may set, which go to the local copy only (entries are
 * not hinted): the directory page, or the metapage, share-locked here into
 * *buf the first time an entry needs one (qs_colmain_needs_no_buffer: a
 * committed writer and no xmax under an MVCC or dirty snapshot need none).
 */
static bool
entry_visible(Relation rel, const QsColDirEntry *e, Snapshot snapshot,
			  Buffer *buf)
{
	HeapTupleHeaderData hdr;
	HeapTupleData tup;
	bool		visible;

	if (snapshot == NULL)
		return true;
	if (e->state == QS_COLBLK_RETIRED)
	{
		/*
		 * A block whose rows VACUUM removed and retired (EMPTIED) stays in
		 * the view of an MVCC snapshot that may predate the retirement
		 * (its xmax is not past the stamp), so that the directory a
		 * snapshot sees does not change while it exists: the participants
		 * of a parallel scan, which share a snapshot but read the
		 * directory one by one and number its blocks alike, and the fetch
		 * cache rely on it.  Its rows are all removed (no reader returns
		 * one), and its pages stay while such a snapshot lives (its xmin
		 * is at most the stamp: qs_coldir_reclaim).
		 */
		return (e->flags & QS_COLDIR_EMPTIED) &&
			!(e->flags & QS_COLDIR_RUN_RECLAIMED) &&
			IsMVCCSnapshot(snapshot) &&
			!TransactionIdFollows(snapshot->xmax, (TransactionId) e->cid);
	}
	if (!TransactionIdIsNormal(e->xmin))
		return true;			/* frozen */
	if (qs_merged_block_hidden(e->xmin, e->flags, snapshot))
		return false;			/* a running merge's rows: the delta's count */
	memset(&hdr, 0, sizeof(hdr));
	HeapTupleHeaderSetXmin(&hdr, e->xmin);
	HeapTupleHeaderSetCmin(&hdr, e->cid);
	HeapTupleHeaderSetXmax(&hdr, InvalidTransactionId);
	hdr.t_infomask = HEAP_XMAX_INVALID;

	/*
	 * The commit hint up front: heap's routines would set it themselves,
	 * on this copy only, and mark the directory page dirty each time (a
	 * full-page image after every checkpoint with data checksums).  A
	 * committed xmin still in an MVCC snapshot's running set is invisible
	 * all the same (XidInMVCCSnapshot is consulted under the hint).  As
	 * heap's routines do, the procarray before the commit log
	 * (qs_colmain_hint_xmin): a writer is committed in the commit log
	 * before it leaves the procarray, and dirty and self snapshots, which
	 * consult no running set, take a hinted writer for gone while heap's
	 * would still report it running (a unique check would not wait).
	 */
	qs_colmain_hint_xmin(&hdr);
	set_entry_xmax(e, &hdr);
	hdr.t_hoff = SizeofHeapTupleHeader;
	tup.t_data = &hdr;
	tup.t_len = SizeofHeapTupleHeader;
	tup.t_tableOid = RelationGetRelid(rel);
	ItemPointerSetInvalid(&tup.t_self);
	if (!BufferIsValid(*buf) && !qs_colmain_needs_no_buffer(&hdr, snapshot))
	{
		*buf = ReadBuffer(rel, QS_COLMETA_BLKNO);
		LockBuffer(*buf, BUFFER_LOCK_SHARE);
	}
	visible = HeapTupleSatisfiesVisibility(&tup, snapshot, *buf);

	/*
	 * A serializable reader that does not see a block a concurrent
	 * serializable transaction loaded has a conflict out to it, as heap's
	 * readers have with the rows they skip.
	 */
	if (IsMVCCSnapshot(snapshot))
		HeapCheckForSerializableConflictOut(visible, rel, &tup, *buf, snapshot);
	return visible;
}

/*
 * qs_coldir_version_alive
 *		Is this version one its writer did not abort (committed, running,
 *		ours, or frozen) and not retired?
 */
bool
qs_coldir_version_alive(const QsColDirEntry *e)
{
	if (e->state == QS_COLBLK_RETIRED)
		return false;
	if (!TransactionIdIsNormal(e->xmin) ||
		TransactionIdIsCurrentTransactionId(e->xmin))
		return true;
	/*
	 * The procarray first, as heap's visibility routines ask: a writer that
	 * commits between the two questions is still in the procarray for the
	 * first or in the commit log for the second (the other order judged it
	 * aborted in that window: its version was skipped and a delete-map page
	 * made then hid its rows for good).
	 */
	return TransactionIdIsInProgress(e->xmin) || TransactionIdDidCommit(e->xmin);
}

/*
 * qs_coldir_xmax_aborted
 *		Did the transaction that superseded version e abort or crash?
 */
bool
qs_coldir_xmax_aborted(const QsColDirEntry *e)
{
	return TransactionIdIsNormal(e->xmax) &&
		!TransactionIdIsCurrentTransactionId(e->xmax) &&
		!TransactionIdIsInProgress(e->xmax) &&
		!TransactionIdDidCommit(e->xmax);
}

/*
 * qs_coldir_xmax_aborted_seal
 *		Is version e's xmax an aborted seal's (column README section 4.5),
 *		so that e is its block's current version again, to merge into as
 *		if it had no xmax?  True when no aborted version of e's block
 *		(all: qs_coldir_read_all) added a row: base >= published.  A seal
 *		adds no TID, whatever its published (an older version's aborted
 *		seal too), so no index entry points past e's rows; an aborted
 *		merge's rows past its base had index entries, which VACUUM removes
 *		from that version's base on (qs_coldir_retired_ranges), so its
 *		block must take no more rows (qs_coldir_freeze seals it).  The seal
 *		of an aborted merge in the merge's transaction keeps its base, below
 *		published, and refuses too.
 *
 *		Retired versions are judged by their flags, never by the commit
 *		log: relfrozenxid passes their xids (qs_coldir_freeze skips them),
 *		so pg_xact may no longer hold them.  Freeze retires a version
 *		either superseded by a committed writer (QS_COLDIR_SUPERSEDED, its
 *		own writer committed) or because its writer aborted or crashed.
 *		One more version is retired without SUPERSEDED: load_flush
 *		publishes a load that flushed no row RETIRED at once, and its
 *		writer may commit.  Taking it for aborted is harmless: it adds no
 *		row (published = base = 0, which no test here refuses) and its
 *		block id is its own (qs_coldir_reserve), never a merged block's;
 *		it names no run (npages = 0), so reclaim gives nothing back.
 */
bool
qs_coldir_xmax_aborted_seal(const QsColDirectory *all, const QsColDirEntry *e)
{
	if (!qs_coldir_xmax_aborted(e))
		return false;
	for (uint32 i = 0; i < all->nentries; i++)
	{
		const QsColDirEntry *s = &all->entries[i];

		if (s->tid_range != e->tid_range || s->block_id != e->block_id)
			continue;
		if (s->state == QS_COLBLK_RETIRED)
		{
			if (s->flags & QS_COLDIR_SUPERSEDED)
				continue;
			/* retired, not superseded: its writer aborted */
		}
		else if (!TransactionIdIsNormal(s->xmin) ||
				 TransactionIdIsCurrentTransactionId(s->xmin) ||
				 TransactionIdIsInProgress(s->xmin) ||
				 TransactionIdDidCommit(s->xmin))
			continue;
		if (s->base < s->published)
			return false;
	}
	return true;
}

/*
 * qs_coldir_row_surely_dead
 *		Is the row at TID row 'row' of range 'range' one no transaction can
 *		ever see, because the version that wrote it aborted?  Then an index
 *		entry pointing at it may be killed (the table AM's all_dead).
 *
 *		A version whose writer aborted or crashed (RETIRED without
 *		SUPERSEDED, judged by its flags: section 4.5 of the README; else
 *		not alive by qs_coldir_version_alive, the directory readers' rule,
 *		which takes an aborted subtransaction's xid for aborted) owns the
 *		rows it added: base..published-1, or every row of a load that never
 *		published (PENDING: its buffered rows had TIDs and index entries).
 *		Such rows are dead unless a version whose writer did not abort
 *		holds the same TID row (row < published, or a load at work): an
 *		older version's rows below an aborted merge's base, or rows a later
 *		merge appended after an aborted seal.  Every writer enters its
 *		version here before any of its rows has an index entry (loads
 *		append PENDING first, merges publish their version first), so a
 *		row no live version holds now never gets one with this TID (an
 *		aborted merge's block takes no more rows: qs_coldir_xmax_aborted_seal).
 *		A committed empty load (RETIRED, no SUPERSEDED, no row) owns none.
 */
bool
qs_coldir_row_surely_dead(Relation rel, uint32 range, uint32 row)
{
	QsColDirectory all;
	bool		owned_by_aborted = false;
	bool		held_by_live = false;

	/* the range's versions (from the copy: index scans ask per row) */
	coldir_read_ext(rel, NULL, false, true, range, &all);
	for (uint32 i = 0; i < all.nentries && !held_by_live; i++)
	{
		const QsColDirEntry *e = &all.entries[i];
		bool		pending = (e->flags & QS_COLDIR_PENDING) != 0;
		bool		aborted;

		if (e->tid_range != range)
			continue;
		if (e->state == QS_COLBLK_RETIRED)
			aborted = !(e->flags & QS_COLDIR_SUPERSEDED);
		else
			aborted = !qs_coldir_version_alive(e);
		if (aborted)
		{
			if (row >= e->base && (row < e->published || pending))
				owned_by_aborted = true;
		}
		else if (row < e->published || pending)
			held_by_live = true;
	}
	pfree(all.entries);
	return owned_by_aborted && !held_by_live;
}

/* entries by TID range, then directory order (their index) */
static int
entry_range_cmp(const void *a, const void *b, void *arg)
{
	const QsColDirEntry *ents = (const QsColDirEntry *) arg;
	uint32		ia = *(const uint32 *) a;
	uint32		ib = *(const uint32 *) b;
	uint32		ra = ents[ia].tid_range;
	uint32		rb = ents[ib].tid_range;

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/*
 * Put dir's entries (in directory order) in TID order, one version per
 * range when 'collapse': with a snapshot the versions it sees are one at
 * most for MVCC snapshots (a version's committed xmax hides it exactly
 * when the next version is visible); otherwise (SnapshotAny, or no
 * snapshot) the newest version whose writer did not abort — an aborted
 * version's rows below 'base' are those of the version before it, but
 * readers judge a block's writer once per block — or, without a snapshot,
 * every entry of a range that has none (retired blocks).
 */
static void
sort_entries(QsColDirectory *dir, bool collapse, bool with_snapshot)
{
	uint32		n = dir->nentries;
	uint32	   *idx;
	QsColDirEntry *out;
	uint32		k = 0;

	if (n < 2)
		return;

	/*
	 * Usually the directory is in TID order already, one entry per range
	 * (blocks append in the order they reserved their ranges): nothing to
	 * do.  Readers call this per index fetch.
	 */
	for (k = 1; k < n; k++)
		if (dir->entries[k - 1].tid_range >= dir->entries[k].tid_range)
			break;
	if (k == n)
		return;
	k = 0;
	idx = palloc(sizeof(uint32) * n);
	for (uint32 i = 0; i < n; i++)
		idx[i] = i;
	qsort_arg(idx, n, sizeof(uint32), entry_range_cmp, dir->entries);
	out = palloc(sizeof(QsColDirEntry) * n);
	for (uint32 i = 0; i < n;)
	{
		uint32		j = i;
		uint32		range = dir->entries[idx[i]].tid_range;
		int			keep = -1;

		while (j < n && dir->entries[idx[j]].tid_range == range)
			j++;
		if (collapse && j - i > 1)
		{
			for (uint32 m = j; m > i && keep < 0; m--)
				if (qs_coldir_version_alive(&dir->entries[idx[m - 1]]))
					keep = (int) idx[m - 1];
			/* a snapshot that sees only aborted versions (SnapshotAny) */
			if (keep < 0 && with_snapshot)
				keep = (int) idx[j - 1];
		}
		if (keep >= 0)
			out[k++] = dir->entries[keep];
		else
			for (uint32 m = i; m < j; m++)
				out[k++] = dir->entries[idx[m]];
		i = j;
	}
	pfree(dir->entries);
	pfree(idx);
	dir->entries = out;
	dir->nentries = k;
}

/*
 * qs_coldir_entry_vacuum_status
 *		HeapTupleSatisfiesVacuum's verdict on a block's rows' insertion
 *		(ANALYZE counts them as heap counts tuples).
 */
HTSV_Result
qs_coldir_entry_vacuum_status(Relation rel, const QsColDirEntry *e,
							  TransactionId OldestXmin, Buffer buf)
{
	HeapTupleHeaderData hdr;
	HeapTupleData tup;

	if (!TransactionIdIsNormal(e->xmin))
		return e->state == QS_COLBLK_RETIRED ? HEAPTUPLE_DEAD : HEAPTUPLE_LIVE;
	memset(&hdr, 0, sizeof(hdr));
	HeapTupleHeaderSetXmin(&hdr, e->xmin);
	HeapTupleHeaderSetCmin(&hdr, e->cid);
	hdr.t_infomask = HEAP_XMAX_INVALID;
	hdr.t_hoff = SizeofHeapTupleHeader;
	tup.t_data = &hdr;
	tup.t_len = SizeofHeapTupleHeader;
	tup.t_tableOid = RelationGetRelid(rel);
	ItemPointerSetInvalid(&tup.t_self);
	if (e->state == QS_COLBLK_RETIRED)
		return HEAPTUPLE_DEAD;
	return HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf);
}

/* Every entry, in directory order, from the pages (dircopy_get). */
static void
coldir_walk_raw(Relation rel, QsColDirectory *dir)
{
	QsColMeta	meta;
	BlockNumber blk;
	uint32		cap;
	DirWalk		w;
	Buffer		buf;
	QsColDirPageHeader *h;

	dir_walk_start(rel, &w, &meta, true);
	cap = Max(meta.nentries, 8);
	dir->nentries = 0;
	dir->entries = palloc(sizeof(QsColDirEntry) * cap);
	while ((buf = dir_walk_next(&w, BUFFER_LOCK_SHARE, &h, &blk)) != InvalidBuffer)
	{
		if (dir->nentries + h->nentries > cap)
		{
			cap = Max(cap * 2, dir->nentries + h->nentries);
			dir->entries = repalloc(dir->entries, sizeof(QsColDirEntry) * cap);
		}
		memcpy(dir->entries + dir->nentries, dirpage_entries(h),
			   sizeof(QsColDirEntry) * h->nentries);
		dir->nentries += h->nentries;
		UnlockReleaseBuffer(buf);
	}
	dir_walk_end(&w);
}

/*
 * qs_coldir_read
 *		Copy the directory, in TID order (ranges ascending: loads may
 *		append in another order than they reserved; index validation and
 *		parallel scans want one order), one version per block
 *		(sort_entries).  With a snapshot, only the entries whose blocks it
 *		sees are kept.  With 'one_range', only the entries of TID range
 *		'range' are copied.  The entries come from the backend's copy of
 *		the directory when it is as new as the directory (dircopy_get),
 *		else from a copy of the pages made for this read; visibility is
 *		judged on the copied entries, under the metapage's share lock (the
 *		buffer heap's visibility routines are given: hints go to the local
 *		header only, as they did with a locked directory page).
 */
static void
coldir_read_ext(Relation rel, Snapshot snapshot, bool collapse,
				bool one_range, uint32 range, QsColDirectory *dir)
{
	DirCopy    *dc = dircopy_get(rel);
	QsColDirectory raw = {0};
	const QsColDirectory *src;
	Buffer		mbuf = InvalidBuffer;
	uint32		cap;

	if (dc != NULL && snapshot == NULL && collapse && !one_range)
	{
		const QsColDirectory *cur = dircopy_current(dc);

		dir->nentries = cur->nentries;
		dir->entries = palloc(sizeof(QsColDirEntry) * Max(cur->nentries, 1));
		memcpy(dir->entries, cur->entries, sizeof(QsColDirEntry) * cur->nentries);
		return;
	}
	if (dc != NULL)
		src = &dc->raw;
	else
	{
		/* no copy kept (recovery, a large directory): this read's own */
		coldir_walk_raw(rel, &raw);
		src = &raw;
	}
	cap = one_range ? 8 : Max(src->nentries, 8);
	dir->nentries = 0;
	dir->entries = palloc(sizeof(QsColDirEntry) * cap);
	for (uint32 i = 0; i < src->nentries; i++)
	{
		const QsColDirEntry *e = &src->entries[i];

		if (one_range && e->tid_range != range)
			continue;
		/* rows a load still buffers are nobody's to read (README §6) */
		if (snapshot != NULL && (e->flags & QS_COLDIR_PENDING))
			continue;
		if (!entry_visible(rel, e, snapshot, &mbuf))
			continue;
		if (dir->nentries == cap)
		{
			cap *= 2;
			dir->entries = repalloc(dir->entries, sizeof(QsColDirEntry) * cap);
		}
		dir->entries[dir->nentries++] = *e;
	}
	if (BufferIsValid(mbuf))
		UnlockReleaseBuffer(mbuf);
	if (raw.entries)
		pfree(raw.entries);
	sort_entries(dir, collapse, snapshot != NULL);
}

static void
coldir_read(Relation rel, Snapshot snapshot, QsColDirectory *dir)
{
	coldir_read_ext(rel, snapshot, true, false, 0, dir);
}

void
qs_coldir_read(Relation rel, QsColDirectory *dir)
{
	coldir_read(rel, NULL, dir);
}

/* every entry, superseded and aborted versions too (the checker, VACUUM) */
void
qs_coldir_read_all(Relation rel, QsColDirectory *dir)
{
	coldir_read_ext(rel, NULL, false, false, 0, dir);
}

/*
 * qs_coldir_read_range
 *		qs_coldir_read of the entries of one TID range: what
 *		qs_coldir_find_range finds in it is what it finds in a whole copy
 *		(versions collapse per range), without copying the whole directory.
 */
void
qs_coldir_read_range(Relation rel, uint32 range, QsColDirectory *dir)
{
	coldir_read_ext(rel, NULL, true, true, range, dir);
}

/* every version of one range, in directory order (no collapse) */
void
qs_coldir_read_range_all(Relation rel, uint32 range, QsColDirectory *dir)
{
	coldir_read_ext(rel, NULL, false, true, range, dir);
}

void
qs_coldir_read_visible(Relation rel, Snapshot snapshot, QsColDirectory *dir)
{
	coldir_read(rel, snapshot, dir);
}

/*
 * qs_coldir_read_range_visible
 *		qs_coldir_read_visible of the entries of one TID range: what
 *		qs_coldir_find_range finds in it is what it finds in the whole
 *		(versions collapse per range), with the visibility of that range's
 *		entries only judged (a single row's fetch).
 */
void
qs_coldir_read_range_visible(Relation rel, Snapshot snapshot, uint32 range,
							 QsColDirectory *dir)
{
	coldir_read_ext(rel, snapshot, true, true, range, dir);
}

/*
 * qs_coldir_find_range
 *		The first entry of 'range' that is not RETIRED, or NULL.  Every copy
 *		coldir_read_ext returns is in TID order (sort_entries), so a binary
 *		search finds the range's first entry; index fetches and DML ask this
 *		per row.
 */
const QsColDirEntry *
qs_coldir_find_range(const QsColDirectory *dir, uint32 range)
{
	const QsColDirEntry *ents = dir->entries;
	uint32		lo = 0,
				hi = dir->nentries;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (ents[mid].tid_range < range)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < dir->nentries && ents[lo].tid_range == range; lo++)
		if (ents[lo].state != QS_COLBLK_RETIRED)
			return &ents[lo];
	return NULL;
}

/*
 * qs_coldir_entry_visible
 *		Re-read the entry of block_id and decide its visibility (index
 *		fetches, whose snapshots differ call by call).
 */
bool
qs_coldir_entry_visible(Relation rel, const QsColDirEntry *e, Snapshot snapshot)
{
	QsColDirectory dir;
	bool		found = false;

	coldir_read(rel, snapshot, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
		if (dir.entries[i].block_id == e->block_id)
			found = true;
	pfree(dir.entries);
	return found;
}

/*
 * qs_coldir_reserve
 *		A new block id and a new virtual TID range.  Ids and ranges are
 *		never reused before VACUUM recycles ranges (not yet: README 3).
 */
uint32
qs_coldir_reserve(Relation rel, uint32 *range)
{
	Buffer		buf;
	QsGenXLogState *xs;
	QsColMeta  *m;
	uint32		id;

	buf = ReadBuffer(rel, QS_COLMETA_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	(void) meta_of(rel, BufferGetPage(buf));
	xs = qs_genxlog_start(rel);
	m = (QsColMeta *) PageGetContents(qs_genxlog_register(xs, buf, 0));
	if (m->next_range >= QS_VIRT_MAX_RANGES || m->next_block_id == PG_UINT32_MAX)
	{
		qs_genxlog_abort(xs);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column table \"%s\" has used all %u block ranges",
						RelationGetRelationName(rel), (uint32) QS_VIRT_MAX_RANGES),
				 errhint("VACUUM FULL rewrites the table with new ranges.")));
	}
	id = m->next_block_id++;
	*range = m->next_range++;
	qs_genxlog_finish(xs);
	UnlockReleaseBuffer(buf);
	return id;
}

static void
init_dirpage(Page page)
{
	QsColDirPageHeader *h;

	PageInit(page, BLCKSZ, QS_COLPAGE_SPECIAL);
	set_special(page, QS_COLDIR_MAGIC);
	h = (QsColDirPageHeader *) PageGetContents(page);
	h->next = InvalidBlockNumber;
	h->nentries = 0;
	((PageHeader) page)->pd_lower = (char *) (h + 1) - (char *) page;
}

/*
 * Find the directory page and index of block_id's entry along walk 'w':
 * with run run_start (not InvalidBlockNumber) the newest alive version
 * with that run: versions of a block sealed without a sort key share
 * their run (column README section 4.5), and only the newest alive one
 * is superseded (an aborted seal's or a superseded one precedes it, or
 * follows it aborted), else the first with that run.  Without a run, the
 * block's first version that is not RETIRED: the one an in-place writer
 * (qs_coldir_lock_entry) changes — a load's pending entry, or a
 * bulk-loaded block's only version.  The place stays valid only while
 * the metapage stays locked (compaction moves entries: P2); the walk is
 * ended by the caller.
 */
static bool
find_entry_walk(DirWalk *w, uint32 block_id, BlockNumber run_start,
				BlockNumber *blkp, uint32 *idxp)
{
	BlockNumber blk;
	Buffer		buf;
	QsColDirPageHeader *h;
	bool		found = false;

	while ((buf = dir_walk_next(w, BUFFER_LOCK_SHARE, &h, &blk)) != InvalidBuffer)
	{
		QsColDirEntry *ents = dirpage_entries(h);

		for (uint32 i = 0; i < h->nentries; i++)
		{
			bool		alive;

			if (ents[i].block_id != block_id ||
				(run_start != InvalidBlockNumber && ents[i].run_start != run_start))
				continue;
			if (run_start == InvalidBlockNumber)
			{
				if (ents[i].state == QS_COLBLK_RETIRED)
					continue;
				*blkp = blk;
				*idxp = i;
				UnlockReleaseBuffer(buf);
				return true;
			}
			alive = qs_coldir_version_alive(&ents[i]);
			if (alive || !found)
			{
				*blkp = blk;
				*idxp = i;
			}
			found = true;
		}
		UnlockReleaseBuffer(buf);
	}
	return found;
}

/* find_entry_walk by a caller holding the metapage (contents 'meta') */
static bool
find_entry_held(Relation rel, const QsColMeta *meta, uint32 block_id,
				BlockNumber run_start, BlockNumber *blkp, uint32 *idxp)
{
	DirWalk		w;

	dir_walk_start_held(rel, &w, meta);
	return find_entry_walk(&w, block_id, run_start, blkp, idxp);
}

/*
 * Set a directory page image's entry count to n (entries below n already
 * written), zeroing the bytes between the new and the old end: the hole
 * between pd_lower and pd_upper stays zeroed (src/wal/README.md).
 */
static void
dirpage_set_count(Page page, QsColDirPageHeader *h, uint32 n)
{
	QsColDirEntry *ents = dirpage_entries(h);

	if (n < h->nentries)
		memset(&ents[n], 0, sizeof(QsColDirEntry) * (h->nentries - n));
	h->nentries = n;
	((PageHeader) page)->pd_lower = (char *) &ents[n] - (char *) page;
}

/*
 * The pages an append at the tail needs, under the metapage's exclusive
 * lock ('m'): *tbuf the tail exclusively locked and *th its header
 * (Invalid and NULL: no directory page yet), *nbuf a new page when there
 * is no tail or it is full (else Invalid).
 */
static void
append_lock_tail(Relation rel, const QsColMeta *m, Buffer *tbuf,
				 QsColDirPageHeader **th, Buffer *nbuf)
{
	*tbuf = InvalidBuffer;
	*nbuf = InvalidBuffer;
	*th = NULL;
	if (m->dir_tail != InvalidBlockNumber)
		*tbuf = dir_lock_linked(rel, m->dir_tail, InvalidBlockNumber,
								BUFFER_LOCK_EXCLUSIVE, th);
	if (*th == NULL || (*th)->nentries >= QS_COLDIR_PER_PAGE)
	{
		*nbuf = qs_extend_fork(rel, MAIN_FORKNUM, NULL);
		if (!PageIsNew(BufferGetPage(*nbuf)))
			elog(ERROR, "new page %u of column table \"%s\" is not empty",
				 BufferGetBlockNumber(*nbuf), RelationGetRelationName(rel));
	}
}

/*
 * Register the new tail page nbuf (a full image) in xs, after the
 * metapage's image 'm' and the old tail's header 'th' (NULL: none), and
 * link it: the page entries go to now, into *tpage and *th.
 */
static void
append_link_new(QsGenXLogState *xs, QsColMeta *m, Buffer nbuf, Page *tpage,
				QsColDirPageHeader **th)
{
	Page		npage = qs_genxlog_register(xs, nbuf, GENERIC_XLOG_FULL_IMAGE);
	BlockNumber nblk = BufferGetBlockNumber(nbuf);

	init_dirpage(npage);
	if (*th)
		(*th)->next = nblk;
	else
		m->dir_head = nblk;
	m->dir_tail = nblk;
	*tpage = npage;
	*th = (QsColDirPageHeader *) PageGetContents(npage);
}

/*
 * Add an entry at the directory's tail (a new tail page when the last one
 * is full), with the metapage's count, in one WAL record; with 'old', that
 * version gets xmax = the entry's writer in the same record.  With
 * 'reserve', the entry's block id and TID range are the next ones, taken
 * in the same record under the same metapage lock (qs_coldir_append_reserved).
 */
static void
append_entry(Relation rel, QsColDirEntry *entry, const QsColDirEntry *old,
			 bool reserve)
{
	Buffer		mbuf;
	Buffer		tbuf = InvalidBuffer;
	Buffer		nbuf = InvalidBuffer;
	Buffer		obuf = InvalidBuffer;
	BlockNumber oblk = InvalidBlockNumber;
	uint32		oidx = 0;
	QsColMeta  *m;
	QsGenXLogState *xs;
	QsColDirPageHeader *th = NULL;
	Page		tpage = NULL;
	Page		opage = NULL;

	mbuf = ReadBuffer(rel, QS_COLMETA_BLKNO);
	LockBuffer(mbuf, BUFFER_LOCK_EXCLUSIVE);
	m = meta_of(rel, BufferGetPage(mbuf));

	/*
	 * The old version's place under the metapage lock held for the write
	 * (P2: entries move only under the metapage's exclusive lock).
	 */
	if (old != NULL &&
		!find_entry_held(rel, m, old->block_id, old->run_start, &oblk, &oidx))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("column table \"%s\" has no directory entry for block %u at page %u",
						RelationGetRelationName(rel), old->block_id, old->run_start)));
	if (reserve &&
		(m->next_range >= QS_VIRT_MAX_RANGES || m->next_block_id == PG_UINT32_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column table \"%s\" has used all %u block ranges",
						RelationGetRelationName(rel), (uint32) QS_VIRT_MAX_RANGES),
				 errhint("VACUUM FULL rewrites the table with new ranges.")));
	append_lock_tail(rel, m, &tbuf, &th, &nbuf);
	/* the old version's page, after the tail (no other writer holds two) */
	if (old != NULL && oblk != m->dir_tail)
	{
		obuf = ReadBuffer(rel, oblk);
		LockBuffer(obuf, BUFFER_LOCK_EXCLUSIVE);
		(void) dirpage_of(rel, BufferGetPage(obuf), oblk);
	}

	xs = qs_genxlog_start(rel);
	m = (QsColMeta *) PageGetContents(qs_genxlog_register(xs, mbuf, 0));
	if (reserve)
	{
		entry->block_id = m->next_block_id++;
		entry->tid_range = m->next_range++;
	}
	if (BufferIsValid(tbuf))
	{
		tpage = qs_genxlog_register(xs, tbuf, 0);
		th = (QsColDirPageHeader *) PageGetContents(tpage);
		if (old != NULL && oblk == m->dir_tail)
			opage = tpage;
	}
	if (BufferIsValid(obuf))
		opage = qs_genxlog_register(xs, obuf, 0);
	if (opage != NULL)
	{
		QsColDirEntry *oe = qs_coldir_page_entry(opage, oidx);

		/* an aborted xmax: the caller judged it (a seal's, or sealing) */
		if (oe->block_id != old->block_id || oe->run_start != old->run_start ||
			(TransactionIdIsValid(oe->xmax) && !qs_coldir_xmax_aborted(oe)) ||
			oe->state == QS_COLBLK_RETIRED)
		{
			qs_genxlog_abort(xs);
			elog(ERROR, "version of block %u of column table \"%s\" changed under its merge",
				 old->block_id, RelationGetRelationName(rel));
		}
		oe->xmax = entry->xmin;
		oe->cid = entry->cid;	/* the cmax now: no frozen writer kept */
		oe->flags &= ~QS_COLDIR_CID_IS_XMIN;
	}
	if (BufferIsValid(nbuf))
		append_link_new(xs, m, nbuf, &tpage, &th);
	dirpage_entries(th)[th->nentries] = *entry;
	dirpage_set_count(tpage, th, th->nentries + 1);
	m->nentries++;
	qs_genxlog_finish(xs);
	qs_coldir_changed(rel);

	if (BufferIsValid(obuf))
		UnlockReleaseBuffer(obuf);
	if (BufferIsValid(nbuf))
		UnlockReleaseBuffer(nbuf);
	if (BufferIsValid(tbuf))
		UnlockReleaseBuffer(tbuf);
	UnlockReleaseBuffer(mbuf);
}

/*
 * qs_coldir_append
 *		Add an entry at the directory's tail.
 */
void
qs_coldir_append(Relation rel, const QsColDirEntry *entry)
{
	QsColDirEntry e = *entry;

	append_entry(rel, &e, NULL, false);
}

/*
 * qs_coldir_append_reserved
 *		qs_coldir_reserve and qs_coldir_append in one metapage lock and one
 *		WAL record: entry->block_id and entry->tid_range are set to the
 *		next ones.  A load's pending entry is made so: qs_colrun_sweep
 *		reads the metapage, then the directory, and must find the entry of
 *		every load whose block id the metapage had given out (else it would
 *		give back the run that load writes meanwhile).
 */
void
qs_coldir_append_reserved(Relation rel, QsColDirEntry *entry)
{
	append_entry(rel, entry, NULL, true);
}

/*
 * qs_coldir_supersede
 *		A merge's new version of an open block: the entry is appended and
 *		the old version gets xmax = its writer, atomically (one record).
 */
void
qs_coldir_supersede(Relation rel, const QsColDirEntry *old,
					const QsColDirEntry *entry)
{
	QsColDirEntry e = *entry;

	Assert(old->block_id == entry->block_id && old->tid_range == entry->tid_range);
	append_entry(rel, &e, old, false);
}

/*
 * qs_coldir_freeze
 *		VACUUM's pass over the directory: the xmin of a bulk-loaded block
 *		that committed before 'horizon' (no snapshot can still consider it
 *		running) becomes FrozenTransactionId, and a block whose loader
 *		aborted or crashed becomes RETIRED, so that no directory entry
 *		keeps an xid older than the relfrozenxid VACUUM sets from the
 *		delta (the commit log before it may be truncated).  Runs before
 *		and again after the engine's VACUUM of the delta, so that a load
 *		committing in between is frozen too.  Returns the oldest xmin left
 *		unfrozen (or InvalidTransactionId).
 */
/* does VACUUM's freeze change entry e at this horizon? */
static bool
freeze_wants(const QsColDirEntry *e, TransactionId horizon)
{
	if (e->state == QS_COLBLK_RETIRED)
		return false;
	return (TransactionIdIsNormal(e->xmin) &&
			TransactionIdPrecedes(e->xmin, horizon)) ||
		(TransactionIdIsNormal(e->xmax) &&
		 TransactionIdPrecedes(e->xmax, horizon));
}

TransactionId
qs_coldir_freeze(Relation rel, TransactionId horizon)
{
	BlockNumber blk;
	TransactionId oldest = InvalidTransactionId;
	DirWalk		w;
	Buffer		buf;
	QsColDirPageHeader *h;

	QsColDirectory all;

	/* every version, to tell an aborted seal's xmax (before any lock) */
	qs_coldir_read_all(rel, &all);
	dir_walk_start(rel, &w, NULL, false);
	while ((buf = dir_walk_next(&w, BUFFER_LOCK_EXCLUSIVE, &h, &blk)) != InvalidBuffer)
	{
		QsColDirEntry *ents = dirpage_entries(h);
		bool		change = false;

		for (uint32 i = 0; i < h->nentries; i++)
			if (freeze_wants(&ents[i], horizon))
				change = true;
		if (change)
		{
			QsGenXLogState *xs;
			Page		page;
			TransactionId newest = InvalidTransactionId;

			/*
			 * A hot standby query that does not see a frozen block's writer
			 * (a load, or a merge whose moved rows' delta versions it still
			 * counts) would see its rows once frozen, and one that does not
			 * see the merge that superseded an open block's version reads
			 * that version: conflict first, as heap's freeze and prune
			 * records carry.
			 */
			for (uint32 i = 0; i < h->nentries; i++)
			{
				TransactionId x[2] = {ents[i].xmin, ents[i].xmax};

				if (!freeze_wants(&ents[i], horizon))
					continue;
				for (int k = 0; k < 2; k++)
					if (TransactionIdIsNormal(x[k]) &&
						TransactionIdPrecedes(x[k], horizon) &&
						(!TransactionIdIsValid(newest) ||
						 TransactionIdFollows(x[k], newest)))
						newest = x[k];
			}
			qs_log_conflict(rel, newest);
			xs = qs_genxlog_start(rel);
			page = qs_genxlog_register(xs, buf, 0);

			ents = dirpage_entries((QsColDirPageHeader *) PageGetContents(page));
			for (uint32 i = 0; i < h->nentries; i++)
			{
				QsColDirEntry *e = &ents[i];

				if (!freeze_wants(e, horizon))
					continue;
				if (TransactionIdIsNormal(e->xmin) &&
					TransactionIdPrecedes(e->xmin, horizon))
				{
					/* before the horizon: committed, or aborted (crashed) */
					if (TransactionIdDidCommit(e->xmin))
					{
						/*
						 * The writer's xid stays for the xmin system column,
						 * as heap's freeze keeps a tuple's raw xmin: in cid,
						 * whose command id nobody reads once the writer is
						 * frozen — unless cid is the cmax of an xmax (a
						 * version superseded by a merge that may still run:
						 * its own backend reads it).  Not an xid VACUUM must
						 * keep in the commit log: never looked up there, so
						 * relfrozenxid does not count it.
						 */
						if (!TransactionIdIsValid(e->xmax))
						{
							e->cid = (CommandId) e->xmin;
							e->flags |= QS_COLDIR_CID_IS_XMIN;
						}
						e->xmin = FrozenTransactionId;
					}
					else
					{
						e->state = QS_COLBLK_RETIRED;
						/* an aborted seal's version: no row, no index entry */
						if ((e->flags & QS_COLDIR_MERGED) &&
							!(e->flags & QS_COLDIR_PENDING) &&
							e->published > 0 && e->base >= e->published)
							e->flags |= QS_COLDIR_INDEX_CLEANED;
						continue;
					}
				}
				if (TransactionIdIsNormal(e->xmax) &&
					TransactionIdPrecedes(e->xmax, horizon))
				{
					if (TransactionIdDidCommit(e->xmax))
					{
						/*
						 * Superseded and dead to everybody: its rows live on
						 * in the next version at the same TIDs, so its index
						 * entries stay; its run goes back (qs_coldir_reclaim).
						 */
						e->state = QS_COLBLK_RETIRED;
						e->flags |= QS_COLDIR_SUPERSEDED | QS_COLDIR_INDEX_CLEANED;
					}
					else
					{
						/*
						 * The merge that appended to it aborted: the TIDs past
						 * its rows had index entries (retired with that
						 * version), so the block takes no more rows.  An
						 * aborted seal's added none: the block stays open.
						 */
						bool		seal = qs_coldir_xmax_aborted_seal(&all, e);

						e->xmax = InvalidTransactionId;
						if (e->state == QS_COLBLK_OPEN && !seal)
							e->state = QS_COLBLK_SEALED;
					}
				}
			}
			qs_genxlog_finish(xs);
			qs_coldir_changed(rel);
		}
		ents = dirpage_entries(h);
		for (uint32 i = 0; i < h->nentries; i++)
		{
			TransactionId x[2] = {ents[i].xmin, ents[i].xmax};

			if (ents[i].state == QS_COLBLK_RETIRED)
				continue;
			for (int k = 0; k < 2; k++)
				if (TransactionIdIsNormal(x[k]) &&
					(!TransactionIdIsValid(oldest) ||
					 TransactionIdPrecedes(x[k], oldest)))
					oldest = x[k];
		}
		UnlockReleaseBuffer(buf);
	}
	if (all.entries)
		pfree(all.entries);
	return oldest;
}

/*
 * qs_debug_vacuum_point
 *		quickstep.debug_vacuum_crash: a crash at this step of VACUUM, with
 *		the WAL written so far on disk (a crash before it reached disk is a
 *		crash at an earlier step).
 */
void
qs_debug_vacuum_point(int point)
{
	if (qs_debug_vacuum_crash != point)
		return;
	XLogFlush(GetXLogInsertRecPtr());
	elog(PANIC, "quickstep.debug_vacuum_crash: stopping at step %d", point);
}

/*
 * emptied_unread
 *		May the pages of RETIRED | EMPTIED version e go back to the delta?
 *		Readers copy the directory and then read the runs and delete maps
 *		it names, holding the snapshot they took before the copy (scans,
 *		fetches, DML).  entry_visible keeps e in the copy of every MVCC
 *		snapshot whose xmax is not past e's stamp cid (the next xid at the
 *		retirement), and that includes snapshots taken after the
 *		retirement as long as no xid >= cid has completed (xmax is
 *		latestCompletedXid + 1): on a quiet system, every new snapshot.
 *		So two conditions:
 *		- the stamp precedes this table's removal horizon.  That horizon
 *		  is at most latestCompletedXid + 1, so every snapshot taken from
 *		  now on has xmax > cid and skips e.  The xid that completed has
 *		  its commit or abort record before the page images reclaim
 *		  writes, so recovery and standby replay advance
 *		  latestCompletedXid past cid before the pages change too.  The
 *		  horizon also holds standby feedback and replication slots.
 *		- no backend of this database advertises an xmin <= cid: those
 *		  may hold a copy naming e (a horizon past cid implies it for
 *		  this database's ordinary backends; kept as the direct
 *		  statement of what reclaim needs).  Other VACUUMs are left out
 *		  (PROC_IN_VACUUM): they read no other table, and this one's is
 *		  ours.
 *		The price: on a table that sees no write between two VACUUMs, the
 *		pages of a block retired by one VACUUM go back at the next one
 *		after some transaction with an xid has ended.
 */
static bool
emptied_unread(const QsColDirEntry *e, TransactionId horizon)
{
	VirtualTransactionId *old;
	int			n;

	/* every snapshot taken from now on skips e (see above) */
	if (!TransactionIdPrecedes((TransactionId) e->cid, horizon))
		return false;
	old = GetCurrentVirtualXIDs((TransactionId) e->cid, true, false,
								PROC_IN_VACUUM, &n);
	pfree(old);
	return n == 0;
}

/*
 * qs_coldir_retire_emptied
 *		VACUUM, after its index pass: a SEALED or OPEN version every row of which
 *		VACUUM has removed (deleted by transactions committed before its
 *		horizon, index entries gone, delete-map entries marked removed:
 *		qs_coldelmap_all_removed) holds nothing any snapshot can see, now
 *		or later.  It is RETIRED with QS_COLDIR_EMPTIED | INDEX_CLEANED, in
 *		one generic WAL record; cid keeps the next xid, so that its run and
 *		delete map go back to the delta (qs_coldir_reclaim) only once no
 *		backend can still read them through a directory copy made before
 *		(emptied_unread).  Only a block's sole live version: a version
 *		superseded but not yet retired shares its delete map and is still
 *		read by older snapshots; a version with an xmax is being (or was)
 *		superseded.  An OPEN block takes merges, but none runs now and a
 *		RETIRED one is never chosen again (merge.c, find_open_block,
 *		and seal.c take only OPEN versions): the next merge starts a new
 *		block, as when the open one is full.  Its TID range is never
 *		handed out again (qs_coldir_reserve), so index entries could never
 *		reach a new row through it anyway.  The caller holds
 *		ShareUpdateExclusiveLock: no merge or seal runs; loads only append
 *		entries.  Returns the versions retired.
 */
uint32
qs_coldir_retire_emptied(Relation rel)
{
	QsColDirectory all;
	uint32		n = 0;

	qs_coldir_read_all(rel, &all);
	for (uint32 i = 0; i < all.nentries; i++)
	{
		const QsColDirEntry *e = &all.entries[i];
		bool		shared = false;
		BlockNumber blk;
		uint32		idx;
		Buffer		buf;
		QsColDirPageHeader *h;
		DirWalk		w;

		if ((e->state != QS_COLBLK_SEALED && e->state != QS_COLBLK_OPEN) ||
			(e->flags & QS_COLDIR_PENDING) ||
			TransactionIdIsValid(e->xmax) || e->published == 0 ||
			e->delmap_root == InvalidBlockNumber)
			continue;
		for (uint32 j = 0; j < all.nentries && !shared; j++)
			if (j != i && all.entries[j].tid_range == e->tid_range &&
				all.entries[j].state != QS_COLBLK_RETIRED)
				shared = true;
		if (shared || !qs_coldelmap_all_removed(rel, e))
			continue;
		CHECK_FOR_INTERRUPTS();

		/*
		 * The newest alive version naming this run: e, unless it changed.
		 * Found without the metapage (VACUUM's own walk): only this process
		 * moves entries (qs_coldir_compact, after this).
		 */
		dir_walk_start(rel, &w, NULL, false);
		if (!find_entry_walk(&w, e->block_id, e->run_start, &blk, &idx))
			continue;
		buf = ReadBuffer(rel, blk);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		h = dirpage_of(rel, BufferGetPage(buf), blk);
		if (idx < h->nentries &&
			memcmp(&dirpage_entries(h)[idx], e, sizeof(QsColDirEntry)) == 0)
		{
			QsGenXLogState *xs = qs_genxlog_start(rel);
			Page		page = qs_genxlog_register(xs, buf, 0);
			QsColDirEntry *w = qs_coldir_page_entry(page, idx);
			TransactionId stamp;

			w->state = QS_COLBLK_RETIRED;
			w->flags |= QS_COLDIR_EMPTIED | QS_COLDIR_INDEX_CLEANED;
			w->flags &= ~QS_COLDIR_CID_IS_XMIN; /* cid: the stamp below */

			/*
			 * The stamp is the next xid, read under the page's lock (every
			 * copy naming e was made before this) and kept so until the
			 * record is in the WAL: XidGenLock held shared lets no xid be
			 * assigned meanwhile.  So an xid >= stamp is assigned, and
			 * ends, after the page changes and after the record: every
			 * snapshot with xmax <= stamp, on the primary or on a hot
			 * standby replaying up to this record, is taken before any xid
			 * >= stamp ends, and entry_visible's answer for it never
			 * changes (one stamp, never raised under live snapshots).
			 * Deadlock-free: the only locks taken while XidGenLock is held
			 * are WAL's (XLogInsert; the buffer is locked already), and no
			 * holder of those waits for XidGenLock; the order buffer lock
			 * -> XidGenLock is also that of a backend assigning an xid
			 * while holding a buffer lock, and nobody takes a buffer lock
			 * while holding XidGenLock.
			 */
			LWLockAcquire(XidGenLock, LW_SHARED);
#if PG_VERSION_NUM >= 170000
			stamp = XidFromFullTransactionId(TransamVariables->nextXid);
#else
			stamp = XidFromFullTransactionId(ShmemVariableCache->nextXid);
#endif
			w->cid = (CommandId) stamp;
			qs_genxlog_finish(xs);
			qs_coldir_changed(rel);
			LWLockRelease(XidGenLock);
			n++;
			UnlockReleaseBuffer(buf);
			qs_debug_vacuum_point(QS_DEBUG_VACUUM_RETIRED);
			continue;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(all.entries);
	return n;
}

/*
 * qs_coldir_reclaim
 *		VACUUM: give the runs of retired block versions (qs_coldir_freeze:
 *		their loader aborted or crashed, or a committed version superseded
 *		them before the horizon, so no snapshot reads them) back to the
 *		delta (qs_colrun_reclaim) once no live version shares the run, then
 *		flag their
 *		entries so that later VACUUMs skip them.  The entry itself stays:
 *		its TID range is never handed out again, so index entries pointing
 *		into it find no row.  Returns the pages reclaimed.
 */
uint32
qs_coldir_reclaim(Relation rel)
{
	BlockNumber blk;
	uint32		pages = 0;
	DirWalk		w;
	Buffer		buf;
	QsColDirPageHeader *h;

	QsColDirectory all;
	BlockNumber *given;
	uint32	   *given_ids;
	int			ngiven = 0;
	bool	   *busy;
	TransactionId horizon;

	/*
	 * Versions sealed without a sort key share their run (column README
	 * section 4.5): a run goes back once, when no version naming it is
	 * alive any more.
	 */
	qs_coldir_read_all(rel, &all);
	given = palloc(sizeof(BlockNumber) * Max(all.nentries, 1));
	given_ids = palloc(sizeof(uint32) * Max(all.nentries, 1));

	/*
	 * Which emptied versions some backend may still read: asked once per
	 * version (a procarray scan each), not once per version naming the
	 * same run.  Asked before the walk, the answer can only be more
	 * cautious than later in it (the horizon only advances).
	 */
	busy = palloc0(sizeof(bool) * Max(all.nentries, 1));
	horizon = GetOldestNonRemovableTransactionId(rel);
	for (uint32 a = 0; a < all.nentries; a++)
		busy[a] = (all.entries[a].flags & QS_COLDIR_EMPTIED) &&
			!(all.entries[a].flags & QS_COLDIR_RUN_RECLAIMED) &&
			!emptied_unread(&all.entries[a], horizon);
	dir_walk_start(rel, &w, NULL, false);
	while ((buf = dir_walk_next(&w, BUFFER_LOCK_SHARE, &h, &blk)) != InvalidBuffer)
	{
		QsColDirEntry *ents = dirpage_entries(h);
		uint32		nents;
		QsColDirEntry *todo;
		int			ntodo = 0;

		nents = h->nentries;
		todo = palloc(sizeof(QsColDirEntry) * Max(nents, 1));
		for (uint32 i = 0; i < nents; i++)
		{
			bool		in_use = false;

			/*
			 * Every retired version is dead to all: superseded past the
			 * horizon, or its writer aborted (qs_coldir_freeze).  No commit
			 * log look-up: relfrozenxid has passed retired versions' xids.
			 */
			if (ents[i].state != QS_COLBLK_RETIRED ||
				(ents[i].flags & QS_COLDIR_RUN_RECLAIMED))
				continue;

			/*
			 * Not while a version naming the run is alive, or is an
			 * emptied one some backend may still read (emptied_unread):
			 * this one, or the successor of a superseded version sharing
			 * its run.
			 */
			for (uint32 a = 0; a < all.nentries && !in_use; a++)
			{
				const QsColDirEntry *o = &all.entries[a];

				if (o->block_id == ents[i].block_id &&
					o->run_start == ents[i].run_start &&
					(o->state != QS_COLBLK_RETIRED || busy[a]))
					in_use = true;
			}
			if (!in_use)
				todo[ntodo++] = ents[i];
		}
		UnlockReleaseBuffer(buf);

		/* the pages first: a crash before the flag just repeats this */
		for (int t = 0; t < ntodo; t++)
		{
			bool		done = false;

			/*
			 * An emptied block's delete map too (only its versions have
			 * one to give: a superseded version's is its successor's).
			 * Hot standby queries that may still hold a directory copy
			 * naming the block (snapshots from before its retirement)
			 * are cancelled first, as heap's pruning records cancel those
			 * that may see what they remove.
			 */
			if (todo[t].flags & QS_COLDIR_EMPTIED)
			{
				qs_log_conflict(rel, (TransactionId) todo[t].cid);
				pages += qs_coldelmap_reclaim(rel, &todo[t]);
			}

			/* a shared run given back already (the flag marks them all) */
			for (uint32 a = 0; a < all.nentries && !done; a++)
				if (all.entries[a].block_id == todo[t].block_id &&
					all.entries[a].run_start == todo[t].run_start &&
					(all.entries[a].flags & QS_COLDIR_RUN_RECLAIMED))
					done = true;
			/*
			 * Runs are told apart by block id and start: a run written into
			 * freed pages may start where another block's retired run did
			 * (run.c).
			 */
			for (int g = 0; g < ngiven && !done; g++)
				if (given[g] == todo[t].run_start &&
					given_ids[g] == todo[t].block_id)
					done = true;
			if (done)
				continue;
			pages += qs_colrun_reclaim(rel, &todo[t]);
			given_ids[ngiven] = todo[t].block_id;
			given[ngiven++] = todo[t].run_start;
		}
		if (ntodo > 0)
		{
			QsGenXLogState *xs;
			Page		page;

			qs_debug_vacuum_point(QS_DEBUG_VACUUM_RECLAIMED);

			buf = ReadBuffer(rel, blk);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			(void) dirpage_of(rel, BufferGetPage(buf), blk);
			xs = qs_genxlog_start(rel);
			page = qs_genxlog_register(xs, buf, 0);
			ents = dirpage_entries((QsColDirPageHeader *) PageGetContents(page));
			for (uint32 i = 0; i < nents; i++)
				for (int t = 0; t < ntodo; t++)
					if (ents[i].block_id == todo[t].block_id &&
						ents[i].run_start == todo[t].run_start)
						ents[i].flags |= QS_COLDIR_RUN_RECLAIMED;
			qs_genxlog_finish(xs);
			qs_coldir_changed(rel);
			UnlockReleaseBuffer(buf);
		}
		pfree(todo);
	}
	pfree(given);
	pfree(given_ids);
	pfree(busy);
	pfree(all.entries);
	return pages;
}

/*
 * quickstep.debug_dir_wait: wait for the test's advisory lock (7401, point)
 * as pg_advisory_lock_shared(7401, point) would.  The lock_entry point
 * waits holding buffer locks: the isolation tester cannot see a backend
 * that waits for them behind it (specs annotate that step).  scan_read is
 * the column scan's (qs_colscan_init_main), holding no lock.
 */
void
qs_coldir_debug_wait(int point)
{
	LOCKTAG		tag;

	if (qs_debug_dir_wait != point)
		return;
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, 7401, point, 2);
	(void) LockAcquire(&tag, ShareLock, false, false);
	(void) LockRelease(&tag, ShareLock, false);
}

/*
 * qs_coldir_lock_entry
 *		The directory page holding block_id's entry (its first version not
 *		RETIRED: find_entry_walk), pinned and exclusively locked, and the
 *		entry's index in it; *mbuf gets the metapage, share-locked.  The
 *		place is found and written under one hold of the metapage (P2,
 *		README section 7.1): compaction moves entries only under its
 *		exclusive lock, so a place found under an earlier hold could name
 *		another entry by the time of the write.  The caller logs its record
 *		(without the metapage), then calls qs_coldir_unlock_entry.  Lock
 *		order: the caller's delete-map pages, the metapage, this page.
 */
Buffer
qs_coldir_lock_entry(Relation rel, uint32 block_id, uint32 *idx, Buffer *mbuf)
{
	BlockNumber blk;
	Buffer		buf;
	QsColDirPageHeader *h;
	DirWalk		w;

	dir_walk_start(rel, &w, NULL, true);
	if (!find_entry_walk(&w, block_id, InvalidBlockNumber, &blk, idx))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("column table \"%s\" has no directory entry for block %u",
						RelationGetRelationName(rel), block_id)));
	buf = ReadBuffer(rel, blk);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	h = dirpage_of(rel, BufferGetPage(buf), blk);
	if (*idx >= h->nentries || dirpage_entries(h)[*idx].block_id != block_id)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory entry of block %u of column table \"%s\" moved",
						block_id, RelationGetRelationName(rel))));
	qs_coldir_debug_wait(QS_DIR_WAIT_LOCK_ENTRY);
	/* the walk's metapage hold is the caller's now */
	*mbuf = w.mbuf;
	return buf;
}

/* the end of a qs_coldir_lock_entry: the page, then the metapage */
void
qs_coldir_unlock_entry(Buffer buf, Buffer mbuf)
{
	UnlockReleaseBuffer(buf);
	UnlockReleaseBuffer(mbuf);
}

/* entry 'idx' of a directory page image (one registered for generic WAL) */
QsColDirEntry *
qs_coldir_page_entry(Page page, uint32 idx)
{
	return &dirpage_entries((QsColDirPageHeader *) PageGetContents(page))[idx];
}

/*
 * qs_coldir_publish
 *		A load's block is written: its entry, appended PENDING when the load
 *		started buffering rows, gets the run and the rows (one WAL record).
 */
void
qs_coldir_publish(Relation rel, const QsColDirEntry *final)
{
	uint32		idx;
	Buffer		mbuf;
	Buffer		buf = qs_coldir_lock_entry(rel, final->block_id, &idx, &mbuf);
	const QsColDirEntry *cur = qs_coldir_page_entry(BufferGetPage(buf), idx);
	QsGenXLogState *xs;
	QsColDirEntry *e;

	/*
	 * The load's pending entry: its block id is new and has no other
	 * version, so lock_entry's first version not RETIRED is it
	 */
	if (!(cur->flags & QS_COLDIR_PENDING))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory entry of block %u of column table \"%s\" is not the pending load it should be",
						final->block_id, RelationGetRelationName(rel))));
	xs = qs_genxlog_start(rel);
	e = qs_coldir_page_entry(qs_genxlog_register(xs, buf, 0), idx);
	*e = *final;
	e->flags &= ~QS_COLDIR_PENDING;
	qs_genxlog_finish(xs);
	qs_coldir_changed(rel);
	qs_coldir_unlock_entry(buf, mbuf);
}

/*
 * qs_coldir_pending_visible
 *		Does a load in progress buffer rows for TID range 'range', as seen by
 *		'snapshot' (a dirty one reports the loader in its xmin)?  Unique
 *		checks and other SnapshotDirty fetches of such a row wait for the
 *		loader as for a heap tuple being inserted (README section 6).
 */
bool
qs_coldir_pending_visible(Relation rel, uint32 range, Snapshot snapshot,
						  QsColDirEntry *out)
{
	BlockNumber blk;
	DirWalk		w;
	Buffer		buf;
	QsColDirPageHeader *h;

	dir_walk_start(rel, &w, NULL, true);
	while ((buf = dir_walk_next(&w, BUFFER_LOCK_SHARE, &h, &blk)) != InvalidBuffer)
	{
		QsColDirEntry *ents = dirpage_entries(h);

		for (uint32 i = 0; i < h->nentries; i++)
		{
			if (ents[i].tid_range != range || !(ents[i].flags & QS_COLDIR_PENDING) ||
				ents[i].state == QS_COLBLK_RETIRED)
				continue;
			*out = ents[i];
			if (entry_visible(rel, &ents[i], snapshot, &buf))
			{
				UnlockReleaseBuffer(buf);
				dir_walk_end(&w);
				return true;
			}
		}
		UnlockReleaseBuffer(buf);
	}
	dir_walk_end(&w);
	return false;
}

/*
 * qs_coldir_retired_ranges
 *		The TID ranges of RETIRED blocks whose index entries VACUUM has not
 *		removed yet (their writers aborted: every row is dead to all), and
 *		the first dead row of each (an open block's version that an aborted
 *		merge wrote: its rows from 'base' on).
 */
void
qs_coldir_retired_ranges(Relation rel, uint32 **ranges, uint32 **first_rows,
						 int *n)
{
	QsColDirectory dir;

	*ranges = NULL;
	*first_rows = NULL;
	*n = 0;
	qs_coldir_read_all(rel, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		if (e->state != QS_COLBLK_RETIRED || (e->flags & QS_COLDIR_INDEX_CLEANED))
			continue;
		if (*ranges == NULL)
		{
			*ranges = palloc(sizeof(uint32) * dir.nentries);
			*first_rows = palloc(sizeof(uint32) * dir.nentries);
		}
		(*ranges)[*n] = e->tid_range;
		(*first_rows)[(*n)++] = e->base;
	}
	pfree(dir.entries);
}

/* VACUUM removed the index entries of these RETIRED ranges: flag them */
void
qs_coldir_ranges_cleaned(Relation rel, const uint32 *ranges, int n)
{
	BlockNumber blk;
	DirWalk		w;
	Buffer		buf;
	QsColDirPageHeader *h;

	dir_walk_start(rel, &w, NULL, false);
	while ((buf = dir_walk_next(&w, BUFFER_LOCK_EXCLUSIVE, &h, &blk)) != InvalidBuffer)
	{
		QsColDirEntry *ents = dirpage_entries(h);
		bool		change = false;

		for (uint32 i = 0; i < h->nentries && !change; i++)
			for (int j = 0; j < n; j++)
				if (ents[i].tid_range == ranges[j] &&
					ents[i].state == QS_COLBLK_RETIRED &&
					!(ents[i].flags & QS_COLDIR_INDEX_CLEANED))
					change = true;
		if (change)
		{
			QsGenXLogState *xs = qs_genxlog_start(rel);
			Page		page = qs_genxlog_register(xs, buf, 0);

			ents = dirpage_entries((QsColDirPageHeader *) PageGetContents(page));
			for (uint32 i = 0; i < h->nentries; i++)
				for (int j = 0; j < n; j++)
					if (ents[i].tid_range == ranges[j] &&
						ents[i].state == QS_COLBLK_RETIRED)
						ents[i].flags |= QS_COLDIR_INDEX_CLEANED;
			qs_genxlog_finish(xs);
			qs_coldir_changed(rel);
		}
		UnlockReleaseBuffer(buf);
	}
}

static int
colrun_cmp(const void *a, const void *b)
{
	BlockNumber x = ((const QsPageRange *) a)->start;
	BlockNumber y = ((const QsPageRange *) b)->start;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * qs_coldir_runs
 *		The page runs of the blocks the directory lists (not retired), in
 *		page order: what a pass over the delta skips without reading them
 *		(the merge's collection, the worker's count), so that its cost is
 *		the delta's pages, not the table's.
 */
QsPageRange *
qs_coldir_runs(Relation rel, int *nruns)
{
	QsColDirectory dir;
	QsPageRange   *runs;
	int			n = 0;

	qs_coldir_read_all(rel, &dir);
	runs = palloc(sizeof(QsPageRange) * Max(dir.nentries, 1));
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		if (e->state == QS_COLBLK_RETIRED || e->npages == 0 ||
			e->run_start == InvalidBlockNumber)
			continue;
		runs[n].start = e->run_start;
		runs[n].end = e->run_start + e->npages;
		n++;
	}
	pfree(dir.entries);
	qsort(runs, n, sizeof(QsPageRange), colrun_cmp);
	/* versions sharing a run (a seal without a sort key) list it once */
	if (n > 1)
	{
		int			k = 1;

		for (int i = 1; i < n; i++)
			if (runs[i].start != runs[k - 1].start)
				runs[k++] = runs[i];
		n = k;
	}
	*nruns = n;
	return runs;
}

/*
 * qs_coldir_find_current
 *		The entry qs_coldir_find_range finds for 'range' in a fresh
 *		qs_coldir_read, into *out; false if none.  From the backend's copy
 *		without copying it when that copy is as new as the directory: the
 *		main-row fetches and DML ask this per row.
 */
bool
qs_coldir_find_current(Relation rel, uint32 range, QsColDirEntry *out)
{
	DirCopy    *dc = dircopy_get(rel);
	QsColDirectory dir;
	const QsColDirEntry *e;
	bool		found;

	if (dc != NULL)
	{
		e = qs_coldir_find_range(dircopy_current(dc), range);
		if (e != NULL)
			*out = *e;
		return e != NULL;
	}
	qs_coldir_read(rel, &dir);
	e = qs_coldir_find_range(&dir, range);
	found = e != NULL;
	if (found)
		*out = *e;
	pfree(dir.entries);
	return found;
}

/*
 * qs_coldir_delmap_pages
 *		The pages of the delete maps (roots included) of the blocks of
 *		qs_coldir_read's copy that are not RETIRED (the size estimate).
 *		Kept with the backend's directory copy: a delete map's pages
 *		change only with its root page, and every change of a root page
 *		moves the counter (create_page, qs_coldelmap_reclaim), so the sum
 *		is exact whenever the copy is reused.
 */
uint64
qs_coldir_delmap_pages(Relation rel)
{
	DirCopy    *dc = dircopy_get(rel);
	QsColDirectory dir;
	const QsColDirectory *d;
	uint64		n = 0;

	if (dc != NULL)
	{
		d = dircopy_current(dc);
		if (dc->delmap_pages >= 0)
			return (uint64) dc->delmap_pages;
	}
	else
	{
		qs_coldir_read(rel, &dir);
		d = &dir;
	}
	for (uint32 i = 0; i < d->nentries; i++)
		if (d->entries[i].state != QS_COLBLK_RETIRED)
			n += qs_coldelmap_npages(rel, &d->entries[i]);
	if (dc != NULL)
		dc->delmap_pages = (int64) n;
	else
		pfree(dir.entries);
	return n;
}

/*
 * qs_coldir_lookup
 *		The directory entry (a copy) of the block holding main row 'vtid',
 *		and its row number; false if the TID names no existing row.
 */
bool
qs_coldir_lookup(Relation rel, ItemPointer vtid, QsColDirEntry *entry,
				 uint32 *row)
{
	uint32		range;
	QsColDirEntry e;

	if (!qs_virt_decode(vtid, &range, row))
		return false;
	if (!qs_coldir_find_current(rel, range, &e) || *row >= e.published)
		return false;
	*entry = e;
	return true;
}

/* ------------------------------------------------------------------------
 * Compaction of the directory (README section 4.7)
 *
 * VACUUM removes the entries no snapshot and no snapshot-free reader
 * needs any more (compact_removable: R1-R4), after keeping the page
 * ranges they freed in coalesced FREE-range entries, and packs the chain
 * in place, in order, one generic WAL record {metapage, W, R} per step
 * under the metapage's exclusive lock (pack_step).  Walkers hold the
 * metapage's share lock for their whole walk and in-place writers find
 * and write under one metapage hold (P1, P2: dir_walk_start,
 * qs_coldir_lock_entry), so each step is atomic for them, as it is for
 * recovery and for a hot standby.
 * ------------------------------------------------------------------------
 */

/* entry indexes by block id, then run start */
static int
entry_key_cmp(const void *a, const void *b, void *arg)
{
	const QsColDirEntry *ents = (const QsColDirEntry *) arg;
	const QsColDirEntry *x = &ents[*(const uint32 *) a];
	const QsColDirEntry *y = &ents[*(const uint32 *) b];

	if (x->block_id != y->block_id)
		return x->block_id < y->block_id ? -1 : 1;
	if (x->run_start != y->run_start)
		return x->run_start < y->run_start ? -1 : 1;
	return 0;
}

/* whole entries, byte by byte (a removable entry is named by its bytes) */
static int
entry_bytes_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(QsColDirEntry));
}

/*
 * R1, on one entry's bytes: a retired version whose run and delete map
 * went back (RUN_RECLAIMED: it is in no snapshot's copy, entry_visible)
 * and whose index entries are gone (INDEX_CLEANED: else its range would
 * leave qs_coldir_retired_ranges with them still there).  Pending aborted
 * loads included.  FREE-range entries go by generation instead.
 */
static bool
compact_r1(const QsColDirEntry *e)
{
	return e->state == QS_COLBLK_RETIRED &&
		(e->flags & QS_COLDIR_RUN_RECLAIMED) &&
		(e->flags & QS_COLDIR_INDEX_CLEANED) &&
		!qs_coldir_is_free(e);
}

/*
 * Which entries of 'all' (qs_coldir_read_all, directory order) may go:
 * R1 and, over the entries of the same block (sorted by block id and run
 * start):
 * - R2: every entry naming the same run (block id, run start) is
 *   RUN_RECLAIMED.  Versions sealed without a sort key share their run;
 *   they go together, so that qs_coldir_reclaim's in_use/done and run.c's
 *   run starts never miss a twin.
 * - R3, an aborted version (neither SUPERSEDED nor EMPTIED; judged by
 *   flags, never by the commit log):
 *   (a) no version of the block that is not RETIRED has a normal xmax:
 *   else qs_coldir_xmax_aborted_seal, which freeze and the merge still
 *   ask, would miss this aborted merge (base < published) and answer
 *   "an aborted seal", letting a merge reuse TIDs that had index entries;
 *   (b) every delete-map entry of its rows from 'reach' on is removed
 *   (qs_coldelmap_rows_removed; 'reach' = the largest published of the
 *   live versions sharing its delete map, 0 with none): VACUUM's second
 *   pass reaches a leaf only through a listed entry of its TID range
 *   whose root links it (qs_coldelmap_buffer_any), while its first pass
 *   finds it on the page and classifies it DEAD (its inserter is the
 *   aborted writer) at every VACUUM, never removed, its xid outliving
 *   relfrozenxid.  Needed where no live version shares the root (an
 *   aborted load, or a merge into a new block: reach = 0); where one
 *   does, it still links every leaf after this entry goes, whatever the
 *   rows, and the condition only waits for the removal VACUUM would do
 *   anyway.  Such entries exist: while an aborted merge M ran,
 *   writers cancelled moves (the main copy's entry gets xmax = M),
 *   M gave the main copies of rows no longer quiet xmax = M, M's own
 *   transaction changed rows at their main copies, and every delete-map
 *   page M extended or DML made holds M's rows with xmin = M.  The first
 *   VACUUM with index cleanup after M ended marks them all removed
 *   (pass 1 finds them DEAD, pass 2 reaches them through this entry,
 *   before the compaction); one with INDEX_CLEANUP off does not, and the
 *   entry stays until one does.  The answer holds until the pack step:
 *   no writer makes or revives an entry of a row no live version holds
 *   (DML reaches a row through qs_coldir_find_current's version, never a
 *   RETIRED one, and only below its published: qs_coldelmap_buffer; no
 *   merge appends to the block, closed by qs_coldir_freeze once R3a
 *   holds; VACUUM is this process).  Trivially true with no delete map
 *   or reach >= its published.  Proof and counterexample: README 4.7.
 * - R4, a SUPERSEDED version: nothing more.  Its successor has published
 *   >= its own and shares its delete map; qs_coldir_row_surely_dead loses
 *   only rows a live version still holds.
 * An EMPTIED version needs nothing more either: its block has no other
 * version (qs_coldir_retire_emptied).
 * - R5, not a condition but what goes with them: a delete map that every
 *   entry naming it (block id, root) leaves, none of them EMPTIED (whose
 *   map qs_coldir_reclaim gives back): an aborted load's or an aborted
 *   merge's into a new block, with its superseded versions if it had any.
 *   Without an entry naming its root, nothing would ever give its pages
 *   back (review of r3b, F7).  R3b held for its last version with reach
 *   0, so every entry of its rows is removed, and R1 for all of them; one
 *   copy per map goes to *orphans, for qs_coldir_compact.
 * Returns one flag per entry.
 */
static bool *
compact_removable(Relation rel, const QsColDirectory *all, uint32 *nremovable,
				  QsColDirEntry **orphans, uint32 *norphans)
{
	uint32		n = all->nentries;
	const QsColDirEntry *ents = all->entries;
	uint32	   *idx = palloc(sizeof(uint32) * Max(n, 1));
	bool	   *rm = palloc0(sizeof(bool) * Max(n, 1));

	*nremovable = 0;
	*orphans = palloc(sizeof(QsColDirEntry) * Max(n, 1));
	*norphans = 0;
	for (uint32 i = 0; i < n; i++)
		idx[i] = i;
	qsort_arg(idx, n, sizeof(uint32), entry_key_cmp, (void *) ents);
	for (uint32 i = 0; i < n;)
	{
		uint32		j = i;
		bool		live_xmax = false;	/* R3a */

		while (j < n && ents[idx[j]].block_id == ents[idx[i]].block_id)
		{
			const QsColDirEntry *e = &ents[idx[j]];

			if (e->state != QS_COLBLK_RETIRED && TransactionIdIsNormal(e->xmax))
				live_xmax = true;
			j++;
		}
		for (uint32 k = i; k < j;)
		{
			uint32		l = k;
			bool		all_reclaimed = true;	/* R2 */

			while (l < j && ents[idx[l]].run_start == ents[idx[k]].run_start)
			{
				if (!(ents[idx[l]].flags & QS_COLDIR_RUN_RECLAIMED))
					all_reclaimed = false;
				l++;
			}
			for (uint32 m = k; m < l && all_reclaimed; m++)
			{
				const QsColDirEntry *e = &ents[idx[m]];

				if (!compact_r1(e))
					continue;
				if (!(e->flags & (QS_COLDIR_SUPERSEDED | QS_COLDIR_EMPTIED)))
				{
					uint32		reach = 0;	/* R3b */

					if (live_xmax)
						continue;	/* R3a */
					for (uint32 o = i; o < j; o++)
						if (ents[idx[o]].state != QS_COLBLK_RETIRED &&
							ents[idx[o]].delmap_root == e->delmap_root)
							reach = Max(reach, ents[idx[o]].published);
					if (!qs_coldelmap_rows_removed(rel, e, reach))
						continue;	/* R3b */
				}
				rm[idx[m]] = true;
				(*nremovable)++;
			}
			k = l;
		}

		/*
		 * R5: a delete map whose every version goes (F7).  Once listed by
		 * no entry, its root and leaves would be nobody's pages for good;
		 * the block's first such version (by root) names them.
		 */
		for (uint32 k = i; k < j; k++)
		{
			const QsColDirEntry *e = &ents[idx[k]];
			bool		give = rm[idx[k]] && e->delmap_root != InvalidBlockNumber;

			for (uint32 o = i; o < j && give; o++)
			{
				const QsColDirEntry *x = &ents[idx[o]];

				if (x->delmap_root != e->delmap_root)
					continue;
				if (!rm[idx[o]] || (x->flags & QS_COLDIR_EMPTIED) || o < k)
					give = false;
			}
			if (give)
				(*orphans)[(*norphans)++] = *e;
		}
		i = j;
	}
	pfree(idx);
	return rm;
}

/* a FREE-range entry for pages r (README section 4.7; colstore.h) */
static void
free_entry(QsColDirEntry *e, const QsPageRange *r, CommandId gen)
{
	memset(e, 0, sizeof(*e));
	e->block_id = 0;
	e->state = QS_COLBLK_RETIRED;
	e->flags = QS_COLDIR_FREE_FLAGS;
	e->run_start = r->start;
	e->npages = r->end - r->start;
	e->tid_range = QS_COLDIR_FREE_TIDRANGE;
	e->xmin = InvalidTransactionId;
	e->xmax = InvalidTransactionId;
	e->cid = gen;
	e->delmap_root = InvalidBlockNumber;
	e->src_first = InvalidBlockNumber;
	e->src_last = InvalidBlockNumber;
}

/*
 * Append FREE-range entries for ranges f[0..nf) at the tail, as many per
 * record as the tail (or one new tail page) takes: each record is
 * {metapage, tail, new page} in append_entry's order and shape.
 */
static void
append_free_entries(Relation rel, const QsPageRange *f, int nf, CommandId gen)
{
	int			done = 0;

	while (done < nf)
	{
		Buffer		mbuf;
		Buffer		tbuf = InvalidBuffer;
		Buffer		nbuf = InvalidBuffer;
		QsColMeta  *m;
		QsColDirPageHeader *th = NULL;
		QsGenXLogState *xs;
		Page		tpage = NULL;
		int			k;

		CHECK_FOR_INTERRUPTS();
		mbuf = ReadBuffer(rel, QS_COLMETA_BLKNO);
		LockBuffer(mbuf, BUFFER_LOCK_EXCLUSIVE);
		m = meta_of(rel, BufferGetPage(mbuf));
		append_lock_tail(rel, m, &tbuf, &th, &nbuf);
		xs = qs_genxlog_start(rel);
		m = (QsColMeta *) PageGetContents(qs_genxlog_register(xs, mbuf, 0));
		if (BufferIsValid(tbuf))
		{
			tpage = qs_genxlog_register(xs, tbuf, 0);
			th = (QsColDirPageHeader *) PageGetContents(tpage);
		}
		if (BufferIsValid(nbuf))
			append_link_new(xs, m, nbuf, &tpage, &th);
		for (k = 0; done < nf && th->nentries + k < QS_COLDIR_PER_PAGE; k++)
			free_entry(&dirpage_entries(th)[th->nentries + k], &f[done++], gen);
		dirpage_set_count(tpage, th, th->nentries + k);
		m->nentries += k;
		qs_genxlog_finish(xs);
		qs_coldir_changed(rel);
		if (BufferIsValid(nbuf))
			UnlockReleaseBuffer(nbuf);
		if (BufferIsValid(tbuf))
			UnlockReleaseBuffer(tbuf);
		UnlockReleaseBuffer(mbuf);
	}
}

/*
 * qs_coldir_append_free
 *		A seal's move (run.c, delta_window) is about to convert pages r of
 *		the delta into a run that no entry names until the seal's
 *		directory record: list them as freed first, in a FREE-range entry
 *		of a generation of its own (one above every FREE entry's, so that
 *		no two entries of one generation overlap: check.c), one generic
 *		record.  If the seal then fails, is cancelled or crashes before
 *		its record, VACUUM's sweep, which reads freed ranges only
 *		(qs_colrun_sweep), finds the converted pages there and gives them
 *		back; once the seal's entry names the run, the run is cut out of
 *		the freed ranges as every run in use is.  Its WAL record precedes
 *		the pages' own, so recovery never has the pages without it.  The
 *		next compaction drops it with the older generations, the range
 *		still listed in its own generation (qs_colrun_free_ranges).  The
 *		caller holds ShareUpdateExclusiveLock: no compaction meanwhile.
 */
void
qs_coldir_append_free(Relation rel, const QsPageRange *r)
{
	QsColDirectory all;
	CommandId	gen = 1;

	Assert(CheckRelationLockedByMe(rel, ShareUpdateExclusiveLock, true));
	qs_coldir_read_all(rel, &all);
	for (uint32 i = 0; i < all.nentries; i++)
		if (qs_coldir_is_free(&all.entries[i]))
			gen = Max(gen, all.entries[i].cid + 1);
	if (all.entries)
		pfree(all.entries);
	append_free_entries(rel, r, 1, gen);
}

/* What a compaction removes: planned entries (by bytes) and old FREEs. */
typedef struct CompactPlan
{
	QsColDirEntry *gone;		/* removable entries, sorted by bytes */
	uint32		ngone;
	CommandId	gen;			/* FREE entries with cid < gen go */
} CompactPlan;

/*
 * Does entry e (on a page, under the metapage's exclusive lock) go?  R1
 * re-checked on its bytes, and the bytes planned: under VACUUM's
 * ShareUpdateExclusiveLock only this process changes retired entries,
 * and entries appended since the plan are loads' (new block ids), which
 * change no other block's R2/R3, so a planned entry still qualifies.
 */
static bool
compact_drops(const CompactPlan *p, const QsColDirEntry *e)
{
	if (qs_coldir_is_free(e))
		return e->cid < p->gen;
	return compact_r1(e) &&
		bsearch(e, p->gone, p->ngone, sizeof(QsColDirEntry),
				entry_bytes_cmp) != NULL;
}

/*
 * One pack step at directory page wblk (W) and its successor R, under
 * the metapage's exclusive lock, then W's and R's: the entries that go
 * (compact_drops) are dropped from both, the first survivors of R fill
 * W's room, R's rest slides to its front.  An R left empty is unlinked
 * (the metapage's tail moves to W if R was it) and given back to the
 * delta in the same record, a full image of an empty delta page, as
 * run.c gives run pages back.  One generic record: the metapage first,
 * then W, then R (a redo locks in registration order, and hot standby
 * walkers hold the metapage before a directory page).  Every kept entry
 * stays exactly once and in directory order, so the chain between two
 * steps is a valid directory for readers, for sort_entries (directory
 * order breaks ties within a range) and after a crash.
 *
 * Returns the next W (W again when R went, R when W is full, Invalid at
 * the chain's end); *logged: a record was written; *gave: R went back.
 */
static BlockNumber
pack_step(Relation rel, const CompactPlan *p, BlockNumber wblk,
		  bool *logged, bool *gave)
{
	Buffer		mbuf,
				wbuf,
				rbuf = InvalidBuffer;
	BlockNumber rblk;
	QsColDirPageHeader *wh,
			   *rh = NULL;
	QsColDirEntry *keep;
	uint32		nkeep = 0;
	uint32		nold;
	uint32		nw;
	bool		r_empty;
	QsGenXLogState *xs;
	QsColMeta  *m;
	Page		wpage,
				rpage = NULL;
	Size		rfree = 0;

	*logged = false;
	*gave = false;
	mbuf = ReadBuffer(rel, QS_COLMETA_BLKNO);
	LockBuffer(mbuf, BUFFER_LOCK_EXCLUSIVE);
	(void) meta_of(rel, BufferGetPage(mbuf));
	wbuf = dir_lock_linked(rel, wblk, InvalidBlockNumber,
						   BUFFER_LOCK_EXCLUSIVE, &wh);
	/* R is W's successor now: appends may have added pages since */
	rblk = wh->next;
	if (rblk != InvalidBlockNumber)
		rbuf = dir_lock_linked(rel, rblk, wblk, BUFFER_LOCK_EXCLUSIVE, &rh);

	/* the survivors of W, then of R, in directory order */
	nold = wh->nentries + (rh ? rh->nentries : 0);
	keep = palloc(sizeof(QsColDirEntry) * Max(nold, 1));
	for (uint32 i = 0; i < wh->nentries; i++)
		if (!compact_drops(p, &dirpage_entries(wh)[i]))
			keep[nkeep++] = dirpage_entries(wh)[i];
	for (uint32 i = 0; rh && i < rh->nentries; i++)
		if (!compact_drops(p, &dirpage_entries(rh)[i]))
			keep[nkeep++] = dirpage_entries(rh)[i];
	nw = Min(nkeep, (uint32) QS_COLDIR_PER_PAGE);
	r_empty = rh != NULL && nkeep == nw;

	/* nothing dropped, moved or emptied (W full, or the chain's end) */
	if (nkeep == nold && nw == wh->nentries && !r_empty)
	{
		pfree(keep);
		if (BufferIsValid(rbuf))
			UnlockReleaseBuffer(rbuf);
		UnlockReleaseBuffer(wbuf);
		UnlockReleaseBuffer(mbuf);
		return rblk;
	}

	xs = qs_genxlog_start(rel);
	m = (QsColMeta *) PageGetContents(qs_genxlog_register(xs, mbuf, 0));
	wpage = qs_genxlog_register(xs, wbuf, 0);
	wh = (QsColDirPageHeader *) PageGetContents(wpage);
	if (BufferIsValid(rbuf))
	{
		rpage = qs_genxlog_register(xs, rbuf,
									r_empty ? GENERIC_XLOG_FULL_IMAGE : 0);
		rh = (QsColDirPageHeader *) PageGetContents(rpage);
	}
	memcpy(dirpage_entries(wh), keep, sizeof(QsColDirEntry) * nw);
	dirpage_set_count(wpage, wh, nw);
	if (r_empty)
	{
		wh->next = rh->next;
		if (m->dir_tail == rblk)
			m->dir_tail = wblk;
		PageInit(rpage, BLCKSZ, 0);
		rfree = PageGetFreeSpace(rpage);
	}
	else if (rh != NULL)
	{
		memmove(dirpage_entries(rh), keep + nw,
				sizeof(QsColDirEntry) * (nkeep - nw));
		dirpage_set_count(rpage, rh, nkeep - nw);
	}
	m->nentries -= nold - nkeep;
	qs_genxlog_finish(xs);
	qs_coldir_changed(rel);
	pfree(keep);
	*logged = true;
	*gave = r_empty;

	if (BufferIsValid(rbuf))
		UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(wbuf);
	UnlockReleaseBuffer(mbuf);
	if (r_empty)
	{
		/*
		 * The free space map after the record, as run.c gives pages back,
		 * and after the locks: growing the map waits for the extension
		 * lock, which a load holds for a whole run write, and every walk
		 * and publish would wait behind the metapage meanwhile.  A crash
		 * before it leaves the map stale, which is a hint only.
		 */
		RecordPageWithFreeSpace(rel, rblk, rfree);
		return wblk;
	}
	return rblk;
}

/*
 * qs_coldir_compact
 *		VACUUM, after qs_coldir_reclaim: remove the directory entries no
 *		reader needs (compact_removable) once there are enough of them (at
 *		least max(QS_COLDIR_PER_PAGE, entries / 4), counting the older
 *		FREE-range entries by how many fewer the new generation needs;
 *		quickstep.debug_dir_compact_min for tests), so that the directory
 *		stays O(live blocks + merges per VACUUM interval), not O(merges
 *		ever).  First the page ranges the
 *		directory lists as freed (run.c: RUN_RECLAIMED and FREE entries,
 *		the runs in use cut out) are appended as FREE-range entries of a
 *		new generation: they keep every freed page a candidate for run
 *		writes once the entries naming it are gone (a crash after this
 *		leaves ranges listed twice, which run.c merges).  Then the chain
 *		is packed from its head (pack_step), dropping the planned entries
 *		and the FREE entries of older generations.  The caller holds
 *		ShareUpdateExclusiveLock: no merge, seal or other VACUUM runs;
 *		loads append and publish between steps.  No snapshot's view
 *		changes: a removable entry is in no snapshot's copy (R1), so no
 *		horizon and no standby conflict is needed; the counter bump of
 *		each step drops backends' older copies.  Returns the directory
 *		pages given back.
 */
uint32
qs_coldir_compact(Relation rel)
{
	QsColDirectory all;
	bool	   *rm;
	uint32		nrm;
	QsColDirEntry *orphans;
	uint32		norphans;
	uint32		nold_free = 0;
	CommandId	gen = 1;
	uint64		threshold;
	QsPageRange *f;
	int			nf;
	CompactPlan plan;
	QsColMeta	meta;
	BlockNumber wblk;
	bool		first = true;
	uint32		given = 0;
	uint64		steps = 0;

	Assert(CheckRelationLockedByMe(rel, ShareUpdateExclusiveLock, true));
	qs_coldir_read_all(rel, &all);
	rm = compact_removable(rel, &all, &nrm, &orphans, &norphans);
	for (uint32 i = 0; i < all.nentries; i++)
		if (qs_coldir_is_free(&all.entries[i]))
		{
			nold_free++;
			gen = Max(gen, all.entries[i].cid + 1);
		}
	if (qs_debug_dir_compact_min >= 0)
		threshold = (uint64) qs_debug_dir_compact_min;
	else
		threshold = Max((uint64) QS_COLDIR_PER_PAGE, all.nentries / 4);

	f = qs_colrun_free_ranges(&all, RelationGetNumberOfBlocks(rel), &nf);

	/*
	 * The directory's last page is the file's last: it was added at the
	 * end (a seal's moves append entries above the runs they vacated), and
	 * it keeps this VACUUM from truncating the empty pages below it.  Pack
	 * if that empties the page, whatever the threshold: what is left (and
	 * the new FREE entries) fits in the pages before it.  Each such pack
	 * gives a page back, so it does not repeat at every VACUUM.
	 */
	qs_colmeta_read(rel, &meta);
	if (nrm > 0 && meta.dir_tail != InvalidBlockNumber &&
		meta.dir_tail + 1 == RelationGetNumberOfBlocks(rel))
	{
		QsColDirSize size;

		qs_coldir_count(rel, &size);
		if (size.pages > 1 &&
			all.nentries - nrm - nold_free + (uint64) nf <=
			(size.pages - 1) * (uint64) QS_COLDIR_PER_PAGE)
			threshold = 1;
	}

	/*
	 * Older FREE entries count only as far as the new generation has
	 * fewer: a table with many disjoint freed ranges would otherwise
	 * rewrite them all, and lock the whole chain step by step, at every
	 * VACUUM that finds one removable entry.
	 */
	if (nrm == 0 ||
		(uint64) nrm + (nold_free > (uint32) nf ? nold_free - nf : 0) < threshold)
	{
		pfree(f);
		pfree(rm);
		pfree(orphans);
		pfree(all.entries);
		return 0;
	}

	/*
	 * R5's delete maps go back to the delta before the entries naming
	 * them go: a crash in between leaves entries whose root is no longer
	 * theirs, which every reader of a RETIRED version takes for "given
	 * back" (gone_ok) and the next compaction removes; the other order
	 * would leak the pages.  Nobody reads them: a version that goes is in
	 * no snapshot's copy (R1) and never current, as for its run.
	 */
	for (uint32 i = 0; i < norphans; i++)
	{
		CHECK_FOR_INTERRUPTS();
		(void) qs_coldelmap_reclaim(rel, &orphans[i]);
	}
	pfree(orphans);

	append_free_entries(rel, f, nf, gen);
	pfree(f);
	qs_debug_vacuum_point(QS_DEBUG_VACUUM_COMPACT_FREE);

	plan.gone = palloc(sizeof(QsColDirEntry) * Max(nrm, 1));
	plan.ngone = 0;
	plan.gen = gen;
	for (uint32 i = 0; i < all.nentries; i++)
		if (rm[i])
			plan.gone[plan.ngone++] = all.entries[i];
	qsort(plan.gone, plan.ngone, sizeof(QsColDirEntry), entry_bytes_cmp);
	pfree(rm);
	pfree(all.entries);

	qs_colmeta_read(rel, &meta);
	wblk = meta.dir_head;
	while (wblk != InvalidBlockNumber)
	{
		bool		logged;
		bool		gave;

		/* between steps, holding no lock */
		CHECK_FOR_INTERRUPTS();
		if (!first)
			qs_coldir_debug_wait(QS_DIR_WAIT_PACK_STEP);
		/* a step advances W or gives a page back: more is a cycle */
		if (++steps > 2 * (uint64) RelationGetNumberOfBlocks(rel))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("directory of column table \"%s\" has a cycle",
							RelationGetRelationName(rel))));
		wblk = pack_step(rel, &plan, wblk, &logged, &gave);
		if (gave)
			given++;
		if (logged && first)
		{
			first = false;
			qs_debug_vacuum_point(QS_DEBUG_VACUUM_COMPACT_STEP);
		}
	}
	pfree(plan.gone);
	return given;
}

/*
 * qs_coldir_count
 *		The directory's size (quickstep.column_directory, the checker): its
 *		entries and pages, its FREE-range entries and the pages they list,
 *		and the metapage's entry count, all from one metapage hold (P1), so
 *		the walk's count equals the metapage's exactly.
 */
void
qs_coldir_count(Relation rel, QsColDirSize *size)
{
	DirWalk		w;
	Buffer		buf;
	BlockNumber blk;
	QsColDirPageHeader *h;
	QsColMeta	meta;

	memset(size, 0, sizeof(*size));
	dir_walk_start(rel, &w, &meta, true);
	size->meta_entries = meta.nentries;
	while ((buf = dir_walk_next(&w, BUFFER_LOCK_SHARE, &h, &blk)) != InvalidBuffer)
	{
		size->pages++;
		size->entries += h->nentries;
		for (uint32 i = 0; i < h->nentries; i++)
			if (qs_coldir_is_free(&dirpage_entries(h)[i]))
			{
				size->free_entries++;
				size->free_pages += dirpage_entries(h)[i].npages;
			}
		UnlockReleaseBuffer(buf);
	}
	dir_walk_end(&w);
}
