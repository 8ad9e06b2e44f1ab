/*
 * test_bitpack.c - bit-packing round trips at every width, the padded
 * variant, the serialized stripe format and its validation.
 */
#include "unit.h"
#include "codec/bitpack.h"

static uint64_t seed = 42;

static uint64_t
rand_width(int w)
{
	uint64_t	r = ut_rand(&seed);

	return w == 64 ? r : r & ((UINT64_C(1) << w) - 1);
}

static void
test_roundtrip_all_widths(void)
{
	static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 1000, 4097};
	int			w;
	size_t		s;

	for (w = 1; w <= 64; w++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			size_t		n = sizes[s];
			uint64_t   *in = malloc((n + 1) * 8);
			uint64_t   *out = malloc((n + 1) * 8);
			uint8_t    *packed = malloc(qs_bitpack_bytes(n, w) + 8);
			size_t		i;

			for (i = 0; i < n; i++)
			{
				/* mix random codes with the extremes 0 and 2^w-1 */
				in[i] = i % 7 == 0 ? 0 : i % 7 == 1 ? rand_width(w) | ~UINT64_C(0) >> (64 - w) : rand_width(w);
			}
			qs_bitpack_pack64(in, n, w, packed);
			qs_bitpack_unpack64(packed, w, 0, n, out);
			for (i = 0; i < n; i++)
				UT_CHECK(in[i] == out[i]);
			for (i = 0; i < n; i++)
				UT_CHECK(qs_bitpack_get(packed, w, i) == in[i]);
			/* unpack from an unaligned start */
			if (n > 5)
			{
				qs_bitpack_unpack64(packed, w, 3, n - 5, out);
				for (i = 0; i < n - 5; i++)
					UT_CHECK(in[i + 3] == out[i]);
			}
			if (w <= 32)
			{
				uint32_t   *in32 = malloc((n + 1) * 4);
				uint32_t   *out32 = malloc((n + 1) * 4);
				uint8_t    *p2 = malloc(qs_bitpack_bytes(n, w) + 8);

				for (i = 0; i < n; i++)
					in32[i] = (uint32_t) in[i];
				qs_bitpack_pack32(in32, n, w, p2);
				UT_CHECK(qs_bitpack_bytes(n, w) == 0 || memcmp(p2, packed, qs_bitpack_bytes(n, w)) == 0);
				qs_bitpack_unpack32(p2, w, 0, n, out32);
				for (i = 0; i < n; i++)
					UT_CHECK(in32[i] == out32[i]);
				if (n > 7)
				{
					qs_bitpack_unpack32(p2, w, 7, n - 7, out32);
					for (i = 0; i < n - 7; i++)
						UT_CHECK(in32[i + 7] == out32[i]);
				}
				free(in32);
				free(out32);
				free(p2);
			}
			free(in);
			free(out);
			free(packed);
		}
}

static void
test_sizes(void)
{
	UT_CHECK_EQ(qs_bitpack_bytes(0, 5), 0);
	UT_CHECK_EQ(qs_bitpack_bytes(1, 1), 8);
	UT_CHECK_EQ(qs_bitpack_bytes(64, 1), 8);
	UT_CHECK_EQ(qs_bitpack_bytes(65, 1), 16);
	UT_CHECK_EQ(qs_bitpack_bytes(3, 64), 24);
	UT_CHECK_EQ(qs_bitpack_bytes(1000, 13), 1632);
	UT_CHECK_EQ(qs_bits_needed(0), 1);
	UT_CHECK_EQ(qs_bits_needed(1), 1);
	UT_CHECK_EQ(qs_bits_needed(2), 2);
	UT_CHECK_EQ(qs_bits_needed(255), 8);
	UT_CHECK_EQ(qs_bits_needed(256), 9);
	UT_CHECK_EQ(qs_bits_needed(~UINT64_C(0)), 64);
}

static void
test_padded(void)
{
	int			w;

	for (w = 1; w <= 32; w++)
	{
		int			bytes = qs_padded_bytes_for_width(w);
		size_t		n = 777,
					i;
		uint32_t	in[777],
					out[777];
		uint8_t		buf[777 * 4];

		for (i = 0; i < n; i++)
			in[i] = (uint32_t) rand_width(w);
		qs_padded_pack(in, n, bytes, buf);
		qs_padded_unpack(buf, bytes, 0, n, out);
		for (i = 0; i < n; i++)
			UT_CHECK(in[i] == out[i]);
		qs_padded_unpack(buf, bytes, 10, n - 10, out);
		for (i = 0; i < n - 10; i++)
			UT_CHECK(in[i + 10] == out[i]);
	}
	UT_CHECK_EQ(qs_padded_bytes_for_width(8), 1);
	UT_CHECK_EQ(qs_padded_bytes_for_width(9), 2);
	UT_CHECK_EQ(qs_padded_bytes_for_width(17), 4);
}

static void
test_serialize(void)
{
	uint32_t	codes[100];
	uint8_t		buf[QS_BITPACK_HDRSZ + 200];
	size_t		len,
				i;
	QsPackedView v;
	QsCodecErr	err;

	for (i = 0; i < 100; i++)
		codes[i] = (uint32_t) rand_width(11);
	UT_CHECK_EQ(qs_bitpack_serialize32(codes, 100, 11, buf, sizeof(buf), &len, &err), QS_CODEC_OK);
	UT_CHECK_EQ(len, qs_bitpack_serialized_size(100, 11));
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_OK);
	UT_CHECK_EQ(v.width, 11);
	UT_CHECK_EQ(v.count, 100);
	for (i = 0; i < 100; i++)
		UT_CHECK(qs_bitpack_get(v.data, v.width, i) == codes[i]);

	UT_CHECK_EQ(qs_bitpack_serialize32(codes, 100, 11, buf, 20, &len, &err), QS_CODEC_NOSPACE);
	UT_CHECK_EQ(qs_bitpack_serialize32(codes, 100, 0, buf, sizeof(buf), &len, NULL), QS_CODEC_INVALID);
	UT_CHECK_EQ(qs_bitpack_serialize32(codes, 100, 33, buf, sizeof(buf), &len, NULL), QS_CODEC_INVALID);

	/* validation: every truncation is corrupt, bad magic/version/width too */
	len = qs_bitpack_serialized_size(100, 11);
	for (i = 0; i < len; i++)
		UT_CHECK(qs_bitpack_open(buf, i, &v, NULL) == QS_CODEC_CORRUPT);
	buf[6] = 0;
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_CORRUPT);
	buf[6] = 65;
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_CORRUPT);
	buf[6] = 11;
	qs_store64(buf + 8, UINT64_C(1) << 62);
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_CORRUPT);
	qs_store64(buf + 8, 100);
	buf[4] = 9;
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_BAD_VERSION);
	buf[4] = 1;
	buf[0] ^= 1;
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_CORRUPT);
	buf[0] ^= 1;
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_OK);

	/* empty stripe */
	UT_CHECK_EQ(qs_bitpack_serialize32(codes, 0, 5, buf, sizeof(buf), &len, &err), QS_CODEC_OK);
	UT_CHECK_EQ(len, QS_BITPACK_HDRSZ);
	UT_CHECK_EQ(qs_bitpack_open(buf, len, &v, &err), QS_CODEC_OK);
	UT_CHECK_EQ(v.count, 0);
}

int
main(void)
{
	UT_RUN(test_sizes);
	UT_RUN(test_roundtrip_all_widths);
	UT_RUN(test_padded);
	UT_RUN(test_serialize);
	return ut_finish("test_bitpack");
}
