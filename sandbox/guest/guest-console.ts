// The program's `console`: every line is formatted here (getters never run) and counted
// against the log budget — bytes, each line at least logLineMinBytes, and lines — so a
// flood of empty lines ends as surely as a flood of long ones; then sending stops.
import { post } from './host-link.ts';
import { apply, cut, stringSlice, utf8Prefix } from './intrinsics.ts';
import { formatValue } from './format-value.ts';
import { run } from './run-state.ts';

function closeLogs(by: 'bytes' | 'lines'): void {
  run.logsClosed = true;
  post({ __proto__: null, t: 'logs-truncated', by });
}

function log(prefix: string, args: readonly unknown[]): void {
  if (run.logsClosed || run.settled) return;
  if (run.logLines >= run.maxLogLines) {
    closeLogs('lines');
    return;
  }
  const room = run.maxLogBytes - run.logBytes;
  let line = prefix;
  for (let i = 0; i < args.length; i++) {
    line += (i === 0 ? '' : ' ') + formatValue(args[i], room + 1);
    if (line.length > room) break;
  }
  const fit = utf8Prefix(cut(line, room + 1), room);
  const cost = fit.bytes > run.logLineMinBytes ? fit.bytes : run.logLineMinBytes;
  if (fit.whole && cost <= room) {
    run.logBytes += cost;
    run.logLines++;
    post({ __proto__: null, t: 'log', text: line });
    return;
  }
  if (!fit.whole && fit.end > 0 && room >= run.logLineMinBytes)
    post({ __proto__: null, t: 'log', text: apply(stringSlice, line, [0, fit.end]) });
  run.logBytes = run.maxLogBytes;
  closeLogs('bytes');
}

// One literal: each method is named by its key (as Node names them) and stays a plain
// function; built method by method with defineProperty it cost ~10 us more a fresh isolate.
export const sandboxConsole: Record<string, (...args: unknown[]) => void> = {
  log: function (...args: unknown[]): void {
    log('', args);
  },
  info: function (...args: unknown[]): void {
    log('', args);
  },
  warn: function (...args: unknown[]): void {
    log('[warn] ', args);
  },
  error: function (...args: unknown[]): void {
    log('[error] ', args);
  },
  debug: function (...args: unknown[]): void {
    log('[debug] ', args);
  },
};
