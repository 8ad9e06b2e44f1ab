/*
 * gen_corpus_colblock.c - writes small valid column block images (one per
 * encoding mix, with NULLs, an index sub-block, an empty block) as seeds
 * for fuzz_colblock into test/fuzz/corpus/fuzz_colblock/.  Each seed is a
 * mode byte (see fuzz_colblock.c) followed by the image.  Not a fuzz
 * target; build and run by hand, like gen_corpus.c:
 *
 *	 gcc -std=gnu99 -Iinclude -o /tmp/gen_cb test/fuzz/gen_corpus_colblock.c
 *		 src/codec/[a-z]*.c src/column/colblock*.c -llz4 && /tmp/gen_cb
 *
 * (one command line).
 */
#include <sys/stat.h>

#include "fuzz_common.h"
#include "column/colblock.h"
#include "column/colblock_csb.h"

static void
put(int k, uint8_t mode, const uint8_t *buf, size_t len)
{
	char		path[256];
	FILE	   *f;

	mkdir("test/fuzz/corpus", 0755);
	mkdir("test/fuzz/corpus/fuzz_colblock", 0755);
	snprintf(path, sizeof(path), "test/fuzz/corpus/fuzz_colblock/seed%02d", k);
	f = fopen(path, "wb");
	fwrite(&mode, 1, 1, f);
	fwrite(buf, 1, len, f);
	fclose(f);
}

