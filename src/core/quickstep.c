/*-------------------------------------------------------------------------
 *
 * quickstep.c
 *	  Module entry point: _PG_init and the preload check.
 *
 * quickstep_am needs shared memory, a background worker and WAL redo
 * callbacks, all of which exist only when the library is loaded by the
 * postmaster through shared_preload_libraries.  When it is loaded later
 * (CREATE EXTENSION, LOAD, a function call), _PG_init registers the GUCs
 * only, so that their values can still be validated, and every entry point
 * that needs the rest refuses with a hint instead of crashing.
 *
 *-------------------------------------------------------------------------
 */
#include "column/options.h"
#include "core/quickstep.h"
#include "merge/moved.h"
#include "merge/merge.h"
#include "merge/worker.h"
#include "column/colscan.h"
#include "scan/qscan.h"
#include "tableam/engine.h"
#include "wal/qsxlog.h"

#include "fmgr.h"
#include "miscadmin.h"

QS_MODULE_MAGIC(QS_EXTENSION_NAME, QS_VERSION);

bool		qs_loaded_at_preload = false;

void		_PG_init(void);

void
_PG_init(void)
{
	qs_loaded_at_preload = process_shared_preload_libraries_in_progress;

	qs_define_gucs(qs_loaded_at_preload);

	/*
	 * The planner hook and the custom scan node need no shared memory; they
	 * are installed in every process that loads the library (parallel
	 * workers must find the node's methods by name).
	 */
	qs_scan_init();

	/* warnings of CREATE / ALTER PUBLICATION (src/wal/publication.c) */
	qs_publication_install_hook();

	/*
	 * Fetched rows of column tables decode what their plan reads; PG 15: no
	 * executor prefetch of their virtual pages (src/column/fetchatts.c)
	 */
	qs_col_fetchatts_install_hook();

	/*
	 * quickstep.* options of column tables in CREATE TABLE [AS] and ALTER
	 * TABLE (src/column/options.c): core would reject them, so the hook
	 * must be there whenever such a statement can run.
	 */
	qs_colopts_install_hooks();

	/*
	 * A query that may meet a TAKEN mark of its own command runs without
	 * parallel workers (src/merge/moved.c)
	 */
	qs_taken_install_hook();

	/* quickstep.debug_force_merge (src/merge/force.c), tests only */
	qs_force_merge_install_hooks();

	if (!qs_loaded_at_preload)
		return;

	qs_shmem_install_hooks();
	qs_wal_register();

	/* the merge launcher, which starts the merge workers (src/merge) */
	qs_merge_launcher_register();
}

void
qs_require_preload(const char *what)
{
	if (!qs_loaded_at_preload || QsShared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("quickstep_am must be loaded via shared_preload_libraries to use %s",
						what),
				 errhint("Add '%s' to shared_preload_libraries in postgresql.conf and restart the server.",
						 QS_EXTENSION_NAME)));
}
