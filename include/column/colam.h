/*-------------------------------------------------------------------------
 *
 * colam.h
 *	  The table AM of column tables (src/column/am.c, load.c).
 *
 * include/column/colam.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_COLAM_H
#define QS_COLUMN_COLAM_H

#include "core/compat.h"

#include "access/tableam.h"
#include "column/colstore.h"

/* load.c: bulk loads into main blocks (README section 6) */
#define QS_COL_LOAD_BLOCK_ROWS	150000
#define QS_COL_LOAD_BLOCK_BYTES ((Size) 128 * 1024 * 1024)

extern void qs_col_multi_insert(Relation rel, TupleTableSlot **slots,
								int ntuples, CommandId cid, int options,
								struct BulkInsertStateData *bistate);
extern void qs_col_tuple_insert(Relation rel, TupleTableSlot *slot,
								CommandId cid, int options,
								struct BulkInsertStateData *bistate);
extern void qs_col_finish_bulk_insert(Relation rel, int options);
extern void qs_colload_flush_rel(Relation rel);
extern void qs_colload_flush_tid(Relation rel, ItemPointer tid);
extern void qs_colload_flush_all(void);
extern uint64 qs_colload_flushes(void);
extern void qs_colload_forget_rel(Relation rel);

/* am.c */
extern const TableAmRoutine *qs_column_routine(void);
extern bool qs_is_column_rel(Relation rel);
extern bool qs_col_has_exclusion_index(Relation rel);
extern void qs_colmain_latest_tid(Relation rel, Snapshot snapshot,
								  ItemPointer tid, ItemPointerData vtid);
struct QsColDirectory;
extern void qs_colmain_conflict_horizon(Relation rel, ItemPointer tid,
										struct QsColDirectory *dir,
										TransactionId *horizon);

/* rewrite.c: CLUSTER and VACUUM FULL */
extern void qs_col_copy_for_cluster(Relation OldTable, Relation NewTable,
									Relation OldIndex, bool use_sort,
									TransactionId OldestXmin,
									TransactionId *xid_cutoff,
									MultiXactId *multi_cutoff,
									double *num_tuples, double *tups_vacuumed,
									double *tups_recently_dead);

/* check.c */
extern int64 qs_column_check(Relation rel);

/*
 * What the planner needs to cost a scan of a column table: the blocks a
 * scan may open (not retired, not a load still buffering), the rows and
 * pages they hold; the rest of the relation's pages is the delta (and the
 * directory).  From the directory alone: no block is opened.
 */
typedef struct QsColPlanShape
{
	double		blocks;
	double		main_rows;
	double		main_pages;
	double		delmap_pages;	/* at most: a block with a delete map has
								 * a root and up to one page per virtual
								 * page (without reading the roots) */
	bool		has_largest;
	QsColDirEntry largest;		/* the block with the most rows, of a
								 * transaction not aborted */
} QsColPlanShape;

extern void qs_column_plan_shape(Relation rel, QsColPlanShape *shape);
extern double qs_column_live_main_rows(Relation rel);

#endif							/* QS_COLUMN_COLAM_H */
