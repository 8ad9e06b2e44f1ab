/*-------------------------------------------------------------------------
 *
 * chunk.c
 *	  One member scans a chunk of a row table for several members at once
 *	  (src/shared/README.md, paper 001).
 *
 * Each page of the chunk is read once.  Under its share lock: visibility
 * is judged under each recipient's snapshot (once per group of equal
 * snapshots) over every record of the page, as its unshared scan judges it
 * (HOT chains, review N1; the count is the recipient's seq_tup_read), then
 * each recipient's native quals run over the records it sees, and only
 * those (each column read once per page for the first qual of every
 * recipient that filters on it, over the records some recipient sees): a
 * record nobody sees may hold a rolled-back attribute that the descriptor
 * would decode as another type (review F1 of d8fix).  Recipients with an
 * equality qual on a column several of them filter on are served by the
 * query index instead (qindex.c): that column is read once over the same
 * records, each value looked up once among their constants, and only the
 * recipients listed under it run their other quals on the record.  After the lock is
 * released (the pin
 * keeps record bytes in place, include/page/layout.h), the columns each
 * recipient wants are read for its rows and appended to its message as
 * (TID, minimal tuple) records.
 *
 * Nothing here calls user code: only native quals run (C comparisons and
 * NULL tests), for every recipient including the scanner itself.  The
 * scanner's other pushed quals (fmgr operators) run on its own rows after
 * it has delivered the others' (scan/exec.c), so that no user function can
 * wait, while this backend owes other members their steps, on something
 * one of them holds (review shared3 N2(b)).
 *
 * Judging visibility for another backend's snapshot here is exactly what
 * its own scan would do: members never hold an xid while they are served
 * or serve (TransactionIdIsCurrentTransactionId is false for every xid a
 * row can carry, in both backends), serializable transactions do not
 * join, and hint bits are the same for everyone.
 *
 *-------------------------------------------------------------------------
 */
#include "core/quickstep.h"
#include "shared/qindex.h"
#include "shared/shared_scan.h"
#include "tableam/engine.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * Message layout: a header (the step, then how many records of the chunk
 * the recipient's snapshot sees and how many of them follow), then per row
 * a record header and the minimal tuple, each MAXALIGNed so that the tuple
 * can be deformed where it lies once the message is copied into palloc'd
 * memory.  The counts let the recipient count the chunk in seq_tup_read
 * and "Rows Removed by Storage Filter" as its own scan of the chunk would
 * have (review L3).
 */
typedef struct QsMsgHeader
{
	int64		step;
	int64		visible;		/* records its snapshot sees */
	int64		rows;			/* of them, those that passed its quals */
} QsMsgHeader;

typedef struct QsRowHeader
{
	BlockNumber blkno;
	OffsetNumber offnum;
	uint16		pad;
	uint32		len;			/* of the minimal tuple */
} QsRowHeader;

#define QS_MSG_HEADER	MAXALIGN(sizeof(QsMsgHeader))

void
qs_shared_msg_begin(StringInfo msg, int64 step)
{
	QsMsgHeader h = {0};

	h.step = step;
	resetStringInfo(msg);
	appendBinaryStringInfo(msg, (const char *) &h, sizeof(h));
	while (msg->len < QS_MSG_HEADER)
		appendStringInfoChar(msg, '\0');
}

/* A message's counts: the records its recipient's snapshot sees, and rows. */
void
qs_shared_msg_counts(StringInfo msg, uint64 *visible, uint64 *rows)
{
	QsMsgHeader h;

	Assert(msg->len >= QS_MSG_HEADER);
	memcpy(&h, msg->data, sizeof(h));
	*visible = (uint64) h.visible;
	*rows = (uint64) h.rows;
}

/*
 * The message of a chunk with no row for its recipient, whose scanner
 * recorded only the counts in the recipient's slot (registry.c): the
 * bytes the scanner would have sent.
 */
void
qs_shared_msg_empty(StringInfo msg, int64 step, uint64 visible)
{
	QsMsgHeader h = {0};

	qs_shared_msg_begin(msg, step);
	h.step = step;
	h.visible = (int64) visible;
	h.rows = 0;
	memcpy(msg->data, &h, sizeof(h));
}

/* Write the counts of a message built by qs_shared_scan_chunk. */
static void
msg_set_counts(StringInfo msg, uint64 visible, uint64 rows)
{
	QsMsgHeader h;

	memcpy(&h, msg->data, sizeof(h));
	h.visible = (int64) visible;
	h.rows = (int64) rows;
	memcpy(msg->data, &h, sizeof(h));
}

