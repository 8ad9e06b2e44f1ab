/*
 * bench_codec.c - micro-benchmarks of the codec library.
 *
 *   bench_codec pred  [--quick] [--reps N]   > codec_pred.csv
 *   bench_codec merge [--quick] [--reps N]   > codec_merge.csv
 *   bench_codec size  [--quick]              > codec_size.csv
 *
 * Every timed figure is measured reps times (default 5) and reported as
 * median, min and max, each together with its baseline measured in the same
 * repetition (memcpy bandwidth for predicates, the naive merge for the
 * merge) and the ratio to it.  See bench/codec/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "codec/bitpack.h"
#include "codec/choose.h"
#include "codec/dict.h"
#include "codec/merge.h"

static int	quick = 0;
static int	reps = 5;

static uint64_t rng = 0x1234567;

static uint64_t
rnd(void)
{
	uint64_t	z = (rng += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (!p)
	{
		fprintf(stderr, "out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static void *
b_alloc(void *ctx, size_t sz)
{
	return xmalloc(sz);
}

static void
b_free(void *ctx, void *p)
{
	free(p);
}

static const QsCodecAllocator balloc = {b_alloc, b_free, NULL};

static int
cmp_dbl(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

typedef struct Stat
{
	double		med,
				min,
				max;
} Stat;

static Stat
stat_of(double *v, int n)
{
	Stat		s;
	double	   *t = xmalloc(n * sizeof(double));

	memcpy(t, v, n * sizeof(double));
	qsort(t, n, sizeof(double), cmp_dbl);
	s.min = t[0];
	s.max = t[n - 1];
	s.med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	free(t);
	return s;
}

/* ---------------------------------------------------------------- memcpy */

static uint8_t *mc_src,
		   *mc_dst;
static size_t mc_size;

/* bytes copied per second (a copy reads and writes that many bytes) */
static double
memcpy_bw(void)
{
	double		t0,
				t1;

	/* buffers are faulted in by memcpy_setup; one copy per measurement */
	t0 = now_ns();
	memcpy(mc_dst, mc_src, mc_size);
	t1 = now_ns();
	return (double) mc_size / ((t1 - t0) * 1e-9);
}

static void
memcpy_setup(void)
{
	mc_size = (size_t) 256 << 20;
	mc_src = xmalloc(mc_size);
	mc_dst = xmalloc(mc_size);
	memset(mc_src, 1, mc_size);
	memset(mc_dst, 2, mc_size);
}

/* ------------------------------------------------------------ predicates */

enum
{
	V_SWAR,
	V_AVX2,
	V_PORTABLE,
	V_UNPACK,
	V_SCALAR,
	V_PADDED,
	NV
};
static const char *vname[NV] = {"dispatch", "avx2", "swar_portable", "unpack_compare", "scalar", "padded"};

static const char *
path_name(int v, int w)
{
	if (v == V_SWAR)
		return qs_pred_have_avx2() ? "avx2" : qs_pred_have_bmi2() ? "swar_bmi2" : "swar";
	if (v == V_AVX2)
		return qs_pred_have_avx2() ? "avx2" : "swar";
	if (v == V_PORTABLE)
		return "swar";
	if (v == V_PADDED)
		return qs_pred_have_avx2() ? "avx2" : "portable";
	return "portable";
}

