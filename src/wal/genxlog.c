/*-------------------------------------------------------------------------
 *
 * genxlog.c
 *	  Generic WAL records of our page changes, with a faster delta.
 *
 * The same records as access/transam/generic_xlog.c writes (RM_GENERIC_ID,
 * one block reference per page, its data the fragments of pagedelta.c, or
 * a full image), made the same way: the caller changes a copy of each
 * page; at the finish, in one critical section, the delta of each copy
 * against the buffer's page is computed, the copy goes into the buffer
 * with the hole between pd_lower and pd_upper zeroed (redo zeroes it too),
 * the record is inserted and the pages get its LSN.  Core's generic_redo
 * replays them, so standbys, recovery, pg_waldump and the generic
 * rmgr's mask (wal_consistency_checking = generic) see nothing new.  Only
 * the delta is computed differently (pagedelta.c says why and how).
 *
 * src/wal/genxlog.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/rmgr.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "wal/genxlog.h"
#include "wal/pagedelta.h"

typedef struct QsGenPage
{
	Buffer		buffer;
	int			flags;
	size_t		delta_len;
	char		delta[qs_pagedelta_max(BLCKSZ)];
} QsGenPage;

struct QsGenXLogState
{
	bool		logged;
	QsGenPage	pages[MAX_GENERIC_XLOG_PAGES];
	PGAlignedBlock images[MAX_GENERIC_XLOG_PAGES];
};

QsGenXLogState *
qs_genxlog_start(Relation rel)
{
	QsGenXLogState *state = palloc(sizeof(QsGenXLogState));

	state->logged = RelationNeedsWAL(rel);
	for (int i = 0; i < MAX_GENERIC_XLOG_PAGES; i++)
		state->pages[i].buffer = InvalidBuffer;
	return state;
}

Page
qs_genxlog_register(QsGenXLogState *state, Buffer buffer, int flags)
{
	for (int i = 0; i < MAX_GENERIC_XLOG_PAGES; i++)
	{
		QsGenPage  *p = &state->pages[i];

		if (BufferIsInvalid(p->buffer))
		{
			p->buffer = buffer;
			p->flags = flags;
			memcpy(state->images[i].data, BufferGetPage(buffer), BLCKSZ);
			return (Page) state->images[i].data;
		}
		if (p->buffer == buffer)
			return (Page) state->images[i].data;	/* as core: first flags stay */
	}
	elog(ERROR, "maximum number %d of generic xlog buffers is exceeded",
		 MAX_GENERIC_XLOG_PAGES);
	return NULL;				/* keep compiler quiet */
}

/*
 * Under assertions, check a delta as core's WAL_DEBUG build checks its own:
 * applied to the old page, it rebuilds the new one's regions.
 */
static void
check_delta(Page page, const char *image, const QsGenPage *p)
{
#ifdef USE_ASSERT_CHECKING
	PGAlignedBlock tmp;
	PageHeader	target = (PageHeader) image;

	memcpy(tmp.data, page, BLCKSZ);
	qs_pagedelta_apply(tmp.data, p->delta, p->delta_len);
	Assert(memcmp(tmp.data, image, target->pd_lower) == 0);
	Assert(memcmp(tmp.data + target->pd_upper, image + target->pd_upper,
				  BLCKSZ - target->pd_upper) == 0);
#endif
}

XLogRecPtr
qs_genxlog_finish(QsGenXLogState *state)
{
	XLogRecPtr	lsn = InvalidXLogRecPtr;

	/*
	 * A page image whose bounds are out of order would make the regions
	 * overlap (a delta past its buffer) and the hole's length negative:
	 * refuse it before the critical section, where it would be a PANIC.
	 * (Core only asserts this.)
	 */
	for (int i = 0; i < MAX_GENERIC_XLOG_PAGES; i++)
	{
		PageHeader	target = (PageHeader) state->images[i].data;

		if (BufferIsValid(state->pages[i].buffer) &&
			(target->pd_lower > target->pd_upper || target->pd_upper > BLCKSZ))
			elog(ERROR, "page %u changed into an invalid page (pd_lower %u, pd_upper %u)",
				 BufferGetBlockNumber(state->pages[i].buffer),
				 target->pd_lower, target->pd_upper);
	}

	if (state->logged)
		XLogBeginInsert();
	START_CRIT_SECTION();
	for (int i = 0; i < MAX_GENERIC_XLOG_PAGES; i++)
	{
		QsGenPage  *p = &state->pages[i];
		char	   *image = state->images[i].data;
		Page		page;
		PageHeader	cur,
					target = (PageHeader) image;

		if (BufferIsInvalid(p->buffer))
			continue;
		page = BufferGetPage(p->buffer);
		cur = (PageHeader) page;
		if (state->logged && !(p->flags & GENERIC_XLOG_FULL_IMAGE))
		{
			p->delta_len = qs_pagedelta(page, image, BLCKSZ,
										cur->pd_lower, cur->pd_upper,
										target->pd_lower, target->pd_upper,
										p->delta);
			check_delta(page, image, p);
		}
		/*
		 * The hole [pd_lower, pd_upper) zeroed, as core's generic_xlog.c
		 * does and generic_redo does on replay -- but, for a delta, only
		 * the bytes of the new hole outside the current one: every writer
		 * of our pages leaves the hole zeroed (src/wal/README.md, "The
		 * hole"), and memset of the whole hole of every page changed was
		 * 13.4k instructions per TPC-B transaction, whose changes move
		 * pd_lower up and pd_upper down and so zero nothing now.  A full
		 * image (a page being formatted, maybe from an empty page of
		 * another layout that a build before this one left with a dirty
		 * hole) and an unlogged page get all of it.  Before the copies
		 * below: it reads the current bounds from the page header.
		 */
		if (state->logged && !(p->flags & GENERIC_XLOG_FULL_IMAGE))
			qs_pagedelta_zero_hole(page, cur->pd_lower, cur->pd_upper,
								   target->pd_lower, target->pd_upper);
		else
			memset(page + target->pd_lower, 0,
				   target->pd_upper - target->pd_lower);
		memcpy(page, image, target->pd_lower);
		memcpy(page + target->pd_upper, image + target->pd_upper,
			   BLCKSZ - target->pd_upper);
		MarkBufferDirty(p->buffer);
		if (!state->logged)
			continue;
		if (p->flags & GENERIC_XLOG_FULL_IMAGE)
			XLogRegisterBuffer(i, p->buffer, REGBUF_FORCE_IMAGE | REGBUF_STANDARD);
		else
		{
			XLogRegisterBuffer(i, p->buffer, REGBUF_STANDARD);
			XLogRegisterBufData(i, p->delta, p->delta_len);
		}
	}
	if (state->logged)
	{
		lsn = XLogInsert(RM_GENERIC_ID, 0);
		for (int i = 0; i < MAX_GENERIC_XLOG_PAGES; i++)
			if (BufferIsValid(state->pages[i].buffer))
				PageSetLSN(BufferGetPage(state->pages[i].buffer), lsn);
	}
	END_CRIT_SECTION();
	pfree(state);
	return lsn;
}

void
qs_genxlog_abort(QsGenXLogState *state)
{
	pfree(state);
}
