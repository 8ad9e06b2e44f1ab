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