static void
bench_pred(void)
{
	static const int widths[] = {4, 8, 13, 17, 27};
	size_t		n = quick ? ((size_t) 16 << 20) : ((size_t) 64 << 20);
	uint32_t   *codes = xmalloc(n * 4);
	uint64_t   *bm = xmalloc(qs_bitmap_words(n) * 8 + 8);
	int			wi;

	memcpy_setup();
	printf("width,variant,path,n_codes,bytes_per_code,selectivity,"
		   "gbps_med,gbps_min,gbps_max,memcpy_gbps_med,ratio_med,ratio_min,ratio_max,codes_per_ns_med\n");
	for (wi = 0; wi < 5; wi++)
	{
		int			w = widths[wi];
		uint32_t	maxc = (uint32_t) ((UINT64_C(1) << w) - 1);
		uint32_t	target = maxc / 2 + 1;
		size_t		pbytes = qs_bitpack_bytes(n, w);
		uint8_t    *packed = xmalloc(pbytes + 8);
		int			pb = qs_padded_bytes_for_width(w);
		uint8_t    *padded = xmalloc(n * pb + 8);
		size_t		i,
					matches;
		int			v,
					r;
		double		gbps[NV][64],
					ratio[NV][64],
					mbw[NV * 64];

		/* 1 % of the codes equal target, the rest are uniform over the others */
		for (i = 0; i < n; i++)
		{
			uint64_t	x = rnd();

			if (x % 100 == 0)
				codes[i] = target;
			else
			{
				codes[i] = (uint32_t) ((x >> 8) % maxc);
				if (codes[i] >= target)
					codes[i]++;
			}
		}
		qs_bitpack_pack32(codes, n, w, packed);
		qs_padded_pack(codes, n, pb, padded);
		qs_pred_range_packed_scalar(packed, w, 0, n, target, target, bm);
		matches = qs_bitmap_count(bm, n);

		for (r = 0; r < reps; r++)
		{
			for (v = 0; v < NV; v++)
			{
				double		t0,
							t1,
							bytes = (v == V_PADDED) ? (double) n * pb : (double) pbytes;

				/*
				 * The baseline is measured right before each variant: this
				 * box is shared, and available bandwidth drifts within a run.
				 */
				mbw[r * NV + v] = memcpy_bw();
				t0 = now_ns();
				switch (v)
				{
					case V_SWAR:
						qs_pred_range_packed(packed, w, 0, n, target, target, bm);
						break;
					case V_AVX2:
						qs_pred_range_packed_avx2(packed, w, 0, n, target, target, bm);
						break;
					case V_PORTABLE:
						qs_pred_range_packed_portable(packed, w, 0, n, target, target, bm);
						break;
					case V_UNPACK:
						qs_pred_range_packed_unpack(packed, w, 0, n, target, target, bm);
						break;
					case V_SCALAR:
						qs_pred_range_packed_scalar(packed, w, 0, n, target, target, bm);
						break;
					case V_PADDED:
						qs_pred_range_padded(padded, pb, n, target, target, bm);
						break;
				}
				t1 = now_ns();
				if (qs_bitmap_count(bm, n) != matches)
				{
					fprintf(stderr, "pred variant %s width %d: wrong result\n", vname[v], w);
					exit(1);
				}
				gbps[v][r] = bytes / (t1 - t0);
				ratio[v][r] = gbps[v][r] / (mbw[r * NV + v] * 1e-9);
			}
		}
		for (v = 0; v < NV; v++)
		{
			Stat		g = stat_of(gbps[v], reps),
						q = stat_of(ratio[v], reps),
						m = stat_of(mbw, reps * NV);
			double		bpc = v == V_PADDED ? pb : (double) w / 8;

			printf("%d,%s,%s,%zu,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.3f\n",
				   w, vname[v], path_name(v, w),
				   n, bpc, (double) matches / n, g.med, g.min, g.max, m.med * 1e-9,
				   q.med, q.min, q.max, g.med / bpc);
		}
		fflush(stdout);
		free(packed);
		free(padded);
	}
	free(codes);
	free(bm);
}

/* ----------------------------------------------------------------- merge */

