/*-------------------------------------------------------------------------
 *
 * ddl.c
 *	  Engine callbacks for storage and size: new relfilenode/locator (with
 *	  the init fork of UNLOGGED tables), TRUNCATE, SET TABLESPACE, CLUSTER /
 *	  VACUUM FULL, size estimates and TOAST decisions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/heap.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "tableam/engine.h"
#include "tableam/engine_int.h"

/* ------------------------------------------------------------------------
 * Storage
 * ------------------------------------------------------------------------
 */
void
qs_relation_set_new_filelocator(Relation rel, const RelFileLocator *newrlocator,
								char persistence, TransactionId *freezeXid,
								MultiXactId *minmulti)
{
	SMgrRelation srel;

	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();
	srel = RelationCreateStorage(*newrlocator, persistence, true);
	if (persistence == RELPERSISTENCE_UNLOGGED)
	{
		/* an empty init fork: reset to it after a crash */
		smgrcreate(srel, INIT_FORKNUM, false);
		log_smgrcreate(newrlocator, INIT_FORKNUM);
		qs_sync_init_fork(srel);
	}
	smgrclose(srel);
}

void
qs_relation_nontransactional_truncate(Relation rel)
{
	RelationTruncate(rel, 0);
}

void
qs_relation_copy_data(Relation rel, const RelFileLocator *newrlocator)
{
	SMgrRelation dstrel;

	FlushRelationBuffers(rel);
	dstrel = RelationCreateStorage(*newrlocator, rel->rd_rel->relpersistence, true);
	RelationCopyStorage(RelationGetSmgr(rel), dstrel, MAIN_FORKNUM,
						rel->rd_rel->relpersistence);
	for (ForkNumber forkNum = MAIN_FORKNUM + 1; forkNum <= MAX_FORKNUM; forkNum++)
	{
		if (smgrexists(RelationGetSmgr(rel), forkNum))
		{
			smgrcreate(dstrel, forkNum, false);
			if (RelationIsPermanent(rel) ||
				(rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED &&
				 forkNum == INIT_FORKNUM))
				log_smgrcreate(newrlocator, forkNum);
			RelationCopyStorage(RelationGetSmgr(rel), dstrel, forkNum,
								rel->rd_rel->relpersistence);
		}
	}
	RelationDropStorage(rel);
	smgrclose(dstrel);
}

/* ------------------------------------------------------------------------
 * CLUSTER / VACUUM FULL: update chains
 *
 * A version kept because some snapshot may still see it (RECENTLY_DEAD)
 * whose updater committed must keep its t_ctid link to its successor, now
 * at a new TID: otherwise a REPEATABLE READ transaction older than the
 * update that then changes the row finds a version "deleted" instead of
 * "updated" (the error says "concurrent delete", and EvalPlanQual, which
 * follows t_ctid, would have nowhere to go).  This is heap's rewrite
 * (rewriteheap.c, rewrite_heap_tuple and rewrite_heap_dead_tuple): the
 * rows arrive in any order, so a version whose successor is not written
 * yet waits in 'unresolved' (keyed by the successor's xmin and old TID) and
 * a successor written first leaves its new TID in 'old_new' under the same
 * key.  Only a successor whose xmin does not precede OldestXmin can have a
 * predecessor still kept (its xmax is that xmin), so only those are
 * remembered.  A version still unresolved at the end (its successor was
 * dead after all) is written pointing at itself, as heap writes it.
 *
 * Keys carry the successor's xmin as well as its TID, as heap's do: a
 * version's t_ctid names a slot, and the version found there is its
 * successor only if that version's xmin is the updater (the check every
 * chain walk makes; the slot may have been pruned and reused).  Memory: every
 * kept successor and every waiting version until its pair is seen (heap's
 * rewrite is not bounded by maintenance_work_mem either).
 * ------------------------------------------------------------------------
 */
typedef struct ChainKey
{
	TransactionId xmin;			/* the successor's xmin */
	ItemPointerData tid;		/* the successor's TID in the old table */
} ChainKey;

