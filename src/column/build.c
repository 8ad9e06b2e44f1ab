/*-------------------------------------------------------------------------
 *
 * build.c
 *	  Building a column block from rows, column by column as they arrive.
 *
 * A bulk load appends each row's values straight into per-column arrays
 * in the codec's value format (colblock.h: by-value types as their bytes,
 * varlena detoasted without header, cstring without NUL) and a presence
 * bitmap, so no heap tuple is formed and deformed per row; the arrays keep
 * their capacity from one block to the next (qs_colbuilder_reset), so a
 * load of many blocks allocates its memory once.  Memory is bounded by
 * one block.  qs_colbuilder_build() encodes each column with the smallest
 * encoding the chooser finds among those the column allows (values.c:
 * dictionaries only where equal means identical) and serializes the
 * image.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/colam.h"
#include "column/colblock_csb.h"
#include "column/colstore.h"
#include "column/options.h"
#include "column/scratch.h"

static pg_noinline void *
grow_slow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t		ncap = *cap ? *cap : 1024;

	while (ncap < need)
		ncap *= 2;
	p = p ? repalloc_huge(p, ncap * elem) :
		MemoryContextAllocHuge(CurrentMemoryContext, ncap * elem);
	*cap = ncap;
	return p;
}

/* called per value per column: the test inline, the growth out of line */
static inline void *
grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (likely(need <= *cap))
		return p;
	return grow_slow(p, cap, need, elem);
}

/*
 * A load or rewrite of many blocks keeps its build buffers from block to
 * block; it then hands every image back (qs_colbuilder_image_done) once
 * written.
 */
void
qs_colbuilder_keep_scratch(QsColBuilder *b)
{
	QsColScratch *s;

	if (b->scratch != NULL)
		return;
	/* every column's stripe and dictionary, the image, the sort's arrays */
	s = qs_colscratch_create(b->cxt, 2 * Max(b->natts, 1) + 8);
	b->scratch = s;
}

void
qs_colbuilder_image_done(QsColBuilder *b, uint8 *image)
{
	if (b->scratch != NULL)
		qs_colscratch_free(b->scratch, image);
	else
		pfree(image);
}

void
qs_colbuilder_init(QsColBuilder *b, Relation rel, QsColAttr *attrs)
{
	TupleDesc	desc = RelationGetDescr(rel);

	memset(b, 0, sizeof(*b));
	b->cxt = CurrentMemoryContext;
	b->natts = desc->natts;
	b->attrs = attrs;
	b->cols = palloc0(sizeof(QsColBuildCol) * Max(b->natts, 1));
}

void
qs_colbuilder_reset(QsColBuilder *b)
{
	for (int c = 0; c < b->natts; c++)
	{
		QsColBuildCol *col = &b->cols[c];

		if (col->nulls)
			memset(col->nulls, 0, col->nulls_cap * sizeof(uint64));
		col->n = 0;
		col->var_len = 0;
		col->anynull = false;
	}
	if (b->origin)
		memset(b->origin, 0, b->origin_cap * sizeof(uint32));
	if (b->origin_cid)
		memset(b->origin_cid, 0, b->origin_cid_cap * sizeof(uint32));
	for (size_t r = 0; b->otid && r < b->otid_cap; r++)
		ItemPointerSetInvalid(&b->otid[r]);
	b->nrows = 0;
	b->bytes = 0;
	b->kind_desc = NULL;		/* made again per block: cheap, and no
								 * descriptor outlives a block unnoticed */
}

/* column col's presence bitmap holds row r's word, zeroed */
static inline void
nulls_grow(QsColBuildCol *col, uint32 r)
{
	col->nulls = grow(col->nulls, &col->nulls_cap, qs_bitmap_words(r + 1),
					  sizeof(uint64));
	if (col->nulls_cap > col->nulls_zeroed)
	{
		memset(col->nulls + col->nulls_zeroed, 0,
			   (col->nulls_cap - col->nulls_zeroed) * sizeof(uint64));
		col->nulls_zeroed = col->nulls_cap;
	}
}

/*
 * Value of column c for row r into the builder's arrays: p/len in the
 * codec's value format, or a NULL.  Rows are added in order per
 * column; the caller counts them in b->nrows.
 */
