/*-------------------------------------------------------------------------
 *
 * nsm.c
 *	  NSM (N-ary storage model) page layout: PostgreSQL's slotted page.
 *
 * "Use what exists": the page is a standard bufpage.c page (PageInit,
 * PageAddItem, line pointers, PageRepairFragmentation); a record is a
 * formed heap tuple (HeapTupleHeaderData + null bitmap + attributes) stored
 * as is, so the MVCC header handed to heap's visibility routines is the
 * page's own bytes and hint bits land in place.  At most
 * MaxHeapTuplesPerPage records per page (PageAddItem's is_heap check).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/itemid.h"
#include "utils/rel.h"

#include "page/layout.h"
#include "page/recslot.h"

static const TupleTableSlotOps *
nsm_slot_ops(void)
{
	return &TTSOpsBufferHeapTuple;
}

static void
nsm_init_page(Page page, Size page_size, TupleDesc desc)
{
	PageInit(page, page_size, 0);
}

static Size
nsm_max_record_size(TupleDesc desc)
{
	return MaxHeapTupleSize;
}

static Size
nsm_free_space(Page page)
{
	if (PageIsNew(page))
		return BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - sizeof(ItemIdData);
	return PageGetHeapFreeSpace(page);
}

static bool
nsm_record_fits(Page page, TupleDesc desc, HeapTuple tuple, Size reserve)
{
	Size		need = MAXALIGN(tuple->t_len);

	if (PageIsNew(page))
		return need + reserve <= BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - sizeof(ItemIdData);
	return need + reserve <= PageGetHeapFreeSpace(page);
}

static OffsetNumber
nsm_put_record(Page page, TupleDesc desc, BlockNumber blkno,
			   HeapTuple tuple)
{
	OffsetNumber off;
	ItemId		lp;
	HeapTupleHeader item;

	off = PageAddItem(page, (Item) tuple->t_data, tuple->t_len,
					  InvalidOffsetNumber, false, true);
	if (off == InvalidOffsetNumber)
		return InvalidOffsetNumber;

	ItemPointerSet(&tuple->t_self, blkno, off);
	lp = PageGetItemId(page, off);
	item = (HeapTupleHeader) PageGetItem(page, lp);
	/* a speculative token in t_ctid is kept; otherwise point at self */
	if (!HeapTupleHeaderIsSpeculative(tuple->t_data))
		item->t_ctid = tuple->t_self;
	tuple->t_data->t_ctid = item->t_ctid;
	return off;
}

static OffsetNumber
nsm_max_offset(Page page)
{
	if (PageIsNew(page))
		return 0;
	return PageGetMaxOffsetNumber(page);
}

static QsRecordState
nsm_record_state(Page page, OffsetNumber off)
{
	ItemId		lp;

	if (PageIsNew(page) || off < FirstOffsetNumber ||
		off > PageGetMaxOffsetNumber(page))
		return QS_REC_UNUSED;
	lp = PageGetItemId(page, off);
	if (ItemIdIsNormal(lp))
		return QS_REC_NORMAL;
	if (ItemIdIsDead(lp))
		return QS_REC_DEAD;
	if (ItemIdIsRedirected(lp))
		return QS_REC_REDIRECT;
	return QS_REC_UNUSED;
}

static int
nsm_normal_offsets(Page page, OffsetNumber *out)
{
	OffsetNumber maxoff;
	int			n = 0;

	if (PageIsNew(page))
		return 0;
	maxoff = PageGetMaxOffsetNumber(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		out[n] = off;
		n += ItemIdIsNormal(PageGetItemId(page, off));
	}
	return n;
}

static HeapTupleHeader
nsm_get_header(Page page, OffsetNumber off, HeapTupleHeaderData *scratch,
			   uint32 *len)
{
	ItemId		lp = PageGetItemId(page, off);

	Assert(ItemIdIsNormal(lp));
	if (len)
		*len = ItemIdGetLength(lp);
	return (HeapTupleHeader) PageGetItem(page, lp);
}

