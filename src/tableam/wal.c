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
 *	 - XLOG_QS_PRUNE: the same change (opportunistic pruning, VACUUM's
 *	   second pass) as a logical record: which offsets became dead or
 *	   unused, the page's resulting flags and prune hint.  Redo, under a
 *	   cleanup lock, runs the page's own layout (told by the page bytes:
 *	   the layouts are self-describing) through mark_dead, mark_unused and
 *	   compact, which are deterministic functions of the page, so the
 *	   replayed page equals the primary's but for hint bits.  The page
 *	   travels as an image only when it is first changed after a checkpoint
 *	   (REGBUF_STANDARD), not on every prune: pruning's full images were
 *	   88-90 % of the WAL of the TPC-B workload (bench W2).  XLOG_QS_CLEANUP
 *	   is left to PAX's make_room, whose moves depend on the tuple inserted.
 *	 - XLOG_QS_PRUNE_HOT: PRUNE with HOT chain roots made REDIRECTs too
 *	   (NSM; prune.c), replayed by qs_prune_execute as the primary ran it.
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
 * These records serve every page layout (PRUNE's redo runs the layout the
 * page's own bytes name), which is why they replaced heap2 prune/freeze
 * records here: their redo runs heap's page routines, which only an NSM
 * page survives.
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

/*
 * XLOG_QS_PRUNE: main data is an xl_qs_conflict, this header, then ndead
 * and nunused OffsetNumbers; block 0 is the table page.
 */
typedef struct xl_qs_prune
{
	TransactionId prune_xid;	/* the page's pd_prune_xid afterwards */
	uint16		pd_flags;		/* its QS_PRUNE_FLAGS */
	uint16		ndead;
	uint16		nunused;
} xl_qs_prune;

#define SizeOfQsPrune (offsetof(xl_qs_prune, nunused) + sizeof(uint16))

/*
 * XLOG_QS_PRUNE_HOT: the same, with nredirected (from, to) pairs before the
 * dead offsets, in a uint16 after the xl_qs_prune header.  A prune that
 * redirects nothing is still written as XLOG_QS_PRUNE, which a standby on
 * a build without HOT replays, except on a PAX page (qs_log_prune).
 */
#define SizeOfQsPruneHot (SizeOfQsPrune + sizeof(uint16))
/*
 * The page flags a PRUNE record carries (the page's, after the change) and
 * its redo sets: PD_PAGE_FULL too, which pruning clears and VACUUM's second
 * pass leaves as it was (dml.c sets it in an update's generic record).
 */
#define QS_PRUNE_FLAGS (PD_HAS_FREE_LINES | PD_ALL_VISIBLE | PD_PAGE_FULL)

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

/*
 * The layout of a row page from its bytes alone (the table's layout is not
 * known during redo): HPL and PAX pages start with their magic, every other
 * row page is NSM (see qs_page_layout).
 */
static const QsPageLayout *
qs_layout_of_page(Page page)
{
	uint16		magic;

	if (PageIsNew(page) || qs_is_column_page(page))
		return NULL;
	memcpy(&magic, (const char *) page + SizeOfPageHeaderData, sizeof(magic));
	if (magic == qs_hpl_layout.page_magic)
		return &qs_hpl_layout;
	if (magic == qs_pax_layout.page_magic)
		return &qs_pax_layout;
	return &qs_nsm_layout;
}

static void
qs_redo_prune(XLogReaderState *record, const xl_qs_conflict *conflict,
			  bool hot)
{
	XLogRecPtr	lsn = record->EndRecPtr;
	const char *data = XLogRecGetData(record);
	Size		len = XLogRecGetDataLen(record);
	Size		hdrlen = SizeOfQsConflict + (hot ? SizeOfQsPruneHot : SizeOfQsPrune);
	xl_qs_prune xlrec;
	uint16		nredirected = 0;
	OffsetNumber offs[MaxHeapTuplesPerPage * 3];
	Size		noffs;
	const OffsetNumber *redirected,
			   *dead,
			   *unused;
	Buffer		buf;

	if (len < hdrlen)
		elog(PANIC, "quickstep redo: prune record too short (%zu bytes)", len);
	memcpy(&xlrec, data + SizeOfQsConflict, SizeOfQsPrune);
	if (hot)
		memcpy(&nredirected, data + SizeOfQsConflict + SizeOfQsPrune,
			   sizeof(uint16));
	noffs = (Size) nredirected * 2 + xlrec.ndead + xlrec.nunused;
	if ((Size) nredirected + xlrec.ndead + xlrec.nunused > MaxHeapTuplesPerPage ||
		len != hdrlen + noffs * sizeof(OffsetNumber))
		elog(PANIC, "quickstep redo: prune record of %zu bytes for %u + %u + %u offsets",
			 len, nredirected, xlrec.ndead, xlrec.nunused);
	memcpy(offs, data + hdrlen, noffs * sizeof(OffsetNumber));
	redirected = offs;
	dead = offs + nredirected * 2;
	unused = dead + xlrec.ndead;

	/* cancel conflicting snapshots before the records disappear */
	qs_resolve_conflict(conflict);
	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, true,
									  &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		const QsPageLayout *L = qs_layout_of_page(page);

		OffsetNumber maxoff;

		if (L == NULL)
			elog(PANIC, "quickstep redo: prune record for a page without records");
		if (nredirected > 0 && L->mark_redirect == NULL)
			elog(PANIC, "quickstep redo: redirect on a %s page", L->name);
		/* the primary marked only slots of this page, dead ones not free */
		maxoff = L->max_offset(page);
		for (Size i = 0; i < noffs; i++)
			if (offs[i] < FirstOffsetNumber || offs[i] > maxoff ||
				(i < (Size) nredirected * 2 + xlrec.ndead &&
				 L->record_state(page, offs[i]) == QS_REC_UNUSED))
				elog(PANIC, "quickstep redo: prune record names offset %u of a page of %u",
					 offs[i], maxoff);
		/* a redirect goes to another slot that holds a record (review L3) */
		for (int i = 0; i < nredirected; i++)
			if (redirected[i * 2 + 1] == redirected[i * 2] ||
				L->record_state(page, redirected[i * 2 + 1]) != QS_REC_NORMAL)
				elog(PANIC, "quickstep redo: prune record redirects offset %u to %u, which holds no record",
					 redirected[i * 2], redirected[i * 2 + 1]);
		if (L->prepare_compact)
			L->prepare_compact(page);
		qs_prune_execute(L, page, redirected, nredirected, dead, xlrec.ndead,
						 unused, xlrec.nunused);
		((PageHeader) page)->pd_flags &= ~QS_PRUNE_FLAGS;
		((PageHeader) page)->pd_flags |= xlrec.pd_flags & QS_PRUNE_FLAGS;
		((PageHeader) page)->pd_prune_xid = xlrec.prune_xid;
		PageSetLSN(page, lsn);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
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
		case XLOG_QS_PRUNE:
		case XLOG_QS_PRUNE_HOT:
			qs_redo_prune(record, &xlrec, info == XLOG_QS_PRUNE_HOT);
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
	if (((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_QS_PRUNE ||
		 (XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_QS_PRUNE_HOT) &&
		XLogRecGetDataLen(record) >= SizeOfQsConflict + SizeOfQsPrune)
	{
		xl_qs_prune prec;
		uint16		nredirected = 0;

		memcpy(&prec, XLogRecGetData(record) + SizeOfQsConflict, SizeOfQsPrune);
		if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_QS_PRUNE_HOT &&
			XLogRecGetDataLen(record) >= SizeOfQsConflict + SizeOfQsPruneHot)
			memcpy(&nredirected, XLogRecGetData(record) + SizeOfQsConflict + SizeOfQsPrune,
				   sizeof(uint16));
		appendStringInfo(buf, ", %u redirected, %u dead, %u unused, flags 0x%04X, prune xid %u",
						 nredirected, prec.ndead, prec.nunused, prec.pd_flags,
						 prec.prune_xid);
	}
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
		case XLOG_QS_PRUNE:
			return "PRUNE";
		case XLOG_QS_PRUNE_HOT:
			return "PRUNE_HOT";
	}
	return NULL;
}

/*
 * wal_consistency_checking = 'quickstep': the pages our records reference
 * are a CLEANUP record's table page (replayed from its own image), a
 * VM_CLEAR record's map page (replayed by clearing bits) and a PRUNE
 * record's table page (replayed by its layout).  The last differs from the
 * primary's in what heap_mask masks on a heap page: hint bits (set on the
 * primary without WAL; compaction carries them along), the page's hint
 * flags and its free space.
 */
static void
qs_rmgr_mask(char *pagedata, BlockNumber blkno)
{
	Page		page = (Page) pagedata;
	const QsPageLayout *L;
	OffsetNumber maxoff;

	mask_page_lsn_and_checksum(page);
	if (PageGetSpecialSize(page) != 0)
		return;					/* a column page */

	/*
	 * Not mask_page_hint_bits: pd_prune_xid, PD_ALL_VISIBLE and
	 * PD_HAS_FREE_LINES are set only under WAL here (PRUNE carries them),
	 * and all-visible without free slots lets scans skip the slots, so a
	 * replay that got them wrong must be caught.
	 */
	/* a map page: nothing after the header but bits */
	if (((PageHeader) page)->pd_lower <= SizeOfPageHeaderData)
		return;
	L = qs_layout_of_page(page);
	if (L == NULL)
		return;
	mask_unused_space(page);
	maxoff = L->max_offset(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleHeaderData scratch;
		HeapTupleHeader h;
		uint32		len;

		if (L->record_state(page, off) != QS_REC_NORMAL)
			continue;
		h = L->get_header(page, off, &scratch, &len);
		/* as heap_mask: a frozen xmin (both bits) is WAL-logged, not a hint */
		if (!HeapTupleHeaderXminFrozen(h))
			h->t_infomask &= ~(HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID);
		h->t_infomask &= ~(HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID);
		if (h == &scratch)
			L->set_header(page, off, &scratch);
	}
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
 * qs_log_prune
 *		WAL-log a page on which the caller, under a cleanup lock and inside
 *		a critical section, after its layout's prepare_compact, ran
 *		qs_prune_execute (redirects, dead, unused, compaction) and set its flags and
 *		prune hint, then called MarkBufferDirty: redo repeats exactly that
 *		(qs_redo_prune).  'horizon' is the newest xid of the removed records
 *		(InvalidTransactionId: none).
 */
void
qs_log_prune(Relation rel, Buffer buf, TransactionId horizon,
			 const OffsetNumber *redirected, int nredirected,
			 const OffsetNumber *dead, int ndead,
			 const OffsetNumber *unused, int nunused)
{
	Page		page = BufferGetPage(buf);
	xl_qs_conflict conflict;
	xl_qs_prune xlrec;
	XLogRecPtr	recptr;

	/*
	 * PRUNE_HOT also for every PAX page: since HOT, PAX's compaction may
	 * grow the page's capacity (pax_compact), which a build that only
	 * knows PRUNE would not replay alike; it stops at the unknown op code
	 * instead of diverging.
	 */
	bool		hotfmt = nredirected > 0 ||
		qs_layout_of_page(page) == &qs_pax_layout;

	Assert(CritSectionCount > 0);
	if (!RelationNeedsWAL(rel))
		return;
	qs_fill_conflict(&conflict, rel, horizon);
	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.prune_xid = ((PageHeader) page)->pd_prune_xid;
	xlrec.pd_flags = ((PageHeader) page)->pd_flags & QS_PRUNE_FLAGS;
	xlrec.ndead = ndead;
	xlrec.nunused = nunused;
	XLogBeginInsert();
	XLogRegisterData((char *) &conflict, SizeOfQsConflict);
	XLogRegisterData((char *) &xlrec, SizeOfQsPrune);
	if (hotfmt)
	{
		uint16		nred = nredirected;

		XLogRegisterData((char *) &nred, sizeof(uint16));
		XLogRegisterData((char *) redirected,
						 nredirected * 2 * sizeof(OffsetNumber));
	}
	if (ndead > 0)
		XLogRegisterData((char *) dead, ndead * sizeof(OffsetNumber));
	if (nunused > 0)
		XLogRegisterData((char *) unused, nunused * sizeof(OffsetNumber));
	XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
	recptr = XLogInsert(QS_RMGR_ID,
						hotfmt ? XLOG_QS_PRUNE_HOT : XLOG_QS_PRUNE);
	PageSetLSN(page, recptr);
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
