// A scripted model for agent-loop tests: answers each call with the next scripted
// reply (a function of the request, so it can read the tool results it got back),
// and records every request.
import type { AssistantBlock, Model, ModelRequest } from './agent-loop.ts';

export type ScriptedReply = AssistantBlock[] | ((request: ModelRequest) => AssistantBlock[]);

export function createScriptedModel(replies: readonly ScriptedReply[]): Model & { readonly requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const model = async (request: ModelRequest): Promise<{ content: AssistantBlock[] }> => {
    requests.push(request);
    const reply = replies[requests.length - 1];
    if (reply === undefined) throw new Error(`scripted model: no reply scripted for call ${requests.length}`);
    return { content: typeof reply === 'function' ? reply(request) : reply };
  };
  return Object.assign(model, { requests });
}