static void
nsm_set_header(Page page, OffsetNumber off, HeapTupleHeader hdr)
{
	ItemId		lp = PageGetItemId(page, off);
	HeapTupleHeader item = (HeapTupleHeader) PageGetItem(page, lp);

	if (item != hdr)
		memcpy(item, hdr, SizeofHeapTupleHeader);
}

static void
nsm_store_record(Relation rel, Buffer buf, Page page, OffsetNumber off,
				 TupleTableSlot *slot, const Bitmapset *attrs)
{
	HeapTuple	tup;
	ItemId		lp = PageGetItemId(page, off);

	if (!TTS_IS_BUFFERTUPLE(slot))
	{
		/* an NSM page of a PAX or HPL table: that layout's record slot */
		HeapTupleData copy;

		copy.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		copy.t_len = ItemIdGetLength(lp);
		ItemPointerSet(&copy.t_self, BufferGetBlockNumber(buf), off);
		copy.t_tableOid = RelationGetRelid(rel);
		qs_recslot_store_tuple(slot, &copy);
		slot->tts_tid = copy.t_self;
		slot->tts_tableOid = RelationGetRelid(rel);
		return;
	}
	/* the slot keeps a pointer to the HeapTupleData: use its own */
	tup = &((BufferHeapTupleTableSlot *) slot)->base.tupdata;
	tup->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup->t_len = ItemIdGetLength(lp);
	ItemPointerSet(&tup->t_self, BufferGetBlockNumber(buf), off);
	tup->t_tableOid = RelationGetRelid(rel);
	ExecStoreBufferHeapTuple(tup, slot, buf);
	slot->tts_tableOid = RelationGetRelid(rel);
}

static HeapTuple
nsm_copy_record(Relation rel, Page page, BlockNumber blkno, OffsetNumber off)
{
	HeapTupleData tup;
	ItemId		lp = PageGetItemId(page, off);

	tup.t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup.t_len = ItemIdGetLength(lp);
	ItemPointerSet(&tup.t_self, blkno, off);
	tup.t_tableOid = RelationGetRelid(rel);
	return heap_copytuple(&tup);
}

static void
nsm_read_column(Page page, TupleDesc desc, AttrNumber attnum,
				const OffsetNumber *offs, int n, Datum *values, bool *isnull)
{
	for (int i = 0; i < n; i++)
	{
		HeapTupleData tup;
		ItemId		lp = PageGetItemId(page, offs[i]);

		tup.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		tup.t_len = ItemIdGetLength(lp);
		values[i] = heap_getattr(&tup, attnum, desc, &isnull[i]);
	}
}

/*
 * One pass per record: deform the attributes up to the highest one asked
 * for (heap_deform_tuple's loop, stopped early, without its attcacheoff
 * shortcut, which PG 18 moved out of pg_attribute), then hand out the asked
 * ones.  heap_getattr per attribute would walk every variable-width
 * attribute before the one asked for, once per attribute.
 */
static void
nsm_read_columns(Page page, TupleDesc desc, const AttrNumber *attnums,
				 int ncols, const OffsetNumber *offs, int n, Datum **values,
				 bool **isnull)
{
	int			maxatt = 0;
	Datum		rowvals[MaxTupleAttributeNumber];
	bool		rownulls[MaxTupleAttributeNumber];

	for (int c = 0; c < ncols; c++)
		maxatt = Max(maxatt, attnums[c]);
	Assert(maxatt <= desc->natts);

	for (int i = 0; i < n; i++)
	{
		ItemId		lp = PageGetItemId(page, offs[i]);
		HeapTupleHeader tup = (HeapTupleHeader) PageGetItem(page, lp);
		bool		hasnulls = (tup->t_infomask & HEAP_HASNULL) != 0;
		bits8	   *bp = tup->t_bits;
		char	   *tp = (char *) tup + tup->t_hoff;
		int			natts = Min(HeapTupleHeaderGetNatts(tup), maxatt);
		uint32		off = 0;
		int			a;

		for (a = 0; a < natts; a++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, a);

			if (hasnulls && att_isnull(a, bp))
			{
				rowvals[a] = (Datum) 0;
				rownulls[a] = true;
				continue;
			}
			rownulls[a] = false;
			if (att->attlen == -1)
				off = att_align_pointer(off, att->attalign, -1, tp + off);
			else
				off = att_align_nominal(off, att->attalign);
			rowvals[a] = fetch_att(tp + off, att->attbyval, att->attlen);
			off = att_addlength_pointer(off, att->attlen, tp + off);
		}
		/* attributes added after the record was written */
		for (; a < maxatt; a++)
			rowvals[a] = getmissingattr(desc, a + 1, &rownulls[a]);

		for (int c = 0; c < ncols; c++)
		{
			values[c][i] = rowvals[attnums[c] - 1];
			isnull[c][i] = rownulls[attnums[c] - 1];
		}
	}
}

