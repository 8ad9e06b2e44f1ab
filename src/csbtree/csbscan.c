/*-------------------------------------------------------------------------
 *
 * csbscan.c
 *	  csbtree scans: position by the first column's bounds, then read one
 *	  leaf page at a time (all its matching items, copied) and walk the
 *	  leaf level by right-links, or left-links for backward scans.
 *
 *-------------------------------------------------------------------------
 */
#include "csbtree/csbtree.h"

#include "access/relscan.h"
#include "access/stratnum.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

typedef struct CsbScanItem
{
	ItemPointerData heapTid;
	uint16		tupleOffset;	/* in tuples[] */
} CsbScanItem;

/* A saved scan position (ammarkpos), with its own pin on its page. */
typedef struct CsbScanMark
{
	bool		valid;
	Buffer		pinbuf;
	BlockNumber curblk;
	BlockNumber leftblk;
	BlockNumber rightblk;
	bool		moreLeft;
	bool		moreRight;
	int			nitems;
	int			cur;
	int			tuplesused;
	CsbScanItem *items;			/* CSB_MAX_ITEMS, allocated at first mark */
	char	   *tuples;			/* CSB_MAX_ITEMS_BYTES */
} CsbScanMark;

typedef struct CsbScanOpaqueData
{
	CsbState   *st;
	MemoryContext cxt;			/* the scan's memory */
	bool		started;
	bool		nomatch;		/* a key can never be true */
	FmgrInfo	cmp[INDEX_MAX_KEYS];	/* support function for each key */
	bool		hascmp[INDEX_MAX_KEYS];
	Oid			cmpproc[INDEX_MAX_KEYS];	/* its OID, and what it was */
	AttrNumber	cmpattno[INDEX_MAX_KEYS];	/* looked up for: a rescan */
	Oid			cmpsubtype[INDEX_MAX_KEYS]; /* with the same keys skips */
	StrategyNumber eff[INDEX_MAX_KEYS];	/* strategy in index order */

	/* the current leaf page */
	Buffer		pinbuf;			/* pinned (not locked), or InvalidBuffer */
	BlockNumber curblk;
	BlockNumber leftblk;
	BlockNumber rightblk;
	bool		moreLeft;
	bool		moreRight;
	int			nitems;
	int			cur;
	char	   *tuples;			/* CSB_MAX_ITEMS_BYTES of copied tuples, for
								 * index-only scans only; else NULL */
	int			tuplesused;

	CsbScanMark mark;

	/* last, so that beginscan need not zero it */
	CsbScanItem items[CSB_MAX_ITEMS];
} CsbScanOpaqueData;

typedef CsbScanOpaqueData *CsbScanOpaque;

static StrategyNumber
csb_commute(StrategyNumber s)
{
	return BTMaxStrategyNumber + 1 - s;
}

IndexScanDesc
csb_beginscan(Relation r, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
	CsbScanOpaque so = palloc(sizeof(CsbScanOpaqueData));

	/*
	 * A point query begins a scan for one probe: zero only the header (not
	 * the 7 kB item array), and leave the tuple buffer to index-only scans.
	 */
	memset(so, 0, offsetof(CsbScanOpaqueData, items));
	so->st = csb_init_state(r);
	so->cxt = CurrentMemoryContext;
	so->pinbuf = InvalidBuffer;
	so->tuples = NULL;
	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(r);
	return scan;
}

static void
csb_release_page(CsbScanOpaque so)
{
	if (BufferIsValid(so->pinbuf))
		ReleaseBuffer(so->pinbuf);
	so->pinbuf = InvalidBuffer;
	so->nitems = 0;
	so->cur = 0;
}

static void
csb_release_mark(CsbScanOpaque so)
{
	if (so->mark.valid && BufferIsValid(so->mark.pinbuf))
		ReleaseBuffer(so->mark.pinbuf);
	so->mark.valid = false;
	so->mark.pinbuf = InvalidBuffer;
}

/*
 * csb_markpos / csb_restrpos
 *		Save the current position (the item last returned) and go back to
 *		it; the mark keeps a pin of its own on its page.  Merge joins use
 *		them to rescan runs of equal inner keys.
 */