static inline void
put_value(QsColBuilder *b, int c, uint32 r, bool isnull, const uint8 *p,
		  uint32 len)
{
	QsColBuildCol *col = &b->cols[c];
	const QsColType *t = &b->attrs[c].type;

	nulls_grow(col, r);
	if (isnull)
	{
		col->anynull = true;
		return;
	}
	col->nulls[r / 64] |= UINT64CONST(1) << (r % 64);
	if (t->typlen > 0)
	{
		col->fixed = grow(col->fixed, &col->fixed_cap,
						  (size_t) (col->n + 1) * t->typlen, 1);
		memcpy(col->fixed + (size_t) col->n * t->typlen, p, t->typlen);
		b->bytes += t->typlen;
	}
	else
	{
		col->var = grow(col->var, &col->var_cap, col->var_len + len, 1);
		memcpy(col->var + col->var_len, p, len);
		col->offs = grow(col->offs, &col->offs_cap, col->n + 1, sizeof(uint64));
		col->lens = grow(col->lens, &col->lens_cap, col->n + 1, sizeof(uint32));
		col->offs[col->n] = col->var_len;
		col->lens[col->n] = len;
		col->var_len += len;
		b->bytes += len;
	}
	col->n++;
}

/*
 * Every column's presence bitmap holds row r's word (zeroed), so that the
 * per-value path of qs_colbuilder_add need not test it: one test per row,
 * the growth once per 64 rows.
 */
static pg_noinline void
nulls_reserve(QsColBuilder *b, uint32 r)
{
	size_t		ready = SIZE_MAX;

	for (int c = 0; c < b->natts; c++)
	{
		QsColBuildCol *col = &b->cols[c];

		nulls_grow(col, r);
		ready = Min(ready, col->nulls_zeroed);
	}
	/* bitmaps only grow and reset zeroes them whole: a lasting bound */
	b->nulls_ready = b->natts > 0 ? ready : 0;
}

/*
 * How qs_colbuilder_add takes each attribute's values, decided once per
 * slot descriptor: the per-value path of a load then makes no test of
 * the descriptor and, for by-value types, no copy through a buffer.
 */
#define QS_BK_NULL		0		/* dropped, or past the slot's attributes */
#define QS_BK_BYVAL4	1
#define QS_BK_BYVAL8	2
#define QS_BK_BYVAL		3		/* by value, 1 or 2 bytes */
#define QS_BK_FIXED		4		/* fixed width by reference */
#define QS_BK_VARLENA	5
#define QS_BK_CSTRING	6

static pg_noinline void
kinds_make(QsColBuilder *b, TupleDesc desc)
{
	MemoryContext old = MemoryContextSwitchTo(b->cxt);

	if (b->kind == NULL)
		b->kind = palloc(Max(b->natts, 1));
	MemoryContextSwitchTo(old);
	for (int c = 0; c < b->natts; c++)
	{
		const QsColType *t = &b->attrs[c].type;
		uint8		k;

		if (c >= desc->natts || TupleDescAttr(desc, c)->attisdropped)
			k = QS_BK_NULL;
		else if (t->typlen > 0 && t->typbyval)
			k = t->typlen == 4 ? QS_BK_BYVAL4 :
				t->typlen == 8 ? QS_BK_BYVAL8 : QS_BK_BYVAL;
		else if (t->typlen > 0)
			k = QS_BK_FIXED;
		else if (t->typlen == -1)
			k = QS_BK_VARLENA;
		else
			k = QS_BK_CSTRING;
		b->kind[c] = k;
	}
	b->kind_desc = desc;
}

/*
 * Every by-value column's array holds row r's value, so that the
 * per-value path need not test it (a column has at most one value per
 * row): one test per row; grow_slow doubles an array that must grow.
 */
static pg_noinline void
fixed_reserve(QsColBuilder *b, uint32 r)
{
	size_t		ready = SIZE_MAX;

	for (int c = 0; c < b->natts; c++)
	{
		QsColBuildCol *col = &b->cols[c];
		size_t		w;

		if (b->kind[c] < QS_BK_BYVAL4 || b->kind[c] > QS_BK_BYVAL)
			continue;
		w = (size_t) b->attrs[c].type.typlen;
		col->fixed = grow(col->fixed, &col->fixed_cap, ((size_t) r + 1) * w, 1);
		ready = Min(ready, col->fixed_cap / w);
	}
	/* arrays only grow, and reset keeps them: a lasting bound */
	b->fixed_ready = ready;
}

/* a non-NULL by-value value of row r: its bitmap word and slot reserved */
static inline void
put_byval(QsColBuilder *b, QsColBuildCol *col, uint32 r, Datum d,
		  int16 typlen)
{
	col->nulls[r / 64] |= UINT64CONST(1) << (r % 64);
	store_att_byval(col->fixed + (size_t) col->n * typlen, d, typlen);
	b->bytes += typlen;
	col->n++;
}

