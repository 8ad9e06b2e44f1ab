/*-------------------------------------------------------------------------
 *
 * colcost.c
 *	  The cost of decoding a column table's columns, for the plain
 *	  sequential scan and for QuickstepScan.
 *
 * PostgreSQL costs a sequential scan by its pages and cpu_tuple_cost per
 * row.  A quickstep_column table's pages are few (its blocks are
 * compressed), but its sequential scan decodes every column of every row
 * it returns: that work, not the pages, is most of its time, and without
 * it the plain scan looked cheaper than QuickstepScan, which decodes only
 * the columns the query needs.  Each is charged per column and row it
 * decodes, at its own rate, so that the planner sees what reading fewer
 * columns spares.  Row tables are not charged: their records are deformed
 * as heap's are, which cpu_tuple_cost already counts.
 *
 *-------------------------------------------------------------------------
 */
#include "scan/qscan.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "codec/choose.h"
#include "column/colam.h"
#include "column/colblock.h"
#include "column/colstore.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/inval.h"
#include "utils/rel.h"

/*
 * Decoding one column of one row, as a fraction of cpu_tuple_cost, for the
 * sequential scan (SEQ: qs_colrows_get_batch_cols, a batch of rows a column at a
 * time) and for QuickstepScan (SCAN: qs_colrows_get_list_cols over the rows that
 * passed its quals, the same kernels).  Measured by callgrind (instruction
 * counts: the machine is shared), bench/w1/callgrind.sh, PG 15, 500,000 rows
 * of W1 Narrow-U (10 int4), W1's query at 100 %
 *     SELECT c1..ck FROM t WHERE c1 >= 1 OFFSET 10000000
 * heap's plain scan: 735 instructions a row for a cost of 0.0208 a row
 * (10,417 for the table), so cpu_tuple_cost is about 353 instructions;
 * the inclusive instructions of the decode functions per row: SEQ 252 for
 * 10 values, 25 a value, 0.07; SCAN 44, 95 and 145 for 1, 3 and 5 columns,
 * 25 a value more, 0.07 too (the same kernels over the same runs of rows)
 * and 19 a row, which the hand-out charge below covers with the rest of
 * handing a passing row out.
 * Timings decode a value dearer than instructions say (memory stalls are
 * not instructions), both scans alike, so the choice between them holds.
 */
#define QS_COL_SEQ_DECODE_FRACTION 0.07
#define QS_COL_SCAN_DECODE_FRACTION 0.07

/*
 * QuickstepScan visiting one row of a column table, as a fraction of
 * cpu_tuple_cost: what it does for every row of a block it reads, whether
 * the row passes or not, besides the pushed quals (charged at half their
 * cost, planner.c) and the decoding (above).  A row table's visit
 * (QS_VISIT_FRACTION, 0.5) reads a record's header and first column; a
 * column table's is the chunk loop over the delete map's verdicts and the
 * selection vector, and the pushed quals' columns are read as codes a chunk
 * at a time.  Callgrind as above (PG 15, 500,000 rows, PUSHDOWN=on, the
 * scan forced), instructions per row of SELECT c1 FROM t WHERE ...:
 *     c1 = 50000001 (no row passes, every row tested)      41.8
 *     c1 <> 50000001 (every row passes, every row tested)  506.9
 *     no qual (every row passes, none tested)              470.3
 * so testing c1 costs 36.6 instructions a row (charged 0.5 * 0.0025 =
 * 0.125 cpu_tuple_cost, 44) and the visit the remaining 41.8 - 36.6 = 5.2,
 * 0.015 cpu_tuple_cost.  With 0.5, a visit cost what 176
 * instructions do, and the planner took the plain scan from 5 of 10 columns
 * on although QuickstepScan ran fewer instructions at every width
 * (src/scan/README.md, Costs, has the table).
 */
#define QS_COL_VISIT_FRACTION 0.015

