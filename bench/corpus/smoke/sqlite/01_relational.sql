-- tables, constraints, indexes, joins, aggregates, views, CTEs, window functions
PRAGMA foreign_keys = ON;
CREATE TABLE dept (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, budget REAL CHECK (budget >= 0));
CREATE TABLE emp (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  dept_id INTEGER REFERENCES dept(id) ON DELETE CASCADE,
  salary INTEGER NOT NULL DEFAULT 1000,
  manager_id INTEGER REFERENCES emp(id),
  hired TEXT
);
CREATE INDEX emp_dept ON emp(dept_id, salary DESC);
CREATE INDEX emp_upper_name ON emp(upper(name));
CREATE UNIQUE INDEX emp_name_dept ON emp(name, dept_id) WHERE dept_id IS NOT NULL;
INSERT INTO dept VALUES (1, 'Engineering', 1e6), (2, 'Sales', 250000.5), (3, 'Support', 0), (4, 'Empty', 10);
INSERT INTO emp (name, dept_id, salary, manager_id, hired) VALUES
  ('alice', 1, 9000, NULL, '2019-03-01'), ('bob', 1, 7000, 1, '2020-07-15'),
  ('carol', 2, 6500, NULL, '2018-01-20'), ('dave', 2, 4000, 3, '2021-11-30'),
  ('erin', 3, 3000, 3, '2022-02-28'), ('frank', 1, 7000, 2, '2023-05-05'),
  ('grace', NULL, 5000, NULL, '2017-09-09'), ('heidi', 3, 3500, 5, '2020-12-31');
SELECT count(*), sum(salary), avg(salary), min(salary), max(salary), total(salary) FROM emp;
SELECT d.name, count(e.id) AS n, coalesce(sum(e.salary), 0) AS payroll
  FROM dept d LEFT JOIN emp e ON e.dept_id = d.id GROUP BY d.id ORDER BY payroll DESC, d.name;
