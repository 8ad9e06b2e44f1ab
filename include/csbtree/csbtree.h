/*-------------------------------------------------------------------------
 *
 * csbtree.h
 *	  The csbtree index access method: a Lehman-Yao B-link tree of 8 kB
 *	  pages whose in-page search goes through a cache-sensitive B+-tree
 *	  (CSB+-tree) directory of 64-byte nodes.  See src/csbtree/README.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CSBTREE_H
#define QS_CSBTREE_H

#include "core/compat.h"

#include "access/amapi.h"
#include "access/genam.h"
#include "access/itup.h"
#include "access/skey.h"
#include "access/transam.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "fmgr.h"
#include "storage/block.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rel.h"

#define CSB_MAGIC			0x43534254	/* "CSBT" */
#define CSB_VERSION			2
#define CSB_METAPAGE		0

/* Support function 1: the btree comparison function (a, b) -> int4. */
#define CSB_CMP_PROC		1
#define CSB_NPROCS			1
#define CSB_NSTRATEGIES		5

/*
 * One directory node is one 64-byte cache line: the index of its first
 * child (all children of a node are contiguous, a node group) and up to 15
 * keys, key[i] being the largest normalized key under child i.  The bottom
 * level's children are groups of CSB_GROUP consecutive items of the page.
 */
#define CSB_NODE_FANOUT		15
#define CSB_GROUP			16
#define CSB_MAX_NODES		5

typedef struct CsbDirNode
{
	uint16		firstchild;		/* node index, or group index at the bottom */
	uint16		nkeys;			/* number of children */
	uint32		keys[CSB_NODE_FANOUT];	/* max normalized key per child */
} CsbDirNode;

/*
 * Special space of every page (metapage included): 64 bytes of links and
 * flags, then the directory nodes.  384 bytes in all, so that with 8 kB
 * pages the special space starts on a 64-byte boundary and every node is
 * one aligned cache line.
 *
 * Leaves of a one-column index on a fixed-width by-value type (int2, int4,
 * int8, float4, float8, date, timestamp, timestamptz) are CSB_COMPACT: no
 * line pointers and no tuple headers, just a packed array, right after the
 * page header, of entries [heap TID (6 bytes)][null flag (1)][key bytes],
 * pd_lower marking its end.  Offsets number the entries from 1 as they
 * number line pointers elsewhere (offset 1 is the high key when there is a
 * right sibling).  csb_item() hands out an IndexTuple for an entry.
 */
typedef struct CsbPageOpaqueData
{
	BlockNumber left;			/* left sibling, or InvalidBlockNumber */
	BlockNumber right;			/* right sibling, or InvalidBlockNumber */
	uint16		level;			/* 0 = leaf */
	uint16		flags;
	uint16		ngroups;		/* item groups covered by the directory */
	uint16		ndirnodes;		/* directory nodes in use (0 = empty) */
	uint16		dirlevels;		/* levels of the directory */
	uint16		page_id;		/* CSB_PAGE_ID */
	uint16		itemwidth;		/* CSB_COMPACT: bytes per entry */
	uint16		pad0;
	uint32		delxid_hi;		/* CSB_DELETED: next full xid at deletion */
	uint32		delxid_lo;
	char		pad[64 - 32];
	CsbDirNode	dir[CSB_MAX_NODES];	/* root first, then level by level */
} CsbPageOpaqueData;

typedef CsbPageOpaqueData *CsbPageOpaque;

/* Room for an IndexTuple rebuilt from a compact entry. */
typedef union CsbTupBuf
{
	IndexTupleData t;
	double		align;
	char		data[32];
} CsbTupBuf;

#define CSB_PAGE_ID			0xC5B7
#define CSB_LEAF			(1 << 0)
#define CSB_META			(1 << 1)
#define CSB_COMPACT			(1 << 2)	/* leaf of fixed-width entries */
#define CSB_DELETED			(1 << 3)	/* unlinked leaf, awaiting recycling */

