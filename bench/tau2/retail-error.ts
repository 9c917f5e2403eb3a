/** A failed retail tool call: `message` is the text upstream shows after `Error: `. */
export class RetailError extends Error {}
