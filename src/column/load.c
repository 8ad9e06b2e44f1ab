/*-------------------------------------------------------------------------
 *
 * load.c
 *	  Bulk loads straight into main (README section 6): the rows COPY
 *	  hands to multi_insert, and INSERT … SELECT / CREATE TABLE AS to
 *	  tuple_insert, become column blocks, not delta rows.
 *
 * The first quickstep.column_delta_rows rows a command loads into a table go
 * to the delta (a small COPY stays row-format, for the merge to take);
 * later rows are buffered per backend, in the transaction's memory, until
 * a block is full (the table's quickstep.rows_per_block, by default
 * QS_COL_LOAD_BLOCK_ROWS, rows or QS_COL_LOAD_BLOCK_BYTES bytes), then
 * encoded and written as one sealed block whose directory
 * entry carries the loading (sub)transaction's xid and command id: its
 * rows are visible exactly when a heap tuple inserted by that command
 * would be, and never if it aborts.  Memory is bounded by one block
 * whatever the size of the load.
 *
 * A buffered row already has its virtual TID (the block's TID range is
 * reserved when buffering starts), because COPY inserts index entries and
 * queues AFTER ROW triggers right after multi_insert returns.  Everything
 * that could read this backend's buffered rows goes through the AM, which
 * flushes them first: scans (qs_colload_flush_rel), and fetches by TID
 * (trigger tuples, unique checks, DML's old rows: qs_colload_flush_tid,
 * only when the TID is one of the buffered rows; every flush moves
 * qs_colload_flushes(), which tells a kept directory it is out of date).
 * Other backends cannot see them (they are not committed).  The buffer is also flushed when the load
 * moves to another table or command, at subtransaction commit and before
 * commit or PREPARE; it is dropped at (sub)transaction abort and by
 * TRUNCATE of the table.  An aborted load leaves a run and a directory
 * entry no snapshot sees; index entries pointing into its range find no
 * row.
 *
 * At wal_level = logical every row loaded into a block is also logged as
 * the logical insert record the delta's inserts write (src/wal/logical.c),
 * its values inline (TOASTed values flattened: a block holds them whole),
 * so that logical decoding sees the load as heap's would; the block's
 * pages carry no decodable change.
 *
 * The table's options (options.c) are read when a block starts, so an
 * ALTER TABLE … SET applies from the next block on.  A block is sorted on
 * quickstep.sort_key only when nobody can have kept a buffered row's TID:
 * its position changes with the sort.  COPY, CREATE TABLE AS and
 * materialized views (multi_insert, or tuple_insert with a bulk insert
 * state) into a table without indexes and without AFTER ROW INSERT
 * triggers hand TIDs to no one; INSERT (tuple_insert without one) may
 * return ctid, index entries and queued trigger events hold TIDs.  Such
 * blocks stay in arrival order, for the seal to sort (README section 4.5).
 *
 * A load that may sort sorts the whole command's block-bound rows, not
 * each block alone (issue 13): they go to a tuplesort (load_sort_begin:
 * the key's default btree order and collation, NULLs last, ties in arrival
 * order; maintenance_work_mem, as CLUSTER's) instead of a block, and a
 * flush point emits them (load_sort_emit) cut into blocks whose TID
 * ranges are reserved only then: no TID was handed out.  The flush points
 * and the abort rules above apply unchanged; memory is then bounded by
 * maintenance_work_mem plus one block, the rest in temporary files owned
 * by the subtransaction that fed the sort.  A row that must show its TID
 * in the middle of such a command first emits what is sorted.  Logical
 * insert records are written as rows are fed, exactly once each, in the
 * feeding (sub)transaction: they carry no TID.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "pgstat.h"
#include "storage/predicate.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/reltrigger.h"
#include "utils/resowner.h"
#include "utils/tuplesort.h"
#include "utils/typcache.h"

#include "column/colam.h"
#include "core/quickstep.h"
#include "column/colstore.h"
#include "column/options.h"
#include "page/recslot.h"
#include "tableam/engine_int.h"
#include "wal/qsxlog.h"

typedef struct ColLoad
{
	Oid			relid;
	CommandId	cid;
	SubTransactionId subid;
	uint64		cmd_rows;		/* rows this command loaded into relid */
	bool		active;			/* rows buffered for a main block */
	TransactionId xid;
	uint32		block_id;
	uint32		range;
	MemoryContext cxt;			/* the builder's arrays, kept across blocks */
	MemoryContext tmpcxt;		/* one block's encoding */
	bool		have_builder;
	QsColBuilder builder;

	/*
	 * The runs' pages go through a bulk-write ring, as heap's COPY pages
	 * do, so that a big load does not evict the buffer cache (in cxt).
	 */
	BufferAccessStrategy strategy;
	QsColLoadOptions opts;		/* read when the block started */
	bool		tids_exposed;	/* a row of the block went to INSERT */
	bool		delta_only;		/* exclusion constraint, or no columns */
	bool		size_check;		/* rows may be too big for a row page */

	/*
	 * The command's rows sorted as a whole on the sort key before they are
	 * cut into blocks (load_sort_begin): a tuplesort of the table's columns
	 * and each row's arrival number, which breaks ties as the per-block sort
	 * does (stable).  Its memory is under cxt, its temporary files under
	 * sort_owner, the resource owner of the subtransaction that began it,
	 * whatever portal is running when rows are put or read.  No block is
	 * active while it is; its rows have no TID yet.
	 */
	Tuplesortstate *sort;
	ResourceOwner sort_owner;
	TupleTableSlot *sort_in;	/* virtual: a row and its arrival number */
	TupleTableSlot *sort_out;	/* minimal: what the sort gives back */
	MemoryContext rowcxt;		/* one row's flattened values */
	int64		sort_seq;
	bool		sort_emitting;	/* an emission began and did not finish */
} ColLoad;