/* Append one row (the slot's values; a dropped column counts as NULL). */
void
qs_colbuilder_add(QsColBuilder *b, TupleTableSlot *slot)
{
	MemoryContext old = MemoryContextSwitchTo(b->cxt);
	TupleDesc	desc = slot->tts_tupleDescriptor;
	uint32		r = b->nrows;

	slot_getallattrs(slot);
	if (unlikely(desc != b->kind_desc))
		kinds_make(b, desc);
	if (unlikely(qs_bitmap_words(r + 1) > b->nulls_ready))
		nulls_reserve(b, r);
	if (unlikely((size_t) r + 1 > b->fixed_ready))
		fixed_reserve(b, r);
	for (int c = 0; c < b->natts; c++)
	{
		QsColBuildCol *col = &b->cols[c];
		Datum		d = slot->tts_values[c];

		if (b->kind[c] == QS_BK_NULL || slot->tts_isnull[c])
		{
			col->anynull = true;
			continue;
		}
		switch (b->kind[c])
		{
			case QS_BK_BYVAL4:
				put_byval(b, col, r, d, 4);
				break;
			case QS_BK_BYVAL8:
				put_byval(b, col, r, d, 8);
				break;
			case QS_BK_BYVAL:
				put_byval(b, col, r, d, b->attrs[c].type.typlen);
				break;
			case QS_BK_FIXED:
				put_value(b, c, r, false, (const uint8 *) DatumGetPointer(d),
						  b->attrs[c].type.typlen);
				break;
			case QS_BK_VARLENA:
				{
					struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

					put_value(b, c, r, false, (const uint8 *) VARDATA_ANY(v),
							  VARSIZE_ANY_EXHDR(v));
					if ((Pointer) v != DatumGetPointer(d))
						pfree(v);
				}
				break;
			default:
				{
					const char *p = DatumGetCString(d);

					put_value(b, c, r, false, (const uint8 *) p, strlen(p));
				}
				break;
		}
	}
	b->nrows++;
	MemoryContextSwitchTo(old);
}

/*
 * qs_colbuilder_add_column
 *		Column c's values of rows b->nrows .. b->nrows + n - 1, read from
 *		rows first .. first + n - 1 of an open column reader of a block (the
 *		same value format), or NULLs when r is NULL: a block's rows taken
 *		over column by column (append.c).  The caller adds every
 *		column so, then counts the rows with qs_colbuilder_add_rows.
 */
void
qs_colbuilder_add_column(QsColBuilder *b, int c, QsColReader *r,
						 uint32 first, uint32 n, Relation rel, uint32 block_id)
{
	MemoryContext old = MemoryContextSwitchTo(b->cxt);

	for (uint32 i = 0; i < n; i++)
	{
		bool		isnull;
		const uint8 *p;
		size_t		len;
		QsCodecErr	err;
		QsCodecStatus st;

		if (r == NULL)
		{
			put_value(b, c, b->nrows + i, true, NULL, 0);
			continue;
		}
		err.msg[0] = '\0';
		st = qs_colreader_get(r, first + i, &isnull, &p, &len, &err);
		if (st != QS_CODEC_OK)
			qs_colblock_report(rel, block_id, st, &err);
		put_value(b, c, b->nrows + i, isnull, p, (uint32) len);
	}
	MemoryContextSwitchTo(old);
}

/* the rows added column by column (qs_colbuilder_add_column) */
void
qs_colbuilder_add_rows(QsColBuilder *b, uint32 n)
{
	b->nrows += n;
}

/* (*arr)[row] addressable: grown in the builder's context, new entries 0 */
static void
grow_zeroed(QsColBuilder *b, uint32 **arr, size_t *cap, uint32 row)
{
	MemoryContext old;
	size_t		had = *cap;

	if (row < *cap)
		return;
	old = MemoryContextSwitchTo(b->cxt);
	*arr = grow(*arr, cap, (size_t) row + 1, sizeof(uint32));
	memset(*arr + had, 0, (*cap - had) * sizeof(uint32));
	MemoryContextSwitchTo(old);
}

/*
 * qs_colbuilder_set_origin
 *		Row 'row' (added already) has origin xmin 'xmin' and command id
 *		'cid': the inserter of the delta version a merge moved into it and
 *		that version's raw t_cid, or what its source row showed (the next
 *		version of a block, a seal, a rewrite).  0: the block entry's own
 *		xmin (cid is then ignored: the entry's command is the row's).
 */
void
qs_colbuilder_set_origin(QsColBuilder *b, uint32 row, TransactionId xmin,
						 CommandId cid)
{
	Assert(row < b->nrows);
	Assert(xmin == InvalidTransactionId || xmin >= FrozenTransactionId);
	if (xmin == InvalidTransactionId)
		cid = 0;
	if (xmin == InvalidTransactionId && b->origin == NULL)
		return;
	grow_zeroed(b, &b->origin, &b->origin_cap, row);
	b->origin[row] = xmin;
	if (cid == 0 && b->origin_cid == NULL)
		return;
	grow_zeroed(b, &b->origin_cid, &b->origin_cid_cap, row);
	b->origin_cid[row] = cid;
}

