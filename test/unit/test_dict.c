/*
 * test_dict.c - order-preserving dictionaries: build/open round trips for
 * fixed and variable width values (empty, one value, all equal, 0-byte and
 * 1 MB strings), lookups, and every operator's code range checked against
 * a brute-force oracle over the dictionary's values.
 */
#include "unit.h"
#include "codec/dict.h"

static uint64_t seed = 1234;

/* Does code c satisfy op against the dictionary's own values? */
static int
oracle_match(const QsDict *d, uint32_t c, QsCmpOp op, const void *v, size_t vl,
			 const void *v2, size_t v2l)
{
	const uint8_t *p;
	size_t		pl;
	int			r,
				r2;

	qs_dict_value(d, c, &p, &pl);
	r = d->cmp(p, pl, v, vl, d->cmp_arg);
	switch (op)
	{
		case QS_OP_EQ:
			return r == 0;
		case QS_OP_NE:
			return r != 0;
		case QS_OP_LT:
			return r < 0;
		case QS_OP_LE:
			return r <= 0;
		case QS_OP_GT:
			return r > 0;
		case QS_OP_GE:
			return r >= 0;
		case QS_OP_BETWEEN:
			r2 = d->cmp(p, pl, v2, v2l, d->cmp_arg);
			return r >= 0 && r2 <= 0;
	}
	return 0;
}

static int
range_match(QsCodeRange r, uint32_t c)
{
	switch (r.kind)
	{
		case QS_RANGE_NONE:
			return 0;
		case QS_RANGE_ALL:
			return 1;
		case QS_RANGE_IN:
			return c >= r.lo && c <= r.hi;
		case QS_RANGE_NOT_IN:
			return c < r.lo || c > r.hi;
	}
	return -1;
}

/* Check one predicate on all codes, plus the NONE/ALL proofs are exact. */
static void
check_op(const QsDict *d, QsCmpOp op, const void *v, size_t vl, const void *v2, size_t v2l)
{
	QsCodeRange r = qs_dict_range(d, op, v, vl, v2, v2l);
	uint32_t	c,
				nmatch = 0;

	for (c = 0; c < d->nvalues; c++)
	{
		int			m = oracle_match(d, c, op, v, vl, v2, v2l);

		nmatch += m;
		UT_CHECK_EQ(range_match(r, c), m);
	}
	if (nmatch == 0)
		UT_CHECK_EQ(r.kind, QS_RANGE_NONE);
	else if (nmatch == d->nvalues)
		UT_CHECK_EQ(r.kind, QS_RANGE_ALL);
	else
		UT_CHECK(r.kind == QS_RANGE_IN || r.kind == QS_RANGE_NOT_IN);
}

static void
check_all_ops(const QsDict *d, const void *v, size_t vl, const void *v2, size_t v2l)
{
	int			op;

	for (op = QS_OP_EQ; op <= QS_OP_BETWEEN; op++)
		check_op(d, (QsCmpOp) op, v, vl, v2, v2l);
}

