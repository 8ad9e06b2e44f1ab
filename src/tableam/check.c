/*-------------------------------------------------------------------------
 *
 * check.c
 *	  quickstep.check_table(regclass): structural check of a quickstep row
 *	  table, page by page, through the layout's check_page.  A corrupt page
 *	  raises ERRCODE_DATA_CORRUPTED naming the block and what is wrong; it
 *	  never crashes the server.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "tableam/engine.h"

PG_FUNCTION_INFO_V1(qs_check_table);

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
			if (qs_page_record_state(L, (Page) page_copy, off) == QS_REC_NORMAL)
				records++;
	}
	pfree(page_copy);
	FreeAccessStrategy(strategy);
	relation_close(rel, AccessShareLock);
	PG_RETURN_INT64(records);
}
