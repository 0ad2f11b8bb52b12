import { round } from './bench-support';

/** One measured figure beside its baseline and target, as printed and as written to docs/benchmarks.md. */
export interface FigureRow {
  profile: string;
  /** Figure number of issue 11 (1-9). */
  figure: number;
  name: string;
  value: number | null;
  unit: string;
  baseline: number | null;
  baselineName: string;
  /** value / baseline when both exist. */
  ratio: number | null;
  target: string;
  /** null: informational, no target. */
  met: boolean | null;
  note: string;
}

export type Target =
  | { kind: 'ratio-at-least'; value: number }
  | { kind: 'at-least'; value: number }
  | { kind: 'at-most'; value: number }
  | { kind: 'ratio-at-most'; value: number }
  | { kind: 'none' };

export function figureRow(input: Omit<FigureRow, 'ratio' | 'met' | 'target' | 'note' | 'baseline' | 'baselineName'> & { baseline?: number | null; baselineName?: string; target: Target; note?: string }): FigureRow {
  const baseline = input.baseline ?? null;
  const ratio = input.value !== null && baseline ? input.value / baseline : null;
  const { target } = input;
  const met =
    target.kind === 'none'
      ? null
      : target.kind === 'at-least'
        ? input.value !== null && input.value >= target.value
        : target.kind === 'at-most'
          ? input.value !== null && input.value <= target.value
          : target.kind === 'ratio-at-least'
            ? ratio !== null && ratio >= target.value
            : ratio !== null && ratio <= target.value;
  return {
    ...input,
    baseline,
    baselineName: input.baselineName ?? '',
    ratio,
    target: describeTarget(target, input.unit),
    met,
    note: input.note ?? '',
  };
}

function describeTarget(target: Target, unit: string): string {
  switch (target.kind) {
    case 'none':
      return '—';
    case 'at-least':
      return `≥ ${target.value.toLocaleString('en')} ${unit}`.trim();
    case 'at-most':
      return `≤ ${target.value.toLocaleString('en')} ${unit}`.trim();
    case 'ratio-at-least':
      return `ratio ≥ ${target.value}`;
    case 'ratio-at-most':
      return `ratio ≤ ${target.value}`;
  }
}

/** Accepted vs delivered for one phase of load: what "lost" and "duplicates" are counted from. */
export interface LedgerRow {
  profile: string;
  phase: string;
  accepted: number;
  delivered: number;
  lost: number;
  duplicates: number;
  serverErrors: number;
  /** Deliveries whose two signatures the receiver checked (a sample), and how many failed. */
  signaturesChecked: number;
  signaturesFailed: number;
}

const show = (value: number | null, digits = 1) => (value === null || Number.isNaN(value) ? '—' : value === Infinity ? '∞' : round(value, digits).toLocaleString('en'));
const yesNo = (met: boolean | null) => (met === null ? '—' : met ? 'yes' : '**no**');

export function printFigures(title: string, rows: FigureRow[]): void {
  console.log(`\n${title}`);
  console.table(
    rows.map((row) => ({
      '#': row.figure,
      profile: row.profile,
      figure: row.name,
      value: `${show(row.value)} ${row.unit}`.trim(),
      baseline: row.baseline === null ? '—' : `${show(row.baseline)} ${row.baselineName}`,
      ratio: show(row.ratio, 3),
      target: row.target,
      met: yesNo(row.met).replace(/\*/g, ''),
    })),
  );
  const notes = rows.filter((row) => row.note);
  for (const row of notes) console.log(`  ${row.figure}. ${row.name} (${row.profile}): ${row.note}`);
}

export function printLedger(rows: LedgerRow[]): void {
  console.log('\n7. accepted vs delivered per phase');
  console.table(rows);
}

export function markdown(rows: FigureRow[], ledger: LedgerRow[], header: string[]): string {
  const lines = [
    '# Benchmarks',
    '',
    ...header,
    '',
    '| # | figure | profile | value | baseline | ratio | target | met | notes |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.figure} | ${row.name} | ${row.profile} | ${`${show(row.value)} ${row.unit}`.trim()} | ${row.baseline === null ? '—' : `${show(row.baseline)} (${row.baselineName})`} | ${show(row.ratio, 3)} | ${row.target} | ${yesNo(row.met)} | ${row.note} |`,
    ),
    '',
    '## Accepted and delivered, per phase',
    '',
    '| profile | phase | accepted | delivered | lost | duplicates | 5xx + no answer | signatures checked / failed |',
    '|---|---|---|---|---|---|---|---|',
    ...ledger.map(
      (row) =>
        `| ${row.profile} | ${row.phase} | ${row.accepted} | ${row.delivered} | ${row.lost} | ${row.duplicates} | ${row.serverErrors} | ${row.signaturesChecked} / ${row.signaturesFailed} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
