/*-------------------------------------------------------------------------
 *
 * planner.c
 *	  Offer QuickstepScan paths for quickstep tables, and turn the chosen
 *	  path into a CustomScan plan.
 *
 * The path is offered beside the planner's own (sequential scan, index
 * paths), costed so that add_path picks it only where it is cheaper:
 * every visible row still pays for its visibility check and for reading
 * the pushed columns, but only the rows that pass the pushed quals pay for
 * becoming a tuple.  A row table with no pushable qual gets no path; a
 * column table gets one anyway, since the path decodes only the columns
 * the query needs where the sequential scan decodes all (colcost.c).
 *
 *-------------------------------------------------------------------------
 */
#include "scan/qscan.h"
#include "scan/quals.h"
#include "core/quickstep.h"
#include "column/colam.h"
#include "tableam/engine.h"

#include "access/sysattr.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/rel.h"
#include "utils/spccache.h"

/*
 * Cost model constants, as fractions of cpu_tuple_cost and of a pushed
 * qual's own per-tuple cost.  Measured with bench W1 (see the README of
 * this folder): reading one column of a visible row of a row table and
 * checking its visibility costs about half of what forming and filtering a
 * whole tuple costs, and a qual on a column array about half of ExecQual's
 * cost.  A column table's rows are visited at their own rate
 * (qs_colcost_visit_fraction, colcost.c).
 */
#define QS_VISIT_FRACTION	0.5
#define QS_PUSHED_QUAL_FRACTION 0.5

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

static List *needed_columns(RelOptInfo *rel, List *rest_clauses);
static Plan *qs_plan_path(PlannerInfo *root, RelOptInfo *rel,
						  struct CustomPath *best_path, List *tlist,
						  List *clauses, List *custom_plans);

static const CustomPathMethods qs_path_methods = {
	.CustomName = QS_SCAN_NAME,
	.PlanCustomPath = qs_plan_path,
};

const CustomScanMethods qs_scan_methods = {
	.CustomName = QS_SCAN_NAME,
	.CreateCustomScanState = qs_scan_create_state,
};

typedef enum QsScanKind
{
	QS_NOT_OURS,
	QS_ROW_TABLE,				/* a row layout of the engine */
	QS_COLUMN_TABLE				/* quickstep_column */
} QsScanKind;

/* Is the relation stored by the quickstep row engine, or in columns? */
static QsScanKind
relation_kind(Oid relid)
{
	Relation	rel = table_open(relid, NoLock);	/* the planner holds a lock */
	QsScanKind	kind = qs_is_engine_rel(rel) ? QS_ROW_TABLE :
		qs_is_column_rel(rel) ? QS_COLUMN_TABLE : QS_NOT_OURS;

	table_close(rel, NoLock);
	return kind;
}

/*
 * Split the relation's restriction clauses into those QuickstepScan runs in
 * storage and the rest.  Pushed quals run before the rest, so a clause is
 * pushed only if that order is allowed: it belongs to the lowest security
 * level present (row-level security and security-barrier views put their
 * quals there), or it is leakproof.
 */
static void
split_clauses(List *rinfos, Index relid, List **pushed, List **rest)
{
	ListCell   *lc;
	Index		minlevel = UINT_MAX;

	*pushed = *rest = NIL;
	foreach(lc, rinfos)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		minlevel = Min(minlevel, ri->security_level);
	}
	foreach(lc, rinfos)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		AttrNumber	attno;

		if (ri->pseudoconstant)
			continue;			/* a gating Result handles these */
		if ((ri->security_level == minlevel || ri->leakproof) &&
			qs_qual_pushable(ri->clause, relid, &attno))
			*pushed = lappend(*pushed, ri);
		else
			*rest = lappend(*rest, ri);
	}
}

/*
 * Does the query read system columns of this relation that QuickstepScan's
 * virtual tuples do not carry?  ctid and tableoid are carried; xmin, xmax,
 * cmin and cmax are not, and such queries keep the ordinary scans.  Only
 * the target and the clauses not pushed (rest) are searched: a pushed
 * clause reads one user column (qs_qual_pushable).
 */
