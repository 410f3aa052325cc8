/** One sample of a metrics file. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Parse the Prometheus text exposition format (0.0.4) strictly, as node_exporter's textfile
 * collector would refuse it: HELP and TYPE once per family and before its samples, a family's
 * samples together, label values with only `\\`, `\"` and `\n` escapes, no duplicate series,
 * a final newline. Throws on the first violation, naming the line.
 */
export function parsePrometheusText(text: string): Sample[] {
  if (!text.endsWith('\n')) throw new Error('the file must end with a newline');
  const samples: Sample[] = [];
  const typed = new Map<string, string>();
  const helped = new Set<string>();
  const finished = new Set<string>();
  const series = new Set<string>();
  let current: string | null = null;
  const lines = text.slice(0, -1).split('\n');
  for (const [i, line] of lines.entries()) {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!match) fail('a comment that is neither HELP nor TYPE');
      const [, kind, name, rest] = match as unknown as [string, string, string, string];
      if (!NAME.test(name)) fail('a bad metric name');
      if (finished.has(name) || (current !== null && current !== name && typed.has(name)))
        fail('a family split in two');
      if (kind === 'HELP') {
        if (helped.has(name)) fail('a second HELP');
        if (/\\[^\\n]/.test(rest)) fail('a bad escape in HELP');
        helped.add(name);
      } else {
        if (typed.has(name)) fail('a second TYPE');
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
          fail('an unknown type');
        if (samples.some((s) => s.name === name)) fail('TYPE after samples');
        typed.set(name, rest);
      }
      if (current !== null && current !== name) finished.add(current);
      current = name;
      continue;
    }
    if (line.trim() === '') fail('an empty line');
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match) fail('not a sample');
    const [, name, , body = '', raw] = match as unknown as [string, string, string, string, string];
    if (current !== name) {
      if (current !== null) finished.add(current);
      if (finished.has(name)) fail('a family split in two');
      current = name;
    }
    const labels: Record<string, string> = {};
    let rest = body;
    while (rest !== '') {
      const label = /^([^=]+)="((?:[^"\\]|\\[\\"n])*)"(,|$)/.exec(rest);
      if (!label) fail('malformed labels');
      const [whole, key, value] = label as unknown as [string, string, string];
      if (!LABEL_NAME.test(key)) fail(`a bad label name ${key}`);
      if (key in labels) fail(`label ${key} twice`);
      labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(whole.length);
    }
    const value =
      raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
    if (!/^(NaN|[+-]Inf|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/.test(raw)) fail('a bad value');
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) fail('a duplicate series');
    series.add(key);
    samples.push({ name, labels, value });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels`. */
export function sampleValue(
  samples: readonly Sample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match`);
  return found[0]?.value;
}
