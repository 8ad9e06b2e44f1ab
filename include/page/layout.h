/*-------------------------------------------------------------------------
 *
 * layout.h
 *	  The in-page layout interface of the quickstep page engine (DESIGN §4).
 *
 * The engine (src/tableam/) owns buffers, locks, WAL, MVCC decisions and
 * page choice; a layout owns the bytes of a page.  The engine never reads
 * or writes page bytes itself: it calls these functions on a Page it has
 * pinned and locked (or, inside a generic-WAL section, on the page image
 * qs_genxlog_register returned).
 *
 * Logical record format.  A record is handed to a layout as a formed
 * HeapTuple (header + null bitmap + attributes, as heap_form_tuple builds
 * it and heap_toast_insert_or_update may rewrite it).  The layout stores it
 * however it likes (NSM: as is; PAX: scattered over minipages; HPL:
 * segments), and gives back:
 *	 - the MVCC header of a record (HeapTupleHeaderData), either as a pointer
 *	   into the page (NSM) or assembled in caller-provided scratch space; the
 *	   engine passes it to heap's visibility routines and, when those set
 *	   hint bits or the engine changes xmax/ctid, writes it back through
 *	   set_header (a no-op when the pointer is the page's own bytes);
 *	 - a record in a TupleTableSlot, only the attributes asked for;
 *	 - one attribute of many records in an array (for vectorized scans).
 *
 * Offsets are 1-based item numbers as in bufpage.h; a page holds at most
 * MaxHeapTuplesPerPage (291) records so TIDs fit tidbitmap.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_PAGE_LAYOUT_H
#define QS_PAGE_LAYOUT_H

#include "core/compat.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "nodes/bitmapset.h"
#include "storage/bufpage.h"
#include "storage/buf.h"
#include "utils/relcache.h"

#include "column/colstore.h"

/* State of an item slot on a page. */
typedef enum QsRecordState
{
	QS_REC_UNUSED,				/* free slot, or offset beyond the page */
	QS_REC_DEAD,				/* slot kept for index pointers, no data */
	QS_REC_NORMAL,				/* a record with header and attributes */
	QS_REC_REDIRECT				/* root of a HOT chain whose first versions
								 * were pruned: index entries point here,
								 * redirect_target names the chain's next
								 * member (heap's LP_REDIRECT) */
} QsRecordState;

/* What a scan's MVCC fast paths decide a record by (layout.h, mvcc_hints). */
typedef struct QsMvccHint
{
	TransactionId xmin;			/* raw xmin */
	TransactionId xmax;			/* raw xmax */
	uint16		infomask;
} QsMvccHint;

