/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between PostgreSQL 15 and PostgreSQL 18 that
 *	  quickstep_am meets is hidden here, and nowhere else.
 *
 * Code outside this header never tests PG_VERSION_NUM.  When a module needs
 * an API that moved between the supported majors, add a macro or an inline
 * wrapper here, named after the newest spelling.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COMPAT_H
#define QS_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "quickstep_am supports PostgreSQL 15 to 18"
#endif

#define QS_PG_MAJOR (PG_VERSION_NUM / 10000)

/*
 * PG 16 renamed RelFileNode to RelFileLocator (and rd_node to rd_locator).
 * We use the new names; on 15 they map to the old ones.
 */
#if PG_VERSION_NUM < 160000
#include "storage/relfilenode.h"
typedef RelFileNode RelFileLocator;
#define QS_REL_LOCATOR(rel) ((rel)->rd_node)
#else
#include "storage/relfilelocator.h"
#define QS_REL_LOCATOR(rel) ((rel)->rd_locator)
#endif

/*
 * PG 18 lets a module describe itself in its magic block (shown by
 * pg_get_loaded_modules()); older servers have only the plain block.
 */
#if PG_VERSION_NUM >= 180000
#define QS_MODULE_MAGIC(modname, modversion) \
	PG_MODULE_MAGIC_EXT(.name = (modname), .version = (modversion))
#else
#define QS_MODULE_MAGIC(modname, modversion) PG_MODULE_MAGIC
#endif

/*
 * qs_extend_fork
 *		Add one zeroed page to a fork of a relation (table or index); returns
 *		it pinned and exclusively locked.  Local relations need no extension
 *		lock, as in heap and nbtree.
 */
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

static inline Buffer
qs_extend_fork(Relation rel, ForkNumber fork, BufferAccessStrategy strategy)
{
#if PG_VERSION_NUM < 160000
	Buffer		buf;
	bool		local = RELATION_IS_LOCAL(rel);

	if (!local)
		LockRelationForExtension(rel, ExclusiveLock);
	/*
	 * Locked inside ReadBuffer, as heap's hio.c does: between a plain
	 * P_NEW read and LockBuffer, an inserter that picked the new last page
	 * as its target could take the content lock first and fill the page.
	 */
	buf = ReadBufferExtended(rel, fork, P_NEW, RBM_ZERO_AND_LOCK, strategy);
	if (!local)
		UnlockRelationForExtension(rel, ExclusiveLock);
	return buf;
#else
	return ExtendBufferedRel(BMR_REL(rel), fork, strategy, EB_LOCK_FIRST);
#endif
}

/*
 * smgropen of a relfilelocator of the given persistence (the backend of
 * a temporary relation is this one).
 */
#include "storage/smgr.h"
#if PG_VERSION_NUM < 170000
#define QS_SMGROPEN(loc, persistence) \
	smgropen((loc), (persistence) == RELPERSISTENCE_TEMP ? MyBackendId : InvalidBackendId)
#else
#define QS_SMGROPEN(loc, persistence) \
	smgropen((loc), (persistence) == RELPERSISTENCE_TEMP ? MyProcNumber : INVALID_PROC_NUMBER)
#endif

/* Is the current user the owner of relation relid (PG 16 renamed the check)? */
#include "miscadmin.h"
#include "utils/acl.h"
#if PG_VERSION_NUM >= 160000
#include "catalog/pg_class.h"
#define qs_rel_owned_by_user(relid) \
	object_ownercheck(RelationRelationId, (relid), GetUserId())
#else
#define qs_rel_owned_by_user(relid) pg_class_ownercheck((relid), GetUserId())
#endif

/* A function that never returns (PG 18 replaced the attribute macro). */
#if PG_VERSION_NUM >= 180000
#define QS_NORETURN_PREFIX pg_noreturn
#define QS_NORETURN_SUFFIX
#else
#define QS_NORETURN_PREFIX
#define QS_NORETURN_SUFFIX pg_attribute_noreturn()
#endif

/* ---- csbtree ---- */
/*
 * csbtree: the PG 15 / PG 18 differences met by the csbtree index AM.
 */
#include "access/amapi.h"
#include "commands/vacuum.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/pg_locale.h"

/* A new, zeroed, exclusively locked page at the end of a fork. */
#define qs_csb_new_buffer(rel, fork) qs_extend_fork((rel), (fork), NULL)

/* Does the collation sort text byte by byte (memcmp order)? */
static inline bool
qs_csb_collate_is_c(Oid collation)
{
	if (!OidIsValid(collation))
		return false;
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collation)->collate_is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

#if PG_VERSION_NUM >= 180000
#define qs_csb_vacuum_delay_point() vacuum_delay_point(false)
#else
#define qs_csb_vacuum_delay_point() vacuum_delay_point()
#endif

