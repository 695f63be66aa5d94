-- larger data: generated rows, indexes, ANALYZE (STAT4), GROUP BY, sorting, WAL, VACUUM
PRAGMA journal_mode = WAL;
PRAGMA cache_size = 200;
CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL, d BLOB);
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
INSERT INTO t SELECT i, (i * 7919) % 1009, printf('row-%06d-%s', (i * 31) % 60000, substr('abcdefghij', 1 + i % 10)),
                     ((i * 104729) % 100000) / 7.0, zeroblob(i % 17) FROM n;
COMMIT;
CREATE INDEX t_a ON t(a);
CREATE INDEX t_b ON t(b);
CREATE INDEX t_ac ON t(a, c);
ANALYZE;
SELECT count(*), count(DISTINCT a), sum(a), round(avg(c), 6), max(b), min(b), sum(length(d)) FROM t;
SELECT a, count(*), round(sum(c), 3) FROM t WHERE a < 5 GROUP BY a ORDER BY a;
SELECT id, b FROM t WHERE b LIKE 'row-0001%' ORDER BY b LIMIT 5;
SELECT id, a, round(c, 4) FROM t WHERE a = 500 ORDER BY c DESC LIMIT 5;
SELECT count(*) FROM t t1 JOIN t t2 ON t1.a = t2.a AND t2.id = t1.id + 1009;
SELECT substr(b, 12), count(*) FROM t GROUP BY substr(b, 12) ORDER BY 1;
UPDATE t SET c = c * 2 WHERE a % 10 = 0;
DELETE FROM t WHERE id % 3 = 0;
SELECT count(*), round(sum(c), 2) FROM t;
SELECT a FROM t ORDER BY c DESC, id LIMIT 1;
SELECT group_concat(id) FROM (SELECT id FROM t WHERE a = 7 ORDER BY id LIMIT 10);
CREATE TABLE agg AS SELECT a % 50 AS k, count(*) AS n, max(c) AS mx FROM t GROUP BY 1;
SELECT k, n, round(mx, 3) FROM agg ORDER BY n DESC, k LIMIT 5;
PRAGMA wal_checkpoint(TRUNCATE);
PRAGMA journal_mode = DELETE;
VACUUM;
PRAGMA integrity_check;
SELECT count(*) FROM t;
SELECT name, count(*) FROM dbstat GROUP BY name ORDER BY name;
