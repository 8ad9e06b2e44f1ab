/*
 * test_colblock_csb.c - CSB+-tree index sub-blocks (src/column/colblock_csb.c):
 * build/open/check round trips for sizes around every level boundary
 * (0, 1, 16, 17, 256, 257, 4097, 70000 entries), with and without NULLs;
 * every code range's entries checked against a brute-force oracle; every
 * single-byte change of a built index either fails open/check with
 * QS_CODEC_CORRUPT or leaves searches inside the index (never a crash);
 * codes over the whole u32 range (radix sort); index sub-blocks over FOR
 * integers (kind 4) in whole images, against an oracle, byte changes
 * caught by qs_colblock_verify.
 */
#include "unit.h"
#include "column/colblock_csb.h"

static uint64_t seed = 99;

static uint32_t
rnd(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t) (seed >> 33);
}

/* an index over nrows rows, every nullevery-th row NULL (0: none) */
static uint8_t *
make(uint32_t nrows, uint32_t ncodes, uint32_t nullevery, uint64_t **present,
	 uint32_t **codes, uint32_t *nvalues, size_t *len)
{
	uint64_t   *pr = calloc(qs_bitmap_words(nrows) + 1, 8);
	uint32_t   *c = malloc(sizeof(uint32_t) * (nrows + 1));
	uint32_t	n = 0;

	for (uint32_t r = 0; r < nrows; r++)
	{
		if (nullevery && r % nullevery == 0)
			continue;
		pr[r / 64] |= UINT64_C(1) << (r % 64);
		c[n++] = rnd() % ncodes;
	}
	*present = nullevery ? pr : NULL;
	if (!nullevery)
		free(pr);
	*codes = c;
	*nvalues = n;
	return qs_csbix_build(c, n, *present, nrows, &talloc, len);
}

static void
test_roundtrip(void)
{
	static const uint32_t sizes[] = {0, 1, 16, 17, 256, 257, 4097, 70000};

	for (int si = 0; si < (int) (sizeof(sizes) / sizeof(sizes[0])); si++)
		for (int nulls = 0; nulls < 2; nulls++)
		{
			uint32_t	nrows = sizes[si];
			uint32_t	ncodes = 1 + rnd() % 300;
			uint64_t   *present;
			uint32_t   *codes;
			uint32_t	nv;
			size_t		len;
			uint8_t    *sec = make(nrows, ncodes, nulls ? 3 : 0, &present, &codes, &nv, &len);
			QsCsbIndex	ix;
			QsCodecErr	err;
			uint32_t   *scratch = malloc(sizeof(uint32_t) * (nrows + 1));

			UT_CHECK(sec != NULL);
			UT_CHECK_EQ(len, qs_csbix_size(nv));
			UT_CHECK_EQ(qs_csbix_open(qs_csbix_read_memory, sec, len, nrows, &talloc, &ix, &err),
						QS_CODEC_OK);
			UT_CHECK_EQ(qs_csbix_check(&ix, (const uint8_t *) present, nrows, codes, nv,
									   scratch, &err), QS_CODEC_OK);
			for (int q = 0; q < 40; q++)
			{
				uint32_t	lo = rnd() % (ncodes + 2);
				uint32_t	hi = lo + rnd() % 20;
				uint32_t	first,
							end,
							want = 0;

				UT_CHECK_EQ(qs_csbix_range(&ix, lo, hi, &first, &end, &err), QS_CODEC_OK);
				for (uint32_t v = 0; v < nv; v++)
					want += codes[v] >= lo && codes[v] <= hi;
				UT_CHECK_EQ(end - first, want);
				for (uint32_t i = first; i < end; i++)
				{
					uint32_t	c = 0;

					UT_CHECK_EQ(qs_csbix_code(&ix, i, &c, &err), QS_CODEC_OK);
					UT_CHECK(c >= lo && c <= hi);
				}
			}
			/* a code the column does not have at that position */
			if (nv > 0)
			{
				codes[nv / 2] ^= 1;
				UT_CHECK_EQ(qs_csbix_check(&ix, (const uint8_t *) present, nrows, codes, nv,
										   scratch, &err), QS_CODEC_CORRUPT);
			}
			qs_csbix_close(&ix);
			free(scratch);
			free(present);
			free(codes);
			talloc.free(NULL, sec);
		}
}

