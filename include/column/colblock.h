/*-------------------------------------------------------------------------
 *
 * colblock.h
 *	  The self-describing column block of quickstep_column tables (paper 000
 *	  section 2): one immutable byte image holding a header, and per column
 *	  a NULL bitmap, a dictionary and a value stripe encoded by the codec
 *	  library, plus optional index sub-blocks; stored over a run of 8 kB
 *	  pages of the relation's main fork.
 *
 * Like the codec library this module is plain C without backend calls, so
 * the same file is unit tested, fuzzed and compiled into the extension.
 * The reader validates every byte it hands out: a damaged image yields
 * QS_CODEC_CORRUPT (or QS_CODEC_BAD_VERSION) with a message naming what is
 * wrong; the backend turns that into ERRCODE_DATA_CORRUPTED naming the
 * relation and block.  See src/column/README.md for the design.
 *
 * Image format, version 1 (little-endian; every offset is from the start
 * of the image, every section offset a multiple of 8):
 *
 *	 fixed header (64 bytes)
 *	   0 u32 magic "QSCB"   4 u16 version = 1   6 u16 flags (0)
 *	   8 u32 header_len (fixed part + descriptors + min/max area, mult. of 8)
 *	  12 u32 block_id (the directory's id of this block, also in each page)
 *	  16 u64 image_len   24 u32 nrows   28 u16 ncols   30 u16 nindexes
 *	  32 i16 sort_col (-1: none)   34 u16 0   36 u32 page payload (8152)
 *	  40..59 zero   60 u32 CRC-32C of [0, header_len) with bytes 60..63 zero
 *	 ncols column descriptors (104 bytes each)
 *	   0 i16 typlen (> 0 fixed, -1 varlena, -2 cstring)   2 u8 typbyval
 *	   3 u8 typalign ('c' 's' 'i' 'd')   4 u8 encoding (QsEncoding)
 *	   5 u8 code bytes (DICT_PADDED: 1, 2 or 4; else 0)   6 u16 flags
 *	   8 u32 nvalues (non-NULL rows)   12 u32 0
 *	  16 three sections {u64 offset, u64 length, u32 CRC-32C, u32 0}:
 *		 NULL bitmap, dictionary, stripe (an empty section is all zero)
 *	  88 u32 min offset, u32 min length, u32 max offset, u32 max length
 *		 (into the header; both 0 unless HAS_MINMAX)
 *	 nindexes index descriptors (32 bytes each)
 *	   0 u16 column   2 u16 kind (2 = TID map, 3 = CSB+-tree over codes,
 *		 4 = CSB+-tree over FOR integers, 5 = origin xmins,
 *		 6 = origin TIDs)   4 u32 0
 *	   8 section {u64 offset, u64 length, u32 CRC-32C, u32 0}
 *	 min/max area: the values' bytes
 *	 sections, in descriptor order (col 0 nulls, dict, stripe, col 1 ...,
 *	 then index sub-blocks), each at or after the end of the previous one;
 *	 padding between them is zero.
 *
 * Sections: the NULL bitmap is qs_bitmap_words(nrows) little-endian 64-bit
 * words, bit set = value present (heap's convention), bits past nrows
 * zero; absent when the column has no NULL.  Stripes hold the nvalues
 * non-NULL values only, in row order:
 *	 PLAIN		 fixed: nvalues * typlen bytes; variable: (nvalues + 1) u32
 *				 offsets (0, non-decreasing, last = data length) then data
 *	 FOR, FOR_DELTA  codec QSFR stripe (typlen 4 or 8, by value)
 *	 DICT		 codec QSDC dictionary + QSBP stripe of codes (< nvalues of
 *				 the dictionary, checked on open)
 *	 DICT_PADDED codec QSDC dictionary + nvalues codes of "code bytes"
 *	 LZ4		 codec QSLZ stripe
 * A variable-width value is its bytes without varlena header or
 * terminating NUL (the backend re-forms the datum).
 *
 * Pages: the image is cut into QS_COLPAGE_PAYLOAD-byte pieces, piece k at
 * byte QS_COLPAGE_HDR of page k of the run; pd_lower marks its end (as
 * GIN data pages do, so full-page images drop the unused tail) and a
 * 16-byte special space {u32 magic "QSCP", u32 block_id, u32 page number
 * in the run, u32 pages in the run} ties the page to its block.
 *
 * include/column/colblock.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_COLBLOCK_H
#define QS_COLUMN_COLBLOCK_H

#include <stdbool.h>

#include "codec/codec.h"
#include "codec/bitpack.h"
#include "codec/choose.h"
#include "codec/dict.h"
#include "codec/for.h"
#include "codec/lz4chunk.h"

#define QS_COLBLOCK_MAGIC		0x42435351	/* "QSCB" */
#define QS_COLBLOCK_VERSION		1
#define QS_COLBLOCK_FIXEDSZ		64
#define QS_COLBLOCK_COLDESCSZ	104
#define QS_COLBLOCK_IDXDESCSZ	32

