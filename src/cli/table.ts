/** One column of a table: its header and how a row shows in it. */
export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Numbers read best right-aligned. @default 'left' */
  align?: 'left' | 'right';
}

export interface TableOptions {
  /** Box-drawing borders, for a terminal; aligned plain columns otherwise. */
  boxed: boolean;
}

/** Longer cell values are cut with "…" so that one long message cannot stretch every row. */
export const MAX_CELL_WIDTH = 60;
// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCE = /\u001b\[[0-9;]*m/g;
const COLUMN_GAP = '  ';

/**
 * A table as text, one line per row after the header. On a terminal it has borders; piped, it
 * is plain aligned columns (and `--json` is there for scripts).
 */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], options: TableOptions): string {
  const cells = rows.map((row) => columns.map((column) => fit(column.value(row))));
  const widths = columns.map((column, i) => Math.max(visibleLength(column.header), ...cells.map((line) => visibleLength(line[i] ?? ''))));
  const format = (line: readonly string[]) => line.map((cell, i) => pad(cell, widths[i] ?? 0, columns[i]?.align ?? 'left'));
  const header = format(columns.map((column) => column.header));
  const body = cells.map(format);
  return options.boxed ? boxed(header, body, widths) : plain(header, body);
}

function plain(header: readonly string[], body: readonly string[][]): string {
  return [header, ...body].map((line) => `${line.join(COLUMN_GAP).trimEnd()}\n`).join('');
}

function boxed(header: readonly string[], body: readonly string[][], widths: readonly number[]): string {
  const rule = (left: string, middle: string, right: string) => `${left}${widths.map((width) => '─'.repeat(width + 2)).join(middle)}${right}\n`;
  const row = (line: readonly string[]) => `│ ${line.join(' │ ')} │\n`;
  return rule('┌', '┬', '┐') + row(header) + rule('├', '┼', '┤') + body.map(row).join('') + rule('└', '┴', '┘');
}

function fit(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return visibleLength(flat) > MAX_CELL_WIDTH ? `${flat.replace(ANSI_SEQUENCE, '').slice(0, MAX_CELL_WIDTH - 1)}…` : flat;
}

function pad(cell: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(cell)));
  return align === 'right' ? fill + cell : cell + fill;
}

function visibleLength(text: string): number {
  return [...text.replace(ANSI_SEQUENCE, '')].length;
}