static ColLoad load;
static bool callbacks_registered = false;
static uint64 load_flushes = 0;		/* blocks this backend published */

/*
 * Forget the load.  'aborting': the (sub)transaction that began a sort is
 * aborting, and its resource owner closes the sort's temporary files right
 * after (a tuplesort an error left inconsistent is not touched); otherwise
 * the sort is ended here.  Its memory goes with cxt either way.
 */
static void
load_reset(bool aborting)
{
	if (load.sort != NULL && !aborting)
	{
		ResourceOwner oldowner = CurrentResourceOwner;

		CurrentResourceOwner = load.sort_owner;
		tuplesort_end(load.sort);
		CurrentResourceOwner = oldowner;
	}
	if (load.cxt)
		MemoryContextDelete(load.cxt);
	memset(&load, 0, sizeof(load));
}

/*
 * May this block's rows change position?  Only if no TID of them can have
 * been handed out (see the file header).
 */
static bool
load_may_sort(Relation rel)
{
	if (load.opts.sort_col < 0 || load.tids_exposed)
		return false;
	if (rel->rd_rel->relhasindex)
		return false;
	if (rel->trigdesc && rel->trigdesc->trig_insert_after_row)
		return false;
	return true;
}

static void
load_flush(Relation rel)
{
	MemoryContext old;
	uint8	   *image;
	size_t		image_len;
	QsColDirEntry e;
	uint32		nrows = load.builder.nrows;

	Assert(load.active && RelationGetRelid(rel) == load.relid);
	load_flushes++;
	if (nrows == 0)
	{
		/* nothing to publish: the pending entry is retired */
		memset(&e, 0, sizeof(e));
		e.block_id = load.block_id;
		e.state = QS_COLBLK_RETIRED;
		e.tid_range = load.range;
		e.xmin = load.xid;
		e.cid = load.cid;
		e.delmap_root = InvalidBlockNumber;
		qs_coldir_publish(rel, &e);
		load.active = false;
		load.tids_exposed = false;
		return;
	}
	/*
	 * A load at a later command of its transaction keeps that command as
	 * its rows' origin command id (one run of the origin xmins, 20 bytes):
	 * VACUUM's freeze puts the loader's xid where the directory kept the
	 * command (qs_coldir_freeze), and heap's frozen tuples keep their t_cid
	 * for cmin and cmax (issue 12, src/column/README.md section 4.1).  A
	 * load at command 0, the common case (COPY in a transaction of its
	 * own), pays nothing: 0 is what a row without origin shows once frozen.
	 */
	if (load.cid != FirstCommandId)
		for (uint32 r = 0; r < nrows; r++)
			qs_colbuilder_set_origin(&load.builder, r, load.xid, load.cid);
	old = MemoryContextSwitchTo(load.tmpcxt);
	/* a load writes sealed blocks: they get their index sub-blocks now */
	load.builder.index_cols = load.opts.index_cols;
	image = qs_colbuilder_build_opts(&load.builder, rel, load.block_id,
									 load_may_sort(rel) ? load.opts.sort_col : -1,
									 load.opts.enc_mask, &image_len);
	memset(&e, 0, sizeof(e));
	e.block_id = load.block_id;
	e.state = QS_COLBLK_SEALED;
	e.npages = qs_colblock_npages(image_len);
	e.run_start = qs_colrun_write(rel, load.block_id, image, image_len,
								  load.strategy);
	qs_colbuilder_image_done(&load.builder, image);
	e.tid_range = load.range;
	e.nrows = nrows;
	e.published = nrows;
	e.xmin = load.xid;
	e.cid = load.cid;
	e.image_len = image_len;
	e.delmap_root = InvalidBlockNumber;
	qs_coldir_publish(rel, &e);
	MemoryContextSwitchTo(old);

	/* keep the command's counters and the arrays; the next rows start a new block */
	MemoryContextReset(load.tmpcxt);
	qs_colbuilder_reset(&load.builder);
	load.builder.index_cols = NULL;	/* pointed into tmpcxt's options */
	load.active = false;
	load.tids_exposed = false;
	memset(&load.opts, 0, sizeof(load.opts));
}

