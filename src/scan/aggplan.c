/*-------------------------------------------------------------------------
 *
 * aggplan.c
 *	  Aggregate pushdown for column tables, planner side: a
 *	  create_upper_paths_hook that offers Finalize Aggregate over a
 *	  QuickstepScan computing the partial aggregates (under a Gather when
 *	  the scan is parallel), and the CustomScan plan of that scan.
 *
 * The hook only adds paths to the grouping relation; HAVING, ORDER BY and
 * every final function stay PostgreSQL's.  The scan's target is PostgreSQL's
 * own partial grouping target (the grouping columns, then each Aggref
 * marked AGGSPLIT_INITIAL_SERIAL), so the Finalize node deserializes and
 * combines its output exactly as it does a Partial Aggregate's.  The plan
 * has scanrelid 0 and that target as custom_scan_tlist, as postgres_fdw's
 * pushed-down aggregates have it as fdw_scan_tlist: setrefs then matches the
 * Finalize node's Aggref arguments to the scan's output by equality.
 *
 *-------------------------------------------------------------------------
 */
#include "scan/qscan.h"
#include "scan/aggpush.h"
#include "core/quickstep.h"
#include "column/colam.h"
#include "column/colstore.h"

#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/nodeHash.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "fmgr.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"
#include "utils/typcache.h"

/*
 * Per-row work of the aggregate mode, as a fraction of cpu_operator_cost
 * per aggregate and grouping column: a C accumulator on a decoded value
 * instead of a transition function called through fmgr on a slot's.
 */
#define QS_AGG_ROW_FRACTION 0.5

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

static Plan *qs_agg_plan_path(PlannerInfo *root, RelOptInfo *rel,
							  struct CustomPath *best_path, List *tlist,
							  List *clauses, List *custom_plans);

static const CustomPathMethods qs_agg_path_methods = {
	.CustomName = QS_SCAN_NAME,
	.PlanCustomPath = qs_agg_plan_path,
};

/* The aggregates computed in the scan: function, operation, input type. */
typedef struct AggFn
{
	Oid			fnoid;
	QsAggOp		op;
	Oid			intype;			/* InvalidOid: any (count) */
} AggFn;

static const AggFn agg_fns[] = {
	{F_COUNT_, QS_AGG_COUNT_STAR, InvalidOid},
	{F_COUNT_ANY, QS_AGG_COUNT, InvalidOid},
	{F_SUM_INT2, QS_AGG_SUM, INT2OID},
	{F_SUM_INT4, QS_AGG_SUM, INT4OID},
	{F_SUM_INT8, QS_AGG_SUM, INT8OID},
	{F_SUM_FLOAT4, QS_AGG_SUM, FLOAT4OID},
	{F_SUM_FLOAT8, QS_AGG_SUM, FLOAT8OID},
	{F_AVG_INT2, QS_AGG_AVG, INT2OID},
	{F_AVG_INT4, QS_AGG_AVG, INT4OID},
	{F_AVG_INT8, QS_AGG_AVG, INT8OID},
	{F_SUM_NUMERIC, QS_AGG_SUM, NUMERICOID},
	{F_AVG_NUMERIC, QS_AGG_AVG, NUMERICOID},
	{F_MIN_INT2, QS_AGG_MIN, INT2OID},
	{F_MIN_INT4, QS_AGG_MIN, INT4OID},
	{F_MIN_INT8, QS_AGG_MIN, INT8OID},
	{F_MIN_DATE, QS_AGG_MIN, DATEOID},
	{F_MIN_TIMESTAMP, QS_AGG_MIN, TIMESTAMPOID},
	{F_MIN_TIMESTAMPTZ, QS_AGG_MIN, TIMESTAMPTZOID},
	{F_MIN_FLOAT4, QS_AGG_MIN, FLOAT4OID},
	{F_MIN_FLOAT8, QS_AGG_MIN, FLOAT8OID},
	{F_MAX_INT2, QS_AGG_MAX, INT2OID},
	{F_MAX_INT4, QS_AGG_MAX, INT4OID},
	{F_MAX_INT8, QS_AGG_MAX, INT8OID},
	{F_MAX_DATE, QS_AGG_MAX, DATEOID},
	{F_MAX_TIMESTAMP, QS_AGG_MAX, TIMESTAMPOID},
	{F_MAX_TIMESTAMPTZ, QS_AGG_MAX, TIMESTAMPTZOID},
	{F_MAX_FLOAT4, QS_AGG_MAX, FLOAT4OID},
	{F_MAX_FLOAT8, QS_AGG_MAX, FLOAT8OID},
};