/*
 * Limits.  Rows: 4096 virtual pages of 291 TIDs (MaxHeapTuplesPerPage) per
 * block; columns: MaxHeapAttributeNumber; min/max values longer than
 * QS_COLBLOCK_MAX_MINMAX are not kept (the column then has no min/max);
 * the header is bounded by these (< 1 MB); the image by u32 page numbers.
 */
#define QS_COLBLOCK_TIDS_PER_PAGE	291
#define QS_COLBLOCK_MAX_ROWS	(QS_COLBLOCK_TIDS_PER_PAGE * 4096)
#define QS_COLBLOCK_MAX_COLS	1600
#define QS_COLBLOCK_MAX_INDEXES 64
#define QS_COLBLOCK_MAX_MINMAX	256
#define QS_COLBLOCK_MAX_TYPLEN	8192
#define QS_COLBLOCK_MAX_HEADER	(1 << 20)
#define QS_COLBLOCK_MAX_IMAGE	(UINT64_C(1) << 42)

/* column descriptor flags */
#define QS_COLDESC_HAS_NULLS	0x0001	/* NULL bitmap present */
#define QS_COLDESC_HAS_MINMAX	0x0002	/* min and max present */
#define QS_COLDESC_SORTED		0x0004	/* values ascending in row order */
#define QS_COLDESC_KNOWN_FLAGS	0x0007

/* the three sections of a column */
#define QS_COLSEC_NULLS			0
#define QS_COLSEC_DICT			1
#define QS_COLSEC_STRIPE		2
#define QS_COLSEC_COUNT			3

#define QS_COLINDEX_CSBTREE		1
/*
 * The TID map of a sorted image: a serialized bit-packed stripe (codec
 * bitpack.h) of nrows entries, entry p = the TID row number of the row at
 * physical position p; a permutation of 0..nrows-1.  At most one, column
 * 0.  An image without one is the identity (position = TID row).
 */
#define QS_COLINDEX_TIDMAP		2
/*
 * A CSB+-tree over the codes of a DICT or DICT_PADDED column: every
 * non-NULL row's (code, position), format in column/colblock_csb.h.
 * Written by seals for the columns of quickstep.index_columns.  (Kind 1
 * is the reservation of the first format: its bytes are only
 * checksummed, and nothing writes it.)
 */
#define QS_COLINDEX_CSBCODES	3
/*
 * A CSB+-tree over the integers of a FOR column (by-value, 4 or 8 bytes):
 * the same format as kind 3, each entry's code the row's value minus the
 * column's minimum in this header (which is FOR's base, so the codes are
 * FOR's packed residues), every code below 0xFFFFFFFF.  A probe turns a
 * qual's integer range into codes with the header's min/max alone.  Written
 * by seals for the FOR columns of quickstep.index_columns; images written
 * before it was defined never carry it and read as before.
 */