/*
 * The answer of qs_col_has_exclusion_index per relation OID, kept until a
 * relcache invalidation of the relation.  Asked at every INSERT statement
 * (load_switch), opening each index cost 2,318 instructions per W5 write
 * transaction (callgrind, commit 1688f35).  The cache is exactly as
 * fresh as the relcache's index list (RelationGetIndexList), which the
 * same invalidation messages reset:
 * index_create and index_drop send one for the table, and an exclusion
 * index comes and goes only with its constraint, under the table's
 * AccessExclusiveLock, which every caller's lock waits for and whose
 * acquisition processes the messages.  A sinval reset (relid invalid)
 * empties it.  An answer computed while a message arrived (the index
 * opens accept invalidations) is returned but not kept.
 */
typedef struct ExclCacheEnt
{
	Oid			relid;			/* hash key */
	bool		has_exclusion;
} ExclCacheEnt;

static HTAB *excl_cache = NULL;
static uint64 excl_invals = 0;	/* messages seen: an answer computed across one is not kept */

static void
excl_cache_inval(Datum arg, Oid relid)
{
	excl_invals++;
	if (OidIsValid(relid))
		hash_search(excl_cache, &relid, HASH_REMOVE, NULL);
	else
	{
		HASH_SEQ_STATUS status;
		ExclCacheEnt *ent;

		/* removing the element just returned is allowed (dynahash.c) */
		hash_seq_init(&status, excl_cache);
		while ((ent = hash_seq_search(&status)) != NULL)
			hash_search(excl_cache, &ent->relid, HASH_REMOVE, NULL);
	}
}

/*
 * Exclusion constraints recheck a lossy index match on the existing row's
 * values, which a row still buffered by another backend's load cannot show
 * (a unique check only needs to know that a loader is at work: see
 * qs_coldir_pending_visible): such tables load into the delta.
 */
bool
qs_col_has_exclusion_index(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	ExclCacheEnt *ent;
	List	   *indexes;
	ListCell   *lc;
	bool		found = false;
	uint64		invals;

	if (excl_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(ExclCacheEnt);
		excl_cache = hash_create("quickstep column exclusion indexes", 64,
								 &ctl, HASH_ELEM | HASH_BLOBS);
		CacheRegisterRelcacheCallback(excl_cache_inval, (Datum) 0);
	}
	ent = hash_search(excl_cache, &relid, HASH_FIND, NULL);
	if (ent != NULL)
		return ent->has_exclusion;

	invals = excl_invals;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	ind = index_open(lfirst_oid(lc), AccessShareLock);

		if (ind->rd_index->indisexclusion)
			found = true;
		index_close(ind, AccessShareLock);
	}
	list_free(indexes);
	if (invals == excl_invals)
	{
		ent = hash_search(excl_cache, &relid, HASH_ENTER, NULL);
		ent->has_exclusion = found;
	}
	return found;
}

static void load_flush_any(Relation rel);

static void
load_flush_by_oid(void)
{
	Relation	rel;

	if (!load.active && load.sort == NULL)
		return;
	/*
	 * The loading transaction still holds its RowExclusiveLock, unless it
	 * dropped the table since (DROP TABLE does not pass through the AM):
	 * then the buffered rows go with it.
	 */
	rel = try_relation_open(load.relid, NoLock);
	if (rel == NULL)
	{
		load_reset(false);
		return;
	}
	load_flush_any(rel);
	relation_close(rel, NoLock);
}

void
qs_colload_flush_rel(Relation rel)
{
	if ((load.active || load.sort != NULL) &&
		load.relid == RelationGetRelid(rel))
		load_flush_any(rel);
}

/*
 * Only if the row at 'tid' is one this backend still buffers: a fetch by TID
 * reads that one row, and the load's other rows must not be written early.
 * (A load's unique checks fetch every conflicting index entry: flushing the
 * whole buffer for each wrote one block per row when a load's keys collided
 * with a rolled-back load's index entries.)
 */
