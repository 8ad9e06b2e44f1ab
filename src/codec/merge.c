/*-------------------------------------------------------------------------
 *
 * merge.c
 *	  Linear-time delta merge (paper 004 section 5.3) and the naive
 *	  binary-search merge beside it.
 *
 * Step 2 works on blocks of MERGE_BLOCK output positions.  MERGE_BLOCK is
 * a multiple of 64, so every block starts on a 64-bit word boundary of the
 * output at any width and can be packed independently; a block may mix the
 * tail of the main rows with the head of the delta rows.
 *
 * src/codec/merge.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/merge.h"
#include "codec/bitpack.h"

#define MERGE_BLOCK 1024

static size_t
dict_data_bytes(const QsDict *d)
{
	if (d->width > 0)
		return (size_t) d->nvalues * d->width;
	return qs_load32(d->offsets + 4 * (size_t) d->nvalues);
}

/*
 * Step 1(b) for the codec's integer orders (4- or 8-byte keys; signed ones
 * with the sign bit flipped, so that unsigned comparison gives their
 * order): the comparator inline instead of a call per merged value, and
 * the values stored as words.  At 100 % distinct the comparator calls of
 * the general loop were most of step 1.  Returns the merged count.
 */
static inline __attribute__((always_inline)) uint32_t
merge_int_keys(const QsDict *m, const QsDict *d, const size_t width,
			   const uint64_t flip, uint8_t *out, uint32_t *xm, uint32_t *xd)
{
	uint32_t	nm = m->nvalues,
				nd = d->nvalues,
				i = 0,
				j = 0,
				k = 0;

#define KEY(p) ((width == 4 ? (uint64_t) qs_load32(p) : qs_load64(p)) ^ flip)
#define PUT(p) (width == 4 ? qs_store32(out + (size_t) k * 4, qs_load32(p)) : \
				qs_store64(out + (size_t) k * 8, qs_load64(p)))
	while (i < nm && j < nd)
	{
		const uint8_t *a = m->data + (size_t) i * width;
		const uint8_t *b = d->data + (size_t) j * width;
		uint64_t	ka = KEY(a),
					kb = KEY(b);

		if (ka <= kb)
		{
			PUT(a);
			xm[i++] = k;
			if (ka == kb)
				xd[j++] = k;
		}
		else
		{
			PUT(b);
			xd[j++] = k;
		}
		k++;
	}
	for (; i < nm; i++, k++)
	{
		PUT(m->data + (size_t) i * width);
		xm[i] = k;
	}
	for (; j < nd; j++, k++)
	{
		PUT(d->data + (size_t) j * width);
		xd[j] = k;
	}
#undef KEY
#undef PUT
	return k;
}

/* cmp as one of the codec's integer orders: the sign flip of its keys */
static bool
int_order(QsCmpFn cmp, uint32_t width, uint64_t *flip)
{
	bool		is_signed;

	if (!qs_cmp_int_order(cmp, width, &is_signed))
		return false;
	*flip = is_signed ? UINT64_C(1) << (width * 8 - 1) : 0;
	return true;
}

void
qs_merge_step1_free(const QsCodecAllocator *alloc, QsMergeStep1 *s1)
{
	if (s1->dict_blob)
		alloc->free(alloc->ctx, s1->dict_blob);
	if (s1->xm)
		alloc->free(alloc->ctx, s1->xm);
	if (s1->xd)
		alloc->free(alloc->ctx, s1->xd);
	if (s1->delta_codes)
		alloc->free(alloc->ctx, s1->delta_codes);
	memset(s1, 0, sizeof(*s1));
}

QsCodecStatus
qs_merge_step1(const QsDict *main_dict, const QsValues *delta,
			   const QsCodecAllocator *alloc, QsMergeStep1 *s1, QsCodecErr *err)
{
	return qs_merge_step1_ex(main_dict, delta, 0, alloc, s1, err);
}