#define QS_COLINDEX_CSBINTS		4
/*
 * The rows' origin xmins (THE RULE, src/merge/README.md): for every row, in
 * TID row order (not physical position, so a sorted seal carries it as it
 * is), the xid that inserted the row into the table's delta before a merge
 * moved it into a block, or 0 where the block entry's own xmin is the
 * row's (a bulk load's rows; seals and rewrites give every row its shown
 * xmin, bulk-loaded ones included), and with it the row's origin command
 * id: the raw t_cid its delta version had (heap shows it as cmin and cmax,
 * issue 12), or what the source row showed (seals, rewrites); 0 with an
 * xid of 0.  Read only by the xmin, cmin and cmax system columns, never by
 * visibility.  Exactly nrows values, each xid 0 or from QS_ORIGIN_MIN_XID
 * (FrozenTransactionId: a row whose inserter a build that predates the
 * section lost) to 2^32 - 1, in one of two forms, the builder takes the
 * smaller:
 *   FOR:  a codec FOR stripe (QSFR, FOR, 8-byte values), a value a row:
 *         xid | (uint64) cid << 32, so that a block whose rows all have
 *         command 0 pays nothing for them (images written before the
 *         command ids have 0 there and read as before); the high 32 bits
 *         are 0 where the low ones are;
 *   runs: u32 QS_ORIGIN_XMIN_RUNS, u32 nruns, then per run {u32 first
 *         row, u32 xid, u32 cid}: the first run starts at row 0, first
 *         rows increase and stay below nrows, neighbours differ in xid or
 *         cid, cid 0 where xid is (rows a merge moved from one inserter's
 *         statement share both, so a block of big batches costs bytes per
 *         batch, not per row).
 * At most one, on column 0.  Images written before it was defined never
 * carry it; a build that predates it reads an image with it as corrupt (as
 * with kind 4), one that predates the runs form such a section.
 */
#define QS_COLINDEX_ORIGIN_XMIN	5
#define QS_ORIGIN_MIN_XID		2	/* FrozenTransactionId */
#define QS_ORIGIN_XMIN_RUNS		0x58524f51	/* "QORX" */
/*
 * The rows' origin TIDs (SERIALIZABLE, src/merge/README.md section 2): for
 * every row a merge moved into the block, the TID its delta version had, so
 * that a write of the main copy checks the SIREAD locks readers took on the
 * delta version (predicate.c cannot move them).  In TID row order, carried
 * from version to version and through seals as the origin xmins are.  Two
 * forms, whichever is smaller (the builder picks):
 *
 *	 0 u32 form
 *	 form 1 (runs; a merge appends rows in delta order, so a delta page's
 *	 rows are one run):
 *	   4 u32 nruns, then nruns runs of 16 bytes
 *		 {u32 first_row, u32 page, u16 first_off, u16 span, u32 bitmap_at},
 *	   then the bitmaps: run k's rows are first_row .. first_row + n - 1,
 *	   n the number of bits set in its ceil(span / 8) bytes at bitmap_at
 *	   (from the section's start); its j-th row's offset is first_off plus
 *	   the position of the j-th set bit.  Runs in first_row order, disjoint,
 *	   inside the block; bitmaps tight, in run order, bit 0 and bit span - 1
 *	   set, no bit past span; rows in no run have none.
 *	 form 2 (pages; a sorted new block scatters them):
 *	   4 u32 npages   8 u32 offbits, then npages u32 page numbers strictly
 *	   ascending, then a codec FOR stripe (QSFR, FOR, 8-byte values) of
 *	   exactly nrows values: 0 (none) or (k << offbits) | off, k < npages,
 *	   1 <= off < 2^offbits.
 *
 * Offsets are 1 .. QS_ORIGIN_MAX_OFF, pages below QS_ORIGIN_PAGE_LIMIT
 * (virtual TIDs are above it: a delta TID is a real page's).  At most one,
 * on column 0.  A build that predates it reads an image with it as corrupt.
 */
#define QS_COLINDEX_ORIGIN_TID	6
#define QS_ORIGIN_TID_RUNS		1
#define QS_ORIGIN_TID_PAGES		2
#define QS_ORIGIN_MAX_OFF		2048	/* MaxOffsetNumber at 8 kB */
#define QS_ORIGIN_PAGE_LIMIT	0x80000000u

/* pages */
#define QS_COLPAGE_SIZE			8192
#define QS_COLPAGE_HDR			24	/* SizeOfPageHeaderData */
#define QS_COLPAGE_SPECIAL		16
#define QS_COLPAGE_PAYLOAD		(QS_COLPAGE_SIZE - QS_COLPAGE_HDR - QS_COLPAGE_SPECIAL)
#define QS_COLPAGE_MAGIC		0x50435351	/* "QSCP" */

