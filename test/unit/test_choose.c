/*
 * test_choose.c - the encoding chooser: the sizes it reports are the exact
 * lengths the encoders produce, and it picks the expected encoding for
 * characteristic columns.
 */
#include "unit.h"
#include "codec/choose.h"
#include "codec/bitpack.h"
#include "codec/dict.h"
#include "codec/for.h"
#include "codec/lz4chunk.h"

static uint64_t seed = 77;

#define ALL_FLAGS (QS_CHOOSE_IMAGE_EQUAL | QS_CHOOSE_PRUNE | QS_CHOOSE_KEEP_LZ4)

/* Encode with every considered encoder and compare with the reported size. */
static void
check_exact(const QsValues *qv, bool is_int, QsCmpFn cmp, const QsChoice *c)
{
	uint8_t    *blob;
	size_t		len;

	if (c->considered[QS_ENC_DICT] || c->considered[QS_ENC_DICT_PADDED])
	{
		uint32_t   *codes = malloc((qv->n + 1) * 4);
		size_t		cap,
					clen;
		uint8_t    *cbuf;

		UT_CHECK_EQ(qs_dict_build(qv, cmp, NULL, &talloc, &blob, &len, codes, NULL), QS_CODEC_OK);
		cap = qs_bitpack_serialized_size(qv->n, c->dict_width);
		cbuf = malloc(cap);
		UT_CHECK_EQ(qs_bitpack_serialize32(codes, qv->n, c->dict_width, cbuf, cap, &clen, NULL), QS_CODEC_OK);
		if (c->considered[QS_ENC_DICT])
			UT_CHECK_EQ(len + clen, c->size[QS_ENC_DICT]);
		if (c->considered[QS_ENC_DICT_PADDED])
			UT_CHECK_EQ(len + qv->n * qs_padded_bytes_for_width(c->dict_width), c->size[QS_ENC_DICT_PADDED]);
		free(cbuf);
		free(codes);
		free(blob);
	}
	if (c->considered[QS_ENC_LZ4])
	{
		UT_CHECK_EQ(qs_lz4chunk_encode(qv, 0, 0, &talloc, &blob, &len, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(len, c->size[QS_ENC_LZ4]);
		/* a stripe handed over is the encoder's */
		if (c->lz4_stripe)
			UT_CHECK(memcmp(c->lz4_stripe, blob, len) == 0);
		free(blob);
	}
	UT_CHECK(c->lz4_stripe == NULL || c->best == QS_ENC_LZ4);
	if (is_int)
	{
		int			k;

		for (k = 0; k < 2; k++)
		{
			QsEncoding	e = k ? QS_ENC_FOR_DELTA : QS_ENC_FOR;
			uint8_t    *buf;

			if (!c->considered[e])
				continue;
			buf = malloc(c->size[e] + 64);

			if (qv->width == 4)
				UT_CHECK_EQ(qs_for_encode32((const int32_t *) qv->data, qv->n, k ? QS_FOR_DELTA : QS_FOR_PLAIN,
											buf, c->size[e] + 64, &len, NULL), QS_CODEC_OK);
			else
				UT_CHECK_EQ(qs_for_encode64((const int64_t *) qv->data, qv->n, k ? QS_FOR_DELTA : QS_FOR_PLAIN,
											buf, c->size[e] + 64, &len, NULL), QS_CODEC_OK);
			UT_CHECK_EQ(len, c->size[e]);
			free(buf);
		}
	}
}

/*
 * The choice with the dictionary counted (and maybe pruned) is the one the
 * chooser makes measuring the dictionary it builds: same best, same sizes
 * for everything considered; a pruned dictionary is really larger than the
 * best allowed candidate, and its size a lower bound of the real one.
 */
static void
check_same_as_built(const QsValues *qv, bool is_int, QsCmpFn cmp, unsigned allowed,
					const QsChoice *c)
{
	QsChoice	full;
	int			e;

	UT_CHECK_EQ(qs_choose_encoding(qv, is_int, cmp, NULL, 0, allowed, &talloc, &full, NULL),
				QS_CODEC_OK);
	UT_CHECK_EQ(c->best, full.best);
	UT_CHECK(full.lz4_stripe == NULL);
	for (e = 0; e < QS_ENC_COUNT; e++)
	{
		bool		isdict = e == QS_ENC_DICT || e == QS_ENC_DICT_PADDED;
		size_t		beat = SIZE_MAX;

		/* the smallest allowed size of the other kinds of encoding */
		for (int f = 0; f < QS_ENC_COUNT; f++)
			if (f != e && !(isdict && (f == QS_ENC_DICT || f == QS_ENC_DICT_PADDED)) &&
				full.considered[f] && (allowed & QS_ENC_MASK(f)) && full.size[f] < beat)
				beat = full.size[f];
		UT_CHECK(!full.pruned[e]);
		UT_CHECK(!(c->considered[e] && c->pruned[e]));
		if (c->considered[e])
		{
			UT_CHECK(full.considered[e]);
			UT_CHECK_EQ(c->size[e], full.size[e]);
		}
		else if (c->pruned[e])
		{
			UT_CHECK(full.considered[e]);
			UT_CHECK(c->size[e] <= full.size[e]);
			UT_CHECK(c->size[e] >= beat);
			UT_CHECK(isdict ? full.size[e] > beat : full.size[e] >= beat);
			if (isdict)
				UT_CHECK(c->ndistinct <= full.ndistinct);
		}
		else
			UT_CHECK(!full.considered[e]);
	}
	if (c->considered[QS_ENC_DICT])
		UT_CHECK_EQ(c->ndistinct, full.ndistinct);
}

static QsEncoding
choose_int(const void *data, size_t n, int width)
{
	QsValues	qv = {0};
	QsChoice	c;

	qv.n = n;
	qv.width = width;
	qv.data = data;
	UT_CHECK_EQ(qs_choose_encoding(&qv, true, width == 4 ? qs_cmp_int32 : qs_cmp_int64, NULL,
								   ALL_FLAGS, QS_ENC_MASK_ALL, &talloc, &c, NULL), QS_CODEC_OK);
	check_exact(&qv, true, width == 4 ? qs_cmp_int32 : qs_cmp_int64, &c);
	check_same_as_built(&qv, true, width == 4 ? qs_cmp_int32 : qs_cmp_int64, QS_ENC_MASK_ALL, &c);
	free(c.lz4_stripe);
	return c.best;
}

static void
test_integers(void)
{
	size_t		n = 20000,
				i;
	int32_t    *a = malloc(n * 4);
	int64_t    *b = malloc(n * 8);

	for (i = 0; i < n; i++)
		a[i] = 1000 + (int32_t) (ut_rand(&seed) % 16);
	UT_CHECK_EQ(choose_int(a, n, 4), QS_ENC_FOR);
	for (i = 0; i < n; i++)
		a[i] = (int32_t) ut_rand(&seed);
	UT_CHECK_EQ(choose_int(a, n, 4), QS_ENC_PLAIN);
	for (i = 0; i < n; i++)
		b[i] = (int64_t) i * 1000 + (int64_t) (ut_rand(&seed) % 4);
	UT_CHECK_EQ(choose_int(b, n, 8), QS_ENC_FOR_DELTA);
	for (i = 0; i < n; i++)
		b[i] = (int64_t) (ut_rand(&seed) % 5) * (INT64_C(1) << 58);
	UT_CHECK_EQ(choose_int(b, n, 8), QS_ENC_DICT);
	UT_CHECK_EQ(choose_int(b, 0, 8), QS_ENC_PLAIN);
	b[0] = 5;
	UT_CHECK_EQ(choose_int(b, 1, 8), QS_ENC_PLAIN);
	free(a);
	free(b);
}

static void
test_strings(void)
{
	size_t		n = 5000,
				i;
	uint8_t   **ptrs = malloc(n * sizeof(uint8_t *));
	uint32_t   *lens = malloc(n * 4);
	uint8_t    *pool = malloc(n * 64);
	QsValues	qv = {0};
	QsChoice	c;
	static const char *cities[] = {"Madison", "Milwaukee", "Green Bay", "Kenosha"};

	for (i = 0; i < n; i++)
	{
		const char *s = cities[ut_rand(&seed) % 4];

		ptrs[i] = (uint8_t *) s;
		lens[i] = (uint32_t) strlen(s);
	}
	qv.n = n;
	qv.ptrs = (const uint8_t *const *) ptrs;
	qv.lens = lens;
	UT_CHECK_EQ(qs_choose_encoding(&qv, false, qs_cmp_bytes, NULL, ALL_FLAGS, QS_ENC_MASK_ALL, &talloc, &c, NULL), QS_CODEC_OK);
	check_exact(&qv, false, qs_cmp_bytes, &c);
	check_same_as_built(&qv, false, qs_cmp_bytes, QS_ENC_MASK_ALL, &c);
	UT_CHECK_EQ(c.best, QS_ENC_DICT);
	UT_CHECK_EQ(c.ndistinct, 4);
	UT_CHECK(!c.considered[QS_ENC_FOR]);

	/* distinct but repetitive strings: only LZ4 helps */
	for (i = 0; i < n; i++)
	{
		ptrs[i] = pool + 64 * i;
		lens[i] = (uint32_t) snprintf((char *) ptrs[i], 64, "customer-%08zu-of-the-month-padding", i * 7919);
	}
	UT_CHECK_EQ(qs_choose_encoding(&qv, false, qs_cmp_bytes, NULL, 0, QS_ENC_MASK_ALL, &talloc, &c, NULL), QS_CODEC_OK);
	check_exact(&qv, false, qs_cmp_bytes, &c);
	UT_CHECK_EQ(c.best, QS_ENC_LZ4);
	UT_CHECK_EQ(c.ndistinct, n);
	/* counted: the dictionary is known to lose long before the last value */
	UT_CHECK_EQ(qs_choose_encoding(&qv, false, qs_cmp_bytes, NULL, ALL_FLAGS, QS_ENC_MASK_ALL, &talloc, &c, NULL), QS_CODEC_OK);
	check_exact(&qv, false, qs_cmp_bytes, &c);
	check_same_as_built(&qv, false, qs_cmp_bytes, QS_ENC_MASK_ALL, &c);
	UT_CHECK_EQ(c.best, QS_ENC_LZ4);
	UT_CHECK(c.pruned[QS_ENC_DICT] && c.pruned[QS_ENC_DICT_PADDED]);
	UT_CHECK(c.ndistinct < n);
	UT_CHECK(c.lz4_stripe != NULL);
	free(c.lz4_stripe);

	/* an encoding left out of the mask is not considered */
	UT_CHECK_EQ(qs_choose_encoding(&qv, false, qs_cmp_bytes, NULL, ALL_FLAGS, QS_ENC_MASK(QS_ENC_DICT), &talloc, &c, NULL), QS_CODEC_OK);
	UT_CHECK(!c.considered[QS_ENC_LZ4]);
	UT_CHECK_EQ(c.best, QS_ENC_PLAIN);
	UT_CHECK(strcmp(qs_encoding_name(QS_ENC_FOR_DELTA), "for_delta") == 0);
	free(ptrs);
	free(lens);
	free(pool);
}

/*
 * Counted and built dictionary sizes agree on columns of every
 * cardinality, value width and mask: integers, wide fixed values (the
 * byte path of the hash) and strings of varying length, including the
 * empty string and long shared prefixes (hash tag collisions are resolved
 * by comparing bytes).
 */
static void
test_counted_matches_built(void)
{
	static const unsigned masks[] = {
		QS_ENC_MASK_ALL,
		QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_LZ4),
		QS_ENC_MASK(QS_ENC_DICT_PADDED) | QS_ENC_MASK(QS_ENC_FOR),
		QS_ENC_MASK(QS_ENC_PLAIN) | QS_ENC_MASK(QS_ENC_DICT),
	};
	static const uint32_t widths[] = {4, 8, 24, 0};
	size_t		maxn = 6000;
	uint8_t    *data = malloc(maxn * 72);
	const uint8_t **ptrs = malloc(maxn * sizeof(uint8_t *));
	uint32_t   *lens = malloc(maxn * 4);
	int			npruned = 0,
				ndict = 0,
				nlz4pruned = 0,
				nlz4kept = 0;

	for (int round = 0; round < 48; round++)
	{
		size_t		n = 1 + ut_rand(&seed) % maxn;
		uint64_t	card = (uint64_t) 1 << (ut_rand(&seed) % 16);
		int			kind = round % 4;
		unsigned	mask = masks[(round / 4) % 4];
		QsValues	qv = {0};
		QsChoice	c;
		bool		is_int = false;
		QsCmpFn		cmp = qs_cmp_bytes;

		ut_random_column(&seed, n, card, widths[kind], data, ptrs, lens, &qv);
		if (kind <= 1)
		{
			is_int = true;
			cmp = kind == 0 ? qs_cmp_int32 : qs_cmp_int64;
		}
		UT_CHECK_EQ(qs_choose_encoding(&qv, is_int, cmp, NULL, ALL_FLAGS, mask, &talloc, &c, NULL),
					QS_CODEC_OK);
		check_exact(&qv, is_int, cmp, &c);
		check_same_as_built(&qv, is_int, cmp, mask, &c);
		nlz4pruned += c.pruned[QS_ENC_LZ4];
		nlz4kept += c.lz4_stripe != NULL;
		free(c.lz4_stripe);
		npruned += c.pruned[QS_ENC_DICT] || c.pruned[QS_ENC_DICT_PADDED];
		ndict += c.best == QS_ENC_DICT || c.best == QS_ENC_DICT_PADDED;
	}
	/* both outcomes were exercised */
	UT_CHECK(npruned > 0);
	UT_CHECK(ndict > 0);
	UT_CHECK(nlz4pruned > 0);
	UT_CHECK(nlz4kept > 0);
	free(data);
	free(ptrs);
	free(lens);
}

/*
 * QS_CHOOSE_SAMPLE: below QS_CHOOSE_SAMPLE_MIN values it changes nothing;
 * above, the sizes it reports for what it measured are the exact ones,
 * what it screened out was never measured, the choice is allowed, and on
 * columns of one character (uniform random, few distinct values, runs) it
 * is the exhaustive chooser's choice.  The FOR analysis handed out
 * encodes the same bytes as the encoder's own.
 */
static void
test_sampled(void)
{
	size_t		n = 3 * QS_CHOOSE_SAMPLE_MIN;
	int32_t    *a = malloc(n * 4);
	int			nscreened = 0;

	for (int kind = 0; kind < 5; kind++)
	{
		QsValues	qv = {0};
		QsChoice	s,
					full;

		for (size_t i = 0; i < n; i++)
			a[i] = kind == 0 ? (int32_t) (ut_rand(&seed) % 100000000) :
				kind == 1 ? (int32_t) (ut_rand(&seed) % 7) * 1000003 :
				kind == 2 ? (int32_t) (i / 5000) * 77777 :
				kind == 3 ? (int32_t) ut_rand(&seed) :
		/* a cycle longer than a sample run: each run all distinct */
				(int32_t) (i % 20000) * 77777;
		qv.n = n;
		qv.width = 4;
		qv.data = (const uint8_t *) a;
		UT_CHECK_EQ(qs_choose_encoding(&qv, true, qs_cmp_int32, NULL,
									   ALL_FLAGS | QS_CHOOSE_SAMPLE, QS_ENC_MASK_ALL,
									   &talloc, &s, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(qs_choose_encoding(&qv, true, qs_cmp_int32, NULL, 0, QS_ENC_MASK_ALL,
									   &talloc, &full, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(s.best, full.best);
		for (int e = 0; e < QS_ENC_COUNT; e++)
		{
			if (s.screened_out & QS_ENC_MASK(e))
				UT_CHECK(!s.considered[e] && !s.pruned[e]);
			if (s.considered[e])
				UT_CHECK_EQ(s.size[e], full.size[e]);
		}
		/* the cheap ones are always measured */
		UT_CHECK(s.considered[QS_ENC_PLAIN] && s.considered[QS_ENC_FOR] &&
				 s.considered[QS_ENC_FOR_DELTA]);
		nscreened += s.screened_out != 0;
		check_exact(&qv, true, qs_cmp_int32, &s);
		UT_CHECK(s.have_for_info);
		for (int k = 0; k < 2; k++)
		{
			QsForKind	fk = k ? QS_FOR_DELTA : QS_FOR_PLAIN;
			size_t		sz = k ? s.for_info.delta_size : s.for_info.for_size;
			uint8_t    *b1 = malloc(sz),
					   *b2 = malloc(sz);
			size_t		l1,
						l2;

			UT_CHECK_EQ(qs_for_encode32(a, n, fk, b1, sz, &l1, NULL), QS_CODEC_OK);
			UT_CHECK_EQ(qs_for_encode_analyzed(a, 4, n, fk, &s.for_info, b2, sz, &l2, NULL),
						QS_CODEC_OK);
			UT_CHECK_EQ(l1, l2);
			UT_CHECK(memcmp(b1, b2, l1) == 0);
			free(b1);
			free(b2);
		}
		free(s.lz4_stripe);

		/* small inputs: exactly the unsampled choice */
		qv.n = QS_CHOOSE_SAMPLE_MIN - 1;
		UT_CHECK_EQ(qs_choose_encoding(&qv, true, qs_cmp_int32, NULL,
									   ALL_FLAGS | QS_CHOOSE_SAMPLE, QS_ENC_MASK_ALL,
									   &talloc, &s, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(s.screened_out, 0u);
		check_same_as_built(&qv, true, qs_cmp_int32, QS_ENC_MASK_ALL, &s);
		free(s.lz4_stripe);
	}
	/* uniform random values: LZ4 and the dictionaries were never measured */
	UT_CHECK(nscreened > 0);
	free(a);
}

int
main(void)
{
	UT_RUN(test_integers);
	UT_RUN(test_strings);
	UT_RUN(test_counted_matches_built);
	UT_RUN(test_sampled);
	return ut_finish("test_choose");
}