/*
 * QuickstepScan handing out one decoded value of a row that passed, besides
 * decoding it, as a fraction of cpu_tuple_cost.  Per column it returns,
 * QuickstepScan runs 56.2 instructions a row (470 for 1 column, 957 for
 * 9), the plain scan 13.1 (its projection; it decodes every column anyway),
 * and PostgreSQL charges neither scan for projecting.  The plain scan's
 * projection also costs about 70 a row once (its 10 columns without one:
 * 720 against 791 for 1 column), which no charge follows, so the charge is
 * the one that puts the crossovers where callgrind does (src/scan/README.md,
 * Costs, the table): with c1 >= 1, where QuickstepScan answers the qual on
 * each block's min/max and the plain scan tests every row, QuickstepScan
 * runs fewer instructions up to 8 columns; without a qual up to 5.  The
 * charges give QuickstepScan 0.81 - (0.07 + h) k and 0.685 - (0.07 + h) k
 * of cpu_tuple_cost less than the plain scan (k columns; the pages are the
 * same): h in (0.020, 0.031) puts the first crossover right, h in (0.044,
 * 0.067) the second; 0.03 misses the second by one column (6 columns with
 * no qual: 789 against 774 instructions, 2 %).  Fitted to those two qual
 * shapes: a qual every row passes that min/max cannot answer (c1 <>
 * 50000001) costs QuickstepScan its test on every row, which the first
 * margin does not hold, and 8 columns are missed (938 against 911, 3 %;
 * 7 and 9 are picked right).
 */
#define QS_COL_SCAN_HANDOUT_FRACTION 0.03

/*
 * Fetching one value of a main row by its TID (index, bitmap and TID scans),
 * beyond what cost_index and cost_bitmap_heap_scan charge for fetching a
 * heap row (cpu_tuple_cost and the row's pages), as a fraction of
 * cpu_tuple_cost (about 0.1 us: 353 instructions, above).  A fetch reads
 * one value of each column it needs from that column's stripe: a cache
 * miss or two for a bit-packed, FOR or dictionary code (FETCH_VALUE), and
 * decompressing the value's LZ4 chunk (up to 64 values or 4 kB) for an LZ4
 * one (FETCH_LZ4).  Measured at TPC-H SF 1, PG 15 (lineitem sorted on
 * l_shipdate, so fetches by l_orderkey land anywhere), 200,000 random
 * l_orderkey probes joined by nested loop, about 200,000 rows fetched
 * (src/scan/README.md, Costs, has the query): against heap's same plan,
 * sum(l_suppkey) (FOR) +0.0 us a row, count(*) -0.3 us, l_extendedprice,
 * l_discount, l_suppkey, l_shipdate (one LZ4 column) +1.5 us, l_comment
 * (LZ4) +2 us.  Uncharged, TPC-H Q7 nested 121,324 index scans of lineitem
 * (2.0 s) where a hash join over QuickstepScan takes 0.57 s (heap 0.78 s).
 */
#define QS_COL_FETCH_VALUE_FRACTION 0.5
#define QS_COL_FETCH_LZ4_FRACTION 15.0

double
qs_colcost_visit_fraction(void)
{
	return QS_COL_VISIT_FRACTION;
}

static Cost
decode_cost(double values, double fraction)
{
	return values * cpu_tuple_cost * fraction;
}

/*
 * The columns of the relation a sequential scan decodes: every column not
 * dropped.
 */
static int
table_columns(Oid relid)
{
	Relation	r = table_open(relid, NoLock);	/* the planner holds a lock */
	TupleDesc	desc = RelationGetDescr(r);
	int			n = 0;

	for (int i = 0; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped)
			n++;
	table_close(r, NoLock);
	return n;
}

/* the paths that fetch rows by TID, which charge_fetches builds again */
static bool
is_fetch_path(Path *path)
{
	switch (path->pathtype)
	{
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
			return true;
		default:
			return false;
	}
}

/*
 * The encodings of the columns of a column table's largest block, kept by
 * the backend for the planner: a block image never changes, so the block's
 * directory entry (its id, run and length) and the relation's storage name
 * it.  A few entries, least recently used replaced.
 */
#define FETCH_ENC_SLOTS 16

typedef struct FetchEnc
{
	Oid			relid;
	RelFileLocator locator;
	uint32		block_id;
	BlockNumber run_start;
	uint64		image_len;
	uint64		last_use;
	int			ncols;
	bool	   *lz4;			/* ncols, in TopMemoryContext */
} FetchEnc;

static FetchEnc fetch_enc[FETCH_ENC_SLOTS];
static uint64 fetch_enc_clock;
static bool fetch_enc_registered;

/*
 * A relation's entries go with its relcache entry: a truncation in place
 * starts its block ids over on the same storage (am.c invalidates it).
 */
