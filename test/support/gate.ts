// A gate a test opens by hand: fake tools and hosts await `passed` to hold a call open
// until the test has seen (or done) what it needs, instead of sleeping for a guessed time.

export interface Gate {
  /** Resolves once `open()` was called (never rejects). */
  readonly passed: Promise<void>;
  /** Lets every waiter through, now and later; calling it again does nothing. */
  readonly open: () => void;
}

export function gate(): Gate {
  let open!: () => void;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { passed, open };
}
