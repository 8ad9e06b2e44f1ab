/*-------------------------------------------------------------------------
 *
 * for.c
 *	  Frame-of-reference and FOR-delta encoding of integer columns.
 *
 * Everything is computed in uint64_t: two's-complement wrap-around makes
 * v - min and v[i] - v[i-1] exact modulo 2^64, which is all the decoder
 * needs, and it keeps signed overflow (undefined in C) out of the picture
 * even for adversarial int64 input.
 *
 * src/codec/for.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/for.h"
#include "codec/bitpack.h"

/* Signed order on the two's-complement bit patterns. */
#define S_LT(a, b) ((int64_t) (a) < (int64_t) (b))

static inline __attribute__((always_inline)) uint64_t
value_at(const int32_t *v32, const int64_t *v64, size_t i)
{
	return v32 ? (uint64_t) (int64_t) v32[i] : (uint64_t) v64[i];
}

/*
 * One pass for min, max and the extreme deltas.  The first two values are
 * taken out of the loop, so that its body has no branch but the min/max
 * selections (and is instantiated once per value width): it runs once
 * per integer column of every block loaded (the chooser's, handed to the
 * encoder through QsChoice.for_info).
 */
static inline __attribute__((always_inline)) void
analyze_values(const int32_t *v32, const int64_t *v64, size_t n, QsForInfo *info)
{
	uint64_t	mn = 0,
				mx = 0,
				dmn = 0,
				dmx = 0,
				prev;
	size_t		i;

	if (n > 0)
	{
		mn = mx = prev = value_at(v32, v64, 0);
		if (n > 1)
		{
			uint64_t	x = value_at(v32, v64, 1);

			dmn = dmx = x - prev;
			mn = S_LT(x, mn) ? x : mn;
			mx = S_LT(mx, x) ? x : mx;
			prev = x;
		}
		for (i = 2; i < n; i++)
		{
			uint64_t	x = value_at(v32, v64, i);
			uint64_t	d = x - prev;

			mn = S_LT(x, mn) ? x : mn;
			mx = S_LT(mx, x) ? x : mx;
			dmn = S_LT(d, dmn) ? d : dmn;
			dmx = S_LT(dmx, d) ? d : dmx;
			prev = x;
		}
	}
	info->min = (int64_t) mn;
	info->first = n ? (int64_t) value_at(v32, v64, 0) : 0;
	info->dmin = (int64_t) dmn;
	info->for_width = qs_bits_needed(mx - mn);
	info->delta_width = qs_bits_needed(dmx - dmn);
	info->for_size = QS_FOR_HDRSZ + qs_bitpack_bytes(n, info->for_width);
	info->delta_size = QS_FOR_HDRSZ + qs_bitpack_bytes(n ? n - 1 : 0, info->delta_width);
}

static void
analyze(const int32_t *v32, const int64_t *v64, size_t n, QsForInfo *info)
{
	if (v32)
		analyze_values(v32, NULL, n, info);
	else
		analyze_values(NULL, v64, n, info);
}

void
qs_for_analyze32(const int32_t *v, size_t n, QsForInfo *info)
{
	analyze(v, NULL, n, info);
}

void
qs_for_analyze64(const int64_t *v, size_t n, QsForInfo *info)
{
	analyze(NULL, v, n, info);
}