/*
 * qs_colbuilder_set_otid
 *		Row 'row' (added already) came from the delta version at 'tid' (a
 *		merge), or has the origin TID its source row had (the next version,
 *		a seal).  Invalid: none.
 */
void
qs_colbuilder_set_otid(QsColBuilder *b, uint32 row, ItemPointer tid)
{
	Assert(row < b->nrows);
	if (!ItemPointerIsValid(tid) && b->otid == NULL)
		return;
	Assert(!ItemPointerIsValid(tid) || !qs_tid_is_virtual(tid));
	if (row >= b->otid_cap)
	{
		MemoryContext old = MemoryContextSwitchTo(b->cxt);
		size_t		had = b->otid_cap;

		b->otid = grow(b->otid, &b->otid_cap, (size_t) row + 1,
					   sizeof(ItemPointerData));
		for (size_t r = had; r < b->otid_cap; r++)
			ItemPointerSetInvalid(&b->otid[r]);
		MemoryContextSwitchTo(old);
	}
	b->otid[row] = *tid;
}

/*
 * The image's origin TID sub-block (colblock.h), in TID row order as the
 * origin xmins'.  False when no row has one.
 */
static bool
otid_section(QsColBuilder *b, const uint32 *perm, QsColBlockIndex *ix,
			 const QsCodecAllocator *alloc, uint32 block_id)
{
	uint32	   *page;
	uint16	   *off;
	bool		any = false;

	if (b->otid == NULL)
		return false;
	page = palloc(sizeof(uint32) * Max(b->nrows, 1));
	off = palloc(sizeof(uint16) * Max(b->nrows, 1));
	for (uint32 j = 0; j < b->nrows; j++)
	{
		uint32		r = perm && !b->keep_tids ? perm[j] : j;
		ItemPointer t = r < b->otid_cap ? &b->otid[r] : NULL;

		if (t && ItemPointerIsValid(t))
		{
			/* a delta TID (colblock.h's limits), or the image is unreadable */
			if (ItemPointerGetBlockNumber(t) >= QS_ORIGIN_PAGE_LIMIT ||
				ItemPointerGetOffsetNumber(t) > QS_ORIGIN_MAX_OFF)
				elog(ERROR, "origin TID (%u,%u) of row %u of column block %u is no delta TID",
					 ItemPointerGetBlockNumber(t), ItemPointerGetOffsetNumber(t),
					 j, block_id);
			page[j] = ItemPointerGetBlockNumber(t);
			off[j] = ItemPointerGetOffsetNumber(t);
			any = true;
		}
		else
		{
			page[j] = 0;
			off[j] = 0;
		}
	}
	if (any)
	{
		ix->column = 0;
		ix->kind = QS_COLINDEX_ORIGIN_TID;
		ix->data = qs_colblock_otid_build(page, off, b->nrows, alloc, &ix->len);
		if (ix->data == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory for the origin TIDs of column block %u",
							block_id)));
	}
	pfree(page);
	pfree(off);
	return any;
}

/*
 * The image's origin xmin sub-block (colblock.h), with the rows' origin
 * command ids, in TID row order: the order of addition, or the image's
 * physical order when a sort gives the rows new TIDs (perm without
 * keep_tids).  NULL when no row has one.
 */
static bool
origin_section(QsColBuilder *b, const uint32 *perm, QsColBlockIndex *ix,
			   const QsCodecAllocator *alloc, uint32 block_id)
{
	uint32	   *by_tid = b->origin;
	uint32	   *cid_by_tid = b->origin_cid;
	bool		any = false;

	if (b->origin == NULL)
		return false;
	for (uint32 r = 0; r < Min(b->nrows, b->origin_cap) && !any; r++)
		any = b->origin[r] != 0;
	if (!any)
		return false;
	if (b->origin_cap < b->nrows || (perm && !b->keep_tids))
	{
		by_tid = palloc0(sizeof(uint32) * b->nrows);
		for (uint32 j = 0; j < b->nrows; j++)
		{
			uint32		r = perm && !b->keep_tids ? perm[j] : j;

			by_tid[j] = r < b->origin_cap ? b->origin[r] : 0;
		}
	}
	if (b->origin_cid != NULL &&
		(b->origin_cid_cap < b->nrows || (perm && !b->keep_tids)))
	{
		cid_by_tid = palloc0(sizeof(uint32) * b->nrows);
		for (uint32 j = 0; j < b->nrows; j++)
		{
			uint32		r = perm && !b->keep_tids ? perm[j] : j;

			cid_by_tid[j] = r < b->origin_cid_cap ? b->origin_cid[r] : 0;
		}
	}
	ix->column = 0;
	ix->kind = QS_COLINDEX_ORIGIN_XMIN;
	ix->data = qs_colblock_origin_build(by_tid, cid_by_tid, b->nrows, alloc,
										&ix->len);
	if (ix->data == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory for the origin xmins of column block %u",
						block_id)));
	if (by_tid != b->origin)
		pfree(by_tid);
	if (cid_by_tid != b->origin_cid)
		pfree(cid_by_tid);
	return true;
}