void
qs_colload_flush_tid(Relation rel, ItemPointer tid)
{
	uint32		range,
				row;

	if (load.active && load.relid == RelationGetRelid(rel) &&
		qs_virt_decode(tid, &range, &row) && range == load.range)
		load_flush(rel);
}

/*
 * How many times this backend published a loaded block (or retired its
 * empty reservation): a directory read before a change of the count may
 * miss a block of this transaction's own that it sees now.
 */
uint64
qs_colload_flushes(void)
{
	return load_flushes;
}

/*
 * Everything this backend buffers, whatever the table: before ANALYZE, which
 * reads the table's size before its scan begins (the scan's flush would
 * write the block beyond the sampled range).
 */
void
qs_colload_flush_all(void)
{
	load_flush_by_oid();
}

void
qs_colload_forget_rel(Relation rel)
{
	if (load.relid == RelationGetRelid(rel))
		load_reset(false);
}

static void
load_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			load_flush_by_oid();
			load_reset(false);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			/* the memory went with the transaction's context */
			load.cxt = NULL;
			load_reset(true);
			break;
	}
}

static void
load_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					  SubTransactionId parentSubid, void *arg)
{
	if (load.subid != mySubid || load.relid == InvalidOid)
		return;
	switch (event)
	{
		case SUBXACT_EVENT_PRE_COMMIT_SUB:
			load_flush_by_oid();
			load.subid = parentSubid;
			break;
		case SUBXACT_EVENT_ABORT_SUB:
			load_reset(true);
			break;
		default:
			break;
	}
}

/*
 * Start buffering a block for rel (flushing whatever else is buffered),
 * or keep counting this command's rows.
 */
static void
load_switch(Relation rel, CommandId cid)
{
	if (!callbacks_registered)
	{
		RegisterXactCallback(load_xact_callback, NULL);
		RegisterSubXactCallback(load_subxact_callback, NULL);
		callbacks_registered = true;
	}
	if (load.relid == RelationGetRelid(rel) && load.cid == cid &&
		load.subid == GetCurrentSubTransactionId())
		return;
	load_flush_by_oid();
	load_reset(false);
	load.relid = RelationGetRelid(rel);
	load.cid = cid;
	load.subid = GetCurrentSubTransactionId();
	/* a column block has at least one column: a table of none loads into the delta */
	load.delta_only = RelationGetDescr(rel)->natts == 0 ||
		qs_col_has_exclusion_index(rel);
}

/*
 * The header a loaded row's system columns read from the caller's slot
 * (INSERT ... RETURNING xmin, PG 17+'s is_current_xact_tuple), as the
 * delta's insert writes it on the slot's tuple: the loading xid and
 * command, no xmax, t_ctid = the row's TID.  Without it they showed the
 * zero header of a new slot (RETURNING xmin gave 0).
 */
static void
set_slot_header(Relation rel, TupleTableSlot *slot)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;
	QsColDirEntry pe;

	if (slot->tts_ops != table_slot_callbacks(rel))
		return;
	memset(&pe, 0, sizeof(pe));
	pe.xmin = load.xid;
	pe.cid = load.cid;
	qs_colmain_default_header(&pe, &slot->tts_tid, &rs->hdr);
	if (rs->tuple)
	{
		/* a tuple already formed from the slot: system columns read its header */
		HeapTupleHeader t = rs->tuple->t_data;

		t->t_choice = rs->hdr.t_choice;
		t->t_ctid = rs->hdr.t_ctid;
		t->t_infomask = (t->t_infomask & ~HEAP_XACT_MASK) |
			(rs->hdr.t_infomask & HEAP_XACT_MASK);
		t->t_infomask2 &= ~HEAP2_XACT_MASK;
		rs->tuple->t_self = slot->tts_tid;
		rs->tuple->t_tableOid = slot->tts_tableOid;
	}
}

/*
 * Can a row of rel be too big for a row page even after TOAST?  Only with
 * a STORAGE PLAIN variable-width column (never moved out of line), or
 * fixed-width columns that alone fill a page.
 */
static bool
rows_may_be_too_big(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Size		fixed = MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(desc->natts));

	for (int c = 0; c < desc->natts; c++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, c);

		if (a->attisdropped)
			continue;
		if (a->attlen == -1 && a->attstorage == TYPSTORAGE_PLAIN)
			return true;
		fixed += a->attlen > 0 ? a->attlen : TOAST_POINTER_SIZE;
	}
	return fixed > MaxHeapTupleSize;
}