/*
 * qs_agg_int_width
 *		Bytes of an integer-like by-value type whose values the scan handles
 *		as int64 images (equal and ordered as the images are), else 0.
 */
int
qs_agg_int_width(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
			return 2;
		case INT4OID:
		case DATEOID:
			return 4;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return 8;
		default:
			return 0;
	}
}

static QsAggIn
agg_input(Oid typid, int *width)
{
	*width = qs_agg_int_width(typid);
	if (*width > 0)
		return QS_AGGIN_INT;
	*width = typid == FLOAT4OID ? 4 : 8;
	return typid == FLOAT4OID ? QS_AGGIN_FLOAT4 :
		typid == FLOAT8OID ? QS_AGGIN_FLOAT8 : QS_AGGIN_NONE;
}

#ifdef HAVE_INT128
/*
 * sum/avg(numeric)'s argument into spec->steps, postfix: a numeric(p,s)
 * column of the table (s >= 0: the typmod's coercion gives every value
 * display scale s), a non-NULL numeric constant, or numeric +, -, * of
 * such.  *dscale: the result's display scale as numeric.c computes it
 * (add_var and sub_var: the larger of the two; numeric_mul: their sum, the
 * exact product), which must be at most QS_NUM_MAX_SCALE so that the
 * executor can hold the value as an int128 at that scale.  Anything else
 * (numeric without typmod, /, functions, casts): false, PostgreSQL's plan.
 * spec->attno: the first column.
 */
static bool
num_compile(Node *node, Index relid, QsAggSpec *spec, int *dscale)
{
	QsNumStep  *step;

	if (spec->nsteps >= QS_NUM_MAX_STEPS || node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varno != relid || var->varattno <= 0 || var->varlevelsup != 0 ||
			var->vartype != NUMERICOID)
			return false;
		*dscale = qs_numeric_typmod_scale(var->vartypmod);
		if (*dscale < 0 || *dscale > QS_NUM_MAX_SCALE)
			return false;
		step = &spec->steps[spec->nsteps++];
		step->op = QS_NUMOP_COL;
		step->attno = var->varattno;
		if (spec->attno == 0)
			spec->attno = var->varattno;
		return true;
	}
	if (IsA(node, Const))
	{
		Const	   *c = (Const *) node;
		struct varlena *t;
		QsNum		x;

		if (c->consttype != NUMERICOID || c->constisnull)
			return false;
		t = PG_DETOAST_DATUM_PACKED(c->constvalue);
		qs_numeric_decode((const uint8 *) VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &x);
		*dscale = x.dscale;
		if (*dscale > QS_NUM_MAX_SCALE)
			return false;
		step = &spec->steps[spec->nsteps++];
		step->op = QS_NUMOP_CONST;
		step->cnst = c;
		return true;
	}
	if (IsA(node, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) node;
		Oid			fn = get_opcode(op->opno);
		int			d1,
					d2;
		QsNumOp		o;

		if (op->opresulttype != NUMERICOID || list_length(op->args) != 2)
			return false;
		if (fn == F_NUMERIC_ADD)
			o = QS_NUMOP_ADD;
		else if (fn == F_NUMERIC_SUB)
			o = QS_NUMOP_SUB;
		else if (fn == F_NUMERIC_MUL)
			o = QS_NUMOP_MUL;
		else
			return false;
		if (!num_compile(linitial(op->args), relid, spec, &d1) ||
			!num_compile(lsecond(op->args), relid, spec, &d2) ||
			spec->nsteps >= QS_NUM_MAX_STEPS)
			return false;
		*dscale = o == QS_NUMOP_MUL ? d1 + d2 : Max(d1, d2);
		if (*dscale > QS_NUM_MAX_SCALE)
			return false;
		spec->steps[spec->nsteps++].op = o;
		return true;
	}
	return false;
}
#endif

