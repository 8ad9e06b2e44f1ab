/*-------------------------------------------------------------------------
 *
 * aggexec.c
 *	  Executor side of QuickstepScan's aggregate mode: partial aggregate
 *	  states of a column table's rows, computed inside the scan.
 *
 * The node reads the rows the plain QuickstepScan would return (the column
 * AM's own scan: its delta rows under the snapshot, then the main blocks of
 * its directory view, each skipped or its pushed quals evaluated a chunk
 * at a time by src/column/pushdown.c, then the delete map), and instead of
 * handing them out accumulates them: per group (the pushed GROUP BY
 * columns' values) one accumulator per aggregate, in C.  A block with no
 * deleted row, no qual and all its rows published to the snapshot answers
 * count(*), count(col), min and max from its header without reading a
 * stripe.  At the end the node returns one row per group: the grouping
 * columns and each aggregate's partial state exactly as PostgreSQL's
 * Partial Aggregate emits it (its transition state, or the serial
 * function's bytea), which the Finalize Aggregate above combines.
 *
 * Parallel: each participant claims delta pages and main blocks from the
 * column AM's parallel scan state (as the plain scan does) and returns its
 * own groups; the Finalize node combines them.
 *
 * The states are PostgreSQL's, row by row in scan order:
 *	count			int8
 *	sum(int2|int4)	int8 (int2_sum, int4_sum: no overflow check, as there)
 *	avg(int2|int4)	int8[2] {count, sum} (int4_avg_accum)
 *	sum/avg(int8)	int8_avg_serialize's bytea: int8 N, then sumX
 *					(send_int128_numericvar)
 *	sum(float4)		float4 (float4pl), sum(float8) float8 (float8pl)
 *	min/max			the column's type (int4smaller, float8larger, ...)
 *
 *-------------------------------------------------------------------------
 */
#include "scan/qscan.h"
#include "scan/aggpush.h"
#include "scan/parrange.h"
#include "scan/quals.h"
#include "column/colam.h"
#include "column/colblock.h"
#include "column/pushdown.h"
#include "column/scratch.h"
#include "tableam/engine_int.h"

#include "access/parallel.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "pgstat.h"
#include "rewrite/rewriteManip.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/numeric.h"
#include "utils/float.h"
#include "common/hashfn.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"

/* slots of the cache of recently used groups (QsAggScanState.gcache_*) */
#define QS_AGG_GCACHE	256

/* One aggregate's accumulator in one group. */
typedef struct QsAggAcc
{
	int64		n;				/* rows (count(*)) or non-NULL values */
	uint64		isum;			/* int2/int4 sums: wrap as int8 does there */
#ifdef HAVE_INT128
	int128		bigsum;			/* int8 sums */
#endif
	float4		f4;				/* sum(float4) */
	float8		f8;				/* sum(float8) */
	Datum		m;				/* min/max so far (n > 0) */
#ifdef HAVE_INT128
	/*
	 * sum/avg(numeric): numeric_avg_accum's NumericAggState.  n is its N
	 * (finite values), bigsum its sumX as an integer at display scale
	 * maxscale (the largest input dscale, which is sumX's: add_var's result
	 * scale is the larger one); ovf, when the int128 would overflow, the
	 * rest of sumX as a numeric Datum (aggcxt) summed by numeric_add.
	 */
	bool		seen;			/* a row reached it: the state exists */
	int32		maxscale;
	int64		maxcount;
	int64		nan;
	int64		pinf;
	int64		ninf;
	Datum		ovf;
#endif
} QsAggAcc;

/*
 * Parallel scans: the workers' EXPLAIN ANALYZE counters, added up in the
 * node's DSM segment after the column AM's parallel scan state.  A worker
 * adds its own when it has accumulated (before it returns a row, so before
 * its tuple queue detaches); the leader adds the totals to its own when it
 * shuts its node down.
 */
typedef struct QsAggShared
{
	pg_atomic_uint64 blocks_read;
	pg_atomic_uint64 skipped_minmax;
	pg_atomic_uint64 skipped_dict;
	pg_atomic_uint64 binary_searches;
	pg_atomic_uint64 probes;
	pg_atomic_uint64 header_blocks;
} QsAggShared;

typedef struct QsAggScanState
{
	CustomScanState css;
	Relation	rel;
	Index		relid;			/* the quals' varno */

	int			nquals;
	QsQual	  **quals;
	MemoryContext argcxt;

	int			natts;			/* output columns */
	int			ngroup;
	int		   *gpos;			/* ngroup: output column */
	int		   *gcol;			/* ngroup: table column (attno - 1) */
	int		   *gwidth;			/* ngroup: typlen (-1: text, by its id) */
	bool	   *gtrim;			/* ngroup: char(n), by its id without
								 * trailing spaces */
	int		   *gslot;			/* ngroup: index into cols[] */
	int			naggs;
	int		   *apos;			/* naggs: output column */
	QsAggSpec  *aggs;
	int		   *aslot;			/* naggs: index into cols[] of the arg */

	/* the columns read per row: distinct grouping and argument columns */
	int			ncols;
	int		   *cols;			/* attno - 1 */
	int		   *colwidth;		/* integer-like by-value columns: bytes, else 0 */
#ifdef HAVE_INT128
	bool	   *colisnum;		/* numeric columns: read as QsNum */
	QsNum	  **colnum;			/* [ncols][QS_COLPUSH_CHUNK] */
	bool	   *coldatums;		/* colvals holds the numeric column's Datums */
	QsNum	  **aconst;			/* naggs: each numeric step's constant */
	MemoryContext numcxt;		/* numeric Datums of one call of acc_numeric */
#endif
	Datum	  **colvals;		/* [ncols][QS_COLPUSH_CHUNK] */
	/*
	 * Text and char(n) grouping columns stored as a dictionary: the chunk's
	 * rows as their key ids (colids, when colhasids), from the block's
	 * dictionary mapped to ids once per opened block (dictids: -1 until a
	 * code is first seen; dictids_gen the push.block_gen it is for).
	 */
	bool	   *colkey;			/* a text-like grouping column */
	bool	   *colkeytrim;		/* ... of type char(n) */
	bool	   *colhasids;
	int64	  **colids;			/* [ncols][QS_COLPUSH_CHUNK] */
	int64	  **dictids;
	uint32	   *dictids_len;
	uint64	   *dictids_gen;
	uint32	   *codes;			/* QS_COLPUSH_CHUNK */
	bool	  **colnulls;

	/* groups */
	MemoryContext aggcxt;
	QsAggAcc   *single;			/* no GROUP BY */
	HTAB	   *groups;
	HTAB	   *texts;			/* text keys: value -> id */
	HTAB	  **bptexts;		/* ncols: a char(n) key column's values less
								 * trailing spaces -> id; one table per column,
								 * since char(1) 'x' and char(3) 'x  ' are
								 * equal so but print differently */
	Datum	   *textvals;		/* id -> value */
	int64		ntexts;
	int64		textcap;
	Size		keysize;
	char	   *key;			/* scratch key */

	QsAggAcc  **gacc;			/* QS_COLPUSH_CHUNK: each row's group (acc_rows) */
	bool	   *folded;			/* naggs: accumulated for this chunk already
								 * (fold_ints, count(*) without GROUP BY) */
	/*
	 * Recently used groups, in front of the hash table: a key's slot is a
	 * mix of its words; an entry's accumulators stay where dynahash put
	 * them (entries never move), so the cache holds pointers into it.
	 * Emptied whenever the groups are (reset_groups).
	 */
	char	   *gcache_keys;	/* QS_AGG_GCACHE keys of keysize bytes */
	QsAggAcc  **gcache_accs;	/* QS_AGG_GCACHE: NULL = empty slot */

	/* scan */
	bool		done;			/* accumulated; emitting */
	HASH_SEQ_STATUS iter;
	bool		iterating;		/* iter is open */
	bool		emitted_single;
	TableScanDesc colscan;
	TupleTableSlot *dslot;		/* delta rows */
	QsColPush	push;
	OffsetNumber *sel;
	ParallelTableScanDesc pscan;
	QsAggShared *shared;		/* in DSM, after pscan */
	QsParRanges *ranges;		/* in DSM, after shared (parrange.c) */
	QsParRangeMine pr;			/* this participant's slot */
	uint64		header_blocks;	/* EXPLAIN ANALYZE */
} QsAggScanState;

