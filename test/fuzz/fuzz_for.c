/*
 * fuzz_for.c - arbitrary bytes into qs_for_open; on success the stripe
 * decodes, re-encoding the decoded values with the same kind decodes to
 * the same values, and a partial decode matches the full one.
 */
#include "fuzz_common.h"
#include "codec/for.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	QsForView	v,
				v2;
	int64_t    *a,
			   *b;
	uint8_t    *buf;
	size_t		len,
				i,
				cap;

	if (qs_for_open(data, size, &v, NULL) != QS_CODEC_OK)
		return 0;
	a = malloc((v.count + 1) * 8);
	b = malloc((v.count + 1) * 8);
	cap = QS_FOR_HDRSZ + (v.count + 1) * 8 + 8;
	buf = malloc(cap);
	if (v.value_bytes == 4)
	{
		int32_t    *a32 = malloc((v.count + 1) * 4);
		int32_t    *b32 = malloc((v.count + 1) * 4);

		qs_for_decode32(&v, 0, v.count, a32);
		FZ_ASSERT(qs_for_encode32(a32, v.count, v.kind, buf, cap, &len, NULL) == QS_CODEC_OK);
		FZ_ASSERT(qs_for_open(buf, len, &v2, NULL) == QS_CODEC_OK);
		FZ_ASSERT(v2.count == v.count);
		qs_for_decode32(&v2, 0, v.count, b32);
		for (i = 0; i < v.count; i++)
			FZ_ASSERT(a32[i] == b32[i]);
		free(a32);
		free(b32);
	}
	else
	{
		qs_for_decode64(&v, 0, v.count, a);
		FZ_ASSERT(qs_for_encode64(a, v.count, v.kind, buf, cap, &len, NULL) == QS_CODEC_OK);
		FZ_ASSERT(qs_for_open(buf, len, &v2, NULL) == QS_CODEC_OK);
		qs_for_decode64(&v2, 0, v.count, b);
		for (i = 0; i < v.count; i++)
			FZ_ASSERT(a[i] == b[i]);
		if (v.count > 2)
		{
			qs_for_decode64(&v, 1, v.count - 2, b);
			for (i = 0; i < v.count - 2; i++)
				FZ_ASSERT(a[i + 1] == b[i]);
		}
	}
	free(a);
	free(b);
	free(buf);
	return 0;
}