SELECT e.name, m.name AS manager FROM emp e LEFT JOIN emp m ON e.manager_id = m.id ORDER BY e.name;
SELECT e.name, d.name FROM emp e INNER JOIN dept d USING (id) ORDER BY 1;
SELECT e.name FROM emp e CROSS JOIN dept d WHERE d.name = 'Sales' AND e.dept_id = d.id;
SELECT name FROM emp WHERE dept_id IS NULL OR salary BETWEEN 3000 AND 4000 ORDER BY name;
SELECT dept_id, group_concat(name, ';') FROM (SELECT * FROM emp ORDER BY name) GROUP BY dept_id HAVING count(*) > 1 ORDER BY dept_id;
SELECT name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE budget > 100000) ORDER BY salary DESC, name LIMIT 3 OFFSET 1;
SELECT name FROM emp e WHERE EXISTS (SELECT 1 FROM emp x WHERE x.manager_id = e.id) ORDER BY name;
SELECT name, salary, CASE WHEN salary >= 7000 THEN 'high' WHEN salary >= 4000 THEN 'mid' ELSE 'low' END FROM emp ORDER BY id;
SELECT name FROM emp UNION SELECT name FROM dept ORDER BY 1;
SELECT dept_id FROM emp INTERSECT SELECT id FROM dept ORDER BY 1;
SELECT id FROM dept EXCEPT SELECT dept_id FROM emp ORDER BY 1;
CREATE VIEW payroll AS SELECT d.name AS dept, e.name AS emp, e.salary FROM emp e JOIN dept d ON d.id = e.dept_id;
SELECT * FROM payroll WHERE salary > 5000 ORDER BY dept, emp;
SELECT dept, max(salary) FROM payroll GROUP BY dept ORDER BY dept;
-- window functions
SELECT name, dept_id, salary,
       rank() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS rnk,
       dense_rank() OVER w AS drnk, row_number() OVER w AS rn,
       sum(salary) OVER (PARTITION BY dept_id ORDER BY salary ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
       lag(name) OVER (ORDER BY id) AS prev, lead(salary, 2, -1) OVER (ORDER BY id) AS next2,
       ntile(3) OVER (ORDER BY salary, id) AS tile, first_value(name) OVER w AS top,
       round(percent_rank() OVER (ORDER BY salary), 4) AS pr, round(cume_dist() OVER (ORDER BY salary), 4) AS cd
  FROM emp WINDOW w AS (PARTITION BY dept_id ORDER BY salary DESC) ORDER BY id;
-- CTEs, recursive CTEs
WITH RECURSIVE chain(id, name, depth, path) AS (
  SELECT id, name, 0, name FROM emp WHERE manager_id IS NULL
  UNION ALL
  SELECT e.id, e.name, c.depth + 1, c.path || '>' || e.name FROM emp e JOIN chain c ON e.manager_id = c.id
) SELECT name, depth, path FROM chain ORDER BY path;
WITH RECURSIVE cnt(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM cnt WHERE x < 20)
  SELECT group_concat(x), sum(x * x) FROM cnt;
WITH RECURSIVE fib(a, b, n) AS (SELECT 0, 1, 0 UNION ALL SELECT b, a + b, n + 1 FROM fib WHERE n < 60)
  SELECT max(a) FROM fib;
WITH RECURSIVE
  xaxis(x) AS (VALUES(-2.0) UNION ALL SELECT x + 0.05 FROM xaxis WHERE x < 1.2),
  yaxis(y) AS (VALUES(-1.0) UNION ALL SELECT y + 0.1 FROM yaxis WHERE y < 1.0),
  m(iter, cx, cy, x, y) AS (
    SELECT 0, x, y, 0.0, 0.0 FROM xaxis, yaxis
    UNION ALL
    SELECT iter + 1, cx, cy, x * x - y * y + cx, 2.0 * x * y + cy FROM m WHERE (x * x + y * y) < 4.0 AND iter < 28),
  m2(iter, cx, cy) AS (SELECT max(iter), cx, cy FROM m GROUP BY cx, cy),
  a(t) AS (SELECT group_concat(substr(' .+*#', 1 + min(iter / 7, 4), 1), '') FROM m2 GROUP BY cy)
SELECT group_concat(rtrim(t), x'0a') FROM a;
WITH top AS MATERIALIZED (SELECT dept_id, max(salary) AS s FROM emp GROUP BY dept_id)
  SELECT e.name FROM emp e JOIN top t ON e.dept_id = t.dept_id AND e.salary = t.s ORDER BY e.name;
-- updates, deletes, cascades, upsert, returning
UPDATE emp SET salary = salary * 11 / 10 WHERE dept_id = 1 RETURNING name, salary;
INSERT INTO dept (id, name, budget) VALUES (2, 'Sales', 1) ON CONFLICT(id) DO UPDATE SET budget = budget + excluded.budget;
SELECT budget FROM dept WHERE id = 2;
INSERT OR REPLACE INTO dept VALUES (4, 'Empty', 20);
INSERT OR IGNORE INTO dept VALUES (4, 'Ignored', 30);
DELETE FROM dept WHERE id = 3;
SELECT count(*) FROM emp;
SELECT changes(), total_changes() > 0;
-- constraint errors are reported and execution continues
INSERT INTO dept VALUES (5, 'Engineering', 1);
INSERT INTO dept VALUES (6, 'Negative', -1);
INSERT INTO emp (name, dept_id) VALUES ('zed', 99);
INSERT INTO emp (name) VALUES (NULL);
SELECT * FROM no_such_table;
SELECT 1 +;
-- type affinity and expressions
SELECT typeof(1), typeof(1.5), typeof('x'), typeof(x'00'), typeof(NULL), 1 / 2, 1.0 / 2, 7 % 3, -7 % 3, 5 / 0;
SELECT CAST('12abc' AS INTEGER), CAST(3.99 AS INTEGER), CAST(12 AS TEXT) || 'x', '10' + 5, '3' < 10, 'abc' < 'abd';
SELECT abs(-5), round(2.567, 2), round(-2.5), max(1, 2, 3), min('b', 'a'), nullif(1, 1), ifnull(NULL, 'd'), iif(1 > 2, 'y', 'n');
SELECT length('héllo'), octet_length('héllo'), upper('abc'), lower('ABC'), substr('abcdef', 2, 3), substr('abcdef', -2),
       replace('aaa', 'a', 'bb'), trim('  x  '), ltrim('xxy', 'x'), instr('hello', 'll'), hex('AB'), unicode('€'), char(72, 105);
SELECT printf('%5.2f|%-5d|%05d|%s|%q|%x|%c|%,d', 3.14159, 42, 42, 'str', 'it''s', 255, 65, 1234567);
SELECT format('%e', 12345.6789), quote('a''b'), quote(x'beef'), quote(NULL), zeroblob(3), randomblob(0) IS NOT NULL;
SELECT 'abc' LIKE 'A%', 'abc' GLOB 'A*', 'abc' GLOB 'a?c', 'x_y' LIKE 'x\_y' ESCAPE '\', soundex('Robert');
SELECT date('2024-02-28', '+1 day'), date('2023-02-28', '+1 day'), datetime(1700000000, 'unixepoch'),
       strftime('%Y-%j %W %w %H:%M:%f', '2024-12-31 23:59:58.5'), julianday('2000-01-01'), date('2024-01-31', '+1 month'),
       time('12:00', '+90 minutes'), unixepoch('2038-01-19 03:14:08'), date('2024-03-15', 'start of month', '-1 day');
SELECT 9223372036854775807 + 1, -9223372036854775808 - 1, 2.0e308 * 10, 0.1 + 0.2, 1e-320, 123456789012345678;
SELECT sum(x), avg(x), total(x), count(x), count(*) FROM (SELECT NULL AS x UNION ALL SELECT NULL);
SELECT coalesce(NULL, NULL, 3), NULL = NULL, NULL IS NULL, 1 IS NOT 2, 3 IN (1, 2, 3), 4 NOT IN (SELECT NULL);