bool
qs_agg_classify(const Aggref *agg, Index relid, QsAggSpec *spec)
{
	const AggFn *fn = NULL;
	Var		   *var;

	memset(spec, 0, sizeof(*spec));
	if (agg->aggdistinct != NIL || agg->aggorder != NIL ||
		agg->aggfilter != NULL || agg->agglevelsup != 0 ||
		agg->aggkind != AGGKIND_NORMAL || agg->aggvariadic ||
		agg->aggdirectargs != NIL)
		return false;
	for (int i = 0; i < lengthof(agg_fns); i++)
		if (agg_fns[i].fnoid == agg->aggfnoid)
			fn = &agg_fns[i];
	if (fn == NULL)
		return false;
	spec->op = fn->op;
	if (fn->op == QS_AGG_COUNT_STAR)
	{
		spec->in = QS_AGGIN_NONE;
		return agg->aggstar && agg->args == NIL;
	}
	if (agg->aggstar || list_length(agg->args) != 1)
		return false;
	if (fn->intype == NUMERICOID)
	{
#ifdef HAVE_INT128
		int			dscale;

		spec->in = QS_AGGIN_NUMERIC;
		spec->intype = NUMERICOID;
		return num_compile((Node *) linitial_node(TargetEntry, agg->args)->expr,
						   relid, spec, &dscale) &&
			spec->attno > 0;
#else
		return false;
#endif
	}
	var = (Var *) linitial_node(TargetEntry, agg->args)->expr;
	if (!IsA(var, Var) || var->varno != relid || var->varattno <= 0 ||
		var->varlevelsup != 0)
		return false;
	spec->attno = var->varattno;
	spec->intype = var->vartype;
	if (fn->op == QS_AGG_COUNT)
	{
		spec->in = QS_AGGIN_ANY;
		return true;
	}
	if (var->vartype != fn->intype)
		return false;
	spec->in = agg_input(var->vartype, &spec->width);
#ifndef HAVE_INT128
	/* sum(int8) and avg(int8) keep an int128 sum */
	if (spec->width == 8 && spec->in == QS_AGGIN_INT &&
		(spec->op == QS_AGG_SUM || spec->op == QS_AGG_AVG))
		return false;
#endif
	return spec->in != QS_AGGIN_NONE;
}

/*
 * Integer-like and boolean keys: equal under their type's "=" exactly when
 * their images are equal, so the scan groups on the images; text and
 * varchar under a deterministic collation: when their bytes are (the scan
 * numbers the distinct values and groups on the numbers).
 */
bool
qs_agg_group_type_ok(Oid typid, int32 typmod, Oid collid, Oid eqop)
{
	/*
	 * text and varchar: equal exactly when their bytes are.  char(n):
	 * bpchareq compares the bytes without trailing spaces (the scan numbers
	 * those, aggexec.c bpkey_hash), and with a typmod every value is padded
	 * to n characters, so equal values are the same bytes too and the group
	 * shows any of them as PostgreSQL shows its first.  bpchar without a
	 * typmod keeps its values' own padding: not pushed.
	 */
	if (typid == BPCHAROID && typmod < 0)
		return false;
	if (typid == TEXTOID || typid == VARCHAROID || typid == BPCHAROID)
	{
		if (!OidIsValid(collid) || !get_collation_isdeterministic(collid))
			return false;
	}
	else if (typid != BOOLOID && qs_agg_int_width(typid) == 0)
		return false;
	return eqop == lookup_type_cache(typid, TYPECACHE_EQ_OPR)->eq_opr;
}

