/*-------------------------------------------------------------------------
 *
 * lz4chunk.c
 *	  Chunked LZ4 compression of variable-width values with an offsets
 *	  index for cheap random access.
 *
 * Chunks are small on purpose: paper 000 stores variable-width data so
 * that a point access (index lookup, late materialization) costs one small
 * decompression, not a whole stripe.  Values and their lengths share a
 * chunk so that one LZ4 call yields both.
 *
 * src/codec/lz4chunk.c
 *
 *-------------------------------------------------------------------------
 */
#include <lz4.h>

#include "codec/lz4chunk.h"

/* Close a chunk here?  Shared by the sizing and the writing pass. */
static inline int
chunk_full(uint32_t nv, size_t raw, uint32_t maxv, uint32_t maxb)
{
	return nv >= maxv || raw >= maxb;
}

QsCodecStatus
qs_lz4chunk_encode(const QsValues *vals, uint32_t chunk_values,
				   uint32_t chunk_bytes, const QsCodecAllocator *alloc,
				   uint8_t **blob, size_t *bloblen, QsCodecErr *err)
{
	return qs_lz4chunk_encode_limit(vals, chunk_values, chunk_bytes, SIZE_MAX,
									alloc, blob, bloblen, err);
}

QsCodecStatus
qs_lz4chunk_encode_limit(const QsValues *vals, uint32_t chunk_values,
						 uint32_t chunk_bytes, size_t stop_at,
						 const QsCodecAllocator *alloc,
						 uint8_t **blob, size_t *bloblen, QsCodecErr *err)
{
	size_t		n = vals->n;
	size_t		i,
				nchunks = 0,
				max_raw = 0,
				bound = 0,
				raw = 0;
	uint32_t	nv = 0;
	uint8_t    *out,
			   *scratch,
			   *index,
			   *data;
	LZ4_stream_t *stream;
	size_t		dpos = 0,
				first = 0,
				c = 0;

	if (chunk_values == 0)
		chunk_values = QS_LZ4CHUNK_DEF_VALUES;
	if (chunk_bytes == 0)
		chunk_bytes = QS_LZ4CHUNK_DEF_BYTES;
	if (chunk_values > QS_LZ4CHUNK_MAX_VALUES)
		return qs_codec_error(err, QS_CODEC_INVALID, "chunk_values %u above %u",
							  chunk_values, QS_LZ4CHUNK_MAX_VALUES);

	/* pass 1: chunk boundaries, largest raw chunk, output bound */
	for (i = 0; i < n; i++)
	{
		const uint8_t *p;
		size_t		len;

		qs_values_get(vals, i, &p, &len);
		raw += 4 + len;
		nv++;
		if (chunk_full(nv, raw, chunk_values, chunk_bytes) || i == n - 1)
		{
			if (raw > (size_t) LZ4_MAX_INPUT_SIZE)
				return qs_codec_error(err, QS_CODEC_INVALID, "chunk of %zu bytes too large for LZ4", raw);
			if (raw > max_raw)
				max_raw = raw;
			bound += (size_t) LZ4_compressBound((int) raw) > raw ?
				(size_t) LZ4_compressBound((int) raw) : raw;
			nchunks++;
			raw = 0;
			nv = 0;
		}
	}
	if (nchunks > UINT32_MAX || n > UINT32_MAX)
		return qs_codec_error(err, QS_CODEC_INVALID, "too many values for one LZ4 stripe");
	*blob = NULL;
	*bloblen = QS_LZ4CHUNK_HDRSZ + nchunks * QS_LZ4CHUNK_ENTRYSZ;
	if (*bloblen >= stop_at)
		return QS_CODEC_OK;

	out = alloc->alloc(alloc->ctx, QS_LZ4CHUNK_HDRSZ + nchunks * QS_LZ4CHUNK_ENTRYSZ + bound);
	scratch = alloc->alloc(alloc->ctx, max_raw ? max_raw : 1);
	stream = alloc->alloc(alloc->ctx, sizeof(LZ4_stream_t));
	if (out == NULL || scratch == NULL || stream == NULL)
	{
		if (out)
			alloc->free(alloc->ctx, out);
		if (scratch)
			alloc->free(alloc->ctx, scratch);
		if (stream)
			alloc->free(alloc->ctx, stream);
		return qs_codec_error(err, QS_CODEC_NOMEM, "out of memory for LZ4 stripe");
	}

	/*
	 * One compression state for all chunks, initialized once and reset
	 * cheaply per chunk: LZ4_compress_default() clears its 16 kB state for
	 * every chunk of 64 values, which cost more than compressing them.
	 * After LZ4_resetStream_fast() a chunk depends on no earlier one.
	 */
	if (LZ4_initStream(stream, sizeof(LZ4_stream_t)) == NULL)
	{
		alloc->free(alloc->ctx, out);
		alloc->free(alloc->ctx, scratch);
		alloc->free(alloc->ctx, stream);
		return qs_codec_error(err, QS_CODEC_LZ4_ERROR, "LZ4_initStream failed");
	}
	qs_store32(out, QS_LZ4CHUNK_MAGIC);
	qs_store16(out + 4, QS_LZ4CHUNK_VERSION);
	qs_store16(out + 6, 0);
	qs_store64(out + 8, (uint64_t) n);
	qs_store32(out + 16, (uint32_t) nchunks);
	qs_store32(out + 20, (uint32_t) max_raw);
	index = out + QS_LZ4CHUNK_HDRSZ;
	data = index + nchunks * QS_LZ4CHUNK_ENTRYSZ;

	/* pass 2: same boundaries; assemble each raw chunk and compress it */
	raw = 0;
	nv = 0;
	for (i = 0; i < n; i++)
	{
		const uint8_t *p;
		size_t		len;

		qs_values_get(vals, i, &p, &len);
		raw += 4 + len;
		nv++;
		if (chunk_full(nv, raw, chunk_values, chunk_bytes) || i == n - 1)
		{
			size_t		j,
						pos = 4 * (size_t) nv;
			int			clen;
			uint8_t    *e = index + c * QS_LZ4CHUNK_ENTRYSZ;

			if (vals->width > 0)
			{
				/* fixed width: the lengths, then the values in one copy */
				for (j = first; j <= i; j++)
					qs_store32(scratch + 4 * (j - first), vals->width);
				memcpy(scratch + pos, vals->data + first * vals->width,
					   (size_t) nv * vals->width);
			}
			else
				for (j = first; j <= i; j++)
				{
					const uint8_t *q;
					size_t		ql;

					qs_values_get(vals, j, &q, &ql);
					qs_store32(scratch + 4 * (j - first), (uint32_t) ql);
					if (ql)
						memcpy(scratch + pos, q, ql);
					pos += ql;
				}
			LZ4_resetStream_fast(stream);
			clen = LZ4_compress_fast_continue(stream, (const char *) scratch,
											  (char *) data + dpos, (int) raw,
											  LZ4_compressBound((int) raw), 1);
			if (clen <= 0)
			{
				alloc->free(alloc->ctx, out);
				alloc->free(alloc->ctx, scratch);
				alloc->free(alloc->ctx, stream);
				return qs_codec_error(err, QS_CODEC_LZ4_ERROR, "LZ4 compression failed");
			}
			qs_store32(e, (uint32_t) first);
			qs_store32(e + 4, (uint32_t) dpos);
			if ((size_t) clen >= raw)
			{
				/* incompressible: keep it raw, decoding is then a memcpy */
				memcpy(data + dpos, scratch, raw);
				qs_store32(e + 8, (uint32_t) raw | QS_LZ4CHUNK_STORED);
				dpos += raw;
			}
			else
			{
				qs_store32(e + 8, (uint32_t) clen);
				dpos += (size_t) clen;
			}
			qs_store32(e + 12, (uint32_t) raw);
			c++;
			if ((size_t) (data - out) + dpos >= stop_at)
			{
				/* the stripe so far is already too long: give up */
				alloc->free(alloc->ctx, out);
				alloc->free(alloc->ctx, scratch);
				alloc->free(alloc->ctx, stream);
				*bloblen = (size_t) (data - out) + dpos;
				return QS_CODEC_OK;
			}
			first = i + 1;
			raw = 0;
			nv = 0;
		}
	}
	alloc->free(alloc->ctx, scratch);
	alloc->free(alloc->ctx, stream);
	*blob = out;
	*bloblen = (size_t) (data - out) + dpos;
	return QS_CODEC_OK;
}

