/**
 * `atcasim fields FILE`: one RFC 4180 CSV row per packet with the header fields atcasim decodes,
 * formatted as the tshark 4.0 oracle prints them (../shared/pcap/README.md §2-§4): every
 * occurrence of a field, outermost first, comma-joined in one value. `frame.number` is atcasim's
 * packet index (pcapng custom blocks are not packets); `malformed` is 1 when the parser flagged
 * the packet (truncation by the snaplen is not malformation).
 *
 * Exit status: 0 when the whole file was read (even with malformed packets: they are data);
 * 2 for a file that is not a capture or is refused (no CSV at all), for a file cut short or
 * corrupt (the rows before the problem, then the error with its byte offset on stderr), and for
 * a missing/unreadable file. Diagnostics go to stderr only, one line each, never a stack trace.
 */
import type { Command } from 'commander';
import { FIELD_NAMES, TextFieldRecorder, type FieldId } from '../../board/packet/field-recorder.ts';
import { linkTypeName } from '../../board/packet/link-type.ts';
import { PacketErrorCounters } from '../../board/packet/packet-error.ts';
import { PacketParser } from '../../board/packet/parse.ts';
import { CaptureFileReader } from '../io/capture-file.ts';
import { describeInputError } from './replay.ts';
import type { CliContext } from './context.ts';

/** The CSV header, exactly as docs/packet.md specifies it (the tshark oracle's columns). */
export const FIELDS_HEADER = ['frame.number', 'frame.len', 'frame.cap_len', ...FIELD_NAMES, 'malformed'].join(',');

/** Quotes a CSV value when RFC 4180 §2 requires it. */
function csv(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

const FLUSH_AT = 1 << 16;

/**
 * Runs the verb. @returns the exit status (0 ok, 2 bad input). Never throws for bad input.
 */
export function runFields(file: string, ctx: Pick<CliContext, 'stdout' | 'stderr'>): number {
  const parser = new PacketParser();
  const rec = new TextFieldRecorder();
  const counters = new PacketErrorCounters();
  const warn = (msg: string) => ctx.stderr.write(`atcasim fields: ${file}: ${msg}\n`);
  let out = '';
  let started = false;
  const flush = () => {
    if (out.length > 0) ctx.stdout.write(out);
    out = '';
  };
  const fieldCount = FIELD_NAMES.length;
  let reader: CaptureFileReader;
  try {
    reader = new CaptureFileReader(file, {
      start: () => {
        started = true;
        out += `${FIELDS_HEADER}\n`;
      },
      interface: (iface) => {
        if (!iface.linkSupported) {
          warn(`interface ${iface.interfaceId}${iface.section ? ` of section ${iface.section}` : ''} has link type ${iface.linkType} (${linkTypeName(iface.linkType)}), which atcasim does not decode: its packets are reported as malformed`);
        }
      },
      packet: (r) => {
        rec.clear();
        const v = parser.parseAt(r.buf, r.offset, r.caplen, r.linkType, r.origLen, rec);
        counters.add(v.err.kind);
        let row = `${r.number},${r.origLen},${r.caplen}`;
        for (let f = 0; f < fieldCount; f++) row += `,${csv(rec.text(f as FieldId))}`;
        out += `${row},${v.malformed ? 1 : 0}\n`;
        if (out.length >= FLUSH_AT) flush();
      },
    });
  } catch (e) {
    warn(describeInputError(e));
    return 2;
  }
  try {
    reader.pump();
  } catch (e) {
    flush();
    warn(describeInputError(e));
    return 2;
  } finally {
    reader.close();
  }
  if (!started) {
    warn('not a capture file');
    return 2;
  }
  flush();
  const summary = counters.summary();
  const bad = Object.entries(summary);
  if (bad.length > 0) {
    const total = reader.capture.packets;
    warn(`${total} packets; ${bad.map(([k, n]) => `${n} ${k}`).join(', ')}`);
  }
  return 0;
}


/** Registers `fields` on the CLI root. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('fields')
    .description('print the header fields of every packet of a pcap/pcapng capture as CSV (tshark-comparable)')
    .argument('<file>', 'capture file (pcap or pcapng; the format is detected from its magic number)')
    .action((file: string) => {
      ctx.setExit(runFields(file, ctx));
    });
}
