/*-------------------------------------------------------------------------
 *
 * quals.h
 *	  Restriction clauses QuickstepScan evaluates inside the storage.
 *
 * A pushed qual compares one column of the scanned relation with a value
 * known before the scan reads a row: a Const, or a Param evaluated when the
 * scan (re)starts.  Supported shapes (after the planner's own
 * normalization, which has already turned BETWEEN into two comparisons):
 *
 *	 col OP value, value OP col	 any strict binary operator returning bool
 *								 (commuted when the column is on the right)
 *	 col OP ANY (array)			 IN lists and = ANY / < ANY ... with a
 *								 constant or parameter array
 *	 col IS NULL, col IS NOT NULL
 *
 * Quals run one after the other over the column values of the rows still
 * selected, shrinking a selection vector of record offsets.  Integer, date
 * and timestamp comparisons run as native comparisons; everything else calls
 * the operator's function through fmgr with the clause's collation.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SCAN_QUALS_H
#define QS_SCAN_QUALS_H

#include "core/compat.h"

#include "access/tupdesc.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/bufpage.h"
#include "storage/off.h"

typedef enum QsQualKind
{
	QS_QUAL_OP,					/* col OP value */
	QS_QUAL_ANY,				/* col OP ANY (array) */
	QS_QUAL_ALL,				/* col OP ALL (array) */
	QS_QUAL_ISNULL,				/* col IS NULL */
	QS_QUAL_NOTNULL				/* col IS NOT NULL */
} QsQualKind;

/* Native comparisons the fast path knows; QS_CMP_NONE means fmgr. */
typedef enum QsCmp
{
	QS_CMP_NONE,
	QS_CMP_LT,
	QS_CMP_LE,
	QS_CMP_EQ,
	QS_CMP_NE,
	QS_CMP_GE,
	QS_CMP_GT
} QsCmp;

typedef struct QsQual
{
	QsQualKind	kind;
	AttrNumber	attno;			/* column of the scanned relation */
	Expr	   *clause;			/* the clause as planned (EXPLAIN, recheck) */
	Oid			opno;			/* the operator as col OP value (commuted) */

	/* QS_QUAL_OP / ANY / ALL */
	FmgrInfo	flinfo;
	Oid			collid;
	ExprState  *arg_state;		/* the Const or Param side */
	QsCmp		fast_cmp;		/* native comparison of int64 images */
	int			col_width;		/* 2, 4 or 8: width of the column's integer */
	int			arg_width;		/* 2, 4 or 8: width of the value's integer */

	/* evaluated at scan start and rescan */
	bool		arg_isnull;
	Datum		arg;
	int64		arg_int;		/* arg as int64 when fast_cmp != NONE */
	int			nelems;			/* ANY/ALL: array elements */
	Datum	   *elems;
	bool	   *elem_nulls;
	int64	   *elem_ints;

	/* statistics for EXPLAIN ANALYZE */
	uint64		rows_in;
	uint64		rows_out;
} QsQual;

/* Planner side: can this clause run in storage for relation 'relid'? */
extern int64 qs_datum_to_int64(Datum d, int width);
extern bool qs_qual_pushable(Expr *clause, Index relid, AttrNumber *attno);

/* Executor side. */
extern QsQual *qs_qual_compile(Expr *clause, Index relid, PlanState *parent);
extern void qs_qual_prepare(QsQual *qual, ExprContext *econtext, MemoryContext argcxt);
struct QsPageLayout;
extern bool qs_qual_filter_page(QsQual *qual, const struct QsPageLayout *L,
								Page page, TupleDesc desc,
								OffsetNumber *offs, int *n);
extern int	qs_qual_filter(QsQual *qual, const Datum *values, const bool *isnull,
						   OffsetNumber *offs, int n);

#endif							/* QS_SCAN_QUALS_H */