static bool
needs_unsupported_system_columns(RelOptInfo *rel, List *rest)
{
	Bitmapset  *attrs = NULL;
	ListCell   *lc;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	foreach(lc, rest)
		pull_varattnos((Node *) lfirst_node(RestrictInfo, lc)->clause, rel->relid, &attrs);
	for (int attno = FirstLowInvalidHeapAttributeNumber + 1; attno < 0; attno++)
	{
		if (attno == SelfItemPointerAttributeNumber ||
			attno == TableOidAttributeNumber)
			continue;
		if (bms_is_member(attno - FirstLowInvalidHeapAttributeNumber, attrs))
			return true;
	}
	return false;
}

/* PostgreSQL's own parallel divisor (costsize.c keeps it static). */
static double
parallel_divisor(int workers)
{
	double		divisor = workers;

	if (parallel_leader_participation)
	{
		double		leader = 1.0 - (0.3 * workers);

		if (leader > 0)
			divisor += leader;
	}
	return divisor;
}

/*
 * Column tables: the fraction of the rows in main blocks the scan still
 * visits once blocks are skipped on their min/max.  A block is skipped when
 * none of its values can pass, which happens to the blocks outside a
 * selective qual's range in proportion to how well the column follows the
 * physical order (the blocks are sorted on quickstep.sort_key, so that
 * column's correlation is near 1).  As btcostestimate interpolates between
 * an index's best and worst case: corr^2 of the way from visiting every
 * block to visiting only the qualifying fraction.  The best column wins.
 */
static double
column_visit_fraction(PlannerInfo *root, RelOptInfo *rel, List *pushed)
{
	double		best = 1.0;
	Bitmapset  *done = NULL;
	ListCell   *lc;

	foreach(lc, pushed)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		List	   *vars = pull_var_clause((Node *) ri->clause, 0);
		List	   *same = NIL;
		Var		   *var;
		VariableStatData vardata;
		ListCell   *lc2;
		double		sel;
		double		corr = 0;

		if (list_length(vars) != 1)
			continue;
		var = linitial_node(Var, vars);
		if (var->varno != rel->relid || var->varattno <= 0 ||
			bms_is_member(var->varattno, done))
			continue;
		done = bms_add_member(done, var->varattno);

		/* the column's quals together: a BETWEEN is a range, not two halves */
		foreach(lc2, pushed)
		{
			RestrictInfo *ri2 = lfirst_node(RestrictInfo, lc2);
			List	   *vars2 = pull_var_clause((Node *) ri2->clause, 0);

			if (list_length(vars2) == 1 &&
				linitial_node(Var, vars2)->varattno == var->varattno)
				same = lappend(same, ri2);
		}
		sel = clauselist_selectivity(root, same, 0, JOIN_INNER, NULL);

		examine_variable(root, (Node *) var, 0, &vardata);
		if (HeapTupleIsValid(vardata.statsTuple))
		{
			AttStatsSlot sslot;

			if (get_attstatsslot(&sslot, vardata.statsTuple,
								 STATISTIC_KIND_CORRELATION, InvalidOid,
								 ATTSTATSSLOT_NUMBERS))
			{
				if (sslot.nnumbers > 0)
					corr = sslot.numbers[0];
				free_attstatsslot(&sslot);
			}
		}
		ReleaseVariableStats(vardata);
		best = Min(best, corr * corr * sel + (1.0 - corr * corr));
	}
	return best;
}

/*
 * The share of a column table's rows (*rows) and pages (*pages) a scan
 * reads when it visits the fraction visit of the main blocks' rows
 * (column_visit_fraction): the delta is read whole (its pages have no
 * min/max), and a block is read whole or skipped, so at least one block
 * is read — the cost of a qual that keeps one row is a block's, not a
 * row's (without that floor a point query looked cheaper than an index
 * scan and single-row UPDATEs scanned the table).  A block read has its
 * delete map read too, as the plain scan reads every page.
 */