typedef struct QsPageLayout
{
	const char *name;			/* "nsm", "pax", "hpl" */

	/*
	 * Nonzero: every page in this layout's format starts, right after the
	 * page header, with this uint16, and a table of this layout may also
	 * have NSM pages (see qs_page_layout below).  The value has bit 14 set,
	 * which the first line pointer of an NSM page never has (lp_off <
	 * BLCKSZ <= 16384), and an all-zero hole never matches.  NSM: 0.
	 */
	uint16		page_magic;

	/* The slot kind records are returned in (slot_callbacks). */
	const TupleTableSlotOps *(*slot_ops) (void);

	/*
	 * Format an all-zero page (or reformat an empty one) for records of
	 * 'desc'.  A layout that sizes per-attribute areas from the descriptor
	 * records what it needs in the page itself (pages are self-describing:
	 * every other function must work from the page bytes alone, because
	 * ALTER TABLE ADD/DROP COLUMN changes the descriptor under old pages).
	 */
	void		(*init_page) (Page page, Size page_size, TupleDesc desc);

	/*
	 * Largest record (formed tuple length) an empty page can take.  Larger
	 * records are toasted first; still larger ones are refused.
	 */
	Size		(*max_record_size) (TupleDesc desc);

	/*
	 * Bytes free for new records (what the free space map records); 0 when
	 * the record-count limit is hit.  Only an estimate for layouts whose
	 * free space is split among areas: record_fits decides.
	 */
	Size		(*free_space) (Page page);

	/*
	 * Optional (NULL: free_space alone decides): true when the page is near
	 * a limit free_space does not show, so that opportunistic pruning
	 * (prune.c) runs before an update finds no room.  PAX: few free slots
	 * left in its capacity, while make_room could still find bytes.
	 */
	bool		(*prune_wanted) (Page page);

	/*
	 * Optional (NULL: free_space): the free space opportunistic pruning
	 * compares with its threshold — the room an update's new version has
	 * without pruning.  HPL: with DEAD or unused slots on the page (a
	 * heap-only version takes one: heaponly_takes_dead) the hole plus their
	 * fixed fields' bytes, else free_space, which charges the next slot's
	 * new units.
	 */
	Size		(*prune_free_space) (Page page);

	/*
	 * Optional (NULL: never).  True when the page has fewer slots a
	 * heap-only version could take (without pruning or growing) than a
	 * reserve of the layout's choosing, and cannot grow one: on a layout
	 * whose freed slots keep their storage (heaponly_takes_dead), the HOT
	 * chains' roots then hold the slots, and every update would need a
	 * prune first.  Pruning (prune.c) leaves such a page PD_PAGE_FULL, and
	 * while it is, an update of a heap-only version leaves the page (dml.c,
	 * fits_same_page): its chain's slots become free, so that pruning runs
	 * once per several updates instead of once per update.  Reads the page
	 * under the caller's exclusive (or cleanup) lock; no byte changes.
	 */
	bool		(*slots_short) (Page page);

	/*
	 * Would put_record succeed for this tuple, leaving at least 'reserve'
	 * bytes free (fillfactor)?  Must agree with put_record exactly.
	 */
	bool		(*record_fits) (Page page, TupleDesc desc, HeapTuple tuple,
								Size reserve);

	/*
	 * Optional (NULL: never).  A layout whose put_record never moves record
	 * bytes but whose free space is split among areas (PAX) can make room
	 * by moving them: can_make_room says whether that would let the tuple
	 * fit (record_fits true afterwards, with 'reserve'); make_room does it.
	 * The engine calls make_room under a cleanup lock inside a critical
	 * section (no palloc, no error) and logs a full page image (wal.c).
	 */
	bool		(*can_make_room) (Page page, TupleDesc desc, HeapTuple tuple,
								  Size reserve);
	void		(*make_room) (Page page, TupleDesc desc, HeapTuple tuple);

	/*
	 * Store a formed tuple (of 'desc', or of an older descriptor with fewer
	 * attributes); returns its offset (InvalidOffsetNumber if it does not
	 * fit).  Sets the stored record's t_ctid to (blkno, offset) and
	 * tuple->t_self likewise.
	 */
	OffsetNumber (*put_record) (Page page, TupleDesc desc, BlockNumber blkno,
								HeapTuple tuple);

	/* Highest offset in use or ever used (0 for an empty page). */
	OffsetNumber (*max_offset) (Page page);

	QsRecordState (*record_state) (Page page, OffsetNumber off);

	/*
	 * Optional (NULL: the engine asks record_state offset by offset): the
	 * offsets of the NORMAL records, ascending, into out[] (room for
	 * MaxHeapTuplesPerPage); returns how many.  Scans of all-visible pages
	 * need nothing else per record, so this is their whole visibility cost.
	 */
	int			(*normal_offsets) (Page page, OffsetNumber *out);

	/*
	 * Optional (NULL: record_state offset by offset): the state of every
	 * slot, out[off] for off = 1 .. max_offset, in one pass (pruning reads
	 * them all; HPL's record_state finds the page's geometry per call).
	 */
	void		(*record_states) (Page page, uint8 *out);

	/*
	 * The MVCC header of a NORMAL record: a pointer into the page or into
	 * *scratch.  *len gets the logical (formed tuple) length.
	 */
	HeapTupleHeader (*get_header) (Page page, OffsetNumber off,
								   HeapTupleHeaderData *scratch, uint32 *len);
	/*
	 * Optional (NULL: the engine reads get_header's): raw xmin, raw xmax and
	 * t_infomask of the NORMAL records offs[0..n-1], into out[], in one call
	 * per page.  A page scan decides most records by these alone (scan.c,
	 * mvcc_fast); a layout that assembles headers (HPL) then builds one only
	 * for the records they leave undecided.
	 */
	void		(*mvcc_hints) (Page page, const OffsetNumber *offs, int n,
							   QsMvccHint *out);
	/* Write back a header obtained from get_header (hint bits, xmax, ctid). */
	void		(*set_header) (Page page, OffsetNumber off, HeapTupleHeader hdr);

	/*
	 * Put record 'off' of the pinned buffer into 'slot' (of slot_ops kind),
	 * only attributes in 'attrs' need be valid (NULL: all).  The slot takes
	 * its own pin when it points into the page.
	 */
	void		(*store_record) (Relation rel, Buffer buf, Page page,
								 OffsetNumber off, TupleTableSlot *slot,
								 const Bitmapset *attrs);

	/* A palloc'd copy of the whole record as a formed HeapTuple. */
	HeapTuple	(*copy_record) (Relation rel, Page page, BlockNumber blkno,
								OffsetNumber off);

	/*
	 * Read attribute 'attnum' (1-based) of the records at offs[0..n-1] into
	 * values/isnull.  By-reference values point into the page (the caller
	 * keeps the pin).
	 */
	void		(*read_column) (Page page, TupleDesc desc, AttrNumber attnum,
								const OffsetNumber *offs, int n,
								Datum *values, bool *isnull);

	/*
	 * Optional (NULL: the engine calls read_column per attribute): read
	 * attributes attnums[0..ncols-1] (1-based, any order) of the records at
	 * offs[0..n-1] in one pass over the records, attribute c into values[c]
	 * and isnull[c].  For layouts that store a record's attributes together
	 * (NSM), where reading k columns one at a time walks each record k times.
	 */
	void		(*read_columns) (Page page, TupleDesc desc,
								 const AttrNumber *attnums, int ncols,
								 const OffsetNumber *offs, int n,
								 Datum **values, bool **isnull);

	/*
	 * Optional (NULL, or false returned: the engine reads the column and
	 * compares): keep in offs[0..*n-1], in order, the records whose
	 * attribute 'attnum' is not NULL and, read as a signed integer of
	 * 'width' bytes (2, 4 or 8), lies in [lo, hi] (outside it when
	 * 'outside'); *n gets the new count.  Returns false without touching
	 * anything when the page cannot decide from its stored values alone:
	 * the attribute is not a by-value integer of that width there, or some
	 * record may lack it while it has a non-NULL missing value.  Lets a
	 * layout that keeps a column's values together filter them in place,
	 * without materializing a Datum per record.
	 */
	bool		(*filter_range) (Page page, TupleDesc desc, AttrNumber attnum,
								 int width, int64 lo, int64 hi, bool outside,
								 OffsetNumber *offs, int *n);

	/* Mark records dead (keep slot for index pointers) or unused. */
	void		(*mark_dead) (Page page, const OffsetNumber *offs, int n);
	void		(*mark_unused) (Page page, const OffsetNumber *offs, int n);

	/*
	 * Optional (NULL: the layout has no HOT chains, and the engine never
	 * makes a heap-only version on its pages).  mark_redirect turns the
	 * slots from[i] into REDIRECTs to to[i] (their storage is dropped, as
	 * by mark_dead); redirect_target reads the target of a REDIRECT slot.
	 * Part of the WAL format, as mark_dead (PRUNE replays it).
	 */
	void		(*mark_redirect) (Page page, const OffsetNumber *from,
								  const OffsetNumber *to, int n);
	OffsetNumber (*redirect_target) (Page page, OffsetNumber off);

	/*
	 * True: a freed slot keeps storage of its own (HPL: its fixed fields), so
	 * that pruning would reclaim no space for the next version of an update
	 * unless that version may take the slot.  Then pruning leaves every slot
	 * it frees DEAD, never UNUSED (a heap-only version's slot too: it may be
	 * a DEAD slot reused, which stale index entries still name), and
	 * put_record/record_fits give a heap-only record (HEAP_ONLY_TUPLE set
	 * in the tuple it is handed) a DEAD slot before any other.  Safe
	 * because no index entry legitimately names a heap-only record: every
	 * index path (index fetch, bitmap scan, index_delete_tuples) treats an
	 * entry that reaches one at a chain's start as stale.  Only VACUUM,
	 * after removing the index entries of a DEAD slot, makes it UNUSED (and
	 * only if it is still DEAD: vacuum.c).
	 */
	bool		heaponly_takes_dead;

	/*
	 * Reclaim the space of dead/unused records.  Moves record bytes: the
	 * caller holds a cleanup lock (no other pin).  mark_dead, mark_unused,
	 * prepare_compact and compact are replayed by the engine's PRUNE record
	 * (wal.c) under a cleanup lock: they are part of the WAL format (a
	 * change to their output needs a new record op code) and must depend
	 * on the page's bytes alone, never on hint bits.
	 */
	void		(*compact) (Page page);

	/*
	 * Optional: called on the page, under the same lock, before the
	 * critical section in which mark_dead/mark_unused and compact run, so
	 * that everything they need from the backend (HPL: the page's cached
	 * geometry) exists before then: inside the critical section they may
	 * not allocate memory or raise an error.
	 */
	void		(*prepare_compact) (Page page);

	/*
	 * Structural check of one page; false with a message in errbuf when
	 * the page is corrupt.  Must not trust any byte of the page.
	 */
	bool		(*check_page) (Page page, BlockNumber blkno, TupleDesc desc,
							   char *errbuf, Size errlen);
} QsPageLayout;

