/*-------------------------------------------------------------------------
 *
 * stubs.c
 *	  Moved versions ("stubs") and SIREAD locks.  A serializable read of a
 *	  delta row locks its TID; after a merge moved the row, a write of its
 *	  main copy checks that lock through the origin TID its block keeps
 *	  (tableam/dml.c).  A stub is dead once every snapshot sees its merge,
 *	  but a reader that read it before may hold its lock longer: predicate.c
 *	  keeps a committed transaction's locks until every transaction that
 *	  overlapped it has ended.  If VACUUM gave the TID to a new row at once,
 *	  a lock on the new row would meet writers of the old main copy, and an
 *	  old reader's lock writers of the new row: serialization failures heap
 *	  would not report (its row would still be at that TID).
 *
 *	  So a dead stub stays until no such lock can matter, and a writer
 *	  checks the origin only while its stub is there (qs_stub_is_origin).
 *	  When is that?  Take a moment t when every snapshot sees merge M (the
 *	  stub is dead).  Every reader whose snapshot did not see M has ended
 *	  by t; every transaction that overlapped such a reader took its
 *	  snapshot before t, so its xmin is at most the next xid at t.  Once
 *	  that next xid is below the removal horizon, all of them have ended,
 *	  and predicate.c has let the reader's locks go.  One stamp in shared
 *	  memory serves all relations: (stamp_h, stamp_s) = (an xid below which
 *	  every merge was visible to all at t, the next xid at t); when stamp_s
 *	  becomes removable, every merge before stamp_h is done with (ok_h),
 *	  and a new stamp starts.  SIREAD locks do not survive a restart, and
 *	  neither does this state, which starts with nothing done with: stubs
 *	  then wait for one cycle (until the transactions running at the first
 *	  prune that meets one have ended).  Without shared memory (the library
 *	  not preloaded) stubs go when dead, as before.
 *
 *	  Locking: a spinlock over the three xids; ReadNextTransactionId and
 *	  horizon tests run outside it.
 *
 * src/merge/stubs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/rel.h"

#include "column/colstore.h"
#include "merge/moved.h"
#include "merge/stubs.h"
#include "page/layout.h"
#include "tableam/engine.h"

typedef struct QsStubState
{
	slock_t		mutex;
	TransactionId stamp_h;		/* every merge before it visible to all at t */
	TransactionId stamp_s;		/* the next xid at t; invalid: no stamp */
	TransactionId ok_h;			/* stubs of merges before it may go */
} QsStubState;

static QsStubState *stubs = NULL;

Size
qs_stubs_shmem_size(void)
{
	return MAXALIGN(sizeof(QsStubState));
}

void
qs_stubs_shmem_request(void)
{
	RequestAddinShmemSpace(qs_stubs_shmem_size());
}

/* shmem_startup_hook, under AddinShmemInitLock */
void
qs_stubs_shmem_init(void)
{
	bool		found;

	stubs = ShmemInitStruct("quickstep_am moved versions", qs_stubs_shmem_size(),
							&found);
	if (!found)
	{
		SpinLockInit(&stubs->mutex);
		stubs->stamp_h = InvalidTransactionId;
		stubs->stamp_s = InvalidTransactionId;
		stubs->ok_h = InvalidTransactionId;
	}
}

static bool
removable(TransactionId xid, GlobalVisState *vistest, TransactionId oldest_xmin)
{
	if (vistest != NULL)
		return GlobalVisTestIsRemovableXid(vistest, xid);
	return TransactionIdPrecedes(xid, oldest_xmin);
}

/*
 * qs_stub_removable
 *		May a moved version of merge 'mover', which the horizon ('vistest',
 *		else 'oldest_xmin') finds dead, be removed?  When not, *retry is the
 *		xid after whose removability to try again (a prune hint).
 */
bool
qs_stub_removable(TransactionId mover, GlobalVisState *vistest,
				  TransactionId oldest_xmin, TransactionId *retry)
{
	QsStubState s;
	TransactionId h;
	bool		changed = false;

	*retry = InvalidTransactionId;
	if (stubs == NULL)
		return true;
	SpinLockAcquire(&stubs->mutex);
	s = *stubs;
	SpinLockRelease(&stubs->mutex);
	if (TransactionIdIsValid(s.ok_h) && TransactionIdPrecedes(mover, s.ok_h))
		return true;

	/* the stamp done with: its merges may go; start the next */
	if (TransactionIdIsValid(s.stamp_s) &&
		removable(s.stamp_s, vistest, oldest_xmin))
	{
		if (!TransactionIdIsValid(s.ok_h) ||
			TransactionIdPrecedes(s.ok_h, s.stamp_h))
			s.ok_h = s.stamp_h;
		s.stamp_s = InvalidTransactionId;
		changed = true;
	}
	if (!TransactionIdIsValid(s.stamp_s))
	{
		/* mover is dead (the caller's test): so is every merge before it */
		h = mover;
		TransactionIdAdvance(h);
		if (vistest == NULL && TransactionIdPrecedes(h, oldest_xmin))
			h = oldest_xmin;
		s.stamp_h = h;
		s.stamp_s = ReadNextTransactionId();
		changed = true;
	}
	if (changed)
	{
		SpinLockAcquire(&stubs->mutex);
		/* another backend's newer stamp or promotion wins */
		if (stubs->stamp_s == InvalidTransactionId ||
			removable(stubs->stamp_s, vistest, oldest_xmin))
		{
			if (!TransactionIdIsValid(stubs->ok_h) ||
				(TransactionIdIsValid(s.ok_h) &&
				 TransactionIdPrecedes(stubs->ok_h, s.ok_h)))
				stubs->ok_h = s.ok_h;
			stubs->stamp_h = s.stamp_h;
			stubs->stamp_s = s.stamp_s;
		}
		s = *stubs;
		SpinLockRelease(&stubs->mutex);
	}
	if (TransactionIdIsValid(s.ok_h) && TransactionIdPrecedes(mover, s.ok_h))
		return true;
	*retry = s.stamp_s;
	return false;
}

/*
 * qs_stub_is_origin
 *		Is the record at 'origin' still the moved version whose main copy is
 *		'vtid'?  While it is, SIREAD locks on 'origin' are its readers'
 *		(nothing else lives at that TID); once it is gone, none of them can
 *		matter any more (qs_stub_removable), and a lock there is a new row's.
 *		Takes the page's share lock: call it with no buffer locked.
 */
bool
qs_stub_is_origin(Relation rel, ItemPointer origin, ItemPointer vtid)
{
	const QsPageLayout *L = qs_layout_of(rel);
	BlockNumber blkno = ItemPointerGetBlockNumber(origin);
	OffsetNumber off = ItemPointerGetOffsetNumber(origin);
	Buffer		buf;
	Page		page;
	bool		is = false;

	if (blkno >= RelationGetNumberOfBlocks(rel))
		return false;
	buf = ReadBuffer(rel, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	/* a page VACUUM gave to a delete map or a run holds no delta record */
	if (!PageIsNew(page) && !qs_is_column_page(page) &&
		off <= qs_page_max_offset(L, page) &&
		qs_page_record_state(L, page, off) == QS_REC_NORMAL)
	{
		HeapTupleHeaderData scratch;
		HeapTupleHeader h = qs_page_get_header(L, page, off, &scratch, NULL);

		is = qs_header_moved(h) && ItemPointerEquals(&h->t_ctid, vtid);
	}
	UnlockReleaseBuffer(buf);
	return is;
}
