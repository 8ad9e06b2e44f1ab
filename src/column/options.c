/*-------------------------------------------------------------------------
 *
 * options.c
 *	  Options of column tables that survive pg_dump (README section 8).
 *
 *	  CREATE TABLE t (...) USING <column am>
 *		WITH (quickstep.sort_key = 'a', quickstep.rows_per_block = 50000,
 *			  quickstep.merge_fraction = 0.1, quickstep.encoding_b = 'lz4');
 *	  ALTER TABLE t SET (quickstep.rows_per_block = 20000);
 *	  ALTER TABLE t RESET (quickstep.sort_key);
 *
 * Where they live: pg_class.reloptions, as "quickstep.name=value" text
 * entries beside core's.  pg_dump already emits reloptions inside the
 * CREATE TABLE that creates the table (WITH ("quickstep.sort_key"=a)), so
 * a dump restores them in the same statement, before any data; a side
 * table would be restored after the data, or not at all (Citus #5952).
 *
 * Why a ProcessUtility hook: core validates table reloptions as heap's —
 * DefineRelation rejects the namespace ("unrecognized parameter namespace
 * "quickstep""), pg_dump's quoted spelling is an "unrecognized parameter",
 * and ALTER TABLE … SET re-validates the whole stored array.  So the hook
 * takes every quickstep.* DefElem out of CreateStmt, CreateTableAsStmt
 * (into->options) and AlterTableStmt (AT_SetRelOptions /
 * AT_ResetRelOptions), validates it, lets core run the rest, then writes
 * our entries into pg_class itself.  Relcache builds parse reloptions with
 * validate = false, which skips entries it does not know, so a table with
 * ours opens as any other.  A later core SET/RESET, which would trip over
 * them, runs with ours taken out of the catalog for the duration of its
 * command and put back after it, in the same transaction.
 *
 * CREATE TABLE AS loads its rows before the statement returns, that is
 * before the options reach the catalog: while the statement runs, the
 * relations it creates (seen through the object access hook) read the
 * statement's options instead (qs_colopts_for_load).
 *
 * A stored option is always one CREATE TABLE would accept, or the dump
 * would not restore: RENAME COLUMN renames the options that name the
 * column; DROP COLUMN, ALTER COLUMN TYPE and SET ACCESS METHOD remove, with
 * a notice, those that no longer apply.
 *
 * Loads read the options when each block starts (load.c), so a change
 * applies to the next block.  merge_threshold and merge_fraction are read
 * by the merge worker when it looks at the table (qs_colopts_merge).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/tablecmds.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "codec/choose.h"
#include "column/colam.h"
#include "column/options.h"

#define PREFIX_LEN	(sizeof(QS_COLOPT_PREFIX) - 1)
#define ENC_PREFIX	"encoding_"
#define ENC_PREFIX_LEN	(sizeof(ENC_PREFIX) - 1)

typedef enum OptKind
{
	OPT_UNKNOWN,
	OPT_SORT_KEY,
	OPT_ROWS_PER_BLOCK,
	OPT_MERGE_FRACTION,
	OPT_MERGE_THRESHOLD,
	OPT_INDEX_COLUMNS,
	OPT_ENCODING				/* encoding_<column> */
} OptKind;

/* One option: its name without the prefix, its value (NULL: RESET). */
typedef struct QsColOpt
{
	char	   *name;
	char	   *value;
} QsColOpt;

/* the values of encoding_<column>, and the encodings each allows */
static const struct
{
	const char *name;
	unsigned	mask;			/* 0: the chooser's choice */
}			enc_names[] =
{
	{"auto", 0},
	{"plain", QS_ENC_MASK(QS_ENC_PLAIN)},
	{"dict", QS_ENC_MASK(QS_ENC_DICT) | QS_ENC_MASK(QS_ENC_DICT_PADDED)},
	{"for", QS_ENC_MASK(QS_ENC_FOR) | QS_ENC_MASK(QS_ENC_FOR_DELTA)},
	{"lz4", QS_ENC_MASK(QS_ENC_LZ4)},
};

#define OPTIONS_HINT \
	"Column tables take quickstep.sort_key, quickstep.rows_per_block, " \
	"quickstep.merge_threshold, quickstep.merge_fraction, " \
	"quickstep.index_columns and quickstep.encoding_<column>."

/*
 * A CREATE TABLE or CREATE TABLE AS with our options while core runs it:
 * the relations it creates, so that a load into one of them can read the
 * statement's options (they reach the catalog only after core returns).
 * Statements nest (a function in the query may run another); innermost
 * first.
 */
typedef struct OptsCommand
{
	const char *relname;		/* the table the statement creates */
	List	   *opts;			/* QsColOpt */
	List	   *created;		/* oids of the relations created so far */
	MemoryContext cxt;
	struct OptsCommand *outer;
} OptsCommand;

static OptsCommand *cur_cmd = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;
static object_access_hook_type prev_object_access = NULL;

/* ------------------------------------------------------------------------
 * Names and values
 * ------------------------------------------------------------------------
 */
static OptKind
opt_kind(const char *name)
{
	if (strcmp(name, "sort_key") == 0)
		return OPT_SORT_KEY;
	if (strcmp(name, "rows_per_block") == 0)
		return OPT_ROWS_PER_BLOCK;
	if (strcmp(name, "merge_fraction") == 0)
		return OPT_MERGE_FRACTION;
	if (strcmp(name, "merge_threshold") == 0)
		return OPT_MERGE_THRESHOLD;
	if (strcmp(name, "index_columns") == 0)
		return OPT_INDEX_COLUMNS;
	if (strncmp(name, ENC_PREFIX, ENC_PREFIX_LEN) == 0 &&
		name[ENC_PREFIX_LEN] != '\0')
		return OPT_ENCODING;
	return OPT_UNKNOWN;
}

