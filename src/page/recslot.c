/*-------------------------------------------------------------------------
 *
 * recslot.c
 *	  The record slot (include/page/recslot.h): TTSOpsVirtual plus a
 *	  stored record's MVCC header and a slot-owned formed tuple.
 *
 * Why a formed tuple owned by the slot: the engine writes a new version's
 * header (xmin, cmin, ctid) on the tuple ExecFetchSlotHeapTuple returns.
 * TTSOpsVirtual has no get_heap_tuple, so that would be a throw-away copy
 * and the slot would keep showing the old header (RETURNING xmin, xmax of
 * an ON CONFLICT DO UPDATE).  Heap's buffer slots avoid this the same way:
 * they hand out their own tuple.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"

#include "core/compat.h"
#include "merge/moved.h"
#include "page/recslot.h"

HeapTupleHeader
qs_recslot_header(TupleTableSlot *slot)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;

	return rs->tuple ? rs->tuple->t_data : &rs->hdr;
}

void
qs_recslot_init(TupleTableSlot *slot)
{
	((QsRecSlot *) slot)->tuple = NULL;
	((QsRecSlot *) slot)->lazy = NULL;
	((QsRecSlot *) slot)->want = NULL;
	((QsRecSlot *) slot)->want_norecheck = NULL;
	((QsRecSlot *) slot)->norecheck = false;
	memset(&((QsRecSlot *) slot)->hdr, 0, sizeof(HeapTupleHeaderData));
	TTSOpsVirtual.init(slot);
}

/*
 * What this (with hpl.c's buffer release and the virtual slot's clear)
 * releases, qs_hpl_slot_clear_trivial (include/page/hpl.h) checks there is
 * none of before the column table's sequential scan skips the clear: a
 * field added here that must be released or reset needs a check there.
 */
void
qs_recslot_clear(TupleTableSlot *slot)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;

	if (rs->tuple)
	{
		heap_freetuple(rs->tuple);
		rs->tuple = NULL;
	}
	memset(&rs->hdr, 0, sizeof(rs->hdr));
	rs->norecheck = false;
	TTSOpsVirtual.clear(slot);
}

void
qs_recslot_release(TupleTableSlot *slot)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;

	if (rs->lazy)
	{
		rs->lazy->release(rs->lazy);
		rs->lazy = NULL;
	}
	TTSOpsVirtual.release(slot);
}

/*
 * Only a row a lazy source stored has attributes to read: every other row
 * of a record slot is stored with all of them (or read from a page by the
 * layout's own callback).
 */
void
qs_recslot_getsomeattrs(TupleTableSlot *slot, int natts)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;

	if (rs->lazy == NULL)
		elog(ERROR, "getsomeattrs is not required to be called on a virtual tuple table slot");
	rs->lazy->getsomeattrs(rs->lazy, slot, natts);
}

/* every attribute read from the source, then copied into the slot */
void
qs_recslot_materialize(TupleTableSlot *slot)
{
	if (!TTS_EMPTY(slot))
		slot_getallattrs(slot);
	TTSOpsVirtual.materialize(slot);
}

QsRecShownSysHook qs_recslot_shown_sys_hook = NULL;

static Datum
recslot_getsysattr(TupleTableSlot *slot, int attnum, bool *isnull)
{
	HeapTupleData tup;
	Datum		shown;

	if (TTS_EMPTY(slot))
		elog(ERROR, "cannot retrieve a system column of an empty slot");
	if ((attnum == MinTransactionIdAttributeNumber ||
		 attnum == MaxTransactionIdAttributeNumber ||
		 attnum == MinCommandIdAttributeNumber ||
		 attnum == MaxCommandIdAttributeNumber) &&
		qs_recslot_shown_sys_hook != NULL &&
		qs_recslot_shown_sys_hook(slot, attnum, &shown))
	{
		*isnull = false;
		return shown;
	}
	tup.t_data = qs_recslot_header(slot);
	tup.t_len = SizeofHeapTupleHeader;
	tup.t_self = slot->tts_tid;
	tup.t_tableOid = slot->tts_tableOid;
	return heap_getsysattr(&tup, attnum, slot->tts_tupleDescriptor, isnull);
}