/*
 * Column c's non-NULL values, in row order, as the codec's QsValues (a
 * view of the builder's arrays); for variable width the pointer array
 * made for it is returned, to be pfree'd by the caller (else NULL).
 */
const uint8 **
qs_colbuilder_values(const QsColBuilder *b, int c, QsValues *qv)
{
	const QsColBuildCol *col = &b->cols[c];
	const QsColAttr *a = &b->attrs[c];
	const uint8 **ptrs;

	memset(qv, 0, sizeof(*qv));
	qv->n = col->n;
	if (a->type.typlen > 0)
	{
		qv->width = (uint32) a->type.typlen;
		qv->data = col->fixed;
		return NULL;
	}
	ptrs = palloc_extended(sizeof(uint8 *) * Max(col->n, 1), MCXT_ALLOC_HUGE);
	for (uint32 i = 0; i < col->n; i++)
		ptrs[i] = col->var + col->offs[i];
	qv->ptrs = ptrs;
	qv->lens = col->lens;
	return ptrs;
}

/* Are all of a dict_typmod column's values its typmod's images? */
static bool
values_canonical(const QsColAttr *a, const QsValues *qv)
{
	for (uint32 i = 0; i < qv->n; i++)
	{
		const uint8 *p = qv->ptrs ? qv->ptrs[i] : qv->data + (size_t) i * qv->width;
		size_t		len = qv->ptrs ? qv->lens[i] : qv->width;

		if (!qs_colattr_canonical(a, p, len))
			return false;
	}
	return true;
}

unsigned
qs_colbuild_allowed(const QsColAttr *a)
{
	unsigned	allowed = QS_ENC_MASK(QS_ENC_PLAIN) | QS_ENC_MASK(QS_ENC_LZ4);

	if (a->is_int)
		allowed |= QS_ENC_MASK(QS_ENC_FOR) | QS_ENC_MASK(QS_ENC_FOR_DELTA);
	if (a->has_order && a->dict_ok)
		allowed |= QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_DICT_PADDED);
	return allowed;
}

static inline bool
row_present(const QsColBuildCol *col, uint32 r)
{
	return (col->nulls[r / 64] >> (r % 64)) & 1;
}

/*
 * The rows in order of column sc: perm[j] is the row that goes to position
 * j.  Stable (equal keys keep their arrival order), NULLs last — the order
 * qs_colblock_verify checks a SORTED column against (it skips NULLs).
 * Fixed-width keys are sorted as (key, value index) records, which the
 * codec radix-sorts without a comparator call for the integer types;
 * others as an index sort through the column's comparator.
 */
static uint32 *
sort_permutation(QsColBuilder *b, int sc)
{
	QsColBuildCol *col = &b->cols[sc];
	QsColAttr  *a = &b->attrs[sc];
	uint32		n = col->n;
	uint32		nrows = b->nrows;
	uint32	   *perm = palloc_extended(sizeof(uint32) * Max(nrows, 1), MCXT_ALLOC_HUGE);
	uint32	   *rowof = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
	uint32		k = 0;
	uint32		j;

	/* the row of each non-NULL value (values are stored in row order) */
	for (uint32 r = 0; r < nrows; r++)
		if (row_present(col, r))
			rowof[k++] = r;
	Assert(k == n);

	if (a->type.typlen > 0 && a->type.typlen + sizeof(uint32) <= 64)
	{
		size_t		kl = (size_t) a->type.typlen;
		size_t		rs = kl + sizeof(uint32);
		uint8	   *recs = palloc_extended(rs * Max(n, 1), MCXT_ALLOC_HUGE);
		uint8	   *tmp = palloc_extended(rs * Max(n, 1), MCXT_ALLOC_HUGE);
		uint8	   *out;

		for (uint32 i = 0; i < n; i++)
		{
			memcpy(recs + i * rs, col->fixed + (size_t) i * kl, kl);
			memcpy(recs + i * rs + kl, &i, sizeof(uint32));
		}
		out = qs_sort_records(recs, tmp, n, rs, kl, a->cmpfn, a);
		for (j = 0; j < n; j++)
		{
			uint32		i;

			memcpy(&i, out + j * rs + kl, sizeof(uint32));
			perm[j] = rowof[i];
		}
		pfree(recs);
		pfree(tmp);
	}
	else
	{
		uint32	   *idx = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
		uint32	   *tmp = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
		QsValues	qv;
		const uint8 **ptrs = qs_colbuilder_values(b, sc, &qv);

		for (uint32 i = 0; i < n; i++)
			idx[i] = i;
		qs_sort_indexes(idx, tmp, n, &qv, a->cmpfn, a);
		for (j = 0; j < n; j++)
			perm[j] = rowof[idx[j]];
		pfree(idx);
		pfree(tmp);
		if (ptrs)
			pfree(ptrs);
	}
	/* NULLs last, in arrival order */
	j = n;
	for (uint32 r = 0; r < nrows; r++)
		if (!row_present(col, r))
			perm[j++] = r;
	Assert(j == nrows);
	pfree(rowof);
	return perm;
}

