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
#include "utils/lsyscache.h"
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

/*
 * CLUSTER / VACUUM FULL: copy every record not dead to everyone into the
 * new storage, in index order when an index is given.  Headers are kept as
 * they are (xmin/xmax/infomask); update chains are not preserved across the
 * copy (t_ctid of a copied record points at itself), which only changes a
 * later concurrent-update error from "updated" to "deleted" for versions
 * older than the CLUSTER.  Nothing is frozen, so relfrozenxid/relminmxid
 * stay what they were.
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
	const QsPageLayout *Lnew = qs_layout_of(NewTable);
	TableScanDesc tscan = NULL;
	IndexScanDesc iscan = NULL;
	TupleTableSlot *slot;
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKWRITE);

	*xid_cutoff = OldTable->rd_rel->relfrozenxid;
	*multi_cutoff = OldTable->rd_rel->relminmxid;
	*num_tuples = 0;
	*tups_vacuumed = 0;
	*tups_recently_dead = 0;

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
		bool		keep = false;
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
		keep = qs_cluster_count(HeapTupleSatisfiesVacuum(&tup, OldestXmin, buf),
								num_tuples, tups_vacuumed, tups_recently_dead);
		if (tup.t_data == &scratch)
			qs_page_set_header(Lold, BufferGetPage(buf), off, &scratch);
		copy = keep ? qs_page_copy_record(Lold, OldTable, BufferGetPage(buf),
										BufferGetBlockNumber(buf), off) : NULL;
		UnlockReleaseBuffer(buf);
		if (copy)
		{
			HeapTuple	tocopy = copy;

			/* the copy must not carry chains or speculative tokens */
			ItemPointerSetInvalid(&copy->t_data->t_ctid);
			copy->t_data->t_ctid = copy->t_self;
			HeapTupleHeaderClearHotUpdated(copy->t_data);
			HeapTupleHeaderClearHeapOnly(copy->t_data);
			if (HeapTupleHasExternal(copy) &&
				(OldTable->rd_rel->relkind == RELKIND_RELATION ||
				 OldTable->rd_rel->relkind == RELKIND_MATVIEW))
			{
				/*
				 * toast values are copied into the new table's toast table;
				 * not for logical decoding, as heap's rewrite (the rows of
				 * the new table are not decoded either)
				 */
				tocopy = heap_toast_insert_or_update(NewTable, copy, NULL,
													 HEAP_INSERT_SKIP_FSM |
													 HEAP_INSERT_NO_LOGICAL);
			}
			qs_place_tuple(NewTable, Lnew, tocopy, strategy, false);
			if (tocopy != copy)
				heap_freetuple(tocopy);
			heap_freetuple(copy);
		}
	}

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
