/*-------------------------------------------------------------------------
 *
 * choose.c
 *	  Pick a column block's encoding from the exact encoded sizes.
 *
 * Exact sizes, not estimates: the encoder runs on a block that is being
 * sealed, so the values are at hand, and building the dictionary (a sort)
 * or compressing with LZ4 once more is cheap next to writing the block.
 *
 * src/codec/choose.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/choose.h"
#include "codec/bitpack.h"
#include "codec/dict.h"
#include "codec/distinct.h"
#include "codec/for.h"
#include "codec/lz4chunk.h"

const char *
qs_encoding_name(QsEncoding e)
{
	switch (e)
	{
		case QS_ENC_PLAIN:
			return "plain";
		case QS_ENC_FOR:
			return "for";
		case QS_ENC_FOR_DELTA:
			return "for_delta";
		case QS_ENC_DICT:
			return "dict";
		case QS_ENC_DICT_PADDED:
			return "dict_padded";
		case QS_ENC_LZ4:
			return "lz4";
		case QS_ENC_COUNT:
			break;
	}
	return "unknown";
}

/* The smallest size measured so far among the allowed encodings */
static size_t
smallest_allowed(const QsChoice *choice, unsigned allowed)
{
	size_t		best = SIZE_MAX;

	for (int e = 0; e < QS_ENC_COUNT; e++)
		if (choice->considered[e] && (allowed & QS_ENC_MASK(e)) && choice->size[e] < best)
			best = choice->size[e];
	return best;
}

/* DICT and DICT_PADDED sizes of nd values of data_bytes bytes */
static void
dict_sizes(size_t n, uint32_t width, uint32_t nd, size_t data_bytes,
		   unsigned allowed, QsChoice *choice)
{
	size_t		bloblen = qs_dict_serialized_size(nd, width, data_bytes);
	int			w = qs_bits_needed(nd > 0 ? nd - 1 : 0);

	choice->ndistinct = nd;
	choice->dict_width = w;
	if (w <= 32 && (allowed & QS_ENC_MASK(QS_ENC_DICT)))
	{
		choice->considered[QS_ENC_DICT] = true;
		choice->size[QS_ENC_DICT] = bloblen + qs_bitpack_serialized_size(n, w);
	}
	if (w <= 32 && (allowed & QS_ENC_MASK(QS_ENC_DICT_PADDED)))
	{
		choice->considered[QS_ENC_DICT_PADDED] = true;
		choice->size[QS_ENC_DICT_PADDED] = bloblen + n * qs_padded_bytes_for_width(w);
	}
}

/* Any order: build the dictionary (a sort of every value) and measure it. */
static QsCodecStatus
dict_sizes_built(const QsValues *vals, QsCmpFn cmp, void *cmp_arg,
				 unsigned allowed, QsChoice *choice,
				 const QsCodecAllocator *alloc, QsCodecErr *err)
{
	uint8_t    *blob;
	size_t		bloblen;
	QsCodecStatus st;
	uint32_t	nd;

	st = qs_dict_build(vals, cmp, cmp_arg, alloc, &blob, &bloblen, NULL, err);
	if (st != QS_CODEC_OK)
		return st;
	nd = qs_load32(blob + 8);
	alloc->free(alloc->ctx, blob);
	dict_sizes(vals->n, vals->width, nd, bloblen - qs_dict_serialized_size(nd, vals->width, 0),
			   allowed, choice);
	return QS_CODEC_OK;
}

typedef struct DictBound
{
	size_t		n;
	uint32_t	width;
	unsigned	allowed;
	size_t		beat;			/* the smallest other allowed candidate */
} DictBound;

/*
 * Stop counting once the dictionary encodings allowed are larger than beat
 * whatever the values not yet seen: their sizes only grow with the
 * distinct values and their bytes.  Strictly larger: on a tie the
 * dictionary may still win against an encoding after it in QsEncoding.
 */