/*
 * IndexAmRoutine fields newer than PG 15 (makeNode zero-fills the rest).
 * PG 18 maps the btree-numbered strategies to compare types through the
 * AM, which the planner needs to use an ordered index for ORDER BY.
 */
#if PG_VERSION_NUM >= 180000
#define QS_CSB_HAS_TRANSLATE 1
extern CompareType csb_translate_strategy(StrategyNumber strategy, Oid opfamily);
extern StrategyNumber csb_translate_cmptype(CompareType cmptype, Oid opfamily);
#define QS_CSB_AMROUTINE_EXTRA(r) \
	do { \
		(r)->amconsistentequality = true; \
		(r)->amconsistentordering = true; \
		(r)->amtranslatestrategy = csb_translate_strategy; \
		(r)->amtranslatecmptype = csb_translate_cmptype; \
	} while (0)
#else
#define QS_CSB_AMROUTINE_EXTRA(r) ((void) 0)
#endif

/* PG 18 counts index descents for EXPLAIN ANALYZE ("Index Searches"). */
#if PG_VERSION_NUM >= 180000
#define QS_CSB_COUNT_SEARCH(scan) \
	do { if ((scan)->instrument) (scan)->instrument->nsearches++; } while (0)
#else
#define QS_CSB_COUNT_SEARCH(scan) ((void) 0)
#endif
/* ---- end csbtree ---- */

/* PG 18 gave heap_form_minimal_tuple room for a prefix (extra) */
#if PG_VERSION_NUM >= 180000
#define qs_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull), 0)
#else
#define qs_form_minimal_tuple(desc, values, isnull) \
	heap_form_minimal_tuple((desc), (values), (isnull))
#endif

/* ---- tableam ---- */
/*
 * Table access method differences (src/tableam/, src/page/).
 */
#include "access/heapam.h"
#include "access/heapam_xlog.h"
#include "access/tableam.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/tuplesort.h"

/* relation_set_new_filenode (15) became relation_set_new_filelocator (16). */
#if PG_VERSION_NUM < 160000
#define QS_AM_SET_NEW_FILELOCATOR relation_set_new_filenode
#define QS_UPDATE_INDEXES_T bool
#define QS_SET_UPDATE_ALL(p) (*(p) = true)
/* a HOT update: no index entries (PG 15 has no summarizing indexes) */
#define QS_SET_UPDATE_HOT(p, summarized) ((void) (summarized), *(p) = false)
#define QS_HeapTupleHeaderAdvanceConflictHorizon HeapTupleHeaderAdvanceLatestRemovedXid
#define qs_tuplesort_getdatum(st, fwd, val, isnull) \
	tuplesort_getdatum((st), (fwd), (val), (isnull), NULL)
#define qs_pgstat_count_heap_update(rel, hot, newpage) ((void) (newpage), pgstat_count_heap_update((rel), (hot)))
/* pgstat_count_heap_getnext n times at once (PG 16 renamed the counter) */
#define qs_pgstat_count_heap_getnext_n(rel, n) \
	do { \
		if (pgstat_should_count_relation(rel)) \
			(rel)->pgstat_info->t_counts.t_tuples_returned += (n); \
	} while (0)
#else
#define QS_AM_SET_NEW_FILELOCATOR relation_set_new_filelocator
#define QS_UPDATE_INDEXES_T TU_UpdateIndexes
#define QS_SET_UPDATE_ALL(p) (*(p) = TU_All)
/* a HOT update: entries only in summarizing indexes whose columns changed */
#define QS_SET_UPDATE_HOT(p, summarized) (*(p) = (summarized) ? TU_Summarizing : TU_None)
#define QS_HeapTupleHeaderAdvanceConflictHorizon HeapTupleHeaderAdvanceConflictHorizon
#define qs_tuplesort_getdatum(st, fwd, val, isnull) \
	tuplesort_getdatum((st), (fwd), false, (val), (isnull), NULL)
#define qs_pgstat_count_heap_update(rel, hot, newpage) pgstat_count_heap_update((rel), (hot), (newpage))
#define qs_pgstat_count_heap_getnext_n(rel, n) \
	do { \
		if (pgstat_should_count_relation(rel)) \
			(rel)->pgstat_info->counts.tuples_returned += (n); \
	} while (0)
#endif

/* PG 18 added logLockFailure to the conditional lock waits. */
#if PG_VERSION_NUM < 180000
#define qs_ConditionalLockTuple(rel, tid, mode) ConditionalLockTuple((rel), (tid), (mode))
#define qs_ConditionalXactLockTableWait(xid) ConditionalXactLockTableWait(xid)
#else
#define qs_ConditionalLockTuple(rel, tid, mode) ConditionalLockTuple((rel), (tid), (mode), false)
#define qs_ConditionalXactLockTableWait(xid) ConditionalXactLockTableWait((xid), false)
#endif

