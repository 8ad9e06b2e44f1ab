/*-------------------------------------------------------------------------
 *
 * colstore.h
 *	  The storage of quickstep_column tables inside the relation's main fork
 *	  (src/column/README.md section 1): the metapage, the block directory,
 *	  block runs, virtual TIDs, and the backend side of the block format
 *	  (comparators, datums, corruption reports).
 *
 * Page kinds.  Delta pages are the row engine's (HPL layout).  Every other
 * page of a column table carries a 16-byte special space {u32 magic, u32 a,
 * u32 b, u32 c}; row pages have none (PageInit(page, size, 0)), so
 * qs_page_layout() tells the two apart without trusting any payload byte
 * and hands column pages to qs_colpage_layout, a layout without records:
 * the engine's scans, VACUUM, pruning, FSM and page choice pass over them.
 *
 * include/column/colstore.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_COLSTORE_H
#define QS_COLUMN_COLSTORE_H

#include "core/compat.h"
#include "core/quickstep.h"

#include "access/heapam.h"
#include "access/htup.h"
#include "access/transam.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "storage/block.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "column/colblock.h"
#include "tableam/pagerange.h"

/* special-space magics ("QSCP" is QS_COLPAGE_MAGIC, colblock.h) */
#define QS_COLMETA_MAGIC		0x4D435351	/* "QSCM" metapage */
#define QS_COLDIR_MAGIC			0x44435351	/* "QSCD" directory page */
#define QS_COLDELMAP_MAGIC		0x58435351	/* "QSCX" delete-map page */

#define QS_COLMETA_BLKNO		0
#define QS_COLMETA_VERSION		1

/*
 * Is this (non-new) page one of a column table's non-row pages?  Row pages
 * have no special space; a column page has exactly 16 bytes whose first
 * word is one of the four magics.
 */
static inline bool
qs_is_column_page(Page page)
{
	uint32		magic;

	if (PageGetSpecialSize(page) != QS_COLPAGE_SPECIAL)
		return false;
	memcpy(&magic, PageGetSpecialPointer(page), sizeof(magic));
	return magic == QS_COLPAGE_MAGIC || magic == QS_COLMETA_MAGIC ||
		magic == QS_COLDIR_MAGIC || magic == QS_COLDELMAP_MAGIC;
}

static inline uint32
qs_column_page_magic(Page page)
{
	uint32		magic;

	memcpy(&magic, PageGetSpecialPointer(page), sizeof(magic));
	return magic;
}

/* ------------------------------------------------------------------------
 * Virtual TIDs (README section 3)
 * ------------------------------------------------------------------------
 */
#define QS_VIRT_BASE			((BlockNumber) 0x80000000)
#define QS_VIRT_END				((BlockNumber) 0xC0000000)
#define QS_VIRT_PAGES_PER_RANGE 4096
#define QS_VIRT_MAX_RANGES		((QS_VIRT_END - QS_VIRT_BASE) / QS_VIRT_PAGES_PER_RANGE)

static inline bool
qs_tid_is_virtual(ItemPointer tid)
{
	BlockNumber b = ItemPointerGetBlockNumberNoCheck(tid);

	return b >= QS_VIRT_BASE && b < QS_VIRT_END;
}

static inline void
qs_virt_tid(uint32 range, uint32 row, ItemPointer tid)
{
	ItemPointerSet(tid,
				   QS_VIRT_BASE + range * QS_VIRT_PAGES_PER_RANGE +
				   row / QS_COLBLOCK_TIDS_PER_PAGE,
				   (OffsetNumber) (row % QS_COLBLOCK_TIDS_PER_PAGE + 1));
}

/* range and row of a virtual TID; false if the offset is out of range */
static inline bool
qs_virt_decode(ItemPointer tid, uint32 *range, uint32 *row)
{
	BlockNumber b = ItemPointerGetBlockNumberNoCheck(tid) - QS_VIRT_BASE;
	OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(tid);

	if (off < 1 || off > QS_COLBLOCK_TIDS_PER_PAGE)
		return false;
	*range = b / QS_VIRT_PAGES_PER_RANGE;
	*row = (b % QS_VIRT_PAGES_PER_RANGE) * QS_COLBLOCK_TIDS_PER_PAGE + off - 1;
	return true;
}

/* ------------------------------------------------------------------------
 * Metapage and directory (dir.c)
 * ------------------------------------------------------------------------
 */