static void
column_visit_shares(RelOptInfo *rel, Oid relid, double visit,
					double *rows, double *pages)
{
	Relation	r = table_open(relid, NoLock);	/* the planner holds a lock */
	QsColPlanShape shape;
	double		delta_rows,
				delta_pages,
				main_share;

	qs_column_plan_shape(r, &shape);
	table_close(r, NoLock);

	/*
	 * The pages that are neither runs nor delete maps are the delta's (and
	 * the directory's); the estimate of the relation's rows counts every
	 * page outside the runs at a delta row density, so its delta rows are
	 * scaled down by the delete-map pages too.
	 */
	delta_pages = Max((double) rel->pages - shape.main_pages, 0);
	delta_rows = Max(rel->tuples - shape.main_rows, 0);
	if (delta_pages > 0)
	{
		double		real = Max(delta_pages - shape.delmap_pages, 0);

		delta_rows *= real / delta_pages;
		delta_pages = real;
	}
	main_share = shape.blocks > 0 ? Max(visit, 1.0 / shape.blocks) : 0;
	*rows = rel->tuples > 0 ?
		Min((delta_rows + shape.main_rows * main_share) / rel->tuples, 1.0) : 1.0;
	*pages = rel->pages > 0 ?
		Min((delta_pages + (shape.main_pages + shape.delmap_pages) * main_share) /
			rel->pages, 1.0) : 1.0;
}

/*
 * visit_charge: visiting a row, as a fraction of cpu_tuple_cost
 * (QS_VISIT_FRACTION; column tables: qs_colcost_visit_fraction).
 * visit_rows, visit_pages: the shares of the rows and pages the scan reads
 * (column tables: column_visit_shares; row tables: 1).
 */
static void
cost_path(PlannerInfo *root, RelOptInfo *rel, Path *path, List *pushed,
		  List *rest, int workers, double visit_charge, double visit_rows,
		  double visit_pages)
{
	double		seq_page_cost;
	double		frac = 1.0;
	Cost		startup = 0;
	Cost		cpu_per_tuple;
	Cost		cpu_run;
	QualCost	rest_cost;
	ListCell   *lc;

	get_tablespace_page_costs(rel->reltablespace, NULL, &seq_page_cost);

	/* Visiting a row: visibility check and reading the first column. */
	cpu_per_tuple = cpu_tuple_cost * visit_charge;

	/*
	 * Each pushed qual runs on the rows the previous ones kept.  Cost and
	 * selectivity are asked of the RestrictInfo, not of its bare clause:
	 * set_baserel_size_estimates already computed both for every
	 * restriction clause and the RestrictInfo caches them (eval_cost,
	 * norm_selec), so these are lookups, not a second estimate (eqsel's
	 * statistics lookups were most of the path's planning cost).  A pushed
	 * clause is never pseudoconstant nor an OR, so the cached values are
	 * the ones the bare clause would give.
	 */
	foreach(lc, pushed)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		QualCost	qc;

		cost_qual_eval_node(&qc, (Node *) ri, root);
		startup += qc.startup;
		cpu_per_tuple += frac * qc.per_tuple * QS_PUSHED_QUAL_FRACTION;
		frac *= clause_selectivity(root, (Node *) ri, 0, JOIN_INNER, NULL);
	}

	/*
	 * The rows that pass them all: the quals together (a BETWEEN is one
	 * range, not two independent halves).
	 */
	frac = clauselist_selectivity(root, pushed, rel->relid, JOIN_INNER, NULL);

	/*
	 * Rows of skipped blocks are neither visited nor tested (visit); the
	 * rows that pass are in the blocks visited, become tuples and meet the
	 * remaining quals.
	 */
	cost_qual_eval(&rest_cost, rest, root);
	startup += rest_cost.startup;
	cpu_run = cpu_per_tuple * rel->tuples * visit_rows +
		frac * (cpu_tuple_cost + rest_cost.per_tuple) * rel->tuples;
	startup += rel->reltarget->cost.startup;
	cpu_run += rel->reltarget->cost.per_tuple * rel->rows;

	path->rows = rel->rows;
	if (workers > 0)
	{
		double		divisor = parallel_divisor(workers);

		cpu_run /= divisor;
		path->rows = clamp_row_est(rel->rows / divisor);
	}
	path->startup_cost = startup;
	path->total_cost = startup + cpu_run + seq_page_cost * rel->pages * visit_pages;

	/* It reads every page: a sequential scan, and enable_seqscan says so. */
	if (!enable_seqscan)
		QS_DISABLE_PATH(path);
}

