/*-------------------------------------------------------------------------
 *
 * engine_int.h
 *	  Internals shared by the files of the row-page engine (src/tableam/).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_TABLEAM_ENGINE_INT_H
#define QS_TABLEAM_ENGINE_INT_H

#include "core/compat.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "nodes/tidbitmap.h"
#include "page/layout.h"
#include "tableam/pagerange.h"

typedef struct QsScanDescData
{
	TableScanDescData base;
	const QsPageLayout *layout;
	BufferAccessStrategy strategy;

	BlockNumber nblocks;		/* blocks at scan start */
	bool		limits_set;
	BlockNumber startblock;		/* first block to scan */
	BlockNumber numblocks;		/* InvalidBlockNumber: to the end */

	bool		inited;
	BlockNumber cblock;			/* current block, or InvalidBlockNumber */
	Buffer		cbuf;			/* pinned current buffer */
	int			ntuples;		/* visible records on it */
	int			cindex;			/* position in vis[] */
	OffsetNumber vis[MaxHeapTuplesPerPage];
	bool		recheck;		/* bitmap scans (PG 18) */

	ParallelBlockTableScanWorkerData *pwork;

	const QsPageRange *skip;	/* pages passed unread (qs_scan_skip_pages) */
	int			nskip;

	ItemPointerData mintid;		/* TID range scans */
	ItemPointerData maxtid;

	OffsetNumber analyze_off;	/* ANALYZE */
} QsScanDescData;
typedef QsScanDescData *QsScanDesc;

/* scan.c */
extern bool qs_record_visible(const QsPageLayout *L, Relation rel, Buffer buf,
							  Page page, OffsetNumber off, Snapshot snapshot,
							  HeapTuple tup, HeapTupleHeaderData *scratch);
extern bool qs_fetch(Relation rel, const QsPageLayout *L, ItemPointer tid,
					 Snapshot snapshot, HeapTuple tup,
					 HeapTupleHeaderData *scratch, Buffer *buf);
extern TableScanDesc qs_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
								   ScanKey key, ParallelTableScanDesc pscan,
								   uint32 flags);
extern void qs_scan_rescan(TableScanDesc sscan, ScanKey key, bool set_params,
						   bool allow_strat, bool allow_sync, bool allow_pagemode);
extern void qs_scan_end(TableScanDesc sscan);
extern void qs_scan_skip_pages(TableScanDesc sscan, const QsPageRange *skip,
							   int nskip);
extern void qs_scan_set_limits(TableScanDesc sscan, BlockNumber start,
							   BlockNumber num);
extern bool qs_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
								TupleTableSlot *slot);
extern void qs_scan_set_tidrange(TableScanDesc sscan, ItemPointer mintid,
								 ItemPointer maxtid);
extern bool qs_scan_getnextslot_tidrange(TableScanDesc sscan,
										 ScanDirection direction,
										 TupleTableSlot *slot);
#ifndef QS_BITMAP_ONE_CALLBACK
extern bool qs_scan_bitmap_next_block(TableScanDesc sscan,
									  TBMIterateResult *tbmres);
extern bool qs_scan_bitmap_next_tuple(TableScanDesc sscan,
									  TBMIterateResult *tbmres,
									  TupleTableSlot *slot);
#else
extern bool qs_scan_bitmap_next_tuple(TableScanDesc sscan, TupleTableSlot *slot,
									  bool *recheck, uint64 *lossy_pages,
									  uint64 *exact_pages);
extern void qs_scan_bitmap_load(TableScanDesc sscan, TBMIterateResult *tbmres);
extern bool qs_scan_bitmap_take(TableScanDesc sscan, TupleTableSlot *slot,
								bool *recheck);
#endif
extern void qs_scan_sample_load(TableScanDesc sscan, BlockNumber blockno);
extern BlockNumber qs_scan_nblocks(TableScanDesc sscan);
extern bool qs_scan_sample_next_block(TableScanDesc sscan,
									  struct SampleScanState *scanstate);
