/*-------------------------------------------------------------------------
 *
 * scan_sample.c
 *	  TABLESAMPLE on column tables: the sampling method chooses among the
 *	  delta's pages and the main rows' virtual pages (291 rows of a block
 *	  each), numbered after the delta's, so that SYSTEM samples whole pages
 *	  of both and BERNOULLI each row with the same probability, as on heap.
 *
 * Sample block k < D (the delta's pages at scan start) is delta page k,
 * read by the engine; k >= D is virtual page k - D of the visible main
 * blocks in TID order.  The method's NextSampleTuple is asked for offsets
 * up to the page's row count; a row it names is returned when the scan's
 * snapshot sees it (its block's directory entry, its delete-map entry).
 * REPEATABLE gives the same rows while the table does not change, as on
 * heap.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tsmapi.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"

#include "column/colscan.h"
#include "column/colstore.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"

static uint32
vpages_of(const QsColDirEntry *e)
{
	return (e->published + QS_COLBLOCK_TIDS_PER_PAGE - 1) / QS_COLBLOCK_TIDS_PER_PAGE;
}

static void
sample_init(ColScanDesc s)
{
	qs_colscan_init_main(s);
	s->smp_delta = qs_scan_nblocks(s->delta);
	s->smp_total = s->smp_delta;
	for (uint32 i = 0; i < s->dir.nentries; i++)
		s->smp_total += vpages_of(&s->dir.entries[i]);
}

bool
qs_col_scan_sample_next_block(TableScanDesc sscan, SampleScanState *scanstate)
{
	ColScanDesc s = (ColScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	BlockNumber blockno;
	BlockNumber k;

	if (s->smp_cur == InvalidBlockNumber && s->smp_total == 0)
		sample_init(s);
	if (s->smp_total == 0)
		return false;
	if (tsm->NextSampleBlock)
		blockno = tsm->NextSampleBlock(scanstate, s->smp_total);
	else
		blockno = s->smp_cur == InvalidBlockNumber ? 0 : s->smp_cur + 1;
	if (!BlockNumberIsValid(blockno) || blockno >= s->smp_total)
	{
		s->smp_cur = InvalidBlockNumber;
		s->smp_total = 0;		/* a rescan starts over */
		return false;
	}
	s->smp_cur = blockno;
	if (blockno < s->smp_delta)
	{
		s->bm_main = false;
		qs_scan_sample_load(s->delta, blockno);
		return true;
	}

	/* virtual page k of the visible main blocks, in TID order */
	s->bm_main = true;
	k = blockno - s->smp_delta;
	for (uint32 i = 0; i < s->dir.nentries; i++)
	{
		const QsColDirEntry *e = &s->dir.entries[i];
		uint32		n = vpages_of(e);

		if (k < n)
		{
			uint32		first = k * QS_COLBLOCK_TIDS_PER_PAGE;

			s->smp_maxoff = Min(e->published - first, QS_COLBLOCK_TIDS_PER_PAGE);
			(void) qs_colscan_load_vpage(s, QS_VIRT_BASE +
										 e->tid_range * QS_VIRT_PAGES_PER_RANGE + k,
										 NULL, -1);
			return true;
		}
		k -= n;
	}
	elog(ERROR, "sample block %u of \"%s\" is past its main rows",
		 blockno, RelationGetRelationName(sscan->rs_rd));
	return false;				/* keep compiler quiet */
}

bool
qs_col_scan_sample_next_tuple(TableScanDesc sscan, SampleScanState *scanstate,
							  TupleTableSlot *slot)
{
	ColScanDesc s = (ColScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;

	qs_colscan_slot_desc(s, slot);
	if (!s->bm_main)
		return qs_scan_sample_next_tuple(s->delta, scanstate, slot);
	for (;;)
	{
		OffsetNumber off;
		uint32		row;
		int			lo = 0,
					hi = s->bm_n - 1;

		CHECK_FOR_INTERRUPTS();
		off = tsm->NextSampleTuple(scanstate, s->smp_cur, s->smp_maxoff);
		if (!OffsetNumberIsValid(off))
		{
			ExecClearTuple(slot);
			return false;
		}
		/* is that row among the visible ones (bm_rows ascending)? */
		row = (s->bm_n > 0 ? s->bm_rows[0] / QS_COLBLOCK_TIDS_PER_PAGE : 0) *
			QS_COLBLOCK_TIDS_PER_PAGE + off - 1;
		while (lo <= hi)
		{
			int			mid = (lo + hi) / 2;

			if (s->bm_rows[mid] == row)
			{
				qs_colscan_store_row(&s->rr, row, slot, s->rowcxt,
									 s->bm_hdr[mid]);
				return true;
			}
			if (s->bm_rows[mid] < row)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
	}
}