void
csb_markpos(IndexScanDesc scan)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	CsbScanMark *m = &so->mark;

	csb_release_mark(so);
	if (!so->started || so->nomatch)
		return;
	if (m->items == NULL)
	{
		m->items = MemoryContextAlloc(so->cxt, sizeof(CsbScanItem) * CSB_MAX_ITEMS);
		m->tuples = MemoryContextAlloc(so->cxt, CSB_MAX_ITEMS_BYTES);
	}
	m->pinbuf = so->pinbuf;
	if (BufferIsValid(m->pinbuf))
		IncrBufferRefCount(m->pinbuf);
	m->curblk = so->curblk;
	m->leftblk = so->leftblk;
	m->rightblk = so->rightblk;
	m->moreLeft = so->moreLeft;
	m->moreRight = so->moreRight;
	m->nitems = so->nitems;
	m->cur = so->cur;
	m->tuplesused = so->tuplesused;
	memcpy(m->items, so->items, sizeof(CsbScanItem) * so->nitems);
	if (so->tuplesused > 0)
		memcpy(m->tuples, so->tuples, so->tuplesused);
	m->valid = true;
}

void
csb_restrpos(IndexScanDesc scan)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	CsbScanMark *m = &so->mark;

	if (!m->valid)
		return;
	csb_release_page(so);
	so->pinbuf = m->pinbuf;
	if (BufferIsValid(so->pinbuf))
		IncrBufferRefCount(so->pinbuf);
	so->curblk = m->curblk;
	so->leftblk = m->leftblk;
	so->rightblk = m->rightblk;
	so->moreLeft = m->moreLeft;
	so->moreRight = m->moreRight;
	so->nitems = m->nitems;
	so->cur = m->cur;
	so->tuplesused = m->tuplesused;
	memcpy(so->items, m->items, sizeof(CsbScanItem) * m->nitems);
	if (m->tuplesused > 0)
		memcpy(so->tuples, m->tuples, m->tuplesused);
	so->started = true;
	so->nomatch = false;
}

void
csb_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		   ScanKey orderbys, int norderbys)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	int			i;

	csb_release_page(so);
	csb_release_mark(so);
	so->started = false;
	so->nomatch = false;
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));

	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		int			col = sk->sk_attno - 1;
		Oid			subtype;
		Oid			proc;

		so->hascmp[i] = false;
		so->eff[i] = InvalidStrategy;
		if (sk->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL))
			continue;
		if (sk->sk_flags & SK_ISNULL)
		{
			so->nomatch = true;
			continue;
		}
		so->eff[i] = (index->rd_indoption[col] & INDOPTION_DESC) ?
			csb_commute(sk->sk_strategy) : sk->sk_strategy;
		subtype = OidIsValid(sk->sk_subtype) ? sk->sk_subtype : index->rd_opcintype[col];

		/*
		 * A nested loop rescans once per outer row with keys of the same
		 * shape: look the support function up only when the key changed.
		 */
		if (OidIsValid(so->cmpproc[i]) && so->cmpattno[i] == sk->sk_attno &&
			so->cmpsubtype[i] == subtype)
		{
			so->hascmp[i] = true;
			continue;
		}
		so->cmpproc[i] = InvalidOid;
		if (subtype == index->rd_opcintype[col])
		{
			/* the index's own support function, already looked up */
			fmgr_info_copy(&so->cmp[i], so->st->cols[col].cmp, so->cxt);
			so->hascmp[i] = true;
			so->cmpproc[i] = so->cmp[i].fn_oid;
			so->cmpattno[i] = sk->sk_attno;
			so->cmpsubtype[i] = subtype;
			continue;
		}
		proc = get_opfamily_proc(index->rd_opfamily[col], index->rd_opcintype[col],
								 subtype, CSB_CMP_PROC);
		if (OidIsValid(proc))
		{
			fmgr_info_cxt(proc, &so->cmp[i], so->cxt);
			so->hascmp[i] = true;
			so->cmpproc[i] = proc;
			so->cmpattno[i] = sk->sk_attno;
			so->cmpsubtype[i] = subtype;
		}
	}
}

/*
 * csb_checkkeys
 *		Does the tuple satisfy every key?  When it does not, *stop says the
 *		failed key rules out every later item in direction dir (a bound on
 *		the first column that the scan has passed).
 */