extern bool qs_scan_sample_next_tuple(TableScanDesc sscan,
									  struct SampleScanState *scanstate,
									  TupleTableSlot *slot);
#ifdef QS_ANALYZE_STREAM
extern bool qs_scan_analyze_next_block(TableScanDesc sscan,
									   struct ReadStream *stream);
#else
extern bool qs_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
									   BufferAccessStrategy bstrategy);
#endif
extern bool qs_scan_analyze_next_tuple(TableScanDesc sscan,
									   TransactionId OldestXmin,
									   double *liverows, double *deadrows,
									   TupleTableSlot *slot);
extern bool qs_fetch_row_version(Relation rel, ItemPointer tid,
								 Snapshot snapshot, TupleTableSlot *slot);
extern bool qs_tuple_tid_valid(TableScanDesc sscan, ItemPointer tid);
extern bool qs_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
										Snapshot snapshot);
extern void qs_get_latest_tid(TableScanDesc sscan, ItemPointer tid);
extern void qs_follow_latest_tid(Relation rel, Snapshot snapshot, ItemPointer tid,
								 ItemPointerData start, TransactionId priorXmax);
extern IndexFetchTableData *qs_index_fetch_begin(Relation rel);
extern void qs_index_fetch_reset(IndexFetchTableData *scan);
extern void qs_index_fetch_end(IndexFetchTableData *scan);
extern bool qs_index_fetch_tuple(IndexFetchTableData *scan, ItemPointer tid,
								 Snapshot snapshot, TupleTableSlot *slot,
								 bool *call_again, bool *all_dead);

/* dml.c */
extern void qs_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
							int options, struct BulkInsertStateData *bistate);
extern void qs_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
										CommandId cid, int options,
										struct BulkInsertStateData *bistate,
										uint32 specToken);
extern void qs_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
										  uint32 specToken, bool succeeded);
extern void qs_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
							CommandId cid, int options,
							struct BulkInsertStateData *bistate);
extern TM_Result qs_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
								 Snapshot snapshot, Snapshot crosscheck,
								 bool wait, TM_FailureData *tmfd,
								 bool changingPart);
extern TM_Result qs_tuple_update(Relation rel, ItemPointer otid,
								 TupleTableSlot *slot, CommandId cid,
								 Snapshot snapshot, Snapshot crosscheck,
								 bool wait, TM_FailureData *tmfd,
								 LockTupleMode *lockmode,
								 QS_UPDATE_INDEXES_T *update_indexes);
extern TM_Result qs_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
							   TupleTableSlot *slot, CommandId cid,
							   LockTupleMode mode, LockWaitPolicy wait_policy,
							   uint8 flags, TM_FailureData *tmfd);
extern void qs_finish_bulk_insert(Relation rel, int options);
/* place a fully prepared tuple (header set) on some page, WAL-logged */
extern void qs_place_tuple(Relation rel, const QsPageLayout *L, HeapTuple tup,
						   BufferAccessStrategy strategy, bool use_fsm);
extern void qs_place_tuple_ctid(Relation rel, const QsPageLayout *L,
								HeapTuple tup, BufferAccessStrategy strategy,
								bool use_fsm, const ItemPointerData *ctid);

/* ddl.c: CLUSTER / VACUUM FULL keep update chains (heap's rewriteheap.c) */
typedef struct QsRewriteChains QsRewriteChains;
extern QsRewriteChains *qs_rewrite_chains_begin(Relation NewTable,
												TransactionId OldestXmin,
												bool toast_big);
extern void qs_rewrite_chains_write(QsRewriteChains *rc, HeapTuple tup,
									ItemPointer old_tid,
									BufferAccessStrategy strategy);
extern bool qs_rewrite_chains_dead(QsRewriteChains *rc, HeapTupleHeader hdr,
								   ItemPointer old_tid);
extern void qs_rewrite_chains_end(QsRewriteChains *rc,
								  BufferAccessStrategy strategy);