static void agg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *agg_exec(CustomScanState *node);
static void agg_end(CustomScanState *node);
static void agg_rescan(CustomScanState *node);
static Size agg_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void agg_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void agg_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void agg_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate);
static void agg_shutdown(CustomScanState *node);
static void agg_explain(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomExecMethods qs_agg_exec_methods = {
	.CustomName = QS_SCAN_NAME,
	.BeginCustomScan = agg_begin,
	.ExecCustomScan = agg_exec,
	.EndCustomScan = agg_end,
	.ReScanCustomScan = agg_rescan,
	.EstimateDSMCustomScan = agg_estimate_dsm,
	.InitializeDSMCustomScan = agg_init_dsm,
	.ReInitializeDSMCustomScan = agg_reinit_dsm,
	.InitializeWorkerCustomScan = agg_init_worker,
	.ShutdownCustomScan = agg_shutdown,
	.ExplainCustomScan = agg_explain,
};

Node *
qs_aggscan_create_state(CustomScan *cscan)
{
	QsAggScanState *st = (QsAggScanState *) newNode(sizeof(QsAggScanState),
													T_CustomScanState);

	st->css.methods = &qs_agg_exec_methods;
	return (Node *) st;
}

static inline Datum
int_datum(int64 v, int width)
{
	switch (width)
	{
		case 2:
			return Int16GetDatum((int16) v);
		case 4:
			return Int32GetDatum((int32) v);
		default:
			return Int64GetDatum(v);
	}
}

#ifdef HAVE_INT128
/* powers of ten 0 .. QS_NUM_MAX_SCALE (agg_begin), here to be inlined */
static int128 num_pow10[QS_NUM_MAX_SCALE + 1];

/* A numeric Datum as an exact scaled integer (qs_numeric_decode). */
static void
num_decode_datum(Datum d, QsNum *x)
{
	struct varlena *t = PG_DETOAST_DATUM_PACKED(d);

	qs_numeric_decode((const uint8 *) VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), x);
	if ((Pointer) t != DatumGetPointer(d))
		pfree(t);
}
#endif

/* index of table column c in st->cols, added if new */
static int
col_slot(QsAggScanState *st, int c)
{
	for (int i = 0; i < st->ncols; i++)
		if (st->cols[i] == c)
			return i;
	st->cols[st->ncols] = c;
	return st->ncols++;
}

static void
agg_begin(CustomScanState *node, EState *estate, int eflags)
{
	QsAggScanState *st = (QsAggScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *quals = linitial(cscan->custom_private);
	ListCell   *lc;
	int			i;

	st->relid = (Index) intVal(lsecond(cscan->custom_private));
	st->rel = qs_exec_rt_relation(estate, bms_singleton_member(cscan->custom_relids));
	if (!qs_is_column_rel(st->rel))
		elog(ERROR, "QuickstepScan: aggregates pushed into \"%s\", not a column table",
			 RelationGetRelationName(st->rel));

	st->nquals = list_length(quals);
	st->quals = palloc(sizeof(QsQual *) * Max(st->nquals, 1));
	i = 0;
	foreach(lc, quals)
		st->quals[i++] = qs_qual_compile(lfirst(lc), st->relid, &node->ss.ps);
	st->argcxt = AllocSetContextCreate(estate->es_query_cxt, "QuickstepScan values",
									   ALLOCSET_SMALL_SIZES);

	st->natts = list_length(cscan->custom_scan_tlist);
	st->gpos = palloc(sizeof(int) * st->natts);
	st->gcol = palloc(sizeof(int) * st->natts);
	st->gwidth = palloc(sizeof(int) * st->natts);
	st->gtrim = palloc0(sizeof(bool) * st->natts);
	st->gslot = palloc(sizeof(int) * st->natts);
	st->apos = palloc(sizeof(int) * st->natts);
	st->aggs = palloc(sizeof(QsAggSpec) * st->natts);
	st->aslot = palloc(sizeof(int) * st->natts);
	/* a numeric aggregate's argument may read up to QS_NUM_MAX_STEPS columns */
	st->cols = palloc(sizeof(int) * st->natts * QS_NUM_MAX_STEPS);
	i = 0;
	foreach(lc, cscan->custom_scan_tlist)
	{
		Expr	   *expr = lfirst_node(TargetEntry, lc)->expr;

		if (IsA(expr, Var))
		{
			Var		   *var = (Var *) expr;

			st->gpos[st->ngroup] = i;
			st->gcol[st->ngroup] = var->varattno - 1;
			st->gwidth[st->ngroup] = get_typlen(var->vartype);
			st->gtrim[st->ngroup] = var->vartype == BPCHAROID;
			st->gslot[st->ngroup] = col_slot(st, var->varattno - 1);
			st->ngroup++;
		}
		else
		{
			QsAggSpec  *spec = &st->aggs[st->naggs];

			/* setrefs moved the Var to the table's final range table index */
			if (!IsA(expr, Aggref) ||
				!qs_agg_classify((Aggref *) expr,
								 bms_singleton_member(cscan->custom_relids), spec))
				elog(ERROR, "QuickstepScan: output column %d is not a pushed aggregate",
					 i + 1);
			st->apos[st->naggs] = i;
			st->aslot[st->naggs] = spec->attno > 0 ? col_slot(st, spec->attno - 1) : -1;
			/* numeric: each column of the argument has its slot */
			if (spec->in == QS_AGGIN_NUMERIC)
			{
				st->aslot[st->naggs] = -1;
				for (int k = 0; k < spec->nsteps; k++)
					if (spec->steps[k].op == QS_NUMOP_COL)
						spec->steps[k].slot = col_slot(st, spec->steps[k].attno - 1);
			}
			st->naggs++;
		}
		i++;
	}
	st->colwidth = palloc0(sizeof(int) * Max(st->ncols, 1));
	for (i = 0; i < st->ncols; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(st->rel), st->cols[i]);

		st->colwidth[i] = qs_agg_int_width(att->atttypid);
	}
#ifdef HAVE_INT128
	st->colisnum = palloc0(sizeof(bool) * Max(st->ncols, 1));
	st->colnum = palloc0(sizeof(QsNum *) * Max(st->ncols, 1));
	st->coldatums = palloc0(sizeof(bool) * Max(st->ncols, 1));
	for (i = 0; i < st->ncols; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(st->rel), st->cols[i]);

		st->colisnum[i] = att->atttypid == NUMERICOID;
		if (st->colisnum[i])
			st->colnum[i] = palloc(sizeof(QsNum) * QS_COLPUSH_CHUNK);
	}
	for (i = 0; i <= QS_NUM_MAX_SCALE; i++)
		num_pow10[i] = qs_int128_pow10(i);
	st->aconst = palloc0(sizeof(QsNum *) * Max(st->naggs, 1));
	for (i = 0; i < st->naggs; i++)
	{
		QsAggSpec  *a = &st->aggs[i];

		if (a->in != QS_AGGIN_NUMERIC)
			continue;
		st->aconst[i] = palloc0(sizeof(QsNum) * a->nsteps);
		for (int k = 0; k < a->nsteps; k++)
			if (a->steps[k].op == QS_NUMOP_CONST)
				num_decode_datum(a->steps[k].cnst->constvalue, &st->aconst[i][k]);
	}
	st->numcxt = AllocSetContextCreate(estate->es_query_cxt, "QuickstepScan numerics",
									   ALLOCSET_DEFAULT_SIZES);
#endif
	st->colkey = palloc0(sizeof(bool) * Max(st->ncols, 1));
	st->colkeytrim = palloc0(sizeof(bool) * Max(st->ncols, 1));
	st->colhasids = palloc0(sizeof(bool) * Max(st->ncols, 1));
	st->colids = palloc0(sizeof(int64 *) * Max(st->ncols, 1));
	st->dictids = palloc0(sizeof(int64 *) * Max(st->ncols, 1));
	st->dictids_len = palloc0(sizeof(uint32) * Max(st->ncols, 1));
	st->dictids_gen = palloc0(sizeof(uint64) * Max(st->ncols, 1));
	st->codes = palloc(sizeof(uint32) * QS_COLPUSH_CHUNK);
	for (i = 0; i < st->ngroup; i++)
	{
		int			c = st->gslot[i];

		if (st->gwidth[i] >= 0)
			continue;
		st->colkey[c] = true;
		st->colkeytrim[c] = st->gtrim[i];
		if (st->colids[c] == NULL)
			st->colids[c] = palloc(sizeof(int64) * QS_COLPUSH_CHUNK);
	}
	st->colvals = palloc(sizeof(Datum *) * Max(st->ncols, 1));
	st->colnulls = palloc(sizeof(bool *) * Max(st->ncols, 1));
	for (i = 0; i < st->ncols; i++)
	{
		st->colvals[i] = palloc(sizeof(Datum) * QS_COLPUSH_CHUNK);
		st->colnulls[i] = palloc(sizeof(bool) * QS_COLPUSH_CHUNK);
	}
	st->sel = palloc(sizeof(OffsetNumber) * QS_COLPUSH_CHUNK);
	st->aggcxt = AllocSetContextCreate(estate->es_query_cxt, "QuickstepScan groups",
									   ALLOCSET_DEFAULT_SIZES);
	st->folded = palloc0(sizeof(bool) * Max(st->naggs, 1));
	st->gacc = palloc(sizeof(QsAggAcc *) * QS_COLPUSH_CHUNK);
	st->keysize = MAXALIGN(Max(st->ngroup, 1) * (sizeof(Datum) + 1));
	st->key = palloc0(st->keysize);
	st->dslot = table_slot_create(st->rel, NULL);
}

/* ------------------------------------------------------------------------
 * Accumulating
 * ------------------------------------------------------------------------
 */