static void
int32_case(size_t n, uint32_t modulus)
{
	int32_t    *vals = malloc((n + 1) * 4);
	uint32_t   *codes = malloc((n + 1) * 4);
	QsValues	qv = {0};
	uint8_t    *blob;
	size_t		bloblen,
				i;
	QsDict		d;
	QsCodecErr	err;
	int			k;

	for (i = 0; i < n; i++)
		vals[i] = (int32_t) (ut_rand(&seed) % modulus) - (int32_t) (modulus / 2);
	qv.n = n;
	qv.width = 4;
	qv.data = (const uint8_t *) vals;
	UT_CHECK_EQ(qs_dict_build(&qv, qs_cmp_int32, NULL, &talloc, &blob, &bloblen, codes, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_int32, NULL, true, &d, &err), QS_CODEC_OK);
	for (i = 0; i < n; i++)
	{
		const uint8_t *p;
		size_t		l;
		uint32_t	c;

		UT_CHECK(codes[i] < d.nvalues);
		qs_dict_value(&d, codes[i], &p, &l);
		UT_CHECK_EQ(l, 4);
		UT_CHECK(memcmp(p, &vals[i], 4) == 0);
		UT_CHECK(qs_dict_lookup(&d, &vals[i], 4, &c));
		UT_CHECK_EQ(c, codes[i]);
	}
	/* order preserved: code order equals value order */
	for (i = 1; i < n; i++)
		UT_CHECK((vals[i - 1] < vals[i]) == (codes[i - 1] < codes[i]));
	for (k = 0; k < 20; k++)
	{
		int32_t		a = (int32_t) (ut_rand(&seed) % (modulus + 4)) - (int32_t) (modulus / 2) - 2;
		int32_t		b = a + (int32_t) (ut_rand(&seed) % 7) - 2;

		if (n > 0 && k % 3 == 0)
			a = vals[ut_rand(&seed) % n];
		check_all_ops(&d, &a, 4, &b, 4);
	}
	{
		int32_t		mn = INT32_MIN,
					mx = INT32_MAX;

		check_all_ops(&d, &mn, 4, &mx, 4);
		check_all_ops(&d, &mx, 4, &mn, 4);
	}
	free(blob);
	free(vals);
	free(codes);
}

static void
test_fixed_width(void)
{
	int32_case(0, 10);
	int32_case(1, 10);
	int32_case(1000, 1);		/* all equal */
	int32_case(1000, 2);
	int32_case(5000, 100);
	int32_case(5000, 1000000);
	int32_case(20000, 4000000000u);
}

static void
test_var_width(void)
{
	size_t		n = 3000,
				i;
	uint8_t   **ptrs = malloc(n * sizeof(uint8_t *));
	uint32_t   *lens = malloc(n * 4);
	uint32_t   *codes = malloc(n * 4);
	uint8_t    *pool = malloc(n * 8);
	QsValues	qv = {0};
	uint8_t    *blob;
	size_t		bloblen;
	QsDict		d;
	QsCodecErr	err;
	int			k;

	for (i = 0; i < n; i++)
	{
		int			j;

		lens[i] = (uint32_t) (ut_rand(&seed) % 6);	/* includes 0-byte strings */
		ptrs[i] = pool + 8 * i;
		for (j = 0; j < 8; j++)
			ptrs[i][j] = (uint8_t) ('a' + ut_rand(&seed) % 3);
	}
	qv.n = n;
	qv.width = 0;
	qv.ptrs = (const uint8_t *const *) ptrs;
	qv.lens = lens;
	UT_CHECK_EQ(qs_dict_build(&qv, qs_cmp_bytes, NULL, &talloc, &blob, &bloblen, codes, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_bytes, NULL, true, &d, &err), QS_CODEC_OK);
	UT_CHECK(d.nvalues > 100 && d.nvalues < n);
	for (i = 0; i < n; i++)
	{
		const uint8_t *p;
		size_t		l;
		uint32_t	c;

		qs_dict_value(&d, codes[i], &p, &l);
		UT_CHECK_EQ(l, lens[i]);
		UT_CHECK(l == 0 || memcmp(p, ptrs[i], l) == 0);
		UT_CHECK(qs_dict_lookup(&d, ptrs[i], lens[i], &c) && c == codes[i]);
	}
	{
		const uint8_t *p;
		size_t		l;

		qs_dict_value(&d, 0, &p, &l);
		UT_CHECK_EQ(l, 0);		/* the empty string sorts first */
	}
	for (k = 0; k < 30; k++)
	{
		uint8_t		a[4],
					b[4];
		size_t		al = ut_rand(&seed) % 5,
					bl = ut_rand(&seed) % 5,
					j;

		for (j = 0; j < 4; j++)
		{
			a[j] = (uint8_t) ('a' + ut_rand(&seed) % 4);
			b[j] = (uint8_t) ('a' + ut_rand(&seed) % 4);
		}
		check_all_ops(&d, a, al, b, bl);
	}
	check_all_ops(&d, "", 0, "zzz", 3);
	free(blob);
	free(ptrs);
	free(lens);
	free(codes);
	free(pool);
}