/* The metapage's contents, at PageGetContents(page). */
typedef struct QsColMeta
{
	uint32		magic;			/* QS_COLMETA_MAGIC */
	uint32		version;		/* QS_COLMETA_VERSION */
	uint32		next_block_id;	/* ids start at 1 */
	uint32		next_range;		/* next virtual TID range */
	BlockNumber dir_head;		/* first directory page, or Invalid */
	BlockNumber dir_tail;		/* last directory page, or Invalid */
	uint32		nentries;		/* directory entries in all pages */
	float4		stat_rows;		/* rows the directory and the delta's pages
								 * predicted when an earlier version's VACUUM
								 * or ANALYZE set reltuples; read while
								 * stat_parts is 0, no longer written */
	uint64		move_counter;	/* README section 4.3 */
	uint64		next_identity;	/* README section 4.6 */

	/*
	 * What VACUUM or ANALYZE counted when it last set reltuples: the
	 * blocks' rows (all, and not deleted) and the delta's pages (am.c,
	 * col_estimate_size); valid
	 * when stat_parts is 1 (a metapage written before these fields has
	 * zeros here, past its pd_lower, and is estimated by stat_rows).
	 */
	float4		stat_main_rows;
	uint32		stat_delta_pages;
	uint32		stat_parts;
	float4		stat_main_live; /* stat_main_rows less those deleted */
} QsColMeta;

/* states of a directory entry */
#define QS_COLBLK_OPEN			1
#define QS_COLBLK_SEALED		2
#define QS_COLBLK_RETIRED		3

/* directory entry flags */
#define QS_COLDIR_RUN_RECLAIMED	0x0001	/* the run's pages went back to the delta */
#define QS_COLDIR_PENDING		0x0002	/* a load is buffering its rows: no run yet */
#define QS_COLDIR_MERGED		0x0004	/* written by a merge (src/merge): xmin is the merge */
#define QS_COLDIR_INDEX_CLEANED 0x0008	/* RETIRED, and VACUUM removed its index entries */
#define QS_COLDIR_SUPERSEDED	0x0010	/* RETIRED: a newer version of the block holds its rows */
#define QS_COLDIR_EMPTIED		0x0020	/* RETIRED by VACUUM: every row deleted and
										 * removed; cid holds the next xid at
										 * retirement (qs_coldir_retire_emptied) */
#define QS_COLDIR_FREE_RANGE	0x0040	/* a FREE-range entry (README section 4.7) */
#define QS_COLDIR_CID_IS_XMIN	0x0080	/* xmin frozen by VACUUM, which kept the
										 * writer's xid in cid for the xmin
										 * system column only
										 * (qs_coldir_row_shown_xmin) */

/*
 * A FREE-range entry keeps freed pages [run_start, run_start + npages)
 * once VACUUM compacted away the retired entries that named them
 * (qs_coldir_compact), or pages a seal's move is about to convert
 * (qs_coldir_append_free, so that VACUUM's sweep gives them back if the
 * seal fails or crashes before its entry names them): block_id 0 (ids
 * start at 1), the TID range past every real one (never reserved, sorts
 * last), RETIRED with exactly these flags, cid = the compaction's
 * generation (a move's entry: a generation of its own).  Every reader that skips
 * RETIRED or RUN_RECLAIMED entries skips it; run.c counts it as freed.
 */
#define QS_COLDIR_FREE_FLAGS \
	(QS_COLDIR_RUN_RECLAIMED | QS_COLDIR_INDEX_CLEANED | QS_COLDIR_FREE_RANGE)
#define QS_COLDIR_FREE_TIDRANGE	((uint32) QS_VIRT_MAX_RANGES)

/*
 * One directory entry per block version.  xmin/cid: the loading
 * transaction of a bulk-loaded block (its rows are visible exactly when
 * a heap tuple with that xmin and cmin would be), or the merge that wrote
 * the version.  An open block has a version per merge that appended to it
 * (src/merge/README.md section 5): the same block_id, TID range and delete
 * map; 'base' rows came from the previous version (visible to everybody),
 * rows base..published-1 are the writer's; xmax is the merge that wrote
 * the next version (cid then holds its command as cmax: the version's own
 * writer is then committed), as a heap UPDATE of the entry.
 */