QsCodecStatus
qs_merge_step1_ex(const QsDict *main_dict, const QsValues *delta, unsigned flags,
				  const QsCodecAllocator *alloc, QsMergeStep1 *s1, QsCodecErr *err)
{
	uint8_t    *dblob = NULL;
	size_t		dlen;
	QsDict		ud;
	QsDictWriter w;
	QsCodecStatus st;
	uint32_t	i = 0,
				j = 0,
				k = 0;
	size_t		cap;
	uint32_t	nm = main_dict->nvalues;
	uint64_t	flip = 0;

	memset(s1, 0, sizeof(*s1));
	if (delta->width != main_dict->width)
		return qs_codec_error(err, QS_CODEC_INVALID, "delta width %u differs from main width %u",
							  delta->width, main_dict->width);

	/*
	 * Step 1(a): sorted delta dictionary and delta codes.  Paper 004 keeps
	 * its delta sorted at insert time; ours arrives unsorted.  Where equal
	 * means byte-identical the duplicates go first by hashing, so that a
	 * delta of few distinct values costs one hash probe per row instead of
	 * some 18 comparator calls (the same blob and codes either way).
	 */
	s1->n_delta = delta->n;
	s1->delta_codes = alloc->alloc(alloc->ctx, (delta->n ? delta->n : 1) * sizeof(uint32_t));
	if (s1->delta_codes == NULL)
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for delta codes");
	if (flags & QS_MERGE_IMAGE_EQUAL)
		st = qs_dict_build_image(delta, main_dict->cmp, main_dict->cmp_arg, alloc,
								 &dblob, &dlen, s1->delta_codes, err);
	else
		st = qs_dict_build(delta, main_dict->cmp, main_dict->cmp_arg, alloc,
						   &dblob, &dlen, s1->delta_codes, err);
	if (st != QS_CODEC_OK)
	{
		qs_merge_step1_free(alloc, s1);
		return st;
	}
	st = qs_dict_open(dblob, dlen, main_dict->cmp, main_dict->cmp_arg, false, &ud, err);
	if (st != QS_CODEC_OK)
	{
		alloc->free(alloc->ctx, dblob);
		qs_merge_step1_free(alloc, s1);
		return st;
	}

	/* Step 1(b): linear merge of U_M and U_D, filling X_M and X_D */
	s1->nm_unique = nm;
	s1->nd_unique = ud.nvalues;
	if ((uint64_t) nm + ud.nvalues > UINT32_MAX - 1)
	{
		alloc->free(alloc->ctx, dblob);
		qs_merge_step1_free(alloc, s1);
		return qs_codec_error(err, QS_CODEC_INVALID, "merged dictionary too large");
	}
	cap = qs_dict_serialized_size(nm + ud.nvalues, main_dict->width,
								  dict_data_bytes(main_dict) + dict_data_bytes(&ud));
	s1->dict_blob = alloc->alloc(alloc->ctx, cap);
	s1->xm = alloc->alloc(alloc->ctx, (nm ? nm : 1) * sizeof(uint32_t));
	s1->xd = alloc->alloc(alloc->ctx, (ud.nvalues ? ud.nvalues : 1) * sizeof(uint32_t));
	if (s1->dict_blob == NULL || s1->xm == NULL || s1->xd == NULL)
	{
		alloc->free(alloc->ctx, dblob);
		qs_merge_step1_free(alloc, s1);
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for merged dictionary");
	}
	qs_dict_writer_init(&w, s1->dict_blob, main_dict->width, nm + ud.nvalues);
	if (int_order(main_dict->cmp, main_dict->width, &flip))
	{
		/* the same values and tables as the loops below; w's bytes filled */
		if (main_dict->width == 4)
			k = merge_int_keys(main_dict, &ud, 4, flip, w.data, s1->xm, s1->xd);
		else
			k = merge_int_keys(main_dict, &ud, 8, flip, w.data, s1->xm, s1->xd);
		w.nvalues = k;
		w.data_used = (size_t) k * main_dict->width;
		i = nm;
		j = ud.nvalues;
	}
	while (i < nm && j < ud.nvalues)
	{
		const uint8_t *a,
				   *b;
		size_t		al,
					bl;
		int			c;

		qs_dict_value(main_dict, i, &a, &al);
		qs_dict_value(&ud, j, &b, &bl);
		c = main_dict->cmp(a, al, b, bl, main_dict->cmp_arg);
		if (c <= 0)
		{
			qs_dict_writer_add(&w, a, al);
			s1->xm[i++] = k;
			if (c == 0)
				s1->xd[j++] = k;
		}
		else
		{
			qs_dict_writer_add(&w, b, bl);
			s1->xd[j++] = k;
		}
		k++;
	}
	for (; i < nm; i++, k++)
	{
		const uint8_t *a;
		size_t		al;

		qs_dict_value(main_dict, i, &a, &al);
		qs_dict_writer_add(&w, a, al);
		s1->xm[i] = k;
	}
	for (; j < ud.nvalues; j++, k++)
	{
		const uint8_t *b;
		size_t		bl;

		qs_dict_value(&ud, j, &b, &bl);
		qs_dict_writer_add(&w, b, bl);
		s1->xd[j] = k;
	}
	s1->dict_len = qs_dict_writer_finish(&w);
	alloc->free(alloc->ctx, dblob);
	st = qs_dict_open(s1->dict_blob, s1->dict_len, main_dict->cmp, main_dict->cmp_arg,
					  false, &s1->new_dict, err);
	if (st != QS_CODEC_OK)
	{
		qs_merge_step1_free(alloc, s1);
		return st;
	}
	/* Step 2(a): the new code width */
	s1->new_width = qs_bits_needed(k > 0 ? k - 1 : 0);
	return QS_CODEC_OK;
}

