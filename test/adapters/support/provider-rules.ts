// The request rules the providers document, as checks a mock server runs on every
// request: tool names, non-empty text, image types, and that every tool call of the
// model is answered (Anthropic: tool_result blocks first in the next user message;
// OpenAI: a tool message / function_call_output per call id).
import { asArray, isObject, type Json, type JsonObject } from './mock-provider.ts';

const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,128}$/u;
const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/u;
const ANTHROPIC_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const OPENAI_IMAGE_URL = /^data:image\/(png|jpeg|gif|webp);base64,/u;

const blank = (text: Json | undefined): boolean => typeof text !== 'string' || text.trim() === '';

function anthropicBlocks(blocks: Json[], where: string, problems: string[]): void {
  blocks.forEach((block, i) => {
    if (!isObject(block)) return void problems.push(`${where}.${i}: not an object`);
    if (block['type'] === 'text' && blank(block['text']))
      problems.push(`${where}.${i}: text content blocks must be non-empty`);
    if (block['type'] === 'image') {
      const source = block['source'];
      if (!isObject(source) || !ANTHROPIC_IMAGES.has(String(source['media_type'])))
        problems.push(`${where}.${i}: image media_type must be one of ${[...ANTHROPIC_IMAGES].join(', ')}`);
    }
    if (block['type'] === 'tool_result') {
      const content = block['content'];
      if (typeof content === 'string' && blank(content))
        problems.push(`${where}.${i}.content: text content blocks must be non-empty`);
      if (Array.isArray(content)) anthropicBlocks(content, `${where}.${i}.content`, problems);
    }
  });
}

export function anthropicProblems(body: JsonObject): string[] {
  const problems: string[] = [];
  asArray(body['tools']).forEach((tool, i) => {
    if (!isObject(tool) || typeof tool['name'] !== 'string' || !ANTHROPIC_NAME.test(tool['name'])) {
      problems.push(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    }
    // Server tools (`{ type: 'code_execution_20260120', name }`) have no input_schema.
    const server = isObject(tool) && typeof tool['type'] === 'string' && tool['type'] !== 'custom';
    if (isObject(tool) && !server && (!isObject(tool['input_schema']) || tool['input_schema']['type'] !== 'object'))
      problems.push(`tools.${i}.input_schema.type: must be "object"`);
  });
  if (typeof body['system'] === 'string' && blank(body['system']))
    problems.push('system: text content blocks must be non-empty');
  const messages = asArray(body['messages']);
  messages.forEach((message, m) => {
    if (!isObject(message)) return void problems.push(`messages.${m}: not an object`);
    const content = message['content'];
    if (typeof content === 'string') {
      if (blank(content)) problems.push(`messages.${m}: text content blocks must be non-empty`);
      return;
    }
    anthropicBlocks(asArray(content), `messages.${m}.content`, problems);
    if (message['role'] !== 'assistant') return;
    const uses = asArray(content)
      .filter((b): b is JsonObject => isObject(b) && b['type'] === 'tool_use')
      .map((b) => String(b['id']));
    if (uses.length === 0) return;
    const next = messages[m + 1];
    if (next === undefined) return;
    const answers = isObject(next) && next['role'] === 'user' ? asArray(next['content']) : [];
    const leading: string[] = [];
    for (const block of answers) {
      if (!isObject(block) || block['type'] !== 'tool_result') break;
      leading.push(String(block['tool_use_id']));
    }
    const missing = uses.filter((id) => !leading.includes(id));
    if (missing.length > 0) {
      problems.push(
        `messages.${m}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`,
      );
    }
    const stray = leading.filter((id) => !uses.includes(id));
    if (stray.length > 0)
      problems.push(
        `messages.${m + 1}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(', ')}`,
      );
  });
  return problems;
}

function openAINames(
  tools: Json | undefined,
  nameOf: (tool: JsonObject) => Json | undefined,
  problems: string[],
): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools) || tools.length === 0) return void problems.push("[] is too short - 'tools'");
  tools.forEach((tool, i) => {
    // Hosted tools (`{ type: 'programmatic_tool_calling' }`) have no name.
    if (isObject(tool) && typeof tool['type'] === 'string' && tool['type'] !== 'function') return;
    const name = isObject(tool) ? nameOf(tool) : undefined;
    if (typeof name !== 'string' || !OPENAI_NAME.test(name))
      problems.push(
        `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters)`,
      );
  });
}

