/**
 * Typed errors shared by every layer. Bad input never throws anything else out of a decoder:
 * callers match on `kind` (or `instanceof`) and count/log, then carry on with the next input.
 */

/** A decoder hit bytes it cannot accept. `offset` is relative to the start of the buffer handed to
 * the decoder (a packet, a datagram, a file), in bytes. */
export class DecodeError extends Error {
  readonly kind = 'decode' as const;
  /**
   * @param layer  protocol or structure, e.g. 'ipv4', 'pcapng', 'rmcp+'
   * @param field  field that is wrong or missing, e.g. 'ihl', 'block_total_length'
   * @param offset byte offset of that field
   * @param detail human text; the message reads `layer: field at offset N: detail`
   */
  constructor(
    readonly layer: string,
    readonly field: string,
    readonly offset: number,
    detail: string,
  ) {
    super(`${layer}: ${field} at offset ${offset}: ${detail}`);
    this.name = 'DecodeError';
  }
}

/** A stream decoder needs more bytes before it can decide (not an error in the data). */
export class NeedMoreBytes extends Error {
  readonly kind = 'need-more' as const;
  constructor(readonly need: number, readonly have: number) {
    super(`need ${need} bytes, have ${have}`);
    this.name = 'NeedMoreBytes';
  }
}

/** A configuration or scenario file is invalid. The message starts with `file:line:column:`. */
export class ConfigError extends Error {
  readonly kind = 'config' as const;
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    detail: string,
  ) {
    super(`${file}:${line}:${column}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** A user-visible command was refused by the model (illegal state change, unknown slot, …).
 * `code` is a stable snake_case reason tests and the CLI can match. */
export class CommandError extends Error {
  readonly kind = 'command' as const;
  constructor(readonly code: string, detail: string) {
    super(detail);
    this.name = 'CommandError';
  }
}