typedef struct QsColDirEntry
{
	uint32		block_id;
	uint16		state;
	uint16		flags;
	BlockNumber run_start;
	uint32		npages;
	uint32		tid_range;
	uint32		nrows;
	uint32		published;		/* rows 0..published-1 exist */
	TransactionId xmin;
	CommandId	cid;
	BlockNumber src_first;		/* MERGED: the first and last delta page */
	uint64		image_len;
	TransactionId xmax;			/* the merge that superseded this version */
	uint32		base;			/* rows of the previous version */
	BlockNumber delmap_root;	/* InvalidBlockNumber: no delete map yet */
	BlockNumber src_last;		/* its rows came from (moved.c) */
} QsColDirEntry;

/* A directory page: this header at PageGetContents, then entries. */
typedef struct QsColDirPageHeader
{
	BlockNumber next;			/* next directory page, or Invalid */
	uint32		nentries;
} QsColDirPageHeader;

#define QS_COLDIR_PER_PAGE \
	((BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - QS_COLPAGE_SPECIAL - \
	  sizeof(QsColDirPageHeader)) / sizeof(QsColDirEntry))

/*
 * The inserter of row 'row' of a version: its writer for the rows it
 * appended, frozen for the rows of older versions (a merge appends only to
 * a version visible to every snapshot that exists or will exist).
 */
static inline TransactionId
qs_coldir_row_xmin(const QsColDirEntry *e, uint32 row)
{
	return row >= e->base ? e->xmin : FrozenTransactionId;
}

/*
 * What the xmin system column shows for row 'row' of a version whose rows
 * are frozen: the writer VACUUM froze (kept in cid, as heap keeps a frozen
 * tuple's raw xmin, so that xmin does not change when VACUUM freezes), or
 * FrozenTransactionId (rows of older versions of an open block).  Never
 * used for visibility: qs_coldir_row_xmin says who inserted the row.
 */
static inline TransactionId
qs_coldir_row_shown_xmin(const QsColDirEntry *e, uint32 row)
{
	if (row >= e->base && (e->flags & QS_COLDIR_CID_IS_XMIN))
		return (TransactionId) e->cid;
	return FrozenTransactionId;
}

/* The directory as a backend sees it at one moment. */
typedef struct QsColDirectory
{
	uint32		nentries;
	QsColDirEntry *entries;		/* palloc'd, in directory order */
} QsColDirectory;

static inline bool
qs_coldir_is_free(const QsColDirEntry *e)
{
	return (e->flags & QS_COLDIR_FREE_RANGE) != 0;
}

extern void qs_colmeta_init(Relation rel);
extern void qs_colmeta_init_page(Page page);
extern void qs_colmeta_read(Relation rel, QsColMeta *meta);
extern Size qs_coldirgen_shmem_size(void);
extern void qs_coldirgen_shmem_request(void);
extern void qs_coldirgen_shmem_init(void);
extern void qs_coldir_changed(Relation rel);
extern void qs_coldir_changed_locator(const RelFileLocator *loc);
extern bool qs_coldir_gen(Relation rel, uint64 *gen);
extern bool qs_coldir_find_current(Relation rel, uint32 range,
								   QsColDirEntry *out);
extern uint64 qs_coldir_delmap_pages(Relation rel);
extern void qs_coldir_read_range_visible(Relation rel, Snapshot snapshot,
										 uint32 range, QsColDirectory *dir);
extern void qs_coldir_read(Relation rel, QsColDirectory *dir);
extern void qs_coldir_read_all(Relation rel, QsColDirectory *dir);
extern void qs_coldir_read_range(Relation rel, uint32 range,
								 QsColDirectory *dir);
extern void qs_coldir_read_range_all(Relation rel, uint32 range,
									 QsColDirectory *dir);
extern bool qs_coldir_version_alive(const QsColDirEntry *e);
extern bool qs_coldir_row_surely_dead(Relation rel, uint32 range, uint32 row);
extern bool qs_coldir_xmax_aborted(const QsColDirEntry *e);
extern bool qs_coldir_xmax_aborted_seal(const QsColDirectory *all,
										const QsColDirEntry *e);
extern void qs_coldir_supersede(Relation rel, const QsColDirEntry *old,
								const QsColDirEntry *entry);
extern void qs_coldir_read_visible(Relation rel, Snapshot snapshot,
								   QsColDirectory *dir);
