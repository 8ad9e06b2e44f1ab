/*-------------------------------------------------------------------------
 *
 * readcache.c
 *	  Open block readers of column tables kept by a backend across index
 *	  scans, statements and transactions, for fetches by TID and the rows
 *	  of bitmap scans (scan_tid.c: a nested loop's inner bitmap scan
 *	  fetches a few rows of one block, then of another, per rescan).
 *
 * Opening a block's column gathers its stripe from the run pages, checks
 * its checksum, and decodes what has no random access (FOR-delta): work in
 * proportion to the block (150,000 rows), which a point lookup through an
 * index paid per statement when the reader lived only as long as one index
 * scan (pgbench -S on a column table ran at 1/30 of heap's rate, 70 % of its
 * time in decoding; bench W2).  A block image never changes once written, so
 * a reader stays right for as long as the relation keeps its relfilenode and
 * its descriptor: entries are dropped on every relcache invalidation of
 * their relation (ALTER TABLE, TRUNCATE, CLUSTER, VACUUM FULL, DROP, and a
 * sinval reset), and also keyed by relfilenode and the block's run, so that
 * nothing stale is ever matched.  Each entry keeps its own copy of the
 * descriptor and the column attributes built from it.
 *
 * The readers live in a memory context of their own under
 * TopMemoryContext; a reader whose opening fails is freed with the caller's
 * context.  At most quickstep.column_fetch_cache of their memory (measured
 * when a reader is looked up, so a reader's columns opened since count too)
 * is kept, least recently used evicted first.  The budget is what a
 * backend's random fetches need to stay in memory: a block's open columns
 * take about its bytes on disk (plus 8 bytes a row for a FOR-delta column,
 * decoded), and a working set past the budget re-opens a block per fetch
 * (W5: 14 blocks of 6.7 MB under a 64 MB cap ran single-row updates at
 * 1/20 of heap's rate, three quarters of the time in gathering stripes and
 * checking their checksums).
 * A caller must not keep the returned pointer across another call (which
 * may evict it, or move it when the entry array grows) unless it checks
 * readcache_gen, which every such call that drops or moves a reader
 * advances.
 *
 * Rows into slots, decoded on demand (qs_colreadcache_store_lazy): an
 * index, TID or bitmap fetch of a main row decoded every column of it
 * (5,000 instructions of a 10 x int4 row) when the query read one.  It now
 * stores no value: the slot (the table's own kind, a record slot,
 * include/page/recslot.h) gets a lazy source that remembers the reader,
 * the block's directory entry and the row's position, and decodes
 * attributes tts_nvalid .. natts - 1 when slot_getsomeattrs asks, as a
 * heap buffer slot deforms lazily.  The source checks readcache_gen
 * first: if a reader was dropped or moved since (another fetch evicted
 * it, an invalidation, the array grew), it looks its reader up again
 * through the relation, which a slot's reader has open while it reads the
 * slot (the executor clears scan slots before it closes relations); the
 * image is the same bytes (a block image never changes, and the entry's
 * run and length name it), so the values are those the fetch saw.  Its
 * by-reference values go into the source's own context, reset when the
 * slot takes its next lazy row, freed when the slot is released:
 * materialize (ExecMaterializeSlot, copies) reads every attribute first.
 * Nothing is pinned, so nothing leaks when an error abandons a slot.
 *
 * src/column/readcache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/options.h"
#include "column/readcache.h"
#include "page/recslot.h"

/* quickstep.column_fetch_cache, kB */
int			qs_column_fetch_cache = 256 * 1024;

typedef struct ReadCacheEnt
{
	bool		used;
	Oid			relid;
	RelFileLocator locator;
	uint32		block_id;
	BlockNumber run_start;
	uint32		npages;
	uint64		image_len;
	uint64		last_use;
	Size		bytes;			/* its memory when last counted */
	uint32		counted;		/* rr.grown then */
	MemoryContext cxt;			/* the descriptor copy, attributes, reader */
	QsColRowReader rr;
} ReadCacheEnt;

/* grown as readers are kept; at most one entry per open block */
static ReadCacheEnt *readcache;
static int	readcache_slots;
static uint64 readcache_clock;
static Size readcache_bytes;	/* the sum of the entries' 'bytes' */
static uint64 readcache_gen;	/* advanced when a reader is dropped or moves */
static bool readcache_registered;

static void
ent_drop(ReadCacheEnt *ent)
{
	if (!ent->used)
		return;
	ent->used = false;
	readcache_gen++;
	readcache_bytes -= ent->bytes;
	MemoryContextDelete(ent->cxt);
	ent->cxt = NULL;
}

