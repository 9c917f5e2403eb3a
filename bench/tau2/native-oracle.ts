// Scripted native models replaying the gold actions through the adapter loop; each sees
// every tool result whole. `native`: one call per request. `nativeParallel`: consecutive
// reads go out together while each one's arguments are already in the conversation (so it
// does not wait on another read of the same request). Each write is preceded by its own
// confirmation question, answered "yes" by the customer.
import type { AssistantBlock, ModelReply, ModelRequest, TaskModel } from './model.ts';
import { CONFIRMATION, confirmationText } from './plan.ts';
import type { GoldAction } from './tasks.ts';
import { WRITE_TOOLS } from './tools.ts';

export const FINAL_ANSWER = 'Everything you asked for is done. Is there anything else?';

/** Every string inside a value (the argument leaves a model copies from the conversation). */
export function stringLeaves(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(stringLeaves);
  if (typeof v === 'object' && v !== null) return Object.values(v).flatMap(stringLeaves);
  return [];
}

export class NativeOracle implements TaskModel {
  private next = 0;
  private confirmed = false;
  private ids = 0;
  private lastText: 'confirm' | 'final' | undefined;

  private readonly actions: readonly GoldAction[];
  private readonly parallel: boolean;

  constructor(actions: readonly GoldAction[], parallel: boolean) {
    this.actions = actions;
    this.parallel = parallel;
  }

  private use(a: GoldAction): AssistantBlock {
    return { type: 'tool_use', id: `toolu_${++this.ids}`, name: a.name, input: a.arguments };
  }

  async respond(request: ModelRequest): Promise<ModelReply> {
    const a = this.actions[this.next];
    if (a === undefined) {
      this.lastText = 'final';
      return { content: [{ type: 'text', text: FINAL_ANSWER }] };
    }
    if (WRITE_TOOLS.has(a.name)) {
      if (!this.confirmed) {
        this.confirmed = true;
        this.lastText = 'confirm';
        return { content: [{ type: 'text', text: confirmationText(a) }] };
      }
      this.confirmed = false;
      this.next++;
      return { content: [this.use(a)] };
    }
    const group = [a];
    this.next++;
    if (this.parallel) {
      const seen = JSON.stringify(request.messages);
      for (let b = this.actions[this.next]; b !== undefined && !WRITE_TOOLS.has(b.name); b = this.actions[this.next]) {
        if (!stringLeaves(b.arguments).every((s) => seen.includes(JSON.stringify(s).slice(1, -1)))) break;
        group.push(b);
        this.next++;
      }
    }
    return { content: group.map((g) => this.use(g)) };
  }

  customerReply(): string | undefined {
    const last = this.lastText;
    this.lastText = undefined;
    return last === 'confirm' ? CONFIRMATION : undefined;
  }
}