static bool
csb_checkkeys(IndexScanDesc scan, IndexTuple itup, ScanDirection dir, bool *stop)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	TupleDesc	tupdesc = RelationGetDescr(index);
	bool		fwd = ScanDirectionIsForward(dir);
	int			i;

	*stop = false;
	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		bool		isnull;
		Datum		d = index_getattr(itup, sk->sk_attno, tupdesc, &isnull);
		bool		first = (sk->sk_attno == 1);
		bool		nullsfirst = (index->rd_indoption[sk->sk_attno - 1] & INDOPTION_NULLS_FIRST) != 0;

		if (sk->sk_flags & SK_SEARCHNULL)
		{
			if (isnull)
				continue;
			/* nulls lie only on one side of the non-nulls */
			if (first && (nullsfirst ? fwd : !fwd))
				*stop = true;
			return false;
		}
		if (isnull)
		{
			/* SEARCHNOTNULL or an operator: nulls never match */
			if (first && (nullsfirst ? !fwd : fwd))
				*stop = true;
			return false;
		}
		if (sk->sk_flags & SK_SEARCHNOTNULL)
			continue;

		if (DatumGetBool(FunctionCall2Coll(&sk->sk_func, sk->sk_collation, d, sk->sk_argument)))
			continue;

		if (first)
		{
			switch (so->eff[i])
			{
				case BTLessStrategyNumber:
				case BTLessEqualStrategyNumber:
					*stop = fwd;
					break;
				case BTGreaterStrategyNumber:
				case BTGreaterEqualStrategyNumber:
					*stop = !fwd;
					break;
				case BTEqualStrategyNumber:
					if (so->hascmp[i])
					{
						int32		c = DatumGetInt32(FunctionCall2Coll(&so->cmp[i], sk->sk_collation,
																	 d, sk->sk_argument));

						if (index->rd_indoption[0] & INDOPTION_DESC)
							INVERT_COMPARE_RESULT(c);
						/* item after the key in index order: nothing matches further on */
						*stop = (c > 0) ? fwd : !fwd;
					}
					break;
				default:
					break;
			}
		}
		return false;
	}
	return true;
}

/*
 * csb_readpage
 *		Collect the matching items of the share-locked leaf page of buf,
 *		from offset start in direction dir, in page order.  Keeps the pin
 *		(so that VACUUM cannot remove the items we return) and releases the
 *		lock.
 */
static void
csb_readpage(IndexScanDesc scan, Buffer buf, OffsetNumber start, ScanDirection dir)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	Page		page = BufferGetPage(buf);
	CsbPageOpaque op = CsbPageGetOpaque(page);
	OffsetNumber first = CsbFirstData(op);
	OffsetNumber maxoff = csb_maxoff(page);
	bool		fwd = ScanDirectionIsForward(dir);
	bool		stopped = false;
	bool		want_itup = scan->xs_want_itup;
	CsbTupBuf	tb;
	int			n = 0;
	OffsetNumber off;

	csb_release_page(so);
	if (want_itup && so->tuples == NULL)
		so->tuples = MemoryContextAlloc(so->cxt, CSB_MAX_ITEMS_BYTES);
	so->curblk = BufferGetBlockNumber(buf);
	so->leftblk = op->left;
	so->rightblk = op->right;
	so->tuplesused = 0;

	if (fwd)
	{
		for (off = Max(start, first); off <= maxoff; off++)
		{
			IndexTuple	itup = csb_item(page, off, &tb);
			bool		stop;

			if (csb_checkkeys(scan, itup, dir, &stop))
			{
				so->items[n].heapTid = itup->t_tid;
				so->items[n].tupleOffset = so->tuplesused;
				if (want_itup)
				{
					Size		sz = IndexTupleSize(itup);

					memcpy(so->tuples + so->tuplesused, itup, sz);
					so->tuplesused += MAXALIGN(sz);
				}
				n++;
			}
			else if (stop)
			{
				stopped = true;
				break;
			}
		}
	}
	else
	{
		CsbScanItem *tmp = palloc(sizeof(CsbScanItem) * CSB_MAX_ITEMS);
		int			i;

		for (off = Min(start, maxoff); off >= first && off != InvalidOffsetNumber; off--)
		{
			IndexTuple	itup = csb_item(page, off, &tb);
			bool		stop;

			if (csb_checkkeys(scan, itup, dir, &stop))
			{
				tmp[n].heapTid = itup->t_tid;
				tmp[n].tupleOffset = so->tuplesused;
				if (want_itup)
				{
					Size		sz = IndexTupleSize(itup);

					memcpy(so->tuples + so->tuplesused, itup, sz);
					so->tuplesused += MAXALIGN(sz);
				}
				n++;
			}
			else if (stop)
			{
				stopped = true;
				break;
			}
		}
		for (i = 0; i < n; i++)
			so->items[i] = tmp[n - 1 - i];
		pfree(tmp);
	}
	so->nitems = n;
	so->moreRight = (op->right != InvalidBlockNumber) && !(fwd && stopped);
	so->moreLeft = (op->left != InvalidBlockNumber) && !(!fwd && stopped);
	so->cur = fwd ? 0 : n - 1;

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	so->pinbuf = buf;
}

