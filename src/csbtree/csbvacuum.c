/*-------------------------------------------------------------------------
 *
 * csbvacuum.c
 *	  csbtree VACUUM: remove the leaf items of dead heap tuples, delete
 *	  leaves that became empty, and recycle deleted pages through the
 *	  index's free space map.  Pages are visited in physical order; a
 *	  leaf with items to remove is cleanup-locked (which waits for scans
 *	  that still hold a pin on it).  See "Page deletion and recycling" in src/csbtree/README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "csbtree/csbtree.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "utils/snapmgr.h"
#include "wal/genxlog.h"

/* What one pass over the index found. */
typedef struct CsbVacState
{
	IndexVacuumInfo *info;
	IndexBulkDeleteResult *stats;
	IndexBulkDeleteCallback callback;
	void	   *callback_state;
	CsbState   *st;
	double		ntuples;
	bool		recorded;		/* some page went into the FSM */
} CsbVacState;

/*
 * csb_find_parent
 *		Exclusively lock the level-1 page holding the downlink to leaf blkno,
 *		whose high key is hikey, and return it with *off set to the
 *		downlink's offset; InvalidBuffer if it is not found.  The downlink
 *		sits where a search for the high key lands one level up (the
 *		separator for the right sibling is that high key), or on a page to
 *		the right of it when the key has duplicates.
 */
static Buffer
csb_find_parent(CsbState *st, BlockNumber blkno, IndexTuple hikey, OffsetNumber *off)
{
	CsbSearchKey key;
	Buffer		pbuf;

	csb_key_from_tuple(st, hikey, &key);
	pbuf = csb_descend(st, &key, false, BUFFER_LOCK_EXCLUSIVE, 1, NULL);
	while (BufferIsValid(pbuf))
	{
		Page		page = BufferGetPage(pbuf);
		CsbPageOpaque op = CsbPageGetOpaque(page);
		OffsetNumber maxoff = csb_maxoff(page);
		OffsetNumber o;
		BlockNumber next;
		CsbTupBuf	tb;

		if (op->level != 1)
			break;
		for (o = CsbFirstData(op); o <= maxoff; o++)
		{
			IndexTuple	itup = csb_item(page, o, &tb);

			if (ItemPointerGetBlockNumberNoCheck(&itup->t_tid) == blkno)
			{
				*off = o;
				return pbuf;
			}
		}
		/* the downlink can only be further right if the key goes on there */
		if (CsbPageIsRightmost(op) ||
			csb_compare_tuple(st, &key, csb_item(page, CSB_HIKEY, &tb)) < 0)
			break;
		next = op->right;
		UnlockReleaseBuffer(pbuf);
		pbuf = csb_get_buffer(st->index, next, BUFFER_LOCK_EXCLUSIVE);
	}
	if (BufferIsValid(pbuf))
		UnlockReleaseBuffer(pbuf);
	return InvalidBuffer;
}

/* Is this leaf empty of data items, and so a candidate for deletion? */
static bool
csb_leaf_deletable(CsbPageOpaque op, Page page)
{
	return op->page_id == CSB_PAGE_ID && CsbPageIsLeaf(op) &&
		!CsbPageIsDeleted(op) && !CsbPageIsRightmost(op) &&
		csb_maxoff(page) < CsbFirstData(op);
}

/*
 * csb_delete_leaf
 *		Try to delete the empty leaf blkno (nbtree's _bt_pagedel, for leaves
 *		only).  Its key range goes to its right sibling: the parent's
 *		downlink to the leaf is repointed to the right sibling and the
 *		right sibling's own downlink (the next item) removed; the leaf is
 *		unlinked from both siblings and marked deleted with the next full
 *		xid.  All of it is one generic WAL record over the four pages
 *		(parent, left sibling, leaf, right sibling), so there is no
 *		half-dead state: a crash leaves either the old tree or the new one.
 *
 *		Locks: the parent first (found by a fresh descent, one lock at a
 *		time), then the leaf level left to right as splits lock it: left
 *		sibling, the leaf (a cleanup lock, taken conditionally: a scan that
 *		holds a pin on it may still step left from it), right sibling.
 *		Nothing else locks a parent and then a child, and splits release
 *		the child before they lock the parent, so this cannot deadlock.
 *
 *		Not deleted (false is returned, nothing changed): the rightmost leaf
 *		of the tree, a leaf that is the rightmost child of its parent (the
 *		right sibling's downlink is in another parent, and internal pages
 *		are never deleted), a leaf whose right sibling's downlink is
 *		missing (an incomplete split), a root leaf, or a leaf someone holds
 *		pinned.
 */