/*
 * Refuse a row heap refuses ("row is too big"): a block would take it, but
 * its next version goes to the delta, where an UPDATE of any of its
 * columns, and ALTER TABLE ... SET ACCESS METHOD, would then fail.  Sized
 * as heap forms it (heap_compute_data_size: short varlena headers, no
 * alignment for them, a null bitmap only with a NULL), PLAIN values
 * detoasted as heap's toaster does; only a row over the limit is sized
 * again as TOAST would leave it, every non-PLAIN value larger than a TOAST
 * pointer replaced by one (what heap_toast_insert_or_update moves out of
 * line last), so no row heap stores is refused.
 */
static void
check_row_size(Relation rel, TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	Datum	   *values = slot->tts_values;
	bool	   *isnull = slot->tts_isnull;
	bool		hasnull = false;
	Datum	   *tv = NULL;
	Size		hoff;
	Size		size;

	slot_getallattrs(slot);
	for (int c = 0; c < desc->natts; c++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, c);

		if (isnull[c])
			hasnull = true;
		else if (a->attlen == -1 && a->attstorage == TYPSTORAGE_PLAIN &&
				 VARATT_IS_EXTENDED(DatumGetPointer(values[c])))
		{
			if (tv == NULL)
			{
				tv = palloc(sizeof(Datum) * desc->natts);
				memcpy(tv, values, sizeof(Datum) * desc->natts);
			}
			tv[c] = PointerGetDatum(detoast_attr((struct varlena *) DatumGetPointer(values[c])));
		}
	}
	if (tv != NULL)
		values = tv;
	hoff = MAXALIGN(SizeofHeapTupleHeader + (hasnull ? BITMAPLEN(desc->natts) : 0));
	size = hoff + heap_compute_data_size(desc, values, isnull);
	if (size > MaxHeapTupleSize)
	{
		/* an external TOAST pointer: heap_compute_data_size reads its size only */
		union
		{
			char		b[TOAST_POINTER_SIZE];
			int32		align;
		}			ptr;

		memset(&ptr, 0, sizeof(ptr));
		SET_VARTAG_EXTERNAL(ptr.b, VARTAG_ONDISK);
		if (tv == NULL)
		{
			tv = palloc(sizeof(Datum) * desc->natts);
			memcpy(tv, values, sizeof(Datum) * desc->natts);
		}
		for (int c = 0; c < desc->natts; c++)
		{
			Form_pg_attribute a = TupleDescAttr(desc, c);

			if (!isnull[c] && a->attlen == -1 && a->attstorage != TYPSTORAGE_PLAIN &&
				VARSIZE_ANY(DatumGetPointer(tv[c])) > MAXALIGN(TOAST_POINTER_SIZE))
				tv[c] = PointerGetDatum(ptr.b);
		}
		size = hoff + heap_compute_data_size(desc, tv, isnull);
		if (size > MaxHeapTupleSize)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("row is too big: size %zu, maximum size %zu",
							size, (Size) MaxHeapTupleSize)));
	}
	if (tv != NULL)
		pfree(tv);
}

/* The load's memory contexts and block builder, made at its first row. */
static void
load_cxt_init(Relation rel)
{
	if (load.cxt == NULL)
	{
		load.cxt = AllocSetContextCreate(TopTransactionContext,
										 "quickstep column load",
										 ALLOCSET_DEFAULT_SIZES);
		load.tmpcxt = AllocSetContextCreate(load.cxt,
											"quickstep column block encoding",
											ALLOCSET_DEFAULT_SIZES);
	}
	if (!load.have_builder)
	{
		MemoryContext old = MemoryContextSwitchTo(load.cxt);

		qs_colbuilder_init(&load.builder, rel,
						   qs_colattrs(RelationGetDescr(rel)));
		qs_colbuilder_keep_scratch(&load.builder);
		load.strategy = GetAccessStrategy(BAS_BULKWRITE);
		MemoryContextSwitchTo(old);
		load.have_builder = true;
	}
}

/*
 * Start a block of rows of transaction xid: the loader's current one, or,
 * for a sorted load's blocks, the one that fed the sort (the flush may run
 * in a subtransaction of it, or at its commit).
 */
static void
load_block_start(Relation rel, TransactionId xid)
{
	load_cxt_init(rel);
	load.xid = xid;
	load.active = true;

	/*
	 * A PENDING entry now, before any row of the block has a TID: a
	 * concurrent unique check that finds the index entry of a buffered row
	 * sees the loader at work in it and waits for it, as for a heap tuple
	 * being inserted (qs_coldir_pending_visible).
	 */
	{
		QsColDirEntry pe;

		memset(&pe, 0, sizeof(pe));
		pe.state = QS_COLBLK_SEALED;
		pe.flags = QS_COLDIR_PENDING;
		pe.run_start = InvalidBlockNumber;
		pe.xmin = load.xid;
		pe.cid = load.cid;
		pe.delmap_root = InvalidBlockNumber;
		/* reserved with the entry: qs_colrun_sweep relies on it */
		qs_coldir_append_reserved(rel, &pe);
		load.block_id = pe.block_id;
		load.range = pe.tid_range;
	}

	/* this block's options; tmpcxt is reset after the block is written */
	{
		MemoryContext old = MemoryContextSwitchTo(load.tmpcxt);

		qs_colopts_for_load(rel, load.builder.attrs, &load.opts);
		MemoryContextSwitchTo(old);
	}
}