static void
reset_groups(QsAggScanState *st)
{
	MemoryContextReset(st->aggcxt);
	st->groups = NULL;
	st->single = NULL;
	st->gcache_keys = NULL;
	st->gcache_accs = NULL;
	st->texts = NULL;
	st->bptexts = NULL;
	/* the ids the dictionaries were mapped to are gone */
	if (st->dictids_gen)
		memset(st->dictids_gen, 0, sizeof(uint64) * Max(st->ncols, 1));
	st->textvals = NULL;		/* it was in the context just reset */
	st->ntexts = st->textcap = 0;
	if (st->ngroup == 0)
		st->single = MemoryContextAllocZero(st->aggcxt,
											sizeof(QsAggAcc) * Max(st->naggs, 1));
	else
	{
		HASHCTL		ctl;

		ctl.keysize = st->keysize;
		ctl.entrysize = st->keysize + sizeof(QsAggAcc) * Max(st->naggs, 1);
		ctl.hcxt = st->aggcxt;
		st->groups = hash_create("QuickstepScan groups", 64, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		st->gcache_keys = MemoryContextAlloc(st->aggcxt,
											 st->keysize * QS_AGG_GCACHE);
		st->gcache_accs = MemoryContextAllocZero(st->aggcxt,
												 sizeof(QsAggAcc *) * QS_AGG_GCACHE);
	}
}

/*
 * Text grouping keys: each distinct value gets an id, the key's image.
 * Equal under a deterministic collation exactly when the bytes are
 * (aggplan.c allows no other), so the table hashes and compares bytes.
 */
typedef struct TextKey
{
	text	   *value;			/* the key: a pointer to a detoasted copy */
	int64		id;
} TextKey;

static uint32
textkey_hash(const void *key, Size keysize)
{
	const text *t = *(text *const *) key;

	return DatumGetUInt32(hash_any((const unsigned char *) VARDATA_ANY(t),
								   VARSIZE_ANY_EXHDR(t)));
}

static int
textkey_match(const void *key1, const void *key2, Size keysize)
{
	const text *a = *(text *const *) key1;
	const text *b = *(text *const *) key2;
	Size		len = VARSIZE_ANY_EXHDR(a);

	return len == VARSIZE_ANY_EXHDR(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), len) == 0 ? 0 : 1;
}

/*
 * char(n) keys: bpchareq (and hashbpchar) under a deterministic collation
 * compare the bytes less trailing spaces (bcTruelen), so the table hashes
 * and compares those.  With the typmod aggplan.c requires, every value is
 * padded to n characters (bpchar()), so values equal this way are the same
 * bytes and the first one seen shows the group as any other would.
 */
