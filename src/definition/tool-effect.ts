// What a tool does to the world, for previews and commits: `'read'` changes nothing (a
// preview runs it live), `'write'` changes something (a preview records it and does not
// run it). Unknown means dangerous: a tool that does not say is a write. A write may
// give a stand-in result for the plan (`preview`), undo itself after a failed commit
// (`revert`), and say the program needs its real result to go on (`pivot`).
import { DefinitionError } from '../errors/definition-error.ts';
import type { JsonValue } from '../json/json-value.ts';

/** `'read'`: the call changes nothing; `'write'`: it changes something (the default). */
export type ToolEffect = 'read' | 'write';

/** What `preview` and `revert` of a write receive beside its arguments. */
export interface EffectExecution {
  /** The plan the call belongs to. */
  readonly planId: string;
  /** The call's place in the program (1-based, program order). */
  readonly seq: number;
  /** The calling agent's id, or undefined for the global scope. */
  readonly agent: string | undefined;
  /** The write's idempotency key in the commit (`run:<planId>:<seq>`): a revert can name what it undoes. */
  readonly idempotencyKey: string;
  /** Aborted when the preview is cancelled, or when a revert runs past its deadline. */
  readonly signal: AbortSignal;
}

/** The effect fields of a compiled tool (see ToolSpecBase.effect). */
export interface ToolEffectFields {
  /** `'read'` or `'write'`; a tool built by hand without it counts as `'write'`. */
  readonly effect?: ToolEffect;
  /** A write's stand-in result for a preview (validated against the output schema). */
  readonly preview?: (args: JsonValue, exec: EffectExecution) => Promise<unknown>;
  /** Undoes an applied write after a later write of the same commit failed. */
  readonly revert?: (args: JsonValue, result: JsonValue, exec: EffectExecution) => Promise<void>;
  /** The program needs this write's real result: a preview stops at it and the plan is partial. */
  readonly pivot?: boolean;
}

/** The tool's effect: what it declared, else `'write'`. */
export function effectOf(tool: ToolEffectFields | undefined): ToolEffect {
  return tool?.effect === 'read' ? 'read' : 'write';
}

/** Checks the effect fields of a definition; a DefinitionError names the field. */
export function checkEffectSpec(spec: Record<string, unknown>): void {
  const bad = (field: string, message: string): never => {
    throw new DefinitionError('INVALID_DEFINITION', `defineTool(${JSON.stringify(spec.name)}): ${field} ${message}`, {
      field,
    });
  };
  const effect = spec.effect;
  if (effect !== undefined && effect !== 'read' && effect !== 'write')
    bad('effect', `must be 'read' or 'write', got ${JSON.stringify(effect)}`);
  for (const f of ['preview', 'revert'])
    if (spec[f] !== undefined && typeof spec[f] !== 'function') bad(f, 'must be a function when given');
  if (spec.pivot !== undefined && typeof spec.pivot !== 'boolean') bad('pivot', 'must be a boolean');
  if (effect === 'read') {
    for (const f of ['preview', 'revert', 'pivot'])
      if (spec[f] !== undefined)
        bad(f, "belongs to writes only: a tool with effect 'read' runs live in a preview and has nothing to undo");
  }
}

/** The effect fields a compiled tool carries, from its definition. */
export function effectFields(spec: {
  readonly effect?: ToolEffect;
  readonly preview?: (args: never, exec: EffectExecution) => unknown;
  readonly revert?: (args: never, result: never, exec: EffectExecution) => unknown;
  readonly pivot?: boolean;
}): ToolEffectFields {
  const preview = spec.preview as ((args: JsonValue, exec: EffectExecution) => unknown) | undefined;
  const revert = spec.revert as ((args: JsonValue, result: JsonValue, exec: EffectExecution) => unknown) | undefined;
  return {
    effect: spec.effect === 'read' ? 'read' : 'write',
    ...(preview === undefined ? {} : { preview: async (args, exec) => preview(args, exec) }),
    ...(revert === undefined
      ? {}
      : {
          revert: async (args, result, exec) => {
            await revert(args, result, exec);
          },
        }),
    ...(spec.pivot === true ? { pivot: true } : {}),
  };
}
