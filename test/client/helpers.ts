import type { Logger } from '../../src/logging/logger.js';

/** A logger that keeps every line it is given, at every level, as the JSON a logger would write. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const make = (bindings: Record<string, unknown>): Logger => {
    const write = (level: string) => (fields: object | string, message?: string) => {
      lines.push(JSON.stringify(typeof fields === 'string' ? { level, ...bindings, msg: fields } : { level, ...bindings, ...fields, msg: message }));
    };
    return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: (more) => make({ ...bindings, ...more }) };
  };
  return { logger: make({}), lines };
}