extern const QsColDirEntry *qs_coldir_find_range(const QsColDirectory *dir,
												 uint32 range);
extern uint32 qs_coldir_reserve(Relation rel, uint32 *range);
extern void qs_coldir_append(Relation rel, const QsColDirEntry *entry);
extern void qs_coldir_append_reserved(Relation rel, QsColDirEntry *entry);
extern HTSV_Result qs_coldir_entry_vacuum_status(Relation rel,
												 const QsColDirEntry *e,
												 TransactionId OldestXmin,
												 Buffer buf);
extern TransactionId qs_coldir_freeze(Relation rel, TransactionId horizon);
extern uint32 qs_coldir_reclaim(Relation rel);
extern uint32 qs_coldir_retire_emptied(Relation rel);
extern uint32 qs_coldir_compact(Relation rel);
extern void qs_coldir_append_free(Relation rel, const QsPageRange *r);
extern void qs_coldir_debug_wait(int point);
/* The directory's size, walked under one metapage hold (qs_coldir_count). */
typedef struct QsColDirSize
{
	uint64		entries;		/* entries in its pages */
	uint64		pages;			/* pages in its chain */
	uint64		free_entries;	/* FREE-range entries */
	uint64		free_pages;		/* pages they list */
	uint64		meta_entries;	/* the metapage's count, in the same hold */
} QsColDirSize;

extern void qs_coldir_count(Relation rel, QsColDirSize *size);

/*
 * quickstep.debug_vacuum_crash (tests only, src/core/guc.c): PANIC at one
 * step of VACUUM's retirement of emptied blocks (1-3, dir.c), in any
 * run write into existing pages (4, run.c: freed ranges or a seal's
 * window), or in the directory's compaction (5-6, dir.c), for crash
 * tests; 7: as 4 with an ERROR (tests of a failed seal's move).
 */
#define QS_DEBUG_VACUUM_INDEXED	1	/* index pass done, nothing retired */
#define QS_DEBUG_VACUUM_RETIRED	2	/* a block retired, no page given back */
#define QS_DEBUG_VACUUM_RECLAIMED 3	/* pages given back, entry not flagged */
#define QS_DEBUG_RUN_CONVERTING	4	/* a run write into existing pages: one done */
#define QS_DEBUG_VACUUM_COMPACT_FREE 5	/* compaction: FREE entries appended */
#define QS_DEBUG_VACUUM_COMPACT_STEP 6	/* compaction: first pack step logged */
#define QS_DEBUG_RUN_CONVERT_ERROR 7	/* as 4, but an ERROR, not a PANIC */

extern void qs_debug_vacuum_point(int point);
extern void qs_colmeta_set_stats(Relation rel, double main_rows,
								 double main_live, BlockNumber delta_pages);
/* the blocks' pages, one [start, end) per block */
extern QsPageRange *qs_coldir_runs(Relation rel, int *nruns);
extern bool qs_coldir_lookup(Relation rel, ItemPointer vtid,
							 QsColDirEntry *entry, uint32 *row);
extern void qs_coldir_retired_ranges(Relation rel, uint32 **ranges,
									 uint32 **first_rows, int *n);
extern void qs_coldir_ranges_cleaned(Relation rel, const uint32 *ranges, int n);
extern bool qs_coldir_entry_visible(Relation rel, const QsColDirEntry *e,
									Snapshot snapshot);
extern Buffer qs_coldir_lock_entry(Relation rel, uint32 block_id,
								   uint32 *idx, Buffer *mbuf);
extern void qs_coldir_unlock_entry(Buffer buf, Buffer mbuf);
extern void qs_coldir_publish(Relation rel, const QsColDirEntry *final);
extern bool qs_coldir_pending_visible(Relation rel, uint32 range,
									  Snapshot snapshot, QsColDirEntry *out);
extern QsColDirEntry *qs_coldir_page_entry(Page page, uint32 idx);

/* ------------------------------------------------------------------------
 * The delete map (delmap.c, README section 4.1)
 * ------------------------------------------------------------------------
 */
#define QS_COLDELMAP_ENTRY_SIZE	24	/* one HeapTupleHeaderData per row */
#define QS_COLDELMAP_ROOT_MAX \
	((BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - QS_COLPAGE_SPECIAL) / sizeof(BlockNumber))

