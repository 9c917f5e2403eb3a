// Child of crossing-floors.ts: the sandbox-process end of each candidate channel, bare.
//   echo-ipc   echoes Node IPC messages
//   echo-pipe  echoes newline-delimited frames on fd 3
//   call-pipe-blocking  no isolate: this process's main thread makes `calls` sequential
//              calls on fd 3 itself, blocked in readSync for each answer; prints the µs per call
//   call-fifo-blocking  the same on two FIFOs (paths in argv) whose other ends the parent
//              also serves from readSync: no event loop on either side
//   guest-*    an isolate whose guest makes `calls` sequential calls that cross to the
//              parent over the channel named after the dash; prints the µs per call
import { openSync, readSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import ivm from 'isolated-vm';
import { installGuestLoop } from './floor-guest-loop.ts';

const [mode = '', callsText = '1000'] = process.argv.slice(2);
const calls = Number(callsText);

function pipeChannel(onFrame: (text: string) => void): (text: string) => void {
  const socket = new Socket({ fd: 3, readable: true, writable: true });
  socket.setEncoding('utf8');
  let buffered = '';
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    while (end >= 0) {
      onFrame(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf('\n');
    }
  });
  socket.on('end', () => process.exit(0));
  return (text) => {
    socket.write(`${text}\n`);
  };
}

async function guest(channel: 'ipc' | 'pipe', delivery: 'apply' | 'sync'): Promise<void> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  let deliver: ivm.Reference<(text: string) => void>;
  let waiting: ((text: string) => void) | undefined;
  const onReply = (text: string): void => {
    if (delivery === 'sync') {
      const resolve = waiting;
      waiting = undefined;
      resolve?.(text);
    } else void deliver.apply(undefined, [text], { arguments: { copy: true } });
  };
  let toParent: (text: string) => void;
  if (channel === 'pipe') toParent = pipeChannel(onReply);
  else {
    process.on('message', (m: { text: string }) => onReply(m.text));
    toParent = (text) => process.send?.({ text });
  }
  await context.global.set('__send', new ivm.Callback((text: string) => toParent(text), { ignored: true }));
  await context.global.set(
    '__callSync',
    new ivm.Reference(
      (text: string) =>
        new Promise<string>((resolve) => {
          waiting = resolve;
          toParent(text);
        }),
    ),
  );
  const loop = await installGuestLoop(isolate, context);
  deliver = loop.deliver;
  const us = await loop.time(calls, delivery === 'sync');
  if (channel === 'pipe') toParent(JSON.stringify({ done: us }));
  else process.send?.({ done: us });
}

/**
 * One newline-framed round trip on pipes with this thread blocked in read(): writes the
 * frame to `writeFd`, returns the next frame read from `readFd` (exits when the parent is gone).
 */
function blockingRoundTrip(readFd: number, writeFd: number): (text: string) => string {
  const reply = Buffer.alloc(65_536);
  let held = '';
  return (text) => {
    writeSync(writeFd, `${text}\n`);
    for (;;) {
      const end = held.indexOf('\n');
      if (end >= 0) {
        const frame = held.slice(0, end);
        held = held.slice(end + 1);
        return frame;
      }
      const n = readSync(readFd, reply, 0, reply.length, null);
      if (n <= 0) process.exit(0);
      held += reply.toString('utf8', 0, n);
    }
  };
}

// The child's thread blocks in read() on the pipe from the parent instead of returning to
// its event loop: 'main' = the isolate blocks (applySyncPromise) and the child's main thread
// reads; 'inline' = the guest runs on the child's main thread (applySync) and its sync
// callback writes and reads the pipe itself: no thread hop inside the child at all.
async function guestBlocking(where: 'main' | 'inline'): Promise<void> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  const roundTrip = blockingRoundTrip(3, 3);
  await context.global.set('__callBlocking', new ivm.Callback((text: string) => roundTrip(text)));
  await context.global.set('__callSync', new ivm.Reference(async (text: string) => roundTrip(text)));
  const script = await isolate.compileScript(`
    const call = (seq, args) => {
      const text = JSON.stringify({ seq, args: JSON.stringify(args) });
      const m = JSON.parse(${where === 'inline' ? '__callBlocking(text)' : '__callSync.applySyncPromise(undefined, [text])'});
      return JSON.parse(m.value);
    };
    globalThis.__main = (n) => { let sum = 0; for (let i = 1; i <= n; i++) sum += call(i, { n: i }).n; return sum; };`);
  await script.run(context);
  const main = (await context.global.get('__main', { reference: true })) as ivm.Reference<(n: number) => number>;
  const run = (n: number): Promise<unknown> =>
    where === 'inline' ? Promise.resolve(main.applySync(undefined, [n])) : main.apply(undefined, [n]);
  await run(50);
  const start = performance.now();
  await run(calls);
  const us = ((performance.now() - start) * 1000) / calls;
  writeSync(3, `${JSON.stringify({ done: us })}\n`);
}