/* PG 17 feeds ANALYZE blocks through a read stream. */
#if PG_VERSION_NUM >= 170000
#define QS_ANALYZE_STREAM 1
#endif

/*
 * PG 18 reworked bitmap table scans: one next_tuple callback iterating the
 * TBMIterator kept in the scan descriptor.
 */
#if PG_VERSION_NUM >= 180000
#define QS_BITMAP_ONE_CALLBACK 1
#endif

#define qs_extend_rel(rel, strategy) qs_extend_fork((rel), MAIN_FORKNUM, (strategy))

/* The init fork of an UNLOGGED table: PG 15 syncs it at once. */
#if PG_VERSION_NUM < 160000
#define qs_sync_init_fork(srel) smgrimmedsync((srel), INIT_FORKNUM)
#else
#define qs_sync_init_fork(srel) smgrimmedsync((srel), INIT_FORKNUM)
#endif
/* VACUUM cutoffs, statistics and index-vacuum info. */
#include "commands/vacuum.h"
#include "pgstat.h"
#include "utils/timestamp.h"

typedef struct QsVacuumCutoffs
{
	TransactionId OldestXmin;
	MultiXactId OldestMxact;
	TransactionId FreezeLimit;
	MultiXactId MultiXactCutoff;
} QsVacuumCutoffs;

/* returns whether this VACUUM must be aggressive (relfrozenxid/relminmxid old) */
static inline bool
qs_vacuum_get_cutoffs(Relation rel, struct VacuumParams *params,
					  QsVacuumCutoffs *c)
{
	bool		aggressive;
#if PG_VERSION_NUM < 160000
	aggressive = vacuum_set_xid_limits(rel, params->freeze_min_age, params->freeze_table_age,
						  params->multixact_freeze_min_age,
						  params->multixact_freeze_table_age,
						  &c->OldestXmin, &c->OldestMxact,
						  &c->FreezeLimit, &c->MultiXactCutoff);
#else
	struct VacuumCutoffs vc;

	aggressive = vacuum_get_cutoffs(rel, params, &vc);
	c->OldestXmin = vc.OldestXmin;
	c->OldestMxact = vc.OldestMxact;
	c->FreezeLimit = vc.FreezeLimit;
	c->MultiXactCutoff = vc.MultiXactCutoff;
#endif
	return aggressive;
}

#if PG_VERSION_NUM < 160000
#define QS_IVINFO_SET_HEAPREL(iv, rel) ((void) 0)
#else
#define QS_IVINFO_SET_HEAPREL(iv, rel) ((iv).heaprel = (rel))
#endif

#if PG_VERSION_NUM < 180000
#define qs_vac_update_relstats(rel, pages, tuples, hasindex, fxid, mmxid) \
	vac_update_relstats((rel), (pages), (tuples), 0, (hasindex), (fxid), (mmxid), NULL, NULL, false)
/* a table's: relallvisible (and PG 18's relallfrozen) from its visibility map */
#define qs_vac_update_relstats_vm(rel, pages, tuples, allvis, allfrozen, hasindex, fxid, mmxid) \
	((void) (allfrozen), vac_update_relstats((rel), (pages), (tuples), (allvis), (hasindex), (fxid), (mmxid), NULL, NULL, false))
#define qs_pgstat_report_vacuum(rel, live, dead, start) \
	((void) (start), pgstat_report_vacuum(RelationGetRelid(rel), (rel)->rd_rel->relisshared, (live), (dead)))
#define qs_vacuum_delay_point() vacuum_delay_point()
#else
#define qs_vacuum_delay_point() vacuum_delay_point(false)
#define qs_vac_update_relstats(rel, pages, tuples, hasindex, fxid, mmxid) \
	vac_update_relstats((rel), (pages), (tuples), 0, 0, (hasindex), (fxid), (mmxid), NULL, NULL, false)
#define qs_vac_update_relstats_vm(rel, pages, tuples, allvis, allfrozen, hasindex, fxid, mmxid) \
	vac_update_relstats((rel), (pages), (tuples), (allvis), (allfrozen), (hasindex), (fxid), (mmxid), NULL, NULL, false)
#define qs_pgstat_report_vacuum(rel, live, dead, start) \
	pgstat_report_vacuum(RelationGetRelid(rel), (rel)->rd_rel->relisshared, (live), (dead), (start))
#endif

