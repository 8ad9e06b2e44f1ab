/*-------------------------------------------------------------------------
 *
 * colblock_csb.h
 *	  CSB+-tree index sub-blocks of sealed column blocks (paper 000 sections
 *	  2 and 4.4; src/column/README.md section 2): for one dictionary column
 *	  of the block (kind 3), or one FOR integer column with the code of a
 *	  value its offset from the column's minimum (kind 4), every non-NULL
 *	  row's (code, physical position), sorted,
 *	  under a directory of 64-byte nodes whose children are contiguous, so
 *	  that a node names only its first child (Rao and Ross's CSB+-tree, with
 *	  the node of src/csbtree's in-page directory: one u32 child reference
 *	  and 15 u32 keys).  A code range becomes a run of entries after one
 *	  descent; their positions are the rows that hold the range.
 *
 * Section format (index kind QS_COLINDEX_CSBCODES, little-endian):
 *
 *	  0 u32 magic "QSIX"   4 u16 version = 1   6 u16 levels (directory)
 *	  8 u32 nentries (= the column's non-NULL rows)
 *	 12 u32 code_end (every code < code_end; 0 when nentries = 0)
 *	 16 u32 nnodes   20 u32 nchunks   24 u32 CRC-32C of bytes [0, 24) and
 *	 of the chunk checksums   28 u32 0
 *	 32 nchunks u32: CRC-32C of each QS_CSBIX_CHUNK bytes of the body
 *	   (the last chunk shorter), then zero padding to a multiple of 8
 *	 body:
 *	 nnodes directory nodes of 64 bytes, level by level from the root:
 *	   0 u32 first child (in the next level, or leaf group at the bottom;
 *		 node j of a level: 16 * j, checked)   4 u32 keys[15]: key k is the
 *		 largest code under child k, for the children but the last; the
 *		 unused keys are 0xFFFFFFFF
 *	 leaf groups: ceil(nentries / 16) groups of 16 u32 codes (one cache
 *	   line each), ascending; past nentries 0xFFFFFFFF
 *	 positions: nentries u32, entry i's physical row; for equal codes
 *	   ascending; then zero padding to a multiple of 8 bytes
 *
 * The level sizes follow from nentries alone: groups G = ceil(n / 16);
 * no directory if G <= 1; else the bottom level has ceil(G / 16) nodes,
 * each level above ceil(below / 16), up to a root of one node.
 *
 * Why chunk checksums beside the section's: the section's checksum (in
 * the block header's descriptor) makes the checker read the whole index;
 * a probe reads the head, the nodes on its path, one leaf group per bound
 * and the positions of the entries found, each chunk checked as it is
 * read (chunks are multiples of 64 bytes, so no node, group or entry
 * straddles two).  A probe of a 0.1% range then reads a few pages of a
 * block instead of the whole code stripe.
 *
 * Like colblock.c this is plain C without backend calls (unit tested and
 * fuzzed); nothing read is trusted before it is checked.
 *
 * include/column/colblock_csb.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_COLBLOCK_CSB_H
#define QS_COLUMN_COLBLOCK_CSB_H

#include "column/colblock.h"

#define QS_CSBIX_MAGIC		0x58495351	/* "QSIX" */
#define QS_CSBIX_VERSION	1
#define QS_CSBIX_HDRSZ		32
#define QS_CSBIX_NODESZ		64
#define QS_CSBIX_FANOUT		16	/* children of a node, entries of a group */
#define QS_CSBIX_MAX_LEVELS 8

#define QS_CSBIX_CHUNK		8192

/*
 * Bytes [off, off + len) of the section, valid until the index is done
 * with; NULL if they cannot be had.  The reader checks what it gets.
 */
typedef const uint8_t *(*QsCsbReadFn) (void *arg, uint64_t off, uint64_t len);

/* An opened index sub-block: chunks of the body read as needed. */
typedef struct QsCsbIndex
{
	QsCsbReadFn read;
	void	   *read_arg;
	const QsCodecAllocator *alloc;
	uint32_t	nentries;
	uint32_t	code_end;
	uint32_t	ngroups;
	int			levels;
	uint32_t	level_start[QS_CSBIX_MAX_LEVELS];	/* first node of each */
	uint32_t	level_size[QS_CSBIX_MAX_LEVELS];
	uint32_t	nchunks;
	uint64_t	body_off;
	uint64_t	body_len;
	uint64_t	codes_off;		/* body offsets */
	uint64_t	pos_off;
	const uint8_t *head;		/* body_off bytes: header, chunk checksums */
	const uint8_t **chunk;		/* nchunks: checked chunk, or NULL */
} QsCsbIndex;

