/*-------------------------------------------------------------------------
 *
 * dict.c
 *	  Sorted order-preserving dictionaries: build, serialize, validate,
 *	  look up, and turn value predicates into code ranges.
 *
 * src/codec/dict.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/dict.h"
#include "codec/distinct.h"

size_t
qs_dict_serialized_size(uint32_t nvalues, uint32_t width, size_t data_bytes)
{
	if (width > 0)
		return QS_DICT_HDRSZ + (size_t) nvalues * width;
	return QS_DICT_HDRSZ + ((size_t) nvalues + 1) * 4 + data_bytes;
}

static void
write_header(uint8_t *out, uint32_t nvalues, uint32_t width)
{
	qs_store32(out, QS_DICT_MAGIC);
	qs_store16(out + 4, QS_DICT_VERSION);
	qs_store16(out + 6, width == 0 ? QS_DICT_FLAG_VAR : 0);
	qs_store32(out + 8, nvalues);
	qs_store32(out + 12, width);
}

void
qs_dict_writer_init(QsDictWriter *w, uint8_t *out, uint32_t width,
					uint32_t max_values)
{
	w->out = out;
	w->width = width;
	w->max_values = max_values;
	w->nvalues = 0;
	w->data_used = 0;
	if (width > 0)
		w->data = out + QS_DICT_HDRSZ;
	else
	{
		w->data = out + QS_DICT_HDRSZ + ((size_t) max_values + 1) * 4;
		qs_store32(out + QS_DICT_HDRSZ, 0);
	}
}

void
qs_dict_writer_add(QsDictWriter *w, const uint8_t *val, size_t len)
{
	if (len > 0)
		memcpy(w->data + w->data_used, val, len);
	w->data_used += len;
	w->nvalues++;
	if (w->width == 0)
		qs_store32(w->out + QS_DICT_HDRSZ + (size_t) w->nvalues * 4,
				   (uint32_t) w->data_used);
}

size_t
qs_dict_writer_finish(QsDictWriter *w)
{
	write_header(w->out, w->nvalues, w->width);
	if (w->width == 0 && w->nvalues < w->max_values)
	{
		/* close the gap left by the unused offset slots */
		uint8_t    *dst = w->out + QS_DICT_HDRSZ + ((size_t) w->nvalues + 1) * 4;

		memmove(dst, w->data, w->data_used);
		w->data = dst;
	}
	return qs_dict_serialized_size(w->nvalues, w->width, w->data_used);
}

/*
 * The dedup loop of dict_build_fixed for the codec's integer orders, where
 * equal means the same bytes: a word compare instead of a comparator call
 * per value, and word moves (records of 8 or 12 bytes).
 */
static inline __attribute__((always_inline)) size_t
dedup_int_records_w(uint8_t *sorted, size_t n, const size_t w, uint32_t *codes)
{
	const size_t rs = w + 4;
	size_t		nuniq = 0;

	for (size_t i = 0; i < n; i++)
	{
		const uint8_t *r = sorted + i * rs;
		uint32_t	pos = qs_load32(r + w);
		uint64_t	v = w == 4 ? qs_load32(r) : qs_load64(r);

		if (nuniq == 0 ||
			(w == 4 ? qs_load32(sorted + (nuniq - 1) * rs) :
			 qs_load64(sorted + (nuniq - 1) * rs)) != v)
		{
			if (w == 4)
				qs_store32(sorted + nuniq * rs, (uint32_t) v);
			else
				qs_store64(sorted + nuniq * rs, v);
			nuniq++;
		}
		if (codes)
			codes[pos] = (uint32_t) (nuniq - 1);
	}
	return nuniq;
}

static size_t
dedup_int_records(uint8_t *sorted, size_t n, size_t w, uint32_t *codes)
{
	return w == 4 ? dedup_int_records_w(sorted, n, 4, codes) :
		dedup_int_records_w(sorted, n, 8, codes);
}

/*
 * Fixed-width values up to 60 bytes: sort (value, input position) records
 * and compact the distinct values to the front of the sorted array in the
 * same pass that assigns codes (slot k <= i is only written after record i
 * has been read, and slot k - 1, the previous distinct value, stays put).
 */
