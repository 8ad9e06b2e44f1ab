/*-------------------------------------------------------------------------
 *
 * pushdown.c
 *	  QuickstepScan's pushed quals over the main blocks of a column table
 *	  (include/column/pushdown.h).
 *
 * Per block, before any stripe is read: the header's value counts and
 * min/max refute quals (the block is skipped) or prove that every row
 * passes (the qual is not checked); for a dictionary-encoded column the
 * qual's value is looked up in the dictionary (binary search, once per
 * block), which refutes it, proves it, or turns it into a range of codes.
 * Then, a chunk of rows at a time, the quals run one after the other on
 * the rows the previous ones kept: a code range over the packed codes with
 * the codec's kernels, an integer comparison over FOR-encoded or plain
 * integers decoded a chunk at a time, other quals per row on the decoded
 * column.
 *
 * Min/max and dictionaries are in the order of the column's default btree
 * opclass under the column's collation (values.c).  A qual uses them only
 * when it compares in that same order: an integer comparison (native, on
 * int64 images) on an integer-like column, or an operator of the column
 * type's own btree opfamily with both inputs of the opclass type and the
 * column's collation (or the negator of its "=").  A date, timestamp or
 * timestamptz column compared with a value of another type of its btree
 * family (date < timestamp, as TPC-H writes date '...' + interval) is
 * native too: at the scan's start the set of column values the operator
 * accepts is found, as a range of int64 images, by binary search over the
 * column type's values calling the family's own cross-type operators
 * (xtype_range).  Other columns compared with a value of another type of
 * their family (float8 < float4) search min/max and dictionaries with the
 * family's cross-type comparison function (xcmp_sign).  Everything else
 * (another collation, operators outside the family, families not built
 * in) is evaluated on decoded values only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "column/pushdown.h"
#include "column/colblock.h"
#include "column/colblock_csb.h"
#include "column/colstore.h"

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/stratnum.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

typedef enum ColJudge
{
	CJ_NONE,					/* no non-NULL value passes */
	CJ_SOME,
	CJ_ALL						/* every non-NULL value passes */
} ColJudge;

/* Is opno an operator of opfamily over (opintype, opintype)?  Its strategy. */
static bool
same_type_member(Oid opno, Oid opfamily, Oid opintype, int *strategy)
{
	Oid			lefttype,
				righttype;

	if (!OidIsValid(opno) || !op_in_opfamily(opno, opfamily))
		return false;
	get_op_opfamily_properties(opno, opfamily, false, strategy, &lefttype,
							   &righttype);
	return lefttype == opintype && righttype == opintype;
}

/* Integer-like types whose btree order is their int64 image's order. */
static bool
native_ordered_type(Oid typid)
{
	switch (getBaseType(typid))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return false;
	}
}

static int
fast_cmp_strategy(QsCmp cmp, bool *ne)
{
	*ne = false;
	switch (cmp)
	{
		case QS_CMP_LT:
			return BTLessStrategyNumber;
		case QS_CMP_LE:
			return BTLessEqualStrategyNumber;
		case QS_CMP_NE:
			*ne = true;
			return BTEqualStrategyNumber;
		case QS_CMP_EQ:
			return BTEqualStrategyNumber;
		case QS_CMP_GE:
			return BTGreaterEqualStrategyNumber;
		case QS_CMP_GT:
			return BTGreaterStrategyNumber;
		case QS_CMP_NONE:
			break;
	}
	return 0;
}

static void analyze_xtype(QsColPred *pr, QsQual *q, const QsColAttr *a,
						  TypeCacheEntry *tc);
static void xtype_range(QsColPred *pr, const QsColAttr *a, Datum v,
						int64 *lo, int64 *hi);

/* May min/max and dictionaries decide this qual?  Fills pr. */
static void
analyze_pred(QsColPred *pr, QsQual *q, const QsColAttr *a)
{
	TypeCacheEntry *tc;
	int			strategy;

	memset(pr, 0, sizeof(*pr));
	pr->qual = q;
	pr->col = q->attno - 1;
	pr->mode = QS_CP_ROWS;
	/*
	 * A leakproof function neither raises on nor reveals its arguments (the
	 * planner runs such quals below a security barrier): it may see rows
	 * the snapshot hides, before the delete map is read (qs_colpush_native).
	 */
	pr->leakproof = q->kind == QS_QUAL_ISNULL || q->kind == QS_QUAL_NOTNULL ||
		get_func_leakproof(get_opcode(q->opno));
	if (q->kind == QS_QUAL_ISNULL || q->kind == QS_QUAL_NOTNULL ||
		!a->has_order)
		return;
	if (q->fast_cmp != QS_CMP_NONE)
	{
		/* the column's order must be the integers' (not a relabeled type) */
		if (a->type.typbyval && a->type.typlen == q->col_width &&
			native_ordered_type(a->typid))
		{
			pr->native = pr->ordered = true;
			pr->width = q->col_width;
			pr->strategy = fast_cmp_strategy(q->fast_cmp, &pr->ne);
		}
		return;
	}
	/* the dictionary's order is the column collation's */
	if (q->collid != a->collation)
		return;
	tc = lookup_type_cache(a->typid, TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(tc->btree_opf))
		return;
	if (same_type_member(q->opno, tc->btree_opf, tc->btree_opintype, &strategy))
		pr->ne = false;
	else if (same_type_member(get_negator(q->opno), tc->btree_opf,
							  tc->btree_opintype, &strategy) &&
			 strategy == BTEqualStrategyNumber)
		pr->ne = true;
	else
	{
		analyze_xtype(pr, q, a, tc);
		return;
	}
	pr->strategy = strategy;
	pr->ordered = true;
}

/*
 * The finite int64 images of a date, timestamp or timestamptz column
 * (vmin .. vmax, what the input and arithmetic functions let in) with
 * -infinity below and +infinity above: the values xtype_range searches,
 * as indices 0 .. count - 1 in the type's order.
 */
typedef struct ImageDomain
{
	int64		vmin;
	int64		vmax;
	int64		ninf;
	int64		pinf;
	uint64		count;
} ImageDomain;

static bool
image_domain(Oid typid, ImageDomain *dom)
{
	switch (getBaseType(typid))
	{
		case DATEOID:
			dom->vmin = DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE;
			dom->vmax = DATE_END_JULIAN - POSTGRES_EPOCH_JDATE - 1;
			dom->ninf = DATEVAL_NOBEGIN;
			dom->pinf = DATEVAL_NOEND;
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			dom->vmin = MIN_TIMESTAMP;
			dom->vmax = END_TIMESTAMP - 1;
			dom->ninf = DT_NOBEGIN;
			dom->pinf = DT_NOEND;
			break;
		default:
			return false;
	}
	dom->count = (uint64) (dom->vmax - dom->vmin) + 3;
	return true;
}

static inline int64
domain_image(const ImageDomain *dom, uint64 i)
{
	if (i == 0)
		return dom->ninf;
	if (i == dom->count - 1)
		return dom->pinf;
	return dom->vmin + (int64) (i - 1);
}

/* IN lists of another type longer than this are not ordered (analyze_xtype) */
#define QS_XTYPE_MAX_ELEMS 64

/*
 * "col OP v" with v of another type of the column type's btree family,
 * on a date, timestamp or timestamptz column: native (its ranges from
 * xtype_range) when the family and its operators are built in, whose
 * cross-type comparisons never raise for a valid value (past the other
 * type's range a date compares as beyond every finite timestamp, and so
 * on: date2timestamp_opt_overflow and its kin) and so may be called on
 * values the table need not hold.  The operator's strategy, or "<>" as
 * the negator of the family's "=".
 */
static void
analyze_xtype(QsColPred *pr, QsQual *q, const QsColAttr *a,
			  TypeCacheEntry *tc)
{
	Oid			opf = tc->btree_opf;
	Oid			opno = q->opno;
	Oid			lefttype,
				righttype;
	Oid			lt,
				gt,
				proc;
	int			strategy;
	bool		ne = false;
	ImageDomain dom;

	if (opf >= FirstNormalObjectId)
		return;
	if (!OidIsValid(opno) || !op_in_opfamily(opno, opf))
	{
		opno = get_negator(q->opno);
		if (!OidIsValid(opno) || !op_in_opfamily(opno, opf))
			return;
		ne = true;
	}
	get_op_opfamily_properties(opno, opf, false, &strategy, &lefttype,
							   &righttype);
	if ((ne && strategy != BTEqualStrategyNumber) ||
		lefttype != tc->btree_opintype || righttype == lefttype ||
		get_opcode(q->opno) >= FirstNormalObjectId)
		return;

	/*
	 * A timestamp column against a timestamptz: each row's local time is
	 * converted to UTC, which is not monotonic -- in a spring-forward gap
	 * PostgreSQL reads 02:30 with the offset before the change, so local
	 * 02:30 becomes 07:30 UTC and 03:00 becomes 07:00 in America/New_York
	 * (review helper-201: ts < '07:15+00' lost 150 of 1,500 rows).  The
	 * accepted values are then no range, and min/max prove nothing: left
	 * to the operator row by row.  The other pairs convert the constant
	 * (timestamptz column) or a date's midnight, which never decreases.
	 */
	if (lefttype == TIMESTAMPOID && righttype == TIMESTAMPTZOID)
		return;

	/*
	 * Each element's range costs two binary searches of fmgr calls (about
	 * 116 for timestamps) at every scan start and rescan: a long list is
	 * left to the rows (1,000 elements: 9.5 ms a rescan, review
	 * helper-201).
	 */
	if (q->kind != QS_QUAL_OP && q->nelems > QS_XTYPE_MAX_ELEMS)
		return;
	if (!a->type.typbyval || (a->type.typlen != 4 && a->type.typlen != 8) ||
		!image_domain(tc->btree_opintype, &dom))
	{
		/*
		 * Not native: the family's comparison of the two types, which
		 * orders them as its operators do.  It is called on values of
		 * rows no snapshot sees (min/max and dictionaries keep them), as
		 * the column's own comparator is: built-in ones only, which raise
		 * on no value.
		 */
		proc = get_opfamily_proc(opf, lefttype, righttype, BTORDER_PROC);
		if (!OidIsValid(proc) || proc >= FirstNormalObjectId)
			return;
		fmgr_info(proc, &pr->xcmp_fn);
		pr->ordered = pr->xcmp = true;
		pr->attr = a;
		pr->strategy = strategy;
		pr->ne = ne;
		return;
	}
	lt = get_opfamily_member(opf, lefttype, righttype, BTLessStrategyNumber);
	gt = get_opfamily_member(opf, lefttype, righttype, BTGreaterStrategyNumber);
	if (!OidIsValid(lt) || !OidIsValid(gt) ||
		get_opcode(lt) >= FirstNormalObjectId ||
		get_opcode(gt) >= FirstNormalObjectId)
		return;
	fmgr_info(get_opcode(lt), &pr->lt_fn);
	fmgr_info(get_opcode(gt), &pr->gt_fn);
	pr->native = pr->ordered = pr->xtype = true;
	pr->width = a->type.typlen;
	pr->strategy = strategy;
	pr->ne = ne;
}

