/*-------------------------------------------------------------------------
 *
 * bitpack.c
 *	  Bit-packing and unpacking of codes at widths 1..64, the serialized
 *	  stripe format, and the paper-000 padded 1/2/4-byte variant.
 *
 * src/codec/bitpack.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/bitpack.h"

#define QS_ALWAYS_INLINE inline __attribute__((always_inline))

/*
 * Full unrolling makes the block kernels fast but is expensive to compile
 * under the sanitizers (minutes per file with clang ASan+UBSan); fuzz
 * builds get the same loops rolled.
 */
#if defined(__SANITIZE_ADDRESS__)
#define QS_NO_UNROLL 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QS_NO_UNROLL 1
#endif
#endif
#ifdef QS_NO_UNROLL
#define QS_UNROLL(n)
#else
#define QS_UNROLL_STR(x) #x
#define QS_UNROLL(n) _Pragma(QS_UNROLL_STR(GCC unroll n))
#endif

static QS_ALWAYS_INLINE void
pack_any(const uint32_t *in32, const uint64_t *in64, size_t n, int width,
		 uint8_t *out)
{
	uint64_t	mask = width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;
	uint64_t	acc = 0;
	unsigned	nacc = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint64_t	v = (in32 ? (uint64_t) in32[i] : in64[i]) & mask;

		acc |= v << nacc;
		nacc += width;
		if (nacc >= 64)
		{
			qs_store64(out, acc);
			out += 8;
			nacc -= 64;
			/* the part of v that did not fit; width - nacc is in 1..64 */
			acc = nacc ? v >> (width - nacc) : 0;
		}
	}
	if (nacc)
		qs_store64(out, acc);
}

/*
 * 64 codes at width w fill exactly w 64-bit words, so with a compile-time
 * w every code's word index and shift inside such a block are constants.
 * The block kernels below are fully unrolled on that basis: no branches,
 * no loop-carried bit position; the switches further down instantiate them
 * for every width 1..32.
 */
static QS_ALWAYS_INLINE void
pack_block64(const uint32_t *in, const int w, uint8_t *q)
{
	const uint64_t mask = (UINT64_C(1) << w) - 1;
	uint64_t	words[32];
	int			j;

QS_UNROLL(64)
	for (j = 0; j < 64; j++)
	{
		const unsigned bit = j * w;
		const unsigned wd = bit >> 6;
		const unsigned off = bit & 63;
		uint64_t	v = in[j] & mask;

		if (off == 0)
			words[wd] = v;
		else
			words[wd] |= v << off;
		if (off + w > 64)
			words[wd + 1] = v >> (64 - off);
	}
QS_UNROLL(32)
	for (j = 0; j < w; j++)
		qs_store64(q + 8 * j, words[j]);
}

static QS_ALWAYS_INLINE void
unpack_block64(const uint8_t *q, const int w, uint32_t *out)
{
	const uint64_t mask = (UINT64_C(1) << w) - 1;
	int			j;

QS_UNROLL(64)
	for (j = 0; j < 64; j++)
	{
		const unsigned bit = j * w;
		const unsigned wd = bit >> 6;
		const unsigned off = bit & 63;
		uint64_t	v = qs_load64(q + 8 * wd) >> off;

		if (off + w > 64)
			v |= qs_load64(q + 8 * wd + 8) << (64 - off);
		out[j] = (uint32_t) (v & mask);
	}
}

/*
 * Whole blocks of 64 codes through the unrolled kernel, the rest through
 * the accumulator.  (Packing every block with the accumulator instead
 * halves this file's compile time but made merge step 2 about 1.5x slower.)
 */
static QS_ALWAYS_INLINE void
pack32_w(const uint32_t *in, size_t n, const int w, uint8_t *out)
{
	size_t		i = 0;

	for (; i + 64 <= n; i += 64)
		pack_block64(in + i, w, out + (i / 64) * w * 8);
	if (i < n)
		pack_any(in + i, NULL, n - i, w, out + (i / 64) * w * 8);
}

/*
 * One function per width, reached through a table: a single switch with 32
 * inlined unrolled instantiations is one huge function, which is slow to
 * compile; 32 medium ones are not.
 */