/*
 * qs_colbuilder_build
 *		Encode the rows added since the last reset as block block_id.
 *		Returns the image, palloc'd in the current context, or with
 *		qs_colbuilder_keep_scratch one of the builder's buffers, which the
 *		caller hands back with qs_colbuilder_image_done once written.
 */
uint8 *
qs_colbuilder_build(QsColBuilder *b, Relation rel, uint32 block_id,
					size_t *image_len)
{
	return qs_colbuilder_build_opts(b, rel, block_id, -1, NULL, image_len);
}

uint8 *
qs_colbuilder_build_opts(QsColBuilder *b, Relation rel, uint32 block_id,
						 int sort_col, const unsigned *enc_mask,
						 size_t *image_len)
{
	return qs_colbuilder_build_perm(b, rel, block_id, sort_col, enc_mask,
									image_len, NULL);
}

/*
 * qs_colbuilder_build_perm
 *		qs_colbuilder_build_opts that hands the caller the order it chose:
 *		*perm_out[j] = the row (in order of addition) at position j of the
 *		block, or NULL when the rows stayed in arrival order.
 */
uint8 *
qs_colbuilder_build_perm(QsColBuilder *b, Relation rel, uint32 block_id,
						 int sort_col, const unsigned *enc_mask,
						 size_t *image_len, uint32 **perm_out)
{
	return qs_colbuilder_build_given(b, rel, block_id, sort_col, enc_mask,
									 image_len, perm_out, NULL, NULL);
}

/*
 * qs_colbuilder_build_given
 *		qs_colbuilder_build_perm where the columns with have[c] come encoded
 *		by the caller in given[c] (buffers from qs_palloc_allocator(), taken
 *		over; presence bitmap the caller's): the merge into the open block
 *		merges dictionary columns itself (append.c).  No sort then.
 */
