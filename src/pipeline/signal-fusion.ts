// Fuses the caller's signal with a wrapper's (e.g. a deadline): either aborting
// aborts the body. `dispose` removes the relay listeners once the body settles.
export interface FusedSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

const nothingToDispose = (): void => {};

export function fuseSignals(caller: AbortSignal, wrapper: AbortSignal): FusedSignal {
  if (caller === wrapper) return { signal: caller, dispose: nothingToDispose };
  const controller = new AbortController();
  const relays: Array<() => void> = [];
  for (const source of [caller, wrapper]) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const relay = (): void => controller.abort(source.reason);
    source.addEventListener('abort', relay, { once: true });
    relays.push(() => source.removeEventListener('abort', relay));
  }
  return { signal: controller.signal, dispose: () => relays.forEach((r) => r()) };
}
