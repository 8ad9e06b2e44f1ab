-- quickstep_am: the merge of a column table's delta into column blocks (src/merge/).

CREATE FUNCTION quickstep.merge(rel regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'qs_merge_sql' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.merge(regclass) IS
	'move the committed, all-visible rows of a quickstep_column table''s delta into new column blocks, invisibly to every snapshot; returns how many rows moved (table owner only)';

-- The merge worker (src/merge/launcher.c): the launcher learns at once that
-- this database has the extension.
CREATE FUNCTION quickstep._merge_worker_notify() RETURNS void
	AS 'MODULE_PATHNAME', 'qs_merge_worker_notify' LANGUAGE C STRICT VOLATILE;
SELECT quickstep._merge_worker_notify();
