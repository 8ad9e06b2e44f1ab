/*-------------------------------------------------------------------------
 *
 * quals.c
 *	  Recognize, compile and evaluate the restriction clauses that
 *	  QuickstepScan runs inside the storage (see include/scan/quals.h).
 *
 *-------------------------------------------------------------------------
 */
#include "scan/quals.h"

#include "catalog/objectaccess.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "page/layout.h"

/* Strip binary-compatible relabelings (varchar -> text and the like). */
static Expr *
strip_relabel(Expr *e)
{
	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e;
}

/* A user column of the scanned relation itself. */
static bool
is_rel_column(Expr *e, Index relid, AttrNumber *attno)
{
	Var		   *var;

	e = strip_relabel(e);
	if (e == NULL || !IsA(e, Var))
		return false;
	var = (Var *) e;
	if (var->varno != relid || var->varlevelsup != 0 || var->varattno <= 0)
		return false;
	*attno = var->varattno;
	return true;
}

/*
 * A value fixed for the whole scan: no Vars, nothing volatile, no
 * subplans.  Consts and Params qualify, and so do stable expressions over
 * them (now() - interval '1 day'); they are evaluated once per (re)scan,
 * which is exactly what the planner allows for index quals.
 */
static bool
is_scan_constant(Expr *e)
{
	return !contain_var_clause((Node *) e) &&
		!contain_volatile_functions((Node *) e) &&
		!contain_subplans((Node *) e);
}

/*
 * Decompose a clause; on success *col is the column side, *val the value
 * side and *funcid the function to call as func(col, val).
 */
static bool
decompose(Expr *clause, Index relid, AttrNumber *attno, Expr **val,
		  Oid *opnop, Oid *funcid, QsQualKind *kind)
{
	if (IsA(clause, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) clause;
		Expr	   *l,
				   *r;
		Oid			opno = op->opno;
		Oid			opfuncid = op->opfuncid;

		if (list_length(op->args) != 2 || op->opresulttype != BOOLOID || op->opretset)
			return false;
		l = linitial(op->args);
		r = lsecond(op->args);
		if (is_rel_column(l, relid, attno) && is_scan_constant(r))
			*val = r;
		else if (is_rel_column(r, relid, attno) && is_scan_constant(l))
		{
			opno = get_commutator(opno);
			if (!OidIsValid(opno))
				return false;
			opfuncid = InvalidOid;
			*val = l;
		}
		else
			return false;
		*opnop = opno;
		/* the planner has looked the function up already, unless commuted */
		*funcid = OidIsValid(opfuncid) ? opfuncid : get_opcode(opno);
		*kind = QS_QUAL_OP;
		return OidIsValid(*funcid) && func_strict(*funcid);
	}
	if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;

		if (list_length(sa->args) != 2 ||
			!is_rel_column(linitial(sa->args), relid, attno) ||
			!is_scan_constant(lsecond(sa->args)))
			return false;
		*val = lsecond(sa->args);
		*opnop = sa->opno;
		*funcid = OidIsValid(sa->opfuncid) ? sa->opfuncid : get_opcode(sa->opno);
		*kind = sa->useOr ? QS_QUAL_ANY : QS_QUAL_ALL;
		return OidIsValid(*funcid) && func_strict(*funcid) &&
			get_func_rettype(*funcid) == BOOLOID;
	}
	if (IsA(clause, NullTest))
	{
		NullTest   *nt = (NullTest *) clause;

		if (nt->argisrow || !is_rel_column(nt->arg, relid, attno))
			return false;
		*val = NULL;
		*opnop = InvalidOid;
		*funcid = InvalidOid;
		*kind = nt->nulltesttype == IS_NULL ? QS_QUAL_ISNULL : QS_QUAL_NOTNULL;
		return true;
	}
	return false;
}

bool
qs_qual_pushable(Expr *clause, Index relid, AttrNumber *attno)
{
	Expr	   *val;
	Oid			opno;
	Oid			funcid;
	QsQualKind	kind;

	return decompose(clause, relid, attno, &val, &opno, &funcid, &kind);
}

