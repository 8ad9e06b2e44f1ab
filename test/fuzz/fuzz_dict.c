/*
 * fuzz_dict.c - arbitrary bytes into qs_dict_open (with the order check);
 * on success, every code maps to a value that looks up to the same code,
 * rebuilding the dictionary from its values reproduces the blob exactly,
 * and every operator's code range is consistent with the values.
 */
#include "fuzz_common.h"
#include "codec/dict.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	QsDict		d;
	QsValues	qv = {0};
	const uint8_t **ptrs;
	uint32_t   *lens;
	uint8_t    *blob;
	size_t		bloblen;
	uint32_t	i;
	int			op;

	if (qs_dict_open(data, size, qs_cmp_bytes, NULL, true, &d, NULL) != QS_CODEC_OK)
		return 0;
	ptrs = malloc(((size_t) d.nvalues + 1) * sizeof(*ptrs));
	lens = malloc(((size_t) d.nvalues + 1) * 4);
	for (i = 0; i < d.nvalues; i++)
	{
		const uint8_t *p;
		size_t		l;
		uint32_t	c;

		qs_dict_value(&d, i, &p, &l);
		FZ_ASSERT(p >= data && p + l <= data + size);
		FZ_ASSERT(qs_dict_lookup(&d, p, l, &c) && c == i);
		ptrs[i] = p;
		lens[i] = (uint32_t) l;
	}
	qv.n = d.nvalues;
	qv.width = d.width;
	if (d.width > 0)
		qv.data = d.data;
	else
	{
		qv.ptrs = ptrs;
		qv.lens = lens;
	}
	FZ_ASSERT(qs_dict_build(&qv, qs_cmp_bytes, NULL, &fz_allocator, &blob, &bloblen, NULL, NULL) == QS_CODEC_OK);
	FZ_ASSERT(bloblen == size && memcmp(blob, data, size) == 0);
	free(blob);

	/* probe with the last few input bytes as a value */
	for (op = QS_OP_EQ; op <= QS_OP_BETWEEN; op++)
	{
		size_t		pl = size % 9;
		const uint8_t *probe = data + size - pl;
		QsCodeRange r = qs_dict_range(&d, (QsCmpOp) op, probe, pl, probe, pl);

		for (i = 0; i < d.nvalues; i++)
		{
			int			c = qs_cmp_bytes(ptrs[i], lens[i], probe, pl, NULL);
			int			want = op == QS_OP_EQ ? c == 0 : op == QS_OP_NE ? c != 0 :
			op == QS_OP_LT ? c < 0 : op == QS_OP_LE ? c <= 0 : op == QS_OP_GT ? c > 0 :
			op == QS_OP_GE ? c >= 0 : c == 0;
			int			got = r.kind == QS_RANGE_ALL ? 1 : r.kind == QS_RANGE_NONE ? 0 :
			r.kind == QS_RANGE_IN ? (i >= r.lo && i <= r.hi) : (i < r.lo || i > r.hi);

			FZ_ASSERT(want == got);
		}
	}
	free(ptrs);
	free(lens);
	return 0;
}
