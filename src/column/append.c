/*-------------------------------------------------------------------------
 *
 * append.c
 *	  The next version of an open block: its rows at their positions, then
 *	  the rows a merge moves (src/merge/README.md section 5).
 *
 * The merge prefills its block builder with the open block's rows
 * (qs_colappend_begin), collects the moved rows after them, and builds
 * the image with qs_colappend_build.  Per column:
 *
 *  * a column the open block stores as a bit-packed dictionary (DICT) is
 *	  merged with the codec's linear algorithm (paper 004 section 5.3,
 *	  src/codec/merge.c): qs_merge_step1_ex sorts the moved values into a
 *	  dictionary U_D and merges it with the block's U_M into U'_M, giving
 *	  the translation tables X_M and X_D; qs_merge_step2 rewrites the old
 *	  codes through X_M at the new width and appends the moved rows' codes
 *	  through X_D.  The old rows' values are never decoded or compared
 *	  (the prefill leaves them out of the builder); min/max are U'_M's
 *	  ends.
 *	* every other column goes through the chooser over the old values and
 *	  the new (build.c), as a block of that many rows would: the cost is
 *	  bounded by the block, never by the table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "codec/bitpack.h"
#include "codec/merge.h"
#include "column/append.h"
#include "column/colstore.h"
#include "column/options.h"
#include "merge/stubs.h"

static void add_block_rows(QsColBuilder *b, Relation rel, QsColRowReader *rr,
						   uint32 n, const bool *want);

/*
 * qs_colappend_begin
 *		Open version 'e' of an open block and add its rows to the (empty)
 *		builder b: the columns merged by dictionary (ap->dict[c]) as NULLs,
 *		the others decoded.  enc_mask as for qs_colbuilder_build_opts.
 */
void
qs_colappend_begin(QsColAppend *ap, Relation rel, QsColBuilder *b,
				   const QsColDirEntry *e, const unsigned *enc_mask)
{
	TupleDesc	desc = RelationGetDescr(rel);

	Assert(b->nrows == 0);
	ap->entry = *e;
	ap->base = e->published;
	ap->natts = b->natts;
	ap->dict = palloc0(sizeof(bool) * Max(b->natts, 1));
	qs_colrows_open(rel, b->attrs, e, &ap->rr);

	/*
	 * Positions are TID rows below: only an image in TID order takes rows
	 * (a sorted image with a TID map is SEALED, never appended to).
	 */
	if (ap->rr.row_of_pos != NULL)
		elog(ERROR, "column block %u of \"%s\" is sorted and cannot take rows",
			 e->block_id, RelationGetRelationName(rel));
	for (int c = 0; c < b->natts; c++)
	{
		unsigned	allowed = qs_colbuild_allowed(&b->attrs[c]);
		QsColBlockColDesc d;

		if (enc_mask && (enc_mask[c] & allowed) != 0)
			allowed &= enc_mask[c];
		ap->dict[c] = false;
		/*
		 * A dictionary that only canonical images may enter
		 * (dict_typmod) is not extended in place: the moved values are
		 * not checked before the merge, so the chooser builds the column
		 * over old and new values, and checks them (build.c).
		 */
		if (c < ap->rr.h.blk.ncols && !TupleDescAttr(desc, c)->attisdropped &&
			!b->attrs[c].dict_typmod &&
			(allowed & QS_ENC_MASK(QS_ENC_DICT)) != 0)
		{
			qs_colblock_coldesc(&ap->rr.h.blk, c, &d);
			ap->dict[c] = d.encoding == QS_ENC_DICT;
		}
	}
	/* the old rows, in their positions; the dictionary columns below */
	qs_colbuilder_add_block(b, rel, &ap->rr, ap->base, ap->dict);
}

/*
 * qs_colbuilder_add_block
 *		TID rows 0..n-1 of the block rr reads, added to builder b in TID
 *		order, except the columns with skip[c] (skip may be NULL), which
 *		get NULLs: column by column straight from the block's readers (the
 *		codec's value format is the builder's) when the image is in TID
 *		order, row by row otherwise (through its TID map) or when a column
 *		was added after the block was written (its missing value comes
 *		through a row).
 */