/*
 * PostgreSQL's partial grouping target (planner.c's static
 * make_partial_grouping_target): the grouping columns as they are, then the
 * Vars, PlaceHolderVars and Aggrefs of the other columns and of HAVING, the
 * Aggrefs marked AGGSPLIT_INITIAL_SERIAL.  The Finalize node's Aggrefs find
 * their partial states in the scan's output only if it is built the same
 * way.
 */
static PathTarget *
partial_grouping_target(PlannerInfo *root, PathTarget *grouping_target,
						Node *havingQual)
{
	List	   *groupClause = QS_GROUP_CLAUSE(root);
	PathTarget *partial_target = create_empty_pathtarget();
	List	   *non_group_cols = NIL;
	List	   *non_group_exprs;
	ListCell   *lc;
	int			i = 0;

	foreach(lc, grouping_target->exprs)
	{
		Expr	   *expr = (Expr *) lfirst(lc);
		Index		sgref = get_pathtarget_sortgroupref(grouping_target, i);

		if (sgref && groupClause &&
			get_sortgroupref_clause_noerr(sgref, groupClause) != NULL)
			add_column_to_pathtarget(partial_target, expr, sgref);
		else
			non_group_cols = lappend(non_group_cols, expr);
		i++;
	}
	if (havingQual)
		non_group_cols = lappend(non_group_cols, havingQual);
	non_group_exprs = pull_var_clause((Node *) non_group_cols,
									  PVC_INCLUDE_AGGREGATES |
									  PVC_RECURSE_WINDOWFUNCS |
									  PVC_INCLUDE_PLACEHOLDERS);
	add_new_columns_to_pathtarget(partial_target, non_group_exprs);
	foreach(lc, partial_target->exprs)
	{
		Aggref	   *aggref = (Aggref *) lfirst(lc);

		if (IsA(aggref, Aggref))
		{
			Aggref	   *newaggref = makeNode(Aggref);

			memcpy(newaggref, aggref, sizeof(Aggref));
			mark_partial_aggref(newaggref, AGGSPLIT_INITIAL_SERIAL);
			lfirst(lc) = newaggref;
		}
	}
	list_free(non_group_exprs);
	list_free(non_group_cols);
	return set_pathtarget_cost_width(root, partial_target);
}

/*
 * Can the scan produce every column of the partial target?  Grouping
 * columns must be plain columns of the table of a type grouped on its
 * images; every other column an aggregate the scan computes.  *naggs: the
 * aggregates.
 */
static bool
target_ok(PlannerInfo *root, PathTarget *target, Index relid, int *naggs)
{
	List	   *groupClause = QS_GROUP_CLAUSE(root);
	ListCell   *lc;
	int			i = 0;

	*naggs = 0;
	foreach(lc, target->exprs)
	{
		Node	   *expr = lfirst(lc);
		Index		sgref = get_pathtarget_sortgroupref(target, i++);
		QsAggSpec	spec;

		if (IsA(expr, Aggref))
		{
			if (!qs_agg_classify((Aggref *) expr, relid, &spec))
				return false;
			(*naggs)++;
			continue;
		}
		if (IsA(expr, Var) && sgref != 0)
		{
			Var		   *var = (Var *) expr;
			SortGroupClause *sgc = get_sortgroupref_clause_noerr(sgref, groupClause);

			if (sgc == NULL || var->varno != relid || var->varattno <= 0 ||
				var->varlevelsup != 0 ||
				!qs_agg_group_type_ok(var->vartype, var->vartypmod,
									  var->varcollid, sgc->eqop))
				return false;
			continue;
		}
		/* a non-grouped column (functionally dependent), a PlaceHolderVar */
		return false;
	}
	return true;
}

/* The Params the quals read: the plan node's, so that rescans reach it. */
static bool
collect_params(Node *node, List **params)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
	{
		*params = lappend(*params, node);
		return false;
	}
	return expression_tree_walker(node, collect_params, params);
}

