/*-------------------------------------------------------------------------
 *
 * colpage.c
 *	  The "layout" of a column table's non-row pages (metapage, directory,
 *	  block runs, delete maps): a page layout without records.
 *
 * The delta of a column table is the row engine over HPL pages, and the
 * column pages are interleaved with them in the same fork (README section
 * 1).  Rather than teach every engine loop (seq/bitmap/sample/analyze
 * scans, VACUUM, pruning, the free space map, page choice for inserts,
 * index builds, the checker) to skip them, qs_page_layout() resolves such
 * a page to this layout: no record, no free space, never formatted for
 * records, never truncated away as empty (qs_page_has_records says yes).
 * The functions that only make sense for a record are unreachable and
 * raise an internal error, never touch the page.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/tuptable.h"
#include "storage/bufpage.h"

#include "column/colstore.h"
#include "page/layout.h"

static const TupleTableSlotOps *
colpage_slot_ops(void)
{
	return &TTSOpsVirtual;
}

static void
colpage_init_page(Page page, Size page_size, TupleDesc desc)
{
	elog(ERROR, "a column page cannot be formatted for row records");
}

static Size
colpage_max_record_size(TupleDesc desc)
{
	return 0;
}

static Size
colpage_free_space(Page page)
{
	return 0;
}

static bool
colpage_record_fits(Page page, TupleDesc desc, HeapTuple tuple, Size reserve)
{
	return false;
}

static OffsetNumber
colpage_put_record(Page page, TupleDesc desc, BlockNumber blkno, HeapTuple tuple)
{
	return InvalidOffsetNumber;
}

static OffsetNumber
colpage_max_offset(Page page)
{
	return 0;
}

/*
 * Delete-map pages hold main rows' headers, which the engine's DML reaches
 * by the TIDs of those rows (qs_coldelmap_buffer): the functions it calls
 * on one record are the delete map's.  max_offset stays 0, so that no
 * loop over a page's records ever takes a header for a delta row.
 */
static inline bool
is_delmap(Page page)
{
	return qs_coldelmap_page_info(page, NULL, NULL, NULL);
}

static QsRecordState
colpage_record_state(Page page, OffsetNumber off)
{
	if (is_delmap(page))
		return qs_coldelmap_layout.record_state(page, off);
	return QS_REC_UNUSED;
}

static int
colpage_normal_offsets(Page page, OffsetNumber *out)
{
	return 0;
}

static HeapTupleHeader
colpage_get_header(Page page, OffsetNumber off, HeapTupleHeaderData *scratch,
				   uint32 *len)
{
	if (is_delmap(page))
		return qs_coldelmap_layout.get_header(page, off, scratch, len);
	elog(ERROR, "column page has no record at offset %u", off);
	return NULL;				/* keep compiler quiet */
}

static void
colpage_set_header(Page page, OffsetNumber off, HeapTupleHeader hdr)
{
	if (is_delmap(page))
	{
		qs_coldelmap_layout.set_header(page, off, hdr);
		return;
	}
	elog(ERROR, "column page has no record at offset %u", off);
}

static void
colpage_store_record(Relation rel, Buffer buf, Page page, OffsetNumber off,
					 TupleTableSlot *slot, const Bitmapset *attrs)
{
	if (is_delmap(page))
	{
		qs_coldelmap_layout.store_record(rel, buf, page, off, slot, attrs);
		return;
	}
	elog(ERROR, "column page has no record at offset %u", off);
}

static HeapTuple
colpage_copy_record(Relation rel, Page page, BlockNumber blkno, OffsetNumber off)
{
	if (is_delmap(page))
		return qs_coldelmap_layout.copy_record(rel, page, blkno, off);
	elog(ERROR, "column page %u has no record at offset %u", blkno, off);
	return NULL;				/* keep compiler quiet */
}

static void
colpage_read_column(Page page, TupleDesc desc, AttrNumber attnum,
					const OffsetNumber *offs, int n, Datum *values, bool *isnull)
{
	if (n > 0)
		elog(ERROR, "column page has no records to read");
}

/* nothing to mark: the callers pass offsets they found as records */
static void
colpage_mark(Page page, const OffsetNumber *offs, int n)
{
	if (n > 0)
		elog(PANIC, "column page has no records to mark");
}

static void
colpage_compact(Page page)
{
}

/*
 * The structural check of the page kind only (the column checker reads
 * the contents through the directory).  Must not trust any byte.
 */
static bool
colpage_check_page(Page page, BlockNumber blkno, TupleDesc desc, char *errbuf,
				   Size errlen)
{
	PageHeader	ph = (PageHeader) page;
	uint32		magic;

	if (ph->pd_special != BLCKSZ - QS_COLPAGE_SPECIAL)
	{
		snprintf(errbuf, errlen, "column page %u: special space at %u",
				 blkno, ph->pd_special);
		return false;
	}
	magic = qs_column_page_magic(page);
	if (!qs_is_column_page(page))
	{
		snprintf(errbuf, errlen, "column page %u: unknown page kind 0x%08x",
				 blkno, magic);
		return false;
	}
	if (ph->pd_lower < SizeOfPageHeaderData || ph->pd_lower > ph->pd_upper ||
		ph->pd_upper > ph->pd_special)
	{
		snprintf(errbuf, errlen, "column page %u: pd_lower %u, pd_upper %u",
				 blkno, ph->pd_lower, ph->pd_upper);
		return false;
	}
	return true;
}

const QsPageLayout qs_colpage_layout = {
	.name = "column",
	.page_magic = 0,
	.slot_ops = colpage_slot_ops,
	.init_page = colpage_init_page,
	.max_record_size = colpage_max_record_size,
	.free_space = colpage_free_space,
	.record_fits = colpage_record_fits,
	.can_make_room = NULL,
	.make_room = NULL,
	.put_record = colpage_put_record,
	.max_offset = colpage_max_offset,
	.record_state = colpage_record_state,
	.normal_offsets = colpage_normal_offsets,
	.get_header = colpage_get_header,
	.set_header = colpage_set_header,
	.store_record = colpage_store_record,
	.copy_record = colpage_copy_record,
	.read_column = colpage_read_column,
	.read_columns = NULL,
	.filter_range = NULL,
	.mark_dead = colpage_mark,
	.mark_unused = colpage_mark,
	.compact = colpage_compact,
	.prepare_compact = NULL,
	.check_page = colpage_check_page,
};