#define DEF_WIDTH_FNS(W) \
static void pack32_f##W(const uint32_t *in, size_t n, uint8_t *out) \
{ pack32_w(in, n, W, out); } \
static void unpack32_f##W(const uint8_t *p, size_t start, size_t n, uint32_t *out) \
{ unpack32_w(p, W, start, n, out); }

/*
 * Unpack with a compile-time width: single codes up to the next multiple
 * of 64, then whole unrolled blocks, then single codes again.
 */
static QS_ALWAYS_INLINE void
unpack32_w(const uint8_t *p, const int w, size_t start, size_t n, uint32_t *out)
{
	const uint64_t mask = (UINT64_C(1) << w) - 1;
	size_t		i = 0;

	for (; i < n && (start + i) % 64 != 0; i++)
		out[i] = (uint32_t) qs_bitpack_get(p, w, start + i);
	for (; i + 64 <= n; i += 64)
		unpack_block64(p + ((start + i) / 64) * w * 8, w, out + i);
	for (; i < n; i++)
	{
		uint64_t	bit = (uint64_t) (start + i) * w;
		size_t		word = bit >> 6;
		unsigned	off = bit & 63;
		uint64_t	v = qs_load64(p + word * 8) >> off;

		if (off + w > 64)
			v |= qs_load64(p + word * 8 + 8) << (64 - off);
		out[i] = (uint32_t) (v & mask);
	}
}

DEF_WIDTH_FNS(1) DEF_WIDTH_FNS(2) DEF_WIDTH_FNS(3) DEF_WIDTH_FNS(4)
DEF_WIDTH_FNS(5) DEF_WIDTH_FNS(6) DEF_WIDTH_FNS(7) DEF_WIDTH_FNS(8)
DEF_WIDTH_FNS(9) DEF_WIDTH_FNS(10) DEF_WIDTH_FNS(11) DEF_WIDTH_FNS(12)
DEF_WIDTH_FNS(13) DEF_WIDTH_FNS(14) DEF_WIDTH_FNS(15) DEF_WIDTH_FNS(16)
DEF_WIDTH_FNS(17) DEF_WIDTH_FNS(18) DEF_WIDTH_FNS(19) DEF_WIDTH_FNS(20)
DEF_WIDTH_FNS(21) DEF_WIDTH_FNS(22) DEF_WIDTH_FNS(23) DEF_WIDTH_FNS(24)
DEF_WIDTH_FNS(25) DEF_WIDTH_FNS(26) DEF_WIDTH_FNS(27) DEF_WIDTH_FNS(28)
DEF_WIDTH_FNS(29) DEF_WIDTH_FNS(30) DEF_WIDTH_FNS(31) DEF_WIDTH_FNS(32)

#define WIDTH_TABLE(P) { NULL, \
	P##1, P##2, P##3, P##4, P##5, P##6, P##7, P##8, \
	P##9, P##10, P##11, P##12, P##13, P##14, P##15, P##16, \
	P##17, P##18, P##19, P##20, P##21, P##22, P##23, P##24, \
	P##25, P##26, P##27, P##28, P##29, P##30, P##31, P##32 }

static void (*const pack32_fns[33]) (const uint32_t *, size_t, uint8_t *) =
WIDTH_TABLE(pack32_f);
static void (*const unpack32_fns[33]) (const uint8_t *, size_t, size_t, uint32_t *) =
WIDTH_TABLE(unpack32_f);

void
qs_bitpack_pack32(const uint32_t *in, size_t n, int width, uint8_t *out)
{
	if (width >= 1 && width <= 32)
		pack32_fns[width] (in, n, out);
	else
		pack_any(in, NULL, n, width, out);
}

void
qs_bitpack_pack64(const uint64_t *in, size_t n, int width, uint8_t *out)
{
	pack_any(NULL, in, n, width, out);
}

void
qs_bitpack_unpack32(const uint8_t *packed, int width, size_t start, size_t n,
					uint32_t *out)
{
	if (width >= 1 && width <= 32)
		unpack32_fns[width] (packed, start, n, out);
	else
	{
		size_t		i;

		/* widths above 32 do not fit the output; truncate */
		for (i = 0; i < n; i++)
			out[i] = (uint32_t) qs_bitpack_get(packed, width, start + i);
	}
}