/* Odd fixed widths: record sort with generic record sizes, and > 60 bytes. */
static void
test_odd_widths(void)
{
	static const uint32_t widths[] = {1, 3, 7, 13, 24, 60, 61, 100};
	size_t		wi;

	for (wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++)
	{
		uint32_t	w = widths[wi];
		size_t		n = 3000,
					i;
		uint8_t    *data = malloc(n * w);
		uint32_t   *codes = malloc(n * 4);
		QsValues	qv = {0};
		uint8_t    *blob;
		size_t		bloblen;
		QsDict		d;

		for (i = 0; i < n * w; i++)
			data[i] = (uint8_t) (ut_rand(&seed) % 2);
		/* make many duplicates: copy earlier values */
		for (i = 1; i < n; i += 3)
			memcpy(data + i * w, data + (ut_rand(&seed) % i) * w, w);
		qv.n = n;
		qv.width = w;
		qv.data = data;
		UT_CHECK_EQ(qs_dict_build(&qv, qs_cmp_bytes, NULL, &talloc, &blob, &bloblen, codes, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_bytes, NULL, true, &d, NULL), QS_CODEC_OK);
		for (i = 0; i < n; i++)
		{
			const uint8_t *p;
			size_t		l;

			qs_dict_value(&d, codes[i], &p, &l);
			UT_CHECK(l == w && memcmp(p, data + i * w, w) == 0);
			if (i > 0)
			{
				int			c = qs_cmp_bytes(data + (i - 1) * w, w, data + i * w, w, NULL);

				UT_CHECK((c < 0) == (codes[i - 1] < codes[i]));
				UT_CHECK((c == 0) == (codes[i - 1] == codes[i]));
			}
		}
		free(blob);
		free(data);
		free(codes);
	}
}

static void
test_big_value(void)
{
	size_t		big = 1 << 20;
	uint8_t    *v = malloc(big);
	const uint8_t *ptrs[3];
	uint32_t	lens[3];
	uint32_t	codes[3];
	QsValues	qv = {0};
	uint8_t    *blob;
	size_t		bloblen;
	QsDict		d;
	const uint8_t *p;
	size_t		l;

	memset(v, 'x', big);
	ptrs[0] = v;
	lens[0] = (uint32_t) big;
	ptrs[1] = NULL;
	lens[1] = 0;
	ptrs[2] = v;
	lens[2] = (uint32_t) big;
	qv.n = 3;
	qv.ptrs = ptrs;
	qv.lens = lens;
	UT_CHECK_EQ(qs_dict_build(&qv, qs_cmp_bytes, NULL, &talloc, &blob, &bloblen, codes, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_bytes, NULL, true, &d, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(d.nvalues, 2);
	UT_CHECK_EQ(codes[0], 1);
	UT_CHECK_EQ(codes[1], 0);
	UT_CHECK_EQ(codes[2], 1);
	qs_dict_value(&d, 1, &p, &l);
	UT_CHECK_EQ(l, big);
	UT_CHECK(memcmp(p, v, big) == 0);
	free(blob);
	free(v);
}

static void
test_validation(void)
{
	int32_t		vals[50];
	QsValues	qv = {0};
	uint8_t    *blob;
	size_t		bloblen,
				i;
	QsDict		d;
	QsCodecErr	err;
	const uint8_t *ptrs[3] = {(const uint8_t *) "ab", (const uint8_t *) "c", (const uint8_t *) "de"};
	uint32_t	lens[3] = {2, 1, 2};

	for (i = 0; i < 50; i++)
		vals[i] = (int32_t) i * 3;
	qv.n = 50;
	qv.width = 4;
	qv.data = (const uint8_t *) vals;
	UT_CHECK_EQ(qs_dict_build(&qv, qs_cmp_int32, NULL, &talloc, &blob, &bloblen, NULL, &err), QS_CODEC_OK);
	UT_CHECK_EQ(bloblen, QS_DICT_HDRSZ + 200);
	for (i = 0; i < bloblen; i++)
		UT_CHECK(qs_dict_open(blob, i, qs_cmp_int32, NULL, true, &d, &err) != QS_CODEC_OK);
	/* unsorted: caught only with check_order */
	qs_store32(blob + QS_DICT_HDRSZ + 40, 0x7fffffff);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_int32, NULL, false, &d, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_int32, NULL, true, &d, &err), QS_CODEC_CORRUPT);
	blob[6] = 1;				/* var flag with nonzero width */
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_int32, NULL, false, &d, &err), QS_CODEC_CORRUPT);
	blob[6] = 0;
	blob[4] = 2;
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_int32, NULL, false, &d, &err), QS_CODEC_BAD_VERSION);
	free(blob);

	qv.n = 3;
	qv.width = 0;
	qv.data = NULL;
	qv.ptrs = ptrs;
	qv.lens = lens;
	UT_CHECK_EQ(qs_dict_build(&qv, qs_cmp_bytes, NULL, &talloc, &blob, &bloblen, NULL, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_bytes, NULL, true, &d, &err), QS_CODEC_OK);
	for (i = 0; i < bloblen; i++)
		UT_CHECK(qs_dict_open(blob, i, qs_cmp_bytes, NULL, true, &d, &err) != QS_CODEC_OK);
	/* decreasing offset */
	qs_store32(blob + QS_DICT_HDRSZ + 4, 4);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_bytes, NULL, false, &d, &err), QS_CODEC_CORRUPT);
	qs_store32(blob + QS_DICT_HDRSZ + 4, 2);
	qs_store32(blob + QS_DICT_HDRSZ, 1);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_bytes, NULL, false, &d, &err), QS_CODEC_CORRUPT);
	qs_store32(blob + QS_DICT_HDRSZ, 0);
	/* huge nvalues must not overflow the size computation */
	qs_store32(blob + 8, 0xffffffffu);
	UT_CHECK_EQ(qs_dict_open(blob, bloblen, qs_cmp_bytes, NULL, false, &d, &err), QS_CODEC_CORRUPT);
	free(blob);
}