static QsCodecStatus
encode(const int32_t *v32, const int64_t *v64, size_t n, QsForKind kind,
	   const QsForInfo *known, uint8_t *out, size_t outcap, size_t *outlen,
	   QsCodecErr *err)
{
	QsForInfo	info;
	size_t		need,
				i;
	int			width;
	uint64_t	mask,
				acc = 0,
				prev = 0;
	unsigned	nacc = 0;
	uint8_t    *p;

	if (kind != QS_FOR_PLAIN && kind != QS_FOR_DELTA)
		return qs_codec_error(err, QS_CODEC_INVALID, "unknown FOR kind %d", (int) kind);
	if (known)
		info = *known;
	else
		analyze(v32, v64, n, &info);
	need = kind == QS_FOR_PLAIN ? info.for_size : info.delta_size;
	width = kind == QS_FOR_PLAIN ? info.for_width : info.delta_width;
	if (outcap < need)
		return qs_codec_error(err, QS_CODEC_NOSPACE, "need %zu bytes, have %zu", need, outcap);

	memset(out, 0, QS_FOR_HDRSZ);
	qs_store32(out, QS_FOR_MAGIC);
	qs_store16(out + 4, QS_FOR_VERSION);
	out[6] = (uint8_t) kind;
	out[7] = v32 ? 4 : 8;
	out[8] = (uint8_t) width;
	qs_store64(out + 16, (uint64_t) n);
	qs_store64(out + 24, (uint64_t) (kind == QS_FOR_PLAIN ? info.min : info.first));
	qs_store64(out + 32, kind == QS_FOR_PLAIN ? 0 : (uint64_t) info.dmin);

	/* stream residues straight into the packed area, as bitpack.c does */
	mask = width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;
	p = out + QS_FOR_HDRSZ;
	for (i = 0; i < n; i++)
	{
		uint64_t	x = v32 ? (uint64_t) (int64_t) v32[i] : (uint64_t) v64[i];
		uint64_t	r;

		if (kind == QS_FOR_PLAIN)
			r = x - (uint64_t) info.min;
		else
		{
			uint64_t	d = x - prev;

			prev = x;
			if (i == 0)
				continue;
			r = d - (uint64_t) info.dmin;
		}
		r &= mask;
		acc |= r << nacc;
		nacc += width;
		if (nacc >= 64)
		{
			qs_store64(p, acc);
			p += 8;
			nacc -= 64;
			acc = nacc ? r >> (width - nacc) : 0;
		}
	}
	if (nacc)
		qs_store64(p, acc);
	*outlen = need;
	return QS_CODEC_OK;
}

QsCodecStatus
qs_for_encode32(const int32_t *v, size_t n, QsForKind kind, uint8_t *out,
				size_t outcap, size_t *outlen, QsCodecErr *err)
{
	return encode(v, NULL, n, kind, NULL, out, outcap, outlen, err);
}

QsCodecStatus
qs_for_encode64(const int64_t *v, size_t n, QsForKind kind, uint8_t *out,
				size_t outcap, size_t *outlen, QsCodecErr *err)
{
	return encode(NULL, v, n, kind, NULL, out, outcap, outlen, err);
}

/*
 * The same with the analysis the caller already made of these values
 * (qs_for_analyze32/64, or the chooser's QsChoice.for_info): one pass over
 * the values fewer per encoding.
 */
QsCodecStatus
qs_for_encode_analyzed(const void *v, int value_bytes, size_t n, QsForKind kind,
					   const QsForInfo *info, uint8_t *out, size_t outcap,
					   size_t *outlen, QsCodecErr *err)
{
	if (value_bytes != 4 && value_bytes != 8)
		return qs_codec_error(err, QS_CODEC_INVALID, "FOR values must be 4 or 8 bytes wide");
	return value_bytes == 4 ?
		encode((const int32_t *) v, NULL, n, kind, info, out, outcap, outlen, err) :
		encode(NULL, (const int64_t *) v, n, kind, info, out, outcap, outlen, err);
}

QsCodecStatus
qs_for_open(const uint8_t *buf, size_t len, QsForView *view, QsCodecErr *err)
{
	uint64_t	count,
				ncodes;
	int			kind,
				vbytes,
				width,
				i;

	if (len < QS_FOR_HDRSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "FOR stripe shorter than header");
	if (qs_load32(buf) != QS_FOR_MAGIC)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad FOR magic");
	if (qs_load16(buf + 4) != QS_FOR_VERSION)
		return qs_codec_error(err, QS_CODEC_BAD_VERSION, "FOR version %u", qs_load16(buf + 4));
	kind = buf[6];
	vbytes = buf[7];
	width = buf[8];
	if (kind > QS_FOR_DELTA || (vbytes != 4 && vbytes != 8))
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad FOR kind %d or value size %d", kind, vbytes);
	if (width < 1 || width > 64 ||
		(vbytes == 4 && width > (kind == QS_FOR_PLAIN ? 32 : 33)))
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad FOR width %d", width);
	for (i = 9; i < 16; i++)
		if (buf[i] != 0)
			return qs_codec_error(err, QS_CODEC_CORRUPT, "FOR reserved bytes not zero");
	count = qs_load64(buf + 16);
	if (kind == QS_FOR_PLAIN && qs_load64(buf + 32) != 0)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "FOR dmin not zero");
	if (count > (uint64_t) (len - QS_FOR_HDRSZ) * 8 + 1)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "FOR count too large");
	ncodes = kind == QS_FOR_PLAIN ? count : (count ? count - 1 : 0);
	if (qs_bitpack_bytes((size_t) ncodes, width) != len - QS_FOR_HDRSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "FOR length mismatch");
	view->kind = (QsForKind) kind;
	view->value_bytes = vbytes;
	view->width = width;
	view->count = (size_t) count;
	view->base = qs_load64(buf + 24);
	view->dmin = qs_load64(buf + 32);
	view->packed = buf + QS_FOR_HDRSZ;
	return QS_CODEC_OK;
}