/*
 * Every layout keeps PostgreSQL's standard page header valid (PageInit, so
 * checksums and PageIsVerified work, and the engine keeps its prune hint in
 * pd_prune_xid with PageSetPrunable/PageClearPrunable, as heap does) and
 * keeps the bytes between pd_lower and pd_upper unused: generic WAL and full page images omit that hole
 * (REGBUF_STANDARD).  A layout without one free hole sets pd_upper =
 * pd_lower.
 */

/*
 * QS_RANGE_FILTER: the compare-and-compact loop of a filter_range
 * implementation.  PRESENT and VALUE are expressions of the slot 's'
 * (offset - 1): whether the record has a non-NULL value, and the value as a
 * signed integer.  VALUE is read for every record, so it must be safe to
 * read for any slot of the page.  Branch-free: lo <= v <= hi is one
 * unsigned comparison.
 */
#define QS_RANGE_FILTER(offs, n, lo, hi, outside, PRESENT, VALUE) \
	do { \
		uint64		span_ = (uint64) (hi) - (uint64) (lo); \
		int			k_ = 0; \
		int			n_ = *(n); \
		\
		for (int j_ = 0; j_ < n_; j_++) \
		{ \
			int			s = (offs)[j_] - 1; \
			bool		in_ = ((uint64) (int64) (VALUE) - (uint64) (lo)) <= span_; \
			\
			(offs)[k_] = (offs)[j_]; \
			k_ += ((PRESENT) && in_ != (outside)); \
		} \
		*(n) = k_; \
	} while (0)

