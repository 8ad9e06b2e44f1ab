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
#include "utils/memutils.h"
#include "utils/rel.h"

#include "column/colstore.h"

static void *
grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t		ncap = *cap ? *cap : 1024;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	p = p ? repalloc_huge(p, ncap * elem) :
		MemoryContextAllocHuge(CurrentMemoryContext, ncap * elem);
	*cap = ncap;
	return p;
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
	b->nrows = 0;
	b->bytes = 0;
}

/* Append one row (the slot's values; a dropped column counts as NULL). */
void
qs_colbuilder_add(QsColBuilder *b, TupleTableSlot *slot)
{
	MemoryContext old = MemoryContextSwitchTo(b->cxt);
	TupleDesc	desc = slot->tts_tupleDescriptor;
	uint32		r = b->nrows;

	slot_getallattrs(slot);
	for (int c = 0; c < b->natts; c++)
	{
		QsColBuildCol *col = &b->cols[c];
		const QsColType *t = &b->attrs[c].type;
		Datum		d = slot->tts_values[c];

		col->nulls = grow(col->nulls, &col->nulls_cap, qs_bitmap_words(r + 1),
						  sizeof(uint64));
		if (col->nulls_cap > col->nulls_zeroed)
		{
			memset(col->nulls + col->nulls_zeroed, 0,
				   (col->nulls_cap - col->nulls_zeroed) * sizeof(uint64));
			col->nulls_zeroed = col->nulls_cap;
		}
		if (c >= desc->natts || slot->tts_isnull[c] ||
			TupleDescAttr(desc, c)->attisdropped)
		{
			col->anynull = true;
			continue;
		}
		col->nulls[r / 64] |= UINT64CONST(1) << (r % 64);
		if (t->typlen > 0)
		{
			col->fixed = grow(col->fixed, &col->fixed_cap,
							  (size_t) (col->n + 1) * t->typlen, 1);
			if (t->typbyval)
				store_att_byval(col->fixed + (size_t) col->n * t->typlen, d, t->typlen);
			else
				memcpy(col->fixed + (size_t) col->n * t->typlen,
					   DatumGetPointer(d), t->typlen);
			b->bytes += t->typlen;
		}
		else
		{
			const uint8 *p;
			uint32		len;
			struct varlena *v = NULL;

			if (t->typlen == -1)
			{
				v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
				p = (const uint8 *) VARDATA_ANY(v);
				len = VARSIZE_ANY_EXHDR(v);
			}
			else
			{
				p = (const uint8 *) DatumGetCString(d);
				len = strlen((const char *) p);
			}
			col->var = grow(col->var, &col->var_cap, col->var_len + len, 1);
			memcpy(col->var + col->var_len, p, len);
			col->offs = grow(col->offs, &col->offs_cap, col->n + 1, sizeof(uint64));
			col->lens = grow(col->lens, &col->lens_cap, col->n + 1, sizeof(uint32));
			col->offs[col->n] = col->var_len;
			col->lens[col->n] = len;
			col->var_len += len;
			b->bytes += len;
			if (v && (Pointer) v != DatumGetPointer(d))
				pfree(v);
		}
		col->n++;
	}
	b->nrows++;
	MemoryContextSwitchTo(old);
}

/*
 * qs_colbuilder_build
 *		Encode the rows added since the last reset as block block_id.
 *		Returns the image, palloc'd in the current context.
 */
uint8 *
qs_colbuilder_build(QsColBuilder *b, Relation rel, uint32 block_id,
					size_t *image_len)
{
	const QsCodecAllocator *alloc = qs_palloc_allocator();
	QsColBlockColumn *cols = palloc0(sizeof(QsColBlockColumn) * Max(b->natts, 1));
	QsColBlockSpec spec;
	QsCodecErr	err;
	QsCodecStatus st;
	uint8	   *image;

	if (b->nrows == 0 || b->nrows > QS_COLBLOCK_MAX_ROWS)
		elog(ERROR, "cannot build a column block of %u rows", b->nrows);
	err.msg[0] = '\0';
	for (int c = 0; c < b->natts; c++)
	{
		QsColAttr  *a = &b->attrs[c];
		QsColBuildCol *col = &b->cols[c];
		QsValues	qv;
		const uint8 **ptrs = NULL;
		QsEncoding	enc = QS_ENC_PLAIN;
		unsigned	allowed;
		QsChoice	choice;

		memset(&qv, 0, sizeof(qv));
		qv.n = col->n;
		if (a->type.typlen > 0)
		{
			qv.width = (uint32) a->type.typlen;
			qv.data = col->fixed;
		}
		else
		{
			ptrs = palloc_extended(sizeof(uint8 *) * Max(col->n, 1), MCXT_ALLOC_HUGE);
			for (uint32 i = 0; i < col->n; i++)
				ptrs[i] = col->var + col->offs[i];
			qv.ptrs = ptrs;
			qv.lens = col->lens;
		}
		allowed = QS_ENC_MASK(QS_ENC_PLAIN) | QS_ENC_MASK(QS_ENC_LZ4);
		if (a->is_int)
			allowed |= QS_ENC_MASK(QS_ENC_FOR) | QS_ENC_MASK(QS_ENC_FOR_DELTA);
		if (a->has_order && a->dict_ok)
			allowed |= QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_DICT_PADDED);
		if (col->n > 0)
		{
			st = qs_choose_encoding(&qv, a->is_int, a->cmpfn, a, allowed, alloc,
									&choice, &err);
			if (st != QS_CODEC_OK)
				qs_colblock_report(rel, block_id, st, &err);
			enc = choice.best;
		}
		st = qs_colblock_encode_column(&qv, a->type, enc, a->cmpfn, a, alloc,
									   &cols[c], &err);
		if (st != QS_CODEC_OK)
			qs_colblock_report(rel, block_id, st, &err);
		cols[c].nulls = col->anynull ? col->nulls : NULL;
		cols[c].flags = 0;
		if (ptrs)
			pfree(ptrs);
	}

	memset(&spec, 0, sizeof(spec));
	spec.block_id = block_id;
	spec.nrows = b->nrows;
	spec.ncols = (uint16) b->natts;
	spec.sort_col = -1;
	spec.cols = cols;
	st = qs_colblock_image_size(&spec, image_len, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, block_id, st, &err);
	image = palloc_extended(*image_len, MCXT_ALLOC_HUGE);
	st = qs_colblock_serialize(&spec, image, *image_len, image_len, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, block_id, st, &err);
	for (int c = 0; c < b->natts; c++)
		qs_colblock_column_free(alloc, &cols[c]);
	pfree(cols);
	return image;
}
