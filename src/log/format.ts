/**
 * The two line formats, each one plain function from (time, level, message, fields) to a line: the
 * request log runs this on every request, so there is no chain of format objects, no copy of the
 * fields and no key sorting in between.
 */
export type LogFields = Readonly<Record<string, unknown>>;
export type LogFormat = 'json' | 'pretty';
export type LineFormat = (time: string, level: string, message: string, fields: LogFields | undefined) => string;

/** The keys a line owns; a field of the same name is renamed so that it cannot forge them. */
const RESERVED = new Set(['timestamp', 'level', 'message']);

function hasReserved(fields: LogFields): boolean {
  return 'timestamp' in fields || 'level' in fields || 'message' in fields;
}

function renamed(fields: LogFields): LogFields {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [RESERVED.has(key) ? `field_${key}` : key, value]),
  );
}

/** JSON.stringify, and for what it refuses (a BigInt, a cycle) a tolerant second pass: a log line never throws. */
function stringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    const seen = new WeakSet<object>();
    return JSON.stringify(value, (_key, inner: unknown) => {
      if (typeof inner === 'bigint') return inner.toString();
      if (typeof inner === 'object' && inner !== null) {
        if (seen.has(inner)) return '[Circular]';
        seen.add(inner);
      }
      return inner;
    });
  }
}

/** `{"timestamp":"2026-11-23T20:31:11.123Z","level":"info","message":"listening","url":"http://…"}` */
export const jsonLine: LineFormat = (time, level, message, fields) => {
  const head = `{"timestamp":"${time}","level":"${level}","message":${JSON.stringify(message)}`;
  if (fields === undefined) return `${head}}\n`;
  const body = stringify(hasReserved(fields) ? renamed(fields) : fields);
  // `{}` adds nothing; otherwise the fields' object joins the line's without its opening brace.
  return body.length <= 2 ? `${head}}\n` : `${head},${body.slice(1)}\n`;
};

/** `2026-11-23T20:31:11.123Z info  listening url=http://127.0.0.1:13431/ workers=2` */
export const prettyLine: LineFormat = (time, level, message, fields) => {
  let line = `${time} ${level.padEnd(5)} ${message}`;
  if (fields !== undefined) {
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (value === undefined) continue;
      const text = typeof value === 'string' ? value : stringify(value);
      line += ` ${key}=${/[\s"=]/.test(text) ? JSON.stringify(text) : text}`;
    }
  }
  return `${line}\n`;
};

export const LINE_FORMATS: Readonly<Record<LogFormat, LineFormat>> = { json: jsonLine, pretty: prettyLine };
