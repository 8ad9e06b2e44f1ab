/*-------------------------------------------------------------------------
 *
 * options.h
 *	  Options of column tables (src/column/README.md section 8): the
 *	  quickstep.* entries of pg_class.reloptions, the utility hook that
 *	  takes them out of CREATE TABLE, CREATE TABLE AS and ALTER TABLE, and
 *	  what a bulk load reads of them (options.c, build.c).
 *
 * include/column/options.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COLUMN_OPTIONS_H
#define QS_COLUMN_OPTIONS_H

#include "core/compat.h"

#include "utils/relcache.h"

#include "column/colstore.h"

/* the prefix of our reloptions entries and DefElem names */
#define QS_COLOPT_PREFIX		"quickstep."

/*
 * rows_per_block bounds.  The upper one is the delete map's: a block's
 * root page holds one delete-map page number per virtual page of 291 TIDs
 * (QS_COLDELMAP_ROOT_MAX of them, 2038 with 8 kB pages), so a block of
 * more rows could not have all of its rows deleted or locked.
 */
#define QS_COLOPT_MIN_BLOCK_ROWS	1000
#define QS_COLOPT_MAX_BLOCK_ROWS \
	((int) (QS_COLDELMAP_ROOT_MAX * QS_COLBLOCK_TIDS_PER_PAGE))

/* What one bulk-loaded block reads of the table's options. */
typedef struct QsColLoadOptions
{
	int			rows_per_block;
	int			sort_col;		/* attribute index (0-based), -1: none */
	unsigned   *enc_mask;		/* per attribute: QS_ENC_MASK set the
								 * chooser is held to, 0: any it allows */
	bool	   *index_cols;		/* per attribute: quickstep.index_columns
								 * names it (NULL: none named); seals give
								 * such columns index sub-blocks */
} QsColLoadOptions;

/*
 * The options in force for the next block of rel: its pg_class.reloptions,
 * or, while CREATE TABLE AS creates and fills rel, the statement's options
 * (not in the catalog yet).  Names that no longer match a column of the
 * right type (renamed, dropped, retyped since) are ignored.  enc_mask is
 * allocated in CurrentMemoryContext.
 */
extern void qs_colopts_for_load(Relation rel, const QsColAttr *attrs,
								QsColLoadOptions *out);

/*
 * The merge worker's options of rel: merge_threshold (-1: not set) and
 * merge_fraction (-1: not set).
 */
extern void qs_colopts_merge(Relation rel, int *threshold, double *fraction);

/* build.c: the encodings a column's block stripe may use */
extern unsigned qs_colbuild_allowed(const QsColAttr *a);

/*
 * build.c: qs_colbuilder_build with the rows put in order of column
 * sort_col first (stable; NULLs last; -1: arrival order) and each
 * column's encoding chosen among enc_mask[c] (NULL or 0: the chooser's).
 */
extern uint8 *qs_colbuilder_build_opts(QsColBuilder *b, Relation rel,
									   uint32 block_id, int sort_col,
									   const unsigned *enc_mask,
									   size_t *image_len);
extern uint8 *qs_colbuilder_build_perm(QsColBuilder *b, Relation rel,
									   uint32 block_id, int sort_col,
									   const unsigned *enc_mask,
									   size_t *image_len, uint32 **perm_out);
extern uint8 *qs_colbuilder_build_given(QsColBuilder *b, Relation rel,
										uint32 block_id, int sort_col,
										const unsigned *enc_mask,
										size_t *image_len, uint32 **perm_out,
										const bool *have,
										const QsColBlockColumn *given);

/*
 * retype.c: around an ALTER TABLE that changes a column's type, column
 * tables whose order changed while core kept their bytes are rewritten;
 * until then their blocks are read without trusting their order.
 */
struct AlterTableStmt;
typedef struct QsRetype
{
	List	   *noted;			/* the column tables reached, as they were */
	List	   *saved;			/* the untrusted list before the statement */
	bool		tablespace;		/* the statement moves tablespace too */
} QsRetype;
extern void qs_colretype_begin(struct AlterTableStmt *stmt, QsRetype *rt);
extern void qs_colretype_after(QsRetype *rt);
extern void qs_colretype_end(QsRetype *rt);
extern void qs_colretype_reading(Relation rel, QsColAttr *attrs);

/* _PG_init: the ProcessUtility and object access hooks */
extern void qs_colopts_install_hooks(void);

#endif							/* QS_COLUMN_OPTIONS_H */
