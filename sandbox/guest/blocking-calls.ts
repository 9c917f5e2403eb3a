// The fast path for a program that awaits one call at a time: when the call is the only
// thing the program has in flight (no other call out or queued, no timer pending), the
// isolate blocks on it (isolated-vm's applySyncPromise) and the host's answer comes back
// as the call's return value: no event-loop wake-up to send it, no task to deliver it.
// The program still gets a promise and sees no difference. The host bounds the block
// (BLOCKING_CALL_WAIT_MS, a timer on its thread): a call not answered by then goes on
// the asynchronous way, so a tool that awaits holds the isolate's thread no longer,
// even when the program did not await the call (a tool that holds the host's thread
// synchronously holds the blocked program until it returns). Anything else in flight and
// calls take the asynchronous path, so a Promise.all keeps its parallelism.
import { useBlockingPath } from './host-link.ts';
import { run } from './run-state.ts';
import { pendingTimers } from './timers.ts';
import { settleBlocked } from './tool-calls.ts';

useBlockingPath({
  allowed: () => !run.settled && run.inFlight === 1 && run.queueHead === run.queueTail && pendingTimers() === 0,
  settle: settleBlocked,
});