static void
fetch_enc_inval(Datum arg, Oid relid)
{
	for (int i = 0; i < FETCH_ENC_SLOTS; i++)
	{
		FetchEnc   *f = &fetch_enc[i];

		if (f->lz4 != NULL && (!OidIsValid(relid) || f->relid == relid))
		{
			pfree(f->lz4);
			f->lz4 = NULL;
			f->last_use = 0;	/* the first to be taken again */
		}
	}
}

/*
 * Whether column c (0-based) of block e is LZ4, for the first ncols columns
 * of the block (*ncols): NULL when the block's header cannot be read (a
 * corrupt block makes no plan fail: the fetch that reads it reports it).
 */
static const bool *
block_lz4_columns(Relation r, const QsColDirEntry *e, int *ncols)
{
	FetchEnc   *slot = NULL;
	QsColBlockHandle h;
	QsCodecErr	err;

	if (!fetch_enc_registered)
	{
		CacheRegisterRelcacheCallback(fetch_enc_inval, (Datum) 0);
		fetch_enc_registered = true;
	}

	for (int i = 0; i < FETCH_ENC_SLOTS; i++)
	{
		FetchEnc   *f = &fetch_enc[i];

		if (f->lz4 != NULL && f->relid == RelationGetRelid(r) &&
			f->block_id == e->block_id && f->run_start == e->run_start &&
			f->image_len == e->image_len &&
			memcmp(&f->locator, &QS_REL_LOCATOR(r), sizeof(RelFileLocator)) == 0)
		{
			f->last_use = ++fetch_enc_clock;
			*ncols = f->ncols;
			return f->lz4;
		}
		if (slot == NULL || f->last_use < slot->last_use)
			slot = f;
	}
	if (qs_colblock_try_load(r, e, &h, &err) != QS_CODEC_OK)
		return NULL;
	if (slot->lz4 != NULL)
		pfree(slot->lz4);
	slot->lz4 = MemoryContextAllocZero(TopMemoryContext,
									   sizeof(bool) * Max(h.blk.ncols, 1));
	for (int c = 0; c < (int) h.blk.ncols; c++)
	{
		QsColBlockColDesc d;

		qs_colblock_coldesc(&h.blk, c, &d);
		slot->lz4[c] = d.encoding == QS_ENC_LZ4;
	}
	slot->ncols = h.blk.ncols;
	slot->relid = RelationGetRelid(r);
	slot->locator = QS_REL_LOCATOR(r);
	slot->block_id = e->block_id;
	slot->run_start = e->run_start;
	slot->image_len = e->image_len;
	slot->last_use = ++fetch_enc_clock;
	qs_colblock_release(&h);
	*ncols = slot->ncols;
	return slot->lz4;
}

/*
 * What fetching a value of each column of a main row costs (per attribute
 * number, 1 .. natts, as a fraction of cpu_tuple_cost), by the encodings of
 * the column table's largest block, times the share of the table's rows in
 * blocks (a delta row is fetched as a row table's).  One block's encodings:
 * a table's blocks are written by the same chooser from rows alike.  A
 * block whose header cannot be read is taken as codes only.
 */
static double *
fetch_fractions(Relation r, double tuples)
{
	TupleDesc	desc = RelationGetDescr(r);
	double	   *frac = palloc0(sizeof(double) * (desc->natts + 1));
	QsColPlanShape shape;
	const bool *lz4;
	int			ncols = 0;
	double		share;

	if (RelationGetNumberOfBlocks(r) == 0)
		return frac;
	qs_column_plan_shape(r, &shape);
	if (!shape.has_largest || shape.main_rows <= 0)
		return frac;
	share = tuples > 0 ? Min(shape.main_rows / tuples, 1.0) : 1.0;
	lz4 = block_lz4_columns(r, &shape.largest, &ncols);
	for (int c = 0; c < desc->natts && c < ncols; c++)
	{
		if (TupleDescAttr(desc, c)->attisdropped)
			continue;
		frac[c + 1] = share * (lz4 != NULL && lz4[c] ?
							   QS_COL_FETCH_LZ4_FRACTION :
							   QS_COL_FETCH_VALUE_FRACTION);
	}
	return frac;
}

