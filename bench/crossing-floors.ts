// The floor of each crossing design for one sequential nested call, measured bare (no
// runtime, no pipeline, a trivial echo host), interleaved, in one run:
//   node --no-node-snapshot bench/crossing-floors.ts [rounds]
// In-process: the guest reaches the host thread and back
//   - async Callback round trip (what the guest's `await` of a host function costs)
//   - send + deliver: a fire-and-forget Callback out, a `deliver` task back (our design)
//   - applySyncPromise: the isolate blocks on the host's promise (UTCP's design)
// Process: the same, with a sandbox process in between
//   - Node IPC / raw pipe echo: the channel alone, host <-> child
//   - guest over Node IPC / raw pipe, answered with a deliver task or a blocked isolate
import { fork } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import { bareIsolateRoundTripUs } from './bare-round-trips.ts';
import { installGuestLoop } from './floor-guest-loop.ts';
import { summarize } from './stats.ts';

const CALLS = 1000;
const CHILD = fileURLToPath(new URL('./crossing-floor-child.ts', import.meta.url));

async function inProcessUs(design: 'deliver' | 'sync'): Promise<number> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  try {
    const context = await isolate.createContext();
    let deliver!: ivm.Reference<(text: string) => void>;
    const answer = (text: string): string => {
      const m = JSON.parse(text) as { seq: number; args: string };
      return JSON.stringify({ seq: m.seq, ok: true, value: m.args });
    };
    await context.global.set(
      '__send',
      new ivm.Callback(
        (text: string) =>
          void deliver.apply(undefined, [answer(text)], { arguments: { copy: true } }).catch(() => undefined),
        { ignored: true },
      ),
    );
    await context.global.set('__callSync', new ivm.Reference(async (text: string) => answer(text)));
    const loop = await installGuestLoop(isolate, context);
    deliver = loop.deliver;
    return await loop.time(CALLS, design === 'sync');
  } finally {
    isolate.dispose();
  }
}

type GuestMode =
  | 'guest-ipc'
  | 'guest-pipe'
  | 'guest-pipe-sync'
  | 'guest-ipc-sync'
  | 'guest-block-main'
  | 'guest-block-inline'
  | 'guest-shared-memory'
  | 'guest-block-worker';
type ChildMode = 'echo-ipc' | 'echo-pipe' | GuestMode;

function startChild(mode: ChildMode): {
  send(text: string): void;
  onFrame(handler: (text: string) => void): void;
  close(): void;
} {
  const pipe = mode.includes('pipe') || mode.includes('block') || mode.includes('shared');
  const child = fork(CHILD, [mode, String(CALLS)], {
    execArgv: ['--no-node-snapshot', '--disable-warning=ExperimentalWarning'],
    serialization: 'json',
    stdio: ['ignore', 'inherit', 'inherit', pipe ? 'pipe' : 'ipc', ...(pipe ? ['ipc' as const] : [])],
  });
  let handler: (text: string) => void = () => undefined;
  let send: (text: string) => void;
  if (pipe) {
    const socket = child.stdio[3] as Socket;
    socket.setEncoding('utf8');
    let buffered = '';
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let end = buffered.indexOf('\n');
      while (end >= 0) {
        handler(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        end = buffered.indexOf('\n');
      }
    });
    send = (text) => {
      socket.write(`${text}\n`);
    };
  } else {
    child.on('message', (m: { text?: string; done?: number }) => handler(m.text ?? JSON.stringify({ done: m.done })));
    send = (text) => {
      child.send({ text });
    };
  }
  return { send, onFrame: (h) => (handler = h), close: () => child.kill('SIGKILL') };
}

async function echoUs(mode: 'echo-ipc' | 'echo-pipe'): Promise<number> {
  const child = startChild(mode);
  try {
    let next: ((text: string) => void) | undefined;
    child.onFrame((text) => next?.(text));
    const roundTrip = (text: string): Promise<string> =>
      new Promise((resolve) => {
        next = resolve;
        child.send(text);
      });
    for (let i = 0; i < 50; i += 1) await roundTrip(JSON.stringify({ seq: i, args: '{}' }));
    const start = performance.now();
    for (let i = 0; i < CALLS; i += 1) await roundTrip(JSON.stringify({ seq: i, args: JSON.stringify({ n: i }) }));
    return ((performance.now() - start) * 1000) / CALLS;
  } finally {
    child.close();
  }
}