/*
 * QS_PREFETCH: ask for the cache line at 'p' ahead of use.  A filter over a
 * page touches a few lines per column, each a cache miss when the page was
 * not read lately; prefetching them all first overlaps those misses.
 */
#if defined(__GNUC__) || defined(__clang__)
#define QS_PREFETCH(p) __builtin_prefetch(p)
#else
#define QS_PREFETCH(p) ((void) (p))
#endif

/*
 * Attributes a rolled-back ADD COLUMN left on a page (src/page/stale.c).
 * PAX and HPL pages describe each attribute in their directory (length,
 * alignment, by value or not), fixed when the page was formatted.  An
 * attribute number is reused only after an ADD COLUMN that rolled back
 * (a dropped column keeps its number), and ADD COLUMN holds an
 * AccessExclusiveLock, so a page may describe an attribute the table now
 * defines differently ("stale"), and then only records of transactions
 * that did not commit hold values of it.  Writers refuse to store a record
 * with the attribute on such a page; readers never decode a stale
 * attribute with the table's descriptor (it reads as missing);
 * check_page accepts values of stale attributes only in records whose
 * inserting transaction did not commit.
 *
 * qs_page_att_stale: does a directory entry (attlen, attalign, byval) no
 * longer store the table's attribute 'att'?  A dropped attribute keeps its
 * length, alignment and byval (RemoveAttributeById), so it matches.
 * qs_page_xmin_failed: the inserting transaction of a record with this
 * xmin and infomask is known not to have committed and is not running.
 */
static inline bool
qs_page_att_stale(int16 attlen, char attalign, bool attbyval,
				  Form_pg_attribute att)
{
	return attlen != att->attlen || attalign != att->attalign ||
		attbyval != att->attbyval;
}
extern bool qs_page_xmin_failed(TransactionId xmin, uint16 infomask);

/* The layouts (src/page/). */
extern const QsPageLayout qs_nsm_layout;
extern const QsPageLayout qs_pax_layout;
extern const QsPageLayout qs_hpl_layout;

/*
 * The non-row pages of column tables (src/column/colpage.c): metapage,
 * directory, block runs and delete maps among a column table's HPL delta
 * pages.  A page layout without records, so that every engine loop passes
 * over them.  Told apart by their 16-byte special space (row pages have
 * none), checked before the layout magic because a block run's payload
 * may start with any bytes.
 */
extern const QsPageLayout qs_colpage_layout;

/*
 * Delete-map pages of column tables (src/column/delmap.c): a main row's
 * header per entry.  qs_colpage_layout hands them the header functions;
 * VACUUM iterates their entries as records (max_offset is theirs).
 */
