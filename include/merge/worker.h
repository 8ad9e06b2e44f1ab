/*-------------------------------------------------------------------------
 *
 * worker.h
 *	  The merge worker of column tables (src/merge/launcher.c, worker.c)
 *	  and the merge counters in shared memory (src/merge/stats.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_MERGE_WORKER_H
#define QS_MERGE_WORKER_H

#include "datatype/timestamp.h"
#include "fmgr.h"

/* GUCs (src/core/guc.c) */
extern int	qs_merge_workers;		/* quickstep.merge_workers */
extern int	qs_merge_naptime;		/* quickstep.merge_naptime, seconds */
extern int	qs_merge_threshold;		/* quickstep.merge_threshold, rows */

#define QS_MERGE_WORKERS_MAX	8

/* launcher.c: _PG_init, at shared_preload_libraries time */
extern void qs_merge_launcher_register(void);

/* the entry points of the background workers (bgw_function_name) */
extern PGDLLEXPORT void qs_merge_launcher_main(Datum arg);
extern PGDLLEXPORT void qs_merge_worker_main(Datum arg);

/*
 * stats.c: counters per (database, table), in shared memory, reset at
 * restart.  Shared memory is requested and attached by src/core/shmem.c.
 */
extern Size qs_mergestats_shmem_size(void);
extern void qs_mergestats_shmem_request(void);
extern void qs_mergestats_shmem_init(void);

/*
 * A merge of relid in the current (sub)transaction moved rows in ms
 * milliseconds: counted when the top transaction commits, forgotten if it
 * (or the subtransaction) aborts.
 */
extern void qs_mergestats_note(Oid relid, int64 rows, double ms);

/* The last error of a merge of relid (not transactional). */
extern void qs_mergestats_error(Oid relid, const char *message);

/*
 * Per database: does it have the extension, as a worker last found it or
 * CREATE EXTENSION said; *known is false when nobody looked since start.
 */
extern void qs_mergestats_set_db(Oid dbid, bool has_ext);
extern bool qs_mergestats_get_db(Oid dbid, bool *has_ext, TimestampTz *checked);

/* Forget the counters of this database's tables that no longer exist. */
extern void qs_mergestats_prune_db(void);

#endif							/* QS_MERGE_WORKER_H */
