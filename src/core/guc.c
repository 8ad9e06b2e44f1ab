/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  The quickstep.* configuration parameters.
 *
 * Every parameter is documented in the top-level README.  The prefix is
 * reserved, so a misspelt quickstep.* name is an error rather than a silent
 * placeholder.
 *
 *-------------------------------------------------------------------------
 */
#include "core/quickstep.h"
#include "shared/shared_scan.h"

#include "merge/merge.h"
#include "merge/worker.h"

#include "utils/guc.h"

bool		qs_enable_pushdown = true;
bool		qs_enable_agg_pushdown = true;
int			qs_max_shared_scans = 64;
bool		qs_debug_undecodable = false;
int			qs_debug_vacuum_crash = 0;
int			qs_debug_dir_compact_min = -1;
bool		qs_debug_run_wait = false;
bool		qs_run_reuse_delta = true;
bool		qs_debug_merge_hold = false;
int			qs_debug_dir_wait = QS_DIR_WAIT_OFF;
int			qs_merge_commit_wait = 10;
bool		qs_debug_merge_commit_wait = false;
int			qs_column_delta_rows = 1000;
int			qs_merge_workers = 1;
int			qs_merge_naptime = 10;
int			qs_merge_threshold = 100000;

static const struct config_enum_entry dir_wait_options[] = {
	{"off", QS_DIR_WAIT_OFF, false},
	{"pack_step", QS_DIR_WAIT_PACK_STEP, false},
	{"lock_entry", QS_DIR_WAIT_LOCK_ENTRY, false},
	{"scan_read", QS_DIR_WAIT_SCAN_READ, false},
	{NULL, 0, false}
};

static const struct config_enum_entry shared_fault_options[] = {
	{"off", QS_FAULT_OFF, false},
	{"error_after_join", QS_FAULT_AFTER_JOIN, false},
	{"error_in_scan", QS_FAULT_IN_SCAN, false},
	{"error_in_delivery", QS_FAULT_IN_DELIVERY, false},
	{"fatal_after_join", QS_FAULT_FATAL + QS_FAULT_AFTER_JOIN, false},
	{"fatal_in_scan", QS_FAULT_FATAL + QS_FAULT_IN_SCAN, false},
	{"fatal_in_delivery", QS_FAULT_FATAL + QS_FAULT_IN_DELIVERY, false},
	{NULL, 0, false}
};

static const struct config_enum_entry force_merge_options[] = {
	{"off", QS_FORCE_MERGE_OFF, false},
	{"merge", QS_FORCE_MERGE_MERGE, false},
	{"merge_seal", QS_FORCE_MERGE_SEAL, false},
	{NULL, 0, false}
};

/*
 * Parameters settable in a session are defined always, so that their values
 * are validated even when the library was loaded late.  PGC_POSTMASTER ones
 * can only be defined while the postmaster loads the library (doing it later
 * is a FATAL error), so they exist only with shared_preload_libraries.
 */