static inline Size
bpkey_len(const text *t)
{
	/* varchar.c's own: the length without trailing spaces */
	return bpchartruelen((char *) VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

static uint32
bpkey_hash(const void *key, Size keysize)
{
	const text *t = *(text *const *) key;

	return DatumGetUInt32(hash_any((const unsigned char *) VARDATA_ANY(t),
								   bpkey_len(t)));
}

static int
bpkey_match(const void *key1, const void *key2, Size keysize)
{
	const text *a = *(text *const *) key1;
	const text *b = *(text *const *) key2;
	Size		len = bpkey_len(a);

	return len == bpkey_len(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), len) == 0 ? 0 : 1;
}

/*
 * The id of text or char(n) key d of column slot c.  Text keys of every
 * column share one table (equal bytes print alike); char(n) keys, grouped
 * by their bytes less trailing spaces, have one per column (a value
 * stands for its group in the column it came from).
 */
static int64
text_id(QsAggScanState *st, Datum d, int c)
{
	text	   *t = (text *) PG_DETOAST_DATUM_PACKED(d);
	TextKey    *e;
	bool		found;
	bool		trim = st->colkeytrim[c];
	HTAB	  **tab;

	if (trim && st->bptexts == NULL)
		st->bptexts = MemoryContextAllocZero(st->aggcxt,
											 sizeof(HTAB *) * Max(st->ncols, 1));
	tab = trim ? &st->bptexts[c] : &st->texts;

	if (*tab == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(text *);
		ctl.entrysize = sizeof(TextKey);
		ctl.hash = trim ? bpkey_hash : textkey_hash;
		ctl.match = trim ? bpkey_match : textkey_match;
		ctl.hcxt = st->aggcxt;
		*tab = hash_create("QuickstepScan text keys", 64, &ctl,
						   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
	}
	e = hash_search(*tab, &t, HASH_ENTER, &found);
	if (!found)
	{
		/* the entry keeps a copy that lives as long as the groups */
		e->value = (text *) MemoryContextAlloc(st->aggcxt, VARSIZE_ANY(t));
		memcpy(e->value, t, VARSIZE_ANY(t));
		if (st->ntexts == st->textcap)
		{
			st->textcap = Max(64, st->textcap * 2);
			st->textvals = st->textvals == NULL ?
				MemoryContextAlloc(st->aggcxt, sizeof(Datum) * st->textcap) :
				repalloc(st->textvals, sizeof(Datum) * st->textcap);
		}
		e->id = st->ntexts;
		st->textvals[st->ntexts++] = PointerGetDatum(e->value);
	}
	return e->id;
}

/*
 * Text or char(n) grouping column slot c of the chunk's k selected rows as
 * key ids (st->colids, st->colnulls), if the open block stores it as a
 * dictionary: each code's id found once per opened block (text_id of the
 * dictionary's value), then every row takes its code's.  False, nothing
 * read, for another encoding (the rows' Datums then, as before).
 */
static bool
key_ids(QsAggScanState *st, ColScanDesc s, int c, uint32 start, int k)
{
	const QsDict *dict;
	int64	   *ids;

	if (!qs_colpush_codes(&st->push, s, st->cols[c], start, st->sel, k,
						  st->codes, &dict))
		return false;
	if (st->dictids_gen[c] != st->push.block_gen)
	{
		if (st->dictids_len[c] < Max(dict->nvalues, 1))
		{
			if (st->dictids[c] != NULL)
				pfree(st->dictids[c]);
			st->dictids_len[c] = Max(dict->nvalues, 1);
			st->dictids[c] = MemoryContextAlloc(st->css.ss.ps.state->es_query_cxt,
												sizeof(int64) * st->dictids_len[c]);
		}
		for (uint32 i = 0; i < dict->nvalues; i++)
			st->dictids[c][i] = -1;
		st->dictids_gen[c] = st->push.block_gen;
	}
	ids = st->dictids[c];
	for (int i = 0; i < k; i++)
	{
		uint32		code = st->codes[i];

		st->colnulls[c][i] = st->push.nulls[i];
		if (st->colnulls[c][i])
			continue;
		if (ids[code] < 0)
		{
			const uint8 *v;
			size_t		len;
			Datum		d;

			qs_dict_value(dict, code, &v, &len);
			d = qs_colattr_datum(&s->attrs[st->cols[c]], v, len,
								 st->push.chunkcxt);
			ids[code] = text_id(st, d, c);
		}
		st->colids[c][i] = ids[code];
	}
	st->colhasids[c] = true;
	return true;
}

/* The accumulators of the group whose keys are vals[]/nulls[] at row i. */
static QsAggAcc *
group_accs(QsAggScanState *st, Datum *const *vals, bool *const *nulls, int i)
{
	char	   *k = st->key;
	bool		found;
	char	   *entry;
	char	   *ckey;
	uint64		h = 0;
	int			slot;

	if (st->ngroup == 0)
		return st->single;
	if (st->ngroup == 1 && st->gwidth[0] > 0)
	{
		/* one integer-like key (the common GROUP BY): compared as such */
		int			c = st->gslot[0];
		bool		isnull = nulls[c][i];
		int64		v = isnull ? 0 : qs_datum_to_int64(vals[c][i], st->gwidth[0]);

		slot = (int) (((((uint64) v) ^ ((uint64) isnull << 63)) *
					   UINT64CONST(0x9E3779B97F4A7C15)) >> 56);
		ckey = st->gcache_keys + (Size) slot * st->keysize;
		if (st->gcache_accs[slot] != NULL && ckey[sizeof(Datum)] == isnull &&
			memcmp(ckey, &v, sizeof(int64)) == 0)
			return st->gcache_accs[slot];
	}
	memset(k, 0, st->keysize);
	for (int g = 0; g < st->ngroup; g++)
	{
		int			c = st->gslot[g];
		bool		isnull = nulls[c][i];
		int64		v = isnull ? 0 :
			st->gwidth[g] < 0 ?
			(st->colhasids[c] ? st->colids[c][i] :
			 text_id(st, vals[c][i], c)) :
			qs_datum_to_int64(vals[c][i], st->gwidth[g]);

		memcpy(k + g * sizeof(Datum), &v, sizeof(int64));
		k[st->ngroup * sizeof(Datum) + g] = isnull;
		h = (h ^ (uint64) v ^ ((uint64) isnull << 63)) * UINT64CONST(0x9E3779B97F4A7C15);
	}
	slot = (int) (h >> 56) % QS_AGG_GCACHE;
	ckey = st->gcache_keys + (Size) slot * st->keysize;
	if (st->gcache_accs[slot] != NULL && memcmp(ckey, k, st->keysize) == 0)
		return st->gcache_accs[slot];
	entry = hash_search(st->groups, k, HASH_ENTER, &found);
	if (!found)
		memset(entry + st->keysize, 0, sizeof(QsAggAcc) * Max(st->naggs, 1));
	memcpy(ckey, k, st->keysize);
	st->gcache_accs[slot] = (QsAggAcc *) (entry + st->keysize);
	return st->gcache_accs[slot];
}

/* float4pl, float8pl: PostgreSQL's overflow check included */
static inline void
acc_value(const QsAggSpec *a, QsAggAcc *acc, Datum v)
{
	switch (a->op)
	{
		case QS_AGG_COUNT:
			break;
		case QS_AGG_SUM:
		case QS_AGG_AVG:
			if (a->in == QS_AGGIN_FLOAT4)
				acc->f4 = acc->n == 0 ? DatumGetFloat4(v) :
					float4_pl(acc->f4, DatumGetFloat4(v));
			else if (a->in == QS_AGGIN_FLOAT8)
				acc->f8 = acc->n == 0 ? DatumGetFloat8(v) :
					float8_pl(acc->f8, DatumGetFloat8(v));
#ifdef HAVE_INT128
			else if (a->width == 8)
				acc->bigsum += DatumGetInt64(v);
#endif
			else
				acc->isum += (uint64) qs_datum_to_int64(v, a->width);
			break;
		case QS_AGG_MIN:
		case QS_AGG_MAX:
			if (acc->n == 0)
				acc->m = v;
			else if (a->in == QS_AGGIN_INT)
			{
				int64		x = qs_datum_to_int64(v, a->width);
				int64		m = qs_datum_to_int64(acc->m, a->width);

				if (a->op == QS_AGG_MIN ? x < m : x > m)
					acc->m = v;
			}
			else
			{
				/*
				 * float8smaller(m, x) is m < x ? m : x (NaN larger than every
				 * number): of equal values (0 and -0) the later one wins
				 */
				float8		x = a->in == QS_AGGIN_FLOAT4 ? DatumGetFloat4(v) : DatumGetFloat8(v);
				float8		m = a->in == QS_AGGIN_FLOAT4 ? DatumGetFloat4(acc->m) : DatumGetFloat8(acc->m);

				if (!(a->op == QS_AGG_MIN ? float8_lt(m, x) : float8_gt(m, x)))
					acc->m = v;
			}
			break;
		case QS_AGG_COUNT_STAR:
			break;
	}
	acc->n++;
}

/* a by-value integer Datum of width bytes (qs_datum_to_int64, inline) */
static inline int64
int_of(Datum d, int width)
{
	return width == 8 ? DatumGetInt64(d) :
		width == 4 ? (int64) DatumGetInt32(d) : (int64) DatumGetInt16(d);
}

/*
 * One integer value x into an integer aggregate's accumulator, as
 * acc_value does with its Datum: sums wrap as int8 does (int2/int4) or in
 * 128 bits (int8), min/max keep the first of equal values, n counts it.
 */
static inline void
acc_int(const QsAggSpec *a, QsAggAcc *acc, int64 x)
{
	switch (a->op)
	{
		case QS_AGG_SUM:
		case QS_AGG_AVG:
#ifdef HAVE_INT128
			if (a->width == 8)
				acc->bigsum += x;
			else
#endif
				acc->isum += (uint64) x;
			break;
		case QS_AGG_MIN:
			if (acc->n == 0 || x < int_of(acc->m, a->width))
				acc->m = int_datum(x, a->width);
			break;
		case QS_AGG_MAX:
			if (acc->n == 0 || x > int_of(acc->m, a->width))
				acc->m = int_datum(x, a->width);
			break;
		default:
			break;
	}
	acc->n++;
}

/*
 * Without GROUP BY: every integer aggregate (count, sum, avg, min, max)
 * of column slot c over the k integers st->push.ints/nulls holds,
 * accumulated a column at a time into st->single, exactly as acc_value
 * would a row at a time (the value as its type reads it; min/max keep
 * the first of equal values, as acc_value's strict comparison does).
 * Each aggregate done is marked in st->folded for acc_rows to skip.  True
 * when no aggregate of the column is left for acc_rows.
 */
static bool
fold_ints(QsAggScanState *st, int c, int k)
{
	const int64 *ints = st->push.ints;
	const bool *nulls = st->push.nulls;
	bool		all = true;

	for (int j = 0; j < st->naggs; j++)
	{
		const QsAggSpec *a = &st->aggs[j];
		QsAggAcc   *acc = &st->single[j];

		if (a->op == QS_AGG_COUNT_STAR || st->aslot[j] != c)
			continue;
		/* count(col) is of any type: here an integer column's non-NULLs */
		if (a->in != QS_AGGIN_INT && a->op != QS_AGG_COUNT)
		{
			all = false;
			continue;
		}
		st->folded[j] = true;
		for (int i = 0; i < k; i++)
			if (!nulls[i])
				acc_int(a, acc,
						a->width == 8 ? ints[i] :
						a->width == 4 ? (int64) (int32) ints[i] :
						(int64) (int16) ints[i]);
	}
	return all;
}

#ifdef HAVE_INT128
/* ------------------------------------------------------------------------
 * sum/avg(numeric): numeric_avg_accum over exact scaled integers
 * ------------------------------------------------------------------------
 */

/*
 * x as a numeric Datum (CurrentMemoryContext): its digits and display
 * scale written out and read by numeric_in, which keeps every digit after
 * the point as the display scale ("0.00": dscale 2), so the value and
 * dscale are exactly x's.
 */
static Datum
num_datum(const QsNum *x)
{
	char	   *buf;
	char	   *p;
	char		digits[48];		/* an int128 has at most 39 digits */
	uint128		u;
	int			nd = 0;

	switch (x->kind)
	{
		case QS_NUM_NAN:
			return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"),
									   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		case QS_NUM_PINF:
			return DirectFunctionCall3(numeric_in, CStringGetDatum("Infinity"),
									   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		case QS_NUM_NINF:
			return DirectFunctionCall3(numeric_in, CStringGetDatum("-Infinity"),
									   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		default:
			break;
	}
	Assert(x->kind == QS_NUM_FINITE);
	u = x->v < 0 ? -(uint128) x->v : (uint128) x->v;
	do
	{
		digits[nd++] = (char) ('0' + (int) (u % 10));
		u /= 10;
	} while (u > 0);
	/* least significant first; at least one digit before the point */
	p = buf = palloc(x->dscale + sizeof(digits) + 4);
	if (x->v < 0)
		*p++ = '-';
	for (int i = Max(nd - 1, x->dscale); i >= 0; i--)
	{
		*p++ = i < nd ? digits[i] : '0';
		if (i == x->dscale && x->dscale > 0)
			*p++ = '.';
	}
	*p = '\0';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * int128 arithmetic with overflow checks, the common case first: operands
 * that fit an int64 can neither overflow a product (|a * b| <= 2^126) nor
 * a sum, and GCC's checked int128 multiplication is a long branchy
 * sequence (a third of Q1's scan time before this).
 */
static inline bool
i128_mul(int128 a, int128 b, int128 *r)
{
	if (a == (int128) (int64) a && b == (int128) (int64) b)
	{
		*r = a * b;
		return true;
	}
	return !__builtin_mul_overflow(a, b, r);
}

static inline bool
i128_add(int128 a, int128 b, int128 *r)
{
	if (a == (int128) (int64) a && b == (int128) (int64) b)
	{
		*r = a + b;
		return true;
	}
	return !__builtin_add_overflow(a, b, r);
}

static inline bool
i128_sub(int128 a, int128 b, int128 *r)
{
	if (a == (int128) (int64) a && b == (int128) (int64) b)
	{
		*r = a - b;
		return true;
	}
	return !__builtin_sub_overflow(a, b, r);
}

/* x and y to the larger of their scales: false on overflow */
static inline bool
num_align(QsNum *x, QsNum *y)
{
	int			d = Max(x->dscale, y->dscale);

	if ((x->dscale < d && !i128_mul(x->v, num_pow10[d - x->dscale], &x->v)) ||
		(y->dscale < d && !i128_mul(y->v, num_pow10[d - y->dscale], &y->v)))
		return false;
	x->dscale = y->dscale = d;
	return true;
}

/*
 * Step k's value for row i as a numeric Datum: the column's own Datum when
 * the chunk has them (a QS_NUM_WIDE value), else the exact value rebuilt.
 */
static Datum
num_step_datum(QsAggScanState *st, int j, int k, int i)
{
	const QsNumStep *step = &st->aggs[j].steps[k];

	if (step->op == QS_NUMOP_CONST)
		return step->cnst->constvalue;
	if (st->coldatums[step->slot])
		return st->colvals[step->slot][i];
	return num_datum(&st->colnum[step->slot][i]);
}

/*
 * Row i's argument of numeric aggregate j: false if NULL (numeric_add,
 * numeric_sub and numeric_mul are strict).  *x the value; when x->kind is
 * QS_NUM_WIDE, *d is it as a numeric Datum (st->numcxt or the chunk's).
 *
 * In scaled integers where it can: numeric_add and numeric_sub's result
 * has the larger display scale of the two (add_var, sub_var: rscale =
 * Max(dscale1, dscale2)), numeric_mul's exactly the sum (mul_var with
 * rscale = dscale1 + dscale2, rounded only beyond NUMERIC_DSCALE_MAX), so
 * the integers aligned to those scales give the same value and dscale.  A
 * NaN or infinite input, an int128 overflow or a scale above
 * QS_NUM_MAX_SCALE: the row through PostgreSQL's own numeric_add, _sub and
 * _mul (their NaN and infinity rules included), its result decoded.
 */
static bool
num_eval(QsAggScanState *st, int j, int i, QsNum *x, Datum *d)
{
	const QsAggSpec *a = &st->aggs[j];
	QsNum		stack[QS_NUM_MAX_STEPS];
	int			sp = 0;
	bool		slow = false;

	for (int k = 0; k < a->nsteps; k++)
		if (a->steps[k].op == QS_NUMOP_COL && st->colnulls[a->steps[k].slot][i])
			return false;
	if (a->nsteps == 1)
	{
		int			c = a->steps[0].slot;

		*x = st->colnum[c][i];
		if (x->kind == QS_NUM_WIDE)
			*d = st->colvals[c][i];
		return true;
	}
	for (int k = 0; k < a->nsteps && !slow; k++)
	{
		const QsNumStep *step = &a->steps[k];
		QsNum	   *l,
				   *r;

		switch (step->op)
		{
			case QS_NUMOP_COL:
				stack[sp] = st->colnum[step->slot][i];
				slow = stack[sp++].kind != QS_NUM_FINITE;
				break;
			case QS_NUMOP_CONST:
				stack[sp] = st->aconst[j][k];
				slow = stack[sp++].kind != QS_NUM_FINITE;
				break;
			case QS_NUMOP_ADD:
			case QS_NUMOP_SUB:
				l = &stack[sp - 2];
				r = &stack[sp - 1];
				sp--;
				slow = !num_align(l, r) ||
					!(step->op == QS_NUMOP_ADD ?
					  i128_add(l->v, r->v, &l->v) :
					  i128_sub(l->v, r->v, &l->v));
				break;
			case QS_NUMOP_MUL:
				l = &stack[sp - 2];
				r = &stack[sp - 1];
				sp--;
				l->dscale += r->dscale;
				slow = l->dscale > QS_NUM_MAX_SCALE ||
					!i128_mul(l->v, r->v, &l->v);
				break;
		}
	}
	if (!slow)
	{
		*x = stack[0];
		return true;
	}
	else
	{
		Datum		dstack[QS_NUM_MAX_STEPS];
		MemoryContext old = MemoryContextSwitchTo(st->numcxt);

		sp = 0;
		for (int k = 0; k < a->nsteps; k++)
		{
			switch (a->steps[k].op)
			{
				case QS_NUMOP_COL:
				case QS_NUMOP_CONST:
					dstack[sp++] = num_step_datum(st, j, k, i);
					break;
				case QS_NUMOP_ADD:
					dstack[sp - 2] = DirectFunctionCall2(numeric_add, dstack[sp - 2],
														 dstack[sp - 1]);
					sp--;
					break;
				case QS_NUMOP_SUB:
					dstack[sp - 2] = DirectFunctionCall2(numeric_sub, dstack[sp - 2],
														 dstack[sp - 1]);
					sp--;
					break;
				case QS_NUMOP_MUL:
					dstack[sp - 2] = DirectFunctionCall2(numeric_mul, dstack[sp - 2],
														 dstack[sp - 1]);
					sp--;
					break;
			}
		}
		*d = dstack[0];
		num_decode_datum(*d, x);
		MemoryContextSwitchTo(old);
		return true;
	}
}

/* The numeric Datum v into the accumulator's overflow part (numeric_add). */
static void
num_spill(QsAggScanState *st, QsAggAcc *acc, Datum v)
{
	MemoryContext old = MemoryContextSwitchTo(st->numcxt);
	Datum		sum = acc->ovf == (Datum) 0 ? v :
		DirectFunctionCall2(numeric_add, acc->ovf, v);

	MemoryContextSwitchTo(st->aggcxt);
	sum = datumCopy(sum, false, -1);
	if (acc->ovf != (Datum) 0)
		pfree(DatumGetPointer(acc->ovf));
	acc->ovf = sum;
	MemoryContextSwitchTo(old);
}

/*
 * do_numeric_accum: NaN and infinities counted apart (N not counted);
 * else N, maxScale and maxScaleCount as it keeps them, and the value added
 * to sumX.  sumX is bigsum at scale maxscale; a value of a larger dscale
 * rescales it first.  What would overflow the int128 goes to the
 * numeric_add'ed part (num_spill): never a wrong sum.
 */
static void
num_accum(QsAggScanState *st, QsAggAcc *acc, const QsNum *x, Datum d)
{
	int128		v;
	int128		sum;

	switch (x->kind)
	{
		case QS_NUM_NAN:
			acc->nan++;
			return;
		case QS_NUM_PINF:
			acc->pinf++;
			return;
		case QS_NUM_NINF:
			acc->ninf++;
			return;
		default:
			break;
	}
	acc->n++;
	if (x->dscale > acc->maxscale)
	{
		if (acc->bigsum != 0)
		{
			v = acc->bigsum;
			if (x->dscale - acc->maxscale > QS_NUM_MAX_SCALE ||
				!i128_mul(v, num_pow10[x->dscale - acc->maxscale], &v))
			{
				QsNum		old = {acc->bigsum, acc->maxscale, QS_NUM_FINITE};
				MemoryContext oldcxt = MemoryContextSwitchTo(st->numcxt);
				Datum		od = num_datum(&old);

				MemoryContextSwitchTo(oldcxt);
				num_spill(st, acc, od);
				v = 0;
			}
			acc->bigsum = v;
		}
		acc->maxscale = x->dscale;
		acc->maxcount = 1;
	}
	else if (x->dscale == acc->maxscale)
		acc->maxcount++;
	if (x->kind == QS_NUM_FINITE)
	{
		v = x->v;
		if (acc->maxscale - x->dscale <= QS_NUM_MAX_SCALE &&
			(acc->maxscale == x->dscale ||
			 i128_mul(v, num_pow10[acc->maxscale - x->dscale], &v)) &&
			i128_add(acc->bigsum, v, &sum))
		{
			acc->bigsum = sum;
			return;
		}
		else
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(st->numcxt);

			d = num_datum(x);
			MemoryContextSwitchTo(oldcxt);
		}
	}
	num_spill(st, acc, d);
}

/* Numeric aggregate j over rows 0..n-1 (their groups in st->gacc). */
static void
acc_numeric(QsAggScanState *st, int j, int n)
{
	QsAggAcc  **gacc = st->gacc;

	MemoryContextReset(st->numcxt);
	for (int i = 0; i < n; i++)
	{
		QsAggAcc   *acc = &gacc[i][j];
		QsNum		x;
		Datum		d = (Datum) 0;

		/* numeric_avg_accum is not strict: a NULL makes the state too */
		acc->seen = true;
		if (num_eval(st, j, i, &x, &d))
			num_accum(st, acc, &x, d);
	}
}
#endif

/*
 * Rows 0..n-1 of st->colvals/colnulls: each row's group found once, then
 * each aggregate over the rows in row order, so that every accumulator
 * sees its values in the order a row-at-a-time pass gives them (float sums
 * alike); integer aggregates in loops of their own (no acc_value per
 * value), others through acc_value.
 */
static void
acc_rows(QsAggScanState *st, int n)
{
	QsAggAcc  **gacc = st->gacc;

	for (int i = 0; i < n; i++)
		gacc[i] = group_accs(st, st->colvals, st->colnulls, i);
	for (int j = 0; j < st->naggs; j++)
	{
		const QsAggSpec *a = &st->aggs[j];
		const Datum *vals;
		const bool *nulls;
		int			w = a->width;

		if (st->folded[j])
			continue;
		if (a->op == QS_AGG_COUNT_STAR)
		{
			for (int i = 0; i < n; i++)
				gacc[i][j].n++;
			continue;
		}
#ifdef HAVE_INT128
		if (a->in == QS_AGGIN_NUMERIC)
		{
			acc_numeric(st, j, n);
			continue;
		}
#endif
		vals = st->colvals[st->aslot[j]];
		nulls = st->colnulls[st->aslot[j]];
		if (a->op == QS_AGG_COUNT)
		{
			for (int i = 0; i < n; i++)
				if (!nulls[i])
					gacc[i][j].n++;
			continue;
		}
		if (a->in != QS_AGGIN_INT)
		{
			for (int i = 0; i < n; i++)
				if (!nulls[i])
					acc_value(a, &gacc[i][j], vals[i]);
			continue;
		}
		for (int i = 0; i < n; i++)
			if (!nulls[i])
				acc_int(a, &gacc[i][j], int_of(vals[i], w));
	}
}

/* Do the pushed quals pass the delta row in the slot? */
static bool
delta_row_passes(QsAggScanState *st, TupleTableSlot *slot)
{
	for (int i = 0; i < st->nquals; i++)
	{
		QsQual	   *q = st->quals[i];
		bool		isnull;
		Datum		v = slot_getattr(slot, q->attno, &isnull);
		OffsetNumber sel = 0;

		if (qs_qual_filter(q, &v, &isnull, &sel, 1) == 0)
			return false;
	}
	return true;
}

/* The delta's rows (this participant's pages of them) under the snapshot. */
static void
acc_delta(QsAggScanState *st)
{
	ColScanDesc s = (ColScanDesc) st->colscan;
	TupleTableSlot *slot = st->dslot;

	/* past the blocks' runs unread, as the AM's sequential scan */
	if (!s->delta_skips_set)
		qs_colscan_delta_skip_runs(s);
	while (qs_scan_getnextslot(s->delta, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		ResetExprContext(st->css.ss.ps.ps_ExprContext);
		if (!delta_row_passes(st, slot))
			continue;
		for (int c = 0; c < st->ncols; c++)
		{
			st->colhasids[c] = false;
			st->colvals[c][0] = slot_getattr(slot, st->cols[c] + 1,
											 &st->colnulls[c][0]);
#ifdef HAVE_INT128
			if (st->colisnum[c])
			{
				MemoryContext old =
					MemoryContextSwitchTo(st->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);

				st->coldatums[c] = true;
				if (!st->colnulls[c][0])
					num_decode_datum(st->colvals[c][0], &st->colnum[c][0]);
				MemoryContextSwitchTo(old);
			}
#endif
		}
		acc_rows(st, 1);
	}
	ExecClearTuple(slot);
}

/* A by-value integer or float of the block header (host order). */
static Datum
header_datum(const uint8 *p, int len)
{
	int16		i2;
	int32		i4;
	int64		i8;

	switch (len)
	{
		case 2:
			memcpy(&i2, p, 2);
			return Int16GetDatum(i2);
		case 4:
			memcpy(&i4, p, 4);
			return Int32GetDatum(i4);
		default:
			memcpy(&i8, p, 8);
			return Int64GetDatum(i8);
	}
}

/*
 * Answer every aggregate from the open block's header, if it can: count(*)
 * from its rows, count(col) from the column's value count, min/max from
 * the header's min/max.  Only for a block whose rows are all the scan's:
 * no qual that the block does not pass whole (qs_colpush_all_pass: its
 * min/max or dictionary say every row passes), no delete map, every row of
 * its image published to the snapshot's version of the block (an open
 * block's later versions add rows the header's min/max and counts
 * include), and no grouping.  A sorted block narrowed by binary search to
 * a run of rows that all pass answers count(*) alone: the run's length.
 * False (nothing accumulated) when some aggregate needs the rows.
 */
static bool
acc_header(QsAggScanState *st, ColScanDesc s)
{
	const QsColBlock *blk = &s->rr.h.blk;
	QsColBlockColDesc d;

	/*
	 * A delete-map root without a page has no entry: every row is as the
	 * directory says (qs_colfilter_all_visible), as without a root.  A
	 * merge or a seal gives blocks a root before any row is deleted.  A
	 * deleter the snapshot sees made its page before the root was read
	 * (the filter's copy).
	 */
	if (!s->filter.no_pages)
		return false;
	if (st->ngroup > 0 ||
		(st->nquals > 0 && !qs_colpush_all_pass(&st->push)) ||
		!IsMVCCSnapshot(s->base.rs_snapshot))
		return false;
	for (int j = 0; j < st->naggs; j++)
	{
		const QsAggSpec *a = &st->aggs[j];

		if (a->op == QS_AGG_COUNT_STAR)
			continue;
		/* a run of the rows (binary search): count(*) only */
		if (s->row != 0 || s->row_end != blk->nrows)
			return false;
		if (a->attno - 1 >= blk->ncols)
			return false;		/* added after the block: its missing value */
		if (a->op == QS_AGG_COUNT)
			continue;
		/*
		 * integers only: of a float column's equal values (0 and -0) the
		 * header holds one, PostgreSQL's min/max the last one read
		 */
		if ((a->op != QS_AGG_MIN && a->op != QS_AGG_MAX) || a->in != QS_AGGIN_INT)
			return false;
		qs_colblock_coldesc(blk, a->attno - 1, &d);
		if (d.nvalues > 0 &&
			(d.min == NULL || d.min_len != (uint32) a->width ||
			 d.max_len != (uint32) a->width))
			return false;
	}
	for (int j = 0; j < st->naggs; j++)
	{
		const QsAggSpec *a = &st->aggs[j];
		QsAggAcc   *acc = &st->single[j];

		if (a->op == QS_AGG_COUNT_STAR)
		{
			acc->n += s->row_end - s->row;
			continue;
		}
		qs_colblock_coldesc(blk, a->attno - 1, &d);
		if (a->op == QS_AGG_COUNT)
			acc->n += d.nvalues;
		else if (d.nvalues > 0)
			acc_value(a, acc, header_datum(a->op == QS_AGG_MIN ? d.min : d.max,
										   a->width));
	}
	return true;
}

/* The main blocks of the scan's directory view this participant claims. */
static void
acc_main(QsAggScanState *st)
{
	ColScanDesc s = (ColScanDesc) st->colscan;
	Relation	rel = st->rel;
	uint32		next_idx = 0;

	qs_colscan_init_main(s);
	qs_colpush_begin(&st->push, s, st->quals, st->nquals,
					 st->css.ss.ps.state->es_query_cxt);
	for (;;)
	{
		/* parallel scans claim blocks from the AM's shared counter */
		uint32		idx = s->pnext ? pg_atomic_fetch_add_u32(s->pnext, 1) : next_idx++;

		bool		ranged = s->pnext != NULL && st->ranges != NULL;
		uint32		start;
		int			len;

		if (idx >= s->dir.nentries)
		{
			/* others' claimed blocks still being read: half of one */
			if (!ranged || !qs_parrange_steal(&st->pr, &st->push, s))
			{
				/* no block left: its buffers go (src/column/scratch.c) */
				qs_colscratch_release_kept(s->scratch);
				break;
			}
		}
		else
		{
			qs_colscan_open_block(s, idx);
			if (!qs_colpush_block(&st->push, s))
			{
				qs_colscan_close_block(s);
				continue;
			}
			/* answered whole: never published, so never split */
			if (acc_header(st, s))
			{
				/*
				 * seq_tup_read: every row of the block is the snapshot's and
				 * passes (no delete map, no qual), as the plain scan would
				 * count them (core's stats test: count(*) of tenk2)
				 */
				qs_pgstat_count_heap_getnext_n(rel, s->row_end - s->row);
				st->header_blocks++;
				qs_colscan_close_block(s);
				continue;
			}
			if (ranged)
				qs_parrange_publish(&st->pr, idx, s->row, s->row_end);
		}
		for (start = s->row;; start += len)
		{
			int			n,
						k = 0;

			if (ranged)
			{
				/* a chunk of this participant's published range */
				if (!qs_parrange_take(&st->pr, &start, &len))
					break;
			}
			else if (start < s->row_end)
				len = (int) Min((uint32) QS_COLPUSH_CHUNK, s->row_end - start);
			else
				break;
			CHECK_FOR_INTERRUPTS();
			n = qs_colpush_native(&st->push, s, start, len, st->sel);
			InstrCountFiltered2(st, len - n);
			/* the rows of the snapshot (the delete map), as the plain scan */
			n = qs_colfilter_keep(rel, s, start, st->sel, n);
			/* quals calling functions: on visible rows only */
			k = qs_colpush_rows(&st->push, s, start, st->sel, n);
			InstrCountFiltered2(st, n - k);
			/* seq_tup_read: main rows once they pass the quals (exec.c) */
			qs_pgstat_count_heap_getnext_n(rel, k);
			if (k > 0)
			{
				bool		rows_left = st->ngroup > 0;

				/* without GROUP BY, count(*) needs no row */
				for (int j = 0; j < st->naggs; j++)
				{
					st->folded[j] = st->ngroup == 0 &&
						st->aggs[j].op == QS_AGG_COUNT_STAR;
					if (st->folded[j])
						st->single[j].n += k;
				}
				for (int c = 0; c < st->ncols; c++)
				{
					int			w = st->colwidth[c];

					st->colhasids[c] = false;
					/* text keys of a dictionary: ids per code, not per row */
					if (st->colkey[c] && key_ids(st, s, c, start, k))
					{
						rows_left = true;
						continue;
					}

#ifdef HAVE_INT128
					if (st->colisnum[c])
					{
						/* exact scaled integers; Datums only for wide values */
						st->coldatums[c] =
							qs_colpush_numerics(&st->push, s, st->cols[c], start,
												st->sel, k, st->colnum[c]);
						if (st->coldatums[c])
						{
							qs_colpush_values(&st->push, s, st->cols[c], start,
											  st->sel, k);
							memcpy(st->colvals[c], st->push.vals, sizeof(Datum) * k);
						}
						memcpy(st->colnulls[c], st->push.nulls, sizeof(bool) * k);
						rows_left = true;
						continue;
					}
#endif

					/* integers straight from FOR or plain stripes */
					if (w > 0 && qs_colpush_ints(&st->push, s, st->cols[c], w,
												 start, len, st->sel, k))
					{
						/* without GROUP BY, their aggregates a column at a time */
						if (st->ngroup == 0 && fold_ints(st, c, k))
							continue;
						for (int i = 0; i < k; i++)
							st->colvals[c][i] = int_datum(st->push.ints[i], w);
						memcpy(st->colnulls[c], st->push.nulls, sizeof(bool) * k);
						rows_left = true;
						continue;
					}
					qs_colpush_values(&st->push, s, st->cols[c], start, st->sel, k);
					memcpy(st->colvals[c], st->push.vals, sizeof(Datum) * k);
					memcpy(st->colnulls[c], st->push.nulls, sizeof(bool) * k);
					rows_left = true;
				}
				if (rows_left)
					acc_rows(st, k);
				/* the delta's rows (acc_delta) go through acc_rows whole */
				memset(st->folded, 0, sizeof(bool) * st->naggs);
			}
		}
		qs_colscan_close_block(s);
	}
}

/* ------------------------------------------------------------------------
 * Emitting partial states
 * ------------------------------------------------------------------------
 */

/*
 * int8_avg_serialize's sumX (the state of sum(int8) and avg(int8)):
 * numericvar_serialize's NumericVar of the int128 sum, its ndigits,
 * weight, sign (0x0000, or 0x4000 negative) and dscale (0) as int32, then
 * its base-10000 digits as int16.  PostgreSQL 15 and later (REL_15 commit
 * "Prevent numeric overflows in parallel numeric aggregates"; 14 sent
 * numeric_send's output).  int128_to_numericvar keeps trailing zero digits
 * and we strip them; numericvar_deserialize takes either.
 */
#ifdef HAVE_INT128
static void
send_int128_numericvar(StringInfo buf, int128 v)
{
	uint128		u = v < 0 ? -(uint128) v : (uint128) v;
	int16		digits[10];		/* 2^127 has 39 decimal digits */
	int			n = 0,
				first;

	while (u > 0)
	{
		digits[n++] = (int16) (u % 10000);
		u /= 10000;
	}
	/* digits[] is least significant first */
	for (first = 0; first < n && digits[first] == 0; first++)
		;
	pq_sendint32(buf, (uint32) (n - first));
	pq_sendint32(buf, (uint32) (n > 0 ? n - 1 : 0));
	pq_sendint32(buf, v < 0 ? 0x4000 : 0x0000);
	pq_sendint32(buf, 0);
	for (int i = n - 1; i >= first; i--)
		pq_sendint16(buf, (uint16) digits[i]);
}
#endif

#ifdef HAVE_INT128
/*
 * numeric_avg_serialize's bytes of the NumericAggState acc holds: int8 N,
 * sumX as numericvar_serialize writes it (int32 ndigits, weight, sign,
 * dscale, then int16 base-10000 digits), int32 maxScale, int8
 * maxScaleCount, NaNcount, pInfcount, nInfcount.  sumX is accum_sum_final's
 * value: with no finite input const_zero (dscale 0); else the exact sum at
 * the largest input dscale, leading and trailing zero digits stripped and
 * zero made positive with weight 0 (strip_var) -- as numeric_in and
 * make_result leave the sum built here, whose digits numeric_send gives.
 */
static Datum
numeric_partial(const QsAggAcc *acc)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, acc->n);
	if (acc->n == 0)
	{
		pq_sendint32(&buf, 0);	/* ndigits */
		pq_sendint32(&buf, 0);	/* weight */
		pq_sendint32(&buf, 0);	/* sign: NUMERIC_POS */
		pq_sendint32(&buf, 0);	/* dscale */
	}
	else
	{
		QsNum		x = {acc->bigsum, acc->maxscale, QS_NUM_FINITE};
		Datum		sum = num_datum(&x);
		bytea	   *b;
		StringInfoData in;
		int			ndigits;

		if (acc->ovf != (Datum) 0)
			sum = DirectFunctionCall2(numeric_add, sum, acc->ovf);
		/* numeric_send: int16 ndigits, weight, sign, dscale, digits */
		b = DatumGetByteaPP(DirectFunctionCall1(numeric_send, sum));
		in.data = VARDATA_ANY(b);
		in.len = VARSIZE_ANY_EXHDR(b);
		in.cursor = 0;
		ndigits = (uint16) pq_getmsgint(&in, sizeof(uint16));
		pq_sendint32(&buf, (uint32) ndigits);
		pq_sendint32(&buf, (uint32) (int32) (int16) pq_getmsgint(&in, sizeof(int16)));
		pq_sendint32(&buf, (uint32) (uint16) pq_getmsgint(&in, sizeof(uint16)));
		pq_sendint32(&buf, (uint32) (uint16) pq_getmsgint(&in, sizeof(uint16)));
		for (int i = 0; i < ndigits; i++)
			pq_sendint16(&buf, (uint16) pq_getmsgint(&in, sizeof(int16)));
		pq_getmsgend(&in);
	}
	pq_sendint32(&buf, acc->maxscale);
	pq_sendint64(&buf, acc->maxcount);
	pq_sendint64(&buf, acc->nan);
	pq_sendint64(&buf, acc->pinf);
	pq_sendint64(&buf, acc->ninf);
	return PointerGetDatum(pq_endtypsend(&buf));
}
#endif

static Datum
int8_array2(int64 a, int64 b)
{
	Datum		d[2];

	d[0] = Int64GetDatum(a);
	d[1] = Int64GetDatum(b);
	return PointerGetDatum(construct_array(d, 2, INT8OID, sizeof(int64),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* The partial state of aggregate a from acc; *isnull as PostgreSQL's. */
static Datum
partial_state(const QsAggSpec *a, const QsAggAcc *acc, bool *isnull)
{
	*isnull = false;
	switch (a->op)
	{
		case QS_AGG_COUNT_STAR:
		case QS_AGG_COUNT:
			return Int64GetDatum(acc->n);
		case QS_AGG_AVG:
			if (a->in == QS_AGGIN_INT && a->width < 8)
				return int8_array2(acc->n, (int64) acc->isum);
			/* FALLTHROUGH */
		case QS_AGG_SUM:
#ifdef HAVE_INT128
			if (a->in == QS_AGGIN_NUMERIC)
			{
				if (!acc->seen)
					break;
				return numeric_partial(acc);
			}
#endif
			if (acc->n == 0)
				break;
			switch (a->in)
			{
				case QS_AGGIN_FLOAT4:
					return Float4GetDatum(acc->f4);
				case QS_AGGIN_FLOAT8:
					return Float8GetDatum(acc->f8);
				default:
					break;
			}
#ifdef HAVE_INT128
			if (a->width == 8)
			{
				StringInfoData buf;

				/* int8_avg_serialize */
				pq_begintypsend(&buf);
				pq_sendint64(&buf, acc->n);
				send_int128_numericvar(&buf, acc->bigsum);
				return PointerGetDatum(pq_endtypsend(&buf));
			}
#endif
			return Int64GetDatum((int64) acc->isum);
		case QS_AGG_MIN:
		case QS_AGG_MAX:
			if (acc->n == 0)
				break;
			return acc->m;
	}
	*isnull = true;
	return (Datum) 0;
}

/*
 * One output row: a group's keys and partial states.  The states (byteas,
 * numerics) are built in the node's per-tuple memory, which ExecScan
 * resets before it asks for the next row, by when the parent has used or
 * copied this one; built in the query's context, they stayed until the
 * query's end (about 2 kB a group for a numeric state: 271 MB of 50k
 * groups' sum and avg where the unpushed plan peaked at 45 MB).
 */
static void
fill_slot(QsAggScanState *st, TupleTableSlot *slot, const char *key,
		  const QsAggAcc *accs)
{
	MemoryContext old =
		MemoryContextSwitchTo(st->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);

	ExecClearTuple(slot);
	for (int g = 0; g < st->ngroup; g++)
	{
		int64		v;
		int			p = st->gpos[g];

		memcpy(&v, key + g * sizeof(Datum), sizeof(int64));
		slot->tts_isnull[p] = key[st->ngroup * sizeof(Datum) + g] != 0;
		if (slot->tts_isnull[p])
			slot->tts_values[p] = (Datum) 0;
		else if (st->gwidth[g] < 0)
			slot->tts_values[p] = st->textvals[v];
		else if (st->gwidth[g] == 1)
			slot->tts_values[p] = BoolGetDatum(v != 0);
		else
			slot->tts_values[p] = int_datum(v, st->gwidth[g]);
	}
	for (int j = 0; j < st->naggs; j++)
		slot->tts_values[st->apos[j]] =
			partial_state(&st->aggs[j], &accs[j], &slot->tts_isnull[st->apos[j]]);
	ExecStoreVirtualTuple(slot);
	MemoryContextSwitchTo(old);
}

/* the bytes of one aggregate's accumulator, for the planner's memory check */
Size
qs_agg_acc_bytes(void)
{
	return sizeof(QsAggAcc);
}

static void
accumulate(QsAggScanState *st)
{
	EState	   *estate = st->css.ss.ps.state;
	Relation	rel = st->rel;
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	MemoryContext old;

	MemoryContextReset(st->argcxt);
	for (int i = 0; i < st->nquals; i++)
		qs_qual_prepare(st->quals[i], econtext, st->argcxt);
	reset_groups(st);

	if (st->pscan)
		st->colscan = rel->rd_tableam->scan_begin(rel, estate->es_snapshot, 0, NULL,
												  st->pscan,
												  SO_TYPE_SEQSCAN | SO_ALLOW_STRAT |
												  SO_ALLOW_SYNC | SO_ALLOW_PAGEMODE);
	else
		st->colscan = table_beginscan(rel, estate->es_snapshot, 0, NULL);
	if (!qs_is_col_scan(st->colscan))
		elog(ERROR, "QuickstepScan: \"%s\" gave no column scan",
			 RelationGetRelationName(rel));
	qs_colscan_slot_desc((ColScanDesc) st->colscan, st->dslot);

	/* minimum and maximum Datums (by value) and states live in aggcxt */
	old = MemoryContextSwitchTo(st->aggcxt);
	acc_delta(st);
	acc_main(st);
	MemoryContextSwitchTo(old);

	table_endscan(st->colscan);
	st->colscan = NULL;
	if (st->shared && IsParallelWorker())
	{
		pg_atomic_fetch_add_u64(&st->shared->blocks_read, st->push.blocks_read);
		pg_atomic_fetch_add_u64(&st->shared->skipped_minmax, st->push.skipped_minmax);
		pg_atomic_fetch_add_u64(&st->shared->skipped_dict, st->push.skipped_dict);
		pg_atomic_fetch_add_u64(&st->shared->binary_searches, st->push.binary_searches);
		pg_atomic_fetch_add_u64(&st->shared->probes, st->push.probes);
		pg_atomic_fetch_add_u64(&st->shared->header_blocks, st->header_blocks);
	}
	if (st->groups)
	{
		hash_seq_init(&st->iter, st->groups);
		st->iterating = true;
	}
	st->emitted_single = false;
	st->done = true;
}

static TupleTableSlot *
agg_next(ScanState *ss)
{
	QsAggScanState *st = (QsAggScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;

	if (!st->done)
		accumulate(st);
	if (st->ngroup == 0)
	{
		if (st->emitted_single)
			return ExecClearTuple(slot);
		st->emitted_single = true;
		fill_slot(st, slot, st->key, st->single);
		return slot;
	}
	else
	{
		char	   *entry = hash_seq_search(&st->iter);

		if (entry == NULL)
		{
			st->iterating = false;	/* hash_seq_search ended it */
			return ExecClearTuple(slot);
		}
		fill_slot(st, slot, entry, (QsAggAcc *) (entry + st->keysize));
		return slot;
	}
}

static bool
agg_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
agg_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, agg_next, agg_recheck);
}

static void
agg_reset(QsAggScanState *st)
{
	if (st->colscan)
		table_endscan(st->colscan);
	st->colscan = NULL;
	if (st->iterating)
		hash_seq_term(&st->iter);
	st->iterating = false;
	st->done = false;
}

static void
agg_end(CustomScanState *node)
{
	QsAggScanState *st = (QsAggScanState *) node;

	agg_reset(st);
	ExecDropSingleTupleTableSlot(st->dslot);
}

static void
agg_rescan(CustomScanState *node)
{
	agg_reset((QsAggScanState *) node);
}

/* ------------------------------------------------------------------------
 * Parallel scans: the column AM's parallel scan state in the DSM segment
 * ------------------------------------------------------------------------
 */

static Size
pscan_size(Relation rel)
{
	return MAXALIGN(rel->rd_tableam->parallelscan_estimate(rel));
}

static Size
agg_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return add_size(add_size(pscan_size(((QsAggScanState *) node)->rel),
							 MAXALIGN(sizeof(QsAggShared))),
					qs_parranges_size(pcxt->nworkers));
}

static void
attach_dsm(QsAggScanState *st, void *coordinate)
{
	st->pscan = coordinate;
	st->shared = (QsAggShared *) ((char *) coordinate + pscan_size(st->rel));
	st->ranges = (QsParRanges *) ((char *) st->shared + MAXALIGN(sizeof(QsAggShared)));
	qs_parrange_attach(&st->pr, st->ranges);
}

static void
agg_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	QsAggScanState *st = (QsAggScanState *) node;

	attach_dsm(st, coordinate);
	st->rel->rd_tableam->parallelscan_initialize(st->rel, st->pscan);
	qs_parranges_reset(st->ranges, pcxt->nworkers);
	pg_atomic_init_u64(&st->shared->blocks_read, 0);
	pg_atomic_init_u64(&st->shared->skipped_minmax, 0);
	pg_atomic_init_u64(&st->shared->skipped_dict, 0);
	pg_atomic_init_u64(&st->shared->binary_searches, 0);
	pg_atomic_init_u64(&st->shared->probes, 0);
	pg_atomic_init_u64(&st->shared->header_blocks, 0);
}

static void
agg_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	QsAggScanState *st = (QsAggScanState *) node;

	/* the workers' counters accumulate over the Gather's restarts */
	attach_dsm(st, coordinate);
	st->rel->rd_tableam->parallelscan_reinitialize(st->rel, coordinate);
	qs_parranges_reset(st->ranges, st->ranges->nslots - 1);
}

static void
agg_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	attach_dsm((QsAggScanState *) node, coordinate);
}

/* The leader: the workers' totals into its own counters, once. */
static void
agg_shutdown(CustomScanState *node)
{
	QsAggScanState *st = (QsAggScanState *) node;

	if (st->shared == NULL)
		return;
	if (!IsParallelWorker())
	{
		st->push.blocks_read += pg_atomic_read_u64(&st->shared->blocks_read);
		st->push.skipped_minmax += pg_atomic_read_u64(&st->shared->skipped_minmax);
		st->push.skipped_dict += pg_atomic_read_u64(&st->shared->skipped_dict);
		st->push.binary_searches += pg_atomic_read_u64(&st->shared->binary_searches);
		st->push.probes += pg_atomic_read_u64(&st->shared->probes);
		st->header_blocks += pg_atomic_read_u64(&st->shared->header_blocks);
	}
	/* the segment goes away with the Gather's shutdown */
	st->shared = NULL;
	st->ranges = NULL;
	st->pscan = NULL;
}

static void
agg_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	QsAggScanState *st = (QsAggScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	List	   *quals = linitial(cscan->custom_private);
	StringInfoData buf;
	ListCell   *lc;

	context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	/* the aggregates as the query wrote them, not as PARTIAL ones */
	initStringInfo(&buf);
	foreach(lc, cscan->custom_scan_tlist)
	{
		Expr	   *expr = lfirst_node(TargetEntry, lc)->expr;
		Aggref	   *agg;

		if (!IsA(expr, Aggref))
			continue;
		agg = copyObject((Aggref *) expr);
		agg->aggsplit = AGGSPLIT_SIMPLE;
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, deparse_expression((Node *) agg, context,
														es->verbose, false));
	}
	ExplainPropertyText("Partial Aggregates Pushed", buf.data, es);
	if (quals != NIL)
	{
		/* the quals' Vars as setrefs would have moved them */
		quals = copyObject(quals);
		ChangeVarNodes((Node *) quals, st->relid,
					   bms_singleton_member(cscan->custom_relids), 0);
		ExplainPropertyText("Storage Filter",
							deparse_expression((Node *) make_ands_explicit(quals),
											   context, es->verbose, false),
							es);
	}
	/* as the plain scan shows them (exec.c); a Gather's: its workers' too */
	if (es->analyze && node->ss.ps.instrument)
	{
		Instrumentation *instr = node->ss.ps.instrument;
		double		removed = instr->nfiltered2;
		QsColCounts c;

		if (instr->nloops > 0)
			removed /= instr->nloops;

		c.blocks_read = st->push.blocks_read;
		c.skipped_minmax = st->push.skipped_minmax;
		c.skipped_dict = st->push.skipped_dict;
		c.binary_searches = st->push.binary_searches;
		c.probes = st->push.probes;
		ExplainPropertyFloat("Rows Removed by Storage Filter", NULL, removed, 0, es);
		qs_scan_explain_col_counts(&c, es);
		ExplainPropertyInteger("Blocks Answered from Headers", NULL,
							   (int64) st->header_blocks, es);
	}
}
