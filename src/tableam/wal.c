/*-------------------------------------------------------------------------
 *
 * wal.c
 *	  The engine's custom WAL resource manager: records that generic WAL
 *	  cannot express.
 *
 * Generic WAL (used for every other page change) replays a page delta
 * under an exclusive buffer lock and carries no recovery-conflict horizon.
 * Two things a hot standby needs are missing from it, and heap gets both
 * from its own prune/freeze records:
 *
 *	 - XLOG_QS_CONFLICT: before VACUUM freezes xids on a page, standby
 *	   queries whose snapshot could still see the old xids (xmin <= horizon)
 *	   are cancelled.  No page is touched.
 *	 - XLOG_QS_CLEANUP: a page whose record bytes were moved (pruning,
 *	   VACUUM compaction).  Standby scans read records under a buffer pin
 *	   alone, as heap's do, so the change must replay under a cleanup lock
 *	   (which waits for, and after max_standby_streaming_delay cancels,
 *	   queries still pinning the page).  The record carries a full page
 *	   image and the conflict horizon of the removed records; its redo
 *	   resolves the conflict and restores the image under a cleanup lock.
 *
 * Nor can generic WAL change the visibility map fork (the map lies in what
 * it takes for the page's hole), so:
 *
 *	 - XLOG_QS_VM_CLEAR: visibility map bits of one table page cleared
 *	   (vm.c), written before the generic WAL record of the change that
 *	   clears the page's PD_ALL_VISIBLE.  Its block 0 is the map page, so
 *	   it gets full page images and the map page's LSN as any logged page
 *	   change does; redo clears the bits again.  Setting bits needs no
 *	   record of ours: visibilitymap_set writes heap's XLOG_HEAP2_VISIBLE,
 *	   whose redo touches only the header of our page (src/tableam/
 *	   README.md, "The visibility map").
 *
 * One more op, XLOG_QS_LOGICAL, carries rows for logical decoding; it
 * changes no page, its redo does nothing, and its writers and rm_decode
 * live in src/wal/ (include/wal/qsxlog.h has the ids and formats).
 *
 * One record format serves every page layout (it never interprets page
 * bytes), which is why it replaced heap2 prune/freeze records here: their
 * redo runs heap's page routines, which only an NSM page survives.
 *
 * A custom resource manager must be registered by every process that
 * replays WAL, so it is registered only when the library is loaded through
 * shared_preload_libraries, and the table access methods refuse to open
 * relations otherwise (qs_require_preload in the handlers).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/bufmask.h"
#include "access/visibilitymap.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "catalog/catalog.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/standby.h"
#include "utils/rel.h"

#include "core/compat.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "wal/qsxlog.h"


typedef struct xl_qs_conflict
{
	RelFileLocator locator;
	TransactionId horizon;		/* InvalidTransactionId: no conflict */
	bool		is_catalog;
} xl_qs_conflict;

#define SizeOfQsConflict (offsetof(xl_qs_conflict, is_catalog) + sizeof(bool))

/* XLOG_QS_VM_CLEAR: main data; block 0 is the visibility map page */
typedef struct xl_qs_vm_clear
{
	BlockNumber heapblk;		/* the table page whose bits are cleared */
	uint8		flags;			/* VISIBILITYMAP_* bits cleared */
} xl_qs_vm_clear;

#define SizeOfQsVmClear (offsetof(xl_qs_vm_clear, flags) + sizeof(uint8))

static void
qs_resolve_conflict(const xl_qs_conflict *xlrec)
{
	if (!InHotStandby || !TransactionIdIsValid(xlrec->horizon))
		return;
#if PG_VERSION_NUM >= 160000
	ResolveRecoveryConflictWithSnapshot(xlrec->horizon, xlrec->is_catalog,
										xlrec->locator);
#else
	ResolveRecoveryConflictWithSnapshot(xlrec->horizon, xlrec->locator);
#endif
}

/*
 * Redo of XLOG_QS_VM_CLEAR, as heap's redo clears the bits its insert,
 * update, delete and lock records say were cleared (heap_xlog_insert and
 * friends), but from the map page this record references: skipped when the
 * page is newer than the record (its LSN), restored from the image when
 * there is one; the bits are cleared under the lock redo holds.
 */