static bool
dict_loses(uint32_t nd, size_t data_bytes, void *arg)
{
	DictBound  *b = arg;
	QsChoice	c;

	memset(&c, 0, sizeof(c));
	dict_sizes(b->n, b->width, nd, data_bytes, b->allowed, &c);
	return (!c.considered[QS_ENC_DICT] || c.size[QS_ENC_DICT] > b->beat) &&
		(!c.considered[QS_ENC_DICT_PADDED] || c.size[QS_ENC_DICT_PADDED] > b->beat);
}

/*
 * Equal values byte-identical: a dictionary's size is a count of distinct
 * values and their bytes, no sort needed; the count stops as soon as the
 * dictionary cannot be the smallest of the allowed candidates measured
 * before it (pruned: not considered, size a lower bound).
 */
static QsCodecStatus
dict_sizes_counted(const QsValues *vals, unsigned allowed, bool prune,
				   QsChoice *choice, const QsCodecAllocator *alloc, QsCodecErr *err)
{
	DictBound	b;
	QsDistinct	d;
	QsCodecStatus st;
	int			e;

	b.n = vals->n;
	b.width = vals->width;
	b.allowed = allowed;
	b.beat = smallest_allowed(choice, allowed);
	st = qs_distinct_count(vals, prune ? dict_loses : NULL, &b, alloc, &d, err);
	if (st != QS_CODEC_OK)
		return st;
	if (vals->width == 0 && d.data_bytes > UINT32_MAX)
		return QS_CODEC_OK;		/* no dictionary of over 4 GB: not a candidate */
	dict_sizes(vals->n, vals->width, d.ndistinct, d.data_bytes, allowed, choice);
	if (!d.complete)
	{
		for (e = QS_ENC_DICT; e <= QS_ENC_DICT_PADDED; e++)
		{
			choice->pruned[e] = choice->considered[e];
			choice->considered[e] = false;
		}
	}
	return QS_CODEC_OK;
}

/*
 * A sample of vals: nchunks runs of runlen consecutive values spread evenly
 * over vals, in *sv (its arrays from alloc: free them with sample_free).
 */
static QsCodecStatus
sample_take(const QsValues *vals, size_t nchunks, size_t runlen,
			const QsCodecAllocator *alloc, QsValues *sv, QsCodecErr *err)
{
	size_t		m = nchunks * runlen;
	size_t		stride = vals->n / nchunks;

	memset(sv, 0, sizeof(*sv));
	sv->n = m;
	sv->width = vals->width;
	if (vals->width > 0)
	{
		uint8_t    *data = alloc->alloc(alloc->ctx, m * vals->width);

		if (data == NULL)
			return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory");
		for (size_t k = 0; k < nchunks; k++)
			memcpy(data + k * runlen * vals->width,
				   vals->data + k * stride * vals->width,
				   runlen * vals->width);
		sv->data = data;
	}
	else
	{
		const uint8_t **ptrs = alloc->alloc(alloc->ctx, m * sizeof(*ptrs));
		uint32_t   *lens = alloc->alloc(alloc->ctx, m * sizeof(*lens));

		if (ptrs == NULL || lens == NULL)
		{
			if (ptrs)
				alloc->free(alloc->ctx, ptrs);
			if (lens)
				alloc->free(alloc->ctx, lens);
			return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory");
		}
		for (size_t k = 0; k < nchunks; k++)
		{
			memcpy(ptrs + k * runlen, vals->ptrs + k * stride,
				   runlen * sizeof(*ptrs));
			memcpy(lens + k * runlen, vals->lens + k * stride,
				   runlen * sizeof(*lens));
		}
		sv->ptrs = ptrs;
		sv->lens = lens;
	}
	return QS_CODEC_OK;
}

static void
sample_free(QsValues *sv, const QsCodecAllocator *alloc)
{
	if (sv->data)
		alloc->free(alloc->ctx, (void *) sv->data);
	if (sv->ptrs)
	{
		alloc->free(alloc->ctx, (void *) sv->ptrs);
		alloc->free(alloc->ctx, (void *) sv->lens);
	}
}