#endif							/* QS_TABLEAM_ENGINE_INT_H */

/* ddl.c */
extern void qs_relation_set_new_filelocator(Relation rel,
											const RelFileLocator *newrlocator,
											char persistence,
											TransactionId *freezeXid,
											MultiXactId *minmulti);
extern void qs_relation_nontransactional_truncate(Relation rel);
extern void qs_relation_copy_data(Relation rel, const RelFileLocator *newrlocator);
extern bool qs_cluster_count(HTSV_Result status, double *num_tuples,
							 double *tups_vacuumed, double *tups_recently_dead);
extern void qs_relation_copy_for_cluster(Relation OldTable, Relation NewTable,
										 Relation OldIndex, bool use_sort,
										 TransactionId OldestXmin,
										 TransactionId *xid_cutoff,
										 MultiXactId *multi_cutoff,
										 double *num_tuples,
										 double *tups_vacuumed,
										 double *tups_recently_dead);
extern void qs_relation_estimate_size(Relation rel, int32 *attr_widths,
									  BlockNumber *pages, double *tuples,
									  double *allvisfrac);
extern bool qs_relation_needs_toast_table(Relation rel);
extern Oid	qs_relation_toast_am(Relation rel);

/* index.c */
extern double qs_index_build_range_scan(Relation tableRelation,
										Relation indexRelation,
										struct IndexInfo *indexInfo,
										bool allow_sync, bool anyvisible,
										bool progress,
										BlockNumber start_blockno,
										BlockNumber numblocks,
										IndexBuildCallback callback,
										void *callback_state,
										TableScanDesc scan);
extern void qs_index_validate_scan(Relation tableRelation,
								   Relation indexRelation,
								   struct IndexInfo *indexInfo,
								   Snapshot snapshot,
								   struct ValidateIndexState *state);
extern TransactionId qs_index_delete_tuples(Relation rel,
											TM_IndexDeleteOp *delstate);

/* prune.c (qs_page_prune_opt: engine.h) */
extern void qs_prune_clear_hints(const QsPageLayout *L, Page page,
								 const OffsetNumber *offs, int n);
extern int	qs_prune_page(Relation rel, const QsPageLayout *L, Buffer buf,
						  struct GlobalVisState *vistest,
						  TransactionId oldest_xmin);
extern void qs_hot_root_map(const QsPageLayout *L, Page page,
							BlockNumber blkno, OffsetNumber *root_offsets);
extern void qs_prune_execute(const QsPageLayout *L, Page page,
							 const OffsetNumber *redirected, int nredirected,
							 const OffsetNumber *dead, int ndead,
							 const OffsetNumber *unused, int nunused);

/* wal.c */
extern void qs_log_conflict(Relation rel, TransactionId horizon);
extern void qs_log_cleanup(Relation rel, Buffer buf, TransactionId horizon);
extern void qs_log_prune(Relation rel, Buffer buf, TransactionId horizon,
						 const OffsetNumber *redirected, int nredirected,
						 const OffsetNumber *dead, int ndead,
						 const OffsetNumber *unused, int nunused);
extern void qs_log_vm_clear(Relation rel, BlockNumber heapblk, Buffer vmbuf,
							uint8 flags);

/* vm.c: the visibility map fork */
extern void qs_vm_clear(Relation rel, Buffer buf);
extern void qs_vm_clear_bits(Relation rel, BlockNumber blk, Buffer vmbuf);
extern void qs_vm_clear_on_page(Page mappage, BlockNumber heapblk, uint8 flags);
extern void qs_vm_set(Relation rel, Buffer buf, Buffer vmbuf,
					  TransactionId cutoff, uint8 flags);

/* vacuum.c */
extern void qs_vacuum_rel(Relation rel, struct VacuumParams *params,
						  BufferAccessStrategy bstrategy);
extern void qs_vacuum_rel_ext(Relation rel, struct VacuumParams *params,
							  BufferAccessStrategy bstrategy,
							  TransactionId frozen_bound, double main_rows);