/* A block's root: the delete-map page of each virtual page, or Invalid. */
typedef struct QsColDelmapRoot
{
	uint32		n;
	BlockNumber *pages;
} QsColDelmapRoot;

extern bool qs_coldelmap_page_info(Page page, uint32 *block_id,
								   BlockNumber *vblock, uint32 *n);
extern HeapTupleHeader qs_coldelmap_entry(Page page, OffsetNumber off);
extern bool qs_coldelmap_dead_entry_ok(Page page, OffsetNumber off);
extern bool qs_colmain_needs_no_buffer(const HeapTupleHeaderData *hdr,
									   Snapshot snapshot);
extern void qs_coldelmap_root(Relation rel, const QsColDirEntry *e,
							  QsColDelmapRoot *root);
extern void qs_coldelmap_ensure_root(Relation rel, QsColDirEntry *e);
extern Buffer qs_coldelmap_page(Relation rel, const QsColDirEntry *e,
								const QsColDelmapRoot *root, uint32 vpage,
								int mode);
extern Buffer qs_coldelmap_buffer(Relation rel, ItemPointer tid, bool create);
extern Buffer qs_coldelmap_buffer_any(Relation rel, ItemPointer tid);
extern Buffer qs_coldelmap_buffer_any_in(Relation rel, const QsColDirectory *all,
										 ItemPointer tid);
extern BlockNumber qs_coldelmap_new_root(Relation rel, uint32 block_id,
										 uint32 capacity);
extern uint32 qs_coldelmap_capacity(Relation rel, const QsColDirEntry *e);
extern bool qs_coldelmap_all_removed(Relation rel, const QsColDirEntry *e);
extern bool qs_coldelmap_rows_removed(Relation rel, const QsColDirEntry *e,
									  uint32 from);
extern uint32 qs_coldelmap_reclaim(Relation rel, const QsColDirEntry *e);
extern uint32 qs_coldelmap_npages(Relation rel, const QsColDirEntry *e);
extern void qs_coldelmap_extend(Relation rel, const QsColDirEntry *e);
extern void qs_colmain_hint_xmin(HeapTupleHeader hdr);
extern void qs_colmain_hinted_header(const QsColDirEntry *e, ItemPointer tid,
									 HeapTupleHeader hdr);
extern bool qs_coldelmap_header(Relation rel, const QsColDirEntry *e,
								uint32 row, Snapshot snapshot,
								HeapTupleHeader hdr, bool *visible);

/* the engine's block number of a buffer's records: a delete map's virtual page */
static inline BlockNumber
qs_buffer_tid_block(Buffer buf)
{
	BlockNumber vblock;

	if (qs_coldelmap_page_info(BufferGetPage(buf), NULL, &vblock, NULL))
		return vblock;
	return BufferGetBlockNumber(buf);
}

/* main rows by TID, whatever their visibility (am.c) */
extern void qs_colmain_default_header(const QsColDirEntry *e, ItemPointer tid,
									  HeapTupleHeader hdr);
extern void qs_colmain_store(Relation rel, ItemPointer tid, HeapTupleHeader hdr,
							 TupleTableSlot *slot);
extern void qs_colmain_prefetch(Relation rel, ItemPointer tid);
extern HeapTuple qs_colmain_copy(Relation rel, ItemPointer tid,
								 HeapTupleHeader hdr);

/* ------------------------------------------------------------------------
 * Runs (run.c)
 * ------------------------------------------------------------------------
 */
extern BlockNumber qs_colrun_write(Relation rel, uint32 block_id,
								   const uint8 *image, uint64 image_len,
								   BufferAccessStrategy strategy);
/*
 * The windows of empty pages quickstep.seal() may move runs down into
 * (run.c, README section 4.7 "The seal moves runs down"): read from the
 * free space map once per seal, then kept in memory, each move's pages and
 * each page found taken cut out.
 */
typedef struct QsRunWindows
{
	MemoryContext cxt;			/* where w lives */
	QsPageRange *w;				/* ascending, disjoint; NULL when none */
	int			n;
} QsRunWindows;

extern void qs_colrun_empty_windows(Relation rel, QsRunWindows *ws);
extern bool qs_colrun_window_fits(const QsRunWindows *ws, uint32 npages,
								  BlockNumber below);
extern BlockNumber qs_colrun_write_below(Relation rel, uint32 block_id,
										 const uint8 *image, uint64 image_len,
										 BlockNumber below, QsRunWindows *ws);
