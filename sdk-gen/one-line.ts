// C0/C1 control characters (including tabs and line breaks) become spaces.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// A high surrogate without its low half, or a low one without its high half.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Free text squeezed onto one line: control characters and every run of
 * whitespace (which includes U+2028/U+2029 line separators) become one space,
 * lone surrogates become U+FFFD, and the ends are trimmed.
 */
export function oneLine(text: string): string {
  return text.replace(CONTROL, ' ').replace(/\s+/g, ' ').replace(LONE_SURROGATE, '\ufffd').trim();
}
