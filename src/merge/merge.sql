-- quickstep_am: the merge of a column table's delta into column blocks (src/merge/).

CREATE FUNCTION quickstep.merge(rel regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'qs_merge_sql' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.merge(regclass) IS
	'move the committed, all-visible rows of a quickstep_column table''s delta into new column blocks, invisibly to every snapshot; returns how many rows moved (table owner only)';

CREATE FUNCTION quickstep.seal(rel regclass) RETURNS integer
	AS 'MODULE_PATHNAME', 'qs_seal_sql' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.seal(regclass) IS
	'seal a quickstep_column table''s open block and, with a sort key, sort its sealed blocks still in arrival order, keeping every row''s TID, and writes blocks whose runs have enough empty pages below them again there, so that VACUUM can truncate the file''s end; returns how many blocks were sealed or sorted (table owner only)';

-- The merge worker (src/merge/launcher.c): the launcher learns at once that
-- this database has the extension.
CREATE FUNCTION quickstep._merge_worker_notify() RETURNS void
	AS 'MODULE_PATHNAME', 'qs_merge_worker_notify' LANGUAGE C STRICT VOLATILE;
SELECT quickstep._merge_worker_notify();