function openAIUserParts(content: Json | undefined, where: string, problems: string[]): void {
  if (typeof content === 'string') {
    if (blank(content)) problems.push(`${where}: empty text`);
    return;
  }
  asArray(content).forEach((part, i) => {
    if (!isObject(part)) return;
    if ((part['type'] === 'text' || part['type'] === 'input_text') && blank(part['text']))
      problems.push(`${where}[${i}]: empty text`);
    const url =
      part['type'] === 'image_url' && isObject(part['image_url'])
        ? part['image_url']['url']
        : part['type'] === 'input_image'
          ? part['image_url']
          : undefined;
    if (url !== undefined && !OPENAI_IMAGE_URL.test(String(url)))
      problems.push(`${where}[${i}]: unsupported image type`);
  });
}

export function openAIChatProblems(body: JsonObject): string[] {
  const problems: string[] = [];
  openAINames(body['tools'], (tool) => (isObject(tool['function']) ? tool['function']['name'] : undefined), problems);
  const messages = asArray(body['messages']);
  const open = new Set<string>();
  messages.forEach((message, m) => {
    if (!isObject(message)) return;
    const role = message['role'];
    if (role === 'tool') {
      const id = String(message['tool_call_id']);
      if (!open.delete(id)) problems.push(`messages.[${m}].tool_call_id: no preceding tool_calls entry with id ${id}`);
      if (blank(message['content'])) problems.push(`messages.[${m}].content: empty tool result`);
      return;
    }
    if (open.size > 0) {
      problems.push(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
      );
      open.clear();
    }
    if (role === 'user' || role === 'system' || role === 'developer')
      openAIUserParts(message['content'], `messages.[${m}].content`, problems);
    if (role === 'assistant') {
      for (const call of asArray(message['tool_calls'])) {
        if (!isObject(call)) continue;
        open.add(String(call['id']));
        const name = isObject(call['function']) ? call['function']['name'] : undefined;
        if (typeof name !== 'string' || !OPENAI_NAME.test(name))
          problems.push(`messages.[${m}].tool_calls: invalid function name`);
      }
    }
  });
  if (open.size > 0) problems.push(`tool_call_ids did not have response messages: ${[...open].join(', ')}`);
  return problems;
}

export function openAIResponsesProblems(body: JsonObject): string[] {
  const problems: string[] = [];
  openAINames(body['tools'], (tool) => tool['name'], problems);
  if (body['instructions'] !== undefined && blank(body['instructions'])) problems.push('instructions: empty');
  const calls = new Set<string>();
  const answered = new Set<string>();
  asArray(body['input']).forEach((item, i) => {
    if (!isObject(item)) return;
    if (item['type'] === 'function_call') {
      calls.add(String(item['call_id']));
      if (typeof item['name'] !== 'string' || !OPENAI_NAME.test(item['name']))
        problems.push(`input[${i}].name: invalid function name`);
    } else if (item['type'] === 'function_call_output') {
      const id = String(item['call_id']);
      if (!calls.has(id)) problems.push(`No tool call found for function call output with call_id ${id}.`);
      if (blank(item['output'])) problems.push(`input[${i}].output: empty tool result`);
      answered.add(id);
    } else if (item['role'] === 'user') {
      openAIUserParts(item['content'], `input[${i}].content`, problems);
    }
  });
  for (const id of calls) if (!answered.has(id)) problems.push(`No tool output found for function call ${id}.`);
  return problems;
}
