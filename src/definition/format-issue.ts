// A format failure in words. ajv says `must match format "email"`, and a zod schema,
// which sends its own regex beside `format` (z.string().email() becomes { format:
// "email", pattern: "^(?:[A-Za-z0-9_'+\-]+\.)*…$" }), fails on the pattern first: a model
// reading that regex learns less than "must be an email address". A pattern failure
// next to a `format` is reported as the format's; a pattern on its own keeps its regex.
import type { ErrorObject } from 'ajv';

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  email: 'an email address',
  'idn-email': 'an email address',
  uri: 'a URI (e.g. https://example.com/x)',
  'uri-reference': 'a URI reference',
  iri: 'an IRI',
  'iri-reference': 'an IRI reference',
  url: 'a URL (e.g. https://example.com/x)',
  uuid: 'a UUID (e.g. 123e4567-e89b-12d3-a456-426614174000)',
  guid: 'a UUID (e.g. 123e4567-e89b-12d3-a456-426614174000)',
  'date-time': 'a date-time (RFC 3339, e.g. 2026-01-31T12:00:00Z)',
  datetime: 'a date-time (RFC 3339, e.g. 2026-01-31T12:00:00Z)',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (e.g. 12:00:00Z)',
  duration: 'an ISO 8601 duration (e.g. P3D)',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  hostname: 'a hostname',
  'idn-hostname': 'a hostname',
  regex: 'a regular expression',
  'json-pointer': 'a JSON pointer',
  'relative-json-pointer': 'a relative JSON pointer',
  byte: 'base64 text',
  base64: 'base64 text',
  emoji: 'an emoji',
  cuid: 'a CUID',
  cuid2: 'a CUID2',
  ulid: 'a ULID',
  nanoid: 'a nanoid',
  cidrv4: 'an IPv4 range (CIDR)',
  cidrv6: 'an IPv6 range (CIDR)',
  e164: 'a phone number in E.164 form (e.g. +14155550123)',
  jwt: 'a JWT',
};

/** `must be an email address (format "email")`, or ajv's words for an unknown format. */
export function formatMessage(format: string): string {
  const words = FORMAT_WORDS[format];
  return words === undefined ? `must match format "${format}"` : `must be ${words} (format "${format}")`;
}

/** The schema node an error's schemaPath points into (its keyword's parent), if it can be found. */
function parentNode(root: unknown, schemaPath: string): unknown {
  if (!schemaPath.startsWith('#/')) return undefined;
  const segments = schemaPath.slice(2).split('/').slice(0, -1);
  let node: unknown = root;
  for (const raw of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** The message of one ajv error, with formats in words (see the file comment). */
export function issueMessage(error: ErrorObject, rootSchema: unknown): string {
  if (error.keyword === 'format' && typeof error.params['format'] === 'string') {
    return formatMessage(error.params['format']);
  }
  if (error.keyword === 'pattern') {
    const parent = parentNode(rootSchema, error.schemaPath);
    const format = parent !== null && typeof parent === 'object' ? (parent as { format?: unknown }).format : undefined;
    if (typeof format === 'string') return formatMessage(format);
  }
  return error.message ?? 'is invalid';
}