#define CsbPageGetOpaque(page) ((CsbPageOpaque) PageGetSpecialPointer(page))
#define CsbPageIsLeaf(op)		(((op)->flags & CSB_LEAF) != 0)
#define CsbPageIsRightmost(op)	((op)->right == InvalidBlockNumber)
#define CsbPageIsDeleted(op)	(((op)->flags & CSB_DELETED) != 0)
#define CsbPageGetDeleteXid(op) \
	FullTransactionIdFromU64(((uint64) (op)->delxid_hi << 32) | (op)->delxid_lo)
/* High key at offset 1 on every page but the rightmost of its level. */
#define CSB_HIKEY				((OffsetNumber) 1)
#define CsbFirstData(op)		(CsbPageIsRightmost(op) ? FirstOffsetNumber : OffsetNumberNext(CSB_HIKEY))

/* The usable room of a page and the largest item allowed in it. */
#define CSB_SPECIAL_SIZE	MAXALIGN(sizeof(CsbPageOpaqueData))
#define CSB_PAGE_ROOM		(BLCKSZ - SizeOfPageHeaderData - CSB_SPECIAL_SIZE)
#define CSB_MAX_ITEM_SIZE	MAXALIGN_DOWN(CSB_PAGE_ROOM / 3 - sizeof(ItemIdData))
/* The most items a page can hold: compact int2 entries are 9 bytes. */
#define CSB_MAX_ITEMS		(CSB_PAGE_ROOM / 9 + 1)
/* Room for a page's items copied out as IndexTuples (16 bytes at least). */
#define CSB_MAX_ITEMS_BYTES	Max(BLCKSZ, CSB_MAX_ITEMS * 16)

typedef struct CsbMetaData
{
	uint32		magic;
	uint32		version;
	BlockNumber root;			/* current root */
	uint32		rootlevel;
} CsbMetaData;

#define CsbPageGetMeta(page) ((CsbMetaData *) PageGetContents(page))

/* Kinds of normalized (order-preserving 4-byte prefix) keys. */
typedef enum CsbNkKind
{
	CSB_NK_NONE = 0,			/* no prefix: every key maps to 0 */
	CSB_NK_INT,					/* int2/int4/int8, clamped to int32 */
	CSB_NK_FLOAT,				/* float4/float8, high half of the ordered bits */
	CSB_NK_DATE,
	CSB_NK_TS,					/* timestamp: high half */
	CSB_NK_TSTZ,				/* timestamptz: high half */
	CSB_NK_UUID,				/* first 4 bytes */
	CSB_NK_TEXT_C				/* first 4 bytes of text under a C collation */
} CsbNkKind;

/* Per-column sort semantics of an index. */
typedef struct CsbColumn
{
	FmgrInfo   *cmp;			/* support function 1 */
	Oid			collation;
	bool		desc;
	bool		nullsfirst;
	CsbNkKind	nkkind;
} CsbColumn;

typedef struct CsbState
{
	Relation	index;
	TupleDesc	tupdesc;
	int			natts;
	uint16		leafwidth;		/* entry width of compact leaves, or 0 */
	CsbColumn	cols[INDEX_MAX_KEYS];
} CsbState;

/* A search key: a prefix of the columns, compared with their semantics. */
typedef struct CsbKeyCol
{
	Datum		value;
	bool		isnull;
	FmgrInfo   *cmp;			/* cmp(item column, value) */
	Oid			collation;
	bool		desc;
	bool		nullsfirst;
} CsbKeyCol;

typedef struct CsbSearchKey
{
	int			nkeys;
	bool		has_nk;			/* nk may narrow the in-page search */
	bool		nk_exact;		/* nk alone decides comparisons (csb_nk_exact) */
	uint32		nk;
	CsbKeyCol	cols[INDEX_MAX_KEYS];
} CsbSearchKey;

