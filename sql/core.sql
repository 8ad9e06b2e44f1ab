--
-- core: the extension loads, reports its state, and its GUCs validate input.
-- (pg_regress creates the extension first: --load-extension=quickstep_am)
--
SELECT extname, extversion, nspname
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE extname = 'quickstep_am';

SELECT version, server_major IN (15, 18) AS known_server,
       shmem_bytes > 0 AS has_shmem,
       started_at <= now() AS started_before_now,
       max_shared_scans
  FROM quickstep.status();

-- The preload check passes on a preloaded server.
SELECT quickstep._require_preload();

-- GUCs: defaults, valid changes, and clear errors for bad input.
SHOW quickstep.enable_pushdown;
SET quickstep.enable_pushdown = off;
SHOW quickstep.enable_pushdown;
RESET quickstep.enable_pushdown;
SET quickstep.enable_pushdown = 'maybe';
SHOW quickstep.max_shared_scans;
SET quickstep.max_shared_scans = 10;
SET quickstep.no_such_setting = 1;
SELECT name, boot_val AS setting, context, vartype
  FROM pg_settings WHERE name LIKE 'quickstep.%' ORDER BY name;
