import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One case's figures: events accepted (202), (event, webhook) pairs expected and delivered. */
export interface FaultRow {
  label: string;
  accepted: number;
  expected: number;
  delivered: number;
  lost: number;
  duplicates: number;
  /** The case's recovery figure (what it measures is in `detail`); null: it never recovered. */
  recoveryMs: number | null;
  detail: string;
}

const OUTPUT = join(__dirname, '../../test-output');
/** One JSON file per case, written as each case reports (the spec files run in separate module registries). */
const ROWS = join(OUTPUT, 'faults');
export const TABLE_FILE = join(OUTPUT, 'faults-table.md');

/** Forgets the rows of an earlier run (called once before the suite). */
export function clearRows(): void {
  rmSync(ROWS, { recursive: true, force: true });
  mkdirSync(ROWS, { recursive: true });
}

export function recordRow(row: FaultRow): void {
  mkdirSync(ROWS, { recursive: true });
  const file = `${row.label.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.json`;
  writeFileSync(join(ROWS, file), JSON.stringify({ ...row, recordedAt: Date.now() }));
}

function readRows(): FaultRow[] {
  let files: string[];
  try {
    files = readdirSync(ROWS).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const rows = files.map((name) => JSON.parse(readFileSync(join(ROWS, name), 'utf8')) as FaultRow);
  return rows.sort((a, b) => a.label.localeCompare(b.label));
}

export function renderTable(rows: FaultRow[]): string {
  const recovery = (row: FaultRow) => (row.recoveryMs === null ? 'never' : `${(row.recoveryMs / 1000).toFixed(1)} s`);
  const lines = [
    '| case | events accepted | deliveries expected | delivered | lost | duplicates | recovery |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map((row) => `| ${row.label} | ${row.accepted} | ${row.expected} | ${row.delivered} | ${row.lost} | ${row.duplicates} | ${recovery(row)}: ${row.detail} |`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes test-output/faults-table.md from every row recorded in this run and returns the table. */
export function writeTable(): string | null {
  const rows = readRows();
  if (rows.length === 0) return null;
  const table = renderTable(rows);
  writeFileSync(TABLE_FILE, `# Fault suite (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)\n\n${table}`);
  return table;
}
