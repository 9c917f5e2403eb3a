// Bounds on what one provider response can make the host do in hosted mode. A response is
// model output: it may list any number of program blocks, each with any code, and each
// program may make any number of calls. Every program the host takes costs a journal write,
// a policy check and a span (~40 KB and several ms); so programs per response and per
// conversation, their code's size and their calls are bounded here, before any of that
// work, and a program over a bound is refused (its calls are then refused with the reason).

/** Bounds of one hosted conversation (`rt.hostedConversation({ limits })`). */
export interface HostedLimits {
  /** New programs one response may start; the ones after are refused. */
  readonly programsPerResponse: number;
  /** Programs one conversation may start in all; the ones after are refused. */
  readonly programsPerConversation: number;
  /** Calls one program may make; the ones after are refused. */
  readonly callsPerProgram: number;
  /** Longest program code taken, in UTF-16 code units. */
  readonly programCodeChars: number;
}

/** The bounds a conversation gets unless it names others. */
export const DEFAULT_HOSTED_LIMITS: HostedLimits = Object.freeze({
  programsPerResponse: 16,
  programsPerConversation: 256,
  callsPerProgram: 2_000,
  programCodeChars: 256 * 1024,
});

/** Refused programs remembered (so their calls say why); past this, a refused program is forgotten and its calls are refused as never seen. */
export const REFUSED_PROGRAMS_KEPT = 1_000;

/** The given bounds over the defaults; a bound that is not a positive integer is a TypeError naming it. */
export function resolveHostedLimits(given: Partial<HostedLimits> | undefined): HostedLimits {
  const limits = { ...DEFAULT_HOSTED_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new TypeError(`hosted limit ${name} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return Object.freeze(limits);
}