/* CRC-32C (Castagnoli), the same value as PostgreSQL's pg_crc32c. */
extern uint32_t qs_crc32c(uint32_t crc, const void *data, size_t len);

#define QS_CRC32C_INIT			0xFFFFFFFFu
#define QS_CRC32C_FINISH(c)		((c) ^ 0xFFFFFFFFu)

/* ---------------------------------------------------------------------
 * Building
 * ---------------------------------------------------------------------
 */

/* A column's physical type, from pg_attribute/pg_type. */
typedef struct QsColType
{
	int16_t		typlen;
	bool		typbyval;
	char		typalign;
} QsColType;

/* One encoded column, as given to the serializer. */
typedef struct QsColBlockColumn
{
	QsColType	type;
	uint8_t		encoding;		/* QsEncoding */
	uint8_t		code_bytes;		/* DICT_PADDED only */
	uint16_t	flags;			/* QS_COLDESC_SORTED; the others are derived */
	uint32_t	nvalues;		/* non-NULL rows */
	const uint64_t *nulls;		/* presence bitmap of nrows bits, or NULL */
	const uint8_t *dict;
	size_t		dict_len;
	const uint8_t *stripe;
	size_t		stripe_len;
	const uint8_t *min;			/* NULL: no min/max */
	uint32_t	min_len;
	const uint8_t *max;
	uint32_t	max_len;
} QsColBlockColumn;

typedef struct QsColBlockIndex
{
	uint16_t	column;
	uint16_t	kind;
	const uint8_t *data;
	size_t		len;
} QsColBlockIndex;

typedef struct QsColBlockSpec
{
	uint32_t	block_id;
	uint32_t	nrows;
	uint16_t	ncols;
	int16_t		sort_col;		/* -1: none */
	const QsColBlockColumn *cols;
	uint16_t	nindexes;
	const QsColBlockIndex *indexes;
} QsColBlockSpec;

/*
 * Encode the n non-NULL values of one column with encoding enc through the
 * codec library (dictionary build, bit-packing, FOR, LZ4) into buffers
 * allocated with alloc; fills every field of *out except nulls and flags.
 * With cmp (the column's btree order) min and max are computed and kept
 * if not longer than QS_COLBLOCK_MAX_MINMAX; without, there is no min/max
 * and DICT encodings are refused.  A column without values is PLAIN.
 */
extern QsCodecStatus qs_colblock_encode_column(const QsValues *vals, QsColType type,
											   QsEncoding enc, QsCmpFn cmp, void *cmp_arg,
											   const QsCodecAllocator *alloc,
											   QsColBlockColumn *out, QsCodecErr *err);

/*
 * What the caller knows that saves work, for qs_colblock_encode_column_ex:
 * lz4, the LZ4 stripe of vals already made (the chooser's trial,
 * QS_CHOOSE_KEEP_LZ4; enc must be LZ4), taken over by the column (freed
 * with it, or at once on error); image_equal, cmp calls values equal only
 * when their bytes are the same (a dictionary is then built over the
 * distinct values only: qs_dict_build_image).  The image is the same.
 */
typedef struct QsColEncodeHints
{
	uint8_t    *lz4;
	size_t		lz4_len;
	bool		image_equal;
	const QsForInfo *for_info;	/* the chooser's FOR analysis of these
								 * values, or NULL */
} QsColEncodeHints;

extern QsCodecStatus qs_colblock_encode_column_ex(const QsValues *vals, QsColType type,
												  QsEncoding enc,
												  const QsColEncodeHints *hints,
												  QsCmpFn cmp, void *cmp_arg,
												  const QsCodecAllocator *alloc,
												  QsColBlockColumn *out, QsCodecErr *err);
extern void qs_colblock_column_free(const QsCodecAllocator *alloc, QsColBlockColumn *col);

/* Exact image size of spec, after checking it as the reader would. */
extern QsCodecStatus qs_colblock_image_size(const QsColBlockSpec *spec, size_t *len,
											QsCodecErr *err);

/* Serialize spec into out (outcap bytes; qs_colblock_image_size long). */
extern QsCodecStatus qs_colblock_serialize(const QsColBlockSpec *spec, uint8_t *out,
										   size_t outcap, size_t *outlen,
										   QsCodecErr *err);