/* the row goes to the active block, which is written once full */
static inline void
load_block_add(Relation rel, TupleTableSlot *slot)
{
	qs_virt_tid(load.range, load.builder.nrows, &slot->tts_tid);
	qs_colbuilder_add(&load.builder, slot);
	if (load.builder.nrows >= (uint32) load.opts.rows_per_block ||
		load.builder.bytes >= QS_COL_LOAD_BLOCK_BYTES)
		load_flush(rel);
}

/*
 * Should the command's rows into rel be sorted as a whole?  When the block
 * would be sorted (load_may_sort: no TID of a row can be handed out) and
 * the sort key's type has a default btree "<" (the order of the per-block
 * sort, qs_colattrs).  Returns the "<" operator, or InvalidOid.
 */
static Oid
load_sort_operator(Relation rel, int *sort_col)
{
	QsColLoadOptions opts;
	MemoryContext old;
	TypeCacheEntry *tc;

	if (rel->rd_rel->relhasindex ||
		(rel->trigdesc && rel->trigdesc->trig_insert_after_row))
		return InvalidOid;
	/* the options as a block would read them; tmpcxt is reset per block */
	old = MemoryContextSwitchTo(load.tmpcxt);
	qs_colopts_for_load(rel, load.builder.attrs, &opts);
	MemoryContextSwitchTo(old);
	if (opts.sort_col < 0 || opts.sort_col >= RelationGetDescr(rel)->natts ||
		!load.builder.attrs[opts.sort_col].has_order)
		return InvalidOid;
	tc = lookup_type_cache(TupleDescAttr(RelationGetDescr(rel), opts.sort_col)->atttypid,
						   TYPECACHE_LT_OPR);
	*sort_col = opts.sort_col;
	return tc->lt_opr;
}

/*
 * Begin sorting the command's rows: a tuplesort bounded by
 * maintenance_work_mem, as CLUSTER's, spilling to temporary files beyond.
 * Keys: the sort column (its type's default "<", its collation, NULLs
 * last), then the arrival number, so equal keys keep their arrival order
 * as the per-block sort keeps them.
 */
static bool
load_sort_begin(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			natts = desc->natts;
	int			sort_col = -1;
	Oid			ltop;
	TupleDesc	sdesc;
	AttrNumber	keys[2];
	Oid			ops[2];
	Oid			colls[2];
	bool		nulls_first[2] = {false, false};
	MemoryContext old;
	ResourceOwner oldowner = CurrentResourceOwner;

	load_cxt_init(rel);
	ltop = load_sort_operator(rel, &sort_col);
	if (!OidIsValid(ltop))
		return false;

	old = MemoryContextSwitchTo(load.cxt);
	sdesc = CreateTemplateTupleDesc(natts + 1);
	for (int c = 0; c < natts; c++)
		TupleDescCopyEntry(sdesc, c + 1, desc, c + 1);
	TupleDescInitEntry(sdesc, natts + 1, "quickstep_arrival", INT8OID, -1, 0);
	keys[0] = sort_col + 1;
	ops[0] = ltop;
	colls[0] = TupleDescAttr(desc, sort_col)->attcollation;
	keys[1] = natts + 1;
	ops[1] = Int8LessOperator;
	colls[1] = InvalidOid;

	/*
	 * COPY, CREATE TABLE AS and materialized views write the sort out at
	 * the end of their statement (finish_bulk_insert), in the
	 * subtransaction that fed it, so the sort never outlives it; its files
	 * belong to that subtransaction rather than to the portal (which goes
	 * at the end of the statement) as a safety net: flushed at its commit,
	 * dropped at its abort (review helper-196).
	 */
	load.sort_owner = CurTransactionResourceOwner;
	CurrentResourceOwner = load.sort_owner;
	load.sort = tuplesort_begin_heap(sdesc, 2, keys, ops, colls, nulls_first,
									 maintenance_work_mem, NULL,
									 TUPLESORT_NONE);
	CurrentResourceOwner = oldowner;
	load.sort_in = MakeSingleTupleTableSlot(sdesc, &TTSOpsVirtual);
	load.sort_out = MakeSingleTupleTableSlot(sdesc, &TTSOpsMinimalTuple);
	load.rowcxt = AllocSetContextCreate(load.cxt, "quickstep column load row",
										ALLOCSET_SMALL_SIZES);
	MemoryContextSwitchTo(old);
	load.sort_seq = 0;
	/* the blocks are written later, maybe in a subtransaction: the rows' xid now */
	load.xid = GetCurrentTransactionId();
	load.size_check = rows_may_be_too_big(rel);
	return true;
}