/* the encodings value names, or -1 if it names none */
static int
enc_index(const char *value)
{
	for (int i = 0; i < lengthof(enc_names); i++)
		if (pg_strcasecmp(value, enc_names[i].name) == 0)
			return i;
	return -1;
}

/*
 * The column names of an index_columns value: split on commas, blanks
 * around a name dropped; names keep their case (as sort_key's do).
 */
static List *
index_col_names(const char *value)
{
	List	   *names = NIL;
	const char *p = value;

	for (;;)
	{
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		while (p < end && isspace((unsigned char) *p))
			p++;
		while (end > p && isspace((unsigned char) end[-1]))
			end--;
		names = lappend(names, pnstrdup(p, end - p));
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return names;
}

/*
 * Can name n stand in an index_columns list?  A comma splits it, blanks
 * at its ends are dropped and '=' is refused (as sort_key's), so a column
 * renamed to such a name cannot be listed: the value would name another
 * column, and a dump of it would not restore.
 */
static bool
index_col_name_ok(const char *n)
{
	size_t		len = strlen(n);

	return len > 0 && len < NAMEDATALEN && strchr(n, ',') == NULL &&
		strchr(n, '=') == NULL && !isspace((unsigned char) n[0]) &&
		!isspace((unsigned char) n[len - 1]);
}

/*
 * Can the column have index sub-blocks?  They are built over the codes of
 * an order-preserving dictionary (or a FOR column's value - min, which the
 * same types allow).
 */
static bool
index_col_type_ok(const QsColAttr *attr)
{
	return attr->has_order &&
		(qs_colbuild_allowed(attr) & QS_ENC_MASK(QS_ENC_DICT)) != 0;
}

static char *
join_names(List *names)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) > 0 ? "," : "",
						 (char *) lfirst(lc));
	return buf.data;
}

/*
 * Is def ours?  Both spellings: quickstep.sort_key (namespace quickstep,
 * as typed) and "quickstep.sort_key" (one quoted name, as pg_dump writes
 * reloptions back).  *name gets the name after the prefix.
 */
static bool
def_is_ours(const DefElem *def, const char **name)
{
	if (def->defnamespace != NULL)
	{
		if (strcmp(def->defnamespace, "quickstep") != 0)
			return false;
		*name = def->defname;
		return true;
	}
	if (strncmp(def->defname, QS_COLOPT_PREFIX, PREFIX_LEN) == 0)
	{
		*name = def->defname + PREFIX_LEN;
		return true;
	}
	return false;
}

/*
 * The checks that need no table: a known name, a well-formed value in
 * range.  Returns the value as it is stored (canonical).
 */
static char *
opt_value(OptKind kind, const char *name, const char *raw)
{
	switch (kind)
	{
		case OPT_SORT_KEY:
			if (raw[0] == '\0')
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for quickstep.sort_key: an empty column name"),
						 errhint("Give the name of one of the table's columns, or RESET (quickstep.sort_key).")));
			if (strchr(raw, '=') != NULL || strlen(raw) >= NAMEDATALEN)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for quickstep.sort_key: \"%s\"", raw),
						 errhint("Give the name of one of the table's columns.")));
			return pstrdup(raw);

		case OPT_ROWS_PER_BLOCK:
			{
				int			v;

				if (!parse_int(raw, &v, 0, NULL) ||
					v < QS_COLOPT_MIN_BLOCK_ROWS || v > QS_COLOPT_MAX_BLOCK_ROWS)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid value for quickstep.rows_per_block: \"%s\"", raw),
							 errdetail("Valid values are integers between %d and %d.",
									   QS_COLOPT_MIN_BLOCK_ROWS, QS_COLOPT_MAX_BLOCK_ROWS),
							 errhint("The upper bound is what one block's delete map can track (%d pages of %d rows).",
									 (int) QS_COLDELMAP_ROOT_MAX, QS_COLBLOCK_TIDS_PER_PAGE)));
				return psprintf("%d", v);
			}

		case OPT_MERGE_FRACTION:
			{
				double		v;

				if (!parse_real(raw, &v, 0, NULL) || isnan(v) || v < 0.0 || v > 1.0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid value for quickstep.merge_fraction: \"%s\"", raw),
							 errdetail("Valid values are numbers between 0 and 1."),
							 errhint("It is the share of delta rows, relative to main rows, that triggers a merge.")));
				return psprintf("%g", v);
			}

		case OPT_MERGE_THRESHOLD:
			{
				int			v;

				if (!parse_int(raw, &v, 0, NULL) || v < 1)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid value for quickstep.merge_threshold: \"%s\"", raw),
							 errdetail("Valid values are integers between 1 and %d.", INT_MAX),
							 errhint("It is the number of movable delta rows past which the merge worker merges the table.")));
				return psprintf("%d", v);
			}

		case OPT_INDEX_COLUMNS:
			{
				List	   *names = index_col_names(raw);
				ListCell   *lc;

				foreach(lc, names)
				{
					const char *n = lfirst(lc);

					if (!index_col_name_ok(n))
						ereport(ERROR,
								(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								 errmsg("invalid value for quickstep.index_columns: \"%s\"", raw),
								 errhint("Give a comma-separated list of the table's column names.")));
					for (ListCell *lc2 = list_head(names); lc2 != lc; lc2 = lnext(names, lc2))
						if (strcmp(lfirst(lc2), n) == 0)
							ereport(ERROR,
									(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
									 errmsg("quickstep.index_columns: column \"%s\" is listed more than once", n),
									 errhint("Name each column once.")));
				}
				return join_names(names);
			}

		case OPT_ENCODING:
			{
				int			e = enc_index(raw);

				if (strchr(name, '=') != NULL ||
					strlen(name) - ENC_PREFIX_LEN >= NAMEDATALEN)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid quickstep option name \"%s%s\"",
									QS_COLOPT_PREFIX, name),
							 errhint("A column whose name contains \"=\" cannot have an encoding option.")));
				if (e < 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("invalid value for quickstep.%s: \"%s\"", name, raw),
							 errhint("Valid values are auto, plain, dict, for and lz4.")));
				return pstrdup(enc_names[e].name);
			}

		case OPT_UNKNOWN:
			break;
	}
	pg_unreachable();
}

