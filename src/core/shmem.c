/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  The cluster-wide shared memory segment of quickstep_am.
 *
 * Requested in shmem_request_hook (PG 15+) and created in
 * shmem_startup_hook, under AddinShmemInitLock as every add-in does, so
 * that the postmaster and each backend (EXEC_BACKEND included) attach the
 * same struct.
 *
 *-------------------------------------------------------------------------
 */
#include "core/quickstep.h"
#include "column/colstore.h"
#include "merge/worker.h"
#include "shared/shared_scan.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"

#define QS_LWLOCK_TRANCHE "quickstep_am"

QsSharedState *QsShared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/*
 * the struct; the merge counters (src/merge/stats.c) and the shared-scan
 * registry (src/shared/registry.c) are requested beside it
 */
static Size
qs_struct_size(void)
{
	return MAXALIGN(sizeof(QsSharedState));
}

Size
qs_shmem_size(void)
{
	return add_size(add_size(add_size(qs_struct_size(), qs_mergestats_shmem_size()),
							 qs_sharedscan_shmem_size()),
					qs_coldirgen_shmem_size());
}

static void
qs_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(qs_struct_size());
	RequestNamedLWLockTranche(QS_LWLOCK_TRANCHE, 1);
	qs_mergestats_shmem_request();
	qs_sharedscan_shmem_request();
	qs_coldirgen_shmem_request();
}

static void
qs_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	QsShared = ShmemInitStruct("quickstep_am", qs_struct_size(), &found);
	if (!found)
	{
		QsShared->lock = &(GetNamedLWLockTranche(QS_LWLOCK_TRANCHE))->lock;
		QsShared->started_at = GetCurrentTimestamp();
		QsShared->max_shared_scans = qs_max_shared_scans;
	}
	qs_mergestats_shmem_init();
	qs_sharedscan_shmem_init();
	qs_coldirgen_shmem_init();
	LWLockRelease(AddinShmemInitLock);
}

void
qs_shmem_install_hooks(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = qs_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = qs_shmem_startup;
}