/* one row into the sort, its values whole */
static void
load_sort_put(Relation rel, TupleTableSlot *slot)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			natts = desc->natts;
	TupleTableSlot *in = load.sort_in;
	MemoryContext old;
	ResourceOwner oldowner = CurrentResourceOwner;

	slot_getallattrs(slot);
	MemoryContextReset(load.rowcxt);
	old = MemoryContextSwitchTo(load.rowcxt);
	ExecClearTuple(in);
	for (int c = 0; c < natts; c++)
	{
		Datum		d = slot->tts_values[c];

		/*
		 * A TOAST pointer (CREATE TABLE AS's source rows) may point at
		 * nothing by the time the sort is read, at commit: the value goes
		 * in whole, as a block would hold it.
		 */
		if (!slot->tts_isnull[c] && TupleDescAttr(desc, c)->attlen == -1 &&
			VARATT_IS_EXTERNAL(DatumGetPointer(d)))
			d = PointerGetDatum(detoast_external_attr((struct varlena *) DatumGetPointer(d)));
		in->tts_values[c] = d;
		in->tts_isnull[c] = slot->tts_isnull[c];
	}
	in->tts_values[natts] = Int64GetDatum(load.sort_seq);
	in->tts_isnull[natts] = false;
	load.sort_seq++;
	ExecStoreVirtualTuple(in);
	CurrentResourceOwner = load.sort_owner;
	tuplesort_puttupleslot(load.sort, in);
	CurrentResourceOwner = oldowner;
	MemoryContextSwitchTo(old);
}

/* an emission an error cut short: the rows cannot be written any more */
static void
report_failed_emit(Relation rel)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot write the rows loaded into table \"%s\"",
					RelationGetRelationName(rel)),
			 errdetail("Writing them failed earlier in this transaction.")));
}

/*
 * Sort what was fed and write it as blocks, each with its TID range
 * reserved now (no TID of these rows was handed out).  An emission that an
 * error cut short cannot be resumed (the sort is partly read, a block
 * partly built): the transaction must not commit with the rows missing.
 */
static void
load_sort_emit(Relation rel)
{
	ResourceOwner oldowner = CurrentResourceOwner;
	Tuplesortstate *sort = load.sort;
	TupleTableSlot *out = load.sort_out;

	Assert(sort != NULL && !load.active && RelationGetRelid(rel) == load.relid);
	if (load.sort_emitting)
		report_failed_emit(rel);
	load.sort_emitting = true;
	CurrentResourceOwner = load.sort_owner;
	tuplesort_performsort(sort);
	CurrentResourceOwner = oldowner;
	for (;;)
	{
		bool		got;

		CurrentResourceOwner = load.sort_owner;
		got = tuplesort_gettupleslot(sort, true, false, out, NULL);
		CurrentResourceOwner = oldowner;
		if (!got)
			break;
		if (!load.active)
			load_block_start(rel, load.xid);
		load_block_add(rel, out);
		CHECK_FOR_INTERRUPTS();
	}
	if (load.active)
		load_flush(rel);
	ExecClearTuple(out);
	CurrentResourceOwner = load.sort_owner;
	tuplesort_end(sort);
	CurrentResourceOwner = oldowner;
	load.sort = NULL;
	ExecDropSingleTupleTableSlot(load.sort_in);
	ExecDropSingleTupleTableSlot(load.sort_out);
	load.sort_in = load.sort_out = NULL;
	MemoryContextDelete(load.rowcxt);
	load.rowcxt = NULL;
	load.sort_emitting = false;
}

/* everything this backend holds of rel's rows: the sort's, then a block's */
static void
load_flush_any(Relation rel)
{
	if (load.sort != NULL)
		load_sort_emit(rel);
	if (load.active)
		load_flush(rel);
}

/*
 * Buffer one row for the main block being built (its TID set now), or
 * feed it to the command's sort (no TID yet); exposed: the caller may show
 * the TID to someone (INSERT … RETURNING).
 */