extern uint32 qs_colrun_reclaim(Relation rel, const QsColDirEntry *e);
extern uint32 qs_colrun_sweep(Relation rel, BufferAccessStrategy bstrategy);
extern QsPageRange *qs_colrun_free_ranges(const QsColDirectory *all,
										  BlockNumber nblocks, int *nfree);
extern void qs_colpage_give_back(Relation rel, Buffer buf);
extern Buffer qs_colpage_take_free(Relation rel);

/* A block opened for reading: header checked, sections read on demand. */
typedef struct QsColBlockHandle
{
	Relation	rel;
	QsColDirEntry entry;
	uint8	   *header;			/* header_len bytes */
	QsColBlock	blk;
} QsColBlockHandle;

extern void qs_colblock_load(Relation rel, const QsColDirEntry *e,
							 QsColBlockHandle *h);
extern QsCodecStatus qs_colblock_try_load(Relation rel, const QsColDirEntry *e,
										  QsColBlockHandle *h, QsCodecErr *err);
extern uint8 *qs_colblock_read_bytes_alloc(QsColBlockHandle *h, uint64 off,
										   uint64 len,
										   const QsCodecAllocator *alloc);
extern uint8 *qs_colblock_read_bytes(QsColBlockHandle *h, uint64 off,
									 uint64 len);
extern void qs_colblock_release(QsColBlockHandle *h);
QS_NORETURN_PREFIX extern void qs_colblock_report(Relation rel, uint32 block_id,
												  QsCodecStatus st,
												  const QsCodecErr *err) QS_NORETURN_SUFFIX;

/* ------------------------------------------------------------------------
 * Values of the backend (values.c)
 * ------------------------------------------------------------------------
 */

/* The column's order and physical type, looked up once per relation. */
typedef struct QsColAttr
{
	int			natts;			/* element 0: how many the array has */
	TupleDesc	desc;			/* element 0: the descriptor they were made for */
	Oid			typid;
	Oid			collation;
	QsColType	type;
	bool		has_order;		/* default btree opclass found */
	bool		dict_ok;		/* equal implies identical (BTEQUALIMAGE,
								 * or the typmod's canonical images) */
	bool		dict_typmod;	/* dict_ok only for canonical images: each
								 * block checks its values
								 * (qs_colattr_canonical) */
	int32		typmod;
	bool		is_int;			/* FOR candidates: int4/int8-like */
	QsCmpFn		cmpfn;			/* the comparator to hand the codec */
	FmgrInfo	cmp;			/* btree support function 1 */
	MemoryContext cxt;			/* where the scratch below lives */
	void	   *cmpbuf[2];		/* aligned scratch for the comparator */
	size_t		cmpbuf_len[2];
} QsColAttr;

extern QsColAttr *qs_colattrs(TupleDesc desc);
extern bool qs_colattr_canonical(const QsColAttr *a, const uint8 *p, size_t len);
extern Datum qs_colattr_datum(const QsColAttr *a, const uint8 *p, size_t len,
							  MemoryContext cxt);
extern Datum qs_colattr_datum_buf(const QsColAttr *a, const uint8 *p,
								  size_t len, MemoryContext cxt, void **buf,
								  size_t *buflen);
extern int	qs_colattr_cmp(const void *a, size_t alen, const void *b,
						   size_t blen, void *arg);
extern const QsCodecAllocator *qs_palloc_allocator(void);

#ifdef HAVE_INT128
/*
 * A numeric value as an exact integer at its display scale: v * 10^-dscale
 * (qs_numeric_decode).  QS_NUM_WIDE: finite but not held exactly (more than
 * an int128 or a scale above QS_NUM_MAX_SCALE); dscale is still the
 * value's.  NaN and the infinities carry no digits (dscale 0).
 */
typedef enum QsNumKind
{
	QS_NUM_FINITE,
	QS_NUM_NAN,
	QS_NUM_PINF,
	QS_NUM_NINF,
	QS_NUM_WIDE
} QsNumKind;

/* 10^38 < 2^127 < 10^39: every power of ten up to this fits an int128 */
#define QS_NUM_MAX_SCALE	38

typedef struct QsNum
{
	int128		v;
	int32		dscale;
	int32		kind;			/* QsNumKind */
} QsNum;