static void
msg_add_row(StringInfo msg, BlockNumber blkno, OffsetNumber off,
			MinimalTuple mtup)
{
	QsRowHeader h;

	h.blkno = blkno;
	h.offnum = off;
	h.pad = 0;
	h.len = mtup->t_len;
	appendBinaryStringInfo(msg, (const char *) &h, sizeof(h));
	while (msg->len % MAXIMUM_ALIGNOF != 0)
		appendStringInfoChar(msg, '\0');
	appendBinaryStringInfo(msg, (const char *) mtup, mtup->t_len);
	while (msg->len % MAXIMUM_ALIGNOF != 0)
		appendStringInfoChar(msg, '\0');
}

/*
 * The next row of a message at *pos (start with *pos = 0): its TID and
 * every column deformed into values/isnull (columns it does not carry are
 * NULL).  By-reference values point into the message.  False at its end.
 */
bool
qs_shared_msg_next(StringInfo msg, int *pos, TupleDesc desc, ItemPointer tid,
				   Datum *values, bool *isnull)
{
	QsRowHeader h;
	HeapTupleData htup;
	MinimalTuple mtup;

	if (*pos < QS_MSG_HEADER)
		*pos = QS_MSG_HEADER;
	if (*pos >= msg->len)
		return false;
	memcpy(&h, msg->data + *pos, sizeof(h));
	*pos += MAXALIGN(sizeof(h));
	mtup = (MinimalTuple) (msg->data + *pos);
	*pos += MAXALIGN(h.len);
	Assert(*pos <= msg->len);
	htup.t_len = mtup->t_len + MINIMAL_TUPLE_OFFSET;
	htup.t_data = (HeapTupleHeader) ((char *) mtup - MINIMAL_TUPLE_OFFSET);
	heap_deform_tuple(&htup, desc, values, isnull);
	ItemPointerSet(tid, h.blkno, h.offnum);
	return true;
}

/*
 * A page's column read once, over the records some recipient sees, for all
 * recipients filtering on it first; values[x] is the record uni[x] of the
 * page (qs_shared_scan_chunk).
 */
typedef struct QsPageColumn
{
	AttrNumber	attno;
	Datum		values[MaxHeapTuplesPerPage];
	bool		isnull[MaxHeapTuplesPerPage];
} QsPageColumn;

/* The page's column attno over uni[0 .. nuni-1], read at its first use. */
static QsPageColumn *
page_column(QsPageColumn *cols, int *ncols, int maxcols,
			const QsPageLayout *PL, Page page, TupleDesc desc,
			AttrNumber attno, OffsetNumber *uni, int nuni)
{
	QsPageColumn *c;

	for (int x = 0; x < *ncols; x++)
		if (cols[x].attno == attno)
			return &cols[x];
	if (*ncols >= maxcols)
		elog(ERROR, "shared scan reads more than %d columns of a page", maxcols);
	c = &cols[(*ncols)++];
	c->attno = attno;
	PL->read_column(page, desc, attno, uni, nuni, c->values, c->isnull);
	return c;
}

/*
 * Do snapshots a and b see the same records?  Yes when their xmin, xmax and
 * running xids are the same: the command id only matters for rows of the
 * judging backend's own transaction, and the scanner judges only while it
 * has no xid (TransactionIdIsCurrentTransactionId is false for every xid
 * on the page, whoever the snapshot belongs to).  Readers of a table that
 * nobody is writing at the time have such snapshots: one judgement per page
 * serves them all.
 */
static bool
same_visibility(Snapshot a, Snapshot b)
{
	if (a == b)
		return true;
	return a->snapshot_type == b->snapshot_type &&
		a->xmin == b->xmin && a->xmax == b->xmax &&
		a->xcnt == b->xcnt && a->subxcnt == b->subxcnt &&
		a->suboverflowed == b->suboverflowed &&
		a->takenDuringRecovery == b->takenDuringRecovery &&
		(a->xcnt == 0 ||
		 memcmp(a->xip, b->xip, sizeof(TransactionId) * a->xcnt) == 0) &&
		(a->subxcnt == 0 ||
		 memcmp(a->subxip, b->subxip, sizeof(TransactionId) * a->subxcnt) == 0);
}

/*
 * M3, the scanner's side: the messages a scanner builds for others before
 * it sends them hold work_mem in all, plus one page's rows each.  Past it,
 * the recipient with the largest message is dropped: its message freed,
 * nothing more built for it (its nblocks 0: past its walk on every later
 * page), never sent (done): its step is given back undelivered
 * (registry.c, deliver_steps) and it reads the chunk itself (taken back),
 * as when a scanner gives it up.  Recipient 0 is the scanner: its own rows are its executor's.
 * Without this a scanner serving m members held (m - 1) messages of up to
 * a chunk's rows each.  Streaming them in pieces was not chosen: a message
 * is one chunk's rows with its counts at the head, which the recipient
 * takes whole (scan/exec.c), and a recipient that gets most of a chunk is
 * better served by reading it itself from the buffers just read.
 */
