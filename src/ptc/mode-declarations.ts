// Which form tools take for an agent: a runtime default plus one declaration per
// agent scope; the nearest scope's declaration wins, and disposing it restores the
// parent's.
import { DefinitionError } from '../errors/definition-error.ts';
import type { Dispose } from '../registry/tool-registry.ts';

export type ToolMode = 'native' | 'ptc' | 'both' | 'hosted';
export const TOOL_MODES: readonly ToolMode[] = ['native', 'ptc', 'both', 'hosted'];

export function checkMode(mode: unknown, where: string): ToolMode {
  if (!TOOL_MODES.includes(mode as ToolMode)) {
    throw new DefinitionError(
      'INVALID_DEFINITION',
      `${where}: mode must be one of ${TOOL_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    );
  }
  return mode as ToolMode;
}

export class ModeDeclarations {
  readonly #byScope = new Map<string, ToolMode>();
  readonly #default: ToolMode;

  constructor(defaultMode: ToolMode) {
    this.#default = defaultMode;
  }

  get defaultMode(): ToolMode {
    return this.#default;
  }

  declare(agentId: string, mode: ToolMode): Dispose {
    if (this.#byScope.has(agentId)) {
      throw new DefinitionError(
        'INVALID_DEFINITION',
        `setMode: agent "${agentId}" already declares a mode; dispose that declaration first`,
      );
    }
    this.#byScope.set(agentId, mode);
    let disposed = false;
    return () => {
      if (!disposed && this.#byScope.get(agentId) === mode) this.#byScope.delete(agentId);
      disposed = true;
    };
  }

  /** `chain` is the agent and its ancestors, nearest first. */
  resolve(chain: readonly string[]): ToolMode {
    for (const id of chain) {
      const mode = this.#byScope.get(id);
      if (mode !== undefined) return mode;
    }
    return this.#default;
  }
}
