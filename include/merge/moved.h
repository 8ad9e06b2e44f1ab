/*-------------------------------------------------------------------------
 *
 * moved.h
 *	  Delta versions a merge moved into a main block (src/merge/README.md).
 *
 * A merge is an ordinary transaction M.  It writes the moved rows as a main
 * block whose directory entry has xmin = M, and marks each moved delta
 * version: xmax = M, t_ctid = the row's virtual TID in that block, and
 * QS_INFOMASK2_MOVED in t_infomask2 (bit 0x1000: heap leaves bits 11-12
 * unused, HEAP_NATTS_MASK being 0x07FF and HEAP2_XACT_MASK 0xE000, so
 * heap's visibility routines never look at it).  Every MVCC snapshot
 * therefore counts a moved row exactly once: the delta version if it does
 * not see M, the main copy if it does.  What heap's routines would get
 * wrong about such an xmax (waits on M, TM_Updated, serialization
 * failures) is decided here before them: DML that meets a mark of a
 * running M cancels that row's move; once M committed it continues at the
 * main copy.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_MERGE_MOVED_H
#define QS_MERGE_MOVED_H

#include "access/htup_details.h"
#include "access/tableam.h"
#include "storage/bufmgr.h"
#include "utils/relcache.h"

/* the delta version was moved by the merge in its xmax (see above) */
#define QS_INFOMASK2_MOVED		0x1000

/*
 * A REPEATABLE READ / SERIALIZABLE transaction T whose snapshot does not
 * see M changed the row through the link: the delta version is deleted
 * for T's later commands.  T's xid (the subtransaction's) is then in
 * t_field3, free on such a version: neither its xmin (an inserter that
 * preceded every snapshot's xmin when M moved the row) nor its xmax (M)
 * is T's own, so heap's routines never read its command id; T's command
 * id stays in T's backend (moved.c, taken_marks).  The raw xmin and its
 * hint bits stay the inserter's: every other snapshot, a hot standby's
 * included, judges the version as before the mark, and no recovery
 * conflict is needed.
 */
#define QS_INFOMASK2_TAKEN		0x0800

#define QsTakenGetTaker(h)		((h)->t_choice.t_heap.t_field3.t_xvac)
#define QsTakenSetTaker(h, xid)	((h)->t_choice.t_heap.t_field3.t_xvac = (xid))

#define QS_INFOMASK2_BITS		(QS_INFOMASK2_MOVED | QS_INFOMASK2_TAKEN)

/*
 * The engine's DML result for a moved version: continue at tmfd->ctid
 * (the main copy); tmfd->xmax is the merge.  Never returned to PostgreSQL.
 */
#define QS_TM_MOVED				((TM_Result) 100)

/* does 'h' carry a live merge mark (not one of an aborted, hinted merge)? */
static inline bool
qs_header_moved(HeapTupleHeader h)
{
	return (h->t_infomask2 & QS_INFOMASK2_MOVED) != 0 &&
		(h->t_infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI)) == 0 &&
		TransactionIdIsNormal(HeapTupleHeaderGetRawXmax(h));
}

/* src/tableam/dml.c */
extern void qs_mark_taken(Relation rel, ItemPointer tid, ItemPointer link,
						  TransactionId mover, CommandId cid);

/* check.c */
struct QsColDirectory;
extern int64 qs_merge_check_links(Relation rel, const struct QsColDirectory *dir);

/* moved.c */
extern void qs_taken_note(Relation rel, ItemPointer tid, CommandId cid);
extern void qs_taken_install_hook(void);
extern void qs_merge_interlock(Relation rel, bool acquire);
extern bool qs_merge_interlock_try_wait(Relation rel);
extern void qs_merge_interlock_commit(Oid relid);
extern void qs_merge_debug_commit_wait(void);
extern void qs_moved_take_main(Relation rel, ItemPointer vtid,
							   Snapshot snapshot, CommandId cid);
extern bool qs_main_visible_unmerged(HeapTuple tp, TransactionId mover,
									 Snapshot snapshot, Buffer buf);
extern TransactionId qs_moved_merge_of(Relation rel, ItemPointer vtid,
									   Snapshot snapshot);
extern bool qs_crosscheck_visible(Relation rel, HeapTuple tp,
								  Snapshot crosscheck, Buffer buf);
extern bool qs_moved_conflict_pending(HeapTupleHeader h, bool valid,
									  ItemPointer link);
extern void qs_moved_conflict_out(Relation rel, ItemPointer link,
								  Snapshot snapshot);
extern bool qs_moved_visible(HeapTuple tup, Snapshot snapshot, bool valid);
extern bool qs_merged_block_hidden(TransactionId xmin, uint16 flags,
								   Snapshot snapshot);

#endif							/* QS_MERGE_MOVED_H */