/*
 * qs_sort_records sorts integer keys in the codec's orders by radix
 * passes: the result must be byte for byte the stable merge sort's, for
 * negative values, duplicates, keys sharing bytes and the extremes.
 */
static void
test_radix_sort(void)
{
	uint64_t	seed = 99;
	static const size_t sizes[] = {64, 100, 1000, 70000};

	for (int kind = 0; kind < 4; kind++)
	{
		size_t		w = kind == 0 || kind == 3 ? 4 : 8;
		size_t		rs = (w + 4 + 3) & ~(size_t) 3;
		QsCmpFn		fast = kind == 0 ? qs_cmp_int32 : kind == 1 ? qs_cmp_int64 :
			kind == 2 ? qs_cmp_uint64 : qs_cmp_uint32;
		QsCmpFn		slow = kind == 0 ? ut_cmp_i32_slow : kind == 1 ? ut_cmp_i64_slow :
			kind == 2 ? ut_cmp_u64_slow : ut_cmp_u32_slow;

		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		{
			for (int mode = 0; mode < 3; mode++)
			{
				size_t		n = sizes[si];
				uint8_t    *a = malloc(n * rs),
						   *b = malloc(n * rs),
						   *ta = malloc(n * rs),
						   *tb = malloc(n * rs),
						   *ra,
						   *rb;

				for (size_t i = 0; i < n; i++)
				{
					uint64_t	v = ut_rand(&seed);

					if (mode == 1)
						v %= 17;	/* many duplicates, high bytes shared */
					else if (mode == 2)
						v = (v & 1) ? (uint64_t) INT64_MIN + (v % 3) : UINT64_MAX - (v % 3);
					if (mode == 1 && (i & 1))
						v = (uint64_t) (-(int64_t) v);	/* negatives */
					memcpy(a + i * rs, &v, w);	/* little-endian low bytes */
					memcpy(a + i * rs + w, &i, 4);
				}
				memcpy(b, a, n * rs);
				ra = qs_sort_records(a, ta, n, rs, w, fast, NULL);
				rb = qs_sort_records(b, tb, n, rs, w, slow, NULL);
				UT_CHECK(memcmp(ra, rb, n * rs) == 0);
				for (size_t i = 1; i < n; i++)
					UT_CHECK(fast(ra + (i - 1) * rs, w, ra + i * rs, w, NULL) <= 0);
				free(a);
				free(b);
				free(ta);
				free(tb);
			}
		}
	}
}