/* fn(column image x, v): built-in comparisons, which never return NULL */
static bool
xtype_call(FmgrInfo *fn, Oid collid, int width, int64 x, Datum v)
{
	return DatumGetBool(FunctionCall2Coll(fn, collid,
										  width == 4 ? Int32GetDatum((int32) x) : Int64GetDatum(x),
										  v));
}

/*
 * The first index of dom whose image x has fn(x, v) != negate (count if
 * none), for an fn whose answer changes once over the type's order.
 */
static uint64
xtype_first(const ImageDomain *dom, FmgrInfo *fn, Oid collid, int width,
			Datum v, bool negate)
{
	uint64		lo = 0,
				hi = dom->count;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (xtype_call(fn, collid, width, domain_image(dom, mid), v) != negate)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The column values x with "x OP v" (v of the other type), as images
 * lo <= x <= hi (or outside them for <>; empty as lo > hi).  A btree
 * family's operators order both types alike, so those x are a prefix
 * (<, <=), a suffix (>=, >) or an interval (=) of the column type's
 * order: found by binary search, asking the qual's own operator (< <= >=
 * >), or the family's < and > for the bounds of "=".  This is exactly
 * the executor's answer, overflow (dates past timestamp's range),
 * infinities and the session's time zone (timestamptz) included; done at
 * each scan's start, once v is known, as the executor would per row in
 * the same statement.  Ends at the domain's ends are left open (no value
 * lies beyond them).
 */
static void
xtype_range(QsColPred *pr, const QsColAttr *a, Datum v, int64 *lo, int64 *hi)
{
	QsQual	   *q = pr->qual;
	ImageDomain dom;
	uint64		first,
				end;			/* the x passing: indices first .. end - 1 */

	if (!image_domain(a->typid, &dom))
		elog(ERROR, "QuickstepScan: column %d is not a date or timestamp",
			 pr->col + 1);
	switch (pr->ne ? BTEqualStrategyNumber : pr->strategy)
	{
		case BTLessStrategyNumber:
		case BTLessEqualStrategyNumber:
			first = 0;
			end = xtype_first(&dom, &q->flinfo, q->collid, pr->width, v, true);
			break;
		case BTGreaterEqualStrategyNumber:
		case BTGreaterStrategyNumber:
			first = xtype_first(&dom, &q->flinfo, q->collid, pr->width, v, false);
			end = dom.count;
			break;
		default:
			/* the first x not below v, the first above it */
			first = xtype_first(&dom, &pr->lt_fn, q->collid, pr->width, v, true);
			end = xtype_first(&dom, &pr->gt_fn, q->collid, pr->width, v, false);
			break;
	}
	if (first >= end)
	{
		*lo = 1;
		*hi = 0;
		return;
	}
	*lo = first == 0 ? PG_INT64_MIN : domain_image(&dom, first);
	*hi = end == dom.count ? PG_INT64_MAX : domain_image(&dom, end - 1);
}

/*
 * An integer comparison with b as the range of int64 images it accepts,
 * as qs_qual_filter_page sees it: lo <= v <= hi (outside it for <>); an
 * empty range (v < INT64_MIN) as lo > hi.
 */
static void
int_range(int strategy, bool ne, int64 b, int64 *lo, int64 *hi)
{
	*lo = PG_INT64_MIN;
	*hi = PG_INT64_MAX;
	switch (ne ? BTEqualStrategyNumber : strategy)
	{
		case BTLessStrategyNumber:
			if (b == PG_INT64_MIN)
				*lo = 0;		/* with hi = -1 below: empty */
			*hi = b == PG_INT64_MIN ? -1 : b - 1;
			break;
		case BTLessEqualStrategyNumber:
			*hi = b;
			break;
		case BTEqualStrategyNumber:
			*lo = *hi = b;
			break;
		case BTGreaterEqualStrategyNumber:
			*lo = b;
			break;
		case BTGreaterStrategyNumber:
			if (b == PG_INT64_MAX)
				*hi = 0;		/* with lo = 1 below: empty */
			*lo = b == PG_INT64_MAX ? 1 : b + 1;
			break;
	}
}

/*
 * A native qual's value(s) as ranges of images (pr->lo / hi, or elo / ehi
 * per element): every native path (min/max, dictionary codes, binary
 * search, the kernels) reads these, not the values.
 */
static void
native_ranges(QsColPred *pr, const QsColAttr *a)
{
	QsQual	   *q = pr->qual;

	pr->outside = pr->ne;
	if (q->kind == QS_QUAL_OP)
	{
		if (pr->xtype)
			xtype_range(pr, a, q->arg, &pr->lo, &pr->hi);
		else
			int_range(pr->strategy, pr->ne, q->arg_int, &pr->lo, &pr->hi);
		return;
	}
	pr->elo = palloc(sizeof(int64) * Max(q->nelems, 1));
	pr->ehi = palloc(sizeof(int64) * Max(q->nelems, 1));
	for (int j = 0; j < q->nelems; j++)
	{
		pr->elo[j] = 1;
		pr->ehi[j] = 0;
		if (q->elem_nulls[j])
			continue;
		if (pr->xtype)
			xtype_range(pr, a, q->elems[j], &pr->elo[j], &pr->ehi[j]);
		else
			int_range(pr->strategy, pr->ne, q->elem_ints[j], &pr->elo[j],
					  &pr->ehi[j]);
	}
}

/* value j's range (0 for OP) */
static inline void
value_range(const QsColPred *pr, int j, int64 *lo, int64 *hi)
{
	if (pr->qual->kind == QS_QUAL_OP)
	{
		*lo = pr->lo;
		*hi = pr->hi;
	}
	else
	{
		*lo = pr->elo[j];
		*hi = pr->ehi[j];
	}
}

/* A datum of the column's type as block value bytes (values.c's format). */
static void
value_bytes(const QsColAttr *a, Datum d, const uint8 **p, size_t *len)
{
	if (a->type.typbyval)
	{
		char	   *buf = palloc0(sizeof(Datum));

		store_att_byval(buf, d, a->type.typlen);
		*p = (const uint8 *) buf;
		*len = a->type.typlen;
	}
	else if (a->type.typlen == -1)
	{
		struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

		*p = (const uint8 *) VARDATA_ANY(v);
		*len = VARSIZE_ANY_EXHDR(v);
	}
	else if (a->type.typlen == -2)
	{
		*p = (const uint8 *) DatumGetCString(d);
		*len = strlen(DatumGetCString(d));
	}
	else
	{
		*p = (const uint8 *) DatumGetPointer(d);
		*len = a->type.typlen;
	}
}

/*
 * qs_colpush_begin
 *		Prepare the quals (already qs_qual_prepare'd for this scan) for the
 *		blocks of scan s, whose attributes are read (qs_colscan_init_main).
 *		Counters accumulate over rescans, as EXPLAIN ANALYZE reports them.
 */
void
qs_colpush_begin(QsColPush *p, ColScanDesc s, QsQual **quals, int nquals,
				 MemoryContext cxt)
{
	MemoryContext old;

	if (p->cxt == NULL)
	{
		p->cxt = AllocSetContextCreate(cxt, "QuickstepScan column quals",
									   ALLOCSET_SMALL_SIZES);
		p->chunkcxt = AllocSetContextCreate(cxt, "QuickstepScan column chunk",
											ALLOCSET_DEFAULT_SIZES);
	}
	MemoryContextReset(p->cxt);
	MemoryContextReset(p->chunkcxt);
	old = MemoryContextSwitchTo(p->cxt);

	p->natts = s->attrs[0].natts;
	p->want = palloc0(sizeof(bool) * Max(p->natts, 1));
	p->rowvals = palloc(sizeof(Datum) * Max(p->natts, 1));
	p->rownulls = palloc(sizeof(bool) * Max(p->natts, 1));
	p->vals = palloc(sizeof(Datum) * QS_COLPUSH_CHUNK);
	p->nulls = palloc(sizeof(bool) * QS_COLPUSH_CHUNK);
	p->bitmap = palloc(sizeof(uint64) * qs_bitmap_words(QS_COLPUSH_CHUNK));
	p->selbits = palloc(sizeof(uint64) * qs_bitmap_words(QS_COLPUSH_CHUNK));
	p->ints = palloc(sizeof(int64) * QS_COLPUSH_CHUNK);
#ifdef HAVE_INT128
	p->numdict = NULL;			/* allocated on first use, in p->cxt */
#endif
	p->npreds = nquals;
	p->preds = palloc(sizeof(QsColPred) * Max(nquals, 1));
	for (int i = 0; i < nquals; i++)
	{
		QsColPred  *pr = &p->preds[i];
		QsQual	   *q = quals[i];
		const QsColAttr *a = &s->attrs[q->attno - 1];

		analyze_pred(pr, q, a);
		if (pr->native && !q->arg_isnull)
			native_ranges(pr, a);
		if (!pr->ordered || pr->native || q->arg_isnull)
			continue;
		pr->xcxt = p->cxt;
		pr->xbuf = NULL;
		pr->xbuflen = 0;
		if (pr->xcmp)
			continue;			/* the values are the qual's Datums */
		if (q->kind == QS_QUAL_OP)
		{
			pr->nvals = 1;
			pr->vals = palloc(sizeof(uint8 *));
			pr->lens = palloc(sizeof(size_t));
			value_bytes(a, q->arg, &pr->vals[0], &pr->lens[0]);
			continue;
		}
		pr->nvals = q->nelems;
		pr->vals = palloc(sizeof(uint8 *) * Max(q->nelems, 1));
		pr->lens = palloc(sizeof(size_t) * Max(q->nelems, 1));
		for (int j = 0; j < q->nelems; j++)
		{
			pr->vals[j] = NULL;
			pr->lens[j] = 0;
			if (!q->elem_nulls[j])
				value_bytes(a, q->elems[j], &pr->vals[j], &pr->lens[j]);
		}
	}
	MemoryContextSwitchTo(old);
}

/*
 * "col OP v" over values between min and max, from cmin = cmp(v, min) and
 * cmax = cmp(v, max).
 */
