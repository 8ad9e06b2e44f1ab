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

/* Encode with every considered encoder and compare with the reported size. */
static void
check_exact(const QsValues *qv, bool is_int, QsCmpFn cmp, const QsChoice *c)
{
	uint8_t    *blob;
	size_t		len;

	if (c->considered[QS_ENC_DICT])
	{
		uint32_t   *codes = malloc((qv->n + 1) * 4);
		size_t		cap,
					clen;
		uint8_t    *cbuf;

		UT_CHECK_EQ(qs_dict_build(qv, cmp, NULL, &talloc, &blob, &len, codes, NULL), QS_CODEC_OK);
		cap = qs_bitpack_serialized_size(qv->n, c->dict_width);
		cbuf = malloc(cap);
		UT_CHECK_EQ(qs_bitpack_serialize32(codes, qv->n, c->dict_width, cbuf, cap, &clen, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(len + clen, c->size[QS_ENC_DICT]);
		UT_CHECK_EQ(len + qv->n * qs_padded_bytes_for_width(c->dict_width), c->size[QS_ENC_DICT_PADDED]);
		free(cbuf);
		free(codes);
		free(blob);
	}
	if (c->considered[QS_ENC_LZ4])
	{
		UT_CHECK_EQ(qs_lz4chunk_encode(qv, 0, 0, &talloc, &blob, &len, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(len, c->size[QS_ENC_LZ4]);
		free(blob);
	}
	if (is_int)
	{
		int			k;

		for (k = 0; k < 2; k++)
		{
			QsEncoding	e = k ? QS_ENC_FOR_DELTA : QS_ENC_FOR;
			uint8_t    *buf = malloc(c->size[e] + 64);

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

static QsEncoding
choose_int(const void *data, size_t n, int width)
{
	QsValues	qv = {0};
	QsChoice	c;

	qv.n = n;
	qv.width = width;
	qv.data = data;
	UT_CHECK_EQ(qs_choose_encoding(&qv, true, width == 4 ? qs_cmp_int32 : qs_cmp_int64, NULL,
								   QS_ENC_MASK_ALL, &talloc, &c, NULL), QS_CODEC_OK);
	check_exact(&qv, true, width == 4 ? qs_cmp_int32 : qs_cmp_int64, &c);
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
	UT_CHECK_EQ(qs_choose_encoding(&qv, false, qs_cmp_bytes, NULL, QS_ENC_MASK_ALL, &talloc, &c, NULL), QS_CODEC_OK);
	check_exact(&qv, false, qs_cmp_bytes, &c);
	UT_CHECK_EQ(c.best, QS_ENC_DICT);
	UT_CHECK_EQ(c.ndistinct, 4);
	UT_CHECK(!c.considered[QS_ENC_FOR]);

	/* distinct but repetitive strings: only LZ4 helps */
	for (i = 0; i < n; i++)
	{
		ptrs[i] = pool + 64 * i;
		lens[i] = (uint32_t) snprintf((char *) ptrs[i], 64, "customer-%08zu-of-the-month-padding", i * 7919);
	}
	UT_CHECK_EQ(qs_choose_encoding(&qv, false, qs_cmp_bytes, NULL, QS_ENC_MASK_ALL, &talloc, &c, NULL), QS_CODEC_OK);
	check_exact(&qv, false, qs_cmp_bytes, &c);
	UT_CHECK_EQ(c.best, QS_ENC_LZ4);
	UT_CHECK_EQ(c.ndistinct, n);

	/* an encoding left out of the mask is not considered */
	UT_CHECK_EQ(qs_choose_encoding(&qv, false, qs_cmp_bytes, NULL, QS_ENC_MASK(QS_ENC_DICT), &talloc, &c, NULL), QS_CODEC_OK);
	UT_CHECK(!c.considered[QS_ENC_LZ4]);
	UT_CHECK_EQ(c.best, QS_ENC_PLAIN);
	UT_CHECK(strcmp(qs_encoding_name(QS_ENC_FOR_DELTA), "for_delta") == 0);
	free(ptrs);
	free(lens);
	free(pool);
}

int
main(void)
{
	UT_RUN(test_integers);
	UT_RUN(test_strings);
	return ut_finish("test_choose");
}