/* Decode into uint64 bit patterns, 256 residues at a time. */
static void
decode_u64(const QsForView *v, size_t start, size_t n, int64_t *o64, int32_t *o32)
{
	uint64_t	buf[256];
	size_t		i;

	if (v->kind == QS_FOR_PLAIN)
	{
		uint32_t	b32[256];

		/*
		 * The base in a local: read through v in the loops, it was loaded
		 * again after every store (the output might alias the view), which
		 * kept them scalar, a third of a 10-column sequential scan's decode.
		 */
		const uint64_t base = v->base;

		/*
		 * One loop per residue width and output kind, base added in it: no
		 * test per value (residues of up to 32 bits through the width's
		 * unpack32 kernel).
		 */
		/*
		 * Groups of 8 with a constant inner trip count, then the rest: -O2's
		 * cost model vectorizes those (SSE2), not a loop of unknown count.
		 */
#define FOR_O32(res, x) o32[i + (x)] = (int32_t) (uint32_t) (base + (res)[x])
#define FOR_O64_4(res, x) o64[i + (x)] = (int64_t) (int32_t) (uint32_t) (base + (res)[x])
#define FOR_O64_8(res, x) o64[i + (x)] = (int64_t) (base + (res)[x])
#define FOR_OUT(res) \
		do { \
			if (o32) \
			{ \
				for (j = 0; j + 8 <= cnt; j += 8) \
					for (size_t q_ = j; q_ < j + 8; q_++) \
						FOR_O32(res, q_); \
				for (; j < cnt; j++) \
					FOR_O32(res, j); \
			} \
			else if (v->value_bytes == 4) \
			{ \
				for (j = 0; j + 8 <= cnt; j += 8) \
					for (size_t q_ = j; q_ < j + 8; q_++) \
						FOR_O64_4(res, q_); \
				for (; j < cnt; j++) \
					FOR_O64_4(res, j); \
			} \
			else \
			{ \
				for (j = 0; j + 8 <= cnt; j += 8) \
					for (size_t q_ = j; q_ < j + 8; q_++) \
						FOR_O64_8(res, q_); \
				for (; j < cnt; j++) \
					FOR_O64_8(res, j); \
			} \
		} while (0)
		for (i = 0; i < n; i += 256)
		{
			size_t		cnt = n - i < 256 ? n - i : 256,
						j;

			if (v->width <= 32)
			{
				qs_bitpack_unpack32(v->packed, v->width, start + i, cnt, b32);
				FOR_OUT(b32);
			}
			else
			{
				qs_bitpack_unpack64(v->packed, v->width, start + i, cnt, buf);
				FOR_OUT(buf);
			}
		}
#undef FOR_OUT
#undef FOR_O32
#undef FOR_O64_4
#undef FOR_O64_8
	}
	else
	{
		uint64_t	x = v->base;
		size_t		pos = 0,
					end = start + n;

		/* prefix sum from the first value: FOR-delta has no random access */
		while (pos < end)
		{
			size_t		cnt,
						j;

			if (pos == 0)
			{
				cnt = 0;
				buf[0] = 0;
			}
			else
			{
				cnt = end - pos < 256 ? end - pos : 256;
				qs_bitpack_unpack64(v->packed, v->width, pos - 1, cnt, buf);
			}
			for (j = 0; j < (pos == 0 ? 1 : cnt); j++)
			{
				size_t		p = pos + j;

				if (p > 0)
					x += v->dmin + buf[j];
				if (p >= start)
				{
					if (o64)
						o64[p - start] = (int64_t) (v->value_bytes == 4 ? (uint64_t) (int64_t) (int32_t) (uint32_t) x : x);
					else
						o32[p - start] = (int32_t) (uint32_t) x;
				}
			}
			pos += (pos == 0 ? 1 : cnt);
		}
	}
}

void
qs_for_decode64(const QsForView *view, size_t start, size_t n, int64_t *out)
{
	decode_u64(view, start, n, out, NULL);
}

void
qs_for_decode32(const QsForView *view, size_t start, size_t n, int32_t *out)
{
	decode_u64(view, start, n, NULL, out);
}