static void
nsm_mark_dead(Page page, const OffsetNumber *offs, int n)
{
	for (int i = 0; i < n; i++)
		ItemIdSetDead(PageGetItemId(page, offs[i]));
}

static void
nsm_mark_unused(Page page, const OffsetNumber *offs, int n)
{
	for (int i = 0; i < n; i++)
		ItemIdSetUnused(PageGetItemId(page, offs[i]));
}

static void
nsm_mark_redirect(Page page, const OffsetNumber *from, const OffsetNumber *to,
				  int n)
{
	for (int i = 0; i < n; i++)
		ItemIdSetRedirect(PageGetItemId(page, from[i]), to[i]);
}

static OffsetNumber
nsm_redirect_target(Page page, OffsetNumber off)
{
	ItemId		lp = PageGetItemId(page, off);

	Assert(ItemIdIsRedirected(lp));
	return ItemIdGetRedirect(lp);
}

static void
nsm_compact(Page page)
{
	PageHeader	ph = (PageHeader) page;

	PageRepairFragmentation(page);
	PageTruncateLinePointerArray(page);

	/*
	 * Both leave the bytes they freed (moved records' old places, truncated
	 * line pointers) in the hole.  Zero it: the generic WAL of the next
	 * change zeroes only the part of its hole that was not hole before
	 * (src/wal/genxlog.c, src/wal/README.md "The hole"), so every writer of
	 * a page in place leaves its hole zeroed.  Redo of the PRUNE record runs
	 * this same code.
	 */
	memset((char *) page + ph->pd_lower, 0, ph->pd_upper - ph->pd_lower);
}