/* A block of nrows rows: int32 (enc_i), text (enc_t), int64 FOR-delta. */
static void
seed(int k, uint32_t nrows, QsEncoding enc_i, QsEncoding enc_t, int nindexes)
{
	/*
	 * nindexes 2: one CSB+-tree index sub-block over the text column's
	 * codes; 3: one over the int32 column's FOR integers; 4: the rows'
	 * origin xmins (FOR; 7: in runs; 8, 9: the same with command ids);
	 * 5, 6: the rows' origin TIDs (form 1, form 2)
	 */
	static const char *words[] = {"", "a", "ab", "abc", "b", "bcd", "zz", "zzz"};
	int32_t		ints[64];
	int64_t		longs[64];
	const uint8_t *ptrs[64];
	uint32_t	lens[64];
	uint64_t	nulls = 0;
	uint32_t	i,
				n = 0;
	QsValues	qv;
	QsColBlockColumn cols[3];
	QsColBlockIndex ix = {1, QS_COLINDEX_CSBTREE, (const uint8_t *) "index!!", 7};
	QsColBlockSpec spec;
	uint8_t    *img;
	size_t		len;

	for (i = 0; i < nrows; i++)
	{
		longs[i] = (int64_t) i * 1000 + 7;
		if (i % 5 == 3)
			continue;
		nulls |= UINT64_C(1) << i;
		ints[n] = (int32_t) (i * 37 % 11) - 3;
		ptrs[n] = (const uint8_t *) words[i % 8];
		lens[n] = (uint32_t) strlen(words[i % 8]);
		n++;
	}
	memset(&qv, 0, sizeof(qv));
	qv.n = n;
	qv.width = 4;
	qv.data = (const uint8_t *) ints;
	qs_colblock_encode_column(&qv, (QsColType) {4, true, 'i'}, enc_i, qs_cmp_int32, NULL,
							  &fz_allocator, &cols[0], NULL);
	cols[0].nulls = &nulls;
	memset(&qv, 0, sizeof(qv));
	qv.n = n;
	qv.ptrs = ptrs;
	qv.lens = lens;
	qs_colblock_encode_column(&qv, (QsColType) {-1, false, 'i'}, enc_t, qs_cmp_bytes, NULL,
							  &fz_allocator, &cols[1], NULL);
	cols[1].nulls = &nulls;
	memset(&qv, 0, sizeof(qv));
	qv.n = nrows;
	qv.width = 8;
	qv.data = (const uint8_t *) longs;
	qs_colblock_encode_column(&qv, (QsColType) {8, true, 'd'}, QS_ENC_FOR_DELTA, qs_cmp_int64,
							  NULL, &fz_allocator, &cols[2], NULL);
	cols[2].flags = QS_COLDESC_SORTED;
	memset(&spec, 0, sizeof(spec));
	spec.block_id = 1;
	spec.nrows = nrows;
	spec.ncols = 3;
	spec.sort_col = 2;
	spec.cols = cols;
	spec.nindexes = (uint16_t) nindexes;
	spec.indexes = &ix;
	if (nindexes == 2)
	{
		ix.kind = QS_COLINDEX_CSBCODES;
		ix.data = qs_csbix_build_column(&cols[1], nrows, &fz_allocator, &ix.len);
		spec.nindexes = 1;
	}
	if (nindexes == 3)
	{
		/* over the FOR integers of column 0 (enc_i FOR) */
		ix.column = 0;
		ix.kind = QS_COLINDEX_CSBINTS;
		ix.data = qs_csbix_build_column(&cols[0], nrows, &fz_allocator, &ix.len);
		spec.nindexes = 1;
	}
	if (nindexes == 4 || nindexes == 7 || nindexes == 8 || nindexes == 9)
	{
		/* the rows' origin xmins: moved rows' inserters, bulk-loaded 0s */
		uint32_t	xmins[64],
					cids[64];

		for (i = 0; i < nrows; i++)
			xmins[i] = i % 3 == 0 ? 0 : 700 + i * 5;
		if (nindexes == 7 || nindexes == 9) /* in batches: the runs form */
			for (i = 0; i < nrows; i++)
				xmins[i] = i < 10 ? 0 : 700 + i / 16;
		/* 8, 9: with command ids (one past 2^31 in FOR, a run per command) */
		for (i = 0; i < nrows; i++)
			cids[i] = nindexes == 8 ? (i % 4 == 1 ? 0xFFFFFFF0u : i % 5) :
				i / 8 % 2;
		ix.column = 0;
		ix.kind = QS_COLINDEX_ORIGIN_XMIN;
		ix.data = qs_colblock_origin_build(xmins, nindexes >= 8 ? cids : NULL,
										   nrows, &fz_allocator, &ix.len);
		spec.nindexes = 1;
	}
	if (nindexes == 5 || nindexes == 6)
	{
		/* the rows' origin TIDs: in merge order (runs) or scattered (pages) */
		uint32_t	pages[64];
		uint16_t	offs[64];

		for (i = 0; i < nrows; i++)
		{
			uint32_t	j = nindexes == 5 ? i : (i * 5) % nrows;

			pages[i] = j < 3 ? 0 : 40 + j / 10;
			offs[i] = j < 3 ? 0 : (uint16_t) (1 + (j % 10) * 2);
		}
		ix.column = 0;
		ix.kind = QS_COLINDEX_ORIGIN_TID;
		ix.data = qs_colblock_otid_build(pages, offs, nrows, &fz_allocator, &ix.len);
		spec.nindexes = 1;
	}
	if (qs_colblock_image_size(&spec, &len, NULL) != QS_CODEC_OK)
	{
		fprintf(stderr, "seed %d: invalid spec\n", k);
		exit(1);
	}
	img = malloc(len);
	qs_colblock_serialize(&spec, img, len, &len, NULL);
	/* the same image with and without checksum repair and page checks */
	put(2 * k, 0, img, len);
	put(2 * k + 1, 7, img, len);
	free(img);
	for (i = 0; i < 3; i++)
		qs_colblock_column_free(&fz_allocator, &cols[i]);
}

int
main(void)
{
	seed(0, 20, QS_ENC_PLAIN, QS_ENC_PLAIN, 0);
	seed(1, 20, QS_ENC_FOR, QS_ENC_DICT, 1);
	seed(2, 33, QS_ENC_DICT, QS_ENC_LZ4, 0);
	seed(3, 64, QS_ENC_DICT_PADDED, QS_ENC_DICT_PADDED, 1);
	seed(4, 0, QS_ENC_PLAIN, QS_ENC_PLAIN, 0);
	seed(5, 64, QS_ENC_FOR, QS_ENC_DICT, 2);
	seed(6, 40, QS_ENC_PLAIN, QS_ENC_DICT_PADDED, 2);
	seed(7, 64, QS_ENC_FOR, QS_ENC_DICT, 3);
	seed(8, 50, QS_ENC_FOR, QS_ENC_DICT, 4);
	seed(9, 50, QS_ENC_FOR, QS_ENC_DICT, 5);
	seed(10, 64, QS_ENC_PLAIN, QS_ENC_DICT, 6);
	seed(11, 64, QS_ENC_FOR, QS_ENC_DICT, 7);
	seed(12, 50, QS_ENC_FOR, QS_ENC_DICT, 8);
	seed(13, 64, QS_ENC_FOR, QS_ENC_DICT, 9);
	return 0;
}