static ColJudge
judge_minmax(int strategy, bool ne, int cmin, int cmax)
{
	if (ne)
		return (cmin == 0 && cmax == 0) ? CJ_NONE :
			(cmin < 0 || cmax > 0) ? CJ_ALL : CJ_SOME;
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return cmin <= 0 ? CJ_NONE : cmax > 0 ? CJ_ALL : CJ_SOME;
		case BTLessEqualStrategyNumber:
			return cmin < 0 ? CJ_NONE : cmax >= 0 ? CJ_ALL : CJ_SOME;
		case BTEqualStrategyNumber:
			return (cmin < 0 || cmax > 0) ? CJ_NONE :
				(cmin == 0 && cmax == 0) ? CJ_ALL : CJ_SOME;
		case BTGreaterEqualStrategyNumber:
			return cmax > 0 ? CJ_NONE : cmin <= 0 ? CJ_ALL : CJ_SOME;
		case BTGreaterStrategyNumber:
			return cmax >= 0 ? CJ_NONE : cmin < 0 ? CJ_ALL : CJ_SOME;
	}
	return CJ_SOME;
}

/* A by-value integer of the block (host order, as values.c stores it). */
static int64
block_int(const uint8 *p, int width)
{
	int16		i2;
	int32		i4;
	int64		i8;

	switch (width)
	{
		case 2:
			memcpy(&i2, p, 2);
			return i2;
		case 4:
			memcpy(&i4, p, 4);
			return i4;
		default:
			memcpy(&i8, p, 8);
			return i8;
	}
}

/* value j of the qual (0 for OP) as its Datum */
static inline Datum
value_datum(const QsColPred *pr, int j)
{
	return pr->qual->kind == QS_QUAL_OP ? pr->qual->arg : pr->qual->elems[j];
}

/*
 * xcmp: the sign of the family's comparison of column value bytes p with
 * the Datum *val, as a QsCmpFn (the dictionary's searches take it).
 */
static int
xcmp_sign(const void *p, size_t plen, const void *val, size_t len, void *arg)
{
	QsColPred  *pr = arg;
	/*
	 * One buffer for every value compared: min/max and dictionary searches
	 * of blocks that are then skipped never reach the chunk loop that
	 * resets xcxt (a value a call, 101 MB for 499 blocks and 1,000 names).
	 */
	Datum		col = qs_colattr_datum_buf(pr->attr, p, plen, pr->xcxt,
										   &pr->xbuf, &pr->xbuflen);
	int32		c;

	Assert(len == sizeof(Datum));
	c = DatumGetInt32(FunctionCall2Coll(&pr->xcmp_fn, pr->qual->collid, col,
										*(const Datum *) val));
	return (c > 0) - (c < 0);
}

/* value j of the qual (0 for OP) against the column's min and max */
static ColJudge
judge_value_minmax(QsColPred *pr, QsColAttr *a, const QsColBlockColDesc *d,
				   int j)
{
	int			cmin,
				cmax;

	if (pr->native)
	{
		int			w = pr->width;
		int64		lo,
					hi,
					mn,
					mx;
		bool		none,
					all;

		if (d->min_len != (uint32) w || d->max_len != (uint32) w)
			return CJ_SOME;
		value_range(pr, j, &lo, &hi);
		mn = block_int(d->min, w);
		mx = block_int(d->max, w);
		/* none of mn .. mx in lo .. hi; all of them */
		none = lo > hi || mx < lo || mn > hi;
		all = lo <= hi && lo <= mn && mx <= hi;
		if (pr->outside)
			return all ? CJ_NONE : none ? CJ_ALL : CJ_SOME;
		return none ? CJ_NONE : all ? CJ_ALL : CJ_SOME;
	}
	if (pr->xcmp)
	{
		Datum		v = value_datum(pr, j);

		/* cmp(v, min) is minus cmp(min, v) */
		cmin = -xcmp_sign(d->min, d->min_len, &v, sizeof(Datum), pr);
		cmax = -xcmp_sign(d->max, d->max_len, &v, sizeof(Datum), pr);
	}
	else
	{
		cmin = qs_colattr_cmp(pr->vals[j], pr->lens[j], d->min, d->min_len, a);
		cmax = qs_colattr_cmp(pr->vals[j], pr->lens[j], d->max, d->max_len, a);
	}
	return judge_minmax(pr->strategy, pr->ne, cmin, cmax);
}

static QsCmpOp
strategy_op(int strategy, bool ne)
{
	if (ne)
		return QS_OP_NE;
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return QS_OP_LT;
		case BTLessEqualStrategyNumber:
			return QS_OP_LE;
		case BTGreaterEqualStrategyNumber:
			return QS_OP_GE;
		case BTGreaterStrategyNumber:
			return QS_OP_GT;
		default:
			return QS_OP_EQ;
	}
}

/* value j of the qual as a range of the block's dictionary codes */
static QsCodeRange
value_code_range(QsColPred *pr, const QsDict *dict, int j)
{
	QsCodeRange r;

	if (pr->native)
	{
		int			w = pr->width;
		int64		tmin = w == 2 ? PG_INT16_MIN : w == 4 ? PG_INT32_MIN : PG_INT64_MIN;
		int64		tmax = w == 2 ? PG_INT16_MAX : w == 4 ? PG_INT32_MAX : PG_INT64_MAX;
		int64		lo,
					hi;
		char		lobuf[sizeof(Datum)];
		char		hibuf[sizeof(Datum)];
		uint32		n = dict->nvalues;

		/* the range within the column's type (int2 < 100000) */
		value_range(pr, j, &lo, &hi);
		lo = Max(lo, tmin);
		hi = Min(hi, tmax);
		if (lo > hi)
		{
			r.kind = pr->outside ? QS_RANGE_ALL : QS_RANGE_NONE;
			r.lo = r.hi = 0;
			return r;
		}
		if (w == 2)
		{
			store_att_byval(lobuf, Int16GetDatum((int16) lo), 2);
			store_att_byval(hibuf, Int16GetDatum((int16) hi), 2);
		}
		else if (w == 4)
		{
			store_att_byval(lobuf, Int32GetDatum((int32) lo), 4);
			store_att_byval(hibuf, Int32GetDatum((int32) hi), 4);
		}
		else
		{
			store_att_byval(lobuf, Int64GetDatum(lo), 8);
			store_att_byval(hibuf, Int64GetDatum(hi), 8);
		}
		r = qs_dict_range(dict, QS_OP_BETWEEN, lobuf, w, hibuf, w);
		if (!pr->outside)
			return r;
		/* its complement; NOT_IN only for an interior range, as dict.h says */
		switch (r.kind)
		{
			case QS_RANGE_NONE:
				r.kind = QS_RANGE_ALL;
				r.lo = 0;
				r.hi = n - 1;
				break;
			case QS_RANGE_ALL:
				r.kind = QS_RANGE_NONE;
				r.lo = 1;
				r.hi = 0;
				break;
			default:
				if (r.lo == 0)
				{
					r.lo = r.hi + 1;
					r.hi = n - 1;
				}
				else if (r.hi == n - 1)
				{
					r.hi = r.lo - 1;
					r.lo = 0;
				}
				else
					r.kind = QS_RANGE_NOT_IN;
				break;
		}
		return r;
	}
	if (pr->xcmp)
	{
		/* the dictionary searched for the qual's Datum, in its order */
		QsDict		xd = *dict;
		Datum		v = value_datum(pr, j);

		xd.cmp = xcmp_sign;
		xd.cmp_arg = pr;
		return qs_dict_range(&xd, strategy_op(pr->strategy, pr->ne),
							 &v, sizeof(Datum), NULL, 0);
	}
	return qs_dict_range(dict, strategy_op(pr->strategy, pr->ne),
						 pr->vals[j], pr->lens[j], NULL, 0);
}

/*
 * The qual's verdict over all its values: an OP its one value, ANY true if
 * one value is, ALL true if all are (a NULL element: never true).
 */
static ColJudge
judge_values(QsColPred *pr, ColJudge (*one) (QsColPred *, void *, int), void *arg)
{
	QsQual	   *q = pr->qual;
	bool		any = q->kind == QS_QUAL_ANY;
	ColJudge	acc;

	if (q->kind == QS_QUAL_OP)
		return one(pr, arg, 0);
	acc = any ? CJ_NONE : CJ_ALL;
	for (int j = 0; j < q->nelems; j++)
	{
		ColJudge	v;

		if (q->elem_nulls[j])
		{
			if (!any)
				return CJ_NONE;
			continue;
		}
		v = one(pr, arg, j);
		if (any)
			acc = Max(acc, v);
		else
			acc = Min(acc, v);
	}
	return acc;
}

typedef struct MinMaxArg
{
	QsColAttr  *a;
	const QsColBlockColDesc *d;
} MinMaxArg;

static ColJudge
one_minmax(QsColPred *pr, void *arg, int j)
{
	MinMaxArg  *m = arg;

	return judge_value_minmax(pr, m->a, m->d, j);
}

static ColJudge
one_dict(QsColPred *pr, void *arg, int j)
{
	QsCodeRange r = value_code_range(pr, (const QsDict *) arg, j);

	return r.kind == QS_RANGE_NONE ? CJ_NONE :
		r.kind == QS_RANGE_ALL ? CJ_ALL : CJ_SOME;
}

/*
 * The dictionary of column c of the open block, read on its own (not the
 * stripe) and checked as qs_colreader_open checks it: its checksum, then
 * the codec's validating open.  Allocated in the block's memory.
 */