static bool
nsm_check_page(Page page, BlockNumber blkno, TupleDesc desc, char *errbuf,
			   Size errlen)
{
	PageHeader	ph = (PageHeader) page;
	OffsetNumber maxoff;

	if (PageIsNew(page))
		return true;
	if (ph->pd_lower < SizeOfPageHeaderData || ph->pd_lower > ph->pd_upper ||
		ph->pd_upper > ph->pd_special || ph->pd_special != BLCKSZ ||
		PageGetPageSize(page) != BLCKSZ)
	{
		snprintf(errbuf, errlen,
				 "block %u: bad page header (lower %u, upper %u, special %u, size %u)",
				 blkno, ph->pd_lower, ph->pd_upper, ph->pd_special,
				 (unsigned) PageGetPageSize(page));
		return false;
	}
	maxoff = PageGetMaxOffsetNumber(page);
	if (maxoff > MaxHeapTuplesPerPage)
	{
		snprintf(errbuf, errlen, "block %u: %u line pointers, more than %d",
				 blkno, maxoff, (int) MaxHeapTuplesPerPage);
		return false;
	}
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		unsigned	lpoff = ItemIdGetOffset(lp);
		unsigned	lplen = ItemIdGetLength(lp);
		HeapTupleHeader h;

		if (ItemIdIsRedirected(lp))
		{
			/* the root of a pruned HOT chain: to a heap-only record */
			OffsetNumber to = ItemIdGetRedirect(lp);
			ItemId		tlp;

			if (lplen != 0 || to < FirstOffsetNumber || to > maxoff || to == off)
			{
				snprintf(errbuf, errlen, "block %u, item %u: redirect to item %u (length %u) outside the page's %u items",
						 blkno, off, to, lplen, maxoff);
				return false;
			}
			tlp = PageGetItemId(page, to);
			if (!ItemIdIsNormal(tlp) || ItemIdGetLength(tlp) < SizeofHeapTupleHeader ||
				ItemIdGetOffset(tlp) < ph->pd_upper ||
				ItemIdGetOffset(tlp) + ItemIdGetLength(tlp) > ph->pd_special ||
				!HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, tlp)))
			{
				snprintf(errbuf, errlen, "block %u, item %u: redirect to item %u, which is not a heap-only record",
						 blkno, off, to);
				return false;
			}
			continue;
		}
		if (!ItemIdIsNormal(lp))
		{
			/* mark_dead and mark_unused leave no storage behind */
			if (lpoff != 0 || lplen != 0)
			{
				snprintf(errbuf, errlen, "block %u, item %u: %s line pointer with storage (offset %u, length %u)",
						 blkno, off, ItemIdIsDead(lp) ? "dead" : "unused",
						 lpoff, lplen);
				return false;
			}
			continue;
		}
		if (lpoff < ph->pd_upper || lpoff + lplen > ph->pd_special ||
			lpoff != MAXALIGN(lpoff))
		{
			snprintf(errbuf, errlen, "block %u, item %u: record at %u length %u lies outside the record area [%u, %u)",
					 blkno, off, lpoff, lplen, ph->pd_upper, ph->pd_special);
			return false;
		}
		if (lplen < SizeofHeapTupleHeader)
		{
			snprintf(errbuf, errlen, "block %u, item %u: record length %u is shorter than a record header",
					 blkno, off, lplen);
			return false;
		}
		h = (HeapTupleHeader) ((char *) page + lpoff);
		if (h->t_hoff < SizeofHeapTupleHeader || h->t_hoff > lplen ||
			h->t_hoff != MAXALIGN(h->t_hoff))
		{
			snprintf(errbuf, errlen, "block %u, item %u: bad data offset %u in a record of length %u",
					 blkno, off, h->t_hoff, lplen);
			return false;
		}
		/* more attributes only from a rolled-back ADD COLUMN (layout.h) */
		if (HeapTupleHeaderGetNatts(h) > desc->natts &&
			!qs_page_xmin_failed(HeapTupleHeaderGetRawXmin(h), h->t_infomask))
		{
			snprintf(errbuf, errlen, "block %u, item %u: record of a transaction that did not roll back has %d attributes, the table %d",
					 blkno, off, HeapTupleHeaderGetNatts(h), desc->natts);
			return false;
		}
		if ((h->t_infomask & HEAP_HASNULL) &&
			SizeofHeapTupleHeader + BITMAPLEN(HeapTupleHeaderGetNatts(h)) > h->t_hoff)
		{
			snprintf(errbuf, errlen, "block %u, item %u: null bitmap overlaps the data",
					 blkno, off);
			return false;
		}
		if ((h->t_infomask & HEAP_XMAX_COMMITTED) &&
			(h->t_infomask & HEAP_XMAX_IS_MULTI))
		{
			snprintf(errbuf, errlen, "block %u, item %u: multixact xmax marked committed",
					 blkno, off);
			return false;
		}
	}
	return true;
}

const QsPageLayout qs_nsm_layout = {
	.name = "nsm",
	.slot_ops = nsm_slot_ops,
	.init_page = nsm_init_page,
	.max_record_size = nsm_max_record_size,
	.free_space = nsm_free_space,
	.record_fits = nsm_record_fits,
	.put_record = nsm_put_record,
	.max_offset = nsm_max_offset,
	.record_state = nsm_record_state,
	.normal_offsets = nsm_normal_offsets,
	.get_header = nsm_get_header,
	.set_header = nsm_set_header,
	.store_record = nsm_store_record,
	.copy_record = nsm_copy_record,
	.read_column = nsm_read_column,
	.read_columns = nsm_read_columns,
	.mark_dead = nsm_mark_dead,
	.mark_unused = nsm_mark_unused,
	.mark_redirect = nsm_mark_redirect,
	.redirect_target = nsm_redirect_target,
	.compact = nsm_compact,
	.check_page = nsm_check_page,
};
