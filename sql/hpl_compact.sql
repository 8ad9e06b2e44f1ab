-- HPL compaction (src/page/hpl.c, issue 11): a repack keeps the values'
-- order in the variable-size area.  Repacked in slot order, a long
-- int-aligned value that arrived after a short unaligned one but holds a
-- lower slot needs alignment padding it did not need before: the area
-- grows by a few bytes although nothing is reclaimed, and on a full page
-- it ran into the fixed fields (check_table: "bad page header", VACUUM:
-- a crash).  Each table below has one page whose hole is made exactly
-- empty (pageinspect reads the standard page header), then loses a row
-- whose value is NULL (no bytes to reclaim) and is compacted: by VACUUM's
-- second pass, then by opportunistic pruning in a scan.
CREATE SCHEMA hpl_compact;
SET search_path = hpl_compact, public;
CREATE EXTENSION pageinspect;

-- cv is compacted by VACUUM, cp by pruning; both are set up alike:
-- slot 1: a row deleted and vacuumed away; slot 2: a short value (3 bytes,
-- unaligned); f (plain storage: a 4-byte header, no compression) fills
SELECT format('CREATE TABLE %s (id int, v text, f text) USING quickstep_hpl WITH (autovacuum_enabled = off)', t),
       format('ALTER TABLE %s ALTER f SET STORAGE plain', t),
       format('INSERT INTO %s VALUES (1, NULL), (2, %L), (3, NULL)', t, 'ab'),
       format('DELETE FROM %s WHERE id = 1', t),
       format('VACUUM %s', t),
       -- slot 1 again: a 4-byte-aligned value below the short one in the area
       format('INSERT INTO %s VALUES (4, repeat(%L, 197))', t, 'L')
  FROM (VALUES ('cv'), ('cp')) x(t) \gexec
-- a last value that leaves no byte of the hole
SELECT (SELECT upper - lower - 4 FROM page_header(get_raw_page('cv', 0))) AS fill_cv,
       (SELECT upper - lower - 4 FROM page_header(get_raw_page('cp', 0))) AS fill_cp \gset
INSERT INTO cv VALUES (5, NULL, repeat('F', :fill_cv));
INSERT INTO cp VALUES (5, NULL, repeat('F', :fill_cp));
SELECT t, upper - lower AS hole, pg_relation_size(t) / 8192 AS pages
  FROM (VALUES ('cv'), ('cp')) x(t), page_header(get_raw_page(t, 0));

-- nothing to reclaim but a slot: the repack must fit where the values are
DELETE FROM cv WHERE id = 3;
VACUUM cv;
SELECT quickstep.check_table('cv');
SELECT id, length(v), left(v, 3), length(f) = :fill_cv AS filled FROM cv ORDER BY id;
SELECT lower <= upper AS header_ok FROM page_header(get_raw_page('cv', 0));
-- and the freed slot takes a row again
INSERT INTO cv VALUES (6, NULL);
SELECT quickstep.check_table('cv');

-- the same page compacted by opportunistic pruning (a scan of a full page
-- whose deleted row is dead to all)
DELETE FROM cp WHERE id = 3;
SELECT id, length(v), left(v, 3), length(f) = :fill_cp AS filled FROM cp ORDER BY id;
SELECT upper - lower AS hole_after_pruning FROM page_header(get_raw_page('cp', 0));
SELECT quickstep.check_table('cp');
SELECT id, length(v), left(v, 3), length(f) = :fill_cp AS filled FROM cp ORDER BY id;

DROP EXTENSION pageinspect;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_compact CASCADE;
RESET client_min_messages;