/* every byte of a small index flipped: an error, or searches stay inside */
static void
test_mutations(void)
{
	uint64_t   *present;
	uint32_t   *codes;
	uint32_t	nv;
	size_t		len;
	uint32_t	nrows = 600;
	uint8_t    *sec = make(nrows, 50, 7, &present, &codes, &nv, &len);
	uint8_t    *mut = malloc(len);
	uint32_t   *scratch = malloc(sizeof(uint32_t) * nrows);
	int			caught = 0;

	for (size_t b = 0; b < len; b++)
	{
		QsCsbIndex	ix;
		QsCodecErr	err;
		uint32_t	first,
					end;

		memcpy(mut, sec, len);
		mut[b] ^= (uint8_t) (1 + rnd() % 255);
		if (qs_csbix_open(qs_csbix_read_memory, mut, len, nrows, &talloc, &ix, &err) != QS_CODEC_OK ||
			qs_csbix_check(&ix, (const uint8_t *) present, nrows, codes, nv, scratch,
						   &err) != QS_CODEC_OK)
			caught++;
		qs_csbix_close(&ix);
		/* searching an opened but damaged index stays inside it */
		if (qs_csbix_open(qs_csbix_read_memory, mut, len, nrows, &talloc, &ix, &err) == QS_CODEC_OK &&
			qs_csbix_range(&ix, 3, 9, &first, &end, &err) == QS_CODEC_OK)
			UT_CHECK(first <= end && end <= ix.nentries);
		qs_csbix_close(&ix);
	}
	/* every byte is accounted for: no change goes unnoticed */
	UT_CHECK_EQ(caught, (int) len);
	free(mut);
	free(scratch);
	free(present);
	free(codes);
	talloc.free(NULL, sec);
}

/*
 * Codes spread over the whole u32 range but the padding key (the integers
 * of a FOR column): the radix sort's entries against an oracle; the
 * padding key itself is refused.
 */
static void
test_wide_codes(void)
{
	uint32_t	nrows = 5000;
	uint64_t   *present = calloc(qs_bitmap_words(nrows) + 1, 8);
	uint32_t   *codes = malloc(sizeof(uint32_t) * nrows);
	uint32_t   *scratch = malloc(sizeof(uint32_t) * nrows);
	uint32_t	nv = 0;
	size_t		len;
	uint8_t    *sec;
	QsCsbIndex	ix;
	QsCodecErr	err;

	for (uint32_t r = 0; r < nrows; r++)
	{
		if (r % 9 == 4)
			continue;
		present[r / 64] |= UINT64_C(1) << (r % 64);
		/* duplicates, both ends, and high digits that differ */
		codes[nv++] = r % 5 == 0 ? 0xFFFFFFFEu : r % 7 == 0 ? 0 :
			r % 3 == 0 ? (rnd() % 40) * 0x01000193u : rnd() * 2 + (rnd() & 1);
	}
	sec = qs_csbix_build(codes, nv, present, nrows, &talloc, &len);
	UT_CHECK(sec != NULL);
	UT_CHECK_EQ(qs_csbix_open(qs_csbix_read_memory, sec, len, nrows, &talloc, &ix, &err),
				QS_CODEC_OK);
	UT_CHECK_EQ(qs_csbix_check(&ix, (const uint8_t *) present, nrows, codes, nv, scratch, &err),
				QS_CODEC_OK);
	for (int q = 0; q < 200; q++)
	{
		uint32_t	lo = q == 0 ? 0xFFFFFFFEu : q == 1 ? 0 : rnd() * 2;
		uint32_t	hi = q < 2 ? lo : lo + (q % 3 == 0 ? 0 : rnd() % 100000000u);
		uint32_t	first,
					end,
					want = 0;

		if (hi < lo || hi == 0xFFFFFFFFu)
			hi = 0xFFFFFFFEu;
		UT_CHECK_EQ(qs_csbix_range(&ix, lo, hi, &first, &end, &err), QS_CODEC_OK);
		for (uint32_t v = 0; v < nv; v++)
			want += codes[v] >= lo && codes[v] <= hi;
		UT_CHECK_EQ(end - first, want);
		for (uint32_t i = first; i < end; i++)
		{
			uint32_t	c = 0,
						p = 0;

			UT_CHECK_EQ(qs_csbix_code(&ix, i, &c, &err), QS_CODEC_OK);
			UT_CHECK_EQ(qs_csbix_position(&ix, i, &p, &err), QS_CODEC_OK);
			UT_CHECK(c >= lo && c <= hi);
			UT_CHECK(p < nrows && ((present[p / 64] >> (p % 64)) & 1));
		}
	}
	qs_csbix_close(&ix);
	talloc.free(NULL, sec);
	codes[nv / 3] = 0xFFFFFFFFu;
	UT_CHECK(qs_csbix_build(codes, nv, present, nrows, &talloc, &len) == NULL);
	free(present);
	free(codes);
	free(scratch);
}