extern void qs_numeric_decode(const uint8 *p, size_t len, QsNum *out);
extern int128 qs_int128_pow10(int e);
#endif
extern int	qs_numeric_typmod_scale(int32 typmod);

/* Building a block column by column (build.c) */
typedef struct QsColBuildCol
{
	uint32		n;				/* non-NULL values */
	bool		anynull;
	uint64	   *nulls;			/* presence bitmap */
	size_t		nulls_cap;		/* words */
	size_t		nulls_zeroed;	/* words known zero beyond the rows */
	uint8	   *fixed;			/* fixed width: n * typlen bytes */
	size_t		fixed_cap;
	uint8	   *var;			/* variable width: the values' bytes */
	size_t		var_len;
	size_t		var_cap;
	uint64	   *offs;			/* and each one's offset and length */
	size_t		offs_cap;
	uint32	   *lens;
	size_t		lens_cap;
} QsColBuildCol;

typedef struct QsColBuilder
{
	MemoryContext cxt;			/* the arrays live here */
	int			natts;
	QsColAttr  *attrs;
	QsColBuildCol *cols;
	uint32		nrows;
	Size		bytes;			/* value bytes buffered */
	size_t		nulls_ready;	/* bitmap words every column holds, zeroed */
	size_t		fixed_ready;	/* values every by-value column holds */
	struct QsColScratch *scratch;	/* big buffers kept across blocks
									 * (build.c), or NULL */
	TupleDesc	kind_desc;		/* the descriptor 'kind' was made for */
	uint8	   *kind;			/* per attribute: how qs_colbuilder_add
								 * takes its values (build.c) */

	/*
	 * The rows were added in TID order and keep their TIDs when sorted:
	 * a sorted image then carries its TID map (the seal, column README
	 * section 4.5).  Set by the caller before a build.
	 */
	bool		keep_tids;

	/*
	 * Per attribute: give the image a CSB+-tree index sub-block over the
	 * column's codes when it is dictionary-encoded and not the sort
	 * column (quickstep.index_columns; seals only).  NULL: none.
	 */
	const bool *index_cols;

	/*
	 * Per row, in order of addition (the TID order of the block's rows), its
	 * origin xmin (colblock.h QS_COLINDEX_ORIGIN_XMIN): set by merges, seals
	 * and rewrites for the rows they move, 0 for the rest.  NULL until a
	 * row gets one; the image carries the section only then.
	 */
	uint32	   *origin;
	size_t		origin_cap;		/* entries allocated, all zeroed past use */

	/*
	 * Per row, as origin: its origin command id (the cmin and cmax system
	 * columns, issue 12), 0 for a row whose origin xmin is 0.  NULL until a
	 * row gets one other than 0: a block of rows inserted by their
	 * transactions' first commands pays nothing for them.
	 */
	uint32	   *origin_cid;
	size_t		origin_cid_cap; /* entries allocated, all zeroed past use */

	/*
	 * Per row, as origin: its origin TID (colblock.h QS_COLINDEX_ORIGIN_TID),
	 * the delta TID a merge moved it from; set by merges, carried by the
	 * next versions and seals; invalid for the rest.  NULL until a row gets
	 * one.
	 */
	ItemPointerData *otid;
	size_t		otid_cap;		/* entries allocated, all invalid past use */
} QsColBuilder;

extern void qs_colbuilder_init(QsColBuilder *b, Relation rel, QsColAttr *attrs);
extern void qs_colbuilder_reset(QsColBuilder *b);
extern void qs_colbuilder_keep_scratch(QsColBuilder *b);
extern void qs_colbuilder_image_done(QsColBuilder *b, uint8 *image);
extern void qs_colbuilder_add(QsColBuilder *b, TupleTableSlot *slot);
extern void qs_colbuilder_add_column(QsColBuilder *b, int c, QsColReader *r,
									 uint32 first, uint32 n, Relation rel,
									 uint32 block_id);
extern void qs_colbuilder_add_rows(QsColBuilder *b, uint32 n);
extern void qs_colbuilder_set_origin(QsColBuilder *b, uint32 row,
									 TransactionId xmin, CommandId cid);
extern void qs_colbuilder_set_otid(QsColBuilder *b, uint32 row, ItemPointer tid);
extern const uint8 **qs_colbuilder_values(const QsColBuilder *b, int c,
										  QsValues *qv);