QsCodecStatus
qs_lz4chunk_open(const uint8_t *buf, size_t len, QsLz4Reader *r, QsCodecErr *err)
{
	uint64_t	nvalues;
	uint32_t	nchunks,
				max_raw,
				k;
	uint64_t	idxbytes;
	uint64_t	expect_off = 0;
	uint32_t	seen_max = 0;

	if (len < QS_LZ4CHUNK_HDRSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 stripe shorter than header");
	if (qs_load32(buf) != QS_LZ4CHUNK_MAGIC)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad LZ4 stripe magic");
	if (qs_load16(buf + 4) != QS_LZ4CHUNK_VERSION)
		return qs_codec_error(err, QS_CODEC_BAD_VERSION, "LZ4 stripe version %u", qs_load16(buf + 4));
	if (qs_load16(buf + 6) != 0)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 stripe flags not zero");
	nvalues = qs_load64(buf + 8);
	nchunks = qs_load32(buf + 16);
	max_raw = qs_load32(buf + 20);
	idxbytes = (uint64_t) nchunks * QS_LZ4CHUNK_ENTRYSZ;
	if (idxbytes > len - QS_LZ4CHUNK_HDRSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk index truncated");
	if ((nvalues == 0) != (nchunks == 0) || nvalues > (uint64_t) nchunks * QS_LZ4CHUNK_MAX_VALUES)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 value count %llu inconsistent with %u chunks",
							  (unsigned long long) nvalues, nchunks);
	if (max_raw > (uint32_t) LZ4_MAX_INPUT_SIZE)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 max_raw too large");

	r->buf = buf;
	r->len = len;
	r->nvalues = nvalues;
	r->nchunks = nchunks;
	r->max_raw = max_raw;
	r->index = buf + QS_LZ4CHUNK_HDRSZ;
	r->data = r->index + idxbytes;
	r->data_len = len - QS_LZ4CHUNK_HDRSZ - (size_t) idxbytes;
	r->scratch = NULL;
	r->cur_chunk = -1;

	for (k = 0; k < nchunks; k++)
	{
		const uint8_t *e = r->index + (size_t) k * QS_LZ4CHUNK_ENTRYSZ;
		uint32_t	first = qs_load32(e);
		uint32_t	off = qs_load32(e + 4);
		uint32_t	stored = qs_load32(e + 8);
		uint32_t	slen = stored & ~QS_LZ4CHUNK_STORED;
		uint32_t	rawlen = qs_load32(e + 12);
		uint64_t	next = k + 1 < nchunks ? qs_load32(e + QS_LZ4CHUNK_ENTRYSZ) : nvalues;
		uint64_t	nv;

		if ((k == 0 && first != 0) || next <= first)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk %u: bad first value", k);
		nv = next - first;
		if (nv > QS_LZ4CHUNK_MAX_VALUES || rawlen > max_raw || rawlen < 4 * nv)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk %u: bad sizes", k);
		if ((stored & QS_LZ4CHUNK_STORED) && slen != rawlen)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk %u: stored length mismatch", k);

		/*
		 * LZ4 cannot expand by more than 255x (each extra match-length byte
		 * yields 255 bytes), so a tiny blob cannot make the caller allocate
		 * a huge scratch buffer.
		 */
		if (!(stored & QS_LZ4CHUNK_STORED) && rawlen > (uint64_t) slen * 255 + 64)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk %u: impossible ratio", k);
		if (rawlen > seen_max)
			seen_max = rawlen;
		if (off != expect_off || (uint64_t) off + slen > r->data_len || slen == 0)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk %u: bad offset", k);
		expect_off = (uint64_t) off + slen;
	}
	if (expect_off != r->data_len)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 stripe length mismatch");
	if (seen_max != max_raw)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 max_raw %u is not the largest chunk", max_raw);
	return QS_CODEC_OK;
}

static QsCodecStatus
load_chunk(QsLz4Reader *r, uint32_t k, QsCodecErr *err)
{
	const uint8_t *e = r->index + (size_t) k * QS_LZ4CHUNK_ENTRYSZ;
	uint32_t	first = qs_load32(e);
	uint32_t	off = qs_load32(e + 4);
	uint32_t	stored = qs_load32(e + 8);
	uint32_t	slen = stored & ~QS_LZ4CHUNK_STORED;
	uint32_t	rawlen = qs_load32(e + 12);
	uint64_t	next = k + 1 < r->nchunks ? qs_load32(e + QS_LZ4CHUNK_ENTRYSZ) : r->nvalues;
	uint32_t	nv = (uint32_t) (next - first);
	uint64_t	sum = 0;
	uint32_t	j;

	r->cur_chunk = -1;
	if (stored & QS_LZ4CHUNK_STORED)
		memcpy(r->scratch, r->data + off, rawlen);
	else
	{
		int			got = LZ4_decompress_safe((const char *) r->data + off,
											  (char *) r->scratch, (int) slen, (int) rawlen);

		if (got != (int) rawlen)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk %u does not decompress to %u bytes", k, rawlen);
	}
	for (j = 0; j < nv; j++)
		sum += qs_load32(r->scratch + 4 * (size_t) j);
	if (sum != rawlen - 4 * (uint64_t) nv)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "LZ4 chunk %u: value lengths do not add up", k);
	r->cur_chunk = k;
	r->cur_first = first;
	r->cur_nvals = nv;
	r->cur_pos = 0;
	r->cur_off = 4 * (size_t) nv;
	return QS_CODEC_OK;
}

