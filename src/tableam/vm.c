/*-------------------------------------------------------------------------
 *
 * vm.c
 *	  The visibility map fork of engine tables: PostgreSQL's own
 *	  (access/visibilitymap.h), two bits per table page, all-visible and
 *	  all-frozen, kept as heap keeps them (src/tableam/README.md, "The
 *	  visibility map").
 *
 * Invariant: a page's all-visible bit is set only while the page carries
 * PD_ALL_VISIBLE (and so every record on it is visible to every snapshot);
 * its all-frozen bit only while also every record's xmin is frozen and no
 * record has an xmax.  The bits are set by VACUUM only (qs_vm_set, after
 * the WAL record that set PD_ALL_VISIBLE, under the page's lock), and
 * cleared before every change that clears PD_ALL_VISIBLE is logged
 * (qs_vm_clear, under the page's exclusive lock, dml.c).
 *
 * Index-only scans read the map (core's nodeIndexonlyscan, VM_ALL_VISIBLE)
 * and skip the table for pages whose bit is set; VACUUM skips such pages
 * (vacuum.c); ANALYZE and VACUUM store the count in pg_class.relallvisible.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/visibilitymap.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/rel.h"

#include "tableam/engine.h"
#include "tableam/engine_int.h"
#include "wal/genxlog.h"

/*
 * The map's own arithmetic (visibilitymap.c keeps it private): which byte
 * and bit of a map page hold table page 'heapblk'.
 */
#define QS_VM_MAPSIZE			(BLCKSZ - MAXALIGN(SizeOfPageHeaderData))
#define QS_VM_HEAPBLOCKS_PER_BYTE	(BITS_PER_BYTE / BITS_PER_HEAPBLOCK)
#define QS_VM_HEAPBLOCKS_PER_PAGE	(QS_VM_MAPSIZE * QS_VM_HEAPBLOCKS_PER_BYTE)

/*
 * qs_vm_clear_on_page
 *		Clear 'flags' of table page 'heapblk' on the exclusively locked map
 *		page 'mappage'.  Used inside the critical section that logs it and
 *		by its redo, so that no other backend's clearing or image of the map
 *		page can fall between a clearing and its record.
 */
void
qs_vm_clear_on_page(Page mappage, BlockNumber heapblk, uint8 flags)
{
	uint32		mapByte = (heapblk % QS_VM_HEAPBLOCKS_PER_PAGE) / QS_VM_HEAPBLOCKS_PER_BYTE;
	uint8		mapOffset = (heapblk % QS_VM_HEAPBLOCKS_PER_BYTE) * BITS_PER_HEAPBLOCK;
	uint8	   *map = (uint8 *) PageGetContents(mappage);

	map[mapByte] &= ~(flags << mapOffset);
}

/*
 * qs_vm_clear_bits
 *		Clear both bits of table page 'blk' on the pinned map page 'vmbuf'
 *		(the right one: visibilitymap_pin or visibilitymap_get_status pinned
 *		it) and WAL-log that, in one critical section under the map page's
 *		exclusive lock (qs_log_vm_clear).  Logged whether or not this
 *		server's map had a bit set, as heap logs its ALL_VISIBLE_CLEARED
 *		whenever the page was flagged: a map page zeroed here after a
 *		checksum failure (vm_readbuf reads with RBM_ZERO_ON_ERROR) must not
 *		leave standbys and restores with bits the primary no longer shows.
 *		The caller holds the table page's exclusive lock and is not in a
 *		critical section.
 */
void
qs_vm_clear_bits(Relation rel, BlockNumber blk, Buffer vmbuf)
{
	qs_log_vm_clear(rel, blk, vmbuf, VISIBILITYMAP_VALID_BITS);
}

