// Which language run_code programs are written in, per agent like the mode: a runtime
// default plus one declaration per agent scope (the nearest wins).
import { DefinitionError } from '../errors/definition-error.ts';
import type { Dispose } from '../registry/tool-registry.ts';

/** The language of run_code programs: TypeScript (isolated-vm) or Python (Monty). */
export type ProgramGuest = 'typescript' | 'python';
export const PROGRAM_GUESTS: readonly ProgramGuest[] = ['typescript', 'python'];

export function checkGuest(guest: unknown, where: string): ProgramGuest {
  if (!PROGRAM_GUESTS.includes(guest as ProgramGuest)) {
    throw new DefinitionError(
      'INVALID_DEFINITION',
      `${where}: guest must be one of ${PROGRAM_GUESTS.join(', ')}, got ${JSON.stringify(guest)}`,
    );
  }
  return guest as ProgramGuest;
}

export class GuestDeclarations {
  readonly #byScope = new Map<string, ProgramGuest>();
  readonly #default: ProgramGuest;

  constructor(defaultGuest: ProgramGuest) {
    this.#default = defaultGuest;
  }

  /** Whether any scope (or the default) runs Python. */
  get anyPython(): boolean {
    return this.#default === 'python' || [...this.#byScope.values()].includes('python');
  }

  declare(agentId: string, guest: ProgramGuest): Dispose {
    if (this.#byScope.has(agentId)) {
      throw new DefinitionError(
        'INVALID_DEFINITION',
        `setGuest: agent "${agentId}" already declares a guest; dispose that declaration first`,
      );
    }
    this.#byScope.set(agentId, guest);
    let disposed = false;
    return () => {
      if (!disposed && this.#byScope.get(agentId) === guest) this.#byScope.delete(agentId);
      disposed = true;
    };
  }

  /** `chain` is the agent and its ancestors, nearest first. */
  resolve(chain: readonly string[]): ProgramGuest {
    for (const id of chain) {
      const guest = this.#byScope.get(id);
      if (guest !== undefined) return guest;
    }
    return this.#default;
  }
}