/* Step to the next leaf page in direction dir; false at the end. */
static bool
csb_steppage(IndexScanDesc scan, ScanDirection dir)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	Buffer		buf;

	if (ScanDirectionIsForward(dir))
	{
		BlockNumber blk = so->rightblk;

		if (!so->moreRight)
			return false;

		/*
		 * The right sibling may have been deleted since we read the link:
		 * its range went to its right sibling, which is where its
		 * right-link leads.  A deleted page never becomes the current page
		 * (a backward step could not find its left sibling).
		 */
		buf = csb_get_buffer(index, blk, BUFFER_LOCK_SHARE);
		for (;;)
		{
			CsbPageOpaque op = CsbPageGetOpaque(BufferGetPage(buf));

			if (!CsbPageIsDeleted(op))
				break;
			blk = op->right;
			UnlockReleaseBuffer(buf);
			buf = csb_get_buffer(index, blk, BUFFER_LOCK_SHARE);
		}
		csb_readpage(scan, buf, FirstOffsetNumber, dir);
	}
	else
	{
		BlockNumber target = so->curblk;
		BlockNumber blk = so->leftblk;

		if (!so->moreLeft)
			return false;

		/*
		 * The left sibling we saw may have split since: the page whose
		 * right-link is ours is it or one of the pages right of it.  It
		 * may also have been deleted (our own page cannot be: we hold a pin
		 * on it, and VACUUM deletes only pages it can cleanup-lock); then
		 * start from the page left of it, which was its live left sibling
		 * when it was deleted, so it cannot have been recycled while our
		 * snapshot lives.  Deleted pages met on the way right are passed.
		 */
		buf = csb_get_buffer(index, blk, BUFFER_LOCK_SHARE);
		for (;;)
		{
			CsbPageOpaque op = CsbPageGetOpaque(BufferGetPage(buf));

			if (!CsbPageIsDeleted(op) || op->left == InvalidBlockNumber)
				break;
			blk = op->left;
			UnlockReleaseBuffer(buf);
			buf = csb_get_buffer(index, blk, BUFFER_LOCK_SHARE);
		}
		for (;;)
		{
			CsbPageOpaque op = CsbPageGetOpaque(BufferGetPage(buf));

			if (op->right == target && !CsbPageIsDeleted(op))
				break;
			if (op->right == InvalidBlockNumber)
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("csbtree: left sibling of block %u not found in index \"%s\"",
								target, RelationGetRelationName(index))));
			blk = op->right;
			UnlockReleaseBuffer(buf);
			buf = csb_get_buffer(index, blk, BUFFER_LOCK_SHARE);
		}
		csb_readpage(scan, buf, MaxOffsetNumber, dir);
	}
	return true;
}

/*
 * csb_first
 *		Position on the first matching item in direction dir.
 */
