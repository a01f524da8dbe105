/** Human output of the admin command line: aligned columns and `key: value` blocks. */

export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Rows under a header, each column as wide as its widest cell; the last column is not padded. */
export function table(columns: readonly string[], rows: ReadonlyArray<Readonly<Record<string, unknown>>>): string {
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => (line[i] ?? '').length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].map((l) => `${l}\n`).join('');
}

/** One record as `key: value` lines, keys aligned. */
export function record(fields: Readonly<Record<string, unknown>>): string {
  const width = Math.max(...Object.keys(fields).map((key) => key.length));
  return Object.entries(fields)
    .map(([key, value]) => `${`${key}:`.padEnd(width + 2)}${cell(value)}\n`)
    .join('');
}
