/*-------------------------------------------------------------------------
 *
 * quickstep.h
 *	  Process-wide state of quickstep_am: GUCs, shared memory, error helpers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_QUICKSTEP_H
#define QS_QUICKSTEP_H

#include "core/compat.h"

#include "storage/lwlock.h"
#include "utils/timestamp.h"

#define QS_EXTENSION_NAME	"quickstep_am"
#define QS_VERSION			"0.1"

/* GUCs (guc.c) */
extern bool qs_enable_pushdown;
extern bool qs_enable_agg_pushdown;
extern int	qs_column_delta_rows;
extern int	qs_column_fetch_cache;	/* kB, readcache.c */
extern int	qs_max_shared_scans;
extern bool qs_debug_undecodable;
extern int	qs_debug_vacuum_crash;	/* column VACUUM and run-write crash
											 * tests (dir.c, run.c) */
extern bool qs_debug_merge_hold;	/* merge() then statements: hold (merge.c) */
extern bool qs_debug_run_wait;	/* run write into freed pages waits (run.c) */
extern bool qs_run_reuse_delta;	/* runs into empty delta pages (run.c) */
extern int	qs_debug_dir_compact_min;	/* directory compaction trigger (dir.c) */
extern int	qs_debug_dir_wait;	/* directory wait points (dir.c) */
extern int	qs_merge_commit_wait;	/* ms, NOWAIT/SKIP LOCKED vs a committing
									 * merge (moved.c) */
extern bool qs_debug_merge_commit_wait;	/* merge pre-commit waits (moved.c) */

/*
 * quickstep.debug_dir_wait: where a column directory operation waits for
 * advisory lock (7401, value) (isolation tests, src/column/README.md 4.7).
 */
#define QS_DIR_WAIT_OFF			0
#define QS_DIR_WAIT_PACK_STEP	2	/* compaction, between two pack steps */
#define QS_DIR_WAIT_LOCK_ENTRY	3	/* qs_coldir_lock_entry, entry found */
#define QS_DIR_WAIT_SCAN_READ	5	/* a column scan (each parallel
										 * participant), before it reads the
										 * directory for the main blocks */

extern void qs_define_gucs(bool at_preload);

/*
 * Shared memory (shmem.c).  One struct per cluster, created at postmaster
 * start.  Modules that need shared state add fields here and account for
 * them in qs_shmem_size().
 */
typedef struct QsSharedState
{
	LWLock	   *lock;			/* protects the fields below it */
	TimestampTz started_at;		/* when the postmaster created the segment */
	int			max_shared_scans;	/* quickstep.max_shared_scans at start */
} QsSharedState;

extern QsSharedState *QsShared;

extern void qs_shmem_install_hooks(void);
extern Size qs_shmem_size(void);

/* True when _PG_init ran inside shared_preload_libraries processing. */
extern bool qs_loaded_at_preload;

/*
 * qs_require_preload
 *		Raise an error (with a hint) unless the library was preloaded.
 *
 * Everything that needs shared memory, the background worker or WAL redo
 * calls this first, so that a library loaded only by CREATE EXTENSION or
 * LOAD refuses clearly instead of touching memory that does not exist.
 */
extern void qs_require_preload(const char *what);

#endif							/* QS_QUICKSTEP_H */