/* A QsColOpt from a DefElem of ours (reset: from RESET (...)). */
static QsColOpt *
opt_from_def(DefElem *def, const char *name, bool reset)
{
	OptKind		kind = opt_kind(name);
	QsColOpt   *o;

	if (kind == OPT_UNKNOWN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized quickstep option \"%s%s\"", QS_COLOPT_PREFIX, name),
				 errhint(OPTIONS_HINT)));
	o = palloc0(sizeof(QsColOpt));
	o->name = pstrdup(name);
	if (reset)
	{
		if (def->arg != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("RESET must not include values for parameters")));
		/* a column's encoding option can be reset whatever its name */
		return o;
	}
	if (def->arg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("quickstep option \"%s%s\" needs a value", QS_COLOPT_PREFIX, name),
				 errhint("Write %s%s = value.", QS_COLOPT_PREFIX, name)));
	o->value = opt_value(kind, name, defGetString(def));
	return o;
}

/*
 * Take our DefElems out of *defs (the others stay, for core), checking
 * each; returns them as QsColOpt.  A name given twice is an error, as
 * core's own options are.
 */
static List *
take_ours(List **defs, bool reset)
{
	List	   *ours = NIL;
	List	   *rest = NIL;
	ListCell   *lc;

	foreach(lc, *defs)
	{
		DefElem    *def = lfirst_node(DefElem, lc);
		const char *name;
		QsColOpt   *o;
		ListCell   *lc2;

		if (!def_is_ours(def, &name))
		{
			rest = lappend(rest, def);
			continue;
		}
		o = opt_from_def(def, name, reset);
		foreach(lc2, ours)
			if (strcmp(((QsColOpt *) lfirst(lc2))->name, o->name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("parameter \"%s%s\" specified more than once",
								QS_COLOPT_PREFIX, o->name),
						 errhint("Give each option once; \"quickstep.%s\" and quickstep.%s are the same option.",
								 o->name, o->name)));
		ours = lappend(ours, o);
	}
	*defs = rest;
	return ours;
}

static bool
defs_have_ours(List *defs)
{
	ListCell   *lc;

	foreach(lc, defs)
	{
		const char *name;

		if (def_is_ours(lfirst_node(DefElem, lc), &name))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * The table side
 * ------------------------------------------------------------------------
 */
/* attribute index of the live column called name, or -1 */
static int
find_att(TupleDesc desc, const char *name)
{
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			return i;
	}
	return -1;
}

/* Is amoid a table access method whose handler is the column handler? */
static bool
am_is_column(Oid amoid)
{
	HeapTuple	tup;
	bool		result = false;

	if (!OidIsValid(amoid))
		return false;
	tup = SearchSysCache1(AMOID, ObjectIdGetDatum(amoid));
	if (!HeapTupleIsValid(tup))
		return false;
	if (((Form_pg_am) GETSTRUCT(tup))->amtype == AMTYPE_TABLE)
		result = GetTableAmRoutine(((Form_pg_am) GETSTRUCT(tup))->amhandler) ==
			qs_column_routine();
	ReleaseSysCache(tup);
	return result;
}

static void
not_a_column_table(const char *what, const char *name, Oid amoid)
{
	char	   *amname = OidIsValid(amoid) ? get_am_name(amoid) : NULL;

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("quickstep options apply only to column tables"),
			 amname ? errdetail("%s \"%s\" uses access method %s.", what, name, amname) :
			 errdetail("%s \"%s\" has no table access method.", what, name),
			 errhint("Create the table USING an access method over the quickstep column handler, or leave out the quickstep.* options.")));
}

/* before core creates a table USING amname: refuse early */
static void
check_am_name(const char *amname, const char *relname)
{
	Oid			amoid = get_table_am_oid(amname, true);

	/* an unknown access method is core's error to give */
	if (OidIsValid(amoid) && !am_is_column(amoid))
		not_a_column_table("Table", relname, amoid);
}

static void
check_column_table(Relation rel)
{
	if (!qs_is_column_rel(rel))
		not_a_column_table(rel->rd_rel->relkind == RELKIND_RELATION ? "Table" :
						   rel->rd_rel->relkind == RELKIND_MATVIEW ?
						   "Materialized view" : "Relation",
						   RelationGetRelationName(rel), rel->rd_rel->relam);
}