QsCodecStatus
qs_merge_step2(const uint8_t *main_codes, int main_width, size_t n_main,
			   const QsMergeStep1 *s1, uint8_t *out, QsCodecErr *err)
{
	uint32_t	buf[MERGE_BLOCK];
	size_t		total = n_main + s1->n_delta;
	size_t		b;
	const uint32_t *xm = s1->xm;
	const uint32_t *xd = s1->xd;
	uint32_t	nm = s1->nm_unique;
	int			w = s1->new_width;

	for (b = 0; b < total; b += MERGE_BLOCK)
	{
		size_t		cnt = total - b < MERGE_BLOCK ? total - b : MERGE_BLOCK;
		size_t		m = 0,
					j;

		if (b < n_main)
		{
			uint32_t	mx = 0;

			m = n_main - b < cnt ? n_main - b : cnt;
			qs_bitpack_unpack32(main_codes, main_width, b, m, buf);
			/* separate max pass: vectorizes, and keeps the gather loop bounded */
			for (j = 0; j < m; j++)
				mx = buf[j] > mx ? buf[j] : mx;
			if (mx >= nm)
				return qs_codec_error(err, QS_CODEC_CORRUPT, "main code %u not below dictionary size %u", mx, nm);
			for (j = 0; j < m; j++)
				buf[j] = xm[buf[j]];
		}
		for (j = m; j < cnt; j++)
			buf[j] = xd[s1->delta_codes[b + j - n_main]];
		qs_bitpack_pack32(buf, cnt, w, out + (b / 64) * (size_t) w * 8);
	}
	return QS_CODEC_OK;
}

QsCodecStatus
qs_merge_step2_naive(const QsDict *main_dict, const uint8_t *main_codes,
					 int main_width, size_t n_main, const QsValues *delta,
					 const QsDict *new_dict, int new_width, uint8_t *out,
					 QsCodecErr *err)
{
	uint32_t	buf[MERGE_BLOCK];
	size_t		total = n_main + delta->n;
	size_t		b;

	for (b = 0; b < total; b += MERGE_BLOCK)
	{
		size_t		cnt = total - b < MERGE_BLOCK ? total - b : MERGE_BLOCK;
		size_t		m = 0,
					j;

		if (b < n_main)
		{
			m = n_main - b < cnt ? n_main - b : cnt;
			qs_bitpack_unpack32(main_codes, main_width, b, m, buf);
			for (j = 0; j < m; j++)
			{
				const uint8_t *v;
				size_t		vl;

				if (buf[j] >= main_dict->nvalues)
					return qs_codec_error(err, QS_CODEC_CORRUPT, "main code %u not below dictionary size %u",
										  buf[j], main_dict->nvalues);
				qs_dict_value(main_dict, buf[j], &v, &vl);
				buf[j] = qs_dict_lower_bound(new_dict, v, vl);
			}
		}
		for (j = m; j < cnt; j++)
		{
			const uint8_t *v;
			size_t		vl;

			qs_values_get(delta, b + j - n_main, &v, &vl);
			buf[j] = qs_dict_lower_bound(new_dict, v, vl);
		}
		qs_bitpack_pack32(buf, cnt, new_width, out + (b / 64) * (size_t) new_width * 8);
	}
	return QS_CODEC_OK;
}
