/*-------------------------------------------------------------------------
 *
 * csbvalidate.c
 *	  csbtree: operator class validation, cost estimation, and
 *	  quickstep.check_index(), the structural checker.
 *
 *-------------------------------------------------------------------------
 */
#include "csbtree/csbtree.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include <math.h>

/* ------------------------------------------------------------------------
 * amvalidate
 * ------------------------------------------------------------------------
 */
bool
csb_validate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	Form_pg_opclass classform;
	Oid			opfamilyoid,
				opcintype;
	CatCList   *proclist,
			   *oprlist;
	int			i;
	bool		hasproc = false;
	int			strategies = 0;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;

	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));
	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));

	for (i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		if (procform->amprocnum != CSB_CMP_PROC)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("csbtree operator family %u contains function %s with invalid support number %d",
							opfamilyoid, format_procedure(procform->amproc), procform->amprocnum)));
			result = false;
			continue;
		}
		if (!check_amproc_signature(procform->amproc, INT4OID, true, 2, 2,
									procform->amproclefttype, procform->amprocrighttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("csbtree operator family %u contains function %s with wrong signature for support number %d",
							opfamilyoid, format_procedure(procform->amproc), procform->amprocnum)));
			result = false;
		}
		if (procform->amproclefttype == opcintype && procform->amprocrighttype == opcintype)
			hasproc = true;
	}

	for (i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		if (oprform->amopstrategy < 1 || oprform->amopstrategy > CSB_NSTRATEGIES ||
			oprform->amoppurpose != AMOP_SEARCH ||
			!check_amop_signature(oprform->amopopr, BOOLOID,
								  oprform->amoplefttype, oprform->amoprighttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("csbtree operator family %u contains invalid operator %s for strategy %d",
							opfamilyoid, format_operator(oprform->amopopr), oprform->amopstrategy)));
			result = false;
			continue;
		}
		if (oprform->amoplefttype == opcintype && oprform->amoprighttype == opcintype)
			strategies |= 1 << oprform->amopstrategy;
	}

	if (!hasproc)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("csbtree operator class %u is missing support function 1", opclassoid)));
		result = false;
	}
	if (strategies != 0x3E)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("csbtree operator class %u is missing operators for strategies 1 to 5", opclassoid)));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(classtup);
	return result;
}

/* ------------------------------------------------------------------------
 * amcostestimate
 * ------------------------------------------------------------------------
 */
void
csb_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				 Cost *indexStartupCost, Cost *indexTotalCost,
				 Selectivity *indexSelectivity, double *indexCorrelation,
				 double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	GenericCosts costs;
	Cost		descent;

	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);

	/*
	 * The descent, charged as btree charges it (comparisons, and the
	 * internal pages at 50 operator costs each, assuming a tree of height
	 * 2), plus one more comparison, so that at equal cost btree wins.  We
	 * claim no correlation with the heap order: no range-scan discount.
	 */
	descent = 0;
	if (index->tuples > 1)
		descent += ceil(log(index->tuples) / log(2.0)) * cpu_operator_cost;
	descent += 3 * 50.0 * cpu_operator_cost;
	descent += cpu_operator_cost;

	*indexStartupCost = costs.indexStartupCost + descent;
	*indexTotalCost = costs.indexTotalCost + descent;
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = 0.0;
	*indexPages = costs.numIndexPages;
}

/* ------------------------------------------------------------------------
 * quickstep.check_index(regclass)
 * ------------------------------------------------------------------------
 */

#define CORRUPT(...) \
	ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED), \
					errmsg("csbtree index \"%s\" is corrupted", RelationGetRelationName(index)), \
					errdetail(__VA_ARGS__)))

PG_FUNCTION_INFO_V1(qs_csb_check_index);