/* The checks against the table's columns of an option being set. */
static void
check_opt_for_rel(Relation rel, const QsColOpt *o, QsColAttr *attrs)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			i;

	switch (opt_kind(o->name))
	{
		case OPT_SORT_KEY:
			i = find_att(desc, o->value);
			if (i < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("quickstep.sort_key: column \"%s\" of relation \"%s\" does not exist",
								o->value, RelationGetRelationName(rel)),
						 errhint("Give the column's name as the table spells it (case matters).")));
			if (!attrs[i].has_order)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("quickstep.sort_key: column \"%s\" has type %s, which has no default btree operator class",
								o->value, format_type_be(attrs[i].typid)),
						 errhint("Choose a column whose type can be ordered.")));
			break;

		case OPT_INDEX_COLUMNS:
			{
				ListCell   *lc;

				foreach(lc, index_col_names(o->value))
				{
					const char *n = lfirst(lc);

					i = find_att(desc, n);
					if (i < 0)
						ereport(ERROR,
								(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								 errmsg("quickstep.index_columns: column \"%s\" of relation \"%s\" does not exist",
										n, RelationGetRelationName(rel)),
								 errhint("Give the column's name as the table spells it (case matters).")));
					if (!index_col_type_ok(&attrs[i]))
						ereport(ERROR,
								(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								 errmsg("quickstep.index_columns: column \"%s\" has type %s, which cannot be dictionary-encoded",
										n, format_type_be(attrs[i].typid)),
								 errdetail("Index sub-blocks are built over the codes of an order-preserving dictionary, or over a frame-of-reference integer column's offsets from its minimum."),
								 errhint("Index columns whose type has a default btree operator class and whose equal values are identical (char(n) and numeric(p,s) count; not float, numeric without a typmod or nondeterministic collations).")));
				}
				break;
			}

		case OPT_ENCODING:
			{
				const char *col = o->name + ENC_PREFIX_LEN;
				unsigned	mask = enc_names[enc_index(o->value)].mask;

				i = find_att(desc, col);
				if (i < 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("quickstep.%s: column \"%s\" of relation \"%s\" does not exist",
									o->name, col, RelationGetRelationName(rel)),
							 errhint("The option is named encoding_ followed by the column's name as the table spells it.")));
				if (mask != 0 && (mask & qs_colbuild_allowed(&attrs[i])) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("encoding \"%s\" cannot store column \"%s\" of type %s",
									o->value, col, format_type_be(attrs[i].typid)),
							 errhint("plain and lz4 store every type; for stores integer, date, time and timestamp columns; dict stores types whose equal values are identical (char(n) and numeric(p,s) count; not float, numeric without a typmod or nondeterministic collations).")));
				break;
			}

		default:
			break;
	}
}

static void
check_opts_for_rel(Relation rel, List *opts)
{
	QsColAttr  *attrs = qs_colattrs(RelationGetDescr(rel));
	ListCell   *lc;

	foreach(lc, opts)
	{
		QsColOpt   *o = lfirst(lc);

		if (o->value != NULL)
			check_opt_for_rel(rel, o, attrs);
	}
	pfree(attrs);
}

/* ------------------------------------------------------------------------
 * pg_class.reloptions
 * ------------------------------------------------------------------------
 */
/* The reloptions entries of a pg_class tuple, as C strings. */
static List *
tuple_reloptions(HeapTuple tup)
{
	bool		isnull;
	Datum		d = SysCacheGetAttr(RELOID, tup, Anum_pg_class_reloptions, &isnull);
	Datum	   *elems;
	int			n;
	List	   *result = NIL;

	if (isnull)
		return NIL;
	deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, NULL, &n);
	for (int i = 0; i < n; i++)
		result = lappend(result, TextDatumGetCString(elems[i]));
	return result;
}

/* Our entries among reloptions strings, as QsColOpt. */
static List *
ours_of(List *entries)
{
	List	   *ours = NIL;
	ListCell   *lc;

	foreach(lc, entries)
	{
		char	   *s = lfirst(lc);
		char	   *eq;
		QsColOpt   *o;

		if (strncmp(s, QS_COLOPT_PREFIX, PREFIX_LEN) != 0 ||
			(eq = strchr(s + PREFIX_LEN, '=')) == NULL)
			continue;
		o = palloc(sizeof(QsColOpt));
		o->name = pnstrdup(s + PREFIX_LEN, eq - (s + PREFIX_LEN));
		o->value = pstrdup(eq + 1);
		ours = lappend(ours, o);
	}
	return ours;
}

/*
 * relid's stored options (QsColOpt); none if relid is gone (a lock-free
 * look may race with a DROP: core gives the error then).
 */
static List *
stored_opts(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	List	   *ours;

	if (!HeapTupleIsValid(tup))
		return NIL;
	ours = ours_of(tuple_reloptions(tup));
	ReleaseSysCache(tup);
	return ours;
}

/*
 * Make relid's reloptions core's entries as they are now followed by ours
 * (none: just take ours out), and make that visible to the next command.
 */
static void
write_opts(Oid relid, List *ours)
{
	Relation	classrel = table_open(RelationRelationId, RowExclusiveLock);
	HeapTuple	tup = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(relid));
	List	   *entries;
	Datum	   *elems;
	int			n = 0;
	ListCell   *lc;
	Datum		values[Natts_pg_class];
	bool		nulls[Natts_pg_class];
	bool		repl[Natts_pg_class];
	HeapTuple	newtup;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	entries = tuple_reloptions(tup);
	elems = palloc(sizeof(Datum) * (list_length(entries) + list_length(ours) + 1));
	foreach(lc, entries)
	{
		const char *s = lfirst(lc);

		if (strncmp(s, QS_COLOPT_PREFIX, PREFIX_LEN) != 0)
			elems[n++] = CStringGetTextDatum(s);
	}
	foreach(lc, ours)
	{
		QsColOpt   *o = lfirst(lc);

		elems[n++] = CStringGetTextDatum(psprintf("%s%s=%s", QS_COLOPT_PREFIX,
												  o->name, o->value));
	}

	memset(values, 0, sizeof(values));
	memset(nulls, false, sizeof(nulls));
	memset(repl, false, sizeof(repl));
	repl[Anum_pg_class_reloptions - 1] = true;
	if (n > 0)
		values[Anum_pg_class_reloptions - 1] =
			PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
	else
		nulls[Anum_pg_class_reloptions - 1] = true;
	newtup = heap_modify_tuple(tup, RelationGetDescr(classrel), values, nulls, repl);
	/* also invalidates the relation's relcache entry */
	CatalogTupleUpdate(classrel, &newtup->t_self, newtup);
	heap_freetuple(newtup);
	heap_freetuple(tup);
	table_close(classrel, RowExclusiveLock);
	CommandCounterIncrement();
}