static bool
csb_delete_leaf(CsbState *st, BlockNumber blkno)
{
	Relation	index = st->index;
	Buffer		lbuf,
				pbuf,
				sbuf = InvalidBuffer,
				rbuf;
	Page		page;
	CsbPageOpaque op;
	IndexTuple	hikey;
	OffsetNumber off,
				maxoff;
	BlockNumber leftblk,
				rightblk;
	CsbTupBuf	tb;
	QsGenXLogState *xs;
	Page		p;
	FullTransactionId safexid;

	/* 1. Still an empty leaf?  Take its high key to find the parent. */
	lbuf = csb_get_buffer(index, blkno, BUFFER_LOCK_SHARE);
	page = BufferGetPage(lbuf);
	op = CsbPageGetOpaque(page);
	if (!csb_leaf_deletable(op, page) || csb_maxoff(page) < CSB_HIKEY)
	{
		UnlockReleaseBuffer(lbuf);
		return false;
	}
	hikey = CopyIndexTuple(csb_item(page, CSB_HIKEY, &tb));
	UnlockReleaseBuffer(lbuf);

	/* 2. The parent, with the downlink and the right sibling's after it. */
	pbuf = csb_find_parent(st, blkno, hikey, &off);
	pfree(hikey);
	if (!BufferIsValid(pbuf))
		return false;
	page = BufferGetPage(pbuf);
	maxoff = csb_maxoff(page);
	if (off >= maxoff)
	{
		UnlockReleaseBuffer(pbuf);
		return false;
	}
	rightblk = ItemPointerGetBlockNumberNoCheck(&csb_item(page, off + 1, &tb)->t_tid);

	/* 3. The left sibling: the page whose right-link is the leaf. */
	lbuf = csb_get_buffer(index, blkno, BUFFER_LOCK_SHARE);
	leftblk = CsbPageGetOpaque(BufferGetPage(lbuf))->left;
	UnlockReleaseBuffer(lbuf);
	while (leftblk != InvalidBlockNumber)
	{
		sbuf = csb_get_buffer(index, leftblk, BUFFER_LOCK_EXCLUSIVE);
		op = CsbPageGetOpaque(BufferGetPage(sbuf));
		if (op->right == blkno && !CsbPageIsDeleted(op))
			break;
		/* it split meanwhile: the page we look for is right of it */
		leftblk = op->right;
		UnlockReleaseBuffer(sbuf);
		sbuf = InvalidBuffer;
		if (leftblk == blkno || leftblk == InvalidBlockNumber)
		{
			UnlockReleaseBuffer(pbuf);
			return false;
		}
	}

	/* 4. The leaf itself, pinned by nobody else, and unchanged. */
	lbuf = ReadBuffer(index, blkno);
	if (!ConditionalLockBufferForCleanup(lbuf))
	{
		ReleaseBuffer(lbuf);
		if (BufferIsValid(sbuf))
			UnlockReleaseBuffer(sbuf);
		UnlockReleaseBuffer(pbuf);
		return false;
	}
	page = BufferGetPage(lbuf);
	op = CsbPageGetOpaque(page);
	if (!csb_leaf_deletable(op, page) || op->left != leftblk || op->right != rightblk)
	{
		UnlockReleaseBuffer(lbuf);
		if (BufferIsValid(sbuf))
			UnlockReleaseBuffer(sbuf);
		UnlockReleaseBuffer(pbuf);
		return false;
	}

	/* 5. The right sibling. */
	rbuf = csb_get_buffer(index, rightblk, BUFFER_LOCK_EXCLUSIVE);
	if (CsbPageGetOpaque(BufferGetPage(rbuf))->left != blkno)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("csbtree: left-link of block %u is not block %u in index \"%s\"",
						rightblk, blkno, RelationGetRelationName(index))));

	/*
	 * 6. One WAL record for all four pages.  Scans that read a stale link
	 * to the leaf find it deleted and move right; it keeps its links (and
	 * high key) for them until it is recycled.
	 */
	safexid = ReadNextFullTransactionId();
	xs = qs_genxlog_start(index);
	p = qs_genxlog_register(xs, pbuf, 0);
	{
		IndexTuple	down = (IndexTuple) PageGetItem(p, PageGetItemId(p, off));
		OffsetNumber next = off + 1;

		ItemPointerSetBlockNumber(&down->t_tid, rightblk);
		csb_delete_items(p, &next, 1);
		csb_rebuild_directory(st, p);
	}
	if (BufferIsValid(sbuf))
		CsbPageGetOpaque(qs_genxlog_register(xs, sbuf, 0))->right = rightblk;
	p = qs_genxlog_register(xs, lbuf, 0);
	op = CsbPageGetOpaque(p);
	op->flags |= CSB_DELETED;
	op->delxid_hi = (uint32) (U64FromFullTransactionId(safexid) >> 32);
	op->delxid_lo = (uint32) U64FromFullTransactionId(safexid);
	CsbPageGetOpaque(qs_genxlog_register(xs, rbuf, 0))->left = leftblk;
	qs_genxlog_finish(xs);

	UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(lbuf);
	if (BufferIsValid(sbuf))
		UnlockReleaseBuffer(sbuf);
	UnlockReleaseBuffer(pbuf);
	return true;
}

/*
 * csb_vacuum_page
 *		Remove the dead items of one page (cleanup-locked), count the live
 *		ones, account for deleted pages and recycle those that may be.
 *		Returns the right-link of a live leaf (else InvalidBlockNumber) and
 *		sets *empty when the leaf is left without items.
 */