extern const QsPageLayout qs_coldelmap_layout;
/* a delete-map entry's state: NORMAL, DEAD (no xid, index entries may stay), UNUSED */
extern QsRecordState qs_coldelmap_entry_state(Page page, OffsetNumber off);

StaticAssertDecl(BLCKSZ <= 16384,
				 "page_magic relies on line pointer offsets below 16384");

/*
 * NSM pages in tables of other layouts.  A record a layout cannot store
 * (longer than its max_record_size, e.g. an 8 kB row on PAX, or any row of
 * a descriptor too wide for its directory) goes on a standard NSM page of
 * the same relation instead of being refused, so every layout takes every
 * row heap takes.  Such a page is told apart by the magic: a page that is
 * not new and does not start with the relation layout's magic is NSM.
 * The engine calls a layout on a page only through the qs_page_* wrappers
 * below, which resolve the page's own layout first; it chooses NSM pages
 * only for records the relation's layout cannot take (dml.c).
 */
static inline const QsPageLayout *
qs_page_layout(const QsPageLayout *L, Page page)
{
	if (L->page_magic != 0 && !PageIsNew(page))
	{
		/* first: a column page's payload may start with any bytes */
		if (qs_is_column_page(page))
			return &qs_colpage_layout;
		if (*(const uint16 *) ((const char *) page + SizeOfPageHeaderData) != L->page_magic)
			return &qs_nsm_layout;
	}
	return L;
}

static inline Size
qs_page_free_space(const QsPageLayout *L, Page page)
{
	return qs_page_layout(L, page)->free_space(page);
}

static inline OffsetNumber
qs_page_max_offset(const QsPageLayout *L, Page page)
{
	return qs_page_layout(L, page)->max_offset(page);
}

static inline QsRecordState
qs_page_record_state(const QsPageLayout *L, Page page, OffsetNumber off)
{
	return qs_page_layout(L, page)->record_state(page, off);
}

static inline HeapTupleHeader
qs_page_get_header(const QsPageLayout *L, Page page, OffsetNumber off,
				   HeapTupleHeaderData *scratch, uint32 *len)
{
	return qs_page_layout(L, page)->get_header(page, off, scratch, len);
}

static inline void
qs_page_set_header(const QsPageLayout *L, Page page, OffsetNumber off,
				   HeapTupleHeader hdr)
{
	qs_page_layout(L, page)->set_header(page, off, hdr);
}

static inline void
qs_page_store_record(const QsPageLayout *L, Relation rel, Buffer buf,
					 Page page, OffsetNumber off, TupleTableSlot *slot,
					 const Bitmapset *attrs)
{
	qs_page_layout(L, page)->store_record(rel, buf, page, off, slot, attrs);
}

static inline HeapTuple
qs_page_copy_record(const QsPageLayout *L, Relation rel, Page page,
					BlockNumber blkno, OffsetNumber off)
{
	return qs_page_layout(L, page)->copy_record(rel, page, blkno, off);
}

static inline void
qs_page_read_column(const QsPageLayout *L, Page page, TupleDesc desc,
					AttrNumber attnum, const OffsetNumber *offs, int n,
					Datum *values, bool *isnull)
{
	qs_page_layout(L, page)->read_column(page, desc, attnum, offs, n,
										 values, isnull);
}

static inline void
qs_page_mark_dead(const QsPageLayout *L, Page page, const OffsetNumber *offs,
				  int n)
{
	qs_page_layout(L, page)->mark_dead(page, offs, n);
}

static inline void
qs_page_mark_unused(const QsPageLayout *L, Page page,
					const OffsetNumber *offs, int n)
{
	qs_page_layout(L, page)->mark_unused(page, offs, n);
}

static inline void
qs_page_prepare_compact(const QsPageLayout *L, Page page)
{
	const QsPageLayout *PL = qs_page_layout(L, page);

	if (PL->prepare_compact)
		PL->prepare_compact(page);
}

static inline void
qs_page_compact(const QsPageLayout *L, Page page)
{
	qs_page_layout(L, page)->compact(page);
}

/* Does the page hold a record (a slot not UNUSED)? */
static inline bool
qs_page_has_records(const QsPageLayout *L, Page page)
{
	const QsPageLayout *PL;
	OffsetNumber maxoff;

	if (PageIsNew(page))
		return false;
	PL = qs_page_layout(L, page);
	if (PL == &qs_colpage_layout)
		return true;			/* never reformatted or truncated as empty */
	maxoff = PL->max_offset(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		if (PL->record_state(page, off) != QS_REC_UNUSED)
			return true;
	return false;
}

#endif							/* QS_PAGE_LAYOUT_H */