/* base with changes applied: a value replaces or adds, NULL removes */
static List *
apply_opts(List *base, List *changes)
{
	List	   *result = list_copy(base);
	ListCell   *lc;

	foreach(lc, changes)
	{
		QsColOpt   *c = lfirst(lc);
		ListCell   *lc2;
		bool		found = false;

		foreach(lc2, result)
		{
			QsColOpt   *b = lfirst(lc2);

			if (strcmp(b->name, c->name) == 0)
			{
				if (c->value == NULL)
					result = foreach_delete_current(result, lc2);
				else
					lfirst(lc2) = c;
				found = true;
				break;
			}
		}
		if (!found && c->value != NULL)
			result = lappend(result, c);
	}
	return result;
}

/* ------------------------------------------------------------------------
 * Keeping them true to the table
 *
 * A stored option must always be one CREATE TABLE accepts, or the table's
 * dump would not restore: RENAME COLUMN renames what names the column;
 * DROP COLUMN, ALTER COLUMN TYPE and SET ACCESS METHOD remove (with a
 * notice) what no longer applies.
 * ------------------------------------------------------------------------
 */
static void
removed_notice(Relation rel, const QsColOpt *o, const char *why)
{
	ereport(NOTICE,
			(errmsg("option quickstep.%s=%s of \"%s\" removed: %s",
					o->name, o->value, RelationGetRelationName(rel), why)));
}

/* after DDL on relid: rename (oldname: NULL for none), then prune */
static void
fixup_rel(Oid relid, const char *oldname, const char *newname)
{
	List	   *stored = stored_opts(relid);
	List	   *keep = NIL;
	bool		changed = false;
	Relation	rel;
	TupleDesc	desc;
	QsColAttr  *attrs;
	ListCell   *lc;

	if (stored == NIL || (rel = try_relation_open(relid, NoLock)) == NULL)
		return;
	if (!qs_is_column_rel(rel))
	{
		foreach(lc, stored)
			removed_notice(rel, lfirst(lc), "not a column table any more");
		relation_close(rel, NoLock);
		write_opts(relid, NIL);
		return;
	}
	desc = RelationGetDescr(rel);
	attrs = qs_colattrs(desc);
	foreach(lc, stored)
	{
		QsColOpt   *o = lfirst(lc);
		int			i;
		int			e;

		switch (opt_kind(o->name))
		{
			case OPT_SORT_KEY:
				if (oldname && strcmp(o->value, oldname) == 0)
				{
					o->value = pstrdup(newname);
					changed = true;
				}
				i = find_att(desc, o->value);
				if (i < 0 || !attrs[i].has_order || strchr(o->value, '=') != NULL)
				{
					removed_notice(rel, o, i < 0 ? "no such column" :
								   !attrs[i].has_order ? "the column cannot be sorted on" :
								   "the column's name contains \"=\"");
					changed = true;
					continue;
				}
				break;
			case OPT_INDEX_COLUMNS:
				{
					List	   *names = index_col_names(o->value);
					List	   *kept = NIL;
					ListCell   *lc2;

					foreach(lc2, names)
					{
						char	   *n = lfirst(lc2);

						if (oldname && strcmp(n, oldname) == 0)
						{
							n = pstrdup(newname);
							changed = true;
						}
						i = find_att(desc, n);
						if (i < 0 || !index_col_type_ok(&attrs[i]) || !index_col_name_ok(n))
						{
							ereport(NOTICE,
									(errmsg("column \"%s\" removed from option quickstep.index_columns of \"%s\": %s",
											n, RelationGetRelationName(rel),
											i < 0 ? "no such column" :
											!index_col_name_ok(n) ?
											"the column's name contains \",\" or \"=\" or begins or ends with a blank" :
											"the column cannot be dictionary-encoded")));
							changed = true;
							continue;
						}
						kept = lappend(kept, n);
					}
					if (kept == NIL)
						continue;
					o->value = join_names(kept);
					break;
				}
			case OPT_ENCODING:
				if (oldname && strcmp(o->name + ENC_PREFIX_LEN, oldname) == 0)
				{
					o->name = psprintf("%s%s", ENC_PREFIX, newname);
					changed = true;
				}
				i = find_att(desc, o->name + ENC_PREFIX_LEN);
				e = enc_index(o->value);
				if (i < 0 || e < 0 || strchr(o->name, '=') != NULL ||
					(enc_names[e].mask != 0 &&
					 (enc_names[e].mask & qs_colbuild_allowed(&attrs[i])) == 0))
				{
					removed_notice(rel, o, i < 0 ? "no such column" :
								   strchr(o->name, '=') != NULL ?
								   "the column's name contains \"=\"" :
								   "the encoding cannot store the column's type");
					changed = true;
					continue;
				}
				break;
			default:
				break;
		}
		keep = lappend(keep, o);
	}
	relation_close(rel, NoLock);
	if (changed)
		write_opts(relid, keep);
}

/* relid and the tables that inherit from it (DDL may have recursed) */
static void
fixup_tree(Oid relid, const char *oldname, const char *newname)
{
	ListCell   *lc;

	CommandCounterIncrement();
	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
		fixup_rel(lfirst_oid(lc), oldname, newname);
}

