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
 * So, around an ALTER TABLE that alters a column's type: before core, each
 * column table of the tree is locked as core will lock it
 * (AccessExclusiveLock, parent first, then find_all_inheritors' order) and
 * its relfilenode and each column's btree family and collation are noted;
 * after core, a table whose relfilenode core kept and one of whose columns
 * changed family or collation is rewritten as VACUUM FULL would
 * (cluster_rel without an index): its blocks are built again in the new
 * order, its indexes rebuilt, in the same transaction.  The lock taken
 * first makes "core kept the relfilenode" a fact about this command, not
 * about another transaction's ALTER committed in between.
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

static bool
alters_a_type(AlterTableStmt *stmt)
{
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TABLE && stmt->objtype != OBJECT_TYPE)
		return false;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *c = lfirst_node(AlterTableCmd, lc);

		if (c->subtype == AT_AlterColumnType)
			return true;
	}
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
 * The relations stmt's type change reaches: the table and its inheritors,
 * or for ALTER TYPE … ALTER ATTRIBUTE … CASCADE the tables OF the
 * composite type (and theirs), each locked with lockmode.
 */
static List *
reached_rels(AlterTableStmt *stmt, Oid relid, LOCKMODE lockmode)
{
	Relation	classRel;
	ScanKeyData key;
	TableScanDesc scan;
	HeapTuple	tup;
	List	   *typed = NIL;
	List	   *result = NIL;
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TYPE)
		return find_all_inheritors(relid, lockmode, NULL);

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

/* the column tables of reached_rels, noted */
static List *
column_tables(AlterTableStmt *stmt, Oid relid, LOCKMODE lockmode)
{
	List	   *tree = reached_rels(stmt, relid, lockmode);
	List	   *noted = NIL;
	ListCell   *lc;

	foreach(lc, tree)
	{
		Relation	rel = try_relation_open(lfirst_oid(lc), NoLock);

		if (rel == NULL)
			continue;
		if (qs_is_column_rel(rel))
			noted = lappend(noted, note_rel(rel));
		relation_close(rel, NoLock);
	}
	list_free(tree);
	return noted;
}

/*
 * Before core runs stmt: the column tables of its tree, locked and noted
 * (a list of RetypeRel), or NIL when stmt alters no column's type or the
 * tree has no column table.
 */
List *
qs_colretype_before(AlterTableStmt *stmt)
{
	Oid			relid;
	List	   *noted;

	if (!alters_a_type(stmt))
		return NIL;

	/* a lock-free look first: a tree without column tables is not locked */
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid) || (noted = column_tables(stmt, relid, NoLock)) == NIL)
		return NIL;
	list_free_deep(noted);

	/* core's lock for a type change, in core's order, its checks first */
	relid = RangeVarGetRelidExtended(stmt->relation, AccessExclusiveLock,
									 stmt->missing_ok ? RVR_MISSING_OK : 0,
									 RangeVarCallbackOwnsRelation, NULL);
	if (!OidIsValid(relid))
		return NIL;
	return column_tables(stmt, relid, AccessExclusiveLock);
}

/* the table rewrite_rel is copying, whose blocks are in the old order */
static Oid	rewriting = InvalidOid;

/*
 * A scan of rel's blocks starts with attrs: while rel is being rewritten
 * here, its blocks' order is not the columns' one, so nothing may be
 * judged by it — no min/max check or skip, no codes compared (the copy
 * reads every value, which needs no order).
 */
void
qs_colretype_reading(Relation rel, QsColAttr *attrs)
{
	if (!OidIsValid(rewriting) || RelationGetRelid(rel) != rewriting)
		return;
	for (int i = 0; i < attrs[0].natts; i++)
	{
		attrs[i].has_order = false;
		attrs[i].dict_ok = false;
		attrs[i].cmpfn = NULL;
	}
}

/* rewrite relid as VACUUM FULL does: new blocks, indexes rebuilt */
static void
rewrite_rel(Oid relid)
{
	ClusterParams params = {0};

	Assert(!OidIsValid(rewriting));
	rewriting = relid;
	PG_TRY();
	{
#if PG_VERSION_NUM >= 170000
		cluster_rel(table_open(relid, AccessExclusiveLock), InvalidOid, &params);
#else
		cluster_rel(relid, InvalidOid, &params);
#endif
	}
	PG_FINALLY();
	{
		rewriting = InvalidOid;
	}
	PG_END_TRY();
}

/* After core ran the statement: rewrite what it left in a stale order. */
void
qs_colretype_after(List *noted)
{
	ListCell   *lc;

	if (noted == NIL)
		return;
	CommandCounterIncrement();
	foreach(lc, noted)
	{
		RetypeRel  *r = lfirst(lc);
		Relation	rel = try_relation_open(r->relid, NoLock);
		bool		stale;

		if (rel == NULL)
			continue;
		stale = qs_is_column_rel(rel) &&
			rel->rd_rel->relfilenode == r->relfilenode &&
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
