// Child of crossing-floors.ts: the sandbox-process end of each candidate channel, bare.
//   echo-ipc   echoes Node IPC messages
//   echo-pipe  echoes newline-delimited frames on fd 3
//   guest-*    an isolate whose guest makes `calls` sequential calls that cross to the
//              parent over the channel named after the dash; prints the µs per call
import { readSync, writeSync } from 'node:fs';
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

// The child's thread blocks in read() on the pipe from the parent instead of returning to
// its event loop: 'main' = the isolate blocks (applySyncPromise) and the child's main thread
// reads; 'inline' = the guest runs on the child's main thread (applySync) and its sync
// callback writes and reads the pipe itself: no thread hop inside the child at all.
async function guestBlocking(where: 'main' | 'inline'): Promise<void> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  const reply = Buffer.alloc(65_536);
  let held = '';
  const roundTrip = (text: string): string => {
    writeSync(3, `${text}\n`);
    for (;;) {
      const end = held.indexOf('\n');
      if (end >= 0) {
        const frame = held.slice(0, end);
        held = held.slice(end + 1);
        return frame;
      }
      const n = readSync(3, reply, 0, reply.length, null);
      if (n <= 0) process.exit(0);
      held += reply.toString('utf8', 0, n);
    }
  };
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

switch (mode) {
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