/*
 * qs_vm_clear
 *		Before a change that clears PD_ALL_VISIBLE of the exclusively locked
 *		'buf' is WAL-logged (called right before qs_genxlog_finish, whose
 *		page copy has the flag cleared while the buffer still has it): clear
 *		the page's map bits, and log that first.
 *
 *		Order.  The bits are cleared in memory before XLOG_QS_VM_CLEAR is
 *		inserted (a full image of the map page taken by a concurrent VACUUM
 *		for another page's bit then either shows the bit cleared or comes
 *		before our record in the WAL), and that record comes before the
 *		page's own record: whenever the page's change is durable, so is
 *		the clearing.  A crash (or an error) between them leaves a set flag
 *		with clear bits, which is allowed.
 *
 *		The map page is read here, under the table page's lock, and only
 *		when the page is flagged (the first change after VACUUM flagged it);
 *		heap pins it before locking the page, to keep a possible read out of
 *		the lock.  visibilitymap_get_status never extends the map (which
 *		would take the relation extension lock under the page's lock): with
 *		no map page there is no bit to clear.
 */
void
qs_vm_clear(Relation rel, Buffer buf)
{
	BlockNumber blk;
	Buffer		vmbuf = InvalidBuffer;

	if (!PageIsAllVisible(BufferGetPage(buf)))
		return;
	blk = BufferGetBlockNumber(buf);
	(void) visibilitymap_get_status(rel, blk, &vmbuf);
	if (!BufferIsValid(vmbuf))
	{
		/*
		 * No map page for the block, as far as this backend knows: the map's
		 * size is cached per backend, and VACUUM may have extended it since
		 * (its invalidation reaches us at our next lock acquisition, which
		 * a transaction already holding the table's lock may not make).
		 * Heap pins with extension here; we look at the file instead.
		 */
		SMgrRelation srel = RelationGetSmgr(rel);

		if (!smgrexists(srel, VISIBILITYMAP_FORKNUM))
			return;				/* no map, no bit */
		(void) smgrnblocks(srel, VISIBILITYMAP_FORKNUM);	/* recaches the size */
		(void) visibilitymap_get_status(rel, blk, &vmbuf);
	}
	if (BufferIsValid(vmbuf))
	{
		qs_vm_clear_bits(rel, blk, vmbuf);
		ReleaseBuffer(vmbuf);
	}
}

/*
 * qs_vm_set
 *		Set 'flags' (VISIBILITYMAP_ALL_VISIBLE, maybe VISIBILITYMAP_ALL_FROZEN)
 *		for the page in 'buf', which the caller holds exclusively locked and
 *		whose PD_ALL_VISIBLE is set and WAL-logged already; 'vmbuf' is the
 *		map page visibilitymap_pin pinned before the page was locked.
 *		'cutoff' is the newest xmin on the page that is not frozen
 *		(InvalidTransactionId: none): standby queries whose snapshots might
 *		not see it are cancelled when the record is replayed, since
 *		index-only scans there trust the bit.
 *
 *		visibilitymap_set with an invalid LSN writes heap's
 *		XLOG_HEAP2_VISIBLE record (log_heap_visible): the map page is its
 *		block 0, our page its block 1 (an image of it only with checksums
 *		or wal_log_hints).  Its redo, heap_xlog_visible, sets the bits and,
 *		on our page, PD_ALL_VISIBLE, which is set already, since the record
 *		that set it precedes this one (unless the page is newer than the
 *		record, then nothing is done to it); it reads pd_lower/pd_upper for
 *		the free space map, which every layout keeps as heap does (their
 *		gap is the free hole, as generic WAL assumes too).
 */
void
qs_vm_set(Relation rel, Buffer buf, Buffer vmbuf, TransactionId cutoff,
		  uint8 flags)
{
	Assert(PageIsAllVisible(BufferGetPage(buf)));
	/* as lazy_scan_prune: the page is dirty before the record names it */
	MarkBufferDirty(buf);
	(void) visibilitymap_set(rel, BufferGetBlockNumber(buf), buf,
							 InvalidXLogRecPtr, vmbuf, cutoff, flags);
}
