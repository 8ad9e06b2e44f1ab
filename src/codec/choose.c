/*-------------------------------------------------------------------------
 *
 * choose.c
 *	  Pick a column block's encoding from the exact encoded sizes.
 *
 * Exact sizes, not estimates: the encoder runs on a block that is being
 * sealed, so the values are at hand, and building the dictionary (a sort)
 * or compressing with LZ4 once more is cheap next to writing the block.
 *
 * src/codec/choose.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/choose.h"
#include "codec/bitpack.h"
#include "codec/dict.h"
#include "codec/for.h"
#include "codec/lz4chunk.h"

const char *
qs_encoding_name(QsEncoding e)
{
	switch (e)
	{
		case QS_ENC_PLAIN:
			return "plain";
		case QS_ENC_FOR:
			return "for";
		case QS_ENC_FOR_DELTA:
			return "for_delta";
		case QS_ENC_DICT:
			return "dict";
		case QS_ENC_DICT_PADDED:
			return "dict_padded";
		case QS_ENC_LZ4:
			return "lz4";
		case QS_ENC_COUNT:
			break;
	}
	return "unknown";
}

QsCodecStatus
qs_choose_encoding(const QsValues *vals, bool is_int, QsCmpFn cmp, void *cmp_arg,
				   unsigned allowed, const QsCodecAllocator *alloc,
				   QsChoice *choice, QsCodecErr *err)
{
	size_t		n = vals->n;
	int			e;

	memset(choice, 0, sizeof(*choice));
	if (is_int && vals->width != 4 && vals->width != 8)
		return qs_codec_error(err, QS_CODEC_INVALID, "integer columns must be 4 or 8 bytes wide");

	choice->considered[QS_ENC_PLAIN] = true;
	if (vals->width > 0)
		choice->size[QS_ENC_PLAIN] = n * vals->width;
	else
	{
		size_t		i,
					bytes = 0;

		for (i = 0; i < n; i++)
			bytes += vals->lens[i];
		choice->size[QS_ENC_PLAIN] = 4 * (n + 1) + bytes;
	}

	if (is_int && (allowed & (QS_ENC_MASK(QS_ENC_FOR) | QS_ENC_MASK(QS_ENC_FOR_DELTA))))
	{
		QsForInfo	info;

		/* FOR reads int32/int64 arrays directly, so they must be aligned */
		if (vals->width == 4 && ((uintptr_t) vals->data % 4) == 0)
			qs_for_analyze32((const int32_t *) vals->data, n, &info);
		else if (vals->width == 8 && ((uintptr_t) vals->data % 8) == 0)
			qs_for_analyze64((const int64_t *) vals->data, n, &info);
		else
			return qs_codec_error(err, QS_CODEC_INVALID, "integer values must be naturally aligned");
		if (allowed & QS_ENC_MASK(QS_ENC_FOR))
		{
			choice->considered[QS_ENC_FOR] = true;
			choice->size[QS_ENC_FOR] = info.for_size;
		}
		if (allowed & QS_ENC_MASK(QS_ENC_FOR_DELTA))
		{
			choice->considered[QS_ENC_FOR_DELTA] = true;
			choice->size[QS_ENC_FOR_DELTA] = info.delta_size;
		}
		choice->for_width = info.for_width;
		choice->delta_width = info.delta_width;
	}

	if (allowed & (QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_DICT_PADDED)))
	{
		uint8_t    *blob;
		size_t		bloblen;
		QsCodecStatus st;
		uint32_t	nd;
		int			w;

		st = qs_dict_build(vals, cmp, cmp_arg, alloc, &blob, &bloblen, NULL, err);
		if (st != QS_CODEC_OK)
			return st;
		nd = qs_load32(blob + 8);
		alloc->free(alloc->ctx, blob);
		w = qs_bits_needed(nd > 0 ? nd - 1 : 0);
		choice->ndistinct = nd;
		choice->dict_width = w;
		if (w <= 32 && (allowed & QS_ENC_MASK(QS_ENC_DICT)))
		{
			choice->considered[QS_ENC_DICT] = true;
			choice->size[QS_ENC_DICT] = bloblen + qs_bitpack_serialized_size(n, w);
		}
		if (w <= 32 && (allowed & QS_ENC_MASK(QS_ENC_DICT_PADDED)))
		{
			choice->considered[QS_ENC_DICT_PADDED] = true;
			choice->size[QS_ENC_DICT_PADDED] = bloblen + n * qs_padded_bytes_for_width(w);
		}
	}

	if (allowed & QS_ENC_MASK(QS_ENC_LZ4))
	{
		uint8_t    *blob;
		size_t		bloblen;
		QsCodecStatus st;

		st = qs_lz4chunk_encode(vals, 0, 0, alloc, &blob, &bloblen, err);
		if (st != QS_CODEC_OK)
			return st;
		alloc->free(alloc->ctx, blob);
		choice->considered[QS_ENC_LZ4] = true;
		choice->size[QS_ENC_LZ4] = bloblen;
	}

	choice->best = QS_ENC_PLAIN;
	for (e = 1; e < QS_ENC_COUNT; e++)
		if (choice->considered[e] && choice->size[e] < choice->size[choice->best])
			choice->best = (QsEncoding) e;
	return QS_CODEC_OK;
}
