/*-------------------------------------------------------------------------
 *
 * lz4chunk.h
 *	  Variable-width values in independently LZ4-compressed chunks, small
 *	  enough (by default 64 values or 4 KB raw, whichever fills first) that
 *	  fetching one value decompresses one small chunk.
 *
 * Serialized format, version 1 (little-endian):
 *	  header (24 bytes): u32 magic "QSLZ", u16 version = 1, u16 flags = 0,
 *		u64 nvalues, u32 nchunks, u32 max_raw (largest raw chunk)
 *	  index: nchunks entries of 16 bytes: u32 first value number,
 *		u32 offset of the chunk in the data area, u32 stored length
 *		(bit 31 set: stored uncompressed), u32 raw length
 *	  data area: the chunks back to back; the blob ends with the last one.
 *	  A raw chunk is nvals u32 lengths followed by the values' bytes.
 *
 * qs_lz4chunk_open checks the header and the whole index (first value
 * numbers strictly increasing from 0, chunks contiguous and inside the
 * blob, raw lengths bounded by max_raw); each chunk is checked again when
 * decompressed (exact LZ4 output length, lengths adding up), so a corrupt
 * blob yields QS_CODEC_CORRUPT, never an out-of-bounds read.
 *
 * include/codec/lz4chunk.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_LZ4CHUNK_H
#define QS_CODEC_LZ4CHUNK_H

#include "codec/codec.h"

#define QS_LZ4CHUNK_MAGIC		0x5a4c5351	/* "QSLZ" */
#define QS_LZ4CHUNK_VERSION		1
#define QS_LZ4CHUNK_HDRSZ		24
#define QS_LZ4CHUNK_ENTRYSZ		16
#define QS_LZ4CHUNK_STORED		0x80000000u
#define QS_LZ4CHUNK_MAX_VALUES	4096	/* per chunk, enforced on decode */
#define QS_LZ4CHUNK_DEF_VALUES	64
#define QS_LZ4CHUNK_DEF_BYTES	4096

/*
 * Encode vals (fixed or variable width) into a blob allocated with alloc.
 * A chunk is closed once it holds chunk_values values or chunk_bytes raw
 * bytes (a single larger value gets a chunk of its own).  0 = defaults.
 */
extern QsCodecStatus qs_lz4chunk_encode(const QsValues *vals, uint32_t chunk_values,
										uint32_t chunk_bytes,
										const QsCodecAllocator *alloc,
										uint8_t **blob, size_t *bloblen,
										QsCodecErr *err);

/*
 * The same, giving up as soon as the stripe reaches stop_at bytes: then
 * *blob is NULL and *bloblen (>= stop_at) a lower bound of its length.
 */
extern QsCodecStatus qs_lz4chunk_encode_limit(const QsValues *vals,
											  uint32_t chunk_values,
											  uint32_t chunk_bytes, size_t stop_at,
											  const QsCodecAllocator *alloc,
											  uint8_t **blob, size_t *bloblen,
											  QsCodecErr *err);

/*
 * Reader.  After qs_lz4chunk_open, point scratch at max_raw bytes of the
 * caller's memory; the reader keeps the last decompressed chunk there, so
 * sequential and clustered access decompress each chunk once.
 */
typedef struct QsLz4Reader
{
	const uint8_t *buf;
	size_t		len;
	uint64_t	nvalues;
	uint32_t	nchunks;
	uint32_t	max_raw;
	const uint8_t *index;
	const uint8_t *data;
	size_t		data_len;
	uint8_t    *scratch;		/* caller-provided, >= max_raw bytes */
	/* state of the chunk in scratch */
	int64_t		cur_chunk;		/* -1: none */
	uint64_t	cur_first;
	uint32_t	cur_nvals;
	uint32_t	cur_pos;		/* value cursor within the chunk ... */
	size_t		cur_off;		/* ... and its byte offset */
} QsLz4Reader;

extern QsCodecStatus qs_lz4chunk_open(const uint8_t *buf, size_t len,
									  QsLz4Reader *r, QsCodecErr *err);

/* Fetch value i; *val points into r->scratch until the next call. */
extern QsCodecStatus qs_lz4chunk_get(QsLz4Reader *r, uint64_t i,
									 const uint8_t **val, size_t *len,
									 QsCodecErr *err);

#endif							/* QS_CODEC_LZ4CHUNK_H */