QsCodecStatus
qs_lz4chunk_get(QsLz4Reader *r, uint64_t i, const uint8_t **val, size_t *len,
				QsCodecErr *err)
{
	uint32_t	pos;

	if (i >= r->nvalues)
		return qs_codec_error(err, QS_CODEC_INVALID, "value %llu out of range", (unsigned long long) i);
	if (r->scratch == NULL && r->max_raw > 0)
		return qs_codec_error(err, QS_CODEC_INVALID, "LZ4 reader has no scratch buffer");
	if (r->cur_chunk < 0 || i < r->cur_first || i >= r->cur_first + r->cur_nvals)
	{
		/* binary search: last chunk whose first value is <= i */
		uint32_t	lo = 0,
					hi = r->nchunks - 1;
		QsCodecStatus st;

		while (lo < hi)
		{
			uint32_t	mid = lo + (hi - lo + 1) / 2;

			if (qs_load32(r->index + (size_t) mid * QS_LZ4CHUNK_ENTRYSZ) <= i)
				lo = mid;
			else
				hi = mid - 1;
		}
		st = load_chunk(r, lo, err);
		if (st != QS_CODEC_OK)
			return st;
	}
	pos = (uint32_t) (i - r->cur_first);
	if (pos < r->cur_pos)
	{
		r->cur_pos = 0;
		r->cur_off = 4 * (size_t) r->cur_nvals;
	}
	while (r->cur_pos < pos)
	{
		r->cur_off += qs_load32(r->scratch + 4 * (size_t) r->cur_pos);
		r->cur_pos++;
	}
	*len = qs_load32(r->scratch + 4 * (size_t) pos);
	*val = r->scratch + r->cur_off;
	return QS_CODEC_OK;
}
