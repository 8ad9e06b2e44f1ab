/*
 * test_for.c - FOR and FOR-delta round trips for int32 and int64 (empty,
 * one value, all equal, sorted, clustered, full-range extremes needing
 * width 32/33/64), partial decodes, sizes, and header validation.
 */
#include "unit.h"
#include "codec/for.h"
#include "codec/bitpack.h"

static uint64_t seed = 99;

static void
roundtrip64(const int64_t *v, size_t n, int expect_for_width, int expect_delta_width)
{
	QsForKind	kinds[2] = {QS_FOR_PLAIN, QS_FOR_DELTA};
	int			k;
	QsForInfo	info;

	qs_for_analyze64(v, n, &info);
	if (expect_for_width)
		UT_CHECK_EQ(info.for_width, expect_for_width);
	if (expect_delta_width)
		UT_CHECK_EQ(info.delta_width, expect_delta_width);
	for (k = 0; k < 2; k++)
	{
		size_t		cap = (k ? info.delta_size : info.for_size);
		uint8_t    *buf = malloc(cap);
		int64_t    *out = malloc((n + 1) * 8);
		size_t		len,
					i;
		QsForView	view;
		QsCodecErr	err;

		UT_CHECK_EQ(qs_for_encode64(v, n, kinds[k], buf, cap - 1, &len, &err), cap ? QS_CODEC_NOSPACE : QS_CODEC_OK);
		UT_CHECK_EQ(qs_for_encode64(v, n, kinds[k], buf, cap, &len, &err), QS_CODEC_OK);
		UT_CHECK_EQ(len, cap);
		UT_CHECK_EQ(qs_for_open(buf, len, &view, &err), QS_CODEC_OK);
		UT_CHECK_EQ(view.count, n);
		qs_for_decode64(&view, 0, n, out);
		for (i = 0; i < n; i++)
			UT_CHECK(out[i] == v[i]);
		if (n > 300)
		{
			qs_for_decode64(&view, 257, n - 300, out);
			for (i = 0; i < n - 300; i++)
				UT_CHECK(out[i] == v[i + 257]);
		}
		/* every truncation and a trailing byte are rejected */
		for (i = 0; i < len; i += (len > 200 ? 7 : 1))
			UT_CHECK(qs_for_open(buf, i, &view, NULL) != QS_CODEC_OK);
		free(buf);
		free(out);
	}
}

static void
roundtrip32(const int32_t *v, size_t n)
{
	QsForKind	kinds[2] = {QS_FOR_PLAIN, QS_FOR_DELTA};
	int			k;
	QsForInfo	info;

	qs_for_analyze32(v, n, &info);
	UT_CHECK(info.for_width <= 32);
	UT_CHECK(info.delta_width <= 33);
	for (k = 0; k < 2; k++)
	{
		size_t		cap = (k ? info.delta_size : info.for_size);
		uint8_t    *buf = malloc(cap);
		int32_t    *out = malloc((n + 1) * 4);
		int64_t    *out64 = malloc((n + 1) * 8);
		size_t		len,
					i;
		QsForView	view;

		UT_CHECK_EQ(qs_for_encode32(v, n, kinds[k], buf, cap, &len, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(view.value_bytes, 4);
		qs_for_decode32(&view, 0, n, out);
		qs_for_decode64(&view, 0, n, out64);
		for (i = 0; i < n; i++)
		{
			UT_CHECK(out[i] == v[i]);
			UT_CHECK(out64[i] == v[i]);
		}
		if (n > 10)
		{
			qs_for_decode32(&view, 5, n - 10, out);
			for (i = 0; i < n - 10; i++)
				UT_CHECK(out[i] == v[i + 5]);
		}
		free(buf);
		free(out);
		free(out64);
	}
}

static void
test_int64(void)
{
	size_t		n = 5000,
				i;
	int64_t    *v = calloc(n, 8);

	roundtrip64(v, 0, 1, 1);
	v[0] = INT64_MIN;
	roundtrip64(v, 1, 1, 1);
	for (i = 0; i < n; i++)
		v[i] = 123456789012LL;
	roundtrip64(v, n, 1, 1);
	/* sorted with small gaps: FOR-delta should be narrow */
	v[0] = -1000000;
	for (i = 1; i < n; i++)
		v[i] = v[i - 1] + (int64_t) (ut_rand(&seed) % 16);
	roundtrip64(v, n, 0, 4);
	/* clustered around a large base */
	for (i = 0; i < n; i++)
		v[i] = 5000000000LL + (int64_t) (ut_rand(&seed) % 1000);
	roundtrip64(v, n, 10, 11);
	/* full range: both need 64 bits */
	for (i = 0; i < n; i++)
		v[i] = (int64_t) ut_rand(&seed);
	v[0] = INT64_MIN;
	v[1] = INT64_MAX;
	roundtrip64(v, n, 64, 64);
	free(v);
}

static void
test_int32(void)
{
	size_t		n = 4000,
				i;
	int32_t    *v = calloc(n, 4);
	QsForInfo	info;

	roundtrip32(v, 0);
	v[0] = 7;
	roundtrip32(v, 1);
	for (i = 0; i < n; i++)
		v[i] = (int32_t) (ut_rand(&seed));
	v[0] = INT32_MIN;
	v[1] = INT32_MAX;
	roundtrip32(v, n);
	qs_for_analyze32(v, n, &info);
	UT_CHECK_EQ(info.for_width, 32);
	UT_CHECK_EQ(info.delta_width, 33);
	for (i = 0; i < n; i++)
		v[i] = (int32_t) i * 3;
	roundtrip32(v, n);
	qs_for_analyze32(v, n, &info);
	UT_CHECK_EQ(info.delta_width, 1);
	UT_CHECK_EQ(info.delta_size, QS_FOR_HDRSZ + qs_bitpack_bytes(n - 1, 1));
	for (i = 0; i < n; i++)
		v[i] = 100 + (int32_t) (ut_rand(&seed) % 200);
	roundtrip32(v, n);
	free(v);
}

static void
test_validation(void)
{
	int32_t		v[100];
	uint8_t		buf[1024];
	size_t		len,
				i;
	QsForView	view;

	for (i = 0; i < 100; i++)
		v[i] = (int32_t) i;
	UT_CHECK_EQ(qs_for_encode32(v, 100, QS_FOR_PLAIN, buf, sizeof(buf), &len, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_OK);
	buf[8] = 40;				/* int32 with width 40 */
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_CORRUPT);
	buf[8] = 7;
	buf[7] = 5;
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_CORRUPT);
	buf[7] = 4;
	buf[6] = 2;
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_CORRUPT);
	buf[6] = 0;
	buf[12] = 1;
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_CORRUPT);
	buf[12] = 0;
	qs_store64(buf + 16, UINT64_MAX);
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_CORRUPT);
	qs_store64(buf + 16, 100);
	buf[5] = 1;
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_BAD_VERSION);
	buf[5] = 0;
	UT_CHECK_EQ(qs_for_open(buf, len, &view, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(qs_for_open(buf, len + 1, &view, NULL), QS_CODEC_CORRUPT);
	UT_CHECK_EQ(qs_for_encode32(v, 100, (QsForKind) 3, buf, sizeof(buf), &len, NULL), QS_CODEC_INVALID);
}

int
main(void)
{
	UT_RUN(test_int64);
	UT_RUN(test_int32);
	UT_RUN(test_validation);
	return ut_finish("test_for");
}