/*
 * Would add_path reject the serial path of a row table whatever its
 * clauses?  Its costs are at least those of visiting every row (cost_path:
 * startup 0, cpu_tuple_cost * QS_VISIT_FRACTION per row; every other term
 * adds), so a path already in the list that beats those bounds as
 * add_path compares (by more than its 1 % fuzz in total cost, not worse in
 * startup cost where startup counts, no pathkeys and no parameters needed
 * by us, no more rows, parallel safe if we are, no more disabled nodes)
 * dominates the path whatever it would cost: add_path would drop it, so it
 * is not built.  The index path of a primary-key lookup does that to the
 * scan of a large table, before its clauses are analyzed and costed.  Any
 * doubt (enable_seqscan off: the path is disabled) builds the path.
 */
#define QS_ADD_PATH_FUZZ 1.01	/* pathnode.c's STD_FUZZ_FACTOR */

static bool
serial_path_dominated(RelOptInfo *rel)
{
	Cost		total = cpu_tuple_cost * QS_VISIT_FRACTION * rel->tuples;
	ListCell   *lc;

	if (!enable_seqscan)
		return false;
	foreach(lc, rel->pathlist)
	{
		Path	   *old = (Path *) lfirst(lc);

		if (PATH_REQ_OUTER(old) == NULL &&
#if PG_VERSION_NUM >= 180000
			old->disabled_nodes == 0 &&
#endif
			total > old->total_cost * QS_ADD_PATH_FUZZ &&
			(!rel->consider_startup || old->startup_cost <= 0) &&
			old->rows <= rel->rows &&
			(old->parallel_safe || !rel->consider_parallel))
			return true;
	}
	return false;
}

static CustomPath *
make_path(PlannerInfo *root, RelOptInfo *rel, List *pushed, List *rest,
		  int workers, bool backward, double visit_charge, double visit_rows,
		  double visit_pages)
{
	CustomPath *cp = makeNode(CustomPath);

	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = rel->reltarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = workers > 0;
	cp->path.parallel_safe = rel->consider_parallel;
	cp->path.parallel_workers = workers;
	cp->path.pathkeys = NIL;
	/*
	 * Serial scans of row tables walk pages both ways (cursors); parallel
	 * ones and scans of column tables forward.  The node projects (ExecScan
	 * with the ps_ProjInfo ExecInitCustomScan builds from the plan's
	 * targetlist), so the planner puts no Result above it to compute an
	 * UPDATE's new values.
	 */
	cp->flags = CUSTOMPATH_SUPPORT_PROJECTION |
		(backward ? CUSTOMPATH_SUPPORT_BACKWARD_SCAN : 0);
	/* the pushed clauses, so that qs_plan_path need not decide them again */
	cp->custom_private = pushed;
	cp->methods = &qs_path_methods;
	cost_path(root, rel, &cp->path, pushed, rest, workers, visit_charge,
			  visit_rows, visit_pages);
	return cp;
}

/*
 * A column table's path pays for decoding the columns it hands out
 * (colcost.c), as its sequential scan pays for all of them.
 */