typedef struct ChainWaiting
{
	ChainKey	key;
	ItemPointerData old_tid;	/* the waiting version's own old TID */
	HeapTuple	tuple;			/* its copy, to be written */
} ChainWaiting;

typedef struct ChainWritten
{
	ChainKey	key;
	ItemPointerData new_tid;	/* where the successor went */
} ChainWritten;

struct QsRewriteChains
{
	Relation	rel;			/* the new table */
	const QsPageLayout *L;
	TransactionId OldestXmin;
	bool		toast_big;		/* toast records over TOAST_TUPLE_THRESHOLD */
	MemoryContext cxt;
	HTAB	   *unresolved;		/* ChainWaiting */
	HTAB	   *old_new;		/* ChainWritten */
};

QsRewriteChains *
qs_rewrite_chains_begin(Relation NewTable, TransactionId OldestXmin,
						bool toast_big)
{
	MemoryContext cxt;
	QsRewriteChains *rc;
	HASHCTL		ctl;

	cxt = AllocSetContextCreate(CurrentMemoryContext,
								"quickstep rewrite chains",
								ALLOCSET_DEFAULT_SIZES);
	rc = MemoryContextAllocZero(cxt, sizeof(QsRewriteChains));
	rc->rel = NewTable;
	rc->L = qs_layout_of(NewTable);
	rc->OldestXmin = OldestXmin;
	rc->toast_big = toast_big;
	rc->cxt = cxt;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(ChainKey);
	ctl.hcxt = cxt;
	ctl.entrysize = sizeof(ChainWaiting);
	rc->unresolved = hash_create("quickstep rewrite unresolved versions", 128,
								 &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ctl.entrysize = sizeof(ChainWritten);
	rc->old_new = hash_create("quickstep rewrite old to new TIDs", 128,
							  &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	return rc;
}

static void
chain_key(ChainKey *key, TransactionId xmin, ItemPointer tid)
{
	memset(key, 0, sizeof(ChainKey));	/* padding: HASH_BLOBS hashes it */
	key->xmin = xmin;
	key->tid = *tid;
}

/*
 * Toast (into the new table's TOAST relation, not for logical decoding, as
 * heap's raw_heap_insert) and place one record, its t_ctid 'link' (invalid:
 * itself); returns its new TID.
 */
static ItemPointerData
chain_place(QsRewriteChains *rc, HeapTuple tup, ItemPointer link,
			BufferAccessStrategy strategy)
{
	HeapTuple	tocopy = tup;
	ItemPointerData new_tid;

	if ((rc->rel->rd_rel->relkind == RELKIND_RELATION ||
		 rc->rel->rd_rel->relkind == RELKIND_MATVIEW) &&
		(HeapTupleHasExternal(tup) ||
		 (rc->toast_big && tup->t_len > TOAST_TUPLE_THRESHOLD)))
		tocopy = heap_toast_insert_or_update(rc->rel, tup, NULL,
											 HEAP_INSERT_SKIP_FSM |
											 HEAP_INSERT_NO_LOGICAL);
	qs_place_tuple_ctid(rc->rel, rc->L, tocopy, strategy, false,
						ItemPointerIsValid(link) ? link : NULL);
	new_tid = tocopy->t_self;
	if (tocopy != tup)
		heap_freetuple(tocopy);
	return new_tid;
}

/*
 * qs_rewrite_chains_write
 *		Write 'tup', a kept version of the old table at 'old_tid', into the
 *		new table: its header as it is to be (xmin, xmax, infomask) with
 *		t_ctid still the old table's.  Now, or once its successor is
 *		written (then 'tup' is copied).
 */
void
qs_rewrite_chains_write(QsRewriteChains *rc, HeapTuple tup,
						ItemPointer old_tid, BufferAccessStrategy strategy)
{
	HeapTupleHeader hdr = tup->t_data;
	ItemPointerData link;
	ItemPointerData cur_old_tid;
	HeapTuple	cur = tup;
	bool		free_cur = false;
	ChainKey	key;
	bool		found;
	MemoryContext oldcxt;

	ItemPointerSetInvalid(&link);

	/*
	 * Updated (not only locked, not moved to another partition, not
	 * pointing at itself): the successor's new TID, if written already;
	 * otherwise wait for it.
	 */
	if (!((hdr->t_infomask & HEAP_XMAX_INVALID) ||
		  HeapTupleHeaderIsOnlyLocked(hdr)) &&
		!HeapTupleHeaderIndicatesMovedPartitions(hdr) &&
		!HeapTupleHeaderIsSpeculative(hdr) &&
		!ItemPointerEquals(old_tid, &hdr->t_ctid))
	{
		ChainWritten *w;

		chain_key(&key, HeapTupleHeaderGetUpdateXid(hdr), &hdr->t_ctid);
		w = hash_search(rc->old_new, &key, HASH_FIND, NULL);
		if (w != NULL)
		{
			link = w->new_tid;
			hash_search(rc->old_new, &key, HASH_REMOVE, &found);
			Assert(found);
		}
		else
		{
			ChainWaiting *u;

			u = hash_search(rc->unresolved, &key, HASH_ENTER, &found);

			/*
			 * A successor has one predecessor (heap asserts it).  Should a
			 * second one come, it is written pointing at itself, as a
			 * version whose successor is gone: its changer then reads
			 * "deleted" rather than the rewrite failing.
			 */
			Assert(!found);
			if (!found)
			{
				u->old_tid = *old_tid;
				oldcxt = MemoryContextSwitchTo(rc->cxt);
				u->tuple = heap_copytuple(tup);
				MemoryContextSwitchTo(oldcxt);
				return;
			}
		}
	}

	/*
	 * Write it; if it is the successor of a waiting version, that one can
	 * now be written, and may itself be the successor of another.
	 */
	cur_old_tid = *old_tid;
	for (;;)
	{
		ItemPointerData new_tid;
		TransactionId xmin;

		new_tid = chain_place(rc, cur, &link, strategy);
		xmin = HeapTupleHeaderGetXmin(cur->t_data);
		if ((cur->t_data->t_infomask & HEAP_UPDATED) &&
			!TransactionIdPrecedes(xmin, rc->OldestXmin))
		{
			ChainWaiting *u;

			chain_key(&key, xmin, &cur_old_tid);
			u = hash_search(rc->unresolved, &key, HASH_FIND, NULL);
			if (u != NULL)
			{
				if (free_cur)
					heap_freetuple(cur);
				cur = u->tuple;
				free_cur = true;
				cur_old_tid = u->old_tid;
				link = new_tid;
				hash_search(rc->unresolved, &key, HASH_REMOVE, &found);
				Assert(found);
				continue;
			}
			else
			{
				ChainWritten *w;

				w = hash_search(rc->old_new, &key, HASH_ENTER, &found);
				Assert(!found);	/* one version per old TID */
				w->new_tid = new_tid;
			}
		}
		break;
	}
	if (free_cur)
		heap_freetuple(cur);
}

/*
 * qs_rewrite_chains_dead
 *		A version of the old table at 'old_tid' is dead: a kept version
 *		waiting for it as its successor is dead too, and is dropped
 *		(rewrite_heap_dead_tuple's case: the successor's deleter has an
 *		xid below OldestXmin but its inserter, the waiting version's
 *		xmax, does not, so HeapTupleSatisfiesVacuum called the waiting
 *		version recently dead; yet the deleter committed after the
 *		inserter, before every snapshot that exists).  True if one was:
 *		the caller counts it dead, no longer recently dead.
 */
bool
qs_rewrite_chains_dead(QsRewriteChains *rc, HeapTupleHeader hdr,
					   ItemPointer old_tid)
{
	ChainKey	key;
	ChainWaiting *u;
	bool		found;

	chain_key(&key, HeapTupleHeaderGetXmin(hdr), old_tid);
	u = hash_search(rc->unresolved, &key, HASH_FIND, NULL);
	if (u == NULL)
		return false;
	heap_freetuple(u->tuple);
	hash_search(rc->unresolved, &key, HASH_REMOVE, &found);
	Assert(found);
	return true;
}

/*
 * qs_rewrite_chains_end
 *		Write the versions whose successor never came (it was not kept),
 *		pointing at themselves, as heap's end_heap_rewrite; free the
 *		state.
 */
void
qs_rewrite_chains_end(QsRewriteChains *rc, BufferAccessStrategy strategy)
{
	HASH_SEQ_STATUS seq;
	ChainWaiting *u;

	hash_seq_init(&seq, rc->unresolved);
	while ((u = hash_seq_search(&seq)) != NULL)
	{
		ItemPointerData self;

		ItemPointerSetInvalid(&self);
		(void) chain_place(rc, u->tuple, &self, strategy);
	}
	MemoryContextDelete(rc->cxt);
}

/*
 * CLUSTER / VACUUM FULL: copy every record not dead to everyone into the
 * new storage, in index order when an index is given.  Headers are kept as
 * they are (xmin/xmax/infomask), and update chains as heap keeps them
 * (above).  Nothing is frozen, so relfrozenxid/relminmxid stay what they
 * were.
 */
/*
 * qs_cluster_count
 *		CLUSTER / VACUUM FULL: count a record of the old table by its
 *		HeapTupleSatisfiesVacuum verdict, as heap's rewrite counts; true if
 *		it goes to the new table (in-progress ones can only be our own
 *		transaction's: the rewrite holds AccessExclusiveLock).
 */
bool
qs_cluster_count(HTSV_Result status, double *num_tuples,
				 double *tups_vacuumed, double *tups_recently_dead)
{
	switch (status)
	{
		case HEAPTUPLE_DEAD:
			*tups_vacuumed += 1;
			return false;
		case HEAPTUPLE_RECENTLY_DEAD:
			*tups_recently_dead += 1;
			return true;
		case HEAPTUPLE_LIVE:
		case HEAPTUPLE_INSERT_IN_PROGRESS:
		case HEAPTUPLE_DELETE_IN_PROGRESS:
			*num_tuples += 1;
			return true;
	}
	return false;
}

void
qs_relation_copy_for_cluster(Relation OldTable, Relation NewTable,
							 Relation OldIndex, bool use_sort,
							 TransactionId OldestXmin,
							 TransactionId *xid_cutoff,
							 MultiXactId *multi_cutoff,
							 double *num_tuples,
							 double *tups_vacuumed,
							 double *tups_recently_dead)
{
	const QsPageLayout *Lold = qs_layout_of(OldTable);
	TableScanDesc tscan = NULL;
	IndexScanDesc iscan = NULL;
	TupleTableSlot *slot;
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKWRITE);
	QsRewriteChains *chains;

	*xid_cutoff = OldTable->rd_rel->relfrozenxid;
	*multi_cutoff = OldTable->rd_rel->relminmxid;
	*num_tuples = 0;
	*tups_vacuumed = 0;
	*tups_recently_dead = 0;

	/* records were on a page of the old table: toast external values only */
	chains = qs_rewrite_chains_begin(NewTable, OldestXmin, false);
	slot = table_slot_create(OldTable, NULL);
	if (OldIndex != NULL)
	{
		iscan = qs_index_beginscan(OldTable, OldIndex, SnapshotAny, 0, 0);
		index_rescan(iscan, NULL, 0, NULL, 0);
	}
	else
		tscan = table_beginscan(OldTable, SnapshotAny, 0, NULL);

	for (;;)
	{
		BufferHeapTupleTableSlot *bslot;
		Buffer		buf;
		HeapTupleData tup;
		HeapTupleHeaderData scratch;
		uint32		len;
		HeapTuple	copy;
		HTSV_Result status;
		bool		keep;
		OffsetNumber off;

		CHECK_FOR_INTERRUPTS();
		if (iscan)
		{
			if (!index_getnext_slot(iscan, ForwardScanDirection, slot))
				break;
		}
		else if (!table_scan_getnextslot(tscan, ForwardScanDirection, slot))
			break;

		bslot = (BufferHeapTupleTableSlot *) slot;
		off = ItemPointerGetOffsetNumber(&slot->tts_tid);
		/* a layout's slot need not hold the buffer (PAX, HPL: virtual slots) */
		if (TTS_IS_BUFFERTUPLE(slot) && BufferIsValid(bslot->buffer))
		{
			buf = bslot->buffer;
			IncrBufferRefCount(buf);
		}
		else
			buf = ReadBuffer(OldTable, ItemPointerGetBlockNumber(&slot->tts_tid));
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		tup.t_data = qs_page_get_header(Lold, BufferGetPage(buf), off, &scratch, &len);
		tup.t_len = len;
		tup.t_self = slot->tts_tid;
		tup.t_tableOid = RelationGetRelid(OldTable);
		status = HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf);
		keep = qs_cluster_count(status, num_tuples, tups_vacuumed,
								tups_recently_dead);
		if (tup.t_data == &scratch)
			qs_page_set_header(Lold, BufferGetPage(buf), off, &scratch);
		if (!keep && status == HEAPTUPLE_DEAD &&
			qs_rewrite_chains_dead(chains, tup.t_data, &tup.t_self))
		{
			/* a recently dead predecessor is known dead now */
			*tups_vacuumed += 1;
			*tups_recently_dead -= 1;
		}
		copy = keep ? qs_page_copy_record(Lold, OldTable, BufferGetPage(buf),
										BufferGetBlockNumber(buf), off) : NULL;
		UnlockReleaseBuffer(buf);
		if (copy)
		{
			/*
			 * The copy keeps its t_ctid for the chain, but not a speculative
			 * token (a record whose insertion never completed is dead, so
			 * this is defensive); the new table has no HOT chains (its
			 * indexes are built after the copy, over every version).
			 */
			if (HeapTupleHeaderIsSpeculative(copy->t_data))
				copy->t_data->t_ctid = slot->tts_tid;
			HeapTupleHeaderClearHotUpdated(copy->t_data);
			HeapTupleHeaderClearHeapOnly(copy->t_data);
			qs_rewrite_chains_write(chains, copy, &slot->tts_tid, strategy);
			heap_freetuple(copy);
		}
	}
	qs_rewrite_chains_end(chains, strategy);

	if (iscan)
		index_endscan(iscan);
	if (tscan)
		table_endscan(tscan);
	ExecDropSingleTupleTableSlot(slot);
	FreeAccessStrategy(strategy);
}