void
qs_colbuilder_add_block(QsColBuilder *b, Relation rel, QsColRowReader *rr,
						uint32 n, const bool *skip)
{
	bool	   *want = palloc(sizeof(bool) * Max(b->natts, 1));
	uint32		first = b->nrows;

	for (int c = 0; c < b->natts; c++)
		want[c] = !(skip && skip[c]);
	add_block_rows(b, rel, rr, n, want);

	/*
	 * The rows keep the xmin they showed, and the command id (cmin and
	 * cmax while nobody deletes them): the new block's entry is the
	 * sealer's or the merge's (THE RULE, src/merge/README.md).
	 */
	for (uint32 row = 0; row < n; row++)
	{
		ItemPointerData otid;
		ItemPointerData vtid;

		qs_colbuilder_set_origin(b, first + row, qs_colrows_shown_xmin(rr, row),
								 qs_colrows_shown_cid(rr, row));

		/*
		 * and the delta TID it came from (SERIALIZABLE: dml.c), while its
		 * moved version is still there: once that is gone, no SIREAD lock
		 * on it was left (src/merge/stubs.c) and it never comes back, so
		 * no writer reads the origin again (dml.c qs_ssi_origin); the
		 * block stops paying for it at its next version.
		 */
		if (qs_colrows_otid(rr, row, &otid))
		{
			qs_virt_tid(rr->h.entry.tid_range, row, &vtid);
			if (qs_stub_is_origin(rel, &otid, &vtid))
				qs_colbuilder_set_otid(b, first + row, &otid);
		}
	}
	pfree(want);
}

/* qs_colbuilder_add_block's values */
static void
add_block_rows(QsColBuilder *b, Relation rel, QsColRowReader *rr, uint32 n,
			   const bool *want)
{
	TupleDesc	desc = RelationGetDescr(rel);
	TupleTableSlot *slot;
	MemoryContext rowcxt;

	if (rr->row_of_pos == NULL && rr->h.blk.ncols == b->natts)
	{
		for (int c = 0; c < b->natts; c++)
		{
			if (!want[c] || TupleDescAttr(desc, c)->attisdropped)
			{
				/* NULLs: the caller's, or dropped */
				qs_colbuilder_add_column(b, c, NULL, 0, n, rel, rr->h.entry.block_id);
				continue;
			}
			qs_colbuilder_add_column(b, c, qs_colrows_reader(rr, c), 0,
									 n, rel, rr->h.entry.block_id);
		}
		qs_colbuilder_add_rows(b, n);
		return;
	}
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep block row",
								   ALLOCSET_SMALL_SIZES);
	for (uint32 row = 0; row < n; row++)
	{
		MemoryContext old;

		ExecClearTuple(slot);
		MemoryContextReset(rowcxt);
		old = MemoryContextSwitchTo(rowcxt);
		qs_colrows_get(rr, row, want, slot->tts_values, slot->tts_isnull);
		MemoryContextSwitchTo(old);
		ExecStoreVirtualTuple(slot);
		qs_colbuilder_add(b, slot);
	}
	ExecDropSingleTupleTableSlot(slot);
	MemoryContextDelete(rowcxt);
}

/*
 * Column c by the linear dictionary merge: the old rows' codes and
 * presence bits from the open block, the new rows' values and presence
 * bits from the builder (rows base..nrows-1; its old rows are NULL here).
 */
