/** One line of the results table. */
export interface ResultRow {
  readonly measure: string;
  readonly figure: string;
  readonly goal?: string;
  /** True when the goal is met, false when not, undefined when the line has no goal. */
  readonly met?: boolean | undefined;
}

/** A heading followed by its lines. */
export interface ResultSection {
  readonly title: string;
  readonly rows: readonly ResultRow[];
}

/** The sections as a plain-text table with aligned columns. */
export function formatResultsTable(sections: readonly ResultSection[]): string {
  const all = sections.flatMap((s) => s.rows);
  const widths = {
    measure: Math.max(7, ...all.map((r) => r.measure.length)),
    figure: Math.max(6, ...all.map((r) => r.figure.length)),
    goal: Math.max(4, ...all.map((r) => (r.goal ?? '').length)),
  };
  const line = (measure: string, figure: string, goal: string, status: string) =>
    `  ${measure.padEnd(widths.measure)}  ${figure.padEnd(widths.figure)}  ${goal.padEnd(widths.goal)}  ${status}`.trimEnd();
  const rule = `  ${'-'.repeat(widths.measure + widths.figure + widths.goal + 12)}`;
  const out = [line('measure', 'figure', 'goal', 'status'), rule];
  for (const section of sections) {
    out.push(section.title);
    for (const row of section.rows) {
      const status = row.met === undefined ? '' : row.met ? 'met' : 'MISSED';
      out.push(line(row.measure, row.figure, row.goal ?? '', status));
    }
  }
  return `${out.join('\n')}\n`;
}