/* an int32 (int64) FOR column of nrows rows, every 6th NULL, values v(r) */
static void
for_column(QsColBlockColumn *col, uint64_t *nulls, uint32_t nrows, bool wide,
		   int64_t base, int64_t spread, int64_t *vals, uint32_t *nv)
{
	int32_t    *i32 = malloc(sizeof(int32_t) * (nrows + 1));
	int64_t    *i64 = malloc(sizeof(int64_t) * (nrows + 1));
	QsValues	qv;
	uint32_t	n = 0;

	memset(nulls, 0, 8 * qs_bitmap_words(nrows));
	for (uint32_t r = 0; r < nrows; r++)
	{
		if (r % 6 == 1)
			continue;
		nulls[r / 64] |= UINT64_C(1) << (r % 64);
		vals[n] = base + (int64_t) ((uint64_t) rnd() * 977 % (uint64_t) spread);
		if (r == 2)
			vals[n] = base;		/* both ends present */
		if (r == 3)
			vals[n] = base + spread - 1;
		i32[n] = (int32_t) vals[n];
		i64[n] = vals[n];
		n++;
	}
	memset(&qv, 0, sizeof(qv));
	qv.n = n;
	qv.width = wide ? 8 : 4;
	qv.data = wide ? (const uint8_t *) i64 : (const uint8_t *) i32;
	UT_CHECK_EQ(qs_colblock_encode_column(&qv, (QsColType) {wide ? 8 : 4, true, wide ? 'd' : 'i'},
										  QS_ENC_FOR, wide ? qs_cmp_int64 : qs_cmp_int32, NULL,
										  &talloc, col, NULL), QS_CODEC_OK);
	col->nulls = nulls;
	*nv = n;
	free(i32);
	free(i64);
}

/*
 * Index sub-blocks over FOR integers (kind 4) in whole images: built for
 * int32 and int64 FOR columns whose values are less than 2^32 - 1 apart
 * (not for wider ones), each range of values found by the tree exactly as
 * by a scan of the values, the image verified, and every byte of the index
 * section changed caught by the checker.
 */