/* The path of a descent, for inserting downlinks after a split. */
typedef struct CsbStackData
{
	BlockNumber blkno;
	OffsetNumber offset;
	struct CsbStackData *parent;
} CsbStackData;

typedef CsbStackData *CsbStack;

/* csbutils.c */
extern CsbState *csb_init_state(Relation index);
extern uint32 csb_nk(CsbNkKind kind, Datum value, bool isnull, bool desc, bool nullsfirst);
extern CsbNkKind csb_type_nkkind(Oid type, Oid collation);
extern uint32 csb_value_nk(CsbState *st, Oid type, Datum value, bool isnull);
extern bool csb_nk_exact(CsbState *st, Oid type, Datum value, bool isnull, int nkeys);
extern void csb_key_from_tuple(CsbState *st, IndexTuple itup, CsbSearchKey *key);
extern void csb_key_from_values(CsbState *st, Datum *values, bool *isnull, CsbSearchKey *key);
extern int	csb_compare(CsbState *st, CsbSearchKey *key, Page page, OffsetNumber off);
extern int	csb_compare_tuple(CsbState *st, CsbSearchKey *key, IndexTuple itup);
extern OffsetNumber csb_page_search(CsbState *st, Page page, CsbSearchKey *key, bool nextkey);
extern void csb_build_directory(CsbState *st, Page page, CsbPageOpaque out);
extern void csb_rebuild_directory(CsbState *st, Page page);
extern int	csb_dir_search(CsbPageOpaque op, uint32 x, bool strict);
extern void csb_init_page(Page page, uint16 level, uint16 flags, uint16 itemwidth);
extern uint16 csb_compact_width(Relation index);
extern OffsetNumber csb_maxoff(Page page);
extern IndexTuple csb_item(Page page, OffsetNumber off, CsbTupBuf *buf);
extern bool csb_fits(Page page, IndexTuple itup);
extern Size csb_item_cost(Page page, IndexTuple itup);
extern bool csb_add_item(Page page, IndexTuple itup, OffsetNumber off);
extern void csb_delete_items(Page page, OffsetNumber *offs, int n);
extern Buffer csb_get_buffer(Relation index, BlockNumber blkno, int access);
extern void csb_read_meta(Relation index, BlockNumber *root, uint32 *rootlevel);
extern Buffer csb_moveright(CsbState *st, Buffer buf, CsbSearchKey *key, bool nextkey, int access);
extern Buffer csb_descend(CsbState *st, CsbSearchKey *key, bool nextkey, int access,
						  uint32 target_level, CsbStack *stackp);
extern Buffer csb_descend_edge(CsbState *st, bool rightmost);
extern Buffer csb_new_page(Relation index);
extern bool csb_page_recyclable(Page page);
extern void csb_check_item_size(Relation index, IndexTuple itup);

/* csbinsert.c */
extern IndexBuildResult *csb_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void csb_buildempty(Relation index);
extern bool csb_insert(Relation index, Datum *values, bool *isnull,
					   ItemPointer ht_ctid, Relation heapRel,
					   IndexUniqueCheck checkUnique, bool indexUnchanged,
					   struct IndexInfo *indexInfo);

/* csbscan.c */
extern IndexScanDesc csb_beginscan(Relation r, int nkeys, int norderbys);
extern void csb_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					   ScanKey orderbys, int norderbys);
extern bool csb_gettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 csb_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void csb_endscan(IndexScanDesc scan);
extern void csb_markpos(IndexScanDesc scan);
extern void csb_restrpos(IndexScanDesc scan);

/* csbvacuum.c */
extern IndexBulkDeleteResult *csb_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback, void *callback_state);
extern IndexBulkDeleteResult *csb_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats);

/* csbvalidate.c */
extern bool csb_validate(Oid opclassoid);
extern void csb_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
							 Cost *indexStartupCost, Cost *indexTotalCost,
							 Selectivity *indexSelectivity, double *indexCorrelation,
							 double *indexPages);

#endif							/* QS_CSBTREE_H */
