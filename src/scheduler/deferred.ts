// A promise with its resolve/reject exposed, for the sequencer's gates.
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

// One executor for every deferred (no closure and context made per promise; a sequenced
// call makes three): it hands the settlers over through these two, read and cleared
// right after the promise is made (the executor runs synchronously inside the constructor).
let capturedResolve: ((value: never) => void) | undefined;
let capturedReject: ((error: unknown) => void) | undefined;
function captureSettlers(resolve: (value: never) => void, reject: (error: unknown) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

export function deferred<T>(): Deferred<T> {
  const promise = new Promise<T>(captureSettlers);
  const settlers: Deferred<T> = {
    promise,
    resolve: capturedResolve as (value: T) => void,
    reject: capturedReject as (error: unknown) => void,
  };
  capturedResolve = undefined;
  capturedReject = undefined;
  return settlers;
}