static BlockNumber
csb_vacuum_page(CsbVacState *vs, BlockNumber blkno, bool *empty)
{
	Relation	index = vs->info->index;
	Buffer		buf;
	Page		page;
	CsbPageOpaque op;
	OffsetNumber deletable[CSB_MAX_ITEMS];
	int			ndel;
	double		nlive;
	bool		locked_for_cleanup;
	OffsetNumber off,
				maxoff;
	BlockNumber right;

	*empty = false;
	qs_csb_vacuum_delay_point();
	buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL, vs->info->strategy);

	/*
	 * A share lock to look; the cleanup lock, which waits until no scan
	 * holds a pin on the page, only when there are items to remove (it
	 * keeps us from removing items a scan has copied but not yet returned;
	 * a page we do not change needs no such wait, and a cursor parked on
	 * it does not hold VACUUM up).
	 */
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	locked_for_cleanup = false;
recheck:
	page = BufferGetPage(buf);
	op = CsbPageGetOpaque(page);
	if (PageIsNew(page) || op->page_id != CSB_PAGE_ID)
	{
		UnlockReleaseBuffer(buf);
		return InvalidBlockNumber;
	}
	if (CsbPageIsDeleted(op))
	{
		if (csb_page_recyclable(page))
		{
			RecordFreeIndexPage(index, blkno);
			vs->stats->pages_free++;
			vs->recorded = true;
		}
		vs->stats->pages_deleted++;
		UnlockReleaseBuffer(buf);
		return InvalidBlockNumber;
	}
	if (!CsbPageIsLeaf(op))
	{
		UnlockReleaseBuffer(buf);
		return InvalidBlockNumber;
	}
	maxoff = csb_maxoff(page);
	ndel = 0;
	nlive = 0;
	for (off = CsbFirstData(op); off <= maxoff; off++)
	{
		CsbTupBuf	tb;
		IndexTuple	itup = csb_item(page, off, &tb);

		if (vs->callback && vs->callback(&itup->t_tid, vs->callback_state))
			deletable[ndel++] = off;
		else
			nlive += 1;
	}
	if (ndel > 0 && !locked_for_cleanup)
	{
		/* the page may change while unlocked: look again */
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		LockBufferForCleanup(buf);
		locked_for_cleanup = true;
		goto recheck;
	}
	vs->ntuples += nlive;
	if (ndel > 0)
	{
		QsGenXLogState *xs = qs_genxlog_start(index);
		Page		p = qs_genxlog_register(xs, buf, 0);

		csb_delete_items(p, deletable, ndel);
		csb_rebuild_directory(vs->st, p);
		qs_genxlog_finish(xs);
		vs->stats->tuples_removed += ndel;
	}
	*empty = csb_leaf_deletable(op, page);
	right = op->right;
	UnlockReleaseBuffer(buf);
	return right;
}

/*
 * Items move only right, into the new page of a split.  Before pages were
 * recycled, new pages were appended to the file, so a scan in block order
 * up to the current length (and then over the blocks added meanwhile) saw
 * every item that existed when VACUUM began.  A split may now put its new
 * page at a recycled block behind the scan, moving items of a page not yet
 * scanned there.  So after each leaf, the scan also follows its right-links
 * as long as they lead to lower block numbers (nbtree backtracks the same
 * way, for pages its vacuum cycle id marks as split): when the scan reaches
 * the split page, the moved items are found through its right-link, or
 * through the right-link of a page further right that the scan has yet to
 * reach.  Visiting a page twice is harmless.
 */
static void
csb_vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	CsbVacState vs;
	BlockNumber blkno = CSB_METAPAGE + 1;
	BlockNumber nblocks;

	memset(&vs, 0, sizeof(vs));
	vs.info = info;
	vs.stats = stats;
	vs.callback = callback;
	vs.callback_state = callback_state;
	vs.st = csb_init_state(index);
	stats->pages_deleted = 0;
	stats->pages_free = 0;

	for (;;)
	{
		nblocks = RelationGetNumberOfBlocks(index);
		if (blkno >= nblocks)
			break;
		for (; blkno < nblocks; blkno++)
		{
			bool		empty;
			BlockNumber right = csb_vacuum_page(&vs, blkno, &empty);

			if (empty && csb_delete_leaf(vs.st, blkno))
			{
				stats->pages_newly_deleted++;
				stats->pages_deleted++;
			}
			while (right != InvalidBlockNumber && right < blkno)
			{
				BlockNumber back = right;

				right = csb_vacuum_page(&vs, back, &empty);
				if (empty && csb_delete_leaf(vs.st, back))
				{
					stats->pages_newly_deleted++;
					stats->pages_deleted++;
				}
			}
		}
	}

	/* make the recorded pages findable by GetFreeIndexPage */
	if (vs.recorded)
		IndexFreeSpaceMapVacuum(index);

	stats->num_pages = nblocks;
	stats->num_index_tuples = vs.ntuples;
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
		/*
		 * No bulk-delete pass: count the items, delete empty leaves and
		 * recycle the pages earlier passes deleted.
		 */
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		csb_vacuum_scan(info, stats, NULL, NULL);
	}
	return stats;
}
