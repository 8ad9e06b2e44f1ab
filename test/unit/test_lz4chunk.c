/*
 * test_lz4chunk.c - chunked LZ4 stripes: round trips (empty, one value,
 * all-empty strings, a 1 MB value, incompressible data, fixed width),
 * random and sequential access, chunk limits, and corruption handling.
 */
#include "unit.h"
#include "codec/lz4chunk.h"

static uint64_t seed = 555;

static void
check_roundtrip(const QsValues *qv, uint32_t cv, uint32_t cb)
{
	uint8_t    *blob;
	size_t		bloblen,
				i;
	QsLz4Reader r;
	QsCodecErr	err;

	UT_CHECK_EQ(qs_lz4chunk_encode(qv, cv, cb, &talloc, &blob, &bloblen, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_lz4chunk_open(blob, bloblen, &r, &err), QS_CODEC_OK);
	UT_CHECK_EQ(r.nvalues, qv->n);
	r.scratch = malloc(r.max_raw + 1);
	/* sequential */
	for (i = 0; i < qv->n; i++)
	{
		const uint8_t *v,
				   *e;
		size_t		l,
					el;

		UT_CHECK_EQ(qs_lz4chunk_get(&r, i, &v, &l, &err), QS_CODEC_OK);
		qs_values_get(qv, i, &e, &el);
		UT_CHECK_EQ(l, el);
		UT_CHECK(l == 0 || memcmp(v, e, l) == 0);
	}
	/* random */
	for (i = 0; qv->n && i < 500; i++)
	{
		size_t		k = ut_rand(&seed) % qv->n;
		const uint8_t *v,
				   *e;
		size_t		l,
					el;

		UT_CHECK_EQ(qs_lz4chunk_get(&r, k, &v, &l, &err), QS_CODEC_OK);
		qs_values_get(qv, k, &e, &el);
		UT_CHECK_EQ(l, el);
		UT_CHECK(l == 0 || memcmp(v, e, l) == 0);
	}
	{
		const uint8_t *v;
		size_t		l;

		UT_CHECK_EQ(qs_lz4chunk_get(&r, qv->n, &v, &l, &err), QS_CODEC_INVALID);
	}
	free(r.scratch);
	free(blob);
}

static void
test_strings(void)
{
	size_t		n = 5000,
				i;
	uint8_t   **ptrs = malloc(n * sizeof(uint8_t *));
	uint32_t   *lens = malloc(n * 4);
	uint8_t    *pool = malloc(n * 100);
	QsValues	qv = {0};
	static const char *words[] = {"alpha", "beta", "gamma", "delta", "epsilon"};

	for (i = 0; i < n; i++)
	{
		size_t		len = 0;

		ptrs[i] = pool + 100 * i;
		while (len < 60 && ut_rand(&seed) % 5)
		{
			const char *w = words[ut_rand(&seed) % 5];

			memcpy(ptrs[i] + len, w, strlen(w));
			len += strlen(w);
		}
		lens[i] = (uint32_t) len;
	}
	qv.n = n;
	qv.ptrs = (const uint8_t *const *) ptrs;
	qv.lens = lens;
	check_roundtrip(&qv, 0, 0);
	check_roundtrip(&qv, 1, 0);
	check_roundtrip(&qv, 4096, 100000);
	check_roundtrip(&qv, 64, 16);
	qv.n = 1;
	check_roundtrip(&qv, 0, 0);
	qv.n = 0;
	check_roundtrip(&qv, 0, 0);
	/* all empty strings */
	for (i = 0; i < n; i++)
		lens[i] = 0;
	qv.n = n;
	check_roundtrip(&qv, 0, 0);
	/* incompressible random bytes: chunks get stored raw */
	for (i = 0; i < n * 100; i++)
		pool[i] = (uint8_t) ut_rand(&seed);
	for (i = 0; i < n; i++)
		lens[i] = (uint32_t) (ut_rand(&seed) % 100);
	check_roundtrip(&qv, 0, 0);
	{
		uint32_t	too_many = QS_LZ4CHUNK_MAX_VALUES + 1;
		uint8_t    *blob;
		size_t		bl;

		UT_CHECK_EQ(qs_lz4chunk_encode(&qv, too_many, 0, &talloc, &blob, &bl, NULL), QS_CODEC_INVALID);
	}
	free(ptrs);
	free(lens);
	free(pool);
}

static void
test_big_and_fixed(void)
{
	size_t		big = 1 << 20,
				i;
	uint8_t    *v = malloc(big);
	const uint8_t *ptrs[4];
	uint32_t	lens[4];
	QsValues	qv = {0};
	int64_t		ints[3000];

	for (i = 0; i < big; i++)
		v[i] = (uint8_t) (i % 251);
	ptrs[0] = (const uint8_t *) "a";
	lens[0] = 1;
	ptrs[1] = v;
	lens[1] = (uint32_t) big;
	ptrs[2] = NULL;
	lens[2] = 0;
	ptrs[3] = v + 5;
	lens[3] = 7;
	qv.n = 4;
	qv.ptrs = ptrs;
	qv.lens = lens;
	check_roundtrip(&qv, 0, 0);

	for (i = 0; i < 3000; i++)
		ints[i] = (int64_t) (i / 10);
	memset(&qv, 0, sizeof(qv));
	qv.n = 3000;
	qv.width = 8;
	qv.data = (const uint8_t *) ints;
	check_roundtrip(&qv, 0, 0);
	free(v);
}

static void
test_corruption(void)
{
	size_t		n = 1000,
				i;
	uint8_t    *pool = malloc(n * 10);
	uint8_t   **ptrs = malloc(n * sizeof(uint8_t *));
	uint32_t   *lens = malloc(n * 4);
	QsValues	qv = {0};
	uint8_t    *blob;
	size_t		bloblen;
	QsLz4Reader r;
	int			trial;
	int			detected = 0;

	for (i = 0; i < n * 10; i++)
		pool[i] = (uint8_t) ('a' + ut_rand(&seed) % 3);
	for (i = 0; i < n; i++)
	{
		ptrs[i] = pool + 10 * i;
		lens[i] = (uint32_t) (ut_rand(&seed) % 11);
	}
	qv.n = n;
	qv.ptrs = (const uint8_t *const *) ptrs;
	qv.lens = lens;
	UT_CHECK_EQ(qs_lz4chunk_encode(&qv, 0, 0, &talloc, &blob, &bloblen, NULL), QS_CODEC_OK);
	for (i = 0; i < bloblen; i += 3)
		UT_CHECK(qs_lz4chunk_open(blob, i, &r, NULL) != QS_CODEC_OK);

	/* random byte flips: open or get must fail cleanly or return sane values */
	for (trial = 0; trial < 2000; trial++)
	{
		uint8_t    *copy = malloc(bloblen);
		size_t		pos = ut_rand(&seed) % bloblen;
		QsCodecStatus st;

		memcpy(copy, blob, bloblen);
		copy[pos] ^= (uint8_t) (1 + ut_rand(&seed) % 255);
		st = qs_lz4chunk_open(copy, bloblen, &r, NULL);
		if (st == QS_CODEC_OK)
		{
			r.scratch = malloc(r.max_raw + 1);
			for (i = 0; i < r.nvalues; i++)
			{
				const uint8_t *v;
				size_t		l;

				st = qs_lz4chunk_get(&r, i, &v, &l, NULL);
				if (st != QS_CODEC_OK)
					break;
				UT_CHECK(v >= r.scratch && v + l <= r.scratch + r.max_raw);
			}
			free(r.scratch);
		}
		if (st != QS_CODEC_OK)
			detected++;
		free(copy);
	}
	printf("# %d of 2000 single-byte corruptions detected (the rest hit value bytes)\n", detected);
	UT_CHECK(detected > 0);
	free(blob);
	free(pool);
	free(ptrs);
	free(lens);
}

int
main(void)
{
	UT_RUN(test_strings);
	UT_RUN(test_big_and_fixed);
	UT_RUN(test_corruption);
	return ut_finish("test_lz4chunk");
}