/*
 * Account for readers' memory (columns open after a reader is looked up:
 * a fetch decodes, a lazy slot reads its attributes later, so an earlier
 * count may be a near-empty reader's), then free least recently used
 * readers other than 'keep' until under the cap.  So the cache holds at
 * most the cap plus what 'keep' opens until the next lookup.  A reader is
 * counted again only when it opened something since its last count
 * (rr.grown): MemoryContextMemAllocated walks a reader's contexts, and
 * counting every reader at every lookup took 5 % of TPC-H Q7's time at SF
 * 1 (121,324 index scans of lineitem, 41 blocks open).
 */
static void
readcache_trim(ReadCacheEnt *keep)
{
	for (int i = 0; i < readcache_slots; i++)
	{
		ReadCacheEnt *c = &readcache[i];

		if (c->used && (c->rr.grown != c->counted || c->bytes == 0))
		{
			readcache_bytes -= c->bytes;
			c->bytes = MemoryContextMemAllocated(c->cxt, true);
			c->counted = c->rr.grown;
			readcache_bytes += c->bytes;
		}
	}
	while (readcache_bytes > (Size) qs_column_fetch_cache * 1024)
	{
		ReadCacheEnt *lru = NULL;

		for (int i = 0; i < readcache_slots; i++)
		{
			ReadCacheEnt *c = &readcache[i];

			if (c->used && c != keep && (lru == NULL || c->last_use < lru->last_use))
				lru = c;
		}
		if (lru == NULL)
			return;
		ent_drop(lru);
	}
}

/*
 * qs_colreadcache_forget_rel
 *		Drop the readers of 'relid' now: its storage was truncated in place
 *		(a table created or given new storage in this transaction), where
 *		block ids and runs start over with the same relfilenode, so a new
 *		block could match an old reader's key, and no relcache invalidation
 *		need follow (none does without an index).
 */
void
qs_colreadcache_forget_rel(Oid relid)
{
	for (int i = 0; i < readcache_slots; i++)
		if (readcache[i].used && readcache[i].relid == relid)
			ent_drop(&readcache[i]);
}

static void
readcache_inval(Datum arg, Oid relid)
{
	for (int i = 0; i < readcache_slots; i++)
		if (readcache[i].used &&
			(!OidIsValid(relid) || readcache[i].relid == relid))
			ent_drop(&readcache[i]);
}

/*
 * qs_colreadcache_get
 *		An open reader of block 'e' of 'rel' (whose directory the caller read
 *		and found the block in), made now if no slot holds it.
 */
QsColRowReader *
qs_colreadcache_get(Relation rel, const QsColDirEntry *e)
{
	ReadCacheEnt *ent = NULL;
	MemoryContext cxt,
				old;
	TupleDesc	desc;
	QsColAttr  *attrs;

	if (!readcache_registered)
	{
		CacheRegisterRelcacheCallback(readcache_inval, (Datum) 0);
		readcache_registered = true;
	}
	for (int i = 0; i < readcache_slots; i++)
	{
		ReadCacheEnt *c = &readcache[i];

		if (c->used && c->relid == RelationGetRelid(rel) &&
			c->block_id == e->block_id && c->run_start == e->run_start &&
			c->npages == e->npages && c->image_len == e->image_len &&
			memcmp(&c->locator, &QS_REL_LOCATOR(rel), sizeof(RelFileLocator)) == 0 &&
			c->rr.natts == RelationGetDescr(rel)->natts)
		{
			c->last_use = ++readcache_clock;
			/* reads of columns not opened yet go through this relation */
			c->rr.h.rel = rel;
			/* the image is the same; the entry's xmin may have been frozen since */
			c->rr.h.entry = *e;
			readcache_trim(c);
			return &c->rr;
		}
	}

	/* a free slot, else a new one (the budget bounds how many are used) */
	for (int i = 0; i < readcache_slots; i++)
	{
		if (!readcache[i].used)
		{
			ent = &readcache[i];
			break;
		}
	}
	if (ent == NULL)
	{
		int			n = Max(readcache_slots * 2, 16);

		readcache = readcache == NULL ?
			MemoryContextAllocZero(TopMemoryContext, sizeof(ReadCacheEnt) * n) :
			repalloc(readcache, sizeof(ReadCacheEnt) * n);
		memset(readcache + readcache_slots, 0,
			   sizeof(ReadCacheEnt) * (n - readcache_slots));
		ent = &readcache[readcache_slots];
		readcache_slots = n;
		/* the readers handed out moved with the array */
		readcache_gen++;
	}

	/* made under the caller's context: an error frees it */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep column block reader",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	desc = CreateTupleDescCopyConstr(RelationGetDescr(rel));
	attrs = qs_colattrs(desc);
	qs_colretype_reading(rel, attrs);
	qs_colrows_open(rel, attrs, e, &ent->rr);
	MemoryContextSwitchTo(old);
	MemoryContextSetParent(cxt, TopMemoryContext);

	ent->cxt = cxt;
	ent->relid = RelationGetRelid(rel);
	ent->locator = QS_REL_LOCATOR(rel);
	ent->block_id = e->block_id;
	ent->run_start = e->run_start;
	ent->npages = e->npages;
	ent->image_len = e->image_len;
	ent->last_use = ++readcache_clock;
	ent->bytes = 0;
	ent->used = true;
	readcache_trim(ent);
	return &ent->rr;
}

