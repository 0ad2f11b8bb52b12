export interface HeaderRow {
  name: string;
  value: string;
}

/** Custom headers as editable name / value rows. */
export function HeaderRows({ rows, onChange }: { rows: HeaderRow[]; onChange: (rows: HeaderRow[]) => void }) {
  const set = (index: number, patch: Partial<HeaderRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <fieldset class="headers">
      <legend>Custom headers</legend>
      {rows.length === 0 ? <p class="hint">None. Host, Content-Length, Content-Type and the signature header are set by the server.</p> : null}
      {rows.map((row, index) => (
        <div class="header-row" key={index}>
          <label for={`header-name-${index}`}>Header {index + 1} name</label>
          <input id={`header-name-${index}`} value={row.name} placeholder="Authorization" onInput={(e) => set(index, { name: e.currentTarget.value })} />
          <label for={`header-value-${index}`}>Header {index + 1} value</label>
          <input id={`header-value-${index}`} value={row.value} autoComplete="off" onInput={(e) => set(index, { value: e.currentTarget.value })} />
          <button type="button" onClick={() => onChange(rows.filter((_, i) => i !== index))} aria-label={`Remove header ${index + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, { name: '', value: '' }])}>
        Add header
      </button>
    </fieldset>
  );
}

/** The rows with a name, as the API's headers object. */
export function headersOf(rows: HeaderRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => r.name.trim() !== '').map((r) => [r.name.trim(), r.value]));
}
