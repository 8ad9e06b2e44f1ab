/*-------------------------------------------------------------------------
 *
 * retype.c
 *	  ALTER COLUMN TYPE that core carries out without rewriting a column
 *	  table, although it changed the order the table's blocks are built in.
 *
 * A main block keeps, per column, values in the order of the column's
 * default btree opclass under its collation (values.c): the dictionary,
 * min/max, the sort key's order, index sub-blocks.  Scans trust that
 * order (a qual under the column's collation runs on codes, min/max skip
 * blocks, a sorted block is binary-searched).  Core rewrites a table for
 * ALTER COLUMN TYPE only if the values' bytes change; a change of
 * collation (ALTER COLUMN s TYPE text COLLATE "x") or a binary-coercible
 * type of another btree family (int4 -> oid: signed to unsigned) keeps
 * every byte and so every block, now read in an order they were not built
 * in: wrong answers, not errors.
 *
 * So, around an ALTER TABLE (or ALTER FOREIGN TABLE, or ALTER TYPE …
 * ALTER ATTRIBUTE … CASCADE) that alters a column's type: before core, the
 * relations it reaches are locked as core will lock them
 * (AlterTableLookupRelation, then the inheritors in find_all_inheritors'
 * order, or the typed tables in core's order) and each column table's
 * relfilenode and each column's btree family and collation are noted.
 * From then until the end of the statement those tables are untrusted:
 * a scan, index build, fetch or check of their blocks judges nothing by
 * order (qs_colretype_reading) — core's own index rebuilds, constraint
 * checks and ddl_command_end event triggers read them in that window.
 * After core, a table whose relfilenode core kept (or that moved
 * tablespace in the same statement: a byte copy) and one of whose columns
 * changed family or collation is rewritten as VACUUM FULL would
 * (cluster_rel without an index): its blocks are built again in the new
 * order, its indexes rebuilt, in the same transaction (no table_rewrite
 * event fires, as for VACUUM FULL).  The lock taken first makes "core
 * kept the relfilenode" a fact about this command, not about another
 * transaction's ALTER committed in between.
 *
 * Not covered: a collation whose library changed its order (glibc or ICU
 * upgrades, REFRESH COLLATION VERSION) — REINDEX does not rebuild blocks;
 * VACUUM FULL does (README limitations).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/cluster.h"
#include "commands/tablecmds.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/fmgroids.h"
#include "utils/typcache.h"

#include "column/colam.h"
#include "column/options.h"

/* what one column table looked like before the command */
typedef struct RetypeRel
{
	Oid			relid;
	Oid			relfilenode;
	int			natts;
	Oid		   *opfamily;		/* per attribute: default btree family */
	Oid		   *collation;
} RetypeRel;

/* the tables whose blocks may not be in their columns' order, in
 * TopMemoryContext; a statement run inside another's window adds to it */
static List *untrusted = NIL;

static bool
alters_a_type(AlterTableStmt *stmt, bool *cascade)
{
	ListCell   *lc;
	bool		found = false;

	*cascade = false;
	if (stmt->objtype != OBJECT_TABLE && stmt->objtype != OBJECT_TYPE &&
		stmt->objtype != OBJECT_FOREIGN_TABLE)
		return false;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *c = lfirst_node(AlterTableCmd, lc);

		if (c->subtype == AT_AlterColumnType)
		{
			found = true;
			*cascade |= c->behavior == DROP_CASCADE;
		}
	}
	return found;
}

static bool
moves_tablespace(AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
		if (lfirst_node(AlterTableCmd, lc)->subtype == AT_SetTableSpace)
			return true;
	return false;
}

static Oid
btree_family(Oid typid)
{
	return lookup_type_cache(typid, TYPECACHE_BTREE_OPFAMILY)->btree_opf;
}

static RetypeRel *
note_rel(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	RetypeRel  *r = palloc(sizeof(RetypeRel));

	r->relid = RelationGetRelid(rel);
	r->relfilenode = rel->rd_rel->relfilenode;
	r->natts = desc->natts;
	r->opfamily = palloc(sizeof(Oid) * desc->natts);
	r->collation = palloc(sizeof(Oid) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		r->opfamily[i] = att->attisdropped ? InvalidOid : btree_family(att->atttypid);
		r->collation[i] = att->attcollation;
	}
	return r;
}

/* does a column of rel, as it is now, order its values unlike in r? */
static bool
order_changed(Relation rel, const RetypeRel *r)
{
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < desc->natts && i < r->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (att->attcollation != r->collation[i] ||
			btree_family(att->atttypid) != r->opfamily[i])
			return true;
	}
	return false;
}

/*
 * The relations stmt's type change reaches, locked with lockmode as core
 * will lock them: the table and (unless ONLY) its inheritors; for ALTER
 * TYPE … CASCADE the tables OF the composite type and theirs (without
 * CASCADE core refuses if there are any: none is locked here).
 */
