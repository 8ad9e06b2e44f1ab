/*-------------------------------------------------------------------------
 *
 * run.c
 *	  Block runs: a column block image written over consecutive pages of
 *	  the main fork, and read back through shared buffers.
 *
 * Writing: the run's pages are added at the end of the fork while this
 * backend holds the relation extension lock, so they are consecutive
 * (inserters into the delta extend under the same lock).  Each page is
 * new, exclusively locked from its extension until it is filled and
 * WAL-logged as a full-page image (the hole after pd_lower elided), so no
 * inserter can take it for rows: a new page is only ever seen locked, and
 * once filled it is a column page, which the engine passes over.
 * A run nothing points to yet (its directory entry is appended after)
 * is garbage after a crash; VACUUM will reclaim such runs (README 11).
 *
 * Reading: qs_colblock_gather() asks for pages one at a time; each is
 * copied out under a share lock, and the copy is checked (block id, page
 * number, payload end) before any byte is used.  Damage is reported as
 * ERRCODE_DATA_CORRUPTED naming the relation and the block.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/colstore.h"

BlockNumber
qs_colrun_write(Relation rel, uint32 block_id, const uint8 *image,
				uint64 image_len)
{
	uint32		npages = qs_colblock_npages(image_len);
	BlockNumber start = InvalidBlockNumber;
	bool		local = RELATION_IS_LOCAL(rel);

	if (npages == 0)
		elog(ERROR, "empty column block image");
	if (!local)
		LockRelationForExtension(rel, ExclusiveLock);
	for (uint32 k = 0; k < npages; k++)
	{
		Buffer		buf = qs_extend_fork(rel, MAIN_FORKNUM, NULL);
		BlockNumber blk = BufferGetBlockNumber(buf);
		Page		page = BufferGetPage(buf);

		CHECK_FOR_INTERRUPTS();
		if (k == 0)
			start = blk;
		else if (blk != start + k)
			elog(ERROR, "run of column block %u of \"%s\" is not contiguous: page %u at block %u",
				 block_id, RelationGetRelationName(rel), k, blk);
		if (blk >= QS_VIRT_BASE)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("column table \"%s\" cannot grow past %u pages",
							RelationGetRelationName(rel), QS_VIRT_BASE)));
		if (!PageIsNew(page))
			elog(ERROR, "new page %u of column table \"%s\" is not empty",
				 blk, RelationGetRelationName(rel));
		START_CRIT_SECTION();
		PageInit(page, BLCKSZ, QS_COLPAGE_SPECIAL);
		qs_colpage_fill((uint8 *) page, image, image_len, block_id, k);
		MarkBufferDirty(buf);
		if (RelationNeedsWAL(rel))
			log_newpage_buffer(buf, true);
		END_CRIT_SECTION();
		UnlockReleaseBuffer(buf);
	}
	if (!local)
		UnlockRelationForExtension(rel, ExclusiveLock);
	return start;
}

void
qs_colblock_report(Relation rel, uint32 block_id, QsCodecStatus st,
				   const QsCodecErr *err)
{
	if (st == QS_CODEC_BAD_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("column block %u of relation \"%s\" has an unknown format: %s",
						block_id, RelationGetRelationName(rel),
						err ? err->msg : qs_codec_status_name(st)),
				 errhint("The block was written by a newer version of quickstep_am.")));
	if (st == QS_CODEC_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory reading column block %u of relation \"%s\"",
						block_id, RelationGetRelationName(rel))));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("column block %u of relation \"%s\" is corrupt: %s",
					block_id, RelationGetRelationName(rel),
					err && err->msg[0] ? err->msg : qs_codec_status_name(st))));
	pg_unreachable();
}

typedef struct RunPages
{
	Relation	rel;
	const QsColDirEntry *e;
	PGAlignedBlock copy;
} RunPages;

static const uint8_t *
run_get_page(void *arg, uint32_t pageno)
{
	RunPages   *rp = arg;
	BlockNumber blk;
	Buffer		buf;

	if (pageno >= rp->e->npages)
		return NULL;
	blk = rp->e->run_start + pageno;
	if (blk >= RelationGetNumberOfBlocks(rp->rel))
		return NULL;
	buf = ReadBuffer(rp->rel, blk);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	memcpy(rp->copy.data, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
	return (const uint8_t *) rp->copy.data;
}

static void
gather(QsColBlockHandle *h, uint64 off, uint64 len, uint8 *out)
{
	RunPages   *rp = palloc(sizeof(RunPages));
	QsCodecErr	err;
	QsCodecStatus st;

	rp->rel = h->rel;
	rp->e = &h->entry;
	err.msg[0] = '\0';
	st = qs_colblock_gather(run_get_page, rp, h->entry.block_id, h->entry.npages,
							off, len, out, &err);
	pfree(rp);
	if (st != QS_CODEC_OK)
		qs_colblock_report(h->rel, h->entry.block_id, st, &err);
}

/*
 * qs_colblock_load
 *		Read and validate the header of the block of directory entry e.
 */