/* 16-byte values: (hi, lo) pairs of uint64 */
static int
cmp_u128(const void *a, size_t al, const void *b, size_t bl, void *arg)
{
	uint64_t	x[2],
				y[2];

	memcpy(x, a, 16);
	memcpy(y, b, 16);
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* value number k as an E-byte value whose order is k's order */
static void
make_value(uint8_t *out, int E, uint64_t k)
{
	if (E == 4)
	{
		uint32_t	v = (uint32_t) k;

		memcpy(out, &v, 4);
	}
	else if (E == 8)
	{
		uint64_t	v = k * 1000003;

		memcpy(out, &v, 8);
	}
	else
	{
		uint64_t	v[2] = {k >> 20, k * 7919};

		memcpy(out, v, 16);
	}
}

static void
shuffle32(uint32_t *a, size_t n)
{
	size_t		i;

	for (i = n; i > 1; i--)
	{
		size_t		j = rnd() % i;
		uint32_t	t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

static void
bench_merge(void)
{
	static const int Es[] = {4, 8, 16};
	static const int pcts[] = {1, 100};
	size_t		nm = quick ? 1000000 : 10000000;
	size_t		nds[2];
	int			ei,
				pi,
				di;

	nds[0] = quick ? 100000 : 1000000;
	nds[1] = quick ? 300000 : 3000000;
	memcpy_setup();
	printf("value_bytes,pct_distinct,n_main,n_delta,unique_main,unique_delta,unique_merged,old_width,new_width,"
		   "step1_ns_med,step1_ns_min,step1_ns_max,step1_cyc_med,"
		   "step2_linear_ns_med,step2_linear_ns_min,step2_linear_ns_max,step2_linear_cyc_med,"
		   "step2_naive_ns_med,step2_naive_ns_min,step2_naive_ns_max,step2_naive_cyc_med,"
		   "speedup_step2_med,speedup_step2_min,speedup_step2_max,"
		   "speedup_total_med,speedup_total_min,speedup_total_max,"
		   "step2_bw_bound_ns,step2_over_bound_med,memcpy_gbps_med\n");
	for (pi = 0; pi < 2; pi++)
		for (ei = 0; ei < 3; ei++)
		{
			int			E = Es[ei],
						pct = pcts[pi];
			/* the codec's own comparators: its radix sort applies to them */
			QsCmpFn		cmp = E == 4 ? qs_cmp_uint32 : E == 8 ? qs_cmp_uint64 : cmp_u128;
			uint32_t	um = (uint32_t) (nm * pct / 100);
			uint32_t   *mcodes = xmalloc(nm * 4);
			uint8_t    *mblob = xmalloc(qs_dict_serialized_size(um, E, 0));
			QsDictWriter dw;
			QsDict		md;
			int			mw = qs_bits_needed(um - 1);
			uint8_t    *mpacked = xmalloc(qs_bitpack_bytes(nm, mw) + 8);
			size_t		i;
			uint8_t		vbuf[16];

			/* main: codes uniform over um values (a permutation at 100 %), value(c) = 2c */
			if (pct == 100)
			{
				for (i = 0; i < nm; i++)
					mcodes[i] = (uint32_t) i;
				shuffle32(mcodes, nm);
			}
			else
				for (i = 0; i < nm; i++)
					mcodes[i] = (uint32_t) (rnd() % um);
			qs_dict_writer_init(&dw, mblob, E, um);
			for (i = 0; i < um; i++)
			{
				make_value(vbuf, E, 2 * (uint64_t) i);
				qs_dict_writer_add(&dw, vbuf, E);
			}
			if (qs_dict_open(mblob, qs_dict_writer_finish(&dw), cmp, NULL, false, &md, NULL) != QS_CODEC_OK)
				exit(1);
			qs_bitpack_pack32(mcodes, nm, mw, mpacked);
			free(mcodes);

			for (di = 0; di < 2; di++)
			{
				size_t		nd = nds[di];
				uint32_t	ud = (uint32_t) (nd * pct / 100);
				uint8_t    *dvals = xmalloc(nd * E);
				uint32_t   *perm = xmalloc(nd * 4);
				QsValues	dv = {0};
				double		s1ns[64],
							s1cy[64],
							s2ns[64],
							s2cy[64],
							nvns[64],
							nvcy[64],
							sp2[64],
							spt[64],
							mbw[64];
				size_t		total = nm + nd;
				QsMergeStep1 s1;
				int			r;
				uint8_t    *out1,
						   *out2;
				size_t		outbytes = 0;
				uint32_t	umerged = 0;
				int			nw = 0;
				double		bound;

				/*
				 * delta: at 100 % all values distinct and new (odd numbers
				 * between main's); at 1 % drawn from 2*ud value numbers, so
				 * about half exist in main and half are new.
				 */
				for (i = 0; i < nd; i++)
					perm[i] = (uint32_t) i;
				if (pct == 100)
					shuffle32(perm, nd);
				for (i = 0; i < nd; i++)
				{
					uint64_t	k = pct == 100 ? 2 * (uint64_t) perm[i] * (nm / nd) + 1 : rnd() % (2 * (uint64_t) ud) * (um / ud);

					make_value(dvals + i * E, E, k);
				}
				free(perm);
				dv.n = nd;
				dv.width = E;
				dv.data = dvals;

				for (r = 0; r < reps; r++)
				{
					double		t0,
								t1;
					uint64_t	c0,
								c1;

					mbw[r] = memcpy_bw();
					t0 = now_ns();
					c0 = __rdtsc();
					/*
					 * every comparator here calls values equal only when
					 * their bytes are, as the backend's btequalimage
					 * columns (the only ones with dictionaries) do
					 */
					if (qs_merge_step1_ex(&md, &dv, QS_MERGE_IMAGE_EQUAL, &balloc, &s1, NULL) != QS_CODEC_OK)
						exit(1);
					c1 = __rdtsc();
					t1 = now_ns();
					s1ns[r] = (t1 - t0) / total;
					s1cy[r] = (double) (c1 - c0) / total;
					nw = s1.new_width;
					umerged = s1.new_dict.nvalues;
					outbytes = qs_bitpack_bytes(total, nw);
					out1 = xmalloc(outbytes + 8);
					out2 = xmalloc(outbytes + 8);
					memset(out1, 0, outbytes);
					memset(out2, 0, outbytes);

					t0 = now_ns();
					c0 = __rdtsc();
					if (qs_merge_step2(mpacked, mw, nm, &s1, out1, NULL) != QS_CODEC_OK)
						exit(1);
					c1 = __rdtsc();
					t1 = now_ns();
					s2ns[r] = (t1 - t0) / total;
					s2cy[r] = (double) (c1 - c0) / total;

					t0 = now_ns();
					c0 = __rdtsc();
					if (qs_merge_step2_naive(&md, mpacked, mw, nm, &dv, &s1.new_dict, nw, out2, NULL) != QS_CODEC_OK)
						exit(1);
					c1 = __rdtsc();
					t1 = now_ns();
					nvns[r] = (t1 - t0) / total;
					nvcy[r] = (double) (c1 - c0) / total;
					if (memcmp(out1, out2, outbytes) != 0)
					{
						fprintf(stderr, "merge: linear and naive outputs differ\n");
						exit(1);
					}
					sp2[r] = nvns[r] / s2ns[r];
					/* naive step 1 = the same dictionary work (sort + merge) */
					spt[r] = (s1ns[r] + nvns[r]) / (s1ns[r] + s2ns[r]);
					qs_merge_step1_free(&balloc, &s1);
					free(out1);
					free(out2);
				}

				/*
				 * Step 2 bandwidth bound: read the old packed main codes and
				 * the 4-byte delta codes, write the new packed column; at the
				 * memcpy rate (bytes read + written per second).
				 */
				{
					Stat		a = stat_of(s1ns, reps),
								ac = stat_of(s1cy, reps),
								b = stat_of(s2ns, reps),
								bc = stat_of(s2cy, reps),
								c = stat_of(nvns, reps),
								cc = stat_of(nvcy, reps),
								d = stat_of(sp2, reps),
								e = stat_of(spt, reps),
								m = stat_of(mbw, reps);

					bound = (qs_bitpack_bytes(nm, mw) + 4.0 * nd + outbytes) / m.med * 1e9 / total;
					printf("%d,%d,%zu,%zu,%u,%u,%u,%d,%d,"
						   "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,"
						   "%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.3f,%.2f,%.3f\n",
						   E, pct, nm, nd, um, ud, umerged, mw, nw,
						   a.med, a.min, a.max, ac.med, b.med, b.min, b.max, bc.med,
						   c.med, c.min, c.max, cc.med, d.med, d.min, d.max,
						   e.med, e.min, e.max, bound, b.med / bound, m.med * 1e-9);
					fflush(stdout);
				}
				free(dvals);
			}
			free(mblob);
			free(mpacked);
		}
}

/* ------------------------------------------------------------------ size */

static void
bench_size(void)
{
	size_t		rows = 1000000;
	size_t		block = 65536;
	int			col;
	int32_t    *v = xmalloc(rows * 4);

	(void) quick;
	printf("column,max_value,rows,block_rows,raw_bytes,chosen_bytes,chosen_bits_per_value,"
		   "plain_bytes,dict_bytes,dict_padded_bytes,for_bytes,for_delta_bytes,lz4_bytes,chosen_encodings\n");
	for (col = 1; col <= 10; col++)
	{
		double		lim = 1.0;
		int64_t		maxv;
		size_t		i,
					b;
		size_t		sums[QS_ENC_COUNT] = {0},
					chosen = 0;
		int			counts[QS_ENC_COUNT] = {0};
		char		encs[200] = "";
		int			e;

		/* uniform in 1 .. 2^(2.7 i), capped to the int4 range */
		for (i = 0; i < (size_t) col; i++)
			lim *= 6.498019170849885;	/* 2^2.7 */
		maxv = lim > 2147483647.0 ? 2147483647 : (int64_t) lim;
		for (i = 0; i < rows; i++)
			v[i] = (int32_t) (1 + rnd() % (uint64_t) maxv);
		for (b = 0; b < rows; b += block)
		{
			QsValues	qv = {0};
			QsChoice	c;

			qv.n = rows - b < block ? rows - b : block;
			qv.width = 4;
			qv.data = (const uint8_t *) (v + b);
			if (qs_choose_encoding(&qv, true, qs_cmp_int32, NULL, 0, QS_ENC_MASK_ALL, &balloc, &c, NULL) != QS_CODEC_OK)
				exit(1);
			for (e = 0; e < QS_ENC_COUNT; e++)
				sums[e] += c.size[e];
			chosen += c.size[c.best];
			counts[c.best]++;
		}
		for (e = 0; e < QS_ENC_COUNT; e++)
			if (counts[e])
			{
				char		t[40];

				snprintf(t, sizeof(t), "%s%s:%d", encs[0] ? " " : "", qs_encoding_name((QsEncoding) e), counts[e]);
				strcat(encs, t);
			}
		printf("%d,%lld,%zu,%zu,%zu,%zu,%.3f,%zu,%zu,%zu,%zu,%zu,%zu,%s\n",
			   col, (long long) maxv, rows, block, rows * 4, chosen, 8.0 * chosen / rows,
			   sums[QS_ENC_PLAIN], sums[QS_ENC_DICT], sums[QS_ENC_DICT_PADDED],
			   sums[QS_ENC_FOR], sums[QS_ENC_FOR_DELTA], sums[QS_ENC_LZ4], encs);
		fflush(stdout);
	}
	free(v);
}

int
main(int argc, char **argv)
{
	int			i;

	if (argc < 2)
	{
		fprintf(stderr, "usage: %s pred|merge|size [--quick] [--reps N]\n", argv[0]);
		return 2;
	}
	for (i = 2; i < argc; i++)
	{
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
	}
	if (reps < 1 || reps > 64)
		reps = 5;
	if (strcmp(argv[1], "pred") == 0)
		bench_pred();
	else if (strcmp(argv[1], "merge") == 0)
		bench_merge();
	else if (strcmp(argv[1], "size") == 0)
		bench_size();
	else
		return 2;
	return 0;
}
