/*-------------------------------------------------------------------------
 *
 * fetchatts.c
 *	  The attributes a plan reads from the rows its index, bitmap, TID, TID
 *	  range and sequential scans read from a column table (and, on PG 15,
 *	  no executor prefetch for its bitmap scans: the same ExecutorStart
 *	  walk).
 *
 * A fetched main row is decoded on demand (readcache.c), but the executor
 * asks for a prefix of the attributes (slot_getsomeattrs up to the last one
 * it reads), so a fetch opened every column of the block up to that one:
 * TPC-H Q20's index scan of lineitem reads l_partkey, l_suppkey,
 * l_quantity and l_shipdate and opened eleven columns of each block it
 * touched — readers too large for the fetch cache to keep the 41 blocks,
 * so each fetch gathered and checked stripes again (14 s against heap's
 * 0.2 s at SF 1).
 *
 * So, after the executor starts a statement (ExecutorStart_hook), the scan
 * slot of each IndexScan, BitmapHeapScan and TidScan of a column table
 * gets the set of attributes its plan node reads (QsRecSlot.want): the
 * Vars of the scan level in its target list, its qual and its original
 * index (but a btree's: never rechecked), bitmap or TID quals (rechecks).
 * A lazy source leaves the others NULL without opening their columns.
 *
 * Why nothing else can read the others: such a slot is read only by its own
 * node — its quals and its projection; a node that returns the scan slot
 * unprojected has a target list naming every attribute
 * (tlist_matches_tupdesc), so then every attribute is wanted; a whole-row
 * Var wants all.  What needs the whole row reads it from other slots,
 * which have no want: ModifyTable's old row, triggers and ON CONFLICT
 * (table_tuple_fetch_row_version with SnapshotAny, table_tuple_lock), row
 * marks and EvalPlanQual (its own plan states, made without
 * ExecutorStart), logical replication's and CLUSTER's index scans (no
 * ExecutorStart).  Storing a row lazily into those is harmless: without
 * want every attribute asked for is decoded.  A slot lives and dies with
 * its EState, so the set does too.  The plan states of EvalPlanQual
 * rechecks get no want: they decode as before (speed only).
 *
 * SeqScan and TidRangeScan slots get the set too: the plain table-AM scan
 * decodes its batches of rows with it (am.c, col_decode_batch), the same
 * reasoning holding (the planner gives no scan of a column table a
 * physical target list: src/scan/planner.c, no_physical_tlist).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/rel.h"

#include "column/colam.h"
#include "column/colscan.h"
#include "page/recslot.h"

static ExecutorStart_hook_type prev_executor_start = NULL;

/*
 * The outputs of a nested loop's inner plan its join reads: the inner
 * plan's target list entries (resnos) its target list, join qual and qual
 * name (INNER_VAR Vars; nestParams name only the outer plan's).
 */
typedef struct InnerRefs
{
	Bitmapset  *resnos;
	bool		all;			/* a whole-row reference: every output */
} InnerRefs;

static bool
inner_refs_walker(Node *node, InnerRefs *refs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varno == INNER_VAR)
		{
			if (var->varattno <= 0)
				refs->all = true;
			else
				refs->resnos = bms_add_member(refs->resnos, var->varattno);
		}
		return false;
	}
	return expression_tree_walker(node, inner_refs_walker, (void *) refs);
}

/*
 * The Vars of scan level scanrelid in the node's expressions.  live: the
 * target list entries its parent reads (NULL: all); an entry that is a
 * plain Var no one reads is projected as the NULL the slot then holds.
 * recheck: with a bitmap heap scan's bitmapqualorig (the others' original
 * quals are always counted).
 */
static Bitmapset *
node_attrs(ScanState *ss, const Bitmapset *live, bool recheck)
{
	Plan	   *plan = ss->ps.plan;
	Index		scanrelid = ((Scan *) plan)->scanrelid;
	Bitmapset  *attrs = NULL;
	ListCell   *lc;

	foreach(lc, plan->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (live != NULL && tle->expr != NULL && IsA(tle->expr, Var) &&
			!bms_is_member(tle->resno, live))
			continue;
		pull_varattnos((Node *) tle->expr, scanrelid, &attrs);
	}
	pull_varattnos((Node *) plan->qual, scanrelid, &attrs);
	switch (nodeTag(plan))
	{
		case T_IndexScan:
			{
				Relation	irel = ((IndexScanState *) ss)->iss_RelationDesc;

				/*
				 * The original quals are evaluated only to recheck what the
				 * index reported lossy (xs_recheck, xs_recheckorderby): a
				 * btree never does (btgettuple), nor orders by an operator,
				 * so a point lookup does not open its key's column (the
				 * nested loop's t.c1 = k.key decoded all of c1's block into
				 * the fetch cache for nothing).
				 */
				if (irel != NULL && irel->rd_rel->relam == BTREE_AM_OID)
					break;
				pull_varattnos((Node *) ((IndexScan *) plan)->indexqualorig,
							   scanrelid, &attrs);
				pull_varattnos((Node *) ((IndexScan *) plan)->indexorderbyorig,
							   scanrelid, &attrs);
			}
			break;
		case T_BitmapHeapScan:
			if (recheck)
				pull_varattnos((Node *) ((BitmapHeapScan *) plan)->bitmapqualorig,
							   scanrelid, &attrs);
			break;
		case T_TidScan:
			pull_varattnos((Node *) ((TidScan *) plan)->tidquals,
						   scanrelid, &attrs);
			break;
		case T_TidRangeScan:
			pull_varattnos((Node *) ((TidRangeScan *) plan)->tidrangequals,
						   scanrelid, &attrs);
			break;
		default:
			break;
	}
	return attrs;
}