static HeapTuple
recslot_get_heap_tuple(TupleTableSlot *slot)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;

	if (rs->tuple == NULL)
	{
		MemoryContext oldcxt;
		HeapTupleHeader t;

		slot_getallattrs(slot);
		oldcxt = MemoryContextSwitchTo(slot->tts_mcxt);
		rs->tuple = heap_form_tuple(slot->tts_tupleDescriptor,
									slot->tts_values, slot->tts_isnull);
		MemoryContextSwitchTo(oldcxt);
		/* the stored record's header (all zero for a new row) */
		t = rs->tuple->t_data;
		t->t_choice = rs->hdr.t_choice;
		t->t_ctid = rs->hdr.t_ctid;
		t->t_infomask |= rs->hdr.t_infomask &
			~(HEAP_HASNULL | HEAP_HASVARWIDTH | HEAP_HASEXTERNAL);
		/* not a merge's marks (src/merge): a formed tuple is a new row */
		t->t_infomask2 |= rs->hdr.t_infomask2 &
			~(HEAP_NATTS_MASK | QS_INFOMASK2_BITS);
		rs->tuple->t_self = slot->tts_tid;
		rs->tuple->t_tableOid = slot->tts_tableOid;
	}
	return rs->tuple;
}

static HeapTuple
recslot_copy_heap_tuple(TupleTableSlot *slot)
{
	QsRecSlot  *rs = (QsRecSlot *) slot;
	HeapTuple	tup;

	if (rs->tuple)
		return heap_copytuple(rs->tuple);
	/* a layout's slot may read attributes lazily (getsomeattrs) */
	slot_getallattrs(slot);
	tup = TTSOpsVirtual.copy_heap_tuple(slot);

	/*
	 * The copy names its row, as a heap slot's copy does: ANALYZE sorts its
	 * sample by t_self to measure each column's correlation with the
	 * physical order (it read about 0 for large PAX, HPL and column tables,
	 * whose sample came out in reservoir order).
	 */
	tup->t_self = slot->tts_tid;
	tup->t_tableOid = slot->tts_tableOid;
	return tup;
}

#if PG_VERSION_NUM >= 180000
static MinimalTuple
recslot_copy_minimal_tuple(TupleTableSlot *slot, Size extra)
{
	slot_getallattrs(slot);
	return TTSOpsVirtual.copy_minimal_tuple(slot, extra);
}
#else
static MinimalTuple
recslot_copy_minimal_tuple(TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	return TTSOpsVirtual.copy_minimal_tuple(slot);
}
#endif

/*
 * TTSOpsVirtual's copyslot clears with its own clear: the slot's first
 * (a layout's extension of it may hold a pin).  A copy of a record slot of
 * the same kind keeps the record's TID and header, as a copy between heap
 * buffer slots keeps the tuple's t_self: logical replication's apply finds
 * a REPLICA IDENTITY FULL row by scanning into one slot, copies it to
 * another and locks it by that copy's TID (RelationFindReplTupleSeq).
 */
static void
recslot_copyslot(TupleTableSlot *dst, TupleTableSlot *src)
{
	dst->tts_ops->clear(dst);
	TTSOpsVirtual.copyslot(dst, src);
	if (src->tts_ops == dst->tts_ops)
	{
		dst->tts_tid = src->tts_tid;
		dst->tts_tableOid = src->tts_tableOid;
		memcpy(&((QsRecSlot *) dst)->hdr, qs_recslot_header(src),
			   sizeof(HeapTupleHeaderData));
	}
}

#if PG_VERSION_NUM >= 170000
static bool
recslot_is_current_xact_tuple(TupleTableSlot *slot)
{
	return TransactionIdIsCurrentTransactionId(
		HeapTupleHeaderGetRawXmin(qs_recslot_header(slot)));
}
#endif

/*
 * A formed tuple into a slot that is not a buffer slot (a record of an NSM
 * page of a PAX or HPL table, include/page/layout.h): its values copied out
 * of the page, and its header kept when the slot is a record slot.
 */
void
qs_recslot_store_tuple(TupleTableSlot *slot, HeapTuple tup)
{
	ExecForceStoreHeapTuple(tup, slot, false);
	ExecMaterializeSlot(slot);
	if (slot->tts_ops->getsysattr == recslot_getsysattr)
		memcpy(&((QsRecSlot *) slot)->hdr, tup->t_data,
			   sizeof(HeapTupleHeaderData));
}

void
qs_recslot_ops_init(TupleTableSlotOps *ops, size_t slot_size)
{
	Assert(slot_size >= sizeof(QsRecSlot));
	*ops = TTSOpsVirtual;
	ops->base_slot_size = slot_size;
	ops->init = qs_recslot_init;
	ops->clear = qs_recslot_clear;
	ops->release = qs_recslot_release;
	ops->getsomeattrs = qs_recslot_getsomeattrs;
	ops->materialize = qs_recslot_materialize;
	ops->getsysattr = recslot_getsysattr;
	ops->get_heap_tuple = recslot_get_heap_tuple;
	ops->copy_heap_tuple = recslot_copy_heap_tuple;
	ops->copyslot = recslot_copyslot;
	ops->copy_minimal_tuple = recslot_copy_minimal_tuple;
#if PG_VERSION_NUM >= 170000
	ops->is_current_xact_tuple = recslot_is_current_xact_tuple;
#endif
}
