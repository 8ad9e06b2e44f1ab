/*-------------------------------------------------------------------------
 *
 * pushdown.h
 *	  QuickstepScan's pushed quals on the main blocks of a column table:
 *	  block skipping on min/max and on the dictionary, then evaluation over
 *	  a few thousand rows at a time, on packed dictionary codes where the
 *	  qual is a code range.
 *
 * The caller (src/scan/exec.c) opens blocks through the column AM's own
 * scan (ColScanDesc: the directory view, qs_colscan_open_block), asks
 * qs_colpush_block whether the open block can hold a matching row, then
 * per slice of rows calls qs_colpush_native (the quals that call nothing or
 * a leakproof function), drops the rows the delete map and its snapshot
 * hide, and calls qs_colpush_rows over the rest (the other quals: such a
 * function never sees a row the scan could not return).  Visibility and the projection
 * stay the caller's.
 *
 * include/column/pushdown.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_PUSHDOWN_H
#define QS_COLUMN_PUSHDOWN_H

#include "column/colscan.h"
#include "scan/quals.h"

/* rows evaluated per call of qs_colpush_native */
#define QS_COLPUSH_CHUNK	4096

/* how a qual runs over the open block */
typedef enum QsColPredMode
{
	QS_CP_ROWS,					/* decode the column, run the qual per row */
	QS_CP_ALL,					/* every row passes: no check */
	QS_CP_CODES,				/* a code range over the packed codes */
	QS_CP_INTS,					/* an integer range over FOR or plain values */
	QS_CP_PROBE,				/* answered by the block's index sub-block */
	QS_CP_CODESET				/* a set of codes (an IN list, NOT IN) */
} QsColPredMode;

/*
 * Paper 000 section 4.4's ranking of a CSB+-tree probe against a scan of
 * the stripe, per block: probe when the qual's code ranges hold at most
 * this share of the block's rows (counted exactly in the tree after one
 * descent per range).  Chosen, not measured at the crossover: the
 * figures in src/column/README.md section 12 (Index sub-blocks) are of
 * shares well below it.
 */
#define QS_COLPUSH_PROBE_MAX_SHARE	0.02

typedef struct QsColPred
{
	QsQual	   *qual;
	int			col;			/* attno - 1 */
	bool		native;			/* decided on the column's int64 images:
								 * qual->fast_cmp, or xtype */
	bool		xtype;			/* native, but the value is of another type
								 * of the column type's btree family (date <
								 * timestamp): its ranges come from the
								 * family's operators (xtype_range) */
	int			width;			/* native: bytes of the column's integer */
	bool		ordered;		/* min/max and dictionary may decide */
	int			strategy;		/* btree strategy of the operator */
	bool		ne;				/* <>: the negator of the opfamily's = */
	bool		leakproof;		/* may run on rows the snapshot hides */
	FmgrInfo	lt_fn;			/* xtype: the family's (coltype, argtype) < */
	FmgrInfo	gt_fn;			/* xtype: and > */

	/*
	 * xcmp: ordered, not native, the value of another type of the column
	 * type's btree family (float8 column, float4 value): min/max and the
	 * dictionary are searched with the family's (coltype, argtype)
	 * comparison support function, given the column's values and the
	 * qual's own Datum(s).
	 */
	bool		xcmp;
	FmgrInfo	xcmp_fn;
	const QsColAttr *attr;		/* xcmp: the column */
	MemoryContext xcxt;			/* xcmp: the column's values as Datums, */
	void	   *xbuf;			/* one at a time in this buffer (xcxt) */
	size_t		xbuflen;

	/* the value side(s) as block value bytes (ordered, not native) */
	int			nvals;
	const uint8 **vals;
	size_t	   *lens;

	/*
	 * native OP: the qual as lo <= v <= hi over the column's images, or
	 * outside it (<>); empty as lo > hi.  Native ANY / ALL: element j's
	 * range is elo[j] .. ehi[j] (outside it for <>).
	 */
	int64		lo;
	int64		hi;
	bool		outside;
	int64	   *elo;
	int64	   *ehi;

	/* for the open block */
	QsColPredMode mode;
	QsCodeRange range;
	bool		have_dict;		/* dict: the open block's dictionary */
	QsDict		dict;
	uint64	   *codeset;		/* QS_CP_CODESET: bit c, code c passes */
} QsColPred;

typedef struct QsColPush
{
	int			npreds;
	QsColPred  *preds;
	int			natts;
	bool	   *want;			/* natts: one column to open */
	Datum	   *rowvals;		/* natts: scratch of qs_colrows_get */
	bool	   *rownulls;
	Datum	   *vals;			/* QS_COLPUSH_CHUNK: one column's values */
	bool	   *nulls;
	uint64	   *bitmap;			/* QS_COLPUSH_CHUNK bits */
	uint64	   *selbits;		/* QS_COLPUSH_CHUNK bits: a chunk's selection
								 * while kernels AND into it */
	uint64	   *probe_bits;		/* rows of the open block an index
								 * sub-block probe found (NULL: no probe) */
	int64	   *ints;			/* QS_COLPUSH_CHUNK: one column's integers */
	/*
	 * Callers that convert an opened block's dictionary once (the numeric
	 * dictionaries below, aggexec.c's text key ids) compare this count of
	 * qs_colpush_block calls with the one they converted it at.
	 */
	uint64		block_gen;
#ifdef HAVE_INT128
	/*
	 * qs_colpush_numerics: a dictionary-encoded numeric column's dictionary
	 * converted once per opened block (numdict_gen[c] == block_gen), [natts]
	 */
	QsNum	  **numdict;
	uint32	   *numdict_len;
	uint64	   *numdict_gen;
#endif
	MemoryContext cxt;			/* the value bytes above */
	MemoryContext chunkcxt;		/* decoded values of one chunk */

	/* EXPLAIN ANALYZE */
	uint64		blocks_read;
	uint64		skipped_minmax;
	uint64		skipped_dict;
	uint64		binary_searches;	/* blocks narrowed to a run of rows */
	uint64		probes;			/* blocks whose rows an index sub-block gave */
} QsColPush;

extern void qs_colpush_begin(QsColPush *p, ColScanDesc s, QsQual **quals,
							 int nquals, MemoryContext cxt);
extern bool qs_colpush_block(QsColPush *p, ColScanDesc s);
extern int	qs_colpush_native(QsColPush *p, ColScanDesc s, uint32 start,
							  int nrows, OffsetNumber *sel);
extern bool qs_colpush_all_pass(const QsColPush *p);
extern int	qs_colpush_rows(QsColPush *p, ColScanDesc s, uint32 start,
							OffsetNumber *sel, int n);
extern void qs_colpush_values(QsColPush *p, ColScanDesc s, int c, uint32 start,
							  const OffsetNumber *sel, int n);
extern bool qs_colpush_codes(QsColPush *p, ColScanDesc s, int c, uint32 start,
							 const OffsetNumber *sel, int n, uint32 *codes,
							 const QsDict **dict);
#ifdef HAVE_INT128
extern bool qs_colpush_numerics(QsColPush *p, ColScanDesc s, int c,
								uint32 start, const OffsetNumber *sel, int n,
								QsNum *out);
#endif
extern bool qs_colpush_ints(QsColPush *p, ColScanDesc s, int c, int width,
							uint32 start, int nrows, const OffsetNumber *sel,
							int n);

#endif							/* QS_COLUMN_PUSHDOWN_H */
