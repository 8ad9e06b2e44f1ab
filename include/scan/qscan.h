/*-------------------------------------------------------------------------
 *
 * qscan.h
 *	  QuickstepScan: the custom scan node that evaluates restrictions and
 *	  projections inside quickstep row storage, one page at a time.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SCAN_QSCAN_H
#define QS_SCAN_QSCAN_H

#include "core/compat.h"

#include "nodes/extensible.h"
#include "page/layout.h"

#define QS_SCAN_NAME "QuickstepScan"

extern const CustomScanMethods qs_scan_methods;

/* _PG_init: install the planner hook and register the node. */
extern void qs_scan_init(void);

/* Planner (planner.c) */
extern Node *qs_scan_create_state(CustomScan *cscan);
struct PlannerInfo;
struct RelOptInfo;
extern void qs_scan_split_clauses(List *rinfos, Index relid, List **pushed,
								  List **rest);
extern void qs_scan_column_shares(struct PlannerInfo *root, struct RelOptInfo *rel,
								  Oid relid, List *pushed, double *rows,
								  double *pages);
extern double qs_scan_parallel_divisor(int workers);

/* Column tables: visiting rows and decoding columns (colcost.c) */
struct Path;
extern double qs_colcost_visit_fraction(void);
extern void qs_colcost_charge_seqscans(struct PlannerInfo *root,
									   struct RelOptInfo *rel, Oid relid);
extern void qs_colcost_charge_scan(struct PlannerInfo *root,
								   struct RelOptInfo *rel, struct Path *path,
								   List *pushed, List *needed, int workers);

/* Column tables: what a scan counted for EXPLAIN ANALYZE (exec.c) */
typedef struct QsColCounts
{
	uint64		blocks_read;
	uint64		skipped_minmax;
	uint64		skipped_dict;
	uint64		binary_searches;
	uint64		probes;			/* blocks answered by an index sub-block */
} QsColCounts;

struct ExplainState;
extern void qs_scan_explain_col_counts(const QsColCounts *c,
									   struct ExplainState *es);

/*
 * Aggregate pushdown (aggplan.c, aggexec.c): partial aggregates computed
 * inside the scan of a column table, under PostgreSQL's Finalize Aggregate.
 * The plan is a QuickstepScan CustomScan with scanrelid 0 (its output is
 * partial aggregate states, not the table's rows).
 */
extern void qs_aggplan_init(void);
extern Node *qs_aggscan_create_state(CustomScan *cscan);

#endif							/* QS_SCAN_QSCAN_H */
