// The text of a call the guest blocks on: `c<seq> <tool's length> <tool><arguments' JSON>`.
// The guest writes it (guest/host-link.ts), the host reads it (isolate-run.ts). A frame
// rather than a JSON message, so the arguments' JSON crosses as it is: the guest does not
// escape it into a string and the host does not parse it back out. The host treats the
// text as untrusted: anything that is not such a frame is refused.

export interface BlockedCallText {
  readonly seq: number;
  readonly tool: string;
  readonly args: string;
}

/** Only string concatenation: safe in the guest whatever the program did to built-ins. */
export function writeBlockedCall(seq: number, tool: string, argsJson: string): string {
  return 'c' + seq + ' ' + tool.length + ' ' + tool + argsJson;
}

/** The call in `text`, or undefined if it is not a frame writeBlockedCall wrote. */
export function readBlockedCall(text: string): BlockedCallText | undefined {
  if (text.charCodeAt(0) !== 99) return undefined; // 'c'
  const afterSeq = text.indexOf(' ', 1);
  const afterLength = afterSeq < 0 ? -1 : text.indexOf(' ', afterSeq + 1);
  if (afterLength < 0) return undefined;
  const seq = decimal(text, 1, afterSeq);
  const length = decimal(text, afterSeq + 1, afterLength);
  if (seq === undefined || length === undefined) return undefined;
  const toolEnd = afterLength + 1 + length;
  if (toolEnd > text.length) return undefined;
  return { seq, tool: text.slice(afterLength + 1, toolEnd), args: text.slice(toolEnd) };
}

/** The whole number written in text[start, end) in plain digits (at most 15), else undefined. */
function decimal(text: string, start: number, end: number): number | undefined {
  if (end <= start || end - start > 15) return undefined;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}