static void
merge_dict_column(QsColAppend *ap, QsColBuilder *b, Relation rel, int c,
				  QsColBlockColumn *out)
{
	const QsCodecAllocator *alloc = qs_palloc_allocator();
	QsColReader *r = qs_colrows_reader(&ap->rr, c);
	QsColBuildCol *col = &b->cols[c];
	QsColAttr  *a = &b->attrs[c];
	QsValues	delta;
	const uint8 **ptrs = NULL;
	QsMergeStep1 s1;
	QsCodecErr	err;
	QsCodecStatus st;
	size_t		n_main = r->codes.count;
	size_t		total = n_main + col->n;
	size_t		nwords = qs_bitmap_words(b->nrows);
	uint64	   *nulls;
	bool		anynull = false;
	uint8	   *stripe;
	size_t		stripe_len;
	const uint8 *minp,
			   *maxp;
	size_t		minl,
				maxl;

	ptrs = qs_colbuilder_values(b, c, &delta);
	err.msg[0] = '\0';

	/*
	 * Only columns whose equal values are identical get here (dict_ok
	 * without dict_typmod: qs_colappend_begin): the moved values'
	 * duplicates are hashed out before the sort (the same dictionary).
	 */
	st = qs_merge_step1_ex(&r->dict, &delta,
						   a->dict_ok && !a->dict_typmod ? QS_MERGE_IMAGE_EQUAL : 0,
						   alloc, &s1, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, ap->entry.block_id, st, &err);
	stripe_len = qs_bitpack_serialized_size(total, s1.new_width);
	stripe = palloc_extended(stripe_len, MCXT_ALLOC_HUGE);
	qs_bitpack_write_header(total, s1.new_width, stripe);
	st = qs_merge_step2(r->codes.data, r->codes.width, n_main, &s1,
						stripe + QS_BITPACK_HDRSZ, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rel, ap->entry.block_id, st, &err);

	/* presence: the old rows' from the block, the new rows' from the builder */
	nulls = palloc0(sizeof(uint64) * Max(nwords, 1));
	for (uint32 row = 0; row < b->nrows; row++)
	{
		bool		present;

		if (row < ap->base)
			present = r->nulls == NULL ||
				((r->nulls[row / 8] >> (row % 8)) & 1) != 0;
		else
			present = ((col->nulls[row / 64] >> (row % 64)) & 1) != 0;
		if (present)
			nulls[row / 64] |= UINT64CONST(1) << (row % 64);
		else
			anynull = true;
	}

	memset(out, 0, sizeof(*out));
	out->type = a->type;
	out->encoding = QS_ENC_DICT;
	out->nvalues = (uint32) total;
	out->nulls = anynull ? nulls : NULL;
	out->dict = s1.dict_blob;
	out->dict_len = s1.dict_len;
	out->stripe = stripe;
	out->stripe_len = stripe_len;

	/* min/max: the new dictionary's ends (it is sorted in the column's order) */
	qs_dict_value(&s1.new_dict, 0, &minp, &minl);
	qs_dict_value(&s1.new_dict, s1.new_dict.nvalues - 1, &maxp, &maxl);
	if (minl <= QS_COLBLOCK_MAX_MINMAX && maxl <= QS_COLBLOCK_MAX_MINMAX)
	{
		uint8	   *m = palloc(Max(minl + maxl, 1));	/* max shares min's */

		memcpy(m, minp, minl);
		memcpy(m + minl, maxp, maxl);
		out->min = m;
		out->min_len = (uint32) minl;
		out->max = m + minl;
		out->max_len = (uint32) maxl;
	}
	ap->nulls[c] = nulls;

	/* the dictionary blob is the column's now; the rest of step 1 goes */
	s1.dict_blob = NULL;
	qs_merge_step1_free(alloc, &s1);
	if (ptrs)
		pfree(ptrs);
}

/*
 * qs_colappend_build
 *		The image of the next version (block id of the open block): the
 *		builder holds the open block's rows (qs_colappend_begin) and then
 *		the moved ones.
 */
uint8 *
qs_colappend_build(QsColAppend *ap, QsColBuilder *b, Relation rel,
				   const unsigned *enc_mask, size_t *image_len)
{
	QsColBlockColumn *given = palloc0(sizeof(QsColBlockColumn) * Max(b->natts, 1));
	uint8	   *image;

	Assert(b->nrows > ap->base);
	ap->nulls = palloc0(sizeof(uint64 *) * Max(b->natts, 1));
	for (int c = 0; c < b->natts; c++)
		if (ap->dict[c])
			merge_dict_column(ap, b, rel, c, &given[c]);
	image = qs_colbuilder_build_given(b, rel, ap->entry.block_id, -1, enc_mask,
									  image_len, NULL, ap->dict, given);
	for (int c = 0; c < b->natts; c++)
		if (ap->nulls[c])
			pfree(ap->nulls[c]);
	pfree(ap->nulls);
	pfree(given);
	return image;
}

void
qs_colappend_end(QsColAppend *ap)
{
	qs_colrows_close(&ap->rr);
	pfree(ap->dict);
}