/* ---------------------------------------------------------------------
 * Reading
 * ---------------------------------------------------------------------
 */

typedef struct QsColBlockSection
{
	uint64_t	off;
	uint64_t	len;
	uint32_t	crc;
} QsColBlockSection;

typedef struct QsColBlockColDesc
{
	QsColType	type;
	uint8_t		encoding;
	uint8_t		code_bytes;
	uint16_t	flags;
	uint32_t	nvalues;
	QsColBlockSection sec[QS_COLSEC_COUNT];
	const uint8_t *min;			/* into the header; NULL if no min/max */
	uint32_t	min_len;
	const uint8_t *max;
	uint32_t	max_len;
} QsColBlockColDesc;

/* A validated header; points into the caller's header bytes. */
typedef struct QsColBlock
{
	const uint8_t *hdr;
	uint32_t	header_len;
	uint32_t	block_id;
	uint64_t	image_len;
	uint32_t	nrows;
	uint16_t	ncols;
	uint16_t	nindexes;
	int16_t		sort_col;
} QsColBlock;

/*
 * From the first QS_COLBLOCK_FIXEDSZ bytes: check magic, version and the
 * lengths, and return how many header bytes to read.  Lets a reader fetch
 * the first page, then exactly the header, then only the sections it needs.
 */
extern QsCodecStatus qs_colblock_peek(const uint8_t *buf, size_t len,
									  uint32_t *header_len, uint64_t *image_len,
									  QsCodecErr *err);

/*
 * Validate the whole header (len >= header_len bytes): checksum, counts,
 * limits, every descriptor (types, encodings, flags, section bounds inside
 * the image, in order and not overlapping, min/max inside the header).
 */
extern QsCodecStatus qs_colblock_open(const uint8_t *buf, size_t len, QsColBlock *blk,
									  QsCodecErr *err);

/* Descriptor of column col (< ncols) of an opened block. */
extern void qs_colblock_coldesc(const QsColBlock *blk, int col, QsColBlockColDesc *d);

/* Index sub-block i (< nindexes): its column, kind and section. */
extern void qs_colblock_index(const QsColBlock *blk, int i, uint16_t *column,
							  uint16_t *kind, QsColBlockSection *sec);

/*
 * Point sec[] at column col's sections inside a whole image held in memory
 * (image_len bytes, as qs_colblock_open checked against the header).
 */
extern void qs_colblock_column_sections(const QsColBlock *blk, const uint8_t *image,
										int col, const uint8_t *sec[QS_COLSEC_COUNT]);

/* Check an index sub-block's checksum; sec points at its bytes. */
extern QsCodecStatus qs_colblock_check_index(const QsColBlock *blk, int i,
											 const uint8_t *sec, QsCodecErr *err);

/* The index of the block's TID map sub-block, or -1 (identity). */
extern int	qs_colblock_tidmap_index(const QsColBlock *blk);

/*
 * Decode and check TID map sub-block i (sec: its bytes): checksum, a
 * bit-packed stripe of exactly nrows entries, a permutation of
 * 0..nrows-1.  row_of_pos receives nrows entries; pos_of_row (if not
 * NULL) the inverse.
 */
extern QsCodecStatus qs_colblock_tidmap_decode(const QsColBlock *blk, int i,
											   const uint8_t *sec, uint32_t *row_of_pos,
											   uint32_t *pos_of_row, QsCodecErr *err);

/*
 * The TID map sub-block of row_of_pos[0..nrows-1] (a permutation), in a
 * buffer from alloc of *len bytes.
 */
extern uint8_t *qs_colblock_tidmap_build(const uint32_t *row_of_pos, uint32_t nrows,
										 const QsCodecAllocator *alloc, size_t *len);

/* The index of the block's origin xmin sub-block, or -1 (none). */
extern int	qs_colblock_origin_index(const QsColBlock *blk);

/* An opened origin xmin sub-block (qs_colblock_origin_open). */
typedef struct QsOriginView
{
	uint32_t	nruns;			/* runs form: its runs; FOR form: 0 */
	const uint8_t *runs;		/* runs form: the first run */
	QsForView	forv;			/* FOR form */
} QsOriginView;

/* bytes of a run of the runs form: {first row, xid, cid} */
#define QS_ORIGIN_RUNSZ			12

