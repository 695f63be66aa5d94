-- fmerge speed benchmark, SQLite TRAINING workload (PGO profile only).
CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
INSERT INTO t SELECT i, (i * 7919) % 1000, printf('name-%05d', (i * 31) % 5000), i / 3.0 FROM n;
CREATE INDEX t_a ON t(a);
SELECT a % 10, count(*), sum(c), max(b) FROM t GROUP BY a % 10 ORDER BY 1;
SELECT count(*) FROM t WHERE b LIKE 'name-01%';
SELECT count(*) FROM t x JOIN t y ON x.a = y.id WHERE y.a < 500;
UPDATE t SET c = c * 2 WHERE a < 300;
SELECT sum(c), avg(a), group_concat(DISTINCT substr(b, 6, 2)) FROM t WHERE id % 7 = 0;
DELETE FROM t WHERE a > 900;
SELECT count(*), total(length(b)) FROM t;
SELECT b, count(*) AS k FROM t GROUP BY b ORDER BY k DESC, b LIMIT 5;
