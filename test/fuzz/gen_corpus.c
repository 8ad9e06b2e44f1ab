/*
 * gen_corpus.c - writes small valid encodings as seed corpora for the fuzz
 * targets into test/fuzz/corpus/<target>/.  Not a fuzz target itself;
 * build and run by hand (see test/fuzz/README.md).
 */
#include <sys/stat.h>

#include "fuzz_common.h"
#include "codec/bitpack.h"
#include "codec/dict.h"
#include "codec/for.h"
#include "codec/lz4chunk.h"

static void
put(const char *target, int k, const uint8_t *buf, size_t len)
{
	char		path[256];
	FILE	   *f;

	snprintf(path, sizeof(path), "test/fuzz/corpus/%s", target);
	mkdir("test/fuzz/corpus", 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "test/fuzz/corpus/%s/seed%02d", target, k);
	f = fopen(path, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
}

int
main(void)
{
	uint32_t	codes[200];
	int32_t		ints[200];
	int64_t		longs[200];
	uint8_t		buf[8192];
	size_t		len;
	int			i,
				w;
	static const char *words[] = {"", "a", "ab", "abc", "b", "bcd", "zz", "zzz"};
	const uint8_t *ptrs[200];
	uint32_t	lens[200];
	QsValues	qv = {0};
	uint8_t    *blob;

	for (i = 0; i < 200; i++)
	{
		codes[i] = (uint32_t) (i * 37 % 101);
		ints[i] = 1000 + i * 3 - (i % 7);
		longs[i] = (int64_t) i * 100000 - 5;
		ptrs[i] = (const uint8_t *) words[i % 8];
		lens[i] = (uint32_t) strlen(words[i % 8]);
	}
	for (w = 1; w <= 32; w += 5)
	{
		qs_bitpack_serialize32(codes, 150, w, buf, sizeof(buf), &len, NULL);
		put("fuzz_bitpack", w, buf, len);
	}
	qs_for_encode32(ints, 200, QS_FOR_PLAIN, buf, sizeof(buf), &len, NULL);
	put("fuzz_for", 0, buf, len);
	qs_for_encode32(ints, 200, QS_FOR_DELTA, buf, sizeof(buf), &len, NULL);
	put("fuzz_for", 1, buf, len);
	qs_for_encode64(longs, 200, QS_FOR_PLAIN, buf, sizeof(buf), &len, NULL);
	put("fuzz_for", 2, buf, len);
	qs_for_encode64(longs, 200, QS_FOR_DELTA, buf, sizeof(buf), &len, NULL);
	put("fuzz_for", 3, buf, len);

	qv.n = 200;
	qv.ptrs = ptrs;
	qv.lens = lens;
	qs_dict_build(&qv, qs_cmp_bytes, NULL, &fz_allocator, &blob, &len, NULL, NULL);
	put("fuzz_dict", 0, blob, len);
	free(blob);
	qs_lz4chunk_encode(&qv, 16, 0, &fz_allocator, &blob, &len, NULL);
	put("fuzz_lz4chunk", 0, blob, len);
	free(blob);
	memset(&qv, 0, sizeof(qv));
	qv.n = 200;
	qv.width = 4;
	qv.data = (const uint8_t *) ints;
	qs_dict_build(&qv, qs_cmp_bytes, NULL, &fz_allocator, &blob, &len, NULL, NULL);
	put("fuzz_dict", 1, blob, len);
	free(blob);
	qs_lz4chunk_encode(&qv, 0, 0, &fz_allocator, &blob, &len, NULL);
	put("fuzz_lz4chunk", 1, blob, len);
	free(blob);
	return 0;
}
