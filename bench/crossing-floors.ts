// The floor of each crossing design for one sequential nested call, measured bare (no
// runtime, no pipeline, a trivial echo host), interleaved, in one run:
//   node --no-node-snapshot bench/crossing-floors.ts [rounds]
// In-process: the guest reaches the host thread and back
//   - async Callback round trip (what the guest's `await` of a host function costs)
//   - send + deliver: a fire-and-forget Callback out, a `deliver` task back (our design)
//   - applySyncPromise: the isolate blocks on the host's promise (UTCP's design)
//   - UTCP code-mode's own crossing (bench/peers/utcp-crossing-floor.mjs), under the
//     peer's Node 22 and isolated-vm 6 when installed, and under this project's
// Process: the same, with a sandbox process in between
//   - two processes both blocked in readSync (FIFOs): the lowest any process design reaches
//   - the host in its event loop, the child blocked in readSync, no isolate
//   - Node IPC / raw pipe echo: the channel alone, host <-> child
//   - guest over Node IPC / raw pipe, answered with a deliver task or a blocked isolate
// `--busy`: each round measures every design twice, once as the machine is and once
// with a `nice -n 19` busy loop per CPU, so no vCPU halts (on a guest without halt-polling
// a wake-up on a halted vCPU is paid in full); the order alternates between rounds.
//   node --no-node-snapshot bench/crossing-floors.ts [rounds] [--busy] [--only=name,name]
import { type ChildProcess, execFile, fork, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import { bareIsolateRoundTripUs } from './bare-round-trips.ts';
import { installGuestLoop } from './floor-guest-loop.ts';
import { NESTED_CALLS, NESTED_CALLS_PROGRAM, TRIVIAL_PROGRAM } from './bench-programs.ts';
import { type BenchRuntime, createBenchRuntime, type Isolation } from './bench-runtime.ts';
import { UTCP_PEER_NODE, UtcpPeer, utcpInstalled } from './peers/utcp-peer-client.ts';
import { summarize } from './stats.ts';

// PTC_FLOOR_CALLS: more calls per measurement (e.g. to count events per call with perf).
const CALLS = Number(process.env['PTC_FLOOR_CALLS'] ?? 1000);
const CHILD = fileURLToPath(new URL('./crossing-floor-child.ts', import.meta.url));
const UTCP_CROSSING = fileURLToPath(new URL('./peers/utcp-crossing-floor.mjs', import.meta.url));
const PROJECT_PACKAGE = fileURLToPath(new URL('../package.json', import.meta.url));
const CHILD_EXEC_ARGV = ['--no-node-snapshot', '--disable-warning=ExperimentalWarning'];

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
  | 'guest-block-worker'
  | 'call-pipe-blocking';
type ChildMode = 'echo-ipc' | 'echo-pipe' | GuestMode;

function startChild(mode: ChildMode): {
  send(text: string): void;
  onFrame(handler: (text: string) => void): void;
  close(): void;
} {
  const pipe = mode.includes('pipe') || mode.includes('block') || mode.includes('shared');
  const child = fork(CHILD, [mode, String(CALLS)], {
    execArgv: CHILD_EXEC_ARGV,
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
    // Straight to the pipe when the stream has nothing queued, as the kept design's host
    // answers (blocking-call-pipe.ts); what the pipe does not take goes through the stream.
    send = (text) => {
      let frame = Buffer.from(`${text}\n`);
      const fd = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
      if (typeof fd === 'number' && fd >= 0 && socket.writableLength === 0) {
        try {
          frame = frame.subarray(writeSync(fd, frame));
        } catch {
          // full (EAGAIN): the stream writes it
        }
      }
      if (frame.length > 0) socket.write(frame);
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

// The host end of the FIFO design: this thread serves the child's calls from readSync
// (no event loop) until the child reports its figure. NaN if the child goes away.
function serveFromReadSync(readFd: number, writeFd: number): number {
  const buffer = Buffer.alloc(65_536);
  let held = '';
  for (;;) {
    const n = readSync(readFd, buffer, 0, buffer.length, null);
    if (n <= 0) return Number.NaN;
    held += buffer.toString('utf8', 0, n);
    for (let end = held.indexOf('\n'); end >= 0; end = held.indexOf('\n')) {
      const m = JSON.parse(held.slice(0, end)) as { seq?: number; args?: string; done?: number };
      held = held.slice(end + 1);
      if (m.done !== undefined) return m.done;
      writeSync(writeFd, `${JSON.stringify({ seq: m.seq, ok: true, value: m.args })}\n`);
    }
  }
}

/** Both processes blocked in readSync on FIFOs: no event loop, no isolate on either side. */
async function bothBlockedUs(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-crossing-'));
  const toChild = join(dir, 'to-child');
  const toParent = join(dir, 'to-parent');
  try {
    if (spawnSync('mkfifo', [toChild, toParent]).status !== 0) return Number.NaN;
    const child = fork(CHILD, ['call-fifo-blocking', String(CALLS), toChild, toParent], {
      execArgv: CHILD_EXEC_ARGV,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const ready = await new Promise<boolean>((resolve) => {
        child.once('message', () => resolve(true));
        child.once('exit', () => resolve(false));
        setTimeout(() => resolve(false), 60_000).unref();
      });
      if (!ready) return Number.NaN;
      // The child holds both FIFOs open read-write, so neither open waits; opened
      // read-only / write-only here, so the child's exit ends the read with EOF.
      const readFd = openSync(toParent, 'r');
      const writeFd = openSync(toChild, 'w');
      try {
        return serveFromReadSync(readFd, writeFd);
      } finally {
        closeSync(readFd);
        closeSync(writeFd);
      }
    } finally {
      child.kill('SIGKILL');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** UTCP code-mode's crossing, bare, in a process of its own: under UTCP's stack or this project's. */
function utcpCrossingUs(stack: 'utcp' | 'ours'): Promise<number> {
  if (stack === 'utcp' && !utcpInstalled()) return Promise.resolve(Number.NaN);
  const node = stack === 'utcp' ? UTCP_PEER_NODE : process.execPath;
  const env = stack === 'utcp' ? process.env : { ...process.env, PTC_IVM_FROM: PROJECT_PACKAGE };
  return new Promise((resolve) => {
    execFile(node, [...CHILD_EXEC_ARGV, UTCP_CROSSING, String(CALLS)], { env, timeout: 60_000 }, (error, stdout) => {
      if (error !== null) resolve(Number.NaN);
      else resolve((JSON.parse(stdout) as { us: number }).us);
    });
  });
}

// UTCP code-mode's whole per-call cost (callToolChain, its SDK and the crossing), as the
// peers section measures it: one peer process for the run, closed by closeWholeCallRunners().
let utcpPeer: Promise<UtcpPeer> | undefined;

async function utcpPerCallUs(): Promise<number> {
  if (!utcpInstalled()) return Number.NaN;
  utcpPeer ??= UtcpPeer.start();
  const peer = await utcpPeer;
  await peer.time('nested');
  const trivialMs = await peer.time('trivial');
  const nestedMs = await peer.time('nested');
  return ((nestedMs - trivialMs) * 1000) / NESTED_CALLS;
}

// ptc-runtime's whole per-call cost the same way (run_code of the nested program less a
// `return 1` run, through createToolRuntime): one runtime per isolation for the run.
const runtimes = new Map<Isolation, BenchRuntime>();

async function ptcPerCallUs(isolation: Isolation): Promise<number> {
  let bench = runtimes.get(isolation);
  if (bench === undefined) {
    bench = createBenchRuntime({ isolation });
    runtimes.set(isolation, bench);
  }
  await bench.runCode(NESTED_CALLS_PROGRAM);
  let start = performance.now();
  await bench.runCode(TRIVIAL_PROGRAM);
  const trivialMs = performance.now() - start;
  start = performance.now();
  await bench.runCode(NESTED_CALLS_PROGRAM);
  return ((performance.now() - start - trivialMs) * 1000) / NESTED_CALLS;
}

/** Closes the UTCP peer and the runtimes the whole-call rows started. */
export async function closeWholeCallRunners(): Promise<void> {
  const peer = utcpPeer;
  utcpPeer = undefined;
  await (await peer)?.close();
  for (const bench of runtimes.values()) await bench.close();
  runtimes.clear();
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
  'utcp-per-call': {
    label: 'UTCP code-mode per call, whole (callToolChain of the nested program, as the peers section times it)',
    measure: () => utcpPerCallUs(),
  },
  'ptc-process-per-call': {
    label: 'ptc-runtime per call, whole, process isolation (run_code of the nested program, the same way)',
    measure: () => ptcPerCallUs('process'),
  },
  'ptc-in-process-per-call': {
    label: 'ptc-runtime per call, whole, in-process isolation',
    measure: () => ptcPerCallUs('in-process'),
  },
  'utcp-crossing': {
    label: "UTCP code-mode's crossing: guest applySyncPromise -> async Reference (Node 22, isolated-vm 6)",
    measure: () => utcpCrossingUs('utcp'),
  },
  'utcp-crossing-our-stack': {
    label: "the same under this project's Node and isolated-vm",
    measure: () => utcpCrossingUs('ours'),
  },
  'process-both-read-sync': {
    label: 'process: both processes blocked in readSync (FIFOs; no event loop, no isolate)',
    measure: () => bothBlockedUs(),
  },
  'process-host-loop-child-read-sync': {
    label: 'process: host in its event loop, the child blocked in readSync (no isolate)',
    measure: () => guestUs('call-pipe-blocking'),
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

/** A `nice -n 19` busy loop per CPU: keeps every vCPU from halting while a pass runs. */
function startBusyLoops(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () =>
    spawn('nice', ['-n', '19', process.execPath, '-e', 'for (;;);'], { stdio: 'ignore' }),
  );
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 5);
  const busy = args.includes('--busy');
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const designs = (Object.keys(CROSSING_FLOORS) as CrossingDesign[]).filter(
    (d) => only === undefined || only.includes(d),
  );
  const conditions = busy ? (['idle', 'busy'] as const) : (['idle'] as const);
  const samples = new Map<string, number[]>();
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  console.log(`load ${load()}; ${rounds} rounds of ${CALLS} calls${busy ? ', each design idle and busy' : ''}`);
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? conditions : [...conditions].reverse();
    for (const condition of order) {
      const loops = condition === 'busy' ? startBusyLoops() : [];
      try {
        for (const design of designs) {
          const key = `${design}/${condition}`;
          samples.set(key, [...(samples.get(key) ?? []), await CROSSING_FLOORS[design].measure()]);
        }
      } finally {
        for (const loop of loops) loop.kill('SIGKILL');
      }
    }
  }
  const cell = (values: number[]): string => {
    const s = summarize(values.filter((v) => !Number.isNaN(v)));
    return s.n === 0
      ? '      —                '
      : `p50 ${s.p50.toFixed(1).padStart(6)}  p90 ${s.p90.toFixed(1).padStart(6)} µs`;
  };
  for (const design of designs) {
    const idle = samples.get(`${design}/idle`) ?? [];
    let line = `${CROSSING_FLOORS[design].label.padEnd(100)} ${cell(idle)}`;
    if (busy) {
      const loaded = samples.get(`${design}/busy`) ?? [];
      const paired = summarize(idle.map((v, i) => (loaded[i] ?? Number.NaN) / v).filter((r) => !Number.isNaN(r)));
      line += ` | busy ${cell(loaded)} | busy ÷ idle ${paired.p50.toFixed(2)}`;
    }
    console.log(line);
  }
  console.log(`load ${load()}`);
  await closeWholeCallRunners();
}