static CustomPath *
make_agg_scan_path(PlannerInfo *root, RelOptInfo *rel, PathTarget *target,
				   List *pushed, int naggs, int ngroupcols, double groups,
				   int workers, double visit_rows, double visit_pages)
{
	CustomPath *cp = makeNode(CustomPath);
	double		seq_page_cost;
	Cost		startup = 0;
	/* a column table's rows, visited as the scan's path visits them */
	Cost		cpu_per_tuple = cpu_tuple_cost * qs_colcost_visit_fraction();
	Cost		cpu_run;
	double		frac = 1.0;
	ListCell   *lc;

	get_tablespace_page_costs(rel->reltablespace, NULL, &seq_page_cost);
	foreach(lc, pushed)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		QualCost	qc;

		cost_qual_eval_node(&qc, (Node *) ri->clause, root);
		startup += qc.startup;
		cpu_per_tuple += frac * qc.per_tuple * 0.5;
		frac *= clause_selectivity(root, (Node *) ri->clause, 0, JOIN_INNER, NULL);
	}
	/* rows visited, then the rows that pass accumulated, then the groups */
	cpu_run = cpu_per_tuple * rel->tuples * visit_rows +
		rel->rows * (naggs + ngroupcols) * cpu_operator_cost * QS_AGG_ROW_FRACTION +
		groups * cpu_tuple_cost;
	if (workers > 0)
		cpu_run /= qs_scan_parallel_divisor(workers);

	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = target;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = workers > 0;
	cp->path.parallel_safe = rel->consider_parallel;
	cp->path.parallel_workers = workers;
	cp->path.pathkeys = NIL;
	cp->path.rows = groups;
	cp->path.startup_cost = startup;
	cp->path.total_cost = startup + cpu_run +
		seq_page_cost * rel->pages * visit_pages;
	cp->flags = 0;
	cp->methods = &qs_agg_path_methods;
	if (!enable_seqscan)
		QS_DISABLE_PATH(&cp->path);
	return cp;
}

