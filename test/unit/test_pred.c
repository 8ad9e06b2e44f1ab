/*
 * test_pred.c - predicate evaluation on packed and padded codes against a
 * plain scalar oracle at every width, with unaligned starts, odd lengths
 * and lo/hi at the edges; bitmap helpers.
 */
#include "unit.h"
#include "codec/bitpack.h"
#include "codec/dict.h"

static uint64_t seed = 7;

static void
oracle(const uint32_t *codes, size_t n, uint32_t lo, uint32_t hi, uint64_t *bm)
{
	size_t		i;

	memset(bm, 0, qs_bitmap_words(n) * 8);
	for (i = 0; i < n; i++)
		if (codes[i] >= lo && codes[i] <= hi)
			bm[i / 64] |= UINT64_C(1) << (i % 64);
}

static int
bitmaps_equal(const uint64_t *a, const uint64_t *b, size_t n)
{
	return memcmp(a, b, qs_bitmap_words(n) * 8) == 0;
}

static void
test_pred_all_widths(void)
{
	static const size_t sizes[] = {0, 1, 5, 63, 64, 65, 127, 128, 200, 1000, 3001, 10000};
	int			w;

	for (w = 1; w <= 32; w++)
	{
		uint64_t	maxc = (UINT64_C(1) << w) - 1;
		size_t		s;

		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			size_t		n = sizes[s];
			size_t		total = n + 13;
			uint32_t   *codes = malloc(total * 4 + 4);
			uint8_t    *packed = malloc(qs_bitpack_bytes(total, w) + 8);
			uint8_t    *padded = malloc(total * 4 + 4);
			uint64_t   *exp = malloc(qs_bitmap_words(total) * 8 + 8);
			uint64_t   *got = malloc(qs_bitmap_words(total) * 8 + 8);
			size_t		i;
			int			t;
			size_t		starts[3] = {0, 1, 13};
			int			st;

			for (i = 0; i < total; i++)
			{
				uint64_t	r = ut_rand(&seed);

				/* small alphabets for small sizes make boundaries hit */
				codes[i] = (uint32_t) (i % 5 == 0 ? maxc : (i % 5 == 1 ? 0 : r & maxc));
			}
			qs_bitpack_pack32(codes, total, w, packed);
			qs_padded_pack(codes, total, qs_padded_bytes_for_width(w), padded);

			for (t = 0; t < 12; t++)
			{
				uint32_t	lo,
							hi;

				switch (t)
				{
					case 0:
						lo = 0;
						hi = (uint32_t) maxc;
						break;
					case 1:
						lo = 0;
						hi = 0;
						break;
					case 2:
						lo = (uint32_t) maxc;
						hi = (uint32_t) maxc;
						break;
					case 3:
						lo = 1;
						hi = 0;
						break;
					case 4:
						lo = (uint32_t) (maxc / 2);
						hi = 0xFFFFFFFFu;	/* above max: clamped */
						break;
					default:
						lo = (uint32_t) (ut_rand(&seed) & maxc);
						hi = (uint32_t) (ut_rand(&seed) & maxc);
						if (t % 2 && lo > hi)
						{
							uint32_t	x = lo;

							lo = hi;
							hi = x;
						}
						if (t == 11)
							hi = lo;
						break;
				}
				for (st = 0; st < 3; st++)
				{
					size_t		start = starts[st];

					oracle(codes + start, n, lo, hi, exp);
					qs_pred_range_packed_scalar(packed, w, start, n, lo, hi, got);
					UT_CHECK(bitmaps_equal(exp, got, n));
					memset(got, 0xA5, qs_bitmap_words(n) * 8);
					qs_pred_range_packed_portable(packed, w, start, n, lo, hi, got);
					UT_CHECK(bitmaps_equal(exp, got, n));
					memset(got, 0xA5, qs_bitmap_words(n) * 8);
					qs_pred_range_packed(packed, w, start, n, lo, hi, got);
					UT_CHECK(bitmaps_equal(exp, got, n));
					memset(got, 0xA5, qs_bitmap_words(n) * 8);
					qs_pred_range_packed_avx2(packed, w, start, n, lo, hi, got);
					UT_CHECK(bitmaps_equal(exp, got, n));
					memset(got, 0xA5, qs_bitmap_words(n) * 8);
					qs_pred_range_packed_unpack(packed, w, start, n, lo, hi, got);
					UT_CHECK(bitmaps_equal(exp, got, n));
				}
				oracle(codes, n, lo, hi, exp);
				memset(got, 0xA5, qs_bitmap_words(n) * 8);
				qs_pred_range_padded(padded, qs_padded_bytes_for_width(w), n, lo, hi, got);
				UT_CHECK(bitmaps_equal(exp, got, n));
				memset(got, 0xA5, qs_bitmap_words(n) * 8);
				qs_pred_range_padded_portable(padded, qs_padded_bytes_for_width(w), n, lo, hi, got);
				UT_CHECK(bitmaps_equal(exp, got, n));
			}
			free(codes);
			free(packed);
			free(padded);
			free(exp);
			free(got);
		}
	}
}

