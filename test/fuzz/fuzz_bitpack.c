/*
 * fuzz_bitpack.c - arbitrary bytes into qs_bitpack_open; on success every
 * code is readable, re-packing reproduces the codes, and all predicate
 * variants agree with the scalar oracle for a range taken from the input.
 */
#include "fuzz_common.h"
#include "codec/bitpack.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	QsPackedView v;
	uint64_t   *codes,
			   *again;
	uint8_t    *repacked;
	size_t		i;
	uint32_t	lo,
				hi;

	if (qs_bitpack_open(data, size, &v, NULL) != QS_CODEC_OK)
		return 0;
	FZ_ASSERT(v.width >= 1 && v.width <= 64);
	FZ_ASSERT(QS_BITPACK_HDRSZ + qs_bitpack_bytes(v.count, v.width) == size);
	codes = malloc((v.count + 1) * 8);
	again = malloc((v.count + 1) * 8);
	repacked = malloc(qs_bitpack_bytes(v.count, v.width) + 8);
	qs_bitpack_unpack64(v.data, v.width, 0, v.count, codes);
	qs_bitpack_pack64(codes, v.count, v.width, repacked);
	qs_bitpack_unpack64(repacked, v.width, 0, v.count, again);
	for (i = 0; i < v.count; i++)
		FZ_ASSERT(codes[i] == again[i]);

	/* the range comes from the first code bytes so the fuzzer can steer it */
	lo = size > 20 ? qs_load32(data + 16) : 0;
	hi = size > 24 ? qs_load32(data + 20) : ~0u;
	if (v.width <= 32)
	{
		size_t		words = qs_bitmap_words(v.count) + 1;
		uint64_t   *a = malloc(words * 8),
				   *b = malloc(words * 8);
		uint32_t   *u = malloc((v.count + 1) * 4);
		size_t		start = v.count > 3 ? 3 : 0;
		size_t		n = v.count - start;

		qs_bitpack_unpack32(v.data, v.width, 0, v.count, u);
		for (i = 0; i < v.count; i++)
			FZ_ASSERT(u[i] == codes[i]);
		qs_pred_range_packed_scalar(v.data, v.width, start, n, lo, hi, a);
		qs_pred_range_packed(v.data, v.width, start, n, lo, hi, b);
		FZ_ASSERT(memcmp(a, b, qs_bitmap_words(n) * 8) == 0);
		qs_pred_range_packed_avx2(v.data, v.width, start, n, lo, hi, b);
		FZ_ASSERT(memcmp(a, b, qs_bitmap_words(n) * 8) == 0);
		qs_pred_range_packed_portable(v.data, v.width, start, n, lo, hi, b);
		FZ_ASSERT(memcmp(a, b, qs_bitmap_words(n) * 8) == 0);
		qs_pred_range_packed_unpack(v.data, v.width, start, n, lo, hi, b);
		FZ_ASSERT(memcmp(a, b, qs_bitmap_words(n) * 8) == 0);
		free(a);
		free(b);
		free(u);
	}
	free(codes);
	free(again);
	free(repacked);
	return 0;
}