extern uint8 *qs_colbuilder_build(QsColBuilder *b, Relation rel, uint32 block_id,
								  size_t *image_len);

/* Reading rows: per column readers of one loaded block. */
typedef struct QsColRowReader
{
	MemoryContext cxt;			/* lives as long as the reader */
	QsColBlockHandle h;
	int			natts;
	QsColAttr  *attrs;
	QsColReader *readers;		/* natts; opened lazily */
	bool	   *opened;
	uint32		grown;			/* advanced by each lazy opening that allocates
								 * in cxt (a column, the origin xmins):
								 * readcache.c counts the reader's memory again
								 * when it changed */
	uint8	  **secbuf;			/* ncols * QS_COLSEC_COUNT section copies */

	/*
	 * A sorted image's TID map (column README section 4.5): the TID row of
	 * each physical position and its inverse; both NULL for an image in
	 * TID order (the identity).
	 */
	uint32	   *row_of_pos;
	uint32	   *pos_of_row;

	/*
	 * The image's origin xmins (colblock.h QS_COLINDEX_ORIGIN_XMIN), read
	 * on first use by qs_colrows_origin_xmin: 0 not yet, 1 none, 2 origin.
	 */
	int			origin_state;
	uint8	   *origin_buf;
	QsOriginView origin;

	/* the same for the origin TIDs (QS_COLINDEX_ORIGIN_TID, qs_colrows_otid) */
	int			otid_state;
	uint8	   *otid_buf;
	QsOtidView	otid;

	/*
	 * A scan's buffers kept from block to block (scratch.c), or NULL: the
	 * sections, decode arrays and TID map come from it and go back to it
	 * at qs_colrows_close.
	 */
	struct QsColScratch *scratch;
} QsColRowReader;

/* the TID row of the row at physical position pos of the image */
static inline uint32
qs_colrows_tidrow(const QsColRowReader *rr, uint32 pos)
{
	return rr->row_of_pos ? rr->row_of_pos[pos] : pos;
}

/* the physical position of TID row row (< the image's rows) */
static inline uint32
qs_colrows_pos(const QsColRowReader *rr, uint32 row)
{
	return rr->pos_of_row ? rr->pos_of_row[row] : row;
}

extern void qs_colrows_open(Relation rel, QsColAttr *attrs,
							const QsColDirEntry *e, QsColRowReader *rr);
extern TransactionId qs_colrows_origin_xmin(QsColRowReader *rr, uint32 row);
extern TransactionId qs_colrows_origin(QsColRowReader *rr, uint32 row,
									   CommandId *cid);
extern TransactionId qs_colrows_shown_xmin(QsColRowReader *rr, uint32 row);
extern CommandId qs_colrows_shown_cid(QsColRowReader *rr, uint32 row);
extern bool qs_colrows_otid(QsColRowReader *rr, uint32 row, ItemPointer tid);
extern bool qs_col_origin_tid(Relation rel, ItemPointer vtid, ItemPointer otid);
extern void qs_colrows_get(QsColRowReader *rr, uint32 row, const bool *want,
						   Datum *values, bool *isnull);
extern void qs_colrows_get_pos(QsColRowReader *rr, uint32 pos, const bool *want,
							   Datum *values, bool *isnull);
extern void qs_colrows_get_atts(QsColRowReader *rr, uint32 pos, const bool *want,
								int first, int last, Datum *values,
								bool *isnull);
/* rows qs_colrows_get_batch_cols and _get_list_cols decode at most at once */
#define QS_COLROWS_BATCH 1024
extern void qs_colrows_get_batch_cols(QsColRowReader *rr, uint32 first, uint32 n,
									  const bool *want, Datum *values,
									  bool *isnull, uint32 stride);
extern void qs_colrows_get_list_cols(QsColRowReader *rr, const uint32 *pos,
									 uint32 n, const bool *want, Datum *values,
									 bool *isnull, uint32 stride);
extern int	qs_colrows_batch_rows(TupleDesc desc, const bool *want);
extern void qs_colrows_close(QsColRowReader *rr);
extern void qs_colrows_open_scratch(Relation rel, QsColAttr *attrs,
									const QsColDirEntry *e, QsColRowReader *rr,
									struct QsColScratch *scratch);
extern QsColReader *qs_colrows_reader(QsColRowReader *rr, int c);

#endif							/* QS_COLUMN_COLSTORE_H */