/* ------------------------------------------------------------------------
 * Sizes and TOAST
 * ------------------------------------------------------------------------
 */
void
qs_relation_estimate_size(Relation rel, int32 *attr_widths,
						  BlockNumber *pages, double *tuples,
						  double *allvisfrac)
{
	table_block_relation_estimate_size(rel, attr_widths, pages, tuples,
									   allvisfrac,
									   SizeofHeapTupleHeader + sizeof(ItemIdData),
									   BLCKSZ - SizeOfPageHeaderData);
}

bool
qs_relation_needs_toast_table(Relation rel)
{
	int32		data_length = 0;
	bool		maxlength_unknown = false;
	bool		has_toastable_attrs = false;
	TupleDesc	tupdesc = rel->rd_att;
	int32		tuple_length;

	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (att->attisdropped)
			continue;
		if (QS_ATT_IS_VIRTUAL(att))
			continue;
		data_length = att_align_nominal(data_length, att->attalign);
		if (att->attlen > 0)
			data_length += att->attlen;
		else
		{
			int32		maxlen = type_maximum_size(att->atttypid, att->atttypmod);

			if (maxlen < 0)
				maxlength_unknown = true;
			else
				data_length += maxlen;
			if (att->attstorage != TYPSTORAGE_PLAIN)
				has_toastable_attrs = true;
		}
	}
	if (!has_toastable_attrs)
		return false;
	if (maxlength_unknown)
		return true;
	tuple_length = MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(tupdesc->natts)) +
		MAXALIGN(data_length);
	return (tuple_length > TOAST_TUPLE_THRESHOLD);
}

Oid
qs_relation_toast_am(Relation rel)
{
	return HEAP_TABLE_AM_OID;
}