static QsCodecStatus
dict_build_fixed(const QsValues *vals, QsCmpFn cmp, void *cmp_arg,
				 const QsCodecAllocator *alloc, uint8_t **blob, size_t *bloblen,
				 uint32_t *codes, QsCodecErr *err)
{
	size_t		n = vals->n;
	size_t		w = vals->width;
	size_t		rs = (w + 4 + 3) & ~(size_t) 3;
	uint8_t    *recs,
			   *tmp,
			   *sorted,
			   *out;
	size_t		i,
				nuniq = 0;

	if (n > SIZE_MAX / 2 / rs)
		return qs_codec_error(err, QS_CODEC_INVALID, "too many values for a dictionary");
	recs = alloc->alloc(alloc->ctx, n * rs);
	tmp = alloc->alloc(alloc->ctx, n * rs);
	if (recs == NULL || tmp == NULL)
	{
		if (recs)
			alloc->free(alloc->ctx, recs);
		if (tmp)
			alloc->free(alloc->ctx, tmp);
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory sorting %zu values", n);
	}
	/* constant widths move as single words */
	if (w == 4)
		for (i = 0; i < n; i++)
		{
			qs_store32(recs + i * 8, qs_load32(vals->data + i * 4));
			qs_store32(recs + i * 8 + 4, (uint32_t) i);
		}
	else if (w == 8)
		for (i = 0; i < n; i++)
		{
			qs_store64(recs + i * 12, qs_load64(vals->data + i * 8));
			qs_store32(recs + i * 12 + 8, (uint32_t) i);
		}
	else
		for (i = 0; i < n; i++)
		{
			memcpy(recs + i * rs, vals->data + i * w, w);
			qs_store32(recs + i * rs + w, (uint32_t) i);
		}
	sorted = qs_sort_records(recs, tmp, n, rs, w, cmp, cmp_arg);
	if (qs_cmp_int_order(cmp, w, NULL))
		nuniq = dedup_int_records(sorted, n, w, codes);
	else
		for (i = 0; i < n; i++)
		{
			const uint8_t *r = sorted + i * rs;
			uint32_t	pos = qs_load32(r + w);

			if (nuniq == 0 || cmp(sorted + (nuniq - 1) * rs, w, r, w, cmp_arg) != 0)
			{
				if (nuniq != i)
					memcpy(sorted + nuniq * rs, r, w);
				nuniq++;
			}
			if (codes)
				codes[pos] = (uint32_t) (nuniq - 1);
		}
	out = alloc->alloc(alloc->ctx, qs_dict_serialized_size((uint32_t) nuniq, (uint32_t) w, 0));
	if (out == NULL)
	{
		alloc->free(alloc->ctx, recs);
		alloc->free(alloc->ctx, tmp);
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for dictionary");
	}
	write_header(out, (uint32_t) nuniq, (uint32_t) w);
	if (w == 4)
		for (i = 0; i < nuniq; i++)
			qs_store32(out + QS_DICT_HDRSZ + i * 4, qs_load32(sorted + i * 8));
	else if (w == 8)
		for (i = 0; i < nuniq; i++)
			qs_store64(out + QS_DICT_HDRSZ + i * 8, qs_load64(sorted + i * 12));
	else
		for (i = 0; i < nuniq; i++)
			memcpy(out + QS_DICT_HDRSZ + i * w, sorted + i * rs, w);
	*blob = out;
	*bloblen = qs_dict_serialized_size((uint32_t) nuniq, (uint32_t) w, 0);
	alloc->free(alloc->ctx, recs);
	alloc->free(alloc->ctx, tmp);
	return QS_CODEC_OK;
}