/*
 * The attributes a fetch of rel's rows reads, as fetchatts.c gives the
 * scan: its target list and its restriction clauses (a parameterized
 * path's join clauses are added by the caller).
 */
static Bitmapset *
fetch_attrs(RelOptInfo *rel)
{
	Bitmapset  *attrs = NULL;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	pull_varattnos((Node *) extract_actual_clauses(rel->baserestrictinfo, false),
				   rel->relid, &attrs);
	return attrs;
}

/* per_row charge of the attributes 'attrs' reads (every one: a whole row) */
static double
attrs_charge(Bitmapset *attrs, const double *frac, int natts)
{
	bool		wholerow = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	double		per_row = 0;

	for (AttrNumber a = 1; a <= natts; a++)
		if (wholerow || bms_is_member(a - FirstLowInvalidHeapAttributeNumber, attrs))
			per_row += frac[a];
	return per_row;
}

/*
 * Charge a path that fetches rows by TID for the values it reads of each
 * (base_attrs, and a parameterized path's join clauses' columns).  An
 * index-only scan reads none.  The rows fetched per scan are what
 * cost_index and cost_bitmap_heap_scan count; a TID scan's, its TID quals'
 * selectivity (its rows would leave out what its other quals filter).
 */
static void
charge_fetch(PlannerInfo *root, RelOptInfo *rel, Path *path,
			 Bitmapset *base_attrs, const double *frac, int natts)
{
	double		per_row;
	double		rows;
	Cost		cost;

	if (path->pathtype == T_IndexOnlyScan)
		return;
	if (path->param_info != NULL)
	{
		Bitmapset  *attrs = bms_copy(base_attrs);

		pull_varattnos((Node *) extract_actual_clauses(path->param_info->ppi_clauses,
													   false),
					   rel->relid, &attrs);
		per_row = attrs_charge(attrs, frac, natts);
		bms_free(attrs);
	}
	else
		per_row = attrs_charge(base_attrs, frac, natts);
	if (per_row <= 0)
		return;

	if (IsA(path, IndexPath))
		rows = ((IndexPath *) path)->indexselectivity * rel->tuples;
	else if (IsA(path, BitmapHeapPath))
	{
		Cost		indexcost;
		Selectivity selec;

		cost_bitmap_tree_node(((BitmapHeapPath *) path)->bitmapqual,
							  &indexcost, &selec);
		rows = selec * rel->tuples;
	}
	else if (IsA(path, TidPath))
		rows = clauselist_selectivity(root, ((TidPath *) path)->tidquals,
									  rel->relid, JOIN_INNER, NULL) * rel->tuples;
	else if (IsA(path, TidRangePath))
		rows = clauselist_selectivity(root, ((TidRangePath *) path)->tidrangequals,
									  rel->relid, JOIN_INNER, NULL) * rel->tuples;
	else
		rows = path->rows;
	cost = clamp_row_est(rows) * per_row * cpu_tuple_cost;
	if (path->parallel_workers > 0)
		cost /= qs_scan_parallel_divisor(path->parallel_workers);
	path->total_cost += cost;
}

/* Does any of the paths read a column of the rows it fetches? */
static bool
any_fetching(List *paths)
{
	ListCell   *lc;

	foreach(lc, paths)
		if (((Path *) lfirst(lc))->pathtype != T_IndexOnlyScan)
			return true;
	return false;
}

/*
 * Build the index, bitmap and TID paths of the column table again (the
 * caller took out the ones core built) and offer them charged.  Built apart
 * from the lists, so that add_path compares them with the sequential scans
 * only once charged; among themselves add_path still compares them
 * uncharged (create_index_paths and its bitmap choices cost them as core
 * does).  The uncharged sequential scans had also made add_path reject the
 * fetching paths that cost more than them but less than the charged ones:
 * those come back too.
 */