static bool
csb_first(IndexScanDesc scan, ScanDirection dir)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	CsbState   *st = so->st;
	Relation	index = scan->indexRelation;
	bool		fwd = ScanDirectionIsForward(dir);
	int			best = -1;
	int			i;
	Buffer		buf;
	OffsetNumber start;

	/* the bound on the first column to start from: = first, then >, >= (<, <=) */
	for (i = 0; i < scan->numberOfKeys; i++)
	{
		StrategyNumber s = so->eff[i];

		if (scan->keyData[i].sk_attno != 1 || !so->hascmp[i] || s == InvalidStrategy)
			continue;
		if (s == BTEqualStrategyNumber)
		{
			best = i;
			break;
		}
		if (best < 0 &&
			(fwd ? (s == BTGreaterStrategyNumber || s == BTGreaterEqualStrategyNumber)
			 : (s == BTLessStrategyNumber || s == BTLessEqualStrategyNumber)))
			best = i;
	}

	if (best < 0)
	{
		buf = csb_descend_edge(st, !fwd);
		start = fwd ? FirstOffsetNumber : MaxOffsetNumber;
	}
	else
	{
		ScanKey		sk = &scan->keyData[best];
		StrategyNumber s = so->eff[best];
		CsbSearchKey key;
		Oid			argtype = OidIsValid(sk->sk_subtype) ? sk->sk_subtype : index->rd_opcintype[0];
		bool		nextkey;

		key.nkeys = 1;
		key.cols[0].value = sk->sk_argument;
		key.cols[0].isnull = false;
		key.cols[0].cmp = &so->cmp[best];
		key.cols[0].collation = sk->sk_collation;
		key.cols[0].desc = st->cols[0].desc;
		key.cols[0].nullsfirst = st->cols[0].nullsfirst;
		key.has_nk = st->cols[0].nkkind != CSB_NK_NONE &&
			csb_type_nkkind(argtype, sk->sk_collation) == st->cols[0].nkkind;
		if (key.has_nk)
			key.nk = csb_value_nk(st, argtype, sk->sk_argument, false);
		key.nk_exact = key.has_nk &&
			csb_nk_exact(st, argtype, sk->sk_argument, false, key.nkeys);

		if (fwd)
			nextkey = (s == BTGreaterStrategyNumber);
		else
			nextkey = (s == BTLessEqualStrategyNumber || s == BTEqualStrategyNumber);
		buf = csb_descend(st, &key, nextkey, BUFFER_LOCK_SHARE, 0, NULL);
		start = csb_page_search(st, BufferGetPage(buf), &key, nextkey);
		if (!fwd)
			start = OffsetNumberPrev(start);
	}

	csb_readpage(scan, buf, start, dir);
	while (so->nitems == 0)
	{
		CHECK_FOR_INTERRUPTS();
		if (!csb_steppage(scan, dir))
			return false;
	}
	return true;
}

static bool
csb_next(IndexScanDesc scan, ScanDirection dir)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;

	if (ScanDirectionIsForward(dir))
	{
		if (++so->cur < so->nitems)
			return true;
	}
	else
	{
		if (--so->cur >= 0 && so->cur < so->nitems)
			return true;
	}
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (!csb_steppage(scan, dir))
		{
			/* stay past the end, so that a reversed fetch starts from here */
			so->cur = ScanDirectionIsForward(dir) ? so->nitems : -1;
			return false;
		}
		if (so->nitems > 0)
			return true;
	}
}

bool
csb_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;
	CsbScanItem *item;

	if (!so->started)
	{
		so->started = true;
		pgstat_count_index_scan(scan->indexRelation);
		QS_CSB_COUNT_SEARCH(scan);
		if (so->nomatch || !csb_first(scan, dir))
		{
			so->nomatch = true;
			return false;
		}
	}
	else
	{
		if (so->nomatch)
			return false;
		if (!csb_next(scan, dir))
			return false;
	}
	item = &so->items[so->cur];
	scan->xs_heaptid = item->heapTid;
	if (scan->xs_want_itup)
		scan->xs_itup = (IndexTuple) (so->tuples + item->tupleOffset);
	scan->xs_recheck = false;
	return true;
}

int64
csb_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	int64		ntids = 0;

	while (csb_gettuple(scan, ForwardScanDirection))
	{
		tbm_add_tuples(tbm, &scan->xs_heaptid, 1, false);
		ntids++;
	}
	return ntids;
}

void
csb_endscan(IndexScanDesc scan)
{
	CsbScanOpaque so = (CsbScanOpaque) scan->opaque;

	csb_release_page(so);
	csb_release_mark(so);
	if (so->tuples)
		pfree(so->tuples);
	pfree(so);
	scan->opaque = NULL;
}
