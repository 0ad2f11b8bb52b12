import { inTransactionAfter, mayCutOff } from './mysql-statement-deadline';

describe('the MySQL statement deadline', () => {
  it.each([
    ['SELECT 1', false],
    ['  select id FROM deliveries WHERE id = ?', false],
    ['SHOW TABLES', false],
    ['START TRANSACTION', false],
    ['ROLLBACK', true],
    ['SET TRANSACTION ISOLATION LEVEL READ COMMITTED', false],
    ['INSERT INTO events (id) VALUES (?)', true],
    ['UPDATE deliveries SET status = ? WHERE id = ?', true],
    ['DELETE FROM events WHERE id = ?', true],
    ['START TRANSACTION;\nSELECT id FROM deliveries WHERE id = ? FOR UPDATE', false],
    ['INSERT INTO attempts (id) VALUES (?);\nSELECT id FROM webhooks WHERE id = ?', true],
  ])('gives up %j (in a transaction: %s): nothing of it can have been committed', (sql, inTransaction) => {
    expect(mayCutOff(sql, inTransaction)).toBe(true);
  });

  it.each([
    ['COMMIT', true],
    ['commit', true],
    ['INSERT INTO events (id) VALUES (?)', false],
    ['UPDATE webhooks SET state = ? WHERE id = ?', false],
    ['DELETE FROM queue_items WHERE id IN (?)', false],
    ['INSERT INTO attempts (id) VALUES (?);\nUPDATE deliveries SET status = ? WHERE id = ?;\nCOMMIT', true],
    ['START TRANSACTION;\nINSERT INTO events (id) VALUES (?);\nCOMMIT', false],
    ['UPDATE deliveries SET claim_token = ? WHERE id = ?;\nSELECT id FROM deliveries WHERE claim_token = ?', false],
  ])('waits for %j (in a transaction: %s): once sent, the server may apply it', (sql, inTransaction) => {
    expect(mayCutOff(sql, inTransaction)).toBe(false);
  });

  it('follows a connection in and out of its transactions', () => {
    const steps = ['START TRANSACTION', 'INSERT INTO t VALUES (1)', 'SAVEPOINT typeorm_1', 'ROLLBACK TO SAVEPOINT typeorm_1', 'COMMIT', 'INSERT INTO t VALUES (2)', 'BEGIN', 'ROLLBACK'];
    const states: boolean[] = [];
    let inTransaction = false;
    for (const sql of steps) states.push((inTransaction = inTransactionAfter(sql, inTransaction)));
    expect(states).toEqual([true, true, true, true, false, false, true, false]);
  });

  it('follows statements sent together: a transaction opened with its first statement and committed with its last writes', () => {
    const steps = ['START TRANSACTION;\nSELECT 1', 'UPDATE t SET a = 1;\nSELECT 2', 'INSERT INTO t VALUES (1);\nCOMMIT', 'START TRANSACTION;\nINSERT INTO t VALUES (2);\nCOMMIT'];
    const states: boolean[] = [];
    let inTransaction = false;
    for (const sql of steps) states.push((inTransaction = inTransactionAfter(sql, inTransaction)));
    expect(states).toEqual([true, true, false, false]);
  });
});