Datum
qs_csb_check_index(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Oid			heapoid;
	LOCKMODE	heaplock;
	Relation	heap,
				index;
	CsbState   *st;
	BlockNumber nblocks,
				root,
				blk;
	uint32		rootlevel;
	int			level;
	bool	   *seen;
	int64		pages = 0,
				tuples = 0;
	TupleDesc	rtd;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	CsbPageOpaqueData expect;

	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an index", get_rel_name(indexoid) ? get_rel_name(indexoid) : "?")));
	/* a standby cannot take ShareLock; replay may then race with us */
	heaplock = RecoveryInProgress() ? AccessShareLock : ShareLock;
	heap = table_open(heapoid, heaplock);
	index = index_open(indexoid, AccessShareLock);
	if (index->rd_rel->relam != get_index_am_oid("csbtree", false))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a csbtree index", RelationGetRelationName(index))));
	if (get_call_result_type(fcinfo, NULL, &rtd) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	st = csb_init_state(index);
	nblocks = RelationGetNumberOfBlocks(index);
	if (nblocks < 2)
		CORRUPT("The index has %u blocks; a metapage and a root are needed.", nblocks);
	csb_read_meta(index, &root, &rootlevel);
	if (root == CSB_METAPAGE || root >= nblocks)
		CORRUPT("The metapage names root block %u of %u.", root, nblocks);
	seen = palloc0(sizeof(bool) * nblocks);
	seen[CSB_METAPAGE] = true;

	/* each level, left to right; the root is the leftmost page of its level */
	blk = root;
	for (level = rootlevel; level >= 0; level--)
	{
		BlockNumber prev = InvalidBlockNumber;
		BlockNumber nextlevel = InvalidBlockNumber;
		IndexTuple	prevhikey = NULL;

		while (blk != InvalidBlockNumber)
		{
			Buffer		buf;
			Page		page;
			CsbPageOpaque op;
			OffsetNumber first,
						maxoff,
						off;
			IndexTuple	hikey = NULL;
			CsbSearchKey key;
			CsbTupBuf	tb;

			CHECK_FOR_INTERRUPTS();
			if (blk == CSB_METAPAGE || blk >= nblocks)
				CORRUPT("Level %d links to block %u of %u.", level, blk, nblocks);
			if (seen[blk])
				CORRUPT("Block %u is reached twice (a cycle or a shared page).", blk);
			seen[blk] = true;
			pages++;

			buf = csb_get_buffer(index, blk, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			op = CsbPageGetOpaque(page);
			if (CsbPageIsDeleted(op))
				CORRUPT("Block %u is deleted but still linked on level %d (left sibling %u).",
						blk, level, prev);
			if (op->level != level || CsbPageIsLeaf(op) != (level == 0) || (op->flags & CSB_META))
				CORRUPT("Block %u has level %u and flags %u, expected level %d.",
						blk, op->level, op->flags, level);
			if (op->left != prev)
				CORRUPT("Block %u has left-link %u, but its left sibling is %u.", blk, op->left, prev);
			first = CsbFirstData(op);
			if (op->flags & CSB_COMPACT)
			{
				PageHeader	ph = (PageHeader) page;

				if (level != 0 || op->itemwidth != st->leafwidth ||
					ph->pd_lower < SizeOfPageHeaderData ||
					(ph->pd_lower - SizeOfPageHeaderData) % op->itemwidth != 0 ||
					ph->pd_upper != ph->pd_special)
					CORRUPT("Block %u: bad compact leaf layout (entry width %u, pd_lower %u).",
							blk, op->itemwidth, ph->pd_lower);
			}
			else if (level == 0 && st->leafwidth != 0)
				CORRUPT("Block %u: leaf is not compact, but the index uses compact leaves.", blk);
			maxoff = csb_maxoff(page);
			if (!CsbPageIsRightmost(op))
			{
				if (maxoff < CSB_HIKEY)
					CORRUPT("Block %u has a right sibling but no high key.", blk);
				hikey = CopyIndexTuple(csb_item(page, CSB_HIKEY, &tb));
			}
			if (level > 0 && maxoff < first)
				CORRUPT("Internal block %u has no downlinks.", blk);

			for (off = first; off <= maxoff; off++)
			{
				IndexTuple	itup = csb_item(page, off, &tb);
				bool		minusinf = (level > 0 && off == first);

				if (level > 0)
				{
					BlockNumber child = ItemPointerGetBlockNumberNoCheck(&itup->t_tid);
					Buffer		cbuf;
					CsbPageOpaque cop;

					if (child == CSB_METAPAGE || child >= nblocks)
						CORRUPT("Block %u offset %u: downlink to block %u of %u.", blk, off, child, nblocks);
					cbuf = csb_get_buffer(index, child, BUFFER_LOCK_SHARE);
					cop = CsbPageGetOpaque(BufferGetPage(cbuf));
					if (CsbPageIsDeleted(cop))
						CORRUPT("Block %u offset %u: downlink to deleted block %u.", blk, off, child);
					if (cop->level != level - 1)
						CORRUPT("Block %u offset %u: downlink to block %u of level %u, expected %d.",
								blk, off, child, cop->level, level - 1);
					UnlockReleaseBuffer(cbuf);
					if (off == first && prev == InvalidBlockNumber)
						nextlevel = child;
				}
				if (minusinf)
					continue;
				csb_key_from_tuple(st, itup, &key);
				/* ordered within the page */
				if (off > first && !(level > 0 && off - 1 == first) &&
					csb_compare(st, &key, page, off - 1) < 0)
					CORRUPT("Block %u: item %u sorts before item %u.", blk, off, off - 1);
				/* not above the high key */
				if (hikey && csb_compare_tuple(st, &key, hikey) > 0)
					CORRUPT("Block %u: item %u sorts after the high key.", blk, off);
				/* not below the left sibling's high key */
				if (prevhikey && csb_compare_tuple(st, &key, prevhikey) < 0)
					CORRUPT("Block %u: item %u sorts before the left sibling's high key.", blk, off);
				if (level == 0)
					tuples++;
			}

			/* the directory must be what the items say */
			memset(&expect, 0, sizeof(expect));
			*((CsbPageOpaque) &expect) = *op;
			csb_build_directory(st, page, &expect);
			if (expect.ngroups != op->ngroups || expect.ndirnodes != op->ndirnodes ||
				expect.dirlevels != op->dirlevels ||
				memcmp(expect.dir, op->dir, sizeof(CsbDirNode) * op->ndirnodes) != 0)
				CORRUPT("Block %u: the CSB+ directory does not match the items.", blk);
			{
				int			i;

				/* node groups: children of each node lie within the array */
				for (i = 0; i < op->ndirnodes; i++)
					if (op->dir[i].nkeys == 0 || op->dir[i].nkeys > CSB_NODE_FANOUT)
						CORRUPT("Block %u: directory node %d has %u keys.", blk, i, op->dir[i].nkeys);
			}

			if (prevhikey)
				pfree(prevhikey);
			prevhikey = hikey;
			prev = blk;
			blk = op->right;
			UnlockReleaseBuffer(buf);
		}
		blk = nextlevel;
		if (level > 0 && blk == InvalidBlockNumber)
			CORRUPT("Level %d has no leftmost downlink.", level);
	}

	/*
	 * Every block is a page of some level, a never-initialized page, or a
	 * deleted leaf: unlinked (it was not reached above), empty, and with a
	 * right-link to a page of the file, for scans that reach it through a
	 * stale link and move right; its deletion xid is not in the future.
	 */
	for (blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		page;
		CsbPageOpaque op;

		if (seen[blk])
			continue;
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		op = CsbPageGetOpaque(page);
		if (PageIsNew(page))
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		if (op->page_id != CSB_PAGE_ID || !CsbPageIsDeleted(op))
			CORRUPT("Block %u is not reachable from the root.", blk);
		if (!CsbPageIsLeaf(op) || op->level != 0 || (op->flags & CSB_META))
			CORRUPT("Deleted block %u is not a leaf (level %u, flags %u).", blk, op->level, op->flags);
		if (csb_maxoff(page) >= CsbFirstData(op))
			CORRUPT("Deleted block %u still has %u items.", blk,
					(unsigned) (csb_maxoff(page) - CsbFirstData(op) + 1));
		if (op->right == InvalidBlockNumber || op->right == CSB_METAPAGE ||
			op->right >= nblocks || op->right == blk)
			CORRUPT("Deleted block %u has right-link %u of %u.", blk, op->right, nblocks);
		if (FullTransactionIdFollows(CsbPageGetDeleteXid(op), ReadNextFullTransactionId()))
			CORRUPT("Deleted block %u has deletion xid %llu, beyond the next xid.", blk,
					(unsigned long long) U64FromFullTransactionId(CsbPageGetDeleteXid(op)));
		UnlockReleaseBuffer(buf);
	}

	index_close(index, AccessShareLock);
	table_close(heap, heaplock);

	values[0] = Int32GetDatum(rootlevel + 1);
	values[1] = Int64GetDatum(pages);
	values[2] = Int64GetDatum(tuples);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(rtd), values, nulls)));
}