/*
 * Open origin xmin sub-block i (sec: its bytes): checksum, and a FOR stripe
 * of 8-byte values, exactly nrows of them, or runs, all of them checked.
 * qs_colblock_origin_get reads row r's xid (0: the entry's xmin) and, when
 * cid is not NULL, its command id into *cid (0 with an xid of 0);
 * qs_colblock_verify checks every value of a FOR stripe.
 */
extern QsCodecStatus qs_colblock_origin_open(const QsColBlock *blk, int i,
											 const uint8_t *sec, QsOriginView *view,
											 QsCodecErr *err);
extern uint32_t qs_colblock_origin_get(const QsOriginView *view, uint32_t row,
									   uint32_t *cid);

/*
 * The origin xmin sub-block of xmin_of_row[0..nrows-1] and their command
 * ids cid_of_row[] (NULL: all 0; a row of xid 0 must have cid 0), in a
 * buffer from alloc of *len bytes (NULL: out of memory).
 */
extern uint8_t *qs_colblock_origin_build(const uint32_t *xmin_of_row,
										 const uint32_t *cid_of_row, uint32_t nrows,
										 const QsCodecAllocator *alloc, size_t *len);

/* The index of the block's origin TID sub-block, or -1 (none). */
extern int	qs_colblock_otid_index(const QsColBlock *blk);

/* An opened origin TID sub-block (qs_colblock_otid_open). */
typedef struct QsOtidView
{
	uint32_t	form;
	uint32_t	n;				/* runs (form 1) or pages (form 2) */
	uint32_t	offbits;		/* form 2 */
	const uint8_t *sec;			/* the section */
	QsForView	values;			/* form 2 */
} QsOtidView;

/*
 * Open origin TID sub-block i (sec: its bytes) and check all of it:
 * checksum, form, runs (all of them) or pages (the stripe's shape).
 * qs_colblock_otid_get then reads row r's origin (*found false: it has
 * none), checking a form 2 value; qs_colblock_verify checks every value.
 */
extern QsCodecStatus qs_colblock_otid_open(const QsColBlock *blk, int i,
										   const uint8_t *sec, QsOtidView *view,
										   QsCodecErr *err);
extern QsCodecStatus qs_colblock_otid_get(const QsOtidView *view, uint32_t row,
										  bool *found, uint32_t *page, uint16_t *off,
										  QsCodecErr *err);

/*
 * The origin TID sub-block of page_of_row[]/off_of_row[] (off 0: the row
 * has none; at least one has one), rows 0..nrows-1, in a buffer from alloc
 * of *len bytes (NULL: out of memory).
 */
extern uint8_t *qs_colblock_otid_build(const uint32_t *page_of_row,
									   const uint16_t *off_of_row, uint32_t nrows,
									   const QsCodecAllocator *alloc, size_t *len);

/*
 * Reader of one column.  qs_colreader_open checks the sections' checksums
 * and opens them with the codec's validating decoders, then checks what
 * ties them together (NULL count, value counts, codes below the dictionary
 * size, plain offsets, min/max = dictionary ends).  With check_order (and
 * cmp) the dictionary's strict order is checked too.  Memory for rank
 * tables and decode buffers comes from alloc; close frees it.
 */
typedef struct QsColReader
{
	QsColBlockColDesc d;
	uint32_t	nrows;
	const QsCodecAllocator *alloc;
	const uint8_t *nulls;		/* NULL if no NULLs */
	uint32_t   *rank;			/* non-NULL rows before each bitmap word */
	QsDict		dict;
	QsPackedView codes;
	const uint8_t *padded;
	QsForView	forv;
	uint64_t   *decoded;		/* FOR-delta: every value, decoded on open */
	QsLz4Reader lz;
	const uint8_t *plain;		/* fixed: values; variable: offsets */
	const uint8_t *plain_data;	/* variable: value bytes */
	uint8_t		tmp[8];			/* the value FOR decoded last */
} QsColReader;

extern QsCodecStatus qs_colreader_open(const QsColBlock *blk, int col,
									   const uint8_t *const sec[QS_COLSEC_COUNT],
									   QsCmpFn cmp, void *cmp_arg, bool check_order,
									   const QsCodecAllocator *alloc,
									   QsColReader *r, QsCodecErr *err);