static void
load_dict(ColScanDesc s, int c, const QsColBlockColDesc *d, QsDict *dict)
{
	const QsColBlockSection *sec = &d->sec[QS_COLSEC_DICT];
	QsColAttr  *a = &s->attrs[c];
	MemoryContext old = MemoryContextSwitchTo(s->blkcxt);
	uint8	   *bytes = qs_colblock_read_bytes(&s->rr.h, sec->off, sec->len);
	QsCodecErr	err;
	QsCodecStatus st;

	MemoryContextSwitchTo(old);
	err.msg[0] = '\0';
	if (QS_CRC32C_FINISH(qs_crc32c(QS_CRC32C_INIT, bytes, sec->len)) != sec->crc)
		st = qs_codec_error(&err, QS_CODEC_CORRUPT,
							"column %d: dictionary checksum mismatch", c);
	else
		st = qs_dict_open(bytes, sec->len, a->cmpfn, a, false, dict, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(s->base.rs_rd, s->rr.h.entry.block_id, st, &err);
}

static QsColReader *column_reader(QsColPush *p, ColScanDesc s, int c);
static inline int64 reader_int(const QsColReader *r, int width, size_t idx);
static inline uint32 value_index(const QsColReader *r, uint32 row);

/* The dictionary code of value idx of a DICT or DICT_PADDED column. */
static inline uint32
reader_code(const QsColReader *r, size_t idx)
{
	if (r->d.encoding == QS_ENC_DICT)
		return (uint32) qs_bitpack_get(r->codes.data, r->codes.width, idx);
	switch (r->d.code_bytes)
	{
		case 1:
			return r->padded[idx];
		case 2:
			return qs_load16(r->padded + idx * 2);
		default:
			return qs_load32(r->padded + idx * 4);
	}
}

/* The sort key of a sorted block: value idx as an orderable integer. */
static inline int64
sorted_key(const QsColReader *r, const QsColPred *pr, size_t idx)
{
	if (pr->mode != QS_CP_CODES)
		return reader_int(r, pr->width, idx);
	return (int64) reader_code(r, idx);
}

/* The first value index in [lo_idx, hi_idx) whose key is >= key (or > key). */
static size_t
sorted_bound(const QsColReader *r, const QsColPred *pr, size_t lo_idx,
			 size_t hi_idx, int64 key, bool strictly_above)
{
	while (lo_idx < hi_idx)
	{
		size_t		mid = lo_idx + (hi_idx - lo_idx) / 2;
		int64		v = sorted_key(r, pr, mid);

		if (v < key || (strictly_above && v == key))
			lo_idx = mid + 1;
		else
			hi_idx = mid;
	}
	return lo_idx;
}

/*
 * A qual on the column the block is sorted on (QS_COLDESC_SORTED: values
 * ascending in row order, NULLs last), kept as one range of codes or
 * integers: the rows that pass lie in one run, found by binary search
 * (paper 000 section 4.3).  The scan's rows shrink to that run and the
 * qual needs no check inside it.  Rows 0 .. nvalues - 1 hold the values
 * (checked: a block whose NULLs are not last is left alone), the rest are
 * NULL and pass no strict qual.  False: no row passes; -1: not narrowed.
 */
static int
narrow_sorted(QsColPush *p, ColScanDesc s, QsColPred *pr)
{
	QsColReader *r = column_reader(p, s, pr->col);
	size_t		n = r->d.nvalues;
	int64		lo,
				hi;
	size_t		first,
				last;

	if (value_index(r, (uint32) n) != n)
		return -1;

	if (pr->mode != QS_CP_CODES)
	{
		lo = pr->lo;
		hi = pr->hi;
	}
	else
	{
		lo = pr->range.lo;
		hi = pr->range.hi;
	}
	first = sorted_bound(r, pr, 0, n, lo, false);
	last = sorted_bound(r, pr, first, n, hi, true);
	s->row = Max(s->row, (uint32) first);
	s->row_end = Min(s->row_end, (uint32) last);
	pr->mode = QS_CP_ALL;
	return s->row < s->row_end ? 1 : 0;
}

/* reads of an index sub-block of the open block, into the block's memory */
typedef struct IndexRead
{
	ColScanDesc s;
	uint64		secoff;
} IndexRead;

static const uint8_t *
index_read(void *arg, uint64_t off, uint64_t len)
{
	IndexRead  *ir = arg;
	MemoryContext old = MemoryContextSwitchTo(ir->s->blkcxt);
	uint8	   *b = qs_colblock_read_bytes(&ir->s->rr.h, ir->secoff + off, len);

	MemoryContextSwitchTo(old);
	return b;
}

static void
index_report(ColScanDesc s, QsCodecStatus st, QsCodecErr *err)
{
	qs_colblock_report(s->base.rs_rd, s->rr.h.entry.block_id, st, err);
}

/*
 * The index sub-block of kind 'kind' over column col of the open block:
 * its number, or -1.
 */
static int
find_index(const QsColBlock *blk, int col, uint16 want)
{
	for (int k = 0; k < blk->nindexes; k++)
	{
		uint16		column,
					kind;
		QsColBlockSection sec;

		qs_colblock_index(blk, k, &column, &kind, &sec);
		if (kind == want && column == col)
			return k;
	}
	return -1;
}

/*
 * A dictionary column's qual as ranges of codes for its CSB+-tree (kind 3):
 * its one range, or one per element of an IN list.  *share: the
 * dictionary's share of codes in them.  False if the qual has no such
 * form.
 */
static bool
probe_ranges_codes(QsColPred *pr, QsCodeRange *ranges, int *nranges, double *share)
{
	QsQual	   *q = pr->qual;
	uint64		ncodes = 0;

	if (!pr->have_dict || pr->dict.nvalues == 0)
		return false;
	if (!((pr->mode == QS_CP_CODES && pr->range.kind == QS_RANGE_IN) ||
		  ((pr->mode == QS_CP_ROWS || pr->mode == QS_CP_CODESET) &&
		   q->kind == QS_QUAL_ANY &&
		   pr->strategy == BTEqualStrategyNumber && !pr->ne)))
		return false;
	*nranges = 0;
	if (pr->mode == QS_CP_CODES)
		ranges[(*nranges)++] = pr->range;
	else
		for (int j = 0; j < q->nelems; j++)
		{
			QsCodeRange r;

			if (q->elem_nulls[j])
				continue;
			r = value_code_range(pr, &pr->dict, j);
			if (r.kind == QS_RANGE_ALL)
			{
				r.lo = 0;
				r.hi = pr->dict.nvalues - 1;
			}
			else if (r.kind != QS_RANGE_IN)
				continue;
			ranges[(*nranges)++] = r;
		}
	for (int j = 0; j < *nranges; j++)
		ncodes += (uint64) ranges[j].hi - ranges[j].lo + 1;
	*share = (double) ncodes / pr->dict.nvalues;
	return true;
}

/*
 * An integer qual on a FOR column as ranges of codes for its CSB+-tree
 * over integers (kind 4: code = value - the column's minimum): an integer
 * comparison (with the other comparisons on the column intersected into
 * it, as BETWEEN comes), or the elements of an IN list.  Values outside
 * the block's min/max are clamped away.  *share: the share of the integers
 * between min and max in the ranges.  *partners: the preds intersected in
 * (their mode becomes QS_CP_ALL if the probe is taken).  False if the
 * qual has no such form or the header has no usable min/max.
 */
static bool
probe_ranges_ints(QsColPush *p, const QsColBlock *blk, int i, QsCodeRange *ranges,
				  int *nranges, double *share, bool *partners)
{
	QsColPred  *pr = &p->preds[i];
	QsQual	   *q = pr->qual;
	QsColBlockColDesc d;
	int			w = pr->width;
	int64		mn,
				mx;
	uint64		ncodes = 0;

	if (!pr->native || (pr->mode != QS_CP_INTS && pr->mode != QS_CP_ROWS) ||
		!(q->kind == QS_QUAL_OP ? !pr->outside :
		  (q->kind == QS_QUAL_ANY && pr->strategy == BTEqualStrategyNumber && !pr->ne)))
		return false;
	qs_colblock_coldesc(blk, pr->col, &d);
	if (d.encoding != QS_ENC_FOR || d.min == NULL ||
		d.min_len != (uint32) w || d.max_len != (uint32) w)
		return false;
	mn = block_int(d.min, w);
	mx = block_int(d.max, w);
	/* (the builder indexed max - mn < 0xFFFFFFFF; the reader checks it) */
	if (mx < mn || (uint64) mx - (uint64) mn >= UINT32_MAX)
		return false;
	*nranges = 0;
	if (q->kind == QS_QUAL_OP)
	{
		int64		lo = pr->lo,
					hi = pr->hi;

		for (int k = 0; k < p->npreds; k++)
		{
			QsColPred  *o = &p->preds[k];

			partners[k] = false;
			if (k == i || o->col != pr->col || !o->native || o->outside ||
				o->qual->kind != QS_QUAL_OP ||
				(o->mode != QS_CP_INTS && o->mode != QS_CP_ROWS))
				continue;
			lo = Max(lo, o->lo);
			hi = Min(hi, o->hi);
			partners[k] = true;
		}
		lo = Max(lo, mn);
		hi = Min(hi, mx);
		if (lo <= hi)
		{
			ranges[0].kind = QS_RANGE_IN;
			ranges[0].lo = (uint32) ((uint64) lo - (uint64) mn);
			ranges[0].hi = (uint32) ((uint64) hi - (uint64) mn);
			*nranges = 1;
		}
	}
	else
	{
		memset(partners, 0, sizeof(bool) * p->npreds);
		for (int j = 0; j < q->nelems; j++)
		{
			int64		lo = pr->elo[j],
						hi = pr->ehi[j];

			/* an element's values between min and max (one, unless xtype) */
			if (q->elem_nulls[j])
				continue;
			lo = Max(lo, mn);
			hi = Min(hi, mx);
			if (lo > hi)
				continue;
			ranges[*nranges].kind = QS_RANGE_IN;
			ranges[*nranges].lo = (uint32) ((uint64) lo - (uint64) mn);
			ranges[*nranges].hi = (uint32) ((uint64) hi - (uint64) mn);
			(*nranges)++;
		}
	}
	for (int j = 0; j < *nranges; j++)
		ncodes += (uint64) ranges[j].hi - ranges[j].lo + 1;
	*share = (double) ncodes / ((double) ((uint64) mx - (uint64) mn) + 1);
	return true;
}

/*
 * probe_index
 *		Paper 000 section 4.4 per block: a qual kept as code ranges (one
 *		range, or the equalities of an IN list) on a column with a CSB+-tree
 *		index sub-block, whose ranges hold at most QS_COLPUSH_PROBE_MAX_SHARE
 *		of the block's rows, is answered by the tree: one descent per range
 *		bound gives the entries, their positions the rows (p->probe_bits),
 *		and the scan's rows shrink to the span of those positions.  Before
 *		the index is read, the share of the column's codes in the ranges
 *		(dictionary codes, or integers between the block's min and max; as
 *		if values were spread evenly over them) must be below twice the
 *		limit, so that a wide range costs no index read.  The qual then
 *		needs no other check (QS_CP_PROBE), nor do the integer comparisons
 *		intersected into it.  Returns 1 (probed), 0 (no row passes), -1 (not
 *		probed).
 */
static int
probe_index(QsColPush *p, ColScanDesc s)
{
	const QsColBlock *blk = &s->rr.h.blk;
	uint32		nrows = blk->nrows;
	bool	   *partners;

	if (blk->nindexes == 0)
		return -1;
	partners = MemoryContextAllocZero(s->blkcxt, sizeof(bool) * Max(p->npreds, 1));
	for (int i = 0; i < p->npreds; i++)
	{
		QsColPred  *pr = &p->preds[i];
		QsQual	   *q = pr->qual;
		QsCodeRange *ranges;
		int			nranges = 0;
		int			k;
		double		share;
		uint64		total = 0;
		uint32		minp = UINT32_MAX,
					maxp = 0;
		QsCsbIndex	ix;
		IndexRead  *ir;
		MemoryContext old;
		QsCodecErr	err;
		QsCodecStatus st;
		uint32	   *first,
				   *end;
		bool		ints;

		if (pr->col >= blk->ncols)
			continue;
		ranges = MemoryContextAlloc(s->blkcxt,
									sizeof(QsCodeRange) * Max(q->kind == QS_QUAL_OP ? 1 : q->nelems, 1));
		memset(partners, 0, sizeof(bool) * p->npreds);
		if ((k = find_index(blk, pr->col, QS_COLINDEX_CSBCODES)) >= 0)
			ints = false;
		else if ((k = find_index(blk, pr->col, QS_COLINDEX_CSBINTS)) >= 0)
			ints = true;
		else
			continue;
		if (!(ints ? probe_ranges_ints(p, blk, i, ranges, &nranges, &share, partners) :
			  probe_ranges_codes(pr, ranges, &nranges, &share)))
			continue;
		if (share > 2 * QS_COLPUSH_PROBE_MAX_SHARE)
			continue;

		/* header, chunk checksums; then only the chunks the descents touch */
		{
			uint16		column,
						kind;
			QsColBlockSection sec;

			qs_colblock_index(blk, k, &column, &kind, &sec);
			ir = MemoryContextAlloc(s->blkcxt, sizeof(IndexRead));
			ir->s = s;
			ir->secoff = sec.off;
			err.msg[0] = '\0';
			old = MemoryContextSwitchTo(s->blkcxt);
			st = qs_csbix_open(index_read, ir, sec.len, nrows, qs_palloc_allocator(),
							   &ix, &err);
			MemoryContextSwitchTo(old);
			if (st != QS_CODEC_OK)
				index_report(s, st, &err);
		}
		first = MemoryContextAlloc(s->blkcxt, sizeof(uint32) * Max(nranges, 1) * 2);
		end = first + Max(nranges, 1);
		for (int j = 0; j < nranges; j++)
		{
			st = qs_csbix_range(&ix, ranges[j].lo, ranges[j].hi, &first[j], &end[j], &err);
			if (st != QS_CODEC_OK)
				index_report(s, st, &err);
			total += end[j] - first[j];
		}
		if ((double) total > QS_COLPUSH_PROBE_MAX_SHARE * nrows)
			continue;

		/* IN lists may name a code twice: a bitmap, not a list */
		p->probe_bits = MemoryContextAllocZero(s->blkcxt,
											   sizeof(uint64) * qs_bitmap_words(nrows));
		for (int j = 0; j < nranges; j++)
			for (uint32 e = first[j]; e < end[j]; e++)
			{
				uint32		pos;

				st = qs_csbix_position(&ix, e, &pos, &err);
				if (st == QS_CODEC_OK && pos >= nrows)
					st = qs_codec_error(&err, QS_CODEC_CORRUPT,
										"index sub-block of column %d: position %u of %u rows",
										pr->col + 1, pos, nrows);
				if (st != QS_CODEC_OK)
					index_report(s, st, &err);
				p->probe_bits[pos / 64] |= UINT64CONST(1) << (pos % 64);
				minp = Min(minp, pos);
				maxp = Max(maxp, pos);
			}
		pr->mode = QS_CP_PROBE;
		for (int o = 0; o < p->npreds; o++)
			if (partners[o])
				p->preds[o].mode = QS_CP_ALL;
		if (total == 0)
			return 0;
		s->row = Max(s->row, minp);
		s->row_end = Min(s->row_end, maxp + 1);
		return s->row < s->row_end ? 1 : 0;
	}
	return -1;
}

/*
 * An IN list (x = ANY (...)), x <> ALL (...) and the like on a dictionary
 * column as the set of codes whose values pass: each element's range of
 * codes (the dictionary is sorted by the column's comparator, so the codes
 * of the values an element accepts are one range, or all but one for <>),
 * united for ANY, intersected for ALL.  The rows are then tested code by
 * code (filter_codeset) rather than by calling the operator on each
 * decoded value.  Returns the number of codes in the set.  A NULL element
 * passes nothing (judge_values already skipped the block of an ALL with
 * one).
 */
/* set (or clear) bits lo .. hi of set, a word at a time */
static void
bits_fill(uint64 *set, uint32 lo, uint32 hi, bool on)
{
	while (lo <= hi)
	{
		uint32		w = lo / 64;
		uint32		last = Min(hi, w * 64 + 63);
		uint64		mask = (last - lo == 63 ? ~UINT64_C(0) :
							((UINT64_C(1) << (last - lo + 1)) - 1) << (lo % 64));

		if (on)
			set[w] |= mask;
		else
			set[w] &= ~mask;
		if (last == PG_UINT32_MAX)
			break;
		lo = last + 1;
	}
}

static uint32
make_codeset(QsColPred *pr, MemoryContext cxt)
{
	QsQual	   *q = pr->qual;
	bool		any = q->kind == QS_QUAL_ANY;
	uint32		nv = pr->dict.nvalues;
	size_t		words = Max((nv + 63) / 64, 1);
	uint64	   *set = MemoryContextAllocZero(cxt, sizeof(uint64) * words);
	int64		lo_all = 0,
				hi_all = (int64) nv - 1;	/* ALL: the IN ranges' intersection */
	uint32		n = 0;

	if (nv == 0)
		return 0;
	if (!any)
		bits_fill(set, 0, nv - 1, true);
	for (int j = 0; j < q->nelems; j++)
	{
		QsCodeRange r;

		if (q->elem_nulls[j])
		{
			if (!any)
				hi_all = -1;	/* x op ALL with a NULL: never true */
			continue;
		}
		r = value_code_range(pr, &pr->dict, j);
		switch (r.kind)
		{
			case QS_RANGE_NONE:
				if (!any)
					hi_all = -1;
				break;
			case QS_RANGE_ALL:
				if (any)
					bits_fill(set, 0, nv - 1, true);
				break;
			case QS_RANGE_IN:
				if (any)
					bits_fill(set, r.lo, Min(r.hi, nv - 1), true);
				else
				{
					lo_all = Max(lo_all, (int64) r.lo);
					hi_all = Min(hi_all, (int64) r.hi);
				}
				break;
			case QS_RANGE_NOT_IN:
				if (!any)
					bits_fill(set, r.lo, Min(r.hi, nv - 1), false);
				else
				{
					if (r.lo > 0)
						bits_fill(set, 0, r.lo - 1, true);
					if (r.hi < nv - 1)
						bits_fill(set, r.hi + 1, nv - 1, true);
				}
				break;
		}
	}
	if (!any)
	{
		if (lo_all > hi_all)
			memset(set, 0, sizeof(uint64) * words);
		else
		{
			if (lo_all > 0)
				bits_fill(set, 0, (uint32) lo_all - 1, false);
			if (hi_all < (int64) nv - 1)
				bits_fill(set, (uint32) hi_all + 1, nv - 1, false);
		}
	}
	/* bits past the dictionary's last code stay clear */
	if (nv % 64 != 0)
		set[words - 1] &= (UINT64_C(1) << (nv % 64)) - 1;
	for (size_t w = 0; w < words; w++)
		n += (uint32) __builtin_popcountll(set[w]);
	pr->codeset = set;
	return n;
}

/*
 * qs_colpush_block
 *		Decide, from the open block's header and dictionaries, whether it
 *		can hold a row passing the quals (false: skip it) and how each qual
 *		runs over its rows; on a block sorted on a qual's column, narrow
 *		the scan's rows (s->row .. s->row_end) to those that can pass.
 */
bool
qs_colpush_block(QsColPush *p, ColScanDesc s)
{
	const QsColBlock *blk = &s->rr.h.blk;
	bool		narrowed;

	p->probe_bits = NULL;
	p->block_gen++;				/* the converted dictionaries are stale */
	for (int i = 0; i < p->npreds; i++)
	{
		QsColPred  *pr = &p->preds[i];
		QsQual	   *q = pr->qual;
		QsColAttr  *a = &s->attrs[pr->col];
		QsColBlockColDesc d;
		bool		nonull;
		ColJudge	j;
		MinMaxArg	m;
		QsDict	   *dict = &pr->dict;

		pr->mode = QS_CP_ROWS;
		pr->have_dict = false;
		if (pr->col >= blk->ncols)
			continue;			/* added after the block: its missing value */
		qs_colblock_coldesc(blk, pr->col, &d);
		nonull = d.nvalues == blk->nrows;
		if (q->kind == QS_QUAL_ISNULL || q->kind == QS_QUAL_NOTNULL)
		{
			bool		want_null = q->kind == QS_QUAL_ISNULL;

			if ((want_null && nonull) || (!want_null && d.nvalues == 0))
			{
				p->skipped_minmax++;
				return false;
			}
			if ((want_null && d.nvalues == 0) || (!want_null && nonull))
				pr->mode = QS_CP_ALL;
			continue;
		}
		/* x op ALL ('{}') is true even for NULL x: nothing to decide */
		if (q->kind == QS_QUAL_ALL && !q->arg_isnull && q->nelems == 0)
			continue;
		/* strict: nothing passes a NULL value or against a NULL */
		if (q->arg_isnull || d.nvalues == 0)
		{
			p->skipped_minmax++;
			return false;
		}
		if (!pr->ordered)
			continue;

		if (d.min != NULL)
		{
			m.a = a;
			m.d = &d;
			j = judge_values(pr, one_minmax, &m);
			if (j == CJ_NONE)
			{
				p->skipped_minmax++;
				return false;
			}
			if (j == CJ_ALL && nonull)
			{
				pr->mode = QS_CP_ALL;
				continue;
			}
		}
		/* integers compared a chunk at a time, without Datums */
		if (pr->native && q->kind == QS_QUAL_OP && nonull &&
			(d.encoding == QS_ENC_FOR || d.encoding == QS_ENC_FOR_DELTA ||
			 (d.encoding == QS_ENC_PLAIN && d.type.typlen == pr->width)))
		{
			pr->mode = QS_CP_INTS;
			continue;
		}
		if ((d.encoding != QS_ENC_DICT && d.encoding != QS_ENC_DICT_PADDED) ||
			d.sec[QS_COLSEC_DICT].len == 0)
			continue;
		load_dict(s, pr->col, &d, dict);
		pr->have_dict = true;
		if (q->kind != QS_QUAL_OP)
		{
			uint32		ncodes;

			if (judge_values(pr, one_dict, dict) == CJ_NONE)
			{
				p->skipped_dict++;
				return false;
			}
			ncodes = make_codeset(pr, s->blkcxt);
			if (ncodes == 0)
			{
				p->skipped_dict++;
				return false;
			}
			pr->mode = ncodes == dict->nvalues && nonull ? QS_CP_ALL : QS_CP_CODESET;
			continue;
		}
		pr->range = value_code_range(pr, dict, 0);
		switch (pr->range.kind)
		{
			case QS_RANGE_NONE:
				p->skipped_dict++;
				return false;
			case QS_RANGE_ALL:
				if (nonull)
					pr->mode = QS_CP_ALL;
				break;
			default:
				pr->mode = QS_CP_CODES;
				break;
		}
	}

	/*
	 * BETWEEN and other pairs of ranges on one column: one pass of the
	 * kernel over their intersection (disjoint: no row can pass).
	 */
	for (int i = 0; i < p->npreds; i++)
	{
		QsColPred  *a = &p->preds[i];

		if (a->mode != QS_CP_CODES || a->range.kind != QS_RANGE_IN)
			continue;
		for (int k = i + 1; k < p->npreds; k++)
		{
			QsColPred  *b = &p->preds[k];

			if (b->mode != QS_CP_CODES || b->range.kind != QS_RANGE_IN ||
				b->col != a->col)
				continue;
			a->range.lo = Max(a->range.lo, b->range.lo);
			a->range.hi = Min(a->range.hi, b->range.hi);
			if (a->range.lo > a->range.hi)
			{
				p->skipped_dict++;
				return false;
			}
			b->mode = QS_CP_ALL;
		}
	}

	/* the sort key's range: one run of rows, by binary search */
	narrowed = false;
	for (int i = 0; i < p->npreds; i++)
	{
		QsColPred  *pr = &p->preds[i];
		QsColBlockColDesc d;

		if (pr->col >= blk->ncols)
			continue;
		qs_colblock_coldesc(blk, pr->col, &d);
		if (!(d.flags & QS_COLDESC_SORTED))
			continue;
		/* codes in one range, or integers compared natively (NULLs too) */
		if (!((pr->mode == QS_CP_CODES && pr->range.kind == QS_RANGE_IN) ||
			  ((pr->mode == QS_CP_INTS || pr->mode == QS_CP_ROWS) &&
			   pr->native && pr->qual->kind == QS_QUAL_OP && !pr->outside &&
			   (d.encoding == QS_ENC_FOR || d.encoding == QS_ENC_FOR_DELTA ||
				(d.encoding == QS_ENC_PLAIN &&
				 d.type.typlen == pr->width)))))
			continue;
		/* each qual on the column narrows the run further (BETWEEN) */
		switch (narrow_sorted(p, s, pr))
		{
			case 0:
				p->blocks_read++;
				p->binary_searches++;
				return false;
			case 1:
				narrowed = true;
				break;
			default:
				break;
		}
	}
	if (narrowed)
		p->binary_searches++;
	p->blocks_read++;

	/* a selective qual on an indexed column: the rows from the tree */
	switch (probe_index(p, s))
	{
		case 0:
			p->probes++;
			return false;
		case 1:
			p->probes++;
			break;
		default:
			break;
	}
	return true;
}

/*
 * Column c's reader of the open block, opened (sections read and checked)
 * on first use.  values.c opens a column when a row of it is first read,
 * so read row 0 of it alone.
 */
static QsColReader *
column_reader(QsColPush *p, ColScanDesc s, int c)
{
	if (!s->rr.opened[c])
	{
		MemoryContext old = MemoryContextSwitchTo(p->chunkcxt);

		memset(p->want, 0, sizeof(bool) * p->natts);
		p->want[c] = true;
		qs_colrows_get(&s->rr, 0, p->want, p->rowvals, p->rownulls);
		MemoryContextSwitchTo(old);
	}
	return &s->rr.readers[c];
}

/* column c of rows start + sel[0..n-1] into p->vals / p->nulls */
static void
read_values(QsColPush *p, ColScanDesc s, int c, uint32 start,
			const OffsetNumber *sel, int n)
{
	const QsColAttr *a = &s->attrs[c];
	QsColReader *r;

	if (c >= s->rr.h.blk.ncols)
	{
		bool		isnull;
		Datum		v = getmissingattr(s->attrs[0].desc, c + 1, &isnull);

		for (int i = 0; i < n; i++)
		{
			p->vals[i] = v;
			p->nulls[i] = isnull;
		}
		return;
	}
	r = column_reader(p, s, c);
	for (int i = 0; i < n; i++)
	{
		const uint8 *v;
		size_t		len;
		QsCodecErr	err;
		QsCodecStatus st;

		err.msg[0] = '\0';
		st = qs_colreader_get(r, start + sel[i], &p->nulls[i], &v, &len, &err);
		if (st == QS_CODEC_OK && !p->nulls[i] && a->type.typlen > 0 &&
			len != (size_t) a->type.typlen)
			st = qs_codec_error(&err, QS_CODEC_CORRUPT,
								"value of column %d has %zu bytes, type length %d",
								c + 1, len, a->type.typlen);
		if (st != QS_CODEC_OK)
			qs_colblock_report(s->base.rs_rd, s->rr.h.entry.block_id, st, &err);
		p->vals[i] = p->nulls[i] ? (Datum) 0 :
			qs_colattr_datum(a, v, len, p->chunkcxt);
	}
}

/*
 * Keep the sel[] whose bit is set in bitmap (bit i: row start + i, for
 * the chunk's nrows rows).  While every row of the chunk is still
 * selected (n == nrows: sel[] is 0 .. nrows - 1), the set bits are the
 * answer, read a word at a time.
 */
static int
keep_set_bits(const uint64 *bitmap, OffsetNumber *sel, int n, int nrows)
{
	int			k = 0;

	if (n == nrows)
	{
		for (int base = 0; base < nrows; base += 64)
		{
			uint64		w = bitmap[base / 64];

			/* the kernels may set bits past the last row (an inversion) */
			if (nrows - base < 64)
				w &= (UINT64CONST(1) << (nrows - base)) - 1;
			while (w != 0)
			{
				sel[k++] = (OffsetNumber) (base + __builtin_ctzll(w));
				w &= w - 1;
			}
		}
		return k;
	}
	for (int i = 0; i < n; i++)
		if ((bitmap[sel[i] / 64] >> (sel[i] % 64)) & 1)
			sel[k++] = sel[i];
	return k;
}

/*
 * Stripes hold the non-NULL values only: the index of row's value (the
 * non-NULL rows before it), as qs_colreader_get computes it, and whether
 * the row has one.
 */
static inline uint32
value_index(const QsColReader *r, uint32 row)
{
	uint64		w;

	if (r->nulls == NULL)
		return row;
	if (row >= r->nrows)
		return r->d.nvalues;
	w = qs_load64(r->nulls + (size_t) (row / 64) * 8);
	return r->rank[row / 64] +
		(uint32) __builtin_popcountll(w & ((UINT64CONST(1) << (row % 64)) - 1));
}

static inline bool
row_present(const QsColReader *r, uint32 row)
{
	return r->nulls == NULL ||
		((qs_load64(r->nulls + (size_t) (row / 64) * 8) >> (row % 64)) & 1) != 0;
}

/*
 * The bits of the code range qual pr over codes c0 .. c0 + ncodes - 1 of
 * the column (bit i: code c0 + i) into p->bitmap.
 */
static void
codes_kernel(QsColPush *p, QsColPred *pr, const QsColReader *r, uint32 c0,
			 uint32 ncodes)
{
	if (r->d.encoding == QS_ENC_DICT)
		qs_pred_apply_range(r->codes.data, r->codes.width, c0, ncodes,
							&pr->range, p->bitmap);
	else
	{
		qs_pred_range_padded(r->padded + (size_t) c0 * r->d.code_bytes,
							 r->d.code_bytes, ncodes, pr->range.lo,
							 pr->range.hi, p->bitmap);
		if (pr->range.kind == QS_RANGE_NOT_IN)
			qs_bitmap_invert(p->bitmap, ncodes);
	}
}

/*
 * Keep the sel[] whose code is in the qual's code range: the codec's
 * kernel over the codes of the chunk's non-NULL rows, then each selected
 * row's bit (a NULL row has no code and never passes).
 */
static int
filter_codes(QsColPush *p, QsColPred *pr, const QsColReader *r, uint32 start,
			 int nrows, OffsetNumber *sel, int n)
{
	uint32		c0 = value_index(r, start);
	uint32		ncodes = value_index(r, start + nrows) - c0;
	int			k = 0;

	codes_kernel(p, pr, r, c0, ncodes);
	if (r->nulls == NULL)
		return keep_set_bits(p->bitmap, sel, n, nrows);
	for (int i = 0; i < n; i++)
	{
		uint32		row = start + sel[i];
		uint32		ci;

		if (!row_present(r, row))
			continue;
		ci = value_index(r, row) - c0;
		if ((p->bitmap[ci / 64] >> (ci % 64)) & 1)
			sel[k++] = sel[i];
	}
	return k;
}

/*
 * Keep the sel[] whose code is in pr->codeset (make_codeset): the chunk's
 * codes unpacked at once when the column has no NULL (a row's code is then
 * at its row) and most rows are still selected, else one by one.
 */
static int
filter_codeset(QsColPush *p, QsColPred *pr, const QsColReader *r, uint32 start,
			   int nrows, OffsetNumber *sel, int n)
{
	int			k = 0;

	if (r->nulls == NULL && n >= nrows / 4)
	{
		uint32	   *codes = (uint32 *) p->ints;	/* QS_COLPUSH_CHUNK int64s */

		if (r->d.encoding == QS_ENC_DICT)
			qs_bitpack_unpack32(r->codes.data, r->codes.width, start, nrows, codes);
		else
			qs_padded_unpack(r->padded, r->d.code_bytes, start, nrows, codes);
		for (int i = 0; i < n; i++)
		{
			uint32		code = codes[sel[i]];

			if ((pr->codeset[code / 64] >> (code % 64)) & 1)
				sel[k++] = sel[i];
		}
		return k;
	}
	for (int i = 0; i < n; i++)
	{
		uint32		row = start + sel[i];
		uint32		code;

		if (r->nulls != NULL && !row_present(r, row))
			continue;
		/* below the dictionary's size: checked when the reader opened */
		code = reader_code(r, value_index(r, row));
		if ((pr->codeset[code / 64] >> (code % 64)) & 1)
			sel[k++] = sel[i];
	}
	return k;
}

/*
 * Value idx of a FOR, FOR-delta or plain integer column as int64, as
 * qs_colreader_get hands it out (a 4-byte column's low 4 bytes).
 */
static inline int64
reader_int(const QsColReader *r, int width, size_t idx)
{
	int64		v;

	if (r->d.encoding == QS_ENC_PLAIN)
		return block_int(r->plain + idx * width, width);
	if (r->decoded)
		v = (int64) r->decoded[idx];
	else
		qs_for_decode64(&r->forv, idx, 1, &v);
	return width == 4 ? (int64) (int32) v : v;
}

/*
 * [lo, hi] as a range of a FOR stripe's residues (value = base + residue):
 * *rlo > *rhi when no residue is in it.  False when the kernel cannot
 * answer exactly what qs_for_decode64 and reader_int would: residues wider
 * than 32 bits, values read other than as the stripe's width, or a
 * residue the width allows whose value would leave the stripe's type
 * (only a damaged stripe holds one; the decoding path is the reference).
 */
static bool
for_residue_range(const QsForView *f, int col_width, int64 lo, int64 hi,
				  uint32 *rlo, uint32 *rhi)
{
	uint64		maxres;
	int64		base,
				top;

	if (f->kind != QS_FOR_PLAIN || f->width < 1 || f->width > 32)
		return false;
	maxres = (UINT64CONST(1) << f->width) - 1;
	base = (int64) f->base;
	if (f->value_bytes == 4)
	{
		/* decoded as int32, then read as int32 (width 4) or extended */
		if (base < PG_INT32_MIN || base > PG_INT32_MAX ||
			base + (int64) maxres > PG_INT32_MAX)
			return false;
	}
	else if (col_width == 4 || base > PG_INT64_MAX - (int64) maxres)
		return false;			/* truncated to int32, or wraps */
	top = base + (int64) maxres;
	if (hi < base || lo > top)
	{
		*rlo = 1;
		*rhi = 0;
		return true;
	}
	*rlo = lo <= base ? 0 : (uint32) ((uint64) lo - (uint64) base);
	*rhi = hi >= top ? (uint32) maxres : (uint32) ((uint64) hi - (uint64) base);
	return true;
}

/*
 * The bits of the integer range qual pr over rows start .. start + nrows
 * - 1 of a FOR column (no NULL: QS_CP_INTS is a block's mode only then;
 * bit i: row start + i) into p->bitmap, from the range of residues
 * for_residue_range gave.
 */
static void
for_kernel(QsColPush *p, QsColPred *pr, const QsColReader *r, uint32 start,
		   int nrows, uint32 rlo, uint32 rhi)
{
	if (rlo > rhi)
		memset(p->bitmap, 0, qs_bitmap_words(nrows) * sizeof(uint64));
	else
		qs_pred_range_packed(r->forv.packed, r->forv.width, start, nrows,
							 rlo, rhi, p->bitmap);
	if (pr->outside)
		qs_bitmap_invert(p->bitmap, nrows);
}

/*
 * Keep the sel[] whose integer is inside [lo, hi] (outside it for <>): on
 * a FOR stripe of residues up to 32 bits, the range of residues through
 * the codec's kernel over the chunk's packed codes (paper 002: predicates
 * on compressed codes, no value decoded); otherwise the chunk decoded at
 * once when most rows are still selected (the codec's unpacking loop),
 * else the selected values one by one.
 */
static int
filter_ints(QsColPush *p, QsColPred *pr, const QsColReader *r, uint32 start,
			int nrows, OffsetNumber *sel, int n)
{
	int			w = pr->width;
	int64		lo = pr->lo;
	int64		hi = pr->hi;
	bool		outside = pr->outside;
	int			k = 0;
	uint32		rlo,
				rhi;

	/*
	 * The kernel reads the whole chunk's residues (a few microseconds for
	 * 4096 of them); one value decoded alone costs tens of nanoseconds:
	 * the kernel wins from a sixteenth of the chunk on (a second and third
	 * qual of W1's conjunction see a fifth of it)
	 */
	if (r->d.encoding == QS_ENC_FOR && !r->decoded && n >= nrows / 16 &&
		for_residue_range(&r->forv, w, lo, hi, &rlo, &rhi))
	{
		/* QS_CP_INTS is a block's mode only when the column has no NULL */
		Assert(r->nulls == NULL);
		for_kernel(p, pr, r, start, nrows, rlo, rhi);
		return keep_set_bits(p->bitmap, sel, n, nrows);
	}
	if (r->d.encoding == QS_ENC_FOR && !r->decoded && n >= nrows / 4)
	{
		qs_for_decode64(&r->forv, start, nrows, p->ints);
		if (w == 4)
			for (int i = 0; i < nrows; i++)
				p->ints[i] = (int32) p->ints[i];
		for (int i = 0; i < n; i++)
		{
			int64		v = p->ints[sel[i]];

			if ((lo <= v && v <= hi) != outside)
				sel[k++] = sel[i];
		}
		return k;
	}
	for (int i = 0; i < n; i++)
	{
		int64		v = reader_int(r, w, start + sel[i]);

		if ((lo <= v && v <= hi) != outside)
			sel[k++] = sel[i];
	}
	return k;
}

/* The per-row qual pr over the decoded values of rows start + sel[0..n-1]. */
static int
filter_rows(QsColPush *p, ColScanDesc s, QsColPred *pr, uint32 start,
			OffsetNumber *sel, int n)
{
	read_values(p, s, pr->col, start, sel, n);
	return qs_qual_filter(pr->qual, p->vals, p->nulls, sel, n);
}

/*
 * The bits of pr over every row of the chunk (rows start .. start + nrows
 * - 1; bit i: row start + i) into p->bitmap, when a kernel over the packed
 * codes computes them: a code range or a FOR residue range on a column
 * without NULLs (a row's code is then at its row).  False: pr filters a
 * list of rows instead.
 */
static bool
kernel_bits(QsColPush *p, QsColPred *pr, const QsColReader *r, uint32 start,
			int nrows)
{
	uint32		rlo,
				rhi;

	if (r->nulls != NULL)
		return false;
	if (pr->mode == QS_CP_CODES)
	{
		codes_kernel(p, pr, r, start, (uint32) nrows);
		return true;
	}
	if (pr->mode == QS_CP_INTS && r->d.encoding == QS_ENC_FOR && !r->decoded &&
		for_residue_range(&r->forv, pr->width, pr->lo, pr->hi, &rlo, &rhi))
	{
		for_kernel(p, pr, r, start, nrows, rlo, rhi);
		return true;
	}
	return false;
}

/*
 * AND p->bitmap into the selection bits of a chunk of nrows rows; returns
 * the rows left (the kernels may set bits past the last row).
 */
static int
and_selbits(QsColPush *p, int nrows)
{
	int			nwords = (int) qs_bitmap_words(nrows);

	for (int w = 0; w < nwords; w++)
		p->selbits[w] &= p->bitmap[w];
	if (nrows % 64 != 0)
		p->selbits[nwords - 1] &= (UINT64CONST(1) << (nrows % 64)) - 1;
	return (int) qs_bitmap_count(p->selbits, nrows);
}

/*
 * 0 .. QS_COLPUSH_CHUNK - 1, made once per backend: a chunk's selection
 * starts as a copy of it (the loop that wrote it cost a fifth of a
 * selective count(*) over FOR codes: gcc at -O2 does not vectorize it).
 */
static const OffsetNumber *
identity_sel(void)
{
	static OffsetNumber ident[QS_COLPUSH_CHUNK];
	static bool made = false;

	if (!made)
	{
		for (int i = 0; i < QS_COLPUSH_CHUNK; i++)
			ident[i] = (OffsetNumber) i;
		made = true;
	}
	return ident;
}

/*
 * qs_colpush_native
 *		Run the quals that call no function (code and integer ranges) or a
 *		leakproof one over rows start .. start + nrows - 1 of the open block
 *		(nrows <= QS_COLPUSH_CHUNK): sel[] gets the offsets from start of
 *		those passing, ascending; returns how many.  They may see rows no
 *		snapshot of the scan sees (deleted, old versions): they raise and
 *		reveal nothing.  The caller then keeps the rows the delete map and
 *		the snapshot show and runs qs_colpush_rows over them.
 */
int
qs_colpush_native(QsColPush *p, ColScanDesc s, uint32 start, int nrows,
				  OffsetNumber *sel)
{
	int			n = nrows;
	bool		bits = false;
	int			last = -1;		/* the last qual that filters */

	Assert(nrows <= QS_COLPUSH_CHUNK);
	MemoryContextReset(p->chunkcxt);
	if (p->probe_bits)
	{
		/* the probe's rows first: the other quals run on them only */
		uint32		r = start;
		uint32		stop = start + (uint32) nrows;

		n = 0;
		while (r < stop)
		{
			uint64		w = p->probe_bits[r / 64] >> (r % 64);

			if (w == 0)
			{
				r = (r / 64 + 1) * 64;
				continue;
			}
			r += (uint32) __builtin_ctzll(w);
			if (r >= stop)
				break;
			sel[n++] = (OffsetNumber) (r - start);
			r++;
		}
		for (int i = 0; i < p->npreds; i++)
			if (p->preds[i].mode == QS_CP_PROBE)
			{
				p->preds[i].qual->rows_in += nrows;
				p->preds[i].qual->rows_out += n;
			}
	}
	else
	{
		/* every row: the selection as bits while kernels AND into them */
		bits = true;
		for (int i = 0; i < p->npreds; i++)
			if (p->preds[i].mode != QS_CP_ALL)
				last = i;
		memset(p->selbits, 0xff, sizeof(uint64) * qs_bitmap_words(nrows));
	}
	for (int i = 0; i < p->npreds && n > 0; i++)
	{
		QsColPred  *pr = &p->preds[i];
		QsQual	   *q = pr->qual;
		QsColReader *r;

		/*
		 * Held as bits, the selection meets a kernel's bits a word at a
		 * time; a list of offsets is made only for a qual that filters a
		 * list, for the few rows left, and at the end.  Made after each
		 * kernel (as before), the list cost more than the kernels: W1's
		 * three-qual conjunction spent 12 % of its time in keep_set_bits,
		 * the second and third quals' kernels or single-value decodes
		 * beside it.  A kernel runs over the whole chunk: from a
		 * sixty-fourth of the rows down, looking the few up one by one
		 * costs less.
		 */
		if (bits && pr->mode != QS_CP_ALL)
		{
			/*
			 * The last qual over a whole chunk filters it as before: the
			 * kernel's bits are the answer.
			 */
			if (n >= nrows / 64 && (n < nrows || i < last) &&
				(pr->mode == QS_CP_CODES || pr->mode == QS_CP_INTS))
			{
				r = column_reader(p, s, pr->col);
				if (kernel_bits(p, pr, r, start, nrows))
				{
					q->rows_in += n;
					n = and_selbits(p, nrows);
					q->rows_out += n;
					continue;
				}
			}
			if (n == nrows)
				memcpy(sel, identity_sel(), sizeof(OffsetNumber) * n);
			else
				n = keep_set_bits(p->selbits, sel, nrows, nrows);
			bits = false;
		}
		switch (pr->mode)
		{
			case QS_CP_ALL:
				q->rows_in += n;
				q->rows_out += n;
				break;
			case QS_CP_PROBE:
				break;			/* counted above */
			case QS_CP_CODES:
			case QS_CP_INTS:
				q->rows_in += n;
				r = column_reader(p, s, pr->col);
				n = pr->mode == QS_CP_CODES ?
					filter_codes(p, pr, r, start, nrows, sel, n) :
					filter_ints(p, pr, r, start, nrows, sel, n);
				q->rows_out += n;
				break;
			case QS_CP_CODESET:
				q->rows_in += n;
				r = column_reader(p, s, pr->col);
				n = filter_codeset(p, pr, r, start, nrows, sel, n);
				q->rows_out += n;
				break;
			case QS_CP_ROWS:
				if (pr->leakproof)
					n = filter_rows(p, s, pr, start, sel, n);
				break;			/* else qs_colpush_rows' */
		}
	}
	if (bits && n == nrows)
		memcpy(sel, identity_sel(), sizeof(OffsetNumber) * n);
	else if (bits && n > 0)
		n = keep_set_bits(p->selbits, sel, nrows, nrows);
	return n;
}

/*
 * qs_colpush_all_pass
 *		Does every row of the open block's range (s->row .. s->row_end - 1)
 *		pass every qual, as qs_colpush_block decided from the block's
 *		min/max, dictionaries and binary search, without reading a row?
 */
bool
qs_colpush_all_pass(const QsColPush *p)
{
	if (p->probe_bits != NULL)
		return false;
	for (int i = 0; i < p->npreds; i++)
		if (p->preds[i].mode != QS_CP_ALL)
			return false;
	return true;
}

/*
 * qs_colpush_rows
 *		Run the other quals (not leakproof), each through its operator's
 *		function on the decoded column (qs_qual_filter), over rows start +
 *		sel[0..n-1] of the open block, which qs_colpush_native kept and the
 *		caller found visible: a user's function may raise or print its arguments,
 *		so it sees only rows the scan returns, as heap's quals do.  Keeps
 *		the passing sel[] in order; returns how many.
 */
int
qs_colpush_rows(QsColPush *p, ColScanDesc s, uint32 start, OffsetNumber *sel,
				int n)
{
	for (int i = 0; i < p->npreds && n > 0; i++)
	{
		QsColPred  *pr = &p->preds[i];

		if (pr->mode == QS_CP_ROWS && !pr->leakproof)
			n = filter_rows(p, s, pr, start, sel, n);
	}
	return n;
}

/*
 * qs_colpush_values
 *		Column c of rows start + sel[0..n-1] of the open block (n <=
 *		QS_COLPUSH_CHUNK) into p->vals / p->nulls, decoded as the quals'
 *		per-row path decodes them (a column added after the block: its
 *		missing value).  By-reference values live until the next chunk.
 *		For the aggregate mode of QuickstepScan (src/scan/aggexec.c).
 */
void
qs_colpush_values(QsColPush *p, ColScanDesc s, int c, uint32 start,
				  const OffsetNumber *sel, int n)
{
	read_values(p, s, c, start, sel, n);
}

/*
 * qs_colpush_codes
 *		If column c of the open block is dictionary-encoded: the codes of
 *		rows start + sel[0..n-1] into codes[], NULLs in p->nulls (their
 *		codes unset), and *dict the block's dictionary (valid while the
 *		block is open: until the next qs_colpush_block).  Else false,
 *		nothing read.
 */
bool
qs_colpush_codes(QsColPush *p, ColScanDesc s, int c, uint32 start,
				 const OffsetNumber *sel, int n, uint32 *codes,
				 const QsDict **dict)
{
	QsColBlockColDesc d;
	QsColReader *r;

	if (c >= s->rr.h.blk.ncols)
		return false;
	qs_colblock_coldesc(&s->rr.h.blk, c, &d);
	if (d.encoding != QS_ENC_DICT)
		return false;
	r = column_reader(p, s, c);
	for (int i = 0; i < n; i++)
	{
		uint32		row = start + sel[i];

		p->nulls[i] = !row_present(r, row);
		if (!p->nulls[i])
			codes[i] = (uint32) qs_bitpack_get(r->codes.data, r->codes.width,
											   value_index(r, row));
	}
	*dict = &r->dict;
	return true;
}

#ifdef HAVE_INT128
/*
 * qs_colpush_numerics
 *		Column c (numeric) of rows start + sel[0..n-1] of the open block as
 *		exact scaled integers (qs_numeric_decode) into out[], NULLs in
 *		p->nulls, without Datums.  A dictionary-encoded column's dictionary
 *		is converted once per opened block, then each row takes its code's
 *		value.  True if some value is QS_NUM_WIDE (the caller then reads
 *		the chunk's Datums with qs_colpush_values for PostgreSQL's own
 *		arithmetic).
 */
bool
qs_colpush_numerics(QsColPush *p, ColScanDesc s, int c, uint32 start,
					const OffsetNumber *sel, int n, QsNum *out)
{
	QsColReader *r;
	bool		wide = false;

	if (c >= s->rr.h.blk.ncols)
	{
		/* added after the block: every row has the missing value */
		bool		isnull;
		Datum		v = getmissingattr(s->attrs[0].desc, c + 1, &isnull);
		QsNum		x;

		memset(&x, 0, sizeof(x));
		if (!isnull)
		{
			struct varlena *t = PG_DETOAST_DATUM_PACKED(v);

			qs_numeric_decode((const uint8 *) VARDATA_ANY(t),
							  VARSIZE_ANY_EXHDR(t), &x);
		}
		for (int i = 0; i < n; i++)
		{
			p->nulls[i] = isnull;
			out[i] = x;
		}
		return !isnull && x.kind == QS_NUM_WIDE;
	}
	r = column_reader(p, s, c);
	if (r->d.encoding == QS_ENC_DICT)
	{
		const QsNum *dict;

		if (p->numdict == NULL)
		{
			p->numdict = MemoryContextAllocZero(p->cxt, sizeof(QsNum *) * p->natts);
			p->numdict_len = MemoryContextAllocZero(p->cxt, sizeof(uint32) * p->natts);
			p->numdict_gen = MemoryContextAllocZero(p->cxt, sizeof(uint64) * p->natts);
		}
		if (p->numdict_gen[c] != p->block_gen || p->numdict[c] == NULL)
		{
			uint32		nv = r->dict.nvalues;

			if (p->numdict[c] == NULL || p->numdict_len[c] < nv)
			{
				if (p->numdict[c] != NULL)
					pfree(p->numdict[c]);
				p->numdict[c] = MemoryContextAlloc(p->cxt,
												   sizeof(QsNum) * Max(nv, 1));
				p->numdict_len[c] = Max(nv, 1);
			}
			for (uint32 code = 0; code < nv; code++)
			{
				const uint8 *v;
				size_t		len;

				qs_dict_value(&r->dict, code, &v, &len);
				qs_numeric_decode(v, len, &p->numdict[c][code]);
			}
			p->numdict_gen[c] = p->block_gen;
		}
		dict = p->numdict[c];
		for (int i = 0; i < n; i++)
		{
			uint32		row = start + sel[i];

			p->nulls[i] = !row_present(r, row);
			if (p->nulls[i])
				continue;
			out[i] = dict[qs_bitpack_get(r->codes.data, r->codes.width,
										 value_index(r, row))];
			wide |= out[i].kind == QS_NUM_WIDE;
		}
		return wide;
	}
	for (int i = 0; i < n; i++)
	{
		const uint8 *v;
		size_t		len;
		QsCodecErr	err;
		QsCodecStatus st;

		err.msg[0] = '\0';
		st = qs_colreader_get(r, start + sel[i], &p->nulls[i], &v, &len, &err);
		if (st != QS_CODEC_OK)
			qs_colblock_report(s->base.rs_rd, s->rr.h.entry.block_id, st, &err);
		if (p->nulls[i])
			continue;
		qs_numeric_decode(v, len, &out[i]);
		wide |= out[i].kind == QS_NUM_WIDE;
	}
	return wide;
}
#endif

/*
 * qs_colpush_ints
 *		Column c of rows start + sel[0..n-1] of the open block as integers
 *		(a by-value integer-like column of 'width' bytes) into p->ints,
 *		NULLs in p->nulls, read from its FOR or plain stripe as the
 *		integer quals read it, without Datums: the chunk (rows start ..
 *		start + nrows - 1) unpacked at once when most of it is selected.
 *		False, nothing read, when the column is stored otherwise
 *		(dictionary, added after the block): qs_colpush_values then.
 */
bool
qs_colpush_ints(QsColPush *p, ColScanDesc s, int c, int width, uint32 start,
				int nrows, const OffsetNumber *sel, int n)
{
	QsColBlockColDesc d;
	QsColReader *r;

	if (c >= s->rr.h.blk.ncols)
		return false;
	qs_colblock_coldesc(&s->rr.h.blk, c, &d);
	if (!(((d.encoding == QS_ENC_FOR || d.encoding == QS_ENC_FOR_DELTA) &&
		   (width == 4 || width == 8)) ||
		  (d.encoding == QS_ENC_PLAIN && d.type.typlen == width)))
		return false;
	r = column_reader(p, s, c);
	if (r->nulls == NULL && r->d.encoding == QS_ENC_FOR && !r->decoded &&
		n >= nrows / 4)
	{
		/* in place: sel[] ascends, so sel[i] >= i */
		qs_for_decode64(&r->forv, start, nrows, p->ints);
		for (int i = 0; i < n; i++)
		{
			int64		v = p->ints[sel[i]];

			p->ints[i] = width == 4 ? (int64) (int32) v : v;
			p->nulls[i] = false;
		}
		return true;
	}
	for (int i = 0; i < n; i++)
	{
		uint32		row = start + sel[i];

		p->nulls[i] = !row_present(r, row);
		p->ints[i] = p->nulls[i] ? 0 : reader_int(r, width, value_index(r, row));
	}
	return true;
}
