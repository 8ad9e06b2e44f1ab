/*
 * fuzz_lz4chunk.c - arbitrary bytes into qs_lz4chunk_open/get; on success
 * every value fetched lies inside the scratch buffer, and re-encoding the
 * values decodes to the same values (random access in reverse order).
 */
#include "fuzz_common.h"
#include "codec/lz4chunk.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	QsLz4Reader r,
				r2;
	uint8_t   **ptrs;
	uint32_t   *lens;
	uint64_t	i,
				got = 0;
	QsValues	qv = {0};
	uint8_t    *blob;
	size_t		bloblen;

	if (qs_lz4chunk_open(data, size, &r, NULL) != QS_CODEC_OK)
		return 0;
	FZ_ASSERT(r.max_raw <= (uint64_t) size * 255 + 64);
	r.scratch = malloc(r.max_raw + 1);
	ptrs = malloc((r.nvalues + 1) * sizeof(*ptrs));
	lens = malloc((r.nvalues + 1) * 4);
	for (i = 0; i < r.nvalues; i++)
	{
		const uint8_t *v;
		size_t		l;

		if (qs_lz4chunk_get(&r, i, &v, &l, NULL) != QS_CODEC_OK)
			break;
		FZ_ASSERT(v >= r.scratch && v + l <= r.scratch + r.max_raw);
		ptrs[i] = malloc(l + 1);
		memcpy(ptrs[i], v, l);
		lens[i] = (uint32_t) l;
		got++;
	}
	if (got == r.nvalues)
	{
		qv.n = got;
		qv.ptrs = (const uint8_t *const *) ptrs;
		qv.lens = lens;
		FZ_ASSERT(qs_lz4chunk_encode(&qv, 0, 0, &fz_allocator, &blob, &bloblen, NULL) == QS_CODEC_OK);
		FZ_ASSERT(qs_lz4chunk_open(blob, bloblen, &r2, NULL) == QS_CODEC_OK);
		r2.scratch = malloc(r2.max_raw + 1);
		for (i = got; i-- > 0;)
		{
			const uint8_t *v;
			size_t		l;

			FZ_ASSERT(qs_lz4chunk_get(&r2, i, &v, &l, NULL) == QS_CODEC_OK);
			FZ_ASSERT(l == lens[i] && (l == 0 || memcmp(v, ptrs[i], l) == 0));
		}
		free(r2.scratch);
		free(blob);
	}
	for (i = 0; i < got; i++)
		free(ptrs[i]);
	free(ptrs);
	free(lens);
	free(r.scratch);
	return 0;
}