/*
 * QS_CHOOSE_SAMPLE: which allowed encodings are worth measuring in full
 * (*keep), from their exact sizes over QS_CHOOSE_SAMPLE_CHUNKS runs of
 * consecutive values spread evenly over vals (runs, not single values, so
 * that LZ4 and FOR_DELTA see neighbours as they will).  The cheap ones
 * (PLAIN, FOR, FOR_DELTA: one pass) are always kept.
 *
 * Dictionaries are also kept when values recur in a scattered sample (as
 * many single values, evenly spaced): a dictionary's size depends on how
 * often values recur over the whole input, which runs can hide — a cycle
 * of 5,000 names in turn makes each run all distinct, and the runs'
 * dictionary as big as the runs, while the input's holds 5,000 values.
 * Their count over all values then decides (it stops early once the
 * dictionary loses: dict_loses).
 */
static QsCodecStatus
screen_on_sample(const QsValues *vals, bool is_int, QsCmpFn cmp, void *cmp_arg,
				 unsigned flags, unsigned allowed,
				 const QsCodecAllocator *alloc, unsigned *keep, QsCodecErr *err)
{
	size_t		m = (size_t) QS_CHOOSE_SAMPLE_CHUNKS * QS_CHOOSE_SAMPLE_RUN;
	QsValues	sv;
	QsChoice	sc;
	QsDistinct	d;
	QsCodecStatus st;
	size_t		best = SIZE_MAX;
	unsigned	dicts = QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_DICT_PADDED);

	st = sample_take(vals, QS_CHOOSE_SAMPLE_CHUNKS, QS_CHOOSE_SAMPLE_RUN,
					 alloc, &sv, err);
	if (st != QS_CODEC_OK)
		return st;
	/* every size exact on the sample: no pruning, no stripe kept */
	st = qs_choose_encoding(&sv, is_int, cmp, cmp_arg,
							flags & QS_CHOOSE_IMAGE_EQUAL, allowed,
							alloc, &sc, err);
	sample_free(&sv, alloc);
	if (st != QS_CODEC_OK)
		return st;
	for (int e = 0; e < QS_ENC_COUNT; e++)
		if (sc.considered[e] && (allowed & QS_ENC_MASK(e)) && sc.size[e] < best)
			best = sc.size[e];
	*keep = QS_ENC_MASK(QS_ENC_PLAIN) | QS_ENC_MASK(QS_ENC_FOR) |
		QS_ENC_MASK(QS_ENC_FOR_DELTA);
	for (int e = 0; e < QS_ENC_COUNT; e++)
		if (sc.considered[e] &&
			(double) sc.size[e] <= (double) best * QS_CHOOSE_SAMPLE_SLACK)
			*keep |= QS_ENC_MASK(e);

	if ((allowed & dicts & ~*keep) == 0)
		return QS_CODEC_OK;
	st = sample_take(vals, m, 1, alloc, &sv, err);
	if (st != QS_CODEC_OK)
		return st;
	st = qs_distinct_count(&sv, NULL, NULL, alloc, &d, err);
	sample_free(&sv, alloc);
	if (st != QS_CODEC_OK)
		return st;
	if ((double) (m - d.ndistinct) >= (double) m * QS_CHOOSE_SAMPLE_RECUR)
		*keep |= dicts;
	return QS_CODEC_OK;
}

