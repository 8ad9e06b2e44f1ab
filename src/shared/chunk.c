/*-------------------------------------------------------------------------
 *
 * chunk.c
 *	  One member scans a chunk of a row table for several members at once
 *	  (src/shared/README.md, paper 001).
 *
 * Each page of the chunk is read once.  Under its share lock: the page's
 * records are listed once, then for each recipient its native quals run
 * over them (each column read once per page for the first qual of every
 * recipient that filters on it: the rows of the page against all members'
 * constants), then visibility is judged under that recipient's snapshot
 * over every record of the page, as its unshared scan judges it (HOT
 * chains, review N1; the count is the recipient's seq_tup_read), and the
 * rows that passed both are kept.  After the lock is released (the pin
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

/* A page's column read once for all recipients filtering on it first. */
typedef struct QsPageColumn
{
	AttrNumber	attno;
	Datum		values[MaxHeapTuplesPerPage];
	bool		isnull[MaxHeapTuplesPerPage];
} QsPageColumn;

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
 * keep_visible
 *		Those of cand[0..ncand-1] (they passed the native quals) among the
 *		page's visible records vis[0..nvis-1], into out[] in page order;
 *		returns how many.
 *
 *		Visibility is judged over every record of the page, as the unshared
 *		scan judges it (load_page in scan/exec.c: no offsets), and only then
 *		intersected with the candidates.  qs_page_visible given offsets takes
 *		them as a bitmap's TIDs naming HOT chains: it would follow a passing
 *		root to its heap-only successor, which may fail the quals (they are
 *		not rechecked), and skip a passing heap-only version whose root
 *		failed them or was pruned to a redirect (review shared3 N1).
 */
static int
keep_visible(const OffsetNumber *vis, int nvis,
			 const OffsetNumber *cand, int ncand, OffsetNumber *out)
{
	bool		want[MaxHeapTuplesPerPage + 1] = {0};
	int			n = 0;

	if (ncand == 0)
		return 0;
	for (int x = 0; x < ncand; x++)
		want[cand[x]] = true;
	for (int x = 0; x < nvis; x++)
		if (want[vis[x]])
			out[n++] = vis[x];
	return n;
}

/*
 * qs_shared_scan_chunk
 *		Read blocks first .. end-1 once and append to each recipient's
 *		message the rows it would have found there itself.
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
	OffsetNumber all[MaxHeapTuplesPerPage];
	OffsetNumber cand[MaxHeapTuplesPerPage];
	OffsetNumber **sel = palloc(sizeof(OffsetNumber *) * n);
	int		   *nsel = palloc(sizeof(int) * n);
	Datum	   *values = palloc(sizeof(Datum) * Max(natts, 1));	/* a row */
	bool	   *isnull = palloc(sizeof(bool) * Max(natts, 1));
	Datum	   *tmpvals = palloc(sizeof(Datum) * MaxHeapTuplesPerPage); /* a column */
	bool	   *tmpnulls = palloc(sizeof(bool) * MaxHeapTuplesPerPage);
	Datum	  **colvals = palloc(sizeof(Datum *) * Max(natts, 1));
	bool	  **colnulls = palloc(sizeof(bool *) * Max(natts, 1));
	QsPageColumn *cols = palloc(sizeof(QsPageColumn) * Max(n, 1));
	int		   *judge = palloc(sizeof(int) * n);	/* whose judgement */
	OffsetNumber **vis = palloc(sizeof(OffsetNumber *) * n);
	int		   *nvis = palloc(sizeof(int) * n);

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
			vis[i] = palloc(sizeof(OffsetNumber) * MaxHeapTuplesPerPage);
	}
	for (int a = 0; a < natts; a++)
	{
		colvals[a] = NULL;
		colnulls[a] = NULL;
	}

	for (BlockNumber blkno = first; blkno < end; blkno++)
	{
		Buffer		buf;
		Page		page;
		const QsPageLayout *PL;
		OffsetNumber maxoff;
		int			nall = 0,
					ncols = 0;

		CHECK_FOR_INTERRUPTS();
		/* take what others wrote for us meanwhile: frees their queues */
		qs_shared_poll(self);
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		PL = qs_page_layout(layout, page);
		maxoff = PL->max_offset(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
			if (PL->record_state(page, off) == QS_REC_NORMAL)
				all[nall++] = off;
		for (int i = 0; i < n; i++)
			nvis[i] = -1;		/* not judged on this page yet */

		for (int i = 0; i < n; i++)
		{
			int			k = nall;
			int			jd = judge[i];	/* whose judgement it shares */
			bool		first = true;	/* the first native qual */

			nsel[i] = 0;
			if (blkno >= r[i].nblocks || nall == 0)
				continue;
			memcpy(cand, all, sizeof(OffsetNumber) * nall);
			for (int j = 0; j < r[i].nquals && k > 0; j++)
			{
				QsQual	   *q = r[i].quals[j];

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
					QsPageColumn *c = NULL;

					for (int x = 0; x < ncols; x++)
						if (cols[x].attno == q->attno)
							c = &cols[x];
					if (c == NULL)
					{
						c = &cols[ncols++];
						c->attno = q->attno;
						PL->read_column(page, desc, q->attno, all, nall,
										c->values, c->isnull);
					}
					k = qs_qual_filter(q, c->values, c->isnull, cand, k);
					first = false;
					continue;
				}
				first = false;
				if (qs_qual_filter_page(q, PL, page, desc, cand, &k))
					continue;
				PL->read_column(page, desc, q->attno, cand, k, tmpvals, tmpnulls);
				k = qs_qual_filter(q, tmpvals, tmpnulls, cand, k);
			}
			/*
			 * Visibility of every record, even when no candidate is left:
			 * the recipient counts the records its snapshot sees, as its
			 * own scan would (an all-visible page costs nothing here, and
			 * recipients with the same snapshot share one judgement).
			 */
			if (nvis[jd] < 0)
				nvis[jd] = qs_page_visible(layout, rel, buf, r[jd].snapshot,
										   NULL, -1, false, vis[jd]);
			k = keep_visible(vis[jd], nvis[jd], cand, k, sel[i]);
			r[i].visible += nvis[jd];
			nsel[i] = k;
		}
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
	}
	for (int i = 0; i < n; i++)
		msg_set_counts(&r[i].msg, r[i].visible, r[i].rows);
	MemoryContextDelete(rowcxt);
}
