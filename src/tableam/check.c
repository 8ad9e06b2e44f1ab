/*-------------------------------------------------------------------------
 *
 * check.c
 *	  quickstep.check_table(regclass): structural check of a quickstep row
 *	  table, page by page, through the layout's check_page.  A corrupt page
 *	  raises ERRCODE_DATA_CORRUPTED naming the block and what is wrong; it
 *	  never crashes the server.  On a PD_ALL_VISIBLE page it also checks
 *	  that every record is visible to all: inserter committed, no updater
 *	  (committed or running) and no running locker in its xmax; and, when
 *	  PD_HAS_FREE_LINES is clear too, that every slot holds a record.
 *
 *	  quickstep.page_visibility(regclass): every block and whether it carries
 *	  PD_ALL_VISIBLE (tests, debugging).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/rel.h"

#include "tableam/engine.h"

PG_FUNCTION_INFO_V1(qs_check_table);
PG_FUNCTION_INFO_V1(qs_page_visibility);

/*
 * all_visible_violation
 *		NULL when record 'off' of an all-visible page is visible to all, else
 *		what is wrong.  Decided from the commit log, not the hint bits: the
 *		hints VACUUM set before flagging the page are not WAL-logged, so a
 *		standby or a recovered primary may lack them.
 */
static const char *
all_visible_violation(HeapTupleHeader h)
{
	TransactionId xmin = HeapTupleHeaderGetRawXmin(h);
	TransactionId xmax;

	if (!HeapTupleHeaderXminFrozen(h) &&
		!(TransactionIdIsNormal(xmin) && TransactionIdDidCommit(xmin)))
		return "its inserter did not commit";
	if (h->t_infomask & HEAP_XMAX_INVALID)
		return NULL;
	xmax = HeapTupleHeaderGetRawXmax(h);
	if (h->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		if (MultiXactIdIsRunning(xmax, HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask)))
			return "it is locked or updated by a running multixact";
		if (HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask))
			return NULL;
		xmax = HeapTupleHeaderGetUpdateXid(h);
	}
	else if (HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask))
	{
		if (TransactionIdIsValid(xmax) && TransactionIdIsInProgress(xmax))
			return "it is locked by a running transaction";
		return NULL;
	}
	if (TransactionIdIsValid(xmax) &&
		(TransactionIdIsInProgress(xmax) || TransactionIdDidCommit(xmax)))
		return "it is deleted or updated by a transaction that did not abort";
	return NULL;
}

Datum
qs_check_table(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	const QsPageLayout *L;
	BlockNumber nblocks;
	int64		records = 0;
	BufferAccessStrategy strategy;
	char	   *page_copy;

	rel = relation_open(relid, AccessShareLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	if (!qs_is_engine_rel(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a quickstep row table",
						RelationGetRelationName(rel)),
				 errhint("check_table checks tables created USING quickstep_nsm.")));
	L = qs_layout_of(rel);
	strategy = GetAccessStrategy(BAS_BULKREAD);
	page_copy = palloc(BLCKSZ);
	nblocks = RelationGetNumberOfBlocks(rel);

	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		char		msg[256];
		OffsetNumber maxoff;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(page_copy, BufferGetPage(buf), BLCKSZ);
		UnlockReleaseBuffer(buf);

		msg[0] = '\0';
		if (!qs_page_layout(L, (Page) page_copy)->check_page((Page) page_copy, blk,
															 RelationGetDescr(rel),
															 msg, sizeof(msg)))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("quickstep table \"%s\" is corrupt",
							RelationGetRelationName(rel)),
					 errdetail("%s", msg)));
		maxoff = qs_page_max_offset(L, (Page) page_copy);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			HeapTupleHeaderData scratch;
			const char *why;

			if (qs_page_record_state(L, (Page) page_copy, off) != QS_REC_NORMAL)
			{
				if (PageIsAllVisible((Page) page_copy) &&
					!PageHasFreeLinePointers((Page) page_copy))
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("quickstep table \"%s\" is corrupt",
									RelationGetRelationName(rel)),
							 errdetail("block %u is all-visible without free slots, but slot %u holds no record",
									   blk, off)));
				continue;
			}
			records++;
			if (!PageIsAllVisible((Page) page_copy))
				continue;
			why = all_visible_violation(qs_page_get_header(L, (Page) page_copy,
															   off, &scratch,
															   NULL));
			if (why)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("quickstep table \"%s\" is corrupt",
								RelationGetRelationName(rel)),
						 errdetail("block %u is all-visible, but record %u is not visible to all: %s",
								   blk, off, why)));
		}
	}
	pfree(page_copy);
	FreeAccessStrategy(strategy);
	relation_close(rel, AccessShareLock);
	PG_RETURN_INT64(records);
}

Datum
qs_page_visibility(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	BlockNumber nblocks;

	InitMaterializedSRF(fcinfo, 0);
	rel = relation_open(relid, AccessShareLock);
	if (!qs_is_engine_rel(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a quickstep row table",
						RelationGetRelationName(rel))));
	nblocks = RelationGetNumberOfBlocks(rel);
	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(rel, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		values[0] = Int64GetDatum((int64) blk);
		values[1] = BoolGetDatum(PageIsAllVisible(BufferGetPage(buf)));
		UnlockReleaseBuffer(buf);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}