static void
qs_redo_vm_clear(XLogReaderState *record)
{
	XLogRecPtr	lsn = record->EndRecPtr;
	xl_qs_vm_clear xlrec;
	Buffer		vmbuf;

	if (XLogRecGetDataLen(record) < SizeOfQsVmClear)
		elog(PANIC, "quickstep redo: visibility map record too short (%u bytes)",
			 (unsigned) XLogRecGetDataLen(record));
	memcpy(&xlrec, XLogRecGetData(record), SizeOfQsVmClear);
	if (XLogReadBufferForRedoExtended(record, 0, RBM_ZERO_ON_ERROR, false,
									  &vmbuf) == BLK_NEEDS_REDO)
	{
		Page		vmpage = BufferGetPage(vmbuf);

		if (PageIsNew(vmpage))
			PageInit(vmpage, BLCKSZ, 0);
		/* under the lock redo holds, as the primary cleared it */
		qs_vm_clear_on_page(vmpage, xlrec.heapblk, xlrec.flags);
		PageSetLSN(vmpage, lsn);
		MarkBufferDirty(vmbuf);
	}
	if (BufferIsValid(vmbuf))
		UnlockReleaseBuffer(vmbuf);
}

static void
qs_rmgr_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	xl_qs_conflict xlrec;
	Buffer		buf;

	/* rows for logical decoding (src/wal/): no page to change */
	if (info == XLOG_QS_LOGICAL)
		return;
	if (info == XLOG_QS_VM_CLEAR)
	{
		qs_redo_vm_clear(record);
		return;
	}

	if (XLogRecGetDataLen(record) < SizeOfQsConflict)
		elog(PANIC, "quickstep redo: record too short (%u bytes)",
			 (unsigned) XLogRecGetDataLen(record));
	memcpy(&xlrec, XLogRecGetData(record), SizeOfQsConflict);

	switch (info)
	{
		case XLOG_QS_CONFLICT:
			qs_resolve_conflict(&xlrec);
			break;
		case XLOG_QS_CLEANUP:
			/* cancel conflicting snapshots before the records disappear */
			qs_resolve_conflict(&xlrec);
			if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, true,
											  &buf) == BLK_NEEDS_REDO)
				elog(PANIC, "quickstep redo: cleanup record without a page image");
			if (BufferIsValid(buf))
				UnlockReleaseBuffer(buf);
			break;
		default:
			elog(PANIC, "quickstep redo: unknown op code %u", info);
	}
}

static void
qs_rmgr_desc(StringInfo buf, XLogReaderState *record)
{
	xl_qs_conflict xlrec;

	if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_QS_LOGICAL)
	{
		qs_logical_desc(buf, record);
		return;
	}
	if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_QS_VM_CLEAR)
	{
		xl_qs_vm_clear vmrec;

		if (XLogRecGetDataLen(record) < SizeOfQsVmClear)
			return;
		memcpy(&vmrec, XLogRecGetData(record), SizeOfQsVmClear);
		appendStringInfo(buf, "heap block %u, flags 0x%02X",
						 vmrec.heapblk, vmrec.flags);
		return;
	}
	if (XLogRecGetDataLen(record) < SizeOfQsConflict)
		return;
	memcpy(&xlrec, XLogRecGetData(record), SizeOfQsConflict);
	appendStringInfo(buf, "horizon %u%s", xlrec.horizon,
					 xlrec.is_catalog ? " (catalog)" : "");
}

static const char *
qs_rmgr_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_QS_CONFLICT:
			return "CONFLICT";
		case XLOG_QS_CLEANUP:
			return "CLEANUP";
		case XLOG_QS_LOGICAL:
			return "LOGICAL";
		case XLOG_QS_VM_CLEAR:
			return "VM_CLEAR";
	}
	return NULL;
}

/*
 * wal_consistency_checking = 'quickstep': the pages our records reference
 * are a CLEANUP record's table page (replayed from its own image) and a
 * VM_CLEAR record's map page (replayed by clearing bits); only the LSN and
 * checksum differ between the image and the replayed page.
 */
static void
qs_rmgr_mask(char *pagedata, BlockNumber blkno)
{
	mask_page_lsn_and_checksum(pagedata);
}