QsCodecStatus
qs_dict_build(const QsValues *vals, QsCmpFn cmp, void *cmp_arg,
			  const QsCodecAllocator *alloc, uint8_t **blob, size_t *bloblen,
			  uint32_t *codes, QsCodecErr *err)
{
	size_t		n = vals->n;
	uint32_t   *idx,
			   *tmp;
	size_t		i,
				nuniq = 0,
				data_bytes = 0,
				size;
	uint8_t    *out;
	QsDictWriter w;

	if (n > UINT32_MAX - 1)
		return qs_codec_error(err, QS_CODEC_INVALID, "too many values for a dictionary");
	if (vals->width > 0 && vals->width <= 60 && n > 0)
		return dict_build_fixed(vals, cmp, cmp_arg, alloc, blob, bloblen, codes, err);
	idx = alloc->alloc(alloc->ctx, (n ? n : 1) * sizeof(uint32_t));
	tmp = alloc->alloc(alloc->ctx, (n ? n : 1) * sizeof(uint32_t));
	if (idx == NULL || tmp == NULL)
	{
		if (idx)
			alloc->free(alloc->ctx, idx);
		if (tmp)
			alloc->free(alloc->ctx, tmp);
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory sorting %zu values", n);
	}
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t) i;
	qs_sort_indexes(idx, tmp, n, vals, cmp, cmp_arg);

	/*
	 * Deduplicate: tmp[k] becomes the input index of the k-th distinct
	 * value, and codes[] get the rank of their value.
	 */
	for (i = 0; i < n; i++)
	{
		const uint8_t *p;
		size_t		len;

		qs_values_get(vals, idx[i], &p, &len);
		if (i > 0)
		{
			const uint8_t *q;
			size_t		qlen;

			qs_values_get(vals, tmp[nuniq - 1], &q, &qlen);
			if (cmp(q, qlen, p, len, cmp_arg) == 0)
			{
				if (codes)
					codes[idx[i]] = (uint32_t) (nuniq - 1);
				continue;
			}
		}
		tmp[nuniq] = idx[i];
		if (codes)
			codes[idx[i]] = (uint32_t) nuniq;
		nuniq++;
		data_bytes += len;
	}
	if (vals->width == 0 && data_bytes > UINT32_MAX)
	{
		alloc->free(alloc->ctx, idx);
		alloc->free(alloc->ctx, tmp);
		return qs_codec_error(err, QS_CODEC_INVALID, "dictionary data exceeds 4 GB");
	}
	size = qs_dict_serialized_size((uint32_t) nuniq, vals->width, data_bytes);
	out = alloc->alloc(alloc->ctx, size);
	if (out == NULL)
	{
		alloc->free(alloc->ctx, idx);
		alloc->free(alloc->ctx, tmp);
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for dictionary");
	}
	qs_dict_writer_init(&w, out, vals->width, (uint32_t) nuniq);
	for (i = 0; i < nuniq; i++)
	{
		const uint8_t *p;
		size_t		len;

		qs_values_get(vals, tmp[i], &p, &len);
		qs_dict_writer_add(&w, p, len);
	}
	*bloblen = qs_dict_writer_finish(&w);
	*blob = out;
	alloc->free(alloc->ctx, idx);
	alloc->free(alloc->ctx, tmp);
	return QS_CODEC_OK;
}

/*
 * Equal values byte-identical: the distinct values first, by hashing
 * (codec/distinct.h), then the dictionary of just those; a value's code is
 * its distinct value's.  The sort sees ndistinct values instead of n: a
 * column of a few distinct strings under a collation's comparator (one
 * strcoll per comparison) no longer sorts all of a block's values.
 */
