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
 *	  would not report (heap's row would still be at that TID).
 *
 *	  So pruning and VACUUM keep a dead stub while a SIREAD lock names its
 *	  TID or its page (qs_stub_locked) whose holder may have read the stub
 *	  (its snapshot xmin is not past the merge, or unknown: summarized
 *	  transactions), and a writer checks the origin only
 *	  while its stub is there (qs_stub_is_origin).  Why a removed stub's
 *	  TID needs no check: it is removed only when dead, so every snapshot
 *	  sees its merge and no reader can read it, hence lock it, any more;
 *	  the locks read after that moment (predicate.c's whole lock table,
 *	  GetPredicateLockStatusData, which holds summarized and prepared
 *	  transactions' locks too) include every lock a reader of the stub
 *	  still holds, and there was none on it or its page.  A lock taken on
 *	  that TID or page later is a new row's.  A caller reads the table after
 *	  the horizon test that found its stubs dead (VACUUM: after its
 *	  OldestXmin; pruning: after the whole page is classified).  Without
 *	  SERIALIZABLE transactions the table is empty and stubs go when dead,
 *	  as before.
 *
 * src/merge/stubs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "storage/bufmgr.h"
#include "storage/predicate_internals.h"
#include "utils/rel.h"

#include "column/colstore.h"
#include "core/compat.h"
#include "merge/moved.h"
#include "merge/stubs.h"
#include "page/layout.h"
#include "tableam/engine.h"

static inline uint64
lock_key(BlockNumber blk, OffsetNumber off)
{
	return ((uint64) blk << 16) | off;
}

static int
cmp_lock(const void *a, const void *b)
{
	uint64		x = ((const QsStubLock *) a)->key,
				y = ((const QsStubLock *) b)->key;

	return x < y ? -1 : x > y;
}

/* this relation's page and tuple targets, from the lock table as it is now */
static void
load_locks(Relation rel, QsStubLocks *l)
{
	PredicateLockData *d = GetPredicateLockStatusData();
	Oid			db = QS_LOCATOR_DB(QS_REL_LOCATOR(rel));
	Oid			relid = RelationGetRelid(rel);

	l->n = 0;
	l->locks = palloc(sizeof(QsStubLock) * Max(d->nelements, 1));
	for (int i = 0; i < d->nelements; i++)
	{
		PREDICATELOCKTARGETTAG *t = &d->locktags[i];

		/*
		 * Relation targets need no stub: a writer of the main copy checks
		 * the relation's lock with its own TID's
		 */
		if (GET_PREDICATELOCKTARGETTAG_DB(*t) != db ||
			GET_PREDICATELOCKTARGETTAG_RELATION(*t) != relid ||
			GET_PREDICATELOCKTARGETTAG_TYPE(*t) == PREDLOCKTAG_RELATION)
			continue;
		l->locks[l->n].key =
			lock_key(GET_PREDICATELOCKTARGETTAG_PAGE(*t),
					 GET_PREDICATELOCKTARGETTAG_TYPE(*t) == PREDLOCKTAG_TUPLE ?
					 GET_PREDICATELOCKTARGETTAG_OFFSET(*t) : 0);
		l->locks[l->n].xmin = d->xacts[i].xmin;
		l->n++;
	}
	qsort(l->locks, l->n, sizeof(QsStubLock), cmp_lock);
	pfree(d->locktags);
	pfree(d->xacts);
	pfree(d);
	l->loaded = true;
}

/*
 * A lock on 'key' whose holder may have read a version merge 'mover' moved:
 * its snapshot did not see the merge, so its xmin is at most the merge's
 * (or unknown).  A lock of a transaction whose snapshot saw the merge (a
 * reader of new rows on the page) does not keep the stub.
 */
static bool
locked_by_reader(const QsStubLocks *l, uint64 key, TransactionId mover)
{
	int			lo = 0,
				hi = l->n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (l->locks[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->n && l->locks[lo].key == key; lo++)
		if (!TransactionIdIsValid(l->locks[lo].xmin) ||
			TransactionIdPrecedesOrEquals(l->locks[lo].xmin, mover))
			return true;
	return false;
}

/*
 * qs_stub_locked
 *		Does a SIREAD lock of a transaction that may have read it name the
 *		dead stub at (blk, off) of 'rel', moved by merge 'mover', or its
 *		page?  The lock table is read on the first call for 'locks' (zeroed
 *		by the caller; qs_stub_locks_free after): call it only after the
 *		horizon test that found the stub dead.
 */
bool
qs_stub_locked(Relation rel, QsStubLocks *locks, BlockNumber blk,
			   OffsetNumber off, TransactionId mover)
{
	/* as SerializationNeededForWrite: temporary tables take no lock */
	if (RelationUsesLocalBuffers(rel))
		return false;
	if (!locks->loaded)
		load_locks(rel, locks);
	return locked_by_reader(locks, lock_key(blk, off), mover) ||
		locked_by_reader(locks, lock_key(blk, 0), mover);
}

void
qs_stub_locks_free(QsStubLocks *locks)
{
	if (locks->locks)
		pfree(locks->locks);
	memset(locks, 0, sizeof(*locks));
}

/*
 * qs_stub_is_origin
 *		Is the record at 'origin' still the moved version whose main copy is
 *		'vtid'?  While it is, SIREAD locks on 'origin' are its readers'
 *		(nothing else lives at that TID); once it is gone, none of them
 *		remained (qs_stub_locked), and a lock there is a new row's.  Takes
 *		the page's share lock: call it with no buffer locked.
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