static void
charge_fetches(PlannerInfo *root, RelOptInfo *rel, Oid relid)
{
	List	   *kept = rel->pathlist;
	List	   *kept_partial = rel->partial_pathlist;
	List	   *built;
	List	   *built_partial;
	Relation	r;
	double	   *frac = NULL;
	Bitmapset  *attrs;
	int			natts;
	ListCell   *lc;

	rel->pathlist = NIL;
	rel->partial_pathlist = NIL;
	if (rel->indexlist != NIL)
		create_index_paths(root, rel);

	/*
	 * PG 18 returns whether it built the TID path of WHERE CURRENT OF, after
	 * which core builds no other path; planner.c charges no relation with
	 * one (has_current_of), so there is nothing to do with it here.
	 */
	create_tidscan_paths(root, rel);
	built = rel->pathlist;
	built_partial = rel->partial_pathlist;
	rel->pathlist = kept;
	rel->partial_pathlist = kept_partial;

	r = table_open(relid, NoLock);	/* the planner holds a lock */
	natts = RelationGetDescr(r)->natts;
	if (any_fetching(built) || any_fetching(built_partial))
		frac = fetch_fractions(r, rel->tuples);
	table_close(r, NoLock);
	attrs = frac != NULL ? fetch_attrs(rel) : NULL;
	foreach(lc, built)
	{
		if (frac != NULL)
			charge_fetch(root, rel, (Path *) lfirst(lc), attrs, frac, natts);
		add_path(rel, (Path *) lfirst(lc));
	}
	foreach(lc, built_partial)
	{
		if (frac != NULL)
			charge_fetch(root, rel, (Path *) lfirst(lc), attrs, frac, natts);
		add_partial_path(rel, (Path *) lfirst(lc));
	}
	if (frac != NULL)
		pfree(frac);
	bms_free(attrs);
	list_free(built);
	list_free(built_partial);
}

/*
 * Add the decoding of every column of every row to the sequential scan
 * paths PostgreSQL offered for the column table (serial and partial; a
 * partial path's rows are shared among its participants, as cost_seqscan
 * divides its CPU cost).  Called from set_rel_pathlist_hook, before the
 * Gather paths are built over the partial ones and before set_cheapest
 * (PG 15 and 18 alike), so nothing has taken a cheapest path yet.
 *
 * The paths are taken out of the lists, charged and offered again: add_path
 * and add_partial_path keep their lists sorted by cost (add_path_precheck
 * and the cheapest partial path, the list's first, rely on it), and a
 * charged path may now lose to one already there.  The index, bitmap and
 * TID paths are taken out too, and built again and charged for their
 * fetches (charge_fetches).
 */
void
qs_colcost_charge_seqscans(PlannerInfo *root, RelOptInfo *rel, Oid relid)
{
	Cost		all = decode_cost(rel->tuples * table_columns(relid),
								  QS_COL_SEQ_DECODE_FRACTION);
	List	   *serial = NIL;
	List	   *partial = NIL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->pathtype == T_SeqScan)
			serial = lappend(serial, path);
		else if (!is_fetch_path(path))
			continue;
		rel->pathlist = foreach_delete_current(rel->pathlist, lc);
	}
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->pathtype == T_SeqScan)
			partial = lappend(partial, path);
		else if (!is_fetch_path(path))
			continue;
		rel->partial_pathlist = foreach_delete_current(rel->partial_pathlist, lc);
	}

	foreach(lc, serial)
	{
		Path	   *path = (Path *) lfirst(lc);

		path->total_cost += all;
		add_path(rel, path);
	}
	foreach(lc, partial)
	{
		Path	   *path = (Path *) lfirst(lc);

		path->total_cost += all / qs_scan_parallel_divisor(path->parallel_workers);
		add_partial_path(rel, path);
	}
	list_free(serial);
	list_free(partial);

	charge_fetches(root, rel, relid);
}

/*
 * QuickstepScan of a column table: the columns it hands out (the needed
 * columns: the query's and the remaining quals'; every column for a
 * whole-row reference), decoded and handed out for the rows that pass the
 * pushed quals.
 * The pushed quals' own columns are read as codes and already costed per
 * row visited (planner.c, cost_path).  needed: the attribute numbers.
 */
void
qs_colcost_charge_scan(PlannerInfo *root, RelOptInfo *rel, Path *path,
					   List *pushed, List *needed, int workers)
{
	double		passing;
	Cost		cost;

	passing = rel->tuples *
		clauselist_selectivity(root, pushed, rel->relid, JOIN_INNER, NULL);
	cost = decode_cost(passing * list_length(needed),
					   QS_COL_SCAN_DECODE_FRACTION + QS_COL_SCAN_HANDOUT_FRACTION);
	if (workers > 0)
		cost /= qs_scan_parallel_divisor(workers);
	path->total_cost += cost;
}