/*
 * qs_dict_build_image (duplicates hashed out first, only the distinct
 * values sorted; a mostly distinct input handed to the radix sort) gives
 * the blob and codes of qs_dict_build through the slow comparator (every
 * value sorted by comparator calls): every width, 0-100 % distinct, sizes
 * around the radix (64) and give-up (2 * QS_DISTINCT_DENSE_MIN) limits
 * and the hash table's doublings, signed extremes, n = 0 and 1, all
 * equal.
 */
static void
test_build_image_paths(void)
{
	static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 700, 5000, 8191, 8192, 20000, 70000};
	static const int pcts[] = {0, 1, 5, 30, 50, 70, 100};
	uint64_t	seed = 777;
	size_t		maxn = 70000;
	uint8_t    *buf = malloc(maxn * 32);
	const uint8_t **ptrs = malloc(maxn * sizeof(uint8_t *));
	uint32_t   *lens = malloc(maxn * 4);
	uint32_t   *c1 = malloc(maxn * 4);
	uint32_t   *c2 = malloc(maxn * 4);
	uint32_t   *c3 = malloc(maxn * 4);

	for (size_t o = 0; o < UT_NORDERS; o++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			for (size_t pi = 0; pi < sizeof(pcts) / sizeof(pcts[0]); pi++)
			{
				const UtOrder *ord = &ut_orders[o];
				size_t		n = sizes[si];
				uint64_t	card = pcts[pi] == 0 ? 1 : n * pcts[pi] / 100;
				QsValues	qv;
				uint8_t    *b1,
						   *b2,
						   *b3;
				size_t		l1,
							l2,
							l3;
				int			before = ut_cur_failed;

				/* the big sizes once per order, at 1 % and 100 % */
				if (n == 70000 && pcts[pi] != 1 && pcts[pi] != 100)
					continue;
				ut_pool_column(&seed, n, 0, card ? card : 1, ord->width, buf, ptrs,
							   lens, &qv);
				UT_CHECK_EQ(qs_dict_build(&qv, ord->slow, NULL, &talloc, &b1, &l1, c1, NULL),
							QS_CODEC_OK);
				UT_CHECK_EQ(qs_dict_build_image(&qv, ord->fast, NULL, &talloc, &b2, &l2, c2,
												NULL), QS_CODEC_OK);
				UT_CHECK_EQ(qs_dict_build(&qv, ord->fast, NULL, &talloc, &b3, &l3, c3, NULL),
							QS_CODEC_OK);
				UT_CHECK_EQ(l1, l2);
				UT_CHECK_EQ(l1, l3);
				UT_CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0);
				UT_CHECK(l1 == l3 && memcmp(b1, b3, l1) == 0);
				UT_CHECK(n == 0 || memcmp(c1, c2, n * 4) == 0);
				UT_CHECK(n == 0 || memcmp(c1, c3, n * 4) == 0);
				if (ut_cur_failed > before)
					printf("#   %s n=%zu pct=%d\n", ord->name, n, pcts[pi]);
				free(b1);
				free(b2);
				free(b3);
			}
	free(buf);
	free(ptrs);
	free(lens);
	free(c1);
	free(c2);
	free(c3);
}

int
main(void)
{
	UT_RUN(test_fixed_width);
	UT_RUN(test_var_width);
	UT_RUN(test_odd_widths);
	UT_RUN(test_big_value);
	UT_RUN(test_validation);
	UT_RUN(test_radix_sort);
	UT_RUN(test_build_image_paths);
	return ut_finish("test_dict");
}