/*
 * Row row (< nrows): *isnull, or the value's bytes (typlen bytes for fixed
 * width, little-endian for by-value types).  *val stays valid until the
 * next call on r or close.  Fails only on damage the open could not see
 * (an LZ4 chunk or a fixed-width LZ4 value of the wrong length).
 */
extern QsCodecStatus qs_colreader_get(QsColReader *r, uint32_t row, bool *isnull,
									  const uint8_t **val, size_t *len,
									  QsCodecErr *err);
extern void qs_colreader_close(QsColReader *r);

/*
 * Rows in bulk, for columns of 1 to 8 bytes (typlen 1..8; any encoding):
 * rows[0 .. n - 1], or with rows NULL the n rows from start.  isnull[i],
 * and out[i] the value's bytes as a little-endian integer (bytes above
 * typlen unspecified: a 4-byte FOR value comes sign-extended); 0 for
 * NULL.  Consecutive rows are decoded by the codec's bulk kernels
 * (bit-unpack, FOR, padded codes) QS_COLREADER_CHUNK at a time.  Fails
 * (QS_CODEC_INVALID) for a row past nrows or another type length, and as
 * qs_colreader_get on damage the open could not see.
 */
#define QS_COLREADER_CHUNK 256
extern QsCodecStatus qs_colreader_get_fixed(QsColReader *r, const uint32_t *rows,
											uint32_t start, uint32_t n, bool *isnull,
											uint64_t *out, QsCodecErr *err);

/*
 * Does qs_colreader_get_fixed give this 4-byte column's values
 * sign-extended to 64 bits (the int4 datum's bits, NULLs 0)?  FOR's
 * decoding does; plain and dictionary values come zero-extended.
 */
extern bool qs_colreader_fixed_signext32(const QsColReader *r);

/*
 * The structural checker's pass over a whole image: open the header and
 * every column, read every row, check index checksums and that all padding
 * is zero.  With cmps (one comparator per column, or NULL entries; cmps
 * itself may be NULL) also dictionary order, values within min/max and the
 * order of SORTED columns.
 */
extern QsCodecStatus qs_colblock_verify(const uint8_t *image, size_t len,
										const QsCmpFn *cmps, void *const *cmp_args,
										const QsCodecAllocator *alloc,
										QsCodecErr *err);

/*
 * Tests and fuzzing only: recompute every checksum the header describes
 * (as far as the bytes allow), so that a fuzzer's mutations reach the
 * structural checks behind the checksums.  Safe on any input.
 */
extern void qs_colblock_fix_checksums(uint8_t *image, size_t len);

/* ---------------------------------------------------------------------
 * Pages
 * ---------------------------------------------------------------------
 */

/* Pages of a run holding image_len bytes (0 for an empty image). */
static inline uint32_t
qs_colblock_npages(uint64_t image_len)
{
	return (uint32_t) ((image_len + QS_COLPAGE_PAYLOAD - 1) / QS_COLPAGE_PAYLOAD);
}

/*
 * Fill page pageno of the run from the image: payload, pd_lower and the
 * special space.  The caller has initialized the page header (PageInit
 * with QS_COLPAGE_SPECIAL bytes of special space).
 */
extern void qs_colpage_fill(uint8_t *page, const uint8_t *image, uint64_t image_len,
							uint32_t block_id, uint32_t pageno);

/* Check that page is page pageno of block block_id's run of npages. */
extern QsCodecStatus qs_colpage_check(const uint8_t *page, uint32_t block_id,
									  uint32_t pageno, uint32_t npages,
									  QsCodecErr *err);

/*
 * Copy image bytes [off, off + len) out of a run of npages pages (from the
 * block directory).  get_page returns page pageno (valid until its next
 * call) or NULL; each page is checked with qs_colpage_check before use.
 */
typedef const uint8_t *(*QsColPageFn) (void *arg, uint32_t pageno);

extern QsCodecStatus qs_colblock_gather(QsColPageFn get_page, void *arg,
										uint32_t block_id, uint32_t npages,
										uint64_t off, uint64_t len, uint8_t *out,
										QsCodecErr *err);

#endif							/* QS_COLUMN_COLBLOCK_H */