/* ------------------------------------------------------------------------
 * Main rows decoded on demand in slots
 * ------------------------------------------------------------------------
 */

/* a slot's lazy source (recslot.h): the row it stored last */
typedef struct ColLazyRow
{
	QsRecLazy	base;
	MemoryContext valcxt;		/* the row's by-reference values */
	Relation	rel;			/* to look the reader up again */
	QsColDirEntry entry;		/* the row's block */
	QsColRowReader *rr;			/* its reader when readcache_gen was gen */
	uint64		gen;
	uint32		pos;			/* the row's position in the image */
} ColLazyRow;

static void
lazy_getsomeattrs(QsRecLazy *lazy, TupleTableSlot *slot, int natts)
{
	ColLazyRow *src = (ColLazyRow *) lazy;
	QsRecSlot  *rs = (QsRecSlot *) slot;
	const bool *want = rs->want;
	MemoryContext old;

	/* a bitmap page that needs no recheck: not the recheck's columns */
	if (rs->norecheck && rs->want_norecheck != NULL)
		want = rs->want_norecheck;
	if (src->gen != readcache_gen)
	{
		src->rr = qs_colreadcache_get(src->rel, &src->entry);
		src->gen = readcache_gen;
		if (src->rr->natts < natts)
			elog(ERROR, "column block %u of relation \"%s\" has %d attributes, the slot %d",
				 src->entry.block_id, RelationGetRelationName(src->rel),
				 src->rr->natts, natts);
	}
	old = MemoryContextSwitchTo(src->valcxt);
	/* the attributes the plan does not read stay NULL (fetchatts.c) */
	qs_colrows_get_atts(src->rr, src->pos, want, slot->tts_nvalid, natts,
						slot->tts_values, slot->tts_isnull);
	MemoryContextSwitchTo(old);
	slot->tts_nvalid = natts;
}

static void
lazy_release(QsRecLazy *lazy)
{
	ColLazyRow *src = (ColLazyRow *) lazy;

	MemoryContextDelete(src->valcxt);
	pfree(src);
}

/*
 * qs_colreadcache_store_lazy
 *		Store TID row 'row' of block 'e' of 'rel' (whose directory the caller
 *		read) into 'slot' with no attribute decoded yet: cleared, then the
 *		row's lazy source and the slot marked full; the caller sets its TID
 *		and header.  False when the slot cannot read rows so (not the
 *		table's own kind with the relation's attributes, as the cached
 *		readers are): nothing is done then.
 */
bool
qs_colreadcache_store_lazy(Relation rel, const QsColDirEntry *e, uint32 row,
						   TupleTableSlot *slot)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;
	QsColRowReader *rr;
	ColLazyRow *src;

	if (slot->tts_ops != table_slot_callbacks(rel) ||
		slot->tts_tupleDescriptor->natts != RelationGetDescr(rel)->natts)
		return false;
	rr = qs_colreadcache_get(rel, e);
	if (row >= rr->h.blk.nrows)
		elog(ERROR, "row %u of column block %u is past its %u rows", row,
			 e->block_id, rr->h.blk.nrows);
	ExecClearTuple(slot);
	if (rs->lazy == NULL)
	{
		src = MemoryContextAllocZero(slot->tts_mcxt, sizeof(ColLazyRow));
		src->base.getsomeattrs = lazy_getsomeattrs;
		src->base.release = lazy_release;
		src->valcxt = AllocSetContextCreate(slot->tts_mcxt,
											"quickstep column row values",
											ALLOCSET_SMALL_SIZES);
		rs->lazy = &src->base;
	}
	Assert(rs->lazy->getsomeattrs == lazy_getsomeattrs);
	src = (ColLazyRow *) rs->lazy;
	MemoryContextReset(src->valcxt);
	src->rel = rel;
	src->entry = *e;
	src->rr = rr;
	src->gen = readcache_gen;
	src->pos = qs_colrows_pos(rr, row);
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	slot->tts_nvalid = 0;
	return true;
}