/* ALTER TABLE subcommands after which stored options may not apply */
static bool
cmds_need_fixup(List *cmds)
{
	ListCell   *lc;

	foreach(lc, cmds)
	{
		AlterTableCmd *c = lfirst_node(AlterTableCmd, lc);

		if (c->subtype == AT_DropColumn || c->subtype == AT_AlterColumnType ||
			c->subtype == AT_SetAccessMethod)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * What a load reads
 * ------------------------------------------------------------------------
 */

/*
 * Is rel the transient table make_new_heap made ("pg_temp_<oid>") for a
 * relation cmd created?  PostgreSQL 18's CREATE MATERIALIZED VIEW creates
 * the view empty and fills it as REFRESH does, into such a table, before
 * our options reach the view's catalog row: the fill must read the
 * command's options (without this its first fill ignored sort_key and
 * rows_per_block; review helper-194).
 */
static bool
transient_of_created(OptsCommand *cmd, Relation rel)
{
	const char *name = RelationGetRelationName(rel);
	char	   *end;
	unsigned long oid;

	if (strncmp(name, "pg_temp_", 8) != 0 || name[8] == '\0')
		return false;
	errno = 0;
	oid = strtoul(name + 8, &end, 10);
	if (errno != 0 || *end != '\0' || oid > PG_UINT32_MAX)
		return false;
	return list_member_oid(cmd->created, (Oid) oid);
}
void
qs_colopts_for_load(Relation rel, const QsColAttr *attrs, QsColLoadOptions *out)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Oid			relid = RelationGetRelid(rel);
	List	   *opts = NIL;
	OptsCommand *cmd;
	ListCell   *lc;

	for (cmd = cur_cmd; cmd != NULL; cmd = cmd->outer)
		if (list_member_oid(cmd->created, relid) &&
			(strcmp(cmd->relname, RelationGetRelationName(rel)) == 0 ||
			 transient_of_created(cmd, rel)))
			break;
	opts = cmd ? cmd->opts : stored_opts(relid);

	out->rows_per_block = QS_COL_LOAD_BLOCK_ROWS;
	out->sort_col = -1;
	out->index_cols = NULL;
	out->enc_mask = palloc0(sizeof(unsigned) * Max(desc->natts, 1));
	foreach(lc, opts)
	{
		QsColOpt   *o = lfirst(lc);
		int			i;
		int			e;

		switch (opt_kind(o->name))
		{
			case OPT_ROWS_PER_BLOCK:
				/* checked when set; a hand-edited catalog gets the bounds */
				i = atoi(o->value);
				out->rows_per_block = Max(Min(i, QS_COLOPT_MAX_BLOCK_ROWS),
										  QS_COLOPT_MIN_BLOCK_ROWS);
				break;
			case OPT_SORT_KEY:
				i = find_att(desc, o->value);
				if (i >= 0 && attrs[i].has_order)
					out->sort_col = i;
				break;
			case OPT_INDEX_COLUMNS:
				{
					ListCell   *lc2;

					foreach(lc2, index_col_names(o->value))
					{
						i = find_att(desc, lfirst(lc2));
						if (i < 0 || !index_col_type_ok(&attrs[i]))
							continue;
						if (out->index_cols == NULL)
							out->index_cols = palloc0(sizeof(bool) * desc->natts);
						out->index_cols[i] = true;
					}
					break;
				}
			case OPT_ENCODING:
				i = find_att(desc, o->name + ENC_PREFIX_LEN);
				e = enc_index(o->value);
				if (i >= 0 && e >= 0)
					out->enc_mask[i] = enc_names[e].mask & qs_colbuild_allowed(&attrs[i]);
				break;
			default:
				/* merge_threshold, merge_fraction: the worker's */
				break;
		}
	}
}

/*
 * The merge worker's options of rel: its merge_threshold (-1: none, the
 * server's applies) and its merge_fraction (-1: none).  The worker makes
 * its trigger of them (worker.c, merge_trigger).
 */
void
qs_colopts_merge(Relation rel, int *threshold, double *fraction)
{
	ListCell   *lc;

	*threshold = -1;
	*fraction = -1.0;
	foreach(lc, stored_opts(RelationGetRelid(rel)))
	{
		QsColOpt   *o = lfirst(lc);

		/* checked when set; a hand-edited catalog falls back to defaults */
		if (opt_kind(o->name) == OPT_MERGE_THRESHOLD && atoi(o->value) >= 1)
			*threshold = atoi(o->value);
		else if (opt_kind(o->name) == OPT_MERGE_FRACTION)
		{
			double		f = strtod(o->value, NULL);

			if (f >= 0.0 && f <= 1.0)
				*fraction = f;
		}
	}
}

/* ------------------------------------------------------------------------
 * The hooks
 * ------------------------------------------------------------------------
 */
static void
colopts_object_access(ObjectAccessType access, Oid classId, Oid objectId,
					  int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access == OAT_POST_CREATE && classId == RelationRelationId &&
		subId == 0 && cur_cmd != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(cur_cmd->cxt);

		cur_cmd->created = lappend_oid(cur_cmd->created, objectId);
		MemoryContextSwitchTo(old);
	}
}