void
qs_colblock_load(Relation rel, const QsColDirEntry *e, QsColBlockHandle *h)
{
	uint8		fixed[QS_COLBLOCK_FIXEDSZ];
	uint32		header_len;
	uint64		image_len;
	QsCodecErr	err;
	QsCodecStatus st;

	h->rel = rel;
	h->entry = *e;
	h->header = NULL;
	if (e->npages != qs_colblock_npages(e->image_len) || e->image_len < QS_COLBLOCK_FIXEDSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("directory entry of column block %u of relation \"%s\" is corrupt: %u pages for %llu bytes",
						e->block_id, RelationGetRelationName(rel), e->npages,
						(unsigned long long) e->image_len)));
	gather(h, 0, QS_COLBLOCK_FIXEDSZ, fixed);
	err.msg[0] = '\0';
	st = qs_colblock_peek(fixed, sizeof(fixed), &header_len, &image_len, &err);
	if (st == QS_CODEC_OK && image_len != e->image_len)
		st = qs_codec_error(&err, QS_CODEC_CORRUPT,
							"image length %llu, directory says %llu",
							(unsigned long long) image_len,
							(unsigned long long) e->image_len);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, e->block_id, st, &err);
	h->header = palloc(header_len);
	gather(h, 0, header_len, h->header);
	st = qs_colblock_open(h->header, header_len, &h->blk, &err);
	if (st == QS_CODEC_OK && h->blk.block_id != e->block_id)
		st = qs_codec_error(&err, QS_CODEC_CORRUPT, "header names block %u",
							h->blk.block_id);
	if (st == QS_CODEC_OK && h->blk.nrows != e->nrows)
		st = qs_codec_error(&err, QS_CODEC_CORRUPT,
							"header has %u rows, directory says %u",
							h->blk.nrows, e->nrows);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, e->block_id, st, &err);
}

/* A palloc'd copy of image bytes [off, off + len) (header-checked bounds). */
uint8 *
qs_colblock_read_bytes(QsColBlockHandle *h, uint64 off, uint64 len)
{
	uint8	   *out;

	if (len > MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("section of %llu bytes of column block %u of relation \"%s\" is too large to read",
						(unsigned long long) len, h->entry.block_id,
						RelationGetRelationName(h->rel))));
	out = palloc_extended(Max(len, 1), MCXT_ALLOC_HUGE);
	if (len > 0)
		gather(h, off, len, out);
	return out;
}

void
qs_colblock_release(QsColBlockHandle *h)
{
	if (h->header)
		pfree(h->header);
	h->header = NULL;
}

/*
 * qs_colpage_give_back
 *		An exclusively locked page of a column table's own (run or delete
 *		map) becomes an empty delta page, logged as a full-page image, and
 *		is in the free space map at once (VACUUM's first pass, which records
 *		empty pages, may have passed it).
 */
void
qs_colpage_give_back(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);

	START_CRIT_SECTION();
	PageInit(page, BLCKSZ, 0);
	MarkBufferDirty(buf);
	if (RelationNeedsWAL(rel))
		log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	RecordPageWithFreeSpace(rel, BufferGetBlockNumber(buf),
							PageGetFreeSpace(page));
}

/*
 * qs_colrun_reclaim
 *		Give the pages of a RETIRED block's run back to the delta: each page
 *		still holding this block's image becomes an empty page (logged as a
 *		full-page image), which the engine formats for rows on first use and
 *		VACUUM records in the free space map or truncates from the end.
 *		Only for blocks no snapshot can read: a load that aborted or
 *		crashed (its xmin never commits, so every directory reader skips
 *		it).  Idempotent: a page that is no longer this block's is left
 *		alone, so a crash half-way needs nothing but the next VACUUM.
 *		Returns the number of pages reclaimed.
 */
uint32
qs_colrun_reclaim(Relation rel, const QsColDirEntry *e)
{
	uint32		n = 0;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

	for (uint32 k = 0; k < e->npages; k++)
	{
		BlockNumber blk = e->run_start + k;
		Buffer		buf;
		Page		page;
		uint32		sp[4];

		if (blk >= nblocks || blk == QS_COLMETA_BLKNO)
			break;
		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(rel, blk);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) || !qs_is_column_page(page) ||
			qs_column_page_magic(page) != QS_COLPAGE_MAGIC)
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		memcpy(sp, PageGetSpecialPointer(page), sizeof(sp));
		if (sp[1] != e->block_id || sp[2] != k)
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		qs_colpage_give_back(rel, buf);
		UnlockReleaseBuffer(buf);
		n++;
	}
	return n;
}