void
qs_bitpack_unpack64(const uint8_t *packed, int width, size_t start, size_t n,
					uint64_t *out)
{
	size_t		i;

	if (width >= 1 && width <= 32)
	{
		uint32_t	buf[256];

		/*
		 * Through the width's unrolled kernel (FOR residues of int4
		 * columns): a third of the instructions of one
		 * qs_bitpack_get per code.
		 */
		for (i = 0; i < n; i += 256)
		{
			size_t		cnt = n - i < 256 ? n - i : 256,
						j;

			unpack32_fns[width] (packed, start + i, cnt, buf);
			for (j = 0; j < cnt; j++)
				out[i + j] = buf[j];
		}
		return;
	}
	for (i = 0; i < n; i++)
		out[i] = qs_bitpack_get(packed, width, start + i);
}

size_t
qs_bitpack_serialized_size(size_t n, int width)
{
	return QS_BITPACK_HDRSZ + qs_bitpack_bytes(n, width);
}

/* the QS_BITPACK_HDRSZ-byte header of n codes of 'width' bits (1..32) */
void
qs_bitpack_write_header(size_t n, int width, uint8_t *out)
{
	qs_store32(out, QS_BITPACK_MAGIC);
	qs_store16(out + 4, QS_BITPACK_VERSION);
	out[6] = (uint8_t) width;
	out[7] = 0;
	qs_store64(out + 8, (uint64_t) n);
}

QsCodecStatus
qs_bitpack_serialize32(const uint32_t *codes, size_t n, int width,
					   uint8_t *out, size_t outcap, size_t *outlen,
					   QsCodecErr *err)
{
	size_t		need;

	if (width < 1 || width > 32)
		return qs_codec_error(err, QS_CODEC_INVALID, "bit width %d out of range 1..32", width);
	need = qs_bitpack_serialized_size(n, width);
	if (outcap < need)
		return qs_codec_error(err, QS_CODEC_NOSPACE, "need %zu bytes, have %zu", need, outcap);
	qs_bitpack_write_header(n, width, out);
	qs_bitpack_pack32(codes, n, width, out + QS_BITPACK_HDRSZ);
	*outlen = need;
	return QS_CODEC_OK;
}

QsCodecStatus
qs_bitpack_open(const uint8_t *buf, size_t len, QsPackedView *view,
				QsCodecErr *err)
{
	uint64_t	count;
	int			width;

	if (len < QS_BITPACK_HDRSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bitpack stripe shorter than header");
	if (qs_load32(buf) != QS_BITPACK_MAGIC)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad bitpack magic");
	if (qs_load16(buf + 4) != QS_BITPACK_VERSION)
		return qs_codec_error(err, QS_CODEC_BAD_VERSION, "bitpack version %u", qs_load16(buf + 4));
	width = buf[6];
	if (width < 1 || width > 64 || buf[7] != 0)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bad bitpack width %d", width);
	count = qs_load64(buf + 8);
	/* bound count before multiplying so that the size cannot overflow */
	if (count > (uint64_t) (len - QS_BITPACK_HDRSZ) * 8 ||
		qs_bitpack_bytes((size_t) count, width) != len - QS_BITPACK_HDRSZ)
		return qs_codec_error(err, QS_CODEC_CORRUPT, "bitpack length mismatch");
	view->width = width;
	view->count = (size_t) count;
	view->data = buf + QS_BITPACK_HDRSZ;
	return QS_CODEC_OK;
}

void
qs_padded_pack(const uint32_t *in, size_t n, int bytes, uint8_t *out)
{
	size_t		i;

	if (bytes == 1)
		for (i = 0; i < n; i++)
			out[i] = (uint8_t) in[i];
	else if (bytes == 2)
		for (i = 0; i < n; i++)
			qs_store16(out + 2 * i, (uint16_t) in[i]);
	else
		memcpy(out, in, n * 4);
}

void
qs_padded_unpack(const uint8_t *in, int bytes, size_t start, size_t n,
				 uint32_t *out)
{
	size_t		i;

	if (bytes == 1)
		for (i = 0; i < n; i++)
			out[i] = in[start + i];
	else if (bytes == 2)
		for (i = 0; i < n; i++)
			out[i] = qs_load16(in + 2 * (start + i));
	else
		memcpy(out, in + 4 * start, n * 4);
}