static void
call_next(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
		  ProcessUtilityContext context, ParamListInfo params,
		  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

/* the relation called relname that cmd created, or InvalidOid */
static Oid
created_relation(OptsCommand *cmd)
{
	ListCell   *lc;

	CommandCounterIncrement();
	foreach(lc, cmd->created)
	{
		Oid			relid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		bool		match;

		if (!HeapTupleIsValid(tup))
			continue;
		match = strcmp(NameStr(((Form_pg_class) GETSTRUCT(tup))->relname),
					   cmd->relname) == 0 &&
			((Form_pg_class) GETSTRUCT(tup))->relkind != RELKIND_TOASTVALUE;
		ReleaseSysCache(tup);
		if (match)
			return relid;
	}
	return InvalidOid;
}

/*
 * CREATE TABLE and CREATE TABLE AS: *options of the statement (a copy)
 * lose ours; core creates the table; then ours go into its reloptions.
 */
static void
create_with_opts(List **options, const RangeVar *rv, const char *amname,
				 PlannedStmt *pstmt, const char *queryString,
				 ProcessUtilityContext context, ParamListInfo params,
				 QueryEnvironment *queryEnv, DestReceiver *dest,
				 QueryCompletion *qc)
{
	OptsCommand cmd;
	Oid			relid;
	Relation	rel;

	memset(&cmd, 0, sizeof(cmd));
	cmd.relname = rv->relname;
	cmd.opts = take_ours(options, false);
	cmd.cxt = CurrentMemoryContext;
	if (amname)
		check_am_name(amname, rv->relname);

	cmd.outer = cur_cmd;
	cur_cmd = &cmd;
	PG_TRY();
	{
		call_next(pstmt, queryString, false, context, params, queryEnv,
				  dest, qc);
	}
	PG_FINALLY();
	{
		cur_cmd = cmd.outer;
	}
	PG_END_TRY();

	/* none: IF NOT EXISTS found the table, and core left it alone */
	relid = created_relation(&cmd);
	if (!OidIsValid(relid))
		return;
	rel = relation_open(relid, NoLock);
	check_column_table(rel);
	check_opts_for_rel(rel, cmd.opts);
	relation_close(rel, NoLock);
	write_opts(relid, apply_opts(stored_opts(relid), cmd.opts));
}

/*
 * ALTER TABLE: SET/RESET of ours are taken out of the statement; core runs
 * what remains (nothing: core is not called).  When core's own SET/RESET
 * remain and the table has ours stored, ours leave the catalog while core
 * validates and rewrites the array, and come back after it.
 */
static void
alter_with_opts(PlannedStmt *pstmt, const char *queryString,
				bool readOnlyTree, ProcessUtilityContext context,
				ParamListInfo params, QueryEnvironment *queryEnv,
				DestReceiver *dest, QueryCompletion *qc)
{
	AlterTableStmt *orig = (AlterTableStmt *) pstmt->utilityStmt;
	PlannedStmt *copy;
	AlterTableStmt *stmt;
	List	   *changes = NIL;
	List	   *cmds = NIL;
	bool		core_relopts = false;
	List	   *stored;
	LOCKMODE	lockmode;
	Oid			relid;
	ListCell   *lc;

	/* only SET/RESET concern us; anything else goes through untouched */
	foreach(lc, orig->cmds)
	{
		AlterTableCmd *c = lfirst_node(AlterTableCmd, lc);

		if (c->subtype == AT_SetRelOptions || c->subtype == AT_ResetRelOptions)
			break;
	}
	if (lc == NULL)
	{
		bool		fixup = cmds_need_fixup(orig->cmds);
		RangeVar   *rv = fixup ? copyObject(orig->relation) : NULL;

		call_next(pstmt, queryString, readOnlyTree, context, params,
				  queryEnv, dest, qc);
		if (fixup && OidIsValid(relid = RangeVarGetRelid(rv, NoLock, true)))
			fixup_tree(relid, NULL, NULL);
		return;
	}

	copy = copyObject(pstmt);
	stmt = (AlterTableStmt *) copy->utilityStmt;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *c = lfirst_node(AlterTableCmd, lc);

		if (c->subtype == AT_SetRelOptions || c->subtype == AT_ResetRelOptions)
		{
			List	   *defs = (List *) c->def;

			changes = list_concat(changes,
								  take_ours(&defs, c->subtype == AT_ResetRelOptions));
			c->def = (Node *) defs;
			if (defs == NIL)
				continue;		/* only ours: the command goes */
			core_relopts = true;
		}
		cmds = lappend(cmds, c);
	}
	stmt->cmds = cmds;

	/*
	 * Core's SET/RESET on a table without options of ours: nothing to do.
	 * (A lock-free look: if ours appear before core's lock, core's
	 * validation fails and the command can simply be repeated.)
	 */
	if (changes == NIL)
	{
		relid = RangeVarGetRelid(orig->relation, NoLock, true);
		if (!OidIsValid(relid) || stored_opts(relid) == NIL)
		{
			call_next(pstmt, queryString, readOnlyTree, context, params,
					  queryEnv, dest, qc);
			if (cmds_need_fixup(stmt->cmds) &&
				OidIsValid(relid = RangeVarGetRelid(stmt->relation, NoLock, true)))
				fixup_tree(relid, NULL, NULL);
			return;
		}
	}

	/*
	 * The lock core takes for what remains (ShareUpdateExclusiveLock, as
	 * for core's reloptions, when nothing remains), taken first, so that
	 * the catalog we change is the one core then sees.
	 */
	lockmode = cmds != NIL ? AlterTableGetLockLevel(cmds) : ShareUpdateExclusiveLock;
	relid = RangeVarGetRelidExtended(stmt->relation, lockmode,
									 stmt->missing_ok ? RVR_MISSING_OK : 0,
									 RangeVarCallbackOwnsRelation, NULL);
	if (!OidIsValid(relid))
	{
		if (cmds != NIL)
			call_next(copy, queryString, false, context, params, queryEnv,
					  dest, qc);
		else
			ereport(NOTICE,
					(errmsg("relation \"%s\" does not exist, skipping",
							stmt->relation->relname)));
		return;
	}
	if (changes != NIL)
	{
		Relation	rel = relation_open(relid, NoLock);

		check_column_table(rel);
		relation_close(rel, NoLock);
	}

	stored = stored_opts(relid);
	if (core_relopts && stored != NIL)
		write_opts(relid, NIL);
	if (cmds != NIL)
		call_next(copy, queryString, false, context, params, queryEnv,
				  dest, qc);
	CommandCounterIncrement();

	/* checked against the columns as the whole command left them */
	if (changes != NIL)
	{
		Relation	rel = relation_open(relid, NoLock);

		check_column_table(rel);
		check_opts_for_rel(rel, changes);
		relation_close(rel, NoLock);
	}
	if (changes != NIL || (core_relopts && stored != NIL))
		write_opts(relid, apply_opts(stored, changes));
	if (cmds_need_fixup(cmds))
		fixup_tree(relid, NULL, NULL);
}

