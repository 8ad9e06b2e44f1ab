-- quickstep_am: core objects.  This part comes first in the extension
-- script; each module appends its own part (src/<module>/*.sql).

\echo Use "CREATE EXTENSION quickstep_am" to load this file. \quit

-- Refuse, with a hint, when the library is not in shared_preload_libraries.
CREATE FUNCTION quickstep._require_preload() RETURNS void
	AS 'MODULE_PATHNAME', 'qs_require_preload_sql' LANGUAGE C STRICT;
SELECT quickstep._require_preload();

CREATE FUNCTION quickstep.status(
	OUT version text,
	OUT server_major int,
	OUT shmem_bytes bigint,
	OUT started_at timestamptz,
	OUT max_shared_scans int)
	RETURNS record
	AS 'MODULE_PATHNAME', 'qs_status' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.status() IS
	'quickstep_am version, server major version and shared memory state';

-- Options of column tables (src/column/options.c, src/column/README.md
-- section 8): the quickstep.* entries of pg_class.reloptions.
CREATE FUNCTION quickstep._is_column_am(am oid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'qs_is_column_am' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION quickstep._is_column_am(oid) IS
	'is this table access method one over the quickstep column handler';

CREATE VIEW quickstep.column_options AS
SELECT c.oid::regclass AS relid,
       o.name,
       o.value,
       CASE
         WHEN o.name = 'sort_key' AND NOT EXISTS (
                SELECT 1 FROM pg_attribute a
                WHERE a.attrelid = c.oid AND a.attnum > 0
                  AND NOT a.attisdropped AND a.attname = o.value)
           THEN 'no such column: loads do not sort'
         WHEN o.name LIKE 'encoding\_%' AND NOT EXISTS (
                SELECT 1 FROM pg_attribute a
                WHERE a.attrelid = c.oid AND a.attnum > 0
                  AND NOT a.attisdropped AND a.attname = substr(o.name, 10))
           THEN 'no such column: ignored'
       END AS note
FROM pg_class c,
     LATERAL (SELECT substr(e, 11, strpos(e, '=') - 11) AS name,
                     substr(e, strpos(e, '=') + 1) AS value
              FROM unnest(c.reloptions) AS e
              WHERE e LIKE 'quickstep.%=%') o
WHERE c.relkind IN ('r', 'm') AND c.reloptions IS NOT NULL
  AND quickstep._is_column_am(c.relam);
COMMENT ON VIEW quickstep.column_options IS
	'quickstep.* options of column tables (pg_class.reloptions); note says when one has no effect (it names no column)';