/*
 * Comparison functions whose arguments are integers (of any width) and
 * that compare exactly like C integers: these run natively.  Date is an
 * int32 day count and timestamp/timestamptz an int64 microsecond count.
 */
typedef struct FastCmpEntry
{
	Oid			funcid;
	QsCmp		cmp;
	int			col_width;
	int			arg_width;
} FastCmpEntry;

#define FAST6(prefix, cw, aw) \
	{F_##prefix##LT, QS_CMP_LT, cw, aw}, {F_##prefix##LE, QS_CMP_LE, cw, aw}, \
	{F_##prefix##EQ, QS_CMP_EQ, cw, aw}, {F_##prefix##NE, QS_CMP_NE, cw, aw}, \
	{F_##prefix##GE, QS_CMP_GE, cw, aw}, {F_##prefix##GT, QS_CMP_GT, cw, aw}

static const FastCmpEntry fast_cmps[] = {
	FAST6(INT2, 2, 2), FAST6(INT4, 4, 4), FAST6(INT8, 8, 8),
	FAST6(INT24, 2, 4), FAST6(INT28, 2, 8), FAST6(INT42, 4, 2),
	FAST6(INT48, 4, 8), FAST6(INT82, 8, 2), FAST6(INT84, 8, 4),
	FAST6(DATE_, 4, 4), FAST6(TIMESTAMP_, 8, 8), FAST6(TIMESTAMPTZ_, 8, 8),
};

/* A by-value integer-like Datum of width bytes as int64 (aggexec.c too). */
int64
qs_datum_to_int64(Datum d, int width)
{
	switch (width)
	{
		case 2:
			return DatumGetInt16(d);
		case 4:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

static void
check_execute(Oid funcid)
{
	AclResult	aclresult;

#if PG_VERSION_NUM >= 160000
	aclresult = object_aclcheck(ProcedureRelationId, funcid, GetUserId(), ACL_EXECUTE);
#else
	aclresult = pg_proc_aclcheck(funcid, GetUserId(), ACL_EXECUTE);
#endif
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(funcid));
	InvokeFunctionExecuteHook(funcid);
}

QsQual *
qs_qual_compile(Expr *clause, Index relid, PlanState *parent)
{
	QsQual	   *q = palloc0(sizeof(QsQual));
	Expr	   *val;
	Oid			funcid;

	if (!decompose(clause, relid, &q->attno, &val, &q->opno, &funcid, &q->kind))
		elog(ERROR, "QuickstepScan: clause cannot be evaluated in storage");
	q->clause = clause;
	if (q->kind == QS_QUAL_ISNULL || q->kind == QS_QUAL_NOTNULL)
		return q;

	/*
	 * What ExecInitFunc checks for a qual the executor runs: EXECUTE on the
	 * operator's function, and the hook for security modules.  The pushed
	 * quals' own ExprState is built only for rechecks (exec.c), so the check
	 * is made here, for every scan that compiles them.
	 */
	check_execute(funcid);
	fmgr_info(funcid, &q->flinfo);
	q->collid = exprInputCollation((Node *) clause);
	q->arg_state = ExecInitExpr(val, parent);
	q->fast_cmp = QS_CMP_NONE;
	for (int i = 0; i < lengthof(fast_cmps); i++)
	{
		if (fast_cmps[i].funcid == funcid)
		{
			q->fast_cmp = fast_cmps[i].cmp;
			q->col_width = fast_cmps[i].col_width;
			q->arg_width = fast_cmps[i].arg_width;
			break;
		}
	}
	return q;
}

/*
 * Evaluate the value side (again at each rescan: a Param may have changed)
 * into argcxt, which the caller resets before preparing its quals.
 */
void
qs_qual_prepare(QsQual *q, ExprContext *econtext, MemoryContext argcxt)
{
	MemoryContext old;
	Datum		val;
	bool		isnull;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	if (q->arg_state == NULL)
		return;

	val = ExecEvalExprSwitchContext(q->arg_state, econtext, &isnull);
	old = MemoryContextSwitchTo(argcxt);
	get_typlenbyvalalign(exprType((Node *) q->arg_state->expr), &typlen, &typbyval, &typalign);
	q->arg_isnull = isnull;
	q->arg = isnull ? (Datum) 0 : datumCopy(val, typbyval, typlen);
	q->nelems = 0;
	q->elems = NULL;
	q->elem_nulls = NULL;
	q->elem_ints = NULL;

	if (q->kind == QS_QUAL_OP)
	{
		if (q->fast_cmp != QS_CMP_NONE && !isnull)
			q->arg_int = qs_datum_to_int64(q->arg, q->arg_width);
	}
	else if (!isnull)
	{
		ArrayType  *arr = DatumGetArrayTypeP(q->arg);
		Oid			elemtype = ARR_ELEMTYPE(arr);
		int16		elen;
		bool		ebyval;
		char		ealign;

		get_typlenbyvalalign(elemtype, &elen, &ebyval, &ealign);
		deconstruct_array(arr, elemtype, elen, ebyval, ealign,
						  &q->elems, &q->elem_nulls, &q->nelems);
		if (q->fast_cmp != QS_CMP_NONE)
		{
			q->elem_ints = palloc(sizeof(int64) * Max(q->nelems, 1));
			for (int i = 0; i < q->nelems; i++)
				q->elem_ints[i] = q->elem_nulls[i] ? 0 :
					qs_datum_to_int64(q->elems[i], q->arg_width);
		}
	}
	MemoryContextSwitchTo(old);
}

static inline bool
cmp_int(QsCmp cmp, int64 a, int64 b)
{
	switch (cmp)
	{
		case QS_CMP_LT:
			return a < b;
		case QS_CMP_LE:
			return a <= b;
		case QS_CMP_EQ:
			return a == b;
		case QS_CMP_NE:
			return a != b;
		case QS_CMP_GE:
			return a >= b;
		case QS_CMP_GT:
			return a > b;
		case QS_CMP_NONE:
			break;
	}
	pg_unreachable();
}

/*
 * func(a, b) is true.  Strict operators may still return NULL for non-NULL
 * input; that is "not true", as WHERE treats it.
 */
static inline bool
call_bool(QsQual *q, Datum a, Datum b)
{
	LOCAL_FCINFO(fcinfo, 2);
	Datum		r;

	InitFunctionCallInfoData(*fcinfo, &q->flinfo, 2, q->collid, NULL, NULL);
	fcinfo->args[0].value = a;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = b;
	fcinfo->args[1].isnull = false;
	r = FunctionCallInvoke(fcinfo);
	return !fcinfo->isnull && DatumGetBool(r);
}

/* Does column value v (not NULL) satisfy an ANY / ALL qual? */
static bool
eval_array(QsQual *q, Datum v)
{
	bool		any = (q->kind == QS_QUAL_ANY);

	for (int j = 0; j < q->nelems; j++)
	{
		bool		r;

		if (q->elem_nulls[j])
		{
			/* strict operator: NULL, which is never true */
			if (!any)
				return false;
			continue;
		}
		if (q->fast_cmp != QS_CMP_NONE)
			r = cmp_int(q->fast_cmp, qs_datum_to_int64(v, q->col_width), q->elem_ints[j]);
		else
			r = call_bool(q, v, q->elems[j]);
		if (r == any)
			return any;
	}
	return !any;
}

/*
 * Keep in offs[] (order preserved) those of the n rows whose column value
 * (values[i], isnull[i]) satisfies the qual, as WHERE does: a NULL result is
 * not true.  Returns how many were kept.
 */
int
qs_qual_filter(QsQual *q, const Datum *values, const bool *isnull,
			   OffsetNumber *offs, int n)
{
	int			k = 0;

	q->rows_in += n;
	switch (q->kind)
	{
		case QS_QUAL_ISNULL:
		case QS_QUAL_NOTNULL:
			{
				bool		want = (q->kind == QS_QUAL_ISNULL);

				for (int i = 0; i < n; i++)
					if (isnull[i] == want)
						offs[k++] = offs[i];
				break;
			}
		case QS_QUAL_OP:
			if (q->arg_isnull)
				break;
			if (q->fast_cmp != QS_CMP_NONE)
			{
				int64		b = q->arg_int;

				/*
				 * One loop per width and comparison, so that the compiler
				 * sees a simple compare-and-compact loop.
				 */
#define FILTER_LOOP(GET, OP) \
				for (int i = 0; i < n; i++) \
					if (!isnull[i] && (int64) GET(values[i]) OP b) \
						offs[k++] = offs[i]
#define FILTER_CMP(GET) \
				switch (q->fast_cmp) \
				{ \
					case QS_CMP_LT: FILTER_LOOP(GET, <); break; \
					case QS_CMP_LE: FILTER_LOOP(GET, <=); break; \
					case QS_CMP_EQ: FILTER_LOOP(GET, ==); break; \
					case QS_CMP_NE: FILTER_LOOP(GET, !=); break; \
					case QS_CMP_GE: FILTER_LOOP(GET, >=); break; \
					case QS_CMP_GT: FILTER_LOOP(GET, >); break; \
					case QS_CMP_NONE: break; \
				}
				if (q->col_width == 2)
				{
					FILTER_CMP(DatumGetInt16);
				}
				else if (q->col_width == 4)
				{
					FILTER_CMP(DatumGetInt32);
				}
				else
				{
					FILTER_CMP(DatumGetInt64);
				}
#undef FILTER_CMP
#undef FILTER_LOOP
			}
			else
			{
				for (int i = 0; i < n; i++)
					if (!isnull[i] && call_bool(q, values[i], q->arg))
						offs[k++] = offs[i];
			}
			break;
		case QS_QUAL_ANY:
		case QS_QUAL_ALL:
			if (q->arg_isnull)
				break;
			if (q->kind == QS_QUAL_ALL && q->nelems == 0)
			{
				/* x op ALL ('{}') is true even for a NULL x */
				k = n;
				break;
			}
			for (int i = 0; i < n; i++)
				if (!isnull[i] && eval_array(q, values[i]))
					offs[k++] = offs[i];
			break;
	}
	q->rows_out += k;
	return k;
}

/*
 * qs_qual_filter_page
 *		Run a native integer comparison (fast_cmp) over the records
 *		offs[0..*n-1] of 'page' inside the layout (filter_range), without
 *		reading the column into Datums first; same result as read_column
 *		followed by qs_qual_filter.  False, with nothing done, when the qual
 *		is of another kind or the layout cannot do it on this page: the
 *		caller then takes the generic path.
 */
bool
qs_qual_filter_page(QsQual *q, const QsPageLayout *L, Page page,
					TupleDesc desc, OffsetNumber *offs, int *n)
{
	int64		b = q->arg_int;
	int64		lo = PG_INT64_MIN;
	int64		hi = PG_INT64_MAX;
	bool		outside = false;
	bool		empty = false;
	int			nin = *n;

	if (q->kind != QS_QUAL_OP || q->fast_cmp == QS_CMP_NONE ||
		L->filter_range == NULL)
		return false;
	switch (q->fast_cmp)
	{
		case QS_CMP_LT:
			empty = (b == PG_INT64_MIN);
			hi = b - (empty ? 0 : 1);
			break;
		case QS_CMP_LE:
			hi = b;
			break;
		case QS_CMP_EQ:
			lo = hi = b;
			break;
		case QS_CMP_NE:
			lo = hi = b;
			outside = true;
			break;
		case QS_CMP_GE:
			lo = b;
			break;
		case QS_CMP_GT:
			empty = (b == PG_INT64_MAX);
			lo = b + (empty ? 0 : 1);
			break;
		case QS_CMP_NONE:
			return false;
	}
	if (q->arg_isnull || empty)
		*n = 0;					/* nothing compares true with NULL */
	else if (!L->filter_range(page, desc, q->attno, q->col_width,
							  lo, hi, outside, offs, n))
		return false;
	q->rows_in += nin;
	q->rows_out += *n;
	return true;
}