/* not const: PG 15 declares RegisterCustomRmgr without it */
static RmgrData qs_rmgr = {
	.rm_name = QS_RMGR_NAME,
	.rm_redo = qs_rmgr_redo,
	.rm_desc = qs_rmgr_desc,
	.rm_identify = qs_rmgr_identify,
	.rm_mask = qs_rmgr_mask,
	.rm_decode = qs_rmgr_decode,
};

void
qs_wal_register(void)
{
	RegisterCustomRmgr(QS_RMGR_ID, &qs_rmgr);
}

static void
qs_fill_conflict(xl_qs_conflict *xlrec, Relation rel, TransactionId horizon)
{
	memset(xlrec, 0, sizeof(*xlrec));
	xlrec->locator = QS_REL_LOCATOR(rel);
	xlrec->horizon = XLogStandbyInfoActive() ? horizon : InvalidTransactionId;
	xlrec->is_catalog = RelationIsAccessibleInLogicalDecoding(rel);
}

/*
 * qs_log_conflict
 *		Before xids on a page are frozen: cancel standby snapshots with
 *		xmin <= horizon.  Not in a critical section; nothing to do without
 *		WAL, without hot standby information or without a horizon.
 */
void
qs_log_conflict(Relation rel, TransactionId horizon)
{
	xl_qs_conflict xlrec;

	if (!RelationNeedsWAL(rel) || !XLogStandbyInfoActive() ||
		!TransactionIdIsValid(horizon))
		return;
	qs_fill_conflict(&xlrec, rel, horizon);
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfQsConflict);
	(void) XLogInsert(QS_RMGR_ID, XLOG_QS_CONFLICT);
}

/*
 * qs_log_cleanup
 *		WAL-log a page whose record bytes the caller moved, under a cleanup
 *		lock, inside a critical section, after MarkBufferDirty.  'horizon' is
 *		the newest xid of the removed records (InvalidTransactionId: none).
 */
void
qs_log_cleanup(Relation rel, Buffer buf, TransactionId horizon)
{
	xl_qs_conflict xlrec;
	XLogRecPtr	recptr;

	Assert(CritSectionCount > 0);
	if (!RelationNeedsWAL(rel))
		return;
	qs_fill_conflict(&xlrec, rel, horizon);
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfQsConflict);
	XLogRegisterBuffer(0, buf, REGBUF_FORCE_IMAGE | REGBUF_STANDARD);
	recptr = XLogInsert(QS_RMGR_ID, XLOG_QS_CLEANUP);
	PageSetLSN(BufferGetPage(buf), recptr);
}

/*
 * qs_log_vm_clear
 *		Clear 'flags' of table page 'heapblk' on the pinned map page 'vmbuf'
 *		and WAL-log it: lock, critical section, clear, dirty, insert, LSN,
 *		unlock, as heap does for the map (visibilitymap_clear followed by a
 *		separate insertion would let another backend's clearing and record
 *		of the same map page fall between, and its image show our bit still
 *		set).  The caller holds the exclusive lock of the table page and
 *		has not yet logged the change that clears its PD_ALL_VISIBLE (vm.c).
 */
void
qs_log_vm_clear(Relation rel, BlockNumber heapblk, Buffer vmbuf, uint8 flags)
{
	xl_qs_vm_clear xlrec;
	XLogRecPtr	recptr;

	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.heapblk = heapblk;
	xlrec.flags = flags;
	LockBuffer(vmbuf, BUFFER_LOCK_EXCLUSIVE);
	START_CRIT_SECTION();
	qs_vm_clear_on_page(BufferGetPage(vmbuf), heapblk, flags);
	MarkBufferDirty(vmbuf);
	if (RelationNeedsWAL(rel))
	{
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfQsVmClear);
		/* not REGBUF_STANDARD: the map lies in what would be the page's hole */
		XLogRegisterBuffer(0, vmbuf, 0);
		recptr = XLogInsert(QS_RMGR_ID, XLOG_QS_VM_CLEAR);
		PageSetLSN(BufferGetPage(vmbuf), recptr);
	}
	END_CRIT_SECTION();
	LockBuffer(vmbuf, BUFFER_LOCK_UNLOCK);
}