// Shared memory between the guest and a pipe thread: the guest writes its call (UTF-16
// code units) into a SharedArrayBuffer it got through ExternalCopy, wakes a worker thread
// of the child with Atomics.notify and waits with Atomics.wait; the worker (no event loop
// in the way: it sleeps in Atomics.wait) writes the frame to the pipe, blocks in read()
// for the answer, writes it into the buffer and wakes the guest. The child's main thread
// is never involved.
const PIPE_THREAD = `
const { workerData } = require('node:worker_threads');
const { readSync, writeSync } = require('node:fs');
const ctl = new Int32Array(workerData.sab, 0, 4);
const data = new Uint16Array(workerData.sab, 16);
const reply = Buffer.alloc(65536);
let held = '';
for (;;) {
  for (let state = Atomics.load(ctl, 0); state !== 1; state = Atomics.load(ctl, 0)) Atomics.wait(ctl, 0, state);
  const length = ctl[1];
  const text = Buffer.from(workerData.sab, 16, length * 2).toString('utf16le');
  writeSync(3, text + '\\n');
  let frame;
  for (;;) {
    const end = held.indexOf('\\n');
    if (end >= 0) { frame = held.slice(0, end); held = held.slice(end + 1); break; }
    const n = readSync(3, reply, 0, reply.length, null);
    if (n <= 0) process.exit(0);
    held += reply.toString('utf8', 0, n);
  }
  for (let i = 0; i < frame.length; i++) data[i] = frame.charCodeAt(i);
  ctl[1] = frame.length;
  Atomics.store(ctl, 0, 2);
  Atomics.notify(ctl, 0);
}`;

async function guestSharedMemory(): Promise<void> {
  const { Worker } = await import('node:worker_threads');
  const sab = new SharedArrayBuffer(16 + 65_536 * 2);
  const worker = new Worker(PIPE_THREAD, { eval: true, workerData: { sab } });
  worker.unref();
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  await context.global.set('__sab', new ivm.ExternalCopy(sab).copyInto({ release: true }));
  const script = await isolate.compileScript(`
    const ctl = new Int32Array(__sab, 0, 4);
    const data = new Uint16Array(__sab, 16);
    const callShared = (text) => {
      for (let i = 0; i < text.length; i++) data[i] = text.charCodeAt(i);
      ctl[1] = text.length;
      Atomics.store(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      while (Atomics.wait(ctl, 0, 1, 2000) === 'ok' && Atomics.load(ctl, 0) === 1);
      const n = ctl[1];
      let answer = '';
      for (let i = 0; i < n; i += 4096) answer += String.fromCharCode.apply(null, data.subarray(i, Math.min(n, i + 4096)));
      Atomics.store(ctl, 0, 0);
      return answer;
    };
    const call = (seq, args) => JSON.parse(JSON.parse(callShared(JSON.stringify({ seq, args: JSON.stringify(args) }))).value);
    globalThis.__main = (n) => { let sum = 0; for (let i = 1; i <= n; i++) sum += call(i, { n: i }).n; return sum; };`);
  await script.run(context);
  const main = (await context.global.get('__main', { reference: true })) as ivm.Reference<(n: number) => number>;
  await main.apply(undefined, [50]);
  const start = performance.now();
  await main.apply(undefined, [calls]);
  const us = ((performance.now() - start) * 1000) / calls;
  writeSync(3, `${JSON.stringify({ done: us })}\n`);
}

// The bare round trip: this thread writes a frame and blocks in read() for the answer,
// `calls` times after a 50-call warm-up, with no event loop and no isolate in between.
function callBlocking(readFd: number, writeFd: number): void {
  const send = blockingRoundTrip(readFd, writeFd);
  const roundTrip = (seq: number): string => send(JSON.stringify({ seq, args: JSON.stringify({ n: seq }) }));
  let sum = 0;
  const run = (n: number): void => {
    for (let i = 1; i <= n; i += 1)
      sum += (JSON.parse((JSON.parse(roundTrip(i)) as { value: string }).value) as { n: number }).n;
  };
  run(50);
  const start = performance.now();
  run(calls);
  const us = ((performance.now() - start) * 1000) / calls;
  writeSync(writeFd, `${JSON.stringify({ done: us, sum })}\n`);
}

switch (mode) {
  case 'call-pipe-blocking':
    callBlocking(3, 3);
    break;
  case 'call-fifo-blocking': {
    // Opened read-write: opening a FIFO then waits for no other end (Linux). The parent
    // opens its ends once told, and this process calls only after that message is out.
    const [toChild = '', toParent = ''] = process.argv.slice(4);
    const readFd = openSync(toChild, 'r+');
    const writeFd = openSync(toParent, 'r+');
    process.send?.('ready', () => callBlocking(readFd, writeFd));
    break;
  }
  case 'guest-block-worker': {
    // The inline design on a worker thread of the child (its main thread stays free):
    // the worker creates the isolate and runs guest code on its own thread.
    const { Worker } = await import('node:worker_threads');
    new Worker(new URL(import.meta.url), { argv: ['guest-block-inline', callsText] });
    break;
  }
  case 'guest-shared-memory':
    void guestSharedMemory();
    break;
  case 'guest-block-main':
    void guestBlocking('main');
    break;
  case 'guest-block-inline':
    void guestBlocking('inline');
    break;
  case 'echo-ipc':
    process.on('message', (m: unknown) => process.send?.(m));
    process.on('disconnect', () => process.exit(0));
    break;
  case 'echo-pipe': {
    const send = pipeChannel((text) => send(text));
    break;
  }
  case 'guest-ipc':
    void guest('ipc', 'apply');
    break;
  case 'guest-pipe':
    void guest('pipe', 'apply');
    break;
  case 'guest-pipe-sync':
    void guest('pipe', 'sync');
    break;
  case 'guest-ipc-sync':
    void guest('ipc', 'sync');
    break;
  default:
    throw new Error(`crossing-floor-child: unknown mode ${mode}`);
}
