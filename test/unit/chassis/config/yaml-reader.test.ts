/**
 * chassis/config/yaml-reader.ts: errors in config files are precise and printable — an alias with
 * no anchor is a YAML error at the alias (not a missing key), a binary file (a capture given as
 * --config) is named as such, and no message echoes raw control bytes to the terminal.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { parseShelfConfig } from '../../../../chassis/config/shelf-config.ts';
import { printable, YamlSource } from '../../../../chassis/config/yaml-reader.ts';
import { shared } from '../../../support/shared.ts';

function message(text: string, file = 'shelf.yaml'): string {
  try {
    parseShelfConfig(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('yaml-reader: errors that say what is wrong', () => {
  it('an alias without an anchor is a YAML error at the alias, not "missing required key"', () => {
    expect(message('a: *nope\n')).toBe('shelf.yaml:1:4: YAML unresolved alias *nope: no anchor &nope is defined before it');
    expect(message('shelf:\n  name: x\n  slots: *later\nlater: &later []\n')).toMatch(/^shelf\.yaml:3:10: YAML unresolved alias \*later/);
    // an anchor defined before its alias still resolves
    const src = new YamlSource('a: &x 5\nb: *x\n', 'ok.yaml');
    expect(src.root().map().req('b').num()).toBe(5);
  });

  it('a capture given as a config file: named as binary, no raw bytes in the message', () => {
    const pcap = shared('pcap', 'tcpdump__IGMP_V2.pcap');
    const m = message(readFileSync(pcap, 'utf8'), pcap);
    expect(m).toMatch(/tcpdump__IGMP_V2\.pcap:1:\d+: not a YAML text file \(NUL byte at character \d+\)/);
    expect(m).not.toMatch(/[\u0000-\u001f\u007f\ufffd]/);
  });

  it('control bytes in a value are escaped and long values are cut short', () => {
    const m = message('shelf: "a\\u0007b\\u001b[31mred"\n');
    expect(m).toBe('shelf.yaml:1:8: shelf: expected a mapping, got "a\\x07bx1b[31mred"'.replace('bx1b', 'b\\x1b'));
    const long = message(`shelf: ${'x'.repeat(500)}\n`);
    expect(long).toMatch(/got "x{60}…"$/);
    expect(printable('tab\there\u200b\ufffd')).toBe('tab\\x09here\\u200b\\ufffd');
  });
});
