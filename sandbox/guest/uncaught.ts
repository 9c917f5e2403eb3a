// Where an exception nobody can catch goes (thrown by a timer callback, a queued
// microtask or an event listener): in Node it ends the process; here it ends the run as
// an exception. guest-main.ts sets the handler.
let handler: ((error: unknown) => void) | undefined;

export function onUncaught(fn: (error: unknown) => void): void {
  handler = fn;
}

export function reportUncaught(error: unknown): void {
  if (handler !== undefined) handler(error);
}