static void
test_bitmap_helpers(void)
{
	uint64_t	bm[3] = {0, 0, 0};
	uint32_t	pos[150];
	size_t		c;

	bm[0] = UINT64_C(1) | (UINT64_C(1) << 63);
	bm[1] = UINT64_C(1) << 5;
	bm[2] = UINT64_C(1) << 3;
	UT_CHECK_EQ(qs_bitmap_count(bm, 140), 4);
	c = qs_bitmap_to_positions(bm, 140, 1000, pos);
	UT_CHECK_EQ(c, 4);
	UT_CHECK_EQ(pos[0], 1000);
	UT_CHECK_EQ(pos[1], 1063);
	UT_CHECK_EQ(pos[2], 1069);
	UT_CHECK_EQ(pos[3], 1131);
	qs_bitmap_invert(bm, 140);
	UT_CHECK_EQ(qs_bitmap_count(bm, 140), 136);
	UT_CHECK_EQ(bm[2] >> 12, 0);	/* bits past n stay zero */
	c = qs_bitmap_to_positions(bm, 140, 0, pos);
	UT_CHECK_EQ(c, 136);
	UT_CHECK_EQ(pos[0], 1);
	UT_CHECK_EQ(pos[135], 139);
	UT_CHECK_EQ(qs_bitmap_count(bm, 0), 0);
}

/*
 * End to end: int32 column -> dictionary + packed codes; every operator on
 * values -> qs_dict_range -> qs_pred_apply_range, checked against
 * evaluating the operator on the raw values.
 */
static void
test_value_predicates(void)
{
	QsCodecAllocator al = talloc;
	size_t		n = 5000,
				i;
	int32_t    *vals = malloc(n * 4);
	uint32_t   *codes = malloc(n * 4);
	uint8_t    *blob;
	size_t		bloblen;
	QsValues	qv = {0};
	QsDict		d;
	uint8_t    *packed;
	uint64_t   *got = malloc(qs_bitmap_words(n) * 8),
			   *exp = malloc(qs_bitmap_words(n) * 8);
	int			w,
				k,
				op;

	for (i = 0; i < n; i++)
		vals[i] = (int32_t) (ut_rand(&seed) % 300) - 100;
	qv.n = n;
	qv.width = 4;
	qv.data = (const uint8_t *) vals;
	UT_CHECK_EQ(qs_dict_build(&qv, qs_cmp_int32, NULL, &al, &blob, &bloblen, codes, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_int32, NULL, true, &d, NULL), QS_CODEC_OK);
	w = qs_bits_needed(d.nvalues - 1);
	packed = malloc(qs_bitpack_bytes(n, w));
	qs_bitpack_pack32(codes, n, w, packed);
	for (k = 0; k < 40; k++)
	{
		int32_t		a = (int32_t) (ut_rand(&seed) % 340) - 120,
					b = a + (int32_t) (ut_rand(&seed) % 50);

		if (k == 0)
			a = -100;			/* the smallest value: <> gives a plain range */
		for (op = QS_OP_EQ; op <= QS_OP_BETWEEN; op++)
		{
			QsCodeRange r = qs_dict_range(&d, (QsCmpOp) op, &a, 4, &b, 4);

			memset(exp, 0, qs_bitmap_words(n) * 8);
			for (i = 0; i < n; i++)
			{
				int32_t		x = vals[i];
				int			m = op == QS_OP_EQ ? x == a : op == QS_OP_NE ? x != a :
				op == QS_OP_LT ? x < a : op == QS_OP_LE ? x <= a : op == QS_OP_GT ? x > a :
				op == QS_OP_GE ? x >= a : (x >= a && x <= b);

				if (m)
					exp[i / 64] |= UINT64_C(1) << (i % 64);
			}
			memset(got, 0x5A, qs_bitmap_words(n) * 8);
			qs_pred_apply_range(packed, w, 0, n, &r, got);
			UT_CHECK(bitmaps_equal(exp, got, n));
		}
	}
	free(vals);
	free(codes);
	free(blob);
	free(packed);
	free(got);
	free(exp);
}

int
main(void)
{
	printf("# bmi2 path %s, avx2 path %s\n", qs_pred_have_bmi2() ? "available" : "not available",
		   qs_pred_have_avx2() ? "available" : "not available");
	UT_RUN(test_pred_all_widths);
	UT_RUN(test_bitmap_helpers);
	UT_RUN(test_value_predicates);
	return ut_finish("test_pred");
}