/* Exact section size of an index of nentries entries. */
extern size_t qs_csbix_size(uint32_t nentries);

/*
 * Build the index of a column from its codes: code[v] is the code of the
 * v-th non-NULL row (nvalues of them, in position order), present the
 * presence bitmap of nrows bits (NULL: no NULL).  Returns a buffer from
 * alloc of *len bytes, or NULL (out of memory).
 */
extern uint8_t *qs_csbix_build(const uint32_t *code, uint32_t nvalues,
							   const uint64_t *present, uint32_t nrows,
							   const QsCodecAllocator *alloc, size_t *len);

/*
 * Which index sub-block an encoded column can have: QS_COLINDEX_CSBCODES
 * (DICT, DICT_PADDED), QS_COLINDEX_CSBINTS (FOR of a by-value 4- or 8-byte
 * type with min/max, max - min < 0xFFFFFFFF), 0 for none.
 */
extern int	qs_csbix_column_kind(const QsColBlockColumn *col);

/*
 * The index of an encoded column as the serializer takes it (nulls: its
 * presence bitmap or NULL), of the kind qs_csbix_column_kind says: codes
 * of a dictionary column, value - min of a FOR column; NULL for other
 * columns, a stripe that does not open, or out of memory.
 */
extern uint8_t *qs_csbix_build_column(const QsColBlockColumn *col, uint32_t nrows,
									  const QsCodecAllocator *alloc, size_t *len);

/*
 * Open an index sub-block of seclen bytes through read: header and chunk
 * checksums read and checked (the header's checksum, the sizes nentries
 * implies).  Chunks are read and checked when first touched.
 */
extern QsCodecStatus qs_csbix_open(QsCsbReadFn read, void *read_arg, uint64_t seclen,
								   uint32_t nrows, const QsCodecAllocator *alloc,
								   QsCsbIndex *ix, QsCodecErr *err);
extern void qs_csbix_close(QsCsbIndex *ix);

/*
 * Entries [*first, *end) hold exactly the codes lo .. hi (lo <= hi), if
 * the index is intact (*end >= *first whatever it holds); one descent per
 * bound, each node's child reference checked on the way.
 */
extern QsCodecStatus qs_csbix_range(QsCsbIndex *ix, uint32_t lo, uint32_t hi,
									uint32_t *first, uint32_t *end, QsCodecErr *err);

/* Entry i's (< nentries) code or position into *out. */
extern QsCodecStatus qs_csbix_code(QsCsbIndex *ix, uint32_t i, uint32_t *out,
								   QsCodecErr *err);
extern QsCodecStatus qs_csbix_position(QsCsbIndex *ix, uint32_t i, uint32_t *out,
									   QsCodecErr *err);

/* A QsCsbReadFn over a section held in memory (arg: its first byte). */
extern const uint8_t *qs_csbix_read_memory(void *arg, uint64_t off, uint64_t len);

/*
 * The checker's full pass: codes ascending (positions ascending among
 * equal codes), every key the largest code under its child, every
 * position below nrows, each non-NULL position exactly once and no NULL
 * one (present: the column's presence bitmap, NULL if none), and, with
 * code_of (the column's code of value index v, nvalues of them), each
 * entry's code the column's code at its position.  scratch: nrows u32
 * from the caller.
 */
extern QsCodecStatus qs_csbix_check(QsCsbIndex *ix, const uint8_t *present,
									uint32_t nrows, const uint32_t *code_of,
									uint32_t nvalues, uint32_t *scratch,
									QsCodecErr *err);

/*
 * The structural checker's pass over CSB+-tree index sub-block i of a
 * whole image in memory: checksum, open, the column a dictionary column
 * (kind 3) or a FOR column whose values lie within its min/max less than
 * 0xFFFFFFFF apart (kind 4), and qs_csbix_check against the column's codes
 * (kind 4: value - min) and NULLs.
 */
extern QsCodecStatus qs_csbix_verify(const QsColBlock *blk, int i,
									 const uint8_t *image,
									 const QsCodecAllocator *alloc,
									 QsCodecErr *err);

#endif							/* QS_COLUMN_COLBLOCK_CSB_H */