QsCodecStatus
qs_dict_build_image(const QsValues *vals, QsCmpFn cmp, void *cmp_arg,
					const QsCodecAllocator *alloc, uint8_t **blob, size_t *bloblen,
					uint32_t *codes, QsCodecErr *err)
{
	size_t		n = vals->n;
	uint32_t   *first,
			   *group,
			   *dcodes = NULL;
	const uint8_t **ptrs = NULL;
	uint32_t   *lens = NULL;
	uint8_t    *fixed = NULL;
	QsValues	dv;
	QsDistinct	d;
	QsCodecStatus st;

	if (n == 0 || n > (size_t) INT32_MAX)
		return qs_dict_build(vals, cmp, cmp_arg, alloc, blob, bloblen, codes, err);
	first = alloc->alloc(alloc->ctx, n * sizeof(uint32_t));
	group = codes ? codes : alloc->alloc(alloc->ctx, n * sizeof(uint32_t));
	if (first == NULL || group == NULL)
	{
		st = qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for %zu values", n);
		goto done;
	}
	/*
	 * An input whose first sixteenth repeats (almost) nothing is sorted
	 * whole instead: grouping would save the sort little and cost a hash
	 * probe per value.  Where the sort is a radix sort (the codec's integer
	 * orders) that is already so at about half distinct.
	 */
	st = qs_distinct_groups_ex(vals,
							   QS_DISTINCT_GROW |
							   (qs_cmp_int_order(cmp, vals->width, NULL) ?
								QS_DISTINCT_GIVE_UP_DENSE : QS_DISTINCT_GIVE_UP_UNIQUE),
							   alloc, first, group, &d, err);
	if (st != QS_CODEC_OK)
		goto done;
	if (!d.complete)
	{
		st = qs_dict_build(vals, cmp, cmp_arg, alloc, blob, bloblen, codes, err);
		goto done;
	}

	/* the distinct values, in order of first occurrence */
	memset(&dv, 0, sizeof(dv));
	dv.n = d.ndistinct;
	dv.width = vals->width;
	if (vals->width > 0)
	{
		fixed = alloc->alloc(alloc->ctx, (size_t) d.ndistinct * vals->width);
		if (fixed == NULL)
		{
			st = qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for %u values", d.ndistinct);
			goto done;
		}
		for (uint32_t k = 0; k < d.ndistinct; k++)
			memcpy(fixed + (size_t) k * vals->width,
				   vals->data + (size_t) first[k] * vals->width, vals->width);
		dv.data = fixed;
	}
	else
	{
		ptrs = alloc->alloc(alloc->ctx, (size_t) d.ndistinct * sizeof(uint8_t *));
		lens = alloc->alloc(alloc->ctx, (size_t) d.ndistinct * sizeof(uint32_t));
		if (ptrs == NULL || lens == NULL)
		{
			st = qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for %u values", d.ndistinct);
			goto done;
		}
		for (uint32_t k = 0; k < d.ndistinct; k++)
		{
			ptrs[k] = vals->ptrs[first[k]];
			lens[k] = vals->lens[first[k]];
		}
		dv.ptrs = ptrs;
		dv.lens = lens;
	}
	if (codes)
	{
		dcodes = alloc->alloc(alloc->ctx, (size_t) d.ndistinct * sizeof(uint32_t));
		if (dcodes == NULL)
		{
			st = qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for %u codes", d.ndistinct);
			goto done;
		}
	}
	st = qs_dict_build(&dv, cmp, cmp_arg, alloc, blob, bloblen, dcodes, err);
	if (st == QS_CODEC_OK && codes)
		for (size_t i = 0; i < n; i++)
			codes[i] = dcodes[group[i]];

done:
	if (first)
		alloc->free(alloc->ctx, first);
	if (group && group != codes)
		alloc->free(alloc->ctx, group);
	if (fixed)
		alloc->free(alloc->ctx, fixed);
	if (ptrs)
		alloc->free(alloc->ctx, (void *) ptrs);
	if (lens)
		alloc->free(alloc->ctx, lens);
	if (dcodes)
		alloc->free(alloc->ctx, dcodes);
	return st;
}

QsCodecStatus
qs_dict_open(const uint8_t *buf, size_t len, QsCmpFn cmp, void *cmp_arg,
			 bool check_order, QsDict *dict, QsCodecErr *err)
{
	uint16_t	flags;
	uint32_t	nvalues,
				width;
	size_t		body = len - QS_DICT_HDRSZ;

	if (len < QS_DICT_HDRSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "dictionary shorter than header");
	if (qs_load32(buf) != QS_DICT_MAGIC)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad dictionary magic");
	if (qs_load16(buf + 4) != QS_DICT_VERSION)
		return qs_codec_error(err, QS_CODEC_BAD_VERSION, "dictionary version %u", qs_load16(buf + 4));
	flags = qs_load16(buf + 6);
	nvalues = qs_load32(buf + 8);
	width = qs_load32(buf + 12);
	if ((flags & ~QS_DICT_FLAG_VAR) != 0 ||
		((flags & QS_DICT_FLAG_VAR) != 0) != (width == 0))
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad dictionary flags %04x", flags);

	dict->nvalues = nvalues;
	dict->width = width;
	dict->cmp = cmp;
	dict->cmp_arg = cmp_arg;
	if (width > 0)
	{
		if ((uint64_t) nvalues * width != body)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "dictionary length mismatch");
		dict->data = buf + QS_DICT_HDRSZ;
		dict->offsets = NULL;
	}
	else
	{
		uint64_t	offbytes = ((uint64_t) nvalues + 1) * 4;
		uint32_t	prev = 0;
		uint32_t	i;

		if (offbytes > body)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "dictionary offsets truncated");
		dict->offsets = buf + QS_DICT_HDRSZ;
		dict->data = dict->offsets + offbytes;
		if (qs_load32(dict->offsets) != 0)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "first dictionary offset not zero");
		for (i = 1; i <= nvalues; i++)
		{
			uint32_t	o = qs_load32(dict->offsets + 4 * (size_t) i);

			if (o < prev)
				return qs_codec_error(err, QS_CODEC_CORRUPT, "dictionary offsets decrease at %u", i);
			prev = o;
		}
		if ((uint64_t) prev != body - offbytes)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "dictionary data length mismatch");
	}
	if (check_order && nvalues > 1)
	{
		uint32_t	i;

		for (i = 1; i < nvalues; i++)
		{
			const uint8_t *a,
					   *b;
			size_t		al,
						bl;

			qs_dict_value(dict, i - 1, &a, &al);
			qs_dict_value(dict, i, &b, &bl);
			if (cmp(a, al, b, bl, cmp_arg) >= 0)
				return qs_codec_error(err, QS_CODEC_CORRUPT, "dictionary not strictly ascending at %u", i);
		}
	}
	return QS_CODEC_OK;
}