static void
load_buffer_slot(Relation rel, TupleTableSlot *slot, bool exposed)
{
	/* not into a sort an error left half read (tuplesort's own error) */
	if (load.sort_emitting)
		report_failed_emit(rel);
	if (load.sort == NULL && !load.active && !exposed)
		(void) load_sort_begin(rel);
	/* this row's TID will be seen: what is sorted goes first */
	if (load.sort != NULL && exposed)
		load_sort_emit(rel);
	if (load.sort == NULL && !load.active)
	{
		load_block_start(rel, GetCurrentTransactionId());
		load.size_check = rows_may_be_too_big(rel);
	}
	if (load.size_check)
		check_row_size(rel, slot);
	slot->tts_tableOid = RelationGetRelid(rel);
	pgstat_count_heap_insert(rel, 1);
	load.cmd_rows++;
	if (load.sort != NULL)
	{
		load_sort_put(rel, slot);
		/* nobody reads it (no index, no AFTER ROW trigger, no RETURNING) */
		ItemPointerSetInvalid(&slot->tts_tid);
		return;
	}
	load.tids_exposed |= exposed;
	/* the TID first: the header and the slot's tuple show it */
	qs_virt_tid(load.range, load.builder.nrows, &slot->tts_tid);
	set_slot_header(rel, slot);
	load_block_add(rel, slot);
}

/*
 * At wal_level = logical: the rows just buffered for a block, as logical
 * insert records with their values inline, as decoding of the delta's
 * inserts reads them.
 */
static void
log_logical_rows(Relation rel, TupleTableSlot **slots, int n)
{
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple  *tups = palloc(sizeof(HeapTuple) * n);

	for (int k = 0; k < n; k++)
	{
		HeapTuple	t = ExecCopySlotHeapTuple(slots[k]);

		if (HeapTupleHasExternal(t))
		{
			HeapTuple	flat = toast_flatten_tuple(t, desc);

			heap_freetuple(t);
			t = flat;
		}
		t->t_self = slots[k]->tts_tid;
		t->t_tableOid = RelationGetRelid(rel);
		tups[k] = t;
	}
	if (n == 1)
		qs_log_logical_insert(rel, tups[0], false);
	else
		qs_log_logical_multi_insert(rel, tups, n, true);
	for (int k = 0; k < n; k++)
		heap_freetuple(tups[k]);
	pfree(tups);
}

void
qs_col_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
					CommandId cid, int options,
					struct BulkInsertStateData *bistate)
{
	int			i = 0;

	int			first;

	if (ntuples <= 0)
		return;
	load_switch(rel, cid);
	if (load.delta_only)
	{
		qs_multi_insert(rel, slots, ntuples, cid, options, bistate);
		return;
	}

	/*
	 * A command's first quickstep.column_delta_rows rows go to the delta
	 * (small loads do not make small blocks), unless one batch alone has
	 * that many: COPY hands its rows over in batches of 1,000 rows or 64 kB
	 * of input, so a big COPY of short lines goes into blocks from its
	 * first row; one of longer lines leaves its first 1,000 rows in the
	 * delta (src/column/README.md section 6).
	 */
	if (load.cmd_rows < (uint64) qs_column_delta_rows &&
		ntuples < qs_column_delta_rows)
	{
		int			n = (int) Min((uint64) ntuples,
								  (uint64) qs_column_delta_rows - load.cmd_rows);

		qs_multi_insert(rel, slots, n, cid, options, bistate);
		load.cmd_rows += n;
		i = n;
	}
	if (i >= ntuples)
		return;

	/* one relation-level check, as heap_multi_insert does */
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
	first = i;
	for (; i < ntuples; i++)
		load_buffer_slot(rel, slots[i], false);
	if (qs_logical_wanted(rel))
		log_logical_rows(rel, slots + first, ntuples - first);
}

/*
 * tuple_insert: INSERT … SELECT, CREATE TABLE AS and materialized views
 * load row by row; past the first rows of a command, as COPY does.
 * Speculative insertions (ON CONFLICT) always go to the delta.
 */
void
qs_col_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
					int options, struct BulkInsertStateData *bistate)
{
	load_switch(rel, cid);
	if (load.delta_only || load.cmd_rows < (uint64) qs_column_delta_rows)
	{
		qs_tuple_insert(rel, slot, cid, options, bistate);
		load.cmd_rows++;
		return;
	}
	/* as heap_insert does, per row */
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);

	/*
	 * CREATE TABLE AS and REFRESH MATERIALIZED VIEW insert with a bulk
	 * insert state and never show a TID; INSERT passes none, and its
	 * RETURNING may show ctid.
	 */
	load_buffer_slot(rel, slot, bistate == NULL);
	if (qs_logical_wanted(rel))
		log_logical_rows(rel, &slot, 1);
}

void
qs_col_finish_bulk_insert(Relation rel, int options)
{
	qs_colload_flush_rel(rel);
	qs_finish_bulk_insert(rel, options);
}