QsCodecStatus
qs_choose_encoding(const QsValues *vals, bool is_int, QsCmpFn cmp, void *cmp_arg,
				   unsigned flags, unsigned allowed, const QsCodecAllocator *alloc,
				   QsChoice *choice, QsCodecErr *err)
{
	size_t		n = vals->n;
	int			e;
	uint8_t    *lz4 = NULL;

	memset(choice, 0, sizeof(*choice));
	if (is_int && vals->width != 4 && vals->width != 8)
		return qs_codec_error(err, QS_CODEC_INVALID, "integer columns must be 4 or 8 bytes wide");
	if ((flags & QS_CHOOSE_SAMPLE) && n >= QS_CHOOSE_SAMPLE_MIN)
	{
		unsigned	keep = QS_ENC_MASK_ALL;
		QsCodecStatus st;

		st = screen_on_sample(vals, is_int, cmp, cmp_arg, flags, allowed,
							  alloc, &keep, err);
		if (st != QS_CODEC_OK)
			return st;
		st = qs_choose_encoding(vals, is_int, cmp, cmp_arg,
								flags & ~QS_CHOOSE_SAMPLE, allowed & keep,
								alloc, choice, err);
		choice->screened_out = allowed & ~keep;
		return st;
	}

	choice->considered[QS_ENC_PLAIN] = true;
	if (vals->width > 0)
		choice->size[QS_ENC_PLAIN] = n * vals->width;
	else
	{
		size_t		i,
					bytes = 0;

		for (i = 0; i < n; i++)
			bytes += vals->lens[i];
		choice->size[QS_ENC_PLAIN] = 4 * (n + 1) + bytes;
	}

	if (is_int && (allowed & (QS_ENC_MASK(QS_ENC_FOR) | QS_ENC_MASK(QS_ENC_FOR_DELTA))))
	{
		QsForInfo	info;

		/* FOR reads int32/int64 arrays directly, so they must be aligned */
		if (vals->width == 4 && ((uintptr_t) vals->data % 4) == 0)
			qs_for_analyze32((const int32_t *) vals->data, n, &info);
		else if (vals->width == 8 && ((uintptr_t) vals->data % 8) == 0)
			qs_for_analyze64((const int64_t *) vals->data, n, &info);
		else
			return qs_codec_error(err, QS_CODEC_INVALID, "integer values must be naturally aligned");
		if (allowed & QS_ENC_MASK(QS_ENC_FOR))
		{
			choice->considered[QS_ENC_FOR] = true;
			choice->size[QS_ENC_FOR] = info.for_size;
		}
		if (allowed & QS_ENC_MASK(QS_ENC_FOR_DELTA))
		{
			choice->considered[QS_ENC_FOR_DELTA] = true;
			choice->size[QS_ENC_FOR_DELTA] = info.delta_size;
		}
		choice->for_width = info.for_width;
		choice->delta_width = info.delta_width;
		choice->have_for_info = true;
		choice->for_info = info;
	}

	/*
	 * LZ4 before the dictionary: its size, when smaller, lets a counted
	 * dictionary stop sooner.  It is last in QsEncoding, so it loses ties:
	 * pruned once as long as an allowed candidate measured before it.
	 */
	if (allowed & QS_ENC_MASK(QS_ENC_LZ4))
	{
		size_t		bloblen;
		QsCodecStatus st;

		st = qs_lz4chunk_encode_limit(vals, 0, 0,
									  (flags & QS_CHOOSE_PRUNE) ? smallest_allowed(choice, allowed) : SIZE_MAX,
									  alloc, &lz4, &bloblen, err);
		if (st != QS_CODEC_OK)
			return st;
		choice->size[QS_ENC_LZ4] = bloblen;
		if (lz4 != NULL)
			choice->considered[QS_ENC_LZ4] = true;
		else
			choice->pruned[QS_ENC_LZ4] = true;
	}

	if (allowed & (QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_DICT_PADDED)))
	{
		QsCodecStatus st;

		if (flags & QS_CHOOSE_IMAGE_EQUAL)
			st = dict_sizes_counted(vals, allowed, (flags & QS_CHOOSE_PRUNE) != 0,
									choice, alloc, err);
		else
			st = dict_sizes_built(vals, cmp, cmp_arg, allowed, choice, alloc, err);
		if (st != QS_CODEC_OK)
		{
			if (lz4)
				alloc->free(alloc->ctx, lz4);
			return st;
		}
	}

	choice->best = QS_ENC_PLAIN;
	for (e = 1; e < QS_ENC_COUNT; e++)
		if (choice->considered[e] && choice->size[e] < choice->size[choice->best])
			choice->best = (QsEncoding) e;

	/* the LZ4 stripe is the encoding: the caller need not compress again */
	if (lz4 != NULL && (flags & QS_CHOOSE_KEEP_LZ4) && choice->best == QS_ENC_LZ4)
		choice->lz4_stripe = lz4;
	else if (lz4 != NULL)
		alloc->free(alloc->ctx, lz4);
	return QS_CODEC_OK;
}
