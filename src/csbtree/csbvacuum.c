/*-------------------------------------------------------------------------
 *
 * csbvacuum.c
 *	  csbtree VACUUM: remove the leaf items of dead heap tuples.  Pages
 *	  are visited in physical order with a cleanup lock (which waits for
 *	  scans that still hold a pin on the page).  Pages are not recycled.
 *
 *-------------------------------------------------------------------------
 */
#include "csbtree/csbtree.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"

/*
 * Splits move items only to new pages, which are appended to the file:
 * visiting blocks in order up to the current length, and then the blocks
 * added meanwhile, visits every item that existed when VACUUM began.
 */
static void
csb_vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	CsbState   *st = csb_init_state(index);
	BlockNumber blkno = CSB_METAPAGE + 1;
	BlockNumber nblocks;
	double		ntuples = 0;

	for (;;)
	{
		nblocks = RelationGetNumberOfBlocks(index);
		if (blkno >= nblocks)
			break;
		for (; blkno < nblocks; blkno++)
		{
			Buffer		buf;
			Page		page;
			CsbPageOpaque op;
			OffsetNumber deletable[CSB_MAX_ITEMS];
			int			ndel = 0;
			OffsetNumber off,
						maxoff;

			qs_csb_vacuum_delay_point();
			buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL, info->strategy);
			if (callback)
				LockBufferForCleanup(buf);
			else
				LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			op = CsbPageGetOpaque(page);
			if (PageIsNew(page) || op->page_id != CSB_PAGE_ID || !CsbPageIsLeaf(op))
			{
				UnlockReleaseBuffer(buf);
				continue;
			}
			maxoff = csb_maxoff(page);
			for (off = CsbFirstData(op); off <= maxoff; off++)
			{
				CsbTupBuf	tb;
				IndexTuple	itup = csb_item(page, off, &tb);

				if (callback && callback(&itup->t_tid, callback_state))
					deletable[ndel++] = off;
				else
					ntuples += 1;
			}
			if (ndel > 0)
			{
				GenericXLogState *xs = GenericXLogStart(index);
				Page		p = GenericXLogRegisterBuffer(xs, buf, 0);

				csb_delete_items(p, deletable, ndel);
				csb_rebuild_directory(st, p);
				GenericXLogFinish(xs);
				stats->tuples_removed += ndel;
			}
			UnlockReleaseBuffer(buf);
		}
	}
	stats->num_pages = nblocks;
	stats->num_index_tuples = ntuples;
	stats->estimated_count = false;
}

IndexBulkDeleteResult *
csb_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	csb_vacuum_scan(info, stats, callback, callback_state);
	return stats;
}

IndexBulkDeleteResult *
csb_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	if (stats == NULL)
	{
		/* no bulkdelete pass: count the items */
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		csb_vacuum_scan(info, stats, NULL, NULL);
	}
	return stats;
}