void
qs_define_gucs(bool at_preload)
{
	DefineCustomBoolVariable("quickstep.enable_pushdown",
							 "Lets the planner use QuickstepScan, which evaluates restrictions inside quickstep storage.",
							 "When off, quickstep tables are scanned by the ordinary executor nodes.",
							 &qs_enable_pushdown,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("quickstep.enable_agg_pushdown",
							 "Lets the planner compute partial aggregates inside QuickstepScan over column tables.",
							 "When off (or when quickstep.enable_pushdown is off), aggregates over quickstep_column tables are PostgreSQL's over a scan's rows.",
							 &qs_enable_agg_pushdown,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * Column tables (src/column/load.c): the first rows of a loading
	 * command stay rows in the delta, so that small inserts do not make
	 * small blocks; the rest goes straight into column blocks.
	 */
	/*
	 * Column tables (src/column/readcache.c): memory a backend keeps of
	 * the blocks it fetched rows from by TID (index scans, UPDATE,
	 * DELETE, locks), so that the next fetch from a block does not gather
	 * and check its stripes again.
	 */
	DefineCustomIntVariable("quickstep.column_fetch_cache",
							"Memory of open column blocks a backend keeps for fetches of main rows by TID.",
							"A block's open columns take about its size on disk; fetches from more blocks than fit re-open a block each.",
							&qs_column_fetch_cache,
							256 * 1024,
							1024,
							INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("quickstep.column_delta_rows",
							"Rows of a command loading a quickstep_column table that go to its row delta before the rest is loaded into column blocks.",
							"0 loads every row of COPY, INSERT and CREATE TABLE AS into blocks.",
							&qs_column_delta_rows,
							1000,
							0,
							INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	/*
	 * For tests of the failure path of logical decoding (src/wal/): while
	 * on, this session's changes to quickstep tables are logged as
	 * undecodable, and publications warn about every quickstep table.
	 */
	DefineCustomBoolVariable("quickstep.debug_undecodable",
							 "Logs changes to quickstep tables as changes logical decoding cannot decode (for tests).",
							 "Decoding a committed transaction with such a change fails; never set it on a server with subscribers.",
							 &qs_debug_undecodable,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/* For crash tests of VACUUM giving back emptied column blocks (dir.c). */
	DefineCustomIntVariable("quickstep.debug_vacuum_crash",
							"Makes VACUUM of a column table PANIC at one step of retiring emptied blocks (for tests).",
							"1: after the index pass, 2: after a block is retired, 3: after its pages are given back, before they are marked so; 4: (any run write) after the first page of a run written into existing pages (given back, or a seal's move); 5: after a directory compaction appended its FREE-range entries; 6: after its first pack step; 7: as 4, but an ERROR instead of a PANIC; 0: never.",
							&qs_debug_vacuum_crash,
							0, 0, 7,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	/* For tests of the compaction of column tables' directories (dir.c). */
	DefineCustomIntVariable("quickstep.debug_dir_compact_min",
							"Removable directory entries at which VACUUM compacts a column table's directory (for tests).",
							"-1: the built-in rule, at least max(127, entries / 4); 0: whenever one entry is removable.",
							&qs_debug_dir_compact_min,
							-1, -1, INT_MAX,
							PGC_SUSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	/*
	 * For tests of a merging transaction that reads and changes the rows it
	 * moved (src/merge/README.md §2): what forced merges do, for merge().
	 */
	DefineCustomBoolVariable("quickstep.debug_merge_hold",
							 "Lets statements follow quickstep.merge() in its transaction, holding the moved rows against other sessions' changes (for tests).",
							 "Off, such a statement is refused: other sessions would wait for the merging transaction.",
							 &qs_debug_merge_hold,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * quickstep.seal()'s moves of runs down into empty pages (seal.c,
	 * run.c, README section 4.7 "The seal moves runs down"); off only to
	 * measure the file without them (bench W7).
	 */
	DefineCustomBoolVariable("quickstep.column_run_reuse_delta",
							 "Lets quickstep.seal() write column blocks again into empty pages below their runs (emptied delta pages included), so that VACUUM can truncate the file's end.",
							 "Off, quickstep.seal() moves no block; merges and loads are not affected either way.",
							 &qs_run_reuse_delta,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/* For isolation tests of run writes into given-back pages (run.c). */
	DefineCustomBoolVariable("quickstep.debug_run_wait",
							 "Makes a column run write wait for advisory lock (7401, 1) between choosing given-back pages (or a seal's window) and converting them (for tests).",
							 NULL,
							 &qs_debug_run_wait,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * For isolation tests of the compaction of column tables' directories
	 * (dir.c): a compaction between two pack steps (no lock held), or an
	 * in-place directory writer that found its entry (the metapage share-
	 * and the directory page exclusively locked), or a column scan (each
	 * participant of a parallel one) before it reads the directory for its
	 * main blocks (no lock held), waits for advisory lock (7401, 2), (7401,
	 * 3) or (7401, 5).
	 */
	DefineCustomEnumVariable("quickstep.debug_dir_wait",
							 "Makes a column directory compaction wait between two pack steps for advisory lock (7401, 2), an in-place directory writer wait holding its entry's page for advisory lock (7401, 3), or a column scan wait before it reads the directory for its main blocks for advisory lock (7401, 5) (for tests).",
							 NULL,
							 &qs_debug_dir_wait,
							 QS_DIR_WAIT_OFF,
							 dir_wait_options,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * NOWAIT and SKIP LOCKED meeting a row whose merge is committing
	 * (src/merge/moved.c): how long they wait for that commit before they
	 * treat the row as locked.
	 */
	DefineCustomIntVariable("quickstep.merge_commit_wait",
							"How long a NOWAIT or SKIP LOCKED row lock waits for the commit of a merge that moved the row.",
							NULL,
							&qs_merge_commit_wait,
							10, 0, 60000,
							PGC_USERSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	/* For tests of the above: a merge waits at its pre-commit. */
	DefineCustomBoolVariable("quickstep.debug_merge_commit_wait",
							 "Makes a merge wait at its pre-commit, holding its commit interlock, for advisory lock (7401, 4) (for tests).",
							 NULL,
							 &qs_debug_merge_commit_wait,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * For tests of the fault paths of shared scans (src/shared/registry.c,
	 * M1): a member fails at one point, and the others must finish with
	 * their rows and its slot must be freed.
	 */
	DefineCustomEnumVariable("quickstep.debug_shared_fault",
							 "Makes a shared scan member fail (ERROR or FATAL) at one point: after it joins, while it scans a chunk for others, or while it delivers (for tests).",
							 "The last two fire only when the member serves others.",
							 &qs_debug_shared_fault,
							 QS_FAULT_OFF,
							 shared_fault_options,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * For tests of the merge and the seal (src/merge/force.c): while set,
	 * every statement first merges (and seals) the quickstep_column tables
	 * it uses, in its own transaction.  Results must not change (THE RULE
	 * of src/merge/README.md); merges that cannot run are skipped.
	 */
	DefineCustomEnumVariable("quickstep.debug_force_merge",
							 "Merges (merge) or merges and seals (merge_seal) the column tables of every statement before it runs (for tests).",
							 "Skipped where quickstep.merge() could not run or another statement of the session has the table open.",
							 &qs_debug_force_merge,
							 QS_FORCE_MERGE_OFF,
							 force_merge_options,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * The merge worker (src/merge/launcher.c, worker.c): read by the
	 * launcher and its workers at each round, so a reload applies them.
	 */
	DefineCustomIntVariable("quickstep.merge_workers",
							"Maximum number of merge workers running at once (one per database).",
							"0 stops the background merges; quickstep.merge() still works.",
							&qs_merge_workers,
							1,
							0,
							QS_MERGE_WORKERS_MAX,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("quickstep.merge_naptime",
							"Time between two rounds of the merge launcher over the databases.",
							NULL,
							&qs_merge_naptime,
							10,
							1,
							INT_MAX / 1000,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("quickstep.merge_threshold",
							"Rows of a column table's delta that the merge worker could move before it merges the table.",
							"The worker merges a table whose delta holds more movable rows than this.",
							&qs_merge_threshold,
							100000,
							0,
							INT_MAX,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("quickstep.enable_shared_scan",
							 "Lets QuickstepScan scans of row tables join the table's shared-scan circle.",
							 "Off by default until a lone query is measured to pay nothing for it (src/shared/README.md).",
							 &qs_enable_shared_scan,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	if (at_preload)
		DefineCustomIntVariable("quickstep.max_shared_scans",
								"Number of concurrent shared-scan registrations the shared memory segment holds.",
								"0 turns shared scans off: no registry is made.",
								&qs_max_shared_scans,
								64,
								0,
								4096,
								PGC_POSTMASTER,
								0,
								NULL, NULL, NULL);

	MarkGUCPrefixReserved("quickstep");
}
