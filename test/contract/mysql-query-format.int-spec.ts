import { format } from 'mysql2';
import { mysqlQueryFormat, quoteLongString } from '../../libs/adapters/sql/src/mysql-query-format';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

const json = JSON.stringify({ order: { id: 'o_1', items: Array.from({ length: 20 }, (_, i) => ({ sku: `s${i}`, note: 'say "hi"' })) } });
const awkward = [
  json,
  `${json} it's`,
  `${'x'.repeat(70)}'); DROP TABLE fmt_probe; --`,
  `${'q'.repeat(70)} \\' \\" \\\\ ends with a backslash \\`,
  `${'c'.repeat(70)} \0 \b \t \n \r \x1a controls`,
  `${'u'.repeat(70)} ünïcödé ✓ 😀 "quoted" ? ?? placeholders in a value`,
  '"'.repeat(64),
  'a'.repeat(63) + "'",
  'a'.repeat(64) + "'",
];

describe('MySQL query formatting (long strings quoted by quoteLongString)', () => {
  it('writes what mysql2 writes, but for the double quote, which a single-quoted literal keeps as it is', () => {
    for (const value of awkward) expect(quoteLongString(value)).toBe(format('?', [value]).replace(/\\"/g, '"'));
    expect(quoteLongString('{"a":"b"}')).toBe(`'{"a":"b"}'`);
  });

  it('leaves SQL with an identifier placeholder (??) to mysql2 alone', () => {
    const long = 'c'.repeat(80);
    expect(mysqlQueryFormat('SELECT ?? FROM t WHERE v = ?', [long, `${long}"`], 'Z')).toBe(format('SELECT ?? FROM t WHERE v = ?', [long, `${long}"`], false, 'Z'));
    expect(mysqlQueryFormat('SELECT ? AS v', [`${long}"`], 'Z')).toBe(`SELECT '${long}"' AS v`);
  });

  describe('against MariaDB', () => {
    let database: TestDatabase;
    let db: TypeormDatabase;
    let skip = false;

    beforeAll(async () => {
      skip = !(await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port));
      if (skip) return;
      database = await openTestDatabase('mysql');
      db = database.db;
      await db.query('CREATE TABLE fmt_probe (id INT PRIMARY KEY, v LONGTEXT CHARACTER SET utf8mb4, n INT NULL, at BIGINT NULL, short VARCHAR(64) NULL)');
    });
    afterAll(async () => {
      if (!skip) await database.drop();
    });

    it('stores every awkward string exactly as given, beside other kinds of values in the same statement', async () => {
      if (skip) return;
      const rows = awkward.map((value, id) => [id, value, id % 2 === 0 ? null : id * 7, Date.UTC(2025, 10, 22) + id, `short '${id}' "x" \\`]);
      await db.query(`INSERT INTO fmt_probe (id, v, n, at, short) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}`, rows.flat());
      const stored = await db.query<{ id: number; v: string; n: number | null; at: number; short: string }>('SELECT id, v, n, at, short FROM fmt_probe ORDER BY id');
      expect(stored.map((r) => [Number(r.id), r.v, r.n === null ? null : Number(r.n), Number(r.at), r.short])).toEqual(rows);
      // A long string compared in a WHERE finds its row: the literal means the same on the way in and out.
      expect(await db.query('SELECT id FROM fmt_probe WHERE v = ?', [awkward[2]])).toEqual([{ id: 2 }]);
      // The value that reads like an injection stayed a value: the table and all its rows are there.
      expect(Number((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM fmt_probe'))[0].n)).toBe(awkward.length);
    });
  });
});