static void
test_for_index(void)
{
	static const struct
	{
		bool		wide;
		int64_t		base;
		int64_t		spread;
	}			cases[] = {
		{false, -1000, 300},
		{false, INT32_MIN, 4000000000LL},
		{true, -5000000000LL, 1000},
		{true, INT64_MAX - 70000, 70000},
		{true, 7, 0xFFFFFFFFLL},	/* max - min = 2^32 - 2: the widest */
	};
	uint32_t	nrows = 3000;

	for (int ci = 0; ci < (int) (sizeof(cases) / sizeof(cases[0])); ci++)
	{
		uint64_t   *nulls = calloc(qs_bitmap_words(nrows) + 1, 8);
		int64_t    *vals = malloc(sizeof(int64_t) * nrows);
		QsColBlockColumn col;
		QsColBlockIndex ix;
		QsColBlockSpec spec;
		QsColBlock	blk;
		QsCsbIndex	cix;
		QsCodecErr	err;
		uint32_t	nv;
		size_t		len;
		uint8_t    *img;
		uint16_t	column,
					kind;
		QsColBlockSection s;

		for_column(&col, nulls, nrows, cases[ci].wide, cases[ci].base, cases[ci].spread, vals, &nv);
		UT_CHECK_EQ(qs_csbix_column_kind(&col), QS_COLINDEX_CSBINTS);
		ix.column = 0;
		ix.kind = QS_COLINDEX_CSBINTS;
		ix.data = qs_csbix_build_column(&col, nrows, &talloc, &ix.len);
		UT_CHECK(ix.data != NULL);
		memset(&spec, 0, sizeof(spec));
		spec.block_id = 9;
		spec.nrows = nrows;
		spec.ncols = 1;
		spec.sort_col = -1;
		spec.cols = &col;
		spec.nindexes = 1;
		spec.indexes = &ix;
		UT_CHECK_EQ(qs_colblock_image_size(&spec, &len, &err), QS_CODEC_OK);
		img = malloc(len);
		UT_CHECK_EQ(qs_colblock_serialize(&spec, img, len, &len, &err), QS_CODEC_OK);
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, &err), QS_CODEC_OK);

		/* value ranges as the scan translates them: v - min */
		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, &err), QS_CODEC_OK);
		qs_colblock_index(&blk, 0, &column, &kind, &s);
		UT_CHECK_EQ(kind, QS_COLINDEX_CSBINTS);
		UT_CHECK_EQ(qs_csbix_open(qs_csbix_read_memory, img + s.off, s.len, nrows, &talloc,
								  &cix, &err), QS_CODEC_OK);
		for (int q = 0; q < 60; q++)
		{
			int64_t		lo = cases[ci].base + (int64_t) ((uint64_t) rnd() * 131 % (uint64_t) cases[ci].spread);
			int64_t		hi = q % 4 == 0 ? lo : lo + (int64_t) (rnd() % 1000);
			uint32_t	first,
						end,
						want = 0;

			if (hi < lo || hi > cases[ci].base + cases[ci].spread - 1)
				hi = cases[ci].base + cases[ci].spread - 1;
			UT_CHECK_EQ(qs_csbix_range(&cix, (uint32_t) ((uint64_t) lo - (uint64_t) cases[ci].base),
									   (uint32_t) ((uint64_t) hi - (uint64_t) cases[ci].base),
									   &first, &end, &err), QS_CODEC_OK);
			for (uint32_t v = 0; v < nv; v++)
				want += vals[v] >= lo && vals[v] <= hi;
			UT_CHECK_EQ(end - first, want);
			for (uint32_t e = first; e < end; e++)
			{
				uint32_t	p = 0,
							vi = 0;

				UT_CHECK_EQ(qs_csbix_position(&cix, e, &p, &err), QS_CODEC_OK);
				/* the value index of position p: its rank among non-NULLs */
				for (uint32_t r = 0; r < p; r++)
					vi += (nulls[r / 64] >> (r % 64)) & 1;
				UT_CHECK((nulls[p / 64] >> (p % 64)) & 1);
				UT_CHECK(vals[vi] >= lo && vals[vi] <= hi);
			}
		}
		qs_csbix_close(&cix);

		/* every byte of the index section (bar its sampled tail) changed */
		for (uint64_t b = s.off; b < s.off + s.len; b += (s.len > 4096 && b > s.off + 2048) ? 97 : 1)
		{
			uint8_t		old = img[b];

			img[b] ^= (uint8_t) (1 + rnd() % 255);
			UT_CHECK(qs_colblock_verify(img, len, NULL, NULL, &talloc, &err) != QS_CODEC_OK);
			img[b] = old;
		}
		free(img);
		talloc.free(NULL, (void *) ix.data);
		qs_colblock_column_free(&talloc, &col);
		free(nulls);
		free(vals);
	}

	/* values 2^32 - 1 apart: no index over integers */
	{
		uint64_t   *nulls = calloc(qs_bitmap_words(nrows) + 1, 8);
		int64_t    *vals = malloc(sizeof(int64_t) * nrows);
		QsColBlockColumn col;
		uint32_t	nv;
		size_t		len;

		for_column(&col, nulls, nrows, true, 0, 0x100000000LL, vals, &nv);
		UT_CHECK_EQ(qs_csbix_column_kind(&col), 0);
		UT_CHECK(qs_csbix_build_column(&col, nrows, &talloc, &len) == NULL);
		qs_colblock_column_free(&talloc, &col);
		free(nulls);
		free(vals);
	}
}

int
main(void)
{
	UT_RUN(test_roundtrip);
	UT_RUN(test_mutations);
	UT_RUN(test_wide_codes);
	UT_RUN(test_for_index);
	return ut_finish("test_colblock_csb");
}
