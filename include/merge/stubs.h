/*-------------------------------------------------------------------------
 *
 * stubs.h
 *	  When a merge's moved delta versions may go: not while a SIREAD lock
 *	  names them (src/merge/README.md section 2, SERIALIZABLE, "TID reuse").
 *
 * include/merge/stubs.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_MERGE_STUBS_H
#define QS_MERGE_STUBS_H

#include "access/htup_details.h"
#include "storage/block.h"
#include "storage/off.h"
#include "utils/relcache.h"

/* One SIREAD lock on a page or tuple of the relation, and its holder's xmin */
typedef struct QsStubLock
{
	uint64		key;			/* page << 16 | offset (0: the page) */
	TransactionId xmin;			/* the holder's snapshot xmin; invalid:
								 * unknown (summarized transactions) */
} QsStubLock;

/* The SIREAD locks on one relation's pages and tuples, as read once. */
typedef struct QsStubLocks
{
	bool		loaded;
	int			n;
	QsStubLock *locks;			/* sorted by key */
} QsStubLocks;

extern bool qs_stub_locked(Relation rel, QsStubLocks *locks, BlockNumber blk,
						   OffsetNumber off, TransactionId mover);
extern void qs_stub_locks_free(QsStubLocks *locks);
extern bool qs_stub_is_origin(Relation rel, ItemPointer origin, ItemPointer vtid);

#endif							/* QS_MERGE_STUBS_H */