async function guestUs(mode: GuestMode): Promise<number> {
  const child = startChild(mode);
  try {
    return await new Promise<number>((resolve) => {
      // A child that never finishes (e.g. a hung isolate) gives no figure, not a hung bench.
      setTimeout(() => resolve(Number.NaN), 60_000).unref();
      child.onFrame((text) => {
        const m = JSON.parse(text) as { seq?: number; args?: string; done?: number };
        if (m.done !== undefined) resolve(m.done);
        else child.send(JSON.stringify({ seq: m.seq, ok: true, value: m.args }));
      });
    });
  } finally {
    child.close();
  }
}

/** Each design's bare floor: what it measures, and a measurement (µs per call). */
export const CROSSING_FLOORS = {
  'in-process-callback': {
    label: 'in-process: async Callback round trip',
    measure: () => bareIsolateRoundTripUs(CALLS),
  },
  'in-process-send-deliver': {
    label: 'in-process: send + deliver task (the asynchronous design)',
    measure: () => inProcessUs('deliver'),
  },
  'in-process-blocking': {
    label: 'in-process: applySyncPromise (blocked isolate)',
    measure: () => inProcessUs('sync'),
  },
  'ipc-echo': { label: 'process: Node IPC echo (json)', measure: () => echoUs('echo-ipc') },
  'pipe-echo': { label: 'process: raw pipe echo (newline frames)', measure: () => echoUs('echo-pipe') },
  'process-send-deliver-ipc': {
    label: 'process: guest, send + deliver, Node IPC (the asynchronous design)',
    measure: () => guestUs('guest-ipc'),
  },
  'process-send-deliver-pipe': {
    label: 'process: guest, send + deliver, raw pipe',
    measure: () => guestUs('guest-pipe'),
  },
  'process-blocking-ipc': {
    label: 'process: guest, applySyncPromise, Node IPC',
    measure: () => guestUs('guest-ipc-sync'),
  },
  'process-blocking-pipe': {
    label: 'process: guest, applySyncPromise, raw pipe',
    measure: () => guestUs('guest-pipe-sync'),
  },
  'process-blocking-read': {
    label: "process: guest, applySyncPromise, the sandbox process's main thread blocked in read()",
    measure: () => guestUs('guest-block-main'),
  },
  'process-shared-memory': {
    label: 'process: guest, Atomics.wait on memory shared with a pipe thread that blocks in read()',
    measure: () => guestUs('guest-shared-memory'),
  },
  'process-inline-read': {
    label: 'process: guest on the thread that blocks in read() (no thread hop inside the sandbox process)',
    measure: () => guestUs('guest-block-inline'),
  },
  'process-inline-read-worker': {
    label: 'process: the same on a worker thread of the sandbox process (its main thread free)',
    measure: () => guestUs('guest-block-worker'),
  },
} satisfies Record<string, { label: string; measure: () => Promise<number> }>;

export type CrossingDesign = keyof typeof CROSSING_FLOORS;

if (import.meta.main) {
  const rounds = Number(process.argv[2] ?? 5);
  const samples = new Map<CrossingDesign, number[]>();
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, floor] of Object.entries(CROSSING_FLOORS) as [
      CrossingDesign,
      { measure: () => Promise<number> },
    ][]) {
      samples.set(name, [...(samples.get(name) ?? []), await floor.measure()]);
    }
  }
  for (const [name, values] of samples) {
    const s = summarize(values);
    console.log(
      `${CROSSING_FLOORS[name].label.padEnd(100)} p50 ${s.p50.toFixed(1).padStart(6)} µs  p90 ${s.p90.toFixed(1).padStart(6)} µs`,
    );
  }
}