static Path *
column_path(PlannerInfo *root, RelOptInfo *rel, QsScanKind kind, List *needed,
			CustomPath *cp)
{
	if (kind == QS_COLUMN_TABLE)
		qs_colcost_charge_scan(root, rel, &cp->path, cp->custom_private,
							   needed, cp->path.parallel_workers);
	return (Path *) cp;
}

/*
 * Is one of the relation's quals WHERE CURRENT OF?  Only the TID scan
 * executes it: PG 18 builds no other path for it (create_tidscan_paths),
 * and PG 15 disables the others; a QuickstepScan offered there would be the
 * cheapest path and fail at run time ("WHERE CURRENT OF is not supported
 * for this table type").
 */
static bool
has_current_of(RelOptInfo *rel)
{
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
		if (IsA(((RestrictInfo *) lfirst(lc))->clause, CurrentOfExpr))
			return true;
	return false;
}

/*
 * A column table's index, bitmap and TID scans decode only the attributes
 * their plan node reads (src/column/fetchatts.c), which a physical target
 * list defeats: create_scan_plan gives a scan below a node that does not
 * need an exact target list (an Agg, a Group) every attribute, to save a
 * projection, and the node above reads a few of them — the fetch then
 * opened every column of the block (TPC-H Q20's subplan).  use_physical_tlist
 * refuses a relation any of whose system columns is needed (PG 15 and 18),
 * so ctid is marked needed by the query's result (relid 0).  Nothing else
 * reads attr_needed once paths are being built but build_joinrel_tlist,
 * for the Vars of the relation's target list only, which this does not
 * change.  It applies to every core scan of a column table (a Seq Scan
 * when QuickstepScan is not taken, a TID range scan too): each projects,
 * a step heap saves, and EXPLAIN VERBOSE shows its output list.
 */
static void
no_physical_tlist(RelOptInfo *rel)
{
	int			i = SelfItemPointerAttributeNumber - rel->min_attr;

	if (i >= 0 && i <= rel->max_attr - rel->min_attr)
		rel->attr_needed[i] = bms_add_member(rel->attr_needed[i], 0);
}

static void
qs_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					RangeTblEntry *rte)
{
	List	   *pushed;
	List	   *rest;
	List	   *needed = NIL;
	QsScanKind	kind;
	bool		serial,
				partial;
	double		visit_charge = QS_VISIT_FRACTION,
				visit_rows = 1.0,
				visit_pages = 1.0;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_RELATION &&
		!rte->inh && relation_kind(rte->relid) == QS_COLUMN_TABLE)
		no_physical_tlist(rel);

	if (!qs_enable_pushdown ||
		rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_RELATION ||
		rte->tablesample != NULL || rte->inh ||
		(rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL))
		return;
	kind = relation_kind(rte->relid);
	if (kind == QS_NOT_OURS || has_current_of(rel))
		return;
	/* a row table with nothing to push; a column table's scan projects */
	if (kind == QS_ROW_TABLE && rel->baserestrictinfo == NIL)
		return;
	if (kind == QS_COLUMN_TABLE)
		qs_colcost_charge_seqscans(root, rel, rte->relid);

	/*
	 * No path for a relation with lateral references (rel->lateral_relids:
	 * a LATERAL subquery's PlaceHolderVar evaluated at its scan, say).  Its
	 * scan must be parameterized by them, as create_seqscan_path does
	 * through get_baserel_parampathinfo; an unparameterized QuickstepScan
	 * lost them (a LEFT JOIN LATERAL's outer column came out NULL).  A
	 * parameterized one would also have to be costed with the parameter
	 * info's rows and join clauses, which cost_path does not know: the plain
	 * scan is left to such relations.
	 */
	serial = !(kind == QS_ROW_TABLE && serial_path_dominated(rel)) &&
		rel->lateral_relids == NULL;
	partial = rel->consider_parallel && rel->lateral_relids == NULL;
	if (!serial && !partial)
		return;

	split_clauses(rel->baserestrictinfo, rel->relid, &pushed, &rest);
	if ((pushed == NIL && kind == QS_ROW_TABLE) ||
		needs_unsupported_system_columns(rel, rest))
		return;

	/* the same for the serial and the partial path */
	if (kind == QS_COLUMN_TABLE)
	{
		needed = needed_columns(rel, extract_actual_clauses(rest, false));
		visit_charge = qs_colcost_visit_fraction();
		column_visit_shares(rel, rte->relid,
							column_visit_fraction(root, rel, pushed),
							&visit_rows, &visit_pages);
	}
	if (serial)
		add_path(rel, column_path(root, rel, kind, needed,
								  make_path(root, rel, pushed, rest, 0,
											kind == QS_ROW_TABLE, visit_charge,
											visit_rows, visit_pages)));

	/*
	 * Partial paths as for a Parallel Seq Scan: workers claim row pages (a
	 * column table's delta pages, then its main blocks) from shared state.
	 */
	if (partial)
	{
		int			workers = compute_parallel_worker(rel, rel->pages, -1,
													  max_parallel_workers_per_gather);

		if (workers > 0)
			add_partial_path(rel, column_path(root, rel, kind, needed,
											  make_path(root, rel, pushed, rest, workers,
														false, visit_charge,
														visit_rows, visit_pages)));
	}
}

