// Hostile values a host call may reject or throw with; shared by the in-runner suite
// and the child-process fixture (which must not import jest).

/** Proxy traps that all throw: reading anything about the value fails. */
export const throwingTraps: ProxyHandler<object> = {
  get(): never {
    throw new Error('trap get');
  },
  getPrototypeOf(): never {
    throw new Error('trap getPrototypeOf');
  },
  ownKeys(): never {
    throw new Error('trap ownKeys');
  },
  has(): never {
    throw new Error('trap has');
  },
  getOwnPropertyDescriptor(): never {
    throw new Error('trap descriptor');
  },
};

/** An object whose error-ish getters recurse forever. */
export function recursiveGetters(): object {
  const value = {};
  for (const key of ['message', 'name', 'code', 'stack', 'toString', 'cause']) {
    Object.defineProperty(value, key, {
      get(this: Record<string, unknown>): unknown {
        return this[key];
      },
    });
  }
  return value;
}