uint8 *
qs_colbuilder_build_given(QsColBuilder *b, Relation rel, uint32 block_id,
						  int sort_col, const unsigned *enc_mask,
						  size_t *image_len, uint32 **perm_out,
						  const bool *have, const QsColBlockColumn *given)
{
	const QsCodecAllocator *alloc = b->scratch ? qs_colscratch_allocator(b->scratch) :
		qs_palloc_allocator();
	QsColBlockColumn *cols = palloc0(sizeof(QsColBlockColumn) * Max(b->natts, 1));
	QsColBlockSpec spec;
	QsColBlockIndex *indexes = palloc0(sizeof(QsColBlockIndex) * (Max(b->natts, 1) + 3));
	QsCodecErr	err;
	QsCodecStatus st;
	uint8	   *image;
	uint32	   *perm = NULL;
	uint32	   *rank = NULL;
	uint64	   *pnulls = NULL;
	size_t		nwords = qs_bitmap_words(b->nrows);

	if (b->nrows == 0 || b->nrows > QS_COLBLOCK_MAX_ROWS)
		elog(ERROR, "cannot build a column block of %u rows", b->nrows);
	/*
	 * The last block's buffers all came back (qs_colbuilder_image_done),
	 * unless an error cut its build short: those stay allocated in the
	 * builder's context until it goes, never handed out again.
	 */
	if (b->scratch != NULL)
		qs_colscratch_forget_live(b->scratch);
	if (sort_col >= b->natts || (sort_col >= 0 && !b->attrs[sort_col].has_order) ||
		have != NULL)
		sort_col = -1;
	if (sort_col >= 0)
	{
		perm = sort_permutation(b, sort_col);
		rank = palloc_extended(sizeof(uint32) * b->nrows, MCXT_ALLOC_HUGE);
		pnulls = palloc_extended(sizeof(uint64) * Max(nwords, 1), MCXT_ALLOC_HUGE);
	}
	err.msg[0] = '\0';
	for (int c = 0; c < b->natts; c++)
	{
		QsColAttr  *a = &b->attrs[c];
		QsColBuildCol *col = &b->cols[c];
		QsValues	qv;
		const uint8 **ptrs = NULL;
		uint8	   *pfixed = NULL;
		uint32	   *plens = NULL;
		QsEncoding	enc = QS_ENC_PLAIN;
		unsigned	allowed;
		QsChoice	choice;
		uint8_t    *lz4 = NULL;
		QsColEncodeHints hints;
		bool		image_equal;

		if (have && have[c])
		{
			cols[c] = given[c];
			continue;
		}
		memset(&qv, 0, sizeof(qv));
		memset(&choice, 0, sizeof(choice));
		qv.n = col->n;
		if (perm == NULL)
			ptrs = qs_colbuilder_values(b, c, &qv);
		else
		{
			/*
			 * This column's values and presence bits in the sorted row
			 * order: rank[r] is row r's value index (values are stored in
			 * row order, NULLs have none).  Fixed-width values are copied,
			 * variable-width ones only pointed at: one column's copy at a
			 * time on top of the block.
			 */
			uint32		m = 0;

			for (uint32 r = 0, i = 0; r < b->nrows; r++)
				rank[r] = row_present(col, r) ? i++ : 0;
			memset(pnulls, 0, sizeof(uint64) * Max(nwords, 1));
			if (a->type.typlen > 0)
				pfixed = palloc_extended((size_t) a->type.typlen * Max(col->n, 1),
										 MCXT_ALLOC_HUGE);
			else
			{
				ptrs = palloc_extended(sizeof(uint8 *) * Max(col->n, 1), MCXT_ALLOC_HUGE);
				plens = palloc_extended(sizeof(uint32) * Max(col->n, 1), MCXT_ALLOC_HUGE);
			}
			for (uint32 j = 0; j < b->nrows; j++)
			{
				uint32		r = perm[j];
				uint32		i = rank[r];

				if (!row_present(col, r))
					continue;
				pnulls[j / 64] |= UINT64CONST(1) << (j % 64);
				if (pfixed)
					memcpy(pfixed + (size_t) m * a->type.typlen,
						   col->fixed + (size_t) i * a->type.typlen, a->type.typlen);
				else
				{
					ptrs[m] = col->var + col->offs[i];
					plens[m] = col->lens[i];
				}
				m++;
			}
			Assert(m == col->n);
			if (pfixed)
			{
				qv.width = (uint32) a->type.typlen;
				qv.data = pfixed;
			}
			else
			{
				qv.ptrs = ptrs;
				qv.lens = plens;
			}
		}
		allowed = qs_colbuild_allowed(a);
		image_equal = a->dict_ok;
		if (a->dict_typmod && !values_canonical(a, &qv))
		{
			/* a value the typmod did not shape: no dictionary here */
			allowed &= ~(QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_DICT_PADDED));
			image_equal = false;
		}
		/* an encoding option holds the chooser to its encodings */
		if (enc_mask && (enc_mask[c] & allowed) != 0)
			allowed &= enc_mask[c];
		if (col->n > 0 && (allowed & (allowed - 1)) == 0)
			enc = (QsEncoding) __builtin_ctz(allowed);
		else if (col->n > 0)
		{
			/*
			 * Exact sizes, not estimates, but no more work than the choice
			 * needs: dictionaries of btequalimage columns are counted, not
			 * built; a candidate stops being measured once it is known to
			 * be larger than another; a winning LZ4 stripe is kept.
			 */
			st = qs_choose_encoding(&qv, a->is_int, a->cmpfn, a,
									QS_CHOOSE_PRUNE | QS_CHOOSE_KEEP_LZ4 |
									QS_CHOOSE_SAMPLE |
									(image_equal ? QS_CHOOSE_IMAGE_EQUAL : 0),
									allowed, alloc, &choice, &err);
			if (st != QS_CODEC_OK)
				qs_colblock_report(rel, block_id, st, &err);
			enc = choice.best;
			lz4 = choice.lz4_stripe;

			/*
			 * PLAIN is always a candidate of the chooser; an option that
			 * forbids it gets the smallest of the encodings it names.
			 */
			if ((allowed & QS_ENC_MASK(enc)) == 0)
			{
				size_t		best = SIZE_MAX;

				for (int e = 0; e < QS_ENC_COUNT; e++)
					if ((allowed & QS_ENC_MASK(e)) && choice.considered[e] &&
						choice.size[e] < best)
					{
						best = choice.size[e];
						enc = (QsEncoding) e;
					}
			}
		}
		if (lz4 != NULL && enc != QS_ENC_LZ4)
		{
			alloc->free(alloc->ctx, lz4);
			lz4 = NULL;
		}
		hints.lz4 = lz4;
		hints.lz4_len = lz4 ? choice.size[QS_ENC_LZ4] : 0;
		hints.image_equal = image_equal;
		hints.for_info = choice.have_for_info ? &choice.for_info : NULL;
		st = qs_colblock_encode_column_ex(&qv, a->type, enc, &hints,
										  a->cmpfn, a, alloc, &cols[c], &err);
		if (st != QS_CODEC_OK)
			qs_colblock_report(rel, block_id, st, &err);
		cols[c].flags = c == sort_col ? QS_COLDESC_SORTED : 0;
		cols[c].nulls = col->anynull ? col->nulls : NULL;
		if (perm && col->anynull)
		{
			/* read at serialization, and pnulls is the next column's */
			uint64	   *nb = palloc(sizeof(uint64) * Max(nwords, 1));

			memcpy(nb, pnulls, sizeof(uint64) * Max(nwords, 1));
			cols[c].nulls = nb;
		}
		/* the stripes are the encoder's own buffers: the copies can go */
		if (ptrs)
			pfree(ptrs);
		if (pfixed)
			pfree(pfixed);
		if (plens)
			pfree(plens);
	}

	memset(&spec, 0, sizeof(spec));
	spec.block_id = block_id;
	spec.nrows = b->nrows;
	spec.ncols = (uint16) b->natts;
	spec.sort_col = (int16) sort_col;
	spec.cols = cols;
	spec.indexes = indexes;
	if (perm && b->keep_tids)
	{
		QsColBlockIndex *tidmap = &indexes[spec.nindexes++];

		/* perm[j] is the TID row of position j: the image's TID map */
		tidmap->column = 0;
		tidmap->kind = QS_COLINDEX_TIDMAP;
		tidmap->data = qs_colblock_tidmap_build(perm, b->nrows, alloc, &tidmap->len);
		if (tidmap->data == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory for the TID map of column block %u", block_id)));
	}
	/* the origin xmins first: the index sub-blocks take what slots are left */
	if (origin_section(b, perm, &indexes[spec.nindexes], alloc, block_id))
	{
		elog(DEBUG1, "column block %u: origin xmins of %u rows in %zu bytes",
			 block_id, b->nrows, indexes[spec.nindexes].len);
		spec.nindexes++;
	}
	if (otid_section(b, perm, &indexes[spec.nindexes], alloc, block_id))
	{
		elog(DEBUG1, "column block %u: origin TIDs of %u rows in %zu bytes",
			 block_id, b->nrows, indexes[spec.nindexes].len);
		spec.nindexes++;
	}
	for (int c = 0; b->index_cols && c < b->natts && spec.nindexes < QS_COLBLOCK_MAX_INDEXES; c++)
	{
		QsColBlockIndex *ix = &indexes[spec.nindexes];
		int			kind;

		/*
		 * The sort column needs none (binary search finds its rows); a
		 * column that is neither a dictionary nor FOR integers in this
		 * block (PLAIN, LZ4, FOR-delta, or FOR values 2^32 - 1 or more
		 * apart) gets none (README section 2).
		 */
		if (!b->index_cols[c] || c == sort_col || cols[c].nvalues == 0 ||
			(kind = qs_csbix_column_kind(&cols[c])) == 0)
			continue;
		/* time: FOR (values.c type_is_int), but no probe serves its quals */
		if (kind == QS_COLINDEX_CSBINTS && b->attrs[c].typid == TIMEOID)
			continue;
		ix->column = (uint16) c;
		ix->kind = (uint16) kind;
		ix->data = qs_csbix_build_column(&cols[c], b->nrows, alloc, &ix->len);
		if (ix->data == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory for the index sub-block of column %d of column block %u",
							c + 1, block_id)));
		spec.nindexes++;
	}
	st = qs_colblock_image_size(&spec, image_len, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, block_id, st, &err);
	image = alloc->alloc(alloc->ctx, *image_len);
	st = qs_colblock_serialize(&spec, image, *image_len, image_len, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, block_id, st, &err);
	for (int c = 0; c < b->natts; c++)
		qs_colblock_column_free(alloc, &cols[c]);
	pfree(cols);
	for (int k = 0; k < spec.nindexes; k++)
		alloc->free(alloc->ctx, (void *) indexes[k].data);
	pfree(indexes);
	if (perm_out)
		*perm_out = perm;
	if (perm)
	{
		if (perm_out == NULL)
			pfree(perm);
		pfree(rank);
		pfree(pnulls);
	}
	return image;
}
