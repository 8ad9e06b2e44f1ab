/*-------------------------------------------------------------------------
 *
 * parrange.c
 *	  Parallel scans of column tables share the rows of claimed blocks.
 *
 * Participants claim whole blocks (the column AM's atomic counter), but a
 * sorted table's selective range lies in one or two of its blocks: TPC-H
 * Q4's three months of orders are 57,000 rows of one 150,000-row block, and
 * the participant that claimed it ran all of the nested loop above it while
 * the others had found nothing in theirs (Q4 0.39x heap).  So each
 * participant publishes the rows of its open block it has not taken yet
 * (qs_parrange_publish) and takes them a chunk at a time
 * (qs_parrange_take); one that finds no block left takes the second half of
 * the largest range another published (qs_parrange_steal) and opens that
 * block itself.
 *
 * Invariants.  A row is taken only under its slot's spinlock, so exactly
 * once: the thief lowers the victim's end under the victim's lock and
 * publishes the half it took only afterwards, in its own slot.  No two
 * spinlocks are ever held together.  A participant publishes only ranges it
 * reads a chunk at a time; a block answered whole (aggexec.c's header
 * answers) is never published, so never split.  The thief's block gives the
 * same rows as the claimer's: every participant reads one directory view
 * (the snapshot PostgreSQL restored in the workers, src/scan/README.md), a
 * block image never changes, and the quals are the same plan's with the
 * same parameter values, so qs_colpush_block narrows it alike.  The thief's
 * opening is not counted in EXPLAIN's block counters, which stay those of
 * the blocks claimed, as in the serial scan.
 *
 * src/scan/parrange.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "scan/parrange.h"

/* a range worth opening a block again for (rows) */
#define QS_STEAL_MIN_ROWS	(2 * QS_COLPUSH_CHUNK)

Size
qs_parranges_size(int nworkers)
{
	return MAXALIGN(add_size(offsetof(QsParRanges, slot),
							 mul_size(sizeof(QsRangeSlot), nworkers + 1)));
}

/* No participant has a slot or a range. */
void
qs_parranges_reset(QsParRanges *r, int nworkers)
{
	pg_atomic_init_u32(&r->nregistered, 0);
	r->nslots = nworkers + 1;
	for (int i = 0; i < r->nslots; i++)
	{
		SpinLockInit(&r->slot[i].mutex);
		r->slot[i].idx = 0;
		r->slot[i].next = r->slot[i].end = 0;
	}
}

void
qs_parrange_attach(QsParRangeMine *m, QsParRanges *r)
{
	m->r = r;
	m->slot = -1;
}

/* this participant's slot, registering it at its first use */
static QsRangeSlot *
my_slot(QsParRangeMine *m)
{
	if (m->slot < 0)
	{
		uint32		n = pg_atomic_fetch_add_u32(&m->r->nregistered, 1);

		if (n >= (uint32) m->r->nslots)
			elog(ERROR, "QuickstepScan: more parallel participants than the %d planned",
				 m->r->nslots - 1);
		m->slot = (int) n;
	}
	return &m->r->slot[m->slot];
}

/* The open block's rows lo .. hi - 1 are this participant's to take. */
void
qs_parrange_publish(QsParRangeMine *m, uint32 idx, uint32 lo, uint32 hi)
{
	QsRangeSlot *slot = my_slot(m);

	SpinLockAcquire(&slot->mutex);
	slot->idx = idx;
	slot->next = lo;
	slot->end = Max(lo, hi);
	SpinLockRelease(&slot->mutex);
}

/* The next chunk of the published range: false once it is all taken. */
bool
qs_parrange_take(QsParRangeMine *m, uint32 *start, int *len)
{
	QsRangeSlot *slot = my_slot(m);
	bool		found;

	SpinLockAcquire(&slot->mutex);
	found = slot->next < slot->end;
	if (found)
	{
		*start = slot->next;
		*len = (int) Min((uint32) QS_COLPUSH_CHUNK, slot->end - slot->next);
		slot->next += *len;
	}
	SpinLockRelease(&slot->mutex);
	return found;
}

/*
 * No block is left to claim: take the second half of the largest range of
 * at least QS_STEAL_MIN_ROWS another participant published, open its block
 * in s (quals p) and publish the half as this participant's range.  False
 * when no range is worth it.
 */
bool
qs_parrange_steal(QsParRangeMine *m, QsColPush *p, ColScanDesc s)
{
	QsParRanges *r = m->r;
	QsRangeSlot *mine = my_slot(m);

	for (;;)
	{
		int			victim = -1;
		uint32		best = 0;
		uint32		idx = 0,
					lo = 0,
					hi = 0;
		bool		ok;
		QsColPush	saved;

		for (int i = 0; i < r->nslots; i++)
		{
			QsRangeSlot *slot = &r->slot[i];
			uint32		left;

			if (slot == mine)
				continue;
			SpinLockAcquire(&slot->mutex);
			left = slot->end - slot->next;
			SpinLockRelease(&slot->mutex);
			if (left >= QS_STEAL_MIN_ROWS && left > best)
			{
				best = left;
				victim = i;
			}
		}
		if (victim < 0)
			return false;

		/* it may have taken more since: decide under its lock */
		SpinLockAcquire(&r->slot[victim].mutex);
		{
			QsRangeSlot *slot = &r->slot[victim];
			uint32		left = slot->end - slot->next;

			if (left >= QS_STEAL_MIN_ROWS)
			{
				/* the victim keeps whole chunks, at least one */
				uint32		keep = Max((left / 2) - (left / 2) % QS_COLPUSH_CHUNK,
									   (uint32) QS_COLPUSH_CHUNK);

				idx = slot->idx;
				lo = slot->next + keep;
				hi = slot->end;
				slot->end = lo;
			}
		}
		SpinLockRelease(&r->slot[victim].mutex);
		if (lo >= hi)
			continue;			/* it took them meanwhile: look again */

		/* the block as its claimer opened it; not counted a second time */
		saved = *p;
		qs_colscan_open_block(s, idx);
		ok = qs_colpush_block(p, s);
		p->blocks_read = saved.blocks_read;
		p->skipped_minmax = saved.skipped_minmax;
		p->skipped_dict = saved.skipped_dict;
		p->binary_searches = saved.binary_searches;
		p->probes = saved.probes;
		if (!ok || lo < s->row || hi > s->row_end)
			elog(ERROR, "QuickstepScan: block %u of the directory gave other rows in a parallel participant",
				 idx);
		qs_parrange_publish(m, idx, lo, hi);
		return true;
	}
}