static void
bound_messages(QsSharedRecipient *r, int n, int64 step)
{
	Size		limit = (Size) work_mem * 1024;
	Size		total = 0;

	for (int i = 1; i < n; i++)
		if (!r[i].done)
			total += r[i].msg.len;
	while (total > limit)
	{
		int			big = -1;

		for (int i = 1; i < n; i++)
			if (!r[i].done && (big < 0 || r[i].msg.len > r[big].msg.len))
				big = i;
		total -= r[big].msg.len;
		r[big].done = true;
		r[big].nblocks = 0;
		pfree(r[big].msg.data);
		initStringInfo(&r[big].msg);
		qs_shared_msg_begin(&r[big].msg, step);
	}
}

/*
 * qs_shared_scan_chunk
 *		Read blocks first .. end-1 once and append to each recipient's
 *		message the rows it would have found there itself (bounded:
 *		bound_messages).
 */
void
qs_shared_scan_chunk(Relation rel, const QsPageLayout *layout,
					 BufferAccessStrategy strategy,
					 BlockNumber first, BlockNumber end, int64 step,
					 QsSharedRecipient *r, int n, QsSharedSlot self)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			natts = desc->natts;
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext,
												 "shared scan rows",
												 ALLOCSET_DEFAULT_SIZES);
	OffsetNumber uni[MaxHeapTuplesPerPage];	/* seen by some recipient */
	int			nuni = 0;
	int			pos[MaxHeapTuplesPerPage + 1];	/* offset -> index in uni */
	OffsetNumber **sel = palloc(sizeof(OffsetNumber *) * n);
	int		   *nsel = palloc(sizeof(int) * n);
	Datum	   *values = palloc(sizeof(Datum) * Max(natts, 1));	/* a row */
	bool	   *isnull = palloc(sizeof(bool) * Max(natts, 1));
	Datum	   *tmpvals = palloc(sizeof(Datum) * MaxHeapTuplesPerPage); /* a column */
	bool	   *tmpnulls = palloc(sizeof(bool) * MaxHeapTuplesPerPage);
	Datum	  **colvals = palloc(sizeof(Datum *) * Max(natts, 1));
	bool	  **colnulls = palloc(sizeof(bool *) * Max(natts, 1));
	/*
	 * Columns read over uni[]: the index's columns (each holds at least one
	 * recipient, each recipient is in at most one) and each recipient's
	 * first qual's column, so at most 2n distinct ones (and natts)
	 */
	int			maxcols = Max(Min(natts, 2 * n), 1);
	QsPageColumn *cols = palloc(sizeof(QsPageColumn) * maxcols);
	int		   *judge = palloc(sizeof(int) * n);	/* whose judgement */
	OffsetNumber **vis = palloc(sizeof(OffsetNumber *) * n);
	int		   *nvis = palloc(sizeof(int) * n);
	bool	  **seen = palloc0(sizeof(bool *) * n);	/* judgement's records */
	int			njudges = 0;
	int		   *indexed = palloc(sizeof(int) * n);	/* qual in the index */
	QsQueryIndex *ix = qs_qindex_build(r, n, indexed);

	for (int i = 0; i < n; i++)
	{
		sel[i] = palloc(sizeof(OffsetNumber) * MaxHeapTuplesPerPage);
		qs_shared_msg_begin(&r[i].msg, step);
		judge[i] = i;
		vis[i] = NULL;
		for (int j = 0; j < i; j++)
			if (same_visibility(r[j].snapshot, r[i].snapshot))
			{
				judge[i] = judge[j];
				break;
			}
		if (judge[i] == i)
		{
			vis[i] = palloc(sizeof(OffsetNumber) * MaxHeapTuplesPerPage);
			njudges++;
		}
	}

	/*
	 * With several judgements, an indexed recipient's matches are kept only
	 * among the records its own judgement sees: seen[j][off] for judgement
	 * j (set per page, cleared after).
	 */
	if (ix != NULL && njudges > 1)
		for (int j = 0; j < n; j++)
			if (judge[j] == j)
				seen[j] = palloc0(sizeof(bool) * (MaxHeapTuplesPerPage + 1));
	for (int a = 0; a < natts; a++)
	{
		colvals[a] = NULL;
		colnulls[a] = NULL;
	}

	for (int x = 0; x <= MaxHeapTuplesPerPage; x++)
		pos[x] = -1;
	for (BlockNumber blkno = first; blkno < end; blkno++)
	{
		Buffer		buf;
		Page		page;
		const QsPageLayout *PL;
		OffsetNumber maxoff;
		bool		any = false;
		int			ncols = 0;
		int			njudged = 0;

		CHECK_FOR_INTERRUPTS();
		if (n > 1 && blkno > first)
			qs_shared_fault(QS_FAULT_IN_SCAN);
		/* take what others wrote for us meanwhile: frees their queues */
		qs_shared_poll(self);
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		PL = qs_page_layout(layout, page);
		maxoff = PL->max_offset(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff && !any; off++)
			any = (PL->record_state(page, off) == QS_REC_NORMAL);

		/*
		 * Visibility first, for every recipient reading this block (one
		 * judgement per group of equal snapshots), over every record of the
		 * page as the unshared scan judges it (load_page in scan/exec.c: no
		 * offsets).  Given offsets, qs_page_visible takes them as a bitmap's
		 * TIDs naming HOT chains and would follow a root to a successor that
		 * fails the quals, or skip a version whose root did (review shared3
		 * N1): so the quals run after it, on what it returns.  The count is
		 * the recipient's seq_tup_read, so it is judged even for a recipient
		 * none of whose rows will pass (an all-visible page costs nothing).
		 *
		 * Only then the native quals, on those records only: a record no
		 * member sees may hold bytes the table's descriptor does not
		 * describe (an attribute of an ADD COLUMN that rolled back, its
		 * number reused for another type: src/page/README.md), which NSM
		 * pages and wide HPL ones decode with the descriptor (review F1 of
		 * d8fix: SIGSEGV; isolation shared_scan_stale).  A record some
		 * snapshot sees was written by a committed transaction, which the
		 * descriptor describes.
		 */
		for (int i = 0; i < n; i++)
			nvis[i] = -1;		/* not judged on this page */
		for (int i = 0; i < n && any; i++)
		{
			int			jd = judge[i];

			if (blkno < r[i].nblocks && nvis[jd] < 0)
				nvis[jd] = qs_page_visible(layout, rel, buf, r[jd].snapshot,
										   NULL, -1, false, vis[jd]);
		}

		/*
		 * The records some recipient sees, each once (uni[], pos[] its
		 * inverse): a column read for the first quals of several recipients
		 * is read over these.  With one judgement (the common case) they
		 * are its records in its order.
		 */
		for (int x = 0; x < nuni; x++)
			pos[uni[x]] = -1;	/* the previous page's */
		nuni = 0;
		for (int j = 0; j < n; j++)
		{
			if (judge[j] != j || nvis[j] < 0)
				continue;
			for (int x = 0; x < nvis[j]; x++)
			{
				OffsetNumber off = vis[j][x];

				if (pos[off] >= 0)
					continue;	/* seen by an earlier judgement */
				pos[off] = nuni;
				uni[nuni++] = off;
			}
			if (seen[j] != NULL)
				for (int x = 0; x < nvis[j]; x++)
					seen[j][vis[j][x]] = true;
			njudged++;
		}

		/*
		 * In offset order, as each judgement's records are (an indexed
		 * recipient's candidates come in uni's order and its rows must come
		 * in its unshared scan's order: a restarted walk relies on it,
		 * scan/exec.c).  With one judgement they already are.
		 */
		if (njudged > 1)
		{
			nuni = 0;
			for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
				if (pos[off] >= 0)
				{
					pos[off] = nuni;
					uni[nuni++] = off;
				}
		}

		/*
		 * The query index (qindex.c): each indexed column read once over
		 * uni and each value looked up once; the recipients listed under it
		 * get the record as a candidate, if their own judgement sees it and
		 * the block is in their walk.  Their other quals run on their
		 * candidates below.  Everyone else's nsel starts at 0 too.
		 */
		for (int i = 0; i < n; i++)
			nsel[i] = 0;
		for (int g = 0; ix != NULL && g < ix->ncolumns && nuni > 0; g++)
		{
			QsQindexColumn *ic = &ix->columns[g];
			QsPageColumn *c = page_column(cols, &ncols, maxcols, PL, page,
										  desc, ic->attno, uni, nuni);

			for (int x = 0; x < nuni; x++)
			{
				int64		key;

				if (c->isnull[x])
					continue;	/* equal to no constant, in no range */
				key = qs_datum_to_int64(c->values[x], ic->col_width);
				for (int pass = 0; pass < 2; pass++)
				{
					/* equality recipients (hash), then range ones (segments) */
					int			l = pass == 0 ?
						(ic->nkeys == 0 ? -1 : qs_qindex_probe(ix, g, key)) :
						(ic->nsegs == 0 ? -1 : qs_qindex_probe_range(ix, g, key));

					for (; l >= 0; l = ix->links[l].next)
					{
						int			i = ix->links[l].recipient;
						int			jd = judge[i];

						if (blkno >= r[i].nblocks || nvis[jd] < 0 ||
							(seen[jd] != NULL && !seen[jd][uni[x]]))
							continue;
						sel[i][nsel[i]++] = uni[x];
					}
				}
			}
		}

		for (int i = 0; i < n; i++)
		{
			int			jd = judge[i];	/* whose judgement it shares */
			int			k;
			OffsetNumber *cand = sel[i];
			bool		first = true;	/* the first native qual */

			/* past its walk (its group's may be longer), or no record */
			if (blkno >= r[i].nblocks || nvis[jd] < 0)
				continue;
			r[i].visible += nvis[jd];
			if (indexed[i] >= 0)
			{
				/* its candidates: the index's matches, in cand already */
				k = nsel[i];
				first = false;
			}
			else
			{
				k = nvis[jd];
				memcpy(cand, vis[jd], sizeof(OffsetNumber) * k);
			}
			for (int j = 0; j < r[i].nquals && k > 0; j++)
			{
				QsQual	   *q = r[i].quals[j];

				if (j == indexed[i])
					continue;	/* answered by the index */

				/*
				 * Native quals only: no user code runs while steps are
				 * handed out.  The others (fmgr operators; only recipient
				 * 0, the scanner, has any: other members' never travel)
				 * are the scanner's to run on its own rows after it has
				 * delivered (review shared3 N2(b)).
				 */
				if (!qs_shared_qual_native(q))
					continue;
				if (first && q->kind != QS_QUAL_ISNULL && q->kind != QS_QUAL_NOTNULL)
				{
					/* the first qual: over the page's column, read once */
					QsPageColumn *c = page_column(cols, &ncols, maxcols, PL,
												  page, desc, q->attno,
												  uni, nuni);

					for (int x = 0; x < k; x++)
					{
						tmpvals[x] = c->values[pos[cand[x]]];
						tmpnulls[x] = c->isnull[pos[cand[x]]];
					}
					k = qs_qual_filter(q, tmpvals, tmpnulls, cand, k);
					first = false;
					continue;
				}
				first = false;
				if (qs_qual_filter_page(q, PL, page, desc, cand, &k))
					continue;
				PL->read_column(page, desc, q->attno, cand, k, tmpvals, tmpnulls);
				k = qs_qual_filter(q, tmpvals, tmpnulls, cand, k);
			}
			nsel[i] = k;
		}
		for (int j = 0; j < n; j++)
			if (seen[j] != NULL && nvis[j] > 0)
				for (int x = 0; x < nvis[j]; x++)
					seen[j][vis[j][x]] = false;
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		/* the wanted columns of each recipient's rows, as minimal tuples */
		for (int i = 0; i < n; i++)
		{
			int			k = nsel[i];

			if (k == 0)
				continue;
			for (int a = 0; a < natts; a++)
			{
				if (!r[i].want[a])
					continue;
				if (colvals[a] == NULL)
				{
					colvals[a] = palloc(sizeof(Datum) * MaxHeapTuplesPerPage);
					colnulls[a] = palloc(sizeof(bool) * MaxHeapTuplesPerPage);
				}
				PL->read_column(page, desc, a + 1, sel[i], k, colvals[a], colnulls[a]);
			}
			for (int row = 0; row < k; row++)
			{
				MemoryContext old = MemoryContextSwitchTo(rowcxt);
				MinimalTuple mtup;

				for (int a = 0; a < natts; a++)
				{
					values[a] = r[i].want[a] ? colvals[a][row] : (Datum) 0;
					isnull[a] = r[i].want[a] ? colnulls[a][row] : true;
				}
				mtup = qs_form_minimal_tuple(desc, values, isnull);
				MemoryContextSwitchTo(old);
				msg_add_row(&r[i].msg, blkno, sel[i][row], mtup);
				MemoryContextReset(rowcxt);
			}
			r[i].rows += k;
		}
		ReleaseBuffer(buf);
		bound_messages(r, n, step);
	}
	for (int i = 0; i < n; i++)
		msg_set_counts(&r[i].msg, r[i].visible, r[i].rows);
	MemoryContextDelete(rowcxt);
}