static void
try_agg_paths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *grouped_rel,
			  GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	List	   *groupClause = QS_GROUP_CLAUSE(root);
	RangeTblEntry *rte;
	Relation	r;
	bool		column;
	List	   *pushed,
			   *rest;
	PathTarget *target;
	int			naggs;
	double		visit_rows = 1.0,
				visit_pages = 1.0;
	double		groups = 1.0;
	AggClauseCosts final_costs;
	AggStrategy strategy = AGG_PLAIN;
	Path	   *path;

	if (parse->groupingSets != NIL || parse->hasTargetSRFs ||
		!(extra->flags & GROUPING_CAN_PARTIAL_AGG) ||
		root->hasNonPartialAggs || root->hasNonSerialAggs)
		return;
	/* a rel proven empty (WHERE false) keeps its empty plan */
	if (input_rel->reloptkind != RELOPT_BASEREL ||
		input_rel->rtekind != RTE_RELATION || input_rel->lateral_relids != NULL ||
		IS_DUMMY_REL(input_rel))
		return;
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->relkind != RELKIND_RELATION || rte->inh || rte->tablesample != NULL)
		return;
	r = table_open(rte->relid, NoLock);	/* the planner holds a lock */
	column = qs_is_column_rel(r);
	table_close(r, NoLock);
	if (!column)
		return;

	/* every restriction runs in the storage (pseudoconstants: a Result) */
	qs_scan_split_clauses(input_rel->baserestrictinfo, input_rel->relid,
						  &pushed, &rest);
	if (rest != NIL)
		return;

	if (groupClause != NIL)
	{
		if (!grouping_is_hashable(groupClause))
			return;
		strategy = AGG_HASHED;
	}
	target = partial_grouping_target(root, grouped_rel->reltarget,
									 extra->havingQual);
	if (!target_ok(root, target, input_rel->relid, &naggs))
		return;

	if (groupClause != NIL)
		groups = estimate_num_groups(root,
									 get_sortgrouplist_exprs(groupClause,
															 parse->targetList),
									 input_rel->rows, NULL, NULL);
	/*
	 * The scan keeps every group of its blocks in memory and does not spill
	 * (PostgreSQL's HashAggregate does): offered only where the groups fit
	 * in hash_mem, counting per group its key images, its accumulators and
	 * the hash table's overhead.  An underestimate of the groups is not
	 * caught (README limitations).
	 */
	if (groupClause != NIL &&
		groups * (64.0 + 16.0 * list_length(groupClause) +
				  (double) qs_agg_acc_bytes() * naggs) >
		(double) get_hash_memory_limit())
		return;
	if (pushed != NIL)
		qs_scan_column_shares(root, input_rel, rte->relid, pushed,
							  &visit_rows, &visit_pages);
	memset(&final_costs, 0, sizeof(final_costs));
	get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &final_costs);

	/* serial: Finalize Aggregate -> QuickstepScan */
	path = (Path *) make_agg_scan_path(root, input_rel, target, pushed, naggs,
									   list_length(groupClause), groups, 0,
									   visit_rows, visit_pages);
	add_path(grouped_rel, (Path *)
			 create_agg_path(root, grouped_rel, path, grouped_rel->reltarget,
							 strategy, AGGSPLIT_FINAL_DESERIAL, groupClause,
							 (List *) extra->havingQual, &final_costs, groups));

	/* parallel: Finalize Aggregate -> Gather -> Parallel QuickstepScan */
	if (input_rel->consider_parallel && grouped_rel->consider_parallel &&
		max_parallel_workers_per_gather > 0)
	{
		int			workers = compute_parallel_worker(input_rel, input_rel->pages, -1,
													  max_parallel_workers_per_gather);
		double		total_groups;

		if (workers > 0)
		{
			path = (Path *) make_agg_scan_path(root, input_rel, target, pushed,
											   naggs, list_length(groupClause),
											   groups, workers, visit_rows,
											   visit_pages);
			total_groups = groups * (workers + (parallel_leader_participation ? 1 : 0));
			path = (Path *) create_gather_path(root, grouped_rel, path, target,
											   NULL, &total_groups);
			add_path(grouped_rel, (Path *)
					 create_agg_path(root, grouped_rel, path, grouped_rel->reltarget,
									 strategy, AGGSPLIT_FINAL_DESERIAL, groupClause,
									 (List *) extra->havingQual, &final_costs,
									 groups));
		}
	}
}

static void
qs_agg_upper_paths(PlannerInfo *root, UpperRelationKind stage,
				   RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_GROUP_AGG || extra == NULL ||
		!qs_enable_pushdown || !qs_enable_agg_pushdown)
		return;
	try_agg_paths(root, input_rel, output_rel, (GroupPathExtraData *) extra);
}

/*
 * The plan: scanrelid 0, the partial target as custom_scan_tlist; the
 * pushed quals (with the table's range table index they were planned with,
 * which setrefs does not adjust in custom_private) in custom_private, the
 * Params they read in custom_exprs (so that a new Param value rescans the
 * node).  The table is custom_relids' one member.
 */
static Plan *
qs_agg_plan_path(PlannerInfo *root, RelOptInfo *rel, struct CustomPath *best_path,
				 List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *pushed;
	List	   *rest;
	List	   *quals;
	List	   *params = NIL;

	qs_scan_split_clauses(clauses, rel->relid, &pushed, &rest);
	if (rest != NIL)
		elog(ERROR, "QuickstepScan: a restriction of an aggregate pushdown is not pushable");
	quals = extract_actual_clauses(pushed, false);
	fix_opfuncids((Node *) quals);
	collect_params((Node *) quals, &params);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_scan_tlist = copyObject(tlist);
	cscan->custom_exprs = params;
	cscan->custom_private = list_make2(quals, makeInteger((int) rel->relid));
	cscan->methods = &qs_scan_methods;
	return &cscan->scan.plan;
}

void
qs_aggplan_init(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = qs_agg_upper_paths;
}