/* index_beginscan gained an instrumentation argument in PG 18. */
#if PG_VERSION_NUM < 180000
#define qs_index_beginscan(heap, index, snap, nkeys, norderbys) \
	index_beginscan((heap), (index), (snap), (nkeys), (norderbys))
#else
#define qs_index_beginscan(heap, index, snap, nkeys, norderbys) \
	index_beginscan((heap), (index), (snap), NULL, (nkeys), (norderbys))
#endif

/* PG 18 has virtual generated columns, which take no room in a record. */
#if PG_VERSION_NUM < 180000
#define QS_ATT_IS_VIRTUAL(att) false
#else
#define QS_ATT_IS_VIRTUAL(att) ((att)->attgenerated == ATTRIBUTE_GENERATED_VIRTUAL)
#endif

#ifdef QS_ANALYZE_STREAM
#include "storage/read_stream.h"
#endif

/*
 * Can no row hold a NULL in attribute i (0-based)?  PG 18 has NOT NULL
 * constraints added NOT VALID: attnotnull is set, old rows may be NULL.
 */
#if PG_VERSION_NUM >= 180000
#define QS_ATT_NOTNULL_VALID(desc, i) \
	(TupleDescCompactAttr((desc), (i))->attnullability == ATTNULLABLE_VALID)
#else
#define QS_ATT_NOTNULL_VALID(desc, i) (TupleDescAttr((desc), (i))->attnotnull)
#endif
/* ---- end tableam ---- */
/* ---- scan ---- */
/* PG 18 split explain.h: the property printers and ExplainState moved. */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#else
#include "commands/explain.h"
#endif
/*
 * A path the user disabled (enable_seqscan = off for a sequential scan):
 * PG 18 counts disabled nodes, older servers add disable_cost.
 */
#if PG_VERSION_NUM >= 180000
#define QS_DISABLE_PATH(path) ((path)->disabled_nodes++)
#else
#define QS_DISABLE_PATH(path) \
	do { (path)->startup_cost += disable_cost; (path)->total_cost += disable_cost; } while (0)
#endif
/* ---- end scan ---- */

/* ---- wal ---- */
/*
 * Logical decoding (src/wal/decode.c): PG 16 renamed the relation's
 * RelFileNode in a change to a RelFileLocator; PG 17 replaced
 * ReorderBufferTupleBuf by a plain HeapTuple; PG 18 renamed the reorder
 * buffer's Get functions to Alloc.
 */
#include "replication/reorderbuffer.h"

#if PG_VERSION_NUM < 160000
#define QS_LOCATOR_SPC(l) ((l).spcNode)
#define QS_LOCATOR_DB(l) ((l).dbNode)
#define QS_LOCATOR_REL(l) ((l).relNode)
#define QS_CHANGE_LOCATOR(change) ((change)->data.tp.relnode)
#else
#define QS_LOCATOR_SPC(l) ((l).spcOid)
#define QS_LOCATOR_DB(l) ((l).dbOid)
#define QS_LOCATOR_REL(l) ((l).relNumber)
#define QS_CHANGE_LOCATOR(change) ((change)->data.tp.rlocator)
#endif

#if PG_VERSION_NUM < 170000
typedef ReorderBufferTupleBuf *QsRBTuple;
#define QS_RB_HEAPTUPLE(t) (&(t)->tuple)
#else
typedef HeapTuple QsRBTuple;
#define QS_RB_HEAPTUPLE(t) (t)
#endif

#if PG_VERSION_NUM < 180000
#define qs_rb_alloc_tuple(rb, len) ReorderBufferGetTupleBuf((rb), (len))
#define qs_rb_alloc_change(rb) ReorderBufferGetChange(rb)
#else
#define qs_rb_alloc_tuple(rb, len) ReorderBufferAllocTupleBuf((rb), (len))
#define qs_rb_alloc_change(rb) ReorderBufferAllocChange(rb)
#endif
/* ---- end wal ---- */


/* ---- aggregate pushdown (src/scan/aggplan.c, aggexec.c) ---- */
#include "executor/executor.h"

/* PG 18 asks whether the relation is a result relation. */
#if PG_VERSION_NUM < 180000
#define qs_exec_rt_relation(estate, rti) ExecGetRangeTableRelation((estate), (rti))
#else
#define qs_exec_rt_relation(estate, rti) ExecGetRangeTableRelation((estate), (rti), false)
#endif

/* PG 16 plans grouping with the GROUP BY clauses left after redundancy. */
#if PG_VERSION_NUM < 160000
#define QS_GROUP_CLAUSE(root) ((root)->parse->groupClause)
#else
#define QS_GROUP_CLAUSE(root) ((root)->processed_groupClause)
#endif

/* ---- end aggregate pushdown ---- */

#endif							/* QS_COMPAT_H */
