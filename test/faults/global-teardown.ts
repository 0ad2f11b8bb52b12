import { TABLE_FILE, writeTable } from './fault-table';

/** Jest globalTeardown of the `faults` project: prints the table of every case that ran and writes it to a file. */
export default function tearDown(): void {
  const table = writeTable();
  if (table) process.stdout.write(`\nFault suite (also in ${TABLE_FILE}):\n\n${table}\n`);
}