static List *
reached_rels(AlterTableStmt *stmt, Oid relid, bool cascade, LOCKMODE lockmode)
{
	Relation	classRel;
	ScanKeyData key;
	TableScanDesc scan;
	HeapTuple	tup;
	List	   *typed = NIL;
	List	   *result = NIL;
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TYPE)
		return stmt->relation->inh ?
			find_all_inheritors(relid, lockmode, NULL) : list_make1_oid(relid);
	if (!cascade)
		return NIL;

	/* as core's find_typed_table_dependencies */
	classRel = table_open(RelationRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_class_reloftype, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(get_rel_type_id(relid)));
	scan = table_beginscan_catalog(classRel, 1, &key);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
		typed = lappend_oid(typed, ((Form_pg_class) GETSTRUCT(tup))->oid);
	table_endscan(scan);
	table_close(classRel, AccessShareLock);
	foreach(lc, typed)
		result = list_concat(result,
							 find_all_inheritors(lfirst_oid(lc), lockmode, NULL));
	return result;
}

/*
 * Before core runs stmt: the relations it reaches are locked, the column
 * tables among them noted and untrusted until qs_colretype_end.
 */
void
qs_colretype_begin(AlterTableStmt *stmt, QsRetype *rt)
{
	Oid			relid;
	bool		cascade;
	List	   *tree;
	ListCell   *lc;
	MemoryContext old;

	rt->noted = NIL;
	rt->saved = untrusted;
	rt->tablespace = false;
	if (!alters_a_type(stmt, &cascade))
		return;

	/* core's lookup, lock and checks (IF EXISTS, ownership, relkind) */
	relid = AlterTableLookupRelation(stmt, AccessExclusiveLock);
	if (!OidIsValid(relid))
		return;
	tree = reached_rels(stmt, relid, cascade, AccessExclusiveLock);
	foreach(lc, tree)
	{
		Relation	rel = relation_open(lfirst_oid(lc), NoLock);

		if (qs_is_column_rel(rel))
			rt->noted = lappend(rt->noted, note_rel(rel));
		relation_close(rel, NoLock);
	}
	list_free(tree);
	rt->tablespace = moves_tablespace(stmt);

	old = MemoryContextSwitchTo(TopMemoryContext);
	untrusted = list_copy(untrusted);
	foreach(lc, rt->noted)
		untrusted = lappend_oid(untrusted, ((RetypeRel *) lfirst(lc))->relid);
	MemoryContextSwitchTo(old);
}

/* The statement's window ends (also on error): its tables are trusted. */
void
qs_colretype_end(QsRetype *rt)
{
	if (untrusted != rt->saved)
		list_free(untrusted);
	untrusted = rt->saved;
}

/*
 * A scan, index build, fetch or check of rel's blocks starts with attrs:
 * while rel is untrusted, its blocks' order may not be the columns' one,
 * so nothing may be judged by it — no min/max check or skip, no codes
 * compared, no dictionary built (reading every value needs no order).
 */
void
qs_colretype_reading(Relation rel, QsColAttr *attrs)
{
	if (untrusted == NIL || !list_member_oid(untrusted, RelationGetRelid(rel)))
		return;
	for (int i = 0; i < attrs[0].natts; i++)
	{
		attrs[i].has_order = false;
		attrs[i].dict_ok = false;
		attrs[i].dict_typmod = false;
		attrs[i].cmpfn = NULL;
	}
}

/* rewrite relid as VACUUM FULL does: new blocks, indexes rebuilt */
static void
rewrite_rel(Oid relid)
{
	ClusterParams params = {0};

#if PG_VERSION_NUM >= 170000
	cluster_rel(table_open(relid, AccessExclusiveLock), InvalidOid, &params);
#else
	cluster_rel(relid, InvalidOid, &params);
#endif
}

/* After core ran the statement: rewrite what it left in a stale order. */
void
qs_colretype_after(QsRetype *rt)
{
	ListCell   *lc;

	if (rt->noted == NIL)
		return;
	CommandCounterIncrement();
	foreach(lc, rt->noted)
	{
		RetypeRel  *r = lfirst(lc);
		Relation	rel = try_relation_open(r->relid, NoLock);
		bool		stale;

		if (rel == NULL)
			continue;
		stale = qs_is_column_rel(rel) &&
			(rt->tablespace || rel->rd_rel->relfilenode == r->relfilenode) &&
			order_changed(rel, r);
		relation_close(rel, NoLock);
		if (stale)
		{
			ereport(DEBUG1,
					(errmsg("rewriting column table \"%s\": a column's order changed without a rewrite",
							get_rel_name(r->relid))));
			rewrite_rel(r->relid);
		}
	}
}