static inline int
cmp_code(const QsDict *d, uint32_t code, const void *val, size_t len)
{
	const uint8_t *p;
	size_t		plen;

	qs_dict_value(d, code, &p, &plen);
	return d->cmp(p, plen, val, len, d->cmp_arg);
}

uint32_t
qs_dict_lower_bound(const QsDict *d, const void *val, size_t len)
{
	uint32_t	lo = 0,
				hi = d->nvalues;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (cmp_code(d, mid, val, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t
qs_dict_upper_bound(const QsDict *d, const void *val, size_t len)
{
	uint32_t	lo = 0,
				hi = d->nvalues;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (cmp_code(d, mid, val, len) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
qs_dict_lookup(const QsDict *d, const void *val, size_t len, uint32_t *code)
{
	uint32_t	c = qs_dict_lower_bound(d, val, len);

	if (c < d->nvalues && cmp_code(d, c, val, len) == 0)
	{
		*code = c;
		return true;
	}
	return false;
}

/* Normalize the half-open code interval [lo, hi_excl) into a range result. */
static QsCodeRange
make_range(const QsDict *d, uint32_t lo, uint32_t hi_excl)
{
	QsCodeRange r;

	if (lo >= hi_excl)
	{
		r.kind = QS_RANGE_NONE;
		r.lo = 1;
		r.hi = 0;
	}
	else if (lo == 0 && hi_excl == d->nvalues)
	{
		r.kind = QS_RANGE_ALL;
		r.lo = 0;
		r.hi = d->nvalues - 1;
	}
	else
	{
		r.kind = QS_RANGE_IN;
		r.lo = lo;
		r.hi = hi_excl - 1;
	}
	return r;
}

QsCodeRange
qs_dict_range(const QsDict *d, QsCmpOp op, const void *val, size_t len,
			  const void *val2, size_t len2)
{
	uint32_t	n = d->nvalues;
	uint32_t	c;

	switch (op)
	{
		case QS_OP_EQ:
			c = qs_dict_lower_bound(d, val, len);
			if (c < n && cmp_code(d, c, val, len) == 0)
				return make_range(d, c, c + 1);
			return make_range(d, 0, 0);
		case QS_OP_NE:
			c = qs_dict_lower_bound(d, val, len);
			if (c < n && cmp_code(d, c, val, len) == 0)
			{
				QsCodeRange r;

				/* complement of one code; at either end it is a plain range */
				if (c == 0)
					return make_range(d, 1, n);
				if (c == n - 1)
					return make_range(d, 0, n - 1);
				r.kind = QS_RANGE_NOT_IN;
				r.lo = r.hi = c;
				return r;
			}
			return make_range(d, 0, n);
		case QS_OP_LT:
			return make_range(d, 0, qs_dict_lower_bound(d, val, len));
		case QS_OP_LE:
			return make_range(d, 0, qs_dict_upper_bound(d, val, len));
		case QS_OP_GT:
			return make_range(d, qs_dict_upper_bound(d, val, len), n);
		case QS_OP_GE:
			return make_range(d, qs_dict_lower_bound(d, val, len), n);
		case QS_OP_BETWEEN:
			return make_range(d, qs_dict_lower_bound(d, val, len),
							  qs_dict_upper_bound(d, val2, len2));
	}
	return make_range(d, 0, 0);
}
