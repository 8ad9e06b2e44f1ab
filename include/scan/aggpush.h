/*-------------------------------------------------------------------------
 *
 * aggpush.h
 *	  QuickstepScan's aggregate mode: the aggregates it computes as partial
 *	  states inside a scan of a column table (src/scan/aggplan.c decides,
 *	  src/scan/aggexec.c computes; src/scan/README.md "Aggregate pushdown").
 *
 * include/scan/aggpush.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SCAN_AGGPUSH_H
#define QS_SCAN_AGGPUSH_H

#include "core/compat.h"
#include "nodes/primnodes.h"

typedef enum QsAggOp
{
	QS_AGG_COUNT_STAR,			/* count(*) */
	QS_AGG_COUNT,				/* count(col) */
	QS_AGG_SUM,
	QS_AGG_AVG,
	QS_AGG_MIN,
	QS_AGG_MAX
} QsAggOp;

/* how the argument's values are accumulated */
typedef enum QsAggIn
{
	QS_AGGIN_NONE,				/* count(*) */
	QS_AGGIN_ANY,				/* count(col): NULL or not */
	QS_AGGIN_INT,				/* int2/int4/int8, date, timestamp[tz] */
	QS_AGGIN_FLOAT4,
	QS_AGGIN_FLOAT8,
	QS_AGGIN_NUMERIC			/* numeric: a column or +, -, * over them */
} QsAggIn;

/*
 * sum/avg(numeric)'s argument as a postfix program: columns and constants
 * pushed, + - * applied to the top two (numeric_add, numeric_sub,
 * numeric_mul).  A plain column is one step.
 */
typedef enum QsNumOp
{
	QS_NUMOP_COL,
	QS_NUMOP_CONST,
	QS_NUMOP_ADD,
	QS_NUMOP_SUB,
	QS_NUMOP_MUL
} QsNumOp;

#define QS_NUM_MAX_STEPS	16

typedef struct QsNumStep
{
	QsNumOp		op;
	AttrNumber	attno;			/* QS_NUMOP_COL */
	int			slot;			/* QS_NUMOP_COL: the executor's column slot */
	Const	   *cnst;			/* QS_NUMOP_CONST: a non-NULL numeric */
} QsNumStep;

typedef struct QsAggSpec
{
	QsAggOp		op;
	QsAggIn		in;
	Oid			intype;			/* the argument's type */
	int			width;			/* QS_AGGIN_INT: 2, 4 or 8 bytes */
	AttrNumber	attno;			/* the argument column (0: count(*));
								 * QS_AGGIN_NUMERIC: its first column */
	int			nsteps;			/* QS_AGGIN_NUMERIC: the argument */
	QsNumStep	steps[QS_NUM_MAX_STEPS];
} QsAggSpec;

/*
 * Is agg (as the query has it, or marked partial) one the scan computes,
 * over a plain column of relation relid?  Fills *spec.
 */
extern bool qs_agg_classify(const Aggref *agg, Index relid, QsAggSpec *spec);

/* int2/int4/int8, date, timestamp[tz]: their width, else 0 */
extern int	qs_agg_int_width(Oid typid);

/* sizeof one aggregate's accumulator in the scan (aggexec.c) */
extern Size qs_agg_acc_bytes(void);

/* May column values of this type be a pushed GROUP BY key (eqop its =)? */
extern bool qs_agg_group_type_ok(Oid typid, int32 typmod, Oid collid, Oid eqop);

#endif							/* QS_SCAN_AGGPUSH_H */