/* RENAME COLUMN: options that name the column follow it */
static void
rename_column(PlannedStmt *pstmt, const char *queryString,
			  bool readOnlyTree, ProcessUtilityContext context,
			  ParamListInfo params, QueryEnvironment *queryEnv,
			  DestReceiver *dest, QueryCompletion *qc)
{
	RenameStmt *stmt = (RenameStmt *) pstmt->utilityStmt;
	RangeVar   *rv = copyObject(stmt->relation);
	char	   *oldname = pstrdup(stmt->subname);
	char	   *newname = pstrdup(stmt->newname);
	Oid			relid;

	call_next(pstmt, queryString, readOnlyTree, context, params, queryEnv,
			  dest, qc);
	if (rv != NULL && OidIsValid(relid = RangeVarGetRelid(rv, NoLock, true)))
		fixup_tree(relid, oldname, newname);
}

/* the CREATE TABLE AS an EXPLAIN [ANALYZE] runs, if any */
static CreateTableAsStmt *
explained_ctas(Node *parsetree)
{
	Query	   *q;

	if (!IsA(parsetree, ExplainStmt))
		return NULL;
	q = (Query *) ((ExplainStmt *) parsetree)->query;
	if (q == NULL || !IsA(q, Query) || q->commandType != CMD_UTILITY ||
		q->utilityStmt == NULL || !IsA(q->utilityStmt, CreateTableAsStmt))
		return NULL;
	return (CreateTableAsStmt *) q->utilityStmt;
}

static void
colopts_utility(PlannedStmt *pstmt, const char *queryString,
				bool readOnlyTree, ProcessUtilityContext context,
				ParamListInfo params, QueryEnvironment *queryEnv,
				DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	CreateTableAsStmt *ctas;

	/*
	 * ANALYZE samples the blocks the table has when it starts: rows this
	 * backend still buffers for a block must be written first
	 * (REGRESS_DIFFERENCES.md, quickstep_column item 11)
	 */
	if (IsA(parsetree, VacuumStmt))
		qs_colload_flush_all();

	if (IsA(parsetree, CreateStmt) &&
		defs_have_ours(((CreateStmt *) parsetree)->options))
	{
		PlannedStmt *copy = copyObject(pstmt);
		CreateStmt *stmt = (CreateStmt *) copy->utilityStmt;

		create_with_opts(&stmt->options, stmt->relation, stmt->accessMethod,
						 copy, queryString, context, params, queryEnv, dest, qc);
	}
	else if (IsA(parsetree, CreateTableAsStmt) &&
			 defs_have_ours(((CreateTableAsStmt *) parsetree)->into->options))
	{
		PlannedStmt *copy = copyObject(pstmt);
		IntoClause *into = ((CreateTableAsStmt *) copy->utilityStmt)->into;

		/* its rows are loaded before the table can be checked: check first */
		create_with_opts(&into->options, into->rel,
						 into->accessMethod ? into->accessMethod :
						 default_table_access_method,
						 copy, queryString, context, params, queryEnv, dest, qc);
	}
	else if ((ctas = explained_ctas(parsetree)) != NULL &&
			 defs_have_ours(ctas->into->options))
	{
		/* EXPLAIN ANALYZE CREATE TABLE AS creates and fills the table too */
		PlannedStmt *copy = copyObject(pstmt);
		IntoClause *into = explained_ctas(copy->utilityStmt)->into;

		create_with_opts(&into->options, into->rel,
						 into->accessMethod ? into->accessMethod :
						 default_table_access_method,
						 copy, queryString, context, params, queryEnv, dest, qc);
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		/* a type or collation change core does in place: retype.c */
		QsRetype	rt;

		qs_colretype_begin((AlterTableStmt *) parsetree, &rt);
		PG_TRY();
		{
			alter_with_opts(pstmt, queryString, readOnlyTree, context, params,
							queryEnv, dest, qc);
			qs_colretype_after(&rt);
		}
		PG_FINALLY();
		{
			qs_colretype_end(&rt);
		}
		PG_END_TRY();
	}
	else if (IsA(parsetree, RenameStmt) &&
			 ((RenameStmt *) parsetree)->renameType == OBJECT_COLUMN)
		rename_column(pstmt, queryString, readOnlyTree, context, params,
					  queryEnv, dest, qc);
	else
		call_next(pstmt, queryString, readOnlyTree, context, params,
				  queryEnv, dest, qc);
}

void
qs_colopts_install_hooks(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = colopts_utility;
	prev_object_access = object_access_hook;
	object_access_hook = colopts_object_access;
}

/* ------------------------------------------------------------------------
 * SQL: quickstep._is_column_am(oid), for the view quickstep.column_options
 * ------------------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(qs_is_column_am);

Datum
qs_is_column_am(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(am_is_column(PG_GETARG_OID(0)));
}
