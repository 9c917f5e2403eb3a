// The customer of a live run: a model that plays the task's scenario, as upstream's user
// simulator does. It reads the conversation from the customer's side (the agent's texts
// as the other party's lines, its own lines as its replies; tool calls are the agent's
// business and never shown), writes one message at a time, and ends the conversation
// with a stop token. The prompt is our own wording of that behaviour.
import type { ApiUsage, Message, TurnModel } from './model.ts';
import type { RetailTask } from './tasks.ts';

/** The agent's first line, before the customer speaks (as upstream's orchestrator opens). */
export const GREETING = 'Hi! How can I help you today?';

/** Tokens the customer writes to end the conversation: done, handed to a human, or stuck. */
export const END_TOKENS = ['###STOP###', '###TRANSFER###', '###OUT-OF-SCOPE###'] as const;

const GUIDELINES = `You play a customer who has contacted an online store's customer-service agent. The other party's messages are the agent's; yours are the customer's.

- Write only the customer's next message: one message, plain conversational language, no stage directions.
- Act as the scenario below says. What it does not tell you, you do not know: never invent names, ids, addresses, amounts or preferences.
- Say things in your own words rather than repeating the scenario, and give details when the agent asks for them rather than all at once.
- When everything the scenario asks for has been handled (or the agent has made clear it cannot be), reply with ${END_TOKENS[0]} alone.
- If the agent transfers you to a human agent, reply with ${END_TOKENS[1]} alone.
- If the scenario gives you nothing to go on for what the agent needs, reply with ${END_TOKENS[2]} alone.`;

/** The scenario of a task as the simulated customer reads it. */
export function scenarioText(task: RetailTask): string {
  const { persona, instructions: i } = task.user_scenario;
  const part = (title: string, text: string | null | undefined): string[] =>
    text === null || text === undefined || text === '' ? [] : [`${title}:\n${text}`];
  return [
    ...part('Persona', persona),
    ...part('Why you are contacting the store', i.reason_for_call),
    ...part('What you know', i.known_info),
    ...part('What you do not know', i.unknown_info),
    ...part('How to behave', i.task_instructions),
  ].join('\n\n');
}

export class CustomerSimulator {
  private readonly model: TurnModel;
  private readonly system: string;
  /** The conversation from the customer's side: the agent's lines are `user`, the customer's `assistant`. */
  private readonly messages: Message[] = [{ role: 'user', content: GREETING }];

  constructor(model: TurnModel, task: RetailTask) {
    this.model = model;
    this.system = `${GUIDELINES}\n\n<scenario>\n${scenarioText(task)}\n</scenario>`;
  }

  /** The customer's first message, in answer to the greeting. */
  async opening(): Promise<string> {
    const line = await this.next();
    if (line === undefined) throw new Error('the simulated customer ended the conversation before saying anything');
    return line;
  }

  /** The customer's answer to the agent's text, or undefined once the customer ends the conversation. */
  async reply(agentText: string): Promise<string | undefined> {
    // A reply of tool calls alone has no text; the customer sees that the agent said nothing.
    this.messages.push({ role: 'user', content: agentText.trim() === '' ? '(no reply)' : agentText });
    return this.next();
  }

  usage(): ApiUsage | undefined {
    return this.model.usage?.();
  }

  private async next(): Promise<string | undefined> {
    const reply = await this.model.respond({ tools: [], system: this.system, messages: [...this.messages] });
    const text = reply.content
      .flatMap((b) => (b.type === 'text' ? [b.text] : []))
      .join('\n')
      .trim();
    if (text === '') throw new Error('the simulated customer sent an empty message');
    if (END_TOKENS.some((token) => text.includes(token))) return undefined;
    this.messages.push({ role: 'assistant', content: [{ type: 'text', text }] });
    return text;
  }
}