/* attrs as a want array in the slot's memory, or NULL: every attribute */
static bool *
want_array(TupleTableSlot *slot, Bitmapset *attrs)
{
	int			natts = slot->tts_tupleDescriptor->natts;
	bool	   *want;
	bool		all = true;

	/* a whole-row Var reads every attribute */
	if (bms_is_member(InvalidAttrNumber - FirstLowInvalidHeapAttributeNumber,
					  attrs))
		return NULL;
	want = MemoryContextAllocZero(slot->tts_mcxt, sizeof(bool) * Max(natts, 1));
	for (int i = 0; i < natts; i++)
	{
		want[i] = bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber,
								attrs);
		all &= want[i] || TupleDescAttr(slot->tts_tupleDescriptor, i)->attisdropped;
	}
	if (all)
	{
		pfree(want);
		return NULL;
	}
	return want;
}

static void
set_want(ScanState *ss, const Bitmapset *live)
{
	Relation	rel = ss->ss_currentRelation;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	Bitmapset  *attrs;

	if (rel == NULL || slot == NULL || !qs_is_column_rel(rel) ||
		slot->tts_ops != table_slot_callbacks(rel))
		return;
	attrs = node_attrs(ss, live, true);
	((QsRecSlot *) slot)->want = want_array(slot, attrs);

	/*
	 * A bitmap heap scan evaluates bitmapqualorig only on the rows of pages
	 * that need a recheck (lossy, or the index asked): the others are
	 * decoded without the columns only it reads (scan_tid.c).
	 */
	if (IsA(ss, BitmapHeapScanState))
	{
		Bitmapset  *fewer = node_attrs(ss, live, false);

		if (!bms_equal(fewer, attrs))
			((QsRecSlot *) slot)->want_norecheck = want_array(slot, fewer);
		bms_free(fewer);
	}
	bms_free(attrs);
}

/*
 * context: the PlanState whose child ps is (NULL at the top).  The inner
 * plan of a nested loop is read only by the join's qual, join qual and
 * projection (joins always project), so its outputs the join names are
 * all that is read of it: the nested loop's parameterized index scan
 * outputs the key of its index qual (t.c1 for t.c1 = k.key, the base
 * relation's target list needs it for the join clause the index took
 * over), which nothing reads.
 */
static bool
want_walker(PlanState *ps, void *context)
{
	PlanState  *parent = (PlanState *) context;

	if (ps == NULL)
		return false;
	if (IsA(ps, IndexScanState) || IsA(ps, BitmapHeapScanState) ||
		IsA(ps, TidScanState) || IsA(ps, TidRangeScanState) ||
		IsA(ps, SeqScanState))
	{
		InnerRefs	refs = {NULL, false};

		if (parent != NULL && IsA(parent, NestLoopState) &&
			innerPlanState(parent) == ps)
		{
			Plan	   *jp = parent->plan;

			(void) inner_refs_walker((Node *) jp->targetlist, &refs);
			(void) inner_refs_walker((Node *) jp->qual, &refs);
			(void) inner_refs_walker((Node *) ((Join *) jp)->joinqual, &refs);
			if (refs.all)
				refs.resnos = NULL;
			else if (refs.resnos == NULL)
				refs.resnos = bms_make_singleton(0);	/* none: no resno 0 */
		}
		set_want((ScanState *) ps, refs.resnos);
		bms_free(refs.resnos);
	}
#ifndef QS_BITMAP_ONE_CALLBACK

	/*
	 * PG 15: no executor prefetching for bitmap scans of column tables (its
	 * blocks past the fork's end are virtual pages, scan_tid.c), set in the
	 * same walk.
	 */
	if (IsA(ps, BitmapHeapScanState))
	{
		BitmapHeapScanState *bs = (BitmapHeapScanState *) ps;

		if (bs->ss.ss_currentRelation != NULL &&
			qs_is_column_rel(bs->ss.ss_currentRelation))
			bs->prefetch_maximum = 0;
	}
#endif
	return planstate_tree_walker(ps, want_walker, (void *) ps);
}

static void
fetchatts_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	if (queryDesc->planstate)
		(void) want_walker(queryDesc->planstate, NULL);
}

void
qs_col_fetchatts_install_hook(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = fetchatts_executor_start;
}