/*
 * The columns the scan must produce: what the query needs of this relation
 * (its reltarget) and what the remaining quals read.  Not the tlist: the
 * planner may hand us a "physical" tlist of every column, which upper nodes
 * do not read.  Whole-row references need every column.
 */
static List *
needed_columns(RelOptInfo *rel, List *rest_clauses)
{
	Bitmapset  *attrs = NULL;
	List	   *result = NIL;
	bool		wholerow;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	pull_varattnos((Node *) rest_clauses, rel->relid, &attrs);
	wholerow = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	for (AttrNumber a = 1; a <= rel->max_attr; a++)
		if (wholerow || bms_is_member(a - FirstLowInvalidHeapAttributeNumber, attrs))
			result = lappend_int(result, a);
	return result;
}

/*
 * clauses are the relation's restriction clauses (the path has no
 * parameterization), ordered by order_qual_clauses: those the path pushed
 * run in storage in that order, the others but pseudoconstant ones (a
 * gating Result handles these) above it.
 */
static Plan *
qs_plan_path(PlannerInfo *root, RelOptInfo *rel, struct CustomPath *best_path,
			 List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *pushed = NIL;
	List	   *rest = NIL;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (list_member_ptr(best_path->custom_private, ri))
			pushed = lappend(pushed, ri);
		else if (!ri->pseudoconstant)
			rest = lappend(rest, ri);
	}

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(rest, false);
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_exprs = extract_actual_clauses(pushed, false);
	cscan->custom_private = list_make1(needed_columns(rel, cscan->scan.plan.qual));
	cscan->custom_scan_tlist = NIL;
	cscan->methods = &qs_scan_methods;
	return &cscan->scan.plan;
}

void
qs_scan_init(void)
{
	RegisterCustomScanMethods(&qs_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = qs_set_rel_pathlist;
	qs_aggplan_init();
}

/*
 * For the aggregate mode's paths (aggplan.c): the clauses pushed into the
 * storage, the shares of a column table's rows and pages a scan with them
 * reads, and PostgreSQL's parallel divisor, as the scan's own path costs
 * them.
 */
void
qs_scan_split_clauses(List *rinfos, Index relid, List **pushed, List **rest)
{
	split_clauses(rinfos, relid, pushed, rest);
}

void
qs_scan_column_shares(PlannerInfo *root, RelOptInfo *rel, Oid relid,
					  List *pushed, double *rows, double *pages)
{
	column_visit_shares(rel, relid, column_visit_fraction(root, rel, pushed),
						rows, pages);
}

double
qs_scan_parallel_divisor(int workers)
{
	return parallel_divisor(workers);
}
